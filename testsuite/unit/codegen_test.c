/* codegen_test.c -- unit tests of codegen/: --gpu-arch parsing, the launch
 * plan, PTX shape, determinism, diagnostics of the GPU target, and the host
 * JIT against the interpreter (bit for bit) on small programs that exercise
 * every operation's corner cases: NaN and signed zeros in max/min, integer
 * division by zero and floor operations, f16/bf16 rounding, lazy
 * if_then_else, tree reductions, bool outputs, the thread count. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <float.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/contract.h"
#include "codegen/cg.h"
#include "codegen/codegen.h"
#include "codegen/emit.h"
#include "interp/check.h"
#include "interp/compare.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "interp/ops.h"
#include "testsuite/unit/host_check.h"
#include "testsuite/unit/unit_prog.h"
#include "ir/readfile.h"
#include "testsuite/corpus_walk.h"

/* ------------------------------------------------------------ helpers */

static char *ptx_of(const char *text, int sm, Prog *pr) {
  assert_true(prog_load(pr, text));
  CgOptions o;
  cg_options_init(&o);
  o.gpu_sm = sm;
  SBuf b = {0};
  if (!cg_emit_ptx(&pr->ctx, pr->p, &o, &b)) {
    sbuf_free(&b);
    return NULL;
  }
  return b.s;
}

static const char e1[] =
    "%in A : f32[64,32]\n%in C : f32[32,48]\n%out D : f32[64,48]\n"
    "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n";

/* ------------------------------------------------------------ options */

static void test_gpu_arch(void **state) {
  (void)state;
  int sm = 0;
  char err[256];
  assert_true(cg_parse_gpu_arch("sm_90", &sm, err, sizeof err));
  assert_int_equal(sm, 90);
  assert_true(cg_parse_gpu_arch("sm_70", &sm, err, sizeof err));
  assert_int_equal(sm, 70);
  assert_false(cg_parse_gpu_arch("sm_60", &sm, err, sizeof err));
  assert_non_null(strstr(err, "unsupported GPU architecture 'sm_60' (leirc supports sm_70 and newer: sm_70, "));
  assert_false(cg_parse_gpu_arch("sm_9", &sm, err, sizeof err));
  assert_false(cg_parse_gpu_arch("90", &sm, err, sizeof err));
  assert_false(cg_parse_gpu_arch("sm_90x", &sm, err, sizeof err));
  assert_false(cg_parse_gpu_arch("sm_+90", &sm, err, sizeof err));
  assert_int_equal(cg_ptx_isa_for_sm(70), 60);
  assert_int_equal(cg_ptx_isa_for_sm(75), 63);
  assert_int_equal(cg_ptx_isa_for_sm(80), 70);
  assert_int_equal(cg_ptx_isa_for_sm(86), 71);
  assert_int_equal(cg_ptx_isa_for_sm(89), 78);
  assert_int_equal(cg_ptx_isa_for_sm(90), 78);
}

/* ------------------------------------------------------------ PTX */

static void test_ptx_e1(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of(e1, 90, &pr);
  assert_non_null(s);
  const char *plan = "// leir-plan 1\n"
                     "// leir-tensor A in f32 64,32\n"
                     "// leir-tensor C in f32 32,48\n"
                     "// leir-tensor D out f32 64,48\n"
                     "// leir-launch leir_k0 1,1,1 64,1,1 0 - A,C,D\n";
  assert_memory_equal(s, plan, strlen(plan));
  assert_non_null(strstr(s, "\n.version 7.8\n.target sm_90\n.address_size 64\n"));
  assert_non_null(strstr(s, ".visible .entry leir_k0("));
  assert_non_null(strstr(s, "mov.u32 \t%r1, %tid.x;"));
  assert_null(strstr(s, "fma")); /* no contraction */
  assert_non_null(strstr(s, "mul.rn.f32"));
  /* deterministic */
  Prog pr2;
  char *s2 = ptx_of(e1, 90, &pr2);
  assert_string_equal(s, s2);
  free(s);
  free(s2);
  prog_free(&pr);
  prog_free(&pr2);
}

static void test_ptx_arch(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of(e1, 70, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, "\n.version 6.0\n.target sm_70\n"));
  free(s);
  prog_free(&pr);
}

static void test_ptx_div_sqrt(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[64]\n%out C : f32[64]\n"
                   "B^{64}_{tx=0}[C^{f32,g}_{tx}=sqrt(A^{f32,g}_{tx})/(A^{f32,g}_{tx}+1.5);];\n",
                   90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, "sqrt.rn.f32"));
  assert_non_null(strstr(s, "div.rn.f32"));
  assert_null(strstr(s, "approx"));
  assert_null(strstr(s, ".ftz"));
  free(s);
  prog_free(&pr);
}

static void test_ptx_host_loops(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[8,4,64]\n%out C : f32[8,4,64]\n"
                   "L^{8}_{a=0}P^{4}_{c=0}B^{64}_{tx=0}B^{2}_{bx=0}[C^{f32,g}_{a,c,tx}=A^{f32,g}_{a,c,tx}+1.0;];\n",
                   90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, "// leir-launch leir_k0 2,1,1 64,1,1 0 a:8,c:4 A,C,%a,%c\n"));
  assert_non_null(strstr(s, ".param .u64 leir_k0_param_3"));
  free(s);
  prog_free(&pr);
}

static void test_ptx_spread(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[3000]\n%out C : f32[3000]\n"
                   "B^{3000}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*2.0;];\n", 90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, "// leir-launch leir_k0 3,1,1 1024,1,1 0 - A,C\n"));
  assert_non_null(strstr(s, "%ctaid.x"));
  assert_non_null(strstr(s, "3000")); /* the bounds guard */
  free(s);
  prog_free(&pr);
}

static void test_ptx_limits_refused(void **state) {
  (void)state;
  Prog pr;
  /* a reduction needs the whole axis in one block */
  char *s = ptx_of("%in A : f32[2048]\n%out C : f32[]\n"
                   "B^{2048}_{tx=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{tx};];\n", 90, &pr);
  assert_null(s);
  assert_non_null(strstr(pr.diag, "t.leir:3:1: error: B loop 'tx' of extent 2048 exceeds the limits of a thread "
                                  "block (1024 threads on threadIdx.x, at most 1024 per block) and cannot be "
                                  "spread over blocks: it has a cross-thread reduction\n"));
  prog_free(&pr);
  s = ptx_of("%in A : f32[70000]\n%out C : f32[70000]\n"
             "B^{70000}_{by=0}[C^{f32,g}_{by}=A^{f32,g}_{by};];\n", 90, &pr);
  assert_null(s);
  assert_non_null(strstr(pr.diag, "t.leir:3:1: error: B loop 'by' needs 70000 blocks on blockIdx.y, more than "
                                  "the limit of 65535\n"));
  prog_free(&pr);
}

static void test_ptx_block_reduction(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[16,64]\n%out C : f32[64]\n"
                   "B^{16}_{bx=0}B^{64}_{tx=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{bx,tx};];\n", 90, &pr);
  assert_null(s);
  assert_non_null(strstr(pr.diag, "t.leir:3:28: error: reduction over block axis: 'bx' (blockIdx.x) is not in "
                                  "the left subscript\n"));
  prog_free(&pr);
}

static void test_ptx_no_b_warning(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[4]\n%out C : f32[4]\nL^{4}_{a=0}[C^{f32,g}_{a}=A^{f32,g}_{a};];\n", 90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(pr.diag, "t.leir:3:1: warning: this nest has no B loop; it runs as a one-thread kernel\n"));
  assert_non_null(strstr(s, "// leir-launch leir_k0 1,1,1 1,1,1 0 - A,C\n"));
  free(s);
  prog_free(&pr);
}

static void test_ptx_shared_and_reduction(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[4,64]\n%out C : f32[4,64]\n"
                   "B^{4}_{bx=0}B^{64}_{tx=0}[S^{f32,s}_{bx,tx}=A^{f32,g}_{bx,tx}*2.0;"
                   "C^{f32,g}_{bx,tx}=S^{f32,s}_{bx,63-tx};];\n", 90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, ".shared .align 16 .b8 leir_s_S[256];")); /* compacted to one block's row */
  assert_non_null(strstr(s, "bar.sync \t0;"));
  assert_null(strstr(s, "leir-tensor S")); /* not a global */
  free(s);
  prog_free(&pr);
  s = ptx_of("%in F : f32[128,4]\n%out H : f32[]\n"
             "B^{128}_{tx=0}L^{4}_{a=0}[H^{f32,g}=H^{f32,g}+F^{f32,g}_{tx,a};];\n", 90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, ".shared .align 16 .b8 leir_k0_scratch[1024];"));
  assert_non_null(strstr(s, "bar.sync"));
  free(s);
  prog_free(&pr);
}

static void test_ptx_demotion(void **state) {
  (void)state;
  Prog pr;
  /* E is read by other blocks' threads: shared is not allowed */
  char *s = ptx_of("%in A : f32[4,64]\n%out C : f32[4,64]\n"
                   "B^{4}_{bx=0}B^{64}_{tx=0}[E^{f32,s}_{bx,tx}=A^{f32,g}_{bx,tx};];"
                   "B^{4}_{bx=0}B^{64}_{tx=0}[C^{f32,g}_{bx,tx}=E^{f32,s}_{bx,tx};];\n", 90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(pr.diag, "warning: 'E' is s-scoped but used in more than one nest (values of s/l "
                                  "tensors do not survive a kernel); it is placed in global memory\n"));
  assert_non_null(strstr(s, "// leir-tensor E tmp f32 4,64\n"));
  free(s);
  prog_free(&pr);
}

static void test_ptx_vector(void **state) {
  (void)state;
  Prog pr;
  char *s = ptx_of("%in A : f32[64,128]\n%out C : f32[64,128]\n"
                   "B^{64}_{tx=0}L^{32}_{a=0}V^{4}_{c=0}[C^{f32,g}_{tx,a*4+c}=A^{f32,g}_{tx,a*4+c}*2.0;];\n",
                   90, &pr);
  assert_non_null(s);
  assert_non_null(strstr(s, "ld.global.nc.v4.f32"));
  assert_non_null(strstr(s, "st.global.v4.f32"));
  free(s);
  prog_free(&pr);
}

/* ------------------------------------------------------------ host vs interpreter */

/* (host_check.h: host_vs_interp and its variants, set_f32) */

static void fill_specials(InterpProg *ip) {
  const float v[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1e-40f, -1e-40f, 3.5f, -2.25f, 65504.0f, 1e30f, -7.0f};
  const float w[] = {1.0f, 0.0f, -0.0f, NAN, 2.0f, -1e-40f, 1e-40f, -3.5f, 0.0f, -1.0f, 3.0f, 2.0f};
  set_f32(ip, "A", v, 12);
  set_f32(ip, "C", w, 12);
}

static void fill_specials_a(InterpProg *ip) {
  const float v[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1e-40f, -1e-40f, 3.4e38f};
  set_f32(ip, "A", v, 8);
}

