//! Bar charts, grouped or not: one bar per series in each group, confidence whiskers, open
//! bars for runs that did not finish, a dashed reference line, group labels thinned so
//! that they never touch, and the legend in a panel right of the chart.

use anyhow::Result;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::frame::{self, extend, plot_y, text_width, truncate, Axes, Layout};
use super::{curve_style, draw_err, Area, BarSeries, PlotSpec, LEGEND_EDGE, TICK_FONT};

/// Fraction of a group's slot covered by its bars; the rest is the gap between groups.
const GROUP_FILL: f64 = 0.8;
/// Horizontal clearance, in pixels, kept between neighbouring group labels.
const GROUP_LABEL_GAP: f64 = 8.0;
const BAR_LABEL_CHARS: usize = 24;
pub(super) const REFERENCE_COLOUR: RGBColor = RGBColor(64, 64, 64);
/// Border width of an open bar (a run that did not finish).
const OPEN_BAR_W: u32 = 3;
pub(super) const UNFINISHED_LABEL: &str = "did not finish";

/// What a legend entry shows left of its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sample {
    /// A filled box of the series' colour.
    Series(usize),
    /// An open box with an upward arrowhead: a bar that runs off the top (did not finish).
    Open,
}

/// A drawable bar in plot coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct GroupedBar {
    pub(super) group: usize,
    pub(super) series: usize,
    pub(super) left: f64,
    pub(super) right: f64,
    top: f64,
    /// The run did not finish: an open bar up to the top of the chart (`top` unused).
    pub(super) unfinished: bool,
    /// Whisker ends in plot coordinates (bottom: `None` below the axis), if any.
    pub(super) whisker: Option<(Option<f64>, f64)>,
}

pub(super) struct BarPlot<'a> {
    spec: PlotSpec<'a>,
    pub(super) y: (f64, f64),
    /// Group labels (truncated), and every how many groups one is shown.
    labels: Vec<String>,
    pub(super) label_step: usize,
    pub(super) bars: Vec<GroupedBar>,
    /// Width of one bar in plot-x units.
    bar_w: f64,
    /// Plot-y of the reference line.
    pub(super) reference: Option<f64>,
    /// Legend entries; a None sample is the "… (n more)" entry.
    pub(super) legend: Vec<(Option<Sample>, String)>,
    pub(super) layout: Layout,
    pub(super) no_data: bool,
}

