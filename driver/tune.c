/* tune.c -- `leirc --tune`: a search over the legal candidates of the pass
 * manager (the spellings of --list-applicable) for the fastest program.
 *
 * Nodes are programs, edges candidate steps.  A new program is kept only
 * after driver/tune_eval.c has verified it against the ORIGINAL program and
 * costed it; programs are deduplicated by their canonical printed text.
 * The budget counts programs verified (kept or not).  Children of a node
 * are tried in the pass manager's canonical order (pass table, then each
 * pass's enumeration order); a ranking sorts by cost, ties by spelling, so
 * the search is deterministic for a given seed and cost table.
 *
 * Strategies (leirc(1), TUNING):
 *   greedy  take the best child (or program the lookahead reached from
 *           one) while it beats the current program;
 *   beam    keep the best W programs of each depth (default);
 *   bfs     every program of depth d before depth d+1;
 *   dfs     depth first, the best child first;
 *   mcts    UCT: select by mean reward + exploration, expand one untried
 *           candidate (a seeded choice), reward = s / (1 + s) with s the
 *           speedup over the original, back-propagated to the root.
 *
 * Lookahead (--lookahead=N, default 2): a split or a tiling often pays
 * off only once loop orders change -- `split(tx,256)` of SGEMM costs what
 * its parent does until loop_reorders put the 4-row block inside the
 * reduction loop, and the cost model rates the split alone like every
 * other factor.  So each candidate gets the best estimate the model gives
 * it or any program at most N loop_reorder steps (in the nest the step
 * changed) further; with --cost=measure the children are ranked by it for
 * --expand, and a --policy is sent it with the path (driver/policy.c).
 * When it is below TUNE_LOOKAHEAD_GAIN times the candidate's
 * own estimate, the search also follows those reorders once the candidate
 * is kept: each is an ordinary verified and costed step (one evaluation
 * each, within --max-depth), and the programs reached compete in the beam
 * beside the children (Node.reached).
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/tune.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/policy.h"
#include "interp/rng.h"
#include "passes/pass.h"
#include "search/search.h"

static const char *const strategy_names[] = {"greedy", "beam", "bfs", "dfs", "mcts", "policy", "sketch", "auto"};
enum { NSTRATEGIES = sizeof strategy_names / sizeof strategy_names[0] };

void drv_tune_defaults(DrvOptions *o) {
  o->tune.strategy = TUNE_AUTO;
  o->tune.budget = 0; /* no cap: --time-limit governs */
  o->tune.time_limit = DRV_TUNE_DEFAULT_TIME_LIMIT;
  o->tune.beam_width = 4;
  o->tune.max_depth = 8;
  o->tune.expand = 8;
  o->tune.lookahead = 2;
  o->tune.policy_timeout = POLICY_DEFAULT_TIMEOUT;
  /* the evolutionary sketch stage is not the default: side by side it did
     not win (bench/sketch_bench.py --evo-compare) */
  o->tune.sketch_sample = true;
}

bool drv_tune_parse_strategy(const char *s, DrvTuneStrategy *st) {
  for (int i = 0; i < NSTRATEGIES; i++)
    if (!strcmp(s, strategy_names[i])) {
      *st = (DrvTuneStrategy)i;
      return true;
    }
  return false;
}

const char *drv_tune_strategy_name(DrvTuneStrategy st) { return strategy_names[st]; }

/* ------------------------------------------------------------ the tree */

typedef struct Node Node;
struct Node {
  IrProgram *p;
  Node *parent;
  const char *spelling; /* the step from the parent (NULL at the root) */
  const char *pass;     /* its strategy name */
  char step_cls;        /* the step's class */
  char cls;             /* the trajectory's: T if any step is T */
  double cost;
  int depth;
  /* expansion */
  bool listed;          /* cands filled */
  PtrVec cands;         /* Pending*, in the order they are tried */
  int next;             /* cands tried so far */
  PtrVec kids;          /* Node* kept */
  PtrVec reached;       /* Node* kept by following kids' lookahead paths */
  int round;            /* beam: the last round that collected it */
  /* mcts */
  int visits;
  double reward;
  bool done;            /* nothing left to try below */
  /* verification (--cost=model verifies lazily, see ensure()) */
  bool verified;        /* passed it (the root: trivially) */
  bool bad;             /* failed it: dropped */
  bool mid;             /* a step inside a sketch instance: checked and
                           applied by the pass manager, neither run nor
                           costed (the instance's last program is) */
};

/* A candidate step of a node, applied (not yet verified or costed). */
typedef struct Pending {
  PassCand *c;
  IrProgram *q;
  char *text;
  double est; /* the cost model's estimate (ranking only) */
  int order;  /* canonical position */
  /* lookahead (see below): the loop_reorder steps after this one that
     lead to the best estimate, look; nlook = 0 when none improves on est */
  double look;
  const char *path[TUNE_MAX_LOOKAHEAD];
  int nlook;
} Pending;

typedef enum Stop { STOP_NONE, STOP_BUDGET, STOP_TIME, STOP_EXHAUSTED, STOP_DEPTH, STOP_CONVERGED } Stop;
static const char *const stop_names[] = {"", "budget", "time-limit", "exhausted", "max-depth", "converged"};

