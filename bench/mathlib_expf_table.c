/* mathlib_expf_table.c -- the prototypes of the table-driven f32 exp
 * (issue 59: leirc's f32 exp only tied Sleef u10 on Zen 4, its AVX-512
 * loop at the FMA pipes' limit, 12 multiplications/FMAs of 23 operations a
 * vector), hand-written with intrinsics beside Sleef's u10 routines, to
 * choose the table size.  Since s26 leir_expf (ir/mathlib.c) is the N = 16
 * variant with its tables and the host JIT emits it (codegen/mathlib_emit.c
 * leir.expf.v8/v16).
 *
 * The variants, on x in [-80, 80] (no clamps, no NaN or overflow handling
 * but vfixupimmps's on AVX-512, as leir.expf.v16):
 * - old: the Cody-Waite routine before s26 (r + dr, |r| <= ln2/2, degree 7,
 *   1 + r + c2 summed in two parts);
 * - n16: t = fmaf(x, 1/ln2, 1.5 2^19), kf = t - 1.5 2^19 = m/16, j = m mod 16
 *   (t's low 4 bits: the vpermps index), r = x - kf ln2 in two fmaf,
 *   p = r + r^2 (c2 + c3 r), s = Thi[j] + fmaf(Thi[j], p, Tlo[j]), y = s 2^k;
 * - n8: the same with 8 entries (1.5 2^20), |r| <= ln2/16, p = r + r^2 (c2 +
 *   c3 r + c4 r^2) (bench/mathlib_expf_fit.py 8 3).
 * AVX-512: vpermps zmm from the 16-entry table (n8: written twice),
 * y = vscalefps(s, kf); AVX2 (the |x| <= 87 path of leir.expf.v8): n16 two
 * vpermps from the table's halves and a blend by bit 3, n8 one vpermps,
 * y = bits(s) + (k << 23).
 *
 *   mathlib_expf_table [--n N] [--reps R]       (defaults 16384, 200)
 *
 * Prints, for AVX-512F (when the CPU has it) and AVX2, Melem/s on one
 * thread of Sleef's expf16_u10/expf8_u10 (libsleef.so.3 at run time; "-"
 * without it) and of each variant with its ratio to Sleef, best of 15
 * passes of R sweeps over N elements (in L2) -- 3 rounds; and how many of
 * the n16 results differ from leir_expf's bits (must be 0).  Exits 0 when
 * they agree, 1 otherwise, 77 without AVX2 and FMA.
 * `make bench-expf-table`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/mathlib.h"

static const float old_p[6] = {0x1.a2477ep-13f, 0x1.6d3c86p-10f, 0x1.111002p-7f,
                               0x1.5554f6p-5f,  0x1.555556p-3f,  0x1p-1f};
/* bench/mathlib_expf_fit.py 8 3 */
static const float n8_p[3] = {0x1.555a74p-5f, 0x1.555cccp-3f, 0x1p-1f};
static const float n8_thi[16] = {0x1p+0f,        0x1.172b84p+0f, 0x1.306fep+0f,  0x1.4bfdaep+0f,
                                 0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f,
                                 0x1p+0f,        0x1.172b84p+0f, 0x1.306fep+0f,  0x1.4bfdaep+0f,
                                 0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};
static const float n8_tlo[16] = {0x0p+0f,          -0x1.c15742p-27f, 0x1.4636e2p-25f,  -0x1.593abcp-25f,
                                 0x1.9fcef4p-26f,  0x1.15506ep-27f,  -0x1.a94b14p-26f, -0x1.822dbcp-27f,
                                 0x0p+0f,          -0x1.c15742p-27f, 0x1.4636e2p-25f,  -0x1.593abcp-25f,
                                 0x1.9fcef4p-26f,  0x1.15506ep-27f,  -0x1.a94b14p-26f, -0x1.822dbcp-27f};
#define LN2H 0x1.62ep-1f /* leir_expf's EXPF_LN2H, EXPF_LN2L */
#define LN2L 0x1.0bfbe8p-15f

