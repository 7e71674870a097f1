/* stepcheck_test.c -- passes/stepcheck.c (leirc --check-step) on the
 * corpus transforms (../shared/corpus/transforms.jsonl.gz) and on
 * deliberately damaged afters.
 *
 * test_reference: every record's `after` is checked against its `before`
 * with the record's strategy; the verdict counts and the median and 90th
 * percentile time per record are printed.  Asserted: no crash, the median
 * under 20 ms, and every legal verdict agrees with the interpreter when the
 * programs are small enough to run.  LEIR_STEPCHECK_EVERY=N checks every
 * N-th record only (default 4; 1: all, the measurement of issue 40).
 * LEIR_STEPCHECK_SHARE=M also measures the legal share among the afters
 * (pairs within M*10^6 statement executions, those over 10^6 run on the
 * host JIT) that --compare --tolerance=reference finds equal or close,
 * value splits with --unsafe-math (issue 62).  An after judged "unchanged
 * up to spelling" (the exact respellings of passes/stepcheck.c) must be
 * bit-identical to its before when run (asserted).
 *
 * test_unsafe_math: the same for the value splits (additive_split,
 * exponential_split, multiplicative_split) with --unsafe-math, damaged
 * too: a legal verdict that needs the flag and differs when run must say
 * so ("running differs"), and no damaged after is legal.
 *
 * test_damaged: each record's `after` (or, without the corpus, each step
 * of the examples/ programs) is damaged in four ways -- two subscript items
 * swapped, a constant changed, a term dropped, a loop extent changed --
 * and none of them may be judged legal (LEIR_STEPCHECK_DAMAGE_EVERY=N:
 * every N-th record, default 25).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "codegen/codegen.h"
#include "interp/check.h"
#include "ir/ir.h"
#include "ir/readfile.h"
#include "passes/pass.h"
#include "passes/stepcheck.h"
#include "testsuite/corpus_walk.h"

static char corpus[4096];
static char examples[4096];

static int setup(void **state) {
  (void)state;
  const char *top = getenv("top_srcdir");
  corpus_dir(corpus, sizeof corpus, "."); /* $LEIR_CORPUS (make distcheck) */
  snprintf(examples, sizeof examples, "%s/examples", top ? top : ".");
  return 0;
}

static bool have_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Parses and analyses `text` (declarations from the sidecar `decls`, may
 * be NULL) in ctx, diagnostics to `diag`. */
static IrProgram *load(LeirCtx *ctx, const char *text, const char *decls, FILE *diag) {
  leir_ctx_init(ctx);
  ctx->diag_out = diag;
  ctx->no_warnings = true;
  leir_ctx_set_source(ctx, "before", text, strlen(text));
  IrProgram *p = ps_parse(ctx);
  if (!p) return NULL;
  IrDeclList side = {0};
  if (decls && !ir_decls_load_json(ctx, decls, &side)) return NULL;
  if (!ir_sema(ctx, p, decls ? &side : NULL)) return NULL;
  return p;
}

/* a and b agree under the reference's acceptance rule on seed 0. */
static bool reference_close(LeirCtx *ctx, const IrProgram *a, const IrProgram *b) {
  InterpOptions ro = {false, 0};
  InterpProg *x = interp_new(ctx, a, &ro), *y = x ? interp_new(ctx, b, &ro) : NULL;
  bool ok = false;
  if (x && y) {
    InterpCompareOpts co = {1, 0, CMP_REFERENCE, ro, 0, NULL, NULL, NULL};
    InterpDiff d;
    ok = interp_compare_progs(x, y, &co, &d) == 0 && d.verdict != CMP_DIFFER;
  }
  if (x) interp_free(x);
  if (y) interp_free(y);
  return ok;
}

/* The host JIT as an InterpRunner (bit-identical to the interpreter). */
static bool jit_run(void *ctx, InterpProg *ip) { return cg_run_host_interp(ctx, ip); }

/* a and b agree under the reference's acceptance rule on seed 0, run on
 * the host JIT (larger pairs). */
static bool reference_close_jit(LeirCtx *ctx, const IrProgram *a, const IrProgram *b) {
  InterpDiff d;
  FILE *saved = ctx->diag_out;
  bool ok = interp_compare_run_by(ctx, a, b, 0, CMP_REFERENCE, jit_run, ctx, &d) == 0 && d.verdict != CMP_DIFFER;
  ctx->diag_out = saved;
  return ok;
}

