/* npy_test.c -- unit tests for interp/npy.c. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/npy.h"
#include "testsuite/corpus_walk.h"

/* ------------------------------------------------------------ fixtures */

typedef struct Fixture {
  char dir[256];
  char paths[8][512]; /* the last few tmp_path results */
  int next;
} Fixture;

static int setup(void **state)
{
  Fixture *fx = calloc(1, sizeof *fx);
  const char *tmp = getenv("TMPDIR");
  if (!fx)
    return -1;
  snprintf(fx->dir, sizeof fx->dir, "%s/npy_test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(fx->dir)) {
    free(fx);
    return -1;
  }
  *state = fx;
  return 0;
}

static int teardown(void **state)
{
  Fixture *fx = *state;
  rmdir(fx->dir); /* every test removes its own files */
  free(fx);
  return 0;
}

static char *tmp_path(void **state, const char *name)
{
  Fixture *fx = *state;
  char buf[sizeof fx->paths[0]];
  char *p = fx->paths[fx->next++ % 8];
  snprintf(buf, sizeof buf, "%s/%s", fx->dir, name);
  memcpy(p, buf, sizeof buf);
  return p;
}

static unsigned char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* A .npy image in buf: the given version, header dict (padded to 64 with
 * '\n'), then data_len bytes of 0xab.  Returns the total length. */
static size_t make_npy(unsigned char *buf, int major, const char *dict,
                       size_t data_len)
{
  size_t prefix = major == 1 ? 10 : 12, dlen = strlen(dict);
  size_t hlen = dlen + 1;
  hlen += (64 - (prefix + hlen) % 64) % 64;
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  for (size_t i = 0; i < prefix - 8; i++)
    buf[8 + i] = (unsigned char)(hlen >> (8 * i));
  memcpy(buf + prefix, dict, dlen);
  memset(buf + prefix + dlen, ' ', hlen - dlen - 1);
  buf[prefix + hlen - 1] = '\n';
  memset(buf + prefix + hlen, 0xab, data_len);
  return prefix + hlen + data_len;
}

/* Reading buf must fail with a message containing want. */
static void expect_mem_error(const unsigned char *buf, size_t len, const char *want)
{
  NpyArray a;
  char err[256] = "";
  assert_int_equal(npy_read_mem(buf, len, &a, err, sizeof err), -1);
  assert_null(a.data);
  if (!strstr(err, want))
    fail_msg("error '%s' does not contain '%s'", err, want);
  assert_null(strchr(err, '\n'));
  npy_free(&a);
}

static void expect_dict_error(const char *dict, size_t data_len, const char *want)
{
  unsigned char buf[1024];
  expect_mem_error(buf, make_npy(buf, 1, dict, data_len), want);
}

/* ------------------------------------------------------------ round trips */

