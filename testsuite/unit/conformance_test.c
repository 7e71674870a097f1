/* conformance_test.c -- the interpreter against PyTorch on the corpus data.
 *
 * For every workload in $top_srcdir/../shared/corpus/data/<level>/<name>/
 * (manifest.json: role, leir_name, shape, dtype, file), runs
 * programs/<level>/<name>.leir with its .decls.json on the stored inputs,
 * parameters and constants (all are inputs, by leir_name), and compares each
 * output with the stored PyTorch output under the reference acceptance rule
 * (SPEC §13.4, cmp_arrays CMP_REFERENCE).  One test per workload; a
 * workload that does not match fails unless the table `explained` below
 * gives the precise reason.  Prints
 *   # count: conformance: N/M match
 *   # miss: <workload>: <reason>            (one per miss)
 *   # time: <workload>: <seconds> s         (interpreter run time)
 * Skips (exit 77) when the corpus is absent. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/compare.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "interp/npy.h"
#include "ir/readfile.h"
#include "testsuite/corpus_walk.h"

/* Workloads known not to match PyTorch, with the reason.  Empty: every
 * workload with data matches. */
static const struct {
  const char *workload; /* "level2/Name" */
  const char *reason;
} explained[] = {
  {NULL, NULL},
};

typedef struct Results {
  int n, matched;
  char misses[64][1600];
  int nmiss;
} Results;

typedef struct Work {
  char corpus[1024];
  char level[64], name[256];
  Results *res;
} Work;

static const char *explanation(const char *id) {
  for (size_t i = 0; explained[i].workload; i++)
    if (!strcmp(explained[i].workload, id)) return explained[i].reason;
  return NULL;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char cmp_kind(IrDType t) {
  if (t == DT_BF16) return 'b';
  if (ir_dtype_is_float(t)) return 'f';
  if (t == DT_BOOL) return '?';
  return ir_dtype_is_unsigned_int(t) ? 'u' : 'i';
}

/* Loads the program; NULL on failure (message in why). */
static IrProgram *load_program(LeirCtx *ctx, const Work *w, char *why, size_t nwhy) {
  char path[2048], decls[2048];
  snprintf(path, sizeof path, "%s/programs/%s/%s.leir", w->corpus, w->level, w->name);
  snprintf(decls, sizeof decls, "%s/programs/%s/%s.decls.json", w->corpus, w->level, w->name);
  size_t len;
  char *text = leir_read_file(path, &len);
  if (!text) {
    snprintf(why, nwhy, "cannot read %.900s", path);
    return NULL;
  }
  leir_ctx_set_source(ctx, path, text, len);
  free(text);
  IrDeclList side = {0};
  IrProgram *p = ps_parse(ctx);
  if (!p || !ir_decls_load_json(ctx, decls, &side) || !ir_sema(ctx, p, &side)) {
    snprintf(why, nwhy, "the program does not load (%d errors)", ctx->nerrors);
    return NULL;
  }
  return p;
}

/* Runs one workload; returns true when every output is accepted. */
static bool run_workload(const Work *w, char *why, size_t nwhy, double *secs) {
  char dir[2048], path[4096];
  snprintf(dir, sizeof dir, "%s/data/%s/%s", w->corpus, w->level, w->name);
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  json_error_t jerr;
  json_t *m = json_load_file(path, 0, &jerr);
  json_t *tensors = m ? json_object_get(m, "tensors") : NULL;
  if (!json_is_array(tensors)) {
    snprintf(why, nwhy, "bad manifest %.900s", path);
    json_decref(m);
    return false;
  }
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = true;
  ctx.quiet_caret = true;
  bool ok = false;
  IrProgram *p = load_program(&ctx, w, why, nwhy);
  InterpProg *ip = p ? interp_new(&ctx, p, NULL) : NULL;
  if (p && !ip) snprintf(why, nwhy, "the interpreter cannot compile it");
  size_t i;
  json_t *t;
  bool inputs_ok = ip != NULL;
  bool *given = ip ? calloc((size_t)interp_ntensors(ip) + 1, 1) : NULL;
  json_array_foreach(tensors, i, t) {
    if (!inputs_ok || !strcmp(json_string_value(json_object_get(t, "role")), "output")) continue;
    const char *name = json_string_value(json_object_get(t, "leir_name"));
    InterpBuf *b = name ? interp_find(ip, name) : NULL;
    snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(t, "file")));
    if (!b || !interp_load_npy(ip, b, path)) {
      snprintf(why, nwhy, "input %s (%.900s) cannot be loaded", name ? name : "?", path);
      inputs_ok = false;
    } else {
      given[b->t->id] = true;
    }
  }
  if (inputs_ok) {
    interp_random_inputs(ip, 0, given); /* none expected: every input has data */
    double t0 = now();
    bool ran = interp_run(ip);
    *secs = now() - t0;
    ok = ran;
    if (!ran) snprintf(why, nwhy, "the run fails");
    json_array_foreach(tensors, i, t) {
      if (!ran || strcmp(json_string_value(json_object_get(t, "role")), "output")) continue;
      const char *name = json_string_value(json_object_get(t, "leir_name"));
      InterpBuf *b = name ? interp_find(ip, name) : NULL;
      snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(t, "file")));
      NpyArray ref;
      char err[256];
      if (!b || npy_read(path, &ref, err, sizeof err) != 0 || ref.nelem != (size_t)b->numel ||
          ref.elem_size != (size_t)ir_dtype_size(b->t->dtype)) {
        snprintf(why, nwhy, "output %s: no comparable reference %.900s", name ? name : "?", path);
        ok = false;
        if (b) npy_free(&ref);
        continue;
      }
      CmpResult c = cmp_arrays(cmp_kind(b->t->dtype), ref.elem_size, b->data, ref.data, b->numel, CMP_REFERENCE);
      if (c.verdict == CMP_DIFFER) {
        snprintf(why, nwhy, "output %s differs: max_abs %.3g, max_rel %.3g, mse %.3g", name, c.max_abs,
                 c.max_rel, c.mse);
        ok = false;
      }
      npy_free(&ref);
    }
  }
  free(given);
  interp_free(ip);
  leir_ctx_free(&ctx);
  json_decref(m);
  return ok;
}

