/* vm.h -- the interpreter's bytecode (internal to interp/).
 *
 * One flat instruction array per program; one register file of IVal
 * (interp/ops.h) per program.  Registers hold, in this order of allocation:
 * loop indices (one per loop, i64), affine address registers (flattened
 * element offsets, kept current by NEXT), constants (set once before each
 * run) and temporaries.  Operands d, a, b are register numbers; jump targets
 * are instruction numbers.
 */
#ifndef LEIR_INTERP_VM_H
#define LEIR_INTERP_VM_H

#include "interp/interp.h"
#include "interp/ops.h"

typedef enum Opc {
  /* control */
  I_HALT,
  I_NEXT,         /* ++r[d].i; if < imm: r[addr] += inc for each delta, goto x;
                     else undo the deltas, r[d].i = 0, fall through.  (There
                     is no FOR: an index register is 0 whenever its loop is
                     not running, so a loop starts by falling into its body.) */
  I_JMP,          /* goto x */
  I_JZ,           /* if r[a].i == 0 goto x */
  I_JNZ,          /* if r[a].i != 0 goto x */
  /* statements */
  I_INIT,         /* buf[r[a].i] = identity (u.v, dtype ty) */
  I_INITCHK,      /* same, when r[s].i == 0 for every red slot s */
  I_INITCHK1,     /* same, one red slot: r[b] */
  I_LD,           /* r[d] = load buf(ty)[r[a].i] */
  I_LD_F32,
  I_LD_F64,
  I_ST,           /* buf(ty)[r[a].i] = r[b]; counts a step */
  I_ST_F32,
  I_ST_F64,
  I_ADDR,         /* r[d].i = checked flat offset of RefInfo (dims in regs) */
  I_TREE_ACC,     /* tree mode: fold r[b] into the partial of element r[a] */
  I_TREE_FLUSH,   /* tree mode: end of an instance */
  /* moves and conversions */
  I_MOV,          /* r[d] = r[a] */
  I_CVT,          /* r[d] = convert r[a] from ty to ty2 */
  I_RND,          /* r[d].f = round r[a].f to ty (f16/bf16) */
  I_TRUTH,        /* r[d].i = r[a] != 0, r[a] of dtype ty */
  /* f64 arithmetic */
  I_ADD_D, I_SUB_D, I_MUL_D, I_DIV_D, I_FDIV_D, I_MOD_D, I_POW_D,
  I_MAX_D, I_MIN_D, I_NEG_D, I_ABS_D, I_SQRT_D, I_EXP_D, I_LOG_D, I_ERF_D,
  /* f32 arithmetic (also f16/bf16, followed by I_RND) */
  I_ADD_F, I_SUB_F, I_MUL_F, I_DIV_F, I_FDIV_F, I_MOD_F, I_POW_F,
  I_MAX_F, I_MIN_F, I_NEG_F, I_ABS_F, I_SQRT_F, I_EXP_F, I_LOG_F, I_ERF_F,
  /* integer arithmetic in dtype ty */
  I_ADD_I, I_SUB_I, I_MUL_I, I_DIV_I, I_FDIV_I, I_MOD_I, I_POW_I,
  I_MAX_I, I_MIN_I, I_NEG_I, I_ABS_I,
  /* i64 fast paths (subscripts) */
  I_ADD_L, I_SUB_L, I_MUL_L,
  /* comparisons: r[d].i = r[a] OP r[b], OP = x (IrOp) */
  I_CMP_D, I_CMP_F, I_CMP_I,
  /* fused forms (made by the peephole pass in compile.c) */
  I_MUL_F_MM,     /* r[d].f = bufA[r[a]] * bufB[r[b]] (f32 loads) */
  I_MUL_D_MM,
  I_ACC_F,        /* bufA[r[a]] = bufA[r[a]] OP r[b] (f32, OP = x); a step */
  I_ACC_D,
  I_MAC_F,        /* one whole f32 reduction statement, see compile.c */
  I_MAC_D,
  /* fused multiply-add (ir/contract.h): r[d] = fma(r[a], r[b], r[c]) */
  I_FMA_D, I_FMA_F,
  I__COUNT
} Opc;

