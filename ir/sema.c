/* sema.c -- semantic analysis (SPEC §5-§10): binds index variables to loops
 * and references to tensors, applies declarations (header, sidecar) or infers
 * them (§8.2), infers shapes (§9.3), types every expression (§5.4), classifies
 * initialisation (§9.5) and runs the static checks of §10. */
#include "ir/sema.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ binding */

/* Tensors by name: an open-addressing hash table.  Binding looks up every
 * reference; a linear search made programs with many tensors quadratic
 * (20000 tensors took 20 s). */
typedef struct NameMap {
  IrTensor **slot;
  size_t cap, n; /* cap: a power of two, at least twice n */
} NameMap;

static size_t name_hash(const char *s) {
  size_t h = (size_t)14695981039346656037u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * (size_t)1099511628211u;
  return h;
}

static IrTensor *map_get(const NameMap *m, const char *name) {
  if (!m->cap) return NULL;
  for (size_t i = name_hash(name) & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
    if (!m->slot[i] || !strcmp(m->slot[i]->name, name)) return m->slot[i];
}

static void map_put(Arena *a, NameMap *m, IrTensor *t) {
  if (2 * (m->n + 1) > m->cap) {
    IrTensor **old = m->slot;
    size_t oldcap = m->cap;
    m->cap = m->cap ? 2 * m->cap : 64;
    m->slot = arena_alloc(a, sizeof *m->slot * m->cap);
    m->n = 0;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i]) map_put(a, m, old[i]);
  }
  size_t i = name_hash(t->name) & (m->cap - 1);
  while (m->slot[i]) i = (i + 1) & (m->cap - 1);
  m->slot[i] = t;
  m->n++;
}

typedef struct Binder {
  LeirCtx *ctx;
  IrProgram *p;
  IrLoop *scope[256];
  int64_t iters[256]; /* iterations of scope[0..i] together; -1 = overflowed */
  int nscope;
  PtrVec tensors;
  NameMap names;   /* the tensors, by name */
  PtrVec stmts;
  bool in_subscript;
} Binder;

static IrLoop *lookup_loop(Binder *b, const char *name) {
  for (int i = b->nscope - 1; i >= 0; i--)
    if (!strcmp(b->scope[i]->index, name)) return b->scope[i];
  return NULL;
}

static void add_tensor(Binder *b, IrTensor *t) {
  ptrvec_push(&b->ctx->arena, &b->tensors, t);
  map_put(&b->ctx->arena, &b->names, t);
}

static IrTensor *tensor_for(Binder *b, IrRef *r) {
  IrTensor *t = map_get(&b->names, r->name);
  if (t) return t;
  t = arena_alloc(&b->ctx->arena, sizeof *t);
  t->name = r->name;
  t->rank = -1;
  t->role = ROLE_TMP;
  t->dtype = DT_NONE;
  t->scope = SC_NONE;
  t->loc = r->loc;
  t->id = b->tensors.n;
  add_tensor(b, t);
  return t;
}

static void bind_expr(Binder *b, IrExpr *e);

static void bind_ref(Binder *b, IrRef *r) {
  IrTensor *t = tensor_for(b, r);
  r->tensor = t;
  if (t->rank < 0) {
    t->rank = r->nsub;
  } else if (t->rank != r->nsub) {
    if (t->declared)
      diag_error(b->ctx, r->loc, "'%s' is declared with rank %d but used here with %d subscript%s",
                 r->name, t->rank, r->nsub, r->nsub == 1 ? "" : "s");
    else
      diag_error(b->ctx, r->loc, "'%s' is used with rank %d here but with rank %d at %d:%d", r->name,
                 r->nsub, t->rank, t->loc.line, t->loc.col);
  }
  bool saved = b->in_subscript;
  b->in_subscript = true;
  for (int i = 0; i < r->nsub; i++) bind_expr(b, r->sub[i]);
  b->in_subscript = saved;
}

