#define _POSIX_C_SOURCE 200809L
/* passes_test.c -- unit tests of the pass machinery: the table, spellings,
 * fresh names, subscript substitution, the dependence analysis and the
 * pipeline (pass_run_pipeline) on small programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "interp/rng.h"
#include "ir/ir.h"
#include "passes/deps.h"
#include "passes/pass.h"
#include "passes/rewrite.h"

/* ------------------------------------------------------------ helpers */

typedef struct Fix {
  LeirCtx ctx;
  char *diag;
  size_t diag_len;
  FILE *diag_f;
} Fix;

static int fix_setup(void **state) {
  Fix *f = calloc(1, sizeof *f);
  leir_ctx_init(&f->ctx);
  f->diag_f = open_memstream(&f->diag, &f->diag_len);
  f->ctx.diag_out = f->diag_f;
  f->ctx.quiet_caret = true;
  *state = f;
  return 0;
}

static int fix_teardown(void **state) {
  Fix *f = *state;
  fclose(f->diag_f);
  free(f->diag);
  leir_ctx_free(&f->ctx);
  free(f);
  return 0;
}

static const char *diags(Fix *f) {
  fflush(f->diag_f);
  return f->diag ? f->diag : "";
}

static IrProgram *load(Fix *f, const char *text) {
  leir_ctx_set_source(&f->ctx, "t.leir", text, strlen(text));
  IrProgram *p = ps_parse(&f->ctx);
  assert_non_null(p);
  assert_true(ir_sema(&f->ctx, p, NULL));
  return p;
}

static char *body(const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  return b.s;
}

static const char *P2 =
  "%in A : f32[16,12]\n%in C : f32[12,8]\n%out D : f32[16,8]\n"
  "B^{16}_{tx=0}L^{8}_{a=0}L^{12}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n";

/* ------------------------------------------------------------ table */

static void test_table(void **state) {
  (void)state;
  /* the 43 of STRATEGIES.md, then leirc's own (scan_rewrite, reduction_rfactor) */
  assert_int_equal(pass_table_paper, 43);
  assert_int_equal(pass_table_size, 45);
  int level[4] = {0}, impl_opmem = 0;
  for (int i = 0; i < pass_table_size; i++) {
    assert_int_equal(pass_table[i].own, i >= pass_table_paper);
    if (!pass_table[i].own) level[pass_table[i].level]++;
    for (int j = 0; j < i; j++) {
      assert_string_not_equal(pass_table[i].name, pass_table[j].name);
      if (pass_table[i].alias && pass_table[j].alias) assert_string_not_equal(pass_table[i].alias, pass_table[j].alias);
    }
    assert_ptr_equal(pass_lookup(pass_table[i].name), &pass_table[i]);
    if (pass_table[i].alias) assert_ptr_equal(pass_lookup(pass_table[i].alias), &pass_table[i]);
    if (!pass_table[i].own && (pass_table[i].level == PASS_OPERATOR || pass_table[i].level == PASS_MEMORY)) impl_opmem += pass_table[i].impl != NULL;
  }
  assert_int_equal(level[PASS_GRAPH], 9);
  assert_int_equal(level[PASS_OPERATOR], 9);
  assert_int_equal(level[PASS_MEMORY], 5);
  assert_int_equal(level[PASS_MATH], 20);
  assert_int_equal(impl_opmem, 14);
  assert_string_equal(pass_lookup("tile")->name, "loop_tiling");
  assert_string_equal(pass_lookup("rfactor")->name, "reduction_factorization");
  assert_string_equal(pass_lookup("storage_layout")->name, "set_storage_layout");
  assert_string_equal(pass_lookup("scan")->name, "scan_rewrite");
  assert_int_equal(pass_lookup("scan_rewrite")->level, PASS_MATH);
  assert_int_equal(pass_lookup("scan_rewrite")->cls, PASS_E);
  assert_string_equal(pass_lookup("vrfactor")->name, "reduction_rfactor");
  assert_int_equal(pass_lookup("reduction_rfactor")->level, PASS_OPERATOR);
  assert_int_equal(pass_lookup("reduction_rfactor")->cls, PASS_EDAGGER);
  assert_true(pass_lookup("reduction_rfactor")->own);
  assert_int_equal(pass_lookup("loop_reorder")->cls, PASS_EDAGGER);
  assert_int_equal(pass_lookup("reduction_factorization")->cls, PASS_EDAGGER);
  assert_null(pass_lookup("no_such_pass"));
  assert_string_equal(pass_class_name(PASS_EDAGGER), "E\u2020");
}

