/* leirrt-run.c -- run leirc's PTX on a GPU: load the module, read the
 * inputs from .npy files, run the launch plan, write the outputs and print
 * the GPU time.
 *
 * Built with nothing but a C compiler and libdl, so that it can be compiled
 * on a GPU machine without LLVM or any -dev package:
 *   gcc -std=c17 -O2 -I. -Iruntime runtime/rt-*.c interp/npy.c \
 *       runtime/leirrt-run.c -ldl -o leirrt-run
 *
 * Exit status: 0 success, 1 error (bad input, failed run, outputs that
 * differ between repeats), 2 usage, 77 no CUDA driver or device. */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include "interp/npy.h"
#include "leir/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ERRLEN 16384
#define MAX_REPEAT 100000

static const char usage_text[] =
  "Usage: leirrt-run [OPTION]... PROGRAM.ptx\n"
  "Run a PTX program written by leirc on a CUDA device.\n"
  "\n"
  "  -i, --input NAME=FILE.npy  the value of input or parameter NAME\n"
  "                             (every one is required)\n"
  "  -o, --output-dir DIR       write DIR/NAME.npy for every output\n"
  "  -r, --repeat N             after a warm-up run, run N more times and\n"
  "                             print 'time_ms median=M min=T runs=N'\n"
  "                             (default 1); the outputs of every run must\n"
  "                             be bit-identical\n"
  "  -d, --device N             use CUDA device N (default 0)\n"
  "      --driver LIB           open the CUDA driver LIB instead of\n"
  "                             libcuda.so.1\n"
  "  -v, --verbose              print the device and the JIT compiler's log\n"
  "      --plan                 print the launch plan and exit (no GPU needed)\n"
  "  -h, --help                 show this help and exit\n"
  "\n"
  "Exit status: 0 success, 1 error, 2 usage error, 77 no CUDA driver found.\n";

typedef struct Input {
  const char *name, *file;
} Input;

typedef struct Options {
  const char *ptx, *outdir, *driver;
  Input *inputs;
  int ninputs;
  long repeat;
  int device, verbose, plan_only;
} Options;

/* Everything a run holds, freed by state_free. */
typedef struct State {
  RtPlan *plan;
  RtDevice *dev;
  RtModule *mod;
  char *ptx;
  void **host;   /* one buffer per argument tensor */
  void **first;  /* outputs of the warm-up run, to compare repeats with */
  double *times;
  size_t nargs;
} State;

static int usage(const char *msg, const char *arg) {
  fprintf(stderr, "leirrt-run: ");
  fprintf(stderr, msg, arg);
  fprintf(stderr, "\nTry 'leirrt-run --help' for more information.\n");
  return 2;
}

/* ------------------------------------------------------------ options */

/* The value of option argv[*i] ("--opt VALUE" or "--opt=VALUE"), or NULL
 * when argv[*i] is not that option. */
static const char *opt_value(int argc, char **argv, int *i, const char *s,
                             const char *l, int *missing) {
  const char *a = argv[*i];
  size_t ll = strlen(l);
  if (!strncmp(a, l, ll) && a[ll] == '=') return a + ll + 1;
  if (strcmp(a, s) && strcmp(a, l)) return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int parse_number(const char *s, long max, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 0 || v > max) return 0;
  *out = v;
  return 1;
}

static int add_input(Options *o, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1])
    return usage("bad --input '%s' (NAME=FILE.npy)", arg);
  char *name = strndup(arg, (size_t)(eq - arg));
  if (!name) return usage("%s", "out of memory");
  o->inputs[o->ninputs++] = (Input){name, eq + 1};
  return 0;
}

/* One option at argv[*i]; returns -1 when it was handled, else an exit
 * status. */
