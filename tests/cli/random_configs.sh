#!/bin/bash
# Random-configuration campaign, fixed seed list (issue 17): every drawn
# in-range configuration runs to exit 0, or ends with one error line and
# exit 2/3 (recorded when the simulation started); no abort, no sanitizer
# report, no run past the time limit. Deep runs:
#   scripts/random_configs.py --long 2000 -j 2
. "$(dirname "$0")/lib_cli.bash"
# Seeds 21516 (a 1 s link of unbounded bandwidth: gigabytes of link
# credits), 21582 and 21583 (a launch that failed, then cleanup simulated on
# with work of the failed launch still in the components) were findings of
# the 2,000-configuration run 20000-21999.
python3 "$(dirname "$0")/../../scripts/random_configs.py" --mgsim "$MGSIM" \
    --seeds "${RANDOM_CONFIG_SEEDS:-1-30,21516,21582,21583}" \
    --timeout 600 -v >"$OUT" 2>"$ERR"
rc=$?
cat "$OUT"
[ "$rc" -eq 0 ] || fail "random configurations found problems"
echo ok