static void roundtrip(void **state, const char *descr, int ndim,
                      const int64_t *shape)
{
  const char *path = tmp_path(state, "rt.npy");
  size_t size = npy_descr_size(descr), n = 1;
  for (int i = 0; i < ndim; i++)
    n *= (size_t)shape[i];
  unsigned char *data = malloc(n * size + 1);
  for (size_t i = 0; i < n * size; i++)
    data[i] = descr[0] == 'b' ? (unsigned char)(i % 3 == 0)
                              : (unsigned char)(i * 37 + 11);
  char err[256] = "";
  assert_int_equal(npy_write(path, descr, ndim, shape, data, err, sizeof err), 0);
  NpyArray a;
  if (npy_read(path, &a, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_string_equal(a.descr, descr[0] == '<' || descr[0] == '|' ? descr + 1 : descr);
  assert_int_equal(a.ndim, ndim);
  assert_int_equal(a.elem_size, size);
  assert_int_equal(a.nelem, n);
  for (int i = 0; i < ndim; i++)
    assert_int_equal(a.shape[i], shape[i]);
  assert_memory_equal(a.data, data, n * size);
  npy_free(&a);

  size_t len;
  unsigned char *raw = slurp(path, &len);
  assert_int_equal((len - n * size) % 64, 0); /* data aligned to 64 */
  assert_int_equal(raw[len - n * size - 1], '\n');
  assert_int_equal(raw[6], 1);
  free(raw);
  free(data);
  unlink(path);
}

static void test_roundtrip_every_dtype(void **state)
{
  static const char *const dtypes[] = { "f2", "f4", "f8", "i1", "i2", "i4",
                                        "i8", "u1", "u2", "u4", "u8", "b1" };
  const int64_t shape[2] = { 2, 3 };
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    roundtrip(state, dtypes[i], 2, shape);
  roundtrip(state, "<f4", 2, shape);
  roundtrip(state, "|u1", 2, shape);
}

static void test_roundtrip_shapes(void **state)
{
  const int64_t s1[1] = { 5 }, s3[3] = { 2, 3, 4 }, s0[2] = { 0, 3 };
  roundtrip(state, "f8", 0, NULL);
  roundtrip(state, "i4", 1, s1);
  roundtrip(state, "f4", 3, s3);
  roundtrip(state, "u2", 2, s0);
  int64_t s32[32];
  for (int i = 0; i < 32; i++)
    s32[i] = 1;
  s32[31] = 2;
  roundtrip(state, "i8", 32, s32);
}

static void expect_header(void **state, const char *descr, int ndim,
                          const int64_t *shape, const char *want)
{
  const char *path = tmp_path(state, "hdr.npy");
  double zero[64] = { 0 };
  char err[256];
  assert_int_equal(npy_write(path, descr, ndim, shape, zero, err, sizeof err), 0);
  size_t len;
  unsigned char *raw = slurp(path, &len);
  assert_true(len > 10 + strlen(want));
  assert_memory_equal(raw, "\x93NUMPY\x01\x00", 8);
  assert_memory_equal(raw + 10, want, strlen(want));
  for (size_t i = 10 + strlen(want); raw[i] != '\n'; i++)
    assert_int_equal(raw[i], ' ');
  free(raw);
  unlink(path);
}

/* The header text is exactly numpy's. */
static void test_header_text(void **state)
{
  const int64_t s1[1] = { 5 }, s3[3] = { 2, 3, 4 };
  expect_header(state, "f8", 0, NULL,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  expect_header(state, "i4", 1, s1,
                "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }");
  expect_header(state, "b1", 3, s3,
                "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3, 4), }");
  expect_header(state, "u1", 1, s1,
                "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }");
}

/* ------------------------------------------------------------ parsing */

static void expect_read_ok(const unsigned char *buf, size_t len, NpyArray *a)
{
  char err[256] = "";
  if (npy_read_mem(buf, len, a, err, sizeof err) != 0)
    fail_msg("unexpected error: %s", err);
}

static void test_version_2_and_3(void **state)
{
  (void)state;
  unsigned char buf[512];
  NpyArray a;
  for (int major = 2; major <= 3; major++) {
    size_t len = make_npy(buf, major,
                          "{'descr': '<i2', 'fortran_order': False, 'shape': (3, 2), }",
                          12);
    assert_int_equal(len % 64, 12);
    expect_read_ok(buf, len, &a);
    assert_string_equal(a.descr, "i2");
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 3);
    assert_int_equal(a.shape[1], 2);
    assert_int_equal(((uint16_t *)a.data)[5], 0xabab);
    npy_free(&a);
  }
}

static void test_header_spelling(void **state)
{
  (void)state;
  static const char *const dicts[] = {
    "{ \"shape\" :(3 ,4 ,) ,'fortran_order':False,'descr':'<i2'}",
    "{'descr':'<i2','fortran_order':False,'shape':(3L, 4L)}",
    "{\t'descr': \"<i2\",\n 'fortran_order': False, 'shape': (3, 4), }  ",
  };
  unsigned char buf[512];
  for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
    NpyArray a;
    expect_read_ok(buf, make_npy(buf, 1, dicts[i], 24), &a);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 3);
    assert_int_equal(a.shape[1], 4);
    assert_int_equal(a.nelem, 12);
    npy_free(&a);
  }
  /* one-byte types: byte order '>' is harmless */
  NpyArray a;
  expect_read_ok(buf, make_npy(buf, 1, "{'descr': '>i1', 'fortran_order': False, 'shape': (2,), }", 2), &a);
  assert_string_equal(a.descr, "i1");
  npy_free(&a);
}

