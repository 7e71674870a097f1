/* value.c -- the value analysis (see value.h): the domain, the arithmetic of
 * each type and the transfer functions.  Expressions and guards are in
 * value_expr.c, the program's fixed point in value_program.c. */
#include "ir/value.h"
#include "ir/value_mag.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ domain */

static double imin(double a, double b) { return a < b ? a : b; }
static double imax(double a, double b) { return a > b ? a : b; }

IrValue ir_value_bottom(void) { return (IrValue){.bottom = true}; }

IrValue ir_value_top(void) {
  return (IrValue){.lo = -INFINITY, .hi = INFINITY, .may_zero = true, .may_nan = true, .may_inf = true};
}

IrValue ir_value_int(int64_t lo, int64_t hi) {
  return ir_value_mag_reset((IrValue){.integral = true, .iok = true, .ilo = lo, .ihi = hi, .lo = (double)lo,
                                      .hi = (double)hi, .may_zero = lo <= 0 && hi >= 0});
}

IrValue ir_value_real(double lo, double hi) {
  return ir_value_mag_reset((IrValue){.lo = lo, .hi = hi, .may_zero = lo <= 0 && hi >= 0});
}

/* A real hull [lo, hi] (no NaN); integral and int64 bounds when they fit. */
static IrValue hull(double lo, double hi, bool integral) {
  if (integral && lo >= -0x1p63 && hi < 0x1p63) return ir_value_int((int64_t)lo, (int64_t)hi);
  IrValue v = ir_value_real(lo, hi);
  v.integral = integral;
  return v;
}

IrValue ir_value_const(double v) {
  if (isnan(v)) return ir_value_mag_reset((IrValue){.lo = INFINITY, .hi = -INFINITY, .may_nan = true});
  IrValue r = hull(v, v, v == floor(v) && isfinite(v));
  r.may_inf = isinf(v);
  return ir_value_mag_reset(r);
}

static bool int_range(IrDType t, int64_t *lo, int64_t *hi) {
  switch (t) {
  case DT_I8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
  case DT_I16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
  case DT_I32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
  case DT_I64: *lo = INT64_MIN, *hi = INT64_MAX; return true;
  case DT_U8: *lo = 0, *hi = UINT8_MAX; return true;
  case DT_U16: *lo = 0, *hi = UINT16_MAX; return true;
  case DT_U32: *lo = 0, *hi = UINT32_MAX; return true;
  case DT_BOOL: *lo = 0, *hi = 1; return true;
  default: return false; /* floats; u64 does not fit int64 */
  }
}

static bool is_int_type(IrDType t) { return ir_dtype_is_signed_int(t) || ir_dtype_is_unsigned_int(t) || t == DT_BOOL; }

static double float_max(IrDType t) {
  switch (t) {
  case DT_F16: return 65504.0;
  case DT_BF16: return 3.3895313892515355e38;
  case DT_F32: return FLT_MAX;
  default: return DBL_MAX;
  }
}

/* The smallest positive value of a float type (a smaller magnitude rounds
   to zero). */
static double float_tiny(IrDType t) {
  switch (t) {
  case DT_F16: return 5.960464477539063e-08;
  case DT_BF16: return 9.183549615799121e-41;
  case DT_F32: return 1.401298464324817e-45;
  default: return 4.9406564584124654e-324;
  }
}

IrValue ir_value_of_dtype(IrDType t, bool finite) {
  int64_t lo, hi;
  if (int_range(t, &lo, &hi)) return ir_value_int(lo, hi);
  if (t == DT_U64) {
    IrValue v = ir_value_real(0, 18446744073709551615.0);
    v.integral = true;
    return v;
  }
  if (finite) return ir_value_real(-float_max(t), float_max(t));
  return ir_value_top();
}

IrValue ir_value_input(IrDType t) {
  IrValue v = ir_value_of_dtype(t, true);
  if (v.mag_hi < IR_MAG_LINEAR) v.mag_hi = IR_MAG_LINEAR;
  if (v.mag_lo < IR_MAG_LINEAR) v.mag_lo = IR_MAG_LINEAR;
  v.mag_num = true;
  v.mag_scaled = true; /* REF's inputs: no zero entry, scaled by 10 (STRATEGIES 0.4) */
  return v;
}

