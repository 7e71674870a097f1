/* check_step.c -- libleir: leir_check_step, through the checker of
 * `leirc --check-step` (passes/stepcheck.h): the same verdict, spelling,
 * class and verdict line.  When AFTER does not parse or is invalid, its
 * diagnostics are also the call's (leir_diag_get: StepCheckOptions.report),
 * as every libleir call reports them. */
#include "api/api.h"

#include "interp/compare.h"
#include "passes/stepcheck.h"

#include <stdlib.h>
#include <string.h>

const char *leir_verdict_name(leir_verdict v) {
  return (unsigned)v <= STEP_NOT_RUN ? step_verdict_name((StepVerdict)v) : NULL;
}

void leir_step_result_clear(leir_step_result *r) {
  if (!r) return;
  free(r->spelling);
  free(r->cls);
  free(r->message);
  memset(r, 0, sizeof *r);
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
  StepCheckOptions so = {only, "<after>", true, lc->seed, (CmpTolerance)lc->tolerance, lc->max_steps, true,
                         NULL, NULL, 0};
  StepResult r;
  step_check(&lc->ctx, before->ir, after_text, strlen(after_text), &so, &r);
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
