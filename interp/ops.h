/* ops.h -- the scalar semantics of the interpreter (see interp.h), as inline
 * functions shared by the bytecode loop, the tree reductions and constant
 * preparation.  Internal to interp/.
 *
 * Value representation in a register (IVal):
 *   f64            .d
 *   f32, f16, bf16 .f   (f16/bf16 values are exactly representable)
 *   integers, bool .i   canonical: signed types sign-extended, unsigned
 *                       types zero-extended to 64 bits, bool 0/1
 */
#ifndef LEIR_INTERP_OPS_H
#define LEIR_INTERP_OPS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/mathlib.h"

typedef union IVal {
  double d;
  float f;
  int64_t i;
  uint64_t u;
} IVal;

/* ------------------------------------------------------------ integers */

/* Wraps a 64-bit pattern to dtype t (canonical form). */
static inline int64_t op_wrap(IrDType t, uint64_t v) {
  switch (t) {
  case DT_I8: return (int64_t)((v & 0xffu) ^ 0x80u) - 0x80;
  case DT_I16: return (int64_t)((v & 0xffffu) ^ 0x8000u) - 0x8000;
  case DT_I32: return (int64_t)((v & 0xffffffffu) ^ 0x80000000u) - (int64_t)0x80000000;
  case DT_U8: return (int64_t)(v & 0xffu);
  case DT_U16: return (int64_t)(v & 0xffffu);
  case DT_U32: return (int64_t)(v & 0xffffffffu);
  case DT_BOOL: return v != 0;
  default: { int64_t r; memcpy(&r, &v, sizeof r); return r; } /* i64, u64 */
  }
}

static inline bool op_unsigned(IrDType t) { return t == DT_U64 || t == DT_U32 || t == DT_U16 || t == DT_U8; }

static inline int64_t op_idiv(IrDType t, int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (op_unsigned(t)) return op_wrap(t, (uint64_t)a / (uint64_t)b);
  if (b == -1) return op_wrap(t, 0u - (uint64_t)a);
  return op_wrap(t, (uint64_t)(a / b));
}

static inline int64_t op_ifloordiv(IrDType t, int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (op_unsigned(t)) return op_wrap(t, (uint64_t)a / (uint64_t)b);
  if (b == -1) return op_wrap(t, 0u - (uint64_t)a);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return op_wrap(t, (uint64_t)q);
}

static inline int64_t op_imod(IrDType t, int64_t a, int64_t b) {
  if (b == 0 || (b == -1 && !op_unsigned(t))) return 0;
  if (op_unsigned(t)) return op_wrap(t, (uint64_t)a % (uint64_t)b);
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static inline int64_t op_ipow(IrDType t, int64_t a, int64_t b) {
  if (!op_unsigned(t) && b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b & 1) ? op_wrap(t, UINT64_MAX) : 1;
    return 0;
  }
  uint64_t r = 1, x = (uint64_t)a, n = (uint64_t)b;
  while (n) {
    if (n & 1) r *= x;
    x *= x;
    n >>= 1;
  }
  return op_wrap(t, r);
}

static inline bool op_ilt(IrDType t, int64_t a, int64_t b) {
  return op_unsigned(t) ? (uint64_t)a < (uint64_t)b : a < b;
}

/* ------------------------------------------------------------ floats */

