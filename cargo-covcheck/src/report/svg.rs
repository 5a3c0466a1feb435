//! What every plot covcheck draws shares: the palette, the frame (size,
//! margins, the opening tag with its accessible name) and the axes, linear
//! ([`LinearAxis`], from 0 to a round number, for counts over time) and
//! logarithmic ([`LogAxis`], whole decades, for costs against sizes).
//! The coverage report's plots ([`super::site::plots`]) and performance
//! mode's ([`super::cost_plot`]) are drawn with them. Hand-written SVG,
//! because the plots are simple and a plotting crate would be a large
//! dependency for three charts; the output depends on the data alone, so
//! that it can be snapshot-tested.

use super::escape::escape;

/// The palette, GitHub's: the main series (edges; a fitted curve), the
/// second one (corpus entries), findings (and the costliest inputs),
/// muted marks (resumed runs; median inputs), the grid and the text.
pub const EDGES: &str = "#0969da";
pub const CORPUS: &str = "#bc4c00";
pub const FINDING: &str = "#cf222e";
pub const MUTED: &str = "#57606a";
pub const GRID: &str = "#d8dee4";
pub const INK: &str = "#1f2328";

/// A plot's size in CSS pixels and the margins around its plotting area
/// (for the legend or title above, tick labels and axis titles around).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Frame {
    pub const fn plot_width(&self) -> f64 {
        self.width - self.left - self.right
    }

    pub const fn plot_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }

    /// The x pixel of a share (0 to 1) of the horizontal axis.
    pub fn x(&self, share: f64) -> f64 {
        self.left + share * self.plot_width()
    }

    /// The y pixel of a share (0 to 1) of the vertical axis, 0 at the
    /// bottom.
    pub fn y(&self, share: f64) -> f64 {
        self.top + (1.0 - share) * self.plot_height()
    }

    /// The opening tag, with `title` as the accessible name; `font_size`
    /// in pixels.
    pub fn open(&self, class: &str, title: &str, font_size: u32) -> String {
        let (w, h) = (self.width, self.height);
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="{class}" role="img" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="{font_size}" fill="{INK}"><title>{}</title>
"##,
            escape(title)
        )
    }
}

/// An axis from 0 to a round number past the data, with ticks at round
/// steps (1, 2 or 5 times a power of ten), about four of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearAxis {
    pub max: f64,
    pub step: f64,
    pub title: &'static str,
}

impl LinearAxis {
    /// `whole`: the quantity is a count, so no tick falls between two
    /// integers.
    pub fn fit(data_max: f64, whole: bool, title: &'static str) -> LinearAxis {
        let data_max = if data_max > 0.0 { data_max } else { 1.0 };
        let mut step = nice_step(data_max / 4.0);
        if whole {
            step = step.max(1.0);
        }
        // The small slack keeps 0.3 / 0.1 = 3.0000000000000004 at 3 steps.
        let steps = (data_max / step - 1e-9).ceil().max(1.0);
        LinearAxis {
            max: steps * step,
            step,
            title,
        }
    }

    /// Where `value` falls, from 0 to 1.
    pub fn share(&self, value: f64) -> f64 {
        value / self.max
    }

    pub fn ticks(&self) -> impl Iterator<Item = f64> + use<> {
        let (step, steps) = (self.step, (self.max / self.step).round() as u32);
        (0..=steps).map(move |i| f64::from(i) * step)
    }

    /// A tick's label, in thousands, millions or billions when the axis
    /// runs that far (`20k`), with as many decimals as the step needs.
    pub fn label(&self, value: f64) -> String {
        if value == 0.0 {
            return "0".to_string();
        }
        let (scale, suffix) = match self.max {
            m if m >= 1e9 => (1e9, "G"),
            m if m >= 1e6 => (1e6, "M"),
            m if m >= 1e4 => (1e3, "k"),
            _ => (1.0, ""),
        };
        let step = self.step / scale;
        let decimals = if step >= 1.0 {
            0
        } else {
            (-step.log10().floor()) as usize
        };
        format!("{:.*}{suffix}", decimals, value / scale)
    }
}

/// The round number (1, 2, 5 × 10ⁿ) at or above `rough`.
fn nice_step(rough: f64) -> f64 {
    let power = 10f64.powf(rough.log10().floor());
    let nice = match rough / power {
        f if f <= 1.0 => 1.0,
        f if f <= 2.0 => 2.0,
        f if f <= 5.0 => 5.0,
        _ => 10.0,
    };
    nice * power
}

/// A logarithmic axis over whole decades.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogAxis {
    pub low: f64,
    pub high: f64,
}

impl LogAxis {
    pub fn fit(values: impl Iterator<Item = f64>) -> LogAxis {
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
    pub fn share(&self, value: f64) -> f64 {
        (value.max(self.low).log10() - self.low.log10()) / (self.high.log10() - self.low.log10())
    }

    pub fn decades(&self) -> impl Iterator<Item = f64> + '_ {
        let first = self.low.log10().round() as i32;
        let last = self.high.log10().round() as i32;
        (first..=last).map(|e| 10f64.powi(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_axis_spans_whole_decades_around_the_data() {
        let axis = LogAxis::fit([3.0, 450.0].into_iter());
        assert_eq!((axis.low, axis.high), (1.0, 1000.0));
        assert_eq!(
            axis.decades().collect::<Vec<_>>(),
            [1.0, 10.0, 100.0, 1000.0]
        );
        assert!((axis.share(10.0) - 1.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_frame_maps_shares_to_its_plotting_area() {
        let frame = Frame {
            width: 100.0,
            height: 50.0,
            left: 10.0,
            right: 10.0,
            top: 5.0,
            bottom: 5.0,
        };
        assert_eq!((frame.x(0.0), frame.x(1.0)), (10.0, 90.0));
        assert_eq!((frame.y(0.0), frame.y(1.0)), (45.0, 5.0));
    }
}
