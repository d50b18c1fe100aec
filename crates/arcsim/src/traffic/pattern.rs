//! Destination patterns. Node n sits on router n / p; router r is router r % a of group r / a
//! (dragonfly numbering; other topologies map their own hierarchy onto this shape).
//!
//! Every pattern but all-to-all is memoryless. All-to-all is a schedule: node n's i-th packet
//! (i = 0, 1, ...) goes to node (n + 1 + i mod (N - 1)) mod N, so N - 1 packets per node are
//! one MPI_Alltoall in the usual staggered order (at step k = 1..N-1 every node sends to the
//! node k further on, and no two nodes target the same node in the same step). It keeps a
//! per-node counter, which is why [`Pattern::destination`] takes `&mut self`. Its ascending
//! order (`traffic.all_to_all_order`) sends node n's i-th packet to the i-th node other than
//! n: every node visits 0, 1, 2, ... in the same order.

use crate::config::{AllToAllOrder, MixEntry, PatternKind, TrafficConfig};
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
    /// Uniform over every node but the source, or (true) over every node.
    Uniform(bool),
    AdvGlobal(usize),
    AdvLocal(usize),
    HotRegion,
    Permutation(Vec<u32>),
    Shift(usize),
    /// A permutation of the bits of node numbers (`PatternKind::is_bit_permutation`) on
    /// 2^bits nodes.
    Bits(PatternKind, u32),
    HotSpot {
        nodes: usize,
        fraction: f64,
    },
    /// All-to-all; `next[n]` = steps node n has taken mod (N - 1).
    AllToAll {
        next: Vec<u32>,
        order: AllToAllOrder,
    },
}

/// A (possibly mixed) destination pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    shape: Shape,
    /// (cumulative weight, component); sampled by a uniform draw over the total.
    parts: Vec<(f64, Component)>,
}

