/* steps_cache.h -- repeated work removed from `leirc --emit-steps`
 * (issue 61): the verdicts of the candidates of one program by the
 * canonical text of the program after the step (a second candidate with
 * the same text gets the first one's verdict: its run could tell nothing
 * new), and --steps-cache=DIR, the outputs of the program before the steps
 * on disk, shared by runs, shards and worker processes.  The key of both
 * is the program's canonical text (every tensor declaration, the body)
 * with everything else its run depends on; the whole key is kept beside
 * the value and compared byte for byte, so a hash collision is a miss. */
#ifndef LEIR_DRIVER_STEPS_CACHE_H
#define LEIR_DRIVER_STEPS_CACHE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "interp/interp.h"
#include "ir/ir.h"

/* A key: text (malloc'd, NUL-terminated), its length and its hash. */
typedef struct StepsKey {
  char *text;
  size_t len;
  uint64_t hash;
} StepsKey;

/* The key of one run of p on the inputs of `seed`: p's canonical text,
 * `tag` (what else the run depends on, e.g. the engine and the class) and
 * the context's semantic flags (--fp-contract, --unsafe-math).  False when
 * out of memory. */
bool steps_key(StepsKey *k, const IrProgram *p, uint64_t seed, const char *tag, bool fp_contract, bool unsafe_math);
void steps_key_free(StepsKey *k);

/* The verdicts of one program's candidates, by key. */
typedef struct StepsMemoEnt {
  StepsKey key;
  int verdict;  /* check_step's: 1, 0 or -1 */
  char *text;   /* the verification text (malloc'd) */
} StepsMemoEnt;
typedef struct StepsMemo {
  StepsMemoEnt *v;
  int n, cap;
  long hits, misses; /* steps_memo_find's answers */
} StepsMemo;

/* The entry whose key equals k, else NULL. */
const StepsMemoEnt *steps_memo_find(StepsMemo *m, const StepsKey *k);
/* Adds k (taken over: the memo frees it) -> (verdict, text copied).  False
 * when out of memory (k is freed then). */
bool steps_memo_add(StepsMemo *m, StepsKey *k, int verdict, const char *text);
void steps_memo_free(StepsMemo *m);

/* --steps-cache=DIR: fills the outputs of `a` (made from the program of k,
 * its inputs filled) from DIR's entry of k, and the intermediates the
 * entry holds (*tmps set to whether it holds all of them, known[id] to
 * whether it holds intermediate id; tmps and known may be NULL): the
 * values a program after a step run from its middle starts from
 * (driver/incr.c).  False on a miss (no entry, an entry of another key, a
 * size that does not fit, a read error); `a`'s outputs are then undefined
 * and the program must be run. */
bool steps_cache_load(const char *dir, const StepsKey *k, InterpProg *a, bool *tmps, unsigned char *known);
/* steps_cache_load reading only the outputs when e is not NULL: the
 * intermediates the entry holds (known) are read into `a` when
 * steps_cache_fetch is asked for them (want: per tensor id), from the
 * file kept open in *e (the same entry even if it is replaced meanwhile)
 * until steps_cache_close.  steps_cache_fetch is false when one cannot be
 * read (its bytes in `a` are then undefined). */
typedef struct StepsEntry {
  bool open;
  int fd;       /* the entry's file, while open */
  int64_t *off; /* per tensor id: where its bytes are, -1 when not held or read */
  int64_t *at;  /* per tensor id: where the bytes mapped into `a` are, else -1 */
  bool map;     /* the file may be mapped (a local file system) */
  int n;
} StepsEntry;
/* The tensors of an entry of at least this many bytes are mapped into the
 * buffers of the program that reads them (interp_buf_map), instead of read
 * into its fresh ones: their pages are the page cache's, touched only where
 * used.  (A file is replaced by rename: never cut short in place while
 * mapped, which would make a read of the cut pages raise SIGBUS.  On a
 * network or FUSE file system, where another machine may replace or remove
 * it, an entry is read, not mapped.) */
#define STEPS_CACHE_MAP_BYTES ((size_t)64 << 10)
bool steps_cache_open(const char *dir, const StepsKey *k, InterpProg *a, bool *tmps, unsigned char *known,
                      StepsEntry *e);
