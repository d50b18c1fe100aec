//! End-to-end tests of `arcsim figure`: the experiment specs of experiments/ are valid at every
//! scale they define, each figure kind writes its tables and plots, results do not depend on
//! the thread count, failed runs are recorded instead of aborting the figure, and bad specs
//! stop with a message naming what is wrong.

use std::path::Path;

mod common;
use common::*;

fn rows(path: &Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.records().map(|x| x.expect("csv row")).collect()
}

/// The index of column `name` of a CSV file.
fn column(path: &Path, name: &str) -> usize {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = r.headers().expect("csv header").clone();
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("{}: no column {name}: {header:?}", path.display()))
}

fn assert_plot(stem: &Path) {
    assert_svg(&stem.with_extension("svg"));
    assert_png(&stem.with_extension("png"));
}

/// (spec, simulations at full size, at the quick scale, at its other scales).
type SpecCounts = (&'static str, usize, usize, &'static [(&'static str, usize)]);

const SPECS: [SpecCounts; 14] = [
    // 4 curves x 5 seeds; quick: 1 seed.
    ("fig05-series.toml", 20, 4, &[("h6", 20)]),
    // 4 curves x 20 loads x 5 seeds; quick: 4 x 5 loads.
    // h6: 4 curves x 5 loads x 5 seeds.
    ("fig05.toml", 400, 20, &[("h6", 100)]),
    // 3 panels x 6 curves x 20 loads x 5 seeds; quick: 3 x 6 x 10.
    // h6: 3 panels x 6 curves x 5 loads x 5 seeds.
    ("fig06.toml", 1800, 180, &[("h6", 870)]),
    ("fig07.toml", 15, 6, &[]),
    // 6 patterns x 6 curves x 5 seeds.
    ("fig08-cm.toml", 180, 36, &[]),
    // 6 patterns x 4 routings x 5 seeds.
    ("fig08-ofar-l.toml", 120, 24, &[]),
    // 6 patterns x 5 routings x 5 seeds.
    ("fig08.toml", 150, 30, &[]),
    // h6: 2 panels x 6 curves x 5 loads x 5 seeds.
    ("fig09.toml", 1200, 120, &[("h6", 660)]),
    // h6: 2 panels x 5 curves x 5 loads x 5 seeds.
    ("fig10.toml", 1000, 100, &[("h6", 500)]),
    // h6: 7 panels x 5 curves x 5 seeds.
    ("fig11.toml", 175, 35, &[("h6", 175)]),
    // h6: 3 panels x 2 escapes x 5 seeds.
    ("fig12.toml", 30, 6, &[("h6", 30)]),
    // h6: 2 escape networks x 4 escape-entry limits x 5 seeds.
    ("fig13-counter.toml", 40, 8, &[("h6", 40)]),
    // h6: 4 curves x 5 seeds.
    ("fig13.toml", 20, 4, &[("h6", 20)]),
    // h6: 3 panels x 3 rings x 8 loads x 5 seeds.
    ("fig14.toml", 900, 90, &[("h6", 360)]),
];

#[test]
fn every_experiment_spec_is_valid_at_every_scale() {
    let dir = temp_dir("specs");
    let mut found: Vec<String> = std::fs::read_dir(experiments())
        .expect("experiments/ofar")
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            (n.starts_with("fig") && n.ends_with(".toml")).then_some(n)
        })
        .collect();
    found.sort();
    let listed: Vec<&str> = SPECS.iter().map(|s| s.0).collect();
    assert_eq!(
        found, listed,
        "a spec in experiments/ofar is not checked here"
    );
    for (name, full, quick, others) in SPECS {
        let spec = experiments().join(name);
        let spec = spec.to_str().expect("utf-8 path");
        let defined: Vec<String> = std::fs::read_to_string(spec)
            .expect("spec")
            .lines()
            .filter_map(|l| {
                l.strip_prefix("[scale.")?
                    .strip_suffix(']')
                    .map(str::to_string)
            })
            .collect();
        let checked: Vec<String> = std::iter::once("quick")
            .chain(others.iter().map(|o| o.0))
            .map(str::to_string)
            .collect();
        assert_eq!(defined, checked, "{name}: a scale is not checked here");
        let scales = [(None, full), (Some("quick"), quick)]
            .into_iter()
            .chain(others.iter().map(|&(s, n)| (Some(s), n)));
        for (scale, want) in scales {
            let mut args = vec!["figure", spec, "--dry-run"];
            if let Some(s) = scale {
                args.extend(["--scale", s]);
            }
            let out = arcsim(&dir, &args);
            assert_success(&out, &format!("{name} {scale:?}"));
            let lines = text(&out.stdout).lines().count();
            assert_eq!(lines, want, "{name} at scale {scale:?}: simulations");
        }
    }
    // The quick scale really shrinks the network, and ADVG+h follows h.
    let out = arcsim(
        &dir,
        &[
            "figure",
            experiments().join("fig06.toml").to_str().unwrap(),
            "--dry-run",
            "--scale",
            "quick",
        ],
    );
    let listing = text(&out.stdout);
    assert!(listing.lines().all(|l| l.contains("p=4 a=8 h=4")));
    assert!(listing
        .lines()
        .filter(|l| l.starts_with("advgh"))
        .all(|l| l.contains("AdvGlobal 4")));
    assert!(!listing.contains("AdvGlobal 6"));
}

const BASE: &str = r#"
[topology]
p = 2
a = 4
h = 2
[simulation]
warmup_cycles = 300
measure_cycles = 300
repetitions = 2
"#;

fn write(dir: &Path, name: &str, body: &str) {
    std::fs::write(dir.join(name), body).expect("write spec");
}

const SWEEP: &str = r#"
title = "tiny sweep"
kind = "sweep"
config = "base.toml"
loads = "0.1:0.3:0.2"

[[panel]]
name = "un"
set = ["traffic.pattern=uniform"]

[[panel]]
name = "adv"
title = "ADVG+1"
set = ["traffic.pattern=adv-global", "traffic.offset=1"]

[[curve]]
label = "MIN"
set = ["routing.algorithm=min"]

[[curve]]
label = "VAL"
set = ["routing.algorithm=val"]

[scale.one]
set = ["simulation.repetitions=1"]
panel.adv = { title = "ADVG+2", set = ["traffic.offset=2"] }

[scale.fine]
set = ["simulation.repetitions=1"]
panel.adv = { loads = "0.05, 0.1:0.3:0.1" }
"#;

#[test]
fn sweep_figure_writes_every_panel_and_does_not_depend_on_threads() {
    let dir = temp_dir("sweep");
    write(&dir, "base.toml", BASE);
    write(&dir, "fig.toml", SWEEP);
    let mut summaries = Vec::new();
    for threads in ["1", "2"] {
        let out_dir = format!("out{threads}");
        let out = arcsim(
            &dir,
            &[
                "figure",
                "fig.toml",
                "--out",
                &out_dir,
                "--threads",
                threads,
            ],
        );
        assert_success(&out, "figure sweep");
        let o = dir.join(&out_dir);
        let summary = rows(&o.join("summary.csv"));
        assert_eq!(summary.len(), 4, "2 panels x 2 curves");
        for panel in ["un", "adv"] {
            let csv = o.join(panel).join("sweep.csv");
            let points = rows(&csv);
            assert_eq!(points.len(), 4, "{panel}: 2 curves x 2 loads");
            // Two seeds per point.
            let reps = column(&csv, "repetitions");
            assert!(points.iter().all(|r| &r[reps] == "2"));
            assert_plot(&o.join(panel).join("throughput"));
            assert_plot(&o.join(panel).join("latency"));
            assert_plot(&o.join(panel).join("links"));
        }
        // MIN under ADVG+1 saturates at 1/(a*p) = 0.125: the peak at loads 0.1 and 0.3 stays
        // below it, and VAL carries more.
        let peak = |panel: &str, curve: &str| -> f64 {
            summary
                .iter()
                .find(|r| &r[0] == panel && &r[1] == curve)
                .expect("row")[2]
                .parse()
                .unwrap()
        };
        assert!(peak("adv", "MIN") < 0.125 * 1.05);
        assert!(peak("adv", "VAL") > peak("adv", "MIN"));
        let report = std::fs::read_to_string(o.join("summary.txt")).unwrap();
        assert!(report.contains("ADVG+1") && report.contains("tiny sweep"));
        summaries.push(std::fs::read_to_string(o.join("summary.csv")).unwrap());
    }
    assert_eq!(summaries[0], summaries[1], "results depend on --threads");

    // A scale replaces a panel's title and overrides, after the panel's own.
    let out = arcsim(&dir, &["figure", "fig.toml", "--scale", "one", "--dry-run"]);
    assert_success(&out, "dry run at scale one");
    let listing = text(&out.stdout);
    assert_eq!(
        listing.lines().count(),
        8,
        "2 panels x 2 curves x 2 loads x 1 seed"
    );
    assert!(listing
        .lines()
        .filter(|l| l.starts_with("adv"))
        .all(|l| l.contains("AdvGlobal 2")));

    // A panel's loads at a scale replace the figure's for that panel only.
    let out = arcsim(
        &dir,
        &["figure", "fig.toml", "--scale", "fine", "--dry-run"],
    );
    assert_success(&out, "dry run at scale fine");
    let listing = text(&out.stdout);
    let loads = |panel: &str| -> Vec<String> {
        let mut l: Vec<String> = listing
            .lines()
            .filter(|l| l.starts_with(&format!("{panel} ")))
            .map(|l| {
                l.split(" | ")
                    .find(|f| f.starts_with("load "))
                    .unwrap()
                    .to_string()
            })
            .collect();
        l.dedup();
        l
    };
    assert_eq!(
        loads("un"),
        ["load 0.1", "load 0.3", "load 0.1", "load 0.3"]
    );
    assert_eq!(
        loads("adv"),
        ["load 0.05", "load 0.1", "load 0.2", "load 0.3"].repeat(2)
    );

    // A panel's own loads replace the figure's at full size.
    let own = SWEEP.replace("name = \"adv\"\n", "name = \"adv\"\nloads = \"0.2\"\n");
    write(&dir, "own.toml", &own);
    let out = arcsim(&dir, &["figure", "own.toml", "--dry-run"]);
    assert_success(&out, "dry run with a panel's loads");
    let listing = text(&out.stdout);
    assert_eq!(listing.lines().filter(|l| l.starts_with("un ")).count(), 8);
    assert_eq!(
        listing
            .lines()
            .filter(|l| l.starts_with("adv ") && l.contains("| load 0.2 |"))
            .count(),
        4,
        "adv: 2 curves x 1 load x 2 seeds"
    );
    assert_eq!(listing.lines().count(), 12);
}

#[test]
fn a_rerun_reuses_the_stored_simulations_and_gives_the_same_tables() {
    let dir = temp_dir("store");
    write(&dir, "base.toml", BASE);
    write(&dir, "fig.toml", SWEEP);
    let first = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&first, "first run");
    let runs = dir.join("o/runs");
    let files = || std::fs::read_dir(&runs).unwrap().count();
    // 2 panels x 2 curves x 2 loads x 2 seeds, one file each.
    assert_eq!(files(), 16);
    let summary = || std::fs::read_to_string(dir.join("o/summary.csv")).unwrap();
    let before = summary();

    let again = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&again, "rerun");
    assert!(text(&again.stderr).contains("reusing 16 stored simulations"));
    assert_eq!(summary(), before);

    // A lost file is simulated again (the same numbers); a changed key runs everything anew.
    let one = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(one).unwrap();
    let partial = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert!(text(&partial.stderr).contains("reusing 15 stored simulations"));
    assert_eq!(summary(), before);
    let changed = arcsim(
        &dir,
        &[
            "figure",
            "fig.toml",
            "--out",
            "o",
            "--set",
            "simulation.seed=7",
        ],
    );
    assert_success(&changed, "changed seed");
    assert!(!text(&changed.stderr).contains("reusing"));
    assert_eq!(files(), 32);
    // The printed summary names the overrides, which the spec's own text does not know.
    let report = std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    assert!(report.contains("command-line overrides: --set simulation.seed=7"));
    assert!(!text(&again.stdout).contains("command-line overrides"));
    let fresh = arcsim(&dir, &["figure", "fig.toml", "--out", "o", "--fresh"]);
    assert!(!text(&fresh.stderr).contains("reusing"));
    assert_eq!(summary(), before);
}

