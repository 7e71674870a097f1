/* ir.c -- IR tables, constructors, deep copies and walkers. */
#include "ir/ir.h"
#include "ir/mathlib.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ dtypes */

static const struct {
  const char *code;
  int size;
} dtypes[DT__COUNT] = {
  [DT_F16] = {"f16", 2},  [DT_BF16] = {"bf16", 2}, [DT_F32] = {"f32", 4},
  [DT_F64] = {"f64", 8},  [DT_I8] = {"i8", 1},     [DT_I16] = {"i16", 2},
  [DT_I32] = {"i32", 4},  [DT_I64] = {"i64", 8},   [DT_U8] = {"u8", 1},
  [DT_U16] = {"u16", 2},  [DT_U32] = {"u32", 4},   [DT_U64] = {"u64", 8},
  [DT_BOOL] = {"bool", 1},
};

const char *ir_dtype_name(IrDType t) {
  return t >= 0 && t < DT__COUNT ? dtypes[t].code : "?";
}

IrDType ir_dtype_from_name(const char *s) {
  for (int i = 0; i < DT__COUNT; i++)
    if (!strcmp(s, dtypes[i].code)) return (IrDType)i;
  return DT_NONE;
}

IrDType ir_dtype_from_any(const char *s) {
  static const struct { const char *name; IrDType t; } torch[] = {
    {"float16", DT_F16}, {"half", DT_F16},     {"bfloat16", DT_BF16},
    {"float32", DT_F32}, {"float", DT_F32},    {"float64", DT_F64},
    {"double", DT_F64},  {"int8", DT_I8},      {"int16", DT_I16},
    {"int32", DT_I32},   {"int", DT_I32},      {"int64", DT_I64},
    {"long", DT_I64},    {"uint8", DT_U8},     {"uint16", DT_U16},
    {"uint32", DT_U32},  {"uint64", DT_U64},   {"bool", DT_BOOL},
  };
  IrDType t = ir_dtype_from_name(s);
  if (t != DT_NONE) return t;
  if (!strncmp(s, "torch.", 6)) s += 6;
  for (size_t i = 0; i < sizeof torch / sizeof torch[0]; i++)
    if (!strcmp(s, torch[i].name)) return torch[i].t;
  return DT_NONE;
}

bool ir_dtype_is_known_unsupported(const char *s) {
  static const char *const un[] = {"c64", "c128", "str", "undef", "u4", "i4", "f8e4m3fn",
                                   "f8e4m3fnuz", "f8e5m2", "f8e5m2fnu", "f8e5m2fnuz"};
  for (size_t i = 0; i < sizeof un / sizeof un[0]; i++)
    if (!strcmp(s, un[i])) return true;
  return false;
}

int ir_dtype_size(IrDType t) { return t >= 0 && t < DT__COUNT ? dtypes[t].size : 0; }
bool ir_dtype_is_float(IrDType t) { return ir_dtype_is_half(t) || t == DT_F32 || t == DT_F64; }
bool ir_dtype_is_half(IrDType t) { return t == DT_F16 || t == DT_BF16; }

bool ir_dtype_value_finite(IrDType t, double v) {
  if (!isfinite(v)) return false;
  switch (t) {
  case DT_F32: return isfinite((float)v);
  case DT_F16: return fabs(v) < 65520.0;              /* 65504 + half an ulp */
  case DT_BF16: return fabs(v) < 0x1.ffp127;           /* 0x1.fep127 + half an ulp */
  default: return true;
  }
}
double ir_dtype_literal_value(IrDType t, double v) {
  switch (t) {
  case DT_F64: return v;
  case DT_F32: return (float)v;
  case DT_F16: return leir_f16_to_f32(leir_f32_to_f16((float)v));
  case DT_BF16: return leir_bf16_to_f32(leir_f32_to_bf16((float)v));
  default: return v == trunc(v) ? v : NAN;
  }
}

bool ir_dtype_is_signed_int(IrDType t) { return t >= DT_I8 && t <= DT_I64; }
bool ir_dtype_is_unsigned_int(IrDType t) { return t >= DT_U8 && t <= DT_U64; }

IrDType ir_dtype_promote(IrDType t) {
  return (t == DT_BOOL || t == DT_I8 || t == DT_I16 || t == DT_U8 || t == DT_U16) ? DT_I32 : t;
}

