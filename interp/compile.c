/* compile.c -- the analysed IR to the interpreter's bytecode (interp/vm.h).
 *
 * Loops: a nest's loops become FOR ... NEXT pairs around its body (loops of
 * extent 1 emit nothing: their index register simply stays 0).
 *
 * Addresses: a reference whose subscripts are all affine in the enclosing
 * loop indices (integer literals, indices, + - unary -, * by a constant)
 * and provably inside the shape for every value of those indices (the
 * value analysis, ir_expr_range, proves it) gets one
 * "address register" holding its flattened offset base + sum inc_k * i_k.
 * The NEXT of loop k adds inc_k to it (and takes (N_k - 1) * inc_k back when
 * the loop ends), so the register is always current and a load is one
 * instruction.  References with equal base and increments share a register.
 * Any other reference (//, %, nested reads, products of indices, or a range
 * that may leave the shape, e.g. inside an if_then_else branch) computes its
 * dimension values into registers and goes through I_ADDR, which checks
 * every dimension.
 *
 * Expressions: one instruction per node, in the node's type (interp.h); an
 * operand that is a plain load is evaluated after its sibling so that the
 * peephole pass (at the end of this file) can fuse load-op-store sequences.
 */
#include "interp/vm.h"
#include "ir/strength.h"
#include "ir/contract.h"
#include "ir/range.h"

#include <stdlib.h>
#include <string.h>

#define MAXL 256

typedef struct DeltaAcc {
  int n, cap;
  int *reg;
  int64_t *inc;
} DeltaAcc;

typedef struct Slot {
  int reg;
  int64_t base;
  int n;
  const IrLoop **loops;
  int64_t *inc;
} Slot;

typedef struct Cg {
  LeirCtx *ctx;
  InterpProg *ip;
  const IrProgram *p;
  int nl;                      /* active loops, outermost first */
  const IrLoop *loop[MAXL];
  int lreg[MAXL];
  DeltaAcc acc[MAXL];
  PtrVec flush[MAXL];          /* TreeInfo to flush when loop k ends */
  Slot *slots;
  int nslots, capslots;
  PtrVec trees;
  const IrStmt *stmt;          /* the statement being compiled */
  bool *cst;                   /* per register: a constant (never written) */
  int capcst;
  bool failed;
} Cg;

/* ------------------------------------------------------------ emission */

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("leirc: out of memory\n", stderr);
    exit(2);
  }
  return q;
}

static int emit(Cg *g, Ins in) {
  InterpProg *ip = g->ip;
  if (ip->ncode == ip->capcode) {
    ip->capcode = ip->capcode ? ip->capcode * 2 : 256;
    ip->code = xrealloc(ip->code, sizeof(Ins) * (size_t)ip->capcode);
  }
  ip->code[ip->ncode] = in;
  return ip->ncode++;
}

static int new_reg(Cg *g) {
  InterpProg *ip = g->ip;
  if (ip->nregs == ip->capregs) {
    ip->capregs = ip->capregs ? ip->capregs * 2 : 256;
    ip->init = xrealloc(ip->init, sizeof(IVal) * (size_t)ip->capregs);
  }
  ip->init[ip->nregs].u = 0;
  return ip->nregs++;
}

static int const_reg(Cg *g, IVal v) {
  int r = new_reg(g);
  g->ip->init[r] = v;
  if (r >= g->capcst) {
    int cap = g->capcst ? g->capcst : 256;
    while (cap <= r) cap *= 2;
    g->cst = xrealloc(g->cst, (size_t)cap);
    memset(g->cst + g->capcst, 0, (size_t)(cap - g->capcst));
    g->capcst = cap;
  }
  g->cst[r] = true;
  return r;
}

static bool is_const(const Cg *g, int r) { return r < g->capcst && g->cst[r]; }

static Ins ins(Opc op, int d, int a, int b) {
  Ins in;
  memset(&in, 0, sizeof in);
  in.op = (uint16_t)op;
  in.d = d;
  in.a = a;
  in.b = b;
  return in;
}

static void *cg_alloc(Cg *g, size_t n) { return arena_alloc(&g->ip->arena, n ? n : 1); }

/* ------------------------------------------------------------ types */

static int conv(Cg *g, int r, IrDType from, IrDType to) {
  if (from == to) return r;
  if (op_class(from) == 'f' && to == DT_F32) return r; /* f16/bf16 are exact in f32 */
  if (is_const(g, r)) return const_reg(g, op_convert(g->ip->init[r], from, to));
  int d = new_reg(g);
  Ins in = ins(I_CVT, d, r, 0);
  in.ty = (uint8_t)from;
  in.ty2 = (uint8_t)to;
  emit(g, in);
  return d;
}

/* ------------------------------------------------------------ loops */

static int loop_pos(const Cg *g, const IrLoop *l) {
  for (int k = g->nl - 1; k >= 0; k--)
    if (g->loop[k] == l) return k;
  return -1;
}

static void acc_add(DeltaAcc *a, int reg, int64_t inc) {
  if (a->n == a->cap) {
    a->cap = a->cap ? a->cap * 2 : 8;
    a->reg = xrealloc(a->reg, sizeof(int) * (size_t)a->cap);
    a->inc = xrealloc(a->inc, sizeof(int64_t) * (size_t)a->cap);
  }
  a->reg[a->n] = reg;
  a->inc[a->n] = inc;
  a->n++;
}

