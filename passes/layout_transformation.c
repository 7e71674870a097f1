/* layout_transformation.c -- STRATEGIES §3.2: re-layout one input of a nest
 * through a copy.
 *
 * Pre (REF): a single-statement nest whose right side is not a single ref;
 * an input X (not the output) without `-N`/`N-` terms in its subscript
 * (REC: and without tensor reads in it: Z's shape could not be inferred).
 * Kinds transpose, flatten and reshape2 need more than one item besides
 * `bx`, no tensor reads in the subscript and a non-numeric item; reshape2
 * also more than two other non-constant items (rank >= 5); reshape1 needs
 * the item to be a bare index whose extent has a divisor (REC: and that is
 * in no other item).
 * Rewrite (fresh Z, X's dtype tag, scope g; copy nests use the tx fix-up):
 *   transpose  copy[Z_{pi(s)}=X_{s}], the nest reads Z_{pi(s)};
 *   flatten    one item sum_j item_j * prod_{k>j} shape_k (row-major over
 *              X's shape, constant items dropped);
 *   reshape2   items p, q fused as item_p*shape_q+item_q (at the first of the
 *              two positions), then the optional order `perm`;
 *   reshape1   item k = i (extent n = f*m): the copy nest gets L^{f}_{g}
 *              before i, whose extent becomes m: Z_{..,g,i,..}=X_{..,g*m+i,..};
 *              the nest reads Z_{..,i//m,i%m,..}.
 * The copy loops are the nest's loops over X's indices, in nest order
 * (reshape1: in the order of X's subscript, as REF).  The nest reads Z
 * wherever it read X with the same subscript.  Class E.
 * Params: kind, perm (transpose; reshape2, optional), fuse=p.q (reshape2),
 * item (reshape1: position) and factor (reshape1: f).  enumerate: tensors
 * by name; transpose (every non-identity permutation up to rank 3, else
 * every swap and the reversal), flatten, reshape2 (pairs p < q), reshape1
 * (REF's factor pairs). */
#include "passes/graph.h"
#include "passes/layout.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"tensor", true, "the input to re-layout"},
  {"kind", true, "transpose, flatten, reshape2 or reshape1"},
  {"perm", false, "transpose/reshape2: new order of the items, e.g. 1.0"},
  {"fuse", false, "reshape2: the two item positions p.q to fuse"},
  {"item", false, "reshape1: the item position to split"},
  {"factor", false, "reshape1: the outer extent f"},
  {NULL, false, NULL},
};

/* Everything check() establishes and apply() uses. */
typedef struct Plan {
  IrNest *n;
  IrStmt *s;
  IrRef *x;
  LayKind kind;
  int perm[LAY_MAX_RANK];
  bool have_perm;
  int p, q, k;
  int64_t f;
  const IrTensor *t;
} Plan;

static bool a_eligible(const IrRef *x) {
  if (lay_count_besides_bx(x) <= 1 || rw_ref_has_nested_ref(x)) return false;
  for (int i = 0; i < x->nsub; i++)
    if (!lay_is_const(x->sub[i])) return true;
  return false;
}