/* ------------------------------------------------------------ damage */

typedef enum Damage { DMG_SWAP, DMG_CONST, DMG_DROP, DMG_EXTENT, DMG__COUNT } Damage;
static const char *const damage_name[] = {"swapped subscript", "changed constant", "dropped term", "wrong extent"};

typedef struct DamageWalk {
  Damage kind;
  bool done;
  bool in_sub; /* inside a subscript */
} DamageWalk;

static void dmg_expr(DamageWalk *w, IrExpr *e);

static bool swap_ok(const IrRef *r) {
  if (r->nsub < 2) return false;
  SBuf a = {0}, b = {0};
  ir_print_expr(&a, r->sub[0]);
  ir_print_expr(&b, r->sub[1]);
  bool differ = strcmp(a.s, b.s) != 0;
  sbuf_free(&a);
  sbuf_free(&b);
  return differ;
}

static void dmg_ref(DamageWalk *w, IrRef *r) {
  if (w->done) return;
  if (w->kind == DMG_SWAP && swap_ok(r)) {
    IrExpr *t = r->sub[0];
    r->sub[0] = r->sub[1];
    r->sub[1] = t;
    w->done = true;
    return;
  }
  bool in = w->in_sub;
  w->in_sub = true;
  for (int i = 0; i < r->nsub && !w->done; i++) dmg_expr(w, r->sub[i]);
  w->in_sub = in;
}

static void dmg_expr(DamageWalk *w, IrExpr *e) {
  if (w->done) return;
  switch (e->kind) {
  case E_INT:
    if (w->kind == DMG_CONST && !w->in_sub) {
      e->u.ilit.value += 3;
      e->u.ilit.text = NULL;
      w->done = true;
    }
    break;
  case E_FLOAT:
    if (w->kind == DMG_CONST && !w->in_sub) {
      e->u.flit.value = e->u.flit.value * 2 + 0.5;
      e->u.flit.text = NULL;
      w->done = true;
    }
    break;
  case E_REF: dmg_ref(w, e->u.ref); break;
  case E_PAREN: dmg_expr(w, e->u.paren); break;
  case E_UNARY: dmg_expr(w, e->u.unary.a); break;
  case E_BINARY:
    if (w->kind == DMG_DROP && !w->in_sub && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB)) {
      *e = *e->u.bin.a; /* a+b -> a */
      w->done = true;
      return;
    }
    dmg_expr(w, e->u.bin.a);
    dmg_expr(w, e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) dmg_expr(w, e->u.cmp.operand[i]);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) dmg_expr(w, e->u.call.args[i]);
    break;
  default: break;
  }
}

static void dmg_nest(DamageWalk *w, IrNest *n) {
  for (int i = 0; i < n->nloops && !w->done; i++)
    if (w->kind == DMG_EXTENT && n->loops[i]->extent > 1) {
      n->loops[i]->extent -= 1;
      n->loops[i]->extent_text = NULL;
      w->done = true;
    }
  for (int i = 0; i < n->nitems && !w->done; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      dmg_nest(w, n->items[i].u.nest);
      continue;
    }
    IrStmt *s = n->items[i].u.stmt;
    dmg_expr(w, s->rhs);
  }
}

/* The text of `after` (analysed in ctx) with damage `kind`, or NULL if the
 * program has nothing to damage that way (malloc'ed). */
static char *damage(LeirCtx *ctx, const IrProgram *after, Damage kind) {
  IrProgram *q = ir_program_clone(ctx, after);
  DamageWalk w = {kind, false, false};
  for (int i = 0; i < q->nnests && !w.done; i++) dmg_nest(&w, q->nests[i]);
  if (!w.done) return NULL;
  SBuf b = {0};
  ir_print_body(&b, q);
  return b.s;
}

/* ------------------------------------------------------------ the corpus */

