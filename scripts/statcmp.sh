#!/bin/bash
# Compares every statistic of a set of timing runs made by two mgsim
# binaries (e.g. the build before and after a speed change that must not
# change simulated behaviour). Host-dependent rows (wall time, rates) are
# left out. Prints one line per run; exits 1 if any run differs or fails.
# Usage: scripts/statcmp.sh OLD_MGSIM NEW_MGSIM
# The kernels come from $MGSIM_KERNEL_DIR (or each binary's own build).
set -u
[ $# -eq 2 ] || { echo "usage: $0 OLD_MGSIM NEW_MGSIM" >&2; exit 2; }
old=$1; new=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mgsim-statcmp.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
runs=(
    "mm --param n=128"
    "mm --param n=128 --gpus 4 --platform unified"
    "bfs --size small"
    "bfs --size small --gpus 4 --platform unified"
    "fir --size small --gpus 2"
    "km --size small"
    "aes --size small"
    "mm --param n=64 --set gpu.issue_model=mgpusim"
    "bs --size small"
    "st --size small"
)
rc=0
for r in "${runs[@]}"; do
    for side in old new; do
        bin=${!side}
        # shellcheck disable=SC2086  # $r holds several arguments
        if ! "$bin" run $r --mode timing --quiet --db "$tmp/$side.db" \
                >"$tmp/$side.out" 2>&1; then
            echo "FAILED ($side): $r"
            sed 's/^/    /' "$tmp/$side.out" | tail -3
            rc=1
        fi
        "$bin" export --db "$tmp/$side.db" --format csv | cut -d, -f12- |
            grep -v -E '^run,(wall_time|wf_insts_per_s|sim_rate|cpu)' |
            sort >"$tmp/$side.csv"
        rm -f "$tmp/$side.db"
    done
    n=$(wc -l <"$tmp/old.csv")
    if cmp -s "$tmp/old.csv" "$tmp/new.csv"; then
        echo "same ($n statistics): $r"
    else
        echo "DIFFERENT: $r"; diff "$tmp/old.csv" "$tmp/new.csv" | head -6
        rc=1
    fi
done
exit $rc
