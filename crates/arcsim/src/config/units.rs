//! `[units]`: physical units. With `[units]` set, every time, size and rate key may be
//! written as the papers write it ("200 ns", "100 KB", "40 Gbps", "2.4 ms"); it is converted
//! to cycles, phits or phits per cycle before the configuration is read, and must come out
//! whole (a latency of 10.5 cycles is an error naming the key). Plain numbers keep their
//! engine meaning (cycles, phits, fractions of a link). KB, MB, GB are powers of 1,000;
//! KiB, MiB, GiB powers of 1,024.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// What a cycle and a phit are. Two of the three keys fix the third (link rate = phit /
/// cycle); all three must agree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnitsConfig {
    /// The rate of a link, which carries one phit per cycle ("40 Gbps").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_rate: Option<String>,
    /// The duration of a cycle ("1 ns", "20 ns").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<String>,
    /// The size of a phit ("5 B", "100 B").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phit: Option<String>,
}

/// The units resolved to numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Units {
    pub cycle_ns: f64,
    pub phit_bytes: f64,
    /// Link rate in Gbps (bits per nanosecond).
    pub link_gbps: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dimension {
    Time,
    Size,
    /// A size rounded up to whole phits (a collective's message of 1 byte is one phit).
    SizeUp,
    Rate,
}

/// Every key that takes a quantity: `[]` matches any index of an array of tables, `*` any
/// key of a table.
const KEYS: &[(&str, Dimension)] = &[
    ("topology.local_latency", Dimension::Time),
    ("topology.global_latency", Dimension::Time),
    ("topology.terminal_latency", Dimension::Time),
    ("topology.graph.links[].latency", Dimension::Time),
    ("switch.latency", Dimension::Time),
    ("simulation.warmup_cycles", Dimension::Time),
    ("simulation.measure_cycles", Dimension::Time),
    ("simulation.series_window", Dimension::Time),
    ("simulation.port_series_window", Dimension::Time),
    ("simulation.watchdog_cycles", Dimension::Time),
    ("simulation.max_cycles", Dimension::Time),
    ("traffic.change.at_cycle", Dimension::Time),
    ("flows[].start", Dimension::Time),
    ("link_classes.*.latency", Dimension::Time),
    ("flows[].stop", Dimension::Time),
    ("collectives[].start", Dimension::Time),
    ("collectives[].gap", Dimension::Time),
    ("router.packet_length", Dimension::Size),
    ("router.buffer_injection", Dimension::Size),
    ("router.buffer_local", Dimension::Size),
    ("router.buffer_global", Dimension::Size),
    ("switch.output_buffer", Dimension::Size),
    ("flow_control.xoff", Dimension::Size),
    ("flow_control.xon", Dimension::Size),
    ("nic.queue", Dimension::Size),
    ("link_classes.*.buffer", Dimension::Size),
    ("flows[].size", Dimension::Size),
    ("flows[].message", Dimension::Size),
    ("collectives[].size", Dimension::SizeUp),
    ("flows[].rate", Dimension::Rate),
    ("link_classes.*.rate", Dimension::Rate),
    ("traffic.load", Dimension::Rate),
    ("traffic.change.load", Dimension::Rate),
];

/// "40 Gbps" -> (40.0, "Gbps").
fn split(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '_'))
        .unwrap_or(t.len());
    let number: f64 = t[..end].replace('_', "").parse().ok()?;
    Some((number, t[end..].trim()))
}

