//! End-to-end: `cargo covcheck --since REV`, a campaign aimed at a change.
//!
//! A fixture repository's first commit is campaigned on; its second adds a
//! bug to code one property reaches and a branch no property takes. With
//! `--since HEAD~1` the properties whose corpus reaches the change run
//! first, the bug is found, and the summary names exactly the changed
//! lines no property reached. A
//! revision the checkout lacks, or a directory that is none, is an error
//! before anything is built (exit 2).

use std::fs;

use covcheck_e2e::{Fixture, events, findings, git, text_of};
use covcheck_protocol::messages::{Message, SourceLine};

const BEFORE: &str = r#"
    fn parse_record(tag: u32, len: u8) -> Option<Vec<u8>> {
        if tag == 0x5245_4344 {
            return Some(vec![0; usize::from(len)]);
        }
        None
    }

    fn scale(x: u32, factor: u32) -> u32 {
        x.wrapping_mul(factor)
    }

    #[covcheck]
    fn records_parse(tag: u32, len: u8) {
        if let Some(record) = parse_record(tag, len) {
            assert_eq!(record.len(), usize::from(len));
        }
    }

    #[covcheck]
    fn scaling_by_two_doubles(x: u16) {
        assert_eq!(scale(u32::from(x), std::hint::black_box(2)), u32::from(x) * 2);
    }

    #[covcheck]
    fn sums_commute(a: u8, b: u8) {
        assert_eq!(u16::from(a) + u16::from(b), u16::from(b) + u16::from(a));
    }
"#;

/// The change: a bug behind the record tag, and a branch for a factor no
/// property passes.
fn after() -> String {
    let bug = "if tag == 0x5245_4344 {\n";
    let branch = "fn scale(x: u32, factor: u32) -> u32 {\n";
    BEFORE
        .replacen(
            bug,
            &format!("{bug}            assert!(len != 0x7f, \"a record of length 127 is cut short\");\n"),
            1,
        )
        .replacen(
            branch,
            &format!(
                "{branch}        if factor == 0 {{\n            eprintln!(\"a zero factor\");\n            \
                 return u32::MAX;\n        }}\n"
            ),
            1,
        )
}

/// The line of `lib.rs` whose text, trimmed, is `text`.
fn line_of(fixture: &Fixture, text: &str) -> u32 {
    let source = fs::read_to_string(fixture.path().join("src/lib.rs")).unwrap();
    let at = source.lines().position(|l| l.trim() == text).unwrap();
    at as u32 + 1
}

#[test]
fn a_campaign_since_a_commit_runs_the_property_reaching_it_first_and_names_what_none_reached() {
    let fixture = Fixture::new("since_change", BEFORE);
    let dir = fixture.path();
    let _ = fs::remove_dir_all(dir.join(".git"));
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "before"]);
    let budget = [
        "--runs-total",
        "30000",
        "--seed",
        "1",
        "--message-format",
        "json",
    ];
    let before = fixture.covcheck(&budget);
    assert_eq!(before.status.code(), Some(0), "{}", text_of(&before));

    fixture.write_property(&after());
    git(dir, &["commit", "-qam", "after"]);
    let output = fixture.covcheck(&[&["--since", "HEAD~1"][..], &budget].concat());
    let messages = events(&output.stdout);
    // Those whose corpus reaches changed code run first: the one that
    // does not, last.
    let run_order: Vec<&str> = (messages.iter())
        .filter_map(|m| match m {
            Message::Resumed { property, .. } => Some(property.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        run_order.last(),
        Some(&"since_change::tests::sums_commute"),
        "{}",
        text_of(&output)
    );
    let found = findings(&messages);
    assert_eq!(found.len(), 1, "{}", text_of(&output));
    assert!(found[0].finding.message.contains("length 127"));
    assert_eq!(output.status.code(), Some(1));
    let change = messages.iter().find_map(|m| match m {
        Message::Change {
            reaching,
            unreached,
            ..
        } => Some((reaching.clone(), unreached.clone())),
        _ => None,
    });
    let lib = dir.join("src/lib.rs").canonicalize().unwrap();
    let (reaching, unreached) = change.unwrap_or_else(|| panic!("{}", text_of(&output)));
    // `scale`'s changed condition runs under the property that doubles.
    assert_eq!(
        reaching,
        [
            "since_change::tests::records_parse",
            "since_change::tests::scaling_by_two_doubles"
        ]
    );
    let unreached: Vec<SourceLine> = (unreached.into_iter())
        .map(|l| SourceLine {
            file: l.file.canonicalize().unwrap(),
            ..l
        })
        .collect();
    assert_eq!(
        unreached,
        [
            SourceLine {
                file: lib.clone(),
                line: line_of(&fixture, "eprintln!(\"a zero factor\");")
            },
            SourceLine {
                file: lib,
                line: line_of(&fixture, "return u32::MAX;")
            }
        ],
        "{}",
        text_of(&output)
    );
}

#[test]
fn since_a_revision_the_checkout_lacks_or_outside_a_checkout_is_an_error_before_the_build() {
    let fixture = Fixture::another_checkout("since_errors", BEFORE);
    let output = fixture.covcheck(&["--since", "HEAD~1", "--runs", "1"]);
    assert_eq!(output.status.code(), Some(2), "{}", text_of(&output));
    assert!(text_of(&output).contains("git"), "{}", text_of(&output));
    assert!(!text_of(&output).contains("Compiling"), "before the build");

    git(fixture.path(), &["init", "-q"]);
    git(fixture.path(), &["add", "-A"]);
    git(fixture.path(), &["commit", "-qm", "only"]);
    let output = fixture.covcheck(&["--since", "no-such-rev", "--runs", "1"]);
    assert_eq!(output.status.code(), Some(2), "{}", text_of(&output));
    assert!(
        text_of(&output).contains("no-such-rev"),
        "{}",
        text_of(&output)
    );
    assert!(!text_of(&output).contains("Compiling"), "before the build");
}