/* Subscripts hold integer index expressions only (§6.2). */
static void subscript_check(Binder *b, IrExpr *e) {
  const char *what = NULL;
  switch (e->kind) {
  case E_FLOAT: what = "a floating-point literal"; break;
  case E_INF: what = "'inf'"; break;
  case E_CALL: what = "a function call"; break;
  case E_CMP: what = "a comparison"; break;
  case E_BINARY:
    if (e->u.bin.op == OP_DIV) what = "'/' (use '//')";
    else if (e->u.bin.op == OP_POW) what = "'**'";
    else if (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR) what = "a logical operator";
    break;
  default: break;
  }
  if (what) diag_error(b->ctx, e->loc, "%s is not allowed in a subscript", what);
}

static void bind_expr(Binder *b, IrExpr *e) {
  if (!e) return;
  if (b->in_subscript) subscript_check(b, e);
  switch (e->kind) {
  case E_INDEX:
    e->u.index.loop = lookup_loop(b, e->u.index.name);
    if (!e->u.index.loop) diag_error(b->ctx, e->loc, "index '%s' is not bound by an enclosing loop", e->u.index.name);
    break;
  case E_REF: bind_ref(b, e->u.ref); break;
  case E_UNARY: bind_expr(b, e->u.unary.a); break;
  case E_BINARY:
    bind_expr(b, e->u.bin.a);
    bind_expr(b, e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) bind_expr(b, e->u.cmp.operand[i]);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) bind_expr(b, e->u.call.args[i]);
    break;
  case E_PAREN: bind_expr(b, e->u.paren); break;
  default: break;
  }
}

/* The iteration count of a loop chain must fit in int64 (whoever counts
 * iterations -- the interpreter's step limit, a back end's flattened index
 * -- relies on it).  Reported once per chain, at the loop that overflows. */
static void count_iterations(Binder *b, const IrLoop *l) {
  int64_t outer = b->nscope ? b->iters[b->nscope - 1] : 1;
  int64_t it = -1;
  if (outer >= 0 && __builtin_mul_overflow(outer, l->extent, &it)) {
    diag_error(b->ctx, l->loc,
               "loop nest runs more than %lld iterations (the product of the loop extents overflows)",
               (long long)INT64_MAX);
    it = -1;
  }
  b->iters[b->nscope] = it;
}

static void bind_nest(Binder *b, IrNest *n) {
  int saved = b->nscope;
  for (int i = 0; i < n->nloops; i++) {
    IrLoop *l = n->loops[i];
    IrLoop *prev = lookup_loop(b, l->index);
    if (prev) {
      bool outer = false;
      for (int k = 0; k < saved; k++) outer |= b->scope[k] == prev;
      if (outer)
        diag_error(b->ctx, l->index_loc, "index '%s' redeclares the index of an enclosing loop", l->index);
      else
        diag_error(b->ctx, l->index_loc, "duplicate index '%s' in this nest", l->index);
    }
    if (l->kind == LOOP_B) l->hw = ir_hw_axis_of_index(l->index);
    if (b->nscope == 256) {
      diag_error(b->ctx, l->loc, "loops nested too deeply (at most 256)");
      b->nscope = saved;
      return;
    }
    count_iterations(b, l);
    b->scope[b->nscope++] = l;
  }
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) {
      n->items[k].u.nest->nested = true;
      bind_nest(b, n->items[k].u.nest);
      continue;
    }
    IrStmt *s = n->items[k].u.stmt;
    s->id = b->stmts.n;
    ptrvec_push(&b->ctx->arena, &b->stmts, s);
    bind_expr(b, s->rhs);
    bind_ref(b, s->lhs);
  }
  b->nscope = saved;
}

/* ------------------------------------------------------------ declarations */