IrValue ir_value_join(IrValue a, IrValue b) {
  if (a.bottom) return b;
  if (b.bottom) return a;
  IrValue r = {0};
  r.integral = a.integral && b.integral;
  r.iok = a.iok && b.iok && r.integral;
  if (r.iok) {
    r.ilo = a.ilo < b.ilo ? a.ilo : b.ilo;
    r.ihi = a.ihi > b.ihi ? a.ihi : b.ihi;
  }
  r.lo = imin(a.lo, b.lo);
  r.hi = imax(a.hi, b.hi);
  r.may_zero = a.may_zero || b.may_zero;
  r.may_nan = a.may_nan || b.may_nan;
  r.may_inf = a.may_inf || b.may_inf;
  r.inexact = a.inexact || b.inexact;
  r.mag_hi = a.mag_hi < b.mag_hi ? a.mag_hi : b.mag_hi;
  r.mag_lo = a.mag_lo < b.mag_lo ? a.mag_lo : b.mag_lo;
  r.mag_num = a.mag_num && b.mag_num;
  r.mag_scaled = a.mag_scaled && b.mag_scaled;
  return r;
}

bool ir_value_eq(IrValue a, IrValue b) {
  if (a.bottom || b.bottom) return a.bottom == b.bottom;
  return a.integral == b.integral && a.iok == b.iok && (!a.iok || (a.ilo == b.ilo && a.ihi == b.ihi)) &&
         (a.lo == b.lo || (isnan(a.lo) && isnan(b.lo))) && (a.hi == b.hi || (isnan(a.hi) && isnan(b.hi))) &&
         a.may_zero == b.may_zero && a.may_nan == b.may_nan && a.may_inf == b.may_inf && a.inexact == b.inexact &&
         a.mag_hi == b.mag_hi && a.mag_lo == b.mag_lo && a.mag_num == b.mag_num &&
         a.mag_scaled == b.mag_scaled;
}

bool ir_value_nonneg(IrValue v) { return v.bottom || (!v.may_nan && v.lo >= 0); }
bool ir_value_pos(IrValue v) { return v.bottom || (!v.may_nan && v.lo >= 0 && !v.may_zero); }
bool ir_value_nonpos(IrValue v) { return v.bottom || (!v.may_nan && v.hi <= 0); }
bool ir_value_neg(IrValue v) { return v.bottom || (!v.may_nan && v.hi <= 0 && !v.may_zero); }
bool ir_value_finite(IrValue v) { return v.bottom || (!v.may_nan && !v.may_inf); }
bool ir_value_bounded(IrValue v, double bound) {
  return ir_value_finite(v) && (v.bottom || (v.lo >= -bound && v.hi <= bound));
}
bool ir_value_int_exact(IrValue v) { return !v.bottom && v.iok && !v.inexact && !v.may_nan && !v.may_inf; }

/* Proven nonzero (NaN counts as nonzero, as a condition) / proven zero. */
static bool truthy(IrValue v) { return !v.may_zero; }
static bool falsy(IrValue v) { return !v.may_nan && !v.may_inf && v.lo == 0 && v.hi == 0; }

/* ------------------------------------------------------------ the type */

/* A float result whose magnitude may be below the type's smallest value
   rounds to zero (underflow): zero joins the hull. */
static IrValue underflow(IrValue r, IrDType t) {
  double tiny = float_tiny(t);
  if (r.lo <= tiny && r.hi >= -tiny && !(r.lo > r.hi)) {
    r.may_zero = true;
    if (r.lo > 0) r.lo = 0;
    if (r.hi < 0) r.hi = 0;
  }
  return r;
}

/* The result of exact arithmetic r (iok when it fit int64; else its real
   hull) done in dtype t. */
static IrValue in_type(IrValue r, IrDType t) {
  if (r.bottom) return r;
  if (t == DT_NONE) {
    if (!r.integral) r = underflow(r, DT_F64);
    return r;
  }
  if (is_int_type(t) || t == DT_U64) {
    int64_t lo, hi;
    bool fits;
    if (t == DT_U64) fits = r.iok && r.ilo >= 0, lo = 0, hi = INT64_MAX;
    else fits = int_range(t, &lo, &hi) && r.iok && r.ilo >= lo && r.ihi <= hi;
    if (fits && !r.may_nan && !r.may_inf) return r;
    IrValue w = ir_value_of_dtype(t, true);
    w.may_zero = true;
    w.inexact = true;
    return w;
  }
  /* a float type: the hull was computed in double; a narrower type rounds
     its results once more (up to half an ulp of the type outwards: widen by
     2^-9 relative, which keeps signs), except small integers, exact in
     every float type */
  double m = float_max(t);
  r.iok = false;
  if (t != DT_F64) {
    if (isfinite(r.lo) && ir_dtype_literal_value(t, r.lo) != r.lo) r.lo -= fabs(r.lo) * 0x1p-9;
    if (isfinite(r.hi) && ir_dtype_literal_value(t, r.hi) != r.hi) r.hi += fabs(r.hi) * 0x1p-9;
  }
  r = underflow(r, t);
  if (r.hi > m) {
    if (!(r.may_inf && r.hi == INFINITY)) r.inexact = true;
    r.hi = INFINITY;
    r.may_inf = true;
  }
  if (r.lo < -m) {
    if (!(r.may_inf && r.lo == -INFINITY)) r.inexact = true;
    r.lo = -INFINITY;
    r.may_inf = true;
  }
  return r;
}

