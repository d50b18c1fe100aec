//! Timing wheel for the engine's short-horizon events (head arrivals and credit returns).
//! Every event lies at most one link latency in the future, so a wheel a little longer than
//! the largest latency holds all of them; buckets keep their capacity, so steady-state
//! scheduling does not allocate.

/// An engine event, as code builds and reads it. The wheel stores it packed into 8 bytes
/// ([`Packed`]): head arrivals and credit returns keep only their global VC, whose router
/// and port come back from the engine's VC table (`vc_home`).
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

/// An [`Event`] in 8 bytes: the kind in the low 2 bits of `word`, above them the global VC
/// (head arrival, credit return) or `router << 6 | port` (input free, wake); `data` holds
/// the packet (head arrival) or the credit count (credit return). Halving the event size
/// halves the memory traffic of the wheel, a few megabytes per thousand cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packed {
    word: u32,
    data: u32,
}

pub const HEAD: u32 = 0;
pub const CREDIT: u32 = 1;
pub const FREE: u32 = 2;
pub const WAKE: u32 = 3;

/// Router and local port of a `router << 6 | port` word (input-free and wake events, and
/// the engine's per-VC home table).
#[inline(always)]
pub fn split_home(h: u32) -> (u32, usize) {
    (h >> 6, (h & 63) as usize)
}

/// Largest router index + 1 and largest VC index + 1 an event can name.
pub const MAX_ROUTERS: usize = 1 << 24;
pub const MAX_VCS: usize = 1 << 30;

impl Event {
    #[inline(always)]
    pub fn pack(self) -> Packed {
        match self {
            Event::HeadArrival { pkt, vc, .. } => Packed {
                word: vc << 2 | HEAD,
                data: pkt,
            },
            Event::CreditDrain { vc, len, .. } => Packed {
                word: vc << 2 | CREDIT,
                data: len as u32,
            },
            Event::InputFree { router, port } => Packed {
                word: (router << 6 | port as u32) << 2 | FREE,
                data: 0,
            },
            Event::Wake { router, port } => Packed {
                word: (router << 6 | port as u32) << 2 | WAKE,
                data: 0,
            },
        }
    }
}

impl Packed {
    /// The VC of a head arrival or credit return.
    // The engine reads events by kind (`kind`, `word`, `data`); the tests check the
    // encoding through the full decoders.
    #[cfg(test)]
    #[inline(always)]
    pub fn vc(self) -> Option<u32> {
        (self.word & 3 <= CREDIT).then_some(self.word >> 2)
    }

    /// The event's kind, 0..[`KINDS`]: head arrival, credit return, input free, wake.
    #[inline(always)]
    pub fn kind(self) -> usize {
        (self.word & 3) as usize
    }

    /// The word after the kind: the global VC (head arrival, credit return) or
    /// `router << 6 | port` (input free, wake).
    #[inline(always)]
    pub fn word(self) -> u32 {
        self.word >> 2
    }

    /// The packet (head arrival) or the credit count (credit return).
    #[inline(always)]
    pub fn data(self) -> u32 {
        self.data
    }

    /// The packet of a head arrival.
    // The engine reads events by kind (`kind`, `word`, `data`); the tests check the
    // encoding through the full decoders.
    #[cfg(test)]
    #[inline(always)]
    pub fn arrival(self) -> Option<(u32, u32)> {
        (self.word & 3 == HEAD).then_some((self.data, self.word >> 2))
    }

    /// The full event; `home[vc]` is `router << 6 | port` of every VC.
    // The engine reads events by kind (`kind`, `word`, `data`); the tests check the
    // encoding through the full decoders.
    #[cfg(test)]
    #[inline(always)]
    pub fn unpack(self, home: &[u32]) -> Event {
        let x = self.word >> 2;
        let at = |h: u32| {
            let (router, port) = split_home(h);
            (router, port as u8)
        };
        match self.word & 3 {
            HEAD => {
                let (router, port) = at(home[x as usize]);
                Event::HeadArrival {
                    pkt: self.data,
                    vc: x,
                    router,
                    port,
                }
            }
            CREDIT => {
                let (router, port) = at(home[x as usize]);
                Event::CreditDrain {
                    vc: x,
                    len: self.data as u16,
                    router,
                    port,
                }
            }
            FREE => {
                let (router, port) = at(x);
                Event::InputFree { router, port }
            }
            _ => {
                let (router, port) = at(x);
                Event::Wake { router, port }
            }
        }
    }
}

/// Number of event kinds; the wheel keeps each kind in its own list.
pub const KINDS: usize = 4;

/// The events of one cycle, one list per kind (indexed by [`Packed::kind`]).
pub type Bucket = [Vec<Packed>; KINDS];

/// Events of one cycle, by kind: the engine handles each kind in its own loop, so that the
/// dispatch on the kind, which no branch predictor can learn from the traffic's order, is
/// not made per event. Events of one cycle commute (each touches its own VC or port, or
/// sets bits), so the order of the kinds changes no result.
#[derive(Debug)]
pub struct TimeWheel {
    buckets: Vec<Bucket>,
    mask: u64,
    pending: usize,
}

impl TimeWheel {
    /// A wheel that can hold events up to `horizon` cycles ahead.
    pub fn new(horizon: u64) -> TimeWheel {
        let size = (horizon + 2).next_power_of_two();
        TimeWheel {
            buckets: (0..size).map(|_| Default::default()).collect(),
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
        let ev = ev.pack();
        self.buckets[(at & self.mask) as usize][ev.kind()].push(ev);
        self.pending += 1;
    }

    /// Take the bucket of cycle `now` (swap with `scratch` to keep both allocations alive).
    #[inline]
    pub fn take(&mut self, now: u64, scratch: &mut Bucket) {
        let bucket = &mut self.buckets[(now & self.mask) as usize];
        for (mine, theirs) in bucket.iter_mut().zip(scratch.iter_mut()) {
            theirs.clear();
            std::mem::swap(mine, theirs);
            self.pending -= theirs.len();
        }
    }

    /// Packets of all pending head arrivals (for audits; not used in the hot loop).
    pub fn arrivals(&self) -> impl Iterator<Item = u32> + '_ {
        self.buckets
            .iter()
            .flat_map(|b| b[HEAD as usize].iter())
            .map(|e| e.data())
    }

    pub fn pending(&self) -> usize {
        self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pack_into_eight_bytes_and_unpack_unchanged() {
        assert_eq!(std::mem::size_of::<Packed>(), 8);
        // VC 5 belongs to router 1000, port 17; VC 7 to router 3, port 63.
        let mut home = vec![0u32; 8];
        home[5] = 1000 << 6 | 17;
        home[7] = 3 << 6 | 63;
        let events = [
            Event::HeadArrival {
                pkt: u32::MAX - 1,
                vc: 5,
                router: 1000,
                port: 17,
            },
            Event::CreditDrain {
                vc: 7,
                len: 4096,
                router: 3,
                port: 63,
            },
            Event::InputFree {
                router: (MAX_ROUTERS - 1) as u32,
                port: 63,
            },
            Event::Wake { router: 0, port: 0 },
        ];
        for e in events {
            assert_eq!(e.pack().unpack(&home), e);
        }
        assert_eq!(events[0].pack().arrival(), Some((u32::MAX - 1, 5)));
        assert_eq!(events[1].pack().vc(), Some(7));
        assert_eq!(events[2].pack().vc(), None);
    }
}
