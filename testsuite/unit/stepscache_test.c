/* stepscache_test.c -- driver/steps_cache.c: the verdict memo of
 * `leirc --emit-steps` and --steps-cache=DIR (issue 61).
 *
 * test_memo: a key is found again from the same canonical text parsed
 * afresh (a hit), not from another program, seed or class (misses).
 * test_disk: the outputs of a run stored and loaded back are the run's
 * bytes; another seed, tag or program misses, and so does an entry whose
 * file holds another key (a hash collision) or is cut short; a
 * deliberately wrong candidate compared against the cached outputs still
 * differs and a right one is still equal.
 * test_outs: the in-memory outputs of --eval's worker (StepsOuts): a hit
 * gives the stored run's bytes; two programs that differ only in a
 * constant, another seed or engine tag miss; at most STEPS_OUTS_MAX
 * entries are kept, the least recently used going first; a key already
 * kept is not stored twice.
 * test_tmps: an entry, on disk and in memory, keeps the intermediates
 * within STEPS_CACHE_TMP_BYTES, else the outputs only, and says which.
 * test_tmps_live: over that, an entry on disk keeps the intermediates
 * that a mask marks (drv_incr_keep_tmps'), each with its bytes, and says
 * which (known); opened lazily (steps_cache_open), its intermediates are
 * read only when fetched, those asked for.
 * test_fetch_fails: an entry whose last intermediate's bytes are cut
 * short, on disk before it is opened (1 byte, or all of them) or by
 * another process while it is open: the eager load misses, the lazy open
 * hits (its outputs read, its intermediates known), fetching what lies
 * before the cut reads it and fetching the cut one is false, leaving it
 * unread (its place kept) and nothing else touched, every time it is
 * asked; the big one (Q) is mapped from a page boundary; cut into the
 * output's bytes or before them, the entry does not open.  (Under
 * valgrind or ASan: no read or write out of bounds.)
 * test_mapped: an output of STEPS_CACHE_MAP_BYTES or more is mapped
 * (64-byte aligned, the run's bytes); written, the mapping changes and
 * the entry does not (a later load gives the run's bytes); an entry 1 byte
 * short or long misses, eagerly and lazily, and maps nothing.
 * test_uninit: interp_new_uninit leaves what dirty_ok marks unzeroed
 * (poisoned when asked) and zeroes the rest; a run on it gives a fresh
 * run's bytes.
 * test_pool: interp_new_pooled takes the buffers a freed program gave
 * back where the sizes agree (zeroed: the same outputs as fresh ones) and
 * allocates the others.
 * test_pool_dirty: InterpBufPool.dirty_ok and max_bytes (--emit-steps'
 * worker pool): a buffer of a tensor the host JIT writes before reading
 * (cg_written_first) is taken with its old bytes, the others zeroed; the
 * host JIT run without zeroing (cg_run_host_interp_zeroed) then gives the
 * bytes of the interpreter's run on fresh buffers, and taking a buffer
 * that is not written first unzeroed gives other bytes (the rule matters);
 * the pool keeps at most max_bytes, the oldest going first.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "driver/steps_cache.h"
#include "interp/check.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "testsuite/unit/unit_prog.h"

static const char rowsum[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                             "L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{a}=D^{f32,g}_{a}+A^{f32,g}_{a,c};];\n";
/* the same sums, the operands of + swapped (bit-equal: + commutes) */
static const char rowsum_swapped[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                                     "L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{a}=A^{f32,g}_{a,c}+D^{f32,g}_{a};];\n";
/* a wrong step: every term doubled */
static const char rowsum_wrong[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                                   "L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{a}=D^{f32,g}_{a}+2.0*A^{f32,g}_{a,c};];\n";

static void key_of(StepsKey *k, const char *text, uint64_t seed, const char *tag) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  assert_true(steps_key(k, pr.p, seed, tag, false, false));
  prog_free(&pr);
}

/* dir: a new folder NAME.XXXXXX under $top_builddir/testsuite/scratch */
static void scratch_dir(char *dir, size_t n, const char *name) {
  const char *top = getenv("top_builddir");
  snprintf(dir, n, "%s/testsuite/scratch/%s.XXXXXX", top && *top ? top : ".", name);
  assert_non_null(mkdtemp(dir));
}

static void test_memo(void **state) {
  (void)state;
  StepsMemo m = {0};
  StepsKey k, again, other, seed1, cls;
  key_of(&k, rowsum, 0, "E");
  key_of(&again, rowsum, 0, "E");
  key_of(&other, rowsum_wrong, 0, "E");
  key_of(&seed1, rowsum, 1, "E");
  key_of(&cls, rowsum, 0, "T");
  assert_null(steps_memo_find(&m, &k)); /* miss: empty */
  assert_true(steps_memo_add(&m, &k, 1, "bit-equal on seed 0"));
  assert_null(k.text); /* taken over */
  const StepsMemoEnt *e = steps_memo_find(&m, &again);
  assert_non_null(e);
  assert_int_equal(e->verdict, 1);
  assert_string_equal(e->text, "bit-equal on seed 0");
  assert_null(steps_memo_find(&m, &other));
  assert_null(steps_memo_find(&m, &seed1));
  assert_null(steps_memo_find(&m, &cls));
  assert_int_equal(m.hits, 1);
  assert_int_equal(m.misses, 4);
  assert_true(steps_memo_add(&m, &other, -1, "failed"));
  e = steps_memo_find(&m, &(StepsKey){0});
  assert_null(e);
  steps_key_free(&again);
  steps_key_free(&seed1);
  steps_key_free(&cls);
  steps_memo_free(&m);
}

/* The program of `text` with the inputs of seed 0; run when `run`. */
static InterpProg *made(Prog *pr, const char *text, bool run) {
  assert_true(prog_load(pr, text));
  InterpProg *ip = interp_new(&pr->ctx, pr->p, NULL);
  assert_non_null(ip);
  interp_random_inputs(ip, 0, NULL);
  if (run) assert_true(interp_run(ip));
  return ip;
}

static void copy_file(const char *from, const char *to, long cut) {
  FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
  assert_non_null(f);
  assert_non_null(g);
  char buf[4096];
  size_t n, total = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) total += n, fwrite(buf, 1, n, g);
  fclose(f);
  fclose(g);
  if (cut > 0) assert_int_equal(truncate(to, (off_t)(total - (size_t)cut)), 0);
}

