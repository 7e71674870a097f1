/* host_sched_test.c -- unit tests of how the host JIT schedules a
 * program's nests (issue 41), each against the interpreter bit for bit:
 * consecutive nests fused into one (codegen/fuse.c), the pool rule over the
 * fused nests (codegen/parallel.h), kernels run slice by slice over their
 * parallel loop (codegen/slice.c), the thread count, the vector width,
 * the intermediates kept from run to run (host.c), trailing loops run as
 * one (lower.c), f64 pow's and log's vector variants in the math loops
 * (issue 59). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "codegen/codegen.h"
#include "codegen/slice.h"
#include "interp/interp.h"
#include "testsuite/unit/host_check.h"
#include "testsuite/unit/unit_prog.h"

/* fuse.c: the nests of the host module after cg_fuse_nests. */
static int fused_nests(const char *text) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  int n = cg_fuse_nests(&pr.ctx, pr.p)->nnests;
  prog_free(&pr);
  return n;
}

static void fill_fuse(InterpProg *ip) {
  InterpBuf *a = interp_find(ip, "A");
  const float v[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1e-40f, -1e-40f, 3.4e38f, -1.0f, 65520.0f, 1e-8f};
  for (int i = 0; i < a->numel; i++) ((float *)a->data)[i] = i < 11 ? v[i] : ((float *)a->data)[i];
  InterpBuf *ix = interp_find(ip, "I");
  for (int i = 0; ix && i < ix->numel; i++) ((int64_t *)ix->data)[i] = (i * 7) % 41;
}

/* Issue 41: consecutive elementwise nests over the same loops run as one
 * nest on the host (codegen/fuse.c), with the interpreter's bits in every
 * output and intermediate: Softsign's three nests (the second and third
 * with other loop names), an f16 intermediate (rounded by its store), an
 * element written by two statements of the group (E, read in between), a
 * transposed write (F_{a,tx}) and NaN, infinities, -0, subnormals; on one
 * thread and on the pool. */
static void test_host_fuse(void **state) {
  (void)state;
  const char *t = "%in A : f32[4,40]\n%out E : f32[4,40]\n"
                  "B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=abs(A^{f32,g}_{tx,a});];"
                  "B^{4}_{tx=0}L^{40}_{c=0}[D^{f32,g}_{tx,c}=1+C^{f32,g}_{tx,c};];"
                  "B^{4}_{tx=0}L^{40}_{a=0}[E^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}/D^{f32,g}_{tx,a};];\n";
  assert_int_equal(fused_nests(t), 1);
  host_vs_interp(t, fill_fuse, 1);
  host_vs_interp_par(t, fill_fuse, 2, false, 1);
  const char *u = "%in A : f32[4,40]\n%out E : f32[4,40]\n%out G : f32[40,4]\n"
                  "B^{4}_{tx=0}L^{40}_{a=0}[H^{f16,g}_{tx,a}=A^{f32,g}_{tx,a}*3;E^{f32,g}_{tx,a}=H^{f16,g}_{tx,a};];"
                  "B^{4}_{tx=0}L^{40}_{c=0}[F^{f32,g}_{c,tx}=E^{f32,g}_{tx,c}-H^{f16,g}_{tx,c};"
                  "E^{f32,g}_{tx,c}=E^{f32,g}_{tx,c}*0.5+F^{f32,g}_{c,tx};];"
                  "B^{4}_{tx=0}L^{40}_{a=0}[G^{f32,g}_{a,tx}=exp(F^{f32,g}_{a,tx})+E^{f32,g}_{tx,a}+a;];\n";
  assert_int_equal(fused_nests(u), 1);
  host_vs_interp(u, fill_fuse, 1);
  host_vs_interp_par(u, fill_fuse, 2, false, 1);
}

/* The pool rule (codegen/parallel.h) weighs the nests the plan runs, the
 * fused ones: HardTanh as two nests (max, then min) fuses into one whose
 * 262144 cheap iterations a second core does not pay for (the iteration
 * rule it fell back to before would put it on the pool); GELU's costly
 * nests, fused the same way, go on the pool. */
static int pool_nests(const char *text) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  o.nthreads = 2;
  CgHostProgram *hp = cg_host_compile(&pr.ctx, pr.p, &o);
  assert_non_null(hp);
  int n = cg_host_pool_nests(hp);
  cg_host_free(hp);
  prog_free(&pr);
  return n;
}

static void test_host_fuse_pool(void **state) {
  (void)state;
  const char *hardtanh = "%in A : f32[16,16384]\n%out C : f32[16,16384]\n"
                         "B^{16}_{tx=0}L^{16384}_{a=0}[D^{f32,g}_{tx,a}=max(A^{f32,g}_{tx,a},-1.0);];"
                         "B^{16}_{tx=0}L^{16384}_{a=0}[C^{f32,g}_{tx,a}=min(D^{f32,g}_{tx,a},1.0);];\n";
  assert_int_equal(fused_nests(hardtanh), 1);
  assert_int_equal(pool_nests(hardtanh), 0);
  const char *gelu = "%in A : f32[16,16384]\n%out C : f32[16,16384]\n"
                     "B^{16}_{tx=0}L^{16384}_{a=0}[D^{f32,g}_{tx,a}=1+erf(A^{f32,g}_{tx,a}/sqrt(2));];"
                     "B^{16}_{tx=0}L^{16384}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*0.5*D^{f32,g}_{tx,a};];\n";
  assert_int_equal(fused_nests(gelu), 1);
  assert_int_equal(pool_nests(gelu), 1);
}

