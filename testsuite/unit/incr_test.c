/* incr_test.c -- driver/incr.c: the program after a step run from its
 * first nest that differs from the program before (issue 61).
 *
 * For each pair (before, after), crafted as the steps that change where
 * it matters (the last nest, the first nest, a nest between, a tensor the
 * skipped nests write and a later nest of the before rewrites in place, a
 * nest added by fission, nests removed by fusion): the exact number of
 * nests skipped and tensors kept, and the after's outputs run from there
 * on the before's values, in the interpreter and on the host JIT, are the
 * bytes of its full run.  A forced skip over a tensor that the before
 * rewrites later gives other bytes (the rule that lowers the skip is what
 * keeps the result right), and --no-incremental, --unsafe-math and a
 * before whose intermediates are unknown skip nothing.
 *
 * The trailing nests identical to the before's (drv_incr_tail, --eval):
 * for pairs changed in the first or a middle nest, right (the same bits)
 * or wrong (a nest computing something else, read by the trailing nests),
 * the exact number of trailing nests left out, the tensors checked and
 * taken, whether the check held (the tail taken from the before) or the
 * tail ran on the after's values, and the after's outputs are the bytes of
 * its full run on both engines; with the before run without its trailing
 * nests (--eval when no later record shares it), the same check, and the
 * same verdict (both tails left at zero, or both run: the full bytes).  A
 * trailing nest writing a tensor that a nest before it writes is never
 * left out: forcing it gives other bytes.
 *
 * test_known: with only some of the before's intermediates known (a
 * --steps-cache entry keeps those drv_incr_keep_tmps picks), the exact
 * skips, leading and trailing, and the full run's bytes with an
 * intermediate left unknown (garbage) that the rest of the run never
 * mentions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "driver/driver.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "testsuite/unit/unit_prog.h"

#define HDR "%in    A : f32[4,6]\n%out   C : f32[4]\n"
#define N_SUM "L^{4}_{a=0}L^{6}_{c=0}[T^{f32,g}_{a}=T^{f32,g}_{a}+A^{f32,g}_{a,c};];\n"
#define N_DBL "L^{4}_{a=0}[D^{f32,g}_{a}=T^{f32,g}_{a}*2.0;];\n"
#define N_OUT "L^{4}_{a=0}[C^{f32,g}_{a}=D^{f32,g}_{a}+1.0;];\n"

/* T = row sums, D = 2T, C = D + 1 */
static const char base[] = HDR N_SUM N_DBL N_OUT;
/* the last nest changed (+ commuted) */
static const char last[] = HDR N_SUM N_DBL "L^{4}_{a=0}[C^{f32,g}_{a}=1.0+D^{f32,g}_{a};];\n";
/* the first nest changed */
static const char first[] = HDR "L^{4}_{a=0}L^{6}_{c=0}[T^{f32,g}_{a}=A^{f32,g}_{a,c}+T^{f32,g}_{a};];\n" N_DBL N_OUT;
/* the middle nest changed */
static const char middle[] = HDR N_SUM "L^{4}_{a=0}[D^{f32,g}_{a}=2.0*T^{f32,g}_{a};];\n" N_OUT;
/* fission: the last nest as two (a nest added) */
static const char fission[] = HDR N_SUM N_DBL "L^{4}_{a=0}[E^{f32,g}_{a}=D^{f32,g}_{a};];\n"
                              "L^{4}_{a=0}[C^{f32,g}_{a}=E^{f32,g}_{a}+1.0;];\n";
/* fusion: the last two nests as one (a nest removed) */
static const char fusion[] = HDR N_SUM "L^{4}_{a=0}[D^{f32,g}_{a}=T^{f32,g}_{a}*2.0;C^{f32,g}_{a}=D^{f32,g}_{a}+1.0;];\n";

