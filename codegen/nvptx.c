/* nvptx.c -- the NVPTX target layer: architecture and PTX ISA, the target
 * machine, special registers, barriers, kernel marking, PTX text. */
#include "codegen/cg.h"

#include <pthread.h>
#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Architectures this LLVM can target, with the lowest PTX ISA each needs. */
static const struct {
  int sm, ptx, llvm;
} archs[] = {
    {70, 60, 17}, {72, 61, 17}, {75, 63, 17}, {80, 70, 17}, {86, 71, 17},
    {87, 74, 17}, {89, 78, 17}, {90, 78, 17}, {100, 86, 20}, {101, 86, 20},
    {120, 87, 20},
};
#define NARCHS (sizeof archs / sizeof archs[0])

int cg_ptx_isa_for_sm(int sm) {
  for (size_t i = 0; i < NARCHS; i++)
    if (archs[i].sm == sm) return archs[i].ptx;
  return 0;
}

bool cg_parse_gpu_arch(const char *s, int *sm, char *err, size_t errlen) {
  char list[256] = "";
  size_t used = 0;
  for (size_t i = 0; i < NARCHS && used < sizeof list; i++)
    if (archs[i].llvm <= LEIR_LLVM_MAJOR)
      used += (size_t)snprintf(list + used, sizeof list - used, "%ssm_%d", used ? ", " : "", archs[i].sm);
  int v = 0, n = 0;
  if (sscanf(s, "sm_%d%n", &v, &n) == 1 && s[n] == '\0' && s[3] >= '0' && s[3] <= '9')
    for (size_t i = 0; i < NARCHS; i++)
      if (archs[i].sm == v && archs[i].llvm <= LEIR_LLVM_MAJOR) {
        *sm = v;
        return true;
      }
  snprintf(err, errlen, "unsupported GPU architecture '%s' (leirc supports sm_70 and newer: %s)", s, list);
  return false;
}

static void init_nvptx(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

LLVMTargetMachineRef cg_nvptx_machine(LeirCtx *ctx, int sm, int opt_level) {
  static pthread_once_t once = PTHREAD_ONCE_INIT; /* LLVM's registry is process-wide */
  pthread_once(&once, init_nvptx);
  const char *triple = "nvptx64-nvidia-cuda";
  LLVMTargetRef t = NULL;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &t, &msg)) {
    diag_error(ctx, (IrLoc){0, 0}, "the NVPTX target is not available: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return NULL;
  }
  char cpu[16], feat[16];
  snprintf(cpu, sizeof cpu, "sm_%d", sm);
  snprintf(feat, sizeof feat, "+ptx%d", cg_ptx_isa_for_sm(sm));
  LLVMCodeGenOptLevel lvl = opt_level <= 0 ? LLVMCodeGenLevelNone : LLVMCodeGenLevelDefault;
  return LLVMCreateTargetMachine(t, triple, cpu, feat, lvl, LLVMRelocDefault, LLVMCodeModelDefault);
}

static LLVMValueRef call_intrinsic(CgFn *f, const char *name, LLVMValueRef *args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(f->m->M, id, NULL, 0);
  LLVMTypeRef fty = LLVMIntrinsicGetType(f->m->C, id, NULL, 0);
  return LLVMBuildCall2(f->m->B, fty, fn, args, n, "");
}

LLVMValueRef cg_nvptx_sreg(CgFn *f, const char *what, int axis) {
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", what, "xyz"[axis]);
  LLVMValueRef v = call_intrinsic(f, name, NULL, 0);
  return LLVMBuildZExt(f->m->B, v, f->m->i64, "");
}

/* bar.sync 0 (the intrinsic was renamed in LLVM 21) */
void cg_nvptx_barrier(CgFn *f) {
#if LEIR_LLVM_MAJOR >= 21
  LLVMValueRef zero = LLVMConstInt(f->m->i32, 0, 0);
  call_intrinsic(f, "llvm.nvvm.barrier.cta.sync.aligned.all", &zero, 1);
#else
  call_intrinsic(f, "llvm.nvvm.barrier0", NULL, 0);
#endif
}

void cg_nvptx_mark_kernel(CgModule *m, LLVMValueRef fn) {
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
#if LEIR_LLVM_MAJOR < 20
  /* LLVM 19 and older read the kernel mark from nvvm.annotations */
  LLVMValueRef ops[3] = {fn, LLVMMDStringInContext(m->C, "kernel", 6), LLVMConstInt(m->i32, 1, 0)};
  LLVMAddNamedMetadataOperand(m->M, "nvvm.annotations", LLVMMDNodeInContext(m->C, ops, 3));
#endif
}

bool cg_emit_ptx(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, SBuf *out) {
  CgOptions oo = *o;
  oo.target = CG_TARGET_NVPTX;
  LLVMTargetMachineRef tm = cg_nvptx_machine(ctx, oo.gpu_sm, oo.opt_level);
  if (!tm) return false;
  LLVMContextRef C = LLVMContextCreate();
  CgPlan plan;
  LLVMModuleRef M = NULL;
  bool ok = cg_build_module(ctx, p, &oo, C, tm, &plan, &M);
  if (ok) {
    char *msg = NULL;
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, M, LLVMAssemblyFile, &msg, &buf)) {
      diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: PTX emission: %s", msg ? msg : "");
      ok = false;
    } else {
      cg_plan_print(out, p, &plan);
      size_t n = LLVMGetBufferSize(buf);
      const char *s = LLVMGetBufferStart(buf);
      for (size_t i = 0; i < n; i++) sbuf_putc(out, s[i]);
      LLVMDisposeMemoryBuffer(buf);
    }
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(M);
  }
  LLVMContextDispose(C);
  LLVMDisposeTargetMachine(tm);
  return ok;
}
