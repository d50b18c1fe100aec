//! Flow control: how a buffer holds back the sender upstream of it. State is kept per input
//! VC of the whole network (the global input-VC index), on both sides of the link: what the
//! receiver holds (`occupancy`, whether it has paused its sender) and what the sender knows
//! (`credits`, whether it is paused). Signals (credits, PAUSE and resume frames) travel the
//! reverse link with its latency as kernel events; the kernel owns the link, this module the
//! rules.
//!
//! Under port-level credits a queue may also have Xon/Xoff thresholds of its own (the hook
//! the RECN paper's set-aside queues need): the port's credits bound its memory, and a
//! queue filled to `xoff` stops its sender from starting packets into that queue (only
//! that one) until it has drained to `xon`.

use crate::config::FlowControlKind;

/// A link-level frame the receiver sends upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Credit(u32),
    Pause,
    Resume,
}

#[derive(Debug)]
pub struct FlowControl {
    pub kind: FlowControlKind,
    xoff: u32,
    xon: u32,
    /// Port-level credits with Xon/Xoff per queue (`xoff` > 0).
    queue_xoff: bool,
    /// Per input VC, capacity in phits (u32::MAX: unbounded); the same as `vcs[v].capacity`,
    /// as a slice for reports.
    pub capacity: Vec<u32>,
    /// Per input VC, both sides of its flow control in one record (16 bytes, four to a
    /// cache line), so that an event or a sender's test touches one line, not one per field.
    vcs: Vec<VcState>,
    /// PAUSE frames sent, for the report.
    pub pauses_sent: u64,
    /// Port-level credits: per input VC its port; per port its memory, phits held and the
    /// sender's credits; and the most phits any port and any queue held.
    vc_port: Vec<u32>,
    port_capacity: Vec<u32>,
    port_occupancy: Vec<u32>,
    port_credits: Vec<u32>,
    pub peak_port: u32,
    pub peak_queue: u32,
}

/// One input VC's flow control: the receiver's side (capacity, phits held or arriving,
/// whether a PAUSE is outstanding) and the sender's (credits in phits, whether paused).
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(16))]
struct VcState {
    capacity: u32,
    occupancy: u32,
    credits: u32,
    paused: bool,
    paused_sender: bool,
}

const _: () = assert!(std::mem::size_of::<VcState>() == 16);

impl FlowControl {
    pub fn new(kind: FlowControlKind, xoff: u32, xon: u32, capacity: Vec<u32>) -> FlowControl {
        let capacity = if kind == FlowControlKind::None {
            vec![u32::MAX; capacity.len()]
        } else {
            capacity
        };
        let vcs = capacity
            .iter()
            .map(|&c| VcState {
                capacity: c,
                credits: c,
                ..VcState::default()
            })
            .collect();
        FlowControl {
            kind,
            xoff,
            xon,
            queue_xoff: kind == FlowControlKind::PortCredits && xoff > 0,
            vcs,
            capacity,
            pauses_sent: 0,
            vc_port: Vec::new(),
            port_capacity: Vec::new(),
            port_occupancy: Vec::new(),
            port_credits: Vec::new(),
            peak_port: 0,
            peak_queue: 0,
        }
    }

    /// The port of every input VC and the memory of every port (used by port-level
    /// credits).
    pub fn with_ports(mut self, vc_port: Vec<u32>, port_capacity: Vec<u32>) -> FlowControl {
        self.port_occupancy = vec![0; port_capacity.len()];
        self.port_credits = port_capacity.clone();
        self.port_capacity = port_capacity;
        self.vc_port = vc_port;
        self
    }

    #[inline]
    fn port(&self, vc: u32) -> usize {
        self.vc_port[vc as usize] as usize
    }

    /// Credits the sender upstream of input VC `vc` holds.
    #[inline]
    pub fn credits(&self, vc: u32) -> u32 {
        self.vcs[vc as usize].credits
    }

    /// Set the credits of the sender upstream of input VC `vc` (tests).
    pub fn set_credits(&mut self, vc: u32, credits: u32) {
        self.vcs[vc as usize].credits = credits;
    }

    /// Phits input VC `vc` holds or has arriving.
    #[inline]
    pub fn occupancy(&self, vc: u32) -> u32 {
        self.vcs[vc as usize].occupancy
    }

    /// Input VC `vc`'s capacity less [`Self::room`]: the phits it holds as far as its
    /// sender knows (least-loaded selections).
    #[inline(always)]
    pub fn held_by_room(&self, vc: u32) -> u32 {
        self.vcs[vc as usize].capacity.saturating_sub(self.room(vc))
    }

    /// Phits input VC `vc` holds as far as its sender's credits tell: its capacity less
    /// the credits.
    #[inline(always)]
    pub fn held_by_credits(&self, vc: u32) -> u32 {
        let v = &self.vcs[vc as usize];
        v.capacity.saturating_sub(v.credits)
    }

