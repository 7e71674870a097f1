/* alg_pass.c -- candidates, checks and rewriting shared by the twelve
 * symbolic strategies (see alg_pass.h for the contract, alg.h for the
 * algebra and alg_rules.c for the rule sets). */
#include "passes/alg_pass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/alg.h"
#include "passes/graph.h"
#include "passes/mathpat.h"
#include "passes/rewrite.h"

static bool needs_v(AlgPassKind k) { return k == ALG_APART || k == ALG_COLLECT || k == ALG_EXPAND_COLLECT; }

static bool has_nested(const IrNest *n) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) return true;
  return false;
}

static const char *ref_text(LeirCtx *ctx, const IrRef *r) {
  SBuf b = {0};
  ir_print_ref(&b, r);
  const char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

/* ------------------------------------------------------------ the rewritten expression */

/* The statement in the form `X=X+rest` (REF: its text starts with `X=X+`):
 * the `+` node whose left operand is X, at the bottom of the right side's
 * chain of + and -; NULL otherwise. */
static const IrExpr *self_head(const IrStmt *s, const char *lhs, const char *rhs) {
  size_t n = strlen(lhs);
  if (strncmp(rhs, lhs, n) || rhs[n] != '+') return NULL;
  for (const IrExpr *e = s->rhs; e->kind == E_BINARY && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB);
       e = e->u.bin.a) {
    const IrExpr *l = e->u.bin.a;
    if (l->kind == E_REF && e->u.bin.op == OP_ADD) {
      SBuf b = {0};
      ir_print_expr(&b, l);
      bool same = b.s && !strcmp(b.s, lhs);
      sbuf_free(&b);
      if (same) return e;
    }
  }
  return NULL;
}

/* `rest` of X=X+rest: the chain above `head` without X. */
static AlgExpr *rest_of(AlgCtx *A, const IrExpr *e, const IrExpr *head) {
  if (e == head) return alg_from_ir(A, head->u.bin.b);
  AlgExpr *l = rest_of(A, e->u.bin.a, head), *r = alg_from_ir(A, e->u.bin.b);
  return alg_add2(A, l, e->u.bin.op == OP_SUB ? alg_neg(A, r) : r);
}

/* What a candidate rewrites: the right side, or `rest`. */
typedef struct Site {
  const IrStmt *s;
  const IrNest *n;       /* its nest (NULL: not known, no reduction check) */
  const char *lhs, *rhs; /* texts */
  const IrExpr *head;    /* X=X+rest: see self_head */
  const char *etext;     /* the text of the rewritten part */
} Site;

/* The bits of a float dtype's significand: every integer up to 2^digits
 * is exact in it. */
static int float_digits(IrDType t) {
  switch (t) {
  case DT_F16: return 11;
  case DT_BF16: return 8;
  case DT_F32: return 24;
  default: return 53;
  }
}

/* A literal, or a sub-expression reading no tensor, whose magnitude (over
 * its loop indices' ranges: rw_find_constant's test) is v, that is not
 * finite in the dtype *u, or, outside comparisons, beyond 2^digits, where
 * that dtype does not hold every integer.  The algebra takes such values as
 * exact numbers: with 1e505 or 2000**4288961 (inf in any dtype) in a
 * denominator, cancellation's common denominator makes inf/inf = NaN of a
 * finite value; (m+1)*(m+21474836481) expanded into terms of 2e10 that
 * cancel where m = -1 leaves f32's rounding of them, O(1), and even f64's,
 * 1e-6; (min(0,29-21**c)+1)*(min(1,29-2*c)+1), 0 at c = 15, expanded into
 * terms of 7e19 that lost the 1 in f64 (fuzz_passes).  Comparisons are
 * integer (i64) where their literals matter: only finiteness is asked of
 * them. */
static bool bad_constant(const IrExpr *e, double v, bool in_cmp, void *u) {
  (void)e;
  IrDType t = *(const IrDType *)u;
  return !ir_dtype_value_finite(t, v) || (!in_cmp && fabs(v) > ldexp(1, float_digits(t)));
}

