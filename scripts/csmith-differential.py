#!/usr/bin/env python3
"""Differential test of lazysma against gcc on random programs from Csmith.

For each seed: Csmith generates a single-threaded program (options below
keep it small enough for CBMC); gcc compiles and runs it and prints its
checksum; then `lazysma verify` checks, under each model asked for, the
program whose last statement asserts that the checksum is gcc's (it must be
safe) and its mutant asserting the checksum plus one (it must be violated;
a "safe" mutant is a vacuous verdict). The runtime header
tests/fixtures/csmith/csmith.h turns the checksum print into the assertion
when compiled with -DEXPECTED_CHECKSUM; see docs/csmith-differential.md.

Every loop is asserted to exit within --unwind (--unwinding-assertions), so
that a "safe" verdict covers whole executions; a program whose loops need
more counts as "unwinding bound", not as agreement.

Usage: scripts/csmith-differential.py [--seeds FIRST-LAST] [--jobs N]
          [--timeout S] [--models sc,tso] [--unwind N] [--engine cbmc|smc|auto]
          [--lazysma PATH]
          [--keep DIR] [--stop-after S] [--verbose]
Prints the counts: programs, agree, disagree, vacuous mutants, refused by
reason, unwinding bound, timeouts (and gcc failures, not counted as
programs). Exit code 1 when a disagreement or vacuous mutant was found.
Build lazysma first: cargo build --release. Needs csmith, gcc and cbmc.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LAZYSMA = str(ROOT / "target" / "release" / "lazysma")
HARNESS = ROOT / "tests" / "fixtures" / "csmith"

# Small, single-threaded programs: one function besides main, shallow and
# short blocks, short one-dimensional arrays, simple expressions, no structs
# or unions (their copies and bit-fields make CBMC slow), no volatiles, a
# main without arguments. The same options as tests/corpora/csmith_differential.rs.
CSMITH_OPTIONS = [
    "--no-argc", "--concise", "--no-structs", "--no-unions", "--no-bitfields",
    "--no-packed-struct", "--no-volatiles", "--no-volatile-pointers",
    "--max-funcs", "1", "--max-block-depth", "2", "--max-block-size", "2",
    "--max-array-dim", "1", "--max-array-len-per-dim", "3",
    "--max-expr-complexity", "3",
]

# One thread: one round of the lazy scheduler covers every execution; the
# run under TSO needs no run under SC beside it (the SC run is separate).
LAZYSMA_OPTIONS = ["--rounds", "1", "--no-sc-run"]

GCC_SECONDS = 10


def csmith_include():
    """Csmith's include directory (random_inc.h, safe_math.h)."""
    for candidate in ["/usr/include/csmith", "/usr/local/include/csmith"]:
        if Path(candidate, "random_inc.h").exists():
            return candidate
    sys.exit("csmith's headers (random_inc.h) are missing: apt-get install csmith libcsmith-dev")


def gcc_checksum(program, directory, include):
    """The checksum gcc's build of `program` prints; None if it does not."""
    binary = directory / "native"
    compiled = subprocess.run(
        ["gcc", "-w", "-O0", "-I", str(HARNESS), "-I", include, "-o", str(binary), str(program)],
        capture_output=True, text=True)
    if compiled.returncode != 0:
        return None
    try:
        ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=GCC_SECONDS)
    except subprocess.TimeoutExpired:
        return None
    found = re.search(r"checksum = ([0-9A-Fa-f]+)", ran.stdout)
    return int(found.group(1), 16) if found and ran.returncode == 0 else None


def verify(arguments, program, model, checksum, include):
    """The JSON report of one `lazysma verify` run (a verdict and message)."""
    command = [
        arguments.lazysma, "verify", f"--{model}", "-I", str(HARNESS), "-I", include,
        f"-DEXPECTED_CHECKSUM={checksum:#x}", *LAZYSMA_OPTIONS, "--engine", arguments.engine,
        "--unwind", str(arguments.unwind),
        "--unwinding-assertions", "--timeout", str(arguments.timeout), "--format", "json",
        str(program),
    ]
    try:
        ran = subprocess.run(command, capture_output=True, text=True,
                             timeout=arguments.timeout + 60)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "message": "lazysma did not stop"}
    try:
        report = json.loads(ran.stdout)
    except json.JSONDecodeError:
        return {"verdict": "no-report", "message": ran.stderr.strip()[-300:]}
    return {"verdict": report.get("verdict"), "message": report.get("message") or ""}


