#!/bin/bash
# The ESI protocol and page splitting (memory.management = esi and pasi,
# src/um/esi_dir.c, docs/memory-management.md): every registered workload
# verifies at small size in timing mode under esi on 2 and 4 unified GPUs,
# on 4 with interleaved and first-touch placement, and on 2 discrete GPUs,
# and under pasi on 2 and 4 unified GPUs and 4 with first-touch placement
# (pieces that start in staging frames on several GPUs); a few with 64 KB
# pages, 8 GPUs, links and a fault path one request wide. Pages really
# replicate (replicas and their bytes in the database), writes invalidate,
# pieces split and merge, runs are deterministic, and bad settings end with
# one error line and exit 2.
#
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists (about
# 50 s for the ~280 runs); under the sanitizers only a subset.
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim "mm km mm2"
ESI="--set memory.management=esi"

expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform shared $ESI
expect_one_error_line
expect_in "$ERR" "memory.management = esi needs"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform unified --set memory.management=pasi \
    --set memory.pasi_initial=96KB
expect_one_error_line
expect_in "$ERR" "powers of two"

workload_names
failed=""
runs=0
db=m.db
run() { UM_SETS=$ESI um_run "$@"; }
for w in $names; do
    run "$w" --platform unified --gpus 2
    run "$w" --platform unified --gpus 4
    run "$w" --platform unified --gpus 4 --set platform.placement=interleaved
    run "$w" --platform unified --gpus 4 --set platform.placement=first_touch
    run "$w" --platform discrete --gpus 2
done
ESI="--set memory.management=pasi"
db=p.db
for w in $names; do
    run "$w" --platform unified --gpus 2
    run "$w" --platform unified --gpus 4
    run "$w" --platform unified --gpus 4 --set platform.placement=first_touch
done
[ -z "$failed" ] || { echo "failing esi/pasi runs:$failed" >&2; exit 1; }
if command -v sqlite3 >/dev/null; then
    q="select sum(value) from metrics where component='UM.Migrator' and metric="
    splits=$(sqlite3 "$TMP/p.db" "${q}'splits'")
    merges=$(sqlite3 "$TMP/p.db" "${q}'merges'")
    # Every workload (the optimised binary): over 100 splits and 50
    # merges (memory.pasi_merge_hold keeps halves split in the last 100 us
    # apart, most of these short kernels); the sanitizer subset (mm km
    # mm2, as in CI without build/mgsim): some.
    least=100
    [ -n "$subset" ] && least=10
    python3 -c "import sys; sys.exit(0 if float('$splits') > $least and \
float('$merges') > $least / 2 else 1)" || fail "splits $splits, merges $merges (want > $least, > $least / 2)"
fi
ESI="--set memory.management=esi"

# Pages were replicated (one 4 KB page per replica or move) and written
# pages invalidated the other copies.
if command -v sqlite3 >/dev/null; then
    q="select sum(value) from metrics where component='UM.Migrator' and metric="
    reps=$(sqlite3 "$TMP/m.db" "${q}'replicas'")
    moves=$(sqlite3 "$TMP/m.db" "${q}'migrations'")
    inval=$(sqlite3 "$TMP/m.db" "${q}'invalidations'")
    bytes=$(sqlite3 "$TMP/m.db" "${q}'bytes_migrated'")
    python3 -c "import sys; r, m, i, b = float('$reps'), float('$moves'), \
float('$inval'), float('$bytes'); \
sys.exit(0 if r > 100 and i > 10 and b == 4096 * (r + m) else 1)" ||
        fail "replicas $reps, migrations $moves, invalidations $inval, bytes $bytes"
fi

db=x.db
extra="mm km pr"
[ -n "${subset:-}" ] && extra=mm
for w in $extra; do
    run "$w" --platform unified --gpus 4 --set gpu.page_size=64KB
    run "$w" --platform unified --gpus 8
    run "$w" --platform unified --gpus 4 --set platform.interconnect=links
    run "$w" --platform unified --gpus 4 --set memory.max_migrations=1 \
        --set memory.pmc_reads=1 --set mmu.iommu_walkers=1 \
        --set mmu.iommu_queue=1
    run "$w" --platform unified --gpus 2 --set memory.migration_link=host
    run "$w" --platform unified --gpus 4 --set memory.management=pasi \
        --set memory.pasi_initial=64KB --set memory.pasi_min=8KB
    run "$w" --platform unified --gpus 4 --set memory.management=pasi \
        --set gpu.page_size=64KB
done
[ -z "$failed" ] || { echo "failing esi runs:$failed" >&2; exit 1; }

# Deterministic: the same run twice, the same statistics.
for scheme in esi pasi; do
    for i in 1 2; do
        expect_exit 0 "$bin" run km --mode timing --size small --quiet \
            --set memory.management=$scheme --platform unified --gpus 4 \
            --db "$TMP/d$scheme$i.db"
        "$bin" export --db "$TMP/d$scheme$i.db" | cut -d, -f12- \
            | grep -v '^run,' | sort >"$TMP/d$scheme$i.csv"
    done
    grep -q "UM.Migrator,replicas" "$TMP/d${scheme}1.csv" ||
        fail "no replica statistics"
    cmp -s "$TMP/d${scheme}1.csv" "$TMP/d${scheme}2.csv" ||
        fail "two identical $scheme runs differ"
done
echo "ok ($runs runs)"