static void test_host_float_ops(void **state) {
  (void)state;
  host_vs_interp("%in A : f32[12]\n%in C : f32[12]\n%out D : f32[12,16]\n"
                 "B^{12}_{tx=0}[D^{f32,g}_{tx,0}=max(A^{f32,g}_{tx},C^{f32,g}_{tx});"
                 "D^{f32,g}_{tx,1}=min(A^{f32,g}_{tx},C^{f32,g}_{tx});"
                 "D^{f32,g}_{tx,2}=A^{f32,g}_{tx}//C^{f32,g}_{tx};"
                 "D^{f32,g}_{tx,3}=A^{f32,g}_{tx}%C^{f32,g}_{tx};"
                 "D^{f32,g}_{tx,4}=A^{f32,g}_{tx}**C^{f32,g}_{tx};"
                 "D^{f32,g}_{tx,5}=exp(A^{f32,g}_{tx})+log(C^{f32,g}_{tx});"
                 "D^{f32,g}_{tx,6}=erf(A^{f32,g}_{tx})*sqrt(C^{f32,g}_{tx});"
                 "D^{f32,g}_{tx,7}=abs(A^{f32,g}_{tx})/C^{f32,g}_{tx};"
                 "D^{f32,g}_{tx,8}=if_then_else(A^{f32,g}_{tx}<C^{f32,g}_{tx}&C^{f32,g}_{tx}!=0,1,-A^{f32,g}_{tx});"
                 "D^{f32,g}_{tx,9}=max(A^{f32,g}_{tx},0);"
                 "D^{f32,g}_{tx,10}=min(max(A^{f32,g}_{tx},-1.0),1.0)+tx;"
                 "D^{f32,g}_{tx,11}=if_then_else(A^{f32,g}_{tx},2.0,3.0);"
                 "D^{f32,g}_{tx,12}=max(C^{f32,g}_{tx},A^{f32,g}_{tx},-inf);"
                 "D^{f32,g}_{tx,13}=A^{f32,g}_{tx}**2+A^{f32,g}_{tx}**(1/2);"
                 "D^{f32,g}_{tx,14}=1<=tx<5|A^{f32,g}_{tx}>=C^{f32,g}_{tx};"
                 "D^{f32,g}_{tx,15}=-A^{f32,g}_{tx}-C^{f32,g}_{tx}*0.1;];\n",
                 fill_specials, 1);
}

static void test_host_f64_and_conversions(void **state) {
  (void)state;
  host_vs_interp("%in A : f32[12]\n%in C : f32[12]\n%out D : f64[12,4]\n%out E : i32[12,3]\n%out F : bool[12]\n"
                 "%out G : u8[12]\n"
                 "B^{12}_{tx=0}[D^{f64,g}_{tx,0}=A^{f32,g}_{tx}*1e-300+exp(C^{f32,g}_{tx}*100);"
                 "D^{f64,g}_{tx,1}=erf(A^{f32,g}_{tx})**C^{f32,g}_{tx};"
                 "D^{f64,g}_{tx,2}=max(A^{f32,g}_{tx},C^{f32,g}_{tx})+log(abs(A^{f32,g}_{tx}));"
                 "D^{f64,g}_{tx,3}=A^{f32,g}_{tx}//0.3;"
                 "E^{i32,g}_{tx,0}=A^{f32,g}_{tx}*1e9;E^{i32,g}_{tx,1}=C^{f32,g}_{tx};"
                 "E^{i32,g}_{tx,2}=tx*2-A^{f32,g}_{tx};"
                 "F^{bool,g}_{tx}=A^{f32,g}_{tx};G^{u8,g}_{tx}=A^{f32,g}_{tx}*100;];\n",
                 fill_specials, 1);
}

static void fill_ints(InterpProg *ip) {
  InterpBuf *a = interp_find(ip, "A"), *c = interp_find(ip, "C");
  const int32_t va[] = {7, -7, 7, -7, INT32_MIN, INT32_MIN, 0, 5, -1, 1, 100, -100};
  const int32_t vc[] = {2, 2, -2, -2, -1, 0, 0, 31, -1, -5, 3, 7};
  memcpy(a->data, va, sizeof va);
  memcpy(c->data, vc, sizeof vc);
}

static void test_host_int_ops(void **state) {
  (void)state;
  host_vs_interp("%in A : i32[12]\n%in C : i32[12]\n%out D : i32[12,9]\n%out E : i8[12]\n%out F : u16[12]\n"
                 "B^{12}_{tx=0}[D^{i32,g}_{tx,0}=A^{i32,g}_{tx}/C^{i32,g}_{tx};"
                 "D^{i32,g}_{tx,1}=A^{i32,g}_{tx}//C^{i32,g}_{tx};"
                 "D^{i32,g}_{tx,2}=A^{i32,g}_{tx}%C^{i32,g}_{tx};"
                 "D^{i32,g}_{tx,3}=A^{i32,g}_{tx}**C^{i32,g}_{tx};"
                 "D^{i32,g}_{tx,4}=abs(A^{i32,g}_{tx})+max(A^{i32,g}_{tx},C^{i32,g}_{tx});"
                 "D^{i32,g}_{tx,5}=A^{i32,g}_{tx}*C^{i32,g}_{tx}-min(A^{i32,g}_{tx},-3);"
                 "D^{i32,g}_{tx,6}=-A^{i32,g}_{tx}+tx;"
                 "D^{i32,g}_{tx,7}=A^{i32,g}_{tx}<C^{i32,g}_{tx}<=A^{i32,g}_{tx}+10;"
                 "D^{i32,g}_{tx,8}=sqrt(abs(C^{i32,g}_{tx}));"
                 "E^{i8,g}_{tx}=A^{i32,g}_{tx}*C^{i32,g}_{tx};F^{u16,g}_{tx}=A^{i32,g}_{tx}-C^{i32,g}_{tx};];\n",
                 fill_ints, 1);
}

static void test_host_half(void **state) {
  (void)state;
  host_vs_interp("%in A : f32[12]\n%in C : f32[12]\n%out D : f16[12,6]\n%out E : bf16[12,3]\n"
                 "B^{12}_{tx=0}[D^{f16,g}_{tx,0}=A^{f32,g}_{tx};D^{f16,g}_{tx,1}=D^{f16,g}_{tx,0}*3.3+1;"
                 "D^{f16,g}_{tx,2}=exp(D^{f16,g}_{tx,1})/D^{f16,g}_{tx,0};"
                 "D^{f16,g}_{tx,3}=D^{f16,g}_{tx,0}//0.7;D^{f16,g}_{tx,4}=D^{f16,g}_{tx,0}%0.7;"
                 "D^{f16,g}_{tx,5}=sqrt(abs(D^{f16,g}_{tx,2}))+tx;"
                 "E^{bf16,g}_{tx,0}=C^{f32,g}_{tx}*1.01;E^{bf16,g}_{tx,1}=E^{bf16,g}_{tx,0}+D^{f16,g}_{tx,0};"
                 "E^{bf16,g}_{tx,2}=max(E^{bf16,g}_{tx,1},D^{f16,g}_{tx,1})**2;];\n",
                 fill_specials, 1);
}

static void test_host_lazy_ite(void **state) {
  (void)state;
  /* the padded read A[c-1] is only legal when the guard holds */
  host_vs_interp("%in A : f32[16,32]\n%out C : f32[16,34]\n"
                 "B^{16}_{tx=0}L^{34}_{c=0}[C^{f32,g}_{tx,c}=if_then_else(1<=c<33,A^{f32,g}_{tx,c-1},0);];\n",
                 NULL, 1);
}

static void test_host_tree_reductions(void **state) {
  (void)state;
  const char *progs[] = {
      "%in F : f32[128,4]\n%out H : f32[]\nB^{128}_{tx=0}L^{4}_{a=0}[H^{f32,g}=H^{f32,g}+F^{f32,g}_{tx,a};];\n",
      "%in F : f32[100,3]\n%out H : f32[3]\n"
      "B^{100}_{tx=0}L^{3}_{a=0}L^{5}_{c=0}[H^{f32,g}_{a}=max(H^{f32,g}_{a},F^{f32,g}_{tx,a}*c);];\n",
      "%in F : f32[7,6]\n%out H : f64[6]\n"
      "L^{6}_{a=0}B^{7}_{tx=0}B^{2}_{ty=0}[H^{f64,g}_{a}=H^{f64,g}_{a}-F^{f32,g}_{tx,a}*ty;];\n",
      "%in F : f32[3,5]\n%out H : f32[]\n"
      "L^{5}_{a=0}B^{3}_{tx=0}[H^{f32,g}=H^{f32,g}*F^{f32,g}_{tx,a};];\n",
      "%in F : f32[9]\n%out H : f32[]\n%out G : f32[]\n"
      "B^{1}_{tx=0}[G^{f32,g}=-0.0;];B^{9}_{tx=0}[G^{f32,g}=G^{f32,g}+F^{f32,g}_{tx};];"
      "B^{1}_{tx=0}[H^{f32,g}=H^{f32,g}+F^{f32,g}_{0}*0.0;];\n",
      "%in F : i64[33]\n%out H : i64[]\nB^{33}_{tx=0}[H^{i64,g}=min(H^{i64,g},F^{i64,g}_{tx});];\n",
  };
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) host_vs_interp(progs[i], NULL, 1);
}

/* reduce.c's host tree combines its levels compacted (w[j] = u[2j] op
 * u[2j+1], the odd last one carried): the same pairs as the interpreter's
 * tree for every thread count, odd counts at some levels (3, 5, 6, 7, 13,
 * 31, 100, 127, 129), and operands of mixed magnitudes, so that another
 * pairing would round differently (the sequential sum of n = 13's F
 * differs from the tree's). */
static void fill_tree_orders(InterpProg *ip) {
  InterpBuf *b = interp_find(ip, "F");
  for (int64_t t = 0; t < b->numel; t++)
    ((float *)b->data)[t] = (float)((t * 2654435761u) % 1000 + 1) * 1e-3f * (float)(1 << (3 * (t % 7))) *
                            (t % 3 ? 1.0f : -1.0f);
}

static void test_host_tree_orders(void **state) {
  (void)state;
  const int ns[] = {2, 3, 5, 6, 7, 13, 31, 100, 127, 129};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
    char t[512];
    snprintf(t, sizeof t,
             "%%in F : f32[%d,2]\n%%out H : f32[]\n%%out G : f64[2]\n"
             "B^{%d}_{tx=0}L^{2}_{a=0}[H^{f32,g}=H^{f32,g}+F^{f32,g}_{tx,a};];"
             "L^{2}_{a=0}B^{%d}_{tx=0}[G^{f64,g}_{a}=max(G^{f64,g}_{a},F^{f32,g}_{tx,a}*F^{f32,g}_{tx,1-a});];\n",
             ns[i], ns[i], ns[i]);
    host_vs_interp(t, fill_tree_orders, 1);
  }
  /* the test can tell orders apart: n = 13, a = 0 (the first program) */
  float f[13], seq = 0.0f, tree[13];
  for (int t = 0; t < 13; t++)
    f[t] = (float)(((int64_t)(2 * t) * 2654435761u) % 1000 + 1) * 1e-3f * (float)(1 << (3 * (2 * t % 7))) *
           (2 * t % 3 ? 1.0f : -1.0f);
  for (int t = 0; t < 13; t++) seq += f[t], tree[t] = f[t];
  for (int s = 1; s < 13; s *= 2)
    for (int t = 0; t + s < 13; t += 2 * s) tree[t] += tree[t + s];
  assert_true(seq != tree[0]);
}

