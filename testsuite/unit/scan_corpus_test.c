/* scan_corpus_test.c -- scan_rewrite (leirc's own strategy) on the corpus
 * ($LEIR_CORPUS or $top_srcdir/../shared/corpus; skipped when absent).
 *
 * test_candidates: over every corpus program, the programs on which
 *   scan_rewrite has a legal candidate are exactly the corpus's scans, each
 *   with one candidate on the prefix-sum nest: level1/cumsum (nest 0),
 *   level1/cumsum_exclusive (nest 6) and level1/masked_cumsum (nest 1).
 *   No other program (the triangular matmuls' masks included) gets one.
 *
 * test_results: on each of them the candidate is applied; the program
 *   before (O(n^2): 2*10^9 statement executions for cumsum, run on the host
 *   JIT, which is bit-identical to the interpreter) and the program after
 *   (O(n), in the interpreter) run on the same inputs -- the corpus data
 *   where it has some (cumsum_exclusive), else random inputs of seed 0 --
 *   and every output must be bit-identical (class E); where the corpus has
 *   PyTorch's output, the program after must match it under the reference
 *   acceptance rule (SPEC 13.4, cmp_arrays CMP_REFERENCE). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "interp/check.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "interp/npy.h"
#include "ir/readfile.h"
#include "passes/pass.h"
#include "testsuite/corpus_walk.h"

static char corpus[4096];

/* The corpus's scans and the nest of their prefix sum. */
static const struct {
  const char *name;
  int nest;
} scans[] = {
  {"level1/cumsum", 0},
  {"level1/cumsum_exclusive", 6},
  {"level1/masked_cumsum", 1},
};
enum { NSCANS = sizeof scans / sizeof scans[0] };

static int setup(void **state) {
  (void)state;
  corpus_dir(corpus, sizeof corpus, ".");
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/programs/level1", corpus);
  FILE *f = fopen(probe, "r");
  if (!f) {
    printf("1..0 # SKIP corpus not found at %s\n", corpus);
    exit(77);
  }
  fclose(f);
  return 0;
}

static IrProgram *load(LeirCtx *ctx, const char *leir, const char *decls, FILE *diag) {
  leir_ctx_init(ctx);
  ctx->diag_out = diag;
  ctx->no_warnings = true;
  ctx->quiet_caret = true;
  size_t len;
  char *text = leir_read_file(leir, &len);
  if (!text) return NULL;
  leir_ctx_set_source(ctx, leir, text, len);
  free(text);
  IrProgram *p = ps_parse(ctx);
  IrDeclList side = {0};
  if (!p || (decls && !ir_decls_load_json(ctx, decls, &side)) || !ir_sema(ctx, p, decls ? &side : NULL)) return NULL;
  return p;
}

static void test_candidates(void **state) {
  (void)state;
  const PassInfo *scan = pass_lookup("scan_rewrite");
  assert_non_null(scan);
  assert_true(scan->own);
  CorpusProg *progs;
  int n = corpus_list(corpus, &progs);
  assert_true(n > 0);
  FILE *devnull = fopen("/dev/null", "w");
  int found[NSCANS] = {0}, others = 0, loaded = 0;
  for (int i = 0; i < n; i++) {
    LeirCtx ctx;
    IrProgram *p = load(&ctx, progs[i].leir, progs[i].decls, devnull);
    if (p) {
      loaded++;
      PtrVec legal = {0};
      pass_enumerate_legal(&ctx, p, scan, &legal);
      int k = 0;
      while (k < NSCANS && strcmp(scans[k].name, progs[i].name)) k++;
      if (k == NSCANS) {
        if (legal.n) print_message("unexpected candidate on %s: %s\n", progs[i].name,
                                   pass_cand_spelling(&ctx, legal.v[0]));
        others += legal.n;
      } else {
        char want[64];
        snprintf(want, sizeof want, "scan_rewrite(nest=%d)", scans[k].nest);
        assert_int_equal(legal.n, 1);
        assert_string_equal(pass_cand_spelling(&ctx, legal.v[0]), want);
        assert_int_equal(((PassCand *)legal.v[0])->cls, PASS_E);
        found[k]++;
      }
    }
    leir_ctx_free(&ctx);
  }
  fclose(devnull);
  corpus_list_free(progs, n);
  print_message("# count: scan_rewrite: %d corpus programs loaded, candidates on %d of %d scans, %d elsewhere\n",
                loaded, found[0] + found[1] + found[2], NSCANS, others);
  for (int k = 0; k < NSCANS; k++) assert_int_equal(found[k], 1);
  assert_int_equal(others, 0);
}

