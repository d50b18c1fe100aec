//! What every plot shares: the embedded font and text fitting, the ranges and tick labels,
//! the layout of the canvas (title band, label areas, legend panel), and the chart plotters
//! draws in it with its axes, ticks, grid and legend.

use std::ops::Range;
use std::sync::OnceLock;

use anyhow::{bail, Result};
use plotters::chart::SeriesLabelPosition;
use plotters::coord::types::RangedCoordf64;
use plotters::element::MultiLineText;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{draw_err, Area, PlotSpec, DESC_FONT, FONT, GRID, HEADROOM, HEIGHT, LEGEND_EDGE};
use super::{LEGEND_FONT, MAX_ABS, NOTE, NOTE_FONT, TICK_FONT, TITLE_FONT, WIDTH};

pub(super) static FONT_DATA: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Registers the embedded font with plotters, which measures text with it; fails if it
/// does not load. The public entry points call this before laying anything out.
pub(super) fn ensure_font() -> Result<()> {
    static OK: OnceLock<bool> = OnceLock::new();
    let register = || plotters::style::register_font(FONT, FontStyle::Normal, FONT_DATA);
    if !*OK.get_or_init(|| register().is_ok()) {
        bail!("the embedded DejaVu Sans font could not be loaded");
    }
    Ok(())
}

/// Width in pixels of `text` at `size`, as plotters lays it out.
pub(super) fn text_width(text: &str, size: u32) -> u32 {
    let font = FontDesc::new(FontFamily::Name(FONT), f64::from(size), FontStyle::Normal);
    let guess = size * text.chars().count() as u32 / 2;
    font.box_size(text).map_or(guess, |(w, _)| w)
}

/// Largest size <= `size` (down to 60% of it) at which `text` fits in `max_w` pixels.
pub(super) fn fit_size(text: &str, size: u32, max_w: i32) -> u32 {
    let min = size * 6 / 10;
    (min..=size)
        .rev()
        .find(|&s| text_width(text, s) as i32 <= max_w)
        .unwrap_or(min)
}

/// A title in one line, shrunk to fit `max_w` (down to 80% of `size`), or, when it is
/// longer, in two lines broken at the space nearest its middle (after a colon or a dash
/// when one is near), each shrunk to fit: a long title never runs off the canvas.
pub(super) fn title_lines(title: &str, size: u32, max_w: i32) -> Vec<(String, u32)> {
    let one = fit_size(title, size, max_w);
    if one >= size * 8 / 10 && text_width(title, one) as i32 <= max_w {
        return vec![(title.to_string(), one)];
    }
    let mid = title.len() / 2;
    let spaces: Vec<usize> = title.match_indices(' ').map(|(i, _)| i).collect();
    let punct = |i: &&usize| {
        let near = i.abs_diff(mid) <= title.len() / 3;
        near && (title[..**i].ends_with(':') || title[..**i].ends_with('—'))
    };
    let best = |it: &mut dyn Iterator<Item = &usize>| it.min_by_key(|&&i| i.abs_diff(mid)).copied();
    let Some(at) = best(&mut spaces.iter().filter(punct)).or_else(|| best(&mut spaces.iter()))
    else {
        return vec![(title.to_string(), one)];
    };
    [&title[..at], &title[at + 1..]]
        .map(|line| (line.to_string(), fit_size(line, size, max_w)))
        .to_vec()
}

/// `text` cut to `max_chars` characters, the last one an ellipsis when cut.
pub(crate) fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    kept + "…"
}

// ---------------------------------------------------------------------------
// Ranges and tick labels.

pub(super) fn usable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_ABS
}

/// Plot-coordinate y of a data value (log10 on a log axis), or None if it cannot be drawn.
pub(super) fn plot_y(v: f64, log_y: bool) -> Option<f64> {
    match (usable(v), log_y) {
        (false, _) => None,
        (true, true) => (v > 0.0).then(|| v.log10()),
        (true, false) => Some(v),
    }
}

