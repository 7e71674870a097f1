/* rng.h -- deterministic pseudo-random inputs, identical on every machine.
 *
 * Generator: xoshiro256** (Blackman & Vigna), its 256-bit state seeded from
 * (seed, stream) with SplitMix64.  Use one stream per tensor, e.g.
 * rng_hash_string(name), so that a tensor's data depends only on the seed and
 * its name, not on the order in which tensors are generated.
 *
 * Everything here is integer arithmetic or IEEE-754 double +, -, *, / and
 * sqrt, all correctly rounded; no libm transcendental function is used (libm's
 * log/sin/cos differ between C libraries).  rng.c must be compiled without
 * floating-point contraction into fused multiply-adds and with
 * FLT_EVAL_METHOD == 0 (both hold for gcc/clang in ISO mode, -std=c17, on
 * x86-64 and aarch64; rng.c also asks for it with pragmas).  Under those
 * conditions every function returns the same bits on every machine; the unit
 * test pins the first values of a fixed seed.
 */
#ifndef LEIR_INTERP_RNG_H
#define LEIR_INTERP_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct LeirRng {
  uint64_t s[4];
} LeirRng;

/* Seeds r for (seed, stream); distinct streams give unrelated sequences. */
void rng_seed(LeirRng *r, uint64_t seed, uint64_t stream);

/* The next 64 random bits (xoshiro256**). */
uint64_t rng_next(LeirRng *r);

/* Uniform in [0, 1): the top 53 bits of rng_next times 2^-53. */
double rng_uniform(LeirRng *r);

/* Standard normal N(0,1) by inversion: one rng_next call, p = (k + 0.5) / 2^52
 * from its top 52 bits k (so 0 < p < 1 and p and 1 - p are exact), then
 * rng_normal_quantile(p).  Values lie within about +-8.3. */
double rng_normal(LeirRng *r);

/* x[i] = rng_normal(r) for i = 0..n-1, in that order (r advanced by n
 * draws), the same bits computed in vector lanes. */
void rng_normal_fill(LeirRng *r, double *x, size_t n);

/* x[i] = rng_normal_quantile(p[i]) for i = 0..n-1, the same bits computed
 * in vector lanes; x may be p. */
void rng_normal_quantiles(const double *p, double *x, size_t n);

/* The standard normal quantile (inverse CDF) for 0 < p < 1: Acklam's rational
 * approximation (relative error below 1.2e-9), with rng_log for the tails.
 * -inf for p <= 0, +inf for p >= 1, NaN for NaN. */
double rng_normal_quantile(double p);

/* Natural logarithm from frexp-style bit manipulation and + - * / only:
 * x = m * 2^k with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m-1)/(m+1))
 * by its series (12 terms), plus k * ln 2 in two parts.  Accurate to a couple
 * of ulps; NaN for x < 0 or NaN, -inf for 0, +inf for +inf. */
double rng_log(double x);

/* FNV-1a, 64-bit, over the bytes of s. */
uint64_t rng_hash_string(const char *s);

#endif /* LEIR_INTERP_RNG_H */
