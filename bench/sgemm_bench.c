/* sgemm_bench.c -- host SGEMM 1024^3 as written in LEIR (examples/sgemm1024.leir),
 * JIT-compiled by leirc's host back end, against OpenBLAS's cblas_sgemm in
 * the same run: GFLOP/s of both, their ratio, and each as a fraction of a
 * nominal peak of the machine.
 *
 *   sgemm_bench [--threads=N] PROGRAM.leir [OPTIMISED.leir ...]
 *
 * Each program runs twice: as leirc compiles it by default (no FMA), and
 * with --fp-contract=on (a*b+c as one fma).  N threads for leirc's JIT and
 * OpenBLAS (default: the CPUs this process may run on, so `taskset -c 0`
 * means one).  The machine lines say the CPU (/proc/cpuinfo), the LLVM host
 * CPU and the vector width its features allow (f32 lanes L: 16 with
 * avx512f, 8 with avx2/avx, else 4), the clock (/proc/cpuinfo's "cpu MHz",
 * and the one measured with a chain of dependent integer adds, one a cycle,
 * on x86-64), and the peaks used: N x f x (flops a cycle a core), with f
 * the measured clock (else cpuinfo's) and the flops a cycle
 *   no FMA  L x 2      two vector pipes, a multiply or an add each
 *   FMA     L x 2 x 2  two FMA pipes, 2 flops each
 * except on AMD Zen 4 (LLVM host cpu znver4), which runs a 512-bit
 * operation as two 256-bit halves on 256-bit pipes, two FMA/multiply and
 * two add pipes: no FMA 2 x 8 + 2 x 8 = 32, FMA 2 x 8 x 2 = 32.  Other
 * cores with more or fewer pipes differ; the lines give every factor.
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
#include <dlfcn.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
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

/* Compiles `path` (with fp_contract, on nthreads threads) and runs it REPS
 * times on a, c.  False on failure. */
static bool run_leir(const char *path, bool fp_contract, int nthreads, const float *a, const float *c, Run *out) {
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.fp_contract = fp_contract;
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
  o.nthreads = nthreads;
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
typedef void (*SetFn)(int);

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
  /* *threads in: the threads wanted; out: what OpenBLAS says it uses */
  void *h = open_openblas();
  if (!h) return false;
  SgemmFn sgemm = (SgemmFn)(uintptr_t)dlsym(h, "cblas_sgemm");
  StrFn corename = (StrFn)(uintptr_t)dlsym(h, "openblas_get_corename");
  StrFn config = (StrFn)(uintptr_t)dlsym(h, "openblas_get_config");
  IntFn nthreads = (IntFn)(uintptr_t)dlsym(h, "openblas_get_num_threads");
  SetFn set_threads = (SetFn)(uintptr_t)dlsym(h, "openblas_set_num_threads");
  if (!sgemm) return false;
  if (set_threads && *threads > 0) set_threads(*threads);
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

/* ------------------------------------------------------------ the machine */

/* The value of the first "KEY : value" line of /proc/cpuinfo into out. */
static void cpuinfo(const char *key, char *out, size_t n) {
  snprintf(out, n, "?");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[4096];
  size_t k = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, k) && (line[k] == ' ' || line[k] == '\t' || line[k] == ':')) {
      char *v = strchr(line, ':');
      if (!v) break;
      for (v++; *v == ' '; v++) {
      }
      v[strcspn(v, "\n")] = '\0';
      snprintf(out, n, "%s", v);
      break;
    }
  fclose(f);
}

/* The core clock in GHz: a chain of dependent integer adds (one a cycle on
 * every x86-64 core of the last decade), the fastest of 400 short runs
 * (about 0.3 ms each, so that most run without being preempted on a loaded
 * machine); 0 elsewhere. */
static double measure_ghz(void) {
#if defined(__x86_64__)
  double best = 0;
  for (int r = 0; r < 400; r++) {
    const long iters = 100 * 1000; /* 10 adds each */
    long x = 0;
    double t = now();
    __asm__ volatile("mov %1, %%rcx\n"
                     "1:\n"
                     ".rept 10\n"
                     "add $1, %0\n"
                     ".endr\n"
                     "dec %%rcx\n"
                     "jnz 1b\n"
                     : "+r"(x)
                     : "r"(iters)
                     : "rcx", "cc");
    t = now() - t;
    double ghz = 10.0 * (double)iters / t * 1e-9;
    if (ghz > best) best = ghz;
  }
  return best;
#else
  return 0;
#endif
}

static bool has_feature(const char *feats, const char *f) {
  size_t k = strlen(f);
  for (const char *p = strstr(feats, f); p; p = strstr(p + 1, f))
    if ((p == feats || p[-1] == ',') && (p[k] == ',' || p[k] == '\0')) return true;
  return false;
}

