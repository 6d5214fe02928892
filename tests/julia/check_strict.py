#!/usr/bin/env python3
"""Strict binding and Julia's error paths (tests/julia/control_flow.ll):
a program whose never-taken throw branches call `ijl_throw`, defined only by
libjulia, must be refused under strict binding with a message that names
the symbol (the user's cue to pass --lazy or provide the runtime), and must
run to success under --lazy.

usage: check_strict.py TANJIT_EXE FILE.ll
"""
import subprocess
import sys


def main():
    tanjit, source = sys.argv[1:3]
    problems = []
    strict = subprocess.run([tanjit, "run", source], capture_output=True,
                            text=True, timeout=120)
    if strict.returncode == 0:
        problems.append("strict binding ran a program that calls ijl_throw")
    elif "ijl_throw" not in strict.stderr or "unresolved" not in strict.stderr:
        problems.append("strict binding's refusal does not name the "
                        "unresolved ijl_throw: %r" % strict.stderr)
    lazy = subprocess.run([tanjit, "run", source, "--lazy"],
                          capture_output=True, text=True, timeout=120)
    if lazy.returncode != 0:
        problems.append("--lazy run failed (%d): %s%s"
                        % (lazy.returncode, lazy.stdout, lazy.stderr))
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("ok: strict refuses naming ijl_throw; --lazy runs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
