#!/usr/bin/env python3
"""Derivative code size: instructions in the functions the engine generated.

Compares the functions defined in the IR given to tanjit (ORIGINAL) with
those in `tanjit emit -O 0` of it (EMITTED, differentiated but not yet
optimized): every function only EMITTED defines is generated (a
module-private function keeps its name there up to the `.tanjit.m<N>`
suffix loading gives it), and its
instruction count is printed beside the primal it derives from (the
longest original function name it contains).

Usage: codesize.py ORIGINAL.ll EMITTED.ll
"""

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
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    original = instruction_counts(sys.argv[1])
    emitted = instruction_counts(sys.argv[2])
    generated = sorted(name for name in emitted if name not in original)
    if not generated:
        print("codesize: no generated functions in %s" % sys.argv[2])
        return 1
    print("%-40s %8s %-16s %8s %6s" % ("generated function", "insts",
                                       "primal", "insts", "ratio"))
    for name in generated:
        primals = [p for p in original if p in name]
        primal = max(primals, key=len) if primals else None
        if primal and original[primal]:
            print("%-40s %8d %-16s %8d %6.1f" % (
                name, emitted[name], primal, original[primal],
                emitted[name] / original[primal]))
        else:
            print("%-40s %8d %-16s" % (name, emitted[name], "?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
