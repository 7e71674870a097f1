/* lower_loops.c -- the loops of a nest, lowered to LLVM IR (lower.c's
 * shared lowering, split by concern): counted loops with their llvm.loop
 * hints (the unroll bound of codegen/unroll.h), the unroll-and-jam of
 * serial loops over a unit-stride innermost loop, the peel of a first
 * iteration, the host's index-set splitting on guard facts (facts.h) and
 * the collapse of trailing loops of element-mapping nests into one
 * (cg_lower_loops).
 */
#include "codegen/cg.h"
#include "codegen/unroll.h"
#include "ir/strength.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>
static LLVMMetadataRef md_str(CgModule *m, const char *s) { return LLVMMDStringInContext2(m->C, s, strlen(s)); }

/* The llvm.loop node: a distinct self-referencing node with hints. */
/* How far U loops (V on NVPTX) are unrolled: codegen/unroll.h, the
 * code-size bound (a full unroll of thousands of iterations costs minutes
 * of LLVM time, and a long unrolled body minutes of ptxas time). */
static void loop_hints(CgFn *f, LLVMValueRef br, IrLoopKind kind, int jam, int64_t extent, int64_t copies,
                       bool tile, int vwidth) {
  CgModule *m = f->m;
  LLVMMetadataRef hint[3];
  int n = 0;
  if (vwidth > 0) { /* overlap_width's loops: W lanes, one vector a step */
    const char *key[3] = {"llvm.loop.vectorize.enable", "llvm.loop.vectorize.width", "llvm.loop.interleave.count"};
    LLVMValueRef val[3] = {LLVMConstInt(m->i1, 1, 0), LLVMConstInt(m->i32, (unsigned long long)vwidth, 0),
                           LLVMConstInt(m->i32, 1, 0)};
    for (int i = 0; i < 3; i++) {
      LLVMMetadataRef s[2] = {md_str(m, key[i]), LLVMValueAsMetadata(val[i])};
      hint[n++] = LLVMMDNodeInContext2(m->C, s, 2);
    }
  }
  if (jam > 1) {
    LLVMMetadataRef s[2] = {md_str(m, "llvm.loop.unroll_and_jam.count"),
                            LLVMValueAsMetadata(LLVMConstInt(m->i32, (unsigned long long)jam, 0))};
    hint[n++] = LLVMMDNodeInContext2(m->C, s, 2);
  }
  bool vec_host = kind == LOOP_V && m->target == CG_TARGET_HOST;
  bool unroll = kind == LOOP_U || (kind == LOOP_V && m->target == CG_TARGET_NVPTX);
  /* copies <= 0: not measured (no caller leaves a U loop so): the old rule */
  int64_t c = copies > 0 ? copies : extent > CG_UNROLL_MAX_FULL ? CG_UNROLL_PARTIAL : extent;
  if (unroll && c >= extent) {
    LLVMMetadataRef s = md_str(m, "llvm.loop.unroll.full");
    hint[n++] = LLVMMDNodeInContext2(m->C, &s, 1);
  } else if (unroll && c >= 2) {
    LLVMMetadataRef s[2] = {md_str(m, "llvm.loop.unroll.count"),
                            LLVMValueAsMetadata(LLVMConstInt(m->i32, (unsigned long long)c, 0))};
    hint[n++] = LLVMMDNodeInContext2(m->C, s, 2);
  } else if (unroll) { /* above the bound: the loop stays */
    LLVMMetadataRef s = md_str(m, "llvm.loop.unroll.disable");
    hint[n++] = LLVMMDNodeInContext2(m->C, &s, 1);
  } else if (tile) {
    LLVMMetadataRef s = md_str(m, "llvm.loop.unroll.full");
    hint[n++] = LLVMMDNodeInContext2(m->C, &s, 1);
  } else if (vec_host && !vwidth) {
    LLVMMetadataRef s[2] = {md_str(m, "llvm.loop.vectorize.enable"),
                            LLVMValueAsMetadata(LLVMConstInt(m->i1, 1, 0))};
    hint[n++] = LLVMMDNodeInContext2(m->C, s, 2);
  }
  if (!n) return;
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(m->C, NULL, 0);
  LLVMMetadataRef ops[4] = {tmp, hint[0], n > 1 ? hint[1] : NULL, n > 2 ? hint[2] : NULL};
  LLVMMetadataRef node = LLVMMDNodeInContext2(m->C, ops, (size_t)n + 1);
  LLVMMetadataReplaceAllUsesWith(tmp, node);
  LLVMSetMetadata(br, m->md_loop, LLVMMetadataAsValue(m->C, node));
}

LLVMValueRef cg_loop_begin(CgFn *f, CgLoop *lp, LLVMValueRef start, LLVMValueRef end, IrLoopKind kind) {
  LLVMBuilderRef B = f->m->B;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
  lp->head = cg_block(f, "loop.head");
  lp->body = cg_block(f, "loop.body");
  lp->exit = cg_block(f, "loop.exit");
  lp->end = end;
  lp->kind = kind;
  lp->jam = 0;
  lp->copies = 0;
  lp->tile = false;
  lp->vwidth = 0;
  LLVMBuildBr(B, lp->head);
  LLVMPositionBuilderAtEnd(B, lp->head);
  lp->phi = LLVMBuildPhi(B, f->m->i64, "i");
  LLVMAddIncoming(lp->phi, &start, &pre, 1);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, lp->phi, end, ""), lp->body, lp->exit);
  LLVMPositionBuilderAtEnd(B, lp->body);
  f->barrier_last = false;
  return lp->phi;
}

