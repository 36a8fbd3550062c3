//! Ctrl-C, SIGTERM and SIGHUP (a closed terminal): ask the load to stop, stop every
//! server, and keep what was measured.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::flag;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

/// Set by the signal handler; the event loops read it at every tick.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Routes SIGINT, SIGTERM and SIGHUP to [`INTERRUPTED`]. A second signal kills the process
/// as usual, so a stuck shootout still ends.
pub fn install() {
    static INSTALLED: Once = Once::new();
    // Once: a second registration would see the flag already set by the first and kill
    // on the first signal.
    INSTALLED.call_once(|| {
        // SIGHUP too: without it a closed terminal would kill shootout and orphan its servers.
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            // Registration fails only for signals that cannot be caught (KILL, STOP),
            // which these are not.
            // First the default action once the flag is set (the second signal), then
            // the flag (the first): signal-hook runs the actions in this order.
            let _ = flag::register_conditional_default(signal, &INTERRUPTED);
            let _ = flag::register(signal, &INTERRUPTED);
        }
    });
}

/// True once a signal asked to stop.
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
