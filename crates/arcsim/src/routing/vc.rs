//! Deadlock avoidance by ordered VCs (Günther 1981; the OFAR paper section 1): every hop of a path
//! has a position in a fixed total order of buffer classes, and a packet only moves to a
//! higher class. A routing needs `local`/`global` classes (e.g. 3/2 for Valiant paths
//! l-g-l-g-l). Paths that skip hops skip positions, so the order holds for every path.

/// VC classes a routing needs per link class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VcNeeds {
    pub local: usize,
    pub global: usize,
}

/// Maps a hop position to the VC range to use, given the configured VC count. With more VCs
/// than positions, each position gets a contiguous slice (the order is preserved and the VC
/// selection policy chooses within the slice); with ordering disabled every VC is allowed.
#[derive(Debug, Clone, Copy)]
pub struct VcMap {
    pub ordered: bool,
    pub local_vcs: u8,
    pub global_vcs: u8,
    pub needs: VcNeeds,
    /// Precomputed `(lo, hi)` per position: routing asks at every hop.
    local_ranges: [(u8, u8); MAX_POSITIONS],
    global_ranges: [(u8, u8); MAX_POSITIONS],
}

/// Most positions per link class any routing uses.
pub const MAX_POSITIONS: usize = 16;

impl VcMap {
    pub fn new(ordered: bool, local_vcs: u8, global_vcs: u8, needs: VcNeeds) -> VcMap {
        let mut m = VcMap {
            ordered,
            local_vcs,
            global_vcs,
            needs,
            local_ranges: [(0, 0); MAX_POSITIONS],
            global_ranges: [(0, 0); MAX_POSITIONS],
        };
        for pos in 0..MAX_POSITIONS {
            m.local_ranges[pos] = Self::range(
                pos.min(needs.local.max(1) - 1),
                needs.local.max(1),
                local_vcs,
                ordered,
            );
            m.global_ranges[pos] = Self::range(
                pos.min(needs.global.max(1) - 1),
                needs.global.max(1),
                global_vcs,
                ordered,
            );
        }
        m
    }

    #[inline]
    fn range(pos: usize, positions: usize, vcs: u8, ordered: bool) -> (u8, u8) {
        if !ordered {
            return (0, vcs - 1);
        }
        let n = vcs as usize;
        let lo = pos * n / positions;
        let hi = ((pos + 1) * n / positions).max(lo + 1) - 1;
        (lo as u8, hi as u8)
    }
    #[inline]
    pub fn local(&self, pos: usize) -> (u8, u8) {
        debug_assert!(pos < self.needs.local);
        self.local_ranges[pos]
    }
    #[inline]
    pub fn global(&self, pos: usize) -> (u8, u8) {
        debug_assert!(pos < self.needs.global);
        self.global_ranges[pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_map_to_ordered_disjoint_slices() {
        let m = VcMap::new(
            true,
            3,
            2,
            VcNeeds {
                local: 2,
                global: 1,
            },
        );
        assert_eq!(m.local(0), (0, 0));
        assert_eq!(m.local(1), (1, 2));
        assert_eq!(m.global(0), (0, 1));
        let exact = VcMap::new(
            true,
            3,
            2,
            VcNeeds {
                local: 3,
                global: 2,
            },
        );
        assert_eq!(exact.local(2), (2, 2));
        assert_eq!(exact.global(1), (1, 1));
    }
}