/* W (independent), then T, D, T updated in place from D, then C. */
#define N_W "L^{4}_{a=0}[W^{f32,g}_{a}=A^{f32,g}_{a,0}*3.0;];\n"
#define N_INPLACE "L^{4}_{a=0}[T^{f32,g}_{a}=T^{f32,g}_{a}+D^{f32,g}_{a};];\n"
#define N_OUT2 "L^{4}_{a=0}[C^{f32,g}_{a}=T^{f32,g}_{a}+W^{f32,g}_{a};];\n"
static const char rw[] = HDR N_W N_SUM N_DBL N_INPLACE N_OUT2;
/* the in-place update commuted: T is written by the nests before it and
   rewritten by it, so only W's nest can be skipped */
static const char rw_step[] = HDR N_W N_SUM N_DBL "L^{4}_{a=0}[T^{f32,g}_{a}=D^{f32,g}_{a}+T^{f32,g}_{a};];\n" N_OUT2;

/* wrong steps: D = 3T instead of 2T (read by the last nest) */
static const char middle_wrong[] = HDR N_SUM "L^{4}_{a=0}[D^{f32,g}_{a}=T^{f32,g}_{a}*3.0;];\n" N_OUT;
/* W, T, D = 2T (changed), T updated in place from D, C = T + W: the
   trailing in-place nest writes T, which the nests before it write */
static const char rw_dbl[] = HDR N_W N_SUM "L^{4}_{a=0}[D^{f32,g}_{a}=2.0*T^{f32,g}_{a};];\n" N_INPLACE N_OUT2;
/* T = sum, then D, T += D, C = T + 1; its first nest changed into another
   sum (T = sum of 2A): the trailing nests read and rewrite T */
#define N_OUTT "L^{4}_{a=0}[C^{f32,g}_{a}=T^{f32,g}_{a}+1.0;];\n"
static const char tin[] = HDR N_SUM N_DBL N_INPLACE N_OUTT;
static const char tin_wrong[] =
    HDR "L^{4}_{a=0}L^{6}_{c=0}[T^{f32,g}_{a}=T^{f32,g}_{a}+A^{f32,g}_{a,c}*2.0;];\n" N_DBL N_INPLACE N_OUTT;

/* W (read by nothing after its nest), T, D (changed), C: W is kept but
   not needed by the rest of the after's run */
static const char wtdc[] = HDR N_W N_SUM N_DBL N_OUT;
static const char wtdc_mid[] = HDR N_W N_SUM "L^{4}_{a=0}[D^{f32,g}_{a}=2.0*T^{f32,g}_{a};];\n" N_OUT;

/* the last nest reads D at an index read from the input I: it may stop a
   run (out of range), so the before's tail is not safe to leave out */
#define HDRI "%in    A : f32[4,6]\n%in    I : i64[4]\n%out   C : f32[4]\n"
static const char gather[] = HDRI N_SUM N_DBL "L^{4}_{a=0}[C^{f32,g}_{a}=D^{f32,g}_{I^{i64,g}_{a}}+1.0;];\n";
static const char gather_mid[] =
    HDRI N_SUM "L^{4}_{a=0}[D^{f32,g}_{a}=2.0*T^{f32,g}_{a};];\n" "L^{4}_{a=0}[C^{f32,g}_{a}=D^{f32,g}_{I^{i64,g}_{a}}+1.0;];\n";

static void opts(DrvOptions *o) { memset(o, 0, sizeof *o); }

/* Every output of b, in tensor order. */
static unsigned char *outs_of(InterpProg *b, size_t *n) {
  size_t total = 0;
  for (int i = 0; i < interp_ntensors(b); i++)
    if (interp_buf(b, i)->t->role == ROLE_OUT) total += interp_buf(b, i)->nbytes;
  unsigned char *v = malloc(total + 1);
  assert_non_null(v);
  *n = 0;
  for (int i = 0; i < interp_ntensors(b); i++) {
    InterpBuf *x = interp_buf(b, i);
    if (x->t->role != ROLE_OUT) continue;
    memcpy(v + *n, x->data, x->nbytes);
    *n += x->nbytes;
  }
  return v;
}

/* The after's outputs, all of them in tensor order, from a full run (r
 * NULL) or from r's suffix run on the before's values (a, run), by the
 * interpreter or the host JIT. */
