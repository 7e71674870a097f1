#!/bin/sh
# check.sh -- runs every test of `make check`: the cmocka unit tests (TAP
# output), the DejaGnu testsuite, the manual pages' check and pytest, then
# prints one summary line,
#   N passed, N failed[, N skipped]
# which is the last line of `make check` (CI reads it).  Exits 1 when
# anything failed.
#
# The tests run as $LEIR_CHECK_JOBS concurrent streams (default: the number
# of CPUs, nproc): every unit test program, every DejaGnu .exp file (one
# runtest process each, in its own folder), the manual pages' check and
# pytest is one piece of work; the pieces start longest first (the measured
# times of `costs` below) and each stream takes the next piece not yet
# taken.  The report is the same whatever the number of streams: each
# piece's lines in the fixed order (unit tests, DejaGnu, man pages, pytest),
# one testsuite/leirc.sum merged from the .exp files' summaries in the order
# one runtest over all of them writes them, and the same totals.
# LEIR_CHECK_JOBS=1 runs one piece at a time.
#
# Environment (set by `make check`): top_srcdir, top_builddir (absolute),
# UNIT_TESTS (the unit test programs, relative to top_builddir), RUNTEST,
# PYTHON (the interpreter configure found, ":" if none), LEIR_CORPUS (the
# corpus; default $top_srcdir/../shared/corpus), SAN_LDFLAGS and CC (a
# sanitizer build: pytest runs with the sanitizers' runtimes preloaded, since
# it loads the instrumented libleir.so into an uninstrumented Python),
# PACKAGE_VERSION (the manual pages' check), LEIR_CHECK_JOBS (above).
#
# Every file a test writes goes under $top_builddir/testsuite/scratch (each
# .exp file runs in scratch/check/dg/DIR-NAME, pytest in scratch); `make
# clean` removes that folder, which is the one rule that keeps the build
# tree clean (make distcheck).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
RUNTEST=${RUNTEST:-runtest}
SHELL_CMD=${SHELL_CMD:-sh}
PYTHON=${PYTHON:-:}
LEIR_CORPUS=${LEIR_CORPUS:-$top_srcdir/../shared/corpus}
export top_srcdir top_builddir LEIR_CORPUS
jobs=${LEIR_CHECK_JOBS:-}
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
case $jobs in
  '' | *[!0-9]* | 0*) echo "check.sh: LEIR_CHECK_JOBS must be a positive integer, not '$jobs'"; exit 1 ;;
esac
logdir=$top_builddir/testsuite
scratch=$logdir/scratch
work=$scratch/check
mkdir -p "$scratch"
rm -rf "$work"
mkdir -p "$work/dg"

# Seconds each piece took in a serial run of a normal build (2-core Zen 4,
# LEIR_CHECK_JOBS=1; every run writes its own in testsuite/check-times.log,
# `PIECE SECONDS`); only their order matters: the longest start first.  A piece
# not listed counts as 10 s.
costs='
pytest                         422  unit/passes_corpus_test        359
leirc.steps/steps.exp          178  leirc.steps/jitcache.exp       105
unit/stepcheck_test             98  leirc.ptx/corpus.exp            77
leirc.interop/interop.exp       72  leirc.passes/passes.exp         35
leirc.tune/tune.exp             26  unit/codegen_test               25
leirc.checkstep/checkstep.exp   20  leirc.tune/sketch.exp           20
unit/libleir_threads_test       16  unit/mathlib_test               14
leirc.cost/online.exp           12  unit/host_sched_test            10
unit/passes_graph_test           9  leirc.passmgr/passmgr.exp        8
leirc.parse/parse.exp            6  unit/mathlib_emit_test           6
unit/corpus_test                 5  unit/conformance_test            3
unit/limits_test                 3  unit/scan_corpus_test            3
leirc.compare/compare.exp        2  leirc.cost/cost.exp              2
leirc.ptx/ptx.exp                2  man                              2
unit/incr_test                   2  unit/jitcache_test               2
unit/runtime_test                2  unit/sketch_test                 2
unit/stepscache_test             2  leirc.cost/learned.exp           1
leirc.run/npy.exp                1  leirc.run/run.exp                1
unit/interchange_test            1  unit/libleir_test                1
unit/npy_test                    1  unit/rng_test                    1
leirc.diag/diag.exp              0  unit/algebra_test                0
unit/compare_test                0  unit/costmodel_test              0
unit/cot_test                    0  unit/features_test               0
unit/frontend_test               0  unit/interp_test                 0
unit/learned_test                0  unit/measure_test                0
unit/memlimit_test               0  unit/passes_test                 0
unit/unroll_test                 0  unit/value_mag_test              0
unit/value_query_test            0  unit/value_sign_test             0
unit/value_test                  0  
'

