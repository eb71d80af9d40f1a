//! Renders a [`VerifyReport`] as a SARIF 2.1.0 log, the format CI code
//! scanning reads: a confirmed violation is an error result at the failing
//! property with the witness as its code flow and the fences as fixes, the
//! translator's warnings are warning results, and a run that could not
//! decide (bad input, CBMC failure, time limit) is a failed invocation.
//! Files under the repository root of the working directory are named
//! relative to it (`uriBaseId` `%SRCROOT%`), as code scanning expects.

use super::document::{
    FenceAdvice, PropertyKind, StepReport, Verdict, VerifyReport, WarningReport,
};
use serde_json::{Value, json};
use std::path::{Component, Path, PathBuf};

/// The rule of the translator's warnings (code no execution within the
/// bounds reaches).
const UNREACHED_RULE: &str = "unreached-code";

/// The base id of the locations under the source root.
const SOURCE_ROOT_ID: &str = "%SRCROOT%";

/// The SARIF log, pretty-printed, with a final newline.
pub fn render(report: &VerifyReport) -> String {
    let mut text = serde_json::to_string_pretty(&log(report)).unwrap_or_default();
    text.push('\n');
    text
}

/// The log of one run of lazysma, with locations relative to the
/// repository root of the working directory.
pub fn log(report: &VerifyReport) -> Value {
    match SourceRoot::of_working_directory() {
        Some(root) => log_under(report, &root),
        None => log_under(report, &SourceRoot::none()),
    }
}

/// Where the source tree is: files below `root` are named relative to it,
/// others (and every file when there is no root) by absolute `file://`
/// URIs; relative paths are resolved against `working_directory`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRoot {
    root: Option<PathBuf>,
    working_directory: PathBuf,
}

impl SourceRoot {
    /// The root of the repository holding the working directory: the
    /// nearest directory, the working directory or above, with a `.git`
    /// entry; the working directory itself outside any repository.
    pub fn of_working_directory() -> Option<SourceRoot> {
        let working_directory = std::env::current_dir().ok()?;
        let working_directory =
            std::fs::canonicalize(&working_directory).unwrap_or(working_directory);
        let root = working_directory
            .ancestors()
            .find(|directory| directory.join(".git").exists())
            .unwrap_or(&working_directory)
            .to_path_buf();
        Some(SourceRoot::at(root, working_directory))
    }

    /// `root`, with relative paths resolved against `working_directory`
    /// (both absolute).
    pub fn at(root: PathBuf, working_directory: PathBuf) -> SourceRoot {
        SourceRoot {
            root: Some(root),
            working_directory,
        }
    }

    /// No root: every file keeps its path as given.
    fn none() -> SourceRoot {
        SourceRoot {
            root: None,
            working_directory: PathBuf::new(),
        }
    }

    /// The run's `originalUriBaseIds`: where `%SRCROOT%` is on this machine.
    fn base_ids(&self) -> Option<Value> {
        let root = self.root.as_ref()?;
        let mut text = uri(&root.to_string_lossy());
        if !text.ends_with('/') {
            text.push('/');
        }
        Some(json!({ SOURCE_ROOT_ID: { "uri": text } }))
    }

    /// The artifact location of `file`: relative to the root with its base
    /// id when the file is below the root, its path as a URI otherwise.
    fn artifact(&self, file: &str) -> Value {
        match self.below_root(file) {
            Some(relative) => json!({ "uri": uri(&relative), "uriBaseId": SOURCE_ROOT_ID }),
            None => json!({ "uri": uri(&self.absolute(file).to_string_lossy()) }),
        }
    }

    /// `file` resolved against the working directory (symbolic links
    /// resolved when the file exists).
    fn absolute(&self, file: &str) -> PathBuf {
        if file.is_empty() || self.root.is_none() {
            return PathBuf::from(file);
        }
        let joined = self.working_directory.join(file);
        std::fs::canonicalize(&joined).unwrap_or_else(|_| normalise(&joined))
    }

