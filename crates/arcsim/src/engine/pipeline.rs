//! The allocation pass of a cycle: the routers with an input to evaluate are listed up front
//! and allocated in turn while a three-stage software pipeline loads the records of the next
//! ones (their ports and VCs, then their head slots, then their head packets).

use super::Simulation;
use crate::routing::Routing;

/// Head slots found by the second stage of the router prefetch, kept for the third: a row
/// per router in flight, reused round-robin (stage two runs two routers ahead of the
/// allocation, stage three one).
#[derive(Clone, Copy)]
struct HeadRow {
    len: u8,
    slots: [u32; 32],
}

#[derive(Clone, Copy)]
struct HeadSlots {
    rows: [HeadRow; 4],
}

impl Default for HeadSlots {
    fn default() -> Self {
        HeadSlots {
            rows: [HeadRow {
                len: 0,
                slots: [0; 32],
            }; 4],
        }
    }
}

impl HeadSlots {
    #[inline(always)]
    fn row(&mut self, j: usize) -> &mut HeadRow {
        &mut self.rows[j % 4]
    }
    #[inline(always)]
    fn get(&self, j: usize) -> &[u32] {
        let row = &self.rows[j % 4];
        &row.slots[..row.len as usize]
    }
}

impl<R: Routing> Simulation<R> {
    pub(super) fn allocate_all(&mut self) {
        // Allocating a router changes no other router's inputs (grants only schedule future
        // events), so the list of routers to visit is known up front and the records of the
        // next few can be requested while the current one is allocated (see `prefetch`).
        let mut list = std::mem::take(&mut self.active_list);
        list.clear();
        for w in 0..self.active.len() {
            let mut bits = self.active[w];
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let r = w * 64 + b;
                if self.nonempty[r] == 0 {
                    self.active[w] &= !(1u64 << b);
                } else if self.nonempty[r] & self.free_inputs[r] & self.awake[r] != 0 {
                    // Only routers with an input to evaluate are visited (and prefetched).
                    list.push(r as u32);
                }
            }
        }
        // How many routers ahead each prefetch stage runs (tuned with `arcsim bench`): the
        // ports and VCs three routers ahead, the head slots two ahead, the head packets one.
        // The slot stage records the slots it found, so that the packet stage reads them
        // back from a short list instead of walking the input and VC masks again.
        let mut heads = HeadSlots::default();
        for j in 0..list.len() {
            if let Some(&s) = list.get(j + 3) {
                self.prefetch_router_records(s as usize);
            }
            if let Some(&s) = list.get(j + 2) {
                self.prefetch_head_slots(s as usize, heads.row(j + 2));
            }
            if j + 1 < list.len() {
                for &slot in heads.get(j + 1) {
                    crate::prefetch::prefetch(self.pool.get(self.slots.at(slot)));
                }
            }
            let r = list[j] as usize;
            self.allocate(r);
            if self.nonempty[r] == 0 {
                self.active[r / 64] &= !(1u64 << (r % 64));
            }
        }
        self.active_list = list;
    }

    /// First stage of the software pipeline that loads a router's records before it is
    /// allocated: every port (the inputs to evaluate and the outputs their heads will ask
    /// for) and every VC (input FIFOs and the credit views the routing reads), both found
    /// from `router_vcs` without a load.
    #[inline(always)]
    fn prefetch_router_records(&self, r: usize) {
        let (base, end) = (
            self.net.port_base[r] as usize,
            self.net.port_base[r + 1] as usize,
        );
        crate::prefetch::prefetch_slice(&self.ports[base..end]);
        let vcs = self.router_vcs[r] as usize..self.router_vcs[r + 1] as usize;
        crate::prefetch::prefetch_slice(&self.vcs[vcs]);
    }

    /// Second stage: the head slots of the inputs to evaluate (their records arrived in the
    /// first stage), recorded in `row` for the third stage, which loads the head packets.
    #[inline(always)]
    fn prefetch_head_slots(&self, r: usize, row: &mut HeadRow) {
        let base = self.net.port_base[r] as usize;
        row.len = 0;
        let mut inputs = self.nonempty[r] & self.free_inputs[r] & self.awake[r];
        while inputs != 0 {
            let p = &self.ports[base + inputs.trailing_zeros() as usize];
            inputs &= inputs - 1;
            let mut vm = p.vc_mask;
            while vm != 0 {
                let fifo = &self.vcs[p.vc_base as usize + vm.trailing_zeros() as usize].fifo;
                vm &= vm - 1;
                let slot = self.slots.head_index(fifo);
                self.slots.prefetch_at(slot);
                // A hint only: a router with more heads than the row holds loads the rest
                // on demand.
                if (row.len as usize) < row.slots.len() {
                    row.slots[row.len as usize] = slot;
                    row.len += 1;
                }
            }
        }
    }
}
