/* leir.y -- the LEIR grammar (SPEC §10): pure, %locations, %expect 0, with
 * error recovery at statements, nests and declaration lines so that one run
 * reports several errors.  The actions build the IR (ir/ir.h) directly; the
 * tree keeps the concrete syntax the canonical printer needs. */
%require "3.0"
%define api.pure full
%define api.prefix {leir_yy}
%define parse.error verbose
%locations
%expect 0
%param {yyscan_t scanner}
%parse-param {PsState *ps}

%code requires {
#include "parser/parse.h"
}

%union {
  char *str;
  int func;
  int op;
  IrExpr *expr;
  IrRef *ref;
  IrLoop *loop;
  IrNest *nest;
  IrStmt *stmt;
  PtrVec *vec;
}

%code {
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int leir_yylex(LEIR_YYSTYPE *lval, LEIR_YYLTYPE *lloc, yyscan_t scanner);
PsLexState *leir_yyget_extra(yyscan_t scanner);

/* The lexer bounds bracket nesting by IR_MAX_DEPTH; one level costs the
   parser's stack at most about 30 entries, so this bound is only reached
   by chains of unary operators or `**`, which nest without brackets. */
#define YYMAXDEPTH (50 * IR_MAX_DEPTH)
static void leir_yyerror(LEIR_YYLTYPE *loc, yyscan_t scanner, PsState *ps, const char *msg);

#define CTX (ps->ctx)
#define A (&ps->ctx->arena)
static IrLoc L(LEIR_YYLTYPE l) { return (IrLoc){l.first_line, l.first_column}; }
static PtrVec *vec1(PsState *ps, void *p) {
  PtrVec *v = arena_alloc(A, sizeof *v);
  ptrvec_push(A, v, p);
  return v;
}
static int64_t int_value(PsState *ps, const char *text, IrLoc loc);
static IrExpr *mk_bin(PsState *ps, IrOp op, IrExpr *a, IrExpr *b, IrLoc loc);
static IrStmt *mk_stmt(PsState *ps, IrRef *lhs, IrExpr *rhs);
static IrExpr *mk_cmp(PsState *ps, IrExpr *chain, IrOp op, IrExpr *rhs, IrLoc loc);
static IrExpr *mk_call(PsState *ps, int func, PtrVec *args, IrLoc loc);
static IrRef *mk_ref(PsState *ps, const char *name, const char *dt, IrLoc dtloc,
                     const char *sc, IrLoc scloc, PtrVec *subs, IrLoc loc);
static IrLoop *mk_loop(PsState *ps, const char *kind, IrLoc loc, const char *ext, IrLoc extloc,
                       const char *idx, IrLoc idxloc, const char *start, IrLoc startloc);
static IrNest *mk_nest(PsState *ps, PtrVec *headers, PtrVec *items, IrLoc loc);
static IrItem *mk_item(PsState *ps, IrItemKind k, void *p);
static void add_decl(PsState *ps, const char *role, IrLoc roleloc, const char *name, IrLoc nameloc,
                     const char *dt, IrLoc dtloc, PtrVec *dims);
}

%token DECLSTART "%" NEWLINE "end of line"
%token <str> LOOPKIND "loop kind" TNAME "tensor name" IDENT "identifier"
%token <str> INTLIT "integer" FLOATLIT "number"
%token <func> FUNC "function"
%token INF "inf" POW "**" FLOORDIV "//" LE "<=" GE ">=" EQ "==" NE "!="

%type <expr> expr orx andx cmpx chain addx mulx unary power primary
%type <ref> tref
%type <loop> header
%type <nest> nest
%type <stmt> stmt
%type <vec> headers items exprs dims dims_opt args
%type <op> cmpop mulop

%%

file
  : decls
  | decls nests
  ;

decls
  : %empty
  | decls decl
  ;

decl
  : DECLSTART IDENT TNAME ':' IDENT '[' dims_opt ']' NEWLINE
      { add_decl(ps, $2, L(@2), $3, L(@3), $5, L(@5), $7); }
  | DECLSTART error NEWLINE { yyerrok; }
  ;

dims_opt
  : %empty { $$ = NULL; }
  | dims
  ;

dims
  : INTLIT { $$ = vec1(ps, $1); }
  | dims ',' INTLIT { ptrvec_push(A, $1, $3); $$ = $1; }
  ;

nests
  : nest { if ($1) ptrvec_push(A, &ps->nests, $1); }
  | nests nest { if ($2) ptrvec_push(A, &ps->nests, $2); }
  ;

