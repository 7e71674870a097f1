#!/bin/sh
# repro-check.sh -- checks that the Debian packages of leirc build
# reproducibly: builds them twice from copies of this tree, in two different
# directories (different path lengths), with a different umask, time zone,
# locale, build parallelism and (if faketime is installed) a clock shifted
# by a day and a half, then compares the resulting .deb files byte for byte.
# When they differ and diffoscope is installed, its text report says where.
#
#   tools/repro-check.sh [--check] [WORKDIR]
#
#   --check   also run `make check` in both builds (default: nocheck; the
#             tests do not change what is packaged)
#   WORKDIR   where to build (default: a new directory under ${TMPDIR:-/tmp});
#             kept afterwards, the builds' logs are WORKDIR/{a,b}.log
#
# Needs dpkg-dev, debhelper and the Build-Depends of debian/control.  Both
# builds get SOURCE_DATE_EPOCH from debian/changelog (dpkg-buildpackage).
# Exit status: 0 identical, 1 different, 2 a build failed or bad usage.
set -eu

check=no
case ${1-} in
  --check) check=yes; shift ;;
  -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "repro-check: unknown option '$1'" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: tools/repro-check.sh [--check] [WORKDIR]" >&2; exit 2; }

top=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$top/debian/changelog" ] || { echo "repro-check: no debian/ in $top" >&2; exit 2; }
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/leirc-repro.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/a" "$work/b" "$work/src"

# The source: git's view of the tree (tracked and untracked, not ignored),
# so build products of a checkout never leak in; a tree without git (an
# unpacked tarball) is copied whole.  It is copied once, into WORKDIR/src,
# and both builds copy that snapshot: a tree that others edit meanwhile
# must not make the two builds differ.
snapshot() {
  mkdir -p "$1"
  if command -v git >/dev/null 2>&1 && git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    # shellcheck disable=SC2016 # $f belongs to the inner shell
    git -C "$top" ls-files -z -co --exclude-standard |
      (cd "$top" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh) |
      tar -C "$top" -cf - -T - | tar -C "$1" -xf -
  else
    (cd "$top" && tar --exclude=./debian/.debhelper -cf - .) | tar -C "$1" -xf -
  fi
}

copy_tree() {
  mkdir -p "$1"
  (cd "$work/src" && tar -cf - .) | tar -C "$1" -xf -
}

# build NAME SRCDIR UMASK TZ LOCALE PARALLEL FAKETIME
build() {
  name=$1 src=$2 mask=$3 tz=$4 loc=$5 par=$6 fake=$7
  (umask "$mask" && copy_tree "$src")
  opts="parallel=$par"
  [ "$check" = yes ] || opts="$opts nocheck"
  echo "repro-check: build $name in $src (umask $mask, TZ=$tz, LC_ALL=$loc, $opts${fake:+, faketime $fake})"
  ( cd "$src" && umask "$mask" &&
    if [ -n "$fake" ]; then set -- faketime -f "$fake"; else set --; fi &&
    env TZ="$tz" LC_ALL="$loc" DEB_BUILD_OPTIONS="$opts" \
      "$@" dpkg-buildpackage -us -uc -b ) >"$work/$name.log" 2>&1 || {
    echo "repro-check: build $name failed; the end of $work/$name.log:" >&2
    tail -25 "$work/$name.log" >&2
    exit 2
  }
}

snapshot "$work/src"
shift_time=""
# NO_FAKE_STAT: shift the clock only, not the times stat() reports for the
# source files (a real clock difference does not change them either).
export NO_FAKE_STAT=1
command -v faketime >/dev/null 2>&1 && shift_time="+1.5d"
build a "$work/a/leirc" 022 UTC C 1 ""
build b "$work/b/a/much/longer/build/path/leirc" 077 Asia/Kolkata C.UTF-8 2 "$shift_time"

rc=0
n=0
for deb in "$work"/a/*.deb; do
  [ -e "$deb" ] || { echo "repro-check: build a made no .deb" >&2; exit 2; }
  base=$(basename "$deb")
  other=$work/b/a/much/longer/build/path/$base
  n=$((n + 1))
  if [ ! -f "$other" ]; then
    echo "DIFFER: $base (missing from build b)"; rc=1; continue
  fi
  if cmp -s "$deb" "$other"; then
    echo "identical: $base $(sha256sum <"$deb" | cut -c1-16)"
  else
    echo "DIFFER: $base"
    rc=1
    if command -v diffoscope >/dev/null 2>&1; then
      diffoscope --text "$work/$base.diff" "$deb" "$other" >/dev/null 2>&1 || true
      echo "  diffoscope report: $work/$base.diff"
      grep -E '^(│ )*[├─]+ ' "$work/$base.diff" | head -20 | sed 's/^/  /'
    fi
  fi
done
extra=0
for deb in "$work"/b/a/much/longer/build/path/*.deb; do
  [ -e "$deb" ] && extra=$((extra + 1))
done
[ "$extra" -eq "$n" ] || { echo "DIFFER: build b made $extra .deb files, build a $n"; rc=1; }
if [ "$rc" -eq 0 ]; then
  echo "repro-check: $n packages, byte-identical"
else
  echo "repro-check: the builds differ (logs and reports in $work)"
fi
exit "$rc"
