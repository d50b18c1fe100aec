//! `nic.flow_file`: explicit flows read from a CSV file instead of written one by one as
//! `[[flows]]`. The file's rows become `[[flows]]` entries of the configuration tree before
//! it is deserialised, so they take units, defaults and validation exactly as flows written
//! in TOML do, and the effective configuration a run writes (`config.toml`) holds them
//! inline: a rerun needs the configuration only, not the file.
//!
//! The first row names the columns: any of `src`, `dst`, `rate`, `size`, `start`, `stop`,
//! `message` and `after` (the keys of `[[flows]]`); `src` and `dst` are required. `after`
//! lists flow indices separated by spaces or semicolons. An empty cell takes the key's
//! default. Lines starting with `#` are comments.

use super::field_err;
use crate::error::ConfigError;
use std::path::Path;

const COLUMNS: [&str; 8] = [
    "src", "dst", "rate", "size", "start", "stop", "message", "after",
];

/// Where flows read from a file came from: the file, the index of its first flow in
/// `flows`, and the line of each of its flows (for error messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowFile {
    pub path: String,
    pub first: usize,
    pub lines: Vec<usize>,
}

impl FlowFile {
    /// "flows.csv:12" for the flow at index `i` of `flows`, when it came from this file.
    pub fn location_of(&self, i: usize) -> Option<String> {
        let line = self.lines.get(i.checked_sub(self.first)?)?;
        Some(format!("{}:{line}", self.path))
    }
}

