/* sgemm_bench.c -- host SGEMM 1024^3 as written in LEIR (examples/sgemm1024.leir),
 * JIT-compiled by leirc's host back end, against OpenBLAS's cblas_sgemm in
 * the same run: GFLOP/s of both, their ratio, and each as a fraction of a
 * nominal peak of the machine.
 *
 *   sgemm_bench [--threads=N] [--reps=N] PROGRAM.leir [OPTIMISED.leir ...]
 *
 * Each program runs twice: as leirc compiles it by default (no FMA), and
 * with --fp-contract=on (a*b+c as one fma).  Everything is compiled first,
 * then timed side by side: --reps rounds (default 5), each running every
 * program once in turn and then OpenBLAS; the best of the rounds counts,
 * by the wall clock and by the process's CPU time (all its threads), whose
 * GFLOP per CPU-second against one core's peak is what a loaded machine
 * still lets us compare (the wall clock then measures mostly the load).  N threads for leirc's JIT and
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
 * without it the OpenBLAS column is skipped (nothing is installed);
 * bench/sgemm.sh chooses the kernel (OPENBLAS_CORETYPE).
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
#include "ir/buffer.h"
#include "ir/readfile.h"
#include "bench/cpu_clock.h"

#define N 1024
#define REPS 5 /* rounds; --reps=N */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (every thread): on a loaded machine the
 * time this process ran, without the time other processes held its CPUs. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The fastest of the runs so far, by the clock on the wall and by CPU time. */
typedef struct Best {
  double wall_s, cpu_s;
} Best;

static void best_update(Best *b, double wall_s, double cpu_s) {
  if (wall_s < b->wall_s) b->wall_s = wall_s;
  if (cpu_s < b->cpu_s) b->cpu_s = cpu_s;
}

/* One program compiled one way, ready to run (its address must not change:
 * the JIT keeps &ctx). */
typedef struct Run {
  LeirCtx ctx;
  CgHostProgram *hp;
  void **bufs;
  float *d;
  double compile_s; /* parse + sema + LLVM + JIT */
  Best best;
} Run;

/* Compiles `path` (with fp_contract, on nthreads threads) for inputs a, c.
 * False on failure. */
static bool leir_compile(const char *path, bool fp_contract, int nthreads, const float *a, const float *c, Run *out) {
  LeirCtx *ctx = &out->ctx;
  leir_ctx_init(ctx);
  ctx->fp_contract = fp_contract;
  size_t len = 0;
  char *text = leir_read_file(path, &len);
  if (!text) {
    fprintf(stderr, "sgemm_bench: cannot read %s\n", path);
    return false;
  }
  double t0 = now();
  leir_ctx_set_source(ctx, path, text, len);
  free(text);
  IrProgram *p = ps_parse(ctx);
  if (!p || !ir_sema(ctx, p, NULL)) return false;
  IrTensor *ta = ir_find_tensor(p, "A"), *tc = ir_find_tensor(p, "C"), *td = ir_find_tensor(p, "D");
  if (!ta || !tc || !td || ir_tensor_numel(ta) != N * N || ir_tensor_numel(td) != N * N) {
    fprintf(stderr, "sgemm_bench: %s is not a 1024^3 SGEMM over A, C -> D\n", path);
    return false;
  }
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  /* opt_level stays cg_options_init's (2), the level leirc itself compiles
     at (--run, --tune, the server): what a user gets.  This benchmark
     asked for 3 until 5 Dec 2026, which no leirc command uses; there the
     8x32 register tile of the packed pipeline ran at 4.5 GFLOP/s against
     83 at level 2 (the 4x64 tile: the same at both), before the rows of
     such tiles were unrolled fully (codegen/lower_loops.c, tile_rows). */
  o.nthreads = nthreads;
  out->hp = cg_host_compile(ctx, p, &o);
  out->compile_s = now() - t0;
  if (!out->hp) return false;
  out->bufs = calloc((size_t)p->ntensors, sizeof *out->bufs);
  out->d = ir_buffer_alloc(sizeof(float) * N * N); /* zeroed, 64-byte aligned */
  out->bufs[ta->id] = (void *)a;
  out->bufs[tc->id] = (void *)c;
  out->bufs[td->id] = out->d;
  out->best = (Best){INFINITY, INFINITY};
  return true;
}