int main(int argc, char **argv) {
  int threads = cg_host_cpus(); /* as the JIT counts them */
  if (argc > 1 && !strncmp(argv[1], "--threads=", 10)) {
    threads = atoi(argv[1] + 10);
    argv++, argc--;
  }
  if (argc < 2 || threads < 1) {
    fprintf(stderr, "usage: sgemm_bench [--threads=N] PROGRAM.leir [OPTIMISED.leir ...]\n");
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
  char model[256], mhz[64];
  cpuinfo("model name", model, sizeof model);
  cpuinfo("cpu MHz", mhz, sizeof mhz);
  char *hcpu = LLVMGetHostCPUName(), *feats = LLVMGetHostCPUFeatures();
  int lanes = has_feature(feats, "+avx512f")                                     ? 16
              : has_feature(feats, "+avx2") || has_feature(feats, "+avx") ? 8
                                                                           : 4;
  printf("host SGEMM %dx%dx%d, best of %d runs\n", N, N, N, REPS);
  printf("cpu      %s; %ld CPUs online, %d threads used (leirc's JIT and OpenBLAS)\n", model, cpus, threads);
  printf("vectors  LLVM host cpu %s: avx512f %s, avx2 %s, fma %s -> %d-bit, %d f32 lanes\n", hcpu,
         has_feature(feats, "+avx512f") ? "yes" : "no", has_feature(feats, "+avx2") ? "yes" : "no",
         has_feature(feats, "+fma") ? "yes" : "no", lanes * 32, lanes);
  /* flops a cycle a core, without and with FMA (see the top) */
  bool zen4 = lanes == 16 && !strcmp(hcpu, "znver4");
  double fpc = zen4 ? 32 : 2.0 * lanes, fpc_fma = zen4 ? 32 : 4.0 * lanes;
  char rule[160];
  if (zen4)
    snprintf(rule, sizeof rule, "znver4, 512-bit as 2 x 256: no FMA (2 mul + 2 add pipes) x 8 lanes = 32, FMA 2 pipes "
                                "x 8 x 2 = 32 flops/cycle");
  else
    snprintf(rule, sizeof rule, "no FMA 2 pipes x %d lanes = %.0f, FMA 2 pipes x %d x 2 = %.0f flops/cycle", lanes,
             fpc, lanes, fpc_fma);
  LLVMDisposeMessage(hcpu);
  LLVMDisposeMessage(feats);
  Run first = {0};
  double leir_gflops[2][64] = {{0}}, leir_s[2][64] = {{0}};
  if (argc > 64) argc = 64;
  for (int i = 1; i < argc; i++)
    for (int fc = 0; fc < 2; fc++) {
      Run r = {0};
      if (!run_leir(argv[i], fc, threads, a, c, &r)) return 1;
      leir_gflops[fc][i] = flop / r.best_s * 1e-9;
      leir_s[fc][i] = r.best_s;
      const char *same = "";
      if (i == 1 && !fc) {
        first = r;
      } else {
        same = memcmp(r.d, first.d, sizeof(float) * N * N) ? "  output differs from the first"
                                                           : "  output bit-identical to the first";
        free(r.d);
      }
      printf("leirc    %s --fp-contract=%s: %.3f s, compile %.3f s%s\n", argv[i], fc ? "on " : "off", r.best_s,
             r.compile_s, same);
    }
  float *d = malloc(sizeof(float) * N * N);
  double tb = 0;
  char core[512];
  int blas_threads = threads;
  bool blas = run_blas(a, c, d, &tb, core, sizeof core, &blas_threads);
  double ghz = measure_ghz(), f = ghz > 0 ? ghz : atof(mhz) * 1e-3;
  double peak = threads * f * fpc, peak_fma = threads * f * fpc_fma;
  printf("clock    /proc/cpuinfo %s MHz; measured %.2f GHz (dependent adds, after the runs)\n", mhz, ghz);
  printf("peak     threads x GHz x flops/cycle (%s):\n", rule);
  printf("         no FMA %d x %.2f x %.0f = %.1f GFLOP/s; FMA %d x %.2f x %.0f = %.1f GFLOP/s\n", threads, f, fpc,
         peak, threads, f, fpc_fma, peak_fma);
  printf("%-44s %-8s %9s %8s %14s %12s\n", "", "", "GFLOP/s", "s", "% no-FMA peak", "% FMA peak");
  for (int i = 1; i < argc; i++)
    for (int fc = 0; fc < 2; fc++)
      printf("%-44s %-8s %9.2f %8.4f %13.1f%% %11.1f%%\n", argv[i], fc ? "fma" : "no fma", leir_gflops[fc][i],
             leir_s[fc][i], 100 * leir_gflops[fc][i] / peak, 100 * leir_gflops[fc][i] / peak_fma);
  if (blas) {
    double g = flop / tb * 1e-9;
    double maxdiff = 0, maxabs = 0; /* normwise: max |leirc - blas| / max |blas| */
    for (int i = 0; i < N * N; i++) {
      double e = fabs((double)d[i] - (double)first.d[i]);
      if (e > maxdiff) maxdiff = e;
      if (fabs((double)d[i]) > maxabs) maxabs = fabs((double)d[i]);
    }
    printf("%-44s %-8s %9.2f %8.4f %13.1f%% %11.1f%%\n", "OpenBLAS cblas_sgemm", "fma", g, tb, 100 * g / peak,
           100 * g / peak_fma);
    printf("OpenBLAS kernel %s, %d threads, OPENBLAS_CORETYPE=%s\n", core, blas_threads,
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "(unset)");
    for (int i = 1; i < argc; i++)
      printf("ratio leirc/OpenBLAS  no fma %.3f  fma %.3f  %s\n", leir_gflops[0][i] / g, leir_gflops[1][i] / g,
             argv[i]);
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
