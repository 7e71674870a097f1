/* print.c -- the canonical printer (SPEC §2.1, §10).
 *
 * Parsed programs keep their concrete syntax (parenthesis nodes, literal
 * texts, per-occurrence tags, comparison chains, call spellings, the
 * continuation mark), so printing a parsed program reproduces its text with
 * whitespace and comments removed.  Trees built by passes have no
 * parenthesis nodes; the printer then adds parentheses exactly where the
 * precedence rules of §5.2 require them. */
#include "ir/ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Precedence levels of §5.2 (higher binds tighter). */
enum { LV_OR = 1, LV_AND, LV_CMP, LV_ADD, LV_MUL, LV_UNARY, LV_POW, LV_PRIMARY };

static int op_level(IrOp op) {
  switch (op) {
  case OP_OR: return LV_OR;
  case OP_AND: return LV_AND;
  case OP_ADD: case OP_SUB: return LV_ADD;
  case OP_MUL: case OP_DIV: case OP_FLOORDIV: case OP_MOD: return LV_MUL;
  case OP_POW: return LV_POW;
  case OP_NEG: case OP_POS: return LV_UNARY;
  default: return LV_CMP;
  }
}

static bool negative_literal(const IrExpr *e) {
  if (e->kind == E_INT) return !e->u.ilit.text && e->u.ilit.value < 0;
  if (e->kind == E_FLOAT) return !e->u.flit.text && signbit(e->u.flit.value);
  return false;
}

static int expr_level(const IrExpr *e) {
  switch (e->kind) {
  case E_BINARY: return op_level(e->u.bin.op);
  case E_UNARY: return LV_UNARY;
  case E_CMP: return LV_CMP;
  default: return negative_literal(e) ? LV_UNARY : LV_PRIMARY;
  }
}

void ir_format_double(char *buf, size_t n, double v) {
  if (isinf(v)) {
    snprintf(buf, n, "%sinf", v < 0 ? "-" : "");
    return;
  }
  if (isnan(v)) {
    snprintf(buf, n, "nan");
    return;
  }
  /* Shortest round-tripping digits, then Python's repr layout. */
  char tmp[40];
  int p;
  for (p = 1; p <= 17; p++) {
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
    if (strtod(tmp, NULL) == v) break;
  }
  char digits[24];
  int nd = 0;
  const char *s = tmp;
  bool neg = *s == '-';
  if (neg) s++;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9') digits[nd++] = *s;
  digits[nd] = 0;
  int exp10 = atoi(s + 1);
  while (nd > 1 && digits[nd - 1] == '0') digits[--nd] = 0;
  SBuf b = {0};
  if (neg) sbuf_putc(&b, '-');
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      sbuf_puts(&b, "0.");
      for (int i = 0; i < -exp10 - 1; i++) sbuf_putc(&b, '0');
      sbuf_puts(&b, digits);
    } else {
      for (int i = 0; i <= exp10; i++) sbuf_putc(&b, i < nd ? digits[i] : '0');
      sbuf_putc(&b, '.');
      if (nd > exp10 + 1)
        sbuf_puts(&b, digits + exp10 + 1);
      else
        sbuf_putc(&b, '0');
    }
  } else {
    sbuf_putc(&b, digits[0]);
    if (nd > 1) {
      sbuf_putc(&b, '.');
      sbuf_puts(&b, digits + 1);
    }
    sbuf_printf(&b, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
  }
  snprintf(buf, n, "%s", b.s);
  sbuf_free(&b);
}

static void print_operand(SBuf *b, const IrExpr *e, bool paren) {
  if (paren) sbuf_putc(b, '(');
  ir_print_expr(b, e);
  if (paren) sbuf_putc(b, ')');
}

void ir_print_ref(SBuf *b, const IrRef *r) {
  sbuf_printf(b, "%s^{%s,%s}", r->name, ir_dtype_name(r->dt_tag), ir_scope_name(r->sc_tag));
  if (r->nsub == 0) return;
  sbuf_puts(b, "_{");
  for (int i = 0; i < r->nsub; i++) {
    if (i) sbuf_putc(b, ',');
    ir_print_expr(b, r->sub[i]);
  }
  sbuf_putc(b, '}');
}

