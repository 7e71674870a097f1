/* mathlib_emit_test.c -- the LLVM IR from codegen/mathlib_emit.c must give
 * bit-identical results to ir/mathlib.c (SPEC §13.3).
 *
 * Host: the routines are wrapped in loops, JIT-compiled with ORC LLJIT both
 * unoptimised and after the default<O3> pipeline (which inlines and
 * vectorises them), and compared with the C routines on ~100k inputs each.
 * NVPTX: the same module is compiled for sm_90; the PTX must contain the
 * wrappers, no more fma instructions than the IR asks for and only .rn
 * add/sub/mul (no contraction); when ptxas is found it must accept it.
 * The vector f32 erf (leir.erff.v8, v16): JIT-run where the CPU allows,
 * folded by LLVM for an AVX-512 CPU, the same bits as leir_erff.  The
 * f64 pow that branches (leir.pow.lazy and its vector variants leir.pow.v4,
 * v8, v16; no x86 intrinsics, so any x86-64 host runs them): JIT-run on
 * vectors that take each of its branches, the same bits as leir_pow in
 * every lane.  The f64 log's variants (leir.log.v4, v8, v16, a branch to
 * a shorter sequence for vectors of normal positive x; no x86 intrinsics)
 * likewise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mkstemps */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen/mathlib_emit.h"
#include "ir/mathlib.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_SAMPLES 100000

/* ------------------------------------------------------------ the cases */

typedef enum { T_F64, T_F32, T_U16 } ElemType;

typedef struct {
  const char *wrapper; /* external loop wrapper: void(a*, b*, out*, i64 n) */
  const char *which;   /* cg_math_get name, or NULL for the 16-bit helpers */
  ElemType in, out;
  int nargs;
  int bf16, to16, round; /* 16-bit helpers */
  int powi;              /* cg_math_get_powi_f32's n: leir_powf(x, n) */
} Case;

static const Case cases[] = {
    {"t_exp64", "exp", T_F64, T_F64, 1, 0, 0, 0, 0},
    {"t_log64", "log", T_F64, T_F64, 1, 0, 0, 0, 0},
    {"t_erf64", "erf", T_F64, T_F64, 1, 0, 0, 0, 0},
    {"t_pow64", "pow", T_F64, T_F64, 2, 0, 0, 0, 0},
    {"t_exp32", "exp", T_F32, T_F32, 1, 0, 0, 0, 0},
    {"t_log32", "log", T_F32, T_F32, 1, 0, 0, 0, 0},
    {"t_erf32", "erf", T_F32, T_F32, 1, 0, 0, 0, 0},
    {"t_pow32", "pow", T_F32, T_F32, 2, 0, 0, 0, 0},
    {"t_round_f16", NULL, T_F32, T_F32, 1, 0, 0, 1, 0},
    {"t_round_bf16", NULL, T_F32, T_F32, 1, 1, 0, 1, 0},
    {"t_to_f16", NULL, T_F32, T_U16, 1, 0, 1, 0, 0},
    {"t_to_bf16", NULL, T_F32, T_U16, 1, 1, 1, 0, 0},
    {"t_from_f16", NULL, T_U16, T_F32, 1, 0, 0, 0, 0},
    {"t_from_bf16", NULL, T_U16, T_F32, 1, 1, 0, 0, 0},
    {"t_powi_m6", NULL, T_F32, T_F32, 1, 0, 0, 0, -6},
    {"t_powi_m5", NULL, T_F32, T_F32, 1, 0, 0, 0, -5},
    {"t_powi_m4", NULL, T_F32, T_F32, 1, 0, 0, 0, -4},
    {"t_powi_m3", NULL, T_F32, T_F32, 1, 0, 0, 0, -3},
    {"t_powi_m2", NULL, T_F32, T_F32, 1, 0, 0, 0, -2},
    {"t_powi_m1", NULL, T_F32, T_F32, 1, 0, 0, 0, -1},
    {"t_powi_1", NULL, T_F32, T_F32, 1, 0, 0, 0, 1},
    {"t_powi_2", NULL, T_F32, T_F32, 1, 0, 0, 0, 2},
    {"t_powi_3", NULL, T_F32, T_F32, 1, 0, 0, 0, 3},
    {"t_powi_4", NULL, T_F32, T_F32, 1, 0, 0, 0, 4},
    {"t_powi_5", NULL, T_F32, T_F32, 1, 0, 0, 0, 5},
    {"t_powi_6", NULL, T_F32, T_F32, 1, 0, 0, 0, 6},
};
#define N_CASES (sizeof cases / sizeof *cases)

static size_t elem_size(ElemType t) { return t == T_F64 ? 8 : t == T_F32 ? 4 : 2; }

/* the C reference for case c on element i */
static void ref_eval(const Case *c, const void *a, const void *b, void *out, size_t i) {
  const double *ad = a, *bd = b;
  const float *af = a, *bf = b;
  const uint16_t *ah = a;
  if (c->powi) {
    ((float *)out)[i] = leir_powf(af[i], (float)c->powi);
  } else if (c->in == T_F64) {
    double *o = out;
    switch (c->which[0]) {
    case 'e': o[i] = c->which[1] == 'x' ? leir_exp(ad[i]) : leir_erf(ad[i]); break;
    case 'l': o[i] = leir_log(ad[i]); break;
    default: o[i] = leir_pow(ad[i], bd[i]); break;
    }
  } else if (c->which) {
    float *o = out;
    switch (c->which[0]) {
    case 'e': o[i] = c->which[1] == 'x' ? leir_expf(af[i]) : leir_erff(af[i]); break;
    case 'l': o[i] = leir_logf(af[i]); break;
    default: o[i] = leir_powf(af[i], bf[i]); break;
    }
  } else if (c->round) {
    ((float *)out)[i] = c->bf16 ? leir_round_bf16(af[i]) : leir_round_f16(af[i]);
  } else if (c->to16) {
    ((uint16_t *)out)[i] = c->bf16 ? leir_f32_to_bf16(af[i]) : leir_f32_to_f16(af[i]);
  } else {
    ((float *)out)[i] = c->bf16 ? leir_bf16_to_f32(ah[i]) : leir_f16_to_f32(ah[i]);
  }
}

/* ------------------------------------------------------------- inputs */

