//! Arbitration policies of the separable allocator, as pure functions over small masks so the
//! allocator can use them for both its input and output stages.

use crate::config::ArbiterKind;

/// Pick the requester with the smallest key among the set bits of `mask` (ties: lowest index).
/// LRS keys are last-grant stamps; age keys are generation times.
#[inline]
pub fn pick_min_key(mask: u64, key: impl Fn(usize) -> u64) -> usize {
    let mut m = mask;
    let mut best = m.trailing_zeros() as usize;
    let mut best_key = key(best);
    m &= m - 1;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        let k = key(i);
        if k < best_key {
            best = i;
            best_key = k;
        }
    }
    best
}

/// Round-robin: the first set bit at or after `pointer`, wrapping around.
#[inline]
pub fn pick_round_robin(mask: u64, pointer: usize) -> usize {
    let high = if pointer >= 64 {
        0
    } else {
        mask & (!0u64 << pointer)
    };
    if high != 0 {
        high.trailing_zeros() as usize
    } else {
        mask.trailing_zeros() as usize
    }
}

/// Whether the policy orders requesters by a key (LRS, age) rather than a pointer.
pub fn keyed(kind: ArbiterKind) -> bool {
    !matches!(kind, ArbiterKind::RoundRobin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_wraps() {
        assert_eq!(pick_round_robin(0b1010, 0), 1);
        assert_eq!(pick_round_robin(0b1010, 2), 3);
        assert_eq!(pick_round_robin(0b1010, 4), 1);
    }

    #[test]
    fn min_key_prefers_least_recently_served() {
        let stamps = [5u64, 2, 9, 2];
        assert_eq!(pick_min_key(0b1111, |i| stamps[i]), 1);
        assert_eq!(pick_min_key(0b1101, |i| stamps[i]), 3);
    }
}
