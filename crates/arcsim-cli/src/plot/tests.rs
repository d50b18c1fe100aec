//! Tests of the plots: files written (SVG, PDF, PNG with its text drawn), layouts (ranges,
//! markers, legend panel, bars, labels), hostile inputs and I/O errors.

use super::bars::{BarPlot, Sample, REFERENCE_COLOUR, UNFINISHED_LABEL};
use super::frame::{self, text_width, ticks};
use super::line::LinePlot;
use super::*;

/// A fresh directory per test (tests run in parallel).
fn test_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arcsim-plot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

fn read_svg(stem: &Path) -> String {
    std::fs::read_to_string(with_suffix(stem, "svg")).expect("svg written")
}

/// The three files are written and the SVG has the title; returns the SVG.
fn check_outputs(stem: &Path, title: &str) -> String {
    let png = std::fs::read(with_suffix(stem, "png")).expect("png written");
    assert!(
        png.len() > 5_000 && png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "bad PNG"
    );
    let pdf = std::fs::read(with_suffix(stem, "pdf")).expect("pdf written");
    assert!(pdf.starts_with(b"%PDF-") && pdf.len() > 1000, "not a PDF");
    let svg = read_svg(stem);
    assert!(svg_has_text(&svg, title), "svg lacks the title {title}");
    svg
}

/// Whether the SVG has a text element saying exactly `text`.
fn svg_has_text(svg: &str, text: &str) -> bool {
    svg.contains(&format!("\n{text}\n</text>"))
}

/// Lines of the SVG starting with `tag` and having `attr` set to the colour.
fn count(svg: &str, tag: &str, attr: &str, c: RGBColor) -> usize {
    let colour = format!("{attr}=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
    let lines = svg.lines().map(str::trim_start);
    lines
        .filter(|l| l.starts_with(tag) && l.contains(&colour))
        .count()
}

const LOAD: &str = "Offered load (flits/node/cycle)";
const LATENCY: &str = "Average latency (cycles)";
const PATTERN: &str = "Traffic pattern";

fn spec(title: &str, log_y: bool) -> PlotSpec<'_> {
    let mut s = PlotSpec::linear(title, LOAD, LATENCY);
    s.log_y = log_y;
    s
}

fn bursts_spec(title: &str) -> PlotSpec<'_> {
    PlotSpec::linear(title, PATTERN, "Consumption time (relative to PB)")
}

fn pt(x: f64, y: f64, ci: Option<f64>) -> Point {
    Point { x, y, ci }
}

fn pts(p: &[(f64, f64, Option<f64>)]) -> Vec<Point> {
    p.iter().map(|&(x, y, ci)| pt(x, y, ci)).collect()
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
    ser_ci(label, values, Vec::new())
}

fn ser_ci(label: impl Into<String>, values: Vec<f64>, errors: Vec<f64>) -> BarSeries {
    let mut s = BarSeries::default();
    (s.label, s.values, s.errors) = (label.into(), values, errors);
    s
}

fn latency_curves() -> Vec<Curve> {
    let labels = ["mesh 8x8 XY", "torus 8x8 DOR", "dragonfly UGAL"];
    let curve_k = |(k, label): (usize, &&str)| {
        let sat = 0.35 + 0.1 * k as f64;
        let y = |x: f64| 20.0 + 5.0 * k as f64 + 8.0 / (sat - x).max(0.02);
        let points = (1..=10)
            .map(|i| i as f64 * 0.05)
            .map(|x| pt(x, y(x), Some(0.04 * y(x))));
        curve(label.to_string(), points.collect())
    };
    labels.iter().enumerate().map(curve_k).collect()
}

fn many_curves() -> Vec<Curve> {
    let points = |i: usize| vec![pt(0.0, i as f64, None), pt(1.0, 2.0 * i as f64, None)];
    let name = |i| format!("configuration number {i} with a long name");
    (0..70).map(|i| curve(name(i), points(i))).collect()
}

fn paper_groups() -> Vec<String> {
    let groups = "UN ADVG+2 ADVG+6 MIX1 MIX2 MIX3 All-to-all".split(' ');
    groups.map(String::from).collect()
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
    rows.iter().map(|(l, v)| ser(*l, v.to_vec())).collect()
}

#[test]
fn line_plot_writes_svg_pdf_and_png() {
    let stem = test_dir("line").join("latency");
    line_plot(&stem, &spec("Latency vs load", false), &latency_curves()).unwrap();
    let svg = check_outputs(&stem, "Latency vs load");
    for label in ["mesh 8x8 XY", "dragonfly UGAL", "0.5", LATENCY] {
        assert!(svg_has_text(&svg, label), "svg lacks {label}");
    }
}

