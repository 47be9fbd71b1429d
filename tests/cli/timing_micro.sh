#!/bin/bash
# Timing microbenchmarks (workloads/micro, seed 002 §5.2.7) measure the
# configured latencies and bandwidth. Each benchmark reports the slope of
# kernel time over work, which still contains a fixed per-access loop cost
# (address arithmetic, s_waitcnt, instruction fetch after the loop branch);
# so a latency is checked by running two configurations and comparing the
# change in the measurement with the change in the configured value:
#   L1V hit:  l1v.latency 60 -> 100 cycles: +40 ns  +-5%
#   L2 hit:   l2.latency  40 -> 80  cycles: +40 ns  +-5%
#   DRAM:     dram.ctrl_latency +50 (500 MHz, each way): +200 ns +-5%,
#             the mean over base latencies 18, 24 and 30
# and each absolute value must be at least the configured latency. The
# bandwidth benchmark with a deliberately narrow DRAM bus (16 B/cycle x 8
# channels x 500 MHz = 64 GB/s) must reach 80-100% of that peak. The ALU
# chain must cost between 4 (16 lanes, 64/16 cycles) and 8 cycles per
# dependent v_add_f32 (the 1-GHz clock makes ns = cycles).
. "$(dirname "$0")/lib_cli.bash"

measure() {   # measure WORKLOAD [--set ...]: prints the reported number
    local w=$1; shift
    expect_exit 0 "$MGSIM" run "$w" --mode timing --size small -v --quiet \
        --db "$TMP/m.db" "$@"
    sed -n "s/^$w: \([0-9.]*\) .*/\1/p" "$ERR"
}
within() {   # within VALUE LO HI WHAT
    python3 -c "import sys; v,lo,hi=map(float,sys.argv[1:4]); sys.exit(0 if lo <= v <= hi else 1)" \
        "$1" "$2" "$3" || fail "$4: $1 not in [$2, $3]"
}

a=$(measure micro_l1 --set l1v.latency=60)
b=$(measure micro_l1 --set l1v.latency=100)
within "$a" 60 1000 "L1V absolute (latency 60)"
within "$(python3 -c "print($b - $a)")" 38 42 "L1V latency +40"

a=$(measure micro_l2 --set l2.latency=40)
b=$(measure micro_l2 --set l2.latency=80)
within "$a" 40 1000 "L2 absolute (latency 40)"
within "$(python3 -c "print($b - $a)")" 38 42 "L2 latency +40"

# A dependent chase can phase-lock to the refresh period (tREFI): near
# ctrl_latency 68 the time per access stays at 390 ns while the latency
# grows by 2 cycles. So the +200 ns step is the mean of three base points.
a=$(measure micro_dram)
within "$a" 100 2000 "DRAM absolute"
sum=0
for base in 18 24 30; do
    a=$(measure micro_dram --set dram.ctrl_latency=$base)
    b=$(measure micro_dram --set dram.ctrl_latency=$((base + 50)))
    sum=$(python3 -c "print($sum + $b - $a)")
done
within "$(python3 -c "print($sum / 3)")" 190 210 "DRAM latency +200 (mean of 3)"

bw=$(measure micro_bw --set dram.bus_bytes=16)
within "$bw" 51.2 64.0 "DRAM bandwidth (64 GB/s peak)"

alu=$(measure micro_alu)
within "$alu" 4 8 "ALU chain"
echo ok
