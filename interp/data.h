/* data.h -- the data of interpreted programs: inputs from .npy files or
 * deterministic random values, outputs to .npy files or text.
 *
 * .npy dtypes per LEIR dtype: f16 '<f2', f32 '<f4', f64 '<f8', i8 '|i1',
 * i16 '<i2', i32 '<i4', i64 '<i8', u8 '|u1', u16 '<u2', u32 '<u4',
 * u64 '<u8', bool '|b1', and bf16 '<u2' holding the raw bfloat16 bits (the
 * upper half of the float32 pattern; NumPy has no bfloat16).  A file given
 * for a tensor must have exactly that dtype and the declared shape (a scalar
 * is a 0-d array).
 *
 * Random inputs (interp_random_inputs), identical on every machine: tensor
 * X with seed S draws from rng_seed(S, rng_hash_string("X")) (interp/rng.h),
 * element by element in row-major order:
 *  - floating-point: x = rng_normal(), rounded to the dtype (f16/bf16 via
 *    f32); then the reference's scaling rule (SPEC §13.4): if every |x| < 10
 *    and no element is zero, every element is multiplied by 10 in the dtype
 *    (one rounding);
 *  - integer tensors that the program reads inside a subscript: uniform in
 *    [0, E) where E is the smallest extent of a dimension whose subscript
 *    reads the tensor (anywhere in that subscript), so indirect reads stay
 *    in range: k = floor(rng_uniform() * E);
 *  - other signed integers: uniform in [-8, 7]; unsigned: [0, 15]
 *    (k = floor(rng_uniform() * 16), minus 8 for signed types);
 *  - bool: 1 if rng_uniform() >= 0.5, else 0.
 *
 * Errors are reported through the program's LeirCtx (interp_ctx).
 */
#ifndef LEIR_INTERP_DATA_H
#define LEIR_INTERP_DATA_H

#include "interp/interp.h"

/* The normalised .npy dtype of a LEIR dtype ("f4", "u2" for bf16). */
const char *interp_npy_descr(IrDType t);

/* Loads `path` into buffer b (an input or parameter).  False after an error
 * naming the file, the tensor and how they differ. */
bool interp_load_npy(InterpProg *ip, InterpBuf *b, const char *path);

/* Random contents for b by the rule above. */
void interp_random_fill(InterpProg *ip, InterpBuf *b, uint64_t seed);

/* Random contents for every input and parameter whose id is not marked in
 * `given` (NULL = none given). */
void interp_random_inputs(InterpProg *ip, uint64_t seed, const bool *given);

/* A worker's random inputs kept for the programs it runs later: an input
 * of the same name, dtype, shape, index extent (the rule above) and seed
 * gets the same values, so they are copied instead of drawn again (the
 * programs of an --emit-steps worker share inputs such as A f32[..]).
 * The values are kept from an input's second drawing on (the first notes
 * its key only).  Holds at most max_bytes of values (0: nothing is kept)
 * in at most 256 entries, the least recently used dropped first.  Set max_bytes in a
 * zeroed struct; free with interp_input_cache_free.  One per worker: not
 * for concurrent use. */
typedef struct InterpInputCache {
  size_t max_bytes;
  size_t bytes;                  /* values held */
  int n;                         /* entries */
  struct InterpInputEntry *e;
  uint64_t clock;                /* counts lookups that hit and entries added */
  long hits, misses;             /* inputs copied, inputs drawn (and kept if they fit) */
} InterpInputCache;

/* interp_random_inputs, the values taken from (or added to) `cache`
 * (NULL: interp_random_inputs).  The same bytes either way. */
void interp_random_inputs_cached(InterpProg *ip, uint64_t seed, const bool *given, InterpInputCache *cache);

/* Frees what the cache holds; max_bytes stays. */
void interp_input_cache_free(InterpInputCache *cache);

/* Writes b to `path`.  False after an error. */
bool interp_write_npy(InterpProg *ip, const InterpBuf *b, const char *path);

/* Writes DIR/NAME.npy for every output, in declaration order. */
bool interp_write_outputs(InterpProg *ip, const char *dir);

/* Element k of a buffer of dtype t as text: %.9g for f16, bf16 and f32,
 * %.17g for f64, decimal for integers, 0/1 for bool; "nan", "inf", "-inf"
 * for non-finite values (the sign of a NaN is not shown). */
void interp_format_elem(char *out, size_t n, IrDType t, const void *data, int64_t k);

/* Text form of a buffer (--print-outputs):
 *   NAME dtype[shape]
 *     v v v ...        one line per row of the last dimension
 * (a scalar prints one line with its value). */
void interp_print_buf(FILE *f, const InterpBuf *b);

#endif /* LEIR_INTERP_DATA_H */
