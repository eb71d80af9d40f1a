#!/usr/bin/env bash
# Installs the Z3 SMT solver (the `z3` binary) on Debian or Ubuntu, as
# root, from the distribution's package. The native engine's symbolic
# values (src/smc/symbolic/) talk to `z3 -in` through a pipe; the tests of
# tests/it/smc_symbolic.rs fail without it.
#
# Idempotent: when `z3` is already on PATH the script only prints its
# version.
#
# Usage: sudo bash scripts/install-z3.sh
set -euo pipefail

say() { printf 'install-z3: %s\n' "$*"; }

if command -v z3 >/dev/null 2>&1; then
    say "already installed: $(z3 --version)"
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    say "run as root (sudo bash scripts/install-z3.sh)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends z3
say "installed: $(z3 --version)"
