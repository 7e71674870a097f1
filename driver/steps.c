/* steps.c -- `leirc --emit-steps=FILE.jsonl IN.leir...`: Step-TP step
 * records.  For every input program (after -O), every legal candidate of
 * every implemented strategy (the pass manager's enumeration, as
 * --list-applicable) is applied and checked in the interpreter against the
 * program before it, and one JSON line is written per step:
 *
 *   {"id", "source", "program", "before", "strategy", "level", "spelling",
 *    "after", "class", "verified", "verification", "rationale"}
 *
 * (schema and rules in man/leirc.1, STEP RECORDS).  The run is done in two
 * passes over the inputs: the first enumerates every program's candidates
 * and decides which become records (--balance, --sample, --shard), the
 * second re-enumerates each program that has records in this shard and
 * applies, checks and writes them.  All choices are functions of --seed,
 * the program's position on the command line and the candidate's position
 * in the enumeration, so every shard of a run agrees on them.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/driver.h"
#include "driver/steps_cache.h"
#include "driver/steps_format.h"

#include "interp/check.h"
#include "interp/interp.h"
#include "interp/data.h"
#include "interp/rng.h"
#include "ir/mathlib.h"
#include "passes/pass.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* A program's context is reloaded when its arena grows past this (each
 * applied step leaves its program in the arena). */
enum { STEPS_ARENA_LIMIT = 256 << 20 };

/* A worker's pool of tensor buffers keeps at most this many bytes between
 * two programs after a step (one program's buffers, taken by the next
 * of the same sizes, in the same input or the next one). */
#define STEPS_POOL_BYTES ((size_t)1 << 30)

/* A worker keeps at most this many bytes of random inputs for its later
 * programs (interp_random_inputs_cached: the befores of the corpus's
 * programs share many inputs, e.g. A f32[4096,512]). */
#define STEPS_INPUTS_BYTES ((size_t)256 << 20)

/* What the first pass keeps of one input. */
typedef struct StepInput {
  bool ok;          /* loaded and enumerated */
  int ncand;        /* legal candidates */
  int *strat;       /* their strategy (pass_table index), ncand entries */
  unsigned char *keep; /* selected as a record (before sharding) */
  long first_id;    /* id of its first record */
} StepInput;

/* One loaded program and its legal candidates. */
typedef struct Loaded {
  LeirCtx ctx;
  IrProgram *p;
  PtrVec legal; /* PassCand* in table order, then canonical order */
} Loaded;

/* LEIRC_STEPS_STATS: where one program's CPU time goes (user+sys and
 * minor page faults of this process, getrusage), one line per program on
 * the diagnostics stream (bench/steps_profile.sh). */
typedef struct StepsStats {
  bool on;
  double t0;       /* at the program's start */
  long f0;
  int records;     /* written or dropped: candidates of this shard checked */
  int memo;        /* verdicts taken from the memo (no run) */
  char before_eng; /* 'i' interpreter, 'j' host JIT, 'c' --steps-cache entry, '-' not run */
  double before_s; /* preparing the before: its inputs, its run or cache entry
                      (the entry's intermediates, read when a step needs
                      them, count with the after) */
  long before_f;
  int after_n[2];  /* programs after a step run: [0] interpreter, [1] host JIT */
  double after_s[2];
  long after_f[2];
} StepsStats;

static void stats_now(double *s, long *f) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  *s = (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
  *f = r.ru_minflt;
}

/* The interpreter state of the program before the steps. */
typedef struct Before {
  bool tried;
  const char *not_run; /* why the steps of this program are not checked */
  InterpProg *a;       /* ran on seed o->run.seed */
  bool jit;            /* ... by the host JIT (over the interpreter's budget) */
  bool tmps;           /* its intermediates hold their final values (run, or
                          taken from a --steps-cache entry that has them) */
  unsigned char *known; /* else by tensor id, those that do (taken from an
                           entry that kept some; in the arena) */
  StepsEntry entry;     /* the --steps-cache entry `a` came from: its
                           intermediates read when a step needs them */
  const int *weight;    /* per nest, the legal candidates of the program
                           (selected as records or not) that change it first:
                           which intermediates a --steps-cache entry keeps */
  InterpBufPool *pool; /* the buffers of the last program after a step (of this
                          input or an earlier one of this worker), for the next */
  InterpInputCache *inputs; /* the worker's random inputs */
  StepsStats *st;      /* NULL: no LEIRC_STEPS_STATS */
} Before;

/* ------------------------------------------------------------ diagnostics */

/* Captures diagnostics into memory while checking, so that a failing check
 * becomes the record's text instead of an error of the run. */
typedef struct Capture {
  FILE *saved, *mem;
  char *buf;
  size_t len;
  int nerrors, nwarnings;
  bool caret;
} Capture;

static void capture_begin(LeirCtx *ctx, Capture *c) {
  memset(c, 0, sizeof *c);
  c->saved = ctx->diag_out;
  c->nerrors = ctx->nerrors;
  c->nwarnings = ctx->nwarnings;
  c->caret = ctx->quiet_caret;
  c->mem = open_memstream(&c->buf, &c->len);
  ctx->diag_out = c->mem ? c->mem : c->saved;
  ctx->quiet_caret = true;
}

/* The first line of the first error captured (in the arena; "" if none),
 * without the `file: error: ` prefix. */
static const char *capture_end(LeirCtx *ctx, Capture *c) {
  if (c->mem) fclose(c->mem);
  ctx->diag_out = c->saved;
  ctx->nerrors = c->nerrors;
  ctx->nwarnings = c->nwarnings;
  ctx->quiet_caret = c->caret;
  const char *s = c->buf ? c->buf : "";
  const char *e = strstr(s, "error: ");
  if (e) s = e + 7;
  const char *nl = strchr(s, '\n');
  const char *msg = arena_strndup(&ctx->arena, s, nl ? (size_t)(nl - s) : strlen(s));
  free(c->buf);
  return msg;
}

/* ------------------------------------------------------------ loading */

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* --decls, else FILE.decls.json beside FILE.leir when it exists (in a). */
static const char *decls_for(Arena *a, const DrvOptions *o, const char *input) {
  if (o->decls) return o->decls;
  size_t n = strlen(input);
  if (n <= 5 || strcmp(input + n - 5, ".leir")) return NULL;
  char *side = arena_printf(a, "%.*s.decls.json", (int)(n - 5), input);
  return file_exists(side) ? side : NULL;
}

/* Loads input g, runs -O and enumerates its legal candidates; diagnostics
 * to diag (NULL: the context's default).  False after a diagnostic (the
 * context is then freed). */
