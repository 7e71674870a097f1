/* cot.c -- the CoT text of a step (`leirc --emit-steps --format=steptp|chat`,
 * man leirc, STEP RECORDS): one template per strategy, in the order of
 * passes/table.c, filled from the pass's own analysis.
 *
 * Every template says, in its strategy's terms, what the check
 * established (the pass's `why`, set by its check from the facts it
 * proved), what the step changes (the loops, tensors, expressions and
 * parameters of the candidate) and the IR-to-IR transition (the nests of
 * the program before that differ from the program after, quoted both
 * ways).  The text starts "Strategy NAME: ", then the template filled in.
 * Placeholders:
 *
 *   {nest}        the candidate's top-level nest (c->nest)
 *   {site}        " at line L, column C" of the site its check named, or ""
 *   {why}         the facts its check established (c->why)
 *   {spelling}    the full spelling NAME(k=v,...)
 *   {P:key}       the value of parameter `key`
 *   {next}        {nest}+1
 *   {S:key}       the tensor that parameter `key` names, quoted, with its
 *                 type and shape before and after where known: "'D'
 *                 (f32[4,8] before, f32[8,4] after)"
 *   {kv:k1,k2}    "k1=v1, k2=v2" for those of the keys the candidate has
 *   {E:key}       the extent in the program before of the loop that
 *                 parameter `key` names (in nest {nest}), "?" if none
 *   {counts}      nests, loops and statements before and after
 *   {tensors}     the tensors the step adds and removes, with their type
 *                 and shape where known
 *   {transition}  the differing nests: "nests i..j `BEFORE` become nests
 *                 i..k `AFTER`"
 *   {cls}         the exactness class, said in full
 *
 * The text depends only on p, q and c: deterministic.
 */
#include "config.h"
#include "passes/cot.h"

#include <stdlib.h>
#include <string.h>

typedef struct CotRow {
  const char *name;
  const char *tmpl;
} CotRow;

/* What the check established ({why}), what changes, the transition. */
#define TAIL " {counts}; {tensors}. Transition: {transition}. {cls}"

