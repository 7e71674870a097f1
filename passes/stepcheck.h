/* stepcheck.h -- is a program text one legal step of a strategy?
 * (`leirc --check-step`, `leirc --eval`; later leir_check_step.)
 *
 * step_check() takes an analysed BEFORE program and the text of AFTER and
 * gives one verdict (the leir_verdict values of leir/leir.h, in the same
 * order):
 *
 *   legal           AFTER is what one legal candidate of the strategy (any
 *                   implemented strategy when none is named) makes of
 *                   BEFORE, up to the renaming of fresh tensors and fresh
 *                   loop indices (names BEFORE does not have) and the
 *                   program's concrete spelling (parentheses, literal
 *                   spellings, the continuation form, `ifthenelse`);
 *   equivalent      no legal candidate gives AFTER, but both programs run
 *                   in the interpreter (--compare semantics) and agree;
 *   not equivalent  they differ (or take other arguments, or AFTER fails
 *                   to run: the message says which);
 *   does not parse, invalid (AFTER parses but its analysis fails: the
 *                   diagnostic), unchanged (AFTER is BEFORE up to spelling);
 *   not run         no legal candidate gives AFTER and the pair was not
 *                   run, so it is not known to differ: over the
 *                   interpreter's budget and the host JIT's (big_run), not
 *                   compilable (--max-memory), BEFORE fails to run, or
 *                   running was not asked for (the message says which).
 *
 * --unsafe-math (ctx->unsafe_math): a candidate legal only by the flag's
 * assumptions (its check refuses it without the flag) gives a legal verdict
 * whose line ends "under --unsafe-math"; the pair is then run (o->run) and
 * a difference is named ("; running differs: first mismatch: ...").
 * Without the flag, a candidate that gives AFTER but is refused, and that
 * the flag would accept, is said so ("(--unsafe-math would accept the
 * step)").
 *
 * Candidates are found from the difference, not only by enumeration: the
 * strategy's enumerated candidates are tried first; then, for those with
 * free integer parameters (split points, factors), the values are taken
 * from the loop extents AFTER has and BEFORE has not, and layout
 * permutations are tried in full.  For a verdict other than legal, the
 * candidate whose result comes closest to AFTER (longest common prefix of
 * the canonical texts) is named with the place in AFTER where it first
 * differs; if some candidate gives AFTER exactly but its check refuses it,
 * the check's reason is given.
 *
 * Nothing is printed: diagnostics of AFTER are captured into the result.
 * Everything the result points to lives in the context's arena. */
#ifndef LEIR_PASSES_STEPCHECK_H
#define LEIR_PASSES_STEPCHECK_H

#include "interp/check.h"
#include "passes/pass.h"

typedef enum StepVerdict {
  STEP_LEGAL = 0,
  STEP_EQUIVALENT = 1,
  STEP_NOT_EQUIVALENT = 2,
  STEP_DOES_NOT_PARSE = 3,
  STEP_INVALID = 4,
  STEP_UNCHANGED = 5,
  STEP_NOT_RUN = 6
} StepVerdict;

/* "legal", "equivalent", "not equivalent", "does not parse", "invalid",
 * "unchanged", "not run". */
const char *step_verdict_name(StepVerdict v);

typedef struct StepCheckOptions {
  const PassInfo *strategy; /* NULL: any implemented strategy */
  const char *after_name;   /* AFTER's file name in diagnostics ("after") */
  bool run;                 /* run both when no legal candidate is found
                               (else not legal gives "not run") */
  uint64_t seed;            /* random inputs of that seed */
  CmpTolerance tol;         /* --compare's tolerance (CMP_DEFAULT) */
  uint64_t max_steps;       /* interpreter budget per run (0: none) */
  bool report;              /* AFTER's diagnostics (does not parse, invalid)
                               are also reported in ctx, printed or kept in
                               its capture list as ctx does (libleir); else
                               they are only returned in `diag` */
  InterpRunner big_run;     /* a pair over max_steps and within big_max_steps
                               is run by big_run(big_arg, .), e.g. the host
                               JIT (interp_compare_run_by); NULL: not run */
  void *big_arg;
  uint64_t big_max_steps;   /* big_run's budget (0: none) */
} StepCheckOptions;

typedef struct StepResult {
  StepVerdict verdict;
  const char *message;   /* the verdict line, e.g. "legal: loop_split(nest=0,loop=a,factor=4) (class E)" */
  const char *spelling;  /* legal: the candidate; otherwise the closest one (NULL if none) */
  const PassInfo *pass;  /* the strategy of `spelling` */
  PassClass cls;         /* legal: PASS_E or PASS_T */
  const char *refusal;   /* a candidate gives AFTER exactly but its check refuses it: why */
  IrLoc at;              /* in AFTER: the diagnostic, or where the closest candidate first differs */
  const char *diag;      /* does not parse / invalid: the diagnostics as leirc prints them */
  const char *error;     /* the first diagnostic's line (file:line:col: error: msg), else NULL */
  bool ran;              /* both programs ran: cmp is set */
  CmpVerdict cmp;
  const char *difference; /* cmp != equal: --compare's first-difference line */
  IrProgram *after;      /* AFTER analysed (NULL when it does not parse or is invalid) */
  int tried;             /* candidate programs compared with AFTER */
  bool unsafe_assumed;   /* legal only by --unsafe-math's assumptions */
  bool unsafe_would_accept; /* not legal; --unsafe-math would accept the
                               refused candidate that gives AFTER */
} StepResult;

/* Checks AFTER (text, len bytes) against `before` (analysed in ctx; its
 * argument tensors declare AFTER's, unless AFTER has its own header).  AFTER
 * is parsed in ctx (its source replaces ctx's current source until the call
 * returns).  Always fills *out; returns out->verdict == STEP_LEGAL. */
bool step_check(LeirCtx *ctx, const IrProgram *before, const char *text, size_t len, const StepCheckOptions *o,
                StepResult *out);

/* p's canonical text with the names p shares with `base` kept and the
 * others renamed in order of first appearance (#T1, #T2, ... for tensors,
 * #i1, ... for loop indices): equal texts mean the same program up to
 * fresh names and spelling.  In the arena. */
const char *step_canonical(LeirCtx *ctx, const IrProgram *base, const IrProgram *p);

#endif /* LEIR_PASSES_STEPCHECK_H */