typedef struct Tune {
  LeirCtx *ctx;
  const DrvOptions *o;
  TuneEval *te;
  Node *root, *best;
  double orig_cost;
  /* measured searches: the costs the search saw, before confirm() */
  bool confirmed;
  double search_orig_cost, search_best_cost, best_confirmed_cost;
  /* seen programs: an open-addressing set of canonical texts */
  char **seen;
  size_t nseen, cap;
  int evaluations, wrong, failed;
  Stop stop;
  double t0;
  double limit_s;          /* no evaluation starts after t0 + limit_s: the
                              time limit less the confirmation's share */
  bool progress;
  LeirRng rng;
  const PassInfo *reorder; /* loop_reorder, for the lookahead */
  Policy *pol;             /* --policy: orders the candidates (NULL: none) */
  bool lazy;               /* --cost=model without --verify-all: programs are
                              costed by the model unverified, and verified
                              by ensure() when kept */
  PtrVec all;              /* every node costed, in creation order */
  /* the sketches (search/search.h) */
  int base_depth;          /* --max-depth counts from this depth (the beam
                              after the sketches starts below them) */
  int sketch_limit;        /* evaluations the sketches may reach */
  double sketch_deadline;  /* and the time (0: none) */
  PtrVec sketched;         /* the instances' last programs, costed */
  PtrVec instances;        /* SketchRec*: every instance judged, in order */
  const char *search_name; /* the trace's "search" */
  int nmatches;            /* nests a sketch rule matched (-1: not tried) */
  int screened;            /* --rank-cost=learned: sketch instances not
                              measured, the model's estimate being over
                              TUNE_SKETCH_SCREEN times the best cost */
  SearchStats sk;
} Tune;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Inserts text; false if it was already there. */
static bool seen_add(Tune *t, char *text) {
  if (2 * (t->nseen + 1) > t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 256;
    char **ns = calloc(nc, sizeof *ns);
    if (!ns) return true;
    for (size_t i = 0; i < t->cap; i++)
      if (t->seen[i])
        for (size_t h = rng_hash_string(t->seen[i]) & (nc - 1);; h = (h + 1) & (nc - 1))
          if (!ns[h]) {
            ns[h] = t->seen[i];
            break;
          }
    free(t->seen);
    t->seen = ns;
    t->cap = nc;
  }
  for (size_t h = rng_hash_string(text) & (t->cap - 1);; h = (h + 1) & (t->cap - 1)) {
    if (!t->seen[h]) {
      t->seen[h] = text;
      t->nseen++;
      return true;
    }
    if (!strcmp(t->seen[h], text)) return false;
  }
}

static char *program_text(LeirCtx *ctx, const IrProgram *p) {
  SBuf b = {0};
  pass_print_program(&b, p);
  char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

/* cost, then spelling: <0 if a ranks before b */
static int rank(const Node *a, const Node *b) {
  if (a->cost < b->cost) return -1;
  if (a->cost > b->cost) return 1;
  if (!a->spelling || !b->spelling) return a->spelling ? 1 : b->spelling ? -1 : 0;
  return strcmp(a->spelling, b->spelling);
}

static int rank_qsort(const void *a, const void *b) { return rank(*(Node *const *)a, *(Node *const *)b); }

/* The bar fills with the budget (--budget) or, without one, the time. */
static void progress(Tune *t) {
  if (!t->progress) return;
  int b = t->o->tune.budget, w = 24, fill = 0;
  double tl = t->o->tune.time_limit;
  if (b > 0) fill = (int)((long long)t->evaluations * w / b);
  else if (tl > 0) fill = (int)((now_s() - t->t0) / tl * w);
  if (fill > w) fill = w;
  if (b > 0)
    fprintf(stderr, "\rleirc: tune [%.*s%*s] %d/%d  best %.2fx (depth %d)", fill, "########################", w - fill,
            "", t->evaluations, b, t->orig_cost / t->best->cost, t->best->depth);
  else
    fprintf(stderr, "\rleirc: tune [%.*s%*s] %d, %.0f/%.0f s  best %.2fx (depth %d)", fill, "########################",
            w - fill, "", t->evaluations, now_s() - t->t0, tl, t->orig_cost / t->best->cost, t->best->depth);
  fflush(stderr);
}

/* --time-limit passed (the lookahead checks it between programs) */
static bool out_of_time(const Tune *t) {
  return t->o->tune.time_limit > 0 && now_s() - t->t0 >= t->limit_s;
}

/* Should the search stop before another evaluation? */
static bool must_stop(Tune *t) {
  if (t->stop) return true;
  if (t->o->tune.budget > 0 && t->evaluations >= t->o->tune.budget) t->stop = STOP_BUDGET;
  else if (out_of_time(t)) t->stop = STOP_TIME;
  return t->stop != STOP_NONE;
}

static bool seen_has(const Tune *t, const char *text) {
  if (!t->cap) return false;
  for (size_t h = rng_hash_string(text) & (t->cap - 1); t->seen[h]; h = (h + 1) & (t->cap - 1))
    if (!strcmp(t->seen[h], text)) return true;
  return false;
}

static int pending_cmp(const void *a, const void *b) {
  const Pending *x = *(Pending *const *)a, *y = *(Pending *const *)b;
  if (x->look < y->look) return -1;
  if (x->look > y->look) return 1;
  return x->order - y->order;
}

/* ------------------------------------------------------------ lookahead */

typedef struct Look {
  Tune *t;
  LeirCtx *s;    /* scratch: the programs tried, the model's temporaries */
  int nest;      /* the nest whose loops are reordered */
  long budget;   /* programs the model may still estimate */
  double until;  /* and the time (0: none) */
  const char *path[TUNE_MAX_LOOKAHEAD];
  Pending *pd;   /* where the best path goes */
} Look;

/* The best estimate below q (reached by path[0..depth)), into look->pd. */
static void look_below(Look *lk, const IrProgram *q, int depth) {
  if (depth == lk->t->o->tune.lookahead) return;
  PtrVec legal = {0};
  pass_enumerate_legal(lk->s, q, lk->t->reorder, &legal);
  for (int i = 0; i < legal.n && lk->budget > 0 && !out_of_time(lk->t) && !(lk->until > 0 && now_s() >= lk->until);
       i++) {
    PassCand *c = legal.v[i];
    if (c->nest != lk->nest) continue;
    const char *why = NULL;
    IrProgram *r = pass_apply(lk->s, q, c, &why);
    if (!r) continue;
    lk->budget--;
    lk->path[depth] = pass_cand_spelling(lk->s, c);
    double e;
    if (tune_eval_model_in(lk->t->te, lk->s, r, &e) && e < lk->pd->look) {
      lk->pd->look = e;
      lk->pd->nlook = depth + 1;
      for (int k = 0; k <= depth; k++) lk->pd->path[k] = arena_strdup(&lk->t->ctx->arena, lk->path[k]);
    }
    look_below(lk, r, depth + 1);
  }
}

/* Fills pd->look and pd->path for every candidate in cands.  The programs
 * tried (hundreds per candidate in a deep nest) live in a scratch context,
 * a fresh one per candidate. */
static void lookahead(Tune *t, PtrVec *cands) {
  FILE *null = fopen("/dev/null", "w");
  Look lk = {t, NULL, -1, TUNE_LOOKAHEAD_PROGRAMS, 0, {0}, NULL};
  /* measuring, the lookahead of one expansion takes at most
     1/TUNE_LOOKAHEAD_TIME_SHARE of the time left: in a program of many
     nests it could take it all before one program is measured */
  if (t->o->cost != COST_MODEL && t->o->tune.time_limit > 0)
    lk.until = now_s() + (t->t0 + t->limit_s - now_s()) / TUNE_LOOKAHEAD_TIME_SHARE;
  for (int i = 0; i < cands->n && t->reorder && lk.budget > 0 && !(lk.until > 0 && now_s() >= lk.until); i++) {
    Pending *pd = cands->v[i];
    if (pd->c->nest < 0 || !isfinite(pd->est)) continue;
    LeirCtx s;
    leir_ctx_init(&s);
    if (null) s.diag_out = null;
    s.unsafe_math = t->ctx->unsafe_math;
    s.fp_contract = t->ctx->fp_contract;
    s.max_memory = t->ctx->max_memory;
    lk.s = &s;
    lk.pd = pd;
    lk.nest = pd->c->nest;
    look_below(&lk, pd->q, 0);
    if (pd->look >= TUNE_LOOKAHEAD_GAIN * pd->est) pd->nlook = 0;
    leir_ctx_free(&s);
  }
  if (null) fclose(null);
}

/* The candidates of n: every legal candidate of every pass (canonical
 * order), applied; programs seen before are left out.  When measuring,
 * they are ranked by the cost model with the lookahead, the best of each
 * strategy first, and only the first --expand are kept (measuring is
 * slow, the model is not). */
static bool policy_order(Tune *t, Node *n);

static void list_cands(Tune *t, Node *n) {
  if (n->listed) return;
  n->listed = true;
  if (n->depth - t->base_depth >= t->o->tune.max_depth) return;
  PtrVec legal = {0};
  for (int i = 0; i < pass_table_size; i++) pass_enumerate_legal(t->ctx, n->p, &pass_table[i], &legal);
  bool rank_by_model = !(t->o->cost == COST_MODEL) && t->o->tune.expand > 0;
  for (int i = 0; i < legal.n; i++) {
    Pending *pd = arena_alloc(&t->ctx->arena, sizeof *pd);
    pd->c = legal.v[i];
    pd->order = i;
    const char *reason = NULL;
    pd->q = pass_apply(t->ctx, n->p, pd->c, &reason);
    if (!pd->q) continue;
    pd->text = program_text(t->ctx, pd->q);
    if (seen_has(t, pd->text)) continue;
    if ((rank_by_model || t->o->tune.lookahead || t->pol) && !tune_eval_model(t->te, pd->q, &pd->est))
      pd->est = INFINITY;
    pd->look = pd->est;
    ptrvec_push(&t->ctx->arena, &n->cands, pd);
  }
  /* before the policy's choice: the policy is sent each candidate's lookahead
     estimate and path, and the path of the one it takes is followed */
  if (t->o->tune.lookahead) lookahead(t, &n->cands);
  if (t->pol && policy_order(t, n)) return; /* the policy's choice, else as without it */
  if (t->pol && t->o->tune.strategy == TUNE_POLICY) rank_by_model = true;
  if (rank_by_model) {
    /* the model's best candidate of each strategy first (so that a
       strategy the model misjudges is still measured once), then the rest,
       each group in the model's order */
    qsort(n->cands.v, (size_t)n->cands.n, sizeof *n->cands.v, pending_cmp);
    void **v = arena_alloc(&t->ctx->arena, sizeof *v * (size_t)(n->cands.n + 1));
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < n->cands.n; i++) {
        Pending *pd = n->cands.v[i];
        bool first = true;
        for (int j = 0; j < i && first; j++) first = ((Pending *)n->cands.v[j])->c->pass != pd->c->pass;
        if (first == (pass == 0)) v[k++] = pd;
      }
    memcpy(n->cands.v, v, sizeof *v * (size_t)k);
    if (n->cands.n > t->o->tune.expand) n->cands.n = t->o->tune.expand;
  }
}

