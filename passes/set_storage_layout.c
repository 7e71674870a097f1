/* set_storage_layout.c -- STRATEGIES §3.4: change an intermediate's layout
 * everywhere it occurs (no copy).
 *
 * Pre (REF): an intermediate (not declared with %tmp, REC) all of whose
 * occurrences are in single-statement top-level nests; for transpose,
 * flatten and reshape2 every occurrence has more than one item besides bx,
 * no tensor reads in its subscript and no constant item; reshape1 splits an
 * item that is a bare index with a composite loop extent in the first
 * occurrence.  Rewrite, identically at every occurrence:
 *   transpose  items in the order perm;
 *   flatten    one item, first item fastest: D_{tx,a} -> D_{a*4+tx}
 *              (strides from the tensor's shape);
 *   reshape2   items p, q fused as item_p*shape_q+item_q (REF: the larger
 *              position first, fuse=q.p with q > p) at the first of the two
 *              positions, then the optional order `perm`;
 *   reshape1   item k -> item//m, item%m (m = n/f).
 * Writes and reads go through the same injective mapping, and a
 * reduction's left side and self-read stay textually equal: class E.  The
 * new shape is re-inferred (SPEC §9.3).
 * Params: tensor, kind, perm, fuse, item, factor (as layout_transformation).
 * enumerate: tensors by name; transpose (every non-identity permutation up
 * to rank 3, else every swap and the reversal), flatten, reshape2 (pairs
 * p > q), reshape1 (REF's factor pairs). */
#include "passes/layout.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

static const PassKey keys[] = {
  {"tensor", true, "the intermediate tensor"},
  {"kind", true, "transpose, flatten, reshape2 or reshape1"},
  {"perm", false, "transpose/reshape2: new order of the items, e.g. 1.0"},
  {"fuse", false, "reshape2: the two item positions p.q to fuse"},
  {"item", false, "reshape1: the item position to split"},
  {"factor", false, "reshape1: the outer extent f"},
  {NULL, false, NULL},
};

typedef struct Occs {
  const char *name;
  PtrVec refs;     /* IrRef* */
  PtrVec nests;    /* int nest index per ref (as intptr) */
  const char *bad; /* an occurrence in a nest that is not single-statement */
} Occs;

typedef struct OccWalk {
  LeirCtx *ctx;
  Occs *o;
  int nest;
} OccWalk;

static void occ_expr(IrExpr *e, void *u) {
  OccWalk *w = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, w->o->name)) {
    ptrvec_push(&w->ctx->arena, &w->o->refs, e->u.ref);
    ptrvec_push(&w->ctx->arena, &w->o->nests, (void *)(intptr_t)w->nest);
  }
}

static void occurrences(LeirCtx *ctx, const IrProgram *p, const char *name, Occs *o) {
  memset(o, 0, sizeof *o);
  o->name = name;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    for (int i = 0; i < n->nitems; i++) {
      if (n->items[i].kind != ITEM_STMT) {
        o->bad = "a nested nest";
        continue;
      }
      IrStmt *s = n->items[i].u.stmt;
      OccWalk w = {ctx, o, k};
      int before = o->refs.n;
      IrExpr tmp = {.kind = E_REF};
      tmp.u.ref = s->lhs;
      ir_walk_expr(&tmp, occ_expr, &w);
      ir_walk_expr(s->rhs, occ_expr, &w);
      if (o->refs.n > before && rw_single_stmt(n) != s && !o->bad)
        o->bad = arena_printf(&ctx->arena, "nest %d, which has more than one statement", k);
    }
  }
}

static bool a_ok(const IrRef *r) {
  if (lay_count_besides_bx(r) <= 1 || rw_ref_has_nested_ref(r)) return false;
  for (int i = 0; i < r->nsub; i++)
    if (lay_is_const(r->sub[i])) return false;
  return true;
}

typedef struct Plan {
  const IrTensor *t;
  Occs o;
  LayKind kind;
  int perm[LAY_MAX_RANK];
  bool have_perm;
  int p, q, k;
  int64_t m;
} Plan;

static const char *only_keys(PassCtx *pc, const PassCand *c, LayKind k, const char *const *allowed) {
  static const char *const opt[] = {"perm", "fuse", "item", "factor"};
  for (int i = 0; i < 4; i++) {
    if (!pass_cand_get(c, opt[i])) continue;
    bool ok = false;
    for (int j = 0; allowed[j]; j++) ok |= !strcmp(allowed[j], opt[i]);
    if (!ok) return pass_reason(pc, "'%s' is not a parameter of kind=%s", opt[i], lay_kind_name(k));
  }
  return NULL;
}

