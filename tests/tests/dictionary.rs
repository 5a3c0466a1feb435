//! End-to-end: the campaign's dictionary holds the literals of the crate
//! under test, and the mutator uses them where no comparison can tell it the
//! value (here a string is only ever compared by its hash).

use covcheck_e2e::Fixture;

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
