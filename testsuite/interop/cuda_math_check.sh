#!/bin/sh
# The device copy of leirc's math routines that --emit=cuda prints
# (codegen/emit_cuda_math.h) computes exactly what ir/mathlib.c computes:
# the helpers of math-all.leir's CUDA are compiled as host C++ (the _rn
# intrinsics as plain IEEE operations, no contraction) and compared bit for
# bit with ir/mathlib.c on 2^20 random and special inputs per routine, and on
# every f16/bf16 pattern.  Usage: cuda_math_check.sh LEIRC TOP_SRCDIR WORKDIR
# Exit 0 pass, 1 fail, 77 when no C++ compiler is found.
set -u
leirc=${1:?}; top=${2:?}; work=${3:?}
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null 2>&1 || cxx=g++
command -v "$cxx" >/dev/null 2>&1 || { echo "UNSUPPORTED: cuda math: no C++ compiler"; exit 77; }
mkdir -p "$work"
"$leirc" -w --emit=cuda "$top/testsuite/interop/math-all.leir" -o "$work/math-all.cu" || exit 1
sed -n "/^\/\* leirc's math routines/,/^\/\* nest 0/p" "$work/math-all.cu" | sed '$d' > "$work/chunks.inc"
cat > "$work/check.cc" <<'EOC'
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <math.h>
extern "C" {
float leir_expf(float), leir_logf(float), leir_erff(float), leir_powf(float, float);
double leir_exp(double), leir_log(double), leir_erf(double), leir_pow(double, double);
uint16_t leir_f32_to_f16(float), leir_f32_to_bf16(float);
float leir_f16_to_f32(uint16_t), leir_bf16_to_f32(uint16_t);
}
#define __device__
#define __forceinline__ inline
#define __constant__
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
using std::signbit;
namespace dev {
#include "chunks.inc"
}
static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; }
static int bad = 0;
static void cmp32(const char *w, float x, float y, float a, float b) {
  uint32_t ua, ub; memcpy(&ua, &a, 4); memcpy(&ub, &b, 4);
  if (ua != ub && bad++ < 10) printf("FAIL: cuda math %s(%a, %a): device copy %a, mathlib %a\n", w, x, y, a, b);
}
static void cmp64(const char *w, double x, double y, double a, double b) {
  uint64_t ua, ub; memcpy(&ua, &a, 8); memcpy(&ub, &b, 8);
  if (ua != ub && bad++ < 10) printf("FAIL: cuda math %s(%a, %a): device copy %a, mathlib %a\n", w, x, y, a, b);
}
static float f32of(uint64_t r) {
  uint32_t u = (uint32_t)r; float f;
  if ((r >> 40) % 4 == 0) u = (u & 0x807fffffu) | ((uint32_t)(120 + (r >> 50) % 16) << 23); /* |x| near 1 */
  memcpy(&f, &u, 4); return f;
}
static double f64of(uint64_t r) {
  double d;
  if ((r >> 60) % 4 == 0) r = (r & 0x800fffffffffffffull) | ((uint64_t)(1015 + (r >> 52) % 16) << 52);
  memcpy(&d, &r, 8); return d;
}
int main() {
  const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, 3.0f, -3.0f, INFINITY, -INFINITY, NAN, 1e-45f, 88.7f, -104.0f, 6.0f};
  long n = 0;
  for (int i = 0; i < (1 << 20); i++) {
    float x = i < 15 ? sp[i] : f32of(rnd()), y = i < 225 ? sp[i % 15] : f32of(rnd());
    if (i < 225) x = sp[i / 15];
    else if (i % 4 == 0) y = (float)((int)(rnd() % 17) - 8); /* pow's integer path and around it */
    else if (i % 8 == 1) y = 0.5f; /* its square root */
    double dx = f64of(rnd()), dy = f64of(rnd());
    if (i < 225) { dx = x; dy = y; }
    cmp32("expf", x, 0, dev::leir_expf(x), leir_expf(x));
    cmp32("logf", x, 0, dev::leir_logf(x), leir_logf(x));
    cmp32("erff", x, 0, dev::leir_erff(x), leir_erff(x));
    cmp32("powf", x, y, dev::leir_powf(x, y), leir_powf(x, y));
    cmp64("exp", dx, 0, dev::leir_exp(dx), leir_exp(dx));
    cmp64("log", dx, 0, dev::leir_log(dx), leir_log(dx));
    cmp64("erf", dx, 0, dev::leir_erf(dx), leir_erf(dx));
    cmp64("pow", dx, dy, dev::leir_pow(dx, dy), leir_pow(dx, dy));
    cmp32("f32_to_f16", x, 0, (float)dev::leir_f32_to_f16(x), (float)leir_f32_to_f16(x));
    cmp32("f32_to_bf16", x, 0, (float)dev::leir_f32_to_bf16(x), (float)leir_f32_to_bf16(x));
    n += 10;
  }
  for (uint32_t h = 0; h < 65536; h++) {
    cmp32("f16_to_f32", (float)h, 0, dev::leir_f16_to_f32((uint16_t)h), leir_f16_to_f32((uint16_t)h));
    cmp32("bf16_to_f32", (float)h, 0, dev::leir_bf16_to_f32((uint16_t)h), leir_bf16_to_f32((uint16_t)h));
    n += 2;
  }
  printf("cuda math: %ld comparisons, %d differ\n", n, bad);
  return bad != 0;
}
EOC
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || cc=gcc
"$cc" -std=c17 -O2 -ffp-contract=off -I"$top" -c "$top/ir/mathlib.c" -o "$work/mathlib.o" || exit 1
"$cxx" -std=c++17 -O2 -ffp-contract=off -I"$work" "$work/check.cc" "$work/mathlib.o" -o "$work/check" || exit 1
"$work/check"
