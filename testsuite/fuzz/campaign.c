/* campaign.c -- the differential campaign of issue 11 (item 4): random
 * verified pass sequences over the corpus, each final program compared with
 * the original as `leirc --compare` compares two programs.
 *
 *   campaign [--corpus DIR] [--seed N] [--sequences N] [--first I]
 *            [--max-len L] [--max-bytes B] [--max-work W] [--quiet]
 *
 * Programs: DIR/programs/level{1,2}/NAME.leir with their sidecar
 * declarations (DIR: $top_srcdir/../shared/corpus, read at run time, or
 * --corpus), in name order; only those small enough to interpret quickly
 * take part: tensors of at most --max-bytes (default 4 MiB) and at most
 * --max-work statement executions per run (default 300000): 16 of the 146
 * programs (1000000 admits 25, at twice the time).
 *
 * Sequence i (i = first .. first+sequences-1) is a function of (seed, i)
 * only, so a campaign can be split into ranges and any sequence rerun
 * alone: a program drawn among the eligible ones, a length L in 1..max-len
 * (default 10), then L steps, each a candidate drawn uniformly among every
 * legal candidate of every implemented pass on the current program
 * (pass_enumerate_legal: what --list-applicable lists), applied with
 * pass_apply (check, rewrite, re-analysis, IR verifier) and verified as
 * `--verify` verifies it (interp_check_step, seed 0, one input set: class E
 * bit-identical, class T the tolerance of STRATEGIES §0.4).  A class T step
 * that --verify rejects is dropped (--verify would refuse it) and counted;
 * the sequence goes on from the program before it.  The final program is
 * compared with the original on fresh inputs (seed 1000003 + i), as
 * `leirc --compare` does: CMP_EXACT when every step applied was class E
 * (the result must be bit-equal), else CMP_DEFAULT, and a T sequence that
 * differs under CMP_DEFAULT is compared again under the reference's rule
 * (CMP_REFERENCE, SPEC §13.4): T steps compound their tolerance.
 *
 * A MISCOMPILE is: a class E step that --verify rejects, an all-E sequence
 * whose result is not bit-equal, or a T sequence whose result differs even
 * under the reference's rule.  Also failures: a legal candidate that
 * pass_apply refuses, and any diagnostic reporting an internal error.  Each
 * is printed with the command that reproduces it.  The last lines are the
 * counts; exit status 1 if there was any failure, 77 if the corpus is
 * absent.
 *
 * `make campaign-quick` runs 200 sequences; the full campaign (10,000) is
 * `testsuite/fuzz/campaign --sequences 10000` in the build tree (HACKING.md).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "ir/ir.h"
#include "ir/memlimit.h"
#include "passes/pass.h"
#include "testsuite/corpus_walk.h"
#include "ir/readfile.h"

typedef struct Opts {
  const char *corpus;
  uint64_t seed;
  long sequences, first;
  int max_len;
  uint64_t max_bytes, max_work;
  bool quiet;
} Opts;

typedef struct Prog {
  char name[256];
  char *leir, *decls; /* paths */
  char *text;         /* the source */
} Prog;

typedef struct Counts {
  long sequences, steps, steps_e, steps_t, all_e, equal, close, differ, differ_ref_ok;
  long t_rejected, unchecked, ended_early, refusals, internal, miscompiles;
} Counts;

/* ------------------------------------------------------------ utilities */

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static uint64_t next(uint64_t *s) { return mix(*s += 0x632BE59BD9B4E019ull); }

/* The corpus programs (corpus_list: sorted by name, decls NULL when
 * absent); the sources are read later. */
static int list_programs(const char *corpus, Prog **out) {
  CorpusProg *c;
  int n = corpus_list(corpus, &c);
  Prog *v = calloc(n ? (size_t)n : 1, sizeof *v);
  if (!v) abort();
  for (int i = 0; i < n; i++) {
    snprintf(v[i].name, sizeof v[i].name, "%s", c[i].name);
    v[i].leir = c[i].leir; /* owned by v now */
    v[i].decls = c[i].decls;
    free(c[i].name);
  }
  free(c);
  *out = v;
  return n;
}

