//! SIGTERM and SIGINT while `verify` runs: instead of dying at once, which
//! left CBMC running and lazysma's temporary directories behind, lazysma
//! notes the signal, its CBMC runs see it as a cancellation (they kill and
//! reap their process), the temporary directories are removed as the
//! pipeline unwinds, and then lazysma ends by the same signal, so that its
//! caller sees what happened.
//!
//! The handler only stores the signal's number in an atomic integer, which
//! is async-signal-safe; the waits for CBMC poll it.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The signal received, 0 while none was.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Whether [`install`] installed the handler.
static INSTALLED: AtomicBool = AtomicBool::new(false);

#[cfg(target_os = "linux")]
extern "C" fn note(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::Relaxed);
}

/// Notes SIGTERM and SIGINT from now on instead of dying of them (see the
/// module comment); [`finish`] ends the process by the signal noted. A
/// signal the caller had lazysma ignore (`nohup`, a shell's background
/// job) stays ignored.
#[cfg(target_os = "linux")]
pub fn install() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: the handler stores into an atomic integer and nothing
        // else; both actions are fully initialised before sigaction reads
        // them.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut previous) != 0
                || previous.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = note as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) == 0 {
                INSTALLED.store(true, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub fn install() {}

/// Whether the handler is installed: waits must then look at
/// [`received`] now and then rather than block.
pub fn is_installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Whether SIGTERM or SIGINT arrived (the work is to stop).
pub fn received() -> bool {
    RECEIVED.load(Ordering::Relaxed) != 0
}

/// Ends the process by the signal noted, if one was, with the signal's
/// default action (which the caller sees as death by that signal);
/// returns otherwise.
#[cfg(target_os = "linux")]
pub fn finish() {
    let signal = RECEIVED.load(Ordering::Relaxed);
    if signal == 0 {
        return;
    }
    // SAFETY: restores the default action of a signal and raises it.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn finish() {}

/// Makes the kernel kill the child `command` starts when lazysma ends (or
/// when the thread that starts it ends), so that a time limit or a `kill`
/// that ends lazysma (CI runners, `timeout`) leaves no CBMC or SMT solver
/// running for hours; and puts the child in a process group of its own,
/// which a caller can stop, continue and kill as a whole. `prlimit`, when
/// used, execs its program in the same process and keeps the setting.
#[cfg(target_os = "linux")]
pub fn end_with_this_process(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    // SAFETY: the closure runs in the child between fork and exec; prctl is
    // async-signal-safe and neither allocates nor touches shared state.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub fn end_with_this_process(_command: &mut std::process::Command) {}
