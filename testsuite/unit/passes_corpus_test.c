#define _POSIX_C_SOURCE 200809L
/* passes_corpus_test.c -- every implemented pass over the whole corpus
 * ($top_srcdir/../shared/corpus; skipped when absent).
 *
 * Two groups of tests: the operator- and memory-level passes (issue 5) and
 * the graph- and math-level ones, so that a pass in progress in one group
 * does not hide the state of the other.
 *
 * candidates: for every corpus program, every candidate that
 *   --list-applicable would list (pass_enumerate_legal) is applied
 *   (pass_apply: check, rewrite, re-analysis, IR verifier); the result must
 *   print, re-parse with the program's sidecar and print back to the same
 *   text; and, for programs small enough to interpret quickly (at most
 *   LEIR_VERIFY_LIMIT statement executions, default 1000000), the
 *   interpreter runs before and after on the same random inputs: class E
 *   must be bit-identical, class T within the tolerance of STRATEGIES §0.4
 *   (or, counted apart, within the reference's acceptance rule: summing in
 *   another order can exceed the elementwise tolerance where the sum
 *   cancels to near zero).
 *   Counts are printed; the test fails on any failure.
 *
 * reference: for every record of transforms.jsonl.gz whose strategy is
 *   implemented, the reference's `after` is looked for among leirc's
 *   candidates on `before` (same printed text).  A match that leirc's check
 *   accepts must agree numerically with its class (when small enough); a
 *   REF output that is numerically wrong must be refused by leirc's check
 *   (or have no leirc candidate at all).  Counts and the wrong REF outputs
 *   are printed.
 *
 * LEIR_VERIFY_LIMIT=N raises or lowers the size limit (0: apply only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "interp/check.h"
#include "ir/ir.h"
#include "passes/pass.h"
#include "testsuite/corpus_walk.h"
#include "ir/readfile.h"

static char corpus[4096];
/* The passes a test covers: operator and memory level (issue 5), or graph
 * and math level. */
static bool in_scope(const PassInfo *p, bool opmem) {
  bool om = p->level == PASS_OPERATOR || p->level == PASS_MEMORY;
  return om == opmem;
}
static int64_t verify_limit = 1000000;

static char *body_text(const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  return b.s;
}

static int setup(void **state) {
  (void)state;
  corpus_dir(corpus, sizeof corpus, ".");
  const char *lim = getenv("LEIR_VERIFY_LIMIT");
  if (lim) verify_limit = strtoll(lim, NULL, 10);
  return 0;
}

static bool have_corpus(void) {
  char p[4200];
  snprintf(p, sizeof p, "%s/programs", corpus);
  struct stat st;
  return stat(p, &st) == 0;
}

/* ------------------------------------------------------------ candidates */

typedef struct Counts {
  int programs, candidates, applied, reparsed, verified_e, verified_t, t_reference_only, skipped_large, failures;
  int per_pass[64];
} Counts;

static void note_failure(Counts *c, const char *prog, const char *sp, const char *what) {
  c->failures++;
  if (c->failures <= 40) print_message("FAIL %s: %s: %s\n", prog, sp, what);
}

