/* pool.c -- the host JIT's worker pool (pool.h). */
#include "codegen/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct Worker {
  CgPool *pool;
  pthread_t thread;
  bool started;
} Worker;

struct CgPool {
  int n;                /* threads: the caller and n - 1 workers */
  int nstarted;         /* workers running */
  Worker *workers;      /* [1, n) used */
  pthread_mutex_t mu;
  pthread_cond_t wake;  /* a new run, or stop */
  pthread_cond_t done;  /* the last busy worker of a run finished */
  unsigned long gen;    /* run counter */
  bool open;            /* the run gen is still handing out tasks */
  int busy;             /* workers that joined the current run and are not done */
  bool waiting;         /* the caller waits on done */
  bool stop;
  CgPoolFn fn;
  void *arg;
  int ntasks;
  atomic_int next;      /* the next task to take */
};

/* Takes and runs tasks until none is left. */
static void take_tasks(CgPool *pool, CgPoolFn fn, void *arg, int ntasks) {
  for (int i; (i = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed)) < ntasks;) fn(arg, i);
}

static void *worker_main(void *p) {
  Worker *w = p;
  CgPool *pool = w->pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (!pool->stop && pool->gen == seen) pthread_cond_wait(&pool->wake, &pool->mu);
    if (pool->stop) break;
    seen = pool->gen;
    if (!pool->open) continue; /* woken too late: the caller finished that run */
    pool->busy++;
    CgPoolFn fn = pool->fn;
    void *arg = pool->arg;
    int ntasks = pool->ntasks;
    pthread_mutex_unlock(&pool->mu);
    take_tasks(pool, fn, arg, ntasks);
    pthread_mutex_lock(&pool->mu);
    if (--pool->busy == 0 && pool->waiting) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

CgPool *cg_pool_new(int n) {
  if (n < 1) n = 1;
  CgPool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->workers = calloc((size_t)n, sizeof *pool->workers);
  if (!pool->workers) {
    free(pool);
    return NULL;
  }
  pool->n = n;
  atomic_init(&pool->next, 0);
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  for (int i = 1; i < n; i++) {
    Worker *w = &pool->workers[i];
    w->pool = pool;
    w->started = pthread_create(&w->thread, NULL, worker_main, w) == 0;
    pool->nstarted += w->started;
  }
  return pool;
}

int cg_pool_size(const CgPool *pool) { return pool->n; }

void cg_pool_run(CgPool *pool, CgPoolFn fn, void *arg, int ntasks, int nthreads) {
  int wake = nthreads - 1;
  if (wake > pool->nstarted) wake = pool->nstarted;
  if (wake > ntasks - 1) wake = ntasks - 1;
  if (wake < 1) {
    for (int i = 0; i < ntasks; i++) fn(arg, i);
    return;
  }
  pthread_mutex_lock(&pool->mu);
  pool->fn = fn;
  pool->arg = arg;
  pool->ntasks = ntasks;
  atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
  pool->open = true;
  pool->gen++;
  if (wake >= pool->nstarted) pthread_cond_broadcast(&pool->wake);
  else
    for (int i = 0; i < wake; i++) pthread_cond_signal(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  take_tasks(pool, fn, arg, ntasks);
  pthread_mutex_lock(&pool->mu);
  pool->open = false; /* a worker that wakes from now on skips this run */
  pool->waiting = true;
  while (pool->busy > 0) pthread_cond_wait(&pool->done, &pool->mu);
  pool->waiting = false;
  pthread_mutex_unlock(&pool->mu);
}

void cg_pool_free(CgPool *pool) {
  if (!pool) return;
  pthread_mutex_lock(&pool->mu);
  pool->stop = true;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  for (int i = 1; i < pool->n; i++)
    if (pool->workers[i].started) pthread_join(pool->workers[i].thread, NULL);
  pthread_cond_destroy(&pool->wake);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->mu);
  free(pool->workers);
  free(pool);
}
