/* run.c -- libleir: running a program on the caller's buffers (leirc
 * --run), compiling it once to run many times (leir_program_compile), and
 * comparing two programs (leirc --compare) (leir/leir.h). */
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
  InterpCompareOpts co = {1, lc->seed, (CmpTolerance)lc->tolerance, {false, lc->max_steps}, 0, NULL, NULL, NULL};
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

/* ------------------------------------------------------------ compiled */

struct leir_compiled {
  leir_context *lc;
  const IrProgram *ir;   /* in lc's arena: it outlives the program's handle */
  LeirSource src;        /* the source its diagnostics show (lc's arena) */
  int nargs, *arg;       /* the arguments' tensor ids, as the program's handle has them */
  CgHostProgram *hp;
  void **bufs;           /* per tensor of ir: the caller's, or NULL (intermediates) */
  leir_compiled *prev, *next;
};

leir_compiled *leir_program_compile(leir_context *lc, const leir_program *p, const char *target) {
  if (!lc) return NULL;
  api_begin(lc);
  if (!api_owns(lc, p, "leir_program_compile")) return NULL;
  if (!target || strcmp(target, "host")) {
    api_einval(lc, "leir_program_compile: unknown target '%s' (host)", target ? target : "(null)");
    return NULL;
  }
  api_use(lc, p);
  leir_compiled *c = calloc(1, sizeof *c);
  void **bufs = calloc((size_t)p->ir->ntensors + 1, sizeof *bufs);
  int *arg = calloc((size_t)p->nargs + 1, sizeof *arg);
  if (!c || !bufs || !arg) {
    free(c);
    free(bufs);
    free(arg);
    diag_error(&lc->ctx, (IrLoc){0, 0}, "out of memory");
    return NULL;
  }
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST; /* as cg_run_host_interp: leir_program_run's "host" */
  c->hp = cg_host_compile(&lc->ctx, p->ir, &co);
  if (!c->hp || lc->ctx.nerrors) {
    cg_host_free(c->hp);
    free(bufs);
    free(arg);
    free(c);
    return NULL;
  }
  c->lc = lc;
  c->ir = p->ir;
  c->src = p->src;
  c->nargs = p->nargs;
  memcpy(arg, p->arg, (size_t)p->nargs * sizeof *arg);
  c->arg = arg;
  c->bufs = bufs;
  c->next = lc->compiled;
  if (lc->compiled) lc->compiled->prev = c;
  lc->compiled = c;
  return c;
}

leir_status leir_compiled_run(leir_compiled *c, void *const *buffers) {
  if (!c) return LEIR_EINVAL;
  leir_context *lc = c->lc;
  api_begin(lc);
  if (!buffers) return api_einval(lc, "leir_compiled_run: the buffer array is NULL");
  for (int i = 0; i < c->nargs; i++)
    if (!buffers[i])
      return api_einval(lc, "leir_compiled_run: the buffer of '%s' is NULL", c->ir->tensors[c->arg[i]]->name);
  lc->ctx.src = c->src;
  for (int i = 0; i < c->ir->ntensors; i++) c->bufs[i] = NULL;
  for (int i = 0; i < c->nargs; i++) {
    const IrTensor *t = c->ir->tensors[c->arg[i]];
    c->bufs[c->arg[i]] = buffers[i];
    if (t->role == ROLE_OUT) /* the interpreter starts outputs at zero */
      memset(buffers[i], 0, (size_t)ir_tensor_numel(t) * (size_t)ir_dtype_size(t->dtype));
  }
  bool ok = cg_host_run(c->hp, c->bufs);
  return ok && !lc->ctx.nerrors ? LEIR_OK : LEIR_ERROR;
}

void leir_compiled_free(leir_compiled *c) {
  if (!c) return;
  if (c->prev) c->prev->next = c->next;
  else c->lc->compiled = c->next;
  if (c->next) c->next->prev = c->prev;
  cg_host_free(c->hp);
  free(c->bufs);
  free(c->arg);
  free(c);
}

void api_compiled_free_all(leir_context *lc) {
  while (lc->compiled) leir_compiled_free(lc->compiled);
}
