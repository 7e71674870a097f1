/* stage.c -- host: a sequential reduction whose operand is costly
 * (issue 41, item 4), e.g. `E[r] = E[r] + exp(A[r,a] - D[r])` over an
 * innermost serial loop `a`.
 *
 * The fold T = T op x must run in loop order (SPEC §9.5: a serial loop is
 * sequential), so LLVM cannot vectorise the loop: the chain through T is
 * one element at a time, and so is x's math routine with it.  But x itself
 * does not depend on the chain.  The loop is therefore run in chunks of
 * STAGE elements:
 *
 *   for base = 0, STAGE, ...:
 *     for j < n:  buf[j] = x(a = base + j)       (no chain: vectorised)
 *     for j < n:  the statement at a = base + j, with x read from buf[j]
 *
 * The second loop is the statement exactly as lower.c lowers it (§9.5
 * identity store, conversions, the fold, the store), only x's value comes
 * from the buffer (CgFn.stage_x/stage_v, cg_expr).  x is the same
 * expression at the same index values, and an expression has no side
 * effect, so every value, every fold and its order are those of the plain
 * loop: the result is bit-identical.  x must not read T (the chain would
 * change it between the two loops) and its references must be provably in
 * range (a guarded access records the first out-of-range access; the
 * buffer loop would record it ahead of earlier statements' accesses).
 *
 * A max/min whose accumulator is never NaN (lower.c, cg_ordered_maxmin;
 * f32/f64, 256 iterations or more) is a join: NaN operands are ignored and
 * the rest ordered -inf < ... < -0 < +0 < ... < +inf, so the result is the
 * greatest (least) of the element and the operands in any order of the
 * operations, bit for bit.  Its second loop is then no chain: the buffer
 * joins into 64 lanes (stage_join), and the lanes into the element once,
 * after the §9.5 identity store of iteration 0 (issue 41: LogSoftmax's row
 * maximum about 1.9x).  Any cheap operand qualifies.
 */
#include "codegen/cg.h"

#define STAGE 1024
#define JOIN 64      /* lanes of a max/min join (stage_join) */
#define JOIN_MIN 256 /* the shortest loop joined in lanes */

static bool is_self(const IrExpr *e, const IrTensor *t) {
  e = ir_expr_unparen(e);
  return e && e->kind == E_REF && e->u.ref->tensor == t;
}

/* Walks e: *reads_t when it reads tensor t, *costly when it calls a math
 * routine (exp, log, erf, sqrt, float **), *uses_l when it mentions l,
 * *guarded when a reference is not provably in range. */
typedef struct Scan {
  const IrTensor *t;
  const IrLoop *l;
  bool reads_t, costly, uses_l, guarded;
} Scan;

static void scan(const CgFn *f, const IrExpr *e, Scan *sc) {
  if (!e) return;
  switch (e->kind) {
  case E_INDEX:
    if (e->u.index.loop == sc->l) sc->uses_l = true;
    return;
  case E_REF:
    if (e->u.ref->tensor == sc->t) sc->reads_t = true;
    if (!cg_ref_in_bounds(f, e->u.ref)) sc->guarded = true;
    for (int i = 0; i < e->u.ref->nsub; i++) scan(f, e->u.ref->sub[i], sc);
    return;
  case E_UNARY: scan(f, e->u.unary.a, sc); return;
  case E_BINARY:
    if (e->u.bin.op == OP_POW && ir_dtype_is_float(e->type)) sc->costly = true;
    scan(f, e->u.bin.a, sc);
    scan(f, e->u.bin.b, sc);
    return;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) scan(f, e->u.cmp.operand[i], sc);
    return;
  case E_CALL: {
    IrFunc fn = e->u.call.func;
    if (fn == F_EXP || fn == F_LOG || fn == F_ERF || fn == F_SQRT) sc->costly = true;
    for (int i = 0; i < e->u.call.nargs; i++) scan(f, e->u.call.args[i], sc);
    return;
  }
  case E_PAREN: scan(f, e->u.paren, sc); return;
  default: return;
  }
}

/* The operand x of `T = T op x` (or `T = max/min(T, x)`), NULL if s is not
 * of that form. */
