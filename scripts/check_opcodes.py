#!/usr/bin/env python3
"""Verify src/gcn3/opcodes.def against LLVM 15's gfx803 decoder.

For every X(NAME, "mnemonic", FMT, opcode, flags) line an instruction word
with that opcode in that encoding is built and disassembled with llvm-mc;
the mnemonic LLVM prints (minus _e32/_e64) must equal the table's.  For
VOP1/VOP2/VOPC ops the promoted VOP3 form (VOPC op, 0x100 + VOP2 op,
0x140 + VOP1 op) is checked too.  Also checks NAME == upper(mnemonic) and
that names are unique.  Exit 0 if all agree, 1 otherwise.

usage: scripts/check_opcodes.py [src/gcn3/opcodes.def]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_opcodes as g  # noqa: E402

BUILDERS = {"SOP2": g.sop2, "SOPK": g.sopk, "SOP1": g.sop1, "SOPC": g.sopc,
            "SOPP": g.sopp, "SMEM": g.smem, "VOP2": g.vop2, "VOP1": g.vop1,
            "VOPC": g.vopc, "VOP3A": g.vop3, "VOP3B": g.vop3,
            "VINTRP": g.vintrp, "DS": g.ds, "MUBUF": g.mubuf,
            "MTBUF": g.mtbuf, "MIMG": g.mimg, "FLAT": g.flat, "EXP": g.exp}
VOP3_BASE = {"VOPC": 0, "VOP2": 0x100, "VOP1": 0x140}
# VOP1 ops LLVM has no VOP3 encoding for.
NO_VOP3 = {"v_readfirstlane_b32", "v_nop", "v_clrexcp", "v_madmk_f32",
           "v_madak_f32", "v_madmk_f16", "v_madak_f16"}
LINE = re.compile(r'^X\((\w+), "(\w+)", (\w+), (0x[0-9a-f]+|\d+), (.*)\)$')

def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "src", "gcn3", "opcodes.def")
    checks, names, errors = [], set(), 0
    for line in open(path):
        if not line.startswith("X("):
            continue
        m = LINE.match(line.strip())
        if not m:
            print("unparsable:", line.strip()); errors += 1; continue
        name, mn, fmt, op = m.group(1), m.group(2), m.group(3), int(m.group(4), 0)
        if name != mn.upper() or name in names:
            print("bad or duplicate NAME:", name); errors += 1
        names.add(name)
        checks.append((mn, fmt, op, BUILDERS[fmt](op)))
        if fmt in VOP3_BASE and mn not in NO_VOP3:
            checks.append((mn, fmt + "->VOP3", VOP3_BASE[fmt] + op,
                           g.vop3(VOP3_BASE[fmt] + op)))
    got = g.disassemble([g.words_to_line(w) for _, _, _, w in checks])
    for (mn, fmt, op, _), seen in zip(checks, got):
        seen = re.sub(r"_(e32|e64)$", "", seen or "<invalid>")
        if seen != mn:
            print("MISMATCH %s op 0x%x: table %s, llvm %s" % (fmt, op, mn, seen))
            errors += 1
    print("%d encodings checked, %d errors" % (len(checks), errors))
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main())