/* A reference whose address is computed at run time (non-affine or not
 * provably in range): dimension values in registers, checked. */
typedef struct RefInfo {
  const IrRef *ref;
  const IrStmt *stmt;
  bool write;
  int rank;
  const int64_t *shape;
  int *dimreg;     /* rank registers */
  int64_t *stride; /* row-major strides */
  int nloops;      /* enclosing loops, for the message */
  const IrLoop **loops;
  int *loopreg;
} RefInfo;

/* Loop increments: for NEXT. */
typedef struct Deltas {
  int n;
  int *reg;
  int64_t *inc;
  int64_t *undo;   /* inc * (extent - 1) */
} Deltas;

/* A statement in tree mode (interp.h). */
typedef struct TreeInfo {
  const IrStmt *stmt;
  void *buf;          /* T's storage */
  IrDType tdt;        /* T's dtype (statement type) */
  IrDType nt;         /* the root node's type */
  int op;             /* OP_ADD OP_SUB OP_MUL OPX_MAX OPX_MIN */
  IVal ident;         /* identity of op in nt */
  int nthr;           /* thread-bound reduction loops */
  int *thr_reg;       /* their index registers, outermost first */
  int64_t *thr_ext;
  int64_t N;          /* product of their extents */
  int64_t numel;      /* elements of T */
  /* run-time state */
  int32_t *row_of;    /* numel entries, -1 = not touched in this instance */
  int64_t *touched;   /* element offsets in order of first touch */
  int64_t ntouched, cap_touched;
  IVal *rows;         /* ntouched * N partials */
  int64_t cap_rows;
} TreeInfo;

typedef struct Ins {
  uint16_t op;
  uint8_t ty, ty2;  /* dtypes */
  int32_t d, a, b;
  int32_t x;        /* jump target, IrOp, statement id */
  int32_t c;        /* extra register or operator */
  int64_t imm;      /* loop extent; I_INITCHK: number of slots */
  union {
    RefInfo *ref;
    Deltas *dl;
    TreeInfo *tree;
    int *slots;     /* I_INITCHK: the reduction index registers */
  } p;
  void *buf;        /* tensor storage (loads, stores, inits) */
  void *buf2, *buf3; /* further buffers (fused forms) */
  IVal v;           /* identity (I_INIT*, I_MAC*) */
} Ins;

/* Run-time error state (the registers still hold the index values). */
typedef enum VmErrKind { VM_OK, VM_OOB, VM_STEPS, VM_NOMEM } VmErrKind;
typedef struct VmError {
  VmErrKind kind;
  const RefInfo *ref; /* VM_OOB */
  int dim;            /* VM_OOB: first dimension out of range */
  int stmt;           /* statement id (VM_STEPS, VM_NOMEM) */
} VmError;

struct InterpProg {
  LeirCtx *ctx;
  const IrProgram *p;
  InterpOptions opt;
  InterpBufPool *pool; /* interp_new_pooled's, else NULL */
  const unsigned char *kept; /* interp_set_kept's, else NULL */
  Arena arena;        /* compile-time structures */
  int nbufs;
  InterpBuf *bufs;    /* indexed by IrTensor.id */
  Ins *code;
  int ncode, capcode;
  IVal *init;         /* initial register values */
  IVal *regs;         /* the register file of a run */
  int nregs, capregs;
  int ntrees;
  TreeInfo **trees;
  uint64_t steps;
  VmError err;
};

/* compile.c: fills ip->code, ip->init, ip->trees.  False after a
 * diagnostic. */
bool vm_compile(InterpProg *ip);
/* exec.c: runs the code; false with ip->err set. */
bool vm_exec(InterpProg *ip);
/* exec.c: the end of a tree-mode instance (also used by I_TREE_FLUSH). */
void vm_tree_flush(TreeInfo *ti);

#endif /* LEIR_INTERP_VM_H */
