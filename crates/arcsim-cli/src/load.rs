//! Loading a configuration: file or embedded default, then `--set` overrides, then validation.

use anyhow::Result;
use arcsim::config::{apply_override, Config, DEFAULT_TOML};
use arcsim::ConfigError;
use std::path::Path;

/// The TOML tree of a file (or of the embedded default when `path` is None).
pub fn load_tree(path: Option<&Path>) -> Result<toml::Value, ConfigError> {
    let text = match path {
        Some(p) => std::fs::read_to_string(p).map_err(|e| ConfigError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })?,
        None => DEFAULT_TOML.to_string(),
    };
    // A file is read on top of the embedded default, so it only needs the keys it changes.
    let mut base: toml::Value = toml::from_str(DEFAULT_TOML).expect("embedded default parses");
    let over: toml::Value = toml::from_str(&text).map_err(|e| match path {
        Some(p) => ConfigError::Syntax(format!("{}: {e}", p.display())),
        None => ConfigError::Syntax(e.to_string()),
    })?;
    merge(&mut base, over);
    Ok(base)
}

fn merge(base: &mut toml::Value, over: toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) if slot.is_table() && v.is_table() => merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

/// Apply overrides, deserialise and validate.
pub fn finish(mut tree: toml::Value, sets: &[String]) -> Result<Config, ConfigError> {
    for s in sets {
        apply_override(&mut tree, s)?;
    }
    let cfg = Config::from_value(tree)?;
    cfg.validate()?;
    Ok(cfg)
}

pub fn load(path: Option<&Path>, sets: &[String]) -> Result<Config> {
    Ok(finish(load_tree(path)?, sets)?)
}

/// Warn (on stderr) about routing and traffic keys set to something other than their default
/// that no simulation of the command reads, such as `--set routing.rings=["b"]` with MIN or
/// `--set traffic.offset=6` with the uniform pattern. A key that some of a sweep's or
/// figure's curves read is not reported. Each key a `--set` of `sets` names gets a warning of
/// its own, with the reason. The others come from a configuration file, which may set the
/// keys of several routings on purpose (`experiments/ofar/base.toml` serves every curve of
/// the seed-001 figures): with `file_keys` the routing keys are listed together on one line
/// and the traffic keys each on its own with the reason, without it (`arcsim figure`, whose
/// specs share such a base) not at all.
pub fn warn_unused_keys<'a>(
    cfgs: impl IntoIterator<Item = &'a Config>,
    sets: &[String],
    file_keys: bool,
) {
    let mut unused: Option<Vec<(&'static str, String)>> = None;
    let mut algorithms: Vec<&'static str> = Vec::new();
    for cfg in cfgs {
        let name = cfg.routing.algorithm.name();
        if !algorithms.contains(&name) {
            algorithms.push(name);
        }
        let here = cfg.unused_keys();
        unused = Some(match unused {
            None => here,
            Some(prev) => prev
                .into_iter()
                .filter(|(k, _)| here.iter().any(|(h, _)| h == k))
                .collect(),
        });
        if unused.as_ref().is_some_and(|u| u.is_empty()) {
            return;
        }
    }
    let named = |key: &str| {
        sets.iter().any(|s| {
            let set = s.split('=').next().unwrap_or_default().trim();
            set == key || set.strip_prefix(key).is_some_and(|r| r.starts_with('.'))
        })
    };
    let mut from_file = Vec::new();
    for (key, why) in unused.unwrap_or_default() {
        if named(key) {
            eprintln!("arcsim: warning: {key} is set but has no effect: {why}");
        } else if key.starts_with("routing.") {
            from_file.push(key);
        } else if file_keys {
            eprintln!(
                "arcsim: warning: {key} is set by the configuration file but has no effect: {why}"
            );
        }
    }
    if file_keys && !from_file.is_empty() {
        let (it, them) = if from_file.len() == 1 {
            ("is", "it")
        } else {
            ("are", "them")
        };
        eprintln!(
            "arcsim: warning: {} {it} set by the configuration file but read by no simulation here \
             (routing.algorithm = {}); a file shared by several routings may set {them} on purpose",
            from_file.join(", "),
            algorithms
                .iter()
                .map(|a| format!("\"{a}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Print each note of [`arcsim::config::Config::advisories`] that any of `cfgs` raises, once.
pub fn print_advisories<'a>(cfgs: impl IntoIterator<Item = &'a Config>) {
    let mut seen: Vec<String> = Vec::new();
    for cfg in cfgs {
        for note in cfg.advisories() {
            if !seen.contains(&note) {
                eprintln!("arcsim: note: {note}");
                seen.push(note);
            }
        }
    }
}
