/* mockcuda.c -- a fake CUDA driver for runtime_test: the Driver API entry
 * points libleirrt resolves, working on host memory, so that rt_open,
 * rt_module_load and rt_run_plan can be tested on machines without a GPU.
 *
 * This is a test double, loaded with dlopen into the test process only; its
 * state is global on purpose (it stands for the driver's own global state)
 * and the test drives it through the mock_* functions.
 *
 * "Kernels" are recognised by name (the PTX must still declare them with
 * `.entry NAME`):
 *   k_add(float *a, float *b, float *c)     c[t] = a[t] + b[t]
 *   k_copy(float *dst, float *src)          dst[t] = src[t]
 *   k_record(int64 *out, int64 i, int64 j)  out[i*16+j] = launch number
 *   k_nop()                                 nothing
 *   k_fault()                               the next wait fails with
 *                                           CUDA_ERROR_ILLEGAL_ADDRESS
 * where t runs over all grid.x * block.x threads.  Every launch is appended
 * to a log: "NAME GX,GY,GZ BX,BY,BZ SHMEM\n". */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define MOCK_LOG 65536

static struct {
  CUresult init_result;
  int ndevices;
  int retained;       /* primary context references */
  long live_allocs;   /* device buffers not yet freed */
  long live_modules, live_events;
  long launches;      /* since mock_reset */
  CUresult sticky;    /* error of a faulted kernel, reported at the wait */
  size_t fail_alloc_over;
  int shmem_attr;     /* last dynamic shared memory opt-in */
  char log[MOCK_LOG];
} mock = {.ndevices = 1};

typedef struct MockModule {
  char *text;
} MockModule;

typedef struct MockFunc {
  char name[64];
} MockFunc;

/* ---- control, for the test ------------------------------------------- */

void mock_reset(CUresult init_result, int ndevices) {
  memset(&mock, 0, sizeof mock);
  mock.init_result = init_result;
  mock.ndevices = ndevices;
}

const char *mock_log(void) { return mock.log; }

void mock_counts(long *allocs, long *modules, long *events, int *retained) {
  *allocs = mock.live_allocs;
  *modules = mock.live_modules;
  *events = mock.live_events;
  *retained = mock.retained;
}

void mock_fail_alloc_over(size_t bytes) { mock.fail_alloc_over = bytes; }
int mock_shmem_attr(void) { return mock.shmem_attr; }
void mock_clear_error(void) { mock.sticky = 0; }

/* ---- device, context ---------------------------------------------------- */

CUresult cuInit(unsigned flags) { return flags ? 1 : mock.init_result; }
CUresult cuDriverGetVersion(int *v) { return *v = 13000, 0; }
CUresult cuDeviceGetCount(int *n) { return *n = mock.ndevices, 0; }

CUresult cuDeviceGet(int *dev, int ordinal) {
  if (ordinal < 0 || ordinal >= mock.ndevices) return 101;
  return *dev = ordinal, 0;
}

CUresult cuDeviceGetName(char *buf, int n, int dev) {
  snprintf(buf, (size_t)n, "Mock GPU %d", dev);
  return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
  *v = attr == 75 ? 9 : 0;
  return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  mock.retained++;
  *ctx = &mock;
  return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
  mock.retained--;
  return 0;
}

CUresult cuCtxSetCurrent(void *ctx) { return ctx == &mock ? 0 : 201; }

static CUresult wait_result(void) { return mock.sticky; }

CUresult cuCtxSynchronize(void) { return wait_result(); }

/* ---- memory --------------------------------------------------------------- */

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  if (mock.fail_alloc_over && bytes > mock.fail_alloc_over) return 2;
  void *m = malloc(bytes);
  if (!m) return 2;
  memset(m, 0xAB, bytes); /* device memory is not zeroed */
  mock.live_allocs++;
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  mock.live_allocs--;
  return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) {
  memcpy((void *)(uintptr_t)d, h, n);
  return 0;
}

CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) {
  memcpy(h, (const void *)(uintptr_t)d, n);
  return 0;
}

/* ---- modules -------------------------------------------------------------- */

