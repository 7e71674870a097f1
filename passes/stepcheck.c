/* stepcheck.c -- is a program text one legal step of a strategy?  (see
 * stepcheck.h) */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include "passes/stepcheck.h"

#include "interp/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *step_verdict_name(StepVerdict v) {
  static const char *const n[] = {"legal",   "equivalent", "not equivalent", "does not parse",
                                  "invalid", "unchanged",  "not run"};
  return v >= STEP_LEGAL && v <= STEP_NOT_RUN ? n[v] : "?";
}

/* ------------------------------------------------------------ canonical text */

/* The canonical printer: every operator node fully parenthesised, written
 * parentheses dropped, literals by value, loop extents by value, the
 * continuation mark ignored; names BASE does not have renamed in order of
 * first appearance.  `marks` remembers where each node with a location
 * starts, to map a position of the text back to the source. */
typedef struct Canon {
  LeirCtx *ctx;
  const IrProgram *base;
  PtrVec base_idx;           /* const char*: BASE's loop indices */
  PtrVec fresh_t, fresh_i;   /* const char*: renamed names, in order */
  SBuf b;
  size_t *off;               /* marks: text offset -> location */
  IrLoc *loc;
  int nmarks, capmarks;
  bool skel;                 /* headers and written tensors only */
} Canon;

static void mark(Canon *c, IrLoc l) {
  if (l.line <= 0) return;
  if (c->nmarks == c->capmarks) {
    int cap = c->capmarks ? 2 * c->capmarks : 64;
    size_t *o = arena_alloc(&c->ctx->arena, (size_t)cap * sizeof *o);
    IrLoc *lc = arena_alloc(&c->ctx->arena, (size_t)cap * sizeof *lc);
    if (c->nmarks) {
      memcpy(o, c->off, (size_t)c->nmarks * sizeof *o);
      memcpy(lc, c->loc, (size_t)c->nmarks * sizeof *lc);
    }
    c->off = o;
    c->loc = lc;
    c->capmarks = cap;
  }
  c->off[c->nmarks] = c->b.len;
  c->loc[c->nmarks++] = l;
}

static int find_name(const PtrVec *v, const char *name) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->v[i], name)) return i;
  return -1;
}

static void put_fresh(Canon *c, PtrVec *v, const char *prefix, const char *name) {
  int k = find_name(v, name);
  if (k < 0) {
    ptrvec_push(&c->ctx->arena, v, (void *)name);
    k = v->n - 1;
  }
  sbuf_printf(&c->b, "#%s%d", prefix, k + 1);
}

static void put_tensor(Canon *c, const char *name) {
  if (ir_find_tensor(c->base, name)) sbuf_puts(&c->b, name);
  else put_fresh(c, &c->fresh_t, "T", name);
}

static void put_index(Canon *c, const char *name) {
  if (find_name(&c->base_idx, name) >= 0) sbuf_puts(&c->b, name);
  else put_fresh(c, &c->fresh_i, "i", name);
}

static void collect_indices(LeirCtx *ctx, const IrNest *n, PtrVec *out) {
  for (int i = 0; i < n->nloops; i++)
    if (find_name(out, n->loops[i]->index) < 0) ptrvec_push(&ctx->arena, out, (void *)n->loops[i]->index);
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) collect_indices(ctx, n->items[i].u.nest, out);
}

static void cn_expr(Canon *c, const IrExpr *e);

static void cn_ref(Canon *c, const IrRef *r) {
  mark(c, r->loc);
  put_tensor(c, r->name);
  /* scope tags on program inputs, params and outputs are ignored (SPEC
     §6.1: those buffers are global arguments); the reference's
     operator_fusion tags an output it fuses `l` or `s` */
  const IrTensor *known = ir_find_tensor(c->base, r->name);
  IrScope sc = known && known->role != ROLE_TMP ? SC_G : r->sc_tag;
  sbuf_printf(&c->b, "^{%s,%s}", ir_dtype_name(r->dt_tag), ir_scope_name(sc));
  if (!r->nsub) return;
  sbuf_puts(&c->b, "_{");
  for (int i = 0; i < r->nsub; i++) {
    if (i) sbuf_putc(&c->b, ',');
    cn_expr(c, r->sub[i]);
  }
  sbuf_putc(&c->b, '}');
}

static void cn_number(Canon *c, double v, bool neg) {
  char num[64];
  ir_format_double(num, sizeof num, neg ? -v : v);
  sbuf_puts(&c->b, num);
}

static void cn_expr(Canon *c, const IrExpr *e) {
  e = ir_expr_unparen(e);
  mark(c, e->loc);
  switch (e->kind) {
  case E_INT: sbuf_printf(&c->b, "%lld", (long long)e->u.ilit.value); break;
  case E_FLOAT: cn_number(c, e->u.flit.value, false); break;
  case E_INF: sbuf_puts(&c->b, "inf"); break;
  case E_INDEX: put_index(c, e->u.index.name); break;
  case E_REF: cn_ref(c, e->u.ref); break;
  case E_UNARY: {
    const IrExpr *a = ir_expr_unparen(e->u.unary.a);
    if (e->u.unary.op == OP_NEG && a->kind == E_INT) {
      sbuf_printf(&c->b, "%lld", -(long long)a->u.ilit.value);
    } else if (e->u.unary.op == OP_NEG && a->kind == E_FLOAT) {
      cn_number(c, a->u.flit.value, true);
    } else {
      sbuf_printf(&c->b, "(%s", ir_op_text(e->u.unary.op));
      cn_expr(c, a);
      sbuf_putc(&c->b, ')');
    }
    break;
  }
  case E_BINARY:
    sbuf_putc(&c->b, '(');
    cn_expr(c, e->u.bin.a);
    sbuf_puts(&c->b, ir_op_text(e->u.bin.op));
    cn_expr(c, e->u.bin.b);
    sbuf_putc(&c->b, ')');
    break;
  case E_CMP:
    sbuf_putc(&c->b, '(');
    for (int i = 0; i < e->u.cmp.n; i++) {
      if (i) sbuf_puts(&c->b, ir_op_text(e->u.cmp.op[i - 1]));
      cn_expr(c, e->u.cmp.operand[i]);
    }
    sbuf_putc(&c->b, ')');
    break;
  case E_CALL:
    sbuf_printf(&c->b, "%s(", ir_func_name(e->u.call.func));
    for (int i = 0; i < e->u.call.nargs; i++) {
      if (i) sbuf_putc(&c->b, ',');
      cn_expr(c, e->u.call.args[i]);
    }
    sbuf_putc(&c->b, ')');
    break;
  case E_PAREN: break;
  }
}

static void cn_nest(Canon *c, const IrNest *n) {
  mark(c, n->loc);
  for (int i = 0; i < n->nloops; i++) {
    const IrLoop *l = n->loops[i];
    mark(c, l->loc);
    sbuf_printf(&c->b, "%c^{%lld}_{", ir_loop_kind_char(l->kind), (long long)l->extent);
    put_index(c, l->index);
    sbuf_putc(&c->b, '}');
  }
  sbuf_putc(&c->b, '[');
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      cn_nest(c, n->items[i].u.nest);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    if (c->skel) {
      put_tensor(c, s->lhs->name);
      sbuf_putc(&c->b, ';');
      continue;
    }
    mark(c, s->loc);
    cn_ref(c, s->lhs);
    sbuf_putc(&c->b, '=');
    cn_expr(c, s->rhs);
    sbuf_putc(&c->b, ';');
  }
  sbuf_puts(&c->b, "];");
}

