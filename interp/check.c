/* check.c -- comparing two programs on the same inputs (check.h). */
#include "interp/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/data.h"
#include "ir/memlimit.h"

/* ------------------------------------------------------------ signatures */

static bool is_arg(const IrTensor *t) { return t->role != ROLE_TMP; }
static bool is_input(const IrTensor *t) { return t->role == ROLE_IN || t->role == ROLE_PARAM; }
static const char *kind_of(const IrTensor *t) { return is_input(t) ? "an input" : "an output"; }

static void type_text(char *out, size_t n, const IrTensor *t) {
  size_t k = (size_t)snprintf(out, n, "%s[", ir_dtype_name(t->dtype));
  for (int d = 0; d < t->rank && k < n; d++)
    k += (size_t)snprintf(out + k, n - k, "%s%lld", d ? "," : "", (long long)t->shape[d]);
  if (k < n) snprintf(out + k, n - k, "]");
}

bool interp_same_signature(LeirCtx *ctx, const IrProgram *a, const IrProgram *b, const char *name_a,
                           const char *name_b) {
  bool ok = true;
  for (int i = 0; i < a->ntensors; i++) {
    const IrTensor *x = a->tensors[i];
    if (!is_arg(x)) continue;
    const IrTensor *y = ir_find_tensor(b, x->name);
    char tx[160], ty[160];
    type_text(tx, sizeof tx, x);
    if (!y || !is_arg(y)) {
      diag_error(ctx, (IrLoc){0, 0}, "'%s' is %s of %s (%s) but not an argument of %s", x->name, kind_of(x),
                 name_a, tx, name_b);
      ok = false;
      continue;
    }
    type_text(ty, sizeof ty, y);
    if (is_input(x) != is_input(y)) {
      diag_error(ctx, (IrLoc){0, 0}, "'%s' is %s of %s but %s of %s", x->name, kind_of(x), name_a, kind_of(y),
                 name_b);
      ok = false;
    } else if (!ir_tensor_same_type(x, y)) {
      diag_error(ctx, (IrLoc){0, 0}, "%s '%s' is %s in %s but %s in %s", is_input(x) ? "input" : "output",
                 x->name, tx, name_a, ty, name_b);
      ok = false;
    }
  }
  for (int i = 0; i < b->ntensors; i++) {
    const IrTensor *y = b->tensors[i];
    const IrTensor *x = ir_find_tensor(a, y->name);
    if (!is_arg(y) || (x && is_arg(x))) continue;
    char ty[160];
    type_text(ty, sizeof ty, y);
    diag_error(ctx, (IrLoc){0, 0}, "'%s' is %s of %s (%s) but not an argument of %s", y->name, kind_of(y),
               name_b, ty, name_a);
    ok = false;
  }
  return ok;
}

/* ------------------------------------------------------------ comparing */

static char cmp_kind(IrDType t) {
  if (t == DT_BF16) return 'b';
  if (ir_dtype_is_float(t)) return 'f';
  if (t == DT_BOOL) return '?';
  return ir_dtype_is_unsigned_int(t) ? 'u' : 'i';
}

void interp_format_coords(char *out, size_t n, const IrTensor *t, int64_t k) {
  int64_t idx[64];
  int r = t->rank < 64 ? t->rank : 64;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = k % t->shape[d];
    k /= t->shape[d];
  }
  size_t m = (size_t)snprintf(out, n, "[");
  for (int d = 0; d < r && m < n; d++) m += (size_t)snprintf(out + m, n - m, "%s%lld", d ? "," : "", (long long)idx[d]);
  if (m < n) snprintf(out + m, n - m, "]");
}

static bool load_given(InterpProg *a, const InterpCompareOpts *o, bool *given) {
  bool ok = true;
  for (int i = 0; i < o->ninputs; i++) {
    InterpBuf *b = interp_find(a, o->input_names[i]);
    if (!b || (b->t->role != ROLE_IN && b->t->role != ROLE_PARAM)) {
      diag_error(interp_ctx(a), (IrLoc){0, 0}, "--input %s: the program has no input or parameter '%s'",
                 o->input_names[i], o->input_names[i]);
      ok = false;
      continue;
    }
    ok &= interp_load_npy(a, b, o->input_paths[i]);
    given[b->t->id] = true;
  }
  return ok;
}

