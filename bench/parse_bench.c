/* parse_bench.c -- front-end speed on one core: parse, analyse (with the
 * sidecar declarations) and print every corpus program, and parse and print
 * every transform program; reports programs, bytes and seconds.
 *   bench/parse_bench [CORPUS_DIR]   (default ../shared/corpus) */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/ir.h"
#include "ir/readfile.h"

typedef struct Item {
  char *text, *decls, *name;
  size_t len;
} Item;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void push(Item **v, int *n, int *cap, Item it) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 1024;
    *v = realloc(*v, sizeof(Item) * (size_t)*cap);
  }
  (*v)[(*n)++] = it;
}

int main(int argc, char **argv) {
  const char *corpus = argc > 1 ? argv[1] : "../shared/corpus";
  Item *items = NULL;
  int n = 0, cap = 0, nprog = 0;
  size_t bytes = 0;
  for (int l = 1; l <= 2; l++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/programs/level%d", corpus, l);
    DIR *d = opendir(dir);
    if (!d) {
      fprintf(stderr, "parse_bench: no corpus at %s\n", corpus);
      return 77;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
      size_t fl = strlen(e->d_name);
      if (fl < 6 || strcmp(e->d_name + fl - 5, ".leir")) continue;
      Item it = {0};
      char path[8192];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      it.text = leir_read_file(path, &it.len);
      it.name = strdup(path);
      snprintf(path, sizeof path, "%s/%.*s.decls.json", dir, (int)(fl - 5), e->d_name);
      it.decls = strdup(path);
      push(&items, &n, &cap, it);
      nprog++;
    }
    closedir(d);
  }
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "gzip -dc '%s/transforms.jsonl.gz'", corpus);
  FILE *f = popen(cmd, "r");
  char *line = NULL;
  size_t lcap = 0;
  ssize_t ll;
  while (f && (ll = getline(&line, &lcap, f)) > 0) {
    json_t *r = json_loadb(line, (size_t)ll, 0, NULL);
    for (int k = 0; r && k < 2; k++) {
      const char *s = json_string_value(json_object_get(r, k ? "after" : "before"));
      if (!s || !s[strspn(s, " \n")]) continue;
      Item it = {0};
      it.text = strdup(s);
      it.len = strlen(s);
      it.name = "transform";
      push(&items, &n, &cap, it);
    }
    json_decref(r);
  }
  free(line);
  if (f) pclose(f);
  for (int i = 0; i < n; i++) bytes += items[i].len;

  double t0 = now(), tc = t0;
  int ok = 0;
  FILE *null = fopen("/dev/null", "w");
  for (int i = 0; i < n; i++) {
    LeirCtx ctx;
    leir_ctx_init(&ctx);
    ctx.diag_out = null;
    leir_ctx_set_source(&ctx, items[i].name, items[i].text, items[i].len);
    IrProgram *p = ps_parse(&ctx);
    if (p && items[i].decls) {
      IrDeclList side = {0};
      if (!ir_decls_load_json(&ctx, items[i].decls, &side) || !ir_sema(&ctx, p, &side)) p = NULL;
    }
    if (p) {
      SBuf b = {0};
      ir_print_body(&b, p);
      ok += b.len + 1 == items[i].len || b.len == items[i].len;
      sbuf_free(&b);
    }
    leir_ctx_free(&ctx);
    if (i + 1 == nprog) tc = now();
  }
  double t1 = now();
  size_t pbytes = 0;
  for (int i = 0; i < nprog; i++) pbytes += items[i].len;
  printf("corpus programs: %d, %zu bytes: parse+analyse+print %.4f s on one core\n", nprog, pbytes, tc - t0);
  printf("programs: %d (%d corpus programs analysed with declarations, %d transform programs)\n", n, nprog,
         n - nprog);
  printf("bytes: %zu\n", bytes);
  printf("parse+print (+analyse for corpus programs): %.3f s on one core, %.1f MB/s, %d printed back\n",
         t1 - t0, bytes / (t1 - t0) / 1e6, ok);
  fclose(null);
  return 0;
}
