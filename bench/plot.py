#!/usr/bin/env python3
"""Plots a benchmark table (best_of.py --csv, or kernels.c's own --csv).

Writes two PNGs into OUTDIR:
  bench-tangent-primal.png  per kernel, the time of one tangent direction
                            over the primal's, at widths 1, 2, 4 and 8
                            (width w: call time / w); 1.0 is "free"
  bench-width-cost.png      per kernel, a width-w call's time over a width-1
                            call's, against w; the dashed line is w (w
                            separate width-1 calls)

Usage: plot.py TABLE.csv OUTDIR
Needs matplotlib (Debian: python3-matplotlib; bench/plots.sh installs it).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

WIDTHS = (1, 2, 4, 8)


def read_table(path):
    """[(kernel, primal ns, [ns per direction at each width or None])]"""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            per_dir = [float(r["tangent_ns"])]
            for w in WIDTHS[1:]:
                v = r.get(f"w{w}_ns_per_dir", "")
                per_dir.append(float(v) if v else None)
            rows.append((r["kernel"], float(r["primal_ns"]), per_dir))
    return rows


def plot_ratios(rows, path):
    fig, ax = plt.subplots(figsize=(9, 4.2))
    bar = 0.8 / len(WIDTHS)
    for wi, w in enumerate(WIDTHS):
        xs, ys = [], []
        for k, (_, primal, per_dir) in enumerate(rows):
            if per_dir[wi] is not None:
                xs.append(k + (wi - (len(WIDTHS) - 1) / 2) * bar)
                ys.append(per_dir[wi] / primal)
        ax.bar(xs, ys, bar, label=f"width {w}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r[0] for r in rows], rotation=20, ha="right")
    ax.set_ylabel("tangent time per direction / primal time")
    ax.set_title("Forward-mode cost per kernel and vector width (lower is better)")
    ax.legend(ncol=len(WIDTHS), fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_width_cost(rows, path):
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for name, _, per_dir in rows:
        ws = [w for w, v in zip(WIDTHS, per_dir) if v is not None]
        cost = [v * w / per_dir[0] for w, v in zip(WIDTHS, per_dir)
                if v is not None]
        ax.plot(ws, cost, marker="o", label=name)
    ax.plot(WIDTHS, WIDTHS, linestyle="--", color="black",
            label="w width-1 calls")
    ax.set_xscale("log", base=2)
    ax.set_xticks(WIDTHS)
    ax.set_xticklabels([str(w) for w in WIDTHS])
    ax.set_xlabel("vector width w (directions per call)")
    ax.set_ylabel("width-w call time / width-1 call time")
    ax.set_title("Vector mode: cost of w directions in one call")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = read_table(argv[1])
    if not rows:
        print(f"plot.py: no rows in {argv[1]}", file=sys.stderr)
        return 1
    os.makedirs(argv[2], exist_ok=True)
    for name, fn in (("bench-tangent-primal.png", plot_ratios),
                     ("bench-width-cost.png", plot_width_cost)):
        path = os.path.join(argv[2], name)
        fn(rows, path)
        print(f"plot.py: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
