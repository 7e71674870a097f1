/* reduction_rfactor.c -- leirc's own strategy (not one of the 43 of
 * STRATEGIES.md): a reduction split into V strided partial results, the
 * lane index innermost, then a fixed-order combine.
 *
 * A serial f32 sum over a long axis is one chain of dependent additions,
 * which the host JIT may not vectorise (it must not re-associate floats);
 * PyTorch sums with vector partial sums.  §2.9 reduction_factorization
 * splits a reduction into two contiguous halves in separate nests, and
 * loop_split refuses reduction loops.  This strategy writes the partial
 * sums explicitly: for a reduction loop `a` of extent E and V lanes (E % V
 * == 0), lane v sums the terms k = g*V+v, g = 0..E/V-1, into a fresh tensor
 * P with the output's subscript and one more item, the lane:
 *   B^{128}_{tx=0}L^{1024}_{a=0}[C_{tx}=C_{tx}+A_{tx,a};];
 * becomes (V = 8, g a fresh index)
 *   B^{128}_{tx=0}L^{128}_{g=0}L^{8}_{a=0}[D_{tx,a}=D_{tx,a}+A_{tx,g*8+a};];
 *   B^{128}_{tx=0}L^{8}_{a=0}[C_{tx}=C_{tx}+D_{tx,a};];
 * The V chains of the first nest are independent (different elements of
 * D), so the inner lane loop is a loop of independent vector lanes; the
 * second nest adds the V partial results in the fixed order 0..V-1.  Both
 * statements are implicitly initialised reductions (SPEC 9.5): D starts
 * from the identity at g = 0 (and the other reduction indices 0), C at
 * a = 0.  The lane loop takes the reduction loop's place and name, g goes
 * right outside it; the combine nest has the loops of the output's
 * subscript in their order (B^{1}_{tx=0} first when none is bound to
 * threadIdx.x, as in reduction_factorization) and the lane loop last.
 *
 * Pre: a single-statement nest whose statement accumulates into T (T=T+...,
 * T-..., T*..., max(T,...), min(T,...): rw_accum_op, T read nowhere else
 * on the right side), implicitly initialised (SPEC 9.5), recombining
 * exactly under its per-step conversion (rw_accum_not_associative), every
 * loop of extent > 1 used by the statement (rw_repeated_reduction); the
 * loop is a reduction loop (used by the statement, not in T's subscript)
 * of kind L or U; no index is used as a value (REF's fresh-inputs rule,
 * a quirk of the reference's strategies, is not required: the partial nest
 * reads what the nest read, at the same point of the program);
 * lanes = V is a power of two in 4..64 that divides the extent E with
 * E/V >= 2 (no remainder: a tail would need a guard in the hot loop;
 * refused rather than handled); P has at most 2^31 elements.
 *
 * Class T for + - * (the V partial chains re-associate the reduction; each
 * is verified within the tolerance of STRATEGIES §0.4).  Class E for max
 * and min: leirc's max/min ignore a NaN operand (the other is returned) and
 * order +0 above -0 (interp/ops.h op_maxf and the code generators), so
 * max/min is a maximum/minimum in a total order over the non-NaN values
 * with the identity -inf/+inf: associative and commutative, the same
 * value in every grouping, NaN behaviour included (a lane of NaNs only
 * gives the identity, which the combine absorbs, as the serial chain
 * does); a per-step conversion that does not keep order is refused by
 * rw_accum_not_associative.  Integer sums and products wrap, and are
 * exact too, but stay class T like the floats (the table's class).
 *
 * Params: nest, loop, lanes.  enumerate lists one candidate per serial
 * reduction loop of extent E >= 64 (a short sum gains nothing from lanes,
 * and the searches would spend their budget on it): lanes 16 (two AVX2
 * vectors of f32) when 16 divides E, else 8, else 4; a complete spelling
 * accepts any legal V on any extent (search/sketch_rfactor.c offers 8, 16
 * and 32). */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the reduction loop to split into lanes"},
  {"lanes", true, "number V of partial results: a power of two in 4..64 dividing the extent, extent/V >= 2"},
  {NULL, false, NULL},
};

