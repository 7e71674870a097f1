/* jitcache_test.c -- the host JIT's cache of compiled nests
 * (codegen/host_cache.c, issue 61): a program compiled through the cache
 * gives the interpreter's bits, the hits and misses are exact, two nests
 * of the same text over tensors of other shapes are two entries (a cache
 * keyed on the nest's text alone runs the first program's code for the
 * second and fails test_same_text_other_shapes), eviction keeps the
 * bounds without taking code from a program that still holds it, and the
 * disk part gives another cache the code stored, never a file whose key
 * is not the kernel's, a kernel made for another CPU (LEIRC_HOST_CPU) is
 * an entry of its own, and freeing a cache of 47 entries reads no freed
 * memory in LLVM (test_teardown). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "testsuite/unit/unit_prog.h"

/* Three nests that do not fuse (the second reduces over j): Y = 2X, Z its
 * row sums, then Z squared. */
#define THREE                                                                                                        \
  "L^{4}_{i=0}L^{8}_{j=0}[Y^{f32,g}_{i,j}=X^{f32,g}_{i,j}*2.0;];\n"                                                \
  "L^{4}_{i=0}L^{8}_{j=0}[Z^{f32,g}_{i}=Z^{f32,g}_{i}+Y^{f32,g}_{i,j};];\n"                                        \
  "L^{4}_{i=0}[Z^{f32,g}_{i}=Z^{f32,g}_{i}*Z^{f32,g}_{i};];\n"
static const char *three = "%in X : f32[4,8]\n%out Y : f32[4,8]\n%out Z : f32[4]\n" THREE;

#define NAME_MAX_LEN 1024 /* a path under the scratch folder */

static CgJitCacheStats stats(const CgJitCache *c) {
  CgJitCacheStats s;
  cg_jit_cache_stats(c, &s);
  return s;
}

/* Runs text in the interpreter, then p (text's program, or its nests from
 * skip on: the first `skip` nests run by the interpreter first) through
 * cache c on the same random inputs, and fails unless every output holds
 * the same bytes. */
static void check_cached(const char *text, CgJitCache *c, int skip) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  InterpProg *ref = interp_new(&pr.ctx, pr.p, NULL);
  assert_non_null(ref);
  interp_random_inputs(ref, 11, NULL);
  assert_true(interp_run(ref));
  IrProgram head = *pr.p, tail = *pr.p;
  head.nnests = skip;
  tail.nests += skip;
  tail.nnests -= skip;
  InterpProg *ip = interp_new(&pr.ctx, &tail, NULL);
  assert_non_null(ip);
  interp_random_inputs(ip, 11, NULL);
  int n = interp_ntensors(ip);
  unsigned char *kept = calloc((size_t)n + 1, 1);
  if (skip) { /* the head in the interpreter, the rest on the host from there */
    InterpProg *h = interp_new(&pr.ctx, &head, NULL);
    interp_random_inputs(h, 11, NULL);
    assert_true(interp_run(h));
    for (int i = 0; i < n; i++) {
      memcpy(interp_buf(ip, i)->data, interp_buf(h, i)->data, interp_buf(ip, i)->nbytes);
      kept[i] = 1;
    }
    interp_free(h);
    interp_set_kept(ip, kept);
  }
  if (!cg_run_host_interp_cached(&pr.ctx, ip, true, NULL, c)) fail_msg("host: %s", pr.diag);
  for (int i = 0; i < n; i++) {
    InterpBuf *a = interp_buf(ref, i), *b = interp_buf(ip, i);
    if (a->t->role != ROLE_OUT) continue;
    assert_int_equal(a->nbytes, b->nbytes);
    if (memcmp(a->data, b->data, a->nbytes)) fail_msg("'%s' differs from the interpreter's", a->t->name);
  }
  interp_free(ref);
  interp_free(ip);
  free(kept);
  prog_free(&pr);
}

/* Exact counts: a program of three kernels twice (3 misses, then 3 hits),
 * in a context of its own each time (the cache holds no IR); its nests
 * from the second on (2 hits: same kernels, same ids); with the cache
 * off (NULL), nothing counted. */
