#!/usr/bin/env python3
"""Tables of tanjit's gradients against Enzyme's, per loss, from what
grad_side_by_side.sh left in OUTDIR:

  ir-VARIANT.json   instructions per call (callgrind, cg_parse.py --json)
  time-VARIANT.log  "TIME label<TAB>ns" lines (timectl.c), one window of
                    REPS calls each, from every round

Labels are "<loss>/primal" and "<loss>/grad".  For each metric and each
pair (tanjit, tanjit-strict against enzyme, enzyme-nofm) a table: the
gradient/primal of both, and tanjit's gradient over Enzyme's.  Writes
OUTDIR/grad_side_by_side.md and OUTDIR/grad_side_by_side.json.

Usage: grad_side_by_side.py OUTDIR --reps N [--anchor-name NAME] [--variants V...]
"""
import argparse
import json
import math
import os
import sys

PAIRS = [("tanjit", "enzyme", "tanjit (default) / Enzyme (default flags)"),
         ("tanjit-strict", "enzyme-nofm",
          "tanjit (--strict-derivatives) / Enzyme (fast-math off)")]
ORDER = ["sum of squares", "logsumexp", "MLP loss", "RK4 final norm",
         "n-body energy", "stencil energy"]


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


def div(a, b):
    return a / b if a is not None and b else None


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x):
    return "" if x is None else "%.2f" % x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--anchor-name", default="Enzyme")
    ap.add_argument("--variants", nargs="*", default=[])
    a = ap.parse_args()
    data = {"instructions": {}, "time": {}}
    for v in a.variants:
        p = os.path.join(a.outdir, "ir-%s.json" % v)
        if os.path.exists(p):
            with open(p) as f:
                data["instructions"][v] = json.load(f)
        p = os.path.join(a.outdir, "time-%s.log" % v)
        if os.path.exists(p):
            data["time"][v] = read_times(p, a.reps)
    md, result = [], {}
    units = {"instructions": "instructions per call (callgrind)",
             "time": "best-of-N interleaved time per call"}
    for metric in ("instructions", "time"):
        d = data[metric]
        for mine, anchor, heading in PAIRS:
            if mine not in d or anchor not in d:
                continue
            losses = sorted({k.rsplit("/", 1)[0] for k in d[anchor]},
                            key=lambda k: (ORDER.index(k) if k in ORDER else 99, k))
            rows, cols = {}, ([], [], [])
            for k in losses:
                t = div(d[mine].get(k + "/grad"), d[mine].get(k + "/primal"))
                e = div(d[anchor].get(k + "/grad"), d[anchor].get(k + "/primal"))
                r = div(d[mine].get(k + "/grad"), d[anchor].get(k + "/grad"))
                rows[k] = {"tanjit_grad_over_primal": t,
                           "enzyme_grad_over_primal": e,
                           "tanjit_grad_over_enzyme_grad": r}
                for c, x in zip(cols, (t, e, r)):
                    c.append(x)
            title = "%s, %s" % (heading, units[metric])
            lines = ["#### " + title, "",
                     "| loss | %s gradient/primal | %s gradient/primal | "
                     "gradient %s / %s |" % (mine, anchor, mine, anchor),
                     "|---|---:|---:|---:|"]
            for k in losses:
                x = rows[k]
                lines.append("| %s | %s | %s | %s |" % (
                    k, fmt(x["tanjit_grad_over_primal"]),
                    fmt(x["enzyme_grad_over_primal"]),
                    fmt(x["tanjit_grad_over_enzyme_grad"])))
            lines.append("| geometric mean | %s |" % " | ".join(
                fmt(geomean(c)) for c in cols))
            md.append("\n".join(lines) + "\n")
            result["%s: %s / %s" % (metric, mine, anchor)] = rows
    if not md:
        sys.exit("grad_side_by_side: no measurements in " + a.outdir)
    with open(os.path.join(a.outdir, "grad_side_by_side.md"), "w") as f:
        f.write("Anchor: %s. Gradient/primal within one run of each variant; "
                "the last column below 1.00: tanjit's gradient uses fewer "
                "instructions or less time than Enzyme's.\n\n" % a.anchor_name)
        f.write("\n".join(md))
    with open(os.path.join(a.outdir, "grad_side_by_side.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
