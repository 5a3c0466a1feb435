//! The campaign's best [`crate::target()`] values: for each label, the
//! highest value an execution reached and the input that reached it.
//!
//! An execution that takes some label past its best is *interesting*, as
//! one that reaches new coverage is: the host's novelty callback says so,
//! the engine adds it to the corpus, and its commit makes its values the
//! new bests. The corpus entries that hold a best are favoured by the
//! scheduler ([`Targets::favoured`]): an entry kept for its target value
//! usually reaches no rare coverage, and by rarity alone it would seldom
//! be mutated again. Together this lets a campaign climb a quantity no
//! coverage counter measures, one mutation at a time, from the best input
//! so far. With `--no-target` ([`WorkerConfig::steer_targets`] off) the
//! bests are still kept, as executions reach them, but make nothing
//! interesting and favour nothing.
//!
//! A property that never calls `target()` records nothing, so nothing is
//! ever interesting here and the campaign makes the decisions it made
//! before targets existed.

use covcheck_protocol::worker::TargetBest;
#[cfg(doc)]
use covcheck_protocol::worker::WorkerConfig;

/// The best values so far, and what the last execution reached.
#[derive(Debug, Default)]
pub(super) struct Targets {
    /// Whether raising a best value makes an execution interesting.
    steer: bool,
    /// The values the last execution reached, each label's highest.
    pub(super) last: Vec<(String, f64)>,
    /// Whether the last execution raised a best value (not yet committed).
    raised: bool,
    /// The last execution's choices, kept only when it raised one.
    raised_by: Vec<u64>,
    best: Vec<Best>,
    /// The bests (positions in `best`) the last commit set, whose corpus
    /// entry the engine is adding.
    committed: Vec<usize>,
    /// The corpus entries that hold a best, each once.
    favoured: Vec<usize>,
}

/// A label's best value.
#[derive(Debug)]
struct Best {
    label: String,
    value: f64,
    choices: Vec<u64>,
    /// The input's rendered arguments, once rendered.
    args: Option<Vec<(String, String)>>,
    /// The corpus entry of the input, when it entered the corpus for it.
    entry: Option<usize>,
}

impl Targets {
    pub(super) fn new(steer: bool) -> Targets {
        Targets {
            steer,
            ..Targets::default()
        }
    }

    /// Judges the values of the execution of `choices` (in `last`):
    /// whether any raises its label's best. Without steering, a raised
    /// value becomes the best now, as no commit will follow for it.
    pub(super) fn observe(&mut self, choices: &[u64]) {
        self.committed.clear();
        self.raised = self.last.iter().any(|(label, value)| {
            self.best
                .iter()
                .find(|b| &b.label == label)
                .is_none_or(|b| *value > b.value)
        });
        if self.raised {
            self.raised_by.clear();
            self.raised_by.extend_from_slice(choices);
            if !self.steer {
                self.commit();
            }
        }
    }

    /// Whether the last execution is interesting for its target values.
    pub(super) fn is_new(&self) -> bool {
        self.steer && self.raised
    }

    /// The last execution entered the corpus: the values it raised become
    /// the bests.
    pub(super) fn commit(&mut self) {
        if !std::mem::take(&mut self.raised) {
            return;
        }
        for (label, value) in &self.last {
            let raised = Best {
                label: label.clone(),
                value: *value,
                choices: self.raised_by.clone(),
                args: None,
                entry: None,
            };
            match self.best.iter().position(|b| &b.label == label) {
                Some(at) if *value > self.best[at].value => {
                    self.best[at] = raised;
                    self.committed.push(at);
                }
                Some(_) => {}
                None => {
                    self.committed.push(self.best.len());
                    self.best.push(raised);
                }
            }
        }
    }

    /// The engine added corpus entry `entry`, right after its commit:
    /// when steering, it now holds the bests that commit set.
    pub(super) fn entry_added(&mut self, entry: usize) {
        if !self.steer || self.committed.is_empty() {
            return;
        }
        for at in self.committed.drain(..) {
            self.best[at].entry = Some(entry);
        }
        self.favoured = self.best.iter().filter_map(|b| b.entry).collect();
        self.favoured.sort_unstable();
        self.favoured.dedup();
    }

    /// The corpus entries that hold a label's best value (none without
    /// steering, or for a property that calls no `target()`).
    pub(super) fn favoured(&self) -> &[usize] {
        &self.favoured
    }

