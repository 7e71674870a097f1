/* libleir_test.c -- the public API of libleir (leir/leir.h), through the
 * shared library alone: this test includes no other header of the project
 * and links only libleir.la, whose exports are the leir_* functions of
 * api/libleir.sym, so it also shows that the public API suffices.
 *
 * Every function is called, on good and bad input.  The expected texts
 * were taken once from leirc itself (the command is given above each), so
 * the library is held to what leirc prints:
 *  - the canonical text of examples/matmul.leir, with and without
 *    --print-decls, and after a loop_tiling step (-O ... --emit=leir);
 *  - diagnostics as leirc renders them (a syntax error with its caret, the
 *    refusal of an illegal step, an unknown strategy);
 *  - the --list-applicable order and spellings;
 *  - --run's outputs (a hash of D.npy's data, random inputs of seed 0 and
 *    seed 7), the host JIT bit-identical to the interpreter;
 *  - --compare's lines, --emit=tir, --print-cost --cost=model.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <leir/leir.h>

/* examples/matmul.leir */
static const char matmul[] =
  "# Matrix product D = A @ C (SPEC E1): 64x32 times 32x48.\n"
  "%in  A : f32[64,32]\n"
  "%in  C : f32[32,48]\n"
  "%out D : f32[64,48]\n"
  "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n";

/* leirc --emit=leir examples/matmul.leir (and with --print-decls: the same
 * here, the header declares every argument) */
static const char matmul_text[] =
  "%in    A : f32[64,32]\n"
  "%in    C : f32[32,48]\n"
  "%out   D : f32[64,48]\n"
  "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n";

#define TILING "loop_tiling(nest=0,loop=tx,factor1=2,factor2=2)"
/* leirc -O 'loop_tiling(nest=0,loop=tx,factor1=2,factor2=2)' --emit=leir examples/matmul.leir */
static const char tiled_text[] =
  "%in    A : f32[64,32]\n"
  "%in    C : f32[32,48]\n"
  "%out   D : f32[64,48]\n"
  "L^{2}_{g=0}L^{2}_{h=0}B^{32}_{tx=0}L^{24}_{a=0}L^{32}_{c=0}[D^{f32,g}_{g*32+tx,h*24+a}=D^{f32,g}_{g*32+tx,"
  "h*24+a}+A^{f32,g}_{g*32+tx,c}*C^{f32,g}_{c,h*24+a};];\n";

#define BODY_MINUS \
  "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}-A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n"

