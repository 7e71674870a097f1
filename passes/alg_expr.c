/* alg_expr.c -- canonical expressions of the algebra (alg.h): construction
 * with automatic simplification, order, conversion from and to the IR. */
#include "passes/alg.h"

#include "ir/range.h"
#include "passes/rewrite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ context */

void alg_init(AlgCtx *A, LeirCtx *ctx) {
  memset(A, 0, sizeof *A);
  A->ctx = ctx;
  leir_ctx_init(&A->scratch);
  A->budget = 400000;
}

void alg_free(AlgCtx *A) {
  arena_free_all(&A->mem);
  leir_ctx_free(&A->scratch);
}

void alg_fail(AlgCtx *A, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  A->err = arena_strdup(&A->ctx->arena, buf);
  longjmp(A->fail, 1);
}

void *alg_alloc(AlgCtx *A, size_t n) {
  if (--A->budget < 0) alg_fail(A, "the expression is too large for the algebra");
  return arena_alloc(&A->mem, n ? n : 1);
}

typedef struct Vec {
  AlgExpr **v;
  int n, cap;
} Vec;

static void vpush(AlgCtx *A, Vec *v, AlgExpr *x) {
  if (v->n == v->cap) {
    int c = v->cap ? v->cap * 2 : 8;
    AlgExpr **nv = alg_alloc(A, sizeof *nv * (size_t)c);
    if (v->n) memcpy(nv, v->v, sizeof *nv * (size_t)v->n);
    v->v = nv;
    v->cap = c;
  }
  v->v[v->n++] = x;
}

static const char *key_done(AlgCtx *A, SBuf *b) {
  const char *k = arena_strdup(&A->mem, b->s ? b->s : "");
  sbuf_free(b);
  return k;
}

static AlgExpr *node(AlgCtx *A, AlgKind k) {
  AlgExpr *x = alg_alloc(A, sizeof *x);
  x->k = k;
  x->num = alg_int(1);
  return x;
}

/* ------------------------------------------------------------ order */

static int rank(const AlgExpr *x) {
  switch (x->k) {
  case AK_SYM: return x->sk == AS_REF ? 0 : x->sk == AS_INDEX ? 1 : 3;
  case AK_FN: return 2;
  case AK_ADD: return 4;
  default: return 5;
  }
}

int alg_base_cmp(const AlgExpr *x, const AlgExpr *y) {
  int rx = rank(x), ry = rank(y);
  if (rx != ry) return rx < ry ? -1 : 1;
  return strcmp(x->key, y->key);
}

bool alg_eq(const AlgExpr *x, const AlgExpr *y) { return x == y || !strcmp(x->key, y->key); }

AlgExpr *alg_factor_base(AlgExpr *f) { return f->k == AK_POW ? f->base : f; }
int64_t alg_factor_exp(const AlgExpr *f) { return f->k == AK_POW ? f->exp : 1; }

int alg_term_factors(AlgExpr *t, AlgExpr **one, AlgExpr ***out) {
  if (t->k == AK_NUM) {
    *out = NULL;
    return 0;
  }
  if (t->k == AK_MUL) {
    *out = t->a;
    return t->n;
  }
  *one = t;
  *out = one;
  return 1;
}

static int term_cmp(const void *pa, const void *pb) {
  AlgExpr *x = *(AlgExpr *const *)pa, *y = *(AlgExpr *const *)pb;
  AlgExpr *ox, *oy, **fx, **fy;
  int nx = alg_term_factors(x, &ox, &fx), ny = alg_term_factors(y, &oy, &fy);
  for (int i = 0; i < nx && i < ny; i++) {
    int c = alg_base_cmp(alg_factor_base(fx[i]), alg_factor_base(fy[i]));
    if (c) return c;
    int64_t ex = alg_factor_exp(fx[i]), ey = alg_factor_exp(fy[i]);
    if (ex != ey) return ex > ey ? -1 : 1;
  }
  if (nx != ny) return nx > ny ? -1 : 1;
  return strcmp(x->key, y->key);
}

static int factor_cmp(const void *pa, const void *pb) {
  AlgExpr *x = *(AlgExpr *const *)pa, *y = *(AlgExpr *const *)pb;
  return alg_base_cmp(alg_factor_base(x), alg_factor_base(y));
}

/* ------------------------------------------------------------ constructors */

