/* lower.c -- the one lowering from the IR to LLVM IR (SPEC §5.4, §9, §13.2),
 * shared by the NVPTX and host back ends.
 *
 * Values: every expression is computed in its sema type (e->type) with the
 * register types of cg_reg_type: f16 and bf16 live in floats and are
 * rounded back to 16 bits after every operation (§9.4), bool is i1.
 * Operands are converted to the node's type first (C's usual arithmetic
 * conversions, as sema typed them); the statement's value is converted to
 * the left tensor's dtype and stored.  The exact meaning of every operation
 * (division by zero, floor operations, max/min with NaN, conversions out of
 * range) is the interpreter's; each has one small function here.  The
 * loops of a nest are lowered in lower_loops.c.
 */
#include "codegen/cg.h"
#include "codegen/mathlib_emit.h"
#include "ir/mathlib.h"
#include "ir/strength.h"
#include "ir/contract.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

LLVMValueRef cg_i64(CgModule *m, int64_t v) { return LLVMConstInt(m->i64, (unsigned long long)v, 1); }

LLVMBasicBlockRef cg_block(CgFn *f, const char *name) {
  return LLVMAppendBasicBlockInContext(f->m->C, f->fn, name);
}

LLVMValueRef cg_alloca(CgFn *f, LLVMTypeRef ty, int64_t n, const char *name) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(f->m->C);
  LLVMValueRef first = LLVMGetFirstInstruction(f->entry);
  if (first) LLVMPositionBuilderBefore(b, first);
  else LLVMPositionBuilderAtEnd(b, f->entry);
  LLVMValueRef a = LLVMBuildAlloca(b, n == 1 ? ty : LLVMArrayType2(ty, (uint64_t)n), name);
  LLVMSetAlignment(a, 16);
  LLVMDisposeBuilder(b);
  return a;
}

static bool is_unsigned(IrDType t) { return ir_dtype_is_unsigned_int(t); }

LLVMTypeRef cg_reg_type(CgModule *m, IrDType t) {
  switch (t) {
  case DT_F16: case DT_BF16: case DT_F32: return m->f32;
  case DT_F64: return m->f64;
  case DT_I8: case DT_U8: return m->i8;
  case DT_I16: case DT_U16: return m->i16;
  case DT_I32: case DT_U32: return m->i32;
  case DT_I64: case DT_U64: return m->i64;
  case DT_BOOL: return m->i1;
  default: return m->i64;
  }
}

LLVMTypeRef cg_mem_type(CgModule *m, IrDType t) {
  if (ir_dtype_is_half(t)) return m->i16;
  if (t == DT_BOOL) return m->i8;
  return cg_reg_type(m, t);
}

static LLVMValueRef call1(CgFn *f, LLVMValueRef fn, LLVMValueRef a) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  return LLVMBuildCall2(f->m->B, fty, fn, &a, 1, "");
}

static LLVMValueRef call2(CgFn *f, LLVMValueRef fn, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  LLVMValueRef args[2] = {a, b};
  return LLVMBuildCall2(f->m->B, fty, fn, args, 2, "");
}

/* Host (issue 59): a call of the scalar math routine sf naming its vector
 * variants vf[0 .. nv) (VFABI `vector-function-abi-variant` = abi), which
 * give sf's bits in every lane, so that the loop vectoriser calls them
 * instead of scalarising sf (erf's table lookups), widening its scalar
 * code (exp on AVX-512: vscalefps) or if-converting it (pow's lane-uniform
 * branches).  Until the vectoriser has run sf stays a
 * call (noinline), and the variants are kept alive by llvm.compiler.used;
 * cg_optimize then inlines them all (kernel.c inline_math). */
static LLVMValueRef vector_call(CgFn *f, LLVMValueRef sf, LLVMValueRef *args, unsigned nargs, LLVMValueRef *vf,
                                unsigned nv, const char *abi) {
  CgModule *m = f->m;
  unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
  if (!LLVMGetEnumAttributeAtIndex(sf, LLVMAttributeFunctionIndex, ni)) {
    LLVMValueRef el[16]; /* erf's 2, exp's 2, pow's 3, log's 3 variants at most */
    unsigned ne = 0;
    LLVMValueRef old = LLVMGetNamedGlobal(m->M, "llvm.compiler.used");
    if (old) {
      LLVMValueRef init = LLVMGetInitializer(old);
      for (int i = 0; i < LLVMGetNumOperands(init) && ne < 12; i++) el[ne++] = LLVMGetOperand(init, (unsigned)i);
      LLVMDeleteGlobal(old);
    }
    for (unsigned i = 0; i < nv && ne < 16; i++) el[ne++] = vf[i];
    LLVMValueRef used = LLVMAddGlobal(m->M, LLVMArrayType(m->ptr0, ne), "llvm.compiler.used");
    LLVMSetInitializer(used, LLVMConstArray(m->ptr0, el, ne));
    LLVMSetLinkage(used, LLVMAppendingLinkage);
    LLVMSetSection(used, "llvm.metadata");
    unsigned ih = LLVMGetEnumAttributeKindForName("inlinehint", 10);
    LLVMRemoveEnumAttributeAtIndex(sf, LLVMAttributeFunctionIndex, ih);
    LLVMAddAttributeAtIndex(sf, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->C, ni, 0));
  }
  LLVMValueRef call = LLVMBuildCall2(m->B, LLVMGlobalGetValueType(sf), sf, args, nargs, "");
  const char *k = "vector-function-abi-variant";
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                           LLVMCreateStringAttribute(m->C, k, (unsigned)strlen(k), abi, (unsigned)strlen(abi)));
  return call;
}

/* f32 erf and exp, the scalar routine sf (leir.erff, leir.expf) and its
   variants from get: SF.v8 (erf's blend-free form; exp's branch to its
   normal path), and SF.v16 with AVX-512 (exp's vscalefps) */
static LLVMValueRef f32_vector_call(CgFn *f, LLVMValueRef sf, LLVMValueRef x,
                                    LLVMValueRef (*get)(LLVMModuleRef, int)) {
  CgModule *m = f->m;
  LLVMValueRef vf[2] = {get(m->M, 8), m->math_lanes >= 16 ? get(m->M, 16) : NULL};
  size_t len;
  const char *n = LLVMGetValueName2(sf, &len);
  char abi[128];
  int w = snprintf(abi, sizeof abi, "_ZGV_LLVM_N8v_%.*s(%.*s.v8)", (int)len, n, (int)len, n);
  if (vf[1] && w > 0 && (size_t)w < sizeof abi)
    snprintf(abi + w, sizeof abi - (size_t)w, ",_ZGV_LLVM_N16v_%.*s(%.*s.v16)", (int)len, n, (int)len, n);
  return vector_call(f, sf, &x, 1, vf, vf[1] ? 2 : 1, abi);
}

/* f64 pow with a varying exponent: leir.pow.lazy and its variants
   leir.pow.v4, v8 and v16 (the math loops' 16 lanes, lower_loops.c
   math_width) */
static LLVMValueRef pow_vector_call(CgFn *f, LLVMValueRef a, LLVMValueRef b) {
  CgModule *m = f->m;
  LLVMValueRef vf[3] = {cg_math_get_pow_vec(m->M, 4), cg_math_get_pow_vec(m->M, 8), cg_math_get_pow_vec(m->M, 16)};
  LLVMValueRef args[2] = {a, b};
  return vector_call(f, cg_math_get_pow_vec(m->M, 1), args, 2, vf, 3,
                     "_ZGV_LLVM_N4vv_leir.pow.lazy(leir.pow.v4),_ZGV_LLVM_N8vv_leir.pow.lazy(leir.pow.v8),"
                     "_ZGV_LLVM_N16vv_leir.pow.lazy(leir.pow.v16)");
}

