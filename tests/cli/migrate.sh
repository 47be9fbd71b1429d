#!/bin/bash
# Demand paging and page migration (src/um/, docs/memory-management.md):
# every registered workload verifies at small size in timing mode under
# memory.management = migrate on 2 and 4 unified GPUs, with pages placed
# contiguous, interleaved and first_touch (4 GPUs), and over the host link
# (2 GPUs); on 2 discrete GPUs too; a few workloads with 64 KB and 2 MB
# pages, 8 GPUs, links, instant copies, a fault path one request wide and
# a fixed fault latency. Page moves really happen (migrations
# and bytes in the database), a run is deterministic, and bad settings end
# with one error line and exit 2.
#
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists (about
# a minute for the ~170 runs); under the sanitizers only a subset.
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim "vecadd mm mt pr"
MIG="--set memory.management=migrate"

expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform shared $MIG
expect_one_error_line
expect_in "$ERR" "discrete or unified"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform unified $MIG --set coherence.protocol=dir \
    --set coherence.remote_cache=l2
expect_one_error_line
expect_in "$ERR" "coherence.protocol = nc"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform unified --set platform.placement=first_touch
expect_one_error_line
expect_in "$ERR" "needs memory.management = migrate"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" $MIG --set memory.management=lazy
expect_one_error_line
expect_in "$ERR" "management = \"lazy\""

workload_names
failed=""
runs=0
db=m.db
run() { UM_SETS=$MIG um_run "$@"; }
for w in $names; do
    run "$w" --platform unified --gpus 2
    run "$w" --platform unified --gpus 4
    run "$w" --platform unified --gpus 4 --set platform.placement=interleaved
    run "$w" --platform unified --gpus 4 --set platform.placement=first_touch
    run "$w" --platform unified --gpus 2 --set memory.migration_link=host
    run "$w" --platform discrete --gpus 2
done
[ -z "$failed" ] || { echo "failing migrate runs:$failed" >&2; exit 1; }

# Pages really moved: migrations and their bytes (one 4 KB page each).
if command -v sqlite3 >/dev/null; then
    q="select sum(value) from metrics where component='UM.Migrator' and metric="
    moves=$(sqlite3 "$TMP/m.db" "${q}'migrations'")
    bytes=$(sqlite3 "$TMP/m.db" "${q}'bytes_migrated'")
    python3 -c "import sys; m, b = float('$moves'), float('$bytes'); \
sys.exit(0 if m > 100 and b == 4096 * m else 1)" ||
        fail "migrations $moves, bytes $bytes"
fi

# Other page sizes (2 MB pages of pr ping-pong for minutes: left out), more
# GPUs, NVLink-style links, instant copies, every queue of the fault path
# at 1, a fixed fault latency.
db=x.db
extra="mm fir pr"
[ -n "${subset:-}" ] && extra=mm
for w in $extra; do
    run "$w" --platform unified --gpus 4 --set gpu.page_size=64KB
    [ "$w" = pr ] || run "$w" --platform unified --gpus 4 \
        --set gpu.page_size=2MB
    run "$w" --platform unified --gpus 8
    run "$w" --platform unified --gpus 4 --set platform.interconnect=links
    run "$w" --platform unified --gpus 4 --set platform.copy_timing=instant
    run "$w" --platform unified --gpus 4 --set memory.max_migrations=1 \
        --set memory.pmc_reads=1 --set mmu.iommu_walkers=1 \
        --set mmu.iommu_queue=1
    run "$w" --platform unified --gpus 2 --set memory.fault_latency=20us
done
[ -z "$failed" ] || { echo "failing migrate runs:$failed" >&2; exit 1; }

# Deterministic: the same run twice, the same statistics.
for i in 1 2; do
    expect_exit 0 "$bin" run atax --mode timing --size small --quiet $MIG \
        --platform unified --gpus 4 --db "$TMP/d$i.db"
    "$bin" export --db "$TMP/d$i.db" | cut -d, -f12- | grep -v '^run,' \
        | sort >"$TMP/d$i.csv"
done
grep -q "UM.Migrator,migrations" "$TMP/d1.csv" || fail "no migrator statistics"
cmp -s "$TMP/d1.csv" "$TMP/d2.csv" || fail "two identical runs differ"
echo "ok ($runs runs)"