/* reduce.c thread_jam: the innermost thread loop unrolled and jammed over
 * the fold loop (16, 8 or 4 threads' partials side by side) keeps every
 * thread's fold order and the tree: the interpreter's bits for thread
 * counts the jam divides (12, 16, 24, 48, 128) and not (13, 100), fold
 * loops of 2 and 37, a - reduction into f64 elements, a max with a
 * conversion and an if_then_else, and two thread loops. */
static void test_host_tree_jam(void **state) {
  (void)state;
  const int ns[] = {12, 13, 16, 24, 48, 100, 128};
  const int ls[] = {2, 37};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
    for (size_t j = 0; j < sizeof ls / sizeof *ls; j++) {
      char t[1024];
      snprintf(t, sizeof t,
               "%%in F : f32[%d,%d]\n%%out H : f32[]\n%%out G : f64[3]\n%%out K : f32[2]\n"
               "B^{%d}_{tx=0}L^{%d}_{a=0}[H^{f32,g}=H^{f32,g}+F^{f32,g}_{tx,a};];"
               "L^{3}_{c=0}B^{%d}_{tx=0}L^{%d}_{a=0}[G^{f64,g}_{c}=G^{f64,g}_{c}-F^{f32,g}_{tx,a}*(c+1);];"
               "L^{2}_{c=0}B^{%d}_{tx=0}L^{%d}_{a=0}[K^{f32,g}_{c}=max(K^{f32,g}_{c},"
               "if_then_else(a%%3==c,F^{f32,g}_{tx,a},-F^{f32,g}_{tx,a}));];\n",
               ns[i], ls[j], ns[i], ls[j], ns[i], ls[j], ns[i], ls[j]);
      host_vs_interp(t, fill_tree_orders, 1);
    }
  host_vs_interp("%in F : f32[4,32,9]\n%out H : f32[]\n"
                 "B^{4}_{ty=0}B^{32}_{tx=0}L^{9}_{a=0}[H^{f32,g}=H^{f32,g}+F^{f32,g}_{ty,tx,a};];\n",
                 fill_tree_orders, 1);
}

/* codegen/stage.c: a serial reduction with a costly operand runs in chunks
 * (the operands of a chunk vectorised into a buffer, then the fold in loop
 * order); bit-identical to the interpreter: chunk remainders (2500 = 2*1024
 * + 452, 7 < one chunk), §9.5 init, a continuation init, -, *, max, f64
 * and f16 accumulators, x on the left, specials (NaN, inf, -0, denormals). */
static void fill_stage_specials(InterpProg *ip) {
  const float v[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1e-40f, -1e-40f, 3.5f, -2.25f, 89.0f, -104.0f, 1e30f};
  set_f32(ip, "A", v, 12);
}

static void test_host_staged_reduction(void **state) {
  (void)state;
  const char *progs[] = {
      "%in A : f32[3,2500]\n%out E : f32[3]\n"
      "B^{3}_{tx=0}L^{2500}_{a=0}[E^{f32,g}_{tx}=E^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a});];\n",
      "%in A : f32[4,7]\n%out E : f64[4]\n%out H : f32[4]\n"
      "B^{4}_{tx=0}L^{7}_{a=0}[E^{f64,g}_{tx}=log(abs(A^{f32,g}_{tx,a})+1)*E^{f64,g}_{tx};];"
      "B^{4}_{tx=0}L^{7}_{a=0}[H^{f32,g}_{tx}=H^{f32,g}_{tx}-erf(A^{f32,g}_{tx,a}*a);];\n",
      "%in A : f32[2,1030]\n%out E : f32[2]\n%out H : f16[2]\n"
      "B^{2}_{tx=0}L^{1030}_{a=0}[E^{f32,g}_{tx}=max(E^{f32,g}_{tx},sqrt(A^{f32,g}_{tx,a})-a);];"
      "B^{2}_{tx=0}L^{1030}_{a=0}[H^{f16,g}_{tx}=H^{f16,g}_{tx}+A^{f32,g}_{tx,a}**0.5;];\n",
      "%in A : f32[4,8,300]\n%out C : f32[4,8]\n"
      "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx,a}=0.5;L^{300}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}"
      "+exp(A^{f32,g}_{tx,a,c});];];\n",
  };
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    host_vs_interp(progs[i], NULL, 1);
    host_vs_interp(progs[i], fill_stage_specials, 1);
  }
  host_vs_interp(progs[0], NULL, 2);
  /* staged: the buffer is in the module; not staged when the operand reads
     the accumulated tensor (program 4's inner statement) or is cheap */
  static const struct { const char *text; bool staged; } cases[] = {
      {"%in A : f32[3,2500]\n%out E : f32[3]\n"
       "B^{3}_{tx=0}L^{2500}_{a=0}[E^{f32,g}_{tx}=E^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a});];\n", true},
      {"%in A : f32[3,2500]\n%out E : f32[3]\n"
       "B^{3}_{tx=0}L^{2500}_{a=0}[E^{f32,g}_{tx}=E^{f32,g}_{tx}+A^{f32,g}_{tx,a}*2;];\n", false},
      {"%in A : f32[3,2500]\n%out E : f32[3]\n"
       "B^{3}_{tx=0}L^{2500}_{a=0}[E^{f32,g}_{tx}=E^{f32,g}_{tx}+exp(A^{f32,g}_{tx,a}-E^{f32,g}_{0});];\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Prog pr;
    assert_true(prog_load(&pr, cases[i].text));
    CgOptions o;
    cg_options_init(&o);
    o.target = CG_TARGET_HOST;
    SBuf b = {0};
    assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
    assert_int_equal(strstr(b.s, "%stage") != NULL, cases[i].staged);
    sbuf_free(&b);
    prog_free(&pr);
  }
}

/* cg_maxmin (lower.c) against ops.h's op_max/op_min on every pair of
 * special values, bit for bit (NaN payloads included: a NaN operand gives
 * the other one), f32 and f64, elementwise and as a reduction, and with a
 * constant operand. */
static void test_host_maxmin_bits(void **state) {
  (void)state;
  uint32_t nan1 = 0x7fc00001u, nan2 = 0xffc12345u;
  float nf1, nf2;
  memcpy(&nf1, &nan1, 4);
  memcpy(&nf2, &nan2, 4);
  const float sv[] = {nf1, nf2, -0.0f, 0.0f, INFINITY, -INFINITY, 1e-40f, -1e-40f, 1.0f, -1.0f, 3.5f, FLT_MAX};
  enum { NS = sizeof sv / sizeof *sv, NP = NS * NS };
  Prog pr;
  assert_true(prog_load(&pr, "%in A : f32[144]\n%in C : f32[144]\n%out D : f32[144]\n%out E : f32[144]\n"
                             "%in F : f64[144]\n%in G : f64[144]\n%out H : f64[144]\n%out I : f64[144]\n"
                             "%out J : f32[12]\n%out K : f32[12]\n%out Q : f32[144]\n%out W : f32[144]\n"
                             "%out R : f32[144]\n%out S : f32[144]\n%out M : f32[144]\n%out N : f32[144]\n"
                             "B^{144}_{tx=0}[D^{f32,g}_{tx}=max(A^{f32,g}_{tx},C^{f32,g}_{tx});"
                             "E^{f32,g}_{tx}=min(A^{f32,g}_{tx},C^{f32,g}_{tx});"
                             "H^{f64,g}_{tx}=max(F^{f64,g}_{tx},G^{f64,g}_{tx});"
                             "I^{f64,g}_{tx}=min(F^{f64,g}_{tx},G^{f64,g}_{tx});];"
                             "B^{12}_{tx=0}L^{12}_{a=0}[J^{f32,g}_{tx}=max(J^{f32,g}_{tx},A^{f32,g}_{tx*12+a});"
                             "K^{f32,g}_{tx}=min(K^{f32,g}_{tx},A^{f32,g}_{tx*12+a});];"
                             "B^{144}_{tx=0}[Q^{f32,g}_{tx}=max(A^{f32,g}_{tx},-1.0);W^{f32,g}_{tx}=min(A^{f32,g}_{tx},3.5);];"
                             "B^{144}_{tx=0}[R^{f32,g}_{tx}=max(A^{f32,g}_{tx},0);S^{f32,g}_{tx}=min(0.0,A^{f32,g}_{tx});"
                             "M^{f32,g}_{tx}=max(-0.0,A^{f32,g}_{tx});N^{f32,g}_{tx}=min(A^{f32,g}_{tx},-0.0);];\n"));
  float a[NP], c[NP], d[NP], e[NP], j[NS], k[NS], l[NP], mm[NP], zr[4][NP];
  double fa[NP], ga[NP], h[NP], i2[NP];
  for (int x = 0; x < NS; x++)
    for (int y = 0; y < NS; y++) {
      a[x * NS + y] = sv[x];
      c[x * NS + y] = sv[y];
      fa[x * NS + y] = sv[x];
      ga[x * NS + y] = sv[y];
    }
  /* the f64 NaNs: payloads of their own */
  uint64_t dn1 = 0x7ff8000000000abcull, dn2 = 0xfff8000000000def;
  for (int q = 0; q < NP; q++) {
    if (fa[q] != fa[q]) memcpy(&fa[q], q / NS == 0 ? &dn1 : &dn2, 8);
    if (ga[q] != ga[q]) memcpy(&ga[q], q % NS == 0 ? &dn1 : &dn2, 8);
  }
  void *bufs[16] = {a, c, d, e, fa, ga, h, i2, j, k, l, mm, zr[0], zr[1], zr[2], zr[3]};
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  o.nthreads = 1;
  assert_true(cg_run_host(&pr.ctx, pr.p, &o, bufs));
  for (int q = 0; q < NP; q++) {
    float wd = op_maxf(a[q], c[q]), we = op_minf(a[q], c[q]);
    double wh = op_maxd(fa[q], ga[q]), wi = op_mind(fa[q], ga[q]);
    assert_memory_equal(&d[q], &wd, 4);
    assert_memory_equal(&e[q], &we, 4);
    assert_memory_equal(&h[q], &wh, 8);
    assert_memory_equal(&i2[q], &wi, 8);
    /* a constant operand (neither zero nor NaN): the shorter form */
    float wl = op_maxf(a[q], -1.0f), wm = op_minf(a[q], 3.5f);
    assert_memory_equal(&l[q], &wl, 4);
    assert_memory_equal(&mm[q], &wm, 4);
    /* +0 (relu, SELU): x > 0 ? x : +0, x <= 0 ? x : +0; -0 the general form */
    float wz[4] = {op_maxf(a[q], 0.0f), op_minf(0.0f, a[q]), op_maxf(-0.0f, a[q]), op_minf(a[q], -0.0f)};
    for (int z = 0; z < 4; z++)
      assert_memory_equal(&zr[z][q], &wz[z], 4);
  }
  for (int x = 0; x < NS; x++) {
    float wj = -INFINITY, wk = INFINITY;
    for (int y = 0; y < NS; y++) {
      wj = op_maxf(wj, a[x * NS + y]);
      wk = op_minf(wk, a[x * NS + y]);
    }
    assert_memory_equal(&j[x], &wj, 4);
    assert_memory_equal(&k[x], &wk, 4);
  }
  prog_free(&pr);
}