    /// The path of `file` below the root, `/`-separated, if it is there.
    fn below_root(&self, file: &str) -> Option<String> {
        let root = self.root.as_ref()?;
        if file.is_empty() {
            return None;
        }
        let absolute = self.absolute(file);
        let relative = absolute.strip_prefix(root).ok()?;
        let segments: Vec<String> = relative
            .components()
            .map(|component| component.as_os_str().to_string_lossy().into_owned())
            .collect();
        (!segments.is_empty()).then(|| segments.join("/"))
    }
}

/// `path` without `.` segments and with each `..` taking back the segment
/// before it.
fn normalise(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other.as_os_str()),
        }
    }
    normal
}

/// The log of one run of lazysma, with the files named as `root` says.
pub fn log_under(report: &VerifyReport, root: &SourceRoot) -> Value {
    let mut results: Vec<Value> = report
        .each_violation()
        .iter()
        .filter_map(|each| violation(each, root))
        .collect();
    results.extend(
        report
            .warnings
            .iter()
            .map(|warning| unreached(warning, root)),
    );
    let mut log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "lazysma",
                "version": report.lazysma.version,
                "rules": rules(report),
            }},
            "invocations": [invocation(report, root)],
            "results": results,
            "properties": {
                "verdict": report.verdict.name(),
                "engine": report.engine,
                "model": report.model,
                "sma": report.sma.name(),
                "bounds": report.bounds.describe(),
            },
        }],
    });
    if let Some(base_ids) = root.base_ids() {
        log["runs"][0]["originalUriBaseIds"] = base_ids;
    }
    log
}

/// The rules the results name: the kind of the failing property and the
/// warnings' rule.
fn rules(report: &VerifyReport) -> Vec<Value> {
    let mut rules = Vec::new();
    let mut kinds: Vec<PropertyKind> = Vec::new();
    for each in report.each_violation() {
        let Some(property) = &each.property else {
            continue;
        };
        if kinds.contains(&property.kind) {
            continue;
        }
        kinds.push(property.kind);
        rules.push(json!({
            "id": rule_id(property.kind),
            "shortDescription": { "text": property.kind.failure() },
        }));
    }
    if !report.warnings.is_empty() {
        rules.push(json!({
            "id": UNREACHED_RULE,
            "shortDescription": { "text": "code that no execution within the bounds reaches, which no verdict covers" },
        }));
    }
    rules
}

/// The rule of a property kind: its name in the JSON report
/// (`assertion`, `null-dereference`, ...).
fn rule_id(kind: PropertyKind) -> String {
    super::schema::property_kind_name(kind).to_string()
}

/// How the run went: successful when it decided (safe or a violation),
/// with the reason when it did not.
fn invocation(report: &VerifyReport, root: &SourceRoot) -> Value {
    let decided = matches!(
        report.verdict,
        Verdict::Safe | Verdict::Violation | Verdict::UncheckedViolation | Verdict::UnwindingBound
    );
    let mut invocation = json!({
        "executionSuccessful": decided,
        "exitCode": report.exit_code,
        "commandLine": report.lazysma.command_line(),
    });
    if !decided {
        let message = report
            .message
            .clone()
            .unwrap_or_else(|| report.verdict.name().to_string());
        let mut notification = json!({ "level": "error", "message": { "text": message } });
        if let Some(diagnostic) = &report.diagnostic {
            notification["locations"] = json!([location(
                root,
                &diagnostic.file,
                diagnostic.line,
                diagnostic.column
            )]);
        }
        invocation["toolExecutionNotifications"] = json!([notification]);
    }
    invocation
}

