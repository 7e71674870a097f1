/* kernel.c -- one LLVM function per top-level nest (SPEC §13.2 item 1):
 *
 *   NVPTX:  void leir_k<i>(ptr addrspace(1) T..., i64 host_loop...)   (kernel)
 *   host:   void leir_k<i>(ptr T..., i64 lo, i64 hi, ptr err)         (internal)
 *           void leir_k<i>_entry(ptr bufs, i64 lo, i64 hi, ptr err)   (called by host.c)
 *
 * T... are the global tensors the nest touches, by ascending tensor id
 * (the plan's ARGS order); on the host `bufs` is indexed by tensor id.
 * Also the module-level pieces: shared arrays, target set-up, the pipeline.
 */
#include "codegen/cg.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

/* An attribute this LLVM may not know (nocapture became captures(none) in
 * LLVM 21): then it is simply not added. */
static void add_attr(CgModule *m, LLVMValueRef fn, unsigned idx, const char *name, uint64_t val) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  if (kind) LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(m->C, kind, val));
}

static void add_str_attr(CgModule *m, LLVMValueRef fn, const char *k, const char *v) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(m->C, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

/* IEEE arithmetic: no flush to zero, no unsafe math, no contraction. */
static void fp_attrs(CgModule *m, LLVMValueRef fn) {
  add_str_attr(m, fn, "denormal-fp-math", "ieee,ieee");
  add_str_attr(m, fn, "denormal-fp-math-f32", "ieee,ieee");
  add_str_attr(m, fn, "unsafe-fp-math", "false");
  add_str_attr(m, fn, "no-infs-fp-math", "false");
  add_str_attr(m, fn, "no-nans-fp-math", "false");
  add_attr(m, fn, LLVMAttributeFunctionIndex, "nounwind", 0);
}

/* Does kernel k write tensor id anywhere? */
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

static LLVMValueRef kernel_decl(CgModule *m, const CgKernel *k) {
  bool nvptx = m->target == CG_TARGET_NVPTX;
  int nextra = nvptx ? k->nhost : 2;
  int np = k->ntens + nextra + !nvptx;
  LLVMTypeRef *ps = calloc((size_t)np + 1, sizeof *ps);
  for (int i = 0; i < k->ntens; i++) ps[i] = m->ptrg;
  for (int i = 0; i < nextra; i++) ps[k->ntens + i] = m->i64;
  if (!nvptx) ps[np - 1] = m->ptr0; /* the out-of-bounds record */
  LLVMValueRef fn = LLVMAddFunction(m->M, k->name, LLVMFunctionType(m->vd, ps, (unsigned)np, 0));
  free(ps);
  fp_attrs(m, fn);
  for (int i = 0; i < k->ntens; i++) {
    const IrTensor *t = m->p->tensors[k->tens[i]];
    WriteScan w = {t->id, false};
    write_scan(k->nest, &w);
    add_attr(m, fn, (unsigned)i + 1, "noalias", 0);
    add_attr(m, fn, (unsigned)i + 1, "nocapture", 0);
    /* device allocations are 256-byte aligned; host buffers at least by element */
    add_attr(m, fn, (unsigned)i + 1, "align", nvptx ? 16 : (uint64_t)ir_dtype_size(t->dtype));
    if (!w.written) add_attr(m, fn, (unsigned)i + 1, "readonly", 0);
    LLVMSetValueName2(LLVMGetParam(fn, (unsigned)i), t->name, strlen(t->name));
  }
  if (nvptx) cg_nvptx_mark_kernel(m, fn);
  else LLVMSetLinkage(fn, LLVMInternalLinkage);
  return fn;
}

/* NVPTX: the value of every hardware-bound loop and the spread guard. */
static void bind_hardware(CgFn *f) {
  CgModule *m = f->m;
  const CgKernel *k = f->k;
  LLVMBuilderRef B = m->B;
  LLVMValueRef guard = NULL;
  for (int a = 0; a < 6; a++) {
    const IrLoop *l = k->hw[a];
    if (!l) continue;
    LLVMValueRef v = cg_nvptx_sreg(f, a < 3 ? "tid" : "ctaid", a % 3);
    if (a < 3 && k->spread[a]) {
      LLVMValueRef blk = cg_nvptx_sreg(f, "ctaid", a);
      v = LLVMBuildAdd(B, LLVMBuildMul(B, blk, cg_i64(m, k->block[a]), ""), v, "");
      LLVMValueRef in = LLVMBuildICmp(B, LLVMIntSLT, v, cg_i64(m, l->extent), "");
      guard = guard ? LLVMBuildAnd(B, guard, in, "") : in;
    }
    cg_bind(f, l, v);
  }
  if (!guard) return;
  LLVMBasicBlockRef body = cg_block(f, "body"), out = cg_block(f, "out");
  LLVMBuildCondBr(B, guard, body, out);
  LLVMPositionBuilderAtEnd(B, out);
  LLVMBuildRetVoid(B);
  LLVMPositionBuilderAtEnd(B, body);
}

static void shared_arrays(CgModule *m) {
  for (int i = 0; i < m->p->ntensors; i++) {
    CgTensorInfo *ti = &m->plan->t[i];
    if (ti->place != PL_SHARED) continue;
    const IrTensor *t = m->p->tensors[i];
    LLVMTypeRef at = LLVMArrayType2(cg_mem_type(m, t->dtype), (uint64_t)ti->numel);
    char name[64];
    snprintf(name, sizeof name, "leir_s_%s", t->name);
    ti->gvar = LLVMAddGlobalInAddressSpace(m->M, at, name, 3);
    LLVMSetInitializer(ti->gvar, LLVMGetUndef(at));
    LLVMSetLinkage(ti->gvar, LLVMInternalLinkage);
    LLVMSetAlignment(ti->gvar, 16);
  }
}

static LLVMValueRef scratch_array(CgModule *m, const CgKernel *k) {
  LLVMTypeRef at = LLVMArrayType2(m->i8, (uint64_t)k->scratch_bytes);
  char name[64];
  snprintf(name, sizeof name, "%s_scratch", k->name);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m->M, at, name, 3);
  LLVMSetInitializer(g, LLVMGetUndef(at));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 16);
  return g;
}