/* An LLVM intrinsic overloaded on one type (llvm.sqrt.f32, ...). */
static LLVMValueRef intrinsic(CgFn *f, const char *name, LLVMTypeRef ty, LLVMValueRef *args, int n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef tys[1] = {ty};
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(f->m->M, id, tys, 1);
  LLVMTypeRef fty = LLVMIntrinsicGetType(f->m->C, id, tys, 1);
  return LLVMBuildCall2(f->m->B, fty, fn, args, (unsigned)n, "");
}

/* x rounded once to the 16-bit format of t (f16/bf16); other types: x. */
static LLVMValueRef round16(CgFn *f, LLVMValueRef x, IrDType t) {
  if (!ir_dtype_is_half(t)) return x;
  return call1(f, cg_math_get_round16(f->m->M, t == DT_BF16), x);
}

/* ------------------------------------------------------------ constants */

static LLVMValueRef int_const(CgModule *m, IrDType t, int64_t v) {
  if (t == DT_BOOL) return LLVMConstInt(m->i1, v != 0, 0);
  return LLVMConstInt(cg_reg_type(m, t), (unsigned long long)v, 1);
}

/* A double converted to t the way the interpreter converts literals. */
LLVMValueRef cg_const(CgFn *f, double v, IrDType t) {
  CgModule *m = f->m;
  switch (t) {
  case DT_F64: return LLVMConstReal(m->f64, v);
  case DT_F32: return LLVMConstReal(m->f32, (double)(float)v);
  case DT_F16: return LLVMConstReal(m->f32, (double)leir_round_f16((float)v));
  case DT_BF16: return LLVMConstReal(m->f32, (double)leir_round_bf16((float)v));
  case DT_BOOL: return LLVMConstInt(m->i1, v == v && v != 0, 0); /* NaN -> 0 */
  default: break;
  }
  /* integers: truncation toward zero, saturated, NaN -> 0 */
  int bits = ir_dtype_size(t) * 8;
  if (v != v) return int_const(m, t, 0);
  if (is_unsigned(t)) {
    double hi = ldexp(1.0, bits);
    if (v <= 0) return int_const(m, t, 0);
    if (v >= hi) return LLVMConstAllOnes(cg_reg_type(m, t));
    return LLVMConstInt(cg_reg_type(m, t), (unsigned long long)v, 0);
  }
  double lim = ldexp(1.0, bits - 1);
  if (v >= lim) return int_const(m, t, (int64_t)(((uint64_t)1 << (bits - 1)) - 1));
  if (v < -lim) return int_const(m, t, bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1)));
  return int_const(m, t, (int64_t)v);
}

static LLVMValueRef const_of_int(CgFn *f, int64_t v, IrDType t) {
  if (ir_dtype_is_float(t)) {
    float x = (float)v;
    switch (t) {
    case DT_F64: return LLVMConstReal(f->m->f64, (double)v);
    case DT_F16: x = leir_round_f16(x); break;
    case DT_BF16: x = leir_round_bf16(x); break;
    default: break;
    }
    return LLVMConstReal(f->m->f32, (double)x);
  }
  return int_const(f->m, t, v);
}

/* ------------------------------------------------------------ conversions */

