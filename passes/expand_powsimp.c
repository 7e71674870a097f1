/* expand_powsimp.c -- STRATEGIES §4.8: split combined powers and exponentials.
 *
 * REF pairs are powsimp's swapped.  leirc's forward rule (REC, powsimp's
 * inverse): every exponential of a sum is split, `exp(a+b)` ->
 * `exp(a)*exp(b)`, `exp(A+1)` -> `exp(1)*exp(A)` -- except an exponential
 * with a subtracted term, `exp(A-D)`: the subtraction is the shift that
 * keeps the exponent in range (softmax's max), and exp(A)*exp(-D) gives
 * inf*0 = NaN where exp(A-D) is finite (it did on the corpus's softmax
 * programs), so it is left alone and a statement with nothing else to split
 * is refused.  `x**(a+b)` -> `x**a*x**b` needs symbolic exponents, which
 * leirc keeps opaque; integer powers stay merged.
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

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_EXPAND_POWSIMP); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_EXPAND_POWSIMP); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_EXPAND_POWSIMP); }

const PassImpl pass_impl_expand_powsimp = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