void cg_loop_end(CgFn *f, CgLoop *lp) {
  LLVMBuilderRef B = f->m->B;
  LLVMValueRef next = LLVMBuildAdd(B, lp->phi, cg_i64(f->m, 1), "");
  LLVMSetNUW(next, 1);
  LLVMSetNSW(next, 1);
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
  LLVMValueRef br = LLVMBuildBr(B, lp->head);
  loop_hints(f, br, lp->kind, lp->jam,
             LLVMIsAConstantInt(lp->end) ? LLVMConstIntGetSExtValue(lp->end) : INT64_MAX, lp->copies, lp->tile,
             lp->vwidth);
  LLVMAddIncoming(lp->phi, &next, &latch, 1);
  LLVMPositionBuilderAtEnd(B, lp->exit);
  f->barrier_last = false;
}

static CgLoopMode loop_mode(const CgFn *f, const IrLoop *l) {
  if (f->m->target == CG_TARGET_NVPTX) {
    if (l->kind == LOOP_B && l->hw != HW_NONE) return LM_HW;
    for (int h = 0; h < f->k->nhost; h++)
      if (f->k->nest->loops[h] == l) return LM_HOSTARG;
    return LM_SERIAL;
  }
  return l == f->k->par ? LM_RANGE : LM_SERIAL;
}

/* Host: unroll-and-jam of loop li over the reduction loop just inside it,
 * when that inner loop is the nest's last and every statement writes an
 * element indexed by li's index and not by the inner one: then the jammed
 * copies update distinct elements, each still in its own loop order (the
 * result is unchanged), and the inner loop's loads of neighbouring
 * elements along li become vectors (SGEMM as written: C[c,a]).  LLVM checks
 * the legality again.  Not when the inner loop has JAM_MIN_INNER iterations
 * or fewer (pooling windows, issue 41): LLVM unrolls it fully by itself and
 * vectorises li with interleaved loads, where the jam gave gathers of the
 * strided elements (Average_Pooling_1D, Max_Pooling_1D 3x slower). */
#define JAM_COUNT 16
#define JAM_MIN_INNER 8

static bool mentions_loop(const IrExpr *e, const IrLoop *l) {
  e = ir_expr_unparen(e); /* every level: D_{a,((c))} mentions c */
  if (!e) return false;
  switch (e->kind) {
  case E_INDEX: return e->u.index.loop == l;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (mentions_loop(e->u.ref->sub[i], l)) return true;
    return false;
  case E_UNARY: return mentions_loop(e->u.unary.a, l);
  case E_BINARY: return mentions_loop(e->u.bin.a, l) || mentions_loop(e->u.bin.b, l);
  default: return false;
  }
}

static bool lhs_uses(const IrStmt *s, const IrLoop *l) {
  for (int d = 0; d < s->lhs->nsub; d++)
    if (mentions_loop(s->lhs->sub[d], l)) return true;
  return false;
}

/* Does reference r move one element along loop l, or not at all (l only
 * in its last subscript, as l itself)? */
static bool unit_ref(const IrRef *r, const IrLoop *l) {
  for (int d = 0; d < r->nsub; d++) {
    const IrExpr *x = ir_expr_unparen(r->sub[d]);
    if (d == r->nsub - 1 && x->kind == E_INDEX && x->u.index.loop == l) continue;
    if (mentions_loop(x, l)) return false;
  }
  return true;
}

/* Does reference r move one element along l, or not at all, as far as
 * its element offset at l's first two and last two values tells (every
 * other loop at 0, cg_eval_index)?  No when the last step differs from the
 * first or a subscript of l is read through another tensor.  Subscripts
 * like (g*64+a)%64 count: this decides a hint for speed only (the register
 * tiles), never a result. */
static bool unit_step(const IrRef *r, const IrLoop *l) {
  const int64_t n = l->extent, at[4] = {0, 1, n - 2, n - 1};
  int64_t off[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; k++) {
    int64_t rs = 1;
    for (int d = r->tensor->rank - 1; d >= 0; d--) {
      int64_t v = 0;
      if (d < r->nsub && !cg_eval_index(r->sub[d], l, at[k], &v)) {
        if (mentions_loop(r->sub[d], l)) return false;
        v = 0; /* read from a tensor, not of l: the same at every value of l */
      }
      if (__builtin_mul_overflow(v, rs, &v) || __builtin_add_overflow(off[k], v, &off[k])) return false;
      if (__builtin_mul_overflow(rs, r->tensor->shape[d], &rs)) return false;
    }
  }
  int64_t step, last, span;
  if (n < 2 || __builtin_sub_overflow(off[1], off[0], &step) || __builtin_sub_overflow(off[3], off[2], &last) ||
      __builtin_sub_overflow(off[3], off[0], &span))
    return false;
  return (step == 0 || step == 1) && last == step && span == step * (n - 1);
}

/* Is e sums, differences and products of references that move one
 * element along l or none (ref_ok), and literals (no call, no comparison)? */
static bool unit_along(const IrExpr *e, const IrLoop *l, bool (*ref_ok)(const IrRef *, const IrLoop *)) {
  e = ir_expr_unparen(e);
  if (!e) return false;
  switch (e->kind) {
  case E_INT: case E_FLOAT: return true;
  case E_REF: return ref_ok(e->u.ref, l);
  case E_UNARY: return unit_along(e->u.unary.a, l, ref_ok);
  case E_BINARY:
    return (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB || e->u.bin.op == OP_MUL) &&
           unit_along(e->u.bin.a, l, ref_ok) && unit_along(e->u.bin.b, l, ref_ok);
  default: return false;
  }
}

