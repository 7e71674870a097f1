/* reduce.c -- statements in "tree mode": reductions over a threadIdx-bound
 * index (SPEC §9.6, §13.3) in the order the interpreter defines
 * (interp/interp.h), the same on every back end.  For one run of the
 * thread loop tloop (an "instance"), for every element e of T (the element
 * loops of the region, outermost):
 *
 *   each thread t:  v[t] = id(op) in NT;  v[t] = v[t] op NT(x), the fold
 *                   loops in loop order  (NT: the right side's root type);
 *   for k = 0, 1, ... while 2^k < N: every t with t mod 2^(k+1) = 0 and
 *                   t + 2^k < N does v[t] = v[t] op' v[t + 2^k];
 *   T[e] = T(NT(T[e]) op' v[0])          (op' is op, but + for -)
 *
 * §9.5's identity store happens into T[e] as in sequential order: in this
 * instance exactly when the statement initialises and its reduction loops
 * outside the region are all 0.
 *
 * NVPTX: t is the hardware index; partials go to a shared scratch array,
 * one bar.sync per tree level, thread 0 of the axis stores.  Host: the
 * thread loops run inside the element loops into a stack array, then the
 * tree.
 */
#include "codegen/cg.h"
#include "codegen/unroll.h"

/* The code-size bound of unrolled loops (codegen/unroll.h) in a region:
 * the size of one fold of the contribution, and of the whole region (the
 * fold loops and the tree, which counts as a loop kept). */
static double fold_size(const CgFn *f, const CgRed *r) { return cg_unroll_expr_size(r->x, f->m->ctx->fp_contract); }
static double region_size(const CgFn *f, const CgRed *r) {
  bool nvptx = f->m->target == CG_TARGET_NVPTX;
  return cg_unroll_chain_size(r->rl, r->nrl, 0, fold_size(f, r), nvptx) + CG_UNROLL_LOOP_WEIGHT;
}

static IrDType tdtype(const CgRed *r) { return r->s->lhs->tensor->dtype; }

/* a op b in NT (both already NT); partials combine - with +. */
static LLVMValueRef combine(CgFn *f, const CgRed *r, bool partials, LLVMValueRef a, LLVMValueRef b) {
  IrDType nt = r->nt;
  switch (r->op) {
  case RED_MAX: return cg_maxmin(f, true, a, b, nt);
  case RED_MIN: return cg_maxmin(f, false, a, b, nt);
  case RED_MUL: return cg_binop(f, OP_MUL, a, b, nt);
  case RED_SUB: return cg_binop(f, partials ? OP_ADD : OP_SUB, a, b, nt);
  default: return cg_binop(f, OP_ADD, a, b, nt);
  }
}

/* The identity of the tree's operator in NT (not §9.5's). */
static LLVMValueRef tree_identity(CgFn *f, const CgRed *r) {
  return cg_identity(f, r->op == RED_SUB ? RED_ADD : r->op, r->nt);
}

/* v = id; v = v op x over the fold loops; returns v (NT). */
static LLVMValueRef partial(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  f->stmt_id = r->s->id;
  LLVMTypeRef ty = cg_reg_type(m, r->nt);
  LLVMValueRef acc = cg_alloca(f, ty, 1, "partial");
  LLVMBuildStore(m->B, tree_identity(f, r), acc);
  int nb = f->nbind;
  CgLoop lp[256];
  double body = fold_size(f, r);
  for (int i = 0; i < r->nrl; i++) {
    cg_bind(f, r->rl[i], cg_loop_begin(f, &lp[i], cg_i64(m, 0), cg_i64(m, r->rl[i]->extent), r->rl[i]->kind));
    lp[i].copies = cg_unroll_chain_copies(r->rl, r->nrl, i, body, m->target == CG_TARGET_NVPTX);
  }
  LLVMValueRef x = cg_convert(f, cg_expr(f, r->x), r->x->type, r->nt);
  LLVMValueRef cur = LLVMBuildLoad2(m->B, ty, acc, "");
  LLVMBuildStore(m->B, combine(f, r, false, cur, x), acc);
  for (int i = r->nrl - 1; i >= 0; i--) cg_loop_end(f, &lp[i]);
  cg_unbind(f, nb);
  return LLVMBuildLoad2(m->B, ty, acc, "");
}

