//! Shared test support for the pass tests: a builder of hand-written IR
//! programs and runners for gcc and CBMC on printed programs.
#![allow(dead_code)]

use lazysma::ir::*;
use lazysma::options::TranslateOptions;
use lazysma::passes::{SequentialProgram, sequentialise};
use std::process::Command;

/// The stand-in SC shared memory abstraction.
pub const SC_STANDIN: &str = include_str!("sc_standin.h");

/// Builds an IR program piece by piece; each statement gets its own origin.
pub struct Builder {
    pub program: Program,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Self {
        let mut program = Program::default();
        program
            .locations
            .push_object("null".into(), Shape::scalar(Ty::INT));
        program.origins.push(Origin {
            file: "test.c".into(),
            line: 1,
            column: 1,
            text: "int main(void)".into(),
        });
        program.heap_block_size = 1;
        Builder { program }
    }

    /// A shared global scalar; returns its address.
    pub fn global(&mut self, name: &str, initial: i64) -> Expr {
        let first = self
            .program
            .locations
            .push_object(name.into(), Shape::scalar(Ty::INT));
        self.program.locations.set_initial(first as usize, initial);
        Expr::Const(i64::from(first))
    }

    /// A shared global array of `n` scalars; returns the address of element 0.
    pub fn global_array(&mut self, name: &str, n: usize) -> Expr {
        let first = self
            .program
            .locations
            .push_object(name.into(), Shape::array(Shape::scalar(Ty::INT), n as u64));
        Expr::Const(i64::from(first))
    }

    pub fn mutex(&mut self, name: &str) -> Expr {
        let first = self.program.locations.push_object(
            name.into(),
            Shape::Scalar {
                ty: Ty::INT,
                mutex: true,
            },
        );
        Expr::Const(i64::from(first))
    }

    pub fn plain_global(&mut self, name: &str, ty: Ty) -> Place {
        self.program.plain_globals.push(PlainGlobal {
            name: name.into(),
            ty,
        });
        Place::PlainGlobal(self.program.plain_globals.len() - 1)
    }

    /// A statement with a fresh origin whose line is its position.
    pub fn st(&mut self, kind: StmtKind) -> Stmt {
        let line = self.program.origins.len() as u32 + 1;
        let text: String = format!("{kind:?}").chars().take(40).collect();
        self.program.origins.push(Origin {
            file: "test.c".into(),
            line,
            column: 3,
            text,
        });
        Stmt {
            kind,
            origin: self.program.origins.len() - 1,
        }
    }

    /// Reserves a function id (for calls and thread creation before definition).
    pub fn reserve(&mut self, name: &str) -> FunctionId {
        self.program.functions.push(Function {
            name: name.into(),
            params: Vec::new(),
            locals: Vec::new(),
            return_type: Ty::Void,
            body: Vec::new(),
            is_atomic: name.starts_with("__VERIFIER_atomic"),
            origin: 0,
        });
        self.program.functions.len() - 1
    }

    /// Defines a reserved function: `params` first locals are parameters.
    pub fn define(
        &mut self,
        id: FunctionId,
        params: usize,
        locals: &[(&str, Ty, bool)],
        return_type: Ty,
        body: Block,
    ) {
        let origin = self.st(StmtKind::AtomicEnd).origin;
        if let Some(f) = self.program.functions.get_mut(id) {
            f.params = (0..params).collect();
            f.locals = locals
                .iter()
                .map(|(n, t, s)| Local {
                    name: (*n).into(),
                    ty: t.clone(),
                    temporary: false,
                    shared: *s,
                })
                .collect();
            f.return_type = return_type;
            f.body = body;
            f.origin = origin;
        }
    }

    pub fn set_main(&mut self, id: FunctionId) {
        self.program.main = id;
    }
}

pub fn c(v: i64) -> Expr {
    Expr::Const(v)
}
pub fn local(id: LocalId) -> Place {
    Place::Local(id)
}
pub fn load(id: LocalId) -> Expr {
    Expr::Load(Place::Local(id))
}
pub fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}
pub fn int() -> Ty {
    Ty::INT
}
/// The address `base + offset` of an array element.
pub fn at(base: &Expr, offset: Expr) -> Expr {
    bin(BinaryOp::Add, base.clone(), offset)
}

/// Sequentialises and prints with the stand-in SC memory.
pub fn translate(program: &Program, options: &TranslateOptions) -> (SequentialProgram, String) {
    let seq = match sequentialise(program, options) {
        Ok(s) => s,
        Err(d) => panic!("sequentialisation failed: {}", d.message),
    };
    let text = lazysma::printer::print_with_sma(&seq, options, "", SC_STANDIN);
    (seq, text)
}

pub fn options(rounds: u32, unwind: u32) -> TranslateOptions {
    let mut o = TranslateOptions {
        sma: lazysma::options::SmaImplementation::Sc,
        ..TranslateOptions::default()
    };
    o.bounds.rounds = rounds;
    o.bounds.unwind = unwind;
    o
}

/// CBMC's standard output on a C text; None when CBMC is not installed.
pub fn cbmc_output(c_source: &str) -> Option<String> {
    let cbmc = std::env::var_os("LAZYSMA_CBMC")
        .map(std::path::PathBuf::from)
        .or_else(|| which::which("cbmc").ok())?;
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("seq.c");
    std::fs::write(&path, c_source).ok()?;
    let output = Command::new(cbmc).arg(&path).output().ok()?;
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// CBMC's verdict on a C text: Some(true) = VERIFICATION SUCCESSFUL,
/// Some(false) = VERIFICATION FAILED, None = CBMC not installed.
pub fn cbmc_verdict(c_source: &str) -> Option<bool> {
    let found = std::env::var_os("LAZYSMA_CBMC")
        .map(std::path::PathBuf::from)
        .or_else(|| which::which("cbmc").ok());
    let cbmc = match found {
        Some(path) => path,
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CBMC is not installed but CI=true")
        }
        None => return None,
    };
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("seq.c");
    std::fs::write(&path, c_source).ok()?;
    let output = Command::new(cbmc).arg(&path).output().ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if stdout.contains("VERIFICATION SUCCESSFUL") {
        Some(true)
    } else if stdout.contains("VERIFICATION FAILED") {
        Some(false)
    } else {
        panic!(
            "cbmc gave no verdict:\n{}\n{}",
            stdout,
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Whether gcc accepts the C text (`gcc -fsyntax-only`); None without gcc.
pub fn gcc_accepts(c_source: &str) -> Option<Result<(), String>> {
    let gcc = which::which("gcc").ok()?;
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("seq.c");
    std::fs::write(&path, c_source).ok()?;
    let output = Command::new(gcc)
        .args(["-fsyntax-only", "-Wall", "-x", "c"])
        .arg(&path)
        .output()
        .ok()?;
    if output.status.success() {
        Some(Ok(()))
    } else {
        Some(Err(String::from_utf8_lossy(&output.stderr).into_owned()))
    }
}

/// Asserts CBMC's verdict (skipped with a notice when CBMC is missing).
pub fn expect_verdict(c_source: &str, safe: bool, what: &str) {
    if let Some(Err(e)) = gcc_accepts(c_source) {
        panic!("{what}: gcc rejects the output:\n{e}\n{c_source}");
    }
    match cbmc_verdict(c_source) {
        Some(verdict) => assert_eq!(
            verdict,
            safe,
            "{what}: expected {}\n{c_source}",
            if safe { "safe" } else { "a violation" }
        ),
        None => eprintln!("cbmc not found: {what} checked by gcc only"),
    }
}