IrDType ir_dtype_usual(IrDType a, IrDType b) {
  if (a == b && a != DT_BOOL) return a;
  bool fa = ir_dtype_is_float(a), fb = ir_dtype_is_float(b);
  if (fa || fb) {
    if (a == DT_F64 || b == DT_F64) return DT_F64;
    if (a == DT_F32 || b == DT_F32) return DT_F32;
    if (fa && fb) return DT_F32; /* f16 with bf16 */
    return fa ? a : b;
  }
  a = ir_dtype_promote(a);
  b = ir_dtype_promote(b);
  if (a == b) return a;
  int sa = ir_dtype_size(a), sb = ir_dtype_size(b);
  bool ua = ir_dtype_is_unsigned_int(a), ub = ir_dtype_is_unsigned_int(b);
  if (ua == ub) return sa >= sb ? a : b;
  IrDType u = ua ? a : b, sg = ua ? b : a;
  return ir_dtype_size(u) >= ir_dtype_size(sg) ? u : sg;
}

bool ir_dtype_convert_monotone(IrDType from, IrDType to) {
  if (from == to || ir_dtype_is_float(to)) return true;
  if (to == DT_BOOL) return ir_dtype_is_unsigned_int(from);
  if (ir_dtype_is_float(from) || from == DT_BOOL) return true;
  int fb = ir_dtype_size(from), tb = ir_dtype_size(to);
  if (ir_dtype_is_signed_int(from)) return ir_dtype_is_signed_int(to) && tb >= fb;
  return ir_dtype_is_signed_int(to) ? tb > fb : tb >= fb;
}

static const char *const scopes[SC__COUNT] = {"g", "s", "l"};
const char *ir_scope_name(IrScope s) { return s >= 0 && s < SC__COUNT ? scopes[s] : "?"; }
IrScope ir_scope_from_name(const char *s) {
  for (int i = 0; i < SC__COUNT; i++)
    if (!strcmp(s, scopes[i])) return (IrScope)i;
  return SC_NONE;
}

const char *ir_role_name(IrRole r) {
  static const char *const n[] = {"in", "param", "out", "tmp"};
  return n[r];
}

char ir_loop_kind_char(IrLoopKind k) { return "LPVUB"[k]; }

const char *ir_hw_axis_name(IrHwAxis a) {
  static const char *const n[] = {"none", "threadIdx.x", "threadIdx.y", "threadIdx.z",
                                  "blockIdx.x", "blockIdx.y", "blockIdx.z"};
  return n[a];
}

IrHwAxis ir_hw_axis_of_index(const char *s) {
  if ((s[0] != 't' && s[0] != 'b') || !s[1] || (s[1] < 'x' || s[1] > 'z')) return HW_NONE;
  for (const char *p = s + 2; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return HW_NONE;
  return (IrHwAxis)((s[0] == 't' ? HW_TX : HW_BX) + (s[1] - 'x'));
}

const char *ir_op_text(IrOp op) {
  static const char *const t[] = {"+", "-", "*", "/", "//", "%", "**", "&", "|", "-", "+",
                                  "<", "<=", ">", ">=", "==", "!="};
  return t[op];
}

const char *ir_func_name(IrFunc f) {
  static const char *const n[] = {"exp", "log", "sqrt", "abs", "erf", "max", "min", "if_then_else"};
  return n[f];
}

int64_t ir_tensor_numel(const IrTensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++)
    if (__builtin_mul_overflow(n, t->shape[i], &n)) return INT64_MAX;
  return n;
}

uint64_t ir_nest_execs(const IrNest *n, uint64_t m) {
  for (int i = 0; i < n->nloops; i++)
    m = ir_mul_sat_u64(m, n->loops[i]->extent > 0 ? (uint64_t)n->loops[i]->extent : 0);
  uint64_t w = 0;
  for (int i = 0; i < n->nitems; i++)
    w = ir_add_sat_u64(w, n->items[i].kind == ITEM_STMT ? m : ir_nest_execs(n->items[i].u.nest, m));
  return w;
}

uint64_t ir_program_execs(const IrProgram *p) {
  uint64_t w = 0;
  for (int i = 0; i < p->nnests; i++) w = ir_add_sat_u64(w, ir_nest_execs(p->nests[i], 1));
  return w;
}

bool ir_tensor_same_type(const IrTensor *a, const IrTensor *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return true;
}

static void subscript_text(SBuf *b, const IrRef *r) {
  for (int i = 0; i < r->nsub; i++) {
    if (i) sbuf_putc(b, ',');
    ir_print_expr(b, r->sub[i]);
  }
}

bool ir_ref_same_subscript(const IrRef *a, const IrRef *b) {
  if (a->nsub != b->nsub) return false;
  SBuf x = {0}, y = {0};
  subscript_text(&x, a);
  subscript_text(&y, b);
  bool eq = !strcmp(x.s ? x.s : "", y.s ? y.s : "");
  sbuf_free(&x);
  sbuf_free(&y);
  return eq;
}

