/* eval.c -- `leirc --eval PREDICTIONS.jsonl`: scores written programs
 * (Step-TP predictions) with passes/stepcheck.c and the interpreter, and
 * `leirc --eval-summary RESULTS.jsonl...`: the summary of results written
 * by --eval --output (shards merged).
 *
 * Each input line is a JSON object {before, strategy, after, id?, decls?}.
 * The records are shared out over -j N worker processes (record k goes to
 * worker k mod N); a worker runs a program before once for all the records
 * of its share that have it (its outputs kept by canonical key, StepsOuts
 * in driver/steps_cache.h), compiles a nest for the host JIT once for its
 * whole share (one JIT cache per worker, EvalMem), and writes one result
 * line per record to its pipe.
 * A worker that dies (a crash, or the per-record time budget --time-limit
 * running out: SIGALRM) costs only the record it was on, which becomes a
 * counted failure (a time-out is marked "timeout"); a new worker takes over
 * the rest of its share.  Legality (stepcheck) is decided before anything
 * runs, and the worker reports it at once (a "+" line, below), so a record
 * cut short while its programs run keeps its `different`, `legal`,
 * `legal_strategy` and `build`: they never depend on the execution limits,
 * the load or the time budget.  Results are gathered by record number, so
 * the output is the same for every N.
 * (man leirc, EVALUATION, has the metrics.)
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/driver.h"

#include "codegen/codegen.h"
#include "codegen/costmodel.h"
#include "codegen/measure.h"
#include "driver/steps_cache.h"
#include "interp/check.h"
#include "interp/data.h"
#include "passes/stepcheck.h"

#include <errno.h>
#include <jansson.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ one record */

/* A worker keeps at most this many bytes of the random inputs of the
 * programs before (interp_random_inputs_cached: a model's predictions for
 * one program share them). */
#define EVAL_INPUTS_BYTES ((size_t)256 << 20)

/* A worker's tensors up to this size come from its heap (not a mapping of
 * their own), and up to this much free memory stays in the heap between
 * records (glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD; worker_heap). */
#define EVAL_HEAP_KEEP ((int)1 << 30)

/* What a worker keeps from one record to the next: the outputs of the
 * programs before by key (StepsOuts, driver/steps_cache.h) and the buffers
 * of the last pair run, taken again where the sizes agree (zeroed: the
 * same as fresh ones, without mapping and faulting in fresh pages). */
typedef struct EvalMem {
  StepsOuts outs;
  InterpBufPool pool;
  InterpInputCache inputs; /* the random inputs of the programs before */
  bool keep; /* a later record of the worker's share has the same before */
  /* the host JIT's cache of compiled nests (codegen/host_cache.c), handed
     from one record's context to the next: the kernels of a program
     before, and of the nests its afters share with it, are compiled once
     for all the records of the worker's share that have it */
  void *jit;
  void (*jit_free)(void *);
} EvalMem;

typedef struct EvalOut {
  bool different, build, execute, equal, legal;
  const char *legal_strategy; /* or NULL */
  bool has_speedup;
  double speedup;
  const char *error;          /* or NULL */
  bool timeout;               /* cut short by the per-record time budget */
} EvalOut;

/* Where a worker reports what is known of record k before anything runs
 * (NULL: nowhere). */
typedef struct EvalSink {
  FILE *out;
  long slot; /* its place in the worker's input */
  long num;  /* its record number */
  json_t *rec;
} EvalSink;

static void sink_partial(const EvalSink *sk, const EvalOut *r);

static const char *first_line(LeirCtx *ctx, const char *s) {
  const char *nl = strchr(s, '\n');
  return arena_strndup(&ctx->arena, s, nl ? (size_t)(nl - s) : strlen(s));
}

/* Captured diagnostics of a run, as one line. */
typedef struct Cap {
  FILE *saved, *mem;
  char *buf;
  size_t len;
} Cap;

static void cap_begin(LeirCtx *ctx, Cap *c) {
  memset(c, 0, sizeof *c);
  c->saved = ctx->diag_out;
  c->mem = open_memstream(&c->buf, &c->len);
  ctx->diag_out = c->mem ? c->mem : c->saved;
}

static const char *cap_end(LeirCtx *ctx, Cap *c) {
  if (c->mem) fclose(c->mem);
  ctx->diag_out = c->saved;
  const char *s = c->buf && *c->buf ? first_line(ctx, c->buf) : NULL;
  free(c->buf);
  return s;
}

static bool seconds_of(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p, double *s) {
  if (o->target == TARGET_CUDA || o->cost == COST_MODEL) {
    CostEstimate e;
    if (!cost_model_estimate(ctx, p, o->target == TARGET_CUDA ? COST_CUDA : COST_HOST, o->gpu_sm, &e)) return false;
    *s = e.seconds;
    return true;
  }
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  CgMeasureOpts mo;
  cg_measure_opts_init(&mo);
  return cg_host_measure(ctx, p, &co, &mo, s);
}

static uint64_t eval_budget(const DrvOptions *o) { return drv_interp_budget(o); }

/* --fp-contract=on: true when a class E step that differed changes only
 * what fuses (exact without fusion) and is within the class T tolerance
 * with it (interp_fused_step_check). */
static bool fused_class_t(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                          bool jit) {
  InterpDiff d;
  return drv_fused_step_check(ctx, o, before, after, o->run.tolerance, jit, NULL, &d) == 1 && d.verdict != CMP_DIFFER;
}

