/* mathlib_bench.c -- element throughput of leirc's math routines (issue 41,
 * item 3), one thread, against glibc's.
 *
 * For each routine (exp, log, tanh as LEIR writes it, erf, pow, x**3.0, x**0.5, sqrt)
 * in f32 and f64, on N elements drawn once from a range where the routine
 * is interesting (below), best of REPS runs, elements per second of:
 *
 *   JIT    the host JIT's code for `D[i] = f(A[i])` (`B^{N}` loop, one
 *          thread): codegen/mathlib_emit.c's routine inlined into the loop,
 *          which LLVM vectorises;
 *   C      the same routine in C (ir/mathlib.c: what the interpreter calls),
 *          in a plain loop;
 *   glibc  expf/exp, logf/log, tanhf/tanh, erff/erf, powf/pow (also for
 *          x**3.0 and x**0.5), sqrtf/sqrt
 *          (libm, scalar calls: no -ffast-math, so no libmvec);
 *   Sleef  Sleef's u10 vector routines (u05 for sqrt), the widest the CPU has
 *          (expf16_u10 with AVX-512F, else expf8_u10; expd8/expd4 for f64),
 *          from libsleef.so.3 loaded at run time (Debian's libsleef3; the
 *          column says "-" without it); tanh is Sleef's tanh;
 *   torch  PyTorch's own throughput for the same operation on one thread
 *          (torch.exp, torch.log, torch.tanh, torch.erf, torch.pow,
 *          torch.sqrt with out=), read from the file --torch names, which
 *          bench/mathlib_torch.py writes (best of several processes; same
 *          ranges and element count, its own random inputs).
 *
 * The ratio columns are JIT / glibc, JIT / Sleef and JIT / torch (> 1:
 * leirc is faster).  Sleef's u10 routines are within 1 ulp, PyTorch's about
 * as close (torch.erf: 1.095 ulp at a subnormal result, `make
 * mathlib-torch-erf`); leirc's f32 routines within 0.76 ulp (exp 0.76, erf
 * 0.67; log and pow about 0.5), but x**3, which is x*(x*x) as PyTorch's
 * (1.29 ulp; leirc(1), MATH ROUTINES).
 *
 * The JIT's and C's results are the same bits (mathlib_emit_test and
 * codegen_test check it); glibc's are not (another algorithm).  tanh is
 * (exp(x)-exp(-x))/(exp(x)+exp(-x)) for leirc (LEIR has no tanh; the corpus
 * writes it so) and tanhf/tanh for glibc.
 *
 *   mathlib_bench [--n N] [--reps R] [--torch FILE] [--avx2]   (defaults 65536, 20)
 *
 * --avx2: the code of an AVX2 CPU on this one (issue 59: Zen 3's code paths
 * measured on an AVX-512 machine): the JIT's for znver3 (LEIRC_HOST_CPU,
 * set here unless set already) and Sleef's 8-lane f32 (4-lane f64)
 * routines; `make bench-mathlib MATHLIB_BENCH_ARGS=--avx2` has PyTorch run
 * its AVX2 kernels too (mathlib_torch.py --avx2).
 *
 * Prints a Markdown table and exits 0.  Run by `make bench-mathlib` on one
 * CPU (taskset -c 0), after bench/mathlib_torch.py.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dlfcn.h>
#include <immintrin.h>

#include "codegen/codegen.h"
#include "ir/buffer.h"
#include "ir/mathlib.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef enum { R_EXP, R_LOG, R_TANH, R_ERF, R_POW, R_POW3, R_POWH, R_SQRT, R_N } Routine;
static const char *const rname[R_N] = {"exp", "log", "tanh", "erf", "pow", "x**3", "x**0.5", "sqrt"};
/* the inputs: A uniform in [lo, hi], Y (pow's exponent) in [-3, 3] */
static const double rlo[R_N] = {-20, 1e-3, -5, -4, 0.1, -10, 0, 0};
static const double rhi[R_N] = {20, 1e3, 5, 4, 10, 10, 1e4, 1e4};

/* the statement's right side, %s = the dtype */
static void rhs(char *out, size_t n, Routine r, const char *dt) {
  char a[64], y[64];
  snprintf(a, sizeof a, "A^{%s,g}_{tx}", dt);
  snprintf(y, sizeof y, "Y^{%s,g}_{tx}", dt);
  switch (r) {
  case R_EXP: snprintf(out, n, "exp(%s)", a); break;
  case R_LOG: snprintf(out, n, "log(%s)", a); break;
  case R_TANH: snprintf(out, n, "(exp(%s)-exp(-%s))/(exp(%s)+exp(-%s))", a, a, a, a); break;
  case R_ERF: snprintf(out, n, "erf(%s)", a); break;
  case R_POW: snprintf(out, n, "%s**%s", a, y); break;
  case R_POW3: snprintf(out, n, "%s**3.0", a); break;
  case R_POWH: snprintf(out, n, "%s**0.5", a); break;
  default: snprintf(out, n, "sqrt(%s)", a); break;
  }
}