/* Operands of integer arithmetic: both integral with int64 bounds, in an
   integer type (or DT_NONE). */
static bool int_op(IrValue a, IrValue b, IrDType t) {
  return (t == DT_NONE || is_int_type(t) || t == DT_U64) && a.iok && b.iok;
}

static double minabs(IrValue v) {
  if (v.lo <= 0 && v.hi >= 0) return 0;
  return imin(fabs(v.lo), fabs(v.hi));
}
static double maxabs(IrValue v) { return imax(fabs(v.lo), fabs(v.hi)); }

/* An integer op of unknown result in type t (its operands unknown, or a
   divisor that may be 0: not an overflow). */
static IrValue unknown_int(IrDType t, IrValue a, IrValue b) {
  IrValue r = t == DT_NONE ? ir_value_real(-INFINITY, INFINITY) : ir_value_of_dtype(t, true);
  r.integral = true;
  r.may_zero = true;
  r.inexact = a.inexact || b.inexact;
  return r;
}

/* Exact integer arithmetic that left int64 (index arithmetic that would
   wrap): unknown, and inexact. */
static IrValue overflow(IrValue a, IrValue b) {
  IrValue r = unknown_int(DT_NONE, a, b);
  r.inexact = true;
  return r;
}

static IrValue finish(IrValue r, IrValue a, IrValue b) {
  r.inexact |= a.inexact || b.inexact;
  r.may_nan |= a.may_nan || b.may_nan;
  return r;
}

/* ------------------------------------------------------------ arithmetic */

static IrValue neg_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  if (a.iok) {
    if (a.ilo == INT64_MIN) return in_type(overflow(a, a), t);
    IrValue r = ir_value_int(-a.ihi, -a.ilo);
    r.may_zero = a.may_zero;
    return in_type(finish(r, a, a), t);
  }
  IrValue r = a;
  r.lo = -a.hi;
  r.hi = -a.lo;
  return in_type(r, t);
}

static IrValue addsub(IrValue a, IrValue b, IrDType t, bool sub) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  if (int_op(a, b, t)) {
    int64_t lo, hi;
    bool o = sub ? __builtin_sub_overflow(a.ilo, b.ihi, &lo) || __builtin_sub_overflow(a.ihi, b.ilo, &hi)
                 : __builtin_add_overflow(a.ilo, b.ilo, &lo) || __builtin_add_overflow(a.ihi, b.ihi, &hi);
    if (o) return in_type(overflow(a, b), t);
    return in_type(finish(ir_value_int(lo, hi), a, b), t);
  }
  if (sub) {
    double x = b.lo;
    b.lo = -b.hi;
    b.hi = -x;
  }
  double lo = a.lo + b.lo, hi = a.hi + b.hi;
  if (isnan(lo)) lo = -INFINITY;
  if (isnan(hi)) hi = INFINITY;
  bool flt = ir_dtype_is_float(t);
  IrValue r = hull(lo, hi, a.integral && b.integral && !flt);
  if (flt) r.iok = false, r.integral = false;
  r.may_inf = a.may_inf || b.may_inf;
  r.may_nan = a.may_inf && b.may_inf && ((a.hi == INFINITY && b.lo == -INFINITY) || (a.lo == -INFINITY && b.hi == INFINITY));
  /* a value >= 0 plus one > 0 (or <= 0 plus < 0) is never 0, even where a
     bound rounded to 0 or may underflow: float addition is monotone and
     exact near 0 */
  bool nz = (a.lo >= 0 && b.lo >= 0 && (!a.may_zero || !b.may_zero)) ||
            (a.hi <= 0 && b.hi <= 0 && (!a.may_zero || !b.may_zero));
  r = in_type(finish(r, a, b), t);
  if (nz && (flt || (t == DT_NONE && !r.integral))) r.may_zero = false;
  return r;
}


static double mulb(double x, double y) { return x == 0 || y == 0 ? 0 : x * y; }

