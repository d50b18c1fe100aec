//! Input VC FIFOs and output VC credit counters, stored flat for the whole network.

/// Fixed-capacity FIFO of packet ids for one input VC; slots live in a shared array.
///
/// The `sleep_*` fields let the allocator skip a blocked head packet until its outcome can
/// change: until cycle `sleep_until` ([`SLEEP_FOREVER`]: until a credit returns), unless a
/// credit returns to output port `sleep_port` (seen as a change of that port's credit epoch
/// from `sleep_epoch`). A credit return also sets the input's awake bit (watchers), so the
/// epoch is compared at the input's next evaluation, within one packet time of the return.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct InVc {
    pub base: u32,
    pub cap: u16,
    pub head: u16,
    pub len: u16,
    pub sleep_port: u8,
    pub sleep_epoch: u8,
    pub sleep_until: u32,
}

/// `sleep_port` value meaning "no port watched".
pub const NO_PORT: u8 = u8::MAX;

/// `sleep_port` value meaning "two ports watched": they are kept outside the FIFO record
/// (`Simulation::sleep_pair`), and `sleep_epoch` is the sum of their credit epochs.
pub const PAIR_PORT: u8 = u8::MAX - 1;

/// `sleep_until` value meaning "no cycle: only a credit return can help".
pub const SLEEP_FOREVER: u32 = u32::MAX;

impl InVc {
    /// Forget any sleep (the head changed).
    #[inline]
    pub fn wake(&mut self) {
        self.sleep_until = 0;
        self.sleep_port = NO_PORT;
    }
}

/// Upstream view of one downstream input VC.
///
/// Credits come back one per cycle as the downstream buffer drains. Because one VC drains one
/// packet at a time, the return is a sequence of non-overlapping ramps: `settled` credits
/// plus the current ramp that started at `drain_start` and returns `drain_len` credits.
/// `settled` may dip below zero while a packet is sent on credits still arriving on the ramp.
/// With `router.credit_return = "packet"` there are no ramps: [`OutVc::refund`] adds a whole
/// packet's credits to `settled`. Times are `u32` cycles and buffers at most 65,535 phits
/// (both validated).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct OutVc {
    pub settled: i32,
    pub drain_start: u32,
    pub drain_len: u16,
    pub capacity: u16,
}

impl OutVc {
    pub fn new(capacity: u32) -> OutVc {
        debug_assert!(capacity <= u16::MAX as u32);
        OutVc {
            settled: capacity as i32,
            drain_start: 0,
            drain_len: 0,
            capacity: capacity as u16,
        }
    }

    /// Credits available at cycle `now`.
    #[inline]
    pub fn credits(&self, now: u64) -> u32 {
        // (now + 1 - drain_start) clamped to 0..=drain_len, without a branch: 0 before the
        // ramp starts (times fit in u32 with room for the + 1: validated).
        let ramp = (now as u32 + 1)
            .saturating_sub(self.drain_start)
            .min(self.drain_len as u32);
        (self.settled + ramp as i32) as u32
    }

    /// Earliest cycle at which `credits` reaches `len` if no further credit returns arrive
    /// (u64::MAX when only a future return can provide them).
    #[inline]
    pub fn ready_at(&self, len: u32) -> u64 {
        let need = len as i64 - self.settled as i64;
        if need <= 0 {
            return 0;
        }
        if need > self.drain_len as i64 {
            return u64::MAX;
        }
        self.drain_start as u64 + need as u64 - 1
    }

    /// Phits the upstream router believes are in (or on their way to) the downstream buffer.
    #[inline]
    pub fn occupancy(&self, now: u64) -> u32 {
        self.capacity as u32 - self.credits(now)
    }

    /// Spend `len` credits; the caller checked `credits(now) >= len`.
    #[inline]
    pub fn consume(&mut self, len: u32) {
        self.settled -= len as i32;
    }

    /// Give back `len` credits at once (`router.credit_return = "packet"`); no ramp is used
    /// then, so `drain_len` stays 0.
    #[inline]
    pub fn refund(&mut self, len: u32) {
        debug_assert_eq!(self.drain_len, 0);
        self.settled += len as i32;
    }

    /// Start a new ramp at `now`; the previous one has ended (drains are serial).
    #[inline]
    pub fn start_drain(&mut self, now: u64, len: u32) {
        let now = now as u32;
        debug_assert!(now >= self.drain_start + self.drain_len as u32 || self.drain_len == 0);
        self.settled += self.drain_len as i32;
        self.drain_start = now;
        self.drain_len = len as u16;
    }
}

