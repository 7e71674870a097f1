/* costmodel_test.c -- unit tests of the analytic cost model
 * (codegen/costmodel.h): exact estimates of small programs, worked out by
 * hand from the rules in codegen/costmodel.c, and orderings the model must
 * respect (stride-1 innermost loops are cheaper on the host, coalesced
 * accesses cheaper on the GPU, more threads better until the GPU is full),
 * determinism, and the diagnostics. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/costmodel.h"
#include "testsuite/unit/unit_prog.h"

/* The estimate of `text` for t, as leirc --print-cost prints it. */
static void estimate_text(const char *text, CostTarget t, char *out, size_t n) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  CostEstimate e;
  assert_true(cost_model_estimate(&pr.ctx, pr.p, t, 90, &e));
  snprintf(out, n, "seconds %.6g flops %.6g bytes %.6g parallelism %.6g coalescing %.6g occupancy %.6g",
           e.seconds, e.flops, e.bytes, e.parallelism, e.coalescing, e.occupancy);
  assert_string_equal(pr.diag, "");
  prog_free(&pr);
}

static double seconds_of(const char *text, CostTarget t) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  CostEstimate e;
  assert_true(cost_model_estimate(&pr.ctx, pr.p, t, 90, &e));
  prog_free(&pr);
  return e.seconds;
}

static const char *ELEMWISE =
    "%in A : f32[64,32]\n%out C : f32[64,32]\n"
    "B^{64}_{tx=0}L^{32}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2.0;];\n";

/* Host: 2048 iterations of one multiply, vectorised 8 wide along a
 * (256 cycles = 85.3 ns); the program's 16 KiB stay in L1 (warm caches:
 * no traffic beyond it; bytes = the 256 lines moved into L1 cold); 4 page
 * walks (80 cycles = 26.7 ns); plus the 50 ns of a nest.  2048 iterations
 * are too few for the parallel loop. */
static void test_host_exact(void **state) {
  (void)state;
  char got[512];
  estimate_text(ELEMWISE, COST_HOST, got, sizeof got);
  assert_string_equal(got, "seconds 1.62e-07 flops 2048 bytes 16384 parallelism 1 coalescing 1 occupancy 1");
}

/* CUDA sm_90: one block of 64 threads (2 warps of 64 resident: occupancy
 * 1/32); each thread runs a over 32 elements 128 bytes apart across the
 * warp (32 sectors for 128 useful bytes: coalescing 1/8).  One warp's
 * chain: 32*4 + 400*64/4 + 2048 transactions = 8576 cycles = 4.331 us;
 * memory: 24576 bytes at 4.8 TB/s * 2/2112 (2 warps cannot saturate HBM)
 * = 5.407 us; plus 4 us of launch. */
static void test_cuda_exact(void **state) {
  (void)state;
  char got[512];
  estimate_text(ELEMWISE, COST_CUDA, got, sizeof got);
  assert_string_equal(got, "seconds 9.40672e-06 flops 2048 bytes 24576 parallelism 64 coalescing 0.125 "
                           "occupancy 0.03125");
}

/* Operation weights: exp = 60, / = 6, + = 1, an index used as a value = 1. */
static void test_flop_weights(void **state) {
  (void)state;
  char got[512];
  estimate_text("%in A : f32[8]\n%out C : f32[8]\n"
                "B^{8}_{tx=0}[C^{f32,g}_{tx}=exp(A^{f32,g}_{tx})/(A^{f32,g}_{tx}+tx);];\n",
                COST_HOST, got, sizeof got);
  /* 8 * (60 + 6 + 1 + 1) */
  assert_non_null(strstr(got, "flops 544 "));
}

/* --fp-contract=on (ir/contract.h): a*b+c is one operation, not two; the
 * matmul accumulation D = D + A*C too. */
static void test_flop_fp_contract(void **state) {
  (void)state;
  const char *text = "%in A : f32[64,32]\n%in C : f32[32,48]\n%out D : f32[64,48]\n"
                     "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*"
                     "C^{f32,g}_{c,a};];\n";
  for (int fc = 0; fc < 2; fc++) {
    Prog pr;
    assert_true(prog_load(&pr, text));
    pr.ctx.fp_contract = fc;
    CostEstimate e;
    assert_true(cost_model_estimate(&pr.ctx, pr.p, COST_HOST, 90, &e));
    assert_true(e.flops == (fc ? 1.0 : 2.0) * 64 * 48 * 32);
    prog_free(&pr);
  }
}

/* Host: the same copy in row order (stride-1 innermost, vectorised, each
 * line once) and column order (4 KiB stride innermost: a line per element,
 * the lines of a column do not survive in L1). */