#[test]
fn redraw_uses_the_runs_of_another_build_says_so_and_simulates_nothing() {
    let dir = temp_dir("redraw");
    write(&dir, "base.toml", BASE);
    write(&dir, "fig.toml", SWEEP);
    let first = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&first, "first run");
    let summary = || std::fs::read_to_string(dir.join("o/summary.csv")).unwrap();
    let before = summary();
    let report = || std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    let report_before = report();
    assert!(!report_before.contains("redrawn"));

    // With this build's runs, a redraw gives the same outputs and says nothing more.
    let same = arcsim(&dir, &["figure", "fig.toml", "--out", "o", "--redraw"]);
    assert_success(&same, "redraw of this build's runs");
    assert!(text(&same.stderr).contains("redrawing from the 16 simulations stored"));
    assert_eq!(summary(), before);
    assert_eq!(report(), report_before);

    // Mark every stored run as another build's: a plain rerun would simulate them again, a
    // redraw takes them and names that build in the summary.
    let runs = dir.join("o/runs");
    let paths: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for p in &paths {
        let mut entry: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        entry["binary"] = "arcsim 0.0.0 an-older-build".into();
        std::fs::write(p, entry.to_string()).unwrap();
    }
    let older = arcsim(&dir, &["figure", "fig.toml", "--out", "o", "--redraw"]);
    assert_success(&older, "redraw of another build's runs");
    assert_eq!(summary(), before);
    let redrawn = report();
    assert!(
        redrawn.contains("redrawn from simulations stored by arcsim 0.0.0 an-older-build"),
        "{redrawn}"
    );
    assert_eq!(
        redrawn
            .lines()
            .filter(|l| !l.starts_with("redrawn from"))
            .collect::<Vec<_>>(),
        report_before.lines().collect::<Vec<_>>()
    );

    // A run that is not stored stops the redraw, which names it and the way out.
    std::fs::remove_file(&paths[0]).unwrap();
    let missing = arcsim(&dir, &["figure", "fig.toml", "--out", "o", "--redraw"]);
    assert_clean_failure(
        &missing,
        "redraw with a run missing",
        &[
            "1 of the figure's 16 simulations are not stored",
            "without --redraw",
        ],
    );
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 15);
    // Without --redraw, another build's runs are not reused.
    let plain = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&plain, "plain rerun");
    assert!(!text(&plain.stderr).contains("reusing"));
    assert!(
        text(&plain.stderr).contains("running again 15 simulations stored in")
            && text(&plain.stderr).contains("by another build of arcsim"),
        "{}",
        text(&plain.stderr)
    );
    assert_eq!(summary(), before);
}