static void lower_kernel(CgModule *m, const CgKernel *k) {
  LLVMValueRef fn = kernel_decl(m, k);
  CgFn f;
  memset(&f, 0, sizeof f);
  f.m = m;
  f.k = k;
  f.fn = fn;
  f.entry = cg_block(&f, "entry");
  f.tptr = calloc((size_t)m->p->ntensors + 1, sizeof *f.tptr);
  LLVMPositionBuilderAtEnd(m->B, f.entry);
  for (int i = 0; i < k->ntens; i++) f.tptr[k->tens[i]] = LLVMGetParam(fn, (unsigned)i);
  for (int i = 0; i < m->p->ntensors; i++) {
    const CgTensorInfo *ti = &m->plan->t[i];
    if (ti->place == PL_SHARED) f.tptr[i] = ti->gvar;
    else if (ti->place == PL_LOCAL && ti->kernel == k->index)
      f.tptr[i] = cg_alloca(&f, cg_mem_type(m, m->p->tensors[i]->dtype), ti->numel, m->p->tensors[i]->name);
  }
  int start = 0;
  if (m->target == CG_TARGET_NVPTX) {
    for (int h = 0; h < k->nhost; h++) cg_bind(&f, k->nest->loops[h], LLVMGetParam(fn, (unsigned)(k->ntens + h)));
    start = k->nhost;
    m->scratch = k->nred ? scratch_array(m, k) : NULL;
    bind_hardware(&f);
    f.barrier_last = true; /* nothing before the kernel's start to wait for */
  } else {
    f.lo = LLVMGetParam(fn, (unsigned)k->ntens);
    f.hi = LLVMGetParam(fn, (unsigned)k->ntens + 1);
    f.err = LLVMGetParam(fn, (unsigned)k->ntens + 2);
  }
  cg_lower_loops(&f, k->nest, start);
  LLVMBuildRetVoid(m->B);
  free(f.tptr);
}

