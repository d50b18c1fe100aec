//! Packets and the packet pool. Packets live in one slab and are referred to by `u32` index,
//! so moving a packet through the network never allocates.

/// Routing state carried in the packet header. Its meaning belongs to the routing algorithm.
/// Packed to 6 bytes so that a whole packet fits in 32 (read its fields by value).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, packed(2))]
pub struct RouteState {
    /// Path phase (0 = towards the intermediate, 1 = towards the destination, ...).
    pub phase: u8,
    /// Algorithm-specific flags (decision taken, misroute used, ...).
    pub flags: u8,
    /// Intermediate group or router, algorithm-specific.
    pub inter: u32,
}

/// 32 bytes, aligned to 32: two packets per cache line and none straddling two. The
/// allocator reads a head packet's fields right after a miss on it, and the packets in
/// flight are the largest scattered working set of a run. Times are 32-bit cycles, as
/// everywhere in the engine (runs are limited to 4×10⁹ cycles, validated).
#[derive(Debug, Clone, Copy)]
#[repr(align(32))]
pub struct Packet {
    /// Source terminal.
    pub src: u32,
    /// Router the destination terminal attaches to (routing needs it at every hop).
    pub dst_router: u32,
    pub gen_time: u32,
    /// Cycle it left the injection queue ([`NO_TIME`] until then).
    pub inject_time: u32,
    pub len: u16,
    /// Router-to-router hops so far.
    pub hops: u16,
    /// Hops taken on escape-subnetwork VCs.
    pub escape_hops: u16,
    /// Terminal port of `dst_router` that the destination attaches to.
    pub dst_port: u8,
    pub global_hops: u8,
    /// How many times the packet entered an escape subnetwork.
    pub escape_entries: u8,
    /// Set when any routing decision made the path non-minimal.
    pub misrouted: bool,
    pub route: RouteState,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 32);

impl Packet {
    /// A packet generated at cycle `gen_time`, not yet injected.
    pub fn new(src: u32, dst_router: u32, dst_port: u8, gen_time: u32, len: u16) -> Packet {
        Packet {
            src,
            dst_router,
            dst_port,
            gen_time,
            inject_time: NO_TIME,
            len,
            hops: 0,
            global_hops: 0,
            escape_hops: 0,
            escape_entries: 0,
            misrouted: false,
            route: RouteState::default(),
        }
    }
}

pub const NO_TIME: u32 = u32::MAX;

/// The slab of packets.
pub type PacketPool = crate::slab::Slab<Packet>;
