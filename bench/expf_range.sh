#!/bin/sh
# expf_range.sh -- host JIT run time of f32 exp by the range of its
# argument, and of the corpus's MinGPTNewGelu on N(0,1) inputs and on
# leirc's own random inputs (N(0,1) scaled by 10: interp/data.c), for one or
# two builds side by side (bench/tvm_bench --threads 1, best of REPS runs;
# issue 59 item 3).
#
#   bench/expf_range.sh BUILD [BUILD_B]      (REPS=21, LEIR_CORPUS by default
#                                             ../shared/corpus from the top)
#   taskset -c 1 sh bench/expf_range.sh _build /tmp/old/_build
#
# The exp rows run `C = exp(A)` on 1024x1024 f32 inputs drawn uniformly
# from each range (NumPy, seed 0).  Needs /usr/bin/python3 with NumPy.
a=$1 b=${2:-} corpus=${LEIR_CORPUS:-$(dirname "$0")/../../shared/corpus}
[ -x "$a/bench/tvm_bench" ] || { echo "expf_range: build $a/bench/tvm_bench first (make bench/tvm_bench)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/expf_range.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' 'B^{1024}_{tx=0}L^{1024}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a});];' >"$tmp/exp.leir"
printf '%s\n' '{"known_names":["A","C"],"known_shapes":[[1024,1024],[1024,1024]],' \
  '"known_dtype":["torch.float32","torch.float32"],"input_known_names":["A"]}' >"$tmp/exp.decls.json"
/usr/bin/python3 - "$tmp" <<'EOF' || exit 77
import os, sys
import numpy as np
tmp = sys.argv[1]
g = np.random.default_rng(0)
for name, lo, hi in [("normal", -80, 80), ("subnormal", -103.9, -87.4), ("zero", -200, -104),
                     ("inf", 89, 200)]:
    os.makedirs(f"{tmp}/{name}")
    np.save(f"{tmp}/{name}/in_A.npy", g.uniform(lo, hi, (1024, 1024)).astype(np.float32))
os.makedirs(f"{tmp}/randn")
np.save(f"{tmp}/randn/in_A.npy", g.standard_normal((1024, 1024)).astype(np.float32))
EOF
uptime
row() { # label spec
  ta=$("$a/bench/tvm_bench" --threads 1 --reps "${REPS:-21}" "$2" | awk '{print $3}')
  tb=""
  [ -n "$b" ] && tb=$("$b/bench/tvm_bench" --threads 1 --reps "${REPS:-21}" "$2" | awk '{print $3}')
  echo "$1|$ta|$tb"
}
{
  row "exp, x in [-80, 80] (normal results)" "$tmp/exp.leir:$tmp/exp.decls.json:$tmp/normal"
  row "exp, x in [-103.9, -87.4] (subnormal results)" "$tmp/exp.leir:$tmp/exp.decls.json:$tmp/subnormal"
  row "exp, x in [-200, -104] (0)" "$tmp/exp.leir:$tmp/exp.decls.json:$tmp/zero"
  row "exp, x in [89, 200] (+inf)" "$tmp/exp.leir:$tmp/exp.decls.json:$tmp/inf"
  m=$corpus/programs/level1/MinGPTNewGelu
  if [ -f "$m.leir" ]; then
    row "MinGPTNewGelu, N(0,1) inputs" "$m.leir:$m.decls.json:$tmp/randn"
    row "MinGPTNewGelu, leirc's random inputs (10 N(0,1))" "$m.leir:$m.decls.json"
  fi
} | awk -F'|' -v two="$b" '
  BEGIN { if (two != "") { print "| workload | A s | B s | A / B |"; print "|---|---|---|---|" }
          else { print "| workload | s |"; print "|---|---|" } }
  { if (two == "") printf "| %s | %.3g |\n", $1, $2
    else if ($2 + 0 > 0 && $3 + 0 > 0) printf "| %s | %.3g | %.3g | %.2f |\n", $1, $2, $3, $2 / $3
    else printf "| %s | %s | %s | - |\n", $1, $2, $3 }'
uptime
