/* ir.h -- the leirc intermediate representation: one tree used by every stage
 * after the parser (SPEC §3-§9).
 *
 * Memory policy: every IR object lives in the arena of the LeirCtx that made
 * it and is freed with that context (leir_ctx_free).  Nothing in the IR is
 * freed one by one; passes build new trees in the same arena.
 *
 * Invariants (checked by ir_verify, ir/verify.c):
 *  - every IrRef points to a tensor of the program and its subscript count
 *    equals the tensor's rank;
 *  - every index variable (IrExpr E_INDEX) is bound to an enclosing loop;
 *  - index names are unique along every loop chain (a nest and its nested
 *    nests);
 *  - loop extents are >= 1; a B loop's index matches [tb][xyz]...;
 *  - tensor shapes are known (declared or inferred) and every dimension >= 1;
 *  - resource limits (issue 11): a tensor has at most IR_MAX_NUMEL elements;
 *    the product of the extents along a loop chain fits in int64; expression
 *    trees (a reference's subscripts included) are at most IR_MAX_DEPTH
 *    nodes deep and nests nest at most IR_MAX_DEPTH levels (a continuation
 *    nest counts at its first part's level).  The parser and ir_sema
 *    enforce these, so recursive walkers of the IR need no guard.
 */
#ifndef LEIR_IR_H
#define LEIR_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- arena */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;
  size_t total; /* bytes handed out so far */
} Arena;

void *arena_alloc(Arena *a, size_t size);            /* zeroed, 16-aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void arena_free_all(Arena *a);

/* A growable array of pointers allocated in an arena (old storage is simply
 * abandoned to the arena when it grows). */
typedef struct PtrVec {
  void **v;
  int n, cap;
} PtrVec;
void ptrvec_push(Arena *a, PtrVec *pv, void *p);

/* ----------------------------------------------------- source locations */

typedef struct IrLoc {
  int line; /* 1-based; 0 = no location */
  int col;  /* 1-based byte column */
} IrLoc;

/* ------------------------------------------------------- compiler context */

typedef struct LeirSource {
  const char *name; /* file name used in diagnostics */
  const char *text; /* whole file, NUL-terminated */
  size_t len;
} LeirSource;

/* Diagnostics kept in memory instead of printed (libleir, api/): each one
 * as leirc would print it (`rendered`) and in parts.  Strings are malloc'd;
 * diag_list_clear frees them. */
typedef enum LeirDiagSeverity { LEIR_DIAG_NOTE, LEIR_DIAG_WARNING, LEIR_DIAG_ERROR } LeirDiagSeverity;
typedef struct LeirDiagRec {
  LeirDiagSeverity severity;
  IrLoc loc;           /* {0,0}: none */
  char *file;          /* the source's name */
  char *message;       /* without `file:line:col: error: ` */
  char *rendered;      /* the whole text, caret lines included, '\n'-ended */
} LeirDiagRec;
typedef struct LeirDiagList {
  LeirDiagRec *v;
  size_t n, cap;
  bool oom;            /* a diagnostic was lost for want of memory */
} LeirDiagList;
void diag_list_clear(LeirDiagList *l);

typedef struct LeirCtx {
  Arena arena;
  LeirSource src;
  FILE *diag_out;   /* where diagnostics go (stderr by default); NULL: into
                       `capture` (dropped when that is NULL too) */
  LeirDiagList *capture;
  int nerrors;
  int nwarnings;
  int max_errors;   /* stop reporting after this many (0 = 50) */
  bool no_warnings; /* -w */
  bool werror;      /* -Werror */
  bool quiet_caret; /* no source line/caret under diagnostics */
  bool unsafe_math; /* --unsafe-math: passes may assume values nonzero/finite */
  bool fp_contract; /* --fp-contract=on: a*b+c is one fma (ir/contract.h) */
  uint64_t max_memory; /* --max-memory: bytes of one program's tensors (ir/memlimit.h); 0 = no limit */
  void *jit_cache;      /* the host JIT's cache of compiled nests of the
                           verification runs (driver/verify.c), or NULL */
  void (*jit_cache_free)(void *); /* frees it at leir_ctx_free */
} LeirCtx;

