/* serve_tools.c -- the tools of `leirc --serve` (leirc(1), SERVER): their
 * JSON Schemas and what each one does.  Each request loads the programs it
 * names from their stored text into a LeirCtx of its own, with the
 * diagnostics captured as the text of a failure, and frees it at the end;
 * the compiler is reached through the driver's own functions, one small
 * wrapper each. */
#define _POSIX_C_SOURCE 200809L
#include "driver/serve.h"
#include "codegen/codegen.h"
#include "interp/check.h"
#include "codegen/costmodel.h"
#include "passes/pass.h"
#include "passes/stepcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the schemas */

#define PROG "\"program\":{\"type\":\"string\",\"description\":\"a program id (p1, p2, ...)\"}"

static const struct {
  const char *name, *description, *schema; /* properties, required */
} tool_defs[] = {
  {"load_program", "Parse and analyse a LEIR program (text, or a file by path) and keep it; returns its id and canonical text.",
   "{\"text\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
   "\"decls\":{\"type\":\"string\",\"description\":\"path of a .decls.json sidecar\"}}|[]"},
  {"show_program", "The canonical text (with its declaration header) of a kept program.", "{" PROG "}|[\"program\"]"},
  {"list_candidates", "Every legal optimisation step on a program (leirc --list-applicable --json).",
   "{" PROG "}|[\"program\"]"},
  {"apply_step", "Apply one step, spelt as -O takes it, to a program; returns the new program's id, text and class.",
   "{" PROG ",\"spelling\":{\"type\":\"string\"}}|[\"program\",\"spelling\"]"},
  {"check_step", "Judge a proposed program after one step as leirc --check-step --json does: legal, equivalent, "
   "not equivalent, does not parse, invalid, unchanged or not run.",
   "{" PROG ",\"after\":{\"type\":\"string\"},\"strategy\":{\"type\":\"string\"},"
   "\"seed\":{\"type\":\"integer\",\"minimum\":0},"
   "\"tolerance\":{\"type\":\"string\",\"enum\":[\"exact\",\"default\",\"reference\"]}}|[\"program\",\"after\"]"},
  {"compare_programs", "Run two programs on the same random inputs and compare their outputs (leirc --compare --json).",
   "{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"},\"seed\":{\"type\":\"integer\",\"minimum\":0},"
   "\"seeds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},"
   "\"tolerance\":{\"type\":\"string\",\"enum\":[\"exact\",\"default\",\"reference\"]}}|[\"a\",\"b\"]"},
  {"run_program", "Run a program in the reference interpreter; inputs not given are random (seed); writes "
   "output_dir/NAME.npy per output.",
   "{" PROG ",\"inputs\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
   "\"output_dir\":{\"type\":\"string\"},\"seed\":{\"type\":\"integer\",\"minimum\":0}}|[\"program\",\"output_dir\"]"},
  {"emit_ptx", "The launch plan and PTX of a program (leirc --emit=ptx).",
   "{" PROG ",\"arch\":{\"type\":\"string\",\"description\":\"sm_NN, default sm_90\"}}|[\"program\"]"},
  {"estimate_cost", "The analytic cost model's estimate (leirc --print-cost --cost=model --json); with cost "
   "learned also the learned model's estimate of the host's run time (--cost=learned: learned_seconds).",
   "{" PROG ",\"target\":{\"type\":\"string\",\"enum\":[\"cuda\",\"host\"]},\"arch\":{\"type\":\"string\"},"
   "\"cost\":{\"type\":\"string\",\"enum\":[\"model\",\"learned\"],\"description\":\"model (default) or "
   "learned (host only)\"}}|[\"program\"]"},
  {"measure", "The measured median run time on the host (JIT) and the model's estimate.", "{" PROG "}|[\"program\"]"},
  {"history", "The steps that led from the loaded program to this one.", "{" PROG "}|[\"program\"]"},
};
enum { NTOOLS = sizeof tool_defs / sizeof tool_defs[0] };

static json_t *tool_schema(int i) {
  const char *s = tool_defs[i].schema, *bar = strchr(s, '|');
  json_t *props = json_loadb(s, (size_t)(bar - s), 0, NULL);
  json_t *req = json_loads(bar + 1, 0, NULL);
  return json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required", req,
                   "additionalProperties", 0);
}

