/* costmodel.c -- the analytic cost model (see costmodel.h; the user-facing
 * description is leirc(1), COST MODEL).
 *
 * The model walks every statement with its chain of enclosing loops
 * (outermost first) and the launch plan the code generator would use
 * (codegen/plan.c: the host's parallel loop; the GPU's grid, block, host
 * loops, shared/local placement and cross-thread reductions).
 *
 * Per statement s with loops l_0 .. l_{d-1} (extents n_j), N = prod n_j:
 *  - ops(s): the right side's operations weighted by their cost in the
 *    generated code (OPW_*: + - * max min abs compare, an index as a value
 *    = 1, / = 6, // % = 8, sqrt = 8, exp = 60, log = 120, erf = 135,
 *    ** = 260: leirc's own bit-exact routines; a lazy if_then_else counts
 *    its condition and its dearer branch); flops = sum N * ops(s).
 *  - references: every distinct reference (tensor + subscript text) of s;
 *    the left side is a write.  Subscripts are evaluated at index values
 *    (floor // and %): per loop j, the mean byte step over its range
 *    ((off(n_j - 1) - off(0)) / (n_j - 1): i//c gives 1/c, i//c*c+i%c one
 *    element) and the local step off(1) - off(0); an indirect read that
 *    uses l_j makes the reference "scattered" along it (a new line each
 *    iteration).
 *  - distinct lines D_r(j) of a reference over loops j..d-1: the product
 *    of the distinct values per loop (1 for a zero step), times
 *    min(smallest step, line)/line, at most the tensor's size.
 *  - cache-capacity footprint rule: F(j) = sum_r D_r(j) * line * g_r,
 *    where g_r = gcd(sets, step/line) when r's smallest step over the loops
 *    is a multiple of the line (power-of-two strides crowd into few sets),
 *    else 1.  The lines fetched by r over loops j..d-1 are T_r(d) = 1 and
 *    T_r(j) = D_r(j) if F(j+1) <= capacity (one iteration of l_j stays
 *    cached, so what its iterations share is reused), else
 *    n_j * T_r(j+1).
 *
 * HOST (codegen/host.c's JIT on an x86-64 core: 3 GHz, 2 operations a
 * cycle, 256-bit vectors, 64-byte lines, L1 32 KiB/8 ways, L2 1 MiB/8 ways
 * at 32 B/cycle, L3 32 MiB/16 ways at 16 B/cycle, memory 12 GB/s a core and
 * 30 GB/s in all, 4 cores, 4 KiB pages, a 1536-entry TLB, 20 cycles a
 * page walk):
 *  - LLVM unrolls small constant innermost loops fully: going outwards,
 *    loops join the unrolled body while their extents multiply to at most
 *    HOST_FULL_UNROLL (32) and they are neither vectorisable nor the
 *    parallel loop; the first other loop is li.
 *  - li is vectorised (w = 32 bytes / element, at most the extent) when
 *    it has 8 or more iterations and the left side moves one element along
 *    it and every reference has a local step of 0 or one element (or li is
 *    V); the traffic is then counted with li innermost.  The code
 *    generator's unroll-and-jam (li the nest's last loop, a reduction loop,
 *    under a loop of extent >= 32 that indexes every left side) vectorises
 *    16 wide across the outer loop; the traffic is counted in the jammed
 *    order (outer/16, inner, 16 lanes of outer).
 *  - loads and stores per iteration: a reference that varies along the
 *    unrolled loops counts 1, one that varies along li only 1/(unrolled
 *    iterations), one invariant along both 0 (a register).
 *  - cycles per iteration c = max(ops/2, loads/2, stores) / w; a reduction
 *    chain along li (left side does not move) costs at least the operation
 *    latency (4 cycles float, 1 integer; 1/16 of that when jammed).
 *  - warm caches (the measurement repeats runs): a line's first touch
 *    comes from the smallest level that holds all the program's tensors,
 *    so L2, L3 and memory traffic are the footprint rule's fetches at the
 *    L1, L2 and L3 capacities, less the first touches that level serves;
 *    memory counts writes twice (write-allocate and write-back).  Page
 *    walks: the footprint rule with 4 KiB "lines" and the TLB's reach.
 *  - t(s) = max(N*c / clock, L2 bytes / L2 bandwidth, L3 bytes / L3
 *    bandwidth, memory bytes / memory bandwidth) + walks * 20 / clock: a
 *    roofline.  bytes = the lines moved into L1 (cold caches).
 *  - a nest = the sum of its statements + 50 ns; t(p), its time on p
 *    cores, divides the compute, L2 and L3 terms by p and memory by
 *    min(p * 12, 30) / 12.  It runs on the pool (codegen/parallel.h: the
 *    rule host.c decides by) when t(1) - t(2) >= 50 us; it then costs
 *    t(min(HOST_CORES, extent)) plus 10 us for the pool (a worker's
 *    wake-up and the caller's, measured 4 to 20 us a nest on a 2-CPU
 *    KVM guest).  parallelism = p, time-weighted.
 *
 * CUDA (GPU_* per architecture; sm_90 and newer = H200: 132 SMs at 1.98
 * GHz, 4 schedulers each issuing one warp instruction per cycle, 64
 * resident warps and 32 blocks per SM, 228 KiB shared memory per SM, 50 MiB
 * L2 at 10 TB/s, HBM 4.8 TB/s; sm_80..89 = A100: 108 SMs, 1.41 GHz, 164 KiB,
 * 40 MiB, 5 TB/s, 2.0 TB/s; sm_70..79 = V100: 80 SMs, 1.53 GHz, 96 KiB,
 * 6 MiB, 3 TB/s, 0.9 TB/s):
 *  - per kernel (top-level nest): launches = product of its host loops;
 *    blocks and threads per block from the plan; loops that are neither
 *    host nor hardware-bound run serially in each thread (iterations per
 *    thread I = product of their extents).
 *  - coalescing of a global reference: with local x-step s (bytes along
 *    the threadIdx.x loop) a warp of min(32, block x) threads moves 1
 *    sector (s = 0) or min(threads, ceil(threads*|s|/32)) 32-byte sectors
 *    (threads when scattered); useful = threads * element size (one
 *    sector's worth for s = 0); coalescing = useful/moved over the
 *    program's global traffic.
 *  - per thread, the footprint rule over its serial loops at a register
 *    capacity (GPU_THREAD_CACHE = 128 bytes) gives the elements each
 *    reference fetches, T_r; L2 traffic = warps * sum_r T_r * sectors_r *
 *    32; HBM traffic = the compulsory sectors (distinct sectors over all
 *    loops, writes twice) when the kernel's global tensors fit in L2, else
 *    plus the share of the L2 traffic that does not fit.
 *  - shared references cost T_r * degree * lanes * 4 bytes / 32 B per
 *    cycle per SM, degree = gcd(x-step in words, 32) bank conflicts (8
 *    when scattered); local (l) tensors live in registers (one operation).
 *  - occupancy: resident blocks per SM = min(32, 64 / warps per block,
 *    228 KiB / shared bytes per block, blocks per SM needed); occupancy =
 *    resident warps / 64.
 *  - one launch = max(issue, latency, shared, memory) + 4 us: issue =
 *    warps * (I * (ops + refs + 2) + sectors moved) / (4 * active SMs)
 *    cycles; latency = waves * (I * (4 * ops + 30 * shared refs) + 400 *
 *    global elements fetched / 4 + sectors moved) cycles (one warp's
 *    dependent chain, 4 loads in flight; waves = ceil(blocks per SM /
 *    resident blocks)); memory = max(HBM bytes / (HBM * min(1, resident
 *    warps in the GPU / (16 * SMs))), L2 bytes / L2 bandwidth); a
 *    cross-thread reduction adds log2(threads per block) * 40 cycles a
 *    wave.  parallelism = threads per launch, coalescing and occupancy
 *    averages weighted by the kernels' times.
 *
 * Everything is double arithmetic on the IR and these constants: no
 * clock, no machine query, so the estimate is the same on every machine.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen/costmodel.h"

#include "codegen/cg.h"
#include "codegen/parallel.h"
#include "ir/strength.h"
#include "ir/contract.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constants */

