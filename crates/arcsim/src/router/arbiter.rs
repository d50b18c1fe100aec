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

/// Least recently served, kept as an order: `order` lists the inputs from least to most
/// recently served (initially by index). Picks the first requester in `mask` and moves it to
/// the back. The same choice as [`pick_min_key`] over last-grant stamps (never-served inputs
/// tie at stamp 0 and go by index), from one byte per input instead of a 4-byte stamp.
#[inline]
pub fn pick_lrs(order: &mut [u8], mask: u64) -> usize {
    let k = order
        .iter()
        .position(|&i| mask & (1u64 << i) != 0)
        .expect("an output arbitrates only among requesters");
    let w = order[k];
    order.copy_within(k + 1.., k);
    let last = order.len() - 1;
    order[last] = w;
    w as usize
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
    fn lrs_order_chooses_as_last_grant_stamps_do() {
        // Random requester sets over 23 inputs: the order list and the stamps (cycle + 1 of
        // the last grant, ties by index) pick the same winner every time.
        let mut rng = crate::rng::Rng::new(7);
        let n = 23;
        let mut order: Vec<u8> = (0..n as u8).collect();
        let mut stamps = vec![0u64; n];
        for cycle in 0..20_000u64 {
            // Mostly one to three requesters, sometimes many.
            let mut mask = 0u64;
            let k = if rng.below(10) == 0 {
                12
            } else {
                1 + rng.below(3)
            };
            for _ in 0..k {
                mask |= 1u64 << rng.below(n as u64);
            }
            let by_stamp = pick_min_key(mask, |i| stamps[i]);
            let by_order = pick_lrs(&mut order, mask);
            assert_eq!(by_order, by_stamp, "cycle {cycle}, mask {mask:#x}");
            stamps[by_stamp] = cycle + 1;
        }
    }

    #[test]
    fn min_key_prefers_least_recently_served() {
        let stamps = [5u64, 2, 9, 2];
        assert_eq!(pick_min_key(0b1111, |i| stamps[i]), 1);
        assert_eq!(pick_min_key(0b1101, |i| stamps[i]), 3);
    }
}
