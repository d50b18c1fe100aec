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

/// Least recently served from one byte per input: `row[..n]` holds small grant stamps of the
/// `n` inputs (0: never served) and `row[n]` the stamp of the latest grant. Picks the requester
/// in `mask` with the smallest stamp (ties: lowest index, so never-served inputs go by index)
/// and stamps it. When the byte counter would overflow, the stamps are renumbered 0..n in
/// (stamp, index) order, which keeps every future choice: the same choice as cycle stamps of
/// the last grant, in a quarter of the bytes, and with no shifting of an order list.
#[inline]
pub fn pick_lrs(row: &mut [u8], mask: u64) -> usize {
    let n = row.len() - 1;
    debug_assert!(n < u8::MAX as usize && mask != 0 && (n >= 64 || mask >> n == 0));
    let mut m = mask;
    let mut best = m.trailing_zeros() as usize;
    let mut best_stamp = row[best];
    m &= m - 1;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        if row[i] < best_stamp {
            best = i;
            best_stamp = row[i];
        }
    }
    if row[n] == u8::MAX {
        renumber(row);
    }
    let stamp = row[n] + 1;
    row[best] = stamp;
    row[n] = stamp;
    best
}

/// Replace the stamps of `row[..n]` by their ranks in (stamp, index) order and set the counter
/// `row[n]` to the highest rank. Runs once per ~(255 - n) grants of an output.
#[cold]
fn renumber(row: &mut [u8]) {
    let n = row.len() - 1;
    let mut idx = [0u8; 64];
    for (k, slot) in idx[..n].iter_mut().enumerate() {
        *slot = k as u8;
    }
    idx[..n].sort_unstable_by_key(|&i| (row[i as usize], i));
    for (rank, &i) in idx[..n].iter().enumerate() {
        row[i as usize] = rank as u8;
    }
    row[n] = (n - 1) as u8;
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
    fn byte_stamps_choose_as_last_grant_cycles_do() {
        // Random requester sets over 23 inputs: byte stamps (renumbered about every 230
        // grants) and cycle stamps (cycle + 1 of the last grant, ties by index) pick the same
        // winner every time.
        let mut rng = crate::rng::Rng::new(7);
        let n = 23;
        let mut row = vec![0u8; n + 1];
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
            let by_row = pick_lrs(&mut row, mask);
            assert_eq!(by_row, by_stamp, "cycle {cycle}, mask {mask:#x}");
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