/// Widens the running (min, max) `range` to hold `v`.
pub(super) fn extend(range: &mut Option<(f64, f64)>, v: f64) {
    *range = Some(range.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
}

/// Axis bounds around the data's (min, max) in plot coordinates, with headroom: on a
/// linear axis they include 0 and the headroom is on the side(s) away from 0; on a log
/// axis (log10 units) they keep clear of subnormals, where 10^x stops being exact.
pub(super) fn bounds(data: Option<(f64, f64)>, log: bool) -> (f64, f64) {
    let Some((min, max)) = data else {
        return (0.0, 1.0);
    };
    if log {
        let pad = if max > min {
            HEADROOM * (max - min)
        } else {
            0.5
        };
        let (lo, hi) = ((min - pad).max(-307.0), (max + pad).min(307.0));
        return if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
    }
    let (lo, hi) = (min.min(0.0), max.max(0.0));
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return (0.0, 1.0);
    }
    let lo = if min < 0.0 { lo - HEADROOM * span } else { lo };
    (lo, if max > 0.0 { hi + HEADROOM * span } else { hi })
}

/// The ticks plotters draws on `lo..hi` for at most `n` labels (1, 2 or 5 times a power of
/// ten apart).
pub(super) fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    RangedCoordf64::from(lo..hi).key_points(n)
}

/// Labels of a linear axis whose ticks are `ticks`: one number of decimals for all (0.0,
/// 0.2, ... 1.0), scientific (2e5, 2.5e-7) for large or tiny magnitudes.
pub(super) fn linear_format(ticks: &[f64]) -> impl Fn(&f64) -> String {
    let step = ticks.get(1).map_or(1.0, |b| b - ticks[0]).abs();
    let decimals = (-(step.log10() + 1e-9).floor()).clamp(0.0, 12.0) as usize;
    let mag = ticks.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    let scientific = mag >= 1e6 || (mag > 0.0 && mag < 1e-3);
    move |v: &f64| {
        let v = if v.abs() < step * 1e-9 { 0.0 } else { *v };
        match scientific {
            true => scientific_label(v),
            false => format!("{v:.decimals$}"),
        }
    }
}

/// Labels of the y axis: linear ones, or on a log axis (ticks in log10 units) the values
/// in at most 3 significant digits: 0.01, 20, 1e-6.
pub(super) fn y_format(ticks: &[f64], log: bool) -> Box<dyn Fn(&f64) -> String> {
    if !log {
        return Box::new(linear_format(ticks));
    }
    Box::new(|v: &f64| {
        let v = 10f64.powf(*v);
        if !(1e-4..1e6).contains(&v) {
            return scientific_label(v);
        }
        let digits = (2 - v.log10().floor() as i32).clamp(0, 6) as usize;
        let s = format!("{v:.digits$}");
        let trimmed = s.trim_end_matches('0').trim_end_matches('.');
        if s.contains('.') { trimmed } else { &s }.to_string()
    })
}

/// "2e5", "2.5e-7": the exponent tells the scale, so trailing zeros are noise.
fn scientific_label(v: f64) -> String {
    let s = format!("{v:.2e}");
    match s.split_once('e') {
        _ if v == 0.0 => "0".to_string(),
        Some((m, e)) => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
        None => s,
    }
}

// ---------------------------------------------------------------------------
// Layout and chart.

const MARGIN: u32 = 12;
const MARGIN_RIGHT: u32 = 28;
const TICK_LEN: u32 = 6;
pub(super) const LEGEND_PAD: i32 = 10;
pub(super) const LEGEND_SAMPLE: i32 = 40;
pub(super) const LEGEND_INSET: i32 = 10;

/// Where things go on the canvas, in pixels.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) title_h: u32,
    /// Heights and widths of the label areas below and left of the chart.
    x_area: u32,
    y_area: u32,
    /// Width of the panel right of the chart that holds an outside legend.
    panel_w: u32,
}

