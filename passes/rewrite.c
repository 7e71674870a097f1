/* rewrite.c -- queries and tree rewriting shared by the passes
 * (STRATEGIES §0.2: subscript substitution, copy nests with the tx fix-up,
 * factor pairs, the no_var and fresh-inputs rules). */
#include "passes/rewrite.h"
#include "passes/graph.h"

#include "ir/range.h"
#include "ir/mathlib.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ text */

const char *rw_text(LeirCtx *ctx, const IrExpr *e) {
  SBuf b = {0};
  ir_print_expr(&b, e);
  const char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

const char *rw_sub_text(LeirCtx *ctx, const IrRef *r) {
  SBuf b = {0};
  for (int i = 0; i < r->nsub; i++) {
    if (i) sbuf_putc(&b, ',');
    ir_print_expr(&b, r->sub[i]);
  }
  const char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

/* ------------------------------------------------------------ nests */

static bool has_nested(const IrNest *n) {
  for (int k = 0; k < n->nitems; k++)
    if (n->items[k].kind == ITEM_NEST) return true;
  return false;
}

IrNest *rw_top_nest(PassCtx *pc, const IrProgram *p, int64_t k, const char **why) {
  if (k < 0 || k >= p->nnests) {
    *why = pass_reason(pc, "there is no nest %lld (the program has %d nest%s, numbered from 0)",
                       (long long)k, p->nnests, p->nnests == 1 ? "" : "s");
    return NULL;
  }
  IrNest *n = p->nests[k];
  if (has_nested(n)) {
    *why = pass_reason(pc, "nest %lld contains a nested nest, which this pass does not handle", (long long)k);
    return NULL;
  }
  return n;
}

IrNest *rw_cand_nest(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why) {
  int64_t k;
  int r = pass_cand_get_int(c, "nest", &k);
  if (r <= 0) {
    *why = r == 0 ? "missing parameter 'nest'" : pass_reason(pc, "nest=%s is not an integer", pass_cand_get(c, "nest"));
    return NULL;
  }
  IrNest *n = rw_top_nest(pc, p, k, why);
  if (!n) return NULL;
  c->nest = (int)k;
  c->site = n->loc;
  return n;
}

IrNest *rw_cand_nest_loop(PassCtx *pc, const IrProgram *p, PassCand *c, int *pos, const char **why) {
  IrNest *n = rw_cand_nest(pc, p, c, why);
  if (!n) return NULL;
  const char *name = pass_cand_get(c, "loop");
  if (!name) {
    *why = "missing parameter 'loop'";
    return NULL;
  }
  *pos = rw_loop_pos(n, name);
  if (*pos < 0) {
    *why = pass_reason(pc, "nest %d has no loop '%s'", c->nest, name);
    return NULL;
  }
  c->site = n->loops[*pos]->loc;
  return n;
}

bool rw_in_every_output(const IrNest *n, const char *name) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) {
      if (!rw_in_every_output(n->items[k].u.nest, name)) return false;
    } else if (!rw_ref_mentions(n->items[k].u.stmt->lhs, name)) {
      return false;
    }
  }
  return true;
}

bool rw_in_first_output(const IrNest *n, const char *name) {
  return n->nitems > 0 && n->items[0].kind == ITEM_STMT && rw_ref_mentions(n->items[0].u.stmt->lhs, name);
}

int rw_first_b(const IrNest *n) {
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i]->kind == LOOP_B) return i;
  return -1;
}

int64_t rw_extent_product(const IrNest *n, int skip) {
  int64_t p = 1;
  for (int i = 0; i < n->nloops; i++)
    if (i != skip && __builtin_mul_overflow(p, n->loops[i]->extent, &p)) return INT64_MAX;
  return p;
}

IrStmt *rw_single_stmt(const IrNest *n) {
  if (n->nitems != 1 || n->items[0].kind != ITEM_STMT) return NULL;
  return n->items[0].u.stmt;
}

int rw_loop_pos(const IrNest *n, const char *name) {
  if (!name) return -1;
  for (int i = 0; i < n->nloops; i++)
    if (!strcmp(n->loops[i]->index, name)) return i;
  return -1;
}

/* ------------------------------------------------------------ mentions */

typedef struct Mention {
  const char *name;
  bool found;
  bool outside_sub; /* only count uses outside subscripts */
} Mention;

static void mention_walk(const IrExpr *e, Mention *m, bool in_sub) {
  if (!e || m->found) return;
  switch (e->kind) {
  case E_INDEX:
    if (!strcmp(e->u.index.name, m->name) && (!m->outside_sub || !in_sub)) m->found = true;
    break;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) mention_walk(e->u.ref->sub[i], m, true);
    break;
  case E_UNARY: mention_walk(e->u.unary.a, m, in_sub); break;
  case E_BINARY:
    mention_walk(e->u.bin.a, m, in_sub);
    mention_walk(e->u.bin.b, m, in_sub);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) mention_walk(e->u.cmp.operand[i], m, in_sub);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) mention_walk(e->u.call.args[i], m, in_sub);
    break;
  case E_PAREN: mention_walk(e->u.paren, m, in_sub); break;
  default: break;
  }
}

bool rw_expr_mentions(const IrExpr *e, const char *name) {
  Mention m = {name, false, false};
  mention_walk(e, &m, false);
  return m.found;
}

bool rw_ref_mentions(const IrRef *r, const char *name) {
  Mention m = {name, false, false};
  for (int i = 0; i < r->nsub; i++) mention_walk(r->sub[i], &m, true);
  return m.found;
}

bool rw_stmt_mentions(const IrStmt *s, const char *name) {
  return rw_ref_mentions(s->lhs, name) || rw_expr_mentions(s->rhs, name);
}

