//! Finds the CBMC executable (`--cbmc PATH`, `$LAZYSMA_CBMC`, then `PATH`)
//! and asks it once for its version and the options it understands.

use super::BackendError;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The environment variable naming the CBMC executable.
pub const CBMC_ENV: &str = "LAZYSMA_CBMC";

/// The oldest CBMC lazysma drives.
pub const MIN_VERSION: CbmcVersion = CbmcVersion {
    major: 5,
    minor: 12,
    patch: 0,
};

/// How to get CBMC, for error messages.
pub const INSTALL_HINT: &str = "install CBMC >= 5.12: `sudo bash scripts/install-cbmc.sh` \
(Debian/Ubuntu), or your distribution's `cbmc` package; or name the executable with \
`--cbmc PATH` or the LAZYSMA_CBMC environment variable";

/// A CBMC version `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CbmcVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl CbmcVersion {
    /// Reads the first `N.N[.N]` of `cbmc --version` output, e.g.
    /// `5.12 (cbmc-5.12)` or `6.6.0 (cbmc-6.6.0)`.
    pub fn parse(text: &str) -> Option<CbmcVersion> {
        let start = text.find(|c: char| c.is_ascii_digit())?;
        let token: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let mut numbers = token
            .split('.')
            .filter(|s| !s.is_empty())
            .map(str::parse::<u32>);
        let major = numbers.next()?.ok()?;
        let minor = numbers.next()?.ok()?;
        let patch = match numbers.next() {
            Some(number) => number.ok()?,
            None => 0,
        };
        Some(CbmcVersion {
            major,
            minor,
            patch,
        })
    }
}

impl CbmcVersion {
    /// The version in the output of `cbmc --version`, which names CBMC
    /// (`5.12 (cbmc-5.12)`); `None` for another program's version banner.
    pub fn parse_cbmc_banner(text: &str) -> Option<CbmcVersion> {
        if text.to_ascii_lowercase().contains("cbmc") {
            CbmcVersion::parse(text)
        } else {
            None
        }
    }
}

impl fmt::Display for CbmcVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Where the CBMC executable was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CbmcSource {
    CommandLine,
    Environment,
    SearchPath,
}

/// A CBMC executable whose version and options are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cbmc {
    pub path: PathBuf,
    pub source: CbmcSource,
    pub version: CbmcVersion,
    /// The first line of `cbmc --version`.
    pub version_text: String,
    /// The options `cbmc --help` lists (words starting with `--`).
    listed_options: BTreeSet<String>,
}

impl Cbmc {
    /// Finds CBMC: `explicit` (from `--cbmc`), else `$LAZYSMA_CBMC`, else
    /// `cbmc` on `PATH`; then detects its version.
    pub fn locate(explicit: Option<&Path>) -> Result<Cbmc, BackendError> {
        let env = std::env::var_os(CBMC_ENV).filter(|value| !value.is_empty());
        let (path, source) = resolve(explicit, env)?;
        Cbmc::at(path, source)
    }

    /// Detects the version of the CBMC at `path`.
    pub fn at(path: PathBuf, source: CbmcSource) -> Result<Cbmc, BackendError> {
        let version_output = run_quietly(&path, "--version")?;
        let version_text = version_output
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let version = CbmcVersion::parse_cbmc_banner(&version_text).ok_or_else(|| {
            BackendError::VersionUnreadable {
                path: path.clone(),
                output: version_text.clone(),
            }
        })?;
        if version < MIN_VERSION {
            return Err(BackendError::VersionTooOld { path, version });
        }
        let help_text = run_quietly(&path, "--help").unwrap_or_default();
        let listed_options = listed_options(&help_text);
        Ok(Cbmc {
            path,
            source,
            version,
            version_text,
            listed_options,
        })
    }

    /// Whether `cbmc --help` lists `option` (e.g. `--external-sat-solver`).
    pub fn lists_option(&self, option: &str) -> bool {
        self.listed_options.contains(option)
    }

    /// CBMC >= 6 turns on pointer, bounds and overflow checks by default.
    pub fn needs_no_standard_checks(&self) -> bool {
        self.version.major >= 6
    }

    /// `--no-unwinding-assertions` is accepted from 5.12 on (not listed in
    /// the help of 5.12, but parsed).
    pub fn accepts_no_unwinding_assertions(&self) -> bool {
        self.version >= MIN_VERSION || self.lists_option("--no-unwinding-assertions")
    }

    /// `--sat-solver NAME` (a solver built into CBMC).
    pub fn accepts_sat_solver(&self) -> bool {
        self.lists_option("--sat-solver")
    }

    /// `--external-sat-solver CMD` (a DIMACS solver on PATH).
    pub fn accepts_external_sat_solver(&self) -> bool {
        self.lists_option("--external-sat-solver")
    }
}

