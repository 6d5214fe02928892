#!/usr/bin/env bash
# Builds and runs one libFuzzer harness of fuzz/ for a bounded time.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
# TARGET: ir_text | bitcode | requests.  The build (clang-19, libFuzzer,
# ASan+UBSan) lives in build-fuzz/ (FUZZ_BUILD overrides); the corpus grows
# in build-fuzz/corpus-TARGET, seeded from tests/programs (forward),
# tests/rev and Enzyme's ReverseMode programs (reverse) compiled to IR
# text (ir_text, requests) or bitcode (bitcode).  A crash, leak or timeout
# leaves its reproducer in build-fuzz/artifacts-TARGET/ and the exit status
# nonzero.  Replay one: build-fuzz/fuzz/fuzz_TARGET FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]}
shift 2
case "$target" in ir_text|bitcode|requests) ;; *)
  echo "fuzz.sh: unknown target $target (ir_text, bitcode, requests)" >&2; exit 2;;
esac
build=${FUZZ_BUILD:-build-fuzz}
cc=${FUZZ_CC:-clang-19}
src=$(pwd)

# libFuzzer and clang's sanitizer runtimes are their own package (not a
# dependency of clang-19): installed when missing, as bootstrap.sh does
rt=libclang-rt-19-dev
if [ "$cc" = clang-19 ] &&
   ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed"; then
  echo "fuzz.sh: installing $rt (apt-get)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$rt" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  CC=$cc meson setup "$build" -Dllvm_config=llvm-config-19 -Dfuzz=true \
    -Dtests=disabled -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link >"$build.setup.log" 2>&1 ||
    { cat "$build.setup.log"; exit 1; }
fi
ninja -C "$build" "fuzz/fuzz_$target" src/tools/tanjit-bitcode-check >/dev/null

corpus="$build/corpus-$target"
artifacts="$build/artifacts-$target"
mkdir -p "$corpus" "$artifacts"
# libFuzzer runs every seed before -max_total_time counts (about a second
# each under the sanitizers): a run shorter than 5 minutes (CI's 20 s)
# compiles and reads three sources in seven, as many seeds as the forward
# corpus alone held, in a seed folder of its own.
seeds="$build/seeds" sample="cat"
if [ "$seconds" -lt 300 ]; then
  seeds="$build/seeds-short" sample="awk NR%7<3"
fi
if [ ! -f "$seeds/done-rev" ]; then
  # Seeds: programs as clang emits them, as text and as bitcode: the
  # forward corpus (tests/programs: __enzyme_fwddiff) at two levels; the
  # reverse programs (tests/rev: __enzyme_autodiff, split mode's
  # __enzyme_augmentfwd / __enzyme_reverse, markers such as enzyme_out)
  # and, where ENZYME_INTEGRATION (or the cache scripts/test.sh reads)
  # holds them, Enzyme's ReverseMode C programs, each at -O2 (C at -O0
  # too).  Inputs over -max_len (64 KiB) would be cut short, so they are
  # left out.  A program clang cannot compile here is skipped.
  rm -rf "$seeds"
  mkdir -p "$seeds/ll" "$seeds/bc" "$seeds/src"
  llvm_as="$(llvm-config-19 --bindir)/llvm-as"
  enzyme_cache=${TANJIT_ENZYME_TESTS:-${XDG_CACHE_HOME:-$HOME/.cache}/tanjit/enzyme-tests}
  enzyme_dir=${ENZYME_INTEGRATION:-}
  if [ -z "$enzyme_dir" ] && [ -d "$enzyme_cache/test/Integration/ReverseMode" ]; then
    enzyme_dir=$enzyme_cache/test/Integration
  fi
  if [ -n "$enzyme_dir" ] && [ -d "$enzyme_dir/ReverseMode" ]; then
    for f in "$enzyme_dir"/ReverseMode/*.c; do
      tests/enzyme_integration_copy.sh "$f" "$seeds/src/enzyme-$(basename "$f")" \
        "$src/tests/enzyme_rev/test_utils.h"
    done
  fi
  { ls tests/programs/*.c | grep -v native_stub | sed 's/$/ tests\/programs -O0 -O2/'
    ls tests/rev/*.c | sed 's/$/ tests\/rev -O0 -O2/'
    ls tests/rev/*.cpp | sed 's/$/ tests\/rev -O2/'
    ls "$seeds"/src/*.c 2>/dev/null | sed 's/$/ tests\/enzyme_rev -O2/'
  } | $sample | SEEDS="$seeds" SEED_CC="$cc" LLVM_AS="$llvm_as" xargs -P 2 -L 1 sh -c '
    file=$0 include=$1; shift 1
    name=$(basename "$file" | tr . _)
    for opt in "$@"; do
      out="$SEEDS/ll/$name$opt.ll"
      if "$SEED_CC" $opt -S -emit-llvm -I"$include" "$file" -o "$out" 2>/dev/null &&
         [ "$(wc -c <"$out")" -le 65536 ]; then
        "$LLVM_AS" "$out" -o "$SEEDS/bc/$name$opt.bc"
      else
        rm -f "$out"
      fi
    done' 2>/dev/null || true
  touch "$seeds/done-rev"
fi
# The seeds are read as a second corpus directory (new inputs go to the
# first), so a corpus grown before the seeds changed still gets them.
seed_dir="$seeds/ll"
[ "$target" = bitcode ] && seed_dir="$seeds/bc"

# Untrusted bitcode is read in the helper this build made.
export TANJIT_BITCODE_CHECK="$src/$build/src/tools/tanjit-bitcode-check"
# LLVM's own code is not instrumented and keeps caches alive to exit:
# leaks are reported only where tanjit's frames are on the stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/fuzz/lsan.supp:print_suppressions=0}
exec "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=4096 \
  -timeout=30 -max_len=65536 -artifact_prefix="$artifacts/" "$@" "$corpus" "$seed_dir"