AlgExpr *alg_num(AlgCtx *A, AlgNum v) {
  AlgExpr *x = node(A, AK_NUM);
  x->num = v;
  char buf[64];
  alg_num_key(buf, sizeof buf, v);
  SBuf b = {0};
  sbuf_printf(&b, "n:%s", buf);
  x->key = key_done(A, &b);
  return x;
}

bool alg_is_num(const AlgExpr *x, int64_t v) {
  return x->k == AK_NUM && alg_num_exact(x->num) && x->num.q == 1 && x->num.p == v;
}

AlgExpr *alg_fn(AlgCtx *A, IrFunc f, int n, AlgExpr **args) {
  if (f == F_EXP && n == 1 && alg_is_num(args[0], 0)) return alg_num(A, alg_int(1));
  if (f == F_LOG && n == 1 && alg_is_num(args[0], 1)) return alg_num(A, alg_int(0));
  AlgExpr *x = node(A, AK_FN);
  x->fn = f;
  x->n = n;
  x->a = alg_alloc(A, sizeof *x->a * (size_t)n);
  if (n) memcpy(x->a, args, sizeof *x->a * (size_t)n);
  SBuf b = {0};
  sbuf_printf(&b, "F%s(", ir_func_name(f));
  for (int i = 0; i < n; i++) sbuf_printf(&b, "%s%s", i ? "," : "", args[i]->key);
  sbuf_putc(&b, ')');
  x->key = key_done(A, &b);
  return x;
}

static AlgExpr *pow_node(AlgCtx *A, AlgExpr *base, int64_t e) {
  AlgExpr *x = node(A, AK_POW);
  x->base = base;
  x->exp = e;
  SBuf b = {0};
  sbuf_printf(&b, "^(%s;%lld)", base->key, (long long)e);
  x->key = key_done(A, &b);
  return x;
}

AlgNum alg_term_coef(const AlgExpr *t) {
  if (t->k == AK_NUM) return t->num;
  if (t->k == AK_MUL) return t->num;
  return alg_int(1);
}

static AlgExpr *mul_node(AlgCtx *A, AlgNum coef, int n, AlgExpr **f) {
  if (n == 0) return alg_num(A, coef);
  if (alg_num_is_one(coef) && n == 1) return f[0];
  AlgExpr *x = node(A, AK_MUL);
  x->num = coef;
  x->n = n;
  x->a = alg_alloc(A, sizeof *x->a * (size_t)n);
  if (n) memcpy(x->a, f, sizeof *x->a * (size_t)n);
  char buf[64];
  alg_num_key(buf, sizeof buf, coef);
  SBuf b = {0};
  sbuf_printf(&b, "*(%s", buf);
  for (int i = 0; i < n; i++) sbuf_printf(&b, ";%s", f[i]->key);
  sbuf_putc(&b, ')');
  x->key = key_done(A, &b);
  return x;
}

AlgExpr *alg_term_mono(AlgCtx *A, AlgExpr *t) {
  if (t->k == AK_NUM) return NULL;
  if (t->k != AK_MUL) return t;
  return mul_node(A, alg_int(1), t->n, t->a);
}

typedef struct Pair {
  AlgNum c;
  AlgExpr *x;   /* monomial (sum) / base (product) */
  int64_t e;    /* product: exponent */
} Pair;

AlgExpr *alg_add(AlgCtx *A, int n, AlgExpr **terms) {
  Vec items = {0};
  for (int i = 0; i < n; i++) {
    if (terms[i]->k == AK_ADD)
      for (int j = 0; j < terms[i]->n; j++) vpush(A, &items, terms[i]->a[j]);
    else
      vpush(A, &items, terms[i]);
  }
  Pair *p = alg_alloc(A, sizeof *p * (size_t)(items.n + 1));
  int np = 0;
  AlgNum konst = alg_int(0);
  for (int i = 0; i < items.n; i++) {
    AlgExpr *t = items.v[i];
    AlgNum c = alg_term_coef(t);
    AlgExpr *m = alg_term_mono(A, t);
    if (!m) {
      konst = alg_num_add(A, konst, c);
      continue;
    }
    int j = 0;
    while (j < np && !alg_eq(p[j].x, m)) j++;
    if (j < np) {
      p[j].c = alg_num_add(A, p[j].c, c);
    } else {
      p[np++] = (Pair){c, m, 0};
    }
  }
  Vec out = {0};
  bool nested = false;
  for (int j = 0; j < np; j++)
    if (!alg_num_is_zero(p[j].c)) {
      AlgExpr *t = alg_scale(A, p[j].x, p[j].c);
      nested |= t->k == AK_ADD; /* 1*(B+C): its terms join this sum */
      vpush(A, &out, t);
    }
  if (nested) {
    if (!alg_num_is_zero(konst)) vpush(A, &out, alg_num(A, konst));
    return alg_add(A, out.n, out.v);
  }
  if (out.n > ALG_MAXTERMS) alg_fail(A, "a sum would have more than %d terms", ALG_MAXTERMS);
  if (out.n > 1) qsort(out.v, (size_t)out.n, sizeof *out.v, term_cmp);
  if (!alg_num_is_zero(konst)) vpush(A, &out, alg_num(A, konst));
  if (out.n == 0) return alg_num(A, konst);
  if (out.n == 1) return out.v[0];
  AlgExpr *x = node(A, AK_ADD);
  x->n = out.n;
  x->a = out.v;
  SBuf b = {0};
  sbuf_puts(&b, "+(");
  for (int i = 0; i < out.n; i++) sbuf_printf(&b, "%s%s", i ? ";" : "", out.v[i]->key);
  sbuf_putc(&b, ')');
  x->key = key_done(A, &b);
  return x;
}

