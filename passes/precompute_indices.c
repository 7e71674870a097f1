/* precompute_indices.c -- STRATEGIES §3.5: store a compound index
 * expression in an index tensor.
 *
 * Pre (REF): a single-statement nest; a subscript item (of the output or an
 * input) that is neither a number nor a bare index and reads no tensor,
 * e.g. `c*2+g`.  Rewrite: fresh Z^{i64,g} indexed by the index names of the
 * item in order of appearance; a nest over those loops (in that order, tx
 * fix-up) `Z_{names}=item` inserted before the nest; in the nest every
 * subscript item with that text becomes the ref Z_{names} (indirect
 * indexing).  Z holds exactly the values of the item: class E.
 * Refused when the item's arithmetic overflows int64 over the whole ranges
 * of its loops (legal in the program only under an if_then_else guard that
 * keeps it in range; the table has no guard).
 * Params: item = the item's text (canonical spelling, e.g. c*2+g); one
 * candidate per distinct item text, in text order. */
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"item", true, "the subscript item, as printed (e.g. c*2+g)"},
  {NULL, false, NULL},
};

static bool eligible(const IrExpr *e) {
  const IrExpr *x = ir_expr_unparen(e);
  if (x->kind == E_INT || x->kind == E_INDEX) return false;
  IrRef tmp = {.nsub = 1, .sub = (IrExpr **)&e};
  return !rw_ref_has_nested_ref(&tmp);
}

/* Items of the statement's refs, in text order, deduplicated by text. */
static int items(PassCtx *pc, IrStmt *s, const char **texts, IrExpr **exprs, int max) {
  PtrVec refs = {0};
  rw_stmt_refs(pc->ctx, s, &refs);
  int n = 0;
  for (int i = 0; i < refs.n; i++) {
    IrRef *r = refs.v[i];
    for (int d = 0; d < r->nsub; d++) {
      if (!eligible(r->sub[d])) continue;
      const char *t = rw_text(pc->ctx, r->sub[d]);
      bool dup = false;
      for (int j = 0; j < n; j++) dup |= !strcmp(texts[j], t);
      if (!dup && n < max) {
        texts[n] = t;
        exprs[n++] = r->sub[d];
      }
    }
  }
  return n;
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    IrStmt *s = rw_single_stmt(p->nests[k]);
    if (!s) continue;
    const char *t[64];
    IrExpr *e[64];
    int n = items(pc, s, t, e, 64);
    for (int i = 0; i < n; i++) {
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "item", t[i]);
      pass_emit(pc, c);
    }
  }
}

static char *nospace(LeirCtx *ctx, const char *s) {
  char *r = arena_strdup(&ctx->arena, s), *w = r;
  for (const char *q = s; *q; q++)
    if (*q != ' ' && *q != '\t') *w++ = *q;
  *w = 0;
  return r;
}

static const char *resolve(PassCtx *pc, const IrProgram *p, PassCand *c, IrNest **np, IrStmt **sp, IrExpr **ep) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d items; precompute_indices needs a single statement", c->nest, n->nitems);
  c->site = s->loc;
  const char *want = pass_cand_get(c, "item");
  if (!want) return "missing parameter 'item'";
  want = nospace(pc->ctx, want);
  PtrVec refs = {0};
  rw_stmt_refs(pc->ctx, s, &refs);
  for (int i = 0; i < refs.n; i++) {
    IrRef *r = refs.v[i];
    for (int d = 0; d < r->nsub; d++)
      if (!strcmp(rw_text(pc->ctx, r->sub[d]), want)) {
        if (!eligible(r->sub[d]))
          return pass_reason(pc, "item '%s' is a number, a bare index or reads a tensor", want);
        c->site = r->loc;
        *np = n;
        *sp = s;
        *ep = r->sub[d];
        return NULL;
      }
  }
  return pass_reason(pc, "no subscript of nest %d has the item '%s'", c->nest, want);
}

static const char *check(PassCtx *pc, PassCand *c) {
  IrNest *n;
  IrStmt *s;
  IrExpr *e;
  const char *why = resolve(pc, pc->prog, c, &n, &s, &e);
  if (why) return why;
  const char *names[64], *renamed;
  int nn = rw_names_in_expr(e, names, 64);
  if (nn == 0) return pass_reason(pc, "item '%s' uses no index", rw_text(pc->ctx, e));
  if (!rw_copy_loops(pc, n, names, nn, true, &renamed, &why)) return why;
  if (ir_index_overflows_unguarded(pc->ctx, e)) /* fuzz (issue 11): the program checks it only under its guard */
    return pass_reason(pc, "the index expression %s overflows int64 at some iteration of its loops: the program "
                       "evaluates it only where its if_then_else guard holds, but the table would hold it for every "
                       "iteration", rw_text(pc->ctx, e));
  c->why = pass_reason(pc, "the index expression %s uses %d loop ind%s of its nest and nothing else that changes, so "
                       "a table over those loops holds its value for every iteration",
                       rw_text(pc->ctx, e), nn, nn == 1 ? "ex" : "ices");
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  IrNest *n;
  IrStmt *s;
  IrExpr *e;
  if (resolve(pc, q, &cc, &n, &s, &e)) return false;
  const char *names[64], *renamed, *why;
  int nn = rw_names_in_expr(e, names, 64);
  IrNest *copy = rw_copy_loops(pc, n, names, nn, true, &renamed, &why);
  if (!copy) return false;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *z = pass_fresh_tensor(&ns);
  IrExpr *subs[64];
  for (int i = 0; i < nn; i++) subs[i] = ir_index(ctx, names[i]);
  const char *text = rw_text(ctx, e);
  IrStmt *cs = ir_stmt_new(ctx, rw_ref(ctx, z, DT_I64, SC_G, subs, nn), ir_expr_clone(ctx, e));
  rw_fix_tx_stmt(ctx, cs, renamed);
  ir_nest_add_item(ctx, copy, ITEM_STMT, cs);
  IrExpr *zref = ir_refexpr(ctx, rw_ref(ctx, z, DT_I64, SC_G, subs, nn));
  PtrVec refs = {0};
  rw_stmt_refs(ctx, s, &refs);
  for (int i = 0; i < refs.n; i++) {
    IrRef *r = refs.v[i];
    for (int d = 0; d < r->nsub; d++)
      if (!strcmp(rw_text(ctx, r->sub[d]), text)) r->sub[d] = ir_expr_clone(ctx, zref);
  }
  rw_insert_nest(ctx, q, cc.nest, copy);
  return true;
}

const PassImpl pass_impl_precompute_indices = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
