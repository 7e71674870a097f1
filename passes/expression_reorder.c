/* expression_reorder.c -- STRATEGIES §1.9: swap two adjacent independent
 * nests.
 *
 * Pre (REF): nest i's outputs are not read by nest i+1.  REC: nor does nest
 * i+1 write anything nest i reads or writes (REF ignores write-after-read
 * and write-after-write) -- except at elements the other nest provably
 * never touches (dataflow.h: disjoint affine ranges, e.g. the two halves
 * of a concatenation); a statement that updates its tensor T must not be
 * moved across another writer of T, since whether an earlier statement
 * wrote T decides its implicit initialisation (SPEC §9.5 rule 1); both
 * nests without nested nests.  Rewrite: swap nests i and i+1.
 * Params: nest = i.  Class E. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the first of the two nests (0-based); it moves after the next one"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 1 < pc->prog->nnests; k++) {
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *b;
  if (!gx_cand_pair(pc, pc->prog, c, &b, &why)) return why;
  const DataFlow *df = df_analyse(pc, pc->prog);
  DfConflict cf;
  if (df_nest_conflict(df, c->nest, c->nest + 1, &cf)) return df_describe_conflict(pc, &cf, c->nest, c->nest + 1);
  for (int k = 0; k < 2; k++) {
    const DfNest *d = &df->nests[c->nest + k];
    for (int s = 0; s < d->nstmts; s++) {
      const IrStmt *st = d->stmts[s];
      if (st->self_ref && df_find(df, st->lhs->name, c->nest + 1 - k, c->nest + 2 - k, DF_WRITE, NULL))
        return pass_reason(pc, "'%s' updates itself in nest %d and nest %d writes it too: the swap would change its "
                           "implicit initialisation (SPEC 9.5)", st->lhs->name, c->nest + k, c->nest + 1 - k);
    }
  }
  /* an intermediate takes the tags of its first write (SPEC 6.1): when
     both nests write T with different tags, the swap would retype it
     (fuzz_passes: D^{f32}_{0,...} then D^{f16}_{1,...}; swapped, D became
     f16) */
  const DfNest *d0 = &df->nests[c->nest], *d1 = &df->nests[c->nest + 1];
  for (int s0 = 0; s0 < d0->nstmts; s0++) {
    const IrRef *w0 = d0->stmts[s0]->lhs;
    if ((w0->tensor && w0->tensor->declared) || df_find(df, w0->name, 0, c->nest, DF_WRITE, NULL)) continue;
    for (int s1 = 0; s1 < d1->nstmts; s1++) {
      const IrRef *w1 = d1->stmts[s1]->lhs;
      if (strcmp(w0->name, w1->name) || (w0->dt_tag == w1->dt_tag && w0->sc_tag == w1->sc_tag)) continue;
      return pass_reason(pc, "nests %d and %d write '%s' with different tags (%s, %s): '%s' takes those of its first "
                         "write, so the swap would change its type or scope", c->nest, c->nest + 1, w0->name,
                         gx_ref_text(pc->ctx, w0), gx_ref_text(pc->ctx, w1), w0->name);
    }
  }
  c->why = pass_reason(pc, "the dataflow analysis finds no conflict between nests %d and %d (neither reads or writes "
                       "what the other writes), so their order does not matter", c->nest, c->nest + 1);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  (void)pc;
  IrNest *t = q->nests[c->nest];
  q->nests[c->nest] = q->nests[c->nest + 1];
  q->nests[c->nest + 1] = t;
  return true;
}

const PassImpl pass_impl_expression_reorder = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