static int jam_count(const CgFn *f, const IrNest *n, int li) {
  if (f->m->target != CG_TARGET_HOST || li + 2 != n->nloops || n->loops[li]->extent < 2 * JAM_COUNT) return 0;
  const IrLoop *outer = n->loops[li], *inner = n->loops[li + 1];
  if (inner->extent <= JAM_MIN_INNER) return 0;
  int64_t bytes = 0; /* one element of every statement's left side */
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return 0;
    const IrStmt *s = n->items[i].u.stmt;
    if (!lhs_uses(s, outer) || lhs_uses(s, inner)) return 0;
    bytes += ir_dtype_size(s->lhs->tensor->dtype);
  }
  /* As many copies as the accumulators fill half the vector registers
   * (cg_jam_bytes: 256 f32 on AVX-512, 64 on AVX2), a power of two,
   * at most half the outer loop and within CG_JAM_MAX_SIZE: the jammed
   * copies of a short reduction (Tall_skinny_matrix_multiplication, 16
   * iterations) are that many independent chains, where JAM_COUNT's 16
   * were one vector's chain, latency bound (issue 41: 3x faster).  Only
   * for sums of products of references that move one element along the
   * outer loop (no gathers: Gemm_Gemm's G[a,c] was 2.5x slower with more
   * copies; no if_then_else: cumsum 1.7x slower), and copies that divide
   * the outer loop (Matmul_with_irregular_shapes' 642 was 3x slower);
   * else JAM_COUNT. */
  double size = cg_unroll_size(n, n->nloops, false, f->m->ctx->fp_contract);
  int jam = JAM_COUNT;
  for (int i = 0; i < n->nitems; i++) {
    const IrStmt *s = n->items[i].u.stmt;
    if (!unit_along(s->rhs, outer, unit_ref) || !unit_ref(s->lhs, outer)) return JAM_COUNT;
  }
  while (2 * jam * bytes <= f->m->jam_bytes && 4 * jam <= outer->extent && 2 * jam * size <= CG_JAM_MAX_SIZE &&
         outer->extent % (2 * jam) == 0)
    jam *= 2;
  return jam;
}

/* Host: the rows of a register tile.  Loop li, the second to last of its
 * nest, of at most TILE_ROWS_MAX iterations, when every statement of the
 * nest reduces over a loop outside li (its elements accumulate across
 * that loop), writes an element indexed by li and by the innermost loop,
 * and moves one element at a time along the innermost loop (no gathers),
 * and the tile's elements fill at most half the vector registers
 * (cg_jam_bytes): li is unrolled fully, so that LLVM vectorises the
 * innermost loop and keeps the tile in registers across the reduction.
 * LLVM unrolls such a loop by itself up to about 8 rows (SGEMM's 4x64 and
 * 8x32 tiles); one of 16 rows (a 16x16 tile) it kept, and vectorised it
 * instead: gathers of A, gathers and scatters of D at every step of the
 * reduction, 170 times slower than the 4x64 tile (issue 41).  The order
 * of every operation is unchanged. */
#define TILE_ROWS_MAX 32

static bool tile_rows(const CgFn *f, const IrNest *n, int li) {
  if (f->m->target != CG_TARGET_HOST || !f->m->jam_bytes || li < 1 || li + 2 != n->nloops) return false;
  const IrLoop *row = n->loops[li], *col = n->loops[li + 1];
  if ((row->kind != LOOP_L && row->kind != LOOP_B) || row->extent < 2 || row->extent > TILE_ROWS_MAX) return false;
  if (col->kind != LOOP_L && col->kind != LOOP_B && col->kind != LOOP_V) return false;
  int64_t bytes = 0;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return false;
    const IrStmt *s = n->items[i].u.stmt;
    if (!lhs_uses(s, row) || !lhs_uses(s, col) || !unit_step(s->lhs, col) || !unit_along(s->rhs, col, unit_step))
      return false;
    bool outside = false;
    for (int r = 0; r < s->nred; r++)
      for (int o = 0; o < li; o++) outside |= s->red[r] == n->loops[o];
    if (!outside) return false;
    bytes += row->extent * col->extent * ir_dtype_size(s->lhs->tensor->dtype);
  }
  return bytes <= f->m->jam_bytes;
}

/* Host: the first iteration of a serial loop is peeled off (lowered once
 * with the index 0, then the loop runs from 1) when the loop is the
 * outermost reduction loop of a statement with a §9.5 implicit
 * initialisation below it and has loops inside it: the `all reduction
 * indices are 0` test then folds away in the loop proper, which leaves the
 * inner loops free of control flow (vectorised, and their elements kept in
 * registers across the reduction loop: SGEMM tiled with `c` outside `a`).
 * An innermost reduction loop is peeled too when the serial loop around
 * it is jammed more than JAM_COUNT copies (jam_count): the peeled iteration stores identity op
 * value (0 + A*C, not A*C: -0 stays +0) before the loop, and the jammed
 * chains lose a select each per iteration (Tall_skinny: a third of the
 * vector operations).  Other innermost reduction loops are left alone. */
static bool peel_stmt(const IrStmt *s, const IrNest *n, int li) {
  if (s->init != INIT_REDUCE) return false;
  bool in = false;
  for (int r = 0; r < s->nred; r++) {
    if (s->red[r] == n->loops[li]) in = true;
    for (int o = 0; o < li; o++)
      if (s->red[r] == n->loops[o]) return false; /* an outer one peels */
  }
  return in;
}