bool steps_cache_fetch(StepsEntry *e, InterpProg *a, const unsigned char *want);
/* Gives tensor bi of b the bytes of tensor ai of `a` (the same size) when
 * e mapped them into `a`, by mapping the same pages of the open entry
 * (copy on write: no copy made, b's writes its own), instead of a copy;
 * the caller must not have written a's buffer since.  False when they are
 * not mapped (copy them). */
bool steps_cache_share(const StepsEntry *e, InterpProg *a, int ai, InterpProg *b, int bi);
void steps_cache_close(StepsEntry *e);
/* An entry keeps all the intermediates of its program when they are at
 * most this many bytes in all (the disk space of a whole corpus's entries
 * stays that of its outputs and small intermediates)... */
#define STEPS_CACHE_TMP_BYTES ((size_t)64 << 20)
/* ... else those that `live` marks (drv_incr_keep_tmps: those the
 * programs after the steps are expected to start from), in tensor order
 * while they fit in this many bytes in all (an entry is at most this
 * larger than its outputs). */
#define STEPS_CACHE_KEEP_BYTES ((size_t)256 << 20)
/* Writes the outputs of `a` (run) and its intermediates as above (live:
 * per tensor id, may be NULL: none but within STEPS_CACHE_TMP_BYTES) as
 * DIR's entry of k: a file written aside and renamed into place, so that
 * concurrent workers never read a partial one.  False when it cannot be
 * written (the run goes on). */
bool steps_cache_store(const char *dir, const StepsKey *k, InterpProg *a, const unsigned char *live);

/* The outputs of the programs before the steps run last in one process,
 * and their intermediates within STEPS_CACHE_TMP_BYTES (steps_outs_load
 * sets *tmps, which may be NULL, to whether it restored them), by key, in
 * memory: `leirc --eval`'s worker keeps them, so that the
 * predictions for one program (records with the same before) run that
 * program once.  At most STEPS_OUTS_MAX entries and STEPS_OUTS_BYTES bytes
 * of outputs in all; the least recently used entry goes first. */
enum { STEPS_OUTS_MAX = 4 };
#define STEPS_OUTS_BYTES ((size_t)1 << 30)
typedef struct StepsOutsEnt {
  StepsKey key;
  unsigned char *data; /* the outputs in tensor order, one after another */
  size_t nbytes;
  uint64_t used;       /* StepsOuts.clock when last stored or loaded */
  bool tmps;           /* the intermediates follow the outputs */
} StepsOutsEnt;
typedef struct StepsOuts {
  StepsOutsEnt v[STEPS_OUTS_MAX];
  int n;
  uint64_t clock;
  long hits, misses; /* steps_outs_load's answers */
} StepsOuts;

/* Fills the outputs of `a` (made from the program of k, its inputs
 * filled) from c's entry of k.  False on a miss (no entry, or one whose
 * size does not fit); `a`'s outputs are then untouched. */
bool steps_outs_load(StepsOuts *c, const StepsKey *k, InterpProg *a, bool *tmps);
/* Keeps a copy of the outputs of `a` (run) as c's entry of k, which it
 * takes over (freed when not kept: out of memory, or outputs larger than
 * STEPS_OUTS_BYTES). */
void steps_outs_store(StepsOuts *c, StepsKey *k, InterpProg *a);
void steps_outs_free(StepsOuts *c);

/* --steps-cache=DIR also keeps the first pass of each input
 * (driver/steps_enum.c): its candidates' strategies (pass_table indices)
 * and the diagnostics its load printed, in DIR/enum.  steps_enum_key: the
 * key of input (its path and bytes), decls (NULL: none; its path and
 * bytes) and opts (the options the load depends on, as text) for the
 * build of the object holding addr (its GNU build ID); false when there is
 * none or a file cannot be read (not cached).  steps_enum_load: false on a
 * miss, else *strat and *diag malloc'd. */
bool steps_enum_key(StepsKey *k, const void *addr, const char *input, const char *decls, const char *opts);
bool steps_enum_load(const char *dir, const StepsKey *k, int *ncand, int **strat, char **diag);
bool steps_enum_store(const char *dir, const StepsKey *k, int ncand, const int *strat, const char *diag);

#endif