static const CotRow cot_rows[] = {
  /* graph (§1) */
  {"operator_fusion",
   "Operator fusion of nests {nest} and {next}{site}. The check established that the two nests can share one "
   "body: {why}. The change puts the statements of the second nest into the body of the first, under the loops "
   "they both have, so both statements run in one pass over those loops, in their original order." TAIL},
  {"operator_fission",
   "Operator fission of nest {nest}{site}. The check established that its statements can run one after the "
   "other in separate nests: {why}. The change gives each statement of the body its own copy of the loops, in "
   "the original statement order." TAIL},
  {"compute_inline",
   "Compute inlining of the producer nest {nest} into the next nest{site}. The check established that the "
   "producer's expression can replace every read of its result: {why}. The change substitutes that expression, "
   "with its indices renamed to the consumer's subscripts, for each read, and drops the producer nest." TAIL},
  {"expression_splitting",
   "Expression splitting of sub-expression {P:pattern} of nest {nest}{site}. The check established that the "
   "sub-expression can be hoisted: {why}. The change computes it into a new intermediate in its own nest with "
   "the same loops, placed before the nest, and reads that intermediate where the sub-expression was." TAIL},
  {"tensor_concat_to_fuse_operators",
   "Tensor concatenation of nests {nest} and {next}{site}. The check established that the two nests are the "
   "same computation on different inputs: {why}. The change copies the two inputs into one tensor concatenated "
   "along the item they differ in, computes the expression once over it in a nest of twice the extent and copies "
   "the two halves of the result back into the original outputs." TAIL},
  {"tensor_split_to_decouple_operators",
   "Tensor splitting of nest {nest} along loop '{P:axis}' (extent {E:axis}), split after {P:split} iterations{site}. The check "
   "established that '{P:axis}' may be cut: {why}. The change copies the two halves of the inputs (the first "
   "{P:split} iterations and the rest) into separate tensors, computes each half in its own nests and writes "
   "both halves back into the original result." TAIL},
  {"common_subexpression_elimination",
   "Common sub-expression elimination of sub-expression {P:pattern} of statement {P:stmt} in nest {nest}{site}. "
   "The check established that it is computed more than once with the same value: {why}. The change computes it "
   "once into a new intermediate and reads that intermediate at every occurrence." TAIL},
  {"dead_code_elimination",
   "Dead code elimination of nest {nest}{site}. The check established that its result is never used: {why}. "
   "The change deletes the nest and the intermediates only it wrote." TAIL},
  {"expression_reorder",
   "Expression reordering of nests {nest} and {next}{site}. The check established that the two nests are "
   "independent: {why}. The change swaps them, so nest {nest} now runs after the nest that followed it." TAIL},
  /* operator (§2) */
  {"loop_reorder",
   "Loop reordering in nest {nest}: loops '{P:loop1}' (extent {E:loop1}) and '{P:loop2}' (extent {E:loop2}) "
   "swap places{site}. The check established that the exchange keeps every dependence: {why}. The change "
   "exchanges the two loop headers and leaves the body as it is." TAIL},
  {"loop_tiling",
   "Loop tiling in nest {nest} of loop '{P:loop}' (extent {E:loop}) and the loop inside it, with outer extents "
   "{P:factor1} and {P:factor2}{site}. The check established that both loops can be tiled: {why}. The change "
   "splits each of the two loops into an outer tile loop and an inner loop, puts both tile loops outside both "
   "inner loops and rewrites each use of an old index as outer*inner-extent+inner." TAIL},
  {"loop_split",
   "Loop splitting in nest {nest} of loop '{P:loop}' (extent {E:loop}) with an outer extent of {P:factor}{site}. "
   "The check established that the split keeps every element's computation: {why}. The change replaces "
   "'{P:loop}' by an outer loop of extent {P:factor} around an inner loop covering the remaining iterations, and "
   "rewrites each use of '{P:loop}' as outer*inner-extent+inner." TAIL},
  {"loop_fusion",
   "Loop fusion in nest {nest} of loop '{P:loop}' (extent {E:loop}) with the loop inside it{site}. The check "
   "established that the pair iterates like one loop: {why}. The change merges the two loops into one loop over "
   "the product of their extents and replaces every term outer*inner-extent+inner by the new loop's index." TAIL},
  {"loop_unrolling",
   "Loop unrolling in nest {nest} of loop '{P:loop}' (extent {E:loop}){site}. The check established that the "
   "loop is short and sequential enough to unroll: {why}. The change marks '{P:loop}' as an unrolled (U) loop; "
   "the body and the order of the iterations are unchanged." TAIL},
  {"loop_parallelization",
   "Loop parallelisation in nest {nest} of loop '{P:loop}' (extent {E:loop}){site}. The check established that "
   "its iterations are independent: {why}. The change marks '{P:loop}' as a parallel (P) loop; the body is "
   "unchanged." TAIL},
  {"loop_vectorization",
   "Loop vectorisation in nest {nest} of loop '{P:loop}' (extent {E:loop}){site}. The check established that "
   "its iterations are independent and few: {why}. The change marks '{P:loop}' as a vectorised (V) loop; the "
   "body is unchanged." TAIL},
  {"loop_binding",
   "Loop binding in nest {nest} of loop '{P:loop}' (extent {E:loop}) to the GPU axis {P:axis}{site}. The check "
   "established that the loop can become a hardware axis: {why}. The change turns '{P:loop}' into a B loop on "
   "{P:axis}, renaming its index after the axis." TAIL},
  {"reduction_factorization",
   "Reduction factorisation in nest {nest} of the reduction loop '{P:loop}' (extent {E:loop}), split after {P:split} iterations{site}. "
   "The check established that the sum may be split in two parts: {why}. The change accumulates the first "
   "{P:split} iterations and the rest into two partial results and adds them, which reassociates the sum." TAIL},
  /* memory (§3) */
  {"cache_read_write",
   "Cache staging ({P:dir}) of tensor '{P:tensor}' in nest {nest} through scope {P:scope}{site}. The check "
   "established that the access can be staged: {why}. The change adds a copy of '{P:tensor}' in scope {P:scope}, "
   "makes nest {nest} {P:dir} that copy and moves the data between the copy and '{P:tensor}' in a copy nest." TAIL},
  {"layout_transformation",
   "Layout transformation ({P:kind}) of input '{P:tensor}' read in nest {nest}{site}. The check established "
   "that the new layout is a bijection on its elements: {why}. The change copies '{P:tensor}' once into a new "
   "tensor in the new layout ({kv:perm,fuse,item,factor}) and "
   "makes nest {nest} read the copy through the remapped subscript." TAIL},
  {"set_storage_scope",
   "Storage scope change of intermediate '{P:tensor}' to scope {P:scope}{site}. The check established that the "
   "tensor may live in that memory: {why}. The change rewrites the scope of every reference to '{P:tensor}'; "
   "loops and expressions are unchanged." TAIL},
  {"set_storage_layout",
   "Storage layout change ({P:kind}) of intermediate '{P:tensor}'{site}. The check established that the new "
   "layout is a bijection on its elements: {why}. The change stores {S:tensor} in the new layout "
   "({kv:perm,fuse,item,factor}) by remapping the subscript of every read and "
   "write of it, with no copy." TAIL},
  {"precompute_indices",
   "Index precomputation of the subscript item {P:item} in nest {nest}{site}. The check established that the "
   "item is a compound index expression worth storing: {why}. The change fills an integer index tensor with "
   "the values of {P:item} and reads it in place of the expression." TAIL},
  /* math (§4) */
  {"factorization",
   "Factorisation (rule {P:rule}) of statement {P:stmt} in nest {nest}{site}. The check established the "
   "algebra: {why}. The change pulls the common factors out of the sum (or merges repeated factors) in that "
   "right side." TAIL},
  {"expand_factorization",
   "Expansion of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. The change "
   "distributes products over sums and expands integer powers in that right side." TAIL},
  {"cancellation",
   "Cancellation of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. The "
   "change rewrites that right side as one fraction in normal form with the common factors of numerator and "
   "denominator removed." TAIL},
  {"expand_cancellation",
   "Expanded cancellation of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. "
   "The change rewrites that right side as a sum of simpler fractions." TAIL},
  {"apart",
   "Partial fractions in '{P:v}' of statement {P:stmt} in nest {nest}{site}. The check established the algebra: "
   "{why}. The change splits the single fraction into a sum of fractions in '{P:v}'." TAIL},
  {"together",
   "Combining fractions of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. "
   "The change brings the sum of fractions over one common denominator." TAIL},
  {"powsimp",
   "Power simplification of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. "
   "The change combines products of powers and exponentials with the same base into one." TAIL},
  {"expand_powsimp",
   "Power expansion of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. The "
   "change splits combined powers and exponentials into products." TAIL},
  {"expand_log",
   "Logarithm expansion of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. "
   "The change splits logarithms of products and powers into sums of logarithms." TAIL},
  {"logsimp",
   "Logarithm combination of statement {P:stmt} in nest {nest}{site}. The check established the algebra: {why}. "
   "The change combines the sum of logarithms into the logarithm of a product." TAIL},
  {"collect",
   "Collecting the terms in '{P:v}' of statement {P:stmt} in nest {nest}{site}. The check established the "
   "algebra: {why}. The change groups the terms of the sum that contain '{P:v}' into one product." TAIL},
  {"expand_collect",
   "Expanding the terms grouped by '{P:v}' in statement {P:stmt} of nest {nest}{site}. The check established the "
   "algebra: {why}. The change multiplies the grouped products by '{P:v}' back out into separate terms." TAIL},
  {"partially_equivalent_then_correct",
   "Partially equivalent computation then correction of the convolutions from nest {nest}, concatenated along "
   "axis {P:axis}{site}. The check established the pattern: {why}. The change runs one convolution over the "
   "concatenated inputs and then recomputes the elements at the seam, where it differs from the separate "
   "convolutions." TAIL},
  {"normal_loop_max_to_prefix_max",
   "Max reduction to prefix max of nest {nest}{site}. The check established the pattern: {why}. The change "
   "replaces the max reduction by a running (prefix) maximum whose last element is the result." TAIL},
  {"exponential_split",
   "Exponential splitting of exp number {P:call} in statement {P:stmt} of nest {nest} by y={P:y} in form "
   "{P:form}{site}. The check established that y is available and safe: {why}. The change rewrites exp(x) as "
   "exp(x-y) combined with exp(y) in the {P:form} form." TAIL},
  {"multiplicative_split",
   "Multiplicative splitting of '{P:tensor}' in statement {P:stmt} of nest {nest} by y={P:y}{site}. The check "
   "established that the division by y is safe: {why}. The change replaces '{P:tensor}' by '{P:tensor}'/y*y." TAIL},
  {"additive_split",
   "Additive splitting of '{P:tensor}' in statement {P:stmt} of nest {nest} by y={P:y}{site}. The check "
   "established that y is available: {why}. The change replaces '{P:tensor}' by '{P:tensor}'+y-y." TAIL},
  {"normal_loop_summation_on_exp_to_prefix_summation_on_exp",
   "Exp-sum to prefix exp-sum of the max reduction in nest {nest} and the exp-sum after it{site}. The check "
   "established the pattern: {why}. The change keeps a running maximum and a running exp-sum rescaled by "
   "exp(old max - new max) at each step." TAIL},
  {"online_softmax",
   "Online softmax of the softmax chain from nest {nest}{site}. The check established the pattern: {why}. The "
   "change fuses the running maximum and the running rescaled sum into one pass that feeds the normalisation."
   TAIL},
  {"flashattention_wo_tiling",
   "Flash attention without tiling of the attention chain from nest {nest}{site}. The check established the "
   "pattern: {why}. The change fuses the online softmax with the following product by V in one nest, keeping "
   "a running output that each step rescales by the change of the running maximum and sum; its last element is "
   "the result." TAIL},
  /* leirc's own (not in STRATEGIES.md) */
  {"scan_rewrite",
   "Scan rewrite (a strategy of leirc's own, not one of the 43) of the masked prefix reduction in nest "
   "{nest}{site}. The check established the pattern: {why}. The change drops the masked reduction loop and "
   "computes each element from the one before it and one new term, a running scan whose guard supplies the "
   "identity at the first element; the scan loop stays serial." TAIL},
  {"reduction_rfactor",
   "Strided reduction split (a strategy of leirc's own, not one of the 43) in nest {nest} of the reduction loop "
   "'{P:loop}' (extent {E:loop}) into {P:lanes} lanes{site}. The check established that the reduction may be split: "
   "{why}. The change accumulates the terms k = g*{P:lanes}+v of each lane v into its own partial result, the lane "
   "loop innermost so that the lanes are independent vector chains, then adds the {P:lanes} partial results in lane "
   "order in a new nest, which reassociates the reduction." TAIL},
};