static bool peel_items(const IrNest *n, const IrNest *top, int li) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_STMT ? peel_stmt(n->items[i].u.stmt, top, li)
                                      : peel_items(n->items[i].u.nest, top, li))
      return true;
  return false;
}

static bool peel_first(const CgFn *f, const IrNest *n, int li) {
  return f->m->target == CG_TARGET_HOST && f->k->nred == 0 && n->loops[li]->extent >= 2 &&
         (li + 1 < n->nloops || (li >= 1 && loop_mode(f, n->loops[li - 1]) == LM_SERIAL && jam_count(f, n, li - 1) > JAM_COUNT)) && peel_items(n, n, li);
}

static const CgRed *red_at(const CgFn *f, const IrLoop *l) {
  for (int i = 0; i < f->k->nred; i++)
    if (f->k->red[i].tloop == l && !f->k->red[i].general) return &f->k->red[i];
  return NULL;
}

/* Opens (begin) or closes (!begin) the general tree reductions of loop l. */
static void general_trees(CgFn *f, const IrLoop *l, bool begin) {
  for (int i = 0; i < f->k->nred; i++) {
    const CgRed *r = &f->k->red[i];
    if (r->tloop != l || !r->general) continue;
    if (begin) cg_tree_begin(f, r);
    else cg_tree_flush(f, r);
  }
}

/* Host: index-set splitting.  A serial loop l whose body holds an
 * if_then_else with a condition `lo <= l <= hi` (guard facts, facts.h)
 * runs as three loops, [0, lo), [lo, hi], (hi, extent), in that order
 * (the same iterations in the same order), each with l's range as a fact:
 * the comparisons on l fold (cg_facts_fold_cmp), the branch goes, and the
 * middle loop of a padded copy is a plain vectorisable copy.  Not for loops a
 * reduction, a stage, a peel or a parallel range lowers; at most 3 splits
 * nested (code size). */
#define SPLIT_DEPTH 3

static bool find_split(const CgFn *f, const IrExpr *e, const IrLoop *l, int64_t cut[2]);

static bool cond_split(const CgFn *f, const IrExpr *c, const IrLoop *l, int64_t *lo, int64_t *hi) {
  c = ir_expr_unparen(c);
  if (c->kind == E_BINARY && c->u.bin.op == OP_AND && c->type == DT_BOOL && c->u.bin.a->type == DT_BOOL &&
      c->u.bin.b->type == DT_BOOL)
    return cond_split(f, c->u.bin.a, l, lo, hi) | cond_split(f, c->u.bin.b, l, lo, hi);
  if (c->kind != E_CMP) return false;
  IrValueGuards g; /* the facts of this comparison alone */
  g.n = 0;
  cg_cond_facts(&g, c);
  bool any = false;
  for (int i = 0; i < g.n && !any; i++) any = g.loop[i] == l;
  int64_t glo, ghi;
  ir_value_loop_range(&g, l, &glo, &ghi);
  if (any) {
    if (glo > *lo) *lo = glo;
    if (ghi < *hi) *hi = ghi;
  }
  (void)f;
  return any;
}

static bool find_split(const CgFn *f, const IrExpr *e, const IrLoop *l, int64_t cut[2]) {
  if (!e) return false;
  switch (e->kind) {
  case E_PAREN: return find_split(f, e->u.paren, l, cut);
  case E_UNARY: return find_split(f, e->u.unary.a, l, cut);
  case E_BINARY: return find_split(f, e->u.bin.a, l, cut) || find_split(f, e->u.bin.b, l, cut);
  case E_CALL:
    if (e->u.call.func == F_ITE) {
      int64_t lo = 0, hi = l->extent - 1;
      if (cond_split(f, e->u.call.args[0], l, &lo, &hi) && (lo > 0 || hi < l->extent - 1)) {
        cut[0] = lo < 0 ? 0 : lo > l->extent ? l->extent : lo;
        cut[1] = hi + 1 < cut[0] ? cut[0] : hi + 1 > l->extent ? l->extent : hi + 1;
        return true;
      }
    }
    for (int i = 0; i < e->u.call.nargs; i++)
      if (find_split(f, e->u.call.args[i], l, cut)) return true;
    return false;
  default: return false;
  }
}

static bool split_items(const CgFn *f, const IrNest *n, const IrLoop *l, int64_t cut[2]) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_STMT) {
      if (find_split(f, n->items[i].u.stmt->rhs, l, cut)) return true;
    } else if (split_items(f, n->items[i].u.nest, l, cut)) {
      return true;
    }
  }
  return false;
}

static bool split_points(const CgFn *f, const IrNest *n, int li, int64_t cut[2]) {
  if (f->m->target != CG_TARGET_HOST || f->nsplit >= SPLIT_DEPTH || f->k->nred || peel_first(f, n, li)) return false;
  const IrLoop *l = n->loops[li];
  for (int i = 0; i < f->guards.n; i++)
    if (f->guards.loop[i] == l) return false; /* split already */
  return split_items(f, n, l, cut);
}

/* ------------------------------------------------------- overlapped tail */

/* Host, issue 59: the innermost serial loop of an element-mapping nest
 * whose extent E (8 < E < OVERLAP_MAX) is not a multiple of the vector
 * width W = 8 runs as two loops, [0, E - E % W) and [E - W, E), both
 * vectorised W lanes wide without interleaving: no scalar remainder (a row
 * of 15 ran 3 vectors and 3 scalar elements, 2.0x the time per element of
 * a row of 16), the last vector overlapping the one before.  The elements
 * of the overlap are computed and stored twice with the same bits: every
 * statement is a plain store (no reduction, no initialisation) and no
 * right side reads a tensor the nest writes, so the second pass reads the
 * same inputs, and where two passes store one element the later pass's
 * value is the one the single loop stored last (the loop's iterations are
 * independent and in order in both).  Every reference moves one element
 * along the loop or none (all_unit).  Masked AVX2 tails (vmaskmovps;
 * llvm.loop.vectorize.predicate.enable) measured no faster on znver3. */
