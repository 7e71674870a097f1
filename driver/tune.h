/* tune.h -- the parts of `leirc --tune` (driver/tune.c, the search) that
 * judge one program: driver/tune_eval.c verifies a candidate against the
 * original program and costs it.  Private to the driver.
 *
 * Verification: the candidate and the ORIGINAL program run on the same
 * inputs (random, --seed; one input set).  When both programs execute at
 * most TUNE_INTERP_MAX_WORK statements, the interpreter runs them
 * (interp_check_step, the oracle); otherwise the candidate's outputs from
 * the cost back end (the host JIT, or the GPU with --target=cuda
 * --cost=measure) are compared with the original's outputs from the same
 * back end by cmp_arrays.  Class E trajectories must be bit-identical;
 * a trajectory with a class T step is compared with the default tolerance
 * (STRATEGIES.md 0.4).
 *
 * Cost: seconds.  --cost=measure: the median run time (codegen/measure.h
 * on the host: 1 warm-up, up to TUNE_MEASURE_REPEATS timed runs, no new
 * run once the timed runs add up to TUNE_MEASURE_MAX_S: many runs of a
 * short program, whose single runs are at the mercy of the scheduler on a
 * loaded machine, few of a long one; on the GPU the kernel time that
 * libleirrt reports, same rule).  --cost=model: cost_model_estimate.
 */
#ifndef LEIR_DRIVER_TUNE_H
#define LEIR_DRIVER_TUNE_H

#include "driver/driver.h"

#define TUNE_INTERP_MAX_WORK 20000000
#define TUNE_MEASURE_MAX_S 0.3
#define TUNE_MEASURE_REPEATS 15
/* After a measured search, the TUNE_CONFIRM best programs and the original
 * are measured TUNE_CONFIRM_RUNS times more; the best by the median of
 * those is the result (the minimum of many noisy measurements is
 * optimistic: a lucky timing would otherwise win). */
#define TUNE_CONFIRM 4
#define TUNE_CONFIRM_RUNS 3

/* The lookahead (driver/tune.c): up to --lookahead loop_reorder steps
 * after a candidate, at most TUNE_LOOKAHEAD_PROGRAMS programs estimated
 * per expansion; a path is followed when it promises below
 * TUNE_LOOKAHEAD_GAIN times the candidate's own estimate. */
#define TUNE_LOOKAHEAD_PROGRAMS 20000
#define TUNE_LOOKAHEAD_GAIN 0.95
/* With --cost=measure and a time limit, the lookahead of one expansion
 * stops after 1/TUNE_LOOKAHEAD_TIME_SHARE of the time left (the candidates
 * not reached by then are ranked by their own estimate). */
#define TUNE_LOOKAHEAD_TIME_SHARE 4

/* --rank-cost=learned with --cost=measure: once TUNE_SKETCH_SCREEN_AFTER
 * sketch instances are measured, an instance the learned model (refitted
 * to the measurements) estimates over TUNE_SKETCH_SCREEN times the best
 * program measured so far is dropped unmeasured. */
#define TUNE_SKETCH_SCREEN 2.0
#define TUNE_SKETCH_SCREEN_AFTER 4

typedef struct TuneEval TuneEval;

typedef enum TuneStatus {
  TUNE_OK,    /* verified and costed */
  TUNE_WRONG, /* verification failed: the outputs differ */
  TUNE_FAIL   /* could not be run or costed (why says so) */
} TuneStatus;

/* Sets up inputs and the original's reference outputs and cost.  Returns 0,
 * 77 (--target=cuda --cost=measure without a CUDA driver: the message has
 * been printed) or 1 after an error diagnostic. */
int tune_eval_new(LeirCtx *ctx, const DrvOptions *o, const IrProgram *orig, TuneEval **out);
double tune_eval_original_cost(const TuneEval *te);
/* cls: 'E' or 'T' (of the whole trajectory).  *why (arena text) on failure. */
TuneStatus tune_eval(TuneEval *te, const IrProgram *q, char cls, double *cost, const char **why);
/* --cost=model: verifies q as tune_eval does, without costing it. */
TuneStatus tune_eval_verify(TuneEval *te, const IrProgram *q, char cls, const char **why);
/* The cost model's estimate of q (seconds) for the target, diagnostics
 * suppressed; false if the model cannot estimate it. */
bool tune_eval_model(TuneEval *te, const IrProgram *q, double *secs);
/* The same in another context (a scratch one whose arena holds the
 * estimate's temporaries and whose diagnostics are discarded). */
bool tune_eval_model_in(TuneEval *te, LeirCtx *scratch, const IrProgram *q, double *secs);
/* --cost=measure: measures q again n times (no verification: q passed it),
 * each as tune_eval costs it, into secs[0..n) (on the host one compilation
 * for the n); false if it cannot be run. */
bool tune_eval_remeasure(TuneEval *te, const IrProgram *q, int n, double *secs);
/* --rank-cost=learned: the measurements the learned model observed. */
int tune_eval_observed(const TuneEval *te);
/* --cost-model-save: the learned model (refitted to what it observed)
 * written to path; false after a diagnostic. */
bool tune_eval_save_model(TuneEval *te, const char *path);
void tune_eval_free(TuneEval *te);

#endif