enum { LANES_MIN = 4, LANES_MAX = 64, ENUM_MIN_EXTENT = 64 };

/* The lanes enumerate lists for extent e (0: none). */
static int64_t default_lanes(int64_t e) {
  if (e < ENUM_MIN_EXTENT) return 0;
  if (e % 16 == 0) return 16;
  if (e % 8 == 0) return 8;
  if (e % 4 == 0) return 4;
  return 0;
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    IrStmt *s = rw_single_stmt(n);
    if (!s) continue;
    for (int i = 0; i < n->nloops; i++) {
      const IrLoop *l = n->loops[i];
      int64_t v = default_lanes(l->extent);
      if (!v || (l->kind != LOOP_L && l->kind != LOOP_U) || rw_ref_mentions(s->lhs, l->index) ||
          !rw_stmt_mentions(s, l->index))
        continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "loop", l->index);
      pass_cand_set_int(pc->ctx, c, "lanes", v);
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
  if (!s) return pass_reason(pc, "nest %d has %d items; a reduction split into lanes needs exactly one statement",
                             c->nest, n->nitems);
  const char *t = s->lhs->name;
  if (rw_ref_mentions(s->lhs, l->index))
    return pass_reason(pc, "loop '%s' occurs in the left subscript of '%s': it is not a reduction loop", l->index, t);
  if (!rw_stmt_mentions(s, l->index))
    return pass_reason(pc, "the statement does not use index '%s' (a repeated loop, not a reduction)", l->index);
  if (l->kind != LOOP_L && l->kind != LOOP_U)
    return pass_reason(pc, "loop '%s' is a %c loop: only a serial L or U reduction loop is split into lanes", l->index,
                       ir_loop_kind_char(l->kind));
  if (mp_count_refs_expr(s->rhs, t) > 1)
    return pass_reason(pc, "the sum reads '%s' besides its accumulator '%s' (%s): those elements change while the sum "
                       "runs, and the partial results would read them at other times",
                       t, rw_text(pc->ctx, ir_refexpr(pc->ctx, s->lhs)), rw_text(pc->ctx, s->rhs));
  IrReduceOp op = rw_accum_op(pc->ctx, s, NULL);
  if (op == RED_NONE)
    return pass_reason(pc, "the statement does not accumulate into '%s' (%s=%s+..., *..., max(%s,...) or min(%s,...), "
                       "with '%s' read nowhere else on the right side)",
                       t, t, t, t, t, t);
  if (s->init != INIT_REDUCE)
    return pass_reason(pc, "'%s' is written before nest %d, so the statement is not a reduction with an implicit "
                       "initialisation (SPEC 9.5)",
                       t, c->nest);
  if ((why = rw_accum_not_associative(pc, s, op))) return why;
  if ((why = rw_repeated_reduction(pc, n, s))) return why;
  const char *v = rw_index_used_as_value(n);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, c->nest);
  int64_t lanes;
  int r = pass_cand_get_int(c, "lanes", &lanes);
  if (r <= 0)
    return r == 0 ? "missing parameter 'lanes'" : pass_reason(pc, "lanes=%s is not an integer", pass_cand_get(c, "lanes"));
  if (lanes < LANES_MIN || lanes > LANES_MAX || (lanes & (lanes - 1)))
    return pass_reason(pc, "lanes=%lld is not a power of two in %d..%d", (long long)lanes, LANES_MIN, LANES_MAX);
  if (l->extent % lanes)
    return pass_reason(pc, "lanes=%lld does not divide the extent %lld of loop '%s' (no remainder is handled)",
                       (long long)lanes, (long long)l->extent, l->index);
  if (l->extent / lanes < 2)
    return pass_reason(pc, "lanes=%lld leaves loop '%s' (extent %lld) one term per lane: nothing to sum", (long long)lanes,
                       l->index, (long long)l->extent);
  const IrTensor *tt = s->lhs->tensor;
  if (tt && ir_tensor_numel(tt) > ((int64_t)1 << 31) / lanes)
    return pass_reason(pc, "size guard: the partial results would have %lld elements (more than 2^31)",
                       (long long)(ir_tensor_numel(tt) * lanes));
  c->cls = op == RED_MAX || op == RED_MIN ? PASS_E : PASS_T;
  c->why = pass_reason(pc, "nest %d has one statement, an implicitly initialised reduction into '%s' (SPEC 9.5); loop "
                       "'%s' (extent %lld) is a serial reduction loop, no index is used as a value, and lanes=%lld "
                       "divides the extent into %lld terms per lane%s",
                       c->nest, t, l->index, (long long)l->extent, (long long)lanes, (long long)(l->extent / lanes),
                       c->cls == PASS_E ? "; max/min partial results combine exactly (NaN operands ignored, +0 above -0)"
                                        : "; the lanes re-associate the reduction (class T)");
  return NULL;
}

