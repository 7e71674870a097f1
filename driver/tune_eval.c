/* tune_eval.c -- verifying and costing one program for `leirc --tune` (see
 * driver/tune.h). */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/tune.h"
#include "leir/runtime.h"

#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/costmodel.h"
#include "codegen/measure.h"
#include "search/learned.h"
#include "interp/check.h"
#include "interp/data.h"

struct TuneEval {
  LeirCtx *ctx;
  const DrvOptions *o;
  const IrProgram *orig;
  InterpProg *ref;    /* the original: inputs, and the reference outputs */
  bool ref_ran;       /* ref's outputs are computed (else run_ref does it) */
  bool small;         /* the original is checked by the interpreter */
  double orig_cost;
  /* --target=cuda --cost=measure */
  RtDevice *dev;
  SearchLearned *learned; /* --cost=learned */
};

/* ------------------------------------------------------------ quiet calls */

/* Diagnostics of the wrapped calls go to a memory buffer; the first line of
 * the first one becomes the reason of a failure. */
typedef struct Quiet {
  FILE *saved, *mem;
  char *buf;
  size_t len;
  int ne, nw;
  bool nowarn, werror, qc;
} Quiet;

static void quiet_begin(LeirCtx *ctx, Quiet *q) {
  q->saved = ctx->diag_out;
  q->ne = ctx->nerrors;
  q->nw = ctx->nwarnings;
  q->nowarn = ctx->no_warnings;
  q->werror = ctx->werror;
  q->qc = ctx->quiet_caret;
  q->buf = NULL;
  q->len = 0;
  q->mem = open_memstream(&q->buf, &q->len);
  ctx->diag_out = q->mem ? q->mem : q->saved;
  ctx->no_warnings = true;
  ctx->werror = false;
  ctx->quiet_caret = true;
}

/* Ends the capture; returns the first diagnostic line (arena) or NULL. */
static const char *quiet_end(LeirCtx *ctx, Quiet *q) {
  if (q->mem) fclose(q->mem);
  ctx->diag_out = q->saved;
  ctx->nerrors = q->ne;
  ctx->nwarnings = q->nw;
  ctx->no_warnings = q->nowarn;
  ctx->werror = q->werror;
  ctx->quiet_caret = q->qc;
  const char *msg = NULL;
  if (q->buf && *q->buf) {
    const char *nl = strchr(q->buf, '\n');
    msg = arena_strndup(&ctx->arena, q->buf, nl ? (size_t)(nl - q->buf) : strlen(q->buf));
  }
  free(q->buf);
  return msg;
}

/* ------------------------------------------------------------ helpers */


static char cmp_kind(IrDType t) {
  if (t == DT_BF16) return 'b';
  if (t == DT_BOOL) return '?';
  if (ir_dtype_is_float(t)) return 'f';
  return ir_dtype_is_signed_int(t) ? 'i' : 'u';
}


/* q's buffers with the original's input data (matched by name). */
static InterpProg *buffers_for(TuneEval *te, const IrProgram *q) {
  InterpOptions io = {false, 0};
  InterpProg *ip = interp_new(te->ctx, q, &io);
  for (int i = 0; ip && i < interp_ntensors(ip); i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role != ROLE_IN && b->t->role != ROLE_PARAM) continue;
    InterpBuf *r = interp_find(te->ref, b->t->name);
    if (r && r->nbytes == b->nbytes) memcpy(b->data, r->data, b->nbytes);
  }
  return ip;
}

static bool use_cuda(const TuneEval *te) { return te->o->target == TARGET_CUDA && !(te->o->cost == COST_MODEL); }

/* ------------------------------------------------------------ back ends */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs q on the GPU (libleirrt) on ip's buffers: warm-up and repeats as on
 * the host; *secs = the median kernel time (NULL: one run, no timing). */