AlgExpr *alg_add2(AlgCtx *A, AlgExpr *x, AlgExpr *y) {
  AlgExpr *t[2] = {x, y};
  return alg_add(A, 2, t);
}

enum { ALG_MAXEXP = 64 };

AlgExpr *alg_mul(AlgCtx *A, int n, AlgExpr **factors) {
  AlgNum coef = alg_int(1);
  Vec f = {0};
  for (int i = 0; i < n; i++) {
    AlgExpr *x = factors[i];
    if (x->k == AK_NUM) {
      coef = alg_num_mul(A, coef, x->num);
    } else if (x->k == AK_MUL) {
      coef = alg_num_mul(A, coef, x->num);
      for (int j = 0; j < x->n; j++) vpush(A, &f, x->a[j]);
    } else {
      vpush(A, &f, x);
    }
  }
  if (alg_num_is_zero(coef)) return alg_num(A, coef);
  Pair *p = alg_alloc(A, sizeof *p * (size_t)(f.n + 1));
  int np = 0;
  for (int i = 0; i < f.n; i++) {
    AlgExpr *b = alg_factor_base(f.v[i]);
    int64_t e = alg_factor_exp(f.v[i]);
    int j = 0;
    while (j < np && !alg_eq(p[j].x, b)) j++;
    if (j < np) {
      p[j].e += e;
      A->merges++;
      if (p[j].e > ALG_MAXEXP || p[j].e < -ALG_MAXEXP) alg_fail(A, "an exponent is out of range");
    } else {
      p[np++] = (Pair){alg_int(1), b, e};
    }
  }
  Vec out = {0};
  for (int j = 0; j < np; j++)
    if (p[j].e) vpush(A, &out, p[j].e == 1 ? p[j].x : pow_node(A, p[j].x, p[j].e));
  if (out.n > 1) qsort(out.v, (size_t)out.n, sizeof *out.v, factor_cmp);
  return mul_node(A, coef, out.n, out.v);
}

AlgExpr *alg_mul2(AlgCtx *A, AlgExpr *x, AlgExpr *y) {
  AlgExpr *t[2] = {x, y};
  return alg_mul(A, 2, t);
}

AlgExpr *alg_pow(AlgCtx *A, AlgExpr *x, int64_t n) {
  if (n > ALG_MAXEXP || n < -ALG_MAXEXP) alg_fail(A, "an exponent is out of range");
  if (n == 0) return alg_num(A, alg_int(1));
  if (n == 1) return x;
  switch (x->k) {
  case AK_NUM: return alg_num(A, alg_num_pow(A, x->num, n));
  case AK_POW: return alg_pow(A, x->base, x->exp * n);
  case AK_MUL: {
    AlgExpr **f = alg_alloc(A, sizeof *f * (size_t)(x->n + 1));
    f[0] = alg_num(A, alg_num_pow(A, x->num, n));
    for (int i = 0; i < x->n; i++) f[i + 1] = alg_pow(A, x->a[i], n);
    return alg_mul(A, x->n + 1, f);
  }
  default: return pow_node(A, x, n);
  }
}

AlgExpr *alg_scale(AlgCtx *A, AlgExpr *x, AlgNum c) { return alg_mul2(A, alg_num(A, c), x); }
AlgExpr *alg_neg(AlgCtx *A, AlgExpr *x) { return alg_scale(A, x, alg_int(-1)); }