static unsigned char *outputs(Prog *pr, const IrProgram *after, InterpProg *a, const DrvIncr *r, bool jit,
                              size_t *n) {
  InterpProg *b = interp_new(&pr->ctx, r ? r->prog : after, NULL);
  assert_non_null(b);
  interp_random_inputs(b, 0, NULL);
  if (r) drv_incr_load(r, a, b);
  assert_true(jit ? cg_run_host_interp(&pr->ctx, b) : interp_run(b));
  size_t total = 0;
  for (int i = 0; i < interp_ntensors(b); i++)
    if (interp_buf(b, i)->t->role == ROLE_OUT) total += interp_buf(b, i)->nbytes;
  unsigned char *v = malloc(total + 1);
  assert_non_null(v);
  *n = 0;
  for (int i = 0; i < interp_ntensors(b); i++) {
    InterpBuf *x = interp_buf(b, i);
    if (x->t->role != ROLE_OUT) continue;
    memcpy(v + *n, x->data, x->nbytes);
    *n += x->nbytes;
  }
  interp_free(b);
  return v;
}

/* The suffix run of plan r on the before's run a gives the after's full
 * run's bytes, on the interpreter and on the host JIT. */
static void assert_same_outputs(Prog *pa, InterpProg *a, const DrvIncr *r) {
  for (int jit = 0; jit < 2; jit++) {
    size_t n1, n2;
    unsigned char *full = outputs(pa, pa->p, NULL, NULL, jit, &n1);
    unsigned char *part = outputs(pa, pa->p, a, r, jit, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(full, part, n1);
    free(full);
    free(part);
  }
}

/* The plan of (before, after) skips `skip` nests keeping the tensors
 * named in `kept` (space-separated), and its suffix run gives the full
 * run's bytes on both engines. */
static void check_pair(const char *before, const char *after, int skip, const char *kept) {
  Prog pb, pa;
  assert_true(prog_load(&pb, before));
  assert_true(prog_load(&pa, after));
  DrvOptions o;
  opts(&o);
  DrvIncr r;
  assert_int_equal(drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, true, &r), skip > 0);
  assert_int_equal(r.skip, skip);
  assert_int_equal(r.prog->nnests, pa.p->nnests - skip);
  char names[256] = "";
  for (int i = 0; skip && i < pa.p->ntensors; i++)
    if (r.kept[i]) {
      if (*names) strcat(names, " ");
      strcat(names, pa.p->tensors[i]->name);
    }
  assert_string_equal(names, kept);
  InterpProg *a = interp_new(&pb.ctx, pb.p, NULL);
  assert_non_null(a);
  interp_random_inputs(a, 0, NULL);
  assert_true(interp_run(a));
  assert_same_outputs(&pa, a, &r);
  interp_free(a);
  prog_free(&pb);
  prog_free(&pa);
}

static bool jit_run(void *ctx, InterpProg *ip) { return cg_run_host_interp(ctx, ip); }

/* The after's outputs from t->prog run on the before's values (r) and its
 * tail finished (drv_incr_tail_finish: *done). */
static unsigned char *tail_outputs(Prog *pr, InterpProg *a, const DrvIncr *r, const DrvTail *t, bool jit, int *done,
                                   size_t *n) {
  InterpProg *b = interp_new(&pr->ctx, t->prog, NULL);
  assert_non_null(b);
  interp_random_inputs(b, 0, NULL);
  drv_incr_tail_load(r, t, a, b);
  assert_true(jit ? cg_run_host_interp(&pr->ctx, b) : interp_run(b));
  *done = drv_incr_tail_finish(&pr->ctx, t, a, b, false, NULL, NULL, jit ? jit_run : NULL, &pr->ctx);
  unsigned char *v = outs_of(b, n);
  interp_free(b);
  return v;
}

static void names_of(const IrProgram *p, const unsigned char *mask, char *out) {
  *out = 0;
  for (int i = 0; mask && i < p->ntensors; i++)
    if (mask[i]) {
      if (*out) strcat(out, " ");
      strcat(out, p->tensors[i]->name);
    }
}