static IrTensor *declare(Binder *b, const IrDecl *d, bool override) {
  IrTensor *t = map_get(&b->names, d->name);
  if (t && !override) {
    diag_error(b->ctx, d->loc, "'%s' is declared twice", d->name);
    return t;
  }
  if (!t) {
    t = arena_alloc(&b->ctx->arena, sizeof *t);
    t->name = arena_strdup(&b->ctx->arena, d->name);
    t->id = b->tensors.n;
    t->loc = d->loc;
    add_tensor(b, t);
  }
  t->role = d->role;
  t->dtype = d->dtype;
  t->scope = SC_G;
  t->rank = d->rank;
  t->shape = d->shape;
  t->shape_known = true;
  t->declared = true;
  t->decl_loc = d->loc;
  return t;
}

/* ------------------------------------------------------------ roles */

typedef struct Usage {
  IrStmt *first_write, *last_write;
  int first_read_stmt;   /* -1 = never read (outside its own statements) */
  int last_read_stmt;
  int first_seen;        /* statement id of the first occurrence */
  bool read_before_write;
  const IrRef *first_read;
} Usage;

typedef struct UseCtx {
  Usage *u;
  IrStmt *s;
  const IrTensor *self;
} UseCtx;

static void note_read(IrExpr *e, void *user) {
  UseCtx *uc = user;
  if (e->kind != E_REF || !e->u.ref->tensor) return;
  IrTensor *t = e->u.ref->tensor;
  Usage *u = &uc->u[t->id];
  if (t == uc->self) return; /* a self-reference is part of the update */
  if (u->first_read_stmt < 0) {
    u->first_read_stmt = uc->s->id;
    u->first_read = e->u.ref;
  }
  u->last_read_stmt = uc->s->id;
  if (!u->first_write) u->read_before_write = true;
}

static Usage *compute_usage(LeirCtx *ctx, IrProgram *p) {
  Usage *u = arena_alloc(&ctx->arena, sizeof(Usage) * (size_t)(p->ntensors ? p->ntensors : 1));
  for (int i = 0; i < p->ntensors; i++) u[i].first_read_stmt = u[i].last_read_stmt = -1;
  for (int i = 0; i < p->nstmts; i++) {
    IrStmt *s = p->stmts[i];
    UseCtx uc = {u, s, s->lhs->tensor};
    ir_walk_expr(s->rhs, note_read, &uc);
    for (int k = 0; k < s->lhs->nsub; k++) ir_walk_expr(s->lhs->sub[k], note_read, &uc);
    Usage *w = &u[s->lhs->tensor->id];
    if (!w->first_write) w->first_write = s;
    w->last_write = s;
  }
  return u;
}

/* Nest (top-level index) that contains statement id `sid`: the last k with
 * first_ids[k] <= sid (first_ids ascends; binary search). */
static int nest_of_stmt(const IrProgram *p, int sid, int *first_ids) {
  int lo = 0, hi = p->nnests - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (first_ids[mid] <= sid) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Outputs ordered by their first write (statement ids are distinct). */
typedef struct ByWrite {
  int first_write;
  IrTensor *t;
} ByWrite;

static int by_write(const void *x, const void *y) {
  int a = ((const ByWrite *)x)->first_write, b = ((const ByWrite *)y)->first_write;
  return (a > b) - (a < b);
}

static void count_stmts(IrNest *n, int *c) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_STMT) (*c)++;
    else count_stmts(n->items[k].u.nest, c);
  }
}

/* §8.2 (no declarations): inputs = read before any write, in order of first
 * appearance; outputs = written and not read after the last nest writing
 * them, in order of first write; the rest are intermediates. */
