//! `[[collectives]]`: MPI-style collective operations on the general kernel, each expanded
//! into explicit flows (`[[flows]]`) chained by `after` dependencies.
//!
//! A collective is a schedule of steps. In a step every taking-part rank sends one message
//! to a partner and receives one from a partner (an `MPI_Sendrecv`). A rank's send of its
//! next step waits, through `after`, for every flow of the last step it took part in: its
//! own send (delivered whole at the partner) and its receive (delivered whole here). That is
//! the dependency of a blocking send-receive loop, and `after` expresses it exactly: a flow
//! with several `after` flows starts when the last of them has completed. The destination
//! NIC accepts a message whether or not its rank has reached that step (an eager protocol
//! into pre-posted buffers; no rendezvous handshake is modelled).
//!
//! The algorithms are the MPI libraries' (OpenMPI's `coll/base`, MPICH):
//! - all-to-all, `pairwise`: n − 1 steps; at step k rank r sends its block for rank
//!   (r + k) mod n and receives from (r − k) mod n.
//! - allgather, `ring`: n − 1 steps; rank r sends one block to r + 1 and receives one from
//!   r − 1 (the block it received the step before).
//! - allgather, `recursive-doubling`: log2 n steps (n a power of two); at step k rank r
//!   exchanges 2^k blocks with r xor 2^k.
//! - allreduce, `recursive-doubling`: log2 n' steps of the whole vector with r' xor 2^k,
//!   where n' is the largest power of two ≤ n; with n ≠ n', the first 2(n − n') ranks pair
//!   up before (each even one sends its vector to the odd one after it, which takes its
//!   place) and after (the odd one sends the result back).
//! - allreduce, `rabenseifner`: a reduce-scatter by recursive halving (log2 n' steps, the
//!   partner at distance 1, 2, 4, ... and half the data of the step before: size/2, size/4,
//!   ..., size/n'), then an allgather by recursive doubling (the same exchanges in reverse,
//!   size/n' up to size/2); the same pairing as above for n ≠ n'.
//! - allreduce, `ring`: the vector cut into n blocks, a reduce-scatter and then an allgather
//!   around the ring: 2(n − 1) steps of one block (size/n) to r + 1 (OpenMPI's choice for
//!   large vectors).
//!
//! Sizes are in phits; a piece of a message (a block of Rabenseifner) is rounded up to a
//! whole phit, so that no step sends nothing.

use super::{field_err, FlowSpec};
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// The collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CollectiveKind {
    /// `MPI_Alltoall`: every rank sends a distinct block of `size` to every other.
    AllToAll,
    /// `MPI_Allreduce` of a vector of `size`.
    Allreduce,
    /// `MPI_Allgather`: every rank contributes a block of `size` and receives all of them.
    Allgather,
}

impl CollectiveKind {
    pub fn name(self) -> &'static str {
        match self {
            CollectiveKind::AllToAll => "all-to-all",
            CollectiveKind::Allreduce => "allreduce",
            CollectiveKind::Allgather => "allgather",
        }
    }

    /// The algorithms this operation has, the default first.
    pub fn algorithms(self) -> &'static [Algorithm] {
        match self {
            CollectiveKind::AllToAll => &[Algorithm::Pairwise],
            CollectiveKind::Allreduce => &[
                Algorithm::RecursiveDoubling,
                Algorithm::Rabenseifner,
                Algorithm::Ring,
            ],
            CollectiveKind::Allgather => &[Algorithm::Ring, Algorithm::RecursiveDoubling],
        }
    }
}

/// How a collective is carried out (the MPI libraries' algorithms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// All-to-all: pairwise exchange.
    Pairwise,
    /// Allreduce and allgather: partners at distance 1, 2, 4, ...
    RecursiveDoubling,
    /// Allreduce: reduce-scatter by recursive halving, then allgather by recursive doubling.
    Rabenseifner,
    /// Allgather: every block travels around a ring; allreduce: a reduce-scatter and an
    /// allgather around the ring.
    Ring,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Pairwise => "pairwise",
            Algorithm::RecursiveDoubling => "recursive-doubling",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::Ring => "ring",
        }
    }
}

