//! Performance mode's search: the cost of each execution (edges executed,
//! counted by the performance build) against its size (choices drawn), and
//! the costliest input of each size class.
//!
//! An execution that costs more than every earlier input of its size class
//! is *interesting*, as one with new coverage is (seed 003, and PerfFuzz's
//! per-size maximum): it enters the corpus, and the corpus entries that
//! hold a class's maximum are favoured by the scheduler, so that the
//! campaign climbs the cost of each size one mutation at a time. Classes
//! are a quarter of a doubling wide: inputs of 100 and 118 choices compete,
//! so a longer input does not win just by being longer, while the classes
//! together trace the cost as the size grows, for the growth fit.
//!
//! Each class also keeps a histogram of the costs of the *random* inputs
//! of its size (not mutants, which inherit what made their parent costly),
//! in bins an eighth of a doubling wide, for its median: "this input costs
//! 300 times the median random input of its size" is what tells an
//! accidentally quadratic path from an input that is merely long. Random
//! inputs are the campaign's fresh ones, and at its end inputs of the
//! costliest input's very shape with random values ([`random_values`]):
//! fresh inputs seldom reach the sizes that mutants grow to.

use crate::choice::{Choice, ChoiceKind};
use crate::rng::Rng;
use covcheck_protocol::worker::{CostPoint, CostProfile, CostliestInput};

/// Size classes per doubling of the size.
const CLASS_BITS: u32 = 2;
/// Histogram bins per doubling of the cost.
const BIN_BITS: u32 = 3;

/// The costs seen so far, by size class.
#[derive(Debug, Default)]
pub(super) struct Costs {
    classes: Vec<Class>,
    /// The last execution's size class and cost, when it raised the class's
    /// maximum (not yet committed), with its choices.
    raised: Option<(usize, usize, u64)>,
    raised_by: Vec<u64>,
    /// The class whose maximum the last commit set, whose corpus entry the
    /// engine is adding.
    committed: Option<usize>,
    /// The corpus entries that hold a class's maximum, each once.
    favoured: Vec<usize>,
    /// The costliest input's arguments, once rendered, with its choices.
    rendered: Option<Rendered>,
}

/// An input's choices and its arguments' renderings.
type Rendered = (Vec<u64>, Vec<(String, String)>);

/// The inputs of one size class.
#[derive(Debug, Default, Clone)]
struct Class {
    /// The costliest input: its cost, size and choices.
    max: u64,
    size: usize,
    choices: Vec<u64>,
    /// Its corpus entry, once it entered the corpus.
    entry: Option<usize>,
    /// Fresh inputs of the class, by cost bin.
    histogram: Vec<u32>,
    /// Fresh inputs of the class.
    fresh: u64,
}

impl Costs {
    /// Judges an execution of `choices` that drew `size` choices and cost
    /// `cost`: whether it is the costliest of its size class so far. A
    /// `fresh` input counts towards the class's median too.
    pub(super) fn observe(&mut self, choices: &[u64], size: usize, cost: u64, fresh: bool) {
        self.committed = None;
        let at = log_class(size as u64, CLASS_BITS);
        if self.classes.len() <= at {
            self.classes.resize_with(at + 1, Class::default);
        }
        let class = &mut self.classes[at];
        if fresh {
            class.fresh += 1;
            let bin = log_class(cost, BIN_BITS);
            if class.histogram.len() <= bin {
                class.histogram.resize(bin + 1, 0);
            }
            class.histogram[bin] = class.histogram[bin].saturating_add(1);
        }
        self.raised = (cost > class.max).then_some((at, size, cost));
        if self.raised.is_some() {
            self.raised_by.clear();
            self.raised_by.extend_from_slice(choices);
        }
    }

    /// Whether the last execution raised its class's maximum.
    pub(super) fn is_new(&self) -> bool {
        self.raised.is_some()
    }

    /// The last execution entered the corpus: it becomes its class's
    /// costliest input.
    pub(super) fn commit(&mut self) {
        let Some((at, size, cost)) = self.raised.take() else {
            return;
        };
        let class = &mut self.classes[at];
        class.max = cost;
        class.size = size;
        class.choices.clone_from(&self.raised_by);
        class.entry = None;
        self.committed = Some(at);
    }

    /// The engine added corpus entry `entry`, right after its commit.
    pub(super) fn entry_added(&mut self, entry: usize) {
        let Some(at) = self.committed.take() else {
            return;
        };
        self.classes[at].entry = Some(entry);
        self.favoured = self.classes.iter().filter_map(|c| c.entry).collect();
        self.favoured.sort_unstable();
        self.favoured.dedup();
    }

    /// The corpus entries that hold a class's maximum.
    pub(super) fn favoured(&self) -> &[usize] {
        &self.favoured
    }

    /// The costliest input's choices, when an input ran.
    pub(super) fn costliest(&self) -> Option<Vec<u64>> {
        let class = self.classes.iter().max_by_key(|c| c.max)?;
        (class.max > 0).then(|| class.choices.clone())
    }

    /// The profile so far, of inputs run under `size_limit`; `render`
    /// gives the arguments of the costliest input when they were not
    /// rendered yet (it runs the property once).
    pub(super) fn profile(
        &mut self,
        size_limit: Option<usize>,
        render: impl FnOnce(&[u64]) -> Vec<(String, String)>,
    ) -> CostProfile {
        let points = self
            .classes
            .iter()
            .filter(|c| c.max > 0)
            .map(|c| CostPoint {
                size: c.size,
                max: c.max,
                median: c.median(),
                fresh: c.fresh,
            })
            .collect();
        let costliest = self
            .classes
            .iter()
            .filter(|c| c.max > 0)
            .max_by_key(|c| c.max);
        let costliest = costliest.map(|c| {
            if self
                .rendered
                .as_ref()
                .is_none_or(|(choices, _)| *choices != c.choices)
            {
                self.rendered = Some((c.choices.clone(), render(&c.choices)));
            }
            CostliestInput {
                size: c.size,
                cost: c.max,
                median: c.median(),
                fresh: c.fresh,
                choices: c.choices.clone(),
                size_limit,
                args: self
                    .rendered
                    .as_ref()
                    .map(|r| r.1.clone())
                    .unwrap_or_default(),
            }
        });
        CostProfile { points, costliest }
    }
}