const char *rw_repeated_reduction(PassCtx *pc, const IrNest *n, const IrStmt *s) {
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i]->extent > 1 && !rw_stmt_mentions(s, n->loops[i]->index))
      return pass_reason(pc, "the statement does not use loop '%s' (extent %lld), which repeats it: the implicit "
                         "initialisation (SPEC 9.5) would restart the partial sums elsewhere than the sum",
                         n->loops[i]->index, (long long)n->loops[i]->extent);
  return NULL;
}

/* First E_INDEX outside any subscript, in text order. */
static const char *value_index(const IrExpr *e) {
  if (!e) return NULL;
  switch (e->kind) {
  case E_INDEX: return e->u.index.name;
  case E_UNARY: return value_index(e->u.unary.a);
  case E_BINARY: {
    const char *s = value_index(e->u.bin.a);
    return s ? s : value_index(e->u.bin.b);
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) {
      const char *s = value_index(e->u.cmp.operand[i]);
      if (s) return s;
    }
    return NULL;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      const char *s = value_index(e->u.call.args[i]);
      if (s) return s;
    }
    return NULL;
  case E_PAREN: return value_index(e->u.paren);
  default: return NULL;
  }
}

const char *rw_index_used_as_value(const IrNest *n) {
  for (int k = 0; k < n->nitems; k++) {
    const char *s = n->items[k].kind == ITEM_STMT ? value_index(n->items[k].u.stmt->rhs)
                                                  : rw_index_used_as_value(n->items[k].u.nest);
    if (s) return s;
  }
  return NULL;
}

bool rw_index_is_value(const IrNest *n, const char *name) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) {
      if (rw_index_is_value(n->items[k].u.nest, name)) return true;
      continue;
    }
    Mention m = {name, false, true};
    mention_walk(n->items[k].u.stmt->rhs, &m, false);
    if (m.found) return true;
  }
  return false;
}

/* ------------------------------------------------------------ REF rules */

/* A set of names in insertion order, hashed (a program may have thousands
   of tensors, and a nest may read or write any number of them). */
typedef struct NameSet {
  Arena *arena;
  PtrVec order;      /* const char *, first insertion first */
  const char **tab;  /* open addressing, NULL = empty */
  size_t cap;        /* 0 or a power of two above twice order.n */
} NameSet;

static size_t name_hash(const char *s) {
  size_t h = 5381;
  for (; *s; s++) h = h * 33 + (unsigned char)*s;
  return h;
}

static bool nameset_has(const NameSet *s, const char *name) {
  if (!s->cap) return false;
  for (size_t b = name_hash(name) & (s->cap - 1); s->tab[b]; b = (b + 1) & (s->cap - 1))
    if (!strcmp(s->tab[b], name)) return true;
  return false;
}

static void nameset_add(NameSet *s, const char *name) {
  if (nameset_has(s, name)) return;
  if (2 * (size_t)(s->order.n + 1) > s->cap) { /* rehash into a table twice the size */
    size_t cap = s->cap ? 2 * s->cap : 16;
    s->tab = arena_alloc(s->arena, sizeof(const char *) * cap); /* zeroed */
    s->cap = cap;
    for (int i = 0; i < s->order.n; i++) {
      size_t b = name_hash(s->order.v[i]) & (cap - 1);
      while (s->tab[b]) b = (b + 1) & (cap - 1);
      s->tab[b] = s->order.v[i];
    }
  }
  size_t b = name_hash(name) & (s->cap - 1);
  while (s->tab[b]) b = (b + 1) & (s->cap - 1);
  s->tab[b] = name;
  ptrvec_push(s->arena, &s->order, (void *)name);
}

static void collect_read_names(const IrExpr *e, NameSet *s) {
  if (!e) return;
  switch (e->kind) {
  case E_REF:
    nameset_add(s, e->u.ref->name);
    for (int i = 0; i < e->u.ref->nsub; i++) collect_read_names(e->u.ref->sub[i], s);
    break;
  case E_UNARY: collect_read_names(e->u.unary.a, s); break;
  case E_BINARY:
    collect_read_names(e->u.bin.a, s);
    collect_read_names(e->u.bin.b, s);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) collect_read_names(e->u.cmp.operand[i], s);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) collect_read_names(e->u.call.args[i], s);
    break;
  case E_PAREN: collect_read_names(e->u.paren, s); break;
  default: break;
  }
}

static void nest_names(const IrNest *n, NameSet *in, NameSet *out) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) {
      nest_names(n->items[k].u.nest, in, out);
      continue;
    }
    const IrStmt *s = n->items[k].u.stmt;
    if (out) nameset_add(out, s->lhs->name);
    if (in) {
      collect_read_names(s->rhs, in);
      for (int i = 0; i < s->lhs->nsub; i++) collect_read_names(s->lhs->sub[i], in);
    }
  }
}

/* REF: len(prev_outputs + this_inputs) > len(set(...)) -> skip, where
 * prev_outputs are the names written by the earlier top-level nests (each
 * nest's once) and this_inputs the names nest k reads.  Found for every
 * nest of p at once, in one walk of the program: a check per candidate
 * walking every earlier nest took time and memory quadratic in the number
 * of nests (fuzz, issue 11).  Cached in pc for pc->prog. */
