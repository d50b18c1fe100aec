//! Helpers shared by the CLI's integration tests: run the binary, check how it ended, check
//! the files it wrote.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arcsim-test-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// The OFAR paper's experiment specs of the repository (`experiments/ofar`).
pub fn experiments() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/ofar")
}

/// Run the binary in `cwd` (so that nothing is written elsewhere by accident).
pub fn arcsim(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arcsim"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("start arcsim")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// Non-zero exit, a message on stderr containing every `needle`, and no panic.
pub fn assert_clean_failure(out: &Output, what: &str, needles: &[&str]) {
    let err = text(&out.stderr);
    assert!(
        !out.status.success(),
        "{what}: succeeded\nstdout:\n{}",
        text(&out.stdout)
    );
    assert!(out.status.code().is_some(), "{what}: killed by a signal");
    assert!(!err.contains("panicked"), "{what}: panicked:\n{err}");
    assert!(!err.contains("RUST_BACKTRACE"), "{what}: panicked:\n{err}");
    for n in needles {
        assert!(err.contains(n), "{what}: stderr lacks {n:?}:\n{err}");
    }
}

pub fn assert_png(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.len() > 1000 && bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG image ({} bytes)",
        path.display(),
        bytes.len()
    );
}

pub fn assert_svg(path: &Path) {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        s.contains("<svg") && s.trim_end().ends_with("</svg>"),
        "{} is not a complete SVG document",
        path.display()
    );
}

/// `--set` overrides for the small balanced dragonfly (p = 2, a = 4, h = 2: 72 nodes).
pub const SMALL: [&str; 6] = [
    "--set",
    "topology.p=2",
    "--set",
    "topology.a=4",
    "--set",
    "topology.h=2",
];
