/* fuzz_parse.c -- libFuzzer harness for the front end (issue 11, item 1a).
 *
 * Input: arbitrary bytes, read as a LEIR source (`%` header lines included).
 * Properties checked on every input (a violation aborts, which libFuzzer
 * reports as a crash and saves as an artifact):
 *
 *  1. ps_parse returns NULL exactly when it reported an error.
 *  2. The canonical text T of a parsed program (its header lines, then the
 *     body as ir_print_body writes it) parses again without any diagnostic,
 *     and prints back as T: print∘parse is the identity on canonical text.
 *  3. ir_sema (no sidecar) gives the same verdict on the program and on its
 *     reparse; it returns false exactly when it reported an error; after a
 *     successful ir_sema, ir_verify holds and the program still prints as T.
 *  4. The path the pass manager takes (ir_program_clone, ir_resema) succeeds
 *     on an analysed program, the copy verifies and prints as T.
 *  5. No diagnostic mentions an internal error, and every `file:L:C:`
 *     location lies inside the source (its line exists and C is at most one
 *     past the line's last character).
 *  6. For an analysed program without a header, the declarations ir_sema
 *     inferred (ir_print_decls, what --print-decls writes), put before the
 *     body as a header, analyse cleanly and print the same declarations.
 *
 * Crashes, sanitizer reports and hangs (libFuzzer's -timeout) are found by
 * the fuzzer itself.  Diagnostics go to a memory stream, never to stderr.
 */
#include <stdlib.h>
#include <string.h>

#include "testsuite/fuzz/fuzz_common.h"

/* Property 4: clone, re-analyse, verify, print. */
static void check_clone(Fz *f, const IrProgram *p, const char *text) {
  IrProgram *q = ir_program_clone(&f->ctx, p);
  int before = f->ctx.nerrors;
  if (!ir_resema(&f->ctx, q) || f->ctx.nerrors != before)
    fz_fail(f, "ir_resema fails on a copy of an analysed program", NULL);
  const char *bad = ir_verify(&f->ctx, q);
  if (bad) fz_fail(f, "ir_verify fails on a re-analysed copy", bad);
  char *t = fz_canonical(q);
  if (strcmp(t, text)) fz_fail(f, "a copy prints differently", t);
  free(t);
}

/* Property 6. */
static void check_inferred_decls(const IrProgram *p) {
  SBuf d = {0};
  ir_print_decls(&d, p, false);
  SBuf t = {0};
  sbuf_puts(&t, d.s ? d.s : "");
  ir_print_body(&t, p);
  Fz c;
  fz_init(&c, "decls\001.leir", t.s, t.len);
  IrProgram *q = ps_parse(&c.ctx);
  if (!q || !ir_sema(&c.ctx, q, NULL) || c.ctx.nerrors)
    fz_fail(&c, "the inferred declarations do not analyse cleanly", t.s);
  SBuf d2 = {0};
  ir_print_decls(&d2, q, false);
  if (strcmp(d.s ? d.s : "", d2.s ? d2.s : "")) fz_fail(&c, "the inferred declarations change", d2.s);
  sbuf_free(&d2);
  fz_free(&c);
  sbuf_free(&t);
  sbuf_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fz a;
  fz_init(&a, "fuzz\001.leir", (const char *)data, size);
  IrProgram *p = ps_parse(&a.ctx);
  if ((p == NULL) != (a.ctx.nerrors > 0))
    fz_fail(&a, p ? "ps_parse returned a program after an error" : "ps_parse failed silently", NULL);
  fz_check_diags(&a);
  if (!p) {
    fz_free(&a);
    return 0;
  }

  char *text = fz_canonical(p);
  Fz b;
  fz_init(&b, "canonical\001.leir", text, strlen(text));
  IrProgram *p2 = ps_parse(&b.ctx);
  fflush(b.diag_f);
  if (!p2 || b.diag_len) fz_fail(&b, "the canonical text does not parse cleanly", text);
  char *text2 = fz_canonical(p2);
  if (strcmp(text, text2)) fz_fail(&b, "print(parse(canonical)) differs from canonical", text2);
  free(text2);

  bool ok = fz_sema_checked(&a, p);
  bool ok2 = fz_sema_checked(&b, p2);
  if (ok != ok2) fz_fail(ok ? &b : &a, "ir_sema's verdict differs on the canonical text", text);
  if (ok) {
    char *t = fz_canonical(p);
    if (strcmp(t, text)) fz_fail(&a, "ir_sema changed the printed program", t);
    free(t);
    check_clone(&a, p, text);
    if (!p->has_header) check_inferred_decls(p);
  }
  free(text);
  fz_free(&b);
  fz_free(&a);
  return 0;
}
