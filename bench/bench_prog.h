/* bench_prog.h -- what the pass benchmarks share (passes_bench,
 * costmodel_bench): a corpus program read, parsed and analysed with its
 * sidecar declarations in a context of its own, warnings off and the
 * diagnostics discarded. */
#ifndef LEIR_BENCH_PROG_H
#define LEIR_BENCH_PROG_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"

typedef struct BenchProg {
  LeirCtx ctx;
  FILE *devnull;    /* ctx's diagnostics */
  char *text;       /* the source */
  IrDeclList side;  /* the sidecar declarations */
  IrProgram *p;     /* NULL when the program does not parse or analyse */
} BenchProg;

/* Reads `leir`: false when it cannot (bp is then not set up).  Else sets up
 * bp, parses the text and analyses it with the declarations of `decls`
 * (NULL: none) (bp->p: NULL after an error) and returns true;
 * bench_prog_free frees it. */
bool bench_prog_load(BenchProg *bp, const char *leir, const char *decls);
void bench_prog_free(BenchProg *bp);

#endif
