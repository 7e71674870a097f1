/* costmodel_bench.c -- how well the analytic cost model (codegen/costmodel.h,
 * `--cost=model`) ranks programs the way measured host run times do.
 *
 *   bench/costmodel_bench [CORPUS_DIR] [--max-work N] [--max-variants K]
 *                         [--time-budget S] [--limit P] [--threads T]
 *                         [--save FILE] [--replay FILE] [--repeat-of FILE]
 *                         [--features] [--dir DIR]... [--sample N:K]
 *
 * For every corpus program (programs/level1 then level2, file names in
 * sorted order), the variants are the program itself and its legal one-step
 * candidates (every implemented pass, pass_enumerate_legal order, each
 * applied with pass_apply; programs whose text equals an earlier variant's
 * are dropped); when there are more than K (default 12) candidates, K of
 * them are taken at evenly spaced positions i*n/K.  Skip rule: a program
 * whose statement executions (the sum over statements of the product of
 * their loops' extents) exceed N (default 2^28) is not timed, nor is a
 * variant over that limit.  Each variant is timed with cg_host_measure
 * (JIT with T worker threads, default 1: on a shared machine a second
 * thread mostly measures the scheduler; 1 warm-up and the median of 3
 * runs, at most 0.25 s of timed runs) and estimated by the model for the host and for
 * CUDA sm_90.  Per program with at least 3 variants it prints Spearman's
 * rank correlation (ties get their mean rank) of host model vs measured and
 * CUDA model vs measured; at the end the mean and median over programs and
 * the correlation pooled over all variants of all programs.  New programs
 * stop being started after S seconds (default 1080).  --save writes one
 * TSV line per variant (program, variant spelling, measured seconds, host
 * estimate, CUDA estimate); --replay reads the measured seconds of such a
 * file instead of measuring (to re-score a changed model on the same
 * measurements).  --repeat-of reads an earlier --save file and also
 * reports the rank correlation of the earlier measurements with this
 * run's: the ceiling that measurement noise puts on any model's figures.
 * --features adds the learned model's features (search/features.h) to
 * each --save line, under a `#program ...` header line naming the columns
 * (tools/costmodel/'s training data).  --dir DIR (up to 16) also takes
 * DIR/NAME.leir, named DIR's last component/NAME, with DIR/NAME.decls.json
 * where it exists (the zoo's imported programs); --sample N:K takes only
 * the programs at positions i % N == K of each folder's sorted list.
 * --learned MODEL also estimates each variant with the learned model
 * (search/learned.h) and reports its rank correlation with the measured
 * times beside the analytic host model's on the same programs (per program
 * and pooled; a model rating all of a program's variants the same counts
 * rho 0 there); --heldout takes only the workloads tools/costmodel/train.py
 * holds out of training (FNV-1a of the name without its folder, 0 mod 5).
 * --online (with --learned) also scores the online update (search/learned.h,
 * `--rank-cost=learned`) within each program: a fresh copy of the model
 * observes the measured times of the program's variants at even positions
 * (the program itself first), and the variants at odd positions, which it
 * did not see, are ranked by that model, by the model as shipped and by the
 * analytic model (per program with at least 3 of them, and pooled).
 * On the committed measurements (`make bench-costmodel-learned
 * COSTMODEL_BENCH_FLAGS='--online --replay ../tools/costmodel/data.tsv'`,
 * deterministic; 6 Dec 2026): on 27 held-out programs' unseen variants,
 * mean rho 0.315 online, 0.370 as shipped, 0.444 analytic (3 or 4 unseen
 * variants a program: noise-level differences); pooled over the 81 unseen
 * variants of all programs 0.991 online, 0.966 as shipped, 0.948 analytic
 * (the update learns each program's level, not the order of its variants).
 * Exit status 77 when the corpus is absent.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_prog.h"
#include "codegen/costmodel.h"
#include "codegen/measure.h"
#include "ir/ir.h"
#include "passes/pass.h"
#include "search/features.h"
#include "search/learned.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ------------------------------------------------------------ statistics */

typedef struct Vec {
  double *v;
  int n, cap;
} Vec;

static void vpush(Vec *x, double v) {
  if (x->n == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 64;
    x->v = realloc(x->v, sizeof(double) * (size_t)x->cap);
  }
  x->v[x->n++] = v;
}

typedef struct Pair {
  double v;
  int i;
} Pair;

