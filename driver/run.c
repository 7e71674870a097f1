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

bool drv_parse_u64(const char *s, uint64_t *v) {
  if (!s || *s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno || *end) return false;
  *v = x;
  return true;
}

bool drv_parse_tolerance(const char *s, int *tol) {
  static const struct { const char *name; CmpTolerance t; } names[] = {
    {"exact", CMP_EXACT}, {"default", CMP_DEFAULT}, {"reference", CMP_REFERENCE},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(s, names[i].name)) {
      *tol = names[i].t;
      return true;
    }
  return false;
}

void drv_ctx_setup(LeirCtx *ctx, const DrvOptions *o) {
  leir_ctx_init(ctx);
  ctx->unsafe_math = o->unsafe_math;
  ctx->max_memory = o->run.max_memory;
  ctx->no_warnings = o->no_warnings;
  ctx->werror = o->werror;
  ctx->quiet_caret = o->no_caret;
}

static IrProgram *load(LeirCtx *ctx, const DrvOptions *o, const char *path) {
  if (!drv_read_source(ctx, path)) return NULL;
  return drv_load_program(ctx, o);
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

/* --run --target=host: the JIT-compiled program on the interpreter's buffers
 * (outputs and intermediates zero-filled, as a run without --poison). */
static bool run_host(LeirCtx *ctx, const DrvOptions *o, InterpProg *ip) {
  int n = interp_ntensors(ip);
  void **bufs = calloc((size_t)n + 1, sizeof *bufs);
  if (!bufs) return false;
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role == ROLE_OUT || b->t->role == ROLE_TMP) memset(b->data, 0, b->nbytes);
    bufs[i] = b->data;
  }
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  bool ok = cg_run_host(ctx, interp_program(ip), &co, bufs);
  free(bufs);
  (void)o;
  return ok;
}

/* --run --target=cuda: the program's PTX (launch plan included) run by
 * libleirrt on the interpreter's buffers.  Without a CUDA driver: the
 * runtime's message and exit status 77 (a skipped test, never a failure). */
static int run_cuda(LeirCtx *ctx, const DrvOptions *o, InterpProg *ip) {
  static const IrLoc noloc;
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_NVPTX;
  co.gpu_sm = o->gpu_sm;
  SBuf ptx = {0};
  if (!cg_emit_ptx(ctx, interp_program(ip), &co, &ptx)) return 1;
  char err[4096];
  RtPlan *plan = NULL;
  RtDevice *dev = NULL;
  RtModule *m = NULL;
  void **args = NULL;
  int rc = 1;
  if (rt_plan_parse(ptx.s, &plan, err, sizeof err)) {
    diag_error(ctx, noloc, "internal compiler error: launch plan: %s", err);
    goto out;
  }
  int st = rt_open(&dev, 0, err, sizeof err);
  if (st == RT_ENODRIVER) {
    fprintf(stderr, "leirc: %s\n", err);
    rc = 77;
    goto out;
  }
  if (st) {
    diag_error(ctx, noloc, "%s", err);
    goto out;
  }
  if (rt_module_load(dev, ptx.s, &m, err, sizeof err)) {
    diag_error(ctx, noloc, "the CUDA driver rejected the PTX: %s", err);
    goto out;
  }
  size_t na = rt_plan_arg_count(plan);
  args = calloc(na + 1, sizeof *args);
  for (size_t i = 0; args && i < na; i++) {
    RtTensorInfo ti;
    InterpBuf *b = rt_plan_tensor(plan, i, &ti) ? NULL : interp_find(ip, ti.name);
    if (!b || b->nbytes != ti.bytes) {
      diag_error(ctx, noloc, "internal compiler error: launch plan argument %zu does not match the program", i);
      goto out;
    }
    args[i] = b->data;
  }
  if (args && !rt_run_plan(dev, m, plan, args, NULL, err, sizeof err))
    rc = 0;
  else
    diag_error(ctx, noloc, "running on the GPU failed: %s", args ? err : "out of memory");
out:
  free(args);
  if (m) rt_module_unload(m);
  if (dev) rt_close(dev);
  if (plan) rt_plan_free(plan);
  sbuf_free(&ptx);
  return rc;
}

int drv_run_loaded(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  InterpOptions io = {o->run.poison, o->run.max_steps};
  InterpProg *ip = interp_new(ctx, p, &io);
  if (!ip) return 1;
  int rc = 1;
  bool *given = calloc(p->ntensors > 0 ? (size_t)p->ntensors : 1, 1);
  if (given && load_inputs(ip, o, given)) {
    interp_random_inputs(ip, o->run.seed, given);
    int st = o->target == TARGET_CUDA ? run_cuda(ctx, o, ip)
             : (o->target == TARGET_HOST ? run_host(ctx, o, ip) : interp_run(ip)) ? 0 : 1;
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
  free(given);
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
  printf("%s\n", cmp_verdict_name(d->verdict));
  if (!d->have) return;
  char at[256];
  interp_format_coords(at, sizeof at, d->tensor, d->index);
  printf("%s: output '%s' at %s (flat %lld, seed %llu): %s in %s, %s in %s (", 
         d->verdict == CMP_DIFFER ? "first mismatch" : "first difference", d->tensor->name, at,
         (long long)d->index, (unsigned long long)d->seed, d->a_text, a, d->b_text, b);
  if (ir_dtype_is_float(d->dtype)) printf("%llu ulp apart)\n", (unsigned long long)d->ulp);
  else printf("differ by %llu)\n", (unsigned long long)d->ulp);
}

json_t *drv_compare_json(const InterpDiff *d, const DrvOptions *o, const char *a, const char *b) {
  json_t *j = json_object();
  json_object_set_new(j, "verdict", json_string(cmp_verdict_name(d->verdict)));
  json_object_set_new(j, "tolerance", json_string(tol_name(o->run.tolerance)));
  json_object_set_new(j, "seeds", json_integer(o->run.seeds));
  json_object_set_new(j, "first_seed", json_integer((json_int_t)o->run.seed));
  json_object_set_new(j, "a", json_string(a));
  json_object_set_new(j, "b", json_string(b));
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
  if (!interp_same_signature(ca, pa, pb, a, b)) return 2;
  InterpOptions io = {o->run.poison, o->run.max_steps};
  InterpProg *ia = interp_new(ca, pa, &io);
  InterpProg *ib = ia ? interp_new(cb, pb, &io) : NULL;
  int rc = 2;
  if (ia && ib) {
    InterpCompareOpts co = {o->run.seeds, o->run.seed, (CmpTolerance)o->run.tolerance, io,
                            o->run.ninputs, o->run.input_names, o->run.input_paths};
    if (interp_compare_progs(ia, ib, &co, d) == 0) rc = d->verdict == CMP_DIFFER ? 1 : 0;
  }
  interp_free(ia);
  interp_free(ib);
  return rc;
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