/// One `[[collectives]]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectiveSpec {
    pub kind: CollectiveKind,
    /// The algorithm; None: the operation's default (pairwise, recursive doubling, ring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<Algorithm>,
    /// The nodes taking part, rank i on `nodes[i]`; empty: every node of the network, rank
    /// i on node i.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<u64>,
    /// Message size in phits (with `[units]`, in bytes, rounded up to whole phits): the
    /// block of every pair (all-to-all), of every rank (allgather), the vector (allreduce).
    pub size: u64,
    /// Cycle at which every rank starts.
    #[serde(default)]
    pub start: u64,
    /// Cycles between a rank's being ready for a step (its previous step's send and
    /// receive both complete, or `start`) and its send of that step: the software
    /// overhead of a step. 0: none.
    #[serde(default)]
    pub gap: u64,
}

impl CollectiveSpec {
    /// The algorithm that runs: the one given or the operation's default.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm.unwrap_or(self.kind.algorithms()[0])
    }

    /// "allreduce (rabenseifner)".
    pub fn describe(&self) -> String {
        format!("{} ({})", self.kind.name(), self.algorithm().name())
    }
}

/// Where a collective's flows are in the run's flow list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectiveFlows {
    /// What it is: "allreduce (rabenseifner)".
    pub name: String,
    /// Ranks taking part.
    pub ranks: usize,
    /// Its message size in phits.
    pub size: u64,
    /// Index of its first flow.
    pub first: usize,
    /// Number of flows.
    pub count: usize,
    /// Number of steps (including the pairing steps of a number of ranks that is not a
    /// power of two).
    pub steps: usize,
}

/// One step of a schedule: (sending rank, receiving rank, phits).
type Step = Vec<(usize, usize, u64)>;

/// The steps of a collective over `n` ranks, or an error naming `key` (the collective's
/// table, `collectives[i]`).
pub fn schedule(spec: &CollectiveSpec, n: usize, key: &str) -> Result<Vec<Step>, ConfigError> {
    let s = spec.size;
    let mut steps: Vec<Step> = Vec::new();
    let pof2 = if n == 0 { 0 } else { 1usize << n.ilog2() };
    let log = pof2.trailing_zeros() as usize;
    match (spec.kind, spec.algorithm()) {
        (CollectiveKind::AllToAll, Algorithm::Pairwise) => {
            for k in 1..n {
                steps.push((0..n).map(|r| (r, (r + k) % n, s)).collect());
            }
        }
        (CollectiveKind::Allgather, Algorithm::Ring) => {
            for _ in 1..n {
                steps.push((0..n).map(|r| (r, (r + 1) % n, s)).collect());
            }
        }
        (CollectiveKind::Allreduce, Algorithm::Ring) => {
            // A reduce-scatter then an allgather around the ring, the vector cut into n
            // blocks: 2(n - 1) steps of one block to r + 1.
            let block = s.div_ceil(n as u64).max(1);
            for _ in 0..2 * (n - 1) {
                steps.push((0..n).map(|r| (r, (r + 1) % n, block)).collect());
            }
        }
        (CollectiveKind::Allgather, Algorithm::RecursiveDoubling) => {
            if pof2 != n {
                return Err(field_err(
                    &format!("{key}.algorithm"),
                    format!(
                        "recursive doubling exchanges blocks with rank xor 2^k, which needs a power of two ranks, and this collective has {n}: use algorithm = \"ring\", or {} or {} nodes",
                        pof2,
                        pof2 * 2
                    ),
                ));
            }
            for k in 0..log {
                steps.push((0..n).map(|r| (r, r ^ (1 << k), s << k)).collect());
            }
        }
        (
            CollectiveKind::Allreduce,
            alg @ (Algorithm::RecursiveDoubling | Algorithm::Rabenseifner),
        ) => {
            // Ranks beyond the largest power of two pair up with their neighbour: of the
            // first 2·extra ranks the even ones hand their vector to the odd one after
            // them and wait for the result.
            let extra = n - pof2;
            // The rank of the power-of-two group `v` stands for.
            let real = |v: usize| if v < extra { 2 * v + 1 } else { v + extra };
            if extra > 0 {
                steps.push((0..extra).map(|i| (2 * i, 2 * i + 1, s)).collect());
            }
            let exchange = |mask: usize, size: u64| -> Step {
                (0..pof2).map(|v| (real(v), real(v ^ mask), size)).collect()
            };
            let piece = |div: usize| s.div_ceil(div as u64).max(1);
            if alg == Algorithm::RecursiveDoubling {
                for k in 0..log {
                    steps.push(exchange(1 << k, s));
                }
            } else {
                for k in 0..log {
                    steps.push(exchange(1 << k, piece(2 << k)));
                }
                for k in (0..log).rev() {
                    steps.push(exchange(1 << k, piece(2 << k)));
                }
            }
            if extra > 0 {
                steps.push((0..extra).map(|i| (2 * i + 1, 2 * i, s)).collect());
            }
        }
        (kind, alg) => {
            let names: Vec<&str> = kind.algorithms().iter().map(|a| a.name()).collect();
            return Err(field_err(
                &format!("{key}.algorithm"),
                format!(
                    "\"{}\" is not an algorithm of {}: use {}",
                    alg.name(),
                    kind.name(),
                    names.join(" or ")
                ),
            ));
        }
    }
    Ok(steps)
}