static int cmp_pair(const void *a, const void *b) {
  const Pair *x = a, *y = b;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return x->i - y->i;
}

static void ranks(const double *v, int n, double *r) {
  Pair *p = malloc(sizeof(Pair) * (size_t)n);
  for (int i = 0; i < n; i++) p[i] = (Pair){v[i], i};
  qsort(p, (size_t)n, sizeof(Pair), cmp_pair);
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && p[j + 1].v == p[i].v) j++;
    for (int k = i; k <= j; k++) r[p[k].i] = 0.5 * (i + j) + 1;
    i = j + 1;
  }
  free(p);
}

/* Spearman's rho: Pearson's correlation of the ranks; NAN when either side
 * is constant. */
static double spearman(const double *a, const double *b, int n) {
  double *ra = malloc(sizeof(double) * (size_t)n), *rb = malloc(sizeof(double) * (size_t)n);
  ranks(a, n, ra);
  ranks(b, n, rb);
  double ma = 0, mb = 0;
  for (int i = 0; i < n; i++) ma += ra[i], mb += rb[i];
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (int i = 0; i < n; i++) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  free(ra);
  free(rb);
  return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summary(const char *what, Vec *rho) {
  if (!rho->n) {
    printf("%s: no program with 3 or more variants\n", what);
    return;
  }
  double s = 0;
  int pos = 0;
  for (int i = 0; i < rho->n; i++) s += rho->v[i], pos += rho->v[i] > 0;
  qsort(rho->v, (size_t)rho->n, sizeof(double), cmp_double);
  double med = rho->n % 2 ? rho->v[rho->n / 2] : 0.5 * (rho->v[rho->n / 2 - 1] + rho->v[rho->n / 2]);
  printf("%s: %d programs, mean rho %.3f, median rho %.3f, rho > 0 in %d\n", what, rho->n, s / rho->n, med, pos);
}

/* ------------------------------------------------------------ replay */

typedef struct Replay {
  char **key; /* "program\tspelling" */
  double *secs;
  int n, cap;
} Replay;

static void replay_load(Replay *r, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "costmodel_bench: cannot read %s\n", path);
    exit(2);
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    char *t1 = strchr(line, '\t');
    char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) continue;
    *t2 = 0;
    if (r->n == r->cap) {
      r->cap = r->cap ? 2 * r->cap : 256;
      r->key = realloc(r->key, sizeof(char *) * (size_t)r->cap);
      r->secs = realloc(r->secs, sizeof(double) * (size_t)r->cap);
    }
    r->key[r->n] = strdup(line);
    r->secs[r->n++] = strtod(t2 + 1, NULL);
  }
  free(line);
  fclose(f);
}

static void replay_free(Replay *r) {
  for (int i = 0; i < r->n; i++) free(r->key[i]);
  free(r->key);
  free(r->secs);
}

static bool replay_find(const Replay *r, const char *prog, const char *spell, double *secs) {
  size_t lp = strlen(prog);
  for (int i = 0; i < r->n; i++)
    if (!strncmp(r->key[i], prog, lp) && r->key[i][lp] == '\t' && !strcmp(r->key[i] + lp + 1, spell)) {
      *secs = r->secs[i];
      return true;
    }
  return false;
}

/* ------------------------------------------------------------ programs */

static double nest_execs(const IrNest *n, double outer) {
  double w = outer, s = 0;
  for (int i = 0; i < n->nloops; i++) w *= (double)n->loops[i]->extent;
  for (int i = 0; i < n->nitems; i++) s += n->items[i].kind == ITEM_NEST ? nest_execs(n->items[i].u.nest, w) : w;
  return s;
}

static double execs(const IrProgram *p) {
  double s = 0;
  for (int i = 0; i < p->nnests; i++) s += nest_execs(p->nests[i], 1);
  return s;
}

typedef struct Opts {
  double max_work;
  int max_variants;
  double budget;
  int limit;
  int threads;
  FILE *save;
  Replay *replay;
  Replay *prev; /* --repeat-of: an earlier run's measurements */
  bool features; /* --features: the learned model's features in --save lines */
  int sample_n, sample_k; /* --sample N:K: the programs i % N == K of each folder */
  SearchLearned *learned; /* --learned MODEL */
  const char *learned_path;
  bool heldout;           /* --heldout: only the workloads train.py holds out */
  bool online;            /* --online: score the online update */
} Opts;

