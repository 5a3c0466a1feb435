//! End-to-end: generators brought from other tools. The bundled example
//! `examples/foreign` (built here from a copy, which is what keeps the code
//! the book's migration chapter includes compiling) takes a cargo-fuzz style
//! `Arbitrary` type through `generators::arbitrary()`, a cargo-fuzz style
//! byte slice as a `&[u8]` argument, and a proptest strategy through
//! `generators::strategy()`, each with a bug behind two conditions. One
//! campaign with a fixed RNG seed and an execution budget finds all three,
//! shrinks them to their minimal values and saves them; plain `cargo test`
//! then fails on the seeds; the quickcheck-style properties hold.

use covcheck_e2e::{Fixture, finding_for, finished, read_seed};
use covcheck_protocol::messages::FailureKind;
use covcheck_protocol::seeds::SeedKind;

const DISK: &str = "foreign::disk_fuzzing::takes_any_command";
const IMAGE: &str = "foreign::image_fuzzing::loads_any_image";
const ACCOUNT: &str = "foreign::account_properties::a_frozen_account_pays_out_nothing";
const POINTS: [&str; 2] = [
    "foreign::point_properties::distance_is_symmetric",
    "foreign::point_properties::a_step_towards_the_target_is_one_closer",
];

/// A `Debug` rendering without its whitespace, so that the compact and the
/// pretty form read the same.
fn squeezed(rendering: &str) -> String {
    rendering.split_whitespace().collect()
}

/// The amounts of `[Deposit(a), Freeze, Withdraw(b)]` or
/// `[Freeze, Deposit(a), Withdraw(b)]` (squeezed), the only minimal shapes.
fn deposit_and_withdrawal(txs: &str) -> Option<(u32, u32)> {
    let frozen_first = txs.starts_with("[Freeze,");
    let (deposit, rest) = txs
        .strip_prefix(if frozen_first {
            "[Freeze,Deposit("
        } else {
            "[Deposit("
        })?
        .split_once(')')?;
    let withdrawal = rest
        .strip_prefix(if frozen_first {
            ",Withdraw("
        } else {
            ",Freeze,Withdraw("
        })?
        .strip_suffix(")]")?;
    Some((deposit.parse().ok()?, withdrawal.parse().ok()?))
}

#[test]
fn foreign_generators_find_shrink_and_save_their_bugs() {
    let fixture = Fixture::from_example("foreign");
    let output = fixture.covcheck(&[
        "--runs",
        "200000",
        "--seed",
        "1",
        "-j",
        "2",
        // The corpus cache is keyed by package and property, so a cache left
        // by an earlier run of this test would change the campaign.
        "--no-resume",
        "--message-format",
        "json",
    ]);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "failures exit with 1:\n{text}"
    );
    let events = covcheck_e2e::events(&output.stdout);

    // The Arbitrary command: a write to the user area of an ELF header with
    // class 3, everything else zero. Two sectors are minimal in shortlex
    // order (200 is bytes [200, 0], 256 is [0, 1]); which one a shrink ends
    // at depends on where it started.
    let disk = finding_for(&events, DISK);
    assert_eq!(disk.finding.kind, FailureKind::Panic, "{disk:?}");
    assert!(
        disk.finding
            .message
            .contains("out of range for slice of length 32"),
        "{disk:?}"
    );
    let command = squeezed(disk.first_arg());
    let zeros = ",0".repeat(27);
    let minimal = |sector: u32| format!("Write{{sector:{sector},data:[127,69,76,70,3{zeros},],}}");
    assert!(
        command == minimal(200) || command == minimal(256),
        "shrunk to the minimal command: {command}"
    );

    // The image: the magic `DISK` and a count of one sector, whose bytes
    // are missing. The `&[u8]` argument shows as the `Vec<u8>` it was
    // generated as.
    let image = finding_for(&events, IMAGE);
    assert_eq!(image.finding.kind, FailureKind::Panic, "{image:?}");
    assert!(
        image
            .finding
            .message
            .contains("range end index 32 out of range for slice of length 0"),
        "{image:?}"
    );
    assert_eq!(
        image.first_arg(),
        "[68, 73, 83, 75, 1]",
        "shrunk to the minimal image: {image:?}"
    );

    // The strategy's transactions: a deposit, a freeze and the withdrawal of
    // exactly the balance, the deposit less its fee of 39 cents.
    let account = finding_for(&events, ACCOUNT);
    assert_eq!(account.finding.kind, FailureKind::Panic, "{account:?}");
    assert!(
        account
            .finding
            .message
            .contains("took money out of a frozen account"),
        "{account:?}"
    );
    let txs = squeezed(account.first_arg());
    let (deposit, withdrawal) =
        deposit_and_withdrawal(&txs).unwrap_or_else(|| panic!("three transactions: {txs}"));
    assert!(withdrawal > 0 && deposit - 39 == withdrawal, "{txs}");

    // Each seed shows its value as the finding did.
    for finding in [&disk, &image, &account] {
        let seed = read_seed(finding.saved_seed());
        assert_eq!(seed.file.kind, SeedKind::Failure, "{seed:?}");
        assert_eq!(
            seed.file.args.first().map(|arg| squeezed(&arg.value)),
            Some(squeezed(finding.first_arg())),
            "{seed:?}"
        );
    }

    // The quickcheck-style properties hold for the whole budget.
    for property in POINTS {
        let (execs, findings) = finished(&events, property).expect("the property completes");
        assert_eq!(findings, 0, "{property}");
        assert!(execs >= 200_000, "{property}: {execs}");
    }

    // Plain `cargo test` replays the seeds and fails on each.
    let (passed, text) = fixture.cargo(&["test"]);
    assert!(!passed, "{text}");
    for (property, message) in [
        (DISK, "out of range for slice of length 32"),
        (IMAGE, "out of range for slice of length 0"),
        (ACCOUNT, "took money out of a frozen account"),
    ] {
        assert!(
            text.contains(&format!("`{property}` failed on a saved seed")),
            "{property}:\n{text}"
        );
        assert!(text.contains(message), "{text}");
    }
}
