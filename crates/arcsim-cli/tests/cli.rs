//! End-to-end tests of the `arcsim` binary: outputs of `run` and `sweep`, sweep determinism
//! across thread counts, and clean failures on bad input.

use std::path::Path;
use std::process::Output;

mod common;
use common::*;

/// Follow a dotted path in a JSON value.
fn get<'a>(v: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    path.split('.').fold(v, |v, k| {
        v.get(k)
            .unwrap_or_else(|| panic!("result.json lacks `{path}` (at `{k}`)"))
    })
}

fn num(v: &serde_json::Value, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("`{path}` is not a number: {}", get(v, path)))
}

#[test]
fn run_writes_result_and_plots() {
    let dir = temp_dir("cli-run");
    let out_dir = dir.join("out");
    let mut args = vec!["run"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&[
        "--set",
        "simulation.warmup_cycles=500",
        "--set",
        "simulation.measure_cycles=1000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "arcsim run");

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("result.json")).unwrap())
            .expect("result.json is JSON");
    for key in [
        "offered_load",
        "accepted_load",
        "latency.mean",
        "latency.p50",
        "latency.p99",
        "latency.max",
        "network_latency.mean",
        "hops.mean",
        "misrouted_fraction",
        "packets.generated",
        "packets.delivered",
        "packets.in_flight",
        "cycles",
        "wall_seconds",
        "cycles_per_second",
        "links.local.mean",
        "links.global.max",
    ] {
        num(&json, key);
    }
    // 36 routers with 3 local and 2 global links each on this network; every link counted in
    // one of the ten bins of its class.
    for (class, n) in [("local", 108.0), ("global", 72.0)] {
        assert_eq!(num(&json, &format!("links.{class}.links")), n);
        let bins = get(&json, &format!("links.{class}.histogram"));
        let counted: f64 = bins
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_f64().unwrap())
            .sum();
        assert_eq!(counted, n, "{class}: {bins}");
    }
    // The values are those of this configuration (default load 0.4, MIN, below saturation).
    assert_eq!(num(&json, "cycles"), 1500.0);
    assert_eq!(num(&json, "offered_load"), 0.4);
    assert_eq!(get(&json, "routing").as_str(), Some("min"));
    let acc = num(&json, "accepted_load");
    assert!((acc - 0.4).abs() < 0.06, "accepted {acc} at offered 0.4");
    let (gen, del, fly) = (
        num(&json, "packets.generated"),
        num(&json, "packets.delivered"),
        num(&json, "packets.in_flight"),
    );
    assert!(del > 0.0 && gen == del + fly, "packets {gen} {del} {fly}");
    let lat = num(&json, "latency.mean");
    assert!(
        num(&json, "latency.p50") <= num(&json, "latency.p99")
            && num(&json, "latency.p99") <= num(&json, "latency.max")
            && num(&json, "network_latency.mean") <= lat
            && lat > 0.0,
        "inconsistent latency statistics: {}",
        get(&json, "latency")
    );
    assert!(num(&json, "wall_seconds") > 0.0 && num(&json, "cycles_per_second") > 0.0);

    // The summary's buffer line: result.json's means over the window, one sample per 100
    // cycles of the 1,000 measured.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("buffers "))
        .unwrap_or_else(|| panic!("no buffers line in\n{stdout}"));
    assert_eq!(num(&json, "buffers.samples"), 10.0);
    let mean = 100.0 * num(&json, "buffers.occupancy.injection");
    assert!(
        line.contains(&format!("mean over the window: injection {mean:.1}%")),
        "{line} (mean injection occupancy {mean:.1}%)"
    );
    for stem in ["series", "series_throughput", "queues", "hops", "links"] {
        assert_png(&out_dir.join(format!("{stem}.png")));
        assert_svg(&out_dir.join(format!("{stem}.svg")));
    }
    // series.csv: a row per window of result.json's series, the same numbers.
    let points = get(&json, "series.points").as_array().unwrap().clone();
    let mut csv = csv::Reader::from_path(out_dir.join("series.csv")).expect("series.csv");
    let header = csv.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = csv.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), points.len(), "series.csv rows");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (row, p) in rows.iter().zip(&points) {
        assert_eq!(row[col("cycle")], p["cycle"].to_string());
        assert_eq!(row[col("in_flight")], p["in_flight"].to_string());
        let occ: f64 = row[col("injection_occupancy")].parse().unwrap();
        assert!((occ - p["occupancy"]["injection"].as_f64().unwrap()).abs() < 1e-6);
    }
    // The configuration actually used is written back and reloads.
    let used = std::fs::read_to_string(out_dir.join("config.toml")).expect("config.toml");
    let cfg = arcsim::Config::from_toml_str(&used).expect("config.toml parses");
    arcsim::validate(&cfg).expect("config.toml validates");
    assert_eq!((cfg.topology.p, cfg.topology.a, cfg.topology.h), (2, 4, 2));
    assert_eq!(cfg.simulation.measure_cycles, 1000);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `arcsim run` with OFAR prints its escape use as result.json has it (share entering, entries
/// and escape hops per packet, the most entries), the entries histogram adds up to the packets
/// measured, and `routing.escape_entry_limit` is written to config.toml only when set.
#[test]
fn run_prints_ofar_escape_use_and_writes_the_entry_limit() {
    let dir = temp_dir("cli-run-escape");
    let run = |limit: &str, out: &str| {
        let mut args = vec!["run"];
        args.extend_from_slice(&SMALL);
        for set in [
            "routing.algorithm=ofar",
            "router.vcs_local=2",
            "router.vcs_global=1",
            "routing.escape=tree",
            "traffic.pattern=adv-global",
            "traffic.offset=2",
            "traffic.load=1.0",
            "simulation.warmup_cycles=500",
            "simulation.measure_cycles=1000",
            limit,
        ] {
            args.extend_from_slice(&["--set", set]);
        }
        args.extend_from_slice(&["--out", out]);
        let output = arcsim(&dir, &args);
        assert_success(&output, limit);
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(out).join("result.json")).unwrap(),
        )
        .unwrap();
        let config = std::fs::read_to_string(dir.join(out).join("config.toml")).unwrap();
        (
            String::from_utf8_lossy(&output.stdout).to_string(),
            json,
            config,
        )
    };
    for (limit, out) in [
        ("routing.escape_entry_limit=0", "none"),
        ("routing.escape_entry_limit=2", "two"),
    ] {
        let (stdout, json, config) = run(limit, out);
        let line = stdout
            .lines()
            .find(|l| l.starts_with("escape network"))
            .unwrap_or_else(|| panic!("no escape line in\n{stdout}"));
        let max = num(&json, "escape.entries_max");
        assert_eq!(
            line,
            format!(
                "escape network  entered by {:.2}% of packets, {:.3} entries and {:.3} escape hops per packet, at most {max} entries",
                100.0 * num(&json, "escape.entered_fraction"),
                num(&json, "escape.entries_mean"),
                num(&json, "escape.hops_mean"),
            )
        );
        let sum = |path: &str| -> f64 {
            get(&json, path)
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .sum()
        };
        assert_eq!(
            sum("escape.entries_histogram"),
            sum("hops.histogram"),
            "{out}"
        );
        let cfg = arcsim::Config::from_toml_str(&config).expect("config.toml parses");
        if out == "none" {
            assert!(max > 2.0, "no packet entered the tree three times: {line}");
            // config.toml lists every key, defaults included.
            assert_eq!(cfg.routing.escape_entry_limit, 0, "{config}");
        } else {
            assert_eq!(max, 2.0, "{line}");
            assert_eq!(cfg.routing.escape_entry_limit, 2);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn sweep(dir: &Path, out_dir: &Path, threads: &str) -> Output {
    sweep_with(dir, out_dir, threads, &[])
}

/// The sweep of `sweep` (MIN and VAL at three loads) with further arguments.
fn sweep_with(dir: &Path, out_dir: &Path, threads: &str, extra: &[&str]) -> Output {
    let mut args = vec!["sweep"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "--set",
        "simulation.warmup_cycles=300",
        "--set",
        "simulation.measure_cycles=700",
        "--load",
        "0.1:0.3:0.1",
        "--vary",
        "routing.algorithm=min,val",
        "--threads",
        threads,
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    arcsim(dir, &args)
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn sweep_writes_csv_json_and_plots() {
    let dir = temp_dir("cli-sweep");
    let out_dir = dir.join("out");
    let out = sweep(&dir, &out_dir, "2");
    assert_success(&out, "arcsim sweep");

    let (header, rows) = read_csv(&out_dir.join("sweep.csv"));
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("sweep.csv lacks column {name}: {header:?}"))
    };
    assert_eq!(rows.len(), 6, "2 curves x 3 loads: {rows:?}");
    let (c_curve, c_load, c_acc) = (col("curve"), col("offered_load"), col("accepted_load"));
    let (c_gen, c_del, c_fly) = (col("generated"), col("delivered"), col("in_flight"));
    let (g_mean, g_max) = (col("global_link_mean"), col("global_link_max"));
    col("latency_mean");
    col("hops_mean");
    col("wall_seconds");
    let mut seen = Vec::new();
    for row in &rows {
        let load: f64 = row[c_load].parse().unwrap();
        let acc: f64 = row[c_acc].parse().unwrap();
        // Low loads: everything offered is accepted.
        assert!(
            (acc - load).abs() < 0.15 * load,
            "curve {} load {load}: accepted {acc}",
            row[c_curve]
        );
        let n = |c: usize| row[c].parse::<u64>().unwrap();
        assert_eq!(n(c_gen), n(c_del) + n(c_fly), "{row:?}");
        // Below saturation the global links carry the load, none past one phit a cycle.
        let (mean, max): (f64, f64) = (row[g_mean].parse().unwrap(), row[g_max].parse().unwrap());
        assert!(0.0 < mean && mean <= max && max <= 1.0, "{row:?}");
        seen.push((row[c_curve].clone(), load));
    }
    let expected: Vec<(String, f64)> = ["min", "val"]
        .iter()
        .flat_map(|c| [0.1, 0.2, 0.3].map(|l| (c.to_string(), l)))
        .collect();
    assert_eq!(seen, expected);

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("sweep.json")).unwrap())
            .expect("sweep.json is JSON");
    let points = json["points"]
        .as_array()
        .expect("sweep.json has an array of points");
    assert_eq!(points.len(), 6);
    for (p, (curve, load)) in points.iter().zip(&expected) {
        assert_eq!(p["curve"].as_str(), Some(curve.as_str()));
        assert_eq!(p["offered_load"].as_f64(), Some(*load));
    }
    for stem in ["latency", "throughput", "links"] {
        assert_png(&out_dir.join(format!("{stem}.png")));
        assert_svg(&out_dir.join(format!("{stem}.svg")));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With several seeds per point the table on standard output gives each mean with its 95%
/// confidence half-width, the numbers of sweep.csv; with one seed, the means alone.
#[test]
fn sweep_table_shows_confidence_intervals_with_seeds() {
    let dir = temp_dir("cli-sweep-ci");
    let out_dir = dir.join("out");
    let out = sweep_with(&dir, &out_dir, "2", &["--set", "simulation.repetitions=3"]);
    assert_success(&out, "arcsim sweep with 3 seeds");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("accepted ±95%"), "{stdout}");
    let (header, rows) = read_csv(&out_dir.join("sweep.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (acc, ci): (f64, f64) = (
        rows[0][col("accepted_load")].parse().unwrap(),
        rows[0][col("accepted_ci95")].parse().unwrap(),
    );
    assert!(ci > 0.0, "three seeds differ: {rows:?}");
    let shown = format!("{acc:.4} ±{ci:.4}");
    assert!(stdout.contains(&shown), "table lacks {shown}: {stdout}");

    let out = sweep(&dir, &dir.join("one"), "1");
    assert_success(&out, "arcsim sweep with 1 seed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains('±'), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Remove the wall-clock fields from a JSON tree.
fn strip_wall_clock(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in [
                "wall_seconds",
                "cycles_per_second",
                "packet_hops_per_second",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(strip_wall_clock);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_wall_clock),
        _ => {}
    }
}

#[test]
fn sweep_does_not_depend_on_threads() {
    let dir = temp_dir("cli-sweep-threads");
    let (one, two) = (dir.join("t1"), dir.join("t2"));
    assert_success(&sweep(&dir, &one, "1"), "sweep --threads 1");
    assert_success(&sweep(&dir, &two, "2"), "sweep --threads 2");

    let (h1, r1) = read_csv(&one.join("sweep.csv"));
    let (h2, r2) = read_csv(&two.join("sweep.csv"));
    assert_eq!(h1, h2);
    let wall = h1
        .iter()
        .position(|h| h == "wall_seconds")
        .expect("wall_seconds column");
    let drop_wall = |rows: &[Vec<String>]| -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != wall)
                    .map(|(_, s)| s.clone())
                    .collect()
            })
            .collect()
    };
    assert_eq!(r1.len(), 6);
    assert_eq!(
        drop_wall(&r1),
        drop_wall(&r2),
        "sweep.csv depends on --threads"
    );

    let load = |p: &Path| -> serde_json::Value {
        let mut v =
            serde_json::from_str(&std::fs::read_to_string(p.join("sweep.json")).unwrap()).unwrap();
        strip_wall_clock(&mut v);
        v
    };
    assert_eq!(load(&one), load(&two), "sweep.json depends on --threads");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_key_via_set_fails_cleanly() {
    let dir = temp_dir("cli-bad-key");
    let out = arcsim(&dir, &["run", "--set", "topology.q=3", "--out", "o"]);
    assert_clean_failure(
        &out,
        "run --set topology.q=3",
        &["topology.q", "unknown field"],
    );
    assert!(
        !dir.join("o").exists(),
        "an output directory was created for a bad run"
    );
    let out = arcsim(
        &dir,
        &[
            "sweep",
            "--load",
            "0.1:0.2:0.1",
            "--set",
            "traffic.lod=0.3",
            "--out",
            "o",
        ],
    );
    assert_clean_failure(&out, "sweep --set traffic.lod", &["traffic.lod"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_values_fail_cleanly() {
    let dir = temp_dir("cli-bad-values");
    let out = arcsim(&dir, &["run", "--set", "traffic.load=1.5", "--out", "o"]);
    assert_clean_failure(&out, "load 1.5", &["traffic.load", "(0, 1]"]);
    let out = arcsim(
        &dir,
        &[
            "sweep",
            "--load",
            "0.1:0.2:0.1",
            "--vary",
            "routing.algorithm=min,ofarx",
            "--out",
            "o",
        ],
    );
    assert_clean_failure(
        &out,
        "vary unknown routing",
        &["routing.algorithm", "ofarx"],
    );
    let out = arcsim(&dir, &["sweep", "--load", "0:0.5:0.1", "--out", "o"]);
    assert_clean_failure(&out, "load 0 in sweep", &["--load"]);
    let out = arcsim(&dir, &["run", "--set", "topology", "--out", "o"]);
    assert_clean_failure(&out, "--set without =", &["KEY=VALUE"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_sweep_and_bench_options_fail_before_simulating() {
    let dir = temp_dir("cli-bad-options");
    // A warm-up this long would take hours: each failure must come before any simulation.
    let long = ["--set", "simulation.warmup_cycles=1000000000"];
    let sweep_with = |extra: &[&str]| {
        let mut args = vec!["sweep", "--load", "0.1:0.1:0.1"];
        args.extend_from_slice(&SMALL);
        args.extend_from_slice(&long);
        args.extend_from_slice(extra);
        arcsim(&dir, &args)
    };
    // 100,000 threads used to be started one by one (a hang).
    let out = sweep_with(&["--threads", "100000", "--out", "o"]);
    assert_clean_failure(
        &out,
        "--threads 100000",
        &["--threads 100000", "at most 1024"],
    );
    let out = sweep_with(&["--vary", "traffic.load=0.5,0.9", "--out", "o"]);
    assert_clean_failure(&out, "--vary traffic.load", &["traffic.load", "--load"]);
    // An unusable --out used to fail only after every simulation had run.
    std::fs::write(dir.join("file"), "x").unwrap();
    let out = sweep_with(&["--out", "file"]);
    assert_clean_failure(
        &out,
        "sweep --out FILE",
        &["output folder file: cannot create it"],
    );
    let mut args = vec!["run"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&long);
    args.extend_from_slice(&["--out", "file/sub"]);
    let out = arcsim(&dir, &args);
    assert_clean_failure(&out, "run --out FILE/sub", &["file/sub"]);
    // NaN reached the configuration as the string "NaN"; 2h overflowed.
    let out = arcsim(&dir, &["bench", "--load", "nan"]);
    assert_clean_failure(&out, "bench --load nan", &["--load NaN", "(0, 1]"]);
    let out = arcsim(&dir, &["bench", "--h", "4611686018427387904"]);
    assert_clean_failure(
        &out,
        "bench --h huge",
        &["--h 4611686018427387904", "1..=16"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_or_malformed_config_file_fails_cleanly() {
    let dir = temp_dir("cli-bad-file");
    let missing = dir.join("no-such-config.toml");
    let out = arcsim(&dir, &["run", missing.to_str().unwrap(), "--out", "o"]);
    assert_clean_failure(
        &out,
        "missing config",
        &["no-such-config.toml", "cannot read"],
    );

    let bad = dir.join("broken.toml");
    std::fs::write(&bad, "[topology]\np = 2\n[router\n").unwrap();
    let out = arcsim(&dir, &["run", bad.to_str().unwrap(), "--out", "o"]);
    assert_clean_failure(&out, "malformed config", &["broken.toml", "line 3"]);

    let wrong = dir.join("wrong.toml");
    std::fs::write(&wrong, "[topology]\np = \"six\"\n").unwrap();
    let out = arcsim(&dir, &["run", wrong.to_str().unwrap(), "--out", "o"]);
    assert_clean_failure(
        &out,
        "wrong type in file",
        &["topology.p", "expected a whole number, 0 or more"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_command_prints_the_default() {
    let dir = temp_dir("cli-config");
    let out = arcsim(&dir, &["config"]);
    assert_success(&out, "arcsim config");
    let cfg = arcsim::Config::from_toml_str(&text(&out.stdout)).expect("printed config parses");
    assert_eq!(cfg, arcsim::Config::embedded_default());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `arcsim ... | head` closes the pipe early: the binary must end without a panic message.
#[cfg(unix)]
#[test]
fn closed_stdout_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = temp_dir("cli-pipe");
    // The paper-size Fig. 6 lists 1,800 simulations, far more than a pipe buffer holds.
    let spec = experiments().join("fig06.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcsim"))
        .args(["figure", spec.to_str().unwrap(), "--dry-run"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arcsim");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .expect("read the first line");
    // The reader is dropped here, closing the pipe while arcsim still has lines to write.
    let out = child.wait_with_output().expect("wait for arcsim");
    assert!(first.contains("seed 1"), "first line: {first:?}");
    let err = text(&out.stderr);
    assert!(
        !err.contains("panicked"),
        "arcsim panicked on a closed pipe:\n{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_repeats_identically_and_reports_the_median() {
    let dir = temp_dir("bench");
    let out = arcsim(
        &dir,
        &["bench", "--h", "2", "--cycles", "300", "--repeat", "3"],
    );
    assert_success(&out, "bench --repeat 3");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("3 (identical results)"), "{stdout}");
    assert!(stdout.contains("simulated cycles/s"), "{stdout}");
    assert!(stdout.contains("packet-hops/s"), "{stdout}");
    assert_eq!(text(&out.stderr).matches("cycles/s").count(), 3);
    let zero = arcsim(&dir, &["bench", "--h", "2", "--repeat", "0"]);
    assert_clean_failure(&zero, "bench --repeat 0", &["--repeat"]);
    let zero = arcsim(&dir, &["bench", "--h", "2", "--cycles", "0"]);
    assert_clean_failure(
        &zero,
        "bench --cycles 0",
        &["--cycles 0", "at least 1 cycle"],
    );
}

/// A key that no simulation of the command reads is warned about, once, naming the key and
/// the reason (a configuration file's such keys together, on one line); keys some curve
/// reads, and a figure base's keys, are not.
#[test]
fn keys_no_simulation_reads_are_warned_about() {
    let dir = temp_dir("cli-unused");
    // A window of 800 cycles: 100 packet times, the shortest not warned about as too short.
    let short = [
        "--set",
        "simulation.warmup_cycles=50",
        "--set",
        "simulation.measure_cycles=800",
    ];
    let mut args = vec!["run"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&short);
    args.extend_from_slice(&["--set", "routing.rings=[\"b\"]", "--out", "o"]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "run with an OFAR key and MIN");
    let err = text(&out.stderr);
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(
        err.contains("warning: routing.rings is set but has no effect")
            && err.contains("routing.algorithm = \"min\""),
        "{err}"
    );

    // Keys from a configuration file are listed together, on one line.
    std::fs::write(
        dir.join("shared.toml"),
        "[routing]\nrings = [\"b\"]\npb_factor = 1.5\n",
    )
    .unwrap();
    let mut args = vec!["run", "shared.toml"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&short);
    args.extend_from_slice(&["--out", "f"]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "run with a file's OFAR and PB keys and MIN");
    let err = text(&out.stderr);
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(
        err.contains("warning: routing.pb_factor, routing.rings are set by the configuration file")
            || err.contains(
                "warning: routing.rings, routing.pb_factor are set by the configuration file"
            ),
        "{err}"
    );
    assert!(err.contains("(routing.algorithm = \"min\")"), "{err}");

    // A sweep whose curves include OFAR reads routing.ring_direction: no warning. PB's keys
    // are read by no curve.
    let mut args = vec!["sweep", "--load", "0.1:0.2:0.1"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&short);
    args.extend_from_slice(&[
        "--vary",
        "routing.algorithm=min,ofar",
        "--set",
        "routing.ring_direction=both",
        "--set",
        "routing.pb_period=20",
        "--out",
        "s",
    ]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "sweep MIN and OFAR");
    let err = text(&out.stderr);
    assert!(!err.contains("routing.ring_direction"), "{err}");
    assert!(
        err.contains("warning: routing.pb_period is set but has no effect: only PB reads it"),
        "{err}"
    );

    // A figure: the base's keys for other routings are not reported, a --set that no
    // simulation reads is.
    let spec = experiments().join("fig14.toml");
    let spec = spec.to_str().unwrap();
    let out = arcsim(&dir, &["figure", spec, "--scale", "quick", "--dry-run"]);
    assert_success(&out, "figure 14 --dry-run");
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    let out = arcsim(
        &dir,
        &[
            "figure",
            spec,
            "--scale",
            "quick",
            "--dry-run",
            "--set",
            "routing.tree_root=3",
        ],
    );
    assert_success(&out, "figure 14 --dry-run --set routing.tree_root=3");
    assert!(
        text(&out.stderr).contains(
            "warning: routing.tree_root is set but has no effect: only routing.escape = \"tree\" reads it"
        ),
        "{}",
        text(&out.stderr)
    );

    // Traffic keys: an offset with the uniform pattern, from --set and from a file (a line of
    // its own, with the reason); a figure whose panels use the offset does not warn.
    let mut args = vec!["run"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&short);
    args.extend_from_slice(&["--set", "traffic.offset=6", "--out", "t"]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "run with an offset and the uniform pattern");
    let err = text(&out.stderr);
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(
        err.contains("warning: traffic.offset is set but has no effect: only adv-global, adv-local and shift read an offset, and traffic.pattern = \"uniform\""),
        "{err}"
    );
    std::fs::write(
        dir.join("offset.toml"),
        "[routing]\nrings = [\"b\"]\n[traffic]\noffset = 6\n",
    )
    .unwrap();
    let mut args = vec!["run", "offset.toml"];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(&short);
    args.extend_from_slice(&["--out", "tf"]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "run with a file's offset and the uniform pattern");
    let err = text(&out.stderr);
    assert_eq!(err.matches("warning").count(), 2, "{err}");
    assert!(
        err.contains("warning: traffic.offset is set by the configuration file but has no effect: only adv-global")
            && err.contains("warning: routing.rings is set by the configuration file"),
        "{err}"
    );
    let spec = experiments().join("fig06.toml");
    let out = arcsim(
        &dir,
        &[
            "figure",
            spec.to_str().unwrap(),
            "--scale",
            "quick",
            "--dry-run",
            "--set",
            "traffic.offset=3",
        ],
    );
    assert_success(&out, "figure 6 --dry-run --set traffic.offset=3");
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plain OFAR with injections competing equally with transit packets is valid but congests
/// past saturation: `run` and `sweep` say so once; with BCM or ECM they say so only with the
/// paper's literal misrouting rules, which congest there too; nothing when transit packets go
/// first (the default), or for other routings.
#[test]
fn plain_ofar_with_equal_injection_priority_gets_a_note() {
    let dir = temp_dir("cli-advisory");
    let note = "note: plain OFAR (routing.congestion = \"none\") with router.injection_priority = \"equal\" congests past saturation";
    // The network and windows of every command below.
    let mut small = SMALL.to_vec();
    small.extend_from_slice(&[
        "--set",
        "simulation.warmup_cycles=50",
        "--set",
        "simulation.measure_cycles=50",
        "--set",
        "router.injection_priority=equal",
    ]);
    let run = |extra: &[&str], name: &str| -> String {
        let mut args = vec!["run"];
        args.extend_from_slice(&small);
        args.extend_from_slice(&["--out", name]);
        args.extend_from_slice(extra);
        let out = arcsim(&dir, &args);
        assert_success(&out, name);
        text(&out.stderr)
    };
    let err = run(&["--set", "routing.algorithm=ofar-l"], "plain");
    assert_eq!(err.matches(note).count(), 1, "{err}");
    assert_eq!(err.matches("note:").count(), 1, "{err}");
    // With BCM or ECM: no note on the default (FOGSim's) misrouting rules, another one with
    // the paper's literal rules, which congest there too.
    let bcm = [
        "--set",
        "routing.algorithm=ofar",
        "--set",
        "routing.congestion=bcm",
    ];
    let err = run(&bcm, "bcm");
    assert!(!err.contains("note:"), "{err}");
    let literal = [
        "--set",
        "routing.misroute_trigger=unavailable",
        "--set",
        "routing.misroute_congested_global=false",
    ];
    let err = run(&[&bcm[..], &literal[..]].concat(), "bcm-literal");
    assert!(
        err.contains("note: OFAR with BCM or ECM congests past saturation with router.injection_priority = \"equal\", routing.misroute_trigger = \"unavailable\" and no routing.misroute_congested_global together")
            && !err.contains(note)
            && err.matches("note:").count() == 1,
        "{err}"
    );
    for (extra, what) in [
        (
            &[
                "--set",
                "routing.algorithm=ofar",
                "--set",
                "router.injection_priority=transit-first",
            ][..],
            "transit-first",
        ),
        (
            &[
                "--set",
                "routing.algorithm=ofar",
                "--set",
                "routing.congestion=ecm",
                "--set",
                "router.injection_priority=transit-first",
            ][..],
            "ecm, transit-first",
        ),
        (&["--set", "routing.algorithm=val"][..], "val"),
    ] {
        let err = run(extra, what);
        assert!(!err.contains("note:"), "{what}: {err}");
    }
    // A sweep prints it once, however many of its simulations it concerns.
    let mut args = vec!["sweep", "--load", "0.1:0.2:0.1"];
    args.extend_from_slice(&small);
    args.extend_from_slice(&["--vary", "routing.algorithm=ofar,ofar-l,min", "--out", "s"]);
    let out = arcsim(&dir, &args);
    assert_success(&out, "sweep");
    assert_eq!(
        text(&out.stderr).matches(note).count(),
        1,
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's quick start shows what `arcsim run` prints with the embedded default; every
/// line but `speed` must be what the default run prints today (the README promises that).
#[test]
fn readme_quick_start_shows_what_the_default_run_prints() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("read README.md");
    let quick = &readme[readme
        .find("## Quick start")
        .expect("README has a Quick start")..];
    let block = quick
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the Quick start has a ```text block");
    let shown: Vec<&str> = block.lines().filter(|l| !l.starts_with("speed")).collect();
    assert!(
        shown.len() >= 7,
        "the README's example is too short:\n{block}"
    );

    let dir = temp_dir("cli-readme");
    let out = arcsim(&dir, &["run", "--out", "out"]);
    assert_success(&out, "arcsim run (the embedded default)");
    let stdout = text(&out.stdout);
    let printed: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("speed") && !l.starts_with("wrote "))
        .collect();
    assert_eq!(
        printed, shown,
        "README.md's Quick start example differs from what `arcsim run` prints"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// docs/configuration.md shows each example file whole under a heading that names it; the
/// copies must be the files as they are (they drifted apart once).
#[test]
fn configuration_docs_show_the_example_files_as_they_are() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/configuration.md"))
        .expect("read docs/configuration.md");
    let mut shown = Vec::new();
    for section in doc.split("\n### ").skip(1) {
        let heading = section.lines().next().unwrap_or_default();
        let Some(name) = heading
            .split("`examples/")
            .nth(1)
            .and_then(|n| n.split('`').next())
        else {
            continue;
        };
        let block = section
            .split("```toml\n")
            .nth(1)
            .and_then(|b| b.split("```").next())
            .unwrap_or_else(|| panic!("no ```toml block under the heading of {name}"));
        let file = std::fs::read_to_string(root.join("examples").join(name))
            .unwrap_or_else(|e| panic!("examples/{name}: {e}"));
        assert_eq!(
            block, file,
            "docs/configuration.md's copy of examples/{name} differs from the file"
        );
        shown.push(name.to_string());
    }
    // Every example file is shown, so none can change without its copy.
    let mut files: Vec<String> = std::fs::read_dir(root.join("examples"))
        .expect("examples/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    shown.sort();
    assert_eq!(shown, files, "examples shown in docs/configuration.md");
}
