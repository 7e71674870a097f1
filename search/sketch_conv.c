/* sketch_conv.c -- the conv sketch rule (search/search.h): a sum of
 * products over several reduction loops (a convolution as the corpus
 * writes it, im2col-free) tiled into a register block of output channels
 * x width, the reductions just outside it. */
#include "config.h"
#include "search/search.h"

#include <string.h>

static const char *plain(const IrExpr *e) {
  e = ir_expr_unparen(e);
  return e && e->kind == E_INDEX ? e->u.index.name : NULL;
}

static bool ref_mentions(const IrRef *r, const char *x) {
  for (int i = 0; i < r->nsub; i++)
    if (search_mentions(r->sub[i], x)) return true;
  return false;
}

/* Nest ni as the rule wants it (search.h), into *mt; false if not. */
static bool match(const IrProgram *p, int ni, SketchMatch *mt) {
  const IrNest *n = p->nests[ni];
  if (n->nitems != 1 || n->items[0].kind != ITEM_STMT) return false;
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i]->kind != LOOP_L && n->loops[i]->kind != LOOP_B) return false;
  const IrStmt *s = n->items[0].u.stmt;
  const IrRef *d = s->lhs;
  if (!s->self_ref || s->redop != RED_ADD || s->nred < 2 || d->nsub < 2 || !d->tensor ||
      !ir_dtype_is_float(d->tensor->dtype) || n->nloops != d->nsub + s->nred)
    return false;
  for (int i = 0; i < d->nsub; i++) {
    const char *x = plain(d->sub[i]);
    if (!x || search_loop_pos(n, x) < 0) return false;
    for (int k = 0; k < i; k++)
      if (!strcmp(plain(d->sub[k]), x)) return false;
  }
  const IrExpr *e = ir_expr_unparen(s->rhs);
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD) return false;
  const IrExpr *l = ir_expr_unparen(e->u.bin.a), *r = ir_expr_unparen(e->u.bin.b);
  bool lself = l->kind == E_REF && !strcmp(l->u.ref->name, d->name) && ir_ref_same_subscript(l->u.ref, d);
  bool rself = r->kind == E_REF && !strcmp(r->u.ref->name, d->name) && ir_ref_same_subscript(r->u.ref, d);
  const IrExpr *prod = lself ? r : rself ? l : NULL;
  if (!prod || prod->kind != E_BINARY || prod->u.bin.op != OP_MUL) return false;
  const IrExpr *x = ir_expr_unparen(prod->u.bin.a), *y = ir_expr_unparen(prod->u.bin.b);
  if (x->kind != E_REF || y->kind != E_REF) return false;
  const char *lj = plain(d->sub[d->nsub - 1]);
  for (int swap = 0; swap < 2; swap++) {
    const IrRef *img = swap ? y->u.ref : x->u.ref, *w = swap ? x->u.ref : y->u.ref;
    /* the image moves one element a step of j, the weights not at all */
    if (!search_unit_last(img, lj) || ref_mentions(w, lj)) continue;
    /* rows: the output item nearest j that the weights read and the
       image does not */
    for (int k = d->nsub - 2; k >= 0; k--) {
      const char *li = plain(d->sub[k]);
      if (!ref_mentions(w, li) || ref_mentions(img, li)) continue;
      *mt = (SketchMatch){0};
      mt->rule = SKETCH_CONV;
      mt->nest = ni;
      mt->d = d->name;
      mt->a = w->name;
      mt->b = img->name;
      mt->li = li;
      mt->lj = lj;
      mt->ni = n->loops[search_loop_pos(n, li)]->extent;
      mt->nj = n->loops[search_loop_pos(n, lj)]->extent;
      mt->elem = ir_dtype_size(d->tensor->dtype);
      return true;
    }
  }
  return false;
}

/* The options: rows x cols tiles as the matmul rule's (search/sketch.c),
 * no packing, no groups; the largest tile first, columns nearest 4
 * vectors.  When no multiple of the vector width divides j's extent (the
 * corpus's widths of 30, 126, 254), the whole width if it is at most 4
 * vectors (Conv2D_ReLU_BiasAdd's 30: as fast as written, where tiles of 10
 * or 15 columns were 1.3 to 3.4 times slower, measured). */
static bool options(LeirCtx *ctx, SketchMatch *mt, const SearchMachine *m) {
  int64_t vec = m->vec_bytes / mt->elem, tile = (int64_t)m->nregs / 2 * m->vec_bytes;
  if (vec < 1) return false;
  PtrVec v = {0};
  int best = -1;
  int64_t best_area = 0, best_dist = 0;
  bool whole = false;
  for (int64_t cols = vec; cols <= mt->nj; cols += vec) whole |= mt->nj % cols == 0;
  for (int64_t cols = whole ? vec : mt->nj; cols <= mt->nj && cols <= 4 * vec && 2 * cols * mt->elem <= tile;
       cols += whole ? vec : mt->nj) {
    if (mt->nj % cols) continue;
    for (int64_t rows = 2; rows <= 32 && rows <= mt->ni && rows * cols * mt->elem <= tile; rows++) {
      if (mt->ni % rows) continue;
      SketchOption *o = arena_alloc(&ctx->arena, sizeof *o);
      *o = (SketchOption){false, cols, rows, 1, 0};
      int64_t area = rows * cols, dist = cols > 4 * vec ? cols - 4 * vec : 4 * vec - cols;
      if (best < 0 || area > best_area || (area == best_area && dist < best_dist)) {
        best = v.n;
        best_area = area;
        best_dist = dist;
      }
      ptrvec_push(&ctx->arena, &v, o);
    }
  }
  return search_set_options(ctx, mt, &v, best);
}

SketchMatch *search_conv_match(LeirCtx *ctx, const IrProgram *p, int ni, const SearchMachine *m) {
  SketchMatch mt;
  if (!match(p, ni, &mt) || !options(ctx, &mt, m)) return NULL;
  SketchMatch *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = mt;
  return c;
}

IrProgram *search_conv_apply(LeirCtx *ctx, IrProgram *p, const SketchMatch *mt, const SketchOption *o, PtrVec *steps,
                             const char **why) {
  int nest = mt->nest;
  const char *io = NULL, *jo = NULL;
  if (mt->ni / o->rows > 1 && !(p = search_split(ctx, p, nest, mt->li, mt->ni / o->rows, &io, steps, why))) return NULL;
  if (mt->nj / o->cols > 1 && !(p = search_split(ctx, p, nest, mt->lj, mt->nj / o->cols, &jo, steps, why))) return NULL;
  /* the order wanted: the other spatial loops as they are (the split
     loops' outer halves where the loops were), the reductions as they
     are, then the tile i j */
  const IrNest *n = p->nests[nest];
  const IrStmt *s = n->items[0].u.stmt;
  const char *want[64];
  int nw = 0;
  if (n->nloops > 64) {
    *why = "too many loops";
    return NULL;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n->nloops; i++) {
      const char *x = n->loops[i]->index;
      bool red = false;
      for (int r = 0; r < s->nred; r++) red |= s->red[r] == n->loops[i];
      if (red == (pass == 1) && strcmp(x, mt->li) && strcmp(x, mt->lj)) want[nw++] = x;
    }
  want[nw++] = mt->li;
  want[nw++] = mt->lj;
  for (int i = 0; i < nw; i++) {
    n = p->nests[nest];
    if (!strcmp(n->loops[i]->index, want[i])) continue;
    p = search_step(ctx, p, steps, why, "loop_reorder(nest=%d,loop1=%s,loop2=%s)", nest, n->loops[i]->index, want[i]);
    if (!p) return NULL;
  }
  return p;
}