static const char **fresh_inputs_reasons(PassCtx *pc, const IrProgram *p) {
  Arena *a = &pc->ctx->arena;
  const char **why = arena_alloc(a, sizeof(const char *) * (size_t)(p->nnests ? p->nnests : 1)); /* zeroed */
  NameSet seen = {a, {0}, NULL, 0};
  const char *dup = NULL; /* two earlier nests write the same name: every later nest fails */
  for (int k = 0; k < p->nnests; k++) {
    if (dup) {
      why[k] = dup;
      continue;
    }
    NameSet in = {a, {0}, NULL, 0}, out = {a, {0}, NULL, 0};
    nest_names(p->nests[k], &in, &out);
    for (int i = 0; i < in.order.n && !why[k]; i++)
      if (nameset_has(&seen, in.order.v[i]))
        why[k] = pass_reason(pc, "fresh-inputs rule: nest %d reads '%s', which an earlier nest writes", k,
                             (const char *)in.order.v[i]);
    for (int i = 0; i < out.order.n && !dup; i++) {
      if (nameset_has(&seen, out.order.v[i]))
        dup = pass_reason(pc, "fresh-inputs rule: '%s' is written by two earlier nests", (const char *)out.order.v[i]);
      nameset_add(&seen, out.order.v[i]);
    }
  }
  return why;
}

const char *rw_fresh_inputs_rule(PassCtx *pc, const IrProgram *p, int k) {
  if (p != pc->prog) return fresh_inputs_reasons(pc, p)[k];
  if (!pc->fresh_inputs) pc->fresh_inputs = fresh_inputs_reasons(pc, p);
  return pc->fresh_inputs[k];
}

bool rw_is_pure_copy(const IrStmt *s) { return s->rhs->kind == E_REF || s->rhs->kind == E_INDEX; }

bool rw_has_const_minus(LeirCtx *ctx, const IrRef *r) {
  const char *t = rw_sub_text(ctx, r);
  for (const char *q = t; *q; q++) {
    if (*q != '-') continue;
    if (q[1] >= '0' && q[1] <= '9') return true;
    if (q > t && q[-1] >= '0' && q[-1] <= '9') return true;
  }
  return false;
}

static bool expr_has_ref(const IrExpr *e) {
  if (!e) return false;
  switch (e->kind) {
  case E_REF: return true;
  case E_UNARY: return expr_has_ref(e->u.unary.a);
  case E_BINARY: return expr_has_ref(e->u.bin.a) || expr_has_ref(e->u.bin.b);
  case E_PAREN: return expr_has_ref(e->u.paren);
  default: return false;
  }
}

bool rw_ref_has_nested_ref(const IrRef *r) {
  for (int i = 0; i < r->nsub; i++)
    if (expr_has_ref(r->sub[i])) return true;
  return false;
}

static const IrTensor *ref_tensor(const IrProgram *p, const IrRef *r) {
  return r->tensor ? r->tensor : ir_find_tensor(p, r->name);
}

typedef struct IndexFlow {
  const IrProgram *p;
  const char **bound; /* by tensor id: the subscript-read tensor its values reach */
  PtrVec work;        /* IrTensor*: bound, their writers not yet walked */
  Arena *a;
} IndexFlow;

static void flow_mark(IndexFlow *f, const IrTensor *t, const char *index) {
  if (!t || f->bound[t->id]) return;
  f->bound[t->id] = index;
  ptrvec_push(f->a, &f->work, (void *)t);
}

/* Every tensor read by a subscript item (through ir_walk_expr, nested
   subscripts too) is an index tensor of its own. */
static void flow_sub_item(IrExpr *e, void *u) {
  IndexFlow *f = u;
  if (e->kind != E_REF) return;
  const IrTensor *t = ref_tensor(f->p, e->u.ref);
  flow_mark(f, t, t ? t->name : NULL);
}

static void flow_subs(IrExpr *e, void *u) {
  if (e->kind != E_REF) return;
  for (int i = 0; i < e->u.ref->nsub; i++) ir_walk_expr(e->u.ref->sub[i], flow_sub_item, u);
}

typedef struct FlowRead {
  IndexFlow *f;
  const char *index;
} FlowRead;

static void flow_read(IrExpr *e, void *u) {
  FlowRead *r = u;
  if (e->kind == E_REF) flow_mark(r->f, ref_tensor(r->f->p, e->u.ref), r->index);
}

/* For each tensor of p, the tensor read inside a subscript whose range its
 * values bound, or NULL.  sema bounds a shape indexed by an index tensor by
 * the range of its writers' right sides, and the range of a read in them by
 * the read tensor's writers, and so on (ir/shape.c, tensor_values): the
 * values of every tensor on such a chain bound the shape.  One walk: each
 * tensor's writers are walked once, when it is first reached. */
static const char **index_flow(PassCtx *pc, const IrProgram *p) {
  IndexFlow f = {p, NULL, {0}, &pc->ctx->arena};
  f.bound = arena_alloc(f.a, sizeof(const char *) * (size_t)(p->ntensors ? p->ntensors : 1)); /* zeroed */
  for (int i = 0; i < p->nstmts; i++) {
    IrExpr lhs = {.kind = E_REF};
    lhs.u.ref = p->stmts[i]->lhs;
    flow_subs(&lhs, &f);
    ir_walk_expr(p->stmts[i]->rhs, flow_subs, &f);
  }
  PtrVec *writers = arena_alloc(f.a, sizeof(PtrVec) * (size_t)(p->ntensors ? p->ntensors : 1));
  for (int i = 0; i < p->nstmts; i++) {
    const IrTensor *t = ref_tensor(p, p->stmts[i]->lhs);
    if (t) ptrvec_push(f.a, &writers[t->id], p->stmts[i]);
  }
  for (int w = 0; w < f.work.n; w++) {
    const IrTensor *t = f.work.v[w];
    FlowRead r = {&f, f.bound[t->id]};
    for (int i = 0; i < writers[t->id].n; i++) ir_walk_expr(((IrStmt *)writers[t->id].v[i])->rhs, flow_read, &r);
  }
  return f.bound;
}

const char *rw_index_bound(PassCtx *pc, const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  if (!t) return NULL;
  if (p != pc->prog) return index_flow(pc, p)[t->id];
  if (!pc->index_flow) pc->index_flow = index_flow(pc, p);
  return pc->index_flow[t->id];
}

