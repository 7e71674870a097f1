/* emit_cuda_math.h -- leirc's math routines (ir/mathlib.c) as CUDA device
 * code, for codegen/emit_cuda.c.  Included by that one file only.
 *
 * Each chunk is the C code of ir/mathlib.c with `__device__` added and every
 * multiplication written __dmul_rn/__fmul_rn: nvcc contracts a * b + c into
 * an fma by default (-fmad=true), and an intrinsic multiplication can never
 * be contracted, so the operations are exactly those of the contract at the
 * top of ir/mathlib.c whatever the flags.  (+, -, fma, / and sqrt on double
 * are IEEE operations in CUDA; the f32 code uses no division.)
 *
 * testsuite/interop/cuda_math_check.sh compiles these chunks as host code
 * and compares them bit for bit with ir/mathlib.c, so a divergence of the
 * copy fails a test.  Chunks name the chunks they need; emit_cuda.c prints
 * the needed ones in table order (dependencies first). */
#ifndef LEIR_CODEGEN_EMIT_CUDA_MATH_H
#define LEIR_CODEGEN_EMIT_CUDA_MATH_H

typedef struct CuMathChunk {
  const char *name;
  const char *deps; /* space-separated chunk names, all earlier in the table */
  const char *text;
} CuMathChunk;