static bool cuda_run(TuneEval *te, const IrProgram *q, InterpProg *ip, double *secs) {
  static const IrLoc noloc;
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_NVPTX;
  co.gpu_sm = te->o->gpu_sm;
  SBuf ptx = {0};
  if (!cg_emit_ptx(te->ctx, q, &co, &ptx)) return false;
  char err[4096];
  RtPlan *plan = NULL;
  RtModule *m = NULL;
  void **args = NULL;
  bool ok = false;
  if (rt_plan_parse(ptx.s, &plan, err, sizeof err)) {
    diag_error(te->ctx, noloc, "launch plan: %s", err);
    goto out;
  }
  if (rt_module_load(te->dev, ptx.s, &m, err, sizeof err)) {
    diag_error(te->ctx, noloc, "the CUDA driver rejected the PTX: %s", err);
    goto out;
  }
  size_t na = rt_plan_arg_count(plan);
  args = calloc(na + 1, sizeof *args);
  for (size_t i = 0; args && i < na; i++) {
    RtTensorInfo ti;
    InterpBuf *b = rt_plan_tensor(plan, i, &ti) ? NULL : interp_find(ip, ti.name);
    if (!b || b->nbytes != ti.bytes) {
      diag_error(te->ctx, noloc, "launch plan argument %zu does not match the program", i);
      goto out;
    }
    args[i] = b->data;
  }
  if (!args) goto out;
  double t[TUNE_MEASURE_REPEATS];
  int n = 0, runs = secs ? TUNE_MEASURE_REPEATS + 1 : 1;
  double total = 0;
  for (int r = 0; r < runs; r++) {
    double ms = 0;
    if (rt_run_plan(te->dev, m, plan, args, &ms, err, sizeof err)) {
      diag_error(te->ctx, noloc, "running on the GPU failed: %s", err);
      goto out;
    }
    if (r == 0 && runs > 1) continue; /* warm-up */
    if (n < TUNE_MEASURE_REPEATS) t[n++] = ms * 1e-3;
    total += ms * 1e-3;
    if (total > TUNE_MEASURE_MAX_S) break;
  }
  if (secs) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *secs = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  }
  ok = true;
out:
  free(args);
  if (m) rt_module_unload(m);
  if (plan) rt_plan_free(plan);
  sbuf_free(&ptx);
  return ok;
}

/* Runs q on ip's buffers with the cost back end; *secs = its cost when
 * measuring (NULL: one untimed run). */
static bool backend_run(TuneEval *te, const IrProgram *q, InterpProg *ip, double *secs) {
  if (use_cuda(te)) return cuda_run(te, q, ip, secs);
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  int n = interp_ntensors(ip);
  void **bufs = calloc((size_t)n + 1, sizeof *bufs);
  if (!bufs) return false;
  for (int i = 0; i < n; i++) bufs[i] = interp_buf(ip, i)->data;
  CgMeasureOpts mo;
  cg_measure_opts_init(&mo);
  mo.repeats = TUNE_MEASURE_REPEATS;
  mo.max_seconds = TUNE_MEASURE_MAX_S;
  if (!secs) {
    mo.warmup = 0;
    mo.repeats = 1;
  }
  double s = 0;
  bool ok = cg_host_measure_bufs(te->ctx, q, &co, &mo, bufs, &s);
  if (ok && secs) *secs = s;
  free(bufs);
  return ok;
}

static bool model_cost_in(TuneEval *te, LeirCtx *ctx, const IrProgram *q, double *secs) {
  if (te->learned) return search_learned_seconds(ctx, te->learned, q, secs);
  CostEstimate e;
  if (!cost_model_estimate(ctx, q, te->o->target == TARGET_CUDA ? COST_CUDA : COST_HOST, te->o->gpu_sm, &e))
    return false;
  *secs = e.seconds;
  return true;
}

static bool model_cost(TuneEval *te, const IrProgram *q, double *secs) { return model_cost_in(te, te->ctx, q, secs); }

/* --rank-cost=learned: a measurement updates the learned model (its next
 * estimate refits it; search/learned.h).  A program whose features cannot
 * be computed is left out (its diagnostic dropped). */
static void observe(TuneEval *te, LeirCtx *ctx, const IrProgram *q, double secs) {
  Quiet qt;
  quiet_begin(ctx, &qt);
  search_learned_observe(ctx, te->learned, q, secs);
  quiet_end(ctx, &qt);
}

/* The outputs of q (in ip) against the reference's, by name. */
static bool outputs_agree(TuneEval *te, InterpProg *ip, char cls, const char **why) {
  for (int i = 0; i < interp_ntensors(te->ref); i++) {
    InterpBuf *r = interp_buf(te->ref, i);
    if (r->t->role != ROLE_OUT) continue;
    InterpBuf *b = interp_find(ip, r->t->name);
    if (!b || b->nbytes != r->nbytes) {
      *why = arena_printf(&te->ctx->arena, "output '%s' is missing or has another shape", r->t->name);
      return false;
    }
    CmpResult c = cmp_arrays(cmp_kind(r->t->dtype), (size_t)ir_dtype_size(r->t->dtype), b->data, r->data, r->numel,
                             cls == 'T' ? CMP_DEFAULT : CMP_EXACT);
    if (c.verdict == CMP_DIFFER) {
      *why = arena_printf(&te->ctx->arena, "class %c: output '%s' differs at flat index %lld (%.9g, expected %.9g)", cls,
                          r->t->name, (long long)c.first_bad_index, c.a_value, c.b_value);
      return false;
    }
  }
  return true;
}

