/* cg.h -- internals shared by the files of codegen/.
 *
 * The pipeline: for the host, fuse.c first merges consecutive top-level
 * nests that may run as one (cg_fuse_nests); plan.c decides, per top-level
 * nest, how it runs (a kernel with host loops, hardware-bound B loops, a
 * parallel range on the host), where every tensor lives (global, shared,
 * local) and which statements are cross-thread reductions; lower.c turns
 * nests, statements and expressions into LLVM IR the same way for both
 * targets, asking the plan how each loop is run; reduce.c emits the
 * cross-thread reductions in the order of SPEC §13.3; nvptx.c and host.c
 * are the thin target layers (target machine, kernel/entry functions, PTX
 * text, JIT).
 */
#ifndef LEIR_CODEGEN_CG_H
#define LEIR_CODEGEN_CG_H

#include "config.h" /* LEIR_LLVM_MAJOR */
#include "codegen/codegen.h"
#include "codegen/facts.h"
#include "ir/range.h"
#include "ir/value.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* ------------------------------------------------------------ the plan */

typedef enum CgPlace { PL_GLOBAL, PL_SHARED, PL_LOCAL } CgPlace;

typedef struct CgTensorInfo {
  CgPlace place;
  int kernel;        /* shared/local: the only nest that touches it */
  bool *keep;        /* shared/local: per dimension, kept by compaction */
  int64_t numel;     /* elements of the array as laid out */
  LLVMValueRef gvar; /* shared: the addrspace(3) array */
  bool sync;         /* shared and used by several threads: barriers */
} CgTensorInfo;

typedef enum CgLoopMode {
  LM_SERIAL,   /* counted loop 0..N-1 (unroll/vectorise hints by kind) */
  LM_HW,       /* NVPTX: a hardware index (tid/ctaid), no loop */
  LM_HOSTARG,  /* NVPTX: a host loop, the value is a kernel argument */
  LM_RANGE     /* host: the parallel loop, runs [lo, hi) from arguments */
} CgLoopMode;

/* A statement in "tree mode" (interp/interp.h, SPEC §13.3): T = T op x with
 * a reduction index bound to threadIdx.  The loops below tloop form a chain
 * down to the statement; they are split into element loops (index in the
 * left subscript), thread loops (tloop first; threadIdx-bound reduction
 * loops, t is their mixed-radix value) and fold loops (the rest, folded
 * into each thread's partial in loop order). */
typedef struct CgRed {
  IrStmt *s;
  IrLoop *tloop;    /* the outermost threadIdx-bound reduction loop */
  int nsp;
  IrLoop **sp;      /* element loops */
  int nthr;
  IrLoop **thr;     /* thread loops, tloop first */
  int nrl;
  IrLoop **rl;      /* fold loops */
  int nout;
  IrLoop **out;     /* reduction loops of s enclosing tloop */
  IrExpr *x;        /* the contribution: T = T (op) x */
  IrReduceOp op;    /* RED_ADD, RED_SUB, RED_MUL, RED_MAX, RED_MIN */
  IrDType nt;       /* the type of the right side's root: partials' type */
  int64_t nthreads; /* product of the thread loops' extents */
  bool general;     /* host, any form: the loops run as written and each
                       execution folds into partial[element][t] (reduce.c) */
} CgRed;

typedef struct CgKernel {
  int index;              /* nest number: kernel leir_k<index> */
  IrNest *nest;
  const char *name;
  int nhost;              /* NVPTX: leading loops run on the host */
  int ntens;              /* global tensors it takes, by ascending id */
  int *tens;
  bool has_b;             /* some B loop (else a one-thread kernel) */
  IrLoop *hw[6];          /* the loop bound to each IrHwAxis-1 (tx..bz) */
  int64_t grid[3], block[3];
  bool spread[3];         /* thread axis d spread over blocks: index =
                             ctaid*ntid + tid, guarded by < extent */
  int nred;
  CgRed *red;
  int64_t scratch_bytes;  /* shared scratch for the reductions */
  IrLoop *par;            /* host: the outermost loop, run in parallel */
} CgKernel;

typedef struct CgPlan {
  CgTarget target;
  int nkernels;
  CgKernel *k;
  CgTensorInfo *t;        /* per tensor id */
} CgPlan;

/* Builds the plan; reports the errors of §3/§9.6/§13.2 (limits, reduction
 * over a block axis, ...) and the scope demotion warnings.  False after an
 * error. */
bool cg_plan_build(LeirCtx *ctx, const IrProgram *p, CgTarget target, CgPlan *plan);

/* The plan's comment lines (`// leir-plan 1` ...), NVPTX only. */
void cg_plan_print(SBuf *b, const IrProgram *p, const CgPlan *plan);