static void canon_init(Canon *c, LeirCtx *ctx, const IrProgram *base) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->base = base;
  for (int i = 0; i < base->nnests; i++) collect_indices(ctx, base->nests[i], &c->base_idx);
}

/* Prints p into c->b (cleared first; the renaming starts afresh). */
static void canon_print(Canon *c, const IrProgram *p) {
  c->b.len = 0;
  if (c->b.s) c->b.s[0] = 0;
  c->fresh_t.n = c->fresh_i.n = 0;
  c->nmarks = 0;
  for (int i = 0; i < p->nnests; i++) cn_nest(c, p->nests[i]);
  if (!c->b.s) sbuf_puts(&c->b, "");
}

const char *step_canonical(LeirCtx *ctx, const IrProgram *base, const IrProgram *p) {
  Canon c;
  canon_init(&c, ctx, base);
  canon_print(&c, p);
  const char *s = arena_strdup(&ctx->arena, c.b.s);
  sbuf_free(&c.b);
  return s;
}

/* ------------------------------------------------------------ exact respelling */

/* The reference writes many results as sympy prints them: the operands of
 * + and * in another order, `a-b` as `-b+a`, `-a*b` for `-(a*b)`, a
 * factor or divisor 1 added or dropped (`Q/1`, `1*(H+1)`), `E+E` as `2*E`,
 * `1.0` as `1`, `max(1e-8,x)` for `max(x,1e-8)`.  On floating-point
 * values each of these identities is exact in IEEE arithmetic
 * (commutativity of one operation or of a two-argument max/min, negation,
 * x*1 = x/1 = x, x+x = 2*x, an integer literal below 2^24 and its float):
 * respell() rewrites a clone of a program into one fixed spelling of them,
 * so that two programs that differ only so compute bit-identical values.
 * Nothing is re-associated (a+(b+c) stays), and integer operations are
 * left alone (their division and overflow do not commute with negation). */

static bool rs_float(const IrExpr *e) { return ir_dtype_is_float(e->type); }

static bool rs_one(const IrExpr *e) {
  e = ir_expr_unparen(e);
  return (e->kind == E_INT && e->u.ilit.value == 1) || (e->kind == E_FLOAT && e->u.flit.value == 1.0);
}

/* A key that orders operands: their text with literals by value and the
 * superscripts left out. */
static void rs_key(SBuf *b, const IrExpr *e) {
  e = ir_expr_unparen(e);
  char num[64];
  switch (e->kind) {
  case E_INT: sbuf_printf(b, "%lld", (long long)e->u.ilit.value); break;
  case E_FLOAT:
    ir_format_double(num, sizeof num, e->u.flit.value);
    sbuf_puts(b, num);
    break;
  case E_INF: sbuf_puts(b, "inf"); break;
  case E_INDEX: sbuf_puts(b, e->u.index.name); break;
  case E_REF:
    sbuf_puts(b, e->u.ref->name);
    sbuf_putc(b, '{');
    for (int i = 0; i < e->u.ref->nsub; i++) {
      if (i) sbuf_putc(b, ',');
      rs_key(b, e->u.ref->sub[i]);
    }
    sbuf_putc(b, '}');
    break;
  case E_UNARY:
    sbuf_printf(b, "(%s", ir_op_text(e->u.unary.op));
    rs_key(b, e->u.unary.a);
    sbuf_putc(b, ')');
    break;
  case E_BINARY:
    sbuf_putc(b, '(');
    rs_key(b, e->u.bin.a);
    sbuf_puts(b, ir_op_text(e->u.bin.op));
    rs_key(b, e->u.bin.b);
    sbuf_putc(b, ')');
    break;
  case E_CMP:
    sbuf_putc(b, '(');
    for (int i = 0; i < e->u.cmp.n; i++) {
      if (i) sbuf_puts(b, ir_op_text(e->u.cmp.op[i - 1]));
      rs_key(b, e->u.cmp.operand[i]);
    }
    sbuf_putc(b, ')');
    break;
  case E_CALL:
    sbuf_printf(b, "%s(", ir_func_name(e->u.call.func));
    for (int i = 0; i < e->u.call.nargs; i++) {
      if (i) sbuf_putc(b, ',');
      rs_key(b, e->u.call.args[i]);
    }
    sbuf_putc(b, ')');
    break;
  case E_PAREN: break;
  }
}

static int rs_cmp(const IrExpr *a, const IrExpr *b) {
  SBuf x = {0}, y = {0};
  rs_key(&x, a);
  rs_key(&y, b);
  int r = strcmp(x.s ? x.s : "", y.s ? y.s : "");
  sbuf_free(&x);
  sbuf_free(&y);
  return r;
}

/* -x with x's type (a float negation), or x when it is one already (--y = y). */
static IrExpr *rs_neg(LeirCtx *ctx, IrExpr *x) {
  if (x->kind == E_UNARY && x->u.unary.op == OP_NEG) return x->u.unary.a;
  IrExpr *n = ir_unary(ctx, OP_NEG, x);
  n->type = x->type;
  return n;
}

static bool rs_is_neg(const IrExpr *e) { return e->kind == E_UNARY && e->u.unary.op == OP_NEG && rs_float(e->u.unary.a); }

static IrExpr *rs_expr(LeirCtx *ctx, IrExpr *e) {
  e = ir_expr_unparen_mut(e);
  switch (e->kind) {
  case E_INT: /* 2 and 2.0 in a float statement: the same value */
    if (rs_float(e) && e->u.ilit.value >= -(1 << 24) && e->u.ilit.value <= (1 << 24)) {
      IrExpr *f = ir_float(ctx, (double)e->u.ilit.value);
      f->type = e->type;
      return f;
    }
    return e;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) e->u.ref->sub[i] = rs_expr(ctx, e->u.ref->sub[i]);
    return e;
  case E_UNARY: {
    e->u.unary.a = rs_expr(ctx, e->u.unary.a);
    IrExpr *a = e->u.unary.a;
    if (e->u.unary.op == OP_NEG && rs_float(e) && rs_is_neg(a) && a->type == e->type) return a->u.unary.a;
    if (e->u.unary.op == OP_POS && rs_float(e) && a->type == e->type) return a;
    return e;
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) e->u.cmp.operand[i] = rs_expr(ctx, e->u.cmp.operand[i]);
    return e;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) e->u.call.args[i] = rs_expr(ctx, e->u.call.args[i]);
    /* max and min of two values of one type commute (interp/ops.h: NaN
       and signed zeros handled alike in either order) */
    if ((e->u.call.func == F_MAX || e->u.call.func == F_MIN) && e->u.call.nargs == 2 &&
        e->u.call.args[0]->type == e->u.call.args[1]->type && rs_cmp(e->u.call.args[0], e->u.call.args[1]) > 0) {
      IrExpr *t = e->u.call.args[0];
      e->u.call.args[0] = e->u.call.args[1];
      e->u.call.args[1] = t;
    }
    return e;
  case E_BINARY: break;
  default: return e;
  }
  IrExpr *a = rs_expr(ctx, e->u.bin.a), *b = rs_expr(ctx, e->u.bin.b);
  e->u.bin.a = a;
  e->u.bin.b = b;
  IrOp op = e->u.bin.op;
  bool fl = rs_float(e) && rs_float(a) && rs_float(b) && a->type == e->type && b->type == e->type;
  if (!fl) return e;
  if (op == OP_SUB) { /* a-b = a+(-b) */
    e->u.bin.op = op = OP_ADD;
    e->u.bin.b = b = rs_neg(ctx, b);
  }
  if ((op == OP_MUL || op == OP_DIV) && rs_one(b)) return a; /* a*1 = a/1 = a */
  if (op == OP_MUL && rs_one(a)) return b;
  if (op == OP_MUL || op == OP_DIV) { /* (-a)*b = a*(-b) = -(a*b), the same for / */
    bool na = rs_is_neg(a), nb = rs_is_neg(b);
    if (na) e->u.bin.a = a = a->u.unary.a;
    if (nb) e->u.bin.b = b = b->u.unary.a;
    if (op == OP_MUL && rs_cmp(a, b) > 0) {
      e->u.bin.a = b;
      e->u.bin.b = a;
    }
    return na != nb ? rs_neg(ctx, e) : e;
  }
  if (op == OP_ADD && !rs_cmp(a, b)) { /* x+x = 2*x */
    IrExpr *two = ir_float(ctx, 2.0);
    two->type = e->type;
    e->u.bin.op = OP_MUL;
    e->u.bin.a = rs_cmp(two, b) > 0 ? b : two;
    e->u.bin.b = e->u.bin.a == two ? b : two;
    return e;
  }
  if (op == OP_ADD && rs_cmp(a, b) > 0) {
    e->u.bin.a = b;
    e->u.bin.b = a;
  }
  return e;
}

