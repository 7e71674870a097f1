#!/usr/bin/env bash
# make-bundle.sh -- prepare the GPU test bundle on a machine with leirc
# (and LLVM); testsuite/gpu/run.sh then runs it on a machine with a GPU,
# which needs only gcc, python3 with numpy and (for the benchmarks) PyTorch.
#
# For every test program it writes, under the bundle:
#   tests/NAME/prog.ptx       leirc's PTX (with its launch plan)
#   tests/NAME/inputs/*.npy   the inputs: the corpus data, else random
#                             (leirc --seed N --dump-inputs where leirc has
#                             it, else seeded Python, from the PTX's plan)
#   tests/NAME/expected/*.npy the interpreter's outputs on those inputs
#                             (the GPU's must be bit-identical, SPEC 13.3)
# and, for the benchmarks, bench/NAME/prog.ptx plus bench/NAME/kind (what
# PyTorch computes to compare with).  It also copies the runtime's sources
# (so that run.sh can build leirrt-run with a bare gcc), run.sh and its
# Python helpers.  Programs that leirc cannot compile or run are listed in
# the bundle's not-bundled.txt with the reason, not silently dropped.
#
# Usage: testsuite/gpu/make-bundle.sh [OPTION]...
#   --leirc PATH      the leirc to use (default: $LEIRC, else ./leirc, else
#                     leirc on PATH)
#   --out DIR         the bundle folder (default: ./gpu-bundle; replaced)
#   --corpus DIR      the corpus (default: <source>/../shared/corpus)
#   --all-corpus      also bundle every corpus program without data, on
#                     random inputs (until the size limit)
#   --seed N          seed for random inputs (default 1)
#   --max-mb N        stop adding tests past N MB (default 40)
#   --max-test-mb N   skip a test whose inputs and outputs take more than
#                     N MB (default 10)
#   --bench-opt OPTS  also bundle the benchmarks compiled with these leirc
#                     options (e.g. "-O tile,reorder")
#   --run-timeout S   time limit of one interpreter run (default 120)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)

leirc=${LEIRC:-}
out=gpu-bundle
corpus=$srcdir/../shared/corpus
all_corpus=0
seed=1
max_mb=40
max_test_mb=10
bench_opt=
run_timeout=120

die() { echo "make-bundle.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --leirc) leirc=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --corpus) corpus=${2:?}; shift 2 ;;
    --all-corpus) all_corpus=1; shift ;;
    --seed) seed=${2:?}; shift 2 ;;
    --max-mb) max_mb=${2:?}; shift 2 ;;
    --max-test-mb) max_test_mb=${2:?}; shift 2 ;;
    --bench-opt) bench_opt=${2:?}; shift 2 ;;
    --run-timeout) run_timeout=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
done

if [ -z "$leirc" ]; then
  if [ -x ./leirc ]; then leirc=./leirc; else leirc=$(command -v leirc || true); fi
fi
if [ -z "$leirc" ] || [ ! -x "$leirc" ]; then die "leirc not found (use --leirc PATH)"; fi
leirc=$(cd "$(dirname "$leirc")" && pwd)/$(basename "$leirc")
command -v python3 >/dev/null || die "python3 is needed (for the corpus manifests)"

help_text=$("$leirc" --help 2>&1 || true)
for opt in --run --output-dir --input --seed; do
  case $help_text in
    *"$opt"*) ;;
    *) die "this leirc has no $opt option (the interpreter is needed)" ;;
  esac
done
case $help_text in *--dump-inputs*) can_dump=1 ;; *) can_dump=0 ;; esac
ptxas=$(command -v ptxas || true)

rm -rf "$out"
mkdir -p "$out/tests" "$out/bench"
out=$(cd "$out" && pwd)
skipped=$out/not-bundled.txt
: >"$skipped"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

note_skip() { printf '%s: %s\n' "$1" "$2" >>"$skipped"; }

bundle_kb() { du -sk "$out" | cut -f1; }

# compile NAME SRC DEST [leirc args...]: PTX into DEST, assembled with
# ptxas when there is one (a PTX that ptxas refuses is not bundled).
compile() {
  local name=$1 src=$2 dest=$3
  shift 3
  if ! "$leirc" "$@" "$src" -o "$dest" 2>"$work/err"; then
    note_skip "$name" "leirc -o .ptx failed: $(head -c 300 "$work/err" | tr '\n' ' ')"
    return 1
  fi
  if [ -n "$ptxas" ] && ! "$ptxas" -arch=sm_90 "$dest" -o /dev/null 2>"$work/err"; then
    note_skip "$name" "ptxas -arch=sm_90 refused the PTX: $(head -c 300 "$work/err" | tr '\n' ' ')"
    return 1
  fi
}

