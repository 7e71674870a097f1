/* rng_test.c -- unit tests for interp/rng.c, and for the random inputs
 * that interp/data.c draws with it: the batched fills must give exactly the
 * bits of the one-at-a-time formulas (kept here as the reference). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "interp/data.h"
#include "interp/interp.h"
#include "interp/ops.h"
#include "interp/rng.h"
#include "ir/ir.h"

static uint64_t bits_of(double d)
{
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

static void assert_same_double(double got, double want)
{
  if (bits_of(got) != bits_of(want))
    fail_msg("got %a (%.17g), want %a (%.17g)", got, got, want, want);
}

/* The cross-machine determinism check: these values were computed once and
 * must come out bit-identical everywhere. */
static void test_fixed_values(void **state)
{
  (void)state;
  static const uint64_t next[4] = {
    UINT64_C(0xda78ecc6d29dfdc5), UINT64_C(0x999d9ccfcba94ae9),
    UINT64_C(0x9814432fd4ac489b), UINT64_C(0xa75ffd9c93e1e936),
  };
  static const double uniform[4] = {
    0x1.b4f1d98da53bfp-1, 0x1.333b399f97529p-1, 0x1.3028865fa9589p-1,
    0x1.4ebffb3927c3dp-1,
  };
  static const double normal[6] = {
    0x1.0d18e2b267f93p+0, 0x1.0396f7ba3498ep-2, 0x1.e76c2cee123cap-3,
    0x1.951e3873471c1p-2, 0x1.49d9bc7c41554p-5, -0x1.5fb3662b17da4p-1,
  };
  LeirRng r;
  rng_seed(&r, 42, rng_hash_string("A"));
  for (int i = 0; i < 4; i++)
    assert_true(rng_next(&r) == next[i]);
  rng_seed(&r, 42, rng_hash_string("A"));
  for (int i = 0; i < 4; i++)
    assert_same_double(rng_uniform(&r), uniform[i]);
  rng_seed(&r, 42, rng_hash_string("A"));
  for (int i = 0; i < 6; i++)
    assert_same_double(rng_normal(&r), normal[i]);
  /* the far tail and rng_log on its own */
  assert_same_double(rng_normal_quantile(0x1p-53), -0x1.06b48525582dap+3);
  assert_same_double(rng_normal_quantile(1e-300), -0x1.28607406c74fep+5);
  assert_same_double(rng_log(0x1.8p-1000), -0x1.5a5ef0882c4a1p+9);
}

/* A checksum over many normals, tails included (they use rng_log). */
static void test_fixed_checksum(void **state)
{
  (void)state;
  LeirRng r;
  rng_seed(&r, 7, 0);
  uint64_t h = 0;
  for (int i = 0; i < 100000; i++)
    h = (h ^ bits_of(rng_normal(&r))) * UINT64_C(0x100000001b3);
  print_message("checksum 0x%016llx\n", (unsigned long long)h);
  assert_true(h == UINT64_C(0xb41c7ac6087395b0));
}

static void test_hash(void **state)
{
  (void)state;
  assert_true(rng_hash_string("") == UINT64_C(0xcbf29ce484222325));
  assert_true(rng_hash_string("a") == UINT64_C(0xaf63dc4c8601ec8c));
  assert_true(rng_hash_string("foobar") == UINT64_C(0x85944171f73967e8));
}

static void test_streams_and_seeds_differ(void **state)
{
  (void)state;
  LeirRng a, b, c, d;
  rng_seed(&a, 1, rng_hash_string("A"));
  rng_seed(&b, 1, rng_hash_string("B"));
  rng_seed(&c, 2, rng_hash_string("A"));
  rng_seed(&d, 1, rng_hash_string("A"));
  for (int i = 0; i < 100; i++) {
    uint64_t x = rng_next(&a);
    assert_true(x != rng_next(&b));
    assert_true(x != rng_next(&c));
    assert_true(x == rng_next(&d));
  }
}

