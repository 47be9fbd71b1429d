#!/bin/bash
# gpu.page_size: 4 KB, 64 KB and 2 MB pages work end to end (device memory,
# TLBs, walkers, DMA copy splitting, placement): vecadd and mm verify in emu
# and timing mode, on one GPU and on two GPUs with pages spread over both.
# Any other size ends with one error line naming the key and exit 2.
. "$(dirname "$0")/lib_cli.bash"

for page in 4KB 64KB 2MB; do
    for mode in emu timing; do
        for w in vecadd mm; do
            expect_exit 0 "$MGSIM" run "$w" --mode "$mode" --size small --quiet \
                --db "$TMP/p.db" --set gpu.page_size=$page
        done
        expect_exit 0 "$MGSIM" run vecadd --mode "$mode" --size small --quiet \
            --gpus 2 --platform unified --db "$TMP/p.db" --set gpu.page_size=$page
    done
done

# The page size reaches the TLBs: 2 MB pages need far fewer translations
# than 4 KB ones for the same run (L2 TLB misses = page walks).
walks() {
    python3 - "$TMP/w.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
run = db.execute("select max(run_id) from metrics").fetchone()[0]
print(int(db.execute("select sum(value) from metrics where run_id = ? and "
                     "component like 'GPU[%].MMU' and metric = 'walks'",
                     (run,)).fetchone()[0]))
PY
}
expect_exit 0 "$MGSIM" run mm --mode timing --size small --quiet --db "$TMP/w.db" \
    --set gpu.page_size=4KB
w4k=$(walks)
expect_exit 0 "$MGSIM" run mm --mode timing --size small --quiet --db "$TMP/w.db" \
    --set gpu.page_size=2MB
w2m=$(walks)
[ "$w2m" -gt 0 ] && [ "$w2m" -lt "$w4k" ] || fail "page walks: 4KB $w4k, 2MB $w2m"

for bad in 8KB 32KB 1MB; do
    for mode in emu timing; do
        expect_exit 2 "$MGSIM" run vecadd --mode "$mode" --size small --quiet \
            --db "$TMP/p.db" --set gpu.page_size=$bad
        expect_one_error_line
        expect_in "$ERR" "gpu.page_size"
        expect_in "$ERR" "must be 4KB, 64KB or 2MB"
    done
done
expect_exit 2 "$MGSIM" run vecadd --size small --quiet --db "$TMP/p.db" \
    --set gpu.page_size=1GB
expect_one_error_line
expect_in "$ERR" "page_size"
echo ok
