//! What every plot shares: the embedded font, titles, ranges and tick labels, the layout of
//! the canvas (title band, label areas, legend panel) and the chart plotters draws in it.

use std::ops::Range;
use std::sync::OnceLock;

use anyhow::{bail, Result};
use plotters::chart::SeriesLabelPosition;
use plotters::coord::types::RangedCoordf64;
use plotters::data::float::pretty_print_float;
use plotters::element::MultiLineText;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{draw_err, Area, PlotSpec, DESC_FONT, FONT, GRID, HEADROOM, HEIGHT, LEGEND_EDGE};
use super::{LEGEND_FONT, MAX_ABS, NOTE, NOTE_FONT, TICK_FONT, TITLE_FONT, WIDTH};

pub(super) static FONT_DATA: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Registers the embedded font with plotters, which measures text with it.
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
fn fit_size(text: &str, size: u32, max_w: i32) -> u32 {
    let min = size * 6 / 10;
    (min..=size)
        .rev()
        .find(|&s| text_width(text, s) as i32 <= max_w)
        .unwrap_or(min)
}

/// The title in one line, or, when too wide, in two broken at the space nearest its
/// middle; each line shrunk to fit the canvas.
pub(super) fn title_lines(title: &str) -> Vec<(String, u32)> {
    let max_w = WIDTH as i32 - 40;
    let mid = title.len() / 2;
    let spaces = title.match_indices(' ').map(|(i, _)| i);
    let lines = match spaces.min_by_key(|i| i.abs_diff(mid)) {
        Some(at) if text_width(title, TITLE_FONT) as i32 > max_w => {
            vec![&title[..at], &title[at + 1..]]
        }
        _ => vec![title],
    };
    let fit = |l: &str| (l.to_string(), fit_size(l, TITLE_FONT, max_w));
    lines
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(fit)
        .collect()
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

/// Axis bounds around the data's (min, max) in plot coordinates, with headroom: a linear
/// axis includes 0 (headroom away from it); a log one (log10 units) avoids subnormals.
pub(super) fn bounds(data: Option<(f64, f64)>, log: bool) -> (f64, f64) {
    let Some((min, max)) = data else {
        return (0.0, 1.0);
    };
    if log {
        let pad = Some(HEADROOM * (max - min)).filter(|p| *p > 0.0);
        let pad = pad.unwrap_or(0.5);
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

/// The ticks plotters draws on `lo..hi` for at most `n` labels.
pub(super) fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    RangedCoordf64::from(lo..hi).key_points(n)
}

/// Tick labels of an axis on `lo..hi` as plotters prints numbers, scientific (2e5, 1e-7)
/// for large or tiny magnitudes; on a log axis (ticks in log10 units) the value, rounded
/// to 3 significant digits.
pub(super) fn tick_format(lo: f64, hi: f64, log: bool) -> impl Fn(&f64) -> String {
    let (tiny, big) = ((hi - lo).abs() * 1e-9, lo.abs().max(hi.abs()));
    let scientific = move |v: f64| !(1e-3..1e6).contains(&if log { v.abs() } else { big });
    move |v: &f64| {
        let v = match log {
            true => {
                let v = 10f64.powf(*v);
                let unit = 10f64.powi(v.log10().floor() as i32 - 2);
                (v / unit).round() * unit
            }
            false if v.abs() < tiny => 0.0,
            false => *v,
        };
        if v == 0.0 || !scientific(v) {
            return pretty_print_float(v, false);
        }
        let e = v.abs().log10().floor();
        format!("{}e{e}", pretty_print_float(v / 10f64.powf(e), false))
    }
}

// ---------------------------------------------------------------------------
// Layout and chart.

const MARGIN: u32 = 12;
const MARGIN_RIGHT: u32 = 28;
const TICK_LEN: u32 = 6;
const LEGEND_PAD: i32 = 10;
pub(super) const LEGEND_SAMPLE: i32 = 40;

/// Height of an axis title (none when empty).
fn desc_h(text: &str) -> u32 {
    u32::from(!text.is_empty()) * (DESC_FONT + 14)
}

/// Where things go on the canvas, in pixels.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    title_h: u32,
    /// Width of the y label area left of the chart.
    y_area: u32,
    /// Width of the legend panel right of the chart.
    panel_w: u32,
}

impl Layout {
    /// The y label area is as wide as the widest of the y axis' tick labels needs.
    pub(super) fn new(spec: &PlotSpec, y: (f64, f64), panel_w: u32) -> Self {
        let lines = title_lines(spec.title).len() as u32;
        let format = tick_format(y.0, y.1, spec.log_y);
        let labels = ticks(y.0, y.1, 6).into_iter().map(|t| format(&t));
        let widest = labels.map(|l| text_width(&l, TICK_FONT)).max();
        let y_area = widest.unwrap_or(0) + TICK_LEN + 10 + desc_h(spec.y_label);
        let title_h = lines * (TITLE_FONT + 6) + 16 * u32::from(lines > 0);
        let y_area = y_area.min(WIDTH / 3);
        Layout {
            title_h,
            y_area,
            panel_w,
        }
    }

    /// Plot rectangle (left, top, right, bottom).
    pub(super) fn plot_rect(&self, spec: &PlotSpec) -> (i32, i32, i32, i32) {
        let x_area = TICK_LEN + TICK_FONT + 12 + desc_h(spec.x_label);
        let (left, top) = (MARGIN + self.y_area, self.title_h + MARGIN);
        let right = WIDTH
            .saturating_sub(self.panel_w + MARGIN_RIGHT)
            .max(left + 50);
        let bottom = HEIGHT.saturating_sub(MARGIN + x_area).max(top + 50);
        let px = |v: u32| v as i32;
        (px(left), px(top), px(right), px(bottom))
    }

    pub(super) fn plot_width(&self, spec: &PlotSpec) -> f64 {
        let (l, _, r, _) = self.plot_rect(spec);
        f64::from(r - l)
    }
}

pub(super) type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The axes of a chart: ranges in plot coordinates, at most `x_labels` x tick labels
/// (6 on y), how the x ones read, and whether vertical grid lines mark the x ticks.
pub(super) struct Axes<'f> {
    pub(super) x: Range<f64>,
    pub(super) y: Range<f64>,
    pub(super) x_labels: usize,
    pub(super) x_format: &'f dyn Fn(&f64) -> String,
    pub(super) x_grid: bool,
}