const char *cot_template(const char *name) {
  for (size_t i = 0; i < sizeof cot_rows / sizeof cot_rows[0]; i++)
    if (!strcmp(cot_rows[i].name, name)) return cot_rows[i].tmpl;
  return NULL;
}

/* ------------------------------------------------------------ the facts */

static void count_loops(const IrNest *n, int *nl) {
  *nl += n->nloops;
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) count_loops(n->items[i].u.nest, nl);
}

static int loops_of(const IrProgram *p) {
  int n = 0;
  for (int i = 0; i < p->nnests; i++) count_loops(p->nests[i], &n);
  return n;
}

static const IrLoop *find_loop(const IrNest *n, const char *index) {
  for (int i = 0; i < n->nloops; i++)
    if (!strcmp(n->loops[i]->index, index)) return n->loops[i];
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) {
      const IrLoop *l = find_loop(n->items[i].u.nest, index);
      if (l) return l;
    }
  return NULL;
}

static char *nest_text(const IrNest *n) {
  SBuf b = {0};
  ir_print_nest(&b, n);
  return b.s ? b.s : calloc(1, 1);
}

/* "nest i", "nests i..j" or "no nest" */
static void region(SBuf *b, int from, int to) {
  if (to <= from) sbuf_puts(b, "no nest");
  else if (to == from + 1) sbuf_printf(b, "nest %d", from);
  else sbuf_printf(b, "nests %d..%d", from, to - 1);
}

