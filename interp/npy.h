/* npy.h -- reading and writing NumPy .npy files.
 *
 * Supported: format versions 1.0, 2.0 and 3.0 (read; 3.0 differs from 2.0 only
 * in the header's text encoding), little-endian data ('<' or '|' byte order),
 * C order, and these dtypes (given here in their normalised form, kind letter
 * plus byte size, as stored in NpyArray.descr):
 *
 *   f2 (float16)  f4 (float32)  f8 (float64)
 *   i1 i2 i4 i8   u1 u2 u4 u8   b1 (bool, one byte, 0 or 1)
 *
 * bfloat16: NumPy has no bfloat16 dtype, so leirc stores a bf16 tensor as
 * '<u2' holding the raw bfloat16 bits (the upper half of the float32 bit
 * pattern).  The file itself does not say so; the caller knows the tensor's
 * LEIR dtype and reinterprets the u2 data.
 *
 * Rejected with a one-line message: big-endian data ('>'), Fortran order,
 * other dtypes (complex, strings, objects, structured), malformed headers,
 * missing or unknown header keys, shapes whose byte size overflows, data
 * shorter or longer than the shape says (trailing bytes are an error).
 *
 * Written files are version 1.0 (2.0 when the header does not fit in 65535
 * bytes), with the header padded with spaces so that the data starts at a
 * multiple of 64 bytes, and ending with '\n' -- exactly as numpy writes them.
 * The data is little-endian on every host.
 */
#ifndef LEIR_INTERP_NPY_H
#define LEIR_INTERP_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 32

typedef struct NpyArray {
  char descr[8];      /* normalised dtype: "f4", "i8", "b1", "u2", ... */
  int ndim;           /* 0 for a scalar */
  int64_t shape[NPY_MAX_DIMS];
  size_t elem_size;   /* bytes per element */
  size_t nelem;       /* product of the shape (1 for a scalar) */
  void *data;         /* malloc'd, nelem * elem_size bytes, host byte order */
} NpyArray;

/* All functions return 0 on success; on failure they return -1 and write a
 * one-line message (no trailing newline) into err (errlen bytes; err may be
 * NULL).  On failure *out is left all zero (data NULL), so npy_free is
 * safe either way. */
int npy_read(const char *path, NpyArray *out, char *err, size_t errlen);
int npy_read_mem(const void *buf, size_t len, NpyArray *out, char *err,
                 size_t errlen);

/* descr: a normalised dtype ("f4"); a leading '<' or '|' is also accepted.
 * data: nelem * elem_size bytes in host byte order (may be NULL if nelem
 * is 0).  shape may be NULL when ndim is 0. */
int npy_write(const char *path, const char *descr, int ndim,
              const int64_t *shape, const void *data, char *err,
              size_t errlen);

/* Size in bytes of a normalised (or '<'/'|'-prefixed) dtype, 0 if it is not
 * one of the supported dtypes above. */
size_t npy_descr_size(const char *descr);

void npy_free(NpyArray *a);

#endif /* LEIR_INTERP_NPY_H */
