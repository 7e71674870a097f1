/* divconst_test.c -- f32 division by a constant without a division
 * (codegen/divconst.c, issue 59): the routine leir.divc.<c> (scalar and 8
 * lanes), JIT-compiled on this machine, must give x/c's bits for every
 * input tried: every 257th f32 pattern, the specials, every f32 of the
 * binades around T (the lower bound of the proven range, [T/4, 4T)) and of
 * the top binades (near overflow of x*r), for several constants.  The
 * same routine forced over every x (no bounds) for c = 0.1f must differ
 * (q0 = x*r overflows below FLT_MAX): the check can fail.  Both the
 * proven range (two compares) and the 128-binade window the compiler uses
 * (one subtraction, cg_divc_window) are run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen/cg.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_err(LLVMErrorRef err) {
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    print_error("LLVM error: %s\n", msg);
    LLVMDisposeErrorMessage(msg);
    fail();
  }
}

static uint32_t fb(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

static float bf(uint32_t u) {
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* void NAME(const float *a, float *out, i64 n): out[i] = rt(a[i]), by
   vectors of `lanes` (0: scalar) */
static void add_loop(LLVMModuleRef M, const char *name, LLVMValueRef rt, unsigned lanes) {
  LLVMContextRef C = LLVMGetModuleContext(M);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(C, 0), i64 = LLVMInt64TypeInContext(C);
  LLVMTypeRef et = lanes ? LLVMVectorType(LLVMFloatTypeInContext(C), lanes) : LLVMFloatTypeInContext(C);
  LLVMValueRef w = LLVMAddFunction(M, name, LLVMFunctionType(LLVMVoidTypeInContext(C), (LLVMTypeRef[]){ptr, ptr, i64}, 3, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, w, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(C, w, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(C, w, "done");
  LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
  LLVMPositionBuilderAtEnd(B, entry);
  LLVMBuildBr(B, loop);
  LLVMPositionBuilderAtEnd(B, loop);
  LLVMValueRef i = LLVMBuildPhi(B, i64, "i");
  LLVMValueRef ld = LLVMBuildLoad2(B, et, LLVMBuildGEP2(B, et, LLVMGetParam(w, 0), &i, 1, ""), "");
  LLVMSetAlignment(ld, 4);
  LLVMValueRef r = LLVMBuildCall2(B, LLVMGlobalGetValueType(rt), rt, &ld, 1, "");
  LLVMValueRef st = LLVMBuildStore(B, r, LLVMBuildGEP2(B, et, LLVMGetParam(w, 1), &i, 1, ""));
  LLVMSetAlignment(st, 4);
  LLVMValueRef i1 = LLVMBuildAdd(B, i, LLVMConstInt(i64, 1, 0), "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i1, LLVMGetParam(w, 2), ""), loop, done);
  LLVMAddIncoming(i, (LLVMValueRef[]){LLVMConstInt(i64, 0, 0), i1}, (LLVMBasicBlockRef[]){entry, loop}, 2);
  LLVMPositionBuilderAtEnd(B, done);
  LLVMBuildRetVoid(B);
  LLVMDisposeBuilder(B);
}

typedef void (*LoopFn)(const float *, float *, int64_t);

/* The inputs: specials, every 257th pattern, every f32 (both signs) with
   |x| in [lo/4, 4 lo) and in [hi/4, min(4 hi, inf)); n a multiple of 8. */
static float *inputs(float lo, float hi, size_t *n) {
  static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX, 0x1p-149f, -0x1p-149f,
                             0x1p-126f, 0x1.fffffcp-127f, 1.0f, -1.0f, 3.0f, 0.1f, 1e30f, 1e-30f};
  uint32_t rl[2][2];
  uint32_t l0 = fb(lo > 0 ? lo / 4 : 0x1p-149f), h0 = fb(isinf(hi) ? 0x1p125f : hi / 4);
  rl[0][0] = l0, rl[0][1] = fb(lo > 0 ? lo * 4 : 0x1p-124f);
  rl[1][0] = h0, rl[1][1] = 0x7f800000u;
  if (rl[1][0] < rl[0][1]) rl[1][0] = rl[0][1];
  size_t cap = sizeof sp / sizeof *sp + 16711936 + 2 * (size_t)(rl[0][1] - rl[0][0]) + 2 * (size_t)(rl[1][1] - rl[1][0]) + 8;
  float *x = malloc(cap * sizeof *x);
  assert_non_null(x);
  size_t k = 0;
  for (size_t i = 0; i < sizeof sp / sizeof *sp; i++)
    x[k++] = sp[i];
  for (uint64_t u = 0; u < (1ull << 32); u += 257)
    x[k++] = bf((uint32_t)u);
  for (int r = 0; r < 2; r++)
    for (uint32_t u = rl[r][0]; u < rl[r][1]; u++) {
      x[k++] = bf(u);
      x[k++] = bf(u | 0x80000000u);
    }
  while (k % 8)
    x[k++] = 1.0f;
  *n = k;
  return x;
}

/* JIT the scalar and 8-lane routines for c over [lo, hi) and count the
   inputs whose result differs from x / c (scalar + vector). */
static long run_c(float c, float lo, float hi) {
  LLVMOrcThreadSafeContextRef TSC = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef C = LLVMOrcThreadSafeContextGetContext(TSC);
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("divc", C);
  LLVMValueRef s = cg_divc_emit(M, c, lo, hi, 0, false), v = cg_divc_emit(M, c, lo, hi, 8, false);
  assert_ptr_equal(cg_divc_emit(M, c, lo, hi, 8, false), v);
  add_loop(M, "t_s", s, 0);
  add_loop(M, "t_v8", v, 8);
  char *msg = NULL;
  assert_int_equal(LLVMVerifyModule(M, LLVMReturnStatusAction, &msg), 0);
  LLVMDisposeMessage(msg);
  LLVMOrcLLJITRef J;
  LLVMOrcJITTargetMachineBuilderRef JTMB;
  check_err(LLVMOrcJITTargetMachineBuilderDetectHost(&JTMB));
  LLVMOrcLLJITBuilderRef JB = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(JB, JTMB);
  check_err(LLVMOrcCreateLLJIT(&J, JB));
  LLVMOrcThreadSafeModuleRef TSM = LLVMOrcCreateNewThreadSafeModule(M, TSC);
  LLVMOrcDisposeThreadSafeContext(TSC);
  check_err(LLVMOrcLLJITAddLLVMIRModule(J, LLVMOrcLLJITGetMainJITDylib(J), TSM));
  LoopFn fn[2];
  for (int w = 0; w < 2; w++) {
    LLVMOrcExecutorAddress addr = 0;
    check_err(LLVMOrcLLJITLookup(J, &addr, w ? "t_v8" : "t_s"));
    void *p = (void *)(uintptr_t)addr;
    memcpy(&fn[w], &p, sizeof fn[w]);
  }
  size_t n;
  float *x = inputs(lo, hi, &n), *y = malloc(n * sizeof *y);
  assert_non_null(y);
  long bad = 0;
  for (int w = 0; w < 2; w++) {
    fn[w](x, y, (int64_t)(w ? n / 8 : n));
    for (size_t i = 0; i < n; i++) {
      float d = x[i] / c;
      if (fb(d) != fb(y[i]) && bad++ < 3)
        printf("  c %a %s: %a / c: routine %a (%#x), division %a (%#x)\n", (double)c, w ? "v8" : "scalar",
               (double)x[i], (double)y[i], (unsigned)fb(y[i]), (double)d, (unsigned)fb(d));
    }
  }
  free(x);
  free(y);
  check_err(LLVMOrcDisposeLLJIT(J));
  return bad;
}

static bool have_fma(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return true;
  printf("  (no AVX2/FMA: the routines are not run)\n");
  return false;
}

/* Every constant: the verdict (as expected), and where exact, the
   routine's bits == the division's on every input. */
static void test_constants(void **state) {
  (void)state;
  static const struct {
    float c;
    bool exact;
    float lo, hi;
  } cs[] = {
      {0x1.6a09e6p+0f, true, 0x1p-77f, 0x1p125f}, /* sqrtf(2) */
      {3.0f, true, 0x1p-77f, 0x1p126f},
      {0.1f, true, 0x1p-77f, 0x1p121f},
      {7.0f, true, 0x1p-77f, 0x1p127f},
      {1.0f / 3.0f, true, 0x1p-77f, 0x1p123f},
      {0x1.3a92f6p+5f, true, 0x1p-77f, INFINITY}, /* a random one */
      {-3.0f, true, 0x1p-77f, 0x1p126f},
      {1e30f, true, 0x1p-24f, INFINITY},
      {0x1p-130f, false, 0, 0}, /* subnormal: 1/c overflows */
      {0x1p100f, true, 0x1p-23f, INFINITY},
  };
  bool run = have_fma();
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    float lo = -1, hi = -1;
    bool ex = cg_divc_verdict(cs[i].c, false, &lo, &hi);
    printf("  c %a: %s [%a, %a)\n", (double)cs[i].c, ex ? "exact" : "division", (double)lo, (double)hi);
    assert_int_equal(ex, cs[i].exact);
    if (!ex) continue;
    assert_true(fb(lo) == fb(cs[i].lo) && fb(hi) == fb(cs[i].hi));
    if (run) assert_int_equal(run_c(cs[i].c, lo, hi), 0);
    /* the window the compiler uses: 128 binades, one subtraction */
    float wl, wh;
    assert_true(cg_divc_window(lo, hi, &wl, &wh));
    printf("    window [%a, %a)\n", (double)wl, (double)wh);
    assert_true(wl >= lo && (isinf(hi) || wh <= hi));
    assert_int_equal(ilogbf(wl) + 128, isinf(wh) ? 128 : ilogbf(wh));
    if (run) assert_int_equal(run_c(cs[i].c, wl, wh), 0);
  }
}

/* The fma form over every x for c = 0.1f (no fallback above H): it must
   differ from the division, which is why H exists. */
static void test_unbounded_differs(void **state) {
  (void)state;
  if (!have_fma()) return;
  float lo, hi;
  assert_true(cg_divc_verdict(0.1f, true, &lo, &hi));
  assert_true(lo == 0 && isinf(hi));
  long bad = run_c(0.1f, lo, hi);
  printf("  c 0.1f, no bounds: %ld differ\n", bad);
  assert_true(bad > 0);
}

int main(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constants),
      cmocka_unit_test(test_unbounded_differs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
