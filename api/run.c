/* run.c -- libleir: running a program on the caller's buffers (leirc
 * --run) and comparing two programs (leirc --compare) (leir/leir.h). */
#include "api/api.h"

#include "codegen/codegen.h"
#include "interp/check.h"
#include "interp/data.h"
#include "ir/memlimit.h"

#include <stdlib.h>
#include <string.h>

/* Runs ip's program on its buffers on `target`. */
static leir_status run_on(leir_context *lc, InterpProg *ip, const char *target) {
  if (!strcmp(target, "interp")) return interp_run(ip) ? LEIR_OK : LEIR_ERROR;
  if (!strcmp(target, "host")) return cg_run_host_interp(&lc->ctx, ip) ? LEIR_OK : LEIR_ERROR;
  char err[4096];
  int st = cg_run_cuda_interp(&lc->ctx, ip, lc->gpu_sm, err, sizeof err);
  if (st == 77) {
    diag_error(&lc->ctx, (IrLoc){0, 0}, "%s", err);
    return LEIR_EUNSUPPORTED;
  }
  return st ? LEIR_ERROR : LEIR_OK;
}

leir_status leir_program_run(leir_context *lc, const leir_program *p, const char *target, void *const *buffers) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_program_run")) return LEIR_EINVAL;
  if (!target || (strcmp(target, "interp") && strcmp(target, "host") && strcmp(target, "cuda")))
    return api_einval(lc, "unknown target '%s' (interp, host or cuda)", target ? target : "(null)");
  if (!buffers) return api_einval(lc, "leir_program_run: the buffer array is NULL");
  for (int i = 0; i < p->nargs; i++)
    if (!buffers[i] && p->ir->tensors[p->arg[i]]->role == ROLE_OUT)
      return api_einval(lc, "leir_program_run: the buffer of output '%s' is NULL", p->ir->tensors[p->arg[i]]->name);
  api_use(lc, p);
  if (!leir_check_memory(&lc->ctx, p->ir)) return LEIR_ENOMEM;
  InterpOptions io = {false, lc->max_steps};
  InterpProg *ip = interp_new(&lc->ctx, p->ir, &io);
  if (!ip) return LEIR_ERROR;
  bool *given = calloc((size_t)p->ir->ntensors + 1, sizeof *given);
  if (!given) {
    interp_free(ip);
    diag_error(&lc->ctx, (IrLoc){0, 0}, "out of memory");
    return LEIR_ENOMEM;
  }
  for (int i = 0; i < p->nargs; i++) {
    InterpBuf *b = interp_buf(ip, p->arg[i]);
    if (b->t->role != ROLE_OUT && buffers[i]) {
      memcpy(b->data, buffers[i], b->nbytes);
      given[b->t->id] = true;
    }
  }
  interp_random_inputs(ip, lc->seed, given); /* as leirc --run --seed */
  leir_status st = run_on(lc, ip, target);
  if (st == LEIR_OK && lc->ctx.nerrors) st = LEIR_ERROR;
  for (int i = 0; st == LEIR_OK && i < p->nargs; i++) {
    InterpBuf *b = interp_buf(ip, p->arg[i]);
    if (b->t->role == ROLE_OUT) memcpy(buffers[i], b->data, b->nbytes);
  }
  free(given);
  interp_free(ip);
  return st;
}

leir_status leir_compare(leir_context *lc, const leir_program *a, const leir_program *b, const char **verdict_out,
                         char **message_out) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!api_owns(lc, a, "leir_compare") || !api_owns(lc, b, "leir_compare")) return LEIR_EINVAL;
  if (!verdict_out) return api_einval(lc, "leir_compare: verdict_out is NULL");
  api_use(lc, a);
  InterpCompareOpts co = {1, lc->seed, (CmpTolerance)lc->tolerance, {false, lc->max_steps}, 0, NULL, NULL};
  InterpDiff d;
  if (interp_compare_programs(&lc->ctx, a->ir, &lc->ctx, b->ir, &co, a->src.name, b->src.name, &d) != 0)
    return LEIR_ERROR;
  *verdict_out = cmp_verdict_name(d.verdict);
  if (message_out) {
    SBuf t = {0};
    interp_diff_text(&t, &d, a->src.name, b->src.name);
    if (!(*message_out = api_take(lc, &t))) return LEIR_ENOMEM;
  }
  return LEIR_OK;
}