/* ------------------------------------------------------------ affine subscripts */

typedef struct Aff {
  bool ok;
  int64_t c0;
  int64_t coef[MAXL]; /* by position in the active loop stack */
} Aff;

static void aff_const(Aff *a, int nl, int64_t c) {
  a->ok = true;
  a->c0 = c;
  memset(a->coef, 0, sizeof(int64_t) * (size_t)nl);
}

static bool aff_is_const(const Aff *a, int nl) {
  for (int k = 0; k < nl; k++)
    if (a->coef[k]) return false;
  return true;
}

/* a = a * m (m constant); false on overflow */
static bool aff_scale(Aff *a, int nl, int64_t m) {
  if (__builtin_mul_overflow(a->c0, m, &a->c0)) return false;
  for (int k = 0; k < nl; k++)
    if (__builtin_mul_overflow(a->coef[k], m, &a->coef[k])) return false;
  return true;
}

static bool aff_add(Aff *a, const Aff *b, int nl, int sign) {
  int64_t c;
  if (__builtin_mul_overflow(b->c0, sign, &c) || __builtin_add_overflow(a->c0, c, &a->c0)) return false;
  for (int k = 0; k < nl; k++)
    if (__builtin_mul_overflow(b->coef[k], sign, &c) || __builtin_add_overflow(a->coef[k], c, &a->coef[k]))
      return false;
  return true;
}

static void aff_expr(const Cg *g, const IrExpr *e, Aff *out) {
  int nl = g->nl;
  out->ok = false;
  switch (e->kind) {
  case E_INT: aff_const(out, nl, e->u.ilit.value); return;
  case E_INDEX: {
    int k = loop_pos(g, e->u.index.loop);
    if (k < 0) return;
    aff_const(out, nl, 0);
    out->coef[k] = 1;
    return;
  }
  case E_PAREN: aff_expr(g, e->u.paren, out); return;
  case E_UNARY:
    aff_expr(g, e->u.unary.a, out);
    if (out->ok && e->u.unary.op == OP_NEG) out->ok = aff_scale(out, nl, -1);
    return;
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    if (op != OP_ADD && op != OP_SUB && op != OP_MUL) return;
    Aff *b = malloc(sizeof *b);
    if (!b) return;
    aff_expr(g, e->u.bin.a, out);
    aff_expr(g, e->u.bin.b, b);
    if (!out->ok || !b->ok) {
      out->ok = false;
    } else if (op == OP_MUL) {
      if (aff_is_const(b, nl)) out->ok = aff_scale(out, nl, b->c0);
      else if (aff_is_const(out, nl)) {
        int64_t m = out->c0;
        *out = *b;
        out->ok = aff_scale(out, nl, m);
      } else {
        out->ok = false;
      }
    } else {
      out->ok = aff_add(out, b, nl, op == OP_ADD ? 1 : -1);
    }
    free(b);
    return;
  }
  default: return;
  }
}

static int64_t *ref_strides(Cg *g, const IrTensor *t) {
  int64_t *st = cg_alloc(g, sizeof(int64_t) * (size_t)(t->rank ? t->rank : 1));
  int64_t s = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    st[d] = s;
    s *= t->shape[d];
  }
  return st;
}

static int find_or_make_slot(Cg *g, int64_t base, const int64_t *inc) {
  int n = 0;
  for (int k = 0; k < g->nl; k++) n += inc[k] != 0;
  for (int i = 0; i < g->nslots; i++) {
    Slot *s = &g->slots[i];
    if (s->base != base || s->n != n) continue;
    bool same = true;
    for (int j = 0; j < s->n && same; j++) {
      int k = loop_pos(g, s->loops[j]);
      same = k >= 0 && inc[k] == s->inc[j];
    }
    if (same) return s->reg;
  }
  if (g->nslots == g->capslots) {
    g->capslots = g->capslots ? g->capslots * 2 : 64;
    g->slots = xrealloc(g->slots, sizeof(Slot) * (size_t)g->capslots);
  }
  Slot *s = &g->slots[g->nslots++];
  s->base = base;
  s->n = n;
  s->loops = cg_alloc(g, sizeof(IrLoop *) * (size_t)(n ? n : 1));
  s->inc = cg_alloc(g, sizeof(int64_t) * (size_t)(n ? n : 1));
  s->reg = new_reg(g); /* not a constant: NEXT updates it */
  g->ip->init[s->reg].i = base;
  for (int k = 0, j = 0; k < g->nl; k++) {
    if (!inc[k]) continue;
    s->loops[j] = g->loop[k];
    s->inc[j++] = inc[k];
    acc_add(&g->acc[k], s->reg, inc[k]);
  }
  return s->reg;
}

