/* plan.c -- how each top-level nest runs (SPEC §13.2): kernel formation,
 * launch configuration and its hardware limits, tensor placement (§9.3
 * scopes), cross-thread reductions (§9.6), the host's parallel loop (§9.8),
 * and the launch plan printed in front of the PTX. */
#include "codegen/cg.h"

#include <string.h>

/* Hardware limits of every sm_70+ GPU. */
#define MAX_THREADS 1024
static const int64_t max_block[3] = {1024, 1024, 64};
static const int64_t max_grid[3] = {2147483647, 65535, 65535};
#define MAX_SHARED (48 * 1024) /* static shared memory per block */
#define MAX_LOCAL (16 * 1024)  /* per-thread array we are willing to keep local */

/* ------------------------------------------------------------ walking */

typedef void (*StmtCb)(IrStmt *s, void *user);

static void each_stmt(const IrNest *n, StmtCb cb, void *user) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_STMT) cb(n->items[i].u.stmt, user);
    else each_stmt(n->items[i].u.nest, cb, user);
  }
}

typedef void (*LoopCb)(IrLoop *l, void *user);

static void each_loop(const IrNest *n, LoopCb cb, void *user) {
  for (int i = 0; i < n->nloops; i++) cb(n->loops[i], user);
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) each_loop(n->items[i].u.nest, cb, user);
}

static bool is_index_of(const IrExpr *e, const IrLoop *l) {
  e = ir_expr_unparen(e);
  return e && e->kind == E_INDEX && e->u.index.loop == l;
}

/* Every reference of a statement (left side first), subscripts included. */
typedef struct RefList {
  const IrRef *v[512];
  bool write[512];
  int n;
  bool overflow;
} RefList;

static void add_ref(RefList *rl, const IrRef *r, bool write) {
  if (rl->n == 512) {
    rl->overflow = true;
    return;
  }
  rl->write[rl->n] = write;
  rl->v[rl->n++] = r;
}

static void collect_read(IrExpr *e, void *user) {
  if (e->kind == E_REF) add_ref(user, e->u.ref, false);
}

static void stmt_refs(IrStmt *s, RefList *rl) {
  add_ref(rl, s->lhs, true);
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], collect_read, rl);
  ir_walk_expr(s->rhs, collect_read, rl);
}

typedef struct NestRefs {
  RefList *rl;
} NestRefs;

static void nest_refs_cb(IrStmt *s, void *user) { stmt_refs(s, ((NestRefs *)user)->rl); }

/* Indices (loops) mentioned by an expression. */
typedef struct LoopSet {
  const IrLoop *v[256];
  int n;
} LoopSet;

static bool set_has(const LoopSet *s, const IrLoop *l) {
  for (int i = 0; i < s->n; i++)
    if (s->v[i] == l) return true;
  return false;
}

static void set_add_cb(IrExpr *e, void *user) {
  LoopSet *s = user;
  if (e->kind == E_INDEX && e->u.index.loop && !set_has(s, e->u.index.loop) && s->n < 256)
    s->v[s->n++] = e->u.index.loop;
}

/* ------------------------------------------------------------ hardware axes */

typedef struct HwScan {
  LeirCtx *ctx;
  CgKernel *k;
  bool nvptx;
  bool ok;
} HwScan;

static void hw_scan_cb(IrLoop *l, void *user) {
  HwScan *h = user;
  if (l->kind != LOOP_B) return;
  h->k->has_b = true;
  int a = (int)l->hw - 1;
  if (a < 0) return;
  if (h->k->hw[a] && h->nvptx) {
    diag_error(h->ctx, l->loc, "%s is bound by two loops of this nest ('%s' and '%s')",
               ir_hw_axis_name(l->hw), h->k->hw[a]->index, l->index);
    h->ok = false;
    return;
  }
  if (!h->k->hw[a]) h->k->hw[a] = l;
}

