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