# Prints --input NAME=FILE arguments for the non-output tensors of a
# corpus manifest (one argument a line).
manifest_inputs() {
  python3 - "$1" <<'EOF'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
for t in m["tensors"]:
    if t["role"] != "output":
        print("--input=%s=%s" % (t["leir_name"], os.path.join(d, t["file"])))
EOF
}

# Writes seeded random inputs for the in and param tensors of a PTX's
# launch plan, as DIR/NAME.npy, with Python's standard library only (no
# numpy here).  Floats uniform in [-1, 1), integers in [-8, 8) ([0, 8)
# unsigned), bools 0/1, bf16 as raw u2 bits (interp/npy.h's convention).
random_inputs() {
  python3 - "$1" "$2" "$3" <<'EOF'
import random, struct, sys
ptx, folder, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
kinds = {"f16": ("<f2", "e"), "f32": ("<f4", "f"), "f64": ("<f8", "d"),
         "bf16": ("<u2", "bf16"), "i8": ("|i1", "b"), "i16": ("<i2", "h"),
         "i32": ("<i4", "i"), "i64": ("<i8", "q"), "u8": ("|u1", "B"),
         "u16": ("<u2", "H"), "u32": ("<u4", "I"), "u64": ("<u8", "Q"),
         "bool": ("|b1", "?")}

def value(fmt):
    if fmt in ("e", "f", "d", "bf16"):
        return rng.uniform(-1.0, 1.0)
    if fmt == "?":
        return rng.random() < 0.5
    return rng.randrange(0, 8) if fmt.isupper() else rng.randrange(-8, 8)

def pack(fmt, n):
    if fmt != "bf16":
        return struct.pack("<%d%s" % (n, fmt), *(value(fmt) for _ in range(n)))
    out = bytearray()
    for _ in range(n):  # round to nearest even on the upper 16 bits
        b = struct.unpack("<I", struct.pack("<f", value(fmt)))[0]
        out += struct.pack("<H", (b + 0x7FFF + ((b >> 16) & 1)) >> 16)
    return bytes(out)

for line in open(ptx):
    if not line.startswith("//"):
        break
    f = line.split()
    if len(f) != 6 or f[1] != "leir-tensor" or f[3] not in ("in", "param"):
        continue
    name, dtype, dims = f[2], f[4], f[5]
    shape = () if dims == "-" else tuple(int(x) for x in dims.split(","))
    n = 1
    for e in shape:
        n *= e
    descr, fmt = kinds[dtype]
    text = "(%d,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
    head = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, text)
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open("%s/%s.npy" % (folder, name), "wb") as o:
        o.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        o.write(pack(fmt, n))
EOF
}

# KB of the in, param and out tensors of a PTX's launch plan.
plan_kb() {
  awk '!/^\/\// { exit }
       $2 == "leir-tensor" && $4 != "tmp" {
         n = 1; k = split($6, d, ",")
         if ($6 != "-") for (i = 1; i <= k; i++) n *= d[i]
         size = ($5 ~ /64/) ? 8 : ($5 ~ /32/) ? 4 : ($5 ~ /16/) ? 2 : 1
         total += n * size
       }
       END { printf "%d\n", total / 1024 }' "$1"
}

