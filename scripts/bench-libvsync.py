#!/usr/bin/env python3
"""Runs lazysma's libvsync clients (tests/fixtures/libvsync/, listed in
clients.tsv) on the library's own headers from the public corpora
(libvsync/ under $LAZYSMA_CORPUS, else ../shared/), in libvsync's two
configurations (x86_64: the headers as a user's build includes them;
verification: -D VSYNC_VERIFICATION -D VSYNC_VERIFICATION_QUICK), under
SC, TSO and PSO, each client as written and with its seeded bug, and
prints one row per run: the verdict against the expected one, the time,
the native engine's search and whether a bound cut executions off. Ends
with exit 1 when a verdict is wrong or a run reaches the time budget.

Usage: scripts/bench-libvsync.py [--lazysma PATH] [--budget S]
                                 [--engine smc|auto|cbmc] [--only NAME]
                                 [--configurations x86_64,verification]
                                 [--models sc,tso,pso] [--markdown]
Build lazysma first: cargo build --release.
"""

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

from corpora import CORPUS, DEFAULT_LAZYSMA, ROOT, timed

CLIENTS = ROOT / "tests" / "fixtures" / "libvsync"
LIBVSYNC = CORPUS / "libvsync"
CONFIGURATIONS = {
    "x86_64": [],
    "verification": ["-D", "VSYNC_VERIFICATION", "-D", "VSYNC_VERIFICATION_QUICK"],
}


def clients():
    """(client, seed, models violated with the seed, arguments) of clients.tsv."""
    rows = []
    with open(CLIENTS / "clients.tsv") as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            name, seed, violated, arguments = line.rstrip("\n").split("\t")
            rows.append((name, seed, violated.split(","), arguments.split()))
    return rows


def include_arguments():
    """-I of the library's three header folders."""
    folders = ("include", "vatomic/include", "test/include")
    missing = [folder for folder in folders if not (LIBVSYNC / folder).is_dir()]
    if missing:
        sys.exit(f"error: libvsync's headers are not in {LIBVSYNC} (it lacks {', '.join(missing)}); "
                 "see docs/testing.md, \"The corpora\"")
    return [argument for folder in folders for argument in ("-I", str(LIBVSYNC / folder))]


def run(lazysma, client, arguments, budget):
    """(seconds, exit code or "TO", the JSON report or None) of one run."""
    command = [lazysma, "verify", str(CLIENTS / f"{client}.c"), "--format", "json",
               "--timeout", str(int(budget)), *arguments]
    seconds, code, stdout = timed(command, budget + 30)
    try:
        report = json.loads(stdout) if stdout else None
    except json.JSONDecodeError:
        report = None
    return seconds, code, report


def search_of(report):
    """The native engine's search and whether a bound cut executions off."""
    if not report:
        return "-", False
    statistics = (report.get("native") or {}).get("statistics") or {}
    cut = any(warning.get("cut_off") for warning in report.get("warnings") or [])
    return statistics.get("search", "-"), cut


def commit():
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--budget", type=int, default=10, help="seconds per run (default 10)")
    parser.add_argument("--engine", default="smc")
    parser.add_argument("--only", default="")
    parser.add_argument("--configurations", default="x86_64,verification")
    parser.add_argument("--models", default="sc,tso,pso")
    parser.add_argument("--markdown", action="store_true")
    options = parser.parse_args()
    includes = include_arguments()
    print(f"# {datetime.date.today()} commit {commit()}: {' '.join(sys.argv)}")
    separator = " | " if options.markdown else "\t"
    header = ["client", "configuration", "model", "variant", "expected", "exit", "seconds", "search", "cut off"]
    print(separator.join(header))
    if options.markdown:
        print("|".join(["---"] * len(header)))
    wrong, late, runs = [], [], 0
    for name, seed, violated, arguments in clients():
        if options.only and options.only not in name:
            continue
        for configuration in options.configurations.split(","):
            for model in options.models.split(","):
                for variant in ("correct", seed):
                    expected = 10 if variant == seed and model in violated else 0
                    extra = [*includes, *CONFIGURATIONS[configuration], f"--{model}",
                             "--engine", options.engine, *arguments]
                    if variant == seed:
                        extra += ["-D", seed]
                    seconds, code, report = run(options.lazysma, name, extra, options.budget)
                    search, cut = search_of(report)
                    runs += 1
                    if code in ("TO", 3) or seconds > options.budget:
                        late.append((name, configuration, model, variant))
                    elif code != expected:
                        wrong.append((name, configuration, model, variant, code))
                    row = [name, configuration, model, variant, str(expected), str(code), f"{seconds:.2f}",
                           search, "yes" if cut else "no"]
                    print(separator.join(row), flush=True)
    print(f"{runs} runs: {len(wrong)} wrong or unanswered, {len(late)} at the budget of {options.budget:g} s")
    for entry in wrong:
        print("wrong:", *entry)
    for entry in late:
        print("at the budget:", *entry)
    return 1 if wrong or late else 0


if __name__ == "__main__":
    sys.exit(main())