/* (before, after): `lead` leading and `tail` trailing nests left out, the
 * tensors checked and taken, the check holding (done 1) or not (0, the
 * tail run), the full run's bytes on both engines; `differ`: the after's
 * outputs are not the before's (a wrong step, caught). */
static void check_tail(const char *before, const char *after, int lead, int tail, const char *check,
                       const char *take, int done, bool differ) {
  Prog pb, pa;
  assert_true(prog_load(&pb, before));
  assert_true(prog_load(&pa, after));
  DrvOptions o;
  opts(&o);
  DrvIncr r;
  DrvTail t;
  drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, true, &r);
  assert_int_equal(r.skip, lead);
  assert_int_equal(drv_incr_tail(&pa.ctx, &o, pb.p, pa.p, true, &r, &t), tail > 0);
  assert_int_equal(t.skip, tail);
  assert_int_equal(t.prog->nnests, pa.p->nnests - lead - tail);
  char names[256];
  names_of(pa.p, t.check, names);
  assert_string_equal(names, check);
  names_of(pa.p, t.take, names);
  assert_string_equal(names, take);
  InterpProg *a = interp_new(&pb.ctx, pb.p, NULL);
  assert_non_null(a);
  interp_random_inputs(a, 0, NULL);
  assert_true(interp_run(a));
  size_t nb;
  unsigned char *bef = outs_of(a, &nb);
  for (int jit = 0; tail && jit < 2; jit++) {
    size_t n1, n2;
    int d = -2;
    unsigned char *full = outputs(&pa, pa.p, NULL, NULL, jit, &n1);
    unsigned char *part = tail_outputs(&pa, a, &r, &t, jit, &d, &n2);
    assert_int_equal(d, done);
    assert_int_equal(n1, n2);
    assert_memory_equal(full, part, n1);
    assert_int_equal(n1, nb);
    assert_int_equal(memcmp(part, bef, nb) != 0, differ);
    /* the before run without its tail (partial): the same check; when
       it holds, both tails' outputs are left at zero (the same bits), else
       both tails run: the full runs' bytes */
    InterpProg *ap = interp_new(&pb.ctx, t.bprog, NULL);
    assert_non_null(ap);
    interp_random_inputs(ap, 0, NULL);
    assert_true(jit ? cg_run_host_interp(&pb.ctx, ap) : interp_run(ap));
    InterpProg *b = interp_new(&pa.ctx, t.prog, NULL);
    assert_non_null(b);
    interp_random_inputs(b, 0, NULL);
    drv_incr_tail_load(&r, &t, ap, b);
    assert_true(jit ? cg_run_host_interp(&pa.ctx, b) : interp_run(b));
    assert_int_equal(drv_incr_tail_finish(&pa.ctx, &t, ap, b, true, NULL, NULL, jit ? jit_run : NULL, &pa.ctx), done);
    size_t n3, n4;
    unsigned char *pa_out = outs_of(ap, &n3), *pb_out = outs_of(b, &n4);
    assert_int_equal(n3, nb);
    assert_int_equal(n4, nb);
    assert_int_equal(memcmp(pa_out, pb_out, nb) != 0, differ);
    if (!done) {
      assert_memory_equal(pa_out, bef, nb);
      assert_memory_equal(pb_out, full, nb);
    }
    free(pa_out);
    free(pb_out);
    interp_free(b);
    interp_free(ap);
    free(full);
    free(part);
  }
  free(bef);
  interp_free(a);
  prog_free(&pb);
  prog_free(&pa);
}

