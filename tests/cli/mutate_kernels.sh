#!/bin/bash
# Mutated-kernel campaign, fixed seed list (issue 17): code objects with
# flipped bits run in emu and timing mode end with exit 0/1 or one error
# line and exit 2/3; no crash, no sanitizer report, no hang. Deep runs:
#   scripts/mutate_kernels.py --long 1000 -j 2
. "$(dirname "$0")/lib_cli.bash"
python3 "$(dirname "$0")/../../scripts/mutate_kernels.py" --mgsim "$MGSIM" \
    --seeds "${MUTATE_KERNEL_SEEDS:-1-20,45}" --timeout 600 -v \
    >"$OUT" 2>"$ERR"
rc=$?
cat "$OUT"
[ "$rc" -eq 0 ] || fail "mutated kernels found problems"
echo ok
