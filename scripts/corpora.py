"""What the corpus scripts share: where the public corpora are (the folder
$LAZYSMA_CORPUS names, relative to the repository root, else ../shared beside
the repository: the root the Rust tests read too), the documented bounds of
every litmus test and benchmark program (the same files the Rust tests read),
and one timed run of a command with its verdict."""

import csv
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS_VARIABLE = "LAZYSMA_CORPUS"


def corpus_root():
    """The folder of the public corpora: $LAZYSMA_CORPUS (relative to the
    repository root; an empty value counts as unset), else ../shared beside
    the repository."""
    folder = os.environ.get(CORPUS_VARIABLE)
    return ROOT / folder if folder else ROOT.parent / "shared"


CORPUS = corpus_root()
LITMUS = CORPUS / "litmus" / "visible"
BENCH = CORPUS / "bench"
CORPUS_MANIFESTS = (LITMUS / "expected.tsv", BENCH / "manifest.tsv")


def require_corpus():
    """Ends the script with the clear message (exit 1) unless the public
    corpora are where corpus_root() says."""
    missing = [str(path.relative_to(CORPUS)) for path in CORPUS_MANIFESTS if not path.is_file()]
    if missing:
        sys.exit(f"error: the public corpora are not in {CORPUS} (it lacks {' and '.join(missing)}). "
                 f"Provide them one of two ways: set {CORPUS_VARIABLE} to the folder that holds "
                 "litmus/visible/ and bench/, or put that folder as `shared` beside the repository "
                 "(../shared/); see docs/testing.md, \"The corpora\"")


DEFAULT_LAZYSMA = str(ROOT / "target" / "release" / "lazysma")


def _tsv_rows(path):
    """Non-comment lines of a bounds file, split on tabs."""
    with open(path) as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                yield line.rstrip("\n").split("\t")


def _litmus_bounds_file():
    """{(test, model): bounds} from tests/fixtures/litmus_bounds.tsv, where
    ("*", "*") holds the bounds of every test."""
    return {(test, model): text.split()
            for test, model, text in _tsv_rows(ROOT / "tests" / "fixtures" / "litmus_bounds.tsv")}


def _bench_bounds_file():
    """{path: bounds} from tests/fixtures/bench_bounds.tsv: programs whose
    bounds Table I does not give or that do not suffice."""
    return {path: text.split() for path, text in _tsv_rows(ROOT / "tests" / "fixtures" / "bench_bounds.tsv")}


def _table_one():
    """Table I bounds by corpus file."""
    require_corpus()
    bounds = {}
    with open(BENCH / "paper_table1.tsv") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            arguments = ["--unwind", row["unwind"], "--qsize", row["qsize"], "--rounds", row["rounds"],
                         "--maxclock", row["maxclock"], "--nmalloc", max(row["nmalloc"], "1")]
            for entry in row["corpus_files"].split(";"):
                name = entry.strip().split(" ")[0]
                if name:
                    bounds[name] = arguments
    return bounds


def litmus_tests(corpus=LITMUS):
    """Rows of a litmus corpus's expected.tsv (file, sc, tso, pso)."""
    if Path(corpus) == LITMUS:
        require_corpus()
    with open(Path(corpus) / "expected.tsv") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def litmus_bounds():
    """bounds(test, model): the documented bounds of a litmus test."""
    rows = _litmus_bounds_file()
    return lambda name, model: rows.get((name, model), rows[("*", "*")])


def bench_programs():
    """Rows of the benchmark manifest (path, *_verdict, min_unwind, ...)."""
    require_corpus()
    with open(BENCH / "manifest.tsv") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def reduced_bench_bounds():
    """{path or path@model: bounds} from
    tests/fixtures/differential_reduced_bounds.tsv: the smaller bounds of the
    differential's second tier (path@model for one model only)."""
    return {path: text.split()
            for path, text in _tsv_rows(ROOT / "tests" / "fixtures" / "differential_reduced_bounds.tsv")}