static void test_uniform_range(void **state)
{
  (void)state;
  LeirRng r;
  rng_seed(&r, 3, 4);
  double sum = 0.0;
  for (int i = 0; i < 100000; i++) {
    double u = rng_uniform(&r);
    assert_true(u >= 0.0 && u < 1.0);
    sum += u;
  }
  assert_true(fabs(sum / 100000 - 0.5) < 0.005);
}

static void test_normal_moments(void **state)
{
  (void)state;
  enum { N = 100000 };
  LeirRng r;
  rng_seed(&r, 12345, rng_hash_string("weights"));
  double sum = 0.0, sum2 = 0.0, sum4 = 0.0, maxabs = 0.0;
  int beyond = 0;
  for (int i = 0; i < N; i++) {
    double x = rng_normal(&r);
    sum += x;
    sum2 += x * x;
    sum4 += x * x * x * x;
    beyond += fabs(x) > 1.959963984540054;
    maxabs = fmax(maxabs, fabs(x));
  }
  double mean = sum / N, var = sum2 / N - mean * mean;
  print_message("mean %g var %g kurtosis %g beyond %d max %g\n", mean, var,
                sum4 / N, beyond, maxabs);
  assert_true(fabs(mean) < 0.02);                /* sd 0.0032 */
  assert_true(fabs(var - 1.0) < 0.03);           /* sd 0.0045 */
  assert_true(fabs(sum4 / N - 3.0) < 0.15);      /* sd ~0.03 */
  assert_true(beyond > 4500 && beyond < 5500);   /* 5000 +- 69 */
  assert_true(maxabs > 3.5 && maxabs < 8.5);
}

static void test_quantile(void **state)
{
  (void)state;
  assert_true(rng_normal_quantile(0.5) == 0.0);
  assert_true(fabs(rng_normal_quantile(0.975) - 1.959963984540054) < 1e-8);
  assert_true(fabs(rng_normal_quantile(0.025) + 1.959963984540054) < 1e-8);
  assert_true(fabs(rng_normal_quantile(0.8413447460685429) - 1.0) < 1e-8);
  assert_true(fabs(rng_normal_quantile(1e-10) + 6.361340902404056) < 1e-8);
  assert_true(fabs(rng_normal_quantile(0.01) + 2.3263478740408408) < 1e-8);
  assert_true(rng_normal_quantile(0.0) == -INFINITY);
  assert_true(rng_normal_quantile(1.0) == INFINITY);
  assert_true(isnan(rng_normal_quantile(NAN)));
  for (double p = 0.001; p < 0.5; p += 0.001) /* odd symmetry */
    assert_true(rng_normal_quantile(p) == -rng_normal_quantile(1.0 - p) ||
                fabs(rng_normal_quantile(p) + rng_normal_quantile(1.0 - p)) < 1e-12);
}

/* rng_log against libm: within a few ulps (libm is only the yardstick). */
static void test_log(void **state)
{
  (void)state;
  double worst = 0.0;
  for (double x = 1e-300; x < 1e300; x *= 1.0137) {
    double want = log(x), ulp = nextafter(fabs(want), INFINITY) - fabs(want);
    if (want != 0.0)
      worst = fmax(worst, fabs(rng_log(x) - want) / ulp);
  }
  for (double x = 0.5; x < 2.0; x += 1.0 / 4096) {
    double want = log(x), ulp = nextafter(fabs(want), INFINITY) - fabs(want);
    if (want != 0.0)
      worst = fmax(worst, fabs(rng_log(x) - want) / ulp);
  }
  print_message("rng_log worst error %g ulp\n", worst);
  assert_true(worst <= 4.0);
  assert_true(rng_log(1.0) == 0.0);
  assert_true(fabs(rng_log(4.9406564584124654e-324) + 744.44007192138122) < 1e-12);
  assert_true(fabs(rng_log(2.0) - 0.69314718055994531) < 1e-16);
  assert_true(rng_log(0.0) == -INFINITY);
  assert_true(rng_log(INFINITY) == INFINITY);
  assert_true(isnan(rng_log(-1.0)));
  assert_true(isnan(rng_log(NAN)));
}