/* mathlib_emit.h: a float to a constant integer power 1 <= |n| <= 6 calls
 * leir.powf.i<n> (the f32 products for n = -1, 1, 2, 3, the routine with
 * the constant folded in for the others); the same bits as the
 * interpreter's leir_powf on specials and random inputs, f32 and f16; other
 * exponents and f64 keep the routine. */
static void test_powi_const(void **state) {
  (void)state;
  const char *t = "%in A : f32[12]\n%in C : f32[12]\n%out D : f32[12,8]\n%out E : f16[12,2]\n%out F : f64[12]\n"
                  "B^{12}_{tx=0}[D^{f32,g}_{tx,0}=A^{f32,g}_{tx}**3.0;D^{f32,g}_{tx,1}=A^{f32,g}_{tx}**-1;"
                  "D^{f32,g}_{tx,2}=C^{f32,g}_{tx}**6;D^{f32,g}_{tx,3}=A^{f32,g}_{tx}**-6.0;"
                  "D^{f32,g}_{tx,4}=A^{f32,g}_{tx}**7;D^{f32,g}_{tx,5}=A^{f32,g}_{tx}**2.5;"
                  "D^{f32,g}_{tx,6}=(A^{f32,g}_{tx}*1e10)**5;D^{f32,g}_{tx,7}=(A^{f32,g}_{tx}*1e-10)**-4;"
                  "E^{f16,g}_{tx,0}=A^{f32,g}_{tx}**3;E^{f16,g}_{tx,1}=E^{f16,g}_{tx,0}**-2;"
                  "F^{f64,g}_{tx}=A^{f32,g}_{tx}**3;];\n";
  host_vs_interp(t, NULL, 1);
  host_vs_interp(t, fill_specials, 1);
  SBuf b;
  host_llvm_o0(t, &b);
  assert_non_null(strstr(b.s, "@leir.powf.i3("));
  assert_non_null(strstr(b.s, "@leir.powf.i-6("));
  assert_null(strstr(b.s, "@leir.powf.i7("));
  assert_non_null(strstr(b.s, "@leir.powf("));
  assert_non_null(strstr(b.s, "@leir.pow("));
  sbuf_free(&b);
}