/* Copies msg into the log buffer given among the JIT options. */
static void jit_log(unsigned n, const int *opts, void **vals, int buf_opt,
                    int size_opt, const char *msg) {
  char *buf = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < n; i++) {
    if (opts[i] == buf_opt) buf = vals[i];
    if (opts[i] == size_opt) size = (size_t)(uintptr_t)vals[i];
  }
  if (buf && size) snprintf(buf, size, "%s", msg);
}

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n,
                            int *opts, void **vals) {
  const char *text = image;
  if (strstr(text, "mock_syntax_error")) {
    jit_log(n, opts, vals, 5, 6,
            "ptxas application ptx input, line 9; error   : Unknown symbol "
            "'mock_syntax_error'\nptxas fatal   : Ptx assembly aborted due to "
            "errors\n");
    return 218;
  }
  MockModule *m = malloc(sizeof *m);
  m->text = strdup(text);
  mock.live_modules++;
  jit_log(n, opts, vals, 3, 4, "ptxas info    : 0 bytes gmem");
  *mod = m;
  return 0;
}

CUresult cuModuleUnload(void *mod) {
  MockModule *m = mod;
  free(m->text);
  free(m);
  mock.live_modules--;
  return 0;
}

/* Functions live as long as their module in the real driver; the mock
 * keeps them in a small table inside each lookup's static storage. */
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  static MockFunc funcs[64];
  static int nfuncs;
  MockModule *m = mod;
  char pat[80];
  snprintf(pat, sizeof pat, ".entry %s(", name);
  if (!strstr(m->text, pat)) return 500;
  MockFunc *f = &funcs[nfuncs++ % 64];
  snprintf(f->name, sizeof f->name, "%s", name);
  *fn = f;
  return 0;
}

CUresult cuFuncSetAttribute(void *fn, int attr, int value) {
  if (attr == 8) mock.shmem_attr = value;
  return 0;
}

/* ---- launches ------------------------------------------------------------ */

static void run_kernel(const char *name, unsigned threads, void **params) {
  if (!strcmp(name, "k_add")) {
    float *a = *(float **)params[0], *b = *(float **)params[1],
          *c = *(float **)params[2];
    for (unsigned t = 0; t < threads; t++) c[t] = a[t] + b[t];
  } else if (!strcmp(name, "k_copy")) {
    float *d = *(float **)params[0], *s = *(float **)params[1];
    for (unsigned t = 0; t < threads; t++) d[t] = s[t];
  } else if (!strcmp(name, "k_record")) {
    int64_t *out = *(int64_t **)params[0];
    int64_t i = *(int64_t *)params[1], j = *(int64_t *)params[2];
    out[i * 16 + j] = mock.launches;
  } else if (!strcmp(name, "k_fault")) {
    mock.sticky = 700;
  }
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                        void *stream, void **params, void **extra) {
  const MockFunc *f = fn;
  size_t len = strlen(mock.log);
  snprintf(mock.log + len, MOCK_LOG - len, "%s %u,%u,%u %u,%u,%u %u\n",
           f->name, gx, gy, gz, bx, by, bz, shmem);
  if (mock.sticky) return mock.sticky;
  run_kernel(f->name, gx * bx, params);
  mock.launches++;
  return 0;
}

/* ---- events ---------------------------------------------------------------- */

CUresult cuEventCreate(void **ev, unsigned flags) {
  *ev = malloc(1);
  mock.live_events++;
  return 0;
}

CUresult cuEventRecord(void *ev, void *stream) { return 0; }
CUresult cuEventSynchronize(void *ev) { return wait_result(); }

CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
  *ms = 1.25f;
  return 0;
}

CUresult cuEventDestroy_v2(void *ev) {
  free(ev);
  mock.live_events--;
  return 0;
}

/* ---- errors: named for one code only, like a driver that knows some --- */

CUresult cuGetErrorName(CUresult r, const char **s) {
  if (r != 700) return 1;
  *s = "CUDA_ERROR_ILLEGAL_ADDRESS";
  return 0;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  if (r != 700) return 1;
  *s = "an illegal memory access was encountered";
  return 0;
}
