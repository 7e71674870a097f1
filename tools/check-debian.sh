#!/bin/sh
# check-debian.sh -- builds the Debian packages from this tree and checks
# them as CI does (issue 60): the six binary packages build (`nocheck`: the
# tests ran before), lintian reports no error, and the packaged leirc, unpacked
# into a scratch root, runs the README's main command on the packaged example;
# the packaged Python module runs the python3-leir smoke test there too.
#
#   tools/check-debian.sh [WORK_DIR]         (default: _build/debian-check)
#
# A file that `make install` installs but no package holds fails the build
# (dh_missing), so it fails here.  Installs the build's Debian dependencies
# with apt-get when they are missing (sudo when not root).  Exit status 0 when
# everything passed, 1 otherwise; the last line says which.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
work=${1:-$top/_build/debian-check}
case $work in /*) ;; *) work=$top/$work ;; esac

packages="dpkg-dev debhelper dh-python lintian fakeroot"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "check-debian: installing Debian packages:$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

# A copy of the tree as git has it (tracked and new, not ignored files), so
# that nothing built in the checkout leaks into the package build.
rm -rf "$work"
mkdir -p "$work/src"
git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work/src"

log=$work/build.log
echo "check-debian: dpkg-buildpackage (nocheck) in $work/src; log: $log"
if ! (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc 2>/dev/null || echo 2)" \
        dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
  tail -30 "$log"
  echo "check-debian: FAIL: the packages do not build"
  exit 1
fi
changes=$(ls "$work"/leirc_*.changes)
echo "check-debian: built:"
(cd "$work" && ls -1 ./*.deb) | sed 's/^/  /'
for p in leirc libleir0 libleir-dev libleirrt0 libleirrt-dev python3-leir; do
  ls "$work/${p}_"*.deb >/dev/null 2>&1 ||
    { echo "check-debian: FAIL: no package $p"; exit 1; }
done

fail=0
# lintian: errors fail, warnings are shown.
if lintian --fail-on error --tag-display-limit 0 "$changes" >"$work/lintian.log" 2>&1; then
  echo "check-debian: lintian: 0 errors ($(grep -c '^W:' "$work/lintian.log") warnings)"
else
  sed 's/^/  /' "$work/lintian.log"
  echo "check-debian: lintian: $(grep -c '^E:' "$work/lintian.log") errors"
  fail=1
fi

# The packaged programs, unpacked into a scratch root (nothing is installed
# on this machine), on the README's main command.
root=$work/root
for d in "$work"/*.deb; do dpkg-deb -x "$d" "$root"; done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ex=$root/usr/share/doc/leirc/examples/matmul.leir
run() { LD_LIBRARY_PATH=$root/usr/lib/$multiarch "$@"; }
cd "$work"
if run "$root/usr/bin/leirc" -O tile,reorder --verify "$ex" -o matmul.ptx &&
   grep -q '^\.target sm_90' matmul.ptx &&
   run "$root/usr/bin/leirc" -O tile,reorder --run --target=host --print-outputs "$ex" >run.out &&
   [ -s run.out ]; then
  echo "check-debian: packaged leirc: the README's main command ran ($(wc -l <run.out) lines)"
else
  echo "check-debian: FAIL: the packaged leirc on the README's main command"
  fail=1
fi
for s in chat check-step eval-result steptp; do
  [ -f "$root/usr/share/leirc/schemas/$s.schema.json" ] ||
    { echo "check-debian: FAIL: no schema $s in the packages"; fail=1; }
done
if run env PYTHONPATH="$root/usr/lib/python3/dist-packages" python3 - "$ex" <<'PY'
import sys

import numpy as np

import leir

p = leir.Program.load(sys.argv[1])
q = p.apply("loop_tiling")
a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32) / 100
c = np.ones((32, 48), np.float32)
d = q.run({"A": a, "C": c})["D"]
assert np.allclose(d, a @ c, rtol=1e-5), "matmul differs"
print("check-debian: packaged python3-leir:", leir.__version__, q.step, "ok")
PY
then :; else
  echo "check-debian: FAIL: the packaged Python module"
  fail=1
fi
if [ "$fail" -eq 0 ]; then
  echo "check-debian: PASS"
else
  echo "check-debian: FAIL"
fi
exit "$fail"
