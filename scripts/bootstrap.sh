#!/usr/bin/env bash
# Installs what tanjit needs on Debian 12 (when missing), then configures and
# builds it.  Usage: scripts/bootstrap.sh [BUILD_DIR] [LLVM_MAJOR] [meson options...]
# Defaults: build, LLVM 19.  Idempotent: a second run only rebuilds.
# BOOTSTRAP_TESTS="NAME..." builds only what those tests or suites need
# (scripts/test-targets.py); run them with `meson test --no-rebuild`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
llvm=${2:-19}
shift $(( $# > 2 ? 2 : $# ))

need=()
for pkg in "llvm-$llvm-dev" "clang-$llvm" meson ninja-build check pkg-config gcc libc6-dev libxxhash-dev libblas-dev liblapack-dev libeigen3-dev libboost-dev libomp-14-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "bootstrap: installing ${need[*]} (apt-get; a minute or two)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$build/build.ninja" ]; then
  echo "bootstrap: configuring $build (meson setup, LLVM $llvm${*:+, $*})"
  meson setup "$build" -Dllvm_config="llvm-config-$llvm" "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
# A line per quarter of the build, not ninja's line per file (that goes to
# the log, shown if the build fails).
targets=()
if [ -n "${BOOTSTRAP_TESTS:-}" ]; then
  # shellcheck disable=SC2086 # a list of names
  mapfile -t targets < <(python3 scripts/test-targets.py "$build" $BOOTSTRAP_TESTS) &&
    ((${#targets[@]})) || { echo "bootstrap: no targets for tests: $BOOTSTRAP_TESTS"; exit 1; }
fi
start=$SECONDS
if ! ninja -C "$build" "${targets[@]}" 2>&1 | tee "$log" | awk -v build="$build" '
  match($0, /^\[[0-9]+\/[0-9]+\]/) {
    split(substr($0, 2, RLENGTH - 2), step, "/")
    if (!announced) { printf "bootstrap: building %s (ninja)\n", build; announced = 1 }
    quarter = int(4 * step[1] / step[2])
    if (quarter > shown && quarter < 4) {
      printf "bootstrap: %s: %d/%d steps\n", build, step[1], step[2]; shown = quarter
    }
    fflush()
  }'; then
  cat "$log"
  exit 1
fi
if grep -q "^ninja: no work to do" "$log"; then
  echo "bootstrap: $build is up to date (LLVM $llvm)"
else
  echo "bootstrap: built $build against LLVM $llvm in $((SECONDS - start)) s"
fi
