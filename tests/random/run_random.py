#!/usr/bin/env python3
"""Randomized differential test: random programs through `tanjit run`.

For each seed, gen_random.py writes one C program of random smooth
functions whose main compares each forward-mode tangent with finite
differences and checks reverse mode: the gradient of a random weighted
loss over all of them (from nonzero shadows) against forward mode by the
dot-product test and against finite differences.  The program is compiled
to IR by clang at each requested optimization level and run by tanjit.
Any mismatch, engine error (a reverse-mode refusal included) or crash
fails the test, naming the seed, the level and the messages; --keep DIR
keeps the sources and IR to reproduce one.

  run_random.py --tanjit BIN --clang CLANG            the fixed seed set
  TANJIT_RANDOM_MANY=500 run_random.py ...            plus 500 more seeds
  run_random.py ... --many 500 --start 1000           the same, explicitly
  run_random.py --native --clang CLANG --many 200     judge the generator
      itself without tanjit (finite differences step-stable and finite)
"""

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_random  # noqa: E402

FIXED_SEEDS = [1, 2, 3, 5, 8, 13, 21, 34]


def run(cmd, timeout):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout,
                              universal_newlines=True)
        return proc.returncode, proc.stdout
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout


def check_seed(args, seed, workdir):
    """Returns a list of failure descriptions for this seed (empty: ok)."""
    source = os.path.join(workdir, "random_%d.c" % seed)
    with open(source, "w") as f:
        f.write(gen_random.generate(seed, args.count, not args.no_reverse))
    failures = []
    for level in args.opt_levels:
        tag = "seed %d -O%s" % (seed, level)
        if args.native:
            exe = os.path.join(workdir, "random_%d_O%s" % (seed, level))
            rc, out = run([args.clang, "-O%s" % level, "-w",
                           "-DRANDOM_NATIVE_SELFTEST", source, "-lm", "-o",
                           exe], 60)
            if rc == 0:
                rc, out = run([exe], 60)
        else:
            ll = os.path.join(workdir, "random_%d_O%s.ll" % (seed, level))
            rc, out = run([args.clang, "-O%s" % level, "-S", "-emit-llvm",
                           source, "-o", ll], 60)
            if rc != 0:
                failures.append("%s: clang failed: %s" % (tag, out.strip()))
                continue
            rc, out = run([args.tanjit, "run", ll], args.timeout)
        if rc != 0:
            lines = [line for line in out.splitlines() if line.strip()]
            failures.append("%s: exit %s\n    %s" % (
                tag, rc, "\n    ".join(lines[-12:]) or "(no output)"))
    return failures


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--tanjit", help="the tanjit executable")
    parser.add_argument("--clang", default="clang-19")
    parser.add_argument("--count", type=int, default=8,
                        help="functions per program (default 8)")
    parser.add_argument("--seeds", help="comma-separated seeds instead of "
                        "the fixed set")
    parser.add_argument("--many", type=int,
                        default=int(os.environ.get("TANJIT_RANDOM_MANY", "0")),
                        help="also run this many consecutive seeds "
                        "(default: $TANJIT_RANDOM_MANY or 0)")
    parser.add_argument("--start", type=int, default=1000,
                        help="first seed of --many (default 1000)")
    parser.add_argument("--opt-levels", default="0,2",
                        help="clang levels to compile at (default 0,2)")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--keep", help="keep generated files in this folder")
    parser.add_argument("--no-reverse", action="store_true",
                        help="forward-mode checks only")
    parser.add_argument("--native", action="store_true",
                        help="no tanjit: check the generator's references")
    args = parser.parse_args()
    args.opt_levels = [x.strip() for x in args.opt_levels.split(",") if x.strip()]
    if not args.native and not args.tanjit:
        parser.error("--tanjit is required (or --native)")

    seeds = ([int(s) for s in args.seeds.split(",")] if args.seeds
             else list(FIXED_SEEDS))
    seeds += range(args.start, args.start + args.many)

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        tmp = None
        workdir = args.keep
    else:
        tmp = tempfile.TemporaryDirectory(prefix="tanjit-random-")
        workdir = tmp.name
    failures = []
    for seed in seeds:
        failures += check_seed(args, seed, workdir)
    runs = len(seeds) * len(args.opt_levels)
    for failure in failures:
        print("FAIL " + failure)
    print("random: %d programs (%d seeds x levels %s, %d functions each), "
          "%d failed" % (runs, len(seeds), ",".join(args.opt_levels),
                         args.count, len(failures)))
    if tmp:
        tmp.cleanup()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