nest
  : headers '[' items ']' ';' { $$ = mk_nest(ps, $1, $3, @1.first_line ? L(@1) : L(@2)); }
  | headers '[' items ']' header headers '[' items ']' ';'
      {
        ptrvec_push(A, $6, NULL);
        memmove($6->v + 1, $6->v, sizeof(void *) * (size_t)($6->n - 1));
        $6->v[0] = $5;
        IrNest *cont = mk_nest(ps, $6, $8, L(@5));
        cont->continuation = true;
        ptrvec_push(A, $3, mk_item(ps, ITEM_NEST, cont));
        $$ = mk_nest(ps, $1, $3, @1.first_line ? L(@1) : L(@2));
      }
  | headers '[' ']' ';'
      {
        diag_error(CTX, L(@2), "empty nest body: a body holds at least one statement");
        $$ = NULL;
      }
  | error ';' { $$ = NULL; }
  ;

headers
  : %empty { $$ = arena_alloc(A, sizeof(PtrVec)); @$.first_line = 0; }
  | headers header { ptrvec_push(A, $1, $2); $$ = $1; }
  ;

header
  : LOOPKIND '^' '{' INTLIT '}' '_' '{' IDENT '=' INTLIT '}'
      { $$ = mk_loop(ps, $1, L(@1), $4, L(@4), $8, L(@8), $10, L(@10)); }
  ;

items
  : stmt { $$ = vec1(ps, mk_item(ps, ITEM_STMT, $1)); }
  | nest { $$ = vec1(ps, mk_item(ps, ITEM_NEST, $1)); }
  | items stmt { ptrvec_push(A, $1, mk_item(ps, ITEM_STMT, $2)); $$ = $1; }
  | items nest { ptrvec_push(A, $1, mk_item(ps, ITEM_NEST, $2)); $$ = $1; }
  ;

stmt
  : tref '=' expr ';' { $$ = mk_stmt(ps, $1, $3); }
  ;

tref
  : TNAME '^' '{' IDENT ',' IDENT '}'
      { $$ = mk_ref(ps, $1, $4, L(@4), $6, L(@6), NULL, L(@1)); }
  | TNAME '^' '{' IDENT ',' IDENT '}' '_' '{' exprs '}'
      { $$ = mk_ref(ps, $1, $4, L(@4), $6, L(@6), $10, L(@1)); }
  | TNAME '^' '{' IDENT ',' IDENT '}' '_' '{' '}'
      {
        diag_error(CTX, L(@8), "empty subscript: a scalar is written without '_{}'");
        $$ = NULL;
      }
  ;

exprs
  : expr { $$ = vec1(ps, $1); }
  | exprs ',' expr { ptrvec_push(A, $1, $3); $$ = $1; }
  ;

expr : orx ;

orx
  : andx
  | orx '|' andx { $$ = mk_bin(ps, OP_OR, $1, $3, L(@2)); }
  ;

andx
  : cmpx
  | andx '&' cmpx { $$ = mk_bin(ps, OP_AND, $1, $3, L(@2)); }
  ;

cmpx
  : addx
  | chain
  ;

chain
  : addx cmpop addx { $$ = mk_cmp(ps, mk_cmp(ps, NULL, 0, $1, L(@1)), $2, $3, L(@2)); }
  | chain cmpop addx { $$ = mk_cmp(ps, $1, $2, $3, L(@2)); }
  ;

cmpop
  : '<' { $$ = OP_LT; }
  | LE  { $$ = OP_LE; }
  | '>' { $$ = OP_GT; }
  | GE  { $$ = OP_GE; }
  | EQ  { $$ = OP_EQ; }
  | NE  { $$ = OP_NE; }
  ;

addx
  : mulx
  | addx '+' mulx { $$ = mk_bin(ps, OP_ADD, $1, $3, L(@2)); }
  | addx '-' mulx { $$ = mk_bin(ps, OP_SUB, $1, $3, L(@2)); }
  ;

mulx
  : unary
  | mulx mulop unary { $$ = mk_bin(ps, $2, $1, $3, L(@2)); }
  ;

mulop
  : '*' { $$ = OP_MUL; }
  | '/' { $$ = OP_DIV; }
  | FLOORDIV { $$ = OP_FLOORDIV; }
  | '%' { $$ = OP_MOD; }
  ;

unary
  : power
  | '-' unary { $$ = $2 ? ir_unary(CTX, OP_NEG, $2) : NULL; if ($$) $$->loc = L(@1); }
  | '+' unary { $$ = $2 ? ir_unary(CTX, OP_POS, $2) : NULL; if ($$) $$->loc = L(@1); }
  ;

