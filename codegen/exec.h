/* exec.h -- rewrites of a program for its verification runs on the host
 * JIT (issue 61): what `--eval` with execution, `--check-step` and
 * `--emit-steps` run to compare outputs, never what is timed or what
 * `--run` runs (cg_run_host_interp_exec, codegen/host_interp.c).  Each
 * rewrite gives the same bits for every tensor its contract names; each
 * file proves its rule legal in its header.
 *
 * A rewritten program shares the original's tensors (the same ids: the
 * slots of the interpreter's buffers) and statement ids (p->stmts[id] is
 * the statement of the new nests with that id, the lowering's lookups by
 * id); its new nests, statements and expressions are in ctx's arena, and
 * the original is never changed.  Both functions return p itself when
 * nothing applies. */
#ifndef LEIR_CODEGEN_EXEC_H
#define LEIR_CODEGEN_EXEC_H

#include <stdbool.h>

#include "ir/ir.h"

/* Rule 1 (codegen/exec_once.c): in a top-level nest whose statements read
 * no tensor that the nest writes, write each tensor from one statement
 * only, and stay in bounds, a loop whose index a statement never mentions
 * runs once for that statement (the nest is split into one nest per
 * statement when its statements do not all mention the same loops).
 * Every tensor's final bytes are the original's.  *nloops (may be NULL)
 * gets the number of loops set to extent 1. */
const IrProgram *cg_exec_once(LeirCtx *ctx, const IrProgram *p, int *nloops);

/* Rule 2 (codegen/exec_inline.c): a temporary T written by exactly one
 * statement, a pure elementwise map over T's whole shape alone in its
 * nest, and read exactly once by a later statement, is replaced there by
 * the map's right side, and its nest dropped.  Only tensors that live[id]
 * marks (the outputs, and whatever the caller reads after the run) keep
 * their final bytes; dropped[id] (ntensors entries, may be NULL) is set
 * for each T no longer written or read.  Same bits only without FMA
 * contraction: p is returned unchanged under ctx->fp_contract or
 * ctx->unsafe_math.  *ninlined (may be NULL) gets the count of T. */
const IrProgram *cg_exec_inline(LeirCtx *ctx, const IrProgram *p, const unsigned char *live, unsigned char *dropped,
                                int *ninlined);

/* ------------------------------------------------ what both rules share */

/* A substitution for cg_exec_clone: each E_INDEX bound to from[i] becomes
 * an index bound to to_loop[i] (when non-NULL) or a copy of to_expr[i];
 * the E_REF whose reference is `ref` becomes `with` (not copied). */
typedef struct CgExecSubst {
  int n;
  IrLoop *const *from;
  IrLoop *const *to_loop;
  const IrExpr *const *to_expr;
  const IrRef *ref;
  IrExpr *with;
} CgExecSubst;

/* A deep copy of e in ctx's arena with s applied (s may be NULL); unlike
 * ir_expr_clone, it keeps every index's loop and every reference's tensor
 * and the types sema set. */
IrExpr *cg_exec_clone(LeirCtx *ctx, const IrExpr *e, const CgExecSubst *s);

/* Is every reference of s (left side, nested reads included) proved in
 * bounds, and s free of integer division and remainder (so that s cannot
 * stop a run, whatever its order or count of executions)? */
bool cg_exec_stmt_safe(const IrStmt *s);

/* Does e mention loop l's index (anywhere, subscripts included)? */
bool cg_exec_mentions(const IrExpr *e, const IrLoop *l);

#endif
