#!/bin/bash
# Runs every test of one build directory and prints one summary line:
#   "N passed, N failed"
# Unit tests are cmocka binaries (TAP output, one count per case); shell tests
# under tests/cli/ count one each. A binary that dies without reporting (a
# sanitizer abort, a crash, a timeout) counts as one failure.
# Usage: scripts/run_tests.sh BUILD_DIR [NAME_FILTER]
set -u
build=${1:-build/san}
filter=${2:-}
export MGSIM_BUILD="$build"
export MGSIM="$build/mgsim"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Every scratch file a test (or a tool it runs: hipcc leaves two empty
# directories per compile) puts in $TMPDIR goes to one directory that is
# removed at the end, not into /tmp.
test_tmp=$(mktemp -d "${TMPDIR:-/tmp}/mgsim-tests.XXXXXX") || exit 1
trap 'rm -rf "$test_tmp"' EXIT
export TMPDIR="$test_tmp"
passed=0; failed=0; failures=()
logdir="$build/test-logs"; mkdir -p "$logdir"
TIMEOUT=${MGSIM_TEST_TIMEOUT:-900}

run_one() {   # $1 = kind (unit|cli), $2 = path
    local kind=$1 t=$2 name log rc np nf
    name=${t#"$build"/}; name=${name//\//_}
    log="$logdir/$name.log"
    local start=$SECONDS
    if [ "$kind" = unit ]; then
        timeout "$TIMEOUT" "$t" >"$log" 2>&1; rc=$?
        np=$(grep -c '^ok ' "$log"); nf=$(grep -c '^not ok ' "$log")
        if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then nf=1; fi
    else
        timeout "$TIMEOUT" bash "$t" >"$log" 2>&1; rc=$?
        if [ "$rc" -eq 0 ]; then np=1; nf=0; else np=0; nf=1; fi
    fi
    passed=$((passed + np)); failed=$((failed + nf))
    local status=ok; [ "$nf" -ne 0 ] && status=FAIL
    printf '%-5s %-60s %3d passed %3d failed %4ds\n' "$status" "$name" "$np" "$nf" $((SECONDS - start))
    if [ "$nf" -ne 0 ]; then
        failures+=("$name")
        sed -e 's/^/    | /' "$log" | grep -v '^    | ok ' | tail -40
    fi
}

while IFS= read -r t; do
    [ -n "$filter" ] && [[ "$t" != *"$filter"* ]] && continue
    run_one unit "$t"
done < <(find "$build/tests/unit" -type f -name 'test_*' -perm -u+x 2>/dev/null | sort)
while IFS= read -r t; do
    [ -n "$filter" ] && [[ "$t" != *"$filter"* ]] && continue
    run_one cli "$t"
done < <(find tests/cli -name '*.sh' 2>/dev/null | sort)

if [ ${#failures[@]} -ne 0 ]; then
    echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
