#define _POSIX_C_SOURCE 200809L
/* passes_graph_test.c -- the 9 graph-level strategies (STRATEGIES §1)
 * against the corpus ($top_srcdir/../shared/corpus; skipped when absent).
 *
 * reference: every record of transforms.jsonl.gz for one of the 9 is
 *   compared with leirc.  The reference's `after` is looked for among the
 *   results of leirc's candidates on `before` -- the enumerated ones and,
 *   for parameters REF draws at random (tensor_split's split point), every
 *   value that occurs as a number in `after` -- legal candidates first,
 *   then refused ones (applied without their check); tensor names that
 *   `before` does not have are compared up to renaming (REF's name counter
 *   runs on from candidate to candidate).  When both programs
 *   are small enough (LEIR_VERIFY_LIMIT statement executions, default
 *   1000000), the interpreter runs `before` and `after` on the same random
 *   inputs.  A record is then:
 *     agree        reproduced by a legal candidate whose class the numbers
 *                  confirm (E: bit-identical; T: within the tolerance of
 *                  STRATEGIES §0.4, or the reference rule);
 *     disagree     reproduced by a legal candidate, numbers contradict the
 *                  class (a leirc bug: the test fails);
 *     refused      reproduced only by a candidate leirc's check refuses
 *                  (split by whether REF's output is numerically wrong:
 *                  outside the tolerance of §0.4 and the reference rule,
 *                  or it does not run);
 *     unmatched    no leirc candidate produces that text (split likewise).
 *   Counts per strategy and every numerically wrong REF output are
 *   printed (lines starting `# count:` are shown by testsuite/check.sh).
 *
 * candidates (only with LEIR_GRAPH_CANDIDATES=1; passes_corpus_test does
 *   it for every pass): every legal candidate of the 9 on every corpus
 *   program is applied, re-parsed and verified as passes_corpus_test does,
 *   with per-pass counts.
 *
 * dataflow: the analyses of passes/dataflow.h on small programs.
 *
 * LEIR_CORPUS_ONLY=WORD restricts both corpus tests to workloads whose
 * name contains WORD. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/check.h"
#include "ir/ir.h"
#include "passes/dataflow.h"
#include "passes/pass.h"
#include "passes/rewrite.h"
#include "testsuite/corpus_walk.h"

static const char *const graph[] = {
    "operator_fusion",       "operator_fission",
    "compute_inline",        "expression_splitting",
    "tensor_concat_to_fuse_operators", "tensor_split_to_decouple_operators",
    "common_subexpression_elimination", "dead_code_elimination",
    "expression_reorder",
};
enum { NGRAPH = sizeof graph / sizeof graph[0] };

static char corpus[4096];
static int64_t verify_limit = 1000000;

static int graph_index(const char *name) {
  for (int i = 0; i < NGRAPH; i++)
    if (!strcmp(graph[i], name)) return i;
  return -1;
}

static char *body_text(const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  return b.s;
}

/* Does the class agree with the numbers? */
static bool class_ok(LeirCtx *ctx, const IrProgram *a, const IrProgram *b, PassClass cls, FILE *devnull) {
  int v = corpus_compare(ctx, a, b, cls == PASS_E ? CMP_EXACT : CMP_DEFAULT, devnull);
  if (v == CMP_EQUAL || (cls == PASS_T && v == CMP_CLOSE)) return true;
  /* class T: a re-associated sum that cancels to near zero may leave the
     elementwise tolerance and still meet the reference's rule */
  return cls == PASS_T && v == CMP_DIFFER && corpus_compare(ctx, a, b, CMP_REFERENCE, devnull) == CMP_CLOSE;
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

/* ------------------------------------------------------------ reference */

typedef struct Tally {
  int records, unparsable, large;
  int agree, disagree, refused_wrong, refused_ok, refused_large, unmatched_wrong, unmatched_ok, unmatched_large;
} Tally;

/* The integers spelt in `text` (deduplicated, at most max). */
static int numbers_in(const char *text, int64_t *v, int max) {
  int n = 0;
  for (const char *p = text; *p && n < max;) {
    if (!isdigit((unsigned char)*p)) {
      p++;
      continue;
    }
    char *end;
    long long x = strtoll(p, &end, 10);
    bool dup = false;
    for (int i = 0; i < n; i++) dup |= v[i] == x;
    if (!dup) v[n++] = x;
    p = end;
  }
  return n;
}

/* Index of the first top-level nest where a and b differ. */
static int first_difference(const IrProgram *a, const IrProgram *b) {
  int k = 0;
  for (; k < a->nnests && k < b->nnests; k++) {
    SBuf x = {0}, y = {0};
    ir_print_nest(&x, a->nests[k]);
    ir_print_nest(&y, b->nests[k]);
    bool same = !strcmp(x.s, y.s);
    sbuf_free(&x);
    sbuf_free(&y);
    if (!same) break;
  }
  return k;
}

/* Candidates to try: the enumerated ones whose nest is at (or just before)
 * the first nest that changed, and variants with `split` set to every
 * number of `after`. */
static void candidates(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, const IrProgram *pa, const char *after,
                       PtrVec *out) {
  PtrVec all = {0}, reasons = {0};
  pass_enumerate_all(ctx, p, pass, &all, &reasons);
  static int64_t nums[4096];
  int nn = numbers_in(after, nums, 4096);
  int first = first_difference(p, pa);
  for (int i = 0; i < all.n; i++) {
    PassCand *c = all.v[i];
    int64_t k;
    if (pass_cand_get_int(c, "nest", &k) == 1 && (k > first || k < first - 1)) continue;
    ptrvec_push(&ctx->arena, out, c);
    if (!pass_cand_get(c, "split")) continue;
    for (int k = 0; k < nn; k++) {
      PassCand *d = arena_alloc(&ctx->arena, sizeof *d);
      *d = *c;
      pass_cand_set_int(ctx, d, "split", nums[k]);
      ptrvec_push(&ctx->arena, out, d);
    }
  }
}

/* `text` with every tensor name that p does not have replaced by `#k`, k
 * numbering them in order of first appearance: the reference's fresh-name
 * counter runs on across candidates (it may start at another name than
 * leirc's), so fresh names are compared up to renaming. */
static char *normalise(const char *text, const IrProgram *p) {
  size_t n = strlen(text);
  SBuf out = {0};
  const char *fresh[256];
  int nf = 0;
  for (size_t i = 0; i < n;) {
    char ch = text[i];
    bool start = isupper((unsigned char)ch) && !strchr("LPVUBT", ch) && (i == 0 || !isalnum((unsigned char)text[i - 1]));
    if (!start) {
      sbuf_putc(&out, ch);
      i++;
      continue;
    }
    size_t j = i + 1;
    while (j < n && islower((unsigned char)text[j])) j++;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(j - i), text + i);
    if (ir_find_tensor(p, name)) {
      sbuf_puts(&out, name);
    } else {
      int k = 0;
      while (k < nf && strcmp(fresh[k], name)) k++;
      if (k == nf && nf < 256) fresh[nf++] = strdup(name);
      sbuf_printf(&out, "#%d", k);
    }
    i = j;
  }
  for (int k = 0; k < nf; k++) free((void *)fresh[k]);
  return out.s ? out.s : strdup("");
}

