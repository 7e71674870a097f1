#!/bin/sh
# check-tarball.sh -- `make check` of a release tarball unpacked where no
# corpus is anywhere near it (issue 60): a user who downloads leirc has no
# ../shared/corpus, and the tests that read the corpus must skip, not fail.
#
#   tools/check-tarball.sh TARBALL            (e.g. _build/leirc-0.1.0.tar.xz)
#
# Unpacks TARBALL into a fresh temporary folder, configures it with
# LEIR_CORPUS unset (so the default, ../shared/corpus beside the unpacked
# tree, is absent), builds and runs `make check`, and checks that the corpus
# tests were skipped.  Exit status: that of `make check`, or 1 when no test
# said it skipped for want of the corpus.
set -eu
tarball=${1:?usage: tools/check-tarball.sh TARBALL}
case $tarball in /*) ;; *) tarball=$(pwd)/$tarball ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/leirc-tarball.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tarball" -C "$tmp"
src=$(echo "$tmp"/leirc-*)
[ -d "$src" ] || { echo "check-tarball: $tarball holds no leirc-VERSION folder"; exit 1; }
[ ! -e "$tmp/shared" ] || { echo "check-tarball: $tmp/shared exists"; exit 1; }
mkdir "$src/_build"
cd "$src/_build"
unset LEIR_CORPUS
../configure -q
make -s -j"$(nproc 2>/dev/null || echo 2)"
rc=0
make check >check.log 2>&1 || rc=$?
grep -E '^(PASS|FAIL|SKIP|DejaGnu|pytest|    )' check.log | grep -Ev '^    (#|count)' | head -60
tail -1 check.log
if [ "$rc" -ne 0 ]; then
  echo "check-tarball: make check failed without the corpus"
  exit "$rc"
fi
# The corpus tests said why they skipped (pytest's reasons; DejaGnu's
# UNSUPPORTED lines; the unit tests' `# skip:` counts).
if ! grep -Eqi 'no corpus|corpus.*(absent|not found|missing)' check.log \
     testsuite/pytest.log testsuite/leirc.sum 2>/dev/null; then
  echo "check-tarball: no test reported the corpus as absent"
  exit 1
fi
echo "check-tarball: make check passed without the corpus (corpus tests skipped)"