impl Layout {
    /// `y_labels`: the y axis' tick labels (their width sets the label area's).
    pub(super) fn new(spec: &PlotSpec, y_labels: &[String], panel_w: u32) -> Self {
        let lines = title_lines(spec.title, TITLE_FONT, WIDTH as i32 - 40).len() as u32;
        let title_h = if spec.title.is_empty() {
            0
        } else {
            lines * (TITLE_FONT + 6) + 16
        };
        let widest = y_labels.iter().map(|l| text_width(l, TICK_FONT)).max();
        let desc = |s: &str| if s.is_empty() { 0 } else { DESC_FONT + 14 };
        let y_area = widest.unwrap_or(0) + TICK_LEN + 10 + desc(spec.y_label);
        let x_area = TICK_LEN + TICK_FONT + 12 + desc(spec.x_label);
        let y_area = y_area.min(WIDTH / 3);
        Layout {
            title_h,
            x_area,
            y_area,
            panel_w,
        }
    }

    /// Plot rectangle (left, top, right, bottom).
    pub(super) fn plot_rect(&self) -> (i32, i32, i32, i32) {
        let (left, top) = (MARGIN + self.y_area, self.title_h + MARGIN);
        let right = WIDTH
            .saturating_sub(self.panel_w + MARGIN_RIGHT)
            .max(left + 50);
        let bottom = HEIGHT.saturating_sub(MARGIN + self.x_area).max(top + 50);
        (left as i32, top as i32, right as i32, bottom as i32)
    }

    pub(super) fn plot_size(&self) -> (i32, i32) {
        let (l, t, r, b) = self.plot_rect();
        (r - l, b - t)
    }
}

pub(super) type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The axes of a chart: ranges in plot coordinates, at most `x_labels` x tick labels
/// (6 on y), how they read, and whether vertical grid lines mark the x ticks.
pub(super) struct Axes<'f> {
    pub(super) x: Range<f64>,
    pub(super) y: Range<f64>,
    pub(super) x_labels: usize,
    pub(super) x_format: &'f dyn Fn(&f64) -> String,
    pub(super) y_format: &'f dyn Fn(&f64) -> String,
    pub(super) x_grid: bool,
    /// Size of the x tick labels (group labels may be smaller).
    pub(super) x_label_size: u32,
}

/// The title, then the chart in the plot rectangle with its grid, axes, ticks, tick labels
/// and axis titles, ready for data.
pub(super) fn chart<'a, 'b>(
    root: &'a Area<'b>,
    spec: &PlotSpec,
    layout: &Layout,
    axes: &Axes,
) -> Result<Chart<'a, 'b>> {
    let lines = title_lines(spec.title, TITLE_FONT, WIDTH as i32 - 40);
    for (k, (line, size)) in lines.iter().enumerate().filter(|_| layout.title_h > 0) {
        let font = TextStyle::from((FONT, *size).into_font());
        let at = (WIDTH as i32 / 2, 12 + k as i32 * (TITLE_FONT as i32 + 6));
        let style = font.pos(Pos::new(HPos::Center, VPos::Top));
        root.draw_text(line, &style, at).map_err(draw_err)?;
    }
    let (l, t, r, b) = layout.plot_rect();
    let mut chart = ChartBuilder::on(root)
        .margin_top(t as u32)
        .margin_left(MARGIN)
        .margin_right(WIDTH - r as u32)
        .margin_bottom(MARGIN)
        .y_label_area_size(l as u32 - MARGIN)
        .x_label_area_size(HEIGHT - MARGIN - b as u32)
        .build_cartesian_2d(axes.x.clone(), axes.y.clone())
        .map_err(draw_err)?;
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(spec.x_label)
        .y_desc(spec.y_label)
        .label_style((FONT, TICK_FONT))
        .x_label_style((FONT, axes.x_label_size))
        .axis_desc_style((FONT, DESC_FONT))
        .bold_line_style(GRID)
        .max_light_lines(0)
        .set_all_tick_mark_size(TICK_LEN)
        .x_labels(axes.x_labels)
        .y_labels(6)
        .x_label_formatter(axes.x_format)
        .y_label_formatter(axes.y_format);
    if !axes.x_grid {
        mesh.disable_x_mesh();
    }
    mesh.draw().map_err(draw_err)?;
    Ok(chart)
}