/* Nests fuse only while the group stays legal; the rest run as written,
 * with the interpreter's bits: a shifted or neighbour read of a tensor the
 * group writes, a reduction (Hingeloss: the three elementwise nests before
 * it fuse), a guarded (data-dependent) read, another loop header, a write
 * that does not cover every loop, a written tensor read lazily. */
static void test_host_fuse_refused(void **state) {
  (void)state;
  const char *pre = "%in A : f32[4,41]\n%in I : i64[4,40]\n%out D : f32[4,40]\n%tmp C : f32[4,41]\n";
  struct {
    const char *body;
    int nests;
  } cases[] = {
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=C^{f32,g}_{tx,a+1};];", 2},
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=C^{f32,g}_{tx,(a+1)%40};];", 2},
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a+1};];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=1-C^{f32,g}_{tx,a};];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=max(D^{f32,g}_{tx,a},0);];"
       "B^{4}_{tx=0}L^{40}_{a=0}[H^{f32,g}=H^{f32,g}+D^{f32,g}_{tx,a};];"
       "B^{1}_{tx=0}[H^{f32,g}=H^{f32,g}/128;];", 3},
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+A^{f32,g}_{tx,I^{i64,g}_{tx,a}};];", 2},
      /* a written tensor read in an if_then_else branch: not fused (fuse.c:
         the branches' loads would become one load through a select) */
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=if_then_else(A^{f32,g}_{tx,a}<0,C^{f32,g}_{tx,a},1);];", 2},
      /* only read-only tensors in the branches: they fuse */
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=if_then_else(C^{f32,g}_{tx,a}<0,A^{f32,g}_{tx,a},1)"
       "+C^{f32,g}_{tx,a};];", 1},
      /* the same read, provably in range: A is only read, they fuse */
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+A^{f32,g}_{tx,I^{i64,g}_{tx,a}%41};];", 1},
      {"B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "L^{4}_{c=0}L^{40}_{a=0}[D^{f32,g}_{c,a}=C^{f32,g}_{c,a}+1;];", 2},
      {"B^{4}_{tx=0}L^{40}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
       "B^{4}_{tx=0}L^{40}_{a=0}[C^{f32,g}_{tx,0}=D^{f32,g}_{tx,a}+C^{f32,g}_{tx,0};];", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char t[2048];
    snprintf(t, sizeof t, "%s%s\n", pre, cases[i].body);
    if (fused_nests(t) != cases[i].nests) fail_msg("case %zu: %d nests", i, fused_nests(t));
    host_vs_interp(t, fill_fuse, 1);
    host_vs_interp_par(t, fill_fuse, 2, false, 1);
  }
}

/* slice.c: the chains of consecutive kernels run slice by slice (len per
 * kernel: 1 alone, 0 inside a chain; chunk: iterations per slice). */
static void expect_chains(const char *text, const int *len, const int64_t *chunk) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  CgPlan plan;
  assert_true(cg_plan_build(&pr.ctx, pr.p, CG_TARGET_HOST, &plan));
  int l[8];
  int64_t c[8];
  assert_true(plan.nkernels <= 8);
  cg_slice_chains(pr.p, &plan, l, c);
  for (int k = 0; k < plan.nkernels; k++) {
    if (l[k] != len[k] || c[k] != chunk[k])
      fail_msg("kernel %d: len %d chunk %lld, expected %d %lld", k, l[k], (long long)c[k], len[k], (long long)chunk[k]);
  }
  prog_free(&pr);
}

/* A padded copy and a max pooling over it (Max_Pooling_2D's shape, 264 KiB
 * of D and 64 KiB of C per tx: 16 slices of 1). */
#define SLICE_POOL                                                                                              \
  "%in A : f32[16,4,128,128]\n%out C : f32[16,4,64,64]\n"                                                     \
  "B^{16}_{tx=0}L^{4}_{a=0}L^{130}_{c=0}L^{130}_{d=0}[D^{f32,g}_{tx,a,c,d}=if_then_else(1<=c<129&1<=d<129,"     \
  "A^{f32,g}_{tx,a,c-1,d-1},-inf);];"                                                                            \
  "B^{16}_{tx=0}L^{4}_{a=0}L^{64}_{c=0}L^{64}_{d=0}L^{2}_{f=0}L^{2}_{g=0}[C^{f32,g}_{tx,a,c,d}="                 \
  "max(C^{f32,g}_{tx,a,c,d},D^{f32,g}_{tx,a,c*2+f*1,d*2+g*1});];\n"

#define SLICE_THREE                                                                                             \
  "%in A : f32[16,16384]\n%out C : f32[16,16384]\n"                                                           \
  "B^{16}_{tx=0}L^{16384}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"                                         \
  "B^{16}_{tx=0}L^{16384}_{a=0}[E^{f32,g}_{tx,a}=D^{f32,g}_{tx,16383-a}+1;];"                                   \
  "B^{16}_{tx=0}L^{16384}_{a=0}[C^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}*D^{f32,g}_{tx,a};];\n"

/* reductions inside the slices: a sum over a, then a mean (Mean_reduction's
 * shape; 2 x 64 KiB per tx: 4 slices of 4) */
#define SLICE_MEAN                                                                                              \
  "%in A : f32[16,16,16384]\n%out C : f32[16,16384]\n"                                                        \
  "B^{16}_{tx=0}L^{16}_{a=0}L^{16384}_{c=0}[D^{f32,g}_{tx,c}=D^{f32,g}_{tx,c}+A^{f32,g}_{tx,a,c};];"            \
  "B^{16}_{tx=0}L^{16384}_{c=0}[C^{f32,g}_{tx,c}=D^{f32,g}_{tx,c}/16;];\n"

