/* serve.c -- the transport of `leirc --serve` (leirc(1), SERVER): JSON-RPC
 * 2.0 messages, one a line, on stdin/stdout (MCP's stdio transport), and
 * the MCP methods initialize, ping, tools/list and tools/call.  Malformed
 * input of any kind gets a JSON-RPC error and the server reads on. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E_PARSE = -32700, E_REQUEST = -32600, E_METHOD = -32601, E_PARAMS = -32602, E_INTERNAL = -32603 };

/* The protocol versions answered as asked; any other gets the first. */
static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

/* A JSON string of s; bytes that are not UTF-8 become '?'. */
static json_t *jstr(const char *s) {
  json_t *j = json_string(s);
  if (j) return j;
  char *t = strdup(s);
  if (!t) return json_string("(out of memory)");
  for (char *c = t; *c; c++)
    if ((unsigned char)*c >= 0x80) *c = '?';
  j = json_string(t);
  free(t);
  return j;
}

static void send_msg(json_t *msg) {
  char *s = json_dumps(msg, JSON_COMPACT);
  if (s) {
    fputs(s, stdout);
    fputc('\n', stdout);
    fflush(stdout);
  }
  free(s);
  json_decref(msg);
}

static void send_error(json_t *id, int code, const char *message) {
  json_t *err = json_pack("{s:i, s:o}", "code", code, "message", jstr(message));
  send_msg(json_pack("{s:s, s:O?, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", err));
}

