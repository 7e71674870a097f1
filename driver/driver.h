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
  int tolerance;            /* --tolerance: a CmpTolerance (default CMP_DEFAULT;
                               --eval: CMP_REFERENCE) */
  bool tolerance_given;     /* --tolerance given */
  bool json;                /* --json */
  const char *output_dir;   /* --output-dir DIR (NULL: "." unless --print-outputs) */
  bool poison;              /* --poison */
  uint64_t max_steps;       /* --max-steps N (default 10^11, 0 = no limit) */
  uint64_t max_memory;      /* --max-memory SIZE: bytes of one program's tensors (default
                               leir_default_max_memory(), 0 = no limit; ir/memlimit.h) */
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

/* --tune (driver/tune.c). */
#define TUNE_MAX_LOOKAHEAD 3
/* --time-limit's default: bare --tune searches for a minute. */
#define DRV_TUNE_DEFAULT_TIME_LIMIT 60.0
/* TUNE_SKETCH: the schedule sketches of search/ (search/search.h); TUNE_AUTO
 * (the default): with --cost=measure on the host and a sketch rule that
 * matches, the sketches on half the budget and time, then beam from the
 * best program on the rest; else beam. */
typedef enum DrvTuneStrategy {
  TUNE_GREEDY, TUNE_BEAM, TUNE_BFS, TUNE_DFS, TUNE_MCTS, TUNE_POLICY, TUNE_SKETCH, TUNE_AUTO
} DrvTuneStrategy;
typedef struct DrvTuneOptions {
  bool enabled;              /* --tune[=STRATEGY] */
  DrvTuneStrategy strategy;  /* default auto */
  int budget;                /* --budget N: programs verified and costed
                                (default 0: no cap, --time-limit governs) */
  int beam_width;            /* --beam-width W (default 4) */
  int max_depth;             /* --max-depth D (default 8) */
  int expand;                /* --expand K: children measured per program,
                                the cost model's best K (default 8, 0 = all) */
  int lookahead;             /* --lookahead N: loop_reorder steps looked
                                ahead per candidate (default 2, at most 3) */
  const char *trace;         /* --trace FILE.jsonl */
  double time_limit;         /* --time-limit SECONDS (default
                                DRV_TUNE_DEFAULT_TIME_LIMIT) */
  const char *policy;        /* --policy=CMD (driver/policy.h; NULL: none) */
  double policy_timeout;     /* --policy-timeout SECONDS (default 10) */
  bool verify_all;           /* --verify-all: with --cost=model, verify every
                                program costed, not only those kept */
  int vector_bytes;          /* --vector-bytes N: the vector registers the
                                sketches fit their tiles to (16, 32, 64;
                                0 = the host's) */
  bool rank_learned;         /* --rank-cost=learned: with --cost=measure the
                                learned model (search/learned.h) ranks the
                                candidates, updated online with the
                                search's measurements */
  const char *model_save;    /* --cost-model-save=FILE: the learned model as
                                the search left it (NULL: not saved) */
  bool sketch_sample;        /* --sketch-search=sample (the default): with
                                --cost=measure the sketch instances are
                                drawn and measured one at a time; evolve:
                                bred in generations ranked by the model
                                (search_sketch_evolve) */
} DrvTuneOptions;

/* --emit-steps (driver/steps.c). */
typedef struct DrvStepsOptions {
  const char *path;        /* --emit-steps=FILE.jsonl ("-": stdout); NULL = off */
  int ninputs;             /* the input files, in command-line order */
  char *const *inputs;
  int sample;              /* --sample=K: at most K records a program (0 = all) */
  bool balance;            /* --balance */
  int shard_i, shard_n;    /* --shard=I/N (default 0/1) */
  bool no_verify;          /* --no-verify */
  bool keep_unverified;    /* --keep-unverified */
  bool max_steps_given;    /* --max-steps given (else DRV_STEPS_DEFAULT_MAX_STEPS) */
  uint64_t jit_max_steps;  /* --jit-max-steps N (--emit-steps and --eval) */
  bool jit_max_steps_given; /* (else DRV_JIT_DEFAULT_MAX_STEPS) */
  int format;              /* --format: STEPS_RECORDS (default), STEPS_STEPTP, STEPS_CHAT */
  const char *cache_dir;   /* --steps-cache=DIR (driver/steps_cache.h); NULL = off */
  bool no_incremental;     /* --no-incremental: run every program after a
                              step in full (driver/incr.c) */
} DrvStepsOptions;
enum { STEPS_RECORDS, STEPS_STEPTP, STEPS_CHAT };
/* The interpreter budget of --emit-steps per run without --max-steps. */
#define DRV_STEPS_DEFAULT_MAX_STEPS 10000000ull
/* The host JIT's budget of --emit-steps and --eval per run without
 * --jit-max-steps (driver/verify.c). */