/* The address register of r if it is affine and provably in range, else -1. */
static int affine_slot(Cg *g, const IrRef *r) {
  const IrTensor *t = r->tensor;
  int64_t *st = ref_strides(g, t);
  Aff *a = malloc(sizeof *a), *flat = malloc(sizeof *flat);
  int res = -1;
  if (!a || !flat) goto out;
  aff_const(flat, g->nl, 0);
  for (int d = 0; d < r->nsub; d++) {
    aff_expr(g, r->sub[d], a);
    if (!a->ok || !ir_expr_in_bounds(r->sub[d], t->shape[d])) goto out; /* the value analysis (ir/value.h) */
    for (int k = 0; k < g->nl; k++)
      if (g->loop[k]->extent == 1) a->coef[k] = 0; /* index always 0 */
    if (!aff_scale(a, g->nl, st[d]) || !aff_add(flat, a, g->nl, 1)) goto out;
  }
  res = find_or_make_slot(g, flat->c0, flat->coef);
out:
  free(a);
  free(flat);
  return res;
}

/* ------------------------------------------------------------ references */

static int cg_expr(Cg *g, const IrExpr *e);

/* Register holding the flat offset of r (checked). */
static int cg_addr(Cg *g, const IrRef *r, const IrStmt *s, bool write) {
  int slot = affine_slot(g, r);
  if (slot >= 0) return slot;
  const IrTensor *t = r->tensor;
  RefInfo *ri = cg_alloc(g, sizeof *ri);
  ri->ref = r;
  ri->stmt = s;
  ri->write = write;
  ri->rank = t->rank;
  ri->shape = t->shape;
  ri->stride = ref_strides(g, t);
  ri->dimreg = cg_alloc(g, sizeof(int) * (size_t)(t->rank ? t->rank : 1));
  for (int d = 0; d < r->nsub; d++)
    ri->dimreg[d] = conv(g, cg_expr(g, r->sub[d]), r->sub[d]->type, DT_I64);
  ri->nloops = g->nl;
  ri->loops = cg_alloc(g, sizeof(IrLoop *) * (size_t)(g->nl ? g->nl : 1));
  ri->loopreg = cg_alloc(g, sizeof(int) * (size_t)(g->nl ? g->nl : 1));
  for (int k = 0; k < g->nl; k++) {
    ri->loops[k] = g->loop[k];
    ri->loopreg[k] = g->lreg[k];
  }
  int d = new_reg(g);
  Ins in = ins(I_ADDR, d, 0, 0);
  in.p.ref = ri;
  emit(g, in);
  return d;
}

static void *buf_of(Cg *g, const IrTensor *t) { return g->ip->bufs[t->id].data; }

static int cg_load(Cg *g, const IrRef *r, const IrStmt *s) {
  int a = cg_addr(g, r, s, false);
  int d = new_reg(g);
  IrDType t = r->tensor->dtype;
  Ins in = ins(t == DT_F32 ? I_LD_F32 : t == DT_F64 ? I_LD_F64 : I_LD, d, a, 0);
  in.ty = (uint8_t)t;
  in.buf = buf_of(g, r->tensor);
  emit(g, in);
  return d;
}

/* ------------------------------------------------------------ expressions */

static int arith(Cg *g, IrOp op, IrDType t, int a, int b) {
  static const int off[] = {[OP_ADD] = 0, [OP_SUB] = 1, [OP_MUL] = 2, [OP_DIV] = 3,
                            [OP_FLOORDIV] = 4, [OP_MOD] = 5, [OP_POW] = 6};
  char c = op_class(t);
  Opc base = c == 'd' ? I_ADD_D : c == 'f' ? I_ADD_F : I_ADD_I;
  Opc o = (Opc)(base + off[op]);
  if (t == DT_I64 && (op == OP_ADD || op == OP_SUB || op == OP_MUL)) o = (Opc)(I_ADD_L + off[op]);
  int d = new_reg(g);
  Ins in = ins(o, d, a, b);
  in.ty = (uint8_t)t;
  emit(g, in);
  if (c == 'f' && t != DT_F32) {
    in = ins(I_RND, d, d, 0);
    in.ty = (uint8_t)t;
    emit(g, in);
  }
  return d;
}

/* An operation with one opcode per value class (f64, f32, integer); for
 * f16/bf16 with `round`, followed by the rounding. */
static int op2(Cg *g, Opc od, Opc of, Opc oi, IrDType t, int a, int b, bool round) {
  char c = op_class(t);
  int d = new_reg(g);
  Ins in = ins(c == 'd' ? od : c == 'f' ? of : oi, d, a, b);
  in.ty = (uint8_t)t;
  emit(g, in);
  if (round && c == 'f' && t != DT_F32) {
    in = ins(I_RND, d, d, 0);
    in.ty = (uint8_t)t;
    emit(g, in);
  }
  return d;
}

static int unop(Cg *g, Opc od, Opc of, Opc oi, IrDType t, int a, bool round) {
  return op2(g, od, of, oi, t, a, 0, round);
}

static bool is_plain_load(const IrExpr *e) {
  e = ir_expr_unparen(e);
  return e->kind == E_REF;
}

static int cg_cond(Cg *g, const IrExpr *e);

