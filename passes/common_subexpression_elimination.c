/* common_subexpression_elimination.c -- STRATEGIES §1.7: compute a
 * repeated sub-expression once.
 *
 * Pre (REF): per statement, the first match of exp(…) log(…) sqrt(…)
 * abs(…) min(…) max(…) if_then_else(…) Name*Name that is not the whole
 * remainder; a text found in two or more statements is a CSE; REF replaces
 * all of them in one step.  REC: one CSE per candidate: any call or
 * arithmetic operator sub-tree (numbered as in expression_splitting) whose
 * text occurs again, not as a whole right side, in the program's top-level
 * nests without nested nests; the candidate names its first occurrence
 * (nest, stmt, pattern).  Legality: the first occurrence is not in an
 * if_then_else branch and is not a single operand or a comparison; no nest
 * from the first to the last user writes a tensor the sub-expression reads
 * (so the value computed before the first user is the value every user
 * saw); every user's loops over the sub-expression's indices lie within
 * the first user's (which Z covers); a literal in it has the same value in
 * Z's dtype as in each user's statement (SPEC 5.4: literals take their
 * statement's type); when a user's statement type is not Z's and the
 * sub-expression has literals or index values, both types are float types
 * (the arithmetic around them changes type: class T); no occurrence in an
 * if_then_else condition has index values or integer literals (i64 there,
 * Z's dtype in Z's statement) unless Z is i64.
 * Rewrite: fresh Z (dtype of the first tensor read inside, else the first
 * user's output; its scope g) indexed by the sub-expression's index names
 * in the first user's nest order; a new nest over those loops of the first
 * user's nest (tx fix-up of §0.2, `B^{1}_{tx=0}` for a scalar) inserted
 * before it; every occurrence reads Z instead.  Index sets of the users are
 * unchanged (§9.5).  Size guard: Z with 2^31-1 or more elements.
 * Params: nest, stmt (0-based among the nest's statements), pattern.
 * Class E when every occurrence is computed in Z's dtype (sema's types)
 * and no literal or index value in it changes type,
 * T when all are float types (table class E: REF assumes one dtype),
 * refused otherwise. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "nest of the first occurrence (0-based)"},
  {"stmt", true, "statement of the first occurrence in that nest (0-based)"},
  {"pattern", true, "the sub-expression: its number in a pre-order walk of that right side"},
  {NULL, false, NULL},
};

/* One occurrence of a candidate text. */
typedef struct Use {
  int nest, stmt, pattern;
  GxSite *site;
  const char *text;
  uint64_t hash; /* of text: most texts differ, and a long common prefix makes strcmp slow */
} Use;

static uint64_t text_hash(const char *t) {
  uint64_t h = 14695981039346656037u; /* FNV-1a */
  for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211u;
  return h;
}

static bool same_text(const Use *u, uint64_t hash, const char *text) {
  return u->hash == hash && !strcmp(u->text, text);
}

static bool has_nested(const IrNest *n) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) return true;
  return false;
}

/* Every hoistable site of p (not the whole right side), in program order. */
static void all_uses(PassCtx *pc, const IrProgram *p, PtrVec *out) {
  LeirCtx *ctx = pc->ctx;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    if (has_nested(n)) continue;
    for (int s = 0; s < n->nitems; s++) {
      const PtrVec *sites = gx_sites_of(pc, p, n->items[s].u.stmt);
      for (int i = 1; i < sites->n; i++) {
        GxSite *st = sites->v[i];
        if (gx_not_hoistable(st->e)) continue;
        Use *u = arena_alloc(&ctx->arena, sizeof *u);
        *u = (Use){k, s, i, st, rw_text(ctx, st->e), 0};
        u->hash = text_hash(u->text);
        ptrvec_push(&ctx->arena, out, u);
      }
    }
  }
}

/* The uses of pc->prog, found once (a 1000-term sum has 1000 sub-expressions,
   each printed, and every candidate's check needs them). */
static PtrVec *prog_uses(PassCtx *pc) {
  if (!pc->memo) {
    pc->memo = arena_alloc(&pc->ctx->arena, sizeof(PtrVec)); /* zeroed */
    all_uses(pc, pc->prog, pc->memo);
  }
  return pc->memo;
}

