/* io.c -- reading sources and writing outputs for the driver. */
#include "driver/driver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
