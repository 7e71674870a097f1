/* load.c -- a program from a file or the current source: reading, parsing,
 * declarations, analysis and the verifier, as leirc and libleir load
 * programs. */
#include "ir/ir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool ir_read_source(LeirCtx *ctx, const char *path) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    ctx->src.name = arena_strdup(&ctx->arena, path);
    diag_error(ctx, (IrLoc){0, 0}, "cannot open: %s", strerror(errno));
    return false;
  }
  /* at most 1 GiB: a larger file is an error, never a silently shorter
     program */
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  bool too_big = false, oom = !buf;
  size_t n;
  while (!oom && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len < cap) continue;
    if (cap >= (size_t)1 << 30) {
      too_big = fgetc(f) != EOF;
      break;
    }
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      oom = true;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  bool err = ferror(f);
  if (f != stdin) fclose(f);
  if (oom || too_big || err) {
    free(buf);
    ctx->src.name = arena_strdup(&ctx->arena, path);
    diag_error(ctx, (IrLoc){0, 0}, "cannot read the file%s",
               oom ? ": out of memory" : too_big ? ": it is larger than 1 GiB" : "");
    return false;
  }
  leir_ctx_set_source(ctx, strcmp(path, "-") ? path : "<stdin>", buf, len);
  free(buf);
  return true;
}

IrProgram *ir_load_program(LeirCtx *ctx, const char *decls_path, const char *decls_json) {
  IrProgram *p = ps_parse(ctx);
  if (!p) return NULL;
  IrDeclList side = {0};
  bool have = decls_json || decls_path;
  if (decls_json && !ir_decls_parse_json(ctx, "<decls>", decls_json, &side)) return NULL;
  if (!decls_json && decls_path && !ir_decls_load_json(ctx, decls_path, &side)) return NULL;
  if (!ir_sema(ctx, p, have ? &side : NULL)) return NULL;
  const char *bad = ir_verify(ctx, p);
  if (bad) {
    diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: IR verifier: %s", bad);
    return NULL;
  }
  return p;
}
