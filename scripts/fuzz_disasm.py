#!/usr/bin/env python3
"""Differential fuzzing of mgsim's GCN3 disassembler against LLVM 15.

Builds scripts/isa_driver.c (decoder + disassembler only) into BUILD/tools,
generates random instruction words for each encoding (opcode drawn from
src/gcn3/opcodes.def, other fields random, with biased operand codes), asks
both llvm-mc --disassemble and the driver, and reports every instruction
where the texts differ (or where one side rejects the encoding).

usage: scripts/fuzz_disasm.py [--build DIR] [--n N] [--seed S] [--fmt F,..]
"""
import argparse
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = [0xf5, 0x03, 0x80, 0xbf]          # s_nop 0x3f5
LINE = re.compile(r'^X\((\w+), "(\w+)", (\w+), (0x[0-9a-f]+|\d+), (.*)\)$')

def build_driver(build):
    out = os.path.join(build, "tools", "isa_driver")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    srcs = ["scripts/isa_driver.c", "src/gcn3/decode.c", "src/gcn3/disasm.c",
            "src/gcn3/opinfo.c", "src/util/errors.c"]
    subprocess.check_call(["gcc", "-std=c17", "-O1", "-g", "-Wall", "-Wextra",
                           "-Werror", "-D_GNU_SOURCE", "-Iinclude", "-Isrc",
                           "-I."] + srcs + ["-o", out], cwd=ROOT)
    return out

def load_ops():
    ops = {}
    for line in open(os.path.join(ROOT, "src/gcn3/opcodes.def")):
        m = LINE.match(line.strip())
        if m:
            ops.setdefault(m.group(3), []).append((int(m.group(4), 0),
                                                   m.group(2)))
    return ops

def rnd_src(r, allow_lit=True):
    """Biased 9-bit operand code."""
    c = r.random()
    if c < 0.3:
        return 256 + r.randrange(256)
    if c < 0.5:
        return r.randrange(102)
    if c < 0.75:
        return r.choice([106, 107, 124, 126, 127, 102, 103, 112, 113, 253])
    if c < 0.9:
        return r.choice(list(range(128, 209)) + list(range(240, 249)))
    return 255 if allow_lit else 128