/* one pseudo-random stream (xorshift64*), fixed seed: the same inputs every run */
static double uniform(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 0x2545f4914f6cdd1dull) >> 11) * 0x1p-53;
}

static double jit_rate(Routine r, bool f64, int64_t n, int reps, void *a, void *y, void *d) {
  const char *dt = f64 ? "f64" : "f32";
  char body[512], text[1024];
  rhs(body, sizeof body, r, dt);
  char ydecl[64] = "";
  if (r == R_POW) snprintf(ydecl, sizeof ydecl, "%%in Y : %s[%lld]\n", dt, (long long)n);
  snprintf(text, sizeof text, "%%in A : %s[%lld]\n%s%%out D : %s[%lld]\nB^{%lld}_{tx=0}[D^{%s,g}_{tx}=%s;];\n", dt,
           (long long)n, ydecl, dt, (long long)n, (long long)n, dt, body);
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = true;
  leir_ctx_set_source(&ctx, "mathlib_bench.leir", text, strlen(text));
  IrProgram *p = ps_parse(&ctx);
  double best = 0;
  if (p && ir_sema(&ctx, p, NULL)) {
    CgOptions o;
    cg_options_init(&o);
    o.target = CG_TARGET_HOST;
    o.nthreads = 1;
    CgHostProgram *hp = cg_host_compile(&ctx, p, &o);
    void *bufs[8] = {0};
    for (int i = 0; i < p->ntensors && i < 7; i++)
      bufs[i] = !strcmp(p->tensors[i]->name, "A") ? a : !strcmp(p->tensors[i]->name, "Y") ? y : d;
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

/* leirc's tanh form from its C routines */
static float ltanhf(float x) {
  float e = leir_expf(x), m = leir_expf(-x);
  return (e - m) / (e + m);
}
static double ltanh(double x) {
  double e = leir_exp(x), m = leir_exp(-x);
  return (e - m) / (e + m);
}

/* ------------------------------------------------------------ Sleef */

/* Sleef's routine names for each of ours: f32, f64 ("%d" = the lane count) */
static const char *const sleef_name[R_N][2] = {
    {"Sleef_expf%d_u10", "Sleef_expd%d_u10"},   {"Sleef_logf%d_u10", "Sleef_logd%d_u10"},
    {"Sleef_tanhf%d_u10", "Sleef_tanhd%d_u10"}, {"Sleef_erff%d_u10", "Sleef_erfd%d_u10"},
    {"Sleef_powf%d_u10", "Sleef_powd%d_u10"},   {"Sleef_powf%d_u10", "Sleef_powd%d_u10"},
    {"Sleef_powf%d_u10", "Sleef_powd%d_u10"},
    {"Sleef_sqrtf%d_u05", "Sleef_sqrtd%d_u05"},
};

typedef __m256 (*SleefF8)(__m256);
typedef __m256 (*SleefF8b)(__m256, __m256);
typedef __m256d (*SleefD4)(__m256d);
typedef __m256d (*SleefD4b)(__m256d, __m256d);
typedef __m512 (*SleefF16)(__m512);
typedef __m512 (*SleefF16b)(__m512, __m512);
typedef __m512d (*SleefD8)(__m512d);
typedef __m512d (*SleefD8b)(__m512d, __m512d);

#define SLEEF_LOOP(W, STORE, CALL)                                                                                \
  for (int rep = 0; rep < reps; rep++) {                                                                               \
    double t = now();                                                                                                  \
    for (int64_t i = 0; i + (W) <= n; i += (W)) STORE(o + i, CALL);                                                    \
    t = now() - t;                                                                                                     \
    if (t > 0 && (best == 0 || t < best)) best = t;                                                                    \
  }

__attribute__((target("avx2,fma"))) static double sleef_rate256(void *fn, Routine r, bool f64, int64_t n, int reps,
                                                                const void *a, const void *y, void *d) {
  double best = 0;
  bool bin = r == R_POW || r == R_POW3 || r == R_POWH;
  if (f64) {
    const double *x = a, *w = y;
    double *o = d;
    __m256d three = _mm256_set1_pd(r == R_POW3 ? 3.0 : 0.5); /* x**3 or x**0.5 */
    if (bin) SLEEF_LOOP(4, _mm256_storeu_pd, ((SleefD4b)fn)(_mm256_loadu_pd(x + i), r == R_POW ? _mm256_loadu_pd(w + i) : three))
    else SLEEF_LOOP(4, _mm256_storeu_pd, ((SleefD4)fn)(_mm256_loadu_pd(x + i)))
  } else {
    const float *x = a, *w = y;
    float *o = d;
    __m256 three = _mm256_set1_ps(r == R_POW3 ? 3.0f : 0.5f); /* x**3 or x**0.5 */
    if (bin) SLEEF_LOOP(8, _mm256_storeu_ps, ((SleefF8b)fn)(_mm256_loadu_ps(x + i), r == R_POW ? _mm256_loadu_ps(w + i) : three))
    else SLEEF_LOOP(8, _mm256_storeu_ps, ((SleefF8)fn)(_mm256_loadu_ps(x + i)))
  }
  return best > 0 ? (double)(n - n % (f64 ? 4 : 8)) / best : 0;
}

__attribute__((target("avx512f"))) static double sleef_rate512(void *fn, Routine r, bool f64, int64_t n, int reps,
                                                              const void *a, const void *y, void *d) {
  double best = 0;
  bool bin = r == R_POW || r == R_POW3 || r == R_POWH;
  if (f64) {
    const double *x = a, *w = y;
    double *o = d;
    __m512d three = _mm512_set1_pd(r == R_POW3 ? 3.0 : 0.5); /* x**3 or x**0.5 */
    if (bin) SLEEF_LOOP(8, _mm512_storeu_pd, ((SleefD8b)fn)(_mm512_loadu_pd(x + i), r == R_POW ? _mm512_loadu_pd(w + i) : three))
    else SLEEF_LOOP(8, _mm512_storeu_pd, ((SleefD8)fn)(_mm512_loadu_pd(x + i)))
  } else {
    const float *x = a, *w = y;
    float *o = d;
    __m512 three = _mm512_set1_ps(r == R_POW3 ? 3.0f : 0.5f); /* x**3 or x**0.5 */
    if (bin) SLEEF_LOOP(16, _mm512_storeu_ps, ((SleefF16b)fn)(_mm512_loadu_ps(x + i), r == R_POW ? _mm512_loadu_ps(w + i) : three))
    else SLEEF_LOOP(16, _mm512_storeu_ps, ((SleefF16)fn)(_mm512_loadu_ps(x + i)))
  }
  return best > 0 ? (double)(n - n % (f64 ? 8 : 16)) / best : 0;
}

/* Sleef's rate for routine r, 0 when libsleef or the routine is missing */
static double sleef_rate(void *lib, bool avx2, Routine r, bool f64, int64_t n, int reps, const void *a, const void *y,
                         void *d) {
  if (!lib) return 0;
  __builtin_cpu_init();
  bool wide = !avx2 && __builtin_cpu_supports("avx512f");
  if (!wide && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
  char name[64];
  snprintf(name, sizeof name, sleef_name[r][f64], wide ? (f64 ? 8 : 16) : (f64 ? 4 : 8));
  void *fn = dlsym(lib, name);
  if (!fn) return 0;
  return wide ? sleef_rate512(fn, r, f64, n, reps, a, y, d) : sleef_rate256(fn, r, f64, n, reps, a, y, d);
}

/* PyTorch's rate for routine r from bench/mathlib_torch.py's file (lines
   "ROUTINE DTYPE ELEM_PER_S"), 0 when absent */
static double torch_rate(const char *file, Routine r, bool f64) {
  FILE *f = file ? fopen(file, "r") : NULL;
  char nm[32], dt[8];
  double v, rate = 0;
  while (f && fscanf(f, "%31s %7s %lf", nm, dt, &v) == 3)
    if (!strcmp(nm, rname[r]) && !strcmp(dt, f64 ? "f64" : "f32")) rate = v;
  if (f) fclose(f);
  return rate;
}

static void put_rate(double v) {
  if (v > 0) printf(" %.0f |", v / 1e6);
  else printf(" - |");
}

static void put_ratio(double a, double b) {
  if (a > 0 && b > 0) printf(" %.2f |", a / b);
  else printf(" - |");
}

#define LOOP(EXPR)                                                                                                     \
  for (int rep = 0; rep < reps; rep++) {                                                                               \
    double t = now();                                                                                                  \
    for (int64_t i = 0; i < n; i++) EXPR;                                                                              \
    t = now() - t;                                                                                                     \
    if (t > 0 && (best == 0 || t < best)) best = t;                                                                    \
  }

static double c_rate(Routine r, bool f64, bool glibc, int64_t n, int reps, const void *a, const void *y, void *d) {
  double best = 0;
  if (f64) {
    const double *x = a, *w = y;
    volatile double *o = d; /* the calls stay calls, one per element */
    switch (r) {
    case R_EXP: LOOP(o[i] = glibc ? exp(x[i]) : leir_exp(x[i])) break;
    case R_LOG: LOOP(o[i] = glibc ? log(x[i]) : leir_log(x[i])) break;
    case R_TANH: LOOP(o[i] = glibc ? tanh(x[i]) : ltanh(x[i])) break;
    case R_ERF: LOOP(o[i] = glibc ? erf(x[i]) : leir_erf(x[i])) break;
    case R_POW: LOOP(o[i] = glibc ? pow(x[i], w[i]) : leir_pow(x[i], w[i])) break;
    case R_POW3: LOOP(o[i] = glibc ? pow(x[i], 3.0) : leir_pow(x[i], 3.0)) break;
    case R_POWH: LOOP(o[i] = glibc ? pow(x[i], 0.5) : leir_pow(x[i], 0.5)) break;
    default: LOOP(o[i] = sqrt(x[i])) break;
    }
  } else {
    const float *x = a, *w = y;
    volatile float *o = d;
    switch (r) {
    case R_EXP: LOOP(o[i] = glibc ? expf(x[i]) : leir_expf(x[i])) break;
    case R_LOG: LOOP(o[i] = glibc ? logf(x[i]) : leir_logf(x[i])) break;
    case R_TANH: LOOP(o[i] = glibc ? tanhf(x[i]) : ltanhf(x[i])) break;
    case R_ERF: LOOP(o[i] = glibc ? erff(x[i]) : leir_erff(x[i])) break;
    case R_POW: LOOP(o[i] = glibc ? powf(x[i], w[i]) : leir_powf(x[i], w[i])) break;
    case R_POW3: LOOP(o[i] = glibc ? powf(x[i], 3.0f) : leir_powf(x[i], 3.0f)) break;
    case R_POWH: LOOP(o[i] = glibc ? powf(x[i], 0.5f) : leir_powf(x[i], 0.5f)) break;
    default: LOOP(o[i] = sqrtf(x[i])) break;
    }
  }
  return best > 0 ? (double)n / best : 0;
}

int main(int argc, char **argv) {
  int64_t n = 65536;
  int reps = 20;
  const char *torch = NULL;
  bool avx2 = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--avx2")) avx2 = true;
    else if (i + 1 >= argc) break;
    else if (!strcmp(argv[i], "--n")) n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--torch")) torch = argv[++i];
  }
  void *sleef = dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
  if (n < 1) n = 1;
  if (reps < 1) reps = 1;
  /* 64-byte aligned (ir/buffer.h), as leirc's own buffers */
  double *a = ir_buffer_alloc((size_t)n * 8), *y = ir_buffer_alloc((size_t)n * 8), *d = ir_buffer_alloc((size_t)n * 8);
  if (!a || !y || !d) return 1;
  if (avx2) setenv("LEIRC_HOST_CPU", "znver3", 0); /* the JIT's code for an AVX2 CPU */
  printf("element throughput, one thread, %lld elements, best of %d (Melem/s; ratios JIT / other)\n", (long long)n,
         reps);
  if (avx2) printf("AVX2 code (--avx2): the JIT's for LEIRC_HOST_CPU=%s, Sleef's 8-lane f32 and 4-lane f64\n",
                   getenv("LEIRC_HOST_CPU"));
  printf("| routine | dtype | leirc JIT | leirc C (interpreter's) | glibc | Sleef u10 | torch | JIT / glibc | JIT / Sleef "
         "| JIT / torch |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (int f64 = 0; f64 < 2; f64++)
    for (int r = 0; r < R_N; r++) {
      uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)r;
      for (int64_t i = 0; i < n; i++) {
        double u = rlo[r] + (rhi[r] - rlo[r]) * uniform(&s), v = -3 + 6 * uniform(&s);
        if (f64) {
          a[i] = u;
          y[i] = v;
        } else {
          ((float *)a)[i] = (float)u;
          ((float *)y)[i] = (float)v;
        }
      }
      double j = jit_rate((Routine)r, f64, n, reps, a, y, d);
      double c = c_rate((Routine)r, f64, false, n, reps, a, y, d);
      double g = c_rate((Routine)r, f64, true, n, reps, a, y, d);
      double sl = sleef_rate(sleef, avx2, (Routine)r, f64, n, reps, a, y, d);
      double to = torch_rate(torch, (Routine)r, f64);
      printf("| %s | %s |", rname[r], f64 ? "f64" : "f32");
      put_rate(j), put_rate(c), put_rate(g), put_rate(sl), put_rate(to);
      put_ratio(j, g), put_ratio(j, sl), put_ratio(j, to);
      printf("\n");
    }
  if (sleef) dlclose(sleef);
  ir_buffer_free(a);
  ir_buffer_free(y);
  ir_buffer_free(d);
  return 0;
}
