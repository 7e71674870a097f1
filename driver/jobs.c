/* jobs.c -- `-j N` for --emit-steps: items 0..n-1 (programs) computed by N
 * forked worker processes, written out in the order of the items, so that
 * the output is byte-identical for every N.
 *
 * A free worker takes the next item from a counter in shared memory, runs
 * the item's function with two memory streams (its output and its
 * diagnostics) and appends them, framed by a header line
 * "ITEM OUTLEN DIAGLEN FLAGS\n", to its own temporary file.  When every
 * worker has finished, the parent copies the items' output to `out` and
 * their diagnostics to `diag`, item by item.
 */
#define _DEFAULT_SOURCE
#include "config.h"
#include "driver/driver.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct Chunk {
  int w;          /* the worker's file (-1: missing) */
  long off;       /* where its bytes start */
  size_t olen, dlen;
  int flags;
} Chunk;

static void worker(long n, DrvJobFn fn, void *arg, atomic_long *next, FILE *tmp) {
  for (;;) {
    long i = atomic_fetch_add(next, 1);
    if (i >= n) break;
    char *ob = NULL, *db = NULL;
    size_t ol = 0, dl = 0;
    FILE *o = open_memstream(&ob, &ol), *d = open_memstream(&db, &dl);
    if (!o || !d) _exit(3);
    int flags = fn(arg, i, o, d);
    if (fclose(o) || fclose(d)) _exit(3);
    if (fprintf(tmp, "%ld %zu %zu %d\n", i, ol, dl, flags) < 0 || fwrite(ob, 1, ol, tmp) != ol ||
        fwrite(db, 1, dl, tmp) != dl)
      _exit(3);
    free(ob);
    free(db);
  }
  _exit(fflush(tmp) ? 3 : 0);
}

static bool copy_bytes(FILE *from, FILE *to, size_t n) {
  char buf[65536];
  while (n > 0) {
    size_t k = n < sizeof buf ? n : sizeof buf;
    if (fread(buf, 1, k, from) != k || fwrite(buf, 1, k, to) != k) return false;
    n -= k;
  }
  return true;
}

bool drv_jobs_run(long n, int nw, DrvJobFn fn, void *arg, FILE *out, FILE *diag, int *flags, char *err,
                  size_t errn) {
  *flags = 0;
  if (nw > n) nw = n > 0 ? (int)n : 1;
  FILE **tmp = calloc((size_t)nw, sizeof *tmp);
  pid_t *pid = calloc((size_t)nw, sizeof *pid);
  Chunk *ch = calloc((size_t)n + 1, sizeof *ch);
  atomic_long *next = mmap(NULL, sizeof *next, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  bool ok = tmp && pid && ch && next != MAP_FAILED;
  if (!ok) snprintf(err, errn, "out of memory");
  if (ok) atomic_init(next, 0);
  for (long i = 0; ch && i < n; i++) ch[i].w = -1;
  fflush(out);
  fflush(diag);
  fflush(stdout);
  fflush(stderr);
  int started = 0;
  for (int w = 0; ok && w < nw; w++) {
    if (!(tmp[w] = tmpfile()) || (pid[w] = fork()) < 0) {
      snprintf(err, errn, "cannot start a worker: %s", strerror(errno));
      ok = false;
      break;
    }
    if (pid[w] == 0) worker(n, fn, arg, next, tmp[w]);
    started++;
  }
  for (int w = 0; w < started; w++) {
    int st = 0;
    if (waitpid(pid[w], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      if (ok) {
        if (WIFSIGNALED(st)) snprintf(err, errn, "a worker died (signal %d)", WTERMSIG(st));
        else snprintf(err, errn, "a worker failed (exit status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      }
      ok = false;
    }
  }
  /* the index of every worker's file */
  for (int w = 0; ok && w < nw; w++) {
    rewind(tmp[w]);
    long i;
    size_t ol, dl;
    int fl;
    while (fscanf(tmp[w], "%ld %zu %zu %d", &i, &ol, &dl, &fl) == 4 && fgetc(tmp[w]) == '\n') {
      if (i < 0 || i >= n) break;
      ch[i] = (Chunk){w, ftell(tmp[w]), ol, dl, fl};
      if (fseek(tmp[w], (long)(ol + dl), SEEK_CUR)) break;
    }
  }
  for (long i = 0; ok && i < n; i++) {
    Chunk *c = &ch[i];
    if (c->w < 0) {
      snprintf(err, errn, "internal error: no result for item %ld", i);
      ok = false;
      break;
    }
    *flags |= c->flags;
    if (fseek(tmp[c->w], c->off, SEEK_SET) || !copy_bytes(tmp[c->w], out, c->olen) ||
        !copy_bytes(tmp[c->w], diag, c->dlen)) {
      snprintf(err, errn, "cannot write: %s", strerror(errno));
      ok = false;
    }
  }
  for (int w = 0; tmp && w < nw; w++)
    if (tmp[w]) fclose(tmp[w]);
  if (next != MAP_FAILED && next) munmap(next, sizeof *next);
  free(tmp);
  free(pid);
  free(ch);
  return ok;
}