/* host: leir_k<i>_entry(ptr bufs, i64 lo, i64 hi, ptr err) */
static void host_entry(CgModule *m, const CgKernel *k) {
  LLVMValueRef inner = LLVMGetNamedFunction(m->M, k->name);
  LLVMTypeRef ps[4] = {m->ptr0, m->i64, m->i64, m->ptr0};
  char name[64];
  snprintf(name, sizeof name, "%s_entry", k->name);
  LLVMValueRef fn = LLVMAddFunction(m->M, name, LLVMFunctionType(m->vd, ps, 4, 0));
  fp_attrs(m, fn);
  LLVMBuilderRef B = m->B;
  LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(m->C, fn, "entry"));
  int n = k->ntens + 3;
  LLVMValueRef *args = calloc((size_t)n, sizeof *args);
  for (int i = 0; i < k->ntens; i++) {
    LLVMValueRef idx = cg_i64(m, k->tens[i]);
    LLVMValueRef slot = LLVMBuildInBoundsGEP2(B, m->ptr0, LLVMGetParam(fn, 0), &idx, 1, "");
    args[i] = LLVMBuildLoad2(B, m->ptr0, slot, m->p->tensors[k->tens[i]]->name);
  }
  args[k->ntens] = LLVMGetParam(fn, 1);
  args[k->ntens + 1] = LLVMGetParam(fn, 2);
  args[k->ntens + 2] = LLVMGetParam(fn, 3);
  LLVMBuildCall2(B, LLVMGlobalGetValueType(inner), inner, args, (unsigned)n, "");
  LLVMBuildRetVoid(B);
  free(args);
}

bool cg_lower_program(CgModule *m) {
  shared_arrays(m);
  for (int i = 0; i < m->plan->nkernels; i++) lower_kernel(m, &m->plan->k[i]);
  if (m->target == CG_TARGET_HOST)
    for (int i = 0; i < m->plan->nkernels; i++) host_entry(m, &m->plan->k[i]);
  char *msg = NULL;
  if (LLVMVerifyModule(m->M, LLVMReturnStatusAction, &msg)) {
    diag_error(m->ctx, (IrLoc){0, 0}, "internal compiler error: invalid LLVM IR: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return false;
  }
  LLVMDisposeMessage(msg);
  return true;
}

/* Host, after the vectoriser (issue 59): the f32 erf's, the f32 exp's,
 * the f64 pow's and log's call sites name their vector variants (lower.c
 * vector_call), and the scalar leir.erff, leir.expf, leir.pow.lazy and
 * leir.log stayed calls so that the vectoriser could see them.  Now every copy is to be
 * inlined: llvm.compiler.used (which kept the variants) goes, and the
 * routines and their variants become alwaysinline.  True when the module
 * has them (then the caller runs always-inline and a cleanup). */
static bool inline_math(CgModule *m) {
  LLVMValueRef used = LLVMGetNamedGlobal(m->M, "llvm.compiler.used");
  if (!used) return false;
  LLVMDeleteGlobal(used);
  unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
  static const char *const names[] = {"leir.erff", "leir.erff.v8", "leir.erff.v16",
                                      "leir.expf", "leir.expf.v8", "leir.expf.v16",
                                      "leir.pow.lazy", "leir.pow.v4", "leir.pow.v8", "leir.pow.v16",
                                      "leir.log", "leir.log.v4", "leir.log.v8", "leir.log.v16"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    LLVMValueRef fn = LLVMGetNamedFunction(m->M, names[i]);
    if (!fn) continue;
    LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, ni);
    add_attr(m, fn, LLVMAttributeFunctionIndex, "alwaysinline", 0);
  }
  return true;
}

