/* sketch_inline.c -- the inline sketch rule (search/search.h): a chain of
 * elementwise nests, each producer substituted into its consumer by
 * compute_inline (STRATEGIES 1.3), as one move. */
#include "config.h"
#include "search/search.h"

#include <string.h>

/* Does nest ni hold statements only, none of them reducing (no reduction
 * loop, no read of what it writes)? */
static bool elementwise(const IrProgram *p, int ni) {
  const IrNest *n = p->nests[ni];
  if (n->nitems < 1) return false;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind != ITEM_STMT) return false;
    const IrStmt *s = n->items[i].u.stmt;
    if (s->nred || s->self_ref) return false;
  }
  return true;
}

typedef struct Legal {
  const IrProgram *p;
  bool *ok; /* ok[i]: compute_inline(nest=i) legal, class E */
} Legal;

static void note_legal(void *user, const PassCand *c, const char *spelling) {
  (void)spelling;
  Legal *l = user;
  if (c->nest >= 0 && c->nest + 1 < l->p->nnests && c->cls == PASS_E) l->ok[c->nest] = true;
}

int search_inline_matches(LeirCtx *ctx, const IrProgram *p, SketchMatch **at) {
  for (int i = 0; i < p->nnests; i++) at[i] = NULL;
  const PassInfo *ci = pass_lookup("compute_inline");
  if (!ci || p->nnests < 2) return 0;
  Legal l = {p, arena_alloc(&ctx->arena, sizeof *l.ok * (size_t)p->nnests)};
  memset(l.ok, 0, sizeof *l.ok * (size_t)p->nnests);
  pass_for_each_applicable(ctx, p, ci, note_legal, &l);
  int found = 0;
  for (int i = 0; i + 1 < p->nnests;) {
    if (!l.ok[i] || !elementwise(p, i) || !elementwise(p, i + 1)) {
      i++;
      continue;
    }
    int links = 1;
    while (i + links + 1 < p->nnests && l.ok[i + links] && elementwise(p, i + links + 1)) links++;
    SketchMatch *mt = arena_alloc(&ctx->arena, sizeof *mt);
    *mt = (SketchMatch){0};
    mt->rule = SKETCH_INLINE;
    mt->nest = i;
    mt->links = links;
    /* options: the first `links` producers inlined, all of them first */
    mt->nopts = links;
    mt->opts = arena_alloc(&ctx->arena, sizeof *mt->opts * (size_t)links);
    for (int k = 0; k < links; k++) mt->opts[k] = (SketchOption){.links = links - k};
    at[i] = mt;
    found++;
    i += links + 1;
  }
  return found;
}

IrProgram *search_inline_apply(LeirCtx *ctx, IrProgram *p, const SketchMatch *mt, const SketchOption *o,
                               PtrVec *steps, const char **why) {
  /* producer `nest` into its consumer, which then is nest `nest` and the
     producer of the next link */
  for (int k = 0; k < o->links && p; k++) p = search_step(ctx, p, steps, why, "compute_inline(nest=%d)", mt->nest);
  return p;
}
