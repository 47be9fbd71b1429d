#!/bin/bash
# Adjacent workloads run in place on unified and shared (issue 11 point 9):
# fir and j2d on 2 GPUs in timing mode. On discrete the host launches once
# per GPU and refreshes halos with peer copies (DMA bytes_peer > 0); on
# unified and shared each step is one launch over both GPUs (run kernels =
# steps, both GPUs ran work-groups) and nothing is copied between GPUs: the
# GPUs read their neighbours' rows in place. On unified those reads are
# remote (RDMA out_reads > 0), and contiguous placement (a GPU's chunk of
# work-groups finds its chunk of data local) makes fewer of them than page
# interleaving (fir: 79 vs 284 measured).
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim

db=$TMP/p.db
for w in fir j2d; do
    for p in discrete unified shared; do
        for pl in contiguous interleaved; do
            [ "$p" != unified ] && [ "$pl" = interleaved ] && continue
            expect_exit 0 "$bin" run "$w" --mode timing --size small --quiet \
                --platform "$p" --gpus 2 --db "$db" \
                --set platform.concurrent_launches=true \
                --set platform.placement="$pl"
        done
    done
done
python3 - "$db" <<'PY' || fail "in-place checks"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def one(run, comp_like, metric):
    v = db.execute("select sum(value) from metrics where run_id = ? and "
                   "component like ? and metric = ?",
                   (run, comp_like, metric)).fetchone()[0]
    return v or 0
runs = db.execute("select id, workload, command_line from runs "
                  "order by id").fetchall()
steps = {"fir": 1, "j2d": 2}
remote = {}
for run, w, cmd in runs:
    plat = cmd.split("--platform ")[1].split()[0]
    place = cmd.split("platform.placement=")[1].split()[0]
    kernels = one(run, "run", "kernels")
    peer = one(run, "GPU[_].DMA", "bytes_peer")
    wgs = [one(run, "GPU[%d]" % g, "workgroups") for g in (0, 1)]
    what = "%s %s %s" % (w, plat, place)
    assert min(wgs) > 0, (what, wgs)
    if plat == "discrete":
        assert kernels == 2 * steps[w], (what, kernels)
        assert peer > 0, (what, peer)
        continue
    assert kernels == steps[w], (what, kernels)
    assert peer == 0, (what, peer)
    if plat == "unified":
        remote[(w, place)] = one(run, "GPU[_].RDMA", "out_reads")
for w in steps:
    c, i = remote[(w, "contiguous")], remote[(w, "interleaved")]
    print(w, "remote reads on unified: contiguous", c, "interleaved", i)
    assert 0 < c < i, (w, c, i)
PY
echo ok