/* b's inputs and parameters: copies of a's, by name. */
static void copy_inputs(InterpProg *a, InterpProg *b) {
  for (int i = 0; i < interp_ntensors(a); i++) {
    const InterpBuf *x = interp_buf(a, i);
    if (x->t->role != ROLE_IN && x->t->role != ROLE_PARAM) continue;
    InterpBuf *y = interp_find(b, x->t->name);
    if (y && y->nbytes == x->nbytes) memcpy(y->data, x->data, x->nbytes);
  }
}

static void note_diff(InterpDiff *out, uint64_t seed, const InterpBuf *x, const InterpBuf *y, CmpResult c) {
  int64_t k = c.first_bad_index >= 0 ? c.first_bad_index : c.first_index;
  out->have = true;
  out->seed = seed;
  out->tensor = x->t;
  out->index = k;
  out->dtype = x->t->dtype;
  out->ulp = c.ulp_distance;
  out->cmp = c;
  interp_format_elem(out->a_text, sizeof out->a_text, x->t->dtype, x->data, k);
  interp_format_elem(out->b_text, sizeof out->b_text, x->t->dtype, y->data, k);
}

/* Compares the outputs after one seed; true to go on. */
static bool compare_outputs(InterpProg *a, InterpProg *b, uint64_t seed, CmpTolerance tol, InterpDiff *out) {
  for (int i = 0; i < interp_ntensors(a); i++) {
    const InterpBuf *x = interp_buf(a, i);
    if (x->t->role != ROLE_OUT) continue;
    const InterpBuf *y = interp_find(b, x->t->name);
    if (!y || y->nbytes != x->nbytes) continue; /* excluded by the signature check */
    CmpResult c = cmp_arrays(cmp_kind(x->t->dtype), (size_t)ir_dtype_size(x->t->dtype), x->data, y->data,
                             x->numel, tol);
    if (c.verdict == CMP_EQUAL) continue;
    if (c.verdict == CMP_DIFFER || !out->have) note_diff(out, seed, x, y, c);
    if (c.verdict > out->verdict) out->verdict = c.verdict;
    if (c.verdict == CMP_DIFFER) return false;
  }
  return true;
}

/* a's inputs and parameters for o's first seed: o->inputs_of's, else the
 * given files (given[] marks them, for the later seeds) and random data of
 * o->seed for the rest.  false after a diagnostic (a file does not fit). */
static bool first_inputs(InterpProg *a, const InterpCompareOpts *o, bool *given) {
  if (o->inputs_of) {
    copy_inputs(o->inputs_of, a);
    return true;
  }
  if (!load_given(a, o, given)) return false;
  interp_random_inputs(a, o->seed, given);
  return true;
}

int interp_compare_progs(InterpProg *a, InterpProg *b, const InterpCompareOpts *o, InterpDiff *out) {
  memset(out, 0, sizeof *out);
  out->verdict = CMP_EQUAL;
  int n = interp_ntensors(a);
  bool *given = calloc(n > 0 ? (size_t)n : 1, 1);
  if (!given) return -1;
  int rc = 0;
  if (!first_inputs(a, o, given)) {
    rc = -1;
    out->failed = 3;
  }
  int seeds = o->inputs_of ? 1 : o->seeds > 0 ? o->seeds : 1;
  for (int s = 0; s < seeds && rc == 0; s++) {
    uint64_t seed = o->seed + (uint64_t)s;
    if (s) interp_random_inputs(a, seed, given);
    copy_inputs(a, b);
    if (!interp_run(a)) out->failed = 1;
    else if (!interp_run(b)) out->failed = 2;
    if (out->failed) rc = -1;
    else if (!compare_outputs(a, b, seed, o->tol, out)) break;
  }
  free(given);
  return rc;
}

int interp_compare_ran(InterpProg *a, InterpProg *b, uint64_t seed, CmpTolerance tol, InterpDiff *out) {
  return interp_compare_ran_with(a, b, seed, tol, NULL, NULL, out);
}