static bool in_region(const CgRed *r, const IrLoop *l) {
  for (int i = 0; i < r->nthr; i++)
    if (r->thr[i] == l) return true;
  for (int i = 0; i < r->nrl; i++)
    if (r->rl[i] == l) return true;
  for (int i = 0; i < r->nsp; i++)
    if (r->sp[i] == l) return true;
  return false;
}

/* §9.5 store of this instance, then T[e] = T(NT(T[e]) op' v0) */
static void fold_store(CgFn *f, const CgRed *r, LLVMValueRef v0) {
  CgModule *m = f->m;
  IrDType t = tdtype(r);
  const IrStmt *s = r->s;
  LLVMValueRef addr = cg_addr(f, s->lhs, true);
  if (s->init == INIT_REDUCE) {
    LLVMValueRef c = NULL;
    for (int i = 0; i < s->nred; i++) {
      if (in_region(r, s->red[i])) continue;
      LLVMValueRef z = LLVMBuildICmp(m->B, LLVMIntEQ, cg_index_value(f, s->red[i]), cg_i64(m, 0), "");
      c = c ? LLVMBuildAnd(m->B, c, z, "") : z;
    }
    LLVMValueRef id = cg_identity(f, s->redop, t);
    if (!c) {
      cg_store(f, addr, id, t);
    } else {
      LLVMBasicBlockRef yes = cg_block(f, "init"), join = cg_block(f, "init.end");
      LLVMBuildCondBr(m->B, c, yes, join);
      LLVMPositionBuilderAtEnd(m->B, yes);
      cg_store(f, addr, id, t);
      LLVMBuildBr(m->B, join);
      LLVMPositionBuilderAtEnd(m->B, join);
    }
  }
  LLVMValueRef prior = cg_convert(f, cg_load(f, addr, t), t, r->nt);
  cg_store(f, addr, cg_convert(f, combine(f, r, true, prior, v0), r->nt, t), t);
}

/* ------------------------------------------------------------ NVPTX */

static void gpu_tree(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  const CgKernel *k = f->k;
  int axis = (int)r->tloop->hw - 1;
  int64_t n = r->tloop->extent;
  LLVMValueRef tid[3];
  for (int d = 0; d < 3; d++) tid[d] = cg_nvptx_sreg(f, "tid", d);
  LLVMValueRef yz = LLVMBuildAdd(B, tid[1], LLVMBuildMul(B, cg_i64(m, k->block[1]), tid[2], ""), "");
  LLVMValueRef lin = LLVMBuildAdd(B, tid[0], LLVMBuildMul(B, cg_i64(m, k->block[0]), yz, ""), "");
  int64_t stride = axis == 0 ? 1 : axis == 1 ? k->block[0] : k->block[0] * k->block[1];
  LLVMValueRef me = tid[axis];
  LLVMTypeRef et = cg_reg_type(m, r->nt);
  LLVMValueRef slot = LLVMBuildInBoundsGEP2(B, et, m->scratch, &lin, 1, "");
  LLVMBuildStore(B, partial(f, r), slot);
  f->barrier_last = false;
  cg_barrier(f);
  for (int64_t s = 1; s < n; s *= 2) {
    LLVMValueRef sel = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildURem(B, me, cg_i64(m, 2 * s), ""), cg_i64(m, 0), "");
    LLVMValueRef in = LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildAdd(B, me, cg_i64(m, s), ""), cg_i64(m, n), "");
    LLVMBasicBlockRef yes = cg_block(f, "tree"), join = cg_block(f, "tree.end");
    LLVMBuildCondBr(B, LLVMBuildAnd(B, sel, in, ""), yes, join);
    LLVMPositionBuilderAtEnd(B, yes);
    LLVMValueRef oidx = LLVMBuildAdd(B, lin, cg_i64(m, stride * s), "");
    LLVMValueRef other = LLVMBuildInBoundsGEP2(B, et, m->scratch, &oidx, 1, "");
    LLVMValueRef a = LLVMBuildLoad2(B, et, slot, ""), b = LLVMBuildLoad2(B, et, other, "");
    LLVMBuildStore(B, combine(f, r, true, a, b), slot);
    LLVMBuildBr(B, join);
    LLVMPositionBuilderAtEnd(B, join);
    f->barrier_last = false;
    cg_barrier(f);
  }
  LLVMBasicBlockRef yes = cg_block(f, "red.store"), join = cg_block(f, "red.end");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, me, cg_i64(m, 0), ""), yes, join);
  LLVMPositionBuilderAtEnd(B, yes);
  fold_store(f, r, LLVMBuildLoad2(B, et, slot, ""));
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  f->barrier_last = false;
  cg_barrier(f); /* the scratch is reused by the next element */
}

