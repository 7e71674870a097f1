/* deps.c -- dependence analysis of one nest (see deps.h for the model). */
#include "passes/deps.h"

#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ affine items */

typedef struct Aff {
  int64_t c;
  int64_t coef[DEP_MAX_LOOPS];
} Aff;

bool dep_affine(const IrExpr *e, const IrNest *n, int64_t *c, int64_t *coef) {
  int nl = n->nloops;
  if (nl > DEP_MAX_LOOPS) return false;
  for (int i = 0; i < nl; i++) coef[i] = 0;
  *c = 0;
  switch (e->kind) {
  case E_INT: *c = e->u.ilit.value; return true;
  case E_INDEX: {
    int k = rw_loop_pos(n, e->u.index.name);
    if (k < 0) return false;
    coef[k] = 1;
    return true;
  }
  case E_PAREN: return dep_affine(e->u.paren, n, c, coef);
  case E_UNARY: {
    if (!dep_affine(e->u.unary.a, n, c, coef)) return false;
    if (e->u.unary.op == OP_NEG) {
      *c = -*c;
      for (int i = 0; i < nl; i++) coef[i] = -coef[i];
    }
    return true;
  }
  case E_BINARY: {
    int64_t ca, cb, xa[DEP_MAX_LOOPS], xb[DEP_MAX_LOOPS];
    if (!dep_affine(e->u.bin.a, n, &ca, xa) || !dep_affine(e->u.bin.b, n, &cb, xb)) return false;
    IrOp op = e->u.bin.op;
    if (op == OP_ADD || op == OP_SUB) {
      int64_t s = op == OP_ADD ? 1 : -1;
      if (__builtin_add_overflow(ca, s * cb, c)) return false;
      for (int i = 0; i < nl; i++)
        if (__builtin_add_overflow(xa[i], s * xb[i], &coef[i])) return false;
      return true;
    }
    if (op != OP_MUL) return false;
    bool a_const = true, b_const = true;
    for (int i = 0; i < nl; i++) {
      a_const &= xa[i] == 0;
      b_const &= xb[i] == 0;
    }
    if (!a_const && !b_const) return false;
    int64_t k = a_const ? ca : cb, kc = a_const ? cb : ca;
    const int64_t *v = a_const ? xb : xa;
    if (__builtin_mul_overflow(k, kc, c)) return false;
    for (int i = 0; i < nl; i++)
      if (__builtin_mul_overflow(k, v[i], &coef[i])) return false;
    return true;
  }
  default: return false;
  }
}

static bool aff_of(const IrExpr *e, const IrNest *n, Aff *a) { return dep_affine(e, n, &a->c, a->coef); }

/* ------------------------------------------------------------ pairs */

/* Solutions d (iteration differences J - I, |d_k| < extent_k) of
 * sum_k a_k d_k = delta over the loops of one subscript item: ORs the sign
 * of each solution's components into dirs[].  Returns the number of
 * solutions, or -1 when the search exceeds its budget. */
typedef struct Solve {
  int n;           /* loops in the item */
  int pos[DEP_MAX_LOOPS];
  int64_t a[DEP_MAX_LOOPS], ext[DEP_MAX_LOOPS], rest[DEP_MAX_LOOPS + 1];
  int64_t d[DEP_MAX_LOOPS];
  unsigned char dirs[DEP_MAX_LOOPS];
  int budget, found;
} Solve;