int interp_compare_ran_with(InterpProg *a, InterpProg *b, uint64_t seed, CmpTolerance tol, InterpRunner run,
                            void *arg, InterpDiff *out) {
  memset(out, 0, sizeof *out);
  out->verdict = CMP_EQUAL;
  copy_inputs(a, b);
  if (!(run ? run(arg, b) : interp_run(b))) {
    out->failed = 2;
    return -1;
  }
  compare_outputs(a, b, seed, tol, out);
  return 0;
}

int interp_compare_run_by(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, uint64_t seed,
                          CmpTolerance tol, InterpRunner run, void *arg, InterpDiff *out) {
  memset(out, 0, sizeof *out);
  InterpOptions io = {false, 0};
  InterpProg *a = interp_new(ctx, before, &io), *b = a ? interp_new(ctx, after, &io) : NULL;
  int rc = 0;
  if (!a || !b) {
    rc = 1;
  } else {
    interp_random_inputs(a, seed, NULL);
    if (!(run ? run(arg, a) : interp_run(a))) rc = 2;
    else if (interp_compare_ran_with(a, b, seed, tol, run, arg, out) != 0) rc = 3;
  }
  if (a) interp_free(a);
  if (b) interp_free(b);
  return rc;
}

/* ------------------------------------------------------------ --verify */

int interp_check_step(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, char cls, int seeds,
                      const char *step_name, const InterpCheckOptions *opt) {
  return interp_check_step_inputs(ctx, before, after, cls, seeds, step_name, opt, NULL);
}

int interp_check_step_inputs(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, char cls, int seeds,
                             const char *step_name, const InterpCheckOptions *opt, const InterpCheckInputs *in) {
  InterpCheckOptions dflt = {0, INTERP_DEFAULT_MAX_STEPS};
  if (!opt) opt = &dflt;
  InterpOptions ro = {false, opt->max_steps};
  const char *name = step_name ? step_name : "?";
  InterpProg *a = interp_new(ctx, before, &ro);
  if (!a) {
    diag_error(ctx, (IrLoc){0, 0}, "cannot check step '%s': the program before it does not compile for the "
               "interpreter", name);
    return 2;
  }
  if (!interp_same_signature(ctx, before, after, "the program before it", "the program after it")) {
    diag_error(ctx, (IrLoc){0, 0}, "step '%s' changed the program's arguments", name);
    interp_free(a);
    return 1;
  }
  if (!leir_check_memory(ctx, after)) { /* (the step is not wrong: its check is too big) */
    diag_error(ctx, (IrLoc){0, 0}, "cannot check step '%s': the program after it needs more memory than "
               "--max-memory allows", name);
    interp_free(a);
    return 2;
  }
  InterpProg *b = interp_new(ctx, after, &ro);
  if (!b) {
    diag_error(ctx, (IrLoc){0, 0}, "step '%s' produced a program the interpreter cannot compile", name);
    interp_free(a);
    return 1;
  }
  InterpCompareOpts co = {seeds, opt->seed, cls == 'E' ? CMP_EXACT : CMP_DEFAULT, ro, in ? in->n : 0,
                          in ? in->names : NULL, in ? in->paths : NULL, in ? in->from : NULL};
  InterpDiff d;
  int rc = 0;
  if (interp_compare_progs(a, b, &co, &d) != 0) {
    if (d.failed == 2) diag_error(ctx, (IrLoc){0, 0}, "step '%s' produced a program that fails to run", name);
    else diag_error(ctx, (IrLoc){0, 0}, "cannot check step '%s': %s", name,
                    d.failed == 1 ? "the program before it fails to run" : "an input file does not fit");
    rc = d.failed == 2 ? 1 : 2;
  } else if (d.verdict == CMP_DIFFER) {
    rc = interp_step_differed(ctx, before, after, &co, CMP_DEFAULT, cls, name, &d);
  }
  interp_free(a);
  interp_free(b);
  return rc;
}

int interp_step_differed(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, const InterpCompareOpts *co,
                         CmpTolerance tol_t, char cls, const char *name, InterpDiff *d) {
  char c = cls;
  InterpCompareOpts ct = *co;
  ct.tol = tol_t;
  if (cls == 'E' && interp_fused_step_check(ctx, before, after, &ct, NULL, NULL, d) == 1) c = 'T';
  if (d->verdict != CMP_DIFFER) return 0;
  interp_report_step_diff(ctx, name, c, d);
  return 1;
}

