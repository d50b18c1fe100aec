//! Destination patterns. Node n sits on router n / p; router r is router r % a of group r / a
//! (dragonfly numbering; other topologies map their own hierarchy onto this shape).

use crate::config::{MixEntry, PatternKind};
use crate::rng::Rng;

#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub p: usize,
    pub a: usize,
    pub g: usize,
}

impl Shape {
    fn nodes(&self) -> usize {
        self.p * self.a * self.g
    }
    fn group_nodes(&self) -> usize {
        self.p * self.a
    }
}

#[derive(Debug, Clone)]
enum Component {
    Uniform,
    AdvGlobal(usize),
    AdvLocal(usize),
    HotRegion,
    Permutation(Vec<u32>),
    HotSpot { nodes: usize, fraction: f64 },
}

/// A (possibly mixed) destination pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    shape: Shape,
    /// (cumulative weight, component); sampled by a uniform draw over the total.
    parts: Vec<(f64, Component)>,
}

impl Pattern {
    pub fn new(
        shape: Shape,
        kind: PatternKind,
        offset: usize,
        mix: &[MixEntry],
        hot_nodes: usize,
        hot_fraction: f64,
        rng: &mut Rng,
    ) -> Pattern {
        let single = [MixEntry {
            pattern: kind,
            offset,
            weight: 1.0,
        }];
        let entries = if mix.is_empty() { &single[..] } else { mix };
        let mut acc = 0.0;
        let mut parts = Vec::new();
        for e in entries {
            if e.weight <= 0.0 {
                continue;
            }
            acc += e.weight;
            let c = match e.pattern {
                PatternKind::Uniform => Component::Uniform,
                PatternKind::AdvGlobal => Component::AdvGlobal(e.offset % shape.g),
                PatternKind::AdvLocal => Component::AdvLocal(e.offset % shape.a),
                PatternKind::HotRegion => Component::HotRegion,
                PatternKind::Permutation => Component::Permutation(derangement(shape.nodes(), rng)),
                PatternKind::HotSpot => Component::HotSpot {
                    nodes: hot_nodes,
                    fraction: hot_fraction,
                },
            };
            parts.push((acc, c));
        }
        Pattern { shape, parts }
    }

    /// Destination of a packet from `src` (never `src` itself).
    #[inline]
    pub fn destination(&self, src: usize, rng: &mut Rng) -> usize {
        let comp = if self.parts.len() == 1 {
            &self.parts[0].1
        } else {
            let total = self.parts[self.parts.len() - 1].0;
            let x = rng.unit() * total;
            &self
                .parts
                .iter()
                .find(|(c, _)| x < *c)
                .unwrap_or(&self.parts[self.parts.len() - 1])
                .1
        };
        let s = &self.shape;
        match comp {
            Component::Uniform => uniform_except(s.nodes(), src, rng),
            Component::AdvGlobal(off) => {
                let gn = s.group_nodes();
                let g = (src / gn + off) % s.g;
                g * gn + rng.below(gn as u64) as usize
            }
            Component::AdvLocal(off) => {
                let r = src / s.p;
                let (grp, idx) = (r / s.a, r % s.a);
                let target = grp * s.a + (idx + off) % s.a;
                target * s.p + rng.below(s.p as u64) as usize
            }
            Component::HotRegion => {
                // 25% of the traffic to the first eighth of the nodes, the rest uniform.
                let region = (s.nodes() / 8).max(1);
                if rng.unit() < 0.25 && !(region == 1 && src == 0) {
                    loop {
                        let d = rng.below(region as u64) as usize;
                        if d != src {
                            return d;
                        }
                    }
                } else {
                    uniform_except(s.nodes(), src, rng)
                }
            }
            Component::Permutation(perm) => perm[src] as usize,
            Component::HotSpot { nodes, fraction } => {
                if rng.unit() < *fraction && !(*nodes == 1 && src == 0) {
                    loop {
                        let d = rng.below(*nodes as u64) as usize;
                        if d != src {
                            return d;
                        }
                    }
                } else {
                    uniform_except(s.nodes(), src, rng)
                }
            }
        }
    }
}

#[inline]
fn uniform_except(n: usize, src: usize, rng: &mut Rng) -> usize {
    let d = rng.below(n as u64 - 1) as usize;
    if d >= src {
        d + 1
    } else {
        d
    }
}

/// A random permutation without fixed points (Sattolo's algorithm gives a single cycle).
fn derangement(n: usize, rng: &mut Rng) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64) as usize;
        v.swap(i, j);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        Shape { p: 2, a: 4, g: 9 }
    }

    #[test]
    fn adversarial_global_targets_offset_group() {
        let mut rng = Rng::new(3);
        let p = Pattern::new(shape(), PatternKind::AdvGlobal, 2, &[], 1, 0.1, &mut rng);
        for src in 0..72 {
            for _ in 0..20 {
                let d = p.destination(src, &mut rng);
                assert_eq!(d / 8, (src / 8 + 2) % 9);
            }
        }
    }

    #[test]
    fn permutation_is_a_derangement() {
        let mut rng = Rng::new(5);
        let p = Pattern::new(shape(), PatternKind::Permutation, 1, &[], 1, 0.1, &mut rng);
        let mut seen = [false; 72];
        for src in 0..72 {
            let d = p.destination(src, &mut rng);
            assert_ne!(d, src);
            assert!(!seen[d]);
            seen[d] = true;
        }
    }

    #[test]
    fn uniform_never_self_and_mix_respects_weights() {
        let mut rng = Rng::new(7);
        let mix = [
            MixEntry {
                pattern: PatternKind::Uniform,
                offset: 1,
                weight: 80.0,
            },
            MixEntry {
                pattern: PatternKind::AdvLocal,
                offset: 1,
                weight: 20.0,
            },
        ];
        let p = Pattern::new(shape(), PatternKind::Uniform, 1, &mix, 1, 0.1, &mut rng);
        let mut local_next = 0;
        let n = 20_000;
        for i in 0..n {
            let src = i % 72;
            let d = p.destination(src, &mut rng);
            assert_ne!(d, src);
            let (rs, rd) = (src / 2, d / 2);
            if rd / 4 == rs / 4 && rd % 4 == (rs % 4 + 1) % 4 {
                local_next += 1;
            }
        }
        // 20% ADVL+1 plus the uniform share that lands there by chance (~2.8% of 80%).
        let frac = local_next as f64 / n as f64;
        assert!((frac - 0.222).abs() < 0.02, "{frac}");
    }

    #[test]
    fn hot_region_sends_a_quarter_to_an_eighth() {
        let mut rng = Rng::new(9);
        let p = Pattern::new(shape(), PatternKind::HotRegion, 1, &[], 1, 0.1, &mut rng);
        let n = 40_000;
        let hot = (0..n)
            .filter(|i| p.destination(40 + i % 30, &mut rng) < 9)
            .count();
        // 25% + 75% * 9/71 uniformly
        let frac = hot as f64 / n as f64;
        assert!((frac - (0.25 + 0.75 * 9.0 / 71.0)).abs() < 0.015, "{frac}");
    }
}
