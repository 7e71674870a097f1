/* mathpat_split.c -- the value splits (additive, multiplicative,
 * exponential; mathpat.h): the nests a split may apply to, its y tensors and
 * the checks of a split point.  Moved out of mathpat.c (issue 39) unchanged. */
#include "passes/mathpat.h"

#include "passes/alg.h"
#include "passes/rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ splits */

IrStmt *mp_cand_stmt(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why) {
  IrStmt *s = rw_cand_stmt(pc, p, c, why);
  if (!s) return NULL;
  const IrNest *n = p->nests[c->nest];
  if (n->nloops == 0) {
    *why = pass_reason(pc, "nest %d has no loops", c->nest);
    return NULL;
  }
  return s;
}

static bool nest_excluded(LeirCtx *ctx, const IrNest *n, MpSplitKind kind, const char **what) {
  static const char *const ex[] = {"exp", "inf", "_{0}", "if_then_else", "erf", ",0)", "-"};
  SBuf b = {0};
  ir_print_nest(&b, n);
  int m = kind == MP_MUL ? 7 : 5;
  *what = NULL;
  for (int i = 0; i < m && !*what; i++)
    if (strstr(b.s, ex[i])) *what = ex[i];
  sbuf_free(&b);
  (void)ctx;
  return *what != NULL;
}

/* Does y use every index of the statement's left side (and, for a scalar
 * left side, not tx)? */
static const char *covers_output(PassCtx *pc, const IrStmt *s, const IrRef *y, const char *yname) {
  const char *names[64];
  int n = rw_names_in_ref(s->lhs, names, 64);
  for (int i = 0; i < n; i++)
    if (!rw_ref_mentions(y, names[i]))
      return pass_reason(pc, "%s does not use index '%s' of the left side '%s'", yname, names[i], s->lhs->name);
  if (s->lhs->nsub == 0 && rw_ref_mentions(y, "tx"))
    return pass_reason(pc, "%s uses 'tx' while the left side '%s' is a scalar", yname, s->lhs->name);
  return NULL;
}

/* A reason if y names an index the statement s does not mention while s
 * is an implicitly initialised reduction, else NULL. */
static const char *keeps_reduction_indices(PassCtx *pc, const IrStmt *s, const IrRef *y, const char *yname) {
  if (s->init != INIT_REDUCE) return NULL;
  const char *names[64];
  int n = rw_names_in_ref(y, names, 64);
  for (int i = 0; i < n; i++)
    if (!rw_stmt_mentions(s, names[i]))
      return pass_reason(pc, "%s uses index '%s', which the statement does not mention: it would become a reduction "
                         "index of '%s' (SPEC 9.5)", yname, names[i], s->lhs->name);
  return NULL;
}

/* The left sides of earlier nests with nest k's header: into refs[] /
 * from[] (nest index); the names written by excluded ones into bad[]. */
typedef struct YScan {
  const IrRef *refs[128];
  int from[128];
  int n;
  const char *bad[128];
  int badnest[128];
  const char *badwhat[128];
  int nbad;
} YScan;

static void scan_ys(PassCtx *pc, const IrProgram *p, int k, MpSplitKind kind, YScan *ys) {
  ys->n = ys->nbad = 0;
  for (int j = 0; j < k; j++) {
    const IrNest *n = p->nests[j];
    if (mp_has_nested(n) || !mp_same_header(n, p->nests[k])) continue;
    const char *what;
    bool ex = nest_excluded(pc->ctx, n, kind, &what);
    for (int i = 0; i < n->nitems; i++) {
      const IrRef *l = n->items[i].u.stmt->lhs;
      if (ex && ys->nbad < 128) {
        ys->badnest[ys->nbad] = j;
        ys->badwhat[ys->nbad] = what;
        ys->bad[ys->nbad++] = l->name;
      } else if (!ex && ys->n < 128) {
        ys->from[ys->n] = j;
        ys->refs[ys->n++] = l;
      }
    }
  }
}