fn nanoseconds(unit: &str) -> Option<f64> {
    Some(match unit {
        "ps" => 1e-3,
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}

fn bytes(unit: &str) -> Option<f64> {
    Some(match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "bit" | "b" => 0.125,
        _ => return None,
    })
}

/// A size written with a unit ("4 KiB", "1 B") in bytes; None when it is not one.
pub fn bytes_of(text: &str) -> Option<f64> {
    let (number, unit) = split(text)?;
    Some(number * bytes(unit)?)
}

/// Gbps (bits per ns).
fn gbps(unit: &str) -> Option<f64> {
    Some(match unit {
        "bps" => 1e-9,
        "Kbps" | "kbps" => 1e-6,
        "Mbps" => 1e-3,
        "Gbps" => 1.0,
        "Tbps" => 1e3,
        "B/ns" | "GB/s" => 8.0,
        "MB/s" => 8e-3,
        _ => return None,
    })
}

const TIME_UNITS: &str = "ps, ns, us, ms, s";
const SIZE_UNITS: &str = "B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024)";
const RATE_UNITS: &str = "bps, Kbps, Mbps, Gbps, Tbps, MB/s, GB/s, B/ns";

impl UnitsConfig {
    pub fn is_default(&self) -> bool {
        *self == UnitsConfig::default()
    }

    /// The units as numbers, or None when `[units]` is absent.
    pub fn resolve(&self) -> Result<Option<Units>, ConfigError> {
        if self.is_default() {
            return Ok(None);
        }
        let parse = |key: &str, v: &Option<String>, scale: fn(&str) -> Option<f64>, units: &str| {
            v.as_deref()
                .map(|text| {
                    let (n, u) = split(text).ok_or_else(|| {
                        field_err(
                            key,
                            format!(
                                "\"{text}\" is not a quantity: write a number and a unit ({units})"
                            ),
                        )
                    })?;
                    let s = scale(u).ok_or_else(|| {
                        field_err(
                            key,
                            format!("\"{u}\" in \"{text}\" is not a unit here: use one of {units}"),
                        )
                    })?;
                    let value = n * s;
                    if !(value > 0.0 && value.is_finite()) {
                        return Err(field_err(key, format!("\"{text}\" must be positive")));
                    }
                    Ok(value)
                })
                .transpose()
        };
        let rate = parse("units.link_rate", &self.link_rate, gbps, RATE_UNITS)?;
        let cycle = parse("units.cycle", &self.cycle, nanoseconds, TIME_UNITS)?;
        let phit = parse("units.phit", &self.phit, bytes, SIZE_UNITS)?;
        let (cycle_ns, phit_bytes) = match (rate, cycle, phit) {
            (Some(r), Some(c), None) => (c, r * c / 8.0),
            (Some(r), None, Some(p)) => (p * 8.0 / r, p),
            (None, Some(c), Some(p)) => (c, p),
            (Some(r), Some(c), Some(p)) => {
                if ((r * c / 8.0) / p - 1.0).abs() > 1e-9 {
                    return Err(field_err(
                        "units.phit",
                        format!(
                            "a link of {r} Gbps carries {} bytes in a cycle of {c} ns, not {p}: give two of link_rate, cycle and phit",
                            r * c / 8.0
                        ),
                    ));
                }
                (c, p)
            }
            _ => {
                return Err(field_err(
                    "units",
                    "give two of link_rate, cycle and phit (a link carries one phit per cycle), e.g. link_rate = \"40 Gbps\" and cycle = \"1 ns\"",
                ))
            }
        };
        Ok(Some(Units {
            cycle_ns,
            phit_bytes,
            link_gbps: phit_bytes * 8.0 / cycle_ns,
        }))
    }
}

/// Replace every quantity written with a unit in the TOML tree by its value in cycles,
/// phits or phits per cycle, using the tree's `[units]`.
pub fn convert(root: &mut toml::Value) -> Result<(), ConfigError> {
    let units: Option<UnitsConfig> = match root.get("units") {
        Some(u) => Some(
            u.clone()
                .try_into()
                .map_err(|e: toml::de::Error| field_err("units", super::explain(e.message())))?,
        ),
        None => None,
    };
    let units = match units {
        Some(u) => u.resolve()?,
        None => None,
    };
    for &(path, dim) in KEYS {
        let mut found = Vec::new();
        collect(root, path, String::new(), &mut found);
        for (key, value) in found {
            // Only a number followed by a unit is a quantity; any other string is left for
            // the type check to report ("high" where a number is expected).
            let Some(text) = value.as_str().map(str::to_owned) else {
                continue;
            };
            if split(&text).is_none_or(|(_, unit)| unit.is_empty()) {
                continue;
            }
            let Some(u) = units else {
                return Err(field_err(
                    &key,
                    format!(
                        "\"{text}\" has a unit, which needs a [units] section saying what a cycle and a phit are (e.g. link_rate = \"40 Gbps\", cycle = \"1 ns\"); or write the number of {}",
                        match dim {
                            Dimension::Time => "cycles",
                            Dimension::Size | Dimension::SizeUp => "phits",
                            Dimension::Rate => "phits per cycle",
                        }
                    ),
                ));
            };
            *value = quantity(&key, &text, dim, &u)?;
        }
    }
    Ok(())
}

/// The values at `path` ("flows[].rate"), with their keys as messages name them.
fn collect<'a>(
    node: &'a mut toml::Value,
    path: &str,
    prefix: String,
    out: &mut Vec<(String, &'a mut toml::Value)>,
) {
    let (head, rest) = match path.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (path, None),
    };
    if head == "*" {
        if let Some(table) = node.as_table_mut() {
            for (name, child) in table.iter_mut() {
                let key = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}.{name}")
                };
                match rest {
                    Some(rest) => collect(child, rest, key, out),
                    None => out.push((key, child)),
                }
            }
        }
        return;
    }
    let (name, array) = match head.strip_suffix("[]") {
        Some(n) => (n, true),
        None => (head, false),
    };
    let Some(child) = node.get_mut(name) else {
        return;
    };
    let key = if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    };
    match (array, rest) {
        (true, Some(rest)) => {
            if let Some(items) = child.as_array_mut() {
                for (i, item) in items.iter_mut().enumerate() {
                    collect(item, rest, format!("{key}[{i}]"), out);
                }
            }
        }
        (false, Some(rest)) => collect(child, rest, key, out),
        (_, None) => out.push((key, child)),
    }
}

