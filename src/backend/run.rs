//! Runs CBMC on one C file under a time limit: builds the command line the
//! detected version accepts, drains stdout and stderr in threads (large JSON
//! never blocks the child), reports progress, and kills CBMC on timeout.
//! CBMC runs in a process group of its own with a temporary directory of
//! its own, so that stopping it stops the preprocessor it started too and
//! leaves no file behind in the system's temporary directory.

use super::BackendError;
use super::locate::Cbmc;
use super::outcome::ProverAnswer;
use super::outcome::{ExitInfo, Outcome, decide_with};
use super::output::CbmcOutput;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// How often the progress callback is called while CBMC runs.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// How much of CBMC's stderr is kept for error messages.
const STDERR_TAIL_BYTES: usize = 4000;

/// How long to wait for the output pipes to close after CBMC ended.
const DRAIN_GRACE: Duration = Duration::from_secs(5);

/// The SAT solver to decide the program with instead of CBMC's default
/// (MiniSat).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SatSolver {
    /// `--sat-solver NAME`: a solver compiled into CBMC (CBMC >= 6).
    BuiltIn(String),
    /// `--external-sat-solver CMD`: a DIMACS solver program, e.g. `cadical`.
    External(String),
    /// A DIMACS solver program that lazysma runs itself on the formula CBMC
    /// writes (`--dimacs`), for a CBMC without `--external-sat-solver`
    /// (5.12): it proves the program safe, and CBMC's own solver finds the
    /// counterexample when there is one (see [`super::dimacs`]).
    Dimacs(String),
}

/// The solver `--sat-solver auto` puts beside CBMC's own when it is on
/// `PATH`.
pub const AUTO_SAT_SOLVER: &str = "cadical";

impl SatSolver {
    /// The solver for a user-given name (`None`: CBMC's own alone):
    /// - `auto`: [`AUTO_SAT_SOLVER`] beside CBMC's own solver
    ///   ([`SatSolver::Dimacs`]) when it is on `PATH`, else CBMC's own;
    /// - `cbmc`: CBMC's own solver alone;
    /// - an executable on `PATH`: an external solver, through CBMC where it
    ///   supports that, beside CBMC's own solver otherwise;
    /// - any other name: one of CBMC's built-in solvers.
    pub fn choose(name: &str, cbmc: &Cbmc) -> Result<Option<SatSolver>, BackendError> {
        match name {
            "cbmc" => return Ok(None),
            "auto" => {
                let found = which::which(AUTO_SAT_SOLVER).is_ok();
                return Ok(found.then(|| SatSolver::Dimacs(AUTO_SAT_SOLVER.to_string())));
            }
            _ => {}
        }
        let on_path = which::which(name).is_ok();
        if cbmc.accepts_external_sat_solver() && on_path {
            return Ok(Some(SatSolver::External(name.to_string())));
        }
        if on_path {
            return Ok(Some(SatSolver::Dimacs(name.to_string())));
        }
        if cbmc.accepts_sat_solver() {
            return Ok(Some(SatSolver::BuiltIn(name.to_string())));
        }
        Err(BackendError::UnsupportedOption {
            option: "--sat-solver / --external-sat-solver".to_string(),
            version: cbmc.version,
        })
    }

    /// The solver's name.
    pub fn name(&self) -> &str {
        match self {
            SatSolver::BuiltIn(name) | SatSolver::External(name) | SatSolver::Dimacs(name) => name,
        }
    }
}

