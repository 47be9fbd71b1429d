#!/bin/bash
# Reliability (issue 17): in-range configurations that used to abort end
# with exit 0 or one error line and exit 2/3, and a run that started is
# recorded with its exit code; the first error of a failing launch wins.
. "$(dirname "$0")/lib_cli.bash"
R=(--mode timing --size small --quiet)
SRC=$(cd "$(dirname "$0")/../.." && pwd); export SRC

# Recorded exit code of the last run in database $1.
db_exit() {
    python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select exit_code from runs order by id desc limit 1").fetchone()[0])' "$1"
}

# Defect 1: a message refused at a network endpoint was retried with the
# endpoint as its sender; the DRAM answered the endpoint, the routing
# failed and teardown aborted ("memory messages leaked").
expect_exit 0 "$MGSIM" run mm "${R[@]}" --gpus 8 --platform shared --db "$TMP/a.db"
[ "$(db_exit "$TMP/a.db")" = 0 ] || fail "shared 8-GPU run not recorded"
expect_exit 0 "$MGSIM" run atax "${R[@]}" --gpus 8 --set platform.pcie_version=6 --db "$TMP/a.db"
expect_exit 0 "$MGSIM" run mm "${R[@]}" --gpus 8 --set gpu.freq=100MHz --db "$TMP/a.db"
expect_exit 0 "$MGSIM" run atax "${R[@]}" --gpus 8 --set platform.host_latency=0 --db "$TMP/a.db"

# Defect 4: sim.max_events stops the run (exit 3, one line naming what was
# busy), the run is recorded, teardown with messages in flight is clean.
expect_exit 3 "$MGSIM" run mm "${R[@]}" --set sim.max_events=20000 --db "$TMP/b.db"
expect_one_error_line
expect_in "$ERR" "sim.max_events: stopped after 20000 events"
expect_in "$ERR" "still busy: GPU[0]"
[ "$(db_exit "$TMP/b.db")" = 3 ] || fail "stopped run not recorded with exit 3"

# Defect 4: a kernel that spins forever (s_branch -1 as its first
# instruction) is stopped by the watchdog in timing mode and by the wave
# budget in emu mode; both runs are recorded with exit 3.
cp -r "${MGSIM_KERNEL_DIR:-$SRC/build/kernels}" "$TMP/k"
python3 - "$TMP/k/vecadd.hsaco" <<'PY' || fail "cannot patch vecadd"
import importlib.util, os, struct, sys
spec = importlib.util.spec_from_file_location(
    "m", os.path.join(os.environ["SRC"], "scripts", "mutate_kernels.py"))
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
b = bytearray(open(sys.argv[1], "rb").read())
off, _ = m.code_range(bytes(b))
b[off:off + 4] = struct.pack("<I", 0xbf82ffff)
open(sys.argv[1], "wb").write(b)
PY
MGSIM_KERNEL_DIR="$TMP/k" expect_exit 3 "$MGSIM" run vecadd "${R[@]}" \
    --set sim.watchdog=20us --db "$TMP/w.db"
expect_one_error_line
expect_in "$ERR" "livelock (sim.watchdog = 20000000 ps)"
expect_in "$ERR" "still busy: GPU[0].CP"
[ "$(db_exit "$TMP/w.db")" = 3 ] || fail "watchdog stop not recorded"
MGSIM_KERNEL_DIR="$TMP/k" expect_exit 3 "$MGSIM" run vecadd --size small \
    --quiet --set sim.max_wave_insts=100000 --db "$TMP/w.db"
expect_in "$ERR" "no progress after 100000 instructions"

# Defect 6: the first error wins and keeps its code (was "free of ...: not
# the start of a live allocation" from the cleanup).
expect_exit 2 "$MGSIM" run mm "${R[@]}" --set gpu.simds_per_cu=1 \
    --set gpu.wf_slots_per_simd=1 --db "$TMP/c.db"
expect_one_error_line
expect_in "$ERR" "does not fit a CU"
[ "$(db_exit "$TMP/c.db")" = 2 ] || fail "failed launch not recorded with exit 2"
# Defect 2: every documented cache line size works (requests are split at
# the smaller lines); sizes beyond the model are refused by the key range.
for l in 16B 32B 128B; do
    expect_exit 0 "$MGSIM" run mm "${R[@]}" --set gpu.cache_line=$l --db "$TMP/d.db"
done
expect_exit 2 "$MGSIM" run mm "${R[@]}" --set gpu.cache_line=256B --db "$TMP/d2.db"
expect_one_error_line
expect_in "$ERR" 'cache_line = "256B": out of range (16B..128B)'
[ ! -e "$TMP/d2.db" ] || fail "a configuration error created a database"

# Defect 8: values inside a key's range are accepted, or refused before the
# simulation with the names of the keys the user set.
expect_exit 0 "$MGSIM" run vecadd "${R[@]}" --set dram.bus_bytes=3 --db "$TMP/d.db"
expect_exit 0 "$MGSIM" run vecadd "${R[@]}" --set l2.mshrs=2 --db "$TMP/d.db"
expect_exit 2 "$MGSIM" run vecadd "${R[@]}" --set l2.mshrs=1 --db "$TMP/e.db"
expect_in "$ERR" '[l2] mshrs = "1": out of range (2..65536)'
expect_exit 2 "$MGSIM" run vecadd "${R[@]}" --set gpu.l1v_ways=3 --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "gpu.l1v_ways = 3 with gpu.l1v_size = 16384"
[ ! -e "$TMP/e.db" ] || fail "a configuration error created a database"

# Defect 5: runs that cannot fit are refused at once (exit 2, no database).
expect_exit 2 "$MGSIM" run vecadd --param n=1073741824 --quiet --db "$TMP/f.db"
expect_one_error_line
expect_in "$ERR" "out of device memory: the workload needs 12288 MiB"
expect_exit 2 "$MGSIM" run vecadd "${R[@]}" --set gpu.l2_tlb_sets=65536 \
    --set gpu.l2_tlb_ways=1024 --set tlb.l2_count=256 --db "$TMP/f.db"
expect_one_error_line
expect_in "$ERR" "host memory: this run needs about"
expect_exit 2 "$MGSIM" run mm "${R[@]}" --set sim.host_memory_limit=10MB --db "$TMP/f.db"
expect_in "$ERR" "over the budget of 10 MiB"
[ ! -e "$TMP/f.db" ] || fail "a refused run created a database"

# Defect 10: input echoed into the error line is escaped (one line).
expect_exit 2 "$MGSIM" run vecadd --set $'sim.mode=em\nu\x1b[31m'
expect_one_error_line
expect_in "$ERR" 'mode = "em\nu\x1b[31m"'
# Defect 10: export of a directory is an input error (2); a database that
# cannot be written is found before the simulation (chattr +i works even
# for root; skipped where the file system does not support it).
expect_exit 2 "$MGSIM" export --db "$TMP"
expect_one_error_line
expect_in "$ERR" "is not a results database"
cp "$TMP/a.db" "$TMP/ro.db"
trap 'chattr -i "$TMP/ro.db" 2>/dev/null; rm -rf "$TMP"' EXIT
if chattr +i "$TMP/ro.db" 2>/dev/null; then
    SECONDS=0
    expect_exit 4 "$MGSIM" run mm --mode timing --quiet --db "$TMP/ro.db"
    chattr -i "$TMP/ro.db"
    expect_one_error_line
    expect_in "$ERR" "ro.db: read-only"
    [ "$SECONDS" -lt 5 ] || fail "read-only database found only after the run"
fi
echo ok
