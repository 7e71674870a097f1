/* sgemm_bench.c -- host SGEMM 1024^3 as written in LEIR (examples/sgemm1024.leir),
 * JIT-compiled by leirc's host back end, against OpenBLAS's cblas_sgemm in
 * the same run: GFLOP/s of both and their ratio.
 *
 *   sgemm_bench PROGRAM.leir [OPTIMISED.leir ...]
 *
 * Every program must compute D[1024,1024] = A[1024,1024] @ C[1024,1024]
 * (inputs A and C, output D); further programs (e.g. written by
 * `leirc -O ... --emit=leir`) are timed too and checked bit for bit against
 * the first one's output when their passes preserve it.
 *
 * OpenBLAS is opened at run time (dlopen), so the build does not need it;
 * bench/sgemm.sh installs it and chooses the kernel (OPENBLAS_CORETYPE).
 * The kernel that ran is printed (openblas_get_corename).  Exit 77 when the
 * program cannot be found.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "ir/readfile.h"

#define N 1024
#define REPS 3

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct Run {
  double best_s;    /* fastest of REPS runs */
  double compile_s; /* parse + sema + LLVM + JIT */
  float *d;
} Run;

/* Compiles `path` and runs it REPS times on a, c.  False on failure. */
static bool run_leir(const char *path, const float *a, const float *c, Run *out) {
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  size_t len = 0;
  char *text = leir_read_file(path, &len);
  if (!text) {
    fprintf(stderr, "sgemm_bench: cannot read %s\n", path);
    leir_ctx_free(&ctx);
    return false;
  }
  double t0 = now();
  leir_ctx_set_source(&ctx, path, text, len);
  free(text);
  IrProgram *p = ps_parse(&ctx);
  if (!p || !ir_sema(&ctx, p, NULL)) {
    leir_ctx_free(&ctx);
    return false;
  }
  IrTensor *ta = ir_find_tensor(p, "A"), *tc = ir_find_tensor(p, "C"), *td = ir_find_tensor(p, "D");
  if (!ta || !tc || !td || ir_tensor_numel(ta) != N * N || ir_tensor_numel(td) != N * N) {
    fprintf(stderr, "sgemm_bench: %s is not a 1024^3 SGEMM over A, C -> D\n", path);
    leir_ctx_free(&ctx);
    return false;
  }
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  o.opt_level = 3;
  CgHostProgram *hp = cg_host_compile(&ctx, p, &o);
  out->compile_s = now() - t0;
  if (!hp) {
    leir_ctx_free(&ctx);
    return false;
  }
  void **bufs = calloc((size_t)p->ntensors, sizeof *bufs);
  out->d = malloc(sizeof(float) * N * N);
  bufs[ta->id] = (void *)a;
  bufs[tc->id] = (void *)c;
  bufs[td->id] = out->d;
  out->best_s = INFINITY;
  bool ok = true;
  /* REPS runs, or one when a run takes more than 2 s */
  for (int r = 0; r < REPS && ok && (r == 0 || out->best_s < 2.0); r++) {
    memset(out->d, 0, sizeof(float) * N * N);
    double t = now();
    ok = cg_host_run(hp, bufs);
    t = now() - t;
    if (t < out->best_s) out->best_s = t;
  }
  free(bufs);
  cg_host_free(hp);
  leir_ctx_free(&ctx);
  return ok;
}

/* ------------------------------------------------------------ OpenBLAS */

typedef void (*SgemmFn)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                        const float *b, int ldb, float beta, float *c, int ldc);
typedef char *(*StrFn)(void);
typedef int (*IntFn)(void);

static void *open_openblas(void) {
  const char *names[] = {"libopenblas.so.0", "libopenblas.so", "libopenblasp.so.0",
                         "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
  }
  return NULL;
}

