#!/usr/bin/env python3
"""Writes the project's own litmus tests, generated from relaxation cycles
in the style of herdtools' diy, with their expected SC/TSO/PSO verdicts,
into tests/fixtures/cycles/ (one C program per cycle and expected.tsv in
the public litmus corpus's format: file, sc, tso, pso).

A cycle is a ring of edges between memory accesses. Communication edges
join accesses of different threads to one location: Rfe (a write, then a
read that reads from it), Fre (a read, then a write coherence-after the
write it reads) and Wse (a write, then a write coherence-after it).
Program-order edges join two accesses of one thread to different
locations: PodXY (an access X, then an access Y, with X and Y each W or R),
MFencedXY (with a full fence, `__sync_synchronize()`, between them) and
SFencedXY (with a store-store fence, `__atomic_thread_fence(__ATOMIC_RELEASE)`).
Every thread holds the one or two accesses the ring gives it and every
location the accesses of one run of communication edges, each access in
its own thread. The program asserts that the outcome the ring describes
(the value each read sees, the last write of each location) does not
happen: it is "unsafe" exactly when a model allows the ring.

The oracle is the cycle itself, written from the axiomatic models and
sharing nothing with lazysma: the ring is a cycle of program order and
external communication, which every model keeps (x86-TSO's and SPARC PSO's
communication is global), so a model allows it exactly when one of its
program-order edges is one the model relaxes. SC relaxes none; TSO relaxes
a write followed by a read (PodWR, SFencedWR); PSO relaxes that and a write
followed by a write (PodWW). In a ring of this shape no other edge joins
the accesses before and after a relaxed edge (the communication of one
location only runs forward along its run), so one relaxed edge suffices.

Usage: scripts/litmus-cycles.py [--out DIR] [--max-edges N]
Without --out the tests go to tests/fixtures/cycles/ (which the tests
read: rerun this after changing it, and commit the result).
"""

import argparse
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMUNICATION = {"Rfe": ("W", "R"), "Fre": ("R", "W"), "Wse": ("W", "W")}
FENCES = {"Pod": None, "MFenced": "__sync_synchronize();",
          "SFenced": "__atomic_thread_fence(__ATOMIC_RELEASE);"}
PROGRAM_ORDER = {f"{fence}{first}{second}": (first, second)
                 for fence in FENCES for first in "WR" for second in "WR"
                 # a fence between a read and a later access orders nothing
                 # that TSO or PSO would not keep anyway
                 if fence == "Pod" or first == "W"}
EDGES = {**COMMUNICATION, **PROGRAM_ORDER}


def relaxed(edge, model):
    """Whether `model` may reorder the two accesses of a program-order edge."""
    if edge in COMMUNICATION or edge.startswith("MFenced") or model == "sc":
        return False
    pair = PROGRAM_ORDER[edge]
    if pair == ("W", "R"):
        return True
    return model == "pso" and pair == ("W", "W") and edge.startswith("Pod")


def verdict(cycle, model):
    """The oracle: "unsafe" (the outcome can happen) exactly when the model
    relaxes one of the ring's program-order edges."""
    return "unsafe" if any(relaxed(edge, model) for edge in cycle) else "safe"


def well_formed(cycle):
    """Accesses match at every joint; program order and communication
    alternate so that each thread has at most two accesses and each
    location at least two; at least two threads and two locations; runs of
    communication at most two edges long."""
    for edge, following in zip(cycle, cycle[1:] + cycle[:1]):
        if EDGES[edge][1] != EDGES[following][0]:
            return False
        if edge in PROGRAM_ORDER and following in PROGRAM_ORDER:
            return False
    program_order = sum(edge in PROGRAM_ORDER for edge in cycle)
    if program_order < 2 or len(cycle) - program_order < 2:
        return False
    doubled = cycle + cycle
    return not any(all(edge in COMMUNICATION for edge in doubled[start:start + 3])
                   for start in range(len(cycle)))


def canonical(cycle):
    """The least rotation: one name per ring."""
    return min(tuple(cycle[start:] + cycle[:start]) for start in range(len(cycle)))


def cycles(max_edges):
    """Every well-formed ring of 4 to `max_edges` edges, once."""
    found = set()
    for length in range(4, max_edges + 1):
        for cycle in itertools.product(sorted(EDGES), repeat=length):
            if well_formed(list(cycle)):
                found.add(canonical(list(cycle)))
    return sorted(found, key=lambda cycle: (len(cycle), cycle))


