#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is
# missing, builds, and runs every suite (unit, engine, CUDA simulator,
# program corpus, randomized differential test).
#   scripts/test.sh            LLVM 19, all suites
#   scripts/test.sh --all      also: the install (scripts/test-install.sh),
#                              every suite against LLVM 22 and under
#                              ASan/UBSan, the threaded suites under TSan,
#                              and each fuzz harness for 20 s (what CI runs)
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
summary=()

run_suites() { # build_dir label [meson test args...]
  local dir=$1 label=$2
  shift 2
  echo "== $label"
  meson test -C "$dir" --print-errorlogs "$@"
  local rc=$?
  python3 scripts/test-summary.py "$dir/meson-logs/testlog.json" "$label" >>/tmp/tanjit-summary.$$
  return $rc
}

: >/tmp/tanjit-summary.$$
# Include rules between folders (ARCHITECTURE.md), before anything builds.
echo "== layout"
scripts/check-layout.sh || status=1
# Enzyme's integration tests (not in this repository) run when
# ENZYME_INTEGRATION names their test/Integration directory, or when the
# cache directory scripts/fetch-enzyme-tests.sh fills holds them.
enzyme_cache=${TANJIT_ENZYME_TESTS:-${XDG_CACHE_HOME:-$HOME/.cache}/tanjit/enzyme-tests}
enzyme_dir=${ENZYME_INTEGRATION:-}
if [ -z "$enzyme_dir" ] && [ -d "$enzyme_cache/test/Integration/ReverseMode" ]; then
  enzyme_dir=$enzyme_cache/test/Integration
fi
enzyme_args=()
[ -n "$enzyme_dir" ] && enzyme_args=("-Denzyme_integration=$enzyme_dir")
# An existing build directory takes the options a fresh one is set up with.
configure_existing() { # build_dir [meson options...]
  local dir=$1
  shift
  if (($#)) && [ -f "$dir/build.ninja" ]; then
    meson configure "$dir" "$@" >/dev/null || return 1
  fi
}
# The LLVM 22 and sanitizer builds run the programs at -O0 and -O2 only:
# -O1 and -O3 give the engine the shapes -O2 does (LLVM 19 runs all four),
# and CI's time goes mostly to compiling and running them.
reduced_levels=(-Dtest_levels=O0,O2)
configure_existing build "${enzyme_args[@]}" -Dtest_levels=O0,O1,O2,O3
scripts/bootstrap.sh build 19 "${enzyme_args[@]}" || exit 1
run_suites build "LLVM 19" || status=1

if [ "${1:-}" = "--all" ]; then
  echo "== install"
  if scripts/test-install.sh build; then
    echo "install|1|0|0" >>/tmp/tanjit-summary.$$
  else
    echo "install|0|1|0" >>/tmp/tanjit-summary.$$; status=1
  fi
  configure_existing build-llvm22 "${enzyme_args[@]}" "${reduced_levels[@]}"
  if scripts/bootstrap.sh build-llvm22 22 "${enzyme_args[@]}" "${reduced_levels[@]}"; then
    # selftest-native checks the corpus without tanjit, lazy-corpus reruns
    # the corpus lazily: once (above) is enough
    run_suites build-llvm22 "LLVM 22" --no-suite selftest --no-suite lazy-corpus || status=1
  else
    echo "LLVM 22 build failed"; status=1
  fi
  configure_existing build-asan "${enzyme_args[@]}" "${reduced_levels[@]}"
  if scripts/bootstrap.sh build-asan 19 -Db_sanitize=address,undefined -Db_lundef=false \
       "${enzyme_args[@]}" "${reduced_levels[@]}"; then
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      run_suites build-asan "ASan+UBSan" --no-suite selftest --no-suite lazy-corpus || status=1
  else
    echo "sanitizer build failed"; status=1
  fi
  # The multi-threaded suites under ThreadSanitizer (tanjit's own code is
  # instrumented; LLVM's is not), built alone: not every suite's programs.
  tsan_tests="threads embed parallel"
  if BOOTSTRAP_TESTS=$tsan_tests scripts/bootstrap.sh build-tsan 19 -Db_sanitize=thread -Db_lundef=false; then
    # shellcheck disable=SC2086 # a list of names
    TSAN_OPTIONS=halt_on_error=1 run_suites build-tsan "TSan" --no-rebuild $tsan_tests || status=1
  else
    echo "thread-sanitizer build failed"; status=1
  fi
  # Each libFuzzer harness (fuzz/) for a short, bounded time from the
  # program corpus: a crash, leak or sanitizer report fails the run and
  # leaves its reproducer in build-fuzz/artifacts-TARGET/.
  for target in ir_text bitcode requests; do
    echo "== fuzz $target (20 s)"
    log=$(mktemp)
    if scripts/fuzz.sh "$target" 20 -seed=1 >"$log" 2>&1; then
      grep -E "^#[0-9]+ +DONE" "$log" | tail -1
      echo "fuzz $target|1|0|0" >>/tmp/tanjit-summary.$$
    else
      tail -40 "$log"
      echo "fuzz $target (build-fuzz/artifacts-$target/)|0|1|0" >>/tmp/tanjit-summary.$$
      status=1
    fi
    rm -f "$log"
  done
fi
echo
python3 scripts/test-summary.py --total /tmp/tanjit-summary.$$
rm -f /tmp/tanjit-summary.$$
exit $status
