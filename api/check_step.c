/* check_step.c -- libleir: leir_check_step, a stand-in until leirc
 * --check-step (issue 40) lands and this file calls it.  It parses the
 * proposed program, then: UNCHANGED if its canonical text is the program's,
 * LEGAL if a legal candidate of the strategy (any strategy when NULL)
 * gives exactly that text, else EQUIVALENT or NOT_EQUIVALENT as
 * leir_compare judges the two. */
#include "api/api.h"

#include "interp/check.h"
#include "passes/pass.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
  [LEIR_STEP_LEGAL] = "legal", [LEIR_STEP_EQUIVALENT] = "equivalent",
  [LEIR_STEP_NOT_EQUIVALENT] = "not equivalent", [LEIR_STEP_DOES_NOT_PARSE] = "does not parse",
  [LEIR_STEP_INVALID] = "invalid", [LEIR_STEP_UNCHANGED] = "unchanged",
};

const char *leir_verdict_name(leir_verdict v) {
  return (unsigned)v < sizeof verdict_names / sizeof verdict_names[0] ? verdict_names[v] : NULL;
}

void leir_step_result_clear(leir_step_result *r) {
  if (!r) return;
  free(r->spelling);
  free(r->cls);
  free(r->message);
  memset(r, 0, sizeof *r);
}

static char *body_text(const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  return b.s ? b.s : calloc(1, 1);
}

typedef struct Search {
  LeirCtx *ctx;
  const IrProgram *before;
  const char *want; /* the proposed program's canonical text */
  char *spelling;   /* the first candidate that gives it */
  char cls;
} Search;

static void try_cand(void *user, const PassCand *c, const char *spelling) {
  Search *s = user;
  if (s->spelling) return;
  PassCand copy = *c;
  const char *why = NULL;
  IrProgram *q = pass_apply(s->ctx, s->before, &copy, &why);
  char *t = q ? body_text(q) : NULL;
  if (t && !strcmp(t, s->want)) {
    s->spelling = strdup(spelling);
    s->cls = copy.cls == PASS_T ? 'T' : 'E';
  }
  free(t);
}

/* The proposed program analysed with `before`'s arguments as its
 * declarations; NULL with *verdict set after diagnostics. */
static IrProgram *parse_after(leir_context *lc, const leir_program *before, const char *text, leir_verdict *verdict) {
  leir_ctx_set_source(&lc->ctx, "<after>", text, strlen(text));
  IrProgram *q = ps_parse(&lc->ctx);
  if (!q || lc->ctx.nerrors) {
    *verdict = LEIR_STEP_DOES_NOT_PARSE;
    return NULL;
  }
  IrDeclList side = {before->nargs, arena_alloc(&lc->ctx.arena, sizeof(IrDecl) * (size_t)(before->nargs + 1))};
  for (int i = 0; i < before->nargs; i++) {
    const IrTensor *t = before->ir->tensors[before->arg[i]];
    side.d[i] = (IrDecl){t->name, t->role, t->dtype, t->rank, t->shape, t->loc};
  }
  if (!ir_sema(&lc->ctx, q, &side) || ir_verify(&lc->ctx, q) || lc->ctx.nerrors) {
    *verdict = LEIR_STEP_INVALID;
    return NULL;
  }
  return q;
}

static char *first_error(const leir_context *lc) {
  for (size_t i = 0; i < lc->diags.n; i++)
    if (lc->diags.v[i].severity == LEIR_DIAG_ERROR) return lc->diags.v[i].message;
  return "";
}

leir_status leir_check_step(leir_context *lc, const leir_program *before, const char *after_text,
                            const char *strategy, leir_step_result *out) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!api_owns(lc, before, "leir_check_step")) return LEIR_EINVAL;
  if (!after_text || !out) return api_einval(lc, "leir_check_step: %s is NULL", out ? "after_text" : "out");
  memset(out, 0, sizeof *out);
  const PassInfo *only = NULL;
  if (strategy && !(only = pass_lookup(strategy))) return api_einval(lc, "unknown strategy '%s'", strategy);
  SBuf msg = {0};
  leir_verdict v;
  IrProgram *after = parse_after(lc, before, after_text, &v);
  char *want = after ? body_text(after) : NULL, *have = after ? body_text(before->ir) : NULL;
  api_use(lc, before);
  leir_status st = LEIR_OK;
  if (!after) {
    sbuf_printf(&msg, "%s: %s", verdict_names[v], first_error(lc));
  } else if (!strcmp(want, have)) {
    v = LEIR_STEP_UNCHANGED;
    sbuf_puts(&msg, "unchanged");
  } else {
    Search s = {&lc->ctx, before->ir, want, NULL, 0};
    pass_for_each_applicable(&lc->ctx, before->ir, only, try_cand, &s);
    if (s.spelling) {
      v = LEIR_STEP_LEGAL;
      out->spelling = s.spelling;
      out->cls = strdup(s.cls == 'T' ? "T" : "E");
      sbuf_printf(&msg, "legal: %s (class %c)", s.spelling, s.cls);
    } else {
      InterpCompareOpts co = {1, lc->seed, (CmpTolerance)lc->tolerance, {false, lc->max_steps}, 0, NULL, NULL};
      InterpDiff d;
      if (interp_compare_programs(&lc->ctx, before->ir, &lc->ctx, after, &co, "before", "after", &d) != 0) {
        st = LEIR_ERROR;
      } else {
        v = d.verdict == CMP_DIFFER ? LEIR_STEP_NOT_EQUIVALENT : LEIR_STEP_EQUIVALENT;
        sbuf_printf(&msg, "%s: %s", verdict_names[v], cmp_verdict_name(d.verdict));
      }
    }
  }
  free(want);
  free(have);
  if (st != LEIR_OK) {
    sbuf_free(&msg);
    leir_step_result_clear(out);
    return st;
  }
  out->verdict = v;
  out->message = api_take(lc, &msg);
  return out->message ? LEIR_OK : LEIR_ENOMEM;
}
