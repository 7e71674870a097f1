/* incr.c -- running only what a step changed (issue 61): the program
 * after a step of --emit-steps or --eval is run from its first nest that
 * differs from the program before, on the values the before's run left.
 *
 * Why it gives the full run's bits: the after's leading nests [0,k) are
 * textually identical to the before's (canonical text of each nest, every
 * tensor they mention declared alike in both), run on the same inputs
 * from the same initial state (inputs copied, every output and
 * intermediate zero), by engines bit-identical to each other; so at the
 * start of nest k every tensor holds in the after's run what it held in
 * the before's run after its nest k-1.  For a tensor written by those
 * nests that is the before's final value when no later nest of the before
 * writes it and that value is known (an intermediate's is not when the
 * before's outputs came from a --steps-cache entry without its
 * intermediates; checked: k is lowered until both hold); a tensor they do not
 * write still holds its initial value.  The after is then run as a
 * program of its nests [k,n) (same tensors, same statement ids) on
 * buffers where the tensors written by the skipped nests hold the
 * before's values and are not reset (interp_set_kept), and compared as
 * before.  Not done with --unsafe-math (its compiled code need not be
 * bit-identical to the interpreter's) or --no-incremental.  Every step is
 * still verified by running the nests it changed and all those after. */
#include "config.h"
#include "driver/driver.h"

#include "interp/check.h"
#include "ir/range.h"
#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marks, by tensor id, what a nest mentions (m) and what it writes (w). */
typedef struct Marks {
  unsigned char *m, *w;
} Marks;

static void mark_ref(IrExpr *e, void *user) {
  Marks *k = user;
  if (e->kind == E_REF && e->u.ref->tensor) k->m[e->u.ref->tensor->id] = 1;
}

static void mark_nest(const IrNest *n, Marks *k) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      mark_nest(n->items[i].u.nest, k);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    IrExpr lhs = {.kind = E_REF};
    lhs.u.ref = s->lhs;
    ir_walk_expr(&lhs, mark_ref, k);
    ir_walk_expr(s->rhs, mark_ref, k);
    if (s->lhs->tensor) {
      if (k->w) k->w[s->lhs->tensor->id] = 1;
    }
  }
}

static bool decl_same(const IrTensor *a, const IrTensor *b) {
  return a && b && a->role == b->role && a->scope == b->scope && ir_tensor_same_type(a, b);
}

static char *text_of(const IrNest *n) {
  SBuf b = {0};
  ir_print_nest(&b, n);
  return b.s ? b.s : calloc(1, 1);
}

/* Whether before's nest i and after's nest j are the same nest over
 * tensors declared alike. */
static bool same_nest_at(const IrProgram *before, int i, const IrProgram *after, int j, unsigned char *m) {
  char *x = text_of(before->nests[i]), *y = text_of(after->nests[j]);
  bool same = x && y && !strcmp(x, y);
  free(x);
  free(y);
  if (!same) return false;
  memset(m, 0, (size_t)after->ntensors + 1);
  Marks k = {m, NULL};
  mark_nest(after->nests[j], &k);
  for (int t = 0; t < after->ntensors; t++)
    if (m[t] && !decl_same(after->tensors[t], ir_find_tensor(before, after->tensors[t]->name))) return false;
  return true;
}

static bool same_nest(const IrProgram *before, const IrProgram *after, int i, unsigned char *m) {
  return same_nest_at(before, i, after, i, m);
}

/* Whether the before's final value of y is known in its run `a`: an
 * input's or output's always, an intermediate's with tmps or where known
 * (by tensor id of the before; NULL: none) marks it. */
static bool value_known(const IrTensor *y, bool tmps, const unsigned char *known) {
  return tmps || y->role != ROLE_TMP || (known && known[y->id]);
}

bool drv_incr_plan(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, bool tmps,
                   DrvIncr *r) {
  return drv_incr_plan_known(ctx, o, before, after, tmps, NULL, r);
}

