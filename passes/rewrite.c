/* rewrite.c -- queries shared by the passes (rewrite.h): the text of
 * expressions, nests, mentions of names, and the REF rules (no_var, fresh
 * inputs, index bounds).  The constants and bounds are in rewrite_bounds.c,
 * the builders (accumulation, numbers, substitution, copy nests) in
 * rewrite_build.c (issue 39). */
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

IrStmt *rw_cand_stmt(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why) {
  IrNest *n = rw_cand_nest(pc, p, c, why);
  if (!n) return NULL;
  int64_t i;
  int r = pass_cand_get_int(c, "stmt", &i);
  if (r <= 0) {
    *why = r == 0 ? "missing parameter 'stmt'" : pass_reason(pc, "stmt=%s is not an integer", pass_cand_get(c, "stmt"));
    return NULL;
  }
  if (i < 0 || i >= n->nitems) {
    *why = pass_reason(pc, "nest %d has no statement %lld (it has %d, numbered from 0)", c->nest, (long long)i, n->nitems);
    return NULL;
  }
  IrStmt *s = n->items[i].u.stmt;
  c->site = s->loc;
  return s;
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
