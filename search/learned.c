/* learned.c -- the learned cost model through XGBoost's C API (see
 * learned.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "config.h"

#include "search/learned.h"
#include "search/features.h"
#include "codegen/costmodel.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>

#ifdef HAVE_XGBOOST
#include <xgboost/c_api.h>
#endif

#ifndef LEIR_PKGDATADIR
#define LEIR_PKGDATADIR "/usr/share/leirc"
#endif

#define MODEL_FILE "costmodel.json"

struct SearchLearned {
  char *path;
  bool residual; /* the model predicts ln(measured / analytic estimate) */
  double blend;  /* the analytic estimate's weight (attribute leirc_blend) */
#ifdef HAVE_XGBOOST
  BoosterHandle booster;
#endif
  pthread_mutex_t lock;
  /* the online update (learned.h): the model file's bytes (each refit
     starts from them), the measured rows and their training labels */
  char *base;
  size_t nbase;
  float *rows;
  float *labels;
  int nrows, cap;
  int fitted; /* rows the booster is fitted to */
};

bool search_learned_available(void) {
#ifdef HAVE_XGBOOST
  return true;
#else
  return false;
#endif
}

static bool readable(const char *path) { return access(path, R_OK) == 0; }

bool search_learned_default_path(char *buf, size_t n) {
  const char *env = getenv("LEIRC_COST_MODEL");
  if (env && *env) {
    snprintf(buf, n, "%s", env);
    return true;
  }
  snprintf(buf, n, "%s/%s", LEIR_PKGDATADIR, MODEL_FILE);
  if (readable(buf)) return true;
  /* beside the executable, then beside the library holding this code
     (libleir loaded by Python: the build tree's .libs/libleir.so, the
     wheel's), each then one folder up */
  char exe[4096];
  ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
  Dl_info di;
  for (int which = 0; which < 2; which++) {
    if (which == 0) {
      if (l <= 0) continue;
      exe[l] = 0;
    } else {
      if (!dladdr((void *)search_learned_default_path, &di) || !di.dli_fname || di.dli_fname[0] != '/') continue;
      snprintf(exe, sizeof exe, "%s", di.dli_fname);
    }
    for (int up = 0; up < 2; up++) {
      char *slash = strrchr(exe, '/');
      if (!slash) break;
      *slash = 0;
      snprintf(buf, n, "%s/%s", exe, MODEL_FILE);
      if (readable(buf)) return true;
    }
  }
  if (n) buf[0] = 0;
  return false;
}

const char *search_learned_path(const SearchLearned *m) { return m->path; }

#ifdef HAVE_XGBOOST

/* XGBoost logs through this: the library never prints. */
static void drop_log(const char *msg) { (void)msg; }

/* XGBoost's last error, its first line without the "[hh:mm:ss] file:line: "
 * prefix (the stack trace it appends is dropped), into buf. */
static const char *xgb_error(char *buf, size_t n) {
  const char *e = XGBGetLastError();
  if (!e || !*e) e = "unknown error";
  if (e[0] == '[') {
    const char *r = strstr(e, "] ");
    const char *c = r ? strstr(r + 2, ": ") : NULL;
    const char *nl = r ? strchr(r + 2, '\n') : NULL;
    if (c && (!nl || c < nl)) e = c + 2;
  }
  size_t l = strcspn(e, "\n");
  while (l > 0 && (e[l - 1] == ' ' || e[l - 1] == ':')) l--;
  snprintf(buf, n, "%.*s", (int)l, e);
  return buf;
}

/* The whole file at path into *buf (malloc'd), *n bytes. */
static bool read_file(const char *path, char **buf, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  char *b = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      char *nb = realloc(b, cap);
      if (!nb) break;
      b = nb;
    }
    size_t r = fread(b + len, 1, cap - len, f);
    len += r;
    if (r == 0) break;
  }
  bool ok = !ferror(f) && b && len > 0;
  fclose(f);
  if (!ok) {
    free(b);
    return false;
  }
  *buf = b;
  *n = len;
  return true;
}

