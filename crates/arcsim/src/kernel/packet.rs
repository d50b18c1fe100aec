//! The kernel's packet record and its pool. Packets live in one slab and are referred to by
//! `u32` index, so moving a packet never allocates.

/// What a packet is. Control packets (congestion notifications and the like) come from the
/// same pool and take link bandwidth like data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data,
    Control,
}

/// No flow: a packet of the synthetic traffic.
pub const NO_FLOW: u32 = u32::MAX;
/// No time yet.
pub const NEVER: u32 = u32::MAX;

/// 48 bytes.
#[derive(Debug, Clone, Copy)]
pub struct Packet {
    pub src: u32,
    pub dst: u32,
    /// Switch the destination node attaches to (routing reads it at every hop).
    pub dst_switch: u32,
    pub gen_time: u32,
    /// Cycle its head left the source NIC ([`NEVER`] until then).
    pub inject_time: u32,
    /// In an input buffer: the cycle its head arrived. In an output queue: the cycle it may
    /// take the link.
    pub at: u32,
    /// Flow ([`NO_FLOW`] for synthetic traffic) and message (index into the kernel's
    /// message table, for reassembly).
    pub flow: u32,
    pub msg: u32,
    /// Place of the packet in its message (0, 1, ...).
    pub seq: u32,
    /// Length in phits (the last packet of a message may be shorter).
    pub len: u16,
    /// Switch-to-switch hops so far, and how many of them were on global links.
    pub hops: u8,
    pub global_hops: u8,
    /// The VC (queue) it takes at the next buffer, chosen when it crosses the crossbar.
    pub vc: u16,
    pub kind: Kind,
    /// Class (priority) of the packet; 0 for data.
    pub class: u8,
}

/// Slab of packets with a free list.
#[derive(Debug, Default)]
pub struct Pool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl Pool {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
}
