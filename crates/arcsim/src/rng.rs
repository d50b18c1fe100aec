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
        Geometric::new(p).sample(self)
    }
}

/// Gaps of a Bernoulli process with a fixed probability per cycle, with the logarithm of the
/// failure probability computed once instead of at every draw.
#[derive(Debug, Clone, Copy)]
pub struct Geometric {
    /// ln(1 - p); None when p >= 1 (every cycle is a success).
    denom: Option<f64>,
}

impl Geometric {
    pub fn new(p: f64) -> Geometric {
        // For tiny p, 1 - p rounds to 1 and its logarithm to 0, which would make every gap 1
        // (a load of 1e-300 injecting at full speed): ln_1p is exact there. Above the cut the
        // original expression is kept, so that runs at ordinary loads draw the same gaps.
        let denom = (p < 1.0).then(|| {
            if p < 1e-9 {
                (-p).ln_1p()
            } else {
                (1.0 - p).ln()
            }
        });
        Geometric { denom }
    }

    /// Draw one gap (>= 1).
    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let Some(denom) = self.denom else {
            return 1;
        };
        // u lies in (0, 1].
        let u = 1.0 - rng.unit();
        // Capped far beyond any run (4e9 cycles), so that `now + gap` cannot overflow.
        1 + ((u.ln() / denom).floor() as u64).min(1 << 62)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_gaps_of_tiny_probabilities_are_long() {
        // 1 - 1e-300 rounds to 1: the gap must not collapse to 1 cycle (full-speed
        // injection at a load of 1e-300), nor overflow.
        let mut rng = Rng::new(1);
        for p in [1e-300, 5e-324, 1e-17, 1e-12] {
            for _ in 0..100 {
                let g = rng.geometric(p);
                assert!(g > 1_000_000, "p = {p}: gap {g}");
                assert!(g <= (1 << 62) + 1, "p = {p}: gap {g}");
            }
        }
        // Ordinary probabilities keep their mean 1/p.
        let n = 100_000;
        let mean = (0..n).map(|_| rng.geometric(0.05)).sum::<u64>() as f64 / n as f64;
        assert!((mean - 20.0).abs() < 0.5, "mean gap {mean}");
    }
}