static Node *try_step(Tune *t, Node *n, PassCand *c, IrProgram *q, char *text);

/* Verifies n and the steps leading to it (each program against the
 * original, with its trajectory's class, as tune_eval does) unless done
 * already; false when one fails: it is dropped (bad, and done for mcts),
 * counted in failed_verifications (or failed_runs). */
static bool ensure(Tune *t, Node *n) {
  if (n->verified) return true;
  if (n->bad) return false;
  if (!ensure(t, n->parent)) { /* a step before it failed */
    n->bad = n->done = true;
    return false;
  }
  const char *why = NULL;
  TuneStatus st = tune_eval_verify(t->te, n->p, n->cls, &why);
  if (st == TUNE_OK) return n->verified = true;
  if (st == TUNE_WRONG) t->wrong++;
  else t->failed++;
  n->bad = n->done = true;
  return false;
}

/* Follows the lookahead path of pd from m, the child it made; the
 * programs kept go to n->reached. */
static void follow(Tune *t, Node *n, Node *m, const Pending *pd) {
  for (int i = 0; i < pd->nlook && m && m->depth < t->o->tune.max_depth && !must_stop(t); i++) {
    if (m->bad) return; /* unverified programs are followed: the model ranks
                           them; ensure() runs them when they are kept */
    PassCand *c = arena_alloc(&t->ctx->arena, sizeof *c);
    const char *why = NULL;
    IrProgram *q = pass_parse_spelling(t->ctx, pd->path[i], c, &why) ? pass_apply(t->ctx, m->p, c, &why) : NULL;
    if (!q) return;
    m = try_step(t, m, c, q, program_text(t->ctx, q));
    if (m) ptrvec_push(&t->ctx->arena, &n->reached, m);
  }
}