/* The B loops of a kernel with the launch configuration and its limits. */
static bool launch_config(LeirCtx *ctx, CgKernel *k, bool may_spread, const char *why_not) {
  int64_t t[3], b[3];
  for (int d = 0; d < 3; d++) {
    t[d] = k->hw[d] ? k->hw[d]->extent : 1;
    b[d] = k->hw[3 + d] ? k->hw[3 + d]->extent : 1;
  }
  int64_t bx = t[0] < max_block[0] ? t[0] : max_block[0];
  int64_t room = MAX_THREADS / bx;
  int64_t by = t[1] < room ? t[1] : room;
  room = MAX_THREADS / (bx * by);
  int64_t bz = t[2] < room ? t[2] : room;
  if (bz > max_block[2]) bz = max_block[2];
  int64_t blk[3] = {bx, by, bz};
  bool ok = true;
  for (int d = 0; d < 3; d++) {
    k->block[d] = blk[d];
    k->grid[d] = b[d];
    if (blk[d] == t[d]) continue;
    const IrLoop *l = k->hw[d];
    if (!may_spread || k->hw[3 + d]) {
      const char *reason = !may_spread ? why_not : "its block axis is bound too";
      diag_error(ctx, l->loc,
                 "B loop '%s' of extent %lld exceeds the limits of a thread block (%lld threads "
                 "on %s, at most 1024 per block) and cannot be spread over blocks: %s",
                 l->index, (long long)t[d], (long long)blk[d], ir_hw_axis_name(l->hw), reason);
      ok = false;
      continue;
    }
    k->spread[d] = true;
    k->grid[d] = (t[d] + blk[d] - 1) / blk[d];
  }
  for (int d = 0; d < 3; d++) {
    if (k->grid[d] <= max_grid[d]) continue;
    const IrLoop *l = k->hw[3 + d] ? k->hw[3 + d] : k->hw[d];
    diag_error(ctx, l->loc, "B loop '%s' needs %lld blocks on %s, more than the limit of %lld",
               l->index, (long long)k->grid[d], ir_hw_axis_name((IrHwAxis)(HW_BX + d)),
               (long long)max_grid[d]);
    ok = false;
  }
  return ok;
}

/* ------------------------------------------------------------ reductions */

/* Depth of loop l in the loop chain of nest n (0 = outermost), -1 if absent. */
static int loop_depth(const IrNest *n, const IrLoop *l) {
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i] == l) return i;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_NEST) continue;
    int d = loop_depth(n->items[i].u.nest, l);
    if (d >= 0) return n->nloops + d;
  }
  return -1;
}

/* Form (1) of tree mode: rhs = T_s op x (op + - *) or max/min(T_s, x), T_s
 * the left subscript as text, x not mentioning T.  Returns x. */
typedef struct Mention {
  const IrTensor *t;
  bool found;
} Mention;

static void mention_cb(IrExpr *e, void *user) {
  Mention *m = user;
  if (e->kind == E_REF && e->u.ref->tensor == m->t) m->found = true;
}

static const IrExpr *red_form(const IrStmt *s, IrReduceOp *op, IrDType *nt) {
  const IrExpr *e = ir_expr_unparen(s->rhs);
  const IrExpr *t = NULL, *x = NULL;
  if (e->kind == E_BINARY && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB || e->u.bin.op == OP_MUL)) {
    t = ir_expr_unparen(e->u.bin.a);
    x = e->u.bin.b;
    *op = e->u.bin.op == OP_ADD ? RED_ADD : e->u.bin.op == OP_SUB ? RED_SUB : RED_MUL;
  } else if (e->kind == E_CALL && (e->u.call.func == F_MAX || e->u.call.func == F_MIN) &&
             e->u.call.nargs == 2) {
    t = ir_expr_unparen(e->u.call.args[0]);
    x = e->u.call.args[1];
    *op = e->u.call.func == F_MAX ? RED_MAX : RED_MIN;
  }
  if (!t || t->kind != E_REF || t->u.ref->tensor != s->lhs->tensor || t->u.ref->nsub != s->lhs->nsub) return NULL;
  *nt = e->type;
  Mention mt = {s->lhs->tensor, false};
  ir_walk_expr((IrExpr *)x, mention_cb, &mt);
  if (mt.found) return NULL;
  SBuf a = {0}, b = {0};
  for (int i = 0; i < s->lhs->nsub; i++) ir_print_expr(&a, s->lhs->sub[i]), sbuf_putc(&a, ',');
  for (int i = 0; i < t->u.ref->nsub; i++) ir_print_expr(&b, t->u.ref->sub[i]), sbuf_putc(&b, ',');
  bool same = !strcmp(a.s ? a.s : "", b.s ? b.s : "");
  sbuf_free(&a);
  sbuf_free(&b);
  return same ? x : NULL;
}

