//! End-to-end: the campaign's dictionaries. The literals of the crate under
//! test reach the input where no comparison can tell the mutator the value
//! (here a string is only ever compared by its hash); so do a property's
//! own tokens (`#[covcheck(dict = [...])]`), which `--no-dict` turns off;
//! and a broken `dict_file` stops the campaign and fails plain `cargo test`
//! with its path and line.

use covcheck_e2e::{Fixture, finding_for, finished};
use covcheck_protocol::messages::Message;
use covcheck_protocol::messages::TokenUse;

const HASHED: &str = r#"
    const SECRET: &str = "plugh-xyzzy";

    fn fingerprint(s: &str) -> u64 {
        s.bytes()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
    }

    #[covcheck]
    fn never_says_the_secret(words: String) {
        for word in words.split(' ') {
            assert_ne!(fingerprint(word), fingerprint(SECRET), "said it");
        }
    }
"#;

#[test]
fn a_literal_of_the_crate_under_test_reaches_the_input() {
    let fixture = Fixture::new("dictionary_literals", HASHED);
    let output = fixture.covcheck(&["--runs", "300000", "--seed", "1", "--no-cmp"]);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("said it"), "{text}");
    let dictionary =
        covcheck_e2e::target_dir().join("covcheck/dictionary/dictionary_literals.dict");
    let dictionary = std::fs::read_to_string(&dictionary).expect("the dictionary is written");
    assert!(
        dictionary.lines().any(|l| l == "\"plugh-xyzzy\""),
        "{dictionary}"
    );
}

/// A request whose method word and command word are both looked up by
/// hash: no comparison reveals them and no literal spells them, only the
/// property's dictionary.
const HASHED_REQUEST: &str = r#"
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
    }

    const METHOD: u64 = 0x7b40_9b7d_5308_7775;
    const COMMAND: u64 = 0x5e4a_c150_e676_d1ef;

    #[covcheck(dict = ["GET ", b"FROBNITZ"])]
    fn never_runs_the_command(request: Vec<u8>) {
        if request.len() >= 4 && fnv1a(&request[..4]) == METHOD {
            for word in request[4..].windows(8) {
                assert_ne!(fnv1a(word), COMMAND, "ran the command");
            }
        }
    }

    // Passes: the method word only opens a branch, new coverage.
    #[covcheck(dict = ["GET "])]
    fn reads_the_method(request: Vec<u8>) {
        if request.len() >= 4 && fnv1a(&request[..4]) == METHOD {
            std::hint::black_box(request.len());
        }
    }
"#;

const PROPERTY: &str = "dictionary_own::tests::never_runs_the_command";
const PASSING: &str = "dictionary_own::tests::reads_the_method";

/// The tokens `property`'s finished message names.
fn finished_tokens<'a>(events: &'a [Message], property: &str) -> &'a [TokenUse] {
    events
        .iter()
        .find_map(|event| match event {
            Message::Finished {
                property: p,
                tokens,
                ..
            } if p == property => Some(tokens.as_slice()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{property} finished: {events:#?}"))
}

#[test]
fn a_property_s_own_tokens_find_what_no_comparison_reveals_and_no_dict_turns_them_off() {
    let fixture = Fixture::new("dictionary_own", HASHED_REQUEST);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--runs",
            "200000",
            "--seed",
            "1",
            "--no-save",
            // From scratch: the corpus cache of an earlier run holds the
            // entries the tokens made.
            "--no-resume",
            "--message-format",
            "json",
        ];
        args.extend_from_slice(extra);
        fixture.covcheck(&args)
    };

    let output = run(&[]);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let events = covcheck_e2e::events(&output.stdout);
    let finding = finding_for(&events, PROPERTY);
    assert!(
        finding.finding.message.contains("ran the command"),
        "{text}"
    );
    // The method word opened the branch: corpus entries its mutations wrote.
    let tokens = finished_tokens(&events, PASSING);
    assert!(
        tokens.iter().any(|u| u.token == "GET " && u.entries > 0),
        "{tokens:?}"
    );
    // The property's tokens are its own, not in the package's dictionary.
    let dictionary = covcheck_e2e::target_dir().join("covcheck/dictionary/dictionary_own.dict");
    let dictionary = std::fs::read_to_string(&dictionary).expect("the dictionary is written");
    assert!(!dictionary.contains("FROBNITZ"), "{dictionary}");

    let output = run(&["--no-dict"]);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let events = covcheck_e2e::events(&output.stdout);
    let (execs, findings) = finished(&events, PROPERTY).expect("the campaign finished");
    assert!(execs >= 200_000 && findings == 0, "{text}");
    assert!(finished_tokens(&events, PASSING).is_empty(), "{text}");
}

const BROKEN_DICTIONARIES: &str = r#"
    #[covcheck(dict_file = "fuzz/bad.dict")]
    fn malformed(x: String) {
        let _ = x;
    }

    #[covcheck(dict = ["GET "], dict_file = "fuzz/missing.dict")]
    fn missing(x: String) {
        let _ = x;
    }
"#;

#[test]
fn a_broken_dict_file_is_named_by_campaigns_and_by_cargo_test() {
    let fixture = Fixture::new("dictionary_broken", BROKEN_DICTIONARIES);
    let fuzz = fixture.path().join("fuzz");
    std::fs::create_dir(&fuzz).unwrap();
    std::fs::write(fuzz.join("bad.dict"), "# HTTP\n\"GET \"\nPOST\n").unwrap();
    let bad = format!(
        "{}, line 3: expected a token",
        fuzz.join("bad.dict").display()
    );
    let missing = format!(
        "cannot read the dictionary {}",
        fuzz.join("missing.dict").display()
    );

    let output = fixture.covcheck(&["--runs", "1000", "--seed", "1", "--message-format", "json"]);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(
        output.status.code(),
        Some(3),
        "covcheck's own error: {text}"
    );
    let events = covcheck_e2e::events(&output.stdout);
    let error = |property: &str| {
        events.iter().find_map(|event| match event {
            Message::Error {
                property: p,
                message,
            } if p.ends_with(property) => Some(message),
            _ => None,
        })
    };
    for (property, expected) in [("::malformed", &bad), ("::missing", &missing)] {
        let message = error(property).unwrap_or_else(|| panic!("an error for {property}: {text}"));
        assert!(message.contains(expected.as_str()), "{message}");
        assert!(message.contains("dict_file = \"fuzz/"), "{message}");
        let path = format!("dictionary_broken::tests{property}");
        assert_eq!(finished(&events, &path), Some((0, 0)), "not run: {text}");
    }

    let (passed, text) = fixture.cargo(&["test"]);
    assert!(!passed, "{text}");
    assert!(text.contains(&bad), "{text}");
    assert!(text.contains(&missing), "{text}");
}
