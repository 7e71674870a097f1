/* emit_cuda.c -- CUDA C for a LEIR program (`leirc --emit=cuda`).
 *
 * The same program as the PTX path, written as readable CUDA C: the launch
 * plan is codegen/plan.c's (kernel formation, host loops, launch
 * configuration, placement of s/l tensors, cross-thread reductions), and
 * every construct is printed the way codegen/lower.c and codegen/reduce.c
 * lower it: 64-bit index arithmetic, the bounds guard, §9.5 initialisation,
 * the statement run once outside the B loops of its kernel, barriers around
 * shared tensors, the tree order of SPEC §13.3 for reductions over a
 * threadIdx-bound index, and leirc's own math routines
 * (codegen/emit_cuda_math.h, a device copy of ir/mathlib.c).  Floating
 * multiplication, division and square root are the _rn intrinsics, so nvcc
 * can neither contract nor approximate them whatever its flags (-fmad,
 * -prec-div, -prec-sqrt): results equal the PTX path's bit for bit.
 *
 * Layout of the output: a comment header, the helpers the program needs,
 * one `__global__ void leir_k<i>` per top-level nest, and the host function
 * `extern "C" cudaError_t leir_main(<arguments in declaration order>)`
 * taking device pointers, which allocates the global intermediates,
 * launches the kernels in nest order on the default stream and frees them.
 */
#include "codegen/cg.h"
#include "codegen/emit.h"
#include "codegen/emit_cuda_math.h"
#include "codegen/unroll.h"
#include "ir/mathlib.h"
#include "ir/strength.h"
#include "ir/contract.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NCHUNKS (sizeof cu_math_chunks / sizeof cu_math_chunks[0])

typedef struct Cu {
  LeirCtx *ctx;
  const IrProgram *p;
  CgPlan *plan;
  const CgKernel *k;
  SBuf *out;
  int indent;
  bool need[NCHUNKS];  /* helper chunks used so far */
  bool barrier_last;   /* the last thing printed was __syncthreads() */
  bool hw_scope[6];    /* the B loop of this axis encloses the code */
  IrValueGuards guards; /* facts.h: what enclosing if_then_else conditions
                           prove of loop indices (lower.c's f->guards) */
} Cu;

/* ------------------------------------------------------------ text */

static void line(Cu *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Cu *c, const char *fmt, ...) {
  for (int i = 0; i < c->indent; i++) sbuf_puts(c->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof buf) {
    sbuf_puts(c->out, buf);
  } else { /* long line: format again into a buffer that fits */
    char *big = arena_alloc(&c->ctx->arena, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sbuf_puts(c->out, big);
  }
  sbuf_putc(c->out, '\n');
}

/* Marks chunk `name` and its dependencies as needed. */
static void use(Cu *c, const char *name) {
  for (size_t i = 0; i < NCHUNKS; i++) {
    if (strcmp(cu_math_chunks[i].name, name)) continue;
    if (c->need[i]) return;
    c->need[i] = true;
    char deps[128];
    snprintf(deps, sizeof deps, "%s", cu_math_chunks[i].deps);
    for (char *save = NULL, *d = strtok_r(deps, " ", &save); d; d = strtok_r(NULL, " ", &save)) use(c, d);
    return;
  }
}

/* C/C++/CUDA words an index name must not take (LEIR index names are
 * [a-z][a-z0-9_]*); such a name gets a trailing underscore. */
static const char *cname(const char *s) {
  static const char *const words[] = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "continue", "decltype", "default", "delete", "do", "double", "else", "enum", "explicit",
      "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
      "namespace", "new", "noexcept", "not", "nullptr", "operator", "or", "private", "protected", "public",
      "register", "return", "short", "signed", "sizeof", "static", "struct", "switch", "template", "this",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "while", "xor", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
      "floor", "floorf", "fabs", "fabsf", "fma", "signbit", "memcpy", "copysign", "horner", "dbl", "flt",
      "bits32", "bits64", "pow2i", "exp_core", "log_dd", "log_mant", "is_int", "dd_mul", "pow_int", "pow_mag",
      "nan_fix1", "err"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (!strcmp(s, words[i])) return NULL;
  return strncmp(s, "leir_", 5) ? s : NULL;
}

static void put_index(SBuf *b, const char *name) {
  if (cname(name)) sbuf_puts(b, name);
  else sbuf_printf(b, "%s_", name);
}

/* ------------------------------------------------------------ types */

/* The C type a value of dtype t lives in (f16/bf16 compute in float). */
static const char *reg_type(IrDType t) {
  switch (t) {
  case DT_F16: case DT_BF16: case DT_F32: return "float";
  case DT_F64: return "double";
  case DT_I8: return "int8_t";
  case DT_I16: return "int16_t";
  case DT_I32: return "int32_t";
  case DT_I64: return "int64_t";
  case DT_U8: return "uint8_t";
  case DT_U16: return "uint16_t";
  case DT_U32: return "uint32_t";
  case DT_U64: return "uint64_t";
  case DT_BOOL: return "bool";
  default: return "int64_t";
  }
}

/* The C type of an element in memory (f16/bf16 as their bits, bool a byte). */
static const char *mem_type(IrDType t) {
  if (ir_dtype_is_half(t)) return "uint16_t";
  if (t == DT_BOOL) return "uint8_t";
  return reg_type(t);
}

/* ------------------------------------------------------------ constants */

/* The shortest decimal that reads back as v (float or double). */
static void put_real(SBuf *b, double v, bool f32) {
  if (isinf(v)) {
    sbuf_printf(b, "%s%sINFINITY", v < 0 ? "-" : "", f32 ? "" : "(double)");
    return;
  }
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (f32 ? (float)strtod(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
  }
  sbuf_puts(b, buf);
  if (!strpbrk(buf, ".en")) sbuf_puts(b, ".0");
  if (f32) sbuf_putc(b, 'f');
}

/* An integer constant of dtype t (already in its range). */
static void put_int(SBuf *b, int64_t v, IrDType t) {
  switch (t) {
  case DT_BOOL: sbuf_puts(b, v ? "true" : "false"); return;
  case DT_I32:
    if (v == INT32_MIN) sbuf_puts(b, "(-2147483647 - 1)");
    else sbuf_printf(b, "%lld", (long long)v);
    return;
  case DT_I64:
    if (v == INT64_MIN) sbuf_puts(b, "(-9223372036854775807LL - 1)");
    else sbuf_printf(b, "%lldLL", (long long)v);
    return;
  case DT_U32: sbuf_printf(b, "%lluu", (unsigned long long)(uint32_t)v); return;
  case DT_U64: sbuf_printf(b, "%lluull", (unsigned long long)v); return;
  default: sbuf_printf(b, "(%s)%lld", reg_type(t), (long long)v); return;
  }
}

/* v truncated to the width of integer type t (LLVMConstInt). */
static int64_t wrap_int(int64_t v, IrDType t) {
  switch (t) {
  case DT_I8: return (int8_t)v;
  case DT_I16: return (int16_t)v;
  case DT_I32: return (int32_t)v;
  case DT_U8: return (uint8_t)v;
  case DT_U16: return (uint16_t)v;
  case DT_U32: return (uint32_t)v;
  default: return v;
  }
}

/* A double converted to t the way the interpreter converts literals
 * (codegen/lower.c cg_const). */
static void put_const(SBuf *b, double v, IrDType t) {
  switch (t) {
  case DT_F64: put_real(b, v, false); return;
  case DT_F32: put_real(b, (double)(float)v, true); return;
  case DT_F16: put_real(b, (double)leir_round_f16((float)v), true); return;
  case DT_BF16: put_real(b, (double)leir_round_bf16((float)v), true); return;
  case DT_BOOL: sbuf_puts(b, v == v && v != 0 ? "true" : "false"); return;
  default: break;
  }
  int bits = ir_dtype_size(t) * 8;
  if (v != v) {
    put_int(b, 0, t);
  } else if (ir_dtype_is_unsigned_int(t)) {
    double hi = ldexp(1.0, bits);
    uint64_t top = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    put_int(b, v <= 0 ? 0 : v >= hi ? (int64_t)top : (int64_t)(uint64_t)v, t);
  } else {
    double lim = ldexp(1.0, bits - 1);
    if (v >= lim) put_int(b, (int64_t)(((uint64_t)1 << (bits - 1)) - 1), t);
    else if (v < -lim) put_int(b, bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1)), t);
    else put_int(b, (int64_t)v, t);
  }
}

