#!/usr/bin/env python3
"""Enumerate every gfx803 opcode by asking LLVM's disassembler.

For each encoding we build one instruction word per possible opcode value
(all other fields benign), disassemble the lot with llvm-mc and record the
mnemonic LLVM prints.  This is how src/gcn3/opcodes.def was produced: the
numbers come straight from LLVM's gfx8 (VI) decoder tables, not from memory.

usage: scripts/gen_opcodes.py            > listing.txt  (fmt opcode mnemonic)
       scripts/gen_opcodes.py --def      > src/gcn3/opcodes.def

--def turns the listing into X-macro lines.  Home encodings: native VOP3
ops (VOP3 opcode >= 0x1c0) are VOP3A, except the VOP3B ones (explicit sdst:
v_div_scale_*, v_mad_u64_u32, v_mad_i64_i32).  VOP3 opcodes below 0x1c0 are
promoted VOPC/VOP2/VOP1 forms and VOP3 0x270-0x272 are promoted VINTRP
forms; the decoder derives those, so they get no line of their own.
Flags follow the rules in flags_for() below (documented in docs/isa.md).
"""
import concurrent.futures
import re
import subprocess
import sys

LLVM_MC = "llvm-mc-15"

def words_to_line(words):
    out = []
    for w in words:
        out += ["0x%02x" % ((w >> (8 * i)) & 0xff) for i in range(4)]
    return " ".join(out)

# Encoding builders: opcode -> list of dwords.
def sop2(op): return [(0b10 << 30) | (op << 23)]
def sopk(op): return [(0b1011 << 28) | (op << 23), 0]   # extra dword for s_setreg_imm32
def sop1(op): return [(0b101111101 << 23) | (op << 8)]
def sopc(op): return [(0b101111110 << 23) | (op << 16)]
def sopp(op): return [(0b101111111 << 23) | (op << 16)]
def smem(op): return [(0b110000 << 26) | (op << 18), 0]
def vop2(op): return [(op << 25) | (1 << 17), 0]  # + literal for madmk/madak
def vop1(op): return [(0b0111111 << 25) | (op << 9)]
def vopc(op): return [(0b0111110 << 25) | (op << 17)]
def vop3(op): return [(0b110100 << 26) | (op << 16), 0]
def vintrp(op): return [(0b110101 << 26) | (op << 16)]
def ds(op): return [(0b110110 << 26) | (op << 17), 0]
def mubuf(op): return [(0b111000 << 26) | (op << 18), 0]
def mtbuf(op): return [(0b111010 << 26) | (op << 15) | (1 << 19), 0]
def mimg(op): return [(0b111100 << 26) | (op << 18) | (1 << 8), 0]
def flat(op): return [(0b110111 << 26) | (op << 18), 0]
def exp(op): return [(0b110001 << 26) | 0xf, 0]

ENCODINGS = [
    ("SOP2", sop2, 96), ("SOPK", sopk, 29), ("SOP1", sop1, 256),
    ("SOPC", sopc, 128), ("SOPP", sopp, 128), ("SMEM", smem, 256),
    ("VOP2", vop2, 64), ("VOP1", vop1, 256), ("VOPC", vopc, 256),
    ("VOP3", vop3, 1024), ("VINTRP", vintrp, 4), ("DS", ds, 256),
    ("MUBUF", mubuf, 128), ("MTBUF", mtbuf, 16), ("MIMG", mimg, 128),
    ("FLAT", flat, 128), ("EXP", exp, 1),
]

def disassemble_one(line):
    """Mnemonic of the first instruction in line, or None if invalid."""
    res = subprocess.run([LLVM_MC, "--disassemble", "-arch=amdgcn",
                          "-mcpu=gfx803"], input=line + "\n",
                         capture_output=True, text=True)
    for l in res.stdout.splitlines():
        l = l.strip()
        if l and not l.startswith("."):
            if "<stdin>:1:1: warning: invalid" in res.stderr:
                return None
            return l.split()[0]
    return None