/* tools/costmodel/train.py's split: a program's workload is its name
 * without the folder; FNV-1a (32 bits) of it 0 mod 5: held out. */
static bool held_out(const char *name) {
  const char *w = strrchr(name, '/');
  w = w ? w + 1 : name;
  uint32_t h = 2166136261u;
  for (const unsigned char *c = (const unsigned char *)w; *c; c++) h = (h ^ *c) * 16777619u;
  return h % 5 == 0;
}

typedef struct Totals {
  Vec rho_host, rho_cuda, rho_rep;
  Vec rep_a, rep_b; /* pooled: earlier and this measurement */
  Vec all_meas, all_host, all_cuda; /* pooled */
  Vec rho_learned, rho_host_same;   /* --learned: per program, learned and analytic */
  Vec l_meas, l_host, l_learned;    /* --learned: pooled */
  Vec o_static, o_online, o_host;   /* --online: per program, on the unseen variants */
  Vec o_meas, o_pstatic, o_ponline, o_phost; /* --online: pooled, unseen variants */
  int programs, skipped, failed, variants;
} Totals;

/* --online: a fresh model observes the variants at even positions; the
 * odd ones are ranked by it, by the shipped model (el) and the analytic
 * one (eh). */
static void score_online(const Opts *op, LeirCtx *ctx, const char *name, IrProgram **vv, const double *meas,
                         const double *eh, const double *el, int m, Totals *t) {
  SearchLearned *fresh = search_learned_load(ctx, op->learned_path);
  if (!fresh) return;
  for (int i = 0; i < m; i += 2) search_learned_observe(ctx, fresh, vv[i], meas[i]);
  double um[64], us[64], uo[64], uh[64];
  int n = 0;
  for (int i = 1; i < m && n < 64; i += 2) {
    double s;
    if (!search_learned_seconds(ctx, fresh, vv[i], &s)) continue;
    um[n] = meas[i];
    us[n] = el[i];
    uo[n] = s;
    uh[n++] = eh[i];
  }
  search_learned_free(fresh);
  for (int i = 0; i < n; i++) {
    vpush(&t->o_meas, um[i]);
    vpush(&t->o_pstatic, us[i]);
    vpush(&t->o_ponline, uo[i]);
    vpush(&t->o_phost, uh[i]);
  }
  if (n < 3) return;
  double rs = spearman(um, us, n), ro = spearman(um, uo, n), rh = spearman(um, uh, n);
  vpush(&t->o_static, isnan(rs) ? 0 : rs);
  vpush(&t->o_online, isnan(ro) ? 0 : ro);
  vpush(&t->o_host, isnan(rh) ? 0 : rh);
  printf("%-60s %2d unseen   rho(online) %6.3f  rho(learned) %6.3f  rho(host model) %6.3f\n", name, n, ro, rs, rh);
}

