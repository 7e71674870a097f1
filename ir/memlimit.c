/* memlimit.c -- see memlimit.h. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "ir/memlimit.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

uint64_t leir_default_max_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return LEIR_MAX_MEMORY_FALLBACK;
  uint64_t phys;
  if (__builtin_mul_overflow((uint64_t)pages, (uint64_t)size, &phys)) return LEIR_MAX_MEMORY_CAP;
  uint64_t q = phys / 4;
  return q < LEIR_MAX_MEMORY_CAP ? q : LEIR_MAX_MEMORY_CAP;
}

bool leir_parse_size(const char *s, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return false;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*s); s++)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v)) return false;
  int shift = 0;
  switch (tolower((unsigned char)*s)) {
  case 'k': shift = 10; break;
  case 'm': shift = 20; break;
  case 'g': shift = 30; break;
  case 't': shift = 40; break;
  default: break;
  }
  if (shift) {
    s++;
    if (*s == 'i' || *s == 'I') {
      s++;
      if (*s != 'b' && *s != 'B') return false;
    }
  }
  if (*s == 'b' || *s == 'B') s++;
  if (*s) return false;
  if (shift && v > (UINT64_MAX >> shift)) return false;
  *out = v << shift;
  return true;
}

uint64_t leir_program_bytes(const IrProgram *p, const IrTensor **largest) {
  uint64_t total = 0, big = 0;
  if (largest) *largest = NULL;
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (!t->shape_known || t->rank < 0) continue;
    int64_t n = ir_tensor_numel(t); /* INT64_MAX on overflow */
    uint64_t b;
    if (n < 0 || __builtin_mul_overflow((uint64_t)n, (uint64_t)ir_dtype_size(t->dtype), &b)) b = UINT64_MAX;
    if (largest && (!*largest || b > big)) {
      *largest = t;
      big = b;
    }
    if (__builtin_add_overflow(total, b, &total)) total = UINT64_MAX;
  }
  return total;
}

/* "1.5 GiB": v in the largest binary unit that keeps it >= 1. */
static void human(char *out, size_t n, uint64_t v) {
  static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  double d = (double)v;
  while (d >= 1024.0 && u < 6) {
    d /= 1024.0;
    u++;
  }
  if (u == 0) snprintf(out, n, "%llu bytes", (unsigned long long)v);
  else snprintf(out, n, "%.1f %s", d, unit[u]);
}

bool leir_check_memory(LeirCtx *ctx, const IrProgram *p) {
  if (!ctx->max_memory) return true;
  const IrTensor *t;
  uint64_t total = leir_program_bytes(p, &t);
  if (total <= ctx->max_memory || !t) return true;
  char need[32], lim[32], shape[256];
  human(need, sizeof need, total);
  human(lim, sizeof lim, ctx->max_memory);
  size_t k = 0;
  shape[0] = '\0';
  for (int d = 0; d < t->rank && k < sizeof shape - 24; d++)
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", d ? "," : "", (long long)t->shape[d]);
  uint64_t tb;
  int64_t n = ir_tensor_numel(t);
  if (n < 0 || __builtin_mul_overflow((uint64_t)n, (uint64_t)ir_dtype_size(t->dtype), &tb)) tb = UINT64_MAX;
  diag_error(ctx, t->loc,
             "the tensors of the program need %llu bytes (%s), more than the memory limit of %llu bytes (%s) "
             "(--max-memory); the largest is '%s' (%s[%s], %llu bytes)",
             (unsigned long long)total, need, (unsigned long long)ctx->max_memory, lim, t->name,
             ir_dtype_name(t->dtype), shape, (unsigned long long)tb);
  return false;
}

bool leir_parse_u64(const char *s, uint64_t *v) {
  if (!s || *s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno || *end) return false;
  *v = x;
  return true;
}
