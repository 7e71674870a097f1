/* sgemm_ceiling.c -- what this core's vector units reach on SGEMM's inner
 * kernel written by hand, the yardstick for leirc's generated kernel
 * (bench/sgemm.sh): a 4x64 block of D in 16 zmm accumulators, per step of
 * the reduction 4 broadcasts of A and 4 zmm loads of C from packed
 * operands (the hot loop of sgemm.sh's packed pipeline), as vmulps +
 * vaddps (no FMA, leirc's default) and as vfmadd231ps, with the operands in
 * L1 (64 steps, 16 KiB of C) and in L2 (1024 steps, 256 KiB), the same
 * arithmetic without any load or broadcast (registers only), that again
 * for as many flops as the product (timed as the product is: the peak a
 * run that long meets), and the whole 1024^3 product with the packed
 * pipeline's loops around the block (best of 5 by CPU time; what the
 * generated code is to be compared with), those loops again with every
 * operand kept in the caches (what is left is the loop structure's cost;
 * the rest of the difference is the memory hierarchy's), and panel by
 * panel (the packed pipeline before its groups of panels).
 *
 *   sgemm_ceiling           (taskset -c 0 for one core)
 *
 * Prints flops a cycle (at the clock measured with dependent adds, as
 * sgemm_bench does) and GFLOP/s of the best of many short runs, which on
 * a loaded machine are the ones no other process interrupted.  x86-64
 * with AVX-512F only; elsewhere it says so and exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/cpu_clock.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f"), noinline))
#define KMAX 1024 /* reduction steps of the L2 case */

typedef struct Operands {
  float a[KMAX][4];  /* packed A: 4 rows a step */
  float c[KMAX][64]; /* packed C: 64 columns a step */
} Operands;

/* One row r of the block: A's value a times the four C vectors c0..c3,
 * into acc[4r..4r+3] (written out: no loop for the compiler to keep). */
#define ROW(OP, r, A)                                                                                        \
  {                                                                                                          \
    __m512 a_ = (A);                                                                                         \
    acc[4 * (r) + 0] = OP(a_, c0, acc[4 * (r) + 0]);                                                         \
    acc[4 * (r) + 1] = OP(a_, c1, acc[4 * (r) + 1]);                                                         \
    acc[4 * (r) + 2] = OP(a_, c2, acc[4 * (r) + 2]);                                                         \
    acc[4 * (r) + 3] = OP(a_, c3, acc[4 * (r) + 3]);                                                         \
  }

/* 4x64 block over k steps, `passes` times; fma: vfmadd231ps, else vmulps +
 * vaddps.  Returns the sum of the block (keeps the work alive). */
#define BLOCK(NAME, OP)                                                                                      \
  AVX512 static float NAME(const Operands *o, int k, int passes) {                                           \
    __m512 acc[16];                                                                                          \
    for (int i = 0; i < 16; i++) acc[i] = _mm512_setzero_ps();                                               \
    for (int p = 0; p < passes; p++)                                                                         \
      for (int s = 0; s < k; s++) {                                                                          \
        __m512 c0 = _mm512_loadu_ps(&o->c[s][0]), c1 = _mm512_loadu_ps(&o->c[s][16]),                        \
               c2 = _mm512_loadu_ps(&o->c[s][32]), c3 = _mm512_loadu_ps(&o->c[s][48]);                       \
        ROW(OP, 0, _mm512_set1_ps(o->a[s][0]))                                                               \
        ROW(OP, 1, _mm512_set1_ps(o->a[s][1]))                                                               \
        ROW(OP, 2, _mm512_set1_ps(o->a[s][2]))                                                               \
        ROW(OP, 3, _mm512_set1_ps(o->a[s][3]))                                                               \
      }                                                                                                      \
    __m512 t = acc[0];                                                                                       \
    for (int i = 1; i < 16; i++) t = _mm512_add_ps(t, acc[i]);                                               \
    return _mm512_reduce_add_ps(t);                                                                          \
  }
#define MULADD(a, b, c) _mm512_add_ps(c, _mm512_mul_ps(a, b))
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
BLOCK(block_muladd, MULADD)
BLOCK(block_fma, FMA)

/* The same 16 mul + 16 add a step on registers only: 4 "A" and 4 "C"
 * vectors made opaque to the compiler each step. */