static uint64_t next_rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double uni(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * ((double)(next_rand(s) >> 11) * 0x1p-53);
}

static double bits_d(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static const double specials[] = {
    0.0,      -0.0,     1.0,        -1.0,    0.5,        -0.5,    2.0,
    -2.0,     3.0,      -3.0,       1.0 / 3, INFINITY,   -INFINITY, NAN,
    -NAN,     DBL_MIN,  DBL_TRUE_MIN, DBL_MAX, -DBL_MAX, FLT_MIN, FLT_TRUE_MIN,
    FLT_MAX,  709.78,   709.7827128933840, 710.0, -745.1332191019411, -746.0,
    -708.4,   88.72,    -103.97,    6.0,     5.9,        1.0 - 0x1p-53,
    1.0 + 0x1p-52, 64.0, 65.0,     -64.0,   0.25,       1e-300,  1e300,
    0x1p-1074, 0x1p1023, 1e-20,    -1e-20,  100.5,      -7.0,
    -104.0,   -0x1.a00002p+6, -0x1.9fcp+6, /* f32 exp's EXPF_LO, just below, just above */
};
#define N_SPECIALS (sizeof specials / sizeof *specials)

/* an interesting double: special, random bits, or from a few ranges */
static double sample(uint64_t *s, size_t i) {
  if (i < N_SPECIALS)
    return specials[i];
  switch (next_rand(s) % 6) {
  case 0: return bits_d(next_rand(s));
  case 1: return uni(s, -8.0, 8.0);
  case 2: return uni(s, -800.0, 800.0);
  case 3: return ldexp(uni(s, -2.0, 2.0), (int)(next_rand(s) % 200) - 100);
  case 4: return (double)((int)(next_rand(s) % 141) - 70);
  default: return uni(s, 0.0, 3.0);
  }
}

static void fill(const Case *c, void *a, void *b, size_t n) {
  uint64_t s = 12345;
  for (size_t i = 0; i < n; i++) {
    if (c->in == T_U16) {
      ((uint16_t *)a)[i] = (uint16_t)i; /* every pattern */
      continue;
    }
    double x = sample(&s, i % 2 ? i / 2 : i); /* a few specials twice */
    double y = c->nargs == 2 ? sample(&s, (i * 7) % (N_SPECIALS * 3)) : 0.0;
    if (c->nargs == 2 && i >= N_SPECIALS * N_SPECIALS && next_rand(&s) % 2) {
      x = ldexp(uni(&s, -2.0, 2.0), (int)(next_rand(&s) % 40) - 20);
      y = uni(&s, -60.0, 60.0);
      if (next_rand(&s) % 4 == 0) /* an integer: pow's integer path or its neighbours */
        y = (double)((int)(next_rand(&s) % 17) - 8);
      else if (next_rand(&s) % 8 == 0) /* powf's square root */
        y = 0.5;
    } else if (c->nargs == 2 && i < N_SPECIALS * N_SPECIALS) {
      x = specials[i / N_SPECIALS];
      y = specials[i % N_SPECIALS];
    }
    if (c->in == T_F64) {
      ((double *)a)[i] = x;
      ((double *)b)[i] = y;
    } else {
      float fx = (float)x, fy = (float)y;
      if (c->powi && i >= 2 * N_SPECIALS && i % 2) { /* any f32 pattern */
        uint32_t u = (uint32_t)next_rand(&s);
        memcpy(&fx, &u, sizeof fx);
      } else if (!c->which && !c->powi && i % 3 == 0) { /* random f32 patterns near f16 range */
        uint32_t u = (uint32_t)next_rand(&s);
        u = (u & 0x83ffffffu) | ((uint32_t)(0x30 + next_rand(&s) % 0x18) << 23);
        memcpy(&fx, &u, sizeof fx);
      }
      ((float *)a)[i] = fx;
      ((float *)b)[i] = fy;
    }
  }
}

/* ---------------------------------------------------------- the module */

static LLVMTypeRef elem_type(LLVMContextRef C, ElemType t) {
  return t == T_F64 ? LLVMDoubleTypeInContext(C)
         : t == T_F32 ? LLVMFloatTypeInContext(C)
                      : LLVMInt16TypeInContext(C);
}

static LLVMValueRef case_fn(LLVMModuleRef M, const Case *c) {
  LLVMContextRef C = LLVMGetModuleContext(M);
  if (c->powi)
    return cg_math_get_powi_f32(M, c->powi);
  if (c->which)
    return cg_math_get(M, c->which, elem_type(C, c->in));
  if (c->round)
    return cg_math_get_round16(M, c->bf16);
  return cg_math_get_cvt16(M, c->bf16, c->to16);
}

/* void wrapper(a*, b*, out*, i64 n): out[i] = fn(a[i] [, b[i]]), n >= 1 */
static void add_wrapper(LLVMModuleRef M, const Case *c) {
  LLVMContextRef C = LLVMGetModuleContext(M);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(C, 0), i64 = LLVMInt64TypeInContext(C);
  LLVMTypeRef ps[4] = {ptr, ptr, ptr, i64};
  LLVMValueRef w = LLVMAddFunction(M, c->wrapper,
                                   LLVMFunctionType(LLVMVoidTypeInContext(C), ps, 4, 0));
  LLVMValueRef fn = case_fn(M, c);
  assert_non_null(fn);
  LLVMTypeRef tin = elem_type(C, c->in), tout = elem_type(C, c->out);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, w, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(C, w, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(C, w, "done");
  LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
  LLVMPositionBuilderAtEnd(B, entry);
  LLVMBuildBr(B, loop);
  LLVMPositionBuilderAtEnd(B, loop);
  LLVMValueRef i = LLVMBuildPhi(B, i64, "i");
  LLVMValueRef args[2];
  for (int k = 0; k < c->nargs; k++) {
    LLVMValueRef p = LLVMBuildGEP2(B, tin, LLVMGetParam(w, (unsigned)k), &i, 1, "");
    args[k] = LLVMBuildLoad2(B, tin, p, "");
  }
  LLVMValueRef r =
      LLVMBuildCall2(B, LLVMGlobalGetValueType(fn), fn, args, (unsigned)c->nargs, "");
  LLVMBuildStore(B, r, LLVMBuildGEP2(B, tout, LLVMGetParam(w, 2), &i, 1, ""));
  LLVMValueRef i1 = LLVMBuildAdd(B, i, LLVMConstInt(i64, 1, 0), "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i1, LLVMGetParam(w, 3), ""), loop, done);
  LLVMValueRef inc[2] = {LLVMConstInt(i64, 0, 0), i1};
  LLVMBasicBlockRef from[2] = {entry, loop};
  LLVMAddIncoming(i, inc, from, 2);
  LLVMPositionBuilderAtEnd(B, done);
  LLVMBuildRetVoid(B);
  LLVMDisposeBuilder(B);
}

/* with_powi: also the constant-power cases (test_ptx leaves them out: with
   constant operands LLVM folds some of their fmas, and it counts fmas) */
static LLVMModuleRef build_module(LLVMContextRef C, bool with_powi) {
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("mathlib_emit_test", C);
  for (size_t k = 0; k < N_CASES; k++)
    if (with_powi || !cases[k].powi)
      add_wrapper(M, &cases[k]);
  char *msg = NULL;
  if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) {
    print_error("invalid module: %s\n", msg);
    fail();
  }
  LLVMDisposeMessage(msg);
  return M;
}

/* ---------------------------------------------------------------- JIT */

static void check_err(LLVMErrorRef err) {
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    print_error("LLVM error: %s\n", msg);
    LLVMDisposeErrorMessage(msg);
    fail();
  }
}

static void optimise(LLVMModuleRef M) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures();
  LLVMTargetRef T;
  char *msg = NULL;
  assert_int_equal(LLVMGetTargetFromTriple(triple, &T, &msg), 0);
  LLVMTargetMachineRef TM =
      LLVMCreateTargetMachine(T, triple, cpu, feat, LLVMCodeGenLevelAggressive,
                              LLVMRelocDefault, LLVMCodeModelJITDefault);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  check_err(LLVMRunPasses(M, "default<O3>", TM, opts));
  LLVMDisposePassBuilderOptions(opts);
  LLVMDisposeTargetMachine(TM);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(feat);
}