/* Occurrences of needle in s. */
static int count_str(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* lower.c, nonneg_by_const: an integer // or % whose left side is proven
 * >= 0 and whose right side is one positive constant is LLVM's udiv/urem
 * (the tiled subscripts tx//4, tx%4 of layout_transformation's reshape1);
 * a left side that may be negative, or a divisor that is not a constant,
 * keeps the floor division of int_divmod (sdiv and its corrections).  The
 * results are the interpreter's either way. */
static void test_host_divmod_nonneg(void **state) {
  (void)state;
  const char *t = "%in A : f32[64]\n%out D : f32[16,4]\n%out E : i32[64,2]\n"
                  "B^{64}_{tx=0}[D^{f32,g}_{tx//4,tx%4}=A^{f32,g}_{tx};"
                  "E^{i32,g}_{tx,0}=(tx*3+1)//5;E^{i32,g}_{tx,1}=(tx*3+1)%5;];\n";
  const char *u = "%in C : i32[64]\n%out E : i32[64,2]\n"
                  "B^{64}_{tx=0}[E^{i32,g}_{tx,0}=(tx-32)//8+(tx-32)%8;"
                  "E^{i32,g}_{tx,1}=tx//(C^{i32,g}_{tx}%7+1);];\n";
  host_vs_interp(t, NULL, 1);
  host_vs_interp(u, NULL, 1);
  SBuf b;
  host_llvm_o0(t, &b);
  assert_int_equal(count_str(b.s, " = udiv "), 2); /* tx//4, (tx*3+1)//5 */
  assert_int_equal(count_str(b.s, " = urem "), 2); /* tx%4, (tx*3+1)%5 */
  assert_null(strstr(b.s, " = sdiv "));
  assert_null(strstr(b.s, " = srem "));
  sbuf_free(&b);
  host_llvm_o0(u, &b);
  assert_null(strstr(b.s, " = udiv "));
  assert_null(strstr(b.s, " = urem "));
  assert_int_equal(count_str(b.s, " = sdiv "), 4); /* (tx-32)//8, (tx-32)%8, C%7, tx//(...) */
  sbuf_free(&b);
}

/* lower_loops.c, jam_count: a short innermost reduction loop (a pooling window)
 * is not jammed: its strided loads become interleaved vector loads, no
 * gathers; the result is the interpreter's. */
static void test_host_pool_window(void **state) {
  (void)state;
  const char *t = "%in E : f32[16,32,130]\n%out C : f32[16,32,64]\n"
                  "B^{16}_{tx=0}L^{32}_{a=0}L^{64}_{c=0}L^{4}_{d=0}[C^{f32,g}_{tx,a,c}=C^{f32,g}_{tx,a,c}"
                  "+E^{f32,g}_{tx,a,c*2+d};];\n";
  host_vs_interp(t, NULL, 1);
  Prog pr;
  assert_true(prog_load(&pr, t));
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  SBuf b = {0};
  assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
  assert_null(strstr(b.s, "llvm.loop.unroll_and_jam"));
  assert_null(strstr(b.s, "masked.gather"));
  sbuf_free(&b);
  prog_free(&pr);
}

/* lower_loops.c, jam_count and peel_first: a short innermost reduction (16
 * iterations) under a long serial loop is jammed as many copies as fill
 * half the vector registers (cg_jam_bytes), at most 2048 weighted
 * operations, and its first iteration is peeled.  The sum of each element
 * keeps SPEC's order and its §9.5 start: the peeled iteration computes
 * 0 + A*C, so a row of -0 products gives +0 (A*C alone would give -0),
 * and NaN, infinities and subnormals give the interpreter's bits; on one
 * thread (the jammed serial loop) and two (the parallel B loop). */
static void fill_jam(InterpProg *ip) {
  InterpBuf *a = interp_find(ip, "A"), *c = interp_find(ip, "C");
  for (int i = 0; i < 16; i++) ((float *)a->data)[i] = -0.0f; /* row tx = 0 */
  for (int i = 0; i < c->numel; i++) ((float *)c->data)[i] = i % 7 == 3 ? 1e-40f : 0.5f + (float)(i % 5);
  const float sp[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e30f, -1e30f, 1e-40f};
  for (int i = 0; i < 7; i++) ((float *)a->data)[16 + 3 * i] = sp[i];
}

static void test_host_jam_short_reduction(void **state) {
  (void)state;
  const char *t = "%in A : f32[4,16]\n%in C : f32[16,512]\n%out D : f32[4,512]\n"
                  "B^{4}_{tx=0}L^{512}_{a=0}L^{16}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}"
                  "+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n";
  host_vs_interp(t, fill_jam, 1);
  host_vs_interp(t, fill_jam, 2);
  /* two statements, f32 and f64 (12 bytes of accumulators per copy), and
     an explicit start (no peel: it is not a §9.5 initialisation) */
  host_vs_interp("%in A : f32[4,16]\n%in C : f32[16,512]\n%out D : f32[4,512]\n%out E : f64[4,512]\n"
                 "B^{4}_{tx=0}L^{512}_{a=0}L^{16}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}"
                 "+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}-C^{f32,g}_{c,a};];"
                 "B^{4}_{tx=0}L^{512}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}*0.5;L^{16}_{c=0}[D^{f32,g}_{tx,a}="
                 "D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c};];];\n",
                 fill_jam, 1);
  /* the hint: 16 copies doubled while 2 * copies * 4 bytes fit in
     cg_jam_bytes, 4 * copies <= 512 and 2 * copies * 6 <= 2048 */
  Prog pr;
  assert_true(prog_load(&pr, t));
  LLVMTargetMachineRef tm = cg_host_machine(&pr.ctx, 2, false);
  assert_non_null(tm);
  int jb = cg_jam_bytes(tm), want = 16;
  LLVMDisposeTargetMachine(tm);
  while (2 * want * 4 <= jb && 4 * want <= 512 && 2 * want * 6 <= 2048) want *= 2;
  prog_free(&pr);
  SBuf b;
  host_llvm_o0(t, &b);
  char hint[96];
  snprintf(hint, sizeof hint, "!{!\"llvm.loop.unroll_and_jam.count\", i32 %d}", want);
  assert_non_null(strstr(b.s, hint));
  sbuf_free(&b);
}

/* group.c: a serial reduction loop over an innermost loop that picks the
 * element (SGEMM in the i-k-j order) runs in groups of its iterations side
 * by side in the innermost loop: the interpreter's bits, with the peeled
 * §9.5 start (0 + A*C: a -0 row gives +0), a remainder after the groups
 * (19 iterations: 1 peeled, 4 groups of 4, 2), two statements (the second
 * reads the first's element), f64, NaN, infinities and subnormals.  A
 * statement that reads its neighbour (a+511)%512 is not grouped (the
 * grouped order would give other values). */
static void fill_group(InterpProg *ip) {
  InterpBuf *a = interp_find(ip, "A"), *c = interp_find(ip, "C");
  for (int i = 0; i < 19; i++) ((float *)a->data)[i] = -0.0f; /* row tx = 0 */
  const float sp[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e30f, -1e30f, 1e-40f};
  for (int i = 0; i < 7; i++) ((float *)a->data)[19 + 2 * i] = sp[i];
  for (int i = 0; i < c->numel; i++) ((float *)c->data)[i] = i % 11 == 4 ? 1e-40f : 0.25f + (float)(i % 9);
}

static void test_host_group_reduction(void **state) {
  (void)state;
  const char *t = "%in A : f32[3,19]\n%in C : f32[19,520]\n%out D : f32[3,520]\n%out E : f64[3,520]\n"
                  "B^{3}_{tx=0}L^{19}_{c=0}L^{520}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}"
                  "+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};E^{f64,g}_{tx,a}=E^{f64,g}_{tx,a}*0.5+D^{f32,g}_{tx,a};];\n";
  host_vs_interp(t, fill_group, 1);
  host_vs_interp(t, fill_group, 2);
  host_vs_interp("%in A : f32[3,19]\n%in C : f32[19,512]\n%out D : f32[3,512]\n"
                 "B^{3}_{tx=0}L^{19}_{c=0}L^{512}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}*0.5"
                 "+D^{f32,g}_{tx,(a+511)%512}+A^{f32,g}_{tx,c};];\n",
                 fill_group, 1);
}

/* lower.c cg_maxmin's two forms in reductions: a long one over the
 * innermost loop (maxmin_chain: the shallow form) and a window of 4 (the
 * five-operation form), every rotation of the specials, -0/+0 pairs, NaN
 * first, last and in the middle: the interpreter's bits. */
static void fill_zero_ties(InterpProg *ip) {
  const float v[] = {-0.0f, NAN, -0.0f, -INFINITY, -1.0f, 0.0f, -0.0f, -2.0f, NAN, -3.0f, -0.0f, -1e-40f};
  const float w[] = {0.0f, NAN, 0.0f, INFINITY, 1.0f, -0.0f, 0.0f, 2.0f, NAN, 3.0f, 0.0f, 1e-40f};
  set_f32(ip, "A", v, 12);
  set_f32(ip, "C", w, 12);
}

static void test_host_maxmin_chain(void **state) {
  (void)state;
  /* windows of 10 with and without the one +0 (-0 for min) */
  host_vs_interp("%in A : f32[12]\n%in C : f32[12]\n%out D : f32[12]\n%out E : f32[12]\n"
                 "B^{12}_{tx=0}L^{10}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{(tx+a)%12});"
                 "E^{f32,g}_{tx}=min(E^{f32,g}_{tx},C^{f32,g}_{(tx+a)%12});];\n",
                 fill_zero_ties, 1);
  host_vs_interp("%in A : f32[12]\n%in C : f32[12]\n%out D : f32[12]\n%out E : f32[12]\n"
                 "%out F : f32[12,3]\n%out G : f32[12,3]\n"
                 "B^{12}_{tx=0}L^{12}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{(tx+a)%12});"
                 "E^{f32,g}_{tx}=min(E^{f32,g}_{tx},C^{f32,g}_{(tx+a)%12});];"
                 "B^{12}_{tx=0}L^{3}_{c=0}L^{4}_{d=0}[F^{f32,g}_{tx,c}=max(F^{f32,g}_{tx,c},A^{f32,g}_{(tx+c*4+d)%12});"
                 "G^{f32,g}_{tx,c}=min(G^{f32,g}_{tx,c},C^{f32,g}_{(tx+c*4+d)%12});];\n",
                 fill_specials, 1);
}

/* lower.c acc_never_nan / maxmin_ordered_a: a max/min reduction with its
 * §9.5 initialisation, whose tensor no other statement writes, compares
 * with its accumulator as never NaN (three operations, one at the first
 * iteration); the interpreter's bits on windows and rows dense with NaN,
 * infinities, -0/+0 ties and denormals (all-NaN windows give the identity);
 * pooling as the corpus writes it (a -inf padded copy, stride 2, dilation
 * 3), a reduction over a middle axis, max of three, f64 and f16
 * accumulators, no reduction index, a long row, rows joined in 64 lanes
 * (stage.c: chunks and a rest, a costly operand, f64, an outer reduction
 * loop, an operand of another dtype).  A tensor that another
 * statement writes, or one accumulated without initialisation, keeps the
 * general form (its accumulator may be NaN). */
static void fill_dense_specials(InterpProg *ip) {
  const float v[] = {NAN, -0.0f, 0.0f, NAN, NAN, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f,
                     INFINITY, -0.0f, -0.0f, NAN, -2.5f, 0.0f, 3.0f, -INFINITY, NAN, 0.0f};
  enum { NV = sizeof v / sizeof *v };
  static const char *names[] = {"A", "C"};
  for (int n = 0; n < 2; n++) {
    InterpBuf *b = interp_find(ip, names[n]);
    if (!b) continue;
    for (int64_t i = 0; i < b->numel; i++) {
      int64_t k = (i * (n ? 7 : 3) + i / 23) % NV;
      /* a stretch of NaNs only: whole windows and rows of NaN */
      ((float *)b->data)[i] = i % 64 >= 40 && i % 64 < 52 ? NAN : v[k];
    }
  }
}

static void test_host_maxmin_ordered(void **state) {
  (void)state;
  const char *progs[] = {
      /* Max_Pooling_1D and its min */
      "%in A : f32[2,4,36]\n%out C : f32[2,4,18]\n%out E : f32[2,4,18]\n"
      "B^{2}_{tx=0}L^{4}_{a=0}L^{44}_{c=0}[D^{f32,g}_{tx,a,c}=if_then_else(2<=c<38,A^{f32,g}_{tx,a,c-2},-inf);];"
      "B^{2}_{tx=0}L^{4}_{a=0}L^{18}_{c=0}L^{4}_{d=0}[C^{f32,g}_{tx,a,c}=max(C^{f32,g}_{tx,a,c},D^{f32,g}_{tx,a,c*2+d*3});"
      "E^{f32,g}_{tx,a,c}=min(E^{f32,g}_{tx,a,c},D^{f32,g}_{tx,a,c*2+d*3});];\n",
      /* Max_Pooling_2D's window of 2x2 */
      "%in A : f32[2,3,16,16]\n%out C : f32[2,3,7,7]\n"
      "B^{2}_{tx=0}L^{3}_{a=0}L^{7}_{c=0}L^{7}_{d=0}L^{2}_{f=0}L^{2}_{g=0}[C^{f32,g}_{tx,a,c,d}="
      "max(C^{f32,g}_{tx,a,c,d},A^{f32,g}_{tx,a,c*2+f*3,d*2+g*3});];\n",
      /* over a middle axis (Max_reduction_over_a_dimension), max and min */
      "%in A : f32[3,24,80]\n%out D : f32[3,80]\n%out E : f32[3,80]\n"
      "B^{3}_{tx=0}L^{24}_{a=0}L^{80}_{c=0}[D^{f32,g}_{tx,c}=max(D^{f32,g}_{tx,c},A^{f32,g}_{tx,a,c});];"
      "B^{3}_{tx=0}L^{24}_{a=0}L^{80}_{c=0}[E^{f32,g}_{tx,c}=min(E^{f32,g}_{tx,c},A^{f32,g}_{tx,a,c});];\n",
      /* max of three, f64 and f16 accumulators, a long row */
      "%in A : f32[6,200]\n%in C : f32[6,200]\n%out D : f32[6]\n%out F : f64[6]\n%out H : f16[6]\n%out K : f32[6]\n"
      "B^{6}_{tx=0}L^{200}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a},C^{f32,g}_{tx,a});"
      "F^{f64,g}_{tx}=min(F^{f64,g}_{tx},A^{f32,g}_{tx,a});H^{f16,g}_{tx}=max(H^{f16,g}_{tx},C^{f32,g}_{tx,a});"
      "K^{f32,g}_{tx}=min(K^{f32,g}_{tx},A^{f32,g}_{tx,a});];\n",
      /* no reduction index: initialised at every execution */
      "%in A : f32[64]\n%out D : f32[64]\n%out E : f32[64]\n"
      "B^{64}_{tx=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx});E^{f32,g}_{tx}=min(E^{f32,g}_{tx},A^{f32,g}_{tx});];\n",
      /* stage.c's join in 64 lanes: rows of 2500 (chunks, a rest) and 300,
         a costly operand, f64, a reduction loop outside the joined one,
         an operand of another dtype */
      "%in A : f32[3,2500]\n%in C : f32[3,1200]\n%out D : f32[3]\n%out E : f32[3]\n%out F : f64[3]\n"
      "%out G : f32[3]\n%out H : f64[3]\n"
      "B^{3}_{tx=0}L^{2500}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
      "B^{3}_{tx=0}L^{2500}_{a=0}[E^{f32,g}_{tx}=min(E^{f32,g}_{tx},sqrt(A^{f32,g}_{tx,a})-a);];"
      "B^{3}_{tx=0}L^{2500}_{a=0}[F^{f64,g}_{tx}=max(F^{f64,g}_{tx},A^{f32,g}_{tx,a}*1e30);];"
      "B^{3}_{tx=0}L^{4}_{c=0}L^{300}_{a=0}[G^{f32,g}_{tx}=min(G^{f32,g}_{tx},C^{f32,g}_{tx,c*300+a});];"
      "B^{3}_{tx=0}L^{300}_{a=0}[H^{f64,g}_{tx}=min(H^{f64,g}_{tx},a-150);];\n",
      /* general form: written before (no initialisation), written after */
      "%in A : f32[4,40]\n%out D : f32[4]\n%out E : f32[4]\n"
      "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,39};];"
      "B^{4}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
      "B^{4}_{tx=0}L^{16}_{a=0}[E^{f32,g}_{tx}=min(E^{f32,g}_{tx},A^{f32,g}_{tx,a+2});"
      "E^{f32,g}_{tx}=if_then_else(a==3,A^{f32,g}_{tx,a+24},E^{f32,g}_{tx});];\n",
  };
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    host_vs_interp(progs[i], fill_dense_specials, 1);
    host_vs_interp(progs[i], NULL, 1);
  }
  host_vs_interp(progs[2], fill_dense_specials, 2);
  host_vs_interp(progs[5], fill_dense_specials, 2);
  /* the form: no `fcmp uno` (the accumulator's NaN test) unless another
     statement writes the tensor or nothing initialises it */
  static const struct { const char *text; bool general, join; } cases[] = {
      {"%in A : f32[4,16]\n%out D : f32[4]\n"
       "B^{4}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];\n", false, false},
      {"%in A : f32[4,16]\n%out D : f32[4]\n"
       "B^{4}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=min(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];\n", false, false},
      {"%in A : f32[4,16]\n%out D : f32[4]\n"
       "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,0};];"
       "B^{4}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];\n", true, false},
      {"%in A : f32[4,16]\n%out D : f32[4]\n"
       "B^{4}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];"
       "B^{4}_{tx=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}*2;];\n", true, false},
      {"%in A : f32[4,256]\n%out D : f32[4]\n"
       "B^{4}_{tx=0}L^{256}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];\n", false, true},
      {"%in A : f32[4,256]\n%out D : f32[4]\n"
       "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,0};];"
       "B^{4}_{tx=0}L^{256}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];\n", true, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    SBuf b;
    host_llvm_o0(cases[i].text, &b);
    assert_int_equal(strstr(b.s, "fcmp uno") != NULL, cases[i].general);
    assert_int_equal(strstr(b.s, "%join") != NULL, cases[i].join);
    sbuf_free(&b);
  }
}

static void test_host_nests(void **state) {
  (void)state;
  /* nested nest, continuation form, init re-run with no reduction index */
  host_vs_interp("%in A : f32[4,8,8]\n%out C : f32[4,8]\n%out D : f32[4,8]\n"
                 "B^{4}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx,a}=0.5;L^{8}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}"
                 "+A^{f32,g}_{tx,a,c};];];"
                 "B^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+(A^{f32,g}_{tx,a,0}+C^{f32,g}_{tx,a});];\n",
                 NULL, 1);
  host_vs_interp("%in A : f32[4,8]\n%out C : f32[4]\n"
                 "B^{4}_{tx=0}[C^{f32,g}_{tx}=1.0;]L^{8}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}*A^{f32,g}_{tx,a};];\n",
                 NULL, 1);
}

static void test_host_oob(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, "%in A : f32[8]\n%in I : i64[8]\n%out C : f32[8]\n"
                             "B^{8}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{I^{i64,g}_{tx}};];\n"));
  float a[8] = {0};
  int64_t idx[8] = {0, 1, 2, 3, 4, 5, 6, -3};
  float c[8];
  void *bufs[3] = {a, idx, c};
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  assert_false(cg_run_host(&pr.ctx, pr.p, &o, bufs));
  assert_string_equal(pr.diag, "t.leir:4:14: error: out-of-bounds read of A: shape is [8]\n");
  prog_free(&pr);
  /* two reads out of bounds, the second statement's first (tx = 1) and the
     first's last (tx = 6): the report is the one of one thread running the
     nest in order, whatever the number of threads (codegen/host.c,
     run_parallel) */
  const char *two = "%in A : f32[8]\n%in I : i64[8]\n%in J : i64[8]\n%out C : f32[8]\n%out D : f32[8]\n"
                    "B^{8}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{I^{i64,g}_{tx}};\nD^{f32,g}_{tx}=A^{f32,g}_{J^{i64,g}_{tx}};];\n";
  char first[256] = "";
  for (int nt = 1; nt <= 8; nt++) {
    assert_true(prog_load(&pr, two));
    int64_t ii[8] = {0, 1, 2, 3, 4, 5, 9, 7}, jj[8] = {0, -1, 2, 3, 4, 5, 6, 7};
    float d[8];
    void *b2[5] = {a, ii, jj, c, d};
    o.nthreads = nt;
    o.par_min_work = 1;
    assert_false(cg_run_host(&pr.ctx, pr.p, &o, b2));
    if (nt == 1) snprintf(first, sizeof first, "%.200s", pr.diag);
    assert_string_equal(pr.diag, first);
    prog_free(&pr);
  }
  assert_string_equal(first, "t.leir:6:14: error: out-of-bounds read of A: shape is [8]\n");
}

