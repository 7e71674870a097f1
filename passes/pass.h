/* pass.h -- the pass interface: one optimisation strategy of STRATEGIES.md
 * per pass, the table of all 43 (then leirc's own strategies), and the pass
 * manager behind -O, --list-applicable, --dump-before/--dump-after,
 * --verify-each and --verify.
 *
 * A pass is three functions (STRATEGIES §0.3):
 *
 *   enumerate(pc)   pushes the pass's candidates for pc->prog, in canonical
 *                   order (nest index, statement index, loop position,
 *                   tensor name, then parameter values ascending).  It may
 *                   push candidates that turn out illegal: the manager runs
 *                   check() on each and lists only the legal ones.
 *   check(pc, c)    NULL if candidate c is legal on pc->prog, else a reason
 *                   (arena string, no pass name, e.g. "loop 'a' carries a
 *                   dependence on 'G' (G_{tx,a-1})").  It sets c->site (the
 *                   loop or statement concerned, for diagnostics and JSON),
 *                   c->nest, for an E-dagger pass c->cls (E or T) and,
 *                   when c is legal, c->why (the facts its analysis
 *                   established, for --emit-steps' rationale).  It
 *                   must accept any parameter values, also nonsense ones
 *                   (a user typed them), and refuse with a reason.
 *   apply(pc, q, c) performs checked candidate c on q, a private deep copy
 *                   of pc->prog (ir_program_clone): mutate q in place, build
 *                   new nodes in pc->ctx->arena, never touch pc->prog.  Loop
 *                   and index bindings of q are stale: look things up by
 *                   name / position.  Returns false with pc->reason set only
 *                   if something the check did not foresee happens.
 * The manager then re-analyses q (ir_resema) and verifies it (ir_verify);
 * a failure there is reported as an internal error of the pass.
 *
 * A CANDIDATE is a pass plus an ordered list of key=value parameters; its
 * spelling is `NAME(k1=v1,k2=v2,...)`, keys in the order of the pass's key
 * table.  Values are decimal integers, names (loop indices, tensors, scopes,
 * kinds) or lists written with '.' between elements (`perm=2.0.1`).  A value
 * may hold balanced parentheses and any character except ',' at depth 0
 * (`item=(c+7)+g`).
 *
 * -O accepts a spelling; keys that are omitted make it a FILTER: the manager
 * enumerates the pass's candidates and takes the first legal one whose given
 * keys match (or, with --seed N, a seeded choice among them).  A spelling
 * with every key marked `required` in the key table is checked directly, so
 * values that enumerate() does not list (e.g. any split point) are accepted.
 *
 * How to add a pass: passes/README.md.
 */
#ifndef LEIR_PASSES_PASS_H
#define LEIR_PASSES_PASS_H

#include "ir/ir.h"

typedef enum PassLevel { PASS_GRAPH, PASS_OPERATOR, PASS_MEMORY, PASS_MATH } PassLevel;

/* Exactness classes of STRATEGIES §0.4.  PASS_EDAGGER ("E†") appears only in
 * the table; a candidate's class is always PASS_E or PASS_T. */
typedef enum PassClass { PASS_E, PASS_EDAGGER, PASS_T } PassClass;

const char *pass_level_name(PassLevel l); /* "graph", "operator", ... */
const char *pass_class_name(PassClass c); /* "E", "E†", "T" */

/* ------------------------------------------------------------ candidates */

enum { PASS_MAX_PARAMS = 10 };

typedef struct PassParam {
  const char *key;
  const char *val; /* the spelling of the value */
} PassParam;

typedef struct PassInfo PassInfo;

typedef struct PassCand {
  const PassInfo *pass;
  int nparams;
  PassParam params[PASS_MAX_PARAMS];
  /* Filled by check(): */
  int nest;       /* top-level nest concerned, -1 if none */
  IrLoc site;     /* loop or statement concerned ({0,0} if none) */
  PassClass cls;  /* PASS_E or PASS_T */
  const char *note; /* optional remark printed as a note by -O (e.g. a
                       scope that SPEC §9.3 will demote) */
  const char *why;  /* optional, set when the candidate is LEGAL: why the
                       precondition holds, from the check's own analysis
                       (arena string, no pass name, e.g. "loops 'a' and
                       'c' carry no dependence that the swap reverses");
                       the rationale of `leirc --emit-steps` records */
} PassCand;

/* Parameter access.  Setting a key that exists replaces its value; keys are
 * kept in the order of the pass's key table whatever the order of calls. */
void pass_cand_set(LeirCtx *ctx, PassCand *c, const char *key, const char *val);
void pass_cand_set_int(LeirCtx *ctx, PassCand *c, const char *key, int64_t v);
const char *pass_cand_get(const PassCand *c, const char *key); /* NULL if absent */
/* Integer parameter: 1 = ok, 0 = absent, -1 = not an integer. */
int pass_cand_get_int(const PassCand *c, const char *key, int64_t *v);
/* `NAME(k=v,...)` (just NAME without parameters), in the arena. */
char *pass_cand_spelling(LeirCtx *ctx, const PassCand *c);

/* ------------------------------------------------------------ passes */