typedef void (*WrapFn)(const void *, const void *, void *, int64_t);

static int compare_case(const Case *c, WrapFn fn, const char *label) {
  size_t n = c->in == T_U16 ? 65536 : N_SAMPLES;
  size_t ie = elem_size(c->in), oe = elem_size(c->out);
  unsigned char *a = calloc(n, ie), *b = calloc(n, ie);
  unsigned char *o1 = calloc(n, oe), *o2 = calloc(n, oe);
  assert_true(a && b && o1 && o2);
  fill(c, a, b, n);
  fn(a, b, o1, (int64_t)n);
  for (size_t i = 0; i < n; i++)
    ref_eval(c, a, b, o2, i);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; i++) {
    if (memcmp(o1 + i * oe, o2 + i * oe, oe) == 0)
      continue;
    double x = c->in == T_F64 ? ((double *)a)[i] : c->in == T_F32 ? ((float *)a)[i] : 0;
    double y = c->in == T_F64 ? ((double *)b)[i] : c->in == T_F32 ? ((float *)b)[i] : 0;
    uint64_t r1 = 0, r2 = 0;
    memcpy(&r1, o1 + i * oe, oe);
    memcpy(&r2, o2 + i * oe, oe);
    print_error("%s %s: input %a %a: jit %#llx, C %#llx\n", label, c->wrapper, x, y,
                (unsigned long long)r1, (unsigned long long)r2);
    bad++;
  }
  free(a);
  free(b);
  free(o1);
  free(o2);
  return bad;
}

static void run_jit(int opt) {
  LLVMOrcThreadSafeContextRef TSC = LLVMOrcCreateNewThreadSafeContext();
  LLVMModuleRef M = build_module(LLVMOrcThreadSafeContextGetContext(TSC), true);
  if (opt)
    optimise(M);
  LLVMOrcLLJITRef J;
  check_err(LLVMOrcCreateLLJIT(&J, NULL));
  LLVMOrcThreadSafeModuleRef TSM = LLVMOrcCreateNewThreadSafeModule(M, TSC);
  LLVMOrcDisposeThreadSafeContext(TSC);
  check_err(LLVMOrcLLJITAddLLVMIRModule(J, LLVMOrcLLJITGetMainJITDylib(J), TSM));
  int bad = 0;
  for (size_t k = 0; k < N_CASES; k++) {
    LLVMOrcExecutorAddress addr = 0;
    check_err(LLVMOrcLLJITLookup(J, &addr, cases[k].wrapper));
    WrapFn fn;
    void *p = (void *)(uintptr_t)addr;
    memcpy(&fn, &p, sizeof fn);
    bad += compare_case(&cases[k], fn, opt ? "O3" : "O0");
  }
  check_err(LLVMOrcDisposeLLJIT(J));
  assert_int_equal(bad, 0);
}

static void test_jit_plain(void **state) {
  (void)state;
  run_jit(0);
}

static void test_jit_optimised(void **state) {
  (void)state;
  run_jit(1);
}

/* -------------------------------------------------------------- NVPTX */

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* M's assembly for TM as a NUL-terminated string (malloc'd; *len its
   length); what names the output in the failure message */
static char *emit_asm(LLVMTargetMachineRef TM, LLVMModuleRef M, const char *what, size_t *len) {
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(TM, M, LLVMAssemblyFile, &msg, &buf)) {
    print_error("%s: %s\n", what, msg);
    fail();
  }
  *len = LLVMGetBufferSize(buf);
  char *s = malloc(*len + 1);
  assert_non_null(s);
  memcpy(s, LLVMGetBufferStart(buf), *len);
  s[*len] = 0;
  LLVMDisposeMemoryBuffer(buf);
  return s;
}

static size_t count_ir_fma(LLVMModuleRef M) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
        if (LLVMGetInstructionOpcode(in) != LLVMCall)
          continue;
        size_t len;
        const char *name = LLVMGetValueName2(LLVMGetCalledValue(in), &len);
        n += len >= 8 && strncmp(name, "llvm.fma", 8) == 0;
      }
  return n;
}

static const char *find_ptxas(void) {
  static const char *const paths[] = {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas",
                                      "/usr/local/bin/ptxas"};
  for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
    if (access(paths[i], X_OK) == 0)
      return paths[i];
  return NULL;
}