/* ------------------------------------------------------------ batches */

static double seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* rng_normal_fill(r, x, n) is n calls of rng_normal, bit for bit, and
 * leaves r where they leave it: many seeds and streams, odd sizes and
 * sizes around the batch's blocks. */
static void test_normal_fill_matches_scalar(void **state)
{
  (void)state;
  static const size_t sizes[] = {0, 1, 2, 3, 5, 7, 31, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 4099};
  enum { MAXN = 4099 };
  double *got = malloc(MAXN * sizeof *got);
  assert_non_null(got);
  long n_checked = 0, n_tail = 0;
  for (uint64_t seed = 0; seed < 300; seed++)
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
      size_t n = sizes[z];
      LeirRng a, b;
      rng_seed(&a, seed, seed * 977 + z);
      b = a;
      rng_normal_fill(&a, got, n);
      for (size_t i = 0; i < n; i++) {
        double want = rng_normal(&b);
        if (bits_of(got[i]) != bits_of(want))
          fail_msg("seed %llu size %zu element %zu: got %a, want %a", (unsigned long long)seed, n, i, got[i], want);
        n_tail += fabs(want) > 1.97;
      }
      assert_true(rng_next(&a) == rng_next(&b)); /* the same draws used */
      n_checked += (long)n;
    }
  free(got);
  /* and one big fill, against the scalar loop, timed */
  enum { BIG = 1 << 21 };
  double *x = malloc(BIG * sizeof *x), *y = malloc(BIG * sizeof *y);
  assert_non_null(x);
  assert_non_null(y);
  LeirRng a, b;
  rng_seed(&a, 42, rng_hash_string("A"));
  b = a;
  double t0 = seconds();
  rng_normal_fill(&a, x, BIG);
  double t1 = seconds();
  for (size_t i = 0; i < BIG; i++)
    y[i] = rng_normal(&b);
  double t2 = seconds();
  assert_memory_equal(x, y, BIG * sizeof *x);
  n_checked += BIG;
  print_message("%ld normals bit-identical (%ld in the tails); %d: batch %.2f ns, scalar %.2f ns each\n", n_checked,
                n_tail, BIG, 1e9 * (t1 - t0) / BIG, 1e9 * (t2 - t1) / BIG);
  free(x);
  free(y);
}

/* Compares rng_normal_quantiles with rng_normal_quantile on p[0..n),
 * into a separate array and in place. */
static void check_quantiles(double *p, size_t n, const char *what)
{
  double *x = malloc((n + 1) * sizeof *x), *want = malloc((n + 1) * sizeof *want);
  assert_non_null(x);
  assert_non_null(want);
  for (size_t i = 0; i < n; i++)
    want[i] = rng_normal_quantile(p[i]);
  rng_normal_quantiles(p, x, n);
  for (size_t i = 0; i < n; i++)
    if (bits_of(x[i]) != bits_of(want[i]))
      fail_msg("%s: p = %a: got %a, want %a", what, p[i], x[i], want[i]);
  rng_normal_quantiles(p, p, n); /* in place */
  assert_memory_equal(p, want, n * sizeof *p);
  free(x);
  free(want);
}

/* rng_normal_quantiles is rng_normal_quantile bit for bit: on every p a
 * draw gives near the central region's bounds (p_low, 1 - p_low), in
 * millions of random draws' p, on random doubles of every exponent in
 * [0, 1) (subnormals, whose logarithm takes the scalar path, included), and
 * on the special values. */
