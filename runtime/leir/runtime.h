/* leir/runtime.h -- libleirrt: load and run leirc's PTX through the CUDA
 * Driver API.
 *
 * libleirrt needs no CUDA headers and no CUDA library at build time: it opens
 * the driver (libcuda.so.1, then libcuda.so) with dlopen when rt_open is
 * called.  A program built against it therefore runs everywhere and reports
 * "no CUDA driver found" (status RT_ENODRIVER, 77 -- the exit status that
 * test harnesses read as "unsupported") on machines without a GPU.
 *
 * The PTX that leirc writes describes itself: before the PTX proper it holds
 * a launch plan in comment lines (ptxas ignores them), one item a line, the
 * fields separated by single spaces:
 *
 *   // leir-plan 1
 *   // leir-tensor NAME ROLE DTYPE DIMS
 *   // leir-launch KERNEL GX,GY,GZ BX,BY,BZ SHMEM HOSTLOOPS ARGS
 *
 *   ROLE       in, param, out or tmp.  The arguments of the program (in,
 *              param, out) come first, in declaration order, then the global
 *              intermediates (tmp), which the runtime allocates for the run.
 *   DTYPE      f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bool.
 *   DIMS       the shape, e.g. 64,32; '-' for a 0-d scalar.
 *   KERNEL     the .entry name; launches are listed in execution order.
 *   GX,GY,GZ   grid (blocks); BX,BY,BZ block (threads); SHMEM dynamic
 *              shared memory in bytes.
 *   HOSTLOOPS  '-' or i:N,j:M -- host loops, outermost first: the kernel is
 *              launched once per iteration, in sequential order.
 *   ARGS       '-' or a comma list of the kernel's parameters: a tensor NAME
 *              (a device pointer to it) or %i (the current value of host
 *              loop i, as a 64-bit integer).
 *
 * Example:  // leir-launch leir_k1 4,1,1 128,1,1 0 a:8 A,E,D,%a
 *
 * Conventions: every function that can fail returns RT_OK (0) or a nonzero
 * status.  Functions taking `char *err, size_t errlen` write a message (no
 * trailing newline, truncated to errlen) there on failure; err may be NULL.
 * The last message of a device is also kept and returned by rt_last_error.
 * Nothing is global: all state hangs off an RtDevice, an RtModule or an
 * RtPlan, so separate devices may be used from separate threads (one device
 * from one thread at a time).
 */
#ifndef LEIR_RUNTIME_H
#define LEIR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
enum {
  RT_OK = 0,
  RT_ERROR = 1,      /* any failure; the message says what */
  RT_ENODRIVER = 77, /* no usable CUDA driver or device */
};

/* The most dimensions a plan tensor may have. */
#define RT_MAX_DIMS 32

typedef struct RtDevice RtDevice; /* the driver + primary context of a device */
typedef struct RtModule RtModule; /* a loaded PTX module */
typedef struct RtPlan RtPlan;     /* a parsed launch plan */

typedef enum RtRole { RT_ROLE_IN, RT_ROLE_PARAM, RT_ROLE_OUT, RT_ROLE_TMP } RtRole;

/* One tensor of a plan; the pointers stay valid until rt_plan_free. */
typedef struct RtTensorInfo {
  const char *name;
  RtRole role;
  const char *dtype;      /* "f32", ... */
  size_t elem_size;       /* bytes per element */
  int ndim;               /* 0 for a scalar */
  const int64_t *shape;   /* ndim extents */
  size_t nelem;           /* product of the shape (1 for a scalar) */
  size_t bytes;           /* nelem * elem_size */
} RtTensorInfo;

typedef enum RtArgKind { RT_ARG_TENSOR, RT_ARG_LOOP } RtArgKind;

/* One kernel parameter: tensor `index` of the plan, or host loop `index`
 * of the launch. */
typedef struct RtArg {
  RtArgKind kind;
  int index;
} RtArg;

/* One launch of a plan; the pointers stay valid until rt_plan_free. */
typedef struct RtLaunchInfo {
  const char *kernel;
  unsigned grid[3], block[3];
  unsigned shmem;
  int nloops;                 /* host loops, outermost first */
  const char *const *loop_names;
  const int64_t *loop_extents;
  uint64_t launches;          /* product of the loop extents (1 without) */
  int nargs;
  const RtArg *args;
} RtLaunchInfo;

/* ------------------------------------------------------------ device */