static void test_host_slice_chains(void **state) {
  (void)state;
  expect_chains(SLICE_POOL, (int[]){2, 0}, (int64_t[]){1, 0});
  /* three kernels, the third reading the first's and the second's output:
     3 x 64 KiB per tx, 2 per slice -> 8 slices of 2 */
  expect_chains(SLICE_THREE, (int[]){3, 0, 0}, (int64_t[]){2, 0, 0});
  expect_chains(SLICE_MEAN, (int[]){2, 0}, (int64_t[]){4, 0});
  /* three slices only (SLICE_MEAN with 8192 columns: 6, 6, 4): alone */
  expect_chains("%in A : f32[16,16,8192]\n%out C : f32[16,8192]\n"
                "B^{16}_{tx=0}L^{16}_{a=0}L^{8192}_{c=0}[D^{f32,g}_{tx,c}=D^{f32,g}_{tx,c}+A^{f32,g}_{tx,a,c};];"
                "B^{16}_{tx=0}L^{8192}_{c=0}[C^{f32,g}_{tx,c}=D^{f32,g}_{tx,c}/16;];\n",
                (int[]){1, 1}, (int64_t[]){0, 0});
  /* too small for two slices: alone */
  expect_chains("%in A : f32[16,64]\n%out C : f32[16,64]\n"
                "B^{16}_{tx=0}L^{64}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
                "B^{16}_{tx=0}L^{64}_{a=0}[C^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+1;];\n",
                (int[]){1, 1}, (int64_t[]){0, 0});
  /* refused: another tx's element (D at 15-tx), D transposed, a later
     kernel writing what an earlier one reads elsewhere, no shared tensor,
     two kernels with unproven references, other extents, a batched matrix
     product (256 iterations per element it writes: CG_SLICE_REUSE) */
  const char *refused[] = {
      "%in A : f32[16,65536]\n%out C : f32[16,65536]\n"
      "B^{16}_{tx=0}L^{65536}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
      "B^{16}_{tx=0}L^{65536}_{a=0}[C^{f32,g}_{tx,a}=D^{f32,g}_{15-tx,a}+1;];\n",
      "%in A : f32[1024,1024]\n%out C : f32[1024,1024]\n"
      "B^{1024}_{tx=0}L^{1024}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
      "B^{1024}_{tx=0}L^{1024}_{a=0}[C^{f32,g}_{tx,a}=D^{f32,g}_{a,tx}+1;];\n",
      "%in A : f32[16,65536]\n%out C : f32[16,65536]\n%out E : f32[16,65536]\n"
      "B^{16}_{tx=0}L^{65536}_{a=0}[C^{f32,g}_{tx,a}=E^{f32,g}_{0,a}+A^{f32,g}_{tx,a};];"
      "B^{16}_{tx=0}L^{65536}_{a=0}[E^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+1;];\n",
      "%in A : f32[16,65536]\n%out C : f32[16,65536]\n%out E : f32[16,65536]\n"
      "B^{16}_{tx=0}L^{65536}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
      "B^{16}_{tx=0}L^{65536}_{a=0}[E^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}+1;];\n",
      "%in A : f32[16,65536]\n%in I : i32[16]\n%out C : f32[16,65536]\n"
      "B^{16}_{tx=0}L^{65536}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{I^{i32,g}_{tx},a}*2;];"
      "B^{16}_{tx=0}L^{65536}_{a=0}[C^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{I^{i32,g}_{tx},a};];\n",
      "%in A : f32[16,65536]\n%out C : f32[8,65536]\n"
      "B^{16}_{tx=0}L^{65536}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
      "B^{8}_{tx=0}L^{65536}_{a=0}[C^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+1;];\n",
      "%in A : f32[16,256,256]\n%in C : f32[16,256,256]\n%out F : f32[16,256,256]\n"
      "B^{16}_{tx=0}L^{256}_{a=0}L^{256}_{c=0}[E^{f32,g}_{tx,a,c}=abs(C^{f32,g}_{tx,a,c});];"
      "B^{16}_{tx=0}L^{256}_{a=0}L^{256}_{c=0}L^{256}_{d=0}[F^{f32,g}_{tx,a,c}=F^{f32,g}_{tx,a,c}+"
      "A^{f32,g}_{tx,a,d}*E^{f32,g}_{tx,d,c};];\n",
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) expect_chains(refused[i], (int[]){1, 1}, (int64_t[]){0, 0});
  /* one unproven kernel is allowed (the padded copy's guarded read) */
  expect_chains("%in A : f32[16,65536]\n%in I : i32[16]\n%out C : f32[16,65536]\n"
                "B^{16}_{tx=0}L^{65536}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{I^{i32,g}_{tx},a}*2;];"
                "B^{16}_{tx=0}L^{65536}_{a=0}[C^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+1;];\n",
                (int[]){2, 0}, (int64_t[]){1, 0});
}

/* Chained kernels give the interpreter's bits, on one thread and on the pool
 * (every nest parallel: par_min_work 1), with specials in A. */
static void fill_slice_specials(InterpProg *ip) {
  const float v[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1e-40f, -1e-40f, 3.5f, -2.25f, 65504.0f, 1e30f, -7.0f};
  set_f32(ip, "A", v, 12);
}

static void test_host_slice_runs(void **state) {
  (void)state;
  const char *progs[] = {
      SLICE_POOL,
      SLICE_THREE,
      SLICE_MEAN,
  };
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    host_vs_interp(progs[i], fill_slice_specials, 1);
    host_vs_interp_par(progs[i], fill_slice_specials, 2, false, 1);
    host_vs_interp_par(progs[i], fill_slice_specials, 3, false, 1);
  }
}

