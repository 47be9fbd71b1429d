#!/usr/bin/env python3
"""Mutated-kernel campaign (issue 17): flips bits in the code of shipped
code objects and runs the workloads that use them, in emu and in timing
mode, checking that mgsim never crashes, hangs or trips a sanitizer on a
hostile kernel.

    scripts/mutate_kernels.py [--mgsim BIN] [--kdir DIR] [--seeds 1,4-9]
                              [--long N] [--first S] [--timeout SEC]
                              [-j JOBS] [-v]

Mutation i (its seed) picks a workload, finds the .text section of its
code object (inside the clang offload bundle when there is one) and flips
1 to 8 random bits there (one time in eight anywhere in the file, to reach
the loader too); the mutated file replaces the original in a private copy
of the kernel directory ($MGSIM_KERNEL_DIR). Both modes run with bounds so
that endless loops end: sim.max_wave_insts (emu) and sim.max_events
(timing); the watchdog stays at its default.

Accepted outcomes: exit 0, exit 1 (a mutated kernel may well compute a
wrong answer), exit 2 or 3 with exactly one "mgsim: error:" line.
Findings: a sanitizer report, exit 4 or any other code (abort, crash),
past the time limit, or more than one error line.
"""
import argparse
import os
import random
import shutil
import struct
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import campaign  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# workload -> its code object under the kernel directory
WORKLOADS = {w: w for w in (
    "vecadd", "mm", "fir", "atax", "bicg", "conv", "c2d", "km", "bfs", "mt",
    "st", "j2d", "aes", "bs", "fws", "fpdiv", "gd", "gemm", "gemver", "lu",
    "pr", "rl", "mp")}
BOUNDS = ["--set", "sim.max_wave_insts=200000",
          "--set", "sim.max_events=30000000"]


def elf_text(data, base=0):
    """(offset, size) of .text in the ELF at data[base:], or None."""
    if data[base:base + 4] != b"\x7fELF" or data[base + 4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", data, base + 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, base + 0x3a)
    def sh(i):
        return struct.unpack_from("<IIQQQQ", data, base + shoff + i * shentsize)
    try:
        strtab = sh(shstrndx)
        for i in range(shnum):
            name, _typ, _fl, _addr, off, size = sh(i)
            s = base + strtab[4] + name
            if data[s:s + 6] == b".text\x00":
                return base + off, size
    except struct.error:
        return None
    return None


def code_range(data):
    """.text of a plain code object or of the gfx803 entry of a bundle."""
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    if data.startswith(magic):
        n, = struct.unpack_from("<Q", data, len(magic))
        p = len(magic) + 8
        for _ in range(n):
            off, size, idlen = struct.unpack_from("<QQQ", data, p)
            ident = data[p + 24:p + 24 + idlen]
            p += 24 + idlen
            if b"gfx803" in ident:
                return elf_text(data, off)
        return None
    return elf_text(data)


def mutate(data, rng):
    rng_bits = rng.randint(1, 8)
    rng_text = code_range(data)
    b = bytearray(data)
    for _ in range(rng_bits):
        if rng_text and rng.random() >= 0.125:
            off, size = rng_text
            i = off + rng.randrange(size)
        else:
            i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b), rng_bits


def run_one(args, seed, names):
    rng = random.Random(seed)
    wl = rng.choice(names)
    co = WORKLOADS[wl]
    results = []
    with tempfile.TemporaryDirectory(prefix="mgsim-mk-") as tmp:
        kdir = os.path.join(tmp, "kernels")
        shutil.copytree(args.kdir, kdir)
        path = os.path.join(kdir, co + ".hsaco")
        data, nbits = mutate(open(path, "rb").read(), rng)
        open(path, "wb").write(data)
        env = dict(os.environ, MGSIM_KERNEL_DIR=kdir)
        for mode in ("emu", "timing"):
            cmd = [args.mgsim, "run", wl, "--size", "small", "--mode", mode,
                   "--quiet", "--db", os.path.join(tmp, mode + ".db")] + BOUNDS
            rc, err = campaign.run(cmd, args.timeout, env)
            first = campaign.first_line(err)
            results.append((mode, rc, campaign.judge(rc, err, (0, 1)), first))
    return seed, wl, nbits, results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    campaign.add_common_args(ap, "1-6")
    ap.add_argument("--kdir", default=os.environ.get(
        "MGSIM_KERNEL_DIR", os.path.join(ROOT, "build", "kernels")))
    args = ap.parse_args()
    names = sorted(w for w, co in WORKLOADS.items() if co and os.path.exists(
        os.path.join(args.kdir, co + ".hsaco")))
    seeds = campaign.seeds_of(args)
    counts, findings, runs = {}, 0, 0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for seed, wl, nbits, results in pool.map(
                lambda s: run_one(args, s, names), seeds):
            for mode, rc, problem, first in results:
                runs += 1
                counts[rc] = counts.get(rc, 0) + 1
                if problem:
                    findings += 1
                    print(f"FINDING seed {seed} ({wl}, {nbits} bit(s), "
                          f"{mode}): {problem} (exit {rc})\n  {first}\n"
                          f"  reproduce: {sys.argv[0]} --seeds {seed}",
                          flush=True)
                elif args.verbose:
                    print(f"ok seed {seed} {wl} {mode}: exit {rc} {first}",
                          flush=True)
    summary = ", ".join(f"exit {k}: {v}" for k, v in sorted(counts.items()))
    print(f"{len(seeds)} mutations, {runs} runs ({summary}); "
          f"{findings} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