AVX512 static float regs_muladd(const Operands *o, int k, int passes) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++) acc[i] = _mm512_setzero_ps();
  __m512 a0 = _mm512_set1_ps(o->a[0][0]), a1 = _mm512_set1_ps(o->a[0][1]), a2 = _mm512_set1_ps(o->a[0][2]),
         a3 = _mm512_set1_ps(o->a[0][3]);
  __m512 c0 = _mm512_loadu_ps(&o->c[0][0]), c1 = _mm512_loadu_ps(&o->c[0][16]),
         c2 = _mm512_loadu_ps(&o->c[0][32]), c3 = _mm512_loadu_ps(&o->c[0][48]);
  for (int p = 0; p < passes; p++)
    for (int s = 0; s < k; s++) {
      __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3));
      ROW(MULADD, 0, a0)
      ROW(MULADD, 1, a1)
      ROW(MULADD, 2, a2)
      ROW(MULADD, 3, a3)
    }
  __m512 t = acc[0];
  for (int i = 1; i < 16; i++) t = _mm512_add_ps(t, acc[i]);
  return _mm512_reduce_add_ps(t);
}

/* The whole 1024^3 product with the loop structure of sgemm.sh's packed
 * pipeline: the 16 panels of the packed C (e[16][1024][64]) in groups of
 * SUB; for each group, for each of the 256 blocks of 4 rows h, for each
 * panel g of the group, the 4x64 block of d loaded, updated over the 1024
 * steps (A's 4 rows read in place: from memory for the group's first
 * panel, from the caches for the others) and stored.  SUB 1 is panel by
 * panel (every row block against one panel, then the next).  The masks
 * pick which panel of e (g & EG), which 4 rows of A (h & AH) and which
 * block of d (rows h & DH, panel g & DG) an iteration uses: all of them
 * for the product itself. */
#define WHOLE(NAME, OP, SUB, EG, AH, DH, DG)                                                                 \
  AVX512 static void NAME(const float *a, const float *e, float *d) {                                        \
    for (int gi = 0; gi < 16 / (SUB); gi++)                                                                  \
      for (int h = 0; h < 256; h++)                                                                          \
        for (int g = gi * (SUB); g < (gi + 1) * (SUB); g++) {                                                \
          __m512 acc[16];                                                                                    \
          float *dt = d + (size_t)(h & (DH)) * 4 * 1024 + (g & (DG)) * 64;                                   \
          for (int i = 0; i < 16; i++) acc[i] = _mm512_loadu_ps(dt + (i / 4) * 1024 + (i % 4) * 16);        \
          const float *ep = e + (size_t)(g & (EG)) * 1024 * 64, *ap = a + (size_t)(h & (AH)) * 4 * 1024;     \
          for (int s = 0; s < 1024; s++) {                                                                   \
            __m512 c0 = _mm512_loadu_ps(ep + s * 64), c1 = _mm512_loadu_ps(ep + s * 64 + 16),                \
                   c2 = _mm512_loadu_ps(ep + s * 64 + 32), c3 = _mm512_loadu_ps(ep + s * 64 + 48);           \
            ROW(OP, 0, _mm512_set1_ps(ap[s]))                                                                \
            ROW(OP, 1, _mm512_set1_ps(ap[1024 + s]))                                                         \
            ROW(OP, 2, _mm512_set1_ps(ap[2048 + s]))                                                         \
            ROW(OP, 3, _mm512_set1_ps(ap[3072 + s]))                                                         \
          }                                                                                                  \
          for (int i = 0; i < 16; i++) _mm512_storeu_ps(dt + (i / 4) * 1024 + (i % 4) * 16, acc[i]);        \
        }                                                                                                    \
  }
WHOLE(whole_muladd, MULADD, 4, 15, 255, 255, 15)
WHOLE(whole_fma, FMA, 4, 15, 255, 255, 15)
WHOLE(panelwise_muladd, MULADD, 1, 15, 255, 255, 15)
/* The same loops and instructions with every operand kept in the caches:
 * panel 0 of e and A's rows 0..3 for every block, and 8 blocks of d (4
 * rows by 2 panels) in turn.  What it gains over whole_muladd is what
 * moving the operands through the memory hierarchy costs (the panels of
 * e, A's rows, d's blocks); what it still loses to the block on L2
 * operands is the loop structure's (each block's d loaded and stored, the
 * stream of e restarting). */
WHOLE(resident_muladd, MULADD, 4, 0, 0, 3, 1)

/* CPU time of the process (sgemm_bench.c: what a loaded machine leaves). */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The line of a run of as many flops as the 1024^3 product (2*1024^3),
 * best of 5 by CPU time: GFLOP per CPU-second and flops a cycle at ghz. */