IrTensor *ir_find_tensor(const IrProgram *p, const char *name) {
  for (int i = 0; i < p->ntensors; i++)
    if (!strcmp(p->tensors[i]->name, name)) return p->tensors[i];
  return NULL;
}

/* ------------------------------------------------------------ construction */

IrExpr *ir_expr_new(LeirCtx *ctx, IrExprKind k, IrLoc loc) {
  IrExpr *e = arena_alloc(&ctx->arena, sizeof *e);
  e->kind = k;
  e->loc = loc;
  e->type = DT_NONE;
  return e;
}

static const IrLoc noloc;

IrExpr *ir_int(LeirCtx *ctx, int64_t v) {
  IrExpr *e = ir_expr_new(ctx, E_INT, noloc);
  e->u.ilit.value = v;
  return e;
}

IrExpr *ir_float(LeirCtx *ctx, double v) {
  IrExpr *e = ir_expr_new(ctx, E_FLOAT, noloc);
  e->u.flit.value = v;
  return e;
}

IrExpr *ir_index(LeirCtx *ctx, const char *name) {
  IrExpr *e = ir_expr_new(ctx, E_INDEX, noloc);
  e->u.index.name = arena_strdup(&ctx->arena, name);
  return e;
}

IrExpr *ir_binary(LeirCtx *ctx, IrOp op, IrExpr *a, IrExpr *b) {
  IrExpr *e = ir_expr_new(ctx, E_BINARY, a ? a->loc : noloc);
  e->u.bin.op = op;
  e->u.bin.a = a;
  e->u.bin.b = b;
  return e;
}

IrExpr *ir_unary(LeirCtx *ctx, IrOp op, IrExpr *a) {
  IrExpr *e = ir_expr_new(ctx, E_UNARY, a ? a->loc : noloc);
  e->u.unary.op = op;
  e->u.unary.a = a;
  return e;
}

IrExpr *ir_paren(LeirCtx *ctx, IrExpr *a) {
  IrExpr *e = ir_expr_new(ctx, E_PAREN, a ? a->loc : noloc);
  e->u.paren = a;
  return e;
}

IrExpr *ir_call(LeirCtx *ctx, IrFunc f, int nargs, IrExpr **args) {
  IrExpr *e = ir_expr_new(ctx, E_CALL, nargs ? args[0]->loc : noloc);
  e->u.call.func = f;
  e->u.call.nargs = nargs;
  e->u.call.args = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(nargs ? nargs : 1));
  memcpy(e->u.call.args, args, sizeof(IrExpr *) * (size_t)nargs);
  return e;
}

IrExpr *ir_refexpr(LeirCtx *ctx, IrRef *r) {
  IrExpr *e = ir_expr_new(ctx, E_REF, r->loc);
  e->u.ref = r;
  return e;
}

IrRef *ir_ref_new(LeirCtx *ctx, const char *name, IrDType dt, IrScope sc, int nsub, IrExpr **sub) {
  IrRef *r = arena_alloc(&ctx->arena, sizeof *r);
  r->name = arena_strdup(&ctx->arena, name);
  r->dt_tag = dt;
  r->sc_tag = sc;
  r->nsub = nsub;
  r->sub = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(nsub ? nsub : 1));
  if (nsub) memcpy(r->sub, sub, sizeof(IrExpr *) * (size_t)nsub);
  return r;
}

IrLoop *ir_loop_new(LeirCtx *ctx, IrLoopKind k, int64_t extent, const char *index) {
  IrLoop *l = arena_alloc(&ctx->arena, sizeof *l);
  l->kind = k;
  l->extent = extent;
  l->index = arena_strdup(&ctx->arena, index);
  l->hw = k == LOOP_B ? ir_hw_axis_of_index(index) : HW_NONE;
  return l;
}

IrStmt *ir_stmt_new(LeirCtx *ctx, IrRef *lhs, IrExpr *rhs) {
  IrStmt *s = arena_alloc(&ctx->arena, sizeof *s);
  s->lhs = lhs;
  s->rhs = rhs;
  s->loc = lhs->loc;
  return s;
}

IrNest *ir_nest_new(LeirCtx *ctx, int nloops, IrLoop **loops) {
  IrNest *n = arena_alloc(&ctx->arena, sizeof *n);
  n->nloops = nloops;
  n->loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(nloops ? nloops : 1));
  if (nloops) memcpy(n->loops, loops, sizeof(IrLoop *) * (size_t)nloops);
  if (nloops) n->loc = loops[0]->loc;
  return n;
}