/* A context whose diagnostics go to a memory stream. */
typedef struct Cx {
  LeirCtx ctx;
  char *diag;
  size_t len, checked;
  FILE *f;
} Cx;

static void cx_init(Cx *c) {
  leir_ctx_init(&c->ctx);
  c->diag = NULL;
  c->len = c->checked = 0;
  c->f = open_memstream(&c->diag, &c->len);
  if (!c->f) abort();
  c->ctx.diag_out = c->f;
  c->ctx.no_warnings = true;
  c->ctx.quiet_caret = true;
}

static void cx_free(Cx *c) {
  fclose(c->f);
  free(c->diag);
  leir_ctx_free(&c->ctx);
}

/* The diagnostics since the last call (static buffer, truncated). */
static const char *cx_new_diags(Cx *c) {
  static char buf[2048];
  fflush(c->f);
  size_t n = c->len - c->checked;
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, c->diag + c->checked, n);
  buf[n] = '\0';
  c->checked = c->len;
  for (char *p = buf; *p; p++)
    if (*p == '\n' && p[1]) *p = ' ';
  return buf;
}

static bool has_internal(const char *s) { return strstr(s, "internal") != NULL; }

static IrProgram *load(Cx *c, const Prog *pr) {
  leir_ctx_set_source(&c->ctx, pr->leir, pr->text, strlen(pr->text));
  IrProgram *p = ps_parse(&c->ctx);
  if (!p) return NULL;
  IrDeclList side = {0};
  if (pr->decls && !ir_decls_load_json(&c->ctx, pr->decls, &side)) return NULL;
  return ir_sema(&c->ctx, p, pr->decls ? &side : NULL) ? p : NULL;
}

/* Statement executions of one run (corpus_walk.h). */
static uint64_t work(const IrProgram *p) { return (uint64_t)corpus_work(p); }

/* ------------------------------------------------------------ one sequence */

static void report(const Opts *o, Counts *k, long i, const Prog *pr, const char *what, const char *pipeline,
                   const char *detail) {
  (void)o;
  (void)k;
  printf("FAIL sequence %ld (%s): %s\n", i, pr->name, what);
  printf("  steps: %s\n", pipeline[0] ? pipeline : "(none)");
  if (detail && *detail) printf("  detail: %s\n", detail);
  printf("  reproduce: leirc -w%s%s -O '%s' --verify %s\n", pr->decls ? " --decls=" : "",
         pr->decls ? pr->decls : "", pipeline, pr->leir);
  fflush(stdout);
}

/* Compares the final program b with the original a on the inputs of
 * `seed`: the verdict, or -1 if a run failed. */
static int compare(LeirCtx *ctx, const IrProgram *a, const IrProgram *b, uint64_t seed, CmpTolerance tol,
                   uint64_t max_steps, InterpDiff *d) {
  InterpOptions ro = {false, max_steps};
  InterpProg *x = interp_new(ctx, a, &ro), *y = x ? interp_new(ctx, b, &ro) : NULL;
  int v = -1;
  if (x && y && interp_same_signature(ctx, a, b, "the original", "the final program")) {
    InterpCompareOpts co = {1, seed, tol, ro, 0, NULL, NULL, NULL};
    if (interp_compare_progs(x, y, &co, d) == 0) v = (int)d->verdict;
  }
  if (y) interp_free(y);
  if (x) interp_free(x);
  return v;
}

