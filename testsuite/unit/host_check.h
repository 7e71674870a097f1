/* host_check.h -- the host JIT against the interpreter, bit for bit:
 * helpers shared by the unit tests of codegen/ (codegen_test.c,
 * host_sched_test.c). */
#ifndef LEIR_TESTSUITE_UNIT_HOST_CHECK_H
#define LEIR_TESTSUITE_UNIT_HOST_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/interp.h"

/* cmp_arrays' kind of an element type (interp/compare.h). */
char cmp_kind(IrDType t);

/* Applied to the interpreter's inputs after the random ones. */
typedef void (*FillFn)(InterpProg *ip);

/* Runs text in the interpreter and on the host (with nthreads threads) on
 * the same inputs (random from seed 7, then `fill` applied) and fails the
 * test unless every output and intermediate is bit for bit the same.  fc:
 * --fp-contract=on (ir/contract.h) for both; par_min_work: the host's
 * CgOptions.par_min_work (1: every parallel nest on nthreads threads). */
void host_vs_interp_par(const char *text, FillFn fill, int nthreads, bool fc, int64_t par_min_work);
void host_vs_interp_mode(const char *text, FillFn fill, int nthreads, bool fc);
void host_vs_interp(const char *text, FillFn fill, int nthreads);

/* The host module of text as LLVM IR, unoptimised (opt_level 0: every
 * loop and hint as codegen/lower*.c make them), into *out (sbuf_free it);
 * fails the test when text does not load or compile. */
void host_llvm_o0(const char *text, SBuf *out);

/* Sets the first n elements of the f32 tensor name. */
void set_f32(InterpProg *ip, const char *name, const float *v, int n);

#endif