static void enumerate(PassCtx *pc) {
  const PtrVec *uses = prog_uses(pc);
  /* each text's first use and count, by open addressing on the hash (a
     pairwise comparison of the uses took time quadratic in their number) */
  size_t cap = 16;
  while (cap < 2 * (size_t)uses->n) cap *= 2;
  int *first = arena_alloc(&pc->ctx->arena, sizeof(int) * cap);
  int *count = arena_alloc(&pc->ctx->arena, sizeof(int) * cap);
  int *slot_of = arena_alloc(&pc->ctx->arena, sizeof(int) * (size_t)(uses->n ? uses->n : 1));
  for (size_t b = 0; b < cap; b++) first[b] = -1;
  for (int i = 0; i < uses->n; i++) {
    const Use *u = uses->v[i];
    size_t b = (size_t)u->hash & (cap - 1);
    while (first[b] >= 0 && !same_text(uses->v[first[b]], u->hash, u->text)) b = (b + 1) & (cap - 1);
    if (first[b] < 0) first[b] = i;
    count[b]++;
    slot_of[i] = (int)b;
  }
  for (int i = 0; i < uses->n; i++) {
    const Use *u = uses->v[i];
    if (first[slot_of[i]] != i || count[slot_of[i]] < 2) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", u->nest);
    pass_cand_set_int(pc->ctx, c, "stmt", u->stmt);
    pass_cand_set_int(pc->ctx, c, "pattern", u->pattern);
    pass_emit(pc, c);
  }
}

/* Resolves the candidate on p: *first is its use, *users every use of the
 * same text (first included), in program order. */
static const char *resolve(PassCtx *pc, const IrProgram *p, PassCand *c, Use **first, PtrVec *users) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  int64_t s, k;
  int r = pass_cand_get_int(c, "stmt", &s);
  if (r <= 0) return r == 0 ? "missing parameter 'stmt'" : pass_reason(pc, "stmt=%s is not an integer", pass_cand_get(c, "stmt"));
  if (s < 0 || s >= n->nitems) return pass_reason(pc, "nest %d has no statement %lld", c->nest, (long long)s);
  IrStmt *st = n->items[s].u.stmt;
  c->site = st->loc;
  r = pass_cand_get_int(c, "pattern", &k);
  if (r <= 0)
    return r == 0 ? "missing parameter 'pattern'"
                  : pass_reason(pc, "pattern=%s is not a sub-expression number", pass_cand_get(c, "pattern"));
  const PtrVec *sites = gx_sites_of(pc, p, st);
  if (k < 0 || k >= sites->n)
    return pass_reason(pc, "pattern=%lld is out of range: the right side has sub-expressions 0..%d", (long long)k,
                       sites->n - 1);
  GxSite *site = sites->v[k];
  if (site->e->loc.line) c->site = site->e->loc;
  const char *txt = rw_text(pc->ctx, site->e);
  if (k == 0) return "pattern=0 is the whole right side";
  const char *kind = gx_not_hoistable(site->e);
  if (kind) return pass_reason(pc, "sub-expression %s is %s", txt, kind);
  PtrVec fresh = {0}, *all = &fresh;
  if (p == pc->prog) all = prog_uses(pc);
  else all_uses(pc, p, all);
  uint64_t hash = text_hash(txt);
  *first = NULL;
  for (int i = 0; i < all->n; i++) {
    Use *u = all->v[i];
    if (!same_text(u, hash, txt)) continue;
    if (!*first && (u->nest != c->nest || u->stmt != s || u->pattern != k))
      return pass_reason(pc, "sub-expression %s occurs first in nest %d, statement %d (pattern=%d)", txt, u->nest,
                         u->stmt, u->pattern);
    if (!*first) *first = u;
    ptrvec_push(&pc->ctx->arena, users, u);
  }
  if (!*first) return pass_reason(pc, "sub-expression %s is not in a nest this pass handles", txt);
  return NULL;
}

/* The index names of e in the order of nest n's loops. */
static int sub_names(const IrNest *n, const IrExpr *e, const char **out) {
  const char *names[DEP_MAX_LOOPS];
  int nn = rw_names_in_expr(e, names, DEP_MAX_LOOPS), k = 0;
  for (int i = 0; i < n->nloops; i++)
    for (int j = 0; j < nn; j++)
      if (!strcmp(n->loops[i]->index, names[j])) out[k++] = names[j];
  return k;
}