static bool load(const DrvOptions *o, int g, Loaded *l, FILE *diag) {
  memset(l, 0, sizeof *l);
  leir_ctx_init(&l->ctx);
  if (diag) l->ctx.diag_out = diag;
  l->ctx.no_warnings = o->no_warnings;
  l->ctx.werror = o->werror;
  l->ctx.quiet_caret = o->no_caret;
  l->ctx.unsafe_math = o->unsafe_math;
  l->ctx.fp_contract = o->fp_contract;
  l->ctx.max_memory = o->run.max_memory;
  DrvOptions po = *o;
  po.input = o->steps.inputs[g];
  po.decls = decls_for(&l->ctx.arena, o, po.input);
  if (ir_read_source(&l->ctx, po.input)) {
    l->p = ir_load_program(&l->ctx, po.decls, NULL);
    if (l->p) l->p = drv_pass_run(&l->ctx, &po, l->p);
  }
  if (!l->p || l->ctx.nerrors) {
    leir_ctx_free(&l->ctx);
    return false;
  }
  for (int i = 0; i < pass_table_size; i++) pass_enumerate_legal(&l->ctx, l->p, &pass_table[i], &l->legal);
  return true;
}

/* ------------------------------------------------------------ selection */

static int strat_index(const PassInfo *pass) { return (int)(pass - pass_table); }

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* --balance: the median number of candidates per strategy over the
 * strategies that have any (the lower median). */
static long balance_median(const long *count) {
  long v[256];
  int n = 0;
  for (int s = 0; s < pass_table_size && n < 256; s++)
    if (count[s] > 0) v[n++] = count[s];
  if (!n) return 0;
  qsort(v, (size_t)n, sizeof v[0], cmp_long);
  return v[(n - 1) / 2];
}

/* Decides input g's records: --balance keeps a candidate of strategy s with
 * probability min(1, median / count[s]); --sample keeps K of the rest. */
