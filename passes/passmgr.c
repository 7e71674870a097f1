/* passmgr.c -- candidates and their spellings, applying a candidate to a
 * copy of the program, the -O pipeline with dumps and checks, and
 * --list-applicable (see pass.h). */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include "passes/pass.h"

#include "interp/rng.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

const char *pass_level_name(PassLevel l) {
  static const char *const n[] = {"graph", "operator", "memory", "math"};
  return n[l];
}

const char *pass_class_name(PassClass c) {
  static const char *const n[] = {"E", "E\u2020", "T"};
  return n[c];
}

const PassInfo *pass_lookup(const char *name) {
  for (int i = 0; i < pass_table_size; i++)
    if (!strcmp(pass_table[i].name, name) || (pass_table[i].alias && !strcmp(pass_table[i].alias, name)))
      return &pass_table[i];
  return NULL;
}

const char *pass_reason(PassCtx *pc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return arena_strdup(&pc->ctx->arena, buf);
}

/* ------------------------------------------------------------ candidates */

static int key_rank(const PassInfo *p, const char *key) {
  if (!p->impl || !p->impl->keys) return 1000;
  for (int i = 0; p->impl->keys[i].key; i++)
    if (!strcmp(p->impl->keys[i].key, key)) return i;
  return 1000;
}

void pass_cand_set(LeirCtx *ctx, PassCand *c, const char *key, const char *val) {
  for (int i = 0; i < c->nparams; i++)
    if (!strcmp(c->params[i].key, key)) {
      c->params[i].val = arena_strdup(&ctx->arena, val);
      return;
    }
  if (c->nparams == PASS_MAX_PARAMS) return;
  /* insert in key-table order */
  int r = key_rank(c->pass, key), at = c->nparams;
  while (at > 0 && key_rank(c->pass, c->params[at - 1].key) > r) {
    c->params[at] = c->params[at - 1];
    at--;
  }
  c->params[at].key = arena_strdup(&ctx->arena, key);
  c->params[at].val = arena_strdup(&ctx->arena, val);
  c->nparams++;
}

void pass_cand_set_int(LeirCtx *ctx, PassCand *c, const char *key, int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  pass_cand_set(ctx, c, key, buf);
}

const char *pass_cand_get(const PassCand *c, const char *key) {
  for (int i = 0; i < c->nparams; i++)
    if (!strcmp(c->params[i].key, key)) return c->params[i].val;
  return NULL;
}

int pass_cand_get_int(const PassCand *c, const char *key, int64_t *v) {
  const char *s = pass_cand_get(c, key);
  if (!s) return 0;
  const char *p = s;
  if (*p == '-') p++;
  if (!*p) return -1;
  for (const char *q = p; *q; q++)
    if (*q < '0' || *q > '9') return -1;
  errno = 0;
  long long x = strtoll(s, NULL, 10);
  if (errno) return -1;
  *v = x;
  return 1;
}

char *pass_cand_spelling(LeirCtx *ctx, const PassCand *c) {
  SBuf b = {0};
  sbuf_puts(&b, c->pass->name);
  for (int i = 0; i < c->nparams; i++)
    sbuf_printf(&b, "%s%s=%s", i ? "," : "(", c->params[i].key, c->params[i].val);
  if (c->nparams) sbuf_putc(&b, ')');
  char *s = arena_strdup(&ctx->arena, b.s);
  sbuf_free(&b);
  return s;
}

PassCand *pass_cand_new(PassCtx *pc) {
  PassCand *c = arena_alloc(&pc->ctx->arena, sizeof *c);
  c->pass = pc->pass;
  c->nest = -1;
  c->cls = pc->pass->cls == PASS_T ? PASS_T : PASS_E;
  return c;
}

void pass_emit(PassCtx *pc, PassCand *c) { ptrvec_push(&pc->ctx->arena, &pc->cands, c); }

/* ------------------------------------------------------------ spellings */

static char *trim(LeirCtx *ctx, const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  return arena_strndup(&ctx->arena, s, n);
}

static const char *expected_keys(LeirCtx *ctx, const PassInfo *p) {
  SBuf b = {0};
  for (int i = 0; p->impl->keys[i].key; i++) sbuf_printf(&b, "%s%s", i ? ", " : "", p->impl->keys[i].key);
  const char *s = arena_strdup(&ctx->arena, b.s ? b.s : "none");
  sbuf_free(&b);
  return s;
}

