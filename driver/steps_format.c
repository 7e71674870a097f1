/* steps_format.c -- the Step-TP training formats of `leirc --emit-steps`
 * (--format=steptp|chat).
 *
 * The CoT of a step is written from the pass's own analysis, one template
 * per strategy (passes/cot.c): what its check established (PassCand.why),
 * what the step changes (its loops, tensors and parameters) and the
 * IR-to-IR transition (the nests that differ, quoted before and after),
 * then the class.  The text depends only on the program and the candidate
 * (deterministic).
 * Schemas: schemas/steptp.schema.json, schemas/chat.schema.json (installed
 * in $(pkgdatadir)/schemas; man leirc, STEP RECORDS).
 */
#include "config.h"
#include "driver/steps_format.h"
#include "passes/cot.h"

#include <stdlib.h>
#include <string.h>

static const char system_prompt[] =
  "You optimise tensor programs written in LEIR (Loop-Equation IR).  Given a program, choose one optimisation "
  "strategy, explain why it applies, and write the program after one application of it.";

char *steps_cot(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, const PassCand *c) {
  return cot_text(ctx, p, q, c);
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