/* An integer literal in type t (codegen/lower.c const_of_int). */
static void put_const_int(SBuf *b, int64_t v, IrDType t) {
  if (t == DT_F64) put_real(b, (double)v, false);
  else if (t == DT_F32) put_real(b, (double)(float)v, true);
  else if (t == DT_F16) put_real(b, (double)leir_round_f16((float)v), true);
  else if (t == DT_BF16) put_real(b, (double)leir_round_bf16((float)v), true);
  else if (t == DT_BOOL) put_int(b, v != 0, t);
  else put_int(b, wrap_int(v, t), t);
}

/* The §9.5 identity of op in dtype t (cg_identity). */
static void put_identity(SBuf *b, IrReduceOp op, IrDType t) {
  bool max = op == RED_MAX, min = op == RED_MIN;
  if (!max && !min) {
    put_const_int(b, op == RED_MUL || op == RED_DIV ? 1 : 0, t);
  } else if (ir_dtype_is_float(t)) {
    put_real(b, max ? -INFINITY : INFINITY, t != DT_F64);
  } else if (t == DT_BOOL) {
    put_int(b, min, t);
  } else if (ir_dtype_is_unsigned_int(t)) {
    put_int(b, max ? 0 : wrap_int(-1, t), t);
  } else {
    int bits = ir_dtype_size(t) * 8;
    int64_t top = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    put_int(b, max ? top : (int64_t)(((uint64_t)1 << (bits - 1)) - 1), t);
  }
}

/* ------------------------------------------------------------ conversions */

/* s (a value of type from) as a value of type to (cg_convert). */
static void put_convert(Cu *c, SBuf *b, const char *s, IrDType from, IrDType to) {
  if (from == to) {
    sbuf_puts(b, s);
    return;
  }
  bool ff = ir_dtype_is_float(from), ft = ir_dtype_is_float(to);
  if (to == DT_BOOL) {
    if (ff) {
      use(c, "ione");
      sbuf_printf(b, "leir_f2b(%s)", s);
    } else {
      sbuf_printf(b, "(%s != 0)", s);
    }
    return;
  }
  char *tmp = NULL;
  if (from == DT_BOOL) { /* zext to i32 first */
    tmp = arena_printf(&c->ctx->arena, "(int32_t)(%s)", s);
    s = tmp;
    from = DT_I32;
    ff = false;
    if (from == to) {
      sbuf_puts(b, s);
      return;
    }
  }
  const char *r16 = to == DT_F16 ? "leir_round_f16" : to == DT_BF16 ? "leir_round_bf16" : NULL;
  if (r16) use(c, to == DT_F16 ? "round_f16" : "round_bf16");
  if (ff && ft) {
    if (to == DT_F64) sbuf_printf(b, "(double)(%s)", s);
    else if (from == DT_F64 && !r16) sbuf_printf(b, "(float)(%s)", s);
    else if (from == DT_F64) sbuf_printf(b, "%s((float)(%s))", r16, s);
    else if (r16) sbuf_printf(b, "%s(%s)", r16, s);
    else sbuf_puts(b, s); /* f16/bf16 -> f32: already a float */
    return;
  }
  if (ff) {
    use(c, "f2i");
    sbuf_printf(b, "leir_f2i<%s>(%s)", reg_type(to), s);
    return;
  }
  if (ft) {
    if (r16) sbuf_printf(b, "%s((float)(%s))", r16, s);
    else sbuf_printf(b, "(%s)(%s)", reg_type(to), s);
    return;
  }
  sbuf_printf(b, "(%s)(%s)", reg_type(to), s); /* truncation, sign or zero extension */
}

