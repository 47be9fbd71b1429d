#!/bin/bash
# Multi-GPU platforms from the command line: every multi-GPU preset runs and
# verifies a partitioned and a gather workload on 2 GPUs in timing mode, the
# shared-memory preset (halcone-sm) beats the RDMA one (halcone-rdma) on a
# remote-heavy workload, statistics name the RDMA engines and the network,
# and bad platform, host-link and RDMA options end with one error line
# naming the key and exit 2.
. "$(dirname "$0")/lib_cli.bash"

CONF=$(dirname "$0")/../../configs
for p in halcone-rdma halcone-sm rec carve; do
    for w in vecadd mm; do
        expect_exit 0 "$MGSIM" run "$w" --config "$CONF/$p.ini" --size small \
            --gpus 2 --db "$TMP/p.db"
        expect_in "$OUT" "verified       yes"
        expect_in "$OUT" "mode timing"
    done
done

simtime() {   # simulated time of the run in $OUT, in ns
    awk '/simulated time/ {v=$3; u=$4; m=(u=="us")?1000:(u=="ms")?1000000:(u=="s")?1e9:1;
         printf "%d\n", v*m}' "$OUT"
}
expect_exit 0 "$MGSIM" run mm --config "$CONF/halcone-rdma.ini" --size small --db "$TMP/s.db"
rdma=$(simtime)
expect_exit 0 "$MGSIM" run mm --config "$CONF/halcone-sm.ini" --size small --db "$TMP/s.db"
sm=$(simtime)
[ "$sm" -gt 0 ] && [ "$sm" -lt "$rdma" ] || fail "halcone-sm ($sm ns) not faster than halcone-rdma ($rdma ns) on mm"

python3 - "$TMP/s.db" <<'PY' || fail "statistics of the multi-GPU runs"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def val(run, comp, metric):
    r = db.execute("select sum(value) from metrics where run_id=? and component like ? "
                   "and metric=?", (run, comp, metric)).fetchone()[0]
    return r or 0
assert val(1, "GPU[3].RDMA", "out_reads") > 0            # 4 GPUs, remote reads
assert val(1, "PCIe.Link[%", "a_to_b.payload_bytes") > 0
assert val(2, "%RDMA%", "out_reads") == 0                 # shared: no RDMA
assert val(2, "SwitchComplex.Link[%", "a_to_b.payload_bytes") > 0
assert val(2, "Stack[3].DRAM[%", "reads") > 0             # every stack serves
PY

expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --platform ring --db "$TMP/e.db"
expect_one_error_line
expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --gpus 17 --db "$TMP/e.db"
expect_one_error_line
expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --gpus 2 \
    --set platform.pcie_version=7 --db "$TMP/e.db"
expect_one_error_line
# A bad host link and RDMA tables that break the credit rule (3 peers x
# 30 credits > 64 incoming entries) name their keys.
expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --gpus 2 \
    --set platform.host_link=pcie9 --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "platform.host_link"
expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --gpus 4 \
    --set rdma.incoming_entries=64 --set rdma.credits_per_home=30 --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "rdma.credits_per_home"
expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --gpus 2 \
    --set rdma.xbar_ports=17 --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "rdma"
echo ok
