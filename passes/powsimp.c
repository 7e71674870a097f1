/* powsimp.c -- STRATEGIES §4.7: combine powers and exponentials.
 *
 * Rule (REC of §4.0): `x**a*x**b` -> `x**(a+b)` (integer exponents: `A*A*C`
 * -> `A**2*C`), and at every product, children first, its exponential
 * factors combine into one: `exp(a)*exp(b)` -> `exp(a+b)`, `exp(a)/exp(b)`
 * -> `exp(a-b)`, `exp(a)**n` -> `exp(n*a)`.
 *
 * Candidates, the X=X+rest form and the common refusals: alg_pass.h.
 * Class T. */
#include "passes/alg_pass.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest's body (0-based)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_POWSIMP); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_POWSIMP); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_POWSIMP); }

const PassImpl pass_impl_powsimp = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
