/* alg_pass.h -- the machinery shared by the twelve symbolic strategies of
 * STRATEGIES §4.1-§4.12 (alg_pass.c), on the algebra of alg.h.
 *
 * Candidates (§4.0, REC): every statement of every top-level nest without
 * nested nests whose right side contains neither if_then_else nor erf,
 * computes a floating-point value and reads only floating-point tensors and
 * no `inf`.  Parameters: nest, stmt (0-based in the nest's body), plus
 * `rule` (factorization) or `v` (apart, collect, expand_collect: a leaf
 * spelt as in REF's simplified equation -- a tensor name `C`, an index
 * `c`, or a function term `exp(A-D)` -- which must name one term only).
 *
 * A statement `X=X+rest` (its text starts with the left side and `+`) has
 * only `rest` rewritten; `X+` stays in front, so the reduction keeps its
 * initialisation (SPEC §9.5).  Any other statement that reads its own left
 * tensor is refused: reordering it could change that initialisation.  The
 * rewrite may neither drop nor add a reduction index (an index of the
 * statement outside its left subscript): cancelling exp(B_a)/exp(B_a) in
 * `D=D+...` would re-initialise D at every a instead of summing over it.
 *
 * Every pass refuses when its rule does not apply, when the rewritten
 * statement prints exactly as before, and, where REF has them, when the
 * result equals another strategy's form (the "≠" conditions of the §4.0
 * table, with leirc's rule sets standing in for sympy's functions).  All
 * twelve are class T.  Not implemented: REF's "exploration" (§4.0 step 4,
 * the same search on programs after one or two compute_inline steps) --
 * that is a search over pipelines, not a rewrite; `-O
 * compute_inline,...,collect` spells it.  REF's requirement that the output
 * ref contain `tx` (§4.0 step 3) is a limitation of its text mapping, not a
 * legality condition, and is not applied. */
#ifndef LEIR_PASSES_ALG_PASS_H
#define LEIR_PASSES_ALG_PASS_H

#include "passes/pass.h"

typedef enum AlgPassKind {
  ALG_FACTORIZATION,
  ALG_EXPAND_FACTORIZATION,
  ALG_CANCELLATION,
  ALG_EXPAND_CANCELLATION,
  ALG_APART,
  ALG_TOGETHER,
  ALG_POWSIMP,
  ALG_EXPAND_POWSIMP,
  ALG_EXPAND_LOG,
  ALG_LOGSIMP,
  ALG_COLLECT,
  ALG_EXPAND_COLLECT
} AlgPassKind;

void alg_pass_enumerate(PassCtx *pc, AlgPassKind k);
const char *alg_pass_check(PassCtx *pc, PassCand *c, AlgPassKind k);
bool alg_pass_apply(PassCtx *pc, IrProgram *q, const PassCand *c, AlgPassKind k);

#endif /* LEIR_PASSES_ALG_PASS_H */