static void select_records(const DrvOptions *o, int g, StepInput *in, const long *count, long median) {
  int kept = 0;
  for (int k = 0; k < in->ncand; k++) {
    in->keep[k] = 1;
    if (o->steps.balance && count[in->strat[k]] > median) {
      LeirRng r;
      rng_seed(&r, o->run.seed, ((uint64_t)g << 32) | (uint64_t)k);
      in->keep[k] = rng_uniform(&r) * (double)count[in->strat[k]] < (double)median;
    }
    kept += in->keep[k];
  }
  if (o->steps.sample <= 0 || kept <= o->steps.sample) return;
  /* a seeded partial Fisher-Yates over the kept candidates */
  int *idx = malloc((size_t)kept * sizeof *idx);
  if (!idx) return;
  int n = 0;
  for (int k = 0; k < in->ncand; k++)
    if (in->keep[k]) idx[n++] = k;
  LeirRng r;
  rng_seed(&r, o->run.seed, ((uint64_t)g << 32) | 0xFFFFFFFFu);
  for (int i = 0; i < o->steps.sample; i++) {
    int j = i + (int)(rng_next(&r) % (uint64_t)(n - i));
    int t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  for (int i = o->steps.sample; i < n; i++) in->keep[idx[i]] = 0;
  free(idx);
}

/* ------------------------------------------------------------ checking */

/* The engine that runs p (driver/verify.c): the interpreter within its
 * budget, the host JIT above it within --jit-max-steps; else *text says
 * why the run is not made. */
static DrvEngine engine_of(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p, const char *which,
                           const char **text) {
  uint64_t w = ir_program_execs(p);
  DrvEngine e = drv_engine_for(o, w);
  if (e == ENGINE_NONE)
    *text = arena_printf(&ctx->arena, "not run: the program %s the step needs %llu statement executions > limit %llu",
                         which, (unsigned long long)w, (unsigned long long)drv_verify_limit(o));
  return e;
}

static const char *engine_name(bool jit) { return jit ? "on the host JIT" : "in the interpreter"; }

static void before_prepare(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p, Before *bf) {
  double t0 = 0, t1;
  long f0 = 0, f1;
  if (bf->st) stats_now(&t0, &f0);
  bf->tried = true;
  DrvEngine e = engine_of(ctx, o, p, "before", &bf->not_run);
  if (e == ENGINE_NONE) return;
  bf->jit = e == ENGINE_JIT;
  InterpOptions ro = {false, bf->jit ? 0 : drv_interp_budget(o)};
  Capture cap;
  capture_begin(ctx, &cap);
  /* --steps-cache: the outputs of an earlier run of the same program on
     the same inputs by the same engine, else run it and keep them */
  StepsKey k = {0};
  const char *dir = o->steps.cache_dir;
  /* the key names the math routines' bits: an entry written by a leirc
     whose exp, log, erf or pow differ is not taken */
  char tag[80];
  if (dir)
    snprintf(tag, sizeof tag, "before; %s; math %016llx", bf->jit ? "host JIT" : "interpreter",
             (unsigned long long)leir_math_fingerprint());
  if (dir && !steps_key(&k, p, o->run.seed, tag, ctx->fp_contract, ctx->unsafe_math)) dir = NULL;
  /* its buffers unzeroed: the inputs (filled below), and its outputs and
     intermediates where what fills them does not read them first: an entry's
     bytes (the intermediates it does not hold are never read), the
     interpreter's run (it resets them) or drv_jit_runner_store's (it zeroes
     what its code does not write first); drv_jit_runner_zeroed's (no
     entry) needs them zero */
  unsigned char *dirty = malloc((size_t)p->ntensors + 1);
  for (int i = 0; dirty && i < p->ntensors; i++)
    dirty[i] = dir || !bf->jit || p->tensors[i]->role == ROLE_IN || p->tensors[i]->role == ROLE_PARAM;
  bf->a = interp_new_uninit(ctx, p, &ro, dirty, bf->pool->poison_dirty);
  free(dirty);
  bool ok = bf->a != NULL;
  if (ok) {
    interp_random_inputs_cached(bf->a, o->run.seed, NULL, bf->inputs);
    if (dir) bf->known = arena_alloc(&ctx->arena, (size_t)p->ntensors + 1);
    if (dir && bf->jit) drv_jit_cache_dir(ctx, dir); /* the kernels of its nests */
    bool hit = dir && steps_cache_open(dir, &k, bf->a, &bf->tmps, bf->known, &bf->entry);
    if (bf->st) bf->st->before_eng = hit ? 'c' : bf->jit ? 'j' : 'i';
    if (!hit) {
      bf->tmps = true;
      /* its fresh buffers are zero without a cache directory (else not
         zeroed, and a cache entry that did not fit may have been read into
         them) */
      ok = !bf->jit ? interp_run(bf->a) : dir ? drv_jit_runner_store(ctx, bf->a) : drv_jit_runner_zeroed(ctx, bf->a);
      if (ok && dir) {
        /* and the intermediates the programs after its steps are
           expected to start from (within a bound) */
        int n = interp_ntensors(bf->a);
        size_t *nb = malloc(((size_t)n + 1) * sizeof *nb);
        for (int i = 0; nb && i < n; i++) nb[i] = interp_buf(bf->a, i)->nbytes;
        unsigned char *keep = nb && bf->weight ? drv_incr_keep_tmps(p, bf->weight, nb, STEPS_CACHE_KEEP_BYTES) : NULL;
        steps_cache_store(dir, &k, bf->a, keep);
        free(keep);
        free(nb);
      }
    }
  }
  steps_key_free(&k);
  const char *msg = capture_end(ctx, &cap);
  if (!ok) {
    bf->not_run = arena_printf(&ctx->arena, "not run: the program before the step fails %s: %s",
                               engine_name(bf->jit), msg);
    if (bf->a) interp_free(bf->a);
    bf->a = NULL;
  }
  if (bf->st) {
    stats_now(&t1, &f1);
    bf->st->before_s += t1 - t0;
    bf->st->before_f += f1 - f0;
  }
}

/* Reads from bf's --steps-cache entry the intermediates of the before
 * that the after's run takes (drv_incr_load's or drv_incr_tail_load's)
 * or its tail's check compares, those not read yet.  False when one
 * cannot be read. */
static bool fetch_needed(Before *bf, const IrProgram *before, const IrProgram *after, const DrvIncr *inc,
                         const DrvTail *tail) {
  if (!bf->entry.open || (!inc->skip && !tail->skip)) return true;
  unsigned char *want = calloc((size_t)before->ntensors + 1, 1);
  if (!want) return false;
  for (int x = 0; x < after->ntensors; x++) {
    bool need = tail->skip ? tail->need[x] || tail->check[x] : inc->kept[x];
    const IrTensor *y = need ? ir_find_tensor(before, after->tensors[x]->name) : NULL;
    if (y) want[y->id] = 1;
  }
  bool ok = steps_cache_fetch(&bf->entry, bf->a, want);
  free(want);
  return ok;
}

static void mention_ref(IrExpr *e, void *user) {
  unsigned char *m = user;
  if (e->kind == E_REF && e->u.ref->tensor) m[e->u.ref->tensor->id] = 1;
}

static void mention_stmt(IrStmt *s, IrNest *n, void *user) {
  (void)n;
  IrExpr lhs = {.kind = E_REF};
  lhs.u.ref = s->lhs;
  ir_walk_expr(&lhs, mention_ref, user);
  ir_walk_expr(s->rhs, mention_ref, user);
}

/* By tensor id of p, the after's buffers that may come from the pool as
 * they are (see check_step): load marks those drv_incr_load or
 * drv_incr_tail_load copies from a's (NULL: none), every byte when a has
 * the tensor with the same dtype and shape; used (NULL: all) those that
 * the run or what follows it (a trailing check, the tail's run) may read:
 * an intermediate outside it is never read (kept or not: it is not
 * compared), so it need not be zero. */
static unsigned char *after_dirty_ok(const IrProgram *p, const unsigned char *kept, bool jit,
                                     const unsigned char *load, InterpProg *a, const unsigned char *used) {
  unsigned char *ok = jit ? drv_jit_dirty_ok(p, kept) : calloc((size_t)p->ntensors + 1, 1);
  for (int i = 0; ok && i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    IrRole r = t->role;
    if (r == ROLE_IN || r == ROLE_PARAM || (!jit && (r == ROLE_OUT || r == ROLE_TMP) && !(kept && kept[i])) ||
        (r == ROLE_TMP && used && !used[i]))
      ok[i] = 1;
    const InterpBuf *x = load && load[i] ? interp_find(a, t->name) : NULL;
    if (x && ir_tensor_same_type(x->t, t)) ok[i] = 1;
  }
  return ok;
}

/* Checks one step.  Returns 1 verified, 0 not checked (*text says why),
 * -1 the check failed (*text says how). */
static int check_step(LeirCtx *ctx, const DrvOptions *o, Before *bf, const IrProgram *before, const IrProgram *after,
                      PassClass cls, const char **text) {
  if (o->steps.no_verify) {
    *text = "not run: --no-verify";
    return 0;
  }
  if (!bf->tried) before_prepare(ctx, o, before, bf);
  if (bf->not_run) {
    *text = bf->not_run;
    return 0;
  }
  DrvEngine e = engine_of(ctx, o, after, "after", text);
  if (e == ENGINE_NONE) return 0;
  bool jit = e == ENGINE_JIT;
  double t0 = 0, t1;
  long f0 = 0, f1;
  if (bf->st) stats_now(&t0, &f0);
  Capture cap;
  capture_begin(ctx, &cap);
  int rc = -1;
  const char *what = NULL;
  InterpDiff d;
  InterpOptions ro = {false, jit ? 0 : drv_interp_budget(o)};
  InterpProg *b = NULL;
  bool same = interp_same_signature(ctx, before, after, "the program before it", "the program after it");
  /* the buffers of the last program after a step, reused where the sizes
     agree; those it does not take are freed (the memory in use stays that
     of the two programs) */
  /* the after from its first nest that differs from the before's, on
     the values the before's run left (driver/incr.c) */
  DrvIncr inc;
  drv_incr_plan_known(ctx, o, before, after, bf->tmps, bf->known, &inc);
  /* nor its trailing nests identical to the before's when what they read
     holds the before's bits after the run (else they run then, on the
     after's values): the before ran in full, or came from a --steps-cache
     entry (what the tail reads must then be known) */
  DrvTail tail;
  drv_incr_tail_known(ctx, o, before, after, bf->tmps, bf->known, &inc, &tail);
  if (!fetch_needed(bf, before, after, &inc, &tail)) {
    /* an intermediate could not be read: those not read are unknown */
    for (int i = 0; i < bf->entry.n; i++)
      if (bf->entry.off[i] >= 0) bf->known[i] = 0;
    bf->tmps = false;
    steps_cache_close(&bf->entry);
    drv_incr_plan_known(ctx, o, before, after, bf->tmps, bf->known, &inc);
    drv_incr_tail_known(ctx, o, before, after, bf->tmps, bf->known, &inc, &tail);
  }
  drv_incr_stats(&inc, after); /* the plan made */
  const IrProgram *runp = tail.skip ? tail.prog : inc.prog;
  const unsigned char *kept = tail.skip ? tail.keep : inc.skip ? inc.kept : NULL;
  /* for the host JIT, the buffers of what its code writes before reading
     are taken from the pool as they are, the rest zeroed (by the pool, or
     fresh pages), so that its runner zeroes nothing; for either engine,
     the inputs' (the before's are copied over them) and the tensors
     loaded from the before's values, and for the interpreter, those its
     run resets */
  const unsigned char *load = !inc.skip ? NULL : tail.skip ? tail.need : inc.kept;
  unsigned char *used = calloc((size_t)runp->ntensors + 1, 1);
  if (used) {
    ir_for_each_stmt((IrProgram *)runp, mention_stmt, used);
    for (int i = 0; tail.skip && i < runp->ntensors; i++) used[i] |= tail.ment[i] | tail.check[i];
  }
  unsigned char *dirty = same ? after_dirty_ok(runp, kept, jit, load, bf->a, used) : NULL;
  free(used);
  bf->pool->dirty_ok = dirty;
  if (same) b = interp_new_pooled(ctx, runp, &ro, bf->pool);
  bf->pool->dirty_ok = NULL;
  free(dirty);
  interp_pool_free(bf->pool);
  /* what the before's --steps-cache entry mapped is mapped into b too
     (the same pages, copy on write), not copied (the loads skip it) */
  for (int i = 0; b && load && bf->entry.open && i < runp->ntensors; i++) {
    InterpBuf *x = load[i] ? interp_find(bf->a, runp->tensors[i]->name) : NULL;
    if (x) steps_cache_share(&bf->entry, bf->a, x->t->id, b, i);
  }
  if (b && tail.skip) drv_incr_tail_load(&inc, &tail, bf->a, b);
  else if (b) drv_incr_load(&inc, bf->a, b);
  DrvTailRun tr = {.ctx = ctx, .run = jit ? drv_jit_runner_zeroed : NULL,
                   .rest = jit ? drv_jit_runner : NULL, .run_live = jit ? drv_jit_runner_zeroed_live : NULL,
                   .a = bf->a, .tail = &tail, .io = &ro,
                   .pool = bf->pool};
  if (!same)
    what = "the step changed the program's arguments";
  else if (!b)
    what = "the interpreter cannot compile the program after the step";
  else if (interp_compare_ran_with(bf->a, b, o->run.seed,
                                   cls == PASS_T ? (CmpTolerance)o->run.tolerance : CMP_EXACT,
                                   tail.skip ? drv_tail_runner : jit ? drv_jit_runner_zeroed_outputs : NULL,
                                   tail.skip ? (void *)&tr : ctx, &d) != 0)
    what = jit ? "the program after the step fails on the host JIT"
               : "the program after the step fails in the interpreter";
  else
    rc = d.verdict == CMP_DIFFER ? -1 : 1;
  if (b && tail.skip) drv_incr_tail_stats(&tail, tr.done, false, after);
  bool fused = false; /* --fp-contract=on: class T when only what fuses changed */
  if (rc < 0 && !what && cls == PASS_E) {
    InterpDiff f;
    if (drv_fused_step_check(ctx, o, before, after, o->run.tolerance, jit || bf->jit, NULL, &f) == 1) {
      d = f;
      fused = true;
      rc = d.verdict == CMP_DIFFER ? -1 : 1;
    }
  }
  const char *msg = capture_end(ctx, &cap);
  if (b) interp_free(b);
  if (bf->st) {
    stats_now(&t1, &f1);
    bf->st->after_n[jit]++;
    bf->st->after_s[jit] += t1 - t0;
    bf->st->after_f[jit] += f1 - f0;
  }
  if (what) {
    *text = arena_printf(&ctx->arena, "failed: %s: %s", what, msg);
    return -1;
  }
  if (rc < 0) {
    char at[256], dist[64];
    interp_format_coords(at, sizeof at, d.tensor, d.index);
    *text = arena_printf(&ctx->arena, "failed: class %s: output '%s' differs at %s (seed %llu): %s before, %s after (%s)",
                         fused ? "T" : pass_class_name(cls), d.tensor->name, at, (unsigned long long)d.seed, d.a_text,
                         d.b_text, interp_diff_distance(dist, sizeof dist, &d));
    return -1;
  }
  const char *by = "";
  if (jit || bf->jit) by = fused ? " (host JIT; bit-equal without --fp-contract)" : " (host JIT)";
  else if (fused) by = " (bit-equal without --fp-contract)";
  if (d.verdict == CMP_EQUAL)
    *text = arena_printf(&ctx->arena, "bit-equal on seed %llu%s", (unsigned long long)o->run.seed, by);
  else
    *text = arena_printf(&ctx->arena, "within the %s tolerance on seed %llu%s",
                         o->run.tolerance == CMP_REFERENCE ? "reference" : "class T", (unsigned long long)o->run.seed,
                         by);
  return 1;
}

/* check_step, once per distinct program after the step: a candidate whose
 * canonical text (and class, which sets the tolerance) equals an earlier
 * one's of the same program gets that one's verdict and text (its run
 * would repeat the same run on the same inputs). */
static int check_memo(LeirCtx *ctx, const DrvOptions *o, Before *bf, StepsMemo *memo, const IrProgram *before,
                      const IrProgram *after, PassClass cls, const char **text) {
  if (o->steps.no_verify) return check_step(ctx, o, bf, before, after, cls, text);
  StepsKey k;
  if (!steps_key(&k, after, o->run.seed, pass_class_name(cls), ctx->fp_contract, ctx->unsafe_math))
    return check_step(ctx, o, bf, before, after, cls, text);
  const StepsMemoEnt *e = steps_memo_find(memo, &k);
  if (e) {
    steps_key_free(&k);
    if (bf->st) bf->st->memo++;
    *text = arena_strdup(&ctx->arena, e->text);
    return e->verdict;
  }
  int v = check_step(ctx, o, bf, before, after, cls, text);
  steps_memo_add(memo, &k, v, *text);
  return v;
}

/* ------------------------------------------------------------ rationale */

static char *nest_text(const IrNest *n) {
  SBuf b = {0};
  ir_print_nest(&b, n);
  char *s = b.s ? strdup(b.s) : strdup("");
  sbuf_free(&b);
  return s;
}

/* The loops of a nest and its nested nests, pre-order: "L48:a P32:c". */
static void loops_text(SBuf *b, const IrNest *n) {
  for (int i = 0; i < n->nloops; i++)
    sbuf_printf(b, "%s%c%lld:%s", b->len ? " " : "", ir_loop_kind_char(n->loops[i]->kind),
                (long long)n->loops[i]->extent, n->loops[i]->index);
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) loops_text(b, n->items[i].u.nest);
}

