/* unit_fx.h -- the cmocka fixture the front-end unit tests share
 * (frontend_test, limits_test, memlimit_test): a context of its own per
 * test, with the diagnostics captured in memory (open_memstream) and the
 * caret lines left out. */
#ifndef LEIR_TESTSUITE_UNIT_FX_H
#define LEIR_TESTSUITE_UNIT_FX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ir/ir.h"

typedef struct Fx {
  LeirCtx ctx;
  char *diag; /* the diagnostics so far (NULL before the first); see fx_diags */
  size_t diag_len;
  FILE *diag_f;
} Fx;

/* cmocka setup and teardown: *state is a fresh Fx, then freed. */
int fx_setup(void **state);
int fx_teardown(void **state);

/* Parses `text` (as "t.leir") and, with `sema`, analyses it; NULL after an
 * error.  The diagnostics are flushed to fx->diag. */
IrProgram *fx_load(Fx *fx, const char *text, bool sema);

/* Parses and analyses `text` (as "t.leir"), asserting that both succeed. */
IrProgram *fx_load_ok(Fx *fx, const char *text);

/* The diagnostics so far ("" when none). */
const char *fx_diags(Fx *fx);

#endif