/* ------------------------------------------------------------ host */

/* Host: the innermost thread loop is unrolled and jammed (LLVM's
 * loop-unroll-and-jam, kernel.c's pipeline) over the one fold loop inside
 * it: THREAD_JAM threads' partials fold side by side, each in its own loop
 * order (the partials, and so the tree, are unchanged), as that many
 * independent chains where one thread's chain waited on each add (issue 41:
 * MSELoss's sum over 128 threads of 4096 terms, 1.5x faster).  Only for
 * one fold loop (unroll-and-jam takes a loop with one loop inside), a
 * thread count the jam divides, and a jammed body within
 * CG_JAM_MAX_SIZE weighted operations (unroll.h), as lower_loops.c's jam. */
#define THREAD_JAM 16
static int thread_jam(const CgFn *f, const CgRed *r) {
  int64_t n = r->thr[r->nthr - 1]->extent;
  if (r->nrl != 1 || r->rl[0]->extent < 2) return 0;
  double size = fold_size(f, r);
  for (int jam = THREAD_JAM; jam >= 4; jam /= 2)
    if (n % jam == 0 && n >= 2 * jam && jam * size <= CG_JAM_MAX_SIZE) return jam;
  return 0;
}

/* The thread loops i.. (mixed radix, outermost slowest) around the partials. */
static void host_threads(CgFn *f, const CgRed *r, int i, LLVMValueRef t, LLVMValueRef v, LLVMTypeRef at) {
  CgModule *m = f->m;
  if (i == r->nthr) {
    LLVMValueRef idx[2] = {cg_i64(m, 0), t};
    LLVMValueRef pv = partial(f, r);
    LLVMBuildStore(m->B, pv, LLVMBuildInBoundsGEP2(m->B, at, v, idx, 2, ""));
    return;
  }
  const IrLoop *l = r->thr[i];
  int nb = f->nbind;
  CgLoop lp;
  LLVMValueRef li = cg_loop_begin(f, &lp, cg_i64(m, 0), cg_i64(m, l->extent), LOOP_L);
  if (i == r->nthr - 1) lp.jam = thread_jam(f, r);
  cg_bind(f, l, li);
  host_threads(f, r, i + 1, LLVMBuildAdd(m->B, LLVMBuildMul(m->B, t, cg_i64(m, l->extent), ""), li, ""), v, at);
  cg_loop_end(f, &lp);
  cg_unbind(f, nb);
}

/* The tree's levels, compacted: before level k the live partials, those
 * of the threads t = 2^k i (i < m), lie at u[i]; the level combines
 * w[j] = u[2j] op' u[2j+1] (the pair t, t + 2^k of the order above) for
 * 2j + 1 < m, carries w[(m-1)/2] = u[m-1] when m is odd, and swaps u and
 * w (two stack arrays, n and (n+1)/2 long).  The same pairs in the same
 * order as combining in place at t and t + 2^k, but the stores are
 * contiguous: in place, the vectoriser stored a level's results with
 * stride 2^(k+1), as scatters (issue 41: Hingeloss's 128-thread sum). */
static void host_tree(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  int64_t n = r->nthreads;
  LLVMTypeRef ty = cg_reg_type(m, r->nt);
  LLVMValueRef v = cg_alloca(f, ty, n, "partials");
  LLVMTypeRef at = LLVMArrayType2(ty, (uint64_t)n);
  host_threads(f, r, 0, cg_i64(m, 0), v, at);
  LLVMValueRef u = v, w = n > 1 ? cg_alloca(f, ty, (n + 1) / 2, "partials.next") : NULL;
  CgLoop lp;
  for (int64_t live = n; live > 1; live = (live + 1) / 2) {
    int64_t pairs = live / 2;
    LLVMValueRef j = cg_loop_begin(f, &lp, cg_i64(m, 0), cg_i64(m, pairs), LOOP_L);
    LLVMValueRef j2 = LLVMBuildMul(B, j, cg_i64(m, 2), "");
    LLVMValueRef j21 = LLVMBuildAdd(B, j2, cg_i64(m, 1), "");
    LLVMValueRef a = LLVMBuildLoad2(B, ty, LLVMBuildInBoundsGEP2(B, ty, u, &j2, 1, ""), "");
    LLVMValueRef b = LLVMBuildLoad2(B, ty, LLVMBuildInBoundsGEP2(B, ty, u, &j21, 1, ""), "");
    LLVMBuildStore(B, combine(f, r, true, a, b), LLVMBuildInBoundsGEP2(B, ty, w, &j, 1, ""));
    cg_loop_end(f, &lp);
    if (live % 2) {
      LLVMValueRef last = cg_i64(m, live - 1), to = cg_i64(m, pairs);
      LLVMValueRef c = LLVMBuildLoad2(B, ty, LLVMBuildInBoundsGEP2(B, ty, u, &last, 1, ""), "");
      LLVMBuildStore(B, c, LLVMBuildInBoundsGEP2(B, ty, w, &to, 1, ""));
    }
    LLVMValueRef t = u;
    u = w, w = t;
  }
  fold_store(f, r, LLVMBuildLoad2(B, ty, u, ""));
}

