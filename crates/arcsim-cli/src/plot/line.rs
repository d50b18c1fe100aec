//! Line plots: curves with markers and error bars, a marked x, and the legend in a panel
//! right of the plot, where it never hides data.

use anyhow::Result;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{self, extend, plot_y, usable, Axes, Layout, LEGEND_SAMPLE};
use super::{curve_style, draw_err, Area, Curve, LineExtras, Marker, MarkerElem, PlotSpec};
use super::{DENSE_POINTS, FONT, LEGEND_FONT, LINE_W, NOTE, SPARSE_MARKERS};

/// A curve in plot coordinates (y is log10(y) on a log axis).
pub(super) struct PreparedCurve {
    /// Colour and marker.
    style: (RGBColor, Marker),
    /// Runs of consecutive usable points; skipped points break the line.
    runs: Vec<Vec<(f64, f64)>>,
    /// (x, bottom, top); bottom is None when it falls below a log axis.
    pub(super) error_bars: Vec<(f64, Option<f64>, f64)>,
    /// A marker on every `stride`-th point; a point alone in its run always has one.
    stride: usize,
}

impl PreparedCurve {
    /// The points that get a marker.
    pub(super) fn marked(&self) -> Vec<(f64, f64)> {
        let all = self
            .runs
            .iter()
            .flat_map(|r| r.iter().map(move |p| (r.len(), *p)));
        let keep = |(i, (n, _)): &(usize, (usize, _))| *n == 1 || i % self.stride == 0;
        all.enumerate().filter(keep).map(|(_, (_, p))| p).collect()
    }
}

pub(super) struct LinePlot<'a> {
    spec: PlotSpec<'a>,
    pub(super) curves: Vec<PreparedCurve>,
    /// Axis ranges in plot coordinates.
    pub(super) x: (f64, f64),
    pub(super) y: (f64, f64),
    pub(super) layout: Layout,
    /// Legend entries: the curve (None for "… (n more)") and its label.
    pub(super) legend: Vec<(Option<usize>, String)>,
    no_data: bool,
    vline: Option<(f64, String)>,
}

impl<'a> LinePlot<'a> {
    pub(super) fn new(spec: &PlotSpec<'a>, curves: &[Curve], extras: &LineExtras) -> Self {
        let ty = |y: f64| plot_y(y, spec.log_y);
        let (mut xs, mut ys) = (None, None);
        let all = curves.iter().flat_map(|c| &c.points);
        let nonnegative = all
            .filter(|p| usable(p.x) && usable(p.y))
            .all(|p| p.y >= 0.0);
        let mut prepared = Vec::with_capacity(curves.len());
        for (i, c) in curves.iter().enumerate() {
            let style = curve_style(i);
            let (mut runs, mut error_bars) = (vec![Vec::new()], Vec::new());
            for p in &c.points {
                let Some(y) = ty(p.y).filter(|_| usable(p.x)) else {
                    runs.push(Vec::new());
                    continue;
                };
                extend(&mut xs, p.x);
                extend(&mut ys, y);
                runs.last_mut().expect("a run").push((p.x, y));
                let ci = p.ci.filter(|ci| *ci > 0.0 && usable(*ci));
                if let Some((ci, top)) = ci.and_then(|ci| Some((ci, ty(p.y + ci)?))) {
                    let low = p.y - ci;
                    let bottom = ty(if nonnegative { low.max(0.0) } else { low });
                    extend(&mut ys, top);
                    bottom.into_iter().for_each(|b| extend(&mut ys, b));
                    error_bars.push((p.x, bottom, top));
                }
            }
            runs.retain(|r| !r.is_empty());
            let n: usize = runs.iter().map(Vec::len).sum();
            let dense = (n >= DENSE_POINTS).then(|| n.div_ceil(SPARSE_MARKERS));
            let stride = dense.unwrap_or(1);
            prepared.push(PreparedCurve {
                style,
                runs,
                error_bars,
                stride,
            });
        }
        let no_data = xs.is_none();
        let vline = extras.vline.clone().filter(|(x, _)| usable(*x));
        let range = extras.x_range.filter(|(a, b)| usable(*a) && usable(*b));
        let more = range.into_iter().flat_map(|(a, b)| [a, b]);
        more.chain(vline.iter().map(|v| v.0))
            .for_each(|x| extend(&mut xs, x));
        let named = curves
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.label.is_empty());
        let named: Vec<_> = named
            .map(|(i, c)| (i, frame::truncate(&c.label, super::LEGEND_MAX_CHARS)))
            .collect();
        let (legend, panel) = frame::legend_panel(&named, spec);
        let y = frame::bounds(ys, spec.log_y);
        LinePlot {
            spec: *spec,
            layout: Layout::new(spec, y, panel),
            x: frame::bounds(xs, false),
            y,
            curves: prepared,
            legend,
            no_data,
            vline,
        }
    }

    pub(super) fn draw(&self, root: &Area) -> Result<()> {
        let ((x0, x1), (y0, y1)) = (self.x, self.y);
        let axes = Axes {
            x: x0..x1,
            y: y0..y1,
            x_labels: 7,
            x_format: &frame::tick_format(x0, x1, false),
            x_grid: true,
        };
        let mut chart = frame::chart(root, &self.spec, &self.layout, &axes)?;

        // Error bars first, then lines, then markers, so markers stay on top.
        for c in &self.curves {
            for &(x, bottom, top) in &c.error_bars {
                frame::interval(&mut chart, x, (bottom, top), 4, c.style.0.stroke_width(1))?;
            }
        }
        for c in &self.curves {
            let style = c.style.0.stroke_width(LINE_W);
            let lines = c.runs.iter().filter(|r| r.len() > 1);
            let paths = lines.map(|r| PathElement::new(r.clone(), style));
            chart.draw_series(paths).map_err(draw_err)?;
        }
        for c in &self.curves {
            let elems = c.marked().into_iter().map(|at| MarkerElem(at, c.style, 0));
            chart.draw_series(elems).map_err(draw_err)?;
        }
        if let Some((x, label)) = &self.vline {
            let style = NOTE.stroke_width(2);
            let line = DashedPathElement::new(vec![(*x, y0), (*x, y1)], 8, 6, style);
            chart.draw_series([line]).map_err(draw_err)?;
            let font = TextStyle::from((FONT, LEGEND_FONT).into_font());
            let font = font.pos(Pos::new(HPos::Left, VPos::Top));
            let text = EmptyElement::at((*x, y1)) + Text::new(label.clone(), (6, 4), font);
            chart.draw_series([text]).map_err(draw_err)?;
        }
        frame::finish(&chart, &axes, self.no_data)?;
        if self.legend.is_empty() {
            return Ok(());
        }
        frame::legend(root, &self.spec, &self.layout, |chart| {
            for (i, label) in &self.legend {
                let none = std::iter::empty::<PathElement<(f64, f64)>>();
                let anno = chart.draw_series(none).map_err(draw_err)?;
                anno.label(label.as_str());
                if let Some(c) = i.map(|i| &self.curves[i]) {
                    let (style, line) = (c.style, LEGEND_SAMPLE / 2 - 4);
                    anno.legend(move |(x, y)| MarkerElem((x + line, y), style, line));
                }
            }
            Ok(())
        })
    }
}