bool cg_optimize(CgModule *m, LLVMTargetMachineRef tm, int level) {
  if (level <= 0) return true;
  char pipeline[256];
  /* host: the loops in canonical form first, so that the unroll-and-jam
     hints of lower_loops.c (jam_count) can be honoured, then the usual pipeline */
  snprintf(pipeline, sizeof pipeline, "%sdefault<O%d>",
           m->target == CG_TARGET_HOST
               ? "function(sroa,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa,loop-mssa(loop-rotate,licm),"
                 "loop(loop-unroll-and-jam)),"
               : "",
           level > 3 ? 3 : level);
  /* Host (issue 41):
     - with AVX-512, 512-bit vectors, which LLVM prefers on AMD's Zen cores
       but not on Intel's (256: the clock drop of older cores); Sapphire
       Rapids' packed SGEMM ran at 46 GFLOP/s with 256-bit vectors, 81 with
       512 (bench/sgemm.sh).  The order of every operation stays as it was:
       the bits do not depend on the width.
     - no loop becomes a call of memcpy, memmove or memset (LLVM's loop
       idioms): the vectorised loop stores inline where the call paid its
       dispatch for every padded row (Max_Pooling_1D spent a third of its
       time in 512-byte memmoves; Average_Pooling_1D and
       Tall_skinny_matrix_multiplication 1.2x faster without). */
  if (m->target == CG_TARGET_HOST)
    for (LLVMValueRef fn = LLVMGetFirstFunction(m->M); fn; fn = LLVMGetNextFunction(fn)) {
      if (!LLVMCountBasicBlocks(fn)) continue;
      if (m->vec512) add_str_attr(m, fn, "prefer-vector-width", "512");
      add_str_attr(m, fn, "no-builtin-memcpy", "");
      add_str_attr(m, fn, "no-builtin-memmove", "");
      add_str_attr(m, fn, "no-builtin-memset", "");
    }
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, 1);
  LLVMErrorRef err = LLVMRunPasses(m->M, pipeline, tm, po);
  if (!err && m->target == CG_TARGET_HOST && inline_math(m))
    err = LLVMRunPasses(m->M, "always-inline,globaldce,function(instcombine<no-verify-fixpoint>,loop-mssa(licm),simplifycfg)",
                        tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    diag_error(m->ctx, (IrLoc){0, 0}, "internal compiler error: LLVM pipeline: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return false;
  }
  return true;
}

/* LLVM's own diagnostics: optimisation remarks and warnings (e.g. a loop
 * hint it could not honour) are not the user's business; errors are ours. */
static void llvm_diag(LLVMDiagnosticInfoRef di, void *user) {
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError) return;
  char *msg = LLVMGetDiagInfoDescription(di);
  diag_error((LeirCtx *)user, (IrLoc){0, 0}, "internal compiler error: LLVM: %s", msg);
  LLVMDisposeMessage(msg);
}

bool cg_host_avx512(LLVMTargetMachineRef tm) {
  char *feat = LLVMGetTargetMachineFeatureString(tm);
  bool avx512 = feat && strstr(feat, "+avx512f") && !strstr(feat, "-evex512");
  LLVMDisposeMessage(feat);
  return avx512;
}

/* Is +NAME a whole item of the comma-separated feature string feat? */
static bool has_feature(const char *feat, const char *name) {
  size_t n = strlen(name);
  for (const char *p = feat; p && (p = strstr(p, name)); p += n)
    if (p > feat && p[-1] == '+' && (p == feat + 1 || p[-2] == ',') && (p[n] == ',' || !p[n])) return true;
  return false;
}

int cg_host_math_lanes(LLVMTargetMachineRef tm) {
  char *feat = LLVMGetTargetMachineFeatureString(tm);
  bool fma = has_feature(feat, "fma"), avx2 = has_feature(feat, "avx2");
  LLVMDisposeMessage(feat);
  return !fma ? 0 : cg_host_avx512(tm) ? 16 : avx2 ? 8 : 0;
}

