/* mathlib.h -- leirc's own math routines (SPEC §13.3, §9.4).
 *
 * exp, log, erf and pow (f32 and f64) and the f16/bf16 conversions that every
 * back end of leirc uses: the interpreter calls these C functions, the host
 * JIT and the PTX back end emit the very same operation sequence through
 * codegen/mathlib_emit.c.  Results are therefore bit-identical on every
 * target.  The routines use only IEEE + - * /, explicit fma, comparisons and
 * integer/bit operations; the exact sequence is documented at the top of
 * ir/mathlib.c and is the contract the emitter follows.
 *
 * mathlib.c must be compiled with -ffp-contract=off (no implicit FMA).
 *
 * Accuracy (measured by testsuite/unit/mathlib_test.c and, over every f32
 * input, bench/mathlib_exhaustive): expf, logf and erff compute in f32
 * arithmetic (max 0.7616, 0.8708 and 0.7167 ulp); powf's general path is in
 * f64, sized for f32 and rounded once (e^(y ln|x|) in f64 within
 * 2^-36, rounded once; for y = -1, 1, 2, 3 the f32 products 1/x, x, x*x,
 * x*(x*x), the last within 1.3 ulp); leir_expf_cr, leir_erff_cr and leir_powf_cr are the
 * f64-inside routines they replaced (about 0.5 ulp), kept for reference and
 * tests; the f64 routines are within about 1 ulp.
 * Subnormal results are produced (no flush to zero).
 */
#ifndef LEIR_IR_MATHLIB_H
#define LEIR_IR_MATHLIB_H

#include <stdint.h>

float leir_expf(float x);
float leir_expf_cr(float x); /* correctly rounded but for 1430 inputs, f64 inside */
double leir_exp(double x);
float leir_logf(float x);
double leir_log(double x);
float leir_erff(float x);
float leir_erff_cr(float x); /* f64 inside, 0.5 + 2^-12 ulp */
double leir_erf(double x);
float leir_powf(float x, float y);
float leir_powf_cr(float x, float y); /* leir_pow rounded to f32 */
double leir_pow(double x, double y);

/* IEEE binary16 and bfloat16: round to nearest even, subnormals kept,
   overflow to infinity, NaN stays a quiet NaN (sign and top payload kept). */
uint16_t leir_f32_to_f16(float x);
float leir_f16_to_f32(uint16_t h);
uint16_t leir_f32_to_bf16(float x);
float leir_bf16_to_f32(uint16_t h);
/* x rounded through binary16 / bfloat16 and back (one rounding per op, §9.4) */
float leir_round_f16(float x);
float leir_round_bf16(float x);

/* A hash of the routines' bits on 576 fixed arguments each (f32 and f64
   exp, log, erf, pow, x**3, the f16/bf16 roundings): it changes when an
   operation sequence or a table changes any of those bits.  Caches of
   outputs computed by these routines key on it (driver/steps_cache.c), so
   that an entry written by a leirc with other math is not taken. */
uint64_t leir_math_fingerprint(void);

/* ------------------------------------------------------------------------
 * Constants of the contract, shared with codegen/mathlib_emit.c.  The
 * polynomials are evaluated by Horner's rule from the first entry (highest
 * degree) down: p = c[0]; p = fma(p, v, c[i]) for i = 1 .. n-1.
 */
#define LEIR_M_SHIFT 0x1.8p52                /* 1.5 * 2^52, round-to-int */
#define LEIR_M_TWO52 0x1p52
#define LEIR_M_INVLN2 0x1.71547652b82fep+0   /* 1/ln 2 */
#define LEIR_M_LN2H 0x1.62e42fefa39efp-1     /* ln 2 = LN2H + LN2L */
#define LEIR_M_LN2L 0x1.abc9e3b39803fp-56
#define LEIR_M_C23H 0x1.5555555555555p-1     /* 2/3 = C23H + C23L */
#define LEIR_M_C23L 0x1.5555555555555p-55
#define LEIR_M_SQRT2 0x1.6a09e667f3bcdp+0
#define LEIR_M_EXP_HI 710.0                  /* exp argument clamp */
#define LEIR_M_EXP_LO (-746.0)
#define LEIR_M_EXPF_HI 89.0                  /* expf argument clamp */
#define LEIR_M_EXPF_LO (-104.0)
#define LEIR_M_LOGF_EB 0x1.00000000003ffp52  /* 2^52 + 1023 */
#define LEIR_M_ERFF_SPLIT 1.0                /* erff: series / erfc form */
#define LEIR_M_ERFF_ONE 4.0                  /* erff(|x| >= 4) = 1 */
#define LEIR_M_ERFF_MID 2.5                  /* erfc form's variable c - MID */
#define LEIR_M_ERF_SPLIT 1.0                 /* erf: series / erfc form */
#define LEIR_M_ERF_ONE 6.0                   /* erf(|x| >= 6) = 1 */
#define LEIR_M_ERF_C 4.0                     /* erfc variable 1/(|x|+C) - T0 */
#define LEIR_M_ERF_T0 0x1.33p-3
#define LEIR_M_POW_IMAX 64.0                 /* integer-power path bound */
#define LEIR_M_POW_BIG 0x1p900               /* its result range */
#define LEIR_M_POW_SMALL 0x1p-900

