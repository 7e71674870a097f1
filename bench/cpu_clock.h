/* cpu_clock.h -- the core clock in GHz for the SGEMM benches
 * (sgemm_bench.c, sgemm_ceiling.c): a chain of dependent register-register
 * integer adds, x += x (one a cycle on every x86-64 core of the last
 * decade; not `add $1, x`: Intel's Golden Cove cores, Sapphire and Emerald
 * Rapids, fold adds of an immediate in the renamer, several a cycle, and
 * that chain measured 14.97 GHz on a 3 GHz Xeon), the fastest of 400
 * short runs (about 0.3 ms each, so that most run without being preempted
 * on a loaded machine), timed by now(); 0 off x86-64. */
#ifndef LEIR_BENCH_CPU_CLOCK_H
#define LEIR_BENCH_CPU_CLOCK_H

static inline double bench_measure_ghz(double (*now)(void)) {
#if defined(__x86_64__)
  double best = 0;
  for (int r = 0; r < 400; r++) {
    const long iters = 100 * 1000; /* 10 adds each */
    long x = 1;
    double t = now();
    __asm__ volatile("mov %1, %%rcx\n"
                     "1:\n"
                     ".rept 10\n"
                     "add %0, %0\n"
                     ".endr\n"
                     "dec %%rcx\n"
                     "jnz 1b\n"
                     : "+r"(x)
                     : "r"(iters)
                     : "rcx", "cc");
    t = now() - t;
    double ghz = 10.0 * (double)iters / t * 1e-9;
    if (ghz > best) best = ghz;
  }
  return best;
#else
  (void)now;
  return 0;
#endif
}

#endif /* LEIR_BENCH_CPU_CLOCK_H */
