/* fuzz_passes.c -- libFuzzer harness for the passes (issue 11, item 1c): a
 * random pipeline of legal candidates (what --list-applicable lists)
 * applied, verified and checked against the interpreter.
 *
 * Input: a LEIR source, as for fuzz_parse.  Programs that do not analyse or
 * are large (tensors over FZ_MAX_BYTES, more than FZ_MAX_STMTS statements)
 * are skipped.  A hash of the source seeds the choices: a pipeline of 1 to
 * FZ_MAX_PIPELINE steps, each a candidate drawn among every legal candidate
 * of every implemented pass on the current program.
 *
 * Properties, for every step (a violation aborts):
 *  1. A legal candidate applies: pass_apply (check, rewrite, re-analysis,
 *     ir_verify) returns a program.
 *  2. The result, printed as --dump-after prints it (its argument header
 *     and the canonical body), parses and analyses cleanly and prints back
 *     the same.
 *  3. The step keeps the result: interp_check_step on one random input set
 *     (bit-identical outputs for class E, the tolerance of STRATEGIES §0.4
 *     for class T) does not find a difference.  Steps it cannot check (the
 *     program before the step fails to run within FZ_MAX_STEPS) end the
 *     pipeline.
 *  4. No diagnostic reports an internal error.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "interp/interp.h"
#include "passes/pass.h"
#include "testsuite/fuzz/fuzz_common.h"

enum { FZ_MAX_BYTES = 1 << 16, FZ_MAX_STMTS = 64, FZ_MAX_STEPS = 20000, FZ_MAX_PIPELINE = 4 };

/* Property 2. */
static void check_printed(const IrProgram *q, const char *step) {
  SBuf b = {0};
  pass_print_program(&b, q);
  Fz c;
  fz_init(&c, "step\001.leir", b.s, b.len);
  IrProgram *r = ps_parse(&c.ctx);
  if (!r || !ir_sema(&c.ctx, r, NULL) || c.ctx.nerrors)
    fz_fail(&c, "the program after a step does not analyse", step);
  SBuf b2 = {0};
  pass_print_program(&b2, r);
  if (strcmp(b.s, b2.s)) fz_fail(&c, "the program after a step does not print back the same", step);
  sbuf_free(&b2);
  sbuf_free(&b);
  fz_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fz f;
  fz_init(&f, "fuzz\001.leir", (const char *)data, size);
  f.ctx.quiet_caret = true;
  IrProgram *p = fz_load(&f);
  if (!p || fz_tensor_bytes(p) > FZ_MAX_BYTES || p->nstmts > FZ_MAX_STMTS) {
    fz_free(&f);
    return 0;
  }
  uint64_t rng = fz_hash(data, size);
  int len = 1 + (int)(fz_next(&rng) % FZ_MAX_PIPELINE);
  for (int step = 0; step < len; step++) {
    PtrVec legal = {0};
    for (int i = 0; i < pass_table_size; i++) pass_enumerate_legal(&f.ctx, p, &pass_table[i], &legal);
    fz_check_diags(&f);
    if (!legal.n) break;
    PassCand *c = legal.v[fz_next(&rng) % (uint64_t)legal.n];
    const char *name = pass_cand_spelling(&f.ctx, c);
    const char *reason = NULL;
    IrProgram *q = pass_apply(&f.ctx, p, c, &reason);
    if (!q) fz_fail(&f, "a legal candidate does not apply", arena_printf(&f.ctx.arena, "%s: %s", name, reason));
    check_printed(q, name);
    InterpCheckOptions o = {.seed = rng >> 8, .max_steps = FZ_MAX_STEPS};
    int before = f.ctx.nerrors;
    int verdict = interp_check_step(&f.ctx, p, q, c->cls == PASS_T ? 'T' : 'E', 1, name, &o);
    if (verdict == 1) fz_fail(&f, "a step changes the result", name);
    if ((verdict != 0) != (f.ctx.nerrors > before)) fz_fail(&f, "interp_check_step's verdict and diagnostics disagree", name);
    fz_check_diags(&f);
    if (verdict == 2) break;
    p = q;
  }
  fz_free(&f);
  return 0;
}