static int bad_index(const YScan *ys, const char *name) {
  for (int i = 0; i < ys->nbad; i++)
    if (!strcmp(ys->bad[i], name)) return i;
  return -1;
}

/* if_then_else(k-1<0,identity,X_{..,k-1}) for the last item k of X (REF
 * subtracts 1 from the item's text, compound items too: d*3+g-1). */
static IrExpr *shift_y(LeirCtx *ctx, const IrRef *x, MpSplitKind kind) {
  const IrExpr *item = x->sub[x->nsub - 1];
  IrRef *prev = ir_ref_clone(ctx, x);
  prev->sub[prev->nsub - 1] = ir_binary(ctx, OP_SUB, ir_expr_clone(ctx, item), ir_int(ctx, 1));
  IrExpr *cond = mp_cmp(ctx, ir_binary(ctx, OP_SUB, ir_expr_clone(ctx, item), ir_int(ctx, 1)), OP_LT, ir_int(ctx, 0));
  return mp_ite(ctx, cond, ir_int(ctx, kind == MP_MUL ? 1 : 0), ir_refexpr(ctx, prev));
}

/* The last item of x as a shift axis: it uses a loop of n and reads no
 * tensor. */
static bool shiftable(const IrNest *n, const IrRef *x) {
  if (!x || !x->nsub) return false;
  const IrExpr *last = x->sub[x->nsub - 1];
  IrRef probe = *x;
  probe.sub = (IrExpr **)&last;
  probe.nsub = 1;
  if (rw_ref_has_nested_ref(&probe)) return false;
  const char *names[16];
  int k = rw_names_in_expr(last, names, 16);
  for (int i = 0; i < k; i++)
    if (rw_loop_pos(n, names[i]) >= 0) return true;
  return false;
}

/* exp(x-y)*exp(y) overflows, X+y-y cancels and X/y*y overflows when y is
 * huge. */
static const char *check_moderate(PassCtx *pc, const IrProgram *p, MpSplitKind kind, const char *spell, const char *name) {
  if (pc->ctx->unsafe_math) return NULL;
  const char *im = mp_immoderate_tensor(pc, p, name);
  if (!im) return NULL;
  return pass_reason(pc, "y=%s: %s, so y may be huge or NaN and %s (--unsafe-math accepts it)", spell, im,
                     kind == MP_EXP   ? "exp(x-y) or exp(y) may overflow"
                     : kind == MP_ADD ? "X+y-y may cancel X"
                                      : "X/y*y may overflow (inf/inf is NaN)");
}

static const char *check_shift(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x,
                               MpSplitKind kind) {
  if (!x) return "y=shift needs a tensor to shift";
  const IrNest *n = p->nests[k];
  if (!shiftable(n, x))
    return pass_reason(pc, "y=shift: the last subscript item of '%s' does not use a loop of nest %d", x->name, k);
  if (mp_writes(n, x->name))
    return pass_reason(pc, "y=shift: '%s' is written in nest %d, so its previous element may not be defined", x->name, k);
  const IrTensor *t = ir_find_tensor(p, x->name);
  if (t && t->dtype == DT_BOOL) return pass_reason(pc, "y=shift: '%s' is a bool tensor", x->name);
  /* the shift reads x where nest k reads it: with no earlier nest writing
     x (nest k does not, above), that read sees what was there before,
     anything (SPEC 9.3); said here by name, for additive_split too */
  int w = mp_other_writer(p, x->name, k);
  bool before = !t || t->role == ROLE_IN || t->role == ROLE_PARAM || (w >= 0 && w < k);
  if (!before)
    return pass_reason(pc, "y=shift: no nest before nest %d writes '%s', so its elements read here are not defined", k,
                       x->name);
  const char *why = covers_output(pc, s, x, "y=shift");
  if (why) return why;
  /* --unsafe-math assumes values finite (leirc(1)): then not an objection */
  const char *inf = pc->ctx->unsafe_math ? NULL : mp_may_be_inf(pc, p, x->name);
  if (inf)
    return pass_reason(pc, "y=shift: '%s' may be infinite (%s), and inf-inf is NaN (--unsafe-math accepts it)",
                       x->name, inf);
  if (kind == MP_MUL && !pc->ctx->unsafe_math && !mp_positive_tensor(p, x->name))
    return pass_reason(pc, "y=shift: '%s' is not provably nonzero%s, so X/y*y may divide by zero (--unsafe-math accepts "
                       "it)", x->name, mp_nonzero_culprit(pc, p, x->name));
  return check_moderate(pc, p, kind, "shift", x->name);
}

