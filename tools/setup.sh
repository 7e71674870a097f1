#!/bin/sh
# setup.sh -- sets up a leirc build on Debian 12: installs the Debian packages
# that are missing (apt-get; sudo when not root), optionally NumPy for the
# tests that use it (pip, skipped if unavailable), bootstraps, configures and
# builds out of tree.  Debian's python3 with python3-torch, python3-numpy and
# python3-pytest runs the Python package's tests (python/, testsuite/python).
#
#   tools/setup.sh [BUILD_DIR [CONFIGURE_ARGS...]]     (default BUILD_DIR: _build)
#
# Example: tools/setup.sh _build-asan --enable-sanitizers
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
build=${1:-_build}
[ $# -gt 0 ] && shift

packages="gcc make autoconf automake libtool pkg-config flex bison llvm-19-dev
  libjansson-dev libcmocka-dev dejagnu zlib1g-dev gzip man-db
  python3 python3-venv python3-pytest python3-numpy python3-torch
  python3-distributed libxgboost-dev python3-xgboost"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

# NumPy lets a few tests cross-check leirc's .npy files; they skip without it.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import numpy' 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check numpy 2>/dev/null ||
    echo "setup: NumPy unavailable; the tests that use it will be skipped"
fi

[ -x configure ] && [ configure -nt configure.ac ] || ./bootstrap
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$#" -gt 0 ]; then
  "$top/configure" -q "$@"
fi
make -s -j"$(nproc 2>/dev/null || echo 2)"
echo "setup: built $build/leirc"
