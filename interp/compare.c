/* compare.c -- comparing an output array with a reference (see compare.h). */
#include "interp/compare.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* ------------------------------------------------------------ formats */

typedef struct Format {
  char kind;
  size_t size;
  bool is_float;
  double rtol, atol;    /* CMP_DEFAULT; unused for integers */
  double fallback_atol; /* CMP_REFERENCE's dtype rule; 0 = none */
} Format;

static bool get_format(char kind, size_t size, Format *f)
{
  *f = (Format){ kind, size, false, 0.0, 0.0, 0.0 };
  switch (kind) {
  case 'f':
    f->is_float = true;
    if (size == 8) {
      f->rtol = 1e-10, f->atol = 1e-12;
    } else if (size == 4) {
      f->rtol = 1e-4, f->atol = 1e-6, f->fallback_atol = 1e-3;
    } else if (size == 2) {
      f->rtol = 1e-2, f->atol = 1e-3, f->fallback_atol = 1.5;
    } else
      return false;
    return true;
  case 'b':
    f->is_float = true;
    f->rtol = 1e-2, f->atol = 1e-3, f->fallback_atol = 1.5;
    return size == 2;
  case 'i':
  case 'u':
    return size == 1 || size == 2 || size == 4 || size == 8;
  case '?':
    return size == 1;
  default:
    return false;
  }
}

/* ------------------------------------------------------------ decoding */