static void one_sequence(const Opts *o, Counts *k, long i, const Prog *progs, const int *elig, int nelig) {
  uint64_t rng = mix(o->seed ^ mix((uint64_t)i));
  const Prog *pr = &progs[elig[next(&rng) % (uint64_t)nelig]];
  int len = 1 + (int)(next(&rng) % (uint64_t)o->max_len);
  Cx c;
  cx_init(&c);
  LeirCtx *ctx = &c.ctx;
  IrProgram *orig = load(&c, pr), *p = orig;
  cx_new_diags(&c);
  k->sequences++;
  /* each step may add work (a staging copy, a split reduction) */
  uint64_t budget = 16 * o->max_work + 1000;
  const char *pipeline = "";
  bool all_e = true;
  int applied = 0;
  for (int step = 0; step < len; step++) {
    PtrVec legal = {0};
    for (int j = 0; j < pass_table_size; j++) pass_enumerate_legal(ctx, p, &pass_table[j], &legal);
    const char *dg = cx_new_diags(&c);
    if (has_internal(dg)) {
      k->internal++;
      report(o, k, i, pr, "an internal error while enumerating candidates", pipeline, dg);
    }
    if (!legal.n) {
      k->ended_early++;
      break;
    }
    PassCand *cand = legal.v[next(&rng) % (uint64_t)legal.n];
    const char *sp = pass_cand_spelling(ctx, cand);
    const char *name = arena_printf(&ctx->arena, "%s%s%s", pipeline, pipeline[0] ? "," : "", sp);
    const char *reason = NULL;
    IrProgram *q = pass_apply(ctx, p, cand, &reason);
    dg = cx_new_diags(&c);
    if (!q) {
      bool internal = (reason && has_internal(reason)) || has_internal(dg);
      if (internal) k->internal++;
      else k->refusals++;
      report(o, k, i, pr, internal ? "a legal candidate fails with an internal error"
                                   : "a legal candidate does not apply", name, reason ? reason : dg);
      break;
    }
    if (work(q) > budget) { /* too slow to check: the sequence ends here */
      k->unchecked++;
      break;
    }
    InterpCheckOptions co = {0, budget};
    char cls = cand->cls == PASS_T ? 'T' : 'E';
    int v = interp_check_step(ctx, p, q, cls, 1, name, &co);
    dg = cx_new_diags(&c);
    if (has_internal(dg)) {
      k->internal++;
      report(o, k, i, pr, "an internal error while verifying", name, dg);
    }
    if (v == 2) {
      k->unchecked++;
      break;
    }
    if (v == 1 && cls == 'T') { /* --verify refuses it; go on without it */
      k->t_rejected++;
      continue;
    }
    if (v == 1) {
      k->miscompiles++;
      report(o, k, i, pr, "MISCOMPILE: --verify rejects a class E step", name, dg);
      cx_free(&c);
      return;
    }
    k->steps++;
    if (cls == 'E') k->steps_e++;
    else k->steps_t++;
    all_e &= cls == 'E';
    applied++;
    p = q;
    pipeline = name;
  }
  if (applied == 0) {
    cx_free(&c);
    return;
  }
  if (all_e) k->all_e++;
  uint64_t seed = 1000003 + (uint64_t)i;
  InterpDiff d;
  int v = compare(ctx, orig, p, seed, all_e ? CMP_EXACT : CMP_DEFAULT, budget, &d);
  const char *dg = cx_new_diags(&c);
  if (has_internal(dg)) {
    k->internal++;
    report(o, k, i, pr, "an internal error while comparing", pipeline, dg);
  }
  if (v < 0) {
    k->unchecked++;
  } else if (v == CMP_EQUAL) {
    k->equal++;
  } else if (v == CMP_CLOSE) {
    k->close++;
  } else {
    k->differ++;
    char at[256];
    interp_format_coords(at, sizeof at, d.tensor, d.index);
    const char *detail = arena_printf(&ctx->arena, "output '%s' at %s (seed %" PRIu64 "): %s original, %s final",
                                      d.tensor->name, at, seed, d.a_text, d.b_text);
    InterpDiff r;
    if (!all_e && compare(ctx, orig, p, seed, CMP_REFERENCE, budget, &r) == CMP_CLOSE) {
      k->differ_ref_ok++;
      if (!o->quiet) printf("note: sequence %ld (%s): T steps beyond the default tolerance, within the "
                            "reference's rule: %s\n  steps: %s\n", i, pr->name, detail, pipeline);
    } else {
      k->miscompiles++;
      report(o, k, i, pr, all_e ? "MISCOMPILE: an all-E sequence is not bit-equal (leirc --compare "
                                  "--tolerance=exact)" : "MISCOMPILE: the result differs even under the "
                                  "reference's rule", pipeline, detail);
    }
    cx_new_diags(&c);
  }
  cx_free(&c);
}

/* ------------------------------------------------------------ main */

static bool num(const char *s, uint64_t *v) {
  char *end;
  if (!s || !*s) return false;
  *v = strtoull(s, &end, 10);
  return !*end;
}

