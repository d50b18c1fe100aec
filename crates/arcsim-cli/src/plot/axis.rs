//! Axes and the frame around the data: ranges, nice linear and log ticks with
//! their labels, the canvas geometry, and drawing the background, grid and axes.

use anyhow::Result;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::text::{fit_size, text_width, title_lines, Canvas, Txt};
use super::{
    draw_err, PlotSpec, DESC_FONT, GRID, HEADROOM, HEIGHT, MARGIN_BOTTOM, MARGIN_LEFT,
    MARGIN_RIGHT, MARGIN_TOP, MAX_ABS, NOTE, NOTE_FONT, TICK_FONT, TICK_GAP, TICK_LEN, TITLE_FONT,
    WIDTH,
};

// ---------------------------------------------------------------------------
// Axes and ticks.

/// An axis in plot coordinates (log10 of the value for log axes), with
/// tick positions and their labels.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) ticks: Vec<(f64, String)>,
}

impl Axis {
    pub(super) fn linear(lo: f64, hi: f64, target_ticks: usize) -> Self {
        Axis {
            lo,
            hi,
            ticks: linear_ticks(lo, hi, target_ticks),
        }
    }

    pub(super) fn log(lo: f64, hi: f64) -> Self {
        Axis {
            lo,
            hi,
            ticks: log_ticks(lo, hi),
        }
    }

    /// Position of `v` as a fraction of the axis length.
    pub(super) fn frac(&self, v: f64) -> f64 {
        (v - self.lo) / (self.hi - self.lo)
    }

    pub(super) fn max_label_width(&self) -> u32 {
        self.ticks
            .iter()
            .map(|t| text_width(&t.1, TICK_FONT))
            .max()
            .unwrap_or(0)
    }
}

/// Linear bounds that include 0, with headroom on the side(s) away from 0.
pub(super) fn linear_bounds(data: Option<(f64, f64)>) -> (f64, f64) {
    let Some((min, max)) = data else {
        return (0.0, 1.0);
    };
    let lo = min.min(0.0);
    let hi = max.max(0.0);
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return (0.0, 1.0);
    }
    let lo = if min < 0.0 { lo - HEADROOM * span } else { lo };
    let hi = if max > 0.0 { hi + HEADROOM * span } else { hi };
    (lo, hi)
}

/// Log bounds (in log10 units) around data given in log10 units.
pub(super) fn log_bounds(data: Option<(f64, f64)>) -> (f64, f64) {
    let Some((min, max)) = data else {
        return (0.0, 1.0);
    };
    let span = max - min;
    let pad = if span > 0.0 { HEADROOM * span } else { 0.5 };
    // Keep clear of subnormals, where 10^x stops being exact.
    let lo = (min - pad).max(-307.0);
    let hi = (max + pad).min(307.0);
    if hi > lo {
        (lo, hi)
    } else {
        (lo, lo + 1.0)
    }
}