static bool parse_param(LeirCtx *ctx, PassCand *out, const char *s, size_t n, const char **err) {
  char *item = trim(ctx, s, n);
  char *eq = strchr(item, '=');
  if (!eq) {
    *err = arena_printf(&ctx->arena, "parameter '%s' has no value (write key=value)", item);
    return false;
  }
  char *key = trim(ctx, item, (size_t)(eq - item));
  char *val = trim(ctx, eq + 1, strlen(eq + 1));
  if (!*key || !*val) {
    *err = arena_printf(&ctx->arena, "malformed parameter '%s'", item);
    return false;
  }
  if (out->pass->impl && key_rank(out->pass, key) == 1000) {
    *err = arena_printf(&ctx->arena, "%s has no parameter '%s' (its parameters: %s)", out->pass->name, key,
                        expected_keys(ctx, out->pass));
    return false;
  }
  if (pass_cand_get(out, key)) {
    *err = arena_printf(&ctx->arena, "parameter '%s' is given twice", key);
    return false;
  }
  if (out->nparams == PASS_MAX_PARAMS) {
    *err = "too many parameters";
    return false;
  }
  pass_cand_set(ctx, out, key, val);
  return true;
}

bool pass_parse_spelling(LeirCtx *ctx, const char *text, PassCand *out, const char **err) {
  memset(out, 0, sizeof *out);
  out->nest = -1;
  const char *open = strchr(text, '(');
  char *name = trim(ctx, text, open ? (size_t)(open - text) : strlen(text));
  if (!*name) {
    *err = "empty strategy name";
    return false;
  }
  out->pass = pass_lookup(name);
  if (!out->pass) {
    *err = arena_printf(&ctx->arena, "unknown strategy '%s' (leirc --list-passes lists them)", name);
    return false;
  }
  out->cls = out->pass->cls == PASS_T ? PASS_T : PASS_E;
  if (!open) return true;
  const char *p = open + 1, *start = p;
  int depth = 0;
  for (; *p; p++) {
    if (*p == '(') depth++;
    else if (*p == ')' && depth > 0) depth--;
    else if ((*p == ',' || *p == ')') && depth == 0) {
      if (p > start || *p == ',') {
        if (!parse_param(ctx, out, start, (size_t)(p - start), err)) return false;
      }
      start = p + 1;
      if (*p == ')') break;
    }
  }
  if (*p != ')') {
    *err = arena_printf(&ctx->arena, "missing ')' in '%s'", text);
    return false;
  }
  for (p++; *p; p++)
    if (*p != ' ' && *p != '\t') {
      *err = arena_printf(&ctx->arena, "unexpected text after ')' in '%s'", text);
      return false;
    }
  return true;
}

/* Splits a pipeline at commas outside parentheses. */
static int split_pipeline(LeirCtx *ctx, const char *spec, PtrVec *steps) {
  int depth = 0;
  const char *start = spec;
  for (const char *p = spec;; p++) {
    if (*p == '(') depth++;
    else if (*p == ')' && depth > 0) depth--;
    if ((*p == ',' && depth == 0) || !*p) {
      char *s = trim(ctx, start, (size_t)(p - start));
      if (*s) ptrvec_push(&ctx->arena, steps, s);
      if (!*p) break;
      start = p + 1;
    }
  }
  return steps->n;
}

/* ------------------------------------------------------------ quiet analysis */

const char *pass_quiet_resema(LeirCtx *ctx, IrProgram *q) {
  FILE *saved = ctx->diag_out;
  int ne = ctx->nerrors, nw = ctx->nwarnings;
  bool nowarn = ctx->no_warnings, werror = ctx->werror, qc = ctx->quiet_caret;
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  ctx->diag_out = mem ? mem : saved;
  ctx->no_warnings = true;
  ctx->werror = false;
  ctx->quiet_caret = true;
  bool ok = ir_resema(ctx, q);
  if (mem) fclose(mem);
  ctx->diag_out = saved;
  ctx->nerrors = ne;
  ctx->nwarnings = nw;
  ctx->no_warnings = nowarn;
  ctx->werror = werror;
  ctx->quiet_caret = qc;
  const char *msg = NULL;
  if (!ok) {
    const char *line = buf ? buf : "";
    const char *nl = strchr(line, '\n');
    msg = arena_strndup(&ctx->arena, line, nl ? (size_t)(nl - line) : strlen(line));
    if (!*msg) msg = "re-analysis failed";
  }
  free(buf);
  return msg;
}

/* ------------------------------------------------------------ applying */

