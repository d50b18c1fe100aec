//! Stopping cleanly on Ctrl-C, SIGTERM or SIGHUP: the first signal asks the running
//! simulations to stop (they check every few thousand cycles), the command keeps what is
//! finished and says what it kept; a second signal ends the process at once.
//!
//! Test hook: `ARCSIM_TEST_STOP_AFTER=N` asks for the stop once N simulations of a sweep or
//! figure have finished, as a Ctrl-C at that moment would (deterministic with `--threads 1`).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static FINISHED: AtomicUsize = AtomicUsize::new(0);

/// Exit status of a command stopped by a signal (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Install the handler (once, at start).
pub fn install() {
    // Failing to install it leaves the default behaviour (the process ends): not worth
    // refusing to run for.
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("\narcsim: stopped at once (second interruption); files being written are left as they were");
            std::process::exit(EXIT_INTERRUPTED as i32);
        }
        eprintln!(
            "\narcsim: interrupted: stopping the running simulations and keeping what is finished (interrupt again to quit at once)"
        );
    });
}

/// Another way a stop may be asked for, checked beside the signal handler's flag: the
/// Python package's (a KeyboardInterrupt pending in the interpreter).
static HOOK: std::sync::OnceLock<fn() -> bool> = std::sync::OnceLock::new();

/// Install `hook` (once): when it returns true, a stop is asked for as by a signal.
pub fn set_hook(hook: fn() -> bool) {
    let _ = HOOK.set(hook);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    if STOP.load(Ordering::Relaxed) {
        return true;
    }
    if HOOK.get().is_some_and(|h| h()) {
        STOP.store(true, Ordering::SeqCst);
        return true;
    }
    false
}

/// Forget a stop asked for (a library caller that handled it, ready for the next command).
pub fn clear() {
    STOP.store(false, Ordering::SeqCst);
}

/// One simulation of a batch finished: with the test hook, stop after the N-th.
pub fn finished_one() {
    let n = FINISHED.fetch_add(1, Ordering::SeqCst) + 1;
    let stop_after = std::env::var("ARCSIM_TEST_STOP_AFTER")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    if stop_after.is_some_and(|k| n >= k) {
        STOP.store(true, Ordering::SeqCst);
    }
}

/// An error that ends the command with its own exit status (main prints `message`).
#[derive(Debug)]
pub struct Exit {
    pub code: u8,
    pub message: String,
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// The error of a command stopped by a signal, saying what was kept.
pub fn interrupted(kept: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        code: EXIT_INTERRUPTED,
        message: format!("interrupted: {}", kept.into()),
    })
}