void ir_nest_add_item(LeirCtx *ctx, IrNest *n, IrItemKind k, void *p) {
  IrItem *items = arena_alloc(&ctx->arena, sizeof(IrItem) * (size_t)(n->nitems + 1));
  if (n->nitems) memcpy(items, n->items, sizeof(IrItem) * (size_t)n->nitems);
  items[n->nitems].kind = k;
  if (k == ITEM_STMT)
    items[n->nitems].u.stmt = p;
  else
    items[n->nitems].u.nest = p;
  n->items = items;
  n->nitems++;
}

/* ------------------------------------------------------------ copies */

IrRef *ir_ref_clone(LeirCtx *ctx, const IrRef *r) {
  IrRef *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *r;
  c->sub = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(r->nsub ? r->nsub : 1));
  for (int i = 0; i < r->nsub; i++) c->sub[i] = ir_expr_clone(ctx, r->sub[i]);
  return c;
}

IrExpr *ir_expr_clone(LeirCtx *ctx, const IrExpr *e) {
  if (!e) return NULL;
  IrExpr *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *e;
  switch (e->kind) {
  case E_INDEX: c->u.index.loop = NULL; break;
  case E_REF: c->u.ref = ir_ref_clone(ctx, e->u.ref); break;
  case E_UNARY: c->u.unary.a = ir_expr_clone(ctx, e->u.unary.a); break;
  case E_BINARY:
    c->u.bin.a = ir_expr_clone(ctx, e->u.bin.a);
    c->u.bin.b = ir_expr_clone(ctx, e->u.bin.b);
    break;
  case E_CMP:
    c->u.cmp.operand = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)e->u.cmp.n);
    c->u.cmp.op = arena_alloc(&ctx->arena, sizeof(IrOp) * (size_t)e->u.cmp.n);
    for (int i = 0; i < e->u.cmp.n; i++) c->u.cmp.operand[i] = ir_expr_clone(ctx, e->u.cmp.operand[i]);
    memcpy(c->u.cmp.op, e->u.cmp.op, sizeof(IrOp) * (size_t)(e->u.cmp.n - 1));
    break;
  case E_CALL:
    c->u.call.args = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)e->u.call.nargs);
    for (int i = 0; i < e->u.call.nargs; i++) c->u.call.args[i] = ir_expr_clone(ctx, e->u.call.args[i]);
    break;
  case E_PAREN: c->u.paren = ir_expr_clone(ctx, e->u.paren); break;
  default: break;
  }
  return c;
}

static IrStmt *stmt_clone(LeirCtx *ctx, const IrStmt *s) {
  IrStmt *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *s;
  c->lhs = ir_ref_clone(ctx, s->lhs);
  c->rhs = ir_expr_clone(ctx, s->rhs);
  c->red = NULL;
  c->nred = 0;
  return c;
}

IrNest *ir_nest_clone(LeirCtx *ctx, const IrNest *n) {
  IrNest *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *n;
  c->loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops ? n->nloops : 1));
  for (int i = 0; i < n->nloops; i++) {
    c->loops[i] = arena_alloc(&ctx->arena, sizeof(IrLoop));
    *c->loops[i] = *n->loops[i];
  }
  c->items = arena_alloc(&ctx->arena, sizeof(IrItem) * (size_t)(n->nitems ? n->nitems : 1));
  for (int i = 0; i < n->nitems; i++) {
    c->items[i].kind = n->items[i].kind;
    if (n->items[i].kind == ITEM_STMT)
      c->items[i].u.stmt = stmt_clone(ctx, n->items[i].u.stmt);
    else
      c->items[i].u.nest = ir_nest_clone(ctx, n->items[i].u.nest);
  }
  return c;
}

/* Tensors are copied too, and refs re-pointed at the copies, so a pass may
 * change a tensor of the copy without touching the original program. */
static void repoint(IrExpr *e, void *user) {
  const IrProgram *np = user;
  if (e->kind == E_REF && e->u.ref->tensor) e->u.ref->tensor = np->tensors[e->u.ref->tensor->id];
}

static void repoint_stmt(IrStmt *s, IrNest *n, void *user) {
  (void)n;
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = s->lhs;
  ir_walk_expr(&tmp, repoint, user);
  ir_walk_expr(s->rhs, repoint, user);
}