/* The distinct left-side refs named `name` in earlier nests with nest k's
 * loops (excluded ones too), in text order; their nests into from[]. */
static int named_refs(const IrProgram *p, int k, const char *name, const IrRef **refs, int *from, int max) {
  int n = 0;
  for (int j = 0; j < k; j++) {
    const IrNest *nj = p->nests[j];
    if (mp_has_nested(nj) || !mp_same_header(nj, p->nests[k])) continue;
    for (int i = 0; i < nj->nitems && n < max; i++) {
      const IrRef *l = nj->items[i].u.stmt->lhs;
      bool dup = strcmp(l->name, name) != 0;
      for (int m = 0; m < n && !dup; m++) dup = mp_ref_same(NULL, refs[m], l);
      if (!dup) {
        from[n] = j;
        refs[n++] = l;
      }
    }
  }
  return n;
}

/* "D" or "D.1" (the second distinct ref of D): the name and the index
 * (-1 without one). */
static const char *parse_named(PassCtx *pc, const char *spell, int *idx) {
  const char *dot = strchr(spell, '.');
  *idx = -1;
  if (!dot) return spell;
  char *end;
  long v = strtol(dot + 1, &end, 10);
  *idx = *end || end == dot + 1 || v < 0 || v > 100000 ? -2 : (int)v;
  return arena_strndup(&pc->ctx->arena, spell, (size_t)(dot - spell));
}

static const char *check_named(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, MpSplitKind kind,
                               const char *spell, const IrRef **out) {
  int idx;
  const char *name = parse_named(pc, spell, &idx);
  if (idx == -2) return pass_reason(pc, "y=%s: expected a tensor name, NAME.INDEX or shift", spell);
  const IrRef *refs[64];
  int from[64];
  int n = named_refs(p, k, name, refs, from, 64);
  if (n == 0) return pass_reason(pc, "y=%s: no earlier nest with the loops of nest %d writes '%s'", spell, k, name);
  if (idx == -1 && n > 1)
    return pass_reason(pc,
                       "y=%s is ambiguous: nests with the loops of nest %d write %d refs of '%s' (%s_{%s}, %s_{%s}, ...); "
                       "spell y=%s.0 to y=%s.%d", spell, k, n, name, name, rw_sub_text(pc->ctx, refs[0]), name,
                       rw_sub_text(pc->ctx, refs[1]), name, name, n - 1);
  if (idx >= n)
    return pass_reason(pc, "y=%s is out of range: those nests write %d distinct ref%s of '%s'", spell, n, n == 1 ? "" : "s",
                       name);
  const IrRef *y = refs[idx < 0 ? 0 : idx];
  YScan *ys = arena_alloc(&pc->ctx->arena, sizeof *ys);
  scan_ys(pc, p, k, kind, ys);
  int b = bad_index(ys, name);
  if (b >= 0)
    return pass_reason(pc, "y=%s: '%s' is written by nest %d, whose text contains '%s' (excluded as in the reference)",
                       spell, name, ys->badnest[b], ys->badwhat[b]);
  const char *yname = pass_reason(pc, "y=%s", spell);
  const char *why = covers_output(pc, s, y, yname);
  if (why) return why;
  /* an index y brings into an initialised reduction becomes one of its
     reduction indices (SPEC 9.5 rule 3): `D=D+E_{tx,2}` in a loop over a
     re-initialises D at every a; with y=E_{tx,a} it sums over a (fuzz) */
  if ((why = keeps_reduction_indices(pc, s, y, yname))) return why;
  const IrTensor *t = ir_find_tensor(p, name);
  if (t && t->dtype == DT_BOOL) return pass_reason(pc, "y=%s: '%s' is a bool tensor", spell, name);
  const char *inf = pc->ctx->unsafe_math ? NULL : mp_may_be_inf(pc, p, name);
  if (inf)
    return pass_reason(pc, "y=%s: '%s' may be infinite (%s), and inf-inf is NaN (--unsafe-math accepts it)", spell,
                       name, inf);
  if (kind == MP_MUL && !pc->ctx->unsafe_math && !mp_positive_tensor(p, name))
    return pass_reason(pc, "y=%s: '%s' is not provably nonzero%s, so X/y*y may divide by zero (--unsafe-math accepts "
                       "it)", spell, name, mp_nonzero_culprit(pc, p, name));
  if ((why = check_moderate(pc, p, kind, spell, name))) return why;
  *out = y;
  return NULL;
}

