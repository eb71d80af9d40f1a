//! Runs the jobs of a batch as child processes of this lazysma binary
//! (`lazysma batch MANIFEST --job ID --results DIR`, the very line
//! `--print-jobs` prints), at most a given number at once, and prints a
//! progress line as each one finishes.

use super::job::{self, JobResult};
use super::manifest::{Job, model_name};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// How a batch runs its jobs.
pub struct Runner<'r> {
    pub program: &'r Path,
    pub manifest: &'r Path,
    pub results: &'r Path,
    /// `--split N`: the parts of each harness's search.
    pub parts: usize,
    /// How many child processes run at once.
    pub workers: usize,
}

impl Runner<'_> {
    /// Every job's result, in the order of `jobs`.
    pub fn run(&self, jobs: &[Job]) -> Vec<JobResult> {
        let next = AtomicUsize::new(0);
        let (sender, receiver) = mpsc::channel();
        let mut results: Vec<Option<JobResult>> = vec![None; jobs.len()];
        std::thread::scope(|scope| {
            for _ in 0..self.workers.min(jobs.len()) {
                let sender = sender.clone();
                let next = &next;
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(index) else { break };
                        if sender.send((index, self.run_one(job))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for (finished, (index, result)) in receiver.iter().enumerate() {
                crate::output::eprintln(&progress(finished + 1, jobs.len(), &result));
                results[index] = Some(result);
            }
        });
        results.into_iter().flatten().collect()
    }

    /// Runs `job` in a child process and reads its result file; a child
    /// that wrote none gives an error result with what it printed.
    fn run_one(&self, job: &Job) -> JobResult {
        let path = job::result_path(self.results, &job.id);
        let _ = std::fs::remove_file(&path);
        let output = Command::new(self.program)
            .arg("batch")
            .arg(self.manifest)
            .args(["--split", &self.parts.to_string()])
            .args(["--job", &job.id, "--results"])
            .arg(self.results)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        match output {
            Ok(output) => job::read(&path).unwrap_or_else(|error| {
                let printed = String::from_utf8_lossy(&output.stderr).trim().to_string();
                failed(
                    job,
                    output.status.code(),
                    &format!("{error}; the job printed: {printed}"),
                )
            }),
            Err(error) => failed(
                job,
                None,
                &format!("cannot run {}: {error}", self.program.display()),
            ),
        }
    }
}

/// The result of a job whose process gave none.
fn failed(job: &Job, code: Option<i32>, message: &str) -> JobResult {
    let exit_code = code
        .and_then(|code| u8::try_from(code).ok())
        .filter(|&code| code != crate::exit::SUCCESS && code != crate::exit::VIOLATION)
        .unwrap_or(crate::exit::BACKEND_FAILURE);
    JobResult {
        format: job::RESULT_FORMAT.to_string(),
        id: job.id.clone(),
        harness: job.harness.file.clone(),
        line: job.harness.line,
        model: model_name(job.model).to_string(),
        expected: job.expected,
        verdict: "no-result".to_string(),
        exit_code,
        seconds: 0.0,
        classes: None,
        property: None,
        message: Some(message.to_string()),
        report: serde_json::Value::Null,
        sarif_run: serde_json::json!({
            "tool": { "driver": { "name": "lazysma" } },
            "invocations": [{
                "executionSuccessful": false,
                "toolExecutionNotifications": [{ "message": { "text": message }, "level": "error" }],
            }],
            "results": [],
            "automationDetails": { "id": format!("lazysma-batch/{}", job.id) },
        }),
        split: job::PartOf::of(job),
    }
}

/// `[K/N] FILE MODEL: VERDICT (expected E, S s) STATUS`.
fn progress(finished: usize, total: usize, result: &JobResult) -> String {
    let classes = result
        .classes
        .map_or(String::new(), |classes| format!(", {classes} classes"));
    let part = result.split.as_ref().map_or(String::new(), |part| {
        format!(" part {}/{}", part.part, part.parts)
    });
    format!(
        "[{finished}/{total}] {} {}{part}: {} (expected {}, {:.2} s{classes}) {}",
        result.harness,
        result.model,
        result.verdict,
        result.expected.name(),
        result.seconds,
        result.outcome().name()
    )
}

/// The shell command line that runs the job `id`.
pub fn command_line(
    program: &Path,
    manifest: &Path,
    parts: usize,
    id: &str,
    results: &Path,
) -> String {
    let mut words = vec![
        quote(&program.display().to_string()),
        "batch".to_string(),
        quote(&manifest.display().to_string()),
    ];
    if parts > 1 {
        words.extend(["--split".to_string(), parts.to_string()]);
    }
    words.extend([
        "--job".to_string(),
        quote(id),
        "--results".to_string(),
        quote(&results.display().to_string()),
    ]);
    words.join(" ")
}

/// `word` as one word of a POSIX shell.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
