//! The manifest of `lazysma batch`: a tab-separated file with one harness
//! per line (`FILE MODELS EXPECT TIMEOUT OPTIONS...`), read into
//! [`Harness`]es and their [`Job`]s (one per harness and model). Lines
//! starting with `#` and blank lines are skipped; a line whose first field
//! is `file` is the header. A mistake is a [`ManifestError`] located at
//! its line and column.

use crate::options::{MemoryModel, Split};
use std::path::{Path, PathBuf};

/// What a harness is expected to give under one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expectation {
    /// No violation within the bounds.
    Safe,
    /// A confirmed violation.
    Violation,
    /// No expectation (`?`): safe and a violation are both accepted.
    Unknown,
}

impl Expectation {
    pub fn name(self) -> &'static str {
        match self {
            Expectation::Safe => "safe",
            Expectation::Violation => "violation",
            Expectation::Unknown => "?",
        }
    }

    fn parse(text: &str) -> Option<Expectation> {
        match text {
            "safe" => Some(Expectation::Safe),
            "violation" | "unsafe" => Some(Expectation::Violation),
            "?" => Some(Expectation::Unknown),
            _ => None,
        }
    }
}

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Harness {
    /// The file as the manifest names it.
    pub file: String,
    /// The file resolved against the manifest's directory.
    pub path: PathBuf,
    /// The models with what each is expected to give.
    pub models: Vec<(MemoryModel, Expectation)>,
    /// Seconds each of its runs may take.
    pub timeout: Option<u64>,
    /// The `verify` options of its runs, one word each.
    pub options: Vec<String>,
    /// The manifest line (from 1).
    pub line: usize,
}

/// One run of a harness under one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// `LINE-STEM-MODEL`, unique in the manifest: the name of its result file.
    pub id: String,
    pub harness: Harness,
    pub model: MemoryModel,
    pub expected: Expectation,
    /// `batch --split N`: the part of the harness's search this job runs.
    pub split: Option<Split>,
}

impl Job {
    /// The arguments of `lazysma verify` for this job (without the
    /// program name): the file, the model, the harness's options and its
    /// time limit.
    pub fn verify_arguments(&self) -> Vec<String> {
        let mut arguments = vec![
            "verify".to_string(),
            self.harness.path.display().to_string(),
            format!("--{}", model_name(self.model)),
        ];
        arguments.extend(self.harness.options.iter().cloned());
        if let Some(timeout) = self.harness.timeout {
            arguments.extend(["--timeout".to_string(), timeout.to_string()]);
        }
        if let Some(split) = self.split {
            arguments.extend(["--split".to_string(), split.to_string()]);
        }
        arguments
    }

    /// The id of the whole (harness, model) job this job is a part of:
    /// its own id when it is not a part.
    pub fn whole_id(&self) -> &str {
        match self.id.rfind("-part") {
            Some(at) if self.split.is_some() => &self.id[..at],
            _ => &self.id,
        }
    }
}

/// The option's name of a model: `sc`, `tso` or `pso`.
pub fn model_name(model: MemoryModel) -> &'static str {
    match model {
        MemoryModel::Sc => "sc",
        MemoryModel::Tso => "tso",
        MemoryModel::Pso => "pso",
    }
}

/// A mistake in the manifest, at its line and column (from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read the manifest {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("{path}:{line}:{column}: {what}\n  | {excerpt}\n  = help: {help}")]
    Located {
        path: String,
        line: usize,
        column: usize,
        excerpt: String,
        what: String,
        help: String,
    },
}

/// The columns of a manifest line, for the help of its errors.
const COLUMNS: &str = "a line is FILE<TAB>MODELS<TAB>EXPECT<TAB>TIMEOUT[<TAB>OPTIONS], e.g. \
     `examples/dekker.c\tsc,tso\tsafe,violation\t60\t--engine smc`";

