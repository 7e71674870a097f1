/* cache_read_write.c -- STRATEGIES §3.1: stage an input or the output of a
 * nest through a new tensor in shared or local memory.
 *
 * Pre (REF): a single-statement nest that satisfies the fresh-inputs rule.
 * Read: a tensor the right side reads (not the output) with an index in its
 * subscript; write: the output, if subscripted.  The chosen ref's subscript
 * has no `-N`/`N-` term.  REC: no tensor reads inside that subscript.
 * Rewrite read: fresh Z with the input's dtype tag and scope s|l;
 *   copy(X)[Z^{dt,sc}_{s}=X_{s};]  (tx fix-up) inserted before the nest,
 * and in the nest every ref of X with that same subscript reads Z instead.
 * Rewrite write: the statement writes Z (every occurrence of the output),
 * followed by copy(Out)[Out_{s}=Z_{s};].  The copy nest covers exactly the
 * elements the nest touches, so values are unchanged: class E.  Since Z is
 * written and read in different nests, SPEC §9.3 demotes its scope to g;
 * -O says so in a note.  REC: the write variant needs the output's values
 * to come from this nest alone (the fresh-inputs rule guarantees it for an
 * accumulating statement).  Params: tensor, dir (read|write), scope (l|s);
 * enumerate: tensors by name, then read before write, scope l before s. */
#include "passes/graph.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"tensor", true, "the tensor to stage"},
  {"dir", true, "read (an input of the nest) or write (its output)"},
  {"scope", true, "l (local) or s (shared)"},
  {NULL, false, NULL},
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    IrStmt *s = rw_single_stmt(p->nests[k]);
    if (!s) continue;
    PtrVec refs = {0};
    rw_stmt_refs(pc->ctx, s, &refs);
    const char *names[256];
    int nn = 0;
    for (int i = 0; i < refs.n && nn < 256; i++) {
      const char *name = ((IrRef *)refs.v[i])->name;
      bool dup = false;
      for (int j = 0; j < nn; j++) dup |= !strcmp(names[j], name);
      if (!dup) names[nn++] = name;
    }
    qsort(names, (size_t)nn, sizeof names[0], cmp_str);
    for (int i = 0; i < nn; i++) {
      bool out = !strcmp(names[i], s->lhs->name);
      for (int d = 0; d < 2; d++) {
        if (d == 0 && (out || !rw_first_read(s->rhs, names[i]))) continue;
        if (d == 1 && !out) continue;
        for (int sc = 0; sc < 2; sc++) {
          PassCand *c = pass_cand_new(pc);
          pass_cand_set_int(pc->ctx, c, "nest", k);
          pass_cand_set(pc->ctx, c, "tensor", names[i]);
          pass_cand_set(pc->ctx, c, "dir", d ? "write" : "read");
          pass_cand_set(pc->ctx, c, "scope", sc ? "s" : "l");
          pass_emit(pc, c);
        }
      }
    }
  }
}

/* Resolves the candidate: the nest's statement and the staged ref. */
static const char *resolve(PassCtx *pc, const IrProgram *p, PassCand *c, IrNest **np, IrStmt **sp, IrRef **rp,
                           bool *write, IrScope *scope) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d items; cache_read_write needs a single statement", c->nest, n->nitems);
  c->site = s->loc;
  const char *t = pass_cand_get(c, "tensor"), *dir = pass_cand_get(c, "dir"), *sc = pass_cand_get(c, "scope");
  if (!t || !dir || !sc) return pass_reason(pc, "missing parameter '%s'", !t ? "tensor" : !dir ? "dir" : "scope");
  if (strcmp(dir, "read") && strcmp(dir, "write")) return pass_reason(pc, "dir=%s is not read or write", dir);
  if (strcmp(sc, "s") && strcmp(sc, "l")) return pass_reason(pc, "scope=%s is not l or s", sc);
  *write = !strcmp(dir, "write");
  *scope = ir_scope_from_name(sc);
  IrRef *r;
  if (*write) {
    if (strcmp(t, s->lhs->name)) return pass_reason(pc, "'%s' is not the output of nest %d (%s)", t, c->nest, s->lhs->name);
    r = s->lhs;
  } else {
    if (!strcmp(t, s->lhs->name)) return pass_reason(pc, "'%s' is the output of nest %d; use dir=write", t, c->nest);
    r = rw_first_read(s->rhs, t);
    if (!r) return pass_reason(pc, "nest %d does not read '%s'", c->nest, t);
  }
  c->site = r->loc;
  *np = n;
  *sp = s;
  *rp = r;
  return NULL;
}

/* A read of `name` with a subscript other than `sub`: its text in found. */
typedef struct OtherRead {
  LeirCtx *ctx;
  const char *name, *sub, *found;
} OtherRead;

static void other_read(IrExpr *e, void *u) {
  OtherRead *o = u;
  if (o->found || e->kind != E_REF || strcmp(e->u.ref->name, o->name)) return;
  const char *t = rw_sub_text(o->ctx, e->u.ref);
  if (strcmp(t, o->sub)) o->found = t;
}

