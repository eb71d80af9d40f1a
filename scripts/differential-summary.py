#!/usr/bin/env python3
"""Summarises the rows of scripts/differential-all.py (for instance
results/differential.tsv) as the table of docs/benchmarks.md: per corpus and model, the
pairs run out of the corpus, how many agree, differ or are open, and the
open programs. A pair run more than once counts with its last row (the file
is in run order); a pair its corpus no longer has (a program the reduced
tier dropped) does not count. Exits 1 if a pair differs.

Usage: scripts/differential-summary.py TSV [TSV...]
"""

import sys

from corpora import bench_programs, litmus_tests, reduced_bench_bounds


CORPORA = ("litmus", "bench", "bench-reduced")


def last_rows(paths):
    """{(corpus, program, model): cells} of the last row of every pair."""
    rows = {}
    for path in paths:
        with open(path) as handle:
            for line in handle:
                cells = line.rstrip("\n").split("\t")
                if len(cells) == 9 and cells[0] in CORPORA:
                    rows[(cells[0], cells[1], cells[2])] = cells
    return rows


def short_name(program):
    return program.rsplit("/", 1)[-1].removesuffix(".c")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    members = {"litmus": {test["file"] for test in litmus_tests()},
               "bench": {row["path"] for row in bench_programs()},
               "bench-reduced": {key.split("@")[0] for key in reduced_bench_bounds()}}
    rows = {key: cells for key, cells in last_rows(sys.argv[1:]).items()
            if key[1] in members[key[0]]}
    sizes = {corpus: len(programs) for corpus, programs in members.items()}
    print("| corpus | model | pairs run | agree | differ | open |")
    print("|---|---|---|---|---|---|")
    differ = False
    for corpus in CORPORA:
        for model in ("tso", "pso"):
            mine = [cells for (c, _, m), cells in rows.items() if c == corpus and m == model]
            if not mine and corpus == "bench-reduced":
                continue
            outcomes = [cells[8] for cells in mine]
            open_names = sorted(short_name(cells[1]) for cells in mine if cells[8] == "open")
            differ |= "DIFFER" in outcomes
            listed = f" ({', '.join(f'`{name}`' for name in open_names)})" if open_names else ""
            print(f"| {corpus} | {model.upper()} | {len(mine)} of {sizes[corpus]} | {outcomes.count('agree')} | "
                  f"{outcomes.count('DIFFER')} | {len(open_names)}{listed} |")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