#define DRV_JIT_DEFAULT_MAX_STEPS 10000000000ull

/* --eval (driver/eval.c). */
typedef struct DrvEvalOptions {
  const char *path;        /* --eval=PREDICTIONS.jsonl; NULL = off */
  bool summary;            /* --eval-summary RESULTS.jsonl... */
  int jobs;                /* -j N (default 1) */
} DrvEvalOptions;

/* --cost: how programs are ranked (--tune) and what --print-cost shows. */
typedef enum DrvCost { COST_MEASURE, COST_MODEL } DrvCost;

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
  bool fp_contract; /* --fp-contract=on (ir/contract.h); with --compare, A's mode */
  int fp_contract_b; /* --compare --fp-contract=A,B: B's mode (0 off, 1 on); -1: as A */
  DrvMode mode;           /* --run, --compare */
  DrvRunOptions run;
  DrvPassOptions passes;  /* -O, --list-passes, ... */
  DrvTarget target;       /* --target=host|cuda */
  int gpu_sm;             /* --gpu-arch=sm_NN (default 90) */
  DrvTuneOptions tune;    /* --tune, --budget, ... */
  DrvStepsOptions steps;  /* --emit-steps, --sample, ... */
  DrvCost cost;           /* --cost=measure|model (default measure) */
  bool learned;           /* --cost=learned: COST_MODEL with the learned model
                             (search/learned.h) on the host */
  bool print_cost;        /* --print-cost (driver/cost_cli.c) */
  DrvEvalOptions eval;    /* --eval, --eval-summary (driver/eval.c) */
  bool check_step_given;  /* --check-step[=STRATEGY] (driver/checkstep_cli.c) */
  const char *check_step; /* its STRATEGY (NULL: any) */
} DrvOptions;

/* Reading and loading programs: ir_read_source and ir_load_program
 * (ir/load.c), shared with libleir. */

/* Opens -o (or stdout) for writing; NULL after a diagnostic. */
FILE *drv_open_output(LeirCtx *ctx, const char *path);
bool drv_close_output(LeirCtx *ctx, FILE *f, const char *path);

/* driver/run.c: --run and --compare. */
void drv_run_defaults(DrvOptions *o);
/* --input NAME=FILE, split in place (false if malformed).  Numbers of
 * --seed, --seeds and --max-steps: leir_parse_u64 (ir/memlimit.h); names
 * of --tolerance: cmp_tolerance_from_name (interp/compare.h). */
bool drv_add_input(DrvOptions *o, char *spec);
/* `leirc --run FILE`: exit status 0, 1 (an error in the input) or 2. */
int drv_run(const DrvOptions *o);
/* `leirc --compare A B`: 0 equal or close, 1 differ, 2 error. */
int drv_compare(const DrvOptions *o, const char *a, const char *b);
/* The context as --run and --compare set it up from the options. */
void drv_ctx_setup(LeirCtx *ctx, const DrvOptions *o);
/* ip's inputs and parameters as --run takes them: the --input files, and
 * random data of --seed for the others; false after a diagnostic (an
 * unknown name, a file that cannot be read or of the wrong dtype or shape:
 * every one is reported).  --run, --print-cost --cost=measure and --tune
 * take their data so. */
struct InterpProg;
bool drv_fill_inputs(struct InterpProg *ip, const DrvOptions *o);
/* --run on a loaded program: --input files, random other inputs, the
 * outputs written to --output-dir (or printed); 0, 1 or 77 as drv_run. */
