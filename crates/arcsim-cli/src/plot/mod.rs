//! Publication-quality plots (SVG + PDF + PNG) of simulation results.
//!
//! Every plot is drawn once, as SVG, with plotters' chart layer (axes, ticks and their
//! labels, axis titles, grid and legend box). The PNG is that SVG rasterised by resvg and the
//! PDF the same SVG converted by svg2pdf (vector, text kept as text), so the three files show
//! one picture. PNG and PDF text is set in the embedded DejaVu Sans (`assets/DejaVuSans.ttf`,
//! under the DejaVu fonts licence beside it), loaded into usvg's font database: the output
//! does not depend on the fonts of the machine (CI containers, compute nodes have none).
//! plotters measures text for its layout with the same font. This module adds what a chart
//! library leaves to its user: the ranges, which points get markers, where the legend goes
//! (a free corner, else a panel on the right), a title broken into two lines when long.

mod bars;
mod frame;
mod line;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};
use resvg::{tiny_skia, usvg};

pub(crate) use frame::truncate;

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

/// What a line plot may add to its curves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineExtras {
    /// The x range to show whatever the curves span (several plots of one figure then
    /// agree); widened to hold every point and `vline`.
    pub x_range: Option<(f64, f64)>,
    /// A dashed vertical line at this x, with its label at the top (a traffic change).
    pub vline: Option<(f64, String)>,
}

/// Line plot with markers, one colour+marker per curve, and a legend.
///
/// Writes `<stem>.svg`, `<stem>.pdf` and `<stem>.png` (the extensions are appended, so a
/// stem like `out/lat.mesh` keeps its dot), creating the parent directory if
/// needed. Points with non-finite (or absurdly large, |v| > 1e300)
/// coordinates are skipped and break the line; with `log_y`, points with
/// `y <= 0` are skipped too. Points are connected in the order given. Curves
/// with an empty label are drawn but left out of the legend. A curve of
/// [`DENSE_POINTS`] points or more gets a marker on every k-th point only.
pub fn line_plot(stem: &Path, spec: &PlotSpec, curves: &[Curve]) -> Result<()> {
    line_plot_with(stem, spec, curves, &LineExtras::default())
}

/// [`line_plot`] with a fixed x range and a marked x.
pub fn line_plot_with(
    stem: &Path,
    spec: &PlotSpec,
    curves: &[Curve],
    extras: &LineExtras,
) -> Result<()> {
    frame::ensure_font()?;
    let plot = line::LinePlot::new(spec, curves, extras);
    write_outputs(stem, |root| plot.draw(root))
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
    let groups: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let series = [BarSeries {
        label: String::new(),
        values: bars.iter().map(|b| b.value).collect(),
        errors: Vec::new(),
    }];
    grouped_bar_plot(stem, spec, &groups, &series, None)
}

/// Grouped bar chart: for each group (x-axis category, e.g. a traffic pattern) one bar per series
/// (e.g. a routing algorithm), series distinguished by colour and named in a legend. Optional horizontal
/// reference line at `reference` (e.g. 1.0 when values are normalised to a baseline), drawn dashed.
/// Same outputs as [`line_plot`].
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
/// * With `log_y` bars grow from the bottom of the log axis. Otherwise the y axis starts
///   at 0 (or below, for negative values, whose bars grow downwards from 0).
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
    frame::ensure_font()?;
    let plot = bars::BarPlot::new(spec, groups, series, reference);
    write_outputs(stem, |root| plot.draw(root))
}

// ---------------------------------------------------------------------------
// Style. Sizes are in pixels of the 1000x700 canvas; they are large enough to
// stay readable when the figure is shrunk to one paper column. Font sizes are
// plotters' sizes (ascender-to-descender height).

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 700;
const FONT: &str = "sans-serif";
const TITLE_FONT: u32 = 28;
const DESC_FONT: u32 = 23;
const TICK_FONT: u32 = 19;
const LEGEND_FONT: u32 = 19;
const NOTE_FONT: u32 = 28;

/// Fraction of the data span added as headroom on the side(s) away from 0.
const HEADROOM: f64 = 0.05;
/// Values beyond this are treated like infinities: they cannot be laid out
/// without overflowing the range arithmetic, and are meaningless in a plot.
const MAX_ABS: f64 = 1e300;