static int64_t fdiv(int64_t a, int64_t b) { /* floor(a/b), b > 0 */
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

static bool solve_rec(Solve *s, int k, int64_t delta) {
  if (--s->budget < 0) return false;
  if (k == s->n) {
    if (delta != 0) return true;
    s->found++;
    for (int i = 0; i < s->n; i++) s->dirs[i] |= s->d[i] > 0 ? DEP_LT : s->d[i] < 0 ? DEP_GT : DEP_EQ;
    return true;
  }
  /* |delta - a_k d_k| <= rest[k+1] */
  int64_t a = s->a[k] > 0 ? s->a[k] : -s->a[k], dl = s->a[k] > 0 ? delta : -delta;
  int64_t lo = -fdiv(-(dl - s->rest[k + 1]), a), hi = fdiv(dl + s->rest[k + 1], a);
  if (lo < -(s->ext[k] - 1)) lo = -(s->ext[k] - 1);
  if (hi > s->ext[k] - 1) hi = s->ext[k] - 1;
  for (int64_t d = lo; d <= hi; d++) {
    s->d[k] = d;
    if (!solve_rec(s, k + 1, delta - s->a[k] * d)) return false;
  }
  return true;
}

static int solve_item(const IrNest *n, const Aff *x, int64_t delta, unsigned char *dir_out) {
  Solve s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < n->nloops; i++)
    if (x->coef[i]) {
      s.pos[s.n] = i;
      s.a[s.n] = x->coef[i];
      s.ext[s.n] = n->loops[i]->extent;
      s.n++;
    }
  /* largest |coefficient| first, so that the ranges shrink fast */
  for (int i = 1; i < s.n; i++)
    for (int j = i; j > 0 && llabs(s.a[j]) > llabs(s.a[j - 1]); j--) {
      int64_t t = s.a[j]; s.a[j] = s.a[j - 1]; s.a[j - 1] = t;
      t = s.ext[j]; s.ext[j] = s.ext[j - 1]; s.ext[j - 1] = t;
      int p = s.pos[j]; s.pos[j] = s.pos[j - 1]; s.pos[j - 1] = p;
    }
  s.rest[s.n] = 0;
  for (int i = s.n - 1; i >= 0; i--) {
    int64_t term;
    if (__builtin_mul_overflow(llabs(s.a[i]), s.ext[i] - 1, &term) ||
        __builtin_add_overflow(s.rest[i + 1], term, &s.rest[i]))
      return -1;
  }
  s.budget = 4096;
  if (!solve_rec(&s, 0, delta)) return -1;
  for (int i = 0; i < s.n; i++) dir_out[s.pos[i]] = s.dirs[i];
  return s.found;
}

/* Directions of one access pair; false when the pair never touches the same
 * element.  Each subscript item with the same linear part in both accesses
 * constrains the loops it uses to the signs of the solutions of
 * a.(J - I) = c_x - c_y; constraints of several items are intersected. */
static bool pair_dirs(LeirCtx *ctx, const IrNest *n, const IrRef *x, const IrRef *y, unsigned char *dir) {
  int nl = n->nloops;
  (void)ctx;
  for (int i = 0; i < nl; i++) dir[i] = n->loops[i]->extent == 1 ? DEP_EQ : DEP_ANY;
  if (x->nsub != y->nsub) return true; /* a rank error elsewhere: assume the worst */
  for (int d = 0; d < x->nsub; d++) {
    Aff ax, ay;
    if (!aff_of(x->sub[d], n, &ax) || !aff_of(y->sub[d], n, &ay)) continue;
    bool same = true, any = false;
    for (int i = 0; i < nl; i++) {
      same &= ax.coef[i] == ay.coef[i];
      any |= ax.coef[i] != 0;
    }
    if (!same) continue;
    if (!any) {
      if (ax.c != ay.c) return false;
      continue;
    }
    unsigned char got[DEP_MAX_LOOPS] = {0};
    int found = solve_item(n, &ax, ax.c - ay.c, got);
    if (found == 0) return false;
    if (found < 0) continue;
    for (int i = 0; i < nl; i++)
      if (ax.coef[i]) {
        dir[i] &= got[i];
        if (!dir[i]) return false;
      }
  }
  return true;
}

