/* mathpat.h -- helpers shared by the eight non-symbolic math strategies
 * (STRATEGIES §4.13-§4.20): structural matching of nests and statements,
 * the prefix (running) forms `if_then_else(r-1<0,identity,T_{..,r-1})`,
 * the softmax chain `M=max(M,X)`, `S=S+exp(X-M)`, `Y=exp(X-M)/S` that
 * §4.14 and §4.18-§4.20 rewrite, the y candidates of the three splits
 * (§4.15-§4.17) and the value questions they ask the value analysis
 * (ir/value.h): "may be infinite", "provably positive", "moderate".
 *
 * Prefix forms get no implicit initialisation (SPEC §9.5 rule 2: the first
 * right-side occurrence of T is T_{..,r-1}, not the left subscript), so
 * every running tensor a pass creates starts from the identity spelt in
 * its guard. */
#ifndef LEIR_PASSES_MATHPAT_H
#define LEIR_PASSES_MATHPAT_H

#include "passes/pass.h"

/* ------------------------------------------------------------ building */

IrExpr *mp_inf(LeirCtx *ctx, bool negative);                  /* inf / -inf */
IrExpr *mp_call1(LeirCtx *ctx, IrFunc f, IrExpr *a);
IrExpr *mp_call2(LeirCtx *ctx, IrFunc f, IrExpr *a, IrExpr *b);
IrExpr *mp_ite(LeirCtx *ctx, IrExpr *c, IrExpr *a, IrExpr *b);
/* `a op b` as a one-operator comparison chain. */
IrExpr *mp_cmp(LeirCtx *ctx, IrExpr *a, IrOp op, IrExpr *b);
/* `if_then_else(r-1<0, ident, T_{s[r -> r-1]})` for ref t (cloned). */
IrExpr *mp_prev(LeirCtx *ctx, const IrRef *t, const char *r, IrExpr *ident);
/* Inserts `item` (cloned) at position pos of r's subscript, in place. */
void mp_insert_item(LeirCtx *ctx, IrRef *r, int pos, const IrExpr *item);
/* A clone of e in which every index named from[i] becomes to[i] (all at
 * once, values and subscripts). */
IrExpr *mp_rename_indices(LeirCtx *ctx, const IrExpr *e, const char *const *from, const char *const *to, int n);

/* ------------------------------------------------------------ queries */

/* Same number of loops with the same kind, extent and index, in order. */
bool mp_same_header(const IrNest *a, const IrNest *b);
/* Does the top-level nest hold a nested nest? */
bool mp_has_nested(const IrNest *n);
/* Structural equality (parentheses, literal spellings and tags included);
 * a tensor name from[i] on the left matches to[i] on the right. */
bool mp_expr_equal(const IrExpr *a, const IrExpr *b, const char *const *from, const char *const *to, int n);
bool mp_ref_equal(const IrRef *a, const IrRef *b, const char *const *from, const char *const *to, int n);
bool mp_nest_equal(const IrNest *a, const IrNest *b, const char *const *from, const char *const *to, int n);
/* Textual equality of two refs (tags included). */
bool mp_ref_same(LeirCtx *ctx, const IrRef *a, const IrRef *b);
/* Is every subscript item of r a bare index or an integer, with no index
 * twice? */
bool mp_simple_subscript(const IrRef *r);
/* Number of refs to tensor `name` in nest n (left sides too when
 * with_lhs), nested nests and subscripts included. */
int mp_count_refs(const IrNest *n, const char *name, bool with_lhs);
/* Number of refs to tensor `name` in e (subscripts included). */
int mp_count_refs_expr(IrExpr *e, const char *name);
/* Is tensor `name` written by a statement of n (nested nests included)? */
bool mp_writes(const IrNest *n, const char *name);
/* The first top-level nest index in [from, to) that reads (or, with
 * with_lhs, also writes) `name`, skipping the nests in skip[0..nskip);
 * -1 if none. */