static IrValue mul_iv(IrValue a, IrValue b, IrDType t) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  IrValue r;
  if (int_op(a, b, t)) {
    int64_t p[4];
    if (__builtin_mul_overflow(a.ilo, b.ilo, &p[0]) || __builtin_mul_overflow(a.ilo, b.ihi, &p[1]) ||
        __builtin_mul_overflow(a.ihi, b.ilo, &p[2]) || __builtin_mul_overflow(a.ihi, b.ihi, &p[3]))
      return in_type(overflow(a, b), t);
    int64_t lo = p[0], hi = p[0];
    for (int i = 1; i < 4; i++) {
      if (p[i] < lo) lo = p[i];
      if (p[i] > hi) hi = p[i];
    }
    r = ir_value_int(lo, hi);
    r.may_zero = a.may_zero || b.may_zero;
    return in_type(finish(r, a, b), t);
  }
  double c[4] = {mulb(a.lo, b.lo), mulb(a.lo, b.hi), mulb(a.hi, b.lo), mulb(a.hi, b.hi)};
  double lo = c[0], hi = c[0];
  for (int i = 1; i < 4; i++) lo = imin(lo, c[i]), hi = imax(hi, c[i]);
  bool flt = ir_dtype_is_float(t);
  r = hull(lo, hi, a.integral && b.integral && !flt);
  if (flt) r.iok = false, r.integral = false;
  r.may_zero = a.may_zero || b.may_zero || (lo <= 0 && hi >= 0 && flt && minabs(a) * minabs(b) <= float_tiny(t));
  r.may_inf = a.may_inf || b.may_inf;
  r.may_nan = (a.may_zero && b.may_inf) || (b.may_zero && a.may_inf);
  return in_type(finish(r, a, b), t);
}

static IrValue square_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  /* the same value twice: never negative (before any wrap); zero only from
     a zero or an underflow; NaN only from a NaN (inf*0 needs two values) */
  bool flt = ir_dtype_is_float(t);
  if (!flt && a.iok) {
    IrValue r = ir_value_mul(a, a, DT_NONE); /* exact, then the type */
    if (r.iok) {
      int64_t m = a.ilo <= 0 && a.ihi >= 0 ? 0 : (a.ilo > 0 ? a.ilo : -a.ihi), q = 0;
      if (!__builtin_mul_overflow(m, m, &q) && q > r.ilo) r.ilo = q;
      if (r.ilo < 0) r.ilo = 0;
      r.lo = (double)r.ilo;
      r.may_zero = a.may_zero;
    }
    return in_type(r, t);
  }
  IrValue r = ir_value_mul(a, a, t);
  if (!flt) return r;
  double l2 = minabs(a) * minabs(a);
  double lo = t != DT_F64 ? l2 - l2 * 0x1p-9 : l2;
  r.lo = imax(imax(r.lo, 0), imin(lo, r.hi));
  r.may_nan = a.may_nan;
  r.may_zero = a.may_zero || l2 <= float_tiny(t);
  if (r.may_zero) r.lo = 0;
  return r;
}

