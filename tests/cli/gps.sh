#!/bin/bash
# GPS publish-subscribe replication (src/coh/gps/, docs/gps.md): the GPS
# workloads verify under every paradigm (automatic and manual subscription,
# GPS without subscription, memcpy, RDL, UM) on 2 and 4 GPUs of the gps
# preset (16 GPUs: tests/cli/gps_study.sh); every replica is compared with
# the host's view, so dropping one publication (gps.test_drop) fails
# verification; the write queue coalesces (wq_hits) and publishes
# (publications, published bytes) and subscription tracking leaves pages
# with fewer subscribers than GPUs; a run is deterministic; bad settings end
# with one error line and exit 2; litmus tests with GPS pages keep every
# fenced outcome legal.
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim "gjacobi"
G="--preset gps --size small --quiet"

expect_exit 2 "$bin" run gjacobi $G --gpus 2 --platform shared
expect_one_error_line
expect_in "$ERR" "gps needs platform.type = discrete or unified"
expect_exit 2 "$bin" run gjacobi $G --gpus 2 --set gps.tlb_entries=30
expect_one_error_line
expect_in "$ERR" "multiple of gps.tlb_ways"
expect_exit 2 "$bin" run gjacobi $G --gpus 2 --set gps.queue_block=96
expect_one_error_line

# Every GPS workload under every paradigm on 2 GPUs, and GPS (automatic
# and manual) on 4 (the sanitizer build: gjacobi only; 16 GPUs:
# tests/cli/gps_study.sh and docs/gps.md).
names="gjacobi gpagerank gsssp gals gct geqwp gdiff ghit"
[ -n "${subset:-}" ] && names=$subset
failed=""
for w in $names; do
    for gp in 2/0 2/1 2/2 2/3 2/4 2/5 4/0 4/1; do
        g=${gp%/*} p=${gp#*/}
        extra=""
        [ $p = 5 ] && extra="--set coherence.protocol=nc --set memory.management=migrate"
        "$bin" run "$w" $G --gpus $g --param paradigm=$p $extra \
            --db "$TMP/r.db" >"$OUT" 2>"$ERR" || failed="$failed $w/$g/$p"
    done
done
[ -z "$failed" ] || fail "did not verify:$failed"

# The HIP hint (include/mgsim/hip_gps.h) from a hipcc-built program; a
# publication lost in its second round breaks its result.
prog="${MGSIM_BUILD:-build/san}/tests/unit/hip/progs/gps_hint"
[ -x "$prog" ] || fail "$prog not built"
MGSIM_PRESET=gps MGSIM_GPUS=2 MGSIM_DB=none MGSIM_QUIET=1 "$prog" >"$OUT" 2>"$ERR" \
    || fail "gps_hint exited $?"
expect_in "$OUT" "gps hint ok"
MGSIM_PRESET=gps MGSIM_GPUS=2 MGSIM_DB=none MGSIM_QUIET=1 \
    MGSIM_SET="gps.test_drop=4500" "$prog" >"$OUT" 2>"$ERR" \
    && fail "gps_hint verified with a publication dropped"

# A lost publication leaves one replica stale: verification fails (exit 1).
expect_exit 1 "$bin" run gjacobi $G --gpus 2 --set gps.test_drop=4000 \
    --db "$TMP/d.db"
expect_in "$ERR" "GPS replica of GPU"

# Statistics of the automatic run: coalescing, publications, subscribers.
expect_exit 0 "$bin" run gjacobi $G --gpus 4 --db "$TMP/s1.db"
val() { sqlite3 "$1" "select sum(value) from metrics where component like '$2' and metric = '$3'"; }
hits=$(val "$TMP/s1.db" 'GPU[%].GPS' wq_hits)
pubs=$(val "$TMP/s1.db" 'GPU[%].GPS' publications)
bytes=$(val "$TMP/s1.db" 'GPU[%].GPS' published_bytes)
[ "${hits%.*}" -gt 0 ] || fail "no write-queue hits ($hits)"
[ "${pubs%.*}" -gt 0 ] || fail "no publications ($pubs)"
# Jacobi writes whole 128-B blocks: each is one message of the block per
# subscriber (partly written blocks would go as 64-B masked pieces).
[ "${bytes%.*}" -eq $((${pubs%.*} * 128)) ] || fail "published bytes $bytes != 128 x $pubs"
mean=$(val "$TMP/s1.db" GPS subscribers_per_page.mean)
awk -v m="$mean" 'BEGIN { exit !(m >= 1 && m < 4) }' \
    || fail "mean subscribers per page $mean not below 4 GPUs"
# Without subscription every page keeps 4 subscribers and publishes more.
expect_exit 0 "$bin" run gjacobi $G --gpus 4 --param paradigm=2 --db "$TMP/s2.db"
pubs2=$(val "$TMP/s2.db" 'GPU[%].GPS' publications)
[ "${pubs2%.*}" -gt "${pubs%.*}" ] || fail "all-to-all published $pubs2 <= $pubs"

# Litmus with x and y in GPS pages (a replica on every GPU): the fenced
# (system-scope) tests never show a forbidden outcome; without fences the
# write queue's reordering shows (MP's stale read, SB).
expect_exit 0 "$bin" litmus all --preset gps --gpus 4 --placement gpu --gps \
    --fences on --iterations 2000
expect_in "$OUT" "ok: no forbidden outcome"
expect_exit 0 "$bin" litmus MP SB --preset gps --gpus 2 --placement gpu --gps \
    --fences off --iterations 2000
grep -q "(forbidden with fences; allowed here)" "$OUT" || fail "no weak outcome"
awk '/allowed here/ && $3 > 0 { n++ } END { exit !(n >= 2) }' "$OUT" \
    || fail "unfenced MP and SB show no reordering across GPUs"

# Deterministic: the same run twice gives identical statistics.
expect_exit 0 "$bin" run gjacobi $G --gpus 4 --db "$TMP/s3.db"
q="select component, metric, value from metrics where component not like 'run' order by 1, 2"
[ "$(sqlite3 "$TMP/s1.db" "$q")" = "$(sqlite3 "$TMP/s3.db" "$q")" ] \
    || fail "two identical runs differ"
echo ok
