//! The cost-against-size plot of a performance campaign, as a standalone
//! SVG file: the costliest input of each size and the median one, on
//! logarithmic axes (where every power law is a straight line and its
//! slope the power), with the fitted growth drawn through them.
//! Hand-written, as the coverage report's plots are, for the same reason:
//! a plotting crate would be a large dependency for one chart.

use std::fmt::Write as _;

use super::growth::Fit;
use crate::report::coverage::escape::escape;
use covcheck_protocol::worker::CostPoint;

const WIDTH: f64 = 520.0;
const HEIGHT: f64 = 340.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 46.0;

// The coverage report's palette: the costliest inputs in its findings'
// red, the median ones in its grey, the fit in its edges' blue.
use crate::report::coverage::svg::{EDGES as FITTED, FINDING as MAX, GRID, INK, RESUME as MEDIAN};

/// A logarithmic axis over whole decades.
struct LogAxis {
    low: f64,
    high: f64,
}

impl LogAxis {
    fn fit(values: impl Iterator<Item = f64>) -> LogAxis {
        let (mut low, mut high) = (f64::MAX, 1.0f64);
        for v in values.filter(|v| *v > 0.0) {
            low = low.min(v);
            high = high.max(v);
        }
        let low = 10f64.powf(low.min(high).log10().floor());
        let high = 10f64.powf(high.log10().ceil()).max(low * 10.0);
        LogAxis { low, high }
    }

    /// Where `value` falls, from 0 (low) to 1 (high).
    fn share(&self, value: f64) -> f64 {
        (value.max(self.low).log10() - self.low.log10()) / (self.high.log10() - self.low.log10())
    }

    fn decades(&self) -> impl Iterator<Item = f64> + '_ {
        let first = self.low.log10().round() as i32;
        let last = self.high.log10().round() as i32;
        (first..=last).map(|e| 10f64.powi(e))
    }
}

/// The plot of `points` with the growth `fit`, titled `title`.
pub fn svg(title: &str, points: &[CostPoint], fit: Option<&Fit>) -> String {
    let x = LogAxis::fit(points.iter().map(|p| p.size as f64));
    let y = LogAxis::fit(points.iter().flat_map(|p| [p.max as f64, p.median as f64]));
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let px = |n: f64| LEFT + x.share(n) * plot_w;
    let py = |c: f64| TOP + (1.0 - y.share(c)) * plot_h;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         font-family=\"sans-serif\" font-size=\"11\" fill=\"{INK}\">\
         <text x=\"{LEFT}\" y=\"16\" font-size=\"13\">{}</text>",
        escape(title)
    );
    for n in x.decades() {
        let at = px(n);
        let _ = write!(
            out,
            "<line x1=\"{at:.1}\" y1=\"{TOP}\" x2=\"{at:.1}\" y2=\"{:.1}\" stroke=\"{GRID}\"/>\
             <text x=\"{at:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>",
            TOP + plot_h,
            TOP + plot_h + 14.0
        );
    }
    for c in y.decades() {
        let at = py(c);
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" y1=\"{at:.1}\" x2=\"{:.1}\" y2=\"{at:.1}\" stroke=\"{GRID}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{c:e}</text>",
            LEFT + plot_w,
            LEFT - 4.0,
            at + 4.0
        );
    }
    let _ = write!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">input size (choices drawn)</text>\
         <text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">cost (edges executed)</text>",
        LEFT + plot_w / 2.0,
        HEIGHT - 8.0,
        TOP + plot_h / 2.0
    );
    if let Some(fit) = fit {
        let path: Vec<String> = (0..=60)
            .map(|i| {
                let n = x.low * (x.high / x.low).powf(f64::from(i) / 60.0);
                let c = fit.cost_at(n).clamp(y.low, y.high);
                format!("{:.1},{:.1}", px(n), py(c))
            })
            .collect();
        let _ = write!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{FITTED}\" stroke-width=\"1.5\"/>",
            path.join(" ")
        );
    }
    for p in points {
        let at_x = px(p.size as f64);
        // A size no random input ran at has no median to show.
        if p.fresh > 0 && p.median > 0 {
            let median_y = py(p.median as f64);
            let _ = write!(
                out,
                "<circle cx=\"{at_x:.1}\" cy=\"{median_y:.1}\" r=\"2.5\" fill=\"{MEDIAN}\"/>"
            );
        }
        let max_y = py(p.max as f64);
        let _ = write!(
            out,
            "<circle cx=\"{at_x:.1}\" cy=\"{max_y:.1}\" r=\"3\" fill=\"{MAX}\"/>"
        );
    }
    let fitted = fit.map_or("no growth fitted".to_string(), |f| {
        format!("fitted: {} ({})", f.growth.formula(), f.growth.name())
    });
    let _ = writeln!(
        out,
        "<circle cx=\"{LEFT}\" cy=\"30\" r=\"3\" fill=\"{MAX}\"/>\
         <text x=\"{:.1}\" y=\"34\">costliest input</text>\
         <circle cx=\"{:.1}\" cy=\"30\" r=\"2.5\" fill=\"{MEDIAN}\"/>\
         <text x=\"{:.1}\" y=\"34\">median input</text>\
         <text x=\"{:.1}\" y=\"34\" fill=\"{FITTED}\">{}</text></svg>",
        LEFT + 8.0,
        LEFT + 110.0,
        LEFT + 118.0,
        LEFT + 210.0,
        escape(&fitted)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::growth::{Growth, fit};

    #[test]
    fn the_plot_has_a_point_per_size_and_the_fitted_curve() {
        let points: Vec<CostPoint> = (3..=10)
            .map(|k| CostPoint {
                size: 1 << k,
                max: 1 << (2 * k),
                median: 1 << k,
                fresh: 10,
            })
            .collect();
        let fitted = fit(&points).unwrap();
        assert_eq!(fitted.growth, Growth::Quadratic);
        let svg = svg("a<b> quadratic", &points, Some(&fitted));
        assert!(svg.starts_with("<svg xmlns"), "{svg}");
        assert!(svg.contains("a&lt;b&gt; quadratic"));
        assert_eq!(svg.matches("<circle").count(), 2 * points.len() + 2);
        assert!(svg.contains("<polyline"));
        assert!(svg.contains("fitted: n² (quadratic)"));
    }
}