static void test_disk(void **state) {
  (void)state;
  /* under the build tree's testsuite/scratch (make check runs the unit
     tests in the build tree) */
  const char *top = getenv("top_builddir");
  char dir[512], p1[600], p2[600];
  snprintf(dir, sizeof dir, "%s/testsuite", top && *top ? top : ".");
  mkdir(dir, 0777);
  snprintf(dir, sizeof dir, "%s/testsuite/scratch", top && *top ? top : ".");
  mkdir(dir, 0777);
  snprintf(dir, sizeof dir, "%s/testsuite/scratch/stepscache_test.XXXXXX", top && *top ? top : ".");
  assert_non_null(mkdtemp(dir));

  Prog pa, pb, pc, pw, pg;
  InterpProg *a = made(&pa, rowsum, true);
  StepsKey k, seed1, tag, other;
  assert_true(steps_key(&k, pa.p, 0, "before; interpreter", false, false));
  assert_true(steps_key(&seed1, pa.p, 1, "before; interpreter", false, false));
  assert_true(steps_key(&tag, pa.p, 0, "before; host JIT", false, false));
  key_of(&other, rowsum_wrong, 0, "before; interpreter");

  InterpProg *b = made(&pb, rowsum, false);
  assert_false(steps_cache_load(dir, &k, b, NULL, NULL)); /* miss: nothing stored */
  assert_true(steps_cache_store(dir, &k, a, NULL));
  InterpBuf *x = interp_find(a, "D"), *y = interp_find(b, "D");
  memset(y->data, 0x55, y->nbytes);
  assert_true(steps_cache_load(dir, &k, b, NULL, NULL)); /* hit */
  assert_memory_equal(x->data, y->data, x->nbytes);
  assert_false(steps_cache_load(dir, &seed1, b, NULL, NULL));
  assert_false(steps_cache_load(dir, &tag, b, NULL, NULL));
  assert_false(steps_cache_load(dir, &other, b, NULL, NULL));

  /* a file of another key under this key's name (a collision), and an
     entry cut short: misses */
  snprintf(p1, sizeof p1, "%s/%016llx.out", dir, (unsigned long long)k.hash);
  snprintf(p2, sizeof p2, "%s/%016llx.out", dir, (unsigned long long)seed1.hash);
  copy_file(p1, p2, 0);
  assert_false(steps_cache_load(dir, &seed1, b, NULL, NULL));
  copy_file(p1, p2, 1);
  assert_true(steps_cache_store(dir, &seed1, a, NULL) && steps_cache_load(dir, &seed1, b, NULL, NULL));
  StepsKey cut = {0};
  assert_true(steps_key(&cut, pa.p, 2, "before; interpreter", false, false));
  snprintf(p2, sizeof p2, "%s/%016llx.out", dir, (unsigned long long)cut.hash);
  copy_file(p1, p2, 1);
  assert_false(steps_cache_load(dir, &cut, b, NULL, NULL));
  remove(p2);

  /* candidates against the cached outputs (b): the wrong one differs, the
     right one is bit-equal */
  assert_true(steps_cache_load(dir, &k, b, NULL, NULL));
  InterpDiff d;
  InterpProg *w = made(&pw, rowsum_wrong, false);
  assert_int_equal(interp_compare_ran(b, w, 0, CMP_EXACT, &d), 0);
  assert_int_equal(d.verdict, CMP_DIFFER);
  InterpProg *g = made(&pg, rowsum_swapped, false);
  assert_int_equal(interp_compare_ran(b, g, 0, CMP_EXACT, &d), 0);
  assert_int_equal(d.verdict, CMP_EQUAL);
  /* and a wrong entry (the wrong program's outputs under the right key)
     is believed: the key is what makes an entry right */
  Prog pc2;
  InterpProg *c = made(&pc, rowsum_wrong, true), *r = made(&pc2, rowsum, false);
  assert_true(steps_cache_store(dir, &k, c, NULL));
  assert_true(steps_cache_load(dir, &k, b, NULL, NULL));
  assert_int_equal(interp_compare_ran(b, r, 0, CMP_EXACT, &d), 0);
  assert_int_equal(d.verdict, CMP_DIFFER);

  remove(p1);
  snprintf(p2, sizeof p2, "%s/%016llx.out", dir, (unsigned long long)seed1.hash);
  remove(p2);
  assert_int_equal(rmdir(dir), 0); /* nothing else (no .tmp) left */
  steps_key_free(&k);
  steps_key_free(&seed1);
  steps_key_free(&tag);
  steps_key_free(&other);
  steps_key_free(&cut);
  interp_free(a);
  interp_free(b);
  interp_free(c);
  interp_free(w);
  interp_free(g);
  interp_free(r);
  prog_free(&pa);
  prog_free(&pb);
  prog_free(&pc);
  prog_free(&pw);
  prog_free(&pg);
  prog_free(&pc2);
}