/* ---------------------------------------------------------------- AVX-512 */
#define T512 __attribute__((target("avx512f,fma"), always_inline)) static inline
#define S16(v) _mm512_set1_ps(v)

T512 __m512 fix16(__m512 x, __m512 s, __m512 kf) {
  __mmask16 ok = _mm512_cmplt_epu32_mask(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)),
                                         _mm512_set1_epi32(0x43800000));
  return _mm512_mask_scalef_ps(_mm512_fixupimm_ps(x, x, _mm512_set1_epi32(0x58580000), 0), ok, s, kf);
}
T512 __m512 old16(__m512 x) {
  __m512 sh = S16(0x1.8p23f), t = _mm512_fmadd_ps(x, S16(0x1.715476p+0f), sh), kf = _mm512_sub_ps(t, sh);
  __m512 rh = _mm512_fmadd_ps(kf, S16(-0x1.62e43p-1f), x);
  __m512 r = _mm512_fmadd_ps(kf, S16(0x1.05c61p-29f), rh);
  __m512 dr = _mm512_fmadd_ps(kf, S16(0x1.05c61p-29f), _mm512_sub_ps(rh, r));
  __m512 p = S16(old_p[0]);
  for (int i = 1; i < 6; i++)
    p = _mm512_fmadd_ps(p, r, S16(old_p[i]));
  __m512 c2 = _mm512_fmadd_ps(_mm512_mul_ps(r, r), p, _mm512_fmadd_ps(dr, r, dr));
  __m512 s1 = _mm512_add_ps(S16(1.0f), r), sl = _mm512_add_ps(_mm512_sub_ps(S16(1.0f), s1), r);
  return fix16(x, _mm512_add_ps(s1, _mm512_add_ps(sl, c2)), kf);
}
T512 __m512 tab16(__m512 x, float shift, const float *thi, const float *tlo, const float *q, int nq) {
  __m512 sh = S16(shift), t = _mm512_fmadd_ps(x, S16(LEIR_MF_INVLN2), sh), kf = _mm512_sub_ps(t, sh);
  __m512 r = _mm512_fmadd_ps(kf, S16(-LN2H), x);
  r = _mm512_fmadd_ps(kf, S16(-LN2L), r);
  __m512 qq = S16(q[0]);
  for (int i = 1; i < nq; i++)
    qq = _mm512_fmadd_ps(qq, r, S16(q[i]));
  __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), qq, r);
  __m512i j = _mm512_castps_si512(t);
  __m512 th = _mm512_permutexvar_ps(j, _mm512_loadu_ps(thi)), tl = _mm512_permutexvar_ps(j, _mm512_loadu_ps(tlo));
  return fix16(x, _mm512_add_ps(th, _mm512_fmadd_ps(th, p, tl)), kf);
}
T512 __m512 n16_16(__m512 x) {
  return tab16(x, LEIR_MF_EXPF_SHIFT, leir_mf_expf_thi, leir_mf_expf_tlo, leir_mf_expf_poly, LEIR_MF_EXPF_N);
}
T512 __m512 n8_16(__m512 x) { return tab16(x, 0x1.8p20f, n8_thi, n8_tlo, n8_p, 3); }

/* ------------------------------------------------------------------- AVX2 */
#define T256 __attribute__((target("avx2,fma"), always_inline)) static inline
#define S8(v) _mm256_set1_ps(v)

