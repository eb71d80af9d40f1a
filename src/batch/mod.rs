//! `lazysma batch` and `lazysma merge`: many harnesses checked together.
//! A manifest (`manifest`) lists harnesses, each under some models with
//! an expected verdict; each (harness, model) is a job that one process
//! runs (`job`: `lazysma batch MANIFEST --job ID --results DIR`, which
//! writes `DIR/ID.json`). `batch` runs those processes itself, a few at a
//! time (`runner`), or with `--print-jobs` prints their command lines for
//! GNU parallel, a Slurm array or a CI matrix; `merge` reads the result
//! files back. Either way the same code makes the report: the summary
//! table and one SARIF log for all findings (`summary`), the JUnit XML
//! file (`junit`) and the exit code.

pub mod job;
pub mod junit;
pub mod manifest;
pub mod parts;
pub mod runner;
pub mod summary;

use crate::exit;
use crate::verify::VerifyRequest;
use job::{JobResult, Outcome};
use std::path::{Path, PathBuf};

/// Turns the `verify` arguments of a job (after `verify`) into the
/// request `verify` would make of them, or the option error.
pub type RequestParser<'p> = dyn Fn(&[String]) -> Result<VerifyRequest, String> + Sync + 'p;

/// Where a batch writes its report.
#[derive(Debug, Clone, Default)]
pub struct ReportFiles {
    /// `--junit FILE`: the JUnit XML file.
    pub junit: Option<PathBuf>,
    /// `--sarif FILE`: one SARIF log for every job.
    pub sarif: Option<PathBuf>,
}

/// `lazysma batch MANIFEST`.
#[derive(Debug, Clone)]
pub struct BatchRequest {
    pub manifest: PathBuf,
    /// How many jobs run at once.
    pub jobs: usize,
    /// Where the result files go (a temporary directory when `None`).
    pub results: Option<PathBuf>,
    pub files: ReportFiles,
    /// The lazysma binary the jobs run (this one).
    pub program: PathBuf,
    /// `--split N`: each harness's search in N parts, one job each.
    pub parts: usize,
}

/// The jobs of the manifest, each checked by `parse`; the rendered error
/// of the first mistake otherwise.
fn load(
    manifest: &Path,
    parts: usize,
    parse: &RequestParser,
) -> Result<Vec<manifest::Job>, String> {
    let harnesses = manifest::read(manifest).map_err(|error| error.to_string())?;
    let jobs = manifest::jobs(&harnesses, parts);
    for job in &jobs {
        let arguments = job.verify_arguments();
        parse(&arguments[1..]).map_err(|error| {
            format!(
                "{}:{}: the options of this harness: {error}",
                manifest.display(),
                job.harness.line
            )
        })?;
    }
    Ok(jobs)
}

/// Runs every job of the manifest, prints a progress line per finished
/// job and the summary, writes the report files; returns the exit code.
pub fn run(request: &BatchRequest, parse: &RequestParser) -> u8 {
    let jobs = match load(&request.manifest, request.parts, parse) {
        Ok(jobs) => jobs,
        Err(error) => return fail(exit::BAD_INPUT, &error),
    };
    let temporary;
    let results = match &request.results {
        Some(results) => results.clone(),
        None => match tempfile::tempdir() {
            Ok(directory) => {
                temporary = directory;
                temporary.path().to_path_buf()
            }
            Err(error) => {
                return fail(
                    exit::BACKEND_FAILURE,
                    &format!("no temporary directory: {error}"),
                );
            }
        },
    };
    let runner = runner::Runner {
        program: &request.program,
        manifest: &request.manifest,
        results: &results,
        parts: request.parts,
        workers: request.jobs.max(1),
    };
    let finished = runner.run(&jobs);
    report(&suite_name(&request.manifest), &finished, &request.files, 0)
}

/// `--print-jobs`: one shell command line per job.
pub fn print_jobs(
    manifest: &Path,
    parts: usize,
    results: &Path,
    program: &Path,
    parse: &RequestParser,
) -> u8 {
    let jobs = match load(manifest, parts, parse) {
        Ok(jobs) => jobs,
        Err(error) => return fail(exit::BAD_INPUT, &error),
    };
    let lines: String = jobs
        .iter()
        .map(|job| runner::command_line(program, manifest, parts, &job.id, results) + "\n")
        .collect();
    match crate::output::print(&lines) {
        Ok(()) => exit::SUCCESS,
        Err(error) => fail(
            exit::BACKEND_FAILURE,
            &format!("cannot print the jobs: {error}"),
        ),
    }
}