# ---- the pieces --------------------------------------------------------------
# $work/items: one piece a line, `KIND ARG`, in the order the report lists them.
: >"$work/items"
for t in ${UNIT_TESTS:-}; do echo "unit $t" >>"$work/items"; done
have_runtest=0
if command -v "$RUNTEST" >/dev/null 2>&1; then
  have_runtest=1
  # the files one runtest would run: every .exp under a folder leirc* of the
  # testsuite, in the order it runs them (sorted paths)
  (cd "$top_srcdir/testsuite" && find . -path './*leirc*/*' -name '*.exp' -type f) |
    sed 's|^\./||' | LC_ALL=C sort | sed 's/^/dejagnu /' >>"$work/items"
  grep -q '^dejagnu ' "$work/items" || have_runtest=2
fi
echo "man -" >>"$work/items"
echo "pytest -" >>"$work/items"
nitems=$(wc -l <"$work/items")

# $work/order: the piece numbers, longest first (ties: the report's order)
awk -v costs="$costs" '
  BEGIN { n = split(costs, f, /[ \t\n]+/); k = ""
          for (i = 1; i <= n; i++) if (f[i] != "") { if (k == "") k = f[i]; else { c[k] = f[i]; k = "" } } }
  { k = $1 == "unit" ? "unit/" substr($2, match($2, /[^\/]*$/)) : $1 == "dejagnu" ? $2 : $1
    printf "%d %d\n", (k in c) ? c[k] : 10, NR }' "$work/items" |
  sort -k1,1nr -k2,2n | awk '{ print $2 }' >"$work/order"

# ---- one piece: writes $work/I.out (its report lines), $work/I.cnt
# (`PASSED FAILED SKIPPED`), then $work/I.done -----------------------------------
run_unit() {  # $1: the program, relative to top_builddir
  t=$1
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
  status=PASS
  [ "$f" -gt 0 ] && status=FAIL
  echo "$status: unit/$name ($p passed, $f failed, $s skipped)"
  if [ "$f" -gt 0 ]; then
    grep -E '^not ok|^#' "$log" | head -20 | sed 's/^/    /'
  fi
  # counts a test reports of itself (e.g. the corpus walk)
  grep -E '^# (count|skip):' "$log" | sed 's/^# /    /'
  echo "$p $f $s" >"$cnt"
}

run_dejagnu() {  # $1: the .exp file, relative to the testsuite folder
  d=$work/dg/$(echo "$1" | sed 's|/|-|g; s|\.exp$||')
  mkdir -p "$d/out"
  (cd "$d" && "$RUNTEST" --tool leirc --srcdir "$top_srcdir/testsuite" \
     --outdir "$d/out" LEIRC="$top_builddir/leirc" "$1" >"$d/runtest.out" 2>&1)
  echo "$d" >"$cnt"
}

