#!/bin/bash
# The HALCONE configurations (seed 000 §4.1) as presets in configs/halcone/:
# FOLDER/NAME presets load and are listed, [preset] base layers a preset on
# another, and RDMA-WB-C-HMG runs the hmg directory protocol.
. "$(dirname "$0")/lib_cli.bash"
expect_exit 0 "$MGSIM" list presets
cp "$OUT" "$TMP/list"
for p in gpu rdma-wb-nc rdma-wb-c-hmg sm-wb-nc sm-wt-nc sm-wt-c-halcone; do
    grep -Eq "^  halcone/$p +HALCONE" "$TMP/list" || fail "halcone/$p listed"
    expect_exit 0 "$MGSIM" config show --preset "halcone/$p"
    expect_in "$OUT" "preset: halcone/$p"
done
# Table 2 from halcone/gpu through two bases; each layer's own keys win.
expect_exit 0 "$MGSIM" config show --preset halcone/sm-wt-nc
expect_in "$OUT" "num_cus = 32                     ; configs/halcone/gpu.ini:"
expect_in "$OUT" "type = shared                    ; configs/halcone/sm-wb-nc.ini:"
expect_in "$OUT" "write_policy = writethrough      ; configs/halcone/sm-wt-nc.ini:"
expect_exit 0 "$MGSIM" config show --preset halcone/rdma-wb-nc
expect_in "$OUT" "placement = interleaved"
expect_in "$OUT" "pcie_version = 4"
# The old names are the same configurations.
for pair in "halcone-sm sm-wb-nc" "halcone-rdma rdma-wb-nc"; do
    set -- $pair
    "$MGSIM" config show --preset "$1" --no-origins | grep -v '^; mgsim effective' > "$TMP/a"
    "$MGSIM" config show --preset "halcone/$2" --no-origins | grep -v '^; mgsim effective' > "$TMP/b"
    cmp -s "$TMP/a" "$TMP/b" || fail "$1 = halcone/$2"
done
# RDMA-WB-C-HMG runs the hmg directory protocol and verifies.
expect_exit 0 "$MGSIM" run vecadd --preset halcone/rdma-wb-c-hmg --size small --db "$TMP/hmg.db"
expect_in "$OUT" "verified       yes"
n=$(sqlite3 "$TMP/hmg.db" "SELECT SUM(value) FROM metrics WHERE component LIKE 'GPU%.L2[%'
    AND metric = 'dir_lookups'")
[ "${n%.0}" -gt 0 ] || fail "RDMA-WB-C-HMG: no directory lookups ($n)"
# Bad names and bases.
expect_exit 2 "$MGSIM" config show --preset halcone/../default
expect_one_error_line; expect_in "$ERR" "bad preset name"
expect_exit 2 "$MGSIM" config show --preset halcone/nosuch
expect_one_error_line; expect_in "$ERR" 'unknown preset "halcone/nosuch"'
mkdir -p "$TMP/cfg/sub"
printf '[preset]\nbase = sub/b\n' > "$TMP/cfg/a.ini"
printf '; b\n[preset]\nbase = a\n' > "$TMP/cfg/sub/b.ini"
printf '[preset]\nbasis = a\n' > "$TMP/cfg/c.ini"
MGSIM_CONFIG_DIR=$TMP/cfg expect_exit 2 "$MGSIM" config show --preset a
expect_one_error_line; expect_in "$ERR" "bases nested too deep"
MGSIM_CONFIG_DIR=$TMP/cfg expect_exit 2 "$MGSIM" config show --preset c
expect_one_error_line; expect_in "$ERR" "[preset] basis: unknown key"
MGSIM_CONFIG_DIR=$TMP/cfg expect_exit 0 "$MGSIM" list presets
grep -Eq '^  sub/b +b$' "$OUT" || fail "sub/b listed"
echo ok
