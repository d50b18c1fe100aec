//! Sweeps on a Slurm cluster: `arcsim sweep ... --slurm DIR` writes a job array of one task
//! per point, `arcsim sweep-task DIR ID` (what each task runs) simulates one point and
//! stores its simulations in DIR/runs/ as `arcsim sweep` stores them, and `arcsim collect
//! DIR` merges them into the sweep's usual outputs. Slurm schedules; arcsim adds no
//! scheduler of its own.
//!
//! DIR/slurm/request.json holds the sweep as given (the configuration file's text included),
//! so that every task plans the same sweep whatever happens to the file meanwhile. A task run
//! again reuses the simulations already stored (a resubmitted array resumes), and `collect`
//! names the points still missing.

use crate::figure::store;
use crate::sweep::{SweepPlan, SweepRequest};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The request's file in DIR.
fn request_path(dir: &Path) -> PathBuf {
    dir.join("slurm").join("request.json")
}

/// The job-array script's file in DIR.
pub fn script_path(dir: &Path) -> PathBuf {
    dir.join("sweep.sbatch")
}

/// `s` quoted for a POSIX shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `arcsim sweep --slurm DIR`: write DIR/slurm/request.json and DIR/sweep.sbatch.
pub fn write_array(plan: &SweepPlan, dir: &Path, sbatch: &[String]) -> Result<()> {
    for option in sbatch {
        if option.contains('\n') || !option.starts_with('-') {
            bail!("--sbatch {option:?}: give one sbatch option, e.g. --sbatch=--time=02:00:00");
        }
    }
    let logs = dir.join("slurm").join("logs");
    crate::output::check_writable(&logs)?;
    let dir_abs = std::path::absolute(dir).with_context(|| format!("{}", dir.display()))?;
    let exe = std::env::current_exe().context("finding the arcsim executable")?;
    let n = plan.points.len();
    crate::output::write(
        &request_path(dir),
        serde_json::to_string_pretty(&plan.request)?.as_bytes(),
    )?;
    let mut script = format!(
        "#!/bin/bash\n\
         # Written by {build}: the sweep in {dir} as a Slurm job array, one task per point\n\
         # (curve and load, every seed of it). Submit it with\n\
         #     sbatch {script}\n\
         # then, once the tasks are done, write sweep.csv, sweep.json and the plots with\n\
         #     arcsim collect {dir}\n\
         # A task run again reuses the simulations already stored in {dir}/runs/; `arcsim collect`\n\
         # names the points still missing.\n\
         #SBATCH --job-name=arcsim-sweep\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --ntasks=1\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --output={logs}/task-%a.out\n",
        build = crate::provenance::describe(),
        dir = dir_abs.display(),
        script = script_path(&dir_abs).display(),
        last = n - 1,
        logs = dir_abs.join("slurm").join("logs").display(),
    );
    for option in sbatch {
        script.push_str(&format!("#SBATCH {option}\n"));
    }
    script.push_str(&format!(
        "set -eu\nexec {} sweep-task {} \"$SLURM_ARRAY_TASK_ID\"\n",
        shell_quote(&exe.display().to_string()),
        shell_quote(&dir_abs.display().to_string())
    ));
    crate::output::write(&script_path(dir), script.as_bytes())?;
    println!(
        "wrote {} ({n} tasks, one per point: {} simulations) and {}",
        script_path(dir).display(),
        plan.jobs.len(),
        request_path(dir).display()
    );
    println!(
        "submit it with `sbatch {}`, then `arcsim collect {}`",
        script_path(dir).display(),
        dir.display()
    );
    Ok(())
}

/// The plan of the sweep DIR holds.
fn plan_of(dir: &Path) -> Result<SweepPlan> {
    let path = request_path(dir);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{} holds no Slurm sweep ({} cannot be read): write one with `arcsim sweep ... --slurm {}`",
            dir.display(),
            path.display(),
            dir.display()
        )
    })?;
    let request: SweepRequest =
        serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    SweepPlan::new(request).with_context(|| format!("planning the sweep of {}", path.display()))
}

/// `arcsim sweep-task DIR ID`: simulate point ID of the sweep in DIR (every seed of it) and
/// store its simulations in DIR/runs/; those stored already by this build are kept.
pub fn task_command(dir: &Path, id: usize, threads: Option<usize>) -> Result<()> {
    let plan = plan_of(dir)?;
    let n = plan.points.len();
    if id >= n {
        bail!(
            "task {id}: the sweep in {} has {n} points, tasks 0 to {}",
            dir.display(),
            n - 1
        );
    }
    let p = &plan.points[id];
    eprintln!(
        "arcsim sweep-task: point {id} of {n}: {} at load {} ({} simulations)",
        p.label, p.load, p.reps
    );
    let outcomes = plan.simulate_point(id, &dir.join("runs"), threads)?;
    let failed = outcomes.iter().filter(|o| o.is_err()).count();
    println!(
        "stored point {id} ({} at load {}) in {}{}",
        p.label,
        p.load,
        dir.join("runs").display(),
        if failed > 0 {
            format!("; {failed} of its simulations failed (recorded; `arcsim collect` reports it)")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// `arcsim collect DIR`: the sweep's outputs (sweep.csv, sweep.json, config.toml and the
/// plots, in DIR) from the simulations its tasks stored; simulates nothing. Simulations
/// stored by another build of arcsim are used and named.
pub fn collect_command(dir: &Path) -> Result<()> {
    let plan = plan_of(dir)?;
    let runs = dir.join("runs");
    let binary = store::binary_id().unwrap_or_default();
    let found: Vec<Option<(store::Stored, String)>> = plan
        .texts
        .iter()
        .map(|t| store::load_any(&runs, t))
        .collect();
    let missing: Vec<usize> = (0..plan.points.len())
        .filter(|&i| {
            let p = &plan.points[i];
            (p.first_job..p.first_job + p.reps).any(|j| found[j].is_none())
        })
        .collect();
    if !missing.is_empty() {
        let ids: Vec<String> = missing.iter().map(|i| i.to_string()).collect();
        let shown: Vec<String> = missing
            .iter()
            .take(10)
            .map(|&i| {
                let p = &plan.points[i];
                format!("task {i}: {} at load {}", p.label, p.load)
            })
            .collect();
        bail!(
            "{} of the sweep's {} points are not stored in {} yet ({}{}): run their tasks \
             (`sbatch --array={} {}`, or `arcsim sweep-task {} ID` for each), then collect again",
            missing.len(),
            plan.points.len(),
            runs.display(),
            shown.join("; "),
            if missing.len() > 10 { "; ..." } else { "" },
            ids.join(","),
            script_path(dir).display(),
            dir.display()
        );
    }
    let mut others: Vec<String> = Vec::new();
    let results: Vec<store::Stored> = found
        .into_iter()
        .map(|f| {
            let (stored, by) = f.expect("none missing");
            if by != binary && !others.contains(&by) {
                others.push(by);
            }
            stored
        })
        .collect();
    if !others.is_empty() {
        eprintln!(
            "arcsim: note: simulations stored by {} (this build: {})",
            others.join(", "),
            if binary.is_empty() {
                "unknown"
            } else {
                &binary
            }
        );
    }
    let points = plan.assemble(results);
    plan.finish(dir, &points)
}
