/* tvm_bench.c -- the leirc side of bench/tvm_bench.py: host run time of
 * leirc's JIT-compiled code for each program given, on the inputs in
 * DIR/in_NAME.npy when present, else on `leirc --run`'s random inputs
 * (seed 0; interp/data.h), best of REPS runs.  (Not zeros: a max or min
 * reduction over zeros ran 2x faster than over data.)  The buffers are
 * 64-byte aligned (ir/buffer.h), as TVM's NDArrays and leirc's own are.
 *
 *   tvm_bench [--threads N] [--reps R] [--par-min-work W] PROGRAM.leir[:DECLS.json[:DIR]] ...
 *
 * Prints one line per program: `leirc NAME BEST_SECONDS COMPILE_SECONDS`
 * (or `leirc NAME error`).  --threads 1 runs the host code on one thread,
 * as TVM's unscheduled llvm build does; 0 (the default), the CPUs idle
 * now.  By default a parallel-safe nest runs on several threads when the
 * cost model says a second core saves it 50 us or more (CG_PAR_MIN_S,
 * codegen/parallel.h, with the figures behind it); --par-min-work W
 * instead puts every parallel-safe nest of W or more innermost iterations
 * on them (bench/par_bench.py).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/codegen.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "ir/buffer.h"
#include "ir/readfile.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fills buf (numel elements of t) from DIR/in_NAME.npy when it has the
 * right size; false when there is no such file. */
static bool load_input(const char *dir, const IrTensor *t, void *buf, size_t bytes) {
  if (!dir) return false;
  char path[4096];
  snprintf(path, sizeof path, "%s/in_%s.npy", dir, t->name);
  size_t len = 0;
  char *raw = leir_read_file(path, &len);
  if (!raw) return false;
  /* .npy v1/v2: magic(6) ver(2) hlen(2|4) header data */
  size_t hl = raw[6] == 1 ? (size_t)(unsigned char)raw[8] | (size_t)(unsigned char)raw[9] << 8
                          : (size_t)(unsigned char)raw[8] | (size_t)(unsigned char)raw[9] << 8 |
                                (size_t)(unsigned char)raw[10] << 16 | (size_t)(unsigned char)raw[11] << 24;
  size_t off = (raw[6] == 1 ? 10 : 12) + hl;
  bool ok = len >= off + bytes;
  if (ok) memcpy(buf, raw + off, bytes);
  free(raw);
  return ok;
}

static void bench_one(const char *spec, int reps, int threads, long long par_min_work) {
  char *s = strdup(spec);
  char *decls = strchr(s, ':');
  char *dir = NULL;
  if (decls) {
    *decls++ = '\0';
    dir = strchr(decls, ':');
    if (dir) *dir++ = '\0';
    if (!*decls) decls = NULL;
  }
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = true;
  size_t len = 0;
  char *text = leir_read_file(s, &len);
  IrProgram *p = NULL;
  IrDeclList side = {0};
  if (text) {
    leir_ctx_set_source(&ctx, s, text, len);
    p = ps_parse(&ctx);
    if (p && decls && !ir_decls_load_json(&ctx, decls, &side)) p = NULL;
    if (p && !ir_sema(&ctx, p, decls ? &side : NULL)) p = NULL;
  }
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  o.nthreads = threads;
  o.par_min_work = par_min_work;
  double t0 = now();
  CgHostProgram *hp = p ? cg_host_compile(&ctx, p, &o) : NULL;
  double tc = now() - t0;
  void **bufs = p ? calloc((size_t)p->ntensors + 1, sizeof *bufs) : NULL;
  bool ok = hp && bufs;
  InterpProg *ip = NULL; /* the random inputs, made at the first input without a file */
  for (int i = 0; ok && i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->role == ROLE_TMP) continue;
    size_t bytes = (size_t)ir_tensor_numel(t) * (size_t)ir_dtype_size(t->dtype);
    bufs[i] = ir_buffer_alloc(bytes); /* 64-byte aligned, as TVM's NDArrays */
    ok = bufs[i] != NULL;
    if (!ok || (t->role != ROLE_IN && t->role != ROLE_PARAM) || load_input(dir, t, bufs[i], bytes)) continue;
    if (!ip) {
      InterpOptions io = {0};
      ok = (ip = interp_new(&ctx, p, &io)) != NULL;
      if (ok) interp_random_inputs(ip, 0, NULL);
    }
    if (ok) memcpy(bufs[i], interp_buf(ip, i)->data, bytes);
  }
  if (ip) interp_free(ip);
  double best = 1e300;
  for (int r = 0; ok && r < reps; r++) {
    double a = now();
    ok = cg_host_run(hp, bufs);
    double d = now() - a;
    if (d < best) best = d;
  }
  if (ok) printf("leirc %s %.9f %.3f\n", s, best, tc);
  else printf("leirc %s error\n", s);
  fflush(stdout);
  for (int i = 0; bufs && i < p->ntensors; i++) ir_buffer_free(bufs[i]);
  free(bufs);
  if (hp) cg_host_free(hp);
  free(text);
  leir_ctx_free(&ctx);
  free(s);
}

int main(int argc, char **argv) {
  int reps = 3, threads = 0, i = 1;
  long long par_min_work = 0;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--par-min-work")) par_min_work = atoll(argv[i + 1]);
    else break;
  }
  if (i >= argc) {
    fprintf(stderr, "usage: tvm_bench [--threads N] [--reps R] [--par-min-work W] PROGRAM.leir[:DECLS.json[:DIR]]...\n");
    return 2;
  }
  for (; i < argc; i++) bench_one(argv[i], reps > 0 ? reps : 1, threads, par_min_work);
  return 0;
}
