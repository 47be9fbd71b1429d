#!/bin/bash
# --version, --help, unknown commands and options: exit codes and messages.
. "$(dirname "$0")/lib_cli.bash"

expect_exit 0 "$MGSIM" --version
grep -Eq '^mgsim [0-9]+\.[0-9]+\.[0-9]+ \(.+\)$' "$OUT" || fail "--version format"
expect_exit 0 "$MGSIM" --help
for c in run list config export; do expect_in "$OUT" "  $c"; done
expect_in "$OUT" "Exit codes"

expect_exit 2 "$MGSIM"
expect_one_error_line
expect_in "$ERR" "no command given (try 'mgsim --help')"
expect_exit 2 "$MGSIM" frobnicate
expect_one_error_line
expect_in "$ERR" "unknown command 'frobnicate'"

for c in run list config export; do
    expect_exit 0 "$MGSIM" "$c" --help
    expect_in "$OUT" "usage: mgsim $c"
done

expect_exit 2 "$MGSIM" run --no-such-option
expect_one_error_line
expect_in "$ERR" "unknown option '--no-such-option'"
expect_exit 2 "$MGSIM" run --set
expect_one_error_line
expect_in "$ERR" "option --set needs a value"
expect_exit 2 "$MGSIM" config frob
expect_one_error_line
expect_exit 2 "$MGSIM" list gizmos
expect_one_error_line
echo ok