static const IrExpr *operand(const IrStmt *s) {
  const IrTensor *t = s->lhs->tensor;
  const IrExpr *r = ir_expr_unparen(s->rhs);
  const IrExpr *a = NULL, *b = NULL;
  if (r->kind == E_BINARY && (r->u.bin.op == OP_ADD || r->u.bin.op == OP_SUB || r->u.bin.op == OP_MUL)) {
    a = r->u.bin.a;
    b = r->u.bin.b;
  } else if (r->kind == E_CALL && (r->u.call.func == F_MAX || r->u.call.func == F_MIN) && r->u.call.nargs == 2) {
    a = r->u.call.args[0];
    b = r->u.call.args[1];
  } else {
    return NULL;
  }
  if (is_self(a, t)) return b;
  /* x op T: x is evaluated first either way (cg_expr's order) */
  if (is_self(b, t) && !(r->kind == E_BINARY && r->u.bin.op == OP_SUB)) return a;
  return NULL;
}

static bool lhs_mentions(const CgFn *f, const IrStmt *s, const IrLoop *l) {
  Scan sc = {.l = l};
  for (int d = 0; d < s->lhs->nsub; d++) scan(f, s->lhs->sub[d], &sc);
  return sc.uses_l;
}

/* The statement to stage at loop li of n, or NULL; *join: a max/min
 * whose accumulator is never NaN (cg_ordered_maxmin), long enough to join
 * in vectors. */
static const IrStmt *stageable(const CgFn *f, const IrNest *n, int li, const IrExpr **xp, bool *join) {
  const IrLoop *l = n->loops[li];
  if (f->m->target != CG_TARGET_HOST || li + 1 != n->nloops || n->nitems != 1 || n->items[0].kind != ITEM_STMT ||
      l->kind != LOOP_L || l->extent < 2)
    return NULL;
  const IrStmt *s = n->items[0].u.stmt;
  if (!s->self_ref || !ir_dtype_is_float(s->lhs->tensor->dtype) || lhs_mentions(f, s, l)) return NULL;
  for (int i = 0; i < f->ntree; i++)
    if (f->tree_r[i]->s == s) return NULL;
  const IrExpr *x = operand(s);
  if (!x || !ir_dtype_is_float(x->type)) return NULL;
  Scan sc = {.t = s->lhs->tensor, .l = l};
  scan(f, x, &sc);
  IrDType t = s->lhs->tensor->dtype;
  *join = l->extent >= JOIN_MIN && (t == DT_F32 || t == DT_F64) && ir_expr_unparen(s->rhs)->type == t &&
          cg_ordered_maxmin(f, s) && cg_ref_in_bounds(f, s->lhs);
  if (sc.reads_t || !(sc.costly || *join) || !sc.uses_l || sc.guarded) return NULL;
  *xp = x;
  return s;
}

/* The join of a max/min whose accumulator is never NaN (a max under the
 * order -inf < ... < -0 < +0 < ... < +inf, NaN ignored) is associative and
 * commutative, bit for bit: the result is the greatest of the element's
 * value and the loop's operands, whatever the order of the operations.  So
 * the operands staged in buf (cnt of them) join into JOIN lanes, the rest
 * into *sacc; cg_stage_reduction joins the lanes into the element at the
 * end. */
static void stage_join(CgFn *f, bool is_max, LLVMTypeRef ty, LLVMValueRef buf, LLVMValueRef cnt, LLVMValueRef vacc,
                       LLVMValueRef sacc) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  LLVMTypeRef vt = LLVMVectorType(ty, JOIN);
  CgLoop lv, lt;
  LLVMValueRef nv = LLVMBuildUDiv(B, cnt, cg_i64(m, JOIN), "");
  LLVMValueRef k = cg_loop_begin(f, &lv, cg_i64(m, 0), nv, LOOP_L);
  LLVMValueRef off = LLVMBuildMul(B, k, cg_i64(m, JOIN), "");
  LLVMValueRef v = LLVMBuildLoad2(B, vt, LLVMBuildInBoundsGEP2(B, ty, buf, &off, 1, ""), "");
  LLVMSetAlignment(v, ty == m->f64 ? 8 : 4);
  LLVMBuildStore(B, cg_maxmin_ordered(f, is_max, LLVMBuildLoad2(B, vt, vacc, ""), v), vacc);
  cg_loop_end(f, &lv);
  LLVMValueRef j = cg_loop_begin(f, &lt, LLVMBuildMul(B, nv, cg_i64(m, JOIN), ""), cnt, LOOP_L);
  LLVMValueRef x = LLVMBuildLoad2(B, ty, LLVMBuildInBoundsGEP2(B, ty, buf, &j, 1, ""), "");
  LLVMBuildStore(B, cg_maxmin_ordered(f, is_max, LLVMBuildLoad2(B, ty, sacc, ""), x), sacc);
  cg_loop_end(f, &lt);
}