int mp_split_ys(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x, MpSplitKind kind,
                const char **out, int max) {
  (void)s;
  int n = 0;
  if (x && n < max) out[n++] = "shift";
  YScan *ys = arena_alloc(&pc->ctx->arena, sizeof *ys);
  scan_ys(pc, p, k, kind, ys);
  for (int i = 0; i < ys->n && n < max; i++) {
    const char *name = ys->refs[i]->name;
    const IrRef *refs[64];
    int from[64];
    int nr = named_refs(p, k, name, refs, from, 64), which = 0;
    for (int m = 0; m < nr; m++)
      if (mp_ref_same(NULL, refs[m], ys->refs[i])) which = m;
    const char *sp = nr > 1 ? pass_reason(pc, "%s.%d", name, which) : name;
    bool dup = false;
    for (int j = 0; j < n; j++) dup |= !strcmp(out[j], sp);
    if (!dup) out[n++] = sp;
  }
  return n;
}

const char *mp_split_y(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x, MpSplitKind kind,
                       const char *spell) {
  if (!strcmp(spell, "shift")) return check_shift(pc, p, k, s, x, kind);
  const IrRef *r = NULL;
  return check_named(pc, p, k, s, kind, spell, &r);
}

const IrTensor *mp_split_y_tensor(PassCtx *pc, const IrProgram *p, const char *spell) {
  if (!strcmp(spell, "shift")) return NULL;
  int idx;
  return ir_find_tensor(p, parse_named(pc, spell, &idx));
}

IrExpr *mp_split_y_expr(PassCtx *pc, const IrProgram *p, int k, const IrRef *x, MpSplitKind kind, const char *spell) {
  LeirCtx *ctx = pc->ctx;
  if (!strcmp(spell, "shift")) {
    return x && x->nsub ? shift_y(ctx, x, kind) : NULL;
  }
  /* excluded nests included: the rewrite does not re-check */
  int idx;
  const char *name = parse_named(pc, spell, &idx);
  const IrRef *refs[64];
  int from[64];
  int n = named_refs(p, k, name, refs, from, 64);
  if (idx == -2 || idx >= n || n == 0) return NULL;
  return ir_refexpr(ctx, ir_ref_clone(ctx, refs[idx < 0 ? 0 : idx]));
}

void mp_neighbours(LeirCtx *ctx, IrExpr *root, IrExpr *target, char *before, char *after) {
  IrExpr saved = *target;
  target->kind = E_INDEX;
  target->u.index.name = "\x01";
  target->u.index.loop = NULL;
  SBuf b = {0};
  ir_print_expr(&b, root);
  *target = saved;
  const char *at = b.s ? strchr(b.s, '\x01') : NULL;
  *before = at && at > b.s ? at[-1] : 0;
  *after = at ? at[1] : 0;
  sbuf_free(&b);
  (void)ctx;
}