/* --fp-contract=on: a class E candidate that changes only what fuses
 * passes as class T (drv_fused_step_check, on the host JIT, on the
 * reference's inputs: the --input data and random data of --seed). */
static bool fused_class_t(TuneEval *te, const IrProgram *q) {
  InterpDiff d;
  return drv_fused_step_check(te->ctx, te->o, te->orig, q, CMP_DEFAULT, true, te->ref, &d) == 1 &&
         d.verdict != CMP_DIFFER;
}

/* The reference outputs, computed once when first needed: a small
 * original costed by --cost=model (and with no --input to try) is not run
 * by tune_eval_new, but a candidate over TUNE_INTERP_MAX_WORK is compared
 * with them. */
static bool run_ref(TuneEval *te) {
  if (!te->ref_ran) te->ref_ran = backend_run(te, te->orig, te->ref, NULL);
  return te->ref_ran;
}

/* ------------------------------------------------------------ interface */

int tune_eval_new(LeirCtx *ctx, const DrvOptions *o, const IrProgram *orig, TuneEval **out) {
  static const IrLoc noloc;
  *out = NULL;
  TuneEval *te = calloc(1, sizeof *te);
  if (!te) return 1;
  te->ctx = ctx;
  te->o = o;
  te->orig = orig;
  if (o->tune.rank_learned && !search_learned_available()) {
    diag_error(ctx, noloc, "--rank-cost=learned: this leirc was built without XGBoost (configure found no libxgboost-dev)");
    free(te);
    return 1;
  }
  if ((o->learned || o->tune.rank_learned) && !(te->learned = search_learned_load(ctx, NULL))) {
    free(te);
    return 1;
  }
  if (use_cuda(te)) {
    char err[4096];
    int st = rt_open(&te->dev, 0, err, sizeof err);
    if (st == RT_ENODRIVER) {
      fprintf(stderr, "leirc: %s\n", err);
      free(te);
      return 77;
    }
    if (st) {
      diag_error(ctx, noloc, "%s", err);
      free(te);
      return 1;
    }
  }
  InterpOptions io = {false, o->run.max_steps};
  te->ref = interp_new(ctx, orig, &io);
  if (!te->ref) {
    tune_eval_free(te);
    return 1;
  }
  /* the --input files (--run's loader and errors), random data of --seed
     for the other inputs and parameters */
  if (!drv_fill_inputs(te->ref, o)) {
    tune_eval_free(te);
    return 1;
  }
  te->small = ir_program_execs(orig) <= TUNE_INTERP_MAX_WORK;
  bool ok = true;
  double *cost = (o->cost == COST_MODEL) ? NULL : &te->orig_cost;
  if (!te->small || cost) ok = te->ref_ran = backend_run(te, orig, te->ref, cost); /* reference outputs */
  /* the user's data must run (else every candidate's check would fail) */
  else if (o->run.ninputs && !(te->ref_ran = interp_run(te->ref))) {
    diag_error(ctx, noloc, "--tune: the program itself cannot be run on the --input data");
    tune_eval_free(te);
    return 1;
  }
  if (ok && cost && te->learned) observe(te, ctx, orig, *cost);
  if (ok && (o->cost == COST_MODEL)) ok = model_cost(te, orig, &te->orig_cost);
  if (!ok) {
    diag_error(ctx, noloc, "--tune: the program itself cannot be %s", (o->cost == COST_MODEL) ? "modelled" : "run and timed");
    tune_eval_free(te);
    return 1;
  }
  *out = te;
  return 0;
}

double tune_eval_original_cost(const TuneEval *te) { return te->orig_cost; }

/* Verifies q and costs it into *cost; cost NULL (--cost=model only):
 * verifies it alone. */
