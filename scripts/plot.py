#!/usr/bin/python3
"""Plot one metric across the runs of mgsim results databases, or a study's
figure table. This script is the one place that draws mgsim's figures.

Reads the SQLite files that `mgsim run` writes (tables runs and metrics,
see docs/cli.md) and draws the value of one (component, metric) for every
run, as a bar chart (x = run or workload) or a line (x = a numeric
configuration key, e.g. gpu.num_cus, for parameter sweeps). Writes a PNG.

Examples:
  scripts/plot.py results/*.db --metric sim_time
  scripts/plot.py results/ --component run --metric wf_insts_per_s --by workload
  scripts/plot.py sweep.db --metric sim_time --by config:gpu.num_cus -o cus.png
  scripts/plot.py results/ --list          # which metrics exist
  scripts/plot.py --figure platforms-figure.csv --kind bars -o platforms.png

A figure table (written by `mgsim study`) is a CSV with the columns
x,group,value,paper: one bar (or line point) per (x, group), and the
paper's value, when known, as a black marker beside it. An x named
"geomean" or "mean" is the aggregate and is set apart.

Uses Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import argparse
import configparser
import glob
import os
import sqlite3
import sys


def database_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files.extend(sorted(glob.glob(os.path.join(p, "*.db"))))
        else:
            files.append(p)
    if not files:
        sys.exit("plot.py: error: no database files given or found")
    for f in files:
        if not os.path.isfile(f):
            sys.exit(f"plot.py: error: no such database: {f}")
    return files


def connect(path):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.execute("SELECT 1 FROM runs LIMIT 1")
        return db
    except sqlite3.Error as e:
        sys.exit(f"plot.py: error: {path} is not an mgsim results database ({e})")


def config_value(config_text, dotted):
    """Value of section.key in a run's effective configuration (INI)."""
    section, _, key = dotted.partition(".")
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",))
    try:
        cp.read_string(config_text or "")
        return cp.get(section, key).strip().strip('"')
    except (configparser.Error, KeyError):
        return None


def as_number(text):
    """Leading number of a value such as "64", "16KB", "1GHz" (for sorting)."""
    num = ""
    for ch in text or "":
        if ch.isdigit() or ch in ".-":
            num += ch
        else:
            break
    try:
        return float(num)
    except ValueError:
        return None


def list_metrics(files):
    seen = {}
    for f in files:
        db = connect(f)
        for comp, met, unit, n in db.execute(
                "SELECT component, metric, unit, COUNT(*) FROM metrics "
                "GROUP BY component, metric, unit ORDER BY component, metric"):
            key = (comp, met, unit)
            seen[key] = seen.get(key, 0) + n
        db.close()
    for (comp, met, unit), n in sorted(seen.items()):
        print(f"{comp}\t{met}\t{unit}\t{n} runs")


def collect(files, component, metric, by):
    """[(x label, x number or None, value, unit)] in file/run order."""
    points = []
    for f in files:
        db = connect(f)
        rows = db.execute(
            "SELECT r.id, r.workload, r.config_text, m.value, m.unit "
            "FROM runs r JOIN metrics m ON m.run_id = r.id "
            "WHERE m.component = ? AND m.metric = ? ORDER BY r.id",
            (component, metric)).fetchall()
        db.close()
        for run_id, workload, cfg, value, unit in rows:
            if by == "run":
                label = f"{os.path.basename(f)}:{run_id} {workload}" \
                    if len(files) > 1 else f"{run_id} {workload}"
                xnum = None
            elif by == "workload":
                label, xnum = workload, None
            else:
                label = config_value(cfg, by[len("config:"):])
                if label is None:
                    sys.exit(f"plot.py: error: run {run_id} in {f} has no "
                             f"configuration key {by[len('config:'):]}")
                xnum = as_number(label)
            points.append((label, xnum, value, unit))
    return points


def read_figure(path):
    """[(x, group, value or None, paper or None)] from a figure table."""
    import csv
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"plot.py: error: {path}: {e.strerror}")
    if not rows or not {"x", "group", "value"} <= set(rows[0]):
        sys.exit(f"plot.py: error: {path} is not a figure table "
                 "(columns x,group,value,paper)")

    def num(text):
        try:
            return float(text) if text not in (None, "") else None
        except ValueError:
            sys.exit(f"plot.py: error: {path}: '{text}' is not a number")
    return [(r["x"], r["group"], num(r["value"]), num(r.get("paper")))
            for r in rows]


