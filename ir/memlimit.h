/* memlimit.h -- the memory limit of a program's tensors (--max-memory).
 *
 * Everything that allocates the tensors of a program (the interpreter:
 * --run, --compare, --verify, --tune's checks; the host JIT's intermediates;
 * the CUDA runner's host buffers, which come from the interpreter) checks
 * them against LeirCtx.max_memory BEFORE allocating, so an oversized program
 * stops with a located error instead of an out-of-memory kill:
 *
 *   FILE:L:C: error: the tensors of the program need N bytes (S), more than
 *   the memory limit of M bytes (S') (--max-memory); the largest is 'T'
 *   (f32[..], K bytes)
 *
 * at the largest tensor's first occurrence (S = N in K/M/G/TiB, one
 * decimal).  The limit applies to the tensors of ONE program: --compare and
 * --verify hold two programs at a time.  0 = no limit (what leir_ctx_init
 * sets; the driver sets leir_default_max_memory()). */
#ifndef LEIR_IR_MEMLIMIT_H
#define LEIR_IR_MEMLIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

/* The cap of the default limit: 64 GiB (INTERP_MAX_TENSOR_BYTES). */
#define LEIR_MAX_MEMORY_CAP ((uint64_t)1 << 36)
/* The default when the physical memory cannot be read: 4 GiB. */
#define LEIR_MAX_MEMORY_FALLBACK ((uint64_t)1 << 32)

/* The driver's default limit: a quarter of the physical memory (so that
 * the two programs of --compare/--verify, the compiler and the JIT fit in
 * half of it), at most LEIR_MAX_MEMORY_CAP; LEIR_MAX_MEMORY_FALLBACK if
 * sysconf cannot tell. */
uint64_t leir_default_max_memory(void);

/* Parses a --max-memory SIZE: decimal digits with an optional suffix K, M,
 * G or T (binary: 1024, 1024^2, ...; upper or lower case, an optional
 * trailing 'B' or 'iB': 512M, 4GiB, 1g).  "0" means no limit.  False if
 * malformed or over 2^64-1. */
bool leir_parse_size(const char *s, uint64_t *out);
/* A whole number (decimal digits only) for --seed, --max-steps and the
 * like; false if malformed or over 2^64-1. */
bool leir_parse_u64(const char *s, uint64_t *v);

/* The total bytes of p's tensors (saturating at UINT64_MAX; a shape that is
 * not known counts 0).  *largest (may be NULL) gets the largest tensor. */
uint64_t leir_program_bytes(const IrProgram *p, const IrTensor **largest);

/* Checks p's tensors against ctx->max_memory; false after the error above.
 * True when ctx->max_memory is 0. */
bool leir_check_memory(LeirCtx *ctx, const IrProgram *p);

#endif /* LEIR_IR_MEMLIMIT_H */