json_t *srv_tools_list(void) {
  json_t *a = json_array();
  for (int i = 0; i < NTOOLS; i++)
    json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "name", tool_defs[i].name, "description",
                                       tool_defs[i].description, "inputSchema", tool_schema(i)));
  return a;
}

/* Arguments against the schema: every required key, the types, no other
 * keys.  NULL, or what is wrong (static or in *err). */
static bool check_args(int i, json_t *args, SBuf *err) {
  json_t *sch = tool_schema(i), *props = json_object_get(sch, "properties");
  bool ok = true;
  size_t k;
  json_t *v;
  json_array_foreach(json_object_get(sch, "required"), k, v) {
    if (!json_object_get(args, json_string_value(v))) {
      sbuf_printf(err, "%s: missing argument '%s'", tool_defs[i].name, json_string_value(v));
      ok = false;
      goto out;
    }
  }
  const char *key;
  json_object_foreach(args, key, v) {
    json_t *p = json_object_get(props, key);
    if (!p) {
      sbuf_printf(err, "%s: unknown argument '%.100s'", tool_defs[i].name, key);
      ok = false;
      goto out;
    }
    const char *ty = json_string_value(json_object_get(p, "type"));
    bool good = !strcmp(ty, "string") ? json_is_string(v) : !strcmp(ty, "integer") ? json_is_integer(v)
                                                                                     : json_is_object(v);
    json_t *min = json_object_get(p, "minimum"), *max = json_object_get(p, "maximum");
    if (good && json_is_integer(v)) good = (!min || json_integer_value(v) >= json_integer_value(min)) &&
                                           (!max || json_integer_value(v) <= json_integer_value(max));
    json_t *en = json_object_get(p, "enum"), *e;
    size_t j;
    if (good && en) {
      good = false;
      json_array_foreach(en, j, e) good |= json_equal(e, v);
    }
    json_t *item = json_object_get(json_object_get(p, "additionalProperties"), "type");
    const char *ik;
    json_t *iv;
    if (good && item) json_object_foreach(v, ik, iv) good &= json_is_string(iv);
    if (!good) {
      sbuf_printf(err, "%s: argument '%s' must be %s%s", tool_defs[i].name, key,
                  !strcmp(ty, "string") ? "a string" : !strcmp(ty, "integer") ? "an integer" : "an object",
                  en ? " among the schema's enum" : min ? " in the schema's range" : item ? " of strings" : "");
      ok = false;
      goto out;
    }
  }
out:
  json_decref(sch);
  return ok;
}

/* ------------------------------------------------------------ a request's context */

typedef struct Req {
  Srv *s;
  LeirCtx ctx;
  FILE *mem;     /* the diagnostics */
  char *buf;
  size_t len;
  SBuf *err;     /* the failure's text */
  DrvOptions o;  /* the command line's, changed by the arguments */
} Req;

static void req_open(Req *r, Srv *s, SBuf *err) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->err = err;
  r->o = s->opts;
  drv_ctx_setup(&r->ctx, &r->o);
  r->mem = open_memstream(&r->buf, &r->len);
  if (r->mem) r->ctx.diag_out = r->mem;
}

/* The failure: `what` and the diagnostics so far. */
static json_t *req_fail(Req *r, const char *what) {
  if (r->mem) fflush(r->mem);
  if (what) sbuf_printf(r->err, "%s%s", what, r->len ? "\n" : "");
  if (r->len) sbuf_puts(r->err, r->buf);
  if (!what && !r->len && !r->err->len) sbuf_puts(r->err, "failed (no diagnostic)");
  return NULL;
}

static void req_close(Req *r) {
  if (r->mem) fclose(r->mem);
  free(r->buf);
  leir_ctx_free(&r->ctx);
}

/* Loads source text (named `name` in diagnostics) with o.decls. */
static IrProgram *load_text(Req *r, const char *name, const char *text) {
  leir_ctx_set_source(&r->ctx, name, text, strlen(text));
  return ir_load_program(&r->ctx, r->o.decls, NULL);
}

