/* sketch_search.c -- sampling the matmul sketch's instances (search/search.h):
 * the heuristic instance, then seeded random instances and mutations of
 * the best costed ones, each instance once. */
#include "config.h"
#include "search/search.h"

#include <stdlib.h>
#include <string.h>

#include "interp/rng.h"

/* Instances drawn at random before mutations may be made, and the share
 * of mutations after that. */
#define SKETCH_RANDOM_FIRST 4
#define SKETCH_MUTATE_SHARE 0.6
/* The best instances a mutation starts from. */
#define SKETCH_PARENTS 3
/* Draws before the first untried instance is taken in order. */
#define SKETCH_DRAWS 64
/* Instances refused in a row (a step the pass manager refused) after which
 * the search gives up: the rule does not fit this program. */
#define SKETCH_MAX_REFUSED 32

typedef struct Inst {
  int *choice;
  double cost;
} Inst;

typedef struct Sampler {
  LeirCtx *ctx;
  SketchMatch *const *ms;
  int n;
  LeirRng rng;
  PtrVec tried;  /* int* choices */
  Inst best[SKETCH_PARENTS];
  int nbest;
  double space;  /* instances in all (may be huge) */
} Sampler;

static bool same(const Sampler *s, const int *a, const int *b) { return !memcmp(a, b, sizeof *a * (size_t)s->n); }

static bool was_tried(const Sampler *s, const int *c) {
  for (int i = 0; i < s->tried.n; i++)
    if (same(s, s->tried.v[i], c)) return true;
  return false;
}

/* Do options a and b differ in exactly one factor? */
static bool neighbours(const SketchOption *a, const SketchOption *b) {
  int d = (a->pack != b->pack) + (a->cols != b->cols) + (a->rows != b->rows) + (a->group != b->group) +
          (a->links != b->links);
  return d == 1;
}

static void draw_random(Sampler *s, int *c) {
  for (int i = 0; i < s->n; i++) c[i] = (int)(rng_next(&s->rng) % (uint64_t)s->ms[i]->nopts);
}

/* One nest's option of a parent changed in one factor. */
static void draw_mutation(Sampler *s, int *c) {
  const Inst *par = &s->best[rng_next(&s->rng) % (uint64_t)s->nbest];
  memcpy(c, par->choice, sizeof *c * (size_t)s->n);
  int m = (int)(rng_next(&s->rng) % (uint64_t)s->n);
  const SketchMatch *mt = s->ms[m];
  const SketchOption *cur = &mt->opts[c[m]];
  int nn = 0;
  for (int i = 0; i < mt->nopts; i++) nn += neighbours(cur, &mt->opts[i]);
  if (!nn) {
    c[m] = (int)(rng_next(&s->rng) % (uint64_t)mt->nopts);
    return;
  }
  int pick = (int)(rng_next(&s->rng) % (uint64_t)nn);
  for (int i = 0; i < mt->nopts; i++)
    if (neighbours(cur, &mt->opts[i]) && pick-- == 0) c[m] = i;
}

/* The first untried instance in order (mixed radix); false if none. */
static bool first_untried(Sampler *s, int *c) {
  memset(c, 0, sizeof *c * (size_t)s->n);
  for (;;) {
    if (!was_tried(s, c)) return true;
    int i = s->n - 1;
    while (i >= 0 && ++c[i] == s->ms[i]->nopts) c[i--] = 0;
    if (i < 0) return false;
  }
}

/* The next instance to try into c; false when the space is exhausted. */
static bool next_instance(Sampler *s, int *c) {
  if ((double)s->tried.n >= s->space) return false;
  if (!s->tried.n) { /* the heuristic instance of every nest */
    memset(c, 0, sizeof *c * (size_t)s->n);
    return true;
  }
  for (int d = 0; d < SKETCH_DRAWS; d++) {
    if (s->nbest && s->tried.n > SKETCH_RANDOM_FIRST && rng_uniform(&s->rng) < SKETCH_MUTATE_SHARE)
      draw_mutation(s, c);
    else
      draw_random(s, c);
    if (!was_tried(s, c)) return true;
  }
  return first_untried(s, c);
}

static void keep_best(Sampler *s, const int *c, double cost) {
  int at = s->nbest;
  while (at > 0 && cost < s->best[at - 1].cost) at--;
  if (at >= SKETCH_PARENTS) return;
  int last = s->nbest < SKETCH_PARENTS ? s->nbest : SKETCH_PARENTS - 1;
  for (int i = last; i > at; i--) s->best[i] = s->best[i - 1];
  s->best[at] = (Inst){(int *)c, cost};
  if (s->nbest < SKETCH_PARENTS) s->nbest++;
}

void search_sketch_run(LeirCtx *ctx, const IrProgram *p, SketchMatch *const *ms, int n, uint64_t seed, int max_tries,
                       SearchEvalFn fn, void *user, SearchStats *st) {
  *st = (SearchStats){0};
  if (n <= 0) return;
  Sampler s = {.ctx = ctx, .ms = ms, .n = n, .space = 1};
  rng_seed(&s.rng, seed, rng_hash_string("sketch"));
  for (int i = 0; i < n; i++) s.space *= ms[i]->nopts;
  for (int refused = 0;;) {
    if (max_tries > 0 && st->instances >= max_tries) return;
    if (refused >= SKETCH_MAX_REFUSED) return;
    int *c = arena_alloc(&ctx->arena, sizeof *c * (size_t)n);
    if (!next_instance(&s, c)) {
      st->exhausted = true;
      return;
    }
    ptrvec_push(&ctx->arena, &s.tried, c);
    st->instances++;
    PtrVec steps = {0};
    const char *why = NULL;
    if (!search_sketch_apply(ctx, p, ms, n, c, &steps, &why)) {
      st->refused++;
      refused++;
      if (!st->first_refusal) st->first_refusal = why;
      continue;
    }
    refused = 0;
    double cost = 0;
    SearchVerdict v = fn(user, &steps, search_sketch_describe(ctx, ms, n, c), &cost);
    if (v == SEARCH_STOP) { /* not judged */
      st->instances--;
      return;
    }
    if (v == SEARCH_COSTED) {
      st->costed++;
      keep_best(&s, c, cost);
    }
  }
}