static LLVMValueRef to_bool(CgFn *f, LLVMValueRef v, IrDType from) {
  LLVMBuilderRef B = f->m->B;
  if (from == DT_BOOL) return v;
  if (ir_dtype_is_float(from))
    return LLVMBuildFCmp(B, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  return LLVMBuildICmp(B, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

/* float -> integer: truncation toward zero, saturating at the type's
 * range, NaN -> 0 (llvm.fpto[su]i.sat: defined for every input). */
static LLVMValueRef float_to_int(CgFn *f, LLVMValueRef v, IrDType to) {
  LLVMTypeRef it = cg_reg_type(f->m, to);
  const char *name = is_unsigned(to) ? "llvm.fptoui.sat" : "llvm.fptosi.sat";
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef tys[2] = {it, LLVMTypeOf(v)};
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(f->m->M, id, tys, 2);
  LLVMTypeRef fty = LLVMIntrinsicGetType(f->m->C, id, tys, 2);
  return LLVMBuildCall2(f->m->B, fty, fn, &v, 1, "");
}

LLVMValueRef cg_convert(CgFn *f, LLVMValueRef v, IrDType from, IrDType to) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  if (from == to) return v;
  if (to == DT_BOOL && ir_dtype_is_float(from)) /* x != 0 and not NaN (saturating conversion) */
    return LLVMBuildFCmp(B, LLVMRealONE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  if (to == DT_BOOL) return to_bool(f, v, from);
  LLVMTypeRef rt = cg_reg_type(m, to);
  bool ff = ir_dtype_is_float(from), ft = ir_dtype_is_float(to);
  if (from == DT_BOOL) {
    v = LLVMBuildZExt(B, v, m->i32, "");
    from = DT_I32;
    if (from == to) return v;
  }
  if (ff && ft) {
    if (from == DT_F64) v = LLVMBuildFPTrunc(B, v, m->f32, ""); /* to f32/f16/bf16 */
    else if (to == DT_F64) v = LLVMBuildFPExt(B, v, m->f64, "");
    if (to == DT_F64) return v;
    return round16(f, v, to);
  }
  if (ff) return float_to_int(f, v, to);
  if (ft) {
    LLVMTypeRef via = to == DT_F64 ? m->f64 : m->f32;
    v = is_unsigned(from) ? LLVMBuildUIToFP(B, v, via, "") : LLVMBuildSIToFP(B, v, via, "");
    return round16(f, v, to);
  }
  unsigned wf = LLVMGetIntTypeWidth(LLVMTypeOf(v)), wt = LLVMGetIntTypeWidth(rt);
  if (wf == wt) return v;
  if (wf > wt) return LLVMBuildTrunc(B, v, rt, "");
  return is_unsigned(from) ? LLVMBuildZExt(B, v, rt, "") : LLVMBuildSExt(B, v, rt, "");
}

/* ------------------------------------------------------------ arithmetic */

/* Integer division and remainder, defined everywhere: x / 0 = 0, x % 0 = 0,
 * MIN / -1 wraps to MIN.  floor: round toward -inf (//, %) else toward 0. */
static LLVMValueRef int_divmod(CgFn *f, LLVMValueRef a, LLVMValueRef b, IrDType t, bool rem,
                               bool floor) {
  LLVMBuilderRef B = f->m->B;
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(ty), one = LLVMConstInt(ty, 1, 0);
  LLVMValueRef bz = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
  if (is_unsigned(t)) {
    LLVMValueRef sb = LLVMBuildSelect(B, bz, one, b, "");
    LLVMValueRef r = rem ? LLVMBuildURem(B, a, sb, "") : LLVMBuildUDiv(B, a, sb, "");
    return LLVMBuildSelect(B, bz, zero, r, "");
  }
  LLVMValueRef m1 = LLVMConstAllOnes(ty);
  LLVMValueRef bm1 = LLVMBuildICmp(B, LLVMIntEQ, b, m1, "");
  LLVMValueRef sb = LLVMBuildSelect(B, LLVMBuildOr(B, bz, bm1, ""), one, b, "");
  LLVMValueRef q = LLVMBuildSDiv(B, a, sb, "");
  q = LLVMBuildSelect(B, bm1, LLVMBuildSub(B, zero, a, ""), q, "");
  LLVMValueRef r = LLVMBuildSub(B, a, LLVMBuildMul(B, q, b, ""), "");
  if (floor) {
    /* r != 0 and sign(r) != sign(b): q -= 1, r += b */
    LLVMValueRef nz = LLVMBuildICmp(B, LLVMIntNE, r, zero, "");
    LLVMValueRef diff = LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildXor(B, r, b, ""), zero, "");
    LLVMValueRef adj = LLVMBuildAnd(B, nz, diff, "");
    q = LLVMBuildSelect(B, adj, LLVMBuildSub(B, q, one, ""), q, "");
    r = LLVMBuildSelect(B, adj, LLVMBuildAdd(B, r, b, ""), r, "");
  }
  LLVMValueRef res = rem ? r : q;
  return LLVMBuildSelect(B, bz, zero, res, "");
}

/* Integer power by squaring (wrapping); a negative exponent gives
 * 1/x^n truncated: 1 for x = 1, +-1 for x = -1, else 0. */
static LLVMValueRef int_pow(CgFn *f, LLVMValueRef a, LLVMValueRef b, IrDType t) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(ty), one = LLVMConstInt(ty, 1, 0);
  LLVMValueRef accp = cg_alloca(f, ty, 1, "pacc"), basep = cg_alloca(f, ty, 1, "pbase"),
               ep = cg_alloca(f, ty, 1, "pexp");
  LLVMBuildStore(B, one, accp);
  LLVMBuildStore(B, a, basep);
  LLVMBuildStore(B, b, ep);
  /* 64 squaring steps at most; the loop stops when the exponent is 0 */
  LLVMBasicBlockRef head = cg_block(f, "pow.head"), body = cg_block(f, "pow.body"),
                    done = cg_block(f, "pow.done");
  LLVMValueRef neg = is_unsigned(t) ? LLVMConstInt(m->i1, 0, 0) : LLVMBuildICmp(B, LLVMIntSLT, b, zero, "");
  LLVMBuildBr(B, head);
  LLVMPositionBuilderAtEnd(B, head);
  LLVMValueRef e = LLVMBuildLoad2(B, ty, ep, "");
  LLVMValueRef more = LLVMBuildICmp(B, LLVMIntNE, e, zero, "");
  more = LLVMBuildAnd(B, more, LLVMBuildNot(B, neg, ""), "");
  LLVMBuildCondBr(B, more, body, done);
  LLVMPositionBuilderAtEnd(B, body);
  LLVMValueRef acc = LLVMBuildLoad2(B, ty, accp, ""), base = LLVMBuildLoad2(B, ty, basep, "");
  LLVMValueRef odd = LLVMBuildTrunc(B, e, m->i1, "");
  LLVMBuildStore(B, LLVMBuildSelect(B, odd, LLVMBuildMul(B, acc, base, ""), acc, ""), accp);
  LLVMBuildStore(B, LLVMBuildMul(B, base, base, ""), basep);
  LLVMBuildStore(B, LLVMBuildLShr(B, e, one, ""), ep);
  LLVMBuildBr(B, head);
  LLVMPositionBuilderAtEnd(B, done);
  LLVMValueRef r = LLVMBuildLoad2(B, ty, accp, "");
  if (is_unsigned(t)) return r;
  LLVMValueRef is1 = LLVMBuildICmp(B, LLVMIntEQ, a, one, "");
  LLVMValueRef ism1 = LLVMBuildICmp(B, LLVMIntEQ, a, LLVMConstAllOnes(ty), "");
  LLVMValueRef bodd = LLVMBuildTrunc(B, b, m->i1, "");
  LLVMValueRef nr = LLVMBuildSelect(B, is1, one,
                                    LLVMBuildSelect(B, ism1, LLVMBuildSelect(B, bodd, LLVMConstAllOnes(ty), one, ""),
                                                    zero, ""), "");
  return LLVMBuildSelect(B, neg, nr, r, "");
}

static bool mentions_index(const IrExpr *e, const IrLoop *l) {
  e = ir_expr_unparen(e);
  if (!e) return false;
  switch (e->kind) {
  case E_INDEX: return e->u.index.loop == l;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (mentions_index(e->u.ref->sub[i], l)) return true;
    return false;
  case E_UNARY: return mentions_index(e->u.unary.a, l);
  case E_BINARY: return mentions_index(e->u.bin.a, l) || mentions_index(e->u.bin.b, l);
  default: return true; /* anything else: assume it does */
  }
}

/* max/min as the interpreter (IEEE 754-2019 maximumNumber/minimumNumber):
 * a NaN operand is ignored (both NaN: the second), -0 < +0, else the
 * larger/smaller.  Integers: b > a ? b : a (max), b < a ? b : a (min). */
/* Is the statement being lowered a reduction over its innermost loop, a
 * long one (more than 8 iterations, not a pooling window that LLVM unrolls
 * and vectorises across the outer loop)?  Then its max/min is a chain
 * through a loop-carried value, and latency counts more than operations. */
static bool maxmin_chain(const CgFn *f) {
  if (f->nbind < 1 || f->stmt_id < 0 || f->stmt_id >= f->m->p->nstmts) return false;
  const IrStmt *s = f->m->p->stmts[f->stmt_id];
  const IrLoop *inner = f->bind[f->nbind - 1].loop;
  if (!inner || inner->extent <= 8) return false;
  for (int d = 0; d < s->lhs->nsub; d++)
    if (mentions_index(s->lhs->sub[d], inner)) return false;
  return true;
}

/* Float max/min when a is known never to be NaN (the accumulator of a
 * reduction that acc_never_nan accepts):
 *   t = b > a ? b : a          (b < a for min: x86 maxps/minps, b NaN gives a)
 *   r = a == b ? a AND b : t   (OR for min; bitwise)
 * b NaN: a == b is false, t = a: r = a.  Neither NaN: t the larger, or a
 * when equal, where AND (OR) gives the one bit pattern of equal nonzero
 * operands and +0 (-0) from a +0, -0 pair: ops.h's op_max (op_min) bit
 * for bit whenever a is not NaN.  Three machine operations on x86 (the
 * general form is five), two deep from a.  a or b a constant neither zero
 * nor NaN (the identity -inf, +inf at a reduction's first iteration): a == b
 * means the same bits, so t alone, one operation.  a and b may be vectors
 * (stage.c's join). */
LLVMValueRef cg_maxmin_ordered(CgFn *f, bool is_max, LLVMValueRef a, LLVMValueRef b) {
  LLVMBuilderRef B = f->m->B;
  LLVMTypeRef ft = LLVMTypeOf(a);
  bool vec = LLVMGetTypeKind(ft) == LLVMVectorTypeKind;
  LLVMTypeRef et = vec ? LLVMGetElementType(ft) : ft;
  LLVMTypeRef it = et == f->m->f64 ? f->m->i64 : f->m->i32;
  if (vec) it = LLVMVectorType(it, LLVMGetVectorSize(ft));
  LLVMValueRef tt = LLVMBuildSelect(B, LLVMBuildFCmp(B, is_max ? LLVMRealOGT : LLVMRealOLT, b, a, ""), b, a, "");
  LLVMBool loses = 0;
  double bc = LLVMIsAConstantFP(b) ? LLVMConstRealGetDouble(b, &loses) : 0;
  double ac = LLVMIsAConstantFP(a) ? LLVMConstRealGetDouble(a, &loses) : 0;
  if ((bc == bc && bc != 0) || (ac == ac && ac != 0)) return tt; /* a == b: the same bits */
  LLVMValueRef ai = LLVMBuildBitCast(B, a, it, ""), bi = LLVMBuildBitCast(B, b, it, "");
  LLVMValueRef both = LLVMBuildBitCast(B, is_max ? LLVMBuildAnd(B, ai, bi, "") : LLVMBuildOr(B, ai, bi, ""), ft, "");
  return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOEQ, a, b, ""), both, tt, "");
}