static void test_tail(void **state) {
  (void)state;
  check_tail(base, first, 0, 2, "T", "C", 1, false);
  check_tail(base, middle, 1, 1, "D", "C", 1, false);
  check_tail(base, middle_wrong, 1, 1, "D", "C", 0, true);
  check_tail(base, last, 2, 0, "", "", 0, false); /* nothing after the change */
  check_tail(base, base, 2, 0, "", "", 0, false);
  check_tail(base, fission, 2, 0, "", "", 0, false);
  check_tail(base, fusion, 1, 0, "", "", 0, false); /* no trailing nest alike */
  /* the in-place nest rewrites T, written before it: only the last nest */
  check_tail(rw, rw_dbl, 1, 1, "W T", "C", 1, false);
  /* the first nest wrong, the trailing nests read and rewrite T: only
     the last nest, and it runs */
  check_tail(tin, tin_wrong, 0, 1, "T", "C", 0, true);
  check_tail(wtdc, wtdc_mid, 2, 1, "D", "C", 1, false);
  /* of the kept W and T, only T is read by the rest (W stays zero) */
  Prog pb, pa;
  assert_true(prog_load(&pb, wtdc));
  assert_true(prog_load(&pa, wtdc_mid));
  DrvOptions o;
  opts(&o);
  DrvIncr r;
  DrvTail t;
  drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, true, &r);
  assert_true(drv_incr_tail(&pa.ctx, &o, pb.p, pa.p, true, &r, &t));
  char names[256];
  names_of(pa.p, r.kept, names);
  assert_string_equal(names, "W T");
  names_of(pa.p, t.need, names);
  assert_string_equal(names, "T");
  /* not reset: A and C (not mentioned by prog), W and T (kept) */
  names_of(pa.p, t.keep, names);
  assert_string_equal(names, "A C W T");
  prog_free(&pa);
  prog_free(&pb);
}

/* Leaving out the three trailing nests of tin_wrong (which read T, written
 * by the changed nest, and rewrite it) and taking C from the before would
 * give the before's bytes, not the after's. */
static void test_tail_forced(void **state) {
  (void)state;
  Prog pb, pa;
  assert_true(prog_load(&pb, tin));
  assert_true(prog_load(&pa, tin_wrong));
  InterpProg *a = interp_new(&pb.ctx, pb.p, NULL);
  assert_non_null(a);
  interp_random_inputs(a, 0, NULL);
  assert_true(interp_run(a));
  IrProgram q = *pa.p, rest = *pa.p;
  q.nnests = 1;
  rest.nnests = 3;
  rest.nests += 1;
  unsigned char none[16] = {0}, take[16] = {0}, all[16];
  memset(all, 1, sizeof all);
  for (int i = 0; i < pa.p->ntensors; i++) take[i] = !strcmp(pa.p->tensors[i]->name, "C");
  DrvIncr r = {0, pa.p, NULL};
  DrvTail t = {.skip = 3, .prog = &q, .rest = &rest, .check = none, .take = take, .ment = all, .all = all};
  size_t n1, n2;
  int d = -2;
  unsigned char *full = outputs(&pa, pa.p, NULL, NULL, false, &n1);
  unsigned char *part = tail_outputs(&pa, a, &r, &t, false, &d, &n2);
  assert_int_equal(d, 1);
  assert_int_equal(n1, n2);
  assert_true(memcmp(full, part, n1) != 0);
  free(full);
  free(part);
  interp_free(a);
  prog_free(&pb);
  prog_free(&pa);
}

static void test_pairs(void **state) {
  (void)state;
  check_pair(base, last, 2, "T D");
  check_pair(base, first, 0, "");
  check_pair(base, middle, 1, "T");
  check_pair(base, fission, 2, "T D");
  check_pair(base, fusion, 1, "T");
  check_pair(base, base, 2, "T D"); /* the same program: its last nest runs */
  check_pair(rw, rw_step, 1, "W");
}

/* Skipping past a tensor the before rewrites later (T, updated in place
 * by the before's nest 3) would start the after from T's final value:
 * other bytes than the full run. */
