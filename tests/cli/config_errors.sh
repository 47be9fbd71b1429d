#!/bin/bash
# Bad configuration: one error line naming the key, value and origin; exit 2.
. "$(dirname "$0")/lib_cli.bash"

expect_exit 2 "$MGSIM" config show --set gpu.num_cuz=4
expect_one_error_line
expect_in "$ERR" 'mgsim: error: --set: unknown key "num_cuz" in section [gpu]'

expect_exit 2 "$MGSIM" config show --set gpu.l1v_size=16QB
expect_one_error_line
expect_in "$ERR" '[gpu] l1v_size = "16QB": unknown size unit "QB" (use B, KB, MB, GB'

expect_exit 2 "$MGSIM" config show --set platform.gpus=0
expect_one_error_line
expect_in "$ERR" '[platform] gpus = "0": out of range (1..16)'

expect_exit 2 "$MGSIM" config show --set gpu.freq=1000
expect_in "$ERR" 'missing unit (use Hz, kHz, MHz, GHz)'

expect_exit 2 "$MGSIM" config show --set nodot=3
expect_one_error_line
expect_in "$ERR" 'expected section.key=value'

printf '[gpu]\nnum_cus = 32\n\nl2_size = 256 KQ\n' >"$TMP/bad.ini"
expect_exit 2 "$MGSIM" config show --config "$TMP/bad.ini"
expect_one_error_line
expect_in "$ERR" "$TMP/bad.ini:4: [gpu] l2_size = \"256 KQ\": unknown size unit \"KQ\""

printf '[nosuch]\nx = 1\n' >"$TMP/sec.ini"
expect_exit 2 "$MGSIM" config show --config "$TMP/sec.ini"
expect_in "$ERR" "$TMP/sec.ini:2: unknown section [nosuch]"

printf '[gpu]\nthis line has no equals sign\n' >"$TMP/syn.ini"
expect_exit 2 "$MGSIM" config show --config "$TMP/syn.ini"
expect_in "$ERR" "$TMP/syn.ini:2: syntax error"

# A line over inih's buffer: the message gives the real limit.
{ printf '[gpu]\nnum_cus = 4 ; '; printf 'x%.0s' $(seq 220); printf '\n'; } >"$TMP/long.ini"
expect_exit 2 "$MGSIM" config show --config "$TMP/long.ini"
expect_one_error_line
expect_in "$ERR" "$TMP/long.ini:2: line longer than 199 characters"

expect_exit 2 "$MGSIM" config show --config "$TMP/missing.ini"
expect_one_error_line
expect_in "$ERR" "cannot open config file $TMP/missing.ini"

expect_exit 2 "$MGSIM" config show --preset nosuchpreset
expect_one_error_line
expect_in "$ERR" 'unknown preset "nosuchpreset"'
expect_in "$ERR" 'r9nano'

# run applies the same checks before simulating anything.
expect_exit 2 "$MGSIM" run --gpus 99 --db "$TMP/x.db"
expect_one_error_line
expect_in "$ERR" '--gpus: [platform] gpus = "99": out of range (1..16)'
expect_exit 2 "$MGSIM" run --mode fast --db "$TMP/x.db"
expect_in "$ERR" '--mode: [sim] mode = "fast": not one of emu,timing'
expect_exit 2 "$MGSIM" run micro_l1 --mode timing --set gpu.freq=100GHz \
    --set xbar.messages_per_cycle=64 --db "$TMP/x.db"
expect_one_error_line
expect_in "$ERR" 'xbar.messages_per_cycle = 64: more than the GPU clock period in ps (10)'
[ ! -e "$TMP/x.db" ] || fail "a failed configuration must not create the database"
echo ok
