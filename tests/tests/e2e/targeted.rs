//! End-to-end: `covcheck_rt::target` on the bundled `examples/targeted`,
//! whose property reports the longest range its encoder wrote. A campaign
//! reports the label's best value and the input that reached it in the
//! JSON `finished` message; the steering reaches a longer range than the
//! same campaign with `--no-target` (same RNG seed, same budget); and plain
//! `cargo test` runs the property with `target()` doing nothing.

use covcheck_e2e::Fixture;
use covcheck_protocol::messages::Message;
use covcheck_protocol::messages::TargetBest;

const PROPERTY: &str = "targeted::tests::ranges_round_trip";
const LABEL: &str = "longest range";

/// The best value of [`LABEL`] that the finished message reports.
fn finished_best(events: &[Message]) -> TargetBest {
    let targets = events
        .iter()
        .find_map(|event| match event {
            Message::Finished {
                property, targets, ..
            } if property == PROPERTY => Some(targets),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{PROPERTY} finished: {events:#?}"));
    targets
        .iter()
        .find(|t| t.label == LABEL)
        .unwrap_or_else(|| panic!("a `{LABEL}` value: {targets:?}"))
        .clone()
}

#[test]
fn target_values_steer_a_campaign_and_are_reported() {
    let fixture = Fixture::from_example("targeted");
    let run = |extra: &[&str]| {
        let mut args = vec!["--message-format", "json"];
        args.extend_from_slice(extra);
        let output = fixture.budgeted_campaign(100_000, &args);
        let text = covcheck_e2e::text_of(&output);
        assert_eq!(output.status.code(), Some(0), "{text}");
        finished_best(&covcheck_e2e::events(&output.stdout))
    };

    let steered = run(&[]);
    assert!(steered.value >= 2.0, "{steered:?}");
    let (name, data) = &steered.args[0];
    assert_eq!(name, "data");
    assert!(data.starts_with('['), "{steered:?}");

    let recorded = run(&["--no-target"]);
    assert!(
        recorded.value >= 1.0,
        "recorded without steering: {recorded:?}"
    );
    assert!(
        steered.value > recorded.value,
        "steered {steered:?}, not steered {recorded:?}"
    );

    let (passed, text) = fixture.cargo(&["test"]);
    assert!(passed, "{text}");
}