/* The thread count never changes a result (codegen/pool.h, host.c). */
static void test_host_threads(void **state) {
  (void)state;
  /* big enough to run in parallel; the result must not depend on it */
  const char *t = "%in A : f32[256,64]\n%in C : f32[64,96]\n%out D : f32[256,96]\n%out E : f32[256]\n"
                  "B^{256}_{tx=0}L^{96}_{a=0}L^{64}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];"
                  "P^{256}_{c=0}L^{96}_{a=0}[E^{f32,g}_{c}=max(E^{f32,g}_{c},D^{f32,g}_{c,a});];\n";
  host_vs_interp(t, NULL, 1);
  host_vs_interp(t, NULL, 4);
  host_vs_interp(t, NULL, 0); /* the CPUs idle now (host.c, threads_now) */
  /* every parallel nest on the pool, however small (the ranges are handed
     out as threads come: codegen/pool.h), on more threads than CPUs and on
     more ranges than iterations */
  for (int nt = 2; nt <= 9; nt += 7) {
    host_vs_interp_par(t, NULL, nt, false, 1);
    host_vs_interp_par("%in A : f32[3,5]\n%out C : f32[3,5]\n%out D : f32[3]\n"
                       "B^{3}_{tx=0}L^{5}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;];"
                       "B^{3}_{tx=0}L^{5}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+C^{f32,g}_{tx,a};];\n",
                       NULL, nt, false, 1);
  }
}

/* Runs text three times on one compiled host program, the f32 input A
 * (na elements, at most 16) given, and fails unless every run's first nc
 * elements of the f32 output C are want. */
static void rerun_with(const char *text, const float *a, int na, const float *want, int nc) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  float in[16], c[8];
  assert_true(na <= 16 && nc <= 8);
  memcpy(in, a, (size_t)na * sizeof *a);
  void *bufs[8] = {0};
  for (int i = 0; i < pr.p->ntensors && i < 8; i++)
    bufs[i] = !strcmp(pr.p->tensors[i]->name, "A") ? (void *)in : !strcmp(pr.p->tensors[i]->name, "C") ? (void *)c : NULL;
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  CgHostProgram *hp = cg_host_compile(&pr.ctx, pr.p, &o);
  assert_non_null(hp);
  for (int run = 0; run < 3; run++) {
    memset(c, 0, sizeof c);
    assert_true(cg_host_run(hp, bufs));
    assert_memory_equal(c, want, (size_t)nc * sizeof *want);
  }
  cg_host_free(hp);
  prog_free(&pr);
}

/* host.c keeps a program's intermediates from run to run: each run starts
 * them at zero again (an accumulating intermediate gives the same output
 * every run). */
static void test_host_rerun(void **state) {
  (void)state;
  const float a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, want[4] = {12, 30, 48, 66};
  rerun_with("%in A : f32[4,3]\n%out C : f32[4]\n"
             "B^{4}_{tx=0}L^{3}_{a=0}[T^{f32,g}_{tx}=T^{f32,g}_{tx}+A^{f32,g}_{tx,a};];"
             "B^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx}*2;];\n",
             a, 12, want, 4);
}

/* host.c written_first: an intermediate that a nest writes whole before
 * any read is not zeroed again at a rerun; one read before it is written
 * (in an earlier nest, or earlier in the same nest) or written in part still
 * is: every run gives the first run's results. */
static void rerun_same(const char *text, const float *want, int nc) {
  const float a[4] = {1, 2, 3, 4};
  rerun_with(text, a, 4, want, nc);
}

static void test_host_rerun_nozero(void **state) {
  (void)state;
  const float w1[4] = {3, 5, 7, 9}, z[4] = {0, 0, 0, 0}, w3[8] = {1, 0, 2, 0, 3, 0, 4, 0};
  rerun_same("%in A : f32[4]\n%out C : f32[4]\n"
             "B^{4}_{tx=0}[T^{f32,g}_{tx}=A^{f32,g}_{tx}*2;];B^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx}+1;];\n", w1, 4);
  rerun_same("%in A : f32[4]\n%out C : f32[4]\n"
             "B^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx};];B^{4}_{tx=0}[T^{f32,g}_{tx}=A^{f32,g}_{tx};];\n", z, 4);
  rerun_same("%in A : f32[4]\n%out C : f32[4]\n"
             "B^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx};T^{f32,g}_{tx}=A^{f32,g}_{tx};];\n", z, 4);
  rerun_same("%in A : f32[4]\n%out C : f32[8]\n"
             "B^{4}_{tx=0}[T^{f32,g}_{tx*2}=A^{f32,g}_{tx};];L^{8}_{a=0}[C^{f32,g}_{a}=T^{f32,g}_{a};];"
             "L^{8}_{a=0}[T^{f32,g}_{a}=5;];\n", w3, 8);
  /* a §9.5 reduction that reads T only where it writes: not zeroed (the
     identity is stored first); one that reads T elsewhere too (T[1] before
     tx = 1 writes it; no reduction index, so the identity is stored at
     every execution: T[0] = 0 + T[1] + 1, T[3] = 0 + T[0] + 4): zeroed */
  const float w4[4] = {3, 6, 9, 12}, w5[4] = {2, 4, 6, 8}, w6[4] = {1, 2, 3, 5};
  rerun_same("%in A : f32[4]\n%out C : f32[4]\n"
             "B^{4}_{tx=0}L^{3}_{a=0}[T^{f32,g}_{tx}=T^{f32,g}_{tx}+A^{f32,g}_{tx}*a;];"
             "B^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx};];\n", w4, 4);
  rerun_same("%in A : f32[4]\n%out C : f32[4]\n"
             "B^{4}_{tx=0}L^{3}_{a=0}[T^{f32,g}_{tx}=max(T^{f32,g}_{tx},A^{f32,g}_{tx}*a);];"
             "B^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx};];\n", w5, 4);
  rerun_same("%in A : f32[4]\n%out C : f32[4]\n"
             "L^{4}_{tx=0}L^{2}_{a=0}[T^{f32,g}_{tx}=T^{f32,g}_{tx}+T^{f32,g}_{(tx+1)%4}+A^{f32,g}_{tx};];"
             "L^{4}_{tx=0}[C^{f32,g}_{tx}=T^{f32,g}_{tx};];\n", w6, 4);
}

