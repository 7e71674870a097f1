/* mathlib.c -- leirc's own exp, log, erf, pow and f16/bf16 conversions.
 *
 * THE CONTRACT.  codegen/mathlib_emit.c emits exactly the operations below,
 * in this order, so every back end gets bit-identical results (SPEC §13.3).
 * Notation: + - * / are IEEE binary64 operations rounded to nearest even,
 * fma(a,b,c) is the correctly rounded a*b+c, "a ? b : c" is a select (both
 * sides are computed in the emitted code; they never trap), bits()/dbl() are
 * bit casts, k/2 is truncating integer division.  Constants LEIR_M_* and the
 * tables leir_m_*_poly are in mathlib.h; horner(P, v) means
 *   p = P[0]; p = fma(p, v, P[i]) for i = 1 .. n-1.
 * This file must be compiled without FP contraction (-ffp-contract=off; the
 * pragmas below enforce it for GCC and clang).
 *
 * exp_core(xh, xl) ~ e^(xh + xl), |xl| tiny:
 *   c  = xh > EXP_HI ? EXP_HI : xh;  c = c < EXP_LO ? EXP_LO : c
 *   l  = c == xh ? xl : 0
 *   t  = fma(c, INVLN2, SHIFT);  kd = t - SHIFT        (kd = round(c/ln2))
 *   k  = (int64)bits(t) - (int64)bits(SHIFT)           (same value as kd)
 *   rh = fma(kd, -LN2H, c)                               (exact)
 *   rl = fma(kd, -LN2L, l)
 *   r  = rh + rl;  dr = (rh - r) + rl
 *   p  = horner(exp_poly, r)                             (Taylor, 1/13!..1/2!)
 *   c2 = fma(r * r, p, fma(dr, r, dr))                   (e^(r+dr) - 1 - r)
 *   sh = 1 + r;  sl = (1 - sh) + r;  s = sh + (sl + c2)  (e^(r+dr))
 *   k1 = k / 2;  k2 = k - k1
 *   result = (s * dbl((k1+1023) << 52)) * dbl((k2+1023) << 52)
 *   Overflow gives +inf, underflow a correctly scaled subnormal or 0 (only
 *   the last product can round, so subnormals are rounded twice at most).
 *
 * log_dd(x) = (zh, zl) ~ ln x as a double-double, x > 0 finite:
 *   sub = x < 0x1p-1022;  x = sub ? x * 0x1p54 : x;  eb = sub ? -54 : 0
 *   u = bits(x);  e = (int64)(u >> 52) - 1023 + eb
 *   m = dbl((u & 0x000fffffffffffff) | 0x3ff0000000000000)      (in [1,2))
 *   big = m > SQRT2;  m = big ? m * 0.5 : m;  e = big ? e + 1 : e
 *   f = m - 1;  uh = m + 1;  ul = m - (uh - 1)           (f, ul exact)
 *   sh = f / uh;  rr = fma(-sh, uh, f);  rr = fma(-sh, ul, rr);  sl = rr / uh
 *                                                       (s = f/(m+1) = sh+sl)
 *   wh = sh * sh;  wl = fma(sh, sh, -wh);  wl = fma(sh * 2, sl, wl)   (s^2)
 *   th = sh * wh;  tl = fma(sh, wh, -th);  tl = fma(sh, wl, tl);
 *   tl = fma(sl, wh, tl)                                 (s^3)
 *   ah = th * C23H;  al = fma(th, C23H, -ah);  al = fma(th, C23L, al);
 *   al = fma(tl, C23H, al)                               ((2/3) s^3)
 *   tail = (th * wh) * horner(log_poly, wh)              (sum 2 s^(2j+1)/(2j+1), j>=2)
 *   bh = sh * 2;  bl = sl * 2
 *   hh = bh + ah;  hl = (bh - hh) + ah
 *   lo = hl + (bl + (al + tail))
 *   Lh = hh + lo;  Ll = (hh - Lh) + lo                   (ln m = 2 atanh s)
 *   ed = (double)e;  ph = ed * LN2H;  pl = fma(ed, LN2H, -ph);
 *   pl = fma(ed, LN2L, pl)                               (e ln 2)
 *   sH = ph + Lh;  bb = sH - ph;  sL = (ph - (sH - bb)) + (Lh - bb);
 *   sL = sL + (pl + Ll)
 *   zh = sH + sL;  zl = (sH - zh) + sL
 *
 * leir_exp(x) = x != x ? x : exp_core(x, 0)
 * leir_log(x): r = log_dd(x).zh;  r = x == +inf ? x : r;  r = x == 0 ? -inf : r;
 *   r = x < 0 ? QNAN : r;  r = x != x ? x : r          (QNAN = 0x7ff8000000000000)
 *   The host JIT's vector forms (codegen/mathlib_emit.c, leir.log.v4, v8,
 *   v16) branch, for vectors whose every x is normal, positive and finite,
 *   to the same values by fewer operations (no subnormal scaling, no
 *   special selects, big, the halving and (double)e in integer
 *   operations); the proof is at log_normal there.
 * leir_erf(x): a = |x|
 *   w = a * a;  ra = fma(a, horner(erfa_poly, w), a)       (|x| < ERF_SPLIT)
 *   wl = fma(a, a, -w);  ex = exp_core(-w, -wl)            (e^(-a^2))
 *   den = a + ERF_C;  dl = (ERF_C - den) + a;  t = 1 / den;
 *   rt = fma(-t, den, 1);  rt = fma(-t, dl, rt);  u = fma(t, rt, t - ERF_T0)
 *   rb = fma(-ex, horner(erfb_poly, u), 1)                 (erf = 1 - erfc)
 *   r = a < ERF_SPLIT ? ra : rb;  r = a >= ERF_ONE ? 1 : r;
 *   r = copysign(r, x);  r = x != x ? x : r
 * leir_pow(x, y): ax = |x|, ay = |y|
 *   isint(v) = |v| != inf && (|v| >= 2^52 || (|v| + 2^52) - 2^52 == |v|)
 *   yint = isint(y);  yodd = yint && !isint(y * 0.5)
 *   general: (lh, ll) = log_dd(ax);  zh = y * lh;  zl = fma(y, lh, -zh);
 *     zl = fma(y, ll, zl);  r = exp_core(zh, zl)
 *   integer |y| <= 64, in double-double:
 *     yc = ay < 64 ? ay : 64;  n = (int64)bits(yc + 2^52) - (int64)bits(2^52)
 *     acc = (1, 0);  b = (ax, 0)
 *     for i = 0 .. 6: { if bit i of n: acc = ddmul(acc, b);  if i < 6: b = ddmul(b, b) }
 *     ddmul(a, b): p = ah*bh; e = fma(ah,bh,-p); e = fma(ah,bl,e); e = fma(al,bh,e);
 *                  h = p + e; l = (p - h) + e
 *     ri = y < 0 ? fma(q, ee, q) : acc.h + acc.l   where q = 1 / acc.h,
 *          ee = fma(-q, acc.h, 1); ee = fma(-q, acc.l, ee)
 *     ok = yint && ay <= 64 && acc.h >= POW_SMALL && acc.h <= POW_BIG
 *     r = ok ? ri : r
 *   specials (C99 F.9.4.4), applied in this order:
 *     r = ax == 0 ? (y < 0 ? inf : 0) : r
 *     r = ax == inf ? (y < 0 ? 0 : inf) : r
 *     r = ay == inf ? (ax == 1 ? 1 : ((ax < 1) == (y < 0) ? inf : 0)) : r
 *     r = yodd && signbit(x) ? -r : r
 *     r = x < 0 && ax != inf && ay != inf && !yint ? QNAN : r
 *     r = y != y ? y : r;  r = x != x ? x : r;  r = y == 0 ? 1 : r;  r = x == 1 ? 1 : r
 *   So pow(x, 2) == x * x exactly whenever x*x is in [2^-900, 2^900].
 *
 * THE f32 ROUTINES IN f32 ARITHMETIC (issue 59: 8 lanes per AVX2 register).
 * Here + - * are IEEE binary32 operations, fmaf the correctly rounded f32
 * fma, integers are int32; constants LEIR_MF_*, tables leir_mf_*_poly,
 * hornerf(P, v) as horner in f32, flt() the bit cast to f32.
 * leir_expf(x), table-driven (issue 59: fewer multiplications and FMAs,
 * the operations Zen 4 runs at one 512-bit one a cycle; 2^(j/16) from a
 * 16-entry table, on AVX-512 one vpermps each, and e^r - 1 from a degree-3
 * polynomial for |r| <= ln2/32):
 *   c = x > EXPF_HI ? EXPF_HI : x;  zero = c < EXPF_LO;  c = zero ? EXPF_LO : c
 *   t = fmaf(c, INVLN2, EXPF_SHIFT);  kf = t - EXPF_SHIFT      (kf = m/16 exactly)
 *   tb = bits(t);  j = tb & 15;  kb = tb >> 4;  h = tb >> 5     (u32)
 *   r = fmaf(kf, -EXPF_LN2H, c);  r = fmaf(kf, -EXPF_LN2L, r)
 *   q = hornerf(expf_poly, r)                       (~(e^r - 1 - r)/r^2)
 *   p = fmaf(r * r, q, r)                           (~e^r - 1)
 *   u = fmaf(Thi[j], p, Tlo[j]);  s = Thi[j] + u     (~2^(j/16) e^r)
 *   s1 = flt((h + 127) << 23);  s2 = zero ? 0 : flt((kb - h + 127) << 23)   (u32)
 *   y = (s * s1) * s2;  result x != x ? x : y
 *   t is in [2^19, 2^20), its ulp 1/16 (EXPF_SHIFT = 1.5 * 2^19), so kf =
 *   m/16 with m = round(16 c INVLN2), and tb = bits(EXPF_SHIFT) + m, whose
 *   low 5 bits are 0 (0x49400000): j = m mod 16, kb = 0x04940000 + k with
 *   k = floor(m/16), h = 0x024a0000 + k1 with k1 = floor(m/32) =
 *   floor(k/2), kb - h = 0x024a0000 + (k - k1), and the shifts by 23 drop
 *   the constants: s1 = 2^k1, s2 = 2^(k - k1).  c = (k + j/16) ln2 + r.
 *   EXPF_LN2H has 12 significant bits and kf (|m| <= 2401) 12, so kf
 *   EXPF_LN2H is exact, and the first r is exact (c and kf EXPF_LN2H are
 *   multiples of 2^-29 where m != 0, |r| < 2^-5); |r| <= 0.02168.
 *   Thi[j] = 2^(j/16) rounded to f32, Tlo[j] = the rest rounded
 *   (bench/mathlib_expf_fit.py, |Thi + Tlo - 2^(j/16)| < 2^-49; the
 *   polynomial's error in e^r - 1 below 2^-29.1); s in [0.978, 2).
 *   k in [-151, 128]: k1 and k - k1 in [-76, 64], so s * s1 is exact and
 *   the last product rounds s 2^k once: +inf from EXPF_HI = 89 on (k = 128,
 *   j = 6), 0 from EXPF_LO = -104 down (s2 = 0 below it: the product s
 *   2^-151 (s < 2) would round to +0 as well; s2 = 0 gives that +0 without
 *   a tiny product, which costs AMD Zen 3 a slow path (about 25 cycles a
 *   vector: bench/expf_range.sh)), subnormals from the last product (s was
 *   rounded once before it).
 *   Over every f32 input (bench/mathlib_exhaustive): max 0.761636 ulp (at
 *   -0x1.5f2a6cp+6, a subnormal result: the double rounding), 0.565483 ulp
 *   (at 0x1.30e068p+6) for normal results; 3158904 results not correctly
 *   rounded.
 *   (Before, Cody-Waite to |r| <= ln2/2, a double-f32 r + dr and a degree-7
 *   polynomial with 1 + r + c2 summed in two parts: 0.757849 ulp
 *   (subnormal results), 0.600571 (normal), 2029142 not correctly rounded;
 *   12 of 23 AVX-512 operations a vector were multiplications or FMAs, now
 *   8 of 15.)
 *   The host JIT's AVX-512 form (codegen/mathlib_emit.c, leir.expf.v16)
 *   gets the same values by other instructions: no clamps, the lookups one
 *   vpermps each by tb's low 4 bits, y = vscalefps(s, kf) (one rounding of
 *   s 2^floor(kf) = s 2^k, as (s * s1) * s2), and |x| >= 256 and NaNs by
 *   vfixupimmps; the proof is at cg_math_get_expf_vec.  Its AVX2 form
 *   (leir.expf.v8) looks up by two vpermps and a blend a table, and
 *   branches, for vectors with every |x| <= 87, to y = s * 2^k (one
 *   product, k added to s's exponent; no clamps, no NaN select): the
 *   same values, proof there too.
 * leir_expf_cr(x), f32 computed in f64 (the routine before issue 59, kept
 * for reference and tests, used by no back end; d = (double)x):
 *   c = d > EXPF_HI ? EXPF_HI : d;  c = c < EXPF_LO ? EXPF_LO : c
 *   t = fma(c, INVLN2, SHIFT);  kd = t - SHIFT
 *   k = (int64)bits(t) - (int64)bits(SHIFT)            (same value as kd)
 *   r = fma(kd, -LN2H, c)                                (|r| <= ln2/2)
 *   p = horner(expf_poly, r)                             (degree 8, ~e^r)
 *   result = x != x ? x : (float)(p * dbl((k+1023) << 52))
 *   All in f64: kd in [-150, 128] makes 2^k a normal double and the product
 *   exact, so the one rounding is the conversion to float, which gives the
 *   f32 overflow (+inf from EXPF_HI = 89 on), subnormals and 0 (from
 *   EXPF_LO = -104 down).  The reduction's error (kd * LN2L, < 2^-48) and
 *   the polynomial's (< 2^-39.7 relative) keep the result within 0.5 + 2^-15
 *   ulp of e^x: over every f32 input (bench/mathlib_exhaustive) at most
 *   0.500013 ulp, and 1430 of the 2^32 results not correctly rounded.
 * leir_logf(x), in f32 arithmetic, no division (issue 59; before it an f64
 * routine, logf_d below, rounded once: below 0.5000005 ulp, 15 results not
 * correctly rounded, but 47 512-bit operations per 16 elements, 2 of them
 * f64 divisions, 0.63x Sleef u10 on Zen 4):
 *   sub = x < 0x1p-126;  xs = sub ? x * 0x1p23 : x
 *   ix = bits(xs) - (sub ? LOGF_OFFS : LOGF_OFF)          (u32)
 *   k = (int32)ix >> 23                                   (arithmetic shift)
 *   r = flt((ix & 0x7fffff) + LOGF_OFF) - 1;  ef = (float)k
 *                        (x = 2^k m, m in [sqrt(1/2), sqrt(2)), r = m - 1 exact)
 *   p = hornerf(logf_poly, r)                       (~(log1p(r) - r)/r^2)
 *   ph = ef * LOGF_LN2H                                   (exact: 15 bits)
 *   hi = ph + r;  dl = (ph - hi) + r        (exact: |ph| >= 0.69 > |r| or ph = 0)
 *   lo = fmaf(r * r, p, fmaf(ef, LOGF_LN2L, dl));  y = hi + lo
 *   y = x == +inf ? x : y;  y = x == 0 ? -inf : y;
 *   y = x < 0 ? QNANF : y;  result x != x ? x : y
 *   (LOGF_OFFS = LOGF_OFF + (23 << 23): the subnormal's 2^-23 in k; for
 *   x <= 0, inf and NaN the integer and f32 work gives some value, never a
 *   trap, that the selects replace.)  log(1) = +0 (r = 0, ef = 0).  The
 *   polynomial (bench/mathlib_logf_fit.py): |r| times its error below
 *   2^-27.5.  Over every f32 input (bench/mathlib_exhaustive): max 0.870726
 *   ulp (at 0x1.47ccp+0), 2185064 results not correctly rounded.
 * leir_erff(x), in f32 arithmetic, table-driven (issue 59: one polynomial
 * per element whatever its interval, so a vector evaluates one Horner chain
 * and looks each coefficient up, on AVX2 one vpermps from an 8-entry table,
 * on AVX-512 one vpermps zmm from the table written twice):
 *   a = |x|;  c = a < ERFF_ONE ? a : ERFF_ONE
 *   i = (int)fmaf(c, ERFF_SCALE, ERFF_BIAS)               (c in [0, 4]: i in 0 .. 7)
 *   u = c - M[i]                                            (M[0] = 0: u = a there)
 *   p = C[0][i];  p = fmaf(p, u, C[j][i]) for j = 1 .. ERFF_N-1
 *   r = fmaf(u, p, i == 0 ? a : K[i]);  y = copysignf(r, x);  result x != x ? x : y
 *   (interval 0: erf(a) = a + a P(a); the others erf(M + u) = K + u P(u);
 *   every P in u, so the vector code selects only the addend, by OR-ing a
 *   into K[0] = +0).  Eight
 *   intervals: [0, 0.479) (where erf reaches 0.5: above, the results' ulp
 *   is 2^-24 wherever |u| is large), then 0.526 wide ([3.637, 4] the last),
 *   7 coefficients each.  A NaN x takes interval 7 (c = 4, r = 1 exactly)
 *   and is returned as it is.  Tables from bench/mathlib_erf_fit.py (fit
 *   errors below 2^-29.4, interval 0's relative error 2^-27.1).  Over every
 *   f32 input (bench/mathlib_exhaustive): max 0.716720 ulp (at
 *   0x1.d391d6p-2), 30986944 results not correctly rounded.  (Before:
 *   i = min((int)(2c), 7) and interval 0 in t = a^2, a multiplication, a
 *   blend and a min more per vector: 0.672208 ulp, 28229198; before that 4
 *   intervals of 0.8, 8 coefficients, vpermilps from 4-entry tables:
 *   0.763537 ulp, 29774134.)
 * leir_erff_cr(x), f32 computed in f64 (the routine before issue 59, kept
 * for reference and tests, used by no back end; d = (double)x):
 *   a = |d|;  w = a * a                                  (exact: a is an f32)
 *   ra = a * horner(erffa_poly, w)                       (|x| < ERFF_SPLIT)
 *   c = a < ERFF_ONE ? a : ERFF_ONE;  wc = c * c         (exact)
 *   t = fma(-wc, INVLN2, SHIFT);  kd = t - SHIFT;  k = (int64)bits(t) - (int64)bits(SHIFT)
 *   ex = horner(expf_poly, fma(kd, -LN2H, -wc)) * dbl((k+1023) << 52)   (e^(-c^2))
 *   rb = fma(-ex, horner(erffb_poly, c - ERFF_MID), 1)   (erfc(c) e^(c^2) ~ erffb)
 *   r = a < ERFF_SPLIT ? ra : rb;  r = a >= ERFF_ONE ? 1 : r;
 *   y = (float)copysign(r, d);  result x != x ? x : y
 *   erf(|x| >= 4) rounds to 1 in f32 (erfc(3.92) < 2^-25).  The polynomials'
 *   relative errors: erf(a)/a within 2^-40, erfc e^(c^2) within 2^-34.7 (an
 *   absolute error below 2^-37 in erf).  Over every f32 input
 *   (bench/mathlib_exhaustive) at most 0.500043 ulp, and 18670 of the 2^32
 *   results not correctly rounded.
 * leir_powf(x, y): the general path in f64, the integer path and the
 * specials in f32 (issue 59: every condition in the width of the values it
 * selects, so the vector code needs no mask conversions):
 *   r = expf_d((double)y * logf_d(|(double)x|));  f = (float)r
 *   where logf_d(v) is the f64 ln v of leir_logf before issue 59:
 *     u = bits(v);  ed = dbl((u >> 52) | 0x4330000000000000) - LOGF_EB
 *     m = dbl((u & 0x000fffffffffffff) | 0x3ff0000000000000)      (in [1,2))
 *     big = m > SQRT2;  m = big ? m * 0.5 : m;  ed = big ? ed + 1 : ed
 *     f = m - 1;  s = f / (f + 2);  w = s * s;  q = horner(logf_poly, w)
 *     result fma(ed, LN2H, fma(s * w, q, s + s))     (relative error < 2^-43)
 *   and expf_d(z) is leir_expf_cr's sequence on the double z with
 *   the product p * dbl((k+1023) << 52) returned unrounded;
 *   ax = |x|, ay = |y|;  isintf(v) = is_int in f32 (2^23 for 2^52), the same
 *   answer;  yint = isintf(y);  yodd = yint && !isintf(y * 0.5f)
 *   integer path (-1 <= y <= POWF_IMAX = 3, in f32):
 *     yc = ay < 3 ? ay : 3;  n = bits(yc + 2^23) - bits(2^23)   (u32)
 *     a2 = ax * ax;  p = n & 1 ? ax : 1;  p = n & 2 ? p * a2 : p
 *     ri = y < 0 ? 1 / p : p;  fi = y <= 3 ? ri : f;  fi = y >= -1 ? fi : f
 *     f = yint ? fi : f
 *   square root: f = y == 0.5 ? sqrtf(ax) : f           (correctly rounded)
 *   then leir_pow's specials on f in f32 (0, inf, 1 and QNANF for QNAN),
 *   its two conjunctions as nested selects (the same values):
 *     f = xneg ? (yodd ? -f : f) : f
 *     q = yint ? f : QNANF;  q = ay == inf ? f : q;  q = ax == inf ? f : q;
 *     f = x < 0 ? q : f
 *   and the last four as there: f = y != y ? y : f;  f = x != x ? x : f;
 *   f = y == 0 ? 1 : f;  result x == 1 ? 1 : f.
 *   So x**-1 = 1/x, x**2 = x*x (both correctly rounded) and x**3 =
 *   x*(x*x), PyTorch's product, and x**0.5 = sqrt(x) for x >= 0 (pow's
 *   specials elsewhere: +0 at -0, +inf at -inf, QNANF below 0); x**3 has
 *   two roundings; over every f32 input,
 *   `make mathlib-exhaustive`: max 1.287357 ulp (at 0x1.94ffp-42),
 *   365239376 results not correctly rounded, and +-0x1.965feap+42 give
 *   +-inf where x^3 rounds to +-FLT_MAX), the sign of odd powers and every
 *   special included; the host JIT and PTX
 *   emit those products alone for a constant exponent.  Other exponents
 *   (the integers from 4 and from -2 on included): the general path's
 *   relative error is below 2^-36 (|y ln|x|| <= 104 + the clamp), so
 *   results are within 0.5 + 2^-12 ulp; f32 overflow and subnormals come
 *   from the one rounding (float)r.
 * leir_powf_cr: (float)leir_pow((double)x, (double)y), with the same NaN
 *   fix-up (the routine before issue 59, kept for reference and tests).
 * NaN bits: a NaN result is either an input NaN passed through by a select
 *   (never by arithmetic) or the fixed QNAN/QNANF, so even NaN bits agree
 *   between targets whose arithmetic makes different default NaNs.
 *
 * f32 -> f16 (u32 arithmetic): b = bits(x); s = (b >> 16) & 0x8000;
 *   a = b & 0x7fffffff;  rn = a - 0x38000000;
 *   hn = (rn + 0xfff + ((rn >> 13) & 1)) >> 13                     (normal)
 *   sh = 126 - (a >> 23);  sh = sh > 31 ? 31 : sh;  sh = sh < 14 ? 14 : sh;
 *   m = (a & 0x7fffff) | 0x800000;
 *   hs = (m + (1 << (sh - 1)) - 1 + ((m >> sh) & 1)) >> sh          (subnormal)
 *   h = a < 0x38800000 ? hs : hn;  h = a >= 0x47800000 ? 0x7c00 : h;
 *   h = a > 0x7f800000 ? (0x7e00 | ((a >> 13) & 0x3ff)) : h;  result s | h
 * f16 -> f32: s = (h & 0x8000) << 16; e = (h >> 10) & 0x1f; m = h & 0x3ff;
 *   bn = s | ((e + 112) << 23) | (m << 13);  bi = s | 0x7f800000 | (m << 13);
 *   bs = s | bits((float)m * 0x1p-24f);  b = e == 0 ? bs : (e == 31 ? bi : bn)
 * f32 -> bf16: b = bits(x); r = (b + 0x7fff + ((b >> 16) & 1)) >> 16;
 *   result (b & 0x7fffffff) > 0x7f800000 ? (b >> 16) | 0x40 : r
 * bf16 -> f32: bits = h << 16
 */