static double bits_to_double(uint64_t b)
{
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static double half_to_double(uint16_t h)
{
  uint64_t sign = (uint64_t)(h >> 15) << 63;
  unsigned exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {
    double v = (double)mant * 0x1.0p-24; /* zero or subnormal, exact */
    return sign ? -v : v;
  }
  uint64_t e = exp == 31 ? 0x7ff : (uint64_t)exp - 15 + 1023;
  return bits_to_double(sign | e << 52 | (uint64_t)mant << 42);
}

static double bf16_to_double(uint16_t h)
{
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint64_t load_bits(const unsigned char *p, size_t size)
{
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (size) {
  case 1: memcpy(&u8, p, 1); return u8;
  case 2: memcpy(&u16, p, 2); return u16;
  case 4: memcpy(&u32, p, 4); return u32;
  default: memcpy(&u64, p, 8); return u64;
  }
}

static int64_t sign_extend(uint64_t bits, size_t size)
{
  if (size == 8)
    return (int64_t)bits;
  uint64_t sign = UINT64_C(1) << (8 * size - 1);
  return (int64_t)(bits ^ sign) - (int64_t)sign;
}

static double to_double(const Format *f, uint64_t bits)
{
  switch (f->kind) {
  case 'f':
    if (f->size == 2)
      return half_to_double((uint16_t)bits);
    if (f->size == 4) {
      uint32_t u = (uint32_t)bits;
      float x;
      memcpy(&x, &u, sizeof x);
      return x;
    }
    return bits_to_double(bits);
  case 'b': return bf16_to_double((uint16_t)bits);
  case 'i': return (double)sign_extend(bits, f->size);
  default: return (double)bits;
  }
}

/* Units in the last place between two floats (sign-magnitude order), or
 * |a - b| for integers. */
static uint64_t distance(const Format *f, uint64_t a, uint64_t b)
{
  if (f->is_float) {
    uint64_t sign = UINT64_C(1) << (8 * f->size - 1);
    uint64_t ma = a & (sign - 1), mb = b & (sign - 1);
    if ((a & sign) != (b & sign))
      return ma + mb;
    return ma > mb ? ma - mb : mb - ma;
  }
  if (f->kind == 'i') {
    int64_t x = sign_extend(a, f->size), y = sign_extend(b, f->size);
    return x >= y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
  }
  return a > b ? a - b : b - a;
}

/* ------------------------------------------------------------ scanning */

typedef struct Scan {
  int64_t first_default_bad;  /* outside the class-T tolerance */
  int64_t first_nonfinite_bad; /* NaN/inf on one side only, or opposite infs */
  int64_t argmax_abs;          /* first element with the largest |a - b| */
  double max_abs, max_rel, sum_sq;
  int64_t count;               /* elements where both are finite */
} Scan;

static void scan_finite(const Format *f, Scan *s, int64_t i, double x, double r,
                        bool bit_equal)
{
  double d = fabs(x - r);
  double rel = d / (fabs(r) + 1e-8);
  if (s->argmax_abs < 0 || d > s->max_abs) {
    s->argmax_abs = i;
    s->max_abs = d;
  }
  if (rel > s->max_rel)
    s->max_rel = rel;
  s->sum_sq += d * d;
  s->count++;
  bool ok = f->is_float ? d <= f->atol + f->rtol * fabs(r) : bit_equal;
  if (!ok && s->first_default_bad < 0)
    s->first_default_bad = i;
}

static void scan_nonfinite(Scan *s, int64_t i, double x, double r)
{
  bool ok = (isnan(x) && isnan(r)) || (isinf(x) && isinf(r) && x == r);
  if (!ok && s->first_nonfinite_bad < 0)
    s->first_nonfinite_bad = i;
  if (!ok && s->first_default_bad < 0)
    s->first_default_bad = i;
}

static bool reference_accepts(const Format *f, const Scan *s)
{
  double mse = s->count ? s->sum_sq / (double)s->count : 0.0;
  if (s->max_rel <= 5e-3 || s->max_abs <= 1e-7 || mse <= 1e-5)
    return true;
  return f->fallback_atol > 0.0 && s->max_abs < f->fallback_atol;
}

static int64_t decide(const Format *f, const Scan *s, int64_t first_index,
                      CmpTolerance tol, CmpVerdict *v)
{
  if (first_index < 0) {
    *v = CMP_EQUAL;
    return -1;
  }
  int64_t bad;
  switch (tol) {
  case CMP_DEFAULT:
    bad = s->first_default_bad;
    break;
  case CMP_REFERENCE:
    bad = s->first_nonfinite_bad;
    if (bad < 0 && !reference_accepts(f, s))
      bad = s->argmax_abs;
    break;
  default:
    bad = first_index;
    break;
  }
  *v = bad < 0 ? CMP_CLOSE : CMP_DIFFER;
  return bad;
}

static void report_at(const Format *f, CmpResult *res, int64_t at,
                      const unsigned char *a, const unsigned char *b)
{
  uint64_t ba = load_bits(a + (size_t)at * f->size, f->size);
  uint64_t bb = load_bits(b + (size_t)at * f->size, f->size);
  res->a_value = to_double(f, ba);
  res->b_value = to_double(f, bb);
  bool na = isnan(res->a_value), nb = isnan(res->b_value);
  if (f->is_float && na != nb)
    res->ulp_distance = UINT64_MAX;
  else if (f->is_float && na)
    res->ulp_distance = 0;
  else
    res->ulp_distance = distance(f, ba, bb);
}

CmpResult cmp_arrays(char kind, size_t elem_size, const void *a, const void *b,
                     int64_t n, CmpTolerance tol)
{
  CmpResult res = { CMP_EQUAL, -1, -1, 0.0, 0.0, 0, 0.0, 0.0, 0.0 };
  Format f;
  if (n <= 0)
    return res;
  if (!get_format(kind, elem_size, &f)) {
    res.verdict = CMP_DIFFER;
    res.first_index = res.first_bad_index = 0;
    return res;
  }
  /* the same bytes: the result of the scan below when every element is
     bit-equal (no first index, no distance; -0.0 and +0.0, or two NaNs
     of different bits, are not the same bytes and take the scan) */
  if (memcmp(a, b, (size_t)n * elem_size) == 0)
    return res;
  const unsigned char *pa = a, *pb = b;
  Scan s = { -1, -1, -1, 0.0, 0.0, 0.0, 0 };
  for (int64_t i = 0; i < n; i++) {
    uint64_t ba = load_bits(pa + (size_t)i * elem_size, elem_size);
    uint64_t bb = load_bits(pb + (size_t)i * elem_size, elem_size);
    double x = to_double(&f, ba), r = to_double(&f, bb);
    bool bit_equal = ba == bb || (isnan(x) && isnan(r));
    if (!bit_equal && res.first_index < 0)
      res.first_index = i;
    if (isfinite(x) && isfinite(r))
      scan_finite(&f, &s, i, x, r, bit_equal);
    else
      scan_nonfinite(&s, i, x, r);
  }
  res.max_abs = s.max_abs;
  res.max_rel = s.max_rel;
  res.mse = s.count ? s.sum_sq / (double)s.count : 0.0;
  res.first_bad_index = decide(&f, &s, res.first_index, tol, &res.verdict);
  int64_t at = res.first_bad_index >= 0 ? res.first_bad_index : res.first_index;
  if (at >= 0)
    report_at(&f, &res, at, pa, pb);
  return res;
}

const char *cmp_verdict_name(CmpVerdict v)
{
  switch (v) {
  case CMP_EQUAL: return "equal";
  case CMP_CLOSE: return "close";
  default: return "differ";
  }
}

bool cmp_tolerance_from_name(const char *s, int *tol) {
  static const char *const names[] = {[CMP_EXACT] = "exact", [CMP_DEFAULT] = "default", [CMP_REFERENCE] = "reference"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(s, names[i])) {
      *tol = i;
      return true;
    }
  return false;
}
