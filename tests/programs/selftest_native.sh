#!/bin/sh
# Checks the corpus without the engine: each program is compiled to IR at
# -O0 and -O2 (as meson does), and natively with native_stub.c and
# -DTANGENT_NATIVE_SELFTEST, which runs the primal and reference checks
# (tangent checks skipped).  Usage: selftest_native.sh [clang] [program.c...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
cc=${1:-clang-19}
[ $# -gt 0 ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
if [ $# -eq 0 ]; then set -- "$here"/*.c; fi
for src in "$@"; do
  name=$(basename "$src" .c)
  [ "$name" = native_stub ] && continue
  for opt in -O0 -O2; do
    if ! "$cc" $opt -Wall -Wextra -Werror -S -emit-llvm -I"$here" "$src" \
        -o "$work/$name$opt.ll"; then
      echo "$name $opt: IR compile FAILED"; status=1; continue
    fi
    if ! "$cc" $opt -Wall -Wextra -DTANGENT_NATIVE_SELFTEST -I"$here" \
        "$src" "$here/native_stub.c" -lm -o "$work/$name$opt"; then
      echo "$name $opt: native compile FAILED"; status=1; continue
    fi
    if ! out=$("$work/$name$opt"); then
      echo "$name $opt: native self-test FAILED"; echo "$out"; status=1
    else
      echo "$name $opt: $out"
    fi
  done
done
exit $status