/* Opens the CUDA driver, initialises it and makes the primary context of
 * device `ordinal` current.  Fails with RT_ENODRIVER and a message that
 * starts "no CUDA driver found" when libcuda cannot be opened, when cuInit
 * fails (a stub library, no device, a driver/kernel-module mismatch) or when
 * there is no device; with RT_ERROR when the driver lacks a needed function
 * or `ordinal` is not a device.  On failure *dev is NULL. */
int rt_open(RtDevice **dev, int ordinal, char *err, size_t errlen);

/* The same, opening the driver library at `path` (a file name searched like
 * dlopen does, or a path) instead of libcuda.so.1/libcuda.so; NULL means the
 * default.  Meant for tests and unusual installations. */
int rt_open_library(RtDevice **dev, const char *path, int ordinal, char *err,
                    size_t errlen);

/* Releases the primary context.  NULL is allowed. */
void rt_close(RtDevice *dev);

/* The last error message recorded on dev ("" if none). */
const char *rt_last_error(const RtDevice *dev);

/* The device's name ("NVIDIA H200"), truncated to n bytes. */
int rt_device_name(RtDevice *dev, char *buf, size_t n);

/* Driver version as the driver reports it (12040 for 12.4) and the device's
 * compute capability (major, minor); any pointer may be NULL. */
int rt_device_info(RtDevice *dev, int *driver_version, int *cc_major,
                   int *cc_minor);

/* ------------------------------------------------------------ plan */

/* Parses the launch plan at the start of leirc's PTX text.  Pure C: needs no
 * driver.  Errors name the line: "line 3: leir-tensor: unknown dtype 'f33'".
 * Checks: the '// leir-plan 1' line comes first; every field is well formed;
 * tensor and loop names are [A-Za-z_][A-Za-z0-9_]* (at most 63 characters)
 * and unique; tmp tensors follow the arguments; sizes do not overflow;
 * grid and block are within the hardware limits (at most 1024 threads per
 * block, block z at most 64, grid x at most 2^31-1, grid y and z at most
 * 65535; SHMEM at most 227 KiB); ARGS name declared tensors or host loops of
 * the same launch.  On failure *plan is NULL. */
int rt_plan_parse(const char *ptx_text, RtPlan **plan, char *err, size_t errlen);

/* NULL is allowed. */
void rt_plan_free(RtPlan *p);

size_t rt_plan_tensor_count(const RtPlan *p);
/* Number of argument tensors (in, param, out): tensors 0 .. count-1. */
size_t rt_plan_arg_count(const RtPlan *p);
size_t rt_plan_launch_count(const RtPlan *p);
/* RT_ERROR when i is out of range. */
int rt_plan_tensor(const RtPlan *p, size_t i, RtTensorInfo *out);
int rt_plan_launch(const RtPlan *p, size_t i, RtLaunchInfo *out);
/* Index of the tensor called name, or -1. */
int rt_plan_find(const RtPlan *p, const char *name);

/* "in", "param", "out", "tmp". */
const char *rt_role_name(RtRole r);
/* Bytes per element of a plan dtype ("f32" -> 4), 0 if unknown. */
size_t rt_dtype_size(const char *dtype);

/* ------------------------------------------------------------ modules */

/* Loads PTX text (NUL-terminated) with cuModuleLoadDataEx into dev's
 * context.  On failure the message holds the driver's error and the JIT
 * compiler's error log (ptxas' messages), one per line. */
int rt_module_load(RtDevice *dev, const char *ptx_text, RtModule **m,
                   char *err, size_t errlen);

/* The JIT compiler's information log (register use etc.; may be ""). */
const char *rt_module_log(const RtModule *m);

/* NULL is allowed. */
void rt_module_unload(RtModule *m);

/* ------------------------------------------------------------ running */

/* Runs the whole plan once: host_args holds one host buffer for each
 * argument tensor, in plan order (rt_plan_arg_count entries, each
 * rt_plan_tensor(...).bytes long, in host byte order, C order).  Allocates
 * device memory for every tensor (outputs and intermediates are not
 * initialised), copies the in and param tensors to the device, launches the
 * kernels in plan order on the default stream (once per host-loop
 * iteration), copies the out tensors back into their host buffers and frees
 * the device memory.  If ms is not NULL it receives the GPU time from the
 * first launch to the end of the last one, measured with events (copies not
 * included).  Kernel names are looked up in m; a missing one is an error
 * before anything runs. */
int rt_run_plan(RtDevice *dev, RtModule *m, const RtPlan *p,
                void *const *host_args, double *ms, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* LEIR_RUNTIME_H */
