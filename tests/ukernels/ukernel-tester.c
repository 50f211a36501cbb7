#include "ukernels/ukernel-tester.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/requantization.h"
#include "reference/reference.h"
#include "testers/test-util.h"

#define GUARD TEST_GUARD_BYTE

void tester_random_requant(size_t n, int shift_lo, int shift_hi, int32_t* multiplier, int32_t* shift) {
  for (size_t i = 0; i < n; i++) {
    const uint32_t pick = test_rand() % 16;
    if (pick == 0) {
      multiplier[i] = INT32_C(1) << 30;
    } else if (pick == 1) {
      multiplier[i] = INT32_MAX;
    } else if (pick == 2) {
      multiplier[i] = 0;
    } else {
      multiplier[i] = (int32_t) ((UINT32_C(1) << 30) | (test_rand() & ((UINT32_C(1) << 30) - 1)));
    }
    shift[i] = test_rand_range(shift_lo, shift_hi);
  }
}

void tester_random_fp32_scales(size_t n, int exp_lo, int exp_hi, int32_t* multiplier, int32_t* shift) {
  if (exp_hi > 7) exp_hi = 7; /* XNNPACK's limit: scale < 256 */
  if (exp_lo > exp_hi) exp_lo = exp_hi;
  for (size_t i = 0; i < n; i++) {
    const uint32_t pick = test_rand() % 16;
    float scale;
    if (pick == 0) {
      scale = ldexpf(1.0f, test_rand_range(exp_lo, exp_hi)); /* exact power of two: many ties */
    } else if (pick == 1) {
      scale = 0x1.fffffep+7f; /* largest accepted */
    } else if (pick == 2) {
      scale = ldexpf(1.0f + (float) (test_rand() % 4) * 0.25f, test_rand_range(exp_lo, exp_hi)); /* ties */
    } else {
      scale = ldexpf(1.0f + (float) (test_rand() & 0x7FFFFF) * 0x1.0p-23f, test_rand_range(exp_lo, exp_hi));
    }
    memcpy(&multiplier[i], &scale, sizeof(scale));
    shift[i] = 0;
  }
}

static void random_requant(int rounding, size_t n, int shift_lo, int shift_hi, int tflite_multipliers,
                           int32_t* multiplier, int32_t* shift) {
  if (rounding == 2) {
    /* a TFLite shift s scales by [2^(s-1), 2^s): the same regimes in float */
    tester_random_fp32_scales(n, shift_lo - 1, shift_hi - 1, multiplier, shift);
  } else {
    tester_random_requant(n, shift_lo, shift_hi, multiplier, shift);
    for (size_t i = 0; tflite_multipliers && i < n; i++) {
      if (multiplier[i] == 0) multiplier[i] = INT32_C(1) << 30;
    }
  }
}

static int8_t requantize_ref(int64_t acc, int32_t multiplier, int32_t shift, int rounding, int32_t zp,
                             int32_t vmin, int32_t vmax) {
  /* TFLite's accumulator is int32: wrap, then requantize. */
  const int32_t acc32 = (int32_t) (uint32_t) (uint64_t) acc;
  if (rounding == 2) {
    float scale;
    memcpy(&scale, &multiplier, sizeof(scale));
    return ref_requantize_fp32(acc32, scale, zp, vmin, vmax);
  }
  /* TFLite's `acc += output_offset` is int32 arithmetic: wraps as compiled */
  int32_t out = (int32_t) ((uint32_t) ref_multiply_by_quantized_multiplier(acc32, multiplier, shift, rounding) + (uint32_t) zp);
  if (out < vmin) out = vmin;
  if (out > vmax) out = vmax;
  return (int8_t) out;
}

