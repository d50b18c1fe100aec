//! Records the git commit the binary is built from (`ARCSIM_GIT_COMMIT`), for the provenance
//! every output carries: `git rev-parse HEAD` where git and the repository are there, else
//! "unknown" (a build from a source archive). Nothing is fetched.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=ARCSIM_GIT_COMMIT={commit}");
    // Built again when HEAD moves (a commit, a checkout): HEAD itself, and the branch it names.
    // Only files that exist (cargo reruns the script every build for a missing one).
    let watch = |path: String| {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    };
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        watch(format!("{dir}/HEAD"));
    }
    if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
        if let Some(reference) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]) {
            watch(format!("{common}/{reference}"));
        }
        watch(format!("{common}/packed-refs"));
    }
    println!("cargo:rerun-if-changed=build.rs");
}