def reduced_bounds_of(reduced, path, model):
    """The reduced bounds of a program under a model, or None."""
    return reduced.get(f"{path}@{model}") or reduced.get(path)


def bench_bounds():
    """bounds(row): the bounds of a benchmark program: its own row of
    bench_bounds.tsv, else Table I, else its smallest unwinding."""
    overrides = _bench_bounds_file()
    table = _table_one()
    return lambda row: (overrides.get(row["path"]) or table.get(row["path"])
                        or ["--unwind", row["min_unwind"] or "2"])


def timed(command, timeout, memory_gb=None):
    """(seconds, exit code or "TO", stdout) of one run of `command`, with its
    address space (children included) limited to `memory_gb` if given."""
    def limit():
        if memory_gb:
            size = int(memory_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
        return time.monotonic() - start, done.returncode, done.stdout
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, "TO", ""


def verdict_of(code):
    """The verdict a `lazysma verify` exit code stands for."""
    return {0: "safe", 10: "unsafe", 3: "TO", "TO": "TO"}.get(code, f"exit {code}")


def verify(lazysma, file, model, bounds, timeout, sma=None, memory_gb=None, extra=()):
    """(seconds, verdict) of `lazysma verify FILE --MODEL BOUNDS [--sma SMA]
    EXTRA`; a run that exceeds `memory_gb` ends with CBMC failing (exit 2)."""
    command = [lazysma, "verify", str(file), f"--{model}", "--timeout", str(timeout)] + list(bounds)
    if sma:
        command += ["--sma", sma]
    command += list(extra)
    seconds, code, _ = timed(command, timeout + 30, memory_gb)
    return seconds, verdict_of(code)


def decide_formula(lazysma, file, model, bounds, timeout, sma, solver, memory_gb=None):
    """(seconds, verdict) of the formula of `lazysma translate FILE --MODEL
    BOUNDS --sma SMA`: CBMC writes it in DIMACS and the SAT solver program
    `solver` decides it; satisfiable exactly when some property can fail
    ("unsafe"). A formula CBMC's simplifier decided is written without its
    properties (and is satisfiable): "0 remaining after simplification"
    means "safe" then. No trace is needed, so the formula is sliced to the
    properties (`--slice-formula`), as lazysma's own prover does. No witness: for the reference side of the
    differential, whose timestamped side is checked natively; so the SMA
    leaves out what only the trace needs (`-D SMA_VERDICT_ONLY`)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as directory:
        program, formula = Path(directory) / "sequential.c", Path(directory) / "formula.cnf"
        _, code, _ = timed([lazysma, "translate", str(file), f"--{model}", "--sma", sma, "-o", str(program)]
                           + list(bounds), timeout, memory_gb)
        if code != 0:
            return time.monotonic() - start, f"exit {code}"
        left = max(1, timeout - (time.monotonic() - start))
        _, code, out = timed(["cbmc", str(program), "--dimacs", "--outfile", str(formula),
                              "--no-unwinding-assertions", "--slice-formula", "-D", "SMA_VERDICT_ONLY"],
                             left, memory_gb)
        remaining = re.search(r"VCC\(s\), (\d+) remaining after simplification", out)
        if code != 0 or not remaining:
            return time.monotonic() - start, "TO" if code == "TO" else f"exit {code}"
        if remaining.group(1) == "0":
            return time.monotonic() - start, "safe"
        left = max(1, timeout - (time.monotonic() - start))
        _, code, out = timed([solver, str(formula)], left, memory_gb)
        answer = {(10, "s SATISFIABLE"): "unsafe", (20, "s UNSATISFIABLE"): "safe"}
        line = next((l.strip() for l in out.splitlines() if l.startswith("s ")), "")
        return time.monotonic() - start, answer.get((code, line), "TO" if code == "TO" else f"exit {code}")