def gen(fmt, op, r):
    """Returns the instruction as a list of dwords."""
    lit = [r.choice([r.getrandbits(32), 0x3f800000, 0x3e22f983, 0x40, 0x3800,
                     0xffffffff, 0x41, 0xffff0000])]
    rb = r.getrandbits
    if fmt == "SOP2":
        s0, s1 = rnd_src(r) & 0xff, rnd_src(r) & 0xff
        w = [(2 << 30) | (op << 23) | (rb(7) % 102 << 16) | (s1 << 8) | s0]
        return w + (lit if 255 in (s0, s1) else [])
    if fmt == "SOPK":
        return [(0xb << 28) | (op << 23) | (rb(7) % 102 << 16) | rb(16)] + (
            lit if op == 20 else [])
    if fmt == "SOP1":
        s0 = rnd_src(r) & 0xff
        return [(0x17d << 23) | (rb(7) % 102 << 16) | (op << 8) | s0] + (
            lit if s0 == 255 else [])
    if fmt == "SOPC":
        s0, s1 = rnd_src(r) & 0xff, rnd_src(r) & 0xff
        return [(0x17e << 23) | (op << 16) | (s1 << 8) | s0] + (
            lit if 255 in (s0, s1) else [])
    if fmt == "SOPP":
        imm = r.choice([rb(16), rb(4), 0, 0xc07f, 0x0f70, rb(16) & 0x0fff])
        return [(0x17f << 23) | (op << 16) | imm]
    if fmt == "SMEM":
        imm = rb(1)
        return [(0x30 << 26) | (op << 18) | (imm << 17) | (rb(1) << 16) |
                (rb(7) % 102 << 6) | rb(6) % 51,
                rb(20) if imm else rb(7) % 102]
    if fmt in ("VOP2", "VOP1", "VOPC"):
        c = r.random()
        s0 = 0xf9 if c < 0.12 else 0xfa if c < 0.2 else rnd_src(r)
        if fmt == "VOP2":
            w = (op << 25) | (rb(8) << 17) | (rb(8) << 9) | s0
        elif fmt == "VOP1":
            w = (0x3f << 25) | (rb(8) << 17) | (op << 9) | s0
        else:
            w = (0x3e << 25) | (op << 17) | (rb(8) << 9) | s0
        if s0 == 0xf9:
            sel = lambda: r.choice([0, 1, 2, 3, 4, 5, 6])
            e = (rb(8) | sel() << 8 | r.randrange(3) << 11 | rb(1) << 13 |
                 sel() << 16 | rb(4) << 19 | sel() << 24 | rb(3) << 27)
            return [w, e]
        if s0 == 0xfa:
            ctrl = r.choice([rb(8), 0x100 + rb(4), 0x110 + rb(4),
                             0x120 + rb(4), 0x130, 0x134, 0x138, 0x13c, 0x140,
                             0x141, 0x142, 0x143])
            return [w, rb(8) | ctrl << 8 | rb(1) << 19 | rb(4) << 20 |
                    rb(8) << 24]
        madk = fmt == "VOP2" and op in (23, 24, 36, 37)
        return [w] + (lit if s0 == 255 or madk else [])
    if fmt in ("VOP3A", "VOP3B", "VOP3P"):
        hi = rb(3) << 29 | r.choice([0, 0, rb(2)]) << 27
        # VOP3a bits 14:11 are unused (LLVM rejects them set).
        mid = rb(7) if fmt == "VOP3B" else rb(3)
        if r.random() < 0.5:     # integer ops reject modifier bits
            hi, mid = 0, (mid if fmt == "VOP3B" else 0)
        w = (0x34 << 26) | (op << 16) | (rb(1) << 15) | (mid << 8) | rb(8)
        return [w, hi | rnd_src(r, False) << 18 | rnd_src(r, False) << 9 |
                rnd_src(r, False)]
    if fmt == "DS":
        # LLVM rejects set fields an op does not use: zero some at random.
        f = [r.randrange(240) if r.random() < 0.6 else 0 for _ in range(4)]
        return [(0x36 << 26) | (op << 17) | (r.choice([0, 0, 1]) << 16) |
                r.choice([0, rb(16), rb(8)]),
                f[0] | f[1] << 8 | f[2] << 16 | f[3] << 24]
    if fmt == "FLAT":
        return [(0x37 << 26) | (op << 18) | (rb(2) << 16), rb(32) & ~(0x7f << 16)]
    if fmt == "MUBUF":
        return [(0x38 << 26) | (op << 18) | (rb(2) << 16) | (rb(3) << 12) |
                r.choice([0, rb(12)]),
                rnd_src(r, False) % 256 << 24 | rb(1) << 23 | rb(5) << 16 |
                rb(16)]
    if fmt == "MTBUF":
        return [(0x3a << 26) | rb(7) << 19 | (op << 15) | (rb(3) << 12) |
                rb(12), rnd_src(r, False) % 256 << 24 | rb(2) << 22 |
                rb(5) << 16 | rb(16)]
    if fmt == "MIMG":
        return [(0x3c << 26) | (rb(1) << 25) | (op << 18) | rb(10) << 8,
                rb(5) << 21 | rb(5) << 16 | rb(16)]
    if fmt == "VINTRP":
        return [(0x35 << 26) | (rb(8) << 18) | (op << 16) | rb(16)]
    if fmt == "EXP":
        return [(0x31 << 26) | rb(13), rb(32)]
    raise ValueError(fmt)

def to_bytes(words):
    b = []
    for w in words:
        b += [(w >> (8 * i)) & 0xff for i in range(4)]
    return b