bool drv_incr_plan_known(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                         bool tmps, const unsigned char *known, DrvIncr *r) {
  memset(r, 0, sizeof *r);
  r->prog = after;
  if (o->steps.no_incremental || ctx->unsafe_math || after->nnests < 2) return false;
  int na = before->nnests, nb = after->nnests, nt = after->ntensors;
  /* at most nb - 1 nests skipped: something of the after always runs */
  int lim = na < nb - 1 ? na : nb - 1, k0 = 0;
  unsigned char *m = calloc((size_t)nt + 1, 1), *w = calloc((size_t)nt + 1, 1);
  unsigned char *bm = calloc((size_t)before->ntensors + 1, 1), *bw = calloc((size_t)before->ntensors + 1, 1);
  unsigned char *rm = calloc((size_t)nt + 1, 1);
  if (!m || !w || !bm || !bw || !rm) goto out;
  while (k0 < lim && same_nest(before, after, k0, m)) k0++;
  for (int k = k0; k > 0; k--) {
    /* the after's tensors written by its nests [0,k) (w), mentioned by
       its nests [k,nb) (rm), the before's written by its nests [k,na)
       (bw) */
    memset(w, 0, (size_t)nt + 1);
    memset(rm, 0, (size_t)nt + 1);
    memset(bw, 0, (size_t)before->ntensors + 1);
    Marks ka = {m, w}, kr = {rm, NULL}, kb = {bm, bw};
    for (int i = 0; i < k; i++) mark_nest(after->nests[i], &ka);
    for (int i = k; i < nb; i++) mark_nest(after->nests[i], &kr);
    for (int i = k; i < na; i++) mark_nest(before->nests[i], &kb);
    bool ok = true;
    for (int t = 0; t < nt && ok; t++) {
      if (!w[t]) continue;
      const IrTensor *x = ir_find_tensor(before, after->tensors[t]->name);
      /* an intermediate the run of [k,nb) never mentions needs no value:
         nothing reads it and it is not compared */
      ok = x && !bw[x->id] && (value_known(x, tmps, known) || (x->role == ROLE_TMP && !rm[t]));
    }
    if (!ok) continue;
    IrProgram *q = arena_alloc(&ctx->arena, sizeof *q);
    *q = *after;
    q->nnests = nb - k;
    q->nests = after->nests + k;
    r->kept = arena_alloc(&ctx->arena, (size_t)nt + 1);
    memcpy(r->kept, w, (size_t)nt + 1);
    r->prog = q;
    r->skip = k;
    break;
  }
out:
  free(m);
  free(w);
  free(bm);
  free(bw);
  free(rm);
  return r->skip > 0;
}

void drv_incr_load(const DrvIncr *r, struct InterpProg *a, struct InterpProg *b) {
  if (!r->skip) return;
  for (int i = 0; i < interp_ntensors(b); i++) {
    if (!r->kept[i]) continue;
    InterpBuf *y = interp_buf(b, i), *x = interp_find(a, y->t->name);
    if (x && x->nbytes == y->nbytes && !y->mapped) memcpy(y->data, x->data, y->nbytes);
  }
  interp_set_kept(b, r->kept);
}

void drv_incr_stats(const DrvIncr *r, const IrProgram *after) {
  if (!getenv("LEIRC_INCR_STATS")) return;
  uint64_t w = ir_program_execs(after), s = w - ir_program_execs(r->prog);
  fprintf(stderr, "incr %d %d %llu %llu\n", r->skip, after->nnests, (unsigned long long)s, (unsigned long long)w);
}

/* ------------------------------------------------------------ the trailing nests (--eval) */

/* The trailing nests of the after identical to the before's (the tail):
 * at the point where the tail starts, every tensor it mentions must hold
 * the same bits in both runs; then the tail computes the same bits in
 * both, and the after's final values of what it writes are the before's.
 * A tensor the tail writes must not be written before it in either
 * program (both hold their initial value: inputs alike, others zero); a
 * tensor it only reads, written before it in either, is checked after the
 * run (drv_incr_tail_finish): its bits in the after must equal the
 * before's final value, which is its value where the before's tail starts
 * (the tail does not write it), and known (an intermediate's is not when
 * the before's outputs came without them: such a tail is not skipped). */
/* Whether every reference of n (nested reads included) is provably in
 * range (ir_expr_in_bounds): n cannot stop a run. */
static void ref_in_bounds(IrExpr *e, void *user) {
  bool *ok = user;
  if (e->kind != E_REF || !e->u.ref->tensor) return;
  const IrRef *r = e->u.ref;
  for (int d = 0; d < r->nsub; d++)
    if (d >= r->tensor->rank || !ir_expr_in_bounds(r->sub[d], r->tensor->shape[d])) *ok = false;
}