const MARKER_R: i32 = 5;
const LINE_W: u32 = 2;
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

/// A marker of the given shape centred on a point (any coordinate system), on a horizontal
/// line `line` pixels either side when `line > 0` (a legend's sample). An element of its
/// own: plotters' legends take no boxed elements on a borrowed backend.
struct MarkerElem<C> {
    at: C,
    marker: Marker,
    colour: RGBColor,
    line: i32,
}

impl<'a, C> PointCollection<'a, C> for &'a MarkerElem<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for MarkerElem<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        b: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        let (r, s, colour) = (MARKER_R, MARKER_R + 1, self.colour);
        let (fill, stroke) = (colour.filled(), colour.stroke_width(2));
        if self.line > 0 {
            let (a, z) = ((x - self.line, y), (x + self.line, y));
            b.draw_line(a, z, &colour.stroke_width(LINE_W))?;
        }
        let poly = |pts: &[(i32, i32)]| pts.iter().map(|(dx, dy)| (x + dx, y + dy)).collect();
        match self.marker {
            Marker::Circle => b.draw_circle((x, y), r as u32, &fill, true),
            Marker::Square => {
                b.draw_rect((x + 1 - r, y + 1 - r), (x + r - 1, y + r - 1), &fill, true)
            }
            Marker::TriangleUp => {
                b.fill_polygon::<_, Vec<_>>(poly(&[(0, -s), (s, r - 1), (-s, r - 1)]), &fill)
            }
            Marker::TriangleDown => {
                b.fill_polygon::<_, Vec<_>>(poly(&[(0, s), (s, 1 - r), (-s, 1 - r)]), &fill)
            }
            Marker::Diamond => {
                b.fill_polygon::<_, Vec<_>>(poly(&[(0, -s), (s, 0), (0, s), (-s, 0)]), &fill)
            }
            Marker::Cross => {
                b.draw_line((x - r, y - r), (x + r, y + r), &stroke)?;
                b.draw_line((x - r, y + r), (x + r, y - r), &stroke)
            }
            Marker::Plus => {
                b.draw_line((x - s, y), (x + s, y), &stroke)?;
                b.draw_line((x, y - s), (x, y + s), &stroke)
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Output.

/// The SVG canvas every plot draws on.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

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

/// Draws the plot as SVG (a panic inside plotters becomes an error: a plot is never worth
/// aborting a long simulation campaign for), then writes it as SVG, PDF and PNG.
fn write_outputs(stem: &Path, draw: impl Fn(&Area) -> Result<()>) -> Result<()> {
    if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating directory {}", dir.display()))?;
    }
    let svg_path = with_suffix(stem, "svg");
    let mut svg = String::new();
    catch_unwind(AssertUnwindSafe(|| -> Result<()> {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        draw(&root)?;
        root.present().map_err(draw_err)
    }))
    .map_err(|_| anyhow!("the plotting library panicked"))
    .and_then(|r| r)
    .with_context(|| format!("rendering {}", svg_path.display()))?;

    let pdf_path = with_suffix(stem, "pdf");
    let png_path = with_suffix(stem, "png");
    let tree = usvg::Tree::from_str(&svg, &svg_options())
        .map_err(|e| anyhow!("reading the SVG: {e}"))
        .with_context(|| format!("rendering {}", pdf_path.display()))?;
    let pdf = svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions::default(),
    )
    .map_err(|e| anyhow!("converting to PDF: {e}"))
    .with_context(|| format!("rendering {}", pdf_path.display()))?;
    let mut pixmap = tiny_skia::Pixmap::new(WIDTH, HEIGHT).context("allocating the PNG")?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let png = pixmap
        .encode_png()
        .with_context(|| format!("rendering {}", png_path.display()))?;
    crate::output::write(&svg_path, svg.as_bytes())?;
    crate::output::write(&pdf_path, &pdf)?;
    crate::output::write(&png_path, &png)
}

/// usvg's options with the embedded DejaVu Sans as the only font, for every family.
fn svg_options() -> usvg::Options<'static> {
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(frame::FONT_DATA.to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    fonts.set_serif_family("DejaVu Sans");
    options.font_family = "DejaVu Sans".into();
    options
}

// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests;
