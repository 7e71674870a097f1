#!/bin/sh
# check.sh -- runs every test of `make check`: the cmocka unit tests (TAP
# output) and the DejaGnu testsuite, then prints one summary line,
#   N passed, N failed[, N skipped]
# which is the last line of `make check` (CI reads it).  Exits 1 when
# anything failed.
#
# Environment (set by `make check`): top_srcdir, top_builddir (absolute),
# UNIT_TESTS (the unit test programs, relative to top_builddir), RUNTEST,
# PYTHON (the interpreter configure found, ":" if none), LEIR_CORPUS (the
# corpus; default $top_srcdir/../shared/corpus), SAN_LDFLAGS and CC (a
# sanitizer build: pytest runs with the sanitizers' runtimes preloaded, since
# it loads the instrumented libleir.so into an uninstrumented Python),
# PACKAGE_VERSION (the manual pages' check).
#
# Every file a test writes goes under $top_builddir/testsuite/scratch (the
# DejaGnu tests and pytest run there); `make clean` removes that folder,
# which is the one rule that keeps the build tree clean (make distcheck).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
RUNTEST=${RUNTEST:-runtest}
SHELL_CMD=${SHELL_CMD:-sh}
PYTHON=${PYTHON:-:}
LEIR_CORPUS=${LEIR_CORPUS:-$top_srcdir/../shared/corpus}
export top_srcdir top_builddir LEIR_CORPUS
logdir=$top_builddir/testsuite
scratch=$logdir/scratch
mkdir -p "$scratch"

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
  (cd "$scratch" && "$RUNTEST" --tool leirc --srcdir "$top_srcdir/testsuite" \
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

# ---- the manual pages (man/check-man.sh, `make check-man`) -----------------
# man --warnings silent for every page, every --help option in leirc(1),
# every strategy in leir-strategies(7), the version in each .TH: one test.
if command -v man >/dev/null 2>&1; then
  if $SHELL_CMD "$top_srcdir/man/check-man.sh" "$top_srcdir" "$top_builddir/leirc" \
       "${PACKAGE_VERSION:?}" >"$logdir/check-man.log" 2>&1; then
    echo "PASS: man pages (man/check-man.sh)"
    pass=$((pass + 1))
  else
    echo "FAIL: man pages (man/check-man.sh; see testsuite/check-man.log)"
    sed 's/^/    /' "$logdir/check-man.log" | head -20
    fail=$((fail + 1))
  fi
else
  echo "SKIP: man pages: no man(1) (install man-db)"
  skip=$((skip + 1))
fi

# ---- pytest: the Python package (python/leir) -------------------------------
# In a virtual environment over the system's packages (Debian's python3-torch,
# python3-numpy, python3-pytest), with the optional PyPI packages of
# testsuite/python/requirements.txt installed into it once; without network
# they are missing and the tests that need them are skipped.
pyrun() {
  venv=$scratch/venv
  req=$top_srcdir/testsuite/python/requirements.txt
  if [ ! -x "$venv/bin/python" ]; then
    "$PYTHON" -m venv --system-site-packages "$venv" >"$logdir/venv.log" 2>&1 || return 1
  fi
  if [ -f "$req" ] && ! cmp -s "$req" "$venv/requirements.txt"; then
    if "$venv/bin/python" -m pip install -q --disable-pip-version-check --timeout 60 \
         -r "$req" >>"$logdir/venv.log" 2>&1; then
      cp "$req" "$venv/requirements.txt"
    else
      echo "    pytest: could not install $req (see testsuite/venv.log); tests that need it skip"
    fi
  fi
  preload=""
  case "${SAN_LDFLAGS:-}" in
    *address*) preload=$(${CC:-cc} -print-file-name=libasan.so):$(${CC:-cc} -print-file-name=libubsan.so) ;;
  esac
  (cd "$scratch" && LD_PRELOAD=$preload ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
     PYTHONPATH=$top_srcdir/python PYTHONDONTWRITEBYTECODE=1 \
     LEIRC=$top_builddir/leirc LEIR_LIBDIR=$top_builddir/.libs \
     "$venv/bin/python" -m pytest -q -rfEs -p no:cacheprovider --basetemp="$scratch/pytest" \
       "$top_srcdir/testsuite/python") >"$logdir/pytest.log" 2>&1
}
if [ "$PYTHON" = ":" ] || ! "$PYTHON" -c 'import venv, pytest' 2>/dev/null; then
  echo "pytest: no Python 3.11+ with venv and pytest (install python3-venv python3-pytest)"
  fail=$((fail + 1))
else
  pyrun
  rc=$?
  last=$(grep -E '(passed|failed|skipped|error|no tests ran)' "$logdir/pytest.log" | tail -1)
  num() { echo "$last" | tr ',' '\n' | sed -n "s/^[^0-9]*\([0-9][0-9]*\) $1.*/\1/p" | head -1; }
  pp=$(num passed) pf=$(num failed) pe=$(num error) ps=$(num skipped)
  pp=${pp:-0} pf=${pf:-0} pe=${pe:-0} ps=${ps:-0}
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] && [ $((pf + pe)) -eq 0 ]; then pe=1; fi
  pass=$((pass + pp)) fail=$((fail + pf + pe)) skip=$((skip + ps))
  echo "pytest: $pp passed, $((pf + pe)) failed, $ps skipped (see testsuite/pytest.log)"
  if [ $((pf + pe)) -gt 0 ]; then
    grep -E '^(FAILED|ERROR)' "$logdir/pytest.log" | head -40 | sed 's/^/    /'
    [ "$rc" -ne 1 ] && tail -20 "$logdir/pytest.log" | sed 's/^/    /'
  fi
fi

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