static void infer_roles(LeirCtx *ctx, IrProgram *p, Usage *u) {
  int *first_ids = arena_alloc(&ctx->arena, sizeof(int) * (size_t)p->nnests);
  for (int i = 0, c = 0; i < p->nnests; i++) {
    first_ids[i] = c;
    count_stmts(p->nests[i], &c);
  }
  PtrVec ins = {0}, outs = {0}, tmps = {0};
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    Usage *x = &u[i];
    if (!x->first_write) {
      t->role = ROLE_IN;
      ptrvec_push(&ctx->arena, &ins, t);
      continue;
    }
    if (x->read_before_write) {
      diag_error(ctx, x->first_read->loc,
                 "'%s' is read before it is written and also written later; declare the program's "
                 "inputs and outputs with a %%-header or --decls", t->name);
    }
    int last_nest = nest_of_stmt(p, x->last_write->id, first_ids);
    bool read_after = x->last_read_stmt >= 0 && nest_of_stmt(p, x->last_read_stmt, first_ids) > last_nest;
    t->role = read_after ? ROLE_TMP : ROLE_OUT;
    ptrvec_push(&ctx->arena, read_after ? &tmps : &outs, t);
  }
  if (outs.n == 0) diag_error(ctx, (IrLoc){0, 0}, "cannot infer an output: every written tensor is read later");
  /* inputs in order of first appearance (already their id order), then
     outputs in order of first write, then intermediates */
  int k = 0;
  for (int i = 0; i < ins.n; i++) p->tensors[k++] = ins.v[i];
  ByWrite *ow = arena_alloc(&ctx->arena, sizeof *ow * (size_t)(outs.n ? outs.n : 1));
  for (int i = 0; i < outs.n; i++) {
    ow[i].t = outs.v[i];
    ow[i].first_write = u[ow[i].t->id].first_write->id;
  }
  qsort(ow, (size_t)outs.n, sizeof *ow, by_write);
  for (int i = 0; i < outs.n; i++) p->tensors[k++] = ow[i].t;
  for (int i = 0; i < tmps.n; i++) p->tensors[k++] = tmps.v[i];
  for (int i = 0; i < p->ntensors; i++) p->tensors[i]->id = i;
  p->decls_inferred = true;
}

/* With declarations: checks of §8.2 and the treatment of undeclared tensors. */
static void check_declared_roles(LeirCtx *ctx, IrProgram *p, Usage *u) {
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    Usage *x = &u[t->id];
    if (t->declared && (t->role == ROLE_IN || t->role == ROLE_PARAM)) {
      if (x->first_write)
        diag_error(ctx, x->first_write->lhs->loc, "statement writes '%s', which is declared as %s",
                   t->name, t->role == ROLE_IN ? "an input" : "a parameter");
      else if (x->first_read_stmt < 0)
        diag_warn(ctx, t->decl_loc, "'%s' is declared but never read", t->name);
    } else if (t->declared && t->role == ROLE_OUT) {
      if (!x->first_write) diag_error(ctx, t->decl_loc, "output '%s' is never written", t->name);
    } else if (!t->declared && !x->first_write) {
      diag_warn(ctx, t->loc, "'%s' is read but never written nor declared; treating it as an input",
                t->name);
      t->role = ROLE_IN;
    }
  }
}

/* ------------------------------------------------------------ dtypes */

typedef struct TagCk {
  LeirCtx *ctx;
  bool *warned;
} TagCk;

static void check_tags(IrExpr *e, void *user) {
  TagCk *tc = user;
  if (e->kind != E_REF || !e->u.ref->tensor) return;
  IrRef *r = e->u.ref;
  IrTensor *t = r->tensor;
  if (r->dt_tag != t->dtype && !tc->warned[t->id]) {
    tc->warned[t->id] = true;
    diag_warn(tc->ctx, r->loc, "'%s' is tagged %s here but is %s %s; using %s", t->name,
              ir_dtype_name(r->dt_tag), t->declared ? "declared" : "first written as",
              ir_dtype_name(t->dtype), ir_dtype_name(t->dtype));
  }
}