static const char *plan(PassCtx *pc, const IrProgram *prog, PassCand *c, Plan *pl) {
  const char *why;
  memset(pl, 0, sizeof *pl);
  const char *t = pass_cand_get(c, "tensor"), *ks = pass_cand_get(c, "kind");
  if (!t || !ks) return pass_reason(pc, "missing parameter '%s'", t ? "kind" : "tensor");
  const IrTensor *x = ir_find_tensor(prog, t);
  if (!x) return pass_reason(pc, "the program has no tensor '%s'", t);
  c->site = x->loc;
  pl->t = x;
  if (x->role != ROLE_TMP)
    return pass_reason(pc, "'%s' is a program %s; only intermediates change layout", t,
                       x->role == ROLE_IN ? "input" : x->role == ROLE_OUT ? "output" : "parameter");
  if (x->declared) return pass_reason(pc, "'%s' has a declared shape (%%tmp)", t);
  if (x->rank < 1 || x->rank > LAY_MAX_RANK) return pass_reason(pc, "'%s' is a scalar", t);
  occurrences(pc->ctx, prog, t, &pl->o);
  if (pl->o.refs.n == 0) return pass_reason(pc, "'%s' does not occur in the program", t);
  c->nest = (int)(intptr_t)pl->o.nests.v[0];
  if (pl->o.bad) return pass_reason(pc, "'%s' occurs in %s", t, pl->o.bad);
  pl->kind = lay_kind(ks);
  int r = x->rank;
  IrRef *first = pl->o.refs.v[0];
  switch (pl->kind) {
  case LAY_TRANSPOSE: case LAY_FLATTEN: case LAY_RESHAPE2: {
    for (int i = 0; i < pl->o.refs.n; i++) {
      IrRef *ref = pl->o.refs.v[i];
      if (!a_ok(ref))
        return pass_reason(pc, "occurrence %s_{%s} needs more than one item besides bx, no constant item and no tensor "
                               "reads", t, rw_sub_text(pc->ctx, ref));
    }
    static const char *const tk[] = {"perm", NULL}, *const fk[] = {NULL}, *const rk[] = {"perm", "fuse", NULL};
    if ((why = only_keys(pc, c, pl->kind, pl->kind == LAY_TRANSPOSE ? tk : pl->kind == LAY_FLATTEN ? fk : rk))) return why;
    if (pl->kind == LAY_TRANSPOSE) {
      const char *ps = pass_cand_get(c, "perm");
      if (!ps) return "kind=transpose needs perm=...";
      return lay_parse_perm(pc, ps, r, pl->perm, false);
    }
    if (pl->kind == LAY_RESHAPE2) {
      const char *fs = pass_cand_get(c, "fuse"), *ps = pass_cand_get(c, "perm");
      if (!fs) return "kind=reshape2 needs fuse=p.q";
      if ((why = lay_parse_pair(pc, fs, r, &pl->p, &pl->q))) return why;
      if (ps) {
        pl->have_perm = true;
        if ((why = lay_parse_perm(pc, ps, r - 1, pl->perm, true))) return why;
      }
    }
    return NULL;
  }
  case LAY_RESHAPE1: {
    static const char *const k1[] = {"item", "factor", NULL};
    if ((why = only_keys(pc, c, pl->kind, k1))) return why;
    int64_t k;
    if (pass_cand_get_int(c, "item", &k) <= 0) return "kind=reshape1 needs item=K (an item position)";
    if (k < 0 || k >= r) return pass_reason(pc, "item=%lld is not a position of %s's %d items", (long long)k, t, r);
    pl->k = (int)k;
    for (int i = 0; i < pl->o.refs.n; i++)
      if (rw_ref_has_nested_ref(pl->o.refs.v[i]))
        return pass_reason(pc, "occurrence %s_{%s} reads another tensor in its subscript", t,
                           rw_sub_text(pc->ctx, pl->o.refs.v[i]));
    if (first->sub[k]->kind != E_INDEX)
      return pass_reason(pc, "item %lld of the first occurrence of '%s' (%s) is not a bare index", (long long)k, t,
                         rw_text(pc->ctx, first->sub[k]));
    const IrNest *n = prog->nests[c->nest];
    int pos = rw_loop_pos(n, first->sub[k]->u.index.name);
    if (pos < 0) return pass_reason(pc, "index '%s' is not a loop of nest %d", first->sub[k]->u.index.name, c->nest);
    int64_t f;
    if ((why = pass_check_factor(pc, c, "factor", n->loops[pos], &f))) return why;
    pl->m = n->loops[pos]->extent / f;
    return NULL;
  }
  default: return pass_reason(pc, "kind=%s is not transpose, flatten, reshape2 or reshape1", ks);
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  Plan pl;
  const char *why = plan(pc, pc->prog, c, &pl);
  if (why) return why;
  c->why = pass_reason(pc, "every one of the %d accesses of the intermediate '%s' is in a single-statement nest and "
                       "can be rewritten for the %s layout, a bijection on its elements, so every write and read "
                       "still meets the same element",
                       pl.o.refs.n, pl.t->name, lay_kind_name(pl.kind));
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  Plan pl;
  if (plan(pc, q, &cc, &pl)) return false;
  int r = pl.t->rank;
  for (int i = 0; i < pl.o.refs.n; i++) {
    IrRef *ref = pl.o.refs.v[i];
    IrExpr *out[LAY_MAX_RANK + 1], *tmp[LAY_MAX_RANK + 1];
    int n = 0;
    switch (pl.kind) {
    case LAY_TRANSPOSE: n = lay_transpose(ctx, ref->sub, r, pl.perm, out); break;
    case LAY_FLATTEN: n = lay_flatten(ctx, ref->sub, pl.t->shape, r, true, out); break;
    case LAY_RESHAPE2:
      n = lay_reshape2(ctx, ref->sub, pl.t->shape, r, pl.p, pl.q, pl.have_perm ? tmp : out);
      if (pl.have_perm) n = lay_transpose(ctx, tmp, n, pl.perm, out);
      break;
    case LAY_RESHAPE1: n = lay_reshape1(ctx, ref->sub, r, pl.k, pl.m, out); break;
    default: return false;
    }
    ref->sub = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)n);
    memcpy(ref->sub, out, sizeof(IrExpr *) * (size_t)n);
    ref->nsub = n;
  }
  return true;
}