static void test_quantiles_match_scalar(void **state)
{
  (void)state;
  enum { N = 1 << 21, W = 40000 };
  double *p = malloc(N * sizeof *p);
  assert_non_null(p);
  LeirRng r;
  rng_seed(&r, 5, 6);
  /* draws' p = (k + 0.5) 2^-52 around p_low, 1 - p_low, 0.5 and the ends */
  static const double centre[] = {0.02425, 1.0 - 0.02425, 0.5, 0.0, 1.0, 0.01, 0.99};
  size_t n = 0;
  for (size_t c = 0; c < sizeof centre / sizeof centre[0]; c++) {
    int64_t k0 = (int64_t)(centre[c] * 0x1.0p52);
    for (int64_t k = k0 - W; k < k0 + W; k++)
      if (k >= 0 && k < (INT64_C(1) << 52))
        p[n++] = ((double)k + 0.5) * 0x1.0p-52;
  }
  check_quantiles(p, n, "draws near the bounds");
  for (size_t i = 0; i < N; i++)
    p[i] = ((double)(rng_next(&r) >> 12) + 0.5) * 0x1.0p-52;
  check_quantiles(p, N, "random draws");
  /* random doubles in [0, 1), uniform over their bit patterns */
  for (size_t i = 0; i < N; i++) {
    uint64_t b = rng_next(&r) % UINT64_C(0x3ff0000000000000);
    memcpy(&p[i], &b, sizeof b);
  }
  check_quantiles(p, N, "random doubles");
  /* doubles next to the bounds, one ulp apart */
  n = 0;
  for (size_t c = 0; c < sizeof centre / sizeof centre[0]; c++) {
    double d = centre[c], u = centre[c];
    for (int k = 0; k < 1000; k++) {
      p[n++] = d = nextafter(d, -INFINITY);
      p[n++] = u = nextafter(u, INFINITY);
    }
  }
  check_quantiles(p, n, "doubles next to the bounds");
  static const double special[] = {
    0.0, -0.0, 1.0, -1.0, 2.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp-1023, 0x1p-53, 0x1.fffffffffffffp-1,
    0x1p-52 * 0.5, 1.0 - 0x1p-53, INFINITY, -INFINITY, NAN, 0.02425, 1.0 - 0.02425, 0.5, 1e-300, 0.3,
  };
  for (int rot = 0; rot < 3; rot++) { /* in every lane */
    n = 0;
    for (int k = 0; k < rot; k++)
      p[n++] = 0.25;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
      p[n++] = special[i];
    check_quantiles(p, n, "special values");
  }
  free(p);
}

/* ------------------------------------------------------------ inputs */

/* interp/data.c's random inputs as they were drawn one element at a time
 * (before the batched fill): the reference the batched code must match. */
static void ref_fill(const IrTensor *t, void *data, int64_t numel, uint64_t seed, int64_t extent)
{
  LeirRng r;
  rng_seed(&r, seed, rng_hash_string(t->name));
  IrDType dt = t->dtype;
  if (ir_dtype_is_float(dt)) {
    bool small = true, zero = false;
    for (int64_t k = 0; k < numel; k++) {
      IVal v;
      v.d = rng_normal(&r);
      v = op_convert(v, DT_F64, dt);
      op_store(data, dt, k, v);
      double x = dt == DT_F64 ? v.d : (double)v.f;
      if (!(fabs(x) < 10))
        small = false;
      if (x == 0)
        zero = true;
    }
    if (!small || zero)
      return;
    IVal ten = op_const(10, dt);
    for (int64_t k = 0; k < numel; k++)
      op_store(data, dt, k, op_combine(OP_MUL, dt, op_load(data, dt, k), ten));
    return;
  }
  for (int64_t k = 0; k < numel; k++) {
    IVal v;
    double u = rng_uniform(&r);
    if (dt == DT_BOOL)
      v.i = u >= 0.5;
    else if (extent > 0)
      v.i = (int64_t)(u * (double)extent);
    else
      v.i = (int64_t)(u * 16) - (ir_dtype_is_signed_int(dt) ? 8 : 0);
    if (extent > 0 && v.i >= extent)
      v.i = extent - 1;
    op_store(data, dt, k, op_convert(v, DT_I64, dt));
  }
}

/* A program with an input of each dtype of n elements (Kx indexes Af, so
 * it is drawn in [0, n)). */
