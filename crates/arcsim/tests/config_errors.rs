//! Bad configurations are rejected before any simulation, with a message that names the
//! offending field and says what is allowed.

use arcsim::config::{apply_override, Config, DEFAULT_TOML};
use arcsim::ConfigError;

/// Parse and validate a TOML document (keys not given take the built-in defaults).
fn check_toml(text: &str) -> Result<Config, ConfigError> {
    let cfg = Config::from_toml_str(text)?;
    arcsim::validate(&cfg)?;
    Ok(cfg)
}

/// The embedded default with `--set` overrides, deserialised and validated.
fn check_sets(sets: &[&str]) -> Result<Config, ConfigError> {
    let mut tree: toml::Value = toml::from_str(DEFAULT_TOML).unwrap();
    for s in sets {
        apply_override(&mut tree, s)?;
    }
    let cfg = Config::from_value(tree)?;
    arcsim::validate(&cfg)?;
    Ok(cfg)
}

/// The result must be a field error for `field` whose message contains every hint.
fn expect_field(result: Result<Config, ConfigError>, field: &str, hints: &[&str]) {
    let err = match result {
        Ok(_) => panic!("accepted, but `{field}` is invalid"),
        Err(e) => e,
    };
    let text = err.to_string();
    match &err {
        ConfigError::Field { field: f, .. } => {
            assert_eq!(f, field, "wrong field named in: {text}")
        }
        other => panic!("expected an error about `{field}`, got {other:?}"),
    }
    assert!(
        text.contains(field),
        "message does not name `{field}`: {text}"
    );
    for h in hints {
        assert!(text.contains(h), "message lacks hint {h:?}: {text}");
    }
}

#[test]
fn valid_configurations_pass() {
    // Controls: the checks below fail for the stated reason, not because everything fails.
    arcsim::validate(&Config::embedded_default()).unwrap();
    check_toml("").unwrap();
    check_toml("[topology]\np = 2\na = 4\nh = 2\n[traffic]\nload = 1.0").unwrap();
    check_sets(&[
        "routing.algorithm=val",
        "router.vcs_local=3",
        "traffic.load=1",
    ])
    .unwrap();
    check_sets(&[
        "topology.groups=73",
        "traffic.pattern=adv-global",
        "traffic.offset=72",
    ])
    .unwrap();
}

#[test]
fn unknown_top_level_key() {
    expect_field(
        check_toml("[bogus]\nx = 1"),
        "bogus",
        &[
            "unknown field",
            "topology",
            "router",
            "routing",
            "traffic",
            "simulation",
        ],
    );
    expect_field(
        check_toml("seed = 3"),
        "seed",
        &["unknown field", "simulation"],
    );
}

#[test]
fn unknown_nested_key() {
    expect_field(
        check_toml("[topology]\nq = 3"),
        "topology.q",
        &["unknown field `q`", "`p`", "`a`", "`h`", "`groups`"],
    );
    expect_field(
        check_toml("[router]\nbuffer_size = 32"),
        "router.buffer_size",
        &["buffer_local", "buffer_global"],
    );
}

#[test]
fn wrong_type() {
    expect_field(
        check_toml("[topology]\np = \"six\""),
        "topology.p",
        &[
            "invalid type",
            "\"six\"",
            "expected a whole number, 0 or more",
        ],
    );
    expect_field(
        check_toml("[traffic]\nload = \"high\""),
        "traffic.load",
        &["invalid type", "expected a number"],
    );
    expect_field(
        check_toml("[topology]\np = -3"),
        "topology.p",
        &["-3", "expected a whole number, 0 or more"],
    );
}

#[test]
fn too_many_groups() {
    expect_field(
        check_toml("[topology]\na = 4\nh = 2\ngroups = 10"),
        "topology.groups",
        &["10", "2..=9", "a*h+1"],
    );
}

#[test]
fn one_group() {
    expect_field(
        check_toml("[topology]\ngroups = 1"),
        "topology.groups",
        &["2..=73", "0 for the maximum"],
    );
}

#[test]
fn zero_terminals_or_routers() {
    expect_field(
        check_toml("[topology]\np = 0"),
        "topology.p",
        &["at least 1"],
    );
    expect_field(
        check_toml("[topology]\na = 0"),
        "topology.a",
        &["at least 1"],
    );
    expect_field(
        check_toml("[topology]\nh = 0"),
        "topology.h",
        &["at least 1"],
    );
}

#[test]
fn load_out_of_range() {
    for (load, shown) in [("0.0", "0 "), ("1.5", "1.5"), ("-0.2", "-0.2")] {
        expect_field(
            check_toml(&format!("[traffic]\nload = {load}")),
            "traffic.load",
            &[shown, "(0, 1]"],
        );
    }
    expect_field(check_sets(&["traffic.load=2"]), "traffic.load", &["(0, 1]"]);
}

#[test]
fn buffer_smaller_than_a_packet() {
    expect_field(
        check_toml("[router]\nbuffer_local = 4"),
        "router.buffer_local",
        &["4 phits", "packet of 8 phits", "at least 8"],
    );
    expect_field(
        check_toml("[router]\npacket_length = 16\nbuffer_local = 32\nbuffer_global = 8"),
        "router.buffer_global",
        &["at least 16"],
    );
}