const CgRed *cg_plan_red_of(const CgKernel *k, const IrStmt *s);

/* fuse.c: p with each run of consecutive top-level nests that may run as
 * one (same loop headers, elementwise statements touching only their own
 * iteration's elements, every reference in range: see fuse.c) replaced by
 * one nest, the later nests' loops renamed to the first's; p itself when
 * no run has two nests.  The result shares p's tensors, loops and the
 * statements it does not rename (allocated in ctx->arena). */
const IrProgram *cg_fuse_nests(LeirCtx *ctx, const IrProgram *p);

/* The innermost iterations of a nest: the product of its loops' extents
 * times its statements, inner nests' counted the same way (INT64_MAX when
 * it overflows; host.c's iteration rule, slice.c's reuse bound). */
int64_t cg_nest_work(const IrNest *n);

/* ------------------------------------------------------------ the module */

typedef struct CgModule {
  LeirCtx *ctx;
  const IrProgram *p;
  const CgOptions *o;
  CgPlan *plan;
  CgTarget target;
  LLVMContextRef C;
  LLVMModuleRef M;
  LLVMBuilderRef B;
  LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, vd, ptr0, ptrg, ptrs;
  unsigned as_global; /* 1 on NVPTX, 0 on the host */
  unsigned md_loop;   /* metadata kind "llvm.loop" */
  LLVMValueRef scratch; /* NVPTX: shared scratch of the reductions (or NULL) */
  int jam_bytes;        /* host: the bytes of accumulators an unroll-and-jam
                           keeps in vector registers (cg_jam_bytes; 0: the
                           fixed count of lower_loops.c's jam_count) */
  bool vec512;          /* host: AVX-512, and 512-bit vectors preferred
                           (cg_host_avx512; kernel.c cg_optimize) */
  int math_lanes;       /* host: the widest explicit vector math routines
                           the code may use (8, 16; 0: none, and unoptimised
                           code; cg_host_math_lanes): f32 erf's and exp's
                           (leir.erff.v8, leir.expf.v8, and their .v16 at
                           16), and with any f64 pow's and log's
                           (leir.pow.lazy's and leir.log's v4, v8, v16;
                           codegen/lower.c) */
} CgModule;

/* Host: the bytes of accumulators an unroll-and-jam may keep in vector
 * registers on the machine of tm: half the vector register file at the
 * width the host code uses (AVX-512: 32 registers of 64 bytes, 512-bit
 * vectors preferred on every AVX-512 CPU, cg_host_avx512; AVX: 16 of 32
 * bytes; else 16 of 16).  0 for NVPTX. */
int cg_jam_bytes(LLVMTargetMachineRef tm);
/* Does tm's host have AVX-512 with 512-bit registers? */
bool cg_host_avx512(LLVMTargetMachineRef tm);
/* The lanes of the explicit vector math routines (CgModule.math_lanes) for
   tm's host: 16 with AVX-512F (and FMA), 8 with AVX2 and FMA, else 0. */
int cg_host_math_lanes(LLVMTargetMachineRef tm);
/* The value of an integer subscript item e with loop l at v and every
 * other loop at 0 (floor // and %, as the code does); false when e is not
 * arithmetic on indices and literals (an indirect read) or overflows
 * (costmodel.c; lower_loops.c's register tiles). */
bool cg_eval_index(const IrExpr *e, const IrLoop *l, int64_t v, int64_t *out);

/* Sets up types and the builder for a module already created in C. */
void cg_module_init(CgModule *m, LeirCtx *ctx, const IrProgram *p, const CgOptions *o,
                    CgPlan *plan, LLVMContextRef C, LLVMModuleRef M);
void cg_module_dispose_builder(CgModule *m);

/* Emits every kernel (NVPTX) or nest function (host) into m->M. */
bool cg_lower_program(CgModule *m);

/* Runs the LLVM pipeline "default<On>" (n = 0: only verification). */
bool cg_optimize(CgModule *m, LLVMTargetMachineRef tm, int level);

/* ------------------------------------------------------------ one function */

typedef struct CgBind {
  const IrLoop *loop;
  LLVMValueRef val; /* i64 */
} CgBind;