static void test_bad_preamble(void **state)
{
  (void)state;
  unsigned char buf[512];
  size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
  expect_mem_error(buf, 0, "bad magic");
  expect_mem_error(buf, 5, "bad magic");
  expect_mem_error(buf, 9, "no header length");
  expect_mem_error(buf, 40, "truncated header");
  buf[1] = 'M';
  expect_mem_error(buf, len, "bad magic");
  buf[1] = 'N';
  buf[6] = 4;
  expect_mem_error(buf, len, "unsupported .npy format version 4.0");
  buf[6] = 1;
  buf[7] = 1;
  expect_mem_error(buf, len, "unsupported .npy format version 1.1");
  buf[7] = 0;
  buf[8] = 0xff; /* header_len 0x00ff + ... beyond the file */
  buf[9] = 0x7f;
  expect_mem_error(buf, len, "truncated header");
}

static void test_bad_dtype(void **state)
{
  (void)state;
  expect_dict_error("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
                    "unsupported dtype '<c8'");
  expect_dict_error("{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }", 40,
                    "unsupported dtype '<U5'");
  expect_dict_error("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16,
                    "unsupported dtype '|O'");
  expect_dict_error("{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }", 8,
                    "unsupported dtype 'f4'");
  expect_dict_error("{'descr': '<f4x', 'fortran_order': False, 'shape': (2,), }", 8,
                    "unsupported dtype '<f4x'");
  expect_dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
                    8, "structured dtypes are not supported");
  expect_dict_error("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
                    "big-endian dtype '>f4' is not supported");
  expect_dict_error("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16,
                    "Fortran-ordered arrays are not supported");
}

static void test_bad_header_syntax(void **state)
{
  (void)state;
  static const struct { const char *dict, *want; } cases[] = {
    { "{'descr': '<f4', 'fortran_order': False}", "header has no 'shape' key" },
    { "{'fortran_order': False, 'shape': (2,)}", "header has no 'descr' key" },
    { "{'descr': '<f4', 'shape': (2,)}", "header has no 'fortran_order' key" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
      "unexpected key 'x'" },
    { "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
      "duplicate key 'descr'" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "not a tuple" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
      "expected a non-negative integer" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "expected '('" },
    { "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
      "expected True or False" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
      "unexpected text after '}'" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
      "expected ',' or '}'" },
    { "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
      "expected ',' or '}'" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'sha",
      "malformed header: string too long" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 7: 1}",
      "expected a string" },
    { "{'descr': '<f4', 'fortran_order': False 'shape': (2,)}",
      "expected ',' or '}'" },
    { "'descr': '<f4'", "expected '{'" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
      "expected ',' or ')' in shape" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
      "integer too large" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': "
      "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
      "too many dimensions" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\\x': 1}",
      "unsupported character in string" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_dict_error(cases[i].dict, 8, cases[i].want);
  /* a message names the column */
  unsigned char buf[512];
  NpyArray a;
  char err[256];
  size_t len = make_npy(buf, 1, "{'descr' '<f4'}", 0);
  assert_int_equal(npy_read_mem(buf, len, &a, err, sizeof err), -1);
  assert_string_equal(err, "malformed header: expected ':' at column 10");
}

static void test_bad_sizes(void **state)
{
  (void)state;
  const char *f4_4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  expect_dict_error(f4_4, 15, "truncated data: expected 16 bytes, found 15");
  expect_dict_error(f4_4, 17, "trailing data: 1 bytes after the 16 bytes");
  expect_dict_error(f4_4, 0, "truncated data");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, "
                    "'shape': (4611686018427387904, 4611686018427387904), }",
                    16, "the element count overflows");
  expect_dict_error("{'descr': '<f8', 'fortran_order': False, "
                    "'shape': (4611686018427387904,), }",
                    16, "the data size overflows");
  expect_dict_error("{'descr': '<f8', 'fortran_order': False, "
                    "'shape': (9223372036854775807, 3), }",
                    16, "overflows");
  /* large but representable: refused without allocating it */
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, "
                    "'shape': (1099511627776,), }",
                    16, "truncated data: expected 4398046511104 bytes");
  /* a zero extent makes the array empty whatever the others */
  NpyArray a;
  unsigned char buf[512];
  expect_read_ok(buf, make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (9223372036854775807, 0), }", 0), &a);
  assert_int_equal(a.nelem, 0);
  assert_non_null(a.data);
  npy_free(&a);
}

