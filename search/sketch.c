/* sketch.c -- the matmul sketch rule: which nests it matches, the options
 * (free factors) it has there, and an instance applied as an ordinary
 * sequence of strategies through the pass manager (search/search.h). */
#include "config.h"
#include "search/search.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

/* A group of panels of the packed B should fit in this many bytes (the
 * heuristic option; L2 of the machines bench/sgemm.sh was measured on). */
#define SKETCH_GROUP_BYTES (1 << 20)
/* The most rows of a register tile (codegen/lower_loops.c, TILE_ROWS_MAX). */
#define SKETCH_ROWS_MAX 32

/* ------------------------------------------------------------ the machine */

bool search_machine_of_bytes(int vec_bytes, SearchMachine *m) {
  if (vec_bytes != 16 && vec_bytes != 32 && vec_bytes != 64) return false;
  m->vec_bytes = vec_bytes;
  m->nregs = vec_bytes == 64 ? 32 : 16;
  return true;
}

bool search_host_machine(LeirCtx *ctx, SearchMachine *m) {
  LLVMTargetMachineRef tm = cg_host_machine(ctx, 2, true);
  if (!tm) return false;
  char *feat = LLVMGetTargetMachineFeatureString(tm);
  bool avx512 = cg_host_avx512(tm), avx = feat && strstr(feat, "+avx");
  LLVMDisposeMessage(feat);
  LLVMDisposeTargetMachine(tm);
  return search_machine_of_bytes(avx512 ? 64 : avx ? 32 : 16, m);
}

/* ------------------------------------------------------------ matching */

static const IrExpr *strip(const IrExpr *e) {
  while (e && e->kind == E_PAREN) e = e->u.paren;
  return e;
}

/* The loop index of subscript item e (a plain index), else NULL. */
static const char *plain(const IrExpr *e) {
  e = strip(e);
  return e && e->kind == E_INDEX ? e->u.index.name : NULL;
}

/* Is subscript item e an integer literal (attention's K_{tx,a,0,g,f} as
 * leirc-import writes a broadcast head)? */
static bool literal(const IrExpr *e) {
  e = strip(e);
  return e && e->kind == E_INT;
}

/* Position of index name x among r's subscripts (plain indices, or integer
 * literals where `lits`), -1 if absent; -2 if a subscript is neither. */
static int sub_pos_of(const IrRef *r, const char *x, bool lits) {
  int at = -1;
  for (int i = 0; i < r->nsub; i++) {
    const char *s = plain(r->sub[i]);
    if (!s && lits && literal(r->sub[i])) continue;
    if (!s) return -2;
    if (!strcmp(s, x)) at = i;
  }
  return at;
}
static int sub_pos(const IrRef *r, const char *x) { return sub_pos_of(r, x, false); }
static int opd_pos(const IrRef *r, const char *x) { return sub_pos_of(r, x, true); }

/* Does r have an integer-literal subscript item? */
static bool has_literal(const IrRef *r) {
  for (int i = 0; i < r->nsub; i++)
    if (literal(r->sub[i])) return true;
  return false;
}

typedef struct Seen {
  const char *x;
  bool seen;
} Seen;

static void see(IrExpr *e, void *user) {
  Seen *s = user;
  if (e->kind == E_INDEX && !strcmp(e->u.index.name, s->x)) s->seen = true;
}

bool search_mentions(const IrExpr *e, const char *x) {
  Seen s = {x, false};
  ir_walk_expr((IrExpr *)e, see, &s);
  return s.seen;
}

/* Is e x, or x + f / f + x with f free of x (one element a step of x)? */
static bool unit_in(const IrExpr *e, const char *x) {
  e = ir_expr_unparen(e);
  if (e->kind == E_INDEX) return !strcmp(e->u.index.name, x);
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD) return false;
  return (unit_in(e->u.bin.a, x) && !search_mentions(e->u.bin.b, x)) ||
         (unit_in(e->u.bin.b, x) && !search_mentions(e->u.bin.a, x));
}