/// The result of a failing property: where it fails, what it is, the
/// witness and the fences that forbid it.
fn violation(report: &VerifyReport, root: &SourceRoot) -> Option<Value> {
    let property = report.property.as_ref()?;
    let model = report.model.to_string();
    let mut text = match report.verdict {
        Verdict::UnwindingBound => format!(
            "Unwinding bound reached under {model}: a loop can run more than --unwind allows"
        ),
        Verdict::Violation | Verdict::UncheckedViolation => {
            format!("Violation under {model}: {}", property.kind.failure())
        }
        _ => return None,
    };
    if let Some(statement) = &property.statement {
        text.push_str(&format!(" (`{statement}`)"));
    }
    if report.found_under_sc {
        text.push_str("; found by the run under SC: it needs no weak memory");
    }
    if let Some(diagnosis) = &report.diagnosis {
        text.push_str(&format!(". Diagnosis: {}", diagnosis.summary));
        for fence in distinct_fences(report) {
            text.push_str(&format!(
                "; fix: insert `{}` after line {}",
                fence.insert, fence.after_line
            ));
        }
    }
    let level = if report.verdict == Verdict::UnwindingBound {
        "warning"
    } else {
        "error"
    };
    let mut result = json!({
        "ruleId": rule_id(property.kind),
        "level": level,
        "message": { "text": text },
        "locations": [location(root, property.file.as_deref().unwrap_or(&report.file), property.line.unwrap_or(0), 0)],
        "properties": { "property": property.id, "checkedNatively": report.check.performed },
    });
    if let Some(witness) = &report.witness {
        result["codeFlows"] = json!([{ "threadFlows": [{ "locations": witness.steps.iter().map(|witness_step| step(witness_step, root)).collect::<Vec<_>>() }] }]);
    }
    let cycle = cycle_locations(report, root);
    if !cycle.is_empty() {
        result["relatedLocations"] = Value::Array(cycle);
    }
    let fixes: Vec<Value> = distinct_fences(report)
        .into_iter()
        .filter_map(|fence| fix(fence, root))
        .collect();
    if !fixes.is_empty() {
        result["fixes"] = Value::Array(fixes);
    }
    Some(result)
}

/// The accesses of the diagnosis's happens-before cycle, in cycle order,
/// as related locations.
fn cycle_locations(report: &VerifyReport, root: &SourceRoot) -> Vec<Value> {
    let steps = report
        .diagnosis
        .iter()
        .flat_map(|diagnosis| diagnosis.cycle.iter());
    steps
        .enumerate()
        .map(|(at, step)| {
            let file = step.point.file.as_deref().unwrap_or(&report.file);
            let mut related = location(
                root,
                file,
                step.point.line.unwrap_or(0),
                step.point.column.unwrap_or(0),
            );
            related["id"] = json!(at + 1);
            let relaxed = if step.relaxed { ", relaxed" } else { "" };
            related["message"] = json!({
                "text": format!(
                    "happens-before cycle, step {}: {} {}; then {}{relaxed}",
                    at + 1,
                    step.thread,
                    step.access,
                    step.then
                )
            });
            related
        })
        .collect()
}

/// The fences of the diagnosis, each place once: threads that run the same
/// code need the same fence in the text.
fn distinct_fences(report: &VerifyReport) -> Vec<&FenceAdvice> {
    let mut fences: Vec<&FenceAdvice> = Vec::new();
    for fence in report
        .diagnosis
        .iter()
        .flat_map(|diagnosis| diagnosis.fences.iter())
    {
        let same = |other: &&FenceAdvice| {
            (
                &other.file,
                other.after_line,
                other.after_column,
                other.insert,
            ) == (
                &fence.file,
                fence.after_line,
                fence.after_column,
                fence.insert,
            )
        };
        if !fences.iter().any(same) {
            fences.push(fence);
        }
    }
    fences
}

/// One step of the witness, in the order of the interleaving.
fn step(step: &StepReport, root: &SourceRoot) -> Value {
    let mut location = location(
        root,
        step.file.as_deref().unwrap_or(""),
        step.line.unwrap_or(0),
        step.column.unwrap_or(0),
    );
    location["message"] = json!({ "text": format!("{}: {}", step.thread.name, step.effect) });
    json!({
        "location": location,
        "executionOrder": step.step,
        "importance": if step.after_failure { "unimportant" } else { "essential" },
    })
}