#define OPW_SIMPLE 1.0
#define OPW_DIV 6.0
#define OPW_IDIV 8.0
#define OPW_SQRT 8.0
#define OPW_EXP 60.0
#define OPW_LOG 120.0
#define OPW_ERF 135.0
#define OPW_POW 260.0

#define HOST_CLOCK 3.0e9
#define HOST_ISSUE 2.0
#define HOST_VEC_BYTES 32.0
#define HOST_FP_LAT 4.0
#define HOST_LINE 64.0
#define HOST_L1 (32.0 * 1024)
#define HOST_L2 (1024.0 * 1024)
#define HOST_L3 (32.0 * 1024 * 1024)
#define HOST_BW_L2 (32.0 * HOST_CLOCK)
#define HOST_BW_L3 (16.0 * HOST_CLOCK)
#define HOST_PAGE 4096.0
#define HOST_TLB (1536.0 * HOST_PAGE) /* reach of the second-level TLB */
#define HOST_WALK 20.0                /* cycles per page walk */
#define HOST_BW_MEM_CORE 12.0e9
#define HOST_BW_MEM_ALL 30.0e9
#define HOST_CORES 4.0
#define HOST_NEST_S 50e-9
#define HOST_PAR_S 10e-6
#define HOST_JAM_MIN 32           /* codegen/lower_loops.c 2 * JAM_COUNT */
#define HOST_JAM 16.0             /* codegen/lower_loops.c JAM_COUNT */
#define HOST_FULL_UNROLL 32.0     /* innermost iterations LLVM unrolls fully */
#define HOST_MIN_VEC 8.0         /* shorter loops are not vectorised */

#define GPU_SECTOR 32.0
#define GPU_WARP 32.0
#define GPU_SCHED 4.0
#define GPU_MAX_BLOCKS_SM 32.0
#define GPU_MAX_WARPS_SM 64.0
#define GPU_ALU_LAT 4.0
#define GPU_MEM_LAT 400.0
#define GPU_MLP 4.0        /* independent global loads in flight per thread */
#define GPU_SHARED_LAT 30.0
#define GPU_SHARED_BW 32.0 /* bytes per cycle per SM (one 32-bank wavefront) */
#define GPU_THREAD_CACHE 128.0
#define GPU_LAUNCH_S 4e-6
#define GPU_RED_STEP 40.0
#define GPU_BW_WARPS 16.0  /* resident warps per SM that saturate HBM */

typedef struct GpuArch {
  double sms, clock, shared_sm, l2, l2_bw, hbm_bw;
} GpuArch;

static GpuArch gpu_arch(int sm) {
  if (sm >= 90) return (GpuArch){132, 1.98e9, 228.0 * 1024, 50.0 * 1024 * 1024, 10.0e12, 4.8e12};
  if (sm >= 80) return (GpuArch){108, 1.41e9, 164.0 * 1024, 40.0 * 1024 * 1024, 5.0e12, 2.0e12};
  return (GpuArch){80, 1.53e9, 96.0 * 1024, 6.0 * 1024 * 1024, 3.0e12, 0.9e12};
}

/* ------------------------------------------------------------ expressions */

static double op_weight(bool fc, const IrExpr *e);

static bool mentions(const IrExpr *e, const IrLoop *l) {
  if (!e) return false;
  switch (e->kind) {
  case E_INDEX: return e->u.index.loop == l;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (mentions(e->u.ref->sub[i], l)) return true;
    return false;
  case E_UNARY: return mentions(e->u.unary.a, l);
  case E_BINARY: return mentions(e->u.bin.a, l) || mentions(e->u.bin.b, l);
  case E_PAREN: return mentions(e->u.paren, l);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (mentions(e->u.cmp.operand[i], l)) return true;
    return false;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (mentions(e->u.call.args[i], l)) return true;
    return false;
  default: return false;
  }
}

