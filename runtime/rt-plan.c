/* rt-plan.c -- parsing the launch plan that leirc writes as comment lines
 * at the start of its PTX (format: leir/runtime.h).  Pure C, no driver.
 *
 * The plan comes from a file a user may have edited or truncated, so every
 * field is checked and every failure is a one-line message naming the line;
 * nothing here may crash or overflow on bad input. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "rt-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hardware limits of every GPU leirc targets (sm_70 and newer). */
#define RT_MAX_THREADS 1024u
#define RT_MAX_BLOCK_XY 1024u
#define RT_MAX_BLOCK_Z 64u
#define RT_MAX_GRID_X 2147483647u
#define RT_MAX_GRID_YZ 65535u
#define RT_MAX_SHMEM (227u * 1024u)
/* Limits of the plan format itself. */
#define RT_MAX_NAME 63
#define RT_MAX_KERNEL_NAME 255
#define RT_MAX_FIELDS 8
#define RT_MAX_ARGS 512
#define RT_MAX_LAUNCHES_PER_LINE (UINT64_C(1) << 32)
#define RT_MAX_TENSOR_BYTES (UINT64_C(1) << 48)

typedef struct Parser {
  RtPlan *p;
  int line;             /* 1-based line number of the current line */
  const char *what;     /* directive being parsed, for messages */
  int seen_plan;
  int seen_tmp;
  char *err;
  size_t errlen;
} Parser;

typedef struct Fields {
  int n;
  char *f[RT_MAX_FIELDS];
} Fields;

__attribute__((format(printf, 2, 3)))
static int perr(Parser *ps, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (ps->what)
    return rti_fail(NULL, ps->err, ps->errlen, RT_ERROR, "line %d: %s: %s",
                    ps->line, ps->what, msg);
  return rti_fail(NULL, ps->err, ps->errlen, RT_ERROR, "line %d: %s", ps->line,
                  msg);
}

/* ------------------------------------------------------------ lexical */

static int is_alpha_(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Tensor and loop names: they become file names (NAME.npy), so no '/',
 * '.' or anything a shell would treat specially. */
static int valid_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > RT_MAX_NAME || !is_alpha_(s[0])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_alpha_(s[i]) && !is_digit(s[i])) return 0;
  return 1;
}

/* PTX identifiers: [A-Za-z_$][A-Za-z0-9_$]*. */
static int valid_kernel_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > RT_MAX_KERNEL_NAME || !(is_alpha_(s[0]) || s[0] == '$'))
    return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_alpha_(s[i]) && !is_digit(s[i]) && s[i] != '$') return 0;
  return 1;
}

/* A decimal number of at most `max`: digits only, no sign, no spaces. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  if (!*s) return 0;
  for (; *s; s++) {
    if (!is_digit(*s)) return 0;
    unsigned d = (unsigned)(*s - '0');
    if (v > (max - d) / 10) return 0;
    v = v * 10 + d;
  }
  *out = v;
  return 1;
}

/* Splits `line` (modified in place) at single spaces. */
static int split_fields(Parser *ps, char *line, Fields *fs) {
  fs->n = 0;
  for (char *s = line;;) {
    char *sp = strchr(s, ' ');
    if (sp) *sp = '\0';
    if (!*s)
      return perr(ps, "empty field (fields are separated by single spaces)");
    if (fs->n == RT_MAX_FIELDS) return perr(ps, "too many fields");
    fs->f[fs->n++] = s;
    if (!sp) return RT_OK;
    s = sp + 1;
  }
}

/* Splits a comma list (modified in place) into at most max items. */
static int split_list(char *s, char **items, int max) {
  int n = 0;
  for (;;) {
    char *c = strchr(s, ',');
    if (c) *c = '\0';
    if (n == max) return -1;
    items[n++] = s;
    if (!c) return n;
    s = c + 1;
  }
}

/* ------------------------------------------------------------ tensors */

static const struct { const char *name; size_t size; } dtypes[] = {
  {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"f64", 8}, {"i8", 1},
  {"i16", 2}, {"i32", 4},  {"i64", 8}, {"u8", 1},  {"u16", 2},
  {"u32", 4}, {"u64", 8},  {"bool", 1},
};

static const char *const role_names[] = {"in", "param", "out", "tmp"};