/// A fence as a SARIF fix: the statement inserted right after the one it
/// follows (none when lazysma cannot place it in the text).
fn fix(fence: &FenceAdvice, root: &SourceRoot) -> Option<Value> {
    let column = fence.after_column?;
    Some(json!({
        "description": { "text": format!("insert a {} fence", fence.kind) },
        "artifactChanges": [{
            "artifactLocation": root.artifact(&fence.file),
            "replacements": [{
                "deletedRegion": { "startLine": fence.after_line, "startColumn": column + 1, "endColumn": column + 1 },
                "insertedContent": { "text": format!(" {}", fence.insert) },
            }],
        }],
    }))
}

/// A translator warning as a warning result.
fn unreached(warning: &WarningReport, root: &SourceRoot) -> Value {
    let text = match &warning.help {
        Some(help) => format!("{}; {help}", warning.message),
        None => warning.message.clone(),
    };
    json!({
        "ruleId": UNREACHED_RULE,
        "level": "warning",
        "message": { "text": text },
        "locations": [location(root, &warning.file, warning.line, warning.column)],
    })
}

/// A physical location; a line or column of 0 (unknown) is left out.
fn location(root: &SourceRoot, file: &str, line: u32, column: u32) -> Value {
    let mut region = json!({});
    if line > 0 {
        region["startLine"] = json!(line);
        if column > 0 {
            region["startColumn"] = json!(column);
        }
    }
    let mut physical = json!({ "artifactLocation": root.artifact(file) });
    if line > 0 {
        physical["region"] = region;
    }
    json!({ "physicalLocation": physical })
}

/// A file path as a URI: relative paths as relative references, absolute
/// ones as `file://` URIs; `/` between the segments, every byte outside
/// the unreserved characters percent-encoded.
fn uri(path: &str) -> String {
    let mut encoded = if path.starts_with('/') {
        String::from("file://")
    } else {
        String::new()
    };
    for byte in path.replace('\\', "/").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(
            uri("examples/store buffering.c"),
            "examples/store%20buffering.c"
        );
        assert_eq!(uri("a\\b#1.c"), "a/b%231.c");
        assert_eq!(uri("dir/ü.c"), "dir/%C3%BC.c");
        assert_eq!(uri("/src/p.c"), "file:///src/p.c");
    }

    #[test]
    fn an_unknown_line_leaves_the_region_out() {
        let root = SourceRoot::none();
        assert_eq!(
            location(&root, "p.c", 0, 0),
            json!({ "physicalLocation": { "artifactLocation": { "uri": "p.c" } } })
        );
        assert_eq!(
            location(&root, "p.c", 7, 3)["physicalLocation"]["region"],
            json!({ "startLine": 7, "startColumn": 3 })
        );
        assert_eq!(
            location(&root, "p.c", 7, 0)["physicalLocation"]["region"],
            json!({ "startLine": 7 })
        );
    }

    /// A root at `/repo` seen from `/repo/checkout` (neither exists, so paths
    /// are only normalised).
    fn repository() -> SourceRoot {
        SourceRoot::at(PathBuf::from("/repo"), PathBuf::from("/repo/checkout"))
    }

    #[test]
    fn files_below_the_root_are_named_relative_to_it() {
        let root = repository();
        let below = json!({ "uri": "checkout/src/p%20q.c", "uriBaseId": "%SRCROOT%" });
        assert_eq!(root.artifact("src/p q.c"), below);
        assert_eq!(root.artifact("/repo/checkout/src/p q.c"), below);
        assert_eq!(
            root.artifact("./../lib/./r.c"),
            json!({ "uri": "lib/r.c", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            root.base_ids(),
            Some(json!({ "%SRCROOT%": { "uri": "file:///repo/" } }))
        );
    }

    #[test]
    fn files_outside_the_root_keep_absolute_uris() {
        let root = repository();
        assert_eq!(
            root.artifact("../../usr/include/stdio.h"),
            json!({ "uri": "file:///usr/include/stdio.h" })
        );
        assert_eq!(
            root.artifact("/repository/p.c"),
            json!({ "uri": "file:///repository/p.c" })
        );
        assert_eq!(root.artifact(""), json!({ "uri": "" }));
    }
}