#include "ir/mathlib.h"
#include "ir/hash.h"

/* No implicit FMA contraction, whatever the build flags say (GCC's ISO
   modes, e.g. -std=c17, already default to -ffp-contract=off). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && !defined(__STRICT_ANSI__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h> /* fma, fabs, copysign, sqrtf only (exact or correctly rounded) */
#include <stdbool.h>
#include <string.h>

/* ---------------------------------------------------------------- tables */

const double leir_m_exp_poly[LEIR_M_EXP_N] = {
    0x1.6124613a86d09p-33, 0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26,
    0x1.27e4fb7789f5cp-22, 0x1.71de3a556c734p-19, 0x1.a01a01a01a01ap-16,
    0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10, 0x1.1111111111111p-7,
    0x1.5555555555555p-5,  0x1.5555555555555p-3,  0x1.0000000000000p-1,
};

/* e^r on [-ln2/2, ln2/2]: Chebyshev-node fit (mpmath chebyfit, 9 terms),
   coefficients rounded to nearest double; relative error < 2^-39.7. */
const double leir_m_expf_poly[LEIR_M_EXPF_N] = {
    0x1.a15a4f98eb4a5p-16, 0x1.a1aa7f143c60ap-13, 0x1.6c164df443c8cp-10,
    0x1.111080ae06089p-7,  0x1.5555557428d91p-5,  0x1.555555a26dedbp-3,
    0x1.fffffffff71cfp-2,  0x1.ffffffffd38c1p-1,  0x1.0000000000000p+0,
};