static void send_result(json_t *id, json_t *result) {
  send_msg(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

/* ------------------------------------------------------------ methods */

static json_t *initialize(json_t *params, const char **bad) {
  json_t *v = json_object_get(params, "protocolVersion");
  if (!json_is_string(v)) {
    *bad = "initialize: params.protocolVersion must be a string";
    return NULL;
  }
  const char *ver = versions[0];
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
    if (!strcmp(json_string_value(v), versions[i])) ver = versions[i];
  return json_pack("{s:s, s:{s:{}}, s:{s:s, s:s}}", "protocolVersion", ver, "capabilities", "tools", "serverInfo",
                   "name", "leirc", "version", PACKAGE_VERSION);
}

/* tools/call: the result object, or NULL with a JSON-RPC error in *code and
 * *err. */
static json_t *call_tool(Srv *s, json_t *params, int *code, SBuf *err) {
  json_t *name = json_object_get(params, "name"), *args = json_object_get(params, "arguments");
  if (!json_is_string(name) || (args && !json_is_object(args))) {
    *code = E_PARAMS;
    sbuf_puts(err, "tools/call: params must be {name: string, arguments?: object}");
    return NULL;
  }
  json_t *empty = args ? NULL : json_object();
  json_t *res = srv_tool_call(s, json_string_value(name), args ? args : empty, err, code);
  json_decref(empty);
  if (!res && *code) return NULL;
  json_t *text;
  if (res) {
    char *t = json_dumps(res, JSON_COMPACT);
    text = jstr(t ? t : "{}");
    free(t);
  } else {
    text = jstr(err->s ? err->s : "failed");
  }
  json_t *out = json_pack("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text", text, "isError", !res);
  if (res) json_object_set_new(out, "structuredContent", res);
  return out;
}

/* One parsed message. */
static void dispatch(Srv *s, json_t *msg) {
  if (!json_is_object(msg)) {
    send_error(NULL, E_REQUEST, json_is_array(msg) ? "batches are not supported: send one request a line"
                                                   : "a request must be a JSON object");
    return;
  }
  json_t *id = json_object_get(msg, "id"), *method = json_object_get(msg, "method"),
         *params = json_object_get(msg, "params");
  bool good_id = json_is_string(id) || json_is_integer(id);
  if (id && !good_id) {
    send_error(NULL, E_REQUEST, "the id must be a string or an integer");
    return;
  }
  const char *jv = json_string_value(json_object_get(msg, "jsonrpc"));
  if (!jv || strcmp(jv, "2.0") || !json_is_string(method) || (params && !json_is_object(params) &&
                                                               !json_is_array(params))) {
    /* a response from the client (result or error, no method) is ignored */
    if (!method && id && (json_object_get(msg, "result") || json_object_get(msg, "error"))) return;
    send_error(id, E_REQUEST, "not a JSON-RPC 2.0 request: jsonrpc \"2.0\", a string method, params an object");
    return;
  }
  const char *m = json_string_value(method);
  if (!id) return; /* a notification (notifications/initialized, .../cancelled, ...): nothing to answer */
  if (params && !json_is_object(params)) {
    send_error(id, E_PARAMS, "params must be an object");
    return;
  }
  if (!strcmp(m, "ping")) {
    send_result(id, json_object());
  } else if (!strcmp(m, "initialize")) {
    const char *bad = NULL;
    json_t *r = initialize(params, &bad);
    if (r) send_result(id, r);
    else send_error(id, E_PARAMS, bad);
  } else if (!strcmp(m, "tools/list")) {
    send_result(id, json_pack("{s:O}", "tools", s->tools));
  } else if (!strcmp(m, "tools/call")) {
    SBuf err = {0};
    int code = 0;
    json_t *r = call_tool(s, params, &code, &err);
    if (r) send_result(id, r);
    else send_error(id, code ? code : E_INTERNAL, err.s ? err.s : "internal error");
    sbuf_free(&err);
  } else {
    SBuf b = {0};
    sbuf_printf(&b, "method not found: '%.100s'", m);
    send_error(id, E_METHOD, b.s);
    sbuf_free(&b);
  }
}

/* ------------------------------------------------------------ the loop */

/* Reads one line (without '\n') into *buf; a line longer than `limit` is
 * read to its end and dropped (*too_long).  False at end of input with
 * nothing read. */
static bool read_line(FILE *in, char **buf, size_t *len, size_t *cap, size_t limit, bool *too_long) {
  *len = 0;
  *too_long = false;
  bool any = false;
  int c;
  while ((c = getc_unlocked(in)) != EOF) {
    any = true;
    if (c == '\n') break;
    if (*too_long) continue;
    if (*len >= limit) {
      *too_long = true;
      continue;
    }
    if (*len + 1 >= *cap) {
      size_t nc = *cap ? *cap * 2 : 65536;
      char *nb = realloc(*buf, nc);
      if (!nb) {
        *too_long = true;
        continue;
      }
      *buf = nb;
      *cap = nc;
    }
    (*buf)[(*len)++] = (char)c;
  }
  if (*buf) (*buf)[*len] = '\0';
  return any;
}

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
  return true;
}

int drv_serve(const DrvOptions *o, int max_programs, size_t max_request) {
  Srv s;
  memset(&s, 0, sizeof s);
  s.opts = *o;
  s.opts.run.ninputs = 0;
  s.opts.run.output_dir = NULL;
  s.opts.run.print_outputs = false;
  s.opts.run.json = false;
  if (!o->steps.max_steps_given) s.opts.run.max_steps = SRV_DEFAULT_MAX_STEPS;
  s.max_request = max_request ? max_request : SRV_DEFAULT_MAX_REQUEST;
  srv_store_init(&s.store, max_programs);
  s.tools = srv_tools_list();
  char *buf = NULL;
  size_t len, cap = 0;
  bool too_long;
  while (read_line(stdin, &buf, &len, &cap, s.max_request, &too_long)) {
    if (too_long) {
      char m[128];
      snprintf(m, sizeof m, "the request is longer than %zu bytes (--max-request)", s.max_request);
      send_error(NULL, E_REQUEST, m);
      continue;
    }
    if (blank(buf, len)) continue;
    json_error_t je;
    json_t *msg = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!msg) {
      /* valid JSON that jansson cannot hold (an integer beyond 64 bits, a
         real beyond double) is an invalid request, not a parse error */
      bool range = strstr(je.text, "too big") || strstr(je.text, "overflow");
      char m[256];
      snprintf(m, sizeof m, "%s: %s (column %d)", range ? "a number is out of range" : "parse error", je.text,
               je.column);
      send_error(NULL, range ? E_REQUEST : E_PARSE, m);
      continue;
    }
    dispatch(&s, msg);
    json_decref(msg);
  }
  free(buf);
  json_decref(s.tools);
  srv_store_free(&s.store);
  return 0;
}
