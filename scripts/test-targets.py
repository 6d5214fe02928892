#!/usr/bin/env python3
"""The ninja targets a set of tests needs, so a build directory that runs
only those tests (CI's ThreadSanitizer build runs three) builds only them
and what they depend on, not every suite's programs.

Usage: test-targets.py BUILD_DIR TEST_NAME...  prints one target (an output
path relative to BUILD_DIR) per line; a name matches a test's own name or
any of its suites.  Exits 1 when a name matches nothing: a renamed test
would otherwise run nothing and pass."""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(["meson", "introspect", build, what],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    build, names = os.path.realpath(sys.argv[1]), set(sys.argv[2:])
    targets = introspect(build, "--targets")
    outputs = {t["id"]: t["filename"] for t in targets}
    built = {os.path.realpath(f) for t in targets for f in t["filename"]}
    wanted, matched = set(), set()
    for test in introspect(build, "--tests"):
        keys = {test["name"]} | {s.split(":")[-1] for s in test["suite"]}
        hit = keys & names
        if not hit:
            continue
        matched |= hit
        # what it runs, its declared dependencies, and built files its
        # arguments and environment name (a library a test dlopens, the
        # CLI it spawns) without depending on them
        files = [f for dep in test["depends"] for f in outputs.get(dep, [])]
        files += test["cmd"]
        files += [p for v in test["env"].values() for p in v.split(os.pathsep)]
        wanted |= {os.path.relpath(f, build) for f in files
                   if os.path.realpath(f) in built}
    missing = names - matched
    if missing:
        sys.exit("test-targets.py: no test or suite named " + ", ".join(sorted(missing)))
    print("\n".join(sorted(wanted)))


if __name__ == "__main__":
    main()
