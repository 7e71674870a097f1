/* set_storage_scope.c -- STRATEGIES §3.3: change an intermediate's memory
 * scope.
 *
 * Pre (REF): a tensor that is not a program input, output or parameter.
 * Rewrite: the scope (s or l) replaces the scope tag of every occurrence.
 * A scope never changes values: class E.  REC: refuse when every occurrence
 * already has that scope; -O notes when SPEC §9.3 will demote the scope to
 * g because the tensor is accessed in more than one nest (s/l values do not
 * survive a kernel).  Params: tensor, scope (l|s); enumerate: tensors by
 * name, scope l before s. */
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

static const PassKey keys[] = {
  {"tensor", true, "the intermediate tensor"},
  {"scope", true, "l (local) or s (shared)"},
  {NULL, false, NULL},
};

static int cmp_tensor(const void *a, const void *b) {
  return strcmp((*(IrTensor *const *)a)->name, (*(IrTensor *const *)b)->name);
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  IrTensor **v = arena_alloc(&pc->ctx->arena, sizeof(IrTensor *) * (size_t)(p->ntensors ? p->ntensors : 1));
  int n = 0;
  for (int i = 0; i < p->ntensors; i++)
    if (p->tensors[i]->role == ROLE_TMP) v[n++] = p->tensors[i];
  qsort(v, (size_t)n, sizeof v[0], cmp_tensor);
  for (int i = 0; i < n; i++)
    for (int s = 0; s < 2; s++) {
      PassCand *c = pass_cand_new(pc);
      pass_cand_set(pc->ctx, c, "tensor", v[i]->name);
      pass_cand_set(pc->ctx, c, "scope", s ? "s" : "l");
      pass_emit(pc, c);
    }
}

typedef struct Occ {
  const char *name;
  IrScope scope;
  int count, other_scope;
  int nests[2];
  int nnests, cur;
} Occ;

static void occ_walk(IrExpr *e, void *u) {
  Occ *o = u;
  if (e->kind != E_REF || strcmp(e->u.ref->name, o->name)) return;
  o->count++;
  o->other_scope += e->u.ref->sc_tag != o->scope;
  if (o->nnests == 0 || (o->nnests == 1 && o->nests[0] != o->cur)) o->nests[o->nnests++] = o->cur;
}

static void occ_stmt(IrStmt *s, void *u) {
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = s->lhs;
  ir_walk_expr(&tmp, occ_walk, u);
  ir_walk_expr(s->rhs, occ_walk, u);
}

static const char *check(PassCtx *pc, PassCand *c) {
  const IrProgram *p = pc->prog;
  const char *t = pass_cand_get(c, "tensor"), *sc = pass_cand_get(c, "scope");
  if (!t || !sc) return pass_reason(pc, "missing parameter '%s'", t ? "scope" : "tensor");
  IrTensor *x = ir_find_tensor(p, t);
  if (!x) return pass_reason(pc, "the program has no tensor '%s'", t);
  c->site = x->loc;
  if (x->role != ROLE_TMP)
    return pass_reason(pc, "'%s' is a program %s; only intermediates change scope", t,
                       x->role == ROLE_IN ? "input" : x->role == ROLE_OUT ? "output" : "parameter");
  if (strcmp(sc, "s") && strcmp(sc, "l")) return pass_reason(pc, "scope=%s is not l or s", sc);
  Occ o = {t, ir_scope_from_name(sc), 0, 0, {0, 0}, 0, 0};
  for (int k = 0; k < p->nnests; k++) {
    o.cur = k;
    rw_for_stmts(p->nests[k], occ_stmt, &o);
  }
  if (o.count == 0) return pass_reason(pc, "'%s' does not occur in the program", t);
  c->nest = o.nests[0];
  if (o.other_scope == 0) return pass_reason(pc, "every occurrence of '%s' already has scope %s", t, sc);
  if (o.nnests > 1)
    c->note = pass_reason(pc, "'%s' is accessed in more than one nest: SPEC 9.3 demotes its scope '%s' to 'g'", t, sc);
  c->why = pass_reason(pc, "'%s' is an intermediate (not an argument) that occurs %d time%s in %s, %d of them "
                       "not with scope %s; a scope tag changes where it is stored, not its values",
                       t, o.count, o.count == 1 ? "" : "s", o.nnests == 1 ? "one nest" : "more than one nest",
                       o.other_scope, sc);
  return NULL;
}

typedef struct SetSc {
  const char *name;
  IrScope sc;
} SetSc;

static void set_walk(IrExpr *e, void *u) {
  SetSc *s = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, s->name)) e->u.ref->sc_tag = s->sc;
}

static void set_stmt(IrStmt *s, void *u) {
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = s->lhs;
  ir_walk_expr(&tmp, set_walk, u);
  ir_walk_expr(s->rhs, set_walk, u);
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  SetSc s = {pass_cand_get(c, "tensor"), ir_scope_from_name(pass_cand_get(c, "scope"))};
  for (int k = 0; k < q->nnests; k++) rw_for_stmts(q->nests[k], set_stmt, &s);
  (void)pc;
  return true;
}

const PassImpl pass_impl_set_storage_scope = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