/* Tries candidate k of n: a new verified program as a child, or NULL
 * (illegal after all, a program seen before, a failed verification or the
 * search stopped); then its lookahead path, if any. */
static Node *try_cand(Tune *t, Node *n, int k) {
  if (must_stop(t)) return NULL;
  Pending *pd = n->cands.v[k];
  Node *m = try_step(t, n, pd->c, pd->q, pd->text);
  if (m && pd->nlook) follow(t, n, m, pd);
  return m;
}

/* Verifies and costs q, the program step c makes of n's: its node, a new
 * child of n, or NULL as for try_cand. */
static Node *try_step(Tune *t, Node *n, PassCand *c, IrProgram *q, char *text) {
  if (must_stop(t)) return NULL;
  if (!seen_add(t, text)) return NULL;
  Node *m = arena_alloc(&t->ctx->arena, sizeof *m);
  m->p = q;
  m->parent = n;
  m->spelling = pass_cand_spelling(t->ctx, c);
  m->pass = c->pass->name;
  m->step_cls = c->cls == PASS_T ? 'T' : 'E';
  m->cls = n->cls == 'T' || m->step_cls == 'T' ? 'T' : 'E';
  m->depth = n->depth + 1;
  const char *why = NULL;
  TuneStatus st;
  if (t->lazy) st = tune_eval_model(t->te, q, &m->cost) ? TUNE_OK : TUNE_FAIL;
  else st = tune_eval(t->te, q, m->cls, &m->cost, &why);
  m->verified = !t->lazy;
  t->evaluations++;
  if (st != TUNE_OK) {
    if (st == TUNE_WRONG) t->wrong++;
    else t->failed++;
    progress(t);
    return NULL;
  }
  ptrvec_push(&t->ctx->arena, &n->kids, m);
  ptrvec_push(&t->ctx->arena, &t->all, m);
  if (rank(m, t->best) < 0) t->best = m;
  progress(t);
  return m;
}

/* b, or the best of the programs n->reached[from..] (those the lookahead
 * paths of n's candidates reached) that ranks before it; dropped ones
 * left out (b may be NULL). */
static Node *best_reached(const Node *n, int from, Node *b) {
  for (int i = from; i < n->reached.n; i++) {
    Node *r = n->reached.v[i];
    if (!r->bad && (!b || rank(r, b) < 0)) b = r;
  }
  return b;
}

/* Tries every remaining candidate of n; returns its kept children. */
static PtrVec *expand(Tune *t, Node *n) {
  list_cands(t, n);
  while (n->next < n->cands.n && !must_stop(t)) try_cand(t, n, n->next++);
  return &n->kids;
}

/* The kept children of n sorted by rank (a new array in the arena). */
static Node **sorted_kids(Tune *t, Node *n) {
  Node **v = arena_alloc(&t->ctx->arena, sizeof *v * (size_t)(n->kids.n + 1));
  memcpy(v, n->kids.v, sizeof *v * (size_t)n->kids.n);
  qsort(v, (size_t)n->kids.n, sizeof *v, rank_qsort);
  return v;
}

/* ------------------------------------------------------------ --policy */

/* Asks the policy to order n's candidates (driver/policy.h): n->cands
 * becomes its choice, best first; false when it refused (a warning; the
 * caller orders them as without a policy). */
static bool policy_order(Tune *t, Node *n) {
  if (!policy_alive(t->pol)) return false;
  int nc = n->cands.n;
  PolicyCand *pc = arena_alloc(&t->ctx->arena, sizeof *pc * (size_t)(nc + 1));
  for (int i = 0; i < nc; i++) {
    const Pending *pd = n->cands.v[i];
    double look = pd->nlook ? pd->look : pd->est;
    pc[i] = (PolicyCand){pass_cand_spelling(t->ctx, pd->c), pd->c->pass->name, pass_level_name(pd->c->pass->level),
                         pass_class_name(pd->c->cls), isfinite(pd->est) ? pd->est : -1, pd->text,
                         isfinite(look) ? look : -1, pd->path, pd->nlook};
  }
  const char **hs = arena_alloc(&t->ctx->arena, sizeof *hs * (size_t)(n->depth + 1));
  double *hc = arena_alloc(&t->ctx->arena, sizeof *hc * (size_t)(n->depth + 1));
  for (const Node *m = n; m->parent; m = m->parent) {
    hs[m->depth - 1] = m->spelling;
    hc[m->depth - 1] = m->cost;
  }
  double est;
  if (!tune_eval_model(t->te, n->p, &est)) est = -1;
  PolicyState st = {program_text(t->ctx, n->p), n->depth, n->cost, t->orig_cost, est, n->depth, hs, hc, nc, pc,
                    t->o->tune.lookahead > 0, t->evaluations, t->o->tune.budget,
                    (unsigned long long)t->o->run.seed};
  int *order = arena_alloc(&t->ctx->arena, sizeof *order * (size_t)(nc + 1));
  char why[256];
  int k = policy_ask(t->pol, &st, order, why, sizeof why);
  if (k < 0) {
    diag_warn(t->ctx, (IrLoc){0, 0}, "--policy: %s; the search goes on %s", why,
              policy_alive(t->pol) ? "without its answer here" : "without the policy");
    return false;
  }
  void **v = arena_alloc(&t->ctx->arena, sizeof *v * (size_t)(k + 1));
  for (int i = 0; i < k; i++) v[i] = n->cands.v[order[i]];
  n->cands.v = v;
  n->cands.n = k;
  return true;
}

/* --tune=policy: from the original, take the policy's first choice that
 * verifies (or, as greedy does, the best program its lookahead path
 * reached), then ask again from there, until it stops choosing (or the
 * budget, the depth or the time runs out).  The result is the best
 * program on the way. */
