/* names.c -- fresh tensor and index names (SPEC §2.3, STRATEGIES §0.2).
 *
 * Tensor names continue the program's name counter: the first name after
 * the last one (in the bijective base-20 order) that the program uses; REF
 * keeps a counter with the emitter's names, which for a parsed program is
 * best approximated by "after the largest name".  Names already used are
 * skipped (REC).  Index names are idx(k), k = nloops+1, ... of the nest. */
#include "passes/rewrite.h"

#include <string.h>

static const char tn_first[] = "ACDEFGHIJKMNOQRSWXYZ"; /* 20 */
static const char tn_rest[] = "acdefghijkmnoqrswxyz";  /* 20 */
static const char ix_alpha[] = "acdfghijklmnopqrsuw";  /* 19 */

/* Bijective base-b spelling of pos (0-based) with a first-letter alphabet
 * and a rest alphabet. */
static char *bijective(LeirCtx *ctx, int64_t pos, const char *first, const char *rest, int b) {
  char buf[32];
  int n = 0;
  int64_t k = pos + 1; /* 1-based bijective numeral */
  while (k > 0 && n < 30) {
    int64_t d = (k - 1) % b;
    buf[n++] = (char)d;
    k = (k - 1) / b;
  }
  char *s = arena_alloc(&ctx->arena, (size_t)n + 1);
  for (int i = 0; i < n; i++) {
    int d = buf[n - 1 - i];
    s[i] = i == 0 ? first[d] : rest[d];
  }
  s[n] = 0;
  return s;
}

char *pass_tensor_name_at(LeirCtx *ctx, int64_t pos) { return bijective(ctx, pos, tn_first, tn_rest, 20); }
char *pass_index_name_at(LeirCtx *ctx, int64_t pos) { return bijective(ctx, pos, ix_alpha, ix_alpha, 19); }

int64_t pass_tensor_name_pos(const char *name) {
  int64_t k = 0;
  size_t n = strlen(name);
  if (n == 0 || n > 10) return -1;
  for (size_t i = 0; i < n; i++) {
    const char *alpha = i == 0 ? tn_first : tn_rest;
    const char *c = strchr(alpha, name[i]);
    if (!c || !name[i]) return -1;
    k = k * 20 + (c - alpha) + 1;
  }
  return k - 1;
}

void pass_names_init(PassNames *ns, LeirCtx *ctx, const IrProgram *p) {
  ns->ctx = ctx;
  ns->p = p;
  int64_t max = -1;
  for (int i = 0; i < p->ntensors; i++) {
    int64_t k = pass_tensor_name_pos(p->tensors[i]->name);
    if (k > max) max = k;
  }
  ns->next_tensor = max + 1;
}

const char *pass_fresh_tensor(PassNames *ns) {
  for (;;) {
    char *s = pass_tensor_name_at(ns->ctx, ns->next_tensor++);
    if (!ir_find_tensor(ns->p, s)) return s;
  }
}

static bool nest_uses_index(const IrNest *n, const char *name) {
  for (int i = 0; i < n->nloops; i++)
    if (!strcmp(n->loops[i]->index, name)) return true;
  for (int k = 0; k < n->nitems; k++)
    if (n->items[k].kind == ITEM_NEST && nest_uses_index(n->items[k].u.nest, name)) return true;
  return false;
}

static bool is_keyword(const char *s) {
  static const char *const kw[] = {"exp", "log", "sqrt", "abs", "erf", "max", "min",
                                   "if_then_else", "ifthenelse", "inf"};
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
    if (!strcmp(s, kw[i])) return true;
  return false;
}

const char *pass_fresh_index(LeirCtx *ctx, const IrNest *nest, const char **also, int nalso) {
  for (int64_t k = nest->nloops + 1;; k++) {
    char *s = pass_index_name_at(ctx, k);
    bool used = nest_uses_index(nest, s) || is_keyword(s);
    for (int i = 0; i < nalso && !used; i++) used = also[i] && !strcmp(also[i], s);
    if (!used) return s;
  }
}
