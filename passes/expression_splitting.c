/* expression_splitting.c -- STRATEGIES §1.4: hoist one sub-expression into
 * its own nest.
 *
 * Pre (REF): a nest with exactly one statement; REF looks for the first of
 * abs(…) sqrt(…) min(…) max(…) exp(…) log(…) if_then_else(…), a span
 * between two `+`, a span `+ … *name`, occurring once and not the whole
 * right side.  REC: any call or arithmetic operator sub-tree of the right
 * side, chosen by `pattern` = its number in pre-order (0 is the whole right
 * side; parentheses are not counted; subscripts are not entered), which
 * is not the whole right side, not a single operand or a comparison; it
 * does not read the statement's own tensor (the hoisted value would be
 * computed before the updates), does not sit in a branch of an
 * if_then_else (it would be evaluated where the branch is not taken, e.g.
 * out of bounds); no nested nests.  The nest writes nothing else, so the
 * values the sub-expression reads are those it reads in place.
 * Rewrite: fresh Z with the output's dtype and scope, indexed by the index
 * names the sub-expression uses, in nest order (REF-BUG: a Python set
 * order); a new nest over those loops (kinds and extents of the nest; tx
 * fix-up of §0.2; `B^{1}_{tx=0}` for a scalar) inserted before the nest,
 * `Z_{...}=sub;`; the statement reads Z_{...} instead.  The statement keeps
 * every index it mentioned, so its implicit initialisation (SPEC §9.5) is
 * unchanged.  Size guard: Z with 2^31-1 or more elements.
 * Params: nest, pattern, and `order` (not enumerated; --check-step reads it
 * off the reference's after): Z's subscript and its nest's loops in
 * another order, a permutation of the indices in nest order (REF's set
 * order, e.g. `L^{8}_{a=0}B^{4}_{tx=0}[Z_{a,tx}=...]`): every element of
 * Z is still written once, before the statement reads it.  Class E† per candidate: E when the sub-expression
 * is computed in Z's dtype (sema's type of the node), T when both are
 * float types, refused otherwise -- and refused when Z would be f16/bf16
 * and the sub-expression is computed in another type (its values may
 * overflow Z although the statement's do not), unless --unsafe-math;
 * refused when it sits in an if_then_else condition and has index values
 * or integer literals (i64 there, Z's dtype in Z's statement) unless Z is
 * i64. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the nest (0-based); it must have one statement"},
  {"pattern", true, "the sub-expression: its number in a pre-order walk of the right side (0 = the whole)"},
  {"order", false, "the new tensor's subscript and its nest's loops as a permutation of the sub-expression's "
                   "indices in nest order, e.g. 1.0 (default: nest order)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    IrStmt *s = rw_single_stmt(p->nests[k]);
    if (!s) continue;
    const PtrVec *sites = gx_sites_of(pc, p, s);
    for (int i = 1; i < sites->n; i++) {
      const GxSite *st = sites->v[i];
      if (gx_not_hoistable(st->e) || st->lazy) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set_int(pc->ctx, c, "pattern", i);
      pass_emit(pc, c);
    }
  }
}

/* Resolves nest and pattern on p: the statement and the site. */
static const char *resolve(PassCtx *pc, const IrProgram *p, PassCand *c, IrNest **np, IrStmt **sp, GxSite **site) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d statements; expression_splitting needs exactly one", c->nest, n->nitems);
  c->site = s->loc;
  int64_t k;
  int r = pass_cand_get_int(c, "pattern", &k);
  if (r <= 0)
    return r == 0 ? "missing parameter 'pattern'"
                  : pass_reason(pc, "pattern=%s is not a sub-expression number", pass_cand_get(c, "pattern"));
  const PtrVec *sites = gx_sites_of(pc, p, s);
  if (k < 0 || k >= sites->n)
    return pass_reason(pc, "pattern=%lld is out of range: the right side has sub-expressions 0..%d", (long long)k,
                       sites->n - 1);
  *np = n;
  *sp = s;
  *site = sites->v[k];
  if ((*site)->e->loc.line) c->site = (*site)->e->loc;
  return NULL;
}

/* The index names of the sub-expression in nest order; returns the count. */
static int sub_names(const IrNest *n, const IrExpr *e, const char **out) {
  const char *names[DEP_MAX_LOOPS];
  int nn = rw_names_in_expr(e, names, DEP_MAX_LOOPS), k = 0;
  for (int i = 0; i < n->nloops; i++)
    for (int j = 0; j < nn; j++)
      if (!strcmp(n->loops[i]->index, names[j])) out[k++] = names[j];
  return k;
}

/* Permutes names (n of them) by the parameter `order` (`1.0`: the second
 * name first), when given; NULL, or why the parameter is wrong. */
