//! One file per simulation of a figure (`DIR/runs/`), written as soon as it finishes, so that
//! an interrupted figure resumes where it stopped and a figure whose spec changed only in
//! titles or panels already run is redrawn without simulating again.
//!
//! A file holds the simulation's full configuration and its outcome; it is reused only if the
//! configuration is exactly the same, so any change of a key runs the simulation again.

use anyhow::{Context, Result};
use arcsim::RunResult;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What one simulation gave: its result, or why it has none.
pub type Stored = std::result::Result<RunResult, String>;

#[derive(Serialize, Deserialize)]
struct Entry {
    config: String,
    result: Option<RunResult>,
    failure: Option<String>,
}

/// File of the simulation with this configuration (FNV-1a of its TOML: stable across
/// builds and platforms, unlike std's hasher).
pub fn path(dir: &Path, config: &str) -> PathBuf {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in config.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    dir.join(format!("{h:016x}.json"))
}

/// The stored outcome of this configuration, if any (unreadable or foreign files are ignored
/// and will be overwritten).
pub fn load(dir: &Path, config: &str) -> Option<Stored> {
    let text = std::fs::read_to_string(path(dir, config)).ok()?;
    let e: Entry = serde_json::from_str(&text).ok()?;
    if e.config != config {
        return None;
    }
    match (e.result, e.failure) {
        (Some(r), None) => Some(Ok(r)),
        (None, Some(f)) => Some(Err(f)),
        _ => None,
    }
}

pub fn save(dir: &Path, config: &str, outcome: &Stored) -> Result<()> {
    let e = Entry {
        config: config.to_string(),
        result: outcome.as_ref().ok().cloned(),
        failure: outcome.as_ref().err().cloned(),
    };
    let p = path(dir, config);
    // Written whole, then renamed: an interruption never leaves half a file behind.
    let tmp = p.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string(&e)?)
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &p).with_context(|| format!("writing {}", p.display()))
}
