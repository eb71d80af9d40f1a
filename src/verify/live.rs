//! The live lines of `verify` on a terminal: one line per engine at the
//! bottom of stderr, redrawn a few times a second and erased when the
//! engines are done (on every way out: an answer, an error, Ctrl-C, a
//! panic, since erasing is [`LiveLines`]'s `Drop`). The native engine's
//! line reads its progress counters (`smc::progress`); CBMC's shows the
//! phase and time its run reports. Only text formats on a terminal get
//! them ([`wanted`]): otherwise nothing is drawn, no thread runs and the
//! output is what it was without them.

use crate::backend::Progress as CbmcProgress;
use crate::smc::progress::{Phase, Progress, Snapshot};
use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// How often the lines are redrawn.
const REFRESH: Duration = Duration::from_millis(250);

/// The width assumed when the terminal does not tell its own.
const DEFAULT_WIDTH: usize = 80;

/// Whether a run with `format` shows live lines: a text report, and
/// stderr a terminal.
pub fn wanted(format: super::ReportFormat) -> bool {
    !format.is_document() && std::io::stderr().is_terminal()
}

/// What the drawing thread reads.
#[derive(Default)]
struct Shared {
    native: Option<Arc<Progress>>,
    /// CBMC's line, while one of its runs goes on.
    cbmc: Mutex<Option<String>>,
}

impl Shared {
    fn lines(&self) -> Vec<String> {
        let native = self
            .native
            .as_ref()
            .map(|progress| native_line(&progress.snapshot()));
        let cbmc = self.cbmc.lock().ok().and_then(|line| line.clone());
        native.into_iter().chain(cbmc).collect()
    }
}

/// The live lines while they are shown.
pub struct LiveLines {
    shared: Arc<Shared>,
    stop: Option<mpsc::Sender<()>>,
    drawer: Option<JoinHandle<()>>,
}

impl LiveLines {
    /// Starts drawing: the native engine's line from `native` (if it
    /// runs) and CBMC's from [`LiveLines::show_cbmc`].
    pub fn start(native: Option<Arc<Progress>>) -> LiveLines {
        let shared = Arc::new(Shared {
            native,
            cbmc: Mutex::new(None),
        });
        let (stop, stopped) = mpsc::channel();
        let drawn_from = Arc::clone(&shared);
        let drawer = thread::Builder::new()
            .name("live lines".into())
            .spawn(move || draw_until_stopped(&drawn_from, &stopped))
            .ok();
        LiveLines {
            shared,
            stop: Some(stop),
            drawer,
        }
    }

    /// CBMC's line: `label: 12 s (solving)`.
    pub fn show_cbmc(&self, label: &str, progress: &CbmcProgress) {
        let line = format!(
            "{label}: {} s ({})",
            progress.elapsed.as_secs(),
            progress.phase.name()
        );
        if let Ok(mut cbmc) = self.shared.cbmc.lock() {
            *cbmc = Some(line);
        }
    }

    /// CBMC's run ended: its line goes.
    pub fn clear_cbmc(&self) {
        if let Ok(mut cbmc) = self.shared.cbmc.lock() {
            *cbmc = None;
        }
    }
}

impl Drop for LiveLines {
    fn drop(&mut self) {
        // the drawer erases what it drew as it ends
        drop(self.stop.take());
        if let Some(drawer) = self.drawer.take() {
            let _ = drawer.join();
        }
    }
}

/// Redraws the lines every [`REFRESH`] until `stopped` says to end, then
/// erases them.
fn draw_until_stopped(shared: &Shared, stopped: &mpsc::Receiver<()>) {
    let mut drawn = 0;
    // a message or the sender dropped ends it
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(REFRESH) {
        let lines = shared.lines();
        write_stderr(&frame(drawn, &lines, terminal_width()));
        drawn = lines.len();
    }
    write_stderr(&frame(drawn, &[], DEFAULT_WIDTH));
}