/* Every prefix and many corruptions of a valid file are handled. */
static void test_no_crash_on_garbage(void **state)
{
  (void)state;
  unsigned char good[256], buf[256];
  size_t len = make_npy(good, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 24);
  NpyArray a;
  char err[128];
  for (size_t n = 0; n < len; n++) {
    assert_int_equal(npy_read_mem(good, n, &a, err, sizeof err), -1);
    assert_null(a.data);
  }
  uint64_t x = 12345;
  for (int round = 0; round < 20000; round++) {
    memcpy(buf, good, len);
    for (int k = 0; k < 3; k++) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      buf[(x >> 33) % (len - 24)] = (unsigned char)(x >> 20);
    }
    if (npy_read_mem(buf, len, &a, err, sizeof err) == 0)
      assert_int_equal(a.nelem * a.elem_size + (len - 24), len);
    npy_free(&a);
  }
  /* err may be NULL or tiny */
  assert_int_equal(npy_read_mem(good, 3, &a, NULL, 0), -1);
  assert_int_equal(npy_read_mem(good, 3, &a, err, 1), -1);
  assert_string_equal(err, "");
}

static void test_file_errors(void **state)
{
  char err[512];
  NpyArray a;
  const char *missing = tmp_path(state, "missing.npy");
  assert_int_equal(npy_read(missing, &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "missing.npy: cannot open"));

  const char *path = tmp_path(state, "short.npy");
  unsigned char buf[256];
  size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16);
  spit(path, buf, len - 1);
  assert_int_equal(npy_read(path, &a, err, sizeof err), -1);
  assert_null(a.data);
  assert_non_null(strstr(err, "short.npy: truncated data: expected 16 bytes, found 15"));
  spit(path, buf, len);
  assert_int_equal(npy_read(path, &a, err, sizeof err), 0);
  npy_free(&a);
  spit(path, buf, 20);
  assert_int_equal(npy_read(path, &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "truncated header"));
  unlink(path);
}

static void test_write_errors(void **state)
{
  char err[512];
  const int64_t shape[2] = { 2, 2 }, neg[1] = { -1 };
  float data[4] = { 0 };
  const char *path = tmp_path(state, "w.npy");
  assert_int_equal(npy_write(path, "c8", 2, shape, data, err, sizeof err), -1);
  assert_string_equal(err, "unsupported dtype 'c8'");
  assert_int_equal(npy_write(path, ">f4", 2, shape, data, err, sizeof err), -1);
  assert_int_equal(npy_write(path, "f4", 33, shape, data, err, sizeof err), -1);
  assert_non_null(strstr(err, "invalid rank 33"));
  assert_int_equal(npy_write(path, "f4", 1, neg, data, err, sizeof err), -1);
  assert_non_null(strstr(err, "negative extent -1"));
  assert_int_equal(npy_write(path, "f4", 2, shape, NULL, err, sizeof err), -1);
  assert_int_equal(access(path, F_OK), -1);
  const char *bad = tmp_path(state, "no/such/dir/x.npy");
  assert_int_equal(npy_write(bad, "f4", 2, shape, data, err, sizeof err), -1);
  assert_non_null(strstr(err, "cannot create"));
  assert_int_equal(npy_descr_size("f8"), 8);
  assert_int_equal(npy_descr_size("|b1"), 1);
  assert_int_equal(npy_descr_size("f16"), 0);
  assert_int_equal(npy_descr_size(NULL), 0);
}