static void test_list_table(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  pass_list_table(f);
  fclose(f);
  int lines = 0;
  for (char *p = buf; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 45);
  assert_non_null(strstr(buf, "loop_tiling                                              operator  E   implemented      alias tile\n"));
  assert_non_null(strstr(buf, "\nscan_rewrite                                             math      E   implemented      alias scan  "
                              "leirc's own (not in STRATEGIES.md)\n"));
  assert_non_null(strstr(buf, "\nreduction_rfactor                                        operator  E\u2020  implemented      "
                              "alias vrfactor  leirc's own (not in STRATEGIES.md)\n"));
  assert_non_null(strstr(buf, "loop_reorder                                             operator  E\u2020  implemented      alias reorder\n"));
  free(buf);
}

/* ------------------------------------------------------------ spellings */

static void test_spelling(void **state) {
  Fix *f = *state;
  PassCand c;
  const char *err = NULL;
  assert_true(pass_parse_spelling(&f->ctx, " tile ( factor2=4 , loop=a,nest=0,factor1=2 ) ", &c, &err));
  assert_string_equal(c.pass->name, "loop_tiling");
  /* keys come out in the key table's order */
  assert_string_equal(pass_cand_spelling(&f->ctx, &c), "loop_tiling(nest=0,loop=a,factor1=2,factor2=4)");
  int64_t v;
  assert_int_equal(pass_cand_get_int(&c, "factor2", &v), 1);
  assert_int_equal(v, 4);
  assert_int_equal(pass_cand_get_int(&c, "loop", &v), -1);
  assert_int_equal(pass_cand_get_int(&c, "split", &v), 0);
  /* values may hold parentheses and dots */
  assert_true(pass_parse_spelling(&f->ctx, "precompute(nest=1,item=(c+7)+g)", &c, &err));
  assert_string_equal(pass_cand_get(&c, "item"), "(c+7)+g");
  assert_true(pass_parse_spelling(&f->ctx, "layout(nest=0,tensor=C,kind=transpose,perm=1.0)", &c, &err));
  assert_string_equal(pass_cand_get(&c, "perm"), "1.0");
  assert_true(pass_parse_spelling(&f->ctx, "unroll", &c, &err));
  assert_int_equal(c.nparams, 0);
  assert_string_equal(pass_cand_spelling(&f->ctx, &c), "loop_unrolling");
  /* errors */
  assert_false(pass_parse_spelling(&f->ctx, "tiles(nest=0)", &c, &err));
  assert_string_equal(err, "unknown strategy 'tiles' (leirc --list-passes lists them)");
  assert_false(pass_parse_spelling(&f->ctx, "tile(nest=0", &c, &err));
  assert_string_equal(err, "missing ')' in 'tile(nest=0'");
  assert_false(pass_parse_spelling(&f->ctx, "tile(nest)", &c, &err));
  assert_string_equal(err, "parameter 'nest' has no value (write key=value)");
  assert_false(pass_parse_spelling(&f->ctx, "tile(nest=0,nest=1)", &c, &err));
  assert_string_equal(err, "parameter 'nest' is given twice");
  assert_false(pass_parse_spelling(&f->ctx, "tile(nest=0,factor=2)", &c, &err));
  assert_string_equal(err, "loop_tiling has no parameter 'factor' (its parameters: nest, loop, factor1, factor2)");
  assert_false(pass_parse_spelling(&f->ctx, "tile(nest=0)x", &c, &err));
  assert_string_equal(err, "unexpected text after ')' in 'tile(nest=0)x'");
}