static char *inputs_program(int64_t n)
{
  static const char *const decl[] = {"Af : f32", "Dd : f64", "Hh : f16", "Wb : bf16", "Is : i32",
                                     "Js : i8",  "Uu : u8",  "Vu : u64", "Qb : bool", "Kx : i64"};
  size_t cap = 4096;
  char *s = malloc(cap);
  assert_non_null(s);
  size_t k = 0;
  for (size_t i = 0; i < sizeof decl / sizeof decl[0]; i++)
    k += (size_t)snprintf(s + k, cap - k, "%%in %s[%lld]\n", decl[i], (long long)n);
  snprintf(s + k, cap - k,
           "%%out C : f32[%lld]\nB^{%lld}_{tx=0}[C^{f32,g}_{tx}=Af^{f32,g}_{Kx^{i64,g}_{tx}}+Dd^{f64,g}_{tx}+Hh^{f16,g}_{tx}"
           "+Wb^{bf16,g}_{tx}+Is^{i32,g}_{tx}+Js^{i8,g}_{tx}+Uu^{u8,g}_{tx}+Vu^{u64,g}_{tx}+Qb^{bool,g}_{tx};];\n",
           (long long)n, (long long)n);
  return s;
}

/* interp_random_inputs (batched) equals the one-at-a-time reference byte
 * for byte: f32, f64, f16, bf16, signed and unsigned integers, bool and an
 * index tensor, odd sizes and sizes around the fill's blocks, many seeds. */
static void test_random_inputs_match_reference(void **state)
{
  (void)state;
  static const int64_t sizes[] = {1, 2, 3, 7, 255, 1023, 1024, 1025, 2049, 5003};
  long checked = 0;
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    char *text = inputs_program(sizes[z]);
    LeirCtx ctx;
    leir_ctx_init(&ctx);
    leir_ctx_set_source(&ctx, "t.leir", text, strlen(text));
    IrProgram *p = ps_parse(&ctx);
    assert_non_null(p);
    assert_true(ir_sema(&ctx, p, NULL));
    InterpProg *ip = interp_new(&ctx, p, NULL);
    assert_non_null(ip);
    for (uint64_t seed = 0; seed < 40; seed++) {
      interp_random_inputs(ip, seed * 1000003, NULL);
      for (int i = 0; i < interp_ntensors(ip); i++) {
        InterpBuf *b = interp_buf(ip, i);
        if (b->t->role != ROLE_IN)
          continue;
        void *want = calloc(b->nbytes, 1);
        assert_non_null(want);
        ref_fill(b->t, want, b->numel, seed * 1000003, !strcmp(b->t->name, "Kx") ? sizes[z] : 0);
        if (memcmp(b->data, want, b->nbytes) != 0)
          fail_msg("size %lld seed %llu: input %s differs", (long long)sizes[z], (unsigned long long)seed, b->t->name);
        checked += (long)b->numel;
        free(want);
      }
    }
    interp_free(ip);
    leir_ctx_free(&ctx);
    free(text);
  }
  print_message("%ld input elements byte-identical to the reference\n", checked);
}

/* A program from its text (analysed), in a context of its own. */
typedef struct Prog {
  LeirCtx ctx;
  IrProgram *p;
  InterpProg *ip;
} Prog;

static Prog *prog_new(const char *text)
{
  Prog *g = calloc(1, sizeof *g);
  assert_non_null(g);
  leir_ctx_init(&g->ctx);
  leir_ctx_set_source(&g->ctx, "t.leir", text, strlen(text));
  g->p = ps_parse(&g->ctx);
  assert_non_null(g->p);
  assert_true(ir_sema(&g->ctx, g->p, NULL));
  g->ip = interp_new(&g->ctx, g->p, NULL);
  assert_non_null(g->ip);
  return g;
}

static void prog_free(Prog *g)
{
  interp_free(g->ip);
  leir_ctx_free(&g->ctx);
  free(g);
}

/* Draws g's inputs with the cache and without, and checks they are the
 * same bytes; then the cache's counts. */
