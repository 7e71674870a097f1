/* mathlib_erf_table.c -- the prototype of the table-driven f32 erf (issue
 * 59: GELU needs erf at about 1550 Melem/s, leirc's was about 990), measured
 * beside leirc's host JIT erf.  Since then leir_erff (ir/mathlib.c) is this
 * algorithm with these tables, and the host JIT emits it as a vector routine
 * (codegen/mathlib_emit.c leir.erff.v8); the hand-written AVX2 loop below
 * stays as the yardstick for the JIT's code.
 *
 * The algorithm (tables from bench/mathlib_erf_fit.py, in
 * bench/mathlib_erf_table.h): a = |x|, c = min(a, 4),
 * i = (int)fmaf(c, 1.9, 0.09) (0 to 7), u = c - M[i],
 * p = P_i(u) (Horner, ET_NC = 7 coefficients, each C_j[i]),
 * r = fmaf(u, p, i == 0 ? a : K[i]) (M[0] = 0: u = a there), y = copysign(r, x),
 * NaN in, NaN out (same bits).  One polynomial per element whatever the
 * interval, the coefficients looked up in 8-entry tables: on AVX2 one
 * vpermps per coefficient (lane-crossing, a register operand), where
 * leirc's erf evaluates two polynomials (7 and 11 terms) and selects each of
 * the 11 coefficients with a blend.  The scalar routine below is the
 * reference; the AVX2 routine must give the same bits.  (Until issue 59's
 * second round: 4 intervals of 0.8 and 8 coefficients by vpermilps from
 * 4-entry tables; an earlier note found vpermps with 8 intervals and 8
 * coefficients slower on Zen 3, one vpermps per 2 cycles.  Until issue
 * 59's third round: i = min((int)(2 c), 7) and interval 0 in t = a*a, which
 * cost a multiplication and a blend more per vector.)
 *
 *   mathlib_erf_table [--stride S] [--n N] [--reps R]
 *
 * Prints: the scalar routine's error against the correctly rounded result
 * on every S-th f32 pattern (testsuite/unit/mathlib_ulp.h; default 257;
 * 1 = all 2^32, about 20 minutes), how many of those patterns' AVX2 results
 * and leir_erff results differ from the scalar routine's (must be 0), and
 * elements per second on one thread of the AVX2 routine, leirc's host JIT
 * erf (`D = erf(A)` f32, as bench/mathlib_bench) and leirc's C leir_erff,
 * on the same N inputs uniform in [-4, 4] (best of R).  Exits 0 when the bits agree, 1
 * otherwise, 77 without AVX2 and FMA.  `make bench-erf-table`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/mathlib_erf_table.h"
#include "codegen/codegen.h"
#include "ir/mathlib.h"
#include "testsuite/unit/mathlib_ulp.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the reference: the algorithm above in scalar f32 arithmetic */
static float erf_table(float x) {
  float a = fabsf(x);
  float c = a < 4.0f ? a : 4.0f;
  int i = (int)fmaf(c, ET_SCALE, ET_BIAS);
  float u = c - et_m[i];
  float p = et_c[0][i];
  for (int j = 1; j < ET_NC; j++)
    p = fmaf(p, u, et_c[j][i]);
  float r = fmaf(u, p, i == 0 ? a : et_k[i]);
  float y = copysignf(r, x);
  return x != x ? x : y;
}

/* the same on 8 lanes (n a multiple of 8): r >= +0 (1 exactly for a NaN,
   whose bits hold 0x3f800000) takes x's sign, or all of a NaN x, OR-ed in */
__attribute__((target("avx2,fma"))) static void erf_table8(const float *in, float *out, int64_t n) {
  const __m256 four = _mm256_set1_ps(4.0f), scale = _mm256_set1_ps(ET_SCALE), bias = _mm256_set1_ps(ET_BIAS);
  const __m256i zero = _mm256_setzero_si256(), inf = _mm256_set1_epi32(0x7f800000),
                sign = _mm256_set1_epi32((int)0x80000000u), absm = _mm256_set1_epi32(0x7fffffff);
  __m256 tm = _mm256_loadu_ps(et_m), tk = _mm256_loadu_ps(et_k), tc[ET_NC];
  for (int j = 0; j < ET_NC; j++) tc[j] = _mm256_loadu_ps(et_c[j]);
#pragma GCC unroll 2
  for (int64_t e = 0; e + 8 <= n; e += 8) {
    __m256i xb = _mm256_loadu_si256((const __m256i *)(in + e));
    __m256i ab = _mm256_and_si256(xb, absm);
    __m256 a = _mm256_castsi256_ps(ab);
    __m256 c = _mm256_min_ps(a, four); /* a NaN lane: 4 */
    __m256i i = _mm256_cvttps_epi32(_mm256_fmadd_ps(c, scale, bias));
    __m256 u = _mm256_sub_ps(c, _mm256_permutevar8x32_ps(tm, i));
    __m256 p = _mm256_permutevar8x32_ps(tc[0], i);
#pragma GCC unroll 16
    for (int j = 1; j < ET_NC; j++) p = _mm256_fmadd_ps(p, u, _mm256_permutevar8x32_ps(tc[j], i));
    __m256 z = _mm256_castsi256_ps(_mm256_cmpeq_epi32(i, zero));
    __m256 r = _mm256_fmadd_ps(u, p, _mm256_blendv_ps(_mm256_permutevar8x32_ps(tk, i), a, z));
    __m256i m = _mm256_or_si256(sign, _mm256_cmpgt_epi32(ab, inf));
    _mm256_storeu_ps(out + e, _mm256_or_ps(r, _mm256_castsi256_ps(_mm256_and_si256(xb, m))));
  }
}

