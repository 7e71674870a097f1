/* leir/leir.h -- libleir, the LEIR compiler as a library: the one public
 * header.
 *
 * Everything leirc does is here for a program to call in memory: parse a
 * LEIR program, print it, list the legal optimisation steps, apply one,
 * judge a proposed step, compare two programs, run a program on buffers the
 * caller owns (reference interpreter or host JIT), emit PTX / LLVM IR / host
 * assembly / CUDA C / TVMScript, and estimate or measure its cost.
 *
 * Conventions
 *  - Every handle is opaque.  A leir_context owns the options, the
 *    diagnostics and every leir_program made in it; programs die with their
 *    context or earlier with leir_program_free.  Two contexts share no
 *    mutable state: two threads may each use their own context at the same
 *    time.  One context is not to be used by two threads at once.
 *  - The library never prints, never exits and never aborts on bad input.
 *    A call that fails returns NULL (or a status other than LEIR_OK) and
 *    leaves located diagnostics in its context: leir_diag_count /
 *    leir_diag_get.  Each call clears the diagnostics of the call before it,
 *    except leir_diag_count, leir_diag_get and the getters that cannot fail.
 *    Warnings of a call that succeeds stay readable too.
 *  - Strings the library returns as `char *` are the caller's, freed with
 *    leir_free.  `const char *` strings belong to the object they come from
 *    and live as long as it.
 *  - Names are the ones leirc's command line uses: strategies by their
 *    STRATEGIES.md names (or aliases), spellings as `-O` takes them,
 *    dtypes as "f32", "f16", "bf16", "f64", "i32", ..., targets "interp",
 *    "host" and "cuda".
 *
 * Link with `pkg-config --libs libleir`.  The soname is libleir.so.0; this
 * header states LEIR_API_VERSION, and leir_api_version() what the library
 * that is loaded implements.
 */
#ifndef LEIR_LEIR_H
#define LEIR_LEIR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LEIR_API_VERSION 2

typedef struct leir_context leir_context;
typedef struct leir_program leir_program;
typedef struct leir_candidates leir_candidates;
typedef struct leir_compiled leir_compiled;

typedef enum leir_status {
  LEIR_OK = 0,
  LEIR_ERROR = 1,       /* an error in the input: see the diagnostics */
  LEIR_EINVAL = 2,      /* a bad argument (NULL handle, unknown name...) */
  LEIR_ENOMEM = 3,      /* out of memory, or over the context's max_memory */
  LEIR_EUNSUPPORTED = 4 /* not available in this build or on this machine
                           (no LLVM host JIT, no CUDA driver) */
} leir_status;

/* The library's version ("0.4.0") and the API level it implements. */
const char *leir_version(void);
int leir_api_version(void);

/* ------------------------------------------------------------ contexts */

leir_context *leir_context_new(void); /* NULL only when out of memory */
void leir_context_free(leir_context *ctx); /* NULL is a no-op */

/* Options, by the names of leirc's flags, values as leirc spells them:
 *   "seed"          N       random inputs and seeded choices (default 0)
 *   "max_steps"     N       the interpreter's budget (default 1e11, 0 = none)
 *   "max_memory"    SIZE    "512M", "4G", "0" = no limit (default as leirc)
 *   "tolerance"     exact|default|reference   of compare / check_step
 *   "unsafe_math"   0|1
 *   "gpu_arch"      sm_NN   PTX, cost model (default sm_90)
 *   "fp_contract"   off|on  on: a*b+c is one fused multiply-add, the same on
 *                           every target (leirc --fp-contract; default off)
 * LEIR_EINVAL (with a diagnostic) for an unknown key or a bad value. */
leir_status leir_context_set_option(leir_context *ctx, const char *key, const char *value);

/* ------------------------------------------------------------ diagnostics */

typedef enum leir_severity { LEIR_NOTE = 0, LEIR_WARNING = 1, LEIR_ERROR_SEVERITY = 2 } leir_severity;