/// A "nice" step (1, 2, 2.5 or 5 times a power of ten) giving about
/// `target` intervals over `span`.
fn nice_step(span: f64, target: usize) -> f64 {
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 2.5 {
        2.5
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Ticks at multiples of a nice step, labelled with a common number of
/// decimals (0.0, 0.2, ... 1.0), or in scientific notation for very large
/// or small magnitudes.
fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<(f64, String)> {
    let step = nice_step(hi - lo, target);
    let k0 = (lo / step - 1e-9).ceil();
    let k1 = (hi / step + 1e-9).floor();
    // Degenerate spans (or ones at the edge of f64) get their end points only.
    if !(step.is_finite() && step > 0.0 && k0.is_finite() && k1 >= k0 && k1 - k0 <= 100.0) {
        return vec![(lo, format_plain(lo)), (hi, format_plain(hi))];
    }
    let exp = step.log10().floor();
    let mantissa = step / 10f64.powf(exp);
    let extra = i32::from((mantissa - 2.5).abs() < 1e-6);
    let exp = exp as i32;
    let mag = lo.abs().max(hi.abs());
    let scientific = !(1e-3..1e6).contains(&mag);
    (0..=(k1 - k0) as i64)
        .map(|i| {
            let mut v = (k0 + i as f64) * step;
            if v.abs() < step * 1e-9 {
                v = 0.0; // kill -0.0 and rounding residue
            }
            let label = if scientific {
                if v == 0.0 {
                    "0".to_string()
                } else {
                    let digits =
                        (v.abs().log10().floor() as i32 - exp + extra).clamp(0, 6) as usize;
                    trim_mantissa(&format!("{v:.digits$e}"))
                }
            } else {
                let decimals = (extra - exp).clamp(0, 12) as usize;
                format!("{v:.decimals$}")
            };
            (v, label)
        })
        .collect()
}

/// "1.0e6" -> "1e6", "2.50e-4" -> "2.5e-4": in scientific labels the
/// exponent already tells the scale, so trailing zeros are noise.
fn trim_mantissa(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) if m.contains('.') => {
            format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s.to_string(),
    }
}

fn format_plain(v: f64) -> String {
    let v = if v == 0.0 { 0.0 } else { v };
    if v != 0.0 && !(1e-3..1e6).contains(&v.abs()) {
        format!("{v:.3e}")
    } else {
        format!("{v:.3}")
    }
}

/// Label for `m * 10^k` written the way a reader expects: 0.01, 20, 5e-7.
fn format_power(m: u32, k: i32) -> String {
    if (0..=5).contains(&k) {
        (u64::from(m) * 10u64.pow(k as u32)).to_string()
    } else if (-4..0).contains(&k) {
        let decimals = (-k) as usize;
        format!("{:.decimals$}", f64::from(m) * 10f64.powi(k))
    } else {
        format!("{m}e{k}")
    }
}

/// Ticks of a log axis whose bounds are given in log10 units: decades, or
/// 1-2-5 steps over short ranges, or plain linear ticks below a decade.
fn log_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let kmin = lo.ceil() as i32;
    let kmax = hi.floor() as i32;
    let decades = kmax - kmin + 1;
    if decades > 2 {
        let stride = ((decades + 7) / 8).max(1) as usize;
        return (kmin..=kmax)
            .step_by(stride)
            .map(|k| (f64::from(k), format_power(1, k)))
            .collect();
    }
    let mut ticks = Vec::new();
    for k in (lo.floor() as i32)..=(hi.ceil() as i32) {
        for m in [1u32, 2, 5] {
            let t = f64::from(m).log10() + f64::from(k);
            if t >= lo - 1e-9 && t <= hi + 1e-9 {
                ticks.push((t, format_power(m, k)));
            }
        }
    }
    if ticks.len() >= 3 {
        return ticks;
    }
    let lin: Vec<(f64, String)> = linear_ticks(10f64.powf(lo), 10f64.powf(hi), 5)
        .into_iter()
        .filter(|t| t.0 > 0.0)
        .map(|(v, label)| (v.log10(), label))
        .collect();
    if lin.len() > ticks.len() {
        lin
    } else {
        ticks
    }
}

pub(super) fn usable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_ABS
}

/// Plot-coordinate y of a data value (log10 on a log axis), or None if it cannot be drawn.
pub(super) fn plot_y(v: f64, log_y: bool) -> Option<f64> {
    if !usable(v) {
        None
    } else if log_y {
        (v > 0.0).then(|| v.log10())
    } else {
        Some(v)
    }
}

/// Running (min, max) of the values fed to it.
#[derive(Default)]
pub(super) struct Extent(pub(super) Option<(f64, f64)>);

impl Extent {
    pub(super) fn add(&mut self, v: f64) {
        self.0 = Some(match self.0 {
            None => (v, v),
            Some((a, b)) => (a.min(v), b.max(v)),
        });
    }
}

// ---------------------------------------------------------------------------
// Frame: title, plot rectangle, grid, axes, ticks and their labels.