impl<'a> BarPlot<'a> {
    pub(super) fn new(
        spec: &PlotSpec<'a>,
        groups: &[String],
        series: &[BarSeries],
        reference: Option<f64>,
    ) -> Self {
        let ty = |v: f64| plot_y(v, spec.log_y);
        let bar_w = GROUP_FILL / series.len().max(1) as f64;
        let (mut ys, mut bars) = (None, Vec::new());
        for (s, ser) in series.iter().enumerate() {
            // Missing values (a short series) are no bars; extra ones are ignored.
            for (g, &v) in ser.values.iter().take(groups.len()).enumerate() {
                // An unfinished run has no top (NaN) and leaves the y range alone.
                let unfinished = v == f64::INFINITY;
                let Some(top) = ty(v).or(unfinished.then_some(f64::NAN)) else {
                    continue;
                };
                // Whiskers stop at zero for non-negative values, as a line plot's error bars.
                let e = ser.errors.get(g).copied();
                let e = e.filter(|e| !unfinished && e.is_finite() && *e > 0.0);
                let low = |e: f64| if v >= 0.0 { (v - e).max(0.0) } else { v - e };
                let whisker = e.and_then(|e| Some((ty(low(e)), ty(v + e)?)));
                let tops = [Some(top).filter(|t| t.is_finite()), whisker.map(|w| w.1)];
                tops.into_iter().flatten().for_each(|t| extend(&mut ys, t));
                let left = g as f64 - GROUP_FILL / 2.0 + s as f64 * bar_w;
                let (group, series, right) = (g, s, left + bar_w);
                let bar = GroupedBar {
                    group,
                    series,
                    left,
                    right,
                    top,
                    unfinished,
                    whisker,
                };
                bars.push(bar);
            }
        }
        let reference = reference.and_then(ty);
        reference.into_iter().for_each(|r| extend(&mut ys, r));
        let (lo, hi) = frame::bounds(ys, spec.log_y);
        // On a log axis bars grow from the bottom: room below the smallest for it to show.
        let lo = if spec.log_y {
            (lo - 0.05 * (hi - lo)).max(-307.0)
        } else {
            lo
        };

        let named = series
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.label.is_empty());
        let label = |s: &BarSeries| truncate(&s.label, super::LEGEND_MAX_CHARS);
        let mut legend: Vec<_> = named.map(|(i, s)| (Sample::Series(i), label(s))).collect();
        if bars.iter().any(|b| b.unfinished) {
            legend.push((Sample::Open, UNFINISHED_LABEL.to_string()));
        }
        let (legend, panel) = frame::legend_panel(&legend, spec);
        let layout = Layout::new(spec, (lo, hi), panel);
        let labels: Vec<String> = groups
            .iter()
            .map(|g| truncate(g, BAR_LABEL_CHARS))
            .collect();
        // Every k-th group labelled (k = 1, 2, 5, 10, ...), so that labels never touch.
        let slot = layout.plot_width(spec) / labels.len().max(1) as f64;
        let widest = labels.iter().map(|l| text_width(l, TICK_FONT)).max();
        let need = (f64::from(widest.unwrap_or(0)) + GROUP_LABEL_GAP) / slot;
        let mut steps = (0..19u32).flat_map(|e| [1usize, 2, 5].map(|m| m * 10usize.pow(e)));
        BarPlot {
            spec: *spec,
            y: (lo, hi),
            labels,
            label_step: steps.find(|&s| s as f64 >= need).unwrap_or(usize::MAX),
            no_data: bars.is_empty(),
            bars,
            bar_w,
            reference,
            legend,
            layout,
        }
    }

    pub(super) fn draw(&self, root: &Area) -> Result<()> {
        let ((y0, y1), n) = (self.y, self.labels.len());
        let (x0, x1) = if n == 0 {
            (0.0, 1.0)
        } else {
            (-0.5, n as f64 - 0.5)
        };
        // A label at every label_step-th group centre (plotters' ticks at 1, 2, 5, 10, ...).
        let x_format = |v: &f64| {
            let i = v.round();
            let on = (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) % self.label_step == 0;
            (self.labels.get(i as usize).filter(|_| on).cloned()).unwrap_or_default()
        };
        let axes = Axes {
            x: x0..x1,
            y: y0..y1,
            x_labels: n.div_ceil(self.label_step.max(1)).max(1),
            x_format: &x_format,
            x_grid: false,
        };
        let mut chart = frame::chart(root, &self.spec, &self.layout, &axes)?;

        let bar_px = self.layout.plot_width(&self.spec) * self.bar_w / (x1 - x0);
        // Narrow bars lose their outline, which would otherwise hide them.
        let outline = bar_px >= 6.0;
        let base = if self.spec.log_y { y0 } else { 0.0 };
        for b in &self.bars {
            let colour = curve_style(b.series).0;
            if b.unfinished {
                // An open bar to the top, an arrowhead saying "off the chart".
                let r = [(b.left, base.max(y0)), (b.right, y1)];
                let open = Rectangle::new(r, colour.stroke_width(OPEN_BAR_W));
                let (w, half) = (OPEN_BAR_W as i32, ((bar_px / 2.0) as i32 - 3).max(2));
                let head = vec![(0, w), (-half, w + half), (half, w + half)];
                let at = ((b.left + b.right) / 2.0, y1);
                let arrow = EmptyElement::at(at) + Polygon::new(head, colour.filled());
                chart.draw_series([open]).map_err(draw_err)?;
                chart.draw_series([arrow]).map_err(draw_err)?;
                continue;
            }
            let r = [(b.left, base), (b.right, b.top.max(y0))];
            let edge = [Rectangle::new(r, BLACK.stroke_width(1))].into_iter();
            chart
                .draw_series([Rectangle::new(r, colour.filled())])
                .map_err(draw_err)?;
            chart
                .draw_series(edge.filter(|_| outline))
                .map_err(draw_err)?;
        }
        // Whiskers over the bars, in black so that they show on every colour.
        let style = BLACK.stroke_width(2);
        let cap = ((bar_px / 4.0).round() as i32).clamp(2, 6);
        for b in &self.bars {
            if let Some(w) = b.whisker {
                frame::interval(&mut chart, (b.left + b.right) / 2.0, w, cap, style)?;
            }
        }
        if let Some(r) = self.reference {
            let style = REFERENCE_COLOUR.stroke_width(2);
            let line = DashedPathElement::new(vec![(x0, r), (x1, r)], 10, 6, style);
            chart.draw_series([line]).map_err(draw_err)?;
        }
        frame::finish(&chart, &axes, self.no_data)?;
        if self.legend.is_empty() {
            return Ok(());
        }
        frame::legend(root, &self.spec, &self.layout, |chart| {
            let (l, r, h) = (5, 32, 9);
            let swatch = [(l, -h), (r, h)];
            for (sample, label) in &self.legend {
                let none = std::iter::empty::<Rectangle<(f64, f64)>>();
                let anno = chart.draw_series(none).map_err(draw_err)?;
                anno.label(label.as_str());
                // Transparent parts are not drawn.
                let (fill, edge, arrow): (ShapeStyle, _, ShapeStyle) = match sample {
                    Some(Sample::Series(s)) => (curve_style(*s).0.filled(), 1, TRANSPARENT.into()),
                    Some(Sample::Open) => (TRANSPARENT.into(), OPEN_BAR_W, LEGEND_EDGE.filled()),
                    None => continue,
                };
                let edge = if edge == 1 { BLACK } else { LEGEND_EDGE }.stroke_width(edge);
                let head = vec![((l + r) / 2, -h), (l, h / 2), (r, h / 2)];
                anno.legend(move |at| {
                    EmptyElement::at(at)
                        + Rectangle::new(swatch, fill)
                        + Rectangle::new(swatch, edge)
                        + Polygon::new(head.clone(), arrow)
                });
            }
            Ok(())
        })
    }
}