static void collect_loops(const IrNest *n, PtrVec *out, LeirCtx *ctx) {
  for (int i = 0; i < n->nloops; i++) ptrvec_push(&ctx->arena, out, n->loops[i]);
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) collect_loops(n->items[i].u.nest, out, ctx);
}

static void collect_stmts(const IrNest *n, PtrVec *out, LeirCtx *ctx) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_STMT) ptrvec_push(&ctx->arena, out, n->items[i].u.stmt);
    else collect_stmts(n->items[i].u.nest, out, ctx);
}

static int loop_pos(const PtrVec *v, const char *index) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(((IrLoop *)v->v[i])->index, index)) return i;
  return -1;
}

static json_t *loop_json(const IrLoop *l) {
  char k[2] = {ir_loop_kind_char(l->kind), 0};
  json_t *j = json_object();
  json_object_set_new(j, "index", json_string(l->index));
  json_object_set_new(j, "kind", json_string(k));
  json_object_set_new(j, "extent", json_integer(l->extent));
  return j;
}

/* The loops of a changed nest pair: kind/extent changes by index name,
 * loops added and removed, and whether the common loops changed order. */
static json_t *nest_change(LeirCtx *ctx, int i, const IrNest *a, int j, const IrNest *b) {
  json_t *o = json_object();
  json_object_set_new(o, "before", json_integer(i));
  json_object_set_new(o, "after", json_integer(j));
  SBuf la = {0}, lb = {0};
  loops_text(&la, a);
  loops_text(&lb, b);
  json_object_set_new(o, "loops_before", json_string(la.s ? la.s : ""));
  json_object_set_new(o, "loops_after", json_string(lb.s ? lb.s : ""));
  sbuf_free(&la);
  sbuf_free(&lb);
  PtrVec va = {0}, vb = {0};
  collect_loops(a, &va, ctx);
  collect_loops(b, &vb, ctx);
  json_t *changed = json_array(), *added = json_array(), *removed = json_array();
  int last = -1;
  bool reordered = false;
  for (int x = 0; x < va.n; x++) {
    const IrLoop *l = va.v[x];
    int y = loop_pos(&vb, l->index);
    if (y < 0) {
      json_array_append_new(removed, loop_json(l));
      continue;
    }
    if (y < last) reordered = true;
    last = y;
    const IrLoop *m = vb.v[y];
    if (m->kind != l->kind || m->extent != l->extent) {
      json_t *c = json_object();
      char k1[2] = {ir_loop_kind_char(l->kind), 0}, k2[2] = {ir_loop_kind_char(m->kind), 0};
      json_object_set_new(c, "index", json_string(l->index));
      json_object_set_new(c, "from", json_string(arena_printf(&ctx->arena, "%s%lld", k1, (long long)l->extent)));
      json_object_set_new(c, "to", json_string(arena_printf(&ctx->arena, "%s%lld", k2, (long long)m->extent)));
      json_array_append_new(changed, c);
    }
  }
  for (int y = 0; y < vb.n; y++)
    if (loop_pos(&va, ((IrLoop *)vb.v[y])->index) < 0) json_array_append_new(added, loop_json(vb.v[y]));
  json_object_set_new(o, "loops_changed", changed);
  json_object_set_new(o, "loops_added", added);
  json_object_set_new(o, "loops_removed", removed);
  json_object_set_new(o, "loops_reordered", json_boolean(reordered));
  return o;
}

