//! Publication-quality plots (SVG + PDF + PNG) of simulation results.
//!
//! Every plot is drawn once, as SVG, with plotters' chart layer; the PNG is that SVG
//! rasterised by resvg, the PDF that SVG converted by svg2pdf (text kept as text). Text is
//! set and measured in the embedded DejaVu Sans (`assets/DejaVuSans.ttf`, licence beside
//! it), so the output does not depend on the machine's fonts (CI, compute nodes have none).

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

/// A data point; `ci` is the 95% confidence half-width, drawn as an error bar. When no
/// point of a plot is negative, error bars stop at zero (a t-interval over a few seeds
/// that disagree can reach below zero, which a load or a latency cannot).
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

/// One series of a grouped bar chart: one value per group. NaN draws no bar; +infinity an
/// open bar off the top of the chart, for a run that did not finish. `errors` holds per
/// group the half-width of an interval drawn as a whisker (none if missing or not > 0).
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
        let log_y = false;
        PlotSpec {
            title,
            x_label,
            y_label,
            log_y,
        }
    }
}

/// What a line plot may add to its curves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineExtras {
    /// The x range to show whatever the curves span (the plots of one figure then agree).
    pub x_range: Option<(f64, f64)>,
    /// A dashed vertical line at this x, with its label at the top (a traffic change).
    pub vline: Option<(f64, String)>,
}

/// Line plot with one colour+marker per curve and a legend; writes `<stem>.svg`, `.pdf`
/// and `.png` (extensions appended). Non-finite points (and `y <= 0` with `log_y`) are
/// skipped and break the line; unlabelled curves stay out of the legend; a curve of
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

/// A curve with at least this many points gets about [`SPARSE_MARKERS`] markers only:
/// thousands of markers hide the line and make huge files.
const DENSE_POINTS: usize = 50;
const SPARSE_MARKERS: usize = 20;

/// Bar chart (e.g. packets per router); same outputs as [`line_plot`].
pub fn bar_plot(stem: &Path, spec: &PlotSpec, bars: &[Bar]) -> Result<()> {
    let groups: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let values = bars.iter().map(|b| b.value).collect();
    let series = [BarSeries {
        label: String::new(),
        values,
        errors: Vec::new(),
    }];
    grouped_bar_plot(stem, spec, &groups, &series, None)
}

/// Grouped bar chart: per group (e.g. a traffic pattern) one bar per series (e.g. a
/// routing), side by side; a dashed reference line at `reference` (e.g. 1.0 for values
/// normalised to a baseline). A value that cannot be drawn leaves its slot empty; a short
/// series misses its last bars. With `log_y` bars grow from the bottom of the axis,
/// otherwise from 0. Nothing drawable writes the chart with a "no data" note.
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
/// Values beyond this are treated like infinities (they would overflow the ranges).
const MAX_ABS: f64 = 1e300;

const MARKER_R: i32 = 5;
const LINE_W: u32 = 2;
const LEGEND_MAX_CHARS: usize = 40;

const GRID: RGBColor = RGBColor(225, 225, 225);
const NOTE: RGBColor = RGBColor(110, 110, 110);
const LEGEND_EDGE: RGBColor = RGBColor(90, 90, 90);

/// Okabe-Ito palette (colour-blind safe), the pale yellow last.
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

/// Marker shapes, as pixel offsets from the point (about [`MARKER_R`] out): a filled
/// polygon, two strokes (`true`: cross, plus) or, empty, a circle. 7 shapes against 8
/// colours give 56 distinct pairs.
type Marker = (&'static [(i32, i32)], bool);
const MARKERS: [Marker; 7] = [
    (&[], false),
    (&[(-4, -4), (4, -4), (4, 4), (-4, 4)], false),
    (&[(0, -6), (6, 4), (-6, 4)], false),
    (&[(0, -6), (6, 0), (0, 6), (-6, 0)], false),
    (&[(0, 6), (6, -4), (-6, -4)], false),
    (&[(-5, -5), (5, 5), (-5, 5), (5, -5)], true),
    (&[(-6, 0), (6, 0), (0, -6), (0, 6)], true),
];

/// Style of the i-th curve: by index only, so a configuration keeps its look across plots.
fn curve_style(i: usize) -> (RGBColor, Marker) {
    (PALETTE[i % PALETTE.len()], MARKERS[i % MARKERS.len()])
}

/// A marker (colour, shape) centred on a point (any coordinate system), on a horizontal
/// line that many pixels either side when positive (a legend's sample). An element of its
/// own: plotters' legends take no boxed elements on a borrowed backend.
struct MarkerElem<C>(C, (RGBColor, Marker), i32);

impl<'a, C> PointCollection<'a, C> for &'a MarkerElem<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.0)
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
        let MarkerElem(_, (colour, (offsets, strokes)), line) = *self;
        let (fill, stroke) = (colour.filled(), colour.stroke_width(2));
        if line > 0 {
            b.draw_line((x - line, y), (x + line, y), &colour.stroke_width(LINE_W))?;
        }
        let pts: Vec<_> = offsets.iter().map(|(dx, dy)| (x + dx, y + dy)).collect();
        match pts[..] {
            [] => b.draw_circle((x, y), MARKER_R as u32, &fill, true),
            [a, z, c, d] if strokes => {
                b.draw_line(a, z, &stroke)?;
                b.draw_line(c, d, &stroke)
            }
            _ => b.fill_polygon(pts, &fill),
        }
    }
}

// ---------------------------------------------------------------------------
// Output.

/// The SVG canvas every plot draws on.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn with_suffix(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(format!(".{ext}"));
    s.into()
}

/// Plotters errors are generic over the backend; flatten them to text.
fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing failed: {e:?}")
}

/// Draws the plot as SVG (a panic inside plotters becomes an error: a plot is not worth
/// aborting a campaign for), then writes it as SVG, PDF and PNG.
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