static TuneStatus eval_impl(TuneEval *te, const IrProgram *q, char cls, double *cost, const char **why) {
  LeirCtx *ctx = te->ctx;
  Quiet qt;
  quiet_begin(ctx, &qt);
  TuneStatus st = TUNE_OK;
  *why = NULL;
  InterpProg *ip = NULL;
  if (!interp_same_signature(ctx, te->orig, q, "the original", "the candidate")) {
    st = TUNE_WRONG;
    goto out;
  }
  if (te->small && ir_program_execs(q) <= TUNE_INTERP_MAX_WORK) {
    /* on the reference's inputs: the --input files are read once, by
       tune_eval_new */
    InterpCheckOptions co = {te->o->run.seed, te->o->run.max_steps};
    InterpCheckInputs in = {0, NULL, NULL, te->ref};
    int r = interp_check_step_inputs(ctx, te->orig, q, cls, 1, "candidate", &co, &in);
    if (r) {
      st = r == 1 ? TUNE_WRONG : TUNE_FAIL;
      goto out;
    }
    if ((te->o->cost == COST_MODEL)) {
      if (cost && !model_cost(te, q, cost)) st = TUNE_FAIL;
      goto out;
    }
    ip = buffers_for(te, q);
    if (!ip || !backend_run(te, q, ip, cost)) st = TUNE_FAIL;
    goto out;
  }
  ip = buffers_for(te, q);
  if (!ip || !run_ref(te) || !backend_run(te, q, ip, (te->o->cost == COST_MODEL) ? NULL : cost)) {
    st = TUNE_FAIL;
    goto out;
  }
  if (!outputs_agree(te, ip, cls, why)) {
    if (!(cls == 'E' && fused_class_t(te, q))) {
      st = TUNE_WRONG;
      goto out;
    }
    *why = NULL;
  }
  if ((te->o->cost == COST_MODEL) && cost && !model_cost(te, q, cost)) st = TUNE_FAIL;
out:
  if (st == TUNE_OK && cost && te->o->cost == COST_MEASURE && te->learned) observe(te, ctx, q, *cost);
  interp_free(ip);
  const char *msg = quiet_end(ctx, &qt);
  if (st != TUNE_OK && !*why) *why = msg ? msg : st == TUNE_WRONG ? "the outputs differ" : "cannot be run";
  return st;
}

TuneStatus tune_eval(TuneEval *te, const IrProgram *q, char cls, double *cost, const char **why) {
  return eval_impl(te, q, cls, cost, why);
}

TuneStatus tune_eval_verify(TuneEval *te, const IrProgram *q, char cls, const char **why) {
  return eval_impl(te, q, cls, NULL, why);
}

bool tune_eval_model(TuneEval *te, const IrProgram *q, double *secs) {
  Quiet qt;
  quiet_begin(te->ctx, &qt);
  bool ok = model_cost(te, q, secs);
  quiet_end(te->ctx, &qt);
  return ok;
}

bool tune_eval_model_in(TuneEval *te, LeirCtx *scratch, const IrProgram *q, double *secs) {
  return model_cost_in(te, scratch, q, secs);
}

int tune_eval_observed(const TuneEval *te) { return te->learned ? search_learned_observed(te->learned) : 0; }

bool tune_eval_save_model(TuneEval *te, const char *path) {
  return te->learned && search_learned_save(te->ctx, te->learned, path);
}

void tune_eval_free(TuneEval *te) {
  if (!te) return;
  interp_free(te->ref);
  if (te->dev) rt_close(te->dev);
  search_learned_free(te->learned);
  free(te);
}

bool tune_eval_remeasure(TuneEval *te, const IrProgram *q, int n, double *secs) {
  LeirCtx *ctx = te->ctx;
  Quiet qt;
  quiet_begin(ctx, &qt);
  InterpProg *ip = buffers_for(te, q);
  bool ok = ip != NULL;
  if (ok && use_cuda(te)) {
    for (int k = 0; ok && k < n; k++) ok = cuda_run(te, q, ip, &secs[k]);
  } else if (ok) {
    CgOptions co;
    cg_options_init(&co);
    co.target = CG_TARGET_HOST;
    int nt = interp_ntensors(ip);
    void **bufs = calloc((size_t)nt + 1, sizeof *bufs);
    for (int i = 0; bufs && i < nt; i++) bufs[i] = interp_buf(ip, i)->data;
    CgMeasureOpts mo;
    cg_measure_opts_init(&mo);
    mo.repeats = TUNE_MEASURE_REPEATS;
    mo.max_seconds = TUNE_MEASURE_MAX_S;
    ok = bufs && cg_host_measure_series(ctx, q, &co, &mo, bufs, n, secs);
    free(bufs);
  }
  interp_free(ip);
  quiet_end(ctx, &qt);
  return ok;
}