/* The program before with the inputs of o->run.seed, run by the host JIT
 * (jit) or the interpreter, or its outputs taken from mem->outs: the run of
 * the same program (canonical text, seed, engine, semantic flags;
 * driver/steps_cache.h) for an earlier record of this worker, as a model's
 * predictions for one program share their before (*tmps false when its
 * intermediates were not kept).  NULL, *failed set to 1 when it does not
 * fit in memory, 2 when it fails.  With a prefix (the before's nests but
 * its trailing ones, which cannot fail: drv_incr_tail) and no outputs
 * kept, only the prefix runs (*partial set; not kept for later records),
 * the tensors prefix_keep marks (those it does not mention) not reset. */
static InterpProg *before_ran(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const InterpOptions *io,
                              bool jit, EvalMem *mem, int *failed, bool *tmps, const IrProgram *prefix,
                              const unsigned char *prefix_keep, bool *partial) {
  *tmps = true;
  *partial = false;
  InterpProg *a = interp_new_pooled(ctx, prefix ? prefix : before, io, mem ? &mem->pool : NULL);
  if (a && prefix) interp_set_kept(a, prefix_keep);
  StepsOuts *outs = mem ? &mem->outs : NULL;
  if (!a) {
    *failed = 1;
    return NULL;
  }
  interp_random_inputs_cached(a, o->run.seed, NULL, mem ? &mem->inputs : NULL);
  StepsKey k = {0};
  bool keyed = outs && steps_key(&k, before, o->run.seed, jit ? "eval before; host JIT" : "eval before; interpreter",
                                 ctx->fp_contract, ctx->unsafe_math);
  if (keyed && steps_outs_load(outs, &k, a, tmps)) {
    steps_key_free(&k);
    return a;
  }
  if (!(jit ? drv_jit_runner(ctx, a) : interp_run(a))) {
    steps_key_free(&k);
    interp_free(a);
    *failed = 2;
    return NULL;
  }
  *partial = prefix != NULL;
  if (keyed && !prefix) steps_outs_store(outs, &k, a); /* it takes the key over */
  else steps_key_free(&k);
  return a;
}

/* A pair run: the program before (before_ran) and the one after, b, on
 * the same inputs, compared as the interpreter's runs are
 * (interp_compare_ran_with, as interp_compare_progs and
 * interp_compare_run_by do with one seed).  NULL (r->execute, r->equal
 * set) or why it could not be done. */
static const char *ran_pair(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                            InterpProg **bp, PassClass cls, bool jit, EvalMem *mem, EvalOut *r) {
  InterpOptions io = {false, jit ? 0 : eval_budget(o)};
  int failed = 0;
  bool tmps = true, partial = false;
  /* the after from its first nest that differs from the before, on the
     values the before's run left, without its trailing nests like the
     before's (driver/incr.c; *bp, the whole after, compiled: the same
     errors); when no later record of the worker has this before, its
     trailing nests are not run either unless the after's must run */
  DrvIncr inc = {0, after, NULL};
  DrvTail tail = {0, after, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, NULL, NULL, NULL};
  InterpBufPool *pool = mem ? &mem->pool : NULL;
  const IrProgram *prefix = NULL;
  if (!(mem && mem->keep)) {
    drv_incr_plan(ctx, o, before, after, true, &inc);
    if (drv_incr_tail(ctx, o, before, after, true, &inc, &tail) && tail.bsafe) prefix = tail.bprog;
  }
  InterpProg *a = before_ran(ctx, o, before, &io, jit, mem, &failed, &tmps, prefix, tail.bkeep, &partial);
  if (a && !partial) {
    drv_incr_plan(ctx, o, before, after, tmps, &inc);
    drv_incr_tail(ctx, o, before, after, tmps, &inc, &tail);
  }
  if (a && (inc.skip || tail.skip)) {
    interp_free(*bp); /* its buffers to the pool, for the new one */
    /* with the tail left out, fresh buffers: what the run does not mention
       is never touched (a buffer from the pool is zeroed when taken) */
    if (tail.skip && pool) interp_pool_free(pool);
    InterpProg *s = interp_new_pooled(ctx, tail.prog, &io, pool);
    if (s && tail.skip) {
      drv_incr_tail_load(&inc, &tail, a, s);
    } else if (s) {
      drv_incr_load(&inc, a, s);
    } else {
      s = interp_new_pooled(ctx, after, &io, pool);
      tail.skip = 0;
    }
    *bp = s;
  }
  if (a) drv_incr_stats(&inc, after);
  InterpProg *b = *bp;
  if (mem) interp_pool_free(&mem->pool); /* what the pair did not take */
  if (!a)
    return failed == 1 ? (jit ? "the programs do not fit in memory" : "the program before does not compile")
                       : (jit ? "the program before fails on the host JIT" : "the program before fails to run");
  if (!b) {
    interp_free(a);
    return "the program after does not compile";
  }
  InterpDiff d;
  DrvTailRun tr = {.ctx = ctx, .run = jit ? drv_jit_runner : NULL,
                   .rest = jit ? drv_jit_runner : NULL, .run_live = jit ? drv_jit_runner_live : NULL,
                   .partial = partial,
                   .a = a, .tail = &tail, .io = &io, .pool = pool};
  int rc = interp_compare_ran_with(a, b, o->run.seed, cls == PASS_E ? CMP_EXACT : (CmpTolerance)o->run.tolerance,
                                   tail.skip ? drv_tail_runner : jit ? drv_jit_runner_outputs : NULL,
                                   tail.skip ? (void *)&tr : ctx, &d);
  if (tail.skip) drv_incr_tail_stats(&tail, tr.done, partial, after);
  interp_free(a);
  if (rc != 0 && tr.done == -2)
    return jit ? "the program before fails on the host JIT" : "the program before fails to run";
  if (rc != 0) return jit ? "the program after fails on the host JIT" : "the program after fails to run";
  r->execute = true;
  r->equal = d.verdict != CMP_DIFFER || (cls == PASS_E && fused_class_t(ctx, o, before, after, jit));
  return NULL;
}