/// The title, then the chart in the plot rectangle with its grid, axes, ticks, tick labels
/// and axis titles, ready for data.
pub(super) fn chart<'a, 'b>(
    root: &'a Area<'b>,
    spec: &PlotSpec,
    layout: &Layout,
    axes: &Axes,
) -> Result<Chart<'a, 'b>> {
    for (k, (line, size)) in title_lines(spec.title).iter().enumerate() {
        let font = TextStyle::from((FONT, *size).into_font());
        let at = (WIDTH as i32 / 2, 12 + k as i32 * (TITLE_FONT as i32 + 6));
        let style = font.pos(Pos::new(HPos::Center, VPos::Top));
        root.draw_text(line, &style, at).map_err(draw_err)?;
    }
    let (l, t, r, b) = layout.plot_rect(spec);
    let mut chart = ChartBuilder::on(root)
        .margin_top(t as u32)
        .margin_left(MARGIN)
        .margin_right(WIDTH - r as u32)
        .margin_bottom(MARGIN)
        .y_label_area_size(l as u32 - MARGIN)
        .x_label_area_size(HEIGHT - MARGIN - b as u32)
        .build_cartesian_2d(axes.x.clone(), axes.y.clone())
        .map_err(draw_err)?;
    let y_format = tick_format(axes.y.start, axes.y.end, spec.log_y);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(spec.x_label)
        .y_desc(spec.y_label)
        .label_style((FONT, TICK_FONT))
        .axis_desc_style((FONT, DESC_FONT))
        .bold_line_style(GRID)
        .max_light_lines(0)
        .set_all_tick_mark_size(TICK_LEN)
        .x_labels(axes.x_labels)
        .y_labels(6)
        .x_label_formatter(axes.x_format)
        .y_label_formatter(&y_format);
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
        area.draw(&Text::new("no data", mid, style))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// An interval (error bar, whisker) at `x` from `bottom` (None: below the axis) to `top`,
/// clipped to the chart, with caps `cap` pixels either side at the ends that show.
pub(super) fn interval(
    chart: &mut Chart,
    x: f64,
    (bottom, top): (Option<f64>, f64),
    cap: i32,
    style: ShapeStyle,
) -> Result<()> {
    let y = chart.y_range();
    let bottom = bottom.unwrap_or(y.start).max(y.start);
    let line = PathElement::new(vec![(x, bottom), (x, top.min(y.end))], style);
    let ends = [
        Some(bottom).filter(|v| *v > y.start),
        Some(top).filter(|v| *v <= y.end),
    ];
    let caps = ends
        .into_iter()
        .flatten()
        .map(|v| EmptyElement::at((x, v)) + PathElement::new(vec![(-cap, 0), (cap, 0)], style));
    chart.draw_series([line]).map_err(draw_err)?;
    chart.draw_series(caps).map_err(draw_err)?;
    Ok(())
}

/// Size in pixels of a legend box of these labels, as plotters draws it.
pub(super) fn legend_size(labels: &[&str]) -> (i32, i32) {
    let style = TextStyle::from((FONT, LEGEND_FONT).into_font());
    let mut text = MultiLineText::<(i32, i32), &str>::new((0, 0), style);
    labels.iter().for_each(|l| text.push_line(*l));
    let (w, h) = text.estimate_dimension().unwrap_or((0, 0));
    (w + LEGEND_SAMPLE + 2 * LEGEND_PAD, h + 2 * LEGEND_PAD)
}

/// The legend panel right of the chart: the entries that fit it (the rest summarised in a
/// last "… (n more)" entry, whose sample is None) and its width (0 without entries).
pub(super) fn legend_panel<T: Copy>(
    entries: &[(T, String)],
    spec: &PlotSpec,
) -> (Vec<(Option<T>, String)>, u32) {
    let row = legend_size(&["x", "x"]).1 - legend_size(&["x"]).1;
    let title_h = Layout::new(spec, (0.0, 1.0), 0).title_h as i32;
    let room = HEIGHT as i32 - title_h - 2 * MARGIN as i32 - 2 * LEGEND_PAD;
    let fit = (room / row.max(1)).max(1) as usize;
    let mut shown: Vec<_> = entries.iter().map(|(t, l)| (Some(*t), l.clone())).collect();
    if shown.len() > fit {
        let hidden = shown.len() + 1 - fit;
        shown.truncate(fit - 1);
        shown.push((None, format!("… ({hidden} more)")));
    }
    let labels: Vec<&str> = shown.iter().map(|e| e.1.as_str()).collect();
    let width = if shown.is_empty() {
        0
    } else {
        legend_size(&labels).0 + 4
    };
    (shown, width.min(400) as u32)
}

/// Draws the legend in the panel right of the plot area: `entries` labels series on a
/// chart over the panel (plotters clips a legend to its chart), which plotters then draws
/// as a box with their samples.
pub(super) fn legend<'a, 'b: 'a>(
    root: &'a Area<'b>,
    spec: &PlotSpec,
    layout: &Layout,
    entries: impl Fn(&mut Chart<'a, 'b>) -> Result<()>,
) -> Result<()> {
    let (_, t, r, _) = layout.plot_rect(spec);
    let mut panel = ChartBuilder::on(root)
        .margin_left((r + MARGIN_RIGHT as i32 - 4) as u32)
        .margin_top(t as u32)
        .build_cartesian_2d(0f64..1f64, 0f64..1f64)
        .map_err(draw_err)?;
    entries(&mut panel)?;
    panel
        .configure_series_labels()
        .position(SeriesLabelPosition::Coordinate(0, 0))
        .margin(LEGEND_PAD)
        .legend_area_size(LEGEND_SAMPLE)
        .label_font((FONT, LEGEND_FONT))
        .background_style(WHITE)
        .border_style(LEGEND_EDGE)
        .draw()
        .map_err(draw_err)
}
