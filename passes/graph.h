/* graph.h -- tree helpers shared by the graph-level passes (STRATEGIES §1):
 * numbered sub-expressions of a right side (the `pattern` parameter of
 * expression_splitting and common_subexpression_elimination), the
 * parenthesisation of an inlined expression, reduction indices (SPEC §9.5)
 * and nest pairs.  The analyses (who writes and reads what) are in
 * dataflow.h. */
#ifndef LEIR_PASSES_GRAPH_H
#define LEIR_PASSES_GRAPH_H

#include "passes/dataflow.h"

/* A sub-expression of a statement's right side.  Sites are numbered in
 * pre-order from 0 (the whole right side); parentheses are transparent (a
 * parenthesised sub-expression is one site, and `slot` is where its
 * outermost parenthesis hangs, so that replacing *slot drops them), and
 * subscripts are not entered. */
typedef struct GxSite {
  IrExpr **slot;
  IrExpr *e;   /* the sub-expression without its parentheses */
  bool lazy;   /* evaluated lazily: inside the second or third argument of an if_then_else, or the right operand
                  of & or | (both short-circuit) */
  bool logic;  /* lazy, and the outermost lazy context is the right operand of & or | */
  bool cond;   /* inside the first argument of an if_then_else */
} GxSite;

/* Where a lazy site sits, for messages: "an if_then_else branch" or "the
 * right operand of & or |". */
const char *gx_lazy_place(const GxSite *g);

/* The sites of s's right side (GxSite*), in order; returns their number. */
int gx_sites(LeirCtx *ctx, IrStmt *s, PtrVec *out);

/* The sites of s, a statement of p: for p == pc->prog computed once per
 * statement and kept in pc (a check resolves each candidate again, and a
 * right side of n sub-expressions has up to n candidates: quadratic memory
 * otherwise), else computed afresh.  Read-only. */
const PtrVec *gx_sites_of(PassCtx *pc, const IrProgram *p, IrStmt *s);

/* NULL if e may become a tensor of its own (a call, or an arithmetic
 * operator), else what it is: "a single operand", "a comparison", ... */
const char *gx_not_hoistable(const IrExpr *e);

/* A copy of e to put in place of a ref: parenthesised unless it is a
 * single ref, a single call or a plain number (STRATEGIES §1.3; as in REF,
 * a call counts as single only if its arguments hold no parenthesis). */
IrExpr *gx_wrap(LeirCtx *ctx, const IrExpr *e);

/* A pass that copies what r reads in a nest of its own reads it for every
 * iteration: when r sits in an if_then_else branch of s or in the right
 * operand of & or | (a lazy site, evaluated only where reached) and a
 * subscript item is not provably inside r's tensor over the whole loop
 * ranges, the reason to refuse; else NULL
 * (fuzz: a 15-row input read at row tx < 16 only where A<0).  For an
 * analysed program (a pass's check): the ranges need the loops and tensors
 * sema links. */
const char *gx_lazy_read_unbounded(PassCtx *pc, IrStmt *s, const IrRef *r);

/* Does e read tensor `name` (subscripts included)? */
bool gx_reads(const IrExpr *e, const char *name);
/* Does e have a leaf that takes its statement's type (SPEC 5.4): a literal,
 * inf, or an index used as a value (outside subscripts)? */
bool gx_stmt_typed_leaf(const IrExpr *e);
/* Does e have index values or integer literals outside the conditions of
 * its own if_then_else calls?  Those leaves are i64 in a condition and take
 * the statement's type elsewhere (SPEC 5.4); the ones in e's own
 * conditions keep their typing wherever e goes. */
bool gx_cond_typed_leaf(const IrExpr *e);
/* NULL unless moving the site's sub-expression out of an if_then_else
 * condition into a statement of type tz would retype it: inside a
 * condition index values and integer literals are i64, elsewhere they take
 * the statement's type (fuzz_passes: `A-tx/2<C` divides 5/2 as 2 in the
 * condition, as 2.5 in an f32 statement); else the reason. */
const char *gx_cond_retyped(PassCtx *pc, const GxSite *site, IrDType tz);

/* Reduction indices of s in nest n (SPEC §9.5: loops the statement
 * mentions outside its left subscript), restricted to loops of extent > 1:
 * bit k = loop k. */
uint64_t gx_red_mask(const IrNest *n, const IrStmt *s);
/* The first loop of n that is a reduction index of s but not of s with
 * right side rhs (*dropped = true), or the reverse (false; dropped may be
 * NULL); -1 when both have the same reduction indices. */
int gx_red_change(const IrNest *n, const IrStmt *s, IrExpr *rhs, bool *dropped);

/* A new nest with clones of n's loops (and n's location) and no body. */
IrNest *gx_nest_like(LeirCtx *ctx, const IrNest *n);

/* Resolves `nest` = i and the next nest i+1 of p (both without nested
 * nests); sets c->nest and c->site.  NULL with *why. */
IrNest *gx_cand_pair(PassCtx *pc, const IrProgram *p, PassCand *c, IrNest **next, const char **why);

/* Text of a ref (name, superscript, subscript) in the arena. */
const char *gx_ref_text(LeirCtx *ctx, const IrRef *r);

/* Number of bits in the width order f16 = bf16 < f32 < f64 (0: not a
 * float type). */
int gx_float_rank(IrDType t);

#endif /* LEIR_PASSES_GRAPH_H */