typedef struct RedScan {
  LeirCtx *ctx;
  const IrProgram *p;
  CgKernel *k;
  bool nvptx;
  bool ok;
  PtrVec found; /* CgRed* */
} RedScan;

/* The loops from `li+1` of nest n down to statement s when they form a
 * chain (every level holds only the next level). */
static bool chain_below(const IrNest *n, int li, const IrStmt *s, IrLoop **out, int *nout) {
  for (;;) {
    for (int i = li + 1; i < n->nloops; i++) {
      if (*nout == 256) return false;
      out[(*nout)++] = n->loops[i];
    }
    if (n->nitems != 1) return false;
    if (n->items[0].kind == ITEM_STMT) return n->items[0].u.stmt == s;
    n = n->items[0].u.nest;
    li = -1;
  }
}

/* Where loop l is declared: nest and position. */
static bool find_loop(const IrNest *n, const IrLoop *l, const IrNest **on, int *oli) {
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i] == l) {
      *on = n;
      *oli = i;
      return true;
    }
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST && find_loop(n->items[i].u.nest, l, on, oli)) return true;
  return false;
}

static bool red_error(RedScan *rs, const IrStmt *s, const IrLoop *tl, const char *msg, const char *arg) {
  diag_error(rs->ctx, s->loc, "unsupported reduction over thread index '%s': %s%s%s", tl->index, msg,
             arg ? " " : "", arg ? arg : "");
  rs->ok = false;
  return false;
}

static bool is_thread_loop(const IrLoop *l) {
  return l->kind == LOOP_B && (l->hw == HW_TX || l->hw == HW_TY || l->hw == HW_TZ);
}

/* Does some item of the left subscript name loop l bare?  Then the loop's
 * iterations write distinct elements. */
static bool bare_in_lhs(const IrStmt *s, const IrLoop *l) {
  for (int d = 0; d < s->lhs->nsub; d++)
    if (is_index_of(s->lhs->sub[d], l)) return true;
  return false;
}

#define HOST_STACK_THREADS ((int64_t)1 << 15) /* partials on the stack */
#define HOST_GENERAL_SLOTS ((int64_t)1 << 24) /* elements x threads on the heap */

/* Builds the CgRed of statement s in tree mode with outermost thread loop
 * tl.  The region form (the loops below tl a chain down to s, every element
 * loop bare in the left subscript) runs everywhere; any other form runs on
 * the host with a partial per element and thread (r->general). */