static int parse_option(Options *o, int argc, char **argv, int *i) {
  int missing = 0;
  const char *a = argv[*i], *v;
  long n;
  if ((v = opt_value(argc, argv, i, "-i", "--input", &missing)))
    return add_input(o, v) ? 2 : -1;
  if ((v = opt_value(argc, argv, i, "-o", "--output-dir", &missing))) {
    o->outdir = v;
    return -1;
  }
  if ((v = opt_value(argc, argv, i, "-r", "--repeat", &missing))) {
    if (!parse_number(v, MAX_REPEAT, &n) || n < 1)
      return usage("bad --repeat '%s' (a number from 1 to 100000)", v);
    o->repeat = n;
    return -1;
  }
  if ((v = opt_value(argc, argv, i, "-d", "--device", &missing))) {
    if (!parse_number(v, 1023, &n)) return usage("bad --device '%s'", v);
    o->device = (int)n;
    return -1;
  }
  if ((v = opt_value(argc, argv, i, "--driver", "--driver", &missing))) {
    o->driver = v;
    return -1;
  }
  if (missing) return usage("option '%s' needs a value", a);
  if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) return o->verbose = 1, -1;
  if (!strcmp(a, "--plan")) return o->plan_only = 1, -1;
  if (!strcmp(a, "-h") || !strcmp(a, "--help"))
    return fputs(usage_text, stdout), 0;
  return usage("unknown option '%s'", a);
}

static int parse_options(Options *o, int argc, char **argv) {
  o->repeat = 1;
  o->inputs = calloc((size_t)argc, sizeof *o->inputs);
  if (!o->inputs) return usage("%s", "out of memory");
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '-' || !strcmp(argv[i], "-")) {
      if (o->ptx) return usage("more than one PTX file ('%s')", argv[i]);
      o->ptx = argv[i];
      continue;
    }
    int st = parse_option(o, argc, argv, &i);
    if (st >= 0) return st;
  }
  if (!o->ptx) return usage("%s", "no PTX file given");
  return -1;
}

/* ------------------------------------------------------------ files */

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "leirrt-run: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) {
      char *b = realloc(buf, cap *= 2);
      if (!b) free(buf);
      buf = b;
    }
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) {
    fprintf(stderr, "leirrt-run: cannot read %s\n", path);
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  if (strlen(buf) != n) {
    fprintf(stderr, "leirrt-run: %s: NUL byte in the PTX text\n", path);
    free(buf);
    return NULL;
  }
  return buf;
}