NestDeps *deps_analyse(PassCtx *pc, const IrNest *n) {
  LeirCtx *ctx = pc->ctx;
  NestDeps *d = arena_alloc(&ctx->arena, sizeof *d);
  d->nest = n;
  d->nloops = n->nloops;
  if (n->nloops > DEP_MAX_LOOPS) {
    d->unsupported = "the nest has too many loops to analyse";
    return d;
  }
  PtrVec acc = {0};
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind != ITEM_STMT) {
      d->unsupported = "the nest contains a nested nest";
      return d;
    }
    IrStmt *s = n->items[k].u.stmt;
    PtrVec refs = {0};
    rw_stmt_refs(ctx, s, &refs);
    for (int i = 0; i < refs.n; i++) {
      DepAccess *a = arena_alloc(&ctx->arena, sizeof *a);
      a->ref = refs.v[i];
      a->stmt = s;
      a->stmt_pos = k;
      a->write = i == 0;
      ptrvec_push(&ctx->arena, &acc, a);
    }
  }
  d->naccess = acc.n;
  d->access = arena_alloc(&ctx->arena, sizeof(DepAccess) * (size_t)(acc.n ? acc.n : 1));
  for (int i = 0; i < acc.n; i++) d->access[i] = *(DepAccess *)acc.v[i];
  PtrVec deps = {0};
  for (int i = 0; i < d->naccess; i++) {
    for (int j = i; j < d->naccess; j++) {
      DepAccess *x = &d->access[i], *y = &d->access[j];
      if (!x->write && !y->write) continue;
      if (i == j && !x->write) continue;
      if (strcmp(x->ref->name, y->ref->name)) continue;
      Dep *dep = arena_alloc(&ctx->arena, sizeof *dep);
      if (!pair_dirs(ctx, n, x->ref, y->ref, dep->dir)) continue;
      dep->tensor = x->ref->name;
      dep->x = x;
      dep->y = y;
      if (x->stmt == y->stmt) {
        IrRef *self = NULL;
        IrReduceOp op = rw_accum_op(ctx, x->stmt, &self);
        /* an integer sum of float updates truncates at every step, a bool
           sum maps each nonzero sum to 1, a u32 minimum of i64 values wraps:
           the order is part of the value, as for any other dependence
           (fuzz_passes: loop_reorder on an i32 sum of f32 products, class
           T, changed 313 into 302; finding 48, a wrapping minimum) */
        if (rw_accum_converts(x->stmt, op)) op = RED_NONE;
        bool pair_ok = (x->write && (y->write || y->ref == self)) || (y->write && x->ref == self);
        if (op != RED_NONE && pair_ok) {
          dep->red = op;
          for (int l = 0; l < n->nloops; l++)
            if (!rw_ref_mentions(x->stmt->lhs, n->loops[l]->index) && rw_stmt_mentions(x->stmt, n->loops[l]->index))
              dep->red_loops |= 1ULL << l;
        }
      }
      ptrvec_push(&ctx->arena, &deps, dep);
    }
  }
  d->ndeps = deps.n;
  d->deps = arena_alloc(&ctx->arena, sizeof(Dep) * (size_t)(deps.n ? deps.n : 1));
  for (int i = 0; i < deps.n; i++) d->deps[i] = *(Dep *)deps.v[i];
  return d;
}

const NestDeps *deps_of_nest(PassCtx *pc, int k) {
  const IrProgram *p = pc->prog;
  if (!pc->deps_cache) pc->deps_cache = arena_alloc(&pc->ctx->arena, sizeof(void *) * (size_t)(p->nnests ? p->nnests : 1));
  if (!pc->deps_cache[k]) pc->deps_cache[k] = deps_analyse(pc, p->nests[k]);
  return pc->deps_cache[k];
}

/* ------------------------------------------------------------ queries */

enum { MAX_FREE = 12 };

/* Calls visit(v) for every non-zero vector of the product set; stops when
 * it returns false.  Returns false if the set is too large to enumerate. */
typedef bool (*VecFn)(const int *v, int n, void *u);

static bool for_each_vec(const Dep *dep, int n, VecFn fn, void *u, bool *stopped) {
  int freev[DEP_MAX_LOOPS], nfree = 0;
  int v[DEP_MAX_LOOPS];
  for (int i = 0; i < n; i++) {
    unsigned char s = dep->dir[i];
    if (s == DEP_LT) v[i] = 1;
    else if (s == DEP_GT) v[i] = -1;
    else if (s == DEP_EQ) v[i] = 0;
    else {
      freev[nfree++] = i;
      v[i] = 0;
    }
  }
  if (nfree > MAX_FREE) return false;
  static const int vals[3] = {-1, 0, 1};
  static const unsigned char bits[3] = {DEP_GT, DEP_EQ, DEP_LT};
  int idx[DEP_MAX_LOOPS] = {0};
  for (;;) {
    bool valid = true;
    for (int f = 0; f < nfree; f++) {
      v[freev[f]] = vals[idx[f]];
      valid &= (dep->dir[freev[f]] & bits[idx[f]]) != 0;
    }
    bool nonzero = false;
    for (int i = 0; i < n && !nonzero; i++) nonzero = v[i] != 0;
    if (valid && nonzero && !fn(v, n, u)) {
      *stopped = true;
      return true;
    }
    int f = 0;
    while (f < nfree && ++idx[f] == 3) idx[f++] = 0;
    if (f == nfree) break;
  }
  return true;
}

typedef struct PermCk {
  const int *perm;
  const Dep *dep;
  bool bad, reassoc;
} PermCk;

static int lex_sign(const int *v, const int *order, int n) {
  for (int i = 0; i < n; i++) {
    int x = v[order ? order[i] : i];
    if (x) return x;
  }
  return 0;
}

