#!/usr/bin/env bash
# Cold vs warm time to first call of a generated module (gen_module.py):
# the first run compiles and fills an empty object cache, the second
# process loads the object.  Prints one line per size with the ratio.
# usage: bench/compile/cold_warm.sh [BUILD_DIR] [N...]   (default: build 100 400)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
shift || true
sizes=("$@")
((${#sizes[@]})) || sizes=(100 400)
tanjit="$build/src/cli/tanjit"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in "${sizes[@]}"; do
  python3 "$here/gen_module.py" "$n" >"$work/m$n.ll"
  rm -rf "$work/cache"
  t0=$(date +%s.%N)
  cold=$("$tanjit" run "$work/m$n.ll" --cache-dir "$work/cache")
  t1=$(date +%s.%N)
  warm=$("$tanjit" run "$work/m$n.ll" --cache-dir "$work/cache")
  t2=$(date +%s.%N)
  [ "$cold" = "$warm" ] || { echo "results differ: $cold vs $warm" >&2; exit 1; }
  python3 - "$n" "$t0" "$t1" "$t2" <<'PY'
import sys
n, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:])
cold, warm = t1 - t0, t2 - t1
print(f"{n} functions: cold {cold:.3f} s, warm {warm:.3f} s, cold/warm {cold / warm:.1f}x")
PY
done