static void test_forced(void **state) {
  (void)state;
  Prog pb, pa;
  assert_true(prog_load(&pb, rw));
  assert_true(prog_load(&pa, rw_step));
  InterpProg *a = interp_new(&pb.ctx, pb.p, NULL);
  assert_non_null(a);
  interp_random_inputs(a, 0, NULL);
  assert_true(interp_run(a));
  IrProgram q = *pa.p;
  q.nnests -= 3;
  q.nests += 3;
  unsigned char kept[16] = {0};
  for (int i = 0; i < pa.p->ntensors; i++) {
    const char *nm = pa.p->tensors[i]->name;
    kept[i] = !strcmp(nm, "W") || !strcmp(nm, "T") || !strcmp(nm, "D");
  }
  DrvIncr r = {3, &q, kept};
  size_t n1, n2;
  unsigned char *full = outputs(&pa, pa.p, NULL, NULL, false, &n1);
  unsigned char *part = outputs(&pa, pa.p, a, &r, false, &n2);
  assert_int_equal(n1, n2);
  assert_true(memcmp(full, part, n1) != 0);
  free(full);
  free(part);
  interp_free(a);
  prog_free(&pb);
  prog_free(&pa);
}

static void test_off(void **state) {
  (void)state;
  Prog pb, pa;
  assert_true(prog_load(&pb, base));
  assert_true(prog_load(&pa, last));
  DrvOptions o;
  opts(&o);
  DrvIncr r;
  o.steps.no_incremental = true;
  assert_false(drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, true, &r));
  assert_int_equal(r.skip, 0);
  assert_ptr_equal(r.prog, pa.p);
  o.steps.no_incremental = false;
  pa.ctx.unsafe_math = true;
  assert_false(drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, true, &r));
  pa.ctx.unsafe_math = false;
  assert_true(drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, true, &r));
  /* the before's intermediates unknown (a --steps-cache entry without
     them): the skipped nests would write T and D */
  assert_false(drv_incr_plan(&pa.ctx, &o, pb.p, pa.p, false, &r));
  /* the tail: not with --no-incremental or --unsafe-math, nor when the
     intermediates it reads (T, D) are unknown */
  Prog pf;
  assert_true(prog_load(&pf, first));
  DrvTail t;
  drv_incr_plan(&pf.ctx, &o, pb.p, pf.p, true, &r);
  assert_true(drv_incr_tail(&pf.ctx, &o, pb.p, pf.p, true, &r, &t));
  assert_false(drv_incr_tail(&pf.ctx, &o, pb.p, pf.p, false, &r, &t));
  assert_int_equal(t.skip, 0);
  assert_ptr_equal(t.prog, r.prog);
  o.steps.no_incremental = true;
  assert_false(drv_incr_tail(&pf.ctx, &o, pb.p, pf.p, true, &r, &t));
  o.steps.no_incremental = false;
  pf.ctx.unsafe_math = true;
  assert_false(drv_incr_tail(&pf.ctx, &o, pb.p, pf.p, true, &r, &t));
  prog_free(&pf);
  /* bsafe: every reference of the before's tail provably in range */
  Prog pm, gb, gm;
  assert_true(prog_load(&pm, middle));
  drv_incr_plan(&pm.ctx, &o, pb.p, pm.p, true, &r);
  assert_true(drv_incr_tail(&pm.ctx, &o, pb.p, pm.p, true, &r, &t));
  assert_true(t.bsafe);
  assert_int_equal(t.bprog->nnests, 2);
  assert_int_equal(t.brest->nnests, 1);
  assert_true(prog_load(&gb, gather));
  assert_true(prog_load(&gm, gather_mid));
  drv_incr_plan(&gm.ctx, &o, gb.p, gm.p, true, &r);
  assert_true(drv_incr_tail(&gm.ctx, &o, gb.p, gm.p, true, &r, &t));
  assert_int_equal(t.skip, 1);
  assert_false(t.bsafe);
  prog_free(&gm);
  prog_free(&gb);
  prog_free(&pm);
  prog_free(&pb);
  prog_free(&pa);
}

/* Only some intermediates known (a --steps-cache entry that kept those
 * drv_incr_keep_tmps picks, within a bound, by the boundaries the
 * candidates start from): T and D are read by a nest after the one that
 * writes them, C is an output.  Changed in the last nest,
 * which reads D only: with D known, T (never mentioned by the last nest)
 * needs no value, the run of the last nest on the before's D with T
 * garbage gives the full run's bytes on both engines; with T known only,
 * one nest is skipped (the middle one, which runs then, reads T; the last
 * reads D); with neither, none.  The tail of `first` reads T and D: both
 * nests left out when both are known, the last one with D known only. */