/* Runs both programs and compares them under the class's tolerance: in
 * the interpreter within its budget, else with --target=host on the host
 * JIT within its own (driver/verify.c; bit-identical to the
 * interpreter). */
static void run_pair(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                     PassClass cls, EvalOut *r, const EvalSink *sk, EvalMem *mem) {
  uint64_t budget = eval_budget(o);
  Cap cap;
  cap_begin(ctx, &cap);
  InterpOptions io = {false, budget};
  InterpProg *b = NULL;
  const char *err = NULL;
  if (!interp_same_signature(ctx, before, after, "before", "after")) {
    err = "the programs take different arguments";
  } else if (!(b = interp_new_pooled(ctx, after, &io, mem ? &mem->pool : NULL))) {
    err = "the program after does not compile";
  } else {
    r->build = true;
    sink_partial(sk, r);
    uint64_t wa = ir_program_execs(before), wb = ir_program_execs(after), w = wa > wb ? wa : wb;
    DrvEngine e = drv_engine_for(o, w);
    if (e == ENGINE_JIT && o->target == TARGET_HOST) {
      err = ran_pair(ctx, o, before, after, &b, cls, true, mem, r);
    } else if (e != ENGINE_INTERP) {
      err = arena_printf(&ctx->arena, "not run: %llu statement executions > budget %llu", (unsigned long long)w,
                         (unsigned long long)(o->target == TARGET_HOST ? drv_verify_limit(o) : budget));
    } else {
      err = ran_pair(ctx, o, before, after, &b, cls, false, mem, r);
    }
  }
  const char *diag = cap_end(ctx, &cap);
  if (b) interp_free(b);
  if (err) r->error = diag ? arena_printf(&ctx->arena, "%s: %s", err, diag) : err;
  if (r->equal) {
    double sb, sa;
    Cap c2;
    cap_begin(ctx, &c2);
    if (seconds_of(ctx, o, before, &sb) && seconds_of(ctx, o, after, &sa) && sa > 0) {
      r->has_speedup = true;
      r->speedup = sb / sa;
    }
    cap_end(ctx, &c2);
  }
}

static void eval_record(const DrvOptions *o, LeirCtx *ctx, json_t *rec, EvalOut *r, const EvalSink *sk,
                        EvalMem *mem) {
  memset(r, 0, sizeof *r);
  const char *before = json_string_value(json_object_get(rec, "before"));
  const char *strategy = json_string_value(json_object_get(rec, "strategy"));
  const char *after = json_string_value(json_object_get(rec, "after"));
  json_t *decls = json_object_get(rec, "decls");
  if (!before) {
    r->error = "the record has no 'before' string";
    return;
  }
  if (!after) after = "";
  const PassInfo *pass = strategy ? pass_lookup(strategy) : NULL;
  Cap cap;
  cap_begin(ctx, &cap);
  leir_ctx_set_source(ctx, "before", before, strlen(before));
  IrProgram *pb = ps_parse(ctx);
  IrDeclList side = {0};
  bool have_side = decls && !json_is_null(decls);
  if (pb && have_side && !ir_decls_from_json(ctx, "decls", decls, &side)) pb = NULL;
  if (pb && !ir_sema(ctx, pb, have_side ? &side : NULL)) pb = NULL;
  const char *diag = cap_end(ctx, &cap);
  if (!pb) {
    r->error = arena_printf(&ctx->arena, "before: %s", diag ? diag : "does not load");
    return;
  }
  StepCheckOptions so = {pass, "after", false, o->run.seed, (CmpTolerance)o->run.tolerance, eval_budget(o), false,
                         NULL, NULL, 0};
  StepResult sr;
  r->legal = step_check(ctx, pb, after, strlen(after), &so, &sr);
  r->different = sr.verdict != STEP_UNCHANGED;
  if (!sr.after) {
    r->error = sr.error ? sr.error : sr.message;
    return;
  }
  if (r->legal) {
    r->legal_strategy = sr.pass->name;
  } else if (sr.verdict != STEP_UNCHANGED) {
    StepCheckOptions any = so;
    any.strategy = NULL;
    StepResult other;
    if (step_check(ctx, pb, after, strlen(after), &any, &other)) r->legal_strategy = other.pass->name;
  }
  sink_partial(sk, r);
  PassClass cls = r->legal ? sr.cls : pass && pass->cls == PASS_E ? PASS_E : PASS_T;
  run_pair(ctx, o, pb, sr.after, cls, r, sk, mem);
}

static json_t *result_json(json_t *rec, long index, const EvalOut *r) {
  json_t *j = json_object();
  json_t *id = rec ? json_object_get(rec, "id") : NULL;
  json_object_set_new(j, "id", id ? json_incref(id) : json_integer(index));
  const char *st = rec ? json_string_value(json_object_get(rec, "strategy")) : NULL;
  json_object_set_new(j, "strategy", st ? json_string(st) : json_null());
  const PassInfo *p = st ? pass_lookup(st) : NULL;
  json_object_set_new(j, "level", p ? json_string(pass_level_name(p->level)) : json_null());
  json_object_set_new(j, "different", json_boolean(r->different));
  json_object_set_new(j, "build", json_boolean(r->build));
  json_object_set_new(j, "execute", json_boolean(r->execute));
  json_object_set_new(j, "equal", json_boolean(r->equal));
  json_object_set_new(j, "legal", json_boolean(r->legal));
  json_object_set_new(j, "legal_strategy", r->legal_strategy ? json_string(r->legal_strategy) : json_null());
  json_object_set_new(j, "speedup", r->has_speedup ? json_real(r->speedup) : json_null());
  json_object_set_new(j, "error", r->error ? json_string(r->error) : json_null());
  json_object_set_new(j, "timeout", json_boolean(r->timeout));
  return j;
}