size_t rt_dtype_size(const char *dtype) {
  for (size_t i = 0; dtype && i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (!strcmp(dtype, dtypes[i].name)) return dtypes[i].size;
  return 0;
}

const char *rt_role_name(RtRole r) {
  return r >= RT_ROLE_IN && r <= RT_ROLE_TMP ? role_names[r] : "?";
}

static const char *static_dtype(const char *dtype) {
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (!strcmp(dtype, dtypes[i].name)) return dtypes[i].name;
  return NULL;
}

int rt_plan_find(const RtPlan *p, const char *name) {
  for (size_t i = 0; p && name && i < p->ntensors; i++)
    if (!strcmp(p->tensors[i].name, name)) return (int)i;
  return -1;
}

static int parse_role(Parser *ps, const char *s, RtRole *role) {
  for (int r = RT_ROLE_IN; r <= RT_ROLE_TMP; r++)
    if (!strcmp(s, role_names[r])) {
      *role = (RtRole)r;
      return RT_OK;
    }
  return perr(ps, "unknown role '%s' (in, param, out or tmp)", s);
}

/* DIMS: '-' or a comma list of extents >= 1; fills shape, nelem, bytes. */
static int parse_dims(Parser *ps, char *s, RtTensor *t) {
  t->ndim = 0;
  t->nelem = 1;
  if (strcmp(s, "-")) {
    char *items[RT_MAX_DIMS];
    int n = split_list(s, items, RT_MAX_DIMS);
    if (n < 0) return perr(ps, "more than %d dimensions", RT_MAX_DIMS);
    for (int i = 0; i < n; i++) {
      uint64_t e;
      if (!parse_uint(items[i], RT_MAX_TENSOR_BYTES, &e) || e == 0)
        return perr(ps, "bad extent '%s' (a number from 1 to 2^48)", items[i]);
      if (t->nelem > RT_MAX_TENSOR_BYTES / e)
        return perr(ps, "tensor '%s' is too large (more than 2^48 bytes)",
                    t->name);
      t->shape[t->ndim++] = (int64_t)e;
      t->nelem *= (size_t)e;
    }
  }
  if (t->nelem > RT_MAX_TENSOR_BYTES / t->elem_size)
    return perr(ps, "tensor '%s' is too large (more than 2^48 bytes)",
                t->name);
  t->bytes = t->nelem * t->elem_size;
  return RT_OK;
}

static RtTensor *new_tensor(RtPlan *p) {
  if (p->ntensors == p->cap_tensors) {
    size_t cap = p->cap_tensors ? 2 * p->cap_tensors : 8;
    RtTensor *t = realloc(p->tensors, cap * sizeof *t);
    if (!t) return NULL;
    p->tensors = t;
    p->cap_tensors = cap;
  }
  RtTensor *t = &p->tensors[p->ntensors];
  memset(t, 0, sizeof *t);
  return t;
}

/* leir-tensor NAME ROLE DTYPE DIMS */
static int parse_tensor(Parser *ps, Fields *fs) {
  if (fs->n != 5)
    return perr(ps, "expected NAME ROLE DTYPE DIMS, got %d field%s",
                fs->n - 1, fs->n == 2 ? "" : "s");
  const char *name = fs->f[1];
  if (!valid_name(name))
    return perr(ps, "bad tensor name '%s' ([A-Za-z_][A-Za-z0-9_]*, at most "
                "%d characters)", name, RT_MAX_NAME);
  if (rt_plan_find(ps->p, name) >= 0)
    return perr(ps, "tensor '%s' declared twice", name);
  RtTensor tmp = {0};
  if (parse_role(ps, fs->f[2], &tmp.role)) return RT_ERROR;
  if (tmp.role != RT_ROLE_TMP && ps->seen_tmp)
    return perr(ps, "argument tensor '%s' after a tmp tensor (arguments "
                "come first)", name);
  if (!(tmp.dtype = static_dtype(fs->f[3])))
    return perr(ps, "unknown dtype '%s'", fs->f[3]);
  tmp.elem_size = rt_dtype_size(tmp.dtype);
  tmp.name = (char *)name; /* for messages until it is copied */
  if (parse_dims(ps, fs->f[4], &tmp)) return RT_ERROR;
  RtTensor *t = new_tensor(ps->p);
  if (!t || !(tmp.name = strdup(name))) return perr(ps, "out of memory");
  *t = tmp;
  ps->p->ntensors++;
  if (tmp.role == RT_ROLE_TMP)
    ps->seen_tmp = 1;
  else
    ps->p->nargs_tensors++;
  return RT_OK;
}

/* ------------------------------------------------------------ launches */

/* "X,Y,Z" into v[3], each from 1 to max[i]. */
static int parse_triple(Parser *ps, char *s, const char *what,
                        const unsigned max[3], unsigned v[3]) {
  static const char axis[] = "xyz";
  char *items[3], text[64];
  snprintf(text, sizeof text, "%s", s); /* split_list cuts s up */
  if (split_list(s, items, 3) != 3)
    return perr(ps, "bad %s '%s' (X,Y,Z)", what, text);
  for (int i = 0; i < 3; i++) {
    uint64_t e;
    if (!parse_uint(items[i], UINT64_MAX, &e) || e == 0)
      return perr(ps, "bad %s %c '%s' (a number of at least 1)", what,
                  axis[i], items[i]);
    if (e > max[i])
      return perr(ps, "%s %c is %llu, more than the hardware limit %u", what,
                  axis[i], (unsigned long long)e, max[i]);
    v[i] = (unsigned)e;
  }
  return RT_OK;
}

static int parse_launch_dims(Parser *ps, Fields *fs, RtLaunch *l) {
  static const unsigned gmax[3] = {RT_MAX_GRID_X, RT_MAX_GRID_YZ,
                                   RT_MAX_GRID_YZ};
  static const unsigned bmax[3] = {RT_MAX_BLOCK_XY, RT_MAX_BLOCK_XY,
                                   RT_MAX_BLOCK_Z};
  char btext[64]; /* parse_triple cuts the field up */
  snprintf(btext, sizeof btext, "%s", fs->f[3]);
  if (parse_triple(ps, fs->f[2], "grid", gmax, l->grid) ||
      parse_triple(ps, fs->f[3], "block", bmax, l->block))
    return RT_ERROR;
  uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  if (threads > RT_MAX_THREADS)
    return perr(ps, "block %s has %llu threads, more than the hardware limit "
                "%u", btext, (unsigned long long)threads, RT_MAX_THREADS);
  uint64_t shmem;
  if (!parse_uint(fs->f[4], UINT64_MAX, &shmem))
    return perr(ps, "bad SHMEM '%s' (bytes of dynamic shared memory)",
                fs->f[4]);
  if (shmem > RT_MAX_SHMEM)
    return perr(ps, "SHMEM %llu bytes is more than the hardware limit %u "
                "(227 KiB)", (unsigned long long)shmem, RT_MAX_SHMEM);
  l->shmem = (unsigned)shmem;
  return RT_OK;
}

static int find_loop(const RtLaunch *l, const char *name) {
  for (int i = 0; i < l->nloops; i++)
    if (!strcmp(l->loop_names[i], name)) return i;
  return -1;
}

/* One "name:N" host loop into slot l->nloops. */
static int parse_loop(Parser *ps, char *item, RtLaunch *l) {
  char *colon = strchr(item, ':');
  uint64_t n;
  if (!colon) return perr(ps, "bad host loop '%s' (NAME:EXTENT)", item);
  *colon = '\0';
  if (!valid_name(item))
    return perr(ps, "bad host loop name '%s' ([A-Za-z_][A-Za-z0-9_]*)", item);
  if (find_loop(l, item) >= 0)
    return perr(ps, "host loop '%s' twice", item);
  if (!parse_uint(colon + 1, RT_MAX_LAUNCHES_PER_LINE, &n) || n == 0)
    return perr(ps, "bad extent '%s' of host loop '%s' (a number from 1 to "
                "2^32)", colon + 1, item);
  if (l->launches > RT_MAX_LAUNCHES_PER_LINE / n)
    return perr(ps, "host loops give more than 2^32 launches");
  if (!(l->loop_names[l->nloops] = strdup(item)))
    return perr(ps, "out of memory");
  l->loop_extents[l->nloops++] = (int64_t)n;
  l->launches *= n;
  return RT_OK;
}

static int parse_loops(Parser *ps, char *s, RtLaunch *l) {
  l->launches = 1;
  if (!strcmp(s, "-")) return RT_OK;
  int max = (int)strlen(s) / 2 + 1; /* every item takes at least "a:1," */
  char **items = malloc((size_t)max * sizeof *items);
  l->loop_names = calloc((size_t)max, sizeof *l->loop_names);
  l->loop_extents = calloc((size_t)max, sizeof *l->loop_extents);
  int st = items && l->loop_names && l->loop_extents
             ? RT_OK : perr(ps, "out of memory");
  int n = st ? 0 : split_list(s, items, max);
  for (int i = 0; i < n && st == RT_OK; i++) st = parse_loop(ps, items[i], l);
  free(items);
  return st;
}

static int parse_arg(Parser *ps, const char *item, RtLaunch *l, RtArg *a) {
  if (item[0] == '%') {
    a->kind = RT_ARG_LOOP;
    a->index = find_loop(l, item + 1);
    if (a->index < 0)
      return perr(ps, "argument '%s': '%s' is not a host loop of this launch",
                  item, item + 1);
    return RT_OK;
  }
  a->kind = RT_ARG_TENSOR;
  a->index = rt_plan_find(ps->p, item);
  if (a->index < 0)
    return perr(ps, "argument '%s' is not a declared tensor", item);
  return RT_OK;
}

static int parse_args(Parser *ps, char *s, RtLaunch *l) {
  if (!strcmp(s, "-")) return RT_OK;
  int n = 1;
  for (const char *c = s; *c; c++) n += *c == ',';
  if (n > RT_MAX_ARGS)
    return perr(ps, "more than %d kernel arguments", RT_MAX_ARGS);
  char **items = malloc((size_t)n * sizeof *items);
  l->args = calloc((size_t)n, sizeof *l->args);
  int st = items && l->args ? RT_OK : perr(ps, "out of memory");
  if (st == RT_OK) split_list(s, items, n);
  for (int i = 0; i < n && st == RT_OK; i++)
    if (!(st = parse_arg(ps, items[i], l, &l->args[i]))) l->nargs++;
  free(items);
  return st;
}

static void free_launch(RtLaunch *l) {
  free(l->kernel);
  for (int i = 0; i < l->nloops; i++) free(l->loop_names[i]);
  free(l->loop_names);
  free(l->loop_extents);
  free(l->args);
}

static int append_launch(Parser *ps, RtLaunch *l) {
  RtPlan *p = ps->p;
  if (p->nlaunches == p->cap_launches) {
    size_t cap = p->cap_launches ? 2 * p->cap_launches : 8;
    RtLaunch *n = realloc(p->launches, cap * sizeof *n);
    if (!n) return perr(ps, "out of memory");
    p->launches = n;
    p->cap_launches = cap;
  }
  p->launches[p->nlaunches++] = *l;
  return RT_OK;
}

/* leir-launch KERNEL GX,GY,GZ BX,BY,BZ SHMEM HOSTLOOPS ARGS */
static int parse_launch(Parser *ps, Fields *fs) {
  if (fs->n != 7)
    return perr(ps, "expected KERNEL GRID BLOCK SHMEM HOSTLOOPS ARGS, got %d "
                "field%s", fs->n - 1, fs->n == 2 ? "" : "s");
  if (!valid_kernel_name(fs->f[1]))
    return perr(ps, "bad kernel name '%s'", fs->f[1]);
  RtLaunch l = {0};
  int st = parse_launch_dims(ps, fs, &l);
  if (!st) st = parse_loops(ps, fs->f[5], &l);
  if (!st) st = parse_args(ps, fs->f[6], &l);
  if (!st && !(l.kernel = strdup(fs->f[1]))) st = perr(ps, "out of memory");
  if (!st) st = append_launch(ps, &l);
  if (st) free_launch(&l);
  return st;
}

/* ------------------------------------------------------------ lines */

static int parse_header(Parser *ps, Fields *fs) {
  if (ps->seen_plan) return perr(ps, "a second leir-plan line");
  if (fs->n != 2) return perr(ps, "expected a version number");
  if (strcmp(fs->f[1], "1"))
    return perr(ps, "unsupported plan version '%s' (this runtime reads "
                "version 1)", fs->f[1]);
  ps->seen_plan = 1;
  return RT_OK;
}

/* One "// leir-..." line, without the "// " (modified in place). */
static int parse_directive(Parser *ps, char *text) {
  Fields fs;
  ps->what = NULL;
  if (split_fields(ps, text, &fs)) return RT_ERROR;
  static const struct {
    const char *name;
    int (*fn)(Parser *, Fields *);
  } table[] = {
    {"leir-plan", parse_header},
    {"leir-tensor", parse_tensor},
    {"leir-launch", parse_launch},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strcmp(fs.f[0], table[i].name)) continue;
    ps->what = table[i].name;
    if (i > 0 && !ps->seen_plan)
      return perr(ps, "before the '// leir-plan 1' line");
    return table[i].fn(ps, &fs);
  }
  return perr(ps, "unknown plan directive '%s'", fs.f[0]);
}