/* ------------------------------------------------------------ names */

static void test_names(void **state) {
  Fix *f = *state;
  assert_string_equal(pass_tensor_name_at(&f->ctx, 0), "A");
  assert_string_equal(pass_tensor_name_at(&f->ctx, 19), "Z");
  assert_string_equal(pass_tensor_name_at(&f->ctx, 20), "Aa");
  assert_string_equal(pass_tensor_name_at(&f->ctx, 21), "Ac");
  assert_string_equal(pass_tensor_name_at(&f->ctx, 40), "Ca");
  assert_int_equal(pass_tensor_name_pos("A"), 0);
  assert_int_equal(pass_tensor_name_pos("Ca"), 40);
  assert_int_equal(pass_tensor_name_pos("B"), -1);
  assert_int_equal(pass_tensor_name_pos("Ab"), -1);
  assert_string_equal(pass_index_name_at(&f->ctx, 0), "a");
  assert_string_equal(pass_index_name_at(&f->ctx, 4), "g");
  assert_string_equal(pass_index_name_at(&f->ctx, 18), "w");
  assert_string_equal(pass_index_name_at(&f->ctx, 19), "aa");
  IrProgram *p = load(f, P2);
  PassNames ns;
  pass_names_init(&ns, &f->ctx, p);
  assert_string_equal(pass_fresh_tensor(&ns), "E");
  assert_string_equal(pass_fresh_tensor(&ns), "F");
  /* idx(k), k = nloops + 1: g for a 3-loop nest, skipping used names */
  assert_string_equal(pass_fresh_index(&f->ctx, p->nests[0], NULL, 0), "g");
  const char *g = "g";
  assert_string_equal(pass_fresh_index(&f->ctx, p->nests[0], &g, 1), "h");
  IrProgram *q = load(f, "%in A : f32[4,3,2]\n%out D : f32[4,3]\n"
                         "B^{4}_{tx=0}L^{3}_{g=0}L^{2}_{c=0}[D^{f32,g}_{tx,g}=D^{f32,g}_{tx,g}+A^{f32,g}_{tx,g,c};];\n");
  assert_string_equal(pass_fresh_index(&f->ctx, q->nests[0], NULL, 0), "h");
}

/* ------------------------------------------------------------ rewriting */

static void test_subst(void **state) {
  Fix *f = *state;
  IrProgram *p = load(f, "%in A : f32[2,10]\n%in W : f32[3]\n%out C : f32[2,8]\n"
                         "B^{2}_{tx=0}L^{8}_{c=0}L^{3}_{g=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}+A^{f32,g}_{tx,c+g}*W^{f32,g}_{g};];\n");
  IrStmt *s = p->stmts[0];
  rw_subst_sub_stmt(&f->ctx, s, "c", rw_affine(&f->ctx, "h", 4, "c"));
  SBuf b = {0};
  ir_print_stmt(&b, s);
  /* a whole item is replaced bare, a part of an item in parentheses (REF) */
  assert_string_equal(b.s, "C^{f32,g}_{tx,h*4+c}=C^{f32,g}_{tx,h*4+c}+A^{f32,g}_{tx,(h*4+c)+g}*W^{f32,g}_{g};");
  sbuf_free(&b);
  int64_t fac[64];
  assert_int_equal(rw_factor_pairs(16, fac, 64), 2); /* (2,8) (4,4) */
  assert_int_equal(fac[0], 2);
  assert_int_equal(fac[1], 4);
  assert_int_equal(rw_divisors(12, fac, 64), 4); /* 2 3 4 6 */
  assert_int_equal(fac[3], 6);
  assert_int_equal(rw_factor_pairs(13, fac, 64), 0);
}

/* ------------------------------------------------------------ dependences */

static const Dep *dep_on(const NestDeps *d, const char *t, bool self) {
  for (int i = 0; i < d->ndeps; i++)
    if (!strcmp(d->deps[i].tensor, t) && (d->deps[i].x == d->deps[i].y) == self) return &d->deps[i];
  return NULL;
}

