/* compile_latency.c -- leirc's latency from source text to PTX for every
 * corpus program: parse, sema, plan, LLVM IR, the -O2 pipeline and the
 * NVPTX back end, in process (best of 3 per program), sorted by level and
 * name, then the median, the 90th percentile, the slowest and the total.
 *
 *   compile_latency CORPUS_DIR      (exit 77 when CORPUS_DIR is absent)
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "codegen/codegen.h"
#include "ir/readfile.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds from text to PTX, or a negative value on failure. */
static double compile_once(const char *path, const char *decls, const char *text, size_t len, size_t *ptx_bytes) {
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = true;
  double t = now();
  leir_ctx_set_source(&ctx, path, text, len);
  IrProgram *p = ps_parse(&ctx);
  IrDeclList side = {0};
  bool ok = p && ir_decls_load_json(&ctx, decls, &side) && ir_sema(&ctx, p, &side);
  CgOptions o;
  cg_options_init(&o);
  SBuf b = {0};
  ok = ok && cg_emit_ptx(&ctx, p, &o, &b);
  t = now() - t;
  *ptx_bytes = b.len;
  sbuf_free(&b);
  leir_ctx_free(&ctx);
  return ok ? t : -1;
}

typedef struct Entry {
  char name[300];
  double s;
  size_t bytes;
} Entry;

static int by_time(const void *a, const void *b) {
  double x = ((const Entry *)a)->s, y = ((const Entry *)b)->s;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: compile_latency CORPUS_DIR\n");
    return 2;
  }
  char dir[4096];
  Entry *e = NULL;
  int n = 0, cap = 0, failed = 0;
  const char *levels[] = {"level1", "level2"};
  for (int l = 0; l < 2; l++) {
    snprintf(dir, sizeof dir, "%s/programs/%s", argv[1], levels[l]);
    struct dirent **ents = NULL;
    int k = scandir(dir, &ents, NULL, alphasort);
    if (k < 0 && l == 0) {
      fprintf(stderr, "compile_latency: no corpus at %s\n", argv[1]);
      return 77;
    }
    for (int i = 0; i < k; i++) {
      const char *nm = ents[i]->d_name;
      size_t nl = strlen(nm);
      if (nl > 5 && !strcmp(nm + nl - 5, ".leir")) {
        char path[8192], decls[8192];
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        snprintf(decls, sizeof decls, "%s/%.*s.decls.json", dir, (int)(nl - 5), nm);
        size_t len = 0;
        char *text = leir_read_file(path, &len);
        double best = -1;
        size_t bytes = 0;
        for (int r = 0; text && r < 3; r++) {
          double t = compile_once(path, decls, text, len, &bytes);
          if (t < 0) {
            best = -1;
            break;
          }
          if (best < 0 || t < best) best = t;
        }
        free(text);
        if (best < 0) {
          printf("FAILED %s/%s\n", levels[l], nm);
          failed++;
        } else {
          if (n == cap) e = realloc(e, sizeof *e * (size_t)(cap = cap ? 2 * cap : 64));
          snprintf(e[n].name, sizeof e[n].name, "%s/%.*s", levels[l], (int)(nl - 5), nm);
          e[n].s = best;
          e[n].bytes = bytes;
          printf("%-70s %8.1f ms  %7zu bytes of PTX\n", e[n].name, best * 1e3, bytes);
          n++;
        }
      }
      free(ents[i]);
    }
    free(ents);
  }
  if (n == 0) return failed ? 1 : 77;
  double total = 0;
  for (int i = 0; i < n; i++) total += e[i].s;
  qsort(e, (size_t)n, sizeof *e, by_time);
  printf("compile latency, source to PTX (sm_90, -O2), %d corpus programs: median %.1f ms, p90 %.1f ms, "
         "max %.1f ms (%s), total %.2f s%s\n",
         n, e[n / 2].s * 1e3, e[(n * 9) / 10].s * 1e3, e[n - 1].s * 1e3, e[n - 1].name, total,
         failed ? ", SOME FAILED" : "");
  free(e);
  return failed ? 1 : 0;
}
