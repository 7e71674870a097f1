/* cot.h -- the CoT (chain-of-thought) text of one step, written from the
 * pass's own analysis: one template per strategy (passes/cot.c). */
#ifndef LEIR_PASSES_COT_H
#define LEIR_PASSES_COT_H

#include "ir/ir.h"
#include "passes/pass.h"

/* The template of strategy `name` (pass_table's name), NULL if it has
 * none.  Placeholders: see passes/cot.c. */
const char *cot_template(const char *name);

/* The CoT of candidate c (its check passed, c->why set by it) taking p to
 * q: "Strategy NAME: " and its strategy's template filled from c's
 * parameters, site and why and
 * from the nests and tensors that differ between p and q (arena string;
 * deterministic).  A strategy without a template gets
 * "Strategy NAME: WHY." only. */
char *cot_text(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, const PassCand *c);

#endif