static bool red_build(RedScan *rs, IrStmt *s, IrLoop *tl, const IrExpr *x, IrReduceOp op, IrDType nt,
                      const LoopSet *lhs, const LoopSet *all) {
  CgRed *r = arena_alloc(&rs->ctx->arena, sizeof *r);
  r->s = s;
  r->tloop = tl;
  r->x = (IrExpr *)x;
  r->op = op;
  r->nt = nt;
  r->thr = arena_alloc(&rs->ctx->arena, sizeof(IrLoop *) * (size_t)(all->n + 1));
  r->nthreads = 1;
  /* every threadIdx-bound reduction loop, outermost first: t's digits */
  for (int d = 0; d < 4096 && r->nthr < all->n; d++)
    for (int i = 0; i < all->n; i++) {
      IrLoop *l = (IrLoop *)all->v[i];
      if (!set_has(lhs, l) && is_thread_loop(l) && loop_depth(rs->k->nest, l) == d) {
        r->thr[r->nthr++] = l;
        r->nthreads = r->nthreads > HOST_GENERAL_SLOTS ? r->nthreads : r->nthreads * l->extent;
      }
    }
  const IrNest *tn = NULL;
  int tli = 0;
  IrLoop *chain[256];
  int nc = 0;
  bool region = find_loop(rs->k->nest, tl, &tn, &tli) && chain_below(tn, tli, s, chain, &nc);
  r->sp = arena_alloc(&rs->ctx->arena, sizeof(IrLoop *) * (size_t)(nc + 1));
  r->rl = arena_alloc(&rs->ctx->arena, sizeof(IrLoop *) * (size_t)(nc + 1));
  for (int i = 0; region && i < nc; i++) {
    IrLoop *l = chain[i];
    if (set_has(lhs, l)) {
      r->sp[r->nsp++] = l;
      region = bare_in_lhs(s, l) || l->extent == 1;
    } else if (!(set_has(all, l) && is_thread_loop(l))) {
      r->rl[r->nrl++] = l;
    }
  }
  if (rs->nvptx) {
    if (!region)
      return red_error(rs, s, tl, "the statement must be alone in the loops below it, and each of them "
                       "in its left subscript (as a bare index) or not at all", NULL);
    if (r->nthr > 1) return red_error(rs, s, tl, "it also reduces over thread index", r->thr[1]->index);
    for (int a = 0; a < 6; a++) {
      IrLoop *h = rs->k->hw[a];
      if (h && h != tl && h->extent > 1 && !set_has(lhs, h))
        return red_error(rs, s, tl, "the left subscript does not use the hardware index", h->index);
    }
  } else if (!region || r->nthreads > HOST_STACK_THREADS) {
    r->general = true;
    int64_t n = ir_tensor_numel(s->lhs->tensor);
    if (r->nthreads > HOST_GENERAL_SLOTS || n > HOST_GENERAL_SLOTS / r->nthreads)
      return red_error(rs, s, tl, "too many partial results (elements times threads over 2^24)", NULL);
  }
  ptrvec_push(&rs->ctx->arena, &rs->found, r);
  return true;
}

static void red_scan_cb(IrStmt *s, void *user) {
  RedScan *rs = user;
  if (!s->self_ref) return;
  LoopSet lhs = {0}, all = {0};
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], set_add_cb, &lhs);
  ir_walk_expr(s->rhs, set_add_cb, &all);
  IrLoop *tl = NULL; /* the outermost threadIdx-bound reduction loop */
  for (int i = 0; i < all.n; i++) {
    IrLoop *l = (IrLoop *)all.v[i];
    if (set_has(&lhs, l) || l->kind != LOOP_B || l->hw == HW_NONE) continue;
    if (l->hw >= HW_BX) {
      if (rs->nvptx && l->extent > 1) {
        diag_error(rs->ctx, s->loc, "reduction over block axis: '%s' (%s) is not in the left subscript",
                   l->index, ir_hw_axis_name(l->hw));
        rs->ok = false;
      }
      continue;
    }
    /* both enclose s, so depths order them */
    if (!tl || loop_depth(rs->k->nest, l) < loop_depth(rs->k->nest, tl)) tl = l;
  }
  if (!tl) return;
  IrReduceOp op = RED_NONE;
  IrDType nt = DT_NONE;
  const IrExpr *x = red_form(s, &op, &nt);
  if (!x) {
    /* not tree mode: sequential order on the host, a race on a GPU */
    if (rs->nvptx)
      red_error(rs, s, tl, "the right side must be T op x (op + - *) or max/min(T, x) with T as on the left", NULL);
    return;
  }
  red_build(rs, s, tl, x, op, nt, &lhs, &all);
}

const CgRed *cg_plan_red_of(const CgKernel *k, const IrStmt *s) {
  for (int i = 0; k && i < k->nred; i++)
    if (k->red[i].s == s) return &k->red[i];
  return NULL;
}

/* ------------------------------------------------------------ placement */

/* The dimension of every reference of t (in refs) that is exactly the index
 * of loop h, the same for all of them; -1 if there is none. */
static int common_dim(const RefList *rl, const IrTensor *t, const IrLoop *h) {
  for (int d = 0; d < t->rank; d++) {
    bool all = true;
    for (int i = 0; i < rl->n && all; i++)
      if (rl->v[i]->tensor == t) all = is_index_of(rl->v[i]->sub[d], h);
    if (all) return d;
  }
  return -1;
}

/* Does every element of t belong to one thread (axes 0..2 and 3..5) or one
 * block (3..5)?  Fills keep[] (false for the dims that name the axis). */
