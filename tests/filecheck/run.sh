#!/bin/sh
# Runs one FileCheck test: TANJIT FILECHECK TEST.ll
# Each `; EMIT: <tanjit emit options> [| <FileCheck options>]` line of the
# test runs `tanjit emit <options> TEST.ll` and checks its output against
# TEST.ll's CHECK lines (or the prefix the FileCheck options name).
# Exit 77 (skipped) when FileCheck is not installed.
set -u
tanjit=$1 filecheck=$2 test=$3
if [ -z "$filecheck" ] || [ ! -x "$filecheck" ]; then
  echo "FileCheck not found (llvm-19 ships /usr/lib/llvm-19/bin/FileCheck): skipped"
  exit 77
fi
lines=$(grep '^; EMIT:' "$test" | sed 's/^; EMIT://')
if [ -z "$lines" ]; then
  echo "$test has no '; EMIT:' line"
  exit 1
fi
status=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "$lines" | while IFS= read -r line; do
  emit_opts=${line%%|*}
  check_opts=
  case $line in *"|"*) check_opts=${line#*|} ;; esac
  # shellcheck disable=SC2086 # options are words
  if ! "$tanjit" emit $emit_opts "$test" >"$out"; then
    echo "tanjit emit$emit_opts $test failed"
    exit 1
  fi
  # shellcheck disable=SC2086
  if ! "$filecheck" $check_opts "$test" --input-file "$out"; then
    echo "for: tanjit emit$emit_opts $test | FileCheck$check_opts"
    exit 1
  fi
done || status=1
exit $status