static void run_ptxas(const char *ptx, size_t len) {
  const char *ptxas = find_ptxas();
  if (!ptxas)
    return; /* optional */
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char path[512], cmd[1200];
  snprintf(path, sizeof path, "%s/mathlib_emit_test_XXXXXX.ptx", dir);
  int fd = mkstemps(path, 4);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, ptx, len), (ssize_t)len);
  close(fd);
  snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -c -o /dev/null %s", ptxas, path);
  int rc = system(cmd);
  unlink(path);
  assert_int_equal(rc, 0);
}

static void test_ptx(void **state) {
  (void)state;
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  const char *triple = "nvptx64-nvidia-cuda";
  LLVMTargetRef T;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &T, &msg)) {
    print_error("no NVPTX target: %s\n", msg);
    fail();
  }
  LLVMTargetMachineRef TM =
      LLVMCreateTargetMachine(T, triple, "sm_90", "+ptx78", LLVMCodeGenLevelDefault,
                              LLVMRelocDefault, LLVMCodeModelDefault);
  LLVMContextRef C = LLVMContextCreate();
  LLVMModuleRef M = build_module(C, false);
  LLVMSetTarget(M, triple);
  LLVMTargetDataRef DL = LLVMCreateTargetDataLayout(TM);
  LLVMSetModuleDataLayout(M, DL);
  size_t ir_fma = count_ir_fma(M);
  size_t len;
  char *ptx = emit_asm(TM, M, "PTX emission failed", &len);
  assert_non_null(strstr(ptx, ".func t_pow64"));
  assert_non_null(strstr(ptx, ".func t_round_bf16"));
  assert_true(ir_fma > 0);
  /* the back end may turn fma(x, 1, y) into x + y, never add an fma */
  assert_true(count(ptx, "fma.rn.") <= ir_fma);
  assert_true(count(ptx, "fma.rn.") >= ir_fma * 9 / 10);
  assert_int_equal(count(ptx, "mad."), 0);
  static const char *const contractible[] = {"add.f32", "add.f64", "sub.f32",
                                             "sub.f64", "mul.f32", "mul.f64"};
  for (size_t i = 0; i < sizeof contractible / sizeof *contractible; i++)
    assert_int_equal(count(ptx, contractible[i]), 0);
  run_ptxas(ptx, len);
  free(ptx);
  LLVMDisposeTargetData(DL);
  LLVMDisposeModule(M);
  LLVMContextDispose(C);
  LLVMDisposeTargetMachine(TM);
}

/* ------------------------------------------------- vector f32 erf */

/* f32 patterns for the vector routines (leir.erff.v8/v16, leir.expf.v8/v16):
   specials (erf's interval ends; exp's clamps, overflow and underflow
   thresholds and vfixupimmps's bound 256; sNaNs), then every STRIDE-th
   pattern from an offset */
static void erf_inputs(float *x, size_t n, uint32_t stride, uint32_t off) {
  static const uint32_t sp[] = {
      0x00000000, 0x80000000, 0x3f4ccccd, 0xbf4ccccd, 0x3fcccccd, 0x4019999a, 0xc019999a, 0x40800000,
      0xc0800000, 0x407f5c29, 0x00000001, 0x3f4ccccc, 0x3fcccccc, 0x40199999, 0x7f800000, 0xff800000,
      0x7fc00000, 0xffc00000, 0x7f7fffff, 0x1e3ce508, /* 1e-20 */
      0x7f800001, 0xff800001, 0x7fa00000, 0xff7fffff, 0x42b20000, 0xc2d00000, 0x42b20001, 0xc2d00001,
      0x42b1ffff, 0xc2cfffff, 0x42b17218, 0x42b17217, 0xc2aeac50, 0xc2aeac4f, 0xc2cff1b5, 0xc2cff1b4,
      0xc2d0a3d7, 0x42b22222, 0x437fffff, 0x43800000, 0xc37fffff, 0xc3800000, 0x43800001, 0xc3800001,
      0x3f317218, 0xbf317218, 0x4e800000, 0xce800000, 0x4b000000, 0xcb000000};
  size_t ns = sizeof sp / sizeof *sp;
  for (size_t i = 0; i < n; i++) {
    uint32_t u = i < ns ? sp[i] : (uint32_t)(off + (uint64_t)i * stride);
    memcpy(&x[i], &u, sizeof u);
  }
}

static unsigned bits_f(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

static int vec_differ(const float *x, const float *y, size_t n, const char *label, float (*ref)(float)) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    float r = ref(x[i]);
    if (memcmp(&r, &y[i], sizeof r) != 0 && bad++ < 5)
      print_error("%s(%a): vector %a (%#x), C %a (%#x)\n", label, (double)x[i], (double)y[i], bits_f(y[i]),
                  (double)r, bits_f(r));
  }
  return bad;
}

static int erf_differ(const float *x, const float *y, size_t n, const char *label) {
  return vec_differ(x, y, n, label, leir_erff);
}

/* The vector routine get(M, lanes) JIT-compiled on this machine,
   unoptimised, on every 257th f32 pattern and the specials (every pattern
   with LEIR_MATHLIB_FULL=1 in the environment: about a minute a routine);
   returns how many results differ from ref's bits.  lanes = 1: get's
   routine is the scalar float(float) one (get(M, 4) NULL all the same). */
