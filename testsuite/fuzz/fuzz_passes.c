/* fuzz_passes.c -- libFuzzer harness for the passes (issue 11, item 1c): a
 * random pipeline of legal candidates (what --list-applicable lists)
 * applied, verified and checked against the interpreter.
 *
 * Input: a LEIR source, as for fuzz_parse.  Programs that do not analyse or
 * are large (tensors over FZ_MAX_BYTES, more than FZ_MAX_STMTS statements)
 * are skipped.  A hash of the source seeds the choices: a pipeline of 1 to
 * FZ_MAX_PIPELINE steps, each a legal candidate of a pass drawn at random:
 * the passes are tried in a random order and the first with a legal
 * candidate on the current program gives one of them, drawn uniformly.
 * (Enumerating every pass's candidates at every step took 40 % of the
 * harness's time; drawing a pass first also gives the rare passes as many
 * tries as the ones with hundreds of candidates.)
 *
 * Properties, for every step (a violation aborts):
 *  1. A legal candidate applies: pass_apply (check, rewrite, re-analysis,
 *     ir_verify) returns a program.
 *  2. The result, printed as --dump-after prints it (its argument header
 *     and the canonical body), parses and analyses cleanly and prints back
 *     the same.
 *  3. The step keeps the result: interp_check_step on one random input set
 *     (bit-identical outputs for class E, the tolerance of STRATEGIES §0.4
 *     for class T) does not find a difference.  A class T step that the
 *     default tolerance rejects is accepted when the reference's own rule
 *     (CMP_REFERENCE, SPEC §13.4) accepts it: §0.4 documents that T steps
 *     may cancel catastrophically (additive_split's X+y-y loses the low
 *     bits of a small X), so only a difference the reference would reject
 *     counts as a miscompile.  A program that does not run
 *     within FZ_MAX_STEPS steps ends the pipeline, as does a step after which
 *     it needs more than FZ_WORK_FACTOR times as many.
 *  4. No diagnostic reports an internal error.
 * A failure names the pipeline up to the failing step and the input seed of
 * its check: `leirc -O 'PIPELINE' --verify --seed N FILE` (FILE: the saved
 * input) reproduces it.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "passes/pass.h"
#include "testsuite/fuzz/fuzz_common.h"

enum { FZ_MAX_BYTES = 1 << 16, FZ_MAX_STMTS = 64, FZ_MAX_STEPS = 20000, FZ_MAX_PIPELINE = 4, FZ_MAX_PASSES = 64 };
/* A step may add work (a staging copy, a split reduction); the program
 * after it gets this many times the steps of the one before. */
enum { FZ_WORK_FACTOR = 16 };

/* Does p run within `steps` statement executions (random inputs, seed 0)?
 * Programs that do not are not checked: the interpreter has its own
 * harness. */
static bool runs_within(Fz *f, const IrProgram *p, uint64_t steps) {
  LeirCtx *ctx = &f->ctx;
  int nerrors = ctx->nerrors;
  FILE *saved = ctx->diag_out, *null = fopen("/dev/null", "w");
  if (!null) abort();
  ctx->diag_out = null;
  InterpOptions o = {.max_steps = steps};
  InterpProg *ip = interp_new(ctx, p, &o);
  bool ok = ip != NULL;
  if (ip) {
    interp_random_inputs(ip, 0, NULL);
    ok = interp_run(ip);
    interp_free(ip);
  }
  fclose(null);
  ctx->diag_out = saved;
  ctx->nerrors = nerrors;
  return ok;
}

/* Property 3's fallback for class T: does q match p on the inputs of
 * `seed` under the reference's acceptance rule? */
static bool within_reference(Fz *f, const IrProgram *p, const IrProgram *q, uint64_t seed) {
  InterpOptions ro = {.max_steps = FZ_WORK_FACTOR * FZ_MAX_STEPS};
  InterpProg *a = interp_new(&f->ctx, p, &ro), *b = a ? interp_new(&f->ctx, q, &ro) : NULL;
  bool ok = false;
  if (a && b) {
    InterpCompareOpts co = {.seeds = 1, .seed = seed, .tol = CMP_REFERENCE, .run = ro};
    InterpDiff d;
    ok = interp_compare_progs(a, b, &co, &d) == 0 && d.verdict != CMP_DIFFER;
  }
  if (b) interp_free(b);
  if (a) interp_free(a);
  return ok;
}

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
  if (pass_table_size > FZ_MAX_PASSES) abort();
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
  /* the pipeline so far, as -O takes it: failures name it, so that
     `leirc -O PIPELINE --verify FILE` reproduces them */
  const char *pipeline = "";
  for (int step = 0; step < len; step++) {
    PtrVec legal = {0};
    int order[FZ_MAX_PASSES];
    for (int i = 0; i < pass_table_size; i++) order[i] = i;
    for (int i = pass_table_size - 1; i > 0; i--) {
      int j = (int)(fz_next(&rng) % (uint64_t)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int i = 0; i < pass_table_size && !legal.n; i++)
      pass_enumerate_legal(&f.ctx, p, &pass_table[order[i]], &legal);
    fz_check_diags(&f);
    if (!legal.n) break;
    PassCand *c = legal.v[fz_next(&rng) % (uint64_t)legal.n];
    const char *name = arena_printf(&f.ctx.arena, "%s%s%s", pipeline, step ? "," : "",
                                    pass_cand_spelling(&f.ctx, c));
    const char *reason = NULL;
    IrProgram *q = pass_apply(&f.ctx, p, c, &reason);
    if (!q) fz_fail(&f, "a legal candidate does not apply", arena_printf(&f.ctx.arena, "%s: %s", name, reason));
    check_printed(q, name);
    if (!runs_within(&f, p, FZ_MAX_STEPS)) break;
    InterpCheckOptions o = {.seed = fz_next(&rng) >> 8, .max_steps = FZ_WORK_FACTOR * FZ_MAX_STEPS};
    int before = f.ctx.nerrors;
    size_t diag_before = f.diag_len;
    int verdict = interp_check_step(&f.ctx, p, q, c->cls == PASS_T ? 'T' : 'E', 1, name, &o);
    if ((verdict != 0) != (f.ctx.nerrors > before))
      fz_fail(&f, "interp_check_step's verdict and diagnostics disagree", name);
    fflush(f.diag_f);
    bool t_ok = verdict == 1 && c->cls == PASS_T && within_reference(&f, p, q, o.seed);
    if (verdict == 1 && !t_ok && !strstr(f.diag + diag_before, "did not finish within"))
      fz_fail(&f, "a step changes the result",
              arena_printf(&f.ctx.arena, "leirc -O '%s' --verify --seed %llu FILE", name,
                           (unsigned long long)o.seed));
    fz_check_diags(&f);
    if (verdict != 0 && !t_ok) break; /* (a step that multiplies the work ends it) */
    p = q;
    pipeline = name;
  }
  fz_free(&f);
  return 0;
}