/* Guard facts (codegen/facts.h): in the then-branch of if_then_else(1<=c<9, ...) the
 * read A[c-1] needs no bounds check (padded copies, pooling); the results
 * are the interpreter's bit for bit, specials included; the facts are
 * those of a conjunction of index-literal comparisons only, and only in
 * the then-branch: a read out of bounds elsewhere is still reported. */
static bool host_oob_diag(const char *text, char *diag, size_t n) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  float a[8] = {0}, c[10];
  void *bufs[2] = {a, c};
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  bool ok = cg_run_host(&pr.ctx, pr.p, &o, bufs);
  snprintf(diag, n, "%.200s", pr.diag);
  prog_free(&pr);
  return ok;
}

static void test_host_guard_facts(void **state) {
  (void)state;
  const char *pad = "%in A : f32[12,8]\n%in C : f32[12]\n%out D : f32[12,10]\n%out E : f32[12,4]\n"
                    "B^{12}_{tx=0}L^{10}_{c=0}[D^{f32,g}_{tx,c}=if_then_else(1<=c<9,A^{f32,g}_{tx,c-1},-inf);];"
                    "B^{12}_{tx=0}L^{4}_{c=0}L^{3}_{d=0}[E^{f32,g}_{tx,c}=max(E^{f32,g}_{tx,c},"
                    "if_then_else((c*2+d>=1)&(9>c*2+d)&(d<=1),A^{f32,g}_{tx,c*2+d-1},0));];\n";
  host_vs_interp(pad, fill_specials, 1);
  host_vs_interp(pad, fill_specials, 4);
  const char *pad2 = "%in A : f32[12,8,8]\n%in C : f32[12]\n%out D : f32[12,10,10]\n"
                     "B^{12}_{tx=0}L^{10}_{c=0}L^{10}_{d=0}[D^{f32,g}_{tx,c,d}="
                     "if_then_else(1<=c<9&1<=d<9,A^{f32,g}_{tx,c-1,d-1},0);];\n";
  host_vs_interp(pad2, fill_specials, 1);
  Prog pr;
  assert_true(prog_load(&pr, pad2));
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  SBuf b = {0};
  assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
  assert_null(strstr(b.s, "oob")); /* no bounds check left */
  assert_null(strstr(b.s, "ite.then")); /* the loops split: no branch left */
  sbuf_free(&b);
  prog_free(&pr);
  /* the value analysis computes the ranges under the facts: (c+1)//2-1 is
     in [0, 3] where 1 <= c < 9 (a floor division: the facts' own interval
     arithmetic of + - * did not prove it, issue 39) */
  const char *pool = "%in A : f32[12,4]\n%in C : f32[12]\n%out D : f32[12,10]\n"
                     "B^{12}_{tx=0}L^{10}_{c=0}[D^{f32,g}_{tx,c}=if_then_else(1<=c<9,A^{f32,g}_{tx,(c+1)//2-1},0);];\n";
  host_vs_interp(pool, fill_specials, 1);
  assert_true(prog_load(&pr, pool));
  b = (SBuf){0};
  assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
  assert_null(strstr(b.s, "oob")); /* no bounds check left */
  sbuf_free(&b);
  prog_free(&pr);
  /* index-set splitting of a reduction loop (the order of the sum is kept),
     == and bounds beyond the loop, a chain with a tensor read, an else
     branch that reads out of the then-branch's range */
  host_vs_interp("%in A : f32[12,16]\n%in C : f32[12]\n%out D : f32[12]\n%out E : f32[12,16]\n"
                 "B^{12}_{tx=0}L^{16}_{d=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+"
                 "if_then_else(2<=d<7,A^{f32,g}_{tx,d}*1e30,C^{f32,g}_{tx}+if_then_else(d==9,A^{f32,g}_{tx,0},1));];"
                 "B^{12}_{tx=0}L^{16}_{d=0}[E^{f32,g}_{tx,d}=if_then_else(d<=40&0<=d&C^{f32,g}_{tx}<d<12,"
                 "A^{f32,g}_{tx,d+4},if_then_else(d>=3,A^{f32,g}_{tx,d-3},-0.0));];\n",
                 fill_specials, 1);
  char d[256];
  /* c = 8 reads A[9]: the fact c < 9 does not make c+1 < 8 */
  assert_false(host_oob_diag("%in A : f32[8]\n%out C : f32[10]\n"
                             "L^{10}_{c=0}[C^{f32,g}_{c}=if_then_else(c<9,A^{f32,g}_{c+1},0);];\n", d, sizeof d));
  assert_non_null(strstr(d, "error: out-of-bounds read of A: shape is [8]"));
  /* a disjunction proves nothing: c = 0 reads A[-1] */
  assert_false(host_oob_diag("%in A : f32[8]\n%out C : f32[9]\n"
                             "L^{9}_{c=0}[C^{f32,g}_{c}=if_then_else(c>=1|c>=0,A^{f32,g}_{c-1},0);];\n", d, sizeof d));
  assert_non_null(strstr(d, "error: out-of-bounds read of A: shape is [8]"));
  /* the else branch has no fact: c = 0 reads A[-1] there */
  assert_false(host_oob_diag("%in A : f32[8]\n%out C : f32[9]\n"
                             "L^{9}_{c=0}[C^{f32,g}_{c}=if_then_else(c>=1,0,A^{f32,g}_{c-1});];\n", d, sizeof d));
  assert_non_null(strstr(d, "error: out-of-bounds read of A: shape is [8]"));
  /* nor does the code after the if_then_else (c <= 99 proves nothing) */
  assert_false(host_oob_diag("%in A : f32[8]\n%out C : f32[9]\n"
                             "L^{9}_{c=0}[C^{f32,g}_{c}=if_then_else(c>=1,A^{f32,g}_{c-1},0)+if_then_else(c<=99,A^{f32,g}_{c-1},0);];\n",
                             d, sizeof d));
  assert_non_null(strstr(d, "error: out-of-bounds read of A: shape is [8]"));
  /* in range everywhere it is read: no report */
  assert_true(host_oob_diag("%in A : f32[8]\n%out C : f32[10]\n"
                            "L^{10}_{c=0}[C^{f32,g}_{c}=if_then_else(c>=1&c<=8,A^{f32,g}_{c-1},0);];\n", d, sizeof d));
}

static void test_emit_llvm_host(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, e1));
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  SBuf b = {0};
  assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
  assert_non_null(strstr(b.s, "define void @leir_k0_entry(ptr"));
  assert_null(strstr(b.s, "fmuladd"));
  sbuf_free(&b);
  assert_true(cg_emit_asm(&pr.ctx, pr.p, &o, &b));
  assert_non_null(strstr(b.s, "leir_k0_entry:"));
  sbuf_free(&b);
  prog_free(&pr);
}

/* ir/strength.h: an f32/f16/bf16 `x ** 2` is one multiply in the LLVM
 * module (no trace of the power routine, which LLVM inlines: its fma
 * steps) and the CUDA C (no call of leir_pow); f64 and other exponents keep
 * the routine.  Bit equality with the routine: mathlib_test; with the
 * interpreter: test_host_float_ops and test_host_half.  (An f32 `x ** 3`
 * is the f64 product in the LLVM module, issue 59: test_pow3_product; so
 * is any small integer exponent since f32 pow's own routine, which multiplies
 * for |n| <= 7: the routine's case is a non-integer exponent.) */
