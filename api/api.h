/* api.h -- libleir's internals (the files of api/): the handles behind leir/leir.h
 * and what every entry point does first.  Not installed.
 *
 * A leir_context is one LeirCtx whose diagnostics are captured (diag_out
 * NULL, capture = the context's list) instead of printed; its arena holds
 * the IR of every program made in it.  A leir_program is a handle on one
 * analysed IrProgram and the source it came from (the text its diagnostics
 * show); freeing a handle releases the handle, the IR stays in the arena
 * until the context is freed. */
#ifndef LEIR_API_API_H
#define LEIR_API_API_H

#include "leir/leir.h"
#include "ir/ir.h"

struct leir_context {
  LeirCtx ctx;
  LeirDiagList diags;      /* the diagnostics of the last call */
  uint64_t seed;           /* "seed" */
  bool seed_given;         /* set: -O's seeded choice for a bare NAME */
  uint64_t max_steps;      /* "max_steps" */
  int tolerance;           /* "tolerance": a CmpTolerance */
  int gpu_sm;              /* "gpu_arch" */
  leir_program *programs;  /* the live handles, to free with the context */
  leir_compiled *compiled; /* the live compiled programs, likewise */
  struct SearchLearned *learned; /* leir_program_cost "learned": loaded at
                                    its first use (search/learned.h) */
};

struct leir_program {
  leir_context *lc;
  IrProgram *ir;
  LeirSource src;          /* in lc's arena */
  int nargs;               /* the arguments (in, param, out) ... */
  int *arg;                /* ... their tensor ids, in p->tensors order */
  leir_program *prev, *next;
};

/* The start of every call that may fail: clears the last call's
 * diagnostics and error counts; the source is "libleir" until a program's
 * is taken (api_use). */
void api_begin(leir_context *lc);
/* Diagnostics refer to p's source. */
void api_use(leir_context *lc, const leir_program *p);
/* An error diagnostic (no location) and LEIR_EINVAL. */
leir_status api_einval(leir_context *lc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new handle on ir (analysed, in lc's arena) whose diagnostics show
 * `src`; NULL (after a diagnostic) when out of memory. */
leir_program *api_wrap(leir_context *lc, IrProgram *ir, const LeirSource *src);
/* Is p a program of lc (LEIR_EINVAL with a diagnostic if not)? */
bool api_owns(leir_context *lc, const leir_program *p, const char *fn);
/* A malloc'd copy of sb's text (sb freed); NULL with a diagnostic if out of
 * memory. */
char *api_take(leir_context *lc, SBuf *sb);

/* struct leir_compiled is api/run.c's; the context frees those left. */
void api_compiled_free_all(leir_context *lc);

#endif