/// How to run CBMC.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Kill CBMC this long after [`RunOptions::clock_started`]; `None`
    /// waits for ever.
    pub timeout: Option<Duration>,
    /// When the time limit began to count: the command's start, so that
    /// `--timeout` bounds the whole command and not each run; the run's
    /// own start when `None`.
    pub clock_started: Option<Instant>,
    pub sat_solver: Option<SatSolver>,
    /// `--unwind N`, only where the program still has a loop.
    pub unwind: Option<u32>,
    /// `--stop-on-fail`: stop at the first failing property.
    pub stop_on_fail: bool,
    /// Read the trace of every failing property, not only the first's
    /// ([`super::CbmcOutput::further_failure_traces`]; `verify
    /// --all-violations`).
    pub every_failure_trace: bool,
    /// Further arguments passed to CBMC as they are (e.g. the user's
    /// opt-in checks such as `--bounds-check`).
    pub extra_args: Vec<OsString>,
    /// Working directory of CBMC; the caller's when `None`.
    pub working_dir: Option<PathBuf>,
    /// Address-space limit in bytes (through util-linux `prlimit --as`);
    /// CBMC reports running out of memory when it is reached.
    pub memory_limit: Option<u64>,
    /// Setting any of these flags stops the run: the process is killed and
    /// the run ends as a failure that the caller set out to ignore.
    pub cancel: Vec<Arc<AtomicBool>>,
    /// While this is held, the process is stopped (it gives its processor
    /// to another run) and the time limit goes on counting.
    pub hold: Option<Arc<Hold>>,
    /// While this flag is set, a search outside CBMC (the native engine)
    /// has a processor: the runs that only help the main one (the prover
    /// of a portfolio) wait to start, on a machine with too few
    /// processors for all of them ([`Busy`]).
    pub busy: Option<Busy>,
}

/// A processor taken by a search beside CBMC's runs: on a machine with
/// fewer than [`Busy::PROCESSORS_FOR_ALL`] processors, the runs that only
/// help CBMC's main run (the run under SC, the prover of a portfolio) do
/// not start while it is taken. The native engine and CBMC's main run then
/// have a processor each; whichever answers first is not slowed down by a
/// third process.
#[derive(Debug, Clone)]
pub struct Busy(Arc<AtomicBool>);

impl Busy {
    /// The native engine, CBMC's main run, the run under SC and the
    /// prover.
    pub const PROCESSORS_FOR_ALL: usize = 4;

    /// A flag that the search sets while it runs: `None` on a machine with
    /// processors enough for every run.
    pub fn for_this_machine(flag: &Arc<AtomicBool>) -> Option<Busy> {
        (processors() < Self::PROCESSORS_FOR_ALL).then(|| Busy(Arc::clone(flag)))
    }

    /// Whether the search still has its processor.
    pub fn is_taken(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The processors this machine gives lazysma (1 when it cannot tell).
pub fn processors() -> usize {
    std::thread::available_parallelism().map_or(1, |count| count.get())
}

/// A run that gives its processor to other runs for a while: it is held
/// while some run asks for its processor, unless it was released for
/// good (see [`super::dimacs`] and `verify::sc_run`).
#[derive(Debug, Default)]
pub struct Hold {
    requested: AtomicBool,
    released: AtomicBool,
}

impl Hold {
    /// Asks for the held run's processor (`true`) or gives it back.
    pub fn request(&self, requested: bool) {
        self.requested.store(requested, Ordering::Relaxed);
    }

    /// Lets the run go on for good, whatever is requested later.
    pub fn release(&self) {
        self.released.store(true, Ordering::Relaxed);
    }

    /// Whether the run is to stand still now.
    pub fn is_held(&self) -> bool {
        self.requested.load(Ordering::Relaxed) && !self.released.load(Ordering::Relaxed)
    }
}

impl RunOptions {
    /// These options with one more flag that stops the run.
    pub fn cancelled_by(&self, flag: &Arc<AtomicBool>) -> RunOptions {
        let mut options = self.clone();
        options.cancel.push(Arc::clone(flag));
        options
    }

    /// Whether a flag that stops the run is set, or lazysma is to stop
    /// (SIGTERM, SIGINT: see [`crate::interrupt`]).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.iter().any(|flag| flag.load(Ordering::Relaxed)) || crate::interrupt::received()
    }
}

/// What CBMC is doing, as far as its status messages tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Starting = 0,
    /// Preprocessing and parsing the C file.
    Parsing = 1,
    /// Type checking and building the GOTO program.
    Converting = 2,
    /// Symbolic execution (building the formula).
    SymbolicExecution = 3,
    /// Propositional reduction and SAT solving.
    Solving = 4,
    /// Building the counterexample trace.
    BuildingTrace = 5,
}