static int nonconst(const IrRef *x) {
  int n = 0;
  for (int i = 0; i < x->nsub; i++) n += !lay_is_const(x->sub[i]);
  return n;
}

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
  IrNest *n = rw_cand_nest(pc, prog, c, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d items; layout_transformation needs a single statement", c->nest, n->nitems);
  c->site = s->loc;
  if (rw_is_pure_copy(s)) return pass_reason(pc, "the right side of nest %d is a single reference", c->nest);
  const char *t = pass_cand_get(c, "tensor"), *ks = pass_cand_get(c, "kind");
  if (!t || !ks) return pass_reason(pc, "missing parameter '%s'", t ? "kind" : "tensor");
  if (!strcmp(t, s->lhs->name)) return pass_reason(pc, "'%s' is the output of nest %d", t, c->nest);
  IrRef *x = rw_first_read(s->rhs, t);
  if (!x) return pass_reason(pc, "nest %d does not read '%s'", c->nest, t);
  c->site = x->loc;
  pl->n = n;
  pl->s = s;
  pl->x = x;
  pl->t = x->tensor ? x->tensor : ir_find_tensor(prog, t);
  if (!pl->t || pl->t->rank != x->nsub || x->nsub > LAY_MAX_RANK) return pass_reason(pc, "'%s' has no usable shape", t);
  if (rw_has_const_minus(pc->ctx, x))
    return pass_reason(pc, "the subscript of '%s' (%s) has a -N or N- term", t, rw_sub_text(pc->ctx, x));
  /* REC: the new tensor's shape is inferred from the copy's writes, which
     cannot bound an item that reads another tensor */
  if (rw_ref_has_nested_ref(x))
    return pass_reason(pc, "the subscript of '%s' (%s) reads another tensor", t, rw_sub_text(pc->ctx, x));
  pl->kind = lay_kind(ks);
  int r = x->nsub;
  switch (pl->kind) {
  case LAY_TRANSPOSE: case LAY_FLATTEN: case LAY_RESHAPE2: {
    if (!a_eligible(x))
      return pass_reason(pc, "'%s' (%s) needs more than one item besides bx, a non-numeric item and no tensor reads in "
                             "its subscript", t, rw_sub_text(pc->ctx, x));
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
      if (lay_is_const(x->sub[pl->p]) || lay_is_const(x->sub[pl->q])) return "reshape2 fuses two non-constant items";
      if (nonconst(x) - 2 <= 2)
        return pass_reason(pc, "reshape2 needs more than two other non-constant items ('%s' has %d in all)", t, nonconst(x));
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
    int got = pass_cand_get_int(c, "item", &k);
    if (got <= 0) return "kind=reshape1 needs item=K (an item position)";
    if (k < 0 || k >= r) return pass_reason(pc, "item=%lld is not a position of %s's %d items", (long long)k, t, r);
    pl->k = (int)k;
    if (x->sub[k]->kind != E_INDEX)
      return pass_reason(pc, "item %lld of '%s' (%s) is not a bare index", (long long)k, t, rw_text(pc->ctx, x->sub[k]));
    const char *i = x->sub[k]->u.index.name;
    int pos = rw_loop_pos(n, i);
    if (pos < 0) return pass_reason(pc, "index '%s' is not a loop of nest %d", i, c->nest);
    /* the copy splits i in item k only: another item with i would be
       written over i's new, shorter range (fuzz_passes: A_{tx,tx}) */
    for (int d = 0; d < r; d++)
      if (d != k && rw_expr_mentions(x->sub[d], i))
        return pass_reason(pc, "index '%s' of item %lld of '%s' (%s) is also in item %d", i, (long long)k, t,
                           rw_sub_text(pc->ctx, x), d);
    return pass_check_factor(pc, c, "factor", n->loops[pos], &pl->f);
  }
  default: return pass_reason(pc, "kind=%s is not transpose, flatten, reshape2 or reshape1", ks);
  }
}

/* The copy nest's loops (tx fix-up applied); for reshape1 with the new loop g. */
static IrNest *copy_loops(PassCtx *pc, const Plan *pl, const char *g, const char **renamed, const char **why) {
  const char *names[64];
  int nn = rw_names_in_ref(pl->x, names, 64);
  if (pl->kind != LAY_RESHAPE1) return rw_copy_loops(pc, pl->n, names, nn, false, renamed, why);
  LeirCtx *ctx = pc->ctx;
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(nn + 2));
  int k = 0;
  const char *split = pl->x->sub[pl->k]->u.index.name;
  for (int j = 0; j < nn; j++) {
    int pos = rw_loop_pos(pl->n, names[j]);
    if (pos < 0) continue;
    IrLoop *l = rw_loop_clone(ctx, pl->n->loops[pos]);
    if (!strcmp(names[j], split)) {
      loops[k++] = rw_loop(ctx, LOOP_L, pl->f, g);
      rw_set_extent(l, l->extent / pl->f);
    }
    loops[k++] = l;
  }
  if (!rw_fix_tx_loops(pc, loops, k, renamed, why)) return NULL;
  const char *bad = rw_hw_limits_loops(pc, loops, k);
  if (bad) {
    *why = pass_reason(pc, "the copy nest breaks a hardware limit: %s", bad);
    return NULL;
  }
  return ir_nest_new(ctx, k, loops);
}

