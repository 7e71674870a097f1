/* pool.c -- the host JIT's worker pool (pool.h). */
#include "codegen/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct Worker {
  CgPool *pool;
  int index;
  pthread_t thread;
  bool started;
} Worker;

struct CgPool {
  int n;                /* tasks per run: the caller and n - 1 workers */
  Worker *workers;      /* [1, n) used */
  pthread_mutex_t mu;
  pthread_cond_t wake;  /* a new run, or stop */
  pthread_cond_t done;  /* the last worker of a run finished */
  unsigned long gen;    /* run counter: a worker runs once per increment */
  int pending;          /* workers of the current run still busy */
  bool stop;
  CgPoolFn fn;
  void *arg;
};

static void *worker_main(void *p) {
  Worker *w = p;
  CgPool *pool = w->pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (!pool->stop && pool->gen == seen) pthread_cond_wait(&pool->wake, &pool->mu);
    if (pool->stop) break;
    seen = pool->gen;
    CgPoolFn fn = pool->fn;
    void *arg = pool->arg;
    pthread_mutex_unlock(&pool->mu);
    fn(arg, w->index);
    pthread_mutex_lock(&pool->mu);
    if (--pool->pending == 0) pthread_cond_signal(&pool->done);
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
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  for (int i = 1; i < n; i++) {
    Worker *w = &pool->workers[i];
    w->pool = pool;
    w->index = i;
    w->started = pthread_create(&w->thread, NULL, worker_main, w) == 0;
  }
  return pool;
}

int cg_pool_size(const CgPool *pool) { return pool->n; }

void cg_pool_run(CgPool *pool, CgPoolFn fn, void *arg) {
  int started = 0;
  for (int i = 1; i < pool->n; i++) started += pool->workers[i].started;
  if (started) {
    pthread_mutex_lock(&pool->mu);
    pool->fn = fn;
    pool->arg = arg;
    pool->pending = started;
    pool->gen++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
  }
  fn(arg, 0);
  for (int i = 1; i < pool->n; i++)
    if (!pool->workers[i].started) fn(arg, i); /* no thread: do it here */
  if (started) {
    pthread_mutex_lock(&pool->mu);
    while (pool->pending > 0) pthread_cond_wait(&pool->done, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
  }
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
