//! The simulator's random number generator: xoshiro256++ seeded from the run's seed. One
//! stream per run, drawn in a fixed order, so a run is a pure function of its seed.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }
    /// Uniform integer in [0, n) (n > 0), by Lemire's multiply-shift (bias < n / 2^64).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform float in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Cycles until the next success of a Bernoulli process with probability `p` per cycle
    /// (>= 1). Sampling the gap directly costs work per packet instead of per node and cycle.
    #[inline]
    pub fn geometric(&mut self, p: f64) -> u64 {
        if p >= 1.0 {
            return 1;
        }
        let u = 1.0 - self.unit(); // (0, 1]
        1 + (u.ln() / (1.0 - p).ln()).floor() as u64
    }
}
