#!/usr/bin/env python3
"""Reads the output of `cargo test` on standard input, passes it through,
and then prints how long each test binary took (its own `finished in`
figure), slowest first, with the totals of passed and failed tests.

Usage: cargo test --release 2>&1 | python3 scripts/test-times.py
With LAZYSMA_CI_STARTED (seconds since the epoch, set by .ci/run) it also
prints the time since then.
The exit code is 0; the caller keeps cargo's own (`set -o pipefail`).
"""
import os
import re
import sys
import time

RUNNING = re.compile(r"^\s+(?:Running|Doc-tests)\s+(.+?)\s*(?:\(|$)")
RESULT = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed;.*finished in ([\d.]+)s")


def main() -> int:
    current, rows, passed, failed = None, [], 0, 0
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()
        running = RUNNING.match(line)
        if running:
            current = running.group(1)
            if line.lstrip().startswith("Doc-tests"):
                current = "doc-tests " + current
            continue
        result = RESULT.match(line)
        if result and current:
            passed += int(result.group(1))
            failed += int(result.group(2))
            rows.append((float(result.group(3)), current))
            current = None
    if not rows:
        return 0
    print("\n== time of each test binary (slowest first)")
    for seconds, name in sorted(rows, reverse=True):
        print(f"{seconds:9.1f} s  {name}")
    print(f"{sum(seconds for seconds, _ in rows):9.1f} s  in all ({len(rows)} binaries)")
    started = os.environ.get("LAZYSMA_CI_STARTED")
    if started and started.isdigit():
        print(f"{time.time() - int(started):9.0f} s  since the start of .ci/run")
    print(f"tests: {passed} passed, {failed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
