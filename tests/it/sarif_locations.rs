//! SARIF locations as code scanning reads them: a file below the
//! repository root of the working directory is named relative to that root
//! (`uriBaseId` `%SRCROOT%`, whose absolute place `originalUriBaseIds`
//! gives), wherever in the repository lazysma runs and however the file is
//! named on the command line.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{lazysma, require_cbmc};

/// A repository (a directory with `.git`) holding
/// `examples/store_buffering.c` as `checks/sb/store_buffering.c`.
fn repository() -> (tempfile::TempDir, PathBuf) {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = std::fs::canonicalize(directory.path()).expect("canonical temporary directory");
    std::fs::create_dir(root.join(".git")).expect("create .git");
    std::fs::create_dir_all(root.join("checks/sb")).expect("create checks/sb");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/store_buffering.c"),
        root.join("checks/sb/store_buffering.c"),
    )
    .expect("copy the example");
    (directory, root)
}

/// Runs `lazysma verify FILE ARGUMENTS --format sarif` in `directory`;
/// returns the exit code and the log.
fn sarif(directory: &Path, file: &Path, arguments: &[&str]) -> (i32, Value) {
    let output = lazysma()
        .current_dir(directory)
        .arg("verify")
        .arg(file)
        .args(arguments)
        .args(["--format", "sarif", "--engine", "cbmc"])
        .output()
        .expect("the lazysma binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let log = serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {stdout}"));
    (output.status.code().unwrap_or(-1), log)
}

/// The `file://` URI of the directory `root`, with its final `/`.
fn directory_uri(root: &Path) -> String {
    format!("file://{}/", root.display())
}

fn artifact(location: &Value) -> (&str, &str) {
    let artifact = &location["physicalLocation"]["artifactLocation"];
    (
        artifact["uri"].as_str().unwrap_or("no uri"),
        artifact["uriBaseId"].as_str().unwrap_or("no uriBaseId"),
    )
}

#[test]
fn a_violation_in_a_subdirectory_is_located_relative_to_the_repository_root() {
    if !require_cbmc() {
        return;
    }
    let (_directory, root) = repository();
    let expected = ("checks/sb/store_buffering.c", "%SRCROOT%");
    // from the root, from the file's own directory and by absolute path
    let runs = [
        (root.clone(), PathBuf::from("checks/sb/store_buffering.c")),
        (root.join("checks/sb"), PathBuf::from("store_buffering.c")),
        (
            root.join("checks"),
            root.join("checks/sb/store_buffering.c"),
        ),
    ];
    for (working_directory, file) in runs {
        let (code, log) = sarif(&working_directory, &file, &["--tso"]);
        assert_eq!(code, 10, "{log}");
        let run = &log["runs"][0];
        assert_eq!(
            run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            directory_uri(&root),
            "{log}"
        );
        let result = &run["results"][0];
        assert_eq!(artifact(&result["locations"][0]), expected, "{log}");
        assert!(
            result["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .is_some_and(|line| line > 0),
            "{log}"
        );
        let flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
            .as_array()
            .expect("a thread flow");
        assert!(!flow.is_empty(), "{log}");
        for step in flow {
            assert_eq!(artifact(&step["location"]), expected, "{log}");
        }
        let fixes = result["fixes"].as_array().expect("fixes");
        assert!(!fixes.is_empty(), "{log}");
        for fix in fixes {
            let change = &fix["artifactChanges"][0]["artifactLocation"];
            assert_eq!(change["uri"], expected.0, "{log}");
            assert_eq!(change["uriBaseId"], expected.1, "{log}");
        }
    }
}

#[test]
fn bad_input_in_a_subdirectory_is_located_relative_to_the_repository_root() {
    let (_directory, root) = repository();
    let file = root.join("checks/sb/bad.c");
    std::fs::write(&file, "int main(void) {\n  int x = ;\n}\n").expect("write bad.c");
    let (code, log) = sarif(&root.join("checks"), Path::new("sb/bad.c"), &[]);
    assert_eq!(code, 1, "{log}");
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{log}");
    let location = &invocation["toolExecutionNotifications"][0]["locations"][0];
    assert_eq!(
        artifact(location),
        ("checks/sb/bad.c", "%SRCROOT%"),
        "{log}"
    );
    assert_eq!(
        location["physicalLocation"]["region"]["startLine"], 2,
        "{log}"
    );
}

#[test]
fn outside_any_repository_the_working_directory_is_the_root() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = std::fs::canonicalize(directory.path()).expect("canonical temporary directory");
    if root.ancestors().any(|parent| parent.join(".git").exists()) {
        eprintln!("skipping: the temporary directory is inside a repository");
        return;
    }
    std::fs::create_dir(root.join("sub")).expect("create sub");
    std::fs::write(root.join("sub/bad.c"), "int main(void) {\n  int x = ;\n}\n")
        .expect("write bad.c");
    let (code, log) = sarif(&root, Path::new("sub/bad.c"), &[]);
    assert_eq!(code, 1, "{log}");
    assert_eq!(
        log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        directory_uri(&root),
        "{log}"
    );
    let location =
        &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["locations"][0];
    assert_eq!(artifact(location), ("sub/bad.c", "%SRCROOT%"), "{log}");
}
