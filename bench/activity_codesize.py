#!/usr/bin/env python3
"""Tangent code size with activity analysis on and off.

For each generated derivative (as codesize.py finds them), prints the
primal's instruction count, the derivative's with activity analysis on
(ON.ll) and off (OFF.ll, TANJIT_AD_NO_ACTIVITY=1), the tangent
instructions (derivative minus primal) of each, and how many fewer tangent
instructions the analysis leaves.  Counts are before optimization
(`tanjit emit -O 0`).

Usage: activity_codesize.py ORIGINAL.ll ON.ll OFF.ll [FILTER]
FILTER keeps derivatives whose name contains it (e.g. fwddiffek_ for
width 1).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from codesize import instruction_counts  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    original = instruction_counts(sys.argv[1])
    on = instruction_counts(sys.argv[2])
    off = instruction_counts(sys.argv[3])
    keep = sys.argv[4] if len(sys.argv) == 5 else ""
    names = sorted(n for n in on if n not in original and keep in n)
    print("%-26s %6s %6s %6s %9s %9s %7s" % (
        "derivative", "primal", "on", "off", "tang.on", "tang.off", "fewer"))
    for name in names:
        primals = [p for p in original if p in name]
        primal = max(primals, key=len) if primals else None
        if not primal or name not in off:
            continue
        p = original[primal]
        t_on, t_off = on[name] - p, off[name] - p
        fewer = 100.0 * (t_off - t_on) / t_off if t_off > 0 else 0.0
        print("%-26s %6d %6d %6d %9d %9d %6.0f%%" % (
            name, p, on[name], off[name], t_on, t_off, fewer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