/// One quantity in engine units.
fn quantity(key: &str, text: &str, dim: Dimension, u: &Units) -> Result<toml::Value, ConfigError> {
    let (number, unit) = split(text).ok_or_else(|| {
        field_err(
            key,
            format!("\"{text}\" is not a quantity: write a number and a unit"),
        )
    })?;
    let (scale, unit_name, allowed) = match dim {
        Dimension::Time => (
            nanoseconds(unit).map(|s| s / u.cycle_ns),
            "cycles",
            TIME_UNITS,
        ),
        Dimension::Size | Dimension::SizeUp => {
            (bytes(unit).map(|s| s / u.phit_bytes), "phits", SIZE_UNITS)
        }
        Dimension::Rate => (gbps(unit).map(|s| s / u.link_gbps), "", RATE_UNITS),
    };
    let scale = scale.ok_or_else(|| {
        field_err(
            key,
            format!("\"{unit}\" in \"{text}\" is not a unit of this key: use one of {allowed}"),
        )
    })?;
    let value = number * scale;
    if dim == Dimension::Rate {
        return Ok(toml::Value::Float(value));
    }
    if dim == Dimension::SizeUp && value.is_finite() && value >= 0.0 && value < i64::MAX as f64 {
        // Within rounding error of a whole phit counts as that phit, not one more.
        let near = value.round();
        let up = if (value - near).abs() <= 1e-9 * near.max(1.0) {
            near
        } else {
            value.ceil()
        };
        return Ok(toml::Value::Integer(up as i64));
    }
    let whole = value.round();
    if (value - whole).abs() > 1e-6 * whole.abs().max(1.0) || whole > i64::MAX as f64 {
        let (step, what) = match dim {
            Dimension::Time => (format!("{} ns", u.cycle_ns), "cycle"),
            _ => (format!("{} B", u.phit_bytes), "phit"),
        };
        return Err(field_err(
            key,
            format!(
                "\"{text}\" is {value} {unit_name}, not a whole number: use a multiple of the {what} ({step}), or change [units]"
            ),
        ));
    }
    Ok(toml::Value::Integer(whole as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> toml::Value {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn quantities_become_cycles_and_phits() {
        let mut t = tree(
            "[units]\nlink_rate = \"40 Gbps\"\ncycle = \"20 ns\"\n\
             [switch]\nlatency = \"200 ns\"\noutput_buffer = \"100 KB\"\n\
             [router]\npacket_length = \"1000 B\"\n\
             [simulation]\nwarmup_cycles = \"2.4 ms\"\n\
             [[flows]]\nrate = \"20 Gbps\"\nsize = \"64 KiB\"\n",
        );
        // 40 Gbps for 20 ns: a phit is 100 bytes.
        let err = convert(&mut t).unwrap_err().to_string();
        assert!(
            err.contains("flows[0].size") && err.contains("655.36"),
            "{err}"
        );
        let mut t = tree(
            "[units]\nlink_rate = \"40 Gbps\"\ncycle = \"20 ns\"\n\
             [switch]\nlatency = \"200 ns\"\noutput_buffer = \"100 KB\"\n\
             [router]\npacket_length = \"1000 B\"\n\
             [simulation]\nwarmup_cycles = \"2.4 ms\"\n\
             [[flows]]\nrate = \"20 Gbps\"\nsize = \"64 KB\"\n",
        );
        convert(&mut t).unwrap();
        assert_eq!(t["switch"]["latency"].as_integer(), Some(10));
        assert_eq!(t["switch"]["output_buffer"].as_integer(), Some(1000));
        assert_eq!(t["router"]["packet_length"].as_integer(), Some(10));
        assert_eq!(t["simulation"]["warmup_cycles"].as_integer(), Some(120_000));
        assert_eq!(t["flows"][0]["rate"].as_float(), Some(0.5));
        assert_eq!(t["flows"][0]["size"].as_integer(), Some(640));
    }

    #[test]
    fn a_latency_that_is_not_whole_cycles_names_the_key() {
        let mut t = tree(
            "[units]\nlink_rate = \"40 Gbps\"\ncycle = \"20 ns\"\n[switch]\nlatency = \"210 ns\"\n",
        );
        let e = convert(&mut t).unwrap_err().to_string();
        assert!(
            e.contains("switch.latency") && e.contains("10.5 cycles"),
            "{e}"
        );
    }

    #[test]
    fn units_need_two_of_three_and_agree() {
        let one = UnitsConfig {
            cycle: Some("1 ns".into()),
            ..Default::default()
        };
        assert!(one.resolve().unwrap_err().to_string().contains("two of"));
        let rec = UnitsConfig {
            link_rate: Some("8 Gbps".into()),
            cycle: Some("0.333333333333333333 ns".into()),
            ..Default::default()
        };
        let u = rec.resolve().unwrap().unwrap();
        assert!((u.phit_bytes - 1.0 / 3.0).abs() < 1e-12);
        let bad = UnitsConfig {
            link_rate: Some("40 Gbps".into()),
            cycle: Some("1 ns".into()),
            phit: Some("4 B".into()),
        };
        assert!(bad
            .resolve()
            .unwrap_err()
            .to_string()
            .contains("units.phit"));
        let mut t = tree("[switch]\nlatency = \"200 ns\"\n");
        let e = convert(&mut t).unwrap_err().to_string();
        assert!(e.contains("switch.latency") && e.contains("[units]"), "{e}");
        let mut t = tree(
            "[units]\ncycle = \"1 ns\"\nphit = \"5 B\"\n[switch]\nlatency = \"200 furlongs\"\n",
        );
        assert!(convert(&mut t)
            .unwrap_err()
            .to_string()
            .contains("not a unit"));
    }
}
