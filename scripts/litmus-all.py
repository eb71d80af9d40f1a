#!/usr/bin/env python3
"""Runs `lazysma verify` on every litmus test of the visible litmus corpus
(litmus/visible/ of the public corpora: $LAZYSMA_CORPUS, else ../shared/)
under the chosen memory models and compares each exit code with the expected
verdict of expected.tsv (0 = safe, 10 = unsafe). Prints one tab-separated row
per test and model (name, model, expected, got, seconds) and a summary per
model; exits 1 if any test disagrees.

Usage: scripts/litmus-all.py [--lazysma PATH] [--models sc,tso,pso]
                             [--jobs N] [--timeout S] [--only SUBSTRING]
                             [--sma tso_ref|pso_ref] [--bounds "..."]
                             [--max-threads N] [--corpus DIR]

With --sma, the tests run under that implementation of the model instead
of the default one (eTSO/ePSO): `--models tso --sma tso_ref` checks the
reference store buffers against the same expected verdicts, which the
timestamped SMAs meet, so agreement there is agreement of the two
implementations (FMCAD 2016 Theorems 1-2). --bounds replaces the default
bounds; --max-threads keeps the tests with at most N pthread_create calls.
--corpus runs another directory of litmus tests with its own expected.tsv
(such as the tests of Nidhugg's suite that are not in the visible corpus,
prepared by scripts/litmus-heldout.py).
Build lazysma first: cargo build --release.
"""

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from corpora import DEFAULT_LAZYSMA, LITMUS, litmus_bounds, litmus_tests, verify


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--models", default="sc,tso,pso")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--only", default="", help="substring filter on test names")
    parser.add_argument("--sma", default="", help="implementation of the model (e.g. tso_ref)")
    parser.add_argument("--bounds", default="", help="bounds instead of the documented ones")
    parser.add_argument("--corpus", type=Path, default=LITMUS,
                        help="a directory of litmus tests with an expected.tsv (scripts/litmus-heldout.py)")
    parser.add_argument("--max-threads", type=int, default=0, help="only tests with at most N threads")
    options = parser.parse_args()
    fixed_bounds = options.bounds.split()
    bounds = litmus_bounds()

    rows = [row for row in litmus_tests(options.corpus) if options.only in row["file"]]
    if options.max_threads:
        rows = [row for row in rows if (options.corpus / row["file"]).read_text().count("pthread_create(") <= options.max_threads]
    work = [(row["file"], model, row[model]) for model in options.models.split(",") for row in rows]

    def task(item):
        name, model, expected = item
        seconds, got = verify(options.lazysma, options.corpus / name, model, fixed_bounds or bounds(name, model),
                              options.timeout, options.sma)
        print(f"{name}\t{model}\t{expected}\t{got}\t{seconds:.2f}", flush=True)
        return model, expected == got, seconds

    print("test\tmodel\texpected\tgot\tseconds", flush=True)
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = list(pool.map(task, work))
    disagreements = 0
    for model in options.models.split(","):
        mine = [(agrees, seconds) for m, agrees, seconds in results if m == model]
        wrong = sum(1 for agrees, _ in mine if not agrees)
        slowest = max((seconds for _, seconds in mine), default=0.0)
        total = sum(seconds for _, seconds in mine)
        print(f"# {model}: {len(mine)} tests, {wrong} disagree, {total:.0f} s in all, slowest {slowest:.1f} s",
              file=sys.stderr)
        disagreements += wrong
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