/* ------------------------------------------------------------ the region */

void cg_reduce_region(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  int nb = f->nbind;
  CgLoop lp[256];
  int nl = 0;
  double body = region_size(f, r);
  for (int i = 0; i < r->nsp; i++) {
    const IrLoop *l = r->sp[i];
    if (m->target == CG_TARGET_NVPTX && l->kind == LOOP_B && l->hw != HW_NONE) continue;
    cg_bind(f, l, cg_loop_begin(f, &lp[nl], cg_i64(m, 0), cg_i64(m, l->extent), l->kind));
    lp[nl++].copies = cg_unroll_chain_copies(r->sp, r->nsp, i, body, m->target == CG_TARGET_NVPTX);
  }
  if (m->target == CG_TARGET_NVPTX) gpu_tree(f, r);
  else host_tree(f, r);
  while (nl > 0) cg_loop_end(f, &lp[--nl]);
  cg_unbind(f, nb);
}

/* ------------------------------------------------------------ general form
 * Host only: the loops run as written; partial[e][t] (NT) and touched[e]
 * live on the heap for one run of tloop; each execution of the statement
 * folds into its element's and thread's partial; when tloop ends, every
 * touched element gets its tree and the store.  The §9.5 identity store
 * happens in place, in sequential order (lower.c). */

static LLVMValueRef libc_fn(CgModule *m, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, unsigned np) {
  LLVMValueRef fn = LLVMGetNamedFunction(m->M, name);
  if (!fn) fn = LLVMAddFunction(m->M, name, LLVMFunctionType(ret, ps, np, 0));
  return fn;
}

static LLVMValueRef call_malloc(CgFn *f, int64_t bytes) {
  CgModule *m = f->m;
  LLVMValueRef fn = libc_fn(m, "malloc", m->ptr0, &m->i64, 1);
  LLVMValueRef n = cg_i64(m, bytes);
  return LLVMBuildCall2(m->B, LLVMGlobalGetValueType(fn), fn, &n, 1, "");
}

static void call_free(CgFn *f, LLVMValueRef p) {
  CgModule *m = f->m;
  LLVMValueRef fn = libc_fn(m, "free", m->vd, &m->ptr0, 1);
  LLVMBuildCall2(m->B, LLVMGlobalGetValueType(fn), fn, &p, 1, "");
}

static int tree_slot(const CgFn *f, const CgRed *r) {
  for (int i = f->ntree - 1; i >= 0; i--)
    if (f->tree_r[i] == r) return i;
  return -1;
}

void cg_tree_begin(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  if (f->ntree == 32) return; /* the statement then runs sequentially */
  int64_t ne = ir_tensor_numel(r->s->lhs->tensor), n = ne * r->nthreads;
  LLVMTypeRef ty = cg_reg_type(m, r->nt);
  LLVMValueRef p = call_malloc(f, n * 8), touched = call_malloc(f, ne);
  CgLoop lp;
  LLVMValueRef i = cg_loop_begin(f, &lp, cg_i64(m, 0), cg_i64(m, n), LOOP_L);
  LLVMBuildStore(B, tree_identity(f, r), LLVMBuildInBoundsGEP2(B, ty, p, &i, 1, ""));
  cg_loop_end(f, &lp);
  i = cg_loop_begin(f, &lp, cg_i64(m, 0), cg_i64(m, ne), LOOP_L);
  LLVMBuildStore(B, LLVMConstNull(m->i8), LLVMBuildInBoundsGEP2(B, m->i8, touched, &i, 1, ""));
  cg_loop_end(f, &lp);
  f->tree_r[f->ntree] = r;
  f->tree_p[f->ntree] = p;
  f->tree_touched[f->ntree] = touched;
  f->ntree++;
}