int cg_jam_bytes(LLVMTargetMachineRef tm) {
  char *feat = LLVMGetTargetMachineFeatureString(tm);
  bool avx512 = cg_host_avx512(tm), avx = feat && strstr(feat, "+avx");
  LLVMDisposeMessage(feat);
  int regs = avx512 ? 32 : 16, bytes = avx512 ? 64 : avx ? 32 : 16;
  return regs / 2 * bytes;
}

/* An empty module for tm's target triple and data layout. */
static LLVMModuleRef new_module(LLVMContextRef C, LLVMTargetMachineRef tm) {
  LLVMModuleRef M = LLVMModuleCreateWithNameInContext("leir", C);
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(M, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(M, dl);
  LLVMDisposeTargetData(dl);
  return M;
}

/* What a host module's lowering takes from the target machine: the
 * unroll-and-jam budget, 512-bit vectors, and the lanes of the explicit
 * vector math routines (erf, exp, pow; optimised code only).  One place, for the whole-program
 * module and for the kernel modules of the JIT cache (host_cache.c). */
static void host_features(CgModule *m, const CgOptions *o, LLVMTargetMachineRef tm) {
  m->jam_bytes = cg_jam_bytes(tm);
  m->vec512 = cg_host_avx512(tm);
  if (o->opt_level > 0) m->math_lanes = cg_host_math_lanes(tm);
}

bool cg_build_module(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, LLVMContextRef C,
                     LLVMTargetMachineRef tm, CgPlan *plan, LLVMModuleRef *out_m) {
  LLVMContextSetDiagnosticHandler(C, llvm_diag, ctx);
  int errors = ctx->nerrors;
  if (o->target == CG_TARGET_HOST) p = cg_fuse_nests(ctx, p); /* issue 41 */
  if (!cg_plan_build(ctx, p, o->target, plan) || ctx->nerrors > errors) return false;
  LLVMModuleRef M = new_module(C, tm);
  CgModule m;
  cg_module_init(&m, ctx, p, o, plan, C, M);
  if (o->target == CG_TARGET_HOST) host_features(&m, o, tm);
  bool ok = cg_lower_program(&m) && cg_optimize(&m, tm, o->opt_level);
  cg_module_dispose_builder(&m);
  if (!ok) {
    LLVMDisposeModule(M);
    return false;
  }
  *out_m = M;
  return true;
}

bool cg_lower_kernel_module(CgModule *m, LeirCtx *ctx, const IrProgram *fp, const CgOptions *o, CgPlan *plan,
                            const CgKernel *k, LLVMContextRef C, LLVMTargetMachineRef tm) {
  LLVMContextSetDiagnosticHandler(C, llvm_diag, ctx);
  LLVMModuleRef M = new_module(C, tm);
  cg_module_init(m, ctx, fp, o, plan, C, M);
  host_features(m, o, tm);
  lower_kernel(m, k);
  host_entry(m, k);
  char *msg = NULL;
  if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) {
    diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: invalid LLVM IR: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    cg_module_dispose_builder(m);
    LLVMDisposeModule(M);
    m->M = NULL;
    return false;
  }
  LLVMDisposeMessage(msg);
  return true;
}

void cg_options_init(CgOptions *o) {
  memset(o, 0, sizeof *o);
  o->target = CG_TARGET_NVPTX;
  o->gpu_sm = 90;
  o->opt_level = 2;
}

bool cg_emit_llvm(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, SBuf *out) {
  LLVMTargetMachineRef tm = o->target == CG_TARGET_NVPTX ? cg_nvptx_machine(ctx, o->gpu_sm, o->opt_level)
                                                         : cg_host_machine(ctx, o->opt_level, false);
  if (!tm) return false;
  LLVMContextRef C = LLVMContextCreate();
  CgPlan plan;
  LLVMModuleRef M = NULL;
  bool ok = cg_build_module(ctx, p, o, C, tm, &plan, &M);
  if (ok) {
    char *s = LLVMPrintModuleToString(M);
    sbuf_puts(out, s);
    LLVMDisposeMessage(s);
    LLVMDisposeModule(M);
  }
  LLVMContextDispose(C);
  LLVMDisposeTargetMachine(tm);
  return ok;
}
