//! The cost-against-size plot of a performance campaign, as a standalone
//! SVG file: the costliest input of each size and the median one, on
//! logarithmic axes (where every power law is a straight line and its
//! slope the power), with the fitted growth drawn through them. Drawn with
//! the frame, axes and palette of [`crate::report::svg`]; [`write()`] puts it
//! where the campaign's summary says it is.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::discover::Property;
use crate::perf::PerfReport;
use crate::perf::growth::Fit;
use crate::report::escape::escape;
use crate::report::svg::{
    EDGES as FITTED, FINDING as MAX, Frame, GRID, INK, LogAxis, MUTED as MEDIAN,
};
use covcheck_protocol::worker::CostPoint;

const FRAME: Frame = Frame {
    width: 520.0,
    height: 340.0,
    left: 70.0,
    right: 20.0,
    top: 44.0,
    bottom: 46.0,
};
const HEIGHT: f64 = FRAME.height;
const LEFT: f64 = FRAME.left;
const TOP: f64 = FRAME.top;

/// Draws `property`'s plot into `dir` (`<covcheck dir>/perf/<key>.svg`)
/// and returns its path, or `None` if it could not be written (the plot is
/// an extra: the summary says where it is only when it is there).
pub fn write(dir: &Path, key: &str, property: &Property, report: &PerfReport) -> Option<PathBuf> {
    let title = format!("{}: cost against input size", property.listing.full_path);
    let svg = svg(&title, &report.profile.points, report.fit.as_ref());
    let path = dir.join(format!("{key}.svg"));
    let _ = std::fs::create_dir_all(dir);
    crate::atomic::write_atomically(&path, svg.as_bytes())
        .is_ok()
        .then_some(path)
}

/// The plot of `points` with the growth `fit`, titled `title`.
pub fn svg(title: &str, points: &[CostPoint], fit: Option<&Fit>) -> String {
    let x = LogAxis::fit(points.iter().map(|p| p.size as f64));
    let y = LogAxis::fit(points.iter().flat_map(|p| [p.max as f64, p.median as f64]));
    let (plot_w, plot_h) = (FRAME.plot_width(), FRAME.plot_height());
    let px = |n: f64| FRAME.x(x.share(n));
    let py = |c: f64| FRAME.y(y.share(c));
    let mut out = FRAME.open("cost", title, 11);
    let _ = write!(
        out,
        "<text x=\"{LEFT}\" y=\"16\" font-size=\"13\" fill=\"{INK}\">{}</text>",
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
