/* parse.h -- what the lexer and the parser share. */
#ifndef LEIR_PARSE_H
#define LEIR_PARSE_H

#include "ir/ir.h"

/* The lexer's extra data (yyextra): the context, and whether the program
 * body has started (declarations are only recognised before it). */
typedef struct PsLexState {
  LeirCtx *ctx;
  bool seen_body;
  int line, col; /* position of the next character */
  int end_line, end_col; /* just after the last token of the body */
  /* Open brackets: '(' and '{' (expressions, subscripts, tags) and '['
     (nest bodies), each bounded by IR_MAX_DEPTH.  Past the bound the lexer
     reports the error, sets `stopped` and ends the input, and the parser
     stays silent about the truncated input that follows. */
  int open_expr, open_nest;
  bool stopped;
} PsLexState;

/* The parser's state (a %parse-param). */
typedef struct PsState {
  LeirCtx *ctx;
  PtrVec nests;
  PtrVec decls;
} PsState;

/* FUNC token values: an IrFunc, with this bit for the `ifthenelse` spelling. */
#define PS_FUNC_ALIAS 0x100

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

#endif