#[test]
fn a_chosen_panel_runs_alone_and_the_whole_figure_reuses_it() {
    let dir = temp_dir("panel");
    write(&dir, "base.toml", BASE);
    let spec = format!(
        "{SWEEP}
[[claim]]
paper = \"UN: MIN saturates late\"
panel = \"un\"
curve = \"MIN\"
metric = \"peak\"
at_least = 0.01

[[claim]]
paper = \"ADV: VAL above MIN\"
panel = \"adv\"
curve = \"VAL\"
metric = \"peak\"
above = [\"MIN\"]
"
    );
    write(&dir, "fig.toml", &spec);
    // The adv panel at the scale that gives it loads of its own (4 of them, the un panel 2).
    let args = |extra: &[&'static str]| {
        let mut a = vec!["figure", "fig.toml", "--scale", "fine", "--out", "o"];
        a.extend_from_slice(extra);
        a
    };
    let one = arcsim(&dir, &args(&["--panel", "adv"]));
    assert_success(&one, "--panel adv");
    assert!(
        text(&one.stderr).contains("| 8 simulations"),
        "{}",
        text(&one.stderr)
    );
    assert!(dir.join("o/adv/sweep.csv").exists());
    assert!(
        !dir.join("o/un").exists(),
        "the panel left out is not written"
    );
    let loads: Vec<String> = rows(&dir.join("o/adv/sweep.csv"))
        .iter()
        .filter(|r| &r[0] == "MIN")
        .map(|r| r[1].to_string())
        .collect();
    assert_eq!(
        loads,
        ["0.05", "0.1", "0.2", "0.3"],
        "the panel keeps its own loads"
    );
    let report = std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    assert!(
        report.contains("panels run (--panel): adv; left out: un"),
        "{report}"
    );
    let claims = rows(&dir.join("o/claims.csv"));
    assert_eq!(&claims[0][4], "not checked");
    assert!(claims[0][6].contains("panel un left out (--panel)"));
    assert_ne!(
        &claims[1][4], "not checked",
        "the chosen panel's claim is checked"
    );
    let adv_alone = std::fs::read_to_string(dir.join("o/adv/sweep.csv")).unwrap();

    // The whole figure reuses the chosen panel's simulations and gives the same table.
    let all = arcsim(&dir, &args(&[]));
    assert_success(&all, "the whole figure");
    assert!(text(&all.stderr).contains("reusing 8 stored simulations"));
    assert_eq!(
        std::fs::read_to_string(dir.join("o/adv/sweep.csv")).unwrap(),
        adv_alone
    );
    let report = std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    assert!(!report.contains("--panel"));

    // A name that is not a panel stops before anything runs, listing the panels.
    let bad = arcsim(&dir, &args(&["--panel", "advg"]));
    assert_clean_failure(
        &bad,
        "unknown panel",
        &[
            "'advg' is not a panel of this figure",
            "its panels are: un, adv",
        ],
    );
}

#[test]
fn a_scale_may_run_some_curves_only_and_their_claims_are_not_checked() {
    let dir = temp_dir("scale-curves");
    write(&dir, "base.toml", BASE);
    let spec = format!(
        "{SWEEP}
[scale.min-only]
set = [\"simulation.repetitions=1\"]
curves = [\"MIN\"]

[scale.none]
curves = []

[scale.typo]
curves = [\"MIN\", \"UGAL\"]

[[claim]]
paper = \"UN: MIN saturates late\"
panel = \"un\"
curve = \"MIN\"
metric = \"peak\"
at_least = 0.01

[[claim]]
paper = \"ADV: MIN below VAL\"
panel = \"adv\"
curve = \"MIN\"
metric = \"peak\"
below = [\"VAL\"]

[[claim]]
paper = \"ADV: VAL reaches 0.1\"
panel = \"adv\"
curve = \"VAL\"
metric = \"peak\"
at_least = 0.1
"
    );
    write(&dir, "fig.toml", &spec);
    let run = arcsim(
        &dir,
        &["figure", "fig.toml", "--scale", "min-only", "--out", "o"],
    );
    assert_success(&run, "--scale min-only");
    // 2 panels x 1 curve x 2 loads x 1 seed.
    assert!(
        text(&run.stderr).contains("| 4 simulations"),
        "{}",
        text(&run.stderr)
    );
    let table = rows(&dir.join("o/adv/sweep.csv"));
    assert!(!table.is_empty());
    assert!(
        table.iter().all(|r| &r[0] == "MIN"),
        "only MIN is run: {table:?}"
    );
    let report = std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    assert!(
        report.contains("curves run at this scale: MIN; left out: VAL"),
        "{report}"
    );
    let claims = rows(&dir.join("o/claims.csv"));
    assert_ne!(&claims[0][4], "not checked", "MIN's own claim is checked");
    for c in &claims[1..] {
        assert_eq!(&c[4], "not checked", "{c:?}");
        assert!(c[6].contains("curve VAL not run at this scale"), "{c:?}");
    }
    let none = arcsim(
        &dir,
        &["figure", "fig.toml", "--scale", "none", "--dry-run"],
    );
    assert_clean_failure(
        &none,
        "no curves",
        &["[scale.none] curves is empty", "MIN, VAL"],
    );
    let typo = arcsim(
        &dir,
        &["figure", "fig.toml", "--scale", "typo", "--dry-run"],
    );
    assert_clean_failure(
        &typo,
        "unknown curve",
        &[
            "[scale.typo] curves: 'UGAL' is not a curve label",
            "the curves are: MIN, VAL",
        ],
    );
}

#[test]
fn burst_figure_normalises_to_the_baseline_and_records_runs_that_do_not_finish() {
    let dir = temp_dir("burst");
    write(&dir, "base.toml", BASE);
    write(
        &dir,
        "fig.toml",
        r#"
title = "tiny bursts"
kind = "burst"
config = "base.toml"
baseline = "VAL"
set = ["traffic.burst_packets=30", "simulation.repetitions=1"]

[[panel]]
name = "un"
set = ["traffic.pattern=uniform"]

[[panel]]
name = "adv"
set = ["traffic.pattern=adv-global", "traffic.offset=1", "simulation.series_window=100"]

[[curve]]
label = "MIN"
set = ["routing.algorithm=min"]

[[curve]]
label = "VAL"
set = ["routing.algorithm=val"]

[[curve]]
label = "stopped"
set = ["routing.algorithm=min", "simulation.max_cycles=250"]
"#,
    );
    let out = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&out, "figure burst");
    let o = dir.join("o");
    let table = rows(&o.join("bursts.csv"));
    assert_eq!(table.len(), 6, "2 panels x 3 curves");
    for r in &table {
        match &r[1] {
            "VAL" => assert_eq!(&r[5], "1.0000", "the baseline is 1"),
            "stopped" => {
                assert!(r[3].is_empty(), "a run that did not finish has no time");
                assert!(r[11].contains("not consumed"), "{:?}", r);
            }
            _ => {
                let rel: f64 = r[5].parse().unwrap();
                assert!(rel > 0.0 && rel.is_finite());
                // Half the routers are done no later than the whole burst.
                let (half, all): (f64, f64) = (r[10].parse().unwrap(), r[3].parse().unwrap());
                assert!(half > 0.0 && half <= all, "{r:?}");
                // One seed: its longest path is the curve's.
                assert_eq!(r[6], r[7], "{r:?}");
                assert!(r[6].parse::<u64>().unwrap() >= 3, "{r:?}");
            }
        }
    }
    // MIN is slower than VAL under ADVG+1 (one global link per group pair).
    let rel = |panel: &str, curve: &str| -> f64 {
        table
            .iter()
            .find(|r| &r[0] == panel && &r[1] == curve)
            .unwrap()[5]
            .parse()
            .unwrap()
    };
    assert!(rel("adv", "MIN") > 1.0);
    assert_plot(&o.join("bursts"));
    // The unfinished runs are drawn (open bars), and the legend says what they mean.
    let svg = std::fs::read_to_string(o.join("bursts.svg")).unwrap();
    assert!(
        svg.contains("did not finish"),
        "no legend entry for the open bars"
    );
    for panel in ["un", "adv"] {
        assert_plot(&o.join(panel).join("hops"));
        // MIN and VAL never enter an escape network: every packet at 0 entries, no plot.
        let entries = rows(&o.join(panel).join("entries.csv"));
        assert_eq!(entries.len(), 2, "{panel}: {entries:?}");
        assert!(entries.iter().all(|r| &r[1] == "0" && &r[3] == "1.0000e0"));
        assert!(!o.join(panel).join("entries.png").exists());
        let hops = rows(&o.join(panel).join("hops.csv"));
        for curve in ["MIN", "VAL"] {
            let rows: Vec<_> = hops.iter().filter(|r| &r[0] == curve).collect();
            let total: f64 = rows.iter().map(|r| r[3].parse::<f64>().unwrap()).sum();
            assert!((total - 1.0).abs() < 1e-3, "{panel} {curve}: {total}");
            // Every bucket that holds a packet has a non-zero share, however small.
            let packets: u64 = rows.iter().map(|r| r[2].parse::<u64>().unwrap()).sum();
            assert!(packets > 0);
            for r in &rows {
                let (n, f): (u64, f64) = (r[2].parse().unwrap(), r[3].parse().unwrap());
                assert_eq!(n > 0, f > 0.0, "{panel} {curve}: {r:?}");
                assert!((f - n as f64 / packets as f64).abs() <= 1e-4 * f, "{r:?}");
            }
        }
    }
    let report = text(&out.stdout);
    assert!(report.contains("not consumed"), "{report}");
    // With a time series (panel adv only) each finished curve's delivery over time: its
    // windows add up to the whole burst, 30 packets of 8 phits from each of 72 nodes.
    assert!(!o.join("un").join("delivery.csv").exists());
    assert_plot(&o.join("adv").join("delivery"));
    let delivery = rows(&o.join("adv").join("delivery.csv"));
    for curve in ["MIN", "VAL"] {
        let phits: f64 = delivery
            .iter()
            .filter(|r| &r[0] == curve)
            .map(|r| r[2].parse::<f64>().unwrap() * 72.0 * 100.0)
            .sum();
        assert!((phits - 30.0 * 72.0 * 8.0).abs() < 1.0, "{curve}: {phits}");
    }
    assert!(!delivery.iter().any(|r| &r[0] == "stopped"));
}

#[test]
fn transient_and_injection_figures_write_their_tables() {
    let dir = temp_dir("transient");
    write(&dir, "base.toml", BASE);
    write(
        &dir,
        "t.toml",
        r#"
title = "tiny transient"
kind = "transient"
config = "base.toml"
set = ["traffic.pattern=adv-global", "traffic.offset=1", "traffic.load=0.05",
       "traffic.change={ at_cycle = 600, offset = 2 }", "simulation.series_window=50",
       "simulation.measure_cycles=1000"]

[[curve]]
label = "UGAL-L"
set = ["routing.algorithm=ugal-l"]

[[curve]]
label = "MIN"
set = ["routing.algorithm=min"]

[[curve]]
label = "OFAR"
set = ["routing.algorithm=ofar", "traffic.load=1.0"]

[[claim]]
paper = "MIN's latency rises after the change"
curve = "MIN"
metric = "change-rise"
at_least = 0.0

[[claim]]
paper = "UGAL-L's misrouting dips after the change"
curve = "UGAL-L"
metric = "misroute-dip"
above = ["MIN"]

[[claim]]
paper = "MIN's throughput does not collapse"
curve = "MIN"
metric = "throughput-fall"
at_most = 0.5
"#,
    );
    let out = arcsim(&dir, &["figure", "t.toml", "--out", "t"]);
    assert_success(&out, "figure transient");
    let series = rows(&dir.join("t/all/series.csv"));
    // Windows from the end of the warm-up (cycle 300) to the end (1,300), 50 cycles each, two
    // curves; the last few are left out because not all of their packets were delivered.
    let cycles = |curve: &str| -> Vec<u64> {
        series
            .iter()
            .filter(|r| &r[0] == curve)
            .map(|r| r[1].parse().unwrap())
            .collect()
    };
    for curve in ["UGAL-L", "MIN"] {
        let c = cycles(curve);
        assert!(c.len() >= 14 && c.len() < 20, "{curve}: {c:?}");
        assert_eq!(c[0], 300, "{curve}: starts after the warm-up");
        assert!(c.windows(2).all(|w| w[1] == w[0] + 50), "{curve}: {c:?}");
    }
    assert!(
        series.iter().all(|r| &r[5] == "2"),
        "both seeds in every window"
    );
    assert_plot(&dir.join("t/all/latency"));
    assert!(text(&out.stdout).contains("traffic changes at cycle 600"));
    // Accepted load per window: every window from cycle 0 (warm-up included, no packet needs
    // to have finished), both seeds, the load MIN accepts under light traffic.
    let thr = rows(&dir.join("t/all/throughput.csv"));
    for curve in ["UGAL-L", "MIN"] {
        let c: Vec<&csv::StringRecord> = thr.iter().filter(|r| &r[0] == curve).collect();
        assert_eq!(c.len(), 26, "{curve}: 1,300 cycles in windows of 50");
        assert_eq!(&c[0][1], "0");
        assert!(c.iter().all(|r| &r[9] == "2"), "both seeds in every window");
        let measured: Vec<f64> = c[6..].iter().map(|r| r[2].parse().unwrap()).collect();
        let mean = measured.iter().sum::<f64>() / measured.len() as f64;
        assert!(
            (mean - 0.05).abs() < 0.015,
            "{curve}: accepted {mean} at 0.05"
        );
        // The packets in flight when a window ends are those generated and not yet received
        // by then (up to the few whose tails are still arriving), per node: 8-phit packets,
        // 50-cycle windows.
        let mut generated_less_accepted = 0.0;
        for r in &c {
            let f = |k: usize| r[k].parse::<f64>().unwrap();
            generated_less_accepted += (f(3) - f(2)) * 50.0 / 8.0;
            assert!(
                (f(4) - generated_less_accepted).abs() < 0.1,
                "{curve} at {}: {} in flight per node, {generated_less_accepted} generated and not received",
                &r[1],
                f(4)
            );
            assert!((5..9).all(|k| (0.0..=1.0).contains(&f(k))), "{r:?}");
            assert_eq!(f(8), 0.0, "no escape network: {r:?}");
        }
    }
    assert_plot(&dir.join("t/all/throughput"));
    assert_plot(&dir.join("t/all/in_flight"));
    // The escape plot has the one curve with an escape ring.
    assert!(thr
        .iter()
        .any(|r| &r[0] == "OFAR" && r[8].parse::<f64>().unwrap() > 0.0));
    assert_plot(&dir.join("t/all/escape"));
    let svg = std::fs::read_to_string(dir.join("t/all/escape.svg")).unwrap();
    assert!(
        svg.contains("OFAR") && !svg.contains("UGAL-L"),
        "escape plot legend"
    );
    assert!(text(&out.stdout).contains("accepted load per window"));
    // The claims' numbers, computed here again from the series.
    let claims = rows(&dir.join("t/claims.csv"));
    let value = |k: usize| -> f64 { claims[k][5].parse().expect("a checked claim's value") };
    let min: Vec<(u64, f64)> = series
        .iter()
        .filter(|r| &r[0] == "MIN")
        .map(|r| (r[1].parse().unwrap(), r[2].parse().unwrap()))
        .collect();
    let mean = |w: Vec<f64>| w.iter().sum::<f64>() / w.len() as f64;
    let before = mean(min.iter().filter(|w| w.0 < 600).map(|w| w.1).collect());
    let after = mean(min.iter().filter(|w| w.0 >= 600).map(|w| w.1).collect());
    assert!(
        (value(0) - (after - before) / before).abs() < 1e-9,
        "change-rise {} against {before} -> {after}",
        value(0)
    );
    assert!(value(1) >= 0.0 && value(1) < 1.0);
    let mut acc: Vec<(u64, f64)> = thr
        .iter()
        .filter(|r| &r[0] == "MIN")
        .map(|r| (r[1].parse().unwrap(), r[2].parse().unwrap()))
        .collect();
    acc.sort_by_key(|w| w.0);
    let best = acc.iter().map(|w| w.1).fold(f64::NAN, f64::max);
    let tail = mean(
        acc[acc.len() - acc.len() / 4..]
            .iter()
            .map(|w| w.1)
            .collect(),
    );
    assert!(
        (value(2) - (best - tail) / best).abs() < 1e-9,
        "throughput-fall {} against best {best}, last quarter {tail}",
        value(2)
    );
    assert_eq!(&claims[2][4], "holds");

    write(
        &dir,
        "i.toml",
        r#"
title = "tiny injection"
kind = "injection"
config = "base.toml"
groups = [0, "root"]
set = ["traffic.load=0.5", "routing.tree_root=8", "routing.algorithm=ofar",
       "routing.escape=tree", "router.vcs_local=2", "router.vcs_global=1",
       "simulation.repetitions=2"]

[[curve]]
label = "Tree"

[[claim]]
paper = "the root's group injects less than group 0"
curve = "Tree"
metric = "group-ratio"
below = ["Tree"]
"#,
    );
    let out = arcsim(&dir, &["figure", "i.toml", "--out", "i"]);
    assert_success(&out, "figure injection");
    let inj = rows(&dir.join("i/all/injected.csv"));
    assert_eq!(inj.len(), 8, "2 groups x a = 4 routers");
    assert!(
        inj.iter().any(|r| &r[1] == "2"),
        "the root's group is group 2"
    );
    // Two seeds: a 95% interval per router, drawn as whiskers; the seeds differ somewhere.
    let ci: Vec<f64> = inj.iter().map(|r| r[5].parse().unwrap()).collect();
    assert!(
        ci.iter().all(|c| *c >= 0.0) && ci.iter().any(|c| *c > 0.0),
        "{ci:?}"
    );
    assert_plot(&dir.join("i/all/injected-tree"));
    // The claim's ratio, computed here again; a curve is never below itself.
    let group = |g: &str| -> f64 {
        inj.iter()
            .filter(|r| &r[1] == g)
            .map(|r| r[4].parse::<f64>().unwrap())
            .sum()
    };
    let claims = rows(&dir.join("i/claims.csv"));
    let ratio: f64 = claims[0][5].parse().unwrap();
    assert!((ratio - group("2") / group("0")).abs() < 1e-9, "{ratio}");
    assert_eq!(&claims[0][4], "differs");
}

#[test]
fn bad_specs_fail_with_a_message() {
    let dir = temp_dir("bad");
    write(&dir, "base.toml", BASE);
    let cases: [(&str, &str, &[&str]); 13] = [
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nloads = \"0.1:0.2:0.1\"\ncolour = 1\n[[curve]]\nlabel = \"a\"\n",
            "unknown key",
            &["unknown field", "colour"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nlaods = \"0.1\"\n[[curve]]\nlabel = \"a\"\n",
            "misspelt key",
            &["unknown field `laods`", "did you mean `loads`?"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nloads = \"0.1\"\n[[curve]]\nlabel = \"a\"\nset = [\"traffic.pattern=ADVG+2\"]\n",
            "a pattern in the paper's notation",
            &["curve a", "ADVG+2 is pattern = \"adv-global\" with offset = 2"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nloads = \"0.1\"\n[[curve]]\nlabel = \"a\"\n[[claim]]\npaper = \"p\"\ncurve = \"a\"\nmetric = \"peak\"\nnear = 0.3\ntolerance = \"x\"\n",
            "a string for a number",
            &["line 12", "invalid type: string \"x\", expected a number"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nloads = \"0.1\"\n[[curve]]\nlabel = \"a\"\n[[claim]]\npaper = \"p\"\ncurve = \"a\"\nmetric = \"peak\"\nat_least = {}\n",
            "a table for a claim's value",
            &["line 11", "expected a number or a multiple of 1/h"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\n[[curve]]\nlabel = \"a\"\n",
            "sweep without loads",
            &["needs loads"],
        ),
        (
            "title = \"x\"\nkind = \"burst\"\nconfig = \"base.toml\"\nloads = \"0.1:0.2:0.1\"\n[[curve]]\nlabel = \"a\"\n",
            "loads on a burst",
            &["loads apply to sweep figures only"],
        ),
        (
            "title = \"x\"\nkind = \"burst\"\nconfig = \"base.toml\"\nbaseline = \"PB\"\n[[curve]]\nlabel = \"a\"\n",
            "baseline not a curve",
            &["baseline 'PB' is not a curve label"],
        ),
        (
            "title = \"x\"\nkind = \"burst\"\nconfig = \"base.toml\"\n[[panel]]\nname = \"../x\"\n[[curve]]\nlabel = \"a\"\n",
            "panel name with a slash",
            &["panel name '../x'"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nloads = \"0.1:0.2:0.1\"\n[[curve]]\nlabel = \"a\"\nset = [\"routing.colour=1\"]\n",
            "unknown configuration key",
            &["curve a", "routing.colour"],
        ),
        (
            "title = \"x\"\nkind = \"sweep\"\nconfig = \"missing.toml\"\nloads = \"0.1:0.2:0.1\"\n[[curve]]\nlabel = \"a\"\n",
            "missing base configuration",
            &["missing.toml"],
        ),
        (
            "title = \"x\"\nkind = \"injection\"\nconfig = \"base.toml\"\n[[curve]]\nlabel = \"a\"\n",
            "injection without groups",
            &["needs groups"],
        ),
        (
            "title = \"x\"\nkind = \"burst\"\nconfig = \"base.toml\"\n[[panel]]\nname = \"p\"\nloads = \"0.1\"\n[[curve]]\nlabel = \"a\"\n",
            "a panel's loads on a burst",
            &["panel p loads apply to sweep figures only"],
        ),
    ];
    for (body, what, needles) in cases {
        write(&dir, "bad.toml", body);
        let out = arcsim(&dir, &["figure", "bad.toml", "--out", "never"]);
        assert_clean_failure(&out, what, needles);
        assert!(!dir.join("never").exists(), "{what}: output written");
    }
    write(
        &dir,
        "bad.toml",
        "title = \"x\"\nkind = \"sweep\"\nconfig = \"base.toml\"\nloads = \"0.1\"\n[[panel]]\nname = \"p\"\n[[curve]]\nlabel = \"a\"\n[scale.s]\npanel.p = { loads = \"0.1,1.2\" }\n",
    );
    let out = arcsim(
        &dir,
        &["figure", "bad.toml", "--scale", "s", "--out", "never"],
    );
    assert_clean_failure(
        &out,
        "a bad load in a scale's panel",
        &[
            "[scale.s.panel.p] loads",
            "load 1.2 must satisfy 0 < load <= 1",
        ],
    );
    write(&dir, "fig.toml", SWEEP);
    let out = arcsim(&dir, &["figure", "fig.toml", "--scale", "huge"]);
    assert_clean_failure(&out, "unknown scale", &["--scale huge", "one"]);
}

/// The claims of the figure in `out`: each verdict and number (within 0.1%) in claims.csv,
/// and `described` in the summary.
fn assert_claims(out: &Path, expected: &[(&str, f64)], described: &str) {
    let claims = rows(&out.join("claims.csv"));
    let verdicts: Vec<&str> = claims.iter().map(|r| &r[4]).collect();
    let want: Vec<&str> = expected.iter().map(|e| e.0).collect();
    assert_eq!(verdicts, want);
    for (row, &(_, x)) in claims.iter().zip(expected) {
        let v: f64 = row[5].parse().unwrap();
        assert!((v - x).abs() <= 1e-3 * x, "{row:?}: {x}");
    }
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains(described), "{summary}");
}

/// `spec` with each (from, to) replacement stops before running with a message that names
/// the claim and contains `needle`, and writes nothing.
fn assert_bad_claims(dir: &Path, spec: &str, bad: &[(&str, &str, &str)]) {
    for &(from, to, needle) in bad {
        assert!(spec.contains(from), "{from}");
        write(dir, "bad.toml", &spec.replacen(from, to, 1));
        let out = arcsim(dir, &["figure", "bad.toml", "--out", "never"]);
        assert_clean_failure(&out, needle, &[needle, "claim"]);
        assert!(!dir.join("never").exists(), "{needle}: output written");
    }
}

/// `latency-after` compares two curves' mean latency over the windows after a traffic
/// change (the QCN-Switch paper's claim 26: "the latency of our proposal under adversarial is
/// lower than Piggyback"), over the whole run after it or over [from, to) cycles after it.
/// Checked with --claims-only on a series table written here, so that the numbers are known.
#[test]
fn latency_after_compares_curves_after_the_change() {
    let dir = temp_dir("latency-after");
    write(&dir, "base.toml", BASE);
    let spec = r#"
title = "latency after a change"
kind = "transient"
config = "base.toml"
set = ["traffic.pattern=uniform", "traffic.change={ at_cycle = 600, pattern = \"adv-global\", offset = 1 }",
       "simulation.series_window=100", "simulation.measure_cycles=1000"]

[[curve]]
label = "QCN"

[[curve]]
label = "PB"

[[claim]]
paper = "QCN's latency after the change is below PB's"
curve = "QCN"
metric = "latency-after"
below = ["PB"]

[[claim]]
paper = "PB's latency after the change is below QCN's (inverted: differs)"
curve = "PB"
metric = "latency-after"
below = ["QCN"]

[[claim]]
paper = "QCN's latency from 200 cycles after the change on is below PB's"
curve = "QCN"
metric = "latency-after"
from = 200
below = ["PB"]

[[claim]]
paper = "QCN's latency in the first 200 cycles after the change"
curve = "QCN"
metric = "latency-after"
to = 200
at_most = 500

[[claim]]
paper = "no window there"
curve = "QCN"
metric = "latency-after"
from = 5000
at_most = 500
"#;
    write(&dir, "t.toml", spec);
    // Windows of 100 cycles; the change at 600. Before it both curves have 100 cycles; after
    // it QCN has 900, 300, 150, 150 (mean 375) and PB 400 throughout: QCN is above PB in
    // the first window but below on average and from cycle 800 on (mean 150).
    let mut csv = String::from("curve,cycle,latency_mean,accepted_load,misrouted_fraction,seeds\n");
    for (curve, after) in [("QCN", [900, 300, 150, 150]), ("PB", [400; 4])] {
        for c in [400, 500] {
            csv += &format!("{curve},{c},100,0.1,0,1\n");
        }
        for (k, l) in after.iter().enumerate() {
            csv += &format!("{curve},{},{l},0.1,0,1\n", 600 + 100 * k);
        }
    }
    std::fs::create_dir_all(dir.join("t/all")).unwrap();
    std::fs::write(dir.join("t/all/series.csv"), csv).unwrap();
    let out = arcsim(&dir, &["figure", "t.toml", "--out", "t", "--claims-only"]);
    assert_success(&out, "latency-after claims");
    let claims = rows(&dir.join("t/claims.csv"));
    let got: Vec<(&str, &str)> = claims.iter().map(|r| (&r[4], &r[5])).collect();
    assert_eq!(
        got,
        [
            ("holds", "375"),
            ("differs", "400"),
            ("holds", "150"),
            ("differs", "600"),
            ("not checked", ""),
        ]
    );
    let report = text(&out.stdout);
    assert!(
        report.contains("mean latency of the windows 0-200 cycles after the change"),
        "{report}"
    );
    assert!(report.contains("no window"), "{report}");
    // from and to must make an interval; other transient metrics take none.
    let bad = [
        (
            "from = 200\n",
            "from = 300\nto = 200\n",
            "to = 200 must be after from = 300",
        ),
        (
            "metric = \"latency-after\"\nto = 200",
            "metric = \"change-rise\"\nto = 200",
            "from and to also to latency-after",
        ),
    ];
    assert_bad_claims(&dir, spec, &bad);
}

/// A burst figure's `long-paths` claims read the panels' hop histograms: the share of
/// packets with paths of N hops or more, as hops.csv has it. MIN's paths are at most 3
/// router hops long, VAL's up to 5 under ADVG+1.
#[test]
fn long_paths_claims_read_the_hop_histogram() {
    let dir = temp_dir("long-paths");
    write(&dir, "base.toml", BASE);
    let spec = r#"
title = "tiny bursts"
kind = "burst"
config = "base.toml"
baseline = "VAL"
set = ["traffic.burst_packets=20", "simulation.repetitions=1", "traffic.pattern=adv-global", "traffic.offset=1"]

[[curve]]
label = "MIN"
set = ["routing.algorithm=min"]

[[curve]]
label = "VAL"
set = ["routing.algorithm=val"]

[[claim]]
paper = "MIN: no path of 4 hops"
curve = "MIN"
metric = "long-paths"
hops = 4
at_most = 0.0

[[claim]]
paper = "VAL: a tenth of the paths 4 hops or more"
curve = "VAL"
metric = "long-paths"
hops = 4
at_least = 0.1

[[claim]]
paper = "VAL: every path 5 hops or more"
curve = "VAL"
metric = "long-paths"
hops = 5
near = 1.0
"#;
    write(&dir, "fig.toml", spec);
    let out = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&out, "burst figure with long-paths claims");
    let hops = rows(&dir.join("o/all/hops.csv"));
    let share = |curve: &str, n: u64| -> f64 {
        let mine: Vec<_> = hops.iter().filter(|r| &r[0] == curve).collect();
        let count = |keep: &dyn Fn(u64) -> bool| -> u64 {
            mine.iter()
                .filter(|r| keep(r[1].trim_end_matches('+').parse().unwrap()))
                .map(|r| r[2].parse::<u64>().unwrap())
                .sum()
        };
        count(&|h| h >= n) as f64 / count(&|_| true) as f64
    };
    let (val4, val5) = (share("VAL", 4), share("VAL", 5));
    assert_eq!(share("MIN", 4), 0.0);
    assert!(val4 > 0.1 && val5 > 0.0 && val5 < 0.9, "{val4} {val5}");
    assert_claims(
        &dir.join("o"),
        &[("holds", 0.0), ("holds", val4), ("differs", val5)],
        "share of packets with paths of 4 hops or more of VAL",
    );
    let bad = [
        ("hops = 4\nat_most", "at_most", "needs hops = N"),
        (
            "hops = 4\nat_most",
            "hops = 0\nat_most",
            "hops = 0 must be in 1..=63",
        ),
        (
            "hops = 4\nat_most",
            "hops = 64\nat_most",
            "hops = 64 must be in 1..=63",
        ),
        (
            "metric = \"long-paths\"\nhops = 4\nat_most",
            "metric = \"max-hops\"\nhops = 4\nat_most",
            "hops applies to the metric long-paths only",
        ),
    ];
    assert_bad_claims(&dir, spec, &bad);
}

/// A burst figure writes each panel's escape-entries histogram (`entries.csv`, and a plot
/// when a curve entered the escape network), and `many-entries` claims read it: the share of
/// packets that entered the escape network N times or more. OFAR with the tree under ADVG+2
/// on the tiny network enters it, some packets several times; with
/// `routing.escape_entry_limit = 1` none twice; MIN never.
#[test]
fn many_entries_claims_read_the_escape_entries_histogram() {
    let dir = temp_dir("many-entries");
    write(&dir, "base.toml", BASE);
    let spec = r#"
title = "tiny OFAR bursts"
kind = "burst"
config = "base.toml"
baseline = "OFAR"
set = ["traffic.burst_packets=100", "simulation.repetitions=1", "traffic.pattern=adv-global",
       "traffic.offset=2", "routing.algorithm=ofar", "router.vcs_local=2", "router.vcs_global=1",
       "routing.escape=tree"]

[[curve]]
label = "OFAR"

[[curve]]
label = "OFAR, 1 entry"
set = ["routing.escape_entry_limit=1"]

[[curve]]
label = "MIN"
set = ["routing.algorithm=min", "router.vcs_local=0", "router.vcs_global=0"]

[[claim]]
paper = "MIN never enters an escape network"
curve = "MIN"
metric = "many-entries"
entries = 1
at_most = 0.0

[[claim]]
paper = "With the limit no packet enters twice"
curve = "OFAR, 1 entry"
metric = "many-entries"
entries = 2
at_most = 0.0

[[claim]]
paper = "OFAR: a tenth of the packets enter the escape network"
curve = "OFAR"
metric = "many-entries"
entries = 1
at_least = 0.1

[[claim]]
paper = "OFAR: no packet enters twice"
curve = "OFAR"
metric = "many-entries"
entries = 2
at_most = 0.0
"#;
    write(&dir, "fig.toml", spec);
    let out = arcsim(&dir, &["figure", "fig.toml", "--out", "o"]);
    assert_success(&out, "burst figure with many-entries claims");
    assert_plot(&dir.join("o/all/entries"));
    let entries = rows(&dir.join("o/all/entries.csv"));
    let hops = rows(&dir.join("o/all/hops.csv"));
    let packets = |table: &[csv::StringRecord], curve: &str, keep: &dyn Fn(u64) -> bool| -> u64 {
        table
            .iter()
            .filter(|r| &r[0] == curve && keep(r[1].trim_end_matches('+').parse().unwrap()))
            .map(|r| r[2].parse::<u64>().unwrap())
            .sum()
    };
    let share = |curve: &str, n: u64| {
        packets(&entries, curve, &|k| k >= n) as f64 / packets(&entries, curve, &|_| true) as f64
    };
    for curve in ["OFAR", "OFAR, 1 entry", "MIN"] {
        // Every packet measured once in each histogram.
        let all = packets(&entries, curve, &|_| true);
        assert_eq!(all, packets(&hops, curve, &|_| true), "{curve}");
        assert_eq!(all, 72 * 100, "{curve}");
    }
    let (once, twice) = (share("OFAR", 1), share("OFAR", 2));
    assert!(once > 0.1 && twice > 0.0, "{once} {twice}");
    // The summary's table of entries: OFAR's shares as percentages and its most entries,
    // the limited curve at most 1 entry, MIN none ("-").
    let report = text(&out.stdout);
    let row = report
        .lines()
        .skip_while(|l| !l.starts_with("escape-network entries"))
        .find(|l| l.starts_with("all"))
        .unwrap_or_else(|| panic!("no entries table: {report}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    let ofar_most = entries
        .iter()
        .filter(|r| &r[0] == "OFAR" && r[2].parse::<u64>().unwrap() > 0)
        .map(|r| r[1].to_string())
        .next_back()
        .unwrap();
    assert_eq!(
        cells,
        [
            "all",
            &format!("{:.2}", 100.0 * once),
            &format!("{:.3}", 100.0 * twice),
            &ofar_most,
            &format!("{:.2}", 100.0 * share("OFAR, 1 entry", 1)),
            "0.000",
            "1",
            "-"
        ],
        "{row}"
    );
    assert_eq!(share("OFAR, 1 entry", 2), 0.0);
    assert!(share("OFAR, 1 entry", 1) > 0.0);
    assert_eq!(share("MIN", 1), 0.0);
    assert_claims(
        &dir.join("o"),
        &[
            ("holds", 0.0),
            ("holds", 0.0),
            ("holds", once),
            ("differs", twice),
        ],
        "share of packets that entered the escape network 2 times or more of OFAR",
    );
    let bad = [
        ("entries = 1\nat_most", "at_most", "needs entries = N >= 1"),
        (
            "entries = 1\nat_most",
            "entries = 0\nat_most",
            "needs entries = N >= 1",
        ),
        (
            "metric = \"many-entries\"\nentries = 1\nat_most",
            "metric = \"max-hops\"\nentries = 1\nat_most",
            "entries applies to the metric many-entries only",
        ),
    ];
    assert_bad_claims(&dir, spec, &bad);
}

/// Claims on SWEEP's tiny network (p = 2, a = 4, h = 2; loads 0.1 and 0.3): one that holds,
/// one that differs, and two that cannot be checked here.
const CLAIMS: &str = r#"
[[claim]]
paper = "MIN under ADVG+1 is limited to 1/(a p) = 0.125"
panel = "adv"
curve = "MIN"
metric = "peak"
at_most = "0.2625/h"

[[claim]]
paper = "VAL carries more than MIN under ADVG+1"
panel = "adv"
curve = "VAL"
metric = "peak"
above = ["MIN"]

[[claim]]
paper = "MIN reaches 0.5 under UN"
panel = "un"
curve = "MIN"
metric = "peak"
near = 0.5

[[claim]]
paper = "a number of the paper's network"
panel = "un"
curve = "MIN"
metric = "peak"
near = 0.6
h = 6

[[claim]]
paper = "a load this figure does not run"
panel = "un"
curve = "VAL"
metric = "latency"
load = 0.2
best = "lowest"
"#;

#[test]
fn figure_claims_are_checked_on_the_results() {
    let dir = temp_dir("claims");
    write(&dir, "base.toml", BASE);
    write(&dir, "fig.toml", &format!("{SWEEP}{CLAIMS}"));
    let out = arcsim(
        &dir,
        &["figure", "fig.toml", "--scale", "one", "--out", "o"],
    );
    assert_success(&out, "figure with claims");
    let report = std::fs::read_to_string(dir.join("o/summary.txt")).unwrap();
    let verdict = |paper: &str| -> String {
        let line = report
            .lines()
            .find(|l| l.ends_with(paper))
            .unwrap_or_else(|| panic!("no verdict for {paper:?} in:\n{report}"));
        line.split_whitespace().nth(1).unwrap().to_string()
    };
    assert_eq!(verdict("limited to 1/(a p) = 0.125"), "holds");
    assert_eq!(verdict("VAL carries more than MIN under ADVG+1"), "holds");
    assert_eq!(verdict("MIN reaches 0.5 under UN"), "differs");
    assert_eq!(verdict("a number of the paper's network"), "not");
    assert_eq!(verdict("a load this figure does not run"), "not");
    assert!(report.contains("holds for h = 6; this network has h = 2"));
    assert!(report.contains("no load 0.2 at this scale"));
    assert!(report.contains("5 claims; holds: 2, differs: 1, not checked: 2"));
    let csv = rows(&dir.join("o/claims.csv"));
    let verdicts: Vec<&str> = csv.iter().map(|r| &r[4]).collect();
    assert_eq!(
        verdicts,
        ["holds", "holds", "differs", "not checked", "not checked"]
    );

    // --claims-only checks the same tables again, simulating nothing.
    let table = std::fs::read_to_string(dir.join("o/claims.csv")).unwrap();
    std::fs::remove_file(dir.join("o/claims.csv")).unwrap();
    let again = arcsim(
        &dir,
        &[
            "figure",
            "fig.toml",
            "--scale",
            "one",
            "--out",
            "o",
            "--claims-only",
        ],
    );
    assert_success(&again, "--claims-only");
    assert!(!text(&again.stderr).contains("simulations"));
    assert_eq!(
        std::fs::read_to_string(dir.join("o/claims.csv")).unwrap(),
        table
    );
    let none = arcsim(
        &dir,
        &[
            "figure",
            "fig.toml",
            "--out",
            "nothing-here",
            "--claims-only",
        ],
    );
    assert_clean_failure(&none, "--claims-only without results", &["run it first"]);
    write(&dir, "plain.toml", SWEEP);
    let plain = arcsim(
        &dir,
        &["figure", "plain.toml", "--out", "o", "--claims-only"],
    );
    assert_clean_failure(
        &plain,
        "--claims-only without claims",
        &["has no [[claim]]"],
    );

    // Claims are checked before anything runs.
    let bad = [
        (
            "curve = \"MIN\"",
            "curve = \"UGAL\"",
            "curve 'UGAL' is not a curve label",
        ),
        (
            "metric = \"peak\"\nat_most",
            "metric = \"time\"\nat_most",
            "metric time applies to burst figures; this one is a sweep figure",
        ),
        (
            "above = [\"MIN\"]",
            "above = [\"MIN\"]\nbest = \"highest\"",
            "exactly one test",
        ),
        ("load = 0.2\n", "", "needs load = OFFERED"),
        ("\"0.2625/h\"", "\"0.2625/g\"", "multiple of 1/h"),
        (
            "panel = \"adv\"\ncurve = \"MIN\"",
            "panel = \"adx\"\ncurve = \"MIN\"",
            "panel 'adx' is not a panel name",
        ),
        (
            "near = 0.5",
            "near = 0.5\ntolerance = 2",
            "tolerance = 2 must be a fraction",
        ),
    ];
    for (from, to, needle) in bad {
        assert!(CLAIMS.contains(from), "{from}");
        write(
            &dir,
            "bad.toml",
            &format!("{SWEEP}{}", CLAIMS.replacen(from, to, 1)),
        );
        let out = arcsim(&dir, &["figure", "bad.toml", "--out", "never"]);
        assert_clean_failure(&out, needle, &[needle, "claim"]);
        assert!(!dir.join("never").exists(), "{needle}: output written");
    }
}

/// The InfiniBand adaptive-routing paper's figure specs (`kind = "flows"`): all valid, and two
/// run end to end with their tables, plots and the claims' verdicts (the reproduction page
/// reports them). A flow claim without its flows is refused before anything runs.
#[test]
fn infiniband_flow_figures_write_their_tables_and_check_their_claims() {
    let ib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/infiniband");
    let dir = temp_dir("ib-figures");
    let mut specs: Vec<String> = std::fs::read_dir(&ib)
        .expect("experiments/infiniband")
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            (n.starts_with("fig") && n.ends_with(".toml")).then_some(n)
        })
        .collect();
    specs.sort();
    assert!(specs.len() >= 10, "{specs:?}");
    for s in &specs {
        let spec = ib.join(s);
        let out = arcsim(&dir, &["figure", spec.to_str().unwrap(), "--dry-run"]);
        assert_success(&out, s);
    }
    // Fig. 6: three DR tables, AR 75% under each, with either selector (least-loaded's
    // round-robin tie-break included).
    let spec = ib.join("fig06.toml");
    let out = arcsim(&dir, &["figure", spec.to_str().unwrap(), "--out", "f6"]);
    assert_success(&out, "fig06");
    let report = std::fs::read_to_string(dir.join("f6/summary.txt")).unwrap();
    assert!(report.contains("14 claims; holds: 14"), "{report}");
    for panel in ["case1", "case2", "case3"] {
        let d = dir.join("f6").join(panel);
        for f in ["flows.csv", "phases.csv", "ports.csv"] {
            assert!(d.join(f).is_file(), "{panel}/{f}");
        }
        assert_plot(&d.join("flows-ar"));
        // AR's phase total: 75% of the two links.
        let phases = rows(&d.join("phases.csv"));
        let share = column(&d.join("phases.csv"), "share");
        let total: f64 = phases
            .iter()
            .find(|r| &r[0] == "AR" && &r[3] == "all")
            .expect("AR's total")[share]
            .parse()
            .unwrap();
        assert!((total - 1.5).abs() < 0.03, "{panel}: {total}");
    }
    // Fig. 4: the 50/50 split of one flow over L1 and L2 is read from ports.csv.
    let spec = ib.join("fig04.toml");
    let out = arcsim(&dir, &["figure", spec.to_str().unwrap(), "--out", "f4"]);
    assert_success(&out, "fig04");
    let csv = rows(&dir.join("f4/claims.csv"));
    let split: Vec<&str> = csv
        .iter()
        .filter(|r| r[0].contains("AR uses L1 and L2 round robin"))
        .map(|r| &r[4])
        .collect();
    assert_eq!(split, ["holds", "holds", "holds"]);
    // Claims are checked before anything runs.
    let text_spec = std::fs::read_to_string(&spec).unwrap();
    let bad = text_spec.replacen("flows = [0]\n", "", 1);
    write(&ib_copy(&ib, &dir), "bad.toml", &bad);
    let out = arcsim(&dir.join("ib"), &["figure", "bad.toml", "--dry-run"]);
    assert_clean_failure(
        &out,
        "flow-share without flows",
        &["needs flows = [N, ...]"],
    );
}

/// A copy of the scenario files of experiments/infiniband in `dir/ib`, for specs edited by a
/// test.
fn ib_copy(ib: &Path, dir: &Path) -> std::path::PathBuf {
    let to = dir.join("ib");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(ib).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
    to
}

/// The QCN-Switch paper's figure specs (experiments/qcn): valid at every scale they define.
/// Then the measurements its figures added, end to end on a 72-node dragonfly (p = 2, a = 4,
/// h = 2) in the paper's units: a transient writes the probability of the port towards S_out
/// per window (`probability.csv`, read by `probability-after`) and checks the settle time
/// and the misrouted shares; an injection figure checks the unfairness quotient of group 0
/// (at least 1 by definition), and prints it.
#[test]
fn qcn_figures_are_valid_and_measure_probabilities_and_fairness() {
    let qcn = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/qcn");
    let dir = temp_dir("qcn-figures");
    let mut specs: Vec<String> = std::fs::read_dir(&qcn)
        .expect("experiments/qcn")
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            (n.starts_with("fig") && n.ends_with(".toml")).then_some(n)
        })
        .collect();
    specs.sort();
    assert_eq!(specs.len(), 13, "Figs. 6 to 18: {specs:?}");
    for s in &specs {
        let spec = qcn.join(s);
        let body = std::fs::read_to_string(&spec).unwrap();
        // Every scale the spec defines (quick, h4, quick-pfc, ...).
        let mut scales = vec![None];
        scales.extend(body.lines().filter_map(|l| {
            l.trim()
                .strip_prefix("[scale.")
                .and_then(|r| r.strip_suffix(']'))
                .map(Some)
        }));
        assert!(scales.contains(&Some("quick")), "{s} has a quick scale");
        for scale in scales {
            let mut args = vec!["figure", spec.to_str().unwrap(), "--dry-run"];
            if let Some(x) = scale {
                args.extend(["--scale", x]);
            }
            let out = arcsim(&dir, &args);
            assert_success(&out, &format!("{s} {scale:?}"));
            assert!(!text(&out.stdout).is_empty(), "{s} {scale:?}");
        }
    }
    let base = qcn.join("base.toml");
    let small = format!(
        "config = \"{}\"
set = [\"topology.p=2\", \"topology.a=4\", \"topology.h=2\", \"simulation.repetitions=1\",
       \"qcn.sampling=output\", \"qcn.feedback_comparison=true\", \"traffic.load=0.3\"]
",
        base.display()
    );
    write(
        &dir,
        "t.toml",
        &format!(
            "title = \"t\"
kind = \"transient\"
{small}
[[panel]]
name = \"adv2un\"
set = [\"traffic.pattern=adv-global\", \"traffic.offset=1\", \"traffic.change.pattern=uniform\",
       \"simulation.warmup_cycles=0.2 ms\", \"traffic.change.at_cycle=0.4 ms\",
       \"simulation.measure_cycles=0.6 ms\", \"simulation.series_window=20 us\"]
[[curve]]
label = \"QCN\"
[[claim]]
paper = \"p\"
curve = \"QCN\"
metric = \"probability-after\"
at_most = 100
[[claim]]
paper = \"s\"
curve = \"QCN\"
metric = \"settle-time\"
at_least = 0
[[claim]]
paper = \"b\"
curve = \"QCN\"
metric = \"misrouted-before\"
at_least = 0
[[claim]]
paper = \"f\"
curve = \"QCN\"
metric = \"misrouted-first\"
at_most = 1
[[claim]]
paper = \"l\"
curve = \"QCN\"
metric = \"misrouted-last\"
at_most = 1
"
        ),
    );
    let out = arcsim(&dir, &["figure", "t.toml", "--out", "t"]);
    assert_success(&out, "transient");
    let report = std::fs::read_to_string(dir.join("t/summary.txt")).unwrap();
    assert!(report.contains("5 claims; holds: 5"), "{report}");
    let p = dir.join("t/adv2un/probability.csv");
    let probs = rows(&p);
    let (cycle, mid) = (column(&p, "cycle"), column(&p, "mid_to_sout"));
    // One row per 20 us window of the 0.8 ms run (0.2 ms of warm-up, 0.6 measured: 40), and
    // one at the run's end if it is not a window's; every value a percentage, and the port
    // towards S_out cut below 100% under ADV+1.
    assert!((40..=41).contains(&probs.len()), "{probs:?}");
    assert!(
        probs.iter().any(|r| r[mid].parse::<f64>().unwrap() < 50.0),
        "{probs:?}"
    );
    for r in &probs {
        let v: f64 = r[mid].parse().unwrap();
        assert!((0.0..=100.0).contains(&v), "{r:?}");
    }
    assert_eq!(&probs[0][cycle], "1000");
    assert_plot(&dir.join("t/adv2un/probability"));
    write(
        &dir,
        "i.toml",
        &format!(
            "title = \"i\"
kind = \"injection\"
groups = [0]
{small}
[[curve]]
label = \"QCN\"
set = [\"traffic.pattern=adv-global\", \"traffic.offset=1\", \"simulation.warmup_cycles=0.2 ms\",
       \"simulation.measure_cycles=0.2 ms\"]
[[claim]]
paper = \"u\"
curve = \"QCN\"
metric = \"unfairness\"
at_least = 1
"
        ),
    );
    let out = arcsim(&dir, &["figure", "i.toml", "--out", "i"]);
    assert_success(&out, "injection");
    let report = std::fs::read_to_string(dir.join("i/summary.txt")).unwrap();
    assert!(report.contains("1 claims; holds: 1"), "{report}");
    assert!(report.contains("max/min"), "{report}");
    // A claim of the new metrics on a figure of another kind is refused, naming them.
    write(
        &dir,
        "bad.toml",
        &format!(
            "title = \"b\"
kind = \"sweep\"
loads = \"0.1\"
{small}
[[curve]]
label = \"QCN\"
[[claim]]
paper = \"u\"
curve = \"QCN\"
metric = \"unfairness\"
at_least = 1
"
        ),
    );
    let out = arcsim(&dir, &["figure", "bad.toml", "--dry-run"]);
    assert_clean_failure(&out, "unfairness on a sweep", &["unfairness", "injection"]);
}
