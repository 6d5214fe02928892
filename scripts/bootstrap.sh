#!/usr/bin/env bash
# Installs what tanjit needs on Debian 12 (when missing), then configures and
# builds it.  Usage: scripts/bootstrap.sh [BUILD_DIR] [LLVM_MAJOR] [meson options...]
# Defaults: build, LLVM 19.  Idempotent: a second run only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
llvm=${2:-19}
shift $(( $# > 2 ? 2 : $# ))

need=()
for pkg in "llvm-$llvm-dev" "clang-$llvm" meson ninja-build check pkg-config gcc libc6-dev libxxhash-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "bootstrap: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dllvm_config="llvm-config-$llvm" "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
ninja -C "$build" >"$log" 2>&1 || { cat "$log"; exit 1; }
echo "bootstrap: built $build against LLVM $llvm"
