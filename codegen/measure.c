/* measure.c -- host run-time measurement (see measure.h). */
#define _POSIX_C_SOURCE 200809L
#include "codegen/measure.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/data.h"
#include "interp/interp.h"

/* a warm-up run longer than this is kept as the first timed run */
#define LONG_RUN_S 1.0

void cg_measure_opts_init(CgMeasureOpts *m) {
  m->warmup = 1;
  m->repeats = 5;
  m->max_seconds = 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One run on bufs with outputs and intermediates zeroed first (untimed). */
static bool one_run(CgHostProgram *hp, const IrProgram *p, void *const *bufs, double *secs) {
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if ((t->role == ROLE_OUT || t->role == ROLE_TMP) && bufs[i])
      memset(bufs[i], 0, (size_t)ir_tensor_numel(t) * (size_t)ir_dtype_size(t->dtype));
  }
  double t0 = now_s();
  bool ok = cg_host_run(hp, bufs);
  *secs = now_s() - t0;
  return ok;
}

/* One series on hp: the warm-up, then the timed runs; their median. */
static bool series(CgHostProgram *hp, const IrProgram *p, const CgMeasureOpts *m, void *const *bufs, double *t,
                   double *median_s) {
  int reps = m->repeats > 0 ? m->repeats : 1, n = 0;
  bool ok = true;
  for (int w = 0; ok && w < m->warmup; w++) {
    double s;
    ok = one_run(hp, p, bufs, &s);
    if (ok && s > LONG_RUN_S) {
      t[n++] = s;
      break;
    }
  }
  double total = 0;
  for (int i = 0; i < n; i++) total += t[i];
  while (ok && n < reps && !(m->max_seconds > 0 && total > m->max_seconds)) {
    ok = one_run(hp, p, bufs, &t[n]);
    total += t[n++];
  }
  if (ok) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *median_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  }
  return ok;
}

bool cg_host_measure_series(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                            void *const *bufs, int nseries, double *medians) {
  CgMeasureOpts d;
  if (!m) {
    cg_measure_opts_init(&d);
    m = &d;
  }
  CgOptions oo = *o;
  oo.target = CG_TARGET_HOST;
  CgHostProgram *hp = cg_host_compile(ctx, p, &oo);
  if (!hp) return false;
  double *t = calloc((size_t)(m->repeats > 0 ? m->repeats : 1), sizeof *t);
  bool ok = t != NULL;
  for (int k = 0; ok && k < nseries; k++) ok = series(hp, p, m, bufs, t, &medians[k]);
  free(t);
  cg_host_free(hp);
  return ok;
}

bool cg_host_measure_bufs(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                          void *const *bufs, double *median_s) {
  return cg_host_measure_series(ctx, p, o, m, bufs, 1, median_s);
}

bool cg_host_measure_ip(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                        InterpProg *ip, double *median_s) {
  int nt = interp_ntensors(ip);
  void **bufs = calloc((size_t)nt + 1, sizeof *bufs);
  bool ok = bufs != NULL;
  for (int i = 0; ok && i < nt; i++) bufs[i] = interp_buf(ip, i)->data;
  ok = ok && cg_host_measure_bufs(ctx, p, o, m, bufs, median_s);
  free(bufs);
  return ok;
}

bool cg_host_measure(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                     double *median_s) {
  InterpProg *ip = interp_new(ctx, p, NULL);
  if (!ip) return false;
  interp_random_inputs(ip, 0, NULL);
  bool ok = cg_host_measure_ip(ctx, p, o, m, ip, median_s);
  interp_free(ip);
  return ok;
}
