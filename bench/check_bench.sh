#!/bin/sh
# A test of the benchmark's driver, not of timings: an unknown --kernel is
# an error naming the known kernels (exit status 2), and a short run of one
# kernel prints its row and writes both tables as CSV.
# Usage: check_bench.sh TANJIT CLANG
set -u
here=$(cd "$(dirname "$0")" && pwd)
tanjit=$1 cc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_bench: $*"; exit 1; }

out=$("$here/run_bench.sh" "$tanjit" "$cc" --csv "$work" --kernel nosuch 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "--kernel nosuch: exit status $rc, not 2: $out"
case $out in
  *"no kernel matches 'nosuch'; known kernels: 'polynomial', 'sum of squares',"*) ;;
  *) fail "--kernel nosuch does not name the known kernels: $out" ;;
esac

out=$("$here/run_bench.sh" "$tanjit" "$cc" --max-width 2 --csv "$work" --quick \
      --kernel "sum of squares" 2>&1) || fail "a short run failed: $out"
case $out in
  *"sum of squares "*) ;;
  *) fail "no row for sum of squares: $out" ;;
esac
[ "$(head -1 "$work/bench-timing.csv")" = \
  "kernel,primal_ns,tangent_ns,ratio,w2_ns_per_dir,w4_ns_per_dir,w8_ns_per_dir" ] \
  || fail "bench-timing.csv header: $(head -1 "$work/bench-timing.csv")"
rows=$(tail -n +2 "$work/bench-timing.csv")
case $rows in
  "sum of squares,"*[0-9]",,") ;; # widths 4 and 8 left out: empty cells
  *) fail "bench-timing.csv rows: $rows" ;;
esac
[ "$(wc -l < "$work/bench-timing.csv")" -eq 2 ] || fail "bench-timing.csv: not one row"
grep -q "^generated_function,insts,primal,primal_insts$" "$work/bench-codesize.csv" \
  || fail "bench-codesize.csv lacks its header"
echo "check_bench: ok"