/* A literal (rw_find_literal's test) whose value differs in statements of
 * the two dtypes u points to. */
static bool retyped_literal(const IrExpr *e, bool in_cmp, void *u) {
  (void)in_cmp;
  const IrDType *t = u;
  double v = e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value;
  return ir_dtype_literal_value(t[0], v) != ir_dtype_literal_value(t[1], v);
}

/* Z's dtype: the first tensor read inside e, else the statement's. */
typedef struct FirstRef {
  IrDType dt;
} FirstRef;

static void first_ref_walk(IrExpr *e, void *u) {
  FirstRef *f = u;
  if (e->kind == E_REF && f->dt == DT_NONE) f->dt = e->u.ref->tensor ? e->u.ref->tensor->dtype : e->u.ref->dt_tag;
}

static IrDType z_dtype(const IrExpr *e, const IrStmt *s) {
  FirstRef f = {DT_NONE};
  ir_walk_expr((IrExpr *)e, first_ref_walk, &f);
  if (f.dt != DT_NONE) return f.dt;
  return s->lhs->tensor ? s->lhs->tensor->dtype : s->lhs->dt_tag;
}

/* No nest from the first to the last user writes what e reads. */
typedef struct Reads {
  LeirCtx *ctx;
  PtrVec names;
} Reads;

static void reads_walk(IrExpr *e, void *u) {
  Reads *r = u;
  if (e->kind == E_REF) ptrvec_push(&r->ctx->arena, &r->names, (void *)e->u.ref->name);
}