int mp_first_use(const IrProgram *p, const char *name, int from, int to, bool with_lhs, const int *skip, int nskip);
/* The first top-level nest in [0, p->nnests) other than `except` that
 * writes `name`; -1 if none. */
int mp_other_writer(const IrProgram *p, const char *name, int except);
/* Applies fn to every ref (left sides, right sides, nested subscript reads)
 * of every statement of n, nested nests included. */
void mp_for_refs(IrNest *n, void (*fn)(IrRef *r, void *u), void *u);

/* ------------------------------------------------------------ analyses */

/* Can tensor `name` hold an infinity for ordinary inputs (the value
 * analysis, ir/value.h: a side of its magnitude IR_MAG_ANY -- inf, a
 * division by what may be 0 or below 10^-4, exp of what is not of the
 * order of the inputs, a power above 8, log of what may be 0)?  Inputs and
 * parameters are finite (REF's input generator).  Returns NULL, or a phrase
 * such as "its definition in nest 19 contains inf". */
const char *mp_may_be_inf(PassCtx *pc, const IrProgram *p, const char *name);
/* Is e computed, through the definitions of the tensors it reads other
 * than `self` (inputs and parameters end the search), from a right side
 * for which has(rhs, u) holds?  Returns the tensor whose definition does,
 * with its nest in *nest (-1: the definitions are too deep to analyse),
 * or NULL. */
const char *mp_computed_from(const IrProgram *p, const IrExpr *e, const char *self,
                             bool (*has)(const IrExpr *rhs, void *u), void *u, int *nest);
/* Can e be infinite (the algebra's divisor check)?  e's own quotients and
 * integer powers, outside function arguments, are the algebra's (X/(A/B)
 * is X*B/A to it): their operands are asked, and an integer power beyond 8
 * itself; every other operand is asked the value analysis
 * (ir_value_may_inf_ordinary: literals, sums and products of finite values
 * are finite; inf, a quotient by what may be 0 or below 10^-4, a power
 * whose exponent is not a constant in [0, 8], log of what may be 0, exp of
 * what is not of the order of the inputs may be infinite).  The algebra
 * passes refuse a divisor that may be infinite: X/inf = 0, but a common
 * denominator makes it inf/inf = NaN.  st: the type of e's statement.
 * Returns NULL, or a phrase such as "'D' is computed with a division by a
 * non-constant". */
const char *mp_expr_may_be_inf(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st);
/* Provably positive tensor, as computed (the value analysis, ir/value.h:
 * the least fixed point of every tensor's value over its writes, through
 * the types of SPEC 5.4 -- integer division truncates, narrow integers
 * wrap, a float becomes an integer by truncation -- with float underflow
 * counted: exp(x) is > 0 only where x is above the type's underflow
 * threshold; a softmax's sum of exp(Y-M) over M = max(Y) is >= 1).  A read
 * before any write of a tensor is anything (SPEC 9.3), so a cycle alone
 * proves nothing; NaN is left aside (multiplicative_split's y != 0). */
bool mp_positive_tensor(const IrProgram *p, const char *name);
/* Where mp_positive_tensor fails, the tensor to blame (ir_value_culprit):
 * " (it is computed from 'Q', which may be 0 as computed)", or "" when it
 * is `name` itself. */
const char *mp_nonzero_culprit(PassCtx *pc, const IrProgram *p, const char *name);
/* The sign of e, in a statement of type st (the type of its literals and
 * index values, where sema has not typed e's nodes), as computed, as far
 * as the definitions of the tensors it reads prove it (the value analysis,
 * as mp_positive_tensor): SIGN_POS (> 0 or NaN), SIGN_NONNEG (>= 0 or NaN)
 * or SIGN_UNKNOWN (ir_value_sign). */
enum { SIGN_UNKNOWN = 0, SIGN_NONNEG = 1, SIGN_POS = 2 };
int mp_sign_expr(const IrProgram *p, const IrExpr *e, IrDType st);

