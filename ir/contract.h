/* contract.h -- floating-point contraction, `--fp-contract=on` (issue 41
 * item 5): one rule that the interpreter (interp/compile.c), the LLVM back
 * ends (host JIT and PTX, codegen/lower.c), the CUDA C emitter and the cost
 * model all ask, so that within one mode every back end computes the same
 * bits (SPEC §13.3) and the model prices what runs.  The mode is
 * LeirCtx.fp_contract (default off: SPEC §13.3's one rounding per operation).
 *
 * Rule (mode on).  An E_BINARY `+` or `-` of type f32 or f64 is computed as
 * ONE fused multiply-add, rounded once in its type, when one of its operands
 * -- parentheses around it ignored -- is an E_BINARY `*` of the same type.
 * The LEFT operand is tried first:
 *     (x*y) + z  ->  fma(x, y, z)        (x*y) - z  ->  fma(x, y, -z)
 *      z + (x*y) ->  fma(x, y, z)         z - (x*y) ->  fma(-x, y, z)
 * x, y and z are converted to the node's type first, exactly as without the
 * rule; negation is exact, so each form is the exactly rounded x*y +- z.
 * Only the `*` node directly below the `+`/`-` is absorbed (a*b*c + d fuses
 * the outer `*` only); `x ** 2` (ir/strength.h) is not a `*` and is not
 * fused.  f16 and bf16 never fuse (their arithmetic is f32 then a rounding;
 * a fused form would round twice differently from the unfused one and gains
 * nothing), and neither do integers.
 *
 * Reductions.  A sequential accumulation `X = X + a*b` (matmul's form) is an
 * ordinary `+` node and fuses: X = fma(a, b, X).  A statement in tree mode
 * (interp/interp.h, codegen/reduce.c: a reduction over a thread-bound index)
 * folds E into its partials with the plain operator: v = v + E, E = a*b
 * rounded on its own; E itself is evaluated under the rule (E = a*b + c
 * fuses).  Every back end evaluates the tree this way.
 *
 * Results with the mode on differ from results with it off (that is the
 * point): a program fused against itself unfused is class T, never
 * bit-equal (testsuite/unit/codegen_test.c, test_fp_contract_compare: the
 * reference's acceptance rule, --tolerance=reference; STRATEGIES §0.4's
 * elementwise rtol can reject a sum with cancellation).  Within one mode,
 * --verify, --compare, --tune and --emit-steps run both sides in that mode
 * (LeirCtx.fp_contract), so class E stays bit-equal.
 */
#ifndef LEIR_IR_CONTRACT_H
#define LEIR_IR_CONTRACT_H

#include "ir/ir.h"

/* fma(neg_x ? -x : x, y, neg_z ? -z : z) in the node's type; x, y, z are
 * converted to it from their own types. */
typedef struct IrFma {
  const IrExpr *x, *y, *z;
  bool neg_x, neg_z;
} IrFma;

/* Is e computed as one fused multiply-add when contraction is `on`?  Fills
 * *out (may be NULL) when it is. */
bool ir_contract_fma(const IrExpr *e, bool on, IrFma *out);

#endif /* LEIR_IR_CONTRACT_H */