/* Runs a compiled program once (D cleared first), keeping the best times. */
static bool leir_run(Run *r) {
  memset(r->d, 0, sizeof(float) * N * N);
  double t = now(), u = cpu_now();
  bool ok = cg_host_run(r->hp, r->bufs);
  u = cpu_now() - u;
  t = now() - t;
  best_update(&r->best, t, u);
  return ok;
}

static void leir_free(Run *r) {
  if (r->hp) cg_host_free(r->hp);
  free(r->bufs);
  ir_buffer_free(r->d);
  leir_ctx_free(&r->ctx);
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

typedef struct Blas {
  SgemmFn sgemm;
  char core[512];
  int threads; /* what OpenBLAS says it uses */
  Best best;
} Blas;

/* Opens OpenBLAS for `threads` threads and warms it up (one run). */
static bool blas_open(int threads, const float *a, const float *c, float *d, Blas *b) {
  void *h = open_openblas();
  if (!h) return false;
  b->sgemm = (SgemmFn)(uintptr_t)dlsym(h, "cblas_sgemm");
  StrFn corename = (StrFn)(uintptr_t)dlsym(h, "openblas_get_corename");
  StrFn config = (StrFn)(uintptr_t)dlsym(h, "openblas_get_config");
  IntFn nthreads = (IntFn)(uintptr_t)dlsym(h, "openblas_get_num_threads");
  SetFn set_threads = (SetFn)(uintptr_t)dlsym(h, "openblas_set_num_threads");
  if (!b->sgemm) return false;
  if (set_threads && threads > 0) set_threads(threads);
  snprintf(b->core, sizeof b->core, "%s (%s)", corename ? corename() : "?", config ? config() : "?");
  b->threads = nthreads ? nthreads() : 0;
  b->best = (Best){INFINITY, INFINITY};
  b->sgemm(101 /* row major */, 111, 111, N, N, N, 1.0f, a, N, c, N, 0.0f, d, N);
  return true;
}

static void blas_run(Blas *b, const float *a, const float *c, float *d) {
  double t = now(), u = cpu_now();
  b->sgemm(101 /* row major */, 111, 111, N, N, N, 1.0f, a, N, c, N, 0.0f, d, N);
  u = cpu_now() - u;
  t = now() - t;
  best_update(&b->best, t, u);
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

static bool has_feature(const char *feats, const char *f) {
  size_t k = strlen(f);
  for (const char *p = strstr(feats, f); p; p = strstr(p + 1, f))
    if ((p == feats || p[-1] == ',') && (p[k] == ',' || p[k] == '\0')) return true;
  return false;
}

int main(int argc, char **argv) {
  int threads = cg_host_cpus(); /* as the JIT counts them */
  int reps = REPS;
  for (;;) {
    if (argc > 1 && !strncmp(argv[1], "--threads=", 10))
      threads = atoi(argv[1] + 10);
    else if (argc > 1 && !strncmp(argv[1], "--reps=", 7))
      reps = atoi(argv[1] + 7);
    else
      break;
    argv++, argc--;
  }
  if (argc < 2 || threads < 1 || reps < 1) {
    fprintf(stderr, "usage: sgemm_bench [--threads=N] [--reps=N] PROGRAM.leir [OPTIMISED.leir ...]\n");
    return 2;
  }
  if (access(argv[1], R_OK)) {
    fprintf(stderr, "sgemm_bench: no %s\n", argv[1]);
    return 77;
  }
  /* 64-byte aligned (ir/buffer.h), as leirc's own buffers */
  float *a = ir_buffer_alloc(sizeof(float) * N * N), *c = ir_buffer_alloc(sizeof(float) * N * N);
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
  printf("host SGEMM %dx%dx%d, best of %d rounds (each runs every program once, in turn)\n", N, N, N, reps);
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
  if (argc > 64) argc = 64;
  int nprog = argc - 1, nrun = 2 * nprog; /* run 2i: argv[i+1] without FMA, 2i+1: with */
  Run *runs = calloc((size_t)nrun, sizeof *runs);
  for (int k = 0; k < nrun; k++)
    if (!leir_compile(argv[k / 2 + 1], k % 2, threads, a, c, &runs[k])) return 1;
  float *d = ir_buffer_alloc(sizeof(float) * N * N);
  Blas blas = {0};
  bool has_blas = blas_open(threads, a, c, d, &blas);
  /* side by side: every round runs each program once (one run only of a
   * program slower than 2 s), then OpenBLAS */
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < nrun; k++)
      if ((r == 0 || runs[k].best.wall_s < 2.0) && !leir_run(&runs[k])) return 1;
    if (has_blas) blas_run(&blas, a, c, d);
  }
  for (int k = 0; k < nrun; k++)
    printf("leirc    %s --fp-contract=%s: %.4f s (CPU %.4f s), compile %.3f s%s\n", argv[k / 2 + 1],
           k % 2 ? "on " : "off", runs[k].best.wall_s, runs[k].best.cpu_s, runs[k].compile_s,
           k == 0                                                  ? ""
           : memcmp(runs[k].d, runs[0].d, sizeof(float) * N * N) ? "  output differs from the first"
                                                                   : "  output bit-identical to the first");
  double ghz = bench_measure_ghz(now), f = ghz > 0 ? ghz : atof(mhz) * 1e-3;
  double peak = threads * f * fpc, peak_fma = threads * f * fpc_fma;
  double core_peak = f * fpc, core_peak_fma = f * fpc_fma;
  printf("clock    /proc/cpuinfo %s MHz; measured %.2f GHz (dependent adds, after the runs)\n", mhz, ghz);
  printf("peak     threads x GHz x flops/cycle (%s):\n", rule);
  printf("         no FMA %d x %.2f x %.0f = %.1f GFLOP/s; FMA %d x %.2f x %.0f = %.1f GFLOP/s\n", threads, f, fpc,
         peak, threads, f, fpc_fma, peak_fma);
  printf("wall: GFLOP/s and fractions of those peaks; CPU: GFLOP per CPU-second (the process's CPU time, all its\n"
         "threads: what the load leaves out) and fractions of one core's peaks (%.1f, %.1f)\n",
         core_peak, core_peak_fma);
  printf("%-40s %-6s %8s %8s %8s %8s %8s %8s\n", "", "", "wall", "%noFMA", "%FMA", "CPU", "%noFMA", "%FMA");
  for (int k = 0; k < nrun; k++) {
    double g = flop / runs[k].best.wall_s * 1e-9, gc = flop / runs[k].best.cpu_s * 1e-9;
    printf("%-40s %-6s %8.2f %7.1f%% %7.1f%% %8.2f %7.1f%% %7.1f%%\n", argv[k / 2 + 1], k % 2 ? "fma" : "no fma", g,
           100 * g / peak, 100 * g / peak_fma, gc, 100 * gc / core_peak, 100 * gc / core_peak_fma);
  }
  if (has_blas) {
    double g = flop / blas.best.wall_s * 1e-9, gc = flop / blas.best.cpu_s * 1e-9;
    double maxdiff = 0, maxabs = 0; /* normwise: max |leirc - blas| / max |blas| */
    for (int i = 0; i < N * N; i++) {
      double e = fabs((double)d[i] - (double)runs[0].d[i]);
      if (e > maxdiff) maxdiff = e;
      if (fabs((double)d[i]) > maxabs) maxabs = fabs((double)d[i]);
    }
    printf("%-40s %-6s %8.2f %7.1f%% %7.1f%% %8.2f %7.1f%% %7.1f%%\n", "OpenBLAS cblas_sgemm", "fma", g,
           100 * g / peak, 100 * g / peak_fma, gc, 100 * gc / core_peak, 100 * gc / core_peak_fma);
    printf("OpenBLAS kernel %s, %d threads, OPENBLAS_CORETYPE=%s\n", blas.core, blas.threads,
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "(unset)");
    for (int i = 0; i < nprog; i++)
      printf("ratio leirc/OpenBLAS  wall: no fma %.3f  fma %.3f   CPU: no fma %.3f  fma %.3f  %s\n",
             blas.best.wall_s / runs[2 * i].best.wall_s, blas.best.wall_s / runs[2 * i + 1].best.wall_s,
             blas.best.cpu_s / runs[2 * i].best.cpu_s, blas.best.cpu_s / runs[2 * i + 1].best.cpu_s, argv[i + 1]);
    printf("max |D(leirc) - D(OpenBLAS)| / max |D(OpenBLAS)| = %.2e\n", maxdiff / (maxabs > 0 ? maxabs : 1));
  } else {
    printf("OpenBLAS sgemm  not found (libopenblas.so.0; Debian: libopenblas0): OpenBLAS column skipped\n");
  }
  for (int k = 0; k < nrun; k++) leir_free(&runs[k]);
  free(runs);
  ir_buffer_free(d);
  ir_buffer_free(a);
  ir_buffer_free(c);
  return 0;
}
