/* sketch_search.c -- the sketch search (search/search.h): sampling the
 * rules' instances one at a time (search_sketch_run: the heuristic
 * instance, then seeded random instances and mutations of the best costed
 * ones, each instance once), or in generations ranked by a cost model of
 * which only the best few are costed (search_sketch_evolve). */
#include "config.h"
#include "search/search.h"

#include <math.h>
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
  Inst best[SEARCH_EVO_PARENTS > SKETCH_PARENTS ? SEARCH_EVO_PARENTS : SKETCH_PARENTS];
  int nparents;  /* the parents kept: SKETCH_PARENTS or SEARCH_EVO_PARENTS */
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
  if (at >= s->nparents) return;
  int last = s->nbest < s->nparents ? s->nbest : s->nparents - 1;
  for (int i = last; i > at; i--) s->best[i] = s->best[i - 1];
  s->best[at] = (Inst){(int *)c, cost};
  if (s->nbest < s->nparents) s->nbest++;
}

void search_sketch_run(LeirCtx *ctx, const IrProgram *p, SketchMatch *const *ms, int n, uint64_t seed, int max_tries,
                       SearchEvalFn fn, void *user, SearchStats *st) {
  *st = (SearchStats){0};
  if (n <= 0) return;
  Sampler s = {.ctx = ctx, .ms = ms, .n = n, .space = 1, .nparents = SKETCH_PARENTS};
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

/* ------------------------------------------------------------ evolve */

/* Draws per instance bred before the first untried one is taken in order. */
#define EVO_DRAWS 16

/* An instance applied and ranked, not yet costed. */
typedef struct Cand {
  int *choice;
  PtrVec steps; /* SketchStep* */
  const char *desc;
  double model; /* the model's estimate */
  double est;   /* anchored (see anchor()): what ranks it */
  int order;    /* creation order: ties of the estimate */
  double cost;  /* once measured and costed */
} Cand;

static int cand_cmp(const void *a, const void *b) {
  const Cand *x = *(Cand *const *)a, *y = *(Cand *const *)b;
  if (x->est < y->est) return -1;
  if (x->est > y->est) return 1;
  return (x->order > y->order) - (x->order < y->order);
}

static bool same_option(const SketchOption *a, const SketchOption *b) {
  return a->pack == b->pack && a->cols == b->cols && a->rows == b->rows && a->group == b->group &&
         a->links == b->links;
}

/* Two parents' instances crossed: each nest's option the parents share, or
 * each factor (pack, cols, rows, group, links) from one parent or the other
 * when the option so made exists, else one parent's option whole. */
static void draw_crossover(Sampler *s, int *c) {
  int a = (int)(rng_next(&s->rng) % (uint64_t)s->nbest);
  int b = (int)(rng_next(&s->rng) % (uint64_t)(s->nbest - 1));
  if (b >= a) b++;
  const int *pa = s->best[a].choice, *pb = s->best[b].choice;
  for (int i = 0; i < s->n; i++) {
    const SketchMatch *mt = s->ms[i];
    if (pa[i] == pb[i]) {
      c[i] = pa[i];
      continue;
    }
    const SketchOption *x = &mt->opts[pa[i]], *y = &mt->opts[pb[i]];
    uint64_t r = rng_next(&s->rng);
    SketchOption w = {r & 1 ? x->pack : y->pack, r & 2 ? x->cols : y->cols, r & 4 ? x->rows : y->rows,
                      r & 8 ? x->group : y->group, r & 16 ? x->links : y->links};
    c[i] = r & 32 ? pa[i] : pb[i];
    for (int k = 0; k < mt->nopts; k++)
      if (same_option(&mt->opts[k], &w)) {
        c[i] = k;
        break;
      }
  }
}

/* The next instance of a generation into c (see search.h); false when
 * none untried is left. */
static bool breed(Sampler *s, int gen, int *c) {
  if ((double)s->tried.n >= s->space) return false;
  if (gen == 1 && !s->tried.n) { /* the heuristic instance of every nest */
    memset(c, 0, sizeof *c * (size_t)s->n);
    return true;
  }
  for (int d = 0; d < EVO_DRAWS; d++) {
    double u = s->nbest ? rng_uniform(&s->rng) : 1;
    if (u < SEARCH_EVO_MUTATE) draw_mutation(s, c);
    else if (u < SEARCH_EVO_MUTATE + SEARCH_EVO_CROSS && s->nbest >= 2) draw_crossover(s, c);
    else if (u < SEARCH_EVO_MUTATE + SEARCH_EVO_CROSS) draw_mutation(s, c);
    else draw_random(s, c);
    if (!was_tried(s, c)) return true;
  }
  return first_untried(s, c);
}

static bool is_heuristic(const Sampler *s, const int *c) {
  for (int i = 0; i < s->n; i++)
    if (c[i]) return false;
  return true;
}

/* Factors in which instances a and b differ. */
static int distance(const Sampler *s, const int *a, const int *b) {
  int d = 0;
  for (int i = 0; i < s->n; i++) {
    const SketchOption *x = &s->ms[i]->opts[a[i]], *y = &s->ms[i]->opts[b[i]];
    d += (x->pack != y->pack) + (x->cols != y->cols) + (x->rows != y->rows) + (x->group != y->group) +
         (x->links != y->links);
  }
  return d;
}

/* k's estimate anchored to the measurements: the model's estimate times
 * the ratio of measured cost to the model's estimate of the nearest
 * instance measured (fewest factors differing; the first measured of
 * equals).  The model judges the difference a few factors make better
 * than it judges a whole region of the space (a kind of tile it rates too
 * well everywhere): the measurements correct the region. */
static void anchor(const Sampler *s, const PtrVec *costed, Cand *k) {
  k->est = k->model;
  const Cand *nn = NULL;
  int best = 0;
  for (int i = 0; i < costed->n; i++) {
    const Cand *m = costed->v[i];
    if (!(m->model > 0) || !isfinite(m->model)) continue;
    int d = distance(s, k->choice, m->choice);
    if (!nn || d < best) {
      nn = m;
      best = d;
    }
  }
  if (nn && isfinite(k->model)) k->est = k->model * (nn->cost / nn->model);
}

static void remove_at(PtrVec *v, int i) {
  memmove(&v->v[i], &v->v[i + 1], sizeof *v->v * (size_t)(v->n - i - 1));
  v->n--;
}

void search_sketch_evolve(LeirCtx *ctx, const IrProgram *p, SketchMatch *const *ms, int n, uint64_t seed,
                          int max_measured, SearchRankFn rank, SearchEvalFn fn, void *user, SearchStats *st) {
  *st = (SearchStats){0};
  st->evolved = true;
  if (n <= 0) return;
  Sampler s = {.ctx = ctx, .ms = ms, .n = n, .space = 1, .nparents = SEARCH_EVO_PARENTS};
  rng_seed(&s.rng, seed, rng_hash_string("sketch-evolve"));
  for (int i = 0; i < n; i++) s.space *= ms[i]->nopts;
  PtrVec pool = {0};   /* Cand*: ranked, not costed, best first after a generation */
  PtrVec costed = {0}; /* Cand*: measured and costed, in order */
  int order = 0;
  for (int gen = 1;; gen++) {
    if (max_measured > 0 && st->measured >= max_measured) return;
    /* breed: SEARCH_EVO_POPULATION new instances, each applied and ranked */
    int bred = 0, refused = 0;
    while (bred < SEARCH_EVO_POPULATION && refused < SKETCH_MAX_REFUSED) {
      int *c = arena_alloc(&ctx->arena, sizeof *c * (size_t)n);
      if (!breed(&s, gen, c)) break;
      ptrvec_push(&ctx->arena, &s.tried, c);
      st->instances++;
      Cand *k = arena_alloc(&ctx->arena, sizeof *k);
      const char *why = NULL;
      IrProgram *q = search_sketch_apply(ctx, p, ms, n, c, &k->steps, &why);
      if (!q) {
        st->refused++;
        refused++;
        if (!st->first_refusal) st->first_refusal = why;
        continue;
      }
      refused = 0;
      SearchVerdict v = rank(user, q, &k->model);
      if (v == SEARCH_STOP) return;
      if (v == SEARCH_DROPPED) continue; /* a program seen before */
      k->choice = c;
      k->desc = search_sketch_describe(ctx, ms, n, c);
      k->order = order++;
      st->ranked++;
      bred++;
      ptrvec_push(&ctx->arena, &pool, k);
    }
    if (!pool.n) {
      st->exhausted = refused < SKETCH_MAX_REFUSED;
      return;
    }
    /* the instances carried over ranked again (a model refitted to the
       measurements since estimates them anew); those whose program was
       costed since leave */
    for (int i = 0; i < pool.n - bred;) {
      Cand *k = pool.v[i];
      const SketchStep *last = k->steps.v[k->steps.n - 1];
      SearchVerdict v = rank(user, last->prog, &k->model);
      if (v == SEARCH_STOP) return;
      if (v == SEARCH_DROPPED) {
        remove_at(&pool, i);
        continue;
      }
      i++;
    }
    for (int i = 0; i < pool.n; i++) anchor(&s, &costed, pool.v[i]);
    qsort(pool.v, (size_t)pool.n, sizeof *pool.v, cand_cmp);
    /* pick: the best ranked; the first generation's heuristic instance
       first; after the first pick, each pick with probability
       SEARCH_EVO_EPSILON one of the others at random */
    Cand *pick[SEARCH_EVO_MEASURE];
    int np = 0;
    if (gen == 1)
      for (int i = 0; i < pool.n; i++)
        if (is_heuristic(&s, ((Cand *)pool.v[i])->choice)) {
          pick[np++] = pool.v[i];
          remove_at(&pool, i);
          break;
        }
    while (np < SEARCH_EVO_MEASURE && pool.n) {
      int at = 0;
      if (np > 0 && pool.n > 1 && rng_uniform(&s.rng) < SEARCH_EVO_EPSILON)
        at = 1 + (int)(rng_next(&s.rng) % (uint64_t)(pool.n - 1));
      pick[np++] = pool.v[at];
      remove_at(&pool, at);
    }
    if (pool.n > SEARCH_EVO_POOL) pool.n = SEARCH_EVO_POOL; /* the worst ranked go */
    st->generations = gen;
    for (int i = 0; i < np; i++) {
      if (max_measured > 0 && st->measured >= max_measured) return;
      Cand *k = pick[i];
      st->generation = gen;
      st->estimate = k->est;
      double cost = 0;
      SearchVerdict v = fn(user, &k->steps, k->desc, &cost);
      if (v == SEARCH_STOP) return; /* not judged */
      st->measured++;
      if (v == SEARCH_COSTED) {
        st->costed++;
        keep_best(&s, k->choice, cost);
        k->cost = cost;
        ptrvec_push(&ctx->arena, &costed, k);
      }
    }
  }
}
