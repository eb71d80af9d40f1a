#!/usr/bin/env python3
"""Runs lazysma on a held-out corpus of real concurrent code kept outside
the repository: GenMC's data-structure tests (the first variant of each,
`tests/correct/data-structures/*/variants/*0.c`, with the `-D` and `-I`
arguments of its `args.rc11.wb.in`, else of another `args.*.in`) and its
wrong programs (`tests/wrong/safety/*/variants/*.c`).

Usage: scripts/genmc-heldout.py GENMC_CHECKOUT [--lazysma PATH]
                                [--model tso] [--engine cbmc]
                                [--timeout S] [--jobs N]

GENMC_CHECKOUT is a checkout of https://github.com/MPI-SWS/genmc (the
documented runs used its release v0.11.0). Prints one row per program
(outcome, seconds, the first line lazysma printed) and a summary in the
columns of docs/real-code.md's held-out table: refused (exit 1), stopped at
the time limit (exit 3), safe (exit 0), unsafe (exit 10). A correct
program has no assertion failure under RC11 and so none under TSO (the x86
mapping of C11 is sound): an unsafe verdict on one is a false alarm, which
the summary counts apart and the exit code (1) reports.
"""

import argparse
import re
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from corpora import DEFAULT_LAZYSMA, timed

OUTCOMES = {0: "safe", 10: "unsafe", 1: "refused", 3: "time limit", "TO": "time limit"}
ARGUMENT_FILES = ("args.rc11.wb.in", "args.rc11.mo.in", "args.imm.wb.in", "args.sc.mo.in")


def compiler_arguments(folder, checkout):
    """The -D and -I arguments of a test folder's argument file (the part
    after `|`), with GenMC's build-relative `../tests/` made absolute."""
    for name in ARGUMENT_FILES:
        path = folder / name
        if path.is_file():
            text = path.read_text().split("|", 1)[-1]
            words = shlex.split(text.replace("../tests/", f"{checkout}/tests/"))
            return [word for word in words if word.startswith(("-D", "-I"))]
    return []


def programs(checkout):
    """(name, file, arguments, expected) of every held-out program, where
    expected is "safe" for a correct program and None where TSO may or may
    not show the failure RC11 shows."""
    found = []
    for folder in sorted((checkout / "tests" / "correct" / "data-structures").iterdir()):
        variants = sorted((folder / "variants").glob("*0.c"))
        if variants:
            found.append((folder.name, variants[0], compiler_arguments(folder, checkout), "safe"))
    for folder in sorted((checkout / "tests" / "wrong" / "safety").iterdir()):
        for variant in sorted((folder / "variants").glob("*.c")):
            found.append((variant.stem, variant, compiler_arguments(folder, checkout), None))
    return found


def run(lazysma, model, engine, timeout, program):
    """(name, expected, outcome, seconds, first line) of one verify run."""
    name, file, arguments, expected = program
    command = [lazysma, "verify", "--engine", engine, f"--{model}", "--timeout", str(timeout), *arguments, str(file)]
    seconds, code, stdout = timed(command, timeout * 3 + 60)
    first = next((line for line in stdout.splitlines() if line.strip()), "")
    return name, expected, OUTCOMES.get(code, f"exit {code}"), seconds, re.sub(r"\s+", " ", first)[:110]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--model", default="tso", choices=("sc", "tso", "pso"))
    parser.add_argument("--engine", default="cbmc", choices=("auto", "cbmc", "smc"))
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--jobs", type=int, default=1)
    options = parser.parse_args()
    checkout = options.checkout.resolve()
    if not (checkout / "tests" / "correct" / "data-structures").is_dir():
        sys.exit(f"error: {checkout} is not a GenMC checkout (it has no tests/correct/data-structures/)")
    work = programs(checkout)
    counts, false_alarms = {}, []
    with ThreadPoolExecutor(options.jobs) as pool:
        for name, expected, outcome, seconds, first in pool.map(
                lambda program: run(options.lazysma, options.model, options.engine, options.timeout, program), work):
            print(f"{name:28} {outcome:11} {seconds:7.1f} s  {first}", flush=True)
            counts[outcome] = counts.get(outcome, 0) + 1
            if expected == "safe" and outcome == "unsafe":
                false_alarms.append(name)
    print("\n" + ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items())) +
          f"; {len(work)} programs; false alarms: {', '.join(false_alarms) or 'none'}")
    return 1 if false_alarms else 0


if __name__ == "__main__":
    sys.exit(main())