/* Writes "K\t+\tRESULT" (what is known so far of record K: the parent
 * keeps it in case the worker dies before the record's final line). */
static void sink_partial(const EvalSink *sk, const EvalOut *r) {
  if (!sk || !sk->out) return;
  json_t *j = result_json(sk->rec, sk->num, r);
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(j);
  if (s) {
    fprintf(sk->out, "%ld\t+\t%s\n", sk->slot, s);
    fflush(sk->out);
  }
  free(s);
}

/* ------------------------------------------------------------ the authors' records */

static void ctx_setup(LeirCtx *ctx, const DrvOptions *o) {
  leir_ctx_init(ctx);
  ctx->no_warnings = true;
  ctx->quiet_caret = true;
  ctx->unsafe_math = o->unsafe_math;
  ctx->fp_contract = o->fp_contract;
  ctx->max_memory = o->run.max_memory;
}

/* One program of an authors' record, scored as the leirc record {before,
 * strategy, after, decls} (in its own context): its result object. */
static json_t *authors_program(const DrvOptions *o, const DrvAuthorsRecord *ar, const char *strategy,
                               const char *after, long k) {
  LeirCtx ctx;
  ctx_setup(&ctx, o);
  json_t *rec = json_object();
  json_object_set_new(rec, "before", json_string(ar->before));
  if (strategy) json_object_set_new(rec, "strategy", json_string(strategy));
  json_object_set_new(rec, "after", json_string(after));
  json_object_set(rec, "decls", ar->decls);
  EvalOut r;
  eval_record(o, &ctx, rec, &r, NULL, NULL);
  json_t *j = result_json(rec, k, &r);
  json_decref(rec);
  leir_ctx_free(&ctx);
  return j;
}

/* An answer's program text with its white space dropped: two entries with
 * the same text are one program. */
static char *squeeze(const char *s) {
  char *t = malloc(strlen(s) + 1), *d = t;
  if (!t) return NULL;
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') *d++ = *s;
  *d = 0;
  return t;
}

/* The result line of an authors' record (see leirc(1), EVALUATION): the
 * first num_IRs distinct programs of the answer are scored; each key holds
 * when it holds for every one of them, `required` when at least num_IRs
 * of them are different and equal. */
static char *eval_authors_line(const DrvOptions *o, json_t *rec, long k) {
  LeirCtx ctx;
  ctx_setup(&ctx, o);
  DrvAuthorsRecord ar;
  bool ok = drv_eval_authors_read(&ctx, rec, &ar);
  EvalOut agg;
  memset(&agg, 0, sizeof agg);
  const char *strategy = NULL;
  long nentries = ok ? (long)json_array_size(ar.entries) : 0, distinct = 0, scored = 0, good = 0, nsp = 0;
  double logsp = 0;
  char **seen = calloc((size_t)(nentries ? nentries : 1), sizeof *seen);
  if (!ok) agg.error = ar.error;
  for (long i = 0; ok && i < nentries; i++) {
    json_t *e = json_array_get(ar.entries, (size_t)i);
    const char *after = json_string_value(json_object_get(e, "transformed_IR"));
    const char *st = json_string_value(json_object_get(e, "applied_strategy"));
    char *sq = squeeze(after ? after : "");
    bool dup = false;
    for (long m = 0; m < distinct && !dup; m++) dup = sq && !strcmp(seen[m], sq);
    if (dup || !sq) {
      free(sq);
      continue;
    }
    seen[distinct++] = sq;
    if (scored == ar.num_irs) continue;
    json_t *res = authors_program(o, &ar, st, after ? after : "", k);
    bool first = scored++ == 0;
    if (first) strategy = st ? arena_strdup(&ctx.arena, st) : NULL;
    bool ent_ok = json_is_object(e) && after;
    const char *err = !ent_ok ? "expected {applied_strategy, transformed_IR, CoT} with a string transformed_IR"
                              : json_string_value(json_object_get(res, "error"));
    if (err && !agg.error) agg.error = arena_printf(&ctx.arena, "answer[%ld]: %s", i, err);
#define AGG(f) agg.f = (first || agg.f) && ent_ok && json_is_true(json_object_get(res, #f))
    AGG(different);
    AGG(build);
    AGG(execute);
    AGG(equal);
    AGG(legal);
#undef AGG
    if (first) {
      const char *ls = json_string_value(json_object_get(res, "legal_strategy"));
      agg.legal_strategy = ls ? arena_strdup(&ctx.arena, ls) : NULL;
    }
    json_t *sp = json_object_get(res, "speedup");
    if (json_is_number(sp) && json_number_value(sp) > 0) {
      logsp += log(json_number_value(sp));
      nsp++;
    }
    good += ent_ok && json_is_true(json_object_get(res, "different")) && json_is_true(json_object_get(res, "equal"));
    json_decref(res);
  }
  if (ok && !scored && !agg.error) agg.error = "answer: no program (an empty list)";
  if (agg.equal && nsp == scored && nsp > 0) {
    agg.has_speedup = true;
    agg.speedup = exp(logsp / (double)nsp);
  }
  json_t *head = json_object();
  json_t *id = json_object_get(rec, "id");
  if (id) json_object_set(head, "id", id);
  if (strategy) json_object_set_new(head, "strategy", json_string(strategy));
  json_t *j = result_json(head, k, &agg);
  json_object_set_new(j, "num_IRs", json_integer(ok ? ar.num_irs : 1));
  json_object_set_new(j, "format", json_boolean(ok && nentries > 0));
  json_object_set_new(j, "answers", json_integer(nentries));
  json_object_set_new(j, "distinct", json_integer(distinct));
  json_object_set_new(j, "required", json_boolean(ok && good >= ar.num_irs));
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
  json_decref(j);
  json_decref(head);
  for (long m = 0; m < distinct; m++) free(seen[m]);
  free(seen);
  drv_eval_authors_free(&ar);
  leir_ctx_free(&ctx);
  return s;
}