static void assign_dtypes(LeirCtx *ctx, IrProgram *p, Usage *u) {
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    if (t->declared) continue;
    const IrRef *r = u[i].first_write ? u[i].first_write->lhs : u[i].first_read;
    if (!r) continue;
    t->dtype = r->dt_tag;
    t->scope = (t->role == ROLE_TMP) ? r->sc_tag : SC_G;
  }
  bool *warned = arena_alloc(&ctx->arena, (size_t)(p->ntensors ? p->ntensors : 1));
  TagCk tc = {ctx, warned};
  for (int i = 0; i < p->nstmts; i++) {
    IrExpr tmp = {.kind = E_REF};
    tmp.u.ref = p->stmts[i]->lhs;
    ir_walk_expr(&tmp, check_tags, &tc);
    ir_walk_expr(p->stmts[i]->rhs, check_tags, &tc);
  }
}

/* ------------------------------------------------------------ expression types */

/* Types every node: `st` is the statement type; `cond` is set inside the
 * condition of an if_then_else (index values and integer literals are
 * integers there: `a-1<0` in a u64 statement must not wrap, `a<2049` in an
 * f16 one must not round); `sub` inside subscripts (everything is i64). */
static void type_expr(IrExpr *e, IrDType st, bool cond, bool sub) {
  switch (e->kind) {
  case E_INT: e->type = (sub || cond) ? DT_I64 : st; break;
  case E_FLOAT: case E_INF: e->type = st; break;
  case E_INDEX: e->type = (sub || cond) ? DT_I64 : st; break;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) type_expr(e->u.ref->sub[i], st, false, true);
    e->type = e->u.ref->tensor ? e->u.ref->tensor->dtype : st;
    if (sub) e->type = DT_I64;
    break;
  case E_PAREN:
    type_expr(e->u.paren, st, cond, sub);
    e->type = e->u.paren->type;
    break;
  case E_UNARY:
    type_expr(e->u.unary.a, st, cond, sub);
    e->type = sub ? DT_I64 : ir_dtype_promote(e->u.unary.a->type);
    break;
  case E_BINARY:
    type_expr(e->u.bin.a, st, cond, sub);
    type_expr(e->u.bin.b, st, cond, sub);
    if (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR)
      e->type = DT_BOOL;
    else
      e->type = sub ? DT_I64 : ir_dtype_usual(e->u.bin.a->type, e->u.bin.b->type);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) type_expr(e->u.cmp.operand[i], st, cond, sub);
    e->type = DT_BOOL;
    break;
  case E_CALL:
    if (e->u.call.func == F_ITE) {
      type_expr(e->u.call.args[0], st, true, sub);
      type_expr(e->u.call.args[1], st, cond, sub);
      type_expr(e->u.call.args[2], st, cond, sub);
      e->type = ir_dtype_usual(e->u.call.args[1]->type, e->u.call.args[2]->type);
    } else {
      IrDType t = DT_NONE;
      for (int i = 0; i < e->u.call.nargs; i++) {
        type_expr(e->u.call.args[i], st, cond, sub);
        t = i ? ir_dtype_usual(t, e->u.call.args[i]->type) : e->u.call.args[i]->type;
      }
      /* exp/log/sqrt/erf of an integer compute in the statement's float
         type when it is one, else in f64 */
      IrFunc f = e->u.call.func;
      if ((f == F_EXP || f == F_LOG || f == F_SQRT || f == F_ERF) && !ir_dtype_is_float(t))
        t = ir_dtype_is_float(st) ? st : DT_F64;
      e->type = (f == F_ABS) ? ir_dtype_promote(t) : t;
    }
    break;
  }
}

