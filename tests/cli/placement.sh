#!/bin/bash
# platform.placement end to end: a unified 2-GPU timing run of mm (small)
# verifies with both policies, and contiguous placement (each GPU's
# work-group chunk finds its rows local) is faster than page interleaving
# (measured 27.9 us vs 47.6 us); an unknown policy is a config error (2).
. "$(dirname "$0")/lib_cli.bash"

sim_us() {  # the "simulated time" of the summary, in us
    awk '/simulated time/ { v = $3; if ($4 == "ms") v *= 1000; print v }' "$OUT"
}
common=(run mm --mode timing --gpus 2 --platform unified --size small)

expect_exit 0 "$MGSIM" "${common[@]}" --set platform.placement=interleaved --db "$TMP/i.db"
expect_in "$OUT" "verified       yes"
t_inter=$(sim_us)
expect_exit 0 "$MGSIM" "${common[@]}" --set platform.placement=contiguous --db "$TMP/c.db"
expect_in "$OUT" "verified       yes"
t_cont=$(sim_us)
awk -v a="$t_cont" -v b="$t_inter" 'BEGIN { exit !(a > 0 && a < b) }' \
    || fail "contiguous ($t_cont us) not faster than interleaved ($t_inter us)"

expect_exit 2 "$MGSIM" "${common[@]}" --set platform.placement=random --db "$TMP/x.db"
expect_one_error_line
expect_in "$ERR" "placement"
echo ok