int drv_run_loaded(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p);
/* --compare on loaded programs (a and b name them in messages): 0 equal or
 * close, 1 differ (*d filled in both cases), 2 error (reported). */
struct InterpDiff;
int drv_compare_loaded(LeirCtx *ca, const IrProgram *pa, LeirCtx *cb, const IrProgram *pb, const DrvOptions *o,
                       const char *a, const char *b, struct InterpDiff *d);
/* The --compare --json object of *d (a new jansson reference). */
struct json_t;
struct json_t *drv_compare_json(const struct InterpDiff *d, const DrvOptions *o, const char *a, const char *b);

/* driver/passes_cli.c: -O and the other pass options. */
bool drv_pass_add_O(DrvOptions *o, const char *arg);
bool drv_pass_check_dump_name(const char *what);
int drv_pass_list_passes(void);
int drv_pass_list_applicable(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p);
/* Does a bare -O NAME cost its candidates for CUDA (--target=cuda, or no
 * --target and --emit ptx, cuda or llvm: the NVPTX module) rather than
 * for the host? */
bool drv_pass_cost_cuda(const DrvOptions *o);
/* Runs the -O pipeline on p: the result, p itself without -O, or NULL after
 * an error.  A bare NAME without --seed takes the cost model's cheapest
 * candidate (PassRunOptions.cost). */
IrProgram *drv_pass_run(LeirCtx *ctx, const DrvOptions *o, IrProgram *p);
void drv_pass_free(DrvOptions *o);

/* driver/tune.c: --tune.  Defaults; the strategy by name (false if
 * unknown). */
void drv_tune_defaults(DrvOptions *o);
bool drv_tune_parse_strategy(const char *s, DrvTuneStrategy *st);
const char *drv_tune_strategy_name(DrvTuneStrategy st);
/* Searches for the fastest verified rewrite of p (see leirc(1), TUNING).
 * Returns the best program (p itself if nothing beats it) and *rc = 0, or
 * NULL with *rc = 1 (an error was reported) or 77 (no CUDA driver). */
IrProgram *drv_tune(LeirCtx *ctx, const DrvOptions *o, IrProgram *p, int *rc);

/* driver/cost_cli.c: --print-cost.  Prints the cost model's estimate of p
 * for --target (host, else cuda for --gpu-arch) to stdout, one `key: value`
 * line per quantity or one JSON object (--json), and with --cost=measure
 * --target=host the measured median too.  Returns 0, or 1 after an error. */
int drv_print_cost(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p);
/* What --print-cost prints, appended to *out (json: the one object);
 * false after an error diagnostic. */
bool drv_cost_text(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p, bool json, SBuf *out);

/* driver/steps.c: --emit-steps.  --shard's I/N (false if malformed or not
 * 0 <= I < N); the run over o->steps.inputs: exit status 0, 1 (an input
 * had an error; the other inputs' records are written) or 2. */
bool drv_parse_shard(const char *s, int *i, int *n);
int drv_emit_steps(const DrvOptions *o);

/* driver/verify.c: the engine of a run that --emit-steps or --eval checks:
 * the interpreter within drv_interp_budget (--max-steps, else
 * DRV_STEPS_DEFAULT_MAX_STEPS; 0 = no limit), the host JIT (bit-identical)
 * above it within drv_jit_budget (--jit-max-steps, else
 * DRV_JIT_DEFAULT_MAX_STEPS; 0 = no JIT), else none.  drv_verify_limit is
 * the largest work that is run; drv_jit_runner(ctx, ip) is an InterpRunner
 * (interp/check.h) running ip with the host JIT, diagnostics through ctx. */
typedef enum DrvEngine { ENGINE_INTERP, ENGINE_JIT, ENGINE_NONE } DrvEngine;
struct InterpProg;
uint64_t drv_interp_budget(const DrvOptions *o);
uint64_t drv_jit_budget(const DrvOptions *o);
DrvEngine drv_engine_for(const DrvOptions *o, uint64_t work);
uint64_t drv_verify_limit(const DrvOptions *o);
bool drv_jit_runner(void *ctx, struct InterpProg *ip);
/* The JIT runners compile through a cache of compiled nests kept in ctx
 * (LeirCtx.jit_cache, codegen/host_cache.c; off with LEIRC_JIT_CACHE=0):
 * at most this many kernels and bytes of keys. */