bool cg_eval_index(const IrExpr *e, const IrLoop *l, int64_t v, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
  case E_INT: *out = e->u.ilit.value; return true;
  case E_INDEX: *out = e->u.index.loop == l ? v : 0; return true;
  case E_PAREN: return cg_eval_index(e->u.paren, l, v, out);
  case E_UNARY:
    if (!cg_eval_index(e->u.unary.a, l, v, &a) || a == INT64_MIN) return false;
    *out = e->u.unary.op == OP_NEG ? -a : a;
    return true;
  case E_BINARY:
    if (!cg_eval_index(e->u.bin.a, l, v, &a) || !cg_eval_index(e->u.bin.b, l, v, &b)) return false;
    switch (e->u.bin.op) { /* an overflow counts as "not arithmetic" */
    case OP_ADD: return !__builtin_add_overflow(a, b, out);
    case OP_SUB: return !__builtin_sub_overflow(a, b, out);
    case OP_MUL: return !__builtin_mul_overflow(a, b, out);
    case OP_FLOORDIV:
    case OP_MOD: {
      if (b == 0 || (b == -1 && a == INT64_MIN)) return false;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
      *out = e->u.bin.op == OP_FLOORDIV ? q : a - q * b;
      return true;
    }
    default: return false;
    }
  default: return false;
  }
}

static double max2(double a, double b) { return a > b ? a : b; }
static double min2(double a, double b) { return a < b ? a : b; }

static double call_weight(bool fc, const IrExpr *e) {
  double w = 0;
  switch (e->u.call.func) {
  case F_EXP: w = OPW_EXP; break;
  case F_LOG: w = OPW_LOG; break;
  case F_SQRT: w = OPW_SQRT; break;
  case F_ERF: w = OPW_ERF; break;
  case F_ABS: case F_MAX: case F_MIN: w = OPW_SIMPLE * (e->u.call.nargs > 1 ? e->u.call.nargs - 1 : 1); break;
  case F_ITE:
    if (e->u.call.nargs == 3)
      return OPW_SIMPLE + op_weight(fc, e->u.call.args[0]) +
             max2(op_weight(fc, e->u.call.args[1]), op_weight(fc, e->u.call.args[2]));
    break;
  }
  for (int i = 0; i < e->u.call.nargs; i++) w += op_weight(fc, e->u.call.args[i]);
  return w;
}

/* Weighted operations of an expression (subscripts excluded). */
static double op_weight(bool fc, const IrExpr *e) {
  if (!e) return 0;
  switch (e->kind) {
  case E_PAREN: return op_weight(fc, e->u.paren);
  case E_UNARY: return (e->u.unary.op == OP_NEG ? OPW_SIMPLE : 0) + op_weight(fc, e->u.unary.a);
  case E_BINARY: {
    IrFma fm;
    if (ir_contract_fma(e, fc, &fm)) /* ir/contract.h: one fused operation */
      return OPW_SIMPLE + op_weight(fc, fm.x) + op_weight(fc, fm.y) + op_weight(fc, fm.z);
    double w;
    switch (e->u.bin.op) {
    case OP_DIV: w = OPW_DIV; break;
    case OP_FLOORDIV: case OP_MOD: w = OPW_IDIV; break;
    case OP_POW: w = ir_pow_is_square(e) ? OPW_SIMPLE : OPW_POW; break; /* ir/strength.h */
    default: w = OPW_SIMPLE; break;
    }
    return w + op_weight(fc, e->u.bin.a) + op_weight(fc, e->u.bin.b);
  }
  case E_CMP: {
    double w = OPW_SIMPLE * (e->u.cmp.n - 1);
    for (int i = 0; i < e->u.cmp.n; i++) w += op_weight(fc, e->u.cmp.operand[i]);
    return w;
  }
  case E_CALL: return call_weight(fc, e);
  case E_INDEX: return OPW_SIMPLE; /* conversion of an index to a value */
  default: return 0;
  }
}

/* ------------------------------------------------------------ references */

typedef struct MRef {
  const IrRef *r;
  bool write;
  double elem;    /* bytes per element */
  double numel;   /* elements of the array as laid out */
  double *stride; /* per chain loop: mean byte step over the loop's range */
  double *lstride;/* per chain loop: byte step from index 0 to 1 */
  bool *scat;     /* per chain loop: scattered */
  CgPlace place;
} MRef;

typedef struct Walk {
  LeirCtx *ctx;  /* scratch context: arena for temporaries */
  const IrProgram *p;
  const CgPlan *plan;
  const CgKernel *k;
  IrLoop **chain;
  int depth;
  MRef *refs;
  int nrefs, cap;
  double prog_bytes; /* all the program's tensors */
  int nest;          /* the top-level nest walked */
  CostStmtFn fn;     /* cost_model_host_walk's callback, or NULL */
  void *user;
} Walk;

static void add_ref(Walk *w, const IrRef *r, bool write) {
  for (int i = 0; i < w->nrefs; i++)
    if (w->refs[i].r->tensor == r->tensor && ir_ref_same_subscript(w->refs[i].r, r)) {
      w->refs[i].write |= write;
      return;
    }
  if (w->nrefs == w->cap) {
    int nc = w->cap ? 2 * w->cap : 16;
    MRef *nv = arena_alloc(&w->ctx->arena, sizeof(MRef) * (size_t)nc);
    if (w->nrefs) memcpy(nv, w->refs, sizeof(MRef) * (size_t)w->nrefs);
    w->refs = nv;
    w->cap = nc;
  }
  MRef *m = &w->refs[w->nrefs++];
  memset(m, 0, sizeof *m);
  m->r = r;
  m->write = write;
  const IrTensor *t = r->tensor;
  const CgTensorInfo *ti = &w->plan->t[t->id];
  m->place = ti->place;
  m->elem = ir_dtype_size(t->dtype);
  const bool *keep = ti->place != PL_GLOBAL ? ti->keep : NULL;
  m->numel = (double)(ti->numel > 0 ? ti->numel : 1);
  m->stride = arena_alloc(&w->ctx->arena, sizeof(double) * (size_t)(w->depth + 1));
  m->lstride = arena_alloc(&w->ctx->arena, sizeof(double) * (size_t)(w->depth + 1));
  m->scat = arena_alloc(&w->ctx->arena, (size_t)w->depth + 1);
  for (int j = 0; j < w->depth; j++) {
    const IrLoop *l = w->chain[j];
    int64_t n = l->extent;
    double rs = 1, s = 0, ls = 0;
    bool sc = false;
    for (int d = t->rank - 1; d >= 0 && n > 1; d--) {
      if (d < r->nsub && (!keep || keep[d])) {
        int64_t v0, v1, vn;
        if (cg_eval_index(r->sub[d], l, 0, &v0) && cg_eval_index(r->sub[d], l, 1, &v1) &&
            cg_eval_index(r->sub[d], l, n - 1, &vn)) {
          s += (double)(vn - v0) / (double)(n - 1) * rs;
          ls += (double)(v1 - v0) * rs;
        } else if (mentions(r->sub[d], l)) {
          sc = true;
        }
      }
      if (!keep || keep[d]) rs *= (double)t->shape[d];
    }
    m->stride[j] = s * m->elem;
    m->lstride[j] = ls * m->elem;
    m->scat[j] = sc;
  }
}