static const CuMathChunk cu_math_chunks[] = {
    {"d64", "",
     "static __device__ __forceinline__ uint64_t bits64(double x) {\n"
     "  uint64_t u;\n"
     "  memcpy(&u, &x, sizeof u);\n"
     "  return u;\n"
     "}\n"
     "static __device__ __forceinline__ double dbl(uint64_t u) {\n"
     "  double x;\n"
     "  memcpy(&x, &u, sizeof x);\n"
     "  return x;\n"
     "}\n"
     "#define QNAN64 0x7ff8000000000000ull\n"},
    {"bits32", "",
     "static __device__ __forceinline__ uint32_t bits32(float x) {\n"
     "  uint32_t u;\n"
     "  memcpy(&u, &x, sizeof u);\n"
     "  return u;\n"
     "}\n"},
    {"flt", "",
     "static __device__ __forceinline__ float flt(uint32_t u) {\n"
     "  float x;\n"
     "  memcpy(&x, &u, sizeof x);\n"
     "  return x;\n"
     "}\n"
     "#define QNAN32 0x7fc00000u\n"},
    {"horner", "",
     "static __device__ double horner(const double *c, int n, double v) {\n"
     "  double p = c[0];\n"
     "  for (int i = 1; i < n; i++) p = fma(p, v, c[i]);\n"
     "  return p;\n"
     "}\n"},
    {"dd", "", "typedef struct { double h, l; } DD;\n"},
    {"exp_core", "d64 horner",
     "static __constant__ double leir_m_exp_poly[12] = {\n"
     "    0x1.6124613a86d09p-33, 0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26,\n"
     "    0x1.27e4fb7789f5cp-22, 0x1.71de3a556c734p-19, 0x1.a01a01a01a01ap-16,\n"
     "    0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10, 0x1.1111111111111p-7,\n"
     "    0x1.5555555555555p-5,  0x1.5555555555555p-3,  0x1.0000000000000p-1,\n"
     "};\n"
     "static __device__ __forceinline__ double pow2i(int64_t k) { return dbl((uint64_t)(k + 1023) << 52); }\n"
     "static __device__ double exp_core(double xh, double xl) {\n"
     "  double c = xh > 710.0 ? 710.0 : xh;\n"
     "  c = c < -746.0 ? -746.0 : c;\n"
     "  double l = c == xh ? xl : 0.0;\n"
     "  double t = fma(c, 0x1.71547652b82fep+0, 0x1.8p52);\n"
     "  double kd = t - 0x1.8p52;\n"
     "  int64_t k = (int64_t)bits64(t) - (int64_t)bits64(0x1.8p52);\n"
     "  double rh = fma(kd, -0x1.62e42fefa39efp-1, c);\n"
     "  double rl = fma(kd, -0x1.abc9e3b39803fp-56, l);\n"
     "  double r = rh + rl;\n"
     "  double dr = (rh - r) + rl;\n"
     "  double p = horner(leir_m_exp_poly, 12, r);\n"
     "  double c2 = fma(__dmul_rn(r, r), p, fma(dr, r, dr));\n"
     "  double sh = 1.0 + r;\n"
     "  double sl = (1.0 - sh) + r;\n"
     "  double s = sh + (sl + c2);\n"
     "  int64_t k1 = k / 2;\n"
     "  int64_t k2 = k - k1;\n"
     "  return __dmul_rn(__dmul_rn(s, pow2i(k1)), pow2i(k2));\n"
     "}\n"},
    {"exp", "exp_core",
     "static __device__ double leir_exp(double x) {\n"
     "  double r = exp_core(x, 0.0);\n"
     "  return x != x ? x : r;\n"
     "}\n"},
    {"log_dd", "d64 horner dd",
     "static __constant__ double leir_m_log_poly[11] = {\n"
     "    0x1.47ae147ae147bp-4, 0x1.642c8590b2164p-4, 0x1.8618618618618p-4,\n"
     "    0x1.af286bca1af28p-4, 0x1.e1e1e1e1e1e1ep-4, 0x1.1111111111111p-3,\n"
     "    0x1.3b13b13b13b14p-3, 0x1.745d1745d1746p-3, 0x1.c71c71c71c71cp-3,\n"
     "    0x1.2492492492492p-2, 0x1.999999999999ap-2,\n"
     "};\n"
     "static __device__ DD log_mant(double m) {\n"
     "  double f = m - 1.0;\n"
     "  double uh = m + 1.0;\n"
     "  double ul = m - (uh - 1.0);\n"
     "  double sh = f / uh;\n"
     "  double rr = fma(-sh, uh, f);\n"
     "  rr = fma(-sh, ul, rr);\n"
     "  double sl = rr / uh;\n"
     "  double wh = __dmul_rn(sh, sh);\n"
     "  double wl = fma(sh, sh, -wh);\n"
     "  wl = fma(__dmul_rn(sh, 2.0), sl, wl);\n"
     "  double th = __dmul_rn(sh, wh);\n"
     "  double tl = fma(sh, wh, -th);\n"
     "  tl = fma(sh, wl, tl);\n"
     "  tl = fma(sl, wh, tl);\n"
     "  double ah = __dmul_rn(th, 0x1.5555555555555p-1);\n"
     "  double al = fma(th, 0x1.5555555555555p-1, -ah);\n"
     "  al = fma(th, 0x1.5555555555555p-55, al);\n"
     "  al = fma(tl, 0x1.5555555555555p-1, al);\n"
     "  double tail = __dmul_rn(__dmul_rn(th, wh), horner(leir_m_log_poly, 11, wh));\n"
     "  double bh = __dmul_rn(sh, 2.0);\n"
     "  double bl = __dmul_rn(sl, 2.0);\n"
     "  double hh = bh + ah;\n"
     "  double hl = (bh - hh) + ah;\n"
     "  double lo = hl + (bl + (al + tail));\n"
     "  double Lh = hh + lo;\n"
     "  DD r = {Lh, (hh - Lh) + lo};\n"
     "  return r;\n"
     "}\n"
     "static __device__ DD log_dd(double x) {\n"
     "  bool sub = x < 0x1p-1022;\n"
     "  x = sub ? __dmul_rn(x, 0x1p54) : x;\n"
     "  int64_t eb = sub ? -54 : 0;\n"
     "  uint64_t u = bits64(x);\n"
     "  int64_t e = (int64_t)(u >> 52) - 1023 + eb;\n"
     "  double m = dbl((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);\n"
     "  bool big = m > 0x1.6a09e667f3bcdp+0;\n"
     "  m = big ? __dmul_rn(m, 0.5) : m;\n"
     "  e = big ? e + 1 : e;\n"
     "  DD L = log_mant(m);\n"
     "  double ed = (double)e;\n"
     "  double ph = __dmul_rn(ed, 0x1.62e42fefa39efp-1);\n"
     "  double pl = fma(ed, 0x1.62e42fefa39efp-1, -ph);\n"
     "  pl = fma(ed, 0x1.abc9e3b39803fp-56, pl);\n"
     "  double sH = ph + L.h;\n"
     "  double bb = sH - ph;\n"
     "  double sL = (ph - (sH - bb)) + (L.h - bb);\n"
     "  sL = sL + (pl + L.l);\n"
     "  double zh = sH + sL;\n"
     "  DD r = {zh, (sH - zh) + sL};\n"
     "  return r;\n"
     "}\n"},
    {"log", "log_dd",
     "static __device__ double leir_log(double x) {\n"
     "  double r = log_dd(x).h;\n"
     "  r = x == INFINITY ? x : r;\n"
     "  r = x == 0.0 ? -INFINITY : r;\n"
     "  r = x < 0.0 ? dbl(QNAN64) : r;\n"
     "  return x != x ? x : r;\n"
     "}\n"},
    {"erf", "exp_core",
     "static __constant__ double leir_m_erfa_poly[14] = {\n"
     "    -0x1.29b9f1b3df556p-38, 0x1.7f072188e194dp-34, -0x1.4e607b41a6416p-30,\n"
     "    0x1.fc4356498c2d9p-27, -0x1.5f6d925a0bc7ap-23, 0x1.b9e6509b9867dp-20,\n"
     "    -0x1.f4d2561aeafd4p-17, 0x1.f9a326c233146p-14, -0x1.c02db3feeb579p-11,\n"
     "    0x1.565bcd0e6502dp-8, -0x1.b82ce312889bap-6, 0x1.ce2f21a042bdep-4,\n"
     "    -0x1.812746b0379e7p-2, 0x1.06eba8214db69p-3,\n"
     "};\n"
     "static __constant__ double leir_m_erfb_poly[17] = {\n"
     "    -0x1.675ca9c4244c0p+26, -0x1.8af05c468646fp+24, 0x1.49a2ddac88085p+23,\n"
     "    0x1.58f0696e69271p+22, -0x1.b31e9e6c66a2ap+18, -0x1.ef646a8f6e1e4p+19,\n"
     "    -0x1.00a652cb205d8p+18, 0x1.1f6ae680b691fp+16, 0x1.5da12b114232ap+16,\n"
     "    0x1.4e10f78dd5363p+15, 0x1.bc4755dfe3e88p+13, 0x1.cf9297b044c57p+11,\n"
     "    0x1.8e5102e533a6fp+9, 0x1.20a1c565b15fap+7, 0x1.650696adb5c0dp+4,\n"
     "    0x1.7aa77c34cc664p+1, 0x1.971bd176fd0acp-3,\n"
     "};\n"
     "static __device__ double leir_erf(double x) {\n"
     "  double a = fabs(x);\n"
     "  double w = __dmul_rn(a, a);\n"
     "  double ra = fma(a, horner(leir_m_erfa_poly, 14, w), a);\n"
     "  double wl = fma(a, a, -w);\n"
     "  double ex = exp_core(-w, -wl);\n"
     "  double den = a + 4.0;\n"
     "  double dl = (4.0 - den) + a;\n"
     "  double t = 1.0 / den;\n"
     "  double rt = fma(-t, den, 1.0);\n"
     "  rt = fma(-t, dl, rt);\n"
     "  double u = fma(t, rt, t - 0x1.33p-3);\n"
     "  double rb = fma(-ex, horner(leir_m_erfb_poly, 17, u), 1.0);\n"
     "  double r = a < 1.0 ? ra : rb;\n"
     "  r = a >= 6.0 ? 1.0 : r;\n"
     "  r = copysign(r, x);\n"
     "  return x != x ? x : r;\n"
     "}\n"},
    {"pow", "log_dd exp_core dd",
     "static __device__ bool is_int(double v) {\n"
     "  double av = fabs(v);\n"
     "  bool big = av >= 0x1p52;\n"
     "  bool rnd = (av + 0x1p52) - 0x1p52 == av;\n"
     "  return av != INFINITY && (big || rnd);\n"
     "}\n"
     "static __device__ DD dd_mul(DD a, DD b) {\n"
     "  double p = __dmul_rn(a.h, b.h);\n"
     "  double e = fma(a.h, b.h, -p);\n"
     "  e = fma(a.h, b.l, e);\n"
     "  e = fma(a.l, b.h, e);\n"
     "  double h = p + e;\n"
     "  DD r = {h, (p - h) + e};\n"
     "  return r;\n"
     "}\n"
     "static __device__ DD pow_int(double ax, int64_t n) {\n"
     "  DD acc = {1.0, 0.0};\n"
     "  DD b = {ax, 0.0};\n"
     "  for (int i = 0; i < 7; i++) {\n"
     "    if ((n >> i) & 1) acc = dd_mul(acc, b);\n"
     "    if (i < 6) b = dd_mul(b, b);\n"
     "  }\n"
     "  return acc;\n"
     "}\n"
     "static __device__ double pow_mag(double ax, double y, bool yint) {\n"
     "  DD lg = log_dd(ax);\n"
     "  double zh = __dmul_rn(y, lg.h);\n"
     "  double zl = fma(y, lg.h, -zh);\n"
     "  zl = fma(y, lg.l, zl);\n"
     "  double r = exp_core(zh, zl);\n"
     "  double ay = fabs(y);\n"
     "  double yc = ay < 64.0 ? ay : 64.0;\n"
     "  int64_t n = (int64_t)bits64(yc + 0x1p52) - (int64_t)bits64(0x1p52);\n"
     "  DD acc = pow_int(ax, n);\n"
     "  double q = 1.0 / acc.h;\n"
     "  double ee = fma(-q, acc.h, 1.0);\n"
     "  ee = fma(-q, acc.l, ee);\n"
     "  double ri = y < 0.0 ? fma(q, ee, q) : acc.h + acc.l;\n"
     "  bool ok = yint && ay <= 64.0 && acc.h >= 0x1p-900 && acc.h <= 0x1p900;\n"
     "  return ok ? ri : r;\n"
     "}\n"
     "static __device__ double leir_pow(double x, double y) {\n"
     "  double ax = fabs(x);\n"
     "  double ay = fabs(y);\n"
     "  bool yint = is_int(y);\n"
     "  bool yodd = yint && !is_int(__dmul_rn(y, 0.5));\n"
     "  bool yneg = y < 0.0;\n"
     "  double r = pow_mag(ax, y, yint);\n"
     "  r = ax == 0.0 ? (yneg ? INFINITY : 0.0) : r;\n"
     "  r = ax == INFINITY ? (yneg ? 0.0 : INFINITY) : r;\n"
     "  double rinf = (ax < 1.0) == yneg ? INFINITY : 0.0;\n"
     "  r = ay == INFINITY ? (ax == 1.0 ? 1.0 : rinf) : r;\n"
     "  bool xneg = (bits64(x) >> 63) != 0;\n"
     "  r = yodd && xneg ? -r : r;\n"
     "  r = x < 0.0 && ax != INFINITY && ay != INFINITY && !yint ? dbl(QNAN64) : r;\n"
     "  r = y != y ? y : r;\n"
     "  r = x != x ? x : r;\n"
     "  r = y == 0.0 ? 1.0 : r;\n"
     "  return x == 1.0 ? 1.0 : r;\n"
     "}\n"},
    {"nan_fix1", "flt",
     "static __device__ __forceinline__ float nan_fix1(float r, float x) {\n"
     "  float n = x != x ? x : flt(QNAN32);\n"
     "  return r != r ? n : r;\n"
     "}\n"},
    {"expf", "d64 horner",
     "static __constant__ double leir_m_expf_poly[9] = {\n"
     "    0x1.a15a4f98eb4a5p-16, 0x1.a1aa7f143c60ap-13, 0x1.6c164df443c8cp-10,\n"
     "    0x1.111080ae06089p-7,  0x1.5555557428d91p-5,  0x1.555555a26dedbp-3,\n"
     "    0x1.fffffffff71cfp-2,  0x1.ffffffffd38c1p-1,  0x1.0000000000000p+0,\n"
     "};\n"
     "static __device__ float leir_expf(float x) {\n"
     "  double d = (double)x;\n"
     "  double c = d > 89.0 ? 89.0 : d;\n"
     "  c = c < -104.0 ? -104.0 : c;\n"
     "  double t = fma(c, 0x1.71547652b82fep+0, 0x1.8p52);\n"
     "  double kd = t - 0x1.8p52;\n"
     "  int64_t k = (int64_t)bits64(t) - (int64_t)bits64(0x1.8p52);\n"
     "  double r = fma(kd, -0x1.62e42fefa39efp-1, c);\n"
     "  double p = horner(leir_m_expf_poly, 9, r);\n"
     "  float f = (float)__dmul_rn(p, dbl(((uint64_t)k + 1023u) << 52));\n"
     "  return x != x ? x : f;\n"
     "}\n"},
    {"logf", "d64 horner flt",
     "static __constant__ double leir_m_logf_poly[5] = {\n"
     "    0x1.8c8c1378bf76ep-3, 0x1.c67ad9ecb9497p-3, 0x1.249323e501d94p-2,\n"
     "    0x1.999998cafbbe2p-2, 0x1.5555555564e97p-1,\n"
     "};\n"
     "static __device__ float leir_logf(float x) {\n"
     "  double d = (double)x;\n"
     "  uint64_t u = bits64(d);\n"
     "  double ed = dbl((u >> 52) | 0x4330000000000000ull) - 0x1.00000000003ffp52;\n"
     "  double m = dbl((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);\n"
     "  bool big = m > 0x1.6a09e667f3bcdp+0;\n"
     "  m = big ? __dmul_rn(m, 0.5) : m;\n"
     "  ed = big ? ed + 1.0 : ed;\n"
     "  double f = m - 1.0;\n"
     "  double s = f / (f + 2.0);\n"
     "  double w = __dmul_rn(s, s);\n"
     "  double q = horner(leir_m_logf_poly, 5, w);\n"
     "  double r = fma(ed, 0x1.62e42fefa39efp-1, fma(__dmul_rn(s, w), q, s + s));\n"
     "  float y = (float)r;\n"
     "  y = x == INFINITY ? x : y;\n"
     "  y = x == 0.0f ? -INFINITY : y;\n"
     "  y = x < 0.0f ? flt(QNAN32) : y;\n"
     "  return x != x ? x : y;\n"
     "}\n"},
    {"erff", "erf nan_fix1",
     "static __device__ float leir_erff(float x) { return nan_fix1((float)leir_erf((double)x), x); }\n"},
    {"powf", "pow flt",
     "static __device__ float leir_powf(float x, float y) {\n"
     "  float r = (float)leir_pow((double)x, (double)y);\n"
     "  float n = y != y ? y : flt(QNAN32);\n"
     "  n = x != x ? x : n;\n"
     "  return r != r ? n : r;\n"
     "}\n"},
    {"f32_to_f16", "bits32",
     "static __device__ uint16_t leir_f32_to_f16(float x) {\n"
     "  uint32_t b = bits32(x);\n"
     "  uint32_t s = (b >> 16) & 0x8000u;\n"
     "  uint32_t a = b & 0x7fffffffu;\n"
     "  uint32_t rn = a - 0x38000000u;\n"
     "  uint32_t hn = (rn + 0xfffu + ((rn >> 13) & 1u)) >> 13;\n"
     "  uint32_t sh = 126u - (a >> 23);\n"
     "  sh = sh > 31u ? 31u : sh;\n"
     "  sh = sh < 14u ? 14u : sh;\n"
     "  uint32_t m = (a & 0x7fffffu) | 0x800000u;\n"
     "  uint32_t hs = (m + (1u << (sh - 1u)) - 1u + ((m >> sh) & 1u)) >> sh;\n"
     "  uint32_t h = a < 0x38800000u ? hs : hn;\n"
     "  h = a >= 0x47800000u ? 0x7c00u : h;\n"
     "  h = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x3ffu)) : h;\n"
     "  return (uint16_t)(s | h);\n"
     "}\n"},
    {"f16_to_f32", "bits32 flt",
     "static __device__ float leir_f16_to_f32(uint16_t h16) {\n"
     "  uint32_t h = h16;\n"
     "  uint32_t s = (h & 0x8000u) << 16;\n"
     "  uint32_t e = (h >> 10) & 0x1fu;\n"
     "  uint32_t m = h & 0x3ffu;\n"
     "  uint32_t bn = s | ((e + 112u) << 23) | (m << 13);\n"
     "  uint32_t bi = s | 0x7f800000u | (m << 13);\n"
     "  uint32_t bs = s | bits32(__fmul_rn((float)m, 0x1p-24f));\n"
     "  return flt(e == 0u ? bs : (e == 31u ? bi : bn));\n"
     "}\n"},
    {"round_f16", "f32_to_f16 f16_to_f32",
     "static __device__ float leir_round_f16(float x) { return leir_f16_to_f32(leir_f32_to_f16(x)); }\n"},
    {"f32_to_bf16", "bits32",
     "static __device__ uint16_t leir_f32_to_bf16(float x) {\n"
     "  uint32_t b = bits32(x);\n"
     "  uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;\n"
     "  return (uint16_t)((b & 0x7fffffffu) > 0x7f800000u ? (b >> 16) | 0x40u : r);\n"
     "}\n"},
    {"bf16_to_f32", "flt",
     "static __device__ float leir_bf16_to_f32(uint16_t h) { return flt((uint32_t)h << 16); }\n"},
    {"round_bf16", "f32_to_bf16 bf16_to_f32",
     "static __device__ float leir_round_bf16(float x) { return leir_bf16_to_f32(leir_f32_to_bf16(x)); }\n"},
    /* the operations of codegen/lower.c that C does not spell the same */
    {"maxmin", "",
     "/* max/min as the interpreter (IEEE 754-2019 maximumNumber/minimumNumber):\n"
     "   a NaN operand is ignored, -0 < +0 */\n"
     "template <typename T> static __device__ __forceinline__ T leir_fmax(T a, T b) {\n"
     "  T r = a > b ? a : b;\n"
     "  r = a == b ? (signbit(a) ? b : a) : r;\n"
     "  r = b != b ? a : r;\n"
     "  return a != a ? b : r;\n"
     "}\n"
     "template <typename T> static __device__ __forceinline__ T leir_fmin(T a, T b) {\n"
     "  T r = a < b ? a : b;\n"
     "  r = a == b ? (signbit(a) ? a : b) : r;\n"
     "  r = b != b ? a : r;\n"
     "  return a != a ? b : r;\n"
     "}\n"},
    {"imaxmin", "",
     "template <typename T> static __device__ __forceinline__ T leir_imax(T a, T b) { return b > a ? b : a; }\n"
     "template <typename T> static __device__ __forceinline__ T leir_imin(T a, T b) { return b < a ? b : a; }\n"},
    {"f2i", "",
     "/* float -> integer: toward zero, saturated, NaN -> 0 (llvm.fpto[su]i.sat) */\n"
     "template <typename T> static __device__ __forceinline__ T leir_f2i(double v) {\n"
     "  const bool sgn = (T)-1 < (T)0;\n"
     "  const T hi = sgn ? (T)(~(uint64_t)0 >> (65 - 8 * sizeof(T))) : (T)~(T)0;\n"
     "  const T lo = sgn ? (T)(-hi - 1) : (T)0;\n"
     "  const double lim = (double)hi + 1.0;\n"
     "  if (v != v) return 0;\n"
     "  if (v >= lim) return hi;\n"
     "  if (sgn ? v < -lim : v <= 0.0) return lo;\n"
     "  return sgn ? (T)(int64_t)v : (T)(uint64_t)v;\n"
     "}\n"},
    {"ione", "",
     "/* float -> bool: nonzero and not NaN */\n"
     "template <typename T> static __device__ __forceinline__ bool leir_f2b(T v) { return v < 0 || v > 0; }\n"},
    {"idiv", "",
     "/* integer division and remainder defined everywhere: x / 0 = 0, x % 0 = 0,\n"
     "   MIN / -1 wraps; floor: rounded toward -inf (//, %), else toward 0 */\n"
     "template <typename T> static __device__ T leir_idivmod(T a, T b, bool rem, bool floor) {\n"
     "  if (b == 0) return 0;\n"
     "  if ((T)-1 > (T)0) return rem ? a % b : a / b;\n"
     "  T q = b == (T)-1 ? (T)(0 - (uint64_t)a) : a / b;\n"
     "  T r = (T)((uint64_t)a - (uint64_t)q * (uint64_t)b);\n"
     "  if (floor && r != 0 && ((r ^ b) < 0)) {\n"
     "    q = (T)(q - 1);\n"
     "    r = (T)(r + b);\n"
     "  }\n"
     "  return rem ? r : q;\n"
     "}\n"},
    {"ipow", "",
     "/* integer power by squaring (wrapping); a negative exponent gives 1/x^n\n"
     "   truncated */\n"
     "template <typename T> static __device__ T leir_ipow(T a, T b) {\n"
     "  const bool sgn = (T)-1 < (T)0;\n"
     "  if (sgn && b < 0) return a == 1 ? (T)1 : a == (T)-1 ? ((b & 1) ? (T)-1 : (T)1) : (T)0;\n"
     "  T acc = 1, base = a;\n"
     "  for (T e = b; e != 0; e = (T)((uint64_t)e >> 1)) {\n"
     "    if (e & 1) acc = (T)((uint64_t)acc * (uint64_t)base);\n"
     "    base = (T)((uint64_t)base * (uint64_t)base);\n"
     "  }\n"
     "  return acc;\n"
     "}\n"},
    {"fmod", "",
     "/* floor modulo a - floor(a / b) * b, each step rounded (TVM floormod) */\n"
     "static __device__ __forceinline__ float leir_fmodf(float a, float b) {\n"
     "  return a - __fmul_rn(floorf(__fdiv_rn(a, b)), b);\n"
     "}\n"
     "static __device__ __forceinline__ double leir_fmodd(double a, double b) {\n"
     "  return a - __dmul_rn(floor(__ddiv_rn(a, b)), b);\n"
     "}\n"},
    {"guard", "",
     "/* an out-of-bounds access goes to element 0, as on the PTX path */\n"
     "static __device__ __forceinline__ int64_t leir_guard(bool ok, int64_t off) { return ok ? off : 0; }\n"},
};

#endif
