/* unit_prog.h -- what the unit tests of the code generator share: a
 * program parsed and analysed from text in a context of its own, with the
 * diagnostics captured in memory (quiet caret). */
#ifndef LEIR_TESTSUITE_UNIT_PROG_H
#define LEIR_TESTSUITE_UNIT_PROG_H

#include <stdio.h>

#include "ir/ir.h"

typedef struct Prog {
  LeirCtx ctx;
  IrProgram *p;
  char diag[8192]; /* the diagnostics, NUL-terminated */
  FILE *dout;
} Prog;

/* Sets up pr's context with its diagnostics going to pr->diag. */
void prog_init(Prog *pr);
/* prog_init, then parses and analyses `text` (as "t.leir"); false after a
 * diagnostic. */
bool prog_load(Prog *pr, const char *text);
void prog_free(Prog *pr);

#endif