static void collect_refs(Walk *w, const IrExpr *e) {
  if (!e) return;
  switch (e->kind) {
  case E_REF:
    add_ref(w, e->u.ref, false);
    for (int i = 0; i < e->u.ref->nsub; i++) collect_refs(w, e->u.ref->sub[i]);
    return;
  case E_PAREN: collect_refs(w, e->u.paren); return;
  case E_UNARY: collect_refs(w, e->u.unary.a); return;
  case E_BINARY: collect_refs(w, e->u.bin.a); collect_refs(w, e->u.bin.b); return;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) collect_refs(w, e->u.cmp.operand[i]);
    return;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) collect_refs(w, e->u.call.args[i]);
    return;
  default: return;
  }
}

/* The loops the traffic is counted over, in execution order: chain loop c
 * with `ext` iterations and steps `mul` times the chain loop's (a blocked
 * loop: the outer part of a loop of n split by k has ext n/k, mul k). */
typedef struct VLoop {
  int c;
  double ext, mul;
} VLoop;

static VLoop vloop(const Walk *w, int c) { return (VLoop){c, (double)w->chain[c]->extent, 1.0}; }

/* Distinct lines of reference m over the loops v[j..n-1]. */
static double distinct_lines(const MRef *m, const VLoop *v, int j, int n, double line) {
  double e = 1, smin = line;
  for (int i = j; i < n; i++) {
    int c = v[i].c;
    double ext = v[i].ext;
    double s = m->scat[c] ? line : fabs(m->stride[c]) * v[i].mul;
    if (s == 0) continue;
    e *= s < m->elem ? max2(1.0, ext * s / m->elem) : ext;
    smin = min2(smin, max2(s, m->elem));
  }
  e = min2(e, m->numel);
  double lines = max2(1.0, e * smin / line);
  return min2(lines, ceil(m->numel * m->elem / line) + 1);
}

/* Set conflicts: the lines a reference touches over the loops v[j..n-1]
 * are spaced by its smallest step; when that is a multiple of the line, a
 * cache of `sets` sets maps them to sets/gcd(sets, step/line) sets only, so
 * each line takes the room of gcd lines (power-of-two strides). */
static double conflict(const MRef *m, const VLoop *v, int j, int n, double line, double sets) {
  double smin = 0;
  for (int i = j; i < n; i++) {
    int c = v[i].c;
    if (m->scat[c]) return 1;
    double st = fabs(m->stride[c]) * v[i].mul;
    if (st != 0 && (smin == 0 || st < smin)) smin = st;
  }
  if (smin < line || sets <= 1 || fmod(smin, line) != 0) return 1;
  double a = sets, b = fmod(smin / line, sets);
  while (b > 0) {
    double t = fmod(a, b);
    a = b;
    b = t;
  }
  return a;
}

/* Lines fetched by reference r over the loops v[0..n-1] under the
 * cache-capacity footprint rule (see the header comment). */
static double fetched_lines(const Walk *w, int r, const VLoop *v, int n, double line, double cap, double sets,
                            bool (*counts)(const MRef *)) {
  double t = 1;
  for (int j = n - 1; j >= 0; j--) {
    double f = 0;
    for (int q = 0; q < w->nrefs; q++)
      if (counts(&w->refs[q]))
        f += distinct_lines(&w->refs[q], v, j + 1, n, line) * line * conflict(&w->refs[q], v, j + 1, n, line, sets);
    if (f <= cap) t = distinct_lines(&w->refs[r], v, j, n, line);
    else t *= v[j].ext;
  }
  return t;
}

static bool counts_all(const MRef *m) { (void)m; return true; }
static bool counts_global(const MRef *m) { return m->place == PL_GLOBAL; }

/* ------------------------------------------------------------ per statement */

typedef struct StmtCost {
  double iters, flops;
  /* host */
  double cycles, l2_bytes, l3_bytes, mem_bytes;
  double touch_bytes;       /* bytes moved into L1, cold caches */
  /* cuda */
  double thread_iters;      /* serial iterations per thread */
  double ops, nrefs_g, nrefs_s, nrefs_l;
  double warp_l2_bytes;     /* per warp */
  double useful_bytes;      /* per warp, global */
  double shared_cycles;     /* per warp */
  double g_fetch;           /* global elements fetched per thread */
  double g_trans;           /* global sector transactions per warp */
  double dram_bytes;        /* compulsory, whole launch */
  /* host, for cost_model_host_walk's terms */
  double vw, chain_lat, unrolled, loads, stores, walk_cycles;
  int li;
  bool jam;
} StmtCost;

static bool is_float_dt(IrDType t) { return ir_dtype_is_float(t); }

/* Is loop j vectorisable for a statement with left side lhs: the left side
 * moves one element along it, every reference has a step of 0 or one
 * element, and it has HOST_MIN_VEC iterations or more (or it is V). */