static json_t *tensor_json(const IrTensor *t) {
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(t->name));
  json_object_set_new(o, "role", json_string(ir_role_name(t->role)));
  json_object_set_new(o, "dtype", json_string(ir_dtype_name(t->dtype)));
  json_t *sh = json_array();
  for (int d = 0; d < t->rank; d++) json_array_append_new(sh, json_integer(t->shape[d]));
  json_object_set_new(o, "shape", sh);
  json_object_set_new(o, "scope", json_string(t->scope >= 0 ? ir_scope_name(t->scope) : "none"));
  return o;
}

static bool tensor_same(const IrTensor *a, const IrTensor *b) {
  return a->scope == b->scope && a->role == b->role && ir_tensor_same_type(a, b);
}

/* Multiset difference of statement texts: how many of `a` have no partner
 * in `b`. */
static int unmatched(char **a, int na, char **b, int nb) {
  unsigned char *used = calloc((size_t)nb + 1, 1);
  int n = 0;
  for (int i = 0; i < na; i++) {
    int j = 0;
    while (j < nb && (used[j] || strcmp(a[i], b[j]))) j++;
    if (j < nb) used[j] = 1;
    else n++;
  }
  free(used);
  return n;
}

static char **stmt_texts(LeirCtx *ctx, const IrProgram *p, int *n) {
  PtrVec v = {0};
  for (int i = 0; i < p->nnests; i++) collect_stmts(p->nests[i], &v, ctx);
  char **t = arena_alloc(&ctx->arena, sizeof *t * (size_t)(v.n + 1));
  for (int i = 0; i < v.n; i++) {
    SBuf b = {0};
    ir_print_stmt(&b, v.v[i]);
    t[i] = arena_strdup(&ctx->arena, b.s ? b.s : "");
    sbuf_free(&b);
  }
  *n = v.n;
  return t;
}

/* Pairs the unmatched nests [i0,i1) of p with [j0,j1) of q: each nest of p,
 * in order, with the first unpaired nest of q that has the same loops, else
 * the first unpaired one; what is left over was removed or added. */
static void pair_gap(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, int i0, int i1, int j0, int j1,
                     json_t *changed, json_t *added, json_t *removed) {
  int nb = j1 - j0;
  char **lb = calloc((size_t)nb + 1, sizeof *lb);
  int *used = calloc((size_t)nb + 1, sizeof *used), *mate = calloc((size_t)(i1 - i0) + 1, sizeof *mate);
  if (!lb || !used || !mate) goto out;
  for (int j = 0; j < nb; j++) {
    SBuf b = {0};
    loops_text(&b, q->nests[j0 + j]);
    lb[j] = b.s ? b.s : calloc(1, 1);
  }
  for (int i = i0; i < i1; i++) {
    SBuf b = {0};
    loops_text(&b, p->nests[i]);
    int pick = -1;
    for (int j = 0; j < nb && pick < 0; j++)
      if (!used[j] && !strcmp(lb[j], b.s ? b.s : "")) pick = j;
    for (int j = 0; j < nb && pick < 0; j++)
      if (!used[j]) pick = j;
    sbuf_free(&b);
    mate[i - i0] = pick;
    if (pick >= 0) used[pick] = 1;
  }
  for (int i = i0; i < i1; i++)
    if (mate[i - i0] >= 0)
      json_array_append_new(changed, nest_change(ctx, i, p->nests[i], j0 + mate[i - i0], q->nests[j0 + mate[i - i0]]));
    else
      json_array_append_new(removed, json_integer(i));
  for (int j = 0; j < nb; j++)
    if (!used[j]) json_array_append_new(added, json_integer(j0 + j));
out:
  for (int j = 0; lb && j < nb; j++) free(lb[j]);
  free(lb);
  free(used);
  free(mate);
}

/* The IR-to-IR state transition: top-level nests matched by their text
 * (longest common subsequence); unmatched nests between two matched ones
 * pair up as "changed" (pair_gap), the rest are added or removed. */
static json_t *transition(LeirCtx *ctx, const IrProgram *p, const IrProgram *q) {
  int na = p->nnests, nb = q->nnests;
  char **ta = calloc((size_t)na + 1, sizeof *ta), **tb = calloc((size_t)nb + 1, sizeof *tb);
  int *L = calloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *L);
  json_t *o = json_object();
  if (!ta || !tb || !L) goto out;
  for (int i = 0; i < na; i++) ta[i] = nest_text(p->nests[i]);
  for (int j = 0; j < nb; j++) tb[j] = nest_text(q->nests[j]);
