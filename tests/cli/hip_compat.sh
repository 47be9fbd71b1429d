#!/bin/bash
# Behaviour published HIP programs rely on (tests/unit/hip/progs, built by
# mk/hip.mk), each once wrong in libmgsim-hip:
#   stream_kernel  timing mode counts a kernel on a created stream as
#                  kernel time (the summary once said "0.000 us kernels");
#   memcpy_kinds   a copy's direction comes from its pointers whatever the
#                  hipMemcpyKind says (ROCm 5.2), the other checks stay, and
#                  a second free says the memory was already freed;
#   device_attrs   hipDeviceGetAttribute gives what hipDeviceProp_t says;
#   device_assert  a failing device assert() is hipErrorAssert with one
#                  line naming the kernel, emu and timing alike;
#   api_extras     hipDeviceGet, hipCtxCreate/Destroy, hipFuncGetAttribute,
#                  hipLaunchCooperativeKernel link and work.
set -u
progs="${MGSIM_BUILD:-build/san}/tests/unit/hip/progs"
kdir="${MGSIM_KERNEL_DIR:-build/kernels}"
. "$(dirname "$0")/lib_hip.bash"
for p in stream_kernel memcpy_kinds device_attrs device_assert api_extras; do
    [ -x "$progs/$p" ] || fail "$progs/$p not built (make test builds it via mk/hip.mk)"
done

# 1. A created stream's kernel is kernel time in the summary and the
#    database (hip.sim_time > 0).
MGSIM_QUIET=0 MGSIM_MODE=timing MGSIM_DB="$tmp/s.db" run 0 "$progs/stream_kernel"
expect_out "^PASSED$"
expect_err "1 kernels"
grep -q "simulated time 0.000 us kernels" "$tmp/err" &&
    { cat "$tmp/err"; fail "a stream's kernel counted as copy time"; }
t=$(sqlite3 "$tmp/s.db" "select value from metrics where component = 'hip' and metric = 'sim_time'")
[ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t > 0) }' ||
    fail "hip.sim_time is '$t', expected > 0"

# 2. Copy directions from the pointers.
for m in emu timing; do
    MGSIM_MODE=$m run 0 "$progs/memcpy_kinds"
    expect_out "^PASSED$"
    expect_err "hipHostFree: 0x[0-9a-f]* was already freed (hipErrorInvalidValue)"
    expect_err "is a device address outside every allocation"
done

# 3. Attributes.
run 0 "$progs/device_attrs"
expect_out "^PASSED$"

# 4. Device assert: the assertion's own message, then one line naming the
#    kernel; the same kernel count in emu and timing.
for m in emu timing; do
    MGSIM_QUIET=0 MGSIM_MODE=$m run 0 "$progs/device_assert"
    expect_out "^PASSED$"
    expect_err "Device-side assertion \`gid < n' failed"
    n=$(grep -c "^mgsim-hip: .*device-side assertion failed" "$tmp/err")
    [ "$n" -eq 1 ] || { cat "$tmp/err"; fail "$m: $n assertion lines, expected 1"; }
    expect_err "^mgsim-hip: [a-zA-Z]*: kernel _Z7boundedi wave (0,0,0)/0 pc 0x[0-9a-f]*: device-side assertion failed (s_trap 2) (hipErrorAssert)$"
    grep -q "unsupported instruction" "$tmp/err" && fail "$m: s_trap 2 unsupported"
    grep -o "[0-9][0-9]* kernels," "$tmp/err" >"$tmp/kernels.$m"
done
cmp -s "$tmp/kernels.emu" "$tmp/kernels.timing" ||
    fail "kernel counts differ: emu $(cat "$tmp/kernels.emu"), timing $(cat "$tmp/kernels.timing")"

# 5. The calls that once did not link.
for m in emu timing; do
    MGSIM_MODE=$m run 0 "$progs/api_extras" "$kdir/vecadd.hsaco"
    expect_out "^PASSED$"
    expect_err "hipLaunchCooperativeKernel: kernel _Z4markPi: .* (hipErrorCooperativeLaunchTooLarge)"
done
echo "hip compat ok"
