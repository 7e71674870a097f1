/* value_program.c -- the value analysis (see value.h): the values every
 * tensor of a program can hold, the least fixed point over its writes. */
#include "ir/value.h"

#include <stdlib.h>

/* ------------------------------------------------------------ the program */

static IrValue tensor_cb(void *user, const IrTensor *t) {
  const IrValueProgram *vp = user;
  if (t->id < 0 || t->id >= vp->n) return ir_value_of_dtype(t->dtype, false);
  return vp->tensors[t->id];
}

/* A read of an element before any store: anything (SPEC 9.3).  Such a read
   is undefined, so the magnitude classes, which describe what a defined
   program computes from ordinary inputs (value_mag.c), take nothing from it
   (the tightest class, neutral in a join); its interval is the type's
   every value, NaN and infinities included. */
static IrValue undefined_read(IrDType t) {
  IrValue v = ir_value_of_dtype(t, false);
  v.mag_hi = v.mag_lo = IR_MAG_CONST;
  v.mag_num = v.mag_scaled = true;
  return v;
}

/* A statement reads its own left side, with an implicit initialisation
   (§9.5), as the identity at the start of a reduction, or what it wrote
   before; and a tensor no statement before it writes (a later statement
   does, or the reader itself in an earlier iteration: A = B; B = A*2) as
   what was there before: anything (SPEC 9.3). */
typedef struct StmtRead {
  const IrValueProgram *vp;
  const IrTensor *self;
  bool reduce;          /* self: a reduction's implicit initialisation */
  IrValue identity;
  int stmt;             /* the reader's index */
  const int *first;     /* by tensor id: the first statement writing it */
} StmtRead;

static IrValue stmt_cb(void *user, const IrTensor *t) {
  const StmtRead *sr = user;
  IrValue v = tensor_cb((void *)sr->vp, t);
  if (t == sr->self) return sr->reduce ? ir_value_join(v, sr->identity) : v;
  if (t->role != ROLE_IN && t->role != ROLE_PARAM && t->id >= 0 && t->id < sr->vp->n && sr->first[t->id] >= sr->stmt)
    v = ir_value_join(v, undefined_read(t->dtype));
  return v;
}

/* A read of tensor t in a top-level nest that runs before every nest
   writing t (Ma = max(Mb,1) before Mb = Ma+Ma) sees what was there before:
   anything (SPEC 9.3).  Such a read enters the tensor's own value, not
   only the value of the statement that makes it: the passes ask about a
   tensor wherever it is read ("is y nonzero"), and a read of E before
   E = 1 can see anything, not only the 1 that E's writes store.  A read
   in the nest of t's first write, before that statement (a loop-carried
   read, defined where a guard keeps it from the first iteration), keeps
   the writes' values, as the reading statement's own value does not. */
typedef struct EarlyRead {
  IrValueProgram *vp;
  const IrTensor *self;
  int stmt, nstmts;
  const int *first, *top; /* by tensor id; by statement index (NULL: none) */
} EarlyRead;

static void early_read(IrExpr *e, void *user) {
  const EarlyRead *er = user;
  if (e->kind != E_REF) return;
  const IrTensor *t = e->u.ref->tensor;
  if (!t || t == er->self || t->role == ROLE_IN || t->role == ROLE_PARAM || t->id < 0 || t->id >= er->vp->n ||
      er->first[t->id] < er->stmt)
    return;
  int f = er->first[t->id]; /* == nstmts when no statement writes t */
  if (er->top && f < er->nstmts && er->top[f] == er->top[er->stmt]) return;
  er->vp->tensors[t->id] = ir_value_join(er->vp->tensors[t->id], undefined_read(t->dtype));
}

static void number_nest(const IrNest *n, int k, int *top, int nstmts) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST)
      number_nest(n->items[i].u.nest, k, top, nstmts);
    else if (n->items[i].u.stmt->id >= 0 && n->items[i].u.stmt->id < nstmts)
      top[n->items[i].u.stmt->id] = k;
  }
}

IrValue ir_value_in_program(const IrValueProgram *vp, const IrExpr *e, IrDType st) {
  IrValueEnv env = {.tensor = tensor_cb, .user = (void *)vp, .inputs_finite = vp->inputs_finite, .st = st};
  return ir_value_expr(&env, e);
}

/* Widening: a bound that still moves goes to the end of the type. */
static IrValue widen(IrValue old, IrValue nw, IrDType t) {
  if (old.bottom) return nw;
  IrValue full = ir_value_of_dtype(t, false);
  bool down = nw.lo < old.lo || (nw.iok && old.iok && nw.ilo < old.ilo);
  bool up = nw.hi > old.hi || (nw.iok && old.iok && nw.ihi > old.ihi);
  if (down) nw.lo = full.lo, nw.ilo = full.ilo;
  if (up) nw.hi = full.hi, nw.ihi = full.ihi;
  if (down || up) nw.iok = nw.iok && full.iok;
  /* a widened side is no tighter than its new bound proves (value_mag.c) */
  IrValue proved = ir_value_mag_reset(nw);
  if (down && proved.mag_lo < nw.mag_lo) nw.mag_lo = proved.mag_lo;
  if (up && proved.mag_hi < nw.mag_hi) nw.mag_hi = proved.mag_hi;
  if (nw.lo <= 0 && nw.hi >= 0 && (down || up)) nw.may_zero = true;
  return nw;
}

enum { WIDEN_AFTER = 3, MAX_ROUNDS = 64 };