static IrProgram *load_id(Req *r, const char *id, SrvProgram **sp) {
  char why[256];
  SrvProgram *e = srv_store_get(&r->s->store, id, why, sizeof why);
  if (sp) *sp = e;
  if (!e) {
    req_fail(r, why);
    return NULL;
  }
  r->o.decls = NULL; /* the stored text has its header */
  IrProgram *p = load_text(r, e->id, e->text);
  if (!p) req_fail(r, "internal error: the stored program no longer loads");
  return p;
}

static char *program_text(const IrProgram *p) {
  SBuf b = {0};
  pass_print_program(&b, p);
  return b.s;
}

/* Keeps p; {program, text}.  Takes `history`. */
static json_t *keep(Req *r, const IrProgram *p, json_t *history) {
  char *text = program_text(p);
  const char *id = text ? srv_store_add(&r->s->store, text, history) : NULL;
  json_t *res = id ? json_pack("{s:s, s:s}", "program", id, "text", text) : NULL;
  if (!id) json_decref(history);
  free(text);
  return res ? res : req_fail(r, "out of memory");
}

static const char *arg(json_t *a, const char *key) { return json_string_value(json_object_get(a, key)); }

/* ------------------------------------------------------------ the tools */

static json_t *t_load_program(Req *r, json_t *a) {
  const char *text = arg(a, "text"), *path = arg(a, "path");
  if (!text == !path) return req_fail(r, "load_program: give exactly one of 'text' and 'path'");
  r->o.decls = arg(a, "decls");
  IrProgram *p = NULL;
  if (text) p = load_text(r, "<text>", text);
  else if (ir_read_source(&r->ctx, path)) p = ir_load_program(&r->ctx, r->o.decls, NULL);
  return p ? keep(r, p, json_array()) : req_fail(r, NULL);
}

static json_t *t_show_program(Req *r, json_t *a) {
  SrvProgram *e;
  if (!load_id(r, arg(a, "program"), &e)) return NULL;
  return json_pack("{s:s, s:s}", "program", e->id, "text", e->text);
}

static json_t *t_list_candidates(Req *r, json_t *a) {
  IrProgram *p = load_id(r, arg(a, "program"), NULL);
  if (!p) return NULL;
  json_t *list = json_array();
  for (int i = 0; i < pass_table_size; i++) {
    PtrVec legal = {0};
    pass_enumerate_legal(&r->ctx, p, &pass_table[i], &legal);
    for (int k = 0; k < legal.n; k++) json_array_append_new(list, pass_cand_json(&r->ctx, legal.v[k]));
  }
  return json_pack("{s:s, s:o}", "program", arg(a, "program"), "candidates", list);
}

/* The step `spelling` on p: the legal candidate of that spelling (its
 * class), else the -O pipeline's choice for a filter or a complete spelling
 * enumerate() does not list (the table's class).  NULL after diagnostics. */
static IrProgram *apply_spelling(Req *r, const IrProgram *p, const char *spelling, const char **cls,
                                 const char **applied) {
  PassCand c;
  const char *why;
  if (!pass_parse_spelling(&r->ctx, spelling, &c, &why)) {
    diag_error(&r->ctx, (IrLoc){0, 0}, "bad spelling '%s': %s", spelling, why);
    return NULL;
  }
  const char *want = pass_cand_spelling(&r->ctx, &c);
  PtrVec legal = {0};
  pass_enumerate_legal(&r->ctx, p, c.pass, &legal);
  for (int k = 0; k < legal.n; k++) {
    PassCand *l = legal.v[k];
    if (strcmp(pass_cand_spelling(&r->ctx, l), want)) continue;
    IrProgram *q = pass_apply(&r->ctx, p, l, &why);
    if (!q) diag_error(&r->ctx, (IrLoc){0, 0}, "%s: %s", want, why);
    *cls = pass_class_name(l->cls);
    *applied = want;
    return q;
  }
  PassRunOptions ro = {0};
  ro.quiet_notes = true;
  ro.dump_out = r->mem;
  /* a bare NAME: the cost model's best on the host, as `leirc -O NAME
   * --emit=leir` takes it */
  CostStepTarget ct = {COST_HOST, r->o.gpu_sm};
  ro.cost = cost_model_step_cost;
  ro.cost_user = &ct;
  *cls = pass_class_name(c.pass->cls);
  *applied = spelling;
  return pass_run_pipeline(&r->ctx, (IrProgram *)p, spelling, &ro, NULL);
}