LLVMValueRef cg_maxmin(CgFn *f, bool is_max, LLVMValueRef a, LLVMValueRef b, IrDType t) {
  LLVMBuilderRef B = f->m->B;
  if (ir_dtype_is_float(t)) {
    /* a NaN gives b; else b NaN gives a; else the larger (smaller), and of
       equal operands the non-negative (negative) zero.  As
         t0 = a is NaN ? b : a
         t  = b > t0 ? b : t0          (b < t0 for min: x86 maxps/minps)
         r  = t == b ? t AND b : t     (OR for min; bitwise)
       a NaN: t0 = b, t = b, and b == b only when b is not NaN, where
       b AND b = b: r = b.  b NaN, a not: t0 = a, t = a (b > a is false),
       a == b is false: r = a.  Neither NaN: t = the larger, or a when
       equal; t == b exactly when b is the larger or a == b, where AND
       (OR) gives b's bits, or a's when equal nonzero (the same bits), and
       +0 (-0) from a +0, -0 pair: r = ops.h's op_max (op_min) bit for bit
       (codegen_test: test_host_maxmin_bits).  Five machine operations on
       x86 (issue 41: Max_Pooling windows, max/min reductions). */
    LLVMTypeRef ft = LLVMTypeOf(a);
    LLVMTypeRef it = ft == f->m->f64 ? f->m->i64 : f->m->i32;
    LLVMBool loses = 0;
    double bc = LLVMIsAConstantFP(b) ? LLVMConstRealGetDouble(b, &loses) : 0;
    double ac = LLVMIsAConstantFP(a) ? LLVMConstRealGetDouble(a, &loses) : 0;
    LLVMValueRef x = LLVMIsAConstantFP(a) && ac == 0 && !signbit(ac) ? b
                     : LLVMIsAConstantFP(b) && bc == 0 && !signbit(bc) ? a : NULL;
    if (x) {
      /* one operand +0 (relu's max(A,0), SELU's max(0,A) and min(0,...)):
         max is x > 0 ? x : +0 (x86 maxps, one operation), min is
         x <= 0 ? x : +0 (a compare and an AND): of the other operand x, a
         NaN gives +0, as does +0 or -0 for max, and x itself for min
         (-0 < +0); else the larger (smaller) of x and +0 */
      LLVMValueRef zero = x == a ? b : a;
      return LLVMBuildSelect(B, LLVMBuildFCmp(B, is_max ? LLVMRealOGT : LLVMRealOLE, x, zero, ""), x, zero, "");
    }
    if (maxmin_chain(f)) {
      /* a loop-carried accumulator a (a row's max): the old form, three
         operations deep from a where the one below is five (LogSoftmax,
         softmax 1.3x slower with it); the same bits: take b when a < b
         (a > b for min) or a is NaN, else a, except that equal operands
         give a AND b (OR for min), identical bits unless +0 and -0 */
      LLVMValueRef keep = a; /* b a constant neither zero nor NaN: a == b has b's bits */
      if (!(bc == bc && bc != 0)) {
        LLVMValueRef ai = LLVMBuildBitCast(B, a, it, ""), bi = LLVMBuildBitCast(B, b, it, "");
        LLVMValueRef both = LLVMBuildBitCast(B, is_max ? LLVMBuildAnd(B, ai, bi, "") : LLVMBuildOr(B, ai, bi, ""), ft, "");
        keep = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOEQ, a, b, ""), both, a, "");
      }
      LLVMValueRef take_b = LLVMBuildOr(B, LLVMBuildFCmp(B, is_max ? LLVMRealOLT : LLVMRealOGT, a, b, ""),
                                        LLVMBuildFCmp(B, LLVMRealUNO, a, a, ""), "");
      return LLVMBuildSelect(B, take_b, b, keep, "");
    }
    LLVMValueRef t0 = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, a, a, ""), b, a, "");
    LLVMValueRef tt = LLVMBuildSelect(B, LLVMBuildFCmp(B, is_max ? LLVMRealOGT : LLVMRealOLT, b, t0, ""), b, t0, "");
    if (bc == bc && bc != 0) return tt; /* b a constant neither zero nor NaN: t == b has b's bits */
    LLVMValueRef ti = LLVMBuildBitCast(B, tt, it, ""), bi = LLVMBuildBitCast(B, b, it, "");
    LLVMValueRef both = LLVMBuildBitCast(B, is_max ? LLVMBuildAnd(B, ti, bi, "") : LLVMBuildOr(B, ti, bi, ""), ft, "");
    return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOEQ, tt, b, ""), both, tt, "");
  }
  LLVMIntPredicate p = is_unsigned(t) || t == DT_BOOL ? (is_max ? LLVMIntUGT : LLVMIntULT)
                                                        : (is_max ? LLVMIntSGT : LLVMIntSLT);
  return LLVMBuildSelect(B, LLVMBuildICmp(B, p, b, a, ""), b, a, "");
}

static LLVMValueRef float_floor(CgFn *f, LLVMValueRef x) {
  return intrinsic(f, "llvm.floor", LLVMTypeOf(x), &x, 1);
}

LLVMValueRef cg_binop(CgFn *f, IrOp op, LLVMValueRef a, LLVMValueRef b, IrDType t) {
  LLVMBuilderRef B = f->m->B;
  if (ir_dtype_is_float(t)) {
    LLVMValueRef r;
    switch (op) {
    case OP_ADD: r = LLVMBuildFAdd(B, a, b, ""); break;
    case OP_SUB: r = LLVMBuildFSub(B, a, b, ""); break;
    case OP_MUL: r = LLVMBuildFMul(B, a, b, ""); break;
    case OP_DIV: r = LLVMBuildFDiv(B, a, b, ""); break;
    case OP_FLOORDIV: r = float_floor(f, LLVMBuildFDiv(B, a, b, "")); break;
    case OP_MOD: /* a - floor(a / b) * b, each step rounded (TVM floormod) */
      r = LLVMBuildFSub(B, a, LLVMBuildFMul(B, float_floor(f, LLVMBuildFDiv(B, a, b, "")), b, ""), "");
      break;
    case OP_POW: {
      LLVMTypeRef ty = t == DT_F64 ? f->m->f64 : f->m->f32;
      /* a float to a constant small integer power: leir.powf.i<n>, the
         same bits as the routine (mathlib_emit.h): its integer path's
         products for n = -1, 1, 2, 3, the routine with n folded in for the
         others */
      LLVMBool loses = 0;
      double y = t != DT_F64 && LLVMIsAConstantFP(b) ? LLVMConstRealGetDouble(b, &loses) : 0;
      LLVMValueRef pi = y >= -6 && y <= 6 && y == (int)y ? cg_math_get_powi_f32(f->m->M, (int)y) : NULL;
      /* f64 with a varying exponent on the host: the routine that branches
         and its vector variants (a constant exponent folds into the
         routine without branches, inlined before the vectoriser) */
      bool vec = t == DT_F64 && f->m->math_lanes && !LLVMIsAConstant(b);
      r = pi ? call1(f, pi, a) : vec ? pow_vector_call(f, a, b) : call2(f, cg_math_get(f->m->M, "pow", ty), a, b);
      break;
    }
    default: r = a; break;
    }
    return round16(f, r, t);
  }
  switch (op) {
  case OP_ADD: return LLVMBuildAdd(B, a, b, "");
  case OP_SUB: return LLVMBuildSub(B, a, b, "");
  case OP_MUL: return LLVMBuildMul(B, a, b, "");
  case OP_DIV: return int_divmod(f, a, b, t, false, false);
  case OP_FLOORDIV: return int_divmod(f, a, b, t, false, true);
  case OP_MOD: return int_divmod(f, a, b, t, true, true);
  case OP_POW: return int_pow(f, a, b, t);
  default: return a;
  }
}