bool search_unit_last(const IrRef *r, const char *x) {
  if (r->nsub < 1 || !unit_in(r->sub[r->nsub - 1], x)) return false;
  for (int i = 0; i + 1 < r->nsub; i++)
    if (search_mentions(r->sub[i], x)) return false;
  return true;
}

int search_loop_pos(const IrNest *n, const char *name) {
  for (int i = 0; i < n->nloops; i++)
    if (!strcmp(n->loops[i]->index, name)) return i;
  return -1;
}

static const char *fmt(LeirCtx *ctx, const char *f, ...) __attribute__((format(printf, 2, 3)));
static const char *fmt(LeirCtx *ctx, const char *f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return arena_strdup(&ctx->arena, buf);
}

/* Does nest n match (see search.h)?  Fills *mt, or returns the reason it
 * does not (NULL: matched). */
static const char *match_nest(const IrProgram *p, int ni, SketchMatch *mt) {
  const IrNest *n = p->nests[ni];
  if (n->nitems != 1 || n->items[0].kind != ITEM_STMT) return "not one statement";
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i]->kind != LOOP_L && n->loops[i]->kind != LOOP_B) return "a loop is already scheduled (P, V or U)";
  const IrStmt *s = n->items[0].u.stmt;
  const IrRef *d = s->lhs;
  if (!s->self_ref || s->redop != RED_ADD || s->nred != 1) return "not a sum over one reduction loop";
  if (d->nsub < 2 || !d->tensor || !ir_dtype_is_float(d->tensor->dtype)) return "not a float matrix result";
  if (n->nloops != d->nsub + 1) return "a loop is neither an index of the result nor the reduction";
  for (int i = 0; i < d->nsub; i++) {
    const char *x = plain(d->sub[i]);
    if (!x || search_loop_pos(n, x) < 0 || sub_pos(d, x) != i) return "the result's subscripts are not distinct loop indices";
  }
  const IrExpr *e = strip(s->rhs);
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD) return "not D = D + A*B";
  const IrExpr *l = strip(e->u.bin.a), *r = strip(e->u.bin.b);
  const IrExpr *prod = l->kind == E_REF && ir_ref_same_subscript(l->u.ref, d) && !strcmp(l->u.ref->name, d->name) ? r
                       : r->kind == E_REF && ir_ref_same_subscript(r->u.ref, d) && !strcmp(r->u.ref->name, d->name) ? l
                                                                                                                      : NULL;
  if (!prod || prod->kind != E_BINARY || prod->u.bin.op != OP_MUL) return "not D = D + A*B";
  const IrExpr *x = strip(prod->u.bin.a), *y = strip(prod->u.bin.b);
  if (x->kind != E_REF || y->kind != E_REF) return "the product is not of two tensors";
  const char *li = plain(d->sub[d->nsub - 2]), *lj = plain(d->sub[d->nsub - 1]), *lk = s->red[0]->index;
  const IrRef *xa = x->u.ref, *yb = y->u.ref;
  for (int swap = 0; swap < 2; swap++) {
    const IrRef *ra = swap ? yb : xa, *rb = swap ? xa : yb;
    if (opd_pos(ra, li) < 0 || opd_pos(ra, lk) < 0 || opd_pos(ra, lj) != -1) continue;
    int bj = opd_pos(rb, lj), bk = opd_pos(rb, lk);
    if (bj < 0 || bk < 0 || opd_pos(rb, li) != -1) continue;
    for (int i = 0; i < ra->nsub; i++)
      if (!literal(ra->sub[i]) && search_loop_pos(n, plain(ra->sub[i])) < 0)
        return "an operand is subscripted by an index of no loop";
    for (int i = 0; i < rb->nsub; i++)
      if (!literal(rb->sub[i]) && search_loop_pos(n, plain(rb->sub[i])) < 0)
        return "an operand is subscripted by an index of no loop";
    *mt = (SketchMatch){0};
    mt->nest = ni;
    mt->d = d->name;
    mt->a = ra->name;
    mt->b = rb->name;
    mt->li = li;
    mt->lj = lj;
    mt->lk = lk;
    mt->ni = n->loops[search_loop_pos(n, li)]->extent;
    mt->nj = n->loops[search_loop_pos(n, lj)]->extent;
    mt->nk = n->loops[search_loop_pos(n, lk)]->extent;
    mt->bj = bj;
    mt->bk = bk;
    mt->brank = rb->nsub;
    mt->b_input = rb->tensor && (rb->tensor->role == ROLE_IN || rb->tensor->role == ROLE_PARAM) &&
                  rb->tensor->rank == rb->nsub && !has_literal(rb);
    mt->elem = ir_dtype_size(d->tensor->dtype);
    return NULL;
  }
  return "not D[..,i,j] += A[..,i,k] * B[..,k,j] (or B[..,j,k])";
}