static void rs_nest(LeirCtx *ctx, IrNest *n) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      rs_nest(ctx, n->items[i].u.nest);
      continue;
    }
    IrStmt *s = n->items[i].u.stmt;
    if (!s->self_ref) s->rhs = rs_expr(ctx, s->rhs); /* X=X+rest: its text is its initialisation (SPEC 9.5) */
  }
}

static void rs_refs_expr(LeirCtx *ctx, IrExpr *e, PtrVec *out) {
  e = ir_expr_unparen_mut(e);
  switch (e->kind) {
  case E_REF:
    ptrvec_push(&ctx->arena, out, e->u.ref);
    for (int i = 0; i < e->u.ref->nsub; i++) rs_refs_expr(ctx, e->u.ref->sub[i], out);
    break;
  case E_UNARY: rs_refs_expr(ctx, e->u.unary.a, out); break;
  case E_BINARY:
    rs_refs_expr(ctx, e->u.bin.a, out);
    rs_refs_expr(ctx, e->u.bin.b, out);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) rs_refs_expr(ctx, e->u.cmp.operand[i], out);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) rs_refs_expr(ctx, e->u.call.args[i], out);
    break;
  default: break;
  }
}

static void rs_refs_nest(LeirCtx *ctx, IrNest *n, PtrVec *out) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      rs_refs_nest(ctx, n->items[i].u.nest, out);
      continue;
    }
    IrStmt *s = n->items[i].u.stmt;
    ptrvec_push(&ctx->arena, out, s->lhs);
    for (int k = 0; k < s->lhs->nsub; k++) rs_refs_expr(ctx, s->lhs->sub[k], out);
    rs_refs_expr(ctx, s->rhs, out);
  }
}

static bool rs_zero(const IrExpr *e) {
  e = ir_expr_unparen(e);
  return e->kind == E_INT && e->u.ilit.value == 0;
}

/* A tensor BASE lacks (an intermediate of the step) read and written with
 * the literal 0 at some subscript position in every occurrence has extent
 * 1 there: the position is dropped (the reference keeps the 0 of the
 * output's `E_{tx,0}` in its partial sums `M_{tx,0}`, leirc writes
 * `H_{tx}`). */
static void rs_unit_dims(LeirCtx *ctx, const IrProgram *base, IrProgram *q) {
  PtrVec refs = {0}, names = {0};
  for (int i = 0; i < q->nnests; i++) rs_refs_nest(ctx, q->nests[i], &refs);
  for (int i = 0; i < refs.n; i++) { /* the fresh tensors with a 0 somewhere */
    const IrRef *r = refs.v[i];
    bool z = false;
    for (int k = 0; k < r->nsub && !z; k++) z = rs_zero(r->sub[k]);
    if (z && r->nsub <= 31 && find_name(&names, r->name) < 0 && !ir_find_tensor(base, r->name))
      ptrvec_push(&ctx->arena, &names, (void *)r->name);
  }
  for (int t = 0; t < names.n; t++) {
    uint32_t zero = 0xffffffffu;
    int nsub = -1;
    for (int j = 0; j < refs.n && zero; j++) {
      const IrRef *x = refs.v[j];
      if (strcmp(x->name, names.v[t])) continue;
      if (nsub < 0) {
        nsub = x->nsub;
        zero = nsub <= 31 ? (1u << nsub) - 1 : 0;
      }
      if (x->nsub != nsub) zero = 0;
      for (int k = 0; k < x->nsub && zero; k++)
        if (!rs_zero(x->sub[k])) zero &= ~(1u << k);
    }
    for (int j = 0; j < refs.n && zero; j++) {
      IrRef *x = refs.v[j];
      if (strcmp(x->name, names.v[t])) continue;
      int m = 0;
      for (int k = 0; k < x->nsub; k++)
        if (!(zero & (1u << k))) x->sub[m++] = x->sub[k];
      x->nsub = m;
    }
  }
}

/* A clone of p in the fixed spelling (for printing only: not analysed). */
static IrProgram *respell(LeirCtx *ctx, const IrProgram *base, const IrProgram *p) {
  IrProgram *q = ir_program_clone(ctx, p);
  rs_unit_dims(ctx, base, q);
  for (int i = 0; i < q->nnests; i++) rs_nest(ctx, q->nests[i]);
  return q;
}

/* ------------------------------------------------------------ class T: association */

/* A class T candidate's result also gives AFTER when the two differ only
 * in the association and order of the factors and divisors of a product
 * (a*(b/c) for a*b/c: the reference keeps the text it started from, the
 * algebra prints products flat): equal in real arithmetic, and in floating
 * point within a few ulp (no cancellation in a product; overflow and
 * underflow aside), well within the class's tolerance.  Sums are not
 * re-associated: (a+b)+c and a+(b+c) may differ by far more.  flatten()
 * rewrites a respelt clone so: every chain of *, / and unary - becomes its
 * sign, factors and divisors in a fixed order.  Statements of the form
 * X=X+rest are left as written. */

typedef struct FlatList {
  IrExpr **v;
  int n, cap;
} FlatList;

static void fl_push(LeirCtx *ctx, FlatList *l, IrExpr *e) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 8;
    IrExpr **v = arena_alloc(&ctx->arena, sizeof *v * (size_t)cap);
    if (l->n) memcpy(v, l->v, sizeof *v * (size_t)l->n);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = e;
}

static bool fl_same_float(const IrExpr *e, const IrExpr *x) { return rs_float(x) && x->type == e->type; }

static IrExpr *fl_expr(LeirCtx *ctx, IrExpr *e);

/* The factors (num), divisors (den) and sign of a chain of *, / and - of
 * type t. */
static void fl_factors(LeirCtx *ctx, IrExpr *e, IrDType t, bool inv, FlatList *num, FlatList *den, bool *neg) {
  e = ir_expr_unparen_mut(e);
  if (e->type == t && e->kind == E_BINARY && (e->u.bin.op == OP_MUL || e->u.bin.op == OP_DIV) &&
      fl_same_float(e, e->u.bin.a) && fl_same_float(e, e->u.bin.b)) {
    fl_factors(ctx, e->u.bin.a, t, inv, num, den, neg);
    fl_factors(ctx, e->u.bin.b, t, e->u.bin.op == OP_DIV ? !inv : inv, num, den, neg);
    return;
  }
  if (e->type == t && e->kind == E_UNARY && e->u.unary.op == OP_NEG && fl_same_float(e, e->u.unary.a)) {
    *neg = !*neg;
    fl_factors(ctx, e->u.unary.a, t, inv, num, den, neg);
    return;
  }
  if (rs_one(e)) return;
  IrExpr *x = fl_expr(ctx, e);
  fl_push(ctx, inv ? den : num, x);
}