/* Does rhs have a constant (or a bounded sub-expression of literals and
 * indices) that can make its value huge in the dtype *u (bad_constant's
 * test), outside comparisons and divisors (a mean's /107520 makes values
 * smaller)? */
static bool huge_definition(const IrExpr *rhs, void *u) { return rw_find_huge(rhs, bad_constant, u) != NULL; }

static const char *site_init(PassCtx *pc, const IrStmt *s, Site *st) {
  LeirCtx *ctx = pc->ctx;
  st->s = s;
  st->n = NULL;
  IrDType t = s->lhs->tensor ? s->lhs->tensor->dtype : s->lhs->dt_tag;
  if (!ir_dtype_is_float(t))
    return pass_reason(pc, "'%s' is %s; the algebra rewrites floating-point statements only", s->lhs->name,
                       ir_dtype_name(t));
  const IrExpr *big = rw_find_constant(s->rhs, bad_constant, &t);
  if (big) {
    bool lit = big->kind == E_INT || big->kind == E_FLOAT;
    const char *text = big->kind == E_FLOAT ? big->u.flit.text : big->kind == E_INT ? big->u.ilit.text : NULL;
    if (!text) text = rw_text(ctx, big);
    double v;
    if (!rw_const_value(big, &v)) {
      rw_value_bound(big, &v);
      return pass_reason(pc, "%s may reach %.3g over its loops' ranges, %s in %s; the algebra takes its values as "
                         "exact numbers", text, v, ir_dtype_value_finite(t, v) ? "where not every integer is exact"
                         : "not finite", ir_dtype_name(t));
    }
    if (!ir_dtype_value_finite(t, v))
      return pass_reason(pc, "the %s %s is not finite in %s; the algebra takes %ss as exact numbers",
                         lit ? "literal" : "constant", text, ir_dtype_name(t), lit ? "literal" : "constant");
    return pass_reason(pc, "the %s %s is beyond 2^%d, where %s does not hold every integer; the algebra takes "
                       "%ss as exact numbers", lit ? "literal" : "constant", text, float_digits(t),
                       ir_dtype_name(t), lit ? "literal" : "constant");
  }
  /* ... nor in the definitions of the tensors it reads: a leaf of 9e18
     absorbs the other terms once they are rearranged (fuzz_passes:
     (m+1)*(D-1) expanded to D*m+D-m-1, after -1/A, lost -1/A where m=-1,
     D being a literal moved to a tensor by expression_splitting) */
  int nest;
  const char *from = mp_computed_from(pc->prog, s->rhs, s->lhs->name, huge_definition, &t, &nest);
  if (from && nest < 0)
    return pass_reason(pc, "'%s' is computed from definitions too deep to analyse", from);
  if (from)
    return pass_reason(pc, "it is computed from '%s', whose definition in nest %d has a literal beyond 2^%d, where "
                       "%s does not hold every integer; the algebra's rearranged terms would absorb the others", from,
                       nest, float_digits(t), ir_dtype_name(t));
  st->lhs = ref_text(ctx, s->lhs);
  st->rhs = rw_text(ctx, s->rhs);
  st->head = self_head(s, st->lhs, st->rhs);
  if (!st->head && s->self_ref)
    return pass_reason(pc, "the statement reads its own output '%s' and is not of the form %s=%s+rest", s->lhs->name,
                       s->lhs->name, s->lhs->name);
  st->etext = st->head ? st->rhs + strlen(st->lhs) + 1 : st->rhs;
  return NULL;
}

static AlgExpr *site_expr(AlgCtx *A, const Site *st) {
  return st->head ? rest_of(A, st->s->rhs, st->head) : alg_from_ir(A, st->s->rhs);
}