/* ------------------------------------------------------------ index values */

void cg_bind(CgFn *f, const IrLoop *l, LLVMValueRef v) {
  if (f->nbind < (int)(sizeof f->bind / sizeof f->bind[0])) f->bind[f->nbind++] = (CgBind){l, v};
}

void cg_unbind(CgFn *f, int n) { f->nbind = n; }

LLVMValueRef cg_index_value(CgFn *f, const IrLoop *l) {
  for (int i = f->nbind - 1; i >= 0; i--)
    if (f->bind[i].loop == l) return f->bind[i].val;
  return cg_i64(f->m, 0); /* unreachable for verified IR */
}

/* ------------------------------------------------------------ memory */

/* ------------------------------------------------------------ bounds */

/* Guard facts (facts.h): f->guards, the bounds of loop indices that an
 * enclosing if_then_else or an index-set split gives. */

/* i1: it is a valid index of dimension d; NULL when that is known. */
static LLVMValueRef in_bounds(CgFn *f, const IrExpr *item, LLVMValueRef it, int64_t extent) {
  if (cg_facts_in_bounds(&f->guards, item, extent)) return NULL;
  return LLVMBuildICmp(f->m->B, LLVMIntULT, it, cg_i64(f->m, extent), "");
}

/* An access out of bounds: the host records it (the first wins, any
 * thread) and the access goes to element 0; on a GPU it goes to element 0. */
static LLVMValueRef guard_offset(CgFn *f, const IrRef *r, bool write, LLVMValueRef ok, LLVMValueRef off) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  if (!ok) return off;
  if (f->err) {
    LLVMBasicBlockRef bad = cg_block(f, "oob"), join = cg_block(f, "oob.end");
    LLVMBuildCondBr(B, ok, join, bad);
    LLVMPositionBuilderAtEnd(B, bad);
    int64_t code = ((int64_t)(r->tensor->id + 1) << 32) | ((int64_t)f->stmt_id << 1) | (write ? 1 : 0);
    LLVMValueRef st = LLVMBuildStore(B, cg_i64(m, code), f->err);
    LLVMSetOrdering(st, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(st, 8);
    LLVMBuildBr(B, join);
    LLVMPositionBuilderAtEnd(B, join);
  }
  return LLVMBuildSelect(B, ok, off, cg_i64(m, 0), "");
}

LLVMValueRef cg_offset(CgFn *f, const IrRef *r, bool write) {
  CgModule *m = f->m;
  const IrTensor *t = r->tensor;
  const CgTensorInfo *ti = &m->plan->t[t->id];
  LLVMValueRef off = cg_i64(m, 0), ok = NULL;
  LLVMBuilderRef B = m->B;
  for (int d = 0; d < t->rank; d++) {
    if (ti->keep && !ti->keep[d]) continue;
    LLVMValueRef it = cg_convert(f, cg_expr(f, r->sub[d]), r->sub[d]->type, DT_I64);
    LLVMValueRef c = in_bounds(f, r->sub[d], it, t->shape[d]);
    if (c) ok = ok ? LLVMBuildAnd(B, ok, c, "") : c;
    LLVMValueRef mul = LLVMBuildMul(B, off, cg_i64(m, t->shape[d]), "");
    off = LLVMBuildAdd(B, mul, it, "");
    if (!ok && LLVMIsAInstruction(mul) && LLVMIsAInstruction(off)) {
      /* every subscript so far in range: off is an element number below
         the tensor's size (which fits, --max-memory), nothing wraps */
      LLVMSetNSW(mul, 1), LLVMSetNUW(mul, 1);
      LLVMSetNSW(off, 1), LLVMSetNUW(off, 1);
    }
  }
  return guard_offset(f, r, write, ok, off);
}

/* Is every subscript of r provably in range (no guard)? */
bool cg_ref_in_bounds(const CgFn *f, const IrRef *r) {
  const IrTensor *t = r->tensor;
  const CgTensorInfo *ti = &f->m->plan->t[t->id];
  for (int d = 0; d < t->rank; d++) {
    if (ti->keep && !ti->keep[d]) continue;
    if (!ir_expr_in_bounds(r->sub[d], t->shape[d])) return false;
  }
  return true;
}

LLVMValueRef cg_addr(CgFn *f, const IrRef *r, bool write) {
  CgModule *m = f->m;
  const IrTensor *t = r->tensor;
  LLVMBuilderRef B = m->B;
  LLVMValueRef base = f->tptr[t->id];
  LLVMTypeRef et = cg_mem_type(m, t->dtype);
  if (cg_ref_in_bounds(f, r)) {
    /* one in-bounds GEP per dimension, outermost first: the address stays
       base + sum(stride*item) for SCEV even where LLVM's reassociation
       would turn a flat index sum into an opaque `or` (tiled subscripts) */
    const CgTensorInfo *ti = &m->plan->t[t->id];
    LLVMValueRef p = base;
    for (int d = 0; d < t->rank; d++) {
      if (ti->keep && !ti->keep[d]) continue;
      int64_t stride = 1; /* < the tensor's size: no overflow */
      for (int e = d + 1; e < t->rank; e++)
        if (!ti->keep || ti->keep[e]) stride *= t->shape[e];
      LLVMValueRef it = cg_convert(f, cg_expr(f, r->sub[d]), r->sub[d]->type, DT_I64);
      LLVMValueRef idx = it;
      if (stride != 1) {
        idx = LLVMBuildMul(B, it, cg_i64(m, stride), "");
        if (LLVMIsAInstruction(idx)) LLVMSetNSW(idx, 1), LLVMSetNUW(idx, 1);
      }
      p = LLVMBuildInBoundsGEP2(B, et, p, &idx, 1, "");
    }
    return p;
  }
  LLVMValueRef off = cg_offset(f, r, write);
  return LLVMBuildInBoundsGEP2(B, et, base, &off, 1, "");
}

LLVMValueRef cg_load(CgFn *f, LLVMValueRef addr, IrDType t) {
  CgModule *m = f->m;
  LLVMValueRef v = LLVMBuildLoad2(m->B, cg_mem_type(m, t), addr, "");
  LLVMSetAlignment(v, (unsigned)ir_dtype_size(t));
  if (ir_dtype_is_half(t)) return call1(f, cg_math_get_cvt16(m->M, t == DT_BF16, 0), v);
  if (t == DT_BOOL) return LLVMBuildICmp(m->B, LLVMIntNE, v, LLVMConstNull(m->i8), "");
  return v;
}

void cg_store(CgFn *f, LLVMValueRef addr, LLVMValueRef v, IrDType t) {
  CgModule *m = f->m;
  if (ir_dtype_is_half(t)) v = call1(f, cg_math_get_cvt16(m->M, t == DT_BF16, 1), v);
  else if (t == DT_BOOL) v = LLVMBuildZExt(m->B, v, m->i8, "");
  LLVMValueRef st = LLVMBuildStore(m->B, v, addr);
  LLVMSetAlignment(st, (unsigned)ir_dtype_size(t));
  f->barrier_last = false;
}

/* ------------------------------------------------------------ expressions */

