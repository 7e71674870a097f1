/* check.h -- running two programs on the same inputs and comparing their
 * outputs: `leirc --compare` and the per-pass check of `--verify`.
 *
 * Inputs are matched by name.  For each seed S = seed, seed+1, ...,
 * seed+seeds-1, every input and parameter of the first program gets its
 * given file (the same for every seed) or random data (interp/data.h, drawn
 * with the FIRST program's subscript usage), the very same bytes are copied
 * to the second program, both programs run, and each output of the first
 * program (declaration order) is compared with the second's output of the
 * same name by cmp_arrays (interp/compare.h).  The overall verdict is the
 * worst one; the search stops at the first output that differs.
 */
#ifndef LEIR_INTERP_CHECK_H
#define LEIR_INTERP_CHECK_H

#include "interp/compare.h"
#include "interp/interp.h"

typedef struct InterpCompareOpts {
  int seeds;             /* how many seeds (>= 1) */
  uint64_t seed;         /* the first seed */
  CmpTolerance tol;
  InterpOptions run;     /* poison, max_steps */
  int ninputs;           /* given inputs: name -> .npy file */
  const char *const *input_names;
  const char *const *input_paths;
  /* non-NULL: every input and parameter of the first program is a copy of
     this compiled program's (by name; e.g. a reference that read the --input
     files once), one input set: seeds counts as 1, seed only names it in
     the report, ninputs is not read */
  InterpProg *inputs_of;
} InterpCompareOpts;

/* The first difference found (or none). */
typedef struct InterpDiff {
  CmpVerdict verdict;      /* overall: equal, close or differ */
  bool have;               /* false when every output is bit-equal */
  uint64_t seed;           /* where the reported difference is: */
  const IrTensor *tensor;  /* the output (of the first program) */
  int64_t index;           /* flat index */
  IrDType dtype;
  char a_text[64], b_text[64]; /* both values, interp_format_elem */
  uint64_t ulp;            /* cmp_arrays' ulp_distance */
  CmpResult cmp;           /* the full result for that output */
  int failed;              /* after -1: 1 the first program failed to run,
                              2 the second, 3 a given input file */
} InterpDiff;

/* Checks that a and b take the same arguments: every input/parameter and
 * output of one is an argument of the other with the same kind (input and
 * parameter count as the same kind), dtype and shape.  Reports each
 * difference as an error through ctx (named_a/named_b name the programs in
 * the messages) and returns false if there is any. */
bool interp_same_signature(LeirCtx *ctx, const IrProgram *a, const IrProgram *b, const char *name_a,
                           const char *name_b);

/* Runs both compiled programs as described above.  Returns 0 and fills *out,
 * or -1 after an error diagnostic (an input file that does not fit, a
 * program that fails to run -- reported through that program's context). */
int interp_compare_progs(InterpProg *a, InterpProg *b, const InterpCompareOpts *o, InterpDiff *out);

/* `leirc --compare`: checks the signatures (interp_same_signature, the
 * programs named a and b), compiles both (each in its own context, which
 * may be the same) and compares them (interp_compare_progs; o->run for
 * both).  0 and *out filled, or -1 after an error diagnostic. */
int interp_compare_programs(LeirCtx *ca, const IrProgram *pa, LeirCtx *cb, const IrProgram *pb,
                            const InterpCompareOpts *o, const char *a, const char *b, InterpDiff *out);

/* For checking many programs against one (leirc --emit-steps): `a` has
 * just run on the inputs of seed `seed` (its input buffers filled, e.g. by
 * interp_random_inputs, then interp_run).  Copies a's inputs and parameters
 * into b by name, runs b and compares every output of a with b's output of
 * the same name under tol, as interp_compare_progs does for one seed; a is
 * not run again.  Returns 0 and fills *out, or -1 when b fails to run
 * (out->failed = 2, the error reported through b's context).  The
 * signatures must agree (interp_same_signature). */
int interp_compare_ran(InterpProg *a, InterpProg *b, uint64_t seed, CmpTolerance tol, InterpDiff *out);

/* Another engine over an InterpProg's buffers (e.g. the host JIT,
 * cg_run_host_interp, which is bit-identical to the interpreter): runs ip
 * once, outputs and intermediates starting at zero; false after a
 * diagnostic through ip's context. */
typedef bool (*InterpRunner)(void *arg, InterpProg *ip);

/* interp_compare_ran with b run by run(arg, b) (interp_run when run is
 * NULL): the same inputs, the same comparison, the same *out. */
int interp_compare_ran_with(InterpProg *a, InterpProg *b, uint64_t seed, CmpTolerance tol, InterpRunner run,
                            void *arg, InterpDiff *out);

/* A pair over the interpreter's budget, run by another engine (run(arg,
 * .), e.g. the host JIT: `leirc --eval --target=host` and `--check-step`
 * past --max-steps): `before` and `after` (analysed in ctx, the same
 * signature) are compiled with no statement budget, before gets the random
 * inputs of `seed` and runs, and after is run and compared with it under
 * tol (interp_compare_ran_with).  Returns 0 with *out filled; 1 the
 * programs do not compile (e.g. over --max-memory); 2 before fails to run;
 * 3 after fails to run (diagnostics through ctx). */
int interp_compare_run_by(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, uint64_t seed,
                          CmpTolerance tol, InterpRunner run, void *arg, InterpDiff *out);