/* The result line of record k (malloc'ed, no newline); partial results go
 * to `partial` as record `slot` (NULL: nowhere). */
static char *eval_line(const DrvOptions *o, const char *line, long k, FILE *partial, long slot, EvalMem *mem) {
  json_error_t jerr;
  json_t *rec = json_loads(line, 0, &jerr);
  if (drv_eval_is_authors(rec)) {
    char *s = eval_authors_line(o, rec, k);
    json_decref(rec);
    return s;
  }
  LeirCtx ctx;
  ctx_setup(&ctx, o);
  if (mem) { /* the JIT cache of the worker's earlier records */
    ctx.jit_cache = mem->jit;
    ctx.jit_cache_free = mem->jit_free;
  }
  EvalOut r;
  memset(&r, 0, sizeof r);
  if (!json_is_object(rec)) r.error = arena_printf(&ctx.arena, "the record is not a JSON object: %s", jerr.text);
  else {
    EvalSink sk = {partial, slot, k, rec};
    eval_record(o, &ctx, rec, &r, partial ? &sk : NULL, mem);
  }
  json_t *j = result_json(json_is_object(rec) ? rec : NULL, k, &r);
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
  json_decref(j);
  json_decref(rec);
  if (mem) { /* kept for the next record, not freed with the context */
    mem->jit = ctx.jit_cache;
    mem->jit_free = ctx.jit_cache_free;
    ctx.jit_cache = NULL;
  }
  leir_ctx_free(&ctx);
  return s;
}

/* A failed record's line (the worker died on it): what its last partial
 * line (NULL: none) had found, with the error `why`. */
static char *failed_line(const char *line, long k, const char *partial, const char *why, bool timeout) {
  json_t *rec = json_loads(line, 0, NULL);
  EvalOut r;
  memset(&r, 0, sizeof r);
  json_t *part = partial ? json_loads(partial, 0, NULL) : NULL;
  if (json_is_object(part)) {
    r.different = json_is_true(json_object_get(part, "different"));
    r.build = json_is_true(json_object_get(part, "build"));
    r.legal = json_is_true(json_object_get(part, "legal"));
    r.legal_strategy = json_string_value(json_object_get(part, "legal_strategy"));
  }
  r.error = why;
  r.timeout = timeout;
  json_t *j = result_json(json_is_object(rec) ? rec : NULL, k, &r);
  if (drv_eval_is_authors(rec)) { /* still counted in the paper's tables */
    json_t *n = json_object_get(rec, "num_IRs");
    json_int_t irs = json_is_integer(n) && json_integer_value(n) > 1 ? json_integer_value(n) : 1;
    json_object_set_new(j, "num_IRs", json_integer(irs));
    json_object_set_new(j, "format", json_false());
    json_object_set_new(j, "answers", json_integer(0));
    json_object_set_new(j, "distinct", json_integer(0));
    json_object_set_new(j, "required", json_false());
  }
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(j);
  json_decref(part);
  json_decref(rec);
  return s;
}

/* ------------------------------------------------------------ summary */

enum { M_DIFFERENT, M_BUILD, M_EXECUTE, M_EQUAL, M_LEGAL, M_LEGAL_STRATEGY, M_SPEEDUP, M_ERROR, M_TIMEOUT, M__COUNT };
static const char *const metric[M__COUNT] = {"different",      "build",   "execute", "equal",  "legal",
                                             "legal_strategy", "speedup", "error",   "timeout"};

typedef struct Group {
  char *name;
  long n;
  long count[M__COUNT];
  double log_speedup; /* over the records with a speedup */
  long nspeedup;
} Group;

/* The paper's tables, over the authors' records (those with num_IRs):
 * single (num_IRs = 1) and multiple (num_IRs > 1). */
enum { P_FORMAT, P_BUILD, P_EXECUTE, P_EQUAL, P_LEGAL, P_REQUIRED, P__COUNT };
static const char *const paper_metric[P__COUNT] = {"format", "build", "execute", "equal", "legal", "required"};
typedef struct PaperRow {
  long n;
  long count[P__COUNT];
} PaperRow;

typedef struct Summary {
  Group all;
  Group *by_strategy, *by_level;
  int nstrategy, nlevel;
  PaperRow single, multiple;
} Summary;

static Group *group_of(Group **v, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp((*v)[i].name, name)) return &(*v)[i];
  Group *nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
  if (!nv) return NULL;
  *v = nv;
  Group *g = &nv[(*n)++];
  memset(g, 0, sizeof *g);
  g->name = strdup(name);
  return g;
}

static void group_add(Group *g, json_t *res) {
  if (!g) return;
  g->n++;
  for (int m = 0; m < M__COUNT; m++) {
    json_t *v = json_object_get(res, metric[m]);
    bool on = false;
    if (m == M_LEGAL_STRATEGY) on = json_is_string(v) && !json_is_true(json_object_get(res, "legal"));
    else if (m == M_SPEEDUP) on = json_is_number(v) && json_number_value(v) > 1.0;
    else if (m == M_ERROR) on = json_is_string(v);
    else on = json_is_true(v);
    g->count[m] += on;
  }
  json_t *sp = json_object_get(res, "speedup");
  if (json_is_number(sp) && json_number_value(sp) > 0) {
    g->log_speedup += log(json_number_value(sp));
    g->nspeedup++;
  }
}

