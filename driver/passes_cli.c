/* passes_cli.c -- the pass options of the leirc command line: -O (a bare
 * NAME takes the cost model's best candidate for the output's target),
 * --list-passes, --list-applicable, --dump-before/--dump-after/--dump-dir,
 * --verify-each and --verify.  The work is done by passes/passmgr.c; this
 * file only turns options into calls. */
#include "config.h"
#include "driver/driver.h"

#include "codegen/costmodel.h"
#include "interp/check.h"
#include "passes/pass.h"

#include <stdlib.h>
#include <string.h>

bool drv_pass_add_O(DrvOptions *o, const char *arg) {
  char *old = o->passes.pipeline;
  size_t n = (old ? strlen(old) + 1 : 0) + strlen(arg) + 1;
  char *s = malloc(n);
  if (!s) return false;
  snprintf(s, n, "%s%s%s", old ? old : "", old ? "," : "", arg);
  free(old);
  o->passes.pipeline = s;
  return true;
}

void drv_pass_free(DrvOptions *o) {
  free(o->passes.pipeline);
  o->passes.pipeline = NULL;
}

bool drv_pass_check_dump_name(const char *what) {
  return !strcmp(what, "all") || pass_lookup(what) != NULL;
}

int drv_pass_list_passes(void) {
  pass_list_table(stdout);
  return 0;
}

int drv_pass_list_applicable(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  FILE *f = drv_open_output(ctx, o->output);
  if (!f) return 1;
  pass_list_applicable(ctx, p, f, o->run.json);
  return drv_close_output(ctx, f, o->output) ? 0 : 1;
}

/* interp_check_step's check with the --input files (random data for the
 * other inputs) and, for class T, the --tolerance rule (STRATEGIES §0.4:
 * default, or `reference`); class E is always bit-equality. */
static int verify_with_inputs(const DrvOptions *o, LeirCtx *ctx, const IrProgram *before, const IrProgram *after,
                              char cls, const char *name) {
  InterpOptions ro = {false, o->run.max_steps};
  InterpProg *a = interp_new(ctx, before, &ro);
  if (!a) {
    diag_error(ctx, (IrLoc){0, 0}, "cannot check step '%s': the program before it does not compile for the interpreter",
               name);
    return 2;
  }
  if (!interp_same_signature(ctx, before, after, "the program before it", "the program after it")) {
    diag_error(ctx, (IrLoc){0, 0}, "step '%s' changed the program's arguments", name);
    interp_free(a);
    return 1;
  }
  InterpProg *b = interp_new(ctx, after, &ro);
  if (!b) {
    diag_error(ctx, (IrLoc){0, 0}, "step '%s' produced a program the interpreter cannot compile", name);
    interp_free(a);
    return 1;
  }
  InterpCompareOpts co = {o->run.seeds > 0 ? o->run.seeds : 1, o->run.seed, cls == 'E' ? CMP_EXACT : (CmpTolerance)o->run.tolerance, ro,
                          o->run.ninputs, o->run.input_names, o->run.input_paths, NULL};
  InterpDiff d;
  int rc = 0;
  if (interp_compare_progs(a, b, &co, &d) != 0) {
    rc = d.failed == 2 ? 1 : 2;
  } else if (d.verdict == CMP_DIFFER) {
    rc = interp_step_differed(ctx, before, after, &co, (CmpTolerance)o->run.tolerance, cls, name, &d);
  }
  interp_free(a);
  interp_free(b);
  return rc;
}

/* --verify: the interpreter's per-step check (interp/check.h). */
static int verify_step(void *user, LeirCtx *ctx, const IrProgram *before, const IrProgram *after, PassClass cls,
                       const char *step_name) {
  const DrvOptions *o = user;
  char c = cls == PASS_T ? 'T' : 'E';
  if (o->run.ninputs || o->run.tolerance != CMP_DEFAULT) return verify_with_inputs(o, ctx, before, after, c, step_name);
  InterpCheckOptions opt = {o->run.seed, o->run.max_steps};
  int seeds = o->run.seeds > 0 ? o->run.seeds : 1;
  return interp_check_step(ctx, before, after, c, seeds, step_name, &opt);
}

/* The file name stem of the dumps: the input's base name without .leir. */
static char *dump_base(LeirCtx *ctx, const char *input) {
  const char *b = strrchr(input, '/');
  b = b ? b + 1 : input;
  if (!strcmp(b, "-")) b = "stdin";
  size_t n = strlen(b);
  if (n > 5 && !strcmp(b + n - 5, ".leir")) n -= 5;
  return arena_strndup(&ctx->arena, b, n);
}

bool drv_pass_cost_cuda(const DrvOptions *o) {
  if (o->target != TARGET_DEFAULT) return o->target == TARGET_CUDA;
  return o->emit == EMIT_PTX || o->emit == EMIT_CUDA || o->emit == EMIT_LLVM;
}

IrProgram *drv_pass_run(LeirCtx *ctx, const DrvOptions *o, IrProgram *p) {
  const DrvPassOptions *po = &o->passes;
  if (!po->pipeline) return p;
  PassRunOptions ro = {0};
  ro.dump_before = po->dump_before;
  ro.dump_after = po->dump_after;
  ro.dump_dir = po->dump_dir;
  ro.dump_base = dump_base(ctx, o->input);
  ro.dump_out = stderr;
  ro.verify_each = po->verify_each;
  ro.seeded = po->seed_given;
  ro.seed = o->run.seed;
  /* a bare NAME: the cost model's best for the output's target */
  CostStepTarget ct = {drv_pass_cost_cuda(o) ? COST_CUDA : COST_HOST, o->gpu_sm};
  ro.cost = cost_model_step_cost;
  ro.cost_user = &ct;
  ro.cost_name = ct.target == COST_CUDA ? "cuda" : "host";
  if (po->verify) {
    ro.verify = verify_step;
    ro.verify_user = (void *)o;
  }
  return pass_run_pipeline(ctx, p, po->pipeline, &ro, NULL);
}