static void one_program(const CorpusProg *pr, Counts *cnt, FILE *devnull, bool opmem) {
  char *text = leir_read_file(pr->leir, NULL);
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, pr->leir, text, pr->decls, devnull);
  if (!p) {
    note_failure(cnt, pr->name, "-", "does not load");
    leir_ctx_free(&ctx);
    free(text);
    return;
  }
  cnt->programs++;
  bool small = corpus_work(p) <= verify_limit;
  for (int i = 0; i < pass_table_size; i++) {
    if (!in_scope(&pass_table[i], opmem)) continue;
    PtrVec legal = {0};
    pass_enumerate_legal(&ctx, p, &pass_table[i], &legal);
    for (int k = 0; k < legal.n; k++) {
      PassCand *c = legal.v[k];
      const char *sp = pass_cand_spelling(&ctx, c);
      cnt->candidates++;
      cnt->per_pass[i]++;
      const char *why = NULL;
      IrProgram *q = pass_apply(&ctx, p, c, &why);
      if (!q) {
        note_failure(cnt, pr->name, sp, why);
        continue;
      }
      cnt->applied++;
      {
        char *t0 = body_text(p), *t1 = body_text(q);
        bool same = !strcmp(t0, t1);
        free(t0);
        free(t1);
        if (same) {
          note_failure(cnt, pr->name, sp, "the candidate does not change the program");
          continue;
        }
      }
      /* round trip: print with the header, parse, analyse, print */
      SBuf b = {0};
      pass_print_program(&b, q);
      LeirCtx c2;
      IrProgram *r = corpus_load(&c2, "reparse", b.s, pr->decls, devnull);
      char *t1 = body_text(q), *t2 = r ? body_text(r) : NULL;
      if (!r || strcmp(t1, t2)) note_failure(cnt, pr->name, sp, r ? "printed text does not round-trip" : "printed text does not re-parse");
      else cnt->reparsed++;
      free(t1);
      free(t2);
      sbuf_free(&b);
      leir_ctx_free(&c2);
      if (!small) {
        cnt->skipped_large++;
        continue;
      }
      int v = corpus_compare(&ctx, p, q, c->cls == PASS_T ? CMP_DEFAULT : CMP_EXACT, NULL);
      if (v == CMP_DIFFER && c->cls == PASS_T && corpus_compare(&ctx, p, q, CMP_REFERENCE, NULL) != CMP_DIFFER) {
        /* a re-association whose error exceeds the elementwise tolerance
           (cancellation near zero), still within the reference's rule */
        cnt->t_reference_only++;
        print_message("note: %s: %s: class T result outside the default tolerance, within the reference rule\n",
                      pr->name, sp);
      } else if (v < 0 || v == CMP_DIFFER) {
        FILE *saved = ctx.diag_out;
        ctx.diag_out = stderr;
        InterpCheckOptions opt = {0, 0};
        interp_check_step(&ctx, p, q, c->cls == PASS_T ? 'T' : 'E', 1, sp, &opt);
        ctx.diag_out = saved;
        note_failure(cnt, pr->name, sp, "interpreter check failed");
      } else if (c->cls == PASS_T) {
        cnt->verified_t++;
      } else {
        cnt->verified_e++;
      }
    }
  }
  leir_ctx_free(&ctx);
  free(text);
}

static void run_candidates(bool opmem) {
  if (!have_corpus() || getenv("LEIR_SKIP_CANDIDATES")) skip();
  CorpusProg *progs;
  int n = corpus_list(corpus, &progs);
  FILE *devnull = fopen("/dev/null", "w");
  Counts cnt = {0};
  clock_t t0 = clock();
  const char *only = getenv("LEIR_CORPUS_ONLY");
  for (int i = 0; i < n; i++)
    if (!only || strstr(progs[i].name, only)) one_program(&progs[i], &cnt, devnull, opmem);
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  print_message("# count: corpus candidates (%s passes): %d programs, %d candidates, %d applied, %d re-parsed, %d verified (%d class E "
                "bit-identical, %d class T within tolerance, %d class T only within the reference rule), %d not "
                "interpreted (program above %lld steps), %d failures, %.1f s\n",
                opmem ? "operator and memory" : "graph and math", cnt.programs, cnt.candidates, cnt.applied, cnt.reparsed,
                cnt.verified_e + cnt.verified_t + cnt.t_reference_only, cnt.verified_e, cnt.verified_t,
                cnt.t_reference_only, cnt.skipped_large, (long long)verify_limit, cnt.failures, secs);
  for (int i = 0; i < pass_table_size; i++)
    if (pass_table[i].impl && in_scope(&pass_table[i], opmem))
      print_message("#   %-24s %d\n", pass_table[i].name, cnt.per_pass[i]);
  fclose(devnull);
  corpus_list_free(progs, n);
  assert_int_equal(cnt.failures, 0);
  assert_true(cnt.programs > 0);
}

static void test_candidates_operator_memory(void **state) {
  (void)state;
  run_candidates(true);
}

static void test_candidates_graph_math(void **state) {
  (void)state;
  run_candidates(false);
}

/* ------------------------------------------------------------ reference */