IrProgram *ir_program_clone(LeirCtx *ctx, const IrProgram *p) {
  IrProgram *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *p;
  c->tensors = arena_alloc(&ctx->arena, sizeof(IrTensor *) * (size_t)(p->ntensors ? p->ntensors : 1));
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = arena_alloc(&ctx->arena, sizeof *t);
    *t = *p->tensors[i];
    if (t->rank > 0) {
      t->shape = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)t->rank);
      memcpy(t->shape, p->tensors[i]->shape, sizeof(int64_t) * (size_t)t->rank);
    }
    c->tensors[i] = t;
  }
  c->nests = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)(p->nnests ? p->nnests : 1));
  for (int i = 0; i < p->nnests; i++) c->nests[i] = ir_nest_clone(ctx, p->nests[i]);
  c->stmts = NULL;
  c->nstmts = 0;
  /* refs still point at the old tensors: re-point them */
  ir_for_each_stmt(c, repoint_stmt, c);
  return c;
}

/* ------------------------------------------------------------ walkers */

void ir_walk_expr(IrExpr *e, IrExprFn fn, void *user) {
  if (!e) return;
  fn(e, user);
  switch (e->kind) {
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) ir_walk_expr(e->u.ref->sub[i], fn, user);
    break;
  case E_UNARY: ir_walk_expr(e->u.unary.a, fn, user); break;
  case E_BINARY:
    ir_walk_expr(e->u.bin.a, fn, user);
    ir_walk_expr(e->u.bin.b, fn, user);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) ir_walk_expr(e->u.cmp.operand[i], fn, user);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) ir_walk_expr(e->u.call.args[i], fn, user);
    break;
  case E_PAREN: ir_walk_expr(e->u.paren, fn, user); break;
  default: break;
  }
}

static void for_each_in_nest(IrNest *n, IrStmtFn fn, void *user) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_STMT)
      fn(n->items[k].u.stmt, n, user);
    else
      for_each_in_nest(n->items[k].u.nest, fn, user);
  }
}

void ir_for_each_stmt(IrProgram *p, IrStmtFn fn, void *user) {
  for (int i = 0; i < p->nnests; i++) for_each_in_nest(p->nests[i], fn, user);
}

/* ------------------------------------------------------------ SBuf */

#include <stdlib.h>

static void sbuf_grow(SBuf *b, size_t need) {
  if (b->len + need + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + need + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    fputs("leirc: out of memory\n", stderr);
    exit(2);
  }
  b->s = s;
  b->cap = cap;
}

void sbuf_putc(SBuf *b, char c) {
  sbuf_grow(b, 1);
  b->s[b->len++] = c;
  b->s[b->len] = 0;
}

void sbuf_puts(SBuf *b, const char *s) {
  size_t n = strlen(s);
  sbuf_grow(b, n);
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

void sbuf_printf(SBuf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  sbuf_grow(b, (size_t)n);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  b->len += (size_t)n;
}

void sbuf_free(SBuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}

/* ------------------------------------------------------------ depth */

static int expr_depth(const IrExpr *e, int cap) {
  if (!e || cap <= 0) return 0;
  int d = 0;
  switch (e->kind) {
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub && d < cap - 1; i++) {
      int k = expr_depth(e->u.ref->sub[i], cap - 1);
      if (k > d) d = k;
    }
    break;
  case E_UNARY: d = expr_depth(e->u.unary.a, cap - 1); break;
  case E_BINARY: {
    d = expr_depth(e->u.bin.a, cap - 1);
    int k = d < cap - 1 ? expr_depth(e->u.bin.b, cap - 1) : 0;
    if (k > d) d = k;
    break;
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n && d < cap - 1; i++) {
      int k = expr_depth(e->u.cmp.operand[i], cap - 1);
      if (k > d) d = k;
    }
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && d < cap - 1; i++) {
      int k = expr_depth(e->u.call.args[i], cap - 1);
      if (k > d) d = k;
    }
    break;
  case E_PAREN: d = expr_depth(e->u.paren, cap - 1); break;
  default: break;
  }
  return d + 1;
}

static int nest_depth(const IrNest *n, int cap) {
  int d = 0;
  for (int i = 0; i < n->nitems && d < cap; i++) {
    int k = 0;
    if (n->items[i].kind == ITEM_NEST) {
      k = nest_depth(n->items[i].u.nest, cap);
    } else {
      const IrStmt *s = n->items[i].u.stmt;
      k = expr_depth(s->rhs, cap);
      for (int j = 0; j < s->lhs->nsub && k < cap; j++) {
        int l = expr_depth(s->lhs->sub[j], cap);
        if (l > k) k = l;
      }
    }
    if (k > d) d = k;
  }
  return d;
}

int ir_program_expr_depth(const IrProgram *p, int cap) {
  int d = 0;
  for (int i = 0; i < p->nnests && d < cap; i++) {
    int k = nest_depth(p->nests[i], cap);
    if (k > d) d = k;
  }
  return d < cap ? d : cap;
}