/* ------------------------------------------------------------ constants and bounds */

/* What a sub-expression that reads no tensor is worth: its exact value when
 * constant (c), and an interval [lo, hi] holding every value it takes over
 * its loop indices' ranges (ok). */
typedef struct Val {
  bool c, ok;
  double v, lo, hi;
} Val;

static Val val_exact(double v) { return (Val){true, !isnan(v), v, v, v}; }
static Val val_range(double lo, double hi) {
  return (Val){false, !isnan(lo) && !isnan(hi), 0, lo, hi};
}
static const Val val_none = {false, false, 0, 0, 0};

static double mag(Val x) { return fmax(fabs(x.lo), fabs(x.hi)); }

/* max(a, b) or min(a, b) of two Vals. */
static Val val_minmax(IrFunc f, Val a, Val b) {
  if (a.c && b.c) return val_exact(f == F_MAX ? (a.v > b.v ? a.v : b.v) : (a.v < b.v ? a.v : b.v));
  if (!a.ok || !b.ok) return val_none;
  return f == F_MAX ? val_range(fmax(a.lo, b.lo), fmax(a.hi, b.hi)) : val_range(fmin(a.lo, b.lo), fmin(a.hi, b.hi));
}

/* e's Val from its operands' (k: unary/binary a, b; call arguments),
 * computed in f64 with leirc's mathlib. */
static Val val_combine(const IrExpr *e, const Val *k) {
  switch (e->kind) {
  case E_PAREN: return k[0];
  case E_UNARY:
    if (e->u.unary.op != OP_NEG) return k[0];
    return k[0].c ? val_exact(-k[0].v) : k[0].ok ? val_range(-k[0].hi, -k[0].lo) : val_none;
  case E_BINARY: {
    Val a = k[0], b = k[1];
    IrOp op = e->u.bin.op;
    if (a.c && b.c) switch (op) {
      case OP_ADD: return val_exact(a.v + b.v);
      case OP_SUB: return val_exact(a.v - b.v);
      case OP_MUL: return val_exact(a.v * b.v);
      case OP_DIV: return val_exact(a.v / b.v);
      case OP_FLOORDIV: return val_exact(floor(a.v / b.v));
      case OP_MOD: return val_exact(a.v - b.v * floor(a.v / b.v));
      case OP_POW: return val_exact(leir_pow(a.v, b.v));
      default: return val_none; /* & and | */
      }
    if (!a.ok) return val_none;
    switch (op) {
    case OP_ADD: return b.ok ? val_range(a.lo + b.lo, a.hi + b.hi) : val_none;
    case OP_SUB: return b.ok ? val_range(a.lo - b.hi, a.hi - b.lo) : val_none;
    case OP_MUL: {
      if (!b.ok) return val_none;
      double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}, lo = p[0], hi = p[0];
      for (int i = 1; i < 4; i++) lo = fmin(lo, p[i]), hi = fmax(hi, p[i]);
      return val_range(lo, hi);
    }
    case OP_DIV: case OP_FLOORDIV: {
      /* only by a constant away from 0: a divisor near 0 has no bound */
      if (!b.c || !(fabs(b.v) >= 1)) return val_none;
      double m = mag(a) / fabs(b.v) + (op == OP_FLOORDIV);
      return val_range(-m, m);
    }
    case OP_MOD: return b.c && b.v != 0 ? val_range(-fabs(b.v), fabs(b.v)) : val_none;
    case OP_POW: {
      /* a base of magnitude up to mag(a), to an exponent in [0, hi] */
      if (!b.ok || b.lo < 0) return val_none;
      double m = leir_pow(fmax(mag(a), 1), b.hi);
      return val_range(-m, m);
    }
    default: return val_none;
    }
  }
  case E_CALL: {
    int n = e->u.call.nargs;
    if (n > 3) return val_none;
    bool all = true;
    for (int i = 0; i < n && all; i++) all = k[i].c;
    if (all) switch (e->u.call.func) {
      case F_EXP: return val_exact(leir_exp(k[0].v));
      case F_LOG: return val_exact(leir_log(k[0].v));
      case F_SQRT: return val_exact(sqrt(k[0].v));
      case F_ABS: return val_exact(fabs(k[0].v));
      case F_ERF: return val_exact(leir_erf(k[0].v));
      case F_ITE: return val_exact(k[0].v != 0 ? k[1].v : k[2].v);
      default: break; /* max, min: find_walk folds them */
      }
    switch (e->u.call.func) {
    case F_EXP: return k[0].ok ? val_range(leir_exp(k[0].lo), leir_exp(k[0].hi)) : val_none;
    case F_SQRT: return k[0].ok ? val_range(0, sqrt(fmax(k[0].hi, 0))) : val_none;
    case F_ABS: return k[0].ok ? val_range(0, mag(k[0])) : val_none;
    case F_ERF: return val_range(-1, 1);
    case F_ITE: return k[1].ok && k[2].ok ? val_range(fmin(k[1].lo, k[2].lo), fmax(k[1].hi, k[2].hi)) : val_none;
    default: return val_none; /* log near 0 */
    }
  }
  default: return val_none;
  }
}

/* The operands val_combine takes, in order (at most 3). */
static int operands(const IrExpr *e, const IrExpr **o) {
  switch (e->kind) {
  case E_PAREN: o[0] = e->u.paren; return 1;
  case E_UNARY: o[0] = e->u.unary.a; return 1;
  case E_BINARY: o[0] = e->u.bin.a, o[1] = e->u.bin.b; return 2;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && i < 3; i++) o[i] = e->u.call.args[i];
    return e->u.call.nargs;
  default: return 0;
  }
}

/* The finder: every node of e outside subscripts, once, bottom up.  A node
 * is tested (innermost first) unless `quiet`; in skip_div mode the right
 * operand of / // % and comparisons are quiet. */
