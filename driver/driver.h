/* driver.h -- the leirc command line: options and the actions they select.
 * The driver only wires modules together; it holds no compiler logic. */
#ifndef LEIR_DRIVER_H
#define LEIR_DRIVER_H

#include "ir/ir.h"

typedef enum DrvEmit {
  EMIT_NONE, /* check only */
  EMIT_LEIR,
  EMIT_LLVM,
  EMIT_ASM,
  EMIT_PTX
} DrvEmit;

typedef struct DrvOptions {
  const char *input;
  const char *output;     /* -o */
  const char *decls;      /* --decls FILE.json */
  DrvEmit emit;
  bool emit_given;
  bool print_decls;
  bool no_warnings;
  bool werror;
  bool no_caret;
} DrvOptions;

/* Reads `path` ("-" = stdin) into the context as the current source.
 * Returns false (after a diagnostic) on failure. */
bool drv_read_source(LeirCtx *ctx, const char *path);

/* Parses and analyses the current source with the options' declarations. */
IrProgram *drv_load_program(LeirCtx *ctx, const DrvOptions *o);

/* Opens -o (or stdout) for writing; NULL after a diagnostic. */
FILE *drv_open_output(LeirCtx *ctx, const char *path);
bool drv_close_output(LeirCtx *ctx, FILE *f, const char *path);

#endif