#define DRV_JIT_CACHE_ENTRIES 256
#define DRV_JIT_CACHE_BYTES ((size_t)64 << 20)
/* --steps-cache DIR: the cache of ctx also looks for kernels in DIR/jit
 * (codegen/host_cache.c, cg_jit_cache_set_dir). */
void drv_jit_cache_dir(LeirCtx *ctx, const char *dir);
/* drv_jit_runner, the kernels it compiles also written to that directory
 * (--emit-steps: the run of a program before, whose nests the programs
 * after its steps share, in this and in later processes). */
bool drv_jit_runner_store(void *ctx, struct InterpProg *ip);
/* drv_jit_runner for a program whose outputs and intermediates are zero
 * already, or written first (cg_run_host_interp_zeroed: no zeroing). */
bool drv_jit_runner_zeroed(void *ctx, struct InterpProg *ip);
/* drv_jit_runner and drv_jit_runner_zeroed for a run after which only the
 * outputs (and tensors kept, interp_kept) are read: the program may then
 * be rewritten so that an intermediate is not computed (codegen/exec.h,
 * CG_EXEC_OUTPUTS; the others run with CG_EXEC_SAME_STATE, which keeps
 * every tensor's bytes). */
bool drv_jit_runner_outputs(void *ctx, struct InterpProg *ip);
bool drv_jit_runner_zeroed_outputs(void *ctx, struct InterpProg *ip);
/* drv_jit_runner_outputs and drv_jit_runner_zeroed_outputs with the
 * tensors that live[id] marks read after the run too. */
bool drv_jit_runner_live(void *ctx, struct InterpProg *ip, const unsigned char *live);
bool drv_jit_runner_zeroed_live(void *ctx, struct InterpProg *ip, const unsigned char *live);
/* Per tensor id of p, 1 for an output or intermediate that the host JIT's
 * code writes in full before reading (cg_written_first) and kept[] (may be
 * NULL) does not mark: its buffer may be taken from a pool unzeroed
 * (InterpBufPool.dirty_ok) for a run by drv_jit_runner_zeroed.  Malloc'ed;
 * NULL when out of memory. */
unsigned char *drv_jit_dirty_ok(const IrProgram *p, const unsigned char *kept);
/* interp_fused_step_check (interp/check.h) of a --emit-steps, --eval or
 * --tune pair under tol (a CmpTolerance), on the inputs and parameters of
 * `inputs` (a compiled program, e.g. --tune's reference holding the --input
 * data; InterpCompareOpts.inputs_of) or, when NULL, the random inputs of
 * --seed: in the interpreter within drv_interp_budget, or with jit on the
 * host JIT. */
struct InterpDiff;
struct InterpProg;
int drv_fused_step_check(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, int tol,
                         bool jit, struct InterpProg *inputs, struct InterpDiff *d);

/* driver/incr.c: the program after a step run from its first nest that
 * differs from the program before (issue 61).  drv_incr_plan fills *r:
 * skip, the leading nests of `after` whose values are taken from the
 * before's run (0: none, prog is `after`), prog, `after` without them
 * (same tensors and statement ids; in ctx's arena), and kept, by tensor
 * id of `after`, those the skipped nests write; true when skip > 0.
 * drv_incr_load copies the kept tensors from `a` (the before, run: every
 * output and intermediate holds its final value) into `b` (made from
 * r->prog) and marks them kept (interp_set_kept), before b is run; a
 * tensor whose buffer in b is mapped already (InterpBuf.mapped: the
 * caller gave it a's bytes, steps_cache_share) is not copied.
 * tmps: whether the before's intermediates will hold their final values in
 * `a` (false: a skipped nest may write outputs only). */
typedef struct DrvIncr {
  int skip;
  const IrProgram *prog;
  unsigned char *kept;
} DrvIncr;
bool drv_incr_plan(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, bool tmps,
                   DrvIncr *r);
