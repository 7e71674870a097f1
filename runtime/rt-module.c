/* rt-module.c -- loading PTX with the driver's JIT compiler. */
#include "rt-internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the JIT compiler's logs: ptxas writes one line per error or per
 * kernel (register use), so this holds every realistic log. */
#define RT_JIT_LOG 32768

/* The message for a failed load: the driver's error, then the JIT error
 * log, which is what tells the user which PTX line is wrong. */
static int load_failed(RtDevice *dev, CUresult r, const char *log, char *err,
                       size_t errlen) {
  char why[256];
  rti_cu_describe(dev, r, why, sizeof why);
  size_t n = strlen(log);
  while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) n--;
  return rti_fail(dev, err, errlen, RT_ERROR,
                  "cannot load the PTX module: %s%s%.*s", why, n ? "\n" : "",
                  (int)n, log);
}

int rt_module_load(RtDevice *dev, const char *ptx_text, RtModule **m,
                   char *err, size_t errlen) {
  if (!dev || !ptx_text || !m)
    return rti_fail(dev, err, errlen, RT_ERROR, "rt_module_load: bad arguments");
  *m = NULL;
  int st = rti_make_current(dev, err, errlen);
  if (st) return st;
  char *info = calloc(1, RT_JIT_LOG), *error = calloc(1, RT_JIT_LOG);
  RtModule *mod = calloc(1, sizeof *mod);
  if (!info || !error || !mod) {
    free(info), free(error), free(mod);
    return rti_fail(dev, err, errlen, RT_ERROR, "out of memory");
  }
  CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_LOG_VERBOSE};
  /* The driver takes every option value as a void *; sizes and flags are
   * integers stored in the pointer itself. */
  void *vals[] = {info, (void *)(uintptr_t)(RT_JIT_LOG - 1), error,
                  (void *)(uintptr_t)(RT_JIT_LOG - 1), (void *)(uintptr_t)1};
  CUresult r = dev->api.cuModuleLoadDataEx(&mod->mod, ptx_text, 5, opts, vals);
  if (r != CUDA_SUCCESS) {
    st = load_failed(dev, r, error, err, errlen);
    free(info), free(error), free(mod);
    return st;
  }
  free(error);
  mod->dev = dev;
  mod->info_log = info;
  *m = mod;
  return RT_OK;
}

const char *rt_module_log(const RtModule *m) {
  return m && m->info_log ? m->info_log : "";
}

void rt_module_unload(RtModule *m) {
  if (!m) return;
  if (m->mod && rti_make_current(m->dev, NULL, 0) == RT_OK)
    m->dev->api.cuModuleUnload(m->mod);
  free(m->info_log);
  free(m);
}