/// Canvas layout: everything in pixels of the root area.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    pub(super) title_h: u32,
    /// Width of the panel right of the chart that holds an outside legend.
    legend_panel_w: u32,
    x_area: u32,
    y_area: u32,
    has_x_desc: bool,
}

impl Geometry {
    pub(super) fn new(spec: &PlotSpec, y: &Axis, legend_panel_w: u32) -> Self {
        let title_h = if spec.title.is_empty() {
            0
        } else {
            // One more line's height for a title broken in two.
            let lines = title_lines(spec.title, TITLE_FONT, WIDTH as i32 - 40).len() as u32;
            TITLE_FONT * 2 + (lines - 1) * TITLE_FONT
        };
        let tick = (TICK_LEN + TICK_GAP) as u32;
        let x_desc = if spec.x_label.is_empty() {
            0
        } else {
            DESC_FONT + 8
        };
        let y_desc = if spec.y_label.is_empty() {
            0
        } else {
            DESC_FONT + 10
        };
        Geometry {
            title_h,
            legend_panel_w,
            x_area: tick + TICK_FONT + 8 + x_desc,
            y_area: (y.max_label_width() + tick + 8 + y_desc).min(WIDTH / 3),
            has_x_desc: !spec.x_label.is_empty(),
        }
    }

    /// Plot rectangle (left, top, right, bottom), right/bottom exclusive.
    pub(super) fn plot_rect(&self) -> (u32, u32, u32, u32) {
        let left = MARGIN_LEFT + self.y_area;
        let top = self.title_h + MARGIN_TOP;
        let right = WIDTH
            .saturating_sub(self.legend_panel_w + MARGIN_RIGHT)
            .max(left + 50);
        let bottom = HEIGHT
            .saturating_sub(MARGIN_BOTTOM + self.x_area)
            .max(top + 50);
        (left, top, right, bottom)
    }

    /// Size of the plotting area (inside the axes) in pixels.
    pub(super) fn plot_size(&self) -> (u32, u32) {
        let (l, t, r, b) = self.plot_rect();
        (r - l, b - t)
    }
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Background, title and grid; returns the chart to draw data on.
pub(super) fn draw_background<'a, DB: DrawingBackend>(
    canvas: &Canvas<'a, DB>,
    title: &str,
    geo: &Geometry,
    x: &Axis,
    y: &Axis,
    x_grid: bool,
) -> Result<Chart<'a, DB>> {
    canvas.root.fill(&WHITE).map_err(draw_err)?;
    if geo.title_h > 0 {
        let lines = title_lines(title, TITLE_FONT, WIDTH as i32 - 40);
        let n = lines.len() as i32;
        for (k, (line, size)) in lines.iter().enumerate() {
            let t = Txt::new(*size, HPos::Center, VPos::Center);
            // Lines a title font's height apart, centred in the title band together.
            let y = geo.title_h as i32 / 2 + 4 + (2 * k as i32 - (n - 1)) * TITLE_FONT as i32 / 2;
            canvas.text(line, (WIDTH as i32 / 2, y), t)?;
        }
    }
    let (l, t, r, b) = geo.plot_rect();
    let chart = ChartBuilder::on(canvas.root)
        .margin_left(l)
        .margin_top(t)
        .margin_right(WIDTH - r)
        .margin_bottom(HEIGHT - b)
        .build_cartesian_2d(x.lo..x.hi, y.lo..y.hi)
        .map_err(draw_err)?;
    let ((x0, y0), (x1, y1)) = corners(&chart, x, y);
    let grid = GRID.stroke_width(1);
    if x_grid {
        for (v, _) in &x.ticks {
            let px = chart.backend_coord(&(*v, y.lo)).0;
            canvas.line(vec![(px, y0), (px, y1)], grid)?;
        }
    }
    for (v, _) in &y.ticks {
        let py = chart.backend_coord(&(x.lo, *v)).1;
        canvas.line(vec![(x0, py), (x1, py)], grid)?;
    }
    Ok(chart)
}

