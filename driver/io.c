/* io.c -- reading sources and writing outputs for the driver. */
#include "driver/driver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool drv_read_source(LeirCtx *ctx, const char *path) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    ctx->src.name = path;
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
    ctx->src.name = path;
    diag_error(ctx, (IrLoc){0, 0}, "cannot read the file%s",
               oom ? ": out of memory" : too_big ? ": it is larger than 1 GiB" : "");
    return false;
  }
  leir_ctx_set_source(ctx, strcmp(path, "-") ? path : "<stdin>", buf, len);
  free(buf);
  return true;
}

IrProgram *drv_load_program(LeirCtx *ctx, const DrvOptions *o) {
  IrProgram *p = ps_parse(ctx);
  if (!p) return NULL;
  IrDeclList side = {0};
  if (o->decls && !ir_decls_load_json(ctx, o->decls, &side)) return NULL;
  if (!ir_sema(ctx, p, o->decls ? &side : NULL)) return NULL;
  const char *bad = ir_verify(ctx, p);
  if (bad) {
    diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: IR verifier: %s", bad);
    return NULL;
  }
  return p;
}

FILE *drv_open_output(LeirCtx *ctx, const char *path) {
  if (!path || !strcmp(path, "-")) return stdout;
  FILE *f = fopen(path, "wb");
  if (!f) {
    LeirSource saved = ctx->src;
    ctx->src.name = path;
    diag_error(ctx, (IrLoc){0, 0}, "cannot write: %s", strerror(errno));
    ctx->src = saved;
  }
  return f;
}

bool drv_close_output(LeirCtx *ctx, FILE *f, const char *path) {
  bool ok = fflush(f) == 0 && !ferror(f);
  if (f != stdout) ok &= fclose(f) == 0;
  if (!ok) {
    LeirSource saved = ctx->src;
    ctx->src.name = path ? path : "<stdout>";
    diag_error(ctx, (IrLoc){0, 0}, "error while writing the output");
    ctx->src = saved;
  }
  return ok;
}