static bool owned(const RefList *rl, const IrTensor *t, const CgKernel *k, int a0, bool *keep) {
  for (int d = 0; d < t->rank; d++) keep[d] = true;
  for (int a = a0; a < 6; a++) {
    const IrLoop *h = k->hw[a];
    if (!h || h->extent == 1) continue;
    int d = common_dim(rl, t, h);
    if (d < 0) return false;
    keep[d] = false;
  }
  return true;
}

static int64_t kept_numel(const IrTensor *t, const bool *keep) {
  int64_t n = 1;
  for (int d = 0; d < t->rank; d++)
    if (keep[d]) n *= t->shape[d];
  return n;
}

static void demote(LeirCtx *ctx, const IrTensor *t, const char *why) {
  diag_warn(ctx, t->loc, "'%s' is %s-scoped but %s; it is placed in global memory", t->name,
            ir_scope_name(t->scope), why);
}

/* Which nest(s) touch each tensor: -1 none, -2 several. */
static void tensor_nests(const IrProgram *p, int *where, RefList *per_nest) {
  for (int i = 0; i < p->ntensors; i++) where[i] = -1;
  for (int k = 0; k < p->nnests; k++) {
    RefList *rl = &per_nest[k];
    for (int i = 0; i < rl->n; i++) {
      int id = rl->v[i]->tensor->id;
      where[id] = where[id] == -1 || where[id] == k ? k : -2;
    }
  }
}

/* §9.3 scopes on the GPU: s/l honoured when legal (compacted to the block's
 * or thread's part), else demoted to global with a warning. */
static void place_tensors(LeirCtx *ctx, const IrProgram *p, CgPlan *plan, RefList *per_nest) {
  int *where = arena_alloc(&ctx->arena, sizeof(int) * (size_t)(p->ntensors + 1));
  tensor_nests(p, where, per_nest);
  int64_t *shared_used = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(p->nnests + 1));
  for (int k = 0; k < p->nnests; k++) /* the reductions' scratch comes first */
    shared_used[k] = plan->k[k].nred ? 8 * plan->k[k].block[0] * plan->k[k].block[1] * plan->k[k].block[2] : 0;
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    CgTensorInfo *ti = &plan->t[i];
    ti->place = PL_GLOBAL;
    ti->numel = ir_tensor_numel(t);
    if (plan->target != CG_TARGET_NVPTX || t->role != ROLE_TMP || t->scope == SC_G) continue;
    int k = where[i];
    if (k < 0) {
      demote(ctx, t, "used in more than one nest (values of s/l tensors do not survive a kernel)");
      continue;
    }
    CgKernel *kk = &plan->k[k];
    if (kk->nhost > 0) {
      demote(ctx, t, "its nest runs as several launches (host loops)");
      continue;
    }
    if (kk->spread[0] || kk->spread[1] || kk->spread[2]) {
      demote(ctx, t, "its nest is spread over extra blocks");
      continue;
    }
    bool *keep = arena_alloc(&ctx->arena, (size_t)t->rank + 1);
    bool per_thread = owned(&per_nest[k], t, kk, 0, keep);
    int64_t sz = 0;
    if (t->scope == SC_L) {
      if (!per_thread) {
        demote(ctx, t, "its elements are not each used by one thread only");
        continue;
      }
      sz = kept_numel(t, keep) * ir_dtype_size(t->dtype);
      if (sz > MAX_LOCAL) {
        demote(ctx, t, "its per-thread part is too large");
        continue;
      }
      ti->place = PL_LOCAL;
    } else {
      if (!owned(&per_nest[k], t, kk, 3, keep)) {
        demote(ctx, t, "its elements are not each used by one block only");
        continue;
      }
      sz = kept_numel(t, keep) * ir_dtype_size(t->dtype);
      if (shared_used[k] + sz > MAX_SHARED) {
        demote(ctx, t, "it does not fit in the shared memory of a block");
        continue;
      }
      shared_used[k] += sz;
      ti->place = PL_SHARED;
      ti->sync = !per_thread;
    }
    ti->kernel = k;
    ti->keep = keep;
    ti->numel = kept_numel(t, keep);
  }
}

