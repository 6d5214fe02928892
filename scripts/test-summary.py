#!/usr/bin/env python3
"""Counts meson test results: one line per build, and a closing total line
('N passed, N failed') that CI reads."""
import json
import sys

if sys.argv[1] == "--total":
    passed = failed = skipped = 0
    for line in open(sys.argv[2]):
        label = line.split("|")[0]
        p, f, s = (int(x) for x in line.split("|")[1:4])
        print(f"  [{label}] {p} ok, {f} failing, {s} skipped")
        passed, failed, skipped = passed + p, failed + f, skipped + s
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(0)

path, label = sys.argv[1], sys.argv[2]
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(path):
    result = json.loads(line).get("result", "")
    if result in ("OK", "EXPECTEDFAIL"):
        counts["OK"] += 1
    elif result == "SKIP":
        counts["SKIP"] += 1
    else:
        counts["FAIL"] += 1
print(f"{label}|{counts['OK']}|{counts['FAIL']}|{counts['SKIP']}")