#[test]
fn too_few_vcs_for_the_routing() {
    expect_field(
        check_toml("[routing]\nalgorithm = \"val\"\n[router]\nvcs_local = 2"),
        "router.vcs_local",
        &["\"val\"", "needs 3 local VCs", ">= 3"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=val-any",
            "router.vcs_local=4",
            "router.vcs_global=1",
        ]),
        "router.vcs_global",
        &["needs 2 global VCs"],
    );
    // Unordered VCs are explicitly allowed to be deadlock-prone.
    check_sets(&[
        "routing.algorithm=val",
        "router.vcs_local=1",
        "routing.ordered_vcs=false",
    ])
    .unwrap();
}

#[test]
fn adversarial_offset_multiple_of_groups() {
    expect_field(
        check_toml("[traffic]\npattern = \"adv-global\"\noffset = 146"),
        "traffic.offset",
        &["ADVG+146", "73 groups", "not a multiple of 73"],
    );
    expect_field(
        check_sets(&[
            "topology.p=2",
            "topology.a=4",
            "topology.h=2",
            "traffic.pattern=adv-global",
            "traffic.offset=9",
        ]),
        "traffic.offset",
        &["not a multiple of 9"],
    );
    expect_field(
        check_toml("[traffic]\npattern = \"adv-local\"\noffset = 24"),
        "traffic.offset",
        &["ADVL+24", "not a multiple of 12"],
    );
    // The default network has 5,256 nodes: a shift by all of them goes nowhere.
    expect_field(
        check_toml("[traffic]\npattern = \"shift\"\noffset = 5256"),
        "traffic.offset",
        &["SHIFT+5256", "5256 nodes", "not a multiple of 5256"],
    );
    expect_field(
        check_toml("[traffic]\nmix = [{ pattern = \"shift\", offset = 0, weight = 1.0 }]"),
        "traffic.mix[0]",
        &["SHIFT+0"],
    );
}

#[test]
fn allocator_iterations_zero() {
    expect_field(
        check_toml("[router]\nallocator_iterations = 0"),
        "router.allocator_iterations",
        &["1..=16"],
    );
}

#[test]
fn watchdog_shorter_than_a_hop() {
    expect_field(
        check_toml("[topology]\nglobal_latency = 200\n[simulation]\nwatchdog_cycles = 150"),
        "simulation.watchdog_cycles",
        &["150", "208", "shorter than one hop"],
    );
}

#[test]
fn measure_cycles_zero() {
    expect_field(
        check_toml("[simulation]\nmeasure_cycles = 0"),
        "simulation.measure_cycles",
        &["at least 1"],
    );
}

/// A misspelt key or name, or one written as the papers write it, gets the intended one
/// before serde's list of every allowed one.
#[test]
fn misspelt_names_get_a_hint() {
    expect_field(
        check_toml("[routing]\nalgoritm = \"ofar\""),
        "routing.algoritm",
        &["unknown field `algoritm` (did you mean `algorithm`?), expected one of"],
    );
    expect_field(
        check_sets(&["routing.algorithm=OFAR-L"]),
        "routing.algorithm",
        &["unknown variant `OFAR-L` (did you mean `ofar-l`?)"],
    );
    expect_field(
        check_sets(&["traffic.pattern=ADVG+6"]),
        "traffic.pattern",
        &[
            "ADVG+6 is pattern = \"adv-global\" with offset = 6",
            "expected one of",
        ],
    );
    expect_field(
        check_toml("[traffic]\nmix = [{ pattern = \"UN\", weight = 1 }]"),
        "traffic.mix[0].pattern",
        &["did you mean `uniform`?"],
    );
    // Nothing close: serde's message alone.
    let text = check_sets(&["routing.algorithm=booksim"])
        .unwrap_err()
        .to_string();
    assert!(!text.contains("did you mean"), "{text}");
}

/// Every key of every section, misspelt by one dropped letter, is the key the hint names, even
/// where another key is a prefix of it (`escape` of `escape_entry_limit`).
#[test]
fn every_key_with_a_letter_dropped_gets_itself_as_the_hint() {
    for section in ["topology", "router", "routing", "traffic", "simulation"] {
        // serde lists the section's keys when it meets one it does not know.
        let text = check_toml(&format!("[{section}]\nzzzz = 1"))
            .unwrap_err()
            .to_string();
        let list = text.split("expected one of ").nth(1).unwrap_or_else(|| {
            panic!("no key list for [{section}]: {text}");
        });
        let keys: Vec<&str> = list
            .lines()
            .next()
            .unwrap()
            .split(", ")
            .map(|k| k.trim_matches('`'))
            .collect();
        assert!(keys.len() >= 5, "[{section}]: {keys:?}");
        for key in &keys {
            // Drop the letter after the first third of the key: a typo, not a prefix.
            let at = key.len() / 3 + 1;
            if at >= key.len() || key.len() < 4 {
                continue;
            }
            let typo = format!("{}{}", &key[..at], &key[at + 1..]);
            let text = check_toml(&format!("[{section}]\n{typo} = 1"))
                .unwrap_err()
                .to_string();
            assert!(
                text.contains(&format!("(did you mean `{key}`?)")),
                "[{section}] {typo}: {text}"
            );
        }
    }
}