/* ------------------------------------------------------------ fused mode */

/* Compares `before` and `after` in ctx's current mode (see
 * interp_fused_step_check); 0 and *d filled, or -1. */
static int compare_pair(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, const InterpCompareOpts *co,
                        InterpRunner run, void *arg, InterpDiff *d) {
  InterpProg *a = interp_new(ctx, before, &co->run);
  InterpProg *b = a ? interp_new(ctx, after, &co->run) : NULL;
  int rc = -1;
  if (a && b && !run) {
    rc = interp_compare_progs(a, b, co, d);
  } else if (a && b) {
    int n = interp_ntensors(a);
    bool *given = calloc(n > 0 ? (size_t)n : 1, 1);
    if (given && first_inputs(a, co, given) && run(arg, a))
      rc = interp_compare_ran_with(a, b, co->seed, co->tol, run, arg, d);
    free(given);
  }
  interp_free(a);
  interp_free(b);
  return rc;
}

int interp_fused_step_check(LeirCtx *ctx, const IrProgram *before, const IrProgram *after,
                            const InterpCompareOpts *co, InterpRunner run, void *arg, InterpDiff *d) {
  if (!ctx->fp_contract) return -1;
  InterpCompareOpts exact = *co;
  exact.tol = CMP_EXACT;
  InterpDiff u, f;
  ctx->fp_contract = false;
  int rc = compare_pair(ctx, before, after, &exact, run, arg, &u);
  ctx->fp_contract = true;
  if (rc != 0) return -1;
  if (u.verdict == CMP_DIFFER) return 0;
  if (compare_pair(ctx, before, after, co, run, arg, &f) != 0) return -1;
  *d = f;
  return 1;
}

const char *interp_diff_distance(char *out, size_t n, const InterpDiff *d) {
  if (!ir_dtype_is_float(d->dtype)) snprintf(out, n, "differ by %llu", (unsigned long long)d->ulp);
  else if (isnan(d->cmp.a_value) != isnan(d->cmp.b_value)) snprintf(out, n, "only one is NaN");
  else snprintf(out, n, "%llu ulp apart", (unsigned long long)d->ulp);
  return out;
}

void interp_report_step_diff(LeirCtx *ctx, const char *name, char cls, const InterpDiff *d) {
  char at[256], dist[64];
  interp_format_coords(at, sizeof at, d->tensor, d->index);
  diag_error(ctx, (IrLoc){0, 0},
             "step '%s' (class %c) changed the result: output '%s' at %s (flat %lld, seed %llu): %s before, "
             "%s after (%s)",
             name, cls, d->tensor->name, at, (long long)d->index, (unsigned long long)d->seed, d->a_text, d->b_text,
             interp_diff_distance(dist, sizeof dist, d));
}

void interp_diff_where(SBuf *out, const InterpDiff *d, const char *a, const char *b) {
  char at[256], dist[64];
  interp_format_coords(at, sizeof at, d->tensor, d->index);
  sbuf_printf(out, "%s: output '%s' at %s (flat %lld, seed %llu): %s in %s, %s in %s (%s)",
              d->verdict == CMP_DIFFER ? "first mismatch" : "first difference", d->tensor->name, at,
              (long long)d->index, (unsigned long long)d->seed, d->a_text, a, d->b_text, b,
              interp_diff_distance(dist, sizeof dist, d));
}

void interp_diff_text(SBuf *out, const InterpDiff *d, const char *a, const char *b) {
  sbuf_printf(out, "%s\n", cmp_verdict_name(d->verdict));
  if (!d->have) return;
  interp_diff_where(out, d, a, b);
  sbuf_putc(out, '\n');
}

int interp_compare_programs(LeirCtx *ca, const IrProgram *pa, LeirCtx *cb, const IrProgram *pb,
                            const InterpCompareOpts *o, const char *a, const char *b, InterpDiff *out) {
  if (!interp_same_signature(ca, pa, pb, a, b)) return -1;
  InterpProg *ia = interp_new(ca, pa, &o->run);
  InterpProg *ib = ia ? interp_new(cb, pb, &o->run) : NULL;
  int rc = ia && ib ? interp_compare_progs(ia, ib, o, out) : -1;
  interp_free(ia);
  interp_free(ib);
  return rc;
}