/// The PNG's text is drawn with the embedded font whatever fonts the machine has: the
/// title band and the x axis title hold dark pixels.
#[test]
fn png_text_is_drawn_with_the_embedded_font() {
    let (stem, s) = (
        test_dir("png-text").join("t"),
        spec("A title in DejaVu Sans", false),
    );
    line_plot(&stem, &s, &latency_curves()).unwrap();
    let png = std::fs::read(with_suffix(&stem, "png")).unwrap();
    let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
    let dark = |x, y| pixmap.pixel(x, y).is_some_and(|p| p.red() < 100);
    let dark_in = |rows: std::ops::Range<u32>| {
        let dark_x = |y| (0..WIDTH).filter(move |&x| dark(x, y)).count();
        rows.map(dark_x).sum::<usize>()
    };
    assert!(dark_in(10..36) > 300, "no title drawn");
    assert!(dark_in(HEIGHT - 40..HEIGHT - 10) > 200, "no x axis title");
}

#[test]
fn tick_labels_read_well() {
    let labels = |lo: f64, hi: f64, n: usize, log: bool| {
        let f = frame::tick_format(lo, hi, log);
        ticks(lo, hi, n).iter().map(f).collect::<Vec<_>>()
    };
    let lin = |lo, hi, n| labels(lo, hi, n, false);
    assert_eq!(lin(0.0, 1.05, 6), ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
    assert_eq!(lin(0.0, 5e7, 5), ["0", "2e7", "4e7"]);
    assert_eq!(lin(0.0, 1.05e6, 7)[..3], ["0", "2e5", "4e5"]);
    assert_eq!(lin(-6500.0, 3500.0, 7)[..2], ["-6000", "-4000"]);
    assert_eq!(lin(-1.0, 0.0, 6)[..2], ["-1", "-0.8"]);
    let log = labels(-2.1, 3.2, 6, true);
    assert_eq!(log, ["0.01", "0.1", "1", "10", "100", "1000"]);
    assert_eq!(frame::tick_format(0.0, 1.0, true)(&-7.0), "1e-7");
}

#[test]
fn long_titles_break_into_two_lines_that_fit() {
    let long = "OFAR paper Fig. 7: transient from ADVG+2 to ADVG+6 at load 0.12, OFAR with BCM, ECM and without congestion management";
    let lines = frame::title_lines(long);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0].0.len() + lines[1].0.len() + 1, long.len());
    let fits = |(l, size): &(String, u32)| text_width(l, *size) as i32 <= WIDTH as i32 - 40;
    assert!(lines.iter().all(fits), "{lines:?}");
    assert_eq!(frame::title_lines("short").len(), 1);
    let stem = test_dir("title").join("t");
    line_plot(&stem, &spec(long, false), &latency_curves()).unwrap();
    let svg = read_svg(&stem);
    assert!(svg_has_text(&svg, &lines[0].0) && svg_has_text(&svg, &lines[1].0));
}

#[test]
fn dense_curves_get_a_marker_every_few_points_only() {
    let dense = (0..25_000).map(|i| pt(i as f64, (i % 100) as f64, None));
    let dense = curve("dense", dense.collect());
    let sparse = curve("sparse", (0..49).map(|i| pt(i as f64, 1.0, None)).collect());
    let curves = [dense.clone(), sparse];
    let plot = LinePlot::new(&spec("t", false), &curves, &Default::default());
    let (d, s) = (plot.curves[0].marked().len(), plot.curves[1].marked().len());
    assert!((15..=25).contains(&d), "{d} markers on 25,000 points");
    assert_eq!(s, 49, "a curve under 50 points keeps every marker");
    let stem = test_dir("dense").join("dense");
    line_plot(&stem, &spec("dense", false), &[dense]).unwrap();
    let svg = std::fs::metadata(with_suffix(&stem, "svg")).unwrap().len();
    assert!(svg < 2_000_000, "SVG of {svg} bytes");
}

#[test]
fn a_marked_x_and_a_fixed_range_widen_the_axis() {
    let curves = [curve("after", pts(&[(10.0, 1.0, None), (20.0, 2.0, None)]))];
    let vline = Some((0.0, "traffic change".into()));
    let x_range = Some((-50.0, 30.0));
    let extras = LineExtras { x_range, vline };
    let plot = LinePlot::new(&spec("t", false), &curves, &extras);
    assert!(plot.x.0 <= -50.0 && plot.x.1 >= 30.0, "{:?}", plot.x);
    let stem = test_dir("vline").join("vline");
    line_plot_with(&stem, &spec("t", false), &curves, &extras).unwrap();
    let svg = read_svg(&stem);
    assert!(svg_has_text(&svg, "traffic change"));
    assert!(count(&svg, "<", "stroke", NOTE) > 10, "no dashed line");
}