/* A subscript may read only integer tensors. */
static void check_index_reads(LeirCtx *ctx, IrRef *r) {
  for (int i = 0; i < r->nsub; i++) {
    IrExpr *e = r->sub[i];
    PtrVec stack = {0};
    ptrvec_push(&ctx->arena, &stack, e);
    while (stack.n) {
      IrExpr *x = stack.v[--stack.n];
      if (x->kind == E_REF) {
        IrTensor *t = x->u.ref->tensor;
        if (t && t->dtype != DT_NONE && ir_dtype_is_float(t->dtype))
          diag_error(ctx, x->loc, "subscript reads '%s', which is %s, not an integer tensor", t->name,
                     ir_dtype_name(t->dtype));
        check_index_reads(ctx, x->u.ref);
      } else if (x->kind == E_BINARY) {
        ptrvec_push(&ctx->arena, &stack, x->u.bin.a);
        ptrvec_push(&ctx->arena, &stack, x->u.bin.b);
      } else if (x->kind == E_UNARY) {
        ptrvec_push(&ctx->arena, &stack, x->u.unary.a);
      } else if (x->kind == E_PAREN) {
        ptrvec_push(&ctx->arena, &stack, x->u.paren);
      }
    }
  }
}

/* ------------------------------------------------------------ checks after shapes */

static void check_output_extents(SemaCtx *sc) {
  IrProgram *p = sc->p;
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    if (!t->declared || t->role != ROLE_OUT || !sc->writers[i].n) continue;
    for (int d = 0; d < t->rank; d++) {
      int64_t hi = -1;
      bool exact = true;
      for (int w = 0; w < sc->writers[i].n; w++) {
        IrRef *r = ((IrStmt *)sc->writers[i].v[w])->lhs;
        bool ovf = false;
        Interval x = sema_interval(sc, r->sub[d], &ovf);
        if (!x.ok) { exact = false; break; }
        exact &= x.exact;
        if (x.hi > hi) hi = x.hi;
      }
      if (exact && hi < t->shape[d] - 1) /* hi + 1 might overflow */
        diag_error(sc->ctx, t->decl_loc,
                   "output '%s' is declared with extent %lld in dimension %d, but its writes cover only %lld",
                   t->name, (long long)t->shape[d], d + 1, (long long)hi + 1);
    }
  }
}

/* Every tensor, declared or inferred, has at most IR_MAX_NUMEL elements. */
static void check_sizes(LeirCtx *ctx, IrProgram *p) {
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    if (!t->shape_known) continue;
    int64_t n = ir_tensor_numel(t);
    if (n <= IR_MAX_NUMEL) continue;
    IrLoc loc = t->declared && t->decl_loc.line ? t->decl_loc : t->loc;
    if (n == INT64_MAX)
      diag_error(ctx, loc, "tensor '%s' has more than %lld elements; at most %lld are supported", t->name,
                 (long long)INT64_MAX, (long long)IR_MAX_NUMEL);
    else
      diag_error(ctx, loc, "tensor '%s' has %lld elements; at most %lld are supported", t->name,
                 (long long)n, (long long)IR_MAX_NUMEL);
  }
}

/* ------------------------------------------------------------ driver */