/* The .npy dtype that holds a plan dtype (bf16 travels as raw u2 bits). */
static const char *npy_descr_of(const char *dtype) {
  static const char *const map[][2] = {
    {"f16", "f2"}, {"bf16", "u2"}, {"f32", "f4"}, {"f64", "f8"},
    {"i8", "i1"},  {"i16", "i2"},  {"i32", "i4"}, {"i64", "i8"},
    {"u8", "u1"},  {"u16", "u2"},  {"u32", "u4"}, {"u64", "u8"},
    {"bool", "b1"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(dtype, map[i][0])) return map[i][1];
  return "?";
}

static void format_shape(char *buf, size_t n, int ndim, const int64_t *shape) {
  size_t k = (size_t)snprintf(buf, n, "(");
  for (int d = 0; d < ndim && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? "," : "",
                          (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, ")");
}

/* Reads input `in` into a fresh buffer after checking dtype and shape. */
static void *load_input(const RtTensorInfo *t, const Input *in) {
  NpyArray a = {0};
  char err[512];
  if (npy_read(in->file, &a, err, sizeof err)) {
    fprintf(stderr, "leirrt-run: %s\n", err);
    return NULL;
  }
  const char *want = npy_descr_of(t->dtype);
  int same = a.ndim == t->ndim &&
             !memcmp(a.shape, t->shape, (size_t)t->ndim * sizeof *t->shape);
  if (strcmp(a.descr, want) || !same) {
    char have[256], need[256];
    format_shape(have, sizeof have, a.ndim, a.shape);
    format_shape(need, sizeof need, t->ndim, t->shape);
    fprintf(stderr,
            "leirrt-run: input '%s': %s holds %s %s, the program wants %s "
            "(%s) %s\n", t->name, in->file, a.descr, have, t->dtype, want,
            need);
    npy_free(&a);
    return NULL;
  }
  void *data = a.data; /* ownership moves to the caller */
  return data;
}

static const Input *find_input(const Options *o, const char *name) {
  for (int i = 0; i < o->ninputs; i++)
    if (!strcmp(o->inputs[i].name, name)) return &o->inputs[i];
  return NULL;
}

/* Every --input names an input or parameter of the plan, once. */
static int check_inputs(const Options *o, const RtPlan *p) {
  for (int i = 0; i < o->ninputs; i++) {
    const char *name = o->inputs[i].name;
    int k = rt_plan_find(p, name);
    RtTensorInfo t;
    if (k < 0 || rt_plan_tensor(p, (size_t)k, &t)) {
      fprintf(stderr, "leirrt-run: --input %s: the program has no tensor "
              "'%s'\n", name, name);
      return 1;
    }
    if (t.role != RT_ROLE_IN && t.role != RT_ROLE_PARAM) {
      fprintf(stderr, "leirrt-run: --input %s: '%s' is not an input or "
              "parameter (its role is %s)\n", name, name,
              rt_role_name(t.role));
      return 1;
    }
    if (find_input(o, name) != &o->inputs[i]) {
      fprintf(stderr, "leirrt-run: --input %s given twice\n", name);
      return 1;
    }
  }
  return 0;
}

/* Host buffers: inputs from their files, outputs zeroed. */
static int load_buffers(const Options *o, State *s) {
  s->nargs = rt_plan_arg_count(s->plan);
  s->host = calloc(s->nargs + 1, sizeof *s->host);
  s->first = calloc(s->nargs + 1, sizeof *s->first);
  if (!s->host || !s->first) return fprintf(stderr, "leirrt-run: out of memory\n"), 1;
  for (size_t i = 0; i < s->nargs; i++) {
    RtTensorInfo t;
    rt_plan_tensor(s->plan, i, &t);
    if (t.role == RT_ROLE_OUT) {
      if (!(s->host[i] = calloc(1, t.bytes)) || !(s->first[i] = malloc(t.bytes)))
        return fprintf(stderr, "leirrt-run: out of memory\n"), 1;
      continue;
    }
    const Input *in = find_input(o, t.name);
    if (!in) {
      fprintf(stderr, "leirrt-run: no value for %s '%s' (use --input "
              "%s=FILE.npy)\n", rt_role_name(t.role), t.name, t.name);
      return 1;
    }
    if (!(s->host[i] = load_input(&t, in))) return 1;
  }
  return 0;
}

static int write_outputs(const Options *o, const State *s) {
  if (!o->outdir) return 0;
  if (mkdir(o->outdir, 0777) && errno != EEXIST) {
    fprintf(stderr, "leirrt-run: cannot create %s: %s\n", o->outdir,
            strerror(errno));
    return 1;
  }
  for (size_t i = 0; i < s->nargs; i++) {
    RtTensorInfo t;
    rt_plan_tensor(s->plan, i, &t);
    if (t.role != RT_ROLE_OUT) continue;
    size_t n = strlen(o->outdir) + strlen(t.name) + 6;
    char *path = malloc(n), err[512];
    if (!path) return fprintf(stderr, "leirrt-run: out of memory\n"), 1;
    snprintf(path, n, "%s/%s.npy", o->outdir, t.name);
    int bad = npy_write(path, npy_descr_of(t.dtype), t.ndim, t.shape,
                        s->first[i], err, sizeof err);
    free(path);
    if (bad) return fprintf(stderr, "leirrt-run: %s\n", err), 1;
  }
  return 0;
}

/* ------------------------------------------------------------ running */

static void print_plan(const RtPlan *p) {
  for (size_t i = 0; i < rt_plan_tensor_count(p); i++) {
    RtTensorInfo t;
    char shape[512];
    rt_plan_tensor(p, i, &t);
    format_shape(shape, sizeof shape, t.ndim, t.shape);
    printf("tensor %s %s %s %s %zu bytes\n", t.name, rt_role_name(t.role),
           t.dtype, shape, t.bytes);
  }
  for (size_t i = 0; i < rt_plan_launch_count(p); i++) {
    RtLaunchInfo l;
    rt_plan_launch(p, i, &l);
    printf("launch %s grid %u,%u,%u block %u,%u,%u shmem %u x%llu\n",
           l.kernel, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
           l.block[2], l.shmem, (unsigned long long)l.launches);
  }
}

static int open_device(const Options *o, State *s) {
  char *err = malloc(ERRLEN), name[256];
  if (!err) return fprintf(stderr, "leirrt-run: out of memory\n"), 1;
  int st = rt_open_library(&s->dev, o->driver, o->device, err, ERRLEN);
  if (st == RT_OK && o->verbose && rt_device_name(s->dev, name, sizeof name) == RT_OK)
    fprintf(stderr, "leirrt-run: device %d: %s\n", o->device, name);
  if (st == RT_OK)
    st = rt_module_load(s->dev, s->ptx, &s->mod, err, ERRLEN);
  if (st == RT_OK && o->verbose && *rt_module_log(s->mod))
    fprintf(stderr, "%s\n", rt_module_log(s->mod));
  if (st != RT_OK) fprintf(stderr, "leirrt-run: %s\n", err);
  free(err);
  return st == RT_ENODRIVER ? 77 : st != RT_OK;
}

/* After run k (1-based, the warm-up is 0): keep or compare the outputs. */
static int check_repeat(State *s, long k) {
  for (size_t i = 0; i < s->nargs; i++) {
    RtTensorInfo t;
    rt_plan_tensor(s->plan, i, &t);
    if (t.role != RT_ROLE_OUT) continue;
    if (k == 0) {
      memcpy(s->first[i], s->host[i], t.bytes);
    } else if (memcmp(s->first[i], s->host[i], t.bytes)) {
      fprintf(stderr, "leirrt-run: output '%s' of run %ld differs from the "
              "first run's (a race between threads?)\n", t.name, k + 1);
      return 1;
    }
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run_all(const Options *o, State *s) {
  char *err = malloc(ERRLEN);
  s->times = calloc((size_t)o->repeat, sizeof *s->times);
  if (!err || !s->times) {
    free(err);
    return fprintf(stderr, "leirrt-run: out of memory\n"), 1;
  }
  int st = 0;
  for (long k = 0; k <= o->repeat && !st; k++) {
    double ms = 0;
    if (rt_run_plan(s->dev, s->mod, s->plan, s->host, &ms, err, ERRLEN)) {
      fprintf(stderr, "leirrt-run: %s\n", err);
      st = 1;
    } else {
      st = check_repeat(s, k);
      if (k > 0) s->times[k - 1] = ms;
    }
  }
  free(err);
  if (st) return st;
  qsort(s->times, (size_t)o->repeat, sizeof *s->times, cmp_double);
  long n = o->repeat;
  double median = n % 2 ? s->times[n / 2]
                        : (s->times[n / 2 - 1] + s->times[n / 2]) / 2;
  printf("time_ms median=%.4f min=%.4f runs=%ld\n", median, s->times[0], n);
  return 0;
}

static void state_free(State *s, Options *o) {
  for (size_t i = 0; i < s->nargs; i++) {
    if (s->host) free(s->host[i]);
    if (s->first) free(s->first[i]);
  }
  free(s->host), free(s->first), free(s->times), free(s->ptx);
  rt_module_unload(s->mod);
  rt_close(s->dev);
  rt_plan_free(s->plan);
  for (int i = 0; i < o->ninputs; i++) free((char *)o->inputs[i].name);
  free(o->inputs);
}

static int run(Options *o, State *s) {
  char err[1024];
  if (!(s->ptx = read_text(o->ptx))) return 1;
  if (rt_plan_parse(s->ptx, &s->plan, err, sizeof err)) {
    fprintf(stderr, "leirrt-run: %s: %s\n", o->ptx, err);
    return 1;
  }
  if (o->plan_only) return print_plan(s->plan), 0;
  if (check_inputs(o, s->plan) || load_buffers(o, s)) return 1;
  int st = open_device(o, s);
  if (!st) st = run_all(o, s);
  if (!st) st = write_outputs(o, s);
  return st;
}

int main(int argc, char **argv) {
  Options o = {0};
  State s = {0};
  int st = parse_options(&o, argc, argv);
  if (st < 0) st = run(&o, &s);
  state_free(&s, &o);
  return st;
}