#define LCS(i, j) L[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
  for (int i = na - 1; i >= 0; i--)
    for (int j = nb - 1; j >= 0; j--)
      LCS(i, j) = !strcmp(ta[i], tb[j]) ? LCS(i + 1, j + 1) + 1
                  : LCS(i + 1, j) >= LCS(i, j + 1) ? LCS(i + 1, j) : LCS(i, j + 1);
  json_t *nests = json_object(), *changed = json_array(), *added = json_array(), *removed = json_array();
  json_object_set_new(nests, "before", json_integer(na));
  json_object_set_new(nests, "after", json_integer(nb));
  json_object_set_new(nests, "unchanged", json_integer(LCS(0, 0)));
  int i = 0, j = 0;
  while (i < na || j < nb) {
    if (i < na && j < nb && !strcmp(ta[i], tb[j])) {
      i++, j++;
      continue;
    }
    /* the gap up to the next matched pair */
    int i2 = i, j2 = j;
    while (i2 < na || j2 < nb) {
      if (i2 < na && j2 < nb && !strcmp(ta[i2], tb[j2]) && LCS(i2, j2) == LCS(i, j)) break;
      if (j2 < nb && (i2 >= na || LCS(i2, j2 + 1) >= LCS(i2 + 1, j2))) j2++;
      else i2++;
    }
    pair_gap(ctx, p, q, i, i2, j, j2, changed, added, removed);
    i = i2;
    j = j2;
  }
#undef LCS
  json_object_set_new(nests, "changed", changed);
  json_object_set_new(nests, "added", added);
  json_object_set_new(nests, "removed", removed);
  json_object_set_new(o, "nests", nests);

  json_t *tens = json_object(), *tadd = json_array(), *trem = json_array(), *tchg = json_array();
  for (int k = 0; k < q->ntensors; k++) {
    const IrTensor *t = q->tensors[k], *s = ir_find_tensor(p, t->name);
    if (!s) json_array_append_new(tadd, tensor_json(t));
    else if (!tensor_same(s, t)) {
      json_t *c = json_object();
      json_object_set_new(c, "from", tensor_json(s));
      json_object_set_new(c, "to", tensor_json(t));
      json_array_append_new(tchg, c);
    }
  }
  for (int k = 0; k < p->ntensors; k++)
    if (!ir_find_tensor(q, p->tensors[k]->name)) json_array_append_new(trem, tensor_json(p->tensors[k]));
  json_object_set_new(tens, "added", tadd);
  json_object_set_new(tens, "removed", trem);
  json_object_set_new(tens, "changed", tchg);
  json_object_set_new(o, "tensors", tens);

  int sa, sb;
  char **xa = stmt_texts(ctx, p, &sa), **xb = stmt_texts(ctx, q, &sb);
  json_t *st = json_object();
  json_object_set_new(st, "before", json_integer(sa));
  json_object_set_new(st, "after", json_integer(sb));
  json_object_set_new(st, "removed", json_integer(unmatched(xa, sa, xb, sb)));
  json_object_set_new(st, "added", json_integer(unmatched(xb, sb, xa, sa)));
  json_object_set_new(o, "statements", st);
out:
  for (int k = 0; ta && k < na; k++) free(ta[k]);
  for (int k = 0; tb && k < nb; k++) free(tb[k]);
  free(ta);
  free(tb);
  free(L);
  return o;
}

static bool find_site(const IrNest *n, IrLoc at, json_t *site) {
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i]->loc.line == at.line && n->loops[i]->loc.col == at.col) {
      json_object_set_new(site, "loop", loop_json(n->loops[i]));
      return true;
    }
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (find_site(n->items[i].u.nest, at, site)) return true;
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    if (s->loc.line == at.line && s->loc.col == at.col) {
      SBuf b = {0};
      ir_print_stmt(&b, s);
      json_t *j = json_object();
      json_object_set_new(j, "id", json_integer(s->id));
      json_object_set_new(j, "text", json_string(b.s ? b.s : ""));
      sbuf_free(&b);
      json_object_set_new(site, "statement", j);
      return true;
    }
  }
  return false;
}

static json_t *rationale(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, const PassCand *c) {
  json_t *r = json_object();
  json_object_set_new(r, "precondition",
                      json_string(c->why ? c->why : "the strategy's check found every precondition satisfied"));
  json_t *site = json_object();
  json_object_set_new(site, "nest", json_integer(c->nest));
  json_object_set_new(site, "line", json_integer(c->site.line));
  json_object_set_new(site, "col", json_integer(c->site.col));
  if (c->site.line > 0)
    for (int i = 0; i < p->nnests; i++)
      if (find_site(p->nests[i], c->site, site)) break;
  json_object_set_new(r, "site", site);
  json_t *ch = json_object(), *params = json_object();
  json_object_set_new(ch, "summary", json_string(c->pass->summary ? c->pass->summary : ""));
  for (int i = 0; i < c->nparams; i++) json_object_set_new(params, c->params[i].key, json_string(c->params[i].val));
  json_object_set_new(ch, "parameters", params);
  if (c->note) json_object_set_new(ch, "note", json_string(c->note));
  json_object_set_new(r, "change", ch);
  json_object_set_new(r, "transition", transition(ctx, p, q));
  return r;
}

/* ------------------------------------------------------------ records */

static char *body_text(LeirCtx *ctx, const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

static bool write_record(FILE *f, LeirCtx *ctx, long id, const char *source, int g, const char *before,
                         const IrProgram *p, const IrProgram *q, const PassCand *c, bool verified,
                         const char *verification) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_integer(id));
  json_object_set_new(o, "source", json_string(source));
  json_object_set_new(o, "program", json_integer(g));
  json_object_set_new(o, "before", json_string(before));
  json_object_set_new(o, "strategy", json_string(c->pass->name));
  json_object_set_new(o, "level", json_string(pass_level_name(c->pass->level)));
  json_object_set_new(o, "spelling", json_string(pass_cand_spelling(ctx, c)));
  json_object_set_new(o, "after", json_string(body_text(ctx, q)));
  json_object_set_new(o, "class", json_string(pass_class_name(c->cls)));
  json_object_set_new(o, "verified", json_boolean(verified));
  json_object_set_new(o, "verification", json_string(verification));
  json_object_set_new(o, "rationale", rationale(ctx, p, q, c));
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (!s) return false;
  bool ok = fputs(s, f) >= 0 && fputc('\n', f) != EOF;
  free(s);
  return ok;
}

/* --format=steptp|chat: the records of the other formats (steps_format.c). */
static bool write_json(FILE *f, json_t *o) {
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (!s) return false;
  bool ok = fputs(s, f) >= 0 && fputc('\n', f) != EOF;
  free(s);
  return ok;
}

/* ------------------------------------------------------------ the run */

bool drv_parse_shard(const char *s, int *i, int *n) {
  char *end;
  errno = 0;
  if (*s < '0' || *s > '9') return false;
  long a = strtol(s, &end, 10);
  if (errno || *end != '/' || end[1] < '0' || end[1] > '9') return false;
  long b = strtol(end + 1, &end, 10);
  if (errno || *end || b < 1 || b > 1000000 || a >= b) return false;
  *i = (int)a;
  *n = (int)b;
  return true;
}