    /// Whether the sender upstream of input VC `vc` may start a packet of `len` phits into it.
    #[inline(always)]
    pub fn can_send(&self, vc: u32, len: u32) -> bool {
        match self.kind {
            FlowControlKind::Credits => self.vcs[vc as usize].credits >= len,
            FlowControlKind::Pfc => !self.vcs[vc as usize].paused,
            FlowControlKind::None => true,
            FlowControlKind::PortCredits => {
                self.port_credits[self.port(vc)] >= len && !self.vcs[vc as usize].paused
            }
        }
    }

    /// The sender starts a packet of `len` phits into input VC `vc` (after [`Self::can_send`]).
    #[inline]
    pub fn take(&mut self, vc: u32, len: u32) {
        match self.kind {
            FlowControlKind::Credits => self.vcs[vc as usize].credits -= len,
            FlowControlKind::PortCredits => {
                let p = self.port(vc);
                self.port_credits[p] -= len;
            }
            _ => {}
        }
    }

    /// Credits to choose among VCs by: the free space the sender knows of (credits), or
    /// whether it may send at all (PAUSE, none).
    #[inline(always)]
    pub fn room(&self, vc: u32) -> u32 {
        match self.kind {
            FlowControlKind::Credits => self.vcs[vc as usize].credits,
            FlowControlKind::Pfc => (!self.vcs[vc as usize].paused) as u32,
            FlowControlKind::None => 1,
            // Every queue of the port has the port's room; the emptiest queue is the
            // sender's best guess of the least contended one.
            FlowControlKind::PortCredits if self.vcs[vc as usize].paused => 0,
            FlowControlKind::PortCredits => {
                self.port_credits[self.port(vc)].saturating_sub(self.vcs[vc as usize].occupancy)
            }
        }
    }

    /// A packet's head reaches input VC `vc`: it takes `len` phits there. Returns the frame to
    /// send upstream (a PAUSE when the buffer crosses `xoff`), or Err when the buffer
    /// overflows (a packet would be lost: PFC without enough headroom).
    #[inline]
    pub fn enter(&mut self, vc: u32, len: u32) -> Result<Option<Signal>, u32> {
        let v = vc as usize;
        let occ = self.vcs[v].occupancy.saturating_add(len);
        if occ > self.vcs[v].capacity {
            return Err(occ);
        }
        self.vcs[v].occupancy = occ;
        self.peak_queue = self.peak_queue.max(occ);
        if self.kind == FlowControlKind::PortCredits {
            let p = self.port(vc);
            let held = self.port_occupancy[p] + len;
            if held > self.port_capacity[p] {
                return Err(held);
            }
            self.port_occupancy[p] = held;
            self.peak_port = self.peak_port.max(held);
        }
        if (self.kind == FlowControlKind::Pfc || self.queue_xoff)
            && occ >= self.xoff
            && !self.vcs[v].paused_sender
        {
            self.vcs[v].paused_sender = true;
            self.pauses_sent += 1;
            return Ok(Some(Signal::Pause));
        }
        Ok(None)
    }

    /// A packet of `len` phits has left input VC `vc`. Returns the frames to send upstream:
    /// a credit or a resume, and (port-level credits with Xon/Xoff per queue) a resume
    /// after the credit.
    #[inline]
    pub fn leave(&mut self, vc: u32, len: u32) -> (Option<Signal>, Option<Signal>) {
        let v = vc as usize;
        self.vcs[v].occupancy -= len;
        let occupancy = self.vcs[v].occupancy;
        let one = match self.kind {
            FlowControlKind::Credits => Some(Signal::Credit(len)),
            FlowControlKind::PortCredits => {
                let p = self.port(vc);
                self.port_occupancy[p] -= len;
                if self.queue_xoff && self.vcs[v].paused_sender && occupancy <= self.xon {
                    self.vcs[v].paused_sender = false;
                    return (Some(Signal::Credit(len)), Some(Signal::Resume));
                }
                Some(Signal::Credit(len))
            }
            FlowControlKind::Pfc => {
                if self.vcs[v].paused_sender && occupancy <= self.xon {
                    self.vcs[v].paused_sender = false;
                    Some(Signal::Resume)
                } else {
                    None
                }
            }
            FlowControlKind::None => None,
        };
        (one, None)
    }

