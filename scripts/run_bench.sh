#!/bin/bash
# Runs every benchmark binary; each prints lines "BENCH <name> <metric>=<value> ...".
set -u
build=${1:-build}
export MGSIM_BUILD="$build" MGSIM="$build/mgsim"
status=0
for b in $(find "$build/bench" -type f -perm -u+x 2>/dev/null | sort); do
    "$b" || { echo "bench $(basename "$b") failed" >&2; status=1; }
done
exit $status