static void print_product(const char *name, double best, double ghz) {
  double flop = 2.0 * 1024 * 1024 * 1024;
  printf("ceiling  %-48s %6.1f GFLOP/CPU-s %5.1f flops/cycle (best of 5, CPU time)\n", name, flop / best * 1e-9,
         flop / best * 1e-9 / ghz);
}

typedef float (*BlockFn)(const Operands *, int, int);

int main(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    printf("sgemm_ceiling: no AVX-512F on this CPU\n");
    return 77;
  }
  static Operands o;
  for (int s = 0; s < KMAX; s++) {
    for (int r = 0; r < 4; r++) o.a[s][r] = (float)((s * 4 + r) % 7) * 0.125f;
    for (int j = 0; j < 64; j++) o.c[s][j] = (float)((s + j) % 5) * 0.25f;
  }
  const struct {
    const char *name;
    BlockFn fn;
    int k, passes;
  } cases[] = {
      {"4x64 vmulps+vaddps, packed operands in L1", block_muladd, 64, 64},
      {"4x64 vfmadd231ps,   packed operands in L1", block_fma, 64, 64},
      {"4x64 vmulps+vaddps, packed operands in L2", block_muladd, KMAX, 4},
      {"4x64 vfmadd231ps,   packed operands in L2", block_fma, KMAX, 4},
      {"4x64 vmulps+vaddps, registers only", regs_muladd, KMAX, 4},
  };
  double ghz = bench_measure_ghz(now);
  printf("hand-written SGEMM kernel (bench/sgemm_ceiling.c), best of 2000 runs; clock %.2f GHz (dependent adds)\n",
         ghz);
  float sink = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    double best = 1e30;
    for (int r = 0; r < 2000; r++) {
      double t = now();
      sink += cases[i].fn(&o, cases[i].k, cases[i].passes);
      t = now() - t;
      if (t < best) best = t;
    }
    double flop = 2.0 * 4 * 64 * cases[i].k * (double)cases[i].passes;
    printf("ceiling  %-44s %6.1f GFLOP/s %5.1f flops/cycle\n", cases[i].name, flop / best * 1e-9,
           flop / best * 1e-9 / ghz);
  }
  /* The register-only block again, timed as the whole product is below
     and as sgemm_bench times leirc's: 2*1024^3 flops (4096 passes of 1024
     steps, about 25 ms) a run, best of 5 by CPU time.  The best of 2000
     runs of 20 us above is the luckiest window of a shared core (its
     figure moved from 26.8 to 31.7 flops/cycle between three runs a minute
     apart); this is the peak that a run as long as the product meets. */
  {
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
      double t = cpu_now();
      sink += regs_muladd(&o, KMAX, 4096);
      t = cpu_now() - t;
      if (t < best) best = t;
    }
    print_product("4x64 vmulps+vaddps, registers only, 2*1024^3 flops", best, ghz);
  }
  /* the whole product, best of 5 by CPU time */
  float *a = aligned_alloc(64, sizeof(float) << 20), *e = aligned_alloc(64, sizeof(float) << 20),
        *d = aligned_alloc(64, sizeof(float) << 20);
  if (!a || !e || !d) return 1;
  for (int i = 0; i < 1 << 20; i++) a[i] = (float)(i % 7) * 0.125f, e[i] = (float)(i % 5) * 0.25f;
  const struct {
    const char *name;
    void (*fn)(const float *, const float *, float *);
  } whole[] = {{"1024^3, packed pipeline's loops, vmulps+vaddps", whole_muladd},
               {"1024^3, packed pipeline's loops, vfmadd231ps", whole_fma},
               {"1024^3, same loops, all cached, vmulps+vaddps", resident_muladd},
               {"1024^3, panel by panel, vmulps+vaddps", panelwise_muladd}};
  for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
      for (int j = 0; j < 1 << 20; j++) d[j] = 0;
      double t = cpu_now();
      whole[i].fn(a, e, d);
      t = cpu_now() - t;
      if (t < best) best = t;
    }
    sink += d[12345];
    print_product(whole[i].name, best, ghz);
  }
  free(a);
  free(e);
  free(d);
  return sink == 12345.0f ? 1 : 0; /* never: keeps the sums */
}

#else
int main(void) {
  printf("sgemm_ceiling: x86-64 only\n");
  (void)now;
  return 77;
}
#endif
