//! Calendar of per-node generation times. Bernoulli injection is simulated by drawing each
//! node's geometric gap to its next packet; the calendar returns the nodes due each cycle in
//! O(1) per packet (a heap costs O(log N) and dominated the profile).

/// A wheel of `W` buckets for times within `W` cycles, plus an overflow list for farther
/// times that is re-examined once per wheel turn.
#[derive(Debug)]
pub struct Calendar {
    buckets: Vec<Vec<u32>>,
    mask: u64,
    overflow: Vec<(u64, u32)>,
}

impl Calendar {
    pub fn new(bits: u32) -> Calendar {
        let size = 1usize << bits;
        Calendar {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size as u64 - 1,
            overflow: Vec::new(),
        }
    }

    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        self.overflow.clear();
    }

    /// Node `node` is due at cycle `at` (>= now).
    #[inline]
    pub fn schedule(&mut self, now: u64, at: u64, node: u32) {
        debug_assert!(at >= now);
        if at - now <= self.mask {
            self.buckets[(at & self.mask) as usize].push(node);
        } else {
            self.overflow.push((at, node));
        }
    }

    /// Move the nodes due at `now` into `out` (cleared first). Call once per cycle, in order.
    #[inline]
    pub fn take(&mut self, now: u64, out: &mut Vec<u32>) {
        if now & self.mask == 0 && !self.overflow.is_empty() {
            let horizon = now + self.mask;
            let mut i = 0;
            while i < self.overflow.len() {
                let (at, node) = self.overflow[i];
                if at <= horizon {
                    self.buckets[(at & self.mask) as usize].push(node);
                    self.overflow.swap_remove(i);
                } else {
                    i += 1;
                }
            }
        }
        out.clear();
        std::mem::swap(&mut self.buckets[(now & self.mask) as usize], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_every_node_exactly_at_its_time() {
        let mut c = Calendar::new(3); // 8 buckets: forces overflow use
        let times = [
            (0u64, 1u32),
            (3, 2),
            (7, 3),
            (8, 4),
            (20, 5),
            (100, 6),
            (20, 7),
        ];
        for &(t, n) in &times {
            c.schedule(0, t, n);
        }
        let mut got = Vec::new();
        let mut out = Vec::new();
        for now in 0..=100 {
            c.take(now, &mut out);
            for &n in &out {
                got.push((now, n));
            }
        }
        let mut want = times.to_vec();
        want.sort();
        got.sort();
        assert_eq!(got, want);
    }
}
