/* exec.c -- the bytecode loop of the interpreter (interp/vm.h).
 *
 * One switch over the opcodes; operands are register numbers into one IVal
 * array.  The steps counter is kept in a local and written back at the end.
 */
#include "interp/vm.h"

#include <stdlib.h>

/* ------------------------------------------------------------ tree mode */

static bool tree_grow(TreeInfo *ti) {
  if (!ti->row_of) {
    ti->row_of = malloc(sizeof(int32_t) * (size_t)ti->numel);
    if (!ti->row_of) return false;
    for (int64_t i = 0; i < ti->numel; i++) ti->row_of[i] = -1;
  }
  if (ti->ntouched == ti->cap_touched) {
    int64_t cap = ti->cap_touched ? ti->cap_touched * 2 : 4;
    if (cap > INT32_MAX || cap * ti->N > ((int64_t)1 << 31)) return false;
    int64_t *t = realloc(ti->touched, sizeof(int64_t) * (size_t)cap);
    if (!t) return false;
    ti->touched = t;
    IVal *r = realloc(ti->rows, sizeof(IVal) * (size_t)(cap * ti->N));
    if (!r) return false;
    ti->rows = r;
    ti->cap_touched = cap;
  }
  return true;
}

/* Folds v into the partial of element e for the current thread. */
static bool tree_acc(TreeInfo *ti, const IVal *regs, int64_t e, IVal v) {
  int64_t t = 0;
  for (int i = 0; i < ti->nthr; i++) t = t * ti->thr_ext[i] + regs[ti->thr_reg[i]].i;
  if (!ti->row_of || ti->row_of[e] < 0) {
    if (!tree_grow(ti)) return false;
    int64_t row = ti->ntouched++;
    ti->row_of[e] = (int32_t)row;
    ti->touched[row] = e;
    IVal *p = ti->rows + row * ti->N;
    for (int64_t k = 0; k < ti->N; k++) p[k] = ti->ident;
  }
  IVal *p = ti->rows + (int64_t)ti->row_of[e] * ti->N + t;
  *p = op_combine(ti->op, ti->nt, *p, v);
  return true;
}

void vm_tree_flush(TreeInfo *ti) {
  int comb = ti->op == OP_SUB ? OP_ADD : ti->op;
  for (int64_t row = 0; row < ti->ntouched; row++) {
    IVal *v = ti->rows + row * ti->N;
    for (int64_t s = 1; s < ti->N; s *= 2)
      for (int64_t t = 0; t + s < ti->N; t += 2 * s) v[t] = op_combine(comb, ti->nt, v[t], v[t + s]);
    int64_t e = ti->touched[row];
    IVal prior = op_convert(op_load(ti->buf, ti->tdt, e), ti->tdt, ti->nt);
    IVal r = op_combine(comb, ti->nt, prior, v[0]);
    op_store(ti->buf, ti->tdt, e, op_convert(r, ti->nt, ti->tdt));
    ti->row_of[e] = -1;
  }
  ti->ntouched = 0;
}

/* ------------------------------------------------------------ the loop */


static bool cmp_i(int op, IrDType t, int64_t a, int64_t b) {
  switch (op) {
  case OP_LT: return op_ilt(t, a, b);
  case OP_LE: return !op_ilt(t, b, a);
  case OP_GT: return op_ilt(t, b, a);
  case OP_GE: return !op_ilt(t, a, b);
  case OP_EQ: return a == b;
  default: return a != b;
  }
}

static bool truth(IVal v, IrDType t) {
  char c = op_class(t);
  if (c == 'd') return v.d != 0;
  if (c == 'f') return v.f != 0;
  return v.i != 0;
}

/* Checked flat offset; false (with the error recorded) when out of range. */
static bool addr(InterpProg *ip, const RefInfo *ri, const IVal *r, int64_t *off) {
  int64_t o = 0;
  for (int k = 0; k < ri->rank; k++) {
    int64_t v = r[ri->dimreg[k]].i;
    if (v < 0 || v >= ri->shape[k]) {
      ip->err.kind = VM_OOB;
      ip->err.ref = ri;
      ip->err.dim = k;
      return false;
    }
    o += v * ri->stride[k];
  }
  *off = o;
  return true;
}

#define STEP(in)                                   \
  do {                                             \
    if (__builtin_expect(++steps > limit, 0)) {    \
      ip->err.kind = VM_STEPS;                     \
      ip->err.stmt = (in)->x;                      \
      goto out;                                    \
    }                                              \
  } while (0)

