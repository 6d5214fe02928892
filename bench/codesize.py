#!/usr/bin/env python3
"""Derivative code size: instructions in the functions the engine generated.

Compares the functions defined in the IR given to tanjit (ORIGINAL) with
those in `tanjit emit -O 0` of it (EMITTED, differentiated but not yet
optimized): every function only EMITTED defines is generated (a
module-private function keeps its name there up to the `.tanjit.m<N>`
suffix loading gives it), and its
instruction count is printed beside the primal it derives from (the
longest original function name it contains).

Usage: codesize.py ORIGINAL.ll EMITTED.ll [--csv FILE]
(--csv also writes the table as CSV to FILE.)
"""

import csv

import re
import sys

DEFINE = re.compile(r'^define\b.*?@("?)([^"(\s]+)\1\(')
PROMOTED = re.compile(r'\.tanjit\.m\d+$')


def instruction_counts(path):
    """{function name: instruction count} for every definition in a .ll."""
    counts, current = {}, None
    with open(path) as f:
        for line in f:
            m = DEFINE.match(line)
            if m:
                current = PROMOTED.sub("", m.group(2))
                counts[current] = 0
            elif current is not None:
                if line.startswith("}"):
                    current = None
                elif (line[:1].isspace() and line.strip()
                      and not line.strip().startswith((";", "#dbg_"))):
                    counts[current] += 1
    return counts


def main():
    args = sys.argv[1:]
    csv_path = None
    if len(args) == 4 and args[2] == "--csv":
        csv_path = args[3]
        args = args[:2]
    if len(args) != 2:
        sys.exit(__doc__)
    original = instruction_counts(args[0])
    emitted = instruction_counts(args[1])
    generated = sorted(name for name in emitted if name not in original)
    if not generated:
        print("codesize: no generated functions in %s" % args[1])
        return 1
    rows = []
    print("%-40s %8s %-16s %8s %6s" % ("generated function", "insts",
                                       "primal", "insts", "ratio"))
    for name in generated:
        primals = [p for p in original if p in name]
        primal = max(primals, key=len) if primals else None
        rows.append((name, emitted[name], primal or "",
                     original[primal] if primal else ""))
        if primal and original[primal]:
            print("%-40s %8d %-16s %8d %6.1f" % (
                name, emitted[name], primal, original[primal],
                emitted[name] / original[primal]))
        else:
            print("%-40s %8d %-16s" % (name, emitted[name], "?"))
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["generated_function", "insts", "primal",
                          "primal_insts"])
            out.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