/* drv_incr_plan when only some intermediates' final values are known in
 * `a` (a --steps-cache entry that kept some): known, by tensor id of
 * `before` (NULL: none), marks those known besides all of them with tmps.
 * An intermediate that the skipped nests write and the after's other nests
 * never mention needs no known value. */
bool drv_incr_plan_known(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                         bool tmps, const unsigned char *known, DrvIncr *r);
void drv_incr_load(const DrvIncr *r, struct InterpProg *a, struct InterpProg *b);
/* With LEIRC_INCR_STATS set in the environment, one line on stderr per
 * program after a step run: "incr SKIP NESTS SKIPPED_WORK WORK" (statement
 * executions; bench/incr_bench.sh). */
void drv_incr_stats(const DrvIncr *r, const IrProgram *after);
/* driver/incr.c, --eval: the after's trailing nests identical to the
 * before's not run when what they read holds the same bits in both runs
 * (issue 61).  drv_incr_tail fills *t from r (drv_incr_plan's): skip, the
 * trailing nests left out (0: none, prog is r->prog), prog, r->prog
 * without them, rest, those nests as a program (same tensors), and masks by
 * tensor id of `after`; bprog and brest, the before's nests without and
 * with the tail, masks by tensor id of `before`, and bsafe, whether the
 * before's tail cannot stop a run (every reference provably in range).
 * After b (made from t->prog, loaded by drv_incr_load) has run,
 * drv_incr_tail_finish either takes what the tail writes from `a` (its
 * reads held the before's bits: 1) or runs the tail on b's values with
 * run(arg, .) (NULL: the interpreter; 0), -1 when that fails.  partial: `a`
 * ran t->bprog only (its tail, when the bits differ, is run on it first;
 * -2 when that fails).  drv_incr_tail_stats: "tail SKIP NESTS SKIPPED_WORK
 * WORK BEFORE_SKIPPED_WORK" (LEIRC_INCR_STATS; SKIPPED_WORK 0 when the tail
 * ran, BEFORE_SKIPPED_WORK 0 unless the before's tail never ran). */
struct InterpOptions;
struct InterpBufPool;
typedef struct DrvTail {
  int skip;
  const IrProgram *prog, *rest;
  unsigned char *check, *take, *ment, *all;
  const IrProgram *bprog, *brest;
  unsigned char *bment, *btake;
  bool bsafe;
  /* kept marks: prog's kept (drv_incr_load's) and every tensor it does not
     mention, bprog's, every tensor it does not mention (zero, not reset) */
  unsigned char *keep, *bkeep;
  unsigned char *need; /* the kept tensors prog, the tail or a comparison reads */
} DrvTail;
bool drv_incr_tail(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, bool tmps,
                   const DrvIncr *r, DrvTail *t);
/* drv_incr_tail with known as drv_incr_plan_known's. */
bool drv_incr_tail_known(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after,
                         bool tmps, const unsigned char *known, const DrvIncr *r, DrvTail *t);
/* Per tensor id of p, the intermediates worth keeping within `bound`
 * bytes (nbytes: each tensor's size, by id): weight[j] programs after a
 * step are expected to differ first at nest j (j < p->nnests), each run
 * from boundary j (the leading nests skipped) and its tail checked at
 * boundary j + 1; a boundary needs the intermediates live across it
 * (written before it, mentioned at or after it).  Boundaries are taken in
 * the order of the statement executions they save (weight x the work of
 * the nests skipped) while their intermediates fit.  Malloc'ed; NULL when
 * out of memory. */
unsigned char *drv_incr_keep_tmps(const IrProgram *p, const int *weight, const size_t *nbytes, size_t bound);
int drv_incr_tail_finish(LeirCtx *ctx, const DrvTail *t, struct InterpProg *a, struct InterpProg *b, bool partial,
                         const struct InterpOptions *io, struct InterpBufPool *pool,
                         bool (*run)(void *arg, struct InterpProg *ip), void *arg);
void drv_incr_tail_stats(const DrvTail *t, int done, bool partial, const IrProgram *after);
/* The after's run when its trailing nests are left out (t->skip), as the
 * runner of interp_compare_ran_with for --eval and --emit-steps: b run
 * with run(ctx, b) (NULL: the interpreter; else a host JIT runner,
 * drv_jit_runner or drv_jit_runner_zeroed), then drv_incr_tail_finish(ctx,
 * tail, a, b, partial, io, pool, .), the tails on the host JIT
 * (drv_jit_runner) when run is set; done: its result (0 until then). */