static void test_deps(void **state) {
  Fix *f = *state;
  PassCtx pc = {.ctx = &f->ctx};
  /* prefix form: G_{c} reads G_{c-1}: c '<', the others '=' */
  IrProgram *p = load(f, "%in A : f32[4,8,16]\n%out G : f32[4,8,16]\n"
                         "B^{4}_{tx=0}L^{8}_{a=0}L^{16}_{c=0}[G^{f32,g}_{tx,a,c}=max(if_then_else(c-1<0,-inf,"
                         "G^{f32,g}_{tx,a,c-1}),A^{f32,g}_{tx,a,c});];\n");
  pc.prog = p;
  NestDeps *d = deps_analyse(&pc, p->nests[0]);
  const Dep *x = dep_on(d, "G", false);
  assert_non_null(x);
  assert_int_equal(x->dir[0], DEP_EQ);
  assert_int_equal(x->dir[1], DEP_EQ);
  assert_int_equal(x->dir[2], DEP_LT);
  int perm[3] = {2, 1, 0};
  assert_true(deps_check_permutation(d, perm).ok);
  assert_false(deps_check_parallel(d, 2, false, 0).ok);
  assert_true(deps_check_parallel(d, 1, false, 0).ok);
  /* a*32+c with c < 32 is injective: the same element means the same (a,c) */
  p = load(f, "%in A : f32[4,8,32]\n%out W : f32[4,256]\n"
              "B^{4}_{tx=0}L^{8}_{a=0}L^{32}_{c=0}[W^{f32,g}_{tx,a*32+c}=A^{f32,g}_{tx,a,c};];\n");
  d = deps_analyse(&pc, p->nests[0]);
  x = dep_on(d, "W", true);
  assert_non_null(x);
  assert_int_equal(x->dir[1], DEP_EQ);
  assert_int_equal(x->dir[2], DEP_EQ);
  assert_true(deps_check_parallel(d, 1, false, 0).ok);
  /* c*2+d with d < 4 is not: a and c may differ */
  p = load(f, "%in A : f32[4,8,4]\n%out W : f32[4,18]\n"
              "B^{4}_{tx=0}L^{8}_{c=0}L^{4}_{d=0}[W^{f32,g}_{tx,c*2+d}=A^{f32,g}_{tx,c,d};];\n");
  d = deps_analyse(&pc, p->nests[0]);
  assert_false(deps_check_parallel(d, 1, false, 0).ok);
  /* a sum over two loops: swapping them re-associates (class T) */
  p = load(f, "%in A : f32[4,6,3]\n%out S : f32[4]\n"
              "B^{4}_{tx=0}L^{6}_{c=0}L^{3}_{d=0}[S^{f32,g}_{tx}=S^{f32,g}_{tx}+A^{f32,g}_{tx,c,d};];\n");
  d = deps_analyse(&pc, p->nests[0]);
  int swap[3] = {0, 2, 1};
  DepVerdict v = deps_check_permutation(d, swap);
  assert_true(v.ok);
  assert_true(v.reassociates);
  int move_tx[3] = {1, 0, 2};
  v = deps_check_permutation(d, move_tx);
  assert_true(v.ok);
  assert_false(v.reassociates);
  /* constant items that differ never meet */
  p = load(f, "%in A : f32[4]\n%out D : f32[4,2]\n"
              "B^{4}_{tx=0}L^{3}_{a=0}L^{2}_{c=0}[D^{f32,g}_{tx,0}=A^{f32,g}_{tx};D^{f32,g}_{tx,1}=A^{f32,g}_{tx}*2;];\n");
  d = deps_analyse(&pc, p->nests[0]);
  for (int i = 0; i < d->ndeps; i++) assert_true(d->deps[i].x->stmt == d->deps[i].y->stmt);
}

/* ------------------------------------------------------------ pipeline */

static IrProgram *run(Fix *f, IrProgram *p, const char *spec) {
  PassRunOptions o = {0};
  o.quiet_notes = true;
  return pass_run_pipeline(&f->ctx, p, spec, &o, NULL);
}