static int fl_qcmp(const void *a, const void *b) { return rs_cmp(*(IrExpr *const *)a, *(IrExpr *const *)b); }

static IrExpr *fl_chain(LeirCtx *ctx, FlatList *l, IrOp op, IrDType t) {
  qsort(l->v, (size_t)l->n, sizeof *l->v, fl_qcmp);
  IrExpr *r = l->v[0];
  for (int i = 1; i < l->n; i++) {
    r = ir_binary(ctx, op, r, l->v[i]);
    r->type = t;
  }
  return r;
}

static IrExpr *fl_expr(LeirCtx *ctx, IrExpr *e) {
  e = ir_expr_unparen_mut(e);
  IrDType t = e->type;
  bool chain = rs_float(e) && ((e->kind == E_BINARY && e->u.bin.op <= OP_DIV && fl_same_float(e, e->u.bin.a) &&
                                fl_same_float(e, e->u.bin.b)) ||
                               (e->kind == E_UNARY && e->u.unary.op == OP_NEG && fl_same_float(e, e->u.unary.a)));
  if (chain && !(e->kind == E_BINARY && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB))) {
    FlatList num = {0}, den = {0};
    bool neg = false;
    fl_factors(ctx, e, t, false, &num, &den, &neg);
    IrExpr *r;
    if (!num.n) {
      r = ir_float(ctx, 1.0);
      r->type = t;
    } else {
      r = fl_chain(ctx, &num, OP_MUL, t);
    }
    if (den.n) {
      r = ir_binary(ctx, OP_DIV, r, fl_chain(ctx, &den, OP_MUL, t));
      r->type = t;
    }
    return neg ? rs_neg(ctx, r) : r;
  }
  switch (e->kind) {
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) e->u.ref->sub[i] = fl_expr(ctx, e->u.ref->sub[i]);
    break;
  case E_UNARY: e->u.unary.a = fl_expr(ctx, e->u.unary.a); break;
  case E_BINARY:
    e->u.bin.a = fl_expr(ctx, e->u.bin.a);
    e->u.bin.b = fl_expr(ctx, e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) e->u.cmp.operand[i] = fl_expr(ctx, e->u.cmp.operand[i]);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) e->u.call.args[i] = fl_expr(ctx, e->u.call.args[i]);
    break;
  default: break;
  }
  return e;
}

static void fl_nest(LeirCtx *ctx, IrNest *n) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      fl_nest(ctx, n->items[i].u.nest);
      continue;
    }
    IrStmt *s = n->items[i].u.stmt;
    if (!s->self_ref) s->rhs = fl_expr(ctx, s->rhs);
  }
}

/* A respelt clone of p with its products flattened (printing only). */
static IrProgram *flatten(LeirCtx *ctx, const IrProgram *base, const IrProgram *p) {
  IrProgram *q = respell(ctx, base, p);
  for (int i = 0; i < q->nnests; i++) fl_nest(ctx, q->nests[i]);
  return q;
}

/* The location in the printed program of text offset `off` (the last mark
 * at or before it). */
static IrLoc canon_loc(const Canon *c, size_t off) {
  IrLoc l = {0, 0};
  for (int i = 0; i < c->nmarks && c->off[i] <= off; i++) l = c->loc[i];
  return l;
}

/* ------------------------------------------------------------ capture */

/* Diagnostics kept in the core's capture list (ir/diag.c), whatever ctx
 * does with its own, and restored counts. */
typedef struct Capture {
  FILE *saved_out;
  LeirDiagList *saved_capture;
  LeirDiagList list;
  int nerrors, nwarnings;
} Capture;

static void capture_begin(LeirCtx *ctx, Capture *c) {
  memset(c, 0, sizeof *c);
  c->saved_out = ctx->diag_out;
  c->saved_capture = ctx->capture;
  c->nerrors = ctx->nerrors;
  c->nwarnings = ctx->nwarnings;
  ctx->diag_out = NULL;
  ctx->capture = &c->list;
}

/* The captured text (in the arena) and its first error line in *first;
 * with `report`, the diagnostics are also passed on to ctx (printed, or
 * kept in its own capture list). */
static const char *capture_end(LeirCtx *ctx, Capture *c, const char **first, bool report) {
  ctx->diag_out = c->saved_out;
  ctx->capture = c->saved_capture;
  ctx->nerrors = c->nerrors;
  ctx->nwarnings = c->nwarnings;
  SBuf b = {0};
  for (size_t i = 0; i < c->list.n; i++) sbuf_puts(&b, c->list.v[i].rendered);
  const char *all = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  if (report) diag_replay(ctx, &c->list);
  diag_list_clear(&c->list);
  if (first) {
    *first = NULL;
    const char *e = strstr(all, ": error: ");
    if (e) {
      const char *s = e;
      while (s > all && s[-1] != '\n') s--;
      const char *nl = strchr(e, '\n');
      *first = arena_strndup(&ctx->arena, s, nl ? (size_t)(nl - s) : strlen(s));
    }
  }
  return all;
}

/* ------------------------------------------------------------ the search */

typedef struct Search {
  LeirCtx *ctx;
  const IrProgram *before;
  Canon canon;           /* for candidates */
  const char *target;    /* AFTER's canonical text */
  const char *target_rs; /* ... in the fixed spelling (respell) */
  const char *target_flat; /* ... with products flattened (class T) */
  const char *target_skel; /* AFTER's loops and written tensors (Canon.skel) */
  Canon *after_canon;    /* its marks */
  /* the best so far */
  PassCand *legal;       /* a legal candidate giving AFTER */
  PassCand *refused;     /* an illegal one giving AFTER, and why */
  const char *refusal;
  PassCand *closest;     /* longest common prefix, first found */
  size_t closest_len;
  int tried;
  int refused_left;      /* budget of refused candidates applied anyway */
  int variants_left;     /* budget of candidates with recovered parameters */
  size_t last_prefix;    /* try_result's common prefix length */
  const IrProgram *after;
  PtrVec perms_done;     /* "KIND:TENSOR" whose orders were all tried */
} Search;

static size_t common_prefix(const char *a, const char *b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i]) i++;
  return i;
}

static PassCand *cand_copy(LeirCtx *ctx, const PassCand *c) {
  PassCand *v = arena_alloc(&ctx->arena, sizeof *v);
  *v = *c;
  return v;
}

/* Compares q (c's result) with AFTER; true on a match. */
static bool try_result(Search *s, PassCand *c, const IrProgram *q) {
  if (!q) return false;
  s->tried++;
  canon_print(&s->canon, q);
  size_t n = common_prefix(s->canon.b.s, s->target);
  s->last_prefix = n;
  if (!s->target[n] && !s->canon.b.s[n]) return true;
  if (!s->closest || n > s->closest_len) {
    s->closest = cand_copy(s->ctx, c);
    s->closest_len = n;
  }
  /* the same up to respell's exact identities: bit-identical values
     (neither they nor flatten's change a loop or a written tensor) */
  s->canon.skel = true;
  canon_print(&s->canon, q);
  s->canon.skel = false;
  if (strcmp(s->canon.b.s, s->target_skel)) return false;
  IrProgram *r = respell(s->ctx, s->before, q);
  canon_print(&s->canon, r);
  if (!strcmp(s->canon.b.s, s->target_rs)) return true;
  /* class T: also up to the association of products */
  if (c->cls != PASS_T) return false;
  for (int i = 0; i < r->nnests; i++) fl_nest(s->ctx, r->nests[i]);
  canon_print(&s->canon, r);
  return !strcmp(s->canon.b.s, s->target_flat);
}

