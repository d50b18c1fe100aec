//! Bar charts, grouped or not: one bar per series in each group, confidence whiskers, open
//! bars for runs that did not finish, a dashed reference line, group labels shrunk or
//! thinned so that they never touch, and the legend in a panel right of the chart.

use anyhow::Result;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::frame::{self, extend, fit_size, plot_y, text_width, ticks, truncate, Axes, Layout};
use super::{curve_style, draw_err, Area, BarSeries, PlotSpec, LEGEND_EDGE, TICK_FONT};

/// Fraction of a group's slot covered by its bars; the rest is the gap between groups.
const GROUP_FILL: f64 = 0.8;
/// Horizontal clearance, in pixels, kept between neighbouring group labels.
const GROUP_LABEL_GAP: f64 = 8.0;
const BAR_LABEL_CHARS: usize = 24;
pub(super) const REFERENCE_COLOUR: RGBColor = RGBColor(64, 64, 64);
/// Border width of an open bar (a run that did not finish).
const OPEN_BAR_W: u32 = 3;
/// Legend text of the open bars.
pub(super) const UNFINISHED_LABEL: &str = "did not finish";

/// What a legend entry shows left of its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sample {
    /// A filled box of the series' colour.
    Series(usize),
    /// An open box with an upward arrowhead: a bar that runs off the top (did not finish).
    Open,
    /// Nothing: the "… (n more)" entry.
    None,
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
    /// Group labels (truncated), their size, and every how many groups one is shown.
    labels: Vec<String>,
    pub(super) label_size: u32,
    pub(super) label_step: usize,
    pub(super) bars: Vec<GroupedBar>,
    /// Width of one bar in plot-x units.
    bar_w: f64,
    /// Plot-y of the reference line.
    pub(super) reference: Option<f64>,
    pub(super) legend: Vec<(Sample, String)>,
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
                bars.push(GroupedBar {
                    group,
                    series,
                    left,
                    right,
                    top,
                    unfinished,
                    whisker,
                });
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
        let mut legend: Vec<(Sample, String)> = named
            .map(|(i, s)| {
                (
                    Sample::Series(i),
                    truncate(&s.label, super::LEGEND_MAX_CHARS),
                )
            })
            .collect();
        if bars.iter().any(|b| b.unfinished) {
            legend.push((Sample::Open, UNFINISHED_LABEL.to_string()));
        }
        // As many entries as the panel holds, the rest summarised in a last one.
        let labels: Vec<String> = legend.iter().map(|e| e.1.clone()).collect();
        let shown = frame::panel_entries(&labels, Layout::new(spec, &[], 0).title_h);
        let legend: Vec<_> = (shown.into_iter())
            .map(|(k, l)| (k.map_or(Sample::None, |k| legend[k].0), l))
            .collect();
        let texts: Vec<String> = legend.iter().map(|e| e.1.clone()).collect();
        let panel = match legend.is_empty() {
            true => 0,
            false => (frame::legend_size(&texts).0 + 4).min(400) as u32,
        };
        let y_ticks = ticks(lo, hi, 6);
        let y_labels: Vec<String> = y_ticks
            .iter()
            .map(frame::y_format(&y_ticks, spec.log_y))
            .collect();
        let mut plot = BarPlot {
            spec: *spec,
            y: (lo, hi),
            labels: groups
                .iter()
                .map(|g| truncate(g, BAR_LABEL_CHARS))
                .collect(),
            label_size: TICK_FONT,
            label_step: 1,
            no_data: bars.is_empty(),
            bars,
            bar_w,
            reference,
            legend,
            layout: Layout::new(spec, &y_labels, panel),
        };
        plot.fit_labels();
        plot
    }

    /// Group labels: the font shrunk (down to 60%) until the widest label fits its group's
    /// slot; if even that is too wide, full size on every k-th group (k = 1, 2, 5, 10, ...).
    fn fit_labels(&mut self) {
        let slot = f64::from(self.layout.plot_size().0) / self.labels.len().max(1) as f64;
        let room = (slot - GROUP_LABEL_GAP).max(1.0) as i32;
        let widest = |size| self.labels.iter().map(|l| text_width(l, size)).max();
        let fitted = self
            .labels
            .iter()
            .map(|l| fit_size(l, TICK_FONT, room))
            .min();
        let fitted = fitted.filter(|&size| widest(size).unwrap_or(0) as i32 <= room);
        self.label_size = fitted.unwrap_or(TICK_FONT);
        let need = (f64::from(widest(self.label_size).unwrap_or(0)) + GROUP_LABEL_GAP) / slot;
        let steps = (0..20u32).flat_map(|e| [1usize, 2, 5].map(|m| m * 10usize.pow(e.min(18))));
        self.label_step = steps
            .into_iter()
            .find(|&s| s as f64 >= need)
            .unwrap_or(usize::MAX);
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
            y_format: &frame::y_format(&ticks(y0, y1, 6), self.spec.log_y),
            x_grid: false,
            x_label_size: self.label_size,
        };
        let mut chart = frame::chart(root, &self.spec, &self.layout, &axes)?;

        let bar_px = f64::from(self.layout.plot_size().0) * self.bar_w / (x1 - x0);
        // Narrow bars lose their outline, which would otherwise hide them.
        let outline = bar_px >= 6.0;
        let base = if self.spec.log_y { y0 } else { 0.0 };
        for b in &self.bars {
            let colour = curve_style(b.series).0;
            if b.unfinished {
                // A run that did not finish: an open bar to the top, an arrowhead saying
                // "off the chart".
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
            let edge = Rectangle::new(r, BLACK.stroke_width(1));
            chart
                .draw_series([Rectangle::new(r, colour.filled())])
                .map_err(draw_err)?;
            chart
                .draw_series([edge].into_iter().filter(|_| outline))
                .map_err(draw_err)?;
        }
        // Whiskers over the bars, in black so that they show on every colour.
        let (style, cap) = (
            BLACK.stroke_width(2),
            ((bar_px / 4.0).round() as i32).clamp(2, 6),
        );
        for b in &self.bars {
            let Some((bottom, top)) = b.whisker else {
                continue;
            };
            let (mid, bottom) = ((b.left + b.right) / 2.0, bottom.unwrap_or(y0).max(y0));
            let line = PathElement::new(vec![(mid, bottom), (mid, top.min(y1))], style);
            let ends = [
                Some(bottom).filter(|v| *v > y0),
                Some(top).filter(|v| *v <= y1),
            ];
            let caps = ends.into_iter().flatten().map(|v| {
                EmptyElement::at((mid, v)) + PathElement::new(vec![(-cap, 0), (cap, 0)], style)
            });
            chart.draw_series([line]).map_err(draw_err)?;
            chart.draw_series(caps).map_err(draw_err)?;
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
        frame::legend(root, &mut chart, &self.layout, None, |chart| {
            let (l, r, h) = (5, 32, 9);
            let swatch = [(l, -h), (r, h)];
            for (sample, label) in &self.legend {
                let none = std::iter::empty::<Rectangle<(f64, f64)>>();
                let anno = chart.draw_series(none).map_err(draw_err)?;
                anno.label(label.as_str());
                // Transparent parts are not drawn.
                let (fill, edge, arrow): (ShapeStyle, _, ShapeStyle) = match *sample {
                    Sample::Series(s) => (curve_style(s).0.filled(), 1, TRANSPARENT.into()),
                    Sample::Open => (TRANSPARENT.into(), OPEN_BAR_W, LEGEND_EDGE.filled()),
                    Sample::None => continue,
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
