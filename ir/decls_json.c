/* decls_json.c -- declarations from a sidecar JSON file with the reference's
 * keys (SPEC §8.1-§8.2): known_names, known_shapes, known_dtype,
 * input_known_names.  Known names not in input_known_names are outputs;
 * inputs are %in (the reference does not tell inputs from parameters). */
#include "ir/ir.h"

#include <jansson.h>
#include <string.h>

static bool fail(LeirCtx *ctx, const char *path, const char *msg, const char *detail) {
  LeirSource saved = ctx->src;
  ctx->src.name = path;
  diag_error(ctx, (IrLoc){0, 0}, "%s%s%s", msg, detail ? ": " : "", detail ? detail : "");
  ctx->src = saved;
  return false;
}

static bool load_failed(LeirCtx *ctx, const char *path, const json_error_t *jerr) {
  char buf[256];
  snprintf(buf, sizeof buf, "line %d: %s", jerr->line, jerr->text);
  return fail(ctx, path, "cannot read declarations", buf);
}

bool ir_decls_load_json(LeirCtx *ctx, const char *path, IrDeclList *out) {
  json_error_t jerr;
  json_t *root = json_load_file(path, 0, &jerr);
  if (!root) return load_failed(ctx, path, &jerr);
  bool ok = ir_decls_from_json(ctx, path, root, out);
  json_decref(root);
  return ok;
}

bool ir_decls_parse_json(LeirCtx *ctx, const char *name, const char *text, IrDeclList *out) {
  json_error_t jerr;
  json_t *root = json_loads(text, 0, &jerr);
  if (!root) return load_failed(ctx, name, &jerr);
  bool ok = ir_decls_from_json(ctx, name, root, out);
  json_decref(root);
  return ok;
}

bool ir_decls_from_json(LeirCtx *ctx, const char *path, const struct json_t *root, IrDeclList *out) {
  bool ok = false;
  if (!json_is_object(root)) return fail(ctx, path, "declarations must be a JSON object", NULL);
  json_t *names = json_object_get(root, "known_names");
  json_t *shapes = json_object_get(root, "known_shapes");
  json_t *dtypes = json_object_get(root, "known_dtype");
  json_t *inputs = json_object_get(root, "input_known_names");
  if (!json_is_array(names) || !json_is_array(shapes) || !json_is_array(dtypes)) {
    fail(ctx, path, "declarations need the arrays known_names, known_shapes and known_dtype", NULL);
    goto done;
  }
  size_t n = json_array_size(names);
  if (json_array_size(shapes) != n || json_array_size(dtypes) != n) {
    fail(ctx, path, "known_names, known_shapes and known_dtype differ in length", NULL);
    goto done;
  }
  if (inputs && !json_is_array(inputs)) {
    fail(ctx, path, "input_known_names must be an array", NULL);
    goto done;
  }
  out->n = (int)n;
  out->d = arena_alloc(&ctx->arena, sizeof(IrDecl) * (n ? n : 1));
  for (size_t i = 0; i < n; i++) {
    IrDecl *d = &out->d[i];
    const char *name = json_string_value(json_array_get(names, i));
    const char *dt = json_string_value(json_array_get(dtypes, i));
    json_t *shape = json_array_get(shapes, i);
    if (!name || !dt || !json_is_array(shape)) {
      fail(ctx, path, "malformed entry in known_names/known_dtype/known_shapes", NULL);
      goto done;
    }
    d->name = arena_strdup(&ctx->arena, name);
    d->dtype = ir_dtype_from_any(dt);
    if (d->dtype == DT_NONE) {
      fail(ctx, path, "unsupported dtype", dt);
      goto done;
    }
    d->rank = (int)json_array_size(shape);
    d->shape = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(d->rank ? d->rank : 1));
    for (int k = 0; k < d->rank; k++) {
      json_t *v = json_array_get(shape, (size_t)k);
      if (!json_is_integer(v) || json_integer_value(v) < 1) {
        fail(ctx, path, "shape entries must be positive integers", name);
        goto done;
      }
      d->shape[k] = json_integer_value(v);
    }
    d->role = ROLE_OUT;
    if (inputs) {
      size_t k;
      json_t *v;
      json_array_foreach(inputs, k, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), name)) d->role = ROLE_IN;
      }
    } else if (i + 1 < n) {
      d->role = ROLE_IN;
    }
  }
  ok = true;
done:
  return ok;
}
