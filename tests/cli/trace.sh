#!/bin/bash
# mgsim run --trace: a Chrome trace-event JSON file whose kernel and
# work-group events agree with the run's own numbers; memory transactions
# with --trace-mem, filtered and capped with a clear message.
. "$(dirname "$0")/lib_cli.bash"
T=$TMP/t.json
expect_exit 0 "$MGSIM" run mm --size small --mode timing --gpus 2 --platform unified \
    --trace "$T" --db "$TMP/t.db" --json
cp "$OUT" "$TMP/run.json"
/usr/bin/python3 - "$T" "$TMP/run.json" <<'PY' || fail "trace structure and times"
import json, sys
tr = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
ev = tr["traceEvents"]
X = [e for e in ev if e["ph"] == "X"]
ps = lambda us: round(us * 1e6)
# The runtime's kernel spans add up to the run's kernel time, copies to
# its copy time (microseconds with picosecond digits).
rk = [e for e in X if e["cat"] == "kernel" and e["pid"] == 0]
assert rk and all(e["name"] == "mm" for e in rk), rk
assert sum(ps(e["dur"]) for e in rk) == run["sim_time_ps"], (rk, run["sim_time_ps"])
cp = [e for e in X if e["cat"] == "copies"]
assert sum(ps(e["dur"]) for e in cp) == run["copy_time_ps"]
# Each GPU's command processor ran the kernel inside the runtime's span.
ck = [e for e in X if e["cat"] == "kernel" and e["pid"] != 0]
assert sorted(e["pid"] for e in ck) == [1, 2], ck
k0, k1 = ps(rk[0]["ts"]), ps(rk[0]["ts"]) + ps(rk[0]["dur"])
for e in ck:
    assert k0 <= ps(e["ts"]) and ps(e["ts"]) + ps(e["dur"]) <= k1, e
# One event per work-group, on a CU track, inside its GPU's kernel span.
wg = [e for e in X if e["cat"] == "wg"]
summary = json.load(open(sys.argv[2]))
assert len(wg) == 64, len(wg)
assert len({e["name"] for e in wg}) == 64
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
for e in wg:
    assert ".CU[" in names[(e["pid"], e["tid"])], e
    k = [c for c in ck if c["pid"] == e["pid"]][0]
    assert ps(k["ts"]) <= ps(e["ts"]) and ps(e["ts"]) + ps(e["dur"]) <= ps(k["ts"]) + ps(k["dur"])
assert tr["otherData"]["dropped"] == 0
PY

# Memory transactions: only with --trace-mem; a component filter; the cap.
expect_exit 0 "$MGSIM" run mm --size small --mode timing --trace "$T" --db "$TMP/t.db" \
    --trace-component L2 -q
/usr/bin/python3 - "$T" <<'PY' || fail "filtered memory events"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
mem = [e for e in ev if e.get("cat") == "mem"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert mem
for e in mem:
    assert "L2" in names[(e["pid"], e["tid"])] or "L2" in e["args"]["from"], e
    assert e["name"] in ("read", "write", "atomic") and e["args"]["addr"].startswith("0x")
PY
expect_exit 0 "$MGSIM" run mm --size small --mode timing --trace "$T" --db "$TMP/t.db" \
    --trace-mem --trace-limit 100 -q
expect_in "$ERR" "mgsim: note: --trace $T: the cap of 100 events was reached"
/usr/bin/python3 -c "import json,sys; d = json.load(open(sys.argv[1])); \
assert sum(e['ph'] == 'X' for e in d['traceEvents']) == 100 and d['otherData']['dropped'] > 0" "$T" ||
    fail "capped trace is valid JSON with 100 events"

# Mistakes: exit 2, one line, before simulating.
expect_exit 2 "$MGSIM" run mm --size small --mode emu --trace "$T" --db "$TMP/t.db"
expect_one_error_line; expect_in "$ERR" "--trace needs --mode timing"
expect_exit 2 "$MGSIM" run --mode timing --trace "$T" --db "$TMP/t.db"
expect_one_error_line; expect_in "$ERR" "--trace needs a WORKLOAD"
expect_exit 2 "$MGSIM" run mm --size small --mode timing --trace-range 9:3 --db "$TMP/t.db"
expect_one_error_line
expect_exit 2 "$MGSIM" run mm --size small --mode timing --trace "$TMP/no/such/dir/t.json" --db "$TMP/t.db"
expect_one_error_line
echo ok