static void test_workload(void **state) {
  Work *w = *state;
  char id[320], why[1024] = "";
  snprintf(id, sizeof id, "%s/%s", w->level, w->name);
  double secs = 0;
  bool ok = run_workload(w, why, sizeof why, &secs);
  printf("# time: %s: %.2f s\n", id, secs);
  w->res->n++;
  if (ok) {
    w->res->matched++;
    return;
  }
  const char *reason = explanation(id);
  if (w->res->nmiss < 64)
    snprintf(w->res->misses[w->res->nmiss++], sizeof w->res->misses[0], "%s: %s%s%s", id, why,
             reason ? "; explained: " : "", reason ? reason : "");
  if (!reason) fail_msg("%s does not match PyTorch: %s", id, why);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted subdirectory names of dir. */
static int list_dirs(const char *dir, char ***out) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char **v = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char **nv = realloc(v, sizeof(char *) * (size_t)(n + 1));
    if (!nv) break;
    v = nv;
    v[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(v, (size_t)n, sizeof(char *), cmp_str);
  *out = v;
  return n;
}

int main(void) {
  char corpus[1024], data[1100];
  corpus_dir(corpus, sizeof corpus, ".");
  snprintf(data, sizeof data, "%s/data", corpus);
  char **levels;
  int nl = list_dirs(data, &levels);
  if (nl <= 0) {
    printf("1..0 # SKIP corpus data not found at %s\n", data);
    return 77;
  }
  Results res = {0};
  Work *works = NULL;
  int nw = 0;
  for (int l = 0; l < nl; l++) {
    char ldir[2048];
    snprintf(ldir, sizeof ldir, "%s/%s", data, levels[l]);
    char **names;
    int nn = list_dirs(ldir, &names);
    for (int k = 0; k < nn; k++) {
      Work *nwk = realloc(works, sizeof(Work) * (size_t)(nw + 1));
      if (nwk) {
        works = nwk;
        Work *w = &works[nw++];
        snprintf(w->corpus, sizeof w->corpus, "%s", corpus);
        snprintf(w->level, sizeof w->level, "%s", levels[l]);
        snprintf(w->name, sizeof w->name, "%s", names[k]);
        w->res = &res;
      }
      free(names[k]);
    }
    if (nn > 0) free(names);
    free(levels[l]);
  }
  free(levels);
  struct CMUnitTest *tests = calloc((size_t)nw + 1, sizeof *tests);
  char (*names)[300] = calloc((size_t)nw + 1, sizeof *names);
  for (int i = 0; i < nw; i++) {
    snprintf(names[i], sizeof names[i], "%s/%s", works[i].level, works[i].name);
    tests[i].name = names[i];
    tests[i].test_func = test_workload;
    tests[i].initial_state = &works[i];
  }
  int rc = _cmocka_run_group_tests("conformance", tests, (size_t)nw, NULL, NULL);
  printf("# count: conformance: %d/%d match\n", res.matched, res.n);
  for (int i = 0; i < res.nmiss; i++) printf("# miss: %s\n", res.misses[i]);
  free(tests);
  free(names);
  free(works);
  return rc;
}
