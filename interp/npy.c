/* npy.c -- reading and writing NumPy .npy files (see npy.h). */
#include "interp/npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_MSG_MAX 512

/* ------------------------------------------------------------ helpers */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
  if (!err || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static const char *const npy_dtypes[] = {
  "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1",
};

/* The normalised form of a supported dtype, or NULL. */
static const char *normalise_descr(const char *d)
{
  if (*d == '<' || *d == '|')
    d++;
  for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++)
    if (strcmp(d, npy_dtypes[i]) == 0)
      return npy_dtypes[i];
  return NULL;
}

size_t npy_descr_size(const char *descr)
{
  const char *d = descr ? normalise_descr(descr) : NULL;
  return d ? (size_t)(d[1] - '0') : 0;
}

static bool host_is_little_endian(void)
{
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

static void swap_elems(void *data, size_t nelem, size_t size)
{
  unsigned char *p = data;
  for (size_t i = 0; i < nelem; i++, p += size)
    for (size_t j = 0; j < size / 2; j++) {
      unsigned char t = p[j];
      p[j] = p[size - 1 - j];
      p[size - 1 - j] = t;
    }
}

static uint32_t read_le(const unsigned char *p, int nbytes)
{
  uint32_t v = 0;
  for (int i = nbytes - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

static void write_le(unsigned char *p, uint32_t v, int nbytes)
{
  for (int i = 0; i < nbytes; i++, v >>= 8)
    p[i] = (unsigned char)(v & 0xff);
}

/* nelem and byte size of a shape; -1 on overflow or a negative extent. */
static int shape_size(int ndim, const int64_t *shape, size_t elem_size,
                      size_t *nelem, size_t *bytes, char *err, size_t errlen)
{
  size_t n = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      set_err(err, errlen, "negative extent %lld in shape", (long long)shape[i]);
      return -1;
    }
    if (shape[i] == 0)
      n = 0;
  }
  for (int i = 0; i < ndim && n != 0; i++) {
    uint64_t d = (uint64_t)shape[i];
    if (d > SIZE_MAX || n > SIZE_MAX / (size_t)d) {
      set_err(err, errlen, "shape too large: the element count overflows");
      return -1;
    }
    n *= (size_t)d;
  }
  if (n > SIZE_MAX / elem_size) {
    set_err(err, errlen, "shape too large: the data size overflows");
    return -1;
  }
  *nelem = n;
  *bytes = n * elem_size;
  return 0;
}

/* ------------------------------------------------------------ header parser */

typedef struct Header {
  char descr[32];
  bool fortran;
  int ndim;
  int64_t shape[NPY_MAX_DIMS];
  bool have_descr, have_fortran, have_shape;
} Header;

typedef struct Parser {
  const char *begin, *p, *end;
  char *err;
  size_t errlen;
} Parser;

static int syntax(Parser *ps, const char *what)
{
  set_err(ps->err, ps->errlen, "malformed header: %s at column %ld", what,
          (long)(ps->p - ps->begin) + 1);
  return -1;
}

static void skip_ws(Parser *ps)
{
  while (ps->p < ps->end &&
         (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static bool peek(Parser *ps, char c)
{
  skip_ws(ps);
  return ps->p < ps->end && *ps->p == c;
}

static int expect(Parser *ps, char c)
{
  if (!peek(ps, c)) {
    char what[32];
    snprintf(what, sizeof what, "expected '%c'", c);
    return syntax(ps, what);
  }
  ps->p++;
  return 0;
}

/* A Python string literal in ' or " quotes, without escapes. */
static int parse_string(Parser *ps, char *buf, size_t cap)
{
  skip_ws(ps);
  if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
    return syntax(ps, "expected a string");
  char quote = *ps->p++;
  size_t n = 0;
  while (ps->p < ps->end && *ps->p != quote) {
    if (*ps->p == '\\' || *ps->p == '\n')
      return syntax(ps, "unsupported character in string");
    if (n + 1 >= cap)
      return syntax(ps, "string too long");
    buf[n++] = *ps->p++;
  }
  if (ps->p >= ps->end)
    return syntax(ps, "unterminated string");
  ps->p++;
  buf[n] = '\0';
  return 0;
}

static bool match_word(Parser *ps, const char *w)
{
  size_t n = strlen(w);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
    return false;
  ps->p += n;
  return true;
}

static int parse_bool(Parser *ps, bool *out)
{
  skip_ws(ps);
  if (match_word(ps, "True"))
    *out = true;
  else if (match_word(ps, "False"))
    *out = false;
  else
    return syntax(ps, "expected True or False");
  return 0;
}

/* A non-negative decimal integer (an old Python 2 'L' suffix is allowed). */
static int parse_int(Parser *ps, int64_t *out)
{
  skip_ws(ps);
  if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
    return syntax(ps, "expected a non-negative integer");
  int64_t v = 0;
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
    int digit = *ps->p - '0';
    if (v > (INT64_MAX - digit) / 10)
      return syntax(ps, "integer too large");
    v = v * 10 + digit;
    ps->p++;
  }
  if (ps->p < ps->end && *ps->p == 'L')
    ps->p++;
  *out = v;
  return 0;
}

/* A tuple of integers: (), (5,), (3, 4) or (3, 4,). */
static int parse_shape(Parser *ps, Header *h)
{
  if (expect(ps, '('))
    return -1;
  h->ndim = 0;
  while (!peek(ps, ')')) {
    if (h->ndim == NPY_MAX_DIMS)
      return syntax(ps, "too many dimensions (limit 32)");
    if (parse_int(ps, &h->shape[h->ndim++]))
      return -1;
    if (peek(ps, ',')) {
      ps->p++;
      continue;
    }
    if (!peek(ps, ')'))
      return syntax(ps, "expected ',' or ')' in shape");
    if (h->ndim == 1)
      return syntax(ps, "shape (N) is not a tuple (write (N,))");
  }
  ps->p++;
  return 0;
}

static int parse_value(Parser *ps, const char *key, Header *h)
{
  bool *seen;
  int rc;
  if (strcmp(key, "descr") == 0) {
    seen = &h->have_descr;
    if (peek(ps, '['))
      return syntax(ps, "structured dtypes are not supported");
    rc = parse_string(ps, h->descr, sizeof h->descr);
  } else if (strcmp(key, "fortran_order") == 0) {
    seen = &h->have_fortran;
    rc = parse_bool(ps, &h->fortran);
  } else if (strcmp(key, "shape") == 0) {
    seen = &h->have_shape;
    rc = parse_shape(ps, h);
  } else {
    set_err(ps->err, ps->errlen, "unexpected key '%s' in header", key);
    return -1;
  }
  if (rc == 0 && *seen) {
    set_err(ps->err, ps->errlen, "duplicate key '%s' in header", key);
    return -1;
  }
  *seen = true;
  return rc;
}

static int check_keys(const Header *h, char *err, size_t errlen)
{
  const char *missing = !h->have_descr   ? "descr"
                        : !h->have_fortran ? "fortran_order"
                        : !h->have_shape   ? "shape"
                                           : NULL;
  if (missing) {
    set_err(err, errlen, "header has no '%s' key", missing);
    return -1;
  }
  return 0;
}

static int parse_header(const char *text, size_t len, Header *h, char *err,
                        size_t errlen)
{
  Parser ps = { text, text, text + len, err, errlen };
  memset(h, 0, sizeof *h);
  if (expect(&ps, '{'))
    return -1;
  while (!peek(&ps, '}')) {
    char key[32];
    if (parse_string(&ps, key, sizeof key) || expect(&ps, ':') ||
        parse_value(&ps, key, h))
      return -1;
    if (peek(&ps, ','))
      ps.p++;
    else if (!peek(&ps, '}'))
      return syntax(&ps, "expected ',' or '}'");
  }
  ps.p++;
  skip_ws(&ps);
  if (ps.p != ps.end)
    return syntax(&ps, "unexpected text after '}'");
  return check_keys(h, err, errlen);
}

/* ------------------------------------------------------------ reading */

typedef struct Preamble {
  int major, minor;
  size_t header_off, header_len;
} Preamble;

/* buf holds the first avail bytes of a file of total bytes. */
static int parse_preamble(const unsigned char *buf, size_t avail, uint64_t total,
                          Preamble *pre, char *err, size_t errlen)
{
  if (avail < NPY_MAGIC_LEN + 2 || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
    set_err(err, errlen, "not a .npy file (bad magic string)");
    return -1;
  }
  pre->major = buf[6];
  pre->minor = buf[7];
  if (pre->major < 1 || pre->major > 3 || pre->minor != 0) {
    set_err(err, errlen, "unsupported .npy format version %d.%d", pre->major,
            pre->minor);
    return -1;
  }
  int width = pre->major == 1 ? 2 : 4;
  pre->header_off = NPY_MAGIC_LEN + 2 + (size_t)width;
  if (avail < pre->header_off) {
    set_err(err, errlen, "truncated file: no header length");
    return -1;
  }
  pre->header_len = read_le(buf + 8, width);
  if (pre->header_len > total - pre->header_off) {
    set_err(err, errlen,
            "truncated header: header length %zu exceeds the file size",
            pre->header_len);
    return -1;
  }
  return 0;
}

static int check_descr(const char *raw, const char **norm, char *err,
                       size_t errlen)
{
  const char *body = raw[0] ? raw + 1 : raw;
  if (raw[0] == '>' && npy_descr_size(body) != 1) {
    set_err(err, errlen,
            "big-endian dtype '%s' is not supported (only little-endian)", raw);
    return -1;
  }
  /* '>' is accepted for one-byte types, where byte order is meaningless. */
  bool order_ok = raw[0] == '<' || raw[0] == '|' || raw[0] == '>';
  *norm = order_ok && strlen(raw) == 3 ? normalise_descr(body) : NULL;
  if (!*norm) {
    set_err(err, errlen, "unsupported dtype '%s'", raw);
    return -1;
  }
  return 0;
}

/* Checks the parsed header and fills everything of *out but the data. */
static int header_to_array(const Header *h, NpyArray *out, size_t *bytes,
                           char *err, size_t errlen)
{
  const char *norm;
  if (check_descr(h->descr, &norm, err, errlen))
    return -1;
  if (h->fortran) {
    set_err(err, errlen,
            "Fortran-ordered arrays are not supported (fortran_order is True); "
            "save the array in C order");
    return -1;
  }
  strcpy(out->descr, norm);
  out->elem_size = (size_t)(norm[1] - '0');
  out->ndim = h->ndim;
  memcpy(out->shape, h->shape, sizeof h->shape);
  return shape_size(h->ndim, h->shape, out->elem_size, &out->nelem, bytes, err,
                    errlen);
}

static int check_data_len(uint64_t have, size_t need, char *err, size_t errlen)
{
  if (have < need) {
    set_err(err, errlen, "truncated data: expected %zu bytes, found %llu", need,
            (unsigned long long)have);
    return -1;
  }
  if (have > need) {
    set_err(err, errlen,
            "trailing data: %llu bytes after the %zu bytes of array data",
            (unsigned long long)(have - need), need);
    return -1;
  }
  return 0;
}

static int alloc_data(NpyArray *out, size_t bytes, char *err, size_t errlen)
{
  out->data = malloc(bytes ? bytes : 1);
  if (!out->data) {
    set_err(err, errlen, "out of memory allocating %zu bytes", bytes);
    return -1;
  }
  return 0;
}

static void finish_data(NpyArray *out)
{
  if (!host_is_little_endian())
    swap_elems(out->data, out->nelem, out->elem_size);
}

int npy_read_mem(const void *buf, size_t len, NpyArray *out, char *err,
                 size_t errlen)
{
  const unsigned char *b = buf;
  Preamble pre;
  Header h;
  size_t bytes;
  memset(out, 0, sizeof *out);
  if (parse_preamble(b, len, len, &pre, err, errlen) ||
      parse_header((const char *)b + pre.header_off, pre.header_len, &h, err,
                   errlen) ||
      header_to_array(&h, out, &bytes, err, errlen))
    goto fail;
  size_t data_off = pre.header_off + pre.header_len;
  if (check_data_len(len - data_off, bytes, err, errlen) ||
      alloc_data(out, bytes, err, errlen))
    goto fail;
  if (bytes)
    memcpy(out->data, b + data_off, bytes);
  finish_data(out);
  return 0;
fail:
  npy_free(out);
  memset(out, 0, sizeof *out);
  return -1;
}

static int file_size(FILE *f, uint64_t *size, char *err, size_t errlen)
{
  long n;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    set_err(err, errlen, "cannot determine the file size: %s", strerror(errno));
    return -1;
  }
  *size = (uint64_t)n;
  return 0;
}

static int read_exact(FILE *f, void *buf, size_t n, char *err, size_t errlen)
{
  if (n && fread(buf, 1, n, f) != n) {
    set_err(err, errlen, "read error: %s",
            ferror(f) ? strerror(errno) : "unexpected end of file");
    return -1;
  }
  return 0;
}

static int read_header_from(FILE *f, uint64_t total, Preamble *pre, Header *h,
                            char *err, size_t errlen)
{
  unsigned char start[12];
  size_t avail = total < sizeof start ? (size_t)total : sizeof start;
  if (read_exact(f, start, avail, err, errlen) ||
      parse_preamble(start, avail, total, pre, err, errlen))
    return -1;
  char *text = malloc(pre->header_len + 1);
  if (!text) {
    set_err(err, errlen, "out of memory reading the header");
    return -1;
  }
  int rc = -1;
  if (fseek(f, (long)pre->header_off, SEEK_SET) == 0 &&
      read_exact(f, text, pre->header_len, err, errlen) == 0)
    rc = parse_header(text, pre->header_len, h, err, errlen);
  free(text);
  return rc;
}

static int read_from(FILE *f, NpyArray *out, char *err, size_t errlen)
{
  uint64_t total;
  Preamble pre;
  Header h;
  size_t bytes;
  if (file_size(f, &total, err, errlen) ||
      read_header_from(f, total, &pre, &h, err, errlen) ||
      header_to_array(&h, out, &bytes, err, errlen))
    return -1;
  uint64_t data_off = pre.header_off + pre.header_len;
  if (check_data_len(total - data_off, bytes, err, errlen) ||
      alloc_data(out, bytes, err, errlen) ||
      read_exact(f, out->data, bytes, err, errlen))
    return -1;
  if (fgetc(f) != EOF) {
    set_err(err, errlen, "trailing data: the file grew while being read");
    return -1;
  }
  finish_data(out);
  return 0;
}

int npy_read(const char *path, NpyArray *out, char *err, size_t errlen)
{
  char msg[NPY_MSG_MAX] = "";
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  int rc = read_from(f, out, msg, sizeof msg);
  fclose(f);
  if (rc) {
    npy_free(out);
    memset(out, 0, sizeof *out);
    set_err(err, errlen, "%s: %s", path, msg);
  }
  return rc;
}

void npy_free(NpyArray *a)
{
  if (!a)
    return;
  free(a->data);
  a->data = NULL;
}

/* ------------------------------------------------------------ writing */

/* "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", as numpy. */
static size_t format_dict(char *buf, size_t cap, const char *descr, int ndim,
                          const int64_t *shape)
{
  char order = descr[1] == '1' ? '|' : '<';
  size_t n = (size_t)snprintf(buf, cap,
                              "{'descr': '%c%s', 'fortran_order': False, "
                              "'shape': (",
                              order, descr);
  for (int i = 0; i < ndim; i++)
    n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld",
                          (long long)shape[i]);
  n += (size_t)snprintf(buf + n, cap - n, "%s), }", ndim == 1 ? "," : "");
  return n;
}

/* The whole preamble and header, padded like numpy: 1..64 spaces and '\n'
 * so that the data starts at a multiple of 64.  Returns its length. */
static size_t build_header(unsigned char *buf, const char *dict, size_t dlen)
{
  int major = 1;
  size_t prefix = NPY_MAGIC_LEN + 2 + 2;
  size_t pad = NPY_ALIGN - (prefix + dlen + 1) % NPY_ALIGN;
  if (dlen + 1 + pad > 65535) {
    major = 2;
    prefix = NPY_MAGIC_LEN + 2 + 4;
    pad = NPY_ALIGN - (prefix + dlen + 1) % NPY_ALIGN;
  }
  size_t hlen = dlen + pad + 1;
  memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  write_le(buf + 8, (uint32_t)hlen, major == 1 ? 2 : 4);
  memcpy(buf + prefix, dict, dlen);
  memset(buf + prefix + dlen, ' ', pad);
  buf[prefix + hlen - 1] = '\n';
  return prefix + hlen;
}

static int write_data(FILE *f, const void *data, size_t nelem, size_t size)
{
  if (host_is_little_endian())
    return nelem && fwrite(data, size, nelem, f) != nelem ? -1 : 0;
  unsigned char chunk[4096];
  const unsigned char *p = data;
  size_t per = sizeof chunk / size;
  for (size_t done = 0; done < nelem; done += per) {
    size_t k = nelem - done < per ? nelem - done : per;
    memcpy(chunk, p + done * size, k * size);
    swap_elems(chunk, k, size);
    if (fwrite(chunk, size, k, f) != k)
      return -1;
  }
  return 0;
}

static int check_write_args(const char *descr, int ndim, const int64_t *shape,
                            const void *data, size_t *nelem, char *err,
                            size_t errlen)
{
  size_t bytes;
  if (!descr || !normalise_descr(descr)) {
    set_err(err, errlen, "unsupported dtype '%s'", descr ? descr : "(null)");
    return -1;
  }
  if (ndim < 0 || ndim > NPY_MAX_DIMS || (ndim > 0 && !shape)) {
    set_err(err, errlen, "invalid rank %d (0 to %d)", ndim, NPY_MAX_DIMS);
    return -1;
  }
  if (shape_size(ndim, shape, npy_descr_size(descr), nelem, &bytes, err,
                 errlen))
    return -1;
  if (bytes && !data) {
    set_err(err, errlen, "no data for a non-empty array");
    return -1;
  }
  return 0;
}

int npy_write(const char *path, const char *descr, int ndim,
              const int64_t *shape, const void *data, char *err, size_t errlen)
{
  char dict[64 + NPY_MAX_DIMS * 24];
  unsigned char header[sizeof dict + 16 + NPY_ALIGN];
  size_t nelem;
  if (check_write_args(descr, ndim, shape, data, &nelem, err, errlen))
    return -1;
  const char *norm = normalise_descr(descr);
  size_t dlen = format_dict(dict, sizeof dict, norm, ndim, shape);
  size_t hlen = build_header(header, dict, dlen);
  FILE *f = fopen(path, "wb");
  if (!f) {
    set_err(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  bool ok = fwrite(header, 1, hlen, f) == hlen &&
            write_data(f, data, nelem, npy_descr_size(norm)) == 0;
  int saved = errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    remove(path);
    set_err(err, errlen, "%s: write error: %s", path, strerror(saved));
    return -1;
  }
  return 0;
}