bool cg_stage_reduction(CgFn *f, const IrNest *n, int li) {
  const IrExpr *x = NULL;
  bool join = false;
  const IrStmt *s = stageable(f, n, li, &x, &join);
  if (!s) return false;
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  const IrLoop *l = n->loops[li];
  int64_t ext = l->extent, k = ext < STAGE ? ext : STAGE;
  IrDType xt = join ? s->lhs->tensor->dtype : x->type; /* join: x as the statement converts it */
  LLVMTypeRef ty = cg_reg_type(m, xt);
  int bi = ty == m->f64;
  if (!f->stage_buf[bi]) f->stage_buf[bi] = cg_alloca(f, ty, STAGE, "stage"); /* one per function */
  LLVMValueRef buf = f->stage_buf[bi];
  int nb = f->nbind;
  bool is_max = s->redop == RED_MAX;
  LLVMValueRef addr = NULL, vacc = NULL, sacc = NULL;
  if (join) {
    /* the §9.5 identity store of iteration 0, then the lanes at the identity */
    cg_bind(f, l, cg_i64(m, 0));
    f->stmt_id = s->id;
    addr = cg_addr(f, s->lhs, true);
    cg_reduction_init(f, s, addr);
    cg_unbind(f, nb);
    LLVMValueRef id = cg_identity(f, s->redop, xt), ids[JOIN];
    for (int i = 0; i < JOIN; i++) ids[i] = id;
    vacc = cg_alloca(f, LLVMVectorType(ty, JOIN), 1, "join");
    sacc = cg_alloca(f, ty, 1, "join1");
    LLVMBuildStore(B, LLVMConstVector(ids, JOIN), vacc);
    LLVMBuildStore(B, id, sacc);
  }
  CgLoop lc, l1, l2;
  LLVMValueRef c = cg_loop_begin(f, &lc, cg_i64(m, 0), cg_i64(m, (ext + k - 1) / k), LOOP_L);
  LLVMValueRef base = LLVMBuildMul(B, c, cg_i64(m, k), "");
  LLVMSetNUW(base, 1);
  LLVMSetNSW(base, 1);
  LLVMValueRef cnt = cg_i64(m, k);
  if (ext % k) {
    LLVMValueRef left = LLVMBuildSub(B, cg_i64(m, ext), base, "");
    cnt = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, left, cnt, ""), left, cnt, "");
  }
  /* the operand, no chain */
  LLVMValueRef j = cg_loop_begin(f, &l1, cg_i64(m, 0), cnt, LOOP_V);
  LLVMValueRef a = LLVMBuildAdd(B, base, j, "");
  LLVMSetNUW(a, 1);
  LLVMSetNSW(a, 1);
  cg_bind(f, l, a);
  f->stmt_id = s->id;
  LLVMValueRef xv = cg_expr(f, x);
  if (join) xv = cg_convert(f, xv, x->type, xt);
  LLVMBuildStore(B, xv, LLVMBuildInBoundsGEP2(B, ty, buf, &j, 1, ""));
  cg_unbind(f, nb);
  cg_loop_end(f, &l1);
  if (join) {
    stage_join(f, is_max, ty, buf, cnt, vacc, sacc);
    cg_loop_end(f, &lc);
    /* the element, then each lane, then the rest: one value, any order */
    LLVMValueRef r = cg_load(f, addr, xt);
    LLVMValueRef v = LLVMBuildLoad2(B, LLVMVectorType(ty, JOIN), vacc, "");
    for (int i = 0; i < JOIN; i++)
      r = cg_maxmin_ordered(f, is_max, r, LLVMBuildExtractElement(B, v, cg_i64(m, i), ""));
    cg_store(f, addr, cg_maxmin_ordered(f, is_max, r, LLVMBuildLoad2(B, ty, sacc, "")), xt);
    return true;
  }
  /* the statement, in loop order */
  j = cg_loop_begin(f, &l2, cg_i64(m, 0), cnt, LOOP_L);
  a = LLVMBuildAdd(B, base, j, "");
  LLVMSetNUW(a, 1);
  LLVMSetNSW(a, 1);
  cg_bind(f, l, a);
  f->stage_x = x;
  f->stage_v = LLVMBuildLoad2(B, ty, LLVMBuildInBoundsGEP2(B, ty, buf, &j, 1, ""), "");
  cg_lower_stmt(f, s);
  f->stage_x = NULL;
  f->stage_v = NULL;
  cg_unbind(f, nb);
  cg_loop_end(f, &l2);
  cg_loop_end(f, &lc);
  return true;
}
