#!/bin/sh
# policy_bench.sh -- `leirc --tune=greedy` against `leirc --tune=policy`
# with the cost-model-greedy example policy
# (examples/policies/greedy_cost_policy.py) on SGEMM 1024^3
# (examples/sgemm1024.leir), --cost=model, side by side at each budget:
# the speedup each finds (the model's), its steps, programs costed and wall
# time, and policy/greedy.  Issue 37 asks the policy to do at least as well
# as greedy at the same budget.
#
#   bench/policy_bench.sh [BUILDDIR] [BUDGETS]      (default "8 32 96")
#
# Environment: PYTHON (default python3) runs the policy.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-.}
budgets=${2:-8 32 96}
leirc=$build/leirc
py=${PYTHON:-python3}
prog=$here/examples/sgemm1024.leir
pol="$py $here/examples/policies/greedy_cost_policy.py"
tmp=${TMPDIR:-/tmp}/policy_bench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# speedup steps evaluations wall_s of a trace's summary
summary() {
  tail -n 1 "$1" | sed -n 's/.*"steps":\([0-9]*\),.*"speedup":\([^,]*\),"evaluations":\([0-9]*\),.*"wall_s":\([^,}]*\).*/\2 \1 \3 \4/p'
}

echo "== SGEMM 1024^3, --cost=model: --tune=greedy vs --tune=policy (greedy_cost_policy.py)"
echo "   $(uptime)"
printf '%6s | %8s %5s %5s %7s | %8s %5s %5s %7s | %s\n' budget greedy steps evals wall_s policy steps evals wall_s policy/greedy
for b in $budgets; do
  "$leirc" --tune=greedy --cost=model --budget="$b" --trace="$tmp/g.jsonl" -o "$tmp/g.leir" "$prog" || exit 1
  "$leirc" --tune=policy --policy="$pol" --cost=model --budget="$b" --trace="$tmp/p.jsonl" -o "$tmp/p.leir" \
    "$prog" || exit 1
  set -- $(summary "$tmp/g.jsonl") $(summary "$tmp/p.jsonl")
  [ $# -eq 8 ] || { echo "policy_bench: cannot read a trace summary"; exit 1; }
  printf '%6d | %7.3fx %5d %5d %7.2f | %7.3fx %5d %5d %7.2f | %.3f\n' "$b" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" \
    "$(awk -v p="$5" -v g="$1" 'BEGIN { print p / g }')"
done
echo "   $(uptime)"