#define OVERLAP_W 8
#define OVERLAP_MAX 256

static bool reads_tensor(const IrExpr *e, const IrTensor *t) {
  e = ir_expr_unparen(e);
  if (!e) return false;
  switch (e->kind) {
  case E_REF:
    if (e->u.ref->tensor == t) return true;
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (reads_tensor(e->u.ref->sub[i], t)) return true;
    return false;
  case E_UNARY: return reads_tensor(e->u.unary.a, t);
  case E_BINARY: return reads_tensor(e->u.bin.a, t) || reads_tensor(e->u.bin.b, t);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (reads_tensor(e->u.cmp.operand[i], t)) return true;
    return false;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (reads_tensor(e->u.call.args[i], t)) return true;
    return false;
  default: return false;
  }
}

/* Host, issue 59: the loop that maps the elements of a nest whose right
 * sides call leirc's math routines (exp, log, erf, ** other than a square;
 * any float type) is vectorised MATH_W lanes wide, one vector a step.
 * Those routines computed in f64 inside (ir/mathlib.c) when this was
 * measured (f32 exp and erf compute in f32 since, 8 lanes a ymm register),
 * and LLVM's own choice, 4 lanes interleaved twice, left their long
 * dependent fma chains short of independent work: 16 lanes (4 ymm
 * registers of f64 a value) ran
 * Softplus 1.7x, SELU 1.25x, GELU 1.2x faster (bench-activations), f64
 * log, tanh and pow 1.25x, exp 1.13x (bench-mathlib).  Only where the
 * extent is a multiple of MATH_W, large (no remainder worth a scalar loop)
 * or known at run time only.
 * With the AVX2 forms of the f32 routines (math_lanes 8: leir.erff.v8,
 * leir.expf.v8) and every statement f32, MATH_W_AVX2 = 32 lanes (four ymm
 * registers a value): their chains of table lookups and fmas are long, and
 * the out-of-order core overlaps four of them better than two (issue 59:
 * bench-activations --avx2, i.e. LEIRC_HOST_CPU=znver3 on a Zen 4, load
 * 5.8: Softplus 1.24x, Mish 1.26x, GELU 1.06x faster, the others within
 * noise; 64 lanes no better, 8 slower, by leirc --cost=measure). */
#define MATH_W 16
#define MATH_W_AVX2 32
#define MATH_W_ANY 256

static bool calls_math(const IrExpr *e) {
  e = ir_expr_unparen(e);
  if (!e) return false;
  bool fl = ir_dtype_is_float(e->type);
  switch (e->kind) {
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (calls_math(e->u.ref->sub[i])) return true;
    return false;
  case E_UNARY: return calls_math(e->u.unary.a);
  case E_BINARY:
    if (fl && e->u.bin.op == OP_POW && !ir_pow_is_square(e)) return true;
    return calls_math(e->u.bin.a) || calls_math(e->u.bin.b);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (calls_math(e->u.cmp.operand[i])) return true;
    return false;
  case E_CALL:
    if (fl && (e->u.call.func == F_EXP || e->u.call.func == F_LOG || e->u.call.func == F_ERF)) return true;
    for (int i = 0; i < e->u.call.nargs; i++)
      if (calls_math(e->u.call.args[i])) return true;
    return false;
  default: return false;
  }
}

static bool all_unit(const IrExpr *e, const IrLoop *l);

/* Does r move one element along l or not at all (unit_ref), and every
 * reference in its subscripts too (all_unit)? */
static bool ref_all_unit(const IrRef *r, const IrLoop *l) {
  if (!unit_ref(r, l)) return false;
  for (int i = 0; i < r->nsub; i++)
    if (!all_unit(r->sub[i], l)) return false;
  return true;
}

/* Does every reference in e move one element along l or not at all
 * (unit_ref)?  A forced width must not vectorise gathers or scatters. */
static bool all_unit(const IrExpr *e, const IrLoop *l) {
  e = ir_expr_unparen(e);
  if (!e) return true;
  switch (e->kind) {
  case E_REF: return ref_all_unit(e->u.ref, l);
  case E_UNARY: return all_unit(e->u.unary.a, l);
  case E_BINARY: return all_unit(e->u.bin.a, l) && all_unit(e->u.bin.b, l);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (!all_unit(e->u.cmp.operand[i], l)) return false;
    return true;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!all_unit(e->u.call.args[i], l)) return false;
    return true;
  default: return true;
  }
}

/* MATH_W for the element loop l of nest n with `extent` iterations (0:
 * known at run time only), else 0: every reference moves one element
 * along l or none. */
static int math_width(const CgFn *f, const IrNest *n, const IrLoop *l, int64_t extent) {
  if (f->m->target != CG_TARGET_HOST || f->group || f->k->nred ||
      (extent > 0 && extent % MATH_W != 0 && extent < MATH_W_ANY))
    return 0;
  bool math = false, f32 = f->m->math_lanes == 8 && (extent <= 0 || extent % MATH_W_AVX2 == 0 || extent >= MATH_W_ANY);
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return 0;
    const IrStmt *s = n->items[i].u.stmt;
    if (s->nred || s->init != INIT_NONE || s->redop != RED_NONE || !unit_ref(s->lhs, l) || !all_unit(s->rhs, l))
      return 0;
    for (int d = 0; d < s->lhs->nsub; d++)
      if (!all_unit(s->lhs->sub[d], l)) return 0;
    math = math || calls_math(s->rhs);
    f32 = f32 && s->lhs->tensor->dtype == DT_F32 && s->rhs->type == DT_F32;
  }
  return !math ? 0 : f32 ? MATH_W_AVX2 : MATH_W;
}