bool vm_exec(InterpProg *ip) {
  IVal *r = ip->regs;
  const Ins *code = ip->code, *in = code;
  uint64_t steps = 0, limit = ip->opt.max_steps ? ip->opt.max_steps : UINT64_MAX;
  ip->err.kind = VM_OK;
  for (;;) {
    switch ((Opc)in->op) {
    case I_HALT: goto out;
    case I_NEXT: {
      const Deltas *dl = in->p.dl;
      if (++r[in->d].i < in->imm) {
        for (int j = 0; j < dl->n; j++) r[dl->reg[j]].i += dl->inc[j];
        in = code + in->x;
      } else {
        for (int j = 0; j < dl->n; j++) r[dl->reg[j]].i -= dl->undo[j];
        r[in->d].i = 0;
        in++;
      }
      break;
    }
    case I_JMP: in = code + in->x; break;
    case I_JZ: in = r[in->a].i ? in + 1 : code + in->x; break;
    case I_JNZ: in = r[in->a].i ? code + in->x : in + 1; break;
    case I_INIT: op_store(in->buf, in->ty, r[in->a].i, in->v); in++; break;
    case I_INITCHK1:
      if (r[in->b].i == 0) op_store(in->buf, in->ty, r[in->a].i, in->v);
      in++;
      break;
    case I_INITCHK: {
      bool all = true;
      for (int64_t k = 0; k < in->imm && all; k++) all = r[in->p.slots[k]].i == 0;
      if (all) op_store(in->buf, in->ty, r[in->a].i, in->v);
      in++;
      break;
    }
    case I_LD: r[in->d] = op_load(in->buf, in->ty, r[in->a].i); in++; break;
    case I_LD_F32: r[in->d].f = ((const float *)in->buf)[r[in->a].i]; in++; break;
    case I_LD_F64: r[in->d].d = ((const double *)in->buf)[r[in->a].i]; in++; break;
    case I_ST: op_store(in->buf, in->ty, r[in->a].i, r[in->b]); STEP(in); in++; break;
    case I_ST_F32: ((float *)in->buf)[r[in->a].i] = r[in->b].f; STEP(in); in++; break;
    case I_ST_F64: ((double *)in->buf)[r[in->a].i] = r[in->b].d; STEP(in); in++; break;
    case I_ADDR:
      if (!addr(ip, in->p.ref, r, &r[in->d].i)) goto out;
      in++;
      break;
    case I_TREE_ACC:
      if (!tree_acc(in->p.tree, r, r[in->a].i, r[in->b])) {
        ip->err.kind = VM_NOMEM;
        ip->err.stmt = in->x;
        goto out;
      }
      STEP(in);
      in++;
      break;
    case I_TREE_FLUSH: vm_tree_flush(in->p.tree); in++; break;
    case I_MOV: r[in->d] = r[in->a]; in++; break;
    case I_CVT: r[in->d] = op_convert(r[in->a], in->ty, in->ty2); in++; break;
    case I_RND: r[in->d].f = op_round_to(in->ty, r[in->a].f); in++; break;
    case I_TRUTH: r[in->d].i = truth(r[in->a], in->ty); in++; break;

    case I_ADD_D: r[in->d].d = r[in->a].d + r[in->b].d; in++; break;
    case I_SUB_D: r[in->d].d = r[in->a].d - r[in->b].d; in++; break;
    case I_MUL_D: r[in->d].d = r[in->a].d * r[in->b].d; in++; break;
    case I_DIV_D: r[in->d].d = r[in->a].d / r[in->b].d; in++; break;
    case I_FDIV_D: r[in->d].d = op_floordivd(r[in->a].d, r[in->b].d); in++; break;
    case I_MOD_D: r[in->d].d = op_fmodd(r[in->a].d, r[in->b].d); in++; break;
    case I_POW_D: r[in->d].d = leir_pow(r[in->a].d, r[in->b].d); in++; break;
    case I_MAX_D: r[in->d].d = op_maxd(r[in->a].d, r[in->b].d); in++; break;
    case I_MIN_D: r[in->d].d = op_mind(r[in->a].d, r[in->b].d); in++; break;
    case I_NEG_D: r[in->d].d = -r[in->a].d; in++; break;
    case I_ABS_D: r[in->d].d = fabs(r[in->a].d); in++; break;
    case I_SQRT_D: r[in->d].d = sqrt(r[in->a].d); in++; break;
    case I_EXP_D: r[in->d].d = leir_exp(r[in->a].d); in++; break;
    case I_LOG_D: r[in->d].d = leir_log(r[in->a].d); in++; break;
    case I_ERF_D: r[in->d].d = leir_erf(r[in->a].d); in++; break;

    case I_FMA_D: r[in->d].d = fma(r[in->a].d, r[in->b].d, r[in->c].d); in++; break;
    case I_FMA_F: r[in->d].f = fmaf(r[in->a].f, r[in->b].f, r[in->c].f); in++; break;
    case I_ADD_F: r[in->d].f = r[in->a].f + r[in->b].f; in++; break;
    case I_SUB_F: r[in->d].f = r[in->a].f - r[in->b].f; in++; break;
    case I_MUL_F: r[in->d].f = r[in->a].f * r[in->b].f; in++; break;
    case I_DIV_F: r[in->d].f = r[in->a].f / r[in->b].f; in++; break;
    case I_FDIV_F: r[in->d].f = op_floordivf(r[in->a].f, r[in->b].f); in++; break;
    case I_MOD_F: r[in->d].f = op_fmodf(r[in->a].f, r[in->b].f); in++; break;
    case I_POW_F: r[in->d].f = leir_powf(r[in->a].f, r[in->b].f); in++; break;
    case I_MAX_F: r[in->d].f = op_maxf(r[in->a].f, r[in->b].f); in++; break;
    case I_MIN_F: r[in->d].f = op_minf(r[in->a].f, r[in->b].f); in++; break;
    case I_NEG_F: r[in->d].f = -r[in->a].f; in++; break;
    case I_ABS_F: r[in->d].f = fabsf(r[in->a].f); in++; break;
    case I_SQRT_F: r[in->d].f = sqrtf(r[in->a].f); in++; break;
    case I_EXP_F: r[in->d].f = leir_expf(r[in->a].f); in++; break;
    case I_LOG_F: r[in->d].f = leir_logf(r[in->a].f); in++; break;
    case I_ERF_F: r[in->d].f = leir_erff(r[in->a].f); in++; break;

    case I_ADD_I: r[in->d].i = op_wrap(in->ty, r[in->a].u + r[in->b].u); in++; break;
    case I_SUB_I: r[in->d].i = op_wrap(in->ty, r[in->a].u - r[in->b].u); in++; break;
    case I_MUL_I: r[in->d].i = op_wrap(in->ty, r[in->a].u * r[in->b].u); in++; break;
    case I_DIV_I: r[in->d].i = op_idiv(in->ty, r[in->a].i, r[in->b].i); in++; break;
    case I_FDIV_I: r[in->d].i = op_ifloordiv(in->ty, r[in->a].i, r[in->b].i); in++; break;
    case I_MOD_I: r[in->d].i = op_imod(in->ty, r[in->a].i, r[in->b].i); in++; break;
    case I_POW_I: r[in->d].i = op_ipow(in->ty, r[in->a].i, r[in->b].i); in++; break;
    case I_MAX_I:
      r[in->d].i = op_ilt(in->ty, r[in->a].i, r[in->b].i) ? r[in->b].i : r[in->a].i;
      in++;
      break;
    case I_MIN_I:
      r[in->d].i = op_ilt(in->ty, r[in->b].i, r[in->a].i) ? r[in->b].i : r[in->a].i;
      in++;
      break;
    case I_NEG_I: r[in->d].i = op_wrap(in->ty, 0u - r[in->a].u); in++; break;
    case I_ABS_I:
      r[in->d].i = r[in->a].i < 0 && !op_unsigned(in->ty) ? op_wrap(in->ty, 0u - r[in->a].u) : r[in->a].i;
      in++;
      break;
    case I_ADD_L: r[in->d].u = r[in->a].u + r[in->b].u; in++; break;
    case I_SUB_L: r[in->d].u = r[in->a].u - r[in->b].u; in++; break;
    case I_MUL_L: r[in->d].u = r[in->a].u * r[in->b].u; in++; break;

    case I_CMP_D: r[in->d].i = ir_cmp_f64((IrOp)in->x, r[in->a].d, r[in->b].d); in++; break;
    case I_CMP_F: r[in->d].i = ir_cmp_f64((IrOp)in->x, r[in->a].f, r[in->b].f); in++; break;
    case I_CMP_I: r[in->d].i = cmp_i(in->x, in->ty, r[in->a].i, r[in->b].i); in++; break;

    case I_MUL_F_MM:
      r[in->d].f = ((const float *)in->buf)[r[in->a].i] * ((const float *)in->buf2)[r[in->b].i];
      in++;
      break;
    case I_MUL_D_MM:
      r[in->d].d = ((const double *)in->buf)[r[in->a].i] * ((const double *)in->buf2)[r[in->b].i];
      in++;
      break;
    case I_ACC_F: {
      float *p = (float *)in->buf + r[in->a].i, v = r[in->b].f;
      *p = in->c == 0 ? *p + v : in->c == 1 ? *p - v : *p * v;
      STEP(in);
      in++;
      break;
    }
    case I_ACC_D: {
      double *p = (double *)in->buf + r[in->a].i, v = r[in->b].d;
      *p = in->c == 0 ? *p + v : in->c == 1 ? *p - v : *p * v;
      STEP(in);
      in++;
      break;
    }
    case I_MAC_F: {
      float *p = (float *)in->buf + r[in->d].i;
      if (in->c >= 0 && r[in->c].i == 0) *p = in->v.f;
      float m = ((const float *)in->buf2)[r[in->a].i] * ((const float *)in->buf3)[r[in->b].i];
      *p = *p + m;
      STEP(in);
      in++;
      break;
    }
    case I_MAC_D: {
      double *p = (double *)in->buf + r[in->d].i;
      if (in->c >= 0 && r[in->c].i == 0) *p = in->v.d;
      double m = ((const double *)in->buf2)[r[in->a].i] * ((const double *)in->buf3)[r[in->b].i];
      *p = *p + m;
      STEP(in);
      in++;
      break;
    }
    case I__COUNT: goto out;
    }
  }
out:
  ip->steps = steps;
  return ip->err.kind == VM_OK;
}
