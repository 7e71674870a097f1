/* run.c -- `leirc --run` and `leirc --compare`: wiring of the interpreter
 * (interp/) to the command line. */
#include "driver/driver.h"
#include "leir/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "interp/check.h"
#include "interp/data.h"
#include "ir/memlimit.h"

/* ------------------------------------------------------------ options */

void drv_run_defaults(DrvOptions *o) {
  o->run.seeds = 1;
  o->run.tolerance = CMP_DEFAULT;
  o->run.max_steps = INTERP_DEFAULT_MAX_STEPS;
  o->run.max_memory = leir_default_max_memory();
  o->fp_contract_b = -1;
}

bool drv_add_input(DrvOptions *o, char *spec) {
  char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1]) return false;
  *eq = '\0';
  o->run.input_names[o->run.ninputs] = spec;
  o->run.input_paths[o->run.ninputs] = eq + 1;
  o->run.ninputs++;
  return true;
}

void drv_ctx_setup(LeirCtx *ctx, const DrvOptions *o) {
  leir_ctx_init(ctx);
  ctx->unsafe_math = o->unsafe_math;
  ctx->fp_contract = o->fp_contract;
  ctx->max_memory = o->run.max_memory;
  ctx->no_warnings = o->no_warnings;
  ctx->werror = o->werror;
  ctx->quiet_caret = o->no_caret;
}

static IrProgram *load(LeirCtx *ctx, const DrvOptions *o, const char *path) {
  if (!ir_read_source(ctx, path)) return NULL;
  return ir_load_program(ctx, o->decls, NULL);
}

/* ------------------------------------------------------------ --run */

static bool load_inputs(InterpProg *ip, const DrvOptions *o, bool *given) {
  bool ok = true;
  for (int i = 0; i < o->run.ninputs; i++) {
    const char *name = o->run.input_names[i];
    InterpBuf *b = interp_find(ip, name);
    if (!b || (b->t->role != ROLE_IN && b->t->role != ROLE_PARAM)) {
      diag_error(interp_ctx(ip), (IrLoc){0, 0}, "--input %s=%s: the program has no input or parameter '%s'",
                 name, o->run.input_paths[i], name);
      ok = false;
      continue;
    }
    if (given[b->t->id])
      diag_warn(interp_ctx(ip), (IrLoc){0, 0}, "--input %s is given more than once; the last one counts", name);
    ok &= interp_load_npy(ip, b, o->run.input_paths[i]);
    given[b->t->id] = true;
  }
  return ok;
}

bool drv_fill_inputs(InterpProg *ip, const DrvOptions *o) {
  int n = interp_ntensors(ip);
  bool *given = calloc(n > 0 ? (size_t)n : 1, 1);
  bool ok = given && load_inputs(ip, o, given);
  if (ok) interp_random_inputs(ip, o->run.seed, given);
  free(given);
  return ok;
}

/* --run --target=cuda: without a CUDA driver, the runtime's message and
 * exit status 77 (a skipped test, never a failure). */
static int run_cuda(LeirCtx *ctx, int gpu_sm, InterpProg *ip) {
  char err[4096];
  int st = cg_run_cuda_interp(ctx, ip, gpu_sm, err, sizeof err);
  if (st == 77) fprintf(stderr, "leirc: %s\n", err);
  return st;
}

int drv_run_loaded(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  InterpOptions io = {o->run.poison, o->run.max_steps};
  InterpProg *ip = interp_new(ctx, p, &io);
  if (!ip) return 1;
  int rc = 1;
  if (drv_fill_inputs(ip, o)) {
    int st = o->target == TARGET_CUDA ? run_cuda(ctx, o->gpu_sm, ip)
             : (o->target == TARGET_HOST ? cg_run_host_interp(ctx, ip) : interp_run(ip)) ? 0 : 1;
    if (st == 77) rc = 77;
    if (st == 0) {
      rc = 0;
      if (o->run.print_outputs)
        for (int i = 0; i < interp_ntensors(ip); i++)
          if (interp_buf(ip, i)->t->role == ROLE_OUT) interp_print_buf(stdout, interp_buf(ip, i));
      const char *dir = o->run.output_dir ? o->run.output_dir : o->run.print_outputs ? NULL : ".";
      if (dir && !interp_write_outputs(ip, dir)) rc = 1;
    }
  }
  interp_free(ip);
  return rc;
}

int drv_run(const DrvOptions *o) {
  LeirCtx ctx;
  drv_ctx_setup(&ctx, o);
  IrProgram *p = load(&ctx, o, o->input);
  if (p) p = drv_pass_run(&ctx, o, p); /* -O: run the transformed program */
  int rc = p ? drv_run_loaded(&ctx, o, p) : 1;
  if (ctx.nerrors) rc = 1;
  fflush(stdout);
  leir_ctx_free(&ctx);
  return rc;
}