/* Per top-level nest of l's program, how many of its legal candidates
 * have their site at that nest, the first a program after the step is
 * expected to differ at (in the arena; NULL when the counts do not match
 * the first pass).  Every candidate, not only those --sample, --balance
 * and --seed keep as records: the --steps-cache entry these weights shape
 * (the intermediates it keeps) has a key that does not name the
 * selection, so it must not depend on it -- an entry written by a sampled
 * run (bench/steps_vs_old.sh's fill: --sample=1) or by any shard serves a
 * run of every record as well as one that run would write. */
static const int *nest_weights(Loaded *l, const StepInput *in) {
  if (l->legal.n != in->ncand) return NULL;
  int *w = arena_alloc(&l->ctx.arena, ((size_t)l->p->nnests + 1) * sizeof *w);
  memset(w, 0, ((size_t)l->p->nnests + 1) * sizeof *w);
  for (int k = 0; k < in->ncand; k++) {
    const PassCand *c = l->legal.v[k];
    if (c->nest >= 0 && c->nest < l->p->nnests) w[c->nest]++;
  }
  return w;
}

/* The second pass over input g: applies, checks and writes its records of
 * this shard.  Returns false after an error (the output failed). */
static bool emit_program(const DrvOptions *o, int g, const StepInput *in, FILE *f, FILE *diag, bool *bad_input,
                         InterpBufPool *pool, InterpInputCache *inputs) {
  const DrvStepsOptions *so = &o->steps;
  Loaded l;
  DrvOptions quiet = *o; /* the first pass showed the program's warnings */
  quiet.no_warnings = true;
  if (!load(&quiet, g, &l, diag)) {
    *bad_input = true;
    return true;
  }
  l.ctx.no_warnings = o->no_warnings;
  bool ok = true;
  StepsStats st = {.on = getenv("LEIRC_STEPS_STATS") != NULL, .before_eng = '-'};
  if (st.on) stats_now(&st.t0, &st.f0);
  Before bf = {.st = st.on ? &st : NULL, .pool = pool, .inputs = inputs, .weight = nest_weights(&l, in)};
  StepsMemo memo = {0}; /* the verdicts by the after's canonical text */
  if (l.legal.n != in->ncand) {
    diag_error(&l.ctx, (IrLoc){0, 0}, "internal error: the program has %d candidates now, %d before", l.legal.n,
               in->ncand);
    *bad_input = true;
    goto done;
  }
  const char *source = so->inputs[g];
  char *before = body_text(&l.ctx, l.p);
  long id = in->first_id, first_rid = -1;
  json_t *label = so->format == STEPS_STEPTP ? json_array() : NULL;
  for (int k = 0; k < in->ncand && ok; k++) {
    if (!in->keep[k]) continue;
    long rid = id++;
    if (rid % so->shard_n != so->shard_i) continue;
    if (l.ctx.arena.total > (size_t)STEPS_ARENA_LIMIT) { /* start afresh */
      if (bf.a) interp_free(bf.a);
      steps_cache_close(&bf.entry);
      bf = (Before){.st = st.on ? &st : NULL, .pool = pool, .inputs = inputs};
      leir_ctx_free(&l.ctx);
      if (!load(&quiet, g, &l, diag)) {
        *bad_input = true;
        return true;
      }
      bf.weight = nest_weights(&l, in);
      if (l.legal.n != in->ncand) {
        diag_error(&l.ctx, (IrLoc){0, 0}, "internal error: the program has %d candidates now, %d before",
                   l.legal.n, in->ncand);
        *bad_input = true;
        goto done;
      }
      l.ctx.no_warnings = o->no_warnings;
      before = body_text(&l.ctx, l.p);
    }
    PassCand *c = l.legal.v[k];
    const char *why = NULL;
    IrProgram *q = pass_apply(&l.ctx, l.p, c, &why);
    if (!q) {
      diag_warn(&l.ctx, c->site, "%s: %s; no record written", c->pass->name, why);
      continue;
    }
    const char *text = NULL;
    st.records++;
    int v = check_memo(&l.ctx, o, &bf, &memo, l.p, q, c->cls, &text);
    if (v < 0 && !so->keep_unverified) {
      diag_warn(&l.ctx, c->site, "step '%s' %s; no record written", pass_cand_spelling(&l.ctx, c), text);
      continue;
    }
    if (so->format == STEPS_RECORDS) {
      if (!write_record(f, &l.ctx, rid, source, g, before, l.p, q, c, v > 0, text)) ok = false;
      continue;
    }
    /* the training formats hold verified steps (any step with --no-verify
       or --keep-unverified) */
    if (v <= 0 && !so->no_verify && !so->keep_unverified) continue;
    const char *cot = steps_cot(&l.ctx, l.p, q, c), *after = body_text(&l.ctx, q);
    if (so->format == STEPS_CHAT) {
      if (!write_json(f, steps_chat_record(&l.ctx, rid, before, c->pass->name, after, cot))) ok = false;
    } else {
      if (first_rid < 0) first_rid = rid;
      json_array_append_new(label, steps_label_entry(c->pass->name, after, cot));
    }
  }
  if (label && ok && json_array_size(label) > 0) {
    ok = write_json(f, steps_steptp_record(first_rid, source, g, before, label));
    label = NULL;
  }
  json_decref(label);
done:
  if (bf.a) interp_free(bf.a);
  steps_cache_close(&bf.entry);
  steps_memo_free(&memo);
  if (st.on) {
    double t1;
    long f1;
    stats_now(&t1, &f1);
    fprintf(diag ? diag : stderr,
            "steps-stats %s records %d memo %d before %c %.3f %ld interp %d %.3f %ld jit %d %.3f %ld total %.3f %ld\n",
            so->inputs[g], st.records, st.memo, st.before_eng, st.before_s, st.before_f, st.after_n[0], st.after_s[0],
            st.after_f[0], st.after_n[1], st.after_s[1], st.after_f[1], t1 - st.t0, f1 - st.f0);
  }
  if (l.ctx.nerrors) *bad_input = true;
  leir_ctx_free(&l.ctx);
  return ok;
}

/* --steps-cache: the first pass of input g from DIR/enum (the diagnostics
 * of its load printed again, count updated); else false, with *k the key
 * to store it under (k->text NULL: not cached -- no cache, an -O pipeline,
 * no build ID, a file that cannot be read). */
static bool first_pass_cached(const DrvOptions *o, int g, StepInput *in, long *count, StepsKey *k) {
  memset(k, 0, sizeof *k);
  if (!o->steps.cache_dir || o->passes.pipeline) return false;
  const char *input = o->steps.inputs[g];
  Arena names = {0};
  const char *decls = decls_for(&names, o, input); /* as load finds them */
  char opts[256];
  snprintf(opts, sizeof opts, "no-warnings %d; werror %d; no-caret %d; unsafe-math %d; fp-contract %d; max-memory %llu",
           o->no_warnings, o->werror, o->no_caret, o->unsafe_math, o->fp_contract,
           (unsigned long long)o->run.max_memory);
  bool keyed = steps_enum_key(k, pass_table, input, decls, opts);
  arena_free_all(&names);
  int nc = 0, *strat = NULL;
  char *diag = NULL;
  if (!keyed || !steps_enum_load(o->steps.cache_dir, k, &nc, &strat, &diag)) return false;
  bool ok = true;
  for (int c = 0; c < nc; c++) ok = ok && strat[c] >= 0 && strat[c] < pass_table_size;
  unsigned char *keep = ok ? calloc((size_t)nc + 1, 1) : NULL;
  if (!keep) {
    free(strat);
    free(diag);
    return false;
  }
  fputs(diag, stderr);
  free(diag);
  steps_key_free(k);
  in->ok = true;
  in->ncand = nc;
  in->strat = strat;
  in->keep = keep;
  for (int c = 0; c < nc; c++) count[strat[c]]++;
  return true;
}