def draw_figure(args, plt):
    """Grouped bars (or lines) from a study's figure table."""
    rows = read_figure(args.figure)
    xs, groups = [], []
    for x, g, _, _ in rows:
        if x not in xs:
            xs.append(x)
        if g not in groups:
            groups.append(g)
    cell = {(x, g): (v, p) for x, g, v, p in rows}
    aggregate = {"geomean", "mean"}
    # The aggregate sits apart from the workloads, after a gap.
    pos = {}
    at = 0.0
    for x in xs:
        if x in aggregate:
            at += 0.5
        pos[x] = at
        at += 1
    fig, ax = plt.subplots(figsize=(max(7, 0.55 * len(xs) * max(1, len(groups)) / 2 + 3), 4.8))
    width = 0.8 / max(1, len(groups))
    paper_labelled = False
    for k, g in enumerate(groups):
        off = (k - (len(groups) - 1) / 2) * width
        px = [pos[x] + off for x in xs]
        vals = [cell.get((x, g), (None, None))[0] for x in xs]
        if args.kind == "lines":
            ax.plot([p for p, v in zip(px, vals) if v is not None],
                    [v for v in vals if v is not None], marker="o", label=g)
        else:
            ax.bar([p for p, v in zip(px, vals) if v is not None],
                   [v for v in vals if v is not None], width, label=g)
        for x, p in zip(xs, px):
            ref = cell.get((x, g), (None, None))[1]
            if ref is not None:
                ax.plot([p], [ref], marker="x", color="black", markersize=9,
                        mew=2, linestyle="none",
                        label=None if paper_labelled else "paper")
                paper_labelled = True
    ax.set_xticks([pos[x] for x in xs])
    ax.set_xticklabels(xs, rotation=45 if len(xs) > 6 else 0,
                       ha="right" if len(xs) > 6 else "center")
    if args.hline is not None:
        ax.axhline(args.hline, color="gray", linewidth=0.8, linestyle="--")
    if args.log:
        ax.set_yscale("log")
    ax.set_xlabel(args.xlabel or "x")
    ax.set_ylabel(args.ylabel or "value")
    ax.set_title(args.title or os.path.basename(args.figure))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    out = args.out or os.path.splitext(args.figure)[0] + ".png"
    fig.savefig(out, dpi=120)
    print(f"wrote {out} ({len(xs)} x values, {len(groups)} groups)")
    return 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[1],
        epilog="Examples:\n" + __doc__.split("Examples:\n")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("databases", nargs="*",
                    help="results database files, or directories of *.db")
    ap.add_argument("--metric", help="metric name, e.g. sim_time")
    ap.add_argument("--component", default="run",
                    help="component name (default: run)")
    ap.add_argument("--by", default="run",
                    help="x axis: run (default), workload, or "
                         "config:SECTION.KEY for sweeps")
    ap.add_argument("-o", "--out", help="PNG file (default: METRIC.png)")
    ap.add_argument("--title", help="plot title")
    ap.add_argument("--log", action="store_true", help="logarithmic y axis")
    ap.add_argument("--list", action="store_true",
                    help="list the component/metric pairs and exit")
    ap.add_argument("--figure", help="draw a study's figure table (CSV) "
                    "instead of reading databases")
    ap.add_argument("--kind", choices=("bars", "lines"), default="bars",
                    help="figure table: grouped bars (default) or lines")
    ap.add_argument("--xlabel", help="figure table: x axis label")
    ap.add_argument("--ylabel", help="figure table: y axis label")
    ap.add_argument("--hline", type=float,
                    help="figure table: dashed reference line at this y")
    args = ap.parse_args()

    if args.figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return draw_figure(args, plt)
    if not args.databases:
        ap.error("give results databases (or --figure TABLE)")
    files = database_files(args.databases)
    if args.list:
        list_metrics(files)
        return 0
    if not args.metric:
        ap.error("--metric is required (use --list to see the metrics)")
    if args.by not in ("run", "workload") and not args.by.startswith("config:"):
        ap.error("--by must be run, workload or config:SECTION.KEY")

    points = collect(files, args.component, args.metric, args.by)
    if not points:
        sys.exit(f"plot.py: error: no run has metric {args.component}/"
                 f"{args.metric} (use --list)")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    unit = points[0][3]
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(points) + 2), 4.5))
    numeric = args.by.startswith("config:") and all(p[1] is not None for p in points)
    if numeric:
        points.sort(key=lambda p: p[1])
        ax.plot([p[1] for p in points], [p[2] for p in points], marker="o")
        ax.set_xlabel(args.by[len("config:"):])
    else:
        labels = [p[0] for p in points]
        ax.bar(range(len(points)), [p[2] for p in points])
        ax.set_xticks(range(len(points)))
        ax.set_xticklabels(labels, rotation=45 if len(points) > 4 else 0,
                           ha="right" if len(points) > 4 else "center")
        ax.set_xlabel(args.by if not args.by.startswith("config:")
                      else args.by[len("config:"):])
    if args.log:
        ax.set_yscale("log")
    ax.set_ylabel(f"{args.metric} ({unit})" if unit else args.metric)
    ax.set_title(args.title or f"{args.component} / {args.metric}")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    out = args.out or f"{args.metric}.png"
    fig.savefig(out, dpi=120)
    print(f"wrote {out} ({len(points)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
