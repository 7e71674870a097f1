/* interp.h -- the reference interpreter of LEIR (SPEC §9, §13.3): the oracle
 * every back end and every pass is checked against.
 *
 * Use:
 *   InterpProg *ip = interp_new(ctx, prog, &opts);    compile (NULL after a
 *                                                       diagnostic)
 *   fill the inputs (interp/data.h, or interp_buf()->data directly)
 *   interp_run(ip)                                     false after a diagnostic
 *   read the outputs (interp_buf)
 *   interp_free(ip)
 * A compiled program can be run again with other inputs; every run starts
 * by resetting outputs and intermediates (zero bytes, or the poison pattern).
 *
 * HOW IT RUNS.  interp_new compiles the analysed IR (ir_sema done) into one
 * flat register bytecode (interp/vm.h): a loop is one NEXT instruction after
 * its body, each affine subscript becomes one flattened offset register that
 * the NEXT instructions update by constant increments (no per-element
 * address arithmetic), literals become constant registers, every node of
 * the right side becomes one typed instruction, and a peephole pass fuses
 * load-multiply-accumulate statements into single instructions.  No
 * allocation happens while the program runs (except the partial sums of
 * tree-mode reductions, grown on first use).
 *
 * SEMANTICS (the contract every back end reproduces bit for bit):
 *  - Order: SPEC §9.1.  Nests in text order; loops 0..N-1 in order for every
 *    loop kind; body items in order; a nested nest (also the continuation
 *    form) runs completely at its position.
 *  - Types: every node is computed in its type set by sema (IrExpr.type):
 *    operands are converted from their own types, the right side is
 *    converted to the statement (left tensor) type at the store.
 *  - Conversions: int -> int wraps (two's complement); int -> float rounds to
 *    nearest even (C); float -> int truncates toward zero and SATURATES to
 *    the target range, NaN -> 0 (what PTX cvt.rzi does); a value stored
 *    into a bool tensor is `x != 0`, except NaN -> 0 like every float ->
 *    integer conversion (a truth test in a condition, `if_then_else(x,..)`,
 *    takes NaN as true); bool -> number is 0/1.  f64 -> f16/bf16 and
 *    int -> f16/bf16 go through f32 (two roundings: (float)x, then
 *    leir_f32_to_f16/bf16).
 *  - f16/bf16: values are held in f32; each operation is done in f32 and
 *    rounded once to f16/bf16 (leir_round_f16/bf16), including a whole `//`
 *    or `%` and each call of exp/log/erf/sqrt/pow/abs.
 *  - Floating point: IEEE binary32/64, round to nearest even, no FMA
 *    contraction, no flush to zero.  `/` IEEE division; `a // b` is
 *    floor(a / b) (the rounded quotient, then floor); `a % b` is
 *    a - floor(a / b) * b with each of the three operations rounded.
 *    sqrt is the correctly rounded C sqrt/sqrtf; exp, log, erf and `**` are
 *    leir_exp/log/erf/pow (ir/mathlib.h) in the node type, never libm's.
 *    abs clears the sign bit.  max/min (IEEE 754-2019 maximumNumber /
 *    minimumNumber): if exactly one operand is NaN the other is returned,
 *    if both are NaN the second is returned, -0 < +0 (max(-0,+0) = +0,
 *    min(-0,+0) = -0), otherwise the larger/smaller; max/min with more
 *    than two arguments fold left.
 *  - Integers: + - * ** and unary - wrap (computed in unsigned 64-bit
 *    arithmetic, then wrapped to the node type).  `/` truncates (C); `//`
 *    and `%` are floor division and floor modulo (Python: the remainder
 *    has the sign of the divisor).  Division or modulo by zero gives 0;
 *    INT_MIN / -1 wraps to INT_MIN (and its remainder is 0).  abs(INT_MIN)
 *    is INT_MIN.  `x ** n` with an integer node type: repeated squaring with
 *    wrap-around for n >= 0; for n < 0 the result is 1 if x == 1, (-1)^n if
 *    x == -1, else 0.
 *  - Comparisons compare both operands converted to the usual type of the
 *    pair; a chain a<b<c is evaluated left to right and stops at the first
 *    false link (Python).  `&` and `|` are logical and short-circuit; their
 *    operands are tested as `x != 0`.  Index values are i64 inside subscripts
 *    and inside the condition of an if_then_else, else the statement type.
 *  - if_then_else is lazy: only the chosen branch is evaluated (so a guarded
 *    out-of-range read is never performed).
 *  - Implicit initialisation (SPEC §9.5): for a statement with
 *    IrStmt.init == INIT_REDUCE, before each execution of the update, when
 *    every reduction index (IrStmt.red) is 0 -- or always when there is none
 *    (nred == 0) -- the left element is set to IrStmt.identity converted to
 *    the statement type (so +-inf becomes the dtype's max/min for integers).
 *  - Reductions over threadIdx-bound indices (SPEC §13.3), "tree mode".  A
 *    statement `T[s] = rhs` is in tree mode when BOTH hold:
 *      (1) rhs (parentheses around it ignored) is `T[s] (+|-|*) E` (the root
 *          binary node, its left operand -- parentheses ignored -- a
 *          reference to T whose subscript is textually the left subscript)
 *          or `max(T[s], E)` / `min(T[s], E)` with exactly two arguments,
 *          and E does not mention T;
 *      (2) one of its reduction indices -- the loops whose index occurs in
 *          the statement (anywhere, also inside nested reads) but not in
 *          its left subscript -- is a B loop bound to threadIdx.x/y/z
 *          (index name t[xyz]...).  This holds for INIT_REDUCE and for
 *          INIT_NONE statements alike.
 *    Let Lt be the outermost such thread-bound reduction loop, and N the
 *    product of the extents of all thread-bound reduction loops; a thread's
 *    number t is the mixed-radix value of their indices (outermost slowest).
 *    Let ⊕ be the root operator and NT the root node's type.  One run of
 *    Lt (all its iterations, and everything inside it) is one "instance":
 *      - each execution of the statement in the instance evaluates E,
 *        converts it to NT and folds it into the partial v[e][t] of its
 *        left element e and thread t: v = v ⊕ E (for `-`: v = v - E).  A
 *        partial starts at the identity of ⊕ in NT (0 for + and -, 1 for *,
 *        -inf / +inf for float max / min, the dtype's min / max for integer
 *        max / min), so v[e][t] = ((id ⊕ E1) ⊕ E2) ... in loop order;
 *      - the §9.5 identity store (INIT_REDUCE) happens as in sequential
 *        order, into T[e] itself;
 *      - when Lt completes, for each element e touched in the instance, in
 *        order of first touch: for k = 0, 1, ... while 2^k < N, for every t
 *        with t mod 2^(k+1) = 0 and t + 2^k < N: v[t] = v[t] ⊕' v[t+2^k],
 *        where ⊕' is ⊕ except that `-` combines with `+`; then
 *        T[e] = convert(T[e] in NT ⊕' v[0]) to the statement type.
 *    Any other statement, including one whose thread-bound reduction does
 *    not have form (1), and reductions over blockIdx-bound or ordinary
 *    loops, runs in plain sequential order.  A read of T[e] by another
 *    statement inside the instance sees T[e] before the flush (such a read
 *    is a race by SPEC §9.8 anyway).
 *  - Out-of-bounds: every read and write is checked against the tensor's
 *    shape, dimension by dimension (statically where the subscript is affine
 *    and provably in range, else at run time).  A violation stops the run
 *    with `file:line:col: error: out-of-bounds read|write of T[i,j]: shape
 *    is [m,n] (at idx=v, ...)` at the statement's location, and a note at
 *    the reference.
 *  - Fresh outputs and intermediates hold zero bytes, or with `poison` the
 *    pattern 0x7FA5A5A5 (f32), 0x7FF4A5A5A5A5A5A5 (f64), 0x7CAA (f16),
 *    0x7FA5 (bf16) -- signalling NaNs -- and 0xAA bytes for integers and
 *    bool; after a poisoned run, outputs that still hold the pattern get a
 *    warning naming how many elements were never written.
 *  - Work limit: a run stops with an error after max_steps statement
 *    executions (0 = no limit).
 */
