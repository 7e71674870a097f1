/* steps_enum.c -- --steps-cache=DIR keeps the first pass of --emit-steps
 * (steps_cache.h: steps_enum_*).  Every shard of a --shard run, every
 * run, loads and enumerates every input (the candidates of all decide the
 * record ids), a fixed cost per run that a whole corpus cut in many
 * shards pays once per shard: about 1.3 CPU s for the corpus's 146
 * programs on a 2-CPU Zen 3, next to about 15 for the rest of a warm
 * shard of 2000.  An entry holds what the first pass keeps of one input
 * (its candidates' strategies) and the diagnostics its load printed, so
 * that a hit prints the same bytes.
 *
 * The key names everything the load depends on: the input's path and
 * bytes, its declarations' path and bytes, the options that reach the
 * load (the context's flags; not cached at all with an -O pipeline), and
 * the build of leirc itself (the GNU build ID of the object that holds the
 * strategies: another build may enumerate other candidates, or number the
 * strategies otherwise).  Without a build ID nothing is cached.  As for
 * the outputs' entries, the whole key is stored and compared. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"
#include "driver/steps_cache.h"
#include "ir/hash.h"
#include "ir/readfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <elf.h>
#include <link.h>
#define HAVE_BUILD_ID 1
#endif

/* The file's first line; a new layout or key gets a new one. */
static const char magic[] = "leirc-steps-enum 1\n";

#ifdef HAVE_BUILD_ID
typedef struct BuildId {
  uintptr_t addr; /* an address inside the object */
  char hex[2 * 64 + 1];
} BuildId;

static int build_id_of(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  BuildId *b = data;
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);
    mine = ph->p_type == PT_LOAD && b->addr >= lo && b->addr - lo < ph->p_memsz;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (end - p >= 12) {
      uint32_t namesz, descsz, type;
      memcpy(&namesz, p, 4);
      memcpy(&descsz, p + 4, 4);
      memcpy(&type, p + 8, 4);
      const unsigned char *name = p + 12;
      if ((size_t)(end - name) < ((namesz + 3u) & ~3u)) break;
      const unsigned char *desc = name + ((namesz + 3u) & ~3u);
      if ((size_t)(end - desc) < descsz) break;
      if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(name, "GNU", 4) && descsz > 0 && descsz <= 64) {
        for (uint32_t j = 0; j < descsz; j++) snprintf(b->hex + 2 * j, 3, "%02x", desc[j]);
        return 1;
      }
      if ((size_t)(end - desc) < ((descsz + 3u) & ~3u)) break;
      p = desc + ((descsz + 3u) & ~3u);
    }
  }
  return 1;
}
#endif

/* Appends a file's size and bytes to b ("-" when it does not open); false
 * when it cannot be read or holds a NUL byte (LEIR and JSON text do not:
 * such an input is not cached). */
static bool add_file(SBuf *b, const char *path) {
  size_t n = 0;
  char *buf = leir_read_file(path, &n);
  if (!buf) { /* not opened: "-"; opened but not read (or no memory): not cached */
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    else sbuf_puts(b, "-\n");
    return !f;
  }
  bool ok = !memchr(buf, 0, n);
  if (ok) {
    sbuf_printf(b, "%zu\n", n);
    sbuf_puts(b, buf);
    sbuf_putc(b, '\n');
  }
  free(buf);
  return ok;
}

bool steps_enum_key(StepsKey *k, const void *addr, const char *input, const char *decls, const char *opts) {
  memset(k, 0, sizeof *k);
#ifdef HAVE_BUILD_ID
  BuildId id = {(uintptr_t)addr, ""};
  dl_iterate_phdr(build_id_of, &id);
  if (!id.hex[0]) return false;
  SBuf b = {0};
  sbuf_printf(&b, "build %s\n%s\ninput %s\n", id.hex, opts, input);
  bool ok = add_file(&b, input);
  sbuf_printf(&b, "decls %s\n", decls ? decls : "-");
  ok = ok && (!decls || add_file(&b, decls));
  if (!ok || !b.s) {
    sbuf_free(&b);
    return false;
  }
  k->text = b.s;
  k->len = b.len;
  k->hash = ir_fnv1a(k->text, k->len);
  return true;
#else
  (void)addr, (void)input, (void)decls, (void)opts;
  return false;
#endif
}

static char *enum_path(const char *dir, const StepsKey *k, const char *suffix) {
  size_t n = strlen(dir) + strlen(suffix) + 64;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/enum/%016llx%s", dir, (unsigned long long)k->hash, suffix);
  return s;
}

bool steps_enum_load(const char *dir, const StepsKey *k, int *ncand, int **strat, char **diag) {
  *strat = NULL;
  *diag = NULL;
  char *path = enum_path(dir, k, ".enum");
  FILE *f = path ? fopen(path, "rb") : NULL;
  free(path);
  if (!f) return false;
  char m[sizeof magic - 1];
  uint64_t len = 0, n = 0, dlen = 0;
  char *key = NULL;
  int *s = NULL;
  char *d = NULL;
  bool ok = fread(m, 1, sizeof m, f) == sizeof m && !memcmp(m, magic, sizeof m) && fread(&len, sizeof len, 1, f) == 1 &&
            len == k->len && (key = malloc(len + 1)) && fread(key, 1, len, f) == len && !memcmp(key, k->text, len) &&
            fread(&n, sizeof n, 1, f) == 1 && n < (1u << 30) && (s = malloc((n + 1) * sizeof *s)) &&
            fread(s, sizeof *s, n, f) == n && fread(&dlen, sizeof dlen, 1, f) == 1 && dlen < (1u << 30) &&
            (d = malloc(dlen + 1)) && fread(d, 1, dlen, f) == dlen && fgetc(f) == EOF;
  fclose(f);
  free(key);
  if (!ok) {
    free(s);
    free(d);
    return false;
  }
  d[dlen] = 0;
  *ncand = (int)n;
  *strat = s;
  *diag = d;
  return true;
}

bool steps_enum_store(const char *dir, const StepsKey *k, int ncand, const int *strat, const char *diag) {
  size_t n = strlen(dir) + 8;
  char *sub = malloc(n);
  if (!sub) return false;
  snprintf(sub, n, "%s/enum", dir);
  mkdir(sub, 0777); /* may exist (EEXIST), or be made by another worker */
  free(sub);
  char suffix[64];
  snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
  char *tmp = enum_path(dir, k, suffix), *path = enum_path(dir, k, ".enum");
  FILE *f = tmp && path ? fopen(tmp, "wb") : NULL;
  bool ok = f != NULL;
  if (f) {
    uint64_t len = k->len, nc = (uint64_t)ncand, dlen = strlen(diag);
    ok = fwrite(magic, 1, sizeof magic - 1, f) == sizeof magic - 1 && fwrite(&len, sizeof len, 1, f) == 1 &&
         fwrite(k->text, 1, k->len, f) == k->len && fwrite(&nc, sizeof nc, 1, f) == 1 &&
         fwrite(strat, sizeof *strat, (size_t)ncand, f) == (size_t)ncand && fwrite(&dlen, sizeof dlen, 1, f) == 1 &&
         fwrite(diag, 1, dlen, f) == dlen;
    ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) remove(tmp);
  }
  free(tmp);
  free(path);
  return ok;
}
