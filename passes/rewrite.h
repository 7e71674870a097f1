/* rewrite.h -- helpers shared by the passes: fresh names (names.c), queries
 * on nests and statements (rewrite.c), constants and bounds
 * (rewrite_bounds.c), accumulation forms, numbers and tree rewriting
 * (rewrite_build.c).  Definitions from STRATEGIES §0.2. */
#ifndef LEIR_PASSES_REWRITE_H
#define LEIR_PASSES_REWRITE_H

#include "passes/pass.h"

/* ------------------------------------------------------------ names (names.c) */

/* Tensor names in the bijective base-20 order of SPEC §2.3 (A C D ... Z Aa
 * Ac ...).  `pos` of a name, -1 if it is not spelt in that alphabet. */
char *pass_tensor_name_at(LeirCtx *ctx, int64_t pos);
int64_t pass_tensor_name_pos(const char *name);
/* Index names in the bijective base-19 order (a c d f g h ... w aa ac ...). */
char *pass_index_name_at(LeirCtx *ctx, int64_t pos);

/* A source of fresh names for one rewrite. */
typedef struct PassNames {
  LeirCtx *ctx;
  const IrProgram *p;
  int64_t next_tensor; /* continues the program's name counter */
} PassNames;
void pass_names_init(PassNames *ns, LeirCtx *ctx, const IrProgram *p);
/* The next tensor name after every name in the program, skipping names in
 * use (REC of §0.2). */
const char *pass_fresh_tensor(PassNames *ns);
/* idx(k) for k = nloops+1, nloops+2, ... (§0.2): the first one not used by
 * any loop of `nest` (nested nests included), not in `also` (count nalso),
 * and not a keyword. */
const char *pass_fresh_index(LeirCtx *ctx, const IrNest *nest, const char **also, int nalso);

/* ------------------------------------------------------------ queries (rewrite.c) */

/* Canonical text of an expression / a ref's subscript, in the arena. */
const char *rw_text(LeirCtx *ctx, const IrExpr *e);
const char *rw_sub_text(LeirCtx *ctx, const IrRef *r);

/* Top-level nest by index, refusing nests that hold nested nests: NULL with
 * *why set. */
IrNest *rw_top_nest(PassCtx *pc, const IrProgram *p, int64_t k, const char **why);
/* Resolves the `nest` and `loop` parameters of c on p: the nest, the loop's
 * position; sets c->nest and c->site (the loop).  NULL with *why. */
IrNest *rw_cand_nest_loop(PassCtx *pc, const IrProgram *p, PassCand *c, int *pos, const char **why);
/* Resolves the `nest` parameter only (site = the nest). */
IrNest *rw_cand_nest(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why);
/* Resolves the `nest` and `stmt` parameters: statement `stmt` (0-based) of
 * the nest (rw_cand_nest's nests hold no nested nest); c->site = it. */
IrStmt *rw_cand_stmt(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why);
/* Does index `name` occur in the left subscript of every statement of n /
 * of its first statement? */
bool rw_in_every_output(const IrNest *n, const char *name);
bool rw_in_first_output(const IrNest *n, const char *name);
/* Position of the first B loop, -1 if none. */
int rw_first_b(const IrNest *n);
/* Product of the extents of n's loops except position `skip` (-1: none),
 * saturating at INT64_MAX. */
int64_t rw_extent_product(const IrNest *n, int skip);
/* Single-statement nest: its statement, else NULL. */
IrStmt *rw_single_stmt(const IrNest *n);
/* Position of the loop with index `name` in n (top level), -1 if none. */
int rw_loop_pos(const IrNest *n, const char *name);
/* Does index `name` occur (as an E_INDEX) anywhere in e / in r's subscript? */
bool rw_expr_mentions(const IrExpr *e, const char *name);
bool rw_ref_mentions(const IrRef *r, const char *name);
/* Does a statement mention index `name` (left subscript or right side)? */
bool rw_stmt_mentions(const IrStmt *s, const char *name);
/* A reason if a loop of n of extent > 1 is not mentioned by s (it repeats
 * s), else NULL.  A repeat restarts an implicitly initialised reduction
 * whenever its reduction indices are all 0 (SPEC 9.5), so splitting the
 * reduction into partial results changes the sum. */