static void bench_program(const Opts *op, const char *name, const char *leir, const char *decls, Totals *t) {
  BenchProg bp;
  if (!bench_prog_load(&bp, leir, decls)) return;
  LeirCtx *ctx = &bp.ctx;
  IrProgram *p = bp.p;
  if (!p) {
    t->failed++;
    goto done;
  }
  if (execs(p) > op->max_work) {
    t->skipped++;
    printf("%-60s skipped: %.3g statement executions\n", name, execs(p));
    goto done;
  }
  PtrVec legal = {0};
  for (int i = 0; i < pass_table_size; i++)
    if (pass_table[i].impl) pass_enumerate_legal(ctx, p, &pass_table[i], &legal);
  int k = legal.n <= op->max_variants ? legal.n : op->max_variants;
  IrProgram **var = malloc(sizeof(IrProgram *) * (size_t)(k + 1));
  const char **spell = malloc(sizeof(char *) * (size_t)(k + 1));
  char **texts = malloc(sizeof(char *) * (size_t)(k + 1));
  int nv = 0;
  for (int i = -1; i < k; i++) {
    IrProgram *q = p;
    const char *sp = "-";
    if (i >= 0) {
      PassCand *c = legal.v[(int)((long)i * legal.n / k)];
      const char *why;
      sp = pass_cand_spelling(ctx, c);
      q = pass_apply(ctx, p, c, &why);
      if (!q || execs(q) > op->max_work) continue;
    }
    SBuf b = {0};
    ir_print_body(&b, q);
    bool dup = false;
    for (int j = 0; j < nv && !dup; j++) dup = !strcmp(texts[j], b.s ? b.s : "");
    if (dup) {
      sbuf_free(&b);
      continue;
    }
    texts[nv] = b.s ? b.s : strdup("");
    spell[nv] = sp;
    var[nv++] = q;
  }
  double *meas = malloc(sizeof(double) * (size_t)(nv + 1));
  double *eh = malloc(sizeof(double) * (size_t)(nv + 1));
  double *ec = malloc(sizeof(double) * (size_t)(nv + 1));
  double *pa = malloc(sizeof(double) * (size_t)(nv + 1));
  double *pb = malloc(sizeof(double) * (size_t)(nv + 1));
  double *el = malloc(sizeof(double) * (size_t)(nv + 1));
  IrProgram **vm = malloc(sizeof(IrProgram *) * (size_t)(nv + 1)); /* the variant of meas[i] */
  int m = 0, np = 0;
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  co.nthreads = op->threads;
  CgMeasureOpts mo;
  cg_measure_opts_init(&mo);
  mo.repeats = 3;
  mo.max_seconds = 0.25;
  for (int i = 0; i < nv; i++) {
    CostEstimate h, c;
    double s;
    if (!cost_model_estimate(ctx, var[i], COST_HOST, 90, &h)) continue;
    if (!cost_model_estimate(ctx, var[i], COST_CUDA, 90, &c)) c.seconds = NAN;
    bool got = op->replay ? replay_find(op->replay, name, spell[i], &s)
                          : cg_host_measure(ctx, var[i], &co, &mo, &s);
    if (!got) continue;
    double ls = NAN;
    if (op->learned && !search_learned_seconds(ctx, op->learned, var[i], &ls)) continue;
    if (op->save) {
      fprintf(op->save, "%s\t%s\t%.9g\t%.9g\t%.9g", name, spell[i], s, h.seconds, c.seconds);
      float f[SEARCH_NFEATURES];
      if (op->features && search_features(ctx, var[i], f))
        for (int q = 0; q < SEARCH_NFEATURES; q++) fprintf(op->save, "\t%.9g", (double)f[q]);
      fputc('\n', op->save);
    }
    double ps;
    if (op->prev && replay_find(op->prev, name, spell[i], &ps)) {
      pa[np] = ps;
      pb[np++] = s;
      vpush(&t->rep_a, ps);
      vpush(&t->rep_b, s);
    }
    meas[m] = s;
    eh[m] = h.seconds;
    ec[m] = c.seconds;
    el[m] = ls;
    vm[m] = var[i];
    m++;
  }
  if (op->online && op->learned) score_online(op, ctx, name, vm, meas, eh, el, m, t);
  t->programs++;
  t->variants += m;
  for (int i = 0; i < m; i++) {
    vpush(&t->all_meas, meas[i]);
    vpush(&t->all_host, eh[i]);
    vpush(&t->all_cuda, isnan(ec[i]) ? INFINITY : ec[i]);
  }
  if (op->learned)
    for (int i = 0; i < m; i++) {
      vpush(&t->l_meas, meas[i]);
      vpush(&t->l_host, eh[i]);
      vpush(&t->l_learned, el[i]);
    }
  if (m >= 3 && op->learned) {
    /* a model that rates every variant the same ranks nothing: rho 0 */
    double rl = spearman(meas, el, m), rh = spearman(meas, eh, m);
    vpush(&t->rho_learned, isnan(rl) ? 0 : rl);
    vpush(&t->rho_host_same, isnan(rh) ? 0 : rh);
    double rr = np >= 3 ? spearman(pa, pb, np) : NAN;
    if (!isnan(rr)) vpush(&t->rho_rep, rr);
    printf("%-60s %2d variants  rho(learned) %6.3f  rho(host model) %6.3f", name, m, rl, rh);
    if (np >= 3) printf("  rho(repeat) %6.3f", rr);
    putchar('\n');
  } else if (m >= 3) {
    double rh = spearman(meas, eh, m);
    bool cuda_ok = true;
    for (int i = 0; i < m; i++) cuda_ok &= !isnan(ec[i]);
    double rc = cuda_ok ? spearman(meas, ec, m) : NAN;
    if (!isnan(rh)) vpush(&t->rho_host, rh);
    if (!isnan(rc)) vpush(&t->rho_cuda, rc);
    if (np >= 3) {
      double rr = spearman(pa, pb, np);
      if (!isnan(rr)) vpush(&t->rho_rep, rr);
      printf("%-60s %2d variants  rho(host model) %6.3f  rho(cuda model) %6.3f  rho(repeat) %6.3f\n", name, m, rh,
             rc, rr);
    } else {
      printf("%-60s %2d variants  rho(host model) %6.3f  rho(cuda model) %6.3f\n", name, m, rh, rc);
    }
  } else {
    printf("%-60s %2d variants  (too few to rank)\n", name, m);
  }
  fflush(stdout);
  if (op->save) fflush(op->save);
  for (int i = 0; i < nv; i++) free(texts[i]);
  free(texts);
  free(var);
  free(spell);
  free(meas);
  free(eh);
  free(ec);
  free(pa);
  free(pb);
  free(el);
  free(vm);
done:
  bench_prog_free(&bp);
}

