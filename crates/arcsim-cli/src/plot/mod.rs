//! Publication-quality plots (SVG + PDF + PNG) of simulation results.
//!
//! Every plot is written from the same layout: `<stem>.svg` and `<stem>.pdf`
//! for papers (vector; the PDF is the SVG converted by `svg2pdf`, with the
//! embedded font) and `<stem>.png` for quick looks. The layout
//! (ranges, ticks, legend placement) is computed once, independently of the
//! backend, so both files show the same picture.
//!
//! Text is rendered with an embedded DejaVu Sans so that PNG output works on
//! machines without any system fonts (CI containers, compute nodes). Axes,
//! ticks and all text are drawn here rather than by plotters' mesh, because
//! plotters' ab_glyph rasteriser ignores each glyph's left side bearing
//! ("d ragonfly"); PNG text is laid out and rasterised with ab_glyph here
//! (see `Canvas::raster`).

mod axis;
mod bar;
mod grouped;
mod legend;
mod line;
mod text;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use plotters::prelude::*;

use bar::BarPlot;
use grouped::GroupedBarPlot;
use line::LinePlot;
pub(crate) use text::truncate;
use text::{ensure_font, Canvas};

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

impl<'a> PlotSpec<'a> {
    /// A plot with a linear y axis.
    pub fn linear(title: &'a str, x_label: &'a str, y_label: &'a str) -> PlotSpec<'a> {
        PlotSpec {
            title,
            x_label,
            y_label,
            log_y: false,
        }
    }
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
    line_plot_with(stem, spec, curves, &LineExtras::default())
}

/// What a line plot may add to its curves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineExtras {
    /// The x range to show whatever the curves span (several plots of one figure then
    /// agree); widened to hold every point and `vline`.
    pub x_range: Option<(f64, f64)>,
    /// A dashed vertical line at this x, with its label at the top (a traffic change).
    pub vline: Option<(f64, String)>,
}

/// [`line_plot`] with a fixed x range and a marked x.
pub fn line_plot_with(
    stem: &Path,
    spec: &PlotSpec,
    curves: &[Curve],
    extras: &LineExtras,
) -> Result<()> {
    ensure_font()?;
    let plot = LinePlot::new_with(spec, curves, extras);
    write_outputs(stem, &plot)
}

/// A curve with at least this many points gets a marker on every k-th point only (about
/// [`SPARSE_MARKERS`] of them): thousands of markers hide the line and make huge files.
const DENSE_POINTS: usize = 50;
/// Markers on a dense curve.
const SPARSE_MARKERS: usize = 20;

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
    let pdf_path = with_suffix(stem, "pdf");
    let pdf = svg_to_pdf(&svg).with_context(|| format!("rendering {}", pdf_path.display()))?;
    crate::output::write(&svg_path, svg.as_bytes())?;
    crate::output::write(&pdf_path, &pdf)?;

    // Drawn into a temporary file renamed once complete (crate::output).
    let png_path = with_suffix(stem, "png");
    crate::output::with_temp(&png_path, |tmp| {
        let root = BitMapBackend::new(tmp, (WIDTH, HEIGHT)).into_drawing_area();
        let canvas = Canvas {
            root: &root,
            raster_text: true,
        };
        render_guarded(plot, &canvas).context("rendering")?;
        root.present().map_err(draw_err)
    })
}

/// A PDF of the same picture as `svg` (one page of its size), text set in the embedded
/// DejaVu Sans whatever fonts the machine has.
fn svg_to_pdf(svg: &str) -> Result<Vec<u8>> {
    use svg2pdf::usvg;
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(text::FONT_DATA.to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    options.font_family = "DejaVu Sans".into();
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| anyhow!("reading the SVG: {e}"))?;
    svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions::default(),
    )
    .map_err(|e| anyhow!("converting to PDF: {e}"))
}

// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests;