/* The options of mt on m (the heuristic one first); false if none. */
static bool options(LeirCtx *ctx, SketchMatch *mt, const SearchMachine *m) {
  int64_t vec = m->vec_bytes / mt->elem, tile = (int64_t)m->nregs / 2 * m->vec_bytes;
  if (vec < 1) return false;
  PtrVec v = {0};
  int best = -1;
  int64_t best_area = 0, best_dist = 0;
  for (int64_t cols = vec; cols <= mt->nj && 2 * cols * mt->elem <= tile; cols += vec) {
    if (mt->nj % cols) continue;
    int64_t panels = mt->nj / cols;
    bool transposed = mt->bj < mt->bk; /* B[..,j,k] */
    for (int64_t rows = 2; rows <= SKETCH_ROWS_MAX && rows * cols * mt->elem <= tile; rows++) {
      if (mt->ni % rows) continue;
      for (int pack = 1; pack >= 0; pack--) {
        if (pack && !(mt->b_input && (panels > 1 || transposed))) continue;
        for (int64_t g = 1; g <= panels; g++) {
          if (panels % g) continue;
          SketchOption *o = arena_alloc(&ctx->arena, sizeof *o);
          *o = (SketchOption){pack, cols, rows, g, 0};
          /* the heuristic: packed if possible, the largest tile, the
             columns nearest 4 vectors, the largest group within
             SKETCH_GROUP_BYTES */
          int64_t area = rows * cols, dist = cols > 4 * vec ? cols - 4 * vec : 4 * vec - cols;
          bool fits = g == 1 || g * cols * mt->nk * mt->elem <= SKETCH_GROUP_BYTES;
          if (fits) {
            const SketchOption *b = best >= 0 ? v.v[best] : NULL;
            if (!b || (pack && !b->pack) ||
                (pack == b->pack && (area > best_area || (area == best_area && (dist < best_dist ||
                                                                               (dist == best_dist && g >= b->group)))))) {
              best = v.n;
              best_area = area;
              best_dist = dist;
            }
          }
          ptrvec_push(&ctx->arena, &v, o);
        }
      }
    }
  }
  return search_set_options(ctx, mt, &v, best);
}

