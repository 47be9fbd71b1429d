#!/bin/bash
# The Locality API variants (--param locality=1) end to end: aes, bs, fir,
# km, mm, mt and conv verify on unified 2 and 4 GPUs in emu and timing
# mode; on another platform locality=1 is a usage error (exit 2, one
# line); the Fig. 5.9 study runs at --size small: every point verifies,
# its four figures are written, AES's inter-GPU traffic is 0 and FIR's
# almost 0 with the Locality API, and the API is faster than the unified
# GPU on average.
. "$(dirname "$0")/lib_cli.bash"
unset MGSIM_STUDY_DIR
optimised_mgsim

for w in aes bs fir km mm mt conv; do
    for g in 2 4; do
        for m in emu timing; do
            expect_exit 0 "$bin" run "$w" --mode "$m" --gpus "$g" --platform unified \
                --size small --param locality=1 --db "$TMP/$w.db"
            expect_in "$OUT" "verified       yes"
            rm -f "$TMP/$w.db"
        done
    done
done

expect_exit 2 "$bin" run fir --mode timing --gpus 2 --platform discrete --size small \
    --param locality=1 --db "$TMP/d.db"
expect_one_error_line
expect_in "$ERR" "needs a unified GPU (--platform unified)"
expect_exit 2 "$bin" run fir --mode emu --gpus 2 --platform unified --size small \
    --param locality=3 --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "locality must be 0 or 1"

O=$TMP/fig59
"$bin" study pasi-fig5.9 --size small --out "$O" -j 2 --quiet >"$OUT" 2>"$ERR" \
    || fail "study pasi-fig5.9 exited $?"
expect_in "$OUT" "35 points: 35 run, 0 reused, 0 failed, 0 missing"
for f in pasi-fig5.9 pasi-fig5.9-traffic pasi-fig5.9-vs-unified pasi-fig5.9-vs-contiguous; do
    [ -s "$O/$f.png" ] && [ -s "$O/$f.csv" ] && [ -s "$O/$f-figure.csv" ] || fail "$f outputs"
done
/usr/bin/python3 - "$O" <<'PY' || fail "Fig. 5.9 values"
import csv, sys
d = sys.argv[1]
traffic = {r['x']: float(r['value']) for r in csv.DictReader(open(d + '/pasi-fig5.9-traffic-figure.csv'))}
assert traffic['aes'] == 0, traffic
assert traffic['fir'] < 0.05, traffic
vs = {r['x']: float(r['value']) for r in csv.DictReader(open(d + '/pasi-fig5.9-vs-unified-figure.csv'))}
assert vs['geomean'] > 1.2, vs
PY
expect_in "$O/report.md" "inter-GPU traffic normalised to unified"
echo ok