impl Phase {
    pub(super) fn from_code(code: u8) -> Phase {
        match code {
            1 => Phase::Parsing,
            2 => Phase::Converting,
            3 => Phase::SymbolicExecution,
            4 => Phase::Solving,
            5 => Phase::BuildingTrace,
            _ => Phase::Starting,
        }
    }

    /// The phase a CBMC status message starts, if it starts one.
    pub fn from_message(text: &str) -> Option<Phase> {
        const STARTS: &[(&str, Phase)] = &[
            ("Parsing", Phase::Parsing),
            ("Converting", Phase::Converting),
            ("Type-checking", Phase::Converting),
            ("Generating GOTO Program", Phase::Converting),
            ("Starting Bounded Model Checking", Phase::SymbolicExecution),
            ("Passing problem to", Phase::Solving),
            ("converting SSA", Phase::Solving),
            ("Running propositional reduction", Phase::Solving),
            ("Solving with", Phase::Solving),
            ("Building error trace", Phase::BuildingTrace),
        ];
        STARTS
            .iter()
            .find(|(prefix, _)| text.starts_with(prefix))
            .map(|(_, phase)| *phase)
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Parsing => "parsing",
            Phase::Converting => "converting",
            Phase::SymbolicExecution => "symbolic execution",
            Phase::Solving => "solving",
            Phase::BuildingTrace => "building trace",
        }
    }
}

/// A progress report while CBMC runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub elapsed: Duration,
    pub phase: Phase,
}

/// How often a wait for a run in another thread looks whether it ended.
const WAIT_POLL: Duration = Duration::from_millis(10);

/// Waits while `running` holds (a run going on in another thread), giving
/// `report` what `latest` knows of it every [`PROGRESS_INTERVAL`].
pub fn report_while(
    running: impl Fn() -> bool,
    latest: impl Fn() -> Option<Progress>,
    report: &mut dyn FnMut(Progress),
) {
    let mut last_report = Instant::now();
    while running() {
        thread::sleep(WAIT_POLL);
        if last_report.elapsed() >= PROGRESS_INTERVAL {
            last_report = Instant::now();
            if let Some(progress) = latest() {
                report(progress);
            }
        }
    }
}

/// The result of one CBMC run.
#[derive(Debug, Clone)]
pub struct CbmcRun {
    pub outcome: Outcome,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// CBMC's exit code (`None` when killed by a signal).
    pub exit_code: Option<i32>,
    /// The parsed output, when it could be parsed.
    pub output: Option<CbmcOutput>,
    /// The end of CBMC's stderr.
    pub stderr_tail: String,
    /// The command line that was run, for reports and reproduction.
    pub command_line: Vec<OsString>,
    /// What the prover of a portfolio found ([`SatSolver::Dimacs`]):
    /// `None` without one.
    pub prover: Option<ProverAnswer>,
    /// Whether the verdict is the prover's (CBMC's own run ended without
    /// one).
    pub decided_by_prover: bool,
}

impl Cbmc {
    /// The arguments for checking `file` with `options` (without the
    /// executable), or an error for an option this CBMC does not accept.
    pub fn arguments(
        &self,
        file: &Path,
        options: &RunOptions,
    ) -> Result<Vec<OsString>, BackendError> {
        let mut args: Vec<OsString> = vec![file.as_os_str().to_owned()];
        args.extend(["--json-ui", "--trace"].map(OsString::from));
        args.extend(self.formula_arguments(options));
        if options.stop_on_fail {
            args.push("--stop-on-fail".into());
        }
        match &options.sat_solver {
            None => {}
            Some(SatSolver::BuiltIn(name)) => {
                self.require_option("--sat-solver")?;
                args.push("--sat-solver".into());
                args.push(name.into());
            }
            Some(SatSolver::External(command)) => {
                self.require_option("--external-sat-solver")?;
                args.push("--external-sat-solver".into());
                args.push(command.into());
            }
            // the run that needs a trace uses CBMC's own solver
            Some(SatSolver::Dimacs(_)) => {}
        }
        args.extend(options.extra_args.iter().cloned());
        Ok(args)
    }

