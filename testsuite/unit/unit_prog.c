/* unit_prog.c -- see unit_prog.h. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */

#include "testsuite/unit/unit_prog.h"

#include <string.h>
void prog_init(Prog *pr) {
  memset(pr, 0, sizeof *pr);
  leir_ctx_init(&pr->ctx);
  pr->dout = fmemopen(pr->diag, sizeof pr->diag - 1, "w");
  setvbuf(pr->dout, NULL, _IONBF, 0);
  pr->ctx.diag_out = pr->dout;
  pr->ctx.quiet_caret = true;
}

bool prog_load(Prog *pr, const char *text) {
  prog_init(pr);
  leir_ctx_set_source(&pr->ctx, "t.leir", text, strlen(text));
  pr->p = ps_parse(&pr->ctx);
  return pr->p && ir_sema(&pr->ctx, pr->p, NULL);
}

void prog_free(Prog *pr) {
  fclose(pr->dout);
  leir_ctx_free(&pr->ctx);
}
