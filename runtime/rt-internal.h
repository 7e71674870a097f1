/* rt-internal.h -- libleirrt's private declarations: the handful of CUDA
 * Driver API types and constants it uses (so that no CUDA header is needed
 * to build it), the table of driver entry points resolved with dlsym, and
 * the structures behind the opaque handles of leir/runtime.h. */
#ifndef LEIR_RT_INTERNAL_H
#define LEIR_RT_INTERNAL_H

#include "leir/runtime.h"

#include <stdarg.h>

/* ---- CUDA Driver API (values from the public cuda.h) ------------------ */

typedef int CUresult;
typedef int CUdevice;
typedef int CUjit_option;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_UNKNOWN = 999,
};

enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
};

enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_EVENT_DEFAULT = 0,
};

/* Dynamic shared memory above this needs an opt-in per function. */
#define RT_SHMEM_DEFAULT_LIMIT (48u * 1024u)

/* The driver entry points libleirrt calls: X(field, return, params, name,
 * fallback name).  The first name is tried first; the fallback (or NULL)
 * covers drivers that export only the older unversioned symbol.  Entries
 * marked optional in rt-device.c may be missing. */
#define RT_CUDA_FUNCS(X)                                                      \
  X(cuInit, CUresult, (unsigned), "cuInit", NULL)                             \
  X(cuDriverGetVersion, CUresult, (int *), "cuDriverGetVersion", NULL)        \
  X(cuDeviceGetCount, CUresult, (int *), "cuDeviceGetCount", NULL)            \
  X(cuDeviceGet, CUresult, (CUdevice *, int), "cuDeviceGet", NULL)            \
  X(cuDeviceGetName, CUresult, (char *, int, CUdevice), "cuDeviceGetName",    \
    NULL)                                                                     \
  X(cuDeviceGetAttribute, CUresult, (int *, int, CUdevice),                   \
    "cuDeviceGetAttribute", NULL)                                             \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice),              \
    "cuDevicePrimaryCtxRetain", NULL)                                         \
  X(cuDevicePrimaryCtxRelease, CUresult, (CUdevice),                          \
    "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")              \
  X(cuCtxSetCurrent, CUresult, (CUcontext), "cuCtxSetCurrent", NULL)          \
  X(cuCtxSynchronize, CUresult, (void), "cuCtxSynchronize", NULL)             \
  X(cuMemAlloc, CUresult, (CUdeviceptr *, size_t), "cuMemAlloc_v2", NULL)     \
  X(cuMemFree, CUresult, (CUdeviceptr), "cuMemFree_v2", NULL)                 \
  X(cuMemcpyHtoD, CUresult, (CUdeviceptr, const void *, size_t),              \
    "cuMemcpyHtoD_v2", NULL)                                                  \
  X(cuMemcpyDtoH, CUresult, (void *, CUdeviceptr, size_t),                    \
    "cuMemcpyDtoH_v2", NULL)                                                  \
  X(cuModuleLoadDataEx, CUresult,                                             \
    (CUmodule *, const void *, unsigned, CUjit_option *, void **),            \
    "cuModuleLoadDataEx", NULL)                                               \
  X(cuModuleUnload, CUresult, (CUmodule), "cuModuleUnload", NULL)             \
  X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *),    \
    "cuModuleGetFunction", NULL)                                              \
  X(cuFuncSetAttribute, CUresult, (CUfunction, int, int),                     \
    "cuFuncSetAttribute", NULL)                                               \
  X(cuLaunchKernel, CUresult,                                                 \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,  \
     unsigned, CUstream, void **, void **),                                   \
    "cuLaunchKernel", NULL)                                                   \
  X(cuEventCreate, CUresult, (CUevent *, unsigned), "cuEventCreate", NULL)    \
  X(cuEventRecord, CUresult, (CUevent, CUstream), "cuEventRecord", NULL)      \
  X(cuEventSynchronize, CUresult, (CUevent), "cuEventSynchronize", NULL)      \
  X(cuEventElapsedTime, CUresult, (float *, CUevent, CUevent),                \
    "cuEventElapsedTime", NULL)                                               \
  X(cuEventDestroy, CUresult, (CUevent), "cuEventDestroy_v2",                 \
    "cuEventDestroy")                                                         \
  X(cuGetErrorName, CUresult, (CUresult, const char **), "cuGetErrorName",    \
    NULL)                                                                     \
  X(cuGetErrorString, CUresult, (CUresult, const char **),                    \
    "cuGetErrorString", NULL)

#define RT_CUDA_FIELD(field, ret, params, name, fallback) ret(*field) params;
typedef struct RtDriverApi {
  RT_CUDA_FUNCS(RT_CUDA_FIELD)
} RtDriverApi;
#undef RT_CUDA_FIELD

/* ---- handles ------------------------------------------------------------ */

#define RT_ERRBUF 8192

struct RtDevice {
  void *lib;          /* dlopen handle */
  RtDriverApi api;
  int initialised;    /* cuInit succeeded */
  int ordinal;
  CUdevice dev;
  CUcontext ctx;      /* the retained primary context, or NULL */
  char err[RT_ERRBUF];
};

struct RtModule {
  RtDevice *dev;
  CUmodule mod;
  char *info_log;     /* malloc'd, never NULL once loaded */
};

typedef struct RtTensor {
  char *name;
  RtRole role;
  const char *dtype;  /* static string */
  size_t elem_size;
  int ndim;
  int64_t shape[RT_MAX_DIMS];
  size_t nelem, bytes;
} RtTensor;

typedef struct RtLaunch {
  char *kernel;
  unsigned grid[3], block[3];
  unsigned shmem;
  int nloops;
  char **loop_names;
  int64_t *loop_extents;
  uint64_t launches;
  int nargs;
  RtArg *args;
} RtLaunch;

struct RtPlan {
  size_t ntensors, nargs_tensors, nlaunches;
  size_t cap_tensors, cap_launches;
  RtTensor *tensors;
  RtLaunch *launches;
};

/* ---- helpers shared by the runtime's files ------------------------------ */

/* Formats a message into err (if not NULL) and dev->err (if dev is not
 * NULL) and returns status. */
int rti_fail(RtDevice *dev, char *err, size_t errlen, int status,
             const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));

/* "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)" for a driver
 * result, using the driver's own names where it gives them. */
void rti_cu_describe(const RtDevice *dev, CUresult r, char *buf, size_t n);

/* Makes dev's context current on the calling thread. */
int rti_make_current(RtDevice *dev, char *err, size_t errlen);

#endif /* LEIR_RT_INTERNAL_H */
