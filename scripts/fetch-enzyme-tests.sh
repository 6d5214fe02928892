#!/usr/bin/env bash
# Downloads the sources of Enzyme's integration tests (enzyme/test/Integration
# and enzyme/include, at a fixed commit) into DIR, outside the source tree:
# the enzyme and enzyme_rev suites run them when configured with
# -Denzyme_integration=DIR/test/Integration.  Nothing is built.  They are
# not part of this repository, and must not be copied into it.
# Usage: scripts/fetch-enzyme-tests.sh DIR    (exit 1 when offline)
set -euo pipefail
commit=367bc7b1de5eaa707aa8695df233af8a81ab2119
dir=${1:?usage: scripts/fetch-enzyme-tests.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
case "$dir/" in
  "$root"/*) echo "fetch-enzyme-tests: $dir is inside the source tree; choose a directory outside it" >&2; exit 2 ;;
esac
if [ -f "$dir/.commit" ] && [ "$(cat "$dir/.commit")" = "$commit" ]; then
  exit 0
fi
tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! curl -fsSL --connect-timeout 10 --max-time 300 \
       "https://codeload.github.com/longshotsyndicate/Enzyme/tar.gz/$commit" |
     tar -xzf - -C "$tmp" --strip-components=2 --wildcards \
       '*/enzyme/test/Integration' '*/enzyme/include' 2>/dev/null ||
   [ ! -d "$tmp/test/Integration/ReverseMode" ]; then
  echo "fetch-enzyme-tests: could not download Enzyme's tests (offline?)" >&2
  exit 1
fi
rm -rf "$dir/test" "$dir/include"
mv "$tmp/test" "$tmp/include" "$dir/"
echo "$commit" >"$dir/.commit"