static void test_counts(void **state) {
  (void)state;
  CgJitCache *c = cg_jit_cache_new(64, (size_t)1 << 20);
  assert_non_null(c);
  check_cached(three, c, 0);
  CgJitCacheStats s = stats(c);
  assert_int_equal(s.misses, 3);
  assert_int_equal(s.hits, 0);
  assert_int_equal(s.entries, 3);
  check_cached(three, c, 0);
  s = stats(c);
  assert_int_equal(s.misses, 3);
  assert_int_equal(s.hits, 3);
  check_cached(three, c, 1);
  s = stats(c);
  assert_int_equal(s.misses, 3);
  assert_int_equal(s.hits, 5);
  check_cached(three, c, 2);
  s = stats(c);
  assert_int_equal(s.hits, 6);
  assert_int_equal(s.entries, 3);
  assert_int_equal(s.evictions, 0);
  check_cached(three, NULL, 0);
  s = stats(c);
  assert_int_equal(s.hits + s.misses, 9);
  cg_jit_cache_free(c);
}

/* The same nest text over X of 4 x 8 and of 4 x 16 (row stride 8 or 16):
 * two kernels, each with its interpreter's bits; X as a %param instead of
 * an %in lowers to the same module (a hit, and the right bits); then both
 * programs again: hits. */
static void test_same_text_other_shapes(void **state) {
  (void)state;
  const char *nest = "L^{4}_{i=0}L^{8}_{j=0}[Y^{f32,g}_{i,j}=X^{f32,g}_{i,j}*2.0+X^{f32,g}_{i,0};];\n";
  char a[512], b[512], e[512];
  snprintf(a, sizeof a, "%%in X : f32[4,8]\n%%out Y : f32[4,8]\n%s", nest);
  snprintf(b, sizeof b, "%%in X : f32[4,16]\n%%out Y : f32[4,8]\n%s", nest);
  snprintf(e, sizeof e, "%%param X : f32[4,16]\n%%out Y : f32[4,8]\n%s", nest);
  CgJitCache *c = cg_jit_cache_new(64, (size_t)1 << 20);
  check_cached(a, c, 0);
  check_cached(b, c, 0);
  CgJitCacheStats s = stats(c);
  assert_int_equal(s.misses, 2);
  assert_int_equal(s.hits, 0);
  check_cached(e, c, 0);
  check_cached(a, c, 0);
  check_cached(b, c, 0);
  s = stats(c);
  assert_int_equal(s.misses, 2);
  assert_int_equal(s.hits, 3);
  cg_jit_cache_free(c);
}

/* Bounds: 2 entries; a program of three kernels holds all three while it
 * lives (nothing evicted under it, its results right), its release
 * evicts down to 2; a key budget smaller than one key keeps nothing once
 * released. */
static void test_eviction(void **state) {
  (void)state;
  CgJitCache *c = cg_jit_cache_new(2, (size_t)1 << 20);
  Prog pr;
  if (!prog_load(&pr, three)) fail_msg("does not load: %s", pr.diag);
  CgOptions o;
  cg_options_init(&o);
  o.target = CG_TARGET_HOST;
  CgHostProgram *hp = cg_host_compile_cached(&pr.ctx, pr.p, &o, c);
  assert_non_null(hp);
  assert_int_equal(stats(c).entries, 3);
  check_cached(three, c, 0); /* 3 hits while hp holds them */
  assert_int_equal(stats(c).hits, 3);
  assert_int_equal(stats(c).entries, 3);
  cg_host_free(hp);
  CgJitCacheStats s = stats(c);
  assert_int_equal(s.entries, 2);
  assert_int_equal(s.evictions, 1);
  check_cached(three, c, 0); /* one miss (the evicted one), 2 hits */
  s = stats(c);
  assert_int_equal(s.misses, 4);
  assert_int_equal(s.hits, 5);
  assert_int_equal(s.entries, 2);
  prog_free(&pr);
  cg_jit_cache_free(c);
  c = cg_jit_cache_new(64, 16);
  check_cached(three, c, 0);
  s = stats(c);
  assert_int_equal(s.entries, 0);
  assert_int_equal(s.bytes, 0);
  assert_int_equal(s.evictions, 3);
  cg_jit_cache_free(c);
}

/* The files of DIR/jit, sorted by name, into names[] (at most 16). */
static int jit_files(const char *dir, char names[][NAME_MAX_LEN]) {
  char jd[NAME_MAX_LEN];
  snprintf(jd, sizeof jd, "%s/jit", dir);
  DIR *d = opendir(jd);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.' && n < 16) snprintf(names[n++], NAME_MAX_LEN, "%s/%s/%s", dir, "jit", e->d_name);
  if (d) closedir(d);
  for (int i = 1; i < n; i++) /* insertion sort */
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char t[NAME_MAX_LEN];
      memcpy(t, names[j], NAME_MAX_LEN);
      memcpy(names[j], names[j - 1], NAME_MAX_LEN);
      memcpy(names[j - 1], t, NAME_MAX_LEN);
    }
  return n;
}