typedef struct Finder {
  bool consts, skip_div;
  bool (*bad)(const IrExpr *, double, bool, void *);
  void *u;
  const IrExpr *found;
} Finder;

static Val find_walk(Finder *f, const IrExpr *e, bool in_cmp, bool quiet) {
  switch (e->kind) {
  case E_INT: case E_FLOAT: {
    Val v = val_exact(e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value);
    if (!quiet && !f->found && f->bad(e, fabs(v.v), in_cmp, f->u)) f->found = e;
    return v;
  }
  case E_INDEX:
    return e->u.index.loop ? val_range(0, (double)(e->u.index.loop->extent - 1)) : val_none;
  default: break;
  }
  Val v;
  if (e->kind == E_CMP) { /* 0 or 1; its operands are in_cmp */
    bool all = true, t = true;
    double prev = 0;
    for (int i = 0; i < e->u.cmp.n; i++) {
      Val x = find_walk(f, e->u.cmp.operand[i], true, quiet || f->skip_div);
      if (!x.c) all = false;
      else if (all && i > 0) t = t && ir_cmp_f64(e->u.cmp.op[i - 1], prev, x.v);
      prev = x.v;
    }
    v = all ? val_exact(t) : val_range(0, 1);
  } else if (e->kind == E_CALL && (e->u.call.nargs > 3 || e->u.call.func == F_MIN || e->u.call.func == F_MAX)) {
    /* max and min of any number of operands, folded; every operand of a
       longer call is searched too (fuzz_passes: -21**c as the 4th operand
       of a min escaped the test of finding 46) */
    IrFunc fn = e->u.call.func;
    bool mm = fn == F_MIN || fn == F_MAX;
    v = val_none;
    for (int i = 0; i < e->u.call.nargs; i++) {
      Val x = find_walk(f, e->u.call.args[i], in_cmp, quiet);
      v = !mm ? val_none : i == 0 ? x : val_minmax(fn, v, x);
    }
  } else {
    const IrExpr *o[3];
    Val k[3];
    int n = operands(e, o);
    if (n <= 0) return val_none; /* references (subscripts are not searched), inf */
    for (int i = 0; i < n; i++) {
      bool q = quiet || (f->skip_div && e->kind == E_BINARY && i == 1 &&
                         (e->u.bin.op == OP_DIV || e->u.bin.op == OP_FLOORDIV || e->u.bin.op == OP_MOD));
      k[i] = find_walk(f, o[i], in_cmp, q);
    }
    v = val_combine(e, k);
  }
  if (f->consts && !quiet && !f->found && e->kind != E_PAREN && (v.c || v.ok) && f->bad(e, mag(v), in_cmp, f->u))
    f->found = e;
  return v;
}

static Val val_of(const IrExpr *e) {
  Finder f = {false, false, NULL, NULL, NULL};
  return find_walk(&f, e, false, true);
}

bool rw_const_value(const IrExpr *e, double *v) {
  Val x = val_of(e);
  if (x.c) *v = x.v;
  return x.c;
}

bool rw_value_bound(const IrExpr *e, double *m) {
  Val x = val_of(e);
  *m = mag(x);
  return x.ok;
}

typedef struct LitTest {
  bool (*bad)(const IrExpr *, bool, void *);
  void *u;
} LitTest;

static bool literal_only(const IrExpr *e, double v, bool in_cmp, void *u) {
  (void)v;
  const LitTest *t = u;
  return t->bad(e, in_cmp, t->u);
}

const IrExpr *rw_find_literal(const IrExpr *e, bool (*bad)(const IrExpr *lit, bool in_cmp, void *u), void *u) {
  LitTest t = {bad, u};
  Finder f = {false, false, literal_only, &t, NULL};
  find_walk(&f, e, false, false);
  return f.found;
}

const IrExpr *rw_find_constant(const IrExpr *e, bool (*bad)(const IrExpr *c, double v, bool in_cmp, void *u),
                               void *u) {
  Finder f = {true, false, bad, u, NULL};
  find_walk(&f, e, false, false);
  return f.found;
}

const IrExpr *rw_find_huge(const IrExpr *e, bool (*bad)(const IrExpr *c, double v, bool in_cmp, void *u), void *u) {
  Finder f = {true, true, bad, u, NULL};
  find_walk(&f, e, false, false);
  return f.found;
}

int rw_unbounded_item(const IrRef *r) {
  for (int i = 0; i < r->nsub; i++)
    if (!ir_expr_range(r->sub[i]).ok) return i;
  return -1;
}

int rw_oversized_item(const IrRef *r, const int64_t *extent, int64_t *hi) {
  int64_t n = 1;
  for (int i = 0; i < r->nsub; i++) {
    IrRange g = ir_expr_range(r->sub[i]);
    int64_t d = g.hi < 0 ? 1 : g.hi >= IR_MAX_NUMEL ? IR_MAX_NUMEL + 1 : g.hi + 1;
    if (extent && extent[i] > 0) d = extent[i];
    if (__builtin_mul_overflow(n, d, &n) || n > IR_MAX_NUMEL) {
      *hi = g.hi;
      return i;
    }
  }
  return -1;
}

/* ------------------------------------------------------------ accumulation */

static const IrExpr *unparen(const IrExpr *e) {
  while (e && e->kind == E_PAREN) e = e->u.paren;
  return e;
}

typedef struct CountRefs {
  const char *name;
  int n;
} CountRefs;

static void count_refs(IrExpr *e, void *u) {
  CountRefs *c = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, c->name)) c->n++;
}

/* What the conversion of every step to the accumulator's dtype does that
 * makes the order of the updates part of the value, or NULL. */
