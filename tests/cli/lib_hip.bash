# Helpers shared by the tests of hipcc-built programs (tests/cli/hip_*.sh);
# named .bash so that scripts/run_tests.sh does not count it as a test.
# A scratch directory $tmp, fail, and the environment of a plain run: no
# database, no exit summary, no MGSIM_* setting inherited from the caller.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export MGSIM_DB=none MGSIM_QUIET=1
unset MGSIM_MODE MGSIM_PLATFORM MGSIM_CONFIG MGSIM_SET MGSIM_PRESET MGSIM_GPUS

# run EXPECTED_RC CMD...: output in $tmp/out, $tmp/err
run() {
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"
        fail "$* exited $rc, expected $want"
    fi
}
expect_out() { grep -a -q -- "$1" "$tmp/out" || { cat "$tmp/out"; fail "stdout lacks '$1'"; }; }
expect_err() { grep -a -q -- "$1" "$tmp/err" || { cat "$tmp/err"; fail "stderr lacks '$1'"; }; }