T256 __m256 old8(__m256 x) {
  __m256 sh = S8(0x1.8p23f), t = _mm256_fmadd_ps(x, S8(0x1.715476p+0f), sh), kf = _mm256_sub_ps(t, sh);
  __m256 rh = _mm256_fmadd_ps(kf, S8(-0x1.62e43p-1f), x);
  __m256 r = _mm256_fmadd_ps(kf, S8(0x1.05c61p-29f), rh);
  __m256 dr = _mm256_fmadd_ps(kf, S8(0x1.05c61p-29f), _mm256_sub_ps(rh, r));
  __m256 p = S8(old_p[0]);
  for (int i = 1; i < 6; i++)
    p = _mm256_fmadd_ps(p, r, S8(old_p[i]));
  __m256 c2 = _mm256_fmadd_ps(_mm256_mul_ps(r, r), p, _mm256_fmadd_ps(dr, r, dr));
  __m256 s1 = _mm256_add_ps(S8(1.0f), r), sl = _mm256_add_ps(_mm256_sub_ps(S8(1.0f), s1), r);
  __m256 s = _mm256_add_ps(s1, _mm256_add_ps(sl, c2));
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(s), _mm256_slli_epi32(_mm256_castps_si256(t), 23)));
}
T256 __m256 tab8(__m256 x, int n16) {
  __m256 sh = S8(n16 ? LEIR_MF_EXPF_SHIFT : 0x1.8p20f), t = _mm256_fmadd_ps(x, S8(LEIR_MF_INVLN2), sh);
  __m256 kf = _mm256_sub_ps(t, sh);
  __m256 r = _mm256_fmadd_ps(kf, S8(-LN2H), x);
  r = _mm256_fmadd_ps(kf, S8(-LN2L), r);
  __m256i j = _mm256_castps_si256(t);
  __m256 q, th, tl;
  if (n16) {
    q = _mm256_fmadd_ps(S8(leir_mf_expf_poly[0]), r, S8(leir_mf_expf_poly[1]));
    __m256 hi = _mm256_castsi256_ps(_mm256_slli_epi32(j, 28));
    th = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(leir_mf_expf_thi), j),
                          _mm256_permutevar8x32_ps(_mm256_loadu_ps(leir_mf_expf_thi + 8), j), hi);
    tl = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(leir_mf_expf_tlo), j),
                          _mm256_permutevar8x32_ps(_mm256_loadu_ps(leir_mf_expf_tlo + 8), j), hi);
  } else {
    q = _mm256_fmadd_ps(_mm256_fmadd_ps(S8(n8_p[0]), r, S8(n8_p[1])), r, S8(n8_p[2]));
    th = _mm256_permutevar8x32_ps(_mm256_loadu_ps(n8_thi), j);
    tl = _mm256_permutevar8x32_ps(_mm256_loadu_ps(n8_tlo), j);
  }
  __m256 p = _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, r);
  __m256 s = _mm256_add_ps(th, _mm256_fmadd_ps(th, p, tl));
  __m256i k23 = _mm256_slli_epi32(_mm256_srli_epi32(j, n16 ? 4 : 3), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(s), k23));
}
T256 __m256 n16_8(__m256 x) { return tab8(x, 1); }
T256 __m256 n8_8(__m256 x) { return tab8(x, 0); }

/* ------------------------------------------------------------------ timing */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  const float *in;
  float *out;
  int64_t n;
  int reps;
} Buf;

#define LOOP16(name, f)                                                                            \
  __attribute__((target("avx512f,fma"))) static void name(const Buf *b) {                          \
    for (int it = 0; it < b->reps; it++)                                                           \
      for (int64_t i = 0; i < b->n; i += 16)                                                       \
        _mm512_storeu_ps(b->out + i, f(_mm512_loadu_ps(b->in + i)));                               \
  }
#define LOOP8(name, f)                                                                             \
  __attribute__((target("avx2,fma"))) static void name(const Buf *b) {                             \
    for (int it = 0; it < b->reps; it++)                                                           \
      for (int64_t i = 0; i < b->n; i += 8)                                                        \
        _mm256_storeu_ps(b->out + i, f(_mm256_loadu_ps(b->in + i)));                               \
  }
LOOP16(run_old16, old16)
LOOP16(run_n16_16, n16_16)
LOOP16(run_n8_16, n8_16)
LOOP8(run_old8, old8)
LOOP8(run_n16_8, n16_8)
LOOP8(run_n8_8, n8_8)