static const char *accum_conversion(const IrStmt *s, IrReduceOp op) {
  IrDType acc = rw_ref_dtype(s->lhs), t = s->rhs->type;
  if (op == RED_MAX || op == RED_MIN)
    return ir_dtype_convert_monotone(t, acc) && ir_dtype_convert_monotone(acc, t) ? NULL : "does not keep the order of";
  if (op != RED_ADD && op != RED_MUL) return NULL;
  if (!ir_dtype_is_float(acc) && ir_dtype_is_float(t)) return "truncates or saturates";
  if (op == RED_ADD && acc == DT_BOOL && t != DT_BOOL) return "maps every nonzero sum to 1";
  return NULL;
}

bool rw_accum_converts(const IrStmt *s, IrReduceOp op) { return accum_conversion(s, op) != NULL; }

const char *rw_accum_not_associative(PassCtx *pc, const IrStmt *s, IrReduceOp op) {
  const char *what = accum_conversion(s, op);
  if (!what) return NULL;
  const char *acc = ir_dtype_name(rw_ref_dtype(s->lhs)), *t = ir_dtype_name(s->rhs->type);
  const char *val = op == RED_MAX ? "maximum" : op == RED_MIN ? "minimum" : op == RED_MUL ? "product" : "sum";
  const char *tail = op == RED_MAX || op == RED_MIN ? pass_reason(pc, "%s %s values", what, t) : what;
  return pass_reason(pc, "'%s' is %s but its update is computed in %s: every step converts the %s to %s, which %s, so "
                     "partial results do not recombine to the same value",
                     s->lhs->name, acc, t, val, acc, tail);
}

IrReduceOp rw_accum_op(LeirCtx *ctx, const IrStmt *s, IrRef **self) {
  const IrExpr *e = unparen(s->rhs);
  IrReduceOp op = RED_NONE;
  const IrExpr *leaf = NULL;
  if (e->kind == E_CALL && (e->u.call.func == F_MAX || e->u.call.func == F_MIN) && e->u.call.nargs >= 2) {
    op = e->u.call.func == F_MAX ? RED_MAX : RED_MIN;
    leaf = unparen(e->u.call.args[0]);
  } else if (e->kind == E_BINARY) {
    const IrExpr *x = e;
    while (x->kind == E_BINARY) {
      IrReduceOp here = (x->u.bin.op == OP_ADD || x->u.bin.op == OP_SUB) ? RED_ADD
                        : x->u.bin.op == OP_MUL                         ? RED_MUL
                                                                        : RED_NONE;
      if (here == RED_NONE || (op != RED_NONE && here != op)) return RED_NONE;
      op = here;
      x = unparen(x->u.bin.a);
    }
    leaf = x;
  }
  if (op == RED_NONE || !leaf || leaf->kind != E_REF) return RED_NONE;
  const IrRef *r = leaf->u.ref;
  if (strcmp(r->name, s->lhs->name) || r->nsub != s->lhs->nsub) return RED_NONE;
  if (strcmp(rw_sub_text(ctx, r), rw_sub_text(ctx, s->lhs))) return RED_NONE;
  CountRefs c = {s->lhs->name, 0};
  ir_walk_expr(s->rhs, count_refs, &c);
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], count_refs, &c);
  if (c.n != 1) return RED_NONE;
  if (self) *self = (IrRef *)r;
  return op;
}

static void refs_walk(IrExpr *e, void *u) {
  PtrVec *v = ((void **)u)[0];
  LeirCtx *ctx = ((void **)u)[1];
  if (e->kind == E_REF) ptrvec_push(&ctx->arena, v, e->u.ref);
}

void rw_stmt_refs(LeirCtx *ctx, IrStmt *s, PtrVec *out) {
  void *u[2] = {out, ctx};
  ptrvec_push(&ctx->arena, out, s->lhs);
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], refs_walk, u);
  ir_walk_expr(s->rhs, refs_walk, u);
}

/* ------------------------------------------------------------ numbers */

int rw_factor_pairs(int64_t n, int64_t *f, int max) {
  int k = 0;
  for (int64_t d = 2; d <= n / d && k < max; d++)
    if (n % d == 0) f[k++] = d;
  return k;
}

int rw_divisors(int64_t n, int64_t *f, int max) {
  int k = 0;
  for (int64_t d = 2; d < n && k < max; d++) {
    if (d > n / 2) break;
    if (n % d == 0) f[k++] = d;
  }
  return k;
}

const char *rw_hw_limits(PassCtx *pc, const IrNest *n) { return rw_hw_limits_loops(pc, n->loops, n->nloops); }

const char *rw_hw_limits_loops(PassCtx *pc, IrLoop *const *loops, int nloops) {
  int64_t threads = 1;
  const IrLoop *by_axis[HW_BZ + 1] = {0};
  for (int i = 0; i < nloops; i++) {
    const IrLoop *l = loops[i];
    if (l->kind != LOOP_B) continue;
    IrHwAxis a = ir_hw_axis_of_index(l->index);
    if (a == HW_NONE) continue;
    if (by_axis[a])
      return pass_reason(pc, "loops '%s' and '%s' would both be bound to %s", by_axis[a]->index, l->index,
                         ir_hw_axis_name(a));
    by_axis[a] = l;
    if (a <= HW_TZ) {
      threads *= l->extent;
      if (threads > 1024)
        return pass_reason(pc, "the nest would need more than 1024 threads per block");
      if (a == HW_TZ && l->extent > 64)
        return pass_reason(pc, "threadIdx.z extent %lld exceeds 64", (long long)l->extent);
    } else if (a == HW_BX ? l->extent > 2147483647LL : l->extent > 65535) {
      return pass_reason(pc, "%s extent %lld exceeds %s", ir_hw_axis_name(a), (long long)l->extent,
                         a == HW_BX ? "2^31-1" : "65535");
    }
  }
  return NULL;
}