/// Pixel corners (top-left, bottom-right) of the plot area as data maps.
pub(super) fn corners<DB: DrawingBackend>(
    chart: &Chart<DB>,
    x: &Axis,
    y: &Axis,
) -> ((i32, i32), (i32, i32)) {
    (
        chart.backend_coord(&(x.lo, y.hi)),
        chart.backend_coord(&(x.hi, y.lo)),
    )
}

/// Axes box, ticks, tick labels, axis titles and the "no data" note; drawn
/// after the data so the axes stay on top.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_axes<DB: DrawingBackend>(
    canvas: &Canvas<DB>,
    chart: &Chart<DB>,
    spec: &PlotSpec,
    geo: &Geometry,
    x: &Axis,
    y: &Axis,
    no_data: bool,
) -> Result<()> {
    let ((x0, y0), (x1, y1)) = corners(chart, x, y);
    let axis = BLACK.stroke_width(1);
    canvas
        .root
        .draw(&Rectangle::new([(x0, y0), (x1, y1)], axis))
        .map_err(draw_err)?;

    let below = y1 + TICK_LEN + TICK_GAP;
    for (v, label) in &x.ticks {
        let px = chart.backend_coord(&(*v, y.lo)).0;
        canvas.line(vec![(px, y1), (px, y1 + TICK_LEN)], axis)?;
        let t = Txt::new(TICK_FONT, HPos::Center, VPos::Top);
        canvas.text(label, (px, below), t)?;
    }
    let left_of = x0 - TICK_LEN - TICK_GAP;
    for (v, label) in &y.ticks {
        let py = chart.backend_coord(&(x.lo, *v)).1;
        canvas.line(vec![(x0 - TICK_LEN, py), (x0, py)], axis)?;
        let t = Txt::new(TICK_FONT, HPos::Right, VPos::Center);
        canvas.text(label, (left_of, py), t)?;
    }

    if geo.has_x_desc {
        let size = fit_size(spec.x_label, DESC_FONT, WIDTH as i32 - 40);
        let t = Txt::new(size, HPos::Center, VPos::Bottom);
        let base = HEIGHT as i32 - MARGIN_BOTTOM as i32 - 4;
        canvas.text(spec.x_label, ((x0 + x1) / 2, base), t)?;
    }
    if !spec.y_label.is_empty() {
        let size = fit_size(spec.y_label, DESC_FONT, HEIGHT as i32 - 20);
        let t = Txt {
            rotate: true,
            ..Txt::new(size, HPos::Center, VPos::Center)
        };
        let px = MARGIN_LEFT as i32 + DESC_FONT as i32 / 2;
        canvas.text(spec.y_label, (px, (y0 + y1) / 2), t)?;
    }
    if no_data {
        let t = Txt {
            colour: NOTE,
            ..Txt::new(NOTE_FONT, HPos::Center, VPos::Center)
        };
        canvas.text("no data", ((x0 + x1) / 2, (y0 + y1) / 2), t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_nice() {
        let labels = |t: Vec<(f64, String)>| t.into_iter().map(|t| t.1).collect::<Vec<_>>();
        assert_eq!(
            labels(linear_ticks(0.0, 1.05, 6)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(log_ticks(-2.1, 3.2)),
            ["0.01", "0.1", "1", "10", "100", "1000"]
        );
        assert_eq!(linear_ticks(0.0, 5e7, 5)[1].1, "1e7");
        assert_eq!(
            labels(linear_ticks(0.0, 1.05e6, 7)),
            ["0", "2e5", "4e5", "6e5", "8e5", "1e6"]
        );
        assert_eq!(labels(linear_ticks(0.0, 2.6e-4, 3))[1], "1e-4");
        assert_eq!(
            labels(linear_ticks(-1.0, 0.0, 4)),
            ["-1.00", "-0.75", "-0.50", "-0.25", "0.00"]
        );
    }
}
