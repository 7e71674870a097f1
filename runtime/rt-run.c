/* rt-run.c -- running a launch plan: device buffers, copies, launches in
 * plan order (once per host-loop iteration), timing with events. */
#include "rt-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything one run owns, released by run_cleanup whatever happened. */
typedef struct Run {
  RtDevice *dev;
  RtModule *m;
  const RtPlan *p;
  void *const *host;
  char *err;
  size_t errlen;
  CUdeviceptr *dptr;  /* one per tensor, 0 while unallocated */
  CUfunction *fn;     /* one per launch */
  CUevent ev[2];
} Run;

/* Fails with "<what>: <driver error>". */
static int cu_fail(Run *r, CUresult res, const char *what) {
  char why[256];
  rti_cu_describe(r->dev, res, why, sizeof why);
  return rti_fail(r->dev, r->err, r->errlen, RT_ERROR, "%s: %s", what, why);
}

static int check_args(Run *r) {
  if (!r->dev || !r->m || !r->p)
    return rti_fail(r->dev, r->err, r->errlen, RT_ERROR,
                    "rt_run_plan: device, module and plan are required");
  if (r->m->dev != r->dev)
    return rti_fail(r->dev, r->err, r->errlen, RT_ERROR,
                    "rt_run_plan: the module was loaded on another device");
  for (size_t i = 0; i < r->p->nargs_tensors; i++)
    if (!r->host || !r->host[i])
      return rti_fail(r->dev, r->err, r->errlen, RT_ERROR,
                      "rt_run_plan: no host buffer for tensor '%s'",
                      r->p->tensors[i].name);
  return RT_OK;
}

/* Looks every kernel up before anything is allocated or launched, and
 * opts in to large dynamic shared memory where a launch needs it. */