fn write_stderr(text: &str) {
    if text.is_empty() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// The text that replaces the `drawn` lines shown (the cursor at the end
/// of the last) with `lines`, each cut to `width` - 1 characters so that
/// none wraps: the cursor goes up to the first line, everything below it
/// is cleared, the lines are written without a newline after the last.
fn frame(drawn: usize, lines: &[String], width: usize) -> String {
    if drawn == 0 && lines.is_empty() {
        return String::new();
    }
    let mut text = String::new();
    if drawn > 1 {
        text.push_str(&format!("\x1b[{}A", drawn - 1));
    }
    text.push_str("\r\x1b[J");
    let shown: Vec<String> = lines
        .iter()
        .map(|line| line.chars().take(width.saturating_sub(1).max(1)).collect())
        .collect();
    text.push_str(&shown.join("\n"));
    text
}

/// The native engine's line: `native: 1,234 classes (5,600/s), at most
/// about 40,000 (estimate), 3 s` (the estimate is of an upper bound, see
/// `smc::rf::probe`).
pub fn native_line(snapshot: &Snapshot) -> String {
    let seconds = snapshot.elapsed.as_secs();
    let estimate = snapshot.estimate.map(thousands);
    let doing = match snapshot.phase {
        Phase::Starting => "starting".to_string(),
        Phase::Estimating => match estimate {
            Some(estimate) => format!(
                "estimating ({} probes: about {estimate} classes)",
                snapshot.probes
            ),
            None => "estimating".to_string(),
        },
        Phase::Finished => match snapshot.explored() {
            0 => return "native: ended".to_string(),
            explored => {
                let unit = if snapshot.states > 0 {
                    "states"
                } else {
                    "classes"
                };
                return format!("native: ended after {} {unit}", thousands(explored as u64));
            }
        },
        Phase::ReadsFrom | Phase::Explicit => {
            let unit = match snapshot.phase {
                Phase::Explicit => "states",
                _ => "classes",
            };
            let mut doing = format!("{} {unit}", thousands(snapshot.explored() as u64));
            if let Some(rate) = snapshot.per_second() {
                doing.push_str(&format!(" ({}/s)", thousands(rate.round() as u64)));
            }
            match (snapshot.phase, snapshot.estimate) {
                (Phase::ReadsFrom, Some(total)) if snapshot.explored() as u64 <= total => {
                    doing.push_str(&format!(", at most about {} (estimate)", thousands(total)));
                }
                (Phase::ReadsFrom, Some(total)) => {
                    doing.push_str(&format!(", past the estimate of {}", thousands(total)));
                }
                _ => {}
            }
            doing
        }
    };
    format!("native: {doing}, {seconds} s")
}

/// `1234567` as `1,234,567`.
fn thousands(number: u64) -> String {
    let digits = number.to_string();
    let mut grouped = String::new();
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// The terminal's width in columns (stderr's), or [`DEFAULT_WIDTH`].
#[cfg(target_os = "linux")]
fn terminal_width() -> usize {
    // SAFETY: TIOCGWINSZ writes a `winsize` into the zeroed one given.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let asked = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) };
    if asked == 0 && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        DEFAULT_WIDTH
    }
}

#[cfg(not(target_os = "linux"))]
fn terminal_width() -> usize {
    DEFAULT_WIDTH
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(phase: Phase, explored: usize, estimate: Option<u64>) -> Snapshot {
        Snapshot {
            phase,
            elapsed: Duration::from_secs(3),
            searching: Duration::from_millis(2500),
            classes: explored,
            states: explored,
            probes: 32,
            estimate,
        }
    }

    #[test]
    fn the_native_line_gives_classes_rate_and_estimate() {
        let line = native_line(&snapshot(Phase::ReadsFrom, 1234, Some(40_000)));
        assert_eq!(
            line,
            "native: 1,234 classes (494/s), at most about 40,000 (estimate), 3 s"
        );
        let past = native_line(&snapshot(Phase::ReadsFrom, 50_000, Some(40_000)));
        assert!(past.contains("past the estimate of 40,000"), "{past}");
        let explicit = native_line(&snapshot(Phase::Explicit, 12_345, None));
        assert_eq!(explicit, "native: 12,345 states (4,938/s), 3 s");
        let probing = native_line(&snapshot(Phase::Estimating, 0, Some(7)));
        assert!(probing.contains("32 probes"), "{probing}");
        let mut ended = snapshot(Phase::Finished, 20, None);
        ended.states = 0;
        assert_eq!(native_line(&ended), "native: ended after 20 classes");
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn a_frame_replaces_the_lines_drawn_and_cuts_long_ones() {
        let lines = vec!["native: x".to_string(), "cbmc: 1 s (solving)".to_string()];
        assert_eq!(
            frame(0, &lines, 80),
            "\r\x1b[Jnative: x\ncbmc: 1 s (solving)"
        );
        assert_eq!(
            frame(2, &lines[..1], 80),
            "\x1b[1A\r\x1b[Jnative: x",
            "up to the first line drawn, then one line"
        );
        assert_eq!(frame(2, &[], 80), "\x1b[1A\r\x1b[J", "erased");
        assert_eq!(frame(0, &[], 80), "", "nothing drawn, nothing to erase");
        assert_eq!(frame(1, &lines[..1], 6), "\r\x1b[Jnativ");
    }
}