static bool nest_in_bounds(const IrNest *n) {
  bool ok = true;
  for (int i = 0; i < n->nitems && ok; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      ok = nest_in_bounds(n->items[i].u.nest);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    IrExpr lhs = {.kind = E_REF};
    lhs.u.ref = s->lhs;
    ir_walk_expr(&lhs, ref_in_bounds, &ok);
    ir_walk_expr(s->rhs, ref_in_bounds, &ok);
  }
  return ok;
}

bool drv_incr_tail(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, bool tmps,
                   const DrvIncr *r, DrvTail *t) {
  return drv_incr_tail_known(ctx, o, before, after, tmps, NULL, r, t);
}

bool drv_incr_tail_known(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                         bool tmps, const unsigned char *known, const DrvIncr *r, DrvTail *t) {
  memset(t, 0, sizeof *t);
  t->prog = r->prog;
  if (o->steps.no_incremental || ctx->unsafe_math) return false;
  int na = before->nnests, nb = after->nnests, nt = after->ntensors, lead = r->skip;
  /* at most the nests after the leading skip but one (something runs),
     and none of the before's leading nests */
  int lim = nb - lead - 1 < na - lead ? nb - lead - 1 : na - lead, t0 = 0;
  if (lim < 1) return false;
  size_t sa = (size_t)nt + 1, sb = (size_t)before->ntensors + 1;
  unsigned char *m = calloc(sa, 1), *w = calloc(sa, 1), *am = calloc(sa, 1), *aw = calloc(sa, 1),
                *ck = calloc(sa, 1), *bm = calloc(sb, 1), *bw = calloc(sb, 1);
  if (!m || !w || !am || !aw || !ck || !bm || !bw) goto out;
  while (t0 < lim && same_nest_at(before, na - 1 - t0, after, nb - 1 - t0, m)) t0++;
  for (int k = t0; k > 0; k--) {
    memset(m, 0, sa);
    memset(w, 0, sa);
    memset(aw, 0, sa);
    memset(ck, 0, sa);
    memset(bw, 0, sb);
    Marks kt = {m, w}, ka = {am, aw}, kb = {bm, bw};
    for (int i = nb - k; i < nb; i++) mark_nest(after->nests[i], &kt);
    for (int i = 0; i < nb - k; i++) mark_nest(after->nests[i], &ka);
    for (int i = 0; i < na - k; i++) mark_nest(before->nests[i], &kb);
    bool ok = true;
    for (int x = 0; x < nt && ok; x++) {
      if (!m[x]) continue;
      const IrTensor *y = ir_find_tensor(before, after->tensors[x]->name);
      if (!y) {
        ok = false;
        break;
      }
      bool initial = !aw[x] && !bw[y->id];
      if (w[x]) ok = initial;
      else if (!initial) ok = (ck[x] = value_known(y, tmps, known));
    }
    if (!ok) continue;
    IrProgram *q = arena_alloc(&ctx->arena, sizeof *q), *rest = arena_alloc(&ctx->arena, sizeof *rest);
    *q = *after;
    q->nnests = nb - k - lead;
    q->nests = after->nests + lead;
    *rest = *after;
    rest->nnests = k;
    rest->nests = after->nests + nb - k;
    IrProgram *bq = arena_alloc(&ctx->arena, sizeof *bq), *brest = arena_alloc(&ctx->arena, sizeof *brest);
    *bq = *before;
    bq->nnests = na - k;
    *brest = *before;
    brest->nnests = k;
    brest->nests = before->nests + na - k;
    t->bprog = bq;
    t->brest = brest;
    t->bment = arena_alloc(&ctx->arena, sb);
    t->btake = arena_alloc(&ctx->arena, sb);
    memset(t->bment, 0, sb);
    memset(t->btake, 0, sb);
    t->bsafe = true;
    for (int x = 0; x < nt; x++) {
      const IrTensor *y = ir_find_tensor(before, after->tensors[x]->name);
      if (!m[x] || !y) continue;
      t->bment[y->id] = 1;
      t->btake[y->id] = w[x] && y->role == ROLE_OUT;
    }
    for (int i = na - k; i < na; i++) t->bsafe &= nest_in_bounds(before->nests[i]);
    /* what the runs of prog and bprog do not mention stays zero: not reset */
    t->keep = arena_alloc(&ctx->arena, sa);
    t->bkeep = arena_alloc(&ctx->arena, sb);
    memset(am, 0, sa);
    memset(bm, 0, sb);
    Marks kq = {am, NULL}, kp = {bm, NULL};
    for (int i = lead; i < nb - k; i++) mark_nest(after->nests[i], &kq);
    for (int i = 0; i < na - k; i++) mark_nest(before->nests[i], &kp);
    t->need = arena_alloc(&ctx->arena, sa);
    for (int x = 0; x < nt; x++) {
      t->keep[x] = !am[x] || (lead && r->kept[x]);
      /* a kept tensor prog, the tail or the comparison reads */
      t->need[x] = lead && r->kept[x] && (am[x] || m[x] || after->tensors[x]->role == ROLE_OUT);
    }
    for (int y = 0; y < before->ntensors; y++) t->bkeep[y] = !bm[y];
    t->check = arena_alloc(&ctx->arena, sa);
    t->take = arena_alloc(&ctx->arena, sa);
    t->ment = arena_alloc(&ctx->arena, sa);
    t->all = arena_alloc(&ctx->arena, sa > sb ? sa : sb);
    memcpy(t->check, ck, sa);
    memcpy(t->ment, m, sa);
    memset(t->all, 1, sa > sb ? sa : sb);
    for (int x = 0; x < nt; x++) t->take[x] = w[x] && after->tensors[x]->role == ROLE_OUT;
    t->prog = q;
    t->rest = rest;
    t->skip = k;
    break;
  }
out:
  free(m);
  free(w);
  free(am);
  free(aw);
  free(ck);
  free(bm);
  free(bw);
  return t->skip > 0;
}