/* The rule of the three splits (§4.15-§4.17): their forms round (and
 * X+y-y turns -0 into +0), which a divisor near zero amplifies without
 * bound (fuzz_passes: 1/(-exp(-C)+exp(-C)) was inf and became 630 after
 * one exp was split).  A reason when the rewritten part of s (the node
 * `node`, or the reference `ref`) is inside a divisor of s (the right
 * operand of / // %, or the base of a power whose exponent is not a
 * constant >= 0) not proved >= 1/2 (the value analysis: a positive but
 * small divisor amplifies as much), or when s's result,
 * or a tensor computed from it (transitively, anywhere in p), is read in
 * such a divisor; NULL otherwise.  form: "X+y-y rounds" or the like. */
const char *mp_divisor_rule(PassCtx *pc, const IrProgram *p, const IrStmt *s, const IrExpr *node, const IrRef *ref,
                            const char *form);

/* Of moderate magnitude: of the order of the inputs, neither far above
 * nor far below them, and no NaN, for ordinary inputs (the value
 * analysis, ir_value_moderate, value_mag.c: inputs, literals up to 10^4,
 * index values, comparisons; sums, max, min, abs, if_then_else branches of
 * such; products with a constant; quotients by a nonzero constant; sqrt of
 * such proved >= 0; erf of such; running max/min; a value the interval
 * bounds by 10^4 and by 10^-4 from 0.  Not: exp, log, powers, products of
 * two non-constants, quotients by what may be larger than the inputs or
 * near 0, sums over reductions and recurrences, inf, literals above 10^4,
 * what may be NaN).  The three splits (§4.15-§4.17) require it of y: their
 * identities fail in floating point when a term is huge (exp overflow;
 * catastrophic cancellation, which a later normalisation can amplify;
 * inf/inf) or tiny beside y (X+y-y keeps X to an ulp of y).  NULL if e is
 * moderate, else a phrase saying why not ("'F' is computed with exp").
 * st: the type of e's statement. */
const char *mp_immoderate(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st);
const char *mp_immoderate_tensor(PassCtx *pc, const IrProgram *p, const char *name);

/* ------------------------------------------------------------ the max/sum chain */

/* `M=max(M,X)` in top-level nest k (STRATEGIES §4.14 and the first nest of
 * §4.18): */
typedef struct MpMax {
  int k;                /* the nest */
  IrStmt *s;
  IrRef *m, *x;         /* M (left side) and X */
  const char *r;        /* the reduction index */
  int rloop;            /* its loop position in the nest */
  int64_t n;            /* its extent */
  int ins;              /* where r sits in X's subscript: the position at
                           which the running tensor gets its extra item */
} MpMax;
/* NULL, or a reason.  With `strict`, every loop of extent > 1 must be used
 * by the statement (a repeated sum would count twice). */
const char *mp_match_max(PassCtx *pc, const IrProgram *p, int k, bool strict, MpMax *out);
/* NULL if M is a float type, else a reason: the running forms' guard
 * supplies -inf at r = 0, which is no identity in an integer type (SPEC 9.5
 * initialises an integer max with the dtype's minimum instead). */
const char *mp_max_not_float(PassCtx *pc, const MpMax *mx);

/* The max of nest k followed by `S=S+exp(X-M)` in nest k+1 (§4.18). */
typedef struct MpSoftmax {
  MpMax mx;
  IrStmt *ssum;
  IrRef *sref;          /* S (left side of the sum) */
} MpSoftmax;
/* The max of mp_match_max (strict, M a float type: mp_max_not_float) and
 * the exp-sum of nest k+1.  NULL, or a reason. */
const char *mp_match_softmax(PassCtx *pc, const IrProgram *p, int k, MpSoftmax *out);
/* Is e exactly `exp(X-M)/S` with the refs of the chain (as text)? */
bool mp_is_division(LeirCtx *ctx, const IrExpr *e, const MpSoftmax *sm);
/* The first statement at or after top-level nest `from` of the form
 * `Y=exp(X-M)/S`: its nest (or -1) and statement. */