static bool perm_visit(const int *v, int n, void *u) {
  PermCk *c = u;
  if (lex_sign(v, NULL, n) == lex_sign(v, c->perm, n)) return true;
  const Dep *dep = c->dep;
  bool only_red = dep->red != RED_NONE;
  for (int i = 0; i < n && only_red; i++)
    if (v[i] && !(dep->red_loops >> i & 1)) only_red = false;
  if (!only_red) {
    c->bad = true;
    return false;
  }
  if (dep->red == RED_ADD || dep->red == RED_MUL) c->reassoc = true;
  return true;
}

DepVerdict deps_check_permutation(const NestDeps *d, const int *perm) {
  DepVerdict r = {true, NULL, false};
  for (int i = 0; i < d->ndeps; i++) {
    PermCk c = {perm, &d->deps[i], false, false};
    bool stopped = false;
    if (!for_each_vec(&d->deps[i], d->nloops, perm_visit, &c, &stopped) || c.bad) {
      r.ok = false;
      r.bad = &d->deps[i];
      return r;
    }
    r.reassociates |= c.reassoc;
  }
  return r;
}

typedef struct BandCk {
  int p, q;
  bool bad;
} BandCk;

static bool band_visit(const int *v, int n, void *u) {
  BandCk *c = u;
  int s = lex_sign(v, NULL, n);
  for (int i = 0; i < c->p; i++)
    if (v[i]) return true; /* carried outside the band */
  for (int i = c->p; i <= c->q; i++)
    if (v[i] * s < 0) {
      c->bad = true;
      return false;
    }
  return true;
}

DepVerdict deps_check_band(const NestDeps *d, int p, int q) {
  DepVerdict r = {true, NULL, false};
  for (int i = 0; i < d->ndeps; i++) {
    BandCk c = {p, q, false};
    bool stopped = false;
    if (!for_each_vec(&d->deps[i], d->nloops, band_visit, &c, &stopped) || c.bad) {
      r.ok = false;
      r.bad = &d->deps[i];
      return r;
    }
  }
  return r;
}

DepVerdict deps_check_parallel(const NestDeps *d, int k, bool kernel, int nhost) {
  DepVerdict r = {true, NULL, false};
  for (int i = 0; i < d->ndeps; i++) {
    const Dep *dep = &d->deps[i];
    if (!(dep->dir[k] & (DEP_LT | DEP_GT))) continue;
    int outer = kernel ? nhost : k;
    bool can_eq = true;
    for (int j = 0; j < outer && can_eq; j++)
      if (j != k && !(dep->dir[j] & DEP_EQ)) can_eq = false;
    if (can_eq) {
      r.ok = false;
      r.bad = dep;
      return r;
    }
  }
  return r;
}

const char *deps_describe(PassCtx *pc, const Dep *dep) {
  SBuf a = {0}, b = {0};
  ir_print_ref(&a, dep->x->ref);
  ir_print_ref(&b, dep->y->ref);
  const char *s;
  if (dep->x == dep->y)
    s = pass_reason(pc, "'%s', written repeatedly at the same element (%s)", dep->tensor, a.s);
  else
    s = pass_reason(pc, "'%s' (%s %s and %s %s)", dep->tensor, dep->x->write ? "write" : "read", a.s,
                    dep->y->write ? "write" : "read", b.s);
  sbuf_free(&a);
  sbuf_free(&b);
  return s;
}

const char *deps_summary(PassCtx *pc, const NestDeps *d) {
  if (d->ndeps == 0) return "the dependence analysis finds no two accesses that can touch the same element";
  SBuf b = {0};
  sbuf_printf(&b, "the dependence analysis finds %d dependence%s: ", d->ndeps, d->ndeps == 1 ? "" : "s");
  for (int i = 0; i < d->ndeps && i < 4; i++) {
    const Dep *dep = &d->deps[i];
    sbuf_printf(&b, "%s%s with directions (", i ? "; " : "", deps_describe(pc, dep));
    for (int k = 0; k < d->nloops && k < DEP_MAX_LOOPS; k++) {
      unsigned m = dep->dir[k];
      sbuf_printf(&b, "%s%s:%s%s%s", k ? "," : "", d->nest->loops[k]->index, m & DEP_LT ? "<" : "",
                  m & DEP_EQ ? "=" : "", m & DEP_GT ? ">" : "");
    }
    sbuf_puts(&b, ")");
    if (dep->red != RED_NONE) sbuf_puts(&b, " (a reduction pair)");
  }
  if (d->ndeps > 4) sbuf_puts(&b, "; ...");
  const char *s = arena_strdup(&pc->ctx->arena, b.s);
  sbuf_free(&b);
  return s;
}
