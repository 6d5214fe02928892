#!/usr/bin/env python3
"""Tables and a chart of tanjit over an anchor (Enzyme), per kernel and
tangent width, from what side_by_side.sh left in OUTDIR:

  ir-VARIANT.json   instructions per call (callgrind, cg_parse.py --json)
  time-VARIANT.log  "TIME label<TAB>ns" lines (timectl.c), one window of
                    REPS calls each, from every round

Writes OUTDIR/side_by_side.md (markdown tables), OUTDIR/side_by_side.json
(the ratios) and OUTDIR/side_by_side.png (needs matplotlib; skipped with a
note when it is missing).

Usage: side_by_side.py OUTDIR --reps N [--anchor-name NAME] [--variants V...]
"""
import argparse
import json
import math
import os
import sys

WIDTHS = (1, 2, 4, 8)
COLUMNS = ["primal"] + ["w%d" % w for w in WIDTHS]
# (tanjit variant, anchor variant, heading); the first variant present of
# each tuple's alternatives is used.
PAIRS = [
    (("tanjit",), "enzyme", "tanjit (default) / Enzyme (default flags)"),
    (("tanjit-strict", "tanjit"), "enzyme-nofm",
     "tanjit (strict) / Enzyme (fast-math off)"),
    (("tanjit-clangO2",), "enzyme",
     "tanjit on clang -O2 IR / Enzyme (default flags)"),
]


def read_times(path, reps):
    """label -> best ns per call over the rounds, the empty loop's best
    subtracted."""
    best = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("TIME "):
                continue
            label, _, ns = line[5:].rstrip("\n").rpartition("\t")
            ns = float(ns) / reps
            best[label] = min(best.get(label, ns), ns)
    noop = best.pop("noop/primal", 0.0)
    return {k: max(v - noop, 0.0) for k, v in best.items()}


# The driver's order (kernels.c's table); other kernels follow by name.
ORDER = ["polynomial", "sum of squares", "matrix-vector", "logsumexp",
         "RK4 (Lorenz)", "n-body step", "stencil 2-D", "MLP layer"]


def kernels_of(table):
    seen = sorted({label.rsplit("/", 1)[0] for label in table})
    return sorted(seen, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))


def ratio(num, den, label):
    a, b = num.get(label), den.get(label)
    if a is None or b is None or b <= 0:
        return None
    return a / b


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x):
    return "" if x is None else "%.2f" % x


def table_md(title, kernels, ratios):
    lines = ["#### " + title, "",
             "| kernel | " + " | ".join(COLUMNS) + " |",
             "|---|" + "---:|" * len(COLUMNS)]
    for k in kernels:
        lines.append("| %s | %s |" % (k, " | ".join(fmt(ratios[k].get(c)) for c in COLUMNS)))
    lines.append("| geometric mean | %s |" % " | ".join(
        fmt(geomean([ratios[k].get(c) for k in kernels])) for c in COLUMNS))
    return "\n".join(lines) + "\n"


def plot(path, kernels, panels, suptitle):
    """panels: [(title, {kernel: {col: ratio}})]; grouped bars per kernel,
    one bar per width, log scale, 1.0 marked."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("side_by_side: no matplotlib, no chart (Debian: python3-matplotlib)")
        return
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 3.6 * rows), squeeze=False)
    bar = 0.8 / len(WIDTHS)
    for i, (title, ratios) in enumerate(panels):
        ax = axes[i // cols][i % cols]
        for j, w in enumerate(WIDTHS):
            xs = [x + (j - 1.5) * bar for x in range(len(kernels))]
            ys = [ratios[k].get("w%d" % w) or float("nan") for k in kernels]
            ax.bar(xs, ys, bar, label="w%d" % w)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        vals = [v for k in kernels for v in ratios[k].values() if v]
        lo, hi = min(vals + [1.0]), max(vals + [1.0])
        fine = (0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 2, 3, 4, 6, 8)
        coarse = (0.25, 0.5, 0.75, 1.0, 1.5, 2, 4, 8, 16)
        ticks = [t for t in (coarse if hi / lo > 4 else fine)
                 if lo / 1.1 <= t <= hi * 1.1]
        ax.set_yticks(ticks)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(title, fontsize=9)
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels([k.split(" (")[0] for k in kernels], rotation=30,
                           ha="right", fontsize=8)
        ax.set_ylabel("tanjit / Enzyme (lower: tanjit faster)", fontsize=8)
        ax.legend(fontsize=7, ncol=4)
    for i in range(n, rows * cols):
        axes[i // cols][i % cols].axis("off")
    fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("side_by_side: chart in " + path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--anchor-name", default="anchor")
    ap.add_argument("--variants", nargs="*", default=[])
    a = ap.parse_args()
    ir, tm = {}, {}
    for v in a.variants:
        p = os.path.join(a.outdir, "ir-%s.json" % v)
        if os.path.exists(p):
            with open(p) as f:
                ir[v] = json.load(f)
        p = os.path.join(a.outdir, "time-%s.log" % v)
        if os.path.exists(p):
            tm[v] = read_times(p, a.reps)
    md, result, panels = [], {}, []
    kernels = None
    for metric, data, unit in (("instructions", ir, "instructions per call (callgrind)"),
                               ("time", tm, "best-of-N interleaved time per call")):
        for alternatives, anchor, heading in PAIRS:
            mine = next((v for v in alternatives if v in data), None)
            if not mine or anchor not in data:
                continue
            kernels = kernels or kernels_of(data[anchor])
            ratios = {k: {c: ratio(data[mine], data[anchor], "%s/%s" % (k, c))
                          for c in COLUMNS} for k in kernels}
            title = "%s, %s (%s / %s)" % (heading, unit, mine, anchor)
            md.append(table_md(title, kernels, ratios))
            result["%s: %s / %s" % (metric, mine, anchor)] = ratios
            if alternatives[0] != "tanjit-clangO2":
                panels.append(("%s: %s" % (metric, heading), ratios))
    if not md:
        sys.exit("side_by_side: no measurements in " + a.outdir)
    with open(os.path.join(a.outdir, "side_by_side.md"), "w") as f:
        f.write("Anchor: %s. Ratios below 1.00: tanjit uses fewer instructions "
                "or less time.\n\n" % a.anchor_name)
        f.write("\n".join(md))
    with open(os.path.join(a.outdir, "side_by_side.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(md))
    plot(os.path.join(a.outdir, "side_by_side.png"), kernels, panels,
         "tanjit / %s, per kernel and tangent width" % a.anchor_name)


if __name__ == "__main__":
    main()
