//! The run under sequential consistency beside a TSO or PSO run. Every SC
//! execution is a TSO and a PSO execution, so a violation under SC is one
//! under TSO and PSO too; the SC program is far smaller (no store buffers),
//! so when a bug needs no weak memory this run usually finds it long
//! before the TSO/PSO run, and its counterexample ends that run.

use crate::backend::{
    BackendError, Busy, Cbmc, CbmcRun, Hold, Outcome, Progress, RunOptions, processors,
    report_while,
};
use crate::ir::Program;
use crate::options::{AutoBounds, SmaImplementation, TranslateOptions};
use crate::passes::TranslationMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long the TSO/PSO run goes on alone before the run under SC starts:
/// most small programs are decided by then, and the run under SC would
/// only take processor time from them.
const SC_RUN_DELAY: Duration = Duration::from_millis(500);

/// How often the run under SC looks at its stop flag while it waits.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Below this many processors the run under SC holds the prover of the
/// TSO/PSO run's portfolio while it goes on: the portfolio already takes
/// two processors, and a third process would slow all of them down. CBMC's
/// own run goes on, as it can find a counterexample as well as prove the
/// program safe; the prover only proves.
pub const PROCESSORS_FOR_THREE_RUNS: usize = 3;

/// Whether this machine has too few processors for the run under SC
/// beside both runs of the portfolio.
pub fn too_few_processors() -> bool {
    processors() < PROCESSORS_FOR_THREE_RUNS
}

/// The program translated under SC, with the map that decodes its trace.
pub struct ScProgram {
    pub file: PathBuf,
    pub map: TranslationMap,
    /// The program's text (for `--keep`).
    pub c_source: String,
}

/// Translates `program` (as the frontend loaded it for the TSO/PSO run)
/// under SC with the same rounds and loop bounds into `file`. `None` when
/// that fails: the TSO/PSO run then goes on alone (its own translation
/// succeeded, so its verdict stands).
pub fn prepare(program: &Program, options: &TranslateOptions, file: PathBuf) -> Option<ScProgram> {
    // the heap as the TSO/PSO run has it: `--nmalloc auto` stays
    let auto_bounds = AutoBounds {
        nmalloc: options.auto_bounds.nmalloc,
        ..AutoBounds::default()
    };
    let options = TranslateOptions {
        sma: SmaImplementation::Sc,
        auto_bounds,
        ..options.clone()
    };
    let translation = crate::translate::translate_loaded(program, &options).ok()?;
    crate::output::write_atomically(&file, translation.c_source.as_bytes()).ok()?;
    Some(ScProgram {
        file,
        map: translation.map,
        c_source: translation.c_source,
    })
}

/// Where `--keep` keeps the program of the run under SC: beside `keep`,
/// its name ending in `.sc.c` instead of `.c` (`seq.c`: `seq.sc.c`; `seq`:
/// `seq.sc.c`).
pub fn companion(keep: &Path) -> PathBuf {
    let stem = if keep.extension() == Some(OsStr::new("c")) {
        keep.file_stem()
    } else {
        keep.file_name()
    };
    let mut name = stem.map(OsStr::to_os_string).unwrap_or_default();
    name.push(".sc.c");
    keep.with_file_name(name)
}

/// The SC run while it goes on beside the TSO/PSO run. Dropping it stops
/// it.
pub struct ScRun {
    /// `None` from the thread when it was stopped before CBMC started.
    handle: Option<JoinHandle<Option<Result<CbmcRun, BackendError>>>>,
    stop: Arc<AtomicBool>,
    /// The run's latest progress report.
    progress: Arc<Mutex<Option<Progress>>>,
}

