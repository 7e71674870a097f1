/* eval_authors.c -- `leirc --eval` on the Step-TP authors' evaluation
 * records (driver/eval.c scores them; man leirc, EVALUATION, has the
 * mapping):
 *
 *   {"prompt": "Give the following IR of NAME: 'PROGRAM', where the known
 *     variables are 'A' with the dtype torch.float32 and shape [128, 1024],
 *     'B' with ... . Do not change ...", "info": ..., "num_IRs": N,
 *    "answer": [{"applied_strategy", "transformed_IR", "CoT"}, ...] or a
 *     string holding that list}
 *
 * The program between the quotes is BEFORE; the variables, in order, are
 * the sidecar's known_names, known_shapes and known_dtype (SPEC 8.2, no
 * input_known_names: the last is the output, the others inputs).  A string
 * answer is read as JSON; when that fails it is repaired as the authors'
 * scorer does (cut after the last `"}` and close the list with `]`) and
 * read again.  Every failure is a located error for that record, never a
 * crash.  Nothing here prints. */
#include "config.h"
#include "driver/driver.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

bool drv_eval_is_authors(const json_t *rec) {
  return json_is_object(rec) && json_object_get(rec, "answer") && json_object_get(rec, "prompt");
}

static const char *const PROMPT_HEAD = "Give the following IR of ";
static const char *const PROMPT_VARS = "', where the known variables are ";

/* Skips spaces at *p. */
static void skip_ws(const char **p) {
  while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') (*p)++;
}

static bool eat(const char **p, const char *word) {
  size_t n = strlen(word);
  if (strncmp(*p, word, n)) return false;
  *p += n;
  return true;
}

/* The variables of the prompt from p on, into the three arrays; NULL, or
 * why not (with *at the offending place). */
static const char *read_vars(LeirCtx *ctx, const char *p, json_t *names, json_t *shapes, json_t *dtypes,
                             const char **at) {
  for (;;) {
    *at = p;
    if (*p != '\'') return "expected 'NAME' with the dtype ... and shape [...]";
    const char *name = ++p;
    while (*p && *p != '\'') p++;
    if (*p != '\'' || p == name) return "expected a quoted variable name";
    const char *name_end = p++;
    *at = p;
    if (!eat(&p, " with the dtype ")) return "expected ' with the dtype '";
    const char *dt = p;
    while (*p && *p != ' ' && *p != ',') p++;
    const char *dt_end = p;
    *at = p;
    if (!eat(&p, " and shape [")) return "expected ' and shape ['";
    json_t *shape = json_array();
    json_array_append_new(shapes, shape);
    skip_ws(&p);
    while (*p != ']') {
      *at = p;
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p || v < 1) return "expected a positive whole number in the shape";
      json_array_append_new(shape, json_integer(v));
      p = end;
      skip_ws(&p);
      if (*p == ',') p++;
      else if (*p != ']') return "expected ',' or ']' in the shape";
      skip_ws(&p);
    }
    p++;
    json_array_append_new(names, json_string(arena_strndup(&ctx->arena, name, (size_t)(name_end - name))));
    const char *dts = arena_strndup(&ctx->arena, dt, (size_t)(dt_end - dt));
    *at = dt;
    if (ir_dtype_from_any(dts) == DT_NONE) return arena_printf(&ctx->arena, "unsupported dtype '%s'", dts);
    json_array_append_new(dtypes, json_string(dts));
    /* ", 'B' ...", ", and 'B' ...", " and 'B' ...", else the end of the list */
    const char *q = p;
    if (eat(&q, ", and ") || eat(&q, " and ") || eat(&q, ", ")) {
      skip_ws(&q);
      if (*q == '\'') {
        p = q;
        continue;
      }
    }
    return NULL;
  }
}

