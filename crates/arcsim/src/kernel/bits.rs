//! A set of small indices kept as bit words, walked in increasing order: the kernel's lists
//! of flows and NICs with work, so that a cycle costs in proportion to the active ones
//! (one word per 64 idle ones) while visiting them in index order, as a scan of all would.

#[derive(Debug, Default, Clone)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// An empty set of indices below `n`.
    pub fn new(n: usize) -> BitSet {
        BitSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1u64 << (i % 64);
    }

    #[inline]
    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1u64 << (i % 64));
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The smallest index in the set at or after `from`.
    #[inline]
    pub fn next_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut word = *self.words.get(w)? & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            word = *self.words.get(w)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn walks_members_in_order_across_words() {
        let mut s = BitSet::new(200);
        assert!(s.is_empty());
        for i in [3, 63, 64, 130, 199] {
            s.insert(i);
        }
        s.remove(63);
        let mut got = Vec::new();
        let mut at = s.next_from(0);
        while let Some(i) = at {
            got.push(i);
            at = s.next_from(i + 1);
        }
        assert_eq!(got, vec![3, 64, 130, 199]);
        assert_eq!(s.next_from(131), Some(199));
        assert_eq!(s.next_from(200), None);
        assert!(!s.is_empty());
    }
}
