//! Trustworthy runs: outputs written whole or not at all, a sweep that keeps its finished
//! points and resumes, failed points recorded instead of aborting the sweep. Interruptions are
//! made deterministic by the binary's test hooks (`ARCSIM_TEST_KILL_WRITE`,
//! `ARCSIM_TEST_STOP_AFTER`), not by timers.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::*;

const SMALL: [&str; 10] = [
    "--set",
    "topology.p=2",
    "--set",
    "topology.a=4",
    "--set",
    "topology.h=2",
    "--set",
    "simulation.warmup_cycles=300",
    "--set",
    "simulation.measure_cycles=600",
];

/// Run the binary in `cwd` with environment variables set.
fn arcsim_env(cwd: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcsim"));
    c.args(args).current_dir(cwd);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("start arcsim")
}

fn with_small<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    let mut v = head.to_vec();
    v.extend_from_slice(&SMALL);
    v.extend_from_slice(tail);
    v
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Remove the measurements of time (they differ from run to run) from a JSON value.
fn without_wall_time(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in [
                "wall_seconds",
                "cycles_per_second",
                "packet_hops_per_second",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(without_wall_time);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(without_wall_time),
        _ => {}
    }
}

/// A CSV file without its `wall_seconds` column.
fn csv_without_wall_time(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let skip = header.iter().position(|h| h == "wall_seconds");
    let keep = |row: Vec<String>| -> Vec<String> {
        row.into_iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .map(|(_, x)| x)
            .collect()
    };
    let mut rows = vec![keep(header.clone())];
    for rec in r.records() {
        rows.push(keep(rec.unwrap().iter().map(str::to_string).collect()));
    }
    rows
}

/// A run killed while it writes result.json leaves the previous result.json, whole; killed
/// while it writes the next file, the new result.json is complete. No half file either way.
#[test]
fn a_run_killed_while_writing_leaves_the_old_file_or_the_complete_new_one() {
    let dir = temp_dir("runs-kill");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let first = arcsim(&dir, &with_small(&["run"], &["--out", o]));
    assert_success(&first, "first run");
    let old = std::fs::read(out.join("result.json")).unwrap();
    assert_eq!(json(&out.join("result.json"))["seed"], 1);

    let killed = arcsim_env(
        &dir,
        &[("ARCSIM_TEST_KILL_WRITE", "result.json")],
        &with_small(&["run"], &["--set", "simulation.seed=2", "--out", o]),
    );
    assert!(!killed.status.success(), "the kill hook stops the run");
    assert_eq!(
        std::fs::read(out.join("result.json")).unwrap(),
        old,
        "killed while writing it, result.json is the previous one"
    );

    let killed = arcsim_env(
        &dir,
        &[("ARCSIM_TEST_KILL_WRITE", "config.toml")],
        &with_small(&["run"], &["--set", "simulation.seed=3", "--out", o]),
    );
    assert!(!killed.status.success());
    let new = json(&out.join("result.json"));
    assert_eq!(
        new["seed"], 3,
        "result.json was written whole before the kill"
    );
    assert!(std::fs::read_to_string(out.join("config.toml"))
        .unwrap()
        .contains("seed = 1"));
    // Only temporary files (hidden, `.NAME.*.tmp.EXT`) can be left by a kill.
    for e in std::fs::read_dir(&out).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            !name.starts_with('.') || name.contains(".tmp"),
            "unexpected file {name}"
        );
    }
}

/// report.html is written as every output is: killed while writing it, a run leaves the
/// previous report whole.
#[test]
fn a_run_killed_while_writing_its_report_leaves_the_previous_one() {
    let dir = temp_dir("runs-kill-report");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    assert_success(
        &arcsim(&dir, &with_small(&["run"], &["--out", o])),
        "first run",
    );
    let old = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(old.contains("seed 1") && old.trim_end().ends_with("</html>"));
    let killed = arcsim_env(
        &dir,
        &[("ARCSIM_TEST_KILL_WRITE", "report.html")],
        &with_small(&["run"], &["--set", "simulation.seed=2", "--out", o]),
    );
    assert!(!killed.status.success(), "the kill hook stops the run");
    assert_eq!(
        std::fs::read_to_string(out.join("report.html")).unwrap(),
        old
    );
}