/* A candidate whose check passed: apply it, compare. */
static bool try_legal(Search *s, PassCand *c) {
  const char *reason = NULL;
  IrProgram *q = pass_apply(s->ctx, s->before, c, &reason);
  if (q && try_result(s, c, q)) {
    s->legal = cand_copy(s->ctx, c);
    return true;
  }
  return false;
}

/* A candidate its check refuses: apply it anyway, compare (the refusal is
 * kept when it gives AFTER). */
static void try_refused(Search *s, PassCand *c, const char *reason) {
  if (s->refused || s->refused_left <= 0) return;
  s->refused_left--;
  const char *r = NULL;
  /* applied as --unsafe-math would (the algebra's passes check again while
     rewriting: a refusal that is the flag's to lift would stop them) */
  bool unsafe = s->ctx->unsafe_math;
  s->ctx->unsafe_math = true;
  IrProgram *q = pass_apply_unchecked(s->ctx, s->before, c, &r);
  s->ctx->unsafe_math = unsafe;
  if (q && try_result(s, c, q)) {
    s->refused = cand_copy(s->ctx, c);
    s->refusal = reason;
  }
}

/* A candidate with other parameter values: checked, then applied. */
static bool try_variant(Search *s, PassCand *v) {
  if (s->variants_left <= 0) return false;
  s->variants_left--;
  const char *reason = NULL;
  PassCand *c = cand_copy(s->ctx, v);
  IrProgram *q = pass_apply(s->ctx, s->before, c, &reason);
  if (q) {
    if (try_result(s, c, q)) {
      s->legal = c;
      return true;
    }
    return false;
  }
  if (!s->refused) try_refused(s, cand_copy(s->ctx, v), reason);
  return false;
}

/* Loop extents of p, each once. */
static void collect_extents(const IrNest *n, int64_t *v, int *nv, int cap) {
  for (int i = 0; i < n->nloops; i++) {
    int k = 0;
    while (k < *nv && v[k] != n->loops[i]->extent) k++;
    if (k == *nv && *nv < cap) v[(*nv)++] = n->loops[i]->extent;
  }
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) collect_extents(n->items[i].u.nest, v, nv, cap);
}

/* At most MAX_VALUES values for a free parameter, MAX_VARIANTS
 * permutations of a layout candidate, MAX_REFUSED refused candidates
 * applied (to name a refusal) and MAX_ALL_VARIANTS candidates with
 * recovered parameters per check: the time per check stays bounded. */
enum { MAX_VALUES = 12, MAX_VARIANTS = 720, MAX_REFUSED = 48, MAX_ALL_VARIANTS = 1000 };

/* The parameters whose values enumeration lists only in part
 * (reduction_rfactor's lanes: the lane loop's extent is among AFTER's). */
static bool free_int_key(const char *key) {
  return !strcmp(key, "factor") || !strcmp(key, "factor1") || !strcmp(key, "factor2") || !strcmp(key, "split") ||
         !strcmp(key, "lanes");
}

static bool next_perm(int *a, int n) {
  int i = n - 2;
  while (i >= 0 && a[i] >= a[i + 1]) i--;
  if (i < 0) return false;
  int j = n - 1;
  while (a[j] <= a[i]) j--;
  int t = a[i];
  a[i] = a[j];
  a[j] = t;
  for (int l = i + 1, r = n - 1; l < r; l++, r--) t = a[l], a[l] = a[r], a[r] = t;
  return true;
}

static const char *perm_text(LeirCtx *ctx, const int *a, int n) {
  SBuf b = {0};
  for (int i = 0; i < n; i++) sbuf_printf(&b, "%s%d", i ? "." : "", a[i]);
  const char *r = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return r;
}

/* The permutations AFTER suggests for a transpose of tensor t: every
 * statement `Y_{i...} = t_{j...}` whose subscripts are the same plain
 * indices in another order gives p (lhs[k] = rhs[p[k]]) and its inverse. */
static int derived_perms(const Search *s, const char *t, int n, int out[][8], int max) {
  int m = 0;
  for (int k = 0; k < s->after->nstmts && m + 2 <= max; k++) {
    const IrStmt *st = s->after->stmts[k];
    const IrExpr *e = ir_expr_unparen(st->rhs);
    if (e->kind != E_REF || strcmp(e->u.ref->name, t) || e->u.ref->nsub != n || st->lhs->nsub != n) continue;
    int p[8], q[8];
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
      const IrExpr *l = st->lhs->sub[i];
      ok = l->kind == E_INDEX;
      p[i] = -1;
      for (int j = 0; ok && j < n; j++) {
        const IrExpr *r = e->u.ref->sub[j];
        if (r->kind == E_INDEX && !strcmp(r->u.index.name, l->u.index.name)) p[i] = j;
      }
      ok = ok && p[i] >= 0;
    }
    if (!ok) continue;
    for (int i = 0; i < n; i++) q[p[i]] = i;
    memcpy(out[m++], p, sizeof p);
    memcpy(out[m++], q, sizeof q);
  }
  return m;
}

/* The dimension of BEFORE's write of tensor t whose subscript is the plain
 * index e, or -1. */
static int lhs_dim(const IrRef *bl, const IrExpr *e) {
  e = ir_expr_unparen(e);
  if (e->kind != E_INDEX) return -1;
  for (int j = 0; j < bl->nsub; j++) {
    const IrExpr *x = ir_expr_unparen(bl->sub[j]);
    if (x->kind == E_INDEX && !strcmp(x->u.index.name, e->u.index.name)) return j;
  }
  return -1;
}

/* The fused pair AFTER suggests for a reshape2 of tensor t (rank r): a
 * statement of AFTER writing t with r-1 subscripts, one of them `X*K+Y`
 * with X and Y the plain indices of dimensions p and q in BEFORE's write
 * of t (all its subscripts plain indices) gives fuse=p.q.  Returns false
 * when AFTER suggests none. */
static bool derived_fuse(const Search *s, const char *t, int r, int *pp, int *qq) {
  const IrRef *bl = NULL;
  for (int k = 0; k < s->before->nstmts && !bl; k++) {
    const IrRef *l = s->before->stmts[k]->lhs;
    if (!strcmp(l->name, t) && l->nsub == r) bl = l;
  }
  if (!bl) return false;
  for (int k = 0; k < s->after->nstmts; k++) {
    const IrRef *l = s->after->stmts[k]->lhs;
    if (strcmp(l->name, t) || l->nsub != r - 1) continue;
    for (int i = 0; i < l->nsub; i++) {
      const IrExpr *e = ir_expr_unparen(l->sub[i]);
      if (e->kind != E_BINARY || e->u.bin.op != OP_ADD) continue;
      const IrExpr *m = ir_expr_unparen(e->u.bin.a);
      if (m->kind != E_BINARY || m->u.bin.op != OP_MUL) continue;
      int p = lhs_dim(bl, m->u.bin.a), q = lhs_dim(bl, e->u.bin.b);
      if (p >= 0 && q >= 0 && p != q) {
        *pp = p;
        *qq = q;
        return true;
      }
    }
  }
  return false;
}