# add_test NAME SRC DATA_MANIFEST_OR_EMPTY [leirc args...]: compile, get the
# inputs (the corpus data, leirc's --dump-inputs, or random_inputs), run the
# interpreter for the expected outputs.  Returns 1 once the size limit is
# reached.
add_test() {
  local name=$1 src=$2 manifest=$3
  shift 3
  local dir=$out/tests/$name
  local -a inputs=()
  local a n f
  mkdir -p "$dir/inputs" "$dir/expected"
  if ! compile "$name" "$src" "$dir/prog.ptx" "$@"; then
    rm -rf "$dir"
    return 0
  fi
  local kb
  kb=$(plan_kb "$dir/prog.ptx")
  if [ "$kb" -gt $((max_test_mb * 1024)) ]; then
    note_skip "$name" "its inputs and outputs take ${kb} KB, over ${max_test_mb} MB"
    rm -rf "$dir"
    return 0
  fi
  if [ -n "$manifest" ]; then
    mapfile -t inputs < <(manifest_inputs "$manifest")
    for a in "${inputs[@]}"; do
      n=${a#--input=}; f=${n#*=}; n=${n%%=*}
      cp "$f" "$dir/inputs/$n.npy"
    done
  elif [ "$can_dump" = 1 ]; then
    inputs=(--seed "$seed" --dump-inputs "$dir/inputs")
  else
    random_inputs "$dir/prog.ptx" "$dir/inputs" "$seed"
    for f in "$dir"/inputs/*.npy; do
      if [ -f "$f" ]; then inputs+=("--input=$(basename "$f" .npy)=$f"); fi
    done
  fi
  if ! timeout "$run_timeout" "$leirc" --run "$@" "${inputs[@]}" \
       --output-dir "$dir/expected" "$src" 2>"$work/err"; then
    note_skip "$name" "leirc --run failed or took over ${run_timeout}s: $(head -c 300 "$work/err" | tr '\n' ' ')"
    rm -rf "$dir"
    return 0
  fi
  if [ "$(bundle_kb)" -gt $((max_mb * 1024)) ]; then
    note_skip "$name" "bundle size limit (${max_mb} MB) reached"
    rm -rf "$dir"
    return 1
  fi
}

# add_bench NAME SRC KIND [leirc args...]: KIND tells bench.py what PyTorch
# computes: "matmul A C D" or "softmax A C".
add_bench() {
  local name=$1 src=$2 kind=$3
  shift 3
  mkdir -p "$out/bench/$name"
  echo "$kind" >"$out/bench/$name/kind"
  if ! compile "bench/$name" "$src" "$out/bench/$name/prog.ptx" "$@"; then
    rm -rf "${out:?}/bench/$name"
  fi
}

# ---- tests -----------------------------------------------------------------
echo "make-bundle.sh: examples"
for f in "$srcdir"/examples/*.leir; do
  name=example-$(basename "$f" .leir)
  case $name in example-sgemm1024) continue ;; esac  # a benchmark only
  add_test "$name" "$f" "" || break
done

if [ -d "$corpus/programs" ]; then
  echo "make-bundle.sh: corpus programs with data"
  for m in "$corpus"/data/*/*/manifest.json; do
    [ -f "$m" ] || continue
    d=$(dirname "$m"); level=$(basename "$(dirname "$d")"); w=$(basename "$d")
    p=$corpus/programs/$level/$w
    add_test "corpus-$level-$w" "$p.leir" "$m" --decls "$p.decls.json" || break
  done
  if [ "$all_corpus" = 1 ]; then
    echo "make-bundle.sh: other corpus programs (random inputs)"
    for p in "$corpus"/programs/*/*.leir; do
      level=$(basename "$(dirname "$p")"); w=$(basename "$p" .leir)
      [ -d "$out/tests/corpus-$level-$w" ] && continue
      add_test "corpus-$level-$w" "$p" "" --decls "${p%.leir}.decls.json" || break
    done
  fi
else
  note_skip corpus "no corpus at $corpus"
fi

# ---- benchmarks -------------------------------------------------------------
echo "make-bundle.sh: benchmarks"
add_bench sgemm1024 "$srcdir/examples/sgemm1024.leir" "matmul A C D"
sm=$corpus/programs/level1/softmax
if [ -f "$sm.leir" ]; then
  add_bench softmax-16x16384 "$sm.leir" "softmax A C" --decls "$sm.decls.json"
fi
if [ -n "$bench_opt" ]; then
  read -r -a opt_args <<<"$bench_opt"
  add_bench sgemm1024-opt "$srcdir/examples/sgemm1024.leir" "matmul A C D" "${opt_args[@]}"
  if [ -f "$sm.leir" ]; then
    add_bench softmax-16x16384-opt "$sm.leir" "softmax A C" --decls "$sm.decls.json" "${opt_args[@]}"
  fi
fi

# ---- sources and scripts ----------------------------------------------------
mkdir -p "$out/src/runtime/leir" "$out/src/interp"
cp "$srcdir"/runtime/rt-*.c "$srcdir"/runtime/rt-internal.h \
   "$srcdir"/runtime/leirrt-run.c "$out/src/runtime/"
cp "$srcdir/runtime/leir/runtime.h" "$out/src/runtime/leir/"
cp "$srcdir/interp/npy.c" "$srcdir/interp/npy.h" "$out/src/interp/"
cp "$here/run.sh" "$here/compare.py" "$here/bench.py" "$out/"
chmod +x "$out/run.sh"
{
  echo "leirc: $("$leirc" --version 2>&1 | head -1)"
  echo "source: $(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "made: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n)"
  echo "seed: $seed"
  echo "ptxas check: ${ptxas:-none}"
} >"$out/MANIFEST"

ntests=$(find "$out/tests" -mindepth 1 -maxdepth 1 -type d | wc -l)
nbench=$(find "$out/bench" -mindepth 1 -maxdepth 1 -type d | wc -l)
nskip=$(wc -l <"$skipped")
echo "make-bundle.sh: $out: $ntests tests, $nbench benchmarks, $nskip not bundled, $(bundle_kb) KB"
if [ "$nskip" -gt 0 ]; then
  echo "make-bundle.sh: not bundled (see $skipped):"
  cut -c1-160 "$skipped" | sed 's/^/  /'
fi