/* (2 atanh s - 2s)/s^3 in w = s^2 on [0, (3 - 2 sqrt 2)^2]: Chebyshev-node
   fit (mpmath chebyfit, 5 terms) rounded to double; ln m within 2^-43
   relative. */
const double leir_m_logf_poly[LEIR_M_LOGF_N] = {
    0x1.8c8c1378bf76ep-3, 0x1.c67ad9ecb9497p-3, 0x1.249323e501d94p-2,
    0x1.999998cafbbe2p-2, 0x1.5555555564e97p-1,
};

/* erf(a)/a in w = a^2 on [0, 1] (9 terms) and erfc(c) e^(c^2) in c - 2.5 on
   c in [1, 4] (16 terms): Chebyshev-node fits (mpmath chebyfit) rounded to
   double. */
const double leir_m_erffa_poly[LEIR_M_ERFFA_N] = {
    0x1.1c41ab6eec487p-20, -0x1.d2b8522d6f7cbp-17, 0x1.f57e9cee106c1p-14,
    -0x1.bfe158a7be278p-11, 0x1.56588b32275a7p-8, -0x1.b82cbae7577a7p-6,
    0x1.ce2f20a7415c6p-4, -0x1.812746ade3c08p-2, 0x1.20dd750428cb9p+0,
};

