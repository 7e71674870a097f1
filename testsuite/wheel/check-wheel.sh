#!/bin/sh
# check-wheel.sh -- `make check-wheel` (issue 60): installs the wheel of
# `make wheel` into fresh virtualenvs and checks that it does what the build
# tree does, byte for byte:
#   1. the wheel holds what tools/make-wheel.sh says (library, leirc, man
#      pages, schemas, entry points) and its tag is manylinux_2_NN_x86_64;
#   2. a virtualenv WITHOUT the system's site packages (pip install WHEEL,
#      NumPy from PyPI): `import leir` loads the bundled libleir.so.0 (not the
#      build tree's, not the system's), `leirc --version` is the build tree's,
#      `leirc --run` and `leirc --emit=ptx` write the build tree's bytes,
#      Program.run (interpreter and host JIT) returns the build tree's bytes,
#      and the man pages and schemas are where leir/share says;
#   3. leirc-import on a zoo model (testsuite/python/zoo): in that virtualenv
#      when it can import torch; else (PyPI's torch is too big to fetch here)
#      in a second virtualenv WITH the system's site packages (Debian's
#      python3-torch), the wheel installed there with --no-deps: the program
#      and data files equal the build tree's leirc-import's, and the wheel's
#      leirc runs the imported program to the build tree's bytes.
# Everything is written under $top_builddir/testsuite/scratch/wheel.  Prints
# `N passed, N failed` last; exit status 1 on any failure.
#
# Environment: top_srcdir, top_builddir (absolute), PYTHON (the Python the
# virtualenvs are made from: Debian's /usr/bin/python3), PACKAGE_VERSION;
# WHEEL_PIP_ARGS: extra arguments for the installing pip (e.g. --find-links).
# (`A && ok ... || ko ...` throughout: ok and ko always succeed.)
# shellcheck disable=SC2015
set -u
: "${top_srcdir:?}" "${top_builddir:?}" "${PACKAGE_VERSION:?}" "${PYTHON:=/usr/bin/python3}"
: "${WHEEL_PIP_ARGS:=}"
w=$top_builddir/testsuite/scratch/wheel
rm -rf "$w" && mkdir -p "$w" || exit 1
cd "$w" || exit 1
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "PASS: $*"; }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }
# same FILE1 FILE2 WHAT: byte-identical files
same() { if cmp -s "$1" "$2"; then ok "$3"; else ko "$3 ($1 differs from $2)"; diff "$1" "$2" | head -5; fi; }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

# The build tree's commands, and the wheel's run with nothing of the build
# tree in the environment (no LEIR_LIBDIR, no PYTHONPATH).
tree_leirc=$top_builddir/leirc
tree_python() { PYTHONPATH=$top_srcdir/python LEIR_LIBDIR=$top_builddir/.libs "$PYTHON" "$@"; }
in_venv() {  # in_venv VENV CMD...: CMD with VENV's bin/ first on PATH
  v=$1; shift
  env -u LEIR_LIBDIR -u PYTHONPATH -u PYTHONHOME PATH="$v/bin:$PATH" VIRTUAL_ENV="$v" "$@"
}

# -- 1. the wheel's contents
set -- "$top_builddir"/wheel/leir-"$PACKAGE_VERSION"-py3-none-manylinux_*_x86_64.whl
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  ko "one wheel in $top_builddir/wheel (make wheel): found $*"
  finish
fi
whl=$1
glibc=$(ldd --version | sed -n '1s/.* \([0-9][0-9]*\)\.\([0-9][0-9]*\)$/\1_\2/p')
case $whl in
  */leir-"$PACKAGE_VERSION"-py3-none-manylinux_"$glibc"_x86_64.whl) ok "tag manylinux_${glibc}_x86_64 (glibc ${glibc%_*}.${glibc#*_})" ;;
  *) ko "tag of $whl: manylinux_${glibc}_x86_64 expected" ;;
esac
"$PYTHON" - "$whl" "$top_srcdir" >contents.out 2>&1 <<'EOF'
import os, stat, sys, zipfile
whl, src = sys.argv[1:]
z = zipfile.ZipFile(whl)
names = set(z.namelist())
want = ["leir/libleir.so.0", "leir/bin/leirc", "leir/_cli.py", "leir/torch_import/cli.py",
        "leir/share/man/man1/leirc.1", "leir/share/man/man1/leirc-import.1",
        "leir/share/man/man3/libleir.3", "leir/share/man/man7/leir.7",
        "leir/share/man/man7/leir-strategies.7", "leir/share/doc/leirc.1.txt"]