static int blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t') return 0;
  return 1;
}

/* Handles one line of length n; *stop becomes 1 at the PTX proper. */
static int parse_line(Parser *ps, const char *s, size_t n, int *stop) {
  static const char prefix[] = "// leir-";
  const size_t plen = sizeof prefix - 1;
  if (n && s[n - 1] == '\r') n--;
  if (blank(s, n)) return RT_OK;
  if (n < 2 || s[0] != '/' || s[1] != '/') {
    *stop = 1;
    return RT_OK;
  }
  if (n < plen || memcmp(s, prefix, plen)) return RT_OK; /* other comment */
  char *text = malloc(n - 2);
  if (!text) return perr(ps, "out of memory");
  memcpy(text, s + 3, n - 3);
  text[n - 3] = '\0';
  int st = parse_directive(ps, text);
  free(text);
  return st;
}

int rt_plan_parse(const char *ptx_text, RtPlan **plan, char *err,
                  size_t errlen) {
  if (!plan) return rti_fail(NULL, err, errlen, RT_ERROR, "plan is NULL");
  *plan = NULL;
  if (!ptx_text) return rti_fail(NULL, err, errlen, RT_ERROR, "no PTX text");
  Parser ps = {.p = calloc(1, sizeof(RtPlan)), .err = err, .errlen = errlen};
  if (!ps.p) return rti_fail(NULL, err, errlen, RT_ERROR, "out of memory");
  int stop = 0, st = RT_OK;
  for (const char *s = ptx_text; *s && !stop && st == RT_OK;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    ps.line++;
    st = parse_line(&ps, s, n, &stop);
    s += n + (nl != NULL);
  }
  if (st == RT_OK && !ps.seen_plan)
    st = rti_fail(NULL, err, errlen, RT_ERROR,
                  "no launch plan: the PTX does not start with a "
                  "'// leir-plan 1' line (was it written by leirc?)");
  if (st != RT_OK) {
    rt_plan_free(ps.p);
    return st;
  }
  *plan = ps.p;
  return RT_OK;
}