/* Integer division with both operands' int64 bounds; floor or truncation. */
static int64_t divi(int64_t a, int64_t b, bool floor_) {
  int64_t q = a / b;
  if (floor_ && a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

static IrValue int_divide(IrValue a, IrValue b, IrDType t, bool floor_) {
  if (b.may_zero || (b.ilo < 0 && b.ihi > 0)) {
    /* a divisor that may be 0 (or of both signs): |q| <= |a| when not 0 */
    if (b.may_zero || a.ilo == INT64_MIN) return in_type(unknown_int(t, a, b), t);
    int64_t m = a.ihi > -a.ilo ? a.ihi : -a.ilo;
    IrValue r = ir_value_int(-m, m);
    return in_type(finish(r, a, b), t);
  }
  if ((a.ilo == INT64_MIN) && b.ilo <= -1 && b.ihi >= -1) return in_type(overflow(a, b), t);
  int64_t c[4] = {divi(a.ilo, b.ilo, floor_), divi(a.ilo, b.ihi, floor_), divi(a.ihi, b.ilo, floor_),
                  divi(a.ihi, b.ihi, floor_)};
  int64_t lo = c[0], hi = c[0];
  for (int i = 1; i < 4; i++) {
    if (c[i] < lo) lo = c[i];
    if (c[i] > hi) hi = c[i];
  }
  IrValue r = ir_value_int(lo, hi);
  return in_type(finish(r, a, b), t);
}

static IrValue real_divide(IrValue a, IrValue b, IrDType t) {
  IrValue r;
  bool bpos = b.lo > 0 || (b.lo >= 0 && !b.may_zero), bneg = b.hi < 0 || (b.hi <= 0 && !b.may_zero);
  if ((b.lo > 0 || b.hi < 0)) {
    double c[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < 4; i++) {
      if (isnan(c[i])) lo = -INFINITY, hi = INFINITY; /* inf/inf */
      else lo = imin(lo, c[i]), hi = imax(hi, c[i]);
    }
    r = ir_value_real(lo, hi);
  } else if ((ir_value_nonneg(a) && bpos) || (ir_value_nonpos(a) && bneg)) {
    r = ir_value_real(0, INFINITY);
  } else if ((ir_value_nonneg(a) && bneg) || (ir_value_nonpos(a) && bpos)) {
    r = ir_value_real(-INFINITY, 0);
  } else {
    r = ir_value_real(-INFINITY, INFINITY);
  }
  bool flt = t == DT_NONE || ir_dtype_is_float(t);
  double tiny = flt && t != DT_NONE ? float_tiny(t) : 0;
  r.may_zero = a.may_zero || b.may_inf || maxabs(b) == INFINITY || (flt && minabs(a) / maxabs(b) <= tiny);
  if (!r.may_zero && r.lo <= 0 && r.hi >= 0) r.may_zero = false;
  r.may_inf = a.may_inf || (b.may_zero && (!a.may_zero || a.lo != 0 || a.hi != 0));
  r.may_nan = (a.may_zero && b.may_zero) || (a.may_inf && b.may_inf);
  return in_type(finish(r, a, b), t);
}

static IrValue div_iv(IrValue a, IrValue b, IrDType t) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  if (int_op(a, b, t)) return int_divide(a, b, t, false);
  if (is_int_type(t) || t == DT_U64) return in_type(unknown_int(t, a, b), t);
  return real_divide(a, b, t);
}

static IrValue floordiv_iv(IrValue a, IrValue b, IrDType t) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  if (int_op(a, b, t)) return int_divide(a, b, t, true);
  if (is_int_type(t) || t == DT_U64) return in_type(unknown_int(t, a, b), t);
  IrValue q = real_divide(a, b, t);
  q.lo = floor(q.lo);
  q.hi = floor(q.hi);
  q.may_zero = q.lo <= 0 && q.hi >= 0;
  q.integral = false;
  return q;
}

static int64_t fmodi(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

static IrValue mod_iv(IrValue a, IrValue b, IrDType t) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  IrValue r;
  /* integers (any integral dividend in index arithmetic): the result has
     the divisor's sign and is smaller in magnitude */
  if (int_op(a, b, t) || (t == DT_NONE && b.iok && a.integral)) {
    if (b.may_zero || (b.ilo <= 0 && b.ihi >= 0)) return in_type(unknown_int(t, a, b), t);
    if (b.ilo > 0) {
      if (a.iok && b.ilo == b.ihi && divi(a.ilo, b.ilo, true) == divi(a.ihi, b.ilo, true))
        r = ir_value_int(fmodi(a.ilo, b.ilo), fmodi(a.ihi, b.ilo));
      else if (a.iok && a.ilo >= 0 && a.ihi < b.ilo)
        r = ir_value_int(a.ilo, a.ihi), r.may_zero = a.may_zero;
      else
        r = ir_value_int(0, b.ihi - 1);
    } else {
      if (a.iok && a.ihi <= 0 && a.ilo > b.ihi) r = ir_value_int(a.ilo, a.ihi), r.may_zero = a.may_zero;
      else r = ir_value_int(b.ilo + 1, 0);
    }
    return in_type(finish(r, a, b), t);
  }
  if (is_int_type(t) || t == DT_U64) return in_type(unknown_int(t, a, b), t);
  /* floats: a - floor(a/b)*b, rounded: the divisor's sign up to rounding
     (a/b rounding up to an integer gives a tiny value of the other sign) */
  /* |a - floor(a/b)*b| <= |b| plus the rounding of a/b and of the
     product, a few ulps of a */
  double eps = t == DT_F16 ? 0x1p-10 : t == DT_BF16 ? 0x1p-7 : t == DT_F32 ? 0x1p-23 : 0x1p-52;
  double m = maxabs(b) + 4 * eps * maxabs(a);
  r = ir_value_real(-m, m);
  r.may_nan = b.may_zero || a.may_inf || b.may_inf;
  r.may_inf = m == INFINITY;
  if (!(maxabs(a) / minabs(b) < float_max(t == DT_NONE ? DT_F64 : t) / 2)) { /* a/b overflows: a - inf*b */
    r.lo = -INFINITY, r.hi = INFINITY;
    r.may_inf = true;
  }
  return in_type(finish(r, a, b), t);
}