typedef struct Tally {
  int records, before_fails;
  int by_verdict[7];
  int legal_reference_only; /* class T, close only under the reference's rule */
  int refused, not_run;     /* not legal: a candidate gives AFTER but is refused; the runs were not made */
  int not_run_differ;       /* not equivalent although not run (must be 0) */
  int unsafe_assumed, unsafe_differs; /* --unsafe-math: legal by its assumptions; of those, differing when run
                                         (and saying so) */
  int would_accept;         /* without it: refused, --unsafe-math would accept the step */
  /* LEIR_STEPCHECK_SHARE=M: afters within M*10^6 statement executions that
     --compare --tolerance=reference finds equal or close, how many are
     legal (with --unsafe-math for the value splits), the rest by strategy */
  int close, close_legal, close_legal_unsafe, close_unchanged, close_not_legal_by_pass[128];
  int legal_wrong;      /* legal, ran, and the interpreter disagrees with the class */
  int respelt, respelt_wrong; /* unchanged up to spelling; of those, not bit-identical when run (must be 0) */
  int damaged, damaged_legal, damaged_by[DMG__COUNT], damaged_verdict[7];
  int by_pass[128], legal_by_pass[128], refused_by_pass[128];
  double *times;
  int ntimes, cap;
} Tally;

static void add_time(Tally *t, double s) {
  if (t->ntimes == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 1024;
    t->times = realloc(t->times, (size_t)t->cap * sizeof *t->times);
  }
  t->times[t->ntimes++] = s;
}

/* Damages `after` of one record in every way and checks that none is
 * legal. */
static void check_damaged(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, const PassInfo *pass,
                          const char *what, Tally *t) {
  for (int k = 0; k < DMG__COUNT; k++) {
    char *text = damage(ctx, after, (Damage)k);
    if (!text) continue;
    StepCheckOptions so = {pass, "damaged", false, 0, CMP_DEFAULT, 1000000, false, NULL, NULL, 0};
    StepResult r;
    double t0 = now();
    bool legal = step_check(ctx, before, text, strlen(text), &so, &r);
    if (now() - t0 > 1.0) print_message("SLOW %.1f s: damaged %s %s\n", now() - t0, what, damage_name[k]);
    t->damaged++;
    t->damaged_by[k]++;
    t->damaged_verdict[r.verdict]++;
    if (legal) {
      t->damaged_legal++;
      print_message("DAMAGED LEGAL %s (%s): %s\n  %s\n", what, damage_name[k], r.message, text);
    }
    free(text);
  }
}

static bool value_split(const char *strategy) {
  return !strcmp(strategy, "additive_split") || !strcmp(strategy, "exponential_split") ||
         !strcmp(strategy, "multiplicative_split");
}

static int env_int(const char *name, int dflt);