void ir_print_expr(SBuf *b, const IrExpr *e) {
  char num[64];
  switch (e->kind) {
  case E_INT:
    if (e->u.ilit.text)
      sbuf_puts(b, e->u.ilit.text);
    else
      sbuf_printf(b, "%lld", (long long)e->u.ilit.value);
    break;
  case E_FLOAT:
    if (e->u.flit.text) {
      sbuf_puts(b, e->u.flit.text);
    } else {
      ir_format_double(num, sizeof num, e->u.flit.value);
      sbuf_puts(b, num);
    }
    break;
  case E_INF: sbuf_puts(b, "inf"); break;
  case E_INDEX: sbuf_puts(b, e->u.index.name); break;
  case E_REF: ir_print_ref(b, e->u.ref); break;
  case E_PAREN:
    sbuf_putc(b, '(');
    ir_print_expr(b, e->u.paren);
    sbuf_putc(b, ')');
    break;
  case E_UNARY:
    sbuf_puts(b, ir_op_text(e->u.unary.op));
    print_operand(b, e->u.unary.a, expr_level(e->u.unary.a) < LV_UNARY);
    break;
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    int lv = op_level(op);
    const IrExpr *l = e->u.bin.a, *r = e->u.bin.b;
    if (op == OP_POW) {
      print_operand(b, l, expr_level(l) < LV_PRIMARY);
      sbuf_puts(b, "**");
      print_operand(b, r, expr_level(r) < LV_UNARY);
    } else {
      print_operand(b, l, expr_level(l) < lv);
      sbuf_puts(b, ir_op_text(op));
      print_operand(b, r, expr_level(r) <= lv);
    }
    break;
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) {
      if (i) sbuf_puts(b, ir_op_text(e->u.cmp.op[i - 1]));
      print_operand(b, e->u.cmp.operand[i], expr_level(e->u.cmp.operand[i]) <= LV_CMP);
    }
    break;
  case E_CALL:
    sbuf_puts(b, e->u.call.alias ? "ifthenelse" : ir_func_name(e->u.call.func));
    sbuf_putc(b, '(');
    for (int i = 0; i < e->u.call.nargs; i++) {
      if (i) sbuf_putc(b, ',');
      ir_print_expr(b, e->u.call.args[i]);
    }
    sbuf_putc(b, ')');
    break;
  }
}

void ir_print_stmt(SBuf *b, const IrStmt *s) {
  ir_print_ref(b, s->lhs);
  sbuf_putc(b, '=');
  ir_print_expr(b, s->rhs);
  sbuf_putc(b, ';');
}

static void print_headers(SBuf *b, const IrNest *n) {
  for (int i = 0; i < n->nloops; i++) {
    const IrLoop *l = n->loops[i];
    sbuf_printf(b, "%c^{", ir_loop_kind_char(l->kind));
    if (l->extent_text)
      sbuf_puts(b, l->extent_text);
    else
      sbuf_printf(b, "%lld", (long long)l->extent);
    sbuf_printf(b, "}_{%s=%s}", l->index, l->start_text ? l->start_text : "0");
  }
}

/* Prints headers, `[`, the items and `]`; a trailing continuation nest is
 * written after the `]` (SPEC §4). */
static void print_nest_body(SBuf *b, const IrNest *n) {
  print_headers(b, n);
  sbuf_putc(b, '[');
  int last = n->nitems;
  const IrNest *cont = NULL;
  if (last > 0 && n->items[last - 1].kind == ITEM_NEST && n->items[last - 1].u.nest->continuation)
    cont = n->items[--last].u.nest;
  for (int i = 0; i < last; i++) {
    if (n->items[i].kind == ITEM_STMT)
      ir_print_stmt(b, n->items[i].u.stmt);
    else
      ir_print_nest(b, n->items[i].u.nest);
  }
  sbuf_putc(b, ']');
  if (cont) print_nest_body(b, cont);
}

void ir_print_nest(SBuf *b, const IrNest *n) {
  print_nest_body(b, n);
  sbuf_putc(b, ';');
}

void ir_print_body(SBuf *b, const IrProgram *p) {
  for (int i = 0; i < p->nnests; i++) ir_print_nest(b, p->nests[i]);
}

static void print_decl(SBuf *b, const char *role, const char *name, IrDType dt, int rank,
                       const int64_t *shape) {
  sbuf_printf(b, "%%%-5s %s : %s[", role, name, ir_dtype_name(dt));
  for (int i = 0; i < rank; i++) sbuf_printf(b, "%s%lld", i ? "," : "", (long long)shape[i]);
  sbuf_puts(b, "]\n");
}

/* The header: every argument tensor (in, param, out) in argument order, and
 * with `all` also the intermediates with their inferred shapes. */
void ir_print_decls(SBuf *b, const IrProgram *p, bool all) {
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->role == ROLE_TMP && !(all || t->declared)) continue;
    if (t->rank < 0) continue;
    print_decl(b, ir_role_name(t->role), t->name, t->dtype, t->rank, t->shape);
  }
}

void ir_print_program(SBuf *b, const IrProgram *p, bool print_decls) {
  if (print_decls)
    ir_print_decls(b, p, false);
  else if (p->has_header) {
    /* the header as given: the declared tensors in declaration order */
    for (int i = 0; i < p->header.n; i++) {
      IrTensor *t = ir_find_tensor(p, p->header.d[i].name);
      if (t) print_decl(b, ir_role_name(t->role), t->name, t->dtype, t->rank, t->shape);
    }
  }
  ir_print_body(b, p);
  sbuf_putc(b, '\n');
}