SearchLearned *search_learned_load(LeirCtx *ctx, const char *path) {
  IrLoc noloc = {0, 0};
  char def[4096];
  if (!path) {
    if (!search_learned_default_path(def, sizeof def)) {
      diag_error(ctx, noloc,
                 "cannot find the learned cost model: no %s/%s and none beside leirc (set LEIRC_COST_MODEL)",
                 LEIR_PKGDATADIR, MODEL_FILE);
      return NULL;
    }
    path = def;
  }
  if (!readable(path)) {
    diag_error(ctx, noloc, "cannot read the learned cost model %s", path);
    return NULL;
  }
  XGBRegisterLogCallback(drop_log);
  BoosterHandle b = NULL;
  if (XGBoosterCreate(NULL, 0, &b) != 0) {
    char eb[512];
    diag_error(ctx, noloc, "cannot load the learned cost model %s: %s", path, xgb_error(eb, sizeof eb));
    return NULL;
  }
  bst_ulong nf = 0;
  char eb[512];
  if (XGBoosterSetParam(b, "nthread", "1") != 0 || XGBoosterLoadModel(b, path) != 0 ||
      XGBoosterSetParam(b, "nthread", "1") != 0 || XGBoosterGetNumFeature(b, &nf) != 0) {
    diag_error(ctx, noloc, "cannot load the learned cost model %s: not a model XGBoost reads (%s)", path,
               xgb_error(eb, sizeof eb));
    XGBoosterFree(b);
    return NULL;
  }
  const char *target = NULL;
  int has = 0;
  if (XGBoosterGetAttr(b, "leirc_target", &target, &has) != 0 ||
      (has && strcmp(target, "direct") && strcmp(target, "residual"))) {
    diag_error(ctx, noloc, "the learned cost model %s has an unknown leirc_target", path);
    XGBoosterFree(b);
    return NULL;
  }
  bool residual = has && !strcmp(target, "residual");
  const char *bl = NULL;
  double blend = 0;
  char *end = NULL;
  if (XGBoosterGetAttr(b, "leirc_blend", &bl, &has) != 0 ||
      (has && (blend = strtod(bl, &end), end == bl || *end || !(blend >= 0 && blend <= 1)))) {
    diag_error(ctx, noloc, "the learned cost model %s has a leirc_blend that is not a number from 0 to 1", path);
    XGBoosterFree(b);
    return NULL;
  }
  if (nf != SEARCH_NFEATURES) {
    diag_error(ctx, noloc, "the learned cost model %s has %llu features, leirc computes %d", path,
               (unsigned long long)nf, SEARCH_NFEATURES);
    XGBoosterFree(b);
    return NULL;
  }
  SearchLearned *m = calloc(1, sizeof *m);
  char *pc = m ? strdup(path) : NULL;
  if (pc && !read_file(path, &m->base, &m->nbase)) {
    free(pc);
    free(m);
    XGBoosterFree(b);
    diag_error(ctx, noloc, "cannot read the learned cost model %s", path);
    return NULL;
  }
  if (!pc) {
    free(m);
    XGBoosterFree(b);
    diag_error(ctx, noloc, "out of memory loading the learned cost model %s", path);
    return NULL;
  }
  m->path = pc;
  m->residual = residual;
  m->blend = blend;
  m->booster = b;
  pthread_mutex_init(&m->lock, NULL);
  return m;
}

/* The online refit (learned.h): the model file's booster, then
 * SEARCH_ONLINE_ROUNDS more trees fitted to every row observed so far; it
 * replaces m->booster.  Nothing to do when no row came since the last. */