static void policy_walk(Tune *t) {
  Node *cur = t->root;
  for (;;) {
    if (cur->depth >= t->o->tune.max_depth) {
      t->stop = STOP_DEPTH;
      return;
    }
    list_cands(t, cur);
    Node *m = NULL;
    while (!m && cur->next < cur->cands.n && !must_stop(t)) {
      int from = cur->reached.n;
      Node *k = try_cand(t, cur, cur->next++);
      /* as greedy: the best of the child and the programs its lookahead
         path reached, the next best when one fails verification */
      for (Node *b; k && !m && (b = best_reached(cur, from, k->bad ? NULL : k));)
        if (ensure(t, b)) m = b;
    }
    if (t->stop) return;
    if (!m) {
      t->stop = STOP_EXHAUSTED;
      return;
    }
    cur = m;
  }
}

/* ------------------------------------------------------------ strategies */

static void greedy(Tune *t) {
  Node *cur = t->root;
  for (;;) {
    if (cur->depth >= t->o->tune.max_depth) {
      t->stop = STOP_DEPTH;
      return;
    }
    expand(t, cur);
    Node **k = sorted_kids(t, cur), *b = NULL;
    for (int i = 0; i < cur->kids.n && !b; i++)
      if (!k[i]->bad) b = k[i];
    if (!b) {
      if (!t->stop) t->stop = STOP_EXHAUSTED;
      return;
    }
    b = best_reached(cur, 0, b); /* and what the lookahead reached */
    if (rank(b, cur) >= 0 || b->cost >= cur->cost) {
      if (!t->stop) t->stop = STOP_CONVERGED;
      return;
    }
    if (t->stop) return;
    if (!ensure(t, b)) continue; /* the next best */
    cur = b;
  }
}

static void beam(Tune *t, Node *start) {
  int w = t->o->tune.beam_width;
  Node **front = arena_alloc(&t->ctx->arena, sizeof *front);
  front[0] = start;
  int nf = 1;
  for (int d = 0;; d++) {
    if (d >= t->o->tune.max_depth) {
      t->stop = STOP_DEPTH;
      return;
    }
    PtrVec all = {0};
    for (int i = 0; i < nf && !must_stop(t); i++) {
      PtrVec *k = expand(t, front[i]);
      for (int pass = 0; pass < 2; pass++) {
        PtrVec *v = pass ? &front[i]->reached : k;
        for (int j = 0; j < v->n; j++) {
          Node *m = v->v[j];
          if (m->round == d + 1) continue; /* a followed node is also a kid of its parent */
          m->round = d + 1;
          ptrvec_push(&t->ctx->arena, &all, m);
        }
      }
    }
    if (t->stop) return;
    if (!all.n) {
      t->stop = STOP_EXHAUSTED;
      return;
    }
    qsort(all.v, (size_t)all.n, sizeof *all.v, rank_qsort);
    nf = 0; /* the best w that verify */
    for (int j = 0; j < all.n && nf < w; j++)
      if (ensure(t, all.v[j])) all.v[nf++] = all.v[j];
    if (!nf) {
      t->stop = STOP_EXHAUSTED;
      return;
    }
    front = (Node **)all.v;
  }
}

static void bfs(Tune *t) {
  PtrVec q = {0};
  ptrvec_push(&t->ctx->arena, &q, t->root);
  for (int head = 0; head < q.n; head++) {
    Node *n = q.v[head];
    list_cands(t, n); /* expand() would stop here: */
    if (n->next < n->cands.n && must_stop(t)) return;
    if (!ensure(t, n)) continue;
    PtrVec *k = expand(t, n);
    for (int j = 0; j < k->n; j++) ptrvec_push(&t->ctx->arena, &q, k->v[j]);
    if (t->stop) return;
  }
  t->stop = STOP_EXHAUSTED;
}

static void dfs(Tune *t) {
  PtrVec st = {0};
  ptrvec_push(&t->ctx->arena, &st, t->root);
  while (st.n) {
    Node *n = st.v[--st.n];
    list_cands(t, n); /* expand() would stop here: */
    if (n->next < n->cands.n && must_stop(t)) return;
    if (!ensure(t, n)) continue;
    expand(t, n);
    if (t->stop) return;
    Node **k = sorted_kids(t, n);
    for (int j = n->kids.n - 1; j >= 0; j--) ptrvec_push(&t->ctx->arena, &st, k[j]);
  }
  t->stop = STOP_EXHAUSTED;
}

#define UCT_C 0.7

static double reward_of(const Tune *t, const Node *n) {
  double s = n->cost > 0 ? t->orig_cost / n->cost : 1e9;
  return s / (1 + s);
}

static void backprop(Node *n, double r) {
  for (; n; n = n->parent) {
    n->visits++;
    n->reward += r;
  }
}

/* Marks n done when nothing is left to try below it. */
static void update_done(Node *n) {
  for (; n; n = n->parent) {
    if (!n->listed || n->next < n->cands.n) return;
    for (int i = 0; i < n->kids.n; i++)
      if (!((Node *)n->kids.v[i])->done) return;
    n->done = true;
  }
}

static void mcts(Tune *t) {
  while (!must_stop(t)) {
    Node *n = t->root;
    if (n->done) {
      t->stop = STOP_EXHAUSTED;
      return;
    }
    for (;;) {
      list_cands(t, n);
      if (n->next < n->cands.n) {
        /* expand: a seeded choice among the untried candidates (with a
           policy: its next choice) */
        int left = n->cands.n - n->next;
        int pick = t->pol ? n->next : n->next + (int)(rng_next(&t->rng) % (uint64_t)left);
        void *tmp = n->cands.v[pick];
        n->cands.v[pick] = n->cands.v[n->next];
        n->cands.v[n->next] = tmp;
        Node *m = try_cand(t, n, n->next++);
        if (m && !ensure(t, m)) m = NULL;
        if (m) {
          list_cands(t, m);
          update_done(m);
          backprop(m, reward_of(t, m));
        } else {
          update_done(n);
        }
        break;
      }
      /* select: the best UCT value among children not done */
      Node *sel = NULL;
      double best = -1;
      for (int i = 0; i < n->kids.n; i++) {
        Node *k = n->kids.v[i];
        if (k->done) continue;
        double u = k->visits ? k->reward / k->visits + UCT_C * sqrt(log((double)n->visits + 1) / k->visits) : 1e9;
        if (!sel || u > best || (u == best && strcmp(k->spelling, sel->spelling) < 0)) {
          sel = k;
          best = u;
        }
      }
      if (!sel) {
        update_done(n);
        break;
      }
      n = sel;
    }
  }
}