static void test_pow2_square(void **state) {
  (void)state;
  static const struct { const char *text; bool square; } cases[] = {
      {"%in A : f32[8]\n%out D : f32[8]\nB^{8}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}**2;];\n", true},
      {"%in A : f32[8]\n%out D : f32[8]\nB^{8}_{tx=0}[D^{f32,g}_{tx}=(A^{f32,g}_{tx}+1)**(2.0);];\n", true},
      {"%in A : f16[8]\n%out D : f16[8]\nB^{8}_{tx=0}[D^{f16,g}_{tx}=A^{f16,g}_{tx}**2;];\n", true},
      {"%in A : f64[8]\n%out D : f64[8]\nB^{8}_{tx=0}[D^{f64,g}_{tx}=A^{f64,g}_{tx}**2;];\n", false},
      {"%in A : f32[8]\n%out D : f32[8]\nB^{8}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}**2.5;];\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Prog pr;
    if (!prog_load(&pr, cases[i].text)) fail_msg("does not load: %s", pr.diag);
    CgOptions o;
    cg_options_init(&o);
    o.target = CG_TARGET_HOST;
    SBuf b = {0};
    assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
    bool calls_pow = strstr(b.s, "llvm.fma") != NULL;
    if (calls_pow == cases[i].square) fail_msg("case %zu: %s", i, calls_pow ? "calls pow" : "no pow call");
    sbuf_free(&b);
    assert_true(emit_cuda(&pr.ctx, pr.p, &b));
    calls_pow = strstr(b.s, "leir_pow") != NULL;
    if (calls_pow == cases[i].square) fail_msg("case %zu (CUDA C): %s", i, calls_pow ? "calls pow" : "no pow call");
    sbuf_free(&b);
    prog_free(&pr);
  }
  host_vs_interp(cases[0].text, fill_specials_a, 1);
  host_vs_interp(cases[2].text, NULL, 1);
}

/* issue 59: an f32 `x ** 3` (and -1, 1, 2) is the f32 product x*(x*x) in
 * the host module, as PyTorch computes it: no fma steps of the power
 * routine, no f64, two f32 multiplies; the CUDA C keeps leir_powf (the same
 * bits: mathlib_test test_powi_product, and mathlib_emit_test against
 * leir_powf). */
static void test_pow3_product(void **state) {
  (void)state;
  Prog pr;
  if (!prog_load(&pr, "%in A : f32[8]\n%out D : f32[8]\nB^{8}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}**3;];\n"))
    fail_msg("does not load: %s", pr.diag);
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  SBuf b = {0};
  assert_true(cg_emit_llvm(&pr.ctx, pr.p, &o, &b));
  assert_null(strstr(b.s, "llvm.fma"));
  assert_null(strstr(b.s, "double"));
  int nmul = 0;
  for (const char *q = b.s; (q = strstr(q, "fmul float")) != NULL; q++) nmul++;
  assert_int_equal(nmul, 2);
  sbuf_free(&b);
  assert_true(emit_cuda(&pr.ctx, pr.p, &b));
  assert_non_null(strstr(b.s, "leir_powf("));
  sbuf_free(&b);
  prog_free(&pr);
}

/* ------------------------------------------------------------ differential */

/* Host JIT against the interpreter on real programs: every corpus program
 * with data (its own inputs), every example and every PTX test program
 * (random inputs, seed 0).  Programs of more than DIFF_MAX_WORK statement
 * executions are counted as skipped (the interpreter would take minutes). */
#define DIFF_MAX_WORK 400000000LL

typedef struct DiffStats {
  int corpus, others, skipped, failed;
} DiffStats;

static int64_t work_of(const IrNest *n) {
  int64_t w = 1, inner = 0;
  for (int i = 0; i < n->nloops; i++) w = w > INT64_MAX / n->loops[i]->extent ? INT64_MAX : w * n->loops[i]->extent;
  for (int i = 0; i < n->nitems; i++) {
    int64_t x = n->items[i].kind == ITEM_NEST ? work_of(n->items[i].u.nest) : 1;
    inner = inner > INT64_MAX - x ? INT64_MAX : inner + x;
  }
  return w > INT64_MAX / inner ? INT64_MAX : w * inner;
}

/* Loads path (with the sidecar decls when not NULL).  False if it does not
 * load cleanly (such programs are not the subject of this test). */
static bool load_file(Prog *pr, const char *path, const char *decls) {
  prog_init(pr);
  pr->ctx.no_warnings = true;
  size_t len = 0;
  char *text = leir_read_file(path, &len);
  if (!text) return false;
  leir_ctx_set_source(&pr->ctx, path, text, len);
  free(text);
  pr->p = ps_parse(&pr->ctx);
  IrDeclList side = {0};
  if (pr->p && decls && !ir_decls_load_json(&pr->ctx, decls, &side)) return false;
  return pr->p && ir_sema(&pr->ctx, pr->p, decls ? &side : NULL);
}

/* Runs both back ends on the inputs already in ip; 1 equal, 0 differ. */
static int diff_run(Prog *pr, InterpProg *ip, const char *what) {
  int n = interp_ntensors(ip);
  if (!interp_run(ip)) return -1; /* the program's own error: not compared */
  void **ref = calloc((size_t)n + 1, sizeof *ref), **bufs = calloc((size_t)n + 1, sizeof *bufs);
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    bufs[i] = b->data;
    if (b->t->role != ROLE_OUT) continue;
    ref[i] = malloc(b->nbytes + 1);
    memcpy(ref[i], b->data, b->nbytes);
  }
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (b->t->role == ROLE_OUT || b->t->role == ROLE_TMP) memset(b->data, 0, b->nbytes);
  }
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  int ok = cg_run_host(&pr->ctx, pr->p, &o, bufs) ? 1 : 0;
  if (!ok) print_message("host failed on %s: %s\n", what, pr->diag);
  for (int i = 0; ok && i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    if (!ref[i]) continue;
    CmpResult r = cmp_arrays(cmp_kind(b->t->dtype), (size_t)ir_dtype_size(b->t->dtype), b->data, ref[i],
                             b->numel, CMP_EXACT);
    if (r.verdict != CMP_EQUAL) {
      print_message("%s: output %s differs at %lld: host %.9g, interpreter %.9g\n", what, b->t->name,
                    (long long)r.first_index, r.a_value, r.b_value);
      ok = 0;
    }
  }
  for (int i = 0; i < n; i++) free(ref[i]);
  free(ref);
  free(bufs);
  return ok;
}

static const char *corpus_root(char *buf, size_t n) {
  corpus_dir(buf, n, "..");
  struct stat st;
  return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf : NULL;
}

/* One corpus program with data: data/<level>/<name>/manifest.json. */
static void diff_corpus_one(const char *root, const char *level, const char *name, DiffStats *ds) {
  char path[4096], decls[4096], man[4096];
  snprintf(path, sizeof path, "%s/programs/%s/%s.leir", root, level, name);
  snprintf(decls, sizeof decls, "%s/programs/%s/%s.decls.json", root, level, name);
  snprintf(man, sizeof man, "%s/data/%s/%s/manifest.json", root, level, name);
  Prog pr;
  if (!load_file(&pr, path, decls)) {
    print_message("%s does not load: %s\n", path, pr.diag);
    ds->failed++;
    prog_free(&pr);
    return;
  }
  int64_t w = 0;
  for (int i = 0; i < pr.p->nnests; i++) w += work_of(pr.p->nests[i]);
  InterpProg *ip = w <= DIFF_MAX_WORK ? interp_new(&pr.ctx, pr.p, NULL) : NULL;
  json_error_t je;
  json_t *m = ip ? json_load_file(man, 0, &je) : NULL;
  bool ok = m != NULL;
  json_t *tens = m ? json_object_get(m, "tensors") : NULL;
  for (size_t i = 0; ok && i < json_array_size(tens); i++) {
    json_t *t = json_array_get(tens, i);
    const char *role = json_string_value(json_object_get(t, "role"));
    if (!role || !strcmp(role, "output")) continue;
    InterpBuf *b = interp_find(ip, json_string_value(json_object_get(t, "leir_name")));
    char f[4096];
    snprintf(f, sizeof f, "%s/data/%s/%s/%s", root, level, name, json_string_value(json_object_get(t, "file")));
    ok = b && interp_load_npy(ip, b, f);
  }
  if (!ip) ds->skipped++;
  else if (!ok) {
    print_message("%s: cannot load its data: %s\n", name, pr.diag);
    ds->failed++;
  } else {
    int r = diff_run(&pr, ip, name);
    if (r > 0) ds->corpus++;
    else if (r == 0) ds->failed++;
    else ds->skipped++;
  }
  json_decref(m);
  interp_free(ip);
  prog_free(&pr);
}

static void diff_corpus(DiffStats *ds) {
  char rb[1024];
  const char *root = corpus_root(rb, sizeof rb);
  if (!root) return;
  const char *levels[] = {"level1", "level2"};
  for (int l = 0; l < 2; l++) {
    char d[2048];
    snprintf(d, sizeof d, "%s/data/%s", root, levels[l]);
    struct dirent **ents = NULL;
    int n = scandir(d, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
      if (ents[i]->d_name[0] != '.') diff_corpus_one(root, levels[l], ents[i]->d_name, ds);
      free(ents[i]);
    }
    free(ents);
  }
}

/* Every .leir of a source folder that loads, on random inputs. */
static void diff_folder(const char *sub, DiffStats *ds) {
  const char *top = getenv("top_srcdir");
  char d[1024];
  snprintf(d, sizeof d, "%s/%s", top && *top ? top : "..", sub);
  struct dirent **ents = NULL;
  int n = scandir(d, &ents, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *nm = ents[i]->d_name;
    size_t len = strlen(nm);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", d, nm);
    Prog pr;
    if (len > 5 && !strcmp(nm + len - 5, ".leir") && load_file(&pr, path, NULL)) {
      int64_t w = 0;
      for (int k = 0; k < pr.p->nnests; k++) w += work_of(pr.p->nests[k]);
      InterpProg *ip = w <= DIFF_MAX_WORK ? interp_new(&pr.ctx, pr.p, NULL) : NULL;
      if (!ip) {
        ds->skipped++;
      } else {
        bool *given = calloc((size_t)interp_ntensors(ip) + 1, 1);
        interp_random_inputs(ip, 0, given);
        free(given);
        int r = diff_run(&pr, ip, path);
        if (r > 0) ds->others++;
        else if (r == 0) ds->failed++;
      }
      interp_free(ip);
      prog_free(&pr);
    } else if (len > 5 && !strcmp(nm + len - 5, ".leir")) {
      prog_free(&pr);
    }
    free(ents[i]);
  }
  free(ents);
}

/* ------------------------------------------------------------ --fp-contract (ir/contract.h) */

#define FA "A^{f32,g}_{tx}"
#define FC "C^{f32,g}_{tx}"
static const char fc_f32[] =
    "%in A : f32[12]\n%in C : f32[12]\n%out D : f32[12,8]\n"
    "B^{12}_{tx=0}[D^{f32,g}_{tx,0}=" FA "*" FC "+" FC ";"
    "D^{f32,g}_{tx,1}=" FA "*" FC "-" FA "*" FA ";"
    "D^{f32,g}_{tx,2}=" FC "-" FA "*" FC ";"
    "D^{f32,g}_{tx,3}=(" FA "*" FC ")-" FC ";"
    "D^{f32,g}_{tx,4}=" FA "+(" FC "*" FA ");"
    "D^{f32,g}_{tx,5}=" FA "*" FC "*" FA "+" FC ";"
    "D^{f32,g}_{tx,6}=-" FA "*" FC "+" FA "**2;"
    "D^{f32,g}_{tx,7}=" FA "**2-" FC "*" FA ";];\n";
#define DA "A^{f64,g}_{tx}"
#define DC "C^{f64,g}_{tx}"
static const char fc_f64[] =
    "%in A : f64[12]\n%in C : f64[12]\n%out D : f64[12,4]\n"
    "B^{12}_{tx=0}[D^{f64,g}_{tx,0}=" DA "*" DC "+" DC ";"
    "D^{f64,g}_{tx,1}=" DA "*" DC "-" DA "*" DA ";"
    "D^{f64,g}_{tx,2}=" DC "-" DA "*" DC ";"
    "D^{f64,g}_{tx,3}=(" DA "*" DC ")-(" DC "+" DA "*" DA ");];\n";
/* sequential reduction D = D + A*C (fused) and a tree-mode one whose
 * contribution A*C+C fuses, the fold itself not (contract.h) */
static const char fc_red[] =
    "%in A : f32[64,32]\n%in C : f32[32,48]\n%out D : f32[64,48]\n%out H : f32[48]\n"
    "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];"
    "L^{48}_{a=0}B^{32}_{tx=0}[H^{f32,g}_{a}=H^{f32,g}_{a}+(C^{f32,g}_{tx,a}*A^{f32,g}_{a,tx}+C^{f32,g}_{tx,a});];\n";

