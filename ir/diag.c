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

void leir_ctx_free(LeirCtx *ctx) {
  if (ctx->jit_cache && ctx->jit_cache_free) ctx->jit_cache_free(ctx->jit_cache);
  ctx->jit_cache = NULL;
  arena_free_all(&ctx->arena);
}

void leir_ctx_set_source(LeirCtx *ctx, const char *name, const char *text, size_t len) {
  ctx->src.name = arena_strdup(&ctx->arena, name);
  ctx->src.text = arena_strndup(&ctx->arena, text, len);
  ctx->src.len = len;
}

/* Renders source line `line` and a caret under column `col`. */
static void render_caret(LeirCtx *ctx, IrLoc loc, SBuf *b) {
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
  sbuf_puts(b, from ? "..." : "");
  for (size_t i = from; i < to; i++) {
    unsigned char c = (unsigned char)p[i];
    sbuf_putc(b, (char)(c == '\t' || c >= 0x20 ? c : '?'));
  }
  sbuf_puts(b, to < n ? "...\n" : "\n");
  if (from) sbuf_puts(b, "   ");
  for (size_t i = from; i < col; i++) sbuf_putc(b, p[i] == '\t' ? '\t' : ' ');
  sbuf_puts(b, "^\n");
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void list_push(LeirDiagList *l, LeirDiagSeverity sev, IrLoc loc, const char *file, const char *msg,
                      const char *rendered) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 8;
    LeirDiagRec *v = realloc(l->v, cap * sizeof *v);
    if (!v) {
      l->oom = true;
      return;
    }
    l->v = v;
    l->cap = cap;
  }
  LeirDiagRec r = {sev, loc, xstrdup(file), xstrdup(msg), xstrdup(rendered)};
  if (!r.file || !r.message || !r.rendered) {
    free(r.file);
    free(r.message);
    free(r.rendered);
    l->oom = true;
    return;
  }
  l->v[l->n++] = r;
}

void diag_list_clear(LeirDiagList *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->v[i].file);
    free(l->v[i].message);
    free(l->v[i].rendered);
  }
  free(l->v);
  *l = (LeirDiagList){0};
}

static const char *const kind_name[] = {"note", "warning", "error"};

/* One diagnostic, `msg` already formatted: printed, or kept. */
static void emit(LeirCtx *ctx, LeirDiagSeverity sev, IrLoc loc, const char *msg) {
  SBuf b = {0};
  if (loc.line > 0)
    sbuf_printf(&b, "%s:%d:%d: %s: ", ctx->src.name, loc.line, loc.col, kind_name[sev]);
  else
    sbuf_printf(&b, "%s: %s: ", ctx->src.name, kind_name[sev]);
  sbuf_puts(&b, msg);
  sbuf_putc(&b, '\n');
  if (loc.line > 0 && !ctx->quiet_caret) render_caret(ctx, loc, &b);
  if (ctx->diag_out)
    fwrite(b.s, 1, b.len, ctx->diag_out);
  else if (ctx->capture)
    list_push(ctx->capture, sev, loc, ctx->src.name, msg, b.s);
  sbuf_free(&b);
}

static void vdiag(LeirCtx *ctx, LeirDiagSeverity sev, IrLoc loc, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  char small[512], *msg = small;
  if (n >= (int)sizeof small) msg = malloc((size_t)n + 1);
  if (n < 0 || !msg) {
    emit(ctx, sev, loc, "(a diagnostic could not be formatted: out of memory)");
    return;
  }
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  emit(ctx, sev, loc, msg);
  if (msg != small) free(msg);
}

void diag_replay(LeirCtx *to, const LeirDiagList *from) {
  for (size_t i = 0; i < from->n; i++) {
    const LeirDiagRec *r = &from->v[i];
    if (to->diag_out)
      fputs(r->rendered, to->diag_out);
    else if (to->capture)
      list_push(to->capture, r->severity, r->loc, r->file, r->message, r->rendered);
  }
}

void diag_verror(LeirCtx *ctx, IrLoc loc, const char *fmt, va_list ap) {
  int max = ctx->max_errors ? ctx->max_errors : 50;
  ctx->nerrors++;
  if (ctx->nerrors > max) return;
  vdiag(ctx, LEIR_DIAG_ERROR, loc, fmt, ap);
  if (ctx->nerrors == max) emit(ctx, LEIR_DIAG_NOTE, (IrLoc){0, 0}, "too many errors, stopping here");
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
    vdiag(ctx, LEIR_DIAG_WARNING, loc, fmt, ap);
  }
  va_end(ap);
}

void diag_note(LeirCtx *ctx, IrLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(ctx, LEIR_DIAG_NOTE, loc, fmt, ap);
  va_end(ap);
}