static int cg_binary(Cg *g, const IrExpr *e) {
  IrOp op = e->u.bin.op;
  if (op == OP_AND || op == OP_OR) return cg_cond(g, e);
  const IrExpr *A = e->u.bin.a, *B = e->u.bin.b;
  int a, b;
  if (ir_pow_is_square(e)) { /* ir/strength.h */
    a = conv(g, cg_expr(g, A), A->type, e->type);
    return arith(g, OP_MUL, e->type, a, a);
  }
  IrFma fm;
  if (ir_contract_fma(e, g->ctx->fp_contract, &fm)) { /* ir/contract.h */
    IrDType t = e->type;
    int x = conv(g, cg_expr(g, fm.x), fm.x->type, t);
    int y = conv(g, cg_expr(g, fm.y), fm.y->type, t);
    int z = conv(g, cg_expr(g, fm.z), fm.z->type, t);
    if (fm.neg_x) x = unop(g, I_NEG_D, I_NEG_F, I_HALT, t, x, false);
    if (fm.neg_z) z = unop(g, I_NEG_D, I_NEG_F, I_HALT, t, z, false);
    int d = new_reg(g);
    Ins in = ins(t == DT_F64 ? I_FMA_D : I_FMA_F, d, x, y);
    in.c = z;
    in.ty = (uint8_t)t;
    emit(g, in);
    return d;
  }
  if (is_plain_load(A) && !is_plain_load(B)) {
    b = conv(g, cg_expr(g, B), B->type, e->type);
    a = conv(g, cg_expr(g, A), A->type, e->type);
  } else {
    a = conv(g, cg_expr(g, A), A->type, e->type);
    b = conv(g, cg_expr(g, B), B->type, e->type);
  }
  return arith(g, op, e->type, a, b);
}

static int cg_truth(Cg *g, int r, IrDType t) {
  if (t == DT_BOOL) return r;
  int d = new_reg(g);
  Ins in = ins(I_TRUTH, d, r, 0);
  in.ty = (uint8_t)t;
  emit(g, in);
  return d;
}

static int cmp_link(Cg *g, IrOp op, int a, IrDType ta, int b, IrDType tb, int d) {
  IrDType ut = ir_dtype_usual(ta, tb);
  a = conv(g, a, ta, ut);
  b = conv(g, b, tb, ut);
  char c = op_class(ut);
  Ins in = ins(c == 'd' ? I_CMP_D : c == 'f' ? I_CMP_F : I_CMP_I, d, a, b);
  in.ty = (uint8_t)ut;
  in.x = op;
  emit(g, in);
  return d;
}

static void patch(Cg *g, int at) { g->ip->code[at].x = g->ip->ncode; }

/* A comparison chain: left to right, stopping at the first false link. */
static int cg_cmp(Cg *g, const IrExpr *e) {
  int d = new_reg(g);
  int n = e->u.cmp.n;
  const IrExpr *A = e->u.cmp.operand[0];
  int a = cg_expr(g, A);
  int chain = -1; /* the JZs to patch, linked through their x fields */
  for (int i = 0; i + 1 < n; i++) {
    const IrExpr *B = e->u.cmp.operand[i + 1];
    int b = cg_expr(g, B);
    cmp_link(g, e->u.cmp.op[i], a, A->type, b, B->type, d);
    if (i + 2 < n) {
      Ins j = ins(I_JZ, 0, d, 0);
      j.x = chain;
      chain = emit(g, j);
    }
    a = b;
    A = B;
  }
  while (chain >= 0) {
    int next = g->ip->code[chain].x;
    patch(g, chain);
    chain = next;
  }
  return d;
}

/* A truth value 0/1 (i64 register). */
static int cg_cond(Cg *g, const IrExpr *e) {
  e = ir_expr_unparen(e);
  if (e->kind == E_CMP) return cg_cmp(g, e);
  if (e->kind == E_BINARY && (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR)) {
    int d = new_reg(g);
    int a = cg_cond(g, e->u.bin.a);
    emit(g, ins(I_MOV, d, a, 0));
    int j = emit(g, ins(e->u.bin.op == OP_AND ? I_JZ : I_JNZ, 0, d, 0));
    int b = cg_cond(g, e->u.bin.b);
    emit(g, ins(I_MOV, d, b, 0));
    patch(g, j);
    return d;
  }
  return cg_truth(g, cg_expr(g, e), e->type);
}

static int cg_ite(Cg *g, const IrExpr *e) {
  const IrExpr *c = e->u.call.args[0], *A = e->u.call.args[1], *B = e->u.call.args[2];
  int d = new_reg(g);
  int cr = cg_cond(g, c);
  int jz = emit(g, ins(I_JZ, 0, cr, 0));
  emit(g, ins(I_MOV, d, conv(g, cg_expr(g, A), A->type, e->type), 0));
  int jmp = emit(g, ins(I_JMP, 0, 0, 0));
  patch(g, jz);
  emit(g, ins(I_MOV, d, conv(g, cg_expr(g, B), B->type, e->type), 0));
  patch(g, jmp);
  return d;
}

