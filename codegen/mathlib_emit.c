/* mathlib_emit.c -- emit leirc's math routines as LLVM IR.
 *
 * Every function below mirrors one routine of ir/mathlib.c line by line
 * (same operations, same operand order, same constants); see the contract
 * at the top of that file.  C conditionals become selects; both sides are
 * computed, which is harmless because no operation here traps or yields
 * poison (shift amounts stay in range; erff's fptosi converts a value
 * in [0, 7.69]).  No fast-math flags.  One exception, for speed, not for
 * the values: the host's f64 pow for a varying exponent (leir.pow.lazy and
 * its vector variants) branches around its integer path and its general
 * path when no lane's result takes them (pow_mag); the selects stay.  And
 * the host's vector forms of f32 exp (v8) and f64 log branch to shorter
 * sequences, the same values, when every lane allows
 * (cg_math_get_expf_vec, log_normal).
 */
#include "codegen/mathlib_emit.h"

#include "ir/mathlib.h"

#include <math.h> /* INFINITY */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef LLVMValueRef V;

typedef struct {
  LLVMModuleRef M;
  LLVMContextRef C;
  LLVMBuilderRef B;
  LLVMTypeRef f64, f32, i64, i32, i16, i1; /* scalar types */
  unsigned n; /* 0: scalar code; else the lanes of the vector code (leir.pow.v4/v8):
                 the constants below are splats, vt() the value types */
} Em;

typedef struct {
  V h, l;
} DDV;

/* ------------------------------------------------------------ primitives */

static uint64_t dbits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static V splat(Em *e, V s, unsigned n) { /* n copies of s (0: s) */
  (void)e;
  V v[16];
  for (unsigned j = 0; j < n; j++)
    v[j] = s;
  return n ? LLVMConstVector(v, n) : s;
}

static V kd(Em *e, double v) { return splat(e, LLVMConstReal(e->f64, v), e->n); }
static V kl(Em *e, int64_t v) { return splat(e, LLVMConstInt(e->i64, (unsigned long long)v, 1), e->n); }
static V ku(Em *e, uint32_t v) { return splat(e, LLVMConstInt(e->i32, v, 0), e->n); }
static LLVMTypeRef vt(Em *e, LLVMTypeRef s) { return e->n ? LLVMVectorType(s, e->n) : s; }

static V add(Em *e, V a, V b) { return LLVMBuildFAdd(e->B, a, b, ""); }
static V sub(Em *e, V a, V b) { return LLVMBuildFSub(e->B, a, b, ""); }
static V mul(Em *e, V a, V b) { return LLVMBuildFMul(e->B, a, b, ""); }
static V fdv(Em *e, V a, V b) { return LLVMBuildFDiv(e->B, a, b, ""); }
static V neg(Em *e, V a) { return LLVMBuildFNeg(e->B, a, ""); }
static V sel(Em *e, V c, V a, V b) { return LLVMBuildSelect(e->B, c, a, b, ""); }
static V fcmp(Em *e, LLVMRealPredicate p, V a, V b) {
  return LLVMBuildFCmp(e->B, p, a, b, "");
}
static V isnan_(Em *e, V a) { return fcmp(e, LLVMRealUNE, a, a); }
static V icmp(Em *e, LLVMIntPredicate p, V a, V b) {
  return LLVMBuildICmp(e->B, p, a, b, "");
}
static V iadd(Em *e, V a, V b) { return LLVMBuildAdd(e->B, a, b, ""); }
static V isub(Em *e, V a, V b) { return LLVMBuildSub(e->B, a, b, ""); }
static V iand(Em *e, V a, V b) { return LLVMBuildAnd(e->B, a, b, ""); }
static V ior(Em *e, V a, V b) { return LLVMBuildOr(e->B, a, b, ""); }
static V shl(Em *e, V a, V b) { return LLVMBuildShl(e->B, a, b, ""); }
static V lshr(Em *e, V a, V b) { return LLVMBuildLShr(e->B, a, b, ""); }
static V land(Em *e, V a, V b) { return LLVMBuildAnd(e->B, a, b, ""); }
static V lnot(Em *e, V a) { return LLVMBuildNot(e->B, a, ""); }
static V cast(Em *e, V a, LLVMTypeRef t) { return LLVMBuildBitCast(e->B, a, t, ""); }

static V intrinsic(Em *e, const char *name, LLVMTypeRef ty, V *args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  V fn = LLVMGetIntrinsicDeclaration(e->M, id, &ty, 1);
  LLVMTypeRef fty = LLVMIntrinsicGetType(e->C, id, &ty, 1);
  return LLVMBuildCall2(e->B, fty, fn, args, n, "");
}

static V fma_(Em *e, V a, V b, V c) {
  V args[3] = {a, b, c};
  return intrinsic(e, "llvm.fma", LLVMTypeOf(a), args, 3);
}

static V fabs_(Em *e, V a) { return intrinsic(e, "llvm.fabs", LLVMTypeOf(a), &a, 1); }

static V copysign_(Em *e, V a, V b) {
  V args[2] = {a, b};
  return intrinsic(e, "llvm.copysign", LLVMTypeOf(a), args, 2);
}

static V qnan64(Em *e) {
  return splat(e, LLVMConstBitCast(LLVMConstInt(e->i64, 0x7ff8000000000000ull, 0), e->f64), e->n);
}

static V qnan32(Em *e) {
  return LLVMConstBitCast(LLVMConstInt(e->i32, 0x7fc00000u, 0), e->f32);
}

static V horner(Em *e, const double *c, int n, V v) {
  V p = kd(e, c[0]);
  for (int i = 1; i < n; i++)
    p = fma_(e, p, v, kd(e, c[i]));
  return p;
}

static V kfl(Em *e, float v) { return LLVMConstReal(e->f32, v); }

static V hornerf(Em *e, const float *c, int n, V v, unsigned lanes) { /* lanes: splat, 0 scalar */
  V p = splat(e, kfl(e, c[0]), lanes);
  for (int i = 1; i < n; i++)
    p = fma_(e, p, v, splat(e, kfl(e, c[i]), lanes));
  return p;
}

static V pow2i(Em *e, V k) { /* dbl((k + 1023) << 52) */
  return cast(e, shl(e, iadd(e, k, kl(e, 1023)), kl(e, 52)), vt(e, e->f64));
}

/* ------------------------------------------------------------ functions */

static void add_attr(Em *e, V fn, const char *name, uint64_t val) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(e->C, kind, val));
}

/* Starts the definition of internal function NAME (a NULL return or
   parameter type means double), or returns NULL with *have set when M
   already defines it. */
static V begin_fn(Em *e, LLVMModuleRef M, const char *name, LLVMTypeRef ret,
                  LLVMTypeRef *params, unsigned np, V *have) {
  e->M = M;
  e->C = LLVMGetModuleContext(M);
  e->f64 = LLVMDoubleTypeInContext(e->C);
  e->f32 = LLVMFloatTypeInContext(e->C);
  e->i64 = LLVMInt64TypeInContext(e->C);
  e->i32 = LLVMInt32TypeInContext(e->C);
  e->i16 = LLVMInt16TypeInContext(e->C);
  e->i1 = LLVMInt1TypeInContext(e->C);
  e->n = 0;
  V fn = LLVMGetNamedFunction(M, name);
  *have = fn && !LLVMIsDeclaration(fn) ? fn : NULL;
  if (*have)
    return NULL;
  if (!fn) {
    LLVMTypeRef ps[2];
    for (unsigned i = 0; i < np; i++)
      ps[i] = params[i] ? params[i] : e->f64;
    fn = LLVMAddFunction(M, name, LLVMFunctionType(ret ? ret : e->f64, ps, np, 0));
  }
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  static const char *const attrs[] = {"nounwind", "willreturn", "nosync",
                                      "nofree",   "norecurse",  "inlinehint"};
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
    add_attr(e, fn, attrs[i], 0);
  add_attr(e, fn, "memory", 0); /* memory(none) */
  e->B = LLVMCreateBuilderInContext(e->C);
  LLVMPositionBuilderAtEnd(e->B, LLVMAppendBasicBlockInContext(e->C, fn, "entry"));
  return fn;
}

static V end_fn(Em *e, V fn, V ret) {
  LLVMBuildRet(e->B, ret);
  LLVMDisposeBuilder(e->B);
  return fn;
}

/* ------------------------------------------------------------------- exp */

static V exp_core(Em *e, V xh, V xl) {
  V hi = kd(e, LEIR_M_EXP_HI), lo = kd(e, LEIR_M_EXP_LO);
  V c = sel(e, fcmp(e, LLVMRealOGT, xh, hi), hi, xh);
  c = sel(e, fcmp(e, LLVMRealOLT, c, lo), lo, c);
  V l = sel(e, fcmp(e, LLVMRealOEQ, c, xh), xl, kd(e, 0.0));
  V t = fma_(e, c, kd(e, LEIR_M_INVLN2), kd(e, LEIR_M_SHIFT));
  V kf = sub(e, t, kd(e, LEIR_M_SHIFT));
  V k = isub(e, cast(e, t, vt(e, e->i64)), kl(e, (int64_t)dbits(LEIR_M_SHIFT)));
  V rh = fma_(e, kf, kd(e, -LEIR_M_LN2H), c);
  V rl = fma_(e, kf, kd(e, -LEIR_M_LN2L), l);
  V r = add(e, rh, rl);
  V dr = add(e, sub(e, rh, r), rl);
  V p = horner(e, leir_m_exp_poly, LEIR_M_EXP_N, r);
  V c2 = fma_(e, mul(e, r, r), p, fma_(e, dr, r, dr));
  V sh = add(e, kd(e, 1.0), r);
  V sl = add(e, sub(e, kd(e, 1.0), sh), r);
  V s = add(e, sh, add(e, sl, c2));
  V k1 = LLVMBuildSDiv(e->B, k, kl(e, 2), "");
  V k2 = isub(e, k, k1);
  return mul(e, mul(e, s, pow2i(e, k1)), pow2i(e, k2));
}

