#!/usr/bin/env bash
# The flagship sample, from a fresh Debian 12 machine: installs what is
# missing, builds, then runs a Julia-style module whose CUDA round trip
# (host -> device -> host through ejlstr$...$libcuda.so.1 ccalls) is
# differentiated on load.  The CUDA library is the simulator in
# runtime/cudasim, loaded RTLD_LOCAL from the build tree; pass --real-cuda to
# use the system's libcuda.so.1 on a GPU machine instead.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "sample: building tanjit and the CUDA simulator (scripts/bootstrap.sh build 19)"
scripts/bootstrap.sh build 19
search=(-L build/runtime/cudasim)
[ "${1:-}" = "--real-cuda" ] && search=()
echo "sample: build/src/cli/tanjit run samples/julia_cuda_roundtrip.ll ${search[*]}"
build/src/cli/tanjit run samples/julia_cuda_roundtrip.ll "${search[@]}"
