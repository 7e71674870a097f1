/* hash.h -- FNV-1a, the 64-bit hash of a byte string that leirc's caches
 * name and find their entries by: the steps cache's entries
 * (driver/steps_cache.c) and the host JIT's compiled kernels
 * (codegen/host_cache.c).  Not for anything an attacker chooses. */
#ifndef LEIR_IR_HASH_H
#define LEIR_IR_HASH_H

#include <stddef.h>
#include <stdint.h>

/* h updated with the n bytes of s (FNV-1a over several pieces) */
static inline uint64_t ir_fnv1a_step(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static inline uint64_t ir_fnv1a(const char *s, size_t n) { return ir_fnv1a_step(0xcbf29ce484222325ull, s, n); }

#endif