bool ir_value_program(const IrProgram *p, bool inputs_finite, IrValueProgram *out) {
  out->n = p->ntensors;
  out->inputs_finite = inputs_finite;
  out->tensors = calloc((size_t)(p->ntensors ? p->ntensors : 1), sizeof *out->tensors);
  if (!out->tensors) return false;
  bool *written = calloc((size_t)(p->ntensors ? p->ntensors : 1), sizeof *written);
  int *first = malloc(sizeof *first * (size_t)(p->ntensors ? p->ntensors : 1));
  bool *sumexp = malloc(sizeof *sumexp * (size_t)(p->nstmts ? p->nstmts : 1));
  if (!written || !first || !sumexp) {
    free(written);
    free(first);
    free(sumexp);
    free(out->tensors);
    out->tensors = NULL;
    return false;
  }
  for (int i = 0; i < p->ntensors; i++) first[i] = p->nstmts;
  for (int i = 0; i < p->nstmts; i++) sumexp[i] = ir_value_sum_exp_over_max(p, p->stmts[i]);
  /* a recurrence may grow with its trip count (a sum of n inputs is n
     times one), unless it is a running max/min: at most FINITE
     (value_mag.c) */
  bool *cycle = ir_value_cycles(p);
  bool *grows = malloc(sizeof *grows * (size_t)(p->nstmts ? p->nstmts : 1));
  for (int i = 0; grows && i < p->nstmts; i++) {
    const IrStmt *s = p->stmts[i];
    const IrTensor *t = s->lhs->tensor;
    grows[i] = !cycle || (t && cycle[t->id]) || (s->self_ref && !ir_value_running_minmax(s));
  }
  free(cycle);
  for (int i = p->nstmts - 1; i >= 0; i--)
    if (p->stmts[i]->lhs->tensor) {
      written[p->stmts[i]->lhs->tensor->id] = true;
      first[p->stmts[i]->lhs->tensor->id] = i;
    }
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    bool in = t->role == ROLE_IN || t->role == ROLE_PARAM;
    /* inputs: their dtype's values; never written and not an input
       (uninitialised): anything */
    out->tensors[i] = in ? (inputs_finite ? ir_value_input(t->dtype) : ir_value_of_dtype(t->dtype, false))
                         : written[i] ? ir_value_bottom() : ir_value_of_dtype(t->dtype, false);
  }
  /* a statement that reads its own left side without an implicit
     initialisation reads what was there before: anything */
  for (int i = 0; i < p->nstmts; i++) {
    const IrStmt *s = p->stmts[i];
    const IrTensor *t = s->lhs->tensor;
    if (t && s->self_ref && s->init != INIT_REDUCE && t->role != ROLE_IN && t->role != ROLE_PARAM)
      out->tensors[t->id] = undefined_read(t->dtype);
  }
  int *top = malloc(sizeof *top * (size_t)(p->nstmts > 0 ? p->nstmts : 1));
  for (int i = 0; top && i < p->nstmts; i++) top[i] = -1;
  for (int k = 0; top && k < p->nnests; k++) number_nest(p->nests[k], k, top, p->nstmts);
  for (int i = 0; i < p->nstmts; i++) {
    const IrStmt *s = p->stmts[i];
    /* without the nest numbers (no memory), every early read counts */
    EarlyRead er = {out, s->lhs->tensor, i, p->nstmts, first, top};
    for (int k = 0; k < s->lhs->nsub; k++) ir_walk_expr(s->lhs->sub[k], early_read, &er);
    ir_walk_expr(s->rhs, early_read, &er);
  }
  free(top);
  free(written);
  bool changed = true;
  for (int round = 0; changed && round < MAX_ROUNDS; round++) {
    changed = false;
    for (int i = 0; i < p->nstmts; i++) {
      const IrStmt *s = p->stmts[i];
      const IrTensor *t = s->lhs->tensor;
      if (!t) continue;
      IrDType st = t->dtype;
      StmtRead sr = {out, t, s->init == INIT_REDUCE, ir_value_literal(s->identity, st), i, first};
      IrValueEnv env = {.tensor = stmt_cb, .user = &sr, .inputs_finite = inputs_finite, .st = st};
      IrValue v = ir_value_convert(ir_value_expr(&env, s->rhs), st);
      if (sumexp[i] && !v.bottom) { /* a softmax's sum: >= 1 or NaN */
        v.lo = v.lo > 1 ? v.lo : 1;
        if (v.hi < 1) v.hi = 1;
        v.may_zero = false;
        v.iok = false;
        v = ir_value_mag_fit(v);
      }
      if (!grows || grows[i]) v = ir_value_mag_cap(v, IR_MAG_FINITE);
      IrValue old = out->tensors[t->id], nw = ir_value_join(old, v);
      if (ir_value_eq(old, nw)) continue;
      if (round >= WIDEN_AFTER) nw = widen(old, nw, st);
      out->tensors[t->id] = nw;
      changed = true;
    }
  }
  free(first);
  free(sumexp);
  free(grows);
  if (changed) /* no fixed point within the rounds: give up on what moves */
    for (int i = 0; i < p->nstmts; i++) {
      const IrTensor *t = p->stmts[i]->lhs->tensor;
      if (t) out->tensors[t->id] = ir_value_of_dtype(t->dtype, false);
    }
  return true;
}

void ir_value_program_free(IrValueProgram *vp) {
  free(vp->tensors);
  vp->tensors = NULL;
  vp->n = 0;
}