typedef struct RefCounts {
  int records, large, unparsable;
  int match_legal, match_illegal, unmatched;
  int agree, refused_wrong, refused_ok, legal_disagree, unmatched_wrong, unmatched_ok;
  int unmatched_by[64], illegal_by[64], records_by[64];
} RefCounts;

/* `text` with every tensor name that `p` does not have replaced by #1, #2,
 * ... in order of first appearance: fresh names differ between REF (its
 * counter includes the emitter's deleted temporaries) and leirc. */
static char *normalise_names(const IrProgram *p, const char *text) {
  SBuf b = {0};
  char fresh[64][16];
  int nfresh = 0;
  for (const char *q = text; *q;) {
    if (*q >= 'A' && *q <= 'Z' && (q == text || !((q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z')))) {
      const char *e = q + 1;
      while (*e >= 'a' && *e <= 'z') e++;
      if (*e == '^' && e - q < 15) {
        char name[16];
        memcpy(name, q, (size_t)(e - q));
        name[e - q] = 0;
        bool known = false;
        for (int i = 0; i < p->ntensors && !known; i++) known = !strcmp(p->tensors[i]->name, name);
        if (!known) {
          int k = 0;
          while (k < nfresh && strcmp(fresh[k], name)) k++;
          if (k == nfresh && nfresh < 64) strcpy(fresh[nfresh++], name);
          sbuf_printf(&b, "#%d", k + 1);
          q = e;
          continue;
        }
      }
    }
    sbuf_putc(&b, *q++);
  }
  return b.s;
}

/* The leirc candidate of `pass` on p whose result prints as `after`, legal
 * or not (*why: NULL if legal, else check's reason). */
static PassCand *find_match(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, const char *after,
                            const char **why) {
  PtrVec all = {0}, reasons = {0};
  pass_enumerate_all(ctx, p, pass, &all, &reasons);
  PassCand *found = NULL;
  for (int i = 0; i < all.n && !(found && !*why); i++) {
    PassCand *c = all.v[i];
    const char *r;
    IrProgram *q = pass_apply_unchecked(ctx, p, c, &r);
    if (!q) continue;
    char *t = body_text(q), *tn = normalise_names(p, t);
    bool eq = !strcmp(tn, after);
    free(t);
    free(tn);
    if (eq && (!found || !reasons.v[i])) {
      found = c;
      *why = reasons.v[i];
    }
  }
  return found;
}

/* The reference draws some parameters at random from domains that
 * enumerate() lists only in part (any permutation of a rank-4 tensor, the
 * order after reshape2, any split point): for a record no listed candidate
 * reproduces, try those variants of each candidate. */
static bool next_perm(int *a, int n) {
  int i = n - 2;
  while (i >= 0 && a[i] >= a[i + 1]) i--;
  if (i < 0) return false;
  int j = n - 1;
  while (a[j] <= a[i]) j--;
  int t = a[i];
  a[i] = a[j];
  a[j] = t;
  for (int l = i + 1, r = n - 1; l < r; l++, r--) t = a[l], a[l] = a[r], a[r] = t;
  return true;
}

static const char *perm_text(LeirCtx *ctx, const int *a, int n) {
  SBuf b = {0};
  for (int i = 0; i < n; i++) sbuf_printf(&b, "%s%d", i ? "." : "", a[i]);
  const char *r = arena_strdup(&ctx->arena, b.s);
  sbuf_free(&b);
  return r;
}

static bool try_variant(LeirCtx *ctx, const IrProgram *p, PassCand *v, const char *after) {
  const char *r;
  IrProgram *q = pass_apply_unchecked(ctx, p, v, &r);
  if (!q) return false;
  char *t = body_text(q), *tn = normalise_names(p, t);
  bool eq = !strcmp(tn, after);
  free(t);
  free(tn);
  return eq;
}

static PassCand *find_variant(LeirCtx *ctx, const IrProgram *p, const IrProgram *pa, const PassInfo *pass,
                              const char *after, const char **why) {
  PtrVec all = {0};
  pass_enumerate_all(ctx, p, pass, &all, NULL);
  for (int i = 0; i < all.n; i++) {
    PassCand *c = all.v[i], *v = arena_alloc(&ctx->arena, sizeof *v);
    *v = *c;
    const char *kind = pass_cand_get(c, "kind"), *t = pass_cand_get(c, "tensor");
    if (!strcmp(pass->name, "reduction_factorization")) {
      if (c->nest < 0 || c->nest >= pa->nnests) continue;
      const IrNest *m = pa->nests[c->nest];
      for (int l = 0; l < m->nloops; l++) {
        pass_cand_set_int(ctx, v, "split", m->loops[l]->extent);
        if (try_variant(ctx, p, v, after)) goto found;
      }
    } else if (kind && t && (!strcmp(kind, "transpose") || !strcmp(kind, "reshape2"))) {
      IrTensor *x = ir_find_tensor(p, t);
      bool r2 = !strcmp(kind, "reshape2");
      int n = x ? x->rank - (r2 ? 1 : 0) : 0;
      if (n < 1 || n > 6 || (r2 && strcmp(pass_cand_get(c, "fuse"), r2 ? pass_cand_get(c, "fuse") : ""))) continue;
      for (int pp = 0; pp < (r2 ? x->rank : 1); pp++)
        for (int qq = 0; qq < (r2 ? x->rank : 1); qq++) {
          if (r2 && pp == qq) continue;
          if (r2) pass_cand_set(ctx, v, "fuse", arena_printf(&ctx->arena, "%d.%d", pp, qq));
          int a[8];
          for (int k = 0; k < n; k++) a[k] = k;
          do {
            pass_cand_set(ctx, v, "perm", perm_text(ctx, a, n));
            if (try_variant(ctx, p, v, after)) goto found;
          } while (next_perm(a, n));
        }
    }
    continue;
  found: {
    PassCtx dummy;
    (void)dummy;
    const char *reason = NULL;
    PassCand *chk = arena_alloc(&ctx->arena, sizeof *chk);
    *chk = *v;
    IrProgram *q = pass_apply(ctx, p, chk, &reason);
    *why = q ? NULL : reason;
    return q ? chk : v;
  }
  }
  return NULL;
}

static const char *verdict_name(int v) {
  return v == CMP_EQUAL ? "bit-identical" : v == CMP_CLOSE ? "within tolerance" : v == CMP_DIFFER ? "DIFFERENT" : "not run";
}

static void run_reference(bool opmem) {
  if (!have_corpus() || getenv("LEIR_SKIP_REFERENCE")) skip();
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "gzip -dc '%s/transforms.jsonl.gz'", corpus);
  FILE *in = popen(cmd, "r");
  if (!in) skip();
  FILE *devnull = fopen("/dev/null", "w");
  RefCounts rc = {0};
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  const char *only = getenv("LEIR_CORPUS_ONLY");
  bool verbose = getenv("LEIR_REFERENCE_VERBOSE") != NULL;
  while ((len = getline(&line, &cap, in)) > 0) {
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    if (!o) continue;
    const char *strategy = json_string_value(json_object_get(o, "strategy"));
    const char *level = json_string_value(json_object_get(o, "level"));
    const char *wl = json_string_value(json_object_get(o, "workload"));
    const char *before = json_string_value(json_object_get(o, "before"));
    const char *after = json_string_value(json_object_get(o, "after"));
    long long idx = (long long)json_integer_value(json_object_get(o, "candidate_index"));
    const PassInfo *pass = strategy ? pass_lookup(strategy) : NULL;
    if (!pass || !pass->impl || !in_scope(pass, opmem) || !before || !after || !level || !wl ||
        (only && !strstr(wl, only))) {
      json_decref(o);
      continue;
    }
    int pi = (int)(pass - pass_table);
    rc.records++;
    rc.records_by[pi]++;
    char decls[4400];
    snprintf(decls, sizeof decls, "%s/programs/%s/%s.decls.json", corpus, level, wl);
    LeirCtx cb, ca;
    IrProgram *pb = corpus_load(&cb, "before", before, decls, devnull);
    IrProgram *pa = pb ? corpus_load(&ca, "after", after, decls, devnull) : NULL;
    if (!pb || !pa) {
      rc.unparsable++;
      print_message("UNPARSABLE %s %s #%lld (%s)\n", wl, strategy, idx, pb ? "after" : "before");
      if (pb) leir_ctx_free(&ca);
      leir_ctx_free(&cb);
      json_decref(o);
      continue;
    }
    char *after_raw = body_text(pa), *after_body = normalise_names(pb, after_raw);
    free(after_raw);
    const char *why = NULL;
    PassCand *m = find_match(&cb, pb, pass, after_body, &why);
    if (!m) m = find_variant(&cb, pb, pa, pass, after_body, &why);
    const char *sp = m ? pass_cand_spelling(&cb, m) : "-";
    if (m && !why) rc.match_legal++;
    else if (m) {
      rc.match_illegal++;
      rc.illegal_by[pi]++;
    } else {
      rc.unmatched++;
      rc.unmatched_by[pi]++;
      if (verbose) print_message("UNMATCHED %s %s #%lld\n  before %s\n  after  %s\n", wl, strategy, idx, before, after);
    }
    free(after_body);
    int v = -2;
    if (corpus_work(pb) > verify_limit || corpus_work(pa) > verify_limit) {
      rc.large++;
    } else {
      v = corpus_compare(&cb, pb, pa, CMP_DEFAULT, NULL);
      bool wrong = v < 0 || v == CMP_DIFFER;
      if (m && !why) {
        bool ok = m->cls == PASS_E ? v == CMP_EQUAL : !wrong;
        if (!ok && m->cls == PASS_T && corpus_compare(&cb, pb, pa, CMP_REFERENCE, NULL) == CMP_CLOSE) ok = true;
        if (ok) rc.agree++;
        else {
          rc.legal_disagree++;
          print_message("DISAGREE %s %s #%lld: leirc's %s (class %s) is legal but the interpreter says %s\n", wl,
                        strategy, idx, sp, pass_class_name(m->cls), verdict_name(v));
        }
      } else if (m) {
        if (wrong) rc.refused_wrong++;
        else rc.refused_ok++;
      } else if (wrong) {
        rc.unmatched_wrong++;
      } else {
        rc.unmatched_ok++;
      }
    }
    if (m && why)
      print_message("REFUSED %s %s #%lld = %s: %s [REF's output: %s]\n", wl, strategy, idx, sp, why,
                    v == -2 ? "too large to run" : verdict_name(v));
    else if (!m && v != -2 && (v < 0 || v == CMP_DIFFER))
      print_message("REF-WRONG %s %s #%lld: REF's output is %s and no leirc candidate produces it\n", wl, strategy, idx,
                    verdict_name(v));
    leir_ctx_free(&ca);
    leir_ctx_free(&cb);
    json_decref(o);
  }
  free(line);
  pclose(in);
  fclose(devnull);
  print_message("# count: reference transforms (%s passes): %d records of implemented strategies (%d unparsable): %d reproduced by a legal "
                "leirc candidate, %d by a candidate leirc refuses, %d by none\n",
                opmem ? "operator and memory" : "graph and math", rc.records, rc.unparsable, rc.match_legal,
                rc.match_illegal, rc.unmatched);
  print_message("# count:   interpreted %d (the rest too large): %d legal and agree with the class, %d refused and wrong, %d "
                "refused but numerically equal here, %d not reproduced and wrong, %d not reproduced but equal, "
                "%d disagreements\n",
                rc.records - rc.large - rc.unparsable, rc.agree, rc.refused_wrong, rc.refused_ok, rc.unmatched_wrong,
                rc.unmatched_ok, rc.legal_disagree);
  for (int i = 0; i < pass_table_size; i++)
    if (rc.records_by[i])
      print_message("#   %-24s %5d records, %4d refused, %4d not reproduced\n", pass_table[i].name, rc.records_by[i],
                    rc.illegal_by[i], rc.unmatched_by[i]);
  assert_int_equal(rc.legal_disagree, 0);
}

static void test_reference_operator_memory(void **state) {
  (void)state;
  run_reference(true);
}

static void test_reference_graph_math(void **state) {
  (void)state;
  run_reference(false);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_candidates_operator_memory),
    cmocka_unit_test(test_reference_operator_memory),
    cmocka_unit_test(test_candidates_graph_math),
    cmocka_unit_test(test_reference_graph_math),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
