/* check_step.c -- libleir: leir_check_step, through the checker of
 * `leirc --check-step` (passes/stepcheck.h): the same verdict, spelling,
 * class and verdict line.  When AFTER does not parse or is invalid, its
 * diagnostics are also the call's (leir_diag_get), as every libleir call
 * reports them. */
#include "api/api.h"

#include "interp/compare.h"
#include "passes/stepcheck.h"

#include <stdlib.h>
#include <string.h>

const char *leir_verdict_name(leir_verdict v) {
  return (unsigned)v <= STEP_UNCHANGED ? step_verdict_name((StepVerdict)v) : NULL;
}

void leir_step_result_clear(leir_step_result *r) {
  if (!r) return;
  free(r->spelling);
  free(r->cls);
  free(r->message);
  memset(r, 0, sizeof *r);
}

/* AFTER's diagnostics into the context's list: step_check keeps them as
 * text for leirc to print after the verdict line, so AFTER is parsed and
 * analysed once more here, with `before`'s arguments as its declarations. */
static void report_after(leir_context *lc, const leir_program *before, const char *text) {
  leir_ctx_set_source(&lc->ctx, "<after>", text, strlen(text));
  IrProgram *q = ps_parse(&lc->ctx);
  if (!q || lc->ctx.nerrors) return;
  IrDeclList side = {before->nargs, arena_alloc(&lc->ctx.arena, sizeof(IrDecl) * (size_t)(before->nargs + 1))};
  for (int i = 0; i < before->nargs; i++) {
    const IrTensor *t = before->ir->tensors[before->arg[i]];
    side.d[i] = (IrDecl){t->name, t->role, t->dtype, t->rank, t->shape, t->loc};
  }
  if (ir_sema(&lc->ctx, q, &side)) ir_verify(&lc->ctx, q);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

leir_status leir_check_step(leir_context *lc, const leir_program *before, const char *after_text,
                            const char *strategy, leir_step_result *out) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!api_owns(lc, before, "leir_check_step")) return LEIR_EINVAL;
  if (!after_text || !out) return api_einval(lc, "leir_check_step: %s is NULL", out ? "after_text" : "out");
  memset(out, 0, sizeof *out);
  const PassInfo *only = NULL;
  if (strategy && !(only = pass_lookup(strategy))) return api_einval(lc, "unknown strategy '%s'", strategy);
  api_use(lc, before);
  StepCheckOptions so = {only, "<after>", true, lc->seed, (CmpTolerance)lc->tolerance, lc->max_steps};
  StepResult r;
  step_check(&lc->ctx, before->ir, after_text, strlen(after_text), &so, &r);
  if (r.verdict == STEP_DOES_NOT_PARSE || r.verdict == STEP_INVALID) report_after(lc, before, after_text);
  out->verdict = (leir_verdict)r.verdict;
  out->message = dup_or_null(r.message);
  if (r.verdict == STEP_LEGAL || r.verdict == STEP_EQUIVALENT) out->spelling = dup_or_null(r.spelling);
  if (r.verdict == STEP_LEGAL) out->cls = dup_or_null(r.cls == PASS_T ? "T" : "E");
  if (!out->message || (r.spelling && !out->spelling && r.verdict <= STEP_EQUIVALENT)) {
    leir_step_result_clear(out);
    return LEIR_ENOMEM;
  }
  return LEIR_OK;
}
