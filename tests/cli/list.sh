#!/bin/bash
# `mgsim list`: presets from configs/, platforms from keys.def, workloads.
. "$(dirname "$0")/lib_cli.bash"

expect_exit 0 "$MGSIM" list
expect_in "$OUT" "presets ("
grep -Eq '^  default +' "$OUT" || fail "default preset listed"
grep -Eq '^  r9nano +' "$OUT" || fail "r9nano preset listed"
for p in discrete unified monolithic shared; do
    grep -Eq "^  $p +" "$OUT" || fail "platform $p listed"
done
expect_in "$OUT" "workloads (mgsim run NAME):"

expect_exit 0 "$MGSIM" list presets
grep -q '^platforms' "$OUT" && fail "'list presets' shows only presets"

# $MGSIM_CONFIG_DIR replaces the preset directory.
mkdir "$TMP/cfg"
printf '; my preset\n[gpu]\nnum_cus = 2\n' >"$TMP/cfg/mine.ini"
MGSIM_CONFIG_DIR=$TMP/cfg expect_exit 0 "$MGSIM" list presets
grep -Eq '^  mine +my preset$' "$OUT" || fail "MGSIM_CONFIG_DIR preset"
MGSIM_CONFIG_DIR=$TMP/cfg expect_exit 0 "$MGSIM" config show --preset mine
grep -Eq "^num_cus = 2 +; $TMP/cfg/mine.ini:3\$" "$OUT" || fail "preset from MGSIM_CONFIG_DIR"
echo ok