/* Lazy boolean combination: a (and|or) b, b evaluated only when needed. */
static LLVMValueRef lazy_logic(CgFn *f, bool is_and, LLVMValueRef a, const IrExpr *eb) {
  LLVMBuilderRef B = f->m->B;
  LLVMBasicBlockRef from = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef rhs = cg_block(f, is_and ? "and.rhs" : "or.rhs"), join = cg_block(f, "logic.end");
  if (is_and) LLVMBuildCondBr(B, a, rhs, join);
  else LLVMBuildCondBr(B, a, join, rhs);
  LLVMPositionBuilderAtEnd(B, rhs);
  LLVMValueRef b = to_bool(f, cg_expr(f, eb), eb->type);
  LLVMBasicBlockRef rhs_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef phi = LLVMBuildPhi(B, f->m->i1, "");
  LLVMValueRef vals[2] = {LLVMConstInt(f->m->i1, !is_and, 0), b};
  LLVMBasicBlockRef blocks[2] = {from, rhs_end};
  LLVMAddIncoming(phi, vals, blocks, 2);
  return phi;
}

static LLVMValueRef compare(CgFn *f, IrOp op, LLVMValueRef a, LLVMValueRef b, IrDType t) {
  LLVMBuilderRef B = f->m->B;
  if (ir_dtype_is_float(t)) {
    LLVMRealPredicate p = op == OP_LT ? LLVMRealOLT : op == OP_LE ? LLVMRealOLE : op == OP_GT ? LLVMRealOGT
                          : op == OP_GE ? LLVMRealOGE : op == OP_EQ ? LLVMRealOEQ : LLVMRealUNE;
    return LLVMBuildFCmp(B, p, a, b, "");
  }
  bool u = is_unsigned(t);
  LLVMIntPredicate p = op == OP_LT ? (u ? LLVMIntULT : LLVMIntSLT) : op == OP_LE ? (u ? LLVMIntULE : LLVMIntSLE)
                       : op == OP_GT ? (u ? LLVMIntUGT : LLVMIntSGT) : op == OP_GE ? (u ? LLVMIntUGE : LLVMIntSGE)
                       : op == OP_EQ ? LLVMIntEQ : LLVMIntNE;
  return LLVMBuildICmp(B, p, a, b, "");
}

/* a op1 b op2 c ...: Python's chain, each operand evaluated once, lazily. */
static LLVMValueRef cmp_chain(CgFn *f, const IrExpr *e, int i, LLVMValueRef left) {
  const IrExpr *ea = e->u.cmp.operand[i], *eb = e->u.cmp.operand[i + 1];
  LLVMValueRef right = cg_expr(f, eb);
  IrDType t = ir_dtype_usual(ea->type, eb->type);
  LLVMValueRef c = compare(f, e->u.cmp.op[i], cg_convert(f, left, ea->type, t),
                           cg_convert(f, right, eb->type, t), t);
  if (i + 2 >= e->u.cmp.n) return c;
  LLVMBuilderRef B = f->m->B;
  LLVMBasicBlockRef from = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef more = cg_block(f, "chain.more"), join = cg_block(f, "chain.end");
  LLVMBuildCondBr(B, c, more, join);
  LLVMPositionBuilderAtEnd(B, more);
  LLVMValueRef rest = cmp_chain(f, e, i + 1, right);
  LLVMBasicBlockRef more_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef phi = LLVMBuildPhi(B, f->m->i1, "");
  LLVMValueRef vals[2] = {LLVMConstInt(f->m->i1, 0, 0), rest};
  LLVMBasicBlockRef blocks[2] = {from, more_end};
  LLVMAddIncoming(phi, vals, blocks, 2);
  return phi;
}

/* if_then_else: only the chosen branch is evaluated (§5.3). */
static LLVMValueRef ite(CgFn *f, const IrExpr *e) {
  LLVMBuilderRef B = f->m->B;
  const IrExpr *c = e->u.call.args[0], *x = e->u.call.args[1], *y = e->u.call.args[2];
  LLVMValueRef cv = to_bool(f, cg_expr(f, c), c->type);
  LLVMBasicBlockRef bt = cg_block(f, "ite.then"), bf = cg_block(f, "ite.else"), join = cg_block(f, "ite.end");
  LLVMBuildCondBr(B, cv, bt, bf);
  LLVMPositionBuilderAtEnd(B, bt);
  int nfact = f->guards.n;
  cg_cond_facts(&f->guards, c);
  LLVMValueRef xv = cg_convert(f, cg_expr(f, x), x->type, e->type);
  f->guards.n = nfact;
  LLVMBasicBlockRef bt_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, bf);
  LLVMValueRef yv = cg_convert(f, cg_expr(f, y), y->type, e->type);
  LLVMBasicBlockRef bf_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef phi = LLVMBuildPhi(B, cg_reg_type(f->m, e->type), "");
  LLVMValueRef vals[2] = {xv, yv};
  LLVMBasicBlockRef blocks[2] = {bt_end, bf_end};
  LLVMAddIncoming(phi, vals, blocks, 2);
  return phi;
}

static LLVMValueRef math_call(CgFn *f, const char *which, LLVMValueRef x, IrDType t) {
  LLVMTypeRef ty = t == DT_F64 ? f->m->f64 : f->m->f32;
  LLVMValueRef fn = cg_math_get(f->m->M, which, ty);
  bool erf = !strcmp(which, "erf");
  if (f->m->math_lanes && t == DT_F64 && !strcmp(which, "log")) {
    /* f64 log: leir.log and its variants leir.log.v4, v8, v16 (the branch
       to the normal-x sequence, mathlib_emit.c) */
    CgModule *m = f->m;
    LLVMValueRef vf[3] = {cg_math_get_log_vec(m->M, 4), cg_math_get_log_vec(m->M, 8), cg_math_get_log_vec(m->M, 16)};
    return vector_call(f, fn, &x, 1, vf, 3,
                       "_ZGV_LLVM_N4v_leir.log(leir.log.v4),_ZGV_LLVM_N8v_leir.log(leir.log.v8),"
                       "_ZGV_LLVM_N16v_leir.log(leir.log.v16)");
  }
  if (f->m->math_lanes && t != DT_F64 && (erf || !strcmp(which, "exp")))
    return round16(f, f32_vector_call(f, fn, x, erf ? cg_math_get_erff_vec : cg_math_get_expf_vec), t);
  return round16(f, call1(f, fn, x), t);
}

static bool writes_tensor(const IrProgram *p, const IrTensor *t, int except) {
  for (int i = 0; i < p->nstmts; i++)
    if (i != except && p->stmts[i]->lhs->tensor == t) return true;
  return false;
}

/* Host: is s a float §9.5 max/min reduction (initialised: `max(T_{s},
 * ...)` with the identity stored when every reduction index is 0) whose
 * tensor T no other statement of the program writes?  Then its first
 * argument, T's element, is never NaN when it is read: the loops count up
 * from 0, so the first execution for an element's left-side indices has
 * every reduction index 0 and stores the identity (-inf, +inf) before the
 * read, and every later value of the element is this statement's result, a
 * max/min whose first operand was not NaN (so not NaN: cg_maxmin_ordered),
 * converted to T's dtype (a float rounding or integer conversion of a
 * number is no NaN). */
bool cg_ordered_maxmin(const CgFn *f, const IrStmt *s) {
  const IrExpr *e = ir_expr_unparen(s->rhs);
  if (f->m->target != CG_TARGET_HOST || e->kind != E_CALL || !ir_dtype_is_float(e->type) || s->init != INIT_REDUCE)
    return false;
  if (!(s->redop == RED_MAX && e->u.call.func == F_MAX) && !(s->redop == RED_MIN && e->u.call.func == F_MIN))
    return false;
  const IrExpr *a0 = ir_expr_unparen(e->u.call.args[0]);
  return a0->kind == E_REF && a0->u.ref->tensor == s->lhs->tensor && !writes_tensor(f->m->p, s->lhs->tensor, s->id);
}

/* e is the right side of the statement being lowered, which
 * cg_ordered_maxmin accepts. */
