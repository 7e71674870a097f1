/* main.c -- the leirc command line. */
#include "config.h"
#include "driver/driver.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
  "Usage: leirc [OPTION]... FILE.leir\n"
  "Compile a LEIR (Loop-Equation IR) tensor program.\n"
  "\n"
  "Without -o or --emit, leirc checks FILE (syntax, declarations, shapes) and\n"
  "prints only diagnostics.  FILE may be '-' for standard input.\n"
  "\n"
  "Output:\n"
  "  -o FILE               write the output to FILE; the suffix selects the\n"
  "                        kind unless --emit is given (.leir)\n"
  "      --emit=KIND       what to write: leir (the canonical program)\n"
  "      --print-decls     with --emit=leir, also print the declaration header\n"
  "                        (given or inferred) before the program\n"
  "\n"
  "Declarations:\n"
  "      --decls=FILE.json declarations in the reference's sidecar format\n"
  "                        (known_names, known_shapes, known_dtype,\n"
  "                        input_known_names); they override the %-header\n"
  "\n"
  "Diagnostics:\n"
  "  -w                    suppress warnings\n"
  "      --no-caret        do not show the source line and caret under\n"
  "                        diagnostics\n"
  "      --Werror          treat warnings as errors\n"
  "\n"
  "  -h, --help            show this help and exit\n"
  "  -V, --version         show the version and exit\n"
  "\n"
  "Exit status: 0 on success, 1 on an error in the input, 2 on a usage or\n"
  "system error.\n";

enum { OPT_EMIT = 256, OPT_PRINT_DECLS, OPT_DECLS, OPT_WERROR, OPT_NO_CARET };

static const struct option long_opts[] = {
  {"help", no_argument, NULL, 'h'},
  {"version", no_argument, NULL, 'V'},
  {"output", required_argument, NULL, 'o'},
  {"emit", required_argument, NULL, OPT_EMIT},
  {"print-decls", no_argument, NULL, OPT_PRINT_DECLS},
  {"decls", required_argument, NULL, OPT_DECLS},
  {"Werror", no_argument, NULL, OPT_WERROR},
  {"no-caret", no_argument, NULL, OPT_NO_CARET},
  {NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "leirc: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'leirc --help' for more information.\n");
  return 2;
}

static bool parse_emit(const char *s, DrvEmit *e) {
  static const struct { const char *name; DrvEmit e; } kinds[] = {
    {"leir", EMIT_LEIR},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(s, kinds[i].name)) {
      *e = kinds[i].e;
      return true;
    }
  return false;
}

static DrvEmit emit_from_suffix(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot && !strcmp(dot, ".leir")) return EMIT_LEIR;
  return EMIT_NONE;
}

static int emit_leir(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  FILE *f = drv_open_output(ctx, o->output);
  if (!f) return 1;
  SBuf b = {0};
  if (o->print_decls)
    ir_print_decls(&b, p, false);
  else if (p->has_header) {
    /* the header as given: the declared tensors in declaration order */
    for (int i = 0; i < p->header.n; i++) {
      IrTensor *t = ir_find_tensor(p, p->header.d[i].name);
      if (!t) continue;
      sbuf_printf(&b, "%%%-5s %s : %s[", ir_role_name(t->role), t->name, ir_dtype_name(t->dtype));
      for (int d = 0; d < t->rank; d++) sbuf_printf(&b, "%s%lld", d ? "," : "", (long long)t->shape[d]);
      sbuf_puts(&b, "]\n");
    }
  }
  ir_print_body(&b, p);
  sbuf_putc(&b, '\n');
  fwrite(b.s, 1, b.len, f);
  sbuf_free(&b);
  return drv_close_output(ctx, f, o->output) ? 0 : 1;
}

int main(int argc, char **argv) {
  DrvOptions o = {0};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":ho:Vw", long_opts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(usage_text, stdout); return 0;
    case 'V':
      printf("leirc %s (LLVM %d)\n", PACKAGE_VERSION, LEIR_LLVM_MAJOR);
      return 0;
    case 'o': o.output = optarg; break;
    case 'w': o.no_warnings = true; break;
    case OPT_EMIT:
      if (!parse_emit(optarg, &o.emit)) return usage_error("unknown --emit kind '%s'", optarg);
      o.emit_given = true;
      break;
    case OPT_PRINT_DECLS: o.print_decls = true; break;
    case OPT_DECLS: o.decls = optarg; break;
    case OPT_WERROR: o.werror = true; break;
    case OPT_NO_CARET: o.no_caret = true; break;
    case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
    default: return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) return usage_error("%s", "no input file");
  if (optind + 1 < argc) return usage_error("more than one input file ('%s')", argv[optind + 1]);
  o.input = argv[optind];
  if (!o.emit_given && o.output) {
    o.emit = emit_from_suffix(o.output);
    if (o.emit == EMIT_NONE) return usage_error("cannot tell the output kind of '%s'; use --emit", o.output);
  }
  if (o.print_decls && !o.emit_given && !o.output) o.emit = EMIT_LEIR;

  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = o.no_warnings;
  ctx.werror = o.werror;
  ctx.quiet_caret = o.no_caret;
  int rc = 1;
  if (drv_read_source(&ctx, o.input)) {
    IrProgram *p = drv_load_program(&ctx, &o);
    if (p) {
      switch (o.emit) {
      case EMIT_LEIR: rc = emit_leir(&ctx, &o, p); break;
      case EMIT_NONE: rc = 0; break;
      default: rc = 1; break;
      }
    }
  }
  if (ctx.nerrors) rc = 1;
  leir_ctx_free(&ctx);
  return rc;
}