run_man() {
  # man --warnings silent for every page, every --help option in leirc(1),
  # every strategy in leir-strategies(7), the version in each .TH: one test.
  if command -v man >/dev/null 2>&1; then
    if $SHELL_CMD "$top_srcdir/man/check-man.sh" "$top_srcdir" "$top_builddir/leirc" \
         "${PACKAGE_VERSION:?}" >"$logdir/check-man.log" 2>&1; then
      echo "PASS: man pages (man/check-man.sh)"
      echo "1 0 0" >"$cnt"
    else
      echo "FAIL: man pages (man/check-man.sh; see testsuite/check-man.log)"
      sed 's/^/    /' "$logdir/check-man.log" | head -20
      echo "0 1 0" >"$cnt"
    fi
  else
    echo "SKIP: man pages: no man(1) (install man-db)"
    echo "0 0 1" >"$cnt"
  fi
}

# pytest: the Python package (python/leir), in a virtual environment over the
# system's packages (Debian's python3-torch, python3-numpy, python3-pytest),
# with the optional PyPI packages of testsuite/python/requirements.txt
# installed into it once; without network they are missing and the tests
# that need them are skipped.
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
run_pytest() {
  if [ "$PYTHON" = ":" ] || ! "$PYTHON" -c 'import venv, pytest' 2>/dev/null; then
    echo "pytest: no Python 3.11+ with venv and pytest (install python3-venv python3-pytest)"
    echo "0 1 0" >"$cnt"
    return
  fi
  pyrun
  rc=$?
  last=$(grep -E '(passed|failed|skipped|error|no tests ran)' "$logdir/pytest.log" | tail -1)
  num() { echo "$last" | tr ',' '\n' | sed -n "s/^[^0-9]*\([0-9][0-9]*\) $1.*/\1/p" | head -1; }
  pp=$(num passed) pf=$(num failed) pe=$(num error) ps=$(num skipped)
  pp=${pp:-0} pf=${pf:-0} pe=${pe:-0} ps=${ps:-0}
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] && [ $((pf + pe)) -eq 0 ]; then pe=1; fi
  echo "pytest: $pp passed, $((pf + pe)) failed, $ps skipped (see testsuite/pytest.log)"
  if [ $((pf + pe)) -gt 0 ]; then
    grep -E '^(FAILED|ERROR)' "$logdir/pytest.log" | head -40 | sed 's/^/    /'
    [ "$rc" -ne 1 ] && tail -20 "$logdir/pytest.log" | sed 's/^/    /'
  fi
  echo "$pp $pf $pe $ps" | awk '{ print $1, $2 + $3, $4 }' >"$cnt"
}

run_item() {  # $1: the piece's number
  set -- "$1" $(sed -n "$1p" "$work/items")
  cnt=$work/$1.cnt
  t0=$(date +%s)
  case $2 in
    unit) run_unit "$3" ;;
    dejagnu) run_dejagnu "$3" ;;
    man) run_man ;;
    pytest) run_pytest ;;
  esac >"$work/$1.out"
  [ -f "$cnt" ] || echo "0 1 0" >"$cnt"
  case $2 in unit) key=unit/$(basename "$3") ;; dejagnu) key=$3 ;; *) key=$2 ;; esac
  echo "$key $(($(date +%s) - t0))" >"$work/$1.time"
  : >"$work/$1.done"
}

# a stream: takes the next piece no other stream has taken (mkdir is atomic)
stream() {
  for i in $(cat "$work/order"); do
    mkdir "$work/$i.taken" 2>/dev/null && run_item "$i"
  done
}

start=$(date +%s)
pids=""
trap 'kill $pids 2>/dev/null; exit 1' INT TERM HUP
k=0
while [ "$k" -lt "$jobs" ]; do
  stream &
  pids="$pids $!"
  k=$((k + 1))
done

# ---- the report, in the fixed order, as the pieces finish ---------------------
pass=0 fail=0 skip=0
count() { read -r p f s <"$work/$1.cnt"; pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)); }
waitfor() { while [ ! -f "$work/$1.done" ]; do sleep 1; done; }