want += ["leir/share/schemas/" + f for f in sorted(os.listdir(os.path.join(src, "schemas")))
         if f.endswith(".json")]
missing = [n for n in want if n not in names]
print("missing:", missing)
for n in ("leir/bin/leirc",):
    mode = z.getinfo(n).external_attr >> 16
    print(n, "executable" if mode & stat.S_IXUSR else "NOT executable")
# the man pages and schemas are the sources' bytes
for n in want:
    if n.startswith("leir/share/man/") or n.startswith("leir/share/schemas/"):
        folder = "schemas" if "/schemas/" in n else "man"
        with open(os.path.join(src, folder, os.path.basename(n)), "rb") as f:
            print(n, "same" if n in names and z.read(n) == f.read() else "DIFFERS")
ep = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
print(z.read(ep[0]).decode() if ep else "no entry_points.txt")
EOF
cat contents.out
grep -q '^missing: \[\]$' contents.out && ok "wheel holds library, leirc, man pages, schemas" || ko "wheel contents"
grep -q '^leir/bin/leirc executable$' contents.out && ok "leir/bin/leirc is executable in the wheel" || ko "leir/bin/leirc mode"
grep -q ' same$' contents.out && ! grep -q ' DIFFERS$' contents.out &&
  ok "man pages and schemas equal the sources" || ko "a man page or schema differs"
grep -qx 'leirc = leir._cli:leirc' contents.out && grep -qx 'leirc-import = leir.torch_import.cli:main' contents.out &&
  ok "console entry points leirc, leirc-import" || ko "entry points"

# -- 2. a fresh virtualenv without the system's site packages
va=$w/venv
"$PYTHON" -m venv "$va" || { ko "python -m venv"; finish; }
# shellcheck disable=SC2086
if in_venv "$va" pip install --quiet --disable-pip-version-check $WHEEL_PIP_ARGS "$whl" >pip.log 2>&1; then
  ok "pip install $(basename "$whl") (NumPy from PyPI) into a venv without system site packages"
else
  cat pip.log; ko "pip install of the wheel"; finish
