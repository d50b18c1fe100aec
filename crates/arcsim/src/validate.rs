//! Checks across the parts of a configuration: what no section can check alone, because
//! it needs the network built from the topology, the routing's VC needs or the size of the
//! engine's records. The configuration ([`crate::config`]) checks each section and the rules
//! between sections that are plain data, and imports no engine, routing or topology code;
//! this is where parts are constructed and checked together, before a simulation is built.

use crate::config::{field_err, Config, EscapeKind};
use crate::error::ConfigError;

/// Every check a configuration must pass before a simulation of it is built: its own
/// ([`Config::validate`]), then the ones across parts.
pub fn validate(cfg: &Config) -> Result<(), ConfigError> {
    cfg.validate()?;
    if cfg.uses_kernel() {
        if let Some(g) = crate::topology::generated(&cfg.topology) {
            g.graph.validate()?;
        }
    } else {
        escape_vcs(cfg)?;
        escape_networks(cfg)?;
        crate::routing::check_vcs(cfg)?;
    }
    crate::memory::check(cfg)
}

/// The escape subnetworks' VCs come on top of the routing's, within what a port holds.
fn escape_vcs(cfg: &Config) -> Result<(), ConfigError> {
    let routing = &cfg.routing;
    if !routing.algorithm.uses_escape() {
        return Ok(());
    }
    let subnets = match routing.escape {
        EscapeKind::Ring => routing.rings.len(),
        EscapeKind::Tree => 1,
        EscapeKind::None => 0,
    };
    let auto = crate::routing::default_vcs(routing.algorithm);
    for (name, n, auto_n) in [
        ("router.vcs_local", cfg.router.vcs_local, auto.local),
        ("router.vcs_global", cfg.router.vcs_global, auto.global),
    ] {
        let n = if n == 0 { auto_n } else { n };
        if n + subnets > crate::router::MAX_VCS {
            return Err(field_err(
                name,
                format!(
                    "{n} VCs plus {subnets} escape VC(s) exceed the {} VCs a port supports: use at most {}",
                    crate::router::MAX_VCS,
                    crate::router::MAX_VCS - subnets
                ),
            ));
        }
    }
    Ok(())
}

/// The escape rings or tree the routing names exist on this dragonfly.
fn escape_networks(cfg: &Config) -> Result<(), ConfigError> {
    let routing = &cfg.routing;
    if !routing.algorithm.uses_escape() || routing.escape == EscapeKind::None {
        return Ok(());
    }
    let df = crate::topology::Dragonfly::new(&cfg.topology);
    match routing.escape {
        EscapeKind::Ring => {
            for &k in &routing.rings {
                crate::topology::escape::ring(&df, k, routing.ring_direction)
                    .map_err(|m| field_err("routing.rings", m))?;
            }
        }
        EscapeKind::Tree => {
            crate::topology::escape::tree(&df, routing.tree_root)
                .map_err(|m| field_err("routing.tree_root", m))?;
        }
        EscapeKind::None => {}
    }
    Ok(())
}
