#!/usr/bin/env python3
"""Peak memory of `lazysma verify` on programs that used to take the
machine down: Csmith seeds 5001-5012 with few constraints (the options
below), each with the assertion that its checksum is gcc's, verified under
SC at --unwind 300. Prints one row per seed: the exit code and what it
means, the wall time, and the peak resident memory of lazysma and of its
largest child (CBMC), read from the kernel's accounting of each run; ends
with exit 1 when a run was killed (by a signal: the out-of-memory killer's
SIGKILL), ended otherwise than with a verdict, a time limit (exit 3) or a
memory limit (exit 2 naming it), or when a peak passed the limit.

Usage: scripts/bench-memory.py [--lazysma PATH] [--seeds FIRST-LAST]
                               [--memory-limit SIZE] [--timeout S]
                               [--engine auto|smc|cbmc]
--memory-limit is passed to lazysma (default: its own, a third of
physical memory). Needs csmith, gcc and cbmc.
"""

import argparse
import datetime
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LAZYSMA = str(ROOT / "target" / "release" / "lazysma")

# the options of the runs that the out-of-memory killer ended before the
# engines had a memory limit
CSMITH_OPTIONS = ["--no-pointers", "--no-structs", "--no-unions", "--max-funcs", "3",
                  "--no-bitfields", "--no-volatiles", "--no-argc"]


def csmith_differential():
    """scripts/csmith-differential.py as a module: its harness and gcc run."""
    spec = importlib.util.spec_from_file_location("csmith_differential",
                                                  ROOT / "scripts" / "csmith-differential.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def physical_memory():
    """Bytes of physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def parse_size(text):
    """Bytes of a size such as 4G, 512M or 1000000."""
    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    text = text.strip().upper()
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def measured(command, timeout):
    """(seconds, exit code or -signal, peak resident bytes of the largest
    process of the run, standard error) of one run."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
            time.sleep(0.05)
        errors.seek(0)
        text = errors.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in kilobytes on Linux: the largest of the process and
    # the children it waited for
    return time.monotonic() - start, code, usage.ru_maxrss * 1024, text


def meaning(code, stderr):
    """What an exit code says, and whether it is an allowed end."""
    if code < 0:
        return f"killed by signal {-code}", False
    if code in (0, 10):
        return ("safe" if code == 0 else "violation"), True
    if code == 3:
        return "time limit", True
    if code == 2:
        memory = "memory" in stderr
        return ("memory limit" if memory else "no answer (exit 2)"), memory
    if code == 1:
        return "refused (exit 1)", True
    return f"exit {code}", False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazysma", default=DEFAULT_LAZYSMA)
    parser.add_argument("--seeds", default="5001-5012")
    parser.add_argument("--memory-limit", default=None)
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--engine", default="auto")
    options = parser.parse_args()
    differential = csmith_differential()
    include = differential.csmith_include()
    first, last = (int(part) for part in options.seeds.split("-"))
    limit = parse_size(options.memory_limit) if options.memory_limit else physical_memory() // 3
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    print(f"# {datetime.date.today()} commit {commit}: {' '.join(sys.argv)}")
    print(f"# memory limit {limit / 2**30:.1f} GiB, physical memory {physical_memory() / 2**30:.1f} GiB")
    print("seed\texit\tmeaning\tseconds\tpeak MiB")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as name:
        directory = Path(name)
        for seed in range(first, last + 1):
            program = directory / f"csmith_{seed}.c"
            subprocess.run(["csmith", "--seed", str(seed), *CSMITH_OPTIONS, "-o", str(program)],
                           capture_output=True, cwd=directory, check=False)
            checksum = differential.gcc_checksum(program, directory, include) if program.exists() else None
            if checksum is None:
                print(f"{seed}\t-\tno checksum from gcc\t-\t-")
                continue
            command = [options.lazysma, "verify", "--sc", "--unwind", "300", "--engine", options.engine,
                       "--timeout", str(options.timeout), "-I", str(differential.HARNESS), "-I", include,
                       f"-DEXPECTED_CHECKSUM={checksum:#x}", str(program)]
            if options.memory_limit:
                command[2:2] = ["--memory-limit", options.memory_limit]
            seconds, code, peak, stderr = measured(command, options.timeout + 60)
            what, allowed = meaning(code, stderr)
            within = peak <= limit
            failures += (not allowed) or (not within)
            print(f"{seed}\t{code}\t{what}\t{seconds:.1f}\t{peak / 2**20:.0f}"
                  + ("" if within else "\tabove the limit"), flush=True)
    print("every run ended with an answer or a named limit, within the memory limit"
          if not failures else f"{failures} runs killed, unanswered or above the limit")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