#[test]
fn unknown_routing_name() {
    expect_field(
        check_toml("[routing]\nalgorithm = \"ofarx\""),
        "routing.algorithm",
        &[
            "unknown variant `ofarx`",
            "`min`",
            "`val`",
            "`val-any`",
            "`ugal-l`",
        ],
    );
    expect_field(
        check_sets(&["traffic.pattern=tornado"]),
        "traffic.pattern",
        &["`tornado`", "`uniform`", "`adv-global`"],
    );
    expect_field(
        check_sets(&["router.credit_return=flit"]),
        "router.credit_return",
        &["`flit`", "`phit`", "`packet`"],
    );
    // OFAR's readings of section 3.2 name what they accept too.
    expect_field(
        check_sets(&["routing.occupancy=queue"]),
        "routing.occupancy",
        &["`queue`", "`vc`", "`port`"],
    );
    expect_field(
        check_sets(&["routing.busy_minimal=yes"]),
        "routing.busy_minimal",
        &["`yes`", "`misroute`", "`wait`"],
    );
    expect_field(
        check_sets(&["routing.ring_direction=clockwise"]),
        "routing.ring_direction",
        &["`clockwise`", "`ascending`", "`descending`"],
    );
}

#[test]
fn malformed_toml() {
    let err = check_toml("[topology\np = 3").unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ConfigError::Syntax(_)), "{err:?}");
    assert!(text.contains("invalid TOML"), "{text}");
    assert!(text.contains("line 1"), "no position in: {text}");
    let err = check_toml("[traffic]\nload = 0.5\nload = 0.6").unwrap_err();
    assert!(
        matches!(err, ConfigError::Syntax(_)),
        "duplicate key: {err:?}"
    );
    assert!(err.to_string().contains("line 3"), "{err}");
}

#[test]
fn other_ranges() {
    expect_field(
        check_toml("[router]\npacket_length = 0"),
        "router.packet_length",
        &["1..=4096"],
    );
    expect_field(
        check_toml("[router]\nvcs_local = 17"),
        "router.vcs_local",
        &["1..=16"],
    );
    expect_field(
        check_toml("[topology]\nlocal_latency = 0"),
        "topology.local_latency",
        &["1..=10000"],
    );
    expect_field(
        check_toml("[[traffic.mix]]\npattern = \"uniform\"\nweight = 0.0"),
        "traffic.mix",
        &["positive weight"],
    );
    expect_field(
        check_toml("[traffic]\npattern = \"hot-spot\"\nhot_nodes = 0"),
        "traffic.hot_nodes",
        &["1..5256"],
    );
    expect_field(
        check_toml("[router]\nbuffer_global = 70000"),
        "router.buffer_global",
        &["65535 phits"],
    );
    expect_field(
        check_toml("[simulation]\nwarmup_cycles = 3000000000\nmeasure_cycles = 2000000000"),
        "simulation.measure_cycles",
        &["4000000000"],
    );
    expect_field(
        check_toml("[simulation]\nmax_cycles = 5000000000"),
        "simulation.max_cycles",
        &["4000000000"],
    );
}

#[test]
fn all_to_all_cannot_be_mixed() {
    // Alone it is valid, in Bernoulli and in burst mode.
    check_sets(&["traffic.pattern=all-to-all"]).unwrap();
    check_sets(&["traffic.pattern=all-to-all", "traffic.burst_packets=5255"]).unwrap();
    expect_field(
        check_toml(
            "[[traffic.mix]]\npattern = \"uniform\"\nweight = 50\n[[traffic.mix]]\npattern = \"all-to-all\"\nweight = 50",
        ),
        "traffic.mix[1]",
        &["all-to-all", "mixture", "traffic.pattern = \"all-to-all\""],
    );
    expect_field(
        check_toml(
            "[traffic.change]\nat_cycle = 100\nmix = [{ pattern = \"all-to-all\", weight = 1 }]",
        ),
        "traffic.change.mix[0]",
        &["all-to-all", "mixture"],
    );
}

#[test]
fn all_to_all_order_needs_the_all_to_all_pattern() {
    let asc = "traffic.all_to_all_order=ascending";
    check_sets(&["traffic.pattern=all-to-all", asc]).unwrap();
    check_sets(&[
        "traffic.pattern=uniform",
        "traffic.all_to_all_order=staggered",
    ])
    .unwrap();
    // A change to all-to-all, or a change of load only during one.
    check_toml("[traffic]\nall_to_all_order = \"ascending\"\n[traffic.change]\nat_cycle = 100\npattern = \"all-to-all\"").unwrap();
    check_toml("[traffic]\npattern = \"all-to-all\"\nall_to_all_order = \"ascending\"\n[traffic.change]\nat_cycle = 100\nload = 0.2").unwrap();
    let hint = [
        "applies only to the all-to-all pattern",
        "traffic.pattern = \"all-to-all\"",
    ];
    expect_field(check_sets(&[asc]), "traffic.all_to_all_order", &hint);
    // A mixture replaces the pattern, also when the pattern names all-to-all.
    expect_field(
        check_toml("[traffic]\npattern = \"all-to-all\"\nall_to_all_order = \"ascending\"\nmix = [{ pattern = \"uniform\", weight = 1 }]"),
        "traffic.all_to_all_order",
        &hint,
    );
    // A change away from all-to-all leaves it in the first phase: valid.
    check_toml("[traffic]\npattern = \"all-to-all\"\nall_to_all_order = \"ascending\"\n[traffic.change]\nat_cycle = 100\npattern = \"uniform\"").unwrap();
    expect_field(
        check_sets(&["traffic.all_to_all_order=backwards"]),
        "traffic.all_to_all_order",
        &["staggered", "ascending"],
    );
}