    /// The arguments that shape the formula (after the file): unwinding,
    /// CBMC's own checks. The user's extra arguments come last.
    pub(super) fn formula_arguments(&self, options: &RunOptions) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        if self.accepts_no_unwinding_assertions() {
            args.push("--no-unwinding-assertions".into());
        }
        if self.needs_no_standard_checks() {
            args.push("--no-standard-checks".into());
        }
        if let Some(unwind) = options.unwind {
            args.push("--unwind".into());
            args.push(unwind.to_string().into());
        }
        args
    }

    fn require_option(&self, option: &str) -> Result<(), BackendError> {
        if self.lists_option(option) {
            Ok(())
        } else {
            Err(BackendError::UnsupportedOption {
                option: option.to_string(),
                version: self.version,
            })
        }
    }

    /// Runs CBMC on `file`; `progress` (if any) is called about every
    /// second with the elapsed time and CBMC's current phase. With a
    /// [`SatSolver::Dimacs`] solver, the solver runs beside CBMC (see
    /// [`super::dimacs`]).
    pub fn run(
        &self,
        file: &Path,
        options: &RunOptions,
        progress: Option<&mut dyn FnMut(Progress)>,
    ) -> Result<CbmcRun, BackendError> {
        match &options.sat_solver {
            Some(SatSolver::Dimacs(solver)) => {
                self.run_with_dimacs_solver(file, solver, options, progress)
            }
            _ => self.run_with_trace(file, options, progress, Instant::now()),
        }
    }

    /// Runs CBMC with `--json-ui --trace`; `start` is when the time limit
    /// began to count.
    pub(super) fn run_with_trace(
        &self,
        file: &Path,
        options: &RunOptions,
        progress: Option<&mut dyn FnMut(Progress)>,
        start: Instant,
    ) -> Result<CbmcRun, BackendError> {
        let args = self.arguments(file, options)?;
        let phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        let finished = run_to_end(&self.path, &args, options, start, &phase, progress)?;
        let (outcome, output) = decide_with(
            &finished.exit,
            &finished.stdout,
            &finished.stderr_tail,
            options.every_failure_trace,
        );
        Ok(CbmcRun {
            outcome,
            elapsed: start.elapsed(),
            exit_code: finished.exit.code,
            output,
            stderr_tail: finished.stderr_tail,
            command_line: command_line(&self.path, &args),
            prover: None,
            decided_by_prover: false,
        })
    }
}

/// `program` followed by `args`, as reports show a command.
pub(super) fn command_line(program: &Path, args: &[OsString]) -> Vec<OsString> {
    let mut line = vec![program.as_os_str().to_owned()];
    line.extend(args.iter().cloned());
    line
}

/// How a program run by [`run_to_end`] ended, with its output.
pub(super) struct Finished {
    pub exit: ExitInfo,
    pub stdout: String,
    pub stderr_tail: String,
}

