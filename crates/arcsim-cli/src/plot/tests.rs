//! End-to-end tests of the public entry points (files written, hostile inputs,
//! I/O errors) and the helpers the tests of the other files share.

use super::*;

/// A fresh directory per test (tests run in parallel).
pub(super) fn test_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("arcsim-plot-test-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

pub(super) fn check_outputs(stem: &Path, title: &str) {
    let png = std::fs::read(with_suffix(stem, "png")).expect("png written");
    assert!(png.len() > 5_000, "png too small: {} bytes", png.len());
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = std::fs::read_to_string(with_suffix(stem, "svg")).expect("svg written");
    assert!(svg.contains(title), "svg lacks the title");
    assert!(svg.contains("<text"));
    let pdf = std::fs::read(with_suffix(stem, "pdf")).expect("pdf written");
    assert!(pdf.starts_with(b"%PDF-") && pdf.len() > 1000, "not a PDF");
}

#[test]
fn dense_curves_get_a_marker_every_few_points_only() {
    let dense = Curve {
        label: "dense".into(),
        points: (0..25_000)
            .map(|i| pt(i as f64, (i % 100) as f64, None))
            .collect(),
    };
    let sparse = Curve {
        label: "sparse".into(),
        points: (0..49).map(|i| pt(i as f64, 1.0, None)).collect(),
    };
    let plot = line::LinePlot::new(&spec("t", false), &[dense.clone(), sparse]);
    let (d, s) = (plot.marked_count(0), plot.marked_count(1));
    assert!((15..=25).contains(&d), "{d} markers on 25,000 points");
    assert_eq!(s, 49, "a curve under 50 points keeps every marker");
    let dir = test_dir("dense");
    let stem = dir.join("dense");
    line_plot(&stem, &spec("dense", false), &[dense]).unwrap();
    let svg = std::fs::metadata(with_suffix(&stem, "svg")).unwrap().len();
    assert!(svg < 2_000_000, "SVG of {svg} bytes");
}

#[test]
fn long_titles_break_into_two_lines_that_fit() {
    let long = "OFAR paper Fig. 7: transient from ADVG+2 to ADVG+6 at load 0.12, OFAR with BCM, ECM and without congestion management";
    let lines = text::title_lines(long, TITLE_FONT, WIDTH as i32 - 40);
    assert_eq!(lines.len(), 2, "{lines:?}");
    // Broken at the space nearest the middle, or after a colon near it.
    assert!(lines[0].0.ends_with("load"), "{lines:?}");
    for (line, size) in &lines {
        assert!(
            text::text_width(line, *size) as i32 <= WIDTH as i32 - 40,
            "{line}"
        );
    }
    assert_eq!(lines[0].0.len() + lines[1].0.len() + 1, long.len());
    let colon = "Fig. 8 bursts of 2,000 packets per node on the OFAR paper's network: consumption time of every routing, traffic mix and injection setting";
    let lines = text::title_lines(colon, TITLE_FONT, WIDTH as i32 - 40);
    assert!(lines[0].0.ends_with("network:"), "{lines:?}");
    assert_eq!(text::title_lines("short", TITLE_FONT, 960).len(), 1);
}

#[test]
fn a_marked_x_and_a_fixed_range_widen_the_axis() {
    let curves = vec![Curve {
        label: "after".into(),
        points: vec![pt(10.0, 1.0, None), pt(20.0, 2.0, None)],
    }];
    let extras = LineExtras {
        x_range: Some((-50.0, 30.0)),
        vline: Some((0.0, "traffic change".into())),
    };
    let plot = line::LinePlot::new_with(&spec("t", false), &curves, &extras);
    let (lo, hi) = plot.x_bounds();
    assert!(lo <= -50.0 && hi >= 30.0, "{lo} {hi}");
    let dir = test_dir("vline");
    let stem = dir.join("vline");
    line_plot_with(&stem, &spec("t", false), &curves, &extras).unwrap();
    let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
    assert!(svg.contains("traffic change"));
}

pub(super) fn spec(title: &str, log_y: bool) -> PlotSpec<'_> {
    PlotSpec {
        title,
        x_label: "Offered load (flits/node/cycle)",
        y_label: "Average latency (cycles)",
        log_y,
    }
}

