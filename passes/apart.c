/* apart.c -- STRATEGIES §4.5: single fraction back to a sum of fractions.
 *
 * REF pairs are together's swapped (REF's own apart judge is unused).
 * leirc's forward rule (REC): partial fractions in one variable `v` (a leaf
 * or function term, bare spelling) with linear denominators: the part
 * rewritten, as p/q, must have q = (a monomial in the other leaves) * (a
 * polynomial in v of degree <= 4 with exact coefficients that splits into
 * linear factors over Q); the result is the polynomial part plus
 * c/(a*v+b)**j terms, each numerator with its common factors pulled out:
 * `(A*(C+1)+1)/(C+1)` with v=C -> `A+1/(C+1)`.
 *
 * Candidates, the X=X+rest form and the common refusals: alg_pass.h.
 * Class T. */
#include "passes/alg_pass.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest's body (0-based)"},
  {"v", true, "the variable (a tensor name, index or function term)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_APART); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_APART); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_APART); }

const PassImpl pass_impl_apart = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
