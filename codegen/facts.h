/* facts.h -- guard facts of the code generators (facts.c): what the
 * condition of an if_then_else tells its then-branch about loop indices,
 * so that subscripts it bounds need no check.  Shared by the LLVM lowering
 * (lower.c, lower_loops.c) and the CUDA C emitter (emit_cuda.c).
 *
 * In the then-branch of if_then_else(C, X, Y) C holds, so a comparison of
 * a loop index with a literal in a conjunction C bounds that index there:
 * in if_then_else(1<=c<129, A[c-1], 0) (a padded copy) c-1 is in [0, 127],
 * and A's subscript needs no check.  The value analysis (ir/value.h)
 * narrows the loop ranges (IrValueGuards) and computes the ranges under
 * them; the code generators trust only the comparisons whose typed
 * evaluation is the exact one that analysis assumes: an E_CMP chain whose
 * every link is `index OP literal` or `literal OP index` (OP one of < <= >
 * >= ==; the literal in [0, 2^31), so signed and unsigned comparison agree,
 * the index being in [0, extent)), conjunctions (&) of such, parentheses.
 * Anything else adds no fact. */
#ifndef LEIR_CG_FACTS_H
#define LEIR_CG_FACTS_H

#include "ir/value.h"

/* Narrows g by the trusted comparisons of the conjunction c. */
void cg_cond_facts(IrValueGuards *g, const IrExpr *c);
/* Is item, a subscript of a dimension of the given extent, in range: by
 * itself (ir_expr_in_bounds) or under the facts g? */
bool cg_facts_in_bounds(const IrValueGuards *g, const IrExpr *item, int64_t extent);
/* A comparison chain of loop indices and literals only (no side effect) of
 * wide integer types that the facts g decide: 1 (true) or 0; -1 when
 * undecided. */
int cg_facts_fold_cmp(const IrValueGuards *g, const IrExpr *e);

#endif