static void one_record(json_t *o, Tally *t, FILE *devnull, bool do_damage, bool unsafe) {
  const char *strategy = json_string_value(json_object_get(o, "strategy"));
  const char *level = json_string_value(json_object_get(o, "level"));
  const char *wl = json_string_value(json_object_get(o, "workload"));
  const char *before = json_string_value(json_object_get(o, "before"));
  const char *after = json_string_value(json_object_get(o, "after"));
  long long idx = (long long)json_integer_value(json_object_get(o, "candidate_index"));
  if (!strategy || !level || !wl || !before || !after) return;
  if (unsafe && !value_split(strategy)) return;
  const PassInfo *pass = pass_lookup(strategy);
  char decls[4400];
  snprintf(decls, sizeof decls, "%s/programs/%s/%s.decls.json", corpus, level, wl);
  t->records++;
  double t0 = now();
  LeirCtx ctx;
  IrProgram *pb = load(&ctx, before, have_file(decls) ? decls : NULL, devnull);
  ctx.unsafe_math = unsafe;
  if (!pb) {
    t->before_fails++;
    leir_ctx_free(&ctx);
    return;
  }
  StepCheckOptions so = {pass, "after", true, 0, CMP_DEFAULT, 1000000, false, NULL, NULL, 0};
  StepResult r;
  bool legal = step_check(&ctx, pb, after, strlen(after), &so, &r);
  double dt = now() - t0;
  add_time(t, dt);
  t->by_verdict[r.verdict]++;
  if (dt > 1.0) print_message("SLOW %.1f s: %s %s %s #%lld: %s\n", dt, level, wl, strategy, idx, r.message);
  if (r.refusal) t->refused++;
  if (pass && pass - pass_table < 128) {
    t->by_pass[pass - pass_table]++;
    t->legal_by_pass[pass - pass_table] += legal;
    t->refused_by_pass[pass - pass_table] += r.refusal != NULL;
  }
  if (r.verdict == STEP_NOT_RUN) t->not_run++;
  t->unsafe_assumed += r.unsafe_assumed;
  t->would_accept += r.unsafe_would_accept;
  /* a pair that was not run is never said to differ */
  if (r.verdict == STEP_NOT_EQUIVALENT && !r.ran && strstr(r.message, "statement executions")) t->not_run_differ++;
  if (getenv("LEIR_STEPCHECK_VERBOSE") && !legal)
    print_message("%s %s %s #%lld: %s\n", level, wl, strategy, idx, r.message);
  if (legal && ir_program_execs(pb) <= 1000000 && ir_program_execs(r.after) <= 1000000) {
    /* a legal verdict must agree with the interpreter */
    FILE *saved = ctx.diag_out;
    InterpCheckOptions co = {0, 0};
    int v = interp_check_step(&ctx, pb, r.after, r.cls == PASS_T ? 'T' : 'E', 1, r.spelling, &co);
    /* class T: the reference's acceptance rule also counts (as in
       passes_corpus_test: cancellation near zero) */
    if (v == 1 && r.cls == PASS_T && reference_close(&ctx, pb, r.after)) {
      v = 0;
      t->legal_reference_only++;
    }
    ctx.diag_out = saved;
    /* --unsafe-math: legal by its assumptions, and the verdict says that
       running differs */
    if (v == 1 && r.unsafe_assumed && strstr(r.message, "; running differs: ")) {
      v = 0;
      t->unsafe_differs++;
    }
    if (v == 1) {
      t->legal_wrong++;
      print_message("LEGAL BUT WRONG %s %s #%lld: %s\n", wl, strategy, idx, r.message);
    }
  }
  if (r.verdict == STEP_UNCHANGED && r.after && strstr(r.message, "up to spelling")) {
    /* unchanged up to respelling: bit-identical when run */
    t->respelt++;
    if (ir_program_execs(pb) <= 1000000 && ir_program_execs(r.after) <= 1000000) {
      FILE *saved = ctx.diag_out;
      InterpCheckOptions co = {0, 0};
      int v = interp_check_step(&ctx, pb, r.after, 'E', 1, "respelt", &co);
      ctx.diag_out = saved;
      if (v != 0) {
        t->respelt_wrong++;
        print_message("UNCHANGED BUT DIFFERENT %s %s #%lld: %s\n", wl, strategy, idx, r.message);
      }
    }
  }
  uint64_t share_max = (uint64_t)env_int("LEIR_STEPCHECK_SHARE", 0) * 1000000;
  uint64_t wmax = r.after && ir_program_execs(r.after) > ir_program_execs(pb) ? ir_program_execs(r.after)
                                                                               : ir_program_execs(pb);
  if (share_max && !unsafe && r.after && wmax <= share_max &&
      (wmax <= 1000000 ? reference_close(&ctx, pb, r.after) : reference_close_jit(&ctx, pb, r.after))) {
    bool ok = legal;
    if (r.verdict == STEP_UNCHANGED) t->close_unchanged++; /* not a step at all: counted apart */
    else t->close++;
    if (!ok && value_split(strategy)) {
      ctx.unsafe_math = true;
      StepResult u;
      ok = step_check(&ctx, pb, after, strlen(after), &so, &u);
      ctx.unsafe_math = false;
      t->close_legal_unsafe += ok;
    }
    t->close_legal += ok;
    if (!ok && r.verdict != STEP_UNCHANGED) {
      if (pass && pass - pass_table < 128) t->close_not_legal_by_pass[pass - pass_table]++;
      if (getenv("LEIR_STEPCHECK_VERBOSE"))
        print_message("CLOSE, NOT LEGAL %s %s %s #%lld: %s\n", level, wl, strategy, idx, r.message);
    }
  }
  if (do_damage && r.after) {
    char what[512];
    snprintf(what, sizeof what, "%s %s #%lld", wl, strategy, idx);
    check_damaged(&ctx, pb, r.after, pass, what, t);
  }
  leir_ctx_free(&ctx);
}

