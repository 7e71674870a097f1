/* diag.c -- the compiler context and GNU-style diagnostics:
 *   file:line:col: error: message
 *   <source line>
 *       ^
 */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

void leir_ctx_init(LeirCtx *ctx) {
  memset(ctx, 0, sizeof *ctx);
  ctx->diag_out = stderr;
  ctx->src.name = "<input>";
  ctx->src.text = "";
}

void leir_ctx_free(LeirCtx *ctx) { arena_free_all(&ctx->arena); }

void leir_ctx_set_source(LeirCtx *ctx, const char *name, const char *text, size_t len) {
  ctx->src.name = arena_strdup(&ctx->arena, name);
  ctx->src.text = arena_strndup(&ctx->arena, text, len);
  ctx->src.len = len;
}

/* Prints source line `line` and a caret under column `col`. */
static void print_caret(LeirCtx *ctx, IrLoc loc) {
  const char *p = ctx->src.text, *end = p + ctx->src.len;
  for (int l = 1; l < loc.line && p < end; p++)
    if (*p == '\n') l++;
  if (p >= end && loc.line > 1) return;
  const char *e = memchr(p, '\n', (size_t)(end - p));
  if (!e) e = end;
  size_t n = (size_t)(e - p);
  /* Very long lines (canonical LEIR is one line): show a window. */
  size_t from = 0, col = (size_t)(loc.col > 0 ? loc.col - 1 : 0);
  if (col > n) col = n;
  enum { WIN = 120 };
  if (n > WIN && col > WIN / 2) from = col - WIN / 2;
  size_t to = from + WIN < n ? from + WIN : n;
  fputs(from ? "..." : "", ctx->diag_out);
  for (size_t i = from; i < to; i++) {
    unsigned char c = (unsigned char)p[i];
    fputc(c == '\t' || c >= 0x20 ? c : '?', ctx->diag_out);
  }
  fputs(to < n ? "...\n" : "\n", ctx->diag_out);
  if (from) fputs("   ", ctx->diag_out);
  for (size_t i = from; i < col; i++) fputc(p[i] == '\t' ? '\t' : ' ', ctx->diag_out);
  fputs("^\n", ctx->diag_out);
}

static void vdiag(LeirCtx *ctx, const char *kind, IrLoc loc, const char *fmt, va_list ap) {
  if (loc.line > 0)
    fprintf(ctx->diag_out, "%s:%d:%d: %s: ", ctx->src.name, loc.line, loc.col, kind);
  else
    fprintf(ctx->diag_out, "%s: %s: ", ctx->src.name, kind);
  vfprintf(ctx->diag_out, fmt, ap);
  fputc('\n', ctx->diag_out);
  if (loc.line > 0 && !ctx->quiet_caret) print_caret(ctx, loc);
}

void diag_verror(LeirCtx *ctx, IrLoc loc, const char *fmt, va_list ap) {
  int max = ctx->max_errors ? ctx->max_errors : 50;
  ctx->nerrors++;
  if (ctx->nerrors > max) return;
  vdiag(ctx, "error", loc, fmt, ap);
  if (ctx->nerrors == max) fprintf(ctx->diag_out, "%s: note: too many errors, stopping here\n", ctx->src.name);
}

void diag_error(LeirCtx *ctx, IrLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(ctx, loc, fmt, ap);
  va_end(ap);
}

void diag_warn(LeirCtx *ctx, IrLoc loc, const char *fmt, ...) {
  if (ctx->no_warnings) return;
  va_list ap;
  va_start(ap, fmt);
  if (ctx->werror) {
    diag_verror(ctx, loc, fmt, ap);
  } else {
    ctx->nwarnings++;
    vdiag(ctx, "warning", loc, fmt, ap);
  }
  va_end(ap);
}

void diag_note(LeirCtx *ctx, IrLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(ctx, "note", loc, fmt, ap);
  va_end(ap);
}
