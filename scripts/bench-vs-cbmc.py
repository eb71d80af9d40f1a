#!/usr/bin/env python3
"""Times `lazysma verify` end to end against CBMC's own weak-memory
instrumentation (`cbmc --mm tso|pso`) on the benchmark corpus, in the same
run on the same machine, and prints one row per program and model with the
times and verdicts of `lazysma verify --engine cbmc`, `--engine smc` (the
native engine), `--engine auto` (both side by side) and `cbmc --mm`, and the
ratios of each lazysma engine's time to cbmc's.

Usage: scripts/bench-vs-cbmc.py [--lazysma PATH] [--cbmc PATH] [--timeout S]
                                [--models tso,pso] [--markdown] [--sat-solver NAME]
                                [--only SUBSTRING] [--examples]
                                [--engines cbmc,smc,auto] [--no-mm]
                                [--baseline PATH] [--nidhugg PATH]
--nidhugg runs Nidhugg too, where it is installed (PATH is its `nidhuggc`
driver, which compiles the C file with clang): `nidhuggc -- --MODEL
--unroll=U FILE`, with lazysma's loop bound U (a loop body runs at most U
times on both sides), and prints each engine's time over Nidhugg's, their
geometric mean over the runs both decide, the runs more than 2 times plus
0.05 s slower than Nidhugg, and Nidhugg's trace count (the `traces`
column) beside lazysma's reads-from classes (`classes`, from `--engine
smc`'s JSON report).
--baseline runs a second lazysma build (an older commit's) with the same
engines and arguments in the same run, and prints for each engine the
geometric mean of this build's time over the baseline's, where both gave
the same verdict (a change's cost measured on one loaded machine at one time);
--no-mm leaves cbmc --mm out. lazysma runs with --no-div-by-zero-check and
--no-deadlock-check, to check what the peers check (SAME_PROPERTIES).
Reads bench/ (manifest.tsv, paper_table1.tsv) of the public corpora
($LAZYSMA_CORPUS, else ../shared/); --examples runs
examples/ too (expected verdicts from tests/fixtures/smc_examples.tsv).
Build lazysma first: cargo build --release.
"""

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from corpora import BENCH, DEFAULT_LAZYSMA, bench_bounds, bench_programs, timed, verdict_of

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("cbmc", "smc", "auto")
# lazysma's options that check what the peers check: no division by zero
# (CBMC checks it only with --div-by-zero-check), no deadlock and no wait
# that never ends (neither CBMC nor Nidhugg reports one)
SAME_PROPERTIES = ["--no-div-by-zero-check", "--no-deadlock-check"]


def example_programs():
    """Rows for examples/ in the manifest's shape: path (absolute), the
    verdicts of tests/fixtures/smc_examples.tsv (declined ones as `?`)."""
    rows = []
    with open(ROOT / "tests" / "fixtures" / "smc_examples.tsv") as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            name, *verdicts = line.rstrip("\n").split("\t")
            row = {"path": str(ROOT / "examples" / name), "min_unwind": "2"}
            for model, verdict in zip(("sc", "tso", "pso"), verdicts):
                row[f"{model}_verdict"] = verdict if verdict in ("safe", "unsafe") else "?"
            rows.append(row)
    return rows


def unwind_of(arguments):
    return int(arguments[arguments.index("--unwind") + 1]) if "--unwind" in arguments else 2


def cbmc_depth(depth):
    """CBMC's unwinding depth that lets a loop run as often as lazysma's
    `depth` does. lazysma's depth N runs the body up to N times and then
    leaves the loop; CBMC's `--unwind N` cuts the path at the N-th jump
    back to the loop's head, so a loop that leaves after N iterations
    (which takes that jump once more, to test its condition) needs N + 1."""
    return str(int(depth) + 1)


def cbmc_unwinding(cbmc, file, arguments):
    """CBMC's unwinding options for lazysma's bounds: `--unwind U + 1`, and
    for `--unwindset [HEADER:]LINE:N,...` CBMC's `--unwindset` with the ids
    of the loops that start on those lines of the file (or of a file whose
    path ends with HEADER), from `cbmc --show-loops`, each at N + 1 (see
    `cbmc_depth`)."""
    options = ["--unwind", cbmc_depth(unwind_of(arguments))]
    if "--unwindset" not in arguments:
        return options
    depths = {}
    for entry in arguments[arguments.index("--unwindset") + 1].split(","):
        *header, line, depth = entry.split(":")
        depths[(":".join(header) or None, line)] = depth
    listing = subprocess.run([cbmc, file, "--show-loops"], capture_output=True, text=True).stdout
    ids = []
    loop_id = None
    for line in listing.splitlines():
        if line.startswith("Loop ") and line.endswith(":"):
            loop_id = line[len("Loop "):-1]
        elif loop_id and " line " in line and line.strip().startswith("file "):
            loop_file, source_line = line.strip()[len("file "):].split(" line ")[0], line.split(" line ")[1].split()[0]
            for (header, named_line), depth in depths.items():
                named_file = Path(loop_file).parts[-len(Path(header).parts):] == Path(header).parts if header else loop_file == str(file)
                if named_line == source_line and named_file:
                    ids.append(f"{loop_id}:{cbmc_depth(depth)}")
            loop_id = None
    return options + (["--unwindset", ",".join(ids)] if ids else [])