static int vec_jit(LLVMValueRef (*get)(LLVMModuleRef, int), int lanes, float (*ref)(float), const char *label) {
  LLVMOrcThreadSafeContextRef TSC = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef C = LLVMOrcThreadSafeContextGetContext(TSC);
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("vec_jit", C);
  LLVMValueRef vf = get(M, lanes);
  assert_non_null(vf);
  assert_null(get(M, 4));
  /* void t_vec(const float *a, float *out, i64 nvec) */
  LLVMTypeRef ptr = LLVMPointerTypeInContext(C, 0), i64 = LLVMInt64TypeInContext(C);
  LLVMTypeRef vt = lanes == 1 ? LLVMFloatTypeInContext(C) : LLVMVectorType(LLVMFloatTypeInContext(C), (unsigned)lanes);
  LLVMValueRef w = LLVMAddFunction(M, "t_vec",
                                   LLVMFunctionType(LLVMVoidTypeInContext(C), (LLVMTypeRef[]){ptr, ptr, i64}, 3, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, w, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(C, w, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(C, w, "done");
  LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
  LLVMPositionBuilderAtEnd(B, entry);
  LLVMBuildBr(B, loop);
  LLVMPositionBuilderAtEnd(B, loop);
  LLVMValueRef i = LLVMBuildPhi(B, i64, "i");
  LLVMValueRef ld = LLVMBuildLoad2(B, vt, LLVMBuildGEP2(B, vt, LLVMGetParam(w, 0), &i, 1, ""), "");
  LLVMSetAlignment(ld, 4);
  LLVMValueRef r = LLVMBuildCall2(B, LLVMGlobalGetValueType(vf), vf, &ld, 1, "");
  LLVMValueRef st = LLVMBuildStore(B, r, LLVMBuildGEP2(B, vt, LLVMGetParam(w, 1), &i, 1, ""));
  LLVMSetAlignment(st, 4);
  LLVMValueRef i1 = LLVMBuildAdd(B, i, LLVMConstInt(i64, 1, 0), "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i1, LLVMGetParam(w, 2), ""), loop, done);
  LLVMAddIncoming(i, (LLVMValueRef[]){LLVMConstInt(i64, 0, 0), i1}, (LLVMBasicBlockRef[]){entry, loop}, 2);
  LLVMPositionBuilderAtEnd(B, done);
  LLVMBuildRetVoid(B);
  LLVMDisposeBuilder(B);
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
  LLVMOrcExecutorAddress addr = 0;
  check_err(LLVMOrcLLJITLookup(J, &addr, "t_vec"));
  void (*fn)(const float *, float *, int64_t);
  void *p = (void *)(uintptr_t)addr;
  memcpy(&fn, &p, sizeof fn);
  const char *full = getenv("LEIR_MATHLIB_FULL");
  bool all = full && !strcmp(full, "1");
  size_t n = 16711936; /* ceil(2^32 / 257), a multiple of 16; all: 256 chunks of 2^24 */
  float *x = malloc(((size_t)1 << 24) * sizeof *x), *y = malloc(((size_t)1 << 24) * sizeof *y);
  assert_true(x && y);
  int bad = 0;
  for (uint32_t chunk = 0; chunk < (all ? 256u : 1u); chunk++) {
    if (all) {
      n = (size_t)1 << 24;
      for (size_t k = 0; k < n; k++) {
        uint32_t u = (chunk << 24) | (uint32_t)k;
        memcpy(&x[k], &u, sizeof u);
      }
    } else {
      erf_inputs(x, n, 257, 0);
    }
    fn(x, y, (int64_t)(n / (size_t)lanes));
    bad += vec_differ(x, y, n, label, ref);
  }
  if (all)
    printf("  %s: all 2^32 f32 patterns, %d differ\n", label, bad);
  free(x);
  free(y);
  check_err(LLVMOrcDisposeLLJIT(J));
  return bad;
}

static bool have_avx512(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
}

/* the scalar leir.expf and leir.erff as vec_jit's get for lanes = 1 (the
   host's scalar calls and, the same IR, NVPTX's) */
static LLVMValueRef expf_scalar(LLVMModuleRef M, int lanes) {
  return lanes == 1 ? cg_math_get(M, "exp", LLVMFloatTypeInContext(LLVMGetModuleContext(M))) : NULL;
}
static LLVMValueRef erff_scalar(LLVMModuleRef M, int lanes) {
  return lanes == 1 ? cg_math_get(M, "erf", LLVMFloatTypeInContext(LLVMGetModuleContext(M))) : NULL;
}

/* leir.expf and leir.erff (scalar) JIT-compiled on this machine: the same
   bits as leir_expf, leir_erff on vec_jit's inputs (every 257th pattern
   and the specials; all 2^32 with LEIR_MATHLIB_FULL=1; test_jit_plain
   has ~100k) */
static void test_scalar_f32_jit(void **state) {
  (void)state;
  int bad = vec_jit(expf_scalar, 1, leir_expf, "leir.expf (JIT)");
  bad += vec_jit(erff_scalar, 1, leir_erff, "leir.erff (JIT)");
  assert_int_equal(bad, 0);
}

/* leir.erff.v8 and leir.expf.v8 JIT-compiled on this machine (AVX2 and
   FMA): the same bits as leir_erff, leir_expf */
static void test_erff_v8_jit(void **state) {
  (void)state;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    printf("  (no AVX2/FMA: leir.erff.v8, leir.expf.v8 not run)\n");
    return;
  }
  int bad = vec_jit(cg_math_get_erff_vec, 8, leir_erff, "leir.erff.v8 (JIT)");
  bad += vec_jit(cg_math_get_expf_vec, 8, leir_expf, "leir.expf.v8 (JIT)");
  assert_int_equal(bad, 0);
}

/* leir.erff.v16 and leir.expf.v16 (vscalefps, vfixupimmps) JIT-compiled
   on this machine when it has AVX-512F: the same bits as leir_erff,
   leir_expf.  Without AVX-512 (the machines the CI runs on need not have
   it) leir.expf.v16 is only compiled for skylake-avx512 (which must
   succeed and use those instructions); leir.erff.v16 is also checked by
   LLVM's folding (test_erff_vec_avx512). */
static void test_vec16_avx512(void **state) {
  (void)state;
  if (have_avx512()) {
    int bad = vec_jit(cg_math_get_erff_vec, 16, leir_erff, "leir.erff.v16 (JIT)");
    bad += vec_jit(cg_math_get_expf_vec, 16, leir_expf, "leir.expf.v16 (JIT)");
    assert_int_equal(bad, 0);
    return;
  }
  printf("  (no AVX-512F: leir.erff.v16, leir.expf.v16 not run, compiled only)\n");
  const char *triple = "x86_64-pc-linux-gnu";
  LLVMTargetRef T;
  char *msg = NULL;
  assert_int_equal(LLVMGetTargetFromTriple(triple, &T, &msg), 0);
  LLVMTargetMachineRef TM = LLVMCreateTargetMachine(T, triple, "skylake-avx512", "", LLVMCodeGenLevelAggressive,
                                                    LLVMRelocPIC, LLVMCodeModelDefault);
  LLVMContextRef C = LLVMContextCreate();
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("expf_v16", C);
  LLVMSetTarget(M, triple);
  LLVMValueRef vf = cg_math_get_expf_vec(M, 16);
  assert_non_null(vf);
  LLVMSetLinkage(vf, LLVMExternalLinkage);
  assert_int_equal(LLVMVerifyModule(M, LLVMReturnStatusAction, &msg), 0);
  LLVMDisposeMessage(msg);
  size_t len;
  char *as = emit_asm(TM, M, "AVX-512 assembly", &len);
  assert_non_null(strstr(as, "vscalefps"));
  assert_non_null(strstr(as, "vfixupimmps"));
  free(as);
  LLVMDisposeModule(M);
  LLVMContextDispose(C);
  LLVMDisposeTargetMachine(TM);
}

/* leir.erff.v16 (and v8) for an AVX-512 CPU, which this machine need not
   have: the module is compiled to an object for x86-64 skylake-avx512
   (must succeed), and each variant's value on constant inputs is computed
   by LLVM's own folding of the intrinsics (default<O3> for that CPU turns
   permps / permvar with a constant index into a shuffle and folds the rest):
   it must be leir_erff's, lane by lane. */
#define ERF_FOLD_VECS 64
static void test_erff_vec_avx512(void **state) {
  (void)state;
  const char *triple = "x86_64-pc-linux-gnu";
  LLVMTargetRef T;
  char *msg = NULL;
  assert_int_equal(LLVMGetTargetFromTriple(triple, &T, &msg), 0);
  LLVMTargetMachineRef TM = LLVMCreateTargetMachine(T, triple, "skylake-avx512", "", LLVMCodeGenLevelAggressive,
                                                    LLVMRelocPIC, LLVMCodeModelDefault);
  LLVMContextRef C = LLVMContextCreate();
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("erff_vec", C);
  LLVMSetTarget(M, triple);
  LLVMTargetDataRef DL = LLVMCreateTargetDataLayout(TM);
  LLVMSetModuleDataLayout(M, DL);
  LLVMTypeRef f = LLVMFloatTypeInContext(C);
  static float x[2][ERF_FOLD_VECS * 16];
  for (int w = 0; w < 2; w++) {
    unsigned lanes = w ? 16 : 8;
    LLVMValueRef vf = cg_math_get_erff_vec(M, (int)lanes);
    assert_non_null(vf);
    assert_ptr_equal(cg_math_get_erff_vec(M, (int)lanes), vf);
    LLVMTypeRef vi = LLVMVectorType(LLVMInt32TypeInContext(C), lanes); /* the bits: sNaNs exact */
    erf_inputs(x[w], ERF_FOLD_VECS * lanes, w ? 4194301u : 8388593u, w ? 12345u : 777u);
    for (int k = 0; k < ERF_FOLD_VECS; k++) {
      char name[32];
      snprintf(name, sizeof name, "fold%u_%d", lanes, k);
      LLVMValueRef g = LLVMAddFunction(M, name, LLVMFunctionType(vi, NULL, 0, 0));
      LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
      LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(C, g, "entry"));
      LLVMValueRef el[16];
      for (unsigned l = 0; l < lanes; l++)
        el[l] = LLVMConstInt(LLVMInt32TypeInContext(C), bits_f(x[w][(size_t)k * lanes + l]), 0);
      LLVMValueRef in = LLVMConstBitCast(LLVMConstVector(el, lanes), LLVMVectorType(f, lanes)); /* sNaNs exact */
      LLVMBuildRet(B, LLVMBuildBitCast(B, LLVMBuildCall2(B, LLVMGlobalGetValueType(vf), vf, &in, 1, ""), vi, ""));
      LLVMDisposeBuilder(B);
    }
  }
  assert_int_equal(LLVMVerifyModule(M, LLVMReturnStatusAction, &msg), 0);
  LLVMDisposeMessage(msg);
  LLVMMemoryBufferRef obj = NULL;
  LLVMModuleRef M2 = LLVMCloneModule(M);
  if (LLVMTargetMachineEmitToMemoryBuffer(TM, M2, LLVMObjectFile, &msg, &obj)) {
    print_error("AVX-512 object: %s\n", msg);
    fail();
  }
  assert_true(LLVMGetBufferSize(obj) > 0);
  LLVMDisposeMemoryBuffer(obj);
  LLVMDisposeModule(M2);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  check_err(LLVMRunPasses(M, "default<O3>", TM, opts));
  LLVMDisposePassBuilderOptions(opts);
  int bad = 0;
  for (int w = 0; w < 2; w++) {
    unsigned lanes = w ? 16 : 8;
    float y[ERF_FOLD_VECS * 16];
    for (int k = 0; k < ERF_FOLD_VECS; k++) {
      char name[32];
      snprintf(name, sizeof name, "fold%u_%d", lanes, k);
      LLVMValueRef g = LLVMGetNamedFunction(M, name);
      assert_non_null(g);
      LLVMValueRef ret = LLVMGetBasicBlockTerminator(LLVMGetEntryBasicBlock(g));
      LLVMValueRef v = LLVMGetOperand(ret, 0);
      if (!LLVMIsConstant(v)) {
        print_error("%s not folded to a constant\n", name);
        fail();
      }
      for (unsigned l = 0; l < lanes; l++) {
        LLVMValueRef c = LLVMGetAggregateElement(v, l);
        assert_non_null(c);
        if (LLVMIsUndef(c) || LLVMIsPoison(c)) {
          print_error("%s lane %u: undef/poison\n", name, l);
          fail();
        }
        uint32_t u = (uint32_t)LLVMConstIntGetZExtValue(c);
        memcpy(&y[(size_t)k * lanes + l], &u, sizeof u);
      }
    }
    bad += erf_differ(x[w], y, ERF_FOLD_VECS * lanes, w ? "leir.erff.v16 (folded, avx512)" : "leir.erff.v8 (folded)");
  }
  LLVMDisposeModule(M);
  LLVMDisposeTargetData(DL);
  LLVMContextDispose(C);
  LLVMDisposeTargetMachine(TM);
  assert_int_equal(bad, 0);
}

/* ------------------------------------------------- vector f64 pow */

/* Inputs for leir.pow.v<L>, vector by vector (L lanes): pow's specials
   crossed both ways (a vector of one x and many y, and of one y, 2.0 or
   -3.0 say, and many x: 0, inf, NaN, DBL_MAX in lanes of integer powers),
   then random vectors of the kinds that choose its branches: no integer
   exponent; every exponent an integer with |y| <= 64 (results in range;
   one lane out of range; one lane with x = +-0, inf or NaN); one integer
   lane among others; one other lane among integers; anything; each kind
   with some x < 0 and with every x > 0 (no lane for the specials). */
static void pow_inputs(double *x, double *y, size_t n, unsigned lanes) {
  uint64_t s = 4242;
  const size_t ns = N_SPECIALS, grid = ns * ns;
  static const double odd[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN};
  for (size_t i = 0; i < n; i++) {
    if (i < grid) {
      x[i] = specials[i / ns], y[i] = specials[i % ns];
      continue;
    }
    if (i < 2 * grid) {
      x[i] = specials[(i - grid) % ns], y[i] = specials[(i - grid) / ns];
      continue;
    }
    size_t v = (i - 2 * grid) / lanes, lane = (i - 2 * grid) % lanes;
    unsigned pick = (unsigned)((v * 2654435761u) >> 7) % lanes; /* the odd lane of the vector */
    int kind = (int)(v % 7);
    double xi = ldexp(uni(&s, 0.5, 2.0), (int)(next_rand(&s) % 21) - 10);
    if (v / 7 % 2 && next_rand(&s) % 4 == 0) /* half the vectors all x > 0: no special lane */
      xi = -xi;
    double yn = uni(&s, -60.0, 60.0), yi = (double)((int)(next_rand(&s) % 129) - 64);
    switch (kind) {
    case 0: x[i] = xi, y[i] = yn; break;
    case 1: x[i] = xi, y[i] = yi; break;
    case 2: x[i] = lane == pick ? 1e300 : xi, y[i] = lane == pick ? 64.0 : yi; break;
    case 3: x[i] = lane == pick ? odd[v / 7 % 6] : xi, y[i] = yi; break;
    case 4: x[i] = xi, y[i] = lane == pick ? yi : yn; break;
    case 5: x[i] = xi, y[i] = lane == pick ? yn : yi; break;
    default: x[i] = sample(&s, ns + 1), y[i] = sample(&s, ns + 1); break;
    }
  }
}

/* ------------------------------------------------- vector f64 log */

/* Inputs for leir.log.v<L>, vector by vector (L lanes): the specials, then
   vectors of normal positive finite x (the branch to the short sequence:
   random bits of any exponent, x near 1, near sqrt 2 (m's halving), at the
   ends 2^-1022 and DBL_MAX), and such vectors with one odd lane (0, -0,
   a subnormal, 2^-1022 less an ulp, a negative x, inf, -inf, NaN, -NaN: the
   vector takes leir_log's own operations). */
static void log_inputs(double *x, double *y, size_t n, unsigned lanes) {
  (void)y;
  uint64_t s = 4343;
  static const double odd[] = {0.0, -0.0, 0x1p-1074, 0x1.ffffffffffffep-1023, -3.0, INFINITY, -INFINITY, NAN, -NAN};
  for (size_t i = 0; i < n; i++) {
    if (i < N_SPECIALS) {
      x[i] = specials[i];
      continue;
    }
    size_t v = (i - N_SPECIALS) / lanes, lane = (i - N_SPECIALS) % lanes;
    unsigned pick = (unsigned)((v * 2654435761u) >> 7) % lanes;
    double xi;
    switch (next_rand(&s) % 6) {
    case 0: xi = bits_d(next_rand(&s) % 0x7fe0000000000000ull + 0x0010000000000000ull); break;
    case 1: xi = uni(&s, 0.99, 1.01); break;
    case 2: xi = ldexp(0x1.6a09e667f3bcdp+0 + (double)((int)(next_rand(&s) % 9) - 4) * 0x1p-52, (int)(next_rand(&s) % 41) - 20); break;
    case 3: xi = next_rand(&s) % 2 ? DBL_MIN : DBL_MAX; break;
    case 4: xi = ldexp(uni(&s, 0.5, 2.0), (int)(next_rand(&s) % 2044) - 1021); break;
    default: xi = uni(&s, 0.0, 1000.0) + DBL_MIN; break;
    }
    x[i] = v % 3 == 2 && lane == pick ? odd[v / 3 % (sizeof odd / sizeof *odd)] : xi;
  }
}

static double log_ref(double x, double y) {
  (void)y;
  return leir_log(x);
}

/* the variants of an f64 routine, get(M, lanes) for lanes in lanes_of[],
   JIT-compiled on this machine (unoptimised, and after default<O3>), each
   lane bit for bit ref's on inputs() (nargs arguments) */
static void run_f64_vec(int opt, LLVMValueRef (*get)(LLVMModuleRef, int), const unsigned *lanes_of, size_t nl,
                        unsigned nargs, void (*inputs)(double *, double *, size_t, unsigned),
                        double (*ref)(double, double)) {
  LLVMOrcThreadSafeContextRef TSC = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef C = LLVMOrcThreadSafeContextGetContext(TSC);
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("f64_vec", C);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(C, 0), i64 = LLVMInt64TypeInContext(C);
  assert_null(get(M, 2));
  for (size_t li = 0; li < nl; li++) {
    unsigned lanes = lanes_of[li];
    LLVMValueRef vf = get(M, (int)lanes);
    assert_non_null(vf);
    assert_ptr_equal(get(M, (int)lanes), vf);
    /* void t_v<L>(const double *x, const double *y, double *out, i64 nvec) */
    LLVMTypeRef vd = lanes == 1 ? LLVMDoubleTypeInContext(C) : LLVMVectorType(LLVMDoubleTypeInContext(C), lanes);
    char name[32];
    snprintf(name, sizeof name, "t_v%u", lanes);
    LLVMValueRef w =
        LLVMAddFunction(M, name, LLVMFunctionType(LLVMVoidTypeInContext(C), (LLVMTypeRef[]){ptr, ptr, ptr, i64}, 4, 0));
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, w, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(C, w, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(C, w, "done");
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMPositionBuilderAtEnd(B, entry);
    LLVMBuildBr(B, loop);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef i = LLVMBuildPhi(B, i64, "i");
    LLVMValueRef args[2];
    for (unsigned a = 0; a < nargs; a++) {
      args[a] = LLVMBuildLoad2(B, vd, LLVMBuildGEP2(B, vd, LLVMGetParam(w, a), &i, 1, ""), "");
      LLVMSetAlignment(args[a], 8);
    }
    LLVMValueRef r = LLVMBuildCall2(B, LLVMGlobalGetValueType(vf), vf, args, nargs, "");
    LLVMSetAlignment(LLVMBuildStore(B, r, LLVMBuildGEP2(B, vd, LLVMGetParam(w, 2), &i, 1, "")), 8);
    LLVMValueRef i1 = LLVMBuildAdd(B, i, LLVMConstInt(i64, 1, 0), "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i1, LLVMGetParam(w, 3), ""), loop, done);
    LLVMAddIncoming(i, (LLVMValueRef[]){LLVMConstInt(i64, 0, 0), i1}, (LLVMBasicBlockRef[]){entry, loop}, 2);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMBuildRetVoid(B);
    LLVMDisposeBuilder(B);
  }
  char *msg = NULL;
  assert_int_equal(LLVMVerifyModule(M, LLVMReturnStatusAction, &msg), 0);
  LLVMDisposeMessage(msg);
  if (opt)
    optimise(M);
  LLVMOrcLLJITRef J;
  LLVMOrcJITTargetMachineBuilderRef JTMB;
  check_err(LLVMOrcJITTargetMachineBuilderDetectHost(&JTMB));
  LLVMOrcLLJITBuilderRef JB = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(JB, JTMB);
  check_err(LLVMOrcCreateLLJIT(&J, JB));
  LLVMOrcThreadSafeModuleRef TSM = LLVMOrcCreateNewThreadSafeModule(M, TSC);
  LLVMOrcDisposeThreadSafeContext(TSC);
  check_err(LLVMOrcLLJITAddLLVMIRModule(J, LLVMOrcLLJITGetMainJITDylib(J), TSM));
  size_t n = 2 * N_SPECIALS * N_SPECIALS + 16 * 7 * 64; /* a multiple of 16 */
  n = (n + 15) / 16 * 16;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *o = malloc(n * sizeof *o);
  assert_true(x && y && o);
  int bad = 0;
  for (size_t li = 0; li < nl; li++) {
    unsigned lanes = lanes_of[li];
    char name[32];
    snprintf(name, sizeof name, "t_v%u", lanes);
    LLVMOrcExecutorAddress addr = 0;
    check_err(LLVMOrcLLJITLookup(J, &addr, name));
    void (*fn)(const double *, const double *, double *, int64_t);
    void *p = (void *)(uintptr_t)addr;
    memcpy(&fn, &p, sizeof fn);
    inputs(x, y, n, lanes);
    fn(x, y, o, (int64_t)(n / lanes));
    for (size_t k = 0; k < n; k++) {
      double r = ref(x[k], y[k]);
      if (memcmp(&r, &o[k], sizeof r) != 0 && bad++ < 5)
        print_error("%s (%s): (%a, %a) element %zu: vector %a, C %a\n", name, opt ? "O3" : "O0", x[k],
                    nargs > 1 ? y[k] : 0.0, k, o[k], r);
    }
  }
  free(x);
  free(y);
  free(o);
  check_err(LLVMOrcDisposeLLJIT(J));
  assert_int_equal(bad, 0);
}

/* leir.pow.lazy (scalar) and its variants leir.pow.v4, v8 and v16, each
   lane bit for bit leir_pow's */
static const unsigned pow_lanes[] = {1, 4, 8, 16};
static void test_pow_vec(void **state) {
  (void)state;
  for (int opt = 0; opt < 2; opt++)
    run_f64_vec(opt, cg_math_get_pow_vec, pow_lanes, 4, 2, pow_inputs, leir_pow);
}

/* leir.log.v4, v8 and v16, each lane bit for bit leir_log's */
static const unsigned log_lanes[] = {4, 8, 16};
static void test_log_vec(void **state) {
  (void)state;
  for (int opt = 0; opt < 2; opt++)
    run_f64_vec(opt, cg_math_get_log_vec, log_lanes, 3, 1, log_inputs, log_ref);
}

/* ------------------------------------------------------------ getters */

static void test_getters(void **state) {
  (void)state;
  LLVMContextRef C = LLVMContextCreate();
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("g", C);
  LLVMTypeRef f = LLVMFloatTypeInContext(C), d = LLVMDoubleTypeInContext(C);
  LLVMValueRef pf = cg_math_get(M, "pow", f);
  assert_non_null(pf);
  assert_ptr_equal(cg_math_get(M, "pow", f), pf);
  assert_null(LLVMGetNamedFunction(M, "leir.pow")); /* f32 pow: a routine of its own */
  LLVMValueRef pd = cg_math_get(M, "pow", d);
  assert_ptr_equal(pd, LLVMGetNamedFunction(M, "leir.pow"));
  assert_ptr_equal(cg_math_get(M, "pow", d), pd);
  assert_int_equal(LLVMGetLinkage(pf), LLVMInternalLinkage);
  assert_ptr_equal(cg_math_get_round16(M, 1), cg_math_get_round16(M, 1));
  assert_ptr_equal(cg_math_get_cvt16(M, 0, 1), cg_math_get_cvt16(M, 0, 1));
  assert_null(cg_math_get(M, "sin", d));
  assert_null(cg_math_get(M, "exp", LLVMInt32TypeInContext(C)));
  char *msg = NULL;
  assert_int_equal(LLVMVerifyModule(M, LLVMReturnStatusAction, &msg), 0);
  LLVMDisposeMessage(msg);
  LLVMDisposeModule(M);
  LLVMContextDispose(C);
}

int main(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_getters),
      cmocka_unit_test(test_jit_plain),
      cmocka_unit_test(test_jit_optimised),
      cmocka_unit_test(test_ptx),
      cmocka_unit_test(test_scalar_f32_jit),
      cmocka_unit_test(test_erff_v8_jit),
      cmocka_unit_test(test_erff_vec_avx512),
      cmocka_unit_test(test_vec16_avx512),
      cmocka_unit_test(test_pow_vec),
      cmocka_unit_test(test_log_vec),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