static int cg_call(Cg *g, const IrExpr *e) {
  IrFunc f = e->u.call.func;
  IrDType t = e->type;
  if (f == F_ITE) return cg_ite(g, e);
  if (f == F_MAX || f == F_MIN) {
    const IrExpr *A = e->u.call.args[0];
    int acc = conv(g, cg_expr(g, A), A->type, t);
    for (int i = 1; i < e->u.call.nargs; i++) {
      const IrExpr *B = e->u.call.args[i];
      int b = conv(g, cg_expr(g, B), B->type, t);
      acc = f == F_MAX ? op2(g, I_MAX_D, I_MAX_F, I_MAX_I, t, acc, b, false)
                       : op2(g, I_MIN_D, I_MIN_F, I_MIN_I, t, acc, b, false);
    }
    return acc;
  }
  const IrExpr *A = e->u.call.args[0];
  int a = conv(g, cg_expr(g, A), A->type, t);
  switch (f) {
  case F_ABS: return unop(g, I_ABS_D, I_ABS_F, I_ABS_I, t, a, false);
  case F_SQRT: return unop(g, I_SQRT_D, I_SQRT_F, I_HALT, t, a, true);
  case F_EXP: return unop(g, I_EXP_D, I_EXP_F, I_HALT, t, a, true);
  case F_LOG: return unop(g, I_LOG_D, I_LOG_F, I_HALT, t, a, true);
  default: return unop(g, I_ERF_D, I_ERF_F, I_HALT, t, a, true);
  }
}

static int cg_expr(Cg *g, const IrExpr *e) {
  IVal v;
  switch (e->kind) {
  case E_INT:
    v.i = e->u.ilit.value;
    return const_reg(g, op_convert(v, DT_I64, e->type));
  case E_FLOAT: return const_reg(g, op_const(e->u.flit.value, e->type));
  case E_INF: return const_reg(g, op_const(INFINITY, e->type));
  case E_INDEX: {
    int k = loop_pos(g, e->u.index.loop);
    if (k < 0) {
      g->failed = true;
      return const_reg(g, (IVal){.u = 0});
    }
    return conv(g, g->lreg[k], DT_I64, e->type);
  }
  case E_REF: return conv(g, cg_load(g, e->u.ref, g->stmt), e->u.ref->tensor->dtype, e->type);
  case E_PAREN: return conv(g, cg_expr(g, e->u.paren), e->u.paren->type, e->type);
  case E_UNARY: {
    int a = conv(g, cg_expr(g, e->u.unary.a), e->u.unary.a->type, e->type);
    if (e->u.unary.op != OP_NEG) return a;
    if (is_const(g, a)) return const_reg(g, op_neg(e->type, g->ip->init[a]));
    return unop(g, I_NEG_D, I_NEG_F, I_NEG_I, e->type, a, false);
  }
  case E_BINARY: return cg_binary(g, e);
  case E_CMP: return cg_cmp(g, e);
  case E_CALL: return cg_call(g, e);
  }
  return const_reg(g, (IVal){.u = 0});
}

/* ------------------------------------------------------------ tree mode */

typedef struct TreeForm {
  int op;            /* OP_ADD OP_SUB OP_MUL OPX_MAX OPX_MIN */
  const IrExpr *E;   /* the contribution */
  IrDType nt;        /* the root node's type */
} TreeForm;

typedef struct Mention {
  const IrTensor *t;
  bool found;
} Mention;

static void find_tensor(IrExpr *e, void *user) {
  Mention *m = user;
  if (e->kind == E_REF && e->u.ref->tensor == m->t) m->found = true;
}

static bool mentions(const IrExpr *e, const IrTensor *t) {
  Mention m = {t, false};
  ir_walk_expr((IrExpr *)e, find_tensor, &m);
  return m.found;
}

/* Form (1) of interp.h: `T[s] op E` or max/min(T[s], E). */
static bool tree_shape(const IrStmt *s, TreeForm *tf) {
  const IrExpr *r = ir_expr_unparen(s->rhs);
  const IrExpr *L = NULL;
  if (r->kind == E_BINARY && (r->u.bin.op == OP_ADD || r->u.bin.op == OP_SUB || r->u.bin.op == OP_MUL)) {
    L = ir_expr_unparen(r->u.bin.a);
    tf->E = r->u.bin.b;
    tf->op = r->u.bin.op;
  } else if (r->kind == E_CALL && (r->u.call.func == F_MAX || r->u.call.func == F_MIN) && r->u.call.nargs == 2) {
    L = ir_expr_unparen(r->u.call.args[0]);
    tf->E = r->u.call.args[1];
    tf->op = r->u.call.func == F_MAX ? OPX_MAX : OPX_MIN;
  } else {
    return false;
  }
  tf->nt = r->type;
  const IrTensor *T = s->lhs->tensor;
  return L->kind == E_REF && L->u.ref->tensor == T && ir_ref_same_subscript(L->u.ref, s->lhs) && !mentions(tf->E, T);
}

typedef struct Marks {
  const Cg *g;
  bool *m;
} Marks;

static void mark_index(IrExpr *e, void *user) {
  Marks *mk = user;
  if (e->kind != E_INDEX) return;
  int k = loop_pos(mk->g, e->u.index.loop);
  if (k >= 0) mk->m[k] = true;
}

static void mark_ref_subs(const IrRef *r, Marks *mk) {
  for (int i = 0; i < r->nsub; i++) ir_walk_expr(r->sub[i], mark_index, mk);
}

/* Positions (in the loop stack) of the thread-bound reduction loops of s. */
static int thread_red_loops(const Cg *g, const IrStmt *s, int *pos) {
  bool lhs[MAXL] = {false}, all[MAXL] = {false};
  Marks ml = {g, lhs}, ma = {g, all};
  mark_ref_subs(s->lhs, &ml);
  mark_ref_subs(s->lhs, &ma);
  ir_walk_expr(s->rhs, mark_index, &ma);
  int n = 0;
  for (int k = 0; k < g->nl; k++) {
    const IrLoop *l = g->loop[k];
    bool thread = l->kind == LOOP_B && (l->hw == HW_TX || l->hw == HW_TY || l->hw == HW_TZ);
    if (all[k] && !lhs[k] && thread) pos[n++] = k;
  }
  return n;
}