const double leir_m_erffb_poly[LEIR_M_ERFFB_N] = {
    -0x1.8432d7857fd17p-30, 0x1.aa6a4a1f38af1p-28, -0x1.e38ff2bf45393p-27,
    0x1.ef25e31b3345fp-25, -0x1.29894246f777bp-22, 0x1.285d97b76e333p-20,
    -0x1.1a842d761e30bp-18, 0x1.0b74629461c05p-16, -0x1.edd9b7a10a385p-15,
    0x1.ba90bd48bf203p-13, -0x1.809ccf5d2d42ap-11, 0x1.435be824773b9p-9,
    -0x1.06320793996b6p-7, 0x1.98958add84639p-6, -0x1.3086d7f002428p-4,
    0x1.afbb3f3b3b8d5p-3,
};

const double leir_m_log_poly[LEIR_M_LOG_N] = {
    0x1.47ae147ae147bp-4, 0x1.642c8590b2164p-4, 0x1.8618618618618p-4,
    0x1.af286bca1af28p-4, 0x1.e1e1e1e1e1e1ep-4, 0x1.1111111111111p-3,
    0x1.3b13b13b13b14p-3, 0x1.745d1745d1746p-3, 0x1.c71c71c71c71cp-3,
    0x1.2492492492492p-2, 0x1.999999999999ap-2,
};

