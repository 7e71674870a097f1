/* pool.h -- a worker pool for the host JIT's parallel nests (issue 41).
 *
 * A pool of N-1 threads is made once (host.c makes it at the first parallel
 * nest of a compiled program and keeps it for every later run of that
 * program) and then only woken: starting threads for every parallel nest of
 * every run cost more than small nests gain.
 *
 * cg_pool_run(pool, fn, arg, ntasks, nthreads) calls fn(arg, i) exactly once
 * for every i in [0, ntasks).  The calling thread takes tasks itself from
 * the start and wakes up to nthreads - 1 workers, which take what is left
 * when they get a CPU; the caller then waits only for tasks a worker has
 * already taken, never for a worker that is still asleep.  On a busy
 * machine, where a woken thread may wait tens or hundreds of microseconds
 * for a CPU, a small nest therefore costs one wake-up call more than on one
 * thread, not a scheduler round trip (issue 41: 13 us programs took 187 us
 * on "all CPUs").  Which thread runs which task depends on timing, so the
 * callers give each task a range of its own whose result does not depend
 * on the thread that computes it.  One pool serves one caller at a time.
 */
#ifndef LEIR_CODEGEN_POOL_H
#define LEIR_CODEGEN_POOL_H

typedef struct CgPool CgPool;
typedef void (*CgPoolFn)(void *arg, int i);

/* A pool of n threads, the caller's included (n - 1 worker threads; n >= 1).
 * NULL when out of memory; a worker that cannot be started is not used. */
CgPool *cg_pool_new(int n);
/* The number of threads, the caller's included. */
int cg_pool_size(const CgPool *pool);
/* Runs fn(arg, i) for i in [0, ntasks) on the caller and at most
 * nthreads - 1 workers (fewer when the pool is smaller) and returns when all
 * are done. */
void cg_pool_run(CgPool *pool, CgPoolFn fn, void *arg, int ntasks, int nthreads);
/* Stops and joins the workers; NULL is a no-op. */
void cg_pool_free(CgPool *pool);

#endif /* LEIR_CODEGEN_POOL_H */