/// Runs `program` with `args` under the time limit of `options` (counted
/// from `start`) and its memory limit, draining both output pipes; `phase`
/// follows CBMC's status messages on stdout. The program ends with
/// lazysma. Its `TMPDIR` is a directory of this run, removed afterwards:
/// CBMC writes its temporary files there (the preprocessor's output and
/// errors), and a CBMC stopped before it removes them (the run under SC
/// when the other run decides first, a time limit) would otherwise leave
/// them in the system's directory.
pub(super) fn run_to_end(
    program: &Path,
    args: &[OsString],
    options: &RunOptions,
    start: Instant,
    phase: &Arc<AtomicU8>,
    progress: Option<&mut dyn FnMut(Progress)>,
) -> Result<Finished, BackendError> {
    let mut command = match options.memory_limit {
        None => Command::new(program),
        Some(bytes) => {
            let prlimit =
                which::which("prlimit").map_err(|_| BackendError::MemoryLimitUnavailable)?;
            let mut command = Command::new(prlimit);
            command.arg(format!("--as={bytes}")).arg("--").arg(program);
            command
        }
    };
    let temporary = tempfile::tempdir().map_err(BackendError::TemporaryFiles)?;
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.env("TMPDIR", temporary.path());
    crate::interrupt::end_with_this_process(&mut command);
    if let Some(dir) = &options.working_dir {
        command.current_dir(dir);
    }
    let spawned = super::locate::retry_while_busy(|| command.spawn());
    let mut child = spawned.map_err(|error| BackendError::Spawn {
        path: program.to_path_buf(),
        error,
    })?;
    let stdout = spawn_stdout_drain(&mut child, Arc::clone(phase));
    let stderr = spawn_stderr_drain(&mut child);
    let waited = wait_with_limit(&mut child, options, start, phase, progress);
    let mut exit = waited.map_err(|error| BackendError::Wait {
        path: program.to_path_buf(),
        error,
    })?;
    exit.limit = options.timeout;
    let stdout_bytes = stdout.recv_timeout(DRAIN_GRACE).unwrap_or_default();
    let stderr_bytes = stderr.recv_timeout(DRAIN_GRACE).unwrap_or_default();
    Ok(Finished {
        exit,
        stdout: String::from_utf8_lossy(&stdout_bytes).into_owned(),
        stderr_tail: tail(&String::from_utf8_lossy(&stderr_bytes), STDERR_TAIL_BYTES),
    })
}

/// How often a cancellable run looks at its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// Waits for the process, calling `progress` every [`PROGRESS_INTERVAL`];
/// kills it when the time limit passes or the run is cancelled, and stops
/// and continues it as its [`Hold`] says.
fn wait_with_limit(
    child: &mut Child,
    options: &RunOptions,
    start: Instant,
    phase: &AtomicU8,
    mut progress: Option<&mut dyn FnMut(Progress)>,
) -> std::io::Result<ExitInfo> {
    let cancelled = || options.is_cancelled();
    let polled =
        !options.cancel.is_empty() || options.hold.is_some() || crate::interrupt::is_installed();
    let mut held = false;
    let mut last_report = Instant::now();
    loop {
        let elapsed = options.clock_started.unwrap_or(start).elapsed();
        let remaining = options.timeout.map(|limit| limit.saturating_sub(elapsed));
        if remaining == Some(Duration::ZERO) {
            return kill(child, true);
        }
        if cancelled() {
            return kill(child, false);
        }
        if let Some(hold) = &options.hold
            && hold.is_held() != held
        {
            held = hold.is_held();
            hold_process(child, held);
        }
        // wake up for the time limit, the next report, the cancel flag and
        // the hold
        let wake = [
            remaining,
            progress.is_some().then_some(PROGRESS_INTERVAL),
            polled.then_some(CANCEL_POLL),
        ];
        let Some(slice) = wake.into_iter().flatten().min() else {
            let status = child.wait()?;
            return Ok(ExitInfo::from_status(status, false));
        };
        if let Some(status) = child.wait_timeout(slice)? {
            return Ok(ExitInfo::from_status(status, false));
        }
        // a polled run wakes up more often than it reports
        let due = !polled || last_report.elapsed() >= PROGRESS_INTERVAL;
        if let Some(callback) = progress.as_mut()
            && due
        {
            last_report = Instant::now();
            callback(Progress {
                elapsed: start.elapsed(),
                phase: Phase::from_code(phase.load(Ordering::Relaxed)),
            });
        }
    }
}

/// Stops (`SIGSTOP`) or continues (`SIGCONT`) the process and the ones it
/// started.
fn hold_process(child: &Child, held: bool) {
    #[cfg(target_os = "linux")]
    signal_group(child, if held { libc::SIGSTOP } else { libc::SIGCONT });
    #[cfg(not(target_os = "linux"))]
    let _ = (child, held);
}