#ifndef LEIR_INTERP_INTERP_H
#define LEIR_INTERP_INTERP_H

#include "ir/ir.h"

/* Default for InterpOptions.max_steps and --max-steps: 10^11. */
#define INTERP_DEFAULT_MAX_STEPS 100000000000ull
/* Tensors larger than this many bytes are refused (2^36 = 64 GiB). */
#define INTERP_MAX_TENSOR_BYTES ((int64_t)1 << 36)

/* Freed tensor buffers kept for reuse (interp_pool_free frees them): an
 * InterpProg made by interp_new_pooled takes a buffer of the same size
 * from it (zeroed, as a fresh one, unless dirty_ok says otherwise) and gives its buffers back to it when
 * freed, so that a series of programs with tensors of the same sizes (the
 * candidates of one program, leirc --emit-steps) reuses memory instead of
 * mapping and faulting in fresh pages for every run.  Not thread-safe: one
 * pool per thread. */
typedef struct InterpBufPool {
  void **data;
  size_t *nbytes;
  int n, cap;
  long reused; /* buffers taken from the pool */
  /* Set by the user: at most this many bytes wait in the pool (0: no
     limit); the oldest buffers go first. */
  size_t max_bytes;
  size_t bytes; /* bytes waiting now */
  /* Set by the user around interp_new_pooled (NULL: none): per tensor id
     of the program being made, 1 where a buffer taken from the pool may
     keep its old bytes instead of being zeroed (and a fresh one, when the
     pool has none, is not zeroed either: ir_buffer_alloc_uninit), because the caller's run
     overwrites every element before it reads one (cg_written_first), or
     the caller copies every byte over it, or nothing reads it. */
  const unsigned char *dirty_ok;
  /* Set by the user (a check, leirc's LEIRC_POOL_POISON): the buffers
     dirty_ok marks, from the pool or fresh, are filled with 0xFF bytes
     (NaN in every float type, -1 in signed integers) when taken, so that
     a run whose results depend on what dirty_ok lets them hold shows it. */
  bool poison_dirty;
} InterpBufPool;
void interp_pool_free(InterpBufPool *pool);