#[test]
fn error_bars_of_non_negative_data_stop_at_zero() {
    // Three seeds of which one collapsed: mean 0.30, half-width 0.66.
    let curves = [curve(
        "ECM",
        pts(&[(0.2, 0.2, Some(0.001)), (1.0, 0.303, Some(0.66))]),
    )];
    let plot = LinePlot::new(&spec("t", false), &curves, &LineExtras::default());
    let bars = &plot.curves[0].error_bars;
    assert_eq!((plot.y.0, bars[1].1), (0.0, Some(0.0)));
    assert!((bars[1].2 - 0.963).abs() < 1e-9);
    // A signed quantity keeps its whole interval.
    let curves = [curve(
        "signed",
        pts(&[(0.2, -0.1, None), (1.0, 0.303, Some(0.66))]),
    )];
    let plot = LinePlot::new(&spec("t", false), &curves, &LineExtras::default());
    assert!(plot.y.0 < -0.3, "{}", plot.y.0);
    assert!((plot.curves[0].error_bars[0].1.unwrap() + 0.357).abs() < 1e-9);
}

#[test]
fn the_legend_sits_right_of_the_plot() {
    let s = spec("t", false);
    let plot = LinePlot::new(&s, &latency_curves(), &LineExtras::default());
    assert_eq!(plot.legend.len(), 3);
    let labels: Vec<&str> = plot.legend.iter().map(|e| e.1.as_str()).collect();
    let (_, _, r, _) = plot.layout.plot_rect(&s);
    assert!(r + 24 + frame::legend_size(&labels).0 <= WIDTH as i32);
    // Unlabelled curves have no entry, and no legend leaves no panel.
    let unnamed = [curve("", vec![pt(0.0, 1.0, None)])];
    let plot = LinePlot::new(&s, &unnamed, &LineExtras::default());
    assert!(plot.legend.is_empty() && plot.layout.plot_rect(&s).2 > r);
    // Seventy curves: the ones that do not fit are summarised.
    let plot = LinePlot::new(&s, &many_curves(), &LineExtras::default());
    let last = plot.legend.last().unwrap();
    assert!(plot.legend.len() < 70 && last.0.is_none() && last.1.contains("more)"));
}

#[test]
fn bar_plot_writes_svg_pdf_and_png() {
    let stem = test_dir("bar").join("hops");
    let value = |h: f64| (100.0 * (-(h - 5.0).powi(2) / 8.0).exp()).round();
    let bars = (0..12).map(|h| bar(h.to_string(), value(h as f64)));
    let bars: Vec<Bar> = bars.collect();
    let s = PlotSpec::linear("Hop-count histogram", "Hops", "Packets");
    bar_plot(&stem, &s, &bars).unwrap();
    let svg = check_outputs(&stem, "Hop-count histogram");
    let rects = count(&svg, "<rect", "fill", PALETTE[0]);
    assert_eq!(rects, 12, "one bar per value, no legend");
    assert!(svg_has_text(&svg, "11"));
}

#[test]
fn grouped_bar_plot_writes_every_bar_label_and_the_reference() {
    let stem = test_dir("grouped").join("bursts");
    let (groups, series, s) = (paper_groups(), paper_series(), bursts_spec("Bursts"));
    grouped_bar_plot(&stem, &s, &groups, &series, Some(1.0)).unwrap();
    let svg = check_outputs(&stem, "Bursts");
    for label in groups.iter().chain(series.iter().map(|s| &s.label)) {
        assert!(svg_has_text(&svg, label), "svg lacks {label}");
    }
    // One rect per drawn bar plus the legend swatch; the NaN of OFAR-L leaves its slot empty.
    for (i, s) in series.iter().enumerate() {
        let bars = s.values.iter().filter(|v| v.is_finite()).count();
        let rects = count(&svg, "<rect", "fill", curve_style(i).0);
        assert_eq!(rects, bars + 1, "{}", s.label);
    }
    let dashes = |svg: &str| count(svg, "<polyline", "stroke", REFERENCE_COLOUR);
    assert!(dashes(&svg) > 10, "no dashed reference");
    grouped_bar_plot(&stem, &s, &groups, &series, None).unwrap();
    assert_eq!(dashes(&read_svg(&stem)), 0);
}

