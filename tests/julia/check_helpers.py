#!/usr/bin/env python3
"""Checks the helpers a derivative declares next to calls made under a
non-C calling convention (tests/julia/callconv.ll): every renamed ccall in
the derivative of f, the primal's and the helpers' alike, is `fastcc`; the
zeroing helpers are declared `fastcc` under the library's rename with their
"enzyme_math" tag; shadow allocations and frees mirror the primal ones.

usage: check_helpers.py TANJIT_EXE FILE.ll CUDASIM_DIR
"""
import re
import subprocess
import sys


def main():
    tanjit, source, cudasim = sys.argv[1:4]
    ir = subprocess.run([tanjit, "emit", source, "-L", cudasim, "-O", "0"],
                        check=True, capture_output=True, text=True).stdout
    problems = []

    body = re.search(r"^define internal [^\n]*@fwddiffef\(.*?^}", ir,
                     re.S | re.M)
    if not body:
        print("no derivative of f (fwddiffef) in the emitted IR")
        return 1
    calls = re.findall(r'call (fastcc )?[^@\n]*@"ejlstr\$([^$]+)\$([^"]+)"',
                       body.group(0))
    counts = {}
    for conv, fn, lib in calls:
        counts[fn] = counts.get(fn, 0) + 1
        if not conv:
            problems.append("call to %s (%s) in the derivative is not fastcc"
                            % (fn, lib))

    # each primal call, and one shadow companion
    expected = {"malloc": 4, "free": 4, "cuMemAlloc_v2": 2, "cuMemAlloc": 2,
                "cuMemFree_v2": 4}
    for fn, n in expected.items():
        if counts.get(fn, 0) != n:
            problems.append("%d calls to %s in the derivative, expected %d"
                            % (counts.get(fn, 0), fn, n))
    for fn in ("cuMemsetD8_v2", "cuMemsetD8"):
        if counts.get(fn, 0) < 1:
            problems.append("no %s helper call in the derivative" % fn)

    attrs = dict(re.findall(r"^attributes #(\d+) = \{(.*)\}$", ir, re.M))
    for fn in ("cuMemsetD8_v2", "cuMemsetD8"):
        m = re.search(r'^declare (fastcc )?i32 @"ejlstr\$%s\$libcuda\.so\.1"'
                      r'\(([^)]*)\)(?: #(\d+))?' % re.escape(fn), ir, re.M)
        if not m:
            problems.append("no declaration of ejlstr$%s$libcuda.so.1" % fn)
            continue
        if not m.group(1):
            problems.append("%s is not declared fastcc" % fn)
        if '"enzyme_math"="%s"' % fn not in attrs.get(m.group(3) or "", ""):
            problems.append('%s lacks "enzyme_math"="%s"' % (fn, fn))
    size_type = {"cuMemsetD8_v2": "i64", "cuMemsetD8": "i32"}
    for fn, t in size_type.items():
        if not re.search(r'@"ejlstr\$%s\$libcuda\.so\.1"\(i64, i8, %s\)'
                         % (re.escape(fn), t), ir):
            problems.append("%s does not take a %s size" % (fn, t))

    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("ok: %d renamed calls in the derivative, all fastcc" % len(calls))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
