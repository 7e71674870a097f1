/* interchange_test.c -- codegen/lower_loops.c's interchange (issue 61): a
 * reduction nest `... j, k [C[.., j] = C[.., j] + x;]` whose innermost
 * loop k is the reduction runs with k outside j on the host, so that the
 * innermost loop over j is vectorised.  Each case runs in the interpreter
 * and on the host JIT on the same inputs (NaN, infinities, -0 and
 * subnormals among them) and must give the same bits in every output and
 * intermediate (host_check.h); whether the nest was interchanged is read
 * from the unoptimised host module (the block "interchanged"). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "codegen/codegen.h"
#include "interp/interp.h"
#include "testsuite/unit/host_check.h"
#include "testsuite/unit/unit_prog.h"

/* How many nests of text the host lowering interchanged. */
static int interchanged(const char *text) {
  SBuf b;
  host_llvm_o0(text, &b);
  int n = 0;
  for (const char *s = b.s; (s = strstr(s, "\ninterchanged")) != NULL; s++) n++;
  sbuf_free(&b);
  return n;
}

/* Specials in the first elements of A and C (f32 or f64), the rest random. */
static void fill_specials(InterpProg *ip) {
  const double v[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1e-40, -1e-40, 3.0e38, -1e30, 1e-30, -2.5, 7.0};
  const char *names[] = {"A", "C"};
  for (int t = 0; t < 2; t++) {
    InterpBuf *b = interp_find(ip, names[t]);
    if (!b) continue;
    for (int i = 0; i < 12 && i < b->numel; i++) {
      int at = (i * 37 + t * 5) % (int)b->numel; /* spread over rows and columns */
      if (b->t->dtype == DT_F64) ((double *)b->data)[at] = v[(i + t) % 12];
      else ((float *)b->data)[at] = (float)v[(i + t) % 12];
    }
  }
}

/* The attention family's P.V product (Ae = Ad . X with d of 16, f of 256)
 * at odd sizes: j of 13 (no multiple of any vector width), k of 37, f32
 * and f64, one thread and two, with --fp-contract=on too (a*b+c fused the
 * same in both orders); the second nest's statements update two
 * tensors, the second reading the first's element mid-reduction. */
static void test_interchange_matmul(void **state) {
  (void)state;
  const char *t32 = "%in A : f32[3,5,37]\n%in C : f32[3,37,13]\n%out D : f32[3,5,13]\n"
                    "B^{3}_{tx=0}L^{5}_{a=0}L^{13}_{c=0}L^{37}_{d=0}[D^{f32,g}_{tx,a,c}=D^{f32,g}_{tx,a,c}"
                    "+A^{f32,g}_{tx,a,d}*C^{f32,g}_{tx,d,c};];\n";
  assert_int_equal(interchanged(t32), 1);
  host_vs_interp(t32, fill_specials, 1);
  host_vs_interp(t32, fill_specials, 2);
  host_vs_interp_mode(t32, fill_specials, 1, true);
  const char *t64 = "%in A : f64[3,5,37]\n%in C : f64[3,37,13]\n%out D : f64[3,5,13]\n%out E : f32[3,5,13]\n"
                    "B^{3}_{tx=0}L^{5}_{a=0}L^{13}_{c=0}L^{37}_{d=0}[D^{f64,g}_{tx,a,c}=D^{f64,g}_{tx,a,c}"
                    "+A^{f64,g}_{tx,a,d}*C^{f64,g}_{tx,d,c};E^{f32,g}_{tx,a,c}=E^{f32,g}_{tx,a,c}"
                    "-D^{f64,g}_{tx,a,c}*C^{f64,g}_{tx,d,c};];\n";
  assert_int_equal(interchanged(t64), 1);
  host_vs_interp(t64, fill_specials, 1);
  host_vs_interp_mode(t64, fill_specials, 2, true);
  /* the corpus's shape: 16 by 256, and exp in the operand */
  const char *tsm = "%in A : f32[2,4,256]\n%in C : f32[2,256,16]\n%out D : f32[2,4,16]\n"
                    "B^{2}_{tx=0}L^{4}_{a=0}L^{16}_{c=0}L^{256}_{d=0}[D^{f32,g}_{tx,a,c}=D^{f32,g}_{tx,a,c}"
                    "+exp(A^{f32,g}_{tx,a,d})*C^{f32,g}_{tx,d,c};];\n";
  assert_int_equal(interchanged(tsm), 1);
  host_vs_interp(tsm, fill_specials, 1);
}

