#!/bin/sh
# tanjit's derivatives side by side with an anchor's (Enzyme's) on the same
# kernels, under the same tanjit JIT, so only the derivatives differ.
#
# The anchor directory (default ../shared/anchors/enzyme-bench beside the
# repository) holds kernels-<commit>.c, its callgrind driver cg_driver.c,
# cgctl.c, and Enzyme's differentiated IR of that driver with Enzyme's
# default flags (enzyme-cg_driver-O2.ll) and with -enzyme-fast-math=0
# (enzyme-nofm-cg_driver-O2.ll).  The driver calls each kernel's primal and
# each tangent width (1, 2, 4, 8) in its own measured window.
#
# Variants, each run by `tanjit run`:
#   tanjit         cg_driver.c compiled by tanjit's CLI (its default -O2
#                  pipeline: differentiation before unrolling/vectorizing),
#                  with --flags FLAGS added if given (e.g. --pre-ad=...)
#   tanjit-strict  the same with --strict-flag FLAG (tanjit's strict
#                  derivative arithmetic; left out when no FLAG is given,
#                  i.e. when tanjit's default is already strict)
#   tanjit-clangO2 (--clang-o2) cg_driver.c through clang -O2 first, as a
#                  frontend would hand tanjit IR
#   enzyme, enzyme-nofm  the anchor's two IR files
#
# 1. instructions per call: callgrind (deterministic), REPS calls per window,
#    the empty loop's cost subtracted (the anchor's cg_parse.py); bench/cgctl.c
#    starts callgrind's instrumentation at the first window, so compiling
#    runs uninstrumented (the counts are the anchor run.sh's);
# 2. time per call (thread CPU time, timectl.c): ROUNDS rounds, every
#    variant once per round in turn
#    (interleaved), TIME_REPS calls per window, the best of the rounds.
# Then side_by_side.py writes OUTDIR/side_by_side.md (tables: tanjit over
# the anchor per kernel and width) and OUTDIR/side_by_side.png.
#
# Usage: side_by_side.sh TANJIT OUTDIR [--anchor DIR] [--reps N] [--rounds N]
#          [--time-reps N] [--strict-flag FLAG] [--flags FLAGS] [--clang-o2]
#          [--kernel NAME] [--no-callgrind] [--publish]
# --kernel NAME measures only the kernels whose label contains NAME (the
# driver's own filter, e.g. --kernel matrix): a few seconds of callgrind
# per variant instead of a minute; the tables then have those rows only.
# --publish copies the chart and tables to docs/bench-side-by-side.{png,md}
# (the README's figures), keeping what the .md holds from the line
# `<!-- notes: kept by side_by_side.sh --publish -->` on; it refuses a
# --kernel run.
# About 5 minutes of callgrind plus the timing rounds on 2 cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: side_by_side.sh TANJIT OUTDIR [--anchor DIR] [--reps N] [--rounds N] [--time-reps N] [--strict-flag FLAG] [--flags FLAGS] [--clang-o2] [--kernel NAME] [--no-callgrind] [--publish]"
tanjit=${1:?$usage}
out=${2:?$usage}
shift 2
anchor=$here/../../shared/anchors/enzyme-bench
[ -d "$anchor" ] || anchor=/work/shared/anchors/enzyme-bench
reps=20 rounds=11 time_reps=10000 strict_flag= flags= clang_o2=0 callgrind=1 publish=0 kernel=
while [ $# -gt 0 ]; do
  case $1 in
    --anchor) anchor=${2:?$usage}; shift 2 ;;
    --reps) reps=${2:?$usage}; shift 2 ;;
    --rounds) rounds=${2:?$usage}; shift 2 ;;
    --time-reps) time_reps=${2:?$usage}; shift 2 ;;
    --strict-flag) strict_flag=${2:?$usage}; shift 2 ;;
    --flags) flags=${2:?$usage}; shift 2 ;;
    --clang-o2) clang_o2=1; shift ;;
    --kernel) kernel=${2:?$usage}; shift 2 ;;
    --no-callgrind) callgrind=0; shift ;;
    --publish) publish=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ "$publish" = 1 ] && [ -n "$kernel" ]; then
  echo "side_by_side: --publish takes every kernel, not --kernel $kernel" >&2
  exit 2
