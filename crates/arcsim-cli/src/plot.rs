//! Publication-quality plots (SVG + PNG) of simulation results.
//!
//! Every plot is written twice from the same layout: `<stem>.svg` for papers
//! (vector, text stays text) and `<stem>.png` for quick looks. The layout
//! (ranges, ticks, legend placement) is computed once, independently of the
//! backend, so both files show the same picture.
//!
//! Text is rendered with an embedded DejaVu Sans so that PNG output works on
//! machines without any system fonts (CI containers, compute nodes). Axes,
//! ticks and all text are drawn here rather than by plotters' mesh, because
//! plotters' ab_glyph rasteriser ignores each glyph's left side bearing
//! ("d ragonfly"); PNG text is laid out and rasterised with ab_glyph here
//! (see `Canvas::raster`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, GlyphId, ScaleFont};
use anyhow::{anyhow, bail, Context, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

/// One labelled series of a line plot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Curve {
    pub label: String,
    pub points: Vec<Point>,
}

/// A data point; `ci` is the 95% confidence half-width, drawn as a vertical
/// error bar when it is `Some` and positive. When no point of a plot is
/// negative (loads, latencies, times), error bars stop at zero: a t-interval
/// over a few seeds that disagree (one run collapsed, the others not) can reach
/// below zero, which such a quantity cannot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub ci: Option<f64>,
}

/// One bar of a bar chart; `label` goes under the bar on the x axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
}

/// One series of a grouped bar chart: one value per group. NaN draws no bar (nothing to
/// show); +infinity draws an open bar running off the top of the chart, for a run that did
/// not finish (a burst not consumed within `simulation.max_cycles`), with a legend entry
/// saying so.
///
/// `errors` holds, per group, the half-width of an interval drawn as a whisker over the bar
/// (e.g. the 95% confidence interval over seeds); a missing, non-finite or non-positive
/// entry draws none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BarSeries {
    pub label: String,
    pub values: Vec<f64>,
    pub errors: Vec<f64>,
}

/// Texts and scale of a plot.
#[derive(Clone, Copy, Debug)]
pub struct PlotSpec<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub log_y: bool,
}

/// Line plot with markers, one colour+marker per curve, and a legend.
///
/// Writes `<stem>.svg` and `<stem>.png` (the extensions are appended, so a
/// stem like `out/lat.mesh` keeps its dot), creating the parent directory if
/// needed. Points with non-finite (or absurdly large, |v| > 1e300)
/// coordinates are skipped and break the line; with `log_y`, points with
/// `y <= 0` are skipped too. Points are connected in the order given. Curves
/// with an empty label are drawn but left out of the legend.
pub fn line_plot(stem: &Path, spec: &PlotSpec, curves: &[Curve]) -> Result<()> {
    ensure_font()?;
    let plot = LinePlot::new(spec, curves);
    write_outputs(stem, &plot)
}

/// Bar chart, e.g. packets injected per router or a hop-count histogram.
///
/// Same outputs as [`line_plot`]. Bars keep their slot (and label) even when
/// their value cannot be drawn (non-finite, or `<= 0` with `log_y`). With
/// many bars only every k-th label is shown so that labels never overlap.
pub fn bar_plot(stem: &Path, spec: &PlotSpec, bars: &[Bar]) -> Result<()> {
    ensure_font()?;
    let plot = BarPlot::new(spec, bars);
    write_outputs(stem, &plot)
}

/// Grouped bar chart: for each group (x-axis category, e.g. a traffic pattern) one bar per series
/// (e.g. a routing algorithm), series distinguished by colour and named in a legend. Optional horizontal
/// reference line at `reference` (e.g. 1.0 when values are normalised to a baseline), drawn dashed or thin grey.
/// Same outputs as `line_plot` (`<stem>.svg` and `<stem>.png`).
///
/// The bars of a group stand side by side, in series order, centred under
/// the group's label, with a gap between groups. The legend (series with an
/// empty label are left out of it) sits in a panel right of the chart, so it
/// never covers a bar. The reference line is drawn dashed, over the bars,
/// and always lies inside the y range; a reference that cannot be drawn (the
/// same rule as for values) is left out.
///
/// * A value that cannot be drawn (non-finite, |v| > 1e300, or `<= 0` with
///   `log_y`) leaves its slot empty; the other bars keep their places.
/// * A series with fewer values than there are groups is treated as if the
///   missing values were NaN (no bar); values beyond the last group are
///   ignored.
/// * `log_y` is honoured as in [`bar_plot`]: bars grow from the bottom of the
///   log axis. Otherwise the y axis starts at 0 (or below, for negative
///   values, whose bars grow downwards from 0).
/// * Empty `groups` or `series`, or nothing drawable, is not an error: the
///   chart is written with its axes, legend and reference line, and a
///   "no data" note.
pub fn grouped_bar_plot(
    stem: &Path,
    spec: &PlotSpec,
    groups: &[String],
    series: &[BarSeries],
    reference: Option<f64>,
) -> Result<()> {
    ensure_font()?;
    let plot = GroupedBarPlot::new(spec, groups, series, reference);
    write_outputs(stem, &plot)
}

// ---------------------------------------------------------------------------
// Style constants. Sizes are in pixels of the 1000x700 canvas; they are large
// enough to stay readable when the figure is shrunk to one paper column.
// Font sizes are plotters' sizes (ascender-to-descender height); the em is
// about 0.86 of that for DejaVu Sans.

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 700;
const FONT: &str = "sans-serif";
const TITLE_FONT: u32 = 26;
const DESC_FONT: u32 = 22;
const TICK_FONT: u32 = 18;
const LEGEND_FONT: u32 = 18;
const NOTE_FONT: u32 = 26;
const TICK_LEN: i32 = 6;
/// Gap between a tick mark's end and its label.
const TICK_GAP: i32 = 4;

const MARGIN_TOP: u32 = 14;
const MARGIN_RIGHT: u32 = 28;
const MARGIN_BOTTOM: u32 = 10;
const MARGIN_LEFT: u32 = 10;

/// Fraction of the data span added as headroom on the side(s) away from 0.
const HEADROOM: f64 = 0.05;
/// Values beyond this are treated like infinities: they cannot be laid out
/// without overflowing the range arithmetic, and are meaningless in a plot.
const MAX_ABS: f64 = 1e300;

const MARKER_R: i32 = 5;
const LINE_W: u32 = 2;

const LEGEND_PAD: i32 = 10;
const LEGEND_ROW: i32 = 28;
const LEGEND_SAMPLE: i32 = 40;
const LEGEND_GAP: i32 = 10;
const LEGEND_COL_GAP: i32 = 18;
const LEGEND_INSET: i32 = 10;
const LEGEND_MAX_CHARS: usize = 40;

const GRID: RGBColor = RGBColor(225, 225, 225);
const NOTE: RGBColor = RGBColor(110, 110, 110);
const LEGEND_EDGE: RGBColor = RGBColor(90, 90, 90);

/// Okabe-Ito palette (colour-blind safe), ordered so that the first colours
/// are the most distinct on white; the pale yellow comes last.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
];

/// Marker shapes; 7 shapes against 8 colours gives 56 distinct pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
}

const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
];

/// Style of the i-th curve; it depends only on the index so that the same
/// configuration keeps its look across the plots of one experiment.
fn curve_style(i: usize) -> (RGBColor, Marker) {
    (PALETTE[i % PALETTE.len()], MARKERS[i % MARKERS.len()])
}

// ---------------------------------------------------------------------------
// Font.

static FONT_DATA: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The embedded font, parsed once by ab_glyph.
fn parsed_font() -> Option<&'static FontRef<'static>> {
    static FONT_REF: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT_REF
        .get_or_init(|| FontRef::try_from_slice(FONT_DATA).ok())
        .as_ref()
}

/// Fails if the embedded font does not parse. The public entry points call
/// this before laying anything out, so that [`font`] cannot panic.
fn ensure_font() -> Result<()> {
    match parsed_font() {
        Some(_) => Ok(()),
        None => bail!("the embedded DejaVu Sans font could not be loaded"),
    }
}

/// The embedded font.
fn font() -> &'static FontRef<'static> {
    parsed_font().expect("ensure_font() succeeded")
}

/// Pixels per font unit at a plotters font size: like plotters, ab_glyph
/// maps the font's ascent-to-descent height to `size` pixels.
fn px_per_unit(size: u32) -> f64 {
    f64::from(size) / f64::from(font().height_unscaled())
}

/// Glyphs of `text` with their pen x (kerning applied), in pixels, plus the
/// total advance width.
fn layout(text: &str, size: u32) -> (Vec<(GlyphId, f64)>, f64) {
    let font = font();
    let scale = px_per_unit(size);
    let mut pen = 0.0;
    let mut prev = None;
    let glyphs = text
        .chars()
        .map(|c| {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += f64::from(font.kern_unscaled(p, id)) * scale;
            }
            prev = Some(id);
            let at = pen;
            pen += f64::from(font.h_advance_unscaled(id)) * scale;
            (id, at)
        })
        .collect();
    (glyphs, pen)
}

/// Width in pixels of `text` at `size`, as it will be laid out.
fn text_width(text: &str, size: u32) -> u32 {
    layout(text, size).1.ceil() as u32
}

/// Largest size <= `size` (down to 60% of it) at which `text` fits in
/// `max_w` pixels; long titles shrink instead of running off the canvas.
fn fit_size(text: &str, size: u32, max_w: i32) -> u32 {
    let min = size * 6 / 10;
    let mut s = size;
    while s > min && text_width(text, s) as i32 > max_w {
        s -= 1;
    }
    s
}