typedef struct DrvTailRun {
  LeirCtx *ctx;
  bool (*run)(void *ctx, struct InterpProg *ip);  /* b's runner, NULL: interp_run */
  bool (*rest)(void *ctx, struct InterpProg *ip); /* the tails' runner, NULL: interp_run */
  /* b's runner on the host JIT told which tensors are read after it (what
     the tail checks, takes and mentions: drv_jit_runner_live), used
     instead of run when set */
  bool (*run_live)(void *ctx, struct InterpProg *ip, const unsigned char *live);
  bool partial; /* `a` ran t->bprog only */
  struct InterpProg *a;
  const DrvTail *tail;
  const struct InterpOptions *io;
  struct InterpBufPool *pool;
  int done;
} DrvTailRun;
bool drv_tail_runner(void *arg, struct InterpProg *b);
/* drv_incr_load for a b made from t->prog: only the kept tensors that
 * t->prog, the tail or the comparison reads are copied (the others stay
 * zero, never touched), and t->keep marks b's kept tensors. */
void drv_incr_tail_load(const DrvIncr *r, const DrvTail *t, struct InterpProg *a, struct InterpProg *b);

/* driver/jobs.c: -j N.  Computes items 0..n-1 over nw forked worker
 * processes: fn(arg, i, out, diag) writes item i's output and diagnostics
 * to the two streams and returns flags, OR'ed into *flags.  Then writes
 * every item's output to `out` and diagnostics to `diag`, in item order
 * (the same bytes for every nw).  False with a message in err on a system
 * error or a worker that died (nothing is then written after that item). */
typedef int (*DrvJobFn)(void *arg, long i, FILE *out, FILE *diag);
bool drv_jobs_run(long n, int nw, DrvJobFn fn, void *arg, FILE *out, FILE *diag, int *flags, char *err,
                  size_t errn);

/* driver/checkstep_cli.c: --check-step.  Prints the verdict on AFTER (a
 * line, or with --json an object); exit status 0 legal, 1 otherwise, 2 on
 * a usage error. */
int drv_check_step(const DrvOptions *o, const char *before, const char *after);
/* driver/eval.c: --eval scores PREDICTIONS.jsonl (results to -o/--output,
 * the summary to stdout); --eval-summary merges result files.  Exit status
 * 0, 1 (an input or output file fails) or 2. */
int drv_eval(const DrvOptions *o, const char *path);
int drv_eval_summary(const DrvOptions *o, int n, char *const *paths);
/* driver/eval_authors.c: the Step-TP authors' evaluation records (prompt,
 * info, num_IRs, answer).  drv_eval_is_authors: rec has "prompt" and
 * "answer".  drv_eval_authors_read: BEFORE and its declarations from the
 * prompt, the answer's entries (a string answer read as JSON, else repaired
 * as the authors' scorer does); false with out->error (a located message,
 * in ctx's arena) when the record cannot be read.  drv_eval_authors_free
 * drops the JSON it holds. */
#define DRV_AUTHORS_MAX_IRS 64
typedef struct DrvAuthorsRecord {
  int num_irs;              /* num_IRs (default 1) */
  const char *name;         /* the program's NAME in the prompt */
  const char *before;       /* the program in the prompt */
  struct json_t *decls;     /* {known_names, known_shapes, known_dtype} */
  struct json_t *entries;   /* the answer's list */
  bool repaired;            /* a string answer read after the scorer's repair */
  const char *error;
} DrvAuthorsRecord;
bool drv_eval_is_authors(const struct json_t *rec);
bool drv_eval_authors_read(LeirCtx *ctx, const struct json_t *rec, DrvAuthorsRecord *out);
void drv_eval_authors_free(DrvAuthorsRecord *r);
struct StepResult;
/* The JSON object of a verdict (a json_t *, for --eval too). */
struct json_t *drv_step_result_json(const struct StepResult *r);

#endif