/// An output folder that cannot be written is refused before simulating, naming it.
#[test]
fn an_unwritable_output_folder_is_refused_before_simulating() {
    let dir = temp_dir("runs-unwritable");
    std::fs::write(dir.join("file"), "x").unwrap();
    let out = arcsim(&dir, &with_small(&["run"], &["--out", "file/out"]));
    assert_clean_failure(&out, "run under a file", &["output folder file/out"]);
    assert!(text(&out.stdout).is_empty(), "nothing simulated");
    let out = arcsim(
        &dir,
        &with_small(&["sweep", "--load", "0.1"], &["--out", "file/out"]),
    );
    assert_clean_failure(&out, "sweep under a file", &["output folder file/out"]);

    // A read-only folder (root writes anywhere: then there is nothing to check).
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    let mut perm = std::fs::metadata(&ro).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&ro, perm).unwrap();
    if std::fs::write(ro.join("probe"), "x").is_err() {
        let out = arcsim(&dir, &with_small(&["run"], &["--out", "ro"]));
        assert_clean_failure(
            &out,
            "run into a read-only folder",
            &["output folder ro is not writable"],
        );
        assert!(text(&out.stdout).is_empty(), "nothing simulated");
    }
}

const SWEEP: [&str; 6] = [
    "sweep",
    "--load",
    "0.1,0.2",
    "--vary",
    "routing.algorithm=min,val",
    "--threads=1",
];

/// A sweep stopped after two of its four simulations (as by a Ctrl-C then) keeps them in
/// OUT/runs/; run again it resumes, and its outputs hold the same numbers as a sweep never
/// interrupted.
#[test]
fn an_interrupted_sweep_resumes_to_the_same_numbers() {
    let dir = temp_dir("runs-resume");
    let stopped = arcsim_env(
        &dir,
        &[("ARCSIM_TEST_STOP_AFTER", "2")],
        &with_small(&SWEEP, &["--out", "resumed"]),
    );
    assert_eq!(
        stopped.status.code(),
        Some(130),
        "{}",
        text(&stopped.stderr)
    );
    assert!(
        text(&stopped.stderr).contains("2 of 4 simulations finished and are kept in resumed/runs"),
        "{}",
        text(&stopped.stderr)
    );
    assert_eq!(
        std::fs::read_dir(dir.join("resumed/runs")).unwrap().count(),
        2
    );
    assert!(!dir.join("resumed/sweep.csv").exists());

    let resumed = arcsim(&dir, &with_small(&SWEEP, &["--out", "resumed"]));
    assert_success(&resumed, "resumed sweep");
    assert!(text(&resumed.stderr).contains("reusing 2 stored simulations"));
    let whole = arcsim(&dir, &with_small(&SWEEP, &["--out", "whole"]));
    assert_success(&whole, "uninterrupted sweep");

    assert_eq!(
        csv_without_wall_time(&dir.join("resumed/sweep.csv")),
        csv_without_wall_time(&dir.join("whole/sweep.csv"))
    );
    let mut a = json(&dir.join("resumed/sweep.json"));
    let mut b = json(&dir.join("whole/sweep.json"));
    without_wall_time(&mut a);
    without_wall_time(&mut b);
    assert_eq!(a, b);
    // --fresh simulates again.
    let fresh = arcsim(&dir, &with_small(&SWEEP, &["--out", "resumed", "--fresh"]));
    assert_success(&fresh, "fresh sweep");
    assert!(!text(&fresh.stderr).contains("reusing"));
}