static char cmp_kind(IrDType t) {
  if (t == DT_BF16) return 'b';
  if (ir_dtype_is_float(t)) return 'f';
  if (t == DT_BOOL) return '?';
  return ir_dtype_is_unsigned_int(t) ? 'u' : 'i';
}

/* Fills b's inputs from the corpus data of `name` when it has some: true
 * and the manifest in *man, else false (random inputs then). */
static bool data_inputs(InterpProg *ip, const char *name, json_t **man) {
  char dir[4400], path[4600];
  snprintf(dir, sizeof dir, "%s/data/%s", corpus, name);
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  json_error_t jerr;
  *man = json_load_file(path, 0, &jerr);
  if (!*man) return false;
  bool *given = calloc((size_t)interp_ntensors(ip) + 1, 1);
  size_t i;
  json_t *t;
  json_array_foreach(json_object_get(*man, "tensors"), i, t) {
    if (!strcmp(json_string_value(json_object_get(t, "role")), "output")) continue;
    InterpBuf *b = interp_find(ip, json_string_value(json_object_get(t, "leir_name")));
    assert_non_null(b);
    snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(t, "file")));
    assert_true(interp_load_npy(ip, b, path));
    given[b->t->id] = true;
  }
  interp_random_inputs(ip, 0, given);
  free(given);
  return true;
}

static void test_results(void **state) {
  (void)state;
  FILE *devnull = fopen("/dev/null", "w");
  for (int k = 0; k < NSCANS; k++) {
    char leir[4400], decls[4400];
    snprintf(leir, sizeof leir, "%s/programs/%s.leir", corpus, scans[k].name);
    snprintf(decls, sizeof decls, "%s/programs/%s.decls.json", corpus, scans[k].name);
    LeirCtx ctx;
    IrProgram *p = load(&ctx, leir, decls, devnull);
    assert_non_null(p);
    PassCand c;
    const char *err = NULL;
    char sp[64];
    snprintf(sp, sizeof sp, "scan_rewrite(nest=%d)", scans[k].nest);
    assert_true(pass_parse_spelling(&ctx, sp, &c, &err));
    IrProgram *q = pass_apply(&ctx, p, &c, &err);
    if (!q) fail_msg("%s: %s", scans[k].name, err);
    InterpOptions big = {false, 0};
    InterpProg *a = interp_new(&ctx, p, &big), *b = interp_new(&ctx, q, &big);
    assert_non_null(a);
    assert_non_null(b);
    json_t *man = NULL;
    bool data = data_inputs(a, scans[k].name, &man);
    if (!data) interp_random_inputs(a, 0, NULL);
    assert_true(cg_run_host_interp(&ctx, a));
    InterpDiff d;
    /* after on the interpreter (runner NULL), before on the host JIT */
    assert_int_equal(interp_compare_ran_with(a, b, 0, CMP_EXACT, NULL, NULL, &d), 0);
    if (d.verdict != CMP_EQUAL) fail_msg("%s: the scan differs from the masked sum", scans[k].name);
    int refs = 0;
    if (data) {
      size_t i;
      json_t *t;
      json_array_foreach(json_object_get(man, "tensors"), i, t) {
        if (strcmp(json_string_value(json_object_get(t, "role")), "output")) continue;
        InterpBuf *ob = interp_find(b, json_string_value(json_object_get(t, "leir_name")));
        assert_non_null(ob);
        char path[4800];
        snprintf(path, sizeof path, "%s/data/%s/%s", corpus, scans[k].name,
                 json_string_value(json_object_get(t, "file")));
        NpyArray ref;
        char nerr[256];
        assert_int_equal(npy_read(path, &ref, nerr, sizeof nerr), 0);
        assert_int_equal(ref.nelem, (size_t)ob->numel);
        CmpResult r = cmp_arrays(cmp_kind(ob->t->dtype), ref.elem_size, ob->data, ref.data, ob->numel, CMP_REFERENCE);
        if (r.verdict == CMP_DIFFER) fail_msg("%s: output %s does not match PyTorch's", scans[k].name, ob->t->name);
        refs++;
        npy_free(&ref);
      }
      json_decref(man);
      assert_true(refs > 0);
    }
    print_message("# %s: %s bit-identical to the masked sum (%s inputs)%s\n", scans[k].name, sp,
                  data ? "corpus" : "random", refs ? ", matches PyTorch's output (reference rule)" : "");
    interp_free(a);
    interp_free(b);
    leir_ctx_free(&ctx);
  }
  fclose(devnull);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_candidates),
    cmocka_unit_test(test_results),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