static bool acc_never_nan(const CgFn *f, const IrExpr *e) {
  const IrProgram *p = f->m->p;
  if (f->stmt_id < 0 || f->stmt_id >= p->nstmts) return false;
  const IrStmt *s = p->stmts[f->stmt_id];
  const IrExpr *r = ir_expr_unparen(s->rhs);
  return r == e && cg_ordered_maxmin(f, s);
}

static LLVMValueRef call_expr(CgFn *f, const IrExpr *e) {
  LLVMBuilderRef B = f->m->B;
  IrFunc fn = e->u.call.func;
  IrDType t = e->type;
  if (fn == F_ITE) return ite(f, e);
  if (fn == F_MAX || fn == F_MIN) {
    const IrExpr *a0 = e->u.call.args[0];
    LLVMValueRef acc = cg_convert(f, cg_expr(f, a0), a0->type, t);
    bool ordered = acc_never_nan(f, e); /* and then every partial result */
    for (int i = 1; i < e->u.call.nargs; i++) {
      const IrExpr *ai = e->u.call.args[i];
      LLVMValueRef b = cg_convert(f, cg_expr(f, ai), ai->type, t);
      if (!ordered) {
        acc = cg_maxmin(f, fn == F_MAX, acc, b, t);
      } else if (i == 1) {
        /* at the first iteration the element holds the identity just
           stored: max(-inf, b) is b > -inf ? b : -inf, one operation once
           the condition folds (a peeled or unrolled first iteration) */
        const IrStmt *s = f->m->p->stmts[f->stmt_id];
        IrDType tt = s->lhs->tensor->dtype;
        LLVMValueRef id = cg_convert(f, cg_identity(f, s->redop, tt), tt, t);
        LLVMValueRef c = cg_first_iteration(f, s);
        LLVMValueRef r0 = cg_maxmin_ordered(f, fn == F_MAX, id, b);
        acc = c ? LLVMBuildSelect(B, c, r0, cg_maxmin_ordered(f, fn == F_MAX, acc, b), "") : r0;
      } else {
        acc = cg_maxmin_ordered(f, fn == F_MAX, acc, b);
      }
    }
    return acc;
  }
  const IrExpr *a = e->u.call.args[0];
  LLVMValueRef x = cg_convert(f, cg_expr(f, a), a->type, t);
  switch (fn) {
  case F_EXP: return math_call(f, "exp", x, t);
  case F_LOG: return math_call(f, "log", x, t);
  case F_ERF: return math_call(f, "erf", x, t);
  case F_SQRT:
    if (!ir_dtype_is_float(t)) return x; /* sema types sqrt as a float */
    return round16(f, intrinsic(f, "llvm.sqrt", LLVMTypeOf(x), &x, 1), t);
  case F_ABS:
    if (ir_dtype_is_float(t)) return intrinsic(f, "llvm.fabs", LLVMTypeOf(x), &x, 1);
    if (is_unsigned(t)) return x;
    return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), ""),
                           LLVMBuildSub(B, LLVMConstNull(LLVMTypeOf(x)), x, ""), x, "");
  default: return x;
  }
}

/* Integer index arithmetic (i64 or i32 +, -, *) whose operands and result
 * have a range proven by ir_expr_range inside the type cannot wrap: nsw,
 * and nuw when nothing is negative.  SCEV then sees subscripts such as
 * tx*4+ti as affine (the vectoriser needs it for tiled loops). */
static void no_wrap(LLVMValueRef v, const IrExpr *e) {
  int64_t lo, hi;
  if (e->type == DT_I64) lo = INT64_MIN, hi = INT64_MAX;
  else if (e->type == DT_I32) lo = INT32_MIN, hi = INT32_MAX;
  else return;
  IrRange a = ir_expr_range(e->u.bin.a), b = ir_expr_range(e->u.bin.b), r = ir_expr_range(e);
  if (!a.ok || !b.ok || !r.ok || a.lo < lo || a.hi > hi || b.lo < lo || b.hi > hi || r.lo < lo || r.hi > hi)
    return;
  LLVMSetNSW(v, 1);
  if (a.lo >= 0 && b.lo >= 0 && r.lo >= 0) LLVMSetNUW(v, 1);
}

/* Is e a signed integer a // b or a % b (i64, or i32 with both in range)
 * with a >= 0 and b one positive constant, by ir_expr_range?  Then floor
 * and truncation agree and b is not 0 (nor -1): the result is LLVM's
 * udiv/urem, a shift and a mask when b is a power of two, which SCEV and
 * the vectoriser see through (tiled subscripts such as (h*4+tx)//4 and
 * (h*4+tx)%4 of layout_transformation's reshape1), instead of int_divmod's
 * selects around an sdiv.  The same rule as emit_cuda.c's. */
static bool nonneg_by_const(const IrExpr *e) {
  if (e->type != DT_I64 && e->type != DT_I32) return false;
  return ir_expr_divmod_nonneg_by_const(e, e->type == DT_I64 ? INT64_MAX : INT32_MAX);
}

static LLVMValueRef binary_expr(CgFn *f, const IrExpr *e) {
  const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
  IrOp op = e->u.bin.op;
  if (op == OP_AND || op == OP_OR) {
    LLVMValueRef av = to_bool(f, cg_expr(f, a), a->type);
    return lazy_logic(f, op == OP_AND, av, b);
  }
  IrFma fm;
  if (ir_contract_fma(e, f->m->ctx->fp_contract, &fm)) { /* ir/contract.h: llvm.fma, PTX fma.rn */
    LLVMValueRef v[3] = {cg_convert(f, cg_expr(f, fm.x), fm.x->type, e->type),
                         cg_convert(f, cg_expr(f, fm.y), fm.y->type, e->type),
                         cg_convert(f, cg_expr(f, fm.z), fm.z->type, e->type)};
    if (fm.neg_x) v[0] = LLVMBuildFNeg(f->m->B, v[0], "");
    if (fm.neg_z) v[2] = LLVMBuildFNeg(f->m->B, v[2], "");
    return intrinsic(f, "llvm.fma", LLVMTypeOf(v[0]), v, 3);
  }
  LLVMValueRef av = cg_convert(f, cg_expr(f, a), a->type, e->type);
  if (ir_pow_is_square(e)) return cg_binop(f, OP_MUL, av, av, e->type); /* ir/strength.h */
  LLVMValueRef bv = cg_convert(f, cg_expr(f, b), b->type, e->type);
  if ((op == OP_FLOORDIV || op == OP_MOD) && nonneg_by_const(e)) /* floor = truncation, b != 0 */
    return op == OP_MOD ? LLVMBuildURem(f->m->B, av, bv, "") : LLVMBuildUDiv(f->m->B, av, bv, "");
  LLVMValueRef v = cg_binop(f, op, av, bv, e->type);
  if ((op == OP_ADD || op == OP_SUB || op == OP_MUL) && LLVMIsAInstruction(v)) no_wrap(v, e);
  return v;
}

static LLVMValueRef unary_expr(CgFn *f, const IrExpr *e) {
  const IrExpr *a = e->u.unary.a;
  LLVMValueRef v = cg_convert(f, cg_expr(f, a), a->type, e->type);
  if (e->u.unary.op == OP_POS) return v;
  if (ir_dtype_is_float(e->type)) return LLVMBuildFNeg(f->m->B, v, "");
  return LLVMBuildSub(f->m->B, LLVMConstNull(LLVMTypeOf(v)), v, "");
}

