//! Line plots: curves with markers and error bars, a marked x, and the legend in a free
//! corner of the plot (raising the y axis to make one if needed) or in a panel on the right.

use anyhow::Result;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{self, plot_y, text_width, ticks, usable, Axes, Layout};
use super::frame::{extend, legend_size, LEGEND_INSET, LEGEND_SAMPLE};
use super::{curve_style, draw_err, Area, Curve, LineExtras, Marker, MarkerElem, PlotSpec};
use super::{DENSE_POINTS, FONT, LEGEND_FONT, LINE_W, MARKER_R, NOTE, SPARSE_MARKERS, TICK_FONT};

/// A curve in plot coordinates (y is log10(y) on a log axis).
pub(super) struct PreparedCurve {
    label: String,
    colour: RGBColor,
    marker: Marker,
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

/// A legend entry: the curve it shows (None for "… (n more)") and its label.
type Entry = (Option<usize>, String);

/// Where the legend goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LegendPlace {
    /// Top-left corner, in pixels from the plot area's top-left corner.
    Inside(i32, i32),
    /// In a panel right of the chart.
    Outside,
}

pub(super) struct LinePlot<'a> {
    spec: PlotSpec<'a>,
    pub(super) curves: Vec<PreparedCurve>,
    /// Axis ranges in plot coordinates.
    pub(super) x: (f64, f64),
    pub(super) y: (f64, f64),
    layout: Layout,
    /// The legend's entries and place.
    pub(super) legend: Option<(Vec<Entry>, LegendPlace)>,
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
            let (colour, marker) = curve_style(i);
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
                    let low = if nonnegative {
                        (p.y - ci).max(0.0)
                    } else {
                        p.y - ci
                    };
                    let bottom = ty(low);
                    extend(&mut ys, top);
                    bottom.into_iter().for_each(|b| extend(&mut ys, b));
                    error_bars.push((p.x, bottom, top));
                }
            }
            runs.retain(|r| !r.is_empty());
            let n: usize = runs.iter().map(Vec::len).sum();
            let stride = if n < DENSE_POINTS {
                1
            } else {
                n.div_ceil(SPARSE_MARKERS)
            };
            let label = frame::truncate(&c.label, super::LEGEND_MAX_CHARS);
            prepared.push(PreparedCurve {
                label,
                colour,
                marker,
                runs,
                error_bars,
                stride,
            });
        }
        let no_data = xs.is_none();
        let vline = extras.vline.clone().filter(|(x, _)| usable(*x));
        let range = extras.x_range.filter(|(a, b)| usable(*a) && usable(*b));
        for x in range
            .into_iter()
            .flat_map(|(a, b)| [a, b])
            .chain(vline.iter().map(|v| v.0))
        {
            extend(&mut xs, x);
        }
        let mut plot = LinePlot {
            spec: *spec,
            layout: Layout::new(spec, &[], 0),
            x: frame::bounds(xs, false),
            y: frame::bounds(ys, spec.log_y),
            curves: prepared,
            legend: None,
            no_data,
            vline,
        };
        plot.layout = Layout::new(spec, &plot.y_labels(), 0);
        plot.place_legend();
        plot
    }

    fn y_labels(&self) -> Vec<String> {
        let t = ticks(self.y.0, self.y.1, 6);
        t.iter().map(frame::y_format(&t, self.spec.log_y)).collect()
    }

    /// Puts the legend in the first free corner of the plot (upper-left first); failing
    /// that, raises the top of the y axis to free a band as high as the legend and tries
    /// again; failing that (huge legends), in a panel on the right.
    fn place_legend(&mut self) {
        let curves = self.curves.iter().enumerate();
        let entries: Vec<Entry> = (curves.filter(|(_, c)| !c.label.is_empty()))
            .map(|(i, c)| (Some(i), c.label.clone()))
            .collect();
        let labels: Vec<String> = entries.iter().map(|e| e.1.clone()).collect();
        if labels.is_empty() {
            return;
        }
        let (w, h) = legend_size(&labels);
        for raise in [false, true] {
            let (pw, ph) = self.layout.plot_size();
            if w + 2 * LEGEND_INSET > pw || h + 2 * LEGEND_INSET > ph * 6 / 10 {
                break;
            }
            if raise {
                let band = f64::from(h + LEGEND_INSET + 8) / f64::from(ph);
                self.y.1 = self.y.0 + (self.y.1 - self.y.0) / (1.0 - band);
                self.layout = Layout::new(&self.spec, &self.y_labels(), 0);
            }
            let (pw, ph) = self.layout.plot_size();
            let ink = self.ink(f64::from(pw), f64::from(ph));
            let (right, bottom) = (pw - LEGEND_INSET - w, ph - LEGEND_INSET - h);
            let corners = [
                (LEGEND_INSET, LEGEND_INSET),
                (right, LEGEND_INSET),
                (right, bottom),
            ];
            let free = corners
                .into_iter()
                .chain([(LEGEND_INSET, bottom)])
                .find(|&(cx, cy)| {
                    let (x0, y0, x1, y1) = (cx as f64, cy as f64, (cx + w) as f64, (cy + h) as f64);
                    !(ink.iter())
                        .any(|&(x, y, d)| x + d >= x0 && x - d <= x1 && y + d >= y0 && y - d <= y1)
                });
            if let Some((cx, cy)) = free {
                self.legend = Some((entries, LegendPlace::Inside(cx, cy)));
                return;
            }
        }
        let shown = frame::panel_entries(&labels, self.layout.title_h);
        let texts: Vec<String> = shown.iter().map(|e| e.1.clone()).collect();
        let panel = (legend_size(&texts).0 + 4).min(400) as u32;
        self.layout = Layout::new(&self.spec, &self.y_labels(), panel);
        let entries = shown
            .into_iter()
            .map(|(k, l)| (k.and_then(|k| entries[k].0), l));
        self.legend = Some((entries.collect(), LegendPlace::Outside));
    }

    /// Everything drawn in a `pw` x `ph` plot area, as pixels (x, y down, clearance):
    /// markers, error bars, the marked x, and points every 3 pixels along the lines.
    fn ink(&self, pw: f64, ph: f64) -> Vec<(f64, f64, f64)> {
        let ((x0, x1), (y0, y1)) = (self.x, self.y);
        let px = |(x, y): (f64, f64)| ((x - x0) / (x1 - x0) * pw, (y1 - y) / (y1 - y0) * ph);
        let mut out = Vec::new();
        let mut segment = |a, b, pad: i32| {
            let (a, b) = (px(a), px(b));
            let n = ((b.0 - a.0).hypot(b.1 - a.1) / 3.0)
                .ceil()
                .clamp(1.0, 2000.0);
            for k in 0..=n as usize {
                let t = k as f64 / n;
                out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1), f64::from(pad)));
            }
        };
        for c in &self.curves {
            for w in c.runs.iter().flat_map(|r| r.windows(2)) {
                segment(w[0], w[1], LINE_W as i32 + 2);
            }
            c.marked()
                .into_iter()
                .for_each(|p| segment(p, p, MARKER_R + 3));
            for &(x, bottom, top) in &c.error_bars {
                segment((x, bottom.unwrap_or(y0).max(y0)), (x, top), 6);
            }
        }
        if let Some((x, _)) = &self.vline {
            segment((*x, y0), (*x, y1), 4);
        }
        out
    }

    pub(super) fn draw(&self, root: &Area) -> Result<()> {
        let ((x0, x1), (y0, y1)) = (self.x, self.y);
        // As many x ticks (up to 7) as fit without their labels touching.
        let pw = f64::from(self.layout.plot_size().0);
        let fits = |t: &Vec<f64>| {
            let widest = t
                .iter()
                .map(|v| text_width(&frame::linear_format(t)(v), TICK_FONT));
            let gap = t
                .get(1)
                .map_or(f64::INFINITY, |b| (b - t[0]) / (x1 - x0) * pw);
            f64::from(widest.max().unwrap_or(0)) + 12.0 <= gap
        };
        let x_labels = (2..=7)
            .rev()
            .find(|&n| fits(&ticks(x0, x1, n)))
            .unwrap_or(2);
        let y_ticks = ticks(y0, y1, 6);
        let axes = Axes {
            x: x0..x1,
            y: y0..y1,
            x_labels,
            x_format: &frame::linear_format(&ticks(x0, x1, x_labels)),
            y_format: &frame::y_format(&y_ticks, self.spec.log_y),
            x_grid: true,
            x_label_size: TICK_FONT,
        };
        let mut chart = frame::chart(root, &self.spec, &self.layout, &axes)?;

        // Error bars first, then lines, then markers, so markers stay on top.
        for c in &self.curves {
            let style = c.colour.stroke_width(1);
            for &(x, bottom, top) in &c.error_bars {
                let bottom = bottom.unwrap_or(y0).max(y0);
                let bar = PathElement::new(vec![(x, bottom), (x, top)], style);
                // Caps are fixed-width in pixels, so drawn relative to the ends.
                let ends = [Some(bottom).filter(|b| *b > y0), Some(top)]
                    .into_iter()
                    .flatten();
                let caps = ends.map(|y| {
                    EmptyElement::at((x, y)) + PathElement::new(vec![(-4, 0), (4, 0)], style)
                });
                chart.draw_series([bar]).map_err(draw_err)?;
                chart.draw_series(caps).map_err(draw_err)?;
            }
        }
        for c in &self.curves {
            let lines = c.runs.iter().filter(|r| r.len() > 1);
            let style = c.colour.stroke_width(LINE_W);
            let paths = lines.map(|r| PathElement::new(r.clone(), style));
            chart.draw_series(paths).map_err(draw_err)?;
        }
        for c in &self.curves {
            let (marker, colour) = (c.marker, c.colour);
            let markers = c.marked().into_iter();
            let elems = markers.map(|at| MarkerElem {
                at,
                marker,
                colour,
                line: 0,
            });
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

        let Some((entries, place)) = &self.legend else {
            return Ok(());
        };
        let inside = match place {
            LegendPlace::Inside(cx, cy) => Some((*cx, *cy)),
            LegendPlace::Outside => None,
        };
        frame::legend(root, &mut chart, &self.layout, inside, |chart| {
            for (i, label) in entries {
                let none = std::iter::empty::<PathElement<(f64, f64)>>();
                let anno = chart.draw_series(none).map_err(draw_err)?;
                anno.label(label.as_str());
                if let Some(c) = i.map(|i| &self.curves[i]) {
                    let (colour, marker, half) = (c.colour, c.marker, LEGEND_SAMPLE / 2 - 4);
                    let at = move |(x, y): (i32, i32)| (x + half, y);
                    anno.legend(move |p| MarkerElem {
                        at: at(p),
                        marker,
                        colour,
                        line: half,
                    });
                }
            }
            Ok(())
        })
    }
}