static void check_cached(Prog *g, uint64_t seed, InterpInputCache *c, long hits, long misses)
{
  Prog *ref = prog_new(g->ctx.src.text);
  interp_random_inputs(ref->ip, seed, NULL);
  interp_random_inputs_cached(g->ip, seed, NULL, c);
  for (int i = 0; i < interp_ntensors(g->ip); i++) {
    InterpBuf *x = interp_buf(g->ip, i), *y = interp_buf(ref->ip, i);
    if (x->t->role == ROLE_IN)
      assert_memory_equal(x->data, y->data, x->nbytes);
  }
  prog_free(ref);
  assert_int_equal(c->hits, hits);
  assert_int_equal(c->misses, misses);
}

/* interp_random_inputs_cached: the values of interp_random_inputs, kept
 * from an input's second drawing on and copied from its third; the key is
 * the name, dtype, shape, index extent and seed (a change of any draws
 * anew); max_bytes bounds what is kept. */
static void test_input_cache(void **state)
{
  (void)state;
  InterpInputCache c = {.max_bytes = 1 << 20};
  Prog *a = prog_new("%in A : f32[4,8]\n%in K : i64[4]\n%out C : f32[4]\n"
                     "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,K^{i64,g}_{tx}};];\n");
  check_cached(a, 1, &c, 0, 2);  /* first: keys noted */
  assert_int_equal(c.bytes, 0);
  check_cached(a, 1, &c, 0, 4);  /* second: drawn and kept */
  assert_int_equal(c.bytes, 4 * 8 * 4 + 4 * 8);
  check_cached(a, 1, &c, 2, 4);  /* then copied */
  check_cached(a, 2, &c, 2, 6);  /* another seed */
  /* the same names with another shape, dtype or index extent */
  Prog *b = prog_new("%in A : f32[8,4]\n%in K : i64[4]\n%out C : f32[8]\n"
                     "B^{8}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,K^{i64,g}_{0}};];\n");
  check_cached(b, 1, &c, 2, 8);
  check_cached(b, 1, &c, 2, 10);
  check_cached(b, 1, &c, 4, 10);
  Prog *d = prog_new("%in A : f64[4,8]\n%in K : i32[4]\n%out C : f64[4]\n"
                     "B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx,K^{i32,g}_{tx}};];\n");
  check_cached(d, 1, &c, 4, 12);
  check_cached(d, 1, &c, 4, 14);
  check_cached(d, 1, &c, 6, 14);
  check_cached(a, 1, &c, 8, 14); /* a's still there */
  interp_input_cache_free(&c);
  assert_int_equal(c.n, 0);
  assert_int_equal(c.max_bytes, 1 << 20);
  /* a bound below an input: that input is never kept, the others are */
  c.max_bytes = 100;
  check_cached(a, 1, &c, 0, 2);
  check_cached(a, 1, &c, 0, 4);
  check_cached(a, 1, &c, 1, 5);
  assert_int_equal(c.bytes, 32);
  interp_input_cache_free(&c);
  /* and max_bytes 0 keeps nothing */
  c.max_bytes = 0;
  for (int k = 0; k < 3; k++)
    check_cached(a, 1, &c, 0, 0);
  assert_int_equal(c.n, 0);
  interp_input_cache_free(&c);
  prog_free(a);
  prog_free(b);
  prog_free(d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fixed_values),
    cmocka_unit_test(test_fixed_checksum),
    cmocka_unit_test(test_hash),
    cmocka_unit_test(test_streams_and_seeds_differ),
    cmocka_unit_test(test_uniform_range),
    cmocka_unit_test(test_normal_moments),
    cmocka_unit_test(test_quantile),
    cmocka_unit_test(test_log),
    cmocka_unit_test(test_normal_fill_matches_scalar),
    cmocka_unit_test(test_quantiles_match_scalar),
    cmocka_unit_test(test_random_inputs_match_reference),
    cmocka_unit_test(test_input_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
