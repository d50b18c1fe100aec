//! The kernel's events and the timing wheel that holds them. Every event lies at most a
//! bounded number of cycles ahead (the longest link latency plus a packet, or a crossbar
//! transfer), so a wheel a little longer than that holds all of them; buckets keep their
//! capacity, so steady-state scheduling does not allocate.

/// Something that happens at a given cycle. 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ev {
    /// The head of `pkt` reaches input VC `vc` (global input-VC index) of a switch.
    Arrive { pkt: u32, vc: u32 },
    /// The head of `pkt` reaches the NIC of its destination node.
    Deliver { pkt: u32 },
    /// `phits` credits for input VC `vc` reach the sender upstream of it.
    Credit { vc: u32, phits: u32 },
    /// A PAUSE (`on`) or resume frame for input VC `vc` reaches the sender upstream of it.
    Pause { vc: u32, on: bool },
    /// The crossbar transfer of `pkt` from input VC `vc` ends: the packet is whole in output
    /// queue `queue` of global port `port`.
    XferDone {
        pkt: u32,
        vc: u32,
        port: u32,
        queue: u16,
    },
}

/// A wheel of `2^k` buckets for events within that many cycles of now.
#[derive(Debug)]
pub struct Wheel {
    buckets: Vec<Vec<Ev>>,
    mask: u64,
}

impl Wheel {
    /// A wheel for events at most `horizon` cycles ahead.
    pub fn new(horizon: u64) -> Wheel {
        let size = (horizon + 1).next_power_of_two().max(2);
        Wheel {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
        }
    }

    /// Schedule `ev` at cycle `at`, with `now <= at <= now + horizon`.
    #[inline]
    pub fn at(&mut self, now: u64, at: u64, ev: Ev) {
        assert!(
            at >= now && at - now <= self.mask,
            "event {ev:?} at {at} is beyond the wheel's horizon from {now}"
        );
        self.buckets[(at & self.mask) as usize].push(ev);
    }

    /// Take the events of cycle `now` into `out` (cleared first), in the order scheduled.
    #[inline]
    pub fn take(&mut self, now: u64, out: &mut Vec<Ev>) {
        out.clear();
        std::mem::swap(&mut self.buckets[(now & self.mask) as usize], out);
    }

    /// Every pending event (for audits and deadlock reports).
    pub fn pending(&self) -> impl Iterator<Item = &Ev> {
        self.buckets.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_back_at_their_cycle_in_order() {
        let mut w = Wheel::new(5);
        w.at(0, 3, Ev::Deliver { pkt: 1 });
        w.at(0, 3, Ev::Deliver { pkt: 2 });
        w.at(0, 5, Ev::Deliver { pkt: 3 });
        let mut out = Vec::new();
        let mut got = Vec::new();
        for now in 0..=12 {
            w.take(now, &mut out);
            for e in &out {
                got.push((now, *e));
            }
            if now == 5 {
                w.at(5, 12, Ev::Deliver { pkt: 4 });
            }
        }
        assert_eq!(
            got,
            vec![
                (3, Ev::Deliver { pkt: 1 }),
                (3, Ev::Deliver { pkt: 2 }),
                (5, Ev::Deliver { pkt: 3 }),
                (12, Ev::Deliver { pkt: 4 }),
            ]
        );
    }

    #[test]
    #[should_panic(expected = "beyond the wheel's horizon")]
    fn an_event_past_the_horizon_is_a_bug() {
        let mut w = Wheel::new(5);
        w.at(0, 100, Ev::Deliver { pkt: 1 });
    }
}