/* specials, then rows 10 and 11 where fma(a, a, -(a*a)) is not 0 */
static void fill_fma32(InterpProg *ip) {
  fill_specials(ip);
  const float v[] = {1.0f + 0x1p-12f, -(1.0f + 0x1p-12f)};
  for (int i = 0; i < 2; i++) {
    ((float *)interp_find(ip, "A")->data)[10 + i] = v[i];
    ((float *)interp_find(ip, "C")->data)[10 + i] = v[i];
  }
}

static void fill_fma64(InterpProg *ip) {
  const double v[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 4e-320, -4e-320, 3.5, 1e300, -7.0,
                      1.0 + 0x1p-27, -(1.0 + 0x1p-27)};
  const double w[] = {1.0, 0.0, -0.0, NAN, 2.0, -4e-320, 1e-10, -3.5, 1e10, 2.0, 1.0 + 0x1p-27, -(1.0 + 0x1p-27)};
  for (int i = 0; i < 12; i++) {
    ((double *)interp_find(ip, "A")->data)[i] = v[i];
    ((double *)interp_find(ip, "C")->data)[i] = w[i];
  }
}

/* The interpreter's tensor `name` after running text in mode fc (malloc'd). */
static void *interp_out(const char *text, FillFn fill, bool fc, const char *name, size_t *nbytes) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  pr.ctx.fp_contract = fc;
  InterpProg *ip = interp_new(&pr.ctx, pr.p, NULL);
  assert_non_null(ip);
  interp_random_inputs(ip, 7, NULL);
  if (fill) fill(ip);
  if (!interp_run(ip)) fail_msg("interpreter: %s", pr.diag);
  InterpBuf *b = interp_find(ip, name);
  void *out = malloc(b->nbytes);
  memcpy(out, b->data, b->nbytes);
  *nbytes = b->nbytes;
  interp_free(ip);
  prog_free(&pr);
  return out;
}

static void test_fp_contract_rule(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, fc_f32));
  IrFma f;
  bool want[] = {true, true, true, true, true, true, true, true};
  for (int k = 0; k < 8; k++) {
    const IrExpr *e = pr.p->stmts[k]->rhs;
    assert_false(ir_contract_fma(e, false, &f));
    assert_int_equal(ir_contract_fma(e, true, &f), want[k]);
  }
  /* left operand first: A*C - A*A is fma(A, C, -(A*A)) */
  assert_true(ir_contract_fma(pr.p->stmts[1]->rhs, true, &f));
  assert_false(f.neg_x);
  assert_true(f.neg_z);
  assert_int_equal(f.z->kind, E_BINARY);
  /* C - A*C is fma(-A, C, C) */
  assert_true(ir_contract_fma(pr.p->stmts[2]->rhs, true, &f));
  assert_true(f.neg_x);
  assert_false(f.neg_z);
  /* x**2 is not a `*`: A**2 - C*A fuses the right operand */
  assert_true(ir_contract_fma(pr.p->stmts[7]->rhs, true, &f));
  assert_true(f.neg_x);
  prog_free(&pr);
  /* f16, bf16 and integers never fuse */
  const char *no[] = {"%in A : f16[4]\n%out D : f16[4]\nB^{4}_{tx=0}[D^{f16,g}_{tx}=A^{f16,g}_{tx}*A^{f16,g}_{tx}+A^{f16,g}_{tx};];\n",
                      "%in A : bf16[4]\n%out D : bf16[4]\nB^{4}_{tx=0}[D^{bf16,g}_{tx}=A^{bf16,g}_{tx}*A^{bf16,g}_{tx}+A^{bf16,g}_{tx};];\n",
                      "%in A : i32[4]\n%out D : i32[4]\nB^{4}_{tx=0}[D^{i32,g}_{tx}=A^{i32,g}_{tx}*A^{i32,g}_{tx}+A^{i32,g}_{tx};];\n"};
  for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
    assert_true(prog_load(&pr, no[i]));
    assert_false(ir_contract_fma(pr.p->stmts[0]->rhs, true, &f));
    prog_free(&pr);
  }
}

static void test_fp_contract_host(void **state) {
  (void)state;
  /* within the fused mode: host bit-identical to the interpreter */
  host_vs_interp_mode(fc_f32, fill_fma32, 1, true);
  host_vs_interp_mode(fc_f64, fill_fma64, 1, true);
  host_vs_interp_mode(fc_red, NULL, 1, true);
  host_vs_interp_mode(fc_red, NULL, 4, true);
  host_vs_interp_mode(fc_f32, fill_fma32, 1, false);
  host_vs_interp_mode(fc_f64, fill_fma64, 1, false);
  /* and the fused results are not the unfused ones (else this tests nothing) */
  size_t n1, n2;
  float *on = interp_out(fc_f32, fill_fma32, true, "D", &n1), *off = interp_out(fc_f32, fill_fma32, false, "D", &n2);
  assert_true(n1 == n2);
  assert_true(off[10 * 8 + 1] == 0.0f);
  assert_true(on[10 * 8 + 1] == 0x1p-24f); /* (1+2^-12)^2 - fl((1+2^-12)^2) */
  assert_true(on[11 * 8 + 1] == 0x1p-24f);
  free(on);
  free(off);
  double *don = interp_out(fc_f64, fill_fma64, true, "D", &n1), *doff = interp_out(fc_f64, fill_fma64, false, "D", &n2);
  assert_true(doff[10 * 4 + 1] == 0.0);
  assert_true(don[10 * 4 + 1] == 0x1p-54);
  free(don);
  free(doff);
  const char *outs[] = {"D", "H"};
  for (int i = 0; i < 2; i++) {
    void *ron = interp_out(fc_red, NULL, true, outs[i], &n1), *roff = interp_out(fc_red, NULL, false, outs[i], &n2);
    assert_true(n1 == n2 && memcmp(ron, roff, n1) != 0);
    free(ron);
    free(roff);
  }
}

static void test_fp_contract_ptx(void **state) {
  (void)state;
  const char *progs[] = {fc_f32, fc_f64, e1};
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    for (int fc = 0; fc < 2; fc++) {
      Prog pr;
      assert_true(prog_load(&pr, progs[i]));
      pr.ctx.fp_contract = fc;
      CgOptions o;
      cg_options_init(&o);
      SBuf b = {0};
      assert_true(cg_emit_ptx(&pr.ctx, pr.p, &o, &b));
      if (fc) assert_non_null(strstr(b.s, "fma.rn"));
      else assert_null(strstr(b.s, "fma.rn"));
      sbuf_free(&b);
      prog_free(&pr);
    }
  }
}

/* --compare's engine on a program unfused (a) against fused (b): never
 * bit-equal, within class T's tolerance (ir/contract.h) */
static void test_fp_contract_compare(void **state) {
  (void)state;
  const char *progs[] = {e1, fc_red};
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    Prog pa, pb;
    assert_true(prog_load(&pa, progs[i]));
    assert_true(prog_load(&pb, progs[i]));
    pb.ctx.fp_contract = true;
    InterpCompareOpts co = {3, 7, CMP_EXACT, {.max_steps = 0}, 0, NULL, NULL, NULL};
    InterpDiff d;
    assert_int_equal(interp_compare_programs(&pa.ctx, pa.p, &pb.ctx, pb.p, &co, "off", "on", &d), 0);
    assert_int_equal(d.verdict, CMP_DIFFER);
    /* class T: the reference's acceptance rule; §0.4's elementwise rtol
     * (1e-4 in f32) is too tight for a sum with cancellation: e1's D[2176]
     * is 0.156211853 unfused, 0.156235754 fused */
    co.tol = CMP_REFERENCE;
    assert_int_equal(interp_compare_programs(&pa.ctx, pa.p, &pb.ctx, pb.p, &co, "off", "on", &d), 0);
    if (d.verdict != CMP_CLOSE)
      fail_msg("%s: '%s'[%lld] off %s, on %s", i ? "fc_red" : "e1", d.have ? d.tensor->name : "?", (long long)d.index,
               d.a_text, d.b_text);
    /* within one mode: bit-equal */
    pa.ctx.fp_contract = true;
    co.tol = CMP_EXACT;
    assert_int_equal(interp_compare_programs(&pa.ctx, pa.p, &pb.ctx, pb.p, &co, "on", "on", &d), 0);
    assert_int_equal(d.verdict, CMP_EQUAL);
    prog_free(&pa);
    prog_free(&pb);
  }
}

static void test_differential(void **state) {
  (void)state;
  DiffStats ds = {0};
  diff_corpus(&ds);
  diff_folder("examples", &ds);
  diff_folder("testsuite/leirc.ptx", &ds);
  diff_folder("testsuite/leirc.run", &ds);
  printf("# count: host JIT bit-identical to the interpreter on %d programs (%d corpus programs with data, "
         "%d examples and testsuite programs); %d skipped as too long for the interpreter, %d differ\n",
         ds.corpus + ds.others, ds.corpus, ds.others, ds.skipped, ds.failed);
  assert_int_equal(ds.failed, 0);
  assert_true(ds.corpus + ds.others > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gpu_arch),
      cmocka_unit_test(test_ptx_e1),
      cmocka_unit_test(test_ptx_arch),
      cmocka_unit_test(test_ptx_div_sqrt),
      cmocka_unit_test(test_ptx_host_loops),
      cmocka_unit_test(test_ptx_spread),
      cmocka_unit_test(test_ptx_limits_refused),
      cmocka_unit_test(test_ptx_block_reduction),
      cmocka_unit_test(test_ptx_no_b_warning),
      cmocka_unit_test(test_ptx_shared_and_reduction),
      cmocka_unit_test(test_ptx_demotion),
      cmocka_unit_test(test_ptx_vector),
      cmocka_unit_test(test_host_float_ops),
      cmocka_unit_test(test_host_f64_and_conversions),
      cmocka_unit_test(test_host_int_ops),
      cmocka_unit_test(test_host_half),
      cmocka_unit_test(test_host_lazy_ite),
      cmocka_unit_test(test_host_tree_reductions),
      cmocka_unit_test(test_host_tree_orders),
      cmocka_unit_test(test_host_tree_jam),
      cmocka_unit_test(test_host_staged_reduction),
      cmocka_unit_test(test_host_maxmin_bits),
      cmocka_unit_test(test_powi_const), cmocka_unit_test(test_pow3_product),
      cmocka_unit_test(test_host_divmod_nonneg),
      cmocka_unit_test(test_host_pool_window),
      cmocka_unit_test(test_host_jam_short_reduction),
      cmocka_unit_test(test_host_group_reduction),
      cmocka_unit_test(test_host_maxmin_chain),
      cmocka_unit_test(test_host_maxmin_ordered),
      cmocka_unit_test(test_host_nests),
      cmocka_unit_test(test_host_oob),
      cmocka_unit_test(test_host_guard_facts),
      cmocka_unit_test(test_emit_llvm_host),
      cmocka_unit_test(test_pow2_square),
      cmocka_unit_test(test_fp_contract_rule),
      cmocka_unit_test(test_fp_contract_host),
      cmocka_unit_test(test_fp_contract_ptx),
      cmocka_unit_test(test_fp_contract_compare),
      cmocka_unit_test(test_differential),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