typedef struct CgFn {
  CgModule *m;
  const CgKernel *k;
  LLVMValueRef fn;
  LLVMBasicBlockRef entry;  /* allocas go here */
  LLVMValueRef *tptr;       /* per tensor id: its base pointer here */
  CgBind bind[512];         /* loop chains are at most 256 deep (sema), plus hardware */
  int nbind;
  LLVMValueRef lo, hi;      /* host: the parallel range */
  LLVMValueRef *hostarg;    /* NVPTX: values of the host loops */
  bool barrier_last;        /* the last thing emitted was a barrier */
  LLVMValueRef err;         /* host: i64* where an out-of-bounds access is
                               recorded: (tensor id + 1) << 32 | stmt id << 1 | write */
  int stmt_id;              /* the statement being lowered */
  bool hw_scope[6];         /* NVPTX: the B loop of this axis encloses the
                               code being lowered */
  int ntree;                /* general tree reductions open here */
  const CgRed *tree_r[32];
  LLVMValueRef tree_p[32], tree_touched[32]; /* their partials, touched flags */
  const IrExpr *stage_x;    /* stage.c: cg_expr gives stage_v for this operand */
  LLVMValueRef stage_v;
  LLVMValueRef stage_buf[2]; /* stage.c: its float, double buffer (one each per function) */
  IrValueGuards guards;     /* facts.h: the bounds of loop indices that an
                               enclosing if_then_else's condition (or an
                               index-set split) proves in the code being
                               lowered */
  int nsplit;               /* lower_loops.c: index-set splits open here */
  const IrLoop *group;      /* lower.c: the loop lowered in groups into the
                               innermost body (cg_group_count), or NULL */
  LLVMValueRef group_base;  /* its first index of the group */
  int group_n;              /* the copies of the body, one per index */
} CgFn;

/* ------------------------------------------------------------ lower.c */

/* The register type of a dtype: f16/bf16 are floats (rounded once per
 * operation), bool is i1. */
LLVMTypeRef cg_reg_type(CgModule *m, IrDType t);
LLVMTypeRef cg_mem_type(CgModule *m, IrDType t);

LLVMValueRef cg_expr(CgFn *f, const IrExpr *e);
LLVMValueRef cg_convert(CgFn *f, LLVMValueRef v, IrDType from, IrDType to);
LLVMValueRef cg_const(CgFn *f, double v, IrDType t);
/* The address of r's element.  Subscripts not provably in range are
 * checked (see guard_offset). */
LLVMValueRef cg_addr(CgFn *f, const IrRef *r, bool write);
LLVMValueRef cg_load(CgFn *f, LLVMValueRef addr, IrDType t);
void cg_store(CgFn *f, LLVMValueRef addr, LLVMValueRef v, IrDType t);
/* The value of `op` on two values of type t (+, -, *, max, min) */
LLVMValueRef cg_binop(CgFn *f, IrOp op, LLVMValueRef a, LLVMValueRef b, IrDType t);
LLVMValueRef cg_maxmin(CgFn *f, bool is_max, LLVMValueRef a, LLVMValueRef b, IrDType t);
/* Float max/min (scalars or vectors) where a is never NaN: the bits of
 * cg_maxmin in fewer operations. */
LLVMValueRef cg_maxmin_ordered(CgFn *f, bool is_max, LLVMValueRef a, LLVMValueRef b);
/* Host: s is `T = max(T, ...)` (min) with §9.5's initialisation and no
 * other statement writes T: T's element is never NaN when s reads it. */
bool cg_ordered_maxmin(const CgFn *f, const IrStmt *s);
/* §9.5: stores the identity at addr when every reduction index of s is 0. */
void cg_reduction_init(CgFn *f, const IrStmt *s, LLVMValueRef addr);
LLVMValueRef cg_index_value(CgFn *f, const IrLoop *l);
/* The §9.5 identity of op in dtype t. */
LLVMValueRef cg_identity(CgFn *f, IrReduceOp op, IrDType t);
/* i1: every reduction index of s is 0 (NULL when s has none). */
LLVMValueRef cg_first_iteration(CgFn *f, const IrStmt *s);
void cg_bind(CgFn *f, const IrLoop *l, LLVMValueRef v);
/* Is every subscript of r provably in range (no guard)? */
bool cg_ref_in_bounds(const CgFn *f, const IrRef *r);
/* Lowers statement s where the builder is. */
void cg_lower_stmt(CgFn *f, const IrStmt *s);
/* stage.c: lowers the innermost serial loop li of n in staged form when its
 * one statement is a reduction over it with a costly operand (false: not
 * done, nothing emitted). */
bool cg_stage_reduction(CgFn *f, const IrNest *n, int li);
void cg_unbind(CgFn *f, int n); /* pops back to n bindings */
/* lower_loops.c: lowers the loops of n from li, then its body. */
void cg_lower_loops(CgFn *f, const IrNest *n, int li);
/* group.c: G when serial loop li of nest n (iterations first.. of it) may
 * run in groups of G iterations, their bodies side by side in the
 * innermost loop (the result is the same), else 0. */
