/* pool.h -- a worker pool for the host JIT's parallel nests (issue 41).
 *
 * A pool of N-1 threads is made once (host.c makes it at the first parallel
 * nest of a compiled program and keeps it for every later run of that
 * program) and then only woken: starting threads for every parallel nest of
 * every run cost more than small nests gain.  cg_pool_run(pool, fn, arg)
 * calls fn(arg, i) once for every i in [0, N): the calling thread takes
 * i = 0, worker i takes i.  Which thread runs which i is fixed, and the
 * callers give each i a range of its own, so results never depend on
 * timing.  One pool serves one caller at a time.
 */
#ifndef LEIR_CODEGEN_POOL_H
#define LEIR_CODEGEN_POOL_H

typedef struct CgPool CgPool;
typedef void (*CgPoolFn)(void *arg, int i);

/* A pool of n tasks per run (n - 1 worker threads; n >= 1).  NULL when out
 * of memory; a worker that cannot be started leaves its task to the caller. */
CgPool *cg_pool_new(int n);
/* The number of tasks of each run. */
int cg_pool_size(const CgPool *pool);
/* Runs fn(arg, i) for i in [0, size) and returns when all are done. */
void cg_pool_run(CgPool *pool, CgPoolFn fn, void *arg);
/* Stops and joins the workers; NULL is a no-op. */
void cg_pool_free(CgPool *pool);

#endif /* LEIR_CODEGEN_POOL_H */
