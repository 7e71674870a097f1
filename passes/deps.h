/* deps.h -- dependence analysis of one top-level nest (no nested nests):
 * which statements write and read which tensors, and for every pair of
 * accesses to a tensor written in the nest (at least one a write), the
 * possible directions, per loop, between two iterations that touch the same
 * element.  Passes ask whether a new loop order, a tiled band or a parallel
 * loop would reverse or race any of them.
 *
 * Model.  Iteration I runs before J iff I < J lexicographically in header
 * order (SPEC §9.1); statements of one iteration run in body order.  For
 * accesses X (at I) and Y (at J) of tensor T, direction d_k is the sign of
 * J_k - I_k over the pairs with T[x(I)] == T[y(J)].  For every subscript
 * item that is affine with the same linear part in both accesses
 * (a.I + c_x, a.J + c_y), the solutions d of a.d = c_x - c_y with
 * |d_k| < extent_k are enumerated (a small bounded search, largest
 * coefficient first): none means no dependence, else each loop of the item
 * gets the signs its solutions take (so `a*32+c` with c < 32 pins both a
 * and c to '=', and `c-1` against `c` gives '<').  Items of several loops
 * are thus handled exactly one at a time; their constraints are
 * intersected per loop, which over-approximates.  Other items (different
 * linear parts, `//`, `%`, tensor reads) and loops that appear in neither
 * subscript allow any direction; loops of extent 1 only '='.  A pair's
 * directions form a product set; the queries enumerate it.
 *
 * Reduction exception.  A pair made of the left ref of an accumulating
 * statement (rw_accum_op: + - *, max, min) and its self-read, or of that
 * left ref with itself, is a "reduction pair" of that statement; reversing
 * such a pair only when the iterations differ in the statement's reduction
 * loops (indices it mentions outside its left subscript) re-associates the
 * reduction: class T for + - *, still exact for max and min. */
#ifndef LEIR_PASSES_DEPS_H
#define LEIR_PASSES_DEPS_H

#include "passes/pass.h"

enum { DEP_LT = 1, DEP_EQ = 2, DEP_GT = 4, DEP_ANY = 7 };
enum { DEP_MAX_LOOPS = 64 };

typedef struct DepAccess {
  IrRef *ref;
  IrStmt *stmt;
  int stmt_pos;  /* position of the statement in the body */
  bool write;
} DepAccess;

typedef struct Dep {
  const char *tensor;
  const DepAccess *x, *y;   /* x textually not after y */
  unsigned char dir[DEP_MAX_LOOPS]; /* per loop position: allowed directions of J - I */
  IrReduceOp red;           /* RED_NONE, or the op of a reduction pair */
  unsigned long long red_loops; /* bit k: loop k is a reduction loop of that statement */
} Dep;

typedef struct NestDeps {
  const IrNest *nest;
  int nloops;
  int ndeps;
  Dep *deps;
  int naccess;
  DepAccess *access;
  const char *unsupported; /* non-NULL: the nest cannot be analysed (why) */
} NestDeps;

/* Affine form of a subscript item over the loops of n: c + sum coef[k] *
 * loop k (coef: n->nloops entries).  False if the item is not affine (//,
 * %, tensor reads, products of indices, unknown indices, an int64
 * overflow) or n has more than DEP_MAX_LOOPS loops. */
bool dep_affine(const IrExpr *e, const IrNest *n, int64_t *c, int64_t *coef);

/* Analysis of top-level nest k of pc->prog, cached in pc. */
const NestDeps *deps_of_nest(PassCtx *pc, int k);
/* Same for any nest (not cached). */
NestDeps *deps_analyse(PassCtx *pc, const IrNest *n);

/* Result of a legality query. */
typedef struct DepVerdict {
  bool ok;
  const Dep *bad;      /* the first dependence that breaks (when !ok) */
  bool reassociates;   /* ok, but some + - * reduction is re-associated: class T */
} DepVerdict;

/* New loop order perm[new position] = old position. */
DepVerdict deps_check_permutation(const NestDeps *d, const int *perm);
/* Rectangular tiling of the adjacent band [p, q] (inclusive): legal iff
 * every dependence not carried by a loop before p has non-negative
 * components in the band. */
DepVerdict deps_check_band(const NestDeps *d, int p, int q);
/* Loop `k` made parallel: with `kernel` false (P, V) a dependence carried
 * at level k (all outer loops '=') is a race; with `kernel` true (binding to
 * a B axis) any dependence with '=' on the `nhost` outermost loops and a
 * non-'=' direction at k is a race. */
DepVerdict deps_check_parallel(const NestDeps *d, int k, bool kernel, int nhost);

/* "loop 'c' ... tensor 'G' (G_{tx,a,c-1} and G_{tx,a,c})": a description of
 * a dependence for reasons. */
const char *deps_describe(PassCtx *pc, const Dep *dep);
/* The analysis' findings as text, for the rationale of a legal candidate
 * (PassCand.why): "no dependence between two iterations" or "N dependences:
 * <describe> with directions (a:=,c:<), ..." (at most 4 listed). */
const char *deps_summary(PassCtx *pc, const NestDeps *d);

#endif /* LEIR_PASSES_DEPS_H */