#[test]
fn grouped_bars_layout() {
    let (groups, series) = (paper_groups(), paper_series());
    let plot = BarPlot::new(&bursts_spec("t"), &groups, &series, Some(1.0));
    assert_eq!(plot.bars.len(), 7 * 5 - 1);
    assert!(!plot.no_data && !plot.bars.iter().any(|b| b.group == 2 && b.series == 2));
    // The bars of a group are adjacent and in series order, centred on the group.
    for g in 0..7 {
        let in_group: Vec<_> = plot.bars.iter().filter(|b| b.group == g).collect();
        assert!(in_group.windows(2).all(|w| w[0].series < w[1].series));
        let (first, last) = (in_group[0], in_group[in_group.len() - 1]);
        assert!((first.left + last.right - 2.0 * g as f64).abs() < 1e-9);
        assert!(last.right < g as f64 + 0.5 && first.left > g as f64 - 0.5);
    }
    // y from 0, covering the tallest bar and the reference; every group labelled.
    let (y, legend) = (plot.y, plot.legend.len());
    assert!(y.0 == 0.0 && y.1 >= 3.8 && y.1 < 4.5, "{y:?}");
    assert_eq!((plot.reference, plot.label_step, legend), (Some(1.0), 1, 5));
}

#[test]
fn grouped_bars_draw_whiskers_where_an_interval_is_given() {
    let groups: Vec<String> = ["a", "b", "c", "d"].iter().map(|g| g.to_string()).collect();
    // A plain interval, one wider than the bar (stops at 0), none, and one on a run that
    // did not finish (ignored).
    let values = vec![1.0, 0.5, 2.0, f64::INFINITY];
    let errors = vec![0.25, 0.75, f64::NAN, 0.1];
    let series = vec![ser_ci("x", values, errors)];
    let plot = BarPlot::new(&bursts_spec("w"), &groups, &series, None);
    let w: Vec<_> = plot.bars.iter().map(|b| b.whisker).collect();
    assert_eq!(w[..2], [Some((Some(0.75), 1.25)), Some((Some(0.0), 1.25))]);
    assert_eq!(w[2..], [None, None]);
    let tall = vec![ser_ci("x", vec![1.0], vec![3.0])];
    let plot = BarPlot::new(&bursts_spec("w"), &groups[..1], &tall, None);
    assert!(plot.y.1 >= 4.0, "{}", plot.y.1);
    let stem = test_dir("whiskers").join("w");
    grouped_bar_plot(&stem, &bursts_spec("whiskers"), &groups, &series, Some(1.0)).unwrap();
    // Two whiskers, each a line and two caps (the one stopping at 0 has its top cap only).
    let svg = check_outputs(&stem, "whiskers");
    let wide = svg
        .lines()
        .filter(|l| l.contains("stroke=\"#000000\" stroke-width=\"2\""));
    assert_eq!(wide.count(), 2 + 3);
}

#[test]
fn unfinished_runs_are_open_bars_off_the_top() {
    let (groups, nan) = (paper_groups(), f64::NAN);
    let ofar = vec![0.6, f64::INFINITY, 0.5, nan, 0.7, 0.8, 0.9];
    let series = vec![ser("PB", vec![1.0; 7]), ser("OFAR", ofar)];
    let plot = BarPlot::new(&bursts_spec("t"), &groups, &series, Some(1.0));
    // NaN: no bar; +infinity: an open bar, which does not stretch the axis.
    assert_eq!(plot.bars.len(), 13);
    let open: Vec<_> = plot.bars.iter().filter(|b| b.unfinished).collect();
    assert_eq!((open.len(), open[0].group, open[0].series), (1, 1, 1));
    assert!(plot.y.1 < 1.2, "{}", plot.y.1);
    assert_eq!(
        plot.legend[2],
        (Some(Sample::Open), UNFINISHED_LABEL.to_string())
    );
    let stem = test_dir("grouped-unfinished").join("bursts");
    grouped_bar_plot(&stem, &bursts_spec("t"), &groups, &series, Some(1.0)).unwrap();
    let svg = check_outputs(&stem, "t");
    assert_eq!(
        count(&svg, "<rect", "stroke", curve_style(1).0),
        1,
        "one open bar"
    );
    assert!(svg_has_text(&svg, UNFINISHED_LABEL));
}