static PassCtx *pctx_new(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass) {
  PassCtx *pc = arena_alloc(&ctx->arena, sizeof *pc);
  pc->ctx = ctx;
  pc->prog = p;
  pc->pass = pass;
  return pc;
}

/* Trees are at most IR_MAX_DEPTH deep (the parser's and the verifier's
 * limit).  A step on a program whose trees are at most DEPTH_TRUSTED deep
 * stays within it: the deepest growth is compute_inline's, a producer's
 * tree put inside a consumer's (at most twice the depth, plus a
 * parenthesis), then a few levels (X+y-y, an index substitution); the
 * algebra's sums have at most ALG_MAXTERMS terms.  On a deeper program
 * the check applies the step to see (fuzz_passes: inlining a sum of 999
 * terms into a copy gave 1001 levels, an internal error). */
enum { DEPTH_TRUSTED = IR_MAX_DEPTH / 2 - 16 };

static const char *too_deep(PassCtx *pc, const IrProgram *q) {
  if (ir_program_expr_depth(q, IR_MAX_DEPTH + 1) <= IR_MAX_DEPTH) return NULL;
  return pass_reason(pc, "the result would nest an expression more than %d levels deep (the limit of LEIR trees)",
                     IR_MAX_DEPTH);
}

static const char *check_cand(PassCtx *pc, PassCand *c) {
  c->note = NULL;
  c->why = NULL;
  c->nest = -1;
  c->site = (IrLoc){0, 0};
  c->cls = c->pass->cls == PASS_T ? PASS_T : PASS_E;
  const char *why = c->pass->impl->check(pc, c);
  if (why || c->pass->impl->keeps_depth) return why;
  if (!pc->depth) pc->depth = ir_program_expr_depth(pc->prog, IR_MAX_DEPTH + 1) + 1;
  if (pc->depth - 1 <= DEPTH_TRUSTED) return NULL;
  IrProgram *q = ir_program_clone(pc->ctx, pc->prog);
  /* (a rewrite that fails is left to the application to report) */
  if (c->pass->impl->apply(pc, q, c)) why = too_deep(pc, q);
  pc->reason = NULL;
  return why;
}

static IrProgram *apply_checked(PassCtx *pc, PassCand *c, bool verify, const char **reason) {
  LeirCtx *ctx = pc->ctx;
  IrProgram *q = ir_program_clone(ctx, pc->prog);
  pc->reason = NULL;
  if (!c->pass->impl->apply(pc, q, c)) {
    *reason = arena_printf(&ctx->arena, "internal error: the rewrite failed: %s",
                           pc->reason ? pc->reason : "no reason given");
    return NULL;
  }
  const char *bad = too_deep(pc, q);
  if (bad) {
    *reason = bad;
    return NULL;
  }
  bad = pass_quiet_resema(ctx, q);
  if (bad) {
    *reason = arena_printf(&ctx->arena, "internal error: the transformed program does not analyse: %s", bad);
    return NULL;
  }
  if (verify) {
    bad = ir_verify(ctx, q);
    if (bad) {
      *reason = arena_printf(&ctx->arena, "internal error: IR verifier: %s", bad);
      return NULL;
    }
  }
  return q;
}

#ifdef LEIR_CHECKING
enum { CHECKING = 1 };
#else
enum { CHECKING = 0 };
#endif

IrProgram *pass_apply(LeirCtx *ctx, const IrProgram *p, PassCand *c, const char **reason) {
  if (!c->pass->impl) {
    *reason = arena_printf(&ctx->arena, "strategy '%s' is not implemented yet", c->pass->name);
    return NULL;
  }
  PassCtx *pc = pctx_new(ctx, p, c->pass);
  const char *why = check_cand(pc, c);
  if (why) {
    *reason = why;
    return NULL;
  }
  return apply_checked(pc, c, true, reason);
}

static void enumerate_raw(PassCtx *pc) {
  pc->cands = (PtrVec){0};
  pc->pass->impl->enumerate(pc);
}

void pass_enumerate_legal(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, PtrVec *out) {
  if (!pass->impl) return;
  PassCtx *pc = pctx_new(ctx, p, pass);
  enumerate_raw(pc);
  for (int i = 0; i < pc->cands.n; i++) {
    PassCand *c = pc->cands.v[i];
    if (!check_cand(pc, c)) ptrvec_push(&ctx->arena, out, c);
  }
}