/* ------------------------------------------------------------ --compare */

static const char *tol_name(int t) {
  return t == CMP_EXACT ? "exact" : t == CMP_REFERENCE ? "reference" : "default";
}

static void print_text(const InterpDiff *d, const char *a, const char *b) {
  SBuf t = {0};
  interp_diff_text(&t, d, a, b);
  fputs(t.s, stdout);
  sbuf_free(&t);
}

json_t *drv_compare_json(const InterpDiff *d, const DrvOptions *o, const char *a, const char *b) {
  json_t *j = json_object();
  json_object_set_new(j, "verdict", json_string(cmp_verdict_name(d->verdict)));
  json_object_set_new(j, "tolerance", json_string(tol_name(o->run.tolerance)));
  json_object_set_new(j, "seeds", json_integer(o->run.seeds));
  json_object_set_new(j, "first_seed", json_integer((json_int_t)o->run.seed));
  json_object_set_new(j, "a", json_string(a));
  json_object_set_new(j, "b", json_string(b));
  if (o->fp_contract_b >= 0) { /* --fp-contract=A,B: each program's mode */
    json_t *m = json_object();
    json_object_set_new(m, "a", json_string(o->fp_contract ? "on" : "off"));
    json_object_set_new(m, "b", json_string(o->fp_contract_b ? "on" : "off"));
    json_object_set_new(j, "fp_contract", m);
  }
  if (d->have) {
    json_t *x = json_object();
    json_object_set_new(x, "output", json_string(d->tensor->name));
    json_object_set_new(x, "seed", json_integer((json_int_t)d->seed));
    json_object_set_new(x, "index", json_integer((json_int_t)d->index));
    json_t *coords = json_array();
    int64_t k = d->index;
    for (int dd = d->tensor->rank - 1; dd >= 0; dd--) {
      json_array_insert_new(coords, 0, json_integer((json_int_t)(k % d->tensor->shape[dd])));
      k /= d->tensor->shape[dd];
    }
    json_object_set_new(x, "coords", coords);
    json_object_set_new(x, "dtype", json_string(ir_dtype_name(d->dtype)));
    json_object_set_new(x, "a", json_string(d->a_text));
    json_object_set_new(x, "b", json_string(d->b_text));
    json_object_set_new(x, "ulp", json_integer(d->ulp > INT64_MAX ? -1 : (json_int_t)d->ulp));
    json_object_set_new(x, "max_abs", json_real(d->cmp.max_abs));
    json_object_set_new(x, "max_rel", json_real(d->cmp.max_rel));
    json_object_set_new(j, "difference", x);
  } else {
    json_object_set_new(j, "difference", json_null());
  }
  return j;
}

static void print_json(const InterpDiff *d, const DrvOptions *o, const char *a, const char *b) {
  json_t *j = drv_compare_json(d, o, a, b);
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (s) printf("%s\n", s);
  free(s);
  json_decref(j);
}

int drv_compare_loaded(LeirCtx *ca, const IrProgram *pa, LeirCtx *cb, const IrProgram *pb, const DrvOptions *o,
                       const char *a, const char *b, InterpDiff *d) {
  InterpOptions io = {o->run.poison, o->run.max_steps};
  InterpCompareOpts co = {o->run.seeds, o->run.seed, (CmpTolerance)o->run.tolerance, io,
                          o->run.ninputs, o->run.input_names, o->run.input_paths, NULL};
  if (interp_compare_programs(ca, pa, cb, pb, &co, a, b, d) != 0) return 2;
  return d->verdict == CMP_DIFFER ? 1 : 0;
}

static int compare_loaded(LeirCtx *ca, const IrProgram *pa, LeirCtx *cb, const IrProgram *pb,
                          const DrvOptions *o, const char *a, const char *b) {
  InterpDiff d;
  int rc = drv_compare_loaded(ca, pa, cb, pb, o, a, b, &d);
  if (rc == 2) return rc;
  if (o->run.json) print_json(&d, o, a, b);
  else print_text(&d, a, b);
  return rc;
}

int drv_compare(const DrvOptions *o, const char *a, const char *b) {
  LeirCtx ca, cb;
  drv_ctx_setup(&ca, o);
  drv_ctx_setup(&cb, o);
  if (o->fp_contract_b >= 0) cb.fp_contract = o->fp_contract_b; /* --fp-contract=A,B */
  IrProgram *pa = load(&ca, o, a);
  IrProgram *pb = load(&cb, o, b);
  int rc = pa && pb ? compare_loaded(&ca, pa, &cb, pb, o, a, b) : 2;
  if (ca.nerrors || cb.nerrors) rc = 2;
  if (rc == 2 && o->run.json) printf("{\"verdict\":\"error\"}\n");
  fflush(stdout);
  leir_ctx_free(&ca);
  leir_ctx_free(&cb);
  return rc;
}