/* OVERLAP_W when loop li (from iteration `first`, no groups) gets the two
 * overlapping loops, else 0. */
static int overlap_width(const CgFn *f, const IrNest *n, int li, int64_t first, int g) {
  const IrLoop *l = n->loops[li];
  if (f->m->target != CG_TARGET_HOST || li != n->nloops - 1 || first || g || f->group || f->k->nred ||
      (l->kind != LOOP_L && l->kind != LOOP_V) || l->extent <= OVERLAP_W || l->extent >= OVERLAP_MAX ||
      l->extent % OVERLAP_W == 0)
    return 0;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return 0;
    const IrStmt *s = n->items[i].u.stmt;
    if (s->nred || s->init != INIT_NONE || s->redop != RED_NONE || s->self_ref || !unit_ref(s->lhs, l) ||
        !all_unit(s->rhs, l))
      return 0;
    for (int j = 0; j < n->nitems; j++)
      if (reads_tensor(n->items[j].u.stmt->rhs, s->lhs->tensor)) return 0;
    for (int d = 0; d < s->lhs->nsub; d++) /* a subscript reading a written tensor */
      for (int j = 0; j < n->nitems; j++)
        if (reads_tensor(s->lhs->sub[d], n->items[j].u.stmt->lhs->tensor)) return 0;
  }
  return OVERLAP_W;
}

/* --------------------------------------------------------- interchange */

/* Host (issue 61): a reduction nest `... j, k [C[.., j] = C[.., j] + x;]`
 * whose innermost loop k is a reduction loop of its statements and whose
 * loop j just outside it chooses the element (a bare last subscript of the
 * left side) runs as `... k, j`: k outside, j innermost.  As written, each
 * element's fold over k is one serial chain (the fold's order is fixed: no
 * reassociation), k's loads of X[.., k, j] are strided, and the loop is not
 * vectorised: the attention family's P.V product, `Ae[.., c, d] += Ad[.., c,
 * f] * X[.., f, d]` with d of 16 and f of 256, ran one element at a time.
 * Interchanged, the innermost loop runs over j with every reference
 * contiguous or fixed, and LLVM vectorises it across elements: each
 * element still receives the same operations on the same values in k's
 * order (nothing is reassociated or contracted differently; a §9.5
 * initialisation at k = 0 still comes first), so the bits are the
 * interpreter's.
 *
 * Legal when the bodies at (j, k) and (j', k') with j != j' commute
 * (cg_commute_along, group.c: the element written is chosen by j and not
 * by k, one statement writes a tensor, every reference to a written tensor
 * is that same element, so nothing reads an element that an iteration of
 * another j writes; every reference provably in range: an out-of-range
 * access would be recorded in another order); then the new order keeps
 * each j's iterations in k's order and gives the same result.  j and k are
 * plain serial loops (no parallel range, no group, no cross-thread
 * reduction of the kernel), at least one statement reduces over k, and for
 * speed: every reference moves one element along j or not at all (no
 * gathers: A[.., j, k] in `C[j] += A[j, k] * B[k]` is left to jam_count),
 * j has at least INTERCHANGE_MIN_J iterations (a vector), k more than
 * JAM_MIN_INNER (shorter ones LLVM unrolls fully by itself), and the
 * unroll-and-jam of j over k (jam_count) does not apply: where it does
 * (j of 32 iterations or more, the SGEMM family's register tiles: the
 * attention family's Q.K^T with j of 256), the jammed chains are already
 * vectorised.  It applies to every host run: it never changes a bit. */
#define INTERCHANGE_MIN_J 8

static bool reduces_over(const IrStmt *s, const IrLoop *l) {
  if (s->redop == RED_NONE) return false;
  for (int r = 0; r < s->nred; r++)
    if (s->red[r] == l) return true;
  return false;
}

static bool interchange_inner(const CgFn *f, const IrNest *n, int li) {
  if (f->m->target != CG_TARGET_HOST || f->k->nred || f->group || li + 2 != n->nloops) return false;
  const IrLoop *j = n->loops[li], *k = n->loops[li + 1];
  if (j->kind != LOOP_L || k->kind != LOOP_L || j == f->k->par || k == f->k->par ||
      j->extent < INTERCHANGE_MIN_J || k->extent <= JAM_MIN_INNER)
    return false;
  bool red = false;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return false;
    const IrStmt *s = n->items[i].u.stmt;
    const IrExpr *last = s->lhs->nsub ? ir_expr_unparen(s->lhs->sub[s->lhs->nsub - 1]) : NULL;
    if (!last || last->kind != E_INDEX || last->u.index.loop != j || !ref_all_unit(s->lhs, j) || !all_unit(s->rhs, j))
      return false;
    red = red || reduces_over(s, k);
  }
  return red && jam_count(f, n, li) == 0 && cg_commute_along(f, n, k, j);
}

/* Lowers n from loop li with loops li and li + 1 swapped (the same
 * statements and loop objects: only the order of the headers differs). */