/// Replace `nic.flow_file` in `tree` by the flows its file holds, appended to `flows`.
/// A relative path is taken from `base` (the configuration file's folder), else from the
/// working directory. Returns None when the key is absent.
pub fn expand(
    tree: &mut toml::Value,
    base: Option<&Path>,
) -> Result<Option<FlowFile>, ConfigError> {
    let Some(nic) = tree.get_mut("nic").and_then(|n| n.as_table_mut()) else {
        return Ok(None);
    };
    let Some(value) = nic.remove("flow_file") else {
        return Ok(None);
    };
    let Some(name) = value.as_str() else {
        return Err(field_err(
            "nic.flow_file",
            format!("expected the path of a CSV file (a string), found {value}"),
        ));
    };
    let path = match base {
        Some(dir) if Path::new(name).is_relative() => dir.join(name),
        _ => Path::new(name).to_path_buf(),
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        field_err(
            "nic.flow_file",
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let shown = path.display().to_string();
    let (rows, lines) = parse(&text, &shown)?;
    let table = tree
        .as_table_mut()
        .expect("a configuration tree is a table");
    let flows = table
        .entry("flows")
        .or_insert_with(|| toml::Value::Array(Vec::new()));
    let Some(flows) = flows.as_array_mut() else {
        return Err(field_err(
            "flows",
            "expected an array of tables ([[flows]]) beside nic.flow_file",
        ));
    };
    let first = flows.len();
    flows.extend(rows);
    Ok(Some(FlowFile {
        path: shown,
        first,
        lines,
    }))
}

/// The rows of a flow file as `[[flows]]` tables, with the line of each.
fn parse(text: &str, name: &str) -> Result<(Vec<toml::Value>, Vec<usize>), ConfigError> {
    let at = |line: u64, message: String| {
        field_err("nic.flow_file", format!("{name}:{line}: {message}"))
    };
    // csv's own line count skips blank lines; count from the byte offset instead.
    // csv's line count skips blank lines, and a record's position is where the blank lines
    // before it begin: count the lines to its first character instead.
    let line_at = |byte: u64| {
        let bytes = text.as_bytes();
        let mut at = (byte as usize).min(bytes.len());
        while at < bytes.len() && (bytes[at] == b'\n' || bytes[at] == b'\r') {
            at += 1;
        }
        bytes[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1
    };
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let record = reader.headers().map_err(|e| at(1, e.to_string()))?;
    let header_line = record.position().map_or(1, |p| line_at(p.byte()));
    let header: Vec<String> = record.iter().map(str::to_string).collect();
    for (i, column) in header.iter().enumerate() {
        if !COLUMNS.contains(&column.as_str()) {
            let names: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
            let hint = super::suggest::closest(column, &names)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(at(
                header_line,
                format!(
                    "column {} is named `{column}`{hint}: columns are {}",
                    i + 1,
                    COLUMNS.join(", ")
                ),
            ));
        }
        if header[..i].contains(column) {
            return Err(at(header_line, format!("column `{column}` appears twice")));
        }
    }
    for required in ["src", "dst"] {
        if !header.iter().any(|c| c == required) {
            return Err(at(
                header_line,
                format!("no `{required}` column: every flow needs a source and a destination"),
            ));
        }
    }
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| line_at(p.byte()));
            at(line, e.to_string())
        })?;
        let line = record.position().map_or(0, |p| line_at(p.byte()));
        let mut flow = toml::map::Map::new();
        for (column, cell) in header.iter().zip(record.iter()) {
            if cell.is_empty() {
                continue;
            }
            let value = if column == "after" {
                let mut list = Vec::new();
                for part in cell.split([' ', ';']).filter(|p| !p.is_empty()) {
                    let index: i64 = part.parse().map_err(|_| {
                        at(
                            line,
                            format!("`after` lists flow indices; `{part}` is not one"),
                        )
                    })?;
                    list.push(toml::Value::Integer(index));
                }
                toml::Value::Array(list)
            } else if let Ok(n) = cell.parse::<i64>() {
                toml::Value::Integer(n)
            } else if let Ok(x) = cell.parse::<f64>() {
                toml::Value::Float(x)
            } else {
                // A quantity with a unit ("100 KB", "2 us"), converted with [units].
                toml::Value::String(cell.to_string())
            };
            flow.insert(column.clone(), value);
        }
        rows.push(toml::Value::Table(flow));
        lines.push(line as usize);
    }
    if rows.is_empty() {
        return Err(at(
            header_line,
            "the file names its columns but holds no flow".into(),
        ));
    }
    Ok((rows, lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_with(file: &Path) -> toml::Value {
        toml::from_str(&format!(
            "[nic]\nflow_file = {:?}\n",
            file.display().to_string()
        ))
        .unwrap()
    }

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("arcsim-flow-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn rows_become_flows_with_their_lines() {
        let path = write(
            "rows.csv",
            "# two flows\nsrc, dst, rate, size, after\n0, 3, 0.5, 100 KB,\n\n1, 2, , 64, 0\n",
        );
        let mut tree = tree_with(&path);
        let info = expand(&mut tree, None).unwrap().unwrap();
        assert!(tree["nic"].get("flow_file").is_none());
        let flows = tree["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 2);
        assert_eq!(flows[0]["dst"].as_integer(), Some(3));
        assert_eq!(flows[0]["rate"].as_float(), Some(0.5));
        assert_eq!(flows[0]["size"].as_str(), Some("100 KB"));
        assert!(flows[0].get("after").is_none());
        assert!(flows[1].get("rate").is_none());
        assert_eq!(flows[1]["after"].as_array().unwrap().len(), 1);
        assert_eq!(info.lines, vec![3, 5]);
        assert!(info.location_of(1).unwrap().ends_with("rows.csv:5"));
        assert_eq!(info.location_of(2), None);
    }

    #[test]
    fn bad_files_name_their_line() {
        let cases = [
            ("src,dts\n0,1\n", "ok.csv:1", "did you mean `dst`"),
            ("src,rate\n0,1\n", ":1", "no `dst` column"),
            ("src,dst\n0,1\n2,3,4\n", ":3", "found record with 3 fields"),
            ("src,dst,after\n0,1,x\n", ":2", "`x` is not one"),
            ("src,dst\n", ":1", "holds no flow"),
        ];
        for (text, at, what) in cases {
            let path = write("ok.csv", text);
            let e = expand(&mut tree_with(&path), None).unwrap_err().to_string();
            assert!(
                e.contains("nic.flow_file") && e.contains(at) && e.contains(what),
                "{e}"
            );
        }
        let e = expand(&mut tree_with(Path::new("/no/such/flows.csv")), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read /no/such/flows.csv"), "{e}");
    }
}