/* The candidate whose result prints as `after`: legal ones win.  *why is
 * NULL for a legal one, else the check's reason. */
static PassCand *find_match(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, const IrProgram *pa,
                            const char *after, const char **why) {
  PtrVec cands = {0};
  candidates(ctx, p, pass, pa, after, &cands);
  PassCand *refused = NULL;
  const char *refused_why = NULL;
  for (int i = 0; i < cands.n; i++) {
    PassCand *c = cands.v[i];
    const char *r = NULL;
    IrProgram *q = pass_apply(ctx, p, c, &r);
    bool legal = q != NULL;
    if (!q) {
      if (refused || !r || !strncmp(r, "internal error", 14)) continue;
      const char *r2;
      q = pass_apply_unchecked(ctx, p, c, &r2);
      if (!q) continue;
    }
    char *t = body_text(q), *nt = normalise(t, p);
    bool eq = !strcmp(nt, after);
    free(t);
    free(nt);
    if (!eq) continue;
    if (legal) {
      *why = NULL;
      return c;
    }
    refused = c;
    refused_why = r;
  }
  *why = refused_why;
  return refused;
}

static void reference_record(json_t *o, Tally *t, FILE *devnull) {
  const char *strategy = json_string_value(json_object_get(o, "strategy"));
  const char *level = json_string_value(json_object_get(o, "level"));
  const char *wl = json_string_value(json_object_get(o, "workload"));
  const char *before = json_string_value(json_object_get(o, "before"));
  const char *after = json_string_value(json_object_get(o, "after"));
  long long idx = (long long)json_integer_value(json_object_get(o, "candidate_index"));
  const PassInfo *pass = pass_lookup(strategy);
  t->records++;
  char decls[4400];
  snprintf(decls, sizeof decls, "%s/programs/%s/%s.decls.json", corpus, level, wl);
  LeirCtx cb, ca;
  IrProgram *pb = corpus_load(&cb, "before", before, decls, devnull);
  IrProgram *pa = pb ? corpus_load(&ca, "after", after, decls, devnull) : NULL;
  if (!pa) {
    t->unparsable++;
    print_message("UNPARSABLE %s %s #%lld (%s)\n", wl, strategy, idx, pb ? "after" : "before");
    if (pb) leir_ctx_free(&ca);
    leir_ctx_free(&cb);
    return;
  }
  char *ab0 = body_text(pa), *ab = normalise(ab0, pb);
  free(ab0);
  const char *why = NULL;
  PassCand *m = find_match(&cb, pb, pass, pa, ab, &why);
  free(ab);
  const char *sp = m ? pass_cand_spelling(&cb, m) : "-";
  bool small = corpus_work(pb) <= verify_limit && corpus_work(pa) <= verify_limit;
  int v = small ? corpus_compare(&cb, pb, pa, CMP_DEFAULT, devnull) : -2;
  /* a re-associated sum that cancels may leave the elementwise tolerance:
     REF's output is wrong only if it fails the reference's rule too */
  bool wrong = v == -1 || (v == CMP_DIFFER && corpus_compare(&cb, pb, pa, CMP_REFERENCE, devnull) == CMP_DIFFER);
  if (!small) t->large++;
  if (m && !why) {
    if (!small || class_ok(&cb, pb, pa, m->cls, devnull)) t->agree++;
    else {
      t->disagree++;
      print_message("DISAGREE %s %s #%lld: %s is legal (class %s) but the interpreter says otherwise\n", wl, strategy,
                    idx, sp, pass_class_name(m->cls));
    }
  } else if (m) {
    if (!small) t->refused_large++;
    else if (wrong) t->refused_wrong++;
    else t->refused_ok++;
    if (small && wrong) print_message("REF-WRONG %s %s #%lld: refused: %s: %s\n", wl, strategy, idx, sp, why);
  } else {
    if (!small) t->unmatched_large++;
    else if (wrong) t->unmatched_wrong++;
    else t->unmatched_ok++;
    if (small && wrong) print_message("REF-WRONG %s %s #%lld: no leirc candidate produces it\n", wl, strategy, idx);
  }
  if (getenv("LEIR_REFERENCE_VERBOSE") && (!m || why))
    print_message("%s %s %s #%lld%s%s\n", m ? "REFUSED" : "UNMATCHED", wl, strategy, idx, m ? ": " : "", m ? why : "");
  leir_ctx_free(&ca);
  leir_ctx_free(&cb);
}