typedef struct leir_diagnostic {
  leir_severity severity;
  const char *file;    /* the source's name ("<string>" when none), or NULL */
  int line, column;    /* 1-based; 0 when the diagnostic has no location */
  const char *message; /* "loop_tiling: loop 'a' has extent 48, not divisible by 32" */
  const char *rendered;/* `file:line:col: error: message`, the source line and
                          a caret, as leirc prints it (ends with '\n') */
} leir_diagnostic;

size_t leir_diag_count(const leir_context *ctx);
/* The i-th diagnostic (0-based) into *out; LEIR_EINVAL if i is out of range.
 * The strings live until the context's next call that clears diagnostics. */
leir_status leir_diag_get(const leir_context *ctx, size_t i, leir_diagnostic *out);

/* ------------------------------------------------------------ programs */

/* Parses and analyses LEIR text.  `name` names the source in diagnostics
 * (NULL: "<string>").  Declarations come from the text's own header
 * (`%in A : f32[64,32]`), else from `decls_json` (the SPEC §8.2 sidecar
 * object as JSON text), else they are inferred as leirc infers them. */
leir_program *leir_program_parse(leir_context *ctx, const char *name, const char *text,
                                 const char *decls_json);
/* The same from files; decls_path may be NULL. */
leir_program *leir_program_load(leir_context *ctx, const char *path, const char *decls_path);
void leir_program_free(leir_program *p); /* NULL is a no-op */

/* The canonical text, as `leirc --emit=leir` writes it; with_header != 0
 * puts the declaration header first (`--print-decls`). */
char *leir_program_text(const leir_program *p, int with_header);

/* The program's arguments (%in, %param, %out) in declaration order. */
typedef enum leir_role { LEIR_IN = 0, LEIR_PARAM = 1, LEIR_OUT = 2 } leir_role;
#define LEIR_MAX_RANK 8
typedef struct leir_tensor_info {
  const char *name;
  leir_role role;
  const char *dtype;             /* "f32" */
  int rank;
  int64_t shape[LEIR_MAX_RANK];
  size_t elem_size;              /* bytes per element */
  size_t nbytes;                 /* elem_size * the product of shape */
} leir_tensor_info;
size_t leir_program_ntensors(const leir_program *p);
leir_status leir_program_tensor(const leir_program *p, size_t i, leir_tensor_info *out);

/* ------------------------------------------------------------ steps */

/* Every legal candidate of `strategy` (NULL: of every strategy) on p, in
 * the order of `leirc --list-applicable`.  NULL on error. */
leir_candidates *leir_candidates_list(leir_context *ctx, const leir_program *p,
                                      const char *strategy);
size_t leir_candidates_count(const leir_candidates *c);
typedef struct leir_candidate {
  const char *spelling; /* "loop_tiling(loop=a,factor=8)", as -O takes it */
  const char *strategy; /* "loop_tiling" */
  const char *level;    /* "graph", "operator", "memory", "math" */
  const char *cls;      /* "E" or "T" (STRATEGIES §0.4) */
  int line, column;     /* the site: the loop or statement concerned (0: none) */
} leir_candidate;
leir_status leir_candidate_get(const leir_candidates *c, size_t i, leir_candidate *out);
void leir_candidates_free(leir_candidates *c);

/* Applies one step, given as a spelling (a complete spelling or a filter,
 * as `-O` takes it), checking its precondition: the new program, or NULL
 * with the refusal as a diagnostic.  *cls_out (may be NULL) receives "E"
 * or "T".  p is unchanged. */
leir_program *leir_program_apply(leir_context *ctx, const leir_program *p, const char *spelling,
                                 const char **cls_out);

/* --check-step: is `after` (LEIR text; may be anything) one legal step of
 * `strategy` (NULL: of any strategy) from `before`?  Verdicts as
 * `leirc --check-step` prints them. */
