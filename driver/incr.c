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

#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Statement executions of one run of p: every statement runs once per
 * iteration of the loops around it (LEIR has no conditional statements);
 * saturates at UINT64_MAX. */
static uint64_t mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

static uint64_t nest_work(const IrNest *n, uint64_t m) {
  for (int i = 0; i < n->nloops; i++) m = mul_sat(m, (uint64_t)n->loops[i]->extent);
  uint64_t w = 0;
  for (int i = 0; i < n->nitems; i++) {
    uint64_t x = n->items[i].kind == ITEM_STMT ? m : nest_work(n->items[i].u.nest, m);
    w = x > UINT64_MAX - w ? UINT64_MAX : w + x;
  }
  return w;
}

uint64_t drv_program_work(const IrProgram *p) {
  uint64_t w = 0;
  for (int i = 0; i < p->nnests; i++) {
    uint64_t x = nest_work(p->nests[i], 1);
    w = x > UINT64_MAX - w ? UINT64_MAX : w + x;
  }
  return w;
}

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
  if (!a || !b || a->dtype != b->dtype || a->rank != b->rank || a->role != b->role || a->scope != b->scope)
    return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return true;
}

static char *text_of(const IrNest *n) {
  SBuf b = {0};
  ir_print_nest(&b, n);
  return b.s ? b.s : calloc(1, 1);
}

/* Whether before's nest i and after's nest i are the same nest over
 * tensors declared alike. */
static bool same_nest(const IrProgram *before, const IrProgram *after, int i, unsigned char *m) {
  char *x = text_of(before->nests[i]), *y = text_of(after->nests[i]);
  bool same = x && y && !strcmp(x, y);
  free(x);
  free(y);
  if (!same) return false;
  memset(m, 0, (size_t)after->ntensors + 1);
  Marks k = {m, NULL};
  mark_nest(after->nests[i], &k);
  for (int t = 0; t < after->ntensors; t++)
    if (m[t] && !decl_same(after->tensors[t], ir_find_tensor(before, after->tensors[t]->name))) return false;
  return true;
}

bool drv_incr_plan(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, bool tmps,
                   DrvIncr *r) {
  memset(r, 0, sizeof *r);
  r->prog = after;
  if (o->steps.no_incremental || ctx->unsafe_math || after->nnests < 2) return false;
  int na = before->nnests, nb = after->nnests, nt = after->ntensors;
  /* at most nb - 1 nests skipped: something of the after always runs */
  int lim = na < nb - 1 ? na : nb - 1, k0 = 0;
  unsigned char *m = calloc((size_t)nt + 1, 1), *w = calloc((size_t)nt + 1, 1);
  unsigned char *bm = calloc((size_t)before->ntensors + 1, 1), *bw = calloc((size_t)before->ntensors + 1, 1);
  if (!m || !w || !bm || !bw) goto out;
  while (k0 < lim && same_nest(before, after, k0, m)) k0++;
  for (int k = k0; k > 0; k--) {
    /* the after's tensors written by its nests [0,k) (w), the before's
       written by its nests [k,na) (bw) */
    memset(w, 0, (size_t)nt + 1);
    memset(bw, 0, (size_t)before->ntensors + 1);
    Marks ka = {m, w}, kb = {bm, bw};
    for (int i = 0; i < k; i++) mark_nest(after->nests[i], &ka);
    for (int i = k; i < na; i++) mark_nest(before->nests[i], &kb);
    bool ok = true;
    for (int t = 0; t < nt && ok; t++) {
      if (!w[t]) continue;
      const IrTensor *x = ir_find_tensor(before, after->tensors[t]->name);
      ok = x && !bw[x->id] && (tmps || x->role != ROLE_TMP);
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
  return r->skip > 0;
}

void drv_incr_load(const DrvIncr *r, struct InterpProg *a, struct InterpProg *b) {
  if (!r->skip) return;
  for (int i = 0; i < interp_ntensors(b); i++) {
    if (!r->kept[i]) continue;
    InterpBuf *y = interp_buf(b, i), *x = interp_find(a, y->t->name);
    if (x && x->nbytes == y->nbytes) memcpy(y->data, x->data, y->nbytes);
  }
  interp_set_kept(b, r->kept);
}

void drv_incr_stats(const DrvIncr *r, const IrProgram *after) {
  if (!getenv("LEIRC_INCR_STATS")) return;
  uint64_t w = drv_program_work(after), s = w - drv_program_work(r->prog);
  fprintf(stderr, "incr %d %d %llu %llu\n", r->skip, after->nnests, (unsigned long long)s, (unsigned long long)w);
}