static void test_reference(void **state) {
  (void)state;
  if (!have_corpus()) skip();
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "gzip -dc '%s/transforms.jsonl.gz'", corpus);
  FILE *in = popen(cmd, "r");
  if (!in) skip();
  FILE *devnull = fopen("/dev/null", "w");
  Tally t[NGRAPH] = {0}, all = {0};
  char *line = NULL;
  size_t cap = 0;
  const char *only = getenv("LEIR_CORPUS_ONLY");
  while (getline(&line, &cap, in) > 0) {
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    if (!o) continue;
    const char *strategy = json_string_value(json_object_get(o, "strategy"));
    const char *wl = json_string_value(json_object_get(o, "workload"));
    int g = strategy ? graph_index(strategy) : -1;
    if (g >= 0 && wl && (!only || strstr(wl, only)) && json_string_value(json_object_get(o, "before")) &&
        json_string_value(json_object_get(o, "after")) && json_string_value(json_object_get(o, "level")))
      reference_record(o, &t[g], devnull);
    json_decref(o);
  }
  free(line);
  pclose(in);
  fclose(devnull);
  print_message("# count: graph reference: strategy records unparsable too-large | legal: agree disagree | "
                "refused: wrong-REF ok-REF large | unmatched: wrong-REF ok-REF large\n");
  for (int g = 0; g < NGRAPH; g++) {
    Tally *x = &t[g];
    print_message("# count:   %-34s %4d %2d %4d | %4d %2d | %3d %3d %3d | %3d %3d %3d\n", graph[g], x->records,
                  x->unparsable, x->large, x->agree, x->disagree, x->refused_wrong, x->refused_ok, x->refused_large,
                  x->unmatched_wrong, x->unmatched_ok, x->unmatched_large);
    all.records += x->records;
    all.unparsable += x->unparsable;
    all.large += x->large;
    all.agree += x->agree;
    all.disagree += x->disagree;
    all.refused_wrong += x->refused_wrong;
    all.refused_ok += x->refused_ok;
    all.refused_large += x->refused_large;
    all.unmatched_wrong += x->unmatched_wrong;
    all.unmatched_ok += x->unmatched_ok;
    all.unmatched_large += x->unmatched_large;
  }
  print_message("# count:   %-34s %4d %2d %4d | %4d %2d | %3d %3d %3d | %3d %3d %3d\n", "total", all.records,
                all.unparsable, all.large, all.agree, all.disagree, all.refused_wrong, all.refused_ok,
                all.refused_large, all.unmatched_wrong, all.unmatched_ok, all.unmatched_large);
  assert_int_equal(all.disagree, 0);
}