int search_sketch_matches(LeirCtx *ctx, const IrProgram *p, const SearchMachine *m, PtrVec *out, const char **why) {
  const char *reason = NULL;
  int found = 0;
  SketchMatch **chains = arena_alloc(&ctx->arena, sizeof *chains * (size_t)(p->nnests ? p->nnests : 1));
  search_inline_matches(ctx, p, chains);
  for (int i = 0; i < p->nnests; i++) {
    if (chains[i]) { /* elementwise nests: no matmul among them */
      ptrvec_push(&ctx->arena, out, chains[i]);
      found++;
      i += chains[i]->links;
      continue;
    }
    SketchMatch mt;
    const char *r = match_nest(p, i, &mt);
    SketchMatch *cv = r ? search_conv_match(ctx, p, i, m) : NULL;
    if (!cv && r) cv = search_rfactor_match(ctx, p, i);
    if (cv) {
      ptrvec_push(&ctx->arena, out, cv);
      found++;
      continue;
    }
    if (r) continue;
    if (!options(ctx, &mt, m)) {
      if (!reason)
        reason = fmt(ctx, "nest %d (%s[..,%s,%s] += %s * %s) has no register tile of %d-byte vectors that divides "
                     "%lld x %lld", i, mt.d, mt.li, mt.lj, mt.a, mt.b, m->vec_bytes, (long long)mt.ni, (long long)mt.nj);
      continue;
    }
    SketchMatch *c = arena_alloc(&ctx->arena, sizeof *c);
    *c = mt;
    ptrvec_push(&ctx->arena, out, c);
    found++;
  }
  if (!found && why)
    *why = reason ? reason
                  : "no nest is a reduction D[..,i,j] += A[..,i,k] * B[..,k,j], a convolution or a serial "
                    "reduction over a contiguous axis of 64 or more, no chain of elementwise nests to inline";
  return found;
}

/* ------------------------------------------------------------ instances */

/* One step, spelt as -O takes it, through the pass manager. */
IrProgram *search_step(LeirCtx *ctx, IrProgram *p, PtrVec *steps, const char **why, const char *f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  PassCand *c = arena_alloc(&ctx->arena, sizeof *c);
  const char *err = NULL;
  IrProgram *q = pass_parse_spelling(ctx, buf, c, &err) ? pass_apply(ctx, p, c, &err) : NULL;
  if (!q) {
    *why = fmt(ctx, "%s: %s", buf, err ? err : "refused");
    return NULL;
  }
  SketchStep *s = arena_alloc(&ctx->arena, sizeof *s);
  s->spelling = pass_cand_spelling(ctx, c);
  s->cand = c;
  s->prog = q;
  ptrvec_push(&ctx->arena, steps, s);
  return q;
}

/* The name of a tensor of q that p lacks (the copy a layout step made). */
static const char *new_tensor(const IrProgram *p, const IrProgram *q) {
  for (int i = 0; i < q->ntensors; i++)
    if (!ir_find_tensor(p, q->tensors[i]->name)) return q->tensors[i]->name;
  return NULL;
}

/* The nest from `from` on that writes d with a loop named k (the matmul
 * nest after a layout step inserted a copy before it), -1 if none. */
static int find_nest(const IrProgram *p, int from, const char *d, const char *k) {
  for (int i = from; i < p->nnests; i++) {
    const IrNest *n = p->nests[i];
    if (n->nitems == 1 && n->items[0].kind == ITEM_STMT && !strcmp(n->items[0].u.stmt->lhs->name, d) &&
        search_loop_pos(n, k) >= 0)
      return i;
  }
  return -1;
}

/* "a.b.c" of a permutation */
static const char *perm_text(LeirCtx *ctx, const int *perm, int n) {
  char buf[256];
  size_t k = 0;
  for (int i = 0; i < n && k + 16 < sizeof buf; i++) k += (size_t)snprintf(buf + k, sizeof buf - k, i ? ".%d" : "%d", perm[i]);
  buf[k] = 0;
  return arena_strdup(&ctx->arena, buf);
}

static bool identity(const int *perm, int n) {
  for (int i = 0; i < n; i++)
    if (perm[i] != i) return false;
  return true;
}