/* max and min folds with NaN, -0/+0 and infinities in the operands: the
 * same operations in the same order per element, so NaN propagates and
 * -0/+0 ties resolve as in the interpreter. */
static void test_interchange_maxmin(void **state) {
  (void)state;
  const char *t = "%in A : f32[2,11,9]\n%in C : f64[2,11,9]\n%out D : f32[2,9]\n%out E : f64[2,9]\n"
                  "B^{2}_{tx=0}L^{9}_{j=0}L^{11}_{k=0}[D^{f32,g}_{tx,j}=max(D^{f32,g}_{tx,j},A^{f32,g}_{tx,k,j});"
                  "E^{f64,g}_{tx,j}=min(E^{f64,g}_{tx,j},C^{f64,g}_{tx,k,j});];\n";
  assert_int_equal(interchanged(t), 1);
  host_vs_interp(t, fill_specials, 1);
}

/* Nests that must keep their order (interchanged would be wrong, or no
 * faster), each still the interpreter's bits: a fold reading its own
 * accumulator at another element (one that another j writes: element 0;
 * a neighbour); a later statement reading the accumulated tensor at
 * another element mid-reduction (element 3; a neighbour); a fold into one element
 * for every j (not chosen by j); a subscript not provably in range (the
 * first out-of-range access is recorded); a gather along j (A[j, k]); a
 * reduction of 8 iterations (LLVM unrolls it); j of 64 (the unroll-and-jam
 * of jam_count); no reduction over k; j the parallel loop.  The first
 * case's nest with its own accumulator read at the element itself is
 * interchanged (the control). */
static void test_interchange_refused(void **state) {
  (void)state;
  const char *keep[] = {
      "%in A : f32[2,37,13]\n%out D : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j}*"
      "D^{f32,g}_{tx,0};];\n",
      "%in A : f32[2,37,13]\n%out D : f32[2,13]\n%out E : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j};"
      "E^{f32,g}_{tx,j}=E^{f32,g}_{tx,j}+D^{f32,g}_{tx,3};];\n",
      "%in A : f32[2,37,13]\n%out D : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j}*"
      "D^{f32,g}_{tx,(j+1)%13};];\n",
      "%in A : f32[2,37,13]\n%out D : f32[2,13]\n%out E : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j};"
      "E^{f32,g}_{tx,j}=E^{f32,g}_{tx,j}+D^{f32,g}_{tx,(j+12)%13};];\n",
      "%in A : f32[2,37,13]\n%out D : f32[2,13]\n%out S : f32[2]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j};"
      "S^{f32,g}_{tx}=S^{f32,g}_{tx}+A^{f32,g}_{tx,k,j};];\n",
      "%in A : f32[2,37,13]\n%in I : i64[37]\n%out D : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,I^{i64,g}_{k},j};];\n",
      "%in A : f32[2,13,37]\n%in C : f32[37]\n%out D : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,j,k}*C^{f32,g}_{k};];\n",
      "%in A : f32[2,8,13]\n%out D : f32[2,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{8}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j};];\n",
      "%in A : f32[2,37,64]\n%out D : f32[2,64]\n"
      "B^{2}_{tx=0}L^{64}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j};];\n",
      "%in A : f32[2,37,13]\n%out D : f32[2,37,13]\n"
      "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,k,j}=A^{f32,g}_{tx,k,j}*2.0;];\n",
      "%in A : f32[37,13]\n%out D : f32[13]\n"
      "L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{j}=D^{f32,g}_{j}+A^{f32,g}_{k,j};];\n",
  };
  for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
    if (interchanged(keep[i]) != 0) fail_msg("case %zu was interchanged", i);
    host_vs_interp(keep[i], fill_specials, 1);
  }
  const char *self = "%in A : f32[2,37,13]\n%out D : f32[2,13]\n"
                     "B^{2}_{tx=0}L^{13}_{j=0}L^{37}_{k=0}[D^{f32,g}_{tx,j}=D^{f32,g}_{tx,j}+A^{f32,g}_{tx,k,j}*"
                     "D^{f32,g}_{tx,j};];\n";
  assert_int_equal(interchanged(self), 1);
  host_vs_interp(self, fill_specials, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interchange_matmul),
      cmocka_unit_test(test_interchange_maxmin),
      cmocka_unit_test(test_interchange_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
