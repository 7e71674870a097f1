/* divconst.c -- host JIT: f32 division by a constant without a division
 * (issue 59), the same bits as the division.
 *
 * For a constant c with r = RN(1/c), the routine computes
 *   q0 = x*r;  e = fma(-q0, c, x);  q = fma(e, r, q0)
 * for every x with T <= |x| < H, and x/c (the division itself) for the
 * others (zeros, subnormals, the huge, inf, NaN).  cg_divc_verdict decides
 * at compile time whether q == RN(x/c) for EVERY x in [T, H), by this
 * argument:
 *
 * Let E(v) be v's exponent, so r is in (2^(-E(c)-1), 2^-E(c)].
 *  - Below: for E(x) >= E(c) - 125, q0 = RN(x*r) >= 2^(E(x)-E(c)-1) is
 *    normal, and so are x/c and q (about q0).  e's exact value x - q0*c
 *    is a multiple of 2^(E(q0)-23+E(c)-23) (x is a multiple of
 *    2^(E(x)-23), coarser, as E(q0)+E(c) <= E(x)+1), and q0*c is within a
 *    factor 2 of x, so E(q0)+E(c) >= E(x)-1: a nonzero e has
 *    |e| >= 2^(E(x)-47), normal for E(x) >= -79.  T = 2^max(-77,
 *    E(c)-123) keeps a margin of 2 binades on both.
 *  - Above: x*r < 2^(E(x)+1-E(c)), so q0, q and x/c stay finite (and
 *    below 2^127) for E(x) <= E(c)+125: H = 2^min(128, E(c)+125).
 *  - So for |x| in [T, H) every operation's result is normal (or e's
 *    exact value is 0, and then e = 0 and q = q0 exactly for x and for
 *    x*2^k alike), and RN commutes with scaling by 2^k: the result for
 *    x*2^k is the result for x, scaled by 2^k, and so is RN(x/c).  Every
 *    such x is x'*2^k with |x'| in [1, 2), itself in [T, H) when
 *    -124 <= E(c) <= 123: checking the 2^23 significands of the binade
 *    [1, 2), both signs (RN is symmetric; both are checked anyway), proves
 *    every x in [T, H).
 * The check costs about 2^24 pairs of fmaf (~30-60 ms); the verdict is
 * kept per constant in the module (CgModule.divc).
 */
#include "codegen/cg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t fbits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static float bitsf(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The formula, as the routine's fast path computes it. */
static float divc_formula(float x, float c, float r) {
  float q0 = x * r;
  float e = fmaf(-q0, c, x);
  return fmaf(e, r, q0);
}

bool cg_divc_verdict(float c, bool no_bounds, float *lo, float *hi) {
  if (!isnormal(c)) return false;
  float r = 1.0f / c;
  if (!isnormal(r)) return false;
  int ec = ilogbf(c);
  if (ec < -124 || ec > 123) return false;
  for (uint32_t m = 0; m < (1u << 23); m++)
    for (uint32_t s = 0; s < 2; s++) {
      float x = bitsf(0x3f800000u | m | s << 31);
      if (fbits(divc_formula(x, c, r)) != fbits(x / c)) return false;
    }
  int tk = ec - 123 > -77 ? ec - 123 : -77;
  int hk = ec + 125 < 128 ? ec + 125 : 128;
  *lo = no_bounds ? 0.0f : ldexpf(1.0f, tk);
  *hi = no_bounds ? INFINITY : hk >= 128 ? INFINITY : ldexpf(1.0f, hk);
  return true;
}

/* The 128 binades [2^w, 2^(w+128)) inside [lo, hi) that the routine
   checks with one integer subtraction (divc_fn), w as near -64 as the
   range allows; false when [lo, hi) is narrower (then two compares). */
bool cg_divc_window(float lo, float hi, float *wlo, float *whi) {
  int tk = ilogbf(lo), hk = isinf(hi) ? 128 : ilogbf(hi);
  int w = hk - 128 < -64 ? hk - 128 : -64;
  if (w < tk) w = tk;
  if (w + 128 > hk) return false;
  *wlo = ldexpf(1.0f, w);
  *whi = w + 128 >= 128 ? INFINITY : ldexpf(1.0f, w + 128);
  return true;
}

typedef LLVMValueRef V;

/* The body of leir.divc.<bits>[.v8|.v16]: T <= |x| < H in every lane:
   the fma form, else the division (a branch, so that the common path has
   no division). */