/* The programs DIR/NAME.leir in sorted order, named LABEL/NAME; the
 * declarations DIR/NAME.decls.json where that file exists. */
static void bench_dir(const Opts *op, const char *dir, const char *label, Totals *t, double t0, int *seen,
                      bool *out_of_time) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  int nn = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".leir")) continue;
    if (nn == cap) names = realloc(names, sizeof(char *) * (size_t)(cap = cap ? 2 * cap : 256));
    names[nn++] = strndup(e->d_name, l - 5);
  }
  closedir(d);
  qsort(names, (size_t)nn, sizeof(char *), cmp_str);
  for (int i = 0; i < nn; i++) {
    if (!*out_of_time && (wall() - t0 > op->budget || (op->limit && *seen >= op->limit))) {
      *out_of_time = true;
      printf("(stopping: %s reached after %d programs)\n", op->limit && *seen >= op->limit ? "--limit" : "time budget",
             *seen);
    }
    if (!*out_of_time && i % op->sample_n == op->sample_k && (!op->heldout || held_out(names[i]))) {
      char leir[8192], decls[8192], name[4096];
      snprintf(leir, sizeof leir, "%s/%s.leir", dir, names[i]);
      snprintf(decls, sizeof decls, "%s/%s.decls.json", dir, names[i]);
      snprintf(name, sizeof name, "%s/%s", label, names[i]);
      FILE *df = fopen(decls, "r");
      if (df) fclose(df);
      bench_program(op, name, leir, df ? decls : NULL, t);
      (*seen)++;
    }
    free(names[i]);
  }
  free(names);
}