/* ------------------------------------------------------------ candidates */

typedef struct Counts {
  int cands, verified_e, verified_t, large, failures;
} Counts;

static void fail_note(Counts *c, const char *prog, const char *sp, const char *what) {
  c->failures++;
  print_message("FAIL %s: %s: %s\n", prog, sp, what);
}

static void one_program(const char *name, const char *leir, const char *decls, Counts *cnt, FILE *devnull) {
  FILE *f = fopen(leir, "rb");
  if (!f) return;
  char *text = malloc(1 << 20);
  size_t n = fread(text, 1, (1 << 20) - 1, f);
  text[n] = 0;
  fclose(f);
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, leir, text, decls, devnull);
  if (!p) {
    leir_ctx_free(&ctx);
    free(text);
    return;
  }
  bool small = corpus_work(p) <= verify_limit;
  for (int g = 0; g < NGRAPH; g++) {
    PtrVec legal = {0};
    pass_enumerate_legal(&ctx, p, pass_lookup(graph[g]), &legal);
    for (int k = 0; k < legal.n; k++) {
      PassCand *c = legal.v[k];
      const char *sp = pass_cand_spelling(&ctx, c), *why = NULL;
      cnt[g].cands++;
      IrProgram *q = pass_apply(&ctx, p, c, &why);
      if (!q) {
        fail_note(&cnt[g], name, sp, why);
        continue;
      }
      SBuf b = {0};
      pass_print_program(&b, q);
      LeirCtx c2;
      IrProgram *r = corpus_load(&c2, "reparse", b.s, decls, devnull);
      char *t1 = body_text(q), *t2 = r ? body_text(r) : NULL;
      if (!r || strcmp(t1, t2)) fail_note(&cnt[g], name, sp, "the result does not re-parse to the same text");
      free(t1);
      free(t2);
      sbuf_free(&b);
      leir_ctx_free(&c2);
      if (!small || corpus_work(q) > 4 * verify_limit) {
        cnt[g].large++;
        continue;
      }
      if (!class_ok(&ctx, p, q, c->cls, devnull)) fail_note(&cnt[g], name, sp, "the interpreter contradicts the class");
      else if (c->cls == PASS_E) cnt[g].verified_e++;
      else cnt[g].verified_t++;
    }
  }
  leir_ctx_free(&ctx);
  free(text);
}