/// VAL with one VC per link class in any order and one-packet buffers deadlocks at full load:
/// that point is recorded as failed, with the reason, the others are measured, every output is
/// written, and the exit status is 3.
#[test]
fn a_deadlocking_point_is_recorded_and_the_sweep_finishes() {
    let dir = temp_dir("runs-deadlock");
    let out = arcsim(
        &dir,
        &with_small(
            &[
                "sweep",
                "--load",
                "0.01,1",
                "--vary",
                "routing.algorithm=min,val",
            ],
            &[
                "--set",
                "routing.ordered_vcs=false",
                "--set",
                "router.vcs_local=1",
                "--set",
                "router.vcs_global=1",
                "--set",
                "router.buffer_local=8",
                "--set",
                "router.buffer_global=8",
                "--set",
                "simulation.watchdog_cycles=500",
                "--set",
                "simulation.warmup_cycles=1000",
                "--set",
                "simulation.measure_cycles=2000",
                "--out",
                "out",
            ],
        ),
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("1 of 4 points failed") && err.contains("val at load 1: deadlock"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    let rows = csv_without_wall_time(&dir.join("out/sweep.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (failure, accepted) = (col("failure"), col("accepted_load"));
    let (curve, load) = (col("curve"), col("offered_load"));
    assert_eq!(rows.len(), 5);
    for row in &rows[1..] {
        let failed = row[curve] == "val" && row[load] == "1";
        assert_eq!(row[failure].contains("deadlock"), failed, "{row:?}");
        // A failed point has no measurement (an empty cell, not 0).
        assert_eq!(row[accepted].is_empty(), failed, "{row:?}");
    }
    let points = json(&dir.join("out/sweep.json"));
    let points = points
        .get("points")
        .unwrap_or(&points)
        .as_array()
        .unwrap()
        .clone();
    let failed: Vec<_> = points.iter().filter(|p| p["failed"] == true).collect();
    assert_eq!(failed.len(), 1);
    assert!(failed[0]["failure"].as_str().unwrap().contains("deadlock"));
    assert!(failed[0].get("accepted_load").is_none());
    for f in ["throughput.svg", "latency.png", "links.svg"] {
        assert!(dir.join("out").join(f).exists(), "{f}");
    }
}

/// Keys that written configurations once left out at their default.
const LATE_KEYS: [&str; 5] = [
    "router.crossbar_input",
    "router.injection_vc",
    "router.credit_return",
    "router.lrs_update",
    "routing.pb_model",
];

fn has_key(config: &serde_json::Value, dotted: &str) -> bool {
    dotted
        .split('.')
        .try_fold(config, |v, k| v.get(k))
        .is_some()
}

/// result.json names the build and holds the complete configuration; config.toml lists every
/// key; a run of the written config.toml gives the same result (timing aside) and writes the
/// same config.toml.
#[test]
fn a_run_records_its_build_and_complete_configuration_and_reruns_identically() {
    let dir = temp_dir("runs-provenance");
    let first = arcsim(
        &dir,
        &with_small(&["run"], &["--set", "simulation.seed=7", "--out", "a"]),
    );
    assert_success(&first, "run");
    let mut a = json(&dir.join("a/result.json"));
    assert_eq!(a["arcsim"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(!a["arcsim"]["commit"].as_str().unwrap().is_empty());
    let config_toml = std::fs::read_to_string(dir.join("a/config.toml")).unwrap();
    for key in LATE_KEYS {
        assert!(has_key(&a["config"], key), "result.json lacks config.{key}");
        let name = key.rsplit('.').next().unwrap();
        assert!(
            config_toml.contains(&format!("\n{name} = ")),
            "config.toml lacks {key}"
        );
    }
    assert!(config_toml.contains(env!("CARGO_PKG_VERSION")));

    let again = arcsim(&dir, &["run", "a/config.toml", "--out", "b"]);
    assert_success(&again, "rerun from config.toml");
    let mut b = json(&dir.join("b/result.json"));
    without_wall_time(&mut a);
    without_wall_time(&mut b);
    assert_eq!(a, b, "a rerun from config.toml gives the same result");
    assert_eq!(
        config_toml,
        std::fs::read_to_string(dir.join("b/config.toml")).unwrap()
    );
}

/// sweep.json names the build, the overrides and the complete configuration, each point its
/// own overrides and settings; sweep.csv has the settings and overrides of every row; the
/// sweep writes config.toml.
#[test]
fn a_sweep_records_its_build_overrides_and_settings() {
    let dir = temp_dir("runs-sweep-provenance");
    let out = arcsim(
        &dir,
        &with_small(
            &[
                "sweep",
                "--load",
                "0.1",
                "--vary",
                "router.buffer_local=32,64",
            ],
            &["--set", "router.vcs_local=3", "--out", "o"],
        ),
    );
    assert_success(&out, "sweep");
    let d = json(&dir.join("o/sweep.json"));
    assert_eq!(d["arcsim"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(d["set"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("router.vcs_local=3")));
    assert_eq!(d["vary"][0], "router.buffer_local=32,64");
    for key in LATE_KEYS {
        assert!(has_key(&d["config"], key), "sweep.json lacks config.{key}");
    }
    let p = &d["points"][1];
    assert_eq!(
        p["overrides"],
        serde_json::json!(["router.buffer_local=64", "traffic.load=0.1"])
    );
    assert_eq!(p["settings"]["buffer_local"], 64);
    assert_eq!(p["settings"]["vcs_local"], 3);
    assert_eq!(p["settings"]["measure_cycles"], 600);

    let rows = csv_without_wall_time(&dir.join("o/sweep.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    assert_eq!(rows[2][col("buffer_local")], "64");
    assert_eq!(rows[2][col("vcs_local")], "3");
    assert_eq!(rows[2][col("warmup_cycles")], "300");
    assert!(rows[2][col("overrides")].contains("router.vcs_local=3"));
    assert!(rows[2][col("overrides")].contains("router.buffer_local=64"));
    let config = std::fs::read_to_string(dir.join("o/config.toml")).unwrap();
    assert!(config.contains("lrs_update = ") && config.contains("vcs_local = 3"));
}

/// A burst figure whose configuration sends no burst is refused before anything runs (it used
/// to print "NaN (NaN)" and succeed).
#[test]
fn a_burst_figure_without_burst_mode_is_refused() {
    let dir = temp_dir("runs-burst-figure");
    std::fs::write(
        dir.join("base.toml"),
        "[topology]\np = 2\na = 4\nh = 2\n[simulation]\nwarmup_cycles = 100\nmeasure_cycles = 200\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("fig.toml"),
        "title = \"no burst\"\nkind = \"burst\"\nconfig = \"base.toml\"\n[[curve]]\nlabel = \"MIN\"\nset = [\"routing.algorithm=min\"]\n",
    )
    .unwrap();
    let out = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_clean_failure(
        &out,
        "burst figure without a burst",
        &["curve MIN", "traffic.burst_packets = 0", "burst mode"],
    );
    assert!(!dir.join("o/runs").exists(), "nothing ran");
    // With a burst it runs.
    let out = arcsim(
        &dir,
        &[
            "figure",
            "fig.toml",
            "--out",
            "o",
            "--set",
            "traffic.burst_packets=5",
        ],
    );
    assert_success(&out, "burst figure with a burst");
    // The figure names its build, and each stored simulation keeps its commit and complete
    // configuration.
    let summary = std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    assert!(
        summary.contains(&format!(
            "made by arcsim {} (commit ",
            env!("CARGO_PKG_VERSION")
        )),
        "{summary}"
    );
    let stored: Vec<_> = std::fs::read_dir(dir.join("o/runs")).unwrap().collect();
    assert_eq!(stored.len(), 1);
    let entry = json(&stored[0].as_ref().unwrap().path());
    assert!(!entry["commit"].as_str().unwrap().is_empty());
    let complete = entry["complete_config"].as_str().unwrap();
    for key in LATE_KEYS {
        let name = key.rsplit('.').next().unwrap();
        assert!(complete.contains(&format!("\n{name} = ")), "{complete}");
    }
}

/// A configuration too large for the memory limit is refused before anything is allocated,
/// naming the keys that make it large (buffers of 65,535 phits and 16 VCs on the default
/// network need over 10 GiB; the limit is set to 4 GiB so that the test does not depend on
/// the machine).
#[test]
fn a_configuration_over_the_memory_limit_is_refused_naming_its_keys() {
    let dir = temp_dir("runs-memory");
    let big = [
        "--set",
        "router.buffer_local=65535",
        "--set",
        "router.buffer_global=65535",
        "--set",
        "router.vcs_local=16",
        "--set",
        "router.vcs_global=16",
    ];
    let mut args = vec!["run"];
    args.extend_from_slice(&big);
    args.extend_from_slice(&["--set", "simulation.memory_limit_mib=4096", "--out", "o"]);
    let out = arcsim(&dir, &args);
    assert_clean_failure(
        &out,
        "huge buffers",
        &[
            "router.buffer_local",
            "router.vcs_local",
            "needs about",
            "simulation.memory_limit_mib = 4096",
        ],
    );
    assert!(text(&out.stdout).is_empty());
    // The machine's memory is the default limit: refused there too, unless the machine has
    // more than the estimate.
    let out = arcsim(&dir, &{
        let mut a = vec!["run"];
        a.extend_from_slice(&big);
        a.extend_from_slice(&["--set", "simulation.measure_cycles=1", "--out", "o"]);
        a
    });
    if !out.status.success() {
        assert_clean_failure(
            &out,
            "huge buffers, machine limit",
            &["the machine's memory"],
        );
    }
}

/// SIGTERM during a long run stops it cleanly: exit status 130, a message saying nothing was
/// written, the output folder left as it was. The signal is sent once the run has said it
/// started (its handler is installed before), so no timer is involved.
#[cfg(unix)]
#[test]
fn sigterm_stops_a_run_cleanly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = temp_dir("runs-sigterm");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arcsim"))
        .args([
            "run",
            "--set",
            "simulation.measure_cycles=100000000",
            "--out",
            "o",
        ])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arcsim");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.starts_with("arcsim: dragonfly"), "{first}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(rest.contains("nothing written, o left as it was"), "{rest}");
    assert!(!rest.contains("panicked"), "{rest}");
    assert!(!dir.join("o/result.json").exists());
}