typedef struct InterpOptions {
  bool poison;        /* poison-fill outputs and intermediates before a run */
  uint64_t max_steps; /* 0 = no limit */
} InterpOptions;

/* One tensor's storage: numel elements of ir_dtype_size(t->dtype) bytes,
 * row-major, host byte order; f16 and bf16 are stored as their 16-bit
 * patterns, bool as one byte 0/1. */
typedef struct InterpBuf {
  const IrTensor *t;
  void *data;
  int64_t numel;
  size_t nbytes;
  bool mapped; /* data is a private mapping of a file (interp_buf_map) */
} InterpBuf;

typedef struct InterpProg InterpProg;

/* Compiles `p` (analysed by ir_sema) and allocates its tensors.  Diagnostics
 * go to ctx; NULL on error (e.g. a tensor too large).  opts may be NULL
 * (defaults: no poison, INTERP_DEFAULT_MAX_STEPS).  `p` must outlive the
 * result. */
InterpProg *interp_new(LeirCtx *ctx, const IrProgram *p, const InterpOptions *opts);
/* interp_new with its buffers taken from `pool` where it has one of the
 * size, and given back to it by interp_free (NULL: interp_new). */
InterpProg *interp_new_pooled(LeirCtx *ctx, const IrProgram *p, const InterpOptions *opts, InterpBufPool *pool);
/* interp_new with the buffers that dirty_ok marks (per tensor id; NULL:
 * none) not zeroed (ir_buffer_alloc_uninit), for a caller that fills them
 * before anything reads them; with poison, filled with 0xFF bytes instead
 * (InterpBufPool.poison_dirty: a check of that). */
InterpProg *interp_new_uninit(LeirCtx *ctx, const IrProgram *p, const InterpOptions *opts,
                              const unsigned char *dirty_ok, bool poison);
void interp_free(InterpProg *ip);

/* Replaces the buffer of tensor i by a private mapping of the file fd's
 * bytes [off, off + nbytes) (off a multiple of the page size, and 64 bytes
 * aligned as every buffer): a read of the buffer reads the file's pages (in
 * the page cache, mapped when first touched: no copy, no zeroed page), a
 * write changes this buffer only (copy on write); interp_free unmaps it and
 * a pool never takes it.  The file must not be cut short while the mapping
 * lives (a read past its end would raise SIGBUS): a file is replaced by
 * rename(2), which leaves the mapped one in place.  False when it cannot be
 * mapped (the buffer is then unchanged). */
bool interp_buf_map(InterpProg *ip, int i, int fd, int64_t off);

/* Buffers, indexed like p->tensors (IrTensor.id), or by name (NULL if none). */
int interp_ntensors(const InterpProg *ip);
InterpBuf *interp_buf(InterpProg *ip, int tensor_id);
InterpBuf *interp_find(InterpProg *ip, const char *name);
const IrProgram *interp_program(const InterpProg *ip);
LeirCtx *interp_ctx(const InterpProg *ip);

/* Runs the program once on the current contents of the input buffers.
 * Returns false after an error diagnostic (out of bounds, work limit). */
bool interp_run(InterpProg *ip);

/* Marks tensors (kept[id] != 0, indexed like p->tensors; NULL: none) whose
 * contents the following runs keep instead of resetting them: the caller
 * has filled them (a program run from the middle of a longer one on the
 * values its first part left, driver/incr.c).  The array must outlive
 * the runs.  interp_kept tells whether tensor id is kept. */
void interp_set_kept(InterpProg *ip, const unsigned char *kept);
bool interp_kept(const InterpProg *ip, int tensor_id);

/* Statement executions of the last run. */
uint64_t interp_steps(const InterpProg *ip);

/* Number of statements that run in tree mode (see above). */
int interp_ntree_stmts(const InterpProg *ip);

/* Prints the bytecode (one instruction a line) -- for debugging. */
void interp_dump(const InterpProg *ip, FILE *f);

#endif /* LEIR_INTERP_INTERP_H */