static V emit_exp(Em *e, LLVMModuleRef M) {
  V have, fn = begin_fn(e, M, "leir.exp", NULL, (LLVMTypeRef[]){NULL}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0);
  V r = exp_core(e, x, kd(e, 0.0));
  return end_fn(e, fn, sel(e, isnan_(e, x), x, r));
}

static V any_(Em *e, V c);
static V x86_fn(Em *e, const char *name, LLVMTypeRef ty);
static LLVMBasicBlockRef block(Em *e, const char *name);
static V phi2(Em *e, LLVMTypeRef t, V a, LLVMBasicBlockRef ba, V b, LLVMBasicBlockRef bb);

/* a call of the x86 intrinsic NAME (not overloaded) returning ret */
static V x86(Em *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *pt, V *args, unsigned n) {
  LLVMTypeRef ty = LLVMFunctionType(ret, pt, n, 0);
  V fn = LLVMGetNamedFunction(e->M, name);
  if (!fn)
    fn = LLVMAddFunction(e->M, name, ty);
  return LLVMBuildCall2(e->B, ty, fn, args, n, "");
}

/* leir.expf.v8's normal path: |x| <= EXPF_NMAX */
#define EXPF_NMAX 87.0f

/* leir_expf: the f32 routine of its own, in f32 arithmetic.
   Its operations on f32 (n == 0) or <n x float>.  avx512 (16
   lanes: leir.expf.v16) gives the same values by other instructions (the
   proof is at cg_math_get_expf_vec): no clamp, c = x, and
   y = |x| < 256 ? vscalefps(s, kf) : vfixupimmps(x).
   The table entry j = tb & 15 is fetched (the same f32 value each way)
   - scalar: by a load of element j of a private constant global copy of
     the table (leir.expf.thi, leir.expf.tlo; on NVPTX in the global
     space): a chain of 15 selects made the host's scalar tails of rows of
     20 2.6x slower than the routine before (s26), extractelement from a
     constant vector cost NVPTX a local-memory copy of the tables per call.
     The function stays memory(none): the only memory it reads is
     constant, as LLVM's own inference of memory attributes treats it;
   - 8 lanes: by vpermps (llvm.x86.avx2.permps) from the table's halves,
     which use tb's low 3 bits, and a blend by bit 3 (the sign of tb << 28);
   - 16 lanes: by one vpermps zmm (llvm.x86.avx512.permvar.sf.512), which
     uses tb's low 4 bits: j itself is never computed. */
typedef enum { EXPF_IR, EXPF_AVX512, EXPF_NORMAL } ExpfForm;

typedef struct {
  unsigned n; /* lanes (0: scalar) */
  V tb, fn;   /* vector: tb and the permute intrinsic */
  LLVMTypeRef ty;
  V hi8;      /* 8 lanes: tb's bit 3 set */
  V j;       /* scalar: j = tb & 15 */
} ExpLook;

/* The lane-crossing permute of n f32 lanes (vpermps: llvm.x86.avx2.permps
   for 8, llvm.x86.avx512.permvar.sf.512 for 16), declared in e's module,
   and its function type in *ty: leir_expf's and leir_erff's table lookups. */
static V permute_fn(Em *e, unsigned n, LLVMTypeRef *ty) {
  LLVMTypeRef vf = LLVMVectorType(e->f32, n);
  *ty = LLVMFunctionType(vf, (LLVMTypeRef[]){vf, LLVMVectorType(e->i32, n)}, 2, 0);
  return x86_fn(e, n == 8 ? "llvm.x86.avx2.permps" : "llvm.x86.avx512.permvar.sf.512", *ty);
}

/* fn (permute_fn's, of type ty) on the n-lane constant table whose lane i
   is tab[i % period], by the lanes of idx */
static V permute_table(Em *e, V fn, LLVMTypeRef ty, const float *tab, unsigned n, unsigned period, V idx) {
  V v[16];
  for (unsigned i = 0; i < n; i++)
    v[i] = kfl(e, tab[i % period]);
  return LLVMBuildCall2(e->B, ty, fn, (V[]){LLVMConstVector(v, n), idx}, 2, "");
}

static V expf_look(Em *e, const ExpLook *l, const float *tab) {
  if (l->n == 16)
    return permute_table(e, l->fn, l->ty, tab, 16, 16, l->tb);
  if (l->n == 8) {
    V lo = permute_table(e, l->fn, l->ty, tab, 8, 8, l->tb);
    V hi = permute_table(e, l->fn, l->ty, tab + 8, 8, 8, l->tb);
    return sel(e, l->hi8, hi, lo);
  }
  /* scalar: tab[j] loaded from the module's constant copy NAME of tab */
  const char *name = tab == leir_mf_expf_thi ? "leir.expf.thi" : "leir.expf.tlo";
  LLVMTypeRef at = LLVMArrayType(e->f32, LEIR_MF_EXPF_NT);
  V g = LLVMGetNamedGlobal(e->M, name);
  if (!g) {
    V v[LEIR_MF_EXPF_NT];
    for (int i = 0; i < LEIR_MF_EXPF_NT; i++)
      v[i] = kfl(e, tab[i]);
    g = LLVMAddGlobal(e->M, at, name);
    LLVMSetInitializer(g, LLVMConstArray(e->f32, v, LEIR_MF_EXPF_NT));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, 64);
  }
  V idx[2] = {ku(e, 0), l->j};
  V ld = LLVMBuildLoad2(e->B, e->f32, LLVMBuildInBoundsGEP2(e->B, at, g, idx, 2, ""), "");
  LLVMSetAlignment(ld, 4);
  return ld;
}

static V expf_body(Em *e, V x, unsigned n, ExpfForm form) {
  bool avx512 = form == EXPF_AVX512, normal = form == EXPF_NORMAL;
  V shift = splat(e, kfl(e, LEIR_MF_EXPF_SHIFT), n);
  V hi = splat(e, kfl(e, LEIR_MF_EXPF_HI), n), lo = splat(e, kfl(e, LEIR_MF_EXPF_LO), n);
  V c = x, zero = NULL;
  if (!avx512 && !normal) {
    c = sel(e, fcmp(e, LLVMRealOGT, x, hi), hi, x);
    zero = fcmp(e, LLVMRealOLT, c, lo);
    c = sel(e, zero, lo, c);
  }
  V t = fma_(e, c, splat(e, kfl(e, LEIR_MF_INVLN2), n), shift);
  V kf = sub(e, t, shift);
  LLVMTypeRef vi = n ? LLVMVectorType(e->i32, n) : e->i32, vf = LLVMTypeOf(x);
  V tb = cast(e, t, vi);
  ExpLook l = {n, tb, NULL, NULL, NULL, NULL};
  if (n) {
    l.fn = permute_fn(e, n, &l.ty);
    if (n == 8)
      l.hi8 = icmp(e, LLVMIntSLT, shl(e, tb, splat(e, ku(e, 28), n)), splat(e, ku(e, 0), n));
  } else {
    l.j = iand(e, tb, ku(e, LEIR_MF_EXPF_NT - 1));
  }
  V kb = lshr(e, tb, splat(e, ku(e, 4), n));
  V r = fma_(e, kf, splat(e, kfl(e, -LEIR_MF_EXPF_LN2H), n), c);
  r = fma_(e, kf, splat(e, kfl(e, -LEIR_MF_EXPF_LN2L), n), r);
  V q = hornerf(e, leir_mf_expf_poly, LEIR_MF_EXPF_N, r, n);
  V p = fma_(e, mul(e, r, r), q, r);
  V th = expf_look(e, &l, leir_mf_expf_thi);
  V u = fma_(e, th, p, expf_look(e, &l, leir_mf_expf_tlo));
  V sv = add(e, th, u);
  if (avx512) {
    LLVMTypeRef i32 = e->i32, i16 = e->i16;
    /* |x| < 256, by the bits: a NaN's are above inf's, so not */
    V ok = icmp(e, LLVMIntULT, iand(e, cast(e, x, vi), splat(e, ku(e, 0x7fffffff), n)), splat(e, ku(e, 0x43800000), n));
    /* vfixupimmps by the class of x: QNaN and SNaN 0 = x itself, -inf and
       negative 8 = +0, +inf and positive 5 = +inf (table nibbles 0, 1, 4-7) */
    V fx = x86(e, "llvm.x86.avx512.mask.fixupimm.ps.512", vf, (LLVMTypeRef[]){vf, vf, vi, i32, i16, i32},
               (V[]){x, x, splat(e, ku(e, 0x58580000), n), ku(e, 0), LLVMConstInt(i16, 0xffff, 0), ku(e, 4)}, 6);
    /* vscalefps where |x| < 256; 4: MXCSR's rounding (to nearest) */
    return x86(e, "llvm.x86.avx512.mask.scalef.ps.512", vf, (LLVMTypeRef[]){vf, vf, vf, i16, i32},
               (V[]){sv, kf, fx, cast(e, ok, i16), ku(e, 4)}, 5);
  }
  V e23 = splat(e, ku(e, 23), n);
  if (normal) /* sv 2^k, normal: k added to sv's exponent, k << 23 = kb << 23 (u32) */
    return cast(e, iadd(e, cast(e, sv, vi), shl(e, kb, e23)), vf);
  V h = lshr(e, tb, splat(e, ku(e, 5), n)), ee = splat(e, ku(e, 127), n);
  V s1 = cast(e, shl(e, iadd(e, h, ee), e23), vf);
  V s2 = cast(e, shl(e, iadd(e, isub(e, kb, h), ee), e23), vf);
  s2 = sel(e, zero, splat(e, kfl(e, 0.0f), n), s2); /* +0 below EXPF_LO without a tiny product */
  V y = mul(e, mul(e, sv, s1), s2);
  return sel(e, isnan_(e, x), x, y);
}