/// The box around the data, drawn over it, and the "no data" note.
pub(super) fn finish(chart: &Chart, axes: &Axes, no_data: bool) -> Result<()> {
    let (x, y) = (&axes.x, &axes.y);
    let area = chart.plotting_area();
    let frame = [(x.start, y.end), (x.end, y.start)];
    area.draw(&Rectangle::new(frame, BLACK.stroke_width(1)))
        .map_err(draw_err)?;
    if no_data {
        let font = TextStyle::from((FONT, NOTE_FONT).into_font()).color(&NOTE);
        let style = font.pos(Pos::new(HPos::Center, VPos::Center));
        let mid = ((x.start + x.end) / 2.0, (y.start + y.end) / 2.0);
        let note = Text::new("no data", mid, style);
        area.draw(&note).map_err(draw_err)?;
    }
    Ok(())
}

/// Size in pixels of a legend box of these labels, as plotters draws it.
pub(super) fn legend_size(labels: &[String]) -> (i32, i32) {
    let style = TextStyle::from((FONT, LEGEND_FONT).into_font());
    let mut text = MultiLineText::<(i32, i32), &str>::new((0, 0), style);
    labels.iter().for_each(|l| text.push_line(l.as_str()));
    let (w, h) = text.estimate_dimension().unwrap_or((0, 0));
    (w + LEGEND_SAMPLE + 2 * LEGEND_PAD, h + 2 * LEGEND_PAD)
}

/// The entries (index into `labels`; label) that fit a legend panel as high as the
/// canvas, the rest summarised in a last "… (n more)" entry (index None).
pub(super) fn panel_entries(labels: &[String], title_h: u32) -> Vec<(Option<usize>, String)> {
    let row = legend_size(&["x".into(), "x".into()]).1 - legend_size(&["x".into()]).1;
    let room = HEIGHT as i32 - title_h as i32 - 2 * MARGIN as i32 - 2 * LEGEND_PAD;
    let fit = (room / row.max(1)).max(1) as usize;
    let all = labels
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, l)| (Some(i), l));
    let mut out: Vec<_> = all.collect();
    if out.len() > fit {
        let hidden = out.len() + 1 - fit;
        out.truncate(fit - 1);
        out.push((None, format!("… ({hidden} more)")));
    }
    out
}

/// Draws a legend: `entries` labels series on a chart (their samples drawn by the legend
/// functions they set), which plotters then draws as a box with its top-left corner at
/// `inside` (pixels from the plot area's top-left corner), or, when `inside` is None, in
/// the panel right of the plot area.
pub(super) fn legend<'a, 'b: 'a>(
    root: &'a Area<'b>,
    chart: &mut Chart<'a, 'b>,
    layout: &Layout,
    inside: Option<(i32, i32)>,
    entries: impl Fn(&mut Chart<'a, 'b>) -> Result<()>,
) -> Result<()> {
    let mut panel;
    let (target, at) = match inside {
        Some(at) => (chart, at),
        None => {
            // A chart of its own over the panel: plotters clips a legend to its chart.
            let (_, t, r, _) = layout.plot_rect();
            panel = ChartBuilder::on(root)
                .margin_left((r + MARGIN_RIGHT as i32 - 4) as u32)
                .margin_top(t as u32)
                .build_cartesian_2d(0f64..1f64, 0f64..1f64)
                .map_err(draw_err)?;
            (&mut panel, (0, 0))
        }
    };
    entries(target)?;
    target
        .configure_series_labels()
        .position(SeriesLabelPosition::Coordinate(at.0, at.1))
        .margin(LEGEND_PAD)
        .legend_area_size(LEGEND_SAMPLE)
        .label_font((FONT, LEGEND_FONT))
        .background_style(WHITE)
        .border_style(LEGEND_EDGE)
        .draw()
        .map_err(draw_err)
}