static bool analyse(LeirCtx *ctx, IrProgram *p, const IrDeclList *side, bool keep_roles) {
  int errors = ctx->nerrors;
  Binder b = {.ctx = ctx, .p = p};
  if (keep_roles) {
    for (int i = 0; i < p->ntensors; i++) {
      IrTensor *t = p->tensors[i];
      t->id = b.tensors.n;
      if (!t->declared && t->role != ROLE_TMP) t->declared = true; /* arguments keep their shapes */
      if (!t->declared) {
        t->rank = -1;
        t->shape_known = false;
        t->dtype = DT_NONE;
        t->role = ROLE_TMP;
        continue; /* re-created on first use */
      }
      add_tensor(&b, t);
    }
    for (int i = 0; i < b.tensors.n; i++) ((IrTensor *)b.tensors.v[i])->id = i;
  } else {
    for (int i = 0; i < p->header.n; i++) declare(&b, &p->header.d[i], false);
    if (side)
      for (int i = 0; i < side->n; i++) declare(&b, &side->d[i], true);
    p->has_sidecar = side != NULL;
  }
  int ndeclared = b.tensors.n;
  for (int i = 0; i < p->nnests; i++) bind_nest(&b, p->nests[i]);
  p->ntensors = b.tensors.n;
  p->tensors = (IrTensor **)b.tensors.v;
  p->nstmts = b.stmts.n;
  p->stmts = (IrStmt **)b.stmts.v;
  if (ctx->nerrors > errors) return false;

  Usage *u = compute_usage(ctx, p);
  bool had_outputs_declared = false;
  for (int i = 0; i < ndeclared; i++) had_outputs_declared |= p->tensors[i]->role == ROLE_OUT;
  if (ndeclared == 0 && !keep_roles)
    infer_roles(ctx, p, u);
  else {
    if (!had_outputs_declared && !keep_roles)
      diag_error(ctx, (IrLoc){0, 0}, "the declarations name no output (%%out)");
    check_declared_roles(ctx, p, u);
  }
  if (ctx->nerrors > errors) return false;
  u = compute_usage(ctx, p); /* ids may have moved */
  assign_dtypes(ctx, p, u);
  for (int i = 0; i < p->nstmts; i++) {
    IrStmt *s = p->stmts[i];
    IrDType st = s->lhs->tensor->dtype;
    type_expr(s->rhs, st, false, false);
    for (int k = 0; k < s->lhs->nsub; k++) type_expr(s->lhs->sub[k], st, false, true);
    check_index_reads(ctx, s->lhs);
    PtrVec stack = {0};
    ptrvec_push(&ctx->arena, &stack, s->rhs);
    /* refs on the right side: check their subscripts' reads */
    while (stack.n) {
      IrExpr *x = stack.v[--stack.n];
      switch (x->kind) {
      case E_REF: check_index_reads(ctx, x->u.ref); break;
      case E_UNARY: ptrvec_push(&ctx->arena, &stack, x->u.unary.a); break;
      case E_BINARY:
        ptrvec_push(&ctx->arena, &stack, x->u.bin.a);
        ptrvec_push(&ctx->arena, &stack, x->u.bin.b);
        break;
      case E_PAREN: ptrvec_push(&ctx->arena, &stack, x->u.paren); break;
      case E_CMP:
        for (int k = 0; k < x->u.cmp.n; k++) ptrvec_push(&ctx->arena, &stack, x->u.cmp.operand[k]);
        break;
      case E_CALL:
        for (int k = 0; k < x->u.call.nargs; k++) ptrvec_push(&ctx->arena, &stack, x->u.call.args[k]);
        break;
      default: break;
      }
    }
  }
  if (ctx->nerrors > errors) return false;

  sema_classify_init(ctx, p);
  SemaCtx sc = {.ctx = ctx, .p = p};
  sc.budget.max = SEMA_MAX_RECURSION;
  sc.writers = arena_alloc(&ctx->arena, sizeof(PtrVec) * (size_t)(p->ntensors ? p->ntensors : 1));
  sc.visiting = arena_alloc(&ctx->arena, sizeof(int) * (size_t)(p->ntensors ? p->ntensors : 1));
  sc.tvalue = arena_alloc(&ctx->arena, sizeof(IrValue) * (size_t)(p->ntensors ? p->ntensors : 1));
  for (int i = 0; i < p->nstmts; i++)
    ptrvec_push(&ctx->arena, &sc.writers[p->stmts[i]->lhs->tensor->id], p->stmts[i]);
  sema_infer_shapes(&sc);
  check_sizes(ctx, p);
  if (ctx->nerrors > errors) return false;
  check_output_extents(&sc);
  sema_check_ranges(&sc);
  return ctx->nerrors == errors;
}

bool ir_sema(LeirCtx *ctx, IrProgram *p, const IrDeclList *side) { return analyse(ctx, p, side, false); }

bool ir_resema(LeirCtx *ctx, IrProgram *p) { return analyse(ctx, p, NULL, true); }