static void summary_add(Summary *s, json_t *res) {
  const char *st = json_string_value(json_object_get(res, "strategy"));
  const char *lv = json_string_value(json_object_get(res, "level"));
  group_add(&s->all, res);
  group_add(group_of(&s->by_strategy, &s->nstrategy, st ? st : "-"), res);
  group_add(group_of(&s->by_level, &s->nlevel, lv ? lv : "-"), res);
  json_t *n = json_object_get(res, "num_IRs");
  if (json_is_integer(n)) {
    PaperRow *p = json_integer_value(n) > 1 ? &s->multiple : &s->single;
    p->n++;
    for (int m = 0; m < P__COUNT; m++) p->count[m] += json_is_true(json_object_get(res, paper_metric[m]));
  }
}

static json_t *paper_json(const PaperRow *p) {
  json_t *j = json_object();
  json_object_set_new(j, "records", json_integer(p->n));
  for (int m = 0; m < P__COUNT; m++) json_object_set_new(j, paper_metric[m], json_integer(p->count[m]));
  return j;
}

static void paper_row(const char *name, const PaperRow *p) {
  printf("%-40s %6ld", name, p->n);
  for (int m = 0; m < P__COUNT; m++)
    printf(" %6ld %5.1f%%", p->count[m], p->n ? 100.0 * (double)p->count[m] / (double)p->n : 0.0);
  putchar('\n');
}

static int cmp_group(const void *a, const void *b) {
  return strcmp(((const Group *)a)->name, ((const Group *)b)->name);
}

static json_t *group_json(const Group *g) {
  json_t *j = json_object();
  json_object_set_new(j, "records", json_integer(g->n));
  for (int m = 0; m < M__COUNT; m++) json_object_set_new(j, metric[m], json_integer(g->count[m]));
  json_object_set_new(j, "speedup_geomean", g->nspeedup ? json_real(exp(g->log_speedup / (double)g->nspeedup))
                                                        : json_null());
  return j;
}

static void print_row(const char *prefix, const Group *g) {
  char name[128];
  snprintf(name, sizeof name, "%s%s", prefix, strcmp(g->name, "-") ? g->name : "(none)");
  printf("%-40s %6ld", name, g->n);
  for (int m = 0; m < M__COUNT; m++)
    printf(" %6ld %5.1f%%", g->count[m], g->n ? 100.0 * (double)g->count[m] / (double)g->n : 0.0);
  if (g->nspeedup) printf(" %8.3f\n", exp(g->log_speedup / (double)g->nspeedup));
  else printf(" %8s\n", "-");
}

static void summary_print(Summary *s, bool json) {
  qsort(s->by_strategy, (size_t)s->nstrategy, sizeof *s->by_strategy, cmp_group);
  qsort(s->by_level, (size_t)s->nlevel, sizeof *s->by_level, cmp_group);
  if (json) {
    json_t *j = group_json(&s->all);
    json_t *ps = json_object(), *pl = json_object();
    for (int i = 0; i < s->nstrategy; i++) json_object_set_new(ps, s->by_strategy[i].name, group_json(&s->by_strategy[i]));
    for (int i = 0; i < s->nlevel; i++) json_object_set_new(pl, s->by_level[i].name, group_json(&s->by_level[i]));
    json_object_set_new(j, "per_strategy", ps);
    json_object_set_new(j, "per_level", pl);
    if (s->single.n || s->multiple.n) {
      json_t *pp = json_object();
      json_object_set_new(pp, "single", paper_json(&s->single));
      json_object_set_new(pp, "multiple", paper_json(&s->multiple));
      json_object_set_new(j, "paper", pp);
    }
    char *t = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    if (t) puts(t);
    free(t);
    json_decref(j);
    return;
  }
  printf("%-40s %6s", "", "n");
  for (int m = 0; m < M__COUNT; m++) printf(" %13s", metric[m]);
  printf(" %8s\n", "geomean");
  print_row("", &s->all);
  for (int i = 0; i < s->nlevel; i++) print_row("level ", &s->by_level[i]);
  for (int i = 0; i < s->nstrategy; i++) print_row("strategy ", &s->by_strategy[i]);
  if (s->single.n || s->multiple.n) {
    printf("\n%-40s %6s", "paper (the authors' records)", "n");
    for (int m = 0; m < P__COUNT; m++) printf(" %13s", paper_metric[m]);
    putchar('\n');
    paper_row("single (num_IRs = 1)", &s->single);
    paper_row("multiple (num_IRs > 1)", &s->multiple);
  }
}

static void summary_free(Summary *s) {
  free(s->all.name);
  for (int i = 0; i < s->nstrategy; i++) free(s->by_strategy[i].name);
  for (int i = 0; i < s->nlevel; i++) free(s->by_level[i].name);
  free(s->by_strategy);
  free(s->by_level);
}

/* ------------------------------------------------------------ workers */

typedef struct Input {
  char **line; /* the records of this shard */
  long *num;   /* their record numbers in the file */
  long n;
} Input;

typedef struct Worker {
  pid_t pid;
  int fd;
  long next;   /* the next record (index into Input) it will report */
  char *buf;   /* a partial line read */
  size_t len, cap;
} Worker;

/* A hash of a record's "before" text (0: none; never 0 otherwise). */
static uint64_t before_hash(const char *line) {
  json_t *j = json_loads(line, 0, NULL);
  const char *s = json_is_object(j) ? json_string_value(json_object_get(j, "before")) : NULL;
  uint64_t h = 0;
  if (s) {
    h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h |= 1;
  }
  json_decref(j);
  return h;
}

typedef struct HashAt {
  uint64_t h;
  long i;
} HashAt;

static int cmp_hash_at(const void *x, const void *y) {
  const HashAt *a = x, *b = y;
  if (a->h != b->h) return a->h < b->h ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* For the cnt records from, from + nw, ... of the input: whether a later
 * one has the same before's text (by hash: a collision only keeps a
 * before that need not be kept).  NULL when out of memory. */