const char *rw_repeated_reduction(PassCtx *pc, const IrNest *n, const IrStmt *s);
/* "no_var" of §0.2: the first index of the nest used as a value (outside
 * every subscript), or NULL if none. */
const char *rw_index_used_as_value(const IrNest *n);
/* Is index `name` used as a value (outside subscripts) in the nest? */
bool rw_index_is_value(const IrNest *n, const char *name);
/* The "fresh-inputs rule" of §0.2 for top-level nest k: NULL, or a reason. */
const char *rw_fresh_inputs_rule(PassCtx *pc, const IrProgram *p, int k);
/* The calc skeleton is `=` (a pure copy): the right side is one ref or index. */
bool rw_is_pure_copy(const IrStmt *s);
/* A subscript with a `-N` or `N-` term (text test, as REF does). */
bool rw_has_const_minus(LeirCtx *ctx, const IrRef *r);
/* The first literal of e, outside subscripts, for which bad(lit, in_cmp,
 * u) holds (in_cmp: an operand of a comparison), or NULL. */
const IrExpr *rw_find_literal(const IrExpr *e, bool (*bad)(const IrExpr *lit, bool in_cmp, void *u), void *u);
/* The value of e computed in f64 (leirc's mathlib) when e is constant: it
 * reads no tensor and no index (nor `inf`, `&` or `|`). */
bool rw_const_value(const IrExpr *e, double *v);
/* A bound on |e| over the ranges of the loop indices e reads: the value
 * analysis' (ir/value.h, in f64), or rw_const_value's value when e is
 * constant; false when the value may be NaN or infinite (`inf`, most
 * references, log near 0, divisions by values that may be 0).  21**c with
 * c < 30 is bounded by 21**29 (ir_value_pow_range). */
bool rw_value_bound(const IrExpr *e, double *m);
/* rw_find_literal over literals and sub-expressions (innermost first),
 * each with the magnitude v of its value (rw_value_bound; +inf when it is
 * not bounded): those that read no tensor, `inf` or unbound index, and
 * those whose value is bounded anyway (a comparison, an if_then_else of
 * bounded branches).  2000**4288961 is inf though each of its literals is
 * finite, and 21**c reaches 2e38 over c < 30.  One walk, bottom up: linear
 * in the size of e. */
const IrExpr *rw_find_constant(const IrExpr *e, bool (*bad)(const IrExpr *c, double v, bool in_cmp, void *u),
                               void *u);
/* rw_find_constant outside divisors (the right operand of / // %) and
 * comparisons, whose values only make a value smaller or 0/1. */
const IrExpr *rw_find_huge(const IrExpr *e, bool (*bad)(const IrExpr *c, double v, bool in_cmp, void *u), void *u);
/* The index tensor whose range the values of tensor `name` bound: `name`
 * itself if an item of some subscript in p reads it, else a tensor read so
 * whose writers' right sides read `name`, directly or through other
 * writers (sema bounds the shapes an index tensor indexes by the range of
 * its writers' right sides, ir/shape.c); NULL if none.  Found for every
 * tensor at once, cached in pc for pc->prog. */
const char *rw_index_bound(PassCtx *pc, const IrProgram *p, const char *name);
/* Does an item of r's subscript read a tensor? */
bool rw_ref_has_nested_ref(const IrRef *r);
/* The position of the first item of r's subscript whose range is not
 * bounded (ir_expr_range: 1%c with c from 0), or -1.  A fresh tensor
 * written at such a subscript (a copy of r) has a shape that sema cannot
 * infer.  For an analysed program (the ranges need sema's loop links). */
int rw_unbounded_item(const IrRef *r);
/* For a subscript whose items are all bounded: the position of the first
 * item at which a fresh tensor written there would pass IR_MAX_NUMEL
 * elements (the product of the items' extents so far: upper bound + 1, or
 * extent[i] where extent is not NULL and extent[i] > 0), or -1.  Its
 * upper bound in *hi.  sema refuses such a shape. */
int rw_oversized_item(const IrRef *r, const int64_t *extent, int64_t *hi);
/* The first reference to `name` in e (text order, if_then_else branches
 * included); NULL if none. */