static V divc_fn(LLVMModuleRef M, const char *name, unsigned n, float c, float lo, float hi, bool noinline) {
  LLVMContextRef C = LLVMGetModuleContext(M);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(C), i1 = LLVMInt1TypeInContext(C);
  LLVMTypeRef ty = n ? LLVMVectorType(f32, n) : f32;
  V fn = LLVMGetNamedFunction(M, name);
  if (fn) return fn;
  fn = LLVMAddFunction(M, name, LLVMFunctionType(ty, &ty, 1, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  static const char *const attrs[] = {"nounwind", "willreturn", "nosync", "nofree", "norecurse", "memory"};
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(C, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
  const char *il = noinline ? "noinline" : "inlinehint";
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(C, LLVMGetEnumAttributeKindForName(il, strlen(il)), 0));
  LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, fn, "entry");
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(C, fn, "fast");
  LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(C, fn, "slow");
  LLVMPositionBuilderAtEnd(B, entry);
  V x = LLVMGetParam(fn, 0);
  V k[5];
  float kv[5] = {c, 1.0f / c, lo, hi, 0};
  for (int j = 0; j < 4; j++) {
    V s = LLVMConstReal(f32, kv[j]), v[16];
    for (unsigned l = 0; l < n; l++)
      v[l] = s;
    k[j] = n ? LLVMConstVector(v, n) : s;
  }
  unsigned fabs_id = LLVMLookupIntrinsicID("llvm.fabs", 9), fma_id = LLVMLookupIntrinsicID("llvm.fma", 8);
  V fabs_fn = LLVMGetIntrinsicDeclaration(M, fabs_id, &ty, 1), fma_fn = LLVMGetIntrinsicDeclaration(M, fma_id, &ty, 1);
  LLVMTypeRef fabs_ty = LLVMIntrinsicGetType(C, fabs_id, &ty, 1), fma_ty = LLVMIntrinsicGetType(C, fma_id, &ty, 1);
  V bad;
  float wl, wh;
  if (cg_divc_window(lo, hi, &wl, &wh) && wl == lo && fbits(wh) == fbits(hi)) {
    /* [lo, hi) is 128 binades: with d = 2 * bits(x) (the sign shifted
       out) and L = 2 * bits(lo), d - L (mod 2^32) is below 2^31, its sign
       bit clear, exactly when lo <= |x| < hi (2 * bits(hi) = L + 2^31;
       NaN above) */
    LLVMTypeRef it = n ? LLVMVectorType(LLVMInt32TypeInContext(C), n) : LLVMInt32TypeInContext(C);
    V xb = LLVMBuildBitCast(B, x, it, "");
    V d = LLVMBuildAdd(B, xb, xb, "");
    V s = LLVMBuildSub(B, d, LLVMConstBitCast(k[2], it), "");
    s = LLVMBuildSub(B, s, LLVMConstBitCast(k[2], it), "");
    bad = LLVMBuildICmp(B, LLVMIntSLT, s, LLVMConstNull(it), "");
  } else {
    V a = LLVMBuildCall2(B, fabs_ty, fabs_fn, &x, 1, "");
    /* not (lo <= |x| < hi): unordered compares, true for NaN */
    bad = LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealULT, a, k[2], ""), LLVMBuildFCmp(B, LLVMRealUGE, a, k[3], ""), "");
  }
  if (n) {
    LLVMTypeRef vi1 = LLVMVectorType(i1, n);
    unsigned ro = LLVMLookupIntrinsicID("llvm.vector.reduce.or", 21);
    V rf = LLVMGetIntrinsicDeclaration(M, ro, &vi1, 1);
    bad = LLVMBuildCall2(B, LLVMIntrinsicGetType(C, ro, &vi1, 1), rf, &bad, 1, "");
  }
  LLVMBuildCondBr(B, bad, slow, fast);
  LLVMPositionBuilderAtEnd(B, fast);
  V q0 = LLVMBuildFMul(B, x, k[1], "");
  V a1[3] = {LLVMBuildFNeg(B, q0, ""), k[0], x};
  V e = LLVMBuildCall2(B, fma_ty, fma_fn, a1, 3, "");
  V a2[3] = {e, k[1], q0};
  LLVMBuildRet(B, LLVMBuildCall2(B, fma_ty, fma_fn, a2, 3, ""));
  LLVMPositionBuilderAtEnd(B, slow);
  LLVMBuildRet(B, LLVMBuildFDiv(B, x, k[0], ""));
  LLVMDisposeBuilder(B);
  return fn;
}

V cg_divc_emit(LLVMModuleRef M, float c, float lo, float hi, int lanes, bool noinline) {
  char name[48];
  uint32_t cb = fbits(c);
  if (!lanes) {
    snprintf(name, sizeof name, "leir.divc.%08x", (unsigned)cb);
    return divc_fn(M, name, 0, c, lo, hi, noinline);
  }
  snprintf(name, sizeof name, "leir.divc.%08x.v%d", (unsigned)cb, lanes);
  return divc_fn(M, name, (unsigned)lanes, c, lo, hi, false);
}

/* Host: a call of the routine dividing x by the f32 constant c, naming
   its vector variants, or NULL where the rewrite is not exact (keep the
   division).  The verdict is cached in m. */
V cg_divc_routine(CgModule *m, float c, float *lo, float *hi) {
  uint32_t cb = fbits(c);
  CgDivc *d = NULL;
  for (int i = 0; i < m->ndivc; i++)
    if (m->divc[i].bits == cb) d = &m->divc[i];
  if (!d) {
    if (m->ndivc == CG_DIVC_MAX) return NULL;
    d = &m->divc[m->ndivc++];
    d->bits = cb;
    d->exact = cg_divc_verdict(c, false, &d->lo, &d->hi);
  }
  if (!d->exact) return NULL;
  *lo = d->lo;
  *hi = d->hi;
  cg_divc_window(d->lo, d->hi, lo, hi);
  return cg_divc_emit(m->M, c, d->lo, d->hi, 0, true);
}