static void test_pipeline(void **state) {
  Fix *f = *state;
  IrProgram *p = load(f, P2);
  IrProgram *q = run(f, p, "tile(nest=0,loop=tx,factor1=2,factor2=2),reorder(nest=0,loop1=g,loop2=h)");
  assert_non_null(q);
  char *t = body(q);
  assert_string_equal(t, "L^{2}_{h=0}L^{2}_{g=0}B^{8}_{tx=0}L^{4}_{a=0}L^{12}_{c=0}[D^{f32,g}_{g*8+tx,h*4+a}=D^{f32,g}_{g*8+tx,h*4+a}+"
                         "A^{f32,g}_{g*8+tx,c}*C^{f32,g}_{c,h*4+a};];");
  free(t);
  /* the input program is untouched */
  t = body(p);
  assert_string_equal(t, "B^{16}_{tx=0}L^{8}_{a=0}L^{12}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];");
  free(t);
  /* a partial spelling is a filter: the first legal candidate with loop=a */
  q = run(f, p, "split(loop=a)");
  t = body(q);
  assert_non_null(strstr(t, "B^{16}_{tx=0}L^{2}_{g=0}L^{4}_{a=0}"));
  free(t);
  /* an illegal request */
  assert_null(run(f, p, "split(nest=0,loop=c,factor=2)"));
  assert_non_null(strstr(diags(f), "t.leir:4:25: error: loop_split: loop 'c' does not occur in the left subscript of the "
                                   "first statement of nest 0\n"));
  /* unknown strategy; a bare name with nothing to do warns and keeps p */
  assert_null(run(f, p, "no_such_pass"));
  assert_non_null(strstr(diags(f), "t.leir: error: -O: unknown strategy 'no_such_pass' (leirc --list-passes lists them)\n"));
  assert_ptr_equal(run(f, p, "fuse"), p);
  assert_non_null(strstr(diags(f), "t.leir: warning: loop_fusion: nothing to do\n"));
}

static void test_seed(void **state) {
  Fix *f = *state;
  IrProgram *p = load(f, P2);
  PassRunOptions o = {0};
  o.seeded = true;
  o.seed = 7;
  IrProgram *a = pass_run_pipeline(&f->ctx, p, "split", &o, NULL);
  IrProgram *b = pass_run_pipeline(&f->ctx, p, "split", &o, NULL);
  char *ta = body(a), *tb = body(b);
  assert_string_equal(ta, tb); /* reproducible */
  free(ta);
  free(tb);
}

/* A cost for a run of bare names: the program as written 1, a tiled one 2,
 * the 2x2 tiling alone 1.5 (the best tiling by itself), the 4x2 tiling then
 * reorder(g,h) 0.5; *user counts the calls. */
static bool trap_cost(void *user, LeirCtx *ctx, const IrProgram *q, double *cost) {
  (void)ctx;
  ++*(int *)user;
  char *t = body(q);
  *cost = !strncmp(t, "L^{2}_{h=0}L^{4}_{g=0}B^{4}_{tx=0}", 34)   ? 0.5
          : !strncmp(t, "L^{2}_{g=0}L^{2}_{h=0}B^{8}_{tx=0}", 34) ? 1.5
          : strstr(t, "_{g=0}")                                  ? 2
                                                                 : 1;
  free(t);
  return true;
}

/* Every sequence costs more than the input. */
static bool worse_cost(void *user, LeirCtx *ctx, const IrProgram *q, double *cost) {
  (void)user;
  (void)ctx;
  char *t = body(q);
  *cost = strncmp(t, "B^{16}_{tx=0}L^{8}_{a=0}L^{12}_{c=0}", 36) ? 2 : 1;
  free(t);
  return true;
}

