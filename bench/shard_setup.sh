# shard_setup.sh -- sourced (`. bench/shard_setup.sh`) by the issue 61
# --emit-steps benchmarks that run one shard of the whole corpus
# (bench/steps_programs.sh, bench/incr_bench.sh), after they set `bench`
# (their name) and `corpus` (CORPUS_DIR).  Sets jobs (JOBS, default 2),
# cshard (CORPUS_SHARD, default 2000), tmp (a directory removed on exit),
# progs (the corpus's programs, levels 1 and 2) and np (how many), defines
# load (the load average, for the output) and prints the machine; exits 77
# (skipped) when there is no corpus.
jobs=${JOBS:-2}
cshard=${CORPUS_SHARD:-2000}
[ -d "$corpus/programs" ] || { echo "$bench: no corpus at $corpus (skipped)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
load() { uptime | sed 's/.*load average: */load /'; }
echo "machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
progs=$(ls "$corpus"/programs/level1/*.leir "$corpus"/programs/level2/*.leir)
np=$(echo "$progs" | wc -l)