static bool vectorisable(const Walk *w, const MRef *lhs, int j) {
  const IrLoop *l = w->chain[j];
  if ((double)l->extent < HOST_MIN_VEC) return false;
  if (l->kind == LOOP_V) return true;
  if (lhs->scat[j] || lhs->lstride[j] == 0) return false;
  for (int i = 0; i < w->nrefs; i++) {
    double st = fabs(w->refs[i].lstride[j]);
    if (w->refs[i].scat[j] || (st != 0 && st != w->refs[i].elem)) return false;
  }
  return true;
}

static void host_stmt(Walk *w, const IrStmt *s, const IrNest *innermost_nest, StmtCost *c) {
  int d = w->depth;
  VLoop *sel = arena_alloc(&w->ctx->arena, sizeof(VLoop) * (size_t)(d + 2));
  int nsel = d;
  for (int j = 0; j < d; j++) sel[j] = vloop(w, j);
  const MRef *lhs = NULL;
  for (int i = 0; i < w->nrefs; i++)
    if (w->refs[i].r == s->lhs) lhs = &w->refs[i];
  double ops = op_weight(w->ctx->fp_contract, s->rhs);
  /* LLVM unrolls small constant innermost loops completely: the loops
   * inside li (HOST_FULL_UNROLL iterations at most in all) become the body
   * of li, the loop that is then vectorised or not.  The host's parallel
   * loop has run-time bounds and is never unrolled. */
  int li = d - 1;
  double r = 1;
  while (li >= 0 && r * (double)w->chain[li]->extent <= HOST_FULL_UNROLL && w->chain[li] != w->k->par &&
         !(lhs && vectorisable(w, lhs, li))) {
    r *= (double)w->chain[li]->extent;
    li--;
  }
  /* loads and stores per iteration: a reference invariant along the
   * unrolled loops is loaded (stored) once per iteration of li, one
   * invariant along li too stays in a register */
  double loads = 0, stores = 0;
  for (int i = 0; i < w->nrefs; i++) {
    const MRef *m = &w->refs[i];
    bool vu = false, vl = li < 0;
    for (int j = li + 1; j < d; j++) vu |= m->scat[j] || m->stride[j] != 0 || m->lstride[j] != 0;
    if (li >= 0) vl = m->scat[li] || m->stride[li] != 0 || m->lstride[li] != 0;
    double wgt = vu ? 1.0 : vl ? 1.0 / r : 0.0;
    if (m->write) stores += wgt;
    if (!m->write || s->self_ref) loads += wgt;
  }
  double vw = 1, chain_lat = 0;
  if (li >= 0 && lhs) {
    const IrLoop *in = w->chain[li];
    bool moves = !lhs->scat[li] && lhs->lstride[li] != 0;
    /* the code generator's unroll-and-jam (codegen/lower_loops.c jam_count) */
    bool jam = false;
    const IrNest *n = innermost_nest;
    if (!moves && li == d - 1 && d >= 2 && n && n->nloops >= 2 && n->loops[n->nloops - 1] == in &&
        n->loops[n->nloops - 2] == w->chain[li - 1] && w->chain[li - 1]->extent >= HOST_JAM_MIN) {
      jam = true;
      for (int i = 0; i < n->nitems && jam; i++) {
        if (n->items[i].kind != ITEM_STMT) { jam = false; break; }
        const IrStmt *t = n->items[i].u.stmt;
        bool uo = false, ui = false;
        for (int q = 0; q < t->lhs->nsub; q++) {
          uo |= mentions(t->lhs->sub[q], w->chain[li - 1]);
          ui |= mentions(t->lhs->sub[q], in);
        }
        jam = uo && !ui;
      }
    }
    double ext = (double)in->extent;
    if (vectorisable(w, lhs, li)) {
      vw = min2(HOST_VEC_BYTES / lhs->elem, ext);
      /* the unrolled loops run inside each vector step of li: count the
       * traffic with li innermost */
      for (int j = li; j < d - 1; j++) sel[j] = vloop(w, j + 1);
      if (li < d - 1) sel[d - 1] = vloop(w, li);
    } else if (jam) {
      bool unit2 = true;
      for (int i = 0; i < w->nrefs; i++) {
        double st = fabs(w->refs[i].lstride[li - 1]);
        if (w->refs[i].scat[li - 1] || (st != 0 && st != w->refs[i].elem)) unit2 = false;
      }
      vw = unit2 ? min2(HOST_VEC_BYTES / lhs->elem, 16.0) : 1.0;
    }
    /* a reduction chain along li (its left side does not move): one
     * dependent operation per iteration */
    if (!moves && s->self_ref)
      chain_lat = (is_float_dt(s->lhs->tensor->dtype) ? HOST_FP_LAT : 1.0) / (jam ? HOST_JAM : 1.0);
    /* jammed, the accesses run in blocks of HOST_JAM along the outer
     * loop: count the traffic over (outer / 16, inner, 16 of outer) */
    if (jam) {
      double no = (double)w->chain[d - 2]->extent;
      sel[d - 2] = (VLoop){d - 2, ceil(no / HOST_JAM), HOST_JAM};
      sel[d - 1] = vloop(w, d - 1);
      sel[d] = (VLoop){d - 2, HOST_JAM, 1.0};
      nsel = d + 1;
    }
  }
  double cyc = max2(max2(ops / HOST_ISSUE, loads / 2.0), max2(stores, li == d - 1 ? 1.0 : 0.0)) / max2(vw, 1.0);
  cyc = max2(cyc, chain_lat);
  c->vw = vw;
  c->chain_lat = chain_lat;
  c->unrolled = r;
  c->loads = loads;
  c->stores = stores;
  c->li = li;
  c->jam = nsel > d;
  c->cycles = c->iters * cyc;
  c->l2_bytes = c->l3_bytes = c->mem_bytes = 0;
  for (int i = 0; i < w->nrefs; i++) {
    double mult = w->refs[i].write ? 2.0 : 1.0;
    /* warm caches: the first touch of a line comes from the smallest level
     * that holds all the program's data */
    double first = distinct_lines(&w->refs[i], sel, 0, nsel, HOST_LINE);
    double f1 = fetched_lines(w, i, sel, nsel, HOST_LINE, HOST_L1, HOST_L1 / (8 * HOST_LINE), counts_all);
    double f2 = fetched_lines(w, i, sel, nsel, HOST_LINE, HOST_L2, HOST_L2 / (8 * HOST_LINE), counts_all);
    double f3 = fetched_lines(w, i, sel, nsel, HOST_LINE, HOST_L3, HOST_L3 / (16 * HOST_LINE), counts_all);
    c->touch_bytes += HOST_LINE * f1;
    c->l2_bytes += HOST_LINE * max2(0, f1 - first + (w->prog_bytes > HOST_L1 ? first : 0));
    c->l3_bytes += HOST_LINE * max2(0, f2 - first + (w->prog_bytes > HOST_L2 ? first : 0));
    c->mem_bytes += mult * HOST_LINE * max2(0, f3 - first + (w->prog_bytes > HOST_L3 ? first : 0));
    double walks = HOST_WALK * fetched_lines(w, i, sel, nsel, HOST_PAGE, HOST_TLB, 1, counts_all);
    c->cycles += walks;
    c->walk_cycles += walks;
  }
}

