/* policy.c -- the external search policy of `leirc --tune --policy=CMD`:
 * the process and its JSON-lines protocol (leirc(1), POLICY PROTOCOL).
 *
 * leirc -> policy, one line per program expanded:
 *   {"type":"state","program":TEXT,"depth":D,"cost":S,"original_cost":S0,
 *    "estimate":E, *    "history":[{"spelling":..,"cost":..}],"candidates":[{"spelling":..,
 *    "strategy":..,"level":..,"class":..,"estimate":..,
 *    "lookahead_estimate":..,"lookahead_path":[SPELLING,..]}],
 *    "evaluations":N,"budget":B,"seed":K}
 * (the lookahead keys unless --lookahead=0; a policy that does not know
 * them ignores them)
 * policy -> leirc, one line:
 *   {"choices":["SPELLING", ...]}                 best first
 *   {"choices":[{"spelling":..,"score":X}, ...]}  highest score first
 *   {"program":TEXT}                              the program it wants: the
 *                                                 candidate that makes it
 *   {"choices":[]} or {"stop":true}               nothing more from here
 * Spellings that are not among the candidates are ignored; an answer with
 * none of them, bad JSON or the wrong shape is refused.  At the end leirc
 * sends {"type":"done"} and closes the policy's input. */
#define _POSIX_C_SOURCE 200809L
#include "driver/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct Policy {
  pid_t pid;
  int to, from;        /* its stdin, its stdout */
  double timeout;
  bool dead;
  int refusals;
  char *buf;           /* what was read past the last line */
  size_t len, cap;
  struct sigaction old_pipe;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

Policy *policy_start(const char *cmd, double timeout_s, char *why, size_t n) {
  int in[2], out[2];
  if (pipe(in)) {
    snprintf(why, n, "cannot start the policy: %s", strerror(errno));
    return NULL;
  }
  if (pipe(out)) {
    snprintf(why, n, "cannot start the policy: %s", strerror(errno));
    close(in[0]);
    close(in[1]);
    return NULL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, n, "cannot start the policy: %s", strerror(errno));
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return NULL;
  }
  if (pid == 0) {
    setpgid(0, 0); /* its own process group: killed together with its children */
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  close(in[0]);
  close(out[1]);
  Policy *p = calloc(1, sizeof *p);
  if (!p) {
    close(in[1]), close(out[0]);
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
    snprintf(why, n, "cannot start the policy: out of memory");
    return NULL;
  }
  p->pid = pid;
  p->to = in[1];
  p->from = out[0];
  p->timeout = timeout_s > 0 ? timeout_s : POLICY_DEFAULT_TIMEOUT;
  fcntl(p->to, F_SETFL, fcntl(p->to, F_GETFL) | O_NONBLOCK);
  fcntl(p->from, F_SETFL, fcntl(p->from, F_GETFL) | O_NONBLOCK);
  /* a policy that exits must not take leirc with it (SIGPIPE) */
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &p->old_pipe);
  return p;
}

int policy_refusals(const Policy *p) { return p ? p->refusals : 0; }
bool policy_alive(const Policy *p) { return p && !p->dead; }

static void kill_it(Policy *p) {
  if (p->dead) return;
  p->dead = true;
  kill(-p->pid, SIGKILL);
}

/* Writes all of s before `end`; false on a time-out or a closed pipe. */
static bool put(Policy *p, const char *s, size_t len, double end, const char **err) {
  while (len) {
    ssize_t w = write(p->to, s, len);
    if (w > 0) {
      s += w;
      len -= (size_t)w;
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      /* the same words as a read that finds the pipe closed: which of the two
       sees a policy that has exited first is a matter of timing */
      *err = "the policy exited without answering (it crashed, or closed its pipes)";
      return false;
    }
    int ms = (int)((end - now_s()) * 1000);
    struct pollfd pf = {p->to, POLLOUT, 0};
    if (ms <= 0 || poll(&pf, 1, ms) == 0) {
      *err = "the policy did not read its input in time (--policy-timeout)";
      return false;
    }
  }
  return true;
}