/* ------------------------------------------------------------ substitution */

static bool is_compound(const IrExpr *e) {
  e = unparen(e);
  return e->kind == E_BINARY || e->kind == E_UNARY || e->kind == E_CMP;
}

static void subst(LeirCtx *ctx, IrExpr **slot, const char *name, const IrExpr *repl, bool in_sub, bool whole) {
  IrExpr *e = *slot;
  if (!e) return;
  switch (e->kind) {
  case E_INDEX:
    if (in_sub && !strcmp(e->u.index.name, name)) {
      IrExpr *c = ir_expr_clone(ctx, repl);
      *slot = (!whole && is_compound(c)) ? ir_paren(ctx, c) : c;
    }
    break;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) subst(ctx, &e->u.ref->sub[i], name, repl, true, true);
    break;
  case E_UNARY: subst(ctx, &e->u.unary.a, name, repl, in_sub, false); break;
  case E_BINARY:
    subst(ctx, &e->u.bin.a, name, repl, in_sub, false);
    subst(ctx, &e->u.bin.b, name, repl, in_sub, false);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) subst(ctx, &e->u.cmp.operand[i], name, repl, in_sub, false);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) subst(ctx, &e->u.call.args[i], name, repl, in_sub, false);
    break;
  case E_PAREN: subst(ctx, &e->u.paren, name, repl, in_sub, false); break;
  default: break;
  }
}

void rw_subst_sub(LeirCtx *ctx, IrExpr **e, const char *name, const IrExpr *repl) {
  subst(ctx, e, name, repl, false, false);
}

void rw_subst_sub_ref(LeirCtx *ctx, IrRef *r, const char *name, const IrExpr *repl) {
  for (int i = 0; i < r->nsub; i++) subst(ctx, &r->sub[i], name, repl, true, true);
}

void rw_subst_sub_stmt(LeirCtx *ctx, IrStmt *s, const char *name, const IrExpr *repl) {
  rw_subst_sub_ref(ctx, s->lhs, name, repl);
  rw_subst_sub(ctx, &s->rhs, name, repl);
}

typedef struct Rename {
  LeirCtx *ctx;
  const char *from, *to;
} Rename;

static void rename_walk(IrExpr *e, void *u) {
  Rename *r = u;
  if (e->kind == E_INDEX && !strcmp(e->u.index.name, r->from)) e->u.index.name = arena_strdup(&r->ctx->arena, r->to);
}

void rw_rename_index_stmt(LeirCtx *ctx, IrStmt *s, const char *from, const char *to) {
  Rename r = {ctx, from, to};
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], rename_walk, &r);
  ir_walk_expr(s->rhs, rename_walk, &r);
}

void rw_for_stmts(IrNest *n, void (*f)(IrStmt *s, void *u), void *u) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_STMT)
      f(n->items[k].u.stmt, u);
    else
      rw_for_stmts(n->items[k].u.nest, f, u);
  }
}

IrExpr *rw_affine(LeirCtx *ctx, const char *outer, int64_t m, const char *inner) {
  return ir_binary(ctx, OP_ADD, ir_binary(ctx, OP_MUL, ir_index(ctx, outer), ir_int(ctx, m)), ir_index(ctx, inner));
}

void rw_replace_item(LeirCtx *ctx, IrRef *r, const char *item_text, const IrExpr *repl) {
  for (int i = 0; i < r->nsub; i++) {
    if (!strcmp(rw_text(ctx, r->sub[i]), item_text)) {
      r->sub[i] = ir_expr_clone(ctx, repl);
      continue;
    }
    /* nested reads inside the item */
    IrExpr *stack[64];
    int n = 0;
    stack[n++] = r->sub[i];
    while (n) {
      IrExpr *e = stack[--n];
      if (e->kind == E_REF) rw_replace_item(ctx, e->u.ref, item_text, repl);
      else if (e->kind == E_BINARY && n < 62) {
        stack[n++] = e->u.bin.a;
        stack[n++] = e->u.bin.b;
      } else if (e->kind == E_UNARY && n < 63) stack[n++] = e->u.unary.a;
      else if (e->kind == E_PAREN && n < 63) stack[n++] = e->u.paren;
    }
  }
}

/* ------------------------------------------------------------ copy nests */

static void names_walk(const IrExpr *e, const char **names, int *n, int max) {
  if (!e) return;
  switch (e->kind) {
  case E_INDEX:
    for (int i = 0; i < *n; i++)
      if (!strcmp(names[i], e->u.index.name)) return;
    if (*n < max) names[(*n)++] = e->u.index.name;
    break;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) names_walk(e->u.ref->sub[i], names, n, max);
    break;
  case E_UNARY: names_walk(e->u.unary.a, names, n, max); break;
  case E_BINARY:
    names_walk(e->u.bin.a, names, n, max);
    names_walk(e->u.bin.b, names, n, max);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) names_walk(e->u.cmp.operand[i], names, n, max);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) names_walk(e->u.call.args[i], names, n, max);
    break;
  case E_PAREN: names_walk(e->u.paren, names, n, max); break;
  default: break;
  }
}

int rw_names_in_ref(const IrRef *r, const char **names, int max) {
  int n = 0;
  for (int i = 0; i < r->nsub; i++) names_walk(r->sub[i], names, &n, max);
  return n;
}

int rw_names_in_expr(const IrExpr *e, const char **names, int max) {
  int n = 0;
  names_walk(e, names, &n, max);
  return n;
}

IrLoop *rw_loop(LeirCtx *ctx, IrLoopKind k, int64_t n, const char *index) {
  return ir_loop_new(ctx, k, n, index);
}

void rw_set_extent(IrLoop *l, int64_t n) {
  l->extent = n;
  l->extent_text = NULL;
}