static bool complete(const PassCand *c) {
  if (!pass_cand_get(c, "tensor")) return false;
  switch (lay_kind(pass_cand_get(c, "kind"))) {
  case LAY_TRANSPOSE: return pass_cand_get(c, "perm") != NULL;
  case LAY_FLATTEN: return true;
  case LAY_RESHAPE2: return pass_cand_get(c, "fuse") != NULL;
  case LAY_RESHAPE1: return pass_cand_get(c, "item") && pass_cand_get(c, "factor");
  default: return pass_cand_get(c, "kind") != NULL;
  }
}

static int cmp_tensor(const void *a, const void *b) {
  return strcmp((*(IrTensor *const *)a)->name, (*(IrTensor *const *)b)->name);
}

static void add(PassCtx *pc, const char *t, const char *kind, const char *key, const char *val, const char *key2,
                const char *val2) {
  PassCand *c = pass_cand_new(pc);
  pass_cand_set(pc->ctx, c, "tensor", t);
  pass_cand_set(pc->ctx, c, "kind", kind);
  if (key) pass_cand_set(pc->ctx, c, key, val);
  if (key2) pass_cand_set(pc->ctx, c, key2, val2);
  pass_emit(pc, c);
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  LeirCtx *ctx = pc->ctx;
  IrTensor **v = arena_alloc(&ctx->arena, sizeof(IrTensor *) * (size_t)(p->ntensors ? p->ntensors : 1));
  int nt = 0;
  for (int i = 0; i < p->ntensors; i++)
    if (p->tensors[i]->role == ROLE_TMP && !p->tensors[i]->declared && p->tensors[i]->rank >= 1 &&
        p->tensors[i]->rank <= LAY_MAX_RANK)
      v[nt++] = p->tensors[i];
  qsort(v, (size_t)nt, sizeof v[0], cmp_tensor);
  for (int i = 0; i < nt; i++) {
    Occs o;
    occurrences(ctx, p, v[i]->name, &o);
    if (o.bad || o.refs.n == 0) continue;
    int r = v[i]->rank;
    bool a = true;
    for (int j = 0; j < o.refs.n; j++) a &= a_ok(o.refs.v[j]);
    if (a) {
      int perms[64][LAY_MAX_RANK];
      int np = lay_perms(r, perms, 64);
      for (int j = 0; j < np; j++) add(pc, v[i]->name, "transpose", "perm", lay_perm_text(ctx, perms[j], r), NULL, NULL);
      add(pc, v[i]->name, "flatten", NULL, NULL, NULL, NULL);
      for (int pp = 0; pp < r; pp++)
        for (int qq = 0; qq < pp; qq++)
          add(pc, v[i]->name, "reshape2", "fuse", arena_printf(&ctx->arena, "%d.%d", pp, qq), NULL, NULL);
    }
    IrRef *first = o.refs.v[0];
    const IrNest *n = p->nests[(int)(intptr_t)o.nests.v[0]];
    for (int d = 0; d < first->nsub; d++) {
      if (first->sub[d]->kind != E_INDEX) continue;
      int pos = rw_loop_pos(n, first->sub[d]->u.index.name);
      if (pos < 0) continue;
      int64_t f[64];
      int nf = rw_factor_pairs(n->loops[pos]->extent, f, 64);
      for (int j = 0; j < nf; j++)
        add(pc, v[i]->name, "reshape1", "item", arena_printf(&ctx->arena, "%d", d), "factor",
            arena_printf(&ctx->arena, "%lld", (long long)f[j]));
    }
  }
}

const PassImpl pass_impl_set_storage_layout = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply, .complete = complete};
