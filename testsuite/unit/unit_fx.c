/* unit_fx.c -- see unit_fx.h. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "testsuite/unit/unit_fx.h"

int fx_setup(void **state) {
  Fx *fx = calloc(1, sizeof *fx);
  leir_ctx_init(&fx->ctx);
  fx->diag_f = open_memstream(&fx->diag, &fx->diag_len);
  fx->ctx.diag_out = fx->diag_f;
  fx->ctx.quiet_caret = true;
  *state = fx;
  return 0;
}

int fx_teardown(void **state) {
  Fx *fx = *state;
  fclose(fx->diag_f);
  free(fx->diag);
  leir_ctx_free(&fx->ctx);
  free(fx);
  return 0;
}

IrProgram *fx_load(Fx *fx, const char *text, bool sema) {
  leir_ctx_set_source(&fx->ctx, "t.leir", text, strlen(text));
  IrProgram *p = ps_parse(&fx->ctx);
  if (p && sema && !ir_sema(&fx->ctx, p, NULL)) p = NULL;
  fflush(fx->diag_f);
  return p;
}

IrProgram *fx_load_ok(Fx *fx, const char *text) {
  leir_ctx_set_source(&fx->ctx, "t.leir", text, strlen(text));
  IrProgram *p = ps_parse(&fx->ctx);
  assert_non_null(p);
  assert_true(ir_sema(&fx->ctx, p, NULL));
  return p;
}

const char *fx_diags(Fx *fx) {
  fflush(fx->diag_f);
  return fx->diag ? fx->diag : "";
}