static void test_host_loop_order(void **state) {
  (void)state;
  const char *hdr = "%in A : f32[1024,1024]\n%out C : f32[1024,1024]\n";
  char rows[512], cols[512];
  snprintf(rows, sizeof rows, "%sL^{1024}_{a=0}L^{1024}_{c=0}[C^{f32,g}_{a,c}=A^{f32,g}_{a,c}*2.0;];\n", hdr);
  snprintf(cols, sizeof cols, "%sL^{1024}_{c=0}L^{1024}_{a=0}[C^{f32,g}_{a,c}=A^{f32,g}_{a,c}*2.0;];\n", hdr);
  double r = seconds_of(rows, COST_HOST), c = seconds_of(cols, COST_HOST);
  assert_true(r * 2 < c);
  /* a reduction chain along the innermost loop costs the add latency:
   * summing rows is cheaper with the row index outside */
  const char *h2 = "%in A : f32[512,512]\n%out C : f32[512]\n";
  char s1[512], s2[512];
  snprintf(s1, sizeof s1, "%sL^{512}_{a=0}L^{512}_{c=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{a,c};];\n", h2);
  snprintf(s2, sizeof s2, "%sL^{512}_{c=0}L^{512}_{a=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{a,c};];\n", h2);
  assert_true(seconds_of(s1, COST_HOST) < seconds_of(s2, COST_HOST));
}

/* CUDA: the same grid and block; threadIdx.x along the last dimension
 * (coalesced) or along the first (a 16 KiB stride). */
static void test_cuda_coalescing(void **state) {
  (void)state;
  const char *good = "%in A : f32[4096,256]\n%out C : f32[4096,256]\n"
                     "B^{4096}_{bx=0}B^{256}_{tx=0}[C^{f32,g}_{bx,tx}=A^{f32,g}_{bx,tx}+1.0;];\n";
  const char *bad = "%in A : f32[256,4096]\n%out C : f32[256,4096]\n"
                    "B^{4096}_{bx=0}B^{256}_{tx=0}[C^{f32,g}_{tx,bx}=A^{f32,g}_{tx,bx}+1.0;];\n";
  Prog pr;
  CostEstimate g, b;
  assert_true(prog_load(&pr, good));
  assert_true(cost_model_estimate(&pr.ctx, pr.p, COST_CUDA, 90, &g));
  prog_free(&pr);
  assert_true(prog_load(&pr, bad));
  assert_true(cost_model_estimate(&pr.ctx, pr.p, COST_CUDA, 90, &b));
  prog_free(&pr);
  assert_true(g.coalescing == 1.0);
  assert_true(b.coalescing == 0.125);
  assert_true(g.flops == b.flops && g.bytes == b.bytes);
  assert_true(g.seconds * 2 < b.seconds);
}

/* CUDA: 2^22 elements as G blocks of 256 threads, each thread looping over
 * 2^14/G elements: more blocks are faster until HBM is saturated (256
 * blocks: 2 resident blocks of 8 warps on each of the 132 SMs), then
 * equal. */
static void test_cuda_threads(void **state) {
  (void)state;
  static const int gs[] = {1, 4, 16, 64, 256, 1024, 4096, 16384};
  double t[8];
  for (int i = 0; i < 8; i++) {
    char text[512];
    int k = 16384 / gs[i];
    snprintf(text, sizeof text,
             "%%in A : f32[4194304]\n%%out C : f32[4194304]\n"
             "B^{%d}_{bx=0}L^{%d}_{a=0}B^{256}_{tx=0}[C^{f32,g}_{(bx*%d+a)*256+tx}=A^{f32,g}_{(bx*%d+a)*256+tx}*2.0;];\n",
             gs[i], k, k, k);
    t[i] = seconds_of(text, COST_CUDA);
  }
  for (int i = 1; i < 5; i++) assert_true(t[i] < 0.5 * t[i - 1]);
  for (int i = 5; i < 8; i++) assert_true(t[i] == t[4]);
}

/* Occupancy: blocks of one warp are limited by the 32 blocks an SM takes
 * (32 of 64 warps); blocks of 8 warps fill an SM; few blocks leave SMs
 * half empty. */
static void test_cuda_occupancy(void **state) {
  (void)state;
  static const struct { int blocks, threads; double occ; } cases[] = {
    {16384, 32, 0.5}, {2048, 256, 1.0}, {264, 256, 0.25}, {132, 1024, 0.5},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    snprintf(text, sizeof text,
             "%%in A : f32[%d,%d]\n%%out C : f32[%d,%d]\n"
             "B^{%d}_{bx=0}B^{%d}_{tx=0}[C^{f32,g}_{bx,tx}=A^{f32,g}_{bx,tx}*2.0;];\n",
             cases[i].blocks, cases[i].threads, cases[i].blocks, cases[i].threads, cases[i].blocks,
             cases[i].threads);
    Prog pr;
    CostEstimate e;
    assert_true(prog_load(&pr, text));
    assert_true(cost_model_estimate(&pr.ctx, pr.p, COST_CUDA, 90, &e));
    prog_free(&pr);
    assert_true(e.occupancy == cases[i].occ);
    assert_true(e.parallelism == (double)cases[i].blocks * cases[i].threads);
  }
}