def outcome(arguments, seed, include):
    """(category, detail) of one seed."""
    with tempfile.TemporaryDirectory(prefix="csmith-") as name:
        directory = Path(name)
        program = directory / f"csmith_{seed}.c"
        generated = subprocess.run(["csmith", "--seed", str(seed), *CSMITH_OPTIONS,
                                    "-o", str(program)], capture_output=True, text=True,
                                   cwd=directory)
        if generated.returncode != 0:
            return ("gcc failure", "csmith failed")
        checksum = gcc_checksum(program, directory, include)
        if checksum is None:
            return ("gcc failure", "no checksum from gcc")
        category, detail = compare(arguments, program, checksum, include)
        if arguments.keep and category not in ("agree",):
            keep = Path(arguments.keep)
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(program, keep / program.name)
            (keep / f"{program.stem}.checksum").write_text(f"{checksum:#x}\n")
        return (category, detail)


def compare(arguments, program, checksum, include):
    """(category, detail) of a program whose gcc checksum is `checksum`."""
    for model in arguments.models:
        held = verify(arguments, program, model, checksum, include)
        verdict, message = held["verdict"], held["message"]
        if verdict == "bad-input":
            return ("refused", first_line(message))
        if verdict == "timeout":
            return ("timeout", model)
        if verdict == "unwinding-bound":
            return ("unwinding bound", model)
        if verdict != "safe":
            return ("disagree", f"{model}: the true checksum gives {verdict} {first_line(message)}")
        mutant = verify(arguments, program, model, (checksum + 1) % 2**32, include)
        verdict, message = mutant["verdict"], mutant["message"]
        if verdict == "safe":
            return ("vacuous mutant", model)
        if verdict == "timeout":
            return ("timeout", model)
        if verdict != "violation":
            return ("disagree", f"{model}: the mutant gives {verdict} {first_line(message)}")
    return ("agree", "")


def first_line(message):
    return (message or "").strip().splitlines()[0] if (message or "").strip() else ""


def seed_range(text):
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seed_range, default=seed_range("1-200"),
                        help="seed range FIRST-LAST (default 1-200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=int, default=60,
                        help="seconds per lazysma run (default 60)")
    parser.add_argument("--models", type=lambda t: t.split(","), default=["sc", "tso"])
    parser.add_argument("--unwind", type=int, default=8,
                        help="loop unrolling depth, asserted (default 8)")
    parser.add_argument("--stop-after", type=int,
                        help="seconds after which no new seed starts; counts the seeds done")
    parser.add_argument("--engine", choices=["cbmc", "smc", "auto"], default="cbmc",
                        help="verify's engine (default cbmc: the translation and CBMC; "
                             "smc: the native engine's semantics)")
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--keep", help="directory for the programs that do not agree")
    parser.add_argument("--verbose", action="store_true", help="one line per seed")
    arguments = parser.parse_args()
    for tool in ["csmith", "gcc", "cbmc"]:
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not on PATH")
    include = csmith_include()
    counts = collections.Counter()
    details = collections.defaultdict(collections.Counter)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=arguments.jobs) as pool:
        futures = {pool.submit(outcome, arguments, seed, include): seed
                   for seed in arguments.seeds}
        for future in concurrent.futures.as_completed(futures):
            seed = futures[future]
            if future.cancelled():
                continue
            category, detail = future.result()
            counts[category] += 1
            details[category][detail] += 1
            if arguments.verbose or category in ("disagree", "vacuous mutant"):
                print(f"seed {seed}: {category} {detail}".rstrip(), flush=True)
            if arguments.stop_after and time.monotonic() - start > arguments.stop_after:
                for pending in futures:
                    pending.cancel()
    report(counts, details)
    return 1 if counts["disagree"] or counts["vacuous mutant"] else 0


def report(counts, details):
    programs = sum(n for category, n in counts.items() if category != "gcc failure")
    print(f"programs: {programs}")
    for category in ["agree", "disagree", "vacuous mutant", "refused", "unwinding bound",
                     "timeout"]:
        print(f"{category}: {counts[category]}")
        if category in ("refused", "disagree", "timeout", "unwinding bound"):
            for detail, n in details[category].most_common():
                print(f"  {n:5}  {detail}")
    print(f"gcc failure (not counted): {counts['gcc failure']}")


if __name__ == "__main__":
    sys.exit(main())
