/* online_softmax.c -- STRATEGIES §4.19: the running max and exp-sum of
 * §4.18 feed the normalisation directly.
 *
 * Pre (REF): the §4.18 pattern (nest k `M=max(M,X)`, nest k+1 with the
 * same loops `S=S+exp(X-M)`) and a later statement `Y=exp(X-M)/S` (same
 * X, M, S as text).  REC: the §4.18 rules (mathpat_chain.c), and S, which
 * disappears, is an intermediate with no declared shape, written only by
 * the sum and not used before it.
 * Rewrite (G fresh with S's tags): nest k becomes the fused nest of §4.18,
 * nest k+1 is removed (no copy of S), and in every later nest a ref of S
 * becomes G with the item n-1 at r's position and a ref of M gets that
 * item: the division reads `exp(X-M_{..,n-1})/G_{..,n-1}`.  Class T. */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest of the max reduction (the exp-sum follows it)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 2 < pc->prog->nnests; k++) {
    IrStmt *s = rw_single_stmt(pc->prog->nests[k]);
    if (!s || s->rhs->kind != E_CALL || s->rhs->u.call.func != F_MAX) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  if (!rw_cand_nest(pc, pc->prog, c, &why)) return why;
  MpSoftmax sm;
  if ((why = mp_match_softmax(pc, pc->prog, c->nest, &sm))) return why;
  c->site = sm.mx.s->loc;
  IrStmt *div;
  if (mp_find_division(pc->ctx, pc->prog, c->nest + 2, &sm, &div) < 0)
    return pass_reason(pc, "no later statement 'Y=exp(%s-%s)/%s' normalises the softmax of nests %d and %d",
                       sm.mx.x->name, sm.mx.m->name, sm.sref->name, c->nest, c->nest + 1);
  if ((why = mp_check_chain_tensors(pc, pc->prog, &sm, true))) return why;
  c->why = pass_reason(pc, "nest %d computes the row maximum '%s' of '%s' over '%s' (extent %lld), nest %d the sum "
                       "'%s' of exp(%s-%s), and a later statement %s=exp(%s-%s)/%s normalises it; the chain's tensors "
                       "are not used elsewhere, so one pass with a running maximum and a rescaled sum computes the "
                       "same softmax",
                       c->nest, sm.mx.m->name, sm.mx.x->name, sm.mx.r, (long long)sm.mx.n, c->nest + 1,
                       sm.sref->name, sm.mx.x->name, sm.mx.m->name, div->lhs->name, sm.mx.x->name, sm.mx.m->name,
                       sm.sref->name);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  MpSoftmax sm;
  const char *why;
  int k = c->nest;
  if ((why = mp_match_softmax(pc, pc->prog, k, &sm))) {
    pc->reason = why;
    return false;
  }
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *g = pass_fresh_tensor(&ns);
  q->nests[k] = mp_fused_nest(ctx, pc->prog->nests[k], &sm, g, SC_NONE, SC_NONE);
  for (int i = k + 1; i + 1 < q->nnests; i++) q->nests[i] = q->nests[i + 1];
  q->nnests--;
  mp_retarget_later(ctx, q, k + 1, &sm, g, rw_ref_dtype(sm.sref), sm.sref->sc_tag);
  return true;
}

const PassImpl pass_impl_online_softmax = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