static V emit_expf(Em *e, LLVMModuleRef M) {
  V have;
  LLVMTypeRef f = LLVMFloatTypeInContext(LLVMGetModuleContext(M));
  V fn = begin_fn(e, M, "leir.expf", f, (LLVMTypeRef[]){f}, 1, &have);
  if (!fn)
    return have;
  return end_fn(e, fn, expf_body(e, LLVMGetParam(fn, 0), 0, EXPF_IR));
}

/* leir.expf.v8 (AVX2): leir_expf's operations on 8 lanes (the table
 * entries by vpermps from its halves and a blend: expf_look), with a branch
 * around the clamps, the two-step scaling and the NaN select when every
 * lane has |x| <= EXPF_NMAX = 87 (false for a NaN: the compare is
 * unordered-or-greater), where they change nothing, and the scaling is k
 * added to sv's exponent:
 *   y = flt(bits(sv) + (kb << 23))        (u32)
 * (issue 59: 1.2x on Zen 3, bench/mathlib_bench; 36 instructions a vector
 * became 24 and a compare, a test and a branch).  The same values: for
 * |x| <= 87, m = round(16 x INVLN2) is in [-2008, 2008], so k = floor(m/16)
 * in [-126, 125]; the clamps and zero are false and x is not NaN, so c = x
 * and every value up to sv is the scalar routine's; kb = 0x04940000 + k,
 * and 0x04940000 << 23 = 0 mod 2^32, so kb << 23 = k << 23 mod 2^32.  sv
 * is in [0.978, 2) (exponent 126 or 127), and the result is a normal f32:
 * where k = -126, m >= -2008 = -126 16 + 8 gives j >= 8 and sv >=
 * 2^(1/2) e^-0.022 > 1.38.  So the sum's exponent field is sv's plus k, in
 * [1, 252]: the bits of sv 2^k, exact; (sv * s1) * s2 with s1 s2 = 2^k
 * (both normal, sv * s1 exact) is that value too.  Other vectors (any lane
 * |x| > 87 or NaN) take leir_expf's operations unchanged.  (88 would not
 * do: m = -2031, k = -127, a subnormal result.)  The price: such vectors
 * cost the compare and the branch more than the straight code did, and
 * arguments that mix the two kinds at random cost mispredictions.  make
 * bench-expf-range on Zen 3 (the Cody-Waite routine before s26, time
 * against the build before, load 9): x in [-80, 80] 0.57-0.72x, +0 and
 * +inf results 1.14-1.24x, subnormal results 1.33-1.49x, MinGPTNewGelu on
 * N(0,1) 0.81-0.95x and on leirc's random inputs (10 N(0,1): many tanh
 * arguments beyond 87) 1.16-1.24x.  Computing sv once before the branch
 * (from x, unclamped, as v16 does) and only the scaling on either side did
 * not help (the same figures), nor did a 16-lane form for AVX2 (two
 * registers under one branch).
 * leir.expf.v16 (AVX-512F): the same values from fewer instructions and a
 * shorter dependency chain (issue 59).  The clamps go (c = x), the table
 * entries come from one vpermps each (by tb: the instruction reads its low
 * 4 bits, j), and the scaling y = (sv * s1) * s2 (s2 = +0 for zero) and
 * the NaN select become
 *   y = |x| < 256 ? vscalefps(sv, kf) : vfixupimmps(x)
 * where the fixup gives x for a NaN, +inf for x > 0 and +0 for x < 0 (the
 * comparison by the bits, (bits(x) & 0x7fffffff) < bits(256), is false
 * for NaNs).
 * - |x| < 256: t = fmaf(x, INVLN2, SHIFT) is in [2^19, 2^20) (|m| <= 5910),
 *   so kf = m/16 exactly and floor(kf) = k; r is within 2^-24 of x - kf
 *   ln2 (the product kf LN2H needs 13 bits where |m| > 4095, then the
 *   first fmaf may round), |r| < 0.0218, and sv in [0.978, 2).
 * - x in [EXPF_LO, EXPF_HI] = [-104, 89]: the clamps did nothing, every
 *   value up to sv is the scalar routine's; k in [-151, 128], k1 =
 *   floor(k/2) and k - k1 in [-76, 64], so sv * s1 = sv 2^k1 is a normal
 *   f32 in [2^-77, 2^65], exact, and (sv * s1) * s2 is sv 2^k rounded once
 *   (to nearest; a subnormal or +inf included).  vscalefps gives
 *   sv 2^floor(kf) = sv 2^k rounded once by MXCSR's mode (to nearest, no
 *   FTZ/DAZ, as for every f32 operation here): the same value.
 * - x in (89, 256): the old value is +inf (e^x > 2^128).  Now m >= 2054
 *   (16 x INVLN2 > 2054.39), k >= 128; at k = 128, j >= 6 and sv >=
 *   2^(6/16) e^-0.022 > 1.26, above that sv >= 0.978 and k >= 129: sv 2^k
 *   rounds to +inf.
 * - x in (-256, -104): the old value is +0 (s2 = +0, sv * s1 > 0).  Now
 *   m <= -2401 and k <= -151: sv 2^k < 2^-150, half the least subnormal
 *   (sv < 2), rounds to +0.
 * - |x| >= 256 or NaN: x >= 256 gives +inf, x <= -256 +0 (the old values:
 *   the clamps made them inf and +0), a NaN x itself (the select), sNaN
 *   bits included (the fixup's token 0 keeps its destination x, for the
 *   classes QNaN and SNaN; the classes zero and one never get there).
 * Before s26 (the Cody-Waite routine: 12 of its 23 vector operations were
 * multiplications or FMAs, which Zen 4 runs at one 512-bit operation a
 * cycle, llvm-mca-19 -mcpu=znver4 12.2 cycles per 16 lanes, FP0/FP1 12.0)
 * v8's branch for v16, to vscalefps unmasked or to v8's integer scaling
 * when every |x| <= 87, was no faster.  Now 8 of 15 (t, 2 for r, q, r * r,
 * p, u, vscalefps).
 * mathlib_emit_test runs both on this machine (v16 with AVX-512F) on every
 * 257th f32 pattern (consecutive ones share a vector: both of v8's paths) and the specials against leir_expf (all 2^32 with
 * LEIR_MATHLIB_FULL=1). */
LLVMValueRef cg_math_get_expf_vec(LLVMModuleRef M, int lanes) {
  if (lanes != 8 && lanes != 16)
    return NULL;
  Em e;
  V have;
  LLVMTypeRef vf = LLVMVectorType(LLVMFloatTypeInContext(LLVMGetModuleContext(M)), (unsigned)lanes);
  V fn = begin_fn(&e, M, lanes == 8 ? "leir.expf.v8" : "leir.expf.v16", vf, (LLVMTypeRef[]){vf}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0);
  if (lanes == 16)
    return end_fn(&e, fn, expf_body(&e, x, 16, EXPF_AVX512));
  /* v8: EXPF_NORMAL when every lane has |x| <= EXPF_NMAX, else leir_expf's operations */
  e.n = 8; /* (any_'s lanes; expf_body's constants are splats of its own) */
  V out = any_(&e, fcmp(&e, LLVMRealUGT, fabs_(&e, x), splat(&e, kfl(&e, EXPF_NMAX), 8)));
  e.n = 0;
  LLVMBasicBlockRef bn = block(&e, "expf.normal"), bg = block(&e, "expf.gen"), be = block(&e, "expf.end");
  LLVMBuildCondBr(e.B, out, bg, bn);
  LLVMPositionBuilderAtEnd(e.B, bn);
  V yn = expf_body(&e, x, 8, EXPF_NORMAL);
  LLVMBuildBr(e.B, be);
  LLVMPositionBuilderAtEnd(e.B, bg);
  V yg = expf_body(&e, x, 8, EXPF_IR);
  LLVMBuildBr(e.B, be);
  LLVMPositionBuilderAtEnd(e.B, be);
  return end_fn(&e, fn, phi2(&e, vf, yn, bn, yg, bg));
}

/* ------------------------------------------------------------------- log */