/* kernel.c: on a host with AVX-512 the code uses 512-bit vectors (LLVM
 * prefers 256 bits on Intel's cores: the packed SGEMM ran at half speed
 * there), elsewhere none: an f32 elementwise nest's assembly names zmm
 * registers exactly when cg_host_avx512 says so, and the results are the
 * interpreter's. */
static void test_host_vector_width(void **state) {
  (void)state;
  const char *text = "%in A : f32[64,256]\n%out C : f32[64,256]\n"
                     "B^{64}_{tx=0}L^{256}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*1.5+A^{f32,g}_{tx,a}/3.0;];\n";
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  LLVMTargetMachineRef tm = cg_host_machine(&pr.ctx, 2, false);
  assert_non_null(tm);
  bool avx512 = cg_host_avx512(tm);
  LLVMDisposeTargetMachine(tm);
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  SBuf asm_text = {0};
  assert_true(cg_emit_asm(&pr.ctx, pr.p, &o, &asm_text));
  assert_int_equal(strstr(asm_text.s, "%zmm") != NULL, avx512);
  sbuf_free(&asm_text);
  prog_free(&pr);
  host_vs_interp(text, fill_fuse, 1);
}

/* kernel.c: no loop of the host code becomes a call of memcpy, memmove
 * or memset (a padded copy's rows, a row zeroed by an identity store):
 * the assembly calls none, and the results are the interpreter's. */
static void test_host_no_mem_calls(void **state) {
  (void)state;
  const char *progs[] = {
      "%in A : f32[16,32,128]\n%out C : f32[16,32,64]\n"
      "B^{16}_{tx=0}L^{32}_{a=0}L^{130}_{c=0}[E^{f32,g}_{tx,a,c}=if_then_else(1<=c<129,A^{f32,g}_{tx,a,c-1},0);];"
      "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}L^{4}_{d=0}[D^{f32,g}_{tx,a,c}=D^{f32,g}_{tx,a,c}+E^{f32,g}_{tx,a,c*2+d};];"
      "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}[C^{f32,g}_{tx,a,c}=D^{f32,g}_{tx,a,c}/4;];\n",
      "%in A : f32[256,16]\n%in C : f32[16,256]\n%out D : f32[256,256]\n"
      "B^{256}_{tx=0}L^{256}_{a=0}L^{16}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n",
      "%in A : f32[64,256]\n%out C : f32[64,256]\n"
      "B^{64}_{tx=0}L^{256}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a};];\n",
  };
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    Prog pr;
    if (!prog_load(&pr, progs[i])) fail_msg("does not load: %s", pr.diag);
    CgOptions o;
    cg_options_init(&o);
    o.target = CG_TARGET_HOST;
    SBuf asm_text = {0};
    assert_true(cg_emit_asm(&pr.ctx, pr.p, &o, &asm_text));
    if (strstr(asm_text.s, "memcpy") || strstr(asm_text.s, "memmove") || strstr(asm_text.s, "memset"))
      fail_msg("program %zu calls a mem function", i);
    sbuf_free(&asm_text);
    prog_free(&pr);
    host_vs_interp(progs[i], fill_fuse, 1);
  }
}

/* The loop bounds of the host module's loops (opt_level 0: every loop as
 * lower.c makes it), "|r|35|" for a loop over a run-time range (the
 * parallel loop's) and one of 35 iterations. */
static void loop_bounds(const char *text, char *out, size_t n) {
  SBuf b;
  host_llvm_o0(text, &b);
  size_t len = 0;
  out[len++] = '|';
  for (const char *q = strstr(b.s, "icmp slt i64 %i"); q; q = strstr(q + 1, "icmp slt i64 %i")) {
    const char *c = strchr(q, ',');
    assert_non_null(c);
    if (c[2] == '%') /* a run-time bound: the parallel loop's range */
      len += (size_t)snprintf(out + len, n - len, "r|");
    else
      len += (size_t)snprintf(out + len, n - len, "%ld|", strtol(c + 1, NULL, 10));
    assert_true(len < n);
  }
  out[len] = '\0';
  sbuf_free(&b);
}

/* lower_loops.c, collapse_from: the trailing loops of a nest that only maps
 * elements run as one loop when every reference has them as its trailing
 * subscripts over dimensions of their extents (or does not mention them):
 * 5x7 runs as 35 (G_{a} keeps a out), 3x5x7 as 105 (tx, the parallel
 * loop, stays); an index used as a
 * value, a shifted or a transposed read, a reduction keep the loops.  Every
 * result is the interpreter's, on one thread and on two. */
