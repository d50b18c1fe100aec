//! What produced an output: the arcsim version and the git commit it was built from
//! (`build.rs`), written into every result file beside the complete configuration.

use serde::Serialize;

/// The build of arcsim that wrote an output (`"arcsim"` in result.json and sweep.json).
#[derive(Serialize, Clone, Copy)]
pub struct Build {
    pub version: &'static str,
    /// `git rev-parse HEAD` at build time, or "unknown" (built outside a git checkout).
    pub commit: &'static str,
}

pub const BUILD: Build = Build {
    version: env!("CARGO_PKG_VERSION"),
    commit: env!("ARCSIM_GIT_COMMIT"),
};

/// "arcsim 0.1.0 (commit 0123abcd...)".
pub fn describe() -> String {
    format!("arcsim {} (commit {})", BUILD.version, BUILD.commit)
}

/// A configuration file as outputs write it: a header naming the build, then every key.
pub fn config_file(cfg: &arcsim::Config) -> anyhow::Result<String> {
    Ok(format!(
        "# Written by {}.\n\
         # The complete configuration, every key with its value (defaults included):\n\
         # `arcsim run` of this file simulates the same again.\n{}",
        describe(),
        cfg.to_complete_toml_string()?
    ))
}