void rt_plan_free(RtPlan *p) {
  if (!p) return;
  for (size_t i = 0; i < p->ntensors; i++) free(p->tensors[i].name);
  for (size_t i = 0; i < p->nlaunches; i++) free_launch(&p->launches[i]);
  free(p->tensors);
  free(p->launches);
  free(p);
}

/* ------------------------------------------------------------ accessors */

size_t rt_plan_tensor_count(const RtPlan *p) { return p ? p->ntensors : 0; }
size_t rt_plan_arg_count(const RtPlan *p) { return p ? p->nargs_tensors : 0; }
size_t rt_plan_launch_count(const RtPlan *p) { return p ? p->nlaunches : 0; }

int rt_plan_tensor(const RtPlan *p, size_t i, RtTensorInfo *out) {
  if (!p || !out || i >= p->ntensors) return RT_ERROR;
  const RtTensor *t = &p->tensors[i];
  *out = (RtTensorInfo){t->name, t->role, t->dtype, t->elem_size, t->ndim,
                        t->shape, t->nelem, t->bytes};
  return RT_OK;
}

int rt_plan_launch(const RtPlan *p, size_t i, RtLaunchInfo *out) {
  if (!p || !out || i >= p->nlaunches) return RT_ERROR;
  const RtLaunch *l = &p->launches[i];
  *out = (RtLaunchInfo){
    .kernel = l->kernel, .shmem = l->shmem, .nloops = l->nloops,
    .loop_names = (const char *const *)l->loop_names,
    .loop_extents = l->loop_extents, .launches = l->launches,
    .nargs = l->nargs, .args = l->args};
  memcpy(out->grid, l->grid, sizeof l->grid);
  memcpy(out->block, l->block, sizeof l->block);
  return RT_OK;
}
