#!/bin/bash
# Code objects v2 and v3 of the project's own kernels (built at build time
# into $KDIR/v2 and $KDIR/v3 by mk/codeobj_versions.mk, same file names as
# the v4 ones) run the workloads: each workload verifies against its CPU
# reference in emu and timing mode with MGSIM_KERNEL_DIR pointing there,
# and counts the same wavefront instructions in both modes. The v2 files
# are checked to be v2 (ELF OS/ABI 64, ABI version 0, NT_AMD_HSA_METADATA
# note), the v3 files v3 (ABI version 1). Errors: a v2 file whose
# amd_kernel_code_t is damaged fails with one error line and exit 2.
. "$(dirname "$0")/lib_cli.bash"
optimised_mgsim
KDIR=${MGSIM_KERNEL_DIR:-${MGSIM_BUILD:-build}/../kernels}
workloads="vecadd fir rl mt bs mm"

abi() { od -An -tu1 -j7 -N2 "$1" | tr -s ' ' | sed 's/^ //'; }
# The AMDGPU ELF inside a hipcc bundle.
unbundle() {
    clang-offload-bundler-15 --unbundle --type=o --input="$1" \
        --targets=hip-amdgcn-amd-amdhsa--gfx803 --output="$2" 2>/dev/null ||
    clang-offload-bundler-15 --unbundle --type=o --input="$1" \
        --targets=hipv4-amdgcn-amd-amdhsa--gfx803 --output="$2" 2>/dev/null ||
        cp "$1" "$2"
}

for v in 2 3; do
    dir=$KDIR/v$v
    for w in $workloads; do
        f=$dir/$w.hsaco
        [ -f "$f" ] || fail "missing $f (make kernels)"
        unbundle "$f" "$TMP/$w.elf"
        want="64 $((v - 2))"
        [ "$(abi "$TMP/$w.elf")" = "$want" ] ||
            fail "$f: OS/ABI, ABI version $(abi "$TMP/$w.elf"), expected $want"
        if [ "$v" = 2 ]; then
            llvm-readelf-15 --notes "$TMP/$w.elf" | grep -q NT_AMD_HSA_METADATA ||
                fail "$f: no NT_AMD_HSA_METADATA note"
        fi
        insts=""
        for mode in emu timing; do
            MGSIM_KERNEL_DIR=$dir "$bin" run "$w" --mode "$mode" --size small \
                --json --db "$TMP/r.db" >"$OUT" 2>"$ERR" ||
                fail "v$v $w $mode: exit $?"
            n=$(sed -n 's/.*"wf_insts": *\([0-9]*\).*/\1/p' "$OUT")
            [ -n "$n" ] && [ "$n" -gt 0 ] || fail "v$v $w $mode: no wf_insts"
            [ -z "$insts" ] || [ "$n" = "$insts" ] ||
                fail "v$v $w: $n wavefront instructions in timing, $insts in emu"
            insts=$n
        done
        echo "ok v$v $w: $insts wavefront instructions, verified in emu and timing"
    done
done

# A v2 object with a damaged amd_kernel_code_t (machine version 9.0.0 at
# byte 10 of the kernel's header) is refused with one line naming it.
elf=$TMP/vecadd.v2.elf
unbundle "$KDIR/v2/vecadd.hsaco" "$elf"
sym=$(llvm-readelf-15 -s --wide "$elf" | awk '$4 == "AMDGPU_HSA_KERNEL" { print $2; exit }')
text=$(llvm-readelf-15 -S --wide "$elf" |
       sed -n 's/.*\] \.text  *PROGBITS  *\([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2/p')
read -r taddr toff <<<"$text"
printf '\x09' | dd of="$elf" bs=1 seek=$((0x$toff + 0x$sym - 0x$taddr + 10)) conv=notrunc 2>/dev/null
mkdir -p "$TMP/bad" && cp "$elf" "$TMP/bad/vecadd.hsaco"
MGSIM_KERNEL_DIR=$TMP/bad "$bin" run vecadd --mode emu --size small --db "$TMP/r.db" \
    >"$OUT" 2>"$ERR"
rc=$?
[ "$rc" -eq 2 ] || fail "damaged v2 header: exit $rc, expected 2"
expect_one_error_line
expect_in "$ERR" "machine kind 1 version 9.0.3"
echo "code objects v2 and v3: $workloads verified in emu and timing"
