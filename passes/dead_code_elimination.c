/* dead_code_elimination.c -- STRATEGIES §1.8: delete a nest whose result
 * is never read.
 *
 * Pre (REF): a nest other than the last whose output tensors are read by
 * no later nest.  REC: it writes no program output (REF may delete the
 * first half of a concatenation into %out); no nested nests.  A later nest
 * that accumulates into one of the tensors reads it, so deleting the nest
 * never changes a later statement's implicit initialisation (SPEC §9.5).
 * Rewrite: delete the nest.  REF fabricates a dead nest when the program
 * has none (§1.8); leirc has no such mode: on a program without dead code
 * the pass has no candidate.  Params: nest.  Class E. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the nest to delete (0-based)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 1 < pc->prog->nnests; k++) {
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

static void delete_nest(IrProgram *q, int k) {
  for (int i = k; i + 1 < q->nnests; i++) q->nests[i] = q->nests[i + 1];
  q->nnests--;
}

static const char *shape_text(PassCtx *pc, const IrTensor *t) {
  SBuf b = {0};
  sbuf_putc(&b, '[');
  for (int d = 0; d < t->rank; d++) sbuf_printf(&b, "%s%lld", d ? "," : "", (long long)t->shape[d]);
  sbuf_putc(&b, ']');
  const char *r = pass_reason(pc, "%s", b.s);
  sbuf_free(&b);
  return r;
}

/* An intermediate's shape is inferred from all its writes (SPEC 6.2): when
 * an earlier nest reads a tensor that nest k writes, deleting nest k must
 * leave that shape as it is, or the earlier reads would index a smaller
 * tensor (fuzz_passes: nest 0 wrote E at 0..3 and the dead nest 2 at 0..7,
 * which nest 1 read; without nest 2 the read was out of bounds), and
 * deleting its only writer would make it an input of the program.  Tried
 * on a copy: sema's inference, ranges from conditions included, decides. */
static const char *earlier_reads_kept(PassCtx *pc, const DataFlow *df, int k) {
  const IrProgram *p = pc->prog;
  const DfNest *d = &df->nests[k];
  IrProgram *q = NULL;
  for (int i = 0; i < d->naccess; i++) {
    const DepAccess *a = &d->access[i];
    IrTensor *t = a->ref->tensor;
    int at;
    if (!a->write || !t || t->declared || !df_find(df, a->ref->name, 0, k, DF_READ, &at)) continue;
    if (!q) {
      q = ir_program_clone(pc->ctx, p);
      delete_nest(q, k);
      const char *bad = pass_quiet_resema(pc->ctx, q);
      if (bad)
        return pass_reason(pc, "'%s' is read by nest %d, and without nest %d the program does not analyse: %s",
                           a->ref->name, at, k, bad);
    }
    const IrTensor *u = ir_find_tensor(q, t->name);
    if (u && u->role != ROLE_TMP) /* (fuzz_passes: E read by nest 0, written only by nest 1) */
      return pass_reason(pc, "'%s' is read by nest %d and nest %d is its only writer: without it '%s' would become an "
                         "input of the program", t->name, at, k, t->name);
    /* (shapes are known after analysis: ir.h's invariants) */
    bool same = u && u->rank == t->rank;
    for (int j = 0; same && j < t->rank; j++) same = u->shape[j] == t->shape[j];
    if (!same)
      return pass_reason(pc, "'%s' is read by nest %d and its shape %s is inferred from its writes: without the "
                         "writes of nest %d it would be %s",
                         t->name, at, shape_text(pc, t), k, u ? shape_text(pc, u) : "gone");
  }
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  const IrProgram *p = pc->prog;
  IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  int k = c->nest;
  if (k == p->nnests - 1) return pass_reason(pc, "nest %d is the last nest", k);
  const DataFlow *df = df_analyse(pc, p);
  const DfNest *d = &df->nests[k];
  for (int i = 0; i < d->naccess; i++) {
    const DepAccess *a = &d->access[i];
    if (!a->write) continue;
    IrTensor *t = a->ref->tensor;
    if (t && t->role != ROLE_TMP) {
      c->site = a->stmt->loc;
      return pass_reason(pc, "nest %d writes the program output '%s'", k, a->ref->name);
    }
    int at;
    const DepAccess *r = df_find(df, a->ref->name, k + 1, p->nnests, DF_READ, &at);
    if (r) {
      c->site = a->stmt->loc;
      return pass_reason(pc, "'%s' is read by nest %d (%s)", a->ref->name, at, gx_ref_text(pc->ctx, r->ref));
    }
  }
  if ((why = earlier_reads_kept(pc, df, k))) return why;
  SBuf b = {0};
  for (int i = 0; i < d->naccess; i++)
    if (d->access[i].write && (!b.s || !strstr(b.s, pass_reason(pc, "'%s'", d->access[i].ref->name))))
      sbuf_printf(&b, "%s'%s'", b.len ? ", " : "", d->access[i].ref->name);
  c->why = pass_reason(pc, "nest %d (not the last) writes only intermediates (%s) and no later nest reads them, so "
                       "nothing it computes reaches an output", k, b.s ? b.s : "none");
  sbuf_free(&b);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  (void)pc;
  delete_nest(q, c->nest);
  return true;
}

const PassImpl pass_impl_dead_code_elimination = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
