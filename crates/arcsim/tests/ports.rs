//! Measurement per link class, per level and per output port on the general kernel: the
//! root and the branches of a congestion tree (the InfiniBand adaptive-routing paper's
//! §IV-B), and `up`/`down` classes by level on fat trees.

use arcsim::config::Config;
use arcsim::stats::summary::{ClassUse, PortUse};

fn run(text: &str) -> arcsim::RunResult {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::run(&c).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn port(r: &arcsim::RunResult, switch: u32, port: u32) -> &PortUse {
    r.ports
        .iter()
        .find(|p| p.switch == switch && p.port == port)
        .unwrap_or_else(|| panic!("no switch {switch} port {port}"))
}

fn class<'a>(r: &'a arcsim::RunResult, name: &str, level: Option<u32>) -> &'a ClassUse {
    r.link_classes
        .iter()
        .find(|c| c.class == name && c.level == level)
        .unwrap_or_else(|| panic!("no class {name} at {level:?}: {:?}", r.link_classes))
}

#[test]
fn a_hot_spot_has_its_root_at_the_hot_node_and_branches_upstream() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(root.join("rlft_c2_hotspot.toml")).unwrap();
    let r = run(&text);
    let window = 20_000;
    // Leaf 0's port to node 0 (the hot node): always sending, never short of credits.
    let hot = port(&r, 0, 0);
    assert_eq!(hot.class, "node");
    assert!(hot.queued_with_credits > window * 9 / 10, "{hot:?}");
    assert_eq!(hot.queued_without_credits, 0, "{hot:?}");
    assert!(hot.packets > 2000, "{hot:?}");
    // Root 0 (switch 4) brings every packet for node 0 down to leaf 0 under d-mod-k, at
    // the rate node 0 takes them: busy all the time, with credits.
    let down = port(&r, 4, 0);
    assert_eq!((down.class.as_str(), down.level), ("down", Some(2)));
    assert!(down.queued_with_credits > window * 9 / 10, "{down:?}");
    assert!(down.queued_without_credits < window / 10, "{down:?}");
    // Two inputs of root 0 share that port: leaf 1's uplink (its ports: nodes 3-5, then
    // roots 0, 1), with three flows to the hot node, and leaf 2's, with one: each gets half
    // and waits for credits the rest of the time (branches).
    for leaf in [1, 2] {
        let up = port(&r, leaf, 3);
        assert_eq!((up.class.as_str(), up.level), ("up", Some(1)));
        assert!(up.queued_without_credits > window * 4 / 10, "{up:?}");
        assert!(
            up.queued_with_credits + up.queued_without_credits > window * 9 / 10,
            "{up:?}"
        );
        assert!(up.phits.abs_diff(window / 2) < window / 20, "{up:?}");
    }
    // The victim's way (leaf 3 to root 1 to leaf 0) is not blocked for long.
    let victim = port(&r, 3, 4);
    assert!(victim.queued_without_credits < window / 10, "{victim:?}");
    // Packets per port agree with phits (8-phit packets).
    for p in &r.ports {
        assert!(p.phits.abs_diff(p.packets * 8) <= 8, "{p:?}");
    }
}

#[test]
fn fat_tree_links_are_up_and_down_by_level_and_the_dragonfly_keeps_local_and_global() {
    let r = run(
        "[topology]\nkind = \"tree\"\nlocal_latency = 2\n[topology.tree]\nk = 4\nn = 3\n\
         [switch]\nkind = \"cioq\"\n[router]\npacket_length = 4\nbuffer_local = 32\n\
         [traffic]\nload = 0.4\n[simulation]\nwarmup_cycles = 1000\nmeasure_cycles = 4000\n",
    );
    let names: Vec<(String, Option<u32>)> = r
        .link_classes
        .iter()
        .map(|c| (c.class.clone(), c.level))
        .collect();
    let want: Vec<(String, Option<u32>)> = [
        ("down", None),
        ("down", Some(2)),
        ("down", Some(3)),
        ("up", None),
        ("up", Some(1)),
        ("up", Some(2)),
    ]
    .iter()
    .map(|&(c, l)| (c.to_string(), l))
    .collect();
    assert_eq!(names, want);
    // 16 leaves of 4 up links, 16 middle switches of 4: 64 links a level and direction.
    assert_eq!(class(&r, "up", Some(1)).utilisation.links, 64);
    assert_eq!(class(&r, "up", None).utilisation.links, 128);
    // Uniform traffic: 60 of 63 destinations leave the leaf, 48 the middle level: up links
    // of level 1 carry 0.4 * 60/63, those of level 2 0.4 * 48/63, and down the same.
    let u1 = class(&r, "up", Some(1)).utilisation.mean;
    let d2 = class(&r, "down", Some(2)).utilisation.mean;
    assert!((u1 - 0.4 * 60.0 / 63.0).abs() < 0.02, "{u1}");
    assert!((d2 - 0.4 * 60.0 / 63.0).abs() < 0.02, "{d2}");
    let u2 = class(&r, "up", Some(2)).utilisation.mean;
    assert!((u2 - 0.4 * 48.0 / 63.0).abs() < 0.02, "{u2}");
    for c in &r.link_classes {
        let o = c.occupancy.unwrap();
        assert!(o > 0.0 && o < 1.0, "{c:?}");
        assert!((c.occupancy_phits / (32.0) - o).abs() < 1e-9, "{c:?}");
    }
    // The dragonfly on the kernel: local and global, no levels.
    let r = run(
        "[topology]\np = 2\na = 4\nh = 2\n[switch]\nkind = \"cioq\"\n\
         [traffic]\nload = 0.2\n[simulation]\nwarmup_cycles = 500\nmeasure_cycles = 2000\n",
    );
    let names: Vec<(&str, Option<u32>)> = r
        .link_classes
        .iter()
        .map(|c| (c.class.as_str(), c.level))
        .collect();
    assert_eq!(names, [("global", None), ("local", None)]);
    assert_eq!(class(&r, "local", None).utilisation, r.links.local);
    assert_eq!(class(&r, "global", None).utilisation, r.links.global);
}

#[test]
fn per_window_port_counters_are_the_general_kernels_only() {
    // The input-queued dragonfly engine has no per-port counters: the key is refused,
    // naming it.
    let c = Config::from_toml_str("[simulation]\nport_series_window = 100\n").unwrap();
    let e = arcsim::validate(&c).unwrap_err().to_string();
    assert!(
        e.contains("simulation.port_series_window") && e.contains("cioq"),
        "{e}"
    );
}
