//! Ctrl-C, SIGTERM and SIGHUP (a closed terminal): ask the load to stop, stop every
//! server, and keep what was measured.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the signal handler; the event loops read it at every tick.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: the one thing a signal handler may safely do here.
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Routes SIGINT, SIGTERM and SIGHUP to [`INTERRUPTED`]. A second signal kills the process
/// as usual.
pub fn install() {
    // SAFETY: the handler only stores to an atomic; SA_RESETHAND restores the default
    // action after the first signal, so a second Ctrl-C still ends a stuck process.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        action.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        // Without this a closed terminal would kill shootout and orphan its servers.
        libc::sigaction(libc::SIGHUP, &action, std::ptr::null_mut());
    }
}

/// True once a signal asked to stop.
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