/// Sends `signal` to the child's process group ([`crate::interrupt::end_with_this_process`]
/// made the child its leader). The group has the child's id, which stays
/// reserved until this process waits for the child; a group that has ended
/// meanwhile ignores the signal, and the wait reaps the child.
#[cfg(target_os = "linux")]
fn signal_group(child: &Child, signal: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: kill only sends a signal to the child's process group.
    unsafe {
        libc::kill(-pid, signal);
    }
}

/// Kills the child and what it started (CBMC's preprocessor, a solver it
/// runs), and reaps the child.
fn kill(child: &mut Child, timed_out: bool) -> std::io::Result<ExitInfo> {
    #[cfg(target_os = "linux")]
    signal_group(child, libc::SIGKILL);
    // The child may have ended just now; kill fails then, and wait reaps it.
    let _ = child.kill();
    let status = child.wait()?;
    Ok(ExitInfo::from_status(status, timed_out))
}

/// Reads CBMC's stdout line by line, noting the phase its status messages
/// announce; sends the whole text when the pipe closes.
fn spawn_stdout_drain(child: &mut Child, phase: Arc<AtomicU8>) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    if let Some(pipe) = child.stdout.take() {
        thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, pipe);
            let mut text = Vec::new();
            loop {
                let line_start = text.len();
                match reader.read_until(b'\n', &mut text) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => note_phase(&text[line_start..], &phase),
                }
            }
            let _ = sender.send(text);
        });
    }
    receiver
}

fn note_phase(line: &[u8], phase: &AtomicU8) {
    const KEY: &[u8] = b"\"messageText\": \"";
    let Some(position) = line.windows(KEY.len()).position(|window| window == KEY) else {
        return;
    };
    let message = String::from_utf8_lossy(&line[position + KEY.len()..]);
    if let Some(next) = Phase::from_message(&message) {
        phase.fetch_max(next as u8, Ordering::Relaxed);
    }
}

fn spawn_stderr_drain(child: &mut Child) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    if let Some(mut pipe) = child.stderr.take() {
        thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            let _ = sender.send(text);
        });
    }
    receiver
}

