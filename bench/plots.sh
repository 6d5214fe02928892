#!/bin/sh
# Makes the benchmark figures of the README: installs matplotlib from
# Debian when missing (python3-matplotlib; CI's test path never needs it),
# runs best_of.py (best of N short runs) into docs/bench-best.csv, and plots
# it into docs/bench-tangent-primal.png and docs/bench-width-cost.png.
# Usage: plots.sh TANJIT [CLANG] [N]       (N runs, default 7)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
docs=$here/../docs
tanjit=${1:?usage: plots.sh TANJIT [CLANG] [N]}
cc=${2:-clang-19}
runs=${3:-7}
# Debian's package serves Debian's python3, which may not be the first on
# PATH (pyenv, a venv).
py=python3
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
  py=/usr/bin/python3
  if ! "$py" -c 'import matplotlib' 2>/dev/null; then
    echo "plots: installing python3-matplotlib (apt-get)"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends python3-matplotlib >/dev/null
  fi
fi
mkdir -p "$docs"
echo "plots: timing, best of $runs runs"
python3 "$here/best_of.py" "$tanjit" "$cc" "$runs" --csv "$docs/bench-best.csv"
"$py" "$here/plot.py" "$docs/bench-best.csv" "$docs"