/* An entry keeps the intermediates within STEPS_CACHE_TMP_BYTES: a small
 * one comes back with them (*tmps true, their bytes), one over the limit
 * with its outputs only (*tmps false). */
static const char with_tmp[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                               "L^{4}_{a=0}L^{6}_{c=0}[T^{f32,g}_{a}=T^{f32,g}_{a}+A^{f32,g}_{a,c};];\n"
                               "L^{4}_{a=0}[D^{f32,g}_{a}=T^{f32,g}_{a}*2.0;];\n";
static const char big_tmp[] = "%in    A : f64[4]\n%out   D : f64[4]\n"
                              "L^{8388609}_{i=0}[Z^{f64,g}_{i}=A^{f64,g}_{0};];\n"
                              "L^{4}_{a=0}[D^{f64,g}_{a}=Z^{f64,g}_{a}+A^{f64,g}_{a};];\n";

static void test_tmps(void **state) {
  (void)state;
  char dir[512];
  scratch_dir(dir, sizeof dir, "stepscache_tmps");
  Prog pa, pb, pc, pd;
  InterpProg *a = made(&pa, with_tmp, true), *b = made(&pb, with_tmp, false);
  StepsKey k, kb;
  assert_true(steps_key(&k, pa.p, 0, "before; interpreter", false, false));
  assert_true(steps_cache_store(dir, &k, a, NULL));
  bool tmps = false;
  assert_true(steps_cache_load(dir, &k, b, &tmps, NULL));
  assert_true(tmps);
  assert_memory_equal(interp_find(a, "T")->data, interp_find(b, "T")->data, interp_find(a, "T")->nbytes);
  assert_memory_equal(interp_find(a, "D")->data, interp_find(b, "D")->data, interp_find(a, "D")->nbytes);
  /* the intermediate (8388609 f64, over 64 MiB) not stored: not run, its
     output set by hand */
  InterpProg *c = made(&pc, big_tmp, false), *d = made(&pd, big_tmp, false);
  assert_true(interp_find(c, "Z")->nbytes > STEPS_CACHE_TMP_BYTES);
  memset(interp_find(c, "D")->data, 0x3c, interp_find(c, "D")->nbytes);
  memset(interp_find(c, "Z")->data, 0x11, 64);
  assert_true(steps_key(&kb, pc.p, 0, "before; interpreter", false, false));
  assert_true(steps_cache_store(dir, &kb, c, NULL));
  tmps = true;
  assert_true(steps_cache_load(dir, &kb, d, &tmps, NULL));
  assert_false(tmps);
  assert_memory_equal(interp_find(c, "D")->data, interp_find(d, "D")->data, interp_find(c, "D")->nbytes);
  assert_int_equal(((unsigned char *)interp_find(d, "Z")->data)[0], 0);
  /* the same rule in memory (StepsOuts, --eval's worker) */
  StepsOuts o = {0};
  StepsKey k2, kb2;
  assert_true(steps_key(&k2, pa.p, 0, "before; interpreter", false, false));
  assert_true(steps_key(&kb2, pc.p, 0, "before; interpreter", false, false));
  steps_outs_store(&o, &k2, a);
  steps_outs_store(&o, &kb2, c);
  memset(interp_find(b, "T")->data, 0, interp_find(b, "T")->nbytes);
  tmps = false;
  assert_true(steps_outs_load(&o, &k, b, &tmps));
  assert_true(tmps);
  assert_memory_equal(interp_find(a, "T")->data, interp_find(b, "T")->data, interp_find(a, "T")->nbytes);
  tmps = true;
  assert_true(steps_outs_load(&o, &kb, d, &tmps));
  assert_false(tmps);
  assert_int_equal(o.v[0].nbytes + o.v[1].nbytes, interp_find(a, "D")->nbytes + interp_find(a, "T")->nbytes +
                                                      interp_find(c, "D")->nbytes);
  steps_outs_free(&o);
  char p[600];
  snprintf(p, sizeof p, "%s/%016llx.out", dir, (unsigned long long)k.hash);
  remove(p);
  snprintf(p, sizeof p, "%s/%016llx.out", dir, (unsigned long long)kb.hash);
  remove(p);
  assert_int_equal(rmdir(dir), 0);
  steps_key_free(&k);
  steps_key_free(&kb);
  interp_free(a);
  interp_free(b);
  interp_free(c);
  interp_free(d);
  prog_free(&pa);
  prog_free(&pb);
  prog_free(&pc);
  prog_free(&pd);
}

/* Intermediates over STEPS_CACHE_TMP_BYTES in all, kept per tensor: Z
 * (over 64 MiB) and Y are marked (read by a later nest), X (over 64 MiB,
 * read by none) not.  An entry stored with the mask holds Z and Y with their
 * bytes, not X (its buffer left untouched), and says so (*tmps false,
 * known Z and Y only); stored without it, no intermediate. */
static const char live_tmps[] = "%in    A : f64[4]\n%out   D : f64[4]\n"
                                "L^{8388609}_{i=0}[Z^{f64,g}_{i}=A^{f64,g}_{0};];\n"
                                "L^{8388609}_{i=0}[X^{f64,g}_{i}=A^{f64,g}_{1};];\n"
                                "L^{4}_{a=0}[Y^{f64,g}_{a}=A^{f64,g}_{a}*3.0;];\n"
                                "L^{4}_{a=0}[D^{f64,g}_{a}=Z^{f64,g}_{a}+Y^{f64,g}_{a};];\n";

static void test_tmps_live(void **state) {
  (void)state;
  char dir[512], names[64];
  scratch_dir(dir, sizeof dir, "stepscache_live");
  Prog pa, pb;
  InterpProg *a = made(&pa, live_tmps, true), *b = made(&pb, live_tmps, false);
  int n = interp_ntensors(a);
  unsigned char live[16] = {0}, known[16];
  assert_true(n <= 16);
  live[interp_find(a, "Z")->t->id] = live[interp_find(a, "Y")->t->id] = 1;
  StepsKey k;
  assert_true(steps_key(&k, pa.p, 0, "before; interpreter", false, false));
  assert_true(steps_cache_store(dir, &k, a, live));
  bool tmps = true;
  memset(known, 9, sizeof known);
  assert_true(steps_cache_load(dir, &k, b, &tmps, known));
  assert_false(tmps);
  names[0] = 0;
  for (int i = 0; i < n; i++)
    if (known[i]) strcat(strcat(names, " "), interp_buf(b, i)->t->name);
  assert_string_equal(names, " Z Y");
  const char *held[] = {"D", "Z", "Y"};
  for (int i = 0; i < 3; i++)
    assert_memory_equal(interp_find(a, held[i])->data, interp_find(b, held[i])->data, interp_find(a, held[i])->nbytes);
  assert_true(((double *)interp_find(a, "X")->data)[0] != 0); /* X ran, but was not stored */
  assert_true(((double *)interp_find(b, "X")->data)[0] == 0);
  /* opened lazily: the outputs read, the intermediates when fetched (Z
     only, then Y), each once */
  Prog pc;
  InterpProg *c = made(&pc, live_tmps, false);
  StepsEntry e;
  memset(known, 9, sizeof known);
  assert_true(steps_cache_open(dir, &k, c, &tmps, known, &e));
  assert_true(e.open);
  names[0] = 0;
  for (int i = 0; i < n; i++)
    if (known[i]) strcat(strcat(names, " "), interp_buf(c, i)->t->name);
  assert_string_equal(names, " Z Y");
  assert_memory_equal(interp_find(a, "D")->data, interp_find(c, "D")->data, interp_find(a, "D")->nbytes);
  assert_true(((double *)interp_find(c, "Z")->data)[0] == 0 && ((double *)interp_find(c, "Y")->data)[0] == 0);
  unsigned char want[16] = {0};
  want[interp_find(c, "Z")->t->id] = want[interp_find(c, "X")->t->id] = 1;
  assert_true(steps_cache_fetch(&e, c, want));
  assert_memory_equal(interp_find(a, "Z")->data, interp_find(c, "Z")->data, interp_find(a, "Z")->nbytes);
  assert_true(((double *)interp_find(c, "Y")->data)[0] == 0 && ((double *)interp_find(c, "X")->data)[0] == 0);
  assert_int_equal(e.off[interp_find(c, "Z")->t->id], -1);
  assert_true(e.off[interp_find(c, "Y")->t->id] > 0);
  memset(want, 1, sizeof want);
  assert_true(steps_cache_fetch(&e, c, want));
  assert_memory_equal(interp_find(a, "Y")->data, interp_find(c, "Y")->data, interp_find(a, "Y")->nbytes);
  assert_true(((double *)interp_find(c, "X")->data)[0] == 0);
  steps_cache_close(&e);
  assert_false(e.open);
  interp_free(c);
  prog_free(&pc);
  /* without the mask: the outputs only */
  memset(interp_find(b, "Z")->data, 0, interp_find(b, "Z")->nbytes);
  assert_true(steps_cache_store(dir, &k, a, NULL));
  assert_true(steps_cache_load(dir, &k, b, &tmps, known));
  assert_false(tmps);
  for (int i = 0; i < n; i++) assert_int_equal(known[i], 0);
  assert_int_equal(((unsigned char *)interp_find(b, "Z")->data)[3], 0);
  assert_memory_equal(interp_find(a, "D")->data, interp_find(b, "D")->data, interp_find(a, "D")->nbytes);
  char p[600];
  snprintf(p, sizeof p, "%s/%016llx.out", dir, (unsigned long long)k.hash);
  remove(p);
  assert_int_equal(rmdir(dir), 0);
  steps_key_free(&k);
  interp_free(a);
  interp_free(b);
  prog_free(&pa);
  prog_free(&pb);
}

/* T (4 f32) then Q (65536 f32: far more than a stdio buffer, so that its
 * bytes are read from the file when fetched), the entry's last tensor */
static const char cut_tmps[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                               "L^{4}_{a=0}L^{6}_{c=0}[T^{f32,g}_{a}=T^{f32,g}_{a}+A^{f32,g}_{a,c};];\n"
                               "L^{65536}_{i=0}[Q^{f32,g}_{i}=A^{f32,g}_{0,0}*2.0;];\n"
                               "L^{4}_{a=0}[D^{f32,g}_{a}=T^{f32,g}_{a}*Q^{f32,g}_{a};];\n";

/* A fresh program of cut_tmps with its output and intermediates 0x5a
 * bytes: what a read leaves untouched is seen. */
static InterpProg *marked(Prog *pr) {
  InterpProg *c = made(pr, cut_tmps, false);
  const char *names[] = {"D", "T", "Q"};
  for (int i = 0; i < 3; i++) memset(interp_find(c, names[i])->data, 0x5a, interp_find(c, names[i])->nbytes);
  return c;
}

static bool all_bytes(const InterpBuf *b, unsigned char v) {
  for (size_t i = 0; i < b->nbytes; i++)
    if (((const unsigned char *)b->data)[i] != v) return false;
  return true;
}

static void test_fetch_fails(void **state) {
  (void)state;
  char dir[512], p[600], names[64];
  scratch_dir(dir, sizeof dir, "stepscache_cut");
  Prog pa, pb, p1, p2, p3, p4;
  InterpProg *a = made(&pa, cut_tmps, true), *b = made(&pb, cut_tmps, false);
  InterpBuf *ad = interp_find(a, "D"), *at = interp_find(a, "T"), *au = interp_find(a, "Q");
  int n = interp_ntensors(a), tt = at->t->id, tq = au->t->id;
  assert_true(n <= 16 && tq == n - 1); /* Q's bytes end the entry */
  StepsKey k;
  assert_true(steps_key(&k, pa.p, 0, "before; interpreter", false, false));
  assert_true(steps_cache_store(dir, &k, a, NULL));
  snprintf(p, sizeof p, "%s/%016llx.out", dir, (unsigned long long)k.hash);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  off_t size = st.st_size;
  unsigned char known[16], want[16] = {0};
  bool tmps = false;

  /* the whole entry opened, then cut 1 byte short in place (another
     process): T, before the cut, is read; Q is not, each time asked */
  InterpProg *c1 = marked(&p1);
  StepsEntry e1;
  assert_true(steps_cache_open(dir, &k, c1, &tmps, known, &e1));
  assert_int_equal(truncate(p, size - 1), 0);
  want[tt] = 1;
  assert_true(steps_cache_fetch(&e1, c1, want));
  assert_memory_equal(at->data, interp_find(c1, "T")->data, at->nbytes);
  assert_int_equal(e1.off[tt], -1);
  want[tq] = 1;
  for (int i = 0; i < 2; i++) {
    assert_false(steps_cache_fetch(&e1, c1, want));
    assert_true(e1.off[tq] > 0); /* unread: still in the entry */
    assert_int_equal(e1.off[tt], -1);
    assert_memory_equal(ad->data, interp_find(c1, "D")->data, ad->nbytes);
    assert_memory_equal(at->data, interp_find(c1, "T")->data, at->nbytes);
  }
  steps_cache_close(&e1);
  assert_false(e1.open);

  /* cut before it is opened, 1 byte and all of Q's bytes short: the
     eager load misses, the lazy open hits (D read, T and Q known, not read
     yet), T is read and Q is not */
  for (int round = 0; round < 2; round++) {
    off_t cut = round ? (off_t)au->nbytes : 1;
    assert_int_equal(truncate(p, size - cut), 0);
    assert_false(steps_cache_load(dir, &k, b, &tmps, known));
    InterpProg *c2 = marked(&p2);
    StepsEntry e2;
    memset(known, 9, sizeof known);
    tmps = false;
    assert_true(steps_cache_open(dir, &k, c2, &tmps, known, &e2));
    assert_true(tmps);
    names[0] = 0;
    for (int i = 0; i < n; i++)
      if (known[i]) strcat(strcat(names, " "), interp_buf(c2, i)->t->name);
    assert_string_equal(names, " T Q");
    assert_memory_equal(ad->data, interp_find(c2, "D")->data, ad->nbytes);
    assert_true(all_bytes(interp_find(c2, "T"), 0x5a) && all_bytes(interp_find(c2, "Q"), 0x5a));
    memset(want, 1, sizeof want);
    assert_false(steps_cache_fetch(&e2, c2, want));
    assert_memory_equal(at->data, interp_find(c2, "T")->data, at->nbytes);
    assert_int_equal(e2.off[tt], -1);
    assert_true(e2.off[tq] > 0);
    if (round) assert_true(all_bytes(interp_find(c2, "Q"), 0x5a)); /* none of its bytes there */
    assert_false(steps_cache_fetch(&e2, c2, want));
    steps_cache_close(&e2);
    interp_free(c2);
    prog_free(&p2);
  }

  /* Q is mapped (STEPS_CACHE_MAP_BYTES) from a page boundary, T read */
  assert_true(au->nbytes >= STEPS_CACHE_MAP_BYTES && at->nbytes < STEPS_CACHE_MAP_BYTES);
  assert_true(steps_cache_store(dir, &k, a, NULL)); /* whole again */
  InterpProg *c4 = marked(&p4);
  StepsEntry e4;
  assert_true(steps_cache_open(dir, &k, c4, &tmps, known, &e4));
  assert_int_equal(e4.off[tq] % 4096, 0);
  memset(want, 1, sizeof want);
  assert_true(steps_cache_fetch(&e4, c4, want));
  assert_true(interp_find(c4, "Q")->mapped && !interp_find(c4, "T")->mapped);
  assert_memory_equal(au->data, interp_find(c4, "Q")->data, au->nbytes);
  steps_cache_close(&e4);
  interp_free(c4);
  prog_free(&p4);

  /* cut into D's bytes (the output, read when opened) or the size table
     before it: the entry does not open (a miss: the before runs) */
  FILE *fp = fopen(p, "rb");
  unsigned char *whole = malloc((size_t)size);
  assert_true(fp && whole && fread(whole, 1, (size_t)size, fp) == (size_t)size);
  fclose(fp);
  const unsigned char *dat = NULL;
  for (off_t i = 0; !dat && i + (off_t)ad->nbytes <= size; i++)
    if (!memcmp(whole + i, ad->data, ad->nbytes)) dat = whole + i;
  assert_non_null(dat);
  off_t dend = (off_t)(dat - whole) + (off_t)ad->nbytes;
  free(whole);
  InterpProg *c3 = marked(&p3);
  StepsEntry e3;
  for (int round = 0; round < 2; round++) {
    assert_int_equal(truncate(p, round ? dend - (off_t)ad->nbytes - 1 : dend - 1), 0);
    assert_false(steps_cache_open(dir, &k, c3, &tmps, known, &e3));
    assert_false(e3.open);
    assert_null(e3.off);
  }

  remove(p);
  assert_int_equal(rmdir(dir), 0);
  steps_key_free(&k);
  interp_free(a);
  interp_free(b);
  interp_free(c1);
  interp_free(c3);
  prog_free(&pa);
  prog_free(&pb);
  prog_free(&p1);
  prog_free(&p3);
}

/* An output of STEPS_CACHE_MAP_BYTES and more: mapped. */
static const char big_out[] = "%in    A : f32[4,6]\n%out   D : f32[65536]\n"
                              "L^{65536}_{i=0}[D^{f32,g}_{i}=A^{f32,g}_{1,2}*3.0;];\n";

static void test_mapped(void **state) {
  (void)state;
  char dir[512], p[600];
  scratch_dir(dir, sizeof dir, "stepscache_map");
  Prog pa, pb, pc;
  InterpProg *a = made(&pa, big_out, true), *b = made(&pb, big_out, false), *c = made(&pc, big_out, false);
  InterpBuf *x = interp_find(a, "D"), *y = interp_find(b, "D"), *z = interp_find(c, "D");
  assert_true(x->nbytes >= STEPS_CACHE_MAP_BYTES);
  StepsKey k;
  assert_true(steps_key(&k, pa.p, 0, "before; interpreter", false, false));
  assert_true(steps_cache_store(dir, &k, a, NULL));
  assert_true(steps_cache_load(dir, &k, b, NULL, NULL));
  assert_true(y->mapped && !x->mapped);
  assert_int_equal((uintptr_t)y->data % 64, 0);
  assert_memory_equal(x->data, y->data, x->nbytes);
  /* written: b's copy changes, not the entry (copy on write); b's run
     writes the mapping (its compiled code follows the buffer) */
  memset(y->data, 0x11, y->nbytes);
  assert_true(interp_run(b));
  assert_memory_equal(x->data, y->data, x->nbytes);
  memset(y->data, 0x11, y->nbytes);
  assert_true(steps_cache_load(dir, &k, c, NULL, NULL));
  assert_memory_equal(x->data, z->data, x->nbytes);
  /* mapped again over a mapped buffer (the old mapping goes) */
  assert_true(steps_cache_load(dir, &k, c, NULL, NULL));
  assert_memory_equal(x->data, z->data, x->nbytes);
  /* an entry cut 1 byte short, or 1 byte longer, misses, eagerly or
     lazily: its output is never mapped past the file's end */
  snprintf(p, sizeof p, "%s/%016llx.out", dir, (unsigned long long)k.hash);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  Prog pd;
  InterpProg *d = made(&pd, big_out, false);
  StepsEntry e;
  for (int round = 0; round < 2; round++) {
    assert_int_equal(truncate(p, st.st_size + (round ? 1 : -1)), 0);
    assert_false(steps_cache_load(dir, &k, d, NULL, NULL));
    assert_false(steps_cache_open(dir, &k, d, NULL, NULL, &e));
    assert_false(interp_find(d, "D")->mapped);
  }
  remove(p);
  assert_int_equal(rmdir(dir), 0);
  steps_key_free(&k);
  interp_free(a);
  interp_free(b);
  interp_free(c);
  interp_free(d);
  prog_free(&pa);
  prog_free(&pb);
  prog_free(&pc);
  prog_free(&pd);
}

/* rowsum with every term scaled by 3.0 or 3.5: programs that differ only
 * in a constant */
static const char rowsum3[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                              "L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{a}=D^{f32,g}_{a}+3.0*A^{f32,g}_{a,c};];\n";
static const char rowsum35[] = "%in    A : f32[4,6]\n%out   D : f32[4]\n"
                               "L^{4}_{a=0}L^{6}_{c=0}[D^{f32,g}_{a}=D^{f32,g}_{a}+3.5*A^{f32,g}_{a,c};];\n";

static void test_outs(void **state) {
  (void)state;
  StepsOuts c = {0};
  Prog p3, p35, q3, q35;
  InterpProg *a3 = made(&p3, rowsum3, true), *a35 = made(&p35, rowsum35, true);
  InterpProg *b3 = made(&q3, rowsum3, false), *b35 = made(&q35, rowsum35, false);
  StepsKey k3, k35, k3b, seed1, tag;
  assert_true(steps_key(&k3, p3.p, 0, "eval before; interpreter", false, false));
  assert_true(steps_key(&k35, p35.p, 0, "eval before; interpreter", false, false));
  assert_true(steps_key(&k3b, q3.p, 0, "eval before; interpreter", false, false)); /* k3 parsed afresh */
  assert_true(steps_key(&seed1, p3.p, 1, "eval before; interpreter", false, false));
  assert_true(steps_key(&tag, p3.p, 0, "eval before; host JIT", false, false));
  assert_true(k3.hash != k35.hash);

  assert_false(steps_outs_load(&c, &k3b, b3, NULL)); /* empty */
  steps_outs_store(&c, &k3, a3);
  assert_null(k3.text); /* taken over */
  assert_int_equal(c.n, 1);
  assert_false(steps_outs_load(&c, &k35, b35, NULL)); /* differs only in a constant */
  assert_false(steps_outs_load(&c, &seed1, b3, NULL));
  assert_false(steps_outs_load(&c, &tag, b3, NULL));
  InterpBuf *y = interp_find(b3, "D");
  memset(y->data, 0x55, y->nbytes);
  assert_true(steps_outs_load(&c, &k3b, b3, NULL)); /* the same text parsed afresh */
  assert_memory_equal(interp_find(a3, "D")->data, y->data, y->nbytes);
  assert_int_equal(c.hits, 1);
  assert_int_equal(c.misses, 4);
  /* 3.5's outputs are not 3.0's: a shared entry would have shown it */
  assert_memory_not_equal(interp_find(a35, "D")->data, y->data, y->nbytes);
  steps_outs_store(&c, &k35, a35);
  assert_int_equal(c.n, 2);
  assert_true(steps_outs_load(&c, &k3b, b35, NULL)); /* same sizes: the key decides */
  assert_memory_equal(interp_find(a3, "D")->data, interp_find(b35, "D")->data, y->nbytes);

  /* a key kept already is not stored twice */
  StepsKey again;
  assert_true(steps_key(&again, p3.p, 0, "eval before; interpreter", false, false));
  steps_outs_store(&c, &again, a3);
  assert_null(again.text);
  assert_int_equal(c.n, 2);

  /* room for STEPS_OUTS_MAX: k3 was used last, so k35 goes first */
  for (uint64_t s = 10; s < 10 + STEPS_OUTS_MAX - 1; s++) {
    StepsKey ks;
    assert_true(steps_key(&ks, p3.p, s, "eval before; interpreter", false, false));
    steps_outs_store(&c, &ks, a3);
  }
  assert_int_equal(c.n, STEPS_OUTS_MAX);
  assert_true(steps_outs_load(&c, &k3b, b3, NULL));
  StepsKey k35b;
  assert_true(steps_key(&k35b, q35.p, 0, "eval before; interpreter", false, false));
  assert_false(steps_outs_load(&c, &k35b, b35, NULL));

  steps_outs_free(&c);
  assert_int_equal(c.n, 0);
  steps_key_free(&k3b);
  steps_key_free(&k35b);
  steps_key_free(&seed1);
  steps_key_free(&tag);
  interp_free(a3);
  interp_free(a35);
  interp_free(b3);
  interp_free(b35);
  prog_free(&p3);
  prog_free(&p35);
  prog_free(&q3);
  prog_free(&q35);
}

/* interp_new_uninit (the before's buffers, --emit-steps): what dirty_ok
 * marks is not zeroed (poisoned: 0xFF when asked), the rest zero; the
 * interpreter's run on it gives the bytes of a run on fresh buffers. */
static void test_uninit(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, rowsum));
  InterpProg *f = interp_new(&pr.ctx, pr.p, NULL);
  interp_random_inputs(f, 0, NULL);
  assert_true(interp_run(f));
  InterpBuf *fa = interp_find(f, "A"), *fd = interp_find(f, "D");
  unsigned char dirty[8] = {0};
  dirty[fd->t->id] = 1;
  InterpProg *u = interp_new_uninit(&pr.ctx, pr.p, NULL, dirty, true);
  assert_non_null(u);
  InterpBuf *ua = interp_find(u, "A"), *ud = interp_find(u, "D");
  assert_true(all_bytes(ud, 0xFF) && all_bytes(ua, 0));
  assert_int_equal((uintptr_t)ud->data % 64, 0);
  interp_random_inputs(u, 0, NULL);
  assert_true(interp_run(u)); /* resets D */
  assert_memory_equal(fd->data, ud->data, fd->nbytes);
  assert_memory_equal(fa->data, ua->data, fa->nbytes);
  interp_free(u);
  interp_free(f);
  prog_free(&pr);
}

static void test_pool(void **state) {
  (void)state;
  Prog p1, p2, p3;
  assert_true(prog_load(&p1, rowsum));
  assert_true(prog_load(&p2, rowsum_swapped));
  assert_true(prog_load(&p3, "%in A : f32[4,5]\n%out D : f32[4]\n"
                             "L^{4}_{a=0}L^{5}_{c=0}[D^{f32,g}_{a}=D^{f32,g}_{a}+A^{f32,g}_{a,c};];\n"));
  InterpBufPool pool = {0};
  InterpProg *a = interp_new_pooled(&p1.ctx, p1.p, NULL, &pool);
  interp_random_inputs(a, 0, NULL);
  assert_true(interp_run(a));
  float want[4];
  memcpy(want, interp_find(a, "D")->data, sizeof want);
  void *da = interp_find(a, "D")->data;
  interp_free(a);
  assert_int_equal(pool.n, 2); /* A and D given back */
  InterpProg *b = interp_new_pooled(&p2.ctx, p2.p, NULL, &pool);
  assert_int_equal(pool.reused, 2);
  assert_int_equal(pool.n, 0);
  assert_ptr_equal(interp_find(b, "D")->data, da); /* reused, */
  static const float zero[4];
  assert_memory_equal(interp_find(b, "D")->data, zero, sizeof zero); /* zeroed */
  interp_random_inputs(b, 0, NULL);
  assert_true(interp_run(b));
  assert_memory_equal(interp_find(b, "D")->data, want, sizeof want);
  interp_free(b);
  InterpProg *c = interp_new_pooled(&p3.ctx, p3.p, NULL, &pool); /* A's size differs */
  assert_int_equal(pool.reused, 3);
  assert_int_equal(pool.n, 1);
  interp_free(c);
  interp_pool_free(&pool);
  assert_int_equal(pool.n, 0);
  prog_free(&p1);
  prog_free(&p2);
  prog_free(&p3);
}

/* Y is written in full before it is read; Z only at its even elements
 * (its odd ones stay zero), W is accumulated over j (a §9.5 reduction:
 * written first as well) */
static const char strided[] = "%in  X : f32[8]\n%out Y : f32[8]\n%out Z : f32[15]\n%out W : f32[8]\n"
                              "L^{8}_{a=0}[Y^{f32,g}_{a}=X^{f32,g}_{a}*2.0;];"
                              "L^{8}_{a=0}[Z^{f32,g}_{2*a}=X^{f32,g}_{a};];"
                              "L^{8}_{a=0}L^{4}_{c=0}[W^{f32,g}_{a}=W^{f32,g}_{a}+X^{f32,g}_{a};];\n";

/* A pool holding buffers of strided's sizes full of 0xFF bytes. */
static void dirty_pool(Prog *pr, InterpBufPool *pool) {
  InterpProg *g = interp_new_pooled(&pr->ctx, pr->p, NULL, pool);
  assert_non_null(g);
  for (int i = 0; i < interp_ntensors(g); i++) memset(interp_buf(g, i)->data, 0xFF, interp_buf(g, i)->nbytes);
  interp_free(g);
}

static void test_pool_dirty(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, strided));
  const IrTensor *tx = ir_find_tensor(pr.p, "X"), *to = ir_find_tensor(pr.p, "Y"), *tp = ir_find_tensor(pr.p, "Z"),
                 *tq = ir_find_tensor(pr.p, "W");
  assert_true(cg_written_first(pr.p, to));
  assert_false(cg_written_first(pr.p, tp));
  assert_true(cg_written_first(pr.p, tq));
  /* the reference: the interpreter on fresh buffers */
  InterpProg *ref = interp_new(&pr.ctx, pr.p, NULL);
  interp_random_inputs(ref, 0, NULL);
  assert_true(interp_run(ref));
  unsigned char ok[4] = {0}; /* by tensor id */
  ok[to->id] = ok[tq->id] = 1;
  for (int round = 0; round < 2; round++) {
    InterpBufPool pool = {0};
    dirty_pool(&pr, &pool);
    if (round) ok[tp->id] = 1; /* wrong: Z is not written first */
    pool.dirty_ok = ok;
    InterpProg *r = interp_new_pooled(&pr.ctx, pr.p, NULL, &pool);
    pool.dirty_ok = NULL;
    assert_int_equal(pool.reused, 4);
    assert_int_equal(((unsigned char *)interp_buf(r, to->id)->data)[0], 0xFF); /* taken as it was */
    assert_int_equal(((unsigned char *)interp_buf(r, tx->id)->data)[0], 0); /* zeroed */
    assert_int_equal(((unsigned char *)interp_buf(r, tp->id)->data)[4], round ? 0xFF : 0);
    interp_random_inputs(r, 0, NULL);
    assert_true(cg_run_host_interp_zeroed(&pr.ctx, r, NULL));
    for (int i = 0; i < 4; i++) {
      const InterpBuf *a = interp_buf(ref, i), *b = interp_buf(r, i);
      bool same = !memcmp(a->data, b->data, a->nbytes);
      if (round && a->t == tp) assert_false(same); /* Z's odd elements: the old bytes */
      else assert_true(same);
    }
    interp_free(r);
    interp_pool_free(&pool);
  }
  interp_free(ref);
  /* max_bytes: 8+8+15+8 floats = 156 bytes given back, 100 kept at most */
  InterpBufPool pool = {.max_bytes = 100};
  dirty_pool(&pr, &pool);
  assert_true(pool.bytes <= 100);
  assert_int_equal(pool.n, 2); /* Z (60 bytes) and W (32), given back last */
  assert_int_equal(pool.bytes, 92);
  interp_pool_free(&pool);
  assert_int_equal(pool.max_bytes, 100); /* kept for the next use */
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uninit),
      cmocka_unit_test(test_pool),
      cmocka_unit_test(test_pool_dirty),
      cmocka_unit_test(test_memo),
      cmocka_unit_test(test_disk),
      cmocka_unit_test(test_outs),
      cmocka_unit_test(test_tmps),
      cmocka_unit_test(test_tmps_live),
      cmocka_unit_test(test_fetch_fails),
      cmocka_unit_test(test_mapped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