typedef enum leir_verdict {
  LEIR_STEP_LEGAL = 0,
  LEIR_STEP_EQUIVALENT = 1,     /* equal or close, but no legal step of the strategy */
  LEIR_STEP_NOT_EQUIVALENT = 2,
  LEIR_STEP_DOES_NOT_PARSE = 3,
  LEIR_STEP_INVALID = 4,        /* parses, fails analysis */
  LEIR_STEP_UNCHANGED = 5,
  LEIR_STEP_NOT_RUN = 6         /* no legal step, and the pair was not run (over the
                                   context's max_steps, ...): not known to differ */
} leir_verdict;
typedef struct leir_step_result {
  leir_verdict verdict;
  char *spelling;  /* LEGAL: the candidate; EQUIVALENT: the closest one; else NULL */
  char *cls;       /* LEGAL: "E" or "T"; else NULL */
  char *message;   /* the verdict line as leirc prints it */
} leir_step_result;
leir_status leir_check_step(leir_context *ctx, const leir_program *before, const char *after_text,
                            const char *strategy, leir_step_result *out);
void leir_step_result_clear(leir_step_result *r); /* frees its strings */
const char *leir_verdict_name(leir_verdict v);    /* "legal", "equivalent", ... */

/* ------------------------------------------------------------ running */

/* Buffers: one per argument of the program, in leir_program_tensor order,
 * each of that tensor's nbytes, C order, host byte order.  %in and %param
 * buffers are read (NULL: deterministic random data from the context's
 * seed, as `leirc --run` makes it); %out buffers are written and must not
 * be NULL.  target: "interp" (reference interpreter) or "host" (LLVM JIT,
 * bit-identical to the interpreter); "cuda" gives LEIR_EUNSUPPORTED where
 * no CUDA driver is found. */
leir_status leir_program_run(leir_context *ctx, const leir_program *p, const char *target,
                             void *const *buffers);

/* (API level 2) Compiles p once, to run many times with leir_compiled_run:
 * the code leir_program_run(ctx, p, target, ...) runs, without compiling it
 * again at each run.  target: "host" (the LLVM JIT).  NULL with a
 * diagnostic on error.  It lives until leir_compiled_free or the end of its
 * context, also after leir_program_free(p). */
leir_compiled *leir_program_compile(leir_context *ctx, const leir_program *p, const char *target);
/* Runs it on buffers as leir_program_run takes them, except that every
 * buffer must be given (no random inputs) and is used in place (no copy):
 * %out buffers are zero-filled, then written.  Each buffer is aligned to
 * its element size.  Diagnostics go to the context of the compile; like
 * the context, one leir_compiled is not to be used by two threads at once. */
leir_status leir_compiled_run(leir_compiled *c, void *const *buffers);
void leir_compiled_free(leir_compiled *c); /* NULL is a no-op */

/* --compare: run both on the same inputs (the context's seed) and compare
 * every output.  *verdict_out: "equal", "close" or "differ"; *message_out
 * (may be NULL; the caller's, leir_free) the line leirc prints. */
leir_status leir_compare(leir_context *ctx, const leir_program *a, const leir_program *b,
                         const char **verdict_out, char **message_out);

/* ------------------------------------------------------------ code */

/* kind: "ptx", "llvm", "asm", "cuda", "tir", "tirx", "leir".  The text as
 * `leirc --emit=KIND` writes it (PTX for the context's gpu_arch). */
char *leir_program_emit(leir_context *ctx, const leir_program *p, const char *kind);

/* The analytic cost model's estimate in seconds for target "host" or
 * "cuda" (the context's gpu_arch); target "learned": the learned model of
 * the host's run time (leirc --cost=learned; its file as leirc finds it,
 * $LEIRC_COST_MODEL first, loaded at the context's first such call). */
leir_status leir_program_cost(leir_context *ctx, const leir_program *p, const char *target,
                              double *seconds_out);
/* The host JIT's measured median run time in seconds (random inputs). */
leir_status leir_program_measure(leir_context *ctx, const leir_program *p, double *seconds_out);

void leir_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* LEIR_LEIR_H */