static DDV log_mant(Em *e, V m) {
  V one = kd(e, 1.0), two = kd(e, 2.0);
  V f = sub(e, m, one);
  V uh = add(e, m, one);
  V ul = sub(e, m, sub(e, uh, one));
  V sh = fdv(e, f, uh);
  V rr = fma_(e, neg(e, sh), uh, f);
  rr = fma_(e, neg(e, sh), ul, rr);
  V sl = fdv(e, rr, uh);
  V wh = mul(e, sh, sh);
  V wl = fma_(e, sh, sh, neg(e, wh));
  wl = fma_(e, mul(e, sh, two), sl, wl);
  V th = mul(e, sh, wh);
  V tl = fma_(e, sh, wh, neg(e, th));
  tl = fma_(e, sh, wl, tl);
  tl = fma_(e, sl, wh, tl);
  V ah = mul(e, th, kd(e, LEIR_M_C23H));
  V al = fma_(e, th, kd(e, LEIR_M_C23H), neg(e, ah));
  al = fma_(e, th, kd(e, LEIR_M_C23L), al);
  al = fma_(e, tl, kd(e, LEIR_M_C23H), al);
  V tail = mul(e, mul(e, th, wh), horner(e, leir_m_log_poly, LEIR_M_LOG_N, wh));
  V bh = mul(e, sh, two);
  V bl = mul(e, sl, two);
  V hh = add(e, bh, ah);
  V hl = add(e, sub(e, bh, hh), ah);
  V lo = add(e, hl, add(e, bl, add(e, al, tail)));
  V Lh = add(e, hh, lo);
  return (DDV){Lh, add(e, sub(e, hh, Lh), lo)};
}

static DDV log_dd_sum(Em *e, DDV L, V ed);

static DDV log_dd(Em *e, V x) {
  V sb = fcmp(e, LLVMRealOLT, x, kd(e, 0x1p-1022));
  x = sel(e, sb, mul(e, x, kd(e, 0x1p54)), x);
  V eb = sel(e, sb, kl(e, -54), kl(e, 0));
  V u = cast(e, x, vt(e, e->i64));
  V ex = iadd(e, isub(e, lshr(e, u, kl(e, 52)), kl(e, 1023)), eb);
  V mb = ior(e, iand(e, u, kl(e, 0x000fffffffffffffll)), kl(e, 0x3ff0000000000000ll));
  V m = cast(e, mb, vt(e, e->f64));
  V big = fcmp(e, LLVMRealOGT, m, kd(e, LEIR_M_SQRT2));
  m = sel(e, big, mul(e, m, kd(e, 0.5)), m);
  ex = sel(e, big, iadd(e, ex, kl(e, 1)), ex);
  DDV L = log_mant(e, m);
  return log_dd_sum(e, L, LLVMBuildSIToFP(e->B, ex, vt(e, e->f64), ""));
}

/* log_dd's last lines: e ln 2 + L, ed = (double)e */
static DDV log_dd_sum(Em *e, DDV L, V ed) {
  V ph = mul(e, ed, kd(e, LEIR_M_LN2H));
  V pl = fma_(e, ed, kd(e, LEIR_M_LN2H), neg(e, ph));
  pl = fma_(e, ed, kd(e, LEIR_M_LN2L), pl);
  V sH = add(e, ph, L.h);
  V bb = sub(e, sH, ph);
  V sL = add(e, sub(e, ph, sub(e, sH, bb)), sub(e, L.h, bb));
  sL = add(e, sL, add(e, pl, L.l));
  V zh = add(e, sH, sL);
  return (DDV){zh, add(e, sub(e, sH, zh), sL)};
}

/* leir_log's operations on x (scalar or e->n lanes) */
static V log_body(Em *e, V x) {
  V inf = kd(e, INFINITY);
  V r = log_dd(e, x).h;
  r = sel(e, fcmp(e, LLVMRealOEQ, x, inf), x, r);
  r = sel(e, fcmp(e, LLVMRealOEQ, x, kd(e, 0.0)), kd(e, -INFINITY), r);
  r = sel(e, fcmp(e, LLVMRealOLT, x, kd(e, 0.0)), qnan64(e), r);
  return sel(e, isnan_(e, x), x, r);
}

static V emit_log(Em *e, LLVMModuleRef M) {
  V have, fn = begin_fn(e, M, "leir.log", NULL, (LLVMTypeRef[]){NULL}, 1, &have);
  if (!fn)
    return have;
  return end_fn(e, fn, log_body(e, LLVMGetParam(fn, 0)));
}

/* 1.5 * 2^52: dbl(bits(LOG_MAGIC) + e) - LOG_MAGIC = e for |e| < 2^51 */
#define LOG_MAGIC 0x1.8p52

/* leir.log.v4, v8, v16 (issue 59): leir_log's value in every lane, with a
 * branch to a shorter sequence when every lane has x normal, positive and
 * finite (2^-1022 <= x < inf, tested on the bits: bits(x) - bits(2^-1022)
 * < bits(inf) - bits(2^-1022) unsigned; false for 0, subnormals, negative
 * x, inf and NaN); other vectors take leir_log's operations unchanged.
 * The short sequence gives the same values for such x:
 * - sub is false (x >= 2^-1022), so x and eb = 0 stay, and none of the
 *   four special selects applies (x != inf, x != 0, x > 0, x not NaN): they
 *   go;
 * - big = m > SQRT2 is bits(m) > bits(SQRT2) (signed i64): m and SQRT2 are
 *   positive finite doubles, whose order is their bits' order;
 * - m * 0.5 for m in (SQRT2, 2) is exact and normal: m's bits less 2^52
 *   (the exponent field less one);
 * - ed = (double)e is dbl(bits(LOG_MAGIC) + e) - LOG_MAGIC: e in [-1022,
 *   1024], so bits(LOG_MAGIC) + e is the double 1.5 2^52 + e (the binade
 *   [2^52, 2^53), whose ulp is 1), and the subtraction is exact; the
 *   integer is built as (u >> 52) + (bits(LOG_MAGIC) - 1023), plus 1 where
 *   big, in the place of e.
 * So the integer unit does the compare, the halving and the conversion
 * (vcvtqq2pd is 4 uops on Zen 4), and 4 compares and 4 blends go, in the
 * FP pipes that bound this routine.  Every value from log_mant on is
 * computed by the same operations on the same operands.
 * Now the short sequence is at the FMA pipes' and the divider's limit on
 * Zen 4: per 8 lanes 28 multiplications and FMAs (2 cycles each of FP0 or
 * FP1) and 2 vdivpd (about 10 cycles of FP1 each), 38 cycles, against 37
 * measured (bench-mathlib, 2.6 GHz).  Tried and dropped (s25, no faster or
 * slower): both quotients by Markstein's step from one reciprocal 1/uh
 * (one division for two, six FMAs more), v16 as two v8 calls (constants
 * kept in registers), 8-lane math loops for f64, hl + fma(sl, 2, al + tail)
 * for one addition less.  Faster needs other operations, so other bits
 * (e.g. a table-driven log without division, as glibc's). */
static V log_normal(Em *e, V x) {
  V u = cast(e, x, vt(e, e->i64));
  V eM = iadd(e, lshr(e, u, kl(e, 52)), kl(e, (int64_t)(dbits(LOG_MAGIC) - 1023)));
  V mb = ior(e, iand(e, u, kl(e, 0x000fffffffffffffll)), kl(e, 0x3ff0000000000000ll));
  V big = icmp(e, LLVMIntSGT, mb, kl(e, (int64_t)dbits(LEIR_M_SQRT2)));
  mb = sel(e, big, isub(e, mb, kl(e, 0x0010000000000000ll)), mb);
  eM = sel(e, big, iadd(e, eM, kl(e, 1)), eM);
  DDV L = log_mant(e, cast(e, mb, vt(e, e->f64)));
  return log_dd_sum(e, L, sub(e, cast(e, eM, vt(e, e->f64)), kd(e, LOG_MAGIC))).h;
}

LLVMValueRef cg_math_get_log_vec(LLVMModuleRef M, int lanes) {
  if (lanes != 4 && lanes != 8 && lanes != 16)
    return NULL;
  Em e;
  V have;
  char name[20];
  snprintf(name, sizeof name, "leir.log.v%d", lanes);
  LLVMTypeRef vd = LLVMVectorType(LLVMDoubleTypeInContext(LLVMGetModuleContext(M)), (unsigned)lanes);
  V fn = begin_fn(&e, M, name, vd, (LLVMTypeRef[]){vd}, 1, &have);
  if (!fn)
    return have;
  e.n = (unsigned)lanes;
  V x = LLVMGetParam(fn, 0);
  V off = isub(&e, cast(&e, x, vt(&e, e.i64)), kl(&e, 0x0010000000000000ll));
  V out = icmp(&e, LLVMIntUGE, off, kl(&e, 0x7fe0000000000000ll));
  LLVMBasicBlockRef bn = block(&e, "log.normal"), bg = block(&e, "log.gen"), be = block(&e, "log.end");
  LLVMBuildCondBr(e.B, any_(&e, out), bg, bn);
  LLVMPositionBuilderAtEnd(e.B, bn);
  V yn = log_normal(&e, x);
  LLVMBuildBr(e.B, be);
  LLVMPositionBuilderAtEnd(e.B, bg);
  V yg = log_body(&e, x);
  LLVMBuildBr(e.B, be);
  LLVMPositionBuilderAtEnd(e.B, be);
  return end_fn(&e, fn, phi2(&e, vd, yn, bn, yg, bg));
}

