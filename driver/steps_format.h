/* steps_format.h -- --emit-steps --format=steptp|chat: the records and the
 * CoT text (driver/steps_format.c). */
#ifndef LEIR_DRIVER_STEPS_FORMAT_H
#define LEIR_DRIVER_STEPS_FORMAT_H

#include "ir/ir.h"
#include "passes/pass.h"

#include <jansson.h>

/* The CoT of candidate c taking p to q (arena string). */
char *steps_cot(LeirCtx *ctx, const IrProgram *p, const IrProgram *q, const PassCand *c);
/* {applied_strategy, transformed_IR, CoT} */
json_t *steps_label_entry(const char *strategy, const char *after, const char *cot);
/* {id, source, program, original_IR, label}; takes label's reference. */
json_t *steps_steptp_record(long id, const char *source, int program, const char *before, json_t *label);
/* {id, messages: [system, user, assistant]} */
json_t *steps_chat_record(LeirCtx *ctx, long id, const char *before, const char *strategy, const char *after,
                          const char *cot);

#endif
