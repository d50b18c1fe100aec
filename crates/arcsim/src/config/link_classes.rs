//! `[link_classes.NAME]`: buffer sizes and latencies per link class, for the general
//! kernel. A topology names its links' classes (the names `result.json`'s `link_classes`
//! reports): `node` (between a node and its switch), `local` and `global` (the dragonfly's,
//! Dragonfly+'s global links, and a graph's links by their `class`), `up` and `down` (on
//! topologies with levels: fat trees, XGFTs, real-life fat trees, multistage networks and
//! Dragonfly+'s leaf-spine links). A class's `buffer` is the size of each input buffer
//! (VC) at the receiving end of its links; `vcs` how many VCs that end has; its `latency`
//! that of its links, each way. A class left out keeps the `router.buffer_*`,
//! `router.vcs_*` and `topology.*_latency` keys.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The names a topology gives its link classes.
pub const LINK_CLASS_NAMES: [&str; 5] = ["node", "local", "global", "up", "down"];

/// What one class overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkClassConfig {
    /// Phits of each input buffer (VC; port memory under the other queue schemes) fed by
    /// the class's links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    /// Cycles from a packet's first phit leaving one end of a link until it reaches the
    /// other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<u32>,
    /// Data VCs of each input port fed by the class's links (`node`: the NIC's injection
    /// VCs), in place of `router.vcs_*`. More VCs than the routing's order has levels are
    /// shared out among the levels (checked when the network is built).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vcs: Option<u32>,
    /// The class's link rate as a share of a link of one phit per cycle
    /// (`units.link_rate`): 1/n, a phit every n cycles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

impl LinkClassConfig {
    /// Cycles a phit takes on the class's links: 1 / rate (1 unset).
    pub fn phit_cycles(&self) -> u32 {
        self.rate.map_or(1, |r| (1.0 / r).round() as u32)
    }
}

/// `[link_classes]`: class name to its overrides.
pub type LinkClasses = BTreeMap<String, LinkClassConfig>;

/// The checks that need no topology: known names, a buffer that holds a packet, a link
/// that takes time. Whether the topology has the class is checked when it is built.
pub fn validate(classes: &LinkClasses, packet_length: u32) -> Result<(), ConfigError> {
    for (name, c) in classes {
        if !LINK_CLASS_NAMES.contains(&name.as_str()) {
            return Err(field_err(
                &format!("link_classes.{name}"),
                format!(
                    "\"{name}\" is not a link class: the topologies name theirs {}",
                    LINK_CLASS_NAMES
                        .iter()
                        .map(|n| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if let Some(b) = c.buffer {
            if b < packet_length {
                return Err(field_err(
                    &format!("link_classes.{name}.buffer"),
                    format!(
                        "{b} phits is less than a packet (router.packet_length = {packet_length}): use at least {packet_length}"
                    ),
                ));
            }
        }
        if let Some(v) = c.vcs {
            if v == 0 || v > 255 {
                return Err(field_err(
                    &format!("link_classes.{name}.vcs"),
                    format!("{v} VCs is out of range: a port has 1 to 255"),
                ));
            }
        }
        if let Some(r) = c.rate {
            let n = 1.0 / r;
            if !(r > 0.0 && r <= 1.0) || (n - n.round()).abs() > 1e-6 * n || n > 1e6 {
                return Err(field_err(
                    &format!("link_classes.{name}.rate"),
                    format!(
                        "{r} phits per cycle is not the base link rate divided by a whole \
                         number: the fastest links carry one phit per cycle (units.link_rate) \
                         and a slower class one phit every n cycles; use 1/n of the base rate \
                         (0.5, 0.25, ... or in units, e.g. \"25 Gbps\" under a link_rate of \
                         100 Gbps), or set units.link_rate to the fastest link's rate"
                    ),
                ));
            }
        }
        if let Some(l) = c.latency {
            if l == 0 || l > super::limits::MAX_LATENCY {
                return Err(field_err(
                    &format!("link_classes.{name}.latency"),
                    format!(
                        "{l} cycles is out of range: a link takes 1 to {} cycles",
                        super::limits::MAX_LATENCY
                    ),
                ));
            }
        }
    }
    // `up` and `down` name the two directions of the same links.
    let cycles = |n: &str| classes.get(n).and_then(|c| c.rate.map(|_| c.phit_cycles()));
    if cycles("up") != cycles("down") {
        let (set, other) = if cycles("up").is_some() {
            ("up", "down")
        } else {
            ("down", "up")
        };
        return Err(field_err(
            &format!("link_classes.{set}.rate"),
            format!(
                "up and down are the two directions of the same links, which carry one \
                 rate: give link_classes.{other}.rate the same rate"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, buffer: Option<u32>, latency: Option<u32>) -> LinkClasses {
        [(
            name.to_string(),
            LinkClassConfig {
                buffer,
                latency,
                vcs: None,
                rate: None,
            },
        )]
        .into()
    }

    #[test]
    fn names_and_ranges_are_checked() {
        validate(&one("up", Some(64), Some(3)), 8).unwrap();
        let e = validate(&one("uplink", Some(64), None), 8).unwrap_err();
        assert!(e.to_string().contains("link_classes.uplink"), "{e}");
        assert!(e.to_string().contains("\"up\""), "{e}");
        let e = validate(&one("down", Some(4), None), 8).unwrap_err();
        assert!(e.to_string().contains("link_classes.down.buffer"), "{e}");
        let e = validate(&one("global", None, Some(0)), 8).unwrap_err();
        assert!(e.to_string().contains("link_classes.global.latency"), "{e}");
        for bad in [0, 256] {
            let mut c = one("up", None, None);
            c.get_mut("up").unwrap().vcs = Some(bad);
            let e = validate(&c, 8).unwrap_err();
            assert!(e.to_string().contains("link_classes.up.vcs"), "{e}");
        }
        for bad in [0.0, 0.3, 1.5, -0.25] {
            let mut c = one("node", None, None);
            c.get_mut("node").unwrap().rate = Some(bad);
            let e = validate(&c, 8).unwrap_err();
            assert!(
                e.to_string().contains("link_classes.node.rate"),
                "{bad}: {e}"
            );
        }
        let mut c = one("node", None, None);
        c.get_mut("node").unwrap().rate = Some(0.25);
        validate(&c, 8).unwrap();
        assert_eq!(c["node"].phit_cycles(), 4);
        let mut c = one("up", None, None);
        c.get_mut("up").unwrap().rate = Some(0.5);
        let e = validate(&c, 8).unwrap_err();
        assert!(e.to_string().contains("link_classes.down.rate"), "{e}");
        c.insert("down".into(), c["up"].clone());
        validate(&c, 8).unwrap();
    }
}