def llvm_batch(insts):
    """insts: list of byte lists. Returns list of text or None (invalid)."""
    lines = [" ".join("0x%02x" % x for x in b + MARKER) for b in insts]
    res = subprocess.run(["llvm-mc-15", "--disassemble", "-arch=amdgcn",
                          "-mcpu=gfx803", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True,
                         text=True)
    bad = set(int(m.group(1)) - 1 for m in
              re.finditer(r"<stdin>:(\d+):\d+: warning", res.stderr))
    groups, cur = [], []
    for l in res.stdout.splitlines():
        l = l.strip()
        if not l or l.startswith("."):
            continue
        text, _, enc = l.partition(";")
        if "encoding: [0xf5,0x03,0x80,0xbf]" in enc and text.startswith("s_nop"):
            groups.append(cur)
            cur = []
        else:
            cur.append((re.sub(r"\s+", " ", text.strip()), enc))
    out = []
    for i, b in enumerate(insts):
        g = groups[i] if i < len(groups) else []
        if i in bad or len(g) != 1:
            out.append(None)
        else:
            out.append(g[0][0])
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build-isa"))
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fmt", default="")
    ap.add_argument("--show", type=int, default=40)
    a = ap.parse_args()
    driver = build_driver(a.build)
    r = random.Random(a.seed)
    ops = load_ops()
    fmts = a.fmt.split(",") if a.fmt else list(ops)
    insts, tags = [], []
    for fmt in fmts:
        for op, mn in ops[fmt]:
            for _ in range(a.n):
                insts.append(to_bytes(gen(fmt, op, r)))
                tags.append(mn)
    # Promoted VOP1/VOP2/VOPC forms as VOP3.
    if not a.fmt or "VOP3" in a.fmt:
        base = {"VOPC": 0, "VOP2": 0x100, "VOP1": 0x140}
        for fmt, b in base.items():
            for op, mn in ops[fmt]:
                for _ in range(a.n):
                    insts.append(to_bytes(gen("VOP3A", b + op, r)))
                    tags.append(mn + "_e64")
    mine = subprocess.run([driver, "lines"], capture_output=True, text=True,
                          input="\n".join(" ".join("%02x" % x for x in b)
                                          for b in insts) + "\n").stdout
    mine = mine.splitlines()
    ref = []
    for i in range(0, len(insts), 400):
        ref += llvm_batch(insts[i:i + 400])
    # Batches can lose sync after an encoding LLVM rejects; re-ask LLVM
    # about each disagreement on its own.
    for i, (m, rf) in enumerate(zip(mine, ref)):
        size, _, text = m.partition("\t")
        if rf != text:
            ref[i] = llvm_batch([insts[i]])[0]
    nbad, shown, both_invalid = 0, 0, 0
    per = {}
    for b, m, rf, tag in zip(insts, mine, ref, tags):
        size, _, text = m.partition("\t")
        if size == "ERR" and rf is None:
            both_invalid += 1
            continue
        if rf is not None and size != "ERR" and text == rf:
            continue
        if rf is None:       # LLVM rejects; we accept (lenient decoder)
            per.setdefault("llvm-rejects", 0)
            per["llvm-rejects"] += 1
            continue
        nbad += 1
        per[tag] = per.get(tag, 0) + 1
        if shown < a.show:
            shown += 1
            print("%s\n  llvm: %s\n  mine: %s" % (
                " ".join("%02x" % x for x in b), rf, text))
    print("%d instructions, %d mismatches, %d rejected by both, %s" % (
        len(insts), nbad, both_invalid,
        "llvm-only rejects %d" % per.pop("llvm-rejects", 0)))
    worst = sorted(per.items(), key=lambda kv: -kv[1])[:30]
    print("by op:", " ".join("%s:%d" % kv for kv in worst))
    return 1 if nbad else 0

if __name__ == "__main__":
    sys.exit(main())