/* ------------------------------------------------------------ host parallelism */

/* An affine subscript item: sum of coef * loop index + constant. */
typedef struct Affine {
  int n;
  const IrLoop *loop[16];
  int64_t coef[16];
  int64_t k;
} Affine;

/* Every coefficient and the constant stay within +-2^62 (AFFINE_MAX), so
   that |x| and the products of injective_in are checked, never undefined. */
#define AFFINE_MAX ((int64_t)1 << 62)

static bool affine_bounded(int64_t *acc, int64_t add) {
  return !__builtin_add_overflow(*acc, add, acc) && *acc <= AFFINE_MAX && *acc >= -AFFINE_MAX;
}

static bool affine_add(Affine *a, const IrLoop *l, int64_t c) {
  for (int i = 0; i < a->n; i++)
    if (a->loop[i] == l) return affine_bounded(&a->coef[i], c);
  if (a->n == 16) return false;
  a->loop[a->n] = l;
  a->coef[a->n++] = c;
  return true;
}

/* e * scale added to a; false if e is not affine (or a scale grows past
 * 2^31, or a coefficient or the constant past 2^62). */
static bool affine_of(const IrExpr *e, int64_t scale, Affine *a) {
  e = ir_expr_unparen(e);
  if (!e || scale > INT32_MAX || scale < -INT32_MAX) return false;
  switch (e->kind) {
  case E_INT:
    if (e->u.ilit.value > INT32_MAX || e->u.ilit.value < -INT32_MAX) return false;
    return affine_bounded(&a->k, scale * e->u.ilit.value); /* |product| < 2^62 */
  case E_INDEX: return e->u.index.loop && affine_add(a, e->u.index.loop, scale);
  case E_UNARY: return affine_of(e->u.unary.a, e->u.unary.op == OP_NEG ? -scale : scale, a);
  case E_BINARY: {
    const IrExpr *x = ir_expr_unparen(e->u.bin.a), *y = ir_expr_unparen(e->u.bin.b);
    if (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB)
      return affine_of(x, scale, a) && affine_of(y, e->u.bin.op == OP_SUB ? -scale : scale, a);
    if (e->u.bin.op != OP_MUL) return false;
    if (y && y->kind == E_INT && y->u.ilit.value <= INT32_MAX && y->u.ilit.value >= -INT32_MAX)
      return affine_of(x, scale * y->u.ilit.value, a);
    if (x && x->kind == E_INT && x->u.ilit.value <= INT32_MAX && x->u.ilit.value >= -INT32_MAX)
      return affine_of(y, scale * x->u.ilit.value, a);
    return false;
  }
  default: return false;
  }
}

static int64_t coef_of(const Affine *a, const IrLoop *l) {
  for (int i = 0; i < a->n; i++)
    if (a->loop[i] == l) return a->coef[i];
  return 0;
}

static bool affine_same(const Affine *a, const Affine *b) {
  if (a->k != b->k) return false;
  for (int i = 0; i < a->n; i++)
    if (a->coef[i] != coef_of(b, a->loop[i])) return false;
  for (int i = 0; i < b->n; i++)
    if (b->coef[i] != coef_of(a, b->loop[i])) return false;
  return true;
}

static int64_t iabs64(int64_t x) { return x < 0 ? -x : x; }

/* Do distinct iterations of l give distinct values of the item, whatever
 * the other loops' values?  Yes when l's coefficient c is nonzero and
 * either the other terms span less than |c| (l is the high digit,
 * g*64+tx for g) or every other coefficient is a multiple of |c| times l's
 * extent (l is the low digit, g*64+tx for tx). */
static bool injective_in(const Affine *a, const IrLoop *l) {
  int64_t c = iabs64(coef_of(a, l)); /* coefficients are within +-2^62 (affine_of) */
  if (!c) return false;
  int64_t span = 0, step;
  bool high = true, low = !__builtin_mul_overflow(c, l->extent, &step); /* step > 2^63: no multiple */
  for (int i = 0; i < a->n; i++) {
    if (a->loop[i] == l || !a->coef[i]) continue;
    int64_t x = iabs64(a->coef[i]), term;
    if (a->loop[i]->extent > 1 &&
        (__builtin_mul_overflow(x, a->loop[i]->extent - 1, &term) || __builtin_add_overflow(span, term, &span) ||
         span >= c))
      high = false;
    if (low && x % step) low = false;
  }
  return high || low;
}