void pass_enumerate_all(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, PtrVec *out, PtrVec *reasons) {
  if (!pass->impl) return;
  PassCtx *pc = pctx_new(ctx, p, pass);
  enumerate_raw(pc);
  for (int i = 0; i < pc->cands.n; i++) {
    PassCand *c = pc->cands.v[i];
    const char *why = check_cand(pc, c);
    ptrvec_push(&ctx->arena, out, c);
    if (reasons) ptrvec_push(&ctx->arena, reasons, (void *)why);
  }
}

IrProgram *pass_apply_unchecked(LeirCtx *ctx, const IrProgram *p, PassCand *c, const char **reason) {
  if (!c->pass->impl) {
    *reason = "not implemented";
    return NULL;
  }
  PassCtx *pc = pctx_new(ctx, p, c->pass);
  check_cand(pc, c);
  if (c->nest < 0 && pass_cand_get(c, "nest")) {
    *reason = "the candidate does not resolve";
    return NULL;
  }
  return apply_checked(pc, c, true, reason);
}

/* ------------------------------------------------------------ listing */

void pass_list_table(FILE *out) {
  int w = 0;
  for (int i = 0; i < pass_table_size; i++) {
    int n = (int)strlen(pass_table[i].name);
    if (n > w) w = n;
  }
  for (int i = 0; i < pass_table_size; i++) {
    const PassInfo *p = &pass_table[i];
    /* E† is two columns wide but four bytes long */
    fprintf(out, "%-*s  %-8s  %s%s  %-15s  %s%s%s\n", w, p->name, pass_level_name(p->level), pass_class_name(p->cls),
            p->cls == PASS_EDAGGER ? "" : " ", p->impl ? "implemented" : "not-implemented",
            p->alias ? "alias " : "", p->alias ? p->alias : "",
            p->own ? "  leirc's own (not in STRATEGIES.md)" : "");
  }
}

json_t *pass_cand_json(LeirCtx *ctx, const PassCand *c) {
  json_t *o = json_object();
  json_object_set_new(o, "strategy", json_string(c->pass->name));
  json_object_set_new(o, "level", json_string(pass_level_name(c->pass->level)));
  json_object_set_new(o, "class", json_string(pass_class_name(c->cls)));
  json_object_set_new(o, "spelling", json_string(pass_cand_spelling(ctx, c)));
  json_t *site = json_object();
  json_object_set_new(site, "nest", json_integer(c->nest));
  json_object_set_new(site, "line", json_integer(c->site.line));
  json_object_set_new(site, "col", json_integer(c->site.col));
  json_object_set_new(o, "site", site);
  return o;
}

void pass_for_each_applicable(LeirCtx *ctx, const IrProgram *p, const PassInfo *only, PassCandFn fn, void *user) {
  for (int i = 0; i < pass_table_size; i++) {
    const PassInfo *pass = &pass_table[i];
    if (only && pass != only) continue;
    PtrVec legal = {0};
    pass_enumerate_legal(ctx, p, pass, &legal);
    for (int k = 0; k < legal.n; k++) {
      PassCand *c = legal.v[k];
      fn(user, c, pass_cand_spelling(ctx, c));
    }
  }
}

typedef struct ListOut {
  LeirCtx *ctx;
  FILE *out;
  bool json;
} ListOut;

static void list_one(void *user, const PassCand *c, const char *sp) {
  const ListOut *lo = user;
  if (!lo->json) {
    fprintf(lo->out, "%s\n", sp);
    return;
  }
  json_t *o = pass_cand_json(lo->ctx, c);
  char *s = json_dumps(o, JSON_COMPACT);
  fprintf(lo->out, "%s\n", s);
  free(s);
  json_decref(o);
}

void pass_list_applicable(LeirCtx *ctx, const IrProgram *p, FILE *out, bool json) {
  ListOut lo = {ctx, out, json};
  pass_for_each_applicable(ctx, p, NULL, list_one, &lo);
}

void pass_print_program(SBuf *b, const IrProgram *p) {
  ir_print_decls(b, p, false);
  ir_print_body(b, p);
  sbuf_putc(b, '\n');
}

/* ------------------------------------------------------------ the pipeline */

static bool dump_wanted(const char *what, const PassInfo *pass) {
  if (!what) return false;
  if (!strcmp(what, "all")) return true;
  const PassInfo *w = pass_lookup(what);
  return w == pass;
}

