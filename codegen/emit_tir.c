/* emit_tir.c -- TVM TensorIR (TVMScript) for a LEIR program, following the
 * construct table of SPEC §13.1: a `@T.prim_func` taking the arguments in
 * declaration order, intermediates as `T.alloc_buffer` with their scope, B
 * loops as `T.thread_binding`, consecutive L loops as one `T.grid`, one block
 * per statement with `T.axis.remap` (an index of the left subscript is
 * spatial, any other reduce) and `T.init()` for the reductions of §9.5.
 *
 * TVM does not convert between dtypes implicitly, so every operand whose type
 * (IrExpr.type, from sema) differs from the operation's is wrapped in
 * `T.Cast`.  With `cpu`, B loops become serial loops and every buffer is
 * global, so that TVM can build the function for its `llvm` target.
 *
 * Where TVM's meaning differs from leirc's (SPEC §13.2-§13.3): max/min are
 * TVM's (select(a > b, a, b): a NaN operand is not ignored as leirc's
 * maximumNumber ignores it), exp/log/pow/erf are TVM's (libm/LLVM, not
 * leirc's routines), and reductions over B loops are serial here.  Results
 * therefore agree with leirc's up to rounding, and only where no NaN meets
 * a max/min (testsuite/interop/tvm_check.py). */
#include "codegen/emit.h"
#include "codegen/unroll.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct Tir {
  const IrProgram *p;
  bool cpu;
  bool tirx;
  SBuf *out;
  int indent;
  int nblocks;
} Tir;

static const char *tvm_dtype(IrDType t) {
  static const char *const n[DT__COUNT] = {
    [DT_F16] = "float16", [DT_BF16] = "bfloat16", [DT_F32] = "float32", [DT_F64] = "float64",
    [DT_I8] = "int8",     [DT_I16] = "int16",     [DT_I32] = "int32",   [DT_I64] = "int64",
    [DT_U8] = "uint8",    [DT_U16] = "uint16",    [DT_U32] = "uint32",  [DT_U64] = "uint64",
    [DT_BOOL] = "bool",
  };
  return t >= 0 && t < DT__COUNT ? n[t] : "float32";
}

static void line(Tir *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Tir *t, const char *fmt, ...) {
  for (int i = 0; i < t->indent; i++) sbuf_puts(t->out, "    ");
  va_list ap;
  va_start(ap, fmt);
  char buf[4096];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  sbuf_puts(t->out, buf);
  sbuf_putc(t->out, '\n');
}

static void shape_tuple(SBuf *b, const IrTensor *x) {
  sbuf_putc(b, '(');
  for (int i = 0; i < x->rank; i++) sbuf_printf(b, "%lld%s", (long long)x->shape[i], x->rank == 1 ? "," : i + 1 < x->rank ? ", " : "");
  sbuf_putc(b, ')');
}

/* ------------------------------------------------------------ expressions */

static void expr(Tir *t, SBuf *b, const IrExpr *e, IrDType want, bool sub);

static void ref(Tir *t, SBuf *b, const IrRef *r) {
  sbuf_puts(b, r->name);
  sbuf_putc(b, '[');
  if (r->nsub == 0) sbuf_puts(b, "()");
  for (int i = 0; i < r->nsub; i++) {
    if (i) sbuf_puts(b, ", ");
    expr(t, b, r->sub[i], DT_I64, true);
  }
  sbuf_putc(b, ']');
}

static void literal(SBuf *b, double v, IrDType ty) {
  char num[64];
  if (isinf(v)) {
    sbuf_printf(b, "T.%s(\"%sinf\")", tvm_dtype(ty), v < 0 ? "-" : "");
    return;
  }
  if (ir_dtype_is_float(ty)) {
    ir_format_double(num, sizeof num, v);
    sbuf_printf(b, "T.%s(%s)", tvm_dtype(ty), num);
  } else if (ty == DT_BOOL) {
    sbuf_printf(b, "T.bool(%s)", v != 0 ? "True" : "False");
  } else if (ir_dtype_is_unsigned_int(ty)) { /* saturated: the identities reach the type's ends */
    int bits = ir_dtype_size(ty) * 8;
    unsigned long long top = bits == 64 ? ~0ull : (1ull << bits) - 1;
    unsigned long long u = v <= 0 ? 0ull : v >= ldexp(1.0, bits) ? top : (unsigned long long)v;
    if (u > (unsigned long long)INT64_MAX && u == top) /* TVM's IntImm stops at INT64_MAX */
      sbuf_printf(b, "T.max_value(\"%s\")", tvm_dtype(ty));
    else
      sbuf_printf(b, "T.%s(%llu)", tvm_dtype(ty), u);
  } else {
    double lim = ldexp(1.0, ir_dtype_size(ty) * 8 - 1);
    long long hi = ir_dtype_size(ty) == 8 ? INT64_MAX : (long long)lim - 1;
    sbuf_printf(b, "T.%s(%lld)", tvm_dtype(ty), v >= lim ? hi : v < -lim ? -hi - 1 : (long long)v);
  }
}