/* leirc's host JIT: D = erf(A), f32, one thread (as bench/mathlib_bench) */
static double jit_rate(int64_t n, int reps, float *a, float *d) {
  char text[512];
  snprintf(text, sizeof text,
           "%%in A : f32[%lld]\n%%out D : f32[%lld]\nB^{%lld}_{tx=0}[D^{f32,g}_{tx}=erf(A^{f32,g}_{tx});];\n",
           (long long)n, (long long)n, (long long)n);
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = true;
  leir_ctx_set_source(&ctx, "mathlib_erf_table.leir", text, strlen(text));
  IrProgram *p = ps_parse(&ctx);
  double best = 0;
  if (p && ir_sema(&ctx, p, NULL)) {
    CgOptions o;
    cg_options_init(&o);
    o.target = CG_TARGET_HOST;
    o.nthreads = 1;
    CgHostProgram *hp = cg_host_compile(&ctx, p, &o);
    void *bufs[2] = {0};
    for (int i = 0; i < p->ntensors && i < 2; i++) bufs[i] = !strcmp(p->tensors[i]->name, "A") ? (void *)a : d;
    for (int i = 0; hp && i < reps; i++) {
      double t = now();
      if (!cg_host_run(hp, bufs)) break;
      t = now() - t;
      if (t > 0 && (best == 0 || t < best)) best = t;
    }
    if (hp) cg_host_free(hp);
  }
  leir_ctx_free(&ctx);
  return best > 0 ? (double)n / best : 0;
}

int main(int argc, char **argv) {
  uint64_t stride = 257;
  int64_t n = 65536;
  int reps = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--stride")) stride = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--n")) n = strtoll(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
  }
  if (stride < 1) stride = 1;
  n -= n % 8;
  if (n < 8) n = 8;
  if (reps < 1) reps = 1;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    printf("mathlib_erf_table: no AVX2/FMA on this CPU\n");
    return 77;
  }
  MlUlp s = {0};
  ml_ulp_check(&s, erf_table, leir_erf, erfl, ml_known_erf, 0, UINT64_C(1) << 32, stride);
  printf("table erf (%d coefficients): %llu inputs (every %llu-th), max %.6f ulp (at %a), %llu not correctly "
         "rounded, %llu unresolved, %llu NaN mismatches\n",
         ET_NC, (unsigned long long)s.n, (unsigned long long)stride, s.max_ulp, (double)s.at,
         (unsigned long long)s.wrong, (unsigned long long)s.unresolved, (unsigned long long)s.bad_nan);
  uint64_t differ = 0, differ_lib = 0;
  float xs[8], ys[8];
  for (uint64_t u = 0; u < (UINT64_C(1) << 32); u += 8 * stride) {
    for (int l = 0; l < 8; l++) {
      uint32_t b = (uint32_t)(u + (uint64_t)l * stride);
      memcpy(&xs[l], &b, 4);
    }
    erf_table8(xs, ys, 8);
    for (int l = 0; l < 8; l++) {
      float r = erf_table(xs[l]), q = leir_erff(xs[l]);
      differ += memcmp(&r, &ys[l], 4) != 0;
      differ_lib += memcmp(&r, &q, 4) != 0;
    }
  }
  printf("AVX2 vs scalar: %llu results differ; leir_erff vs scalar: %llu differ\n", (unsigned long long)differ,
         (unsigned long long)differ_lib);
  float *a = malloc((size_t)n * sizeof *a), *d = malloc((size_t)n * sizeof *d);
  if (!a || !d) return 2;
  uint64_t st = 1; /* xorshift64*, as mathlib_bench */
  for (int64_t j = 0; j < n; j++) {
    st ^= st >> 12;
    st ^= st << 25;
    st ^= st >> 27;
    a[j] = (float)((double)((st * 0x2545f4914f6cdd1dull) >> 11) * 0x1p-53 * 8.0 - 4.0);
  }
  double bt = 0, bc = 0;
  for (int r = 0; r < reps; r++) {
    double t = now();
    erf_table8(a, d, n);
    t = now() - t;
    if (t > 0 && (bt == 0 || t < bt)) bt = t;
    t = now();
    for (int64_t j = 0; j < n; j++) d[j] = leir_erff(a[j]);
    t = now() - t;
    if (t > 0 && (bc == 0 || t < bc)) bc = t;
  }
  double jit = jit_rate(n, reps, a, d);
  printf("Melem/s, one thread, %lld elements in [-4, 4], best of %d: table erf (AVX2) %.0f, leirc JIT erf %.0f, "
         "leir_erff C %.0f; table / JIT %.2f\n",
         (long long)n, reps, (double)n / bt / 1e6, jit / 1e6, (double)n / bc / 1e6, jit > 0 ? (double)n / bt / jit : 0);
  free(a);
  free(d);
  return differ || differ_lib ? 1 : 0;
}
