#!/bin/bash
# The MGPUSim validation runner (workloads/mgpusim/, studies/
# validate-mgpusim*.ini, docs/validation.md):
#  - the mgpusim_* workloads are listed apart and left out of the suite's
#    workload list (the all-workload tests do not run them);
#  - without MGPUSim's files they stop with one error line, exit 2;
#  - with them (../shared/validation/mgpusim, or $MGSIM_MGPUSIM_DIR): every
#    kernel verifies against its CPU reference in emu and timing mode at
#    small size, counting the same wavefront instructions in both, and at
#    MGPUSim's sizes counts exactly MGPUSim's wavefront instructions (emu);
#  - `mgsim study validate-mgpusim --size small --kernels DIR` runs and
#    writes its report with MGPUSim's column; the variants with MGPUSim
#    v4.0.0's memory parameters walk pages at the shared IOMMU and give
#    16 DRAM channels 64 B per cycle; every point has MGPUSim's L2
#    throughput (cause 10) and launches as MGPUSim's driver does, over its
#    ideal PCIe links (cause 11). Skipped (as passing) when
#    the files are absent.
. "$(dirname "$0")/lib_cli.bash"
optimised_mgsim
DIR=$(mgpusim_dir)
unset MGSIM_MGPUSIM_DIR

expect_exit 0 "$bin" list workloads
names=$(awk '/^  [a-z][a-z0-9_]* /{print $1}' "$OUT")
echo "$names" | grep -q mgpusim && fail "mgpusim_* in the suite's list"
expect_in "$OUT" "validation workloads"
expect_in "$OUT" "    mgpusim_fir"

expect_exit 2 "$bin" run mgpusim_fir --mode emu --size small --db "$TMP/r.db"
expect_one_error_line
expect_in "$ERR" "set MGSIM_MGPUSIM_DIR"

if [ -z "$DIR" ]; then
    echo "skip: MGPUSim's code objects not found (set MGSIM_MGPUSIM_DIR)"
    exit 0
fi
export MGSIM_MGPUSIM_DIR=$DIR
# Discrete multi-GPU is refused (MGPUSim's unified mode is in place).
expect_exit 2 "$bin" run mgpusim_fir --mode emu --size small --gpus 2 \
    --platform discrete --db "$TMP/r.db"
expect_one_error_line
expect_in "$ERR" "not discrete"

insts() { sed -n 's/.*"wf_insts": *\([0-9]*\).*/\1/p' "$OUT"; }
for w in fir relu mt bs mm; do
    n=""
    for mode in emu timing; do
        expect_exit 0 "$bin" run "mgpusim_$w" --mode "$mode" --size small \
            --json --db "$TMP/r.db"
        [ -z "$n" ] || [ "$(insts)" = "$n" ] ||
            fail "mgpusim_$w: $(insts) wavefront instructions in timing, $n in emu"
        n=$(insts)
    done
    echo "ok mgpusim_$w small: $n wavefront instructions, emu and timing"
done
# MGPUSim's sizes (the workloads' defaults) and MGPUSim's counts.
for pair in fir:401408 relu:110592 mt:37376 bs:122304 mm:569472; do
    w=${pair%%:*}
    expect_exit 0 "$bin" run "mgpusim_$w" --mode emu --json --db "$TMP/r.db"
    [ "$(insts)" = "${pair#*:}" ] ||
        fail "mgpusim_$w: $(insts) wavefront instructions, MGPUSim ${pair#*:}"
done
echo "ok wavefront instructions equal MGPUSim's for all five kernels"

# MGPUSim v4.0.0's parameters (docs/validation.md, "Translations over
# PCIe"): every point with its 16 L2 banks also walks pages at the one
# IOMMU behind PCIe and keeps 512 GB/s of DRAM over 16 channels; and every
# point gives the L2 MGPUSim's throughput (cause 10): 16 requests per bank
# and cycle, merged misses without a small limit, 16 messages per crossbar
# port and cycle.
for s in validate-mgpusim validate-mgpusim-4gpu validate-mgpusim-4gpu-cu; do
    expect_exit 0 "$bin" study "$s" --dry-run --kernels "$DIR"
    n=$(grep -c -- "--set gpu.l2_banks=16 " "$OUT")
    m=$(grep -- "--set gpu.l2_banks=16 " "$OUT" |
        grep -- "--set mmu.shared_iommu=true " |
        grep -c -- "--set dram.bus_bytes=64 ")
    [ "$n" -gt 0 ] && [ "$n" = "$m" ] ||
        fail "$s: $m of $n MGPUSim-parameter points with the IOMMU and 64-B DRAM bus"
    n=$(grep -c -- "--set " "$OUT")
    m=$(grep -- "--set l2.requests_per_cycle=16 " "$OUT" |
        grep -- "--set l2.mshr_targets=64 " |
        grep -c -- "--set xbar.messages_per_cycle=16")
    [ "$n" = "$m" ] || fail "$s: $m of $n points with MGPUSim's L2 throughput"
    m=$(grep -- "--set cp.launch_code=every " "$OUT" |
        grep -- "--set cp.launch_buffers=keep " |
        grep -c -- "--set platform.pcie_link_latency=1ns")
    [ "$n" = "$m" ] ||
        fail "$s: $m of $n points launch as MGPUSim's driver over ideal PCIe links"
done
echo "ok the MGPUSim-parameter variants walk at the IOMMU, 512 GB/s DRAM"
echo "ok every point has MGPUSim's L2 throughput"
echo "ok every point launches as MGPUSim's driver, over ideal PCIe links"

# The three keys reach the L2 and the crossbar: mmmKernel_local (all CUs
# read the same lines at once; 128 B interleave puts a load's 16 lines of A
# in one bank) changes with each of them and runs over 20 % faster with all
# three (102.4 -> 73.4 us when written).
mm_ps() {
    expect_exit 0 "$bin" run mgpusim_mm --mode timing --preset r9nano \
        --set gpu.issue_model=mgpusim --set l2.interleave=128B "$@" \
        --json --db "$TMP/r.db"
    sed -n 's/.*"sim_time_ps": *\([0-9]*\).*/\1/p' "$OUT"
}
base=$(mm_ps)
for k in l2.requests_per_cycle=16 xbar.messages_per_cycle=16 l2.mshr_targets=64; do
    [ "$(mm_ps --set "$k")" != "$base" ] || fail "mgpusim_mm: $k changes nothing"
done
all=$(mm_ps --set l2.requests_per_cycle=16 --set xbar.messages_per_cycle=16 \
    --set l2.mshr_targets=64)
[ $((all * 10)) -lt $((base * 8)) ] ||
    fail "mgpusim_mm: $all ps with MGPUSim's L2 throughput, $base ps without"
echo "ok MGPUSim's L2 throughput: mgpusim_mm $base -> $all ps"

expect_exit 0 "$bin" study validate-mgpusim --size small --kernels "$DIR" \
    --out "$TMP/study" --quiet -j 2
expect_in "$TMP/study/report.md" "| r9nano mgpusim_mt | 1.54e+07 |"
expect_in "$TMP/study/report.md" "--kernels $DIR"
[ -s "$TMP/study/validate-mgpusim.png" ] || fail "no figure"
expect_exit 2 "$bin" study validate-mgpusim --kernels "$TMP/nosuch"
expect_one_error_line
echo ok