static bool dump(LeirCtx *ctx, const PassRunOptions *o, const IrProgram *p, int step, const PassCand *c,
                 const char *spelling, bool before) {
  SBuf b = {0};
  sbuf_printf(&b, "# %sstep %d: %s\n", before ? "before " : "", step, spelling);
  pass_print_program(&b, p);
  bool ok = true;
  if (o->dump_dir) {
    char *path = arena_printf(&ctx->arena, "%s/%s.%03d.%s%s.leir", o->dump_dir,
                              o->dump_base ? o->dump_base : "leir", step, c->pass->name, before ? ".before" : "");
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b.s, 1, b.len, f) != b.len) {
      diag_error(ctx, (IrLoc){0, 0}, "cannot write the dump '%s': %s", path, strerror(errno));
      ok = false;
    }
    if (f && fclose(f) != 0 && ok) {
      diag_error(ctx, (IrLoc){0, 0}, "cannot write the dump '%s': %s", path, strerror(errno));
      ok = false;
    }
  } else {
    fwrite(b.s, 1, b.len, o->dump_out ? o->dump_out : stderr);
  }
  sbuf_free(&b);
  return ok;
}

static bool params_match(const PassCand *want, const PassCand *c) {
  for (int i = 0; i < want->nparams; i++) {
    const char *v = pass_cand_get(c, want->params[i].key);
    if (!v) return false;
    int64_t a, b;
    if (pass_cand_get_int(want, want->params[i].key, &a) == 1 && pass_cand_get_int(c, want->params[i].key, &b) == 1) {
      if (a != b) return false;
    } else if (strcmp(v, want->params[i].val)) {
      return false;
    }
  }
  return true;
}

static bool complete(const PassCand *c) {
  if (c->pass->impl->complete) return c->pass->impl->complete(c);
  for (int i = 0; c->pass->impl->keys[i].key; i++)
    if (c->pass->impl->keys[i].required && !pass_cand_get(c, c->pass->impl->keys[i].key)) return false;
  return true;
}

/* Diagnostics dropped between quiet_begin and quiet_end (the counts of
 * errors and warnings kept). */
typedef struct Quiet {
  FILE *out;
  LeirDiagList *cap;
  int ne, nw;
} Quiet;

static Quiet quiet_begin(LeirCtx *ctx) {
  Quiet q = {ctx->diag_out, ctx->capture, ctx->nerrors, ctx->nwarnings};
  ctx->diag_out = NULL;
  ctx->capture = NULL;
  return q;
}

static void quiet_end(LeirCtx *ctx, const Quiet *q) {
  ctx->diag_out = q->out;
  ctx->capture = q->cap;
  ctx->nerrors = q->ne;
  ctx->nwarnings = q->nw;
}

/* o->cost of q (NaN counts as none); call between quiet_begin/_end. */
static bool prog_cost(LeirCtx *ctx, const PassRunOptions *o, const IrProgram *q, double *cost) {
  return o->cost(o->cost_user, ctx, q, cost) && *cost == *cost;
}

/* The cost of candidate c's result by o->cost, with every diagnostic of
 * the application and the costing dropped; false if it has none. */
static bool cand_cost(PassCtx *pc, PassCand *c, const PassRunOptions *o, double *cost) {
  LeirCtx *ctx = pc->ctx;
  Quiet qd = quiet_begin(ctx);
  const char *why = NULL;
  IrProgram *q = apply_checked(pc, c, false, &why);
  bool ok = q && prog_cost(ctx, o, q, cost);
  quiet_end(ctx, &qd);
  pc->reason = NULL;
  return ok;
}

/* A bare NAME's choice by cost (PassRunOptions.cost): the cheapest; ties go
 * to `dflt`, else to the earliest. */
static int pick_by_cost(PassCtx *pc, PassCand *const *legal, int n, int dflt, const PassRunOptions *o) {
  int best = -1;
  double best_cost = 0;
  for (int i = 0; i < n; i++) {
    double c;
    if (!cand_cost(pc, legal[i], o, &c)) continue;
    if (best < 0 || c < best_cost || (c == best_cost && i == dflt)) {
      best = i;
      best_cost = c;
    }
  }
  return best < 0 ? dflt : best;
}

/* Resolves a spelling to one legal candidate.  Returns NULL after an error
 * diagnostic, or sets *nothing when a bare name has nothing to do. */