static int usage(void) {
  fprintf(stderr, "usage: campaign [--corpus DIR] [--seed N] [--sequences N] [--first I] [--max-len L]\n"
                  "                [--max-bytes B] [--max-work W] [--quiet]\n");
  return 2;
}

int main(int argc, char **argv) {
  Opts o = {NULL, 0, 10000, 0, 10, 4 << 20, 300000, false};
  char dflt[4200];
  corpus_dir(dflt, sizeof dflt, "..");
  o.corpus = dflt;
  for (int a = 1; a < argc; a++) {
    uint64_t v;
    const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(arg, "--quiet")) { o.quiet = true; continue; }
    if (!strcmp(arg, "--corpus") && val) o.corpus = val;
    else if (!strcmp(arg, "--seed") && num(val, &v)) o.seed = v;
    else if (!strcmp(arg, "--sequences") && num(val, &v) && v <= 100000000) o.sequences = (long)v;
    else if (!strcmp(arg, "--first") && num(val, &v) && v <= 100000000) o.first = (long)v;
    else if (!strcmp(arg, "--max-len") && num(val, &v) && v >= 1 && v <= 100) o.max_len = (int)v;
    else if (!strcmp(arg, "--max-bytes") && leir_parse_size(val, &v)) o.max_bytes = v;
    else if (!strcmp(arg, "--max-work") && num(val, &v)) o.max_work = v;
    else return usage();
    a++;
  }
  Prog *progs;
  int n = list_programs(o.corpus, &progs);
  if (n == 0) {
    printf("campaign: no corpus programs under %s/programs: SKIP\n", o.corpus);
    return 77;
  }
  int *elig = malloc(sizeof(int) * (size_t)n), nelig = 0;
  for (int i = 0; i < n; i++) {
    progs[i].text = leir_read_file(progs[i].leir, NULL);
    if (!progs[i].text) continue;
    Cx c;
    cx_init(&c);
    IrProgram *p = load(&c, &progs[i]);
    if (p && leir_program_bytes(p, NULL) <= o.max_bytes && work(p) <= o.max_work) elig[nelig++] = i;
    cx_free(&c);
  }
  printf("campaign: seed %" PRIu64 ", sequences %ld..%ld, length 1..%d, corpus %s: %d of %d programs eligible "
         "(tensors <= %" PRIu64 " bytes, <= %" PRIu64 " statement executions)\n",
         o.seed, o.first, o.first + o.sequences - 1, o.max_len, o.corpus, nelig, n, o.max_bytes, o.max_work);
  if (!o.quiet)
    for (int i = 0; i < nelig; i++) printf("  eligible: %s\n", progs[elig[i]].name);
  fflush(stdout);
  if (!nelig) return 77;
  Counts k = {0};
  for (long i = o.first; i < o.first + o.sequences; i++) {
    one_sequence(&o, &k, i, progs, elig, nelig);
    if (!o.quiet && (i - o.first + 1) % 500 == 0) {
      printf("progress: %ld sequences, %ld steps, %ld miscompiles\n", i - o.first + 1, k.steps, k.miscompiles);
      fflush(stdout);
    }
  }
  printf("sequences: %ld (all-E: %ld)\n", k.sequences, k.all_e);
  printf("steps applied: %ld (class E %ld, class T %ld)\n", k.steps, k.steps_e, k.steps_t);
  printf("final compare: equal %ld, close %ld, differ %ld (of which within the reference's rule %ld), "
         "not compared %ld\n", k.equal, k.close, k.differ, k.differ_ref_ok,
         k.sequences - k.equal - k.close - k.differ);
  printf("refusals: legal candidates that did not apply %ld; class T steps --verify rejected %ld; "
         "steps too large to check %ld; sequences out of candidates %ld\n",
         k.refusals, k.t_rejected, k.unchecked, k.ended_early);
  printf("miscompiles: %ld\n", k.miscompiles);
  printf("internal errors: %ld\n", k.internal);
  for (int i = 0; i < n; i++) {
    free(progs[i].leir);
    free(progs[i].decls);
    free(progs[i].text);
  }
  free(progs);
  free(elig);
  return k.miscompiles || k.internal || k.refusals ? 1 : 0;
}