/* ------------------------------------------------------------ expressions */

static void expr(Cu *c, SBuf *b, const IrExpr *e);

/* The text of e converted to type `to`. */
static void expr_as(Cu *c, SBuf *b, const IrExpr *e, IrDType to) {
  SBuf s = {0};
  expr(c, &s, e);
  put_convert(c, b, s.s ? s.s : "", e->type, to);
  sbuf_free(&s);
}

/* A condition: nonzero (NaN counts as true: lower.c to_bool). */
static void expr_bool(Cu *c, SBuf *b, const IrExpr *e) {
  if (e->type == DT_BOOL) {
    expr(c, b, e);
    return;
  }
  sbuf_putc(b, '(');
  expr(c, b, e);
  sbuf_puts(b, " != 0)");
}

/* The flat element offset of r (cg_offset): row-major over the dimensions
 * the plan keeps (shared/local tensors lose those named by a hardware
 * index); items not provably in range (by themselves or under the guard
 * facts) are checked and an access out of bounds goes to element 0, as on
 * the PTX path. */
static void offset(Cu *c, SBuf *b, const IrRef *r) {
  const IrTensor *t = r->tensor;
  const CgTensorInfo *ti = &c->plan->t[t->id];
  SBuf off = {0}, ok = {0};
  int nkept = 0;
  for (int d = 0; d < t->rank; d++) {
    if (ti->keep && !ti->keep[d]) continue;
    SBuf it = {0};
    expr_as(c, &it, r->sub[d], DT_I64);
    if (!cg_facts_in_bounds(&c->guards, r->sub[d], t->shape[d]))
      sbuf_printf(&ok, "%s(uint64_t)(%s) < %lldull", ok.len ? " && " : "", it.s, (long long)t->shape[d]);
    if (nkept == 0) {
      sbuf_puts(&off, it.s);
    } else {
      SBuf prev = off;
      off = (SBuf){0};
      bool paren = nkept > 1 || strpbrk(prev.s, "+-?") != NULL;
      sbuf_printf(&off, "%s%s%s * %lld + %s", paren ? "(" : "", prev.s, paren ? ")" : "",
                  (long long)t->shape[d], it.s);
      sbuf_free(&prev);
    }
    nkept++;
    sbuf_free(&it);
  }
  if (nkept == 0) sbuf_puts(&off, "0");
  if (ok.len) {
    use(c, "guard");
    sbuf_printf(b, "leir_guard(%s, %s)", ok.s, off.s);
  } else {
    sbuf_puts(b, off.s);
  }
  sbuf_free(&off);
  sbuf_free(&ok);
}

static void load(Cu *c, SBuf *b, const IrRef *r) {
  IrDType t = r->tensor->dtype;
  SBuf a = {0};
  sbuf_printf(&a, "%s[", r->tensor->name);
  offset(c, &a, r);
  sbuf_putc(&a, ']');
  if (ir_dtype_is_half(t)) {
    use(c, t == DT_F16 ? "f16_to_f32" : "bf16_to_f32");
    sbuf_printf(b, "leir_%s_to_f32(%s)", t == DT_F16 ? "f16" : "bf16", a.s);
  } else if (t == DT_BOOL) {
    sbuf_printf(b, "(%s != 0)", a.s);
  } else {
    sbuf_puts(b, a.s);
  }
  sbuf_free(&a);
}

/* a op b, both of type t (cg_binop). */
static void binop(Cu *c, SBuf *b, IrOp op, const char *x, const char *y, IrDType t) {
  if (ir_dtype_is_float(t)) {
    bool d = t == DT_F64;
    const char *r16 = t == DT_F16 ? "leir_round_f16" : t == DT_BF16 ? "leir_round_bf16" : NULL;
    if (r16) {
      use(c, t == DT_F16 ? "round_f16" : "round_bf16");
      sbuf_printf(b, "%s(", r16);
    }
    switch (op) {
    case OP_ADD: sbuf_printf(b, "(%s + %s)", x, y); break;
    case OP_SUB: sbuf_printf(b, "(%s - %s)", x, y); break;
    case OP_MUL: sbuf_printf(b, "%s(%s, %s)", d ? "__dmul_rn" : "__fmul_rn", x, y); break;
    case OP_DIV: sbuf_printf(b, "%s(%s, %s)", d ? "__ddiv_rn" : "__fdiv_rn", x, y); break;
    case OP_FLOORDIV: sbuf_printf(b, "%s(%s(%s, %s))", d ? "floor" : "floorf", d ? "__ddiv_rn" : "__fdiv_rn", x, y); break;
    case OP_MOD:
      use(c, "fmod");
      sbuf_printf(b, "%s(%s, %s)", d ? "leir_fmodd" : "leir_fmodf", x, y);
      break;
    case OP_POW:
      use(c, d ? "pow" : "powf");
      sbuf_printf(b, "%s(%s, %s)", d ? "leir_pow" : "leir_powf", x, y);
      break;
    default: sbuf_puts(b, x); break;
    }
    if (r16) sbuf_putc(b, ')');
    return;
  }
  switch (op) {
  case OP_ADD: sbuf_printf(b, "(%s + %s)", x, y); break;
  case OP_SUB: sbuf_printf(b, "(%s - %s)", x, y); break;
  case OP_MUL: sbuf_printf(b, "(%s * %s)", x, y); break;
  case OP_DIV:
  case OP_FLOORDIV:
  case OP_MOD:
    use(c, "idiv");
    sbuf_printf(b, "leir_idivmod<%s>(%s, %s, %s, %s)", reg_type(t), x, y, op == OP_MOD ? "true" : "false",
                op == OP_DIV ? "false" : "true");
    break;
  case OP_POW:
    use(c, "ipow");
    sbuf_printf(b, "leir_ipow<%s>(%s, %s)", reg_type(t), x, y);
    break;
  default: sbuf_puts(b, x); break;
  }
}