/* ln d for a positive finite f32 value d, in f64 (logf_d in ir/mathlib.c; leir_powf) */
static V logf_d(Em *e, V d) {
  V one = kd(e, 1.0);
  V u = cast(e, d, e->i64);
  V eb = ior(e, lshr(e, u, kl(e, 52)), kl(e, 0x4330000000000000ll));
  V ed = sub(e, cast(e, eb, e->f64), kd(e, LEIR_M_LOGF_EB));
  V mb = ior(e, iand(e, u, kl(e, 0x000fffffffffffffll)), kl(e, 0x3ff0000000000000ll));
  V m = cast(e, mb, e->f64);
  V big = fcmp(e, LLVMRealOGT, m, kd(e, LEIR_M_SQRT2));
  m = sel(e, big, mul(e, m, kd(e, 0.5)), m);
  ed = sel(e, big, add(e, ed, one), ed);
  V fm = sub(e, m, one);
  V s = fdv(e, fm, add(e, fm, kd(e, 2.0)));
  V w = mul(e, s, s);
  V q = horner(e, leir_m_logf_poly, LEIR_M_LOGF_N, w);
  return fma_(e, ed, kd(e, LEIR_M_LN2H), fma_(e, mul(e, s, w), q, add(e, s, s)));
}

/* leir_logf: the f32 routine in f32 arithmetic */
static V emit_logf(Em *e, LLVMModuleRef M) {
  V have;
  LLVMTypeRef f = LLVMFloatTypeInContext(LLVMGetModuleContext(M));
  V fn = begin_fn(e, M, "leir.logf", f, (LLVMTypeRef[]){f}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0);
  V sb = fcmp(e, LLVMRealOLT, x, kfl(e, 0x1p-126f));
  V xs = sel(e, sb, mul(e, x, kfl(e, 0x1p23f)), x);
  V ix = isub(e, cast(e, xs, e->i32), sel(e, sb, ku(e, LEIR_MF_LOGF_OFFS), ku(e, LEIR_MF_LOGF_OFF)));
  V k = LLVMBuildAShr(e->B, ix, ku(e, 23), "");
  V m = cast(e, iadd(e, iand(e, ix, ku(e, 0x007fffffu)), ku(e, LEIR_MF_LOGF_OFF)), e->f32);
  V r = sub(e, m, kfl(e, 1.0f));
  V ef = LLVMBuildSIToFP(e->B, k, e->f32, "");
  V p = hornerf(e, leir_mf_logf_poly, LEIR_MF_LOGF_N, r, 0);
  V ph = mul(e, ef, kfl(e, LEIR_MF_LOGF_LN2H));
  V hi = add(e, ph, r);
  V dl = add(e, sub(e, ph, hi), r);
  V lo = fma_(e, mul(e, r, r), p, fma_(e, ef, kfl(e, LEIR_MF_LOGF_LN2L), dl));
  V y = add(e, hi, lo);
  V inf = LLVMConstReal(e->f32, INFINITY), zero = LLVMConstReal(e->f32, 0.0);
  y = sel(e, fcmp(e, LLVMRealOEQ, x, inf), x, y);
  y = sel(e, fcmp(e, LLVMRealOEQ, x, zero), LLVMConstReal(e->f32, -INFINITY), y);
  y = sel(e, fcmp(e, LLVMRealOLT, x, zero), qnan32(e), y);
  return end_fn(e, fn, sel(e, isnan_(e, x), x, y));
}

/* ------------------------------------------------------------------- erf */

static V emit_erf(Em *e, LLVMModuleRef M) {
  V have, fn = begin_fn(e, M, "leir.erf", NULL, (LLVMTypeRef[]){NULL}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0);
  V one = kd(e, 1.0), cc = kd(e, LEIR_M_ERF_C);
  V a = fabs_(e, x);
  V w = mul(e, a, a);
  V ra = fma_(e, a, horner(e, leir_m_erfa_poly, LEIR_M_ERFA_N, w), a);
  V wl = fma_(e, a, a, neg(e, w));
  V ex = exp_core(e, neg(e, w), neg(e, wl));
  V den = add(e, a, cc);
  V dl = add(e, sub(e, cc, den), a);
  V t = fdv(e, one, den);
  V rt = fma_(e, neg(e, t), den, one);
  rt = fma_(e, neg(e, t), dl, rt);
  V u = fma_(e, t, rt, sub(e, t, kd(e, LEIR_M_ERF_T0)));
  V rb = fma_(e, neg(e, ex), horner(e, leir_m_erfb_poly, LEIR_M_ERFB_N, u), one);
  V r = sel(e, fcmp(e, LLVMRealOLT, a, kd(e, LEIR_M_ERF_SPLIT)), ra, rb);
  r = sel(e, fcmp(e, LLVMRealOGE, a, kd(e, LEIR_M_ERF_ONE)), one, r);
  r = copysign_(e, r, x);
  return end_fn(e, fn, sel(e, isnan_(e, x), x, r));
}

/* leir_erff: the table-driven f32 routine.  The body is emitted for
   scalar f32 or for <n x float>; lookups differ only in how the table
   entry i is fetched (the same f32 values either way):
   - scalar (l->fn == NULL): a chain of selects on i == 1 .. NI-1;
   - vector: one lane-crossing permute of the 8-entry table by the lane's
     i: vpermps (llvm.x86.avx2.permps for 8 lanes,
     llvm.x86.avx512.permvar.sf.512 for 16, the table written twice).
   The vector forms add interval 0's a by OR-ing a's bits into K[0] = +0
   and copy x's sign by OR-ing it into r (r >= +0 for every x not a NaN):
   the same bits as the select and copysign, integer operations that keep
   the FMA pipes free (with a vblendvps for the addend GELU ran 3% slower
   on Zen 3).  A NaN x (c = 4, interval 7, r = 1 exactly) comes back as it
   is: leir.erff.v8 ORs all of x's bits into r, whose bits 0x3f800000 a NaN
   has, instead of a blend; the mask of the NaN lanes is vcmpunordps's
   (x unordered with itself: the same lanes as the integer compare bits(a)
   > 0x7f800000 it replaced, which AVX2 has only as vpmaxud and vpcmpeqd,
   with one more constant register: GELU 1.07x, bench-activations --avx2
   on a Zen 4). */
typedef struct {
  V fn;           /* the permute intrinsic, NULL: scalar */
  LLVMTypeRef ty; /* its function type */
  unsigned n;     /* lanes (0: scalar) */
  V i, eq[LEIR_MF_ERFF_NI]; /* the interval; scalar: i == 1 .. NI-1 */
} ErfLook;

static V erf_look(Em *e, const ErfLook *l, const float *tab) {
  if (l->fn)
    return permute_table(e, l->fn, l->ty, tab, l->n, LEIR_MF_ERFF_NI, l->i);
  V r = kfl(e, tab[0]);
  for (int j = 1; j < LEIR_MF_ERFF_NI; j++)
    r = sel(e, l->eq[j], kfl(e, tab[j]), r);
  return r;
}

/* the declaration of the x86 intrinsic name with type ty */
static V x86_fn(Em *e, const char *name, LLVMTypeRef ty) {
  V fn = LLVMGetNamedFunction(e->M, name);
  return fn ? fn : LLVMAddFunction(e->M, name, ty);
}

/* fmaf(c, SCALE, BIAS), the interval before truncation */
static V erff_pos(Em *e, V c, unsigned n) {
  return fma_(e, c, splat(e, kfl(e, LEIR_MF_ERFF_SCALE), n), splat(e, kfl(e, LEIR_MF_ERFF_BIAS), n));
}

/* r >= +0 from a = |x|, c and the interval's lookups (u = c - M[i], Horner in u) */
static V erff_poly(Em *e, const ErfLook *l, V a, V c) {
  V u = sub(e, c, erf_look(e, l, leir_mf_erff_m));
  V p = erf_look(e, l, leir_mf_erff_c[0]);
  for (int j = 1; j < LEIR_MF_ERFF_N; j++)
    p = fma_(e, p, u, erf_look(e, l, leir_mf_erff_c[j]));
  unsigned n = l->n;
  V z = icmp(e, LLVMIntEQ, l->i, splat(e, ku(e, 0), n));
  V k = erf_look(e, l, leir_mf_erff_k), add;
  if (n) { /* K[0] = +0: K | (a & (i == 0)), the select's bits */
    LLVMTypeRef vi = LLVMVectorType(e->i32, n);
    V am = iand(e, cast(e, a, vi), LLVMBuildSExt(e->B, z, vi, ""));
    add = cast(e, ior(e, cast(e, k, vi), am), LLVMTypeOf(a));
  } else {
    add = sel(e, z, a, k);
  }
  return fma_(e, u, p, add);
}

static V emit_erff(Em *e, LLVMModuleRef M) {
  V have;
  LLVMTypeRef f = LLVMFloatTypeInContext(LLVMGetModuleContext(M));
  V fn = begin_fn(e, M, "leir.erff", f, (LLVMTypeRef[]){f}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0), a = fabs_(e, x), top = kfl(e, LEIR_MF_ERFF_ONE);
  V c = sel(e, fcmp(e, LLVMRealOLT, a, top), a, top);
  V i = LLVMBuildFPToSI(e->B, erff_pos(e, c, 0), e->i32, ""); /* c in [0, 4]: 0 .. 7 */
  ErfLook l = {NULL, NULL, 0, i, {NULL}};
  for (int j = 1; j < LEIR_MF_ERFF_NI; j++)
    l.eq[j] = icmp(e, LLVMIntEQ, i, ku(e, (uint32_t)j));
  return end_fn(e, fn, sel(e, isnan_(e, x), x, copysign_(e, erff_poly(e, &l, a, c), x)));
}