/// Options a manifest line may not give: the columns give them, or the
/// batch needs the report in its own form.
const REFUSED_OPTIONS: &[(&str, &str)] = &[
    ("--sc", "give the models in the MODELS column"),
    ("--tso", "give the models in the MODELS column"),
    ("--pso", "give the models in the MODELS column"),
    ("--timeout", "give the time limit in the TIMEOUT column"),
    ("--format", "the batch reads each run's report itself"),
    ("--keep", "the runs of a batch keep no programs"),
    ("--graph", "the runs of a batch draw no graphs"),
    ("--repro", "the runs of a batch write no reproductions"),
    ("--litmus", "the runs of a batch write no litmus tests"),
    ("--color", "the runs of a batch print no text reports"),
    ("--split", "give `batch --split N` to split every harness"),
];

/// Reads the manifest at `path`.
pub fn read(path: &Path) -> Result<Vec<Harness>, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|error| ManifestError::Unreadable {
        path: path.display().to_string(),
        reason: error.to_string(),
    })?;
    let directory = path.parent().unwrap_or(Path::new("")).to_path_buf();
    parse(&text, &path.display().to_string(), &directory)
}

/// The harnesses of the manifest `text` (named `name` in errors), with
/// files relative to `directory`.
pub fn parse(text: &str, name: &str, directory: &Path) -> Result<Vec<Harness>, ManifestError> {
    let mut harnesses = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("file\t") {
            continue;
        }
        let located = LineContext {
            name,
            line: index + 1,
            text: line,
        };
        harnesses.push(located.harness(directory)?);
    }
    Ok(harnesses)
}

/// The jobs of `harnesses`, in manifest order, then model order, then
/// part order: `parts` jobs for each harness and model (`--split K/N`,
/// ids `LINE-STEM-MODEL-partKofN`) when `parts` is above 1.
pub fn jobs(harnesses: &[Harness], parts: usize) -> Vec<Job> {
    let mut jobs = Vec::new();
    for harness in harnesses {
        let stem = harness
            .path
            .file_stem()
            .map_or("harness".to_string(), |stem| {
                stem.to_string_lossy().into_owned()
            });
        let stem: String = stem
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        for &(model, expected) in &harness.models {
            let id = format!("{:04}-{stem}-{}", harness.line, model_name(model));
            let job = |id: String, split: Option<Split>| Job {
                id,
                harness: harness.clone(),
                model,
                expected,
                split,
            };
            if parts <= 1 {
                jobs.push(job(id, None));
                continue;
            }
            for part in 1..=parts {
                let split = Split { part, parts };
                jobs.push(job(format!("{id}-part{part}of{parts}"), Some(split)));
            }
        }
    }
    jobs
}

/// One line being read.
struct LineContext<'t> {
    name: &'t str,
    line: usize,
    text: &'t str,
}

