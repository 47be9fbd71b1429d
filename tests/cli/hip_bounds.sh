#!/bin/bash
# One bounds rule in both modes (docs/runtime.md): a hipcc program whose
# kernel writes 4 bytes past the end of a hipMalloc, inside its last page
# (tests/unit/hip/progs/past_end.hip). By default it runs, as on ROCm, and
# each launch prints one warning naming kernel, wave, PC and address; with
# sim.strict_bounds = true the first launch faults with one message. Emu
# and timing mode give the same lines.
set -u
prog="${MGSIM_BUILD:-build/san}/tests/unit/hip/progs/past_end"
. "$(dirname "$0")/lib_hip.bash"
[ -x "$prog" ] || fail "$prog not built"

for mode in emu timing; do
    MGSIM_MODE=$mode "$prog" >"$tmp/out.$mode" 2>"$tmp/err.$mode"; rc=$?
    [ "$rc" -eq 0 ] || { cat "$tmp/out.$mode" "$tmp/err.$mode"; fail "$mode: exit $rc, expected 0"; }
    grep -qx "result: hipSuccess" "$tmp/out.$mode" || fail "$mode: kernel did not run"
    grep -qx "0 mismatches" "$tmp/out.$mode" || fail "$mode: wrong values"
    n=$(grep -c '^mgsim: warning: kernel _Z4fillPfi wave (3,0,0)/3 pc 0x[0-9a-f]*: write of 4 bytes past the end of an allocation at address 0x[0-9a-f]*, inside its last page' "$tmp/err.$mode")
    [ "$n" -eq 2 ] || { cat "$tmp/err.$mode"; fail "$mode: $n warnings, expected one per launch (2)"; }
    [ "$(wc -l <"$tmp/err.$mode")" -eq 2 ] || { cat "$tmp/err.$mode"; fail "$mode: other lines on stderr"; }

    MGSIM_MODE=$mode MGSIM_SET=sim.strict_bounds=true "$prog" >"$tmp/sout.$mode" 2>"$tmp/serr.$mode"; rc=$?
    [ "$rc" -eq 1 ] || { cat "$tmp/sout.$mode" "$tmp/serr.$mode"; fail "strict $mode: exit $rc, expected 1"; }
    grep -qx "result: hipErrorIllegalAddress" "$tmp/sout.$mode" || fail "strict $mode: no fault"
    # The fault message without the call that reported it (emu: the
    # launch; timing: the synchronisation).
    grep -o 'kernel _Z4fillPfi wave .*' "$tmp/serr.$mode" >"$tmp/fault.$mode"
    [ "$(wc -l <"$tmp/fault.$mode")" -eq 1 ] || { cat "$tmp/serr.$mode"; fail "strict $mode: expected one fault line"; }
    grep -q 'memory fault at address 0x[0-9a-f]* (write of 4 bytes) (hipErrorIllegalAddress)$' "$tmp/fault.$mode" ||
        { cat "$tmp/fault.$mode"; fail "strict $mode: unexpected fault message"; }
done
cmp -s "$tmp/err.emu" "$tmp/err.timing" ||
    { diff "$tmp/err.emu" "$tmp/err.timing"; fail "emu and timing warn differently"; }
cmp -s "$tmp/fault.emu" "$tmp/fault.timing" ||
    { diff "$tmp/fault.emu" "$tmp/fault.timing"; fail "emu and timing fault differently"; }
# The warning's address is the fault's: the allocation's end.
w=$(grep -o 'at address 0x[0-9a-f]*' "$tmp/err.emu" | head -1)
grep -q "$w" "$tmp/fault.emu" || fail "warning ($w) and fault name different addresses"
echo "hip bounds ok"
