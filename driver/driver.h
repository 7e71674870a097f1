/* driver.h -- the leirc command line: options and the actions they select.
 * The driver only wires modules together; it holds no compiler logic. */
#ifndef LEIR_DRIVER_H
#define LEIR_DRIVER_H

#include "ir/ir.h"

typedef enum DrvEmit {
  EMIT_NONE, /* check only */
  EMIT_LEIR,
  EMIT_LLVM,
  EMIT_ASM,
  EMIT_PTX,
  EMIT_TIR,  /* TVMScript */
  EMIT_TIRX, /* TVMScript, the tirx dialect of PyPI's TVM 0.27 */
  EMIT_CUDA  /* CUDA C */
} DrvEmit;

/* --target: where code runs.  Default: --run uses the interpreter, --emit
 * the NVPTX module. */
typedef enum DrvTarget { TARGET_DEFAULT, TARGET_HOST, TARGET_CUDA } DrvTarget;

/* What leirc does: compile (the default), --run or --compare. */
typedef enum DrvMode { MODE_COMPILE, MODE_RUN, MODE_COMPARE } DrvMode;

/* Options of --run and --compare (driver/run.c). */
typedef struct DrvRunOptions {
  int ninputs;              /* --input NAME=FILE.npy, in order given */
  const char **input_names; /* arrays of argc entries, owned by main */
  const char **input_paths;
  uint64_t seed;            /* --seed N (default 0) */
  int seeds;                /* --seeds K (default 1) */
  int tolerance;            /* --tolerance: a CmpTolerance (default CMP_DEFAULT) */
  bool json;                /* --json */
  const char *output_dir;   /* --output-dir DIR (NULL: "." unless --print-outputs) */
  bool poison;              /* --poison */
  uint64_t max_steps;       /* --max-steps N (default 10^11, 0 = no limit) */
  bool print_outputs;       /* --print-outputs */
} DrvRunOptions;

/* The pass options (driver/passes_cli.c). */
typedef struct DrvPassOptions {
  char *pipeline;          /* the -O arguments joined by ',' (malloc'd) */
  bool list_passes;        /* --list-passes */
  bool list_applicable;    /* --list-applicable (--json: JSON lines) */
  const char *dump_before; /* --dump-before=PASS|all */
  const char *dump_after;  /* --dump-after=PASS|all */
  const char *dump_dir;    /* --dump-dir=DIR */
  bool verify_each;        /* --verify-each */
  bool verify;             /* --verify */
  bool seed_given;         /* --seed given: seeded choice for a bare -O NAME */
} DrvPassOptions;

typedef struct DrvOptions {
  const char *input;
  const char *output;     /* -o */
  const char *decls;      /* --decls FILE.json */
  DrvEmit emit;
  bool emit_given;
  bool print_decls;
  bool no_warnings;
  bool werror;
  bool no_caret;
  bool unsafe_math; /* --unsafe-math */
  DrvMode mode;           /* --run, --compare */
  DrvRunOptions run;
  DrvPassOptions passes;  /* -O, --list-passes, ... */
  DrvTarget target;       /* --target=host|cuda */
  int gpu_sm;             /* --gpu-arch=sm_NN (default 90) */
} DrvOptions;

/* Reads `path` ("-" = stdin) into the context as the current source.
 * Returns false (after a diagnostic) on failure. */
bool drv_read_source(LeirCtx *ctx, const char *path);

/* Parses and analyses the current source with the options' declarations. */
IrProgram *drv_load_program(LeirCtx *ctx, const DrvOptions *o);

/* Opens -o (or stdout) for writing; NULL after a diagnostic. */
FILE *drv_open_output(LeirCtx *ctx, const char *path);
bool drv_close_output(LeirCtx *ctx, FILE *f, const char *path);

/* driver/run.c: --run and --compare. */
void drv_run_defaults(DrvOptions *o);
/* --input NAME=FILE, split in place (false if malformed); numbers of --seed,
 * --seeds and --max-steps; names of --tolerance. */
bool drv_add_input(DrvOptions *o, char *spec);
bool drv_parse_u64(const char *s, uint64_t *v);
bool drv_parse_tolerance(const char *s, int *tol);
/* `leirc --run FILE`: exit status 0, 1 (an error in the input) or 2. */
int drv_run(const DrvOptions *o);
/* `leirc --compare A B`: 0 equal or close, 1 differ, 2 error. */
int drv_compare(const DrvOptions *o, const char *a, const char *b);

/* driver/passes_cli.c: -O and the other pass options. */
bool drv_pass_add_O(DrvOptions *o, const char *arg);
bool drv_pass_check_dump_name(const char *what);
int drv_pass_list_passes(void);
int drv_pass_list_applicable(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p);
/* Runs the -O pipeline on p: the result, p itself without -O, or NULL after
 * an error. */
IrProgram *drv_pass_run(LeirCtx *ctx, const DrvOptions *o, IrProgram *p);
void drv_pass_free(DrvOptions *o);

#endif