/* the f32 routines in f32 arithmetic */
#define LEIR_MF_TWO23 0x1p23f
#define LEIR_MF_POWF_IMAX 3.0f               /* powf's integer-power path bound */
#define LEIR_MF_INVLN2 0x1.715476p+0f        /* 1/ln 2 rounded to f32 */
#define LEIR_MF_EXPF_NT 16                   /* expf's table: 2^(j/16) */
#define LEIR_MF_EXPF_SHIFT 0x1.8p19f         /* 1.5 * 2^19: t's ulp 1/16, bits(SHIFT) = 0x49400000 */
#define LEIR_MF_EXPF_LN2H 0x1.62ep-1f        /* ln 2 ~ LN2H + LN2L; LN2H 12 bits (k/16 LN2H exact) */
#define LEIR_MF_EXPF_LN2L 0x1.0bfbe8p-15f
#define LEIR_MF_EXPF_HI 89.0f                /* expf argument clamp */
#define LEIR_MF_EXPF_LO (-104.0f)
#define LEIR_MF_EXPF_N 2
extern const float leir_mf_expf_poly[LEIR_MF_EXPF_N]; /* (e^r-1-r)/r^2, |r| <= ln2/32 */
extern const float leir_mf_expf_thi[LEIR_MF_EXPF_NT]; /* 2^(j/16) ~ Thi[j] + Tlo[j] */
extern const float leir_mf_expf_tlo[LEIR_MF_EXPF_NT];
#define LEIR_MF_LOGF_OFF 0x3f3504f3u         /* bits(sqrt(1/2)): m in [sqrt(1/2), sqrt(2)) */
#define LEIR_MF_LOGF_OFFS (0x3f3504f3u + (23u << 23)) /* the same for x * 2^23 (subnormal x) */
#define LEIR_MF_LOGF_LN2H 0x1.62e4p-1f       /* ln 2 ~ LN2H + LN2L, k * LN2H exact */
#define LEIR_MF_LOGF_LN2L 0x1.7f7d1cp-20f
#define LEIR_MF_LOGF_N 9
extern const float leir_mf_logf_poly[LEIR_MF_LOGF_N]; /* (log1p(r)-r)/r^2 */
#define LEIR_MF_ERFF_ONE 4.0f                /* erff: the argument clamp */
#define LEIR_MF_ERFF_SCALE 1.9f              /* interval i = (int)fmaf(c, SCALE, BIAS), 0 .. 7 */
#define LEIR_MF_ERFF_BIAS 0.09f              /* [0, .479) [.479, 1.005) ... [3.637, 4] */
#define LEIR_MF_ERFF_NI 8
#define LEIR_MF_ERFF_N 7                     /* coefficients of the one polynomial */
/* per interval i: the centre M[i] (M[0] = 0), K[i] ~ erf(M[i]) (K[0] = +0:
   interval 0 adds a, which the vector forms OR in), and the polynomial's
   coefficients C[j][i], highest degree first */
extern const float leir_mf_erff_m[LEIR_MF_ERFF_NI];
extern const float leir_mf_erff_k[LEIR_MF_ERFF_NI];
extern const float leir_mf_erff_c[LEIR_MF_ERFF_N][LEIR_MF_ERFF_NI];

#define LEIR_M_EXP_N 12
#define LEIR_M_EXPF_N 9
#define LEIR_M_LOG_N 11
#define LEIR_M_LOGF_N 5
#define LEIR_M_ERFA_N 14
#define LEIR_M_ERFB_N 17
#define LEIR_M_ERFFA_N 9
#define LEIR_M_ERFFB_N 16
extern const double leir_m_exp_poly[LEIR_M_EXP_N];   /* 1/13! .. 1/2! */
extern const double leir_m_expf_poly[LEIR_M_EXPF_N]; /* ~e^r, |r| <= ln2/2 */
extern const double leir_m_logf_poly[LEIR_M_LOGF_N]; /* (2atanh s-2s)/s^3 in s^2 */
extern const double leir_m_log_poly[LEIR_M_LOG_N];   /* 2/25 .. 2/5 */
extern const double leir_m_erfa_poly[LEIR_M_ERFA_N]; /* erf(a)/a - 1 in a^2 */
extern const double leir_m_erfb_poly[LEIR_M_ERFB_N]; /* erfc(a)e^(a^2) in 1/(a+C)-T0 */
extern const double leir_m_erffa_poly[LEIR_M_ERFFA_N]; /* erf(a)/a in a^2, a < 1 */
extern const double leir_m_erffb_poly[LEIR_M_ERFFB_N]; /* erfc(c)e^(c^2) in c-2.5 */

#endif
