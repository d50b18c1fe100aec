//! Sweeps as Slurm job arrays: `arcsim sweep --slurm DIR`, its tasks (`arcsim sweep-task`),
//! run here one after another as the array would run them, and `arcsim collect`.

mod common;
use common::*;

/// Every column of sweep.csv but the wall time, which no two runs share.
fn measured(csv: &str) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = csv
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    let col = rows[0]
        .iter()
        .position(|c| c == "wall_seconds")
        .expect("a wall_seconds column");
    for r in &mut rows {
        r.remove(col);
    }
    rows
}

#[test]
fn a_slurm_array_run_task_by_task_and_collected_equals_the_sweep() {
    let dir = temp_dir("slurm");
    let mut args: Vec<&str> = vec![
        "--load",
        "0.1:0.2:0.1",
        "--vary",
        "routing.algorithm=min,val",
        "--set",
        "simulation.warmup_cycles=300",
        "--set",
        "simulation.measure_cycles=500",
    ];
    args.extend(SMALL);
    let mut threaded = vec!["sweep", "--out", "threaded", "--threads", "2"];
    threaded.extend(&args);
    assert_success(&arcsim(&dir, &threaded), "threaded sweep");

    let mut slurm = vec!["sweep", "--slurm", "array", "--sbatch=--time=00:10:00"];
    slurm.extend(&args);
    let out = arcsim(&dir, &slurm);
    assert_success(&out, "sweep --slurm");
    let script = std::fs::read_to_string(dir.join("array/sweep.sbatch")).unwrap();
    assert!(script.starts_with("#!/bin/bash\n"), "{script}");
    assert!(script.contains("\n#SBATCH --array=0-3\n"), "{script}");
    assert!(script.contains("\n#SBATCH --time=00:10:00\n"), "{script}");
    assert!(
        script.contains(" sweep-task ") && script.contains("\"$SLURM_ARRAY_TASK_ID\""),
        "{script}"
    );
    assert!(!dir.join("array/runs").exists(), "--slurm runs nothing");

    // An interrupted array: tasks 1 and 3 never ran.
    for id in ["0", "2"] {
        assert_success(&arcsim(&dir, &["sweep-task", "array", id]), "sweep-task");
    }
    let out = arcsim(&dir, &["collect", "array"]);
    assert_clean_failure(
        &out,
        "collect with points missing",
        &[
            "2 of the sweep's 4 points are not stored",
            "task 1: min at load 0.2",
            "task 3: val at load 0.2",
            "--array=1,3",
        ],
    );
    assert!(!dir.join("array/sweep.csv").exists());

    // The whole array again: the stored points are reused, the missing ones run.
    for id in ["0", "1", "2", "3"] {
        let out = arcsim(&dir, &["sweep-task", "array", id]);
        assert_success(&out, "sweep-task again");
        let reused = text(&out.stderr).contains("reusing 1 stored simulations");
        assert_eq!(
            reused,
            id == "0" || id == "2",
            "task {id}: {}",
            text(&out.stderr)
        );
    }
    assert_success(&arcsim(&dir, &["collect", "array"]), "collect");
    let a = std::fs::read_to_string(dir.join("threaded/sweep.csv")).unwrap();
    let b = std::fs::read_to_string(dir.join("array/sweep.csv")).unwrap();
    assert_eq!(measured(&a), measured(&b));
    for f in ["sweep.json", "config.toml", "throughput.png", "latency.svg"] {
        assert!(dir.join("array").join(f).exists(), "{f}");
    }

    let out = arcsim(&dir, &["sweep-task", "array", "4"]);
    assert_clean_failure(&out, "a task past the end", &["has 4 points, tasks 0 to 3"]);
    let out = arcsim(&dir, &["collect", "threaded"]);
    assert_clean_failure(&out, "collect of a plain sweep", &["holds no Slurm sweep"]);
    let _ = std::fs::remove_dir_all(&dir);
}