bool drv_eval_authors_read(LeirCtx *ctx, const json_t *rec, DrvAuthorsRecord *out) {
  memset(out, 0, sizeof *out);
  json_t *n = json_object_get(rec, "num_IRs");
  out->num_irs = 1;
  if (json_is_integer(n) && json_integer_value(n) >= 1 && json_integer_value(n) <= DRV_AUTHORS_MAX_IRS)
    out->num_irs = (int)json_integer_value(n);
  else if (n && !json_is_null(n)) {
    out->error = arena_printf(&ctx->arena, "num_IRs: expected a whole number from 1 to %d", DRV_AUTHORS_MAX_IRS);
    return false;
  }
  /* the prompt: BEFORE and its declarations */
  const char *prompt = json_string_value(json_object_get(rec, "prompt"));
  if (!prompt) {
    out->error = "prompt: expected a string";
    return false;
  }
  const char *h = strstr(prompt, PROMPT_HEAD);
  const char *q = h ? strstr(h, ": '") : NULL;
  const char *v = q ? strstr(q, PROMPT_VARS) : NULL;
  if (!h || !q || !v) {
    const char *missing = !h   ? "\"Give the following IR of \""
                          : !q ? "\": '\" after the name"
                               : "\"', where the known variables are \"";
    out->error = arena_printf(&ctx->arena, "prompt: expected \"%sNAME: 'PROGRAM%s...\" (no %s found)", PROMPT_HEAD,
                              PROMPT_VARS, missing);
    return false;
  }
  out->name = arena_strndup(&ctx->arena, h + strlen(PROMPT_HEAD), (size_t)(q - h - strlen(PROMPT_HEAD)));
  out->before = arena_strndup(&ctx->arena, q + 3, (size_t)(v - q - 3));
  json_t *names = json_array(), *shapes = json_array(), *dtypes = json_array();
  const char *at = NULL;
  const char *why = read_vars(ctx, v + strlen(PROMPT_VARS), names, shapes, dtypes, &at);
  if (why) {
    out->error = arena_printf(&ctx->arena, "prompt, character %ld: %s", (long)(at - prompt) + 1, why);
    json_decref(names);
    json_decref(shapes);
    json_decref(dtypes);
    return false;
  }
  out->decls = json_object();
  json_object_set_new(out->decls, "known_names", names);
  json_object_set_new(out->decls, "known_shapes", shapes);
  json_object_set_new(out->decls, "known_dtype", dtypes);
  /* the answer: a list, or a string holding one (repaired as the scorer does) */
  json_t *ans = json_object_get(rec, "answer");
  if (json_is_string(ans)) {
    const char *s = json_string_value(ans);
    json_error_t e1, e2;
    json_t *j = json_loads(s, JSON_DECODE_ANY, &e1);
    if (json_is_object(j)) { /* one entry */
      json_t *l = json_array();
      json_array_append_new(l, j);
      j = l;
    }
    if (!json_is_array(j)) {
      json_decref(j);
      j = NULL;
      const char *last = NULL;
      for (const char *p = strstr(s, "\"}"); p; p = strstr(p + 1, "\"}")) last = p;
      if (!last) {
        out->error = arena_printf(&ctx->arena, "answer: not a JSON list (line %d, column %d: %s), and no '\"}' to "
                                  "repair it at", e1.line, e1.column, e1.text);
        return false;
      }
      char *fixed = arena_printf(&ctx->arena, "%.*s]", (int)(last + 2 - s), s);
      j = json_loads(fixed, 0, &e2);
      if (!json_is_array(j)) {
        json_decref(j);
        out->error = arena_printf(&ctx->arena, "answer: not a JSON list, also after the repair (cut after the last "
                                  "'\"}', close the list): line %d, column %d: %s", e2.line, e2.column, e2.text);
        return false;
      }
      out->repaired = true;
    }
    out->entries = j;
  } else if (json_is_array(ans)) {
    out->entries = json_incref(ans);
  } else {
    out->error = "answer: expected a list of {applied_strategy, transformed_IR, CoT} or a string holding one";
    return false;
  }
  return true;
}

void drv_eval_authors_free(DrvAuthorsRecord *r) {
  json_decref(r->decls);
  json_decref(r->entries);
  r->decls = r->entries = NULL;
}
