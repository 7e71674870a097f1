/* parse.c -- runs the lexer and parser over the context's source and
 * assembles the program. */
#include "parser/parse.h"
#include "parser/leir.h"

int leir_yylex_init_extra(PsLexState *extra, yyscan_t *scanner);
void *leir_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int leir_yylex_destroy(yyscan_t scanner);

IrProgram *ps_parse(LeirCtx *ctx) {
  if (ctx->src.len > (size_t)1 << 30) {
    diag_error(ctx, (IrLoc){0, 0}, "input is too large");
    return NULL;
  }
  PsLexState lx = {.ctx = ctx, .line = 1, .col = 1};
  PsState ps = {.ctx = ctx};
  yyscan_t scanner;
  if (leir_yylex_init_extra(&lx, &scanner)) {
    diag_error(ctx, (IrLoc){0, 0}, "cannot start the lexer");
    return NULL;
  }
  leir_yy_scan_bytes(ctx->src.text, (int)ctx->src.len, scanner);
  int errors_before = ctx->nerrors;
  int rc = leir_yyparse(scanner, &ps);
  leir_yylex_destroy(scanner);
  if (rc != 0 || ctx->nerrors > errors_before) return NULL;
  if (ps.nests.n == 0) {
    diag_error(ctx, (IrLoc){0, 0}, "the program has no loop nest");
    return NULL;
  }
  IrProgram *p = arena_alloc(&ctx->arena, sizeof *p);
  p->nnests = ps.nests.n;
  p->nests = (IrNest **)ps.nests.v;
  p->header.n = ps.decls.n;
  p->header.d = arena_alloc(&ctx->arena, sizeof(IrDecl) * (size_t)(ps.decls.n ? ps.decls.n : 1));
  for (int i = 0; i < ps.decls.n; i++) p->header.d[i] = *(IrDecl *)ps.decls.v[i];
  p->has_header = ps.decls.n > 0;
  return p;
}
