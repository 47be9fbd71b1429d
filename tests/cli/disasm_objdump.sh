#!/bin/bash
# Decoder/disassembler acceptance test (docs/isa.md "Verification"): for
# EVERY code object in $MGSIM_KERNEL_DIR, `$MGSIM disasm FILE` must print the
# same instructions as `llvm-objdump-15 -d --mcpu=gfx803 FILE`, compared
# instruction by instruction after normalisation:
#   - only instruction lines are compared (lines starting with a tab);
#     headers, blank lines and "<symbol>:" labels are ignored;
#   - "// ..." comments (address + encoding words, branch-target notes) are
#     stripped;
#   - runs of blanks collapse to one space; leading/trailing blanks go.
# Offload bundles are unbundled with clang-offload-bundler-15 (after
# checking --list for the gfx803 entry); plain ELF files are used as is.
# On a mismatch: prints the first differing lines and the count, exits 1.
set -u
: "${MGSIM:?set MGSIM to the mgsim binary}"
KDIR=${MGSIM_KERNEL_DIR:-${MGSIM_BUILD:-build}/kernels}
TARGET=hipv4-amdgcn-amd-amdhsa--gfx803
tmp=$(mktemp -d /tmp/mgsim-disasm-objdump.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

normalise() {   # stdin: disassembly listing -> one instruction per line
    grep -P '^\t' | sed -e 's|//.*$||' -e 's/[[:space:]]\+/ /g' \
                        -e 's/^ //' -e 's/ $//' | grep -v '^$'
}

fails=0 files=0 insts=0
for f in "$KDIR"/*.hsaco "$KDIR"/*.o; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    elf=$tmp/$name.elf
    if clang-offload-bundler-15 --list --type=o --input="$f" \
           >"$tmp/list" 2>/dev/null; then
        if ! grep -qx "$TARGET" "$tmp/list"; then
            echo "FAIL $name: bundle has no $TARGET entry"
            fails=$((fails + 1)); continue
        fi
        clang-offload-bundler-15 --unbundle --type=o --targets="$TARGET" \
            --input="$f" --output="$elf" || {
            echo "FAIL $name: unbundle"; fails=$((fails + 1)); continue; }
    else
        cp "$f" "$elf"   # a plain ELF code object
    fi
    llvm-objdump-15 -d --mcpu=gfx803 "$elf" | normalise >"$tmp/ref"
    if ! "$MGSIM" disasm "$elf" >"$tmp/raw" 2>"$tmp/err"; then
        echo "FAIL $name: mgsim disasm exited non-zero: $(head -1 "$tmp/err")"
        fails=$((fails + 1)); continue
    fi
    normalise <"$tmp/raw" >"$tmp/out"
    files=$((files + 1))
    insts=$((insts + $(wc -l <"$tmp/ref")))
    if [ ! -s "$tmp/ref" ]; then
        echo "FAIL $name: llvm-objdump printed no instructions"
        fails=$((fails + 1)); continue
    fi
    if ! cmp -s "$tmp/ref" "$tmp/out"; then
        n=$(diff "$tmp/ref" "$tmp/out" | grep -c '^[<>]')
        echo "FAIL $name: $n differing lines (< llvm-objdump, > mgsim):"
        diff "$tmp/ref" "$tmp/out" | grep '^[<>]' | head -6
        fails=$((fails + 1))
    fi
done
if [ "$files" -eq 0 ]; then
    echo "FAIL: no code objects in $KDIR"; exit 1
fi
echo "disasm_objdump: $files code objects, $insts instructions, $fails failing"
[ "$fails" -eq 0 ]