void cg_tree_accumulate(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  int k = tree_slot(f, r);
  LLVMTypeRef ty = cg_reg_type(m, r->nt);
  LLVMValueRef e = cg_offset(f, r->s->lhs, true), t = cg_i64(m, 0);
  for (int i = 0; i < r->nthr; i++)
    t = LLVMBuildAdd(B, LLVMBuildMul(B, t, cg_i64(m, r->thr[i]->extent), ""), cg_index_value(f, r->thr[i]), "");
  LLVMValueRef idx = LLVMBuildAdd(B, LLVMBuildMul(B, e, cg_i64(m, r->nthreads), ""), t, "");
  LLVMValueRef slot = LLVMBuildInBoundsGEP2(B, ty, f->tree_p[k], &idx, 1, "");
  LLVMValueRef x = cg_convert(f, cg_expr(f, r->x), r->x->type, r->nt);
  LLVMBuildStore(B, combine(f, r, false, LLVMBuildLoad2(B, ty, slot, ""), x), slot);
  LLVMBuildStore(B, LLVMConstInt(m->i8, 1, 0), LLVMBuildInBoundsGEP2(B, m->i8, f->tree_touched[k], &e, 1, ""));
}

void cg_tree_flush(CgFn *f, const CgRed *r) {
  CgModule *m = f->m;
  LLVMBuilderRef B = m->B;
  int k = tree_slot(f, r);
  if (k < 0) return;
  const IrTensor *T = r->s->lhs->tensor;
  int64_t ne = ir_tensor_numel(T), n = r->nthreads;
  LLVMTypeRef ty = cg_reg_type(m, r->nt);
  LLVMValueRef p = f->tree_p[k], touched = f->tree_touched[k];
  CgLoop le, lp;
  LLVMValueRef e = cg_loop_begin(f, &le, cg_i64(m, 0), cg_i64(m, ne), LOOP_L);
  LLVMValueRef hit = LLVMBuildLoad2(B, m->i8, LLVMBuildInBoundsGEP2(B, m->i8, touched, &e, 1, ""), "");
  LLVMBasicBlockRef yes = cg_block(f, "flush"), next = cg_block(f, "flush.next");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, hit, LLVMConstNull(m->i8), ""), yes, next);
  LLVMPositionBuilderAtEnd(B, yes);
  LLVMValueRef row = LLVMBuildMul(B, e, cg_i64(m, n), "");
  for (int64_t s = 1; s < n; s *= 2) {
    int64_t cnt = (n - s + 2 * s - 1) / (2 * s);
    LLVMValueRef j = cg_loop_begin(f, &lp, cg_i64(m, 0), cg_i64(m, cnt), LOOP_L);
    LLVMValueRef ia = LLVMBuildAdd(B, row, LLVMBuildMul(B, j, cg_i64(m, 2 * s), ""), "");
    LLVMValueRef ib = LLVMBuildAdd(B, ia, cg_i64(m, s), "");
    LLVMValueRef pa = LLVMBuildInBoundsGEP2(B, ty, p, &ia, 1, ""), pb = LLVMBuildInBoundsGEP2(B, ty, p, &ib, 1, "");
    LLVMValueRef a = LLVMBuildLoad2(B, ty, pa, ""), b = LLVMBuildLoad2(B, ty, pb, "");
    LLVMBuildStore(B, combine(f, r, true, a, b), pa);
    cg_loop_end(f, &lp);
  }
  LLVMValueRef v0 = LLVMBuildLoad2(B, ty, LLVMBuildInBoundsGEP2(B, ty, p, &row, 1, ""), "");
  LLVMValueRef addr = LLVMBuildInBoundsGEP2(B, cg_mem_type(m, T->dtype), f->tptr[T->id], &e, 1, "");
  LLVMValueRef prior = cg_convert(f, cg_load(f, addr, T->dtype), T->dtype, r->nt);
  cg_store(f, addr, cg_convert(f, combine(f, r, true, prior, v0), r->nt, T->dtype), T->dtype);
  LLVMBuildBr(B, next);
  LLVMPositionBuilderAtEnd(B, next);
  cg_loop_end(f, &le);
  call_free(f, p);
  call_free(f, touched);
  f->ntree--;
  for (int i = k; i < f->ntree; i++) {
    f->tree_r[i] = f->tree_r[i + 1];
    f->tree_p[i] = f->tree_p[i + 1];
    f->tree_touched[i] = f->tree_touched[i + 1];
  }
}
