#!/bin/sh
# Activity analysis on and off (TANJIT_AD_NO_ACTIVITY=1) on the benchmark
# kernels: tangent code size before optimization, for kernels compiled at
# -O0 (index variables in stack slots) and -O2 (index arithmetic in
# registers), then the timing table in both modes.
# Usage: activity.sh TANJIT [CLANG] [--quick] [--kernel NAME]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tanjit=${1:?usage: activity.sh TANJIT [CLANG] [--quick] [--kernel NAME]}
shift
cc=clang-19
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then cc=$1; shift; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for level in 0 2; do
  "$cc" -O$level -S -emit-llvm "$here/kernels.c" -o "$work/k$level.ll"
  "$tanjit" emit -O 0 "$work/k$level.ll" > "$work/on$level.ll"
  TANJIT_AD_NO_ACTIVITY=1 "$tanjit" emit -O 0 "$work/k$level.ll" \
    > "$work/off$level.ll"
  echo "== tangent code size, kernels at -O$level, width 1 (tanjit emit -O 0) =="
  python3 "$here/activity_codesize.py" "$work/k$level.ll" "$work/on$level.ll" \
    "$work/off$level.ll" fwddiffek_
  echo
done
echo "== timing, activity analysis on =="
"$tanjit" run "$work/k2.ll" -- "$@"
echo
echo "== timing, activity analysis off (TANJIT_AD_NO_ACTIVITY=1) =="
TANJIT_AD_NO_ACTIVITY=1 "$tanjit" run "$work/k2.ll" -- "$@"
