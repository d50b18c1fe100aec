//! The kernel's events and the timing wheel that holds them. Nearly every event lies at
//! most a bounded number of cycles ahead (the longest link latency plus a packet, or a
//! crossbar transfer), so a wheel a little longer than that holds them; buckets keep their
//! capacity, so steady-state scheduling does not allocate. The rare event beyond (a frame
//! queued behind others on a busy link) waits in an overflow list, looked at once a turn.

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
    overflow: Vec<(u64, Ev)>,
}

impl Wheel {
    /// A wheel for events at most `horizon` cycles ahead.
    pub fn new(horizon: u64) -> Wheel {
        let size = (horizon + 1).next_power_of_two().max(2);
        Wheel {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
            overflow: Vec::new(),
        }
    }

    /// Schedule `ev` at cycle `at` (not before `now`).
    #[inline]
    pub fn at(&mut self, now: u64, at: u64, ev: Ev) {
        assert!(at >= now, "event {ev:?} at {at} is in the past at {now}");
        if at - now <= self.mask {
            self.buckets[(at & self.mask) as usize].push(ev);
        } else {
            self.overflow.push((at, ev));
        }
    }

    /// Take the events of cycle `now` into `out` (cleared first). Call once per cycle, in
    /// order.
    #[inline]
    pub fn take(&mut self, now: u64, out: &mut Vec<Ev>) {
        if now & self.mask == 0 && !self.overflow.is_empty() {
            // Once a turn: the overflow's events that now fall within the wheel, in the
            // order they were scheduled.
            let horizon = now + self.mask;
            let mut i = 0;
            while i < self.overflow.len() {
                let (at, ev) = self.overflow[i];
                if at <= horizon {
                    self.buckets[(at & self.mask) as usize].push(ev);
                    self.overflow.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        out.clear();
        std::mem::swap(&mut self.buckets[(now & self.mask) as usize], out);
    }

    /// Every pending event (for audits and deadlock reports).
    pub fn pending(&self) -> impl Iterator<Item = &Ev> {
        self.buckets
            .iter()
            .flatten()
            .chain(self.overflow.iter().map(|(_, e)| e))
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
    fn an_event_past_the_horizon_waits_in_the_overflow() {
        let mut w = Wheel::new(5);
        w.at(0, 100, Ev::Deliver { pkt: 1 });
        w.at(3, 21, Ev::Deliver { pkt: 2 });
        assert_eq!(w.pending().count(), 2);
        let mut out = Vec::new();
        let mut got = Vec::new();
        for now in 0..=120 {
            w.take(now, &mut out);
            got.extend(out.iter().map(|e| (now, *e)));
        }
        assert_eq!(
            got,
            vec![(21, Ev::Deliver { pkt: 2 }), (100, Ev::Deliver { pkt: 1 })]
        );
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn an_event_in_the_past_is_a_bug() {
        let mut w = Wheel::new(5);
        w.at(10, 3, Ev::Deliver { pkt: 1 });
    }
}