static IrValue pow_iv(IrValue a, IrValue b, IrDType t) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  bool kconst = !b.may_nan && !b.may_inf && b.lo == b.hi;
  double k = b.lo;
  if (kconst && k == 0) return in_type(ir_value_const(1), t); /* x**0 = 1, NaN included */
  if (kconst && k == 1) return in_type(a, t);
  if (kconst && k == 2) return ir_value_square(a, t);
  if (kconst && k == 0.5) { /* pow(x, 0.5): sqrt, but pow(-inf, 0.5) = +inf and pow(-0, 0.5) = +0 */
    IrValue r = ir_value_sqrt(a, t);
    if (a.may_inf && a.lo == -INFINITY) r.may_inf = true, r.hi = INFINITY;
    return r;
  }
  if (is_int_type(t) || t == DT_U64) return in_type(unknown_int(t, a, b), t);
  if (kconst && k == floor(k) && fabs(k) <= 64) {
    bool even = fmod(k, 2) == 0;
    IrValue p;
    double m = minabs(a), M = maxabs(a), n = fabs(k);
    if (even) p = ir_value_real(pow(m, n), pow(M, n));
    else p = ir_value_real(a.lo < 0 ? -pow(-a.lo, n) : pow(a.lo, n), a.hi < 0 ? -pow(-a.hi, n) : pow(a.hi, n));
    /* leirc's pow (ir/mathlib.c) or repeated products: a few roundings */
    if (isfinite(p.lo)) p.lo -= fabs(p.lo) * 0x1p-20;
    if (isfinite(p.hi)) p.hi += fabs(p.hi) * 0x1p-20;
    p.may_zero = a.may_zero || pow(m, n) <= (t == DT_NONE ? 0 : float_tiny(t));
    p.may_inf = a.may_inf;
    p.may_nan = a.may_nan;
    p.inexact = a.inexact;
    p = in_type(p, t);
    if (k > 0) return p;
    IrValue q = real_divide(ir_value_const(1), p, t);
    if (even && !(q.lo > q.hi)) { /* pow(±0, -2k) = +inf: never negative */
      q.lo = imax(q.lo, 0);
      q.hi = imax(q.hi, 0);
    }
    return q;
  }
  /* a real exponent: exp(b*log(a)) for a > 0; NaN for a < 0 */
  IrValue r = ir_value_real(ir_value_nonneg(a) ? 0 : -INFINITY, INFINITY);
  r.may_nan = !ir_value_nonneg(a) || a.may_nan || b.may_nan;
  r.may_inf = true;
  r.may_zero = true;
  r.inexact = a.inexact || b.inexact;
  return in_type(r, t);
}

/* ------------------------------------------------------------ comparisons, logic */

static IrValue boolean(bool can_true, bool can_false) {
  return ir_value_int(can_false ? 0 : 1, can_true ? 1 : 0);
}

IrValue ir_value_cmp(IrOp op, IrValue a, IrValue b) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  bool nan = a.may_nan || b.may_nan;
  bool t = true, f = true;
  bool empty = a.lo > a.hi || b.lo > b.hi; /* only NaN */
  if (!empty) {
    switch (op) {
    case OP_LT: t = a.lo < b.hi, f = a.hi >= b.lo; break;
    case OP_LE: t = a.lo <= b.hi, f = a.hi > b.lo; break;
    case OP_GT: t = a.hi > b.lo, f = a.lo <= b.hi; break;
    case OP_GE: t = a.hi >= b.lo, f = a.lo < b.hi; break;
    case OP_EQ: t = a.lo <= b.hi && b.lo <= a.hi, f = !(a.lo == a.hi && b.lo == b.hi && a.lo == b.lo); break;
    default: t = !(a.lo == a.hi && b.lo == b.hi && a.lo == b.lo), f = a.lo <= b.hi && b.lo <= a.hi; break;
    }
  } else {
    t = false, f = false;
  }
  if (nan) {
    if (op == OP_NE) t = true;
    else f = true;
  }
  IrValue r = boolean(t, f);
  r.inexact = a.inexact || b.inexact;
  return r;
}

IrValue ir_value_and(IrValue a, IrValue b) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  IrValue r = boolean(!falsy(a) && !falsy(b), !truthy(a) || !truthy(b));
  r.inexact = a.inexact || b.inexact;
  return r;
}

IrValue ir_value_or(IrValue a, IrValue b) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  IrValue r = boolean(!falsy(a) || !falsy(b), !truthy(a) && !truthy(b));
  r.inexact = a.inexact || b.inexact;
  return r;
}

/* ------------------------------------------------------------ functions */

/* The result of a transcendental function: not integral, and widened by
   2^-20 relative outwards (leirc's own exp/log/erf, ir/mathlib.c, may differ
   from the C library's by a few ulps; signs are kept). */
