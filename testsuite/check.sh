#!/bin/sh
# check.sh -- runs every test of `make check`: the cmocka unit tests (TAP
# output) and the DejaGnu testsuite, then prints one summary line,
#   N passed, N failed[, N skipped]
# which is the last line of `make check` (CI reads it).  Exits 1 when
# anything failed.
#
# Environment (set by `make check`): top_srcdir, top_builddir (absolute),
# UNIT_TESTS (the unit test programs, relative to top_builddir), RUNTEST.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
RUNTEST=${RUNTEST:-runtest}
export top_srcdir top_builddir
logdir=$top_builddir/testsuite
mkdir -p "$logdir"

pass=0 fail=0 skip=0

# ---- unit tests ------------------------------------------------------------
for t in ${UNIT_TESTS:-}; do
  name=$(basename "$t")
  log=$logdir/$name.log
  (cd "$top_builddir" && CMOCKA_MESSAGE_OUTPUT=TAP "./$t") >"$log" 2>&1
  rc=$?
  # cmocka 1.1 writes a skipped test as `not ok N # SKIP name`
  p=$(grep -Evi '# *skip' "$log" | grep -c '^ok ')
  s=$(grep -Eci '^(not )?ok [0-9]+ *# *skip' "$log")
  f=$(grep -Evi '# *skip' "$log" | grep -c '^not ok ')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    if [ "$rc" -eq 77 ]; then s=$((s + 1)); else f=1; fi
  fi
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
  status=PASS
  [ "$f" -gt 0 ] && status=FAIL
  echo "$status: unit/$name ($p passed, $f failed, $s skipped)"
  if [ "$f" -gt 0 ]; then
    grep -E '^not ok|^#' "$log" | head -20 | sed 's/^/    /'
  fi
  # counts a test reports of itself (e.g. the corpus walk)
  grep -E '^# (count|skip):' "$log" | sed 's/^# /    /'
done

# ---- DejaGnu ----------------------------------------------------------------
if command -v "$RUNTEST" >/dev/null 2>&1; then
  rm -f "$logdir/leirc.sum"
  (cd "$logdir" && "$RUNTEST" --tool leirc --srcdir "$top_srcdir/testsuite" \
     --outdir "$logdir" LEIRC="$top_builddir/leirc" >"$logdir/runtest.out" 2>&1)
  sum=$logdir/leirc.sum
  if [ -f "$sum" ]; then
    get() { sed -n "s/^# of $1[[:space:]]*\([0-9]*\)$/\1/p" "$sum"; }
    dp=$(get "expected passes") df=$(get "unexpected failures")
    du=$(get "unresolved testcases") dx=$(get "unexpected successes")
    ds=$(get "unsupported tests") dt=$(get "untested testcases")
    dxf=$(get "expected failures")
    dp=${dp:-0} df=${df:-0} du=${du:-0} dx=${dx:-0} ds=${ds:-0} dt=${dt:-0} dxf=${dxf:-0}
    pass=$((pass + dp + dxf)) fail=$((fail + df + du + dx)) skip=$((skip + ds + dt))
    echo "DejaGnu: $dp passed, $((df + du + dx)) failed, $((ds + dt)) skipped (see testsuite/leirc.sum)"
    grep -E '^(FAIL|UNRESOLVED|XPASS|ERROR):' "$sum" | head -40 | sed 's/^/    /'
    grep -E '^(UNSUPPORTED):' "$sum" | head -10 | sed 's/^/    /'
  else
    echo "DejaGnu: runtest produced no summary (see testsuite/runtest.out)"
    tail -20 "$logdir/runtest.out" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
else
  echo "DejaGnu: runtest not found"
  fail=$((fail + 1))
fi

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
