# Helpers shared by the CLI tests; sourced by tests/cli/*.sh. Named .bash so
# that scripts/run_tests.sh (which runs every *.sh) does not count it as a test.
# expect_exit CODE CMD...: runs CMD, keeps stdout/stderr in $OUT/$ERR files,
# fails the test unless the exit code is CODE.
set -u
: "${MGSIM:?set MGSIM to the mgsim binary}"
TMP=$(mktemp -d /tmp/mgsim-cli-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/stdout
ERR=$TMP/stderr

fail() { echo "FAIL: $*" >&2; echo "--- stdout:" >&2; head -20 "$OUT" >&2; echo "--- stderr:" >&2; head -20 "$ERR" >&2; exit 1; }

expect_exit() {
    local want=$1; shift
    "$@" >"$OUT" 2>"$ERR"
    local got=$?
    [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}

# The error output is exactly one line starting with "mgsim: error: ".
expect_one_error_line() {
    [ "$(wc -l <"$ERR")" -eq 1 ] || fail "expected one line on stderr"
    grep -q '^mgsim: error: ' "$ERR" || fail "stderr does not start with 'mgsim: error: '"
}

expect_in() {   # expect_in FILE TEXT
    grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks '$2'"
}

# optimised_mgsim [SUBSET]: sets $bin to the optimised binary
# ($MGSIM_BUILD/../mgsim) when it exists, else to $MGSIM (the sanitizer
# build), and $subset to "" with the optimised binary, else to SUBSET (the
# workloads a slow sanitizer run is limited to).
optimised_mgsim() {
    bin=$MGSIM
    subset=${1:-}
    if [ -n "${MGSIM_BUILD:-}" ] && [ -x "$MGSIM_BUILD/../mgsim" ]; then
        bin=$MGSIM_BUILD/../mgsim
        subset=""
    fi
}

# workload_names: sets $names to the registered workloads (`$bin list
# workloads`), or to $subset when optimised_mgsim left one.
workload_names() {
    "$bin" list workloads >"$OUT" 2>"$ERR" || fail "mgsim list workloads"
    names=$(awk '/^  [a-z][a-z0-9_]* /{print $1}' "$OUT" | grep -v '^name$')
    [ -n "${subset:-}" ] && names=$subset
    [ -n "$names" ] || fail "no workloads listed"
}

# um_run WORKLOAD ARGS...: one timing run at small size of $bin with the
# settings in $UM_SETS (memory.management = ...) and ARGS, into the
# database $TMP/$db; a failure is appended to $failed, $runs counts the
# runs (tests/cli/migrate.sh, esi.sh).
um_run() {
    local w=$1
    shift
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    "$bin" run "$w" --mode timing --size small --quiet $UM_SETS "$@" \
        --db "$TMP/$db" >"$TMP/o" 2>"$TMP/e" ||
        failed="$failed $w/$*(exit $?: $(head -c 200 "$TMP/e"))"
}

# mgpusim_dir: prints the folder of MGPUSim's code objects (issue 13):
# $MGSIM_MGPUSIM_DIR, else ../shared/validation/mgpusim beside the main
# tree (or beside a worktree's parent); nothing when absent.
mgpusim_dir() {
    local root d
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    for d in "${MGSIM_MGPUSIM_DIR:-}" "$root/../shared/validation/mgpusim" \
             "$root/../../shared/validation/mgpusim"; do
        [ -n "$d" ] && [ -d "$d" ] && { echo "$d"; return; }
    done
}