/* §9.8, a simple sufficient rule: every write of a tensor written in the
 * nest has, in some dimension d, an affine item in which distinct
 * iterations of l give distinct values (the loop's index itself, or g*64+tx
 * after tiling), and every reference of that tensor has the same item in
 * dimension d. */
static bool race_free(const RefList *rl, const IrLoop *l) {
  if (rl->overflow) return false;
  for (int i = 0; i < rl->n; i++) {
    const IrRef *r = rl->v[i];
    const IrTensor *t = r->tensor;
    bool written = false;
    for (int j = 0; j < rl->n; j++) written |= rl->write[j] && rl->v[j]->tensor == t;
    if (!written) continue;
    bool ok = false;
    for (int d = 0; d < t->rank && !ok; d++) {
      Affine ar = {0};
      if (!affine_of(r->sub[d], 1, &ar) || !injective_in(&ar, l)) continue;
      ok = true;
      for (int j = 0; j < rl->n && ok; j++) {
        if (!rl->write[j] || rl->v[j]->tensor != t) continue;
        Affine aw = {0};
        ok = affine_of(rl->v[j]->sub[d], 1, &aw) && affine_same(&ar, &aw);
      }
    }
    if (!ok) return false;
  }
  return true;
}

/* ------------------------------------------------------------ the plan */

static void kernel_tensors(LeirCtx *ctx, const IrProgram *p, CgPlan *plan, CgKernel *k,
                           const RefList *rl) {
  bool *used = arena_alloc(&ctx->arena, (size_t)p->ntensors + 1);
  for (int i = 0; i < rl->n; i++) used[rl->v[i]->tensor->id] = true;
  k->tens = arena_alloc(&ctx->arena, sizeof(int) * (size_t)(p->ntensors + 1));
  for (int i = 0; i < p->ntensors; i++)
    if (used[i] && plan->t[i].place == PL_GLOBAL) k->tens[k->ntens++] = i;
}

static bool has_shared_write(const RefList *rl) {
  for (int i = 0; i < rl->n; i++)
    if (rl->write[i] && rl->v[i]->tensor->scope == SC_S && rl->v[i]->tensor->role == ROLE_TMP)
      return true;
  return false;
}

static bool plan_kernel(LeirCtx *ctx, const IrProgram *p, CgPlan *plan, int i, RefList *rl) {
  bool nvptx = plan->target == CG_TARGET_NVPTX;
  CgKernel *k = &plan->k[i];
  k->index = i;
  k->nest = p->nests[i];
  k->name = arena_printf(&ctx->arena, "leir_k%d", i);
  HwScan hs = {ctx, k, nvptx, true};
  each_loop(k->nest, hw_scan_cb, &hs);
  if (!hs.ok) return false;
  if (nvptx) {
    for (int l = 0; l < k->nest->nloops && k->nest->loops[l]->kind != LOOP_B; l++) k->nhost++;
    if (k->nhost == k->nest->nloops) k->nhost = 0; /* no B in the header */
    if (!k->has_b)
      diag_warn(ctx, k->nest->nloops ? k->nest->loops[0]->loc : k->nest->loc,
                "this nest has no B loop; it runs as a one-thread kernel");
  }
  RedScan rs = {ctx, p, k, nvptx, true, {0}};
  each_stmt(k->nest, red_scan_cb, &rs);
  if (!rs.ok) return false;
  k->nred = rs.found.n;
  k->red = arena_alloc(&ctx->arena, sizeof(CgRed) * (size_t)(k->nred + 1));
  for (int r = 0; r < k->nred; r++) k->red[r] = *(CgRed *)rs.found.v[r];
  if (nvptx) {
    const char *why = k->nred ? "it has a cross-thread reduction"
                      : has_shared_write(rl) ? "it writes a shared (s) tensor" : NULL;
    if (!launch_config(ctx, k, why == NULL, why)) return false;
  }
  /* Host: the outermost loop runs in parallel when it is race-free, an L
     loop too (after loop_tiling or loop_split the outermost loop is a new
     L loop): each element is then written by one iteration only, in loop
     order, so the result is the sequential one bit for bit. */
  IrLoop *l0 = k->nest->nloops ? k->nest->loops[0] : NULL;
  if (!nvptx && l0 && (l0->kind == LOOP_B || l0->kind == LOOP_P || l0->kind == LOOP_L) && l0->extent > 1 &&
      race_free(rl, l0))
    k->par = l0;
  return true;
}