/// An input of the same shape as the one that drew `choices`, with random
/// values: every collection as long, every enum the same variant, every
/// integer, `bool`, `char` and float payload drawn anew.
pub(super) fn random_values(choices: &[Choice], rng: &mut Rng) -> Vec<u64> {
    choices
        .iter()
        .map(|choice| match choice.kind {
            ChoiceKind::More | ChoiceKind::Variant | ChoiceKind::FloatForm => choice.index,
            ChoiceKind::Int { .. }
            | ChoiceKind::Bool
            | ChoiceKind::Char
            | ChoiceKind::FloatBits => rng.at_most(choice.max),
        })
        .collect()
}

impl Class {
    /// The lower bound of the histogram bin that holds the median cost of
    /// the fresh inputs (0 when there were none).
    fn median(&self) -> u64 {
        let half = self.fresh.div_ceil(2);
        let mut seen = 0u64;
        for (bin, &count) in self.histogram.iter().enumerate() {
            seen += u64::from(count);
            if seen >= half {
                return class_floor(bin, BIN_BITS);
            }
        }
        0
    }
}

/// The class of `value` on a logarithmic scale with `2^bits` classes per
/// doubling: 0 for 0, then classes whose bounds grow by `2^(1/2^bits)`.
fn log_class(value: u64, bits: u32) -> usize {
    let v = value.saturating_add(1);
    let exponent = 63 - v.leading_zeros();
    let fraction = if exponent >= bits {
        (v >> (exponent - bits)) & ((1 << bits) - 1)
    } else {
        (v << (bits - exponent)) & ((1 << bits) - 1)
    };
    ((exponent << bits) as u64 + fraction) as usize
}

/// The smallest value of class `class` ([`log_class`]).
fn class_floor(class: usize, bits: u32) -> u64 {
    let exponent = (class >> bits) as u32;
    let fraction = (class as u64) & ((1 << bits) - 1);
    let mantissa = (1u64 << bits) | fraction;
    let v = if exponent >= bits {
        mantissa << (exponent - bits)
    } else {
        mantissa >> (bits - exponent)
    };
    v.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_values_keep_the_shape() {
        let choice = |index, max, kind| Choice { index, max, kind };
        let choices = [
            choice(1, 1, ChoiceKind::More),
            choice(7, 255, ChoiceKind::Int { zigzag_limit: 0 }),
            choice(2, 3, ChoiceKind::Variant),
            choice(0, 1, ChoiceKind::More),
        ];
        let mut rng = Rng::new(1);
        let drawn: Vec<Vec<u64>> = (0..20).map(|_| random_values(&choices, &mut rng)).collect();
        assert!(drawn.iter().all(|d| d[0] == 1 && d[2] == 2 && d[3] == 0));
        assert!(drawn.iter().all(|d| d[1] <= 255));
        assert!(drawn.iter().any(|d| d[1] != 7), "values are drawn anew");
    }

    #[test]
    fn classes_are_logarithmic_and_their_floors_belong_to_them() {
        assert_eq!(log_class(0, 2), 0);
        assert!(log_class(100, 2) < log_class(200, 2));
        assert_eq!(log_class(100, 2) + 4, log_class(201, 2));
        for value in [0, 1, 7, 100, 1000, 123_456, u64::MAX / 3] {
            let class = log_class(value, BIN_BITS);
            let floor = class_floor(class, BIN_BITS);
            assert!(floor <= value, "{value}: floor {floor}");
            assert_eq!(log_class(floor, BIN_BITS), class, "{value}");
        }
    }

    #[test]
    fn the_costliest_input_of_each_size_class_is_new_and_reported() {
        let mut costs = Costs::default();
        let mut run = |choices: &[u64], cost: u64| {
            costs.observe(choices, choices.len(), cost, choices[0] != 4);
            let new = costs.is_new();
            if new {
                costs.commit();
                costs.entry_added(choices[0] as usize);
            }
            new
        };
        assert!(run(&[1; 100], 500), "the first of its class");
        assert!(!run(&[2; 100], 400), "cheaper than the class's maximum");
        assert!(!run(&[3; 105], 500), "an equal cost");
        assert!(run(&[4; 110], 90_000), "costlier, in the same class");
        assert!(run(&[5; 10], 50), "another class");
        for _ in 0..5 {
            run(&[6; 100], 450);
        }
        let profile = costs.profile(None, |choices| {
            vec![("x".into(), format!("{}", choices.len()))]
        });
        assert_eq!(profile.points.len(), 2);
        assert_eq!((profile.points[0].size, profile.points[0].max), (10, 50));
        let class = profile.points[1];
        assert_eq!((class.size, class.max, class.fresh), (110, 90_000, 8));
        assert!((400..=450).contains(&class.median), "{class:?}");
        let costliest = profile.costliest.unwrap();
        assert_eq!((costliest.cost, costliest.choices[0]), (90_000, 4));
        assert_eq!(costliest.args, [("x".to_string(), "110".to_string())]);
        assert_eq!(costs.favoured(), [4, 5]);
    }
}
