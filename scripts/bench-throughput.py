#!/usr/bin/env python3
"""Executions and events per second of the native engine against Nidhugg's
on one program, in the same run on the same machine (issue 49's goal:
lazysma's events per second at least Nidhugg's on Nidhugg's
`SV-COMP/dekker.c`, its trace count and time per trace the reference).

Usage: scripts/bench-throughput.py --nidhugg NIDHUGGC [--lazysma PATH]
                                   [--models sc,tso,pso] [--runs N] [FILE]
FILE defaults to the corpus's bench/nidhugg/SV-COMP/dekker.c. For each
model it runs, N times each (default 7), and keeps the least time:
  lazysma verify --engine smc --MODEL FILE            the whole command, default workers
  lazysma verify --engine smc --MODEL --jobs 1 FILE   the native engine on one worker
                                                      (JSON `native.seconds`)
  nidhuggc -- --MODEL FILE                            Nidhugg's own time ("Total
                                                      wall-clock time", without clang)
and prints lazysma's reads-from classes and events beside Nidhugg's trace
count, each side's executions per second, and lazysma's time over
Nidhugg's. Build lazysma first: cargo build --release.
"""

import argparse
import json
import re
import subprocess
import sys
import time

from corpora import BENCH, DEFAULT_LAZYSMA


def lazysma_whole(options, model, file):
    """Wall time of the whole command, default workers."""
    started = time.monotonic()
    subprocess.run([options.lazysma, "verify", "--engine", "smc", f"--{model}", file],
                   capture_output=True, check=False)
    return time.monotonic() - started


def lazysma_search(options, model, file):
    """(seconds, classes, events) of the native engine on one worker:
    its JSON report's `native.seconds` (the class estimate's probes and
    the search)."""
    run = subprocess.run([options.lazysma, "verify", "--engine", "smc", f"--{model}", "--jobs", "1",
                          "--format", "json", file], capture_output=True, text=True, check=False)
    native = json.loads(run.stdout)["native"]
    statistics = native["statistics"]
    return native["seconds"], statistics["reads_from_classes"], statistics["events"]


def nidhugg(options, model, file):
    """(own seconds, trace count) of Nidhugg."""
    run = subprocess.run([options.nidhugg, "--", f"--{model}", file], capture_output=True, text=True,
                         check=False)
    output = run.stdout + run.stderr
    seconds = re.search(r"Total wall-clock time: ([0-9.]+)", output)
    traces = re.search(r"Trace count: ([0-9]+)", output)
    if not seconds or not traces:
        sys.exit(f"error: Nidhugg gave no time and trace count on {file}:\n{output}")
    return float(seconds.group(1)), int(traces.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--nidhugg", required=True, help="Nidhugg's nidhuggc driver")
    parser.add_argument("--models", default="sc,tso,pso")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("file", nargs="?", default=str(BENCH / "nidhugg" / "SV-COMP" / "dekker.c"))
    options = parser.parse_args()
    print("| model | classes / traces | lazysma, default workers | lazysma, 1 worker, engine "
          "| Nidhugg, own time | executions/s: lazysma 1 worker / Nidhugg | 1 worker / Nidhugg "
          "| default workers / Nidhugg |")
    print("|---|---|---|---|---|---|---|---|")
    for model in options.models.split(","):
        # the three commands in turn, so that a change of the machine's
        # load falls on each alike
        runs = [(lazysma_whole(options, model, options.file),
                 lazysma_search(options, model, options.file),
                 nidhugg(options, model, options.file)) for _ in range(options.runs)]
        whole = min(run[0] for run in runs)
        search, classes, events = min(run[1] for run in runs)
        theirs, traces = min(run[2] for run in runs)
        print(f"| {model.upper()} | {classes} / {traces} | {whole:.2f} s | {search:.2f} s "
              f"({events / search:,.0f} events/s) | {theirs:.2f} s "
              f"| {classes / search:,.0f} / {traces / theirs:,.0f} "
              f"| {search / theirs:.2f} | {whole / theirs:.2f} |")


if __name__ == "__main__":
    main()