/* Every order of a reshape2 of candidate c with the fused pair AFTER
 * suggests (once per tensor; before the exhaustive search of try_perms, so
 * that the budget spent on other candidates cannot hide it). */
static bool try_derived_fuse(Search *s, const PassCand *c) {
  const char *kind = pass_cand_get(c, "kind"), *t = pass_cand_get(c, "tensor");
  if (!kind || !t || strcmp(kind, "reshape2")) return false;
  IrTensor *x = ir_find_tensor(s->before, t);
  int n = x ? x->rank - 1 : 0, pp, qq;
  if (n < 2 || n > 5 || !derived_fuse(s, t, x->rank, &pp, &qq)) return false;
  const char *key = arena_printf(&s->ctx->arena, "derived:%s:%s:%s", c->pass->name, kind, t);
  if (find_name(&s->perms_done, key) >= 0) return false;
  ptrvec_push(&s->ctx->arena, &s->perms_done, (void *)key);
  PassCand *v = cand_copy(s->ctx, c);
  pass_cand_set(s->ctx, v, "fuse", arena_printf(&s->ctx->arena, "%d.%d", pp, qq));
  int a[8];
  for (int k = 0; k < n; k++) a[k] = k;
  do {
    pass_cand_set(s->ctx, v, "perm", perm_text(s->ctx, a, n));
    if (try_variant(s, v)) return true;
  } while (next_perm(a, n));
  return false;
}

static bool pass_has_key(const PassInfo *pass, const char *key) {
  for (const PassKey *k = pass->impl ? pass->impl->keys : NULL; k && k->key; k++)
    if (!strcmp(k->key, key)) return true;
  return false;
}

/* The loop orders AFTER suggests for candidate c of a pass with an `order`
 * parameter (expression_splitting): a statement of AFTER writing a tensor
 * BEFORE lacks, subscripted by distinct plain indices of c's nest, gives
 * the permutation from nest order to its subscript's order (the
 * reference's Python-set order of the hoisted sub-expression's indices). */
static bool try_derived_order(Search *s, const PassCand *c) {
  if (!pass_has_key(c->pass, "order") || pass_cand_get(c, "order") || c->nest < 0 || c->nest >= s->before->nnests)
    return false;
  const IrNest *n = s->before->nests[c->nest];
  for (int k = 0; k < s->after->nstmts; k++) {
    const IrRef *l = s->after->stmts[k]->lhs;
    if (ir_find_tensor(s->before, l->name) || l->nsub < 2 || l->nsub > 8) continue;
    int pos[8], m = l->nsub;
    bool ok = true;
    for (int i = 0; i < m && ok; i++) {
      const IrExpr *e = ir_expr_unparen(l->sub[i]);
      pos[i] = -1;
      for (int j = 0; e->kind == E_INDEX && j < n->nloops; j++)
        if (!strcmp(n->loops[j]->index, e->u.index.name)) pos[i] = j;
      ok = pos[i] >= 0;
      for (int j = 0; j < i && ok; j++) ok = pos[j] != pos[i];
    }
    if (!ok) continue;
    int order[8];
    bool ident = true;
    for (int i = 0; i < m; i++) {
      order[i] = 0;
      for (int j = 0; j < m; j++) order[i] += pos[j] < pos[i];
      ident &= order[i] == i;
    }
    if (ident) continue;
    PassCand *v = cand_copy(s->ctx, c);
    pass_cand_set(s->ctx, v, "order", perm_text(s->ctx, order, m));
    if (try_variant(s, v)) return true;
  }
  return false;
}

/* The rules a pass applies only when asked for (factorization's
 * sigmoid_exp: enumerate() leaves it out), tried once per statement. */
static bool try_asked_rules(Search *s, const PassCand *c) {
  const char *rule = pass_cand_get(c, "rule");
  if (!rule || strcmp(rule, "common") || !pass_has_key(c->pass, "rule")) return false;
  PassCand *v = cand_copy(s->ctx, c);
  pass_cand_set(s->ctx, v, "rule", "sigmoid_exp");
  return try_variant(s, v);
}

/* Layout permutations (transpose, reshape2) of candidate c: those AFTER
 * suggests, then every order. */
static bool try_perms(Search *s, const PassCand *c) {
  const char *kind = pass_cand_get(c, "kind"), *t = pass_cand_get(c, "tensor");
  if (!kind || !t || (strcmp(kind, "transpose") && strcmp(kind, "reshape2"))) return false;
  IrTensor *x = ir_find_tensor(s->before, t);
  bool r2 = !strcmp(kind, "reshape2");
  int n = x ? x->rank - (r2 ? 1 : 0) : 0;
  if (n < 2 || n > 5) return false;
  PassCand *v = cand_copy(s->ctx, c);
  if (!r2) {
    int d[16][8];
    int nd = derived_perms(s, t, n, d, 16);
    for (int i = 0; i < nd; i++) {
      pass_cand_set(s->ctx, v, "perm", perm_text(s->ctx, d[i], n));
      if (try_variant(s, v)) return true;
    }
  }
  /* every order (and every fused pair) once per kind and tensor */
  const char *key = arena_printf(&s->ctx->arena, "%s:%s:%s", c->pass->name, kind, t);
  if (find_name(&s->perms_done, key) >= 0) return false;
  ptrvec_push(&s->ctx->arena, &s->perms_done, (void *)key);
  int tries = 0;
  for (int pp = 0; pp < (r2 ? x->rank : 1); pp++)
    for (int qq = 0; qq < (r2 ? x->rank : 1); qq++) {
      if (r2 && pp == qq) continue;
      if (r2) pass_cand_set(s->ctx, v, "fuse", arena_printf(&s->ctx->arena, "%d.%d", pp, qq));
      int a[8];
      for (int k = 0; k < n; k++) a[k] = k;
      do {
        const char *pt = perm_text(s->ctx, a, n);
        const char *old = pass_cand_get(c, "perm"), *of = pass_cand_get(c, "fuse"), *nf = pass_cand_get(v, "fuse");
        if (old && !strcmp(old, pt) && (!r2 || (of && nf && !strcmp(of, nf)))) continue;
        pass_cand_set(s->ctx, v, "perm", pt);
        if (try_variant(s, v)) return true;
        if (++tries > MAX_VARIANTS) return false;
      } while (next_perm(a, n));
    }
  return false;
}

/* Candidate c with its free integer parameters set from `vals`. */
static bool try_values(Search *s, const PassCand *c, const int64_t *vals, int nv) {
  int keys[PASS_MAX_PARAMS], nk = 0;
  for (int i = 0; i < c->nparams; i++)
    if (free_int_key(c->params[i].key)) keys[nk++] = i;
  if (!nk || nk > 2 || !nv) return false;
  PassCand *v = cand_copy(s->ctx, c);
  int total = nk == 1 ? nv : nv * nv;
  for (int k = 0; k < total; k++) {
    int64_t x = vals[k % nv], y = nk == 2 ? vals[k / nv] : 0;
    pass_cand_set_int(s->ctx, v, c->params[keys[0]].key, x);
    if (nk == 2) pass_cand_set_int(s->ctx, v, c->params[keys[1]].key, y);
    bool same = true;
    for (int i = 0; i < nk; i++) same &= !strcmp(pass_cand_get(v, c->params[keys[i]].key), c->params[keys[i]].val);
    if (same) continue;
    if (try_variant(s, v)) return true;
  }
  return false;
}

