#!/usr/bin/env python3
"""Writes the translation of every visible litmus test (litmus/visible/ of
the public corpora: $LAZYSMA_CORPUS, else ../shared/) and every benchmark
program of their bench/manifest.tsv under SC, TSO and PSO, with their documented
bounds, into one directory: OUT/litmus/<test>.<model>.c and
OUT/bench/<path with / as __>.<model>.c. A translation that fails is
recorded as OUT/.../<name>.<model>.error with its exit code and standard
error, so that a change in what is refused shows too.

Two snapshots taken before and after a refactoring must be equal
(`diff -r BEFORE AFTER`): a refactoring keeps every translation
byte-identical.

Usage: scripts/translation-snapshot.py OUT [--lazysma PATH] [--jobs N]
Build lazysma first: cargo build --release.
"""

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import corpora

MODELS = ("sc", "tso", "pso")


def jobs_of(out):
    """(source, bounds, target without suffix) of every translation."""
    litmus_bounds = corpora.litmus_bounds()
    for row in corpora.litmus_tests():
        source = corpora.LITMUS / row["file"]
        for model in MODELS:
            target = out / "litmus" / f"{Path(row['file']).stem}.{model}"
            yield source, model, litmus_bounds(row["file"], model), target
    bench_bounds = corpora.bench_bounds()
    for row in corpora.bench_programs():
        source = corpora.BENCH / row["path"]
        name = row["path"].replace("/", "__").removesuffix(".c")
        for model in MODELS:
            yield source, model, bench_bounds(row), out / "bench" / f"{name}.{model}"


def translate(lazysma, job):
    """Translates one program; returns its name if the translation failed."""
    source, model, bounds, target = job
    output = target.with_suffix(target.suffix + ".c")
    command = [lazysma, "translate", str(source), f"--{model}", "-o", str(output)] + list(bounds)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        error = target.with_suffix(target.suffix + ".error")
        error.write_text(f"exit {done.returncode}\n{done.stderr}")
        return str(error)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lazysma", default=corpora.DEFAULT_LAZYSMA)
    parser.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args()
    for part in ("litmus", "bench"):
        (arguments.out / part).mkdir(parents=True, exist_ok=True)
    jobs = list(jobs_of(arguments.out))
    with ThreadPoolExecutor(arguments.jobs) as pool:
        failed = [f for f in pool.map(lambda job: translate(arguments.lazysma, job), jobs) if f]
    print(f"{len(jobs)} translations, {len(failed)} refused: see the .error files" if failed
          else f"{len(jobs)} translations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