/* max/min of two values of type t (cg_maxmin). */
static void maxmin(Cu *c, SBuf *b, bool is_max, const char *x, const char *y, IrDType t) {
  if (ir_dtype_is_float(t)) {
    use(c, "maxmin");
    sbuf_printf(b, "leir_f%s(%s, %s)", is_max ? "max" : "min", x, y);
  } else {
    use(c, "imaxmin");
    sbuf_printf(b, "leir_i%s<%s>(%s, %s)", is_max ? "max" : "min", reg_type(t), x, y);
  }
}

static const char *cmp_text(IrOp op) {
  switch (op) {
  case OP_LT: return "<";
  case OP_LE: return "<=";
  case OP_GT: return ">";
  case OP_GE: return ">=";
  case OP_EQ: return "==";
  default: return "!=";
  }
}

/* a op1 b op2 c: (a op1 b && b op2 c); expressions have no side effects,
 * so evaluating b twice is evaluating it once. */
static void cmp_chain(Cu *c, SBuf *b, const IrExpr *e) {
  sbuf_putc(b, '(');
  for (int i = 0; i + 1 < e->u.cmp.n; i++) {
    const IrExpr *x = e->u.cmp.operand[i], *y = e->u.cmp.operand[i + 1];
    IrDType t = ir_dtype_usual(x->type, y->type);
    if (i) sbuf_puts(b, " && ");
    expr_as(c, b, x, t);
    sbuf_printf(b, " %s ", cmp_text(e->u.cmp.op[i]));
    expr_as(c, b, y, t);
  }
  sbuf_putc(b, ')');
}

static void call_expr(Cu *c, SBuf *b, const IrExpr *e) {
  IrFunc fn = e->u.call.func;
  IrDType t = e->type;
  if (fn == F_ITE) { /* lazy: C's ?: */
    sbuf_putc(b, '(');
    expr_bool(c, b, e->u.call.args[0]);
    sbuf_puts(b, " ? ");
    int nfact = c->guards.n; /* the condition holds in the then-branch */
    cg_cond_facts(&c->guards, e->u.call.args[0]);
    expr_as(c, b, e->u.call.args[1], t);
    c->guards.n = nfact;
    sbuf_puts(b, " : ");
    expr_as(c, b, e->u.call.args[2], t);
    sbuf_putc(b, ')');
    return;
  }
  if (fn == F_MAX || fn == F_MIN) { /* folded left */
    SBuf acc = {0};
    expr_as(c, &acc, e->u.call.args[0], t);
    for (int i = 1; i < e->u.call.nargs; i++) {
      SBuf y = {0}, r = {0};
      expr_as(c, &y, e->u.call.args[i], t);
      maxmin(c, &r, fn == F_MAX, acc.s, y.s, t);
      sbuf_free(&acc);
      sbuf_free(&y);
      acc = r;
    }
    sbuf_puts(b, acc.s);
    sbuf_free(&acc);
    return;
  }
  SBuf x = {0};
  expr_as(c, &x, e->u.call.args[0], t);
  bool d = t == DT_F64, fl = ir_dtype_is_float(t);
  const char *r16 = t == DT_F16 ? "leir_round_f16" : t == DT_BF16 ? "leir_round_bf16" : NULL;
  if (r16 && fn != F_ABS) {
    use(c, t == DT_F16 ? "round_f16" : "round_bf16");
    sbuf_printf(b, "%s(", r16);
  }
  switch (fn) {
  case F_EXP: case F_LOG: case F_ERF: {
    const char *nm = fn == F_EXP ? "exp" : fn == F_LOG ? "log" : "erf";
    char chunk[8];
    snprintf(chunk, sizeof chunk, "%s%s", nm, d ? "" : "f");
    use(c, chunk);
    sbuf_printf(b, "leir_%s(%s)", chunk, x.s);
    break;
  }
  case F_SQRT:
    if (fl) sbuf_printf(b, "%s(%s)", d ? "__dsqrt_rn" : "__fsqrt_rn", x.s);
    else sbuf_puts(b, x.s);
    break;
  case F_ABS:
    if (fl) sbuf_printf(b, "%s(%s)", d ? "fabs" : "fabsf", x.s);
    else if (ir_dtype_is_unsigned_int(t)) sbuf_puts(b, x.s);
    else sbuf_printf(b, "(%s < 0 ? (%s)(0 - %s) : %s)", x.s, reg_type(t), x.s, x.s);
    break;
  default: sbuf_puts(b, x.s); break;
  }
  if (r16 && fn != F_ABS) sbuf_putc(b, ')');
  sbuf_free(&x);
}

