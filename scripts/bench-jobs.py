#!/usr/bin/env python3
"""Times the native engine's search with one worker thread and with more
(`verify --engine smc --jobs N`) on the slow native runs of the benchmark
corpus (nidhugg's SV-COMP mutual exclusion programs under SC, whose whole
reads-from tree is searched) and on the project's harness of 176,832
classes (benches/harnesses/many_classes.c), checks that every run gives the same
verdict and, when safe, the same number of reads-from classes, and prints
one row per program: classes, the time of each worker count, and the
time of each as a fraction of one worker's. Besides the wall time, the
CPU time the run took (user + system, children included) shows whether
the machine had the processors to give: on a loaded machine the wall
time says little. Exit 1 when a verdict or a count differs.

Usage: scripts/bench-jobs.py [--lazysma PATH] [--jobs 1,2] [--budget S]
                             [--only NAME] [--model sc|tso|pso] [--markdown]
Build lazysma first: cargo build --release.
"""

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time

from corpora import CORPUS, DEFAULT_LAZYSMA, ROOT

PROGRAMS = [
    CORPUS / "bench" / "nidhugg/SV-COMP/dekker.c",
    CORPUS / "bench" / "nidhugg/SV-COMP/lamport.c",
    CORPUS / "bench" / "nidhugg/SV-COMP/szymanski.c",
    # the project's own, of 176,832 classes (with --unwind 2)
    ROOT / "benches/harnesses/many_classes.c",
]

# Options a program needs beyond the model.
OPTIONS = {"many_classes.c": ["--unwind", "2"]}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(lazysma, program, model, jobs, budget):
    """(wall seconds, CPU seconds, verdict, classes) of one run."""
    command = [lazysma, "verify", str(program), f"--{model}", "--engine", "smc",
               "--format", "json", "--jobs", str(jobs), "--timeout", str(budget)]
    command += OPTIONS.get(program.name, [])
    cpu = children_cpu()
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    cpu = children_cpu() - cpu
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return wall, cpu, f"exit {done.returncode}", None
    statistics = (report.get("native") or {}).get("statistics") or {}
    return wall, cpu, report["verdict"], statistics.get("reads_from_classes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--budget", type=int, default=600)
    parser.add_argument("--only")
    parser.add_argument("--model", default="sc")
    parser.add_argument("--markdown", action="store_true")
    arguments = parser.parse_args()
    counts = [int(jobs) for jobs in arguments.jobs.split(",")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print(f"# {datetime.date.today()} commit {commit}, {os.cpu_count()} processors, "
          f"load {os.getloadavg()[0]:.1f}: scripts/bench-jobs.py --jobs {arguments.jobs} "
          f"--model {arguments.model}")
    header = ["program", "verdict", "classes"]
    for jobs in counts:
        header += [f"wall {jobs}", f"cpu {jobs}"]
    header += [f"wall {jobs}/1" for jobs in counts[1:]]
    print(("| " + " | ".join(header) + " |") if arguments.markdown else "\t".join(header))
    if arguments.markdown:
        print("|" + "---|" * len(header))
    failed = False
    for program in PROGRAMS:
        name = program.name
        if arguments.only and arguments.only not in str(program):
            continue
        runs = [run(arguments.lazysma, program, arguments.model, jobs,
                    arguments.budget) for jobs in counts]
        verdicts = {verdict for _, _, verdict, _ in runs}
        classes = {found for _, _, verdict, found in runs if verdict == "safe"}
        if len(verdicts) > 1 or len(classes) > 1:
            failed = True
        row = [name, "/".join(sorted(verdicts)), "/".join(str(c) for c in sorted(classes)) or "-"]
        for wall, cpu, _, _ in runs:
            row += [f"{wall:.2f}", f"{cpu:.2f}"]
        row += [f"{wall / runs[0][0]:.2f}" for wall, _, _, _ in runs[1:]]
        print(("| " + " | ".join(row) + " |") if arguments.markdown else "\t".join(row))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
