//! The plots of a property's campaigns, inlined in the index page: (a)
//! edges and corpus entries over campaign time, (b) edges over executions,
//! each with the findings and resumed runs marked on its axis. Drawn with
//! the frame, axes and palette of [`crate::report::svg`].

use std::fmt::Write as _;

use crate::reach::model::{FindingMark, PropertyCoverage, SeriesPoint};
use crate::report::escape::escape;
use crate::report::svg::{
    CORPUS, EDGES, FINDING, Frame, GRID, INK, LinearAxis as Axis, MUTED as RESUME,
};
use crate::report::text::human_count;

/// The size of a plot in CSS pixels (the page scales it down to fit), and
/// its margins: the legend above, tick labels and axis titles on the other
/// sides (right too, for the corpus axis).
const FRAME: Frame = Frame {
    width: 460.0,
    height: 240.0,
    left: 58.0,
    right: 58.0,
    top: 30.0,
    bottom: 40.0,
};
const WIDTH: f64 = FRAME.width;
const HEIGHT: f64 = FRAME.height;
const LEFT: f64 = FRAME.left;
const TOP: f64 = FRAME.top;
const PLOT_WIDTH: f64 = FRAME.plot_width();
const PLOT_HEIGHT: f64 = FRAME.plot_height();

/// Both plots of a property, side by side in the page's flow.
pub fn both(property: &PropertyCoverage) -> String {
    over_time(property) + &over_execs(property)
}

/// Edges (left axis) and corpus entries (right axis) against campaign
/// time, the time axis running on across resumed runs.
pub fn over_time(property: &PropertyCoverage) -> String {
    let title = format!("{}: edges and corpus entries over time", property.name);
    let series = &property.series;
    if series.is_empty() {
        return empty(&title);
    }
    let last_ms = series
        .iter()
        .map(|s| s.elapsed_ms)
        .chain(property.resumes.iter().copied())
        .chain(property.findings.iter().map(|f| f.elapsed_ms))
        .max()
        .unwrap_or(0);
    let x = Axis::fit(seconds(last_ms), false, "time (s)");
    let y = Axis::fit(max(series, |s| s.edges), true, "edges");
    let corpus = Axis::fit(max(series, |s| s.corpus), true, "corpus entries");
    let mut plot = Plot::new(&title, x, y, Some(corpus));
    plot.line(
        series,
        |s| (seconds(s.elapsed_ms), s.edges),
        Scale::Left,
        "edges",
    );
    plot.line(
        series,
        |s| (seconds(s.elapsed_ms), s.corpus),
        Scale::Right,
        "corpus",
    );
    plot.resumes(property.resumes.iter().map(|&ms| (seconds(ms), ms)));
    plot.findings(property.findings.iter().map(|f| (seconds(f.elapsed_ms), f)));
    plot.finish()
}

/// Edges against executions: how much new coverage each execution still
/// buys, whatever the machine's speed.
pub fn over_execs(property: &PropertyCoverage) -> String {
    let title = format!("{}: edges over executions", property.name);
    let series = &property.series;
    if series.is_empty() {
        return empty(&title);
    }
    let last = series
        .iter()
        .map(|s| s.execs)
        .chain(property.findings.iter().map(|f| f.execs))
        .max()
        .unwrap_or(0);
    let x = Axis::fit(last as f64, true, "executions");
    let y = Axis::fit(max(series, |s| s.edges), true, "edges");
    let mut plot = Plot::new(&title, x, y, None);
    plot.line(series, |s| (s.execs as f64, s.edges), Scale::Left, "edges");
    plot.resumes(
        property
            .resumes
            .iter()
            .map(|&ms| (execs_at(series, ms), ms)),
    );
    plot.findings(property.findings.iter().map(|f| (f.execs as f64, f)));
    plot.finish()
}

/// The frame of a plot with nothing to draw in it: a property never run,
/// or run before its campaigns' series were recorded.
fn empty(title: &str) -> String {
    let mut svg = open(title);
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{PLOT_WIDTH}" height="{PLOT_HEIGHT}" fill="none" stroke="{GRID}" stroke-dasharray="4 3"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{RESUME}">no campaign recorded</text>"##,
        LEFT + PLOT_WIDTH / 2.0,
        TOP + PLOT_HEIGHT / 2.0 + 4.0,
    );
    svg.push_str("</svg>");
    svg
}

