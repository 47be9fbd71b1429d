#!/bin/bash
# The HIP examples (examples/hip/*.hip, compiled by hipcc and linked
# against libmgsim-hip by mk/hip.mk) run unmodified and match their CPU
# references: vecadd and managed on one GPU, halo on 1, 2 and 4 GPUs,
# globals (device variables and constant tables) in emu and timing,
# occupancy (the occupancy API against the configured CU), zerocopy
# (pinned and registered host memory used by kernels), pitched (2-D/3-D),
# managed and managed_turns (one buffer touched by every GPU in turn) under
# page migration on 1, 2 and 4 GPUs, printf (device printf through the
# hostcall buffer, emu and timing), and that docs/hip.md's static link
# line, copied as it stands, links a program that runs. Also
# checks the exit summary, the results database row, and that a bad
# MGSIM_* setting ends with one clear line instead of a crash.
set -u
ex="${MGSIM_BUILD:-build/san}/examples/hip"
. "$(dirname "$0")/lib_hip.bash"

for p in vecadd managed managed_turns halo globals occupancy zerocopy pitched printf; do
    [ -x "$ex/$p" ] || fail "$ex/$p not built (make test builds it via mk/hip.mk)"
done

run 0 "$ex/vecadd"
expect_out "gfx803"
expect_out "64 CUs, 1000 MHz"
expect_out "c\[0\]=1000 c\[n-1\]=-31767.5"
expect_out "^PASSED$"
run 0 "$ex/vecadd" 1000
expect_out "n=1000,"
expect_out "^PASSED$"
# The same program linked against libmgsim-hip.so.
if [ -x "$ex/vecadd-shared" ]; then
    run 0 "$ex/vecadd-shared" 1000
    expect_out "^PASSED$"
else
    fail "$ex/vecadd-shared not built"
