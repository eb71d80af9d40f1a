#!/bin/sh
# Draws the picture docs/reports.md shows: the violating execution of
# examples/store_buffering.c under TSO, as `lazysma verify --graph` draws
# it, into docs/images/store_buffering_tso.svg. Run from anywhere; builds
# lazysma first. `verify` exits 10 for the violation it draws.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --quiet
mkdir -p docs/images
status=0
target/release/lazysma verify examples/store_buffering.c --tso --engine smc \
    --graph docs/images/store_buffering_tso.svg >/dev/null || status=$?
if [ "$status" -ne 10 ]; then
    echo "report-graph: expected a violation (exit 10), got exit $status" >&2
    exit 1
fi
echo "wrote docs/images/store_buffering_tso.svg"
