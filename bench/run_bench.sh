#!/bin/sh
# Runs tanjit's benchmark: compiles kernels.c to IR (clang -O2), runs it
# under `tanjit run` (timing table; --stats adds what differentiating cost
# next to optimizing and codegen), then reports the generated derivative
# code size from `tanjit emit -O 0` (differentiated, not optimized).
# Usage: run_bench.sh TANJIT [CLANG] [--max-width N] [--quick] [--kernel NAME]
# --max-width N (1, 2, 4 or 8) leaves wider vector-mode requests out.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tanjit=${1:?usage: run_bench.sh TANJIT [CLANG] [--quick] [--kernel NAME]}
shift
cc=clang-19
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then cc=$1; shift; fi
cflags=
if [ "${1:-}" = --max-width ]; then cflags="-DBENCH_MAX_WIDTH=${2:?}"; shift 2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cc" -O2 $cflags -S -emit-llvm "$here/kernels.c" -o "$work/kernels.ll"
echo "== timing (tanjit run, JIT at -O2) =="
status=0
"$tanjit" run "$work/kernels.ll" --stats -- "$@" || status=$?
echo
echo "== derivative code size (tanjit emit -O 0) =="
if "$tanjit" emit -O 0 "$work/kernels.ll" > "$work/emitted.ll"; then
  python3 "$here/codesize.py" "$work/kernels.ll" "$work/emitted.ll" || status=1
else
  status=1
fi
exit $status