#[test]
fn set_overrides_are_checked_like_files() {
    expect_field(
        check_sets(&["topology.q=3"]),
        "topology.q",
        &["unknown field `q`", "`h`"],
    );
    expect_field(
        check_sets(&["traffic.load=abc"]),
        "traffic.load",
        &["\"abc\"", "expected a number"],
    );
    expect_field(
        check_sets(&["simulation.bogus=1"]),
        "simulation.bogus",
        &["unknown field"],
    );
    // Malformed assignments.
    for (set, hint) in [
        ("topology", "KEY=VALUE"),
        ("=3", "dotted path"),
        ("topology..h=3", "dotted path"),
        ("topology.p.x=3", "'topology.p' is not a table"),
    ] {
        let err = check_sets(&[set]).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, ConfigError::Override { .. }),
            "--set {set}: {err:?}"
        );
        assert!(
            text.contains(set),
            "--set {set}: message does not quote it: {text}"
        );
        assert!(text.contains(hint), "--set {set}: lacks {hint:?}: {text}");
    }
}

#[test]
fn bcm_bubbles_must_fit_their_buffers() {
    let ofar_bcm = ["routing.algorithm=ofar", "routing.congestion=bcm"];
    check_sets(&[&ofar_bcm[..], &["routing.bcm_bubble_global=16"]].concat()).unwrap();
    expect_field(
        check_sets(&[&ofar_bcm[..], &["router.buffer_local=16"]].concat()),
        "router.buffer_local",
        &["routing.bcm_bubble", "24 phits"],
    );
    expect_field(
        check_sets(&[&ofar_bcm[..], &["routing.bcm_bubble_global=40"]].concat()),
        "router.buffer_global",
        &["routing.bcm_bubble_global", "328 phits"],
    );
}

#[test]
fn absurd_topology_sizes_are_rejected_not_wrapped() {
    // p + a - 1 + h used to overflow (a panic, or a small radix after wrapping around).
    expect_field(
        check_sets(&[
            "topology.p=9223372036854775807",
            "topology.a=9223372036854775807",
            "topology.h=4",
        ]),
        "topology",
        &["18446744073709551617", "maximum of 64", "h = 4"],
    );
    expect_field(
        check_sets(&[
            "topology.a=9223372036854775807",
            "topology.h=9223372036854775807",
        ]),
        "topology",
        &["exceeds the supported maximum of 64"],
    );
}

#[test]
fn huge_bcm_bubbles_do_not_wrap_around() {
    // (bubble + 1) * packet_length in u32 wrapped to a small number: 2^29 packets of 8 phits
    // passed as 8 phits and BCM silently reserved nothing; u32::MAX blocked every injection.
    let ofar_bcm = ["routing.algorithm=ofar", "routing.congestion=bcm"];
    expect_field(
        check_sets(&[&ofar_bcm[..], &["routing.bcm_bubble=536870912"]].concat()),
        "router.buffer_local",
        &[
            "536870912 packets",
            "4294967304 phits",
            "routing.bcm_bubble",
        ],
    );
    expect_field(
        check_sets(&[&ofar_bcm[..], &["routing.bcm_bubble=4294967295"]].concat()),
        "router.buffer_local",
        &["4294967295 packets"],
    );
    expect_field(
        check_sets(&[&ofar_bcm[..], &["routing.bcm_bubble_global=536870912"]].concat()),
        "router.buffer_global",
        &["routing.bcm_bubble_global", "4294967304 phits"],
    );
}

#[test]
fn mix_weights_must_have_a_finite_sum() {
    // Each weight is finite, their sum is not: every share would be 0.
    expect_field(
        check_sets(&[
            "traffic.mix=[{pattern=\"uniform\", weight=1e308}, {pattern=\"adv-global\", offset=1, weight=1e308}]",
        ]),
        "traffic.mix",
        &["largest float", "smaller weights"],
    );
    expect_field(
        check_sets(&["traffic.mix=[{pattern=\"uniform\", weight=-2}]"]),
        "traffic.mix[0].weight",
        &["-2", ">= 0"],
    );
}

