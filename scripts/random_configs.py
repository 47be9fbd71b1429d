#!/usr/bin/env python3
"""Random-configuration campaign (issue 17): draws in-range values for the
keys of src/config/keys.def, runs a small workload in timing mode and checks
that every run ends the way docs/cli.md promises.

    scripts/random_configs.py [--mgsim BIN] [--seeds 1,2,5-9] [--long N]
                              [--first S] [--timeout SEC] [-j JOBS]
                              [--pin KEY=VALUE]... [-v]

A configuration is a function of its seed only (Python's random.Random
seeded with it), so a finding is reproduced by its seed; each finding is
printed with the whole command line.

Accepted outcomes:
  exit 0   stderr holds nothing but warnings-free output;
  exit 2   exactly one "mgsim: error:" line (the configuration or the run
           cannot be built: refused before the simulation);
  exit 3   exactly one "mgsim: error:" line (a simulation limit or a model
           error), and the run is recorded in its database with exit 3.
Findings: any other exit code (1 = wrong answer on a valid configuration,
4 = internal error, 134 = abort, 124 = past the time limit), a sanitizer
report, more than one error line, or a started run missing from the
database.

Draws. Each key is redrawn with probability 0.35 (0.1 for the run limits
sim.*; else it keeps its default): 10 % its minimum, 10 % its maximum, else
log-uniform within a factor of 16 of the default (over the whole range when
the default is 0 = off; clamped to the range; sizes, ways, sets, banks and
CUs per array are powers of two 90 % of the time, as the caches need). sim.mode is always timing, output.* are left alone, and
demo.* do not matter to a workload.
"""
import argparse
import math
import os
import random
import re
import sqlite3
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import campaign  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS_DEF = os.path.join(ROOT, "src", "config", "keys.def")
WORKLOADS = ["vecadd", "mm", "fir", "atax", "bicg", "conv", "km", "bfs",
             "mt", "gemver", "st", "j2d", "pr", "aes", "lu"]
SKIP = {("sim", "mode"), ("output", "db"), ("output", "progress")}
KEY_RE = re.compile(r'^MGS_CFG_KEY\((\w+), (\w+), (\w+), "([^"]*)", '
                    r'([^,]+), ([^,]+), "([^"]*)"')
UNIT = {"SIZE": "B", "FREQ": "Hz", "BW": "B/s", "TIME": "ps"}
SUFFIX = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
          "Hz": 1, "KHz": 10**3, "MHz": 10**6, "GHz": 10**9,
          "B/s": 1, "KB/s": 10**3, "MB/s": 10**6, "GB/s": 10**9,
          "TB/s": 10**12, "ps": 1, "ns": 10**3, "us": 10**6, "ms": 10**9,
          "s": 10**12}


def parse_num(text):
    m = re.fullmatch(r"([0-9.]+)\s*([A-Za-z/]*)", text)
    if not m:
        return 0
    return int(float(m.group(1)) * SUFFIX.get(m.group(2), 1))


def bound(text):
    text = text.strip().rstrip("ull").rstrip("u")
    if text == "UINT64_MAX":
        return 2**64 - 1
    return int(text)


def load_keys():
    keys = []
    for line in open(KEYS_DEF):
        m = KEY_RE.match(line)
        if m:
            sec, key, typ, dflt, lo, hi, choices = m.groups()
            keys.append((sec, key, typ, dflt, bound(lo), bound(hi), choices))
    return keys


def draw_value(rng, typ, dflt, lo, hi, choices, pow2):
    if typ == "ENUM":
        return rng.choice(choices.split("|"))
    if typ == "BOOL":
        return rng.choice(["true", "false"])
    if typ == "STRING":
        return None
    d = parse_num(dflt) if typ in UNIT else int(dflt or 0)
    r = rng.random()
    if r < 0.1:
        v = lo
    elif r < 0.2:
        v = hi
    elif d == 0:
        # An "off" default (limits): anywhere in the range.
        a, b = max(lo, 1), max(hi, 1)
        v = int(math.exp(rng.uniform(math.log(a), math.log(b))))
        v = min(max(v, lo), hi)
    else:
        base = max(d, lo, 1)
        a = max(lo, base // 16, 1)
        b = min(hi, base * 16)
        if b < a:
            a, b = lo, hi
        v = int(round(math.exp(rng.uniform(math.log(a), math.log(b)))))
        if pow2 and rng.random() < 0.9 and v > 0:
            v = 1 << int(round(math.log2(v)))
        v = min(max(v, lo), hi)
    return f"{v}{UNIT.get(typ, '')}"


def make_config(seed, keys, pins=()):
    rng = random.Random(seed)
    sets = list(pins)
    pinned = {p.split("=")[0] for p in pins}
    for sec, key, typ, dflt, lo, hi, choices in keys:
        # The run limits (sim.*) mostly end a run early: drawn less often.
        p = 0.1 if sec == "sim" else 0.35
        if (sec, key) in SKIP or sec == "demo" or rng.random() >= p:
            continue
        if f"{sec}.{key}" in pinned:
            rng.random()  # same draws as unpinned: seeds stay comparable
            continue
        pow2 = typ == "SIZE" or key.endswith(("_ways", "_sets", "_banks",
                                              "cus_per_sa"))
        v = draw_value(rng, typ, dflt, lo, hi, choices, pow2)
        if v is not None:
            sets.append(f"{sec}.{key}={v}")
    return rng.choice(WORKLOADS), sets


def run_one(args, seed, keys):
    wl, sets = make_config(seed, keys, args.pin)
    with tempfile.TemporaryDirectory(prefix="mgsim-rc-") as tmp:
        db = os.path.join(tmp, "r.db")
        cmd = [args.mgsim, "run", wl, "--size", "small", "--mode", "timing",
               "--quiet", "--db", db]
        for s in sets:
            cmd += ["--set", s]
        rc, err = campaign.run(cmd, args.timeout)
        problem = judge(rc, err, db)
    shown = " ".join(a if " " not in a else repr(a) for a in cmd)
    return seed, rc, problem, shown, campaign.first_line(err)


def judge(rc, err, db):
    problem = campaign.judge(rc, err, (0,))
    if problem:
        return problem
    if rc == 0 and err.strip():
        return "stderr not empty"
    if rc != 3:
        return None
    try:
        row = sqlite3.connect(db).execute(
            "select exit_code from runs order by id desc limit 1").fetchone()
    except sqlite3.Error:
        row = None
    if not row or row[0] != 3:
        return "simulation error not recorded in the database"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    campaign.add_common_args(ap, "1-8")
    ap.add_argument("--pin", action="append", default=[],
                    metavar="KEY=VALUE",
                    help="keep a key at this value (not drawn); repeatable")
    args = ap.parse_args()
    keys = load_keys()
    seeds = campaign.seeds_of(args)
    counts, findings = {}, []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for seed, rc, problem, cmd, first in pool.map(
                lambda s: run_one(args, s, keys), seeds):
            counts[rc] = counts.get(rc, 0) + 1
            if problem:
                findings.append((seed, rc, problem, cmd, first))
                print(f"FINDING seed {seed}: {problem} (exit {rc})\n"
                      f"  {cmd}\n  {first}", flush=True)
            elif args.verbose:
                print(f"ok seed {seed}: exit {rc} {first}", flush=True)
    summary = ", ".join(f"exit {k}: {v}" for k, v in sorted(counts.items()))
    print(f"{len(seeds)} configurations ({summary}); "
          f"{len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