/* `leirc --compare`'s text: the verdict line ("equal", "close", "differ")
 * and, when there is a difference, the line that locates the first one in
 * the programs named a and b. */
void interp_diff_text(SBuf *out, const InterpDiff *d, const char *a, const char *b);

/* The line of interp_diff_text that locates the difference (d->have), with
 * no newline:
 *   first mismatch: output 'D' at [0,0] (flat 0, seed 0): -465.596771 in
 *   a.leir, -370.052185 in b.leir (3130805 ulp apart)
 * ("first difference" when the verdict is close). */
void interp_diff_where(SBuf *out, const InterpDiff *d, const char *a, const char *b);

/* How far apart the two values of d are, for a message: "8 ulp apart"
 * (floats), "only one is NaN" (floats, one side NaN), "differ by 3"
 * (integers and bool).  Written to out (n bytes, 64 is enough); returns
 * out. */
const char *interp_diff_distance(char *out, size_t n, const InterpDiff *d);

/* The error --verify reports for a step that changed the result (d from a
 * comparison with verdict CMP_DIFFER):
 *   step 'NAME' (class C) changed the result: output 'D' at [1,2] (flat 5,
 *   seed 0): 1.5 before, 1 after (4194304 ulp apart) */
void interp_report_step_diff(LeirCtx *ctx, const char *name, char cls, const InterpDiff *d);

/* "[i,j,k]": the multi-dimensional index of flat index k of tensor t. */
void interp_format_coords(char *out, size_t n, const IrTensor *t, int64_t k);

/* ------------------------------------------------------------ --verify */

typedef struct InterpCheckOptions {
  uint64_t seed;      /* first seed (default 0) */
  uint64_t max_steps; /* per run; 0 = no limit (default INTERP_DEFAULT_MAX_STEPS) */
} InterpCheckOptions;

/* Given inputs for the check (name -> .npy file), the same for every seed;
 * the other inputs are random.  Or, with `from`, every input and parameter
 * copied from that compiled program (InterpCompareOpts.inputs_of; n is not
 * read and there is one input set). */
typedef struct InterpCheckInputs {
  int n;
  const char *const *names;
  const char *const *paths;
  InterpProg *from;
} InterpCheckInputs;

/* The per-pass check.  `before` and `after` are analysed programs in the
 * same context (a pass's input and output); cls is the pass's class: 'E'
 * (the outputs must be bit-identical, cmp CMP_EXACT) or 'T' (within the
 * default tolerance, CMP_DEFAULT, STRATEGIES.md §0.4).  Runs both on
 * `seeds` random input sets (>= 1) as interp_compare_progs does.
 * Returns
 *   0  the step is correct;
 *   1  it is not: an error was reported naming the step, e.g.
 *        error: step 'loop_split' (class E) changed the result: output 'D'
 *        at [1,2] (flat 5, seed 0): 1.5 before, 1 after (4194304 ulp apart)
 *      or the transformed program has other arguments or fails to run;
 *   2  the check could not be made (the program before the step fails to
 *      run, or does not compile for the interpreter, or a given input file
 *      does not fit); an error says so.
 * opt may be NULL for the defaults. */
int interp_check_step(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, char cls, int seeds,
                      const char *step_name, const InterpCheckOptions *opt);
/* The same with given inputs (in may be NULL). */
int interp_check_step_inputs(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, char cls, int seeds,
                             const char *step_name, const InterpCheckOptions *opt, const InterpCheckInputs *in);

/* A class E step under --fp-contract=on (ctx->fp_contract, SPEC §13.3).
 * The step keeps the unfused result bit for bit, but it may change which
 * a*b+c fuse (compute_inline writes T = a*b into T + c, which then fuses),
 * and a fused program against an unfused one is class T.  For a class E
 * step whose fused results differed: compares `before` and `after` with
 * fusion off, exactly, and, when they are bit-identical, again with fusion
 * on under co->tol (the class T tolerance), on co's seeds and inputs in the
 * interpreter or, with `run`, on co's inputs for its first seed (its given
 * files or co->inputs_of's data, random data of co->seed for the rest) with
 * both programs run by run(arg, .).  Returns
 *   1  the step is exact without fusion; *d is the fused comparison under
 *      co->tol (its verdict says whether the step passes as class T);
 *   0  the step changes the unfused result too (a class E failure);
 *  -1  not applicable (fusion is off) or a program failed to compile or run
 *      (the caller keeps its own verdict; *d is untouched in both). */
int interp_fused_step_check(LeirCtx *ctx, const IrProgram *before, const IrProgram *after,
                            const InterpCompareOpts *co, InterpRunner run, void *arg, InterpDiff *d);

/* The end of a step check whose comparison under co (cls's tolerance, in
 * the interpreter) found *d differing: a class E step under --fp-contract=on
 * is judged again as class T under tol_t (interp_fused_step_check).  Returns
 * 0 when the step passes that way, else 1 after reporting the difference
 * (interp_report_step_diff, with the class it was judged as). */
int interp_step_differed(LeirCtx *ctx, const IrProgram *before, const IrProgram *after, const InterpCompareOpts *co,
                         CmpTolerance tol_t, char cls, const char *name, InterpDiff *d);

#endif /* LEIR_INTERP_CHECK_H */
