#!/usr/bin/env bash
# Builds and runs one libFuzzer harness of fuzz/ for a bounded time.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
# TARGET: ir_text | bitcode | requests.  The build (clang-19, libFuzzer,
# ASan+UBSan) lives in build-fuzz/ (FUZZ_BUILD overrides); the corpus grows
# in build-fuzz/corpus-TARGET, seeded from tests/programs compiled to IR
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
seeds="$build/seeds"
if [ ! -f "$seeds/done" ]; then
  # Seeds: the program corpus as clang emits it at two levels (every program
  # holds __enzyme_fwddiff requests), as text and as bitcode.
  mkdir -p "$seeds/ll" "$seeds/bc"
  llvm_as="$(llvm-config-19 --bindir)/llvm-as"
  ls tests/programs/*.c | grep -v native_stub | xargs -P 2 -I{} sh -c '
    name=$(basename {} .c)
    for opt in -O0 -O2; do
      "$0" $opt -S -emit-llvm -Itests/programs {} -o "$1/ll/$name$opt.ll" 2>/dev/null &&
        "$2" "$1/ll/$name$opt.ll" -o "$1/bc/$name$opt.bc"
    done' "$cc" "$seeds" "$llvm_as"
  touch "$seeds/done"
fi
if [ -z "$(ls -A "$corpus")" ]; then
  if [ "$target" = bitcode ]; then cp "$seeds"/bc/*.bc "$corpus"/; else cp "$seeds"/ll/*.ll "$corpus"/; fi
fi

# Untrusted bitcode is read in the helper this build made.
export TANJIT_BITCODE_CHECK="$src/$build/src/tools/tanjit-bitcode-check"
# LLVM's own code is not instrumented and keeps caches alive to exit:
# leaks are reported only where tanjit's frames are on the stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/fuzz/lsan.supp:print_suppressions=0}
exec "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=4096 \
  -timeout=30 -max_len=65536 -artifact_prefix="$artifacts/" "$@" "$corpus"
