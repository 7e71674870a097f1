/* dataflow.h -- program-level producer/consumer analysis: which top-level
 * nest (and which statement of it) writes and reads which tensor, at which
 * subscript; the element-level legality of merging or distributing the
 * statements of several nests over one loop header (built on deps.h); and
 * the injectivity of a write over its nest's iteration space.
 *
 * The graph-level passes (STRATEGIES §1) ask it "does anything between
 * these nests read/write T", "do nests i and j depend on each other",
 * "would running these statements in one loop nest reverse a dependence",
 * "is every element of T written by exactly one iteration".  The loop passes
 * can use the same queries (an access here is a deps.h DepAccess).
 *
 * Accesses of a nest are its statements' refs in text order (nested nests
 * included): the left side of a statement is a write, every other ref (the
 * right side and reads nested in subscripts, on either side) a read.  The
 * analysis is name-based between nests and element-based (deps.h) inside a
 * nest. */
#ifndef LEIR_PASSES_DATAFLOW_H
#define LEIR_PASSES_DATAFLOW_H

#include "passes/deps.h"

enum { DF_READ = 1, DF_WRITE = 2, DF_ANY = 3 };

typedef struct DfNest {
  int naccess;
  DepAccess *access;  /* stmt_pos = position among the nest's statements
                         (nested ones included, text order) */
  int nstmts;
  IrStmt **stmts;     /* the nest's statements in text order */
  bool nested;        /* the nest holds nested nests */
} DfNest;

typedef struct DataFlow {
  const IrProgram *prog;
  int nnests;
  DfNest *nests;
} DataFlow;

/* The analysis of p (top-level nests), in the arena. */
const DataFlow *df_analyse(PassCtx *pc, const IrProgram *p);

/* The first access to tensor `name` with mode DF_READ, DF_WRITE or DF_ANY
 * in top-level nests lo..hi-1 (text order); NULL if none.  *nest (if
 * non-NULL) receives its nest. */
const DepAccess *df_find(const DataFlow *df, const char *name, int lo, int hi, int mode, int *nest);

/* The first access of mode `mode` in nest k to any tensor that nest j
 * accesses with mode `other` (e.g. DF_READ in k of a DF_WRITE of j);
 * NULL if none. */
const DepAccess *df_shared(const DataFlow *df, int k, int mode, int j, int other);

/* A dependence between nests i < j: j reads what i writes (flow), j
 * writes what i reads (anti), or both write a tensor (output), unless the
 * two accesses provably touch disjoint elements (df_refs_disjoint). */
typedef struct DfConflict {
  const char *tensor;
  const DepAccess *first;  /* the access in nest i */
  const DepAccess *second; /* the access in nest j */
} DfConflict;
bool df_nest_conflict(const DataFlow *df, int i, int j, DfConflict *out);
/* "nest 3 reads 'D' (D_{tx}), which nest 2 writes": for reasons. */
const char *df_describe_conflict(PassCtx *pc, const DfConflict *c, int i, int j);

/* Statements of `merged` carry group numbers group[k] (k = statement
 * position, text order); groups are non-decreasing.  Running all groups in
 * one loop nest (fusion) or each group in its own copy of the nest in group
 * order (distribution) gives the same result iff no dependence between two
 * statements of different groups can go backwards (J - I lexicographically
 * negative, I the earlier access's iteration).  Returns the first such
 * dependence, or NULL; *why is set when the nest cannot be analysed. */
const Dep *df_check_groups(PassCtx *pc, const IrNest *merged, const int *group, const char **why);

/* Does every iteration of n write a different element through ref r (the
 * subscript is injective over the loops of extent > 1)?  Decided per item:
 * an affine item whose coefficients form a mixed radix (sorted by size,
 * each larger than the span of the smaller ones) determines its loops;
 * every loop of extent > 1 must be determined by some item. */
bool df_write_injective(const IrNest *n, const IrRef *r);

/* Is loop `pos` of n separated by r's subscript: two iterations that
 * differ in that loop never touch the same element?  (Some item is affine,
 * mixed-radix injective in its loops, and uses the loop.) */
bool df_loop_separates(const IrNest *n, const IrRef *r, int pos);

/* Do x (in nest na) and y (in nest nb), refs to the same tensor, never
 * touch the same element?  True when, for some subscript position, the
 * value analysis (ir_expr_range) bounds both items and their ranges over
 * their loops do not overlap (e.g. D_{1,tx} and D_{2,tx}, or F_{tx} over
 * tx < 8 and F_{tx+8}, or F_{tx//2} over tx < 16 and F_{8+tx%4}); false
 * when it cannot tell.  (na, nb: unused since the items' indices are
 * bound to their loops.) */
bool df_refs_disjoint(const IrNest *na, const IrRef *x, const IrNest *nb, const IrRef *y);

/* Same header: the same number of loops with equal kinds, extents and
 * index names. */
bool df_same_header(const IrNest *a, const IrNest *b);

#endif /* LEIR_PASSES_DATAFLOW_H */
