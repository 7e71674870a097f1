/* operator_fission.c -- STRATEGIES §1.2: split a multi-statement body into
 * one nest per statement.
 *
 * Pre (REF): a nest with a header and at least two statements.  REC (loop
 * distribution): no later statement Sj writes a tensor an earlier Si reads;
 * if Sj reads a tensor Si writes, Si does not update itself and every read
 * of it in Sj is at Si's written subscript; and (dataflow.h) no dependence
 * between two statements may go backwards in the iteration order, which
 * also covers write-after-write.  No nested nests.  Statement order is
 * kept, so the implicit initialisations of SPEC §9.5 are unchanged.
 * Rewrite: H[S1;S2;] => H[S1;];H[S2;]; (the header repeated, scopes kept).
 * Params: nest.  Class E. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the nest to split (0-based)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k < pc->prog->nnests; k++) {
    if (pc->prog->nests[k]->nitems < 2) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

/* The REC rule for the pair Si (earlier) and Sj (later); NULL or a reason. */
static const char *pair_rule(PassCtx *pc, IrStmt *si, IrStmt *sj, int i, int j) {
  LeirCtx *ctx = pc->ctx;
  PtrVec ri = {0}, rj = {0};
  rw_stmt_refs(ctx, si, &ri);
  rw_stmt_refs(ctx, sj, &rj);
  /* Sj writes what Si reads */
  for (int a = 1; a < ri.n; a++)
    if (!strcmp(((IrRef *)ri.v[a])->name, sj->lhs->name))
      return pass_reason(pc, "statement %d writes '%s', which statement %d reads", j, sj->lhs->name, i);
  /* Sj reads what Si writes */
  const char *w = rw_sub_text(ctx, si->lhs);
  for (int b = 1; b < rj.n; b++) {
    IrRef *r = rj.v[b];
    if (strcmp(r->name, si->lhs->name)) continue;
    if (si->self_ref)
      return pass_reason(pc, "statement %d reads '%s', which statement %d accumulates", j, r->name, i);
    if (strcmp(rw_sub_text(ctx, r), w))
      return pass_reason(pc, "statement %d reads '%s' at %s, but statement %d writes it at %s", j, r->name,
                         rw_sub_text(ctx, r), i, w);
  }
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, pc->prog, c, &why);
  if (!n) return why;
  if (n->nloops == 0) return pass_reason(pc, "nest %d has no loop header", c->nest);
  if (n->nitems < 2) return pass_reason(pc, "nest %d has only one statement", c->nest);
  for (int i = 0; i < n->nitems; i++)
    for (int j = i + 1; j < n->nitems; j++) {
      IrStmt *si = n->items[i].u.stmt, *sj = n->items[j].u.stmt;
      if ((why = pair_rule(pc, si, sj, i, j))) {
        c->site = sj->loc;
        return why;
      }
    }
  int *group = arena_alloc(&pc->ctx->arena, sizeof(int) * (size_t)n->nitems);
  for (int i = 0; i < n->nitems; i++) group[i] = i;
  const Dep *bad = df_check_groups(pc, n, group, &why);
  if (why) return pass_reason(pc, "nest %d cannot be analysed: %s", c->nest, why);
  if (bad) {
    c->site = bad->y->stmt->loc;
    return pass_reason(pc, "splitting would reverse a dependence on %s", deps_describe(pc, bad));
  }
  c->why = pass_reason(pc, "nest %d has a loop header and %d statements, every pair of them passes the pairing rule, "
                       "and the dataflow analysis finds no dependence that running each statement in its own nest "
                       "reverses", c->nest, n->nitems);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  IrNest *n = q->nests[c->nest];
  int m = n->nitems;
  for (int i = 0; i < m; i++) {
    IrNest *part = gx_nest_like(ctx, n);
    ir_nest_add_item(ctx, part, ITEM_STMT, n->items[i].u.stmt);
    if (i == 0) q->nests[c->nest] = part;
    else rw_insert_nest(ctx, q, c->nest + i, part);
  }
  return true;
}

const PassImpl pass_impl_operator_fission = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
