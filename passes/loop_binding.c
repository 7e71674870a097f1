/* loop_binding.c -- STRATEGIES §2.8: bind a loop to a GPU thread or block
 * axis.
 *
 * Pre (REF): a nest with >= 3 loops and at least one L, no index used as a
 * value, the loop's index in every left subscript and not tx, extent <
 * 65535.  Rewrite: the loop becomes `B` and its index is renamed
 * <t|b><x|y|z><old> in the header and the subscripts.  REF's random axis is
 * the parameter `axis` (tx ty tz bx by bz); REF restricts thread axes to
 * n*extent(tx) <= 1024 and tz to n <= 64, which the REC limits below imply.
 * REC: only L and P loops; refuse an axis already bound in the nest, more
 * than 1024 threads, tz > 64, by/bz > 65535, and any dependence between
 * iterations of the loop that are not separated by a host loop (the loops
 * before the first B loop): B iterations run concurrently with everything
 * inside the kernel (deps_check_parallel in kernel mode).  Class E. */
#include "passes/deps.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the loop to bind"},
  {"axis", true, "tx, ty, tz, bx, by or bz"},
  {NULL, false, NULL},
};

static const char *const axes[] = {"tx", "ty", "tz", "bx", "by", "bz"};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++)
    for (int i = 0; i < p->nests[k]->nloops; i++) {
      const IrLoop *l = p->nests[k]->loops[i];
      if (l->kind != LOOP_L && l->kind != LOOP_P) continue;
      for (int a = 0; a < 6; a++) {
        PassCand *c = pass_cand_new(pc);
        pass_cand_set_int(pc->ctx, c, "nest", k);
        pass_cand_set(pc->ctx, c, "loop", l->index);
        pass_cand_set(pc->ctx, c, "axis", axes[a]);
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
  const char *axis = pass_cand_get(c, "axis");
  if (!axis) return "missing parameter 'axis'";
  int a = 0;
  while (a < 6 && strcmp(axes[a], axis)) a++;
  if (a == 6) return pass_reason(pc, "axis=%s is not one of tx, ty, tz, bx, by, bz", axis);
  if (n->nloops < 3) return pass_reason(pc, "nest %d has %d loops; loop_binding needs at least 3", c->nest, n->nloops);
  if (l->kind != LOOP_L && l->kind != LOOP_P)
    return pass_reason(pc, "loop '%s' is a %c loop; only L and P loops are bound", l->index, ir_loop_kind_char(l->kind));
  if (!strcmp(l->index, "tx")) return "loop 'tx' is excluded";
  const char *v = rw_index_used_as_value(n);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, c->nest);
  if (!rw_in_every_output(n, l->index))
    return pass_reason(pc, "loop '%s' does not occur in the left subscript of every statement of nest %d "
                           "(a reduction axis cannot be bound)", l->index, c->nest);
  if (l->extent >= 65535) return pass_reason(pc, "loop '%s' has extent %lld; binding needs an extent below 65535",
                                             l->index, (long long)l->extent);
  const char *name = pass_reason(pc, "%s%s", axis, l->index);
  if (rw_loop_pos(n, name) >= 0) return pass_reason(pc, "nest %d already has a loop '%s'", c->nest, name);
  IrLoop **loops = arena_alloc(&pc->ctx->arena, sizeof(IrLoop *) * (size_t)n->nloops);
  for (int j = 0; j < n->nloops; j++) {
    loops[j] = n->loops[j];
    if (j != pos) continue;
    loops[j] = rw_loop_clone(pc->ctx, l);
    loops[j]->kind = LOOP_B;
    loops[j]->index = name;
  }
  const char *hw = rw_hw_limits_loops(pc, loops, n->nloops);
  if (hw) return hw;
  const NestDeps *d = deps_of_nest(pc, c->nest);
  if (d->unsupported) return d->unsupported;
  int fb = rw_first_b(n);
  int nhost = fb < 0 || pos < fb ? pos : fb;
  DepVerdict r = deps_check_parallel(d, pos, true, nhost);
  if (!r.ok)
    return pass_reason(pc, "iterations of loop '%s' would run concurrently but share %s", l->index,
                       deps_describe(pc, r.bad));
  c->why = pass_reason(pc, "loop '%s' of nest %d is %s %c loop of extent %lld (below 65535) that occurs in the left "
                       "subscript of every statement (not a reduction axis), no index is used as a value, the new "
                       "B loop '%s' fits the hardware limits; %s; none makes concurrent iterations share data",
                       l->index, c->nest, l->kind == LOOP_L ? "an" : "a", ir_loop_kind_char(l->kind), (long long)l->extent, name,
                       deps_summary(pc, d));
  return NULL;
}

typedef struct Ren {
  LeirCtx *ctx;
  const char *from, *to;
} Ren;

static void ren(IrStmt *s, void *u) {
  Ren *r = u;
  rw_rename_index_stmt(r->ctx, s, r->from, r->to);
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  if (pos < 0) return false;
  IrLoop *l = n->loops[pos];
  const char *name = arena_printf(&pc->ctx->arena, "%s%s", pass_cand_get(c, "axis"), l->index);
  Ren r = {pc->ctx, l->index, name};
  rw_for_stmts(n, ren, &r);
  l->kind = LOOP_B;
  l->index = name;
  l->hw = ir_hw_axis_of_index(name);
  return true;
}

const PassImpl pass_impl_loop_binding = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