static void cuda_stmt(Walk *w, StmtCost *c) {
  const CgKernel *k = w->k;
  int d = w->depth;
  VLoop *ser = arena_alloc(&w->ctx->arena, sizeof(VLoop) * (size_t)(d + 1));
  VLoop *all = arena_alloc(&w->ctx->arena, sizeof(VLoop) * (size_t)(d + 1));
  int ns = 0, nk = 0, xi = -1;
  double ti = 1;
  for (int j = 0; j < d; j++) {
    const IrLoop *l = w->chain[j];
    bool host = false;
    for (int h = 0; h < k->nhost; h++) host |= k->nest->loops[h] == l;
    if (host) continue;
    all[nk++] = vloop(w, j); /* the loops of one launch */
    if (l->kind == LOOP_B && l->hw != HW_NONE) {
      if (l->hw == HW_TX) xi = j;
      continue;
    }
    ser[ns++] = vloop(w, j);
    ti *= (double)l->extent;
  }
  c->thread_iters = ti;
  c->ops = 0;
  c->nrefs_g = c->nrefs_s = c->nrefs_l = 0;
  c->warp_l2_bytes = c->useful_bytes = c->shared_cycles = c->dram_bytes = 0;
  double bx = (double)(k->block[0] > 0 ? k->block[0] : 1);
  double lanes = min2(GPU_WARP, bx);
  for (int i = 0; i < w->nrefs; i++) {
    const MRef *m = &w->refs[i];
    double mult = m->write ? 2.0 : 1.0;
    if (m->place == PL_LOCAL) {
      c->nrefs_l += 1;
      continue;
    }
    double per_thread = fetched_lines(w, i, ser, ns, m->elem, GPU_THREAD_CACHE, 1, counts_global);
    double sx = xi < 0 ? 0 : (m->scat[xi] ? -1 : fabs(m->lstride[xi]));
    if (m->place == PL_SHARED) {
      c->nrefs_s += 1;
      double words = sx < 0 ? 1 : sx / 4.0;
      double deg = 1;
      if (sx < 0) deg = 8; /* scattered: assume a bad conflict degree */
      else if (words >= 1) {
        long a = (long)words, b = 32;
        while (b) { long t = a % b; a = b; b = t; }
        deg = (double)a;
      }
      c->shared_cycles += per_thread * deg * lanes * max2(m->elem, 4.0) / GPU_SHARED_BW;
      continue;
    }
    c->nrefs_g += 1;
    c->g_fetch += per_thread;
    double sectors = sx == 0 ? 1 : sx < 0 ? lanes : min2(lanes, ceil(lanes * sx / GPU_SECTOR));
    sectors = max2(sectors, 1);
    c->g_trans += per_thread * sectors;
    double useful = sx == 0 ? min2(GPU_SECTOR, lanes * m->elem) : lanes * m->elem;
    c->warp_l2_bytes += mult * per_thread * sectors * GPU_SECTOR;
    c->useful_bytes += mult * per_thread * min2(useful, sectors * GPU_SECTOR);
    c->dram_bytes += mult * GPU_SECTOR * distinct_lines(m, all, 0, nk, GPU_SECTOR);
  }
}

/* The terms of one statement for cost_model_host_walk's callback. */
static void report_stmt(Walk *w, const IrStmt *s, const StmtCost *c, double ops) {
  CostStmtTerms t;
  memset(&t, 0, sizeof t);
  t.stmt = s;
  t.nest = w->nest;
  t.depth = w->depth;
  t.chain = w->chain;
  t.par = w->k->par;
  t.iters = c->iters;
  t.ops = ops;
  t.cycles = c->cycles;
  t.walk_cycles = c->walk_cycles;
  t.l2_bytes = c->l2_bytes;
  t.l3_bytes = c->l3_bytes;
  t.mem_bytes = c->mem_bytes;
  t.touch_bytes = c->touch_bytes;
  t.vector_width = c->vw;
  t.chain_latency = c->chain_lat;
  t.unrolled = c->unrolled;
  t.loads = c->loads;
  t.stores = c->stores;
  t.li = c->li;
  t.jammed = c->jam;
  t.nrefs = w->nrefs;
  for (int i = 0; i < w->nrefs && w->depth > 0; i++) {
    const MRef *m = &w->refs[i];
    t.elem_bytes = max2(t.elem_bytes, m->elem);
    for (int k = 0; k < 2; k++) {
      int j = k == 0 ? w->depth - 1 : c->li;
      if (j < 0) continue;
      double st = fabs(m->lstride[j]);
      if (m->scat[j]) t.refs_scattered[k]++;
      else if (st == 0) t.refs_zero[k]++;
      else if (st == m->elem) t.refs_unit[k]++;
      else if (st < HOST_LINE) t.refs_short[k]++;
      else t.refs_long[k]++;
    }
  }
  w->fn(w->user, &t);
}

/* ------------------------------------------------------------ the walk */

typedef struct NestAcc {
  /* host */
  double cycles, l2_bytes, l3_bytes, mem_bytes, touch_bytes, flops;
  /* cuda, per launch */
  double warp_instr, warp_chain, warp_l2, warp_useful, shared_cycles, dram;
  bool global_load;
} NestAcc;

