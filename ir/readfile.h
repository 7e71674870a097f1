/* readfile.h -- a whole file into memory (the tests, benchmarks and tools
 * that read programs, declarations and data outside the driver). */
#ifndef LEIR_IR_READFILE_H
#define LEIR_IR_READFILE_H

#include <stddef.h>

/* The bytes of the file at path, NUL-terminated, in a malloc'ed buffer
 * (free it); *len (when len is not NULL) is their number.  NULL when the
 * file cannot be opened or read, or memory runs out. */
char *leir_read_file(const char *path, size_t *len);

#endif
