#!/bin/bash
# `mgsim disasm` on code object v2 files against llvm-objdump-15 of the same
# machine code re-wrapped: for every kernel, its code bytes (after the
# 256-byte amd_kernel_code_t) are assembled on their own as a .byte
# function named like the kernel (llvm-mc-15), and
#   llvm-objdump-15 -d --mcpu=gfx803 --adjust-vma=<entry> wrapped.o
# must print exactly what `mgsim disasm FILE --kernel K` prints (the file
# name line aside). Inputs: the v2 kernels the build compiles
# (build/kernels/v2/*.hsaco) and, when present, MGPUSim's shipped code
# objects ($MGSIM_MGPUSIM_DIR, default ../shared/validation/mgpusim).
# The whole-file listing must be the kernels' listings in address order.
. "$(dirname "$0")/lib_cli.bash"
KDIR=${MGSIM_KERNEL_DIR:-${MGSIM_BUILD:-build}/../kernels}
MGPUSIM_DIR=$(mgpusim_dir)
tmp=$TMP
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# plain_elf FILE OUT: the AMDGPU ELF inside FILE (unbundled if needed).
plain_elf() {
    clang-offload-bundler-15 --unbundle --type=o --input="$1" \
        --targets=hip-amdgcn-amd-amdhsa--gfx803 --output="$2" 2>/dev/null ||
        cp "$1" "$2"
}

# check FILE: every kernel of one v2 code object.
nk_total=0
check() {
    local src=$1 base elf textaddr textoff
    base=$(basename "$src" .hsaco)
    elf=$tmp/$base.elf
    plain_elf "$src" "$elf"
    read -r textaddr textoff < <(llvm-readelf-15 -S --wide "$elf" |
        sed -n 's/.*\] \.text  *PROGBITS  *\([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2/p')
    [ -n "${textaddr:-}" ] || { bad "$base: no .text"; return; }
    llvm-objcopy-15 -O binary --only-section=.text "$elf" "$tmp/$base.text"
    "$MGSIM" disasm "$elf" >"$tmp/$base.all" 2>"$tmp/$base.err" ||
        { bad "$base: $(cat "$tmp/$base.err")"; return; }
    : >"$tmp/$base.cat"
    local n=0 val size name off entry start len
    while read -r val size name; do
        # kernel_code_entry_byte_offset: u64 at byte 16 of the header
        start=$((0x$val - 0x$textaddr))
        off=$(od -An -tu8 -j $((start + 16)) -N8 "$tmp/$base.text" | tr -d ' ')
        entry=$((0x$val + off))
        len=$((size - off))
        {
            echo '.text'
            echo ".globl $name"
            echo ".type $name,@function"
            echo "$name:"
            od -An -v -tx1 -j $((start + off)) -N "$len" "$tmp/$base.text" |
                awk '{ printf ".byte"; for (i = 1; i <= NF; i++)
                       printf "%s0x%s", (i > 1 ? ", " : " "), $i; print "" }'
            echo ".size $name, .-$name"
        } >"$tmp/$name.s"
        llvm-mc-15 -triple=amdgcn-amd-amdhsa -mcpu=gfx803 -filetype=obj \
            "$tmp/$name.s" -o "$tmp/$name.o" 2>"$tmp/$name.mc" ||
            { bad "$base/$name: llvm-mc: $(head -2 "$tmp/$name.mc")"; continue; }
        llvm-objdump-15 -d --mcpu=gfx803 --adjust-vma=$entry "$tmp/$name.o" |
            tail -n +3 >"$tmp/$name.ref"
        "$MGSIM" disasm "$elf" --kernel "$name" | tail -n +3 >"$tmp/$name.out"
        tail -n +3 "$tmp/$name.out" >>"$tmp/$base.cat"
        if ! diff "$tmp/$name.ref" "$tmp/$name.out" >"$tmp/$name.diff"; then
            bad "$base/$name: differs from llvm-objdump of the re-wrapped code"
            head -6 "$tmp/$name.diff"
        fi
        n=$((n + 1))
    done < <(llvm-readelf-15 -s --wide "$elf" |
             awk '$4 == "AMDGPU_HSA_KERNEL" && !seen[$8]++ { print $2, $3, $8 }' |
             sort)
    [ "$n" -gt 0 ] || bad "$base: no v2 kernel symbols"
    # The whole listing: the same kernels, in address order.
    tail -n +5 "$tmp/$base.all" | cmp -s - "$tmp/$base.cat" ||
        bad "$base: whole-file listing is not the kernels' listings"
    nk_total=$((nk_total + n))
    echo "ok $base: $n kernel(s)"
}

nfiles=0
for f in "$KDIR"/v2/*.hsaco; do
    [ -f "$f" ] || continue
    check "$f"; nfiles=$((nfiles + 1))
done
[ "$nfiles" -gt 0 ] || bad "no v2 kernels built in $KDIR/v2"
if [ -n "$MGPUSIM_DIR" ] && [ -d "$MGPUSIM_DIR" ]; then
    for f in "$MGPUSIM_DIR"/*.hsaco; do
        [ -f "$f" ] || continue
        check "$f"; nfiles=$((nfiles + 1))
    done
else
    echo "skip: no MGPUSim code objects (set MGSIM_MGPUSIM_DIR)"
fi
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "disasm of $nk_total v2 kernel(s) in $nfiles file(s) matches llvm-objdump-15 of the re-wrapped code"