static void expr(Cu *c, SBuf *b, const IrExpr *e) {
  switch (e->kind) {
  case E_INT: put_const_int(b, e->u.ilit.value, e->type); return;
  case E_FLOAT: put_const(b, e->u.flit.value, e->type); return;
  case E_INF: put_const(b, INFINITY, e->type); return;
  case E_INDEX: {
    SBuf n = {0};
    put_index(&n, e->u.index.name);
    put_convert(c, b, n.s, DT_I64, e->type);
    sbuf_free(&n);
    return;
  }
  case E_REF: {
    SBuf l = {0};
    load(c, &l, e->u.ref);
    put_convert(c, b, l.s, e->u.ref->tensor->dtype, e->type);
    sbuf_free(&l);
    return;
  }
  case E_PAREN: expr(c, b, e->u.paren); return;
  case E_UNARY: {
    SBuf x = {0};
    expr_as(c, &x, e->u.unary.a, e->type);
    if (e->u.unary.op == OP_POS) sbuf_puts(b, x.s);
    else if (ir_dtype_is_float(e->type)) sbuf_printf(b, "(-%s)", x.s);
    else sbuf_printf(b, "(%s)(0 - %s)", reg_type(e->type), x.s);
    sbuf_free(&x);
    return;
  }
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    if (op == OP_AND || op == OP_OR) {
      sbuf_putc(b, '(');
      expr_bool(c, b, e->u.bin.a);
      sbuf_puts(b, op == OP_AND ? " && " : " || ");
      expr_bool(c, b, e->u.bin.b);
      sbuf_putc(b, ')');
      return;
    }
    IrFma fm;
    if (ir_contract_fma(e, c->ctx->fp_contract, &fm)) { /* ir/contract.h */
      SBuf x = {0}, y = {0}, z = {0};
      expr_as(c, &x, fm.x, e->type);
      expr_as(c, &y, fm.y, e->type);
      expr_as(c, &z, fm.z, e->type);
      sbuf_printf(b, "%s(%s%s%s, %s, %s%s%s)", e->type == DT_F64 ? "__fma_rn" : "__fmaf_rn", fm.neg_x ? "-(" : "", x.s,
                  fm.neg_x ? ")" : "", y.s, fm.neg_z ? "-(" : "", z.s, fm.neg_z ? ")" : "");
      sbuf_free(&x);
      sbuf_free(&y);
      sbuf_free(&z);
      return;
    }
    SBuf x = {0}, y = {0};
    expr_as(c, &x, e->u.bin.a, e->type);
    if (ir_pow_is_square(e)) { /* ir/strength.h */
      op = OP_MUL;
      sbuf_puts(&y, x.s);
    } else {
      expr_as(c, &y, e->u.bin.b, e->type);
    }
    if ((op == OP_FLOORDIV || op == OP_MOD) && !ir_dtype_is_float(e->type) &&
        ir_expr_divmod_nonneg_by_const(e, INT64_MAX)) /* a >= 0, b > 0: floor and C's truncation agree */
      sbuf_printf(b, "(%s %s %s)", x.s, op == OP_MOD ? "%" : "/", y.s);
    else
      binop(c, b, op, x.s, y.s, e->type);
    sbuf_free(&x);
    sbuf_free(&y);
    return;
  }
  case E_CMP: cmp_chain(c, b, e); return;
  case E_CALL: call_expr(c, b, e); return;
  }
}

/* ------------------------------------------------------------ statements */

static void barrier(Cu *c) {
  if (c->barrier_last) return;
  line(c, "__syncthreads();");
  c->barrier_last = true;
}

/* `T[off] = v` with v of the tensor's register type. */
static void store(Cu *c, const IrRef *lhs, const char *v) {
  IrDType t = lhs->tensor->dtype;
  SBuf off = {0};
  offset(c, &off, lhs);
  if (ir_dtype_is_half(t)) {
    use(c, t == DT_F16 ? "f32_to_f16" : "f32_to_bf16");
    line(c, "%s[%s] = leir_f32_to_%s(%s);", lhs->tensor->name, off.s, t == DT_F16 ? "f16" : "bf16", v);
  } else if (t == DT_BOOL) {
    line(c, "%s[%s] = (uint8_t)(%s);", lhs->tensor->name, off.s, v);
  } else {
    line(c, "%s[%s] = %s;", lhs->tensor->name, off.s, v);
  }
  sbuf_free(&off);
  c->barrier_last = false;
}

/* The §9.5 store of the identity, guarded by `every reduction index is 0`
 * over the reduction loops for which skip() is false. */
static void identity_store(Cu *c, const IrStmt *s, const CgRed *region) {
  SBuf cond = {0}, id = {0};
  for (int i = 0; i < s->nred; i++) {
    const IrLoop *l = s->red[i];
    bool inside = false;
    for (int j = 0; region && j < region->nthr; j++) inside |= region->thr[j] == l;
    for (int j = 0; region && j < region->nrl; j++) inside |= region->rl[j] == l;
    for (int j = 0; region && j < region->nsp; j++) inside |= region->sp[j] == l;
    if (inside) continue;
    if (cond.len) sbuf_puts(&cond, " && ");
    put_index(&cond, l->index);
    sbuf_puts(&cond, " == 0");
  }
  put_identity(&id, s->redop, s->lhs->tensor->dtype);
  if (cond.len) {
    line(c, "if (%s)", cond.s);
    c->indent++;
  }
  store(c, s->lhs, id.s);
  if (cond.len) c->indent--;
  sbuf_free(&cond);
  sbuf_free(&id);
}

/* A statement outside the B loop of a hardware axis runs in the threads
 * whose index on that axis is 0 (lower.c outside_hw_guard). */
static bool hw_guard(Cu *c, SBuf *g) {
  for (int a = 0; a < 6; a++) {
    const IrLoop *l = c->k->hw[a];
    if (!l || l->extent == 1 || c->hw_scope[a]) continue;
    if (g->len) sbuf_puts(g, " && ");
    put_index(g, l->index);
    sbuf_puts(g, " == 0");
  }
  return g->len > 0;
}