typedef __m512 (*Sleef16)(__m512);
typedef __m256 (*Sleef8)(__m256);
static Sleef16 sleef16;
static Sleef8 sleef8;
__attribute__((target("avx512f,fma"))) static void run_sleef16(const Buf *b) {
  for (int it = 0; it < b->reps; it++)
    for (int64_t i = 0; i < b->n; i += 16)
      _mm512_storeu_ps(b->out + i, sleef16(_mm512_loadu_ps(b->in + i)));
}
__attribute__((target("avx2,fma"))) static void run_sleef8(const Buf *b) {
  for (int it = 0; it < b->reps; it++)
    for (int64_t i = 0; i < b->n; i += 8)
      _mm256_storeu_ps(b->out + i, sleef8(_mm256_loadu_ps(b->in + i)));
}

static double rate(void (*run)(const Buf *), const Buf *b) { /* Melem/s, best of 15 */
  double best = 1e30;
  for (int k = 0; k < 15; k++) {
    double t0 = now();
    run(b);
    double t = now() - t0;
    best = t < best ? t : best;
  }
  return (double)b->n * b->reps / best / 1e6;
}

static void row(const char *isa, void (*sl)(const Buf *), void (*o)(const Buf *), void (*a)(const Buf *),
                void (*c)(const Buf *), const Buf *b) {
  double s = sl ? rate(sl, b) : 0, ro = rate(o, b), r16 = rate(a, b), r8 = rate(c, b);
  if (s > 0)
    printf("| %s | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) |\n", isa, s, ro, ro / s, r16, r16 / s, r8, r8 / s);
  else
    printf("| %s | - | %.0f | %.0f | %.0f |\n", isa, ro, r16, r8);
}

int main(int argc, char **argv) {
  int64_t n = 16384;
  int reps = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--n")) n = strtoll(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
  }
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    printf("mathlib_expf_table: no AVX2/FMA\n");
    return 77;
  }
  n = n < 16 ? 16 : n - n % 16;
  float *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
  if (!in || !out)
    return 1;
  uint64_t st = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; i++) {
    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
    in[i] = (float)((double)(st >> 11) * 0x1p-53 * 160.0 - 80.0);
  }
  void *lib = dlopen("libsleef.so.3", RTLD_NOW);
  if (lib) {
    void *f16 = dlsym(lib, "Sleef_expf16_u10"), *f8 = dlsym(lib, "Sleef_expf8_u10avx2");
    if (!f8)
      f8 = dlsym(lib, "Sleef_expf8_u10");
    memcpy(&sleef16, &f16, sizeof f16);
    memcpy(&sleef8, &f8, sizeof f8);
  }
  bool avx512 = __builtin_cpu_supports("avx512f");
  Buf b = {in, out, n, reps}, one = {in, out, n, 1};
  /* the n16 variants against leir_expf (x in [-80, 80]: no clamp acts) */
  int bad = 0;
  void (*check[2])(const Buf *) = {run_n16_8, avx512 ? run_n16_16 : run_n16_8};
  for (int v = 0; v < 2; v++) {
    check[v](&one);
    for (int64_t i = 0; i < n; i++) {
      float r = leir_expf(in[i]);
      bad += memcmp(&r, &out[i], sizeof r) != 0;
    }
  }
  printf("f32 exp, one thread, %lld elements in [-80, 80], best of 15 x %d sweeps (Melem/s; ratio to Sleef u10)\n",
         (long long)n, reps);
  printf("| ISA | Sleef u10 | old (Cody-Waite) | n16 (leir_expf) | n8 |\n|---|---|---|---|---|\n");
  for (int round = 0; round < 3; round++) {
    if (avx512)
      row("AVX-512", sleef16 ? run_sleef16 : NULL, run_old16, run_n16_16, run_n8_16, &b);
    row("AVX2", sleef8 ? run_sleef8 : NULL, run_old8, run_n16_8, run_n8_8, &b);
  }
  printf("n16 results differing from leir_expf: %d of %lld\n", bad, (long long)(2 * n));
  free(in);
  free(out);
  return bad ? 1 : 0;
}
