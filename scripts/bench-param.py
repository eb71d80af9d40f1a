#!/usr/bin/env python3
"""Times `lazysma param` on each fixture of tests/fixtures/param/ (every
run of its .desc): the whole command, and the parameterised search alone
(the line `parameterised search: S s` the command prints; the rest of an
unsafe run is the concrete replay by the native engine, which grows with
the number of threads). Prints one row per run: the exit code against the
expected one, both times, and whether the search is under the one-second
target. Ends with exit 1 when an exit code is wrong.

Usage: scripts/bench-param.py [--lazysma PATH] [--budget S] [--markdown]
Build lazysma first: cargo build --release.
"""

import argparse
import datetime
import subprocess
import sys

from corpora import DEFAULT_LAZYSMA, ROOT, timed

FIXTURES = ROOT / "tests" / "fixtures" / "param"
TARGET_SECONDS = 1.0


def runs(desc):
    """(arguments, expected exit) of each run of a .desc."""
    found = []
    for line in desc.read_text().splitlines():
        line = line.strip()
        if line.startswith("run:"):
            found.append([line[4:].split(), None])
        elif line.startswith("exit:") and found:
            found[-1][1] = int(line[5:])
    return found


def search_seconds(stdout):
    """The parameterised search's own time, if the command printed it."""
    for line in (stdout or "").splitlines():
        if line.startswith("parameterised search: "):
            return float(line.split()[2])
    return None


def commit():
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--markdown", action="store_true")
    options = parser.parse_args()
    print(f"# {datetime.date.today()} commit {commit()}: scripts/bench-param.py")
    if options.markdown:
        print("| fixture | arguments | exit | expected | search (s) | command (s) |")
        print("|---|---|---|---|---|---|")
    wrong = 0
    for desc in sorted(FIXTURES.glob("*.desc")):
        program = desc.with_suffix(".c")
        for arguments, expected in runs(desc):
            command = [options.lazysma, "param", str(program), *arguments]
            seconds, code, stdout = timed(command, options.budget)
            search = search_seconds(stdout)
            flag = "" if search is not None and search < TARGET_SECONDS else "  (search over 1 s)"
            if search is None:
                flag = ""
                search = seconds
            if expected is not None and code != expected:
                wrong += 1
                flag += "  WRONG EXIT"
            shown = " ".join(arguments)
            if options.markdown:
                print(f"| {program.name} | `{shown}` | {code} | {expected} | {search:.3f} | {seconds:.2f}{flag} |")
            else:
                print(f"{program.name:26} {shown:32} exit {code!s:3} (expected {expected}) "
                      f"search {search:6.3f} s, all {seconds:5.2f} s{flag}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