static bool *shared_later(const Input *in, long from, int nw, long cnt) {
  HashAt *v = malloc(((size_t)cnt + 1) * sizeof *v);
  bool *keep = calloc((size_t)cnt + 1, 1);
  if (!v || !keep) {
    free(v);
    free(keep);
    return NULL;
  }
  for (long i = 0; i < cnt; i++) v[i] = (HashAt){before_hash(in->line[from + i * nw]), i};
  qsort(v, (size_t)cnt, sizeof *v, cmp_hash_at);
  for (long j = 0; j + 1 < cnt; j++)
    if (v[j].h && v[j].h == v[j + 1].h) keep[v[j].i] = true;
  free(v);
  return keep;
}

/* A worker process's allocator (issue 61): by default glibc gives every
 * block of 128 KiB or more (a tensor) a mapping of its own and unmaps it
 * when freed, so each record's buffers were faulted in afresh, page by
 * page, and zeroed by the kernel: a third of --eval's CPU time on the
 * stride file of bench/eval_rate.sh was the kernel's.  With the buffers
 * from the heap, and the heap not trimmed below EVAL_HEAP_KEEP of free
 * memory, a record's tensors reuse the pages of the previous one (calloc
 * clears what it reuses).  Only the worker's own process is set (it is
 * forked for this and exits after its share); the output is unchanged. */
static void worker_heap(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, EVAL_HEAP_KEEP);
  mallopt(M_TRIM_THRESHOLD, EVAL_HEAP_KEEP);
#endif
}

static void worker_main(const DrvOptions *o, const Input *in, int nw, long from, int fd) {
  FILE *out = fdopen(fd, "w");
  if (!out) _exit(3);
  worker_heap();
  unsigned limit = o->tune.time_limit > 0 ? (unsigned)ceil(o->tune.time_limit) : 60;
  EvalMem mem;
  memset(&mem, 0, sizeof mem);
  mem.inputs.max_bytes = EVAL_INPUTS_BYTES;
  /* a program before is run in full and kept only when a later record of
     this share has it (the same text): keep[i] for the i-th record */
  long cnt = from < in->n ? (in->n - from + nw - 1) / nw : 0;
  bool *keep = shared_later(in, from, nw, cnt);
  for (long k = from; k < in->n; k += nw) {
    mem.keep = !keep || keep[(k - from) / nw];
    alarm(limit);
    char *s = eval_line(o, in->line[k], in->num[k], out, k, &mem);
    alarm(0);
    fprintf(out, "%ld\t%s\n", k, s ? s : "{}");
    fflush(out);
    free(s);
  }
  free(keep);
  if (mem.jit && mem.jit_free) mem.jit_free(mem.jit);
  steps_outs_free(&mem.outs);
  interp_pool_free(&mem.pool);
  interp_input_cache_free(&mem.inputs);
  fclose(out);
  _exit(0);
}

static bool worker_start(const DrvOptions *o, const Input *in, Worker *wk, int nw) {
  int p[2];
  if (pipe(p)) return false;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return false;
  }
  if (pid == 0) {
    close(p[0]);
    worker_main(o, in, nw, wk->next, p[1]);
  }
  close(p[1]);
  wk->pid = pid;
  wk->fd = p[0];
  wk->len = 0;
  return true;
}

/* A worker's line: "K\tRESULT" (record K's result) or "K\t+\tRESULT" (what
 * is known of it so far, kept in partial[K]).  True for a result. */
static bool take_line(Worker *wk, char *line, char **results, char **partial, const Input *in, int nw) {
  char *tab = strchr(line, '\t');
  if (!tab) return false;
  long k = strtol(line, NULL, 10);
  if (k < 0 || k >= in->n || results[k]) return false;
  if (tab[1] == '+' && tab[2] == '\t') {
    free(partial[k]);
    partial[k] = strdup(tab + 3);
    return false;
  }
  results[k] = strdup(tab + 1);
  if (k >= wk->next) wk->next = k + nw;
  return true;
}

static void progress(long done, long n) {
  int width = 40, fill = n ? (int)(width * done / n) : width;
  fprintf(stderr, "\r[%.*s%*s] %ld/%ld", fill, "========================================", width - fill, "", done, n);
  if (done == n) fputc('\n', stderr);
}

/* Runs the shard's records over nw workers; results[k] = the line of
 * record k.  False if a worker cannot be started. */