static IrValue real_only(IrValue a) {
  a.iok = false;
  a.integral = false;
  if (isfinite(a.lo)) a.lo -= fabs(a.lo) * 0x1p-20;
  if (isfinite(a.hi)) a.hi += fabs(a.hi) * 0x1p-20;
  return a;
}

static IrValue exp_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  IrValue r = ir_value_real(exp(a.lo), exp(a.hi));
  /* as computed (issue 39 item 3, value_sign.c): exp rounds to 0 below
     about -103.97 in f32 (-745.13 in f64), so exp(x) is nonzero only where
     x's lower bound is above the type's threshold -- taken, on the safe
     side, where exp reaches the least subnormal (-103.28; f64 about -743.7) */
  double tiny = t == DT_NONE ? 0 : float_tiny(t);
  r.may_zero = r.lo <= tiny;
  r.may_inf = a.may_inf && a.hi == INFINITY;
  r.may_nan = a.may_nan;
  r.inexact = a.inexact;
  return in_type(real_only(r), is_int_type(t) ? DT_F64 : t);
}

static IrValue log_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  IrValue r = ir_value_real(a.lo <= 0 ? -INFINITY : log(a.lo), a.hi < 0 ? -INFINITY : log(a.hi));
  if (a.hi < 0) r.hi = INFINITY, r.lo = INFINITY; /* all NaN */
  r.may_nan = a.may_nan || a.lo < 0;
  r.may_inf = a.may_zero || (a.may_inf && a.hi == INFINITY);
  r.may_zero = a.lo <= 1 && a.hi >= 1;
  r.inexact = a.inexact;
  if (r.lo > r.hi) r.lo = -INFINITY, r.hi = INFINITY;
  return in_type(real_only(r), is_int_type(t) ? DT_F64 : t);
}

static IrValue sqrt_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  IrValue r = ir_value_real(a.lo <= 0 ? 0 : sqrt(a.lo), a.hi < 0 ? 0 : sqrt(a.hi));
  r.may_nan = a.may_nan || a.lo < 0;
  r.may_inf = a.may_inf && a.hi == INFINITY;
  r.may_zero = a.may_zero;
  if (r.lo > 0) r.may_zero = false;
  r.inexact = a.inexact;
  return in_type(real_only(r), is_int_type(t) ? DT_F64 : t);
}

static IrValue abs_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  if (a.iok) {
    if (a.ilo == INT64_MIN) return in_type(overflow(a, a), t);
    int64_t lo = a.ilo <= 0 && a.ihi >= 0 ? 0 : (a.ilo > 0 ? a.ilo : -a.ihi);
    int64_t hi = a.ihi > -a.ilo ? a.ihi : -a.ilo;
    IrValue r = ir_value_int(lo, hi);
    r.may_zero = a.may_zero;
    return in_type(finish(r, a, a), t);
  }
  IrValue r = a;
  r.lo = minabs(a);
  r.hi = maxabs(a);
  r.may_zero = a.may_zero;
  return in_type(r, t);
}

static IrValue erf_iv(IrValue a, IrDType t) {
  if (a.bottom) return a;
  IrValue r = ir_value_real(erf(a.lo), erf(a.hi));
  r.may_zero = a.may_zero;
  r.may_nan = a.may_nan;
  r.inexact = a.inexact;
  return in_type(real_only(r), is_int_type(t) ? DT_F64 : t);
}

/* max/min ignore a NaN operand (interp/ops.h: op_max*): NaN only when both
   are; with one possibly NaN, the other alone may be the result. */
static IrValue minmax(IrValue a, IrValue b, bool max) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  IrValue r = ir_value_join(a, b);
  if (max) {
    double lo = imax(a.lo, b.lo);
    if (a.may_nan) lo = imin(lo, b.lo);
    if (b.may_nan) lo = imin(lo, a.lo);
    r.lo = lo;
    if (r.iok && !a.may_nan && !b.may_nan) r.ilo = a.ilo > b.ilo ? a.ilo : b.ilo, r.lo = (double)r.ilo;
  } else {
    double hi = imin(a.hi, b.hi);
    if (a.may_nan) hi = imax(hi, b.hi);
    if (b.may_nan) hi = imax(hi, a.hi);
    r.hi = hi;
    if (r.iok && !a.may_nan && !b.may_nan) r.ihi = a.ihi < b.ihi ? a.ihi : b.ihi, r.hi = (double)r.ihi;
  }
  r.may_nan = a.may_nan && b.may_nan;
  if (r.lo > 0 || r.hi < 0) r.may_zero = false;
  r.may_inf = (a.may_inf || b.may_inf) && (r.lo == -INFINITY || r.hi == INFINITY);
  return r;
}