static PassCand *resolve(PassCtx *pc, PassCand *want, const char *text, const PassRunOptions *o, int step,
                         bool *nothing) {
  LeirCtx *ctx = pc->ctx;
  *nothing = false;
  if (complete(want)) {
    const char *why = check_cand(pc, want);
    if (why) {
      diag_error(ctx, want->site, "%s: %s", want->pass->name, why);
      return NULL;
    }
    return want;
  }
  enumerate_raw(pc);
  PtrVec legal = {0};
  PassCand *first_bad = NULL;
  const char *first_why = NULL;
  for (int i = 0; i < pc->cands.n; i++) {
    PassCand *c = pc->cands.v[i];
    if (!params_match(want, c)) continue;
    const char *why = check_cand(pc, c);
    if (!why) ptrvec_push(&ctx->arena, &legal, c);
    else if (!first_bad) {
      first_bad = c;
      first_why = why;
    }
  }
  if (legal.n == 0) {
    if (want->nparams == 0) {
      *nothing = true;
      return NULL;
    }
    if (first_bad)
      diag_error(ctx, first_bad->site, "%s: %s", want->pass->name, first_why);
    else
      diag_error(ctx, (IrLoc){0, 0}, "%s: no candidate matches '%s'", want->pass->name, text);
    return NULL;
  }
  int pick = 0;
  if (o->seeded) {
    LeirRng r;
    rng_seed(&r, o->seed, rng_hash_string(text) + (uint64_t)step);
    pick = (int)(rng_next(&r) % (uint64_t)legal.n);
  } else {
    if (want->pass->impl->pick_default) {
      pick = want->pass->impl->pick_default(pc, (PassCand *const *)legal.v, legal.n);
      if (pick < 0 || pick >= legal.n) pick = 0;
    }
    if (o->cost && want->nparams == 0 && legal.n > 1)
      pick = pick_by_cost(pc, (PassCand *const *)legal.v, legal.n, pick, o);
  }
  return legal.v[pick];
}

/* One step: returns the new program, `p` itself when there was nothing to
 * do, or NULL after an error. */
static IrProgram *run_step(LeirCtx *ctx, IrProgram *p, const char *text, const PassRunOptions *o, int *step,
                           PassCand **chosen) {
  PassCand want;
  const char *err = NULL;
  if (!pass_parse_spelling(ctx, text, &want, &err)) {
    diag_error(ctx, (IrLoc){0, 0}, "-O: %s", err);
    return NULL;
  }
  if (!want.pass->impl) {
    diag_error(ctx, (IrLoc){0, 0}, "strategy '%s' is not implemented yet", want.pass->name);
    return NULL;
  }
  PassCtx *pc = pctx_new(ctx, p, want.pass);
  PassCand *wantp = arena_alloc(&ctx->arena, sizeof *wantp);
  *wantp = want;
  bool nothing;
  PassCand *c = resolve(pc, wantp, text, o, *step + 1, &nothing);
  if (!c) {
    if (!nothing) return NULL;
    if (o->nothing_is_error) {
      diag_error(ctx, (IrLoc){0, 0}, "%s: nothing to do", want.pass->name);
      return NULL;
    }
    diag_warn(ctx, (IrLoc){0, 0}, "%s: nothing to do", want.pass->name);
    return p;
  }
  int n = ++*step;
  char *spelling = pass_cand_spelling(ctx, c);
  if (dump_wanted(o->dump_before, c->pass) && !dump(ctx, o, p, n, c, spelling, true)) return NULL;
  const char *why = NULL;
  IrProgram *q = apply_checked(pc, c, CHECKING || o->verify_each, &why);
  if (!q) {
    diag_error(ctx, c->site, "%s: %s", c->pass->name, why);
    return NULL;
  }
  if (c->note && !o->quiet_notes) diag_note(ctx, c->site, "%s: %s", c->pass->name, c->note);
  if (dump_wanted(o->dump_after, c->pass) && !dump(ctx, o, q, n, c, spelling, false)) return NULL;
  if (o->verify) {
    const char *name = arena_printf(&ctx->arena, "%d: %s", n, spelling);
    if (o->verify(o->verify_user, ctx, p, q, c->cls, name) != 0) return NULL;
  }
  if (chosen) *chosen = c;
  return q;
}

IrProgram *pass_run_step(LeirCtx *ctx, IrProgram *p, const char *spelling, const PassRunOptions *o,
                         PassCand **chosen) {
  int step = 0;
  if (chosen) *chosen = NULL;
  return run_step(ctx, p, spelling, o, &step, chosen);
}

/* ------------------------------------------------------------ runs of bare names */

/* One sequence of a run of bare names: its program, the candidate of each
 * name (NULL: nothing to do on the program before it), its cost and its
 * rank in canonical order (the first name's candidates, then the
 * following ones', in enumeration order). */
typedef struct ComboSeq {
  IrProgram *p;
  PassCand **cands;
  double cost;
  bool costed;
  int order;
} ComboSeq;