/* The one file of DIR/jit not among old[0..n) (there must be n + 1). */
static void new_file(const char *dir, char old[][NAME_MAX_LEN], int n, char *out) {
  char now[16][NAME_MAX_LEN];
  assert_int_equal(jit_files(dir, now), n + 1);
  int found = 0;
  for (int i = 0; i <= n; i++) {
    bool seen = false;
    for (int j = 0; j < n; j++) seen |= !strcmp(now[i], old[j]);
    if (!seen) found++, memcpy(out, now[i], NAME_MAX_LEN);
  }
  assert_int_equal(found, 1);
}

static void copy_file(const char *from, const char *to) {
  FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
  assert_non_null(f);
  assert_non_null(g);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) fwrite(buf, 1, n, g);
  fclose(f);
  fclose(g);
}

/* Disk: a cache storing writes the three kernels it compiles (nothing
 * without store); a fresh cache reads them (3 from the disk, nothing
 * compiled, the interpreter's bits); the stride-16 program's kernel is not
 * the stride-8 one's (compiled, a file of its own); its file overwritten
 * with the stride-8 kernel's, a fresh cache compiles it again (the key
 * differs) and gets the right bits, and still reads the stride-8 one; a
 * file cut short is compiled again too. */
static void test_disk(void **state) {
  (void)state;
  const char *top = getenv("top_builddir");
  char dir[512], names[16][NAME_MAX_LEN], again[16][NAME_MAX_LEN];
  snprintf(dir, sizeof dir, "%s/testsuite", top && *top ? top : ".");
  mkdir(dir, 0777);
  snprintf(dir, sizeof dir, "%s/testsuite/scratch", top && *top ? top : ".");
  mkdir(dir, 0777);
  snprintf(dir, sizeof dir, "%s/testsuite/scratch/jitcache_test.XXXXXX", top && *top ? top : ".");
  assert_non_null(mkdtemp(dir));
  CgJitCache *c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  check_cached(three, c, 0); /* not stored */
  assert_int_equal(jit_files(dir, names), 0);
  cg_jit_cache_free(c);
  c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  cg_jit_cache_set_store(c, true);
  check_cached(three, c, 0);
  CgJitCacheStats s = stats(c);
  assert_int_equal(s.misses, 3);
  assert_int_equal(s.stored, 3);
  assert_int_equal(jit_files(dir, names), 3);
  cg_jit_cache_free(c);

  c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  check_cached(three, c, 0);
  check_cached(three, c, 1);
  s = stats(c);
  assert_int_equal(s.disk_hits, 3);
  assert_int_equal(s.misses, 0);
  assert_int_equal(s.hits, 2);
  cg_jit_cache_free(c);

  const char *nest = "L^{4}_{i=0}L^{8}_{j=0}[Y^{f32,g}_{i,j}=X^{f32,g}_{i,j}*2.0+X^{f32,g}_{i,0};];\n";
  char a[512], b[512];
  snprintf(a, sizeof a, "%%in X : f32[4,8]\n%%out Y : f32[4,8]\n%s", nest);
  snprintf(b, sizeof b, "%%in X : f32[4,16]\n%%out Y : f32[4,8]\n%s", nest);
  c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  cg_jit_cache_set_store(c, true);
  check_cached(a, c, 0);
  char fa[NAME_MAX_LEN], fb[NAME_MAX_LEN];
  new_file(dir, names, 3, fa);
  memcpy(names[3], fa, NAME_MAX_LEN);
  check_cached(b, c, 0);
  new_file(dir, names, 4, fb);
  memcpy(names[4], fb, NAME_MAX_LEN);
  s = stats(c);
  assert_int_equal(s.misses, 2);
  assert_int_equal(s.disk_hits, 0);
  cg_jit_cache_free(c);
  /* b's file overwritten with a's kernel: b is compiled again */
  copy_file(fa, fb);
  c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  check_cached(b, c, 0);
  s = stats(c);
  assert_int_equal(s.disk_hits, 0);
  assert_int_equal(s.misses, 1);
  check_cached(a, c, 0);
  assert_int_equal(stats(c).disk_hits, 1);
  cg_jit_cache_free(c);
  /* a file cut short: compiled again */
  assert_int_equal(truncate(names[0], 100), 0);
  c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  check_cached(three, c, 0);
  s = stats(c);
  assert_int_equal(s.disk_hits, 2);
  assert_int_equal(s.misses, 1);
  cg_jit_cache_free(c);

  int n = jit_files(dir, again);
  assert_int_equal(n, 5); /* no .tmp left */
  for (int i = 0; i < n; i++) remove(again[i]);
  char jd[NAME_MAX_LEN];
  snprintf(jd, sizeof jd, "%s/jit", dir);
  assert_int_equal(rmdir(jd), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* LEIRC_HOST_CPU=znver3 (codegen/host.c): the same kernels made for
 * another CPU are other entries, in memory (3 misses more in the same
 * cache: the key names the CPU) and on disk (3 files more; a cache of each
 * CPU then finds its own 3).  Without the CPU in the keys, the second run
 * hits the first's code.  Needs AVX2 and FMA (else skipped). */
static void test_host_cpu(void **state) {
  (void)state;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) skip();
#else
  skip();
#endif
  const char *top = getenv("top_builddir");
  char dir[512], names[16][NAME_MAX_LEN];
  snprintf(dir, sizeof dir, "%s/testsuite/scratch", top && *top ? top : ".");
  mkdir(dir, 0777);
  snprintf(dir, sizeof dir, "%s/testsuite/scratch/jitcache_cpu.XXXXXX", top && *top ? top : ".");
  assert_non_null(mkdtemp(dir));
  unsetenv("LEIRC_HOST_CPU");
  CgJitCache *c = cg_jit_cache_new(64, (size_t)1 << 20);
  cg_jit_cache_set_dir(c, dir);
  cg_jit_cache_set_store(c, true);
  check_cached(three, c, 0);
  assert_int_equal(stats(c).misses, 3);
  setenv("LEIRC_HOST_CPU", "znver3", 1);
  check_cached(three, c, 0);
  CgJitCacheStats s = stats(c);
  assert_int_equal(s.misses, 6);
  assert_int_equal(s.hits, 0);
  cg_jit_cache_free(c);
  assert_int_equal(jit_files(dir, names), 6);
  for (int k = 0; k < 2; k++) { /* znver3, then the host's: each its own files */
    c = cg_jit_cache_new(64, (size_t)1 << 20);
    cg_jit_cache_set_dir(c, dir);
    check_cached(three, c, 0);
    s = stats(c);
    assert_int_equal(s.disk_hits, 3);
    assert_int_equal(s.misses, 0);
    cg_jit_cache_free(c);
    unsetenv("LEIRC_HOST_CPU");
  }
  int n = jit_files(dir, names);
  for (int i = 0; i < n; i++) remove(names[i]);
  char jd[NAME_MAX_LEN];
  snprintf(jd, sizeof jd, "%s/jit", dir);
  assert_int_equal(rmdir(jd), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* Teardown with 47 entries alive: freeing the cache must remove every
 * entry's code before releasing its tracker.  A tracker released with its
 * code is transferred to the JITDylib's default tracker, and LLVM 19's
 * ObjectLinkingLayer::handleTransferResources then reads the source's
 * entry of its DenseMap after inserting the default tracker's key, which
 * grows the map from 64 to 128 buckets when it holds 47 trackers (95, 191:
 * the next sizes): a read of freed memory inside libLLVM, which valgrind
 * reports every time (`valgrind -q testsuite/unit/jitcache_test` through
 * libtool --mode=execute: "Invalid read of size 8" without the fix); ASan
 * does not see it (libLLVM is not instrumented), and a plain build throws
 * std::length_error only where that entry is the map's bucket 0, which
 * malloc's free-list pointers overwrite -- the intermittent crash of
 * `--emit-steps -j 2` on softmax.leir (95 kernels) at leir_ctx_free.  Each
 * kernel is a program of its own, Y = X * (k + 1), checked against the
 * interpreter. */
static void test_teardown(void **state) {
  (void)state;
  enum { K = 47 };
  CgJitCache *c = cg_jit_cache_new(256, (size_t)64 << 20);
  assert_non_null(c);
  for (int k = 0; k < K; k++) {
    char text[256];
    snprintf(text, sizeof text, "%%in X : f32[4]\n%%out Y : f32[4]\nL^{4}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{i}*%d.0;];\n",
             k + 1);
    check_cached(text, c, 0);
  }
  CgJitCacheStats s = stats(c);
  assert_int_equal(s.entries, K);
  assert_int_equal(s.misses, K);
  assert_int_equal(s.evictions, 0);
  cg_jit_cache_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts),
      cmocka_unit_test(test_same_text_other_shapes),
      cmocka_unit_test(test_eviction),
      cmocka_unit_test(test_disk),
      cmocka_unit_test(test_host_cpu),
      cmocka_unit_test(test_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
