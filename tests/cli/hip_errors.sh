#!/bin/bash
# Invalid and unsupported HIP calls made by an ordinary hipcc-compiled
# program (tests/unit/hip/progs/bad_calls.hip) return the proper HIP error
# code and print exactly one line naming the call; nothing crashes (the
# program is built with the sanitizers under `make test`).
set -u
prog="${MGSIM_BUILD:-build/san}/tests/unit/hip/progs/bad_calls"
. "$(dirname "$0")/lib_hip.bash"
[ -x "$prog" ] || fail "$prog not built"

# scenario, expected HIP error name, call named on stderr
check() {
    "$prog" "$1" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" -eq 3 ] || { cat "$tmp/out" "$tmp/err"; fail "$1: exit $rc, expected 3"; }
    grep -qx "$1: $2" "$tmp/out" || { cat "$tmp/out"; fail "$1: expected $2"; }
    n=$(grep -c '^mgsim-hip: ' "$tmp/err")
    [ "$n" -eq 1 ] || { cat "$tmp/err"; fail "$1: $n runtime lines, expected 1"; }
    grep -q "^mgsim-hip: $3: .*($2)\$" "$tmp/err" || { cat "$tmp/err"; fail "$1: line does not name $3"; }
}
check kind    hipErrorInvalidMemcpyDirection hipMemcpy
check wildptr hipErrorInvalidValue           hipMemcpy
check block   hipErrorInvalidConfiguration   hipLaunchKernel
check fault   hipErrorIllegalAddress         hipLaunchKernel
check peer    hipErrorInvalidDevice          hipDeviceEnablePeerAccess
check attr    hipErrorNotSupported           hipDeviceGetAttribute
check oom     hipErrorOutOfMemory            hipMalloc
check free    hipErrorInvalidValue           hipFree
check symbol  hipErrorInvalidSymbol          hipMemcpyToSymbol
check prefetch hipErrorInvalidValue          hipMemPrefetchAsync
check advise  hipErrorInvalidValue           hipMemAdvise
check unregister hipErrorHostMemoryNotRegistered hipHostUnregister
check pitch   hipErrorInvalidPitchValue      hipMemcpy2D
check occupancy hipErrorInvalidValue         hipOccupancyMaxActiveBlocksPerMultiprocessor
# A kernel's fault in timing mode: one line, although the later calls that
# copy managed memory back (each hipFree, the last synchronisation) fail too.
MGSIM_MODE=timing check structfault hipErrorIllegalAddress synchronize
check structfault hipErrorIllegalAddress   hipLaunchKernel
"$prog" >/dev/null 2>&1; [ $? -eq 2 ] || fail "usage error"
echo "hip errors ok"
