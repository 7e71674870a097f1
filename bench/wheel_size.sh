#!/bin/sh
# wheel_size.sh -- the wheel's size three ways (issue 60; LEIR_WHEEL_LLVM of
# tools/make-wheel.sh): LLVM's static libraries linked into one library that
# libleir.so.0 and leirc share (static: what `make wheel` ships), into each
# of them (static-copies), and libLLVM-19.so grafted by auditwheel (shared).
# Builds the three, one after the other, in the build tree BUILD, and prints
# for each the wheel's bytes, the installed bytes (the members' sizes added
# up), the largest members and the wall time of `make wheel`.  `make wheel`
# is left with the static wheel.  Not part of `make bench` (three wheel
# builds: minutes on a shared machine; the first also makes the tools'
# virtualenv).
#
#   sh bench/wheel_size.sh BUILD          (make -C BUILD bench-wheel)
set -eu
build=$(cd "$1" && pwd)
cd "$build"
echo "== wheel size, LLVM static (one shared core), static-copies, shared ($(uname -m), $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg))"
for mode in shared static-copies static; do
  t0=$(date +%s.%N)
  LEIR_WHEEL_LLVM=$mode make -s wheel >"wheel-$mode.log" 2>&1 || { cat "wheel-$mode.log"; exit 1; }
  t1=$(date +%s.%N)
  whl=$(ls wheel/leir-*.whl)
  wheel/venv/bin/python - "$whl" "$mode" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" <<'EOF'
import os, sys, zipfile
whl, mode, secs = sys.argv[1:]
z = zipfile.ZipFile(whl)
infos = z.infolist()
print(f"LLVM {mode}: {os.path.basename(whl)}: {os.path.getsize(whl)} bytes "
      f"({os.path.getsize(whl) / 2**20:.1f} MiB), installed {sum(i.file_size for i in infos)} bytes "
      f"({sum(i.file_size for i in infos) / 2**20:.1f} MiB), {len(infos)} members, make wheel {float(secs):.0f} s")
for i in sorted(infos, key=lambda i: -i.compress_size)[:6]:
    print(f"    {i.filename}: {i.file_size} bytes, {i.compress_size} compressed")
EOF
  rm -f "wheel-$mode.log"
done