static IVal tree_identity(int op, IrDType nt) {
  switch (op) {
  case OP_ADD: case OP_SUB: return op_const(0, nt);
  case OP_MUL: return op_const(1, nt);
  case OPX_MAX: return op_const(-INFINITY, nt);
  default: return op_const(INFINITY, nt);
  }
}

/* Largest number of threads a tree reduction may have in the interpreter. */
#define TREE_MAX_THREADS ((int64_t)1 << 24)

static TreeInfo *make_tree(Cg *g, const IrStmt *s, const TreeForm *tf) {
  int pos[MAXL];
  int n = thread_red_loops(g, s, pos);
  if (n == 0) return NULL;
  const IrTensor *T = s->lhs->tensor;
  TreeInfo *ti = cg_alloc(g, sizeof *ti);
  ti->stmt = s;
  ti->buf = buf_of(g, T);
  ti->tdt = T->dtype;
  ti->nt = tf->nt;
  ti->op = tf->op;
  ti->ident = tree_identity(tf->op, tf->nt);
  ti->nthr = n;
  ti->thr_reg = cg_alloc(g, sizeof(int) * (size_t)n);
  ti->thr_ext = cg_alloc(g, sizeof(int64_t) * (size_t)n);
  ti->N = 1;
  for (int i = 0; i < n; i++) {
    ti->thr_reg[i] = g->lreg[pos[i]];
    ti->thr_ext[i] = g->loop[pos[i]]->extent;
    if (ti->thr_ext[i] > TREE_MAX_THREADS || (ti->N *= ti->thr_ext[i]) > TREE_MAX_THREADS) {
      diag_error(g->ctx, s->loc, "this reduction over thread-bound indices has more than %lld threads, "
                 "too many for the interpreter", (long long)TREE_MAX_THREADS);
      g->failed = true;
      return NULL;
    }
  }
  ti->numel = ir_tensor_numel(T);
  ptrvec_push(&g->ip->arena, &g->flush[pos[0]], ti);
  ptrvec_push(&g->ip->arena, &g->trees, ti);
  return ti;
}

/* ------------------------------------------------------------ statements */

static void emit_init(Cg *g, const IrStmt *s, int la) {
  IrDType st = s->lhs->tensor->dtype;
  Ins in;
  if (s->nred == 0) {
    in = ins(I_INIT, 0, la, 0);
  } else {
    int *slots = cg_alloc(g, sizeof(int) * (size_t)s->nred);
    for (int i = 0; i < s->nred; i++) {
      int k = loop_pos(g, s->red[i]);
      if (k < 0) {
        g->failed = true;
        return;
      }
      slots[i] = g->lreg[k];
    }
    in = ins(s->nred == 1 ? I_INITCHK1 : I_INITCHK, 0, la, slots[0]);
    in.p.slots = slots;
    in.imm = s->nred;
  }
  in.ty = (uint8_t)st;
  in.buf = buf_of(g, s->lhs->tensor);
  in.v = op_const(s->identity, st);
  emit(g, in);
}

static void cg_stmt(Cg *g, const IrStmt *s) {
  g->stmt = s;
  const IrTensor *T = s->lhs->tensor;
  IrDType st = T->dtype;
  int la = cg_addr(g, s->lhs, s, true);
  if (s->init == INIT_REDUCE) emit_init(g, s, la);
  TreeForm tf;
  TreeInfo *ti = tree_shape(s, &tf) ? make_tree(g, s, &tf) : NULL;
  Ins in;
  if (ti) {
    int v = conv(g, cg_expr(g, tf.E), tf.E->type, tf.nt);
    in = ins(I_TREE_ACC, 0, la, v);
    in.p.tree = ti;
  } else {
    int v = conv(g, cg_expr(g, s->rhs), s->rhs->type, st);
    in = ins(st == DT_F32 ? I_ST_F32 : st == DT_F64 ? I_ST_F64 : I_ST, 0, la, v);
    in.ty = (uint8_t)st;
    in.buf = buf_of(g, T);
  }
  in.x = s->id;
  emit(g, in);
}

/* ------------------------------------------------------------ nests */

static void close_loop(Cg *g, int k, int start) {
  const IrLoop *l = g->loop[k];
  if (l->extent > 1) {
    DeltaAcc *a = &g->acc[k];
    Deltas *dl = cg_alloc(g, sizeof *dl);
    dl->n = a->n;
    dl->reg = cg_alloc(g, sizeof(int) * (size_t)(a->n ? a->n : 1));
    dl->inc = cg_alloc(g, sizeof(int64_t) * (size_t)(a->n ? a->n : 1));
    dl->undo = cg_alloc(g, sizeof(int64_t) * (size_t)(a->n ? a->n : 1));
    for (int i = 0; i < a->n; i++) {
      dl->reg[i] = a->reg[i];
      dl->inc[i] = a->inc[i];
      dl->undo[i] = a->inc[i] * (l->extent - 1); /* in range: the slot is */
    }
    Ins in = ins(I_NEXT, g->lreg[k], 0, 0);
    in.imm = l->extent;
    in.x = start;
    in.p.dl = dl;
    emit(g, in);
  }
  for (int i = 0; i < g->flush[k].n; i++) {
    Ins in = ins(I_TREE_FLUSH, 0, 0, 0);
    in.p.tree = g->flush[k].v[i];
    emit(g, in);
  }
  g->acc[k].n = 0;
  g->flush[k].n = 0;
}