static void lower_interchanged(CgFn *f, const IrNest *n, int li) {
  IrLoop *loops[256]; /* a nest has at most 256 loops (sema) */
  IrNest m = *n;
  for (int i = 0; i < n->nloops; i++) loops[i] = n->loops[i];
  loops[li] = n->loops[li + 1];
  loops[li + 1] = n->loops[li];
  m.loops = loops;
  /* a block of its own, named for the tests (--emit=llvm -O0; it folds away) */
  LLVMBasicBlockRef mark = cg_block(f, "interchanged");
  LLVMBuildBr(f->m->B, mark);
  LLVMPositionBuilderAtEnd(f->m->B, mark);
  cg_lower_loops(f, &m, li);
}

/* ------------------------------------------------------------ collapse */

/* Host: the trailing loops li..n-1 of a nest that only maps elements run
 * as ONE loop over the product of their extents (collapse_from).  The
 * condition: every statement is a plain store (no reduction loop), every
 * reference either does not mention those loops or has them, in order, as
 * its trailing subscripts (bare indices of type i64) over trailing
 * dimensions of exactly those extents, and they appear nowhere else (not
 * as values, not in other subscripts).  Then every reference's element is
 * (row-major) its prefix times the product plus one flat index, visited in
 * the same order: the loops but the last are bound to 0 and the last to
 * the flat index, each offset is computed as before and equals the
 * original one, and the result is unchanged bit for bit.  LLVM vectorises
 * the long loop where a 30-trip innermost loop got 4 lanes and a scalar
 * remainder (Conv2d_Mish_Mish's elementwise nests, 16x30x30: 2.1x). */
static bool in_tail(const IrNest *n, int li, const IrLoop *l) {
  for (int j = li; j < n->nloops; j++)
    if (n->loops[j] == l) return true;
  return false;
}

static bool collapse_expr_ok(const IrNest *n, int li, const IrExpr *e);

static bool collapse_ref_ok(const IrNest *n, int li, const IrRef *r) {
  int m = n->nloops - li, tail = 0;
  for (int d = 0; d < r->nsub; d++) {
    const IrExpr *x = ir_expr_unparen(r->sub[d]);
    if (x && x->kind == E_INDEX && in_tail(n, li, x->u.index.loop)) {
      int j = d - (r->nsub - m); /* its place among the trailing subscripts */
      if (j < 0 || n->loops[li + j] != x->u.index.loop || r->tensor->shape[d] != x->u.index.loop->extent ||
          x->type != DT_I64)
        return false;
      tail++;
    } else if (!collapse_expr_ok(n, li, r->sub[d])) {
      return false;
    }
  }
  return tail == 0 || tail == m;
}

static bool collapse_expr_ok(const IrNest *n, int li, const IrExpr *e) {
  e = ir_expr_unparen(e);
  if (!e) return true;
  switch (e->kind) {
  case E_INDEX: return !in_tail(n, li, e->u.index.loop);
  case E_REF: return collapse_ref_ok(n, li, e->u.ref);
  case E_UNARY: return collapse_expr_ok(n, li, e->u.unary.a);
  case E_BINARY: return collapse_expr_ok(n, li, e->u.bin.a) && collapse_expr_ok(n, li, e->u.bin.b);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (!collapse_expr_ok(n, li, e->u.cmp.operand[i])) return false;
    return true;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!collapse_expr_ok(n, li, e->u.call.args[i])) return false;
    return true;
  default: return true;
  }
}

/* The first loop of the collapsible tail (at least two loops), or -1. */
static int collapse_from(const CgFn *f, const IrNest *n) {
  if (f->m->target != CG_TARGET_HOST || f->k->nred || f->group || n != f->k->nest) return -1;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return -1;
    const IrStmt *s = n->items[i].u.stmt;
    if (s->nred || s->init != INIT_NONE || s->redop != RED_NONE) return -1;
  }
  int best = -1;
  int64_t total = n->nloops ? n->loops[n->nloops - 1]->extent : 0;
  for (int li = n->nloops - 2; li >= 0; li--) {
    const IrLoop *l = n->loops[li];
    if ((l->kind != LOOP_L && l->kind != LOOP_B) || l == f->k->par || __builtin_mul_overflow(total, l->extent, &total))
      break;
    if (n->loops[li + 1]->kind != LOOP_L && n->loops[li + 1]->kind != LOOP_B) break;
    bool ok = true; /* (on the host every dimension of a tensor is kept: plan.c) */
    for (int i = 0; ok && i < n->nitems; i++)
      ok = collapse_ref_ok(n, li, n->items[i].u.stmt->lhs) && collapse_expr_ok(n, li, n->items[i].u.stmt->rhs);
    if (!ok) break;
    best = li;
  }
  return best;
}

static void lower_collapsed(CgFn *f, const IrNest *n, int li) {
  int nb = f->nbind;
  int64_t total = 1;
  for (int j = li; j < n->nloops; j++) {
    total *= n->loops[j]->extent; /* no overflow: collapse_from */
    if (j + 1 < n->nloops) cg_bind(f, n->loops[j], cg_i64(f->m, 0));
  }
  CgLoop lp;
  cg_bind(f, n->loops[n->nloops - 1], cg_loop_begin(f, &lp, cg_i64(f->m, 0), cg_i64(f->m, total), LOOP_L));
  lp.vwidth = math_width(f, n, n->loops[n->nloops - 1], total);
  cg_lower_body(f, n);
  cg_unbind(f, nb);
  cg_loop_end(f, &lp);
}

