#!/bin/bash
# `mgsim disasm` against llvm-objdump-15 -d on the same code objects:
#  - the layout: header, symbol labels, the "// <addr>: <words>" column at
#    the same position, every byte of .text listed once, in order;
#  - the whole text must be identical for every kernel the build compiles
#    (DESIGN.md: the decoder's disassembly of every shipped kernel matches
#    llvm-objdump);
#  - --kernel NAME limits the listing to one function;
#  - a hipcc host executable (compiled here) disassembles like its bundle.
set -u
MGSIM=${MGSIM:-build/mgsim}
KDIR=${MGSIM_KERNEL_DIR:-${MGSIM_BUILD:-build}/../kernels}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# words FILE: the hex words of every instruction line, one per line.
words() { sed -n 's|^\t.*// [0-9A-F]\{12\}: \([0-9A-F ]*\).*|\1|p' "$1" |
          tr ' ' '\n' | grep -v '^$'; }
# Column of "// " (tab counts 1) for lines whose text is shorter than 59.
badcols() { awk -F'\t' '/^\t/ { i = index($2, "// "); t = substr($2, 1, i - 1);
              sub(/ +$/, "", t); if (length(t) < 59 && i != 60) print }' "$1"; }

n=0
for hsaco in "$KDIR"/*.hsaco; do
    [ -f "$hsaco" ] || continue
    name=$(basename "$hsaco" .hsaco)
    elf=$tmp/$name.elf
    if ! clang-offload-bundler-15 --unbundle --type=o --input="$hsaco" \
        --targets=hipv4-amdgcn-amd-amdhsa--gfx803 --output="$elf" 2>/dev/null; then
        cp "$hsaco" "$elf"   # already a plain ELF (OpenCL kernels)
    fi
    llvm-objdump-15 -d "$elf" >"$tmp/$name.ref" || { fail "$name: objdump"; continue; }
    "$MGSIM" disasm "$elf" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    [ "$rc" -eq 0 ] || { fail "$name: exit $rc: $(cat "$tmp/$name.err")"; continue; }
    n=$((n + 1))
    # Same header and labels.
    diff <(grep -v '^\s' "$tmp/$name.ref") <(grep -v '^\s' "$tmp/$name.out") \
        >"$tmp/$name.labels" || { fail "$name: header/labels differ:";
                                  head -5 "$tmp/$name.labels"; }
    # Same bytes, in order.
    cmp -s <(words "$tmp/$name.ref") <(words "$tmp/$name.out") ||
        fail "$name: instruction words differ"
    [ -z "$(badcols "$tmp/$name.out")" ] || fail "$name: comment column off"
    if ! diff "$tmp/$name.ref" "$tmp/$name.out" >"$tmp/$name.diff"; then
        fail "$name: text differs from llvm-objdump ($(grep -c '^>' "$tmp/$name.diff") lines):"
        head -6 "$tmp/$name.diff"
    fi
done
[ "$n" -gt 0 ] || fail "no kernels found in $KDIR"

# --kernel: only loader_dyn's label, starting at its address.
src=$KDIR/loader_props.hsaco
"$MGSIM" disasm "$src" --kernel loader_dyn >"$tmp/one.out" || fail "--kernel exit"
labels=$(grep -c '^[0-9a-f]\{16\} <' "$tmp/one.out")
[ "$labels" -eq 1 ] && grep -q '^0000000000001c00 <loader_dyn>:$' "$tmp/one.out" ||
    fail "--kernel loader_dyn: $labels labels"
grep -q '// 000000001C00: ' "$tmp/one.out" || fail "--kernel: first address"
grep -q '// 000000001B00: ' "$tmp/one.out" && fail "--kernel: printed loader_lds"

# A hipcc host executable: the kernel inside its .hip_fatbin.
cat >"$tmp/host.hip" <<'HIP'
#include <hip/hip_runtime.h>
extern "C" __global__ void host_k(int *a) { a[threadIdx.x] = 7; }
int main() { return 0; }
HIP
if hipcc --offload-arch=gfx803 -O2 "$tmp/host.hip" -o "$tmp/host" 2>/dev/null; then
    "$MGSIM" disasm "$tmp/host" >"$tmp/host.out" 2>"$tmp/host.err" ||
        fail "host executable: $(cat "$tmp/host.err")"
    grep -q ' <host_k>:$' "$tmp/host.out" || fail "host executable: no host_k"
else
    fail "hipcc could not build a host program"
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "disasm matches llvm-objdump-15 -d on $n code objects"
