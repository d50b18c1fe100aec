//! Tests of the plots: files written (SVG, PDF, PNG with its text drawn), layouts (ranges,
//! markers, legend placement, bars, labels), hostile inputs and I/O errors.

use super::bars::{BarPlot, Sample, REFERENCE_COLOUR, UNFINISHED_LABEL};
use super::frame::{self, text_width, ticks};
use super::line::{LegendPlace, LinePlot};
use super::*;

/// A fresh directory per test (tests run in parallel).
fn test_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("arcsim-plot-test-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

fn read_svg(stem: &Path) -> String {
    std::fs::read_to_string(with_suffix(stem, "svg")).expect("svg written")
}

fn check_outputs(stem: &Path, title: &str) {
    let png = std::fs::read(with_suffix(stem, "png")).expect("png written");
    assert!(png.len() > 5_000, "png too small: {} bytes", png.len());
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = read_svg(stem);
    assert!(svg.contains(title), "svg lacks the title");
    assert!(svg.contains("<text"));
    let pdf = std::fs::read(with_suffix(stem, "pdf")).expect("pdf written");
    assert!(pdf.starts_with(b"%PDF-") && pdf.len() > 1000, "not a PDF");
}

/// Whether the SVG has a text element saying exactly `text`.
fn svg_has_text(svg: &str, text: &str) -> bool {
    svg.contains(&format!("\n{text}\n</text>"))
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

fn curve(label: impl Into<String>, points: Vec<Point>) -> Curve {
    let label = label.into();
    Curve { label, points }
}

fn bar(label: impl Into<String>, value: f64) -> Bar {
    let label = label.into();
    Bar { label, value }
}

fn ser(label: impl Into<String>, values: Vec<f64>) -> BarSeries {
    let (label, errors) = (label.into(), Vec::new());
    BarSeries {
        label,
        values,
        errors,
    }
}

fn latency_curves() -> Vec<Curve> {
    ["mesh 8x8 XY", "torus 8x8 DOR", "dragonfly UGAL"]
        .iter()
        .enumerate()
        .map(|(k, label)| {
            curve(
                label.to_string(),
                (1..=10)
                    .map(|i| {
                        let x = i as f64 * 0.05;
                        let sat = 0.35 + 0.1 * k as f64;
                        let y = 20.0 + 5.0 * k as f64 + 8.0 / (sat - x).max(0.02);
                        pt(x, y, Some(0.04 * y))
                    })
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn line_plot_writes_svg_pdf_and_png() {
    let dir = test_dir("line");
    let stem = dir.join("latency");
    line_plot(&stem, &spec("Latency vs load", false), &latency_curves()).unwrap();
    check_outputs(&stem, "Latency vs load");
    let svg = read_svg(&stem);
    for label in [
        "mesh 8x8 XY",
        "dragonfly UGAL",
        "0.5",
        "Average latency (cycles)",
    ] {
        assert!(svg_has_text(&svg, label), "svg lacks {label}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The PNG's text is drawn with the embedded font whatever fonts the machine has: the
/// title band and the x axis title hold dark pixels; a plot without texts has none there.
#[test]
fn png_text_is_drawn_with_the_embedded_font() {
    let dir = test_dir("png-text");
    let dark_in = |stem: &Path, rows: std::ops::Range<u32>| {
        let png = std::fs::read(with_suffix(stem, "png")).unwrap();
        let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
        rows.flat_map(|y| (0..WIDTH).map(move |x| (x, y)))
            .filter(|&(x, y)| pixmap.pixel(x, y).is_some_and(|p| p.red() < 100))
            .count()
    };
    let stem = dir.join("titled");
    line_plot(
        &stem,
        &spec("A title in DejaVu Sans", false),
        &latency_curves(),
    )
    .unwrap();
    assert!(dark_in(&stem, 10..36) > 300, "no title drawn");
    assert!(
        dark_in(&stem, HEIGHT - 40..HEIGHT - 10) > 200,
        "no axis title drawn"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ticks_are_nice() {
    let labels = |lo: f64, hi: f64, n: usize| {
        let t = ticks(lo, hi, n);
        let f = frame::linear_format(&t);
        t.iter().map(f).collect::<Vec<_>>()
    };
    assert_eq!(
        labels(0.0, 1.05, 6),
        ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    );
    assert_eq!(labels(0.0, 5e7, 5), ["0", "2e7", "4e7"]);
    assert_eq!(
        labels(0.0, 1.05e6, 7),
        ["0", "2e5", "4e5", "6e5", "8e5", "1e6"]
    );
    assert_eq!(labels(-1.0, 0.0, 6)[..2], ["-1.0", "-0.8"]);
    let log_ticks = ticks(-2.1, 3.2, 6);
    let log: Vec<String> = log_ticks
        .iter()
        .map(frame::y_format(&log_ticks, true))
        .collect();
    assert_eq!(log, ["0.01", "0.1", "1", "10", "100", "1000"]);
    assert_eq!(frame::y_format(&[], true)(&-7.0), "1e-7");
}

#[test]
fn long_titles_break_into_two_lines_that_fit() {
    let long = "OFAR paper Fig. 7: transient from ADVG+2 to ADVG+6 at load 0.12, OFAR with BCM, ECM and without congestion management";
    let lines = frame::title_lines(long, TITLE_FONT, WIDTH as i32 - 40);
    assert_eq!(lines.len(), 2, "{lines:?}");
    // Broken at the space nearest the middle, or after a colon near it.
    assert!(lines[0].0.ends_with("load"), "{lines:?}");
    for (line, size) in &lines {
        assert!(
            text_width(line, *size) as i32 <= WIDTH as i32 - 40,
            "{line}"
        );
    }
    assert_eq!(lines[0].0.len() + lines[1].0.len() + 1, long.len());
    let colon = "Fig. 8 bursts of 2,000 packets per node on the OFAR paper's network: consumption time of every routing, traffic mix and injection setting";
    let lines = frame::title_lines(colon, TITLE_FONT, WIDTH as i32 - 40);
    assert!(lines[0].0.ends_with("network:"), "{lines:?}");
    assert_eq!(frame::title_lines("short", TITLE_FONT, 960).len(), 1);
    // Both lines are in the SVG.
    let dir = test_dir("title");
    line_plot(&dir.join("t"), &spec(long, false), &latency_curves()).unwrap();
    let svg = read_svg(&dir.join("t"));
    assert!(svg_has_text(&svg, &lines_of(long)[0]) && svg_has_text(&svg, &lines_of(long)[1]));
    let _ = std::fs::remove_dir_all(&dir);
}

fn lines_of(title: &str) -> Vec<String> {
    let lines = frame::title_lines(title, TITLE_FONT, WIDTH as i32 - 40);
    lines.into_iter().map(|l| l.0).collect()
}

#[test]
fn dense_curves_get_a_marker_every_few_points_only() {
    let dense = curve(
        "dense",
        (0..25_000)
            .map(|i| pt(i as f64, (i % 100) as f64, None))
            .collect(),
    );
    let sparse = curve("sparse", (0..49).map(|i| pt(i as f64, 1.0, None)).collect());
    let extras = LineExtras::default();
    let plot = LinePlot::new(&spec("t", false), &[dense.clone(), sparse], &extras);
    let (d, s) = (plot.curves[0].marked().len(), plot.curves[1].marked().len());
    assert!((15..=25).contains(&d), "{d} markers on 25,000 points");
    assert_eq!(s, 49, "a curve under 50 points keeps every marker");
    let dir = test_dir("dense");
    let stem = dir.join("dense");
    line_plot(&stem, &spec("dense", false), &[dense]).unwrap();
    let svg = std::fs::metadata(with_suffix(&stem, "svg")).unwrap().len();
    assert!(svg < 2_000_000, "SVG of {svg} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_marked_x_and_a_fixed_range_widen_the_axis() {
    let curves = vec![curve(
        "after",
        vec![pt(10.0, 1.0, None), pt(20.0, 2.0, None)],
    )];
    let extras = LineExtras {
        x_range: Some((-50.0, 30.0)),
        vline: Some((0.0, "traffic change".into())),
    };
    let plot = LinePlot::new(&spec("t", false), &curves, &extras);
    let (lo, hi) = plot.x;
    assert!(lo <= -50.0 && hi >= 30.0, "{lo} {hi}");
    let dir = test_dir("vline");
    let stem = dir.join("vline");
    line_plot_with(&stem, &spec("t", false), &curves, &extras).unwrap();
    let svg = read_svg(&stem);
    assert!(svg_has_text(&svg, "traffic change"));
    // Dashed: many short segments in the note colour.
    let c = NOTE;
    let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
    assert!(svg.matches(&stroke).count() > 10, "no dashed line");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn error_bars_of_non_negative_data_stop_at_zero() {
    // Three seeds of which one collapsed: mean 0.30, half-width 0.66.
    let curves = vec![curve(
        "ECM",
        vec![pt(0.2, 0.2, Some(0.001)), pt(1.0, 0.303, Some(0.66))],
    )];
    let plot = LinePlot::new(&spec("t", false), &curves, &LineExtras::default());
    assert_eq!(plot.y.0, 0.0);
    let bars = &plot.curves[0].error_bars;
    assert_eq!(bars[1].1, Some(0.0));
    assert!((bars[1].2 - 0.963).abs() < 1e-9);
    // A signed quantity keeps its whole interval.
    let curves = vec![curve(
        "signed",
        vec![pt(0.2, -0.1, None), pt(1.0, 0.303, Some(0.66))],
    )];
    let plot = LinePlot::new(&spec("t", false), &curves, &LineExtras::default());
    assert!(plot.y.0 < -0.3, "{}", plot.y.0);
    assert!((plot.curves[0].error_bars[0].1.unwrap() + 0.357).abs() < 1e-9);
}

#[test]
fn the_legend_avoids_the_data_or_goes_outside() {
    let place = |curves: &[Curve]| {
        let plot = LinePlot::new(&spec("t", false), curves, &LineExtras::default());
        plot.legend.expect("a legend").1
    };
    // Data filling the top-left corner pushes the legend elsewhere.
    let falling = vec![curve(
        "falling",
        (0..=10)
            .map(|i| pt(i as f64, 100.0 - 10.0 * i as f64, None))
            .collect(),
    )];
    match place(&falling) {
        LegendPlace::Inside(x, _) => assert!(x > 100, "legend at x={x}"),
        other => panic!("unexpected legend placement {other:?}"),
    }
    // Data in every corner: the y axis grows to free the top band.
    let zigzag = vec![curve(
        "zigzag",
        (0..=20)
            .map(|i| pt(i as f64, if i % 2 == 0 { 0.0 } else { 10.0 }, None))
            .collect(),
    )];
    let plot = LinePlot::new(&spec("t", false), &zigzag, &LineExtras::default());
    assert!(matches!(plot.legend.unwrap().1, LegendPlace::Inside(_, 10)));
    assert!(plot.y.1 > 11.0, "top not raised: {}", plot.y.1);
    // Seventy curves: a panel on the right, the ones that do not fit summarised.
    let many: Vec<Curve> = (0..70)
        .map(|i| {
            curve(
                format!("configuration number {i} with a long name"),
                vec![pt(0.0, i as f64, None), pt(1.0, 2.0 * i as f64, None)],
            )
        })
        .collect();
    let plot = LinePlot::new(&spec("t", false), &many, &LineExtras::default());
    let (entries, place) = plot.legend.unwrap();
    assert_eq!(place, LegendPlace::Outside);
    assert!(entries.len() < 70 && entries.last().unwrap().1.contains("more)"));
}

#[test]
fn bar_plot_writes_svg_pdf_and_png() {
    let dir = test_dir("bar");
    let stem = dir.join("hops");
    let bars: Vec<Bar> = (0..12)
        .map(|h| {
            bar(
                h.to_string(),
                (100.0 * (-(h as f64 - 5.0).powi(2) / 8.0).exp()).round(),
            )
        })
        .collect();
    let s = PlotSpec::linear("Hop-count histogram", "Hops", "Packets");
    bar_plot(&stem, &s, &bars).unwrap();
    check_outputs(&stem, "Hop-count histogram");
    let svg = read_svg(&stem);
    assert_eq!(
        filled_rects(&svg, PALETTE[0]),
        12,
        "one bar per value, no legend"
    );
    assert!(svg_has_text(&svg, "11"));
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

/// Burst consumption times normalised to PB; OFAR-L did not finish under ADVG+6 (NaN).
fn paper_series() -> Vec<BarSeries> {
    let rows: [(&str, [f64; 7]); 5] = [
        ("PB", [1.0; 7]),
        ("OFAR", [0.62, 0.41, 0.35, 0.55, 0.6, 0.71, 0.93]),
        ("OFAR-L", [0.66, 0.45, f64::NAN, 0.58, 0.63, 0.74, 0.97]),
        ("VAL", [1.9, 0.52, 0.47, 1.3, 1.25, 1.41, 3.8]),
        ("VAL-any", [1.7, 0.49, 0.43, 1.2, 1.16, 1.33, 3.5]),
    ];
    rows.iter()
        .map(|(label, values)| ser(label.to_string(), values.to_vec()))
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

/// `<rect ... fill="#RRGGBB"` elements of a colour in an SVG.
fn filled_rects(svg: &str, colour: RGBColor) -> usize {
    let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", colour.0, colour.1, colour.2);
    svg.lines()
        .filter(|l| l.trim_start().starts_with("<rect") && l.contains(&fill))
        .count()
}

fn stroked(svg: &str, tag: &str, colour: RGBColor) -> usize {
    let stroke = format!(
        "stroke=\"#{:02X}{:02X}{:02X}\"",
        colour.0, colour.1, colour.2
    );
    svg.lines()
        .filter(|l| l.trim_start().starts_with(tag) && l.contains(&stroke))
        .count()
}

#[test]
fn grouped_bar_plot_writes_every_bar_label_and_the_reference() {
    let dir = test_dir("grouped");
    let stem = dir.join("bursts");
    let (groups, series) = (paper_groups(), paper_series());
    let title = "Burst consumption time, dragonfly h = 6";
    let s = bursts_spec(title, false);
    grouped_bar_plot(&stem, &s, &groups, &series, Some(1.0)).unwrap();
    check_outputs(&stem, title);
    let svg = read_svg(&stem);
    for label in groups.iter().chain(series.iter().map(|s| &s.label)) {
        assert!(svg_has_text(&svg, label), "svg lacks {label}");
    }
    // One rect per drawn bar plus the legend swatch; the NaN of OFAR-L leaves its slot empty.
    for (i, s) in series.iter().enumerate() {
        let bars = s.values.iter().filter(|v| v.is_finite()).count();
        assert_eq!(
            filled_rects(&svg, curve_style(i).0),
            bars + 1,
            "{}",
            s.label
        );
    }
    assert!(
        stroked(&svg, "<polyline", REFERENCE_COLOUR) > 10,
        "no dashed reference"
    );
    // Without a reference there is no reference line.
    grouped_bar_plot(&stem, &s, &groups, &series, None).unwrap();
    assert_eq!(stroked(&read_svg(&stem), "<polyline", REFERENCE_COLOUR), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grouped_bars_layout() {
    let (groups, series) = (paper_groups(), paper_series());
    let plot = BarPlot::new(&bursts_spec("t", false), &groups, &series, Some(1.0));
    assert!(!plot.no_data);
    assert_eq!(plot.bars.len(), 7 * 5 - 1);
    assert!(!plot.bars.iter().any(|b| b.group == 2 && b.series == 2));
    // The bars of a group are adjacent and in series order, centred on the group, with a
    // gap to the next group.
    for g in 0..7 {
        let in_group: Vec<_> = plot.bars.iter().filter(|b| b.group == g).collect();
        assert!(in_group.windows(2).all(|w| w[0].series < w[1].series));
        let (first, last) = (in_group[0], in_group[in_group.len() - 1]);
        assert!((first.left + last.right - 2.0 * g as f64).abs() < 1e-9);
        assert!(last.right < g as f64 + 0.5 && first.left > g as f64 - 0.5);
    }
    // y from 0, covering the tallest bar, with the reference in range.
    assert_eq!(plot.y.0, 0.0);
    assert!(plot.y.1 >= 3.8 && plot.y.1 < 4.5, "{}", plot.y.1);
    assert_eq!(plot.reference, Some(1.0));
    // Every group labelled at full size; labels do not touch.
    assert_eq!((plot.label_size, plot.label_step), (TICK_FONT, 1));
    let slot_px = f64::from(plot.layout.plot_size().0) / 7.0;
    for g in &groups {
        assert!(f64::from(text_width(g, plot.label_size)) + 8.0 <= slot_px);
    }
    // The legend sits in the panel right of the chart, inside the canvas.
    assert_eq!(plot.legend.len(), 5);
    let (_, _, r, _) = plot.layout.plot_rect();
    let labels: Vec<String> = plot.legend.iter().map(|e| e.1.clone()).collect();
    assert!(r + 24 + frame::legend_size(&labels).0 <= WIDTH as i32);
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
    let plot = BarPlot::new(&bursts_spec("w", false), &groups, &series, None);
    let w: Vec<_> = plot.bars.iter().map(|b| b.whisker).collect();
    assert_eq!(
        w,
        [
            Some((Some(0.75), 1.25)),
            Some((Some(0.0), 1.25)),
            None,
            None
        ]
    );
    assert!(plot.y.1 >= 2.0);
    let tall = vec![BarSeries {
        label: "x".into(),
        values: vec![1.0],
        errors: vec![3.0],
    }];
    let plot = BarPlot::new(&bursts_spec("w", false), &groups[..1], &tall, None);
    assert!(plot.y.1 >= 4.0, "{}", plot.y.1);
    let stem = test_dir("whiskers").join("w");
    let s = bursts_spec("whiskers", false);
    grouped_bar_plot(&stem, &s, &groups, &series, Some(1.0)).unwrap();
    check_outputs(&stem, "whiskers");
    // Two whiskers, each a line and two caps (the one stopping at 0 has its top cap only).
    // The axes and ticks are black too, one pixel wide.
    let svg = read_svg(&stem);
    let wide = svg
        .lines()
        .filter(|l| l.contains("stroke=\"#000000\" stroke-width=\"2\""));
    assert_eq!(wide.count(), 2 + 3);
}

#[test]
fn unfinished_runs_are_open_bars_off_the_top() {
    let groups = paper_groups();
    let nan = f64::NAN;
    let series = vec![
        ser("PB", vec![1.0; 7]),
        ser("OFAR", vec![0.6, f64::INFINITY, 0.5, nan, 0.7, 0.8, 0.9]),
    ];
    let plot = BarPlot::new(&bursts_spec("t", false), &groups, &series, Some(1.0));
    // NaN: no bar; +infinity: an open bar, which does not stretch the axis.
    assert_eq!(plot.bars.len(), 13);
    let open: Vec<_> = plot.bars.iter().filter(|b| b.unfinished).collect();
    assert_eq!((open.len(), open[0].group, open[0].series), (1, 1, 1));
    assert!(plot.y.1 < 1.2, "{}", plot.y.1);
    assert_eq!(plot.legend.len(), 3);
    assert_eq!(plot.legend[2], (Sample::Open, UNFINISHED_LABEL.to_string()));

    let dir = test_dir("grouped-unfinished");
    let stem = dir.join("bursts");
    grouped_bar_plot(&stem, &bursts_spec("t", false), &groups, &series, Some(1.0)).unwrap();
    check_outputs(&stem, "t");
    let svg = read_svg(&stem);
    assert_eq!(
        stroked(&svg, "<rect", curve_style(1).0),
        1,
        "one open bar in OFAR's colour"
    );
    assert!(svg_has_text(&svg, UNFINISHED_LABEL));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grouped_bars_tolerate_short_and_long_series() {
    let groups = paper_groups();
    let series: Vec<BarSeries> = [
        ("short", vec![1.0, 2.0]),
        ("long", vec![1.5; 12]),
        ("none", vec![]),
    ]
    .into_iter()
    .map(|(label, values)| BarSeries {
        label: label.into(),
        values,
        errors: Vec::new(),
    })
    .collect();
    let plot = BarPlot::new(&bursts_spec("t", false), &groups, &series, None);
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
fn hostile_inputs_do_not_fail() {
    let dir = test_dir("hostile");
    let weird = vec![
        curve(
            String::new(),
            vec![
                pt(f64::NAN, 1.0, None),
                pt(1.0, f64::INFINITY, Some(f64::NAN)),
                pt(2.0, -3.0, Some(f64::INFINITY)),
                pt(1e308, -1e308, Some(1e308)),
                pt(3.0, 0.0, Some(-1.0)),
            ],
        ),
        curve("empty", vec![]),
        curve(
            "tiny <&> \u{1F600}",
            vec![pt(5e-324, 5e-324, Some(5e-324)), pt(1e-300, 2e-300, None)],
        ),
        curve("single", vec![pt(0.0, 0.0, Some(0.0))]),
    ];
    let bars = vec![
        bar("a", f64::NAN),
        bar("b", -2.0),
        bar(String::new(), 0.0),
        bar("d".repeat(500), 1e300),
    ];
    for log_y in [false, true] {
        let stem = dir.join(format!("weird-{log_y}"));
        line_plot(&stem, &spec("weird", log_y), &weird).unwrap();
        check_outputs(&stem, "weird");
        let stem = dir.join(format!("empty-{log_y}"));
        line_plot(&stem, &spec("", log_y), &[]).unwrap();
        assert!(read_svg(&stem).contains("no data"));
        bar_plot(
            &dir.join(format!("bars-{log_y}")),
            &spec("bars", log_y),
            &bars,
        )
        .unwrap();
        let stem = dir.join(format!("nobars-{log_y}"));
        bar_plot(&stem, &spec("x", log_y), &[]).unwrap();
        assert!(read_svg(&stem).contains("no data"));
    }
    // Many curves force the legend outside; many bars thin the labels.
    let many: Vec<Curve> = (0..70)
        .map(|i| {
            curve(
                format!("configuration number {i} with a long name"),
                vec![pt(0.0, i as f64, None), pt(1.0, 2.0 * i as f64, None)],
            )
        })
        .collect();
    line_plot(&dir.join("many"), &spec("many", false), &many).unwrap();
    check_outputs(&dir.join("many"), "many");
    let bars: Vec<Bar> = (0..4096)
        .map(|i| bar(format!("R{i}"), (i % 17) as f64))
        .collect();
    bar_plot(&dir.join("manybars"), &spec("manybars", true), &bars).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grouped_bars_hostile_inputs_do_not_fail() {
    let dir = test_dir("grouped-hostile");
    let groups = paper_groups();
    let all_nan = vec![ser("failed", vec![f64::NAN; 7])];
    let weird = vec![
        ser(
            String::new(),
            vec![f64::INFINITY, -2.0, 0.0, 1e300, 5e-324, f64::NEG_INFINITY],
        ),
        ser("tiny <&> \u{1F600}".repeat(20), vec![1e-300, 2e-300]),
    ];
    let many_groups: Vec<String> = (0..300).map(|i| format!("router {i}")).collect();
    let many_series: Vec<BarSeries> = (0..40)
        .map(|s| {
            ser(
                format!("configuration number {s} with a long name"),
                (0..300).map(|g| ((g * s) % 13) as f64).collect(),
            )
        })
        .collect();
    for log_y in [false, true] {
        for reference in [None, Some(1.0), Some(f64::NAN), Some(-1.0), Some(1e300)] {
            let spec = bursts_spec("hostile", log_y);
            let stem = dir.join(format!("nan-{log_y}"));
            grouped_bar_plot(&stem, &spec, &groups, &all_nan, reference).unwrap();
            let svg = read_svg(&stem);
            assert!(svg.contains("no data") && svg_has_text(&svg, "failed"));
            let stem = dir.join(format!("weird-{log_y}"));
            grouped_bar_plot(&stem, &spec, &groups, &weird, reference).unwrap();
            for (g, s) in [(&[][..], &all_nan[..]), (&groups[..], &[][..]), (&[], &[])] {
                let stem = dir.join(format!("empty-{log_y}"));
                grouped_bar_plot(&stem, &spec, g, s, reference).unwrap();
                assert!(read_svg(&stem).contains("no data"));
            }
        }
        let stem = dir.join(format!("many-{log_y}"));
        let spec = bursts_spec("many", log_y);
        grouped_bar_plot(&stem, &spec, &many_groups, &many_series, Some(3.0)).unwrap();
        check_outputs(&stem, "many");
    }
    // Many groups: every k-th labelled at full size, never touching; many series: the
    // legend summarises the ones that do not fit.
    let plot = BarPlot::new(&bursts_spec("t", false), &many_groups, &many_series, None);
    assert!(plot.label_step > 1);
    assert_eq!(plot.label_size, TICK_FONT);
    let slot_px = f64::from(plot.layout.plot_size().0) / many_groups.len() as f64;
    let widest = many_groups
        .iter()
        .map(|l| text_width(l, plot.label_size))
        .max();
    assert!(f64::from(widest.unwrap()) < slot_px * plot.label_step as f64);
    assert_eq!(plot.legend.last().unwrap().0, Sample::None);
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
