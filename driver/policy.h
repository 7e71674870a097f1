/* policy.h -- an external search policy for `leirc --tune` (--policy=CMD,
 * leirc(1), POLICY PROTOCOL): a process started once, that is sent the
 * search's state as one JSON line and answers with one JSON line naming
 * the steps to try, best first.  A policy that crashes, hangs past
 * --policy-timeout or answers nonsense is refused (counted); after a crash
 * or a time-out it is stopped and the search goes on without it. */
#ifndef LEIR_DRIVER_POLICY_H
#define LEIR_DRIVER_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define POLICY_DEFAULT_TIMEOUT 10.0
/* The longest answer line read. */
#define POLICY_MAX_LINE ((size_t)16 << 20)

typedef struct Policy Policy;

/* One candidate step as the policy sees it. */
typedef struct PolicyCand {
  const char *spelling, *strategy, *level, *cls;
  double est;       /* the cost model's estimate (seconds; < 0: none) */
  const char *text; /* the program it makes (canonical, with the header) */
  /* --lookahead: the estimate of the program at the end of the loop_reorder
     steps the search takes after this one if it is kept (est when none),
     and their spellings */
  double look;
  const char *const *path;
  int npath;
} PolicyCand;

/* The state of the search at the program being expanded. */
typedef struct PolicyState {
  const char *program;        /* its text */
  int depth;                  /* steps from the original */
  double cost, original_cost; /* seconds (the search's cost) */
  double est;                 /* the cost model's estimate of it (< 0: none) */
  int nhist;                  /* the steps that led to it, with their costs */
  const char *const *hist_spelling;
  const double *hist_cost;
  int ncands;
  const PolicyCand *cands;
  bool lookahead;             /* send the candidates' look and path */
  int evaluations, budget;    /* programs costed so far, and allowed */
  unsigned long long seed;    /* --seed */
} PolicyState;

/* Starts `/bin/sh -c cmd`.  NULL with the reason in why (n bytes). */
Policy *policy_start(const char *cmd, double timeout_s, char *why, size_t n);

/* Asks for an order of st->cands: writes the indices of the candidates the
 * policy chose, best first, into order (room for st->ncands) and returns
 * how many (0: the policy chose none, i.e. stop here), or -1 when the
 * answer is refused (why says so; counted in policy_refusals). */
int policy_ask(Policy *p, const PolicyState *st, int *order, char *why, size_t n);

int policy_refusals(const Policy *p);
/* Whether the process is still in use (not crashed, timed out or ended). */
bool policy_alive(const Policy *p);

/* Sends {"type":"done"}, closes its input, waits up to the time-out for it
 * to exit (then kills it), and frees p.  NULL is a no-op. */
void policy_stop(Policy *p);

#endif /* LEIR_DRIVER_POLICY_H */