static void walk_items(Walk *w, const IrNest *n, CostTarget t, NestAcc *acc);

static void walk_nest(Walk *w, const IrNest *n, CostTarget t, NestAcc *acc) {
  int d0 = w->depth;
  for (int i = 0; i < n->nloops; i++) w->chain[w->depth++] = n->loops[i];
  walk_items(w, n, t, acc);
  w->depth = d0;
}

static void walk_items(Walk *w, const IrNest *n, CostTarget t, NestAcc *acc) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      walk_nest(w, n->items[i].u.nest, t, acc);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    w->nrefs = 0;
    add_ref(w, s->lhs, true);
    for (int q = 0; q < s->lhs->nsub; q++) collect_refs(w, s->lhs->sub[q]);
    collect_refs(w, s->rhs);
    StmtCost c;
    memset(&c, 0, sizeof c);
    c.iters = 1;
    for (int j = 0; j < w->depth; j++) c.iters *= (double)w->chain[j]->extent;
    double ops = op_weight(w->ctx->fp_contract, s->rhs);
    c.flops = c.iters * ops;
    acc->flops += c.flops;
    if (t == COST_HOST) {
      host_stmt(w, s, n, &c);
      if (w->fn) report_stmt(w, s, &c, ops);
      acc->cycles += c.cycles;
      acc->l2_bytes += c.l2_bytes;
      acc->l3_bytes += c.l3_bytes;
      acc->touch_bytes += c.touch_bytes;
      acc->mem_bytes += c.mem_bytes;
    } else {
      cuda_stmt(w, &c);
      double per_iter = ops + c.nrefs_g + c.nrefs_s + c.nrefs_l + 2;
      acc->warp_instr += c.thread_iters * per_iter + c.g_trans;
      acc->warp_chain += c.thread_iters * (GPU_ALU_LAT * (ops + c.nrefs_l) + GPU_SHARED_LAT * c.nrefs_s) +
                         GPU_MEM_LAT * c.g_fetch / GPU_MLP + c.g_trans;
      acc->warp_l2 += c.warp_l2_bytes;
      acc->warp_useful += c.useful_bytes;
      acc->shared_cycles += c.shared_cycles;
      acc->dram += c.dram_bytes;
    }
  }
}

static int max_depth(const IrNest *n) {
  int m = 0;
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) {
      int x = max_depth(n->items[i].u.nest);
      m = x > m ? x : m;
    }
  return n->nloops + m;
}

/* ------------------------------------------------------------ the estimate */

/* The HOST terms of nest i: its cycles and the bytes each level moves. */
static void host_nest_acc(Walk *w, const IrProgram *p, int i, NestAcc *acc) {
  w->k = &w->plan->k[i];
  w->nest = i;
  memset(acc, 0, sizeof *acc);
  walk_nest(w, p->nests[i], COST_HOST, acc);
}

/* A nest's roofline time on p cores (p = 1: one thread): compute, L2 and
 * L3 divide by p, memory by min(p * 12, 30) / 12 (HOST_BW_MEM_*). */
static double host_nest_time_on(const NestAcc *acc, double p) {
  double bw = p > 1 ? min2(p * HOST_BW_MEM_CORE, HOST_BW_MEM_ALL) : HOST_BW_MEM_CORE;
  return max2(max2(acc->cycles / HOST_CLOCK / p, acc->l2_bytes / HOST_BW_L2 / p),
              max2(acc->l3_bytes / HOST_BW_L3 / p, acc->mem_bytes / bw));
}

/* Does the host JIT run nest i on the pool?  codegen/parallel.h's rule: a
 * parallel-safe outermost loop, and a second core would save CG_PAR_MIN_S
 * or more of the nest's time.  The one definition host.c decides by. */
static bool host_par(const Walk *w, const NestAcc *acc, int i) {
  return w->plan->k[i].par && w->plan->k[i].par->extent > 1 &&
         host_nest_time_on(acc, 1) - host_nest_time_on(acc, 2) >= CG_PAR_MIN_S;
}

static void estimate_host(Walk *w, const IrProgram *p, CostEstimate *out, bool *par_out) {
  double par_w = 0;
  for (int i = 0; i < p->nnests; i++) {
    const CgKernel *k = &w->plan->k[i];
    NestAcc acc;
    host_nest_acc(w, p, i, &acc);
    double pc = 1;
    bool par = host_par(w, &acc, i);
    if (par_out) par_out[i] = par;
    if (par) pc = min2(HOST_CORES, (double)k->par->extent);
    double tm = host_nest_time_on(&acc, pc) + (HOST_NEST_S + (pc > 1 ? HOST_PAR_S : 0));
    out->seconds += tm;
    out->flops += acc.flops;
    out->bytes += acc.touch_bytes;
    par_w += tm * pc;
  }
  out->parallelism = out->seconds > 0 ? par_w / out->seconds : 1;
  out->coalescing = 1;
  out->occupancy = 1;
}