/* ------------------------------------------------------------ from IR */

static const char *ir_text(const IrExpr *e, Arena *a) {
  SBuf b = {0};
  ir_print_expr(&b, e);
  const char *s = arena_strdup(a, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

static AlgExpr *sym(AlgCtx *A, AlgSymKind sk, const IrExpr *e) {
  AlgExpr *x = node(A, AK_SYM);
  x->sk = sk;
  x->ir = e;
  SBuf b = {0};
  /* a reference is its tensor and subscript: the dtype tag is only a
     spelling (sema types the read by the tensor), so C^{f64}_{..} and
     C^{f32}_{..} are one leaf (fuzz_passes: kept apart, (C+1)*(C+1)**4 was
     expanded as a product of two variables) */
  const char *text = sk == AS_INDEX ? e->u.index.name
                     : sk == AS_REF ? arena_printf(&A->mem, "%s_{%s}", e->u.ref->name, rw_sub_text(A->ctx, e->u.ref))
                                    : ir_text(e, &A->mem);
  sbuf_printf(&b, "%c:%s", sk == AS_REF ? 'r' : sk == AS_INDEX ? 'i' : 'o', text);
  x->key = key_done(A, &b);
  return x;
}

/* An integer exponent: a literal (`2`, `-1`, `(-1)`) or +, - and * of
 * such (`(1-2)`: fuzz_passes, where an opaque `M**(1-2)` as a divisor was
 * inf at M = 0 and a common denominator made inf/inf); false otherwise or
 * beyond ALG_MAXEXP. */
bool alg_int_exponent(const IrExpr *e, int64_t *n) {
  e = ir_expr_unparen(e);
  switch (e->kind) {
  case E_INT:
    if (e->u.ilit.value > ALG_MAXEXP) return false;
    *n = e->u.ilit.value;
    return true;
  case E_UNARY:
    if (!alg_int_exponent(e->u.unary.a, n)) return false;
    if (e->u.unary.op == OP_NEG) *n = -*n;
    return e->u.unary.op == OP_NEG || e->u.unary.op == OP_POS;
  case E_BINARY: {
    int64_t a, b;
    if (!alg_int_exponent(e->u.bin.a, &a) || !alg_int_exponent(e->u.bin.b, &b)) return false;
    switch (e->u.bin.op) {
    case OP_ADD: *n = a + b; break;
    case OP_SUB: *n = a - b; break;
    case OP_MUL: *n = a * b; break; /* |a|, |b| <= ALG_MAXEXP: no overflow */
    default: return false;
    }
    return *n <= ALG_MAXEXP && *n >= -ALG_MAXEXP;
  }
  default: return false;
  }
}

AlgExpr *alg_from_ir(AlgCtx *A, const IrExpr *e) {
  switch (e->kind) {
  case E_INT:
    if (e->u.ilit.value >= ((int64_t)1 << 62)) alg_fail(A, "the integer literal %lld is too large", (long long)e->u.ilit.value);
    return alg_num(A, alg_int(e->u.ilit.value));
  case E_FLOAT: return alg_num(A, alg_from_double(e->u.flit.value));
  case E_INF: alg_fail(A, "the expression contains 'inf'");
  case E_INDEX: return sym(A, AS_INDEX, e);
  case E_REF: {
    const IrRef *r = e->u.ref;
    IrDType t = r->tensor ? r->tensor->dtype : r->dt_tag;
    if (!ir_dtype_is_float(t))
      alg_fail(A, "tensor '%s' is %s; the algebra assumes floating-point operands", r->name, ir_dtype_name(t));
    return sym(A, AS_REF, e);
  }
  case E_PAREN: return alg_from_ir(A, e->u.paren);
  case E_UNARY: {
    AlgExpr *x = alg_from_ir(A, e->u.unary.a);
    return e->u.unary.op == OP_NEG ? alg_neg(A, x) : x;
  }
  case E_BINARY: {
    const IrExpr *l = e->u.bin.a, *r = e->u.bin.b;
    switch (e->u.bin.op) {
    case OP_ADD: return alg_add2(A, alg_from_ir(A, l), alg_from_ir(A, r));
    case OP_SUB: return alg_add2(A, alg_from_ir(A, l), alg_neg(A, alg_from_ir(A, r)));
    case OP_MUL: return alg_mul2(A, alg_from_ir(A, l), alg_from_ir(A, r));
    case OP_DIV: {
      /* an index divisor that is 0 at some index value: cancelling it
         (tx/tx = 1) would turn 0/0 = NaN into a number (fuzz_passes) */
      IrRange rg = ir_expr_range(r);
      if (rg.ok && rg.lo <= 0 && rg.hi >= 0) alg_fail(A, "the divisor %s is 0 for some index values", ir_text(r, &A->mem));
      const char *inf = A->divisor_inf ? A->divisor_inf(A, r) : NULL;
      if (inf) alg_fail(A, "the divisor %s may be infinite: %s", ir_text(r, &A->mem), inf);
      AlgExpr *x = alg_from_ir(A, l);
      return alg_mul2(A, x, alg_pow(A, alg_from_ir(A, r), -1));
    }
    case OP_POW: {
      int64_t n;
      if (alg_int_exponent(r, &n)) return alg_pow(A, alg_from_ir(A, l), n);
      return sym(A, AS_OPAQUE, e);
    }
    default: return sym(A, AS_OPAQUE, e);
    }
  }
  case E_CALL: {
    IrFunc f = e->u.call.func;
    if (f == F_ITE || f == F_ERF) alg_fail(A, "the expression contains %s", ir_func_name(f));
    int n = e->u.call.nargs;
    AlgExpr **args = alg_alloc(A, sizeof *args * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) args[i] = alg_from_ir(A, e->u.call.args[i]);
    return alg_fn(A, f, n, args);
  }
  default: return sym(A, AS_OPAQUE, e);
  }
}

/* ------------------------------------------------------------ to IR */

/* |v| as a literal (a rational p/q as p/q). */
static IrExpr *num_ir(LeirCtx *ctx, AlgNum v) {
  v = alg_num_abs(v);
  if (v.k != AN_RAT) return ir_float(ctx, v.f);
  if (v.q == 1) return ir_int(ctx, v.p);
  return ir_binary(ctx, OP_DIV, ir_int(ctx, v.p), ir_int(ctx, v.q));
}

static IrExpr *to_ir(AlgCtx *A, LeirCtx *ctx, const AlgExpr *x);

static IrExpr *power_ir(AlgCtx *A, LeirCtx *ctx, const AlgExpr *base, int64_t e) {
  IrExpr *b = to_ir(A, ctx, base);
  return e == 1 ? b : ir_binary(ctx, OP_POW, b, ir_int(ctx, e));
}

static IrExpr *chain(LeirCtx *ctx, IrExpr *acc, IrExpr *x) { return acc ? ir_binary(ctx, OP_MUL, acc, x) : x; }

/* coef * factors, without the sign of coef unless `signed_`; negative
 * powers go to a denominator. */
static IrExpr *product_ir(AlgCtx *A, LeirCtx *ctx, AlgNum coef, int n, AlgExpr *const *f, bool signed_) {
  IrExpr *num = NULL, *den = NULL;
  AlgNum c = alg_num_abs(coef);
  if (c.k == AN_RAT) {
    if (c.p != 1) num = ir_int(ctx, c.p);
    if (c.q != 1) den = ir_int(ctx, c.q);
  } else if (!alg_num_is_one(c)) {
    num = ir_float(ctx, c.f);
  }
  for (int i = 0; i < n; i++) {
    int64_t e = alg_factor_exp(f[i]);
    const AlgExpr *b = alg_factor_base((AlgExpr *)f[i]);
    if (e > 0) num = chain(ctx, num, power_ir(A, ctx, b, e));
    else den = chain(ctx, den, power_ir(A, ctx, b, -e));
  }
  if (!num) num = ir_int(ctx, 1);
  if (signed_ && alg_num_sign(coef) < 0) {
    /* negate the first factor: `-A*C`, `-2*A`, `-1/(A+1)` */
    IrExpr **first = &num;
    while ((*first)->kind == E_BINARY && (*first)->u.bin.op == OP_MUL) first = &(*first)->u.bin.a;
    *first = ir_unary(ctx, OP_NEG, *first);
  }
  return den ? ir_binary(ctx, OP_DIV, num, den) : num;
}

/* A term of a sum without its sign. */
static IrExpr *term_ir(AlgCtx *A, LeirCtx *ctx, const AlgExpr *t, bool signed_) {
  if (t->k == AK_NUM) {
    IrExpr *v = num_ir(ctx, t->num);
    return signed_ && alg_num_sign(t->num) < 0 ? ir_unary(ctx, OP_NEG, v) : v;
  }
  if (t->k == AK_MUL) return product_ir(A, ctx, t->num, t->n, t->a, signed_);
  return product_ir(A, ctx, alg_int(1), 1, (AlgExpr *const *)&t, signed_);
}

static IrExpr *to_ir(AlgCtx *A, LeirCtx *ctx, const AlgExpr *x) {
  switch (x->k) {
  case AK_NUM: return term_ir(A, ctx, x, true);
  case AK_SYM: return ir_expr_clone(ctx, x->ir);
  case AK_FN: {
    IrExpr **args = arena_alloc(&ctx->arena, sizeof *args * (size_t)(x->n ? x->n : 1));
    for (int i = 0; i < x->n; i++) args[i] = to_ir(A, ctx, x->a[i]);
    return ir_call(ctx, x->fn, x->n, args);
  }
  case AK_POW:
  case AK_MUL: return term_ir(A, ctx, x, true);
  case AK_ADD: {
    IrExpr *acc = term_ir(A, ctx, x->a[0], true);
    for (int i = 1; i < x->n; i++) {
      bool neg = alg_num_sign(alg_term_coef(x->a[i])) < 0;
      acc = ir_binary(ctx, neg ? OP_SUB : OP_ADD, acc, term_ir(A, ctx, x->a[i], false));
    }
    return acc;
  }
  }
  return ir_int(ctx, 0);
}

IrExpr *alg_to_ir(AlgCtx *A, const AlgExpr *x) { return to_ir(A, A->ctx, x); }

IrExpr *alg_to_ir_in(AlgCtx *A, LeirCtx *ctx, const AlgExpr *x) { return to_ir(A, ctx, x); }

IrExpr *alg_sum_after(AlgCtx *A, LeirCtx *ctx, IrExpr *head, const AlgExpr *x) {
  int n = x->k == AK_ADD ? x->n : 1;
  AlgExpr *const *t = x->k == AK_ADD ? x->a : (AlgExpr *const *)&x;
  for (int i = 0; i < n; i++) {
    bool neg = alg_num_sign(alg_term_coef(t[i])) < 0;
    head = ir_binary(ctx, neg ? OP_SUB : OP_ADD, head, term_ir(A, ctx, t[i], false));
  }
  return head;
}

const char *alg_text(AlgCtx *A, const AlgExpr *x) {
  IrExpr *e = to_ir(A, &A->scratch, x);
  return ir_text(e, &A->mem);
}

const char *alg_bare(AlgCtx *A, const AlgExpr *x) {
  const char *t = alg_text(A, x);
  char *out = alg_alloc(A, strlen(t) + 1);
  size_t k = 0;
  for (const char *p = t; *p;) {
    if ((p[0] == '^' || p[0] == '_') && p[1] == '{') {
      int depth = 0;
      p++;
      do {
        if (*p == '{') depth++;
        else if (*p == '}') depth--;
        p++;
      } while (*p && depth > 0);
      continue;
    }
    out[k++] = *p++;
  }
  out[k] = 0;
  return out;
}

/* ------------------------------------------------------------ queries */

static void gens(AlgCtx *A, AlgExpr *x, Vec *v) {
  switch (x->k) {
  case AK_NUM: return;
  case AK_SYM:
  case AK_FN:
    if (x->k == AK_SYM && x->sk == AS_OPAQUE) return;
    for (int i = 0; i < v->n; i++)
      if (alg_eq(v->v[i], x)) goto inside;
    vpush(A, v, x);
  inside:
    if (x->k == AK_FN)
      for (int i = 0; i < x->n; i++) gens(A, x->a[i], v);
    return;
  case AK_POW: gens(A, x->base, v); return;
  case AK_ADD:
  case AK_MUL:
    for (int i = 0; i < x->n; i++) gens(A, x->a[i], v);
    return;
  }
}

static int base_qcmp(const void *pa, const void *pb) {
  return alg_base_cmp(*(AlgExpr *const *)pa, *(AlgExpr *const *)pb);
}

void alg_generators(AlgCtx *A, AlgExpr *x, PtrVec *out) {
  Vec v = {0};
  gens(A, x, &v);
  if (v.n > 1) qsort(v.v, (size_t)v.n, sizeof *v.v, base_qcmp);
  for (int i = 0; i < v.n; i++) ptrvec_push(&A->mem, out, v.v[i]);
}
