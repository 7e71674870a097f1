/* mathlib_exhaustive.c -- the error of leirc's unary f32 math routines
 * (ir/mathlib.c) over every f32 input, against the correctly rounded result
 * (the method: testsuite/unit/mathlib_ulp.h).
 *
 *   mathlib_exhaustive [--threads T] [--stride S] [--values FILE] [ROUTINE...]
 *
 * ROUTINE: expf, expf_cr, logf, erff, erff_cr, cubef (x**3: leir_powf(x, 3))
 * (default: all of them; the _cr ones are the f64-inside routines kept for
 * reference); T threads (default 2) split the
 * 2^32 patterns; stride S checks every S-th pattern (default 1: all).
 * With --values FILE, the routine erff_values is another implementation's
 * erf read from FILE: the f32 results (raw, little-endian) for the patterns
 * 0, S, 2S, ... in that order, as `bench/mathlib_torch.py --erf-values FILE
 * --stride S` writes PyTorch's torch.erf (`make mathlib-torch-erf`).
 * Prints one line per routine: the maximum error in ulps and where, the
 * same for the inputs whose correctly rounded result is not subnormal
 * (normal, 0 or inf), how many results are not the correctly rounded one, and the unresolved and NaN
 * counts.  Exits 0 when every NaN is handled (for erff_values, whatever the
 * NaN mismatches: results that are NaN but not the input's bits), 1
 * otherwise, 2 on a bad argument or --values file.  Run by
 * `make mathlib-exhaustive` (a few minutes per routine on two cores).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/mathlib.h"
#include "testsuite/unit/mathlib_ulp.h"

/* the results --values read (erff_values), set before any thread starts,
   read-only after */
static const float *file_vals;
static uint64_t file_stride = 1;

static float values_f(float x) {
  uint32_t b;
  memcpy(&b, &x, 4);
  return file_vals[b / file_stride];
}

typedef struct {
  const char *name;
  float (*f)(float);
  double (*ref64)(double);
  long double (*refl)(long double);
  int (*known)(float, float *);
} Routine;

static float cubef(float x) { return leir_powf(x, 3.0f); }

static const Routine routines[] = {
    {"expf", leir_expf, leir_exp, expl, ml_known_exp},
    {"expf_cr", leir_expf_cr, leir_exp, expl, ml_known_exp},
    {"logf", leir_logf, leir_log, logl, ml_known_log},
    {"erff", leir_erff, leir_erf, erfl, ml_known_erf},
    {"erff_cr", leir_erff_cr, leir_erf, erfl, ml_known_erf},
    {"cubef", cubef, ml_cube64, ml_cubel, NULL},
    {"erff_values", values_f, leir_erf, erfl, ml_known_erf}, /* last: only with --values */
};

/* reads the --values file: one f32 per pattern of the stride's grid */
static float *read_values(const char *path, uint64_t stride) {
  uint64_t n = ((UINT64_C(1) << 32) + stride - 1) / stride;
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return NULL;
  }
  float *v = malloc(n * sizeof *v);
  size_t got = v ? fread(v, sizeof *v, n, f) : 0;
  int extra = fgetc(f);
  fclose(f);
  if (got != n || extra != EOF) {
    fprintf(stderr, "mathlib_exhaustive: %s: expected %llu f32 values for stride %llu\n", path,
            (unsigned long long)n, (unsigned long long)stride);
    free(v);
    return NULL;
  }
  return v;
}

typedef struct {
  const Routine *r;
  uint64_t first, end, stride;
  MlUlp s;
} Job;

static void *work(void *p) {
  Job *j = p;
  ml_ulp_check(&j->s, j->r->f, j->r->ref64, j->r->refl, j->r->known, j->first, j->end, j->stride);
  return NULL;
}

static int run(const Routine *r, int nthreads, uint64_t stride) {
  Job jobs[64];
  pthread_t tid[64];
  uint64_t total = (UINT64_C(1) << 32), chunk = total / (uint64_t)nthreads;
  chunk -= chunk % stride; /* every job starts on the stride's grid */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < nthreads; i++) {
    jobs[i] = (Job){r, (uint64_t)i * chunk, i == nthreads - 1 ? total : (uint64_t)(i + 1) * chunk, stride, {.n = 0}};
    if (pthread_create(&tid[i], NULL, work, &jobs[i])) work(&jobs[i]), tid[i] = 0;
  }
  MlUlp s = {0};
  for (int i = 0; i < nthreads; i++) {
    if (tid[i]) pthread_join(tid[i], NULL);
    ml_ulp_merge(&s, &jobs[i].s);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%s: %llu inputs, max %.6f ulp (at %a), normal results %.6f (at %a), %llu not correctly rounded, "
         "%llu unresolved, %llu NaN mismatches (%.1f s, %d threads)\n",
         r->name, (unsigned long long)s.n, s.max_ulp, (double)s.at, s.max_norm, (double)s.at_norm,
         (unsigned long long)s.wrong,
         (unsigned long long)s.unresolved, (unsigned long long)s.bad_nan,
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), nthreads);
  /* leirc's routines pass an input NaN through bit for bit; another
     implementation's (erff_values) need not: PyTorch returns 0x7fc00000 */
  return s.bad_nan && r->f != values_f ? 1 : 0;
}

int main(int argc, char **argv) {
  int nthreads = 2;
  uint64_t stride = 1;
  const char *values = NULL;
  int rc = 0, any = 0, i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "--threads")) nthreads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--stride")) stride = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--values")) values = argv[i + 1];
    else break;
  }
  if (nthreads < 1) nthreads = 1;
  if (nthreads > 64) nthreads = 64;
  if (stride < 1) stride = 1;
  float *vals = NULL;
  if (values) {
    if (!(vals = read_values(values, stride))) return 2;
    file_vals = vals;
    file_stride = stride;
  }
  size_t nr = sizeof routines / sizeof *routines - 1; /* erff_values: by name */
  for (; i < argc; i++) {
    size_t k = 0;
    while (k <= nr && strcmp(routines[k].name, argv[i])) k++;
    if (k > nr || (k == nr && !vals)) {
      fprintf(stderr, "mathlib_exhaustive: no routine '%s'%s\n", argv[i], k == nr ? " without --values" : "");
      free(vals);
      return 2;
    }
    rc |= run(&routines[k], nthreads, stride);
    any = 1;
  }
  for (size_t k = 0; !any && k < nr; k++) rc |= run(&routines[k], nthreads, stride);
  free(vals);
  return rc;
}