int cg_group_count(const CgFn *f, const IrNest *n, int li, int64_t first);
/* group.c: do the bodies of nest n (statements only) at (r, v) and at
 * (r', v') with v != v' commute?  Every statement writes an element chosen
 * by v (a bare subscript) and not by r, no two statements write one
 * tensor, every reference to a tensor the nest writes has its writer's left
 * side's subscripts (the same element), and every reference is provably in
 * range (a guarded access records the first out-of-range access: another
 * order would record another).  Then any order of the iterations that
 * keeps each v's iterations in r's order gives the same result, bit for
 * bit (group.c's groups, lower_loops.c's interchange). */
bool cg_commute_along(const CgFn *f, const IrNest *n, const IrLoop *r, const IrLoop *v);
void cg_lower_body(CgFn *f, const IrNest *n);
/* A barrier for the whole block (NVPTX); repeated barriers are merged. */
void cg_barrier(CgFn *f);

/* Counted loops: begin leaves the builder in the body with *idx the i64
 * index; end closes it.  kind selects the loop metadata. */
typedef struct CgLoop {
  LLVMBasicBlockRef head, body, exit;
  LLVMValueRef phi;
  LLVMValueRef end;
  IrLoopKind kind;
  int jam;              /* host: unroll-and-jam count hint (0: none) */
  int64_t copies;       /* U (NVPTX: V) loops: cg_unroll_copies (0: not
                           measured, set after cg_loop_begin) */
  bool tile;            /* host: the rows of a register tile, unrolled
                           fully (lower_loops.c tile_rows) */
  int vwidth;           /* host: vectorise W lanes wide, no interleave
                           (lower_loops.c overlap_width; 0: LLVM's choice) */
} CgLoop;
LLVMValueRef cg_loop_begin(CgFn *f, CgLoop *lp, LLVMValueRef start, LLVMValueRef end,
                           IrLoopKind kind);
void cg_loop_end(CgFn *f, CgLoop *lp);

/* Helpers */
LLVMValueRef cg_i64(CgModule *m, int64_t v);
LLVMValueRef cg_alloca(CgFn *f, LLVMTypeRef ty, int64_t n, const char *name);
LLVMBasicBlockRef cg_block(CgFn *f, const char *name);

/* ------------------------------------------------------------ reduce.c */

/* Emits the region of a cross-thread reduction at its B loop. */
void cg_reduce_region(CgFn *f, const CgRed *r);
/* General form (host): before the thread loop, the partials; in the
 * statement, one fold; after the loop, the trees and the stores. */
void cg_tree_begin(CgFn *f, const CgRed *r);
void cg_tree_accumulate(CgFn *f, const CgRed *r);
void cg_tree_flush(CgFn *f, const CgRed *r);
/* The flat element offset of r (checked as cg_addr does). */
LLVMValueRef cg_offset(CgFn *f, const IrRef *r, bool write);

/* ------------------------------------------------------------ nvptx.c / host.c */

LLVMTargetMachineRef cg_nvptx_machine(LeirCtx *ctx, int sm, int opt_level);
/* jit: the code model for the in-process JIT, else for assembly output */
LLVMTargetMachineRef cg_host_machine(LeirCtx *ctx, int opt_level, bool jit);
/* LEIRC_HOST_CPU when it names a CPU (not unset, empty or "native"), else NULL. */
const char *cg_host_cpu_override(void);
/* NVPTX: the hardware index of an axis (i32 special register read, as i64) */
LLVMValueRef cg_nvptx_sreg(CgFn *f, const char *what, int axis);
void cg_nvptx_barrier(CgFn *f);
void cg_nvptx_mark_kernel(CgModule *m, LLVMValueRef fn);

/* Builds the whole module for o->target: plan, lowering, optimisation.
 * On success *out_m is the module (in C) and plan is filled. */
bool cg_build_module(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, LLVMContextRef C,
                     LLVMTargetMachineRef tm, CgPlan *plan, LLVMModuleRef *out_m);

/* Host: a module of its own (in C) holding only kernel k of plan (the plan
 * of fp, a fused program), lowered as cg_build_module lowers it (the inner
 * function k->name and its entry k->name_entry) and verified, not
 * optimised: m is set up for cg_optimize, then cg_module_dispose_builder.
 * False after a diagnostic (nothing to dispose but C).  host_cache.c's
 * unit: the module's text before optimisation is what the code depends
 * on. */
bool cg_lower_kernel_module(CgModule *m, LeirCtx *ctx, const IrProgram *fp, const CgOptions *o, CgPlan *plan,
                            const CgKernel *k, LLVMContextRef C, LLVMTargetMachineRef tm);

#endif /* LEIR_CODEGEN_CG_H */