/* Packs B (step 1 of search.h); *nest becomes the matmul nest's index. */
static IrProgram *pack(LeirCtx *ctx, IrProgram *p, const SketchMatch *mt, const SketchOption *o, int *nest,
                       PtrVec *steps, const char **why) {
  int64_t panels = mt->nj / o->cols;
  int perm[16], r = mt->brank, k = 0;
  if (r + 1 > 16) {
    *why = "an operand of too high a rank";
    return NULL;
  }
  IrProgram *q;
  const char *e;
  if (panels > 1) {
    q = search_step(ctx, p, steps, why, "layout_transformation(nest=%d,tensor=%s,kind=reshape1,item=%d,factor=%lld)", *nest,
             mt->b, mt->bj, (long long)panels);
    if (!q || !(e = new_tensor(p, q))) return NULL;
    /* E's items: B's with j split into panel (bj) and column (bj+1);
       wanted: the others in order, then panel, k, column */
    int kk = mt->bk < mt->bj ? mt->bk : mt->bk + 1;
    for (int i = 0; i < r + 1; i++)
      if (i != mt->bj && i != mt->bj + 1 && i != kk) perm[k++] = i;
    perm[k++] = mt->bj;
    perm[k++] = kk;
    perm[k++] = mt->bj + 1;
    if (!identity(perm, r + 1)) {
      IrProgram *q2 = search_step(ctx, q, steps, why, "set_storage_layout(tensor=%s,kind=transpose,perm=%s)", e,
                           perm_text(ctx, perm, r + 1));
      if (!q2) return NULL;
      q = q2;
    }
  } else { /* one panel, B read transposed: B's j item after its k item */
    for (int i = 0; i < r; i++)
      if (i != mt->bj) perm[k++] = i;
    perm[k++] = mt->bj;
    q = search_step(ctx, p, steps, why, "layout_transformation(nest=%d,tensor=%s,kind=transpose,perm=%s)", *nest, mt->b,
             perm_text(ctx, perm, r));
    if (!q) return NULL;
  }
  *nest = find_nest(q, *nest, mt->d, mt->lk);
  if (*nest < 0) {
    *why = "the packed product's nest is lost";
    return NULL;
  }
  return q;
}

bool search_set_options(LeirCtx *ctx, SketchMatch *mt, const PtrVec *v, int best) {
  if (!v->n) return false;
  mt->nopts = v->n;
  mt->opts = arena_alloc(&ctx->arena, sizeof *mt->opts * (size_t)v->n);
  mt->opts[0] = *(SketchOption *)v->v[best];
  for (int i = 0, k = 1; i < v->n; i++)
    if (i != best) mt->opts[k++] = *(SketchOption *)v->v[i];
  return true;
}

IrProgram *search_split(LeirCtx *ctx, IrProgram *p, int nest, const char *x, int64_t factor, const char **outer,
                        PtrVec *steps, const char **why) {
  IrProgram *q = search_step(ctx, p, steps, why, "loop_split(nest=%d,loop=%s,factor=%lld)", nest, x, (long long)factor);
  if (!q) return NULL;
  int at = search_loop_pos(q->nests[nest], x);
  if (at < 1) {
    *why = "the split loop is lost";
    return NULL;
  }
  *outer = q->nests[nest]->loops[at - 1]->index;
  return q;
}