int mp_find_division(LeirCtx *ctx, const IrProgram *p, int from, const MpSoftmax *sm, IrStmt **out);

/* The fused nest of §4.18: the max nest's loops with
 *   M_{s'}=max(if_then_else(r-1<0,-inf,M_{s'[r-1]}),X);
 *   G_{s'}=if_then_else(r-1<0,1,G_{s'[r-1]})*exp(if_then_else(r-1<0,-inf,M_{s'[r-1]})-M_{s'})+exp(X-M_{s'});
 * where s' is M's subscript with r inserted at mx.ins; M and G carry the
 * scopes msc and gsc (SC_NONE: the tags of M and of S). */
IrNest *mp_fused_nest(LeirCtx *ctx, const IrNest *maxnest, const MpSoftmax *sm, const char *gname, IrScope msc,
                      IrScope gsc);
/* M_{s'} / G_{s'} refs of the fused nest (fresh trees). */
IrRef *mp_running_ref(LeirCtx *ctx, const MpSoftmax *sm, const char *name, IrDType dt, IrScope sc);
/* In every nest of q from `from` on: refs of M get the item n-1 inserted at
 * mx.ins; with gname, refs of S become G with that item too. */
void mp_retarget_later(LeirCtx *ctx, IrProgram *q, int from, const MpSoftmax *sm, const char *gname, IrDType gdt,
                       IrScope gsc);
/* Shared checks of §4.18-§4.20 on M (and S when `s_goes`): intermediates
 * whose rank changes or that disappear. */
const char *mp_check_chain_tensors(PassCtx *pc, const IrProgram *p, const MpSoftmax *sm, bool s_goes);

/* ------------------------------------------------------------ splits (§4.15-§4.17) */

typedef enum MpSplitKind { MP_EXP, MP_MUL, MP_ADD } MpSplitKind;

/* The y candidates of a statement: "shift" (x shifted by one along the last
 * item of its subscript, identity 0 or 1) when x is given, then the left
 * sides of earlier nests with the same header (REF's exclusions).  Names
 * go to out[] (at most max); returns the count. */
int mp_split_ys(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x, MpSplitKind kind,
                const char **out, int max);
/* Checks one y spelling ("shift" or a tensor name): NULL or a reason.  A
 * named y must use every index of s's left side, and, when s is an
 * implicitly initialised reduction, no index s does not mention (it would
 * become a reduction index, SPEC 9.5). */
const char *mp_split_y(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x, MpSplitKind kind,
                       const char *spell);
/* The tensor a named y spelling ("D" or "D.1") reads; NULL for "shift" or
 * a name that is no tensor.  (Look y's dtype up through this, never by
 * the spelling itself: "D.1" names no tensor.) */
const IrTensor *mp_split_y_tensor(PassCtx *pc, const IrProgram *p, const char *spell);
/* Builds y (a fresh tree) without the checks, for apply; NULL when the
 * spelling names nothing. */
IrExpr *mp_split_y_expr(PassCtx *pc, const IrProgram *p, int k, const IrRef *x, MpSplitKind kind, const char *spell);
/* Resolves the `nest` and `stmt` parameters: the statement, or NULL with
 * *why.  Sets c->nest and c->site. */
IrStmt *mp_cand_stmt(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why);
/* Text of e's parent context around the node `target` (a ref node inside
 * *root): the characters just before and after it in the printed root. */
void mp_neighbours(LeirCtx *ctx, IrExpr *root, IrExpr *target, char *before, char *after);

/* multiplicative_split (MP_MUL) and additive_split (MP_ADD) share their
 * candidates, checks and rewrite (value_split.c); keys nest, stmt, tensor,
 * y. */
void mp_vsplit_enumerate(PassCtx *pc, MpSplitKind kind);
const char *mp_vsplit_check(PassCtx *pc, PassCand *c, MpSplitKind kind);
bool mp_vsplit_apply(PassCtx *pc, IrProgram *q, const PassCand *c, MpSplitKind kind);

#endif /* LEIR_PASSES_MATHPAT_H */
