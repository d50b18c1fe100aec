//! `[[collectives]]` from the command line: the example runs and reports its completion
//! time, the collective figures of experiments/infiniband expand to their simulations, and
//! a small collective figure writes its table, plot and claims.

mod common;
use common::*;
use std::path::Path;

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_collective_example_reports_its_completion_time() {
    let dir = temp_dir("cli-collective-run");
    let example = root().join("examples/collective_allreduce.toml");
    let out_dir = dir.join("out");
    let out = arcsim(
        &dir,
        &[
            "run",
            example.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_success(&out, "arcsim run examples/collective_allreduce.toml");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("collective 0")
            && stdout.contains(
                "allreduce (rabenseifner), 12 ranks, 2048 phits, 8 steps (56 flows from flow 0): completed in"
            )
            && !stdout.contains("flow 0 ")
            && stdout.contains(" us"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("result.json")).unwrap())
            .unwrap();
    let run = json.get("run").unwrap_or(&json);
    let c = &run["collectives"][0];
    let t = c["completion_cycles"].as_u64().expect("completed");
    // 256 KiB over links of 200 Gbps takes 10.5 us at least; the run ended when it was done.
    assert!(t > 2048, "{c}");
    assert_eq!(
        run["cycles"].as_u64(),
        c["completed"].as_u64().map(|x| x + 1)
    );
    // The configuration the run wrote holds the collective, not its flows.
    let written = std::fs::read_to_string(out_dir.join("config.toml")).unwrap();
    assert!(written.contains("[[collectives]]") && !written.contains("[[flows]]"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_infiniband_collective_figures_expand_to_their_simulations() {
    let dir = temp_dir("cli-collective-specs");
    // 11 sizes x 6 curves (x 3 panels for allreduce; 4 curves on 4L alone).
    for (name, want) in [
        ("fig13-alltoall.toml", 66),
        ("fig13-alltoall-4l-lft.toml", 44),
        ("fig14-allreduce.toml", 198),
        ("fig15-allgather.toml", 66),
    ] {
        let spec = root().join("experiments/infiniband").join(name);
        let out = arcsim(&dir, &["figure", spec.to_str().unwrap(), "--dry-run"]);
        assert_success(&out, name);
        assert_eq!(text(&out.stdout).lines().count(), want, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_collective_figure_writes_its_table_plot_and_claims() {
    let dir = temp_dir("cli-collective-figure");
    let base = root().join("experiments/infiniband/collective-base.toml");
    let spec = format!(
        "title = \"all-to-all on C2\"
kind = \"collective\"
config = {:?}
set = [\"collectives=[{{kind = \\\"all-to-all\\\", size = 1}}]\"]
sizes = [\"1 B\", \"16 KiB\"]

[[curve]]
label = \"DR\"
set = [\"routing.selection=d-mod-k\"]

[[curve]]
label = \"AR\"
set = [\"routing.selection=least-loaded\"]

[[claim]]
paper = \"adaptive routing is faster at 16 KiB\"
curve = \"AR\"
metric = \"reduction\"
versus = \"DR\"
size = \"16 KiB\"
at_least = 0.02

[[claim]]
paper = \"the same at 1 byte\"
curve = \"AR\"
metric = \"completion\"
size = \"1 B\"
near_curve = \"DR\"
tolerance = 0.05
",
        base.display().to_string()
    );
    let spec_path = dir.join("spec.toml");
    std::fs::write(&spec_path, spec).unwrap();
    let out_dir = dir.join("out");
    let out = arcsim(
        &dir,
        &[
            "figure",
            spec_path.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_success(&out, "collective figure");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("16 KiB"), "{stdout}");
    let table = std::fs::read_to_string(out_dir.join("all/collective.csv")).unwrap();
    assert_eq!(table.lines().count(), 5, "{table}");
    assert!(table.contains("AR,16384,128,"), "{table}");
    assert_svg(&out_dir.join("all/collective.svg"));
    let claims = std::fs::read_to_string(out_dir.join("claims.csv")).unwrap();
    assert_eq!(claims.matches("holds").count(), 2, "{claims}\n{stdout}");
    // A claim naming a curve that does not exist, or without versus, is refused.
    let bad = std::fs::read_to_string(&spec_path)
        .unwrap()
        .replace("versus = \"DR\"", "versus = \"XR\"");
    std::fs::write(&spec_path, bad).unwrap();
    let out = arcsim(&dir, &["figure", spec_path.to_str().unwrap(), "--dry-run"]);
    assert_clean_failure(&out, "bad versus", &["versus 'XR' is not a curve label"]);
    let _ = std::fs::remove_dir_all(&dir);
}
