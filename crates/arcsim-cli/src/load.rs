//! Loading a configuration: file (or standard input, `-`) or embedded default, then `--set`
//! overrides, then validation, reporting every error at once with the file line or the
//! `--set` it comes from.

use anyhow::Result;
use arcsim::config::{apply_override, Config, DEFAULT_TOML};
use arcsim::ConfigError;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// A configuration's TOML tree, with the text it was read from (for line numbers).
#[derive(Clone)]
pub struct Tree {
    pub value: toml::Value,
    source: Option<Arc<Source>>,
}

struct Source {
    /// The file as the user named it, or "<stdin>".
    name: String,
    text: String,
}

/// The TOML tree of a file, of standard input (`-`), or of the embedded default when `path`
/// is None.
pub fn load_tree(path: Option<&Path>) -> Result<Tree, ConfigError> {
    let source = read_source(path)?;
    tree_of(
        source
            .as_ref()
            .map(|(name, text)| (name.as_str(), text.as_str())),
    )
}

/// The name and text of a configuration file (`-`: standard input; "<stdin>" its name), None
/// for the embedded default.
pub fn read_source(path: Option<&Path>) -> Result<Option<(String, String)>, ConfigError> {
    Ok(match path {
        Some(p) if p.as_os_str() == "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| ConfigError::Io {
                    path: "<stdin>".into(),
                    message: e.to_string(),
                })?;
            Some(("<stdin>".into(), text))
        }
        Some(p) => Some((
            p.display().to_string(),
            std::fs::read_to_string(p).map_err(|e| ConfigError::Io {
                path: p.display().to_string(),
                message: e.to_string(),
            })?,
        )),
        None => None,
    })
}

/// The TOML tree of a configuration's text (`source`: its name, as errors cite it, and its
/// text), read on top of the embedded default; the embedded default alone when None.
pub fn tree_of(source: Option<(&str, &str)>) -> Result<Tree, ConfigError> {
    let source = source.map(|(name, text)| Source {
        name: name.to_string(),
        text: text.to_string(),
    });
    let text = source.as_ref().map_or(DEFAULT_TOML, |s| s.text.as_str());
    // A file is read on top of the embedded default, so it only needs the keys it changes.
    let mut base: toml::Value = toml::from_str(DEFAULT_TOML).expect("embedded default parses");
    // toml's message gives the line and column of a syntax error.
    let mut over: toml::Value = toml::from_str(text).map_err(|e| match &source {
        Some(s) => ConfigError::Syntax(format!("{}: {e}", s.name)),
        None => ConfigError::Syntax(e.to_string()),
    })?;
    if let Some(dir) = source
        .as_ref()
        .filter(|s| s.name != "<stdin>")
        .and_then(|s| Path::new(&s.name).parent())
    {
        relative_to(&mut over, dir);
    }
    merge(&mut base, over);
    Ok(Tree {
        value: base,
        source: source.map(Arc::new),
    })
}

/// Keys that name files, read relative to the configuration file that sets them.
const FILE_KEYS: [&str; 3] = ["routing.table", "topology.graph.file", "nic.flow_file"];

