#!/usr/bin/env bash
# What an embedder does with an installed tanjit, checked end to end:
#   1. `meson install` of BUILD_DIR, staged (--destdir) in a temporary dir;
#   2. a program built outside with only `pkg-config --cflags --libs tanjit`
#      computes a derivative;
#   3. the installed `tanjit` runs a program with no LD_LIBRARY_PATH;
#   4. a meson project using tanjit as a subproject (`dependency('tanjit')`,
#      no wrap file) builds, runs, and installs the CUDA simulator under its
#      own directory when asked (-Dtanjit:install_cudasim=true).
# Usage: scripts/test-install.sh [BUILD_DIR]   (default build; must be built)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }
step() { echo "test-install: $*"; }

step "meson install -C $build --destdir $tmp/stage"
DESTDIR="$tmp/stage" meson install -C "$build" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "meson install"; }
prefix=$(meson introspect --buildoptions "$build" |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
staged="$tmp/stage$prefix"
pc=$(find "$staged" -name tanjit.pc | head -1)
[ -n "$pc" ] || fail "no tanjit.pc installed"
export PKG_CONFIG_PATH="$(dirname "$pc")"
pkgconf() { pkg-config --define-variable=prefix="$staged" "$@" tanjit; }
libdir=$(pkgconf --variable=libdir)
soname=$(readelf -d "$libdir/libtanjit.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
version=$(pkgconf --modversion)
[ "$soname" = "libtanjit.so.${version%%.*}" ] || fail "SONAME '$soname' is not libtanjit.so.${version%%.*}"
[ -f "$staged/share/doc/tanjit/LICENSE" ] || fail "LICENSE not installed"

# The consumer: a module with an in-IR request and a run-time request.
cat >"$tmp/square.ll" <<'IR'
declare double @__enzyme_fwddiff(ptr, ...)
define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @dsquare(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, double %x, double 1.0)
  ret double %d
}
define i32 @main() {
  ret i32 0
}
IR
cat >"$tmp/consumer.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tanjit/tanjit.h>
#include <llvm-c/Core.h> /* tanjit.pc's Cflags reach LLVM-C's headers too */

int main(int argc, char **argv) {
  if (argc != 2 || strcmp(tanjit_version(), TANJIT_VERSION_STRING) != 0)
    return 2;
  tanjit_options o;
  tanjit_options_init(&o);
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  if (!s || tanjit_load_file(s, argv[1], &err)) {
    fprintf(stderr, "%s\n", tanjit_error_message(err));
    return 1;
  }
  double (*d)(double) = (double (*)(double))(uintptr_t)tanjit_lookup(s, "dsquare", &err);
  tanjit_activity act[] = {TANJIT_DUP};
  double (*d2)(double, double) =
      (double (*)(double, double))(uintptr_t)tanjit_fwddiff(s, "square", act, 1, 1, &err);
  if (!d || !d2) {
    fprintf(stderr, "%s\n", tanjit_error_message(err));
    return 1;
  }
  printf("%g %g %s\n", d(3.0), d2(1.5, 2.0), tanjit_llvm_version());
  tanjit_session_free(s);
  return 0;
}
C
check_consumer_output() { # output
  case "$1" in
    "6 6 "[0-9]*) ;;
    *) fail "consumer printed '$1', expected '6 6 LLVM-VERSION'" ;;
  esac
}

step "outside consumer with \$(pkg-config --cflags --libs tanjit)"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/consumer" "$tmp/consumer.c" $(pkgconf --cflags --libs) ||
  fail "consumer does not build with pkg-config's flags"
check_consumer_output "$(LD_LIBRARY_PATH="$libdir" "$tmp/consumer" "$tmp/square.ll")"

step "installed tanjit without LD_LIBRARY_PATH"
env -u LD_LIBRARY_PATH "$staged/bin/tanjit" --help >/dev/null || fail "installed tanjit --help"
env -u LD_LIBRARY_PATH "$staged/bin/tanjit" run "$tmp/square.ll" || fail "installed tanjit run"

step "consumer with tanjit as a meson subproject"
mkdir -p "$tmp/sub/subprojects"
ln -s "$root" "$tmp/sub/subprojects/tanjit"
cp "$tmp/consumer.c" "$tmp/sub/"
cat >"$tmp/sub/meson.build" <<'MESON'
project('tanjit-consumer', 'c', default_options : ['c_std=c11'])
executable('consumer', 'consumer.c', dependencies : dependency('tanjit'), install : true)
MESON
llvm_config=$(meson introspect --buildoptions "$build" |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "llvm_config"))')
# plain: no optimization, tanjit compiles in a fraction of the time
(cd "$tmp/sub" && env -u PKG_CONFIG_PATH meson setup out --buildtype=plain \
   -Dtanjit:tests=disabled -Dtanjit:install_cudasim=true \
   -Dtanjit:llvm_config="$llvm_config" >"$tmp/sub.log" 2>&1) ||
  { cat "$tmp/sub.log"; fail "meson setup of the subproject consumer"; }
ninja -C "$tmp/sub/out" >>"$tmp/sub.log" 2>&1 || { cat "$tmp/sub.log"; fail "subproject build"; }
check_consumer_output "$("$tmp/sub/out/consumer" "$tmp/square.ll")"
DESTDIR="$tmp/substage" meson install -C "$tmp/sub/out" --no-rebuild --quiet >>"$tmp/sub.log" 2>&1 ||
  { cat "$tmp/sub.log"; fail "subproject install"; }
for f in libcuda.so.1 libcudart.so.12; do
  [ -n "$(find "$tmp/substage" -path "*/tanjit/cudasim/$f")" ] || fail "install_cudasim: no tanjit/cudasim/$f"
  [ -z "$(find "$tmp/substage" -name "$f" -not -path "*/tanjit/cudasim/*")" ] ||
    fail "install_cudasim: $f installed outside tanjit/cudasim"
done
for h in cuda.h cuda_runtime.h cudasim.h; do
  [ -n "$(find "$tmp/substage" -path "*/include/tanjit/cudasim/$h")" ] || fail "install_cudasim: no include/tanjit/cudasim/$h"
done
step "ok"
