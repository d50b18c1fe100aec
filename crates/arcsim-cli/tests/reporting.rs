//! End-to-end tests of what `arcsim` reports and how: missing measurements, warnings about
//! values a reader should not trust, errors, `arcsim check`, sweep legends and columns.

mod common;
use common::*;

const SMALL: [&str; 6] = [
    "--set",
    "topology.p=2",
    "--set",
    "topology.a=4",
    "--set",
    "topology.h=2",
];

fn run_json(dir: &std::path::Path, extra: &[&str]) -> (std::process::Output, serde_json::Value) {
    let out_dir = dir.join("out");
    let mut args = vec!["run"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", out_dir.to_str().unwrap()]);
    let out = arcsim(dir, &args);
    assert_success(&out, "arcsim run");
    let json = serde_json::from_str(&std::fs::read_to_string(out_dir.join("result.json")).unwrap())
        .expect("result.json is JSON");
    (out, json)
}

#[test]
fn a_run_with_no_delivered_packet_reports_no_latency() {
    let dir = temp_dir("report-empty");
    let (out, json) = run_json(
        &dir,
        &[
            "--set",
            "traffic.load=1e-300",
            "--set",
            "simulation.warmup_cycles=100",
            "--set",
            "simulation.measure_cycles=1000",
        ],
    );
    for key in [
        "latency.mean",
        "latency.p50",
        "latency.p99",
        "latency.max",
        "network_latency.mean",
        "hops.mean",
        "misrouted_fraction",
        "escape.entered_fraction",
        "per_router.injected.jain",
        "per_group.accepted.jain",
    ] {
        let v = key.split('.').fold(&json, |v, k| &v[k]);
        assert!(
            v.is_null(),
            "{key} is {v}, not null, with no packet delivered"
        );
    }
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("latency         mean -  p50 -  p99 -  max - cycles"),
        "{stdout}"
    );
    assert!(stdout.contains("Jain -"), "{stdout}");
    assert!(!stdout.contains("Jain 1.0000"), "{stdout}");
    // The load is written briefly, not with hundreds of digits.
    let stderr = text(&out.stderr);
    assert!(stderr.contains("load 1e-300 |"), "{stderr}");
    assert!(
        stderr.contains("warning: no packet was delivered"),
        "{stderr}"
    );
    let warnings = json["warnings"]
        .as_array()
        .expect("warnings in result.json");
    assert!(warnings[0]
        .as_str()
        .unwrap()
        .contains("no packet was delivered"));
    // series.csv: a window without packets has no latency ("-"), not 0.
    let series = std::fs::read_to_string(dir.join("out/series.csv")).unwrap();
    for row in series.lines().skip(1) {
        assert_eq!(row.split(',').nth(3), Some("-"), "{row}");
    }
}

#[test]
fn a_one_cycle_window_is_flagged_with_its_impossible_link_use() {
    let dir = temp_dir("report-short");
    let (out, json) = run_json(
        &dir,
        &[
            "--set",
            "simulation.warmup_cycles=2000",
            "--set",
            "simulation.measure_cycles=1",
        ],
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "warning: the measurement window of 1 cycles is shorter than 100 packet times"
        ),
        "{stderr}"
    );
    // A packet counts whole on the cycle it starts on a link: over one cycle a busy link
    // shows up to packet_length (8) phits per cycle, which is flagged.
    let max = json["links"]["local"]["max"]
        .as_f64()
        .unwrap()
        .max(json["links"]["global"]["max"].as_f64().unwrap());
    assert!(
        max > 1.01,
        "no link above 1 phit per cycle: {}",
        json["links"]
    );
    assert!(
        stderr.contains("phits per cycle, above the 1 a link can carry"),
        "{stderr}"
    );
    assert!(!json["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn a_sound_run_has_no_warning() {
    let dir = temp_dir("report-sound");
    let (out, json) = run_json(
        &dir,
        &[
            "--set",
            "simulation.warmup_cycles=500",
            "--set",
            "simulation.measure_cycles=1000",
        ],
    );
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(json["warnings"], serde_json::json!([]));
}