def cbmc_verdict(code, stdout):
    if code == "TO":
        return "TO"
    if "VERIFICATION FAILED" in stdout:
        return "unsafe"
    if "VERIFICATION SUCCESSFUL" in stdout:
        return "safe"
    return "ERR"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--cbmc", default="cbmc")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--models", default="tso,pso")
    parser.add_argument("--only", default="", help="substring filter on program paths")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--sat-solver", default="", help="passed to lazysma verify (e.g. cadical)")
    parser.add_argument("--examples", action="store_true", help="run examples/ too")
    parser.add_argument("--engines", default=",".join(ENGINES), help="lazysma's engines to run")
    parser.add_argument("--no-mm", action="store_true", help="do not run cbmc --mm")
    parser.add_argument("--baseline", default="", help="another lazysma build to compare with")
    parser.add_argument("--nidhugg", default="", help="Nidhugg's nidhuggc driver, to run Nidhugg too")
    options = parser.parse_args()
    engines = tuple(engine for engine in options.engines.split(",") if engine)

    bounds = bench_bounds()
    rows = bench_programs()
    cbmc_version = subprocess.run([options.cbmc, "--version"], capture_output=True, text=True).stdout.strip()
    solver = f", lazysma --sat-solver {options.sat_solver}" if options.sat_solver else ""
    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')}, CBMC {cbmc_version}, timeout {options.timeout} s{solver}", file=sys.stderr)
    header = ["program", "model", "expected"]
    for engine in engines:
        header += [engine, f"{engine}_s"]
        if options.baseline:
            header += [f"{engine}_before", f"{engine}_before_s"]
    if not options.no_mm:
        header += ["cbmc_mm", "cbmc_mm_s"] + [f"{engine}/mm" for engine in engines]
    if options.nidhugg:
        header += ["classes", "nidhugg", "nidhugg_s", "traces"] + [f"{engine}/nidhugg" for engine in engines]
    if options.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("\t".join(header))
    ratios = {engine: [] for engine in engines}
    times = {engine: [] for engine in engines + ("mm",)}
    changes = {engine: [] for engine in engines}
    against_nidhugg = {engine: [] for engine in engines}
    slower_than_nidhugg = {engine: [] for engine in engines}
    disagreeing = {engine: [] for engine in engines}
    programs = (example_programs() if options.examples else []) + bench_programs()
    for row in programs:
        path = row["path"]
        if options.only and options.only not in path:
            continue
        arguments = bounds(row) if not Path(path).is_absolute() else ["--unwind", "2"]
        for model in options.models.split(","):
            expected = row[f"{model}_verdict"]
            file = str(BENCH / path)
            solver = ["--sat-solver", options.sat_solver] if options.sat_solver else []
            cells = [Path(path).name if Path(path).is_absolute() else path, model, expected]
            seconds = {}
            verdicts = {}
            for engine in engines:
                # the same properties on both sides: CBMC checks divisions by
                # zero only with --div-by-zero-check, and neither CBMC nor
                # Nidhugg reports a deadlock or a wait that never ends
                def run(lazysma):
                    return timed([lazysma, "verify", file, f"--{model}", "--engine", engine]
                                 + SAME_PROPERTIES + ["--timeout", str(options.timeout)]
                                 + arguments + solver, options.timeout + 10)
                lazy_s, lazy_code, _ = run(options.lazysma)
                seconds[engine] = lazy_s
                verdicts[engine] = verdict_of(lazy_code)
                cells += [verdict_of(lazy_code), f"{lazy_s:.2f}"]
                if options.baseline:
                    before_s, before_code, _ = run(options.baseline)
                    cells += [verdict_of(before_code), f"{before_s:.2f}"]
                    # a speed is compared where both builds give one verdict
                    same = verdict_of(lazy_code) == verdict_of(before_code)
                    if same and verdict_of(lazy_code) in ("safe", "unsafe") and before_s > 0:
                        changes[engine].append(lazy_s / before_s)
                times[engine].append(lazy_s)
            if not options.no_mm:
                cells += cbmc_mm_cells(options, file, model, arguments, seconds, engines, ratios, times)
            if options.nidhugg:
                cells += nidhugg_cells(options, file, model, arguments, seconds, engines,
                                       (against_nidhugg, slower_than_nidhugg, disagreeing), verdicts)
            print_row(cells, options.markdown)
    for engine in engines:
        if ratios[engine]:
            print(f"# {engine}: geometric mean of lazysma/cbmc --mm time where CBMC answered "
                  f"{geometric_mean(ratios[engine]):.2f} over {len(ratios[engine])} runs; "
                  f"median {median(times[engine]):.2f} s (cbmc --mm {median(times['mm']):.2f} s)", file=sys.stderr)
        if changes[engine]:
            print(f"# {engine}: geometric mean of this build's time over the baseline's where both gave one verdict "
                  f"{geometric_mean(changes[engine]):.2f} over {len(changes[engine])} runs", file=sys.stderr)
        if against_nidhugg[engine]:
            slower = slower_than_nidhugg[engine]
            print(f"# {engine}: geometric mean of lazysma/Nidhugg time where both decided "
                  f"{geometric_mean(against_nidhugg[engine]):.2f} over {len(against_nidhugg[engine])} runs; "
                  f"{len(slower)} runs more than 2 times plus 0.05 s slower"
                  + (f": {', '.join(slower)}" if slower else ""), file=sys.stderr)
        if disagreeing[engine]:
            print(f"# {engine}: verdicts other than Nidhugg's: {', '.join(disagreeing[engine])}", file=sys.stderr)