    /// Each label's best value with its input, in the order the labels were
    /// first reached; `render` gives the arguments of an input not
    /// rendered yet (it runs the property once).
    pub(super) fn report(
        &mut self,
        mut render: impl FnMut(&[u64]) -> Vec<(String, String)>,
    ) -> Vec<TargetBest> {
        self.best
            .iter_mut()
            .map(|best| TargetBest {
                label: best.label.clone(),
                value: best.value,
                args: best
                    .args
                    .get_or_insert_with(|| render(&best.choices))
                    .clone(),
                choices: best.choices.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs one execution of `choices` that reached `values`; commits it
    /// when it is new, as the engine would.
    fn run(targets: &mut Targets, choices: &[u64], values: &[(&str, f64)]) -> bool {
        targets.last = values.iter().map(|&(l, v)| (l.to_string(), v)).collect();
        targets.observe(choices);
        let new = targets.is_new();
        if new {
            targets.commit();
        }
        new
    }

    fn bests(targets: &mut Targets) -> Vec<(String, f64, Vec<u64>)> {
        targets
            .report(|choices| vec![("x".to_string(), format!("{choices:?}"))])
            .into_iter()
            .map(|b| {
                assert_eq!(b.args, [("x".to_string(), format!("{:?}", b.choices))]);
                (b.label, b.value, b.choices)
            })
            .collect()
    }

    #[test]
    fn an_execution_that_raises_a_best_value_is_new_and_committed() {
        let mut targets = Targets::new(true);
        assert!(!run(&mut targets, &[1], &[]), "no target, nothing new");
        assert!(run(&mut targets, &[2], &[("len", -3.0)]), "a first value");
        assert!(!run(&mut targets, &[3], &[("len", -3.0)]), "an equal one");
        assert!(run(&mut targets, &[4], &[("len", 5.0), ("depth", 1.0)]));
        assert!(!run(&mut targets, &[5], &[("len", 4.0), ("depth", 1.0)]));
        assert!(run(&mut targets, &[6], &[("len", 4.0), ("depth", 2.0)]));
        assert_eq!(
            bests(&mut targets),
            [
                ("len".to_string(), 5.0, vec![4]),
                ("depth".to_string(), 2.0, vec![6])
            ]
        );

        // Observed but not committed (a failing input the engine keeps out
        // of the corpus): the best stays.
        targets.last = vec![("len".to_string(), 50.0)];
        targets.observe(&[7]);
        assert!(targets.is_new());
        assert!(!run(&mut targets, &[8], &[("len", 1.0)]));
        targets.commit();
        assert_eq!(bests(&mut targets)[0], ("len".to_string(), 5.0, vec![4]));
    }

    #[test]
    fn without_steering_best_values_are_kept_but_nothing_is_new() {
        let mut targets = Targets::new(false);
        assert!(!run(&mut targets, &[1], &[("len", 2.0)]));
        assert!(!run(&mut targets, &[2], &[("len", 9.0)]));
        assert!(!run(&mut targets, &[3], &[("len", 4.0)]));
        // A commit for new coverage changes nothing.
        targets.commit();
        assert_eq!(bests(&mut targets), [("len".to_string(), 9.0, vec![2])]);
    }

    #[test]
    fn the_entries_holding_a_best_are_favoured_when_steering() {
        let mut targets = Targets::new(true);
        run(&mut targets, &[1], &[("len", 1.0), ("depth", 1.0)]);
        targets.entry_added(4);
        assert_eq!(targets.favoured(), [4]);
        run(&mut targets, &[2], &[("len", 2.0), ("depth", 1.0)]);
        targets.entry_added(6);
        assert_eq!(targets.favoured(), [4, 6], "depth's best is still entry 4");
        // An entry added for new coverage alone holds no best.
        run(&mut targets, &[3], &[("len", 1.0)]);
        targets.commit();
        targets.entry_added(7);
        assert_eq!(targets.favoured(), [4, 6]);

        let mut recorded = Targets::new(false);
        run(&mut recorded, &[1], &[("len", 1.0)]);
        recorded.entry_added(1);
        assert!(recorded.favoured().is_empty());
    }

    #[test]
    fn an_input_is_rendered_once() {
        let mut targets = Targets::new(true);
        run(&mut targets, &[1], &[("len", 1.0)]);
        let mut renders = 0;
        for _ in 0..3 {
            targets.report(|_| {
                renders += 1;
                Vec::new()
            });
        }
        assert_eq!(renders, 1);
    }
}