def disassemble(lines):
    """Returns one mnemonic (or None) per input line (one llvm-mc run each:
    slow but immune to trailing dwords being decoded as instructions)."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return list(pool.map(disassemble_one, lines))

VOP3B_NATIVE = {"v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32",
                "v_mad_i64_i32"}
BRANCHES = {"s_branch", "s_setpc_b64", "s_swappc_b64", "s_endpgm",
            "s_endpgm_saved", "s_rfe_b64", "s_rfe_restore_b64",
            "s_cbranch_join", "s_cbranch_g_fork", "s_cbranch_i_fork"}
# Width exceptions where the "first type = dst, second = src" rule is wrong.
WIDTH_OVERRIDE = {
    "s_bfm_b64": "GCN_F_DST64", "s_bitset0_b64": "GCN_F_DST64",
    "s_bitset1_b64": "GCN_F_DST64", "s_getpc_b64": "GCN_F_DST64",
    "s_setpc_b64": "GCN_F_SRC64", "s_rfe_b64": "GCN_F_SRC64",
    "s_rfe_restore_b64": "GCN_F_SRC64",
    "s_cbranch_g_fork": "GCN_F_SRC64", "s_cbranch_i_fork": "GCN_F_SRC64",
    "s_cbranch_join": "", "s_cmovk_i32": "",
    "v_mad_u64_u32": "GCN_F_DST64", "v_mad_i64_i32": "GCN_F_DST64",
    "v_qsad_pk_u16_u8": "GCN_F_DST64 | GCN_F_SRC64",
    "v_mqsad_pk_u16_u8": "GCN_F_DST64 | GCN_F_SRC64",
    "v_mqsad_u32_u8": "GCN_F_DST64 | GCN_F_SRC64",
}
DS_ATOMIC = re.compile(r"^ds_(add|sub|rsub|inc|dec|min|max|and|or|xor|mskor|"
                       r"wrxchg|cmpst|wrap|condxchg)")
MEM_FMTS = {"SMEM", "DS", "MUBUF", "MTBUF", "MIMG", "FLAT"}
ALU_FMTS = {"SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "VOP2", "VOP1", "VOPC",
            "VOP3A", "VOP3B", "VINTRP"}

def flags_for(fmt, mn):
    f = []
    types = re.findall(r"_([biuf](?:8|16|24|32|64))(?=_|$)", mn)
    if fmt in ALU_FMTS:
        if mn in WIDTH_OVERRIDE:
            if WIDTH_OVERRIDE[mn]:
                f.append(WIDTH_OVERRIDE[mn])
        elif types:
            dst, src = types[0], types[1] if len(types) > 1 else types[0]
            # Compares write a lane mask / scc, not a 64-bit value.
            if dst.endswith("64") and fmt not in ("SOPC", "VOPC"):
                f.append("GCN_F_DST64")
            if src.endswith("64"):
                f.append("GCN_F_SRC64")
        if "f64" in types:
            f.append("GCN_F_F64")
        if mn.startswith("v_") and (any(t[0] == "f" for t in types)
                                    or "interp" in mn or "ubyte" in mn):
            f.append("GCN_F_FLOAT")
    if mn in BRANCHES or mn.startswith("s_cbranch_"):
        f.append("GCN_F_BRANCH")
    if fmt in MEM_FMTS:
        f.append("GCN_F_MEM")
        if "atomic" in mn or DS_ATOMIC.match(mn):
            f.append("GCN_F_ATOMIC")
        elif "store" in mn or mn.startswith("ds_write"):
            f.append("GCN_F_STORE")
    return " | ".join(f) if f else "GCN_F_NONE"

def listing():
    for name, build, count in ENCODINGS:
        lines = [words_to_line(build(op)) for op in range(count)]
        for op, mn in enumerate(disassemble(lines)):
            if mn:
                yield name, op, mn

def emit_def(entries):
    print("/* GCN3 (gfx803) opcodes: X(NAME, \"mnemonic\", FMT, opcode, flags).")
    print("** GENERATED by scripts/gen_opcodes.py --def from LLVM 15's gfx803")
    print("** disassembler (every opcode value of every encoding was decoded);")
    print("** verified by scripts/check_opcodes.py.  See inst.h for the rules and")
    print("** docs/isa.md for the flag conventions.  Regenerate rather than edit. */")
    seen = set()
    cur = None
    for fmt, op, mn in entries:
        mn = re.sub(r"_(e32|e64)$", "", mn)
        if fmt == "VOP3":
            if op < 0x1c0 or 0x270 <= op <= 0x272:
                continue
            fmt = "VOP3B" if mn in VOP3B_NATIVE else "VOP3A"
        if mn in seen:      # LLVM aliases (e.g. a second buffer_wbinvl1)
            continue
        seen.add(mn)
        if fmt != cur and not (cur in ("VOP3A", "VOP3B") and
                               fmt in ("VOP3A", "VOP3B")):
            print("\n/* %s */" % ("VOP3 (native)" if fmt.startswith("VOP3")
                                   else fmt))
        cur = fmt
        print("X(%s, \"%s\", %s, 0x%x, %s)" % (mn.upper(), mn, fmt, op,
                                             flags_for(fmt, mn)))

def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--def":
        if len(sys.argv) > 2:   # reuse a saved listing
            entries = [(a, int(b), c) for a, b, c in
                       (l.split() for l in open(sys.argv[2]))]
        else:
            entries = list(listing())
        emit_def(entries)
        return 0
    for fmt, op, mn in listing():
        print(fmt, op, mn)
    return 0

if __name__ == "__main__":
    sys.exit(main())
