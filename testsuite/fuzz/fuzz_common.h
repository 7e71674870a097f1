/* fuzz_common.h -- what the libFuzzer harnesses share: a compiler context
 * whose diagnostics are captured in memory and checked, the canonical text
 * of a program, and a property failure that libFuzzer reports as a crash. */
#ifndef LEIR_FUZZ_COMMON_H
#define LEIR_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Fz {
  LeirCtx ctx;
  char *diag;
  size_t diag_len;
  size_t checked; /* diag[0..checked) has been checked */
  FILE *diag_f;
} Fz;

/* A context for source `text` named `name`.  Give names a control
 * character (e.g. "fuzz\001.leir"): print_caret never echoes one, so a line
 * that starts with the name is a diagnostic, never a quoted source line. */
void fz_init(Fz *f, const char *name, const char *text, size_t len);
void fz_free(Fz *f);

/* Reports a violated property (with f's diagnostics if f is non-NULL) and
 * aborts. */
_Noreturn void fz_fail(Fz *f, const char *what, const char *detail);

/* Checks what f printed since the last call: no diagnostic reports an
 * internal error, and every `file:L:C:` lies inside the source (its line
 * exists, C is at most one past the line's last character). */
void fz_check_diags(Fz *f);

/* The header as parsed (p->header), then the canonical body, then "\n";
 * malloc'd. */
char *fz_canonical(const IrProgram *p);

/* Parses and analyses f's source; NULL (quietly) when either fails.
 * Checks that failures are reported and that success verifies. */
IrProgram *fz_load(Fz *f);

/* Analyses p (ir_sema, no sidecar) in f's context: whether it succeeded.
 * Checks that a failure is reported, that success verifies (ir_verify) and
 * the diagnostics (fz_check_diags); fz_load's analysis. */
bool fz_sema_checked(Fz *f, IrProgram *p);

/* The total bytes of p's tensors (saturating). */
uint64_t fz_tensor_bytes(const IrProgram *p);

/* A 64-bit hash of the input (FNV-1a), to derive choices and seeds. */
uint64_t fz_hash(const uint8_t *data, size_t size);
/* xorshift64* step. */
uint64_t fz_next(uint64_t *state);

#endif
