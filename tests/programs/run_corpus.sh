#!/bin/sh
# Runs the whole corpus through a tanjit binary outside meson and prints one
# line per program and variant (PASS, or FAIL with the first message), for
# status reports.  Usage: run_corpus.sh TANJIT [CLANG] [program...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tanjit=${1:?usage: run_corpus.sh TANJIT [CLANG] [program...]}
cc=${2:-clang-19}
[ $# -ge 2 ] && shift 2 || shift 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
  set -- $(sed -n "/^corpus_programs = \[/,/^\]/p" "$here/meson.build" |
           grep -o "'[a-z0-9_]*'" | tr -d "'")
fi
pass=0 fail=0
for name in "$@"; do
  for opt in -O0 -O2; do
    ll="$work/$name$opt.ll"
    if ! "$cc" $opt -S -emit-llvm -I"$here" "$here/$name.c" -o "$ll" 2>"$work/err"; then
      echo "FAIL $name$opt: clang: $(head -1 "$work/err")"; fail=$((fail+1)); continue
    fi
    out=$(timeout 60 "$tanjit" run "$ll" 2>&1); rc=$?
    if [ $rc -eq 0 ]; then
      echo "PASS $name$opt"; pass=$((pass+1))
    else
      msg=$(printf '%s\n' "$out" | grep -v '^$' | head -3 | tr '\n' '|')
      echo "FAIL $name$opt (rc=$rc): $msg"; fail=$((fail+1))
    fi
  done
done
echo "passed $pass, failed $fail"