static const char *pyop(IrOp op) {
  switch (op) {
  case OP_ADD: return " + ";
  case OP_SUB: return " - ";
  case OP_MUL: return " * ";
  case OP_DIV: return " / ";
  case OP_LT: return " < ";
  case OP_LE: return " <= ";
  case OP_GT: return " > ";
  case OP_GE: return " >= ";
  case OP_EQ: return " == ";
  case OP_NE: return " != ";
  default: return " ? ";
  }
}

/* The value of e converted to `want` (DT_NONE: as it is). */
static void expr(Tir *t, SBuf *b, const IrExpr *e, IrDType want, bool sub) {
  /* Subscripts are integer expressions: TVM takes them as they are. */
  if (sub) want = DT_NONE;
  IrDType have = sub ? DT_NONE : e->type;
  bool cast = want != DT_NONE && have != DT_NONE && want != have && e->kind != E_INT && e->kind != E_FLOAT &&
              e->kind != E_INF && e->kind != E_INDEX;
  if (cast) sbuf_printf(b, "T.Cast(\"%s\", ", tvm_dtype(want));
  IrDType lit = want != DT_NONE ? want : have;
  switch (e->kind) {
  case E_INT:
    if (sub)
      sbuf_printf(b, "%lld", (long long)e->u.ilit.value);
    else
      literal(b, (double)e->u.ilit.value, lit);
    break;
  case E_FLOAT: literal(b, e->u.flit.value, lit); break;
  case E_INF: literal(b, INFINITY, lit); break;
  case E_INDEX: { /* block iterators are int32 */
    IrDType to = want != DT_NONE ? want : have;
    if (to != DT_NONE && to != DT_I32)
      sbuf_printf(b, "T.Cast(\"%s\", v_%s)", tvm_dtype(to), e->u.index.name);
    else
      sbuf_printf(b, "v_%s", e->u.index.name);
    break;
  }
  case E_REF: ref(t, b, e->u.ref); break;
  case E_PAREN: expr(t, b, e->u.paren, DT_NONE, sub); break;
  case E_UNARY:
    if (e->u.unary.op == OP_NEG) sbuf_puts(b, "-(");
    else sbuf_putc(b, '(');
    expr(t, b, e->u.unary.a, have, sub);
    sbuf_putc(b, ')');
    break;
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    IrDType ot = (op == OP_AND || op == OP_OR) ? DT_BOOL : have;
    const char *fn = NULL;
    bool intdiv = op == OP_DIV && !ir_dtype_is_float(ot);
    if (op == OP_FLOORDIV) fn = "T.floordiv";
    else if (op == OP_MOD) fn = "T.floormod";
    else if (op == OP_POW) fn = "T.pow";
    else if (op == OP_AND) fn = "T.And";
    else if (op == OP_OR) fn = "T.Or";
    else if (intdiv) fn = "T.truncdiv";
    if (fn) {
      sbuf_printf(b, "%s(", fn);
      expr(t, b, e->u.bin.a, ot, sub);
      sbuf_puts(b, ", ");
      expr(t, b, e->u.bin.b, ot, sub);
      sbuf_putc(b, ')');
    } else {
      sbuf_putc(b, '(');
      expr(t, b, e->u.bin.a, ot, sub);
      sbuf_puts(b, pyop(op));
      expr(t, b, e->u.bin.b, ot, sub);
      sbuf_putc(b, ')');
    }
    break;
  }
  case E_CMP: {
    /* a op b op c  ->  T.And(a op b, b op c); operands in their common type */
    int n = e->u.cmp.n;
    for (int i = 0; i + 1 < n; i++) {
      if (i + 2 < n) sbuf_puts(b, "T.And(");
    }
    for (int i = 0; i + 1 < n; i++) {
      const IrExpr *x = e->u.cmp.operand[i], *y = e->u.cmp.operand[i + 1];
      /* C's usual arithmetic conversions, as leirc compares (lower.c) */
      IrDType ct = sub ? DT_I64 : x->type == y->type ? x->type : ir_dtype_usual(x->type, y->type);
      sbuf_putc(b, '(');
      expr(t, b, x, ct, sub);
      sbuf_puts(b, pyop(e->u.cmp.op[i]));
      expr(t, b, y, ct, sub);
      sbuf_putc(b, ')');
      if (i > 0) sbuf_putc(b, ')');
      if (i + 2 < n) sbuf_puts(b, ", ");
    }
    break;
  }
  case E_CALL: {
    IrFunc f = e->u.call.func;
    static const char *const names[] = {"T.exp", "T.log", "T.sqrt", "T.abs", "T.erf", "T.max", "T.min",
                                        "T.if_then_else"};
    int n = e->u.call.nargs;
    if (f == F_MAX || f == F_MIN) {
      /* folded left: max(a,b,c) = max(max(a,b),c) */
      for (int i = 1; i < n; i++) sbuf_printf(b, "%s(", names[f]);
      expr(t, b, e->u.call.args[0], have, sub);
      for (int i = 1; i < n; i++) {
        sbuf_puts(b, ", ");
        expr(t, b, e->u.call.args[i], have, sub);
        sbuf_putc(b, ')');
      }
      break;
    }
    sbuf_printf(b, "%s(", names[f]);
    for (int i = 0; i < n; i++) {
      if (i) sbuf_puts(b, ", ");
      IrDType at = (f == F_ITE && i == 0) ? DT_BOOL : have;
      expr(t, b, e->u.call.args[i], at, sub);
    }
    sbuf_putc(b, ')');
    break;
  }
  }
  if (cast) sbuf_putc(b, ')');
}

