//! Timing wheel for the engine's short-horizon events (head arrivals and credit returns).
//! Every event lies at most one link latency in the future, so a wheel a little longer than
//! the largest latency holds all of them; buckets keep their capacity, so steady-state
//! scheduling does not allocate.

/// An engine event. Each names the router and its local port so that processing it needs no
/// lookups (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The head of packet `pkt` reaches input VC `vc` (global VC index) of `port`.
    HeadArrival {
        pkt: u32,
        vc: u32,
        router: u32,
        port: u8,
    },
    /// The downstream buffer behind output VC `vc` of `port` starts returning `len` credits,
    /// one per cycle (phit-accurate credit return without an event per phit).
    CreditDrain {
        vc: u32,
        len: u16,
        router: u32,
        port: u8,
    },
    /// Input `port` finished reading its packet into the crossbar.
    InputFree { router: u32, port: u8 },
    /// A head of input `port` may stop sleeping (its sleep time has come).
    Wake { router: u32, port: u8 },
}

#[derive(Debug)]
pub struct TimeWheel {
    buckets: Vec<Vec<Event>>,
    mask: u64,
    pending: usize,
}

impl TimeWheel {
    /// A wheel that can hold events up to `horizon` cycles ahead.
    pub fn new(horizon: u64) -> TimeWheel {
        let size = (horizon + 2).next_power_of_two();
        TimeWheel {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
            pending: 0,
        }
    }

    #[inline]
    pub fn schedule(&mut self, now: u64, at: u64, ev: Event) {
        debug_assert!(
            at > now && at - now <= self.mask,
            "event beyond the wheel horizon"
        );
        self.buckets[(at & self.mask) as usize].push(ev);
        self.pending += 1;
    }

    /// Take the bucket of cycle `now` (swap with `scratch` to keep both allocations alive).
    #[inline]
    pub fn take(&mut self, now: u64, scratch: &mut Vec<Event>) {
        scratch.clear();
        std::mem::swap(&mut self.buckets[(now & self.mask) as usize], scratch);
        self.pending -= scratch.len();
    }

    /// Packets of all pending head arrivals (for audits; not used in the hot loop).
    pub fn arrivals(&self) -> impl Iterator<Item = u32> + '_ {
        self.buckets.iter().flatten().filter_map(|e| match e {
            Event::HeadArrival { pkt, .. } => Some(*pkt),
            _ => None,
        })
    }

    pub fn pending(&self) -> usize {
        self.pending
    }
}
