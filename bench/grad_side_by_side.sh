#!/bin/sh
# tanjit's gradients side by side with Enzyme's on the same losses
# (grad_kernels.c through grad_cg_driver.c), under the same tanjit JIT, so
# only the gradients differ.  Enzyme is a plugin given by path (this
# script never builds it): the driver compiled by clang -O2, then Enzyme's
# pass (`opt -load-pass-plugin=PLUGIN -passes=enzyme`; $TANJIT_OPT, default
# opt-19), its gradients in the IR, then JIT-compiled by `tanjit run` at
# -O2 as every variant is.
#
# Variants, each run by `tanjit run`:
#   tanjit         the same clang -O2 IR, differentiated by tanjit (default flags)
#   tanjit-strict  the same with --strict-derivatives
#   enzyme         Enzyme's IR, default flags
#   enzyme-nofm    Enzyme's IR with -enzyme-fast-math=0
#
# 1. instructions per call: callgrind, REPS calls per window, the empty
#    loop's cost subtracted (the anchor's cg_parse.py), instrumentation
#    started at the first window (bench/cgctl.c);
# 2. time per call: thread CPU time (bench/timectl.c), ROUNDS rounds, each
#    variant once per round in turn, TIME_REPS calls per window, best kept.
# grad_side_by_side.py then writes OUTDIR/grad_side_by_side.md: per loss
# gradient/primal of each variant and tanjit's gradient over Enzyme's.
#
# Usage: grad_side_by_side.sh TANJIT OUTDIR [--enzyme PLUGIN] [--reps N]
#          [--rounds N] [--time-reps N] [--no-callgrind] [--publish]
# PLUGIN: Enzyme's pass plugin for this clang (LLVMEnzyme-19.so; default
# $TANJIT_ENZYME_PLUGIN).  --publish copies the tables to
# docs/bench-gradient-side-by-side.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: grad_side_by_side.sh TANJIT OUTDIR [--enzyme PLUGIN] [--reps N] [--rounds N] [--time-reps N] [--no-callgrind] [--publish]"
tanjit=${1:?$usage}
out=${2:?$usage}
shift 2
plugin=${TANJIT_ENZYME_PLUGIN:-}
# cg_parse.py (instructions per window) comes with the forward anchor
anchor=$here/../../shared/anchors/enzyme-bench
[ -d "$anchor" ] || anchor=/work/shared/anchors/enzyme-bench
reps=20 rounds=7 time_reps=2000 callgrind=1 publish=0
while [ $# -gt 0 ]; do
  case $1 in
    --enzyme) plugin=${2:?$usage}; shift 2 ;;
    --reps) reps=${2:?$usage}; shift 2 ;;
    --rounds) rounds=${2:?$usage}; shift 2 ;;
    --time-reps) time_reps=${2:?$usage}; shift 2 ;;
    --no-callgrind) callgrind=0; shift ;;
    --publish) publish=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[ -n "$plugin" ] && [ -f "$plugin" ] || {
  echo "grad_side_by_side: no Enzyme plugin (--enzyme PLUGIN or TANJIT_ENZYME_PLUGIN): '$plugin'" >&2
  exit 2
}
case $tanjit in /*) ;; *) tanjit=$(pwd)/$tanjit ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
clang=${TANJIT_CLANG:-clang-19}

cc -O2 -shared -fPIC "$here/cgctl.c" -o "$out/libcgctl.so"
cc -O2 -shared -fPIC "$here/timectl.c" -o "$out/libtimectl.so"
"$clang" -O2 -S -emit-llvm -I"$here" "$here/grad_cg_driver.c" -o "$out/grad_cg_driver-O2.ll"
opt=${TANJIT_OPT:-opt-19}
for v in enzyme enzyme-nofm; do
  extra=
  [ "$v" = enzyme-nofm ] && extra="-enzyme-fast-math=0"
  echo "grad_side_by_side: Enzyme's gradients ($v): $opt -passes=enzyme on clang -O2 IR"
  # shellcheck disable=SC2086 # extra is one word or none
  "$opt" -load-pass-plugin="$plugin" -passes=enzyme $extra -S \
    "$out/grad_cg_driver-O2.ll" -o "$out/$v-grad_cg_driver-O2.ll"
  if grep -q 'call.*@__enzyme_autodiff' "$out/$v-grad_cg_driver-O2.ll"; then
    echo "grad_side_by_side: $plugin left __enzyme_autodiff calls in $v's IR" >&2
    exit 1
  fi
done
variants="tanjit tanjit-strict enzyme enzyme-nofm"

args_of() {
  case $1 in
    tanjit) echo "$out/grad_cg_driver-O2.ll" ;;
    tanjit-strict) echo "$out/grad_cg_driver-O2.ll --strict-derivatives" ;;
    enzyme | enzyme-nofm) echo "$out/$1-grad_cg_driver-O2.ll" ;;
  esac
}

if [ "$callgrind" = 1 ]; then
  for v in $variants; do
    echo "grad_side_by_side: callgrind $v ($reps calls per window)"
    rm -rf "$out/cg-$v"; mkdir -p "$out/cg-$v"
    # shellcheck disable=SC2046 # args_of's words are separate arguments
    valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no --smc-check=all-non-file \
      --callgrind-out-file="$out/cg-$v/cg.%p" \
      "$tanjit" run $(args_of "$v") --no-cache --lib "$out/libcgctl.so" -- "$reps" \
      >"$out/cg-$v.log" 2>&1 || { cat "$out/cg-$v.log"; exit 1; }
    python3 "$anchor/cg_parse.py" "$out/cg-$v" "$reps" --json >"$out/ir-$v.json"
  done
fi

rm -f "$out"/time-*.log
round=1
while [ "$round" -le "$rounds" ]; do
  echo "grad_side_by_side: timing round $round of $rounds ($time_reps calls per window)"
  for v in $variants; do
    # shellcheck disable=SC2046
    "$tanjit" run $(args_of "$v") --cache-dir "$out/cache" --lib "$out/libtimectl.so" \
      -- "$time_reps" >>"$out/time-$v.log"
  done
  round=$((round + 1))
done

python3 "$here/grad_side_by_side.py" "$out" --reps "$time_reps" \
  --anchor-name "Enzyme ($(basename "$plugin"))" --variants $variants
if [ "$publish" = 1 ]; then
  cp "$out/grad_side_by_side.md" "$here/../docs/bench-gradient-side-by-side.md"
  echo "grad_side_by_side: published to docs/bench-gradient-side-by-side.md"
fi
