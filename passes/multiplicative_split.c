/* multiplicative_split.c -- STRATEGIES §4.16: replace X by X/y*y.
 *
 * Candidates, checks and the rewrite are shared with additive_split
 * (value_split.c, which documents the REF preconditions and the REC
 * rules): y = "shift" (if_then_else(k-1<0,1,X_{..,k-1})) or the left side
 * of an earlier nest with the same loops (REF also excludes nests whose
 * text has `,0)` or `-`).  REC: unless --unsafe-math, y must be provably
 * nonzero (a positive function such as exp, sqrt(..+eps), abs(..)+c) and
 * of moderate magnitude (a huge y overflows X/y*y to inf/inf, as exp-based
 * sums do in the corpus's GELU); y must not be possibly infinite, and the
 * statement must compute in a float type.  Class T (X/y*y rounds twice;
 * y = 0 would give NaN). */
#include "passes/mathpat.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest (0-based)"},
  {"tensor", true, "X: the tensor to split (named once in the statement)"},
  {"y", true, "shift, or a tensor an earlier nest with the same loops writes (NAME, or NAME.I: its I-th distinct ref)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { mp_vsplit_enumerate(pc, MP_MUL); }
static const char *check(PassCtx *pc, PassCand *c) { return mp_vsplit_check(pc, c, MP_MUL); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return mp_vsplit_apply(pc, q, c, MP_MUL); }

const PassImpl pass_impl_multiplicative_split = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
