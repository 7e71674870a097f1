/* host_check.c -- the host JIT against the interpreter, bit for bit
 * (host_check.h), for codegen_test and host_sched_test. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "interp/check.h"
#include "interp/compare.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "testsuite/unit/host_check.h"
#include "testsuite/unit/unit_prog.h"

char cmp_kind(IrDType t) {
  if (t == DT_BF16) return 'b';
  if (ir_dtype_is_float(t)) return 'f';
  if (t == DT_BOOL) return '?';
  return ir_dtype_is_unsigned_int(t) ? 'u' : 'i';
}

void host_llvm_o0(const char *text, SBuf *out) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  o.opt_level = 0;
  *out = (SBuf){0};
  assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, out));
  prog_free(&pr);
}

/* Runs text in the interpreter and on the host (with nthreads threads) on
 * the same inputs (random from seed, then `fill` applied) and checks every
 * output and intermediate bit for bit. */

/* fc: --fp-contract=on (ir/contract.h) for both; par_min_work: the host's
 * CgOptions.par_min_work (1: every parallel nest on nthreads threads). */
void host_vs_interp_par(const char *text, FillFn fill, int nthreads, bool fc, int64_t par_min_work) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  pr.ctx.fp_contract = fc;
  InterpProg *ip = interp_new(&pr.ctx, pr.p, NULL);
  assert_non_null(ip);
  int n = interp_ntensors(ip);
  bool *given = calloc((size_t)n + 1, 1);
  interp_random_inputs(ip, 7, given);
  if (fill) fill(ip);
  if (!interp_run(ip)) fail_msg("interpreter: %s", pr.diag);
  void **ref = calloc((size_t)n + 1, sizeof *ref);
  void **bufs = calloc((size_t)n + 1, sizeof *bufs);
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    ref[i] = malloc(b->nbytes + 1);
    memcpy(ref[i], b->data, b->nbytes);
    if (b->t->role == ROLE_OUT || b->t->role == ROLE_TMP) memset(b->data, 0xA5, b->nbytes);
    bufs[i] = b->data;
  }
  /* outputs and intermediates: zero, as the interpreter starts them */
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role == ROLE_OUT || b->t->role == ROLE_TMP) memset(b->data, 0, b->nbytes);
  }
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  o.nthreads = nthreads;
  o.par_min_work = par_min_work;
  if (!cg_run_host(&pr.ctx, pr.p, &o, bufs)) fail_msg("host: %s", pr.diag);
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role != ROLE_OUT && b->t->role != ROLE_TMP) continue;
    /* bit-identical; two NaNs are equal whatever their payloads */
    if (cmp_arrays(cmp_kind(b->t->dtype), (size_t)ir_dtype_size(b->t->dtype), b->data, ref[i], b->numel,
                   CMP_EXACT).verdict != CMP_EQUAL) {
      char x[64] = "", y[64] = "";
      int64_t k = 0;
      size_t es = (size_t)ir_dtype_size(b->t->dtype);
      while (k < b->numel && !memcmp((char *)ref[i] + (size_t)k * es, (char *)b->data + (size_t)k * es, es)) k++;
      interp_format_elem(x, sizeof x, b->t->dtype, ref[i], k);
      interp_format_elem(y, sizeof y, b->t->dtype, b->data, k);
      fail_msg("'%s' differs at %lld: interpreter %s, host %s", b->t->name, (long long)k, x, y);
    }
  }
  for (int i = 0; i < n; i++) free(ref[i]);
  free(ref);
  free(bufs);
  free(given);
  interp_free(ip);
  prog_free(&pr);
}

void host_vs_interp_mode(const char *text, FillFn fill, int nthreads, bool fc) {
  host_vs_interp_par(text, fill, nthreads, fc, 0);
}

void host_vs_interp(const char *text, FillFn fill, int nthreads) {
  host_vs_interp_mode(text, fill, nthreads, false);
}

void set_f32(InterpProg *ip, const char *name, const float *v, int n) {
  InterpBuf *b = interp_find(ip, name);
  for (int i = 0; i < n && i < b->numel; i++) ((float *)b->data)[i] = v[i];
}