static const char *check(PassCtx *pc, PassCand *c) {
  Plan pl;
  const char *why = plan(pc, pc->prog, c, &pl);
  if (why) return why;
  if ((why = gx_lazy_read_unbounded(pc, pl.s, pl.x))) return why;
  /* as for tensor reads in the subscript (plan): an item whose range is not
     bounded (1%c, c from 0) leaves the copy's shape uninferable (fuzz_passes);
     asked here, of the analysed program (apply's copy is not) */
  int ub = rw_unbounded_item(pl.x);
  if (ub >= 0)
    return pass_reason(pc, "item %d of '%s' (%s) has no bounded range, so the copy's shape cannot be inferred", ub,
                       pl.x->name, rw_sub_text(pc->ctx, pl.x));
  int64_t hi;
  if ((ub = rw_oversized_item(pl.x, NULL, &hi)) >= 0)
    return pass_reason(pc, "item %d of '%s' (%s) reaches %lld: the copy would have more than %lld elements", ub,
                       pl.x->name, rw_sub_text(pc->ctx, pl.x), (long long)hi, (long long)IR_MAX_NUMEL);
  const char *renamed;
  if (!copy_loops(pc, &pl, pass_fresh_index(pc->ctx, pl.n, NULL, 0), &renamed, &why)) return why;
  c->why = pass_reason(pc, "'%s' (rank %d) is accessed in nest %d as %s; a %s of its layout is a bijection on its "
                       "elements, so a copy nest in the new layout and the rewritten subscript read the same values",
                       pl.x->name, pl.t ? pl.t->rank : pl.x->nsub, c->nest, rw_text(pc->ctx, &(IrExpr){.kind = E_REF, .u.ref = pl.x}),
                       lay_kind_name(pl.kind));
  return NULL;
}

typedef struct Swap {
  LeirCtx *ctx;
  const char *name, *sub, *z;
  IrDType dt;
  IrExpr **items;
  int n;
} Swap;

static void swap_walk(IrExpr *e, void *u) {
  Swap *w = u;
  if (e->kind != E_REF || strcmp(e->u.ref->name, w->name) || strcmp(rw_sub_text(w->ctx, e->u.ref), w->sub)) return;
  e->u.ref = rw_ref(w->ctx, w->z, w->dt, SC_G, w->items, w->n);
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  Plan pl;
  if (plan(pc, q, &cc, &pl)) return false;
  const char *g = pass_fresh_index(ctx, pl.n, NULL, 0), *renamed, *why;
  IrNest *copy = copy_loops(pc, &pl, g, &renamed, &why);
  if (!copy) return false;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *z = pass_fresh_tensor(&ns);
  IrRef *x = ir_ref_clone(ctx, pl.x);
  int r = x->nsub;
  IrExpr *zi[LAY_MAX_RANK + 1], *tmp[LAY_MAX_RANK + 1], *ci[LAY_MAX_RANK + 1];
  int nz = 0;
  IrRef *src = x; /* the copy's right side */
  switch (pl.kind) {
  case LAY_TRANSPOSE: nz = lay_transpose(ctx, x->sub, r, pl.perm, zi); break;
  case LAY_FLATTEN: nz = lay_flatten(ctx, x->sub, pl.t->shape, r, false, zi); break;
  case LAY_RESHAPE2:
    nz = lay_reshape2(ctx, x->sub, pl.t->shape, r, pl.p, pl.q, pl.have_perm ? tmp : zi);
    if (pl.have_perm) nz = lay_transpose(ctx, tmp, nz, pl.perm, zi);
    break;
  case LAY_RESHAPE1: {
    const char *i = x->sub[pl.k]->u.index.name;
    int64_t m = pl.n->loops[rw_loop_pos(pl.n, i)]->extent / pl.f;
    /* copy: Z_{..,g,i,..} = X_{..,g*m+i,..} */
    int n = 0;
    for (int d = 0; d < r; d++) {
      if (d == pl.k) ci[n++] = ir_index(ctx, g);
      ci[n++] = ir_expr_clone(ctx, x->sub[d]);
    }
    src = ir_ref_clone(ctx, x);
    src->sub[pl.k] = rw_affine(ctx, g, m, i);
    IrStmt *cs = ir_stmt_new(ctx, rw_ref(ctx, z, rw_ref_dtype(x), SC_G, ci, n), ir_refexpr(ctx, src));
    rw_fix_tx_stmt(ctx, cs, renamed);
    ir_nest_add_item(ctx, copy, ITEM_STMT, cs);
    nz = lay_reshape1(ctx, x->sub, r, pl.k, m, zi);
    break;
  }
  default: return false;
  }
  if (pl.kind != LAY_RESHAPE1) {
    /* the tx fix-up renames inside the copy statement: give it its own trees */
    IrStmt *cs = ir_stmt_new(ctx, rw_ref(ctx, z, rw_ref_dtype(x), SC_G, zi, nz), ir_refexpr(ctx, ir_ref_clone(ctx, src)));
    rw_fix_tx_stmt(ctx, cs, renamed);
    ir_nest_add_item(ctx, copy, ITEM_STMT, cs);
  }
  Swap w = {ctx, x->name, rw_sub_text(ctx, x), z, rw_ref_dtype(x), zi, nz};
  ir_walk_expr(pl.s->rhs, swap_walk, &w);
  rw_insert_nest(ctx, q, cc.nest, copy);
  return true;
}

