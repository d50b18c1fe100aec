//! Packets and the packet pool. Packets live in one slab and are referred to by `u32` index,
//! so moving a packet through the network never allocates.

/// Routing state carried in the packet header. Its meaning belongs to the routing algorithm.
#[derive(Debug, Clone, Copy, Default)]
pub struct RouteState {
    /// Path phase (0 = towards the intermediate, 1 = towards the destination, ...).
    pub phase: u8,
    /// Algorithm-specific flags (decision taken, misroute used, ...).
    pub flags: u8,
    /// Intermediate group or router, algorithm-specific.
    pub inter: u32,
}

/// Aligned to a cache line: the allocator reads a head packet's fields right after a miss on
/// it, and a packet straddling two lines would cost two.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct Packet {
    pub src: u32,
    pub dst: u32,
    /// Router the destination terminal attaches to (cached: routing needs it at every hop).
    pub dst_router: u32,
    pub gen_time: u64,
    /// Cycle it left the injection queue (u64::MAX until then).
    pub inject_time: u64,
    pub len: u16,
    /// Router-to-router hops so far.
    pub hops: u16,
    pub local_hops: u8,
    pub global_hops: u8,
    /// Hops taken on escape-subnetwork VCs, and how many times the packet entered one.
    pub escape_hops: u16,
    pub escape_entries: u8,
    /// Set when any routing decision made the path non-minimal.
    pub misrouted: bool,
    pub route: RouteState,
}

pub const NO_TIME: u64 = u64::MAX;

/// Slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
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
    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    /// High-water mark of simultaneously live packets.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