static const char *check(PassCtx *pc, PassCand *c) {
  IrNest *n;
  IrStmt *s;
  IrRef *r;
  bool write;
  IrScope scope;
  const char *why = resolve(pc, pc->prog, c, &n, &s, &r, &write, &scope);
  if (why) return why;
  if ((why = rw_fresh_inputs_rule(pc, pc->prog, c->nest))) return why;
  const char *names[64];
  int nn = rw_names_in_ref(r, names, 64);
  if (nn == 0) return pass_reason(pc, "'%s' is %s without an index", r->name, write ? "written" : "read");
  if (rw_has_const_minus(pc->ctx, r))
    return pass_reason(pc, "the subscript of '%s' (%s) has a -N or N- term", r->name, rw_sub_text(pc->ctx, r));
  if (rw_ref_has_nested_ref(r)) return pass_reason(pc, "the subscript of '%s' reads another tensor", r->name);
  if (!write && (why = gx_lazy_read_unbounded(pc, s, r))) return why;
  int ub = rw_unbounded_item(r);
  if (ub >= 0) /* (fuzz_passes: 1%c with c from 0) */
    return pass_reason(pc, "item %d of '%s' (%s) has no bounded range, so the cache's shape cannot be inferred", ub,
                       r->name, rw_sub_text(pc->ctx, r));
  int64_t hi;
  if ((ub = rw_oversized_item(r, NULL, &hi)) >= 0) /* (fuzz_passes: (tx*4686018427387904*4)//4+tx) */
    return pass_reason(pc, "item %d of '%s' (%s) reaches %lld: the cache would have more than %lld elements", ub,
                       r->name, rw_sub_text(pc->ctx, r), (long long)hi, (long long)IR_MAX_NUMEL);
  if (write) {
    /* the statement's reads of its output move to Z with it: only reads of
       the element being written (X=X+...) stay inside what Z holds (fuzz:
       G_{a+1,c}=G_{a,c+1}+... read Z out of bounds, values of other nests) */
    OtherRead o = {pc->ctx, r->name, rw_sub_text(pc->ctx, r), NULL};
    ir_walk_expr(s->rhs, other_read, &o);
    if (o.found)
      return pass_reason(pc, "the statement also reads '%s' at %s, not the element it writes (%s)", r->name, o.found,
                         o.sub);
  }
  const char *renamed;
  if (!rw_copy_loops(pc, n, names, nn, false, &renamed, &why)) return why;
  c->note = pass_reason(pc, "the staged tensor is written and read in different nests: SPEC 9.3 demotes its "
                            "scope '%s' to 'g'", ir_scope_name(scope));
  c->why = pass_reason(pc, "'%s' is %s in nest %d with the subscript %s: affine in %d loop ind%s, no -N term, no "
                       "tensor read inside it; a copy nest over those loops stages exactly the elements the "
                       "statement %s",
                       r->name, write ? "written" : "read", c->nest, rw_sub_text(pc->ctx, r), nn, nn == 1 ? "ex" : "ices",
                       write ? "writes" : "reads");
  return NULL;
}

typedef struct Swap {
  const char *name, *sub, *to;
  IrDType dt;
  IrScope sc;
  LeirCtx *ctx;
} Swap;

static void swap_walk(IrExpr *e, void *u) {
  Swap *w = u;
  if (e->kind != E_REF || strcmp(e->u.ref->name, w->name)) return;
  if (strcmp(rw_sub_text(w->ctx, e->u.ref), w->sub)) return;
  e->u.ref->name = w->to;
  e->u.ref->dt_tag = w->dt;
  e->u.ref->sc_tag = w->sc;
  e->u.ref->tensor = NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  IrNest *n;
  IrStmt *s;
  IrRef *r;
  bool write;
  IrScope scope;
  if (resolve(pc, q, &cc, &n, &s, &r, &write, &scope)) return false;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *z = pass_fresh_tensor(&ns);
  const char *names[64], *renamed, *why;
  int nn = rw_names_in_ref(r, names, 64);
  IrNest *copy = rw_copy_loops(pc, n, names, nn, false, &renamed, &why);
  if (!copy) return false;
  IrRef *orig = ir_ref_clone(ctx, r);
  IrRef *zr = rw_ref(ctx, z, rw_ref_dtype(r), scope, r->sub, r->nsub);
  IrStmt *cs;
  if (write) {
    rw_rename_tensor_stmt(s, orig->name, z, rw_ref_dtype(r), scope);
    cs = ir_stmt_new(ctx, orig, ir_refexpr(ctx, zr));
  } else {
    Swap w = {orig->name, rw_sub_text(ctx, orig), z, rw_ref_dtype(r), scope, ctx};
    ir_walk_expr(s->rhs, swap_walk, &w);
    cs = ir_stmt_new(ctx, zr, ir_refexpr(ctx, orig));
  }
  rw_fix_tx_stmt(ctx, cs, renamed);
  ir_nest_add_item(ctx, copy, ITEM_STMT, cs);
  rw_insert_nest(ctx, q, write ? cc.nest + 1 : cc.nest, copy);
  return true;
}

const PassImpl pass_impl_cache_read_write = {
    .keys = keys, .enumerate = enumerate, .check = check, .apply = apply, .keeps_depth = true};
