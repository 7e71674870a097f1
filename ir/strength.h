/* strength.h -- strength reduction that keeps every bit (issue 41): one rule
 * set that the interpreter (interp/compile.c), the LLVM back ends (host JIT
 * and PTX, codegen/lower.c), the CUDA C emitter and the cost model all ask,
 * so that every back end computes the same bits and the model prices what
 * runs.
 *
 * Rules:
 *  - `x ** 2` in f32, f16 or bf16 (the exponent a literal equal to 2) is
 *    `x * x` in that type.  Exact: SPEC §13.3 computes the f32 power in f64
 *    and rounds once; the f64 square of an f32 (or f16/bf16) value is exact
 *    (at most 48 significant bits, far inside f64's range), so rounding it
 *    once to f32 is the correctly rounded f32 product, which is what the
 *    f32 multiply gives; f16/bf16 then round the same f32 value alike.
 *    Zeros, infinities and quiet NaNs give the same results both ways (a
 *    signalling NaN input comes back quieted).  Not applied in f64: leirc's
 *    f64 pow leaves its integer-power path outside [2^-900, 2^900].
 */
#ifndef LEIR_IR_STRENGTH_H
#define LEIR_IR_STRENGTH_H

#include "ir/ir.h"

/* Is e (an E_BINARY `**`) computed as its left operand times itself? */
bool ir_pow_is_square(const IrExpr *e);

#endif /* LEIR_IR_STRENGTH_H */