static const char *apply_order(PassCtx *pc, const PassCand *c, const char **names, int n) {
  const char *o = pass_cand_get(c, "order");
  if (!o) return NULL;
  int perm[DEP_MAX_LOOPS], k = 0;
  bool seen[DEP_MAX_LOOPS] = {false};
  const char *bad = pass_reason(pc, "order=%s is not a permutation of 0..%d (the sub-expression's %d loop ind%s in "
                                "nest order)", o, n - 1, n, n == 1 ? "ex" : "ices");
  for (const char *p = o;;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0 || v >= n || k >= n || seen[v]) return bad;
    seen[v] = true;
    perm[k++] = (int)v;
    if (!*end) break;
    if (*end != '.') return bad;
    p = end + 1;
  }
  if (k != n) return bad;
  const char *orig[DEP_MAX_LOOPS];
  memcpy(orig, names, sizeof *names * (size_t)n);
  for (int i = 0; i < n; i++) names[i] = orig[perm[i]];
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  IrNest *n;
  IrStmt *s;
  GxSite *st;
  const char *why = resolve(pc, pc->prog, c, &n, &s, &st);
  if (why) return why;
  const char *txt = rw_text(pc->ctx, st->e);
  if (st->e == s->rhs || st->slot == &s->rhs) return "pattern=0 is the whole right side";
  const char *kind = gx_not_hoistable(st->e);
  if (kind) return pass_reason(pc, "sub-expression %s is %s", txt, kind);
  if (st->lazy) return pass_reason(pc, "sub-expression %s sits in %s (evaluated lazily)", txt, gx_lazy_place(st));
  if (gx_reads(st->e, s->lhs->name))
    return pass_reason(pc, "sub-expression %s reads the statement's own tensor '%s'", txt, s->lhs->name);
  IrDType tz = s->lhs->tensor ? s->lhs->tensor->dtype : s->lhs->dt_tag, te = st->e->type;
  if (te != tz && !(gx_float_rank(te) && gx_float_rank(tz)))
    return pass_reason(pc, "sub-expression %s is computed in %s, but '%s' would be %s", txt, ir_dtype_name(te),
                       s->lhs->name, ir_dtype_name(tz));
  if ((why = gx_cond_retyped(pc, st, tz))) return why;
  /* a half-precision Z holding a value computed in another type: values
     the statement's result keeps (A*exp(W) in f32, stored as an f16 C)
     may overflow Z's range (fuzz: exp(W) > 65504 became inf) */
  if (te != tz && ir_dtype_is_half(tz) && !pc->ctx->unsafe_math)
    return pass_reason(pc, "sub-expression %s is computed in %s but the new tensor would be %s (the output's type), "
                       "whose range it may exceed where the whole statement's value does not (--unsafe-math allows it)",
                       txt, ir_dtype_name(te), ir_dtype_name(tz));
  const char *names[DEP_MAX_LOOPS], *renamed;
  int nn = sub_names(n, st->e, names);
  if ((why = apply_order(pc, c, names, nn))) return why;
  if (nn && !rw_copy_loops(pc, n, names, nn, true, &renamed, &why)) return why;
  int64_t size = 1;
  for (int i = 0; i < nn; i++)
    if (__builtin_mul_overflow(size, n->loops[rw_loop_pos(n, names[i])]->extent, &size)) size = INT64_MAX;
  if (size >= ((int64_t)1 << 31) - 1)
    return pass_reason(pc, "size guard: the new tensor would have %lld elements (2^31-1 or more)", (long long)size);
  c->cls = te == tz ? PASS_E : PASS_T;
  c->why = pass_reason(pc, "sub-expression %s of the statement writing '%s' is hoistable: not the whole right side, "
                       "not in a lazily evaluated if_then_else branch, it does not read '%s', it depends on %d loop "
                       "ind%s, and its %lld values fit a new tensor (below 2^31)%s",
                       txt, s->lhs->name, s->lhs->name, nn, nn == 1 ? "ex" : "ices", (long long)size,
                       te == tz ? "" : pass_reason(pc, "; it is computed in %s and stored in %s (class T)",
                                                   ir_dtype_name(te), ir_dtype_name(tz)));
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  IrNest *n;
  IrStmt *s;
  GxSite *st;
  if (resolve(pc, q, &cc, &n, &s, &st)) return false;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *z = pass_fresh_tensor(&ns);
  IrDType dt = s->lhs->tensor ? s->lhs->tensor->dtype : s->lhs->dt_tag;
  const char *names[DEP_MAX_LOOPS], *renamed = NULL, *why;
  int nn = sub_names(n, st->e, names);
  if (apply_order(pc, c0, names, nn)) return false;
  IrNest *m;
  if (nn) {
    m = rw_copy_loops(pc, n, names, nn, true, &renamed, &why);
    if (!m) return false;
  } else {
    IrLoop *tx = rw_loop(ctx, LOOP_B, 1, "tx");
    tx->hw = HW_TX;
    m = ir_nest_new(ctx, 1, &tx);
  }
  IrExpr **items = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(nn ? nn : 1));
  for (int i = 0; i < nn; i++) items[i] = ir_index(ctx, names[i]);
  IrStmt *def = ir_stmt_new(ctx, rw_ref(ctx, z, dt, s->lhs->sc_tag, items, nn), ir_expr_clone(ctx, st->e));
  rw_fix_tx_stmt(ctx, def, renamed);
  ir_nest_add_item(ctx, m, ITEM_STMT, def);
  *st->slot = ir_refexpr(ctx, rw_ref(ctx, z, dt, s->lhs->sc_tag, items, nn));
  rw_insert_nest(ctx, q, cc.nest, m);
  return true;
}

const PassImpl pass_impl_expression_splitting = {
    .keys = keys, .enumerate = enumerate, .check = check, .apply = apply, .keeps_depth = true};
