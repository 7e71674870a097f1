/* value_sign.c -- the value analysis (see value.h): the passes' questions
 * about a value -- its sign, the value of an expression a pass built (its
 * reads resolved by name), and the culprit a diagnostic names when a
 * property is not proved.
 *
 * Signs are those of the computed values (issue 39, item 3).  A float that
 * underflows rounds to 0, so exp(x) is positive as computed only where x's
 * lower bound is above the type's underflow threshold (f32: about -103.97,
 * subnormals included; f64: about -745.13; the analysis draws the line at
 * the least subnormal, -103.28 and about -743.7); a product of positive values
 * likewise.  Every condition that asks for a sign is served by this one
 * answer: the conditions over computed floats (a divisor, multiplicative
 * split's y != 0, log's argument not 0 -- STRATEGIES 4.15-4.17 are class T,
 * whose check wants NaN and Inf at the same positions) need it, and a
 * condition over real arithmetic (the algebra's bases, expand_log's
 * arguments) is implied by it: rounding to nearest keeps a sign or gives
 * 0, so a value positive as computed was positive in real arithmetic. */
#include "ir/value.h"

#include <stdlib.h>
#include <string.h>

int ir_value_sign(IrValue v) {
  if (v.bottom) return IR_SIGN_POS;
  if (!(v.lo >= 0)) return IR_SIGN_UNKNOWN;
  return v.may_zero ? IR_SIGN_NONNEG : IR_SIGN_POS;
}

const IrTensor *ir_value_ref_tensor(const IrProgram *p, const IrRef *r) {
  const IrTensor *t = r->tensor;
  if (t && t->id >= 0 && t->id < p->ntensors && p->tensors[t->id] == t) return t;
  return ir_find_tensor(p, r->name);
}

typedef struct ByName {
  const IrValueProgram *vp;
  const IrProgram *p;
} ByName;

static IrValue by_name(void *user, const IrRef *r) {
  const ByName *b = user;
  const IrTensor *t = ir_value_ref_tensor(b->p, r);
  if (!t) return r->dt_tag != DT_NONE ? ir_value_of_dtype(r->dt_tag, false) : ir_value_top();
  if (t->id >= b->vp->n) return ir_value_of_dtype(t->dtype, false);
  return b->vp->tensors[t->id];
}

IrValue ir_value_in(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e, IrDType st) {
  ByName b = {vp, p};
  IrValueEnv env = {.ref = by_name, .user = &b, .inputs_finite = vp->inputs_finite, .st = st};
  return ir_value_expr(&env, e);
}

/* ------------------------------------------------------------ culprits */

typedef struct Blame {
  const IrValueProgram *vp;
  const IrProgram *p;
  bool (*ok)(IrValue v);
  bool *seen;                 /* by tensor id */
  const IrTensor *self;       /* a read of it is skipped (the writer's own) */
  const IrTensor *found;      /* the first read lacking the property */
} Blame;

static bool lacks(const Blame *b, const IrTensor *t) {
  return t->id < b->vp->n && !b->ok(b->vp->tensors[t->id]);
}

static void blame_ref(IrExpr *e, void *u) {
  Blame *b = u;
  if (b->found || e->kind != E_REF) return;
  const IrTensor *t = ir_value_ref_tensor(b->p, e->u.ref);
  if (!t || t == b->self || b->seen[t->id] || !lacks(b, t)) return;
  /* below the top, only a computed tensor can be more to blame than its
     reader: an input's value is an assumption, not a construct */
  if (b->self && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return;
  b->found = t;
}

/* The first read of e lacking the property and not seen yet, or NULL. */
static const IrTensor *first_lacking(Blame *b, const IrExpr *e, const IrTensor *self) {
  b->found = NULL;
  b->self = self;
  ir_walk_expr((IrExpr *)e, blame_ref, b);
  return b->found;
}

const IrTensor *ir_value_culprit(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e,
                                 bool (*ok)(IrValue v), const IrStmt **stmt) {
  if (stmt) *stmt = NULL;
  bool *seen = calloc((size_t)(p->ntensors ? p->ntensors : 1), sizeof *seen);
  if (!seen) return NULL;
  Blame b = {vp, p, ok, seen, NULL, NULL};
  const IrTensor *t = first_lacking(&b, e, NULL);
  while (t) {
    seen[t->id] = true;
    const IrTensor *next = NULL;
    for (int i = 0; i < p->nstmts && !next; i++) {
      const IrStmt *s = p->stmts[i];
      if (s->lhs->tensor == t) next = first_lacking(&b, s->rhs, t);
    }
    if (!next) break;
    t = next;
  }
  if (t && stmt)
    for (int i = 0; i < p->nstmts && !*stmt; i++) {
      const IrStmt *s = p->stmts[i];
      if (s->lhs->tensor == t && !ok(ir_value_in(vp, p, s->rhs, t->dtype))) *stmt = s;
    }
  free(seen);
  return t;
}
