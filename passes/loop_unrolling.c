/* loop_unrolling.c -- STRATEGIES §2.5: mark a loop `U` (unrolled).
 *
 * Pre (REF): a nest with >= 3 loops; the loop is not tx, has extent < 1024,
 * and the product of the other extents is < 2^28.  REC: only `L` loops
 * (REF may turn B/P/V loops into U).  Class E: `U` runs like `L`.
 * No code-size check here: the code generator unrolls only within the
 * bound of codegen/unroll.h (passes/README.md, Code size). */
#include "passes/passes.h"
#include "passes/rewrite.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the loop to unroll"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++)
    for (int i = 0; i < p->nests[k]->nloops; i++) {
      if (p->nests[k]->loops[i]->kind != LOOP_L) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "loop", p->nests[k]->loops[i]->index);
      pass_emit(pc, c);
    }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  int pos;
  IrNest *n = rw_cand_nest_loop(pc, pc->prog, c, &pos, &why);
  if (!n) return why;
  const IrLoop *l = n->loops[pos];
  if (n->nloops < 3)
    return pass_reason(pc, "nest %d has %d loop%s; unrolling needs a nest with at least 3", c->nest, n->nloops,
                       n->nloops == 1 ? "" : "s");
  if (l->kind != LOOP_L)
    return pass_reason(pc, "loop '%s' is a %c loop; only L loops are unrolled", l->index, ir_loop_kind_char(l->kind));
  if (l->extent >= 1024)
    return pass_reason(pc, "loop '%s' has extent %lld; unrolling needs an extent below 1024", l->index,
                       (long long)l->extent);
  if (rw_extent_product(n, pos) >= (int64_t)1 << 28)
    return pass_reason(pc, "the other loops of nest %d run 2^28 or more iterations", c->nest);
  c->why = pass_reason(pc, "loop '%s' of nest %d is an L loop of extent %lld (below 1024) and the other loops run "
                       "%lld iterations (below 2^28); marking it U changes no iteration order",
                       l->index, c->nest, (long long)l->extent, (long long)rw_extent_product(n, pos));
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  if (pos < 0) return false;
  n->loops[pos]->kind = LOOP_U;
  (void)pc;
  return true;
}

const PassImpl pass_impl_loop_unrolling = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