/// `text` cut to `max_chars` characters, the last one an ellipsis when cut.
pub(crate) fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max_chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

// ---------------------------------------------------------------------------
// Canvas: the root drawing area plus how text goes on it.

/// Text appearance and anchoring. The anchor semantics are those of
/// plotters' SVG backend (Top: baseline 0.76 em down; Center: baseline
/// 0.5 ex down; Bottom: baseline 0.5 ex up), which PNG text mirrors.
#[derive(Clone, Copy)]
struct Txt {
    size: u32,
    colour: RGBColor,
    h: HPos,
    v: VPos,
    /// Rotated 90° counter-clockwise (reads bottom to top).
    rotate: bool,
}

impl Txt {
    fn new(size: u32, h: HPos, v: VPos) -> Self {
        Txt {
            size,
            colour: BLACK,
            h,
            v,
            rotate: false,
        }
    }
}

struct Canvas<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
    /// Rasterise glyphs here (PNG) rather than emitting text (SVG).
    raster_text: bool,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    fn text(&self, text: &str, pos: (i32, i32), t: Txt) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.raster_text {
            return self.raster(text, pos, t);
        }
        // SVG: size the font so that its em matches the PNG's (plotters
        // writes font-size = size / 1.24).
        let units_per_em = f64::from(font().units_per_em().unwrap_or(0.0));
        let size = 1.24 * f64::from(t.size) * units_per_em / f64::from(font().height_unscaled());
        let style = (FONT, size)
            .into_font()
            .transform(if t.rotate {
                FontTransform::Rotate270
            } else {
                FontTransform::None
            })
            .color(&t.colour)
            .pos(Pos::new(t.h, t.v));
        self.root.draw_text(text, &style, pos).map_err(draw_err)
    }

    /// Rasterises text with ab_glyph, each glyph at its pen position plus its
    /// side bearing (plotters' ab_glyph text drawing drops the bearing).
    fn raster(&self, text: &str, pos: (i32, i32), t: Txt) -> Result<()> {
        let font = font();
        let scale = px_per_unit(t.size);
        let (glyphs, width) = layout(text, t.size);
        let dx = match t.h {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        // Top of the 'x' glyph's ink, in font units (outline bounds are y-up,
        // so `min.y` is its y_max).
        let x_height = || {
            f64::from(
                font.outline(font.glyph_id('x'))
                    .map_or(0.0, |o| o.bounds.min.y),
            )
        };
        let baseline = match t.v {
            VPos::Top => 0.76 * f64::from(font.units_per_em().unwrap_or(0.0)),
            VPos::Center => 0.5 * x_height(),
            VPos::Bottom => -0.5 * x_height(),
        };
        let baseline = (baseline * scale).round() as f32;
        let scaled = font.as_scaled(t.size as f32);
        let mut pixels = Vec::new();
        for (id, pen) in glyphs {
            let at = point((pen + dx).round() as f32, baseline);
            let Some(glyph) = scaled.outline_glyph(id.with_scale_and_position(scaled.scale(), at))
            else {
                continue;
            };
            let min = glyph.px_bounds().min;
            glyph.draw(|x, y, a| {
                if a > 0.0 {
                    pixels.push((min.x as i32 + x as i32, min.y as i32 + y as i32, a));
                }
            });
        }
        for (x, y, a) in pixels {
            let (x, y) = if t.rotate { (y, -x) } else { (x, y) };
            let colour = t.colour.mix(f64::from(a.min(1.0)));
            self.root
                .draw_pixel((pos.0 + x, pos.1 + y), &colour)
                .map_err(draw_err)?;
        }
        Ok(())
    }

    fn line(&self, points: Vec<(i32, i32)>, style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&PathElement::new(points, style))
            .map_err(draw_err)
    }

    fn rect(&self, a: (i32, i32), b: (i32, i32), style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&Rectangle::new([a, b], style))
            .map_err(draw_err)
    }

    fn polygon(&self, points: Vec<(i32, i32)>, style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&Polygon::new(points, style))
            .map_err(draw_err)
    }
}

// ---------------------------------------------------------------------------
// Output.

/// Something that can draw itself on any plotters backend.
trait Render {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()>;
}

fn with_suffix(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Plotters errors are generic over the backend; flatten them to text.
fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing failed: {e:?}")
}

/// Renders, turning a panic inside plotters into an error: a plot is never
/// worth aborting a long simulation campaign for.
fn render_guarded<R: Render, DB: DrawingBackend>(plot: &R, canvas: &Canvas<DB>) -> Result<()> {
    catch_unwind(AssertUnwindSafe(|| plot.render(canvas)))
        .map_err(|_| anyhow!("the plotting library panicked"))?
}

fn write_outputs<R: Render>(stem: &Path, plot: &R) -> Result<()> {
    if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating directory {}", dir.display()))?;
    }

    let svg_path = with_suffix(stem, "svg");
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let canvas = Canvas {
            root: &root,
            raster_text: false,
        };
        render_guarded(plot, &canvas)
            .with_context(|| format!("rendering {}", svg_path.display()))?;
        root.present()
            .map_err(draw_err)
            .with_context(|| format!("rendering {}", svg_path.display()))?;
    }
    std::fs::write(&svg_path, svg).with_context(|| format!("writing {}", svg_path.display()))?;

    let png_path = with_suffix(stem, "png");
    let root = BitMapBackend::new(&png_path, (WIDTH, HEIGHT)).into_drawing_area();
    let canvas = Canvas {
        root: &root,
        raster_text: true,
    };
    render_guarded(plot, &canvas).with_context(|| format!("rendering {}", png_path.display()))?;
    root.present()
        .map_err(draw_err)
        .with_context(|| format!("writing {}", png_path.display()))?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Axes and ticks.

/// An axis in plot coordinates (log10 of the value for log axes), with
/// tick positions and their labels.
#[derive(Clone, Debug)]
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<(f64, String)>,
}

impl Axis {
    fn linear(lo: f64, hi: f64, target_ticks: usize) -> Self {
        Axis {
            lo,
            hi,
            ticks: linear_ticks(lo, hi, target_ticks),
        }
    }

    fn log(lo: f64, hi: f64) -> Self {
        Axis {
            lo,
            hi,
            ticks: log_ticks(lo, hi),
        }
    }

    /// Position of `v` as a fraction of the axis length.
    fn frac(&self, v: f64) -> f64 {
        (v - self.lo) / (self.hi - self.lo)
    }

    fn max_label_width(&self) -> u32 {
        self.ticks
            .iter()
            .map(|t| text_width(&t.1, TICK_FONT))
            .max()
            .unwrap_or(0)
    }
}