static void estimate_cuda(Walk *w, const IrProgram *p, int gpu_sm, CostEstimate *out) {
  GpuArch a = gpu_arch(gpu_sm);
  double par_w = 0, coal_w = 0, coal_t = 0, occ_w = 0;
  for (int i = 0; i < p->nnests; i++) {
    const CgKernel *k = &w->plan->k[i];
    w->k = k;
    NestAcc acc;
    memset(&acc, 0, sizeof acc);
    walk_nest(w, p->nests[i], COST_CUDA, &acc);
    double launches = 1;
    for (int h = 0; h < k->nhost; h++) launches *= (double)k->nest->loops[h]->extent;
    double blocks = (double)(k->grid[0] * k->grid[1] * k->grid[2]);
    double bthreads = (double)(k->block[0] * k->block[1] * k->block[2]);
    if (blocks < 1) blocks = 1;
    if (bthreads < 1) bthreads = 1;
    double wpb = ceil(bthreads / GPU_WARP);
    double shmem = (double)k->scratch_bytes;
    for (int t = 0; t < p->ntensors; t++) {
      const CgTensorInfo *ti = &w->plan->t[t];
      if (ti->place == PL_SHARED && ti->kernel == i) shmem += (double)ti->numel * ir_dtype_size(p->tensors[t]->dtype);
    }
    double rb = min2(GPU_MAX_BLOCKS_SM, floor(GPU_MAX_WARPS_SM / wpb));
    if (shmem > 0) rb = min2(rb, floor(a.shared_sm / shmem));
    rb = max2(rb, 1);
    double active_sms = min2(a.sms, blocks);
    double blocks_sm = ceil(blocks / a.sms);
    double res_blocks = min2(rb, blocks_sm);
    double res_warps = res_blocks * wpb;
    double occ = res_warps / GPU_MAX_WARPS_SM;
    double waves = ceil(blocks_sm / res_blocks);
    double warps = blocks * wpb;
    double issue = warps * acc.warp_instr / (GPU_SCHED * active_sms);
    double lat = waves * acc.warp_chain;
    double shared = blocks_sm * wpb * acc.shared_cycles;
    if (k->nred) lat += waves * log2(bthreads > 1 ? bthreads : 2) * GPU_RED_STEP;
    double cyc = max2(max2(issue, lat), shared);
    double l2 = warps * acc.warp_l2;
    double gfoot = 0;
    for (int q = 0; q < k->ntens; q++) {
      const IrTensor *gt = p->tensors[k->tens[q]];
      gfoot += (double)ir_tensor_numel(gt) * ir_dtype_size(gt->dtype);
    }
    double dram = min2(acc.dram, l2);
    if (gfoot > a.l2 && l2 > dram) dram += (l2 - dram) * (1 - a.l2 / gfoot);
    double bw_share = min2(1.0, res_warps * active_sms / (GPU_BW_WARPS * a.sms));
    double mem = max2(dram / (a.hbm_bw * bw_share), l2 / a.l2_bw);
    double tk = max2(cyc / a.clock, mem) + GPU_LAUNCH_S;
    tk *= launches;
    out->seconds += tk;
    out->flops += acc.flops;
    out->bytes += dram * launches;
    par_w += tk * blocks * bthreads;
    occ_w += tk * occ;
    if (acc.warp_l2 > 0) {
      coal_w += warps * launches * acc.warp_useful;
      coal_t += warps * launches * acc.warp_l2;
    }
  }
  if (out->seconds > 0) {
    out->parallelism = par_w / out->seconds;
    out->occupancy = occ_w / out->seconds;
  }
  out->coalescing = coal_t > 0 ? min2(1.0, coal_w / coal_t) : 1.0;
}

static bool estimate(LeirCtx *ctx, const IrProgram *p, CostTarget t, int gpu_sm, CostEstimate *out, bool *par_out,
                     CostStmtFn fn, void *user) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < p->ntensors; i++)
    if (!p->tensors[i]->shape_known || p->tensors[i]->rank < 0) {
      diag_error(ctx, p->tensors[i]->loc, "cannot estimate the cost: the shape of '%s' is unknown",
                 p->tensors[i]->name);
      return false;
    }
  /* The plan's own diagnostics (demotion warnings, GPU limits) go to a
   * scratch context; on failure they are passed on as they are. */
  LeirCtx sc;
  leir_ctx_init(&sc);
  sc.src = ctx->src;
  sc.quiet_caret = ctx->quiet_caret;
  sc.unsafe_math = ctx->unsafe_math;
  sc.fp_contract = ctx->fp_contract;
  LeirDiagList kept = {0};
  sc.diag_out = NULL;
  sc.capture = &kept;
  CgPlan plan;
  bool ok = cg_plan_build(&sc, p, t == COST_CUDA ? CG_TARGET_NVPTX : CG_TARGET_HOST, &plan);
  if (!ok) {
    diag_replay(ctx, &kept);
    ctx->nerrors += sc.nerrors > 0 ? sc.nerrors : 1;
    diag_list_clear(&kept);
    leir_ctx_free(&sc);
    return false;
  }
  diag_list_clear(&kept);
  int md = 0;
  for (int i = 0; i < p->nnests; i++) {
    int x = max_depth(p->nests[i]);
    md = x > md ? x : md;
  }
  Walk w;
  memset(&w, 0, sizeof w);
  w.ctx = &sc;
  w.p = p;
  w.plan = &plan;
  w.fn = fn;
  w.user = user;
  w.chain = arena_alloc(&sc.arena, sizeof(IrLoop *) * (size_t)(md + 1));
  for (int i = 0; i < p->ntensors; i++)
    w.prog_bytes += (double)ir_tensor_numel(p->tensors[i]) * ir_dtype_size(p->tensors[i]->dtype);
  if (t == COST_HOST) estimate_host(&w, p, out, par_out);
  else estimate_cuda(&w, p, gpu_sm, out);
  leir_ctx_free(&sc);
  return true;
}

bool cost_model_estimate(LeirCtx *ctx, const IrProgram *p, CostTarget t, int gpu_sm, CostEstimate *out) {
  return estimate(ctx, p, t, gpu_sm, out, NULL, NULL, NULL);
}

bool cost_model_host_par(LeirCtx *ctx, const IrProgram *p, bool *par) {
  CostEstimate e;
  for (int i = 0; i < p->nnests; i++) par[i] = false;
  return estimate(ctx, p, COST_HOST, 0, &e, par, NULL, NULL);
}

bool cost_model_host_walk(LeirCtx *ctx, const IrProgram *p, CostEstimate *out, bool *par, CostStmtFn fn,
                          void *user) {
  if (par)
    for (int i = 0; i < p->nnests; i++) par[i] = false;
  return estimate(ctx, p, COST_HOST, 0, out, par, fn, user);
}

double cost_expr_ops(const IrExpr *e, bool fp_contract) { return op_weight(fp_contract, e); }

bool cost_model_step_cost(void *user, LeirCtx *ctx, const IrProgram *q, double *cost) {
  const CostStepTarget *t = user;
  CostEstimate e;
  if (!cost_model_estimate(ctx, q, t->target, t->gpu_sm, &e)) return false;
  *cost = e.seconds;
  return true;
}