static void test_known(void **state) {
  (void)state;
  Prog pb, pa, pf;
  assert_true(prog_load(&pb, base));
  assert_true(prog_load(&pa, last));
  assert_true(prog_load(&pf, first));
  /* what an entry keeps: candidates at the last nest start at boundary 2
     (D live across it); at the first, their tail is checked at boundary 1
     (T); both within 16 bytes: the boundary saving more work (2: the
     28 statement executions of nests 0 and 1, against 8 for the tail) */
  size_t nbytes[8] = {0};
  for (int i = 0; i < pb.p->ntensors; i++) nbytes[i] = 16;
  const int w_last[3] = {0, 0, 1}, w_first[3] = {1, 0, 0}, w_both[3] = {1, 0, 1};
  const struct {
    const int *w;
    size_t bound;
    const char *keep;
  } kt[] = {{w_last, 64, "D"}, {w_last, 15, ""}, {w_first, 64, "T"}, {w_both, 16, "D"}, {w_both, 32, "T D"}};
  char names[256];
  for (size_t i = 0; i < sizeof kt / sizeof kt[0]; i++) {
    unsigned char *keep = drv_incr_keep_tmps(pb.p, kt[i].w, nbytes, kt[i].bound);
    assert_non_null(keep);
    names_of(pb.p, keep, names);
    assert_string_equal(names, kt[i].keep);
    free(keep);
  }
  DrvOptions o;
  opts(&o);
  DrvIncr r;
  unsigned char known[8] = {0};
  int T = ir_find_tensor(pb.p, "T")->id, D = ir_find_tensor(pb.p, "D")->id;
  assert_false(drv_incr_plan_known(&pa.ctx, &o, pb.p, pa.p, false, known, &r));
  assert_false(drv_incr_plan_known(&pa.ctx, &o, pb.p, pa.p, false, NULL, &r));
  known[T] = 1;
  assert_true(drv_incr_plan_known(&pa.ctx, &o, pb.p, pa.p, false, known, &r));
  assert_int_equal(r.skip, 1);
  known[T] = 0;
  known[D] = 1;
  assert_true(drv_incr_plan_known(&pa.ctx, &o, pb.p, pa.p, false, known, &r));
  assert_int_equal(r.skip, 2);
  InterpProg *a = interp_new(&pb.ctx, pb.p, NULL);
  assert_non_null(a);
  interp_random_inputs(a, 0, NULL);
  assert_true(interp_run(a));
  memset(interp_find(a, "T")->data, 0x7f, interp_find(a, "T")->nbytes); /* unknown */
  assert_same_outputs(&pa, a, &r);
  /* the tail of `first` (D = 2T, C = D + 1) reads T, which the first
     nest writes: with D known only, only its last nest (which reads D) is
     left out; with neither, none */
  DrvTail t;
  drv_incr_plan(&pf.ctx, &o, pb.p, pf.p, true, &r);
  assert_true(drv_incr_tail_known(&pf.ctx, &o, pb.p, pf.p, false, known, &r, &t));
  assert_int_equal(t.skip, 1);
  known[D] = 0;
  assert_false(drv_incr_tail_known(&pf.ctx, &o, pb.p, pf.p, false, known, &r, &t));
  known[T] = known[D] = 1;
  assert_true(drv_incr_tail_known(&pf.ctx, &o, pb.p, pf.p, false, known, &r, &t));
  assert_int_equal(t.skip, 2);
  interp_free(a);
  prog_free(&pf);
  prog_free(&pa);
  prog_free(&pb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pairs),
    cmocka_unit_test(test_forced),
    cmocka_unit_test(test_off),
    cmocka_unit_test(test_tail),
    cmocka_unit_test(test_tail_forced),
    cmocka_unit_test(test_known),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