static bool run_workers(const DrvOptions *o, const Input *in, int nw, char **results) {
  if (nw > in->n) nw = in->n > 0 ? (int)in->n : 1;
  Worker *wk = calloc((size_t)nw, sizeof *wk);
  struct pollfd *pf = calloc((size_t)nw, sizeof *pf);
  char **partial = calloc((size_t)(in->n ? in->n : 1), sizeof *partial);
  if (!wk || !pf || !partial) {
    free(wk);
    free(pf);
    free(partial);
    return false;
  }
  bool ok = true, bar = isatty(2);
  long done = 0;
  for (int w = 0; w < nw; w++) {
    wk[w].next = w;
    if (w >= in->n) wk[w].fd = -1;
    else if (!worker_start(o, in, &wk[w], nw)) ok = false;
  }
  while (ok) {
    int live = 0;
    for (int w = 0; w < nw; w++) {
      pf[w].fd = wk[w].fd;
      pf[w].events = POLLIN;
      live += wk[w].fd >= 0;
    }
    if (!live) break;
    if (poll(pf, (nfds_t)nw, -1) < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    for (int w = 0; w < nw; w++) {
      if (wk[w].fd < 0 || !(pf[w].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[65536];
      ssize_t got = read(wk[w].fd, chunk, sizeof chunk);
      if (got > 0) {
        if (wk[w].len + (size_t)got + 1 > wk[w].cap) {
          wk[w].cap = (wk[w].len + (size_t)got + 1) * 2;
          wk[w].buf = realloc(wk[w].buf, wk[w].cap);
        }
        memcpy(wk[w].buf + wk[w].len, chunk, (size_t)got);
        wk[w].len += (size_t)got;
        wk[w].buf[wk[w].len] = 0;
        char *start = wk[w].buf, *nl;
        while ((nl = strchr(start, '\n'))) {
          *nl = 0;
          if (take_line(&wk[w], start, results, partial, in, nw)) {
            done++;
            if (bar) progress(done, in->n);
          }
          start = nl + 1;
        }
        wk[w].len = strlen(start);
        memmove(wk[w].buf, start, wk[w].len + 1);
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      /* end of the pipe: the worker finished or died */
      close(wk[w].fd);
      wk[w].fd = -1;
      int st = 0;
      waitpid(wk[w].pid, &st, 0);
      long k = wk[w].next;
      if (k < in->n && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        char why[160];
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
          snprintf(why, sizeof why, "the record ran past the time budget of %g s",
                   o->tune.time_limit > 0 ? o->tune.time_limit : 60.0);
        else if (WIFSIGNALED(st))
          snprintf(why, sizeof why, "the checker died on this record (signal %d)", WTERMSIG(st));
        else
          snprintf(why, sizeof why, "the checker stopped on this record (exit status %d)", WEXITSTATUS(st));
        results[k] = failed_line(in->line[k], in->num[k], partial[k], why,
                                 WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM);
        done++;
        if (bar) progress(done, in->n);
        wk[w].next = k + nw;
        if (wk[w].next < in->n && !worker_start(o, in, &wk[w], nw)) ok = false;
      }
    }
  }
  for (int w = 0; w < nw; w++) free(wk[w].buf);
  for (long k = 0; k < in->n; k++) free(partial[k]);
  free(partial);
  free(wk);
  free(pf);
  return ok;
}

/* ------------------------------------------------------------ entry points */

static bool blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return false;
  return true;
}

int drv_eval(const DrvOptions *opts, const char *path) {
  /* `equal` is the paper's acceptance rule unless --tolerance says
     otherwise */
  DrvOptions eo = *opts;
  if (!eo.run.tolerance_given) eo.run.tolerance = CMP_REFERENCE;
  const DrvOptions *o = &eo;
  FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
  if (!f) {
    fprintf(stderr, "%s: error: cannot open: %s\n", path, strerror(errno));
    return 1;
  }
  Input in = {0};
  long cap = 0, lineno = 0;
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while ((len = getline(&line, &lcap, f)) > 0) {
    if (line[len - 1] == '\n') line[len - 1] = 0;
    if (blank(line)) continue;
    long k = lineno++;
    if (k % o->steps.shard_n != o->steps.shard_i) continue;
    if (in.n == cap) {
      cap = cap ? 2 * cap : 256;
      in.line = realloc(in.line, (size_t)cap * sizeof *in.line);
      in.num = realloc(in.num, (size_t)cap * sizeof *in.num);
    }
    in.line[in.n] = strdup(line);
    in.num[in.n++] = k;
  }
  free(line);
  if (f != stdin) fclose(f);
  int nw = o->eval.jobs > 0 ? o->eval.jobs : 1;
  char **results = calloc((size_t)(in.n ? in.n : 1), sizeof *results);
  int rc = 0;
  if (!results) {
    fprintf(stderr, "leirc: out of memory\n");
    rc = 2;
  } else if (!run_workers(o, &in, nw, results)) {
    fprintf(stderr, "leirc: --eval: cannot start the workers: %s\n", strerror(errno));
    rc = 2;
  }
  FILE *out = rc == 0 && o->output ? fopen(o->output, "w") : NULL;
  if (rc == 0 && o->output && !out) {
    fprintf(stderr, "%s: error: cannot write: %s\n", o->output, strerror(errno));
    rc = 1;
  }
  Summary s = {{strdup("overall"), 0, {0}, 0, 0}, NULL, NULL, 0, 0, {0, {0}}, {0, {0}}};
  for (long k = 0; rc == 0 && k < in.n; k++) {
    if (!results[k]) results[k] = failed_line(in.line[k], in.num[k], NULL, "no result", false);
    if (out) fprintf(out, "%s\n", results[k]);
    json_t *j = json_loads(results[k], 0, NULL);
    if (j) summary_add(&s, j);
    json_decref(j);
  }
  if (out && fclose(out)) rc = 1;
  if (rc == 0) summary_print(&s, o->run.json);
  summary_free(&s);
  for (long k = 0; k < in.n; k++) {
    free(in.line[k]);
    free(results[k]);
  }
  free(in.line);
  free(in.num);
  free(results);
  return rc;
}

int drv_eval_summary(const DrvOptions *o, int n, char *const *paths) {
  Summary s = {{strdup("overall"), 0, {0}, 0, 0}, NULL, NULL, 0, 0, {0, {0}}, {0, {0}}};
  int rc = 0;
  for (int i = 0; i < n; i++) {
    FILE *f = fopen(paths[i], "r");
    if (!f) {
      fprintf(stderr, "%s: error: cannot open: %s\n", paths[i], strerror(errno));
      rc = 1;
      continue;
    }
    char *line = NULL;
    size_t cap = 0;
    long ln = 0;
    while (getline(&line, &cap, f) > 0) {
      ln++;
      if (blank(line)) continue;
      json_t *j = json_loads(line, 0, NULL);
      if (!json_is_object(j)) {
        fprintf(stderr, "%s:%ld: error: not a result object\n", paths[i], ln);
        rc = 1;
      } else {
        summary_add(&s, j);
      }
      json_decref(j);
    }
    free(line);
    fclose(f);
  }
  if (rc == 0) summary_print(&s, o->run.json);
  summary_free(&s);
  return rc;
}
