//! `arcsim check`: validate a configuration and print it whole, without running anything.

use crate::load::load;
use anyhow::Result;
use std::path::Path;

pub fn check_command(config: Option<&Path>, sets: &[String]) -> Result<()> {
    let cfg = load(config, sets)?;
    crate::load::warn_unused_keys([&cfg], sets, true);
    crate::load::print_advisories([&cfg]);
    let source = match config {
        Some(p) if p.as_os_str() == "-" => "standard input".to_string(),
        Some(p) => p.display().to_string(),
        None => "the embedded default".to_string(),
    };
    let overrides = if sets.is_empty() {
        String::new()
    } else {
        format!(" with {}", sets.join(", "))
    };
    println!("# arcsim check: {source}{overrides} is valid.");
    println!("# {}", arcsim::topology::describe(&cfg.topology));
    let memory = arcsim::memory::estimate(&cfg);
    println!("# estimated memory: {}", arcsim::memory::human(memory));
    println!("# The complete effective configuration (`arcsim run` reads it as it is):");
    print!("{}", cfg.to_complete_toml_string()?);
    Ok(())
}
