/* measure.h -- run-time measurement of a program on the host (ORC JIT):
 * the cost that `leirc --tune --cost=measure` ranks programs by.
 *
 * The rule: compile once, allocate every tensor, fill the inputs and
 * parameters with deterministic data (interp/rng.h, seed 0), run `warmup`
 * untimed runs, then up to `repeats` timed runs (CLOCK_MONOTONIC) and take
 * the median.  Big programs stop early: once the timed runs so far add up
 * to more than `max_seconds` (0 = no limit) no further run starts, and a
 * single run over 1 s ends the warm-up too (it counts as the first timed
 * run), so a 1 s program costs about two runs, not six.
 */
#ifndef LEIR_CODEGEN_MEASURE_H
#define LEIR_CODEGEN_MEASURE_H

#include "codegen/codegen.h"

typedef struct CgMeasureOpts {
  int warmup;         /* untimed runs first (default 1) */
  int repeats;        /* timed runs at most (default 5, at least 1) */
  double max_seconds; /* stop repeating once the timed runs exceed this
                         total (default 0 = no limit) */
} CgMeasureOpts;

/* Defaults: 1, 5, 0. */
void cg_measure_opts_init(CgMeasureOpts *m);

/* Compiles p for the host (cg_host_compile; o->target is ignored, the host
 * is used), allocates its tensors, fills inputs with deterministic data,
 * runs the warm-up then the timed runs; *median_s = their median.  Returns
 * false after a diagnostic. */
bool cg_host_measure(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                     double *median_s);

/* The same on the buffers of ip, an InterpProg of p whose inputs and
 * parameters the caller filled (e.g. leirc's --input files, then
 * interp_random_inputs with --seed for the rest): `leirc --print-cost
 * --cost=measure` times the user's data so.  ip's outputs hold the last
 * run's results after it. */
struct InterpProg;
bool cg_host_measure_ip(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                        struct InterpProg *ip, double *median_s);

/* The same on caller-provided buffers (bufs[i] for p->tensors[i], every one
 * given, as interp_buf(...)->data of an InterpProg of p): outputs and
 * intermediates are zeroed before each run (untimed); after it they hold the
 * last run's results. */
bool cg_host_measure_bufs(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                          void *const *bufs, double *median_s);

/* cg_host_measure_bufs's rule nseries times on one compilation of p (the
 * warm-up and the timed runs each time): medians[k] = series k's median.
 * `leirc --tune` confirms its best programs so, without compiling each
 * again per series. */
bool cg_host_measure_series(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, const CgMeasureOpts *m,
                            void *const *bufs, int nseries, double *medians);

#endif /* LEIR_CODEGEN_MEASURE_H */
