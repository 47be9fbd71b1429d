"""Shared parts of the robustness campaigns (random_configs.py,
mutate_kernels.py): command-line options, seed lists, running one mgsim
command with a time limit, and the outcome rules of docs/cli.md."""
import os
import subprocess


def add_common_args(ap, default_seeds):
    ap.add_argument("--mgsim", default=os.environ.get("MGSIM",
                                                      "build/san/mgsim"))
    ap.add_argument("--seeds", default=default_seeds,
                    help="fixed seed list, e.g. 1,4-9 (the default suite's)")
    ap.add_argument("--long", type=int, default=0,
                    help="deep run: this many seeds from --first")
    ap.add_argument("--first", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds per mgsim run (past it: a finding)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true")


def seeds_of(args):
    if args.long:
        return list(range(args.first, args.first + args.long))
    out = []
    for part in args.seeds.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def run(cmd, timeout, env=None):
    """(exit code, stderr); 124 when past the time limit."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           errors="replace", env=env, timeout=timeout)
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        err = e.stderr or ""
        if isinstance(err, bytes):
            err = err.decode("utf-8", "replace")
        return 124, err


def first_line(err):
    return err.strip().splitlines()[0] if err.strip() else ""


def judge(rc, err, quiet_codes):
    """The problem with an outcome, or None. quiet_codes end without an
    error line requirement (0, and 1 for mutated kernels); 2 and 3 need
    exactly one "mgsim: error:" line; anything else is a finding."""
    lines = [l for l in err.splitlines() if l.strip()]
    if "Sanitizer" in err or "runtime error:" in err:
        return "sanitizer report"
    if rc == 124:
        return "past the time limit"
    if rc in quiet_codes:
        return None
    if rc not in (2, 3):
        return f"exit {rc}"
    if len(lines) != 1 or not lines[0].startswith("mgsim: error: "):
        return "not exactly one error line"
    return None
