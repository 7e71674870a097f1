/* cost_cli.c -- `leirc --print-cost`: the cost model's estimate of a
 * program (codegen/costmodel.h) and, with --cost=measure --target=host, its
 * measured run time (codegen/measure.h) on the --input files and the
 * random inputs of --seed.  The format is in leirc(1),
 * COST MODEL. */
#include "driver/driver.h"
#include "codegen/costmodel.h"
#include "codegen/measure.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "search/learned.h"

#include <math.h>
#include <stdio.h>

static void put_num(SBuf *b, const char *key, double v, bool json) {
  if (json) {
    if (isfinite(v)) sbuf_printf(b, ",\"%s\":%.6g", key, v);
    else sbuf_printf(b, ",\"%s\":null", key);
  } else {
    sbuf_printf(b, "%s: %.6g\n", key, v);
  }
}

/* The measured median on the user's data: the --input files, random data
 * of --seed for the other inputs and parameters (as --run takes them). */
static bool measure_user_data(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p, double *measured) {
  InterpProg *ip = interp_new(ctx, p, NULL);
  if (!ip) return false;
  bool ok = drv_fill_inputs(ip, o);
  if (ok) {
    CgOptions co;
    cg_options_init(&co);
    co.target = CG_TARGET_HOST;
    CgMeasureOpts mo;
    cg_measure_opts_init(&mo);
    ok = cg_host_measure_ip(ctx, p, &co, &mo, ip, measured);
  }
  interp_free(ip);
  return ok;
}

bool drv_cost_text(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p, bool json, SBuf *out) {
  bool host = o->target == TARGET_HOST;
  CostEstimate e;
  if (!cost_model_estimate(ctx, p, host ? COST_HOST : COST_CUDA, o->gpu_sm, &e)) return false;
  double measured = 0;
  bool measure = host && o->cost == COST_MEASURE;
  if (measure && !measure_user_data(ctx, o, p, &measured)) return false;
  SBuf *b = out;
  if (json) {
    if (host) sbuf_puts(b, "{\"target\":\"host\"");
    else sbuf_printf(b, "{\"target\":\"cuda\",\"gpu_arch\":\"sm_%d\"", o->gpu_sm);
  } else {
    if (host) sbuf_puts(b, "target: host\n");
    else sbuf_printf(b, "target: cuda sm_%d\n", o->gpu_sm);
  }
  put_num(b, "seconds", e.seconds, json);
  put_num(b, "flops", e.flops, json);
  put_num(b, "bytes", e.bytes, json);
  put_num(b, "parallelism", e.parallelism, json);
  put_num(b, "coalescing", e.coalescing, json);
  put_num(b, "occupancy", e.occupancy, json);
  if (measure) put_num(b, "measured_seconds", measured, json);
  if (host && o->learned) {
    SearchLearned *m = search_learned_load(ctx, NULL);
    double ls = 0;
    bool ok = m && search_learned_seconds(ctx, m, p, &ls);
    search_learned_free(m);
    if (!ok) return false;
    put_num(b, "learned_seconds", ls, json);
  }
  if (json) sbuf_puts(b, "}\n");
  return true;
}

int drv_print_cost(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  SBuf b = {0};
  bool ok = drv_cost_text(ctx, o, p, o->run.json, &b);
  if (ok) fwrite(b.s, 1, b.len, stdout);
  fflush(stdout);
  sbuf_free(&b);
  return ok ? 0 : 1;
}