#[test]
fn ugal_threshold_must_be_a_number() {
    // NaN made every comparison false, so UGAL-L and PB silently always took one path.
    for alg in ["ugal-l", "pb", "min"] {
        expect_field(
            check_sets(&[
                &format!("routing.algorithm={alg}"),
                "routing.ugal_threshold=nan",
            ]),
            "routing.ugal_threshold",
            &["NaN", "inf"],
        );
    }
    check_sets(&["routing.algorithm=ugal-l", "routing.ugal_threshold=-inf"]).unwrap();
    check_sets(&["routing.algorithm=ugal-l", "routing.ugal_threshold=inf"]).unwrap();
}

#[test]
fn burst_must_fit_in_max_cycles() {
    // burst_packets * nodes used to wrap around (a burst of 256204778801521551 packets per
    // node on 72 nodes ended after 56 packets); a burst that cannot be injected within
    // max_cycles only failed after running to max_cycles.
    let small = ["topology.p=2", "topology.a=4", "topology.h=2"];
    expect_field(
        check_sets(&[&small[..], &["traffic.burst_packets=256204778801521551"]].concat()),
        "traffic.burst_packets",
        &[
            "256204778801521551 packets",
            "simulation.max_cycles = 10000000",
            "1250000",
        ],
    );
    expect_field(
        check_sets(&["traffic.burst_packets=100", "simulation.max_cycles=799"]),
        "traffic.burst_packets",
        &[
            "at least 800 cycles",
            "max_cycles = 799",
            "up to 99 packets",
        ],
    );
    check_sets(&["traffic.burst_packets=1250000"]).unwrap();
    check_sets(&["traffic.burst_packets=100", "simulation.max_cycles=800"]).unwrap();
}

#[test]
fn burst_generation_at_a_load_needs_a_burst_that_fits() {
    let load = "traffic.burst_generation=load";
    expect_field(
        check_sets(&[load]),
        "traffic.burst_generation",
        &["applies only to bursts", "traffic.burst_packets > 0"],
    );
    // 100 packets of 8 phits at load 0.5 take 1,600 cycles on average.
    let burst = ["traffic.burst_packets=100", "traffic.load=0.5", load];
    check_sets(&[&burst[..], &["simulation.max_cycles=1600"]].concat()).unwrap();
    expect_field(
        check_sets(&[&burst[..], &["simulation.max_cycles=1599"]].concat()),
        "traffic.burst_packets",
        &[
            "traffic.load = 0.5",
            "1600 cycles on average",
            "max_cycles = 1599",
        ],
    );
    // Filling the queues, the same burst fits in 800 cycles.
    check_sets(&[
        "traffic.burst_packets=100",
        "traffic.load=0.5",
        "simulation.max_cycles=800",
    ])
    .unwrap();
    expect_field(
        check_sets(&["traffic.burst_generation=steady"]),
        "traffic.burst_generation",
        &["fill", "load"],
    );
}

#[test]
fn lrs_update_on_request_needs_the_lrs_arbiter_and_fitting_stamps() {
    expect_field(
        check_sets(&["router.lrs_update=request", "router.arbiter=age"]),
        "router.lrs_update",
        &["\"age\"", "router.arbiter = \"lrs\""],
    );
    expect_field(
        check_sets(&[
            "router.lrs_update=request",
            "simulation.max_cycles=300000000",
        ]),
        "simulation.max_cycles",
        &["300000000 cycles", "268435454"],
    );
    expect_field(
        check_sets(&[
            "router.lrs_update=request",
            "simulation.warmup_cycles=200000000",
            "simulation.measure_cycles=100000000",
        ]),
        "simulation.measure_cycles",
        &["300000000 cycles"],
    );
    check_sets(&["router.lrs_update=request"]).unwrap();
    check_sets(&["router.arbiter=age", "simulation.max_cycles=300000000"]).unwrap();
}