IrValue ir_value_select(IrValue c, IrValue a, IrValue b) {
  if (c.bottom) return c;
  if (truthy(c)) return a;
  if (falsy(c)) return b;
  return ir_value_join(a, b);
}

/* ------------------------------------------------------------ conversions */

static IrValue convert_iv(IrValue a, IrDType to) {
  if (a.bottom || to == DT_NONE) return a;
  if (to == DT_BOOL) {
    IrValue r = boolean(!falsy(a), a.may_zero);
    r.inexact = a.inexact;
    return r;
  }
  if (ir_dtype_is_float(to)) {
    IrValue r = a;
    r.iok = false;
    return in_type(r, to);
  }
  if (a.integral) return in_type(a, to); /* wraps when it does not fit */
  /* float -> integer: truncation, saturating, NaN -> 0 */
  int64_t tlo = 0, thi = INT64_MAX;
  double dlo, dhi;
  if (to == DT_U64) dlo = 0, dhi = 18446744073709551615.0;
  else int_range(to, &tlo, &thi), dlo = (double)tlo, dhi = (double)thi;
  double lo = trunc(imax(imin(a.lo, dhi), dlo)), hi = trunc(imax(imin(a.hi, dhi), dlo));
  if (a.lo > a.hi) lo = hi = 0;
  IrValue r = hull(lo, hi, true);
  if (r.iok) { /* bounds at the type's limits, exactly */
    if (a.lo >= dhi) r.ilo = thi;
    if (a.hi >= dhi) r.ihi = thi;
    if (a.lo <= dlo) r.ilo = tlo;
    if (a.hi <= dlo) r.ihi = tlo;
  }
  if (a.may_nan) {
    r = ir_value_join(r, ir_value_int(0, 0));
  }
  r.may_zero = (lo <= 0 && hi >= 0) || a.may_nan;
  r.inexact = a.inexact;
  return r;
}

IrValue ir_value_literal(double v, IrDType st) {
  if (st == DT_NONE) return ir_value_const(v);
  if (ir_dtype_is_float(st)) return ir_value_const(ir_dtype_literal_value(st, v));
  return ir_value_convert(ir_value_const(v), st);
}

/* ------------------------------------------------------------ the transfer functions: the interval, then the
   magnitude relative to the inputs (value_mag.c) */

IrValue ir_value_neg_(IrValue a, IrDType t) { return vm_neg(neg_iv(a, t), a); }
IrValue ir_value_add(IrValue a, IrValue b, IrDType t) { return vm_add(addsub(a, b, t, false), a, b, false); }
IrValue ir_value_sub(IrValue a, IrValue b, IrDType t) { return vm_add(addsub(a, b, t, true), a, b, true); }
IrValue ir_value_mul(IrValue a, IrValue b, IrDType t) { return vm_mul(mul_iv(a, b, t), a, b); }
IrValue ir_value_square(IrValue a, IrDType t) { return vm_mul(square_iv(a, t), a, a); }
IrValue ir_value_div(IrValue a, IrValue b, IrDType t) { return vm_div(div_iv(a, b, t), a, b); }
IrValue ir_value_floordiv(IrValue a, IrValue b, IrDType t) { return vm_div(floordiv_iv(a, b, t), a, b); }
IrValue ir_value_mod(IrValue a, IrValue b, IrDType t) { return vm_div(mod_iv(a, b, t), a, b); }
IrValue ir_value_pow(IrValue a, IrValue b, IrDType t) { return vm_pow(pow_iv(a, b, t), a, b); }
IrValue ir_value_exp(IrValue a, IrDType t) { return vm_call(exp_iv(a, t), F_EXP, a); }
IrValue ir_value_log(IrValue a, IrDType t) { return vm_call(log_iv(a, t), F_LOG, a); }
IrValue ir_value_sqrt(IrValue a, IrDType t) { return vm_call(sqrt_iv(a, t), F_SQRT, a); }
IrValue ir_value_abs(IrValue a, IrDType t) { return vm_call(abs_iv(a, t), F_ABS, a); }
IrValue ir_value_erf(IrValue a, IrDType t) { return vm_call(erf_iv(a, t), F_ERF, a); }
IrValue ir_value_max(IrValue a, IrValue b) { return vm_minmax(minmax(a, b, true), a, b, true); }
IrValue ir_value_min(IrValue a, IrValue b) { return vm_minmax(minmax(a, b, false), a, b, false); }
IrValue ir_value_convert(IrValue a, IrDType to) { return vm_convert(convert_iv(a, to), a, to); }