/* r with one more subscript item, index `lane` (a fresh ref). */
static IrRef *with_lane(LeirCtx *ctx, const IrRef *r, const char *name, IrDType dt, const char *lane) {
  IrExpr **items = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(r->nsub + 1));
  for (int i = 0; i < r->nsub; i++) items[i] = r->sub[i];
  items[r->nsub] = ir_index(ctx, lane);
  IrRef *x = rw_ref(ctx, name, dt, r->sc_tag, items, r->nsub + 1);
  x->loc = r->loc;
  return x;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  int64_t lanes;
  IrStmt *s = rw_single_stmt(n);
  if (pos < 0 || !s || pass_cand_get_int(c, "lanes", &lanes) != 1) {
    pc->reason = "the reduction loop or its statement is gone";
    return false;
  }
  IrRef *self = NULL;
  IrReduceOp op = rw_accum_op(ctx, s, &self);
  if (op == RED_NONE || !self) {
    pc->reason = "the statement no longer accumulates";
    return false;
  }
  const char *a = n->loops[pos]->index;
  IrRef *out = ir_ref_clone(ctx, s->lhs);
  IrDType dt = rw_ref_dtype(s->lhs);
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *pn = pass_fresh_tensor(&ns);

  /* the combine nest first (from the loops as they are): T's loops, the lane */
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops + 2));
  int k = 0;
  bool has_tx = false;
  for (int i = 0; i < n->nloops; i++) {
    if (i == pos || !rw_ref_mentions(out, n->loops[i]->index)) continue;
    loops[k] = rw_loop_clone(ctx, n->loops[i]);
    has_tx |= !strcmp(loops[k]->index, "tx") || (loops[k]->kind == LOOP_B && ir_hw_axis_of_index(loops[k]->index) == HW_TX);
    k++;
  }
  if (!has_tx && strcmp(a, "tx")) { /* (an L loop named tx is the lane loop itself) */
    memmove(loops + 1, loops, sizeof(IrLoop *) * (size_t)k);
    loops[0] = rw_loop(ctx, LOOP_B, 1, "tx");
    k++;
  }
  loops[k++] = rw_loop(ctx, LOOP_L, lanes, a);
  IrExpr *part = ir_refexpr(ctx, with_lane(ctx, out, pn, dt, a));
  IrStmt *sc = ir_stmt_new(ctx, ir_ref_clone(ctx, out), rw_accum_combine(ctx, op, ir_refexpr(ctx, ir_ref_clone(ctx, out)), part));
  sc->loc = s->loc;
  IrNest *nc = rw_nest1(ctx, loops, k, sc);

  /* the partial nest: a -> g*V+a, T -> P with the lane appended */
  const char *g = pass_fresh_index(ctx, n, NULL, 0);
  pass_split_loop(ctx, n, pos, n->loops[pos]->extent / lanes, g);
  IrRef *lhs = with_lane(ctx, s->lhs, pn, dt, a);
  IrRef *rd = with_lane(ctx, self, pn, dt, a);
  *self = *rd;
  s->lhs = lhs;
  rw_insert_nest(ctx, q, c->nest + 1, nc);
  return true;
}

const PassImpl pass_impl_reduction_rfactor = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
