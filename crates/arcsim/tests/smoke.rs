use arcsim::Config;

#[test]
fn smoke() {
    let mut cfg = Config::embedded_default();
    cfg.topology.p = 2;
    cfg.topology.a = 4;
    cfg.topology.h = 2;
    cfg.simulation.warmup_cycles = 1000;
    cfg.simulation.measure_cycles = 2000;
    for alg in ["min", "val", "val-any", "ugal-l"] {
        let mut v = toml::Value::try_from(&cfg).unwrap();
        arcsim::config::apply_override(&mut v, &format!("routing.algorithm={alg}")).unwrap();
        let c = Config::from_value(v).unwrap();
        let r = arcsim::run(&c).unwrap();
        eprintln!(
            "{alg}: acc {:.3} lat {:.1} hops {:.2} mis {:.2} gen {} del {}",
            r.accepted_load,
            r.latency.mean.unwrap(),
            r.hops.mean.unwrap(),
            r.misrouted_fraction.unwrap(),
            r.packets.generated,
            r.packets.delivered
        );
    }
}