/* ------------------------------------------------------------ numpy */

static bool have_numpy(void)
{
  return system("python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

static void write_file(const char *path, const char *text)
{
  spit(path, text, strlen(text));
}

static const char numpy_check_script[] =
  "import sys, numpy as np\n"
  "d = sys.argv[1]\n"
  "def same(name, want):\n"
  "    a = np.load(d + '/' + name)\n"
  "    assert a.dtype == want.dtype and a.shape == want.shape, (name, a.dtype, a.shape)\n"
  "    assert np.array_equal(a, want, equal_nan=True), (name, a, want)\n"
  "    np.save(d + '/np_' + name, want)\n"
  "    assert open(d + '/' + name, 'rb').read() == open(d + '/np_' + name, 'rb').read(), name\n"
  "same('c_f4.npy', np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5)\n"
  "same('c_f2.npy', np.array([1.0, -2.0, 0.5, np.inf], dtype=np.float16))\n"
  "same('c_b1.npy', np.array([[True, False, True]]))\n"
  "same('c_i8.npy', np.array([-1, 2**40], dtype=np.int64))\n"
  "same('c_f8.npy', np.array(2.5))\n"
  "same('c_u1.npy', np.zeros((2, 0, 3), dtype=np.uint8))\n"
  "np.save(d + '/p_f2.npy', np.array([[1.0, -0.25], [65504.0, np.nan]], dtype=np.float16))\n"
  "np.save(d + '/p_b1.npy', np.array([False, True, True]))\n"
  "np.save(d + '/p_i8.npy', np.array([[-(2**62)], [7]], dtype=np.int64))\n"
  "with open(d + '/p_v2.npy', 'wb') as f:\n"
  "    np.lib.format.write_array(f, np.arange(6, dtype=np.uint16).reshape(2, 3), version=(2, 0))\n"
  "with open(d + '/p_fo.npy', 'wb') as f:\n"
  "    np.lib.format.write_array(f, np.asfortranarray(np.ones((2, 3))))\n"
  "np.save(d + '/p_be.npy', np.arange(3, dtype='>f4'))\n";

static void write_for_numpy(void **state)
{
  float f4[12];
  for (int i = 0; i < 12; i++)
    f4[i] = (float)i * 0.5f;
  const uint16_t f2[4] = { 0x3c00, 0xc000, 0x3800, 0x7c00 };
  const uint8_t b1[3] = { 1, 0, 1 };
  const int64_t i8[2] = { -1, INT64_C(1) << 40 };
  const double f8 = 2.5;
  const int64_t s34[2] = { 3, 4 }, s4[1] = { 4 }, s13[2] = { 1, 3 }, s2[1] = { 2 },
                s203[3] = { 2, 0, 3 };
  char err[512];
  assert_int_equal(npy_write(tmp_path(state, "c_f4.npy"), "f4", 2, s34, f4, err, sizeof err), 0);
  assert_int_equal(npy_write(tmp_path(state, "c_f2.npy"), "f2", 1, s4, f2, err, sizeof err), 0);
  assert_int_equal(npy_write(tmp_path(state, "c_b1.npy"), "b1", 2, s13, b1, err, sizeof err), 0);
  assert_int_equal(npy_write(tmp_path(state, "c_i8.npy"), "i8", 1, s2, i8, err, sizeof err), 0);
  assert_int_equal(npy_write(tmp_path(state, "c_f8.npy"), "f8", 0, NULL, &f8, err, sizeof err), 0);
  assert_int_equal(npy_write(tmp_path(state, "c_u1.npy"), "u1", 3, s203, NULL, err, sizeof err), 0);
}

static NpyArray read_ok(const char *path, const char *descr, int ndim)
{
  NpyArray a;
  char err[512];
  if (npy_read(path, &a, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_string_equal(a.descr, descr);
  assert_int_equal(a.ndim, ndim);
  return a;
}

static void read_from_numpy(void **state)
{
  NpyArray a = read_ok(tmp_path(state, "p_f2.npy"), "f2", 2);
  const uint16_t *h = a.data;
  assert_int_equal(h[0], 0x3c00);
  assert_int_equal(h[1], 0xb400);
  assert_int_equal(h[2], 0x7bff);
  assert_int_equal(h[3] & 0x7c00, 0x7c00);
  assert_true((h[3] & 0x3ff) != 0);
  npy_free(&a);
  a = read_ok(tmp_path(state, "p_b1.npy"), "b1", 1);
  assert_memory_equal(a.data, "\0\1\1", 3);
  npy_free(&a);
  a = read_ok(tmp_path(state, "p_i8.npy"), "i8", 2);
  assert_int_equal(a.shape[0], 2);
  assert_int_equal(a.shape[1], 1);
  assert_true(((int64_t *)a.data)[0] == -(INT64_C(1) << 62));
  assert_int_equal(((int64_t *)a.data)[1], 7);
  npy_free(&a);
  a = read_ok(tmp_path(state, "p_v2.npy"), "u2", 2);
  assert_int_equal(((uint16_t *)a.data)[5], 5);
  npy_free(&a);

  char err[512];
  assert_int_equal(npy_read(tmp_path(state, "p_fo.npy"), &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "Fortran-ordered"));
  assert_int_equal(npy_read(tmp_path(state, "p_be.npy"), &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "big-endian dtype '>f4'"));
}

static void test_numpy_interop(void **state)
{
  if (!have_numpy())
    skip();
  static const char *const files[] = {
    "c_f4.npy", "c_f2.npy", "c_b1.npy", "c_i8.npy", "c_f8.npy", "c_u1.npy",
    "np_c_f4.npy", "np_c_f2.npy", "np_c_b1.npy", "np_c_i8.npy", "np_c_f8.npy",
    "np_c_u1.npy", "p_f2.npy", "p_b1.npy", "p_i8.npy", "p_v2.npy", "p_fo.npy",
    "p_be.npy", "check.py",
  };
  const Fixture *fx = *state;
  write_for_numpy(state);
  write_file(tmp_path(state, "check.py"), numpy_check_script);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", tmp_path(state, "check.py"), fx->dir);
  int rc = system(cmd);
  if (rc == 0)
    read_from_numpy(state);
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    unlink(tmp_path(state, files[i]));
  assert_int_equal(rc, 0);
}

/* ------------------------------------------------------------ the corpus */

/* Just after `"key":` inside [p, end), or NULL.  (A minimal reader for the
 * corpus's manifest.json, whose tensor objects hold no nested objects.) */
static const char *find_key(const char *p, const char *end, const char *key)
{
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  size_t n = strlen(quoted);
  for (; p + n <= end; p++)
    if (memcmp(p, quoted, n) == 0) {
      p += n;
      while (p < end && (*p == ' ' || *p == ':' || *p == '\n'))
        p++;
      return p;
    }
  return NULL;
}

static bool json_string(const char *p, const char *end, const char *key,
                        char *out, size_t cap)
{
  p = find_key(p, end, key);
  if (!p || *p != '"')
    return false;
  size_t n = 0;
  for (p++; p < end && *p != '"' && n + 1 < cap; p++)
    out[n++] = *p;
  out[n] = '\0';
  return true;
}

static int json_shape(const char *p, const char *end, int64_t *shape)
{
  p = find_key(p, end, "shape");
  if (!p || *p != '[')
    return -1;
  int ndim = 0;
  for (p++; p < end && *p != ']'; p++)
    if (*p >= '0' && *p <= '9' && ndim < NPY_MAX_DIMS) {
      char *after;
      shape[ndim++] = strtoll(p, &after, 10);
      p = after - 1;
    }
  return ndim;
}

static const char *torch_to_descr(const char *dtype)
{
  static const char *const map[][2] = {
    { "float16", "f2" }, { "float32", "f4" }, { "float64", "f8" },
    { "int8", "i1" },    { "int16", "i2" },   { "int32", "i4" },
    { "int64", "i8" },   { "uint8", "u1" },   { "bool", "b1" },
    { "bfloat16", "u2" },
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(dtype, map[i][0]) == 0)
      return map[i][1];
  return "?";
}

/* npy_write of the same array gives numpy's exact bytes. */
static void check_rewrite(void **state, const char *path, const NpyArray *a)
{
  const char *copy = tmp_path(state, "corpus_copy.npy");
  char err[512];
  assert_int_equal(npy_write(copy, a->descr, a->ndim, a->shape, a->data, err, sizeof err), 0);
  size_t n1, n2;
  unsigned char *orig = slurp(path, &n1), *mine = slurp(copy, &n2);
  assert_int_equal(n1, n2);
  assert_memory_equal(orig, mine, n1);
  free(orig);
  free(mine);
  unlink(copy);
}

/* Checks every tensor of one workload's manifest.json; returns how many. */
static int check_workload(void **state, const char *dir)
{
  char path[2048], file[256], dtype[64], err[2600];
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (access(path, R_OK) != 0)
    return 0;
  size_t len;
  char *json = (char *)slurp(path, &len), *end = json + len;
  json[len] = '\0';
  char *p = strstr(json, "\"tensors\"");
  int count = 0;
  while (p && (p = strchr(p, '{')) && p < end) {
    char *close = strchr(p + 1, '}');
    int64_t shape[NPY_MAX_DIMS];
    int ndim = close ? json_shape(p + 1, close, shape) : -1;
    if (ndim >= 0 && json_string(p, close, "file", file, sizeof file) &&
        json_string(p, close, "dtype", dtype, sizeof dtype)) {
      NpyArray a;
      snprintf(path, sizeof path, "%s/%s", dir, file);
      if (npy_read(path, &a, err, sizeof err) != 0)
        fail_msg("%s", err);
      assert_int_equal(a.ndim, ndim);
      for (int i = 0; i < ndim; i++)
        assert_int_equal(a.shape[i], shape[i]);
      assert_string_equal(a.descr, torch_to_descr(dtype));
      check_rewrite(state, path, &a);
      npy_free(&a);
      count++;
    }
    p = close ? close : end;
  }
  free(json);
  return count;
}

static void test_corpus_files(void **state)
{
  char corpus[768], root[1024];
  snprintf(root, sizeof root, "%s/data/level1", corpus_dir(corpus, sizeof corpus, "."));
  DIR *d = opendir(root);
  if (!d)
    skip();
  int tensors = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') {
      char dir[1280];
      snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
      tensors += check_workload(state, dir);
    }
  closedir(d);
  assert_true(tensors > 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip_every_dtype),
    cmocka_unit_test(test_roundtrip_shapes),
    cmocka_unit_test(test_header_text),
    cmocka_unit_test(test_version_2_and_3),
    cmocka_unit_test(test_header_spelling),
    cmocka_unit_test(test_bad_preamble),
    cmocka_unit_test(test_bad_dtype),
    cmocka_unit_test(test_bad_header_syntax),
    cmocka_unit_test(test_bad_sizes),
    cmocka_unit_test(test_no_crash_on_garbage),
    cmocka_unit_test(test_file_errors),
    cmocka_unit_test(test_write_errors),
    cmocka_unit_test(test_numpy_interop),
    cmocka_unit_test(test_corpus_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
