#!/usr/bin/env bash
# Installs the bit-vector SMT solvers of the native engine's symbolic
# values (src/smc/symbolic/solver.rs), `boolector` and `z3`, on Debian or
# Ubuntu, as root, from the distribution's packages. The engine asks each
# question of Boolector and, when it is slow, of z3 beside it; the tests
# of tests/it/smc_symbolic.rs fail without either.
#
# Idempotent: a solver already on PATH is only named.
#
# Usage: sudo bash scripts/install-smt-solvers.sh
set -euo pipefail

say() { printf 'install-smt-solvers: %s\n' "$*"; }

missing=()
for solver in boolector z3; do
    if command -v "$solver" >/dev/null 2>&1; then
        say "already installed: $solver"
    else
        missing+=("$solver")
    fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    say "run as root (sudo bash scripts/install-smt-solvers.sh)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
for solver in "${missing[@]}"; do
    command -v "$solver" >/dev/null 2>&1 || { say "$solver is still missing" >&2; exit 1; }
    say "installed: $solver"
done