fi
case $tanjit in /*) ;; *) tanjit=$(pwd)/$tanjit ;; esac
anchor=$(cd "$anchor" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
clang=${TANJIT_CLANG:-clang-19}

cc -O2 -shared -fPIC "$here/cgctl.c" -o "$out/libcgctl.so"
cc -O2 -shared -fPIC "$here/timectl.c" -o "$out/libtimectl.so"
variants="tanjit"
[ -n "$strict_flag" ] && variants="$variants tanjit-strict"
if [ "$clang_o2" = 1 ]; then
  "$clang" -O2 -S -emit-llvm -I"$anchor" "$anchor/cg_driver.c" -o "$out/clangO2.ll"
  variants="$variants tanjit-clangO2"
fi
variants="$variants enzyme enzyme-nofm"

# The `tanjit run` arguments of a variant (its module and flags).
args_of() {
  case $1 in
    tanjit) echo "$anchor/cg_driver.c -Xclang-arg -I$anchor $flags" ;;
    tanjit-strict) echo "$anchor/cg_driver.c -Xclang-arg -I$anchor $flags $strict_flag" ;;
    tanjit-clangO2) echo "$out/clangO2.ll" ;;
    enzyme) echo "$anchor/enzyme-cg_driver-O2.ll" ;;
    enzyme-nofm) echo "$anchor/enzyme-nofm-cg_driver-O2.ll" ;;
  esac
}

if [ "$callgrind" = 1 ]; then
  for v in $variants; do
    echo "side_by_side: callgrind $v ($reps calls per window)"
    rm -rf "$out/cg-$v"; mkdir -p "$out/cg-$v"
    # shellcheck disable=SC2046 # args_of's words are separate arguments
    valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no --smc-check=all-non-file \
      --callgrind-out-file="$out/cg-$v/cg.%p" \
      "$tanjit" run $(args_of "$v") --no-cache --lib "$out/libcgctl.so" -- "$reps" ${kernel:+"$kernel"} \
      >"$out/cg-$v.log" 2>&1
    python3 "$anchor/cg_parse.py" "$out/cg-$v" "$reps" --json >"$out/ir-$v.json"
  done
fi

rm -f "$out"/time-*.log
round=1
while [ "$round" -le "$rounds" ]; do
  echo "side_by_side: timing round $round of $rounds ($time_reps calls per window)"
  for v in $variants; do
    # shellcheck disable=SC2046
    "$tanjit" run $(args_of "$v") --cache-dir "$out/cache" --lib "$out/libtimectl.so" \
      -- "$time_reps" ${kernel:+"$kernel"} >>"$out/time-$v.log"
  done
  round=$((round + 1))
done

py=python3
"$py" -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
# "Enzyme 367bc7b1, kernels as of 34c91bd": from the anchor's README and
# its kernels-<commit>.c
label=$(grep -o 'Enzyme [0-9a-f]\{7,\}' "$anchor/README.md" | head -n 1 || true)
kernels=$(cd "$anchor" && ls kernels-*.c 2>/dev/null | head -n 1 | sed 's/^kernels-//; s/\.c$//')
label="${label:-$(basename "$anchor")}${kernels:+, kernels as of $kernels}"
"$py" "$here/side_by_side.py" "$out" --reps "$time_reps" --anchor-name "$label" \
  --variants $variants
if [ "$publish" = 1 ]; then
  doc=$here/../docs/bench-side-by-side.md
  # The tables are replaced; the hand-written notes below the marker stay.
  marker='<!-- notes: kept by side_by_side.sh --publish -->'
  { cat "$out/side_by_side.md"
    if [ -f "$doc" ] && grep -qxF "$marker" "$doc"; then echo; sed -n "/^$marker\$/,\$p" "$doc"; fi
  } >"$out/published.md"
  cp "$out/published.md" "$doc"
  [ -f "$out/side_by_side.png" ] && cp "$out/side_by_side.png" "$here/../docs/bench-side-by-side.png"
  echo "side_by_side: published to docs/bench-side-by-side.{md,png}"
fi
