//! Medians, shared by `campaigns` and `bench`: one definition, so that both
//! tables mean the same by "median".

/// One run's value of a measure, for a median over every run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measured {
    /// The run found the bug and measured this.
    Found(f64),
    /// The run found nothing, so it would have measured at least this: the
    /// budget for time, the executions it made in the budget for executions,
    /// and infinity for the size of a counterexample it does not have.
    AtLeast(f64),
}

impl Measured {
    pub fn get(self) -> f64 {
        match self {
            Measured::Found(v) | Measured::AtLeast(v) => v,
        }
    }
}

/// A median and whether it is only a lower bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Median {
    pub value: f64,
    pub lower_bound: bool,
}

/// The median over every run, a run that found nothing counting with its
/// [`Measured::AtLeast`], so that a tool that finds a bug once in five runs
/// does not rank by that one run. The median cannot fall if a value rises,
/// so a median of lower bounds is a lower bound of the true median, and it
/// is exact when every value sorted at or below the middle is [`Measured::Found`]
/// (the true values of the others lie above the middle as well).
pub fn median(values: &[Measured]) -> Option<Median> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    // At equal values, runs that found the bug come first.
    sorted.sort_by(|a, b| {
        a.get()
            .partial_cmp(&b.get())
            .expect("no NaN")
            .then(matches!(a, Measured::AtLeast(_)).cmp(&matches!(b, Measured::AtLeast(_))))
    });
    let mid = sorted.len() / 2;
    let value = if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1].get() + sorted[mid].get()) / 2.0
    } else {
        sorted[mid].get()
    };
    let lower_bound = sorted[..=mid]
        .iter()
        .any(|v| matches!(v, Measured::AtLeast(_)));
    Some(Median { value, lower_bound })
}

/// The plain median of exact values (the mean of the two middle ones for
/// an even count); `None` for no values.
pub fn exact_median(values: &[f64]) -> Option<f64> {
    let exact: Vec<Measured> = values.iter().copied().map(Measured::Found).collect();
    median(&exact).map(|m| m.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_medians_are_the_middle_or_the_mean_of_the_two_middle_values() {
        assert_eq!(exact_median(&[]), None);
        assert_eq!(exact_median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(exact_median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