/// The last `max` bytes of `text` (on a character boundary).
pub fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_follow_cbmc_messages() {
        assert_eq!(Phase::from_message("Parsing seq.c"), Some(Phase::Parsing));
        assert_eq!(
            Phase::from_message("Starting Bounded Model Checking"),
            Some(Phase::SymbolicExecution)
        );
        assert_eq!(
            Phase::from_message("Solving with MiniSAT 2.2.1 with simplifier"),
            Some(Phase::Solving)
        );
        assert_eq!(Phase::from_message("VERIFICATION FAILED"), None);
    }

    #[test]
    fn phase_only_moves_forward() {
        let phase = AtomicU8::new(Phase::Starting as u8);
        note_phase(br#"    "messageText": "Solving with MiniSAT","#, &phase);
        note_phase(br#"    "messageText": "Parsing x.c","#, &phase);
        assert_eq!(
            Phase::from_code(phase.load(Ordering::Relaxed)),
            Phase::Solving
        );
    }

    /// Runs `sh -c script` with `options`, returning the seconds it took.
    fn seconds_of_shell(script: &str, options: &RunOptions) -> f64 {
        let phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        let args = ["-c".into(), script.into()];
        let start = Instant::now();
        let finished =
            run_to_end(Path::new("sh"), &args, options, start, &phase, None).expect("sh runs");
        assert_eq!(finished.exit.code, Some(0), "the script ends normally");
        assert!(
            finished.stdout.contains("done"),
            "the script runs to its end"
        );
        start.elapsed().as_secs_f64()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_held_process_stands_still_until_given_its_processor_back() {
        // the shell, stopped, cannot go on after its `sleep` ends: it waits
        // until the hold is lifted
        let hold = Arc::new(Hold::default());
        hold.request(true);
        let options = RunOptions {
            hold: Some(Arc::clone(&hold)),
            ..RunOptions::default()
        };
        let lifter = {
            let hold = Arc::clone(&hold);
            thread::spawn(move || {
                thread::sleep(Duration::from_secs(2));
                hold.request(false);
            })
        };
        let held = seconds_of_shell("sleep 0.2; echo done", &options);
        lifter.join().expect("the lifter ends");
        assert!(held >= 1.9, "held for 2 s, yet done in {held} s");
        // released for good, a request no longer holds it
        hold.release();
        hold.request(true);
        let released = seconds_of_shell("sleep 0.2; echo done", &options);
        assert!(released < 1.5, "released, yet it took {released} s");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_held_process_still_meets_its_time_limit() {
        let hold = Arc::new(Hold::default());
        hold.request(true);
        let options = RunOptions {
            hold: Some(hold),
            timeout: Some(Duration::from_millis(500)),
            ..RunOptions::default()
        };
        let phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        let args = ["-c".into(), "sleep 0.1; echo done".into()];
        let finished = run_to_end(
            Path::new("sh"),
            &args,
            &options,
            Instant::now(),
            &phase,
            None,
        )
        .expect("sh runs");
        assert!(
            finished.exit.timed_out,
            "a held process is killed at its time limit: {:?}",
            finished.exit
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_run_late_in_the_command_gets_only_the_time_left() {
        // the command's 2 s began 1.8 s ago: a run of 1 s is killed at
        // the command's limit, not 2 s after its own start
        let options = RunOptions {
            timeout: Some(Duration::from_secs(2)),
            clock_started: Instant::now().checked_sub(Duration::from_millis(1800)),
            ..RunOptions::default()
        };
        let phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        let args = ["-c".into(), "sleep 1; echo done".into()];
        let started = Instant::now();
        let finished =
            run_to_end(Path::new("sh"), &args, &options, started, &phase, None).expect("sh runs");
        assert!(finished.exit.timed_out, "{:?}", finished.exit);
        assert!(started.elapsed() < Duration::from_millis(900));
        assert_eq!(finished.exit.limit, Some(Duration::from_secs(2)));
    }

    /// Whether a process with this id is still running (a zombie counts
    /// as ended).
    #[cfg(target_os = "linux")]
    fn is_running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_killed_run_leaves_neither_processes_nor_temporary_files() {
        // like CBMC, the script starts a child (its preprocessor) and puts
        // a file into $TMPDIR; it is killed at its time limit meanwhile
        let options = RunOptions {
            timeout: Some(Duration::from_millis(700)),
            ..RunOptions::default()
        };
        let phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        let script = "touch \"$TMPDIR/goto-gcc.in\"; sleep 30 & echo \"$TMPDIR $!\"; wait";
        let args = ["-c".into(), script.into()];
        let finished = run_to_end(
            Path::new("sh"),
            &args,
            &options,
            Instant::now(),
            &phase,
            None,
        )
        .expect("sh runs");
        assert!(
            finished.exit.timed_out,
            "the script is killed at its time limit: {:?}",
            finished.exit
        );
        let (directory, sleeper) = finished
            .stdout
            .trim()
            .rsplit_once(' ')
            .expect("the script names its directory and child");
        assert_ne!(
            Path::new(directory),
            std::env::temp_dir(),
            "the run has a temporary directory of its own"
        );
        assert!(
            !Path::new(directory).exists(),
            "the run's temporary directory {directory} is removed"
        );
        // the kill reaches the child at once; allow the kernel a moment
        let gone = (0..20).any(|_| {
            thread::sleep(Duration::from_millis(50));
            !is_running(sleeper)
        });
        assert!(gone, "the script's child {sleeper} is killed with it");
    }

    #[test]
    fn tail_keeps_the_end_on_a_char_boundary() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 3), "ab");
        assert_eq!(tail("aé", 1), "");
        assert_eq!(tail("aéb", 2), "b");
    }
}
