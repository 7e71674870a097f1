/* sketch_rfactor.c -- the rfactor sketch rule (search/search.h): a serial
 * reduction over a contiguous axis split into vector partial results by
 * leirc's own reduction_rfactor (passes/reduction_rfactor.c), the lane loop
 * innermost, where the host JIT vectorises the independent lanes. */
#include "config.h"
#include "passes/rewrite.h"
#include "search/search.h"

#include <string.h>

enum { RF_MIN_EXTENT = 64 };

/* The lanes offered, the heuristic's first (16: two AVX2 vectors of f32,
 * the fastest of the three on a 256x4096 f32 row sum, bench/sketch_bench.py). */
static const int64_t lanes_offered[] = {16, 8, 32};

typedef struct Contig {
  const char *self, *x;
  bool found;
} Contig;

/* A reference other than the accumulator whose last item moves one element
 * a step of x, x in no other item. */
static void contiguous(IrExpr *e, void *user) {
  Contig *c = user;
  if (e->kind != E_REF || !strcmp(e->u.ref->name, c->self)) return;
  if (search_unit_last(e->u.ref, c->x)) c->found = true;
}

/* Nest ni as the rule wants it (search.h), into *mt; false if not. */
static bool match(const IrProgram *p, int ni, SketchMatch *mt) {
  const IrNest *n = p->nests[ni];
  if (n->nitems != 1 || n->items[0].kind != ITEM_STMT || n->nloops < 1) return false;
  const IrStmt *s = n->items[0].u.stmt;
  const IrRef *d = s->lhs;
  if (!s->self_ref || s->init != INIT_REDUCE || !d->tensor || !ir_dtype_is_float(d->tensor->dtype)) return false;
  if (s->redop != RED_ADD && s->redop != RED_MAX && s->redop != RED_MIN) return false;
  const IrLoop *l = n->loops[n->nloops - 1];
  bool red = false;
  for (int r = 0; r < s->nred; r++) red |= s->red[r] == l;
  if (!red || l->kind != LOOP_L || l->extent < RF_MIN_EXTENT) return false;
  if (rw_index_used_as_value(n)) return false; /* the pass refuses it (a masked scan: scan_rewrite's) */
  Contig c = {d->name, l->index, false};
  ir_walk_expr(s->rhs, contiguous, &c);
  if (!c.found) return false;
  *mt = (SketchMatch){0};
  mt->rule = SKETCH_RFACTOR;
  mt->nest = ni;
  mt->d = d->name;
  mt->lk = l->index;
  mt->nk = l->extent;
  mt->elem = ir_dtype_size(d->tensor->dtype);
  return true;
}

SketchMatch *search_rfactor_match(LeirCtx *ctx, const IrProgram *p, int ni) {
  SketchMatch mt;
  if (!match(p, ni, &mt)) return NULL;
  PtrVec v = {0};
  for (size_t i = 0; i < sizeof lanes_offered / sizeof lanes_offered[0]; i++) {
    int64_t lanes = lanes_offered[i];
    if (mt.nk % lanes || mt.nk / lanes < 2) continue;
    SketchOption *o = arena_alloc(&ctx->arena, sizeof *o);
    *o = (SketchOption){.cols = lanes};
    ptrvec_push(&ctx->arena, &v, o);
  }
  if (!search_set_options(ctx, &mt, &v, 0)) return NULL;
  SketchMatch *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = mt;
  return c;
}

IrProgram *search_rfactor_apply(LeirCtx *ctx, IrProgram *p, const SketchMatch *mt, const SketchOption *o,
                                PtrVec *steps, const char **why) {
  return search_step(ctx, p, steps, why, "reduction_rfactor(nest=%d,loop=%s,lanes=%lld)", mt->nest, mt->lk,
                     (long long)o->cols);
}