typedef struct PassCtx PassCtx;

typedef struct PassKey {
  const char *key;
  bool required; /* part of every complete spelling (see above) */
  const char *doc;
} PassKey;

typedef struct PassImpl {
  const PassKey *keys; /* terminated by {NULL} */
  void (*enumerate)(PassCtx *pc);
  const char *(*check)(PassCtx *pc, PassCand *c);
  bool (*apply)(PassCtx *pc, IrProgram *q, const PassCand *c);
  /* Optional: index of the default candidate among `n` legal ones for a
   * bare `-O NAME` without --seed (NULL: the first). */
  int (*pick_default)(PassCtx *pc, PassCand *const *legal, int n);
  /* Optional: is c a complete spelling (checked directly) rather than a
   * filter over enumerate's candidates?  NULL: every `required` key given. */
  bool (*complete)(const PassCand *c);
  /* The rewrite makes no tree deeper than the program's deepest (it moves
   * sub-trees and copies references): the manager's depth trial on deep
   * programs (passmgr.c, check_cand) is skipped. */
  bool keeps_depth;
} PassImpl;

struct PassInfo {
  const char *name;
  const char *alias;      /* short name accepted by -O (NULL if none) */
  PassLevel level;
  PassClass cls;          /* the table class: E, E† or T */
  const char *summary;
  const PassImpl *impl;   /* NULL: not implemented yet */
  bool own;               /* leirc's own strategy, not one of the 43 of
                             STRATEGIES.md (Step-TP's); listed after them */
};

/* The 43 strategies in the order of STRATEGIES.md (graph, operator, memory,
 * math), pass_table[0..pass_table_paper), then leirc's own strategies
 * (`own`: scan_rewrite, reduction_rfactor), pass_table[pass_table_paper..pass_table_size). */
extern const PassInfo pass_table[];
extern const int pass_table_size;
extern const int pass_table_paper; /* 43 */
/* By name or alias; NULL if unknown. */
const PassInfo *pass_lookup(const char *name);

/* The state a pass works in.  Passes read `ctx` and `prog`, push candidates
 * with pass_emit, and may use the analyses below (cached per PassCtx). */
struct PassCtx {
  LeirCtx *ctx;            /* arena and diagnostics */
  const IrProgram *prog;   /* the program (analysed); never modified */
  const PassInfo *pass;
  /* enumerate's output */
  PtrVec cands;            /* PassCand* */
  /* apply's failure reason */
  const char *reason;
  /* analysis caches (see deps.h) */
  void **deps_cache;       /* per top-level nest */
  void *memo;              /* a pass's own cache of what it finds in prog
                              (common_subexpression_elimination: the uses) */
  void *sites;             /* graph.c's gx_sites_of: prog's sites per statement */
  const void *dataflow;    /* df_analyse's result for prog, found once */
  const char **fresh_inputs; /* rw_fresh_inputs_rule per nest of prog, found once */
  const char **index_flow;   /* rw_index_bound per tensor id of prog, found once */
  int depth;               /* the manager's: prog's expression depth + 1
                              (0 until asked) */
};

/* A new empty candidate of pc->pass (nest = -1, class = the table's, or E
 * for E†).  pass_emit appends it to pc->cands. */
PassCand *pass_cand_new(PassCtx *pc);
void pass_emit(PassCtx *pc, PassCand *c);

