/* program.c -- libleir: programs from text or files, their canonical text
 * and their arguments (leir/leir.h). */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

leir_program *api_wrap(leir_context *lc, IrProgram *ir, const LeirSource *src) {
  leir_program *p = calloc(1, sizeof *p);
  int *arg = calloc((size_t)ir->ntensors + 1, sizeof *arg);
  if (!p || !arg) {
    free(p);
    free(arg);
    diag_error(&lc->ctx, (IrLoc){0, 0}, "out of memory");
    return NULL;
  }
  p->lc = lc;
  p->ir = ir;
  p->src = *src;
  p->arg = arg;
  for (int i = 0; i < ir->ntensors; i++)
    if (ir->tensors[i]->role != ROLE_TMP) p->arg[p->nargs++] = i;
  p->next = lc->programs;
  if (lc->programs) lc->programs->prev = p;
  lc->programs = p;
  return p;
}

void leir_program_free(leir_program *p) {
  if (!p) return;
  if (p->prev) p->prev->next = p->next;
  else p->lc->programs = p->next;
  if (p->next) p->next->prev = p->prev;
  free(p->arg);
  free(p);
}

static leir_program *load(leir_context *lc, const char *decls_path, const char *decls_json) {
  IrProgram *ir = ir_load_program(&lc->ctx, decls_path, decls_json);
  if (!ir || lc->ctx.nerrors) return NULL;
  return api_wrap(lc, ir, &lc->ctx.src);
}

leir_program *leir_program_parse(leir_context *lc, const char *name, const char *text, const char *decls_json) {
  if (!lc) return NULL;
  api_begin(lc);
  if (!text) {
    api_einval(lc, "leir_program_parse: the text is NULL");
    return NULL;
  }
  leir_ctx_set_source(&lc->ctx, name ? name : "<string>", text, strlen(text));
  return load(lc, NULL, decls_json);
}

leir_program *leir_program_load(leir_context *lc, const char *path, const char *decls_path) {
  if (!lc) return NULL;
  api_begin(lc);
  if (!path) {
    api_einval(lc, "leir_program_load: the path is NULL");
    return NULL;
  }
  return ir_read_source(&lc->ctx, path) ? load(lc, decls_path, NULL) : NULL;
}

char *leir_program_text(const leir_program *p, int with_header) {
  if (!p) return NULL;
  SBuf b = {0};
  ir_print_program(&b, p->ir, with_header != 0);
  return b.s;
}

size_t leir_program_ntensors(const leir_program *p) { return p ? (size_t)p->nargs : 0; }

leir_status leir_program_tensor(const leir_program *p, size_t i, leir_tensor_info *out) {
  if (!p || !out || i >= (size_t)p->nargs) return LEIR_EINVAL;
  const IrTensor *t = p->ir->tensors[p->arg[i]];
  if (t->rank > LEIR_MAX_RANK) return LEIR_EUNSUPPORTED;
  memset(out, 0, sizeof *out);
  out->name = t->name;
  out->role = t->role == ROLE_IN ? LEIR_IN : t->role == ROLE_PARAM ? LEIR_PARAM : LEIR_OUT;
  out->dtype = ir_dtype_name(t->dtype);
  out->rank = t->rank;
  for (int d = 0; d < t->rank; d++) out->shape[d] = t->shape[d];
  out->elem_size = (size_t)ir_dtype_size(t->dtype);
  out->nbytes = out->elem_size * (size_t)ir_tensor_numel(t);
  return LEIR_OK;
}
