#!/usr/bin/env python3
"""Prepares litmus tests that are not in the visible litmus corpus
(litmus/visible/ of the public corpora: $LAZYSMA_CORPUS, else ../shared/) for
scripts/litmus-all.py: converts Nidhugg's C litmus tests to plain accesses
the way the corpus was converted (its litmus/README.md) and gives each
its expected SC/TSO/PSO verdicts from CBMC's own `--mm sc|tso|pso` (the
oracle the corpus README reports in agreement with its explicit-state
explorer on every test it checked).

Usage: scripts/litmus-heldout.py NIDHUGG_C_TESTS OUT_DIR [--only NAMES_FILE]
                                 [--jobs N] [--timeout S]

NIDHUGG_C_TESTS is the directory tests/litmus/C-tests of a Nidhugg checkout
(https://github.com/nidhugg/nidhugg). Tests already in the visible corpus
are skipped. OUT_DIR receives the converted tests and an expected.tsv in the
corpus's format (file, sc, tso, pso); a test on which CBMC gives no verdict
within the time limit is left out. Then:

    scripts/litmus-all.py --corpus OUT_DIR --models tso,pso

runs lazysma on them at the documented litmus bounds.
"""

import argparse
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from corpora import LITMUS, require_corpus, timed

MODELS = ("sc", "tso", "pso")


def convert(text):
    """The plain-access form of one Nidhugg C litmus test (the conversion
    table of the corpus's litmus/README.md; older versions of the suite used
    `volatile int`, which becomes `int` as well)."""
    text = re.sub(r"atomic_store_explicit\(\s*&([^,]+?),\s*([^,]+?),\s*memory_order_\w+\s*\)", r"\1 = \2", text)
    text = re.sub(r"atomic_load_explicit\(\s*&([^,]+?),\s*memory_order_\w+\s*\)", r"(\1)", text)
    text = re.sub(r"atomic_init\(\s*&([^,]+?),\s*([^)]+?)\s*\)", r"\1 = \2", text)
    text = re.sub(r"\batomic_int\b", "int", text)
    text = re.sub(r"\bvolatile\s+int\b", "int", text)
    text = re.sub(r"#include\s*<stdatomic.h>\n", "", text)
    return text


def verdict(path, model, timeout):
    """safe, unsafe or None: `cbmc --mm MODEL` on one test."""
    _, code, _ = timed(["cbmc", str(path), "--mm", model], timeout)
    return {0: "safe", 10: "unsafe"}.get(code)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("nidhugg_c_tests", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--only", type=Path, help="a file naming the tests to take, one per line")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60)
    options = parser.parse_args()

    require_corpus()
    visible = {path.name for path in LITMUS.glob("*.c")}
    names = sorted(path.name for path in options.nidhugg_c_tests.glob("*.c"))
    if options.only:
        wanted = set(options.only.read_text().split())
        names = [name for name in names if name in wanted]
    names = [name for name in names if name not in visible]
    options.out_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        (options.out_dir / name).write_text(convert((options.nidhugg_c_tests / name).read_text()))

    def oracle(name):
        return name, [verdict(options.out_dir / name, model, options.timeout) for model in MODELS]

    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = list(pool.map(oracle, names))
    decided = [(name, verdicts) for name, verdicts in results if None not in verdicts]
    with open(options.out_dir / "expected.tsv", "w") as handle:
        handle.write("file\tsc\ttso\tpso\n")
        for name, verdicts in decided:
            handle.write(name + "\t" + "\t".join(verdicts) + "\n")
    print(f"{len(decided)} of {len(names)} tests decided by cbmc --mm; {options.out_dir / 'expected.tsv'}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