impl ScRun {
    /// Starts CBMC (with its own solver alone) on the SC program after
    /// [`SC_RUN_DELAY`], and not while `busy` is taken (the native engine
    /// has the processor), within the time limit counted from when the
    /// command started (`limit`: that start and the limit); a
    /// counterexample sets `stop_model`, which ends the TSO/PSO run. CBMC
    /// may take `memory_limit` bytes of address space. While
    /// CBMC runs, it asks `hold` (if given) for the processor of the
    /// TSO/PSO run's prover.
    pub fn start(
        cbmc: &Cbmc,
        program: &ScProgram,
        (limit, memory_limit): (Option<(Instant, Duration)>, Option<u64>),
        stop_model: &Arc<AtomicBool>,
        hold: Option<Arc<Hold>>,
        busy: Option<Busy>,
    ) -> ScRun {
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let progress = Arc::new(Mutex::new(None));
        let (cbmc, file, stop_model, stop_self) = (
            cbmc.clone(),
            program.file.clone(),
            Arc::clone(stop_model),
            Arc::clone(&stop),
        );
        let latest = Arc::clone(&progress);
        let handle = thread::spawn(move || {
            let waits =
                || started.elapsed() < SC_RUN_DELAY || busy.as_ref().is_some_and(Busy::is_taken);
            while waits() {
                if stop_self.load(Ordering::Relaxed) || crate::interrupt::received() {
                    return None;
                }
                thread::sleep(STOP_POLL);
            }
            let options = RunOptions {
                timeout: limit.map(|(_, limit)| limit),
                clock_started: limit.map(|(command_started, _)| command_started),
                memory_limit,
                cancel: vec![stop_self],
                ..RunOptions::default()
            };
            let mut note = |report: Progress| {
                if let Ok(mut latest) = latest.lock() {
                    *latest = Some(report);
                }
            };
            if let Some(hold) = &hold {
                hold.request(true);
            }
            let run = cbmc.run(&file, &options, Some(&mut note));
            if let Some(hold) = &hold {
                hold.request(false);
            }
            if matches!(
                &run,
                Ok(CbmcRun {
                    outcome: Outcome::Violated { .. },
                    ..
                })
            ) {
                stop_model.store(true, Ordering::Relaxed);
            }
            Some(run)
        });
        ScRun {
            handle: Some(handle),
            stop,
            progress,
        }
    }

    /// The SC run's counterexample, if it found one, once the TSO/PSO run
    /// `model` has ended: none when `model` found one itself; the SC run is
    /// stopped when `model` decided the program, and awaited when it did
    /// not (a timeout, a crash, or a stop by the SC run's counterexample),
    /// with its progress reported to `report` meanwhile.
    pub fn finish(
        mut self,
        model: &CbmcRun,
        report: Option<&mut dyn FnMut(Progress)>,
    ) -> Option<CbmcRun> {
        match model.outcome {
            Outcome::Violated { .. } => return None,
            Outcome::Safe => self.stop.store(true, Ordering::Relaxed),
            _ => {}
        }
        let handle = self.handle.take()?;
        if let Some(report) = report {
            let latest = || self.progress.lock().ok().and_then(|latest| *latest);
            report_while(|| !handle.is_finished(), latest, report);
        }
        let run = handle.join().ok()??.ok()?;
        matches!(run.outcome, Outcome::Violated { .. }).then_some(run)
    }
}

impl Drop for ScRun {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::companion;
    use std::path::Path;

    #[test]
    fn the_companion_of_a_kept_program_ends_in_sc_c() {
        assert_eq!(companion(Path::new("out/seq.c")), Path::new("out/seq.sc.c"));
        assert_eq!(companion(Path::new("seq")), Path::new("seq.sc.c"));
        assert_eq!(companion(Path::new("a.b.c")), Path::new("a.b.sc.c"));
    }

    #[cfg(unix)]
    #[test]
    fn the_companion_keeps_a_name_that_is_not_utf8() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let keep = Path::new("out").join(OsStr::from_bytes(b"s\xffq.c"));
        assert_eq!(
            companion(&keep),
            Path::new("out").join(OsStr::from_bytes(b"s\xffq.sc.c"))
        );
    }
}
