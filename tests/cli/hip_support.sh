#!/bin/bash
# docs/hip-support.md is current: regenerated from ROCm's header and the
# library's exported symbols (scripts/hip_support_table.py), it must equal
# the committed file. After adding HIP functions, rerun the command at the
# top of that file.
set -u
lib="${MGSIM_BUILD:-build/san}/libmgsim-hip.so"
hdr=/usr/include/hip/hip_runtime_api.h
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$lib" ] || fail "$lib not built"
[ -f "$hdr" ] || { echo "skip: $hdr missing (hipcc not installed)"; exit 0; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
python3 scripts/hip_support_table.py "$hdr" "$lib" "$tmp" || fail "generator failed"
diff -u docs/hip-support.md "$tmp" >/dev/null ||
    { diff -u docs/hip-support.md "$tmp" | head -20
      fail "docs/hip-support.md is stale: scripts/hip_support_table.py $hdr build/libmgsim-hip.so docs/hip-support.md"; }
grep -q "^| \`hipMemcpyToSymbol\` | supported |$" docs/hip-support.md ||
    fail "hipMemcpyToSymbol not listed as supported"
grep -q "^| \`hipGraphCreate\` | not yet |$" docs/hip-support.md ||
    fail "hipGraphCreate not listed as not yet"
echo "hip support table ok"