static void test_combination(void **state) {
  Fix *f = *state;
  IrProgram *p = load(f, P2);
  int calls = 0;
  PassRunOptions o = {0};
  o.cost = trap_cost;
  o.cost_user = &calls;
  o.cost_name = "test";
  /* one bare name: the cheapest candidate, though the input costs less;
     one step at a time, then, ends at 2 (no reorder of it pays) */
  IrProgram *q = pass_run_pipeline(&f->ctx, p, "tile", &o, NULL);
  char *t = body(q);
  assert_non_null(strstr(t, "L^{2}_{g=0}L^{2}_{h=0}B^{8}_{tx=0}"));
  free(t);
  /* a run: the sequence that pays, found whole; every tiling times every
     reorder of its result costed once, and the input */
  calls = 0;
  int n = 0;
  q = pass_run_pipeline(&f->ctx, p, "tile,reorder", &o, &n);
  assert_int_equal(n, 2);
  t = body(q);
  assert_string_equal(t, "L^{2}_{h=0}L^{4}_{g=0}B^{4}_{tx=0}L^{4}_{a=0}L^{12}_{c=0}[D^{f32,g}_{g*4+tx,h*4+a}=D^{f32,g}_{g*4+tx,h*4+a}+"
                         "A^{f32,g}_{g*4+tx,c}*C^{f32,g}_{c,h*4+a};];");
  free(t);
  assert_int_equal(calls, 20 + 1);
  assert_non_null(strstr(diags(f), "t.leir: note: -O tile,reorder: the test cost model rates loop_tiling(nest=0,loop=tx,factor1=4,"
                                   "factor2=2),loop_reorder(nest=0,loop1=g,loop2=h) best of 20 sequences: 0.5 s against 1 s "
                                   "for the input\n"));
  /* every sequence slower: the input itself, unchanged, and the note */
  o.cost = worse_cost;
  o.cost_name = NULL;
  n = 0;
  assert_ptr_equal(pass_run_pipeline(&f->ctx, p, "tile,reorder", &o, &n), p);
  assert_int_equal(n, 0);
  assert_non_null(strstr(diags(f), "t.leir: note: -O tile,reorder: the cost model rates every one of 20 sequences slower than "
                                   "the input (the best, loop_tiling(nest=0,loop=tx,factor1=2,factor2=2),loop_reorder(nest=0,"
                                   "loop1=g,loop2=h): 2 s; the input: 1 s): the input is kept\n"));
  /* --seed: one step at a time, no model */
  o.seeded = true;
  o.seed = 7;
  q = pass_run_pipeline(&f->ctx, p, "tile,reorder", &o, &n);
  assert_ptr_not_equal(q, p);
}

static void test_apply_copy(void **state) {
  Fix *f = *state;
  IrProgram *p = load(f, P2);
  PtrVec legal = {0};
  pass_enumerate_legal(&f->ctx, p, pass_lookup("loop_binding"), &legal);
  /* tx is excluded, c is a reduction axis: a with ty, tz, bx, by, bz (a's
     8 * 16 threads fit; tz allows 64) */
  assert_int_equal(legal.n, 5);
  assert_string_equal(pass_cand_spelling(&f->ctx, legal.v[0]), "loop_binding(nest=0,loop=a,axis=ty)");
  PassCand *c = legal.v[0];
  assert_int_equal(c->nest, 0);
  assert_int_equal(c->site.line, 4);
  assert_int_equal(c->site.col, 14);
  const char *why = NULL;
  IrProgram *q = pass_apply(&f->ctx, p, c, &why);
  assert_non_null(q);
  assert_null(ir_verify(&f->ctx, q));
  assert_int_equal(q->nests[0]->loops[1]->kind, LOOP_B);
  assert_int_equal(p->nests[0]->loops[1]->kind, LOOP_L);
}

/* ------------------------------------------------------------ composition */

/* Verdict of after against before on seed 0 (-1: cannot run). */
static int verdict(LeirCtx *ctx, const IrProgram *a, const IrProgram *b, CmpTolerance tol) {
  InterpOptions ro = {false, 0};
  InterpProg *x = interp_new(ctx, a, &ro), *y = x ? interp_new(ctx, b, &ro) : NULL;
  int v = -1;
  if (x && y && interp_same_signature(ctx, a, b, "before", "after")) {
    InterpCompareOpts co = {1, 0, tol, ro, 0, NULL, NULL, NULL};
    InterpDiff d;
    if (interp_compare_progs(x, y, &co, &d) == 0) v = (int)d.verdict;
  }
  if (x) interp_free(x);
  if (y) interp_free(y);
  return v;
}