LLVMValueRef cg_expr(CgFn *f, const IrExpr *e) {
  if (e == f->stage_x) return f->stage_v;
  switch (e->kind) {
  case E_INT: return const_of_int(f, e->u.ilit.value, e->type);
  case E_FLOAT: return cg_const(f, e->u.flit.value, e->type);
  case E_INF: return cg_const(f, INFINITY, e->type);
  case E_INDEX: return cg_convert(f, cg_index_value(f, e->u.index.loop), DT_I64, e->type);
  case E_REF: {
    const IrRef *r = e->u.ref;
    return cg_convert(f, cg_load(f, cg_addr(f, r, false), r->tensor->dtype), r->tensor->dtype, e->type);
  }
  case E_UNARY: return unary_expr(f, e);
  case E_BINARY: return binary_expr(f, e);
  case E_CMP: {
    int v = cg_facts_fold_cmp(&f->guards, e);
    if (v >= 0) return LLVMConstInt(f->m->i1, (unsigned long long)v, 0);
    return cmp_chain(f, e, 0, cg_expr(f, e->u.cmp.operand[0]));
  }
  case E_CALL: return call_expr(f, e);
  case E_PAREN: return cg_expr(f, e->u.paren);
  }
  return NULL;
}

/* ------------------------------------------------------------ statements */

void cg_barrier(CgFn *f) {
  if (f->m->target != CG_TARGET_NVPTX || f->barrier_last) return;
  cg_nvptx_barrier(f);
  f->barrier_last = true;
}

/* The identity of §9.5 in the tensor's dtype. */
LLVMValueRef cg_identity(CgFn *f, IrReduceOp op, IrDType t) {
  bool max = op == RED_MAX, min = op == RED_MIN;
  if (!max && !min) return const_of_int(f, op == RED_MUL || op == RED_DIV ? 1 : 0, t);
  if (ir_dtype_is_float(t)) return cg_const(f, max ? -INFINITY : INFINITY, t);
  if (t == DT_BOOL) return LLVMConstInt(f->m->i1, min, 0);
  LLVMTypeRef ty = cg_reg_type(f->m, t);
  unsigned w = LLVMGetIntTypeWidth(ty);
  if (is_unsigned(t)) return max ? LLVMConstNull(ty) : LLVMConstAllOnes(ty);
  unsigned long long top = 1ull << (w - 1);
  return LLVMConstInt(ty, max ? top : top - 1, 0);
}

/* all reduction indices of s are 0 (i1), or NULL when s has none */
LLVMValueRef cg_first_iteration(CgFn *f, const IrStmt *s) {
  LLVMValueRef c = NULL;
  for (int i = 0; i < s->nred; i++) {
    LLVMValueRef z = LLVMBuildICmp(f->m->B, LLVMIntEQ, cg_index_value(f, s->red[i]), cg_i64(f->m, 0), "");
    c = c ? LLVMBuildAnd(f->m->B, c, z, "") : z;
  }
  return c;
}

/* §9.5: store the identity before the update when every reduction index is 0. */
void cg_reduction_init(CgFn *f, const IrStmt *s, LLVMValueRef addr) {
  IrDType t = s->lhs->tensor->dtype;
  LLVMValueRef c = cg_first_iteration(f, s);
  LLVMValueRef id = cg_identity(f, s->redop, t);
  if (!c) {
    cg_store(f, addr, id, t);
    return;
  }
  LLVMBuilderRef B = f->m->B;
  LLVMBasicBlockRef yes = cg_block(f, "init"), join = cg_block(f, "init.end");
  LLVMBuildCondBr(B, c, yes, join);
  LLVMPositionBuilderAtEnd(B, yes);
  cg_store(f, addr, id, t);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
}

static bool needs_sync(const CgFn *f, const IrTensor *t) {
  const CgTensorInfo *ti = &f->m->plan->t[t->id];
  return ti->place == PL_SHARED && ti->sync;
}

/* NVPTX: a statement outside the B loop of a hardware axis runs once, in
 * the threads/blocks whose index on that axis is 0 (sequential semantics;
 * all threads would race on it).  NULL when every axis encloses it. */
static LLVMValueRef outside_hw_guard(CgFn *f) {
  if (f->m->target != CG_TARGET_NVPTX) return NULL;
  LLVMValueRef c = NULL;
  for (int a = 0; a < 6; a++) {
    const IrLoop *l = f->k->hw[a];
    if (!l || l->extent == 1 || f->hw_scope[a]) continue;
    LLVMValueRef z = LLVMBuildICmp(f->m->B, LLVMIntEQ, cg_index_value(f, l), cg_i64(f->m, 0), "");
    c = c ? LLVMBuildAnd(f->m->B, c, z, "") : z;
  }
  return c;
}

static void lower_stmt_body(CgFn *f, const IrStmt *s);

void cg_lower_stmt(CgFn *f, const IrStmt *s) {
  const IrTensor *t = s->lhs->tensor;
  bool sync = needs_sync(f, t);
  if (sync) cg_barrier(f);
  LLVMValueRef g = outside_hw_guard(f);
  if (g) {
    LLVMBasicBlockRef yes = cg_block(f, "once"), join = cg_block(f, "once.end");
    LLVMBuildCondBr(f->m->B, g, yes, join);
    LLVMPositionBuilderAtEnd(f->m->B, yes);
    lower_stmt_body(f, s);
    LLVMBuildBr(f->m->B, join);
    LLVMPositionBuilderAtEnd(f->m->B, join);
  } else {
    lower_stmt_body(f, s);
  }
  f->barrier_last = false;
  if (sync) cg_barrier(f);
}

static void lower_stmt_body(CgFn *f, const IrStmt *s) {
  const IrTensor *t = s->lhs->tensor;
  f->stmt_id = s->id;
  LLVMValueRef addr = cg_addr(f, s->lhs, true);
  if (s->init == INIT_REDUCE) cg_reduction_init(f, s, addr);
  for (int i = 0; i < f->ntree; i++)
    if (f->tree_r[i]->s == s) {
      cg_tree_accumulate(f, f->tree_r[i]);
      return;
    }
  LLVMValueRef v = cg_convert(f, cg_expr(f, s->rhs), s->rhs->type, t->dtype);
  cg_store(f, addr, v, t->dtype);
}

void cg_lower_body(CgFn *f, const IrNest *n) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_STMT) cg_lower_stmt(f, n->items[i].u.stmt);
    else cg_lower_loops(f, n->items[i].u.nest, 0);
  }
}

/* ------------------------------------------------------------ module */

void cg_module_init(CgModule *m, LeirCtx *ctx, const IrProgram *p, const CgOptions *o, CgPlan *plan,
                    LLVMContextRef C, LLVMModuleRef M) {
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
  m->p = p;
  m->o = o;
  m->plan = plan;
  m->target = o->target;
  m->C = C;
  m->M = M;
  m->B = LLVMCreateBuilderInContext(C);
  m->i1 = LLVMInt1TypeInContext(C);
  m->i8 = LLVMInt8TypeInContext(C);
  m->i16 = LLVMInt16TypeInContext(C);
  m->i32 = LLVMInt32TypeInContext(C);
  m->i64 = LLVMInt64TypeInContext(C);
  m->f32 = LLVMFloatTypeInContext(C);
  m->f64 = LLVMDoubleTypeInContext(C);
  m->vd = LLVMVoidTypeInContext(C);
  m->as_global = o->target == CG_TARGET_NVPTX ? 1 : 0;
  m->ptr0 = LLVMPointerTypeInContext(C, 0);
  m->ptrg = LLVMPointerTypeInContext(C, m->as_global);
  m->ptrs = LLVMPointerTypeInContext(C, o->target == CG_TARGET_NVPTX ? 3 : 0);
  m->md_loop = LLVMGetMDKindIDInContext(C, "llvm.loop", 9);
}

void cg_module_dispose_builder(CgModule *m) {
  if (m->B) LLVMDisposeBuilder(m->B);
  m->B = NULL;
}
