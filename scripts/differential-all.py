#!/usr/bin/env python3
"""The end-to-end differential of the shared memory abstractions (FMCAD 2016
Theorems 1-2): runs `lazysma verify` on every litmus test of litmus/visible/
and every benchmark program of bench/ of the public corpora ($LAZYSMA_CORPUS,
else ../shared/) with the timestamped SMA of a model (etso, epso) and with its reference
store buffers (tso_ref, pso_ref), at the same documented bounds, and
compares the two verdicts. The corpus `bench-reduced` runs the benchmark
programs whose reference runs do not fit the limits at their own bounds
again at the smaller bounds of tests/fixtures/differential_reduced_bounds.tsv.

Prints one tab-separated row per program and model (corpus, program, model,
expected, timestamped verdict and seconds, reference verdict and seconds,
outcome) and a summary per corpus and model on standard error. The outcome
is `agree`, `DIFFER` (both answered, differently), or `open` (one of them
gave no verdict: time limit `TO`, or `exit 2` when CBMC failed, for
instance on reaching the memory limit). Exits 1 if any pair differs.

Usage: scripts/differential-all.py [--lazysma PATH] [--corpora litmus,bench,bench-reduced]
                                   [--models tso,pso] [--jobs N]
                                   [--timeout S] [--memory GB] [--only SUBSTRING]
                                   [--skip-done TSV] [--sat-solver NAME]
                                   [--reference-by-formula SOLVER]

--sat-solver NAME is passed to every `lazysma verify` run (e.g. `cadical`,
which proves safe programs far faster). --reference-by-formula SOLVER decides
the reference side without `verify`: CBMC writes the formula of the
reference translation in DIMACS and SOLVER decides it (satisfiable: some
property can fail). The verdict is the same; only the witness is missing,
which the timestamped side's native check covers. It helps where the
reference side's MiniSat run, needed for the witness, is the bottleneck.

--skip-done skips the pairs that have a row in an earlier run's output
(TSV), so that a long run can be continued (drop the `open` rows from that
file to try them again).
Build lazysma first: cargo build --release.
"""

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from corpora import (BENCH, DEFAULT_LAZYSMA, LITMUS, bench_bounds, bench_programs, litmus_bounds,
                     decide_formula, litmus_tests, reduced_bench_bounds, reduced_bounds_of, verify)

TIMESTAMPED = {"tso": "etso", "pso": "epso"}
REFERENCE = {"tso": "tso_ref", "pso": "pso_ref"}


def work_items(corpora, models, only):
    """(corpus, name, file, model, expected, bounds) for every run pair."""
    items = []
    if "litmus" in corpora:
        bounds = litmus_bounds()
        for row in litmus_tests():
            if only in row["file"]:
                for model in models:
                    items.append(("litmus", row["file"], LITMUS / row["file"], model, row[model],
                                  bounds(row["file"], model)))
    if "bench" in corpora:
        bounds = bench_bounds()
        for row in bench_programs():
            if only in row["path"]:
                for model in models:
                    items.append(("bench", row["path"], BENCH / row["path"], model,
                                  row[f"{model}_verdict"] or "?", bounds(row)))
    if "bench-reduced" in corpora:
        reduced = reduced_bench_bounds()
        for row in bench_programs():
            for model in models:
                bounds = reduced_bounds_of(reduced, row["path"], model)
                if only in row["path"] and bounds:
                    # the expected verdicts are for the programs' own bounds
                    items.append(("bench-reduced", row["path"], BENCH / row["path"], model, "?", bounds))
    return items


def done_pairs(path):
    """(corpus, program, model) of the rows of an earlier output."""
    done = set()
    if path:
        with open(path) as handle:
            for line in handle:
                cells = line.rstrip("\n").split("\t")
                if len(cells) == 9 and cells[0] != "corpus":
                    done.add((cells[0], cells[1], cells[2]))
    return done


def outcome(timestamped, reference):
    if timestamped not in ("safe", "unsafe") or reference not in ("safe", "unsafe"):
        return "open"
    return "agree" if timestamped == reference else "DIFFER"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--corpora", default="litmus,bench")
    parser.add_argument("--models", default="tso,pso")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per verify run")
    parser.add_argument("--memory", type=float, default=8.0, help="GB of memory per verify run")
    parser.add_argument("--skip-done", default="", help="earlier output whose pairs are skipped")
    parser.add_argument("--only", default="", help="substring filter on program names")
    parser.add_argument("--sat-solver", default="", help="passed to both verify runs (e.g. cadical)")
    parser.add_argument("--reference-by-formula", default="", metavar="SOLVER",
                        help="decide the reference side by its formula's satisfiability with SOLVER")
    options = parser.parse_args()
    items = work_items(options.corpora.split(","), options.models.split(","), options.only)
    done = done_pairs(options.skip_done)
    items = [item for item in items if (item[0], item[1], item[3]) not in done]

    extra = ["--sat-solver", options.sat_solver] if options.sat_solver else []

    def task(item):
        corpus, name, file, model, expected, bounds = item
        ts_s, ts = verify(options.lazysma, file, model, bounds, options.timeout, TIMESTAMPED[model], options.memory, extra)
        if options.reference_by_formula:
            ref_s, ref = decide_formula(options.lazysma, file, model, bounds, options.timeout, REFERENCE[model],
                                        options.reference_by_formula, options.memory)
        else:
            ref_s, ref = verify(options.lazysma, file, model, bounds, options.timeout, REFERENCE[model],
                                options.memory, extra)
        result = outcome(ts, ref)
        print(f"{corpus}\t{name}\t{model}\t{expected}\t{ts}\t{ts_s:.2f}\t{ref}\t{ref_s:.2f}\t{result}", flush=True)
        return corpus, model, result

    print("corpus\tprogram\tmodel\texpected\ttimestamped\tseconds\treference\tseconds\toutcome", flush=True)
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = list(pool.map(task, items))
    for corpus in options.corpora.split(","):
        for model in options.models.split(","):
            mine = [r for c, m, r in results if c == corpus and m == model]
            if mine:
                print(f"# {corpus} {model}: {len(mine)} programs, {mine.count('agree')} agree, "
                      f"{mine.count('DIFFER')} differ, {mine.count('open')} open (no verdict within the limits)", file=sys.stderr)
    sys.exit(1 if any(r == "DIFFER" for _, _, r in results) else 0)


if __name__ == "__main__":
    main()