# DejaGnu: the .exp files' summaries merged into testsuite/leirc.sum (the
# header of the first, every file's results in order, the totals of all, then
# what runtest writes after them: the Tcl errors' details)
# and their logs into testsuite/leirc.log and testsuite/runtest.out
report_dejagnu() {  # the .exp pieces' numbers
  sums="" missing=""
  rm -f "$logdir/leirc.sum" "$logdir/leirc.log"
  : >"$logdir/runtest.out"
  for n in "$@"; do
    d=$(cat "$work/$n.cnt")
    cat "$d/runtest.out" >>"$logdir/runtest.out" 2>/dev/null
    cat "$d/out/leirc.log" >>"$logdir/leirc.log" 2>/dev/null
    if [ -f "$d/out/leirc.sum" ]; then
      sums="$sums $d/out/leirc.sum"
    else
      missing="$missing $n"
    fi
  done
  if [ -n "$sums" ]; then
    awk '
      function flush() { sub(/\n+$/, "\n", buf); lines = lines buf; buf = "" }
      FNR == 1 { flush(); body = 0; insum = 0; after = 0 }
      /^\t\t=== .* Summary ===$/ { insum = 1; tool = $2; next }
      insum { if ($0 ~ /^# of [a-z ]+\t+[0-9]+$/) {
                n = $0; sub(/^# of /, "", n); sub(/\t+[0-9]+$/, "", n)
                v = $0; sub(/.*\t/, "", v); tot[n] += v }
              else if ($0 != "" || after) { trail = trail $0 "\n"; after = 1 }
              next }
      /^Running target / && !body { body = 1; if (NR == FNR) head = head $0 "\n"; next }
      !body { if (NR == FNR) head = head $0 "\n"; next }
      { buf = buf $0 "\n" }
      END {
        flush()
        printf "%s%s\n\t\t=== %s Summary ===\n\n", head, lines, tool
        split("expected passes|unexpected failures|unexpected successes|expected failures|unknown successes|known failures|unresolved testcases|untested testcases|unsupported tests", o, "|")
        for (k = 1; k <= 9; k++) if (tot[o[k]] > 0) {
          m = "# of " o[k]; if (length(m) < 24) m = m "\t"; printf "%s\t%d\n", m, tot[o[k]] }
        printf "%s", trail
      }' $sums >"$logdir/leirc.sum"
  fi
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
  fi
  for n in $missing; do
    d=$(cat "$work/$n.cnt")
    echo "DejaGnu: runtest produced no summary for $(sed -n "${n}s/^dejagnu //p" "$work/items") (see testsuite/runtest.out)"
    tail -20 "$d/runtest.out" | sed 's/^/    /'
    fail=$((fail + 1))
  done
}

dgs=""
i=1
while [ "$i" -le "$nitems" ]; do
  waitfor "$i"
  case $(sed -n "${i}p" "$work/items") in
    dejagnu*) dgs="$dgs $i" ;;
    *)
      if [ -n "$dgs" ]; then report_dejagnu $dgs; dgs=""; fi
      if [ "$have_runtest" -ne 1 ] && [ "$(sed -n "${i}p" "$work/items")" = "man -" ]; then
        if [ "$have_runtest" -eq 0 ]; then echo "DejaGnu: runtest not found"
        else echo "DejaGnu: no .exp file under $top_srcdir/testsuite/leirc*"; fi
        fail=$((fail + 1))
      fi
      cat "$work/$i.out"
      count "$i" ;;
  esac
  i=$((i + 1))
done
wait

# the seconds each piece took, longest first (for `costs` above)
{
  echo "# piece seconds (LEIR_CHECK_JOBS=$jobs, $(($(date +%s) - start)) s in all)"
  cat "$work"/*.time | sort -k2,2nr -k1,1
} >"$logdir/check-times.log"

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