static json_t *t_apply_step(Req *r, json_t *a) {
  SrvProgram *e;
  IrProgram *p = load_id(r, arg(a, "program"), &e);
  if (!p) return NULL;
  json_t *hist = json_deep_copy(e->history);
  const char *from = arg(a, "program"), *cls = NULL, *applied = NULL;
  IrProgram *q = apply_spelling(r, p, arg(a, "spelling"), &cls, &applied);
  if (!q) {
    json_decref(hist);
    return req_fail(r, NULL);
  }
  json_array_append_new(hist, json_pack("{s:s, s:s, s:s}", "spelling", applied, "class", cls, "from", from));
  json_t *res = keep(r, q, hist);
  if (res) json_object_set_new(res, "class", json_string(cls));
  if (res) json_object_set_new(res, "spelling", json_string(applied));
  return res;
}

static bool set_tolerance(Req *r, json_t *a) {
  const char *t = arg(a, "tolerance");
  if (json_object_get(a, "seed")) r->o.run.seed = (uint64_t)json_integer_value(json_object_get(a, "seed"));
  if (json_object_get(a, "seeds")) r->o.run.seeds = (int)json_integer_value(json_object_get(a, "seeds"));
  return !t || cmp_tolerance_from_name(t, &r->o.run.tolerance);
}

/* The checker of `leirc --check-step` (passes/stepcheck.h) with the
 * request's seed and tolerance and the server's --max-steps as the budget
 * of each run: the object of --check-step --json (drv_step_result_json). */
static json_t *t_check_step(Req *r, json_t *a) {
  const char *strategy = arg(a, "strategy"), *after = arg(a, "after");
  const PassInfo *only = strategy ? pass_lookup(strategy) : NULL;
  if (strategy && !only)
    return req_fail(r, arena_printf(&r->ctx.arena, "check_step: unknown strategy '%.100s' (see leirc --list-passes)",
                                    strategy));
  IrProgram *p = load_id(r, arg(a, "program"), NULL);
  if (!p) return NULL;
  set_tolerance(r, a);
  StepCheckOptions so = {only, "after", true, r->o.run.seed, (CmpTolerance)r->o.run.tolerance, r->o.run.max_steps,
                         false, NULL, NULL, 0};
  StepResult res;
  step_check(&r->ctx, p, after, strlen(after), &so, &res);
  return drv_step_result_json(&res);
}

static json_t *t_compare_programs(Req *r, json_t *a) {
  set_tolerance(r, a);
  const char *ia = arg(a, "a"), *ib = arg(a, "b");
  IrProgram *pa = load_id(r, ia, NULL);
  if (!pa) return NULL;
  Req rb;
  req_open(&rb, r->s, r->err);
  IrProgram *pb = load_id(&rb, ib, NULL);
  json_t *res = NULL;
  if (pb) {
    InterpDiff d;
    int rc = drv_compare_loaded(&r->ctx, pa, &rb.ctx, pb, &r->o, ia, ib, &d);
    if (rc != 2) res = drv_compare_json(&d, &r->o, ia, ib);
    else {
      req_fail(r, NULL);
      req_fail(&rb, NULL);
    }
  }
  req_close(&rb);
  return res;
}

static json_t *t_run_program(Req *r, json_t *a) {
  IrProgram *p = load_id(r, arg(a, "program"), NULL);
  if (!p) return NULL;
  json_t *in = json_object_get(a, "inputs");
  size_t n = in ? json_object_size(in) : 0;
  const char **names = calloc(n + 1, sizeof *names), **paths = calloc(n + 1, sizeof *paths);
  json_t *res = NULL;
  if (names && paths) {
    const char *k;
    json_t *v;
    json_object_foreach(in, k, v) {
      names[r->o.run.ninputs] = k;
      paths[r->o.run.ninputs++] = json_string_value(v);
    }
    r->o.run.input_names = names;
    r->o.run.input_paths = paths;
    r->o.run.output_dir = arg(a, "output_dir");
    r->o.run.print_outputs = false;
    r->o.target = TARGET_DEFAULT;
    if (json_object_get(a, "seed")) r->o.run.seed = (uint64_t)json_integer_value(json_object_get(a, "seed"));
    if (drv_run_loaded(&r->ctx, &r->o, p) == 0 && !r->ctx.nerrors) {
      json_t *outs = json_object();
      for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i]->role == ROLE_OUT)
          json_object_set_new(outs, p->tensors[i]->name,
                              json_sprintf("%s/%s.npy", r->o.run.output_dir, p->tensors[i]->name));
      res = json_pack("{s:o}", "outputs", outs);
    }
  }
  free(names);
  free(paths);
  return res ? res : req_fail(r, NULL);
}