/* x's tail (rest, a program over x's tensors) run on the values x holds:
 * what it mentions copied into a program of its own, every tensor kept, the
 * outputs it writes copied back.  False when it fails. */
static bool run_rest(LeirCtx *ctx, const IrProgram *rest, const unsigned char *ment, const unsigned char *take,
                     const unsigned char *all, InterpProg *x, const InterpOptions *io, InterpBufPool *pool,
                     InterpRunner run, void *arg) {
  InterpProg *s = interp_new_pooled(ctx, rest, io, pool);
  if (!s) return false;
  int n = interp_ntensors(x);
  for (int i = 0; i < n; i++)
    if (ment[i]) memcpy(interp_buf(s, i)->data, interp_buf(x, i)->data, interp_buf(x, i)->nbytes);
  interp_set_kept(s, all);
  bool ok = run ? run(arg, s) : interp_run(s);
  for (int i = 0; i < n && ok; i++)
    if (take[i]) memcpy(interp_buf(x, i)->data, interp_buf(s, i)->data, interp_buf(x, i)->nbytes);
  interp_free(s);
  return ok;
}

int drv_incr_tail_finish(LeirCtx *ctx, const DrvTail *t, InterpProg *a, InterpProg *b, bool partial,
                         const InterpOptions *io, InterpBufPool *pool, InterpRunner run, void *arg) {
  int n = interp_ntensors(b);
  bool same = true;
  for (int i = 0; i < n && same; i++) {
    if (!t->check[i]) continue;
    InterpBuf *y = interp_buf(b, i), *x = interp_find(a, y->t->name);
    same = x && x->nbytes == y->nbytes && !memcmp(x->data, y->data, y->nbytes);
  }
  if (same) {
    /* a partial before holds what the tail writes at its initial value,
       as b does: the same bits, as after both tails */
    for (int i = 0; i < n && !partial; i++) {
      if (!t->take[i]) continue;
      InterpBuf *y = interp_buf(b, i), *x = interp_find(a, y->t->name);
      if (x && x->nbytes == y->nbytes) memcpy(y->data, x->data, y->nbytes);
    }
    return 1;
  }
  /* the tails run on the values the runs left */
  if (partial && !run_rest(ctx, t->brest, t->bment, t->btake, t->all, a, io, pool, run, arg)) return -2;
  return run_rest(ctx, t->rest, t->ment, t->take, t->all, b, io, pool, run, arg) ? 0 : -1;
}

/* b's run by tr->run, or by tr->run_live with the outputs and what
 * drv_incr_tail_finish and the tails read (check, take, ment) live: its
 * other intermediates are never read again. */
static bool run_b(DrvTailRun *tr, InterpProg *b) {
  const DrvTail *t = tr->tail;
  int n = interp_ntensors(b);
  unsigned char *live = tr->run_live && t->check && t->take && t->ment ? calloc((size_t)n + 1, 1) : NULL;
  if (!live) return tr->run ? tr->run(tr->ctx, b) : interp_run(b);
  for (int i = 0; i < n; i++) live[i] = t->check[i] || t->take[i] || t->ment[i];
  bool ok = tr->run_live(tr->ctx, b, live);
  free(live);
  return ok;
}

