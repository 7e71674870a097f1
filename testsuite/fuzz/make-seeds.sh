#!/bin/sh
# make-seeds.sh -- builds the seed corpus of the fuzz harnesses in the build
# tree (never in the project): every LEIR program of examples/, of the
# DejaGnu testsuite (testsuite/leirc.*/) and of ../shared/corpus/programs
# when present.  A corpus program also gives a second seed with its sidecar
# declarations written as a `%` header (by leirc --print-decls), so that the
# seeds exercise header lines on real programs.
#
# Usage: make-seeds.sh TOP_SRCDIR OUTDIR [LEIRC]
set -u
top=${1:?usage: make-seeds.sh TOP_SRCDIR OUTDIR [LEIRC]}
out=${2:?usage: make-seeds.sh TOP_SRCDIR OUTDIR [LEIRC]}
leirc=${3:-}
rm -rf "$out"
mkdir -p "$out" || exit 2

n=0
add() { # add SRC NAME
  cp "$1" "$out/$2" && n=$((n + 1))
}

for f in "$top"/examples/*.leir "$top"/testsuite/leirc.*/*.leir; do
  [ -f "$f" ] || continue
  d=$(basename "$(dirname "$f")")
  add "$f" "$d-$(basename "$f")"
done

corpus=${LEIR_CORPUS:-$top/../shared/corpus}/programs
if [ -d "$corpus" ]; then
  for f in "$corpus"/*/*.leir; do
    [ -f "$f" ] || continue
    lvl=$(basename "$(dirname "$f")")
    base=$(basename "$f" .leir)
    add "$f" "corpus-$lvl-$base.leir"
    side=${f%.leir}.decls.json
    if [ -n "$leirc" ] && [ -x "$leirc" ] && [ -f "$side" ]; then
      "$leirc" -w --decls="$side" --print-decls --emit=leir "$f" \
        >"$out/corpus-$lvl-$base-header.leir" 2>/dev/null && n=$((n + 1)) ||
        rm -f "$out/corpus-$lvl-$base-header.leir"
    fi
  done
else
  echo "make-seeds.sh: $corpus not found; seeds from the project only"
fi
echo "make-seeds.sh: $n seeds in $out"