static bool set_arch(Req *r, json_t *a) {
  char msg[256];
  const char *arch = arg(a, "arch");
  if (!arch || cg_parse_gpu_arch(arch, &r->o.gpu_sm, msg, sizeof msg)) return true;
  req_fail(r, msg);
  return false;
}

static json_t *t_emit_ptx(Req *r, json_t *a) {
  IrProgram *p = load_id(r, arg(a, "program"), NULL);
  if (!p || !set_arch(r, a)) return NULL;
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_NVPTX;
  co.gpu_sm = r->o.gpu_sm;
  SBuf b = {0};
  json_t *res = NULL;
  if (cg_emit_ptx(&r->ctx, p, &co, &b))
    res = json_pack("{s:s, s:s#}", "arch", arena_printf(&r->ctx.arena, "sm_%d", co.gpu_sm), "ptx", b.s ? b.s : "",
                    b.len);
  sbuf_free(&b);
  return res ? res : req_fail(r, NULL);
}

/* drv_cost_text's JSON object under the request's options. */
static json_t *cost(Req *r, const IrProgram *p) {
  SBuf b = {0};
  json_t *res = drv_cost_text(&r->ctx, &r->o, p, true, &b) ? json_loadb(b.s, b.len, 0, NULL) : NULL;
  sbuf_free(&b);
  return res ? res : req_fail(r, NULL);
}

static json_t *t_estimate_cost(Req *r, json_t *a) {
  IrProgram *p = load_id(r, arg(a, "program"), NULL);
  if (!p || !set_arch(r, a)) return NULL;
  const char *t = arg(a, "target"), *c = arg(a, "cost");
  bool learned = c && !strcmp(c, "learned");
  if (learned && t && strcmp(t, "host"))
    return req_fail(r, "estimate_cost: cost 'learned' is a model of the host: it does not combine with target 'cuda'");
  r->o.target = learned || (t && !strcmp(t, "host")) ? TARGET_HOST : TARGET_CUDA;
  r->o.cost = COST_MODEL;
  r->o.learned = learned;
  return cost(r, p);
}

static json_t *t_measure(Req *r, json_t *a) {
  IrProgram *p = load_id(r, arg(a, "program"), NULL);
  if (!p) return NULL;
  uint64_t w = ir_program_execs(p), lim = r->o.run.max_steps;
  if (lim && w > lim) /* the JIT has no step counter: judge by the loop extents */
    return req_fail(r, arena_printf(&r->ctx.arena, "not measured: one run needs %llu statement executions, more than "
                                    "--max-steps %llu", (unsigned long long)w, (unsigned long long)lim));
  r->o.target = TARGET_HOST;
  r->o.cost = COST_MEASURE;
  return cost(r, p);
}

static json_t *t_history(Req *r, json_t *a) {
  SrvProgram *e;
  if (!load_id(r, arg(a, "program"), &e)) return NULL;
  return json_pack("{s:s, s:O}", "program", e->id, "steps", e->history);
}

static json_t *(*const tool_fns[NTOOLS])(Req *, json_t *) = {
  t_load_program, t_show_program, t_list_candidates, t_apply_step, t_check_step, t_compare_programs,
  t_run_program, t_emit_ptx, t_estimate_cost, t_measure, t_history,
};

json_t *srv_tool_call(Srv *s, const char *name, json_t *args, SBuf *err, int *code) {
  *code = -32602;
  int i = 0;
  while (i < NTOOLS && strcmp(tool_defs[i].name, name)) i++;
  if (i == NTOOLS) {
    sbuf_printf(err, "unknown tool '%.100s'", name);
    return NULL;
  }
  if (!check_args(i, args, err)) return NULL;
  *code = 0;
  Req r;
  req_open(&r, s, err);
  json_t *res = tool_fns[i](&r, args);
  if (!res && !err->len) req_fail(&r, NULL);
  req_close(&r);
  return res;
}
