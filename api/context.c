/* context.c -- libleir: contexts, their options and diagnostics, versions
 * (leir/leir.h). */
#include "config.h"
#include "api/api.h"
#include "search/learned.h"

#include "codegen/codegen.h"
#include "interp/compare.h"
#include "interp/interp.h"
#include "ir/memlimit.h"

#include <stdlib.h>
#include <string.h>

const char *leir_version(void) { return PACKAGE_VERSION; }

int leir_api_version(void) { return LEIR_API_VERSION; }

void leir_free(void *p) { free(p); }

leir_context *leir_context_new(void) {
  leir_context *lc = calloc(1, sizeof *lc);
  if (!lc) return NULL;
  leir_ctx_init(&lc->ctx);
  lc->ctx.diag_out = NULL;
  lc->ctx.capture = &lc->diags;
  lc->ctx.max_memory = leir_default_max_memory();
  lc->max_steps = INTERP_DEFAULT_MAX_STEPS;
  lc->tolerance = CMP_DEFAULT;
  lc->gpu_sm = 90;
  return lc;
}

void leir_context_free(leir_context *lc) {
  if (!lc) return;
  api_compiled_free_all(lc);
  while (lc->programs) leir_program_free(lc->programs);
  search_learned_free(lc->learned);
  diag_list_clear(&lc->diags);
  leir_ctx_free(&lc->ctx);
  free(lc);
}

void api_begin(leir_context *lc) {
  diag_list_clear(&lc->diags);
  lc->ctx.nerrors = 0;
  lc->ctx.nwarnings = 0;
  lc->ctx.src = (LeirSource){.name = "libleir", .text = "", .len = 0};
}

void api_use(leir_context *lc, const leir_program *p) { lc->ctx.src = p->src; }

leir_status api_einval(leir_context *lc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(&lc->ctx, (IrLoc){0, 0}, fmt, ap);
  va_end(ap);
  return LEIR_EINVAL;
}

bool api_owns(leir_context *lc, const leir_program *p, const char *fn) {
  if (p && p->lc == lc) return true;
  api_einval(lc, "%s: %s", fn, p ? "the program belongs to another context" : "the program is NULL");
  return false;
}

char *api_take(leir_context *lc, SBuf *sb) {
  char *s = sb->s ? sb->s : calloc(1, 1);
  if (!s) diag_error(&lc->ctx, (IrLoc){0, 0}, "out of memory");
  *sb = (SBuf){0};
  return s;
}

/* ------------------------------------------------------------ options */

static leir_status bad_value(leir_context *lc, const char *key, const char *value, const char *want) {
  return api_einval(lc, "bad value '%s' for option '%s' (%s)", value, key, want);
}

leir_status leir_context_set_option(leir_context *lc, const char *key, const char *value) {
  if (!lc) return LEIR_EINVAL;
  api_begin(lc);
  if (!key || !value) return api_einval(lc, "leir_context_set_option: %s is NULL", key ? "the value" : "the key");
  uint64_t n;
  if (!strcmp(key, "seed")) {
    if (!leir_parse_u64(value, &n)) return bad_value(lc, key, value, "a whole number");
    lc->seed = n;
    lc->seed_given = true;
  } else if (!strcmp(key, "max_steps")) {
    if (!leir_parse_u64(value, &n)) return bad_value(lc, key, value, "a whole number, 0 = no limit");
    lc->max_steps = n;
  } else if (!strcmp(key, "max_memory")) {
    if (!leir_parse_size(value, &n)) return bad_value(lc, key, value, "a SIZE such as 512M or 4G, 0 = no limit");
    lc->ctx.max_memory = n;
  } else if (!strcmp(key, "tolerance")) {
    if (!cmp_tolerance_from_name(value, &lc->tolerance))
      return bad_value(lc, key, value, "exact, default or reference");
  } else if (!strcmp(key, "unsafe_math")) {
    if (strcmp(value, "0") && strcmp(value, "1")) return bad_value(lc, key, value, "0 or 1");
    lc->ctx.unsafe_math = value[0] == '1';
  } else if (!strcmp(key, "gpu_arch")) {
    char err[256];
    int sm;
    if (!cg_parse_gpu_arch(value, &sm, err, sizeof err)) return api_einval(lc, "%s", err);
    lc->gpu_sm = sm;
  } else if (!strcmp(key, "fp_contract")) {
    if (strcmp(value, "off") && strcmp(value, "on")) return bad_value(lc, key, value, "off or on");
    lc->ctx.fp_contract = !strcmp(value, "on"); /* ir/contract.h */
  } else {
    return api_einval(lc, "unknown option '%s'", key);
  }
  return LEIR_OK;
}

/* ------------------------------------------------------------ diagnostics */

size_t leir_diag_count(const leir_context *lc) { return lc ? lc->diags.n : 0; }

leir_status leir_diag_get(const leir_context *lc, size_t i, leir_diagnostic *out) {
  if (!lc || !out || i >= lc->diags.n) return LEIR_EINVAL;
  const LeirDiagRec *r = &lc->diags.v[i];
  static const leir_severity sev[] = {[LEIR_DIAG_NOTE] = LEIR_NOTE, [LEIR_DIAG_WARNING] = LEIR_WARNING,
                                      [LEIR_DIAG_ERROR] = LEIR_ERROR_SEVERITY};
  out->severity = sev[r->severity];
  out->file = r->file;
  out->line = r->loc.line;
  out->column = r->loc.col;
  out->message = r->message;
  out->rendered = r->rendered;
  return LEIR_OK;
}
