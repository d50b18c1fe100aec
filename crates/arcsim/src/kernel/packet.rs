//! The kernel's packet record. Packets live in one slab ([`crate::slab::Slab`]) and are
//! referred to by `u32` index, so moving a packet never allocates.

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
/// [`Packet::route`]: no intermediate switch (the packet goes minimally to its destination).
pub const NO_VIA: u32 = 0x7FFF_FFFF;
/// [`Packet::route`]: the packet was sent on a non-minimal path (counted as misrouted).
pub const MISROUTED: u32 = 1 << 31;

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
    /// Non-minimal routing state, decided once at the source switch
    /// ([`crate::kernel::Kernel::route_at_injection`]): the low 31 bits the intermediate
    /// switch the packet is routed to first ([`NO_VIA`]: none, or reached), the top bit
    /// [`MISROUTED`].
    pub route: u32,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 48);

impl Packet {
    /// The intermediate switch still to reach, or [`NO_VIA`].
    #[inline]
    pub fn via(&self) -> u32 {
        self.route & NO_VIA
    }
    /// Whether the packet was sent on a non-minimal path.
    #[inline]
    pub fn misrouted(&self) -> bool {
        self.route & MISROUTED != 0
    }
}

/// The slab of packets.
pub type Pool = crate::slab::Slab<Packet>;
