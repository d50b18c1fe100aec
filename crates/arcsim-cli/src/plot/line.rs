//! Line plots: curves with markers and error bars, and where their legend goes
//! (a free corner, room made above the data, or a panel on the right).

use anyhow::Result;
use plotters::prelude::*;

use super::axis::{
    draw_axes, draw_background, linear_bounds, log_bounds, plot_y, usable, Axis, Extent, Geometry,
};
use super::legend::{
    max_y_over_x_span, segment_hits_rect, Legend, LegendEntry, LegendPlace, Obstacle, Sample,
};
use super::text::Txt;
use super::text::{truncate, Canvas};
use super::{
    curve_style, draw_err, marker_elem, Curve, LineExtras, Marker, PlotSpec, Render, DENSE_POINTS,
    HEIGHT, LEGEND_FONT, LEGEND_INSET, LEGEND_MAX_CHARS, LINE_W, MARGIN_RIGHT, MARGIN_TOP,
    MARKER_R, MAX_ABS, NOTE, SPARSE_MARKERS, WIDTH,
};
use plotters::style::text_anchor::{HPos, VPos};

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
    /// A marker on every `stride`-th point (1 below [`DENSE_POINTS`] points); a point
    /// alone in its run always has one.
    stride: usize,
}

impl PreparedCurve {
    /// The points that get a marker.
    fn marked(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let mut i = 0;
        self.runs.iter().flat_map(move |run| {
            let alone = run.len() == 1;
            run.iter()
                .filter(move |_| {
                    let keep = alone || i % self.stride == 0;
                    i += 1;
                    keep
                })
                .copied()
                .collect::<Vec<_>>()
        })
    }
}

pub(super) struct LinePlot<'a> {
    /// Texts and scale, as the caller gave them.
    spec: PlotSpec<'a>,
    x: Axis,
    y: Axis,
    curves: Vec<PreparedCurve>,
    legend: Option<(Legend, LegendPlace)>,
    geo: Geometry,
    no_data: bool,
    vline: Option<(f64, String)>,
}

impl<'a> LinePlot<'a> {
    #[cfg(test)]
    pub(super) fn new(spec: &PlotSpec<'a>, curves: &[Curve]) -> Self {
        LinePlot::new_with(spec, curves, &LineExtras::default())
    }

    /// Markers drawn on curve `i`.
    #[cfg(test)]
    pub(super) fn marked_count(&self, i: usize) -> usize {
        self.curves[i].marked().count()
    }

    /// The x axis' range.
    #[cfg(test)]
    pub(super) fn x_bounds(&self) -> (f64, f64) {
        (self.x.lo, self.x.hi)
    }

    pub(super) fn new_with(spec: &PlotSpec<'a>, curves: &[Curve], extras: &LineExtras) -> Self {
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
            let n: usize = runs.iter().map(Vec::len).sum();
            let stride = if n < DENSE_POINTS {
                1
            } else {
                n.div_ceil(SPARSE_MARKERS)
            };
            prepared.push(PreparedCurve {
                colour,
                marker,
                runs,
                error_bars,
                stride,
            });
        }

        let no_data = x_ext.0.is_none();
        let vline = extras.vline.clone().filter(|(x, _)| usable(*x));
        if let Some((a, b)) = extras.x_range.filter(|(a, b)| usable(*a) && usable(*b)) {
            x_ext.add(a);
            x_ext.add(b);
        }
        if let Some((x, _)) = &vline {
            x_ext.add(*x);
        }
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

        let mut obstacles = obstacles(&prepared);
        if let Some((x, _)) = &vline {
            obstacles.push(Obstacle {
                a: (*x, -1e308),
                b: (*x, 1e308),
                pad: 4.0,
            });
        }
        let mut plot = LinePlot {
            spec: *spec,
            geo: Geometry::new(spec, &y, 0),
            x,
            y,
            curves: prepared,
            legend: None,
            no_data,
            vline,
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
            let cap = if self.spec.log_y {
                307.0
            } else {
                2.0 * MAX_ABS
            };
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
        }
        for p in c.marked() {
            out.push(Obstacle {
                a: p,
                b: p,
                pad: f64::from(MARKER_R) + 3.0,
            });
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

impl Render for LinePlot<'_> {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let mut chart = draw_background(canvas, self.spec.title, &self.geo, x, y, true)?;

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
            for p in c.marked() {
                area.draw(&marker_elem::<DB, _>(p, c.marker, c.colour))
                    .map_err(draw_err)?;
            }
        }
        if let Some((vx, label)) = &self.vline {
            // Dashed: 8 pixels on, 6 off, from the bottom of the plot to its top.
            let (top, bottom) = (
                chart.backend_coord(&(*vx, y.hi)),
                chart.backend_coord(&(*vx, y.lo)),
            );
            let style = NOTE.stroke_width(2);
            let mut py = bottom.1;
            while py > top.1 {
                let end = (py - 8).max(top.1);
                canvas
                    .root
                    .draw(&PathElement::new(vec![(top.0, py), (top.0, end)], style))
                    .map_err(draw_err)?;
                py = end - 6;
            }
            let t = Txt::new(LEGEND_FONT, HPos::Left, VPos::Top);
            canvas.text(label, (top.0 + 6, top.1 + 4), t)?;
        }

        draw_axes(canvas, &chart, &self.spec, &self.geo, x, y, self.no_data)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::tests::{pt, spec};

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
