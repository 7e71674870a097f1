/* sema.h -- internals shared by the files of semantic analysis. */
#ifndef LEIR_SEMA_H
#define LEIR_SEMA_H

#include "ir/ir.h"
#include "ir/value.h"

/* Integer interval [lo, hi] of an index expression; ok=false when unbounded
 * or not computable (non-constant divisor, float operand, ...). */
typedef struct Interval {
  bool ok;
  bool exact; /* affine with every index once: the bounds are attained */
  int64_t lo, hi;
} Interval;

typedef struct SemaCtx SemaCtx;

/* Each tree is at most IR_MAX_DEPTH deep, but sema_interval also follows
 * index tensors into their writers' right sides; this bounds the whole
 * recursion (beyond it a range is unknown). */
#define SEMA_MAX_RECURSION (2 * IR_MAX_DEPTH)

/* The value range of an index expression over the ranges [0, extent-1] of
 * the loops it mentions (bound by sema) narrowed by the enclosing guards
 * (sc->guards), reading index tensors through their defining statements:
 * the value analysis (ir/value.h) in exact int64 arithmetic.  Sets
 * *overflow on int64 overflow. */
Interval sema_interval(SemaCtx *sc, const IrExpr *e, bool *overflow);

/* Shape inference of §9.3 for every tensor whose shape is not declared. */
void sema_infer_shapes(SemaCtx *sc);
/* Range checks of reads and writes against known shapes (§9.3). */
void sema_check_ranges(SemaCtx *sc);
/* §9.5: the implicit-initialisation class of every statement. */
void sema_classify_init(LeirCtx *ctx, IrProgram *p);

struct SemaCtx {
  LeirCtx *ctx;
  IrProgram *p;
  /* per-tensor list of the statements writing it (text order) */
  PtrVec *writers; /* indexed by tensor id */
  /* The values of index tensors, computed once each (tensor_values in
     shape.c): visiting[id] is 0 (not yet), 1 (being computed: a cycle
     reaches it) or 2 (tvalue[id] holds the result). */
  int *visiting;
  IrValue *tvalue;
  /* The nodes being evaluated at once, the recursion through index tensors
     included, bounded by SEMA_MAX_RECURSION; `capped` records that the
     bound cut a result. */
  IrValueBudget budget;
  /* Narrowed index ranges inside a branch of if_then_else (§9.3: guarded
     reads): narrowed with ir_value_guard, restored by resetting guards.n. */
  IrValueGuards guards;
};

#endif