/* ------------------------------------------------------------ sketches */

/* A step inside a sketch instance: a node neither run nor costed, not a
 * kid of its parent (the searches never expand it). */
static Node *mid_node(Tune *t, Node *n, const SketchStep *s) {
  Node *m = arena_alloc(&t->ctx->arena, sizeof *m);
  m->p = s->prog;
  m->parent = n;
  m->spelling = s->spelling;
  m->pass = s->cand->pass->name;
  m->step_cls = s->cand->cls == PASS_T ? 'T' : 'E';
  m->cls = n->cls == 'T' || m->step_cls == 'T' ? 'T' : 'E';
  m->depth = n->depth + 1;
  m->cost = INFINITY;
  m->verified = m->mid = m->listed = m->done = true;
  return m;
}

/* An instance as --trace writes it. */
typedef struct SketchRec {
  const char *desc, *pipeline;
  Node *node; /* its last program's node (NULL: dropped) */
  int generation;  /* search_sketch_evolve: its generation (0: sampled) */
  double estimate; /* and the anchored estimate that ranked it */
} SketchRec;

static bool sketch_out(Tune *t) {
  return (t->sketch_limit > 0 && t->evaluations >= t->sketch_limit) ||
         (t->sketch_deadline > 0 && now_s() >= t->sketch_deadline);
}

/* search_sketch_run's judge: the instance's steps as nodes below the
 * root, its last program verified and costed as try_step does. */