/* The new right side in ctx. */
static IrExpr *site_rhs(AlgCtx *A, LeirCtx *ctx, const Site *st, AlgExpr *r) {
  if (!st->head) return alg_to_ir_in(A, ctx, r);
  return alg_sum_after(A, ctx, ir_expr_clone(ctx, st->head->u.bin.a), r);
}

/* ------------------------------------------------------------ parameters */

static const char *get_v(AlgCtx *A, const PassCand *c) {
  const char *v = pass_cand_get(c, "v");
  if (!v) alg_fail(A, "missing parameter 'v'");
  return v;
}

/* The leaf or function term of e spelt `v` (bare names). */
static AlgExpr *find_v(AlgCtx *A, AlgExpr *e, const char *v) {
  PtrVec g = {0};
  alg_generators(A, e, &g);
  AlgExpr *hit = NULL;
  int n = 0;
  for (int i = 0; i < g.n; i++)
    if (!strcmp(alg_bare(A, g.v[i]), v)) {
      if (!hit) hit = g.v[i];
      n++;
    }
  if (!hit) alg_fail(A, "'%s' does not occur in the expression", v);
  if (n > 1) alg_fail(A, "'%s' names %d different terms (a tensor read with different subscripts)", v, n);
  return hit;
}

/* ------------------------------------------------------------ the rules */

/* f(e) as text, or NULL when f fails; leaves A's state as it was. */
static const char *try_form(AlgCtx *A, AlgExpr *(*f)(AlgCtx *, AlgExpr *), AlgExpr *e) {
  jmp_buf saved;
  memcpy(saved, A->fail, sizeof saved);
  int changes = A->changes;
  const char *volatile t = NULL;
  if (setjmp(A->fail) == 0) t = alg_text(A, f(A, e));
  memcpy(A->fail, saved, sizeof saved);
  A->changes = changes;
  return t;
}

/* The first divisor of e (IR) that the divisor hook says may be infinite,
 * and why. */
static const IrExpr *inf_divisor(AlgCtx *A, const IrExpr *e, const char **why) {
  e = ir_expr_unparen(e);
  switch (e->kind) {
  case E_UNARY: return inf_divisor(A, e->u.unary.a, why);
  case E_BINARY: {
    if (e->u.bin.op == OP_DIV && (*why = A->divisor_inf(A, e->u.bin.b))) return e->u.bin.b;
    const IrExpr *r = inf_divisor(A, e->u.bin.a, why);
    return r ? r : inf_divisor(A, e->u.bin.b, why);
  }
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      const IrExpr *r = inf_divisor(A, e->u.call.args[i], why);
      if (r) return r;
    }
    return NULL;
  default: return NULL;
  }
}

/* REF's "≠ other forms" conditions (§4.0 table): the result must differ
 * from the forms other strategies give (sympy's factor, cancel, expand,
 * logcombine; here leirc's factorization, cancellation,
 * expand_factorization and logsimp). */
static void other_forms(AlgCtx *A, AlgPassKind k, AlgExpr *e, const char *rtext) {
  struct {
    AlgExpr *(*f)(AlgCtx *, AlgExpr *);
    const char *name;
  } forms[] = {
    {alg_factor, "factorization"},
    {alg_cancel, "cancellation"},
    {alg_expand, "expand_factorization"},
    {alg_logcombine, "logsimp"},
  };
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    if (k == ALG_CANCELLATION && forms[i].f != alg_factor && forms[i].f != alg_expand) continue;
    if (k == ALG_LOGSIMP && forms[i].f == alg_logcombine) continue;
    if (k == ALG_TOGETHER && forms[i].f == alg_logcombine) continue;
    const char *t = try_form(A, forms[i].f, e);
    if (t && !strcmp(t, rtext))
      alg_fail(A, "the result is what %s gives (the reference keeps only a form no other strategy produces)",
               forms[i].name);
  }
}