/* p respelt and flattened, printed with the search's Canon (its text). */
static const char *canon_flat(Search *s, const IrProgram *p) {
  canon_print(&s->canon, flatten(s->ctx, s->before, p));
  return s->canon.b.s;
}

/* Searches the candidates of one strategy; true when a legal one gives
 * AFTER. */
static bool search_pass(Search *s, const PassInfo *pass, const int64_t *vals, int nv) {
  if (!pass->impl) return false;
  PtrVec all = {0}, reasons = {0};
  pass_enumerate_all(s->ctx, s->before, pass, &all, &reasons);
  if (!all.n) return false;
  /* the enumerated legal candidates; each one's common prefix with AFTER
     orders the search over other parameter values (closest first) */
  size_t *pre = arena_alloc(&s->ctx->arena, (size_t)all.n * sizeof *pre);
  int *order = arena_alloc(&s->ctx->arena, (size_t)all.n * sizeof *order);
  for (int i = 0; i < all.n; i++) {
    s->last_prefix = 0;
    if (!reasons.v[i] && try_legal(s, all.v[i])) return true;
    pre[i] = s->last_prefix;
    order[i] = i;
  }
  for (int i = 1; i < all.n; i++) /* stable insertion sort, longest prefix first */
    for (int j = i; j > 0 && pre[order[j]] > pre[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int k = 0; k < all.n; k++)
    if (try_derived_fuse(s, all.v[order[k]]) || try_derived_order(s, all.v[order[k]]) ||
        try_asked_rules(s, all.v[order[k]]))
      return true;
  for (int k = 0; k < all.n; k++) {
    PassCand *c = all.v[order[k]];
    if (try_values(s, c, vals, nv) || try_perms(s, c)) return true;
  }
  for (int i = 0; i < all.n; i++)
    if (reasons.v[i]) try_refused(s, all.v[i], reasons.v[i]);
  return false;
}

/* ------------------------------------------------------------ AFTER */

/* BEFORE's argument tensors, as declarations for AFTER. */
static IrDeclList before_decls(LeirCtx *ctx, const IrProgram *before) {
  IrDeclList d = {0};
  d.d = arena_alloc(&ctx->arena, (size_t)(before->ntensors + 1) * sizeof *d.d);
  for (int i = 0; i < before->ntensors; i++) {
    const IrTensor *t = before->tensors[i];
    if (t->role == ROLE_TMP || t->rank < 0) continue;
    IrDecl *x = &d.d[d.n++];
    x->name = t->name;
    x->role = t->role;
    x->dtype = t->dtype;
    x->rank = t->rank;
    x->shape = t->shape;
  }
  return d;
}

/* Parses and analyses AFTER; NULL with out's verdict set when it fails. */
static IrProgram *load_after(LeirCtx *ctx, const IrProgram *before, const char *text, size_t len,
                             const StepCheckOptions *o, StepResult *out) {
  leir_ctx_set_source(ctx, o->after_name ? o->after_name : "after", text, len);
  Capture cap;
  capture_begin(ctx, &cap);
  IrProgram *p = ps_parse(ctx);
  bool parsed = p != NULL && ctx->nerrors == cap.nerrors;
  if (parsed) {
    IrDeclList side = p->has_header ? (IrDeclList){0} : before_decls(ctx, before);
    if (!ir_sema(ctx, p, p->has_header ? NULL : &side)) p = NULL;
    else if (ir_verify(ctx, p)) p = NULL;
  } else {
    p = NULL;
  }
  const char *first = NULL;
  out->diag = capture_end(ctx, &cap, &first, o->report);
  if (p) return p;
  out->verdict = parsed ? STEP_INVALID : STEP_DOES_NOT_PARSE;
  out->error = first ? first : arena_printf(&ctx->arena, "%s: error: %s", ctx->src.name,
                                             parsed ? "the program is invalid" : "the program does not parse");
  int line = 0, col = 0;
  const char *e = first ? strstr(first, ": error: ") : NULL;
  if (e) {
    const char *s = e;
    /* ...NAME:LINE:COL: error: -- read COL and LINE backwards */
    const char *c1 = s;
    while (c1 > first && c1[-1] >= '0' && c1[-1] <= '9') c1--;
    if (c1 > first && c1[-1] == ':' && c1 < s) {
      const char *l1 = c1 - 1;
      while (l1 > first && l1[-1] >= '0' && l1[-1] <= '9') l1--;
      if (l1 < c1 - 1 && l1 > first && l1[-1] == ':') {
        line = atoi(l1);
        col = atoi(c1);
      }
    }
  }
  out->at = (IrLoc){line, col};
  const char *msg = first ? first : out->error;
  out->message = arena_printf(&ctx->arena, "%s: %s", step_verdict_name(out->verdict), msg);
  return NULL;
}

/* ------------------------------------------------------------ running */

static const char *diff_text(LeirCtx *ctx, const InterpDiff *d, const char *a, const char *b) {
  SBuf s = {0};
  interp_diff_where(&s, d, a, b);
  const char *text = arena_strdup(&ctx->arena, s.s ? s.s : "");
  sbuf_free(&s);
  return text;
}

/* Runs both (in the interpreter within o->max_steps, else with o->big_run
 * within o->big_max_steps); the reason they could not be compared, or
 * NULL with out->ran and out->cmp set.  *differ: the reason itself shows
 * they are not equivalent (other arguments, AFTER fails to run); otherwise
 * the pair was not run. */
static const char *run_both(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, const StepCheckOptions *o,
                            StepResult *out, bool *differ) {
  *differ = false;
  uint64_t wa = ir_program_execs(before), wb = ir_program_execs(after), w = wa > wb ? wa : wb;
  bool big = o->max_steps && w > o->max_steps;
  if (big && (!o->big_run || (o->big_max_steps && w > o->big_max_steps)))
    return arena_printf(&ctx->arena, "%llu statement executions > budget %llu", (unsigned long long)w,
                        (unsigned long long)(o->big_run && o->big_max_steps > o->max_steps ? o->big_max_steps
                                                                                            : o->max_steps));
  Capture cap;
  capture_begin(ctx, &cap);
  const char *why = NULL;
  const char *aname = o->after_name ? o->after_name : "after";
  InterpOptions io = {false, o->max_steps};
  InterpProg *a = NULL, *b = NULL;
  InterpDiff d;
  if (!interp_same_signature(ctx, before, after, "before", aname)) {
    why = "the programs take different arguments";
    *differ = true;
  } else if (big) {
    switch (interp_compare_run_by(ctx, before, after, o->seed, o->tol, o->big_run, o->big_arg, &d)) {
    case 0: break;
    case 1: why = "the programs do not compile for the host JIT"; break;
    case 2: why = "the program before fails on the host JIT"; break;
    default: why = "the program after fails on the host JIT"; *differ = true; break;
    }
  } else if (!(a = interp_new(ctx, before, &io)) || !(b = interp_new(ctx, after, &io))) {
    why = "the interpreter cannot compile the programs";
  } else if (interp_compare_progs(a, b, &(InterpCompareOpts){1, o->seed, o->tol, io, 0, NULL, NULL, NULL}, &d) != 0) {
    why = d.failed == 1 ? "the program before fails to run" : "the program after fails to run";
    *differ = d.failed != 1;
  }
  if (!why) {
    out->ran = true;
    out->cmp = d.verdict;
    if (d.have) out->difference = diff_text(ctx, &d, "before", aname);
  }
  const char *first = NULL;
  capture_end(ctx, &cap, &first, false);
  if (a) interp_free(a);
  if (b) interp_free(b);
  if (why && first) {
    const char *e = strstr(first, ": error: ");
    why = arena_printf(&ctx->arena, "%s: %s", why, e ? e + 9 : first);
  }
  return why;
}

/* Is candidate c (which gives AFTER) legal with ctx->unsafe_math set to
 * `unsafe`? */
static bool legal_with(LeirCtx *ctx, const IrProgram *before, PassCand *c, bool unsafe) {
  bool saved = ctx->unsafe_math;
  ctx->unsafe_math = unsafe;
  const char *reason = NULL;
  Capture cap;
  capture_begin(ctx, &cap);
  IrProgram *q = pass_apply(ctx, before, c, &reason);
  capture_end(ctx, &cap, NULL, false);
  ctx->unsafe_math = saved;
  return q != NULL;
}

/* ------------------------------------------------------------ the check */

static const char *strategy_word(const StepCheckOptions *o) {
  return o->strategy ? o->strategy->name : "legal";
}

bool step_check(LeirCtx *ctx, const IrProgram *before, const char *text, size_t len, const StepCheckOptions *o,
                StepResult *out) {
  memset(out, 0, sizeof *out);
  LeirSource saved = ctx->src;
  Arena *A = &ctx->arena;
  IrProgram *after = load_after(ctx, before, text, len, o, out);
  const char *aname = o->after_name ? o->after_name : "after";
  if (!after) {
    ctx->src = saved;
    return false;
  }
  out->after = after;
  Canon ac;
  canon_init(&ac, ctx, before);
  canon_print(&ac, after);
  Search s = {0};
  s.ctx = ctx;
  s.before = before;
  canon_init(&s.canon, ctx, before);
  s.target = ac.b.s;
  s.after_canon = &ac;
  s.refused_left = MAX_REFUSED;
  s.after = after;
  s.variants_left = MAX_ALL_VARIANTS;
  canon_print(&s.canon, before);
  if (!strcmp(s.canon.b.s, s.target)) {
    out->verdict = STEP_UNCHANGED;
    out->message = "unchanged";
    goto done;
  }
  canon_print(&ac, respell(ctx, before, after));
  s.target_rs = arena_strdup(A, ac.b.s);
  canon_print(&ac, flatten(ctx, before, after));
  s.target_flat = arena_strdup(A, ac.b.s);
  ac.skel = true;
  canon_print(&ac, after);
  s.target_skel = arena_strdup(A, ac.b.s);
  ac.skel = false;
  canon_print(&ac, after); /* its text and marks again (the buffer may have moved) */
  s.target = ac.b.s;
  /* values for the free parameters: AFTER's extents that BEFORE lacks */
  int64_t bv[256], av[256], vals[MAX_VALUES];
  int nb = 0, na = 0, nv = 0;
  for (int i = 0; i < before->nnests; i++) collect_extents(before->nests[i], bv, &nb, 256);
  for (int i = 0; i < after->nnests; i++) collect_extents(after->nests[i], av, &na, 256);
  for (int i = 0; i < na && nv < MAX_VALUES; i++) {
    int k = 0;
    while (k < nb && bv[k] != av[i]) k++;
    if (k == nb) vals[nv++] = av[i];
  }
  bool found = false;
  if (o->strategy) found = search_pass(&s, o->strategy, vals, nv);
  for (int i = 0; !o->strategy && !found && i < pass_table_size; i++) found = search_pass(&s, &pass_table[i], vals, nv);
  out->tried = s.tried;
  if (found) {
    out->verdict = STEP_LEGAL;
    out->pass = s.legal->pass;
    out->cls = s.legal->cls == PASS_T ? PASS_T : PASS_E;
    out->spelling = pass_cand_spelling(ctx, s.legal);
    out->message = arena_printf(A, "legal: %s (class %s)", out->spelling, pass_class_name(out->cls));
    if (ctx->unsafe_math && !legal_with(ctx, before, s.legal, false)) {
      /* legal by the flag's assumptions only: say what running shows */
      out->unsafe_assumed = true;
      bool differ;
      const char *why = o->run ? run_both(ctx, before, after, o, out, &differ) : NULL;
      if (why)
        out->message = arena_printf(A, "%s under --unsafe-math (%s%s)", out->message, differ ? "" : "not run: ", why);
      else if (out->ran && out->cmp == CMP_DIFFER)
        out->message = arena_printf(A, "%s under --unsafe-math; running differs: %s", out->message, out->difference);
      else
        out->message = arena_printf(A, "%s under --unsafe-math", out->message);
    }
    goto done;
  }
  /* no candidate: BEFORE itself, respelt? */
  canon_print(&s.canon, respell(ctx, before, before));
  if (!strcmp(s.canon.b.s, s.target_rs)) {
    out->verdict = STEP_UNCHANGED;
    out->message = "unchanged up to spelling: only the order of the operands of +, * and two-argument max and min, "
                   "signs moved through * and /, factors or divisors 1, x+x for 2*x and literals' spelling differ "
                   "(bit-identical values)";
    goto done;
  }
  /* not legal: name the closest candidate */
  const char *near = "";
  if (s.refused) {
    out->pass = s.refused->pass;
    out->spelling = pass_cand_spelling(ctx, s.refused);
    out->refusal = s.refusal;
    const char *why = s.refusal;
    if (!ctx->unsafe_math && legal_with(ctx, before, s.refused, true)) {
      /* the flag's assumption is the only objection: said once, here */
      out->unsafe_would_accept = true;
      static const char tail[] = " (--unsafe-math accepts it)";
      size_t n = strlen(why), t = sizeof tail - 1;
      if (n > t && !strcmp(why + n - t, tail)) why = arena_strndup(A, why, n - t);
      why = arena_printf(A, "%s; --unsafe-math would accept the step", why);
    }
    near = arena_printf(A, "%s gives %s but is illegal: %s", out->spelling, aname, why);
  } else if (!strcmp(canon_flat(&s, before), s.target_flat)) {
    /* no step at all, only the reference's printing of a product */
    near = "only the association of products differs from before (a*(b/c) for a*b/c: equal up to rounding)";
  } else if (s.closest) {
    out->pass = s.closest->pass;
    out->spelling = pass_cand_spelling(ctx, s.closest);
    out->at = canon_loc(&ac, s.closest_len);
    if (out->at.line > 0)
      near = arena_printf(A, "closest candidate %s first differs at %s:%d:%d", out->spelling, aname, out->at.line,
                          out->at.col);
    else
      near = arena_printf(A, "closest candidate %s", out->spelling);
  } else {
    near = o->strategy ? arena_printf(A, "%s has no candidate here", o->strategy->name) : "no candidate here";
  }
  bool differ = false;
  const char *why = o->run ? run_both(ctx, before, after, o, out, &differ) : "running was not asked for";
  if (!why && out->cmp != CMP_DIFFER) {
    out->verdict = STEP_EQUIVALENT;
    out->message = arena_printf(A, "equivalent, not a %s step: %s", strategy_word(o), near);
  } else if (why && !differ) {
    out->verdict = STEP_NOT_RUN;
    out->message = arena_printf(A, "not run: %s; %s", why, near);
  } else {
    out->verdict = STEP_NOT_EQUIVALENT;
    out->message = arena_printf(A, "not equivalent: %s; %s", why ? why : out->difference, near);
  }
done:
  sbuf_free(&ac.b);
  sbuf_free(&s.canon.b);
  ctx->src = saved;
  return out->verdict == STEP_LEGAL;
}
