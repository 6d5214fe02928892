#!/bin/sh
# Runs tanjit's benchmark: compiles kernels.c to IR (clang -O2), runs it
# under `tanjit run` (timing table, a row per kernel as it is measured;
# --stats adds what differentiating cost next to optimizing and codegen),
# then reports the generated derivative code size from `tanjit emit -O 0`
# (differentiated, not optimized).  Both tables are also written as CSV.
# Usage: run_bench.sh TANJIT [CLANG] [--max-width N] [--csv DIR] [--quick] [--kernel NAME]
# --max-width N (1, 2, 4 or 8) leaves wider vector-mode requests out;
# --csv DIR (default: the current directory) receives bench-timing.csv and
# bench-codesize.csv.  An unknown --kernel NAME is an error naming the
# known kernels (exit status 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: run_bench.sh TANJIT [CLANG] [--max-width N] [--csv DIR] [--quick] [--kernel NAME]"
tanjit=${1:?$usage}
shift
cc=clang-19
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then cc=$1; shift; fi
cflags=
csv_dir=.
while [ $# -gt 0 ]; do
  case $1 in
    --max-width) cflags="-DBENCH_MAX_WIDTH=${2:?$usage}"; shift 2 ;;
    --csv) csv_dir=${2:?$usage}; shift 2 ;;
    *) break ;;
  esac
done
mkdir -p "$csv_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "bench: compiling kernels.c with $cc -O2"
"$cc" -O2 $cflags -S -emit-llvm "$here/kernels.c" -o "$work/kernels.ll"
echo "== timing (tanjit run, JIT at -O2; ns per call, w2..w8 per direction) =="
status=0
"$tanjit" run "$work/kernels.ll" --stats -- --csv "$csv_dir/bench-timing.csv" "$@" \
  || status=$?
# A usage error (unknown kernel or argument) has said why: nothing to size.
[ "$status" -eq 2 ] && exit 2
echo
echo "== derivative code size (tanjit emit -O 0) =="
if "$tanjit" emit -O 0 "$work/kernels.ll" > "$work/emitted.ll"; then
  python3 "$here/codesize.py" "$work/kernels.ll" "$work/emitted.ll" \
    --csv "$csv_dir/bench-codesize.csv" || status=1
else
  status=1
fi
echo "bench: tables also in $csv_dir/bench-timing.csv and $csv_dir/bench-codesize.csv"
exit $status