/// The `--option` words of a help text.
fn listed_options(help_text: &str) -> BTreeSet<String> {
    help_text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '|')
        .filter(|word| word.len() > 2 && word.starts_with("--"))
        .map(str::to_string)
        .collect()
}

fn resolve(
    explicit: Option<&Path>,
    env: Option<OsString>,
) -> Result<(PathBuf, CbmcSource), BackendError> {
    if let Some(path) = explicit {
        return executable(path, CbmcSource::CommandLine);
    }
    if let Some(value) = env {
        return executable(Path::new(&value), CbmcSource::Environment);
    }
    match which::which("cbmc") {
        Ok(path) => Ok((path, CbmcSource::SearchPath)),
        Err(_) => Err(BackendError::NotFound { hint: INSTALL_HINT }),
    }
}

/// A named executable: a path, or a bare name looked up on `PATH`.
fn executable(path: &Path, source: CbmcSource) -> Result<(PathBuf, CbmcSource), BackendError> {
    let resolved = if path.components().count() > 1 {
        which::which(path)
    } else {
        which::which(path.as_os_str())
    };
    match resolved {
        Ok(found) => Ok((found, source)),
        Err(_) => Err(BackendError::NotExecutable {
            path: path.to_path_buf(),
            origin: source,
            hint: INSTALL_HINT,
        }),
    }
}

/// How often a start that finds the executable busy is tried again, and
/// the pause between tries.
const BUSY_RETRIES: usize = 50;
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// Runs `attempt` again while it fails with "text file busy" (ETXTBSY): an
/// executable written just before (a wrapper script) is busy while a child
/// that another thread of this process forked meanwhile still holds it
/// open for writing, until that child's `exec` closes it a moment later.
pub(super) fn retry_while_busy<T>(
    mut attempt: impl FnMut() -> std::io::Result<T>,
) -> std::io::Result<T> {
    for _ in 0..BUSY_RETRIES {
        match attempt() {
            Err(error) if error.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(BUSY_PAUSE)
            }
            other => return other,
        }
    }
    attempt()
}

fn run_quietly(path: &Path, flag: &str) -> Result<String, BackendError> {
    let output = retry_while_busy(|| Command::new(path).arg(flag).stdin(Stdio::null()).output())
        .map_err(|error| BackendError::Spawn {
            path: path.to_path_buf(),
            error,
        })?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    if text.trim().is_empty() {
        text = String::from_utf8_lossy(&output.stderr).into_owned();
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(
            CbmcVersion::parse("5.12 (cbmc-5.12)"),
            Some(CbmcVersion {
                major: 5,
                minor: 12,
                patch: 0
            })
        );
        assert_eq!(
            CbmcVersion::parse("6.6.0 (cbmc-6.6.0-dirty)"),
            Some(CbmcVersion {
                major: 6,
                minor: 6,
                patch: 0
            })
        );
        assert_eq!(
            CbmcVersion::parse("CBMC version 5.95.1"),
            Some(CbmcVersion {
                major: 5,
                minor: 95,
                patch: 1
            })
        );
        assert_eq!(CbmcVersion::parse("cbmc"), None);
        assert_eq!(CbmcVersion::parse("7"), None);
    }

    #[test]
    fn options_are_read_from_help_text() {
        let options = listed_options(
            " --json-ui   use JSON\n --unwind nr  unwind\n --sat-solver solver, --x|--y\n -I path\n",
        );
        let expected: BTreeSet<String> = ["--json-ui", "--unwind", "--sat-solver", "--x", "--y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(options, expected);
    }

    #[test]
    fn only_cbmc_banners_count() {
        assert!(CbmcVersion::parse_cbmc_banner("5.12 (cbmc-5.12)").is_some());
        assert!(CbmcVersion::parse_cbmc_banner("true (GNU coreutils) 9.1").is_none());
    }

    #[test]
    fn versions_order() {
        let v = |s| CbmcVersion::parse(s).expect("valid");
        assert!(v("5.12") >= MIN_VERSION);
        assert!(v("5.11.9") < MIN_VERSION);
        assert!(v("6.0.0") > v("5.95.1"));
    }

    #[test]
    fn missing_explicit_path_is_a_typed_error() {
        let error = resolve(Some(Path::new("/nonexistent/dir/cbmc")), None).expect_err("must fail");
        assert!(matches!(
            error,
            BackendError::NotExecutable {
                origin: CbmcSource::CommandLine,
                ..
            }
        ));
        assert!(error.to_string().contains("install-cbmc.sh"));
    }

    #[test]
    fn environment_is_used_when_no_explicit_path() {
        let error =
            resolve(None, Some(OsString::from("/nonexistent/cbmc-env"))).expect_err("must fail");
        assert!(matches!(
            error,
            BackendError::NotExecutable {
                origin: CbmcSource::Environment,
                ..
            }
        ));
    }
}