/// `--job ID`: runs that one job of the manifest in this process and
/// writes its result file; exit 0 once it is written, whatever the
/// verdict (`merge` judges it).
pub fn run_job(
    manifest: &Path,
    parts: usize,
    id: &str,
    results: &Path,
    parse: &RequestParser,
) -> u8 {
    let jobs = match load(manifest, parts, parse) {
        Ok(jobs) => jobs,
        Err(error) => return fail(exit::BAD_INPUT, &error),
    };
    let Some(job) = jobs.iter().find(|job| job.id == id) else {
        let known: Vec<&str> = jobs.iter().map(|job| job.id.as_str()).collect();
        return fail(
            exit::BAD_INPUT,
            &format!(
                "the manifest has no job {id}; its jobs are {}",
                known.join(", ")
            ),
        );
    };
    let arguments = job.verify_arguments();
    let request = match parse(&arguments[1..]) {
        Ok(request) => request,
        Err(error) => return fail(exit::BAD_INPUT, &error),
    };
    // the verdict is in the result file, for `merge` to judge: a job
    // runner (GNU parallel, Slurm) counts only the jobs that wrote none
    match job::run(job, &request, results) {
        Ok(_) => exit::SUCCESS,
        Err(error) => fail(exit::BACKEND_FAILURE, &error),
    }
}

/// `lazysma merge`: the report of the result files `inputs` (files, or
/// directories of them), checked against the manifest's jobs when one is
/// given (a missing job makes the exit code 5 unless it is 10 already).
pub fn merge(
    inputs: &[PathBuf],
    manifest: Option<&Path>,
    parts: usize,
    files: &ReportFiles,
    parse: &RequestParser,
) -> u8 {
    let mut results = Vec::new();
    for path in result_files(inputs) {
        match path.and_then(|path| parts::read(&path)) {
            Ok(result) => results.push(result),
            Err(error) => return fail(exit::BAD_INPUT, &error),
        }
    }
    results.sort_by(|a, b| a.id.cmp(&b.id));
    results.dedup_by(|a, b| a.id == b.id && a.split == b.split);
    let mut missing = 0;
    if let Some(manifest) = manifest {
        let jobs = match load(manifest, parts, parse) {
            Ok(jobs) => jobs,
            Err(error) => return fail(exit::BAD_INPUT, &error),
        };
        for job in jobs
            .iter()
            .filter(|job| !results.iter().any(|result| result.id == job.id))
        {
            crate::output::eprintln(&format!(
                "missing: the result of job {} ({} {})",
                job.id,
                job.harness.file,
                manifest::model_name(job.model)
            ));
            missing += 1;
        }
    }
    let suite = manifest.map_or("lazysma merge".to_string(), suite_name);
    report(&suite, &results, files, missing)
}

/// The result files among `inputs`: each file itself, each directory's `*.json`.
fn result_files(inputs: &[PathBuf]) -> Vec<Result<PathBuf, String>> {
    let mut files = Vec::new();
    for input in inputs {
        if !input.is_dir() {
            files.push(Ok(input.clone()));
            continue;
        }
        match std::fs::read_dir(input) {
            Ok(entries) => {
                let mut found: Vec<PathBuf> = entries
                    .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                    .filter(|path| {
                        path.extension()
                            .is_some_and(|extension| extension == "json")
                    })
                    .collect();
                found.sort();
                files.extend(found.into_iter().map(Ok));
            }
            Err(error) => files.push(Err(format!("cannot read {}: {error}", input.display()))),
        }
    }
    files
}

fn suite_name(manifest: &Path) -> String {
    manifest.display().to_string()
}

/// Prints the summary, writes the report files; the batch's exit code.
/// The jobs are in manifest order, models in the order SC, TSO, PSO.
fn report(suite: &str, results: &[JobResult], files: &ReportFiles, missing: usize) -> u8 {
    let mut results = parts::combine(results.to_vec());
    let rank = |model: &str| ["sc", "tso", "pso"].iter().position(|name| *name == model);
    results.sort_by_key(|result| (result.line, rank(&result.model)));
    let results = &results[..];
    for result in results
        .iter()
        .filter(|result| result.outcome() == Outcome::Error)
    {
        if let Some(message) = &result.message {
            crate::output::eprintln(&format!(
                "{} {}: {}: {message}",
                result.harness, result.model, result.verdict
            ));
        }
    }
    if let Err(error) = crate::output::print(&summary::table(results)) {
        return fail(
            exit::BACKEND_FAILURE,
            &format!("cannot print the summary: {error}"),
        );
    }
    if let Some(path) = &files.junit
        && let Err(error) =
            crate::output::write_atomically(path, junit::render(suite, results).as_bytes())
    {
        return fail(
            exit::BACKEND_FAILURE,
            &format!("cannot write {}: {error}", path.display()),
        );
    }
    if let Some(path) = &files.sarif {
        let mut text =
            serde_json::to_string_pretty(&summary::sarif_log(results)).unwrap_or_default();
        text.push('\n');
        if let Err(error) = crate::output::write_atomically(path, text.as_bytes()) {
            return fail(
                exit::BACKEND_FAILURE,
                &format!("cannot write {}: {error}", path.display()),
            );
        }
    }
    match summary::exit_code(results) {
        exit::SUCCESS if missing > 0 => exit::EXPECTATION_UNMET,
        code => code,
    }
}

/// Prints `error` and returns `code`.
fn fail(code: u8, error: &str) -> u8 {
    crate::output::eprintln(&format!("error: {error}"));
    code
}