fi
# The static link line of docs/hip.md's quick start, as a user copies it,
# links (every library the archive needs is on it) and runs.
line=$(grep -m1 '^g++ prog.o build-me/libmgsim-hip.a ' docs/hip.md)
[ -n "$line" ] || fail "docs/hip.md has no static link line"
libs=${line#g++ prog.o build-me/libmgsim-hip.a }
libs=${libs% -o prog}
san=""
case "$ex" in */san/*) san="-fsanitize=address,undefined" ;; esac
# shellcheck disable=SC2086 # libs is a list of flags
g++ $san -o "$tmp/doclink" "$ex/vecadd.o" "${ex%/examples/hip}/libmgsim-hip.a" \
    $libs 2>"$tmp/err" || { cat "$tmp/err"; fail "docs/hip.md's static link line does not link"; }
run 0 "$tmp/doclink" 1000
expect_out "^PASSED$"

run 0 "$ex/managed"
expect_out "y\[1\]=3.5 y\[n-1\]=135.5"
expect_out "^PASSED$"

for g in 1 2 4; do
    MGSIM_GPUS=$g run 0 "$ex/halo" 4096 6
    expect_out "devices=$g "
    expect_out "^PASSED$"
    # Same answer whatever the split.
    grep -o 'checksum=[0-9.]*' "$tmp/out" >"$tmp/sum.$g"
done
cmp -s "$tmp/sum.1" "$tmp/sum.2" && cmp -s "$tmp/sum.1" "$tmp/sum.4" ||
    fail "halo checksums differ across GPU counts"

# The unified platform shows one device spanning the GPUs; timing mode
# computes the same answers.
MGSIM_PLATFORM=unified MGSIM_GPUS=2 run 0 "$ex/vecadd" 4096
expect_out "R9 Nano x2 (mgsim, unified) (gfx803), 128 CUs"
expect_out "^PASSED$"
MGSIM_PLATFORM=unified MGSIM_GPUS=2 run 0 "$ex/halo" 1024 3
expect_out "devices=1 "
expect_out "^PASSED$"
MGSIM_MODE=timing run 0 "$ex/managed" 2048
expect_out "^PASSED$"
# Events time copies too: 64 KiB back over PCIe takes microseconds.
MGSIM_MODE=timing run 0 "$ex/vecadd" 16384
expect_out "^PASSED$"
copy_ms=$(sed -n 's/.*copy back \([0-9.]*\) ms.*/\1/p' "$tmp/out")
python3 -c "import sys; sys.exit(0 if 0.001 < float('$copy_ms') < 1 else 1)" ||
    fail "hipEventElapsedTime around a 64 KiB hipMemcpy: '$copy_ms' ms"

# Managed memory under page migration (docs/memory-management.md): the
# pages start on the host and move to each GPU that touches them.
MIG="memory.management=migrate"
MGSIM_MODE=timing MGSIM_SET=$MIG run 0 "$ex/managed" 2048
expect_out "^PASSED$"
MGSIM_PLATFORM=unified MGSIM_GPUS=2 MGSIM_MODE=timing MGSIM_SET=$MIG \
    run 0 "$ex/managed" 4096
expect_out "^PASSED$"
for g in 1 2 4; do
    MGSIM_GPUS=$g MGSIM_MODE=timing MGSIM_SET=$MIG MGSIM_DB="$tmp/t$g.db" \
        run 0 "$ex/managed_turns" 8192 2
    expect_out "devices=$g rounds=2 v\[n-1\]="
    expect_out "^PASSED$"
done
if command -v sqlite3 >/dev/null; then
    # 8 pages, each GPU in turn, twice: every touch after the first moves.
    moves=$(sqlite3 "$tmp/t4.db" "select value from metrics where component='UM.Migrator' and metric='migrations'")
    [ "$moves" = "62.0" ] || fail "managed_turns on 4 GPUs: $moves migrations, expected 62"
fi
MGSIM_GPUS=4 run 0 "$ex/managed_turns"
expect_out "^PASSED$"

# Global data (docs/codeobj.md "Data segments"): a kernel-local constant
# table, __constant__ set by hipMemcpyToSymbol, relocated __device__
# pointers, one copy per device; emu and timing, 1 and 2 devices, unified.
run 0 "$ex/globals"
expect_out "device 0: offsets 12 bytes, out\[1\]=17 out\[n-1\]=35, counter=16 (expected 16), 0 mismatches"
expect_out "^PASSED$"
for mode in emu timing; do
    MGSIM_MODE=$mode MGSIM_GPUS=2 run 0 "$ex/globals" 1000
    expect_out "device 1: offsets 12 bytes, out\[1\]=20 out\[n-1\]=42, counter=4 (expected 4), 0 mismatches"
    expect_out "^PASSED$"
done
MGSIM_MODE=timing MGSIM_PLATFORM=unified MGSIM_GPUS=2 run 0 "$ex/globals" 1000
expect_out "^PASSED$"

# Occupancy from the kernel's resources and the CU the timing model
# places work-groups on (4 waves per group, 40 wave slots, 64 KiB LDS).
for mode in emu timing; do
    MGSIM_MODE=$mode run 0 "$ex/occupancy"
    expect_out "block 256, 16 B dynamic LDS: 10 work-groups per CU"
    expect_out "block 256, 16384 B dynamic LDS: 3 work-groups per CU"
    expect_out "suggested: grid 640, block 256"
    expect_out "^PASSED$"
done
# A CU with fewer wave slots holds fewer work-groups.
MGSIM_SET="gpu.wf_slots_per_simd=4" run 0 "$ex/occupancy"
expect_out "block 256, 16 B dynamic LDS: 4 work-groups per CU"

# Zero-copy host memory: hipHostMalloc(mapped) + hipHostGetDevicePointer,
# hipHostRegister on malloc'd memory; no copies, results read after a sync.
run 0 "$ex/zerocopy"
expect_out "n=65536 flags=0x2 y\[1\]=100 y\[n-1\]=1115, 0 mismatches"
MGSIM_MODE=timing MGSIM_GPUS=2 MGSIM_PLATFORM=unified run 0 "$ex/zerocopy" 4096
expect_out "^PASSED$"
# Timing mode (memory.zero_copy = host_link, the default): the kernels
# reach the buffers in host frames over the host link (the RDMA engine's
# host counters; one GPU gets an engine for it), take far longer than on a
# device shadow (memory.zero_copy = device), and the launch / synchronise
# copies cost nothing; same values on 1 and 2 GPUs.
if command -v sqlite3 >/dev/null; then
    for g in 1 2; do
        for zc in host_link device; do
            MGSIM_MODE=timing MGSIM_GPUS=$g MGSIM_SET=memory.zero_copy=$zc \
                MGSIM_DB="$tmp/zc$g$zc.db" run 0 "$ex/zerocopy" 16384
            expect_out "y\[1\]=100 y\[n-1\]=1064, 0 mismatches"
            expect_out "^PASSED$"
        done
        q() { sqlite3 "$tmp/zc$g$1.db" "$2"; }
        parts=$(q host_link "select sum(value) from metrics where component like 'GPU[%].RDMA' and metric='host_parts'")
        bytes=$(q host_link "select sum(value) from metrics where component like 'GPU[%].RDMA' and metric='host_bytes_in'")
        none=$(q device "select count(*) from metrics where metric='host_parts'")
        kh=$(q host_link "select sum(value) from metrics where metric='kernel_time'")
        kd=$(q device "select sum(value) from metrics where metric='kernel_time'")
        # 2 rounds read x and y (64 KiB each) from host memory: 256 KiB in.
        python3 -c "import sys; sys.exit(0 if float('${parts:-0}') > 0 and float('${bytes:-0}') >= 262144 and '$none' == '0' and float('$kh') > 4 * float('$kd') > 0 else 1)" ||
            fail "zero-copy on $g GPU(s): host_parts=$parts host_bytes_in=$bytes (device run: $none host counters), kernel time $kh ps vs $kd ps on a device shadow"
    done
fi

# Device printf (docs/hip.md "Device printf"): every line once, printf's
# return values checked by the program, the same lines in both modes (in
# the order the waves call: timing runs both work-groups at once).
for mode in emu timing; do
    MGSIM_MODE=$mode run 0 "$ex/printf" 256
    expect_out "^PASSED: 512 lines$"
    expect_out '^group 1 item 255: 127.75 1099511628287 2fe ` odd|  -511|0.002$'
    expect_out "^device  100% 0x1234$"
    grep -a '^group' "$tmp/out" | LC_ALL=C sort >"$tmp/lines.$mode"
done
cmp -s "$tmp/lines.emu" "$tmp/lines.timing" || fail "printf: emu and timing printed different lines"
[ "$(wc -l <"$tmp/lines.emu")" -eq 512 ] || fail "printf: $(wc -l <"$tmp/lines.emu") lines, expected 512"
MGSIM_MODE=timing MGSIM_PLATFORM=unified MGSIM_GPUS=2 run 0 "$ex/printf" 100
expect_out "^PASSED: 200 lines$"

# Pitched 2-D and 3-D memory: rows padded to 256 bytes, copies by row.
run 0 "$ex/pitched"
expect_out "2-D: 100 x 37, pitch 512 bytes, 0 mismatches"
expect_out "3-D: 100 x 37 x 5, pitch 512 bytes, 0 mismatches"
MGSIM_MODE=timing run 0 "$ex/pitched" 70 9 3
expect_out "^PASSED$"

# Emu mode has no time model: events carry an estimate, never 0 across a
# kernel or a copy (docs/hip.md "Time in emu mode"), and the exit summary
# says so.
MGSIM_QUIET=0 run 0 "$ex/vecadd" 65536
kern_ms=$(sed -n 's/.*kernel \([0-9.]*\) ms.*/\1/p' "$tmp/out")
copy_ms=$(sed -n 's/.*copy back \([0-9.]*\) ms.*/\1/p' "$tmp/out")
python3 -c "import sys; k, c = float('$kern_ms'), float('$copy_ms'); sys.exit(0 if 0 < k < 1 and 0 < c < 1 else 1)" ||
    fail "emu event times: kernel '$kern_ms' ms, copy '$copy_ms' ms"
grep -q "estimated time .* (emu mode: event times are estimates" "$tmp/err" ||
    { cat "$tmp/err"; fail "no estimate in the emu exit summary"; }

# Exit summary and results database (one run with the hip counters).
MGSIM_QUIET=0 MGSIM_DB="$tmp/r.db" run 0 "$ex/vecadd" 512
grep -q "^mgsim-hip: vecadd: emu mode, 1 GPU(s), 1 kernels, 2 work-groups" "$tmp/err" ||
    { cat "$tmp/err"; fail "no exit summary"; }
if command -v sqlite3 >/dev/null; then
    rows=$(sqlite3 "$tmp/r.db" "select workload, (select value from metrics where metric='launches') from runs")
    [ "$rows" = "hip:vecadd|1.0" ] || fail "database row: '$rows'"
    wg=$(sqlite3 "$tmp/r.db" "select value from metrics where component='hip.GPU[0]' and metric='workgroups'")
    [ "$wg" = "2.0" ] || fail "GPU[0] work-groups: '$wg'"
fi

# Configuration errors: one line naming the variable; the program's own
# error handling then exits (vecadd: 2).
MGSIM_GPUS=lots run 2 "$ex/vecadd"
grep -q "^mgsim-hip: error: .*MGSIM_GPUS" "$tmp/err" || { cat "$tmp/err"; fail "no MGSIM_GPUS error"; }
[ "$(grep -c '^mgsim-hip' "$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "more than one mgsim-hip line"; }
MGSIM_MODE=warp run 2 "$ex/vecadd"
grep -q "MGSIM_MODE" "$tmp/err" || fail "no MGSIM_MODE error"
echo "hip examples ok"