static void stmt(Cu *c, const IrStmt *s) {
  const CgTensorInfo *ti = &c->plan->t[s->lhs->tensor->id];
  bool sync = ti->place == PL_SHARED && ti->sync;
  if (sync) barrier(c);
  SBuf g = {0};
  bool guarded = hw_guard(c, &g);
  if (guarded) {
    line(c, "if (%s) {", g.s);
    c->indent++;
  }
  if (s->init == INIT_REDUCE) identity_store(c, s, NULL);
  SBuf v = {0};
  expr_as(c, &v, s->rhs, s->lhs->tensor->dtype);
  store(c, s->lhs, v.s);
  sbuf_free(&v);
  if (guarded) {
    c->indent--;
    line(c, "}");
  }
  sbuf_free(&g);
  c->barrier_last = false;
  if (sync) barrier(c);
}

/* ------------------------------------------------------------ loops */

/* copies: cg_unroll_copies or cg_unroll_chain_copies (codegen/unroll.h;
 * 0 for a loop that is not one to unroll): below the extent nvcc gets the
 * same bound as the PTX. */
static void open_loop(Cu *c, const IrLoop *l, IrLoopKind kind, int64_t copies) {
  if ((kind == LOOP_U || kind == LOOP_V) && (copies <= 0 || copies >= l->extent)) line(c, "#pragma unroll");
  else if (kind == LOOP_U || kind == LOOP_V) line(c, "#pragma unroll %lld", (long long)copies);
  SBuf n = {0};
  put_index(&n, l->index);
  line(c, "for (int64_t %s = 0; %s < %lld; %s++) {", n.s, n.s, (long long)l->extent, n.s);
  sbuf_free(&n);
  c->indent++;
  c->barrier_last = false;
}

static void close_loop(Cu *c) {
  c->indent--;
  line(c, "}");
  c->barrier_last = false;
}

/* a op b in the partials' type (reduce.c combine). */
static void combine(Cu *c, SBuf *b, const CgRed *r, bool partials, const char *x, const char *y) {
  switch (r->op) {
  case RED_MAX: maxmin(c, b, true, x, y, r->nt); return;
  case RED_MIN: maxmin(c, b, false, x, y, r->nt); return;
  case RED_MUL: binop(c, b, OP_MUL, x, y, r->nt); return;
  case RED_SUB: binop(c, b, partials ? OP_ADD : OP_SUB, x, y, r->nt); return;
  default: binop(c, b, OP_ADD, x, y, r->nt); return;
  }
}

/* The tree reduction of SPEC §13.3 over threadIdx (reduce.c gpu_tree). */
static void gpu_tree(Cu *c, const CgRed *r) {
  const CgKernel *k = c->k;
  int axis = (int)r->tloop->hw - 1;
  int64_t n = r->tloop->extent;
  int64_t stride = axis == 0 ? 1 : axis == 1 ? k->block[0] : k->block[0] * k->block[1];
  const char *nt = reg_type(r->nt);
  const char *me = axis == 0 ? "(int64_t)threadIdx.x" : axis == 1 ? "(int64_t)threadIdx.y" : "(int64_t)threadIdx.z";
  SBuf id = {0}, x = {0}, acc = {0};
  put_identity(&id, r->op == RED_SUB ? RED_ADD : r->op, r->nt);
  line(c, "{ /* %s over %s: tree order of SPEC 13.3 */", r->s->lhs->tensor->name, r->tloop->index);
  c->indent++;
  line(c, "%s *_v = (%s *)leir_scratch;", nt, nt);
  line(c, "const int64_t _t = (int64_t)threadIdx.x + %lld * ((int64_t)threadIdx.y + %lld * (int64_t)threadIdx.z);",
       (long long)k->block[0], (long long)k->block[1]);
  line(c, "%s _acc = %s;", nt, id.s);
  double fold = cg_unroll_expr_size(r->x, c->ctx->fp_contract);
  for (int i = 0; i < r->nrl; i++) open_loop(c, r->rl[i], r->rl[i]->kind, cg_unroll_chain_copies(r->rl, r->nrl, i, fold, true));
  expr_as(c, &x, r->x, r->nt);
  combine(c, &acc, r, false, "_acc", x.s);
  line(c, "_acc = %s;", acc.s);
  for (int i = 0; i < r->nrl; i++) close_loop(c);
  line(c, "_v[_t] = _acc;");
  c->barrier_last = false;
  barrier(c);
  sbuf_free(&acc);
  combine(c, &acc, r, true, "_v[_t]", arena_printf(&c->ctx->arena, "_v[_t + %lld * _s]", (long long)stride));
  line(c, "for (int64_t _s = 1; _s < %lld; _s *= 2) {", (long long)n);
  c->indent++;
  line(c, "if (%s %% (2 * _s) == 0 && %s + _s < %lld) _v[_t] = %s;", me, me, (long long)n, acc.s);
  line(c, "__syncthreads();");
  c->indent--;
  line(c, "}");
  line(c, "if (%s == 0) {", me);
  c->indent++;
  if (r->s->init == INIT_REDUCE) identity_store(c, r->s, r);
  IrDType t = r->s->lhs->tensor->dtype;
  SBuf prior = {0}, pv = {0}, comb = {0}, fin = {0};
  load(c, &prior, r->s->lhs);
  put_convert(c, &pv, prior.s, t, r->nt);
  combine(c, &comb, r, true, pv.s, "_v[_t]");
  put_convert(c, &fin, comb.s, r->nt, t);
  store(c, r->s->lhs, fin.s);
  c->indent--;
  line(c, "}");
  c->barrier_last = false;
  barrier(c); /* the scratch is reused by the next element */
  c->indent--;
  line(c, "}");
  sbuf_free(&prior);
  sbuf_free(&pv);
  sbuf_free(&comb);
  sbuf_free(&fin);
  sbuf_free(&id);
  sbuf_free(&x);
  sbuf_free(&acc);
}

