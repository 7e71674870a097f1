/* buffer.c -- the tensors' storage: zeroed, 64-byte aligned (buffer.h). */
#include "ir/buffer.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IR_BUFFER_ALIGN 64

static void *buffer_alloc(size_t bytes, bool zero) {
  if (bytes == 0) bytes = 1;
  if (bytes > SIZE_MAX - IR_BUFFER_ALIGN) return NULL;
  /* calloc's result is at least 8-byte aligned, so the aligned address is
     8 to 64 bytes past it: room for the calloc'ed pointer */
  char *raw = zero ? calloc(bytes + IR_BUFFER_ALIGN, 1) : malloc(bytes + IR_BUFFER_ALIGN);
  if (!raw) return NULL;
  uintptr_t a = ((uintptr_t)raw + IR_BUFFER_ALIGN) & ~(uintptr_t)(IR_BUFFER_ALIGN - 1);
  char *p = raw + (a - (uintptr_t)raw);
  memcpy(p - sizeof raw, &raw, sizeof raw);
  return p;
}

void *ir_buffer_alloc(size_t bytes) { return buffer_alloc(bytes, true); }

void *ir_buffer_alloc_uninit(size_t bytes) { return buffer_alloc(bytes, false); }

void ir_buffer_free(void *p) {
  if (!p) return;
  char *raw;
  memcpy(&raw, (char *)p - sizeof raw, sizeof raw);
  free(raw);
}