static inline double op_maxd(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static inline double op_mind(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static inline float op_maxf(float a, float b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static inline float op_minf(float a, float b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

static inline double op_floordivd(double a, double b) { return floor(a / b); }
static inline float op_floordivf(float a, float b) { return floorf(a / b); }
static inline double op_fmodd(double a, double b) {
  double q = floor(a / b);
  double m = q * b;
  return a - m;
}
static inline float op_fmodf(float a, float b) {
  float q = floorf(a / b);
  float m = q * b;
  return a - m;
}

/* Saturating float -> integer conversion (truncation toward zero; NaN -> 0;
 * out-of-range values give the type's minimum or maximum). */
static inline int64_t op_d2i(IrDType t, double x) {
  if (x != x) return 0;
  if (t == DT_BOOL) return x != 0;
  if (t == DT_U64) {
    if (x <= -1.0) return 0;
    if (x >= 0x1p64) return -1; /* UINT64_MAX, canonical */
    uint64_t u = (uint64_t)x;
    int64_t r;
    memcpy(&r, &u, sizeof r);
    return r;
  }
  int64_t mn, mx;
  double hi;
  switch (t) {
  case DT_I8: mn = INT8_MIN; mx = INT8_MAX; hi = 0x1p7; break;
  case DT_I16: mn = INT16_MIN; mx = INT16_MAX; hi = 0x1p15; break;
  case DT_I32: mn = INT32_MIN; mx = INT32_MAX; hi = 0x1p31; break;
  case DT_U8: mn = 0; mx = UINT8_MAX; hi = 0x1p8; break;
  case DT_U16: mn = 0; mx = UINT16_MAX; hi = 0x1p16; break;
  case DT_U32: mn = 0; mx = UINT32_MAX; hi = 0x1p32; break;
  default: mn = INT64_MIN; mx = INT64_MAX; hi = 0x1p63; break;
  }
  if (x >= hi) return mx;
  if (x <= (double)mn - 1.0) return mn;
  return (int64_t)x;
}

/* ------------------------------------------------------------ conversions */

/* The value class of a dtype: 'd' f64, 'f' f32/f16/bf16, 'i' integers/bool. */
static inline char op_class(IrDType t) {
  if (t == DT_F64) return 'd';
  if (t == DT_F32 || t == DT_F16 || t == DT_BF16) return 'f';
  return 'i';
}

static inline float op_round_to(IrDType t, float x) {
  if (t == DT_F16) return leir_round_f16(x);
  if (t == DT_BF16) return leir_round_bf16(x);
  return x;
}

/* Converts a value of dtype `from` to dtype `to` (semantics in interp.h). */
static inline IVal op_convert(IVal v, IrDType from, IrDType to) {
  IVal r;
  r.u = 0;
  char cf = op_class(from), ct = op_class(to);
  if (cf == 'i') {
    if (ct == 'i') r.i = op_wrap(to, (uint64_t)v.i);
    else if (ct == 'd') r.d = op_unsigned(from) ? (double)v.u : (double)v.i;
    else r.f = op_round_to(to, op_unsigned(from) ? (float)v.u : (float)v.i);
  } else if (cf == 'd') {
    if (ct == 'i') r.i = op_d2i(to, v.d);
    else if (ct == 'd') r.d = v.d;
    else r.f = op_round_to(to, (float)v.d);
  } else {
    if (ct == 'i') r.i = op_d2i(to, (double)v.f);
    else if (ct == 'd') r.d = (double)v.f;
    else r.f = (to == from || to == DT_F32) ? v.f : op_round_to(to, v.f);
  }
  return r;
}

/* -v in dtype t (the sign bit flips for floats, integers wrap). */
static inline IVal op_neg(IrDType t, IVal v) {
  char c = op_class(t);
  if (c == 'd') v.d = -v.d;
  else if (c == 'f') v.f = -v.f;
  else v.i = op_wrap(t, 0u - v.u);
  return v;
}

/* A double constant (literal, identity) in dtype t. */
static inline IVal op_const(double x, IrDType t) {
  IVal v;
  v.d = x;
  return op_convert(v, DT_F64, t);
}

/* Loads element k of a buffer of dtype t. */
static inline IVal op_load(const void *buf, IrDType t, int64_t k) {
  IVal r;
  r.u = 0;
  switch (t) {
  case DT_F64: r.d = ((const double *)buf)[k]; break;
  case DT_F32: r.f = ((const float *)buf)[k]; break;
  case DT_F16: r.f = leir_f16_to_f32(((const uint16_t *)buf)[k]); break;
  case DT_BF16: r.f = leir_bf16_to_f32(((const uint16_t *)buf)[k]); break;
  case DT_I8: r.i = ((const int8_t *)buf)[k]; break;
  case DT_I16: r.i = ((const int16_t *)buf)[k]; break;
  case DT_I32: r.i = ((const int32_t *)buf)[k]; break;
  case DT_I64: r.i = ((const int64_t *)buf)[k]; break;
  case DT_U8: r.i = ((const uint8_t *)buf)[k]; break;
  case DT_U16: r.i = ((const uint16_t *)buf)[k]; break;
  case DT_U32: r.i = ((const uint32_t *)buf)[k]; break;
  case DT_U64: r.u = ((const uint64_t *)buf)[k]; break;
  case DT_BOOL: r.i = ((const uint8_t *)buf)[k] != 0; break;
  default: break;
  }
  return r;
}

/* Stores a canonical value of dtype t as element k. */
static inline void op_store(void *buf, IrDType t, int64_t k, IVal v) {
  switch (t) {
  case DT_F64: ((double *)buf)[k] = v.d; break;
  case DT_F32: ((float *)buf)[k] = v.f; break;
  case DT_F16: ((uint16_t *)buf)[k] = leir_f32_to_f16(v.f); break;
  case DT_BF16: ((uint16_t *)buf)[k] = leir_f32_to_bf16(v.f); break;
  case DT_I8: ((int8_t *)buf)[k] = (int8_t)v.i; break;
  case DT_I16: ((int16_t *)buf)[k] = (int16_t)v.i; break;
  case DT_I32: ((int32_t *)buf)[k] = (int32_t)v.i; break;
  case DT_I64: ((int64_t *)buf)[k] = v.i; break;
  case DT_U8: case DT_BOOL: ((uint8_t *)buf)[k] = (uint8_t)v.u; break;
  case DT_U16: ((uint16_t *)buf)[k] = (uint16_t)v.u; break;
  case DT_U32: ((uint32_t *)buf)[k] = (uint32_t)v.u; break;
  case DT_U64: ((uint64_t *)buf)[k] = v.u; break;
  default: break;
  }
}

/* The combine step of tree reductions and generic binary arithmetic:
 * a op b in dtype t (op one of OP_ADD OP_SUB OP_MUL, or -1 max, -2 min). */
enum { OPX_MAX = -1, OPX_MIN = -2 };
static inline IVal op_combine(int op, IrDType t, IVal a, IVal b) {
  IVal r;
  r.u = 0;
  char c = op_class(t);
  if (c == 'd') {
    switch (op) {
    case OP_ADD: r.d = a.d + b.d; break;
    case OP_SUB: r.d = a.d - b.d; break;
    case OP_MUL: r.d = a.d * b.d; break;
    case OPX_MAX: r.d = op_maxd(a.d, b.d); break;
    default: r.d = op_mind(a.d, b.d); break;
    }
  } else if (c == 'f') {
    switch (op) {
    case OP_ADD: r.f = a.f + b.f; break;
    case OP_SUB: r.f = a.f - b.f; break;
    case OP_MUL: r.f = a.f * b.f; break;
    case OPX_MAX: r.f = op_maxf(a.f, b.f); break;
    default: r.f = op_minf(a.f, b.f); break;
    }
    r.f = op_round_to(t, r.f);
  } else {
    switch (op) {
    case OP_ADD: r.i = op_wrap(t, a.u + b.u); break;
    case OP_SUB: r.i = op_wrap(t, a.u - b.u); break;
    case OP_MUL: r.i = op_wrap(t, a.u * b.u); break;
    case OPX_MAX: r.i = op_ilt(t, a.i, b.i) ? b.i : a.i; break;
    default: r.i = op_ilt(t, b.i, a.i) ? b.i : a.i; break;
    }
  }
  return r;
}

#endif /* LEIR_INTERP_OPS_H */