/// Packet-id slots of every input FIFO; each [`InVc`] owns `cap` consecutive slots.
#[derive(Debug, Default)]
pub struct Slots {
    slots: Vec<u32>,
}

impl Slots {
    /// A new empty FIFO of `cap` packets.
    pub fn add(&mut self, cap: u16) -> InVc {
        let base = self.slots.len() as u32;
        self.slots.resize(self.slots.len() + cap as usize, u32::MAX);
        InVc {
            base,
            cap,
            head: 0,
            len: 0,
            sleep_port: NO_PORT,
            sleep_epoch: 0,
            sleep_until: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, v: &mut InVc, pkt: u32) -> bool {
        if v.len == v.cap {
            return false;
        }
        let pos = v.head as usize + v.len as usize;
        let pos = if pos >= v.cap as usize {
            pos - v.cap as usize
        } else {
            pos
        };
        self.slots[v.base as usize + pos] = pkt;
        v.len += 1;
        true
    }

    /// Hint that the slot the next push to `v` writes will be needed.
    #[inline(always)]
    pub fn prefetch_tail(&self, v: &InVc) {
        let pos = (v.head as usize + v.len as usize) % v.cap.max(1) as usize;
        if let Some(s) = self.slots.get(v.base as usize + pos) {
            crate::prefetch::prefetch(s);
        }
    }

    /// Index (into the shared slot array) of the head slot of `v`.
    #[inline(always)]
    pub fn head_index(&self, v: &InVc) -> u32 {
        v.base + v.head as u32
    }

    /// The packet id in slot `index` (a [`Slots::head_index`]).
    #[inline(always)]
    pub fn at(&self, index: u32) -> u32 {
        self.slots[index as usize]
    }

    /// Hint that slot `index` will be read.
    #[inline(always)]
    pub fn prefetch_at(&self, index: u32) {
        if let Some(s) = self.slots.get(index as usize) {
            crate::prefetch::prefetch(s);
        }
    }

    #[inline]
    pub fn front(&self, v: &InVc) -> Option<u32> {
        (v.len > 0).then(|| self.slots[v.base as usize + v.head as usize])
    }

    #[inline]
    pub fn pop(&self, v: &mut InVc) -> u32 {
        debug_assert!(v.len > 0);
        let pkt = self.slots[v.base as usize + v.head as usize];
        v.head = if v.head + 1 == v.cap { 0 } else { v.head + 1 };
        v.len -= 1;
        pkt
    }

    /// Packet at position `i` from the front.
    pub fn nth(&self, v: &InVc, i: usize) -> u32 {
        self.slots[v.base as usize + (v.head as usize + i) % v.cap as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credit_ramp_is_phit_accurate() {
        let mut o = OutVc::new(32);
        o.consume(8);
        o.consume(8);
        assert_eq!(o.credits(0), 16);
        o.start_drain(100, 8);
        assert_eq!(o.credits(99), 16);
        assert_eq!(o.credits(100), 17);
        assert_eq!(o.credits(107), 24);
        assert_eq!(o.credits(500), 24);
        assert_eq!(o.ready_at(20), 103);
        assert_eq!(o.ready_at(25), u64::MAX);
        o.start_drain(108, 8);
        assert_eq!(o.credits(108), 25);
        assert_eq!(o.credits(200), 32);
    }

    #[test]
    fn packet_refund_returns_everything_at_once() {
        let mut o = OutVc::new(32);
        o.consume(8);
        o.consume(8);
        o.refund(8);
        assert_eq!(o.credits(0), 24);
        assert_eq!(o.occupancy(0), 8);
        // Ready now for what it holds, never (without another refund) for more.
        assert_eq!(o.ready_at(24), 0);
        assert_eq!(o.ready_at(25), u64::MAX);
    }

    #[test]
    fn fifo_wraps() {
        let mut s = Slots::default();
        let _other = s.add(2);
        let mut vc = s.add(3);
        for round in 0..5u32 {
            assert!(s.push(&mut vc, round * 10));
            assert!(s.push(&mut vc, round * 10 + 1));
            assert_eq!(s.pop(&mut vc), round * 10);
            assert_eq!(s.front(&vc), Some(round * 10 + 1));
            assert_eq!(s.pop(&mut vc), round * 10 + 1);
        }
        assert!(s.push(&mut vc, 1) && s.push(&mut vc, 2) && s.push(&mut vc, 3));
        assert!(!s.push(&mut vc, 4));
        assert_eq!(s.nth(&vc, 2), 3);
    }
}