LLVMValueRef cg_math_get_erff_vec(LLVMModuleRef M, int lanes) {
  if (lanes != 8 && lanes != 16)
    return NULL;
  Em e;
  V have;
  unsigned n = (unsigned)lanes;
  LLVMTypeRef vf = LLVMVectorType(LLVMFloatTypeInContext(LLVMGetModuleContext(M)), n);
  V fn = begin_fn(&e, M, n == 8 ? "leir.erff.v8" : "leir.erff.v16", vf, (LLVMTypeRef[]){vf}, 1, &have);
  if (!fn)
    return have;
  LLVMTypeRef vi = LLVMVectorType(e.i32, n);
  V x = LLVMGetParam(fn, 0), a = fabs_(&e, x), top = splat(&e, kfl(&e, LEIR_MF_ERFF_ONE), n);
  V c = sel(&e, fcmp(&e, LLVMRealOLT, a, top), a, top);
  V i = LLVMBuildFPToSI(e.B, erff_pos(&e, c, n), vi, ""); /* c in [0, 4]: 0 .. 7 */
  ErfLook l = {NULL, NULL, n, i, {NULL}};
  l.fn = permute_fn(&e, n, &l.ty);
  V r = erff_poly(&e, &l, a, c);
  V xb = cast(&e, x, vi), m = splat(&e, ku(&e, 0x80000000u), n);
  if (n == 8) /* and, for a NaN, all of x */
    m = ior(&e, m, LLVMBuildSExt(e.B, fcmp(&e, LLVMRealUNO, x, x), vi, ""));
  V y = cast(&e, ior(&e, cast(&e, r, vi), iand(&e, xb, m)), vf); /* copysign(r, x): r >= +0 */
  return end_fn(&e, fn, n == 8 ? y : sel(&e, isnan_(&e, x), x, y));
}

/* ------------------------------------------------------------------- pow */

static V is_int(Em *e, V v) {
  V two52 = kd(e, LEIR_M_TWO52);
  V av = fabs_(e, v);
  V big = fcmp(e, LLVMRealOGE, av, two52);
  V rnd = fcmp(e, LLVMRealOEQ, sub(e, add(e, av, two52), two52), av);
  V fin = fcmp(e, LLVMRealUNE, av, kd(e, INFINITY));
  return land(e, fin, LLVMBuildOr(e->B, big, rnd, ""));
}

static DDV dd_mul(Em *e, DDV a, DDV b) {
  V p = mul(e, a.h, b.h);
  V x = fma_(e, a.h, b.h, neg(e, p));
  x = fma_(e, a.h, b.l, x);
  x = fma_(e, a.l, b.h, x);
  V h = add(e, p, x);
  return (DDV){h, add(e, sub(e, p, h), x)};
}

static DDV pow_int(Em *e, V ax, V n) {
  DDV acc = {kd(e, 1.0), kd(e, 0.0)};
  DDV b = {ax, kd(e, 0.0)};
  for (int i = 0; i < 7; i++) {
    V bit = iand(e, lshr(e, n, kl(e, i)), kl(e, 1));
    V on = icmp(e, LLVMIntNE, bit, kl(e, 0));
    DDV m = dd_mul(e, acc, b);
    acc = (DDV){sel(e, on, m.h, acc.h), sel(e, on, m.l, acc.l)};
    if (i < 6)
      b = dd_mul(e, b, b);
  }
  return acc;
}

/* Is the i1 c true in some lane (every lane: all_)?  Scalar code: c. */
static V any_(Em *e, V c) {
  return e->n ? intrinsic(e, "llvm.vector.reduce.or", LLVMTypeOf(c), &c, 1) : c;
}

static LLVMBasicBlockRef block(Em *e, const char *name) {
  return LLVMAppendBasicBlockInContext(e->C, LLVMGetBasicBlockParent(LLVMGetInsertBlock(e->B)), name);
}

static V phi2(Em *e, LLVMTypeRef t, V a, LLVMBasicBlockRef ba, V b, LLVMBasicBlockRef bb) {
  V p = LLVMBuildPhi(e->B, t, "");
  LLVMAddIncoming(p, (V[]){a, b}, (LLVMBasicBlockRef[]){ba, bb}, 2);
  return p;
}

/* pow_mag's integer path: its value ri, and ok, where it is taken */
static void pow_ipath(Em *e, V ax, V y, V ay, V yint, V *ri, V *ok) {
  V imax = kd(e, LEIR_M_POW_IMAX), two52 = kd(e, LEIR_M_TWO52);
  V yc = sel(e, fcmp(e, LLVMRealOLT, ay, imax), ay, imax);
  V n = isub(e, cast(e, add(e, yc, two52), vt(e, e->i64)), kl(e, (int64_t)dbits(LEIR_M_TWO52)));
  DDV acc = pow_int(e, ax, n);
  V q = fdv(e, kd(e, 1.0), acc.h);
  V ee = fma_(e, neg(e, q), acc.h, kd(e, 1.0));
  ee = fma_(e, neg(e, q), acc.l, ee);
  *ri = sel(e, fcmp(e, LLVMRealOLT, y, kd(e, 0.0)), fma_(e, q, ee, q), add(e, acc.h, acc.l));
  V o = land(e, yint, fcmp(e, LLVMRealOLE, ay, imax));
  o = land(e, o, fcmp(e, LLVMRealOGE, acc.h, kd(e, LEIR_M_POW_SMALL)));
  *ok = land(e, o, fcmp(e, LLVMRealOLE, acc.h, kd(e, LEIR_M_POW_BIG)));
}

/* pow_mag's general path */
static V pow_gpath(Em *e, V ax, V y) {
  DDV lg = log_dd(e, ax);
  V zh = mul(e, y, lg.h);
  V zl = fma_(e, y, lg.h, neg(e, zh));
  zl = fma_(e, y, lg.l, zl);
  return exp_core(e, zh, zl);
}

static V phis(Em *e, LLVMTypeRef t, V *v, LLVMBasicBlockRef *b, unsigned n) {
  V p = LLVMBuildPhi(e->B, t, "");
  LLVMAddIncoming(p, v, b, n);
  return p;
}

/* |x|^y before the specials (pow_mag in ir/mathlib.c), the same value
   computed lazily (issue 59).  want: the lanes with an integer |y| <= 64,
   which take the integer path's value where ok (its result in range).
   The integer path is computed only when some lane wants it, the general
   path only when some lane needs it; in vector code (e->n lanes) the
   branches are on any lane, uniform:
   - no lane wants the integer path: the general path alone;
   - some lane wants it and some not (vector code only): both paths in one
     block, side by side, as the routine without branches (their chains
     overlap);
   - every lane wants it: the integer path, then the general one only if
     some lane's result was out of range (not ok), leaving out the lanes
     with |x| = 0, inf or NaN, whose result the specials set.
   A skipped path's value is a constant that no lane's result takes (ok is
   false in every lane where the integer path was skipped), so every lane
   gets the routine's bits.  The specials' conditions are computed after
   the paths (pow_body): live across them they cost AVX-512 mask spills. */
static V pow_mag(Em *e, V ax, V y, V yint, bool lazy) {
  V ay = fabs_(e, y);
  if (!lazy) { /* ir/mathlib.c's order */
    V r = pow_gpath(e, ax, y), ri, ok;
    pow_ipath(e, ax, y, ay, yint, &ri, &ok);
    return sel(e, ok, ri, r);
  }
  V want = land(e, yint, fcmp(e, LLVMRealOLE, ay, kd(e, LEIR_M_POW_IMAX)));
  LLVMTypeRef tf = vt(e, e->f64), tb = vt(e, e->i1);
  V zf = kd(e, 0.0), zb = LLVMConstNull(tb);
  LLVMBasicBlockRef b0 = LLVMGetInsertBlock(e->B);
  LLVMBasicBlockRef bi = block(e, "pow.int"), bb = e->n ? block(e, "pow.both") : NULL;
  LLVMBasicBlockRef bg = block(e, "pow.gen"), be = block(e, "pow.end");
  if (bb) { /* (scalar code: want is one lane) */
    LLVMBasicBlockRef bw = block(e, "pow.want");
    LLVMBuildCondBr(e->B, any_(e, want), bw, bg);
    LLVMPositionBuilderAtEnd(e->B, bw);
    LLVMBuildCondBr(e->B, any_(e, lnot(e, want)), bb, bi);
  } else {
    LLVMBuildCondBr(e->B, want, bi, bg);
  }
  /* the integer path alone, then the general path where needed */
  LLVMPositionBuilderAtEnd(e->B, bi);
  V ri_i, ok_i;
  pow_ipath(e, ax, y, ay, yint, &ri_i, &ok_i);
  V fin = land(e, fcmp(e, LLVMRealOGT, ax, zf), fcmp(e, LLVMRealOLT, ax, kd(e, INFINITY)));
  LLVMBuildCondBr(e->B, any_(e, land(e, fin, lnot(e, ok_i))), bg, be);
  /* both paths */
  V ri_b = zf, ok_b = zb, r_b = zf;
  if (bb) {
    LLVMPositionBuilderAtEnd(e->B, bb);
    pow_ipath(e, ax, y, ay, yint, &ri_b, &ok_b);
    r_b = pow_gpath(e, ax, y);
    LLVMBuildBr(e->B, be);
  }
  /* the general path, after the integer one or without it */
  LLVMPositionBuilderAtEnd(e->B, bg);
  V ri_g = phi2(e, tf, zf, b0, ri_i, bi), ok_g = phi2(e, tb, zb, b0, ok_i, bi);
  V r_g = pow_gpath(e, ax, y);
  LLVMBuildBr(e->B, be);
  LLVMPositionBuilderAtEnd(e->B, be);
  LLVMBasicBlockRef from[3] = {bi, bg, bb};
  unsigned np = bb ? 3 : 2;
  V ri = phis(e, tf, (V[]){ri_i, ri_g, ri_b}, from, np);
  V ok = phis(e, tb, (V[]){ok_i, ok_g, ok_b}, from, np);
  V r = phis(e, tf, (V[]){zf, r_g, r_b}, from, np);
  return sel(e, ok, ri, r);
}