IrLoop *rw_loop_clone(LeirCtx *ctx, const IrLoop *l) {
  IrLoop *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *l;
  return c;
}

void rw_insert_loop(LeirCtx *ctx, IrNest *n, int pos, IrLoop *l) {
  IrLoop **v = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops + 1));
  for (int i = 0, j = 0; i <= n->nloops; i++) v[i] = i == pos ? l : n->loops[j++];
  n->loops = v;
  n->nloops++;
}

void rw_remove_loop(IrNest *n, int pos) {
  for (int i = pos; i + 1 < n->nloops; i++) n->loops[i] = n->loops[i + 1];
  n->nloops--;
}

bool rw_fix_tx_loops(PassCtx *pc, IrLoop **loops, int k, const char **renamed, const char **why) {
  *renamed = NULL;
  for (int i = 0; i < k; i++)
    if (!strcmp(loops[i]->index, "tx") || (loops[i]->kind == LOOP_B && ir_hw_axis_of_index(loops[i]->index) == HW_TX))
      return true;
  for (int i = 0; i < k; i++)
    if (loops[i]->extent < 1024) {
      *renamed = loops[i]->index;
      loops[i]->index = "tx";
      loops[i]->kind = LOOP_B;
      loops[i]->hw = HW_TX;
      return true;
    }
  *why = k ? pass_reason(pc, "tx fix-up: no loop of the copy nest has an extent below 1024")
           : pass_reason(pc, "tx fix-up: the copy nest has no loop");
  return false;
}

IrNest *rw_copy_loops(PassCtx *pc, const IrNest *n, const char **names, int nnames, bool in_given_order,
                      const char **renamed, const char **why) {
  LeirCtx *ctx = pc->ctx;
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops + 1));
  int k = 0;
  if (in_given_order) {
    for (int j = 0; j < nnames; j++) {
      int pos = rw_loop_pos(n, names[j]);
      if (pos >= 0) loops[k++] = rw_loop_clone(ctx, n->loops[pos]);
    }
  } else {
    for (int i = 0; i < n->nloops; i++)
      for (int j = 0; j < nnames; j++)
        if (!strcmp(n->loops[i]->index, names[j])) {
          loops[k++] = rw_loop_clone(ctx, n->loops[i]);
          break;
        }
  }
  if (!rw_fix_tx_loops(pc, loops, k, renamed, why)) return NULL;
  const char *bad = rw_hw_limits_loops(pc, loops, k);
  if (bad) {
    *why = pass_reason(pc, "the copy nest breaks a hardware limit: %s", bad);
    return NULL;
  }
  IrNest *m = ir_nest_new(ctx, k, loops);
  m->loc = (IrLoc){0, 0};
  return m;
}

void rw_fix_tx_stmt(LeirCtx *ctx, IrStmt *s, const char *renamed) {
  if (renamed) rw_rename_index_stmt(ctx, s, renamed, "tx");
}

void rw_insert_nest(LeirCtx *ctx, IrProgram *q, int k, IrNest *m) {
  IrNest **v = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)(q->nnests + 1));
  for (int i = 0, j = 0; i <= q->nnests; i++) {
    if (i == k) v[i] = m;
    else v[i] = q->nests[j++];
  }
  q->nests = v;
  q->nnests++;
}

IrNest *rw_nest1(LeirCtx *ctx, IrLoop **loops, int nloops, IrStmt *s) {
  IrNest *m = ir_nest_new(ctx, nloops, loops);
  ir_nest_add_item(ctx, m, ITEM_STMT, s);
  return m;
}

IrRef *rw_ref(LeirCtx *ctx, const char *name, IrDType dt, IrScope sc, IrExpr **items, int n) {
  IrExpr **c = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) c[i] = ir_expr_clone(ctx, items[i]);
  return ir_ref_new(ctx, name, dt, sc, n, c);
}

typedef struct TRename {
  const char *from, *to;
  IrDType dt;
  IrScope sc;
} TRename;

static void trename_ref(IrRef *r, const TRename *t) {
  if (!strcmp(r->name, t->from)) {
    r->name = t->to;
    r->dt_tag = t->dt;
    r->sc_tag = t->sc;
    r->tensor = NULL;
  }
}

static void trename_walk(IrExpr *e, void *u) {
  if (e->kind == E_REF) trename_ref(e->u.ref, u);
}

void rw_rename_tensor_stmt(IrStmt *s, const char *from, const char *to, IrDType dt, IrScope sc) {
  TRename t = {from, to, dt, sc};
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = s->lhs;
  ir_walk_expr(&tmp, trename_walk, &t);
  ir_walk_expr(s->rhs, trename_walk, &t);
}

int rw_parse_int_list(const char *s, int64_t *v, int max) {
  int n = 0;
  const char *p = s;
  if (!*p) return -1;
  for (;;) {
    if (*p < '0' || *p > '9') return -1;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (n >= max || end - p > 9) return -1;
    v[n++] = x;
    p = end;
    if (!*p) return n;
    if (*p != '.') return -1;
    p++;
  }
}

IrRef *rw_first_read(IrExpr *e, const char *name) {
  if (!e) return NULL;
  switch (e->kind) {
  case E_REF: return !strcmp(e->u.ref->name, name) ? e->u.ref : NULL;
  case E_UNARY: return rw_first_read(e->u.unary.a, name);
  case E_BINARY: {
    IrRef *r = rw_first_read(e->u.bin.a, name);
    return r ? r : rw_first_read(e->u.bin.b, name);
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) {
      IrRef *r = rw_first_read(e->u.cmp.operand[i], name);
      if (r) return r;
    }
    return NULL;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      IrRef *r = rw_first_read(e->u.call.args[i], name);
      if (r) return r;
    }
    return NULL;
  case E_PAREN: return rw_first_read(e->u.paren, name);
  default: return NULL;
  }
}