void cg_lower_loops(CgFn *f, const IrNest *n, int li) {
  if (li == n->nloops) {
    for (int j = 0; f->group && j < f->group_n; j++) { /* a group's bodies (group.c) */
      int nb = f->nbind;
      LLVMValueRef x = LLVMBuildAdd(f->m->B, f->group_base, cg_i64(f->m, j), "");
      LLVMSetNUW(x, 1);
      LLVMSetNSW(x, 1);
      cg_bind(f, f->group, x);
      cg_lower_body(f, n);
      cg_unbind(f, nb);
    }
    if (!f->group) cg_lower_body(f, n);
    return;
  }
  const IrLoop *l = n->loops[li];
  const CgRed *r = red_at(f, l);
  if (r) {
    cg_reduce_region(f, r);
    return;
  }
  int nb = f->nbind;
  CgLoop lp;
  if (li == collapse_from(f, n)) {
    lower_collapsed(f, n, li);
    return;
  }
  general_trees(f, l, true);
  switch (loop_mode(f, l)) {
  case LM_HW: { /* bound at the kernel's entry */
    int a = (int)l->hw - 1;
    bool saved = f->hw_scope[a];
    f->hw_scope[a] = true;
    cg_lower_loops(f, n, li + 1);
    f->hw_scope[a] = saved;
    return;
  }
  case LM_HOSTARG:
    cg_lower_loops(f, n, li + 1);
    return;
  case LM_RANGE:
    cg_bind(f, l, cg_loop_begin(f, &lp, f->lo, f->hi, l->kind));
    /* a run-time range: never unrolled fully */
    lp.copies = cg_unroll_copies(n, li, false, f->m->ctx->fp_contract);
    if (lp.copies > CG_UNROLL_PARTIAL) lp.copies = CG_UNROLL_PARTIAL;
    if (li == n->nloops - 1 && l->kind != LOOP_U) lp.vwidth = math_width(f, n, l, 0);
    break;
  case LM_SERIAL: {
    if (interchange_inner(f, n, li)) {
      lower_interchanged(f, n, li);
      general_trees(f, l, false);
      return;
    }
    if (cg_stage_reduction(f, n, li)) {
      general_trees(f, l, false);
      return;
    }
    int64_t cut[2];
    if (split_points(f, n, li, cut)) {
      int64_t b[4] = {0, cut[0], cut[1], l->extent};
      int nfact = f->guards.n;
      f->nsplit++;
      for (int i = 0; i < 3; i++) {
        if (b[i] >= b[i + 1]) continue;
        ir_value_guard_push(&f->guards, l, b[i], b[i + 1] - 1);
        cg_bind(f, l, cg_loop_begin(f, &lp, cg_i64(f->m, b[i]), cg_i64(f->m, b[i + 1]), l->kind));
        lp.copies = cg_unroll_copies(n, li, false, f->m->ctx->fp_contract); /* the whole loop's bound */
        cg_lower_loops(f, n, li + 1);
        cg_unbind(f, nb);
        cg_loop_end(f, &lp);
        f->guards.n = nfact;
      }
      f->nsplit--;
      general_trees(f, l, false);
      return;
    }
    int64_t first = 0;
    if (peel_first(f, n, li)) { /* iteration 0 on its own */
      cg_bind(f, l, cg_i64(f->m, 0));
      cg_lower_loops(f, n, li + 1);
      cg_unbind(f, nb);
      first = 1;
    }
    int g = cg_group_count(f, n, li, first);
    if (g) { /* groups of g iterations (group.c), then the rest */
      LLVMBuilderRef B = f->m->B;
      int64_t groups = (l->extent - first) / g;
      LLVMValueRef base = LLVMBuildMul(B, cg_loop_begin(f, &lp, cg_i64(f->m, 0), cg_i64(f->m, groups), l->kind),
                                       cg_i64(f->m, g), "");
      LLVMSetNUW(base, 1);
      LLVMSetNSW(base, 1);
      base = LLVMBuildAdd(B, base, cg_i64(f->m, first), "");
      LLVMSetNUW(base, 1);
      LLVMSetNSW(base, 1);
      cg_bind(f, l, base);
      f->group = l;
      f->group_base = base;
      f->group_n = g;
      cg_lower_loops(f, n, li + 1);
      f->group = NULL;
      cg_unbind(f, nb);
      cg_loop_end(f, &lp);
      first += groups * g;
    }
    int w = overlap_width(f, n, li, first, g);
    if (w) { /* [0, E - E % W), then [E - W, E) below */
      cg_bind(f, l, cg_loop_begin(f, &lp, cg_i64(f->m, 0), cg_i64(f->m, l->extent - l->extent % w), l->kind));
      lp.vwidth = w;
      cg_lower_loops(f, n, li + 1);
      cg_unbind(f, nb);
      cg_loop_end(f, &lp);
      cg_bind(f, l, cg_loop_begin(f, &lp, cg_i64(f->m, l->extent - w), cg_i64(f->m, l->extent), l->kind));
      lp.vwidth = w;
      break;
    }
    cg_bind(f, l, cg_loop_begin(f, &lp, cg_i64(f->m, first), cg_i64(f->m, l->extent), l->kind));
    lp.jam = jam_count(f, n, li);
    lp.tile = tile_rows(f, n, li);
    lp.copies = cg_unroll_copies(n, li, f->m->target == CG_TARGET_NVPTX, f->m->ctx->fp_contract);
    if (li == n->nloops - 1 && !first && !lp.jam && !lp.tile && (l->kind == LOOP_L || l->kind == LOOP_V))
      lp.vwidth = math_width(f, n, l, l->extent);
    break;
  }
  }
  cg_lower_loops(f, n, li + 1);
  cg_unbind(f, nb);
  cg_loop_end(f, &lp);
  general_trees(f, l, false);
}