bool drv_tail_runner(void *arg, InterpProg *b) {
  DrvTailRun *tr = arg;
  if (!run_b(tr, b)) return false;
  tr->done = drv_incr_tail_finish(tr->ctx, tr->tail, tr->a, b, tr->partial, tr->io, tr->pool,
                                  tr->rest, tr->ctx);
  return tr->done >= 0;
}

void drv_incr_tail_load(const DrvIncr *r, const DrvTail *t, InterpProg *a, InterpProg *b) {
  for (int i = 0; r->skip && i < interp_ntensors(b); i++) {
    if (!t->need[i]) continue;
    InterpBuf *y = interp_buf(b, i), *x = interp_find(a, y->t->name);
    if (x && x->nbytes == y->nbytes && !y->mapped) memcpy(y->data, x->data, y->nbytes);
  }
  interp_set_kept(b, t->keep);
}

void drv_incr_tail_stats(const DrvTail *t, int done, bool partial, const IrProgram *after) {
  if (!getenv("LEIRC_INCR_STATS")) return;
  uint64_t s = t->skip && done == 1 ? ir_program_execs(t->rest) : 0;
  uint64_t bs = t->skip && done == 1 && partial ? ir_program_execs(t->brest) : 0;
  fprintf(stderr, "tail %d %d %llu %llu %llu\n", t->skip, after->nnests, (unsigned long long)s,
          (unsigned long long)ir_program_execs(after), (unsigned long long)bs);
}

unsigned char *drv_incr_keep_tmps(const IrProgram *p, const int *weight, const size_t *nbytes, size_t bound) {
  int n = p->nnests, nt = p->ntensors;
  size_t sz = (size_t)nt + 1;
  unsigned char *keep = calloc(sz, 1);
  /* wr[j]: written by nests [0,j); mt[j]: mentioned by nests [j,n) */
  unsigned char *wr = calloc((size_t)(n + 1) * sz, 1), *mt = calloc((size_t)(n + 1) * sz, 1);
  double *val = calloc((size_t)n + 1, sizeof *val);
  uint64_t *work = calloc((size_t)n + 1, sizeof *work);
  bool *done = calloc((size_t)n + 1, sizeof *done);
  if (!keep || !wr || !mt || !val || !work || !done) {
    free(keep);
    keep = NULL;
    goto out;
  }
  for (int j = 0; j < n; j++) {
    memcpy(wr + (size_t)(j + 1) * sz, wr + (size_t)j * sz, sz);
    Marks k = {mt + (size_t)j * sz, wr + (size_t)(j + 1) * sz};
    mark_nest(p->nests[j], &k);
    work[j + 1] = work[j] + ir_nest_execs(p->nests[j], 1); /* (saturation: a value only) */
  }
  for (int j = n - 1; j >= 0; j--)
    for (int t = 0; t < nt; t++) mt[(size_t)j * sz + t] |= mt[(size_t)(j + 1) * sz + t];
  /* a program after whose first changed nest is j starts at boundary j
     (leading nests skipped: the work of [0,j)); its trailing nests like
     the before's start after it, at j + 1 (the work of [j+1,n)) */
  for (int j = 0; j < n; j++) {
    if (!weight[j]) continue;
    if (j > 0) val[j] += (double)weight[j] * (double)work[j];
    if (j + 1 < n) val[j + 1] += (double)weight[j] * (double)(work[n] - work[j + 1]);
  }
  size_t total = 0;
  for (;;) {
    int best = -1;
    for (int j = 1; j < n; j++)
      if (!done[j] && val[j] > 0 && (best < 0 || val[j] > val[best])) best = j;
    if (best < 0) break;
    done[best] = true;
    size_t cost = 0;
    const unsigned char *w = wr + (size_t)best * sz, *m = mt + (size_t)best * sz;
    for (int t = 0; t < nt; t++)
      if (w[t] && m[t] && !keep[t] && p->tensors[t]->role == ROLE_TMP) cost += nbytes[t];
    if (cost > bound - total) continue;
    total += cost;
    for (int t = 0; t < nt; t++)
      if (w[t] && m[t] && p->tensors[t]->role == ROLE_TMP) keep[t] = 1;
  }
out:
  free(wr);
  free(mt);
  free(val);
  free(work);
  free(done);
  return keep;
}