#[test]
fn range_errors_say_what_was_given() {
    for (set, field, given) in [
        (
            "router.allocator_iterations=17",
            "router.allocator_iterations",
            "17 is out of range",
        ),
        (
            "simulation.repetitions=0",
            "simulation.repetitions",
            "0 is out of range",
        ),
        (
            "simulation.watchdog_cycles=50",
            "simulation.watchdog_cycles",
            "50 cycles",
        ),
        (
            "routing.misroute_threshold=1.5",
            "routing.misroute_threshold",
            "1.5 is outside [0, 1]",
        ),
        (
            "routing.ecm_threshold=-0.5",
            "routing.ecm_threshold",
            "-0.5 is outside [0, 1]",
        ),
        (
            "routing.mml_min_occupancy=2",
            "routing.mml_min_occupancy",
            "2 is outside [0, 1]",
        ),
        (
            "routing.busy_wait_max=1.5",
            "routing.busy_wait_max",
            "1.5 is outside [0, 1]",
        ),
        (
            "routing.busy_wait_max=nan",
            "routing.busy_wait_max",
            "NaN is outside [0, 1]",
        ),
        ("routing.pb_factor=0.5", "routing.pb_factor", "0.5"),
        ("routing.pb_margin=-1", "routing.pb_margin", "-1"),
        (
            "topology.terminal_latency=10001",
            "topology.terminal_latency",
            "10001 cycles",
        ),
    ] {
        expect_field(check_sets(&[set]), field, &[given]);
    }
    expect_field(
        check_sets(&["routing.algorithm=ofar", "routing.ecm_rule=any"]),
        "routing.ecm_rule",
        &["congestion = \"ecm\""],
    );
    expect_field(
        check_sets(&["routing.algorithm=ofar", "routing.bcm_escape=true"]),
        "routing.bcm_escape",
        &["congestion = \"bcm\""],
    );
    expect_field(
        check_sets(&["routing.algorithm=ofar", "routing.ecm_buffers=downstream"]),
        "routing.ecm_buffers",
        &["congestion = \"ecm\""],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.escape=none",
            "routing.escape_patience=32",
        ]),
        "routing.escape_patience",
        &["escape = \"none\"", "drop escape_patience"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.escape=none",
            "routing.escape_from_injection=false",
        ]),
        "routing.escape_from_injection",
        &["escape = \"none\"", "drop escape_from_injection"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.escape=none",
            "routing.mml_from_escape=true",
        ]),
        "routing.mml_from_escape",
        &["escape = \"none\"", "drop mml_from_escape"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.escape=none",
            "routing.escape_entry_limit=15",
        ]),
        "routing.escape_entry_limit",
        &["escape = \"none\"", "drop escape_entry_limit"],
    );
    // A packet counts its entries in 8 bits (the OFAR paper's example counter has 4: 15).
    expect_field(
        check_sets(&["routing.algorithm=ofar", "routing.escape_entry_limit=256"]),
        "routing.escape_entry_limit",
        &[
            "256 is above the 255 entries",
            "use 1 to 255",
            "0 for no limit",
        ],
    );
    assert!(check_sets(&["routing.algorithm=ofar", "routing.escape_entry_limit=255"]).is_ok());
    // Like the other OFAR keys, ignored by the other algorithms (one base file serves every
    // curve of a figure) but still range-checked.
    assert!(check_sets(&["routing.misroute_congested_global={ factor = 1.5 }"]).is_ok());
    expect_field(
        check_sets(&["routing.misroute_congested_global={ factor = nan }"]),
        "routing.misroute_congested_global.factor",
        &["NaN is not allowed"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.misroute_congested_global={ factor = -1.0 }",
        ]),
        "routing.misroute_congested_global.factor",
        &["-1 is not allowed", ">= 0"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.misroute_congested_global={ packets = inf }",
        ]),
        "routing.misroute_congested_global.packets",
        &["inf is not allowed"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.misroute_congested_global={ coef = 1.5 }",
        ]),
        "routing.misroute_congested_global.coef",
        &["unknown field `coef`", "`factor`", "`packets`", "`all_vcs`"],
    );
    expect_field(
        check_sets(&[
            "routing.algorithm=ofar",
            "routing.misroute_congested_global={ all_vcs = \"yes\" }",
        ]),
        "routing.misroute_congested_global.all_vcs",
        &["boolean"],
    );
    // `false` switches the restriction off, `true` and `{}` give its defaults (no margin);
    // a configuration written with it off says `false` and reads back the same.
    let off = check_sets(&[
        "routing.algorithm=ofar",
        "routing.misroute_congested_global=false",
    ])
    .unwrap();
    assert_eq!(off.routing.misroute_congested_global, None);
    let written = off.to_toml_string().unwrap();
    assert!(
        written.contains("misroute_congested_global = false"),
        "{written}"
    );
    assert_eq!(check_toml(&written).unwrap(), off);
    let on = check_sets(&["routing.misroute_congested_global=true"]).unwrap();
    let empty = check_sets(&["routing.misroute_congested_global={}"]).unwrap();
    let default = Config::embedded_default().routing.misroute_congested_global;
    assert_eq!(on.routing.misroute_congested_global, default);
    assert_eq!(empty.routing.misroute_congested_global, default);
    let d = default.expect("on by default");
    assert_eq!((d.factor, d.packets, d.all_vcs), (1.5, 0.0, false));
    expect_field(
        check_sets(&["routing.misroute_congested_global=3"]),
        "routing.misroute_congested_global",
        &["expected false, true or a table"],
    );
    expect_field(
        check_sets(&["routing.escape_patience=-1"]),
        "routing.escape_patience",
        &[],
    );
    expect_field(
        check_sets(&["traffic.pattern=hot-spot", "traffic.hot_fraction=1.5"]),
        "traffic.hot_fraction",
        &["1.5 is outside [0, 1]"],
    );
}