static void quote_nests(SBuf *b, const IrProgram *p, int from, int to) {
  if (to <= from) return;
  sbuf_puts(b, " `");
  for (int i = from; i < to; i++) {
    char *t = nest_text(p->nests[i]);
    sbuf_puts(b, t);
    free(t);
  }
  sbuf_puts(b, "`");
}

/* The nests that differ: p's [i, p->nnests-j) against q's [i, q->nnests-j). */
static void transition(SBuf *b, const IrProgram *p, const IrProgram *q) {
  int np = p->nnests, nq = q->nnests, i = 0, j = 0;
  char **tp = calloc((size_t)np + 1, sizeof *tp), **tq = calloc((size_t)nq + 1, sizeof *tq);
  for (int k = 0; k < np; k++) tp[k] = nest_text(p->nests[k]);
  for (int k = 0; k < nq; k++) tq[k] = nest_text(q->nests[k]);
  while (i < np && i < nq && !strcmp(tp[i], tq[i])) i++;
  while (j < np - i && j < nq - i && !strcmp(tp[np - 1 - j], tq[nq - 1 - j])) j++;
  if (i == np && i == nq) {
    sbuf_puts(b, "every nest reads the same as text (only declarations differ)");
  } else {
    region(b, i, np - j);
    quote_nests(b, p, i, np - j);
    sbuf_puts(b, np - j - i == 1 ? " becomes " : " become ");
    region(b, i, nq - j);
    quote_nests(b, q, i, nq - j);
  }
  for (int k = 0; k < np; k++) free(tp[k]);
  for (int k = 0; k < nq; k++) free(tq[k]);
  free(tp);
  free(tq);
}