impl LineContext<'_> {
    /// An error at the field that starts at byte `start`.
    fn error(&self, start: usize, what: String, help: &str) -> ManifestError {
        ManifestError::Located {
            path: self.name.to_string(),
            line: self.line,
            column: self.text[..start.min(self.text.len())].chars().count() + 1,
            excerpt: self.text.to_string(),
            what,
            help: help.to_string(),
        }
    }

    /// The fields of the line, each with the byte where it starts.
    fn fields(&self) -> Vec<(usize, &str)> {
        let mut fields = Vec::new();
        let mut start = 0;
        for field in self.text.split('\t') {
            let leading = field.len() - field.trim_start().len();
            fields.push((start + leading, field.trim()));
            start += field.len() + 1;
        }
        fields
    }

    fn harness(&self, directory: &Path) -> Result<Harness, ManifestError> {
        let fields = self.fields();
        if fields.len() < 4 {
            return Err(self.error(
                0,
                format!("{} fields where at least 4 are needed", fields.len()),
                COLUMNS,
            ));
        }
        let (file_start, file) = fields[0];
        if file.is_empty() {
            return Err(self.error(file_start, "the file is empty".into(), COLUMNS));
        }
        let models = self.models(fields[1], fields[2])?;
        let timeout = self.timeout(fields[3])?;
        let mut options = Vec::new();
        for &(start, field) in &fields[4..] {
            for word in field.split_whitespace() {
                // the word's own place in the field, even when it repeats
                let offset = start + (word.as_ptr() as usize - field.as_ptr() as usize);
                self.check_option(offset, word)?;
                options.push(word.to_string());
            }
        }
        Ok(Harness {
            file: file.to_string(),
            path: directory.join(file),
            models,
            timeout,
            options,
            line: self.line,
        })
    }

    fn models(
        &self,
        (models_start, models): (usize, &str),
        (expect_start, expect): (usize, &str),
    ) -> Result<Vec<(MemoryModel, Expectation)>, ManifestError> {
        let mut parsed = Vec::new();
        for name in models.split(',').map(str::trim) {
            let model = match name {
                "sc" => MemoryModel::Sc,
                "tso" => MemoryModel::Tso,
                "pso" => MemoryModel::Pso,
                _ => {
                    return Err(self.error(
                        models_start,
                        format!("`{name}` is not a memory model"),
                        "MODELS is a comma-separated list of sc, tso and pso",
                    ));
                }
            };
            if parsed.contains(&model) {
                return Err(self.error(
                    models_start,
                    format!("the model {name} is given twice"),
                    "give each model once",
                ));
            }
            parsed.push(model);
        }
        let expectations: Option<Vec<Expectation>> = expect
            .split(',')
            .map(|word| Expectation::parse(word.trim()))
            .collect();
        let help = "EXPECT is safe, violation or ?, once for every model or once per model";
        let Some(expectations) = expectations else {
            return Err(self.error(
                expect_start,
                format!("`{expect}` is not an expectation"),
                help,
            ));
        };
        let expectations = match expectations.len() {
            1 => vec![expectations[0]; parsed.len()],
            count if count == parsed.len() => expectations,
            count => {
                return Err(self.error(
                    expect_start,
                    format!("{count} expectations for {} models", parsed.len()),
                    help,
                ));
            }
        };
        Ok(parsed.into_iter().zip(expectations).collect())
    }

    fn timeout(&self, (start, field): (usize, &str)) -> Result<Option<u64>, ManifestError> {
        if field == "-" || field.is_empty() {
            return Ok(None);
        }
        match field.parse::<u64>() {
            Ok(seconds) if seconds > 0 => Ok(Some(seconds)),
            _ => Err(self.error(
                start,
                format!("`{field}` is not a time limit"),
                "TIMEOUT is a positive number of seconds, or - for none",
            )),
        }
    }

    fn check_option(&self, start: usize, word: &str) -> Result<(), ManifestError> {
        let name = word.split('=').next().unwrap_or(word);
        match REFUSED_OPTIONS.iter().find(|(refused, _)| *refused == name) {
            Some((_, help)) => Err(self.error(
                start,
                format!("the option {name} cannot be given to a harness"),
                help,
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<Harness>, ManifestError> {
        parse(text, "m.tsv", Path::new("dir"))
    }

    #[test]
    fn a_line_gives_one_job_per_model_with_its_expectation() {
        let harnesses =
            parsed("# comment\nfile\tmodels\nsb.c\tsc,tso\tsafe,violation\t30\t--engine smc\n")
                .unwrap();
        let jobs = jobs(&harnesses, 1);
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].id, "0003-sb-sc");
        assert_eq!(jobs[1].expected, Expectation::Violation);
        assert_eq!(
            jobs[1].verify_arguments(),
            [
                "verify",
                "dir/sb.c",
                "--tso",
                "--engine",
                "smc",
                "--timeout",
                "30"
            ]
        );
    }

    #[test]
    fn mistakes_are_located() {
        let error = parsed("sb.c\tsc,arm\tsafe\t-\n").unwrap_err().to_string();
        assert!(
            error.starts_with("m.tsv:1:6: `arm` is not a memory model"),
            "{error}"
        );
        let error = parsed("sb.c\tsc\tsafe\t-\t--unwind 2 --tso\n")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("m.tsv:1:27: the option --tso"), "{error}");
        let error = parsed("sb.c\tsc,tso,pso\tsafe,safe\t5\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("2 expectations for 3 models"), "{error}");
        assert!(parsed("sb.c\tsc\tsafe\n").is_err());
        assert!(parsed("sb.c\tsc\tsafe\t0\n").is_err());
    }
}