static void run_corpus(bool do_damage, int every, bool unsafe) {
  char path[4400], cmd[4500];
  snprintf(path, sizeof path, "%s/transforms.jsonl.gz", corpus);
  if (!have_file(path)) skip();
  snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
  FILE *in = popen(cmd, "r");
  if (!in) skip();
  FILE *devnull = fopen("/dev/null", "w");
  Tally t = {0};
  char *line = NULL;
  size_t cap = 0;
  long n = 0;
  double t0 = now();
  while (getline(&line, &cap, in) > 0) {
    if (n++ % every) continue;
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    if (!o) continue;
    one_record(o, &t, devnull, do_damage, unsafe);
    json_decref(o);
  }
  double total = now() - t0;
  free(line);
  pclose(in);
  fclose(devnull);
  qsort(t.times, (size_t)t.ntimes, sizeof *t.times, cmp_double);
  double med = t.ntimes ? t.times[t.ntimes / 2] : 0, p90 = t.ntimes ? t.times[t.ntimes * 9 / 10] : 0;
  if (unsafe) {
    print_message("# count: --unsafe-math, value splits (every %d-th record): %d records; legal %d (%d by the flag's "
                  "assumptions only, %d of them differing when run and saying so), equivalent %d, not equivalent %d, "
                  "not run %d, does not parse %d, invalid %d, unchanged %d; legal but wrong %d; damaged afters %d: "
                  "legal %d\n",
                  every, t.records, t.by_verdict[STEP_LEGAL], t.unsafe_assumed, t.unsafe_differs,
                  t.by_verdict[STEP_EQUIVALENT], t.by_verdict[STEP_NOT_EQUIVALENT], t.by_verdict[STEP_NOT_RUN],
                  t.by_verdict[STEP_DOES_NOT_PARSE], t.by_verdict[STEP_INVALID], t.by_verdict[STEP_UNCHANGED],
                  t.legal_wrong, t.damaged, t.damaged_legal);
    assert_int_equal(t.legal_wrong, 0);
    assert_int_equal(t.damaged_legal, 0);
    assert_true(t.records > 0);
  } else if (!do_damage) {
    print_message("# count: corpus transforms checked with their strategy: %d records (every %d-th), %d befores "
                  "that do not load; legal %d, equivalent %d, not equivalent %d, does not parse %d, invalid %d, "
                  "unchanged %d, not run %d; legal but wrong %d (class T within the reference rule only: %d); not "
                  "legal: %d reproduced by a candidate its check refuses, %d not run (above 10^6 statement "
                  "executions), %d that --unsafe-math would accept; unchanged up to spelling %d (%d of them not "
                  "bit-identical when run); median %.2f ms, p90 %.2f ms per record, %.1f s in all\n",
                  t.records, every, t.before_fails, t.by_verdict[STEP_LEGAL], t.by_verdict[STEP_EQUIVALENT],
                  t.by_verdict[STEP_NOT_EQUIVALENT], t.by_verdict[STEP_DOES_NOT_PARSE], t.by_verdict[STEP_INVALID],
                  t.by_verdict[STEP_UNCHANGED], t.by_verdict[STEP_NOT_RUN], t.legal_wrong, t.legal_reference_only,
                  t.refused, t.not_run, t.would_accept, t.respelt, t.respelt_wrong, med * 1e3, p90 * 1e3, total);
    if (t.close) {
      print_message("# count: afters within %d*10^6 statement executions equal or close under "
                    "--tolerance=reference (unchanged ones apart: %d): %d, legal %d (%.1f%%; %d of them value "
                    "splits legal with --unsafe-math)\n",
                    env_int("LEIR_STEPCHECK_SHARE", 0), t.close_unchanged, t.close, t.close_legal,
                    100.0 * t.close_legal / t.close, t.close_legal_unsafe);
      for (int i = 0; i < pass_table_size && i < 128; i++)
        if (t.close_not_legal_by_pass[i])
          print_message("#   close, not legal: %-34s %5d\n", pass_table[i].name, t.close_not_legal_by_pass[i]);
    }
    for (int i = 0; i < pass_table_size && i < 128; i++)
      if (t.by_pass[i])
        print_message("#   %-34s %5d records, %5d legal, %4d reproduced by a refused candidate\n", pass_table[i].name,
                      t.by_pass[i], t.legal_by_pass[i], t.refused_by_pass[i]);
    assert_int_equal(t.legal_wrong, 0);
    assert_int_equal(t.respelt_wrong, 0);
    assert_int_equal(t.not_run_differ, 0);
    assert_true(t.records > 0);
    assert_true(med < 0.020);
  } else {
    print_message("# count: damaged afters: %d (%d swapped subscript, %d changed constant, %d dropped term, %d wrong "
                  "extent) from %d records: legal %d, equivalent %d, not equivalent %d, invalid %d, unchanged %d, "
                  "not run %d\n",
                  t.damaged, t.damaged_by[0], t.damaged_by[1], t.damaged_by[2], t.damaged_by[3], t.records,
                  t.damaged_legal, t.damaged_verdict[STEP_EQUIVALENT], t.damaged_verdict[STEP_NOT_EQUIVALENT],
                  t.damaged_verdict[STEP_INVALID], t.damaged_verdict[STEP_UNCHANGED], t.damaged_verdict[STEP_NOT_RUN]);
    assert_int_equal(t.damaged_legal, 0);
    for (int k = 0; k < DMG__COUNT; k++) assert_true(t.damaged_by[k] > 0);
  }
  free(t.times);
}