static bool complete(const PassCand *c) {
  if (!pass_cand_get(c, "nest") || !pass_cand_get(c, "tensor")) return false;
  switch (lay_kind(pass_cand_get(c, "kind"))) {
  case LAY_TRANSPOSE: return pass_cand_get(c, "perm") != NULL;
  case LAY_FLATTEN: return true;
  case LAY_RESHAPE2: return pass_cand_get(c, "fuse") != NULL;
  case LAY_RESHAPE1: return pass_cand_get(c, "item") && pass_cand_get(c, "factor");
  default: return pass_cand_get(c, "kind") != NULL; /* a bad kind: check says so */
  }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void add(PassCtx *pc, int k, const char *t, const char *kind, const char *key, const char *val, const char *key2,
                const char *val2) {
  PassCand *c = pass_cand_new(pc);
  pass_cand_set_int(pc->ctx, c, "nest", k);
  pass_cand_set(pc->ctx, c, "tensor", t);
  pass_cand_set(pc->ctx, c, "kind", kind);
  if (key) pass_cand_set(pc->ctx, c, key, val);
  if (key2) pass_cand_set(pc->ctx, c, key2, val2);
  pass_emit(pc, c);
}

static void enumerate_tensor(PassCtx *pc, int k, const IrNest *n, const IrRef *x) {
  LeirCtx *ctx = pc->ctx;
  int r = x->nsub;
  if (r > LAY_MAX_RANK) return;
  if (a_eligible(x)) {
    int perms[64][LAY_MAX_RANK];
    int np = lay_perms(r, perms, 64);
    for (int i = 0; i < np; i++) add(pc, k, x->name, "transpose", "perm", lay_perm_text(ctx, perms[i], r), NULL, NULL);
    add(pc, k, x->name, "flatten", NULL, NULL, NULL, NULL);
    if (nonconst(x) > 4)
      for (int p = 0; p < r; p++)
        for (int q = p + 1; q < r; q++)
          if (!lay_is_const(x->sub[p]) && !lay_is_const(x->sub[q]))
            add(pc, k, x->name, "reshape2", "fuse", arena_printf(&ctx->arena, "%d.%d", p, q), NULL, NULL);
  }
  for (int d = 0; d < r && !rw_ref_has_nested_ref(x); d++) {
    if (x->sub[d]->kind != E_INDEX) continue;
    int pos = rw_loop_pos(n, x->sub[d]->u.index.name);
    if (pos < 0) continue;
    int64_t f[64];
    int nf = rw_factor_pairs(n->loops[pos]->extent, f, 64);
    for (int i = 0; i < nf; i++)
      add(pc, k, x->name, "reshape1", "item", arena_printf(&ctx->arena, "%d", d), "factor",
          arena_printf(&ctx->arena, "%lld", (long long)f[i]));
  }
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    IrStmt *s = rw_single_stmt(p->nests[k]);
    if (!s || rw_is_pure_copy(s)) continue;
    PtrVec refs = {0};
    rw_stmt_refs(pc->ctx, s, &refs);
    const char *names[256];
    int nn = 0;
    for (int i = 1; i < refs.n && nn < 256; i++) {
      const char *name = ((IrRef *)refs.v[i])->name;
      bool dup = !strcmp(name, s->lhs->name) || !rw_first_read(s->rhs, name);
      for (int j = 0; j < nn; j++) dup |= !strcmp(names[j], name);
      if (!dup) names[nn++] = name;
    }
    qsort(names, (size_t)nn, sizeof names[0], cmp_str);
    for (int i = 0; i < nn; i++) enumerate_tensor(pc, k, p->nests[k], rw_first_read(s->rhs, names[i]));
  }
}

const PassImpl pass_impl_layout_transformation = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply, .complete = complete};
