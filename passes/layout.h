/* layout.h -- subscript re-layouts shared by layout_transformation (through
 * a copy) and set_storage_layout (in place): transpose, flatten, reshape2
 * (fuse two items) and reshape1 (split one item).  Every variant maps the
 * old items injectively to the new ones as long as each item stays inside
 * its dimension, so a tensor written and read through the same mapping
 * holds the same values. */
#ifndef LEIR_PASSES_LAYOUT_H
#define LEIR_PASSES_LAYOUT_H

#include "passes/pass.h"

enum { LAY_MAX_RANK = 16 };

typedef enum LayKind { LAY_TRANSPOSE, LAY_FLATTEN, LAY_RESHAPE2, LAY_RESHAPE1, LAY_NONE = -1 } LayKind;
LayKind lay_kind(const char *s);
const char *lay_kind_name(LayKind k);

/* The permutations enumerate() lists for rank r: every non-identity
 * permutation when r <= 3, else every swap of two items and the reversal
 * (-O accepts any permutation).  Writes at most max into perms; returns the
 * count. */
int lay_perms(int r, int perms[][LAY_MAX_RANK], int max);
/* "2.0.1" */
char *lay_perm_text(LeirCtx *ctx, const int *perm, int r);
/* Parses a permutation of 0..r-1; NULL or a reason.  The identity is
 * refused unless allow_identity. */
const char *lay_parse_perm(PassCtx *pc, const char *s, int r, int *perm, bool allow_identity);
/* Parses "p.q" (two distinct positions below r); NULL or a reason. */
const char *lay_parse_pair(PassCtx *pc, const char *s, int r, int *p, int *q);

/* New items (fresh trees) from old items.  Each returns the new count. */
int lay_transpose(LeirCtx *ctx, IrExpr *const *items, int r, const int *perm, IrExpr **out);
/* One item: sum of item_j * stride_j over the non-constant items; row-major
 * (last item fastest) or, with `reversed`, first item fastest (then the
 * terms are written from the last item down). */
int lay_flatten(LeirCtx *ctx, IrExpr *const *items, const int64_t *shape, int r, bool reversed, IrExpr **out);
/* items[p]*shape[q]+items[q] at position min(p,q), the other removed. */
int lay_reshape2(LeirCtx *ctx, IrExpr *const *items, const int64_t *shape, int r, int p, int q, IrExpr **out);
/* item k -> item//m, item%m. */
int lay_reshape1(LeirCtx *ctx, IrExpr *const *items, int r, int k, int64_t m, IrExpr **out);

/* Is the item an integer literal (possibly negated or parenthesised)? */
bool lay_is_const(const IrExpr *e);
/* Items that are not the bare index `bx`. */
int lay_count_besides_bx(const IrRef *r);

#endif /* LEIR_PASSES_LAYOUT_H */