static AlgExpr *apply_rule(AlgCtx *A, AlgPassKind k, const PassCand *c, AlgExpr *e, const char *etext) {
  int merges = A->merges;
  A->changes = 0;
  AlgExpr *r = NULL;
  const char *none = NULL;
  switch (k) {
  case ALG_FACTORIZATION: {
    const char *rule = pass_cand_get(c, "rule");
    if (!rule || !strcmp(rule, "common")) {
      r = alg_factor(A, e);
      A->changes += merges;
      none = "no sum has a common factor and no factor is repeated";
    } else if (!strcmp(rule, "sigmoid_exp")) {
      r = alg_sigmoid_exp(A, e);
      none = "no factor of the form 1/(1+exp(-x))";
      /* exp(x)/(exp(x)+1) is inf/inf = NaN where exp(x) overflows (1 before) */
      const char *why = NULL;
      const IrExpr *d = A->changes && A->divisor_inf ? inf_divisor(A, alg_to_ir_in(A, &A->scratch, r), &why) : NULL;
      if (d)
        alg_fail(A, "the new divisor %s may be infinite: %s; exp(x)/(exp(x)+1) would then be NaN where "
                 "1/(1+exp(-x)) is 1 (--unsafe-math accepts it)", rw_text(A->ctx, d), why);
    } else if (!strcmp(rule, "sigmoid_neg")) {
      r = alg_sigmoid_neg(A, e);
      none = "no factor of the form exp(x)/(exp(x)+1)";
    } else {
      alg_fail(A, "rule=%s is not one of common, sigmoid_exp, sigmoid_neg", rule);
    }
    break;
  }
  case ALG_EXPAND_FACTORIZATION:
    r = alg_expand(A, e);
    none = "no product with a sum and no power of a sum to expand";
    break;
  case ALG_CANCELLATION:
  case ALG_TOGETHER:
    if (!strchr(etext, '/')) alg_fail(A, "the expression has no division");
    r = k == ALG_CANCELLATION ? alg_cancel(A, e) : alg_together(A, e);
    none = "no sum with a denominator";
    break;
  case ALG_EXPAND_CANCELLATION: r = alg_expand_cancel(A, e); break;
  case ALG_APART: r = alg_apart(A, e, find_v(A, e, get_v(A, c))); break;
  case ALG_POWSIMP:
    r = alg_powsimp(A, e);
    A->changes += merges;
    none = "no repeated factor and no product or power of exponentials";
    break;
  case ALG_EXPAND_POWSIMP:
    r = alg_expand_powsimp(A, e);
    none = A->skipped ? "every exponential of a sum subtracts a term (exp(x-y)): split, exp(x) could overflow where "
                       "exp(x-y) does not"
                     : "no exponential of a sum";
    break;
  case ALG_EXPAND_LOG:
    r = alg_logexpand(A, e);
    none = A->skip_why ? A->skip_why
           : A->skipped ? "every logarithm of a product has a negative factor (log(-x*y) has no real split)"
                        : "no logarithm of a product or a power";
    break;
  case ALG_LOGSIMP:
    r = alg_logcombine(A, e);
    none = A->skip_why ? A->skip_why : "no sum of logarithms and no integer multiple of a logarithm";
    break;
  case ALG_COLLECT:
  case ALG_EXPAND_COLLECT: {
    const char *vs = get_v(A, c);
    AlgExpr *v = find_v(A, e, vs);
    r = k == ALG_COLLECT ? alg_collect(A, e, v) : alg_expand_collect(A, e, v);
    if (!A->changes)
      alg_fail(A, k == ALG_COLLECT ? "no sum has two terms with the same power of '%s'"
                                   : "no product of '%s' with a sum",
               vs);
    break;
  }
  }
  if (!A->changes) alg_fail(A, "%s", none ? none : "the rule does not apply");
  return r;
}

/* The rewrite keeps an initialised reduction's reduction indices (SPEC 9.5
 * rule 3): cancelling exp(A_{tx,a})/exp(A_{tx,a}) in `D=D+...` drops a, and
 * D would be re-initialised at every a instead of summed over it (issue 11,
 * fuzz: the same for the splits' y). */
