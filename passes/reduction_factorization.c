/* reduction_factorization.c -- STRATEGIES §2.9: split a reduction loop in
 * two and combine the partial results.
 *
 * Pre (REF): a single-statement nest; the loop is a reduce axis (not in the
 * left subscript, extent > 1, not tx); the fresh-inputs rule; the calc
 * skeleton is not a pure copy; no index used as a value; the statement
 * accumulates (`X+`, `X*`, `min(X`, `max(X`).  REC: the loop must be
 * mentioned by the statement (a repeated loop is no reduction), as must
 * every other loop of extent > 1 (a repeat restarts the implicit
 * initialisation, see check), the spine
 * of the update is one operator group (rw_accum_op: + and -, or *), and the
 * statement must be a reduction with the implicit initialisation of SPEC
 * §9.5 (so the partial results start from the identity too), whose
 * per-step conversion to the output's dtype recombines exactly
 * (rw_accum_not_associative).
 * Rewrite (r split at v1, v2 = n - v1): fresh P and Q (the output's tags):
 *   H[r:v1]     P_s = <rhs with Out -> P>
 *   H[r:v2]     Q_s = <rhs with Out -> Q, r -> r+v1 in the inputs>
 *   H without r (plus B^{1}_{tx=0} first if no loop is bound to threadIdx.x)
 *               Out_s = Out_s + (P_s + Q_s)      (* likewise; max(Out,max(P,Q)))
 * The combine statement has no reduction index, so its implicit
 * initialisation fires at every execution: Out = P + Q.
 * Params: split = v1 in [1, n-1]; enumerate lists v1 = n/2 only.  Size
 * guard (REF): P and Q (the output's shape) may not exceed 2^31 elements.
 * REF sometimes indexes P and Q by every loop but r instead (e.g. a scalar
 * sum gets P_{tx,a,c}); both are correct, leirc keeps the output's
 * subscript.  Class T for + - *, E for max and min. */
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the reduction loop to split"},
  {"split", true, "extent of the first part (1 <= split < extent)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    IrStmt *s = rw_single_stmt(n);
    if (!s) continue;
    for (int i = 0; i < n->nloops; i++) {
      const IrLoop *l = n->loops[i];
      if (l->extent < 2 || rw_ref_mentions(s->lhs, l->index) || !rw_stmt_mentions(s, l->index)) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "loop", l->index);
      pass_cand_set_int(pc->ctx, c, "split", l->extent / 2);
      pass_emit(pc, c);
    }
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  int pos;
  IrNest *n = rw_cand_nest_loop(pc, pc->prog, c, &pos, &why);
  if (!n) return why;
  const IrLoop *l = n->loops[pos];
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d statements; reduction_factorization needs exactly one", c->nest, n->nitems);
  if (rw_ref_mentions(s->lhs, l->index))
    return pass_reason(pc, "loop '%s' occurs in the left subscript: it is not a reduction loop", l->index);
  if (l->extent < 2) return pass_reason(pc, "loop '%s' has extent 1", l->index);
  if (!strcmp(l->index, "tx")) return "loop 'tx' is excluded";
  if (!rw_stmt_mentions(s, l->index))
    return pass_reason(pc, "the statement does not use index '%s' (a repeated loop, not a reduction)", l->index);
  if ((why = rw_fresh_inputs_rule(pc, pc->prog, c->nest))) return why;
  if (rw_is_pure_copy(s)) return "the statement is a pure copy";
  const char *v = rw_index_used_as_value(n);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, c->nest);
  IrReduceOp op = rw_accum_op(pc->ctx, s, NULL);
  if (op == RED_NONE)
    return pass_reason(pc, "the statement does not accumulate into '%s' (%s=%s+..., *..., max(%s,...) or min(%s,...))",
                       s->lhs->name, s->lhs->name, s->lhs->name, s->lhs->name, s->lhs->name);
  if (s->init != INIT_REDUCE)
    return pass_reason(pc, "the statement is not a reduction with an implicit initialisation (SPEC 9.5)");
  if ((why = rw_accum_not_associative(pc, s, op))) return why;
  /* a loop the statement does not use repeats it, and the implicit
     initialisation fires whenever the reduction indices are all 0, so a
     repeat outside a reduction loop restarts the sum (SPEC 9.5); the
     partial results and their combine nest restart it elsewhere
     (fuzz_passes: L^4_c B^4_tx L^16_a [S=S+A_{c,a}] split at c: A_0+4A_1
     became A_0+4A_1+A_2+4A_3, where it is A_0+4(A_1+A_2+A_3)) */
  if ((why = rw_repeated_reduction(pc, n, s))) return why;
  int64_t v1;
  int r = pass_cand_get_int(c, "split", &v1);
  if (r <= 0) return r == 0 ? "missing parameter 'split'" : pass_reason(pc, "split=%s is not an integer", pass_cand_get(c, "split"));
  if (v1 < 1 || v1 >= l->extent)
    return pass_reason(pc, "split=%lld is out of range 1..%lld", (long long)v1, (long long)l->extent - 1);
  const IrTensor *t = s->lhs->tensor;
  if (t && ir_tensor_numel(t) > (int64_t)1 << 31)
    return pass_reason(pc, "size guard: the partial results would have %lld elements (more than 2^31)",
                       (long long)ir_tensor_numel(t));
  c->cls = op == RED_MAX || op == RED_MIN ? PASS_E : PASS_T;
  c->why = pass_reason(pc, "nest %d has one statement, an implicitly initialised reduction into '%s' (SPEC 9.5); "
                       "loop '%s' (extent %lld) is a reduction loop (in the statement, not in its left subscript), "
                       "no index is used as a value, split=%lld is in 1..%lld%s",
                       c->nest, s->lhs->name, l->index, (long long)l->extent, (long long)v1, (long long)l->extent - 1,
                       c->cls == PASS_E ? "; max/min partial results combine exactly"
                                        : "; the partial sums re-associate the reduction (class T)");
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  int64_t v1;
  IrStmt *s = rw_single_stmt(n);
  if (pos < 0 || !s || pass_cand_get_int(c, "split", &v1) != 1) return false;
  IrReduceOp op = rw_accum_op(ctx, s, NULL);
  const char *r = n->loops[pos]->index;
  int64_t ext = n->loops[pos]->extent;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *pn = pass_fresh_tensor(&ns), *qn = pass_fresh_tensor(&ns);
  IrRef *out = s->lhs;
  /* the partials hold the output's values: its dtype, not a tag that the
     declaration overrides (`D^{f16}` with `%out D : f32[...]` is f32) */
  IrDType dt = rw_ref_dtype(out);

  IrNest *np = ir_nest_clone(ctx, n), *nq = ir_nest_clone(ctx, n);
  rw_set_extent(np->loops[pos], v1);
  rw_set_extent(nq->loops[pos], ext - v1);
  IrStmt *sp = np->items[0].u.stmt, *sq = nq->items[0].u.stmt;
  rw_rename_tensor_stmt(sp, out->name, pn, dt, out->sc_tag);
  rw_rename_tensor_stmt(sq, out->name, qn, dt, out->sc_tag);
  rw_subst_sub(ctx, &sq->rhs, r, ir_binary(ctx, OP_ADD, ir_index(ctx, r), ir_int(ctx, v1)));

  /* the combine nest: the loops without r */
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops + 1));
  int k = 0;
  bool has_tx = false;
  for (int i = 0; i < n->nloops; i++) {
    if (i == pos) continue;
    loops[k] = rw_loop_clone(ctx, n->loops[i]);
    has_tx |= !strcmp(loops[k]->index, "tx") || (loops[k]->kind == LOOP_B && ir_hw_axis_of_index(loops[k]->index) == HW_TX);
    k++;
  }
  if (!has_tx) {
    memmove(loops + 1, loops, sizeof(IrLoop *) * (size_t)k);
    loops[0] = rw_loop(ctx, LOOP_B, 1, "tx");
    k++;
  }
  IrExpr *pe = ir_refexpr(ctx, rw_ref(ctx, pn, dt, out->sc_tag, out->sub, out->nsub));
  IrExpr *qe = ir_refexpr(ctx, rw_ref(ctx, qn, dt, out->sc_tag, out->sub, out->nsub));
  IrExpr *self = ir_refexpr(ctx, ir_ref_clone(ctx, out));
  IrStmt *sc = ir_stmt_new(ctx, ir_ref_clone(ctx, out), rw_accum_combine(ctx, op, self, rw_accum_combine(ctx, op, pe, qe)));
  IrNest *nc = rw_nest1(ctx, loops, k, sc);

  q->nests[c->nest] = np;
  rw_insert_nest(ctx, q, c->nest + 1, nq);
  rw_insert_nest(ctx, q, c->nest + 2, nc);
  return true;
}

const PassImpl pass_impl_reduction_factorization = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