static void reduce_region(Cu *c, const CgRed *r) {
  int nl = 0;
  /* the region's size as codegen/reduce.c measures it: the fold loops and the tree */
  double body = cg_unroll_chain_size(r->rl, r->nrl, 0, cg_unroll_expr_size(r->x, c->ctx->fp_contract), true) +
                CG_UNROLL_LOOP_WEIGHT;
  for (int i = 0; i < r->nsp; i++) {
    const IrLoop *l = r->sp[i];
    if (l->kind == LOOP_B && l->hw != HW_NONE) continue;
    open_loop(c, l, l->kind, cg_unroll_chain_copies(r->sp, r->nsp, i, body, true));
    nl++;
  }
  gpu_tree(c, r);
  while (nl-- > 0) close_loop(c);
}

static void loops(Cu *c, const IrNest *n, int li);

static void body(Cu *c, const IrNest *n) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_STMT) stmt(c, n->items[i].u.stmt);
    else loops(c, n->items[i].u.nest, 0);
  }
}

/* The loops of nest n from li (lower_loops.c cg_lower_loops, NVPTX modes). */
static void loops(Cu *c, const IrNest *n, int li) {
  if (li == n->nloops) {
    body(c, n);
    return;
  }
  const IrLoop *l = n->loops[li];
  for (int i = 0; i < c->k->nred; i++)
    if (c->k->red[i].tloop == l && !c->k->red[i].general) {
      reduce_region(c, &c->k->red[i]);
      return;
    }
  if (l->kind == LOOP_B && l->hw != HW_NONE) { /* a hardware index */
    int a = (int)l->hw - 1;
    bool saved = c->hw_scope[a];
    c->hw_scope[a] = true;
    loops(c, n, li + 1);
    c->hw_scope[a] = saved;
    return;
  }
  for (int h = 0; h < c->k->nhost; h++)
    if (c->k->nest->loops[h] == l) { /* a host loop: the kernel's argument */
      loops(c, n, li + 1);
      return;
    }
  open_loop(c, l, l->kind, cg_unroll_copies(n, li, true, c->ctx->fp_contract));
  loops(c, n, li + 1);
  close_loop(c);
}

/* ------------------------------------------------------------ kernels */

typedef struct WriteScan {
  int id;
  bool written;
} WriteScan;

static void write_scan(const IrNest *n, WriteScan *w) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) write_scan(n->items[i].u.nest, w);
    else if (n->items[i].u.stmt->lhs->tensor->id == w->id) w->written = true;
  }
}

static void kernel_params(Cu *c, const CgKernel *k, SBuf *b) {
  for (int i = 0; i < k->ntens; i++) {
    const IrTensor *t = c->p->tensors[k->tens[i]];
    WriteScan w = {t->id, false};
    write_scan(k->nest, &w);
    sbuf_printf(b, "%s%s%s *__restrict__ %s", i ? ", " : "", w.written ? "" : "const ", mem_type(t->dtype), t->name);
  }
  for (int h = 0; h < k->nhost; h++) {
    sbuf_printf(b, "%sint64_t ", k->ntens + h ? ", " : "");
    put_index(b, k->nest->loops[h]->index);
  }
  if (!b->len) sbuf_puts(b, "void");
}

/* Does `text` use the identifier `name`? */
static bool uses_word(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *s = text ? strstr(text, name) : NULL; s; s = strstr(s + 1, name)) {
    bool before = s > text && (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z') ||
                               (s[-1] >= '0' && s[-1] <= '9'));
    char a = s[n];
    bool after = a == '_' || (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || (a >= '0' && a <= '9');
    if (!before && !after) return true;
  }
  return false;
}

/* Hardware indices at the kernel's entry (those the body uses); a thread
 * axis spread over blocks is ctaid * ntid + tid, and the threads past its
 * extent return. */
static void bind_hardware(Cu *c, const char *body_text) {
  const CgKernel *k = c->k;
  SBuf guard = {0};
  for (int a = 0; a < 6; a++) {
    const IrLoop *l = k->hw[a];
    if (!l) continue;
    char axis = "xyz"[a % 3];
    SBuf n = {0};
    put_index(&n, l->index);
    if (!(a < 3 && k->spread[a]) && !uses_word(body_text, n.s)) {
      sbuf_free(&n);
      continue;
    }
    if (a < 3 && k->spread[a]) {
      line(c, "const int64_t %s = (int64_t)blockIdx.%c * %lld + threadIdx.%c;", n.s, axis,
           (long long)k->block[a], axis);
      sbuf_printf(&guard, "%s%s >= %lld", guard.len ? " || " : "", n.s, (long long)l->extent);
    } else {
      line(c, "const int64_t %s = %s.%c;", n.s, a < 3 ? "threadIdx" : "blockIdx", axis);
    }
    sbuf_free(&n);
  }
  if (guard.len) line(c, "if (%s) return;", guard.s);
  sbuf_free(&guard);
}

