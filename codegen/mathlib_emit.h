/* mathlib_emit.h -- LLVM IR for leirc's own math routines (SPEC §13.3).
 *
 * The functions emitted here perform exactly the IEEE operations of
 * ir/mathlib.c, in the same order (the contract is the comment at the top of
 * that file), so the host JIT and the PTX back end agree bit for bit with
 * the interpreter.  No fast-math flags are used; fma is llvm.fma.*.  The
 * emitted functions have internal linkage, no side effects and may be
 * inlined.  Every getter adds the definition once per module; later calls
 * return the existing function.
 */
#ifndef LEIR_CODEGEN_MATHLIB_EMIT_H
#define LEIR_CODEGEN_MATHLIB_EMIT_H

#include <llvm-c/Core.h>

/* which: "exp", "log", "erf" (T(T)) or "pow" (T(T,T)); ty: the float or
   double type of M's context.  Names: leir.exp, leir.expf, ...  Returns
   NULL for an unknown name or type. */
LLVMValueRef cg_math_get(LLVMModuleRef M, const char *which, LLVMTypeRef ty);

/* float(float): leir_powf(x, n) for a constant integer n, 1 <= |n| <= 6
   (leir.powf.i<n>), the same bits as the "pow" routine: for n = -1, 1, 2, 3
   the f32 operations 1/x, x, x*x, x*(x*x) (its integer path; the argument
   is at the definition), for other n the routine with the constant folded
   in.  NULL for another n. */
LLVMValueRef cg_math_get_powi_f32(LLVMModuleRef M, int n);

/* <lanes x float>(<lanes x float>): leir.erff on 8 (AVX) or 16 lanes
   (AVX-512F), leir.erff.v8 / leir.erff.v16, the same bits as "erf" for f32
   in every lane (the same operations; the table entries fetched by the
   lane-crossing permute vpermps instead of selects).  For the loop vectoriser:
   the VFABI variants of leir.erff (codegen/lower.c).  NULL for other lanes. */
LLVMValueRef cg_math_get_erff_vec(LLVMModuleRef M, int lanes);

/* <lanes x double>(<lanes x double>, <lanes x double>): leir.pow on 4, 8
   or 16 lanes, leir.pow.v4 / v8 / v16 (v16: the host's math loops,
   codegen/lower_loops.c math_width), and for lanes = 1 the scalar
   double(double, double) leir.pow.lazy: the same bits as "pow" for f64 in
   every lane, the same operations, but computing the integer path only
   when some lane needs it, and the general path likewise, branching on
   any lane (for a constant exponent "pow", without branches, folds better).
   For the loop vectoriser: the scalar routine and its VFABI variants
   (codegen/lower.c).  NULL for other lanes. */
LLVMValueRef cg_math_get_pow_vec(LLVMModuleRef M, int lanes);

/* <lanes x double>(<lanes x double>): leir.log on 4, 8 or 16 lanes,
   leir.log.v4 / v8 / v16, the same bits as "log" for f64 in every lane,
   with a branch to fewer operations when every lane is a normal positive
   finite x (the proof at the definition).  For the loop vectoriser: the
   VFABI variants of leir.log (codegen/lower.c).  NULL for other lanes. */
LLVMValueRef cg_math_get_log_vec(LLVMModuleRef M, int lanes);

/* <lanes x float>(<lanes x float>): leir.expf.v8 (leir_expf's operations
   on 8 lanes) and leir.expf.v16 (AVX-512F: vscalefps for the scaling by
   2^k, the same values; the proof is at the definition), the same bits as
   "exp" for f32 in every lane.  The host JIT's VFABI variants of leir.expf
   on AVX-512 machines (codegen/lower.c).  NULL for other lanes. */
LLVMValueRef cg_math_get_expf_vec(LLVMModuleRef M, int lanes);

/* float(float): x rounded through binary16 (is_bf16 = 0) or bfloat16
   (leir.round_f16 / leir.round_bf16, = leir_round_f16 / leir_round_bf16). */
LLVMValueRef cg_math_get_round16(LLVMModuleRef M, int is_bf16);

/* Storage conversions, = leir_f32_to_f16 ... leir_bf16_to_f32:
   to_16 != 0: i16(float) (leir.f32_to_f16 / leir.f32_to_bf16);
   to_16 == 0: float(i16) (leir.f16_to_f32 / leir.bf16_to_f32). */
LLVMValueRef cg_math_get_cvt16(LLVMModuleRef M, int is_bf16, int to_16);

#endif