static int resolve_kernels(Run *r) {
  char what[512];
  for (size_t i = 0; i < r->p->nlaunches; i++) {
    const RtLaunch *l = &r->p->launches[i];
    CUresult res = r->dev->api.cuModuleGetFunction(&r->fn[i], r->m->mod,
                                                   l->kernel);
    snprintf(what, sizeof what, "kernel '%s' is not in the PTX module",
             l->kernel);
    if (res != CUDA_SUCCESS) return cu_fail(r, res, what);
    if (l->shmem <= RT_SHMEM_DEFAULT_LIMIT) continue;
    snprintf(what, sizeof what,
             "kernel '%s': cannot enable %u bytes of dynamic shared memory",
             l->kernel, l->shmem);
    if (!r->dev->api.cuFuncSetAttribute)
      return cu_fail(r, CUDA_ERROR_NOT_FOUND, what);
    res = r->dev->api.cuFuncSetAttribute(
      r->fn[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->shmem);
    if (res != CUDA_SUCCESS) return cu_fail(r, res, what);
  }
  return RT_OK;
}

/* Device memory for every tensor; inputs and parameters copied in. */
static int alloc_and_copy_in(Run *r) {
  char what[512];
  for (size_t i = 0; i < r->p->ntensors; i++) {
    const RtTensor *t = &r->p->tensors[i];
    CUresult res = r->dev->api.cuMemAlloc(&r->dptr[i], t->bytes);
    if (res != CUDA_SUCCESS) {
      r->dptr[i] = 0;
      snprintf(what, sizeof what, "cannot allocate %zu bytes for tensor '%s'",
               t->bytes, t->name);
      return cu_fail(r, res, what);
    }
    if (t->role != RT_ROLE_IN && t->role != RT_ROLE_PARAM) continue;
    res = r->dev->api.cuMemcpyHtoD(r->dptr[i], r->host[i], t->bytes);
    snprintf(what, sizeof what, "cannot copy tensor '%s' to the device",
             t->name);
    if (res != CUDA_SUCCESS) return cu_fail(r, res, what);
  }
  return RT_OK;
}

static int copy_out(Run *r) {
  char what[512];
  for (size_t i = 0; i < r->p->nargs_tensors; i++) {
    const RtTensor *t = &r->p->tensors[i];
    if (t->role != RT_ROLE_OUT) continue;
    CUresult res = r->dev->api.cuMemcpyDtoH(r->host[i], r->dptr[i], t->bytes);
    snprintf(what, sizeof what, "cannot copy tensor '%s' from the device",
             t->name);
    if (res != CUDA_SUCCESS) return cu_fail(r, res, what);
  }
  return RT_OK;
}

/* All launches of plan line `li`: one per iteration of its host loops,
 * outermost loop slowest, with %loop arguments set to the iteration. */
static int launch_line(Run *r, size_t li) {
  const RtLaunch *l = &r->p->launches[li];
  void **params = calloc((size_t)l->nargs + 1, sizeof *params);
  long long *ivals = calloc((size_t)l->nargs + 1, sizeof *ivals);
  int64_t *iter = calloc((size_t)l->nloops + 1, sizeof *iter);
  int st = params && ivals && iter
             ? RT_OK
             : rti_fail(r->dev, r->err, r->errlen, RT_ERROR, "out of memory");
  for (int a = 0; st == RT_OK && a < l->nargs; a++)
    params[a] = l->args[a].kind == RT_ARG_TENSOR
                  ? (void *)&r->dptr[l->args[a].index] : (void *)&ivals[a];
  for (uint64_t n = 0; st == RT_OK && n < l->launches; n++) {
    for (int a = 0; a < l->nargs; a++)
      if (l->args[a].kind == RT_ARG_LOOP) ivals[a] = iter[l->args[a].index];
    CUresult res = r->dev->api.cuLaunchKernel(
      r->fn[li], l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
      l->block[2], l->shmem, NULL, params, NULL);
    if (res != CUDA_SUCCESS) {
      char what[512];
      snprintf(what, sizeof what, "cannot launch kernel '%s'", l->kernel);
      st = cu_fail(r, res, what);
    }
    for (int d = l->nloops - 1; d >= 0; d--) { /* next iteration */
      if (++iter[d] < l->loop_extents[d]) break;
      iter[d] = 0;
    }
  }
  free(params), free(ivals), free(iter);
  return st;
}

/* Every launch in plan order, then a wait for the last one; errors the
 * kernels raise (bad addresses, ...) surface at that wait. */
static int launch_all(Run *r, double *ms) {
  RtDriverApi *api = &r->dev->api;
  CUresult res;
  if (ms) {
    if ((res = api->cuEventCreate(&r->ev[0], CU_EVENT_DEFAULT)) ||
        (res = api->cuEventCreate(&r->ev[1], CU_EVENT_DEFAULT)) ||
        (res = api->cuEventRecord(r->ev[0], NULL)))
      return cu_fail(r, res, "cannot start the timer");
  }
  for (size_t i = 0; i < r->p->nlaunches; i++) {
    int st = launch_line(r, i);
    if (st) return st;
  }
  if (!ms) {
    res = api->cuCtxSynchronize();
    return res ? cu_fail(r, res, "the kernels failed") : RT_OK;
  }
  if ((res = api->cuEventRecord(r->ev[1], NULL)) ||
      (res = api->cuEventSynchronize(r->ev[1])))
    return cu_fail(r, res, "the kernels failed");
  float t = 0;
  if ((res = api->cuEventElapsedTime(&t, r->ev[0], r->ev[1])))
    return cu_fail(r, res, "cannot read the timer");
  *ms = t;
  return RT_OK;
}

static void run_cleanup(Run *r) {
  for (size_t i = 0; r->dptr && i < r->p->ntensors; i++)
    if (r->dptr[i]) r->dev->api.cuMemFree(r->dptr[i]);
  for (int i = 0; i < 2; i++)
    if (r->ev[i]) r->dev->api.cuEventDestroy(r->ev[i]);
  free(r->dptr);
  free(r->fn);
}

int rt_run_plan(RtDevice *dev, RtModule *m, const RtPlan *p,
                void *const *host_args, double *ms, char *err, size_t errlen) {
  Run r = {.dev = dev, .m = m, .p = p, .host = host_args, .err = err,
           .errlen = errlen};
  int st = check_args(&r);
  if (st == RT_OK) st = rti_make_current(dev, err, errlen);
  if (st) return st;
  r.dptr = calloc(p->ntensors + 1, sizeof *r.dptr);
  r.fn = calloc(p->nlaunches + 1, sizeof *r.fn);
  if (!r.dptr || !r.fn)
    st = rti_fail(dev, err, errlen, RT_ERROR, "out of memory");
  if (st == RT_OK) st = resolve_kernels(&r);
  if (st == RT_OK) st = alloc_and_copy_in(&r);
  if (st == RT_OK) st = launch_all(&r, ms);
  if (st == RT_OK) st = copy_out(&r);
  run_cleanup(&r);
  return st;
}