/* ------------------------------------------------------------ statements */

typedef struct Idx { /* loop chains are at most 256 deep (sema) */
  const IrLoop *v[256];
  int n;
} Idx;

static void collect(IrExpr *e, void *user) {
  Idx *s = user;
  if (e->kind != E_INDEX || !e->u.index.loop) return;
  for (int i = 0; i < s->n; i++)
    if (s->v[i] == e->u.index.loop) return;
  if (s->n < 256) s->v[s->n++] = e->u.index.loop;
}

static bool in_set(const Idx *s, const IrLoop *l) {
  for (int i = 0; i < s->n; i++)
    if (s->v[i] == l) return true;
  return false;
}

static void stmt(Tir *t, const IrStmt *s, const IrLoop *const *chain, int nchain) {
  Idx lhs = {0}, all = {0};
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = s->lhs;
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], collect, &lhs);
  ir_walk_expr(&tmp, collect, &all);
  ir_walk_expr(s->rhs, collect, &all);
  line(t, "with T.%s(\"%s_%d\"):", t->tirx ? "sblock" : "block", s->lhs->name, t->nblocks++);
  t->indent++;
  /* block iterators in loop order: spatial if in the left subscript */
  SBuf vars = {0}, kinds = {0}, loops = {0};
  int nvars = 0;
  for (int i = 0; i < nchain; i++) {
    if (!in_set(&all, chain[i])) continue;
    sbuf_printf(&vars, "%sv_%s", nvars ? ", " : "", chain[i]->index);
    sbuf_putc(&kinds, in_set(&lhs, chain[i]) ? 'S' : 'R');
    sbuf_printf(&loops, "%s%s", nvars ? ", " : "", chain[i]->index);
    nvars++;
  }
  if (nvars)
    line(t, "%s = T.axis.remap(\"%s\", [%s])", vars.s, kinds.s, loops.s); /* one: a var, not a tuple */
  sbuf_free(&vars);
  sbuf_free(&kinds);
  sbuf_free(&loops);
  IrDType st = s->lhs->tensor->dtype;
  SBuf l = {0}, r = {0};
  ref(t, &l, s->lhs);
  expr(t, &r, s->rhs, st, false);
  if (s->init == INIT_REDUCE) {
    SBuf id = {0};
    literal(&id, s->identity, st);
    if (s->nred > 0) {
      line(t, "with T.init():");
      t->indent++;
      line(t, "%s = %s", l.s, id.s);
      t->indent--;
    } else {
      line(t, "%s = %s", l.s, id.s); /* no reduction index: every time */
    }
    sbuf_free(&id);
  }
  line(t, "%s = %s", l.s, r.s);
  sbuf_free(&l);
  sbuf_free(&r);
  t->indent--;
}

/* ------------------------------------------------------------ nests */

