/* corpus_test.c -- every program of the paper's corpus, and every `before`
 * and `after` program of its one-step transforms, parses and prints back
 * byte-identical (SPEC §2.1).  The corpus is read at run time from
 * $top_srcdir/../shared/corpus; the test is skipped where it is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/readfile.h"
#include "testsuite/corpus_walk.h"

static char corpus[4096];

static bool have_corpus(void) {
  corpus_dir(corpus, sizeof corpus, ".");
  DIR *d = opendir(corpus);
  if (d) closedir(d);
  return d != NULL;
}

/* Parses `text` and prints it back; returns true if the printed program
 * (plus the final newline) equals `text`.  With `decls`, also runs sema. */
static bool round_trip(const char *name, const char *text, size_t len, const char *decls, bool *sema_ok) {
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  FILE *devnull = fopen("/dev/null", "w");
  ctx.diag_out = devnull;
  leir_ctx_set_source(&ctx, name, text, len);
  bool ok = false;
  IrProgram *p = ps_parse(&ctx);
  if (p) {
    SBuf b = {0};
    ir_print_body(&b, p);
    sbuf_putc(&b, '\n');
    ok = b.len == len && !memcmp(b.s, text, len);
    if (!ok) {
      size_t i = 0;
      while (i < b.len && i < len && b.s[i] == text[i]) i++;
      print_message("mismatch in %s at byte %zu\n", name, i);
    }
    sbuf_free(&b);
    if (sema_ok) {
      IrDeclList side = {0};
      *sema_ok = (!decls || ir_decls_load_json(&ctx, decls, &side)) &&
                 ir_sema(&ctx, p, decls ? &side : NULL) && !ir_verify(&ctx, p);
    }
  } else {
    print_message("parse error in %s\n", name);
  }
  fclose(devnull);
  leir_ctx_free(&ctx);
  return ok;
}

static void test_programs(void **state) {
  (void)state;
  if (!have_corpus()) skip();
  int n = 0, ok = 0, sema = 0, sema_inferred = 0;
  const char *levels[] = {"level1", "level2"};
  for (int l = 0; l < 2; l++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/programs/%s", corpus, levels[l]);
    struct dirent **ents;
    int k = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < k; i++) {
      const char *f = ents[i]->d_name;
      size_t fl = strlen(f);
      if (fl > 5 && !strcmp(f + fl - 5, ".leir")) {
        char path[4400], decls[4400];
        snprintf(path, sizeof path, "%s/%s", dir, f);
        snprintf(decls, sizeof decls, "%s/%.*s.decls.json", dir, (int)(fl - 5), f);
        size_t len;
        char *text = leir_read_file(path, &len);
        bool s1 = false, s2 = false;
        n++;
        ok += text && round_trip(path, text, len, decls, &s1);
        sema += s1;
        if (text) round_trip(path, text, len, NULL, &s2);
        sema_inferred += s2;
        if (!s1) print_message("sema failed with declarations: %s\n", path);
        if (!s2) print_message("sema failed with inferred declarations: %s\n", path);
        free(text);
      }
      free(ents[i]);
    }
    if (k > 0) free(ents);
  }
  printf("# count: corpus programs: %d/%d round-trip byte-identical, %d/%d analysed with "
         "declarations, %d/%d with inferred declarations\n",
         ok, n, sema, n, sema_inferred, n);
  assert_true(n > 0);
  assert_int_equal(ok, n);
  assert_int_equal(sema, n);
  assert_int_equal(sema_inferred, n);
}

static void test_transforms(void **state) {
  (void)state;
  if (!have_corpus()) skip();
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "gzip -dc '%s/transforms.jsonl.gz'", corpus);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  int records = 0, n = 0, ok = 0, sema = 0, empty = 0;
  size_t cap = 0;
  char *line = NULL;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0) {
    json_error_t err;
    json_t *rec = json_loadb(line, (size_t)len, 0, &err);
    assert_non_null(rec);
    records++;
    const char *keys[] = {"before", "after"};
    for (int i = 0; i < 2; i++) {
      const char *prog = json_string_value(json_object_get(rec, keys[i]));
      assert_non_null(prog);
      if (!prog[strspn(prog, " \n")]) {
        empty++; /* the reference produced no program (online_softmax) */
        continue;
      }
      char name[256];
      snprintf(name, sizeof name, "transforms:%d:%s", records, keys[i]);
      size_t pl = strlen(prog);
      char *text = malloc(pl + 2);
      memcpy(text, prog, pl);
      /* records hold the bare program; the printer ends with a newline */
      size_t tl = pl;
      if (tl == 0 || text[tl - 1] != '\n') text[tl++] = '\n';
      text[tl] = 0;
      bool s = false;
      n++;
      ok += round_trip(name, text, tl, NULL, &s);
      sema += s;
      free(text);
    }
    json_decref(rec);
  }
  free(line);
  pclose(f);
  printf("# count: transform programs: %d/%d round-trip byte-identical (%d records; %d empty "
         "outputs of the reference skipped); %d/%d pass semantic analysis with inferred declarations\n",
         ok, n, records, empty, sema, n);
  assert_true(records > 0);
  assert_int_equal(ok, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_programs),
    cmocka_unit_test(test_transforms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
