/* compare.h -- comparing an output array with a reference array.
 *
 * Used by --check (STRATEGIES.md §0.4) and by tests comparing with stored
 * PyTorch outputs (SPEC §13.4).  Both arrays have the same dtype and element
 * count and are in host byte order.
 *
 * Verdicts:
 *   CMP_EQUAL   every element bit-identical, where two NaNs count as equal
 *               whatever their payloads (+0 and -0 are NOT equal).
 *   CMP_CLOSE   not EQUAL, but accepted by the tolerance:
 *     CMP_EXACT      never (anything not EQUAL is DIFFER);
 *     CMP_DEFAULT    class T of §0.4: every element has |x - r| <= atol + rtol*|r|
 *                    and NaN/Inf positions are identical (same sign of inf):
 *                    f64 rtol 1e-10 atol 1e-12; f32 rtol 1e-4 atol 1e-6;
 *                    f16, bf16 rtol 1e-2 atol 1e-3; integers and bool must be EQUAL;
 *     CMP_REFERENCE  the reference's acceptance rule (SPEC §13.4): over the
 *                    elements that are not both NaN or both the same inf,
 *                    max_abs, max_rel = max |x-r|/(|r|+1e-8), mse; accept iff
 *                    max_rel <= 5e-3 or max_abs <= 1e-7 or mse <= 1e-5, else
 *                    for f16 and bf16 ("the text contains f16" -- bf16 does)
 *                    iff max_abs < 1.5, for f32 iff max_abs < 1e-3.  An element
 *                    where only one side is NaN/inf (or infs of opposite sign)
 *                    makes it DIFFER.  Integers and bool use the same rule on
 *                    their values.
 *   CMP_DIFFER  otherwise.
 */
#ifndef LEIR_INTERP_COMPARE_H
#define LEIR_INTERP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { CMP_EXACT, CMP_DEFAULT, CMP_REFERENCE } CmpTolerance;
typedef enum { CMP_EQUAL, CMP_CLOSE, CMP_DIFFER } CmpVerdict;

typedef struct CmpResult {
  CmpVerdict verdict;
  int64_t first_index;     /* flat index of the first element that is not
                              bit-equal (NaN pairs count as equal); -1 if none */
  int64_t first_bad_index; /* flat index of the first element outside the
                              tolerance; -1 if none.  Under CMP_REFERENCE, when
                              no element is one-sided NaN/inf, the first
                              element with the largest |a - b| */
  double a_value, b_value; /* at first_bad_index, else at first_index (0 if
                              EQUAL) */
  uint64_t ulp_distance;   /* at that element: floats, the distance in units in
                              the last place (+0 and -0 are 0 apart;
                              UINT64_MAX if exactly one is NaN); integers and
                              bool, |a - b| */
  double max_abs, max_rel, mse; /* over the elements where both are finite;
                                   max_rel = max |a-b| / (|b| + 1e-8) */
} CmpResult;

/* kind: 'f' IEEE float with elem_size 2 (f16), 4 or 8; 'b' bfloat16 (2);
 * 'i' signed and 'u' unsigned integers (1, 2, 4, 8); '?' bool (1).
 * a is the value under test, b the reference.  An unsupported kind/size
 * gives CMP_DIFFER with first_bad_index 0 (or EQUAL when n <= 0). */
CmpResult cmp_arrays(char kind, size_t elem_size, const void *a, const void *b,
                     int64_t n, CmpTolerance tol);

/* "exact", "default", "reference" (--tolerance) into *tol (a CmpTolerance);
 * false for another name. */
bool cmp_tolerance_from_name(const char *s, int *tol);

/* "equal", "close", "differ". */
const char *cmp_verdict_name(CmpVerdict v);

#endif /* LEIR_INTERP_COMPARE_H */