/* The corpus walk of test_candidates: LEIR_CORPUS_ONLY's word, if any,
 * must occur in the file name. */
typedef struct CandWalk {
  const char *only;
  Counts *cnt;
  FILE *devnull;
} CandWalk;

static void cand_program(const CorpusEntry *e, void *arg) {
  CandWalk *w = arg;
  if (w->only && !strstr(e->file, w->only)) return;
  one_program(e->name, e->leir, e->decls, w->cnt, w->devnull);
}

static void test_candidates(void **state) {
  (void)state;
  if (!have_corpus()) skip();
  FILE *devnull = fopen("/dev/null", "w");
  Counts cnt[NGRAPH] = {0};
  CandWalk w = {getenv("LEIR_CORPUS_ONLY"), cnt, devnull};
  corpus_walk(corpus, cand_program, &w);
  fclose(devnull);
  int failures = 0;
  print_message("# count: graph candidates: strategy candidates verified-E verified-T not-interpreted failures\n");
  for (int g = 0; g < NGRAPH; g++) {
    print_message("# count:   %-34s %5d %5d %5d %5d %3d\n", graph[g], cnt[g].cands, cnt[g].verified_e,
                  cnt[g].verified_t, cnt[g].large, cnt[g].failures);
    failures += cnt[g].failures;
  }
  assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------ dataflow */

/* The analyses of passes/dataflow.h on small programs. */
static IrProgram *small(LeirCtx *ctx, const char *text) {
  FILE *devnull = fopen("/dev/null", "w");
  IrProgram *p = corpus_load(ctx, "t.leir", text, NULL, devnull);
  fclose(devnull);
  assert_non_null(p);
  return p;
}

static void test_dataflow(void **state) {
  (void)state;
  LeirCtx ctx;
  IrProgram *p = small(&ctx, "B^{8}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a*8+tx}=A^{f32,g}_{tx,a};];"
                             "B^{8}_{tx=0}L^{4}_{a=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,a}+E^{f32,g}_{a*2+tx};];"
                             "B^{4}_{tx=0}[F^{f32,g}_{tx+8}=A^{f32,g}_{tx,0};F^{f32,g}_{tx}=A^{f32,g}_{tx,1};];"
                             "B^{16}_{tx=0}[G^{f32,g}_{tx//2}=A^{f32,g}_{0,0};G^{f32,g}_{8+tx%4}=A^{f32,g}_{0,1};"
                             "G^{f32,g}_{tx%8}=A^{f32,g}_{0,2};];");
  IrNest *n0 = p->nests[0], *n1 = p->nests[1], *n2 = p->nests[2], *n3 = p->nests[3];
  IrRef *c = n0->items[0].u.stmt->lhs, *d = n1->items[0].u.stmt->lhs;
  /* a*8+tx with tx < 8 is a mixed radix: injective; D_{tx} is written 4 times */
  assert_true(df_write_injective(n0, c));
  assert_false(df_write_injective(n1, d));
  assert_true(df_loop_separates(n1, d, 0));
  assert_false(df_loop_separates(n1, d, 1));
  /* a*2+tx with tx < 8 is not a mixed radix */
  IrRef *e = NULL;
  PtrVec refs = {0};
  rw_stmt_refs(&ctx, n1->items[0].u.stmt, &refs);
  for (int i = 0; i < refs.n; i++)
    if (!strcmp(((IrRef *)refs.v[i])->name, "E")) e = refs.v[i];
  assert_non_null(e);
  assert_false(df_loop_separates(n1, e, 1));
  /* F_{tx+8} over tx < 4 and F_{tx} over tx < 4 never meet */
  IrRef *f1 = n2->items[0].u.stmt->lhs, *f2 = n2->items[1].u.stmt->lhs;
  assert_true(df_refs_disjoint(n2, f1, n2, f2));
  assert_false(df_refs_disjoint(n0, c, n0, c));
  /* the value analysis bounds items that are not affine: G_{tx//2} is in
     [0, 7], G_{8+tx%4} in [8, 11]; G_{tx%8} meets G_{tx//2} */
  IrRef *g1 = n3->items[0].u.stmt->lhs, *g2 = n3->items[1].u.stmt->lhs, *g3 = n3->items[2].u.stmt->lhs;
  assert_true(df_refs_disjoint(n3, g1, n3, g2));
  assert_true(df_refs_disjoint(n3, g3, n3, g2));
  assert_false(df_refs_disjoint(n3, g1, n3, g3));
  int64_t cst, coef[DEP_MAX_LOOPS];
  assert_true(dep_affine(c->sub[1], n0, &cst, coef));
  assert_int_equal(cst, 0);
  assert_int_equal(coef[0], 1);
  assert_int_equal(coef[1], 8);
  leir_ctx_free(&ctx);
}

static void test_dataflow_groups(void **state) {
  (void)state;
  LeirCtx ctx;
  /* statement 1 reads the running sum of statement 0: distributing them
     reverses the dependence; the independent pair is fine */
  IrProgram *p = small(&ctx, "B^{8}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};"
                             "C^{f32,g}_{tx,a}=D^{f32,g}_{tx}*2;];"
                             "B^{8}_{tx=0}L^{16}_{a=0}[E^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*2;G^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}+1;];");
  PassCtx pc = {.ctx = &ctx, .prog = p, .pass = pass_lookup("operator_fission")};
  int group[2] = {0, 1};
  const char *why;
  const Dep *bad = df_check_groups(&pc, p->nests[0], group, &why);
  assert_null(why);
  assert_non_null(bad);
  assert_string_equal(bad->tensor, "D");
  assert_null(df_check_groups(&pc, p->nests[1], group, &why));
  assert_null(why);
  /* nest 1 does not touch what nest 0 writes; nest 0 -> nest 0 trivially */
  const DataFlow *df = df_analyse(&pc, p);
  DfConflict cf;
  assert_false(df_nest_conflict(df, 0, 1, &cf));
  int at = -1;
  assert_non_null(df_find(df, "A", 1, 2, DF_READ, &at));
  assert_int_equal(at, 1);
  assert_null(df_find(df, "A", 0, 2, DF_WRITE, NULL));
  leir_ctx_free(&ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dataflow),
    cmocka_unit_test(test_dataflow_groups),
    cmocka_unit_test(test_reference),
  };
  /* the candidate walk repeats passes_corpus_test's for these 9: on demand */
  const struct CMUnitTest with_candidates[] = {
    cmocka_unit_test(test_dataflow),
    cmocka_unit_test(test_dataflow_groups),
    cmocka_unit_test(test_candidates),
    cmocka_unit_test(test_reference),
  };
  if (getenv("LEIR_GRAPH_CANDIDATES")) return cmocka_run_group_tests(with_candidates, setup, NULL);
  return cmocka_run_group_tests(tests, setup, NULL);
}
