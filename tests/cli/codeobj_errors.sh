#!/bin/bash
# `mgsim disasm` on missing, corrupt and foreign files: each must exit 2 with
# exactly one line on stderr ("mgsim: error: <file>: ..."), nothing on
# stdout, and no crash. Inputs are made at test time from a real kernel;
# the gfx900 code object is compiled here (no binaries are committed).
set -u
MGSIM=${MGSIM:-build/mgsim}
KDIR=${MGSIM_KERNEL_DIR:-${MGSIM_BUILD:-build}/../kernels}
src=$KDIR/loader_props.hsaco
[ -f "$src" ] || { echo "missing $src"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0

# expect_fail NAME WANT_SUBSTRING ARGS...
expect_fail() {
    local name=$1 want=$2; shift 2
    "$MGSIM" disasm "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local lines; lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] ||
       ! grep -q '^mgsim: error: ' "$tmp/err" ||
       ! grep -qF -- "$want" "$tmp/err"; then
        echo "FAIL $name: rc=$rc, $lines stderr lines (want 2, 1, '$want'):"
        sed 's/^/    /' "$tmp/err"; head -3 "$tmp/out" | sed 's/^/    out: /'
        fails=$((fails + 1))
    else
        echo "ok   $name: $(cat "$tmp/err")"
    fi
}

expect_fail missing "no-such.hsaco: cannot open" "$tmp/no-such.hsaco"
: >"$tmp/empty.hsaco"
expect_fail empty "empty.hsaco: empty file" "$tmp/empty.hsaco"
awk 'BEGIN { srand(42); for (i = 0; i < 5000; i++) printf "%c", int(rand() * 256) }' \
    >"$tmp/random.bin" 2>/dev/null
expect_fail random "random.bin: not a code object" "$tmp/random.bin"
expect_fail directory "$tmp: cannot read" "$tmp"
for n in 10 24 40 100 200 1000 3000 5000 7000; do
    head -c "$n" "$src" >"$tmp/cut$n.hsaco"
    expect_fail "truncated-$n" "cut$n.hsaco" "$tmp/cut$n.hsaco"
done
# Plain ELF cut short, and one with its section headers zeroed.
clang-offload-bundler-15 --unbundle --type=o --input="$src" \
    --targets=hipv4-amdgcn-amd-amdhsa--gfx803 --output="$tmp/k.elf" || exit 1
head -c 1500 "$tmp/k.elf" >"$tmp/elfcut.hsaco"
expect_fail elf-truncated "elfcut.hsaco: ELF section header table" "$tmp/elfcut.hsaco"
cp "$tmp/k.elf" "$tmp/noteclobber.hsaco"
printf '\xdd\xff\xff\xff\xff' | dd of="$tmp/noteclobber.hsaco" bs=1 \
    seek=$((0x200 + 20)) conv=notrunc 2>/dev/null
expect_fail bad-msgpack "noteclobber.hsaco: metadata note is not valid msgpack" \
    "$tmp/noteclobber.hsaco"
# An argument kind mgsim cannot pass is a property of the file: exit 2.
python3 - "$tmp/k.elf" "$tmp/badkind.hsaco" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
for k in (b'global_buffer', b'by_value'):
    if k in b:
        b = b.replace(k, k[:-1] + b'Q', 1)
        break
open(sys.argv[2], 'wb').write(b)
PY
expect_fail bad-arg-kind "which mgsim cannot pass" "$tmp/badkind.hsaco"
# Bundle with a corrupt entry table (entry count 2^40).
cp "$src" "$tmp/badtable.hsaco"
printf '\x00\x00\x00\x00\x00\x01' | dd of="$tmp/badtable.hsaco" bs=1 seek=24 \
    conv=notrunc 2>/dev/null
expect_fail bad-bundle-table "badtable.hsaco: offload bundle declares 1099511627776 entries" \
    "$tmp/badtable.hsaco"
# Foreign architectures.
expect_fail x86-host "/bin/true: x86-64 ELF" /bin/true
if command -v hipcc >/dev/null; then
    printf '#include <hip/hip_runtime.h>\n__global__ void k(int *a) { a[0] = 1; }\n' \
        >"$tmp/k.hip"
    if hipcc --genco --offload-arch=gfx900 -O2 "$tmp/k.hip" -o "$tmp/k900.hsaco" \
        2>/dev/null; then
        expect_fail gfx900-bundle "found: gfx900" "$tmp/k900.hsaco"
        clang-offload-bundler-15 --unbundle --type=o --input="$tmp/k900.hsaco" \
            --targets=hipv4-amdgcn-amd-amdhsa--gfx900 --output="$tmp/k900.elf"
        expect_fail gfx900-elf "is for gfx900" "$tmp/k900.elf"
    else
        echo "FAIL: hipcc could not compile for gfx900"; fails=$((fails + 1))
    fi
fi
# Usage errors.
expect_fail no-file "no code object given"
expect_fail bad-option "unknown option '--bogus'" --bogus "$src"
expect_fail two-files "more than one file" "$src" "$src"
expect_fail no-kernel "no kernel named 'nope' (kernels: loader_lds, loader_dyn)" \
    "$src" --kernel nope

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all error cases passed"