static uint64_t fnv(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

/* The only diagnostic of the last call, rendered. */
static const char *only_diag(leir_context *ctx) {
  assert_int_equal(leir_diag_count(ctx), 1);
  leir_diagnostic d;
  assert_int_equal(leir_diag_get(ctx, 0, &d), LEIR_OK);
  return d.rendered;
}

static leir_program *parse_matmul(leir_context *ctx) {
  leir_program *p = leir_program_parse(ctx, "matmul.leir", matmul, NULL);
  assert_non_null(p);
  return p;
}

/* ------------------------------------------------------------ versions, contexts */

static void test_version(void **state) {
  (void)state;
  assert_string_equal(leir_version(), EXPECT_VERSION);
  assert_int_equal(leir_api_version(), LEIR_API_VERSION);
  assert_int_equal(LEIR_API_VERSION, 2);
}

static void test_options(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  assert_non_null(ctx);
  static const char *const good[][2] = {
    {"seed", "42"}, {"max_steps", "0"}, {"max_memory", "512M"}, {"max_memory", "0"}, {"tolerance", "exact"},
    {"tolerance", "reference"}, {"tolerance", "default"}, {"unsafe_math", "1"}, {"unsafe_math", "0"},
    {"gpu_arch", "sm_80"}, {"fp_contract", "on"}, {"fp_contract", "off"},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    assert_int_equal(leir_context_set_option(ctx, good[i][0], good[i][1]), LEIR_OK);
    assert_int_equal(leir_diag_count(ctx), 0);
  }
  assert_int_equal(leir_context_set_option(ctx, "frobnicate", "1"), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: unknown option 'frobnicate'\n");
  leir_diagnostic d;
  assert_int_equal(leir_diag_get(ctx, 0, &d), LEIR_OK);
  assert_int_equal(d.severity, LEIR_ERROR_SEVERITY);
  assert_int_equal(d.line, 0);
  assert_int_equal(d.column, 0);
  assert_string_equal(d.message, "unknown option 'frobnicate'");
  assert_int_equal(leir_diag_get(ctx, 1, &d), LEIR_EINVAL);
  assert_int_equal(leir_diag_get(NULL, 0, &d), LEIR_EINVAL);
  assert_int_equal(leir_diag_get(ctx, 0, NULL), LEIR_EINVAL);

  assert_int_equal(leir_context_set_option(ctx, "seed", "-1"), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: bad value '-1' for option 'seed' (a whole number)\n");
  assert_int_equal(leir_context_set_option(ctx, "tolerance", "loose"), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx),
                      "libleir: error: bad value 'loose' for option 'tolerance' (exact, default or reference)\n");
  assert_int_equal(leir_context_set_option(ctx, "max_memory", "lots"), LEIR_EINVAL);
  assert_int_equal(leir_context_set_option(ctx, "unsafe_math", "yes"), LEIR_EINVAL);
  assert_int_equal(leir_context_set_option(ctx, "gpu_arch", "sm_20"), LEIR_EINVAL);
  assert_int_equal(leir_diag_count(ctx), 1);
  assert_int_equal(leir_context_set_option(ctx, "fp_contract", "maybe"), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: bad value 'maybe' for option 'fp_contract' (off or on)\n");
  /* a good call clears the diagnostics of the one before */
  assert_int_equal(leir_context_set_option(ctx, "seed", "0"), LEIR_OK);
  assert_int_equal(leir_diag_count(ctx), 0);

  assert_int_equal(leir_context_set_option(ctx, NULL, "1"), LEIR_EINVAL);
  assert_int_equal(leir_context_set_option(ctx, "seed", NULL), LEIR_EINVAL);
  assert_int_equal(leir_context_set_option(NULL, "seed", "1"), LEIR_EINVAL);
  assert_int_equal(leir_diag_count(NULL), 0);
  leir_context_free(ctx);
  leir_context_free(NULL);
}

/* ------------------------------------------------------------ programs */

static void test_parse_and_text(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  assert_int_equal(leir_diag_count(ctx), 0);
  char *t = leir_program_text(p, 0);
  assert_string_equal(t, matmul_text);
  leir_free(t);
  t = leir_program_text(p, 1);
  assert_string_equal(t, matmul_text);
  leir_free(t);
  assert_null(leir_program_text(NULL, 0));

  /* no header: declarations from the JSON sidecar, or inferred */
  const char *body = "L^{4}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{i}*2;];\n";
  leir_program *q = leir_program_parse(ctx, NULL, body, NULL);
  assert_non_null(q);
  t = leir_program_text(q, 0);
  assert_string_equal(t, body); /* leirc --emit=leir */
  leir_free(t);
  t = leir_program_text(q, 1);
  assert_string_equal(t, "%in    X : f32[4]\n%out   Y : f32[4]\n" "L^{4}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{i}*2;];\n");
  leir_free(t);
  leir_program *r = leir_program_parse(ctx, "s.leir", body,
                                       "{\"known_names\":[\"X\",\"Y\"],\"known_shapes\":[[4],[4]],"
                                       "\"known_dtype\":[\"float32\",\"float32\"],\"input_known_names\":[\"X\"]}");
  assert_non_null(r);
  assert_int_equal(leir_program_ntensors(r), 2);
  leir_program_free(r);
  assert_null(leir_program_parse(ctx, "s.leir", body, "{\"known_names\": 3"));
  assert_true(leir_diag_count(ctx) >= 1);
  leir_diagnostic d;
  assert_int_equal(leir_diag_get(ctx, 0, &d), LEIR_OK);
  assert_string_equal(d.file, "<decls>");
  assert_non_null(strstr(d.rendered, "<decls>: error: cannot read declarations: line 1: "));

  leir_program_free(q);
  leir_program_free(NULL);
  leir_context_free(ctx); /* frees p */
}

static void test_parse_errors(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  /* leirc bad.leir */
  assert_null(leir_program_parse(ctx, "bad.leir", "L^{4}_{a=0}[X_{a}=Y_{a}+;];\n", NULL));
  assert_string_equal(only_diag(ctx), "bad.leir:1:14: error: syntax error, unexpected '_', expecting '^'\n"
                                      "L^{4}_{a=0}[X_{a}=Y_{a}+;];\n"
                                      "             ^\n");
  leir_diagnostic d;
  assert_int_equal(leir_diag_get(ctx, 0, &d), LEIR_OK);
  assert_int_equal(d.severity, LEIR_ERROR_SEVERITY);
  assert_string_equal(d.file, "bad.leir");
  assert_int_equal(d.line, 1);
  assert_int_equal(d.column, 14);
  assert_string_equal(d.message, "syntax error, unexpected '_', expecting '^'");
  /* unnamed sources are "<string>" */
  assert_null(leir_program_parse(ctx, NULL, "L^{4}_{a=0}[X_{a}=Y_{a}+;];\n", NULL));
  assert_int_equal(leir_diag_get(ctx, 0, &d), LEIR_OK);
  assert_string_equal(d.file, "<string>");
  assert_null(leir_program_parse(ctx, "x", NULL, NULL));
  assert_string_equal(only_diag(ctx), "libleir: error: leir_program_parse: the text is NULL\n");
  assert_null(leir_program_parse(NULL, "x", matmul, NULL));
  leir_context_free(ctx);
}

static char *example(const char *name) {
  const char *top = getenv("top_srcdir");
  if (!top) top = TOP_SRCDIR;
  size_t n = strlen(top) + strlen(name) + 16;
  char *path = malloc(n);
  snprintf(path, n, "%s/examples/%s", top, name);
  return path;
}

static void test_load(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  char *path = example("matmul.leir");
  leir_program *p = leir_program_load(ctx, path, NULL);
  assert_non_null(p);
  char *t = leir_program_text(p, 0);
  assert_string_equal(t, matmul_text);
  leir_free(t);
  free(path);
  assert_null(leir_program_load(ctx, "/nonexistent/x.leir", NULL));
  assert_string_equal(only_diag(ctx), "/nonexistent/x.leir: error: cannot open: No such file or directory\n");
  assert_null(leir_program_load(ctx, NULL, NULL));
  assert_int_equal(leir_diag_count(ctx), 1);
  assert_null(leir_program_load(NULL, "x", NULL));
  leir_context_free(ctx);
}

static void test_tensors(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  assert_int_equal(leir_program_ntensors(p), 3);
  static const char *const names[] = {"A", "C", "D"};
  static const leir_role roles[] = {LEIR_IN, LEIR_IN, LEIR_OUT};
  static const int64_t shapes[][2] = {{64, 32}, {32, 48}, {64, 48}};
  for (size_t i = 0; i < 3; i++) {
    leir_tensor_info ti;
    assert_int_equal(leir_program_tensor(p, i, &ti), LEIR_OK);
    assert_string_equal(ti.name, names[i]);
    assert_int_equal(ti.role, roles[i]);
    assert_string_equal(ti.dtype, "f32");
    assert_int_equal(ti.rank, 2);
    assert_int_equal(ti.shape[0], shapes[i][0]);
    assert_int_equal(ti.shape[1], shapes[i][1]);
    assert_int_equal(ti.elem_size, 4);
    assert_int_equal(ti.nbytes, (size_t)(4 * shapes[i][0] * shapes[i][1]));
  }
  leir_tensor_info ti;
  assert_int_equal(leir_program_tensor(p, 3, &ti), LEIR_EINVAL);
  assert_int_equal(leir_program_tensor(p, 0, NULL), LEIR_EINVAL);
  assert_int_equal(leir_program_tensor(NULL, 0, &ti), LEIR_EINVAL);
  assert_int_equal(leir_program_ntensors(NULL), 0);
  /* an intermediate is not an argument; a parameter is */
  leir_program *q = leir_program_parse(ctx, NULL,
                                       "%in X : f16[3]\n%param W : i32[3]\n%out Y : f16[3]\n"
                                       "L^{3}_{i=0}[T^{f16,g}_{i}=X^{f16,g}_{i}*W^{i32,g}_{i};];"
                                       "L^{3}_{i=0}[Y^{f16,g}_{i}=T^{f16,g}_{i}+1;];\n", NULL);
  assert_non_null(q);
  assert_int_equal(leir_program_ntensors(q), 3);
  assert_int_equal(leir_program_tensor(q, 1, &ti), LEIR_OK);
  assert_string_equal(ti.name, "W");
  assert_int_equal(ti.role, LEIR_PARAM);
  assert_string_equal(ti.dtype, "i32");
  assert_int_equal(leir_program_tensor(q, 2, &ti), LEIR_OK);
  assert_string_equal(ti.name, "Y");
  assert_string_equal(ti.dtype, "f16");
  assert_int_equal(ti.elem_size, 2);
  assert_int_equal(ti.nbytes, 6);
  leir_context_free(ctx);
}

/* ------------------------------------------------------------ steps */

static void test_candidates(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  leir_candidates *c = leir_candidates_list(ctx, p, NULL);
  assert_non_null(c);
  /* leirc --list-applicable examples/matmul.leir: 60 lines, these first */
  assert_int_equal(leir_candidates_count(c), 60);
  static const char *const first[] = {
    "expression_splitting(nest=0,pattern=2)",
    "tensor_split_to_decouple_operators(nest=0,axis=tx,split=32)",
    "tensor_split_to_decouple_operators(nest=0,axis=a,split=24)",
    "tensor_split_to_decouple_operators(nest=0,axis=c,split=16)",
    "loop_reorder(nest=0,loop1=tx,loop2=a)",
    "loop_reorder(nest=0,loop1=tx,loop2=c)",
    "loop_reorder(nest=0,loop1=a,loop2=c)",
    TILING,
    "loop_tiling(nest=0,loop=tx,factor1=2,factor2=3)",
  };
  leir_candidate k;
  for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
    assert_int_equal(leir_candidate_get(c, i, &k), LEIR_OK);
    assert_string_equal(k.spelling, first[i]);
  }
  assert_int_equal(leir_candidate_get(c, 7, &k), LEIR_OK);
  assert_string_equal(k.strategy, "loop_tiling");
  assert_string_equal(k.level, "operator");
  assert_string_equal(k.cls, "E");
  assert_int_equal(k.line, 5);
  assert_int_equal(k.column, 1);
  assert_int_equal(leir_candidate_get(c, 60, &k), LEIR_EINVAL);
  assert_int_equal(leir_candidate_get(c, 0, NULL), LEIR_EINVAL);
  assert_int_equal(leir_candidate_get(NULL, 0, &k), LEIR_EINVAL);
  assert_int_equal(leir_candidates_count(NULL), 0);

  /* one strategy: the same candidates in the same order */
  leir_candidates *t = leir_candidates_list(ctx, p, "loop_tiling");
  assert_non_null(t);
  size_t nt = leir_candidates_count(t);
  assert_true(nt >= 2);
  size_t j = 0;
  for (size_t i = 0; i < leir_candidates_count(c) && j < nt; i++) {
    leir_candidate a, b;
    leir_candidate_get(c, i, &a);
    leir_candidate_get(t, j, &b);
    if (!strcmp(a.spelling, b.spelling)) j++;
    else assert_string_not_equal(a.strategy, "loop_tiling");
  }
  assert_int_equal(j, nt);
  leir_candidates_free(t);
  leir_candidates_free(c);
  leir_candidates_free(NULL);

  assert_null(leir_candidates_list(ctx, p, "warp_speed"));
  assert_string_equal(only_diag(ctx), "libleir: error: unknown strategy 'warp_speed'\n");
  assert_null(leir_candidates_list(ctx, NULL, NULL));
  assert_string_equal(only_diag(ctx), "libleir: error: leir_candidates_list: the program is NULL\n");
  assert_null(leir_candidates_list(NULL, p, NULL));
  leir_context_free(ctx);
}

static void test_apply(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  const char *cls = NULL;
  leir_program *q = leir_program_apply(ctx, p, TILING, &cls);
  assert_non_null(q);
  assert_string_equal(cls, "E");
  char *t = leir_program_text(q, 0);
  assert_string_equal(t, tiled_text);
  leir_free(t);
  t = leir_program_text(p, 0); /* p is unchanged */
  assert_string_equal(t, matmul_text);
  leir_free(t);
  assert_non_null(leir_program_apply(ctx, p, TILING, NULL)); /* cls_out may be NULL */

  /* a filter takes the first legal match, as -O does */
  q = leir_program_apply(ctx, p, "loop_tiling(loop=tx)", &cls);
  assert_non_null(q);
  t = leir_program_text(q, 0);
  assert_string_equal(t, tiled_text);
  leir_free(t);

  /* leirc -O 'loop_tiling(nest=0,loop=tx,factor1=5,factor2=2)' examples/matmul.leir */
  cls = "untouched";
  assert_null(leir_program_apply(ctx, p, "loop_tiling(nest=0,loop=tx,factor1=5,factor2=2)", &cls));
  assert_string_equal(cls, "untouched");
  assert_string_equal(only_diag(ctx),
                      "matmul.leir:5:1: error: loop_tiling: factor1=5 does not divide the extent 64 of loop 'tx'\n"
                      "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{"
                      "f32,g}_{c,a};];\n"
                      "^\n");
  leir_diagnostic d;
  leir_diag_get(ctx, 0, &d);
  assert_string_equal(d.message, "loop_tiling: factor1=5 does not divide the extent 64 of loop 'tx'");
  assert_int_equal(d.line, 5);
  assert_int_equal(d.column, 1);
  /* leirc -O bogus examples/matmul.leir */
  assert_null(leir_program_apply(ctx, p, "bogus", NULL));
  assert_string_equal(only_diag(ctx),
                      "matmul.leir: error: -O: unknown strategy 'bogus' (leirc --list-passes lists them)\n");
  /* a bare name with no legal candidate is refused (leirc -O loop_tiling
     s.leir warns "s.leir: warning: loop_tiling: nothing to do" and goes on) */
  leir_program *s = leir_program_parse(ctx, "s.leir", "%in X : f32[3]\n%out Y : f32[3]\nL^{3}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{i};];\n",
                                       NULL);
  assert_non_null(s);
  assert_null(leir_program_apply(ctx, s, "loop_tiling", NULL));
  assert_string_equal(only_diag(ctx), "s.leir: error: loop_tiling: nothing to do\n");

  assert_null(leir_program_apply(ctx, p, NULL, NULL));
  assert_string_equal(only_diag(ctx), "libleir: error: leir_program_apply: the spelling is NULL\n");
  assert_null(leir_program_apply(NULL, p, TILING, NULL));
  leir_context *other = leir_context_new();
  assert_null(leir_program_apply(other, p, TILING, NULL));
  assert_string_equal(only_diag(other),
                      "libleir: error: leir_program_apply: the program belongs to another context\n");
  leir_context_free(other);
  leir_context_free(ctx);
}

/* "fp_contract": a*b+c as one fma, the same on every target (ir/contract.h) */
static void test_run_fp_contract(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  static float off[64 * 48], on_interp[64 * 48], on_host[64 * 48];
  void *bufs[3] = {NULL, NULL, off};
  assert_int_equal(leir_program_run(ctx, p, "interp", bufs), LEIR_OK);
  assert_true(fnv(off, sizeof off) == 0xb56173c0335f0f6dull); /* test_run's: unfused by default */
  assert_int_equal(leir_context_set_option(ctx, "fp_contract", "on"), LEIR_OK);
  bufs[2] = on_interp;
  assert_int_equal(leir_program_run(ctx, p, "interp", bufs), LEIR_OK);
  bufs[2] = on_host;
  assert_int_equal(leir_program_run(ctx, p, "host", bufs), LEIR_OK);
  assert_memory_equal(on_interp, on_host, sizeof on_host);
  assert_true(memcmp(on_interp, off, sizeof off) != 0); /* D = D + A*C fused: class T against off */
  assert_int_equal(leir_context_set_option(ctx, "fp_contract", "off"), LEIR_OK);
  assert_int_equal(leir_program_run(ctx, p, "host", bufs), LEIR_OK);
  assert_memory_equal(off, on_host, sizeof off);
  leir_context_free(ctx);
}

/* ------------------------------------------------------------ running */

static void test_run(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  static float d_interp[64 * 48], d_host[64 * 48];
  void *bufs[3] = {NULL, NULL, d_interp};
  /* leirc --run --output-dir DIR examples/matmul.leir: D.npy's data */
  assert_int_equal(leir_program_run(ctx, p, "interp", bufs), LEIR_OK);
  assert_true(fnv(d_interp, sizeof d_interp) == 0xb56173c0335f0f6dull);
  bufs[2] = d_host;
  assert_int_equal(leir_program_run(ctx, p, "host", bufs), LEIR_OK);
  assert_memory_equal(d_interp, d_host, sizeof d_host);

  /* leirc --run --seed 7 --target=host -O TILING: D.npy's data */
  assert_int_equal(leir_context_set_option(ctx, "seed", "7"), LEIR_OK);
  leir_program *q = leir_program_apply(ctx, p, TILING, NULL);
  assert_int_equal(leir_program_run(ctx, q, "host", bufs), LEIR_OK);
  assert_true(fnv(d_host, sizeof d_host) == 0xf148d9879a849b1aull);
  bufs[2] = d_interp;
  assert_int_equal(leir_program_run(ctx, q, "interp", bufs), LEIR_OK);
  assert_memory_equal(d_interp, d_host, sizeof d_host);

  /* given inputs: all ones, so every D element is 32 */
  static float ones_a[64 * 32], ones_c[32 * 48];
  for (size_t i = 0; i < 64 * 32; i++) ones_a[i] = 1.0f;
  for (size_t i = 0; i < 32 * 48; i++) ones_c[i] = 1.0f;
  void *given[3] = {ones_a, ones_c, d_interp};
  assert_int_equal(leir_program_run(ctx, p, "interp", given), LEIR_OK);
  for (size_t i = 0; i < 64 * 48; i++) assert_true(d_interp[i] == 32.0f);

  /* "cuda": runs where a CUDA driver is found, else says it cannot */
  leir_status st = leir_program_run(ctx, p, "cuda", given);
  assert_true(st == LEIR_OK || st == LEIR_EUNSUPPORTED);
  if (st == LEIR_EUNSUPPORTED) assert_int_equal(leir_diag_count(ctx), 1);

  /* bad arguments */
  void *no_out[3] = {NULL, NULL, NULL};
  assert_int_equal(leir_program_run(ctx, p, "interp", no_out), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: leir_program_run: the buffer of output 'D' is NULL\n");
  assert_int_equal(leir_program_run(ctx, p, "tpu", bufs), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: unknown target 'tpu' (interp, host or cuda)\n");
  assert_int_equal(leir_program_run(ctx, p, NULL, bufs), LEIR_EINVAL);
  assert_int_equal(leir_program_run(ctx, p, "interp", NULL), LEIR_EINVAL);
  assert_int_equal(leir_program_run(ctx, NULL, "interp", bufs), LEIR_EINVAL);
  assert_int_equal(leir_program_run(NULL, p, "interp", bufs), LEIR_EINVAL);

  /* over max_memory: refused before anything is allocated */
  assert_int_equal(leir_context_set_option(ctx, "max_memory", "1K"), LEIR_OK);
  assert_int_equal(leir_program_run(ctx, p, "interp", bufs), LEIR_ENOMEM);
  assert_true(leir_diag_count(ctx) >= 1);
  assert_int_equal(leir_context_set_option(ctx, "max_memory", "0"), LEIR_OK);

  /* a run-time error: the work limit */
  assert_int_equal(leir_context_set_option(ctx, "max_steps", "10"), LEIR_OK);
  assert_int_equal(leir_program_run(ctx, p, "interp", bufs), LEIR_ERROR);
  assert_true(leir_diag_count(ctx) >= 1);
  leir_context_free(ctx);
}

/* leir_program_compile: compiled once, run many times in place; the same
 * bits as leir_program_run's "host" (and so the interpreter's). */
static void test_compiled(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  static float a[64 * 32], c[32 * 48], d_run[64 * 48], d_comp[64 * 48];
  for (size_t i = 0; i < 64 * 32; i++) a[i] = (float)(i % 13) * 0.25f - 1.0f;
  for (size_t i = 0; i < 32 * 48; i++) c[i] = (float)(i % 7) * 0.5f - 1.5f;
  void *bufs[3] = {a, c, d_run};
  assert_int_equal(leir_program_run(ctx, p, "host", bufs), LEIR_OK);
  leir_compiled *k = leir_program_compile(ctx, p, "host");
  assert_non_null(k);
  leir_program_free(p); /* the compiled code outlives the handle */
  bufs[2] = d_comp;
  for (int round = 0; round < 3; round++) {
    memset(d_comp, 0x7f, sizeof d_comp); /* outputs are zeroed first */
    assert_int_equal(leir_compiled_run(k, bufs), LEIR_OK);
    assert_memory_equal(d_run, d_comp, sizeof d_comp);
  }
  /* its inputs are read in place: every D element is 32 for all-ones */
  for (size_t i = 0; i < 64 * 32; i++) a[i] = 1.0f;
  for (size_t i = 0; i < 32 * 48; i++) c[i] = 1.0f;
  assert_int_equal(leir_compiled_run(k, bufs), LEIR_OK);
  for (size_t i = 0; i < 64 * 48; i++) assert_true(d_comp[i] == 32.0f);

  /* bad arguments */
  void *no_in[3] = {NULL, c, d_comp};
  assert_int_equal(leir_compiled_run(k, no_in), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: leir_compiled_run: the buffer of 'A' is NULL\n");
  assert_int_equal(leir_compiled_run(k, NULL), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: leir_compiled_run: the buffer array is NULL\n");
  assert_int_equal(leir_compiled_run(NULL, bufs), LEIR_EINVAL);
  p = parse_matmul(ctx);
  assert_null(leir_program_compile(ctx, p, "cuda"));
  assert_string_equal(only_diag(ctx), "libleir: error: leir_program_compile: unknown target 'cuda' (host)\n");
  assert_null(leir_program_compile(ctx, p, NULL));
  assert_null(leir_program_compile(ctx, NULL, "host"));
  assert_null(leir_program_compile(NULL, p, "host"));
  leir_compiled_free(NULL);
  leir_compiled_free(k);
  /* one left to the context to free (LeakSanitizer in the sanitizer build) */
  assert_non_null(leir_program_compile(ctx, p, "host"));
  leir_context_free(ctx);
}

static void test_compare(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *a = leir_program_parse(ctx, "a.leir", matmul, NULL);
  leir_program *t = leir_program_apply(ctx, a, TILING, NULL);
  const char *v = NULL;
  char *msg = NULL;
  assert_int_equal(leir_compare(ctx, a, t, &v, &msg), LEIR_OK);
  assert_string_equal(v, "equal");
  assert_string_equal(msg, "equal\n");
  leir_free(msg);
  assert_int_equal(leir_compare(ctx, a, t, &v, NULL), LEIR_OK);

  /* leirc --compare a.leir b.leir (b: D = D - A*C) */
  leir_program *b = leir_program_parse(ctx, "b.leir",
                                       "%in  A : f32[64,32]\n%in  C : f32[32,48]\n%out D : f32[64,48]\n" BODY_MINUS,
                                       NULL);
  assert_non_null(b);
  assert_int_equal(leir_compare(ctx, a, b, &v, &msg), LEIR_OK);
  assert_string_equal(v, "differ");
  assert_string_equal(msg, "differ\nfirst mismatch: output 'D' at [0,0] (flat 0, seed 0): 439.936523 in a.leir, "
                           "-439.936523 in b.leir (2276978624 ulp apart)\n");
  leir_free(msg);

  /* other arguments: an error, located */
  leir_program *c = leir_program_parse(ctx, "c.leir", "%in X : f32[4]\n%out Y : f32[4]\n"
                                                      "L^{4}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{i};];\n", NULL);
  assert_int_equal(leir_compare(ctx, a, c, &v, &msg), LEIR_ERROR);
  assert_true(leir_diag_count(ctx) >= 1);
  assert_int_equal(leir_compare(ctx, a, b, NULL, NULL), LEIR_EINVAL);
  assert_int_equal(leir_compare(ctx, a, NULL, &v, NULL), LEIR_EINVAL);
  assert_int_equal(leir_compare(NULL, a, b, &v, NULL), LEIR_EINVAL);
  leir_context_free(ctx);
}

/* ------------------------------------------------------------ code */

static void test_emit(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  char *s = leir_program_emit(ctx, p, "leir");
  assert_string_equal(s, matmul_text);
  leir_free(s);
  /* leirc --emit=ptx: the launch plan first */
  s = leir_program_emit(ctx, p, "ptx");
  assert_non_null(s);
  assert_memory_equal(s, "// leir-plan 1\n// leir-tensor A in f32 64,32\n// leir-tensor C in f32 32,48\n"
                         "// leir-tensor D out f32 64,48\n// leir-launch leir_k0 1,1,1 64,1,1 0 - A,C,D\n", 143);
  assert_non_null(strstr(s, "\n.target sm_90\n"));
  leir_free(s);
  assert_int_equal(leir_context_set_option(ctx, "gpu_arch", "sm_80"), LEIR_OK);
  s = leir_program_emit(ctx, p, "ptx");
  assert_non_null(strstr(s, "\n.target sm_80\n"));
  leir_free(s);
  /* leirc --emit=tir examples/matmul.leir */
  s = leir_program_emit(ctx, p, "tir");
  assert_string_equal(s,
    "# from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((64, 32), \"float32\"), C: T.Buffer((32, 48), \"float32\"), D: T.Buffer((64, 48), "
    "\"float32\")):\n"
    "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": True})\n"
    "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
    "        for a, c in T.grid(48, 32):\n"
    "            with T.block(\"D_0\"):\n"
    "                v_tx, v_a, v_c = T.axis.remap(\"SSR\", [tx, a, c])\n"
    "                with T.init():\n"
    "                    D[v_tx, v_a] = T.float32(0.0)\n"
    "                D[v_tx, v_a] = (D[v_tx, v_a] + (A[v_tx, v_c] * C[v_c, v_a]))\n");
  leir_free(s);
  static const char *const kinds[] = {"llvm", "asm", "cuda", "tirx"};
  for (size_t i = 0; i < 4; i++) {
    s = leir_program_emit(ctx, p, kinds[i]);
    assert_non_null(s);
    assert_true(strlen(s) > 100);
    leir_free(s);
  }
  assert_null(leir_program_emit(ctx, p, "fortran"));
  assert_string_equal(only_diag(ctx),
                      "libleir: error: unknown emit kind 'fortran' (ptx, llvm, asm, cuda, tir, tirx or leir)\n");
  assert_null(leir_program_emit(ctx, p, NULL));
  assert_null(leir_program_emit(ctx, NULL, "ptx"));
  assert_null(leir_program_emit(NULL, p, "ptx"));
  leir_context_free(ctx);
}

static void test_cost_and_measure(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  double sec = -1;
  char buf[64];
  /* leirc --print-cost --cost=model [--target=host] examples/matmul.leir */
  assert_int_equal(leir_program_cost(ctx, p, "cuda", &sec), LEIR_OK);
  snprintf(buf, sizeof buf, "%.6g", sec);
  assert_string_equal(buf, "0.000194158");
  assert_int_equal(leir_program_cost(ctx, p, "host", &sec), LEIR_OK);
  snprintf(buf, sizeof buf, "%.6g", sec);
  assert_string_equal(buf, "4.25333e-06"); /* one thread: parallel.h */
  assert_int_equal(leir_program_cost(ctx, p, "interp", &sec), LEIR_EINVAL);
  assert_string_equal(only_diag(ctx), "libleir: error: the cost model's target must be host, cuda or learned, not 'interp'\n");
  assert_int_equal(leir_program_cost(ctx, p, "host", NULL), LEIR_EINVAL);
  assert_int_equal(leir_program_cost(ctx, NULL, "host", &sec), LEIR_EINVAL);
  assert_int_equal(leir_program_cost(NULL, p, "host", &sec), LEIR_EINVAL);

  sec = -1;
  assert_int_equal(leir_program_measure(ctx, p, &sec), LEIR_OK);
  assert_true(sec > 0 && sec < 10);
  assert_int_equal(leir_program_measure(ctx, p, NULL), LEIR_EINVAL);
  assert_int_equal(leir_program_measure(ctx, NULL, &sec), LEIR_EINVAL);
  assert_int_equal(leir_program_measure(NULL, p, &sec), LEIR_EINVAL);
  leir_context_free(ctx);
}

/* ------------------------------------------------------------ check_step */

static void test_check_step(void **state) {
  (void)state;
  static const char *const names[] = {"legal", "equivalent", "not equivalent", "does not parse", "invalid",
                                      "unchanged", "not run"};
  for (int v = 0; v < 7; v++) assert_string_equal(leir_verdict_name((leir_verdict)v), names[v]);
  assert_null(leir_verdict_name((leir_verdict)7));

  leir_context *ctx = leir_context_new();
  leir_program *p = parse_matmul(ctx);
  leir_step_result r;
  assert_int_equal(leir_check_step(ctx, p, matmul, NULL, &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_UNCHANGED);
  assert_null(r.spelling);
  leir_step_result_clear(&r);

  assert_int_equal(leir_check_step(ctx, p, tiled_text, "loop_tiling", &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_LEGAL);
  assert_string_equal(r.spelling, TILING);
  assert_string_equal(r.cls, "E");
  assert_string_equal(r.message, "legal: " TILING " (class E)");
  leir_step_result_clear(&r);
  assert_null(r.spelling);
  assert_null(r.cls);
  assert_null(r.message);

  /* equal outputs, but not one step of loop_reorder */
  assert_int_equal(leir_check_step(ctx, p, tiled_text, "loop_reorder", &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_EQUIVALENT);
  leir_step_result_clear(&r);

  assert_int_equal(leir_check_step(ctx, p, BODY_MINUS, NULL, &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_NOT_EQUIVALENT);
  assert_null(r.spelling);
  leir_step_result_clear(&r);
  /* over the context's max_steps: not run, never not equivalent */
  assert_int_equal(leir_context_set_option(ctx, "max_steps", "1"), LEIR_OK);
  assert_int_equal(leir_check_step(ctx, p, BODY_MINUS, NULL, &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_NOT_RUN);
  assert_true(strncmp(r.message, "not run: ", 9) == 0);
  leir_step_result_clear(&r);
  assert_int_equal(leir_context_set_option(ctx, "max_steps", "0"), LEIR_OK);

  assert_int_equal(leir_check_step(ctx, p, "L^{4}_{a=0}[X_{a}=Y_{a}+;];\n", NULL, &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_DOES_NOT_PARSE);
  assert_string_equal(r.message, "does not parse: <after>:1:14: error: syntax error, unexpected '_', expecting '^'");
  assert_string_equal(only_diag(ctx), "<after>:1:14: error: syntax error, unexpected '_', expecting '^'\n"
                                      "L^{4}_{a=0}[X_{a}=Y_{a}+;];\n"
                                      "             ^\n");
  leir_step_result_clear(&r);

  assert_int_equal(leir_check_step(ctx, p, "L^{4}_{a=0}[D^{f32,g}_{a,a,a}=1;];\n", NULL, &r), LEIR_OK);
  assert_int_equal(r.verdict, LEIR_STEP_INVALID);
  assert_true(leir_diag_count(ctx) >= 1);
  leir_step_result_clear(&r);

  assert_int_equal(leir_check_step(ctx, p, matmul, "warp_speed", &r), LEIR_EINVAL);
  assert_int_equal(leir_check_step(ctx, p, NULL, NULL, &r), LEIR_EINVAL);
  assert_int_equal(leir_check_step(ctx, p, matmul, NULL, NULL), LEIR_EINVAL);
  assert_int_equal(leir_check_step(ctx, NULL, matmul, NULL, &r), LEIR_EINVAL);
  assert_int_equal(leir_check_step(NULL, p, matmul, NULL, &r), LEIR_EINVAL);
  leir_step_result_clear(NULL);
  leir_context_free(ctx);
}

/* Warnings of a call that succeeds stay readable (leirc w.leir). */
static void test_warnings_kept(void **state) {
  (void)state;
  leir_context *ctx = leir_context_new();
  leir_program *p = leir_program_parse(ctx, "w.leir", "%in X : f32[4]\n%in Z : f32[4]\n%out Y : f32[4]\n"
                                                      "L^{4}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{i};];\n", NULL);
  assert_non_null(p);
  assert_string_equal(only_diag(ctx), "w.leir:2:5: warning: 'Z' is declared but never read\n"
                                      "%in Z : f32[4]\n"
                                      "    ^\n");
  leir_diagnostic d;
  leir_diag_get(ctx, 0, &d);
  assert_int_equal(d.severity, LEIR_WARNING);
  /* the getters that cannot fail keep them */
  char *t = leir_program_text(p, 0);
  leir_free(t);
  assert_int_equal(leir_program_ntensors(p), 3);
  assert_int_equal(leir_diag_count(ctx), 1);
  leir_context_free(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_version),        cmocka_unit_test(test_options),
    cmocka_unit_test(test_parse_and_text), cmocka_unit_test(test_parse_errors),
    cmocka_unit_test(test_load),           cmocka_unit_test(test_tensors),
    cmocka_unit_test(test_candidates),     cmocka_unit_test(test_apply),
    cmocka_unit_test(test_run),            cmocka_unit_test(test_run_fp_contract),
    cmocka_unit_test(test_compiled),       cmocka_unit_test(test_compare),
    cmocka_unit_test(test_emit),           cmocka_unit_test(test_cost_and_measure),
    cmocka_unit_test(test_check_step),     cmocka_unit_test(test_warnings_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