def cbmc_mm_cells(options, file, model, arguments, seconds, engines, ratios, times):
    """The cells of `cbmc --mm MODEL` on `file`, and each engine's ratio to it."""
    cbmc_s, cbmc_code, cbmc_out = timed([options.cbmc, file, "--mm", model]
                                        + cbmc_unwinding(options.cbmc, file, arguments)
                                        + ["--error-label", "ERROR"], options.timeout)
    cbmc_result = cbmc_verdict(cbmc_code, cbmc_out)
    cells = [cbmc_result, f"{cbmc_s:.2f}"]
    for engine in engines:
        ratio = seconds[engine] / cbmc_s if cbmc_s > 0 else float("nan")
        if cbmc_result in ("safe", "unsafe"):
            ratios[engine].append(ratio)
        # A ratio means something only where CBMC answered or ran out of time.
        cells.append(f"{ratio:.2f}" if cbmc_result in ("safe", "unsafe", "TO") else "-")
    times["mm"].append(cbmc_s)
    return cells


def nidhugg_verdict(code, stdout):
    """Nidhugg's verdict: `unsafe` for an assertion violation only; an error
    of another kind (a mutex used uninitialised, a pthreads call it does
    not model) is `ERR`, a row no ratio counts."""
    if code == "TO":
        return "TO"
    if "Error detected" in stdout:
        return "unsafe" if "Assertion violation" in stdout else "ERR"
    if "No errors were detected" in stdout:
        return "safe"
    return "ERR"


def smc_classes(options, file, model, arguments):
    """The reads-from classes of `lazysma verify --engine smc` (its JSON
    report), or `-` when it gave none."""
    command = [options.lazysma, "verify", file, f"--{model}", "--engine", "smc", "--format", "json",
               "--timeout", str(options.timeout)] + SAME_PROPERTIES + arguments
    _, _, stdout = timed(command, options.timeout + 10)
    try:
        statistics = json.loads(stdout)["native"]["statistics"]
        return str(statistics["reads_from_classes"])
    except (ValueError, KeyError, TypeError):
        return "-"


def nidhugg_cells(options, file, model, arguments, seconds, engines, tallies, verdicts):
    """The cells of Nidhugg on `file` under `model` (its verdict, time and
    trace count) and each engine's time over Nidhugg's; tallies the ratios
    where both decided, and the runs more than 2 times plus 0.05 s
    slower."""
    against, slower, disagree = tallies
    classes = smc_classes(options, file, model, arguments) if "smc" in engines else "-"
    nidhugg_s, code, stdout = timed([options.nidhugg, "--", f"--{model}",
                                     f"--unroll={unwind_of(arguments)}", file], options.timeout)
    result = nidhugg_verdict(code, stdout)
    traces = next((line.split(":")[1].strip() for line in stdout.splitlines()
                   if line.startswith("Trace count:")), "-")
    out = [classes, result, f"{nidhugg_s:.2f}", traces]
    for engine in engines:
        lazy_s = seconds[engine]
        out.append(f"{lazy_s / nidhugg_s:.2f}" if nidhugg_s > 0 else "-")
        decided = result in ("safe", "unsafe") and verdicts[engine] in ("safe", "unsafe")
        if decided and nidhugg_s > 0:
            against[engine].append(lazy_s / nidhugg_s)
            if lazy_s > 2 * nidhugg_s + 0.05:
                slower[engine].append(f"{Path(file).name} {model}")
            if verdicts[engine] != result:
                disagree[engine].append(f"{Path(file).name} {model}")
    return out


def print_row(cells, markdown):
    if markdown:
        print("| " + " | ".join(cells) + " |", flush=True)
    else:
        print("\t".join(cells), flush=True)


def geometric_mean(values):
    return math.exp(sum(math.log(value) for value in values) / len(values))


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return (ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2) if ordered else float("nan")


if __name__ == "__main__":
    main()