static void nest(Tir *t, const IrNest *n, const IrLoop **chain, int nchain) {
  int opened = 0;
  for (int i = 0; i < n->nloops;) {
    const IrLoop *lp = n->loops[i];
    if (lp->kind == LOOP_L || (t->cpu && lp->kind == LOOP_B)) {
      int j = i;
      while (j < n->nloops && (n->loops[j]->kind == LOOP_L || (t->cpu && n->loops[j]->kind == LOOP_B))) j++;
      SBuf names = {0}, exts = {0};
      for (int k = i; k < j; k++) {
        sbuf_printf(&names, "%s%s", k > i ? ", " : "", n->loops[k]->index);
        sbuf_printf(&exts, "%s%lld", k > i ? ", " : "", (long long)n->loops[k]->extent);
        chain[nchain++] = n->loops[k];
      }
      if (j - i == 1)
        line(t, "for %s in T.serial(%s):", names.s, exts.s);
      else
        line(t, "for %s in T.grid(%s):", names.s, exts.s);
      sbuf_free(&names);
      sbuf_free(&exts);
      t->indent++;
      opened++;
      i = j;
      continue;
    }
    switch (lp->kind) {
    case LOOP_B:
      line(t, "for %s in T.thread_binding(%lld, thread=\"%s\"):", lp->index, (long long)lp->extent,
           ir_hw_axis_name(lp->hw));
      break;
    case LOOP_P: line(t, "for %s in T.parallel(%lld):", lp->index, (long long)lp->extent); break;
    case LOOP_V: line(t, "for %s in T.vectorized(%lld):", lp->index, (long long)lp->extent); break;
    case LOOP_U:
      /* the code-size bound of leirc's own back ends (codegen/unroll.h):
       * T.unroll unrolls fully, so a loop leirc would not unroll fully
       * stays a serial loop (U runs like L: the result is the same) */
      if (cg_unroll_copies(n, i, !t->cpu, false) >= lp->extent)
        line(t, "for %s in T.unroll(%lld):", lp->index, (long long)lp->extent);
      else
        line(t, "for %s in T.serial(%lld):", lp->index, (long long)lp->extent);
      break;
    default: break;
    }
    chain[nchain++] = lp;
    t->indent++;
    opened++;
    i++;
  }
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_STMT)
      stmt(t, n->items[k].u.stmt, chain, nchain);
    else
      nest(t, n->items[k].u.nest, chain, nchain);
  }
  t->indent -= opened;
}

static int chain_capacity(const IrNest *n) {
  int c = n->nloops, m = 0;
  for (int k = 0; k < n->nitems; k++)
    if (n->items[k].kind == ITEM_NEST) {
      int x = chain_capacity(n->items[k].u.nest);
      if (x > m) m = x;
    }
  return c + m;
}

bool emit_tir(LeirCtx *ctx, const IrProgram *p, const EmitTirOptions *o, SBuf *out) {
  bool cpu = o->cpu;
  Tir t = {.p = p, .cpu = cpu, .tirx = o->tirx, .out = out};
  line(&t, "# from tvm.script import %s as T", t.tirx ? "tirx" : "tir");
  line(&t, "%s", t.tirx ? "@T.prim_func(s_tir=True)" : "@T.prim_func");
  SBuf args = {0};
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *x = p->tensors[i];
    if (x->role == ROLE_TMP) continue;
    sbuf_printf(&args, "%s%s: T.Buffer(", args.len ? ", " : "", x->name);
    shape_tuple(&args, x);
    sbuf_printf(&args, ", \"%s\")", tvm_dtype(x->dtype));
  }
  line(&t, "def main(%s):", args.s ? args.s : "");
  sbuf_free(&args);
  t.indent = 1;
  line(&t, "T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": True})");
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *x = p->tensors[i];
    if (x->role != ROLE_TMP) continue;
    SBuf sh = {0};
    shape_tuple(&sh, x);
    const char *scope = cpu || x->scope == SC_G ? "global" : x->scope == SC_S ? "shared" : "local";
    line(&t, "%s = T.alloc_buffer(%s, \"%s\", scope=\"%s\")", x->name, sh.s, tvm_dtype(x->dtype), scope);
    sbuf_free(&sh);
  }
  for (int i = 0; i < p->nnests; i++) {
    int cap = chain_capacity(p->nests[i]);
    const IrLoop **chain = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(cap ? cap : 1));
    nest(&t, p->nests[i], chain, 0);
  }
  return true;
}
