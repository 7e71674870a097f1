/* additive_split.c -- STRATEGIES §4.17: replace X by X+y-y.
 *
 * Candidates, checks and the rewrite are shared with multiplicative_split
 * (value_split.c, which documents the REF preconditions and the REC
 * rules): y = "shift" (if_then_else(k-1<0,0,X_{..,k-1})) or the left side
 * of an earlier nest with the same loops.  REC: y must not be possibly
 * infinite (inf-inf is NaN) and, unless --unsafe-math, of moderate
 * magnitude (a huge y cancels X: the corpus's Tanh turns -1 into 0); the
 * statement must not compute in bool.
 * Class T (X+y-y rounds twice and cancels catastrophically when |y| is
 * much larger than |X|). */
#include "passes/mathpat.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest (0-based)"},
  {"tensor", true, "X: the tensor to split (named once in the statement)"},
  {"y", true, "shift, or a tensor an earlier nest with the same loops writes (NAME, or NAME.I: its I-th distinct ref)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { mp_vsplit_enumerate(pc, MP_ADD); }
static const char *check(PassCtx *pc, PassCand *c) { return mp_vsplit_check(pc, c, MP_ADD); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return mp_vsplit_apply(pc, q, c, MP_ADD); }

const PassImpl pass_impl_additive_split = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