/* printf into the arena, for reasons. */
const char *pass_reason(PassCtx *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Re-analyses q (ir_resema) with its diagnostics captured and the context's
 * error and warning counts kept: the first line of the first error, or NULL
 * if q analyses.  For a check that must try its rewrite on a copy. */
const char *pass_quiet_resema(LeirCtx *ctx, IrProgram *q);

/* ------------------------------------------------------------ the manager */

/* The --verify hook (the driver wires it to interp_check_step): runs
 * `before` and `after` on the same inputs and compares them under class
 * `cls` (E: bit-equal, T: the §0.4 tolerance).  Returns 0 if they agree,
 * 1 if they do not and 2 if the check could not be made; in both failing
 * cases the hook has reported an error naming `step_name`. */
typedef int (*PassVerifyFn)(void *user, LeirCtx *ctx, const IrProgram *before, const IrProgram *after,
                            PassClass cls, const char *step_name);

/* The cost hook of a bare NAME (the driver wires it to the cost model for
 * the output's target): *cost of the program q (analysed), lower is
 * better; false when q cannot be costed.  Diagnostics it reports are
 * dropped. */
typedef bool (*PassCostFn)(void *user, LeirCtx *ctx, const IrProgram *q, double *cost);

/* The bounds of a run of bare names' search (pass_run_pipeline). */
enum { PASS_COMBO_WIDE = 2048, PASS_COMBO_BEAM = 8 };

typedef struct PassRunOptions {
  const char *dump_before; /* pass name, alias or "all"; NULL = none */
  const char *dump_after;
  const char *dump_dir;    /* NULL: dumps go to dump_out */
  const char *dump_base;   /* file name stem for dump_dir files */
  FILE *dump_out;          /* default stderr */
  bool verify_each;        /* ir_verify after every pass (always in
                              LEIR_CHECKING builds) */
  PassVerifyFn verify;     /* --verify; NULL = off */
  void *verify_user;
  bool seeded;             /* --seed given */
  uint64_t seed;
  PassCostFn cost;         /* a bare NAME without --seed: every legal
                              candidate is applied to a copy and costed; the
                              cheapest is taken (ties: the pass's default
                              when it is among them, else the earliest in
                              canonical order; candidates that cannot be
                              costed are passed over; none costed: the
                              default).  NULL: the default (pick_default,
                              else the first) */
  void *cost_user;
  const char *cost_name;   /* the cost model's target, named in the notes
                              of a run of bare names ("host", "cuda");
                              NULL: not named */
  bool quiet_notes;        /* no notes about scope demotion etc. */
  bool nothing_is_error;   /* a bare NAME with no legal candidate is an
                              error, not a warning (libleir) */
} PassRunOptions;

/* Runs the comma-separated pipeline `spec` (top-level commas split steps)
 * on p.  Returns the transformed program, or NULL after an error diagnostic
 * (unknown pass, bad spelling, illegal candidate, verification failure).
 * `*nsteps` (if non-NULL) counts the steps applied so far.
 *
 * A run of two or more consecutive bare NAMEs (no parameters) with o->cost
 * and without o->seeded chooses the combination: every legal candidate of
 * the first name times those of the following ones on each result (where
 * the sequences so far times the next name's candidates would exceed
 * PASS_COMBO_WIDE, a beam of the PASS_COMBO_WIDE / candidates, at least
 * PASS_COMBO_BEAM, whose partial results cost least), each complete
 * sequence costed by o->cost; the cheapest is applied (ties: the
 * earliest in canonical order), unless it costs more than the input
 * itself: then the input is kept.  A note (unless o->quiet_notes) says what was
 * chosen and its cost against the input's.  A name with nothing to do on
 * a sequence's program leaves it unchanged (the usual warning when that
 * sequence is applied). */
IrProgram *pass_run_pipeline(LeirCtx *ctx, IrProgram *p, const char *spec,
                             const PassRunOptions *o, int *nsteps);

/* One step (one spelling or filter, as -O takes it; no top-level comma
 * splitting) on p: the new program, p itself when a bare NAME has nothing
 * to do (a warning; with o->nothing_is_error an error and NULL), or NULL
 * after an error.  *chosen (if non-NULL) receives the candidate applied
 * (NULL when none was). */
IrProgram *pass_run_step(LeirCtx *ctx, IrProgram *p, const char *spelling, const PassRunOptions *o,
                         PassCand **chosen);

/* Parses one spelling.  Returns false after setting *err (arena string). */
bool pass_parse_spelling(LeirCtx *ctx, const char *text, PassCand *out, const char **err);

/* Every legal candidate of `pass` on p, in canonical order, into *out
 * (PassCand*).  Also usable for unimplemented passes (no candidates). */
void pass_enumerate_legal(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, PtrVec *out);

/* For tests: every candidate enumerate() lists, legal or not, into *out;
 * reasons (if non-NULL) gets check's reason for each (NULL when legal). */
void pass_enumerate_all(LeirCtx *ctx, const IrProgram *p, const PassInfo *pass, PtrVec *out, PtrVec *reasons);
/* For tests comparing with the reference's outputs: applies a candidate of
 * pass_enumerate_all WITHOUT requiring its check to pass (the check still
 * runs, to resolve the candidate).  NULL with *reason if the rewrite fails. */
IrProgram *pass_apply_unchecked(LeirCtx *ctx, const IrProgram *p, PassCand *c, const char **reason);

/* Checks c on p and, if legal, applies it to a copy, re-analyses and
 * verifies the copy.  Returns the new program, or NULL with *reason set
 * (the check's reason, or "internal error: ..." text).  Diagnostics of the
 * re-analysis are captured into *reason, not printed. */
IrProgram *pass_apply(LeirCtx *ctx, const IrProgram *p, PassCand *c, const char **reason);

/* Calls fn on every legal candidate of every implemented pass (or of
 * `only` if non-NULL), in the order of --list-applicable, with its spelling
 * (arena string). */
typedef void (*PassCandFn)(void *user, const PassCand *c, const char *spelling);
void pass_for_each_applicable(LeirCtx *ctx, const IrProgram *p, const PassInfo *only, PassCandFn fn, void *user);

/* --list-applicable: every legal candidate of every implemented pass, one
 * spelling a line, or JSON lines {strategy, level, class, spelling, site}. */
void pass_list_applicable(LeirCtx *ctx, const IrProgram *p, FILE *out, bool json);
/* One legal candidate as --list-applicable --json writes it: a new jansson
 * object {strategy, level, class, spelling, site {nest, line, col}}. */
struct json_t;
struct json_t *pass_cand_json(LeirCtx *ctx, const PassCand *c);

/* --list-passes: one line per pass. */
void pass_list_table(FILE *out);

/* Prints `p` as a dump: the declaration header of its arguments, then the
 * canonical program, then a newline. */
void pass_print_program(SBuf *b, const IrProgram *p);

#endif /* LEIR_PASSES_PASS_H */
