/* steps_format.c -- the Step-TP training formats of `leirc --emit-steps`
 * (--format=steptp|chat) and their CoT text.
 *
 * The CoT of a step is written from the pass's own analysis: the strategy's
 * summary from the table, the site its check named, the facts the check
 * established (PassCand.why) and what the step changed (nests, tensors,
 * statements of the two programs), then the class.  The template is the
 * same shape for every strategy, filled with that strategy's own words, so
 * the text depends only on the program and the candidate (deterministic).
 * Schemas: schemas/steptp.schema.json, schemas/chat.schema.json (installed
 * in $(pkgdatadir)/schemas; man leirc, STEP RECORDS).
 */
#include "config.h"
#include "driver/steps_format.h"

#include <stdlib.h>
#include <string.h>

static const char system_prompt[] =
  "You optimise tensor programs written in LEIR (Loop-Equation IR).  Given a program, choose one optimisation "
  "strategy, explain why it applies, and write the program after one application of it.";

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

static int stmts_of(const IrProgram *p) { return p->nstmts; }

char *steps_cot(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, const PassCand *c) {
  SBuf b = {0};
  const PassInfo *pass = c->pass;
  sbuf_printf(&b, "Strategy %s (%s level): %s.", pass->name, pass_level_name(pass->level),
              pass->summary ? pass->summary : "");
  if (c->nest >= 0) sbuf_printf(&b, " It applies to nest %d", c->nest);
  else sbuf_puts(&b, " It applies to the program");
  if (c->site.line > 0) sbuf_printf(&b, " at line %d, column %d", c->site.line, c->site.col);
  sbuf_puts(&b, ".");
  sbuf_printf(&b, " Why it is legal: %s.",
              c->why ? c->why : "the strategy's check found every precondition satisfied");
  sbuf_printf(&b, " The step %s", pass_cand_spelling(ctx, c));
  int na = 0, nr = 0;
  for (int k = 0; k < q->ntensors; k++) na += !ir_find_tensor(p, q->tensors[k]->name);
  for (int k = 0; k < p->ntensors; k++) nr += !ir_find_tensor(q, p->tensors[k]->name);
  sbuf_printf(&b, " turns %d nest%s, %d loop%s and %d statement%s into %d, %d and %d", p->nnests,
              p->nnests == 1 ? "" : "s", loops_of(p), loops_of(p) == 1 ? "" : "s", stmts_of(p),
              stmts_of(p) == 1 ? "" : "s", q->nnests, loops_of(q), stmts_of(q));
  if (na || nr) sbuf_printf(&b, ", adds %d tensor%s and removes %d", na, na == 1 ? "" : "s", nr);
  sbuf_puts(&b, ".");
  if (c->cls == PASS_T)
    sbuf_puts(&b, " It is class T: the result agrees with the original within the floating-point tolerance.");
  else
    sbuf_puts(&b, " It is class E: the result is bit-identical to the original.");
  char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

json_t *steps_label_entry(const char *strategy, const char *after, const char *cot) {
  json_t *e = json_object();
  json_object_set_new(e, "applied_strategy", json_string(strategy));
  json_object_set_new(e, "transformed_IR", json_string(after));
  json_object_set_new(e, "CoT", json_string(cot));
  return e;
}

json_t *steps_steptp_record(long id, const char *source, int program, const char *before, json_t *label) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_integer(id));
  json_object_set_new(o, "source", json_string(source));
  json_object_set_new(o, "program", json_integer(program));
  json_object_set_new(o, "original_IR", json_string(before));
  json_object_set_new(o, "label", label);
  return o;
}

json_t *steps_chat_record(LeirCtx *ctx, long id, const char *before, const char *strategy, const char *after,
                          const char *cot) {
  json_t *o = json_object(), *m = json_array();
  json_object_set_new(o, "id", json_integer(id));
  const char *user = arena_printf(&ctx->arena, "Program:\n%s\nApply one optimisation step.", before);
  const char *assistant = arena_printf(&ctx->arena, "%s\nStrategy: %s\nProgram:\n%s", cot, strategy, after);
  const char *roles[3] = {"system", "user", "assistant"}, *text[3] = {system_prompt, user, assistant};
  for (int i = 0; i < 3; i++) {
    json_t *x = json_object();
    json_object_set_new(x, "role", json_string(roles[i]));
    json_object_set_new(x, "content", json_string(text[i]));
    json_array_append_new(m, x);
  }
  json_object_set_new(o, "messages", m);
  return o;
}
