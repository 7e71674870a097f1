/* fuzz_common.c -- see fuzz_common.h. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "testsuite/fuzz/fuzz_common.h"

#include <stdlib.h>
#include <string.h>

void fz_init(Fz *f, const char *name, const char *text, size_t len) {
  leir_ctx_init(&f->ctx);
  f->diag = NULL;
  f->diag_len = 0;
  f->checked = 0;
  f->diag_f = open_memstream(&f->diag, &f->diag_len);
  if (!f->diag_f) abort();
  f->ctx.diag_out = f->diag_f;
  leir_ctx_set_source(&f->ctx, name, text, len);
}

void fz_free(Fz *f) {
  fclose(f->diag_f);
  free(f->diag);
  leir_ctx_free(&f->ctx);
}

_Noreturn void fz_fail(Fz *f, const char *what, const char *detail) {
  fprintf(stderr, "fuzz: PROPERTY VIOLATED: %s\n", what);
  if (detail) fprintf(stderr, "  detail: %s\n", detail);
  if (f) {
    fflush(f->diag_f);
    fprintf(stderr, "  diagnostics:\n%.*s\n", (int)f->diag_len, f->diag ? f->diag : "");
  }
  abort();
}

char *fz_canonical(const IrProgram *p) {
  SBuf b = {0};
  for (int i = 0; i < p->header.n; i++) {
    const IrDecl *d = &p->header.d[i];
    sbuf_printf(&b, "%%%s %s : %s[", ir_role_name(d->role), d->name, ir_dtype_name(d->dtype));
    for (int k = 0; k < d->rank; k++) sbuf_printf(&b, "%s%lld", k ? "," : "", (long long)d->shape[k]);
    sbuf_puts(&b, "]\n");
  }
  ir_print_body(&b, p);
  sbuf_putc(&b, '\n');
  return b.s;
}

/* Is line:col a position of the source, or just after its last character? */
static bool loc_inside(const LeirSource *src, int line, int col) {
  const char *p = src->text, *end = p + src->len;
  for (int l = 1; l < line; l++) {
    p = memchr(p, '\n', (size_t)(end - p));
    if (!p) return false;
    p++;
  }
  const char *e = memchr(p, '\n', (size_t)(end - p));
  size_t n = (size_t)((e ? e : end) - p);
  return line >= 1 && col >= 1 && (size_t)col <= n + 1;
}

void fz_check_diags(Fz *f) {
  fflush(f->diag_f);
  size_t nlen = strlen(f->ctx.src.name);
  static const char err[] = ": error: internal";
  for (size_t i = f->checked; i < f->diag_len;) {
    const char *s = f->diag + i, *eol = memchr(s, '\n', f->diag_len - i);
    size_t len = eol ? (size_t)(eol - s) : f->diag_len - i;
    i += len + 1;
    if (len <= nlen || memcmp(s, f->ctx.src.name, nlen) || s[nlen] != ':') continue;
    for (const char *p = s; p + sizeof err - 1 <= s + len; p++)
      if (!memcmp(p, err, sizeof err - 1)) fz_fail(f, "a diagnostic reports an internal error", s);
    int line, col;
    if (sscanf(s + nlen, ":%d:%d:", &line, &col) != 2) continue;
    if (!loc_inside(&f->ctx.src, line, col)) fz_fail(f, "a diagnostic points outside the source", s);
  }
  f->checked = f->diag_len;
}

bool fz_sema_checked(Fz *f, IrProgram *p) {
  int before = f->ctx.nerrors;
  bool ok = ir_sema(&f->ctx, p, NULL);
  if (ok != (f->ctx.nerrors == before))
    fz_fail(f, ok ? "ir_sema succeeded after reporting an error" : "ir_sema failed silently", NULL);
  if (ok) {
    const char *bad = ir_verify(&f->ctx, p);
    if (bad) fz_fail(f, "ir_verify fails after a successful ir_sema", bad);
  }
  fz_check_diags(f);
  return ok;
}

IrProgram *fz_load(Fz *f) {
  IrProgram *p = ps_parse(&f->ctx);
  if ((p == NULL) != (f->ctx.nerrors > 0))
    fz_fail(f, p ? "ps_parse returned a program after an error" : "ps_parse failed silently", NULL);
  if (p && !fz_sema_checked(f, p)) p = NULL;
  fz_check_diags(f);
  return p;
}

uint64_t fz_tensor_bytes(const IrProgram *p) {
  uint64_t total = 0;
  for (int i = 0; i < p->ntensors; i++) {
    uint64_t n = (uint64_t)ir_tensor_numel(p->tensors[i]) * (uint64_t)ir_dtype_size(p->tensors[i]->dtype);
    if (__builtin_add_overflow(total, n, &total)) return UINT64_MAX;
  }
  return total;
}

uint64_t fz_hash(const uint8_t *data, size_t size) {
  uint64_t h = 14695981039346656037u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211u;
  return h;
}

uint64_t fz_next(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15u;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Du;
}
