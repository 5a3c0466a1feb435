//! How a property's cost grows with the size of its input: the costliest
//! input of each size, fitted against the usual growths (linear, n log n,
//! quadratic, cubic, exponential).
//!
//! Each polynomial model `cost = k·f(n)` is fitted on logarithms (so that
//! small and large sizes weigh alike, as costs span orders of magnitude),
//! and the one with the smallest squared error wins; an exponential
//! `cost = a·bⁿ` wins over them only when it fits far better. Only the
//! larger sizes count (the upper six doublings): at the smallest ones, the
//! fixed cost of an execution (drawing the input, calling the property)
//! hides the growth.

use covcheck_protocol::worker::CostPoint;

/// A growth class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    Linear,
    NLogN,
    Quadratic,
    Cubic,
    Exponential,
}

impl Growth {
    /// How the growth is written: `n`, `n log n`, `n²`, `n³`, `bⁿ`.
    pub fn formula(self) -> &'static str {
        match self {
            Growth::Linear => "n",
            Growth::NLogN => "n log n",
            Growth::Quadratic => "n²",
            Growth::Cubic => "n³",
            Growth::Exponential => "bⁿ",
        }
    }

    /// Its name: `linear`, `quadratic`, ...
    pub fn name(self) -> &'static str {
        match self {
            Growth::Linear => "linear",
            Growth::NLogN => "n log n",
            Growth::Quadratic => "quadratic",
            Growth::Cubic => "cubic",
            Growth::Exponential => "exponential",
        }
    }
}

/// The fitted growth of a cost profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub growth: Growth,
    /// The model's factor: `cost ≈ factor·f(n)` (for an exponential,
    /// `cost ≈ factor·baseⁿ`).
    pub factor: f64,
    /// The base of an exponential (1 for the others).
    pub base: f64,
    /// The slope of log cost against log size: the power of `n` that fits
    /// best, whatever the class (2.0 for a clean quadratic).
    pub exponent: f64,
    /// The sizes the fit used.
    pub sizes: usize,
}

impl Fit {
    /// The model's cost at size `n`.
    pub fn cost_at(&self, n: f64) -> f64 {
        match self.growth {
            Growth::Exponential => self.factor * self.base.powf(n),
            growth => self.factor * model(growth, n),
        }
    }
}

/// Sizes fitted: the upper this many doublings of the sizes seen.
const DOUBLINGS: f64 = 6.0;
/// Fewest sizes worth a fit.
const MIN_SIZES: usize = 4;

/// The growth that fits `points` best (their `max` against `size`), or
/// `None` with fewer than four sizes to fit.
pub fn fit(points: &[CostPoint]) -> Option<Fit> {
    let largest = points.iter().map(|p| p.size).max()? as f64;
    let used: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.size >= 2 && p.max > 0)
        .map(|p| (p.size as f64, p.max as f64))
        .filter(|(n, _)| *n >= largest / DOUBLINGS.exp2())
        .collect();
    if used.len() < MIN_SIZES {
        return None;
    }
    let logs: Vec<(f64, f64)> = used.iter().map(|&(n, c)| (n.ln(), c.ln())).collect();
    let (_, exponent, power_error) = line(&logs);
    let linear_in_n: Vec<(f64, f64)> = used.iter().map(|&(n, c)| (n, c.ln())).collect();
    let (log_a, log_b, exp_error) = line(&linear_in_n);
    // Far better than the best power law, and really growing.
    if exp_error * 4.0 < power_error && log_b * (largest - used[0].0) > 8f64.ln() {
        return Some(Fit {
            growth: Growth::Exponential,
            factor: log_a.exp(),
            base: log_b.exp(),
            exponent,
            sizes: used.len(),
        });
    }
    let candidates = [
        Growth::Linear,
        Growth::NLogN,
        Growth::Quadratic,
        Growth::Cubic,
    ];
    let (growth, factor) = candidates
        .iter()
        .map(|&growth| {
            let residuals: Vec<f64> = used
                .iter()
                .map(|&(n, c)| c.ln() - model(growth, n).ln())
                .collect();
            let log_k = residuals.iter().sum::<f64>() / residuals.len() as f64;
            let error: f64 = residuals.iter().map(|r| (r - log_k).powi(2)).sum();
            (growth, log_k.exp(), error)
        })
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(growth, factor, _)| (growth, factor))?;
    Some(Fit {
        growth,
        factor,
        base: 1.0,
        exponent,
        sizes: used.len(),
    })
}

/// `f(n)` of a polynomial growth.
fn model(growth: Growth, n: f64) -> f64 {
    match growth {
        Growth::Linear => n,
        Growth::NLogN => n * n.log2(),
        Growth::Quadratic => n * n,
        Growth::Cubic => n * n * n,
        Growth::Exponential => n.exp2(),
    }
}

/// The least-squares line through `points`: (intercept, slope, squared error).
fn line(points: &[(f64, f64)]) -> (f64, f64, f64) {
    let count = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / count;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / count;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let intercept = mean_y - slope * mean_x;
    let error = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    (intercept, slope, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points of sizes 8 to 4096 costing `cost(n)`, with a fixed overhead
    /// and a little noise, as a campaign sees them.
    fn points(cost: impl Fn(f64) -> f64) -> Vec<CostPoint> {
        (3..=12)
            .map(|k| {
                let n = 1usize << k;
                let wobble = if k % 2 == 0 { 1.05 } else { 0.95 };
                CostPoint {
                    size: n,
                    max: (30.0 + cost(n as f64) * wobble) as u64,
                    median: 0,
                    fresh: 1,
                }
            })
            .collect()
    }

    #[test]
    fn each_growth_is_recognised() {
        let cases: [(Growth, &dyn Fn(f64) -> f64); 4] = [
            (Growth::Linear, &|n| 3.0 * n),
            (Growth::NLogN, &|n| 2.0 * n * n.log2()),
            (Growth::Quadratic, &|n| 0.5 * n * n),
            (Growth::Cubic, &|n| 0.01 * n * n * n),
        ];
        for (growth, cost) in cases {
            let fit = fit(&points(cost)).unwrap();
            assert_eq!(fit.growth, growth, "{fit:?}");
        }
        let quadratic = fit(&points(|n| 0.5 * n * n)).unwrap();
        assert!((quadratic.exponent - 2.0).abs() < 0.1, "{quadratic:?}");
        assert!((quadratic.cost_at(1000.0) / 500_000.0 - 1.0).abs() < 0.1);
    }

    #[test]
    fn an_exponential_is_recognised() {
        let points: Vec<CostPoint> = (4..=24)
            .map(|n| CostPoint {
                size: n,
                max: (10.0 * 1.8f64.powi(n as i32)) as u64,
                median: 0,
                fresh: 1,
            })
            .collect();
        let fit = fit(&points).unwrap();
        assert_eq!(fit.growth, Growth::Exponential, "{fit:?}");
        assert!((fit.base - 1.8).abs() < 0.05, "{fit:?}");
    }

    #[test]
    fn too_few_sizes_fit_nothing() {
        assert_eq!(fit(&[]), None);
        assert_eq!(fit(&points(|n| n)[..3]), None);
    }
}
