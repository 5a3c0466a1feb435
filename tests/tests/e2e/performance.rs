//! End-to-end: performance mode on the bundled `examples/run_length`, an
//! encoder that is linear except on long runs of one byte, where it is
//! quadratic; and on a bounded property that hangs on long runs.
//!
//! Fixed RNG seeds and execution budgets, one worker: each campaign runs
//! the same way on every machine, and its costs (edges executed) are the
//! same too.

use covcheck_e2e::{Fixture, finding_for};
use covcheck_protocol::messages::FailureKind;
use covcheck_protocol::messages::{Message, PerfResult};
use covcheck_protocol::seeds::SeedKind;

/// The performance result of `property`'s finished campaign.
fn perf_result(events: &[Message], property: &str) -> PerfResult {
    events
        .iter()
        .find_map(|event| match event {
            Message::Finished {
                property: p, perf, ..
            } if p == property => perf.clone(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{property} finished with a performance result: {events:#?}"))
}

/// `cargo covcheck <args>` on `fixture` with RNG seed 1, no corpus cache
/// and JSON messages: its messages, once it exited with `code`.
fn campaign(fixture: &Fixture, args: &[&str], code: i32) -> Vec<Message> {
    let mut all = vec!["--seed", "1", "--no-resume", "--message-format", "json"];
    all.extend_from_slice(args);
    let output = fixture.covcheck(&all);
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(output.status.code(), Some(code), "{text}");
    covcheck_e2e::events(&output.stdout)
}

#[test]
fn performance_mode_finds_the_quadratic_path_saves_it_and_checks_bounds() {
    let fixture = Fixture::from_example("run_length");
    let args = ["--perf", "--exact", "tests::encoding_round_trips"];
    let events = campaign(&fixture, &[&args[..], &["--runs", "40000"]].concat(), 0);
    let perf = perf_result(&events, "run_length::tests::encoding_round_trips");

    assert_eq!(perf.growth.as_deref(), Some("quadratic"), "{perf:#?}");
    let costliest = perf.costliest.clone().expect("a costliest input");
    assert!(costliest.fresh > 0, "{costliest:?}");
    assert!(
        costliest.cost >= 20 * costliest.median,
        "a long run costs far more than random bytes of its size: {costliest:?}"
    );
    let plot = perf.plot.as_ref().expect("a plot");
    assert!(std::fs::read_to_string(plot).unwrap().starts_with("<svg"));

    let saved = perf.seed.as_ref().expect("the costliest input is saved");
    let seed = covcheck_e2e::read_seed(saved);
    assert_eq!(seed.file.kind, SeedKind::Performance);
    let record = seed.file.performance.expect("its cost is recorded");
    assert_eq!(record.cost, costliest.cost);
    assert_eq!(seed.indices, costliest.choices);

    // Plain `cargo test` replays it (for its assertions: it counts nothing).
    let (passed, text) = fixture.cargo(&["test", "--quiet", "--", "encoding_round_trips"]);
    assert!(passed, "{text}");

    a_cost_bound_fails_past_it_and_its_seed_fails_replays_until_fixed(&fixture);
}

/// On the same fixture (one build; two fixtures of one example would race
/// on their build output).
fn a_cost_bound_fails_past_it_and_its_seed_fails_replays_until_fixed(fixture: &Fixture) {
    // No --perf: `#[covcheck(perf, max_cost = ...)]` asks for it.
    let args = ["--exact", "tests::encoding_is_linear", "--runs", "300000"];
    let events = campaign(fixture, &args, 1);
    let finding = finding_for(&events, "run_length::tests::encoding_is_linear");
    assert!(
        finding
            .finding
            .message
            .contains("past the bound `max_cost = 200000`"),
        "{finding:?}"
    );
    let failure_seed = finding.saved_seed().to_path_buf();

    let replay = |features: &[&str]| {
        let mut args = vec!["replay", "--perf", "--exact", "tests::encoding_is_linear"];
        args.extend_from_slice(features);
        fixture.covcheck(&args)
    };
    let unfixed = replay(&[]);
    let text = covcheck_e2e::text_of(&unfixed);
    assert_eq!(unfixed.status.code(), Some(1), "{text}");
    let name = failure_seed.file_name().unwrap().to_string_lossy();
    assert!(
        text.contains(&format!("{name} (failure) ... FAILED")),
        "{text}"
    );

    let fixed = replay(&["--features", "linear"]);
    let text = covcheck_e2e::text_of(&fixed);
    assert_eq!(fixed.status.code(), Some(0), "{text}");
    assert!(text.contains(&format!("{name} (failure) ... ok")), "{text}");
}

const HANGS_ON_LONG_RUNS: &str = r#"
    use std::hint::black_box;

    /// Quadratic in the length of a run of zeros, and stuck for good past
    /// 600 of them.
    fn longest_run(data: &[u8]) -> usize {
        let mut longest = 0;
        for i in 0..data.len() {
            let run = data[..=i].iter().rev().take_while(|&&b| b == 0).count();
            while run >= 600 {
                black_box(run);
            }
            longest = longest.max(run);
        }
        longest
    }

    #[covcheck(perf, max_cost = 20000)]
    fn runs_are_bounded(data: Vec<u8>) {
        assert!(longest_run(&data) <= data.len());
    }
"#;

#[test]
fn a_hang_of_a_bounded_property_shrinks_to_an_input_past_the_bound() {
    let fixture = Fixture::new("perf_hang", HANGS_ON_LONG_RUNS);
    // A saved input of 610 zeros: the campaign starts by running it. (Each
    // smaller input that still hangs costs the shrinker a whole timeout.)
    let dir = fixture.seed_dir("runs_are_bounded");
    std::fs::create_dir_all(&dir).unwrap();
    let mut choices = "1 0 ".repeat(610);
    choices.push('0');
    std::fs::write(
        dir.join("0000000000000610.toml"),
        format!(
            "format = 1\nproperty = \"perf_hang::tests::runs_are_bounded\"\n\
             kind = \"covering\"\nchoices = \"{choices}\"\nsize = 4096\n"
        ),
    )
    .unwrap();
    let events = campaign(&fixture, &["--runs", "20000", "--timeout", "300ms"], 1);
    let finding = finding_for(&events, "perf_hang::tests::runs_are_bounded");
    assert_eq!(finding.finding.kind, FailureKind::Timeout, "{finding:?}");
    assert!(
        finding
            .finding
            .message
            .contains("shrunk to a smaller input that costs past `max_cost = 20000`"),
        "{finding:?}"
    );
    let zeros = finding.first_arg().matches('0').count();
    assert!(
        zeros < 600,
        "shrunk below the run that hangs ({zeros} zeros): {finding:?}"
    );
}
