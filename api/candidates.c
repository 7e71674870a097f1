/* candidates.c -- libleir: the legal steps of a program (leirc
 * --list-applicable) and applying one (-O) (leir/leir.h). */
#include "api/api.h"

#include "codegen/costmodel.h"
#include "passes/pass.h"

#include <stdlib.h>
#include <string.h>

struct leir_candidates {
  size_t n, cap;
  leir_candidate *v; /* spellings malloc'd; the other strings static */
  bool oom;
};

static void collect(void *user, const PassCand *c, const char *spelling) {
  leir_candidates *cs = user;
  if (cs->oom) return;
  if (cs->n == cs->cap) {
    size_t cap = cs->cap ? 2 * cs->cap : 16;
    leir_candidate *v = realloc(cs->v, cap * sizeof *v);
    if (!v) {
      cs->oom = true;
      return;
    }
    cs->v = v;
    cs->cap = cap;
  }
  char *sp = strdup(spelling);
  if (!sp) {
    cs->oom = true;
    return;
  }
  cs->v[cs->n++] = (leir_candidate){sp, c->pass->name, pass_level_name(c->pass->level), pass_class_name(c->cls),
                                    c->site.line, c->site.col};
}

leir_candidates *leir_candidates_list(leir_context *lc, const leir_program *p, const char *strategy) {
  if (!lc) return NULL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_candidates_list")) return NULL;
  const PassInfo *only = NULL;
  if (strategy && !(only = pass_lookup(strategy))) {
    api_einval(lc, "unknown strategy '%s'", strategy);
    return NULL;
  }
  leir_candidates *cs = calloc(1, sizeof *cs);
  if (!cs) {
    diag_error(&lc->ctx, (IrLoc){0, 0}, "out of memory");
    return NULL;
  }
  api_use(lc, p);
  pass_for_each_applicable(&lc->ctx, p->ir, only, collect, cs);
  if (cs->oom) {
    leir_candidates_free(cs);
    diag_error(&lc->ctx, (IrLoc){0, 0}, "out of memory");
    return NULL;
  }
  return cs;
}

size_t leir_candidates_count(const leir_candidates *c) { return c ? c->n : 0; }

leir_status leir_candidate_get(const leir_candidates *c, size_t i, leir_candidate *out) {
  if (!c || !out || i >= c->n) return LEIR_EINVAL;
  *out = c->v[i];
  return LEIR_OK;
}

void leir_candidates_free(leir_candidates *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) free((char *)c->v[i].spelling);
  free(c->v);
  free(c);
}

leir_program *leir_program_apply(leir_context *lc, const leir_program *p, const char *spelling,
                                 const char **cls_out) {
  if (!lc) return NULL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_program_apply")) return NULL;
  if (!spelling) {
    api_einval(lc, "leir_program_apply: the spelling is NULL");
    return NULL;
  }
  api_use(lc, p);
  PassRunOptions ro = {0};
  ro.seeded = lc->seed_given;
  ro.seed = lc->seed;
  ro.nothing_is_error = true;
  /* a bare NAME: the cost model's best on the host, as `leirc -O NAME
   * --emit=leir` takes it */
  CostStepTarget ct = {COST_HOST, lc->gpu_sm};
  ro.cost = cost_model_step_cost;
  ro.cost_user = &ct;
  PassCand *c = NULL;
  IrProgram *q = pass_run_step(&lc->ctx, p->ir, spelling, &ro, &c);
  if (!q || !c || lc->ctx.nerrors) return NULL;
  leir_program *r = api_wrap(lc, q, &p->src);
  if (r && cls_out) *cls_out = c->cls == PASS_T ? "T" : "E";
  return r;
}