IrRef *rw_first_read(IrExpr *e, const char *name);

/* Accumulation form of a statement `T_s = T_s op ...` (also max/min(T_s,..))
 * where T_s is textually the left ref and T occurs nowhere else in the right
 * side.  The spine of the right side from the root down to T_s must use one
 * group of operators: + and - (RED_ADD), * (RED_MUL), or the root is a max /
 * min call whose first argument is T_s (RED_MAX / RED_MIN).  RED_NONE
 * otherwise.  *self receives the self-read ref. */
IrReduceOp rw_accum_op(LeirCtx *ctx, const IrStmt *s, IrRef **self);
/* Why the partial results of accumulation s (op = rw_accum_op) cannot be
 * recombined, or NULL: the update is computed in one dtype and converted to
 * the accumulator's at every step, and that conversion does not commute
 * with the op: a + - * update of an integer or bool accumulator computed
 * in a floating-point type truncates or saturates (fuzz_passes: a u32 sum
 * of f16 products, 122 split into 423); a bool sum maps each nonzero
 * partial sum to 1; a max or min whose conversion does not keep order
 * (ir_dtype_convert_monotone: fuzz_passes finding 48, a u32 minimum of i64
 * values wraps, 4294967292 split into 6).  Integer sums and products that
 * wrap recombine exactly (arithmetic modulo 2^N). */
const char *rw_accum_not_associative(PassCtx *pc, const IrStmt *s, IrReduceOp op);
/* The test behind it: does the update's conversion make the order matter? */
bool rw_accum_converts(const IrStmt *s, IrReduceOp op);
/* a OP b for the partial results of an accumulation: max(a,b) / min(a,b)
 * for RED_MAX / RED_MIN, a*b for RED_MUL, a+b otherwise. */
IrExpr *rw_accum_combine(LeirCtx *ctx, IrReduceOp op, IrExpr *a, IrExpr *b);

/* Refs of a statement in text order (left side first, then the right side,
 * nested subscript reads after their parent). */
void rw_stmt_refs(LeirCtx *ctx, IrStmt *s, PtrVec *out);

/* Factor pairs of §0.2: outer extents f with 2 <= f <= floor(sqrt(n)), f | n,
 * ascending; returns the count (at most max). */
int rw_factor_pairs(int64_t n, int64_t *f, int max);
/* Divisors 1 < f < n, ascending; returns the count (at most max). */
int rw_divisors(int64_t n, int64_t *f, int max);

/* Hardware limits of SPEC §3 on a nest's B loops: NULL or a reason
 * (threads > 1024, tz > 64, by/bz > 65535, bx > 2^31-1, one axis bound
 * twice). */
const char *rw_hw_limits(PassCtx *pc, const IrNest *n);
const char *rw_hw_limits_loops(PassCtx *pc, IrLoop *const *loops, int n);

/* ------------------------------------------------------------ rewriting (rewrite_build.c) */

/* Replaces index `name` by a copy of `repl` inside every subscript of e
 * (values outside subscripts are left alone).  A replacement that is not
 * the whole subscript item is parenthesised when it is compound (§0.2:
 * `c+g` with c -> h*4+c gives `(h*4+c)+g`). */
void rw_subst_sub(LeirCtx *ctx, IrExpr **e, const char *name, const IrExpr *repl);
void rw_subst_sub_ref(LeirCtx *ctx, IrRef *r, const char *name, const IrExpr *repl);
void rw_subst_sub_stmt(LeirCtx *ctx, IrStmt *s, const char *name, const IrExpr *repl);
/* Renames index `from` to `to` everywhere in the statement (values too). */
void rw_rename_index_stmt(LeirCtx *ctx, IrStmt *s, const char *from, const char *to);
/* Applies f to every statement of n (nested nests included). */
void rw_for_stmts(IrNest *n, void (*f)(IrStmt *s, void *u), void *u);
/* `a*m+b` as a fresh tree (m an integer), e.g. g*8+tx. */
IrExpr *rw_affine(LeirCtx *ctx, const char *outer, int64_t m, const char *inner);
/* Replaces, in every subscript item of r equal (as text) to `item`, that
 * item by a copy of `repl`. */
void rw_replace_item(LeirCtx *ctx, IrRef *r, const char *item_text, const IrExpr *repl);