/// The opening tag and the accessible name every plot starts with.
fn open(title: &str) -> String {
    FRAME.open("plot", title, 10)
}

fn seconds(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

fn max(series: &[SeriesPoint], value: impl Fn(&SeriesPoint) -> u64) -> f64 {
    series.iter().map(value).max().unwrap_or(0) as f64
}

/// Executions at `ms` on the stitched time axis, interpolated between the
/// points around it: where a resume falls on the executions axis, since
/// the model records resumes by time only.
fn execs_at(series: &[SeriesPoint], ms: u64) -> f64 {
    let after = series.partition_point(|s| s.elapsed_ms <= ms);
    match (after.checked_sub(1).map(|i| series[i]), series.get(after)) {
        (Some(a), Some(b)) => {
            // Saturating, so that a series out of order draws oddly rather
            // than panics.
            let span = b.elapsed_ms.saturating_sub(a.elapsed_ms).max(1);
            let share = ms.saturating_sub(a.elapsed_ms) as f64 / span as f64;
            a.execs as f64 + share * (b.execs as f64 - a.execs as f64)
        }
        (Some(a), None) => a.execs as f64,
        (None, Some(b)) => b.execs as f64,
        (None, None) => 0.0,
    }
}

/// Which y axis a line is drawn against.
#[derive(Clone, Copy)]
enum Scale {
    Left,
    Right,
}

/// What the legend shows for an entry.
enum Key {
    Line(&'static str),
    Resume,
    Finding,
}

/// A plot being drawn: its axes, the SVG so far and the legend entries of
/// what was drawn.
struct Plot {
    x: Axis,
    y: Axis,
    right: Option<Axis>,
    svg: String,
    legend: Vec<(Key, &'static str)>,
}

impl Plot {
    /// The opening of the SVG with its grid, axes, ticks and axis titles.
    fn new(title: &str, x: Axis, y: Axis, right: Option<Axis>) -> Plot {
        let mut plot = Plot {
            x,
            y,
            right,
            svg: open(title),
            legend: Vec::new(),
        };
        plot.y_axis();
        plot.x_axis();
        plot.right_axis();
        plot
    }

    fn px_x(&self, value: f64) -> f64 {
        FRAME.x(self.x.share(value))
    }

    fn px_y(axis: &Axis, value: f64) -> f64 {
        FRAME.y(axis.share(value))
    }

    /// The left axis: a grid line and a label per tick, and its title
    /// turned along it, in the colour of the edges it measures.
    fn y_axis(&mut self) {
        let bottom = TOP + PLOT_HEIGHT;
        for tick in self.y.ticks() {
            let y = Self::px_y(&self.y, tick);
            let _ = writeln!(
                self.svg,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{GRID}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + PLOT_WIDTH,
                LEFT - 5.0,
                y + 3.5,
                self.y.label(tick),
            );
        }
        let _ = writeln!(
            self.svg,
            r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="{INK}"/><text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle" fill="{EDGES}">{}</text>"##,
            TOP + PLOT_HEIGHT / 2.0,
            escape(self.y.title),
        );
    }

    /// The right axis of the corpus, if the plot has one: labels only (the
    /// grid is the left axis's).
    fn right_axis(&mut self) {
        let Some(axis) = self.right else { return };
        let edge = LEFT + PLOT_WIDTH;
        for tick in axis.ticks() {
            let _ = writeln!(
                self.svg,
                r##"<text x="{:.1}" y="{:.1}" fill="{CORPUS}">{}</text>"##,
                edge + 5.0,
                Self::px_y(&axis, tick) + 3.5,
                axis.label(tick),
            );
        }
        let _ = writeln!(
            self.svg,
            r##"<line x1="{edge}" y1="{TOP}" x2="{edge}" y2="{:.1}" stroke="{INK}"/><text transform="translate({:.1} {:.1}) rotate(90)" text-anchor="middle" fill="{CORPUS}">{}</text>"##,
            TOP + PLOT_HEIGHT,
            WIDTH - 14.0,
            TOP + PLOT_HEIGHT / 2.0,
            escape(axis.title),
        );
    }

    /// The x axis: a tick mark and a label per tick, and its title below.
    fn x_axis(&mut self) {
        let bottom = TOP + PLOT_HEIGHT;
        for tick in self.x.ticks() {
            let x = self.px_x(tick);
            let _ = writeln!(
                self.svg,
                r##"<line x1="{x:.1}" y1="{bottom}" x2="{x:.1}" y2="{:.1}" stroke="{INK}"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                bottom + 4.0,
                bottom + 14.0,
                self.x.label(tick),
            );
        }
        let _ = writeln!(
            self.svg,
            r##"<line x1="{LEFT}" y1="{bottom}" x2="{:.1}" y2="{bottom}" stroke="{INK}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            LEFT + PLOT_WIDTH,
            LEFT + PLOT_WIDTH / 2.0,
            HEIGHT - 6.0,
            escape(self.x.title),
        );
    }

    /// One quantity of the series as a line (a dot, when the series has a
    /// single point and so no line to draw).
    fn line(
        &mut self,
        series: &[SeriesPoint],
        point: impl Fn(&SeriesPoint) -> (f64, u64),
        scale: Scale,
        label: &'static str,
    ) {
        let (axis, color) = match scale {
            Scale::Left => (self.y, EDGES),
            Scale::Right => (self.right.unwrap_or(self.y), CORPUS),
        };
        let pixels: Vec<(f64, f64)> = series
            .iter()
            .map(|s| {
                let (x, y) = point(s);
                (self.px_x(x), Self::px_y(&axis, y as f64))
            })
            .collect();
        if let [(x, y)] = pixels[..] {
            let _ = writeln!(
                self.svg,
                r##"<circle cx="{x:.1}" cy="{y:.1}" r="2.5" fill="{color}"/>"##
            );
        } else {
            let points: Vec<String> = thin(&pixels)
                .iter()
                .map(|(x, y)| format!("{x:.1},{y:.1}"))
                .collect();
            let _ = writeln!(
                self.svg,
                r##"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5" stroke-linejoin="round"/>"##,
                points.join(" ")
            );
        }
        self.legend.push((Key::Line(color), label));
    }

    /// Dashed vertical lines where a run resumed an earlier one, given as
    /// (position on the x axis, elapsed ms for the tooltip).
    fn resumes(&mut self, at: impl Iterator<Item = (f64, u64)>) {
        let mut any = false;
        for (value, ms) in at {
            let x = self.px_x(value);
            let _ = writeln!(
                self.svg,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="{RESUME}" stroke-dasharray="4 3"><title>run resumed at {:.1} s</title></line>"##,
                TOP + PLOT_HEIGHT,
                seconds(ms),
            );
            any = true;
        }
        if any {
            self.legend.push((Key::Resume, "resumed"));
        }
    }

    /// A red vertical line and a triangle at the top per finding, with a
    /// tooltip giving its kind and message; a wide invisible stroke makes
    /// the tooltip easy to hover.
    fn findings<'a>(&mut self, at: impl Iterator<Item = (f64, &'a FindingMark)>) {
        let mut any = false;
        for (value, finding) in at {
            let x = self.px_x(value);
            let bottom = TOP + PLOT_HEIGHT;
            let _ = writeln!(
                self.svg,
                r##"<g><title>{}</title><line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{bottom}" stroke="{FINDING}"/><line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{bottom}" stroke="{FINDING}" stroke-opacity="0" stroke-width="8"/><path d="M{:.1} {TOP}h8l-4 7z" fill="{FINDING}"/></g>"##,
                escape(&finding_tooltip(finding)),
                x - 4.0,
            );
            any = true;
        }
        if any {
            self.legend.push((Key::Finding, "finding"));
        }
    }

    /// The legend above the plotting area, in the order things were drawn,
    /// and the end of the SVG.
    fn finish(mut self) -> String {
        let mut x = LEFT;
        let y = TOP - 14.0;
        for (key, label) in &self.legend {
            let sample = match key {
                Key::Line(color) => format!(
                    r##"<line x1="{x:.1}" y1="{y}" x2="{:.1}" y2="{y}" stroke="{color}" stroke-width="2"/>"##,
                    x + 16.0
                ),
                Key::Resume => format!(
                    r##"<line x1="{x:.1}" y1="{y}" x2="{:.1}" y2="{y}" stroke="{RESUME}" stroke-dasharray="4 3"/>"##,
                    x + 16.0
                ),
                Key::Finding => format!(
                    r##"<path d="M{:.1} {:.1}h8l-4 7z" fill="{FINDING}"/>"##,
                    x + 4.0,
                    y - 4.0
                ),
            };
            let _ = writeln!(
                self.svg,
                r##"{sample}<text x="{:.1}" y="{:.1}">{}</text>"##,
                x + 20.0,
                y + 3.5,
                escape(label)
            );
            x += 32.0 + 5.5 * label.len() as f64;
        }
        self.svg.push_str("</svg>");
        self.svg
    }
}

/// `panic after 12.3 s, 1.2k executions: <message>`.
fn finding_tooltip(finding: &FindingMark) -> String {
    format!(
        "{} after {:.1} s, {} executions: {}",
        finding.kind,
        seconds(finding.elapsed_ms),
        human_count(finding.execs),
        finding.message
    )
}

/// The points of a line with at most the first and the last of each pixel
/// column kept: a long campaign records far more points than a plot has
/// columns, and the lines it draws are cumulative counts, so the first and
/// last of a column are its lowest and highest.
fn thin(pixels: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let column = |i: usize| pixels[i].0.floor();
    (0..pixels.len())
        .filter(|&i| {
            let first = i == 0 || column(i - 1) != column(i);
            let last = i + 1 == pixels.len() || column(i + 1) != column(i);
            first || last
        })
        .map(|i| pixels[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(axis: Axis) -> Vec<String> {
        axis.ticks().map(|t| axis.label(t)).collect()
    }

    #[test]
    fn axes_end_at_a_round_number_with_round_ticks() {
        assert_eq!(
            ticks(Axis::fit(37.0, true, "")),
            ["0", "10", "20", "30", "40"]
        );
        assert_eq!(ticks(Axis::fit(0.3, false, "")), ["0", "0.1", "0.2", "0.3"]);
        assert_eq!(
            ticks(Axis::fit(25_000.0, true, "")),
            ["0", "10k", "20k", "30k"]
        );
        assert_eq!(
            ticks(Axis::fit(1.2e6, true, "")),
            ["0", "0.5M", "1.0M", "1.5M"]
        );
    }

    #[test]
    fn a_count_axis_with_nothing_on_it_still_has_a_tick_past_zero() {
        assert_eq!(ticks(Axis::fit(0.0, true, "")), ["0", "1"]);
        assert_eq!(ticks(Axis::fit(2.0, true, "")), ["0", "1", "2"]);
    }

    #[test]
    fn a_resume_falls_between_the_executions_around_it() {
        let point = |elapsed_ms, execs| SeriesPoint {
            elapsed_ms,
            execs,
            ..SeriesPoint::default()
        };
        let series = [point(0, 0), point(1000, 100), point(3000, 500)];
        assert_eq!(execs_at(&series, 2000), 300.0);
        assert_eq!(execs_at(&series, 1000), 100.0);
        assert_eq!(execs_at(&series, 9000), 500.0);
    }

    #[test]
    fn thinning_keeps_the_ends_of_each_pixel_column() {
        let pixels = [(0.1, 9.0), (0.5, 8.0), (0.9, 7.0), (1.2, 6.0), (2.5, 5.0)];
        assert_eq!(
            thin(&pixels),
            [(0.1, 9.0), (0.9, 7.0), (1.2, 6.0), (2.5, 5.0)]
        );
    }

    #[test]
    fn a_long_campaign_draws_a_line_of_about_two_points_per_pixel_column() {
        let series = (0..100_000)
            .map(|i| SeriesPoint {
                elapsed_ms: i * 1000,
                execs: i * 5000,
                edges: i / 100,
                corpus: i / 1000,
            })
            .collect();
        let property = PropertyCoverage {
            series,
            ..PropertyCoverage::default()
        };
        let svg = over_time(&property);
        let line = svg.lines().find(|l| l.starts_with("<polyline")).unwrap();
        let points = line.matches(',').count();
        assert!(points <= 2 * (PLOT_WIDTH as usize + 1), "{points} points");
    }

    #[test]
    fn a_single_point_is_drawn_as_a_dot() {
        let property = PropertyCoverage {
            name: "demo::tests::parses".to_string(),
            series: vec![SeriesPoint {
                elapsed_ms: 500,
                execs: 10,
                edges: 3,
                corpus: 1,
            }],
            ..PropertyCoverage::default()
        };
        let svg = over_time(&property);
        assert_eq!(svg.matches("<circle").count(), 2, "{svg}");
        assert!(!svg.contains("<polyline"), "{svg}");
    }
}
