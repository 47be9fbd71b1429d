#!/bin/bash
# CARVE (src/coh/carve/, docs/coherence.md "CARVE"): every registered
# workload verifies at small size under the NUMA-GPU baseline (nc with
# remote lines in the L2), carve-swc and carve-hwc on 2 and 4 discrete
# GPUs; carve-nc (no coherence) computes wrong results on the read-write
# sharing stand-ins (lulesh, comd) and on pr and bfs; the fenced litmus
# tests are clean under carve-swc and carve-hwc with threads on one GPU and
# across 2 GPUs (MP across 4), where the NUMA-GPU baseline shows MP's stale
# read (kernel-boundary coherence only); the preset
# runs; same configuration, same statistics; the carve-main, carve-wb and
# carve-capacity studies run at --size small; bad settings (and host frames
# where there is no host route) end with one error line and exit 2. The
# write-back RDC (carve.rdc_write = back): the CARVE stand-ins verify under
# carve-swc on 2 and 4 GPUs with lines written back at kernel end, the
# fenced litmus tests across GPUs are clean, carve-hwc refuses it. Host
# frames' memory.spill_choice = coldest verifies and spills colder pages.
#
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists (about
# 100 s for the ~250 runs); under the sanitizers only a subset.
. "$(dirname "$0")/lib_cli.bash"
unset MGSIM_STUDY_DIR

optimised_mgsim "vecadd pr lulesh sssp"
L2="--set coherence.remote_cache=l2"

expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=carve-hwc
expect_one_error_line
expect_in "$ERR" "coherence.remote_cache = l2"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=carve-swc $L2 \
    --set carve.rdc_size=4GB
expect_one_error_line
expect_in "$ERR" "carve.rdc_size"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=carve-swc $L2 \
    --set carve.rdc_size=100000
expect_one_error_line
expect_in "$ERR" "carve.rdc_size"

expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=carve-hwc $L2 \
    --set carve.rdc_write=back
expect_one_error_line
expect_in "$ERR" "carve.rdc_write = back"

workload_names
failed=""
run() { # run WORKLOAD ARGS...
    local w=$1
    shift
    # shellcheck disable=SC2086
    "$bin" run "$w" --mode timing --size small --quiet $L2 "$@" \
        --db "$TMP/m.db" >"$TMP/o" 2>"$TMP/e" ||
        failed="$failed $w/$*(exit $?: $(head -c 160 "$TMP/e"))"
}
for w in $names; do
    for p in nc carve-swc carve-hwc; do
        run "$w" --set coherence.protocol=$p --gpus 2
        run "$w" --set coherence.protocol=$p --gpus 4
    done
done
# The write-back RDC: the CARVE stand-ins, lines written back at kernel end.
carve_suite="triad randacc xsbench lulesh sssp comd conv"
[ -n "$subset" ] && carve_suite="lulesh sssp"
for w in $carve_suite; do
    for g in 2 4; do
        run "$w" --set coherence.protocol=carve-swc \
            --set carve.rdc_write=back --gpus $g
    done
done
[ -z "$failed" ] || { echo "failing CARVE runs:$failed" >&2; exit 1; }
"$bin" run lulesh --mode timing --size small --quiet $L2 --gpus 2 \
    --set coherence.protocol=carve-swc --set carve.rdc_write=back \
    --db "$TMP/wb.db" || fail "lulesh write-back"
"$bin" export --db "$TMP/wb.db" >"$TMP/wb.csv"
awk -F, '$13 == "rdc_flush_lines" {n += $14} END {exit !(n > 0)}' \
    "$TMP/wb.csv" || fail "no RDC line written back at kernel end"

# No coherence: stale RDC lines give wrong results (data is real).
for w in lulesh pr; do
    expect_exit 1 "$bin" run "$w" --mode timing --size small --quiet $L2 \
        --gpus 2 --set coherence.protocol=carve-nc --db "$TMP/n.db"
    expect_in "$ERR" "expected"
done

# Litmus: clean on one GPU and across GPUs. carve-hwc acknowledges a write
# only once every other GPU dropped the line from its L2 and RDC; carve-swc's
# acquire fences drop the GPU's remote lines from its L2 and RDC. The
# NUMA-GPU baseline (nc with remote lines in the L2) shows MP's stale read
# across GPUs. (The broken variants, an IMST that misses sharers and fences
# that stop at the L1, show MP's forbidden outcome in the unit test.)
for p in carve-swc carve-hwc; do
    expect_exit 0 "$bin" litmus --protocol $p --gpus 2 --placement both \
        --fences on --iterations 1000 $L2
    expect_in "$OUT" "mgsim litmus: ok: no forbidden outcome"
    [ "$(grep -c ' iterations, ' "$OUT")" = 12 ] || fail "$p: run count"
    expect_exit 0 "$bin" litmus MP --protocol $p --gpus 4 --placement gpu \
        --fences on --iterations 1000 $L2
    expect_in "$OUT" "mgsim litmus: ok: no forbidden outcome"
done
expect_exit 0 "$bin" litmus --protocol carve-swc --gpus 2 --placement gpu \
    --fences on --iterations 1000 $L2 --set carve.rdc_write=back
expect_in "$OUT" "mgsim litmus: ok: no forbidden outcome"
expect_exit 1 "$bin" litmus --protocol nc --gpus 2 --placement gpu \
    --fences on --iterations 1000 $L2
[ "$(grep -c 'FORBIDDEN OUTCOME SEEN' "$OUT")" = 1 ] || fail "nc: only MP"
awk '/^MP /{m=1} /^SB /{m=0} m && /FORBIDDEN/{f=1} END{exit !f}' "$OUT" ||
    fail "nc: MP"

# The preset (4 unified GPUs, 2 MB pages, 2 GB RDC) runs and verifies.
CONF=$(dirname "$0")/../../configs
expect_exit 0 "$bin" run lulesh --config "$CONF/carve.ini" --size small \
    --db "$TMP/p.db"
expect_in "$OUT" "verified       yes"
expect_in "$OUT" "4 GPUs (unified)"

# Determinism: the same run twice, the same statistics.
for i in 1 2; do
    "$bin" run sssp --mode timing --size small --quiet --gpus 4 $L2 \
        --set coherence.protocol=carve-hwc --db "$TMP/d$i.db" ||
        fail "sssp run $i"
    "$bin" export --db "$TMP/d$i.db" | cut -d, -f12- | grep -v -e wall -e _per_s >"$TMP/d$i.csv"
done
cmp -s "$TMP/d1.csv" "$TMP/d2.csv" || fail "carve-hwc statistics differ"
grep -q 'RDC,rdc_hits' "$TMP/d1.csv" || fail "no RDC statistics"

# The study at --size small: every point runs, the figures are written.
if [ -z "$subset" ]; then
    "$bin" study carve-main --size small --out "$TMP/s" -j 2 --quiet \
        >"$OUT" 2>"$ERR" || fail "carve-main exited $?"
    expect_in "$OUT" "42 points: 42 run, 0 reused, 0 failed, 0 missing"
    for f in carve-main carve-main-fig8 carve-main-hitrate; do
        [ -s "$TMP/s/$f.png" ] && [ -s "$TMP/s/$f-figure.csv" ] ||
            fail "$f outputs"
    done
    "$bin" study carve-wb --size small --out "$TMP/wb" -j 2 --quiet \
        >"$OUT" 2>"$ERR" || fail "carve-wb exited $?"
    expect_in "$OUT" "21 points: 21 run, 0 reused, 0 failed, 0 missing"
    grep -q '^| swc-wb geomean | 1 |' "$TMP/wb/report.md" ||
        fail "carve-wb: no paper row"
    # Table V(b): pages spilled to host frames (memory.spill_ppm).
    "$bin" study carve-capacity --size small --out "$TMP/c" -j 2 --quiet \
        >"$OUT" 2>"$ERR" || fail "carve-capacity exited $?"
    expect_in "$OUT" "63 points: 63 run, 0 reused, 0 failed, 0 missing"
    [ -s "$TMP/c/carve-capacity.png" ] || fail "carve-capacity figure"
fi

# memory.spill_choice = coldest: an emu pass profiles the run, the timing
# run still verifies and sends fewer parts to host memory than the even
# spread of the same share.
for c in even coldest; do
    "$bin" run lulesh --preset carve --size small --quiet \
        --set gpu.page_size=4KB --set memory.spill_ppm=125000 \
        --set memory.spill_choice=$c --db "$TMP/sp-$c.db" ||
        fail "lulesh with spill_choice = $c exited $?"
    "$bin" export --db "$TMP/sp-$c.db" >"$TMP/sp-$c.csv"
done
grep -q 'run,spill_profile_pages' "$TMP/sp-coldest.csv" ||
    fail "coldest: no profile"
parts() { awk -F, '$0 ~ /RDMA,host_parts,/ { for (i = 1; i <= NF; i++)
    if ($i == "host_parts") s += $(i + 1) } END { print s + 0 }' "$1"; }
even=$(parts "$TMP/sp-even.csv") cold=$(parts "$TMP/sp-coldest.csv")
[ "$cold" -gt 0 ] && [ "$cold" -lt "$even" ] ||
    fail "coldest sent $cold host parts, even $even"

# Host frames need the RDMA engines' host route: refused elsewhere.
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform shared --set memory.spill_ppm=15000
expect_one_error_line
expect_in "$ERR" "memory.spill_ppm"
echo ok
