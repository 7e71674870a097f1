/* code.c -- libleir: the text of every --emit kind, the cost model's
 * estimate and the host's measured run time (leir/leir.h). */
#include "api/api.h"

#include "codegen/costmodel.h"
#include "codegen/emit.h"
#include "codegen/measure.h"
#include "search/learned.h"

#include <string.h>

char *leir_program_emit(leir_context *lc, const leir_program *p, const char *kind) {
  if (!lc) return NULL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_program_emit")) return NULL;
  static const char *const kinds[] = {"ptx", "llvm", "asm", "cuda", "tir", "tirx", "leir"};
  bool known = false;
  for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++) known |= !strcmp(kind, kinds[i]);
  if (!known) {
    api_einval(lc, "unknown emit kind '%s' (ptx, llvm, asm, cuda, tir, tirx or leir)", kind ? kind : "(null)");
    return NULL;
  }
  if (!strcmp(kind, "leir")) return leir_program_text(p, 0);
  api_use(lc, p);
  SBuf b = {0};
  if (!cg_emit_text(&lc->ctx, p->ir, kind, false, lc->gpu_sm, &b) || lc->ctx.nerrors) {
    sbuf_free(&b);
    return NULL;
  }
  return api_take(lc, &b);
}

leir_status leir_program_cost(leir_context *lc, const leir_program *p, const char *target, double *seconds_out) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_program_cost")) return LEIR_EINVAL;
  if (!seconds_out) return api_einval(lc, "leir_program_cost: seconds_out is NULL");
  if (!target || (strcmp(target, "host") && strcmp(target, "cuda") && strcmp(target, "learned")))
    return api_einval(lc, "the cost model's target must be host, cuda or learned, not '%s'",
                      target ? target : "(null)");
  if (!strcmp(target, "learned")) { /* the learned model of the host */
    if (!search_learned_available())
      return api_einval(lc, "the learned cost model: this libleir was built without XGBoost (configure found no "
                            "libxgboost-dev)");
    if (!lc->learned && !(lc->learned = search_learned_load(&lc->ctx, NULL))) return LEIR_ERROR;
    api_use(lc, p);
    return search_learned_seconds(&lc->ctx, lc->learned, p->ir, seconds_out) ? LEIR_OK : LEIR_ERROR;
  }
  api_use(lc, p);
  CostEstimate e;
  if (!cost_model_estimate(&lc->ctx, p->ir, !strcmp(target, "host") ? COST_HOST : COST_CUDA, lc->gpu_sm, &e))
    return LEIR_ERROR;
  *seconds_out = e.seconds;
  return LEIR_OK;
}

leir_status leir_program_measure(leir_context *lc, const leir_program *p, double *seconds_out) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_program_measure")) return LEIR_EINVAL;
  if (!seconds_out) return api_einval(lc, "leir_program_measure: seconds_out is NULL");
  api_use(lc, p);
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  CgMeasureOpts mo;
  cg_measure_opts_init(&mo);
  return cg_host_measure(&lc->ctx, p->ir, &co, &mo, seconds_out) ? LEIR_OK : LEIR_ERROR;
}
