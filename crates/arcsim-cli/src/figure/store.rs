//! One file per simulation of a figure (`DIR/runs/`), written as soon as it finishes, so that
//! an interrupted figure resumes where it stopped and a figure whose spec changed only in
//! titles or panels already run is redrawn without simulating again.
//!
//! A file holds the simulation's full configuration, the identity of the `arcsim` binary that
//! ran it, and its outcome. It is reused only if both are the same: any change of a key runs
//! the simulation again, and so does any rebuild that changes the binary (a fixed model must
//! not hand back results of the old one). `--redraw` is the one exception, asked for by name:
//! it takes the stored outcome whatever build made it (after a change to the report alone)
//! and the summary names the builds it came from.

use anyhow::Result;
use arcsim::{Config, RunResult, SimError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What one simulation gave: its result, or why it has none.
pub type Stored = std::result::Result<RunResult, String>;

#[derive(Serialize, Deserialize)]
struct Entry {
    config: String,
    binary: String,
    /// The git commit the binary was built from (provenance; not part of the identity).
    #[serde(default)]
    commit: String,
    /// The complete configuration, every key (provenance; `config` is the identity).
    #[serde(default)]
    complete_config: String,
    result: Option<RunResult>,
    failure: Option<String>,
    /// The result's per-port counters (general kernel), which `result.json` leaves out;
    /// kept here for the figures that read them (`kind = "flows"`). Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ports: Vec<arcsim::stats::summary::PortUse>,
}

/// FNV-1a: stable across builds and platforms, unlike std's hasher.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// File of the simulation with this configuration.
pub fn path(dir: &Path, config: &str) -> PathBuf {
    dir.join(format!("{:016x}.json", fnv(config.as_bytes())))
}

/// The file whose bytes identify the running build, when it is not the executable: the
/// Python package's extension module, whose executable is the Python interpreter.
static BUILD_FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Identify the running build by `file` rather than by the executable (once, at start; the
/// Python package names its extension module).
pub fn set_build_file(file: PathBuf) {
    let _ = BUILD_FILE.set(file);
}

/// Identity of the running binary: its version and a hash of its bytes (the executable's,
/// or [`set_build_file`]'s). None when the file cannot be read; nothing is then reused.
pub fn binary_id() -> Option<String> {
    let exe = match BUILD_FILE.get() {
        Some(f) => f.clone(),
        None => std::env::current_exe().ok()?,
    };
    let bytes = std::fs::read(exe).ok()?;
    Some(format!(
        "arcsim {} {:016x}",
        env!("CARGO_PKG_VERSION"),
        fnv(&bytes)
    ))
}

/// The outcome stored for this configuration by any build, with the identity of that build
/// (the caller reuses only its own build's, but for `--redraw`). Unreadable files are ignored
/// and will be overwritten.
pub fn load_any(dir: &Path, config: &str) -> Option<(Stored, String)> {
    let text = std::fs::read_to_string(path(dir, config)).ok()?;
    let e: Entry = serde_json::from_str(&text).ok()?;
    if e.config != config {
        return None;
    }
    let stored = match (e.result, e.failure) {
        (Some(mut r), None) => {
            r.ports = e.ports;
            Ok(r)
        }
        (None, Some(f)) => Err(f),
        _ => return None,
    };
    Some((stored, e.binary))
}

/// Store the outcome of the simulation of `cfg`, whose text (the identity) is `config`.
pub fn save(dir: &Path, binary: &str, cfg: &Config, config: &str, outcome: &Stored) -> Result<()> {
    let e = Entry {
        config: config.to_string(),
        binary: binary.to_string(),
        commit: crate::provenance::BUILD.commit.to_string(),
        complete_config: cfg.to_complete_toml_string()?,
        result: outcome.as_ref().ok().cloned(),
        failure: outcome.as_ref().err().cloned(),
        ports: outcome
            .as_ref()
            .map(|r| r.ports.clone())
            .unwrap_or_default(),
    };
    // Written whole, then renamed: an interruption never leaves half a file behind.
    crate::output::write(&path(dir, config), serde_json::to_string(&e)?.as_bytes())
}

/// Every simulation of `cfgs` (`texts`: their configurations as the store keys them): those
/// stored in `runs` by this build are reused (not with `fresh`), the rest run now on
/// `threads` workers and stored as each finishes, failures included. Outcomes in the order of
/// `cfgs`. Interrupted (Ctrl-C), it stops with an error saying how many are kept.
pub fn simulate(
    cfgs: &[Config],
    texts: &[String],
    runs: &Path,
    binary: &str,
    fresh: bool,
    threads: Option<usize>,
    redraw_hint: bool,
) -> Result<Vec<Stored>> {
    // Before the simulations, so that a bad --out does not waste them.
    crate::output::check_writable(runs)?;
    // Simulations already stored with the same configuration are reused.
    // Those another build stored are run again, and counted to say so.
    let reuse = !fresh && !binary.is_empty();
    let mut foreign = 0;
    let mut results: Vec<Option<Stored>> = texts
        .iter()
        .map(|t| match reuse.then(|| load_any(runs, t)).flatten() {
            Some((stored, by)) if by == binary => Some(stored),
            Some(_) => {
                foreign += 1;
                None
            }
            None => None,
        })
        .collect();
    let todo: Vec<usize> = (0..cfgs.len()).filter(|&i| results[i].is_none()).collect();
    if todo.len() < cfgs.len() {
        eprintln!(
            "reusing {} stored simulations from {} (--fresh runs them again)",
            cfgs.len() - todo.len(),
            runs.display()
        );
    }
    if foreign > 0 {
        // Say why a batch that looks stored runs again, and the way out when only the report
        // changed (`redraw_hint`: the command has --redraw).
        eprintln!(
            "running again {foreign} simulations stored in {} by another build of arcsim{}",
            runs.display(),
            if redraw_hint {
                " (after a change to the report alone, --redraw shows them without simulating)"
            } else {
                ""
            }
        );
    }
    let jobs: Vec<Config> = todo.iter().map(|&i| cfgs[i].clone()).collect();
    let save_error = std::sync::Mutex::new(None);
    let fresh_results = crate::sweep::run_jobs_with(&jobs, threads, |k, r| {
        let stored: Stored = match r {
            Ok(x) => Ok(x.clone()),
            Err(e) => Err(failure_text(e)),
        };
        if let Err(e) = save(runs, binary, &jobs[k], &texts[todo[k]], &stored) {
            save_error.lock().expect("not poisoned").get_or_insert(e);
        }
    })?;
    if let Some(e) = save_error.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let mut interrupted = 0;
    for (&i, r) in todo.iter().zip(fresh_results) {
        match r {
            Err(SimError::Interrupted { .. }) => interrupted += 1,
            r => results[i] = Some(r.map_err(|e| failure_text(&e))),
        }
    }
    if interrupted > 0 {
        let kept = cfgs.len() - interrupted;
        return Err(crate::interrupt::interrupted(format!(
            "{kept} of {} simulations finished and are kept in {}; the same command run again resumes from them",
            cfgs.len(),
            runs.display()
        )));
    }
    Ok(results
        .into_iter()
        .map(|r| r.expect("every simulation stored or run"))
        .collect())
}

/// A failed simulation's outcome as tables show it.
pub fn failure_text(e: &SimError) -> String {
    match e {
        SimError::BurstTimeout {
            max_cycles,
            delivered,
            total,
        } => format!("not consumed: {delivered} of {total} packets in {max_cycles} cycles"),
        SimError::Deadlock(_) => "deadlock (watchdog)".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored result reads back bit for bit, so that a resumed or redrawn figure prints the
    /// same digits as the run that stored it. serde_json's default float parser is off by
    /// one unit in the last place for about one value in fifteen (this one among them); the
    /// `float_roundtrip` feature makes it exact.
    #[test]
    fn a_stored_result_reads_back_bit_for_bit() {
        let mut cfg = arcsim::Config::embedded_default();
        cfg.topology.p = 2;
        cfg.topology.a = 4;
        cfg.topology.h = 2;
        cfg.simulation.warmup_cycles = 200;
        cfg.simulation.measure_cycles = 300;
        let mut result = arcsim::run(&cfg).expect("a small run");
        let awkward = 9.344_614_218_967_041e-5;
        result.misrouted_fraction = Some(awkward);
        let dir = std::env::temp_dir().join(format!("arcsim-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        save(&dir, "arcsim test", &cfg, "config", &Ok(result.clone())).unwrap();
        let (back, by) = load_any(&dir, "config").expect("stored");
        let _ = std::fs::remove_dir_all(&dir);
        let back = back.expect("a result");
        assert_eq!(by, "arcsim test");
        assert_eq!(
            back.misrouted_fraction.map(f64::to_bits),
            Some(awkward.to_bits())
        );
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&result).unwrap()
        );
    }
}