/* -j N: one program of the shard per item (driver/jobs.c). */
typedef struct EmitJob {
  const DrvOptions *o;
  const StepInput *in;
  const int *mine; /* the programs with records in this shard */
  InterpBufPool *pool; /* each worker's own after the fork */
  InterpInputCache *inputs; /* likewise */
} EmitJob;
enum { JOB_BAD_INPUT = 1, JOB_WRITE_FAILED = 2 };

static int emit_job(void *arg, long i, FILE *out, FILE *diag) {
  const EmitJob *j = arg;
  bool bad = false;
  int g = j->mine[i];
  bool ok = emit_program(j->o, g, &j->in[g], out, diag, &bad, j->pool, j->inputs);
  return (bad ? JOB_BAD_INPUT : 0) | (ok ? 0 : JOB_WRITE_FAILED);
}

int drv_emit_steps(const DrvOptions *o) {
  const DrvStepsOptions *so = &o->steps;
  int n = so->ninputs;
  for (int g = 0; g < n; g++)
    if (!strcmp(so->inputs[g], "-")) {
      fprintf(stderr, "leirc: --emit-steps reads every input twice and cannot take '-' (standard input)\n"
                      "Try 'leirc --help' for more information.\n");
      return 2;
    }
  struct stat st;
  if (so->cache_dir && (stat(so->cache_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
    fprintf(stderr, "leirc: --steps-cache: '%s' is not a directory\n", so->cache_dir);
    return 2;
  }
  StepInput *in = calloc((size_t)n + 1, sizeof *in);
  long *count = calloc((size_t)pass_table_size, sizeof *count);
  if (!in || !count) {
    free(in);
    free(count);
    fprintf(stderr, "leirc: out of memory\n");
    return 2;
  }
  bool bad_input = false;
  /* first pass: the candidates of every program (with --steps-cache, from
     its entry when it has one) */
  for (int g = 0; g < n; g++) {
    StepsKey ek = {0};
    if (first_pass_cached(o, g, &in[g], count, &ek)) continue;
    Loaded l;
    char *dbuf = NULL;
    size_t dlen = 0;
    FILE *mem = ek.text ? open_memstream(&dbuf, &dlen) : NULL;
    bool ok = load(o, g, &l, mem);
    if (mem) { /* its diagnostics, printed as they would have been */
      fclose(mem);
      fputs(dbuf, stderr);
    }
    if (!ok) {
      free(dbuf);
      steps_key_free(&ek);
      bad_input = true;
      continue;
    }
    in[g].ok = true;
    in[g].ncand = l.legal.n;
    in[g].strat = malloc(sizeof(int) * (size_t)(l.legal.n + 1));
    in[g].keep = calloc((size_t)l.legal.n + 1, 1);
    for (int k = 0; in[g].strat && k < l.legal.n; k++) {
      in[g].strat[k] = strat_index(((PassCand *)l.legal.v[k])->pass);
      count[in[g].strat[k]]++;
    }
    bool clean = !l.ctx.nerrors; /* (load failed otherwise) */
    leir_ctx_free(&l.ctx);
    if (!in[g].strat || !in[g].keep) {
      fprintf(stderr, "leirc: out of memory\n");
      return 2;
    }
    if (mem && dbuf && clean) steps_enum_store(o->steps.cache_dir, &ek, in[g].ncand, in[g].strat, dbuf);
    free(dbuf);
    steps_key_free(&ek);
  }
  long median = balance_median(count), next_id = 0;
  for (int g = 0; g < n; g++) {
    in[g].first_id = next_id;
    if (!in[g].ok) continue;
    select_records(o, g, &in[g], count, median);
    for (int k = 0; k < in[g].ncand; k++) next_id += in[g].keep[k];
  }
  /* second pass: the records of this shard */
  LeirCtx octx;
  leir_ctx_init(&octx);
  int rc = 0;
  FILE *f = drv_open_output(&octx, so->path);
  if (!f) rc = 2;
  int *mine = calloc((size_t)n + 1, sizeof *mine), nmine = 0;
  for (int g = 0; g < n && mine; g++) {
    long id = in[g].first_id;
    for (int k = 0; in[g].ok && k < in[g].ncand; k++)
      if (in[g].keep[k] && id++ % so->shard_n == so->shard_i) {
        mine[nmine++] = g;
        break;
      }
  }
  if (!mine) rc = 2;
  /* LEIRC_POOL_POISON (a check): what the pool hands out unzeroed is
     poisoned first (the records must not change) */
  InterpBufPool pool = {.max_bytes = STEPS_POOL_BYTES, .poison_dirty = getenv("LEIRC_POOL_POISON") != NULL};
  InterpInputCache inputs = {.max_bytes = STEPS_INPUTS_BYTES};
  if (f && mine && o->eval.jobs > 1) {
    EmitJob job = {o, in, mine, &pool, &inputs};
    char err[256];
    int flags = 0;
    if (!drv_jobs_run(nmine, o->eval.jobs, emit_job, &job, f, stderr, &flags, err, sizeof err)) {
      octx.src.name = so->path;
      diag_error(&octx, (IrLoc){0, 0}, "%s", err);
      rc = 2;
    }
    if (flags & JOB_BAD_INPUT) bad_input = true;
    if (flags & JOB_WRITE_FAILED) {
      octx.src.name = so->path;
      diag_error(&octx, (IrLoc){0, 0}, "cannot write: out of memory");
      rc = 2;
    }
  }
  for (int m = 0; f && mine && o->eval.jobs <= 1 && m < nmine; m++) {
    if (!emit_program(o, mine[m], &in[mine[m]], f, NULL, &bad_input, &pool, &inputs)) {
      octx.src.name = so->path;
      diag_error(&octx, (IrLoc){0, 0}, "cannot write: %s", strerror(errno));
      rc = 2;
      break;
    }
  }
  free(mine);
  interp_pool_free(&pool);
  interp_input_cache_free(&inputs);
  if (f && !drv_close_output(&octx, f, so->path)) rc = 2;
  if (!rc && bad_input) rc = 1;
  leir_ctx_free(&octx);
  for (int g = 0; g < n; g++) {
    free(in[g].strat);
    free(in[g].keep);
  }
  free(in);
  free(count);
  return rc;
}