bool cg_plan_build(LeirCtx *ctx, const IrProgram *p, CgTarget target, CgPlan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->target = target;
  plan->nkernels = p->nnests;
  plan->k = arena_alloc(&ctx->arena, sizeof(CgKernel) * (size_t)(p->nnests + 1));
  plan->t = arena_alloc(&ctx->arena, sizeof(CgTensorInfo) * (size_t)(p->ntensors + 1));
  RefList *per_nest = arena_alloc(&ctx->arena, sizeof(RefList) * (size_t)(p->nnests + 1));
  bool ok = true;
  for (int i = 0; i < p->nnests; i++) {
    NestRefs nr = {&per_nest[i]};
    each_stmt(p->nests[i], nest_refs_cb, &nr);
    if (per_nest[i].overflow) {
      diag_error(ctx, p->nests[i]->loc, "this nest has too many tensor references (at most 512)");
      ok = false;
      continue;
    }
    ok &= plan_kernel(ctx, p, plan, i, &per_nest[i]);
  }
  if (!ok) return false;
  place_tensors(ctx, p, plan, per_nest);
  for (int i = 0; i < p->nnests; i++) {
    CgKernel *k = &plan->k[i];
    kernel_tensors(ctx, p, plan, k, &per_nest[i]);
    /* one 8-byte slot per thread holds any partial (f16/bf16 are floats) */
    if (k->nred) k->scratch_bytes = 8 * k->block[0] * k->block[1] * k->block[2];
  }
  return true;
}

/* ------------------------------------------------------------ printing */

static void print_dims(SBuf *b, const IrTensor *t) {
  if (t->rank == 0) {
    sbuf_putc(b, '-');
    return;
  }
  for (int d = 0; d < t->rank; d++) sbuf_printf(b, "%s%lld", d ? "," : "", (long long)t->shape[d]);
}

void cg_plan_print(SBuf *b, const IrProgram *p, const CgPlan *plan) {
  sbuf_puts(b, "// leir-plan 1\n");
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < p->ntensors; i++) {
      const IrTensor *t = p->tensors[i];
      bool arg = t->role != ROLE_TMP;
      if (pass == 0 ? !arg : (arg || plan->t[i].place != PL_GLOBAL)) continue;
      sbuf_printf(b, "// leir-tensor %s %s %s ", t->name, ir_role_name(t->role), ir_dtype_name(t->dtype));
      print_dims(b, t);
      sbuf_putc(b, '\n');
    }
  for (int i = 0; i < plan->nkernels; i++) {
    const CgKernel *k = &plan->k[i];
    sbuf_printf(b, "// leir-launch %s %lld,%lld,%lld %lld,%lld,%lld 0 ", k->name,
                (long long)k->grid[0], (long long)k->grid[1], (long long)k->grid[2],
                (long long)k->block[0], (long long)k->block[1], (long long)k->block[2]);
    if (!k->nhost) sbuf_putc(b, '-');
    for (int h = 0; h < k->nhost; h++)
      sbuf_printf(b, "%s%s:%lld", h ? "," : "", k->nest->loops[h]->index,
                  (long long)k->nest->loops[h]->extent);
    sbuf_putc(b, ' ');
    int nargs = 0;
    for (int t = 0; t < k->ntens; t++) sbuf_printf(b, "%s%s", nargs++ ? "," : "", p->tensors[k->tens[t]]->name);
    for (int h = 0; h < k->nhost; h++) sbuf_printf(b, "%s%%%s", nargs++ ? "," : "", k->nest->loops[h]->index);
    if (!nargs) sbuf_putc(b, '-');
    sbuf_putc(b, '\n');
  }
}