static int env_int(const char *name, int dflt) {
  const char *s = getenv(name);
  int v = s ? atoi(s) : 0;
  return v > 0 ? v : dflt;
}

static void test_reference(void **state) {
  (void)state;
  run_corpus(false, env_int("LEIR_STEPCHECK_EVERY", 4), false);
}

static void test_unsafe_math(void **state) {
  (void)state;
  run_corpus(true, env_int("LEIR_STEPCHECK_EVERY", 4), true);
}

static void test_damaged(void **state) {
  (void)state;
  run_corpus(true, env_int("LEIR_STEPCHECK_DAMAGE_EVERY", 25), false);
}

/* Without the corpus: the steps of the examples/ programs. */
static void test_damaged_examples(void **state) {
  (void)state;
  const char *files[] = {"matmul.leir", "softmax.leir", "layernorm.leir", "conv2d.leir", "attention.leir"};
  Tally t = {0};
  FILE *devnull = fopen("/dev/null", "w");
  int progs = 0;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", examples, files[f]);
    size_t len;
    char *text = leir_read_file(path, &len);
    if (!text || len == 0) {
      free(text);
      continue;
    }
    LeirCtx ctx;
    IrProgram *p = load(&ctx, text, NULL, devnull);
    free(text);
    if (!p) {
      leir_ctx_free(&ctx);
      continue;
    }
    progs++;
    for (int s = 0; s < pass_table_size; s++) {
      PtrVec legal = {0};
      pass_enumerate_legal(&ctx, p, &pass_table[s], &legal);
      for (int i = 0; i < legal.n && i < 3; i++) {
        const char *why;
        IrProgram *q = pass_apply(&ctx, p, legal.v[i], &why);
        if (!q) continue;
        /* the step itself is legal */
        SBuf b = {0};
        ir_print_body(&b, q);
        StepCheckOptions so = {&pass_table[s], "after", false, 0, CMP_DEFAULT, 1000000, false, NULL, NULL, 0};
        StepResult r;
        bool ok = step_check(&ctx, p, b.s, b.len, &so, &r);
        if (!ok) print_message("NOT LEGAL %s %s: %s\n", files[f], pass_cand_spelling(&ctx, legal.v[i]), r.message);
        assert_true(ok);
        sbuf_free(&b);
        check_damaged(&ctx, p, q, &pass_table[s], files[f], &t);
      }
    }
    leir_ctx_free(&ctx);
  }
  fclose(devnull);
  print_message("# count: damaged example steps: %d from %d programs, %d legal\n", t.damaged, progs, t.damaged_legal);
  assert_true(progs > 0);
  assert_int_equal(t.damaged_legal, 0);
  for (int k = 0; k < DMG__COUNT; k++) assert_true(t.damaged_by[k] > 0);
  free(t.times);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_damaged_examples),
    cmocka_unit_test(test_damaged),
    cmocka_unit_test(test_reference),
    cmocka_unit_test(test_unsafe_math),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
