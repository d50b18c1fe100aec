//! `[link_classes.NAME]`: buffer sizes and latencies per link class, for the general
//! kernel. A topology names its links' classes (the names `result.json`'s `link_classes`
//! reports): `node` (between a node and its switch), `local` and `global` (the dragonfly's,
//! Dragonfly+'s global links, and a graph's links by their `class`), `up` and `down` (on
//! topologies with levels: fat trees, XGFTs, real-life fat trees, multistage networks and
//! Dragonfly+'s leaf-spine links). A class's `buffer` is the size of each input buffer
//! (VC) at the receiving end of its links; its `latency` that of its links, each way. A
//! class left out keeps the `router.buffer_*` and `topology.*_latency` keys.

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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, buffer: Option<u32>, latency: Option<u32>) -> LinkClasses {
        [(name.to_string(), LinkClassConfig { buffer, latency })].into()
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
    }
}