/* "f32[4,8]"; false (nothing written) when t's shape is not known */
static bool type_text(SBuf *b, const IrTensor *t) {
  if (!t->shape_known || t->rank < 0) return false;
  sbuf_printf(b, "%s[", ir_dtype_name(t->dtype));
  for (int i = 0; i < t->rank; i++) sbuf_printf(b, "%s%lld", i ? "," : "", (long long)t->shape[i]);
  sbuf_puts(b, "]");
  return true;
}

/* " (f32[4,8])" when t's shape is known */
static void shape(SBuf *b, const IrTensor *t) {
  SBuf u = {0};
  if (type_text(&u, t)) sbuf_printf(b, " (%s)", u.s);
  sbuf_free(&u);
}

static void name_list(SBuf *b, const IrProgram *in, const IrProgram *notin, const char *verb) {
  int n = 0;
  for (int k = 0; k < in->ntensors; k++) n += !ir_find_tensor(notin, in->tensors[k]->name);
  if (!n) return;
  sbuf_printf(b, "%s tensor%s", verb, n == 1 ? "" : "s");
  int m = 0;
  for (int k = 0; k < in->ntensors; k++)
    if (!ir_find_tensor(notin, in->tensors[k]->name))
    {
      sbuf_printf(b, "%s'%s'", m++ == 0 ? " " : m == n ? " and " : ", ", in->tensors[k]->name);
      shape(b, in->tensors[k]);
    }
}

static void tensors(SBuf *b, const IrProgram *p, const IrProgram *q) {
  SBuf a = {0}, r = {0};
  name_list(&a, q, p, "it adds");
  name_list(&r, p, q, a.s ? "removes" : "it removes");
  if (!a.s && !r.s) sbuf_puts(b, "it adds and removes no tensor");
  else if (a.s && r.s) sbuf_printf(b, "%s and %s", a.s, r.s);
  else sbuf_puts(b, a.s ? a.s : r.s);
  sbuf_free(&a);
  sbuf_free(&r);
}

static void counts(SBuf *b, const IrProgram *p, const IrProgram *q) {
  int lp = loops_of(p), lq = loops_of(q);
  sbuf_printf(b, "The program goes from %d nest%s, %d loop%s and %d statement%s to %d, %d and %d", p->nnests,
              p->nnests == 1 ? "" : "s", lp, lp == 1 ? "" : "s", p->nstmts, p->nstmts == 1 ? "" : "s", q->nnests, lq,
              q->nstmts);
}