static void kernel(Cu *c, const CgKernel *k) {
  c->k = k;
  memset(c->hw_scope, 0, sizeof c->hw_scope);
  SBuf params = {0};
  kernel_params(c, k, &params);
  sbuf_putc(c->out, '\n');
  line(c, "/* nest %d: grid (%lld, %lld, %lld), block (%lld, %lld, %lld)%s */", k->index, (long long)k->grid[0],
       (long long)k->grid[1], (long long)k->grid[2], (long long)k->block[0], (long long)k->block[1],
       (long long)k->block[2], k->nhost ? ", one launch per host iteration" : "");
  line(c, "__global__ void %s(%s) {", k->name, params.s);
  sbuf_free(&params);
  c->indent++;
  for (int i = 0; i < c->p->ntensors; i++) {
    const CgTensorInfo *ti = &c->plan->t[i];
    const IrTensor *t = c->p->tensors[i];
    if (ti->place == PL_SHARED && ti->kernel == k->index)
      line(c, "__shared__ %s %s[%lld];", mem_type(t->dtype), t->name, (long long)ti->numel);
    else if (ti->place == PL_LOCAL && ti->kernel == k->index)
      line(c, "%s %s[%lld];", mem_type(t->dtype), t->name, (long long)ti->numel);
  }
  if (k->nred) line(c, "__shared__ __align__(16) unsigned char leir_scratch[%lld];", (long long)k->scratch_bytes);
  SBuf body = {0}, *out = c->out; /* the body first: which indices it uses */
  c->out = &body;
  c->barrier_last = true; /* nothing before the kernel's start to wait for */
  loops(c, k->nest, k->nhost);
  c->out = out;
  bind_hardware(c, body.s);
  sbuf_puts(c->out, body.s ? body.s : "");
  sbuf_free(&body);
  c->indent--;
  line(c, "}");
}

/* ------------------------------------------------------------ host */

static void host_main(Cu *c) {
  const IrProgram *p = c->p;
  SBuf params = {0};
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->role == ROLE_TMP) continue;
    bool out = t->role == ROLE_OUT;
    sbuf_printf(&params, "%s%s%s *%s", params.len ? ", " : "", out ? "" : "const ", mem_type(t->dtype), t->name);
  }
  sbuf_putc(c->out, '\n');
  line(c, "/* The program: device pointers in declaration order; launches on the");
  line(c, "   default stream, returns the first CUDA error. */");
  line(c, "extern \"C\" cudaError_t leir_main(%s) {", params.len ? params.s : "void");
  sbuf_free(&params);
  c->indent++;
  line(c, "cudaError_t err = cudaSuccess;");
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->role != ROLE_TMP || c->plan->t[i].place != PL_GLOBAL) continue;
    line(c, "%s *%s = NULL;", mem_type(t->dtype), t->name);
  }
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->role != ROLE_TMP || c->plan->t[i].place != PL_GLOBAL) continue;
    line(c, "if (err == cudaSuccess) err = cudaMalloc((void **)&%s, %lld * sizeof *%s);", t->name,
         (long long)c->plan->t[i].numel, t->name);
  }
  line(c, "if (err == cudaSuccess) {");
  c->indent++;
  for (int ki = 0; ki < c->plan->nkernels; ki++) {
    const CgKernel *k = &c->plan->k[ki];
    SBuf args = {0};
    for (int i = 0; i < k->ntens; i++) {
      const IrTensor *t = p->tensors[k->tens[i]];
      WriteScan w = {t->id, false};
      write_scan(k->nest, &w);
      bool cast = (t->role == ROLE_IN || t->role == ROLE_PARAM) && w.written; /* drop the const */
      sbuf_printf(&args, "%s%s%s%s%s", i ? ", " : "", cast ? "(" : "", cast ? mem_type(t->dtype) : "",
                  cast ? " *)" : "", t->name);
    }
    for (int h = 0; h < k->nhost; h++) {
      sbuf_puts(&args, k->ntens + h ? ", " : "");
      put_index(&args, k->nest->loops[h]->index);
    }
    for (int h = 0; h < k->nhost; h++) open_loop(c, k->nest->loops[h], LOOP_L, 0);
    line(c, "%s<<<dim3(%lld, %lld, %lld), dim3(%lld, %lld, %lld)>>>(%s);", k->name, (long long)k->grid[0],
         (long long)k->grid[1], (long long)k->grid[2], (long long)k->block[0], (long long)k->block[1],
         (long long)k->block[2], args.len ? args.s : "");
    for (int h = 0; h < k->nhost; h++) close_loop(c);
    sbuf_free(&args);
  }
  line(c, "err = cudaGetLastError();");
  c->indent--;
  line(c, "}");
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->role != ROLE_TMP || c->plan->t[i].place != PL_GLOBAL) continue;
    line(c, "cudaFree(%s);", t->name);
  }
  line(c, "return err;");
  c->indent--;
  line(c, "}");
}

bool emit_cuda(LeirCtx *ctx, const IrProgram *p, SBuf *out) {
  CgPlan plan;
  int errors = ctx->nerrors;
  if (!cg_plan_build(ctx, p, CG_TARGET_NVPTX, &plan) || ctx->nerrors > errors) return false;
  SBuf code = {0};
  Cu c = {.ctx = ctx, .p = p, .plan = &plan, .out = &code};
  for (int i = 0; i < plan.nkernels; i++) kernel(&c, &plan.k[i]);
  host_main(&c);
  const char *src = ctx->src.name ? ctx->src.name : "-";
  const char *slash = strrchr(src, '/'); /* the file name only: the output does not depend on where it is */
  sbuf_printf(out, "/* %s: CUDA C generated by leirc --emit=cuda (the PTX path's plan, SPEC 13.2).\n",
              slash ? slash + 1 : src);
  sbuf_puts(out, " * Arithmetic is IEEE and uncontracted whatever nvcc's flags (_rn intrinsics);\n"
                 " * exp/log/erf/pow are leirc's own routines: results equal leirc's other back ends. */\n"
                 "#include <cstdint>\n#include <cstring>\n#include <math.h>\n#include <cuda_runtime.h>\n");
  bool any = false;
  for (size_t i = 0; i < NCHUNKS; i++) {
    if (!c.need[i]) continue;
    if (!any) sbuf_puts(out, "\n/* leirc's math routines (ir/mathlib.c) and operations */\n");
    any = true;
    sbuf_puts(out, cu_math_chunks[i].text);
  }
  sbuf_puts(out, code.s ? code.s : "");
  sbuf_free(&code);
  return true;
}