static void cg_nest(Cg *g, const IrNest *n) {
  int base = g->nl;
  int *start = xrealloc(NULL, sizeof(int) * (size_t)(n->nloops > 0 ? n->nloops : 1));
  for (int i = 0; i < n->nloops; i++) {
    if (g->nl == MAXL) {
      diag_error(g->ctx, n->loops[i]->loc, "loops nested too deeply for the interpreter (at most %d)", MAXL);
      g->failed = true;
      g->nl = base;
      free(start);
      return;
    }
    int k = g->nl++;
    g->loop[k] = n->loops[i];
    g->lreg[k] = new_reg(g);
    g->acc[k].n = 0;
    g->flush[k].n = 0;
    start[i] = g->ip->ncode;
  }
  for (int i = 0; i < n->nitems && !g->failed; i++) {
    if (n->items[i].kind == ITEM_STMT) cg_stmt(g, n->items[i].u.stmt);
    else cg_nest(g, n->items[i].u.nest);
  }
  for (int k = g->nl - 1; k >= base; k--) close_loop(g, k, start[k - base]);
  g->nl = base;
  free(start);
}

/* ------------------------------------------------------------ peephole */

/* Registers an instruction reads; returns their number. */
static int reads(const Ins *in, int *out) {
  switch ((Opc)in->op) {
  case I_HALT: case I_JMP: case I_TREE_FLUSH: return 0;
  case I_NEXT: out[0] = in->d; return 1;
  case I_JZ: case I_JNZ: case I_INIT: case I_LD: case I_LD_F32: case I_LD_F64: case I_MOV: case I_CVT:
  case I_RND: case I_TRUTH: case I_NEG_D: case I_ABS_D: case I_SQRT_D: case I_EXP_D: case I_LOG_D:
  case I_ERF_D: case I_NEG_F: case I_ABS_F: case I_SQRT_F: case I_EXP_F: case I_LOG_F: case I_ERF_F:
  case I_NEG_I: case I_ABS_I:
    out[0] = in->a;
    return 1;
  case I_INITCHK: {
    out[0] = in->a;
    int n = 1;
    for (int i = 0; i < in->imm && n < 64; i++) out[n++] = in->p.slots[i];
    return n;
  }
  case I_ADDR: {
    int n = 0;
    for (int i = 0; i < in->p.ref->rank && n < 64; i++) out[n++] = in->p.ref->dimreg[i];
    return n;
  }
  case I_FMA_D: case I_FMA_F:
    out[0] = in->a;
    out[1] = in->b;
    out[2] = in->c;
    return 3;
  case I_MAC_F: case I_MAC_D:
    out[0] = in->d;
    out[1] = in->a;
    out[2] = in->b;
    if (in->c >= 0) {
      out[3] = in->c;
      return 4;
    }
    return 3;
  default:
    out[0] = in->a;
    out[1] = in->b;
    return 2;
  }
}

static bool is_jump(const Ins *in) {
  return in->op == I_NEXT || in->op == I_JMP || in->op == I_JZ || in->op == I_JNZ;
}

typedef struct Peep {
  Ins *code;
  int n;
  int *uses;      /* per register */
  bool *target;   /* per instruction: a jump lands here */
} Peep;

static void peep_scan(Peep *pp, int nregs) {
  memset(pp->uses, 0, sizeof(int) * (size_t)nregs);
  memset(pp->target, 0, (size_t)pp->n + 1);
  int r[64];
  for (int i = 0; i < pp->n; i++) {
    int k = reads(&pp->code[i], r);
    for (int j = 0; j < k; j++) pp->uses[r[j]]++;
    if (is_jump(&pp->code[i])) pp->target[pp->code[i].x] = true;
  }
}

static bool free_of_targets(const Peep *pp, int i, int len) {
  for (int k = i + 1; k < i + len; k++)
    if (k > pp->n || pp->target[k]) return false;
  return i + len <= pp->n;
}

/* LD x; LD y; MUL z = x * y  ->  MUL_MM z */
static int fuse_mul(const Peep *pp, int i, Ins *out) {
  const Ins *c = pp->code + i;
  if (!free_of_targets(pp, i, 3)) return 0;
  bool f = c[0].op == I_LD_F32 && c[1].op == I_LD_F32 && c[2].op == I_MUL_F;
  bool d = c[0].op == I_LD_F64 && c[1].op == I_LD_F64 && c[2].op == I_MUL_D;
  if (!f && !d) return 0;
  if (c[2].a != c[0].d || c[2].b != c[1].d || pp->uses[c[0].d] != 1 || pp->uses[c[1].d] != 1) return 0;
  *out = ins(f ? I_MUL_F_MM : I_MUL_D_MM, c[2].d, c[0].a, c[1].a);
  out->buf = c[0].buf;
  out->buf2 = c[1].buf;
  return 3;
}

