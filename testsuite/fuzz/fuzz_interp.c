/* fuzz_interp.c -- libFuzzer harness for the reference interpreter (issue
 * 11, item 1b): parse -> analyse -> interpret, with bounded work.
 *
 * Input: a LEIR source, as for fuzz_parse.  Programs that do not analyse
 * are skipped (the front end has its own harness); the rest run with
 * --max-memory FZ_MAX_BYTES (LeirCtx.max_memory: larger programs must be
 * refused by interp_new with an error, before it allocates) and at most
 * FZ_MAX_STEPS statement executions.  The inputs are either the documented random inputs
 * (interp_random_inputs: index tensors in range) or raw random bits (NaNs,
 * huge indices), chosen and seeded by a hash of the source.
 *
 * Properties (a violation aborts):
 *  1. interp_new and interp_run fail only after reporting an error, never
 *     an internal one, and report no error when they succeed; interp_new
 *     fails when the tensors need more than FZ_MAX_BYTES.
 *  2. A successful run took at most FZ_MAX_STEPS steps.
 *  3. Runs are deterministic: a second run on the same inputs succeeds
 *     with the same number of steps and bit-identical outputs.
 * Crashes, sanitizer reports and hangs are found by libFuzzer.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/data.h"
#include "interp/interp.h"
#include "testsuite/fuzz/fuzz_common.h"

enum { FZ_MAX_BYTES = 1 << 20, FZ_MAX_STEPS = 20000 };

/* Raw random bits for every input and parameter. */
static void raw_inputs(InterpProg *ip, uint64_t seed) {
  for (int i = 0; i < interp_ntensors(ip); i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role != ROLE_IN && b->t->role != ROLE_PARAM) continue;
    unsigned char *d = b->data;
    for (size_t k = 0; k < b->nbytes; k++) d[k] = (unsigned char)fz_next(&seed);
    if (b->t->dtype == DT_BOOL) /* a bool is 0 or 1 */
      for (size_t k = 0; k < b->nbytes; k++) d[k] &= 1;
  }
}

/* The outputs of the last run, concatenated (malloc'd). */
static unsigned char *outputs(InterpProg *ip, size_t *len) {
  size_t n = 0;
  for (int i = 0; i < interp_ntensors(ip); i++)
    if (interp_buf(ip, i)->t->role == ROLE_OUT) n += interp_buf(ip, i)->nbytes;
  unsigned char *o = malloc(n ? n : 1), *q = o;
  for (int i = 0; i < interp_ntensors(ip); i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role != ROLE_OUT) continue;
    memcpy(q, b->data, b->nbytes);
    q += b->nbytes;
  }
  *len = n;
  return o;
}

static bool run_checked(Fz *f, InterpProg *ip) {
  int before = f->ctx.nerrors;
  bool ok = interp_run(ip);
  if (ok != (f->ctx.nerrors == before))
    fz_fail(f, ok ? "interp_run succeeded after reporting an error" : "interp_run failed silently", NULL);
  /* (a run stopped by the limit counts the step it refused) */
  if (ok && interp_steps(ip) > FZ_MAX_STEPS) fz_fail(f, "a run took more steps than its limit", NULL);
  fz_check_diags(f);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fz f;
  fz_init(&f, "fuzz\001.leir", (const char *)data, size);
  f.ctx.quiet_caret = true;
  IrProgram *p = fz_load(&f);
  if (!p) {
    fz_free(&f);
    return 0;
  }
  f.ctx.max_memory = FZ_MAX_BYTES;
  bool too_big = fz_tensor_bytes(p) > FZ_MAX_BYTES;
  uint64_t h = fz_hash(data, size);
  InterpOptions o = {.poison = (h & 1) != 0, .max_steps = FZ_MAX_STEPS};
  int before = f.ctx.nerrors;
  InterpProg *ip = interp_new(&f.ctx, p, &o);
  if (ip && too_big) fz_fail(&f, "interp_new accepted a program over --max-memory", NULL);
  if (!ip) {
    if (f.ctx.nerrors == before) fz_fail(&f, "interp_new failed silently", NULL);
    fz_check_diags(&f);
    fz_free(&f);
    return 0;
  }
  if (h & 2)
    interp_random_inputs(ip, h >> 8, NULL);
  else
    raw_inputs(ip, h >> 8);
  if (run_checked(&f, ip)) {
    uint64_t steps = interp_steps(ip);
    size_t n1, n2;
    unsigned char *o1 = outputs(ip, &n1);
    if (!run_checked(&f, ip)) fz_fail(&f, "a second run on the same inputs fails", NULL);
    if (interp_steps(ip) != steps) fz_fail(&f, "a second run takes another number of steps", NULL);
    unsigned char *o2 = outputs(ip, &n2);
    if (n1 != n2 || memcmp(o1, o2, n1)) fz_fail(&f, "a second run gives other outputs", NULL);
    free(o1);
    free(o2);
  }
  interp_free(ip);
  fz_free(&f);
  return 0;
}