/* Random chains of 4 steps of the operator and memory passes: every step is
 * a legal candidate of the previous step's result, and each step agrees
 * with its class in the interpreter (class T: within the tolerance, or the
 * reference rule where a re-associated sum cancels). */
static void test_compose(void **state) {
  Fix *f = *state;
  static const char *const progs[] = {
    "%in A : f32[8,6]\n%in C : f32[6,4]\n%out D : f32[8,4]\n"
    "B^{8}_{tx=0}L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n",
    "%in A : f32[4,8,6]\n%out C : f32[4,8,6]\n"
    "B^{4}_{tx=0}L^{8}_{a=0}L^{6}_{c=0}[D^{f32,g}_{tx,a}=max(D^{f32,g}_{tx,a},A^{f32,g}_{tx,a,c});];\n"
    "B^{4}_{tx=0}L^{8}_{a=0}L^{6}_{c=0}[E^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}+exp(A^{f32,g}_{tx,a,c}-D^{f32,g}_{tx,a});];\n"
    "B^{4}_{tx=0}L^{8}_{a=0}L^{6}_{c=0}[C^{f32,g}_{tx,a,c}=exp(A^{f32,g}_{tx,a,c}-D^{f32,g}_{tx,a})/E^{f32,g}_{tx,a};];\n",
    "%in A : f32[2,3,9,9]\n%in W : f32[4,3,3,3]\n%out C : f32[2,4,4,4]\n"
    "B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}L^{4}_{d=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}[C^{f32,g}_{tx,a,c,d}=C^{f32,g}_{tx,a,c,d}"
    "+W^{f32,g}_{a,f,g,h}*A^{f32,g}_{tx,f,c*2+g,d*2+h};];\n",
  };
  LeirRng rng;
  rng_seed(&rng, 5, 0);
  int steps = 0;
  for (size_t k = 0; k < sizeof progs / sizeof progs[0]; k++) {
    for (int chain = 0; chain < 6; chain++) {
      IrProgram *p = load(f, progs[k]);
      for (int step = 0; step < 4; step++) {
        PtrVec legal = {0};
        for (int i = 0; i < pass_table_size; i++)
          if (pass_table[i].level == PASS_OPERATOR || pass_table[i].level == PASS_MEMORY)
            pass_enumerate_legal(&f->ctx, p, &pass_table[i], &legal);
        if (!legal.n) break;
        PassCand *c = legal.v[rng_next(&rng) % (uint64_t)legal.n];
        const char *why = NULL;
        IrProgram *q = pass_apply(&f->ctx, p, c, &why);
        if (!q) fail_msg("%s: %s", pass_cand_spelling(&f->ctx, c), why);
        int v = verdict(&f->ctx, p, q, c->cls == PASS_E ? CMP_EXACT : CMP_DEFAULT);
        if (v == CMP_DIFFER && c->cls == PASS_T) v = verdict(&f->ctx, p, q, CMP_REFERENCE);
        if (v < 0 || v == CMP_DIFFER) fail_msg("program %zu chain %d step %d: %s: verdict %d\n%s", k, chain, step,
                                              pass_cand_spelling(&f->ctx, c), v, diags(f));
        if (getenv("PASSES_TEST_VERBOSE")) print_message("%zu.%d.%d %s\n", k, chain, step, pass_cand_spelling(&f->ctx, c));
        p = q;
        steps++;
      }
    }
  }
  assert_true(steps >= 60);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_list_table),
    cmocka_unit_test_setup_teardown(test_spelling, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_names, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_subst, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_deps, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_pipeline, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_seed, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_combination, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_apply_copy, fix_setup, fix_teardown),
    cmocka_unit_test_setup_teardown(test_compose, fix_setup, fix_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
