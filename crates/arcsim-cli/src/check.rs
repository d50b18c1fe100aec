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
    println!(
        "# {}",
        arcsim::topology::Topology::describe(&arcsim::topology::Dragonfly::new(&cfg.topology))
    );
    if let Some(bytes) = memory_estimate(&cfg) {
        println!("# estimated memory: {}", human_bytes(bytes));
    }
    println!("# The complete effective configuration (`arcsim run` reads it as it is):");
    print!("{}", cfg.to_toml_string()?);
    Ok(())
}

/// PLACEHOLDER, to be replaced by `arcsim::config::memory::estimate` when that lands (issue
/// 62, item 1): the memory a simulation of `cfg` needs, in bytes. None until then, and
/// `check` prints no memory line.
fn memory_estimate(_cfg: &arcsim::Config) -> Option<u64> {
    None
}

/// `bytes` in the largest binary unit that keeps a whole part: 512 B, 1.5 KiB, 2.3 GiB.
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(super::human_bytes(512), "512 B");
        assert_eq!(super::human_bytes(1536), "1.5 KiB");
        assert_eq!(super::human_bytes(3 << 30), "3.0 GiB");
    }
}