power
  : primary
  | primary POW unary { $$ = mk_bin(ps, OP_POW, $1, $3, L(@2)); }
  ;

primary
  : INTLIT
      {
        $$ = ir_expr_new(CTX, E_INT, L(@1));
        $$->u.ilit.text = $1;
        $$->u.ilit.value = int_value(ps, $1, L(@1));
      }
  | FLOATLIT
      {
        $$ = ir_expr_new(CTX, E_FLOAT, L(@1));
        $$->u.flit.text = $1;
        $$->u.flit.value = strtod($1, NULL);
      }
  | INF { $$ = ir_expr_new(CTX, E_INF, L(@1)); }
  | IDENT { $$ = ir_expr_new(CTX, E_INDEX, L(@1)); $$->u.index.name = $1; }
  | tref { $$ = $1 ? ir_refexpr(CTX, $1) : NULL; }
  | FUNC '(' args ')' { $$ = mk_call(ps, $1, $3, L(@1)); }
  | IDENT '(' args ')'
      {
        diag_error(CTX, L(@1), "unknown function '%s'", $1);
        $$ = NULL;
      }
  | '(' expr ')' { $$ = $2 ? ir_paren(CTX, $2) : NULL; if ($$) $$->loc = L(@1); }
  ;

args
  : expr { $$ = vec1(ps, $1); }
  | args ',' expr { ptrvec_push(A, $1, $3); $$ = $1; }
  ;

%%

static void leir_yyerror(LEIR_YYLTYPE *loc, yyscan_t scanner, PsState *ps, const char *msg) {
  /* The lexer stopped the input after a nesting error: what follows is not
     the user's mistake. */
  if (leir_yyget_extra(scanner)->stopped) return;
  /* The stack can only overflow on an expression nested past the limit
     (YYMAXDEPTH above). */
  if (!strcmp(msg, "memory exhausted")) {
    diag_error(CTX, L(*loc), "expression nested too deeply (at most %d levels)", IR_MAX_DEPTH);
    return;
  }
  /* Bison's verbose messages name tokens by their aliases; keep them. */
  diag_error(CTX, L(*loc), "%s", msg);
}

static int64_t int_value(PsState *ps, const char *text, IrLoc loc) {
  errno = 0;
  long long v = strtoll(text, NULL, 10);
  if (errno == ERANGE) {
    diag_error(CTX, loc, "integer literal '%s' is out of range", text);
    return 1;
  }
  return v;
}

static IrExpr *mk_bin(PsState *ps, IrOp op, IrExpr *a, IrExpr *b, IrLoc loc) {
  if (!a || !b) return NULL;
  IrExpr *e = ir_binary(CTX, op, a, b);
  e->loc = loc;
  return e;
}

/* Depth of the deepest node of e (e itself is level base), or the first
 * node deeper than IR_MAX_DEPTH in *deep.  Iterative: this check is what
 * makes recursion over the tree safe everywhere else. */
typedef struct DepthItem { const IrExpr *e; int level; } DepthItem;

static void push_depth(DepthItem **st, size_t *n, size_t *cap, const IrExpr *e, int level) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    DepthItem *s = realloc(*st, sizeof **st * *cap);
    if (!s) {
      fputs("leirc: out of memory\n", stderr);
      exit(2);
    }
    *st = s;
  }
  (*st)[(*n)++] = (DepthItem){e, level};
}

static const IrExpr *too_deep(IrExpr *const *roots, int nroots, int base) {
  DepthItem *st = NULL;
  size_t n = 0, cap = 0;
  const IrExpr *deep = NULL;
  for (int i = nroots - 1; i >= 0; i--) push_depth(&st, &n, &cap, roots[i], base);
  while (n && !deep) {
    DepthItem it = st[--n];
    const IrExpr *e = it.e;
    if (it.level > IR_MAX_DEPTH) {
      deep = e;
      break;
    }
    /* children pushed last to first: the walk goes left to right, so the
       node reported is the first one past the limit in the text */
    switch (e->kind) {
    case E_REF:
      for (int i = e->u.ref->nsub - 1; i >= 0; i--) push_depth(&st, &n, &cap, e->u.ref->sub[i], it.level + 1);
      break;
    case E_UNARY: push_depth(&st, &n, &cap, e->u.unary.a, it.level + 1); break;
    case E_BINARY:
      push_depth(&st, &n, &cap, e->u.bin.b, it.level + 1);
      push_depth(&st, &n, &cap, e->u.bin.a, it.level + 1);
      break;
    case E_CMP:
      for (int i = e->u.cmp.n - 1; i >= 0; i--) push_depth(&st, &n, &cap, e->u.cmp.operand[i], it.level + 1);
      break;
    case E_CALL:
      for (int i = e->u.call.nargs - 1; i >= 0; i--) push_depth(&st, &n, &cap, e->u.call.args[i], it.level + 1);
      break;
    case E_PAREN: push_depth(&st, &n, &cap, e->u.paren, it.level + 1); break;
    default: break;
    }
  }
  free(st);
  return deep;
}