static bool refit_locked(LeirCtx *ctx, SearchLearned *m) {
  if (m->fitted == m->nrows) return true;
  IrLoc noloc = {0, 0};
  char eb[512], num[32];
  BoosterHandle b = NULL;
  DMatrixHandle d = NULL;
  int rounds = 0;
  bool ok = XGBoosterCreate(NULL, 0, &b) == 0 && XGBoosterSetParam(b, "nthread", "1") == 0 &&
            XGBoosterLoadModelFromBuffer(b, m->base, (bst_ulong)m->nbase) == 0 &&
            XGBoosterSetParam(b, "nthread", "1") == 0 && XGBoosterBoostedRounds(b, &rounds) == 0;
  snprintf(num, sizeof num, "%g", SEARCH_ONLINE_ETA);
  ok = ok && XGBoosterSetParam(b, "eta", num) == 0;
  snprintf(num, sizeof num, "%d", SEARCH_ONLINE_DEPTH);
  ok = ok && XGBoosterSetParam(b, "max_depth", num) == 0 && XGBoosterSetParam(b, "tree_method", "exact") == 0 &&
       XGBoosterSetParam(b, "seed", "0") == 0 && XGBoosterSetParam(b, "subsample", "1") == 0 &&
       XGBoosterSetParam(b, "colsample_bytree", "1") == 0 &&
       XGDMatrixCreateFromMat(m->rows, (bst_ulong)m->nrows, SEARCH_NFEATURES, NAN, &d) == 0 &&
       XGDMatrixSetFloatInfo(d, "label", m->labels, (bst_ulong)m->nrows) == 0;
  for (int i = 0; ok && i < SEARCH_ONLINE_ROUNDS; i++) ok = XGBoosterUpdateOneIter(b, rounds + i, d) == 0;
  if (d) XGDMatrixFree(d);
  if (!ok) {
    diag_error(ctx, noloc, "the learned cost model %s cannot be updated: %s", m->path, xgb_error(eb, sizeof eb));
    if (b) XGBoosterFree(b);
    return false;
  }
  XGBoosterFree(m->booster);
  m->booster = b;
  m->fitted = m->nrows;
  return true;
}

bool search_learned_save(LeirCtx *ctx, SearchLearned *m, const char *path) {
  IrLoc noloc = {0, 0};
  pthread_mutex_lock(&m->lock);
  bst_ulong len = 0;
  const char *buf = NULL;
  char eb[512];
  bool ok = refit_locked(ctx, m);
  if (ok && XGBoosterSaveModelToBuffer(m->booster, "{\"format\":\"json\"}", &len, &buf) != 0) {
    diag_error(ctx, noloc, "the learned cost model %s cannot be saved: %s", m->path, xgb_error(eb, sizeof eb));
    ok = false;
  }
  if (ok) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, (size_t)len, f) != (size_t)len || fputc('\n', f) == EOF) ok = false;
    if (f && fclose(f)) ok = false;
    if (!ok) diag_error(ctx, noloc, "cannot write the learned cost model '%s'", path);
  }
  pthread_mutex_unlock(&m->lock);
  return ok;
}

bool search_learned_predict(LeirCtx *ctx, SearchLearned *m, const float *rows, int n, double *out) {
  IrLoc noloc = {0, 0};
  char arr[256];
  snprintf(arr, sizeof arr,
           "{\"data\":[%llu,true],\"shape\":[%d,%d],\"typestr\":\"<f4\",\"version\":3}",
           (unsigned long long)(uintptr_t)rows, n, SEARCH_NFEATURES);
  const char *cfg = "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
                    "\"strict_shape\":false,\"cache_id\":0,\"missing\":NaN}";
  pthread_mutex_lock(&m->lock);
  if (!refit_locked(ctx, m)) {
    pthread_mutex_unlock(&m->lock);
    return false;
  }
  const bst_ulong *shape = NULL;
  bst_ulong dim = 0;
  const float *res = NULL;
  bool ok = XGBoosterPredictFromDense(m->booster, arr, cfg, NULL, &shape, &dim, &res) == 0;
  if (ok)
    for (int i = 0; i < n; i++) out[i] = (double)res[i];
  else {
    char eb[512];
    diag_error(ctx, noloc, "the learned cost model %s cannot predict: %s", m->path, xgb_error(eb, sizeof eb));
  }
  pthread_mutex_unlock(&m->lock);
  return ok;
}

