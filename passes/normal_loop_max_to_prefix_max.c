/* normal_loop_max_to_prefix_max.c -- STRATEGIES §4.14: turn a max reduction
 * into a running (prefix) max.
 *
 * Pre (REF): a single-statement nest `M=max(M,X)` (X a tensor reference
 * other than M) where X's subscript has one item more than M's, the
 * reduction index r.  REC (mathpat_chain.c, mp_match_max): X's subscript is M's
 * with the bare index r inserted (REF tests membership by substring); M's
 * items are distinct loop indices or constants; the statement has the
 * implicit -inf initialisation of SPEC §9.5 (M not written earlier) and
 * reduces over r only; r is a serial L or U loop (the prefix reads the
 * previous iteration); M's type is a float type (the guard's -inf is no
 * identity in an integer one); the copy nest passes the tx fix-up.
 * Rewrite (G fresh, tags of M so that each step is the same max in the
 * same type):
 *   H[G_{s'}=max(if_then_else(r-1<0,-inf,G_{s'[r-1]}),X);]     s' = M's items with r inserted
 *   copy(M)[M_{m}=G_{s'[r -> n-1]};]                           (after nest k)
 * The prefix form has no implicit initialisation (SPEC §9.5): its guard
 * supplies -inf at r = 0.  Class E: the same maxima in the same order. */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest of the max reduction (0-based)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k < pc->prog->nnests; k++) {
    IrStmt *s = rw_single_stmt(pc->prog->nests[k]);
    if (!s || s->rhs->kind != E_CALL || s->rhs->u.call.func != F_MAX) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

/* The copy nest over M's indices (tx fix-up), or NULL with *why. */
static IrNest *copy_nest(PassCtx *pc, const IrNest *n, const MpMax *mx, const char **renamed, const char **why) {
  const char *names[64];
  int nn = rw_names_in_ref(mx->m, names, 64);
  if (nn == 0) {
    /* a scalar M: one thread, as the reference writes nests without loops */
    IrLoop *l = rw_loop(pc->ctx, LOOP_B, 1, "tx");
    *renamed = NULL;
    return ir_nest_new(pc->ctx, 1, &l);
  }
  return rw_copy_loops(pc, n, names, nn, false, renamed, why);
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, pc->prog, c, &why);
  if (!n) return why;
  MpMax mx;
  if ((why = mp_match_max(pc, pc->prog, c->nest, false, &mx))) return why;
  c->site = mx.s->loc;
  if ((why = mp_max_not_float(pc, &mx))) return why;
  const char *renamed;
  if (!copy_nest(pc, n, &mx, &renamed, &why)) return why;
  c->why = pass_reason(pc, "nest %d computes '%s' as the maximum of '%s' over the reduction index '%s' (extent %lld); "
                       "a running (prefix) maximum over '%s' ends with the same value, max being exact in any order",
                       c->nest, mx.m->name, mx.x->name, mx.r, (long long)mx.n, mx.r);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  MpMax mx;
  const char *why, *renamed;
  /* match on the analysed program (q's statements lost their reduction
     info in the copy); q has the same nests at the same positions */
  if ((why = mp_match_max(pc, pc->prog, c->nest, false, &mx))) {
    pc->reason = why;
    return false;
  }
  IrNest *n = q->nests[c->nest];
  IrNest *cp = copy_nest(pc, n, &mx, &renamed, &why);
  if (!cp) {
    pc->reason = why;
    return false;
  }
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *g = pass_fresh_tensor(&ns);
  IrRef *gr = rw_ref(ctx, g, rw_ref_dtype(mx.m), mx.m->sc_tag, mx.m->sub, mx.m->nsub);
  mp_insert_item(ctx, gr, mx.ins, ir_index(ctx, mx.r));
  IrExpr *x = ir_refexpr(ctx, ir_ref_clone(ctx, mx.x));
  IrStmt *st = ir_stmt_new(ctx, ir_ref_clone(ctx, gr), mp_call2(ctx, F_MAX, mp_prev(ctx, gr, mx.r, mp_inf(ctx, true)), x));
  st->loc = mx.s->loc;
  n->items[0].u.stmt = st;

  IrRef *last = ir_ref_clone(ctx, gr);
  rw_subst_sub_ref(ctx, last, mx.r, ir_int(ctx, mx.n - 1));
  IrStmt *copy = ir_stmt_new(ctx, ir_ref_clone(ctx, mx.m), ir_refexpr(ctx, last));
  rw_fix_tx_stmt(ctx, copy, renamed);
  ir_nest_add_item(ctx, cp, ITEM_STMT, copy);
  rw_insert_nest(ctx, q, c->nest + 1, cp);
  return true;
}

const PassImpl pass_impl_normal_loop_max_to_prefix_max = {
  .keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
