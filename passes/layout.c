/* layout.c -- subscript re-layouts (see layout.h). */
#include "passes/layout.h"

#include "passes/rewrite.h"

#include <stdlib.h>
#include <string.h>

LayKind lay_kind(const char *s) {
  static const char *const n[] = {"transpose", "flatten", "reshape2", "reshape1"};
  for (int i = 0; i < 4; i++)
    if (s && !strcmp(s, n[i])) return (LayKind)i;
  return LAY_NONE;
}

const char *lay_kind_name(LayKind k) {
  static const char *const n[] = {"transpose", "flatten", "reshape2", "reshape1"};
  return k >= 0 && k <= 3 ? n[k] : "?";
}

static bool next_perm(int *a, int n) {
  int i = n - 2;
  while (i >= 0 && a[i] >= a[i + 1]) i--;
  if (i < 0) return false;
  int j = n - 1;
  while (a[j] <= a[i]) j--;
  int t = a[i];
  a[i] = a[j];
  a[j] = t;
  for (int l = i + 1, r = n - 1; l < r; l++, r--) {
    t = a[l];
    a[l] = a[r];
    a[r] = t;
  }
  return true;
}

int lay_perms(int r, int perms[][LAY_MAX_RANK], int max) {
  int k = 0;
  if (r < 2) return 0;
  if (r <= 3) {
    int a[LAY_MAX_RANK];
    for (int i = 0; i < r; i++) a[i] = i;
    while (next_perm(a, r) && k < max) memcpy(perms[k++], a, sizeof a);
    return k;
  }
  for (int i = 0; i < r && k < max; i++)
    for (int j = i + 1; j < r && k < max; j++) {
      for (int l = 0; l < r; l++) perms[k][l] = l;
      perms[k][i] = j;
      perms[k][j] = i;
      k++;
    }
  if (k < max) {
    for (int l = 0; l < r; l++) perms[k][l] = r - 1 - l;
    k++;
  }
  return k;
}

char *lay_perm_text(LeirCtx *ctx, const int *perm, int r) {
  SBuf b = {0};
  for (int i = 0; i < r; i++) sbuf_printf(&b, "%s%d", i ? "." : "", perm[i]);
  char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

const char *lay_parse_perm(PassCtx *pc, const char *s, int r, int *perm, bool allow_identity) {
  int64_t v[LAY_MAX_RANK + 1];
  int n = rw_parse_int_list(s, v, LAY_MAX_RANK + 1);
  if (n != r) return pass_reason(pc, "perm=%s is not a permutation of the %d items (write e.g. perm=1.0)", s, r);
  bool seen[LAY_MAX_RANK] = {0}, id = true;
  for (int i = 0; i < r; i++) {
    if (v[i] < 0 || v[i] >= r || seen[v[i]])
      return pass_reason(pc, "perm=%s is not a permutation of 0..%d", s, r - 1);
    seen[v[i]] = true;
    perm[i] = (int)v[i];
    id &= perm[i] == i;
  }
  if (id && !allow_identity) return pass_reason(pc, "perm=%s is the identity", s);
  return NULL;
}

const char *lay_parse_pair(PassCtx *pc, const char *s, int r, int *p, int *q) {
  int64_t v[3];
  int n = rw_parse_int_list(s, v, 3);
  if (n != 2 || v[0] < 0 || v[1] < 0 || v[0] >= r || v[1] >= r || v[0] == v[1])
    return pass_reason(pc, "fuse=%s must name two different item positions below %d (e.g. fuse=0.1)", s, r);
  *p = (int)v[0];
  *q = (int)v[1];
  return NULL;
}

int lay_transpose(LeirCtx *ctx, IrExpr *const *items, int r, const int *perm, IrExpr **out) {
  for (int i = 0; i < r; i++) out[i] = ir_expr_clone(ctx, items[perm[i]]);
  return r;
}

bool lay_is_const(const IrExpr *e) {
  while (e->kind == E_PAREN || (e->kind == E_UNARY && e->u.unary.op == OP_NEG)) e = e->kind == E_PAREN ? e->u.paren : e->u.unary.a;
  return e->kind == E_INT;
}

int lay_count_besides_bx(const IrRef *r) {
  int n = 0;
  for (int i = 0; i < r->nsub; i++)
    n += !(r->sub[i]->kind == E_INDEX && !strcmp(r->sub[i]->u.index.name, "bx"));
  return n;
}

static IrExpr *scaled(LeirCtx *ctx, IrExpr *item, int64_t stride) {
  IrExpr *c = ir_expr_clone(ctx, item);
  return stride == 1 ? c : ir_binary(ctx, OP_MUL, c, ir_int(ctx, stride));
}

int lay_flatten(LeirCtx *ctx, IrExpr *const *items, const int64_t *shape, int r, bool reversed, IrExpr **out) {
  int keep[LAY_MAX_RANK], nk = 0;
  for (int i = 0; i < r; i++)
    if (!lay_is_const(items[i])) keep[nk++] = i;
  IrExpr *sum = NULL;
  for (int t = 0; t < nk; t++) {
    int j = reversed ? keep[nk - 1 - t] : keep[t];
    int64_t stride = 1;
    for (int u = 0; u < nk; u++)
      if (reversed ? keep[u] < j : keep[u] > j) stride *= shape[keep[u]];
    IrExpr *term = scaled(ctx, items[j], stride);
    sum = sum ? ir_binary(ctx, OP_ADD, sum, term) : term;
  }
  out[0] = sum ? sum : ir_int(ctx, 0);
  return 1;
}

int lay_reshape2(LeirCtx *ctx, IrExpr *const *items, const int64_t *shape, int r, int p, int q, IrExpr **out) {
  int lo = p < q ? p : q, n = 0;
  for (int i = 0; i < r; i++) {
    if (i == p || i == q) {
      if (i == lo)
        /* REF writes the product even for an extent of 1 (c*1+a) */
        out[n++] = ir_binary(ctx, OP_ADD, ir_binary(ctx, OP_MUL, ir_expr_clone(ctx, items[p]), ir_int(ctx, shape[q])),
                             ir_expr_clone(ctx, items[q]));
      continue;
    }
    out[n++] = ir_expr_clone(ctx, items[i]);
  }
  return n;
}

int lay_reshape1(LeirCtx *ctx, IrExpr *const *items, int r, int k, int64_t m, IrExpr **out) {
  int n = 0;
  for (int i = 0; i < r; i++) {
    if (i != k) {
      out[n++] = ir_expr_clone(ctx, items[i]);
      continue;
    }
    out[n++] = ir_binary(ctx, OP_FLOORDIV, ir_expr_clone(ctx, items[i]), ir_int(ctx, m));
    out[n++] = ir_binary(ctx, OP_MOD, ir_expr_clone(ctx, items[i]), ir_int(ctx, m));
  }
  return n;
}