int main(int argc, char **argv) {
  const char *corpus = "../shared/corpus";
  Opts op = {268435456.0, 12, 1080.0, 0, 1, NULL, NULL, NULL, false, 1, 0, NULL, NULL, false, false};
  Replay rp = {0}, prev = {0};
  const char *extra[16];
  int nextra = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-work") && i + 1 < argc) op.max_work = strtod(argv[++i], NULL);
    else if (!strcmp(argv[i], "--max-variants") && i + 1 < argc) op.max_variants = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--time-budget") && i + 1 < argc) op.budget = strtod(argv[++i], NULL);
    else if (!strcmp(argv[i], "--limit") && i + 1 < argc) op.limit = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) op.threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--features")) op.features = true;
    else if (!strcmp(argv[i], "--heldout")) op.heldout = true;
    else if (!strcmp(argv[i], "--online")) op.online = true;
    else if (!strcmp(argv[i], "--learned") && i + 1 < argc) {
      LeirCtx lc;
      leir_ctx_init(&lc);
      op.learned_path = argv[++i];
      op.learned = search_learned_load(&lc, op.learned_path);
      leir_ctx_free(&lc);
      if (!op.learned) return 2;
    }
    else if (!strcmp(argv[i], "--sample") && i + 1 < argc) {
      if (sscanf(argv[++i], "%d:%d", &op.sample_n, &op.sample_k) != 2 || op.sample_n < 1) {
        fprintf(stderr, "costmodel_bench: --sample wants N:K\n");
        return 2;
      }
    }
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc && nextra < 16) extra[nextra++] = argv[++i];
    else if (!strcmp(argv[i], "--save") && i + 1 < argc) {
      op.save = fopen(argv[++i], "w");
      if (!op.save) {
        fprintf(stderr, "costmodel_bench: cannot write %s\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--repeat-of") && i + 1 < argc) {
      replay_load(&prev, argv[++i]);
      op.prev = &prev;
    } else if (!strcmp(argv[i], "--replay") && i + 1 < argc) {
      replay_load(&rp, argv[++i]);
      op.replay = &rp;
    } else if (argv[i][0] != '-') corpus = argv[i];
    else {
      fprintf(stderr, "costmodel_bench: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (op.max_variants < 2) op.max_variants = 2;
  if (op.save && op.features) {
    fputs("#program\tvariant\tmeasured_s\thost_model_s\tcuda_model_s", op.save);
    for (int q = 0; q < SEARCH_NFEATURES; q++) fprintf(op.save, "\t%s", search_feature_name(q));
    fputc('\n', op.save);
  }
  Totals t;
  memset(&t, 0, sizeof t);
  double t0 = wall();
  bool out_of_time = false;
  int seen = 0;
  for (int lv = 1; lv <= 2; lv++) {
    char dir[4096], label[64];
    snprintf(dir, sizeof dir, "%s/programs/level%d", corpus, lv);
    snprintf(label, sizeof label, "level%d", lv);
    bench_dir(&op, dir, label, &t, t0, &seen, &out_of_time);
  }
  for (int i = 0; i < nextra; i++) {
    const char *b = strrchr(extra[i], '/');
    bench_dir(&op, extra[i], b && b[1] ? b + 1 : extra[i], &t, t0, &seen, &out_of_time);
  }
  if (!seen) {
    fprintf(stderr, "costmodel_bench: no corpus at %s\n", corpus);
    return 77;
  }
  printf("\n%d programs timed (%d variants), %d skipped (over %.3g statement executions), %d not loaded, %.0f s\n",
         t.programs, t.variants, t.skipped, op.max_work, t.failed, wall() - t0);
  if (op.learned) {
    printf("%s workloads:\n", op.heldout ? "held-out" : "all");
    summary("  learned model vs measured host time, per program", &t.rho_learned);
    summary("  analytic host model on the same programs", &t.rho_host_same);
    if (t.l_meas.n >= 3)
      printf("  pooled over %d variants: rho(learned) %.3f, rho(host model) %.3f\n", t.l_meas.n,
             spearman(t.l_meas.v, t.l_learned.v, t.l_meas.n), spearman(t.l_meas.v, t.l_host.v, t.l_meas.n));
  }
  if (op.learned && op.online) {
    printf("online update, on each program's variants the model did not observe:\n");
    summary("  learned model refitted to the others (online)", &t.o_online);
    summary("  learned model as shipped", &t.o_static);
    summary("  analytic host model", &t.o_host);
    if (t.o_meas.n >= 3)
      printf("  pooled over %d unseen variants: rho(online) %.3f, rho(learned) %.3f, rho(host model) %.3f\n",
             t.o_meas.n, spearman(t.o_meas.v, t.o_ponline.v, t.o_meas.n),
             spearman(t.o_meas.v, t.o_pstatic.v, t.o_meas.n), spearman(t.o_meas.v, t.o_phost.v, t.o_meas.n));
  }
  summary("host model vs measured host time, per program", &t.rho_host);
  summary("CUDA sm_90 model vs measured host time, per program", &t.rho_cuda);
  if (t.all_meas.n >= 3) {
    printf("pooled over all %d variants: rho(host model) %.3f, rho(cuda model) %.3f\n", t.all_meas.n,
           spearman(t.all_meas.v, t.all_host.v, t.all_meas.n), spearman(t.all_meas.v, t.all_cuda.v, t.all_meas.n));
  }
  if (op.prev) {
    summary("this measurement vs the earlier one (--repeat-of), per program", &t.rho_rep);
    if (t.rep_a.n >= 3)
      printf("pooled over %d variants: rho(repeat) %.3f\n", t.rep_a.n, spearman(t.rep_a.v, t.rep_b.v, t.rep_a.n));
  }
  if (op.save) fclose(op.save);
  replay_free(&rp);
  replay_free(&prev);
  search_learned_free(op.learned);
  Vec *vs[] = {&t.rho_host, &t.rho_cuda, &t.rho_rep, &t.rep_a, &t.rep_b, &t.all_meas, &t.all_host, &t.all_cuda,
               &t.rho_learned, &t.rho_host_same, &t.l_meas, &t.l_host, &t.l_learned,
               &t.o_static, &t.o_online, &t.o_host, &t.o_meas, &t.o_pstatic, &t.o_ponline, &t.o_phost};
  for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) free(vs[i]->v);
  return 0;
}