void leir_ctx_init(LeirCtx *ctx);
void leir_ctx_free(LeirCtx *ctx);
/* Makes `text` (copied into the arena) the current source for diagnostics. */
void leir_ctx_set_source(LeirCtx *ctx, const char *name, const char *text,
                         size_t len);

/* Diagnostics: `file:line:col: error: msg`, then the source line and a caret.
 * A location with line 0 prints `file: error: msg`. */
void diag_error(LeirCtx *ctx, IrLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warn(LeirCtx *ctx, IrLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_note(LeirCtx *ctx, IrLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_verror(LeirCtx *ctx, IrLoc loc, const char *fmt, va_list ap);
/* Passes on diagnostics kept in `from` (a scratch context's capture) as if
 * reported in `to`: printed to to->diag_out, or kept in to->capture. */
void diag_replay(LeirCtx *to, const LeirDiagList *from);

/* ------------------------------------------------------------ types */

typedef enum IrDType {
  DT_F16, DT_BF16, DT_F32, DT_F64,
  DT_I8, DT_I16, DT_I32, DT_I64,
  DT_U8, DT_U16, DT_U32, DT_U64,
  DT_BOOL,
  DT__COUNT,
  DT_NONE = -1
} IrDType;

const char *ir_dtype_name(IrDType t);         /* "f32" */
IrDType ir_dtype_from_name(const char *s);    /* DT_NONE if unknown */
/* Accepts LEIR codes and PyTorch spellings ("torch.float32", "float32"). */
IrDType ir_dtype_from_any(const char *s);
int ir_dtype_size(IrDType t);                 /* bytes per element */
bool ir_dtype_is_float(IrDType t);
bool ir_dtype_is_half(IrDType t); /* f16 or bf16 */
/* Is v finite once converted to the floating-point dtype t (round to
 * nearest, as a literal in a statement of type t is, SPEC §5.4)?  True for
 * any finite v when t is not a floating-point dtype. */
bool ir_dtype_value_finite(IrDType t, double v);
/* The value a literal v has in a statement of dtype t (SPEC §5.4): rounded
 * to nearest for a floating-point t (through f32 for f16/bf16, as the
 * interpreter and code generators convert it); an integral v as it is, a
 * non-integral one NaN for an integer t (compare two with ==: NaN never
 * equals). */
double ir_dtype_literal_value(IrDType t, double v);
bool ir_dtype_is_signed_int(IrDType t);
bool ir_dtype_is_unsigned_int(IrDType t);
/* C's integer promotion (bool, 8- and 16-bit integers -> i32) and usual
 * arithmetic conversions over the LEIR dtypes (SPEC §5.4): the one
 * definition that sema, the interpreter and the code generators share. */
IrDType ir_dtype_promote(IrDType t);
IrDType ir_dtype_usual(IrDType a, IrDType b);
/* Does converting a value of dtype `from` to dtype `to` keep order (x <= y
 * gives conv(x) <= conv(y))?  Rounding to a float type and the saturating
 * float -> integer conversion do (SPEC §9.4, interp/ops.h); an integer
 * conversion does when `to` holds every value of `from` (otherwise it
 * wraps: -4 in i64 becomes 4294967292 in u32); to bool (nonzero -> 1) only
 * from bool and unsigned types. */
bool ir_dtype_convert_monotone(IrDType from, IrDType to);
/* Dtype codes that appear in the reference's table but leirc does not support. */
bool ir_dtype_is_known_unsupported(const char *s);

typedef enum IrScope { SC_G, SC_S, SC_L, SC__COUNT, SC_NONE = -1 } IrScope;
const char *ir_scope_name(IrScope s); /* "g" */
IrScope ir_scope_from_name(const char *s);

typedef enum IrRole { ROLE_IN, ROLE_PARAM, ROLE_OUT, ROLE_TMP } IrRole;
const char *ir_role_name(IrRole r); /* "in" "param" "out" "tmp" */

/* ------------------------------------------------------------ tensors */

typedef struct IrTensor {
  const char *name;
  IrDType dtype;   /* the declaration's (header/sidecar) or the first write's */
  IrScope scope;   /* SC_G for arguments; the first write's tag otherwise */
  int rank;        /* -1 until known */
  int64_t *shape;  /* rank entries */
  IrRole role;
  bool declared;   /* from the header or the sidecar (%tmp included) */
  bool shape_known;
  int id;          /* index in IrProgram.tensors */
  IrLoc loc;       /* first occurrence (or declaration) */
  IrLoc decl_loc;  /* the header line, if any */
} IrTensor;

/* Product of the shape (1 for scalars); INT64_MAX if it overflows. */
int64_t ir_tensor_numel(const IrTensor *t);

/* Do a and b have the same dtype and shape (what a buffer of one holds
 * fits the other, element for element)? */
bool ir_tensor_same_type(const IrTensor *a, const IrTensor *b);

/* Resource limits (see the invariants above).  IR_MAX_NUMEL is 2^40
 * elements (8 TiB of f64): byte offsets of any tensor fit in int64 with
 * room to spare. */
#define IR_MAX_DEPTH 1000
#define IR_MAX_NUMEL ((int64_t)1 << 40)

/* ------------------------------------------------------------ loops */

typedef enum IrLoopKind { LOOP_L, LOOP_P, LOOP_V, LOOP_U, LOOP_B } IrLoopKind;
char ir_loop_kind_char(IrLoopKind k);

typedef enum IrHwAxis {
  HW_NONE, HW_TX, HW_TY, HW_TZ, HW_BX, HW_BY, HW_BZ
} IrHwAxis;
const char *ir_hw_axis_name(IrHwAxis a); /* "threadIdx.x" ... */
/* From a B loop's index name: [tb][xyz]... ; HW_NONE if it does not match. */
IrHwAxis ir_hw_axis_of_index(const char *index);

typedef struct IrLoop {
  IrLoopKind kind;
  int64_t extent;
  const char *extent_text; /* INT text as written (printed back); NULL = decimal */
  const char *start_text;  /* "0" as written */
  const char *index;
  IrHwAxis hw;             /* for LOOP_B */
  IrLoc loc;               /* the loop kind letter */
  IrLoc index_loc;
} IrLoop;

/* ------------------------------------------------------------ expressions */

typedef enum IrExprKind {
  E_INT,    /* integer literal */
  E_FLOAT,  /* floating literal */
  E_INF,    /* `inf` */
  E_INDEX,  /* index variable used as a value (or in a subscript) */
  E_REF,    /* tensor reference */
  E_UNARY,  /* - or + */
  E_BINARY, /* + - * / // % ** & | */
  E_CMP,    /* comparison chain a op b op c ... (one node) */
  E_CALL,   /* function call */
  E_PAREN   /* parentheses as written (kept for the printer) */
} IrExprKind;

typedef enum IrOp {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_AND, OP_OR,
  OP_NEG, OP_POS,                                    /* unary */
  OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE           /* comparisons */
} IrOp;
const char *ir_op_text(IrOp op); /* "+", "//", "<=", ... */
/* a OP b for a comparison operator (the interpreter's and the passes'
 * constant folding: NaN compares false but for !=). */
static inline bool ir_cmp_f64(IrOp op, double a, double b) {
  switch (op) {
  case OP_LT: return a < b;
  case OP_LE: return a <= b;
  case OP_GT: return a > b;
  case OP_GE: return a >= b;
  case OP_EQ: return a == b;
  default: return a != b;
  }
}
/* A comparison with its operands swapped: a<b is b>a (== and != stay). */
static inline IrOp ir_cmp_flip(IrOp op) {
  switch (op) {
  case OP_LT: return OP_GT;
  case OP_LE: return OP_GE;
  case OP_GT: return OP_LT;
  case OP_GE: return OP_LE;
  default: return op;
  }
}
/* The negated comparison over integers: !(a<b) is a>=b, !(a==b) is a!=b
 * (anything else gives ==). */
static inline IrOp ir_cmp_negate(IrOp op) {
  switch (op) {
  case OP_LT: return OP_GE;
  case OP_LE: return OP_GT;
  case OP_GT: return OP_LE;
  case OP_GE: return OP_LT;
  case OP_EQ: return OP_NE;
  default: return OP_EQ;
  }
}

typedef enum IrFunc {
  F_EXP, F_LOG, F_SQRT, F_ABS, F_ERF, F_MAX, F_MIN, F_ITE
} IrFunc;
const char *ir_func_name(IrFunc f); /* canonical spelling */

typedef struct IrExpr IrExpr;
typedef struct IrRef IrRef;
typedef struct IrLoopRef IrLoopRef;

struct IrRef {
  const char *name;
  IrTensor *tensor;  /* bound by sema */
  IrDType dt_tag;    /* the superscript as written on this occurrence */
  IrScope sc_tag;
  int nsub;          /* 0 for a scalar */
  IrExpr **sub;
  IrLoc loc;
};

struct IrExpr {
  IrExprKind kind;
  IrLoc loc;
  IrDType type; /* value type, set by sema (the statement type for literals) */
  union {
    struct { int64_t value; const char *text; } ilit;   /* E_INT */
    struct { double value; const char *text; } flit;    /* E_FLOAT */
    struct {                                            /* E_INDEX */
      const char *name;
      IrLoop *loop; /* bound by sema */
    } index;
    IrRef *ref;                                         /* E_REF */
    struct { IrOp op; IrExpr *a; } unary;               /* E_UNARY */
    struct { IrOp op; IrExpr *a, *b; } bin;             /* E_BINARY */
    struct { int n; IrExpr **operand; IrOp *op; } cmp;  /* E_CMP: n operands, n-1 ops */
    struct {                                            /* E_CALL */
      IrFunc func;
      bool alias;   /* spelt `ifthenelse` */
      int nargs;
      IrExpr **args;
    } call;
    IrExpr *paren;                                      /* E_PAREN */
  } u;
};

/* ------------------------------------------------------------ statements */

typedef enum IrInitKind {
  INIT_NONE,     /* no implicit initialisation */
  INIT_REDUCE    /* §9.5: set to the identity when all reduction indices are 0 */
} IrInitKind;

typedef enum IrReduceOp {
  RED_NONE, RED_ADD, RED_SUB, RED_MUL, RED_DIV, RED_MAX, RED_MIN
} IrReduceOp;

typedef struct IrStmt {
  IrRef *lhs;
  IrExpr *rhs;
  IrLoc loc;
  int id;                 /* 0-based text order over the whole program */
  /* Filled by sema (ir/init.c), §9.5: */
  IrInitKind init;
  IrReduceOp redop;       /* the shape that matched */
  double identity;        /* 0, 1, -inf, +inf (integers: dtype min/max) */
  int nred;               /* reduction indices (loops) */
  IrLoop **red;
  bool self_ref;          /* the right side mentions the left tensor */
} IrStmt;

typedef struct IrNest IrNest;

typedef enum IrItemKind { ITEM_STMT, ITEM_NEST } IrItemKind;
typedef struct IrItem {
  IrItemKind kind;
  union { IrStmt *stmt; IrNest *nest; } u;
} IrItem;

struct IrNest {
  int nloops;
  IrLoop **loops;        /* outermost first */
  int nitems;
  IrItem *items;
  bool continuation;     /* written `H1[S;]H2[R;];`: this nest is H2 (SPEC §4) */
  bool nested;           /* not a top-level nest */
  IrLoc loc;             /* first header, or the `[` */
};

/* ------------------------------------------------------------ program */

/* A declaration: a `%` header line, or one entry of a sidecar JSON file. */
typedef struct IrDecl {
  const char *name;
  IrRole role;
  IrDType dtype;
  int rank;
  int64_t *shape;
  IrLoc loc;
} IrDecl;
typedef struct IrDeclList {
  int n;
  IrDecl *d;
} IrDeclList;


typedef struct IrProgram {
  int ntensors;
  IrTensor **tensors;   /* declared tensors in declaration order, then others
                           in order of first appearance */
  int nnests;
  IrNest **nests;       /* top-level nests */
  int nstmts;           /* all statements, text order */
  IrStmt **stmts;
  bool has_header;      /* a `%` header was given */
  bool has_sidecar;     /* --decls was given */
  bool decls_inferred;  /* no declaration at all: roles inferred (§8.2) */
  IrDeclList header;    /* the `%` lines as parsed */
} IrProgram;

/* ------------------------------------------------------------ counts */

/* Saturating arithmetic on counts (iterations, statement executions):
 * a * b and a + b, or UINT64_MAX when that overflows. */
static inline uint64_t ir_mul_sat_u64(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
static inline uint64_t ir_add_sat_u64(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
/* a * b for a >= 0, or INT64_MAX when that overflows; b <= 0: a * b. */
static inline int64_t ir_mul_sat_i64(int64_t a, int64_t b) { return b > 0 && a > INT64_MAX / b ? INT64_MAX : a * b; }

/* Statement executions of one run of nest n inside loops of m iterations
 * in all (m = 1 at the top): every statement runs once per iteration of
 * the loops around it (LEIR has no conditional statements); an extent
 * below 1 counts 0; saturates at UINT64_MAX. */
uint64_t ir_nest_execs(const IrNest *n, uint64_t m);
/* The same for one run of p: the sum over its nests. */
uint64_t ir_program_execs(const IrProgram *p);

/* ------------------------------------------------------------ construction */

IrExpr *ir_expr_new(LeirCtx *ctx, IrExprKind k, IrLoc loc);
IrExpr *ir_int(LeirCtx *ctx, int64_t v);
IrExpr *ir_float(LeirCtx *ctx, double v);   /* printed as Python repr */
IrExpr *ir_index(LeirCtx *ctx, const char *name);
IrExpr *ir_binary(LeirCtx *ctx, IrOp op, IrExpr *a, IrExpr *b);
IrExpr *ir_unary(LeirCtx *ctx, IrOp op, IrExpr *a);
IrExpr *ir_paren(LeirCtx *ctx, IrExpr *e);
IrExpr *ir_call(LeirCtx *ctx, IrFunc f, int nargs, IrExpr **args);
IrExpr *ir_refexpr(LeirCtx *ctx, IrRef *r);
IrRef *ir_ref_new(LeirCtx *ctx, const char *name, IrDType dt, IrScope sc,
                  int nsub, IrExpr **sub);
IrLoop *ir_loop_new(LeirCtx *ctx, IrLoopKind k, int64_t extent, const char *index);
IrStmt *ir_stmt_new(LeirCtx *ctx, IrRef *lhs, IrExpr *rhs);
IrNest *ir_nest_new(LeirCtx *ctx, int nloops, IrLoop **loops);
void ir_nest_add_item(LeirCtx *ctx, IrNest *n, IrItemKind k, void *p);

/* Deep copies (into ctx's arena).  Tensor pointers of refs are kept; loop
 * bindings are dropped (sema rebinds). */
IrExpr *ir_expr_clone(LeirCtx *ctx, const IrExpr *e);
IrRef *ir_ref_clone(LeirCtx *ctx, const IrRef *r);
IrNest *ir_nest_clone(LeirCtx *ctx, const IrNest *n);
IrProgram *ir_program_clone(LeirCtx *ctx, const IrProgram *p);

/* Do two references have the same subscript text (SPEC §9.5's test)? */
bool ir_ref_same_subscript(const IrRef *a, const IrRef *b);

/* Lookup */
IrTensor *ir_find_tensor(const IrProgram *p, const char *name);

/* ------------------------------------------------------------ printing */

/* A growable string buffer (heap-allocated; free with sbuf_free). */
typedef struct SBuf {
  char *s;
  size_t len, cap;
} SBuf;
void sbuf_putc(SBuf *b, char c);
void sbuf_puts(SBuf *b, const char *s);
void sbuf_printf(SBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_free(SBuf *b);

/* Canonical text (SPEC §2.1, §10): no whitespace. */
void ir_print_expr(SBuf *b, const IrExpr *e);
void ir_print_ref(SBuf *b, const IrRef *r);
void ir_print_stmt(SBuf *b, const IrStmt *s);
void ir_print_nest(SBuf *b, const IrNest *n);
void ir_print_body(SBuf *b, const IrProgram *p);       /* all nests, no newline */
void ir_print_decls(SBuf *b, const IrProgram *p, bool all); /* header lines */
/* `leirc --emit=leir`: the header as given (if any), or with print_decls
 * every argument's declaration (--print-decls), then the program and a
 * newline. */
void ir_print_program(SBuf *b, const IrProgram *p, bool print_decls);
/* Python-repr spelling of a double ("0.5", "2.0", "1e-05"). */
void ir_format_double(char *buf, size_t n, double v);

/* ------------------------------------------------------------ front end */

/* Parses `ctx->src`.  Returns NULL (after diagnostics) on syntax errors. */
IrProgram *ps_parse(LeirCtx *ctx);

/* Declarations from a sidecar JSON file (the reference's keys, SPEC §8.2). */
bool ir_decls_load_json(LeirCtx *ctx, const char *path, IrDeclList *out);
/* The same from a parsed JSON object (a jansson json_t *); `path` names it
 * in diagnostics. */
struct json_t;
bool ir_decls_from_json(LeirCtx *ctx, const char *path, const struct json_t *root, IrDeclList *out);
/* The same from JSON text; `name` names it in diagnostics. */
bool ir_decls_parse_json(LeirCtx *ctx, const char *name, const char *text, IrDeclList *out);

/* Reads `path` ("-" = stdin, named "<stdin>") into the context as the
 * current source (ir/load.c).  False after a diagnostic. */
bool ir_read_source(LeirCtx *ctx, const char *path);
/* Parses and analyses the current source (ps_parse, ir_sema, ir_verify):
 * declarations from the text's header, overridden by a sidecar (SPEC §8.2)
 * given as JSON text `decls_json` (named "<decls>" in diagnostics) or else
 * read from the file `decls_path` (`leirc --decls`); both may be NULL.
 * NULL after diagnostics. */
IrProgram *ir_load_program(LeirCtx *ctx, const char *decls_path, const char *decls_json);

/* Semantic analysis (ir/sema.c): binds names, applies declarations (header,
 * then the sidecar `side` if non-NULL, which overrides), infers roles,
 * dtypes and shapes (§8-§9.3), classifies initialisation (§9.5) and runs
 * the static checks of §10.  Returns false if any error was reported.
 * Safe to call again after a pass rewrote the tree. */
bool ir_sema(LeirCtx *ctx, IrProgram *p, const IrDeclList *side);

/* Re-analysis after a pass: like ir_sema but keeps the current roles and
 * declared shapes of declared tensors. */
bool ir_resema(LeirCtx *ctx, IrProgram *p);

/* Whether the analysis (ir/shape.c) finds that index arithmetic e, evaluated
 * for every value of the loops it mentions (no if_then_else guard narrowing
 * them), overflows int64.  e reads no tensor (the range of a read is not
 * known here) and is bound by ir_sema.  For a pass that moves an index
 * expression out of a guard: the re-analysis would reject the result. */
bool ir_index_overflows_unguarded(LeirCtx *ctx, const IrExpr *e);

/* The IR verifier (ir/verify.c).  Returns NULL if every invariant holds, else
 * a description of the first violation (allocated in the arena). */
const char *ir_verify(LeirCtx *ctx, const IrProgram *p);

/* Iteration helpers */
typedef void (*IrStmtFn)(IrStmt *s, IrNest *nest, void *user);
void ir_for_each_stmt(IrProgram *p, IrStmtFn fn, void *user);
/* Calls fn(e) on e and every sub-expression (pre-order), refs' subscripts too. */
typedef void (*IrExprFn)(IrExpr *e, void *user);
void ir_walk_expr(IrExpr *e, IrExprFn fn, void *user);
/* e with its enclosing parentheses taken off (NULL stays NULL). */
static inline const IrExpr *ir_expr_unparen(const IrExpr *e) {
  while (e && e->kind == E_PAREN) e = e->u.paren;
  return e;
}
/* The same for an expression the caller may change. */
static inline IrExpr *ir_expr_unparen_mut(IrExpr *e) {
  return (IrExpr *)ir_expr_unparen(e);
}
/* The depth of the program's deepest expression tree, as ir_verify counts
 * it (a reference's subscripts one level below it; the left side's items
 * at level 1), or cap if that is reached first. */
int ir_program_expr_depth(const IrProgram *p, int cap);

#endif /* LEIR_IR_H */
