#!/bin/sh
# Checks the include rules of src/ (the `layout` table in ARCHITECTURE.md):
# every folder of src/ has a row, every `#include "x/y.h"` of a file in
# src/ names a folder its row allows, and the folders' actual includes form
# no cycle.  Run by scripts/test.sh before the test suites.
# Usage: scripts/check-layout.sh [REPO_ROOT]
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
doc = open(os.path.join(root, "ARCHITECTURE.md")).read()
m = re.search(r"```layout\n(.*?)```", doc, re.S)
if not m:
    sys.exit("check-layout: no ```layout table in ARCHITECTURE.md")
allowed = {}
for line in m.group(1).splitlines():
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    unit, _, uses = line.partition(":")
    allowed[unit.strip()] = set(uses.split())

def unit_of(path):
    """The unit a file under src/ belongs to (a header may be a unit of its
    own, such as ad/ad.h, the engine's face)."""
    if path in allowed:
        return path
    d = os.path.dirname(path)
    return d

errors = []
edges = {}
src = os.path.join(root, "src")
for dirpath, _, names in os.walk(src):
    for name in sorted(names):
        if not name.endswith((".c", ".h")):
            continue
        rel = os.path.relpath(os.path.join(dirpath, name), src)
        unit = unit_of(rel)
        if unit not in allowed:
            errors.append(f"src/{rel}: folder {unit} has no row in the "
                          "ARCHITECTURE.md layout table")
            continue
        for n, line in enumerate(open(os.path.join(dirpath, name)), 1):
            im = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not im:
                continue
            inc = im.group(1)
            if not os.path.exists(os.path.join(src, inc)):
                if inc.startswith("tanjit/"):
                    target = "tanjit"  # the public header, include/tanjit
                else:
                    errors.append(f"src/{rel}:{n}: includes {inc}, which is "
                                  "not a path under src/ (include by the "
                                  "path from src/)")
                    continue
            else:
                target = unit_of(inc)
            if target == unit:
                continue
            edges.setdefault(unit, set()).add(target)
            if target not in allowed[unit]:
                errors.append(f"src/{rel}:{n}: {unit} may not include {inc} "
                              f"({target}); {unit} may use: "
                              f"{' '.join(sorted(allowed[unit])) or 'nothing'}")

# Cycles among the includes that exist (the table is meant to be a DAG;
# this catches a table edited into a cycle, too).
def cycles(graph, what):
    state = {}
    def visit(u, stack):
        state[u] = 1
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                cyc = stack[stack.index(v):] + [v]
                errors.append(f"cycle between folders ({what}): "
                              + " -> ".join(cyc))
            elif not state.get(v):
                visit(v, stack + [v])
        state[u] = 2
    for u in sorted(graph):
        if not state.get(u):
            visit(u, [u])
cycles(edges, "includes")
cycles(allowed, "layout table")
for u, uses in sorted(allowed.items()):
    for v in uses:
        if v not in allowed and v != "tanjit":
            errors.append(f"layout table: {u} uses {v}, which has no row")

if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(f"check-layout: {len(errors)} problem(s)")
print(f"check-layout: {len(allowed)} units, include rules hold, no cycles")
PY
