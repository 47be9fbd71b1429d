#!/bin/bash
# cp.launch_tlb_shootdown (docs/validation.md, cause 8): with `changed` a
# launch drops only the TLB entries of pages unmapped or remapped since the
# GPU's previous launch (here each launch's freed arguments), so the 78
# launches of bs walk the page table about twice per launch instead of
# for every page every launch (`all`, the default); the results stay
# right, also when pages move between launches (memory.management =
# migrate on 2 GPUs); a bad value ends with one error line and exit 2.
. "$(dirname "$0")/lib_cli.bash"

# Page walks of the last run in database $1 (every walker or the IOMMU).
walks() {
    python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); \
print(int(d.execute('select sum(value) from metrics where metric = \"walks\" \
and component like \"%MMU\" and run_id = (select max(run_id) from \
metrics)').fetchone()[0]))" "$1"
}

expect_exit 0 "$MGSIM" run bs --mode timing --size small --quiet \
    --db "$TMP/all.db"
wall=$(walks "$TMP/all.db")
expect_exit 0 "$MGSIM" run bs --mode timing --size small --quiet \
    --db "$TMP/changed.db" --set cp.launch_tlb_shootdown=changed
wchanged=$(walks "$TMP/changed.db")
# 78 launches: two fresh argument pages each (kernarg, dispatch packet)
# and the first touches of code and data.
[ "$wchanged" -ge 156 ] && [ "$wchanged" -le 200 ] && [ "$wall" -gt 400 ] ||
    fail "page walks of bs: all $wall, changed $wchanged"

# Pages moving between the GPUs between launches are shot down.
expect_exit 0 "$MGSIM" run mm --mode timing --size small --quiet --gpus 2 \
    --platform unified --db "$TMP/m.db" --set memory.management=migrate \
    --set cp.launch_tlb_shootdown=changed

expect_exit 2 "$MGSIM" run bs --mode timing --size small --quiet \
    --db "$TMP/e.db" --set cp.launch_tlb_shootdown=some
expect_one_error_line
expect_in "$ERR" "launch_tlb_shootdown"
echo ok