void search_learned_free(SearchLearned *m) {
  if (!m) return;
  XGBoosterFree(m->booster);
  pthread_mutex_destroy(&m->lock);
  free(m->path);
  free(m->base);
  free(m->rows);
  free(m->labels);
  free(m);
}

#else /* !HAVE_XGBOOST */

SearchLearned *search_learned_load(LeirCtx *ctx, const char *path) {
  (void)path;
  diag_error(ctx, (IrLoc){0, 0},
             "--cost=learned: this leirc was built without XGBoost (configure found no libxgboost-dev)");
  return NULL;
}

bool search_learned_predict(LeirCtx *ctx, SearchLearned *m, const float *rows, int n, double *out) {
  (void)m, (void)rows, (void)n, (void)out;
  diag_error(ctx, (IrLoc){0, 0}, "--cost=learned: this leirc was built without XGBoost");
  return false;
}

bool search_learned_save(LeirCtx *ctx, SearchLearned *m, const char *path) {
  (void)m, (void)path;
  diag_error(ctx, (IrLoc){0, 0}, "--cost=learned: this leirc was built without XGBoost");
  return false;
}

void search_learned_free(SearchLearned *m) {
  if (!m) return;
  pthread_mutex_destroy(&m->lock);
  free(m->path);
  free(m->base);
  free(m->rows);
  free(m->labels);
  free(m);
}

#endif

bool search_learned_seconds(LeirCtx *ctx, SearchLearned *m, const IrProgram *p, double *secs) {
  float f[SEARCH_NFEATURES];
  if (!search_features(ctx, p, f)) return false;
  double y;
  if (!search_learned_predict(ctx, m, f, 1, &y)) return false;
  if (m->residual || m->blend > 0) {
    CostEstimate e;
    if (!cost_model_estimate(ctx, p, COST_HOST, 0, &e)) return false;
    double la = log(e.seconds);
    if (m->residual) y += la;
    y = (1 - m->blend) * y + m->blend * la;
  }
  *secs = exp(y);
  return true;
}

bool search_learned_observe(LeirCtx *ctx, SearchLearned *m, const IrProgram *p, double secs) {
  if (!(secs > 0) || !isfinite(secs) || m->blend >= 1) return true; /* nothing the trees could learn */
  float f[SEARCH_NFEATURES];
  if (!search_features(ctx, p, f)) return false;
  double la = 0;
  if (m->residual || m->blend > 0) {
    CostEstimate e;
    if (!cost_model_estimate(ctx, p, COST_HOST, 0, &e)) return false;
    la = log(e.seconds);
  }
  /* the label y whose estimate (learned.h) is the measurement:
     ln secs = (1 - w) * (y + r * la) + w * la */
  double y = (log(secs) - m->blend * la) / (1 - m->blend) - (m->residual ? la : 0);
  pthread_mutex_lock(&m->lock);
  bool ok = true;
  if (m->nrows == m->cap) {
    int cap = m->cap ? 2 * m->cap : 64;
    float *r = realloc(m->rows, sizeof *r * (size_t)cap * SEARCH_NFEATURES);
    if (r) m->rows = r;
    float *l = realloc(m->labels, sizeof *l * (size_t)cap);
    if (l) m->labels = l;
    if (r && l) m->cap = cap;
    else ok = false;
  }
  if (ok) {
    memcpy(m->rows + (size_t)m->nrows * SEARCH_NFEATURES, f, sizeof f);
    m->labels[m->nrows++] = (float)y;
  } else {
    diag_error(ctx, (IrLoc){0, 0}, "out of memory updating the learned cost model %s", m->path);
  }
  pthread_mutex_unlock(&m->lock);
  return ok;
}

int search_learned_observed(const SearchLearned *m) { return m->nrows; }
