/* rt-device.c -- opening the CUDA driver with dlopen, the primary context,
 * and error messages. */
#include "rt-internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The prefix of every "there is no usable GPU here" message; tests and
 * scripts look for it. */
#define RT_NODRIVER_MSG "no CUDA driver found"

int rti_fail(RtDevice *dev, char *err, size_t errlen, int status,
              const char *fmt, ...) {
  char buf[RT_ERRBUF];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (err && errlen) snprintf(err, errlen, "%s", buf);
  if (dev) snprintf(dev->err, sizeof dev->err, "%s", buf);
  return status;
}

/* Names of the results libleirrt is likely to meet, for drivers (such as
 * the stub library) that cannot name their own errors. */
static const char *cu_result_name(CUresult r) {
  static const struct { CUresult r; const char *name; } names[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"},
    {CUDA_ERROR_INSUFFICIENT_DRIVER, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
     "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].r == r) return names[i].name;
  return NULL;
}

void rti_cu_describe(const RtDevice *dev, CUresult r, char *buf, size_t n) {
  const char *name = NULL, *text = NULL;
  if (dev && dev->api.cuGetErrorName &&
      dev->api.cuGetErrorName(r, &name) != CUDA_SUCCESS)
    name = NULL;
  if (dev && dev->api.cuGetErrorString &&
      dev->api.cuGetErrorString(r, &text) != CUDA_SUCCESS)
    text = NULL;
  if (!name) name = cu_result_name(r);
  if (name && text)
    snprintf(buf, n, "%s (%s)", name, text);
  else if (name)
    snprintf(buf, n, "%s", name);
  else
    snprintf(buf, n, "CUresult %d", r);
}

/* Entry points that may be missing from an old or partial driver. */
static int optional_symbol(const char *field) {
  return !strcmp(field, "cuGetErrorName") ||
         !strcmp(field, "cuGetErrorString") ||
         !strcmp(field, "cuFuncSetAttribute");
}

static void *lookup(void *lib, const char *name, const char *fallback) {
  void *sym = dlsym(lib, name);
  return sym || !fallback ? sym : dlsym(lib, fallback);
}

/* POSIX guarantees that a dlsym result has a function pointer's
 * representation; memcpy says so without an ISO C object-to-function pointer
 * cast. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "function pointers are as wide as object pointers");

/* Resolves every RT_CUDA_FUNCS entry; RT_ERROR naming the first required
 * one the library lacks. */
static int resolve_api(RtDevice *d, const char *libname, char *err,
                       size_t errlen) {
  void *sym;
#define RT_RESOLVE(field, ret, params, name, fallback)                        \
  sym = lookup(d->lib, name, fallback);                                       \
  if (!sym && !optional_symbol(#field))                                       \
    return rti_fail(d, err, errlen, RT_ERROR,                                 \
                    "the CUDA driver %s lacks %s (driver too old?)", libname, \
                    name);                                                    \
  memcpy(&d->api.field, &sym, sizeof sym);
  RT_CUDA_FUNCS(RT_RESOLVE)
#undef RT_RESOLVE
  return RT_OK;
}

/* dlopen the driver: the given path, else libcuda.so.1 then libcuda.so. */
static int open_library(RtDevice *d, const char *path, const char **used,
                        char *err, size_t errlen) {
  static const char *const defaults[] = {"libcuda.so.1", "libcuda.so"};
  if (path) {
    *used = path;
    d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (size_t i = 0; i < 2 && !d->lib; i++) {
      *used = defaults[i];
      d->lib = dlopen(defaults[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (!d->lib) *used = defaults[0];
  }
  if (!d->lib)
    return rti_fail(d, err, errlen, RT_ENODRIVER,
                    RT_NODRIVER_MSG " (cannot open %s)", *used);
  return RT_OK;
}

/* cuInit, then the device and its primary context. */
static int init_device(RtDevice *d, int ordinal, char *err, size_t errlen) {
  char why[256];
  CUresult r = d->api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    rti_cu_describe(d, r, why, sizeof why);
    return rti_fail(d, err, errlen, RT_ENODRIVER,
                    RT_NODRIVER_MSG " (cuInit: %s)", why);
  }
  d->initialised = 1;
  int count = 0;
  r = d->api.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count <= 0)
    return rti_fail(d, err, errlen, RT_ENODRIVER,
                    RT_NODRIVER_MSG " (the driver reports no device)");
  if (ordinal < 0 || ordinal >= count)
    return rti_fail(d, err, errlen, RT_ERROR,
                    "no CUDA device %d (devices 0 to %d exist)", ordinal,
                    count - 1);
  d->ordinal = ordinal;
  if ((r = d->api.cuDeviceGet(&d->dev, ordinal)) != CUDA_SUCCESS ||
      (r = d->api.cuDevicePrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS) {
    d->ctx = NULL;
    rti_cu_describe(d, r, why, sizeof why);
    return rti_fail(d, err, errlen, RT_ERROR,
                    "cannot use CUDA device %d: %s", ordinal, why);
  }
  return rti_make_current(d, err, errlen);
}

int rt_open_library(RtDevice **dev, const char *path, int ordinal, char *err,
                    size_t errlen) {
  if (!dev) return rti_fail(NULL, err, errlen, RT_ERROR, "rt_open: dev is NULL");
  *dev = NULL;
  RtDevice *d = calloc(1, sizeof *d);
  if (!d) return rti_fail(NULL, err, errlen, RT_ERROR, "out of memory");
  const char *used = NULL;
  int st = open_library(d, path, &used, err, errlen);
  if (st == RT_OK) st = resolve_api(d, used, err, errlen);
  if (st == RT_OK) st = init_device(d, ordinal, err, errlen);
  if (st != RT_OK) {
    rt_close(d);
    return st;
  }
  *dev = d;
  return RT_OK;
}

int rt_open(RtDevice **dev, int ordinal, char *err, size_t errlen) {
  return rt_open_library(dev, NULL, ordinal, err, errlen);
}

void rt_close(RtDevice *dev) {
  if (!dev) return;
  if (dev->ctx) dev->api.cuDevicePrimaryCtxRelease(dev->dev);
  /* Once cuInit has run, the driver has started threads and registered
   * exit handlers that live in its code: unloading it then can crash the
   * process at exit, so an initialised driver stays mapped (dlopen
   * reference counting makes a later rt_open reuse it). */
  if (dev->lib && !dev->initialised) dlclose(dev->lib);
  free(dev);
}

const char *rt_last_error(const RtDevice *dev) {
  return dev ? dev->err : "";
}

int rti_make_current(RtDevice *dev, char *err, size_t errlen) {
  CUresult r = dev->api.cuCtxSetCurrent(dev->ctx);
  if (r == CUDA_SUCCESS) return RT_OK;
  char why[256];
  rti_cu_describe(dev, r, why, sizeof why);
  return rti_fail(dev, err, errlen, RT_ERROR, "cuCtxSetCurrent: %s", why);
}

int rt_device_name(RtDevice *dev, char *buf, size_t n) {
  if (!dev || !buf || n == 0)
    return rti_fail(dev, NULL, 0, RT_ERROR, "rt_device_name: bad arguments");
  char name[256] = "";
  CUresult r = dev->api.cuDeviceGetName(name, (int)sizeof name - 1, dev->dev);
  if (r != CUDA_SUCCESS) {
    char why[256];
    rti_cu_describe(dev, r, why, sizeof why);
    buf[0] = '\0';
    return rti_fail(dev, NULL, 0, RT_ERROR, "cuDeviceGetName: %s", why);
  }
  snprintf(buf, n, "%s", name);
  return RT_OK;
}

int rt_device_info(RtDevice *dev, int *driver_version, int *cc_major,
                   int *cc_minor) {
  if (!dev) return RT_ERROR;
  int v = 0, maj = 0, min = 0;
  if (dev->api.cuDriverGetVersion(&v) != CUDA_SUCCESS ||
      dev->api.cuDeviceGetAttribute(
        &maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev->dev) !=
        CUDA_SUCCESS ||
      dev->api.cuDeviceGetAttribute(
        &min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev->dev) !=
        CUDA_SUCCESS)
    return rti_fail(dev, NULL, 0, RT_ERROR, "cannot query the device");
  if (driver_version) *driver_version = v;
  if (cc_major) *cc_major = maj;
  if (cc_minor) *cc_minor = min;
  return RT_OK;
}