fi
site=$(in_venv "$va" python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
in_venv "$va" python -c 'import sys; sys.exit(any("dist-packages" in p for p in sys.path))' &&
  ok "the venv does not see the system's site packages" || ko "the venv sees dist-packages"
cat >where.py <<'EOF'
import leir, leir._lib as L
print(leir.__file__)
print(leir.library_path())
print(L.leirc_path())
print(leir.library_version())
EOF
if in_venv "$va" python where.py >where.out 2>&1; then
  printf '%s\n' "$site/leir/__init__.py" "$site/leir/libleir.so.0" "$site/leir/bin/leirc" \
    "$("$tree_leirc" --version | sed -n '1s/^leirc \([^ ]*\).*/\1/p')" >where.want
  if cmp -s where.out where.want; then ok "import leir: the venv's package, bundled libleir.so.0 and leirc"
  else ko "import leir paths/version"; diff where.want where.out; fi
else
  cat where.out; ko "import leir in the venv"
fi
# the library the process really mapped is the bundled one
in_venv "$va" python -c 'import leir; leir.library_version(); print(open("/proc/self/maps").read())' 2>&1 |
  awk '$NF ~ /libleir\.so\.0$/ { print $NF }' | sort -u >maps.out
printf '%s\n' "$site/leir/libleir.so.0" >maps.want
same maps.want maps.out "the process maps the bundled libleir.so.0 only"
# every library they load is the wheel's own or one of the system's that the
# manylinux policy allows (no LLVM, nothing of the build tree, nothing missing)
ldd "$site/leir/bin/leirc" "$site/leir/libleir.so.0" >ldd.out 2>&1
awk -v site="$site/" '/=>/ && index($3, site) != 1 && $1 !~ /^(libc|libm|libdl|librt|libpthread|libz|libstdc\+\+|libgcc_s)\.so\.[0-9]+$/' \
  ldd.out >ldd.bad
if [ -s ldd.bad ] || grep -q 'not found' ldd.out || ! grep -q "=> $site/leir" ldd.out; then
  cat ldd.out; ko "ldd of the installed leirc, libleir.so.0"
else ok "the installed leirc and libleir.so.0 load only the wheel's libraries and glibc, libstdc++, zlib"; fi
[ "$(in_venv "$va" sh -c 'command -v leirc')" = "$va/bin/leirc" ] && ok "leirc on PATH is the venv's entry point" ||
  ko "leirc on PATH"

in_venv "$va" leirc --version >version.wheel 2>&1
"$tree_leirc" --version >version.tree 2>&1
same version.tree version.wheel "leirc --version"
in_venv "$va" leirc --help >help.wheel 2>&1
"$tree_leirc" --help >help.tree 2>&1
same help.tree help.wheel "leirc --help"
# an error: the same diagnostics and exit status
printf 'B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}+;];\n' >bad.leir
in_venv "$va" leirc bad.leir >bad.wheel 2>&1; echo "status $?" >>bad.wheel
"$tree_leirc" bad.leir >bad.tree 2>&1; echo "status $?" >>bad.tree
same bad.tree bad.wheel "leirc on a bad program: diagnostics and exit status"

# leirc --run (interpreter and host JIT) and --emit=ptx on the examples
for ex in matmul softmax layernorm; do
  src=$top_srcdir/examples/$ex.leir
  for target in interp host; do
    topt=""; [ $target = host ] && topt=--target=host
    mkdir -p "run-$ex-$target/wheel" "run-$ex-$target/tree"
    # shellcheck disable=SC2086
    in_venv "$va" leirc -O tile,reorder --run $topt --output-dir "run-$ex-$target/wheel" "$src" >/dev/null 2>&1 &&
      "$tree_leirc" -O tile,reorder --run $topt --output-dir "run-$ex-$target/tree" "$src" >/dev/null 2>&1 &&
      [ -n "$(ls "run-$ex-$target/tree")" ] && diff -r "run-$ex-$target/tree" "run-$ex-$target/wheel" >/dev/null &&
      ok "leirc --run $topt $ex.leir: the same .npy files" || ko "leirc --run $topt $ex.leir"
  done
  in_venv "$va" leirc -O tile,reorder --emit=ptx "$src" -o "$ex.wheel.ptx" >/dev/null 2>&1
  "$tree_leirc" -O tile,reorder --emit=ptx "$src" -o "$ex.tree.ptx" >/dev/null 2>&1
  [ -s "$ex.tree.ptx" ] && same "$ex.tree.ptx" "$ex.wheel.ptx" "leirc --emit=ptx $ex.leir"
done

# the learned cost model (issue 58): the wheel bundles XGBoost and its own
# costmodel.json; its estimate equals the build tree's, where the build tree
# has XGBoost (configure found libxgboost-dev)
if env -u LEIRC_COST_MODEL "$tree_leirc" --print-cost --cost=learned "$top_srcdir/examples/matmul.leir" \
     >learned.tree 2>&1; then
  in_venv "$va" env -u LEIRC_COST_MODEL leirc --print-cost --cost=learned \
    "$top_srcdir/examples/matmul.leir" >learned.wheel 2>&1
  if grep -q '^learned_seconds: ' learned.tree; then
    same learned.tree learned.wheel "leirc --print-cost --cost=learned"
  else
    ko "leirc --print-cost --cost=learned: the build tree printed no learned_seconds"
  fi
else
  echo "note: the build tree's leirc has no learned cost model (no XGBoost): not compared"
fi

# Program.run round trip: the same script under the wheel and the build tree
cat >roundtrip.py <<'EOF'
"""Program.run of examples/NAME.leir on exact inputs; writes each output's bytes."""
import sys
import numpy as np
import leir
src, out = sys.argv[1:]
for name in ("matmul", "softmax", "layernorm", "conv2d"):
    p = leir.Program.load(f"{src}/examples/{name}.leir")
    inputs = {}
    for t in p.tensors:
        if t.role == "out":
            continue
        n = int(np.prod(t.shape))
        # exactly representable values, the same under any NumPy
        vals = ((np.arange(n, dtype=np.int64) * 7919) % 257 - 128) / 64.0
        inputs[t.name] = vals.astype(t.numpy_dtype).reshape(t.shape)
    for target in ("interp", "host"):
        for o, a in sorted(p.run(inputs, target=target).items()):
            with open(f"{out}/{name}-{target}-{o}.bin", "wb") as f:
                f.write(f"{a.dtype.str} {a.shape}\n".encode() + a.tobytes())
    q = p.apply(p.candidates()[0])
    for o, a in sorted(q.run(inputs, target="host").items()):
        with open(f"{out}/{name}-applied-{o}.bin", "wb") as f:
            f.write(f"{a.dtype.str} {a.shape}\n".encode() + a.tobytes())
    with open(f"{out}/{name}.ptx", "w") as f:
        f.write(q.ptx())
EOF
mkdir -p rt/wheel rt/tree
if in_venv "$va" python roundtrip.py "$top_srcdir" rt/wheel >rt.wheel.log 2>&1 &&
   tree_python roundtrip.py "$top_srcdir" rt/tree >rt.tree.log 2>&1; then
  n=$(find rt/tree -type f | wc -l)
  if [ "$n" -gt 10 ] && diff -r rt/tree rt/wheel >/dev/null; then
    ok "Program.run (interp, host, after a step) and .ptx(): $n files byte-identical"
  else ko "Program.run round trip differs"; diff -rq rt/tree rt/wheel | head; fi
else
  cat rt.wheel.log rt.tree.log; ko "Program.run round trip"
fi

# the documentation the wheel installs
[ -s "$site/leir/share/doc/leirc.1.txt" ] &&
  grep -q "$PACKAGE_VERSION" "$site/leir/share/doc/leirc.1.txt" && ok "leir/share/doc/leirc.1.txt" ||
  ko "leir/share/doc/leirc.1.txt"
if command -v man >/dev/null; then
  MANWIDTH=80 man -M "$site/leir/share/man" -P cat leirc 2>/dev/null | head -3 | grep -q LEIRC &&
    ok "man -M SITE/leir/share/man leirc" || ko "man -M SITE/leir/share/man leirc"
fi

# -- 3. leirc-import on a zoo model
model=Gemm_Add_ReLU
zoo=$top_srcdir/testsuite/python/zoo/$model.py
if in_venv "$va" python -c 'import torch' >/dev/null 2>&1; then
  vi=$va
  echo "note: leirc-import checked in the venv without system site packages (torch importable there)"
else
  vi=$w/venv-torch
  echo "note: the venv has no torch (PyPI's is too big to install here): leirc-import needs torch;"
  echo "note: checking it in a second venv WITH the system's site packages (Debian's python3-torch)"
  "$PYTHON" -m venv --system-site-packages "$vi" &&
    in_venv "$vi" pip install --quiet --disable-pip-version-check --no-deps "$whl" >pip-torch.log 2>&1 ||
    { cat pip-torch.log; ko "venv with system site packages"; finish; }
  [ "$(in_venv "$vi" python -c 'import leir; print(leir.__file__)')" = \
    "$(in_venv "$vi" python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/leir/__init__.py" ] &&
    ok "second venv: leir is the wheel's" || ko "second venv: leir is not the wheel's"
fi
[ "$(in_venv "$vi" sh -c 'command -v leirc-import')" = "$vi/bin/leirc-import" ] &&
  ok "leirc-import on PATH is the venv's entry point" || ko "leirc-import on PATH"
mkdir -p imp/wheel imp/tree
if (cd imp/wheel && in_venv "$vi" leirc-import "$zoo" -o "$model.leir" --data-dir data) &&
   (cd imp/tree && LEIR_LIBDIR=$top_builddir/.libs "$top_builddir/leirc-import" "$zoo" -o "$model.leir" --data-dir data) &&
   [ -s "imp/tree/$model.leir" ] && diff -r imp/tree imp/wheel >/dev/null; then
  ok "leirc-import $model.py: program, .npy files and manifest.json identical"
else
  ko "leirc-import $model.py"; diff -rq imp/tree imp/wheel | head
fi
# the imported program run by the wheel's leirc and by the build tree's
args=$("$PYTHON" -c '
import json, sys
m = json.load(open(sys.argv[1]))
print(" ".join("--input %s=%s/%s" % (t["leir_name"], sys.argv[2], t["file"])
               for t in m["tensors"] if t["role"] in ("input", "param")))' imp/tree/data/manifest.json imp/tree/data)
[ -n "$args" ] || ko "no inputs in imp/tree/data/manifest.json"
mkdir -p imprun/wheel imprun/tree
# shellcheck disable=SC2086
if in_venv "$va" leirc --run --target=host $args --output-dir imprun/wheel "imp/tree/$model.leir" >/dev/null 2>&1 &&
   "$tree_leirc" --run --target=host $args --output-dir imprun/tree "imp/tree/$model.leir" >/dev/null 2>&1 &&
   [ -n "$(ls imprun/tree)" ] && diff -r imprun/tree imprun/wheel >/dev/null; then
  ok "leirc --run --target=host of the imported $model: the same .npy files"
else
  ko "leirc --run of the imported $model"
fi
finish
