/* normal_loop_summation_on_exp_to_prefix_summation_on_exp.c -- STRATEGIES
 * §4.18: a running max and a running exp-sum in one nest.
 *
 * Pre (REF): nest k is `M=max(M,X)` and nest k+1, with the same loops, is
 * `S=S+exp(X-M)` (same X and M as text).  REC (mathpat_chain.c): the max rules
 * of §4.14 (mp_match_max, strict: every loop of extent > 1 is used, or the
 * sum would repeat); S has the implicit 0 initialisation and M's
 * subscript; M is an intermediate with no declared shape, written only by
 * the max and not used before it (its rank changes); X is not possibly
 * -inf (a row starting with -inf makes exp(-inf+inf) = NaN), unless
 * --unsafe-math; the copy nest of S passes the tx fix-up.
 * Rewrite (G fresh with S's tags, s' = M's items with r inserted):
 *   H[M_{s'}=max(if_then_else(r-1<0,-inf,M_{s'[r-1]}),X);
 *     G_{s'}=if_then_else(r-1<0,1,G_{s'[r-1]})*exp(if_then_else(r-1<0,-inf,M_{s'[r-1]})-M_{s'})+exp(X-M_{s'});]
 *   copy(S)[S_{s}=G_{s'[r -> n-1]};]
 * and every later ref of M gets the item n-1 at r's position.  Class T
 * (the sum is rescaled at every step). */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest of the max reduction (the exp-sum follows it)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 1 < pc->prog->nnests; k++) {
    IrStmt *s = rw_single_stmt(pc->prog->nests[k]);
    if (!s || s->rhs->kind != E_CALL || s->rhs->u.call.func != F_MAX) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

static IrNest *copy_nest(PassCtx *pc, const IrNest *n, const IrRef *s, const char **renamed, const char **why) {
  const char *names[64];
  int nn = rw_names_in_ref(s, names, 64);
  if (nn == 0) {
    IrLoop *l = rw_loop(pc->ctx, LOOP_B, 1, "tx");
    *renamed = NULL;
    return ir_nest_new(pc->ctx, 1, &l);
  }
  return rw_copy_loops(pc, n, names, nn, false, renamed, why);
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why, *renamed;
  if (!rw_cand_nest(pc, pc->prog, c, &why)) return why;
  MpSoftmax sm;
  if ((why = mp_match_softmax(pc, pc->prog, c->nest, &sm))) return why;
  c->site = sm.mx.s->loc;
  if ((why = mp_check_chain_tensors(pc, pc->prog, &sm, false))) return why;
  if (!copy_nest(pc, pc->prog->nests[c->nest + 1], sm.sref, &renamed, &why)) return why;
  c->why = pass_reason(pc, "nest %d computes the maximum '%s' of '%s' over '%s' (extent %lld) and nest %d the sum '%s' "
                       "of exp(%s-%s); the chain's tensors are not used elsewhere, so a prefix sum over '%s' ends with "
                       "the same total",
                       c->nest, sm.mx.m->name, sm.mx.x->name, sm.mx.r, (long long)sm.mx.n, c->nest + 1,
                       sm.sref->name, sm.mx.x->name, sm.mx.m->name, sm.mx.r);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  MpSoftmax sm;
  const char *why, *renamed;
  int k = c->nest;
  if ((why = mp_match_softmax(pc, pc->prog, k, &sm))) {
    pc->reason = why;
    return false;
  }
  IrNest *cp = copy_nest(pc, q->nests[k + 1], sm.sref, &renamed, &why);
  if (!cp) {
    pc->reason = why;
    return false;
  }
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *g = pass_fresh_tensor(&ns);
  q->nests[k] = mp_fused_nest(ctx, pc->prog->nests[k], &sm, g, SC_NONE, SC_NONE);
  IrRef *last = mp_running_ref(ctx, &sm, g, rw_ref_dtype(sm.sref), sm.sref->sc_tag);
  rw_subst_sub_ref(ctx, last, sm.mx.r, ir_int(ctx, sm.mx.n - 1));
  IrStmt *copy = ir_stmt_new(ctx, ir_ref_clone(ctx, sm.sref), ir_refexpr(ctx, last));
  copy->loc = sm.ssum->loc;
  rw_fix_tx_stmt(ctx, copy, renamed);
  ir_nest_add_item(ctx, cp, ITEM_STMT, copy);
  q->nests[k + 1] = cp;
  mp_retarget_later(ctx, q, k + 2, &sm, NULL, DT_NONE, SC_NONE);
  return true;
}

const PassImpl pass_impl_normal_loop_summation_on_exp_to_prefix_summation_on_exp = {
  .keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
