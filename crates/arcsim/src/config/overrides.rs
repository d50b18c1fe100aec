//! `--set key=value` overrides, applied to the TOML tree before it is deserialised so that
//! unknown keys and wrong types are caught by the same checks as in a file.

use crate::error::ConfigError;

/// Apply `dotted.key=value` to a TOML tree. The value is read as a TOML literal (number,
/// boolean, array, inline table, quoted string); anything that does not parse as one is taken
/// as a bare string, so `--set routing.algorithm=val` works without quotes.
pub fn apply_override(root: &mut toml::Value, assignment: &str) -> Result<(), ConfigError> {
    let (key, raw) = assignment
        .split_once('=')
        .ok_or_else(|| ConfigError::Override {
            assignment: assignment.to_string(),
            message: "expected KEY=VALUE, e.g. traffic.load=0.3".into(),
        })?;
    let key = key.trim();
    if key.is_empty() || key.split('.').any(|part| part.is_empty()) {
        return Err(ConfigError::Override {
            assignment: assignment.to_string(),
            message: "the key must be a dotted path such as topology.h".into(),
        });
    }
    let raw = raw.trim();
    let value = parse_value(raw);
    let digits = raw.strip_prefix(['-', '+']).unwrap_or(raw);
    if value.is_str() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        // A number TOML cannot hold would otherwise reach the key as a string ("expected
        // u64, found string"), which hides the cause.
        return Err(ConfigError::Override {
            assignment: assignment.to_string(),
            message: format!(
                "{raw} does not fit a TOML integer (64-bit signed: {} to {})",
                i64::MIN,
                i64::MAX
            ),
        });
    }
    let mut node = root;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let table = node.as_table_mut().ok_or_else(|| ConfigError::Override {
            assignment: assignment.to_string(),
            message: format!("'{}' is not a table", parts[..i].join(".")),
        })?;
        if i + 1 == parts.len() {
            table.insert((*part).to_string(), value);
            return Ok(());
        }
        node = table
            .entry((*part).to_string())
            .or_insert_with(|| toml::Value::Table(toml::map::Map::new()));
    }
    unreachable!("loop returns on the last key part")
}

fn parse_value(raw: &str) -> toml::Value {
    let doc = format!("v = {raw}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_values_and_bare_strings() {
        let mut v = toml::Value::Table(Default::default());
        apply_override(&mut v, "topology.h=4").unwrap();
        apply_override(&mut v, "traffic.load=0.25").unwrap();
        apply_override(&mut v, "routing.algorithm=val-any").unwrap();
        assert_eq!(v["topology"]["h"].as_integer(), Some(4));
        assert_eq!(v["traffic"]["load"].as_float(), Some(0.25));
        assert_eq!(v["routing"]["algorithm"].as_str(), Some("val-any"));
    }

    #[test]
    fn malformed_assignment_is_rejected() {
        let mut v = toml::Value::Table(Default::default());
        assert!(apply_override(&mut v, "topology.h").is_err());
        assert!(apply_override(&mut v, "topology..h=3").is_err());
        // Beyond i64: named as such, not passed on as a string.
        let e = apply_override(&mut v, "simulation.seed=18446744073709551615").unwrap_err();
        assert!(e.to_string().contains("does not fit a TOML integer"), "{e}");
        apply_override(&mut v, "simulation.seed=9223372036854775807").unwrap();
        assert_eq!(v["simulation"]["seed"].as_integer(), Some(i64::MAX));
    }
}