/* Chebyshev-node fits (mpmath chebyfit) of erf(sqrt w)/sqrt w - 1 on w in
   [0, 1] (14 terms) and of erfc(a) exp(a^2) in u = 1/(a + 4) - T0 on a in
   [1, 6] (17 terms); coefficients rounded to nearest double. */
const double leir_m_erfa_poly[LEIR_M_ERFA_N] = {
    -0x1.29b9f1b3df556p-38, 0x1.7f072188e194dp-34, -0x1.4e607b41a6416p-30,
    0x1.fc4356498c2d9p-27, -0x1.5f6d925a0bc7ap-23, 0x1.b9e6509b9867dp-20,
    -0x1.f4d2561aeafd4p-17, 0x1.f9a326c233146p-14, -0x1.c02db3feeb579p-11,
    0x1.565bcd0e6502dp-8, -0x1.b82ce312889bap-6, 0x1.ce2f21a042bdep-4,
    -0x1.812746b0379e7p-2, 0x1.06eba8214db69p-3,
};

const double leir_m_erfb_poly[LEIR_M_ERFB_N] = {
    -0x1.675ca9c4244c0p+26, -0x1.8af05c468646fp+24, 0x1.49a2ddac88085p+23,
    0x1.58f0696e69271p+22, -0x1.b31e9e6c66a2ap+18, -0x1.ef646a8f6e1e4p+19,
    -0x1.00a652cb205d8p+18, 0x1.1f6ae680b691fp+16, 0x1.5da12b114232ap+16,
    0x1.4e10f78dd5363p+15, 0x1.bc4755dfe3e88p+13, 0x1.cf9297b044c57p+11,
    0x1.8e5102e533a6fp+9, 0x1.20a1c565b15fap+7, 0x1.650696adb5c0dp+4,
    0x1.7aa77c34cc664p+1, 0x1.971bd176fd0acp-3,
};

/* --------------------------------------------------------------- helpers */

