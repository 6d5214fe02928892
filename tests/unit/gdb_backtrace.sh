#!/usr/bin/env bash
# JIT code under a debugger: `tanjit run -g` on a program that dereferences
# NULL in a JIT-compiled function; gdb's backtrace must name the function
# and its file:line.  Exit 77 (meson's SKIP) without gdb.
# Usage: gdb_backtrace.sh TANJIT crash_null.c
set -uo pipefail
tanjit=$1 program=$2
if ! command -v gdb >/dev/null; then
  echo "SKIP: gdb is not installed"
  exit 77
fi
line=$(grep -n 'CRASH LINE' "$program" | cut -d: -f1)
out=$(gdb -batch -nx -ex run -ex bt --args "$tanjit" run -g -O0 "$program" 2>&1)
echo "$out" | tail -n 12
frame=$(echo "$out" | grep -E '^#0 ')
case "$frame" in
  *"crash_here"*"$(basename "$program"):$line"*) echo "ok: $frame" ;;
  *) echo "FAIL: expected frame #0 in crash_here at $(basename "$program"):$line"; exit 1 ;;
esac
# the caller is JIT code too
echo "$out" | grep -qE '^#1 .* main \(\) at .*'"$(basename "$program")" ||
  { echo "FAIL: frame #1 is not main in $(basename "$program")"; exit 1; }