/* A statement, if its trees are within IR_MAX_DEPTH (the left reference is
 * level 1, its subscripts level 2; the right side's root is level 1). */
static IrStmt *mk_stmt(PsState *ps, IrRef *lhs, IrExpr *rhs) {
  if (!lhs || !rhs) return NULL;
  const IrExpr *deep = too_deep(lhs->sub, lhs->nsub, 2);
  if (!deep) deep = too_deep(&rhs, 1, 1);
  if (deep) {
    diag_error(CTX, deep->loc, "expression nested too deeply (at most %d levels)", IR_MAX_DEPTH);
    return NULL;
  }
  return ir_stmt_new(CTX, lhs, rhs);
}

/* A comparison chain is one node: operands a0 op0 a1 op1 a2 ...  While the
 * parser extends a chain its arrays hold a power of two of entries (at
 * least n), so a long chain is built in linear time and space. */
static bool pow2(int n) { return (n & (n - 1)) == 0; }

static IrExpr *mk_cmp(PsState *ps, IrExpr *chain, IrOp op, IrExpr *rhs, IrLoc loc) {
  if (!rhs) return NULL;
  if (!chain) {
    IrExpr *e = ir_expr_new(CTX, E_CMP, rhs->loc);
    e->u.cmp.n = 1;
    e->u.cmp.operand = arena_alloc(A, sizeof(IrExpr *));
    e->u.cmp.op = arena_alloc(A, sizeof(IrOp));
    e->u.cmp.operand[0] = rhs;
    return e;
  }
  int n = chain->u.cmp.n;
  if (pow2(n)) { /* full: double the capacity */
    IrExpr **operand = arena_alloc(A, sizeof(IrExpr *) * (size_t)(2 * n));
    IrOp *ops = arena_alloc(A, sizeof(IrOp) * (size_t)(2 * n));
    memcpy(operand, chain->u.cmp.operand, sizeof(IrExpr *) * (size_t)n);
    memcpy(ops, chain->u.cmp.op, sizeof(IrOp) * (size_t)(n - 1));
    chain->u.cmp.operand = operand;
    chain->u.cmp.op = ops;
  }
  chain->u.cmp.operand[n] = rhs;
  chain->u.cmp.op[n - 1] = op;
  chain->u.cmp.n = n + 1;
  if (n == 1) chain->loc = loc;
  return chain;
}

static IrExpr *mk_call(PsState *ps, int func, PtrVec *args, IrLoc loc) {
  IrFunc f = (IrFunc)(func & 0xff);
  for (int i = 0; i < args->n; i++)
    if (!args->v[i]) return NULL;
  int n = args->n;
  bool ok = (f == F_MAX || f == F_MIN) ? n >= 2 : f == F_ITE ? n == 3 : n == 1;
  if (!ok) {
    const char *want = (f == F_MAX || f == F_MIN) ? "at least 2" : f == F_ITE ? "3" : "1";
    diag_error(CTX, loc, "function '%s' takes %s argument%s, not %d",
               (func & PS_FUNC_ALIAS) ? "ifthenelse" : ir_func_name(f), want,
               f == F_EXP || f == F_LOG || f == F_SQRT || f == F_ABS || f == F_ERF ? "" : "s", n);
    return NULL;
  }
  IrExpr *e = ir_call(CTX, f, n, (IrExpr **)args->v);
  e->u.call.alias = (func & PS_FUNC_ALIAS) != 0;
  e->loc = loc;
  return e;
}