static void keep_reduction_indices(AlgCtx *A, const Site *st, IrExpr *nr) {
  bool dropped;
  int k = st->n && st->s->init == INIT_REDUCE ? gx_red_change(st->n, st->s, nr, &dropped) : -1;
  if (k < 0) return;
  const char *x = st->n->loops[k]->index, *d = st->s->lhs->name;
  if (dropped)
    alg_fail(A, "the rewrite drops index '%s', a reduction index of '%s' (SPEC 9.5: the reduction would no longer "
             "sum over it)", x, d);
  alg_fail(A, "the rewrite brings index '%s' into the statement, where it would become a reduction index of '%s' "
           "(SPEC 9.5)", x, d);
}

/* Checks candidate c on statement s; with `out`, also builds the new right
 * side in pc->ctx. */
static const char *rewrite_in(AlgCtx *A, const Site *st, AlgPassKind k, const PassCand *c, IrExpr **out,
                              const char **newtext) {
  AlgExpr *e = site_expr(A, st);
  AlgExpr *r = apply_rule(A, k, c, e, st->etext);
  SBuf b = {0};
  IrExpr *nr = site_rhs(A, &A->scratch, st, r);
  ir_print_expr(&b, nr);
  bool same = !strcmp(b.s ? b.s : "", st->rhs);
  if (newtext && !same) *newtext = arena_strdup(&A->ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  if (same) alg_fail(A, "the rewrite leaves the statement unchanged");
  keep_reduction_indices(A, st, nr);
  if (k == ALG_CANCELLATION || k == ALG_TOGETHER || k == ALG_LOGSIMP || k == ALG_COLLECT)
    other_forms(A, k, e, alg_text(A, r));
  if (out) *out = site_rhs(A, A->ctx, st, r);
  return NULL;
}

/* The hooks' data: the pass and the statement's type (its literals'). */
typedef struct Hook {
  PassCtx *pc;
  IrDType st;
} Hook;

/* The algebra's sign hook: the sign of a base as mp_sign_expr proves it. */
static int base_sign(AlgCtx *A, const AlgExpr *x) {
  const Hook *h = A->sign_u;
  return mp_sign_expr(h->pc->prog, alg_to_ir_in(A, &A->scratch, x), h->st);
}

/* The algebra's divisor hook. */
static const char *divisor_inf(AlgCtx *A, const IrExpr *r) {
  const Hook *h = A->sign_u;
  return mp_expr_may_be_inf(h->pc, h->pc->prog, r, h->st);
}

static const char *rewrite(PassCtx *pc, const IrStmt *s, AlgPassKind k, const PassCand *c, IrExpr **out,
                           const char **newtext) {
  Site st;
  const char *why = site_init(pc, s, &st);
  if (why) return why;
  st.n = pc->prog->nests[c->nest];
  AlgCtx A;
  alg_init(&A, pc->ctx);
  Hook h = {pc, rw_ref_dtype(s->lhs)};
  if (!pc->ctx->unsafe_math) {
    A.sign = base_sign;
    A.divisor_inf = divisor_inf;
    A.sign_u = &h;
  }
  if (setjmp(A.fail) == 0) why = rewrite_in(&A, &st, k, c, out, newtext);
  else why = A.err;
  alg_free(&A);
  return why;
}

/* ------------------------------------------------------------ the pass interface */

/* The statement of c (nest, stmt): NULL with *why. */
const char *alg_pass_check(PassCtx *pc, PassCand *c, AlgPassKind k) {
  const char *why;
  IrStmt *s = rw_cand_stmt(pc, pc->prog, c, &why);
  if (!s) return why;
  const char *newtext = NULL;
  why = rewrite(pc, s, k, c, NULL, &newtext);
  if (!why)
    c->why = pass_reason(pc, "'%s' is a floating-point statement %s; the algebra engine rewrites its right side %s "
                         "into the different, algebraically equal %s",
                         s->lhs->name, s->self_ref ? "of the form X=X+rest (only rest is rewritten)" : "that does not "
                         "read its own output", rw_text(pc->ctx, s->rhs), newtext ? newtext : "?");
  if (!why && (k == ALG_LOGSIMP || k == ALG_EXPAND_LOG) && pc->ctx->unsafe_math)
    c->note = "assumes positive arguments (--unsafe-math): log(a*b) = log(a)+log(b) and log(a**k) = k*log(a) hold "
              "for a, b > 0";
  return why;
}

bool alg_pass_apply(PassCtx *pc, IrProgram *q, const PassCand *c, AlgPassKind k) {
  int64_t i;
  if (c->nest < 0 || c->nest >= q->nnests || pass_cand_get_int(c, "stmt", &i) != 1) return false;
  const IrNest *n = pc->prog->nests[c->nest];
  if (i < 0 || i >= n->nitems || n->items[i].kind != ITEM_STMT) return false;
  IrExpr *rhs = NULL;
  const char *why = rewrite(pc, n->items[i].u.stmt, k, c, &rhs, NULL);
  if (why) {
    pc->reason = why;
    return false;
  }
  q->nests[c->nest]->items[i].u.stmt->rhs = rhs;
  return true;
}

static int str_qcmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The distinct unambiguous bare spellings of the leaves and function terms
 * of s's rewritten part, ascending (into the ctx arena). */
static int v_names(PassCtx *pc, const IrStmt *s, const char ***out) {
  Site st;
  if (site_init(pc, s, &st)) return 0;
  AlgCtx A;
  alg_init(&A, pc->ctx);
  volatile int n = 0;
  const char **volatile names = NULL;
  if (setjmp(A.fail) == 0) {
    PtrVec g = {0};
    alg_generators(&A, site_expr(&A, &st), &g);
    names = arena_alloc(&pc->ctx->arena, sizeof *names * (size_t)(g.n ? g.n : 1));
    const char **all = alg_alloc(&A, sizeof *all * (size_t)(g.n ? g.n : 1));
    for (int i = 0; i < g.n; i++) all[i] = alg_bare(&A, g.v[i]);
    qsort(all, (size_t)g.n, sizeof *all, str_qcmp);
    for (int i = 0; i < g.n; i++) {
      bool dup = (i > 0 && !strcmp(all[i], all[i - 1])) || (i + 1 < g.n && !strcmp(all[i], all[i + 1]));
      if (!dup) names[n++] = arena_strdup(&pc->ctx->arena, all[i]);
    }
  }
  alg_free(&A);
  *out = names;
  return n;
}

void alg_pass_enumerate(PassCtx *pc, AlgPassKind k) {
  /* sigmoid_exp only when asked for (§4.0): exp(x)/(exp(x)+1) overflows
   * for large x where 1/(1+exp(-x)) does not. */
  static const char *const rules[] = {"common", "sigmoid_neg"};
  const IrProgram *p = pc->prog;
  for (int nk = 0; nk < p->nnests; nk++) {
    const IrNest *n = p->nests[nk];
    if (has_nested(n)) continue;
    for (int i = 0; i < n->nitems; i++) {
      const char **names = NULL;
      int nv = needs_v(k) ? v_names(pc, n->items[i].u.stmt, &names) : 1;
      int nr = k == ALG_FACTORIZATION ? 2 : 1;
      for (int j = 0; j < nv; j++)
        for (int r = 0; r < nr; r++) {
          PassCand *c = pass_cand_new(pc);
          pass_cand_set_int(pc->ctx, c, "nest", nk);
          pass_cand_set_int(pc->ctx, c, "stmt", i);
          if (k == ALG_FACTORIZATION) pass_cand_set(pc->ctx, c, "rule", rules[r]);
          if (names) pass_cand_set(pc->ctx, c, "v", names[j]);
          pass_emit(pc, c);
        }
    }
  }
}