/* One match's instance on p. */
static IrProgram *apply_one(LeirCtx *ctx, IrProgram *p, const SketchMatch *mt, const SketchOption *o, PtrVec *steps,
                            const char **why) {
  int nest = mt->nest;
  int64_t panels = mt->nj / o->cols;
  if (o->pack && !(p = pack(ctx, p, mt, o, &nest, steps, why))) return NULL;
  const char *pl = NULL, *rl = NULL, *ql = NULL;
  if (panels > 1 && !(p = search_split(ctx, p, nest, mt->lj, panels, &pl, steps, why))) return NULL;
  if (mt->ni / o->rows > 1 && !(p = search_split(ctx, p, nest, mt->li, mt->ni / o->rows, &rl, steps, why))) return NULL;
  if (o->group > 1 && o->group < panels && !(p = search_split(ctx, p, nest, pl, panels / o->group, &ql, steps, why)))
    return NULL;
  /* the order wanted: the batch loops as they are, then [q] r p k i j
     (a group of one panel: p r k i j) */
  const IrNest *n = p->nests[nest];
  const char *want[64];
  int nw = 0;
  if (n->nloops > 64) {
    *why = "too many loops";
    return NULL;
  }
  for (int i = 0; i < n->nloops; i++) {
    const char *x = n->loops[i]->index;
    bool ours = !strcmp(x, mt->li) || !strcmp(x, mt->lj) || !strcmp(x, mt->lk) || (pl && !strcmp(x, pl)) ||
                (rl && !strcmp(x, rl)) || (ql && !strcmp(x, ql));
    if (!ours) want[nw++] = x;
  }
  if (ql) want[nw++] = ql;
  if (o->group == 1 && pl) want[nw++] = pl;
  if (rl) want[nw++] = rl;
  if (o->group != 1 && pl) want[nw++] = pl;
  want[nw++] = mt->lk;
  want[nw++] = mt->li;
  want[nw++] = mt->lj;
  /* swaps, outer first: the loop at position i with the one wanted there */
  for (int i = 0; i < nw; i++) {
    n = p->nests[nest];
    if (!strcmp(n->loops[i]->index, want[i])) continue;
    p = search_step(ctx, p, steps, why, "loop_reorder(nest=%d,loop1=%s,loop2=%s)", nest, n->loops[i]->index, want[i]);
    if (!p) return NULL;
  }
  return p;
}

IrProgram *search_sketch_apply(LeirCtx *ctx, const IrProgram *p, SketchMatch *const *ms, int n, const int *choice,
                               PtrVec *steps, const char **why) {
  IrProgram *q = (IrProgram *)p;
  for (int i = n - 1; i >= 0; i--) /* the last nest first: indices before it stay */
    if (!(q = ms[i]->rule == SKETCH_INLINE ? search_inline_apply(ctx, q, ms[i], &ms[i]->opts[choice[i]], steps, why)
              : ms[i]->rule == SKETCH_CONV  ? search_conv_apply(ctx, q, ms[i], &ms[i]->opts[choice[i]], steps, why)
              : ms[i]->rule == SKETCH_RFACTOR ? search_rfactor_apply(ctx, q, ms[i], &ms[i]->opts[choice[i]], steps, why)
                                            : apply_one(ctx, q, ms[i], &ms[i]->opts[choice[i]], steps, why)))
      return NULL;
  return q;
}

const char *search_sketch_describe(LeirCtx *ctx, SketchMatch *const *ms, int n, const int *choice) {
  SBuf b = {0};
  for (int i = 0; i < n; i++) {
    const SketchOption *o = &ms[i]->opts[choice[i]];
    if (ms[i]->rule == SKETCH_INLINE) {
      sbuf_printf(&b, "%snests %d-%d: %d of %d inlined", i ? "; " : "", ms[i]->nest, ms[i]->nest + ms[i]->links,
                  o->links, ms[i]->links);
      continue;
    }
    if (ms[i]->rule == SKETCH_RFACTOR) {
      sbuf_printf(&b, "%snest %d: %s reduced over %s in %lld lanes", i ? "; " : "", ms[i]->nest, ms[i]->d, ms[i]->lk,
                  (long long)o->cols);
      continue;
    }
    if (ms[i]->rule == SKETCH_CONV) {
      sbuf_printf(&b, "%snest %d: %lldx%lld tile of %s over the reductions", i ? "; " : "", ms[i]->nest,
                  (long long)o->rows, (long long)o->cols, ms[i]->d);
      continue;
    }
    sbuf_printf(&b, "%snest %d: %s%lldx%lld tile, %lld panel%s a group", i ? "; " : "", ms[i]->nest,
                o->pack ? "packed, " : "", (long long)o->rows, (long long)o->cols, (long long)o->group,
                o->group == 1 ? "" : "s");
  }
  const char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}