/// Linear bounds that include 0, with headroom on the side(s) away from 0.
fn linear_bounds(data: Option<(f64, f64)>) -> (f64, f64) {
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
fn log_bounds(data: Option<(f64, f64)>) -> (f64, f64) {
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

fn usable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_ABS
}

/// Plot-coordinate y of a data value (log10 on a log axis), or None if it cannot be drawn.
fn plot_y(v: f64, log_y: bool) -> Option<f64> {
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
struct Extent(Option<(f64, f64)>);

impl Extent {
    fn add(&mut self, v: f64) {
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
struct Geometry {
    title_h: u32,
    /// Width of the panel right of the chart that holds an outside legend.
    legend_panel_w: u32,
    x_area: u32,
    y_area: u32,
    has_x_desc: bool,
}

impl Geometry {
    fn new(spec: &PlotSpec, y: &Axis, legend_panel_w: u32) -> Self {
        let title_h = if spec.title.is_empty() {
            0
        } else {
            TITLE_FONT * 2
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
    fn plot_rect(&self) -> (u32, u32, u32, u32) {
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
    fn plot_size(&self) -> (u32, u32) {
        let (l, t, r, b) = self.plot_rect();
        (r - l, b - t)
    }
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Background, title and grid; returns the chart to draw data on.
fn draw_background<'a, DB: DrawingBackend>(
    canvas: &Canvas<'a, DB>,
    title: &str,
    geo: &Geometry,
    x: &Axis,
    y: &Axis,
    x_grid: bool,
) -> Result<Chart<'a, DB>> {
    canvas.root.fill(&WHITE).map_err(draw_err)?;
    if geo.title_h > 0 {
        let size = fit_size(title, TITLE_FONT, WIDTH as i32 - 40);
        let t = Txt::new(size, HPos::Center, VPos::Center);
        canvas.text(title, (WIDTH as i32 / 2, geo.title_h as i32 / 2 + 4), t)?;
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
fn corners<DB: DrawingBackend>(chart: &Chart<DB>, x: &Axis, y: &Axis) -> ((i32, i32), (i32, i32)) {
    (
        chart.backend_coord(&(x.lo, y.hi)),
        chart.backend_coord(&(x.hi, y.lo)),
    )
}

/// Axes box, ticks, tick labels, axis titles and the "no data" note; drawn
/// after the data so the axes stay on top.
#[allow(clippy::too_many_arguments)]
fn draw_axes<DB: DrawingBackend>(
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

// ---------------------------------------------------------------------------
// Line plots.

/// A curve in plot coordinates (y is log10(y) on a log axis).
struct PreparedCurve {
    colour: RGBColor,
    marker: Marker,
    /// Runs of consecutive usable points; skipped points break the line.
    runs: Vec<Vec<(f64, f64)>>,
    /// (x, bottom, top); bottom is None when it falls below a log axis.
    error_bars: Vec<(f64, Option<f64>, f64)>,
}

/// Something drawn in the plot that the legend must not cover: a segment
/// in plot coordinates plus a clearance in pixels.
#[derive(Clone, Copy)]
struct Obstacle {
    a: (f64, f64),
    b: (f64, f64),
    pad: f64,
}

#[derive(Clone, Debug)]
struct LegendEntry {
    label: String,
    /// None for the "… (n more)" line, which has no sample.
    style: Option<Sample>,
}

/// What a legend entry shows left of its label.
#[derive(Clone, Copy, Debug)]
enum Sample {
    /// A line with a marker on it (line plots).
    Line(RGBColor, Marker),
    /// A filled, outlined box (bar charts).
    Swatch(RGBColor),
    /// An open box with an upward arrowhead: a bar that runs off the top (did not finish).
    OpenSwatch(RGBColor),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum LegendPlace {
    /// Top-left corner, in pixels from the plot area's top-left corner.
    Inside(i32, i32),
    /// In a panel right of the chart.
    Outside,
}

/// Legend contents and box size, laid out column by column.
#[derive(Clone, Debug)]
struct Legend {
    entries: Vec<LegendEntry>,
    rows: usize,
    col_w: i32,
    w: i32,
    h: i32,
}

impl Legend {
    fn column_width(entries: &[LegendEntry]) -> i32 {
        let text_w = entries
            .iter()
            .map(|e| text_width(&e.label, LEGEND_FONT))
            .max()
            .unwrap_or(0) as i32;
        LEGEND_SAMPLE + LEGEND_GAP + text_w
    }

    fn height(rows: usize) -> i32 {
        2 * LEGEND_PAD + rows as i32 * LEGEND_ROW - (LEGEND_ROW - LEGEND_FONT as i32) / 2
    }

    fn single_column(entries: Vec<LegendEntry>) -> Self {
        let col_w = Self::column_width(&entries);
        Legend {
            rows: entries.len(),
            col_w,
            w: 2 * LEGEND_PAD + col_w,
            h: Self::height(entries.len()),
            entries,
        }
    }

    /// Multi-column layout for a panel of at most `max_w` x `max_h` pixels;
    /// entries that do not fit are summarised in a last "… (n more)" row.
    fn panel(mut entries: Vec<LegendEntry>, max_w: i32, max_h: i32) -> Self {
        let col_w = Self::column_width(&entries);
        let rows_fit = ((max_h - 2 * LEGEND_PAD) / LEGEND_ROW).max(1) as usize;
        let cols_fit =
            ((max_w - 2 * LEGEND_PAD + LEGEND_COL_GAP) / (col_w + LEGEND_COL_GAP)).max(1) as usize;
        let capacity = rows_fit * cols_fit;
        if entries.len() > capacity {
            let hidden = entries.len() + 1 - capacity;
            entries.truncate(capacity - 1);
            entries.push(LegendEntry {
                label: format!("… ({hidden} more)"),
                style: None,
            });
        }
        let rows = entries.len().min(rows_fit);
        let cols = entries.len().div_ceil(rows.max(1)) as i32;
        Legend {
            rows,
            col_w,
            w: 2 * LEGEND_PAD + cols * col_w + (cols - 1) * LEGEND_COL_GAP,
            h: Self::height(rows),
            entries,
        }
    }

    /// Draws the legend with its top-left corner at (x0, y0) on the canvas.
    fn draw<DB: DrawingBackend>(&self, canvas: &Canvas<DB>, x0: i32, y0: i32) -> Result<()> {
        let rect = [(x0, y0), (x0 + self.w, y0 + self.h)];
        let root = canvas.root;
        root.draw(&Rectangle::new(rect, WHITE.filled()))
            .map_err(draw_err)?;
        root.draw(&Rectangle::new(rect, LEGEND_EDGE.stroke_width(1)))
            .map_err(draw_err)?;
        let rows = self.rows.max(1);
        for (i, e) in self.entries.iter().enumerate() {
            let col = (i / rows) as i32;
            let row = (i % rows) as i32;
            let sx = x0 + LEGEND_PAD + col * (self.col_w + LEGEND_COL_GAP);
            let cy = y0 + LEGEND_PAD + row * LEGEND_ROW + LEGEND_FONT as i32 / 2;
            match e.style {
                Some(Sample::Line(colour, marker)) => {
                    canvas.line(
                        vec![(sx, cy), (sx + LEGEND_SAMPLE, cy)],
                        colour.stroke_width(LINE_W),
                    )?;
                    root.draw(&marker_elem::<DB, _>(
                        (sx + LEGEND_SAMPLE / 2, cy),
                        marker,
                        colour,
                    ))
                    .map_err(draw_err)?;
                }
                Some(Sample::Swatch(colour)) => {
                    let h = LEGEND_FONT as i32 / 2;
                    let rect = [
                        (sx + LEGEND_SAMPLE - 3 * h, cy - h),
                        (sx + LEGEND_SAMPLE, cy + h),
                    ];
                    root.draw(&Rectangle::new(rect, colour.filled()))
                        .map_err(draw_err)?;
                    root.draw(&Rectangle::new(rect, BLACK.stroke_width(1)))
                        .map_err(draw_err)?;
                }
                Some(Sample::OpenSwatch(colour)) => {
                    let h = LEGEND_FONT as i32 / 2;
                    let (l, r) = (sx + LEGEND_SAMPLE - 3 * h, sx + LEGEND_SAMPLE);
                    root.draw(&Rectangle::new(
                        [(l, cy - h), (r, cy + h)],
                        colour.stroke_width(OPEN_BAR_W),
                    ))
                    .map_err(draw_err)?;
                    root.draw(&Polygon::new(
                        vec![((l + r) / 2, cy - h), (l, cy + h / 2), (r, cy + h / 2)],
                        colour.filled(),
                    ))
                    .map_err(draw_err)?;
                }
                None => {}
            }
            let t = Txt::new(LEGEND_FONT, HPos::Left, VPos::Center);
            canvas.text(&e.label, (sx + LEGEND_SAMPLE + LEGEND_GAP, cy), t)?;
        }
        Ok(())
    }
}

struct LinePlot {
    title: String,
    x_label: String,
    y_label: String,
    log_y: bool,
    x: Axis,
    y: Axis,
    curves: Vec<PreparedCurve>,
    legend: Option<(Legend, LegendPlace)>,
    geo: Geometry,
    no_data: bool,
}

impl LinePlot {
    fn new(spec: &PlotSpec, curves: &[Curve]) -> Self {
        let log_y = spec.log_y;
        let ty = |y: f64| plot_y(y, log_y);

        let mut x_ext = Extent::default();
        let mut y_ext = Extent::default();
        let mut prepared = Vec::with_capacity(curves.len());
        let nonnegative = curves
            .iter()
            .flat_map(|c| &c.points)
            .filter(|p| usable(p.x) && usable(p.y))
            .all(|p| p.y >= 0.0);
        for (i, c) in curves.iter().enumerate() {
            let (colour, marker) = curve_style(i);
            let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            let mut error_bars = Vec::new();
            for p in &c.points {
                let (x, y) = match (usable(p.x), ty(p.y)) {
                    (true, Some(y)) => (p.x, y),
                    _ => {
                        if runs.last().is_some_and(|r| !r.is_empty()) {
                            runs.push(Vec::new());
                        }
                        continue;
                    }
                };
                x_ext.add(x);
                y_ext.add(y);
                if let Some(run) = runs.last_mut() {
                    run.push((x, y));
                }
                if let Some(ci) = p.ci.filter(|ci| *ci > 0.0 && usable(*ci)) {
                    if let Some(top) = ty(p.y + ci) {
                        let low = if nonnegative {
                            (p.y - ci).max(0.0)
                        } else {
                            p.y - ci
                        };
                        let bottom = ty(low);
                        y_ext.add(top);
                        if let Some(b) = bottom {
                            y_ext.add(b);
                        }
                        error_bars.push((x, bottom, top));
                    }
                }
            }
            runs.retain(|r| !r.is_empty());
            prepared.push(PreparedCurve {
                colour,
                marker,
                runs,
                error_bars,
            });
        }

        let no_data = x_ext.0.is_none();
        let (xlo, xhi) = linear_bounds(x_ext.0);
        // Final x ticks are fitted to the plot width once the legend is placed.
        let x = Axis::linear(xlo, xhi, 7);
        let (ylo, yhi) = if log_y {
            log_bounds(y_ext.0)
        } else {
            linear_bounds(y_ext.0)
        };
        let make_y = |lo: f64, hi: f64| {
            if log_y {
                Axis::log(lo, hi)
            } else {
                Axis::linear(lo, hi, 6)
            }
        };
        let y = make_y(ylo, yhi);

        let entries: Vec<LegendEntry> = curves
            .iter()
            .zip(&prepared)
            .filter(|(c, _)| !c.label.is_empty())
            .map(|(c, p)| LegendEntry {
                label: truncate(&c.label, LEGEND_MAX_CHARS),
                style: Some(Sample::Line(p.colour, p.marker)),
            })
            .collect();

        let obstacles = obstacles(&prepared);
        let mut plot = LinePlot {
            title: spec.title.to_string(),
            x_label: spec.x_label.to_string(),
            y_label: spec.y_label.to_string(),
            log_y,
            geo: Geometry::new(spec, &y, 0),
            x,
            y,
            curves: prepared,
            legend: None,
            no_data,
        };
        if !entries.is_empty() {
            plot.place_legend(spec, entries, &obstacles, make_y);
        }
        plot.x = fit_x_ticks(xlo, xhi, 7, plot.geo.plot_size().0);
        plot
    }

    /// Puts the legend in the first free corner (upper-left preferred);
    /// failing that, raises the top of the y axis to make room above the
    /// data; failing that (huge legends), moves it to a panel on the right.
    fn place_legend(
        &mut self,
        spec: &PlotSpec,
        entries: Vec<LegendEntry>,
        obstacles: &[Obstacle],
        make_y: impl Fn(f64, f64) -> Axis,
    ) {
        let legend = Legend::single_column(entries.clone());
        // A raise changes the tick labels and so the plot width: re-check.
        for _attempt in 0..3 {
            let (pw, ph) = self.geo.plot_size();
            let (pw, ph) = (pw as i32, ph as i32);
            if legend.w + 2 * LEGEND_INSET > pw || legend.h + 2 * LEGEND_INSET > ph * 6 / 10 {
                break;
            }
            let corners = [
                (LEGEND_INSET, LEGEND_INSET),
                (pw - LEGEND_INSET - legend.w, LEGEND_INSET),
                (pw - LEGEND_INSET - legend.w, ph - LEGEND_INSET - legend.h),
                (LEGEND_INSET, ph - LEGEND_INSET - legend.h),
            ];
            let px = |x: f64| self.x.frac(x) * f64::from(pw);
            let py = |y: f64| (1.0 - self.y.frac(y)) * f64::from(ph);
            let free = corners.iter().copied().find(|&(cx, cy)| {
                let rect = (
                    f64::from(cx),
                    f64::from(cy),
                    f64::from(cx + legend.w),
                    f64::from(cy + legend.h),
                );
                !obstacles.iter().any(|o| {
                    let r = (
                        rect.0 - o.pad,
                        rect.1 - o.pad,
                        rect.2 + o.pad,
                        rect.3 + o.pad,
                    );
                    segment_hits_rect((px(o.a.0), py(o.a.1)), (px(o.b.0), py(o.b.1)), r)
                })
            });
            if let Some((cx, cy)) = free {
                self.legend = Some((legend, LegendPlace::Inside(cx, cy)));
                return;
            }
            // Raise the top of the axis so the data under a top corner ends
            // below the legend; take the corner needing the smaller raise.
            let needed = |cx: i32| -> f64 {
                let (xa, xb) = (f64::from(cx), f64::from(cx + legend.w));
                let mut hi = self.y.hi;
                for o in obstacles {
                    let clear = f64::from(LEGEND_INSET + legend.h) + o.pad + 4.0;
                    let q = 1.0 - clear / f64::from(ph);
                    let top = max_y_over_x_span(o, &px, xa - o.pad, xb + o.pad);
                    if let Some(t) = top.filter(|t| *t > self.y.lo) {
                        hi = hi.max(self.y.lo + (t - self.y.lo) / q);
                    }
                }
                hi
            };
            let new_hi = needed(corners[0].0).min(needed(corners[1].0));
            // More than doubling the span would squash the data too much.
            if !(new_hi.is_finite() && new_hi - self.y.lo <= 2.0 * (self.y.hi - self.y.lo)) {
                break;
            }
            let cap = if self.log_y { 307.0 } else { 2.0 * MAX_ABS };
            self.y = make_y(self.y.lo, new_hi.min(cap));
            self.geo = Geometry::new(spec, &self.y, 0);
        }

        // Outside: a panel on the right, at most 40% of the width.
        let max_w = (WIDTH as i32) * 4 / 10;
        let max_h = HEIGHT as i32 - self.geo.title_h as i32 - 2 * MARGIN_TOP as i32;
        let legend = Legend::panel(entries, max_w, max_h);
        self.geo = Geometry::new(spec, &self.y, (legend.w + 4) as u32);
        self.legend = Some((legend, LegendPlace::Outside));
    }
}

/// Linear x ticks, fewer of them if their labels would touch.
fn fit_x_ticks(lo: f64, hi: f64, target: usize, plot_w: u32) -> Axis {
    let mut target = target;
    loop {
        let axis = Axis::linear(lo, hi, target);
        let spacing = match axis.ticks.as_slice() {
            [a, b, ..] => f64::from(plot_w) * (b.0 - a.0) / (hi - lo),
            _ => f64::INFINITY,
        };
        if target <= 2 || f64::from(axis.max_label_width()) + 12.0 <= spacing {
            return axis;
        }
        target -= 1;
    }
}

/// All drawn features of the curves, for the legend placement.
fn obstacles(curves: &[PreparedCurve]) -> Vec<Obstacle> {
    let mut out = Vec::new();
    for c in curves {
        for run in &c.runs {
            for w in run.windows(2) {
                out.push(Obstacle {
                    a: w[0],
                    b: w[1],
                    pad: f64::from(LINE_W) + 2.0,
                });
            }
            for &p in run {
                out.push(Obstacle {
                    a: p,
                    b: p,
                    pad: f64::from(MARKER_R) + 3.0,
                });
            }
        }
        for &(x, bottom, top) in &c.error_bars {
            // A bar cut off by a log axis runs to the bottom of the plot.
            let b = bottom.unwrap_or(-1e308);
            out.push(Obstacle {
                a: (x, b),
                b: (x, top),
                pad: 6.0,
            });
        }
    }
    out
}

/// Liang-Barsky: does the segment p0-p1 touch the rectangle (x0, y0, x1, y1)?
fn segment_hits_rect(p0: (f64, f64), p1: (f64, f64), r: (f64, f64, f64, f64)) -> bool {
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, p0.0 - r.0),
        (dx, r.2 - p0.0),
        (-dy, p0.1 - r.1),
        (dy, r.3 - p0.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                if t > t1 {
                    return false;
                }
                t0 = t0.max(t);
            } else {
                if t < t0 {
                    return false;
                }
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// Highest plot-y of the part of the obstacle whose pixel x is in [xa, xb].
fn max_y_over_x_span(o: &Obstacle, px: &impl Fn(f64) -> f64, xa: f64, xb: f64) -> Option<f64> {
    let (x0, x1) = (px(o.a.0), px(o.b.0));
    let (lo_x, hi_x) = (x0.min(x1), x0.max(x1));
    if hi_x < xa || lo_x > xb {
        return None;
    }
    if x1 == x0 {
        return Some(o.a.1.max(o.b.1));
    }
    // y is linear in x along the segment; evaluate it at the clipped ends.
    let at = |x: f64| {
        let t = ((x - x0) / (x1 - x0)).clamp(0.0, 1.0);
        o.a.1 + t * (o.b.1 - o.a.1)
    };
    Some(at(lo_x.max(xa)).max(at(hi_x.min(xb))))
}

/// A marker of the given shape centred on `at` (any coordinate system).
fn marker_elem<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
    at: C,
    m: Marker,
    colour: RGBColor,
) -> DynElement<'a, DB, C> {
    let r = MARKER_R;
    let fill = colour.filled();
    let stroke = colour.stroke_width(2);
    let e = EmptyElement::at(at);
    match m {
        Marker::Circle => (e + Circle::new((0, 0), r, fill)).into_dyn(),
        Marker::Square => {
            let s = r - 1;
            (e + Rectangle::new([(-s, -s), (s, s)], fill)).into_dyn()
        }
        Marker::TriangleUp => {
            let pts = vec![(0, -r - 1), (r + 1, r - 1), (-r - 1, r - 1)];
            (e + Polygon::new(pts, fill)).into_dyn()
        }
        Marker::TriangleDown => {
            let pts = vec![(0, r + 1), (r + 1, -r + 1), (-r - 1, -r + 1)];
            (e + Polygon::new(pts, fill)).into_dyn()
        }
        Marker::Diamond => {
            let s = r + 1;
            (e + Polygon::new(vec![(0, -s), (s, 0), (0, s), (-s, 0)], fill)).into_dyn()
        }
        Marker::Cross => (e
            + PathElement::new(vec![(-r, -r), (r, r)], stroke)
            + PathElement::new(vec![(-r, r), (r, -r)], stroke))
        .into_dyn(),
        Marker::Plus => {
            let s = r + 1;
            (e + PathElement::new(vec![(-s, 0), (s, 0)], stroke)
                + PathElement::new(vec![(0, -s), (0, s)], stroke))
            .into_dyn()
        }
    }
}

impl LinePlot {
    fn spec(&self) -> PlotSpec<'_> {
        PlotSpec {
            title: &self.title,
            x_label: &self.x_label,
            y_label: &self.y_label,
            log_y: self.log_y,
        }
    }
}

impl Render for LinePlot {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let mut chart = draw_background(canvas, &self.title, &self.geo, x, y, true)?;

        // Error bars first, then lines, then markers, so markers stay on top.
        for c in &self.curves {
            let bar_style = c.colour.stroke_width(1);
            chart
                .draw_series(c.error_bars.iter().map(|&(bx, bottom, top)| {
                    let bottom = bottom.unwrap_or(y.lo).max(y.lo);
                    PathElement::new(vec![(bx, bottom), (bx, top)], bar_style)
                }))
                .map_err(draw_err)?;
            // Caps are fixed-width in pixels, so draw them relative to the ends.
            let caps = c.error_bars.iter().flat_map(|&(bx, bottom, top)| {
                let ends = [bottom.filter(|b| *b >= y.lo), Some(top)];
                ends.into_iter().flatten().map(move |by| {
                    EmptyElement::at((bx, by)) + PathElement::new(vec![(-4, 0), (4, 0)], bar_style)
                })
            });
            chart.draw_series(caps).map_err(draw_err)?;
        }
        for c in &self.curves {
            for run in c.runs.iter().filter(|r| r.len() > 1) {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        run.clone(),
                        c.colour.stroke_width(LINE_W),
                    )))
                    .map_err(draw_err)?;
            }
        }
        // Markers are boxed elements, which `draw_series` cannot take for
        // non-'static backends; draw them one by one instead.
        let area = chart.plotting_area();
        for c in &self.curves {
            for &p in c.runs.iter().flatten() {
                area.draw(&marker_elem::<DB, _>(p, c.marker, c.colour))
                    .map_err(draw_err)?;
            }
        }

        draw_axes(canvas, &chart, &self.spec(), &self.geo, x, y, self.no_data)?;
        let (l, t, r, _) = self.geo.plot_rect();
        match &self.legend {
            Some((legend, LegendPlace::Inside(cx, cy))) => {
                legend.draw(canvas, l as i32 + cx, t as i32 + cy)?
            }
            Some((legend, LegendPlace::Outside)) => {
                legend.draw(canvas, (r + MARGIN_RIGHT) as i32, t as i32)?
            }
            None => {}
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Bar charts.

struct BarPlot {
    title: String,
    x_label: String,
    y_label: String,
    log_y: bool,
    x: Axis,
    y: Axis,
    /// (slot index, plot-y of the bar top) of drawable bars.
    bars: Vec<(usize, f64)>,
    geo: Geometry,
    no_data: bool,
}

const BAR_COLOUR: RGBColor = PALETTE[0];
const BAR_LABEL_CHARS: usize = 24;

impl BarPlot {
    fn new(spec: &PlotSpec, bars: &[Bar]) -> Self {
        let mut y_ext = Extent::default();
        let mut drawn = Vec::new();
        for (i, b) in bars.iter().enumerate() {
            let v = b.value;
            let t = if !usable(v) {
                None
            } else if spec.log_y {
                (v > 0.0).then(|| v.log10())
            } else {
                Some(v)
            };
            if let Some(t) = t {
                y_ext.add(t);
                drawn.push((i, t));
            }
        }
        let no_data = drawn.is_empty();
        let y = if spec.log_y {
            // Bars grow from the bottom of a log axis, so leave room below
            // the smallest bar for it to be visible.
            let (lo, hi) = log_bounds(y_ext.0);
            Axis::log((lo - 0.05 * (hi - lo)).max(-307.0), hi)
        } else {
            let (lo, hi) = linear_bounds(y_ext.0);
            Axis::linear(lo, hi, 6)
        };
        let geo = Geometry::new(spec, &y, 0);

        // Slots are centred on integers; label every k-th slot (k from 1, 2,
        // 5, 10, 20, ...) so that labels never collide.
        let n = bars.len();
        let (xlo, xhi) = if n == 0 {
            (0.0, 1.0)
        } else {
            (-0.5, n as f64 - 0.5)
        };
        let labels: Vec<String> = bars
            .iter()
            .map(|b| truncate(&b.label, BAR_LABEL_CHARS))
            .collect();
        let label_w = labels
            .iter()
            .map(|l| text_width(l, TICK_FONT))
            .max()
            .unwrap_or(0);
        let slot_px = f64::from(geo.plot_size().0) / n.max(1) as f64;
        let step = label_stride((f64::from(label_w) + 14.0) / slot_px);
        let ticks = (0..n)
            .step_by(step)
            .map(|i| (i as f64, labels[i].clone()))
            .collect();
        BarPlot {
            title: spec.title.to_string(),
            x_label: spec.x_label.to_string(),
            y_label: spec.y_label.to_string(),
            log_y: spec.log_y,
            x: Axis {
                lo: xlo,
                hi: xhi,
                ticks,
            },
            y,
            bars: drawn,
            geo,
            no_data,
        }
    }
}

/// Smallest k in 1, 2, 5, 10, 20, ... with k >= `need`: labelling every
/// k-th of equal slots whose labels need `need` slots each keeps them apart.
fn label_stride(need: f64) -> usize {
    (0..20u32)
        .flat_map(|e| [1usize, 2, 5].map(|m| m.saturating_mul(10usize.saturating_pow(e))))
        .find(|&s| s as f64 >= need)
        .unwrap_or(usize::MAX)
        .max(1)
}

impl Render for BarPlot {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let mut chart = draw_background(canvas, &self.title, &self.geo, x, y, false)?;

        let slots = (x.hi - x.lo).max(1.0);
        let slot_px = f64::from(self.geo.plot_size().0) / slots;
        // Narrow slots: bars touch and lose their outline, which would
        // otherwise be all there is to see.
        let half = if slot_px >= 4.0 { 0.4 } else { 0.5 };
        let outline = slot_px >= 8.0;
        let base = if self.log_y { y.lo } else { 0.0 };
        let rects = self.bars.iter().map(|&(i, top)| {
            let cx = i as f64;
            [(cx - half, base), (cx + half, top.max(y.lo))]
        });
        chart
            .draw_series(
                rects
                    .clone()
                    .map(|r| Rectangle::new(r, BAR_COLOUR.filled())),
            )
            .map_err(draw_err)?;
        if outline {
            chart
                .draw_series(rects.map(|r| Rectangle::new(r, BLACK.stroke_width(1))))
                .map_err(draw_err)?;
        }
        let spec = PlotSpec {
            title: &self.title,
            x_label: &self.x_label,
            y_label: &self.y_label,
            log_y: self.log_y,
        };
        draw_axes(canvas, &chart, &spec, &self.geo, x, y, self.no_data)
    }
}

// ---------------------------------------------------------------------------
// Grouped bar charts.

/// Fraction of a group's slot covered by its bars; the rest is the gap
/// between neighbouring groups.
const GROUP_FILL: f64 = 0.8;
/// Horizontal clearance, in pixels, kept between neighbouring group labels.
const GROUP_LABEL_GAP: f64 = 8.0;
const REFERENCE_COLOUR: RGBColor = RGBColor(64, 64, 64);
const REFERENCE_W: u32 = 2;
/// Dash and gap lengths of the reference line, in pixels.
const REFERENCE_DASH: (i32, i32) = (10, 6);
/// Border width of an open bar (a run that did not finish).
const OPEN_BAR_W: u32 = 3;
/// Stroke of the confidence whiskers over grouped bars.
const WHISKER_W: u32 = 2;
/// Legend text of the open bars.
const UNFINISHED_LABEL: &str = "did not finish";

/// A drawable bar in plot coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GroupedBar {
    group: usize,
    series: usize,
    left: f64,
    right: f64,
    top: f64,
    colour: RGBColor,
    /// The run did not finish: an open bar up to the top of the chart (`top` unused).
    unfinished: bool,
    /// Whisker ends in plot coordinates (bottom: `None` below the axis), if any.
    whisker: Option<(Option<f64>, f64)>,
}

struct GroupedBarPlot {
    title: String,
    x_label: String,
    y_label: String,
    log_y: bool,
    /// Groups are centred on integers; ticks carry no text, the labels are
    /// drawn at `label_size` (which may be smaller than the tick font).
    x: Axis,
    y: Axis,
    /// (plot-x of the group centre, label) of the labelled groups.
    group_labels: Vec<(f64, String)>,
    label_size: u32,
    bars: Vec<GroupedBar>,
    /// Width of one bar in plot-x units.
    bar_w: f64,
    /// Plot-y of the reference line.
    reference: Option<f64>,
    legend: Option<Legend>,
    geo: Geometry,
    no_data: bool,
}

impl GroupedBarPlot {
    fn new(
        spec: &PlotSpec,
        groups: &[String],
        series: &[BarSeries],
        reference: Option<f64>,
    ) -> Self {
        let log_y = spec.log_y;
        let ty = |v: f64| plot_y(v, log_y);

        let n = groups.len();
        let bar_w = GROUP_FILL / series.len().max(1) as f64;
        let mut y_ext = Extent::default();
        let mut bars = Vec::new();
        for (s, ser) in series.iter().enumerate() {
            let (colour, _) = curve_style(s);
            // Missing values (a short series) are no bars; extra ones are
            // ignored.
            for (g, &v) in ser.values.iter().take(n).enumerate() {
                // An unfinished run has no top (NaN) and leaves the y range alone.
                let unfinished = v == f64::INFINITY;
                let top = if unfinished {
                    f64::NAN
                } else if let Some(top) = ty(v) {
                    y_ext.add(top);
                    top
                } else {
                    continue;
                };
                // Whiskers stop at zero for non-negative values (times, counts), as the
                // error bars of a line plot do.
                let whisker = ser
                    .errors
                    .get(g)
                    .copied()
                    .filter(|e| !unfinished && e.is_finite() && *e > 0.0)
                    .and_then(|e| {
                        let top = ty(v + e)?;
                        let low = if v >= 0.0 { (v - e).max(0.0) } else { v - e };
                        y_ext.add(top);
                        Some((ty(low), top))
                    });
                let left = g as f64 - GROUP_FILL / 2.0 + s as f64 * bar_w;
                bars.push(GroupedBar {
                    group: g,
                    series: s,
                    left,
                    right: left + bar_w,
                    top,
                    colour,
                    unfinished,
                    whisker,
                });
            }
        }
        let no_data = bars.is_empty();
        let reference = reference.and_then(ty);
        if let Some(r) = reference {
            y_ext.add(r);
        }
        let y = if log_y {
            // As in `BarPlot`: room below the smallest bar for it to show.
            let (lo, hi) = log_bounds(y_ext.0);
            Axis::log((lo - 0.05 * (hi - lo)).max(-307.0), hi)
        } else {
            let (lo, hi) = linear_bounds(y_ext.0);
            Axis::linear(lo, hi, 6)
        };

        // The legend goes in a panel right of the chart, as a line plot's
        // outside legend: bars fill the plot area, so no corner is safe.
        let mut entries: Vec<LegendEntry> = series
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.label.is_empty())
            .map(|(i, s)| LegendEntry {
                label: truncate(&s.label, LEGEND_MAX_CHARS),
                style: Some(Sample::Swatch(curve_style(i).0)),
            })
            .collect();
        if bars.iter().any(|b| b.unfinished) {
            entries.push(LegendEntry {
                label: UNFINISHED_LABEL.to_string(),
                style: Some(Sample::OpenSwatch(LEGEND_EDGE)),
            });
        }
        let title_h = Geometry::new(spec, &y, 0).title_h;
        let legend = (!entries.is_empty()).then(|| {
            let max_w = (WIDTH as i32) * 4 / 10;
            let max_h = HEIGHT as i32 - title_h as i32 - 2 * MARGIN_TOP as i32;
            Legend::panel(entries, max_w, max_h)
        });
        let panel_w = legend.as_ref().map_or(0, |l| (l.w + 4) as u32);
        let geo = Geometry::new(spec, &y, panel_w);

        // Group labels: shrink the font (down to 60%) until the widest label
        // fits its group's slot; if even that is too wide, keep the full
        // size and label every k-th group only, as `BarPlot` does.
        let labels: Vec<String> = groups
            .iter()
            .map(|g| truncate(g, BAR_LABEL_CHARS))
            .collect();
        let slot_px = f64::from(geo.plot_size().0) / n.max(1) as f64;
        let widest = |size: u32| {
            labels
                .iter()
                .map(|l| text_width(l, size))
                .max()
                .unwrap_or(0)
        };
        let room = (slot_px - GROUP_LABEL_GAP).max(1.0) as i32;
        let label_size = labels
            .iter()
            .map(|l| fit_size(l, TICK_FONT, room))
            .min()
            .filter(|&size| widest(size) as i32 <= room)
            .unwrap_or(TICK_FONT);
        let label_w = widest(label_size);
        let step = label_stride((f64::from(label_w) + GROUP_LABEL_GAP) / slot_px);
        let group_labels: Vec<(f64, String)> = labels
            .into_iter()
            .enumerate()
            .step_by(step)
            .map(|(i, l)| (i as f64, l))
            .collect();
        let (xlo, xhi) = if n == 0 {
            (0.0, 1.0)
        } else {
            (-0.5, n as f64 - 0.5)
        };
        let x = Axis {
            lo: xlo,
            hi: xhi,
            ticks: group_labels
                .iter()
                .map(|(v, _)| (*v, String::new()))
                .collect(),
        };

        GroupedBarPlot {
            title: spec.title.to_string(),
            x_label: spec.x_label.to_string(),
            y_label: spec.y_label.to_string(),
            log_y,
            x,
            y,
            group_labels,
            label_size,
            bars,
            bar_w,
            reference,
            legend,
            geo,
            no_data,
        }
    }
}

impl Render for GroupedBarPlot {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let mut chart = draw_background(canvas, &self.title, &self.geo, x, y, false)?;

        let bar_px = f64::from(self.geo.plot_size().0) * self.bar_w / (x.hi - x.lo);
        // Narrow bars lose their outline, which would otherwise hide them.
        let outline = bar_px >= 6.0;
        let base = if self.log_y { y.lo } else { 0.0 };
        let rects = self
            .bars
            .iter()
            .filter(|b| !b.unfinished)
            .map(|b| ([(b.left, base), (b.right, b.top.max(y.lo))], b.colour));
        chart
            .draw_series(
                rects
                    .clone()
                    .map(|(r, colour)| Rectangle::new(r, colour.filled())),
            )
            .map_err(draw_err)?;
        if outline {
            chart
                .draw_series(rects.map(|(r, _)| Rectangle::new(r, BLACK.stroke_width(1))))
                .map_err(draw_err)?;
        }
        // Whiskers over the bars, in black so that they show on every colour.
        let whisker_style = BLACK.stroke_width(WHISKER_W);
        for b in &self.bars {
            let Some((bottom, top)) = b.whisker else {
                continue;
            };
            let mid = (b.left + b.right) / 2.0;
            let bottom = bottom.unwrap_or(y.lo).max(y.lo);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(mid, bottom), (mid, top.min(y.hi))],
                    whisker_style,
                )))
                .map_err(draw_err)?;
            let cap = ((bar_px / 4.0).round() as i32).clamp(2, 6);
            let ends = [
                Some(bottom).filter(|v| *v > y.lo),
                Some(top).filter(|v| *v <= y.hi),
            ];
            chart
                .draw_series(ends.into_iter().flatten().map(|v| {
                    EmptyElement::at((mid, v))
                        + PathElement::new(vec![(-cap, 0), (cap, 0)], whisker_style)
                }))
                .map_err(draw_err)?;
        }
        // Runs that did not finish: open bars to the top, an arrowhead at the top saying
        // "off the chart".
        for b in self.bars.iter().filter(|b| b.unfinished) {
            let (l, t) = chart.backend_coord(&(b.left, y.hi));
            let (r, bottom) = chart.backend_coord(&(b.right, base.max(y.lo)));
            let w = OPEN_BAR_W as i32;
            canvas.rect(
                (l + w / 2, t + w / 2),
                (r - w / 2, bottom),
                b.colour.stroke_width(OPEN_BAR_W),
            )?;
            let half = ((r - l) / 2 - w).max(2);
            let mid = (l + r) / 2;
            canvas.polygon(
                vec![
                    (mid, t + w),
                    (mid - half, t + w + half),
                    (mid + half, t + w + half),
                ],
                b.colour.filled(),
            )?;
        }

        let ((x0, _), (x1, y1)) = corners(&chart, x, y);
        if let Some(r) = self.reference {
            let py = chart.backend_coord(&(x.lo, r)).1;
            let (on, off) = REFERENCE_DASH;
            let style = REFERENCE_COLOUR.stroke_width(REFERENCE_W);
            let mut a = x0;
            while a < x1 {
                canvas.line(vec![(a, py), ((a + on).min(x1), py)], style)?;
                a += on + off;
            }
        }

        let spec = PlotSpec {
            title: &self.title,
            x_label: &self.x_label,
            y_label: &self.y_label,
            log_y: self.log_y,
        };
        draw_axes(canvas, &chart, &spec, &self.geo, x, y, self.no_data)?;
        let below = y1 + TICK_LEN + TICK_GAP;
        for (v, label) in &self.group_labels {
            let px = chart.backend_coord(&(*v, y.lo)).0;
            let t = Txt::new(self.label_size, HPos::Center, VPos::Top);
            canvas.text(label, (px, below), t)?;
        }
        if let Some(legend) = &self.legend {
            let (_, t, r, _) = self.geo.plot_rect();
            legend.draw(canvas, (r + MARGIN_RIGHT) as i32, t as i32)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory per test (tests run in parallel).
    fn test_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arcsim-plot-test-{}-{}", std::process::id(), name));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create test dir");
        dir
    }

    fn check_outputs(stem: &Path, title: &str) {
        let png = std::fs::read(with_suffix(stem, "png")).expect("png written");
        assert!(png.len() > 5_000, "png too small: {} bytes", png.len());
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(with_suffix(stem, "svg")).expect("svg written");
        assert!(svg.contains(title), "svg lacks the title");
        assert!(svg.contains("<text"));
    }

    fn spec(title: &str, log_y: bool) -> PlotSpec<'_> {
        PlotSpec {
            title,
            x_label: "Offered load (flits/node/cycle)",
            y_label: "Average latency (cycles)",
            log_y,
        }
    }

    fn pt(x: f64, y: f64, ci: Option<f64>) -> Point {
        Point { x, y, ci }
    }

    fn latency_curves() -> Vec<Curve> {
        ["mesh 8x8 XY", "torus 8x8 DOR", "dragonfly UGAL"]
            .iter()
            .enumerate()
            .map(|(k, label)| Curve {
                label: label.to_string(),
                points: (1..=10)
                    .map(|i| {
                        let x = i as f64 * 0.05;
                        let sat = 0.35 + 0.1 * k as f64;
                        let y = 20.0 + 5.0 * k as f64 + 8.0 / (sat - x).max(0.02);
                        pt(x, y, Some(0.04 * y))
                    })
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn line_plot_writes_svg_and_png() {
        let dir = test_dir("line");
        let stem = dir.join("latency");
        line_plot(&stem, &spec("Latency vs load", false), &latency_curves()).unwrap();
        check_outputs(&stem, "Latency vs load");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bar_plot_writes_svg_and_png() {
        let dir = test_dir("bar");
        let stem = dir.join("hops");
        let bars: Vec<Bar> = (0..12)
            .map(|h| Bar {
                label: h.to_string(),
                value: (100.0 * (-(h as f64 - 5.0).powi(2) / 8.0).exp()).round(),
            })
            .collect();
        let s = PlotSpec {
            title: "Hop-count histogram",
            x_label: "Hops",
            y_label: "Packets",
            log_y: false,
        };
        bar_plot(&stem, &s, &bars).unwrap();
        check_outputs(&stem, "Hop-count histogram");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn hostile_inputs_do_not_fail() {
        let dir = test_dir("hostile");
        let weird = vec![
            Curve {
                label: String::new(),
                points: vec![
                    pt(f64::NAN, 1.0, None),
                    pt(1.0, f64::INFINITY, Some(f64::NAN)),
                    pt(2.0, -3.0, Some(f64::INFINITY)),
                    pt(1e308, -1e308, Some(1e308)),
                    pt(3.0, 0.0, Some(-1.0)),
                ],
            },
            Curve {
                label: "empty".into(),
                points: vec![],
            },
            Curve {
                label: "tiny <&> \u{1F600}".into(),
                points: vec![pt(5e-324, 5e-324, Some(5e-324)), pt(1e-300, 2e-300, None)],
            },
            Curve {
                label: "single".into(),
                points: vec![pt(0.0, 0.0, Some(0.0))],
            },
        ];
        for log_y in [false, true] {
            let stem = dir.join(format!("weird-{log_y}"));
            line_plot(&stem, &spec("weird", log_y), &weird).unwrap();
            check_outputs(&stem, "weird");
            let stem = dir.join(format!("empty-{log_y}"));
            line_plot(&stem, &spec("", log_y), &[]).unwrap();
            let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
            assert!(svg.contains("no data"));
            let stem = dir.join(format!("bars-{log_y}"));
            let bars = vec![
                Bar {
                    label: "a".into(),
                    value: f64::NAN,
                },
                Bar {
                    label: "b".into(),
                    value: -2.0,
                },
                Bar {
                    label: String::new(),
                    value: 0.0,
                },
                Bar {
                    label: "d".repeat(500),
                    value: 1e300,
                },
            ];
            bar_plot(&stem, &spec("bars", log_y), &bars).unwrap();
            let stem = dir.join(format!("nobars-{log_y}"));
            bar_plot(&stem, &spec("x", log_y), &[]).unwrap();
            let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
            assert!(svg.contains("no data"));
        }
        // Many curves force the legend outside; many bars thin the labels.
        let many: Vec<Curve> = (0..70)
            .map(|i| Curve {
                label: format!("configuration number {i} with a long name"),
                points: vec![pt(0.0, i as f64, None), pt(1.0, 2.0 * i as f64, None)],
            })
            .collect();
        line_plot(&dir.join("many"), &spec("many", false), &many).unwrap();
        let bars: Vec<Bar> = (0..4096)
            .map(|i| Bar {
                label: format!("R{i}"),
                value: (i % 17) as f64,
            })
            .collect();
        bar_plot(&dir.join("manybars"), &spec("manybars", true), &bars).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn paper_groups() -> Vec<String> {
        [
            "UN",
            "ADVG+2",
            "ADVG+6",
            "MIX1",
            "MIX2",
            "MIX3",
            "All-to-all",
        ]
        .iter()
        .map(|g| g.to_string())
        .collect()
    }

    /// Burst consumption times normalised to PB; OFAR-L did not finish
    /// under ADVG+6 (NaN).
    fn paper_series() -> Vec<BarSeries> {
        let rows: [(&str, [f64; 7]); 5] = [
            ("PB", [1.0; 7]),
            ("OFAR", [0.62, 0.41, 0.35, 0.55, 0.6, 0.71, 0.93]),
            ("OFAR-L", [0.66, 0.45, f64::NAN, 0.58, 0.63, 0.74, 0.97]),
            ("VAL", [1.9, 0.52, 0.47, 1.3, 1.25, 1.41, 3.8]),
            ("VAL-any", [1.7, 0.49, 0.43, 1.2, 1.16, 1.33, 3.5]),
        ];
        rows.iter()
            .map(|(label, values)| BarSeries {
                label: label.to_string(),
                values: values.to_vec(),
                errors: Vec::new(),
            })
            .collect()
    }

    fn bursts_spec(title: &str, log_y: bool) -> PlotSpec<'_> {
        PlotSpec {
            title,
            x_label: "Traffic pattern",
            y_label: "Consumption time (relative to PB)",
            log_y,
        }
    }

    /// Whether the SVG has a text element saying exactly `text`.
    fn svg_has_text(svg: &str, text: &str) -> bool {
        svg.contains(&format!("\n{text}\n</text>"))
    }

    /// `<rect ... fill="#RRGGBB"` elements of a colour in an SVG.
    fn filled_rects(svg: &str, colour: RGBColor) -> usize {
        let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", colour.0, colour.1, colour.2);
        svg.lines()
            .filter(|l| l.trim_start().starts_with("<rect") && l.contains(&fill))
            .count()
    }

    fn reference_segments(svg: &str) -> usize {
        let c = REFERENCE_COLOUR;
        let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        svg.matches(&stroke).count()
    }

    #[test]
    fn grouped_bar_plot_writes_svg_and_png() {
        let dir = test_dir("grouped");
        let stem = dir.join("bursts");
        let (groups, series) = (paper_groups(), paper_series());
        let title = "Burst consumption time, dragonfly h = 6";
        grouped_bar_plot(
            &stem,
            &bursts_spec(title, false),
            &groups,
            &series,
            Some(1.0),
        )
        .unwrap();
        check_outputs(&stem, title);
        let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
        for label in groups.iter().chain(series.iter().map(|s| &s.label)) {
            assert!(svg_has_text(&svg, label), "svg lacks {label}");
        }
        assert!(!svg.contains("no data"));
        // One rect per drawn bar plus the legend swatch; the NaN of OFAR-L
        // leaves its slot empty.
        for (i, s) in series.iter().enumerate() {
            let bars = s.values.iter().filter(|v| v.is_finite()).count();
            assert_eq!(
                filled_rects(&svg, curve_style(i).0),
                bars + 1,
                "{}",
                s.label
            );
        }
        assert!(reference_segments(&svg) > 10, "no dashed reference line");

        // Without a reference there is no reference line.
        grouped_bar_plot(&stem, &bursts_spec(title, false), &groups, &series, None).unwrap();
        let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
        assert_eq!(reference_segments(&svg), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn grouped_bars_layout() {
        let (groups, series) = (paper_groups(), paper_series());
        let plot = GroupedBarPlot::new(&bursts_spec("t", false), &groups, &series, Some(1.0));
        assert!(!plot.no_data);
        assert_eq!(plot.bars.len(), 7 * 5 - 1);
        assert!(!plot.bars.iter().any(|b| b.group == 2 && b.series == 2));
        // The bars of a group are adjacent and in series order, centred on
        // the group, with a gap to the next group.
        for g in 0..7 {
            let mut in_group: Vec<_> = plot.bars.iter().filter(|b| b.group == g).collect();
            in_group.sort_by_key(|b| b.series);
            assert!(in_group.windows(2).all(|w| w[0].series < w[1].series));
            let (first, last) = (in_group[0], in_group[in_group.len() - 1]);
            assert!((first.left + last.right - 2.0 * g as f64).abs() < 1e-9);
            assert!(last.right < g as f64 + 0.5 && first.left > g as f64 - 0.5);
        }
        // y from 0, covering the tallest bar, with the reference in range.
        assert_eq!(plot.y.lo, 0.0);
        assert!(plot.y.hi >= 3.8 && plot.y.hi < 4.5, "{}", plot.y.hi);
        assert_eq!(plot.reference, Some(1.0));
        // Every group labelled at full size; labels do not touch.
        assert_eq!(plot.label_size, TICK_FONT);
        assert_eq!(plot.group_labels.len(), 7);
        let slot_px = f64::from(plot.geo.plot_size().0) / 7.0;
        for (_, l) in &plot.group_labels {
            assert!(f64::from(text_width(l, plot.label_size)) + GROUP_LABEL_GAP <= slot_px);
        }
        // The legend sits in the panel right of the chart.
        let legend = plot.legend.as_ref().expect("legend");
        assert_eq!(legend.entries.len(), 5);
        let (_, _, r, _) = plot.geo.plot_rect();
        assert!((r + MARGIN_RIGHT) as i32 + legend.w <= WIDTH as i32);
    }

    #[test]
    fn grouped_bars_draw_whiskers_where_an_interval_is_given() {
        let groups: Vec<String> = ["a", "b", "c", "d"].iter().map(|g| g.to_string()).collect();
        let series = vec![BarSeries {
            label: "x".into(),
            values: vec![1.0, 0.5, 2.0, f64::INFINITY],
            // a plain interval, one wider than the bar (stops at 0), none, and one on a run
            // that did not finish (ignored)
            errors: vec![0.25, 0.75, f64::NAN, 0.1],
        }];
        let plot = GroupedBarPlot::new(&bursts_spec("w", false), &groups, &series, None);
        let w: Vec<_> = plot.bars.iter().map(|b| b.whisker).collect();
        assert_eq!(w[0], Some((Some(0.75), 1.25)));
        assert_eq!(w[1], Some((Some(0.0), 1.25)));
        assert_eq!(w[2], None);
        assert_eq!(w[3], None);
        // The y range covers the whiskers' tops.
        assert!(plot.y.hi >= 2.0);
        let tall = vec![BarSeries {
            label: "x".into(),
            values: vec![1.0],
            errors: vec![3.0],
        }];
        let plot = GroupedBarPlot::new(&bursts_spec("w", false), &groups[..1], &tall, None);
        assert!(plot.y.hi >= 4.0, "{}", plot.y.hi);
        let stem = test_dir("whiskers").join("w");
        grouped_bar_plot(
            &stem,
            &bursts_spec("whiskers", false),
            &groups,
            &series,
            Some(1.0),
        )
        .unwrap();
        check_outputs(&stem, "whiskers");
    }

    #[test]
    fn unfinished_runs_are_open_bars_off_the_top() {
        let groups = paper_groups();
        let nan = f64::NAN;
        let series = vec![
            BarSeries {
                label: "PB".into(),
                values: vec![1.0; 7],
                errors: Vec::new(),
            },
            BarSeries {
                label: "OFAR".into(),
                values: vec![0.6, f64::INFINITY, 0.5, nan, 0.7, 0.8, 0.9],
                errors: Vec::new(),
            },
        ];
        let plot = GroupedBarPlot::new(&bursts_spec("t", false), &groups, &series, Some(1.0));
        // NaN: no bar; +infinity: an open bar, which does not stretch the axis.
        assert_eq!(plot.bars.len(), 13);
        let open: Vec<_> = plot.bars.iter().filter(|b| b.unfinished).collect();
        assert_eq!(open.len(), 1);
        assert_eq!((open[0].group, open[0].series), (1, 1));
        assert!(plot.y.hi < 1.2, "{}", plot.y.hi);
        let legend = plot.legend.as_ref().expect("legend");
        assert_eq!(legend.entries.len(), 3);
        assert_eq!(legend.entries[2].label, UNFINISHED_LABEL);

        let dir = test_dir("grouped-unfinished");
        let stem = dir.join("bursts");
        grouped_bar_plot(&stem, &bursts_spec("t", false), &groups, &series, Some(1.0)).unwrap();
        check_outputs(&stem, "t");
        let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
        let c = curve_style(1).0;
        let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        let open_rects = svg
            .lines()
            .filter(|l| l.trim_start().starts_with("<rect") && l.contains(&stroke))
            .count();
        assert_eq!(open_rects, 1, "one open bar in OFAR's colour");
        assert!(svg_has_text(&svg, UNFINISHED_LABEL));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn grouped_bars_tolerate_short_and_long_series() {
        let groups = paper_groups();
        let series = vec![
            BarSeries {
                label: "short".into(),
                values: vec![1.0, 2.0],
                errors: Vec::new(),
            },
            BarSeries {
                label: "long".into(),
                values: vec![1.5; 12],
                errors: Vec::new(),
            },
            BarSeries {
                label: "none".into(),
                values: vec![],
                errors: Vec::new(),
            },
        ];
        let plot = GroupedBarPlot::new(&bursts_spec("t", false), &groups, &series, None);
        let count = |s: usize| plot.bars.iter().filter(|b| b.series == s).count();
        assert_eq!((count(0), count(1), count(2)), (2, 7, 0));
        assert!(plot.bars.iter().all(|b| b.group < groups.len()));
        let dir = test_dir("grouped-short");
        let stem = dir.join("short");
        grouped_bar_plot(&stem, &bursts_spec("short", false), &groups, &series, None).unwrap();
        check_outputs(&stem, "short");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn grouped_bars_hostile_inputs_do_not_fail() {
        let dir = test_dir("grouped-hostile");
        let groups = paper_groups();
        let all_nan = vec![BarSeries {
            label: "failed".into(),
            values: vec![f64::NAN; 7],
            errors: Vec::new(),
        }];
        let weird = vec![
            BarSeries {
                label: String::new(),
                values: vec![f64::INFINITY, -2.0, 0.0, 1e300, 5e-324, f64::NEG_INFINITY],
                errors: Vec::new(),
            },
            BarSeries {
                label: "tiny <&> \u{1F600}".repeat(20),
                values: vec![1e-300, 2e-300],
                errors: Vec::new(),
            },
        ];
        let many_groups: Vec<String> = (0..300).map(|i| format!("router {i}")).collect();
        let many_series: Vec<BarSeries> = (0..40)
            .map(|s| BarSeries {
                label: format!("configuration number {s} with a long name"),
                values: (0..300).map(|g| ((g * s) % 13) as f64).collect(),
                errors: Vec::new(),
            })
            .collect();
        for log_y in [false, true] {
            for reference in [None, Some(1.0), Some(f64::NAN), Some(-1.0), Some(1e300)] {
                let spec = bursts_spec("hostile", log_y);
                let stem = dir.join(format!("nan-{log_y}"));
                grouped_bar_plot(&stem, &spec, &groups, &all_nan, reference).unwrap();
                let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
                assert!(svg.contains("no data") && svg_has_text(&svg, "failed"));
                let stem = dir.join(format!("weird-{log_y}"));
                grouped_bar_plot(&stem, &spec, &groups, &weird, reference).unwrap();
                for (g, s) in [(&[][..], &all_nan[..]), (&groups[..], &[][..]), (&[], &[])] {
                    let stem = dir.join(format!("empty-{log_y}"));
                    grouped_bar_plot(&stem, &spec, g, s, reference).unwrap();
                    let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
                    assert!(svg.contains("no data"));
                }
            }
            let stem = dir.join(format!("many-{log_y}"));
            let spec = bursts_spec("many", log_y);
            grouped_bar_plot(&stem, &spec, &many_groups, &many_series, Some(3.0)).unwrap();
            check_outputs(&stem, "many");
        }
        // Many groups: smaller labels, then every k-th, never touching.
        let plot = GroupedBarPlot::new(&bursts_spec("t", false), &many_groups, &many_series, None);
        assert!(plot.group_labels.len() < many_groups.len());
        assert_eq!(plot.label_size, TICK_FONT);
        let slot_px = f64::from(plot.geo.plot_size().0) / many_groups.len() as f64;
        let spacing = slot_px * (plot.group_labels[1].0 - plot.group_labels[0].0);
        let widest = plot
            .group_labels
            .iter()
            .map(|(_, l)| text_width(l, plot.label_size))
            .max()
            .unwrap();
        assert!(f64::from(widest) < spacing);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn io_errors_name_the_file() {
        let dir = test_dir("ioerr");
        let blocker = dir.join("blocker");
        std::fs::write(&blocker, b"not a directory").unwrap();
        let stem = blocker.join("plot");
        let err = line_plot(&stem, &spec("t", false), &latency_curves()).unwrap_err();
        assert!(format!("{err:#}").contains("blocker"), "{err:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }

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

    #[test]
    fn layout_matches_ab_glyph_metrics() {
        ensure_font().unwrap();
        let scaled = font().as_scaled(18.0);
        assert_ne!(scaled.glyph_id('A'), GlyphId(0));
        assert!(font()
            .outline(font().glyph_id('x'))
            .is_some_and(|o| o.bounds.min.y > 0.0));
        // Our advances (with kerning) must agree with ab_glyph's at the
        // scale plotters uses for the same font size.
        for text in [
            "Average latency (cycles)",
            "dragonfly UGAL",
            "AVATAR Te 0.25",
        ] {
            let ids: Vec<_> = text.chars().map(|c| scaled.glyph_id(c)).collect();
            let advances: f32 = ids.iter().map(|&id| scaled.h_advance(id)).sum();
            let kerning: f32 = ids.windows(2).map(|w| scaled.kern(w[0], w[1])).sum();
            let ours = layout(text, 18).1;
            let theirs = f64::from(advances + kerning);
            assert!((ours - theirs).abs() < 0.01, "{text}: {ours} vs {theirs}");
            if text.starts_with("AVATAR") {
                assert!(kerning < 0.0, "no kerning applied");
            }
        }
    }

    #[test]
    fn error_bars_of_non_negative_data_stop_at_zero() {
        // Three seeds of which one collapsed: mean 0.30, half-width 0.66.
        let curves = vec![Curve {
            label: "ECM".into(),
            points: vec![pt(0.2, 0.2, Some(0.001)), pt(1.0, 0.303, Some(0.66))],
        }];
        let plot = LinePlot::new(&spec("t", false), &curves);
        assert_eq!(plot.y.lo, 0.0);
        let bars = &plot.curves[0].error_bars;
        assert_eq!(bars[1].1, Some(0.0));
        assert!((bars[1].2 - 0.963).abs() < 1e-9);
        // A signed quantity keeps its whole interval.
        let curves = vec![Curve {
            label: "signed".into(),
            points: vec![pt(0.2, -0.1, None), pt(1.0, 0.303, Some(0.66))],
        }];
        let plot = LinePlot::new(&spec("t", false), &curves);
        assert!(plot.y.lo < -0.3, "{}", plot.y.lo);
        assert!((plot.curves[0].error_bars[0].1.unwrap() + 0.357).abs() < 1e-9);
    }

    #[test]
    fn legend_avoids_data() {
        // Data filling the top-left corner pushes the legend elsewhere.
        let curves = vec![Curve {
            label: "falling".into(),
            points: (0..=10)
                .map(|i| pt(i as f64, 100.0 - 10.0 * i as f64, None))
                .collect(),
        }];
        let plot = LinePlot::new(&spec("t", false), &curves);
        match plot.legend {
            Some((_, LegendPlace::Inside(x, _))) => assert!(x > 100, "legend at x={x}"),
            other => panic!("unexpected legend placement {other:?}"),
        }
    }
}
