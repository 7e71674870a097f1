/* bench_prog.c -- see bench_prog.h. */
#include "bench/bench_prog.h"
#include "ir/readfile.h"

#include <stdlib.h>
#include <string.h>

bool bench_prog_load(BenchProg *bp, const char *leir, const char *decls) {
  bp->text = leir_read_file(leir, NULL);
  if (!bp->text) return false;
  leir_ctx_init(&bp->ctx);
  bp->ctx.no_warnings = true;
  bp->devnull = fopen("/dev/null", "w");
  bp->ctx.diag_out = bp->devnull;
  leir_ctx_set_source(&bp->ctx, leir, bp->text, strlen(bp->text));
  IrProgram *p = ps_parse(&bp->ctx);
  bp->side = (IrDeclList){0};
  bp->p = p && (!decls || ir_decls_load_json(&bp->ctx, decls, &bp->side)) && ir_sema(&bp->ctx, p, decls ? &bp->side : NULL)
            ? p
            : NULL;
  return true;
}

void bench_prog_free(BenchProg *bp) {
  fclose(bp->devnull);
  leir_ctx_free(&bp->ctx);
  free(bp->text);
}
