//! Progress of a batch of simulations. On a terminal, indicatif's bar. When standard error
//! is not a terminal (a figure run in the background with its output in a log), the bar
//! draws nothing, so a plain line is written instead, at most once a minute: a long figure
//! still tells how far it is and about how long it has left.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Shortest time between two log lines.
const LOG_EVERY: Duration = Duration::from_secs(60);

pub struct Progress {
    bar: ProgressBar,
    /// When the last log line was written; None on a terminal, where the bar is drawn.
    logged: Option<Mutex<Instant>>,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} simulations, eta {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        let logged = (!std::io::stderr().is_terminal()).then(|| Mutex::new(Instant::now()));
        Progress { bar, logged }
    }

    /// One simulation finished (called from the worker threads).
    pub fn inc(&self) {
        self.bar.inc(1);
        // A poisoned lock only means another worker panicked; the line can wait.
        let Some(Ok(mut last)) = self.logged.as_ref().map(Mutex::lock) else {
            return;
        };
        // The bar keeps its count, length and start even where it draws nothing.
        let (done, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
        let now = Instant::now();
        if done < total && now.duration_since(*last) >= LOG_EVERY {
            *last = now;
            eprintln!("{}", log_line(done, total, self.bar.elapsed()));
        }
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// Progress of one `arcsim run` (all its seeds): a bar of the share done with the time left
/// on a terminal, else a line at most once a minute. Fed by the engine's ticks
/// ([`arcsim::Simulator::run_with`]), every few thousand cycles.
pub struct RunProgress {
    bar: ProgressBar,
    logged: Option<Instant>,
}

/// Steps of the run's bar.
const RUN_STEPS: u64 = 1000;

impl Default for RunProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl RunProgress {
    pub fn new() -> RunProgress {
        let bar = ProgressBar::new(RUN_STEPS);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {percent}% of the run, eta {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        let logged = (!std::io::stderr().is_terminal()).then(Instant::now);
        RunProgress { bar, logged }
    }

    /// `done`: the share of the whole run done (0 to 1).
    pub fn set(&mut self, done: f64) {
        let pos = (done.clamp(0.0, 1.0) * RUN_STEPS as f64) as u64;
        self.bar.set_position(pos);
        let Some(last) = self.logged.as_mut() else {
            return;
        };
        let now = Instant::now();
        if pos > 0 && pos < RUN_STEPS && now.duration_since(*last) >= LOG_EVERY {
            *last = now;
            let elapsed = self.bar.elapsed();
            let left = elapsed.mul_f64((RUN_STEPS - pos) as f64 / pos as f64);
            eprintln!(
                "arcsim: {:.0}% of the run done after {}, about {} left",
                100.0 * pos as f64 / RUN_STEPS as f64,
                duration(elapsed),
                duration(left)
            );
        }
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// "25 of 180 simulations done after 12m03s, about 1h14m left": the time left assumes the
/// rest run at the pace of those done.
fn log_line(done: u64, total: u64, elapsed: Duration) -> String {
    let left = elapsed.mul_f64((total - done) as f64 / done.max(1) as f64);
    format!(
        "arcsim: {done} of {total} simulations done after {}, about {} left",
        duration(elapsed),
        duration(left)
    )
}

/// 45s, 12m03s, 1h14m.
fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_hours_minutes_seconds() {
        assert_eq!(duration(Duration::from_secs(45)), "45s");
        assert_eq!(duration(Duration::from_secs(723)), "12m03s");
        assert_eq!(duration(Duration::from_secs(4440)), "1h14m");
    }

    #[test]
    fn the_time_left_follows_the_pace_so_far() {
        // 25 done in 10 minutes: 155 more take 62 minutes.
        assert_eq!(
            log_line(25, 180, Duration::from_secs(600)),
            "arcsim: 25 of 180 simulations done after 10m00s, about 1h02m left"
        );
    }
}