/// Keys of one routing set together with another are not errors (a figure's curves share a
/// base that sets the keys of every routing it compares) but are listed, with the reason, for
/// the command line to warn about.
#[test]
fn keys_the_routing_does_not_read_are_listed() {
    let unused = |sets: &[&str]| -> Vec<&'static str> {
        check_sets(sets)
            .expect("valid")
            .routing
            .unused_keys()
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    };
    // The embedded default sets nothing it does not read.
    assert!(unused(&[]).is_empty());
    assert_eq!(unused(&["routing.rings=[\"b\"]"]), ["routing.rings"]);
    let why = check_sets(&["routing.rings=[\"b\"]"])
        .unwrap()
        .routing
        .unused_keys();
    assert!(why[0].1.contains("only OFAR and OFAR-L") && why[0].1.contains("\"min\""));
    assert_eq!(
        unused(&[
            "routing.algorithm=ofar",
            "routing.pb_factor=3",
            "routing.ugal_threshold=5"
        ]),
        ["routing.ugal_threshold", "routing.pb_factor"]
    );
    assert_eq!(
        unused(&["routing.algorithm=pb", "routing.pb_factor=3"]),
        [""; 0]
    );
    // FOGSim's Valiant node: VAL and VAL-any read it, PB has its own.
    for alg in ["val", "val-any"] {
        let a = format!("routing.algorithm={alg}");
        assert_eq!(
            unused(&[a.as_str(), "routing.valiant_model=fogsim"]),
            [""; 0]
        );
    }
    assert_eq!(
        unused(&["routing.algorithm=pb", "routing.valiant_model=fogsim"]),
        ["routing.valiant_model"]
    );
    expect_field(
        check_sets(&["routing.algorithm=val", "routing.valiant_model=booksim"]),
        "routing.valiant_model",
        &["unknown variant `booksim`", "`reference`", "`fogsim`"],
    );
    // Within OFAR: ring keys with the tree, tree keys with a ring, BCM keys with ECM.
    assert_eq!(
        unused(&[
            "routing.algorithm=ofar",
            "routing.escape=tree",
            "routing.ring_direction=both",
            "routing.congestion=ecm",
            "routing.bcm_bubble=3",
            "routing.ecm_threshold=0.5",
        ]),
        ["routing.ring_direction", "routing.bcm_bubble"]
    );
    assert_eq!(
        unused(&["routing.algorithm=ofar", "routing.tree_root=5"]),
        ["routing.tree_root"]
    );
    // MM+L's keys: read by OFAR, by OFAR-L only with ofar_l_mml.
    assert!(unused(&["routing.algorithm=ofar", "routing.mml_commit=false"]).is_empty());
    assert_eq!(
        unused(&[
            "routing.algorithm=ofar-l",
            "routing.ofar_l_mml=false",
            "routing.mml_commit=false"
        ]),
        ["routing.mml_commit"]
    );
    assert!(unused(&["routing.algorithm=ofar-l", "routing.mml_commit=false"]).is_empty());
    assert_eq!(
        unused(&["routing.algorithm=ofar", "routing.ofar_l_mml=false"]),
        ["routing.ofar_l_mml"]
    );
    // The OFAR paper's base sets the keys of every routing of its figures: PB ignores OFAR's,
    // OFAR ignores PB's, and each reads its own.
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/ofar/base.toml"
    ))
    .unwrap();
    let with = |alg: &str| {
        let mut cfg = check_toml(&base).expect("base.toml is valid");
        cfg.routing.algorithm = match alg {
            "pb" => arcsim::config::RoutingAlgorithm::Pb,
            _ => arcsim::config::RoutingAlgorithm::Ofar,
        };
        cfg.routing.unused_keys()
    };
    let pb = with("pb");
    assert!(pb.iter().any(|(k, _)| *k == "routing.ring_direction"));
    assert!(pb.iter().all(|(k, _)| !k.starts_with("routing.pb_")));
    let ofar = with("ofar");
    assert!(ofar.iter().any(|(k, _)| *k == "routing.pb_margin"));
    // ... and ofar_l_mml, which only OFAR-L reads.
    assert!(
        ofar.iter()
            .all(|(k, _)| k.starts_with("routing.pb_") || *k == "routing.ofar_l_mml"),
        "{ofar:?}"
    );
}