/* The same program gives bit-identical estimates; sm_70 is slower than
 * sm_90 on a memory-bound kernel. */
static void test_deterministic(void **state) {
  (void)state;
  const char *text = "%in A : f32[4096,256]\n%out C : f32[4096,256]\n"
                     "B^{4096}_{bx=0}B^{256}_{tx=0}[C^{f32,g}_{bx,tx}=exp(A^{f32,g}_{bx,tx});];\n";
  Prog a, b;
  CostEstimate x, y, z;
  assert_true(prog_load(&a, text));
  assert_true(prog_load(&b, text));
  assert_true(cost_model_estimate(&a.ctx, a.p, COST_CUDA, 90, &x));
  assert_true(cost_model_estimate(&b.ctx, b.p, COST_CUDA, 90, &y));
  assert_memory_equal(&x, &y, sizeof x);
  assert_true(cost_model_estimate(&a.ctx, a.p, COST_HOST, 90, &x));
  assert_true(cost_model_estimate(&b.ctx, b.p, COST_HOST, 70, &y));
  assert_memory_equal(&x, &y, sizeof x); /* gpu_sm is ignored for the host */
  assert_true(cost_model_estimate(&a.ctx, a.p, COST_CUDA, 70, &z));
  assert_true(cost_model_estimate(&b.ctx, b.p, COST_CUDA, 90, &y));
  assert_true(z.seconds > y.seconds);
  assert_string_equal(a.diag, "");
  prog_free(&a);
  prog_free(&b);
}

/* Which nests the host JIT runs on its pool (codegen/parallel.h, issue
 * 41): a second core must save CG_PAR_MIN_S (50 us) of the model's time.
 * HardTanh's nest (262144 min/max, 2 MiB: 44 us by the model, bound by L3)
 * saves 22 us and stays on one thread; GELU's (the same, with erf: 834 us)
 * goes on the pool, and the estimate counts it on HOST_CORES cores. */
static void host_par_of(const char *text, bool want, double parallelism) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  bool par[2] = {!want, !want};
  assert_true(cost_model_host_par(&pr.ctx, pr.p, par));
  assert_int_equal(par[0], want);
  CostEstimate e;
  assert_true(cost_model_estimate(&pr.ctx, pr.p, COST_HOST, 90, &e));
  assert_true(e.parallelism == parallelism);
  prog_free(&pr);
}

static void test_host_par(void **state) {
  (void)state;
  host_par_of("%in A : f32[16,16384]\n%out C : f32[16,16384]\n"
              "B^{16}_{tx=0}L^{16384}_{a=0}[C^{f32,g}_{tx,a}=min(max(A^{f32,g}_{tx,a},-1.0),1.0);];\n",
              false, 1);
  host_par_of("%in A : f32[16,16384]\n%out C : f32[16,16384]\n"
              "B^{16}_{tx=0}L^{16384}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*0.5*(1+erf(A^{f32,g}_{tx,a}/sqrt(2)));];\n",
              true, 4);
}

/* A program the GPU cannot run: the plan's error, false, out zeroed; the
 * host model still works. */
static void test_cuda_error(void **state) {
  (void)state;
  Prog pr;
  CostEstimate e;
  assert_true(prog_load(&pr, "%in A : f32[2048]\n%out C : f32[]\n"
                             "B^{2048}_{tx=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{tx};];\n"));
  memset(&e, 0xff, sizeof e);
  assert_false(cost_model_estimate(&pr.ctx, pr.p, COST_CUDA, 90, &e));
  assert_true(e.seconds == 0 && e.flops == 0);
  assert_int_equal(pr.ctx.nerrors, 1);
  assert_string_equal(pr.diag,
                      "t.leir:3:1: error: B loop 'tx' of extent 2048 exceeds the limits of a thread block (1024 "
                      "threads on threadIdx.x, at most 1024 per block) and cannot be spread over blocks: it has a "
                      "cross-thread reduction\n");
  assert_true(cost_model_estimate(&pr.ctx, pr.p, COST_HOST, 90, &e));
  assert_true(e.flops == 2048);
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_host_exact),
    cmocka_unit_test(test_cuda_exact),
    cmocka_unit_test(test_flop_weights),
    cmocka_unit_test(test_flop_fp_contract),
    cmocka_unit_test(test_host_loop_order),
    cmocka_unit_test(test_cuda_coalescing),
    cmocka_unit_test(test_cuda_threads),
    cmocka_unit_test(test_cuda_occupancy),
    cmocka_unit_test(test_deterministic),
    cmocka_unit_test(test_host_par),
    cmocka_unit_test(test_cuda_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