static void test_host_collapse(void **state) {
  (void)state;
  const char *pre = "%in A : f32[4,3,5,7]\n%in G : f32[3]\n%out C : f32[4,3,5,7]\n";
  struct {
    const char *body, *bounds;
  } cases[] = {
      {"B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f32,g}_{tx,a,c,d}=exp(A^{f32,g}_{tx,a,c,d})*G^{f32,g}_{a}"
       "+C^{f32,g}_{tx,a,c,d};];", "|r|3|35|"},
      {"B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[E^{f32,g}_{tx,a,c,d}=log(1+exp(A^{f32,g}_{tx,a,c,d}));];"
       "B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f32,g}_{tx,a,((c)),d}=E^{f32,g}_{tx,a,c,d}*2;];", "|r|105|"},
      {"B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f32,g}_{tx,a,c,d}=A^{f32,g}_{tx,a,c,d}+d;];", "|r|3|5|7|"},
      {"B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f32,g}_{tx,a,c,d}=A^{f32,g}_{tx,a,c,(d+1)%7};];",
       "|r|3|5|7|"},
      {"B^{4}_{tx=0}L^{3}_{a=0}L^{7}_{c=0}L^{5}_{d=0}[C^{f32,g}_{tx,a,d,c}=A^{f32,g}_{tx,a,d,c};];", "|r|3|7|5|"},
      {"B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f32,g}_{tx,a,c,d}=A^{f32,g}_{tx,a,c,d};];"
       "B^{4}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}L^{7}_{d=0}[C^{f32,g}_{tx,a,c,0}=C^{f32,g}_{tx,a,c,0}"
       "+A^{f32,g}_{tx,a,c,d};];", "|r|105|r|3|5|7|"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[1024], got[256];
    snprintf(text, sizeof text, "%s%s\n", pre, cases[i].body);
    loop_bounds(text, got, sizeof got);
    if (strcmp(got, cases[i].bounds)) fail_msg("case %zu: loops %s, expected %s", i, got, cases[i].bounds);
    host_vs_interp(text, fill_fuse, 1);
    host_vs_interp_par(text, fill_fuse, 2, false, 1);
  }
}

/* Does the host module (opt_level 0) ask for a vectorisation width w? */
static bool width_hint(const char *text, int w) {
  SBuf b;
  host_llvm_o0(text, &b);
  char want[64];
  snprintf(want, sizeof want, "!{!\"llvm.loop.vectorize.width\", i32 %d}", w);
  bool has = strstr(b.s, want) != NULL;
  sbuf_free(&b);
  return has;
}

/* lower_loops.c, overlap_width and math_width (issue 59): an element loop
 * of 8 < E < 256 iterations, E not a multiple of 8, runs as [0, E - E % 8)
 * and [E - 8, E), both 8 lanes wide (no scalar remainder, the last vector
 * overlapping), unless the nest reads a tensor it writes, reduces or has
 * a reference that does not move one element along the loop (or none); a
 * loop whose statements call exp, log, erf or ** (f32 or f64) runs 16
 * lanes wide where its extent is a multiple of 16 (or large, or a run-time
 * range).  Every result is the interpreter's, on one thread and on two. */
static void test_host_overlap_tail(void **state) {
  (void)state;
  struct {
    const char *text, *bounds;
    int width, no_width;
  } cases[] = {
      {"%in A : f32[4,15]\n%out C : f32[4,15]\nB^{4}_{tx=0}L^{15}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a});];\n",
       "|r|8|15|", 8, 16},
      {"%in A : f32[3,30]\n%out C : f32[3,30]\n%out D : f32[3,30]\nB^{3}_{tx=0}L^{30}_{a=0}[C^{f32,g}_{tx,a}="
       "A^{f32,g}_{tx,a}*2+a;D^{f32,g}_{tx,a}=log(1+exp(A^{f32,g}_{tx,a}));];\n", "|r|24|30|", 8, 16},
      {"%in A : f16[5,13]\n%out C : f16[5,13]\nB^{5}_{tx=0}L^{13}_{a=0}[C^{f16,g}_{tx,a}=A^{f16,g}_{tx,a}+1;];\n",
       "|r|8|13|", 8, 16},
      {"%in A : f32[4,15]\n%out C : f32[4,15]\n%out D : f32[4,15]\nB^{4}_{tx=0}L^{15}_{a=0}[C^{f32,g}_{tx,a}="
       "A^{f32,g}_{tx,a}*2;D^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+1;];\n", "|r|15|", 0, 8},
      {"%in A : f32[4,15]\n%out C : f32[4,15]\nB^{4}_{tx=0}L^{15}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a};];"
       "B^{4}_{tx=0}L^{15}_{a=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,(a+1)%15}*2;];\n", "|r|8|15|r|15|", 8, 16},
      {"%in A : f32[4,15]\n%out C : f32[4,15]\nB^{4}_{tx=0}L^{15}_{a=0}L^{2}_{r=0}[C^{f32,g}_{tx,a}="
       "C^{f32,g}_{tx,a}+A^{f32,g}_{tx,a};];B^{4}_{tx=0}L^{15}_{a=0}[C^{f32,g}_{tx,a}=exp(C^{f32,g}_{tx,a});];\n",
       "|r|15|2|r|15|", 0, 8},
      {"%in A : f32[4,16]\n%out C : f32[4,16]\nB^{4}_{tx=0}L^{16}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a});];\n",
       "|r|16|", 16, 8},
      {"%in A : f32[4,24]\n%out C : f32[4,24]\nB^{4}_{tx=0}L^{24}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a});];\n",
       "|r|24|", 0, 16},
      {"%in A : f32[4,16]\n%out C : f32[4,16]\nB^{4}_{tx=0}L^{16}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}+1;];\n",
       "|r|16|", 0, 16},
      {"%in A : f32[4,7]\n%out C : f32[4,7]\nB^{4}_{tx=0}L^{7}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a});];\n",
       "|r|7|", 0, 8},
      {"%in A : f32[64]\n%out C : f32[64]\nB^{64}_{tx=0}[C^{f32,g}_{tx}=erf(A^{f32,g}_{tx});];\n", "|r|", 16, 8},
      {"%in A : f32[16,4]\n%out C : f32[4,16]\nB^{4}_{tx=0}L^{16}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{a,tx});];\n",
       "|r|16|", 0, 16},
      {"%in A : f32[15,4]\n%out C : f32[4,15]\nB^{4}_{tx=0}L^{15}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{a,tx});];\n",
       "|r|15|", 0, 8},
      {"%in A : f64[3,32]\n%out C : f64[3,32]\nB^{3}_{tx=0}L^{32}_{a=0}[C^{f64,g}_{tx,a}=log(A^{f64,g}_{tx,a})"
       "+A^{f64,g}_{tx,a}**1.5;];\n", "|r|32|", 16, 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char got[256];
    loop_bounds(cases[i].text, got, sizeof got);
    if (strcmp(got, cases[i].bounds)) fail_msg("case %zu: loops %s, expected %s", i, got, cases[i].bounds);
    if (cases[i].width && !width_hint(cases[i].text, cases[i].width))
      fail_msg("case %zu: no width %d", i, cases[i].width);
    if (width_hint(cases[i].text, cases[i].no_width)) fail_msg("case %zu: width %d", i, cases[i].no_width);
    host_vs_interp(cases[i].text, NULL, 1);
    host_vs_interp_par(cases[i].text, NULL, 2, false, 1);
  }
}

/* How many loops of the host module (opt_level 0: as lower_loops.c makes
 * them) carry the hint llvm.loop.unroll.full. */
static int full_unroll_hints(const char *text) {
  SBuf b;
  host_llvm_o0(text, &b);
  int n = 0;
  const char *full = strstr(b.s, " = !{!\"llvm.loop.unroll.full\"}");
  if (full) { /* the hint's node, !K, and the loops' nodes that list it */
    const char *k = full;
    while (k > b.s && k[-1] != '\n') k--;
    char node[32];
    int len = (int)(full - k);
    assert_true(len > 0 && len < (int)sizeof node - 1);
    snprintf(node, sizeof node, "%.*s}", len, k);  /* "!K}" ends a loop node's list */
    char mid[32];
    snprintf(mid, sizeof mid, "%.*s,", len, k);    /* or "!K," within it */
    for (const char *q = strstr(b.s, "distinct !{"); q; q = strstr(q + 1, "distinct !{")) {
      const char *e = strchr(q, '\n');
      size_t l = e ? (size_t)(e - q) : strlen(q);
      char line[256];
      snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line - 1 ? l : sizeof line - 1), q);
      if (strstr(line, node) || strstr(line, mid)) n++;
    }
  }
  sbuf_free(&b);
  return n;
}