void tester_boundary_case(size_t n, int rounding, int32_t output_zero_point, int32_t output_min, int32_t output_max,
                          int32_t* multiplier, int32_t* shift, int32_t* bias) {
  for (size_t i = 0; i < n; i++) {
    const uint32_t pick = test_rand() % 8;
    multiplier[i] = pick == 0   ? INT32_C(1) << 30
                    : pick == 1 ? INT32_MAX
                    : pick == 2 && test_rand() % 4 == 0 ? 0
                                : (int32_t) ((UINT32_C(1) << 30) | (test_rand() & ((UINT32_C(1) << 30) - 1)));
    const uint32_t where = test_rand() % 16;
    shift[i] = where == 0 ? test_rand_range(-31, -15) : where == 1 ? test_rand_range(1, 3) : test_rand_range(-14, 0);
    const uint32_t far = test_rand() % 16;
    if (far <= 1 || multiplier[i] == 0 || shift[i] > 0) {
      /* clamped far away, or a case with no boundary to aim at (left shifts wrap in int32); now and
         then near the ends of int32, where TFLite's zero-point addition wraps at shift 0 */
      if (far == 1) {
        /* results within 100 of +-2^31: TFLite's r + zero point wraps */
        multiplier[i] = INT32_MAX, shift[i] = 0;
        bias[i] = test_rand() % 2 ? INT32_MAX - (int32_t) (test_rand() % 100) : INT32_MIN + (int32_t) (test_rand() % 100);
      } else {
        bias[i] = (int32_t) (test_rand() % 2 ? 1 : -1) * (INT32_C(1) << 30) + (int32_t) (test_rand() % 1000);
      }
      continue;
    }
    /* an output near the clamp range (results beyond it matter only at its edges) */
    const int32_t target = test_rand_range(output_min - 2, output_max + 2) - output_zero_point;
    int64_t lo = INT32_MIN, hi = (int64_t) INT32_MAX + 1; /* smallest acc whose result >= target */
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (ref_multiply_by_quantized_multiplier((int32_t) mid, multiplier[i], shift[i], rounding) >= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    /* keep bias + d (|d| <= 3) and the folded zero-point terms inside int32 */
    bias[i] = (int32_t) (lo < INT32_MIN + 1000 ? INT32_MIN + 1000 : lo > INT32_MAX - 1000 ? INT32_MAX - 1000 : lo);
  }
}

static void* checked_malloc(size_t size) {
  void* p = malloc(size == 0 ? 1 : size);
  if (p == NULL) abort();
  return p;
}

/* Alternates 0, 1, 0, ...: the conv testers run every other case with uint8 activations. */
static int flip_next(void) {
  static int calls;
  return calls++ & 1;
}

int gemm_tester_run(const struct gemm_tester* t, const struct q8nn_gemm_entry* gemm,
                    const struct q8nn_igemm_entry* igemm) {
  const char* name = gemm != NULL ? gemm->name : igemm->name;
  const size_t mr_max = gemm != NULL ? gemm->mr : igemm->mr;
  const size_t nr = gemm != NULL ? gemm->nr : igemm->nr;
  const size_t kr = gemm != NULL ? gemm->kr : igemm->kr;
  const int32_t input_offset = gemm != NULL ? gemm->input_offset : igemm->input_offset;
  q8nn_pack_gemm_fn pack = gemm != NULL ? gemm->pack : igemm->pack;
  const size_t m = t->m, n = t->n, k = t->k, ks = gemm != NULL ? 1 : t->ks;
  const size_t a_stride = k + t->a_stride_extra, cm_stride = n + t->c_stride_extra;

  /* Inputs: gemm reads m rows of A (exactly sized); igemm reads ks*MR row pointers. */
  const size_t rows = gemm != NULL ? m : ks * m;
  const size_t a_size = t->a_offset + (rows - 1) * a_stride + k;
  int8_t* a = checked_malloc(a_size);
  test_fill_s8(a, a_size);
  int8_t* zero = checked_malloc(k);
  memset(zero, (int) (int8_t) t->input_zero_point, k);
  int8_t* kernel = checked_malloc(n * ks * k);
  test_fill_s8(kernel, n * ks * k);
  int32_t* bias = checked_malloc(n * sizeof(int32_t));
  test_fill_s32_range(bias, n, -100000, 100000);
  int32_t* multiplier = checked_malloc(n * sizeof(int32_t));
  int32_t* shift = checked_malloc(n * sizeof(int32_t));
  random_requant(t->rounding, n, t->shift_lo, t->shift_hi, t->tflite_multipliers, multiplier, shift);
  if (t->boundary && t->rounding != 2) {
    /* acc = bias + (x - zp) of tap 0, byte 0: every row d = x - zp in [-3, 3] from the boundary */
    memset(kernel, 0, n * ks * k);
    for (size_t j = 0; j < n; j++) kernel[j * ks * k] = 1;
    for (size_t q = 0; q < rows; q++) {
      const int32_t x = t->input_zero_point + test_rand_range(-3, 3);
      a[t->a_offset + q * a_stride] = (int8_t) (x < -128 ? -128 : x > 127 ? 127 : x);
    }
    tester_boundary_case(n, t->rounding, t->output_zero_point, t->output_min, t->output_max, multiplier, shift, bias);
  }
  const size_t packed_size = q8nn_packed_gemm_size(pack, 1, n, ks, k, nr, kr);
  void* packed = checked_malloc(packed_size);
  pack(1, n, ks, k, nr, kr, kernel, bias, multiplier, shift, t->input_zero_point + input_offset, packed);

  /* indirection [ks][MR]: row (tap, i) -> a + offset + (tap*m + i)*a_stride, or zero */
  const int8_t** indirection = checked_malloc(ks * mr_max * sizeof(void*));
  const int8_t** rows_used = checked_malloc(ks * m * sizeof(void*)); /* actual data for the reference */
  for (size_t tap = 0; tap < ks; tap++) {
    for (size_t i = 0; i < mr_max; i++) {
      const size_t ii = i < m ? i : m - 1;
      const int is_zero = t->zero_rows && (test_rand() % 4 == 0);
      const int8_t* row = a + (tap * m + ii) * a_stride; /* before the offset the kernel adds */
      indirection[tap * mr_max + i] = is_zero ? zero : row;
      if (i < m) rows_used[tap * m + i] = is_zero ? zero : row + t->a_offset;
    }
  }

  const size_t c_size = (m - 1) * cm_stride + n + 64;
  int8_t* c = checked_malloc(c_size);
  memset(c, GUARD, c_size);
  /* every other call as a uint8 operator's (ukernel.h: input and output bytes flipped); the AMX
     lines take no uint8 operators */
  const int FL = flip_next() && ((gemm != NULL ? gemm->isa : igemm->isa) & Q8NN_ISA_X86_AMX) == 0 ? 0x80 : 0;
  struct q8nn_qs8_conv_params params = {t->output_zero_point, t->output_min, t->output_max, FL, FL, 0, 0.0f};
  if (t->guard) q8nn_guard_params(&params, t->rounding, n, multiplier, shift);
  int8_t* af = checked_malloc(a_size);
  for (size_t q = 0; q < a_size; q++) af[q] = (int8_t) (a[q] ^ FL);
  int8_t* zf = checked_malloc(k);
  for (size_t q = 0; q < k; q++) zf[q] = (int8_t) (zero[q] ^ FL);
  const int8_t** indf = checked_malloc(ks * mr_max * sizeof(void*));
  for (size_t q = 0; q < ks * mr_max; q++) indf[q] = indirection[q] == zero ? zf : af + (indirection[q] - a);
  if (gemm != NULL) {
    gemm->fn[t->rounding](m, n, k, af + t->a_offset, a_stride, packed, c, cm_stride, nr, &params);
  } else {
    igemm->fn[t->rounding](m, n, k, ks, indf, packed, c, cm_stride, nr, t->a_offset, zf, &params);
  }
  free(af), free(zf), free(indf);

  int failures = 0;
  for (size_t i = 0; i < m && failures < 5; i++) {
    for (size_t j = 0; j < n && failures < 5; j++) {
      int64_t acc = bias[j];
      for (size_t tap = 0; tap < ks; tap++) {
        const int8_t* row = gemm != NULL ? a + t->a_offset + i * a_stride : rows_used[tap * m + i];
        for (size_t kk = 0; kk < k; kk++) {
          acc += (int64_t) kernel[(j * ks + tap) * k + kk] * ((int64_t) row[kk] - t->input_zero_point);
        }
      }
      const int8_t expected = requantize_ref(acc, multiplier[j], shift[j], t->rounding, t->output_zero_point,
                                             t->output_min, t->output_max);
      const int8_t got = (int8_t) (c[i * cm_stride + j] ^ FL);
      if (got != expected) {
        fprintf(stderr,
                "%s: m=%zu n=%zu k=%zu ks=%zu zp=%d/%d clamp=[%d,%d] rounding=%d guard=%d: out[%zu][%zu] = %d, "
                "expected %d (acc %" PRId64 ", mult %d, shift %d) seed %" PRIu64 "\n",
                name, m, n, k, ks, (int) t->input_zero_point, (int) t->output_zero_point, (int) t->output_min,
                (int) t->output_max, t->rounding, (int) params.guard, i, j, got, expected, acc, (int) multiplier[j],
                (int) shift[j], test_seed());
        failures++;
      }
    }
    /* guard bytes between rows and after the last one */
    const size_t gap_end = i + 1 < m ? (i + 1) * cm_stride : c_size;
    for (size_t b = i * cm_stride + n; b < gap_end && failures < 5; b++) {
      if (c[b] != GUARD) {
        fprintf(stderr, "%s: m=%zu n=%zu k=%zu: byte %zu past row %zu was written, seed %" PRIu64 "\n", name, m, n,
                k, b, i, test_seed());
        failures++;
      }
    }
  }
  free(a), free(zero), free(kernel), free(bias), free(multiplier), free(shift), free(packed);
  free(indirection), free(rows_used), free(c);
  return failures;
}

int dwconv_tester_run(const struct dwconv_tester* t, const struct q8nn_dwconv_entry* e) {
  const size_t channels = t->channels, width = t->width, taps = t->taps;
  const size_t ct = e->channel_tile;
  const size_t input_stride = taps + t->input_stride_extra;
  /* every (pixel, tap) gets its own row of `channels` bytes, exactly sized as one block */
  const size_t rows = width * taps + 8; /* + the sliding windows' extra rows */
  const size_t in_size = t->input_offset + rows * channels;
  int8_t* in = checked_malloc(in_size);
  test_fill_s8(in, in_size);
  int8_t* zero = checked_malloc(channels);
  memset(zero, (int) (int8_t) t->input_zero_point, channels);
  int8_t* kernel = checked_malloc(taps * channels);
  test_fill_s8(kernel, taps * channels);
  int32_t* bias = checked_malloc(channels * sizeof(int32_t));
  const int32_t bias_range = t->bias_range != 0 ? t->bias_range : 50000;
  test_fill_s32_range(bias, channels, -bias_range, bias_range);
  int32_t* multiplier = checked_malloc(channels * sizeof(int32_t));
  int32_t* shift = checked_malloc(channels * sizeof(int32_t));
  random_requant(t->rounding, channels, t->shift_lo, t->shift_hi, t->tflite_multipliers, multiplier, shift);
  if (t->boundary && t->rounding != 2) {
    /* acc = bias + (x - zp) of tap 0 (d in [-3, 3]; a zero row there gives d = 0) */
    memset(kernel, 0, taps * channels);
    memset(kernel, 1, channels);
    for (size_t q = 0; q < rows; q++) {
      for (size_t ch = 0; ch < channels; ch++) {
        const int32_t x = t->input_zero_point + test_rand_range(-3, 3);
        in[t->input_offset + q * channels + ch] = (int8_t) (x < -128 ? -128 : x > 127 ? 127 : x);
      }
    }
    tester_boundary_case(channels, t->rounding, t->output_zero_point, t->output_min, t->output_max, multiplier,
                         shift, bias);
  }
  void* packed = checked_malloc(q8nn_packed_dwconv_size(channels, taps, ct));
  q8nn_pack_qs8_dwconv_w(channels, taps, ct, kernel, bias, multiplier, shift, t->input_zero_point + e->input_offset,
                         packed);
  const int8_t** indirection = checked_malloc((width * input_stride) * sizeof(void*));
  for (size_t x = 0; x < width; x++) {
    for (size_t tap = 0; tap < input_stride; tap++) {
      const int is_zero = tap >= taps || test_rand() % 5 == 0;
      indirection[x * input_stride + tap] = is_zero ? zero : in + (x * taps + tap) * channels;
    }
  }
  if (t->sliding && taps == 9) {
    /* 3 kernel rows of (width - 1) * stride + 3 columns (at most 7 * width + 3 rows with the
       unshared ones); zero columns drawn once */
    const size_t stride = t->sliding == 2 ? 2 : 1, columns = (width - 1) * stride + 3;
    int zero_column[3 * 66];
    for (size_t j = 0; j < 3 * columns && j < 3 * 66; j++) {
      zero_column[j] = t->edge_padding_only ? j % columns == 0 || j % columns == columns - 1 : test_rand() % 6 == 0;
    }
    for (size_t x = 0; x < width; x++) {
      for (size_t tap = 0; tap < 9; tap++) {
        const size_t j = (tap / 3) * columns + x * stride + tap % 3;
        indirection[x * input_stride + tap] = j < 3 * 66 && zero_column[j] ? zero : in + j * channels;
      }
      /* an unshared row at one tap of some pixels: a window that does not slide from the last */
      if (test_rand() % 7 == 0) indirection[x * input_stride + test_rand() % 9] = in + (3 * columns + x) * channels;
    }
  }
  const size_t out_stride = channels + t->output_increment;
  const size_t out_size = width * out_stride + 32;
  int8_t* out = checked_malloc(out_size);
  memset(out, GUARD, out_size);
  const int FL = flip_next() ? 0x80 : 0; /* every other call as a uint8 operator's */
  struct q8nn_qs8_conv_params params = {t->output_zero_point, t->output_min, t->output_max, FL, FL, 0, 0.0f};
  if (t->guard) q8nn_guard_params(&params, t->rounding, channels, multiplier, shift);
  int8_t* inf = checked_malloc(in_size);
  for (size_t q = 0; q < in_size; q++) inf[q] = (int8_t) (in[q] ^ FL);
  int8_t* zf = checked_malloc(channels);
  for (size_t q = 0; q < channels; q++) zf[q] = (int8_t) (zero[q] ^ FL);
  const int8_t** indf = checked_malloc((width * input_stride) * sizeof(void*));
  for (size_t q = 0; q < width * input_stride; q++) indf[q] = indirection[q] == zero ? zf : inf + (indirection[q] - in);
  e->fn[t->rounding](channels, width, taps, indf, input_stride, packed, out, t->output_increment,
                     t->input_offset, zf, &params);
  free(inf), free(zf), free(indf);
  int failures = 0;
  for (size_t x = 0; x < width && failures < 5; x++) {
    for (size_t ch = 0; ch < channels && failures < 5; ch++) {
      int64_t acc = bias[ch];
      for (size_t tap = 0; tap < taps; tap++) {
        const int8_t* row = indirection[x * input_stride + tap];
        if (row != zero) row += t->input_offset;
        acc += (int64_t) kernel[tap * channels + ch] * ((int64_t) row[ch] - t->input_zero_point);
      }
      const int8_t expected = requantize_ref(acc, multiplier[ch], shift[ch], t->rounding, t->output_zero_point,
                                             t->output_min, t->output_max);
      const int8_t got = (int8_t) (out[x * out_stride + ch] ^ FL);
      if (got != expected) {
        fprintf(stderr,
                "%s: channels=%zu width=%zu taps=%zu zp=%d/%d clamp=[%d,%d] rounding=%d guard=%d: out[%zu][%zu] = %d, "
                "expected %d (acc %" PRId64 ", mult %d, shift %d) seed %" PRIu64 "\n",
                e->name, channels, width, taps, (int) t->input_zero_point, (int) t->output_zero_point,
                (int) t->output_min, (int) t->output_max, t->rounding, (int) params.guard, x, ch, got, expected, acc,
                (int) multiplier[ch], (int) shift[ch], test_seed());
        failures++;
      }
    }
    for (size_t b = x * out_stride + channels; b < (x + 1) * out_stride && failures < 5; b++) {
      if (out[b] != GUARD) {
        fprintf(stderr, "%s: channels=%zu: gap byte %zu written, seed %" PRIu64 "\n", e->name, channels, b,
                test_seed());
        failures++;
      }
    }
  }
  for (size_t b = width * out_stride; b < out_size && failures < 5; b++) {
    if (out[b] != GUARD) {
      fprintf(stderr, "%s: channels=%zu: byte %zu past the output written\n", e->name, channels, b);
      failures++;
    }
  }
  free(in), free(zero), free(kernel), free(bias), free(multiplier), free(shift), free(packed);
  free(indirection), free(out);
  return failures;
}

int vadd_tester_run(const struct vadd_tester* t, const struct q8nn_vadd_entry* e) {
  const size_t n = t->n;
  int8_t* a = checked_malloc(n);
  int8_t* b = checked_malloc(t->broadcast_b ? 1 : n);
  int8_t* y = checked_malloc(n + 32);
  test_fill_s8(a, n);
  test_fill_s8(b, t->broadcast_b ? 1 : n);
  memset(y, GUARD, n + 32);
  int8_t* a_copy = checked_malloc(n);
  memcpy(a_copy, a, n);
  struct q8nn_qs8_add_params p;
  memset(&p, 0, sizeof(p));
  p.a_zero_point = t->a_zero_point;
  p.b_zero_point = t->b_zero_point;
  p.output_zero_point = t->output_zero_point;
  p.output_min = t->output_min;
  p.output_max = t->output_max;
  p.left_shift = t->left_shift;
  int32_t mult[3], shift[3];
  tester_random_requant(3, t->shift_lo, t->shift_hi, mult, shift);
  p.a_multiplier = mult[0], p.a_shift = shift[0];
  p.b_multiplier = mult[1], p.b_shift = shift[1];
  /* output rescale large enough to bring 2^left_shift-scaled sums back to int8 */
  p.output_multiplier = mult[2];
  p.output_shift = test_rand_range(-t->left_shift - 8 < -31 ? -31 : -t->left_shift - 8, -t->left_shift + 2 > 0 ? 0 : -t->left_shift + 2);
  struct ref_add_params rp = {t->a_zero_point, t->b_zero_point, t->output_zero_point, t->left_shift,
                              p.a_multiplier, p.a_shift, p.b_multiplier, p.b_shift,
                              p.output_multiplier, p.output_shift, t->output_min, t->output_max};
  /* XNNPACK arithmetic: the reference derives the parameters from the ratios (output scale 1) */
  const int xnn = e->arithmetic == q8nn_add_arithmetic_xnnpack;
  struct ref_xnn_add_params xp;
  memset(&xp, 0, sizeof(xp));
  if (xnn) {
    if (ref_xnn_add_params_from_scales(t->a_ratio, t->a_zero_point, t->b_ratio, t->b_zero_point, 1.0f,
                                       t->output_zero_point, t->output_min, t->output_max, &xp) != 0) {
      fprintf(stderr, "%s: ratios %a %a outside XNNPACK's range\n", e->name, t->a_ratio, t->b_ratio);
      free(a), free(b), free(y), free(a_copy);
      return 1;
    }
    p.xnn_a_multiplier = xp.a_multiplier;
    p.xnn_b_multiplier = xp.b_multiplier;
    p.xnn_bias = xp.bias;
    p.xnn_shift = xp.shift;
  }
  q8nn_add_affine_params(&p, xnn);
  /* every other case as a uint8 add's (the kernels flip operands and outputs, ukernel.h) */
  const int FL = flip_next() ? 0x80 : 0;
  p.input_flip = p.output_flip = FL;
  int8_t* b_s8 = checked_malloc(t->broadcast_b ? 1 : n);
  memcpy(b_s8, b, t->broadcast_b ? 1 : n);
  for (size_t i = 0; i < n; i++) a[i] = (int8_t) (a[i] ^ FL);
  for (size_t i = 0; i < (t->broadcast_b ? 1 : n); i++) b[i] = (int8_t) (b[i] ^ FL);
  int8_t* dst = t->in_place ? a : y;
  (t->broadcast_b ? e->vaddc : e->vadd)(n, a, b, dst, &p);
  int failures = 0;
  for (size_t i = 0; i < n && failures < 5; i++) {
    const int8_t bi = t->broadcast_b ? b_s8[0] : b_s8[i];
    const int8_t expected = xnn ? ref_xnn_add_element(&xp, a_copy[i], bi) : ref_add_element(&rp, a_copy[i], bi);
    if ((int8_t) (dst[i] ^ FL) != expected) {
      fprintf(stderr,
              "%s: n=%zu broadcast=%d in_place=%d: y[%zu] = %d, expected %d (a %d b %d, shifts %d/%d/%d) seed %" PRIu64 "\n",
              e->name, n, t->broadcast_b, t->in_place, i, (int8_t) (dst[i] ^ FL), expected, a_copy[i], bi,
              (int) p.a_shift, (int) p.b_shift, (int) p.output_shift, test_seed());
      failures++;
    }
  }
  if (!t->in_place) {
    for (size_t i = n; i < n + 32 && failures < 5; i++) {
      if (y[i] != GUARD) {
        fprintf(stderr, "%s: n=%zu: byte %zu past the output written\n", e->name, n, i);
        failures++;
      }
    }
  }
  free(a), free(b), free(y), free(a_copy), free(b_s8);
  return failures;
}
