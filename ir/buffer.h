/* buffer.h -- the tensors' storage: zeroed, 64-byte aligned.
 *
 * Every buffer leirc allocates for a tensor (the interpreter's, which --run,
 * --tune and the measurements hand to the host code; the host JIT's
 * intermediates) starts on a 64-byte boundary, as TVM's and PyTorch's CPU
 * allocators do: a 512-bit load or store of the vectorised code then never
 * straddles two cache lines.  (glibc's calloc of a large block returns an
 * address 16 bytes past a page boundary, so every zmm access of such a buffer
 * touched two lines: 5-10 % on streaming programs such as ReLU, issue 41.)
 *
 * The block is calloc'ed (large blocks come from fresh zero pages, not a
 * memset) with 64 spare bytes; the calloc'ed pointer is kept in the 8 bytes
 * before the aligned one, so only ir_buffer_free may free it. */
#ifndef LEIR_IR_BUFFER_H
#define LEIR_IR_BUFFER_H

#include <stddef.h>

/* bytes zeroed bytes (at least 1) at a 64-byte aligned address; NULL when
   out of memory. */
void *ir_buffer_alloc(size_t bytes);

/* ir_buffer_alloc without the zeroing: the bytes are undefined (malloc'ed:
   a block reused from the heap is not cleared).  For a buffer the caller
   overwrites before it reads it. */
void *ir_buffer_alloc_uninit(size_t bytes);

/* Frees what ir_buffer_alloc or ir_buffer_alloc_uninit returned; NULL is a
   no-op. */
void ir_buffer_free(void *p);

#endif /* LEIR_IR_BUFFER_H */