impl Pattern {
    /// `kind`/`offset`, or `mix` when it is not empty; the other parameters of the patterns
    /// (hot spot, all-to-all order) come from `traffic`.
    pub fn new(
        shape: Shape,
        kind: PatternKind,
        offset: usize,
        mix: &[MixEntry],
        traffic: &TrafficConfig,
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
                PatternKind::Uniform => Component::Uniform(traffic.allow_self),
                PatternKind::AdvGlobal => Component::AdvGlobal(e.offset % shape.g),
                PatternKind::AdvLocal => Component::AdvLocal(e.offset % shape.a),
                PatternKind::HotRegion => Component::HotRegion,
                PatternKind::Permutation => Component::Permutation(derangement(shape.nodes(), rng)),
                PatternKind::Shift => Component::Shift(e.offset % shape.nodes()),
                k @ (PatternKind::BitComplement
                | PatternKind::BitReverse
                | PatternKind::Transpose
                | PatternKind::Shuffle) => Component::Bits(k, shape.nodes().trailing_zeros()),
                PatternKind::HotSpot => Component::HotSpot {
                    nodes: traffic.hot_nodes,
                    fraction: traffic.hot_fraction,
                },
                PatternKind::AllToAll => {
                    assert!(
                        shape.nodes() >= 2 && shape.nodes() <= u32::MAX as usize,
                        "all-to-all needs 2..=u32::MAX nodes"
                    );
                    Component::AllToAll {
                        next: vec![0; shape.nodes()],
                        order: traffic.all_to_all_order,
                    }
                }
            };
            parts.push((acc, c));
        }
        Pattern { shape, parts }
    }

    /// Destination of the next packet from `src` (never `src` itself, but where
    /// `traffic.allow_self` or a bit permutation's fixed point says so). Stateful only for
    /// all-to-all, which advances `src`'s place in its schedule.
    #[inline]
    pub fn destination(&mut self, src: usize, rng: &mut Rng) -> usize {
        let last = self.parts.len() - 1;
        let i = if last == 0 {
            0
        } else {
            let x = rng.unit() * self.parts[last].0;
            self.parts.iter().position(|(c, _)| x < *c).unwrap_or(last)
        };
        let s = &self.shape;
        match &mut self.parts[i].1 {
            Component::Uniform(false) => uniform_except(s.nodes(), src, rng),
            Component::Uniform(true) => rng.below(s.nodes() as u64) as usize,
            Component::AdvGlobal(off) => {
                let gn = s.group_nodes();
                let g = (src / gn + *off) % s.g;
                g * gn + rng.below(gn as u64) as usize
            }
            Component::AdvLocal(off) => {
                let r = src / s.p;
                let (grp, idx) = (r / s.a, r % s.a);
                let target = grp * s.a + (idx + *off) % s.a;
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
            Component::Shift(off) => (src + *off) % s.nodes(),
            Component::Bits(kind, bits) => bit_permutation(*kind, *bits, src),
            Component::AllToAll { next, order } => {
                let n = s.nodes();
                let k = &mut next[src];
                let d = match order {
                    AllToAllOrder::Staggered => (src + 1 + *k as usize) % n,
                    AllToAllOrder::Ascending if (*k as usize) < src => *k as usize,
                    AllToAllOrder::Ascending => *k as usize + 1,
                };
                *k = if *k as usize + 2 >= n { 0 } else { *k + 1 };
                d
            }
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

/// The destination of `src` under a permutation of the bits of `bits`-bit node numbers.
fn bit_permutation(kind: PatternKind, bits: u32, src: usize) -> usize {
    let mask = (1usize << bits) - 1;
    match kind {
        PatternKind::BitComplement => !src & mask,
        PatternKind::BitReverse if bits == 0 => src,
        PatternKind::BitReverse => src.reverse_bits() >> (usize::BITS - bits),
        PatternKind::Transpose => {
            let half = bits / 2;
            ((src << half) | (src >> half)) & mask
        }
        PatternKind::Shuffle if bits == 0 => src,
        PatternKind::Shuffle => ((src << 1) | (src >> (bits - 1))) & mask,
        _ => unreachable!("not a bit permutation"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        Shape { p: 2, a: 4, g: 9 }
    }

    /// One pattern (no mixture) with the default traffic parameters.
    fn single(kind: PatternKind, offset: usize, rng: &mut Rng) -> Pattern {
        Pattern::new(shape(), kind, offset, &[], &TrafficConfig::default(), rng)
    }

    #[test]
    fn adversarial_global_targets_offset_group() {
        let mut rng = Rng::new(3);
        let mut p = single(PatternKind::AdvGlobal, 2, &mut rng);
        for src in 0..72 {
            for _ in 0..20 {
                let d = p.destination(src, &mut rng);
                assert_eq!(d / 8, (src / 8 + 2) % 9);
            }
        }
    }

    #[test]
    fn shift_sends_every_node_offset_nodes_on() {
        let mut rng = Rng::new(4);
        // 75 on 72 nodes is a shift by 3; no random number is drawn.
        let mut p = single(PatternKind::Shift, 75, &mut rng);
        for src in 0..72 {
            assert_eq!(p.destination(src, &mut rng), (src + 3) % 72);
        }
        let mut fresh = Rng::new(4);
        assert_eq!(rng.below(1 << 40), fresh.below(1 << 40));
    }

    #[test]
    fn permutation_is_a_derangement() {
        let mut rng = Rng::new(5);
        let mut p = single(PatternKind::Permutation, 1, &mut rng);
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
        let mut p = Pattern::new(
            shape(),
            PatternKind::Uniform,
            1,
            &mix,
            &TrafficConfig::default(),
            &mut rng,
        );
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
    fn all_to_all_cycles_through_the_staggered_schedule() {
        let mut rng = Rng::new(11);
        let mut p = single(PatternKind::AllToAll, 1, &mut rng);
        let n = 72;
        // Interleave the nodes (as the engine does) over three rounds: each node's own
        // counter decides, whatever the others do.
        for i in 0..3 * (n - 1) {
            for src in (0..n).rev() {
                assert_eq!(p.destination(src, &mut rng), (src + 1 + i % (n - 1)) % n);
            }
        }
    }

    #[test]
    fn hot_region_sends_a_quarter_to_an_eighth() {
        let mut rng = Rng::new(9);
        let mut p = single(PatternKind::HotRegion, 1, &mut rng);
        let n = 40_000;
        let hot = (0..n)
            .filter(|i| p.destination(40 + i % 30, &mut rng) < 9)
            .count();
        // 25% + 75% * 9/71 uniformly
        let frac = hot as f64 / n as f64;
        assert!((frac - (0.25 + 0.75 * 9.0 / 71.0)).abs() < 0.015, "{frac}");
    }

    /// The QCN-Switch paper's hot-region (Benito et al. 2018, §4.3) on its h = 4 network
    /// (1,056 nodes, 264 switches of 4 nodes): the region, the first 12.5% of the nodes, is
    /// the first 33 switches whole, as FOGSim draws it (a hot switch, then a node of it); a
    /// hot node receives 0.25 / 132 + 0.75 / 1,055 of the traffic, about 2.75 times the
    /// average, so hot ejection links saturate at an offered load of about 1 / 2.75 = 0.364.
    /// The random permutation sends every node to one other node, one source each.
    #[test]
    fn qcn_hot_region_and_random_permutation() {
        let shape = Shape { p: 4, a: 8, g: 33 };
        let n = shape.nodes();
        let mut rng = Rng::new(17);
        let cfg = TrafficConfig::default();
        let mut hr = Pattern::new(shape, PatternKind::HotRegion, 0, &[], &cfg, &mut rng);
        let mut got = vec![0u64; n];
        let rounds = 400;
        for _ in 0..rounds {
            for src in 0..n {
                let d = hr.destination(src, &mut rng);
                assert_ne!(d, src);
                got[d] += 1;
            }
        }
        let region = n / 8;
        assert_eq!(region, 33 * 4, "the region is whole switches at h = 4");
        let mean = (rounds * n) as f64 / n as f64;
        let hot = got[..region].iter().sum::<u64>() as f64 / region as f64 / mean;
        let cold = got[region..].iter().sum::<u64>() as f64 / (n - region) as f64 / mean;
        assert!((hot - 2.75).abs() < 0.05, "hot node: {hot} x the average");
        assert!(
            (cold - 0.75).abs() < 0.02,
            "other node: {cold} x the average"
        );
        let mut perm = Pattern::new(shape, PatternKind::Permutation, 0, &[], &cfg, &mut rng);
        let mut seen = vec![false; n];
        for src in 0..n {
            let d = perm.destination(src, &mut rng);
            assert_ne!(d, src, "no node sends to itself");
            assert!(!seen[d], "node {d} has two sources");
            seen[d] = true;
            // Fixed for the whole run.
            assert_eq!(perm.destination(src, &mut rng), d);
        }
    }

    #[test]
    fn bit_permutations_of_16_nodes() {
        use super::bit_permutation as b;
        let all = |k| (0..16).map(|s| b(k, 4, s)).collect::<Vec<_>>();
        assert_eq!(all(PatternKind::BitComplement)[..3], [15, 14, 13]);
        // 0b0001 -> 0b1000, 0b0110 -> 0b0110 (a palindrome), 0b0011 -> 0b1100.
        let r = all(PatternKind::BitReverse);
        assert_eq!((r[1], r[6], r[3]), (8, 6, 12));
        // Halves swapped: 0b01_10 -> 0b10_01.
        assert_eq!(all(PatternKind::Transpose)[0b0110], 0b1001);
        // Rotated left: 0b1001 -> 0b0011.
        let sh = all(PatternKind::Shuffle);
        assert_eq!((sh[0b1001], sh[0], sh[15]), (0b0011, 0, 15));
        for k in [
            PatternKind::BitComplement,
            PatternKind::BitReverse,
            PatternKind::Transpose,
            PatternKind::Shuffle,
        ] {
            let mut v = all(k);
            v.sort_unstable();
            assert_eq!(v, (0..16).collect::<Vec<_>>(), "{k:?} is a permutation");
        }
    }
}