static inline uint64_t bits64(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline double dbl(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static inline uint32_t bits32(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline float flt(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

#define QNAN64 0x7ff8000000000000ull
#define QNAN32 0x7fc00000u

static double horner(const double *c, int n, double v) {
  double p = c[0];
  for (int i = 1; i < n; i++)
    p = fma(p, v, c[i]);
  return p;
}

static float hornerf(const float *c, int n, float v) {
  float p = c[0];
  for (int i = 1; i < n; i++)
    p = fmaf(p, v, c[i]);
  return p;
}

typedef struct {
  double h, l;
} DD;

static inline double pow2i(int64_t k) { /* 2^k, -1022 <= k <= 1023 */
  return dbl((uint64_t)(k + 1023) << 52);
}

/* ------------------------------------------------------------------- exp */

static double exp_core(double xh, double xl) {
  double c = xh > LEIR_M_EXP_HI ? LEIR_M_EXP_HI : xh;
  c = c < LEIR_M_EXP_LO ? LEIR_M_EXP_LO : c;
  double l = c == xh ? xl : 0.0;
  double t = fma(c, LEIR_M_INVLN2, LEIR_M_SHIFT);
  double kd = t - LEIR_M_SHIFT;
  int64_t k = (int64_t)bits64(t) - (int64_t)bits64(LEIR_M_SHIFT);
  double rh = fma(kd, -LEIR_M_LN2H, c);
  double rl = fma(kd, -LEIR_M_LN2L, l);
  double r = rh + rl;
  double dr = (rh - r) + rl;
  double p = horner(leir_m_exp_poly, LEIR_M_EXP_N, r);
  double c2 = fma(r * r, p, fma(dr, r, dr));
  double sh = 1.0 + r;
  double sl = (1.0 - sh) + r;
  double s = sh + (sl + c2);
  int64_t k1 = k / 2;
  int64_t k2 = k - k1;
  return (s * pow2i(k1)) * pow2i(k2);
}

double leir_exp(double x) {
  double r = exp_core(x, 0.0);
  return x != x ? x : r;
}

/* ------------------------------------------------------------------- log */

/* ln m, m in [sqrt(2)/2, sqrt(2)), as a double-double */
static DD log_mant(double m) {
  double f = m - 1.0;
  double uh = m + 1.0;
  double ul = m - (uh - 1.0);
  double sh = f / uh;
  double rr = fma(-sh, uh, f);
  rr = fma(-sh, ul, rr);
  double sl = rr / uh;
  double wh = sh * sh;
  double wl = fma(sh, sh, -wh);
  wl = fma(sh * 2.0, sl, wl);
  double th = sh * wh;
  double tl = fma(sh, wh, -th);
  tl = fma(sh, wl, tl);
  tl = fma(sl, wh, tl);
  double ah = th * LEIR_M_C23H;
  double al = fma(th, LEIR_M_C23H, -ah);
  al = fma(th, LEIR_M_C23L, al);
  al = fma(tl, LEIR_M_C23H, al);
  double tail = (th * wh) * horner(leir_m_log_poly, LEIR_M_LOG_N, wh);
  double bh = sh * 2.0;
  double bl = sl * 2.0;
  double hh = bh + ah;
  double hl = (bh - hh) + ah;
  double lo = hl + (bl + (al + tail));
  double Lh = hh + lo;
  return (DD){Lh, (hh - Lh) + lo};
}

static DD log_dd(double x) {
  bool sub = x < 0x1p-1022;
  x = sub ? x * 0x1p54 : x;
  int64_t eb = sub ? -54 : 0;
  uint64_t u = bits64(x);
  int64_t e = (int64_t)(u >> 52) - 1023 + eb;
  double m = dbl((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  bool big = m > LEIR_M_SQRT2;
  m = big ? m * 0.5 : m;
  e = big ? e + 1 : e;
  DD L = log_mant(m);
  double ed = (double)e;
  double ph = ed * LEIR_M_LN2H;
  double pl = fma(ed, LEIR_M_LN2H, -ph);
  pl = fma(ed, LEIR_M_LN2L, pl);
  double sH = ph + L.h;
  double bb = sH - ph;
  double sL = (ph - (sH - bb)) + (L.h - bb);
  sL = sL + (pl + L.l);
  double zh = sH + sL;
  return (DD){zh, (sH - zh) + sL};
}

double leir_log(double x) {
  double r = log_dd(x).h;
  r = x == INFINITY ? x : r;
  r = x == 0.0 ? -INFINITY : r;
  r = x < 0.0 ? dbl(QNAN64) : r;
  return x != x ? x : r;
}

/* ------------------------------------------------------------------- erf */

double leir_erf(double x) {
  double a = fabs(x);
  double w = a * a;
  double ra = fma(a, horner(leir_m_erfa_poly, LEIR_M_ERFA_N, w), a);
  double wl = fma(a, a, -w);
  double ex = exp_core(-w, -wl);
  double den = a + LEIR_M_ERF_C;
  double dl = (LEIR_M_ERF_C - den) + a;
  double t = 1.0 / den;
  double rt = fma(-t, den, 1.0);
  rt = fma(-t, dl, rt);
  double u = fma(t, rt, t - LEIR_M_ERF_T0);
  double rb = fma(-ex, horner(leir_m_erfb_poly, LEIR_M_ERFB_N, u), 1.0);
  double r = a < LEIR_M_ERF_SPLIT ? ra : rb;
  r = a >= LEIR_M_ERF_ONE ? 1.0 : r;
  r = copysign(r, x);
  return x != x ? x : r;
}

/* ------------------------------------------------------------------- pow */

static bool is_int(double v) {
  double av = fabs(v);
  bool big = av >= LEIR_M_TWO52;
  bool rnd = (av + LEIR_M_TWO52) - LEIR_M_TWO52 == av;
  return av != INFINITY && (big || rnd);
}

static DD dd_mul(DD a, DD b) {
  double p = a.h * b.h;
  double e = fma(a.h, b.h, -p);
  e = fma(a.h, b.l, e);
  e = fma(a.l, b.h, e);
  double h = p + e;
  return (DD){h, (p - h) + e};
}

/* |x|^n for 0 <= n <= 64 by binary powering in double-double */
static DD pow_int(double ax, int64_t n) {
  DD acc = {1.0, 0.0};
  DD b = {ax, 0.0};
  for (int i = 0; i < 7; i++) {
    if ((n >> i) & 1)
      acc = dd_mul(acc, b);
    if (i < 6)
      b = dd_mul(b, b);
  }
  return acc;
}

/* |x|^y for the cases the specials do not override */
static double pow_mag(double ax, double y, bool yint) {
  DD lg = log_dd(ax);
  double zh = y * lg.h;
  double zl = fma(y, lg.h, -zh);
  zl = fma(y, lg.l, zl);
  double r = exp_core(zh, zl);
  double ay = fabs(y);
  double yc = ay < LEIR_M_POW_IMAX ? ay : LEIR_M_POW_IMAX;
  int64_t n = (int64_t)bits64(yc + LEIR_M_TWO52) - (int64_t)bits64(LEIR_M_TWO52);
  DD acc = pow_int(ax, n);
  double q = 1.0 / acc.h;
  double ee = fma(-q, acc.h, 1.0);
  ee = fma(-q, acc.l, ee);
  double ri = y < 0.0 ? fma(q, ee, q) : acc.h + acc.l;
  bool ok = yint && ay <= LEIR_M_POW_IMAX && acc.h >= LEIR_M_POW_SMALL &&
            acc.h <= LEIR_M_POW_BIG;
  return ok ? ri : r;
}

double leir_pow(double x, double y) {
  double ax = fabs(x);
  double ay = fabs(y);
  bool yint = is_int(y);
  bool yodd = yint && !is_int(y * 0.5);
  bool yneg = y < 0.0;
  double r = pow_mag(ax, y, yint);
  r = ax == 0.0 ? (yneg ? INFINITY : 0.0) : r;
  r = ax == INFINITY ? (yneg ? 0.0 : INFINITY) : r;
  double rinf = (ax < 1.0) == yneg ? INFINITY : 0.0;
  r = ay == INFINITY ? (ax == 1.0 ? 1.0 : rinf) : r;
  bool xneg = (bits64(x) >> 63) != 0;
  r = yodd && xneg ? -r : r;
  r = x < 0.0 && ax != INFINITY && ay != INFINITY && !yint ? dbl(QNAN64) : r;
  r = y != y ? y : r;
  r = x != x ? x : r;
  r = y == 0.0 ? 1.0 : r;
  return x == 1.0 ? 1.0 : r;
}

/* ------------------------------------------------------------------- f32 */

/* The f32 routines in f32 arithmetic (see the contract above). */
/* leir_expf's polynomial and table (bench/mathlib_expf_fit.py 16 2) */
const float leir_mf_expf_poly[LEIR_MF_EXPF_N] = {0x1.555734p-3f, 0x1.000238p-1f};
const float leir_mf_expf_thi[LEIR_MF_EXPF_NT] = {
    0x1p+0f,        0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f, 0x1.306fep+0f,  0x1.3dea64p+0f,
    0x1.4bfdaep+0f, 0x1.5ab07ep+0f, 0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
    0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f,
};
const float leir_mf_expf_tlo[LEIR_MF_EXPF_NT] = {
    0x0p+0f,         0x1.9f3122p-25f,  -0x1.c15742p-27f, 0x1.ceac48p-25f,  0x1.4636e2p-25f,  0x1.824684p-25f,
    -0x1.593abcp-25f, -0x1.5bd5ecp-27f, 0x1.9fcef4p-26f,  -0x1.829fdp-25f,  0x1.15506ep-27f,  0x1.51f848p-27f,
    -0x1.a94b14p-26f, -0x1.3d56b2p-27f, -0x1.822dbcp-27f, 0x1.52486cp-27f,
};

/* leir_erff's tables (bench/mathlib_erf_fit.py 7): per interval i the
   centre M[i], K[i] (an f32 near erf(M[i])) and the 7 coefficients of the
   polynomial, highest degree first; interval 0 is erf(a)/a - 1 in a. */
const float leir_mf_erff_m[LEIR_MF_ERFF_NI] = {
    0x0p+0f, 0x1.504398p-1f, 0x1.56d03ep+0f, 0x1.df3dcp+0f,
    0x1.1d6edp+1f, 0x1.7159eap+1f, 0x1.b0e432p+1f, 0x1.ea8f96p+1f,
};
const float leir_mf_erff_k[LEIR_MF_ERFF_NI] = {
    0x0p+0f, 0x1.4b4502p-1f, 0x1.e22cc2p-1f, 0x1.fbd904p-1f,
    0x1.ff2ca2p-1f, 0x1.fffa1ep-1f, 0x1.ffffc6p-1f, 0x1.fffffep-1f,
};
const float leir_mf_erff_c[LEIR_MF_ERFF_N][LEIR_MF_ERFF_NI] = {
    {-0x1.34f3b2p-6f, 0x1.22f676p-6f, 0x1.7589e2p-9f, -0x1.6ff9b4p-8f, -0x1.f0bdd8p-13f, 0x1.231a7ap-11f, 0x1.beaccep-14f, 0x1.83f902p-17f},
    {-0x1.bc25c2p-8f, -0x1.38a00ep-5f, 0x1.6e65e2p-6f, 0x1.13f502p-8f, -0x1.75ee84p-9f, -0x1.2410cep-10f, -0x1.37ae8ap-13f, -0x1.97c4c4p-17f},
    {0x1.d7fd4ap-4f, -0x1.1f8836p-5f, -0x1.23b83ep-5f, 0x1.76841p-7f, 0x1.678f44p-7f, 0x1.ad8fc8p-10f, 0x1.499b88p-13f, 0x1.69e286p-17f},
    {-0x1.a9fa12p-12f, 0x1.5f4094p-3f, -0x1.92e5ccp-6f, -0x1.5b8ecap-5f, -0x1.4a631ep-6f, -0x1.d5fbb4p-10f, -0x1.1d38cep-13f, -0x1.0a4e2cp-17f},
    {-0x1.811f2ep-2f, -0x1.12db2p-5f, 0x1.4b9526p-3f, 0x1.164ac4p-4f, 0x1.7dbbeap-6f, 0x1.7591f2p-10f, 0x1.74230cp-14f, 0x1.2b5862p-18f},
    {-0x1.9599a2p-21f, -0x1.ecfcfcp-2f, -0x1.0180e4p-2f, -0x1.0418fcp-4f, -0x1.1d7acep-6f, -0x1.9d2c18p-11f, -0x1.592a62p-15f, -0x1.e516e2p-20f},
    {0x1.06eba8p-3f, 0x1.7750a4p-1f, 0x1.809678p-3f, 0x1.15e066p-5f, 0x1.000a8ep-7f, 0x1.1e5eecp-12f, 0x1.9834dep-17f, 0x1.fa46e4p-22f},
};

float leir_expf(float x) {
  float c = x > LEIR_MF_EXPF_HI ? LEIR_MF_EXPF_HI : x;
  bool zero = c < LEIR_MF_EXPF_LO;
  c = zero ? LEIR_MF_EXPF_LO : c;
  float t = fmaf(c, LEIR_MF_INVLN2, LEIR_MF_EXPF_SHIFT);
  float kf = t - LEIR_MF_EXPF_SHIFT;
  uint32_t tb = bits32(t);
  uint32_t j = tb & (LEIR_MF_EXPF_NT - 1);
  uint32_t kb = tb >> 4;
  uint32_t h = tb >> 5;
  float r = fmaf(kf, -LEIR_MF_EXPF_LN2H, c);
  r = fmaf(kf, -LEIR_MF_EXPF_LN2L, r);
  float q = hornerf(leir_mf_expf_poly, LEIR_MF_EXPF_N, r);
  float p = fmaf(r * r, q, r);
  float th = leir_mf_expf_thi[j];
  float u = fmaf(th, p, leir_mf_expf_tlo[j]);
  float s = th + u;
  float s1 = flt((h + 127u) << 23);
  float s2 = zero ? 0.0f : flt((kb - h + 127u) << 23);
  float y = (s * s1) * s2;
  return x != x ? x : y;
}

float leir_expf_cr(float x) {
  double d = (double)x;
  double c = d > LEIR_M_EXPF_HI ? LEIR_M_EXPF_HI : d;
  c = c < LEIR_M_EXPF_LO ? LEIR_M_EXPF_LO : c;
  double t = fma(c, LEIR_M_INVLN2, LEIR_M_SHIFT);
  double kd = t - LEIR_M_SHIFT;
  int64_t k = (int64_t)bits64(t) - (int64_t)bits64(LEIR_M_SHIFT);
  double r = fma(kd, -LEIR_M_LN2H, c);
  double p = horner(leir_m_expf_poly, LEIR_M_EXPF_N, r);
  float f = (float)(p * dbl(((uint64_t)k + 1023u) << 52));
  return x != x ? x : f;
}

/* ln d for a positive finite f32 value d, in f64 (leir_powf) */
static double logf_d(double d) {
  uint64_t u = bits64(d);
  double ed = dbl((u >> 52) | 0x4330000000000000ull) - LEIR_M_LOGF_EB;
  double m = dbl((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  bool big = m > LEIR_M_SQRT2;
  m = big ? m * 0.5 : m;
  ed = big ? ed + 1.0 : ed;
  double f = m - 1.0;
  double s = f / (f + 2.0);
  double w = s * s;
  double q = horner(leir_m_logf_poly, LEIR_M_LOGF_N, w);
  return fma(ed, LEIR_M_LN2H, fma(s * w, q, s + s));
}

float leir_logf(float x) {
  bool sub = x < 0x1p-126f;
  float xs = sub ? x * 0x1p23f : x;
  uint32_t ix = bits32(xs) - (sub ? LEIR_MF_LOGF_OFFS : LEIR_MF_LOGF_OFF);
  int32_t k = (int32_t)ix >> 23;
  float r = flt((ix & 0x007fffffu) + LEIR_MF_LOGF_OFF) - 1.0f;
  float ef = (float)k;
  float p = hornerf(leir_mf_logf_poly, LEIR_MF_LOGF_N, r);
  float ph = ef * LEIR_MF_LOGF_LN2H;
  float hi = ph + r;
  float dl = (ph - hi) + r;
  float lo = fmaf(r * r, p, fmaf(ef, LEIR_MF_LOGF_LN2L, dl));
  float y = hi + lo;
  y = x == INFINITY ? x : y;
  y = x == 0.0f ? -INFINITY : y;
  y = x < 0.0f ? flt(QNAN32) : y;
  return x != x ? x : y;
}

/* leir_logf's (log1p(r) - r)/r^2 on r in [sqrt(1/2) - 1, sqrt(2) - 1]
   (bench/mathlib_logf_fit.py 9): weighted least squares on Chebyshev nodes,
   rounded to f32 one at a time; |r| times the fit error below 2^-27.5. */
const float leir_mf_logf_poly[LEIR_MF_LOGF_N] = {
    -0x1.393992p-4f, 0x1.07d094p-3f, -0x1.0ebd66p-3f, 0x1.227fe2p-3f, -0x1.543a18p-3f,
    0x1.99a39ap-3f,  -0x1.0003acp-2f, 0x1.55555p-2f,  -0x1.fffffap-2f,
};

float leir_erff(float x) {
  float a = fabsf(x);
  float c = a < LEIR_MF_ERFF_ONE ? a : LEIR_MF_ERFF_ONE;
  int i = (int)fmaf(c, LEIR_MF_ERFF_SCALE, LEIR_MF_ERFF_BIAS);
  float u = c - leir_mf_erff_m[i];
  float p = leir_mf_erff_c[0][i];
  for (int j = 1; j < LEIR_MF_ERFF_N; j++)
    p = fmaf(p, u, leir_mf_erff_c[j][i]);
  float r = fmaf(u, p, i == 0 ? a : leir_mf_erff_k[i]);
  float y = copysignf(r, x);
  return x != x ? x : y;
}

float leir_erff_cr(float x) {
  double d = (double)x;
  double a = fabs(d);
  double w = a * a;
  double ra = a * horner(leir_m_erffa_poly, LEIR_M_ERFFA_N, w);
  double c = a < LEIR_M_ERFF_ONE ? a : LEIR_M_ERFF_ONE;
  double wc = c * c;
  double t = fma(-wc, LEIR_M_INVLN2, LEIR_M_SHIFT);
  double kd = t - LEIR_M_SHIFT;
  int64_t k = (int64_t)bits64(t) - (int64_t)bits64(LEIR_M_SHIFT);
  double ex = horner(leir_m_expf_poly, LEIR_M_EXPF_N, fma(kd, -LEIR_M_LN2H, -wc)) *
              dbl(((uint64_t)k + 1023u) << 52);
  double rb = fma(-ex, horner(leir_m_erffb_poly, LEIR_M_ERFFB_N, c - LEIR_M_ERFF_MID), 1.0);
  double r = a < LEIR_M_ERFF_SPLIT ? ra : rb;
  r = a >= LEIR_M_ERFF_ONE ? 1.0 : r;
  float y = (float)copysign(r, d);
  return x != x ? x : y;
}


/* e^z in f64, sized for an f32 result (leir_powf) */
static double expf_d(double z) {
  double c = z > LEIR_M_EXPF_HI ? LEIR_M_EXPF_HI : z;
  c = c < LEIR_M_EXPF_LO ? LEIR_M_EXPF_LO : c;
  double t = fma(c, LEIR_M_INVLN2, LEIR_M_SHIFT);
  double kd = t - LEIR_M_SHIFT;
  int64_t k = (int64_t)bits64(t) - (int64_t)bits64(LEIR_M_SHIFT);
  double r = fma(kd, -LEIR_M_LN2H, c);
  return horner(leir_m_expf_poly, LEIR_M_EXPF_N, r) * dbl(((uint64_t)k + 1023u) << 52);
}

/* is v an integer (f32 version of is_int: the same answer for every f32 v) */
static bool is_intf(float v) {
  float av = fabsf(v);
  bool big = av >= LEIR_MF_TWO23;
  bool rnd = (av + LEIR_MF_TWO23) - LEIR_MF_TWO23 == av;
  return av != INFINITY && (big || rnd);
}

float leir_powf(float x, float y) {
  double r = expf_d((double)y * logf_d(fabs((double)x)));
  float f = (float)r;
  float ax = fabsf(x);
  float ay = fabsf(y);
  bool yint = is_intf(y);
  bool yodd = yint && !is_intf(y * 0.5f);
  bool yneg = y < 0.0f;
  float yc = ay < LEIR_MF_POWF_IMAX ? ay : LEIR_MF_POWF_IMAX;
  uint32_t n = bits32(yc + LEIR_MF_TWO23) - bits32(LEIR_MF_TWO23);
  float a2 = ax * ax;
  float p = (n & 1u) != 0 ? ax : 1.0f;
  p = (n & 2u) != 0 ? p * a2 : p;
  float ri = yneg ? 1.0f / p : p;
  float fi = y <= LEIR_MF_POWF_IMAX ? ri : f;
  fi = y >= -1.0f ? fi : f;
  f = yint ? fi : f;
  f = y == 0.5f ? sqrtf(ax) : f;
  f = ax == 0.0f ? (yneg ? INFINITY : 0.0f) : f;
  f = ax == INFINITY ? (yneg ? 0.0f : INFINITY) : f;
  float rinf = (ax < 1.0f) == yneg ? INFINITY : 0.0f;
  f = ay == INFINITY ? (ax == 1.0f ? 1.0f : rinf) : f;
  bool xneg = (bits32(x) >> 31) != 0;
  f = xneg ? (yodd ? -f : f) : f;
  float q = yint ? f : flt(QNAN32);
  q = ay == INFINITY ? f : q;
  q = ax == INFINITY ? f : q;
  f = x < 0.0f ? q : f;
  f = y != y ? y : f;
  f = x != x ? x : f;
  f = y == 0.0f ? 1.0f : f;
  return x == 1.0f ? 1.0f : f;
}

float leir_powf_cr(float x, float y) {
  float r = (float)leir_pow((double)x, (double)y);
  float n = y != y ? y : flt(QNAN32);
  n = x != x ? x : n;
  return r != r ? n : r;
}

/* ------------------------------------------------------------- f16, bf16 */

uint16_t leir_f32_to_f16(float x) {
  uint32_t b = bits32(x);
  uint32_t s = (b >> 16) & 0x8000u;
  uint32_t a = b & 0x7fffffffu;
  uint32_t rn = a - 0x38000000u;
  uint32_t hn = (rn + 0xfffu + ((rn >> 13) & 1u)) >> 13;
  uint32_t sh = 126u - (a >> 23);
  sh = sh > 31u ? 31u : sh;
  sh = sh < 14u ? 14u : sh;
  uint32_t m = (a & 0x7fffffu) | 0x800000u;
  uint32_t hs = (m + (1u << (sh - 1u)) - 1u + ((m >> sh) & 1u)) >> sh;
  uint32_t h = a < 0x38800000u ? hs : hn;
  h = a >= 0x47800000u ? 0x7c00u : h;
  h = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x3ffu)) : h;
  return (uint16_t)(s | h);
}

float leir_f16_to_f32(uint16_t h16) {
  uint32_t h = h16;
  uint32_t s = (h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  uint32_t bn = s | ((e + 112u) << 23) | (m << 13);
  uint32_t bi = s | 0x7f800000u | (m << 13);
  uint32_t bs = s | bits32((float)m * 0x1p-24f);
  return flt(e == 0u ? bs : (e == 31u ? bi : bn));
}

uint16_t leir_f32_to_bf16(float x) {
  uint32_t b = bits32(x);
  uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
  return (uint16_t)((b & 0x7fffffffu) > 0x7f800000u ? (b >> 16) | 0x40u : r);
}

float leir_bf16_to_f32(uint16_t h) { return flt((uint32_t)h << 16); }

float leir_round_f16(float x) { return leir_f16_to_f32(leir_f32_to_f16(x)); }

float leir_round_bf16(float x) { return leir_bf16_to_f32(leir_f32_to_bf16(x)); }

/* ------------------------------------------------------------ fingerprint */

/* The arguments: 512 points of [-16, 16) (the polynomials' ranges), their
 * magnitudes plus 1/64 (log, pow's bases), and 64 bit patterns from an LCG
 * (specials, subnormals, huge values). */
static void fp_args(int i, float *xf, double *xd) {
  if (i < 512) {
    *xd = (double)(i - 256) * 0.0625 + 0.001953125 * (double)(i % 7);
    *xf = (float)*xd;
    return;
  }
  uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(i - 511);
  s ^= s >> 29;
  *xf = flt((uint32_t)(s >> 32));
  *xd = dbl(s * 0xbf58476d1ce4e5b9ull);
}

uint64_t leir_math_fingerprint(void) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < 576; i++) {
    float xf, ax;
    double xd, axd;
    fp_args(i, &xf, &xd);
    ax = fabsf(xf) + 0.015625f;
    axd = fabs(xd) + 0.015625;
    uint32_t f[] = {bits32(leir_expf(xf)), bits32(leir_logf(ax)), bits32(leir_erff(xf)),
                    bits32(leir_powf(ax, xf * 0.125f)), bits32(leir_powf(xf, 3.0f)),
                    bits32(leir_round_f16(xf)), bits32(leir_round_bf16(xf))};
    uint64_t d[] = {bits64(leir_exp(xd)), bits64(leir_log(axd)), bits64(leir_erf(xd)),
                    bits64(leir_pow(axd, xd * 0.125)), bits64(leir_pow(xd, 3.0))};
    h = ir_fnv1a_step(h, (const char *)f, sizeof f);
    h = ir_fnv1a_step(h, (const char *)d, sizeof d);
  }
  return h;
}