/* Reads one line (malloc'd, no '\n') before `end`; NULL with *err. */
static char *get_line(Policy *p, double end, const char **err) {
  for (;;) {
    char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
    if (nl) {
      size_t k = (size_t)(nl - p->buf);
      char *line = malloc(k + 1);
      if (!line) {
        *err = "out of memory";
        return NULL;
      }
      memcpy(line, p->buf, k);
      line[k] = '\0';
      memmove(p->buf, nl + 1, p->len - k - 1);
      p->len -= k + 1;
      return line;
    }
    if (p->len > POLICY_MAX_LINE) {
      *err = "the policy's answer is longer than 16 MiB";
      return NULL;
    }
    if (p->cap - p->len < 65536) {
      size_t nc = p->cap ? p->cap * 2 : 65536 * 2;
      char *nb = realloc(p->buf, nc);
      if (!nb) {
        *err = "out of memory";
        return NULL;
      }
      p->buf = nb;
      p->cap = nc;
    }
    ssize_t r = read(p->from, p->buf + p->len, p->cap - p->len);
    if (r > 0) {
      p->len += (size_t)r;
      continue;
    }
    if (r == 0) {
      *err = "the policy exited without answering (it crashed, or closed its pipes)";
      return NULL;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      *err = "cannot read the policy's answer";
      return NULL;
    }
    int ms = (int)((end - now_s()) * 1000);
    struct pollfd pf = {p->from, POLLIN, 0};
    if (ms <= 0 || poll(&pf, 1, ms) == 0) {
      *err = "the policy did not answer in time (--policy-timeout)";
      return NULL;
    }
  }
}

static json_t *num(double v) { return isfinite(v) && v >= 0 ? json_real(v) : json_null(); }

static char *state_line(const PolicyState *st) {
  json_t *hist = json_array(), *cands = json_array();
  for (int i = 0; i < st->nhist; i++)
    json_array_append_new(hist, json_pack("{s:s, s:o}", "spelling", st->hist_spelling[i], "cost",
                                          num(st->hist_cost[i])));
  for (int i = 0; i < st->ncands; i++) {
    const PolicyCand *c = &st->cands[i];
    json_t *jc = json_pack("{s:s, s:s, s:s, s:s, s:o}", "spelling", c->spelling, "strategy", c->strategy, "level",
                           c->level, "class", c->cls, "estimate", num(c->est));
    if (jc && st->lookahead) {
      json_t *path = json_array();
      for (int k = 0; k < c->npath; k++) json_array_append_new(path, json_string(c->path[k]));
      json_object_set_new(jc, "lookahead_estimate", num(c->look));
      json_object_set_new(jc, "lookahead_path", path);
    }
    json_array_append_new(cands, jc);
  }
  json_t *j = json_pack("{s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:I}", "type", "state", "program",
                        st->program, "depth", st->depth, "cost", num(st->cost), "original_cost",
                        num(st->original_cost), "estimate", num(st->est), "history", hist, "candidates", cands,
                        "evaluations",
                        st->evaluations, "budget", st->budget, "seed", (json_int_t)st->seed);
  char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(j);
  return s;
}

/* The body of a program text without whitespace and '%' header lines, for
 * matching a proposed program with a candidate's. */
static char *body_key(const char *t) {
  char *k = malloc(strlen(t) + 1), *o = k;
  if (!k) return NULL;
  bool line_start = true, header = false;
  for (; *t; t++) {
    if (line_start) header = *t == '%';
    line_start = *t == '\n';
    if (!header && *t != ' ' && *t != '\t' && *t != '\n' && *t != '\r') *o++ = *t;
  }
  *o = '\0';
  return k;
}

