/* checkstep_cli.c -- `leirc --check-step[=STRATEGY] BEFORE.leir AFTER.leir`:
 * the verdict of passes/stepcheck.c, one line or one JSON object.  Exit
 * status 0 legal, 3 not run (not known to differ), 1 any other verdict. */
#include "config.h"
#include "driver/driver.h"

#include "ir/readfile.h"
#include "passes/stepcheck.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

json_t *drv_step_result_json(const StepResult *r) {
  json_t *j = json_object();
  json_object_set_new(j, "verdict", json_string(step_verdict_name(r->verdict)));
  json_object_set_new(j, "strategy", r->pass ? json_string(r->pass->name) : json_null());
  json_object_set_new(j, "spelling", r->spelling ? json_string(r->spelling) : json_null());
  json_object_set_new(j, "class", r->verdict == STEP_LEGAL ? json_string(pass_class_name(r->cls)) : json_null());
  json_object_set_new(j, "message", json_string(r->message ? r->message : ""));
  json_object_set_new(j, "refusal", r->refusal ? json_string(r->refusal) : json_null());
  json_object_set_new(j, "unsafe_math", r->unsafe_assumed        ? json_string("assumed")
                                        : r->unsafe_would_accept ? json_string("would accept")
                                                                 : json_null());
  if (r->at.line > 0) {
    json_t *at = json_object();
    json_object_set_new(at, "line", json_integer(r->at.line));
    json_object_set_new(at, "col", json_integer(r->at.col));
    json_object_set_new(j, "at", at);
  } else {
    json_object_set_new(j, "at", json_null());
  }
  json_object_set_new(j, "compare", r->ran ? json_string(cmp_verdict_name(r->cmp)) : json_null());
  json_object_set_new(j, "difference", r->difference ? json_string(r->difference) : json_null());
  json_object_set_new(j, "error", r->error ? json_string(r->error) : json_null());
  return j;
}

int drv_check_step(const DrvOptions *o, const char *before_path, const char *after_path) {
  const PassInfo *strategy = NULL;
  if (o->check_step) {
    strategy = pass_lookup(o->check_step);
    if (!strategy) {
      fprintf(stderr, "leirc: --check-step: unknown strategy '%s' (see leirc --list-passes)\n", o->check_step);
      return 2;
    }
  }
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = true;
  ctx.quiet_caret = o->no_caret;
  ctx.unsafe_math = o->unsafe_math;
  ctx.fp_contract = o->fp_contract;
  ctx.max_memory = o->run.max_memory;
  int rc = 1;
  IrProgram *before = ir_read_source(&ctx, before_path) ? ir_load_program(&ctx, o->decls, NULL) : NULL;
  size_t len = 0;
  char *text = before ? leir_read_file(strcmp(after_path, "-") ? after_path : "/dev/stdin", &len) : NULL;
  if (before && !text) {
    ctx.src.name = after_path;
    diag_error(&ctx, (IrLoc){0, 0}, "cannot open: %s", strerror(errno ? errno : EIO));
  }
  if (before && text) {
    /* over the interpreter's budget: the host JIT within --jit-max-steps,
       as --emit-steps and --eval run such pairs (driver/verify.c) */
    uint64_t jit = drv_jit_budget(o);
    StepCheckOptions so = {strategy,          after_path, true, o->run.seed, (CmpTolerance)o->run.tolerance,
                           drv_interp_budget(o), false, jit ? drv_jit_runner_outputs : NULL, &ctx, jit};
    StepResult r;
    bool legal = step_check(&ctx, before, text, len, &so, &r);
    if (o->run.json) {
      json_t *j = drv_step_result_json(&r);
      char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
      if (s) puts(s);
      free(s);
      json_decref(j);
    } else {
      puts(r.message);
    }
    /* AFTER's diagnostics, as leirc prints them */
    if ((r.verdict == STEP_DOES_NOT_PARSE || r.verdict == STEP_INVALID) && r.diag) fputs(r.diag, stderr);
    rc = legal ? 0 : r.verdict == STEP_NOT_RUN ? 3 : 1;
  }
  free(text);
  fflush(stdout);
  leir_ctx_free(&ctx);
  return rc;
}