static const char *check_writes(PassCtx *pc, const Use *first, const Use *last, const char *txt) {
  const DataFlow *df = df_analyse(pc, pc->prog);
  Reads r = {pc->ctx, {0}};
  ir_walk_expr(first->site->e, reads_walk, &r);
  for (int i = 0; i < r.names.n; i++) {
    const char *t = r.names.v[i];
    int at;
    if (df_find(df, t, first->nest, last->nest + 1, DF_WRITE, &at))
      return pass_reason(pc, "nest %d writes '%s', which %s reads", at, t, txt);
  }
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  Use *first;
  PtrVec users = {0};
  const char *why = resolve(pc, pc->prog, c, &first, &users);
  if (why) return why;
  const char *txt = first->text;
  if (users.n < 2) return pass_reason(pc, "sub-expression %s occurs only once", txt);
  if (first->site->lazy)
    return pass_reason(pc, "sub-expression %s sits in %s (evaluated lazily)", txt, gx_lazy_place(first->site));
  if ((why = check_writes(pc, first, users.v[users.n - 1], txt))) return why;
  const IrProgram *p = pc->prog;
  const IrNest *n0 = p->nests[first->nest];
  const IrStmt *s0 = n0->items[first->stmt].u.stmt;
  const char *names[DEP_MAX_LOOPS], *renamed;
  int nn = sub_names(n0, first->site->e, names);
  for (int u = 1; u < users.n; u++) {
    const Use *x = users.v[u];
    const IrNest *nx = p->nests[x->nest];
    for (int i = 0; i < nn; i++) {
      const IrLoop *l0 = n0->loops[rw_loop_pos(n0, names[i])];
      int pos = rw_loop_pos(nx, names[i]);
      if (pos < 0 || nx->loops[pos]->extent > l0->extent)
        return pass_reason(pc, "nest %d runs '%s' over more values than nest %d, where %s is computed", x->nest,
                           names[i], first->nest, txt);
    }
  }
  if (nn && !rw_copy_loops(pc, n0, names, nn, false, &renamed, &why)) return why;
  int64_t size = 1;
  for (int i = 0; i < nn; i++)
    if (__builtin_mul_overflow(size, n0->loops[rw_loop_pos(n0, names[i])]->extent, &size)) size = INT64_MAX;
  if (size >= ((int64_t)1 << 31) - 1)
    return pass_reason(pc, "size guard: the new tensor would have %lld elements (2^31-1 or more)", (long long)size);
  IrDType tz = z_dtype(first->site->e, s0);
  bool exact = true;
  for (int u = 0; u < users.n; u++) {
    const Use *us = users.v[u];
    /* a literal has its statement's type (SPEC 5.4): Z's statement must
       give it the same value (fuzz_passes: 1.2007 in an f16 statement is
       1.2002, in Z's f32 statement 1.2007) */
    const IrStmt *su = pc->prog->nests[us->nest]->items[us->stmt].u.stmt;
    IrDType ts = su->lhs->tensor ? su->lhs->tensor->dtype : su->lhs->dt_tag;
    IrDType pair[2] = {ts, tz};
    const IrExpr *lit = ts == tz ? NULL : rw_find_literal(us->site->e, retyped_literal, pair);
    if (lit)
      return pass_reason(pc, "the literal %s of %s is %s in nest %d, but would be %s in the new tensor's statement, "
                         "with another value", lit->kind == E_FLOAT ? lit->u.flit.text : lit->u.ilit.text, txt,
                         ir_dtype_name(ts), us->nest, ir_dtype_name(tz));
    /* ... and so do its index values: inside, the arithmetic they take
       part in changes type (fuzz_passes: F**2 with F f32 was f32 in an
       f32 statement and f64 in Z's, a class E step 2 ulp off; an i64
       statement's A/2 truncates, an f64 one's does not) */
    bool retyped = ts != tz && gx_stmt_typed_leaf(us->site->e);
    if (retyped && !(ir_dtype_is_float(ts) && ir_dtype_is_float(tz)))
      return pass_reason(pc, "%s has literals or index values, which take the statement's type: %s in nest %d, "
                         "but %s in the new tensor's statement", txt, ir_dtype_name(ts), us->nest, ir_dtype_name(tz));
    if ((why = gx_cond_retyped(pc, us->site, tz))) return why;
    IrDType te = ((Use *)users.v[u])->site->e->type;
    if (te != tz && !(gx_float_rank(te) && gx_float_rank(tz)))
      return pass_reason(pc, "sub-expression %s is computed in %s in nest %d, but the new tensor would be %s", txt,
                         ir_dtype_name(te), ((Use *)users.v[u])->nest, ir_dtype_name(tz));
    exact &= te == tz && !retyped;
  }
  c->cls = exact ? PASS_E : PASS_T;
  c->why = pass_reason(pc, "sub-expression %s occurs %d times (first in nest %d), never in a lazily evaluated "
                       "if_then_else branch; nothing it reads is written between its first and last use, every later "
                       "use runs its %d loop ind%s over no more values than nest %d, and its %lld values fit a new "
                       "tensor%s",
                       txt, users.n, first->nest, nn, nn == 1 ? "ex" : "ices", first->nest, (long long)size,
                       exact ? "" : "; some uses compute it in another float type (class T)");
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  Use *first;
  PtrVec users = {0};
  if (resolve(pc, q, &cc, &first, &users)) return false;
  IrNest *n0 = q->nests[first->nest];
  IrStmt *s0 = n0->items[first->stmt].u.stmt;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *z = pass_fresh_tensor(&ns);
  IrDType dt = z_dtype(first->site->e, s0);
  const char *names[DEP_MAX_LOOPS], *renamed = NULL, *why;
  int nn = sub_names(n0, first->site->e, names);
  IrNest *m;
  if (nn) {
    m = rw_copy_loops(pc, n0, names, nn, false, &renamed, &why);
    if (!m) return false;
  } else {
    IrLoop *tx = rw_loop(ctx, LOOP_B, 1, "tx");
    m = ir_nest_new(ctx, 1, &tx);
  }
  IrExpr **items = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(nn ? nn : 1));
  for (int i = 0; i < nn; i++) items[i] = ir_index(ctx, names[i]);
  IrStmt *def = ir_stmt_new(ctx, rw_ref(ctx, z, dt, SC_G, items, nn), ir_expr_clone(ctx, first->site->e));
  rw_fix_tx_stmt(ctx, def, renamed);
  ir_nest_add_item(ctx, m, ITEM_STMT, def);
  for (int u = 0; u < users.n; u++)
    *((Use *)users.v[u])->site->slot = ir_refexpr(ctx, rw_ref(ctx, z, dt, SC_G, items, nn));
  rw_insert_nest(ctx, q, first->nest, m);
  return true;
}

const PassImpl pass_impl_common_subexpression_elimination = {
    .keys = keys, .enumerate = enumerate, .check = check, .apply = apply, .keeps_depth = true};
