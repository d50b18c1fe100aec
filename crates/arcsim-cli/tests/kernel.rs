//! The general kernel from the command line: its examples run, and a sweep of a kernel
//! configuration gives the same numbers whatever the number of threads.

mod common;
use common::*;
use std::path::Path;

fn sweep_csv_without_wall_time(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !header[i].contains("wall") && !header[i].contains("seconds"))
        .collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            keep.iter().map(|&i| rec[i].to_string()).collect()
        })
        .collect()
}

/// `arcsim run examples/NAME` from `dir` with short windows, into `dir/out`: its stdout
/// (the run must succeed) and the output folder.
fn run_example(dir: &Path, name: &str, warmup: u64, measure: u64) -> (String, std::path::PathBuf) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let out_dir = dir.join("out");
    let out = arcsim(
        dir,
        &[
            "run",
            example.to_str().unwrap(),
            "--set",
            &format!("simulation.warmup_cycles={warmup}"),
            "--set",
            &format!("simulation.measure_cycles={measure}"),
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_success(&out, &format!("arcsim run examples/{name}"));
    (text(&out.stdout), out_dir)
}

#[test]
fn a_kernel_sweep_is_the_same_on_one_thread_and_on_two() {
    let dir = temp_dir("cli-kernel-sweep");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/hol_switch.toml");
    let run = |threads: &str| {
        let out_dir = dir.join(format!("t{threads}"));
        let out = arcsim(
            &dir,
            &[
                "sweep",
                example.to_str().unwrap(),
                "--set",
                "simulation.warmup_cycles=200",
                "--set",
                "simulation.measure_cycles=1000",
                "--load",
                "0.3,0.6,1.0",
                "--vary",
                "switch.speedup=1.0,2.0",
                "--threads",
                threads,
                "--out",
                out_dir.to_str().unwrap(),
            ],
        );
        assert_success(&out, "arcsim sweep on the kernel");
        sweep_csv_without_wall_time(&out_dir.join("sweep.csv"))
    };
    let one = run("1");
    assert_eq!(one.len(), 6);
    assert_eq!(one, run("2"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_kernel_examples_run_and_report_their_flows() {
    let dir = temp_dir("cli-kernel-run");
    let (stdout, out_dir) = run_example(&dir, "pfc_incast.toml", 1000, 4000);
    assert!(stdout.contains("PAUSE frames sent"), "{stdout}");
    assert!(stdout.contains("flow 4"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("result.json")).unwrap())
            .unwrap();
    let run = json.get("run").unwrap_or(&json);
    assert_eq!(run["flows"].as_array().map(Vec::len), Some(5), "{run}");
    assert!(run["pauses"].as_u64().unwrap_or(0) > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flows_from_a_csv_file_run_as_the_same_flows_written_in_toml() {
    // examples/pfc_incast.toml with its five [[flows]] moved to a CSV file beside it: the
    // same run, line for line (speed aside); a bad row is reported at its line of the file.
    let dir = temp_dir("cli-kernel-flow-file");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let inline = std::fs::read_to_string(root.join("pfc_incast.toml")).unwrap();
    let cut = inline.find("[[flows]]").unwrap();
    let (head, flows) = inline.split_at(cut);
    let mut csv = String::from("# the incast and its victim\nsrc,dst\n");
    for table in flows.split("[[flows]]").skip(1) {
        let value = |key: &str| {
            let line = table.lines().find(|l| l.starts_with(key)).unwrap();
            line.split('=').nth(1).unwrap().trim().to_string()
        };
        csv.push_str(&format!("{},{}\n", value("src"), value("dst")));
    }
    assert_eq!(csv.lines().count(), 7, "{csv}");
    let sub = dir.join("conf");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("flows.csv"), &csv).unwrap();
    assert!(!head.contains("[nic]"));
    let with_file = format!("{head}[nic]\nflow_file = \"flows.csv\"\n");
    std::fs::write(sub.join("incast.toml"), &with_file).unwrap();
    let short = [
        "--set",
        "simulation.warmup_cycles=500",
        "--set",
        "simulation.measure_cycles=2000",
    ];
    let run = |config: &Path, name: &str| {
        let out_dir = dir.join(name);
        let mut args = vec!["run", config.to_str().unwrap()];
        args.extend(short);
        args.extend(["--out", out_dir.to_str().unwrap()]);
        let out = arcsim(&dir, &args);
        assert_success(&out, name);
        text(&out.stdout)
            .lines()
            .filter(|l| !l.starts_with("speed") && !l.starts_with("wrote"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let a = run(&root.join("pfc_incast.toml"), "inline");
    let b = run(&sub.join("incast.toml"), "file");
    assert!(a.contains("flow 4"), "{a}");
    assert_eq!(a, b);
    // The written configuration holds the flows inline.
    let written = std::fs::read_to_string(dir.join("file/config.toml")).unwrap();
    assert_eq!(written.matches("[[flows]]").count(), 5, "{written}");
    assert!(!written.contains("flow_file"));
    // A flow to a node that does not exist, on the file's fourth line.
    std::fs::write(sub.join("flows.csv"), "src,dst\n0,5\n\n1,99\n").unwrap();
    let out = arcsim(&dir, &["check", sub.join("incast.toml").to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("flows.csv:4") && err.contains("flows[1].dst") && err.contains("node 99"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_example_reads_its_anynet_file_from_its_own_directory() {
    // Run from another directory: the file named in the example is found next to it.
    let dir = temp_dir("cli-kernel-anynet");
    let (stdout, _) = run_example(&dir, "anynet_updown.toml", 500, 2000);
    assert!(
        stdout.contains("graph of 6 switches, 12 nodes, 8 links"),
        "{stdout}"
    );
    assert!(stdout.contains("up-down, least-loaded"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kernel_run_writes_ports_csv_and_link_classes() {
    let dir = temp_dir("cli-kernel-ports");
    let (stdout, out_dir) = run_example(&dir, "fat_tree_dmodk.toml", 200, 1000);
    assert!(stdout.contains("ports.csv"));
    let csv = std::fs::read_to_string(out_dir.join("ports.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "switch,port,class,level,peer,packets,phits,queued_with_credits,queued_without_credits"
        )
    );
    // 4-ary 3-tree: 16 switches of 8 ports a level, the top level's with 4.
    assert_eq!(lines.count(), 16 * 8 * 2 + 16 * 4);
    assert!(csv.contains(",up,1,") && csv.contains(",down,3,") && csv.contains(",node,1,"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("result.json")).unwrap())
            .unwrap();
    let classes = json["link_classes"].as_array().unwrap();
    assert!(classes
        .iter()
        .any(|c| c["class"] == "up" && c["level"] == 2 && c["utilisation"]["links"] == 64));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_qcn_example_reports_its_notifications_and_probabilities() {
    let dir = temp_dir("cli-kernel-qcn");
    let (stdout, out_dir) = run_example(&dir, "qcn_hotspot.toml", 5000, 20000);
    assert!(
        stdout.contains("qcn             QCN-SWout + Feedback comparison"),
        "{stdout}"
    );
    assert!(stdout.contains("qcn_probabilities.csv"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("result.json")).unwrap())
            .unwrap();
    let run = json.get("run").unwrap_or(&json);
    let q = &run["qcn"];
    assert!(q["cnms_sent"].as_u64().unwrap_or(0) > 0, "{q}");
    assert_eq!(run["control"]["sent"], q["cnms_sent"]);
    assert_eq!(
        json["config"]["qcn"]["th2"], 30,
        "the complete configuration has [qcn]"
    );
    // One row per series window (5000 cycles) and a column per transit port, 14 of them.
    let csv = std::fs::read_to_string(out_dir.join("qcn_probabilities.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("cycle,s0_p2,s0_p3,s1_p2"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[0].split(',').count(), 15);
    assert_eq!(lines.len(), 1 + 5, "{csv}");
    assert!(
        lines[5]
            .split(',')
            .skip(1)
            .any(|v| v.parse::<f64>().unwrap() < 100.0),
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