/* The answer into order; -1 with *err if it is refused. */
static int parse_answer(const char *line, const PolicyState *st, int *order, const char **err) {
  json_t *j = json_loads(line, 0, NULL);
  if (!json_is_object(j)) {
    json_decref(j);
    *err = "the policy's answer is not a JSON object";
    return -1;
  }
  int n = 0;
  json_t *prog = json_object_get(j, "program"), *choices = json_object_get(j, "choices");
  if (json_is_true(json_object_get(j, "stop"))) {
    json_decref(j);
    return 0;
  }
  if (json_is_string(prog)) {
    char *want = body_key(json_string_value(prog));
    for (int i = 0; want && i < st->ncands && !n; i++) {
      char *k = body_key(st->cands[i].text);
      if (k && !strcmp(k, want)) order[n++] = i;
      free(k);
    }
    free(want);
    json_decref(j);
    if (!n) *err = "the program the policy proposed is not one legal step away";
    return n ? n : -1;
  }
  if (!json_is_array(choices)) {
    json_decref(j);
    *err = "the policy's answer has neither 'choices' (an array) nor 'program' nor 'stop'";
    return -1;
  }
  size_t nc = json_array_size(choices);
  double *score = calloc(nc + 1, sizeof *score);
  bool *used = calloc((size_t)st->ncands + 1, sizeof *used);
  bool scored = false;
  for (size_t k = 0; score && used && k < nc; k++) {
    json_t *c = json_array_get(choices, k);
    const char *sp = json_string_value(json_is_object(c) ? json_object_get(c, "spelling") : c);
    json_t *sc = json_is_object(c) ? json_object_get(c, "score") : NULL;
    if (!sp || (sc && !json_is_number(sc))) continue;
    for (int i = 0; i < st->ncands; i++)
      if (!used[i] && !strcmp(st->cands[i].spelling, sp)) {
        used[i] = true;
        score[n] = sc ? json_number_value(sc) : 0;
        scored |= sc != NULL;
        order[n++] = i;
        break;
      }
  }
  if (scored) /* highest score first, the answer's order among equals */
    for (int a = 1; a < n; a++)
      for (int b = a; b > 0 && score[b] > score[b - 1]; b--) {
        double ts = score[b];
        score[b] = score[b - 1];
        score[b - 1] = ts;
        int to = order[b];
        order[b] = order[b - 1];
        order[b - 1] = to;
      }
  free(score);
  free(used);
  json_decref(j);
  if (nc && !n) {
    *err = "none of the policy's choices is a candidate";
    return -1;
  }
  return n;
}

int policy_ask(Policy *p, const PolicyState *st, int *order, char *why, size_t n) {
  const char *err = NULL;
  if (p->dead) {
    snprintf(why, n, "the policy is no longer running");
    return -1;
  }
  char *s = state_line(st);
  double end = now_s() + p->timeout;
  char *line = NULL;
  if (!s) err = "out of memory";
  else if (put(p, s, strlen(s), end, &err) && put(p, "\n", 1, end, &err)) line = get_line(p, end, &err);
  free(s);
  int k = -1;
  if (line) k = parse_answer(line, st, order, &err);
  else kill_it(p); /* crashed or hung: no more questions */
  free(line);
  if (k < 0) {
    p->refusals++;
    snprintf(why, n, "%s", err ? err : "refused");
  }
  return k;
}

void policy_stop(Policy *p) {
  if (!p) return;
  const char *err;
  static const char done[] = "{\"type\":\"done\"}\n";
  if (!p->dead) put(p, done, sizeof done - 1, now_s() + 1, &err);
  close(p->to);
  close(p->from);
  double end = now_s() + (p->dead ? 0 : p->timeout);
  int st;
  while (waitpid(p->pid, &st, WNOHANG) == 0) {
    if (now_s() >= end) {
      kill(-p->pid, SIGKILL);
      waitpid(p->pid, &st, 0);
      break;
    }
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  sigaction(SIGPIPE, &p->old_pipe, NULL);
  free(p->buf);
  free(p);
}