/* lower_loops.c, tile_rows: the rows of a register tile (the second to last
 * loop of a nest that reduces over an outer loop into an element indexed
 * by the last two loops, one element at a time along the last) are unrolled
 * fully, in the loop proper and in its peeled first iteration (2 hints),
 * whatever the subscripts look like ((g*8+a)%8); a strided read along the
 * columns (C_{a,c}), the reduction innermost, a row loop the element does
 * not depend on, or more than 32 rows get none.  Every result is the
 * interpreter's bit for bit.  (A 16x16 tile of SGEMM 1024^3 ran 170 times
 * slower than a 4x64 one without the hint: LLVM vectorised the rows, with
 * gathers and scatters.) */
static void test_host_tile_rows(void **state) {
  (void)state;
  const char *d8 = "%in A : f32[8,16]\n%in C : f32[16,16]\n%in E : f32[1,16,8]\n%out D : f32[8,8]\n",
             *d40 = "%in A : f32[40,16]\n%in C : f32[16,2]\n%out G : f32[40,2]\n";
  struct {
    const char *decls, *body;
    int hints;
  } cases[] = {
      {d8, "L^{2}_{h=0}L^{16}_{c=0}L^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{h*4+tx,a}=D^{f32,g}_{h*4+tx,a}"
           "+A^{f32,g}_{h*4+tx,c}*C^{f32,g}_{c,a};];", 2},
      {d8, "L^{1}_{g=0}L^{2}_{h=0}L^{16}_{c=0}B^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{h*4+tx,g*8+a}="
           "D^{f32,g}_{h*4+tx,g*8+a}+A^{f32,g}_{h*4+tx,c}*E^{f32,g}_{(g*8+a)//8,c,(g*8+a)%8};];", 2},
      {d8, "L^{2}_{h=0}L^{16}_{c=0}L^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{h*4+tx,a}=D^{f32,g}_{h*4+tx,a}"
           "+A^{f32,g}_{h*4+tx,c}*C^{f32,g}_{a,c};];", 0},
      {d8, "L^{2}_{h=0}L^{4}_{tx=0}L^{8}_{a=0}L^{16}_{c=0}[D^{f32,g}_{h*4+tx,a}=D^{f32,g}_{h*4+tx,a}"
           "+A^{f32,g}_{h*4+tx,c}*C^{f32,g}_{c,a};];", 0},
      {d8, "L^{8}_{h=0}L^{16}_{c=0}L^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{h,a}=D^{f32,g}_{h,a}"
           "+A^{f32,g}_{h,c}*C^{f32,g}_{c,a+tx};];", 0},
      {d40, "L^{16}_{c=0}L^{40}_{tx=0}L^{2}_{a=0}[G^{f32,g}_{tx,a}=G^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];",
       0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s\n", cases[i].decls, cases[i].body);
    int got = full_unroll_hints(text);
    if (got != cases[i].hints) fail_msg("case %zu: %d loops unrolled fully, expected %d", i, got, cases[i].hints);
    host_vs_interp(text, fill_fuse, 1);
  }
}

/* f64 pow with exponents that vary (issue 59): the host's math loop (16
 * lanes) calls leir.pow's vector variants, which branch on whether any
 * lane needs the integer path or the general one.  Groups of 16 elements
 * that take each branch: no integer exponent, all integers (results in
 * range; one out of range; one lane with x = 0, inf or NaN), one integer
 * among non-integers and the reverse, each with some x < 0 and with every
 * x > 0 (no lane for pow's specials); then A**C of random inputs. */
static void fill_pow64(InterpProg *ip) {
  double *a = interp_find(ip, "A")->data, *c = interp_find(ip, "C")->data;
  static const double odd[] = {0.0, -0.0, INFINITY, NAN, 1.0, -INFINITY};
  for (int i = 0; i < 96 * 16; i++) {
    int g = i / 16, lane = i % 16, kind = g % 6, pick = (g * 7) % 16;
    double x = ldexp(1.0 + (i % 37) / 37.0, i % 21 - 10) * (g / 6 % 2 && i % 5 == 0 ? -1 : 1);
    double yn = (i % 41) * 1.37 - 27.3, yi = (double)(i % 129 - 64);
    a[i] = x;
    switch (kind) {
    case 0: c[i] = yn; break;
    case 1: c[i] = yi; break;
    case 2: a[i] = lane == pick ? 1e300 : x, c[i] = lane == pick ? 64.0 : yi; break;
    case 3: a[i] = lane == pick ? odd[g / 6 % 6] : x, c[i] = yi; break;
    case 4: c[i] = lane == pick ? yi : yn; break;
    default: c[i] = lane == pick ? yn : yi; break;
    }
  }
  /* the scalar remainder: a special, the integer path (in range or not),
     the general path */
  static const double ta[] = {0.0, 2.0, -2.0, 1e300, 8.0}, tc[] = {-1.0, 3.0, 3.0, 64.0, 1.0 / 3};
  for (int i = 0; i < 5; i++)
    a[2048 + i] = ta[i], c[2048 + i] = tc[i];
}

static void test_pow_f64_vector(void **state) {
  (void)state;
  const char *t = "%in A : f64[2053]\n%in C : f64[2053]\n%out D : f64[2053]\n"
                  "B^{2053}_{tx=0}[D^{f64,g}_{tx}=A^{f64,g}_{tx}**C^{f64,g}_{tx};];\n"; /* 5 in the scalar remainder */
  host_vs_interp(t, fill_pow64, 1);
}

/* f64 log (issue 59): the host's math loop (16 lanes) calls leir.log's
 * vector variants, which branch to a shorter sequence when every lane is
 * normal, positive and finite.  Groups of 16: all such x (any exponent,
 * near 1, near sqrt 2 where the mantissa is halved, the ends 2^-1022 and
 * DBL_MAX), and the same with one odd lane (0, -0, subnormals, negative,
 * inf, -inf, NaN); then a scalar remainder with specials. */
static void fill_log64(InterpProg *ip) {
  double *a = interp_find(ip, "A")->data;
  static const double odd[] = {0.0, -0.0, 0x1p-1074, 0x1.ffffffffffffep-1023, -2.0, INFINITY, -INFINITY, NAN};
  for (int i = 0; i < 96 * 16; i++) {
    int g = i / 16, lane = i % 16, pick = (g * 7) % 16;
    double x;
    switch (i % 5) {
    case 0: x = ldexp(1.0 + (i % 37) / 37.0, (i * 131) % 2045 - 1022); break;
    case 1: x = 1.0 + (i % 19 - 9) * 0x1p-40; break;
    case 2: x = ldexp(0x1.6a09e667f3bcdp+0 + (i % 9 - 4) * 0x1p-52, i % 41 - 20); break;
    case 3: x = i % 2 ? DBL_MIN : DBL_MAX; break;
    default: x = (i % 1000 + 1) * 0.37; break;
    }
    a[i] = g % 2 && lane == pick ? odd[g / 2 % 8] : x;
  }
  static const double ta[] = {0.0, -1.0, INFINITY, 0x1p-1070, 2.0};
  for (int i = 0; i < 5; i++)
    a[1536 + i] = ta[i];
}

static void test_log_f64_vector(void **state) {
  (void)state;
  const char *t = "%in A : f64[1541]\n%out D : f64[1541]\n"
                  "B^{1541}_{tx=0}[D^{f64,g}_{tx}=log(A^{f64,g}_{tx});];\n"; /* 5 in the scalar remainder */
  host_vs_interp(t, fill_log64, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_threads),
      cmocka_unit_test(test_host_slice_chains),
      cmocka_unit_test(test_host_slice_runs),
      cmocka_unit_test(test_host_fuse),
      cmocka_unit_test(test_host_fuse_pool),
      cmocka_unit_test(test_host_fuse_refused),
      cmocka_unit_test(test_host_vector_width),
      cmocka_unit_test(test_host_no_mem_calls),
      cmocka_unit_test(test_host_collapse),
      cmocka_unit_test(test_host_overlap_tail),
      cmocka_unit_test(test_host_tile_rows),
      cmocka_unit_test(test_host_rerun),
      cmocka_unit_test(test_host_rerun_nozero),
      cmocka_unit_test(test_pow_f64_vector),
      cmocka_unit_test(test_log_f64_vector),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