static bool run_blas(const float *a, const float *c, float *d, double *best, char *core, size_t ncore,
                     int *threads) {
  void *h = open_openblas();
  if (!h) return false;
  SgemmFn sgemm = (SgemmFn)(uintptr_t)dlsym(h, "cblas_sgemm");
  StrFn corename = (StrFn)(uintptr_t)dlsym(h, "openblas_get_corename");
  StrFn config = (StrFn)(uintptr_t)dlsym(h, "openblas_get_config");
  IntFn nthreads = (IntFn)(uintptr_t)dlsym(h, "openblas_get_num_threads");
  if (!sgemm) return false;
  snprintf(core, ncore, "%s (%s)", corename ? corename() : "?", config ? config() : "?");
  *threads = nthreads ? nthreads() : 0;
  *best = INFINITY;
  for (int r = 0; r < REPS + 1; r++) { /* the first run warms up */
    double t = now();
    sgemm(101 /* row major */, 111, 111, N, N, N, 1.0f, a, N, c, N, 0.0f, d, N);
    t = now() - t;
    if (r && t < *best) *best = t;
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sgemm_bench PROGRAM.leir [OPTIMISED.leir ...]\n");
    return 2;
  }
  if (access(argv[1], R_OK)) {
    fprintf(stderr, "sgemm_bench: no %s\n", argv[1]);
    return 77;
  }
  float *a = malloc(sizeof(float) * N * N), *c = malloc(sizeof(float) * N * N);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < N * N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (float)((s >> 40) & 0xffff) / 65536.0f - 0.5f;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    c[i] = (float)((s >> 40) & 0xffff) / 65536.0f - 0.5f;
  }
  const double flop = 2.0 * N * N * (double)N;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  printf("host SGEMM %dx%dx%d, best of %d runs, %ld CPUs\n", N, N, N, REPS, cpus);
  Run first = {0};
  double leir_gflops[64] = {0};
  if (argc > 64) argc = 64;
  for (int i = 1; i < argc; i++) {
    Run r = {0};
    if (!run_leir(argv[i], a, c, &r)) return 1;
    double g = flop / r.best_s * 1e-9;
    const char *same = "";
    leir_gflops[i] = g;
    if (i == 1) {
      first = r;
    } else {
      same = memcmp(r.d, first.d, sizeof(float) * N * N) ? "  (output differs from the first)"
                                                         : "  (output bit-identical to the first)";
      free(r.d);
    }
    printf("leirc host JIT  %-40s %8.2f GFLOP/s  (%.3f s; compile %.3f s)%s\n", argv[i], g, r.best_s,
           r.compile_s, same);
  }
  float *d = malloc(sizeof(float) * N * N);
  double tb = 0;
  char core[512];
  int threads = 0;
  if (run_blas(a, c, d, &tb, core, sizeof core, &threads)) {
    double g = flop / tb * 1e-9;
    double maxdiff = 0, maxabs = 0; /* normwise: max |leirc - blas| / max |blas| */
    for (int i = 0; i < N * N; i++) {
      double e = fabs((double)d[i] - (double)first.d[i]);
      if (e > maxdiff) maxdiff = e;
      if (fabs((double)d[i]) > maxabs) maxabs = fabs((double)d[i]);
    }
    printf("OpenBLAS sgemm  kernel %s, %d threads, OPENBLAS_CORETYPE=%s\n", core, threads,
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "(unset)");
    printf("OpenBLAS sgemm  %-40s %8.2f GFLOP/s  (%.3f s)\n", "cblas_sgemm", g, tb);
    for (int i = 1; i < argc; i++)
      printf("ratio leirc/OpenBLAS %.4f  %s\n", leir_gflops[i] / g, argv[i]);
    printf("max |D(leirc) - D(OpenBLAS)| / max |D(OpenBLAS)| = %.2e\n", maxdiff / (maxabs > 0 ? maxabs : 1));
  } else {
    printf("OpenBLAS sgemm  not found (install libopenblas-dev; bench/sgemm.sh does)\n");
  }
  free(d);
  free(first.d);
  free(a);
  free(c);
  return 0;
}
