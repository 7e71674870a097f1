/* interp_bench.c -- speed of the reference interpreter on one core, in
 * scalar statement executions per second (best of 3 runs of interp_run,
 * inputs random, compile time excluded), by the process's CPU time (which
 * other load on the machine barely affects) and by wall-clock time.  Run with `make bench` (pinned to
 * one core there) or directly: bench/interp_bench [N]  (default N = 256).
 *
 * Cases: matmul N^3 in f32 and f64 (the fused multiply-accumulate path),
 * a max-of-products reduction (general bytecode path), an exp/divide
 * elementwise body, and a guarded prefix sum (if_then_else, cumsum-like). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/data.h"
#include "interp/interp.h"

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench(const char *name, const char *text) {
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  leir_ctx_set_source(&ctx, name, text, strlen(text));
  IrProgram *p = ps_parse(&ctx);
  InterpOptions o = {false, 0};
  InterpProg *ip = p && ir_sema(&ctx, p, NULL) ? interp_new(&ctx, p, &o) : NULL;
  if (!ip) {
    leir_ctx_free(&ctx);
    return 1;
  }
  interp_random_inputs(ip, 0, NULL);
  double best = 1e30, best_wall = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    if (!interp_run(ip)) break;
    double dc = now(CLOCK_PROCESS_CPUTIME_ID) - c0, dw = now(CLOCK_MONOTONIC) - w0;
    if (dc < best) best = dc;
    if (dw < best_wall) best_wall = dw;
  }
  uint64_t steps = interp_steps(ip);
  printf("%-26s %10llu stmts  cpu %7.3f s %7.1f M/s  wall %7.3f s %7.1f M/s\n", name,
         (unsigned long long)steps, best, (double)steps / best / 1e6, best_wall, (double)steps / best_wall / 1e6);
  interp_free(ip);
  leir_ctx_free(&ctx);
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  if (n < 2 || n > 4096) n = 256;
  char buf[2048];
  int rc = 0;
  snprintf(buf, sizeof buf,
           "%%in A : f32[%d,%d]\n%%in C : f32[%d,%d]\n%%out D : f32[%d,%d]\n"
           "B^{%d}_{tx=0}L^{%d}_{a=0}L^{%d}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];",
           n, n, n, n, n, n, n, n, n);
  rc |= bench("matmul f32", buf);
  snprintf(buf, sizeof buf,
           "%%in A : f64[%d,%d]\n%%in C : f64[%d,%d]\n%%out D : f64[%d,%d]\n"
           "B^{%d}_{tx=0}L^{%d}_{a=0}L^{%d}_{c=0}[D^{f64,g}_{tx,a}=D^{f64,g}_{tx,a}+A^{f64,g}_{tx,c}*C^{f64,g}_{c,a};];",
           n, n, n, n, n, n, n, n, n);
  rc |= bench("matmul f64", buf);
  snprintf(buf, sizeof buf,
           "%%in A : f32[%d,%d]\n%%in C : f32[%d,%d]\n%%out D : f32[%d,%d]\n"
           "B^{%d}_{tx=0}L^{%d}_{a=0}L^{%d}_{c=0}[D^{f32,g}_{tx,a}=max(D^{f32,g}_{tx,a},A^{f32,g}_{tx,c}*C^{f32,g}_{c,a});];",
           n, n, n, n, n, n, n, n, n);
  rc |= bench("max-of-products f32", buf);
  snprintf(buf, sizeof buf,
           "%%in A : f32[%d,%d,%d]\n%%out E : f32[%d,%d,%d]\n"
           "B^{%d}_{tx=0}L^{%d}_{a=0}L^{%d}_{c=0}[E^{f32,g}_{tx,a,c}=1/(1+exp(-A^{f32,g}_{tx,a,c}));];",
           n, n, n, n, n, n, n, n, n);
  rc |= bench("sigmoid f32 (exp)", buf);
  snprintf(buf, sizeof buf,
           "%%in G : f32[%d,%d]\n%%out H : f32[%d,%d]\n"
           "B^{%d}_{tx=0}L^{%d}_{a=0}L^{%d}_{c=0}[H^{f32,g}_{tx,a}=H^{f32,g}_{tx,a}+if_then_else(c<=a,G^{f32,g}_{tx,c},0);];",
           n, n, n, n, n, n, n);
  rc |= bench("cumsum f32 (if_then_else)", buf);
  return rc;
}