/* leir_pow(x, y) on doubles (scalar, or e->n lanes); lazy: pow_mag's
   branches, and the specials' selects only when some lane is special: in
   a lane with x > 0 finite, x != 1, y finite and non-zero (not NaN) none of
   them changes r. */
static V pow_body(Em *e, V x, V y, bool lazy) {
  V zero = kd(e, 0.0), one = kd(e, 1.0), inf = kd(e, INFINITY);
  V ax = fabs_(e, x), ay = fabs_(e, y);
  V yint = is_int(e, y), r = lazy ? pow_mag(e, ax, y, yint, true) : NULL;
  LLVMBasicBlockRef b0 = NULL, bs = NULL, bd = NULL;
  V r0 = r;
  if (lazy) {
    V ord = land(e, fcmp(e, LLVMRealOGT, x, zero), fcmp(e, LLVMRealOLT, x, inf));
    ord = land(e, ord, fcmp(e, LLVMRealONE, x, one));
    ord = land(e, ord, land(e, fcmp(e, LLVMRealOLT, ay, inf), fcmp(e, LLVMRealONE, y, zero)));
    b0 = LLVMGetInsertBlock(e->B);
    bs = block(e, "pow.spec"), bd = block(e, "pow.done");
    LLVMBuildCondBr(e->B, any_(e, lnot(e, ord)), bs, bd);
    LLVMPositionBuilderAtEnd(e->B, bs);
  }
  V yodd = land(e, yint, lnot(e, is_int(e, mul(e, y, kd(e, 0.5)))));
  V yneg = fcmp(e, LLVMRealOLT, y, zero);
  if (!lazy)
    r = pow_mag(e, ax, y, yint, false);
  r = sel(e, fcmp(e, LLVMRealOEQ, ax, zero), sel(e, yneg, inf, zero), r);
  r = sel(e, fcmp(e, LLVMRealOEQ, ax, inf), sel(e, yneg, zero, inf), r);
  V rinf = sel(e, icmp(e, LLVMIntEQ, fcmp(e, LLVMRealOLT, ax, one), yneg), inf, zero);
  V r1 = sel(e, fcmp(e, LLVMRealOEQ, ax, one), one, rinf);
  r = sel(e, fcmp(e, LLVMRealOEQ, ay, inf), r1, r);
  V xneg = icmp(e, LLVMIntNE, lshr(e, cast(e, x, vt(e, e->i64)), kl(e, 63)), kl(e, 0));
  r = sel(e, land(e, yodd, xneg), neg(e, r), r);
  V bad = land(e, fcmp(e, LLVMRealOLT, x, zero), fcmp(e, LLVMRealUNE, ax, inf));
  bad = land(e, bad, fcmp(e, LLVMRealUNE, ay, inf));
  bad = land(e, bad, lnot(e, yint));
  r = sel(e, bad, qnan64(e), r);
  r = sel(e, isnan_(e, y), y, r);
  r = sel(e, isnan_(e, x), x, r);
  r = sel(e, fcmp(e, LLVMRealOEQ, y, zero), one, r);
  r = sel(e, fcmp(e, LLVMRealOEQ, x, one), one, r);
  if (!lazy)
    return r;
  LLVMBuildBr(e->B, bd);
  LLVMPositionBuilderAtEnd(e->B, bd);
  return phi2(e, vt(e, e->f64), r0, b0, r, bs);
}

static V emit_pow(Em *e, LLVMModuleRef M) {
  V have, fn = begin_fn(e, M, "leir.pow", NULL, (LLVMTypeRef[]){NULL, NULL}, 2, &have);
  if (!fn)
    return have;
  return end_fn(e, fn, pow_body(e, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), false));
}

LLVMValueRef cg_math_get_pow_vec(LLVMModuleRef M, int lanes) {
  if (lanes != 1 && lanes != 4 && lanes != 8 && lanes != 16)
    return NULL;
  Em e;
  V have;
  char name[20];
  snprintf(name, sizeof name, lanes == 1 ? "leir.pow.lazy" : "leir.pow.v%d", lanes);
  LLVMTypeRef d = LLVMDoubleTypeInContext(LLVMGetModuleContext(M));
  LLVMTypeRef vd = lanes == 1 ? d : LLVMVectorType(d, (unsigned)lanes);
  V fn = begin_fn(&e, M, name, vd, (LLVMTypeRef[]){vd, vd}, 2, &have);
  if (!fn)
    return have;
  e.n = lanes == 1 ? 0 : (unsigned)lanes;
  return end_fn(&e, fn, pow_body(&e, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), true));
}

/* e^z in f64, sized for an f32 result (expf_d in ir/mathlib.c) */
static V expf_d(Em *e, V z) {
  V hi = kd(e, LEIR_M_EXPF_HI), lo = kd(e, LEIR_M_EXPF_LO);
  V c = sel(e, fcmp(e, LLVMRealOGT, z, hi), hi, z);
  c = sel(e, fcmp(e, LLVMRealOLT, c, lo), lo, c);
  V t = fma_(e, c, kd(e, LEIR_M_INVLN2), kd(e, LEIR_M_SHIFT));
  V kf = sub(e, t, kd(e, LEIR_M_SHIFT));
  V k = isub(e, cast(e, t, e->i64), kl(e, (int64_t)dbits(LEIR_M_SHIFT)));
  V r = fma_(e, kf, kd(e, -LEIR_M_LN2H), c);
  return mul(e, horner(e, leir_m_expf_poly, LEIR_M_EXPF_N, r), pow2i(e, k));
}

/* is_intf in ir/mathlib.c: is_int on an f32 value, in f32 */
static V is_intf(Em *e, V v) {
  V two23 = kfl(e, LEIR_MF_TWO23);
  V av = fabs_(e, v);
  V big = fcmp(e, LLVMRealOGE, av, two23);
  V rnd = fcmp(e, LLVMRealOEQ, sub(e, add(e, av, two23), two23), av);
  V fin = fcmp(e, LLVMRealUNE, av, kfl(e, INFINITY));
  return land(e, fin, LLVMBuildOr(e->B, big, rnd, ""));
}

/* leir_powf(x, y) (f32 x and y): the general path in f64 (its selects
   on f64 conditions only), rounded to f32 once; the integer path and the
   specials in f32, so that no condition changes width (an f32 compare
   selecting f64 lanes, or the reverse, costs the vector code mask packs
   and unpacks); conjunctions as nested selects, as in ir/mathlib.c. */
static V powf_body(Em *e, V x, V y) {
  V zero = kfl(e, 0.0f), one = kfl(e, 1.0f), inf = kfl(e, INFINITY);
  V d = LLVMBuildFPExt(e->B, x, e->f64, "");
  V ev = LLVMBuildFPExt(e->B, y, e->f64, "");
  V r = expf_d(e, mul(e, ev, logf_d(e, fabs_(e, d))));
  V f = LLVMBuildFPTrunc(e->B, r, e->f32, "");
  V ax = fabs_(e, x), ay = fabs_(e, y);
  V yint = is_intf(e, y);
  V yodd = land(e, yint, lnot(e, is_intf(e, mul(e, y, kfl(e, 0.5f)))));
  V yneg = fcmp(e, LLVMRealOLT, y, zero);
  V imax = kfl(e, LEIR_MF_POWF_IMAX), two23 = kfl(e, LEIR_MF_TWO23);
  V yc = sel(e, fcmp(e, LLVMRealOLT, ay, imax), ay, imax);
  V n = isub(e, cast(e, add(e, yc, two23), e->i32), ku(e, 0x4b000000u));
  V a2 = mul(e, ax, ax);
  V p = sel(e, icmp(e, LLVMIntNE, iand(e, n, ku(e, 1)), ku(e, 0)), ax, one);
  p = sel(e, icmp(e, LLVMIntNE, iand(e, n, ku(e, 2)), ku(e, 0)), mul(e, p, a2), p);
  V ri = sel(e, yneg, fdv(e, one, p), p);
  V fi = sel(e, fcmp(e, LLVMRealOLE, y, imax), ri, f);
  fi = sel(e, fcmp(e, LLVMRealOGE, y, kfl(e, -1.0f)), fi, f);
  f = sel(e, yint, fi, f);
  f = sel(e, fcmp(e, LLVMRealOEQ, y, kfl(e, 0.5f)), intrinsic(e, "llvm.sqrt", e->f32, &ax, 1), f);
  f = sel(e, fcmp(e, LLVMRealOEQ, ax, zero), sel(e, yneg, inf, zero), f);
  f = sel(e, fcmp(e, LLVMRealOEQ, ax, inf), sel(e, yneg, zero, inf), f);
  V rinf = sel(e, icmp(e, LLVMIntEQ, fcmp(e, LLVMRealOLT, ax, one), yneg), inf, zero);
  V r1 = sel(e, fcmp(e, LLVMRealOEQ, ax, one), one, rinf);
  f = sel(e, fcmp(e, LLVMRealOEQ, ay, inf), r1, f);
  V xneg = icmp(e, LLVMIntNE, lshr(e, cast(e, x, e->i32), ku(e, 31)), ku(e, 0));
  f = sel(e, xneg, sel(e, yodd, neg(e, f), f), f);
  V q = sel(e, yint, f, qnan32(e));
  q = sel(e, fcmp(e, LLVMRealOEQ, ay, inf), f, q);
  q = sel(e, fcmp(e, LLVMRealOEQ, ax, inf), f, q);
  f = sel(e, fcmp(e, LLVMRealOLT, x, zero), q, f);
  f = sel(e, isnan_(e, y), y, f);
  f = sel(e, isnan_(e, x), x, f);
  f = sel(e, fcmp(e, LLVMRealOEQ, y, zero), one, f);
  return sel(e, fcmp(e, LLVMRealOEQ, x, one), one, f);
}