/// Traffic keys that no phase of the run reads are listed too: an offset with a pattern that
/// takes none, a pattern or offset beside the mixture that replaces them, hot-spot keys
/// without the hot-spot pattern, a load in a burst that fills the queues.
#[test]
fn traffic_keys_the_run_does_not_read_are_listed() {
    let unused = |sets: &[&str]| -> Vec<&'static str> {
        check_sets(sets)
            .expect("valid")
            .unused_keys()
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    };
    let why = |sets: &[&str], key: &str| -> String {
        let cfg = check_sets(sets).expect("valid");
        cfg.unused_keys()
            .into_iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("{key} not listed for {sets:?}"))
            .1
    };
    // Read: each pattern that takes an offset.
    for p in ["adv-global", "adv-local", "shift"] {
        let pattern = format!("traffic.pattern={p}");
        assert!(unused(&[&pattern, "traffic.offset=5"]).is_empty(), "{p}");
    }
    // Not read: the others.
    for p in ["uniform", "hot-region", "permutation", "all-to-all"] {
        let pattern = format!("traffic.pattern={p}");
        assert_eq!(
            unused(&[&pattern, "traffic.offset=5"]),
            ["traffic.offset"],
            "{p}"
        );
    }
    let text = why(&["traffic.offset=6"], "traffic.offset");
    assert!(
        text.contains("only adv-global, adv-local and shift") && text.contains("\"uniform\""),
        "{text}"
    );
    // Left at its default, the offset is not reported.
    assert!(unused(&["traffic.offset=1"]).is_empty());
    // A change that keeps the run's offset reads it; one with its own offset does not.
    assert!(unused(&[
        "traffic.offset=3",
        "traffic.change={at_cycle=10, pattern=\"adv-global\"}"
    ])
    .is_empty());
    assert_eq!(
        unused(&[
            "traffic.offset=3",
            "traffic.change={at_cycle=10, pattern=\"adv-global\", offset=2}"
        ]),
        ["traffic.offset"]
    );
    // The change's own offset with a pattern that takes none.
    assert_eq!(
        unused(&[
            "traffic.pattern=adv-global",
            "traffic.change={at_cycle=10, pattern=\"uniform\", offset=2}"
        ]),
        ["traffic.change.offset"]
    );
    // A mixture replaces the pattern and offset; an entry's offset is read only by its pattern.
    let mix = "traffic.mix=[{pattern=\"uniform\", weight=1, offset=4}, {pattern=\"adv-global\", offset=4, weight=1}]";
    assert_eq!(
        unused(&["traffic.pattern=adv-global", "traffic.offset=2", mix]),
        ["traffic.pattern", "traffic.offset", "traffic.mix"]
    );
    let text = why(&[mix], "traffic.mix");
    assert!(
        text.contains("entry 0 (uniform) sets offset = 4") && !text.contains("entry 1"),
        "{text}"
    );
    // Hot-spot keys: read by the hot-spot pattern, alone, in a mixture or after a change.
    assert_eq!(unused(&["traffic.hot_nodes=3"]), ["traffic.hot_nodes"]);
    assert!(unused(&["traffic.pattern=hot-spot", "traffic.hot_fraction=0.3"]).is_empty());
    assert!(unused(&[
        "traffic.hot_fraction=0.3",
        "traffic.mix=[{pattern=\"uniform\", weight=1}, {pattern=\"hot-spot\", weight=1}]"
    ])
    .is_empty());
    assert!(unused(&[
        "traffic.hot_nodes=3",
        "traffic.change={at_cycle=10, pattern=\"hot-spot\"}"
    ])
    .is_empty());
    // A burst that fills the queues ignores the load; one generated at the load reads it.
    let burst = [
        "traffic.burst_packets=10",
        "traffic.load=0.9",
        "simulation.max_cycles=100000",
    ];
    assert_eq!(unused(&burst), ["traffic.load"]);
    let mut paced = burst.to_vec();
    paced.push("traffic.burst_generation=\"load\"");
    assert!(unused(&paced).is_empty());
    // The experiments' run configurations set no traffic key they do not read.
    for file in ["base.toml", "burst.toml", "transient.toml"] {
        let path = format!(
            "{}/../../experiments/ofar/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let cfg = check_toml(&std::fs::read_to_string(&path).unwrap()).expect(file);
        let traffic = cfg.traffic.unused_keys();
        assert!(traffic.is_empty(), "{file}: {traffic:?}");
    }
}

/// Every pattern's name is the one the configuration takes, and `ALL` lists each pattern once.
#[test]
fn pattern_names_are_the_configuration_names() {
    for kind in arcsim::config::PatternKind::ALL {
        let text = format!("[traffic]\npattern = \"{}\"\n", kind.name());
        let cfg = Config::from_toml_str(&text).unwrap_or_else(|e| panic!("{}: {e}", kind.name()));
        assert_eq!(cfg.traffic.pattern, kind);
    }
    let mut names: Vec<&str> = arcsim::config::PatternKind::ALL
        .iter()
        .map(|k| k.name())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), arcsim::config::PatternKind::ALL.len());
}

/// A traffic change at or after the run's last cycle would never happen.
#[test]
fn a_change_after_the_run_is_rejected() {
    // The embedded default runs 5,000 + 10,000 cycles: cycles 0..=14,999.
    check_sets(&["traffic.change={ at_cycle = 14999, offset = 3 }"]).unwrap();
    check_sets(&["traffic.change={ at_cycle = 0, load = 0.1 }"]).unwrap();
    expect_field(
        check_sets(&["traffic.change={ at_cycle = 15000, offset = 3 }"]),
        "traffic.change.at_cycle",
        &["would never happen", "use at most 14999", "warmup_cycles"],
    );
    check_sets(&[
        "traffic.change={ at_cycle = 15000, offset = 3 }",
        "simulation.measure_cycles=20000",
    ])
    .unwrap();
}

/// A number, boolean or list where a name is expected is answered with the allowed names,
/// also inside arrays of tables.
#[test]
fn a_non_string_name_lists_the_allowed_names() {
    expect_field(
        check_sets(&["traffic.pattern=-5"]),
        "traffic.pattern",
        &["-5 is not a name", "expected one of", "`adv-global`"],
    );
    expect_field(
        check_sets(&["routing.algorithm=true"]),
        "routing.algorithm",
        &["true is not a name", "`ofar-l`"],
    );
    expect_field(
        check_sets(&[
            "traffic.mix=[{ pattern = \"uniform\", weight = 1 }, { pattern = 3, weight = 1 }]",
        ]),
        "traffic.mix[1].pattern",
        &["3 is not a name", "`hot-spot`"],
    );
    expect_field(
        check_sets(&["routing.rings=[3]"]),
        "routing.rings[0]",
        &["3 is not a name", "expected one of"],
    );
}
