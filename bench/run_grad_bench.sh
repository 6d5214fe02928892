#!/bin/sh
# Runs tanjit's gradient benchmark: compiles grad_kernels.c to IR
# (clang -O2) and runs it under `tanjit run` (JIT at -O2): per loss the
# primal's and the gradient's ns per call and gradient/primal, within one
# run.  The table is also written as CSV.
# Usage: run_grad_bench.sh TANJIT [CLANG] [--csv DIR] [--quick] [--kernel NAME]
# --csv DIR (default: the current directory) receives bench-gradient.csv.
# An unknown --kernel NAME is an error naming the known losses (status 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: run_grad_bench.sh TANJIT [CLANG] [--csv DIR] [--quick] [--kernel NAME]"
tanjit=${1:?$usage}
shift
cc=clang-19
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then cc=$1; shift; fi
csv_dir=.
if [ $# -gt 0 ] && [ "$1" = --csv ]; then csv_dir=${2:?$usage}; shift 2; fi
mkdir -p "$csv_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "grad-bench: compiling grad_kernels.c with $cc -O2"
"$cc" -O2 -S -emit-llvm "$here/grad_kernels.c" -o "$work/grad_kernels.ll"
echo "== gradient timing (tanjit run, JIT at -O2; ns per call) =="
"$tanjit" run "$work/grad_kernels.ll" --stats -- --csv "$csv_dir/bench-gradient.csv" "$@"