static V emit_powf(Em *e, LLVMModuleRef M) {
  V have;
  LLVMTypeRef f = LLVMFloatTypeInContext(LLVMGetModuleContext(M));
  V fn = begin_fn(e, M, "leir.powf", f, (LLVMTypeRef[]){f, f}, 2, &have);
  if (!fn)
    return have;
  return end_fn(e, fn, powf_body(e, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1)));
}

/* leir_powf(x, n) for a constant integer n, 1 <= |n| <= 6.
   For n = -1, 1, 2, 3 leir_powf's value is its integer path's with the
   specials after it: with a = |x|, p = a (|n| = 1), a*a (2), a*(a*a) (3),
   1/p for n = -1, the sign of an odd power restored.  RN is symmetric, so
   that is the same f32 operations on x itself: 1/x, x, x*x, x*(x*x); those
   also give pow's specials (+-0, +-inf and 1 stay what pow makes of them,
   the signed zero and infinity of x^n included), and a NaN x comes back as
   x itself (the NaN select), as leir_powf returns it.  Other n: the whole
   routine with the constant exponent (LLVM folds what does not depend on
   x).  mathlib_emit_test compares every n with leir_powf on specials and
   random f32 patterns; mathlib_test checks the four products on every
   257th f32 input. */
LLVMValueRef cg_math_get_powi_f32(LLVMModuleRef M, int n) {
  if (n == 0 || n < -6 || n > 6)
    return NULL;
  char name[32];
  snprintf(name, sizeof name, "leir.powf.i%d", n);
  Em e;
  V have;
  LLVMContextRef C = LLVMGetModuleContext(M);
  LLVMTypeRef f = LLVMFloatTypeInContext(C);
  V fn = begin_fn(&e, M, name, f, (LLVMTypeRef[]){f}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0);
  if (n < -1 || n > 3)
    return end_fn(&e, fn, powf_body(&e, x, LLVMConstReal(f, n)));
  V y = n == -1 ? fdv(&e, kfl(&e, 1.0f), x) : n == 2 ? mul(&e, x, x) : mul(&e, x, mul(&e, x, x));
  return end_fn(&e, fn, n == 1 ? x : sel(&e, isnan_(&e, x), x, y));
}

/* ------------------------------------------------------------------- f32 */

LLVMValueRef cg_math_get(LLVMModuleRef M, const char *which, LLVMTypeRef ty) {
  static const struct {
    const char *which;
    V (*emit)(Em *, LLVMModuleRef);   /* f64 */
    V (*emit32)(Em *, LLVMModuleRef); /* f32 */
  } tab[] = {{"exp", emit_exp, emit_expf},
             {"log", emit_log, emit_logf},
             {"erf", emit_erf, emit_erff},
             {"pow", emit_pow, emit_powf}};
  LLVMTypeKind kind = LLVMGetTypeKind(ty);
  if (kind != LLVMDoubleTypeKind && kind != LLVMFloatTypeKind)
    return NULL;
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
    if (strcmp(which, tab[i].which) != 0)
      continue;
    Em e;
    return kind == LLVMFloatTypeKind ? tab[i].emit32(&e, M) : tab[i].emit(&e, M);
  }
  return NULL;
}

/* ------------------------------------------------------------- f16, bf16 */

static V f32_to_f16(Em *e, V x) { /* i32 holding the 16 bits */
  V b = cast(e, x, e->i32);
  V s = iand(e, lshr(e, b, ku(e, 16)), ku(e, 0x8000));
  V a = iand(e, b, ku(e, 0x7fffffff));
  V rn = isub(e, a, ku(e, 0x38000000));
  V hn = iadd(e, iadd(e, rn, ku(e, 0xfff)), iand(e, lshr(e, rn, ku(e, 13)), ku(e, 1)));
  hn = lshr(e, hn, ku(e, 13));
  V sh = isub(e, ku(e, 126), lshr(e, a, ku(e, 23)));
  sh = sel(e, icmp(e, LLVMIntUGT, sh, ku(e, 31)), ku(e, 31), sh);
  sh = sel(e, icmp(e, LLVMIntULT, sh, ku(e, 14)), ku(e, 14), sh);
  V m = ior(e, iand(e, a, ku(e, 0x7fffff)), ku(e, 0x800000));
  V half = shl(e, ku(e, 1), isub(e, sh, ku(e, 1)));
  V hs = isub(e, iadd(e, m, half), ku(e, 1));
  hs = lshr(e, iadd(e, hs, iand(e, lshr(e, m, sh), ku(e, 1))), sh);
  V h = sel(e, icmp(e, LLVMIntULT, a, ku(e, 0x38800000)), hs, hn);
  h = sel(e, icmp(e, LLVMIntUGE, a, ku(e, 0x47800000)), ku(e, 0x7c00), h);
  V hq = ior(e, ku(e, 0x7e00), iand(e, lshr(e, a, ku(e, 13)), ku(e, 0x3ff)));
  h = sel(e, icmp(e, LLVMIntUGT, a, ku(e, 0x7f800000)), hq, h);
  return ior(e, s, h);
}

static V f16_to_f32(Em *e, V h) { /* h: i32 with the 16 bits */
  V s = shl(e, iand(e, h, ku(e, 0x8000)), ku(e, 16));
  V ex = iand(e, lshr(e, h, ku(e, 10)), ku(e, 0x1f));
  V m = iand(e, h, ku(e, 0x3ff));
  V m13 = shl(e, m, ku(e, 13));
  V bn = ior(e, ior(e, s, shl(e, iadd(e, ex, ku(e, 112)), ku(e, 23))), m13);
  V bi = ior(e, ior(e, s, ku(e, 0x7f800000)), m13);
  V fs = mul(e, LLVMBuildUIToFP(e->B, m, e->f32, ""), LLVMConstReal(e->f32, 0x1p-24));
  V bs = ior(e, s, cast(e, fs, e->i32));
  V b = sel(e, icmp(e, LLVMIntEQ, ex, ku(e, 31)), bi, bn);
  b = sel(e, icmp(e, LLVMIntEQ, ex, ku(e, 0)), bs, b);
  return cast(e, b, e->f32);
}

static V f32_to_bf16(Em *e, V x) {
  V b = cast(e, x, e->i32);
  V hi = lshr(e, b, ku(e, 16));
  V r = lshr(e, iadd(e, iadd(e, b, ku(e, 0x7fff)), iand(e, hi, ku(e, 1))), ku(e, 16));
  V isn = icmp(e, LLVMIntUGT, iand(e, b, ku(e, 0x7fffffff)), ku(e, 0x7f800000));
  return sel(e, isn, ior(e, hi, ku(e, 0x40)), r);
}

static V bf16_to_f32(Em *e, V h) { return cast(e, shl(e, h, ku(e, 16)), e->f32); }

LLVMValueRef cg_math_get_round16(LLVMModuleRef M, int is_bf16) {
  Em e;
  V have;
  LLVMTypeRef f = LLVMFloatTypeInContext(LLVMGetModuleContext(M));
  const char *name = is_bf16 ? "leir.round_bf16" : "leir.round_f16";
  V fn = begin_fn(&e, M, name, f, (LLVMTypeRef[]){f}, 1, &have);
  if (!fn)
    return have;
  V x = LLVMGetParam(fn, 0);
  V r = is_bf16 ? bf16_to_f32(&e, f32_to_bf16(&e, x)) : f16_to_f32(&e, f32_to_f16(&e, x));
  return end_fn(&e, fn, r);
}

LLVMValueRef cg_math_get_cvt16(LLVMModuleRef M, int is_bf16, int to_16) {
  static const char *const names[2][2] = {{"leir.f16_to_f32", "leir.f32_to_f16"},
                                          {"leir.bf16_to_f32", "leir.f32_to_bf16"}};
  Em e;
  V have;
  LLVMContextRef C = LLVMGetModuleContext(M);
  LLVMTypeRef f = LLVMFloatTypeInContext(C), h = LLVMInt16TypeInContext(C);
  V fn = begin_fn(&e, M, names[!!is_bf16][!!to_16], to_16 ? h : f,
                  (LLVMTypeRef[]){to_16 ? f : h}, 1, &have);
  if (!fn)
    return have;
  V a = LLVMGetParam(fn, 0);
  V r;
  if (to_16) {
    r = is_bf16 ? f32_to_bf16(&e, a) : f32_to_f16(&e, a);
    r = LLVMBuildTrunc(e.B, r, e.i16, "");
  } else {
    a = LLVMBuildZExt(e.B, a, e.i32, "");
    r = is_bf16 ? bf16_to_f32(&e, a) : f16_to_f32(&e, a);
  }
  return end_fn(&e, fn, r);
}