/// The flows of every collective, numbered from `first` (after the run's other flows), and
/// where each collective's flows are. `nodes` is the number of nodes of the network. Errors
/// name the collective's key (`collectives[1].nodes`).
pub fn expand(
    specs: &[CollectiveSpec],
    first: usize,
    nodes: u64,
) -> Result<(Vec<FlowSpec>, Vec<CollectiveFlows>), ConfigError> {
    let mut flows: Vec<FlowSpec> = Vec::new();
    let mut layout = Vec::new();
    for (c, spec) in specs.iter().enumerate() {
        let key = format!("collectives[{c}]");
        let ranks: Vec<u64> = if spec.nodes.is_empty() {
            (0..nodes).collect()
        } else {
            spec.nodes.clone()
        };
        for (i, &node) in ranks.iter().enumerate() {
            if node >= nodes {
                return Err(field_err(
                    &format!("{key}.nodes"),
                    format!(
                        "node {node} does not exist: the network has {nodes} nodes, numbered 0..={}",
                        nodes.saturating_sub(1)
                    ),
                ));
            }
            if ranks[..i].contains(&node) {
                return Err(field_err(
                    &format!("{key}.nodes"),
                    format!("node {node} is listed twice: a node runs one rank of a collective"),
                ));
            }
        }
        if ranks.len() < 2 {
            return Err(field_err(
                &format!("{key}.nodes"),
                format!(
                    "{} node(s) take part: a collective needs at least 2",
                    ranks.len()
                ),
            ));
        }
        if spec.size == 0 {
            return Err(field_err(
                &format!("{key}.size"),
                "0 phits: a message has at least one (with [units], \"1 B\" is one phit)",
            ));
        }
        if spec.size > u64::from(u32::MAX) {
            return Err(field_err(
                &format!("{key}.size"),
                format!(
                    "{} phits is more than a message may hold ({}): use larger phits ([units] phit)",
                    spec.size,
                    u32::MAX
                ),
            ));
        }
        let steps = schedule(spec, ranks.len(), &key)?;
        let base = first + flows.len();
        // The flows of the last step each rank took part in (its send and its receive).
        let mut last: Vec<Vec<usize>> = vec![Vec::new(); ranks.len()];
        for step in &steps {
            let mut now: Vec<Vec<usize>> = vec![Vec::new(); ranks.len()];
            for &(from, to, size) in step {
                let index = first + flows.len();
                let after = last[from].clone();
                flows.push(FlowSpec {
                    src: ranks[from],
                    dst: ranks[to],
                    rate: 1.0,
                    size,
                    start: if after.is_empty() {
                        spec.start + spec.gap
                    } else {
                        spec.gap
                    },
                    stop: 0,
                    message: size as u32,
                    after,
                });
                now[from].push(index);
                now[to].push(index);
            }
            for (r, mine) in now.into_iter().enumerate() {
                if !mine.is_empty() {
                    last[r] = mine;
                }
            }
        }
        layout.push(CollectiveFlows {
            name: spec.describe(),
            ranks: ranks.len(),
            size: spec.size,
            first: base,
            count: first + flows.len() - base,
            steps: steps.len(),
        });
    }
    Ok((flows, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: CollectiveKind, alg: Option<Algorithm>) -> CollectiveSpec {
        CollectiveSpec {
            kind,
            algorithm: alg,
            nodes: Vec::new(),
            size: 8,
            start: 0,
            gap: 0,
        }
    }

    /// (flows, steps, flows with dependencies, dependencies in all) of one collective.
    fn counts(s: &CollectiveSpec, n: u64) -> (usize, usize, usize, usize) {
        let (flows, layout) = expand(std::slice::from_ref(s), 0, n).unwrap();
        let deps: usize = flows.iter().map(|f| f.after.len()).sum();
        let waiting = flows.iter().filter(|f| !f.after.is_empty()).count();
        assert_eq!(layout[0].count, flows.len());
        (flows.len(), layout[0].steps, waiting, deps)
    }

    #[test]
    fn step_and_flow_counts_per_algorithm() {
        use Algorithm as A;
        use CollectiveKind as K;
        // Pairwise all-to-all: n - 1 steps of n flows; every step after the first waits
        // for the rank's send and receive of the step before.
        assert_eq!(counts(&spec(K::AllToAll, None), 4), (12, 3, 8, 16));
        assert_eq!(counts(&spec(K::AllToAll, None), 8), (56, 7, 48, 96));
        // Ring allgather: the same shape.
        assert_eq!(
            counts(&spec(K::Allgather, Some(A::Ring)), 4),
            (12, 3, 8, 16)
        );
        assert_eq!(counts(&spec(K::Allgather, None), 8), (56, 7, 48, 96));
        // Recursive doubling: log2(n) steps (the partner's send is the rank's receive).
        assert_eq!(
            counts(&spec(K::Allgather, Some(A::RecursiveDoubling)), 4),
            (8, 2, 4, 8)
        );
        assert_eq!(counts(&spec(K::Allreduce, None), 8), (24, 3, 16, 32));
        // Rabenseifner: 2 log2(n) steps.
        assert_eq!(
            counts(&spec(K::Allreduce, Some(A::Rabenseifner)), 8),
            (48, 6, 40, 80)
        );
        assert_eq!(
            counts(&spec(K::Allreduce, Some(A::Rabenseifner)), 4),
            (16, 4, 12, 24)
        );
        // Ring allreduce: 2(n - 1) steps of one block.
        assert_eq!(
            counts(&spec(K::Allreduce, Some(A::Ring)), 4),
            (24, 6, 20, 40)
        );
        let (f, _) = expand(&[spec(K::Allreduce, Some(A::Ring))], 0, 8).unwrap();
        assert_eq!((f.len(), f[0].size, f[0].dst), (112, 1, 1));
    }

    #[test]
    fn partners_and_sizes_follow_the_algorithms() {
        use Algorithm as A;
        use CollectiveKind as K;
        let (f, _) = expand(&[spec(K::AllToAll, None)], 0, 4).unwrap();
        // Step 2 (flows 4..8): rank r to r + 2.
        let pairs: Vec<(u64, u64)> = f[4..8].iter().map(|f| (f.src, f.dst)).collect();
        assert_eq!(pairs, [(0, 2), (1, 3), (2, 0), (3, 1)]);
        // Rank 1's step-2 send waits for its step-1 send (flow 1) and receive (flow 0).
        assert_eq!(f[5].after, [0, 1]);
        let (f, _) = expand(&[spec(K::Allgather, Some(A::RecursiveDoubling))], 0, 4).unwrap();
        let sizes: Vec<u64> = f.iter().map(|f| f.size).collect();
        assert_eq!(sizes, [8, 8, 8, 8, 16, 16, 16, 16]);
        assert_eq!((f[4].src, f[4].dst), (0, 2));
        let (f, _) = expand(&[spec(K::Allreduce, Some(A::Rabenseifner))], 0, 4).unwrap();
        let sizes: Vec<u64> = f.iter().map(|f| f.size).collect();
        // Halving 8 -> 4 -> 2, then doubling 2 -> 4; distance 1, 2, then 2, 1.
        assert_eq!(sizes, [4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4]);
        let dist: Vec<u64> = f.iter().step_by(4).map(|f| f.dst ^ f.src).collect();
        assert_eq!(dist, [1, 2, 2, 1]);
        // Numbered after the run's own flows.
        let (f, l) = expand(&[spec(K::AllToAll, None)], 5, 4).unwrap();
        assert_eq!(l[0].first, 5);
        assert_eq!(f[5].after, [5, 6]);
    }

    #[test]
    fn ranks_beyond_a_power_of_two_pair_up() {
        use Algorithm as A;
        use CollectiveKind as K;
        // 12 ranks: 8 in the power-of-two group, the first 8 ranks paired (4 extra).
        let (f, l) = expand(&[spec(K::Allreduce, None)], 0, 12).unwrap();
        // Pairing, 3 steps of 8, the result back.
        assert_eq!(l[0].steps, 5);
        assert_eq!(f.len(), 4 + 24 + 4);
        let pre: Vec<(u64, u64)> = f[..4].iter().map(|f| (f.src, f.dst)).collect();
        assert_eq!(pre, [(0, 1), (2, 3), (4, 5), (6, 7)]);
        // Even ranks below 8 take no part in the exchanges.
        for x in &f[4..28] {
            assert!(x.src >= 8 || x.src % 2 == 1, "{x:?}");
            assert!(x.dst >= 8 || x.dst % 2 == 1, "{x:?}");
        }
        // Rank 1's first exchange waits for the vector of rank 0.
        assert_eq!(f[4].src, 1);
        assert_eq!(f[4].after, [0]);
        // The result goes back after the rank's last exchange.
        let back = &f[28];
        assert_eq!((back.src, back.dst), (1, 0));
        assert_eq!(back.after.len(), 2);
        let (_, l) = expand(&[spec(K::Allreduce, Some(A::Rabenseifner))], 0, 12).unwrap();
        assert_eq!(l[0].steps, 8);
        // The ring and pairwise algorithms take any number of ranks.
        assert_eq!(counts(&spec(K::AllToAll, None), 12).1, 11);
        assert_eq!(counts(&spec(K::Allgather, None), 12).1, 11);
        // Recursive-doubling allgather does not: refused, naming the key.
        let e = expand(&[spec(K::Allgather, Some(A::RecursiveDoubling))], 0, 12)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("collectives[0].algorithm")
                && e.contains("power of two")
                && e.contains("ring"),
            "{e}"
        );
    }

    #[test]
    fn bad_collectives_name_their_key() {
        use Algorithm as A;
        use CollectiveKind as K;
        let err = |s: CollectiveSpec| {
            expand(&[spec(K::AllToAll, None), s], 0, 8)
                .unwrap_err()
                .to_string()
        };
        let mut s = spec(K::AllToAll, Some(A::Ring));
        assert!(err(s.clone()).contains("collectives[1].algorithm"));
        s.algorithm = None;
        s.nodes = vec![1, 9];
        let e = err(s.clone());
        assert!(
            e.contains("collectives[1].nodes") && e.contains("node 9"),
            "{e}"
        );
        s.nodes = vec![1, 2, 1];
        assert!(err(s.clone()).contains("listed twice"));
        s.nodes = vec![3];
        assert!(err(s.clone()).contains("at least 2"));
        s.nodes = vec![];
        s.size = 0;
        assert!(err(s).contains("collectives[1].size"));
    }
}
