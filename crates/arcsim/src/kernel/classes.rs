//! Link classes as the topology names them, and the buffer sizes and latencies a
//! configuration gives each (`[link_classes]`): `node` between a node and its switch; on
//! topologies with levels `up` towards a higher level, `down` towards a lower one, `global`
//! (Dragonfly+'s links between groups) or `local` at the same level; elsewhere `local` or
//! `global` as the topology (or the graph's `class`) says.

use crate::config::{Config, RouterConfig};
use crate::error::ConfigError;
use crate::topology::{Network, PortClass};

/// The class of the link leaving output port `gp`, as the topology names it (`levels`: per
/// switch its level, empty where the topology has none).
pub fn name(net: &Network, levels: &[u32], port_switch: usize, gp: usize) -> &'static str {
    let info = net.ports[gp];
    match info.class {
        PortClass::Terminal => "node",
        PortClass::Unused => "unused",
        PortClass::Global => "global",
        PortClass::Local => match (levels.get(port_switch), levels.get(info.peer as usize)) {
            (Some(a), Some(b)) if b > a => "up",
            (Some(a), Some(b)) if b < a => "down",
            _ => "local",
        },
    }
}

/// Per global port, the class of the link leaving it.
pub fn names(net: &Network, levels: &[u32]) -> Vec<&'static str> {
    (0..net.num_routers())
        .flat_map(|r| {
            (net.port_base[r] as usize..net.port_base[r + 1] as usize)
                .map(move |gp| name(net, levels, r, gp))
        })
        .collect()
}

/// Give the links of every class that `[link_classes]` names its latency, after checking
/// that the network has links of each class named.
pub fn apply_latencies(
    cfg: &Config,
    net: &mut Network,
    names: &[&'static str],
) -> Result<(), ConfigError> {
    for (class, c) in &cfg.link_classes {
        if !names.contains(&class.as_str()) {
            let mut present: Vec<&str> = names.iter().copied().filter(|&n| n != "unused").collect();
            present.sort_unstable();
            present.dedup();
            return Err(ConfigError::Field {
                field: format!("link_classes.{class}"),
                message: format!(
                    "this network has no {class} links: its link classes are {}",
                    present.join(", ")
                ),
            });
        }
        if let Some(l) = c.latency {
            for (gp, _) in names.iter().enumerate().filter(|(_, &n)| n == class) {
                net.ports[gp].latency = l;
            }
        }
    }
    Ok(())
}

/// The size of each buffer (VC) of input port `gp`, and the key that sets it: the class of
/// the link that feeds it (`names[peer]`, or `node`), or the router's key for its kind.
pub fn input_buffer(
    cfg: &Config,
    net: &Network,
    names: &[&'static str],
    peer: &[u32],
    gp: usize,
) -> (u32, String) {
    let rc: &RouterConfig = &cfg.router;
    let class = net.ports[gp].class;
    let feeding = match class {
        PortClass::Terminal => "node",
        PortClass::Unused => return (0, String::new()),
        _ => names[peer[gp] as usize],
    };
    if let Some(b) = cfg.link_classes.get(feeding).and_then(|c| c.buffer) {
        return (b, format!("link_classes.{feeding}.buffer"));
    }
    match class {
        PortClass::Terminal => (rc.buffer_injection, "router.buffer_injection".into()),
        PortClass::Global => (rc.buffer_global, "router.buffer_global".into()),
        _ => (rc.buffer_local, "router.buffer_local".into()),
    }
}

/// The data VCs input port `gp` has when `[link_classes]` gives the class of the link that
/// feeds it a VC count (`node` for a node's port), and the key that set it; None: the
/// router's key for its kind.
pub fn input_vcs(
    cfg: &Config,
    net: &Network,
    names: &[&'static str],
    peer: &[u32],
    gp: usize,
) -> Option<(u16, String)> {
    let feeding = match net.ports[gp].class {
        PortClass::Terminal => "node",
        PortClass::Unused => return None,
        _ => names[peer[gp] as usize],
    };
    let v = cfg.link_classes.get(feeding)?.vcs?;
    Some((v as u16, format!("link_classes.{feeding}.vcs")))
}