/* A copy nest (§0.2 copy(X, K)): the loops of `n` (clones, kinds kept) whose
 * index occurs in one of the `nnames` names, in the nest's order (or, with
 * `in_given_order`, in the order of `names`), with the tx fix-up: when no loop
 * is bound to threadIdx.x, the first loop with extent < 1024 is renamed `tx`
 * and made B; *renamed receives its old name (NULL if none).  NULL with *why
 * when the fix-up finds no loop.  The body is empty: add the statement, then
 * call rw_fix_tx_stmt on it. */
IrNest *rw_copy_loops(PassCtx *pc, const IrNest *n, const char **names, int nnames,
                      bool in_given_order, const char **renamed, const char **why);
void rw_fix_tx_stmt(LeirCtx *ctx, IrStmt *s, const char *renamed);
/* The tx fix-up alone, on a loop array (modified in place). */
bool rw_fix_tx_loops(PassCtx *pc, IrLoop **loops, int n, const char **renamed, const char **why);
/* Inserts loop l at position pos of n's header. */
void rw_insert_loop(LeirCtx *ctx, IrNest *n, int pos, IrLoop *l);
/* Removes the loop at position pos of n's header. */
void rw_remove_loop(IrNest *n, int pos);
/* A copy of a loop (same kind, extent, index, location). */
IrLoop *rw_loop_clone(LeirCtx *ctx, const IrLoop *l);
/* Index names in a ref's subscript / an expression, in order of first
 * appearance, without duplicates (at most max). */
int rw_names_in_ref(const IrRef *r, const char **names, int max);
int rw_names_in_expr(const IrExpr *e, const char **names, int max);
/* A loop (fresh object) with extent n and index name. */
IrLoop *rw_loop(LeirCtx *ctx, IrLoopKind k, int64_t n, const char *index);
/* Sets a loop's extent (dropping the extent text as written). */
void rw_set_extent(IrLoop *l, int64_t n);
/* Inserts nest m at top-level position k of q (0 <= k <= nnests). */
void rw_insert_nest(LeirCtx *ctx, IrProgram *q, int k, IrNest *m);
/* A nest with the given loops (copied pointers) and one statement. */
IrNest *rw_nest1(LeirCtx *ctx, IrLoop **loops, int nloops, IrStmt *s);
/* The dtype of a ref's values: its tensor's (the declaration's or the first
 * write's), not a tag that the declaration overrides (`A^{f16}` of
 * `%in A : f32[..]` reads f32); the tag when the ref is unbound.  A fresh
 * tensor that holds a ref's values takes this dtype. */
static inline IrDType rw_ref_dtype(const IrRef *r) { return r->tensor ? r->tensor->dtype : r->dt_tag; }
/* A new ref to tensor name with tags and subscript items (cloned). */
IrRef *rw_ref(LeirCtx *ctx, const char *name, IrDType dt, IrScope sc, IrExpr **items, int n);
/* Replaces every ref named `from` in the statement (left and right) by
 * name `to` with tags dt/sc (subscripts kept). */
void rw_rename_tensor_stmt(IrStmt *s, const char *from, const char *to, IrDType dt, IrScope sc);
/* A factor parameter `key` of c for loop l: a divisor 1 < f < extent
 * (loop_split.c).  NULL, or a reason. */
const char *pass_check_factor(PassCtx *pc, const PassCand *c, const char *key, const IrLoop *l, int64_t *f);
/* Splits loop `pos` of n into `L^{f}_{g=0}` and the loop with extent n/f,
 * substituting i -> g*(n/f)+i in every subscript (loop_split.c). */
void pass_split_loop(LeirCtx *ctx, IrNest *n, int pos, int64_t f, const char *g);
/* The checks shared by loop_parallelization and loop_vectorization
 * (loop_parallelization.c): resolves nest and loop into *np, *posp. */
const char *pass_check_parallel_loop(PassCtx *pc, PassCand *c, const char *verb, IrNest **np, int *posp);
/* Parses "2.0.1" into ints (at most max); -1 on a malformed list. */
int rw_parse_int_list(const char *s, int64_t *v, int max);

#endif /* LEIR_PASSES_REWRITE_H */