    /// A frame for input VC `vc` reaches its sender.
    #[inline]
    pub fn receive(&mut self, vc: u32, s: Signal) {
        let v = vc as usize;
        match s {
            Signal::Credit(n) if self.kind == FlowControlKind::PortCredits => {
                let p = self.port(vc);
                self.port_credits[p] += n;
            }
            Signal::Credit(n) => self.vcs[v].credits += n,
            Signal::Pause => self.vcs[v].paused = true,
            Signal::Resume => self.vcs[v].paused = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credits_are_taken_and_come_back() {
        let mut fc = FlowControl::new(FlowControlKind::Credits, 0, 0, vec![16]);
        assert!(fc.can_send(0, 16));
        fc.take(0, 16);
        assert!(!fc.can_send(0, 1));
        // The sender counts the whole buffer as held until its credits come back.
        assert_eq!(
            (fc.credits(0), fc.held_by_credits(0), fc.held_by_room(0)),
            (0, 16, 16)
        );
        assert_eq!(fc.enter(0, 16), Ok(None));
        assert_eq!(fc.leave(0, 16), (Some(Signal::Credit(16)), None));
        assert_eq!(fc.occupancy(0), 0);
        fc.receive(0, Signal::Credit(16));
        assert!(fc.can_send(0, 16));
        assert_eq!((fc.credits(0), fc.held_by_credits(0)), (16, 0));
        // Two VCs keep their own counts.
        let mut fc = FlowControl::new(FlowControlKind::Credits, 0, 0, vec![16, 32]);
        fc.take(1, 8);
        assert_eq!(fc.enter(1, 8), Ok(None));
        assert_eq!((fc.credits(0), fc.credits(1)), (16, 24));
        assert_eq!((fc.occupancy(0), fc.occupancy(1)), (0, 8));
    }

    #[test]
    fn pfc_pauses_at_xoff_and_resumes_at_xon() {
        let mut fc = FlowControl::new(FlowControlKind::Pfc, 24, 8, vec![64]);
        assert_eq!(fc.enter(0, 8), Ok(None));
        assert_eq!(fc.enter(0, 8), Ok(None));
        assert_eq!(fc.enter(0, 8), Ok(Some(Signal::Pause)));
        // Only one PAUSE while the buffer stays above xon.
        assert_eq!(fc.enter(0, 8), Ok(None));
        assert_eq!(fc.leave(0, 8), (None, None));
        assert_eq!(fc.leave(0, 8), (None, None));
        assert_eq!(fc.leave(0, 8), (Some(Signal::Resume), None));
        fc.receive(0, Signal::Pause);
        assert!(!fc.can_send(0, 8));
        fc.receive(0, Signal::Resume);
        assert!(fc.can_send(0, 8));
        // Past the capacity a packet would be lost: an error, never a silent drop.
        let mut fc = FlowControl::new(FlowControlKind::Pfc, 24, 8, vec![32]);
        for _ in 0..4 {
            fc.enter(0, 8).unwrap();
        }
        assert_eq!(fc.enter(0, 8), Err(40));
    }

    #[test]
    fn port_credits_with_queue_xoff_stop_only_the_full_queue() {
        // Two queues (VCs 0 and 1) of one port sharing 64 phits; each pauses at 24, resumes
        // at 8.
        let mut fc = FlowControl::new(FlowControlKind::PortCredits, 24, 8, vec![64, 64])
            .with_ports(vec![0, 0], vec![64]);
        for _ in 0..3 {
            assert!(fc.can_send(0, 8));
            fc.take(0, 8);
        }
        assert_eq!(fc.enter(0, 8), Ok(None));
        assert_eq!(fc.enter(0, 8), Ok(None));
        assert_eq!(fc.enter(0, 8), Ok(Some(Signal::Pause)));
        fc.receive(0, Signal::Pause);
        // The full queue is stopped; its neighbour still has the port's credits.
        assert!(!fc.can_send(0, 8));
        assert_eq!(fc.room(0), 0);
        assert!(fc.can_send(1, 8));
        // Credits flow back as packets leave; the resume only once drained to xon.
        assert_eq!(fc.leave(0, 8), (Some(Signal::Credit(8)), None));
        assert_eq!(
            fc.leave(0, 8),
            (Some(Signal::Credit(8)), Some(Signal::Resume))
        );
        fc.receive(0, Signal::Resume);
        for _ in 0..3 {
            fc.receive(0, Signal::Credit(8));
        }
        assert!(fc.can_send(0, 8));
        // Without thresholds, port credits never pause a queue.
        let mut fc = FlowControl::new(FlowControlKind::PortCredits, 0, 0, vec![64])
            .with_ports(vec![0], vec![64]);
        for _ in 0..8 {
            assert_eq!(fc.enter(0, 8), Ok(None));
        }
    }

    #[test]
    fn without_flow_control_nothing_blocks_and_nothing_overflows() {
        let mut fc = FlowControl::new(FlowControlKind::None, 0, 0, vec![8]);
        for _ in 0..1000 {
            assert!(fc.can_send(0, 8));
            fc.take(0, 8);
            assert_eq!(fc.enter(0, 8), Ok(None));
        }
    }
}