/* The implemented pass of a bare NAME step (no parentheses, no
 * parameters); NULL for any other step (run_step reports its errors). */
static const PassInfo *bare_pass(LeirCtx *ctx, const char *text) {
  if (strchr(text, '(')) return NULL;
  PassCand w;
  const char *err = NULL;
  if (!pass_parse_spelling(ctx, text, &w, &err) || !w.pass->impl || w.nparams) return NULL;
  return w.pass;
}

/* Costed before uncosted, then cheaper, then earlier. */
static int seq_by_cost(const void *a, const void *b) {
  const ComboSeq *x = *(ComboSeq *const *)a, *y = *(ComboSeq *const *)b;
  if (x->costed != y->costed) return x->costed ? -1 : 1;
  if (x->costed && x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

static int seq_by_order(const void *a, const void *b) {
  const ComboSeq *x = *(ComboSeq *const *)a, *y = *(ComboSeq *const *)b;
  return (x->order > y->order) - (x->order < y->order);
}

static ComboSeq *seq_new(LeirCtx *ctx, const ComboSeq *from, int k, IrProgram *q, int j, PassCand *c, int order) {
  ComboSeq *n = arena_alloc(&ctx->arena, sizeof *n);
  n->p = q;
  n->cands = arena_alloc(&ctx->arena, (size_t)k * sizeof *n->cands);
  if (from) memcpy(n->cands, from->cands, (size_t)k * sizeof *n->cands);
  n->cands[j] = c;
  n->order = order;
  return n;
}

/* Keeps the `keep` sequences of *cur whose programs o->cost rates cheapest
 * (ties, and those it cannot cost, last: the earliest), in canonical order;
 * call between quiet_begin and quiet_end. */
static void combo_prune(LeirCtx *ctx, PtrVec *cur, int keep, const PassRunOptions *o) {
  for (int s = 0; s < cur->n; s++) {
    ComboSeq *q = cur->v[s];
    q->costed = prog_cost(ctx, o, q->p, &q->cost);
  }
  qsort(cur->v, (size_t)cur->n, sizeof *cur->v, seq_by_cost);
  cur->n = keep;
  qsort(cur->v, (size_t)cur->n, sizeof *cur->v, seq_by_order);
  for (int s = 0; s < cur->n; s++) ((ComboSeq *)cur->v[s])->order = s;
}

/* Every sequence of the k bare names on p, costed, into *out in canonical
 * order: before the names after the first, when the sequences so far times
 * the next name's candidates on the first of them would exceed
 * PASS_COMBO_WIDE, only the PASS_COMBO_WIDE / candidates (at least
 * PASS_COMBO_BEAM) the model rates cheapest go on.  Call between
 * quiet_begin and quiet_end. */
static void combo_expand(LeirCtx *ctx, IrProgram *p, const PassInfo *const *passes, int k, const PassRunOptions *o,
                         PtrVec *out) {
  PtrVec cur = {0};
  ptrvec_push(&ctx->arena, &cur, seq_new(ctx, NULL, k, p, 0, NULL, 0));
  for (int j = 0; j < k; j++) {
    if (cur.n > PASS_COMBO_BEAM) {
      PtrVec first = {0};
      pass_enumerate_legal(ctx, ((ComboSeq *)cur.v[0])->p, passes[j], &first);
      long c = first.n > 1 ? first.n : 1;
      long keep = PASS_COMBO_WIDE / c < PASS_COMBO_BEAM ? PASS_COMBO_BEAM : PASS_COMBO_WIDE / c;
      if (cur.n * c > PASS_COMBO_WIDE && keep < cur.n) combo_prune(ctx, &cur, (int)keep, o);
    }
    PtrVec next = {0};
    for (int s = 0; s < cur.n; s++) {
      ComboSeq *from = cur.v[s];
      PassCtx *pc = pctx_new(ctx, from->p, passes[j]);
      enumerate_raw(pc);
      int made = 0;
      for (int i = 0; i < pc->cands.n; i++) {
        PassCand *c = pc->cands.v[i];
        if (check_cand(pc, c)) continue;
        const char *why = NULL;
        IrProgram *q = apply_checked(pc, c, false, &why);
        pc->reason = NULL;
        if (!q) continue;
        ptrvec_push(&ctx->arena, &next, seq_new(ctx, from, k, q, j, c, next.n));
        made++;
      }
      if (!made) ptrvec_push(&ctx->arena, &next, seq_new(ctx, from, k, from->p, j, NULL, next.n));
    }
    cur = next;
  }
  for (int s = 0; s < cur.n; s++) {
    ComboSeq *q = cur.v[s];
    q->costed = prog_cost(ctx, o, q->p, &q->cost);
  }
  *out = cur;
}

/* The sequence's candidates as one pipeline spelling. */
static const char *seq_spelling(LeirCtx *ctx, const ComboSeq *q, int k) {
  SBuf b = {0};
  int n = 0;
  for (int j = 0; j < k; j++)
    if (q->cands[j]) sbuf_printf(&b, "%s%s", n++ ? "," : "", pass_cand_spelling(ctx, q->cands[j]));
  const char *s = arena_strdup(&ctx->arena, n ? b.s : "");
  sbuf_free(&b);
  return s;
}

/* A run of k >= 2 bare names (texts, passes) on p: the combination (see
 * pass_run_pipeline), applied step by step by run_step. */
static IrProgram *run_combo(LeirCtx *ctx, IrProgram *p, char *const *texts, const PassInfo *const *passes, int k,
                            const PassRunOptions *o, int *step) {
  PtrVec seqs = {0};
  double in_cost = 0;
  Quiet qd = quiet_begin(ctx);
  combo_expand(ctx, p, passes, k, o, &seqs);
  bool in_ok = prog_cost(ctx, o, p, &in_cost);
  quiet_end(ctx, &qd);
  ComboSeq *best = NULL;
  int ncosted = 0;
  for (int s = 0; s < seqs.n; s++) {
    ComboSeq *q = seqs.v[s];
    if (!q->costed) continue;
    ncosted++;
    if (!best || q->cost < best->cost) best = q;
  }
  SBuf run = {0};
  for (int j = 0; j < k; j++) sbuf_printf(&run, "%s%s", j ? "," : "", texts[j]);
  const char *model = o->cost_name ? arena_printf(&ctx->arena, "the %s cost model", o->cost_name) : "the cost model";
  const char *seq = best ? seq_spelling(ctx, best, k) : "";
  bool keep = best && *seq && in_ok && best->cost > in_cost;
  if (best && *seq && !o->quiet_notes) {
    if (keep)
      diag_note(ctx, (IrLoc){0, 0},
                "-O %s: %s rates every one of %d sequences slower than the input (the best, %s: %g s; the input: "
                "%g s): the input is kept",
                run.s, model, ncosted, seq, best->cost, in_cost);
    else if (in_ok)
      diag_note(ctx, (IrLoc){0, 0}, "-O %s: %s rates %s best of %d sequences: %g s against %g s for the input", run.s,
                model, seq, ncosted, best->cost, in_cost);
    else
      diag_note(ctx, (IrLoc){0, 0}, "-O %s: %s rates %s best of %d sequences: %g s (the input cannot be costed)",
                run.s, model, seq, ncosted, best->cost);
  }
  sbuf_free(&run);
  if (keep) return p;
  for (int j = 0; j < k && p; j++) {
    if (!best) {
      /* nothing could be costed: each name by itself, as a single one */
      p = run_step(ctx, p, texts[j], o, step, NULL);
    } else if (best->cands[j]) {
      p = run_step(ctx, p, pass_cand_spelling(ctx, best->cands[j]), o, step, NULL);
    } else if (o->nothing_is_error) {
      diag_error(ctx, (IrLoc){0, 0}, "%s: nothing to do", passes[j]->name);
      return NULL;
    } else {
      diag_warn(ctx, (IrLoc){0, 0}, "%s: nothing to do", passes[j]->name);
    }
  }
  return p;
}

IrProgram *pass_run_pipeline(LeirCtx *ctx, IrProgram *p, const char *spec, const PassRunOptions *o,
                             int *nsteps) {
  PtrVec steps = {0};
  split_pipeline(ctx, spec, &steps);
  int step = nsteps ? *nsteps : 0;
  bool combine = o->cost && !o->seeded;
  const PassInfo **passes = arena_alloc(&ctx->arena, (size_t)(steps.n + 1) * sizeof *passes);
  for (int i = 0; i < steps.n; i++) passes[i] = combine ? bare_pass(ctx, steps.v[i]) : NULL;
  for (int i = 0; i < steps.n && p;) {
    int k = 0;
    while (i + k < steps.n && passes[i + k]) k++;
    if (k >= 2) {
      p = run_combo(ctx, p, (char *const *)steps.v + i, passes + i, k, o, &step);
      i += k;
    } else {
      p = run_step(ctx, p, steps.v[i], o, &step, NULL);
      i++;
    }
  }
  if (nsteps) *nsteps = step;
  return p;
}
