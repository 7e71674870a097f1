/* factorization.c -- STRATEGIES §4.1: pull common factors out of sums, merge repeated factors.
 *
 * Rule `common` (REC of §4.0): at every sum, children first, the common
 * factor of its terms is pulled out -- every base that all terms contain with
 * exponents of one sign, at the smallest magnitude, and the numeric content
 * (the rational gcd of integer-literal coefficients, a float coefficient
 * shared by all terms, -1 when all terms are negative): `a*b+a*c` ->
 * `a*(b+c)`, `A/C+D/C` -> `(A+D)/C`; repeated factors merge into powers
 * (`A*A*C` -> `A**2*C`).  Rules `sigmoid_exp` and `sigmoid_neg` (asked
 * for): `1/(1+exp(-x))` -> `exp(x)/(exp(x)+1)` and back.  The
 * `sigmoid_exp` form overflows to inf/inf = NaN for x above ~88 (f32)
 * where the original gives 1, so enumerate() does not list it (not in
 * --list-applicable, never chosen by a bare -O factorization); a full
 * spelling with rule=sigmoid_exp applies it, unless the new divisor exp(x)+1
 * may be infinite (the divisor rule of alg_pass.h; --unsafe-math lifts it).
 *
 * REF uses sympy's sqf(); on `S=S+exp(X-Y)` it drops a term (REF-BUG,
 * §4.0): those corpus pairs are not oracles.  This pass never drops a leaf.
 *
 * Candidates, the X=X+rest form and the common refusals: alg_pass.h.
 * Class T. */
#include "passes/alg_pass.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest's body (0-based)"},
  {"rule", true, "common, sigmoid_exp or sigmoid_neg"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_FACTORIZATION); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_FACTORIZATION); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_FACTORIZATION); }

const PassImpl pass_impl_factorization = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