/* LD t = T[p]; OP u = t op v; ST T[p] = u  ->  ACC T[p] op= v */
static int fuse_acc(const Peep *pp, int i, Ins *out) {
  const Ins *c = pp->code + i;
  if (!free_of_targets(pp, i, 3)) return 0;
  bool f = c[0].op == I_LD_F32 && c[2].op == I_ST_F32 &&
           (c[1].op == I_ADD_F || c[1].op == I_SUB_F || c[1].op == I_MUL_F);
  bool d = c[0].op == I_LD_F64 && c[2].op == I_ST_F64 &&
           (c[1].op == I_ADD_D || c[1].op == I_SUB_D || c[1].op == I_MUL_D);
  if (!f && !d) return 0;
  if (c[1].a != c[0].d || c[2].b != c[1].d || c[0].buf != c[2].buf || c[0].a != c[2].a) return 0;
  if (pp->uses[c[0].d] != 1 || pp->uses[c[1].d] != 1 || c[1].b == c[0].d) return 0;
  *out = ins(f ? I_ACC_F : I_ACC_D, 0, c[0].a, c[1].b);
  out->c = c[1].op - (f ? I_ADD_F : I_ADD_D); /* 0 add, 1 sub, 2 mul */
  out->buf = c[0].buf;
  out->x = c[2].x;
  return 3;
}

/* [INITCHK1] MUL_MM z; ACC(add) T[p] += z  ->  MAC */
static int fuse_mac(const Peep *pp, int i, Ins *out) {
  const Ins *c = pp->code + i;
  int k = 0;
  bool init = c[0].op == I_INITCHK1 && (c[0].ty == DT_F32 || c[0].ty == DT_F64);
  if (init) k = 1;
  if (!free_of_targets(pp, i, k + 2)) return 0;
  bool f = c[k].op == I_MUL_F_MM && c[k + 1].op == I_ACC_F;
  bool d = c[k].op == I_MUL_D_MM && c[k + 1].op == I_ACC_D;
  if ((!f && !d) || c[k + 1].c != 0 || c[k + 1].b != c[k].d || pp->uses[c[k].d] != 1) return 0;
  if (init && (c[0].buf != c[k + 1].buf || c[0].a != c[k + 1].a)) return 0;
  *out = ins(f ? I_MAC_F : I_MAC_D, c[k + 1].a, c[k].a, c[k].b);
  out->c = init ? c[0].b : -1;
  out->v = init ? c[0].v : (IVal){.u = 0};
  out->buf = c[k + 1].buf;
  out->buf2 = c[k].buf;
  out->buf3 = c[k].buf2;
  out->x = c[k + 1].x;
  return k + 2;
}

typedef int (*FuseFn)(const Peep *pp, int i, Ins *out);

static void peep_pass(InterpProg *ip, FuseFn fn) {
  Peep pp = {ip->code, ip->ncode, NULL, NULL};
  size_t nregs = ip->nregs > 0 ? (size_t)ip->nregs : 1, ncode = ip->ncode > 0 ? (size_t)ip->ncode : 0;
  pp.uses = xrealloc(NULL, sizeof(int) * nregs);
  pp.target = xrealloc(NULL, ncode + 1);
  int *map = xrealloc(NULL, sizeof(int) * (ncode + 1));
  peep_scan(&pp, ip->nregs);
  Ins *nc = xrealloc(NULL, sizeof(Ins) * (ncode + 1));
  int m = 0;
  for (int i = 0; i < ip->ncode;) {
    Ins f;
    int len = fn(&pp, i, &f);
    if (len) {
      for (int k = 0; k < len; k++) map[i + k] = m;
      nc[m++] = f;
      i += len;
    } else {
      map[i] = m;
      nc[m++] = ip->code[i++];
    }
  }
  map[ip->ncode] = m;
  for (int i = 0; i < m; i++)
    if (is_jump(&nc[i])) nc[i].x = map[nc[i].x];
  free(ip->code);
  ip->code = nc;
  ip->ncode = ip->capcode = m;
  free(pp.uses);
  free(pp.target);
  free(map);
}

/* ------------------------------------------------------------ driver */

bool vm_compile(InterpProg *ip) {
  Cg *g = calloc(1, sizeof *g);
  if (!g) return false;
  g->ctx = ip->ctx;
  g->ip = ip;
  g->p = ip->p;
  for (int i = 0; i < ip->p->nnests && !g->failed; i++) cg_nest(g, ip->p->nests[i]);
  emit(g, ins(I_HALT, 0, 0, 0));
  bool ok = !g->failed;
  if (ok) {
    peep_pass(ip, fuse_mul);
    peep_pass(ip, fuse_acc);
    peep_pass(ip, fuse_mac);
  } else if (g->ctx->nerrors == 0) {
    diag_error(g->ctx, (IrLoc){0, 0}, "internal compiler error: the interpreter could not compile this program");
  }
  ip->ntrees = g->trees.n;
  ip->trees = (TreeInfo **)g->trees.v;
  for (int k = 0; k < MAXL; k++) {
    free(g->acc[k].reg);
    free(g->acc[k].inc);
  }
  free(g->slots);
  free(g->cst);
  free(g);
  return ok;
}
