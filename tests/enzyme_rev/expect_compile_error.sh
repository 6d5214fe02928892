#!/bin/sh
# A negative compile test: compiling SOURCE to IR must fail (a C++
# program the stand-in <enzyme/enzyme> rejects, as Enzyme's header does)
# and clang's message must contain each of the given fixed strings.
# Usage: expect_compile_error.sh CLANG SOURCE INCLUDE_DIR LEVEL TEXT...
set -u
clang=$1 source=$2 include=$3 level=$4
shift 4
out=$("$clang" -std=c++17 "-$level" -I "$include" -S -emit-llvm "$source" \
      -o /dev/null 2>&1)
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -gt 125 ]; then
  echo "expected a compile error, got exit status $rc: $out"
  exit 1
fi
for text in "$@"; do
  case $out in
    *"$text"*) ;;
    *) echo "clang's message lacks '$text': $out"; exit 1 ;;
  esac
done
echo "refused as expected"