def events(cycle):
    """The accesses of the ring, starting after a program-order edge: a list
    of (kind, thread, location, edge into it). Locations are numbered from 0
    in ring order; threads too, except that the last run of accesses is the
    thread of the first (the ring closes with program order), thread 0."""
    start = next(index for index, edge in enumerate(cycle) if edge in PROGRAM_ORDER) + 1
    ring = list(cycle[start:] + cycle[:start])
    accesses = []
    thread, location = 0, 0
    entering = ring[-1]
    for edge in ring:
        if accesses and entering in COMMUNICATION:
            thread += 1
        if accesses and entering in PROGRAM_ORDER:
            location += 1
        accesses.append([EDGES[edge][0], thread, location, entering])
        entering = edge
    last = accesses[-1][1]
    for access in accesses:
        if access[1] == last:
            access[1] = 0
    return [tuple(access) for access in accesses]


def statements(accesses):
    """{access index: its C statements (with the fence of the edge into it)},
    the outcome's conditions and the flags the reads set."""
    written = {}
    value = {}
    code = {}
    condition = []
    for index, (kind, _, location, entering) in enumerate(accesses):
        fence = FENCES[entering[:-2]] if entering in PROGRAM_ORDER else None
        code[index] = [f"  {fence}"] if fence else []
        if kind == "W":
            value[index] = len(written.setdefault(location, [])) + 1
            written[location].append(value[index])
            code[index].append(f"  x{location} = {value[index]};")
        else:
            # a read entered by Rfe reads the write before it; one entered
            # by program order starts its location's run: the initial 0
            seen = value[index - 1] if entering == "Rfe" else 0
            code[index] += [f"  int r{index} = x{location};", f"  saw{index} = r{index} == {seen};"]
            condition.append(f"saw{index}")
    for location, values in sorted(written.items()):
        if len(values) > 1:
            condition.append(f"x{location} == {values[-1]}")
    return code, condition


def program(cycle):
    """The C program of one ring: one function per thread, main creates and
    joins them and asserts that the ring's outcome does not happen."""
    accesses = events(cycle)
    code, condition = statements(accesses)
    threads = max(access[1] for access in accesses) + 1
    locations = accesses[-1][2] + 1
    # thread 0 runs the ring's last access first, then its first
    order = [index for index in range(len(accesses)) if index > 0 and accesses[index][1] == 0] + [0]
    order += [index for index in range(1, len(accesses)) if accesses[index][1] != 0]
    reads = [index for index, access in enumerate(accesses) if access[0] == "R"]
    lines = [f"/* {'+'.join(cycle)}: a litmus test generated by scripts/litmus-cycles.py",
             " * from the relaxation cycle of its name; tests/fixtures/cycles/expected.tsv",
             " * gives its verdicts. The assertion fails exactly when the cycle happens. */",
             "",
             "#include <assert.h>",
             "#include <pthread.h>",
             ""]
    lines += [f"int x{location};" for location in range(locations)]
    lines += [f"int saw{index};" for index in reads]
    for thread in range(threads):
        lines += ["", f"void *t{thread}(void *arg) {{"]
        for index in order:
            if accesses[index][1] == thread:
                lines += code[index]
        lines += ["  return NULL;", "}"]
    lines += ["", "int main(void) {"]
    lines += [f"  pthread_t p{thread};" for thread in range(threads)]
    lines += [f"  pthread_create(&p{thread}, NULL, t{thread}, NULL);" for thread in range(threads)]
    lines += [f"  pthread_join(p{thread}, NULL);" for thread in range(threads)]
    lines += [f"  assert(!({' && '.join(condition)}));", "  return 0;", "}", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "cycles")
    parser.add_argument("--max-edges", type=int, default=6)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    rows = ["file\tsc\ttso\tpso"]
    for cycle in cycles(options.max_edges):
        name = "+".join(cycle) + ".c"
        (options.out / name).write_text(program(cycle))
        rows.append("\t".join([name] + [verdict(cycle, model) for model in ("sc", "tso", "pso")]))
    (options.out / "expected.tsv").write_text("\n".join(rows) + "\n")
    print(f"{len(rows) - 1} tests in {options.out}")


if __name__ == "__main__":
    main()