static SearchVerdict sketch_eval(void *user, const PtrVec *steps, const char *desc, double *cost) {
  Tune *t = user;
  if (must_stop(t) || sketch_out(t)) return SEARCH_STOP;
  Node *n = t->root;
  SBuf b = {0};
  for (int i = 0; i < steps->n; i++) {
    const SketchStep *st = steps->v[i];
    sbuf_printf(&b, "%s%s", i ? "," : "", st->spelling);
    if (i + 1 < steps->n) n = mid_node(t, n, st);
  }
  SketchRec *rec = arena_alloc(&t->ctx->arena, sizeof *rec);
  rec->desc = desc;
  rec->pipeline = arena_strdup(&t->ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  if (t->sk.evolved) {
    rec->generation = t->sk.generation;
    rec->estimate = t->sk.estimate;
  }
  const SketchStep *last = steps->v[steps->n - 1];
  /* --rank-cost=learned, measuring: the model (refitted to every
     measurement so far) screens the instances; one it estimates over
     TUNE_SKETCH_SCREEN times the best program measured is not measured */
  double est;
  if (!t->sk.evolved && t->o->tune.rank_learned && t->o->cost == COST_MEASURE &&
      t->sketched.n >= TUNE_SKETCH_SCREEN_AFTER &&
      tune_eval_model(t->te, last->prog, &est) && est > TUNE_SKETCH_SCREEN * t->best->cost) {
    t->screened++;
    return SEARCH_DROPPED;
  }
  int before = t->evaluations;
  Node *m = try_step(t, n, last->cand, last->prog, program_text(t->ctx, last->prog));
  if (t->evaluations > before || m) ptrvec_push(&t->ctx->arena, &t->instances, rec);
  rec->node = m;
  if (!m) return must_stop(t) ? SEARCH_STOP : SEARCH_DROPPED;
  ptrvec_push(&t->ctx->arena, &t->sketched, m);
  *cost = m->cost;
  return SEARCH_COSTED;
}

/* search_sketch_evolve's ranking: the cost model's estimate (--rank-cost:
 * the analytic model, or the learned one refitted to the measurements so
 * far); a program costed before is not ranked. */
static SearchVerdict sketch_rank(void *user, const IrProgram *q, double *est) {
  Tune *t = user;
  if (must_stop(t) || sketch_out(t)) return SEARCH_STOP;
  SBuf b = {0};
  pass_print_program(&b, q);
  bool seen = seen_has(t, b.s ? b.s : "");
  sbuf_free(&b);
  if (seen) return SEARCH_DROPPED;
  if (!tune_eval_model(t->te, q, est)) *est = INFINITY;
  return SEARCH_COSTED;
}

/* The sketches (search/search.h) on the evaluations up to limit (0: no
 * cap) and the time up to deadline (0: none); false when no rule matches (why: the
 * reason). */
static bool sketches(Tune *t, int limit, double deadline, const char **why) {
  SearchMachine m;
  if (t->o->tune.vector_bytes ? !search_machine_of_bytes(t->o->tune.vector_bytes, &m)
                              : !search_host_machine(t->ctx, &m)) {
    *why = "no host target";
    return false;
  }
  PtrVec ms = {0};
  t->nmatches = search_sketch_matches(t->ctx, t->root->p, &m, &ms, why);
  if (!t->nmatches) return false;
  t->sketch_limit = limit;
  t->sketch_deadline = deadline;
  /* measuring, the instances are bred in generations ranked by the model,
     the best few measured; with --cost=model (nothing cheaper to rank
     with) or --sketch-search=sample, drawn one at a time */
  if (t->o->cost == COST_MEASURE && !t->o->tune.sketch_sample)
    search_sketch_evolve(t->ctx, t->root->p, (SketchMatch *const *)ms.v, ms.n, t->o->run.seed, 0, sketch_rank,
                         sketch_eval, t, &t->sk);
  else
    search_sketch_run(t->ctx, t->root->p, (SketchMatch *const *)ms.v, ms.n, t->o->run.seed, 0, sketch_eval, t,
                      &t->sk);
  if (!t->stop && t->sk.exhausted && t->o->tune.strategy == TUNE_SKETCH) t->stop = STOP_EXHAUSTED;
  if (!t->stop && t->o->tune.strategy == TUNE_SKETCH) t->stop = sketch_out(t) ? STOP_BUDGET : STOP_EXHAUSTED;
  return true;
}

/* ------------------------------------------------------------ confirmation */

static void collect(Node *n, PtrVec *all, LeirCtx *ctx) {
  for (int i = 0; i < n->kids.n; i++) {
    ptrvec_push(&ctx->arena, all, n->kids.v[i]);
    collect(n->kids.v[i], all, ctx);
  }
}

static int dbl_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of TUNE_CONFIRM_RUNS new measurements of p; INFINITY if it
 * cannot be run. */
static double remeasure(Tune *t, const IrProgram *p) {
  double v[TUNE_CONFIRM_RUNS];
  if (!tune_eval_remeasure(t->te, p, TUNE_CONFIRM_RUNS, v)) return INFINITY;
  qsort(v, TUNE_CONFIRM_RUNS, sizeof *v, dbl_cmp);
  return v[TUNE_CONFIRM_RUNS / 2];
}

/* TUNE_CONFIRM (tune.h): the best programs of the search and the original
 * measured again; the best by those measurements becomes the result, with
 * its and the original's new costs. */
static void confirm(Tune *t) {
  PtrVec all = {0};
  collect(t->root, &all, t->ctx);
  for (int i = 0; i < t->sketched.n; i++) { /* below the root's mid nodes: the
                                               sketches' programs and what
                                               beam found from them */
    ptrvec_push(&t->ctx->arena, &all, t->sketched.v[i]);
    collect(t->sketched.v[i], &all, t->ctx);
  }
  if (!all.n) return;
  qsort(all.v, (size_t)all.n, sizeof *all.v, rank_qsort);
  t->confirmed = true;
  t->search_orig_cost = t->orig_cost;
  t->search_best_cost = t->best->cost;
  double orig = remeasure(t, t->root->p);
  if (!isfinite(orig)) orig = t->orig_cost;
  Node *best = t->root;
  double best_cost = orig;
  for (int i = 0; i < all.n && i < TUNE_CONFIRM; i++) {
    Node *n = all.v[i];
    if (n->mid || !isfinite(n->cost)) continue;
    double c = remeasure(t, n->p);
    if (c < best_cost) {
      best = n;
      best_cost = c;
    }
  }
  t->orig_cost = orig;
  t->best = best;
  t->best_confirmed_cost = best_cost;
}

/* --cost=model, lazily verified: the result is the best program costed
 * (the first of equals, as try_step keeps t->best) that verifies with the
 * steps to it; the others are dropped. */
static void final_best(Tune *t) {
  for (;;) {
    Node *b = t->root;
    for (int i = 0; i < t->all.n; i++) {
      Node *n = t->all.v[i];
      if (!n->bad && rank(n, b) < 0) b = n;
    }
    if (ensure(t, b)) {
      t->best = b;
      return;
    }
  }
}

/* The result's cost: confirmed, or as the search measured it. */
static double result_cost(const Tune *t) { return t->confirmed ? t->best_confirmed_cost : t->best->cost; }

/* ------------------------------------------------------------ output */

static bool write_trace(Tune *t, double wall) {
  FILE *f = fopen(t->o->tune.trace, "w");
  if (!f) {
    diag_error(t->ctx, (IrLoc){0, 0}, "cannot write the trace '%s'", t->o->tune.trace);
    return false;
  }
  for (int i = 0; i < t->instances.n; i++) { /* every sketch instance judged */
    const SketchRec *r = t->instances.v[i];
    json_t *j = json_object();
    json_object_set_new(j, "sketch", json_integer(i + 1));
    json_object_set_new(j, "instance", json_string(r->desc));
    json_object_set_new(j, "pipeline", json_string(r->pipeline));
    json_object_set_new(j, "cost_s", r->node ? json_real(r->node->cost) : json_null());
    if (r->generation) {
      json_object_set_new(j, "generation", json_integer(r->generation));
      json_object_set_new(j, "estimate_s", isfinite(r->estimate) ? json_real(r->estimate) : json_null());
    }
    char *s2 = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    fprintf(f, "%s\n", s2 ? s2 : "{}");
    free(s2);
    json_decref(j);
  }
  int depth = t->best->depth;
  Node **path = calloc((size_t)depth + 1, sizeof *path);
  int i = depth;
  for (Node *n = t->best; n && path; n = n->parent) path[i--] = n;
  for (int s = 1; path && s <= depth; s++) {
    Node *n = path[s];
    json_t *j = json_object();
    json_object_set_new(j, "step", json_integer(s));
    json_object_set_new(j, "spelling", json_string(n->spelling));
    json_object_set_new(j, "strategy", json_string(n->pass));
    json_object_set_new(j, "class", json_string(n->step_cls == 'T' ? "T" : "E"));
    json_object_set_new(j, "cost_s", n->mid ? json_null() : json_real(n->cost));
    json_object_set_new(j, "speedup",
                        n->mid ? json_null() : json_real((t->confirmed ? t->search_orig_cost : t->orig_cost) / n->cost));
    json_object_set_new(j, "verified", json_boolean(!n->mid));
    char *s2 = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    fprintf(f, "%s\n", s2 ? s2 : "{}");
    free(s2);
    json_decref(j);
  }
  free(path);
  json_t *j = json_object();
  json_object_set_new(j, "summary", json_true());
  json_object_set_new(j, "search", json_string(t->search_name));
  json_object_set_new(j, "cost", json_string(t->o->learned ? "learned" : (t->o->cost == COST_MODEL) ? "model" : "measure"));
  json_object_set_new(j, "target", json_string(t->o->target == TARGET_CUDA ? "cuda" : "host"));
  json_object_set_new(j, "steps", json_integer(depth));
  double best_cost = result_cost(t);
  json_object_set_new(j, "original_cost_s", json_real(t->orig_cost));
  json_object_set_new(j, "best_cost_s", json_real(best_cost));
  json_object_set_new(j, "speedup", json_real(t->orig_cost / best_cost));
  if (t->confirmed) { /* the search's own figures, before confirm() */
    json_object_set_new(j, "confirmed", json_true());
    json_object_set_new(j, "search_original_cost_s", json_real(t->search_orig_cost));
    json_object_set_new(j, "search_best_cost_s", json_real(t->search_best_cost));
  }
  if (t->nmatches >= 0) { /* the sketches ran */
    json_object_set_new(j, "sketch_nests", json_integer(t->nmatches));
    json_object_set_new(j, "sketch_instances", json_integer(t->sk.instances));
    json_object_set_new(j, "sketch_refused", json_integer(t->sk.refused));
    json_object_set_new(j, "sketch_costed", json_integer(t->sk.costed));
    if (t->sk.evolved) {
      json_object_set_new(j, "sketch_generations", json_integer(t->sk.generations));
      json_object_set_new(j, "sketch_ranked", json_integer(t->sk.ranked));
      json_object_set_new(j, "sketch_measured", json_integer(t->sk.measured));
    }
    if (t->sk.first_refusal) json_object_set_new(j, "sketch_first_refusal", json_string(t->sk.first_refusal));
  }
  json_object_set_new(j, "evaluations", json_integer(t->evaluations));
  json_object_set_new(j, "failed_verifications", json_integer(t->wrong));
  json_object_set_new(j, "failed_runs", json_integer(t->failed));
  json_object_set_new(j, "stop", json_string(stop_names[t->stop]));
  if (t->pol) json_object_set_new(j, "policy_refusals", json_integer(policy_refusals(t->pol)));
  if (t->o->tune.rank_learned) { /* the learned model ranked, updated online */
    json_object_set_new(j, "rank_cost", json_string("learned"));
    json_object_set_new(j, "model_observations", json_integer(tune_eval_observed(t->te)));
    if (t->nmatches >= 0) json_object_set_new(j, "sketch_screened", json_integer(t->screened));
  }
  json_object_set_new(j, "wall_s", json_real(wall));
  char *s2 = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
  fprintf(f, "%s\n", s2 ? s2 : "{}");
  free(s2);
  json_decref(j);
  if (fclose(f)) {
    diag_error(t->ctx, (IrLoc){0, 0}, "cannot write the trace '%s'", t->o->tune.trace);
    return false;
  }
  return true;
}

IrProgram *drv_tune(LeirCtx *ctx, const DrvOptions *o, IrProgram *p, int *rc) {
  Tune t = {0};
  t.ctx = ctx;
  t.o = o;
  t.t0 = now_s();
  t.progress = isatty(2);
  rng_seed(&t.rng, o->run.seed, rng_hash_string("tune"));
  t.reorder = pass_lookup("loop_reorder");
  t.limit_s = o->tune.time_limit;
  *rc = tune_eval_new(ctx, o, p, &t.te);
  if (*rc) return NULL;
  if (o->cost != COST_MODEL && o->tune.time_limit > 0) {
    /* confirm() measures the original and up to TUNE_CONFIRM programs once
       more, each about what the set-up just took for the original (compile,
       run, measure): the search leaves them that time, at most half */
    double share = (TUNE_CONFIRM + 1) * (now_s() - t.t0);
    t.limit_s -= share < o->tune.time_limit / 2 ? share : o->tune.time_limit / 2;
  }
  if (o->tune.policy) {
    char why[512];
    t.pol = policy_start(o->tune.policy, o->tune.policy_timeout, why, sizeof why);
    if (!t.pol) {
      diag_error(ctx, (IrLoc){0, 0}, "--policy: %s", why);
      tune_eval_free(t.te);
      *rc = 1;
      return NULL;
    }
  }
  t.orig_cost = tune_eval_original_cost(t.te);
  Node *root = arena_alloc(&ctx->arena, sizeof *root);
  root->p = p;
  root->cls = 'E';
  root->cost = t.orig_cost;
  root->verified = true;
  t.root = t.best = root;
  t.lazy = o->cost == COST_MODEL && !o->tune.verify_all;
  t.nmatches = -1;
  t.search_name = strategy_names[o->tune.strategy];
  seen_add(&t, program_text(ctx, p));
  progress(&t);
  switch (o->tune.strategy) {
  case TUNE_GREEDY: greedy(&t); break;
  case TUNE_BEAM: beam(&t, t.root); break;
  case TUNE_BFS: bfs(&t); break;
  case TUNE_DFS: dfs(&t); break;
  case TUNE_MCTS: mcts(&t); break;
  case TUNE_POLICY: policy_walk(&t); break;
  case TUNE_SKETCH: {
    const char *why = NULL;
    if (!sketches(&t, o->tune.budget, 0, &why)) {
      diag_note(ctx, (IrLoc){0, 0}, "--tune=sketch: no sketch rule matches (%s); the beam search runs instead", why);
      t.search_name = strategy_names[TUNE_BEAM];
      beam(&t, t.root);
    }
    break;
  }
  case TUNE_AUTO: {
    /* measured on the host: the sketches first (half the budget, if any,
       and half the time), then beam from the best program */
    t.search_name = strategy_names[TUNE_BEAM];
    const char *why = NULL;
    if (o->cost == COST_MEASURE && o->target != TARGET_CUDA && !t.pol) {
      int half = o->tune.budget <= 0 ? 0 : o->tune.budget / 2 > 0 ? o->tune.budget / 2 : 1;
      double deadline = o->tune.time_limit > 0 ? t.t0 + t.limit_s / 2 : 0;
      if (sketches(&t, half, deadline, &why)) t.search_name = "sketch+beam";
      else t.nmatches = -1; /* as beam alone */
    }
    if (!t.stop) {
      t.base_depth = t.best->depth;
      beam(&t, t.best);
    }
    break;
  }
  }
  if (t.lazy) final_best(&t);
  if (o->cost != COST_MODEL && t.best != t.root) confirm(&t);
  double wall = now_s() - t.t0;
  if (t.progress)
    fprintf(stderr, "\rleirc: tune: %d programs, %d failed verification, best %.3gx in %d steps (%s), %.1f s\n",
            t.evaluations, t.wrong, t.orig_cost / result_cost(&t), t.best->depth, stop_names[t.stop],
            wall);
  bool ok = !o->tune.trace || write_trace(&t, wall);
  if (ok && o->tune.model_save) ok = tune_eval_save_model(t.te, o->tune.model_save);
  IrProgram *best = t.best->p;
  tune_eval_free(t.te);
  policy_stop(t.pol);
  free(t.seen);
  if (!ok) {
    *rc = 1;
    return NULL;
  }
  return best;
}