static IrRef *mk_ref(PsState *ps, const char *name, const char *dt, IrLoc dtloc,
                     const char *sc, IrLoc scloc, PtrVec *subs, IrLoc loc) {
  bool ok = true;
  IrDType t = ir_dtype_from_name(dt);
  if (t == DT_NONE) {
    if (ir_dtype_is_known_unsupported(dt))
      diag_error(CTX, dtloc, "unsupported dtype '%s'", dt);
    else
      diag_error(CTX, dtloc, "unknown dtype '%s'", dt);
    ok = false;
  }
  IrScope s = ir_scope_from_name(sc);
  if (s == SC_NONE) {
    diag_error(CTX, scloc, "unknown scope '%s' (expected g, s or l)", sc);
    ok = false;
  }
  if (subs)
    for (int i = 0; i < subs->n; i++)
      if (!subs->v[i]) ok = false;
  if (!ok) return NULL;
  IrRef *r = ir_ref_new(CTX, name, t, s, subs ? subs->n : 0, subs ? (IrExpr **)subs->v : NULL);
  r->loc = loc;
  return r;
}

static IrLoop *mk_loop(PsState *ps, const char *kind, IrLoc loc, const char *ext, IrLoc extloc,
                       const char *idx, IrLoc idxloc, const char *start, IrLoc startloc) {
  static const char kinds[] = "LPVUB";
  IrLoopKind k = (IrLoopKind)(strchr(kinds, kind[0]) - kinds);
  int64_t n = int_value(ps, ext, extloc);
  if (n == 0) diag_error(CTX, extloc, "loop extent must be at least 1");
  if (n > INT32_MAX) {
    diag_error(CTX, extloc, "loop extent %s is too large (at most 2147483647)", ext);
    n = 1;
  }
  if (strspn(start, "0") != strlen(start))
    diag_error(CTX, startloc, "loop start must be 0 (got %s)", start);
  IrLoop *l = ir_loop_new(CTX, k, n ? n : 1, idx);
  l->extent_text = ext;
  l->start_text = start;
  l->loc = loc;
  l->index_loc = idxloc;
  if (k == LOOP_B && l->hw == HW_NONE)
    diag_error(CTX, idxloc, "index '%s' of a B loop must name a hardware axis ([tb][xyz]...)", idx);
  return l;
}

static IrNest *mk_nest(PsState *ps, PtrVec *headers, PtrVec *items, IrLoc loc) {
  IrNest *n = ir_nest_new(CTX, headers->n, (IrLoop **)headers->v);
  n->loc = loc;
  /* One array for all items (ir_nest_add_item copies the array on every
     call, which is quadratic in a long body). */
  n->items = arena_alloc(A, sizeof(IrItem) * (size_t)(items->n ? items->n : 1));
  for (int i = 0; i < items->n; i++) {
    IrItem *it = items->v[i];
    if (!it) continue;
    if (it->kind == ITEM_NEST) it->u.nest->nested = true;
    n->items[n->nitems++] = *it;
  }
  return n;
}

static IrItem *mk_item(PsState *ps, IrItemKind k, void *p) {
  if (!p) return NULL;
  IrItem *it = arena_alloc(A, sizeof *it);
  it->kind = k;
  if (k == ITEM_STMT)
    it->u.stmt = p;
  else
    it->u.nest = p;
  return it;
}

static void add_decl(PsState *ps, const char *role, IrLoc roleloc, const char *name, IrLoc nameloc,
                     const char *dt, IrLoc dtloc, PtrVec *dims) {
  static const struct { const char *s; IrRole r; } roles[] = {
    {"in", ROLE_IN}, {"param", ROLE_PARAM}, {"out", ROLE_OUT}, {"tmp", ROLE_TMP}};
  int r = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(role, roles[i].s)) r = (int)roles[i].r;
  if (r < 0) {
    diag_error(CTX, roleloc, "unknown declaration '%%%s' (expected %%in, %%param, %%out or %%tmp)", role);
    return;
  }
  IrDType t = ir_dtype_from_name(dt);
  if (t == DT_NONE) {
    diag_error(CTX, dtloc, "%s dtype '%s'", ir_dtype_is_known_unsupported(dt) ? "unsupported" : "unknown", dt);
    return;
  }
  IrDecl *d = arena_alloc(A, sizeof *d);
  d->name = name;
  d->role = (IrRole)r;
  d->dtype = t;
  d->loc = nameloc;
  d->rank = dims ? dims->n : 0;
  d->shape = arena_alloc(A, sizeof(int64_t) * (size_t)(d->rank ? d->rank : 1));
  for (int i = 0; i < d->rank; i++) {
    d->shape[i] = int_value(ps, dims->v[i], nameloc);
    if (d->shape[i] == 0) diag_error(CTX, nameloc, "dimension %d of '%s' must be at least 1", i, name);
  }
  ptrvec_push(A, &ps->decls, d);
}
