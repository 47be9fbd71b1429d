#!/bin/bash
# MGPUSim v4.0.0's launch path as options (docs/validation.md, cause 11),
# on mgsim's bs (78 launches of one small kernel, launch_tlb_shootdown =
# changed):
#  - cp.launch_code = every uploads the code again for every launch, on
#    fresh pages: one page walk more per launch (the code page) than
#    `once`, the default, and the results stay right;
#  - cp.launch_buffers = keep never frees a launch's buffers, so no
#    mapping changes and no TLB shoot-down at any launch (`free`, the
#    default, shoots down each launch's freed argument pages);
#  - platform.pcie_link_latency = 1ns (MGPUSim's ideal PCIe links) makes
#    every translation across PCIe (mmu.shared_iommu) 6 x 19 ns shorter:
#    at least 100 ns per launch;
#  - bad values end with one error line and exit 2.
. "$(dirname "$0")/lib_cli.bash"

# Sum of metric $2 over components like $3 in the last run of database $1.
metric() {
    python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); \
print(int(d.execute('select sum(value) from metrics where metric = ? \
and component like ? and run_id = (select max(run_id) from metrics)', \
(sys.argv[2], sys.argv[3])).fetchone()[0]))" "$1" "$2" "$3"
}

bs() {   # $1 = database, then --set options
    local db=$1
    shift
    expect_exit 0 "$MGSIM" run bs --mode timing --size small --quiet \
        --db "$db" --set cp.launch_tlb_shootdown=changed "$@"
}

bs "$TMP/once.db"
bs "$TMP/every.db" --set cp.launch_code=every
bs "$TMP/keep.db" --set cp.launch_code=every --set cp.launch_buffers=keep
w1=$(metric "$TMP/once.db" walks %MMU)
w2=$(metric "$TMP/every.db" walks %MMU)
w3=$(metric "$TMP/keep.db" walks %MMU)
k=$(metric "$TMP/once.db" kernels %CP)
# 78 launches (k counts the run's final flush too): a code page each.
[ $((w2 - w1)) -ge $((k - 2)) ] && [ $((w2 - w1)) -le $((k + 8)) ] &&
    [ $((w3 - w1)) -ge $((k - 2)) ] ||
    fail "page walks of bs: once $w1, every $w2, every + keep $w3 ($k kernels)"
s1=$(metric "$TMP/every.db" shootdowns %L2TLB%)
s2=$(metric "$TMP/keep.db" shootdowns %L2TLB%)
[ "$s1" -gt 0 ] && [ "$s2" = 0 ] ||
    fail "L2 TLB shoot-downs of bs: free $s1, keep $s2"
echo "ok walks $w1 / $w2 / $w3, shoot-downs $s1 / $s2"

bs "$TMP/l20.db" --set mmu.shared_iommu=true
bs "$TMP/l1.db" --set mmu.shared_iommu=true --set platform.pcie_link_latency=1ns
t20=$(metric "$TMP/l20.db" kernel_time %CP)
t1=$(metric "$TMP/l1.db" kernel_time %CP)
[ $((t20 - t1)) -ge $(((k - 1) * 100000)) ] ||
    fail "kernel time of bs with the IOMMU: $t20 ps with 20 ns links, $t1 ps with 1 ns"
echo "ok PCIe links of 20 ns -> 1 ns: $t20 -> $t1 ps"

for kv in cp.launch_code=twice cp.launch_buffers=leak \
    platform.pcie_link_latency=0ns; do
    expect_exit 2 "$MGSIM" run bs --mode timing --size small --quiet \
        --db "$TMP/e.db" --set "$kv"
    expect_one_error_line
    key=${kv%%=*}
    expect_in "$ERR" "${key#*.}"
done
echo ok
