#!/bin/sh
# A negative test: `tanjit run IR` must fail (nonzero exit, not a crash by
# signal) and its message must contain each of the given fixed strings.
# Usage: expect_error.sh TANJIT [--entry=NAME] [--with=FILE] [--flags=F] IR TEXT...
# (--entry: a program without main, e.g. Enzyme's ForwardMode/err_empty.c;
# --with: a second input file, loaded as a module of its own; --flags:
# options for `tanjit run`, split at spaces)
set -u
tanjit=$1
shift
entry=
case $1 in --entry=*) entry=$1; shift ;; esac
with=
case $1 in --with=*) with=${1#--with=}; shift ;; esac
flags=
case $1 in --flags=*) flags=${1#--flags=}; shift ;; esac
ir=$1
shift
out=$("$tanjit" run $entry $flags "$ir" ${with:+"$with"} 2>&1)
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -gt 125 ]; then
  echo "expected a clean failure, got exit status $rc: $out"
  exit 1
fi
for text in "$@"; do
  case $out in
    *"$text"*) ;;
    *) echo "message lacks '$text': $out"; exit 1 ;;
  esac
done
echo "failed as expected: $out"