/* ------------------------------------------------------------ filling */

/* "k=v, k=v" for the keys of the comma-separated `keys` that c has. */
static void kv(SBuf *b, const PassCand *c, const char *keys) {
  int m = 0;
  while (*keys) {
    const char *e = strchr(keys, ',');
    size_t n = e ? (size_t)(e - keys) : strlen(keys);
    for (int i = 0; i < c->nparams; i++)
      if (strlen(c->params[i].key) == n && !strncmp(c->params[i].key, keys, n))
        sbuf_printf(b, "%s%s=%s", m++ ? ", " : "", c->params[i].key, c->params[i].val);
    keys += n + (e ? 1 : 0);
  }
  if (!m) sbuf_puts(b, "no further parameter");
}

static void fill(SBuf *b, const char *t, const IrProgram *p, const IrProgram *q, const PassCand *c, LeirCtx *ctx) {
  while (*t) {
    const char *e = *t == '{' ? strchr(t, '}') : NULL;
    if (!e) {
      sbuf_putc(b, *t++);
      continue;
    }
    size_t n = (size_t)(e - t - 1);
    const char *k = t + 1;
    char key[64];
    if (n >= sizeof key) n = sizeof key - 1;
    memcpy(key, k, n);
    key[n] = 0;
    t = e + 1;
    if (!strcmp(key, "nest")) sbuf_printf(b, "%d", c->nest);
    else if (!strcmp(key, "next")) sbuf_printf(b, "%d", c->nest + 1);
    else if (!strcmp(key, "site")) {
      if (c->site.line > 0) sbuf_printf(b, " at line %d, column %d", c->site.line, c->site.col);
    } else if (!strcmp(key, "why"))
      sbuf_puts(b, c->why ? c->why : "every precondition of the strategy holds");
    else if (!strcmp(key, "spelling")) sbuf_puts(b, pass_cand_spelling(ctx, c));
    else if (!strcmp(key, "counts")) counts(b, p, q);
    else if (!strcmp(key, "tensors")) tensors(b, p, q);
    else if (!strcmp(key, "transition")) transition(b, p, q);
    else if (!strcmp(key, "cls"))
      sbuf_puts(b, c->cls == PASS_T ? "Class T: the result agrees with the original within the floating-point "
                                      "tolerance."
                                    : "Class E: the result is bit-identical to the original.");
    else if (!strncmp(key, "P:", 2)) {
      const char *v = pass_cand_get(c, key + 2);
      sbuf_puts(b, v ? v : "-");
    } else if (!strncmp(key, "E:", 2)) {
      const char *v = pass_cand_get(c, key + 2);
      const IrLoop *l = v && c->nest >= 0 && c->nest < p->nnests ? find_loop(p->nests[c->nest], v) : NULL;
      if (l) sbuf_printf(b, "%lld", (long long)l->extent);
      else sbuf_puts(b, "?");
    } else if (!strncmp(key, "S:", 2)) {
      const char *v = pass_cand_get(c, key + 2);
      const IrTensor *x = v ? ir_find_tensor(p, v) : NULL, *y = v ? ir_find_tensor(q, v) : NULL;
      sbuf_printf(b, "'%s'", v ? v : "-");
      SBuf u = {0}, w = {0};
      if (x && y && type_text(&u, x) && type_text(&w, y)) sbuf_printf(b, " (%s before, %s after)", u.s, w.s);
      sbuf_free(&u);
      sbuf_free(&w);
    } else if (!strncmp(key, "kv:", 3)) {
      kv(b, c, key + 3);
    } else
      sbuf_printf(b, "{%s}", key);
  }
}

char *cot_text(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, const PassCand *c) {
  SBuf b = {0};
  const char *t = cot_template(c->pass->name);
  sbuf_printf(&b, "Strategy %s: ", c->pass->name);
  if (t) fill(&b, t, p, q, c, ctx);
  else sbuf_printf(&b, "%s.", c->why ? c->why : "every precondition holds");
  char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}