pub(super) fn pt(x: f64, y: f64, ci: Option<f64>) -> Point {
    Point { x, y, ci }
}

fn latency_curves() -> Vec<Curve> {
    ["mesh 8x8 XY", "torus 8x8 DOR", "dragonfly UGAL"]
        .iter()
        .enumerate()
        .map(|(k, label)| Curve {
            label: label.to_string(),
            points: (1..=10)
                .map(|i| {
                    let x = i as f64 * 0.05;
                    let sat = 0.35 + 0.1 * k as f64;
                    let y = 20.0 + 5.0 * k as f64 + 8.0 / (sat - x).max(0.02);
                    pt(x, y, Some(0.04 * y))
                })
                .collect(),
        })
        .collect()
}

#[test]
fn line_plot_writes_svg_and_png() {
    let dir = test_dir("line");
    let stem = dir.join("latency");
    line_plot(&stem, &spec("Latency vs load", false), &latency_curves()).unwrap();
    check_outputs(&stem, "Latency vs load");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bar_plot_writes_svg_and_png() {
    let dir = test_dir("bar");
    let stem = dir.join("hops");
    let bars: Vec<Bar> = (0..12)
        .map(|h| Bar {
            label: h.to_string(),
            value: (100.0 * (-(h as f64 - 5.0).powi(2) / 8.0).exp()).round(),
        })
        .collect();
    let s = PlotSpec {
        title: "Hop-count histogram",
        x_label: "Hops",
        y_label: "Packets",
        log_y: false,
    };
    bar_plot(&stem, &s, &bars).unwrap();
    check_outputs(&stem, "Hop-count histogram");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_inputs_do_not_fail() {
    let dir = test_dir("hostile");
    let weird = vec![
        Curve {
            label: String::new(),
            points: vec![
                pt(f64::NAN, 1.0, None),
                pt(1.0, f64::INFINITY, Some(f64::NAN)),
                pt(2.0, -3.0, Some(f64::INFINITY)),
                pt(1e308, -1e308, Some(1e308)),
                pt(3.0, 0.0, Some(-1.0)),
            ],
        },
        Curve {
            label: "empty".into(),
            points: vec![],
        },
        Curve {
            label: "tiny <&> \u{1F600}".into(),
            points: vec![pt(5e-324, 5e-324, Some(5e-324)), pt(1e-300, 2e-300, None)],
        },
        Curve {
            label: "single".into(),
            points: vec![pt(0.0, 0.0, Some(0.0))],
        },
    ];
    for log_y in [false, true] {
        let stem = dir.join(format!("weird-{log_y}"));
        line_plot(&stem, &spec("weird", log_y), &weird).unwrap();
        check_outputs(&stem, "weird");
        let stem = dir.join(format!("empty-{log_y}"));
        line_plot(&stem, &spec("", log_y), &[]).unwrap();
        let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
        assert!(svg.contains("no data"));
        let stem = dir.join(format!("bars-{log_y}"));
        let bars = vec![
            Bar {
                label: "a".into(),
                value: f64::NAN,
            },
            Bar {
                label: "b".into(),
                value: -2.0,
            },
            Bar {
                label: String::new(),
                value: 0.0,
            },
            Bar {
                label: "d".repeat(500),
                value: 1e300,
            },
        ];
        bar_plot(&stem, &spec("bars", log_y), &bars).unwrap();
        let stem = dir.join(format!("nobars-{log_y}"));
        bar_plot(&stem, &spec("x", log_y), &[]).unwrap();
        let svg = std::fs::read_to_string(with_suffix(&stem, "svg")).unwrap();
        assert!(svg.contains("no data"));
    }
    // Many curves force the legend outside; many bars thin the labels.
    let many: Vec<Curve> = (0..70)
        .map(|i| Curve {
            label: format!("configuration number {i} with a long name"),
            points: vec![pt(0.0, i as f64, None), pt(1.0, 2.0 * i as f64, None)],
        })
        .collect();
    line_plot(&dir.join("many"), &spec("many", false), &many).unwrap();
    let bars: Vec<Bar> = (0..4096)
        .map(|i| Bar {
            label: format!("R{i}"),
            value: (i % 17) as f64,
        })
        .collect();
    bar_plot(&dir.join("manybars"), &spec("manybars", true), &bars).unwrap();
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