#[test]
fn grouped_bars_tolerate_short_and_long_series() {
    let groups = paper_groups();
    let series = [
        ser("short", vec![1.0, 2.0]),
        ser("long", vec![1.5; 12]),
        ser("none", vec![]),
    ];
    let plot = BarPlot::new(&bursts_spec("t"), &groups, &series, None);
    let count = |s: usize| plot.bars.iter().filter(|b| b.series == s).count();
    assert_eq!((count(0), count(1), count(2)), (2, 7, 0));
    let stem = test_dir("grouped-short").join("short");
    grouped_bar_plot(&stem, &bursts_spec("short"), &groups, &series, None).unwrap();
    check_outputs(&stem, "short");
}

#[test]
fn hostile_inputs_do_not_fail() {
    let dir = test_dir("hostile");
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let c = |label: &str, p: &[(f64, f64, Option<f64>)]| curve(label, pts(p));
    let weird = vec![
        c("", &[(nan, 1.0, None), (1.0, inf, Some(nan))]),
        c("", &[(2.0, -3.0, Some(inf)), (1e308, -1e308, Some(1e308))]),
        c("empty", &[]),
        c("tiny <&> \u{1F600}", &[(5e-324, 5e-324, Some(5e-324))]),
        c("single", &[(1e-300, 2e-300, None), (3.0, 0.0, Some(-1.0))]),
    ];
    let bars = ["a", "b", "", &"d".repeat(500)].map(|l| l.to_string());
    let bars = [f64::NAN, -2.0, 0.0, 1e300].iter().zip(bars);
    let bars: Vec<Bar> = bars.map(|(v, label)| bar(label, *v)).collect();
    let weird_series = vec![
        ser("", vec![inf, -2.0, 0.0, 1e300, 5e-324, -inf]),
        ser("tiny <&> \u{1F600}".repeat(20), vec![1e-300, 2e-300]),
    ];
    let (groups, all_nan) = (paper_groups(), vec![ser("failed", vec![nan; 7])]);
    let many_groups: Vec<String> = (0..300).map(|i| format!("router {i}")).collect();
    let name = |s| format!("configuration {s} with a long name");
    let many_series = (0..40).map(|s| ser(name(s), vec![(s % 13) as f64; 300]));
    let many_series: Vec<BarSeries> = many_series.collect();
    let no_data = |stem: &Path| assert!(read_svg(stem).contains("no data"));
    for log_y in [false, true] {
        let (s, stem) = (spec("weird", log_y), dir.join(format!("w{log_y}")));
        line_plot(&stem, &s, &weird).unwrap();
        check_outputs(&stem, "weird");
        line_plot(&stem, &spec("", log_y), &[]).unwrap();
        no_data(&stem);
        bar_plot(&stem, &s, &bars).unwrap();
        bar_plot(&stem, &s, &[]).unwrap();
        no_data(&stem);
        for reference in [None, Some(1.0), Some(f64::NAN), Some(-1.0), Some(1e300)] {
            grouped_bar_plot(&stem, &s, &groups, &all_nan, reference).unwrap();
            assert!(svg_has_text(&read_svg(&stem), "failed"));
            no_data(&stem);
            grouped_bar_plot(&stem, &s, &groups, &weird_series, reference).unwrap();
            for (g, series) in [(&[][..], &all_nan[..]), (&groups[..], &[][..]), (&[], &[])] {
                grouped_bar_plot(&stem, &s, g, series, reference).unwrap();
                no_data(&stem);
            }
        }
        grouped_bar_plot(&stem, &s, &many_groups, &many_series, Some(3.0)).unwrap();
        check_outputs(&stem, "weird");
    }
    line_plot(&dir.join("many"), &spec("many", false), &many_curves()).unwrap();
    let bars: Vec<Bar> = (0..4096)
        .map(|i| bar(format!("R{i}"), (i % 17) as f64))
        .collect();
    bar_plot(&dir.join("manybars"), &spec("manybars", true), &bars).unwrap();
    // Many groups: every k-th labelled, never touching; many series: a summarised legend.
    let plot = BarPlot::new(&bursts_spec("t"), &many_groups, &many_series, None);
    let slot_px = plot.layout.plot_width(&bursts_spec("t")) / many_groups.len() as f64;
    let widest = many_groups.iter().map(|l| text_width(l, TICK_FONT)).max();
    assert!(plot.label_step > 1 && f64::from(widest.unwrap()) < slot_px * plot.label_step as f64);
    assert_eq!(plot.legend.last().unwrap().0, None);
}

#[test]
fn io_errors_name_the_file() {
    let blocker = test_dir("ioerr").join("blocker");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let err = line_plot(&blocker.join("plot"), &spec("t", false), &latency_curves()).unwrap_err();
    assert!(format!("{err:#}").contains("blocker"), "{err:#}");
}
