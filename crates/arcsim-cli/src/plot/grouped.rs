//! Grouped bar charts: one bar per series in each group, confidence whiskers,
//! open bars for runs that did not finish, a dashed reference line.

use anyhow::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{
    corners, draw_axes, draw_background, linear_bounds, log_bounds, plot_y, Axis, Extent, Geometry,
};
use super::bar::{label_stride, BAR_LABEL_CHARS};
use super::legend::{Legend, LegendEntry, Sample};
use super::text::{fit_size, text_width, truncate, Canvas, Txt};
use super::{
    curve_style, draw_err, BarSeries, PlotSpec, Render, HEIGHT, LEGEND_EDGE, LEGEND_MAX_CHARS,
    MARGIN_RIGHT, MARGIN_TOP, TICK_FONT, TICK_GAP, TICK_LEN, WIDTH,
};

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
pub(super) const OPEN_BAR_W: u32 = 3;
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

pub(super) struct GroupedBarPlot<'a> {
    /// Texts and scale, as the caller gave them.
    spec: PlotSpec<'a>,
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

impl<'a> GroupedBarPlot<'a> {
    pub(super) fn new(
        spec: &PlotSpec<'a>,
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
            spec: *spec,
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

impl Render for GroupedBarPlot<'_> {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let mut chart = draw_background(canvas, self.spec.title, &self.geo, x, y, false)?;

        let bar_px = f64::from(self.geo.plot_size().0) * self.bar_w / (x.hi - x.lo);
        // Narrow bars lose their outline, which would otherwise hide them.
        let outline = bar_px >= 6.0;
        let base = if self.spec.log_y { y.lo } else { 0.0 };
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

        draw_axes(canvas, &chart, &self.spec, &self.geo, x, y, self.no_data)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::tests::{check_outputs, test_dir};
    use crate::plot::{grouped_bar_plot, with_suffix};

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
}
