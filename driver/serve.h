/* serve.h -- `leirc --serve`: the compiler as a long-lived JSON-RPC 2.0
 * server on stdin/stdout, one message a line, with the conventions of the
 * Model Context Protocol (MCP) stdio transport: initialize, tools/list,
 * tools/call, ping (leirc(1), SERVER).
 *
 *   serve.c        the transport: framing, JSON-RPC errors, MCP methods
 *   serve_tools.c  the tools: their schemas and what each one does
 *   serve_store.c  the programs the server keeps, by id
 *
 * Every request works in a LeirCtx of its own, made from a program's
 * stored canonical text and freed at the end of the request: what the
 * server keeps between requests is the text and the history of each
 * program, nothing else. */
#ifndef LEIR_DRIVER_SERVE_H
#define LEIR_DRIVER_SERVE_H

#include "driver/driver.h"

#include <jansson.h>

/* Defaults of --max-programs, --max-request and of --max-steps under
 * --serve (the command line's 10^11 would let one request run for hours). */
#define SRV_DEFAULT_MAX_PROGRAMS 1000
#define SRV_DEFAULT_MAX_REQUEST ((size_t)16 << 20)
#define SRV_DEFAULT_MAX_STEPS 1000000000ull
/* The stored texts together stay under this many bytes (oldest evicted). */
#define SRV_MAX_STORE_BYTES ((size_t)256 << 20)

/* ------------------------------------------------------------ the store */

typedef struct SrvProgram {
  char id[24];      /* "p1", "p2", ... */
  char *text;       /* the canonical program with its declaration header */
  json_t *history;  /* array of {spelling, class, from}: the steps from the
                       program that was loaded */
  uint64_t used;    /* the store's clock at the last use */
} SrvProgram;

typedef struct SrvStore {
  SrvProgram *v;
  int n, cap;
  int max;          /* --max-programs */
  size_t bytes;     /* of the texts */
  uint64_t next_id; /* the number of the next id */
  uint64_t clock;
} SrvStore;

void srv_store_init(SrvStore *st, int max);
void srv_store_free(SrvStore *st);
/* Keeps a copy of `text` and takes `history`; evicts the least recently
 * used programs first when the store is full.  The new id, or NULL when
 * out of memory. */
const char *srv_store_add(SrvStore *st, const char *text, json_t *history);
/* The program `id` (its use noted), or NULL with *why set (a message). */
SrvProgram *srv_store_get(SrvStore *st, const char *id, char *why, size_t n);

/* ------------------------------------------------------------ the server */

typedef struct Srv {
  DrvOptions opts;     /* the command line's options: the base of each request */
  SrvStore store;
  size_t max_request;  /* --max-request: bytes of one request line */
  json_t *tools;       /* the tools/list array, made once */
} Srv;

/* serve_tools.c.  The tool table as tools/list answers it (a new array). */
json_t *srv_tools_list(void);
/* Runs tool `name` on `args` (an object).  Returns the structured result
 * (a new reference), or NULL with the message in *err: code -32602 when the
 * tool or its arguments are unknown or malformed (a JSON-RPC error), 0 when
 * the tool failed (an isError result carrying *err). */
json_t *srv_tool_call(Srv *s, const char *name, json_t *args, SBuf *err, int *code);

/* serve.c.  Serves until end of input; the exit status. */
int drv_serve(const DrvOptions *o, int max_programs, size_t max_request);

#endif /* LEIR_DRIVER_SERVE_H */
