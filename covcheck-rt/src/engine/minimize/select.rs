//! Choosing a suite among measured inputs: greedy set cover with the
//! covering seeds saved earlier first, and the forward-pass rule for
//! comparison, both counted as [`SuiteStats`].

use std::collections::HashSet;

use crate::engine::cover::{Candidate, FeatureSet, forward_pass, greedy_set_cover};
use covcheck_protocol::seeds::SeedFile;
use covcheck_protocol::worker::SuiteStats;

/// An input under consideration.
#[derive(Clone, Default)]
pub(super) struct Measured {
    pub(super) choices: Vec<u64>,
    pub(super) features: Vec<u32>,
    /// A covering seed saved earlier (kept as it is when still needed).
    pub(super) seed: bool,
}

impl Measured {
    fn size(&self) -> usize {
        size_of_choices(&self.choices)
    }
}

/// An input's size as a seed file stores it.
pub(super) fn size_of_choices(choices: &[u64]) -> usize {
    SeedFile::format_indices(choices).len()
}

/// Selects inputs for what the failure seeds do not already cover.
pub(super) struct Selection<'a> {
    /// The features the failure seeds reach: covered whatever is selected.
    covered: &'a FeatureSet,
}

impl<'a> Selection<'a> {
    pub(super) fn new(covered: &'a FeatureSet) -> Self {
        Selection { covered }
    }

    /// The size of the suite `taken` (indices into `inputs`) and what it
    /// reaches.
    pub(super) fn stats(&self, taken: &[usize], inputs: &[Measured]) -> SuiteStats {
        let mut reached = self.covered.clone();
        for &n in taken {
            reached.extend(&inputs[n].features);
        }
        SuiteStats {
            inputs: taken.len(),
            bytes: taken.iter().map(|&n| inputs[n].size()).sum(),
            features: reached.len(),
        }
    }

    /// What the forward-pass rule would keep, for the report.
    pub(super) fn forward_pass(&self, inputs: &[Measured]) -> Vec<usize> {
        select(inputs, &|_| true, self.covered, forward_pass)
    }

    /// Covering seeds saved earlier are chosen first, then other inputs for
    /// what they miss: a suite that still covers everything stays as it is,
    /// instead of churning in version control on every run.
    pub(super) fn seeds_first(&self, inputs: &[Measured]) -> Vec<usize> {
        let mut taken = select(inputs, &|m| m.seed, self.covered, greedy_set_cover);
        let mut more = self.covered.clone();
        for &n in &taken {
            more.extend(&inputs[n].features);
        }
        taken.extend(select(inputs, &|m| !m.seed, &more, greedy_set_cover));
        taken
    }

    /// The final suite among the shrunk inputs (`suite`), each input once
    /// (two inputs can shrink to the same one; a seed file holds it once).
    /// Returns it as indices into `suite`, and what it reaches.
    ///
    /// Shrinking keeps every feature by construction; should a flaky feature
    /// (one that depends on more than the input) go missing, the original
    /// input that reached it comes back (appended to `suite`) rather than
    /// losing coverage, unless the suite already holds that very input: then
    /// the feature is flaky in it too, and a second copy would not help.
    pub(super) fn final_suite(
        &self,
        suite: &mut Vec<Measured>,
        originals: Vec<Measured>,
    ) -> (Vec<usize>, FeatureSet) {
        let mut taken_choices: HashSet<Vec<u64>> = HashSet::new();
        let mut taken: Vec<usize> = self
            .seeds_first(suite)
            .into_iter()
            .filter(|&n| taken_choices.insert(suite[n].choices.clone()))
            .collect();
        let mut reached = self.covered.clone();
        for &n in &taken {
            reached.extend(&suite[n].features);
        }
        for original in originals {
            if reached.missing(&original.features) > 0
                && taken_choices.insert(original.choices.clone())
            {
                reached.extend(&original.features);
                suite.push(original);
                taken.push(suite.len() - 1);
            }
        }
        (taken, reached)
    }
}

/// The inputs for which `only` holds that `rule` keeps, given `covered`, as
/// indices into `inputs`.
fn select(
    inputs: &[Measured],
    only: &dyn Fn(&Measured) -> bool,
    covered: &FeatureSet,
    rule: fn(&[Candidate<'_>], &FeatureSet) -> Vec<usize>,
) -> Vec<usize> {
    let indices: Vec<usize> = (0..inputs.len()).filter(|&n| only(&inputs[n])).collect();
    let sizes: Vec<usize> = indices.iter().map(|&n| inputs[n].size()).collect();
    let view: Vec<Candidate<'_>> = indices
        .iter()
        .zip(&sizes)
        .map(|(&n, &size)| Candidate {
            size,
            features: &inputs[n].features,
        })
        .collect();
    rule(&view, covered)
        .into_iter()
        .map(|k| indices[k])
        .collect::<Vec<usize>>()
}