/// Read the relative paths of [`FILE_KEYS`] in a configuration file from its directory
/// `dir` (made absolute), so that a configuration runs from any working directory and the
/// `config.toml` a run writes names the same files.
fn relative_to(tree: &mut toml::Value, dir: &Path) {
    for key in FILE_KEYS {
        let mut node = Some(&mut *tree);
        for part in key.split('.') {
            node = node.and_then(|n| n.get_mut(part));
        }
        if let Some(toml::Value::String(s)) = node {
            if !s.is_empty() && Path::new(s.as_str()).is_relative() {
                // Absolute, so that the config.toml a run writes elsewhere finds it too.
                let joined = dir.join(s.as_str());
                *s = std::path::absolute(&joined)
                    .unwrap_or(joined)
                    .display()
                    .to_string();
            }
        }
    }
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

/// Apply overrides, deserialise and validate, reporting every error found (each with the
/// `--set` or the file line it comes from) rather than the first.
pub fn finish(tree: Tree, sets: &[String]) -> Result<Config, ConfigError> {
    let mut value = tree.value.clone();
    let mut errors = Vec::new();
    for s in sets {
        if let Err(e) = apply_override(&mut value, s) {
            errors.push(e);
        }
    }
    // Flows read from a file now (its path already made relative to the configuration's
    // folder), so that an error about one of them can name its line of the file.
    let flow_file = match arcsim::config::flow_file::expand(&mut value, None) {
        Ok(f) => f,
        Err(e) => {
            errors.push(tree.locate(e, sets));
            None
        }
    };
    match Config::from_value_all(value, arcsim::validate) {
        Ok(cfg) if errors.is_empty() => Ok(cfg),
        Ok(_) => Err(ConfigError::from_all(errors)),
        Err(found) => {
            errors.extend(
                found
                    .into_iter()
                    .map(|e| match flow_line(&e, flow_file.as_ref()) {
                        Some(location) => ConfigError::Located {
                            location,
                            error: Box::new(e),
                        },
                        None => tree.locate(e, sets),
                    }),
            );
            Err(ConfigError::from_all(errors))
        }
    }
}

/// The line of the flow file an error about `flows[i]` comes from, when that flow was read
/// from it.
fn flow_line(
    error: &ConfigError,
    file: Option<&arcsim::config::flow_file::FlowFile>,
) -> Option<String> {
    let index = error.field()?.strip_prefix("flows[")?.split(']').next()?;
    file?.location_of(index.parse().ok()?)
}

pub fn load(path: Option<&Path>, sets: &[String]) -> Result<Config> {
    Ok(finish(load_tree(path)?, sets)?)
}

impl Tree {
    /// `error` with where its key was set: the last `--set` of it, else its line in the
    /// file; unchanged when neither set it (a default that conflicts with another key).
    fn locate(&self, error: ConfigError, sets: &[String]) -> ConfigError {
        let Some(field) = error.field().map(str::to_string) else {
            return error;
        };
        let plain = field.split('[').next().unwrap_or(&field);
        let by_set = sets.iter().rev().find(|s| {
            let key = s.split('=').next().unwrap_or_default().trim();
            key == plain
                || plain.strip_prefix(key).is_some_and(|r| r.starts_with('.'))
                || key.strip_prefix(plain).is_some_and(|r| r.starts_with('.'))
        });
        let location = match (by_set, &self.source) {
            (Some(s), _) => format!("--set {s}"),
            (None, Some(src)) => match line_of(&src.text, &field) {
                Some(line) => format!("{}:{line}", src.name),
                None => return error,
            },
            (None, None) => return error,
        };
        ConfigError::Located {
            location,
            error: Box::new(error),
        }
    }
}

/// The line (from 1) of the key at `path` (`traffic.mix[1].pattern`, as the errors name
/// keys) in a TOML document: the deepest part of the path the document holds, None when it
/// holds none (the key came from the embedded default).
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    use toml_edit::{Item, TableLike, Value};
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    enum Node<'a> {
        Item(&'a Item),
        Value(&'a Value),
        Table(&'a dyn TableLike),
    }
    let mut node = Node::Item(doc.as_item());
    let mut span = None;
    'path: for part in path.split('.') {
        let (name, indices) = part.split_at(part.find('[').unwrap_or(part.len()));
        let table = match node {
            Node::Item(i) => i.as_table_like(),
            Node::Value(v) => v.as_inline_table().map(|t| t as &dyn TableLike),
            Node::Table(t) => Some(t),
        };
        let Some((key, item)) = table.and_then(|t| t.get_key_value(name)) else {
            break;
        };
        span = key.span().or(span);
        node = Node::Item(item);
        for index in indices.split(']').filter(|s| !s.is_empty()) {
            let Some(i) = index
                .strip_prefix('[')
                .and_then(|i| i.parse::<usize>().ok())
            else {
                break 'path;
            };
            let array = match node {
                Node::Item(Item::Value(Value::Array(a))) | Node::Value(Value::Array(a)) => a,
                Node::Item(Item::ArrayOfTables(a)) => {
                    let Some(t) = a.get(i) else { break 'path };
                    span = t.span().or(span);
                    node = Node::Table(t);
                    continue;
                }
                _ => break 'path,
            };
            let Some(v) = array.get(i) else { break 'path };
            span = v.span().or(span);
            node = Node::Value(v);
        }
    }
    let start = span?.start;
    Some(text[..start.min(text.len())].matches('\n').count() + 1)
}

/// Warn (on stderr) about routing and traffic keys set to something other than their default
/// that no simulation of the command reads, such as `--set routing.rings=["b"]` with MIN or
/// `--set traffic.offset=6` with the uniform pattern. A key that some of a sweep's or
/// figure's curves read is not reported. Each key a `--set` of `sets` names gets a warning of
/// its own, with the reason. The others come from a configuration file, which may set the
/// keys of several routings on purpose (`experiments/ofar/base.toml` serves every curve of
/// the OFAR paper's figures): with `file_keys` the routing keys are listed together on one line
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
