/*
 * q8nn's XNNPACK modes against the real XNNPACK: random convolutions (qc8, per-channel scales),
 * depthwise convolutions (XNNPACK's groups = channels with XNN_FLAG_DEPTHWISE_CONVOLUTION), qs8
 * adds and qs8 multiplies (broadcasting) run through both libraries; q8nn (q8nn_rounding_fp32 /
 * Q8NN_FLAG_XNNPACK_ADD / Q8NN_FLAG_XNNPACK_MULTIPLY) must give
 * identical bytes, on every ISA mask and with and without a threadpool, and must decline exactly
 * the parameters XNNPACK declines, with the matching status.
 *
 * Regimes: typical scales; power-of-two scales on small accumulators (many exact ties: XNNPACK
 * rounds them to even); accumulators far above 2^24 (the int32 -> float conversion rounds); scales
 * at and past XNNPACK's limits; tiny scales; add ratios over and beyond [2^-10, 2^8).
 * Q8NN_TEST_SEED reproduces a run; the seed is printed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <xnnpack.h>

#include <q8nn.h>

#include "testers/test-util.h"

static size_t compared_bytes, compared_cases, declined_cases;

static void* xmalloc(size_t n) {
  void* p = malloc(n == 0 ? 1 : n);
  if (p == NULL) abort();
  return p;
}

/* xnn_status -> the q8nn status that answers the same parameters */
static enum q8nn_status expected_status(enum xnn_status s) {
  switch (s) {
    case xnn_status_success: return q8nn_status_success;
    case xnn_status_invalid_parameter: return q8nn_status_invalid_parameter;
    case xnn_status_unsupported_parameter: return q8nn_status_unsupported_parameter;
    default: return q8nn_status_backend_error; /* anything else fails the comparison */
  }
}

static float log_uniform(int lo_exp, int hi_exp) {
  return ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(lo_exp, hi_exp));
}

/* ---- convolution and depthwise ------------------------------------------------------------- */

struct conv_case {
  int depthwise;
  size_t batch, in_h, in_w;
  size_t groups, gic, goc; /* depthwise: groups = channels, gic = 1, goc = depth multiplier */
  uint32_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int32_t in_zp, out_zp;
  int8_t out_min, out_max;
  int regime;
  int per_tensor;
};

enum {
  REGIME_TYPICAL = 0,
  REGIME_TIES = 1,     /* power-of-two scales, small accumulators */
  REGIME_BIG_ACC = 2,  /* |acc| up to 2^30: (float) acc rounds */
  REGIME_LIMITS = 3,   /* scales at / past 256, subnormal and zero kernel scales */
  REGIME_TINY = 4,     /* requantization scales far below 2^-32 */
  REGIME_COUNT = 5,
};

static int run_conv_case(const struct conv_case* c, size_t index) {
  const size_t channels_in = c->groups * c->gic, channels_out = c->groups * c->goc;
  const size_t taps = (size_t) c->kh * c->kw;
  const size_t kernel_size = channels_out * taps * c->gic;
  const size_t in_size = c->batch * c->in_h * c->in_w * channels_in;
  int8_t* input = xmalloc(in_size + XNN_EXTRA_BYTES);
  int8_t* kernel = xmalloc(kernel_size);
  int32_t* bias = xmalloc(channels_out * sizeof(int32_t));
  float* kernel_scale = xmalloc(channels_out * sizeof(float));
  test_fill_s8(input, in_size + XNN_EXTRA_BYTES);
  /* Weights in [-127, 127], as TFLite's int8 quantization spec has them (symmetric, -128 never
     produced by the converter): XNNPACK's arm64 kernels without dot product (the "mlal" ones)
     add two int8 x int8 products in int16, which overflows for (-128) x (-128) twice, so XNNPACK
     itself is not exact there on a weight of -128 (seen under qemu -cpu cortex-a53/a72). */
  test_fill_s8_range(kernel, kernel_size, -127, 127);
  if (c->regime == REGIME_TIES) {
    /* small accumulators so that power-of-two scales land on .5 often */
    for (size_t i = 0; i < in_size; i++) {
      const int32_t v = c->in_zp + test_rand_range(-3, 3);
      input[i] = (int8_t) (v < -128 ? -128 : v > 127 ? 127 : v);
    }
    test_fill_s8_range(kernel, kernel_size, -3, 3);
  }
  const int32_t bias_range = c->regime == REGIME_BIG_ACC ? (INT32_C(1) << 30) : 20000;
  test_fill_s32_range(bias, channels_out, -bias_range, bias_range);

  float input_scale = log_uniform(-8, 0), output_scale = log_uniform(-8, 0);
  const int typical = -7 - (int) lround(0.5 * log2((double) (taps * c->gic)));
  for (size_t oc = 0; oc < channels_out; oc++) {
    float scale; /* the requantization scale aimed at */
    switch (c->regime) {
      case REGIME_TIES:
        input_scale = ldexpf(1.0f, test_rand_range(-6, 0));
        output_scale = ldexpf(1.0f, test_rand_range(-6, 0));
        scale = ldexpf(1.0f, test_rand_range(-4, 0));
        break;
      case REGIME_BIG_ACC: scale = log_uniform(-26, -22); break;
      case REGIME_LIMITS: {
        static const float limits[] = {0x1.fffffep+7f, 256.0f, 300.0f, 100.0f, 1.0f};
        scale = limits[test_rand() % 5];
        break;
      }
      case REGIME_TINY: scale = log_uniform(-60, -33); break;
      default: scale = log_uniform(typical - 1, typical + 1); break;
    }
    kernel_scale[oc] = scale * output_scale / input_scale;
    if (c->regime == REGIME_LIMITS && test_rand() % 16 == 0) {
      kernel_scale[oc] = test_rand() & 1 ? 1e-39f : 0.0f; /* subnormal / zero: XNNPACK's isnormal check */
    }
    if (c->per_tensor) kernel_scale[oc] = kernel_scale[0];
  }

  const size_t out_h_guess = c->in_h + c->pt + c->pb, out_w_guess = c->in_w + c->pl + c->pr; /* upper bounds */
  const size_t out_size = c->batch * out_h_guess * out_w_guess * channels_out + 64;
  int8_t* out_x = xmalloc(out_size);
  int8_t* out_q = xmalloc(out_size);
  int failures = 0;

  xnn_operator_t xop = NULL;
  const enum xnn_status xs = xnn_create_convolution2d_nhwc_qc8(
      c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh, c->sw, c->dh, c->dw, (uint32_t) c->groups, c->gic, c->goc,
      channels_in, channels_out, (int8_t) c->in_zp, input_scale, kernel_scale, kernel, bias, (int8_t) c->out_zp,
      output_scale, c->out_min, c->out_max, c->depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, &xop);
  size_t out_h = 0, out_w = 0;
  if (xs == xnn_status_success) {
    memset(out_x, 0x5A, out_size);
    if (xnn_setup_convolution2d_nhwc_qc8(xop, c->batch, c->in_h, c->in_w, input, out_x, NULL) != xnn_status_success ||
        xnn_run_operator(xop, NULL) != xnn_status_success) {
      fprintf(stderr, "case %zu: XNNPACK setup/run failed\n", index);
      failures++;
    }
  }
  const struct q8nn_conv_quantization quant = {
      .input_zero_point = c->in_zp, .input_scale = input_scale, .kernel_scale = kernel_scale,
      .output_zero_point = c->out_zp, .output_scale = output_scale, .output_min = c->out_min,
      .output_max = c->out_max, .rounding = q8nn_rounding_fp32,
  };
  const uint32_t flags = c->per_tensor ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  for (size_t m = 0; m < num_masks && failures == 0; m++) {
    q8nn_set_isa_mask(masks[m]);
    q8nn_operator_t op = NULL;
    enum q8nn_status qs;
    if (c->depthwise) {
      const struct q8nn_depthwise_convolution2d_desc desc = {
          c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh, c->sw, c->dh, c->dw, c->groups, c->goc};
      qs = q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &quant, kernel, bias, flags, &op);
    } else {
      const struct q8nn_convolution2d_desc desc = {
          c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh, c->sw, c->dh, c->dw, (uint32_t) c->groups, c->gic, c->goc};
      qs = q8nn_create_convolution2d_nhwc_s8(&desc, &quant, kernel, bias, flags, &op);
    }
    if (qs != expected_status(xs)) {
      fprintf(stderr, "case %zu [%s]: XNNPACK create status %d, q8nn %s (Q8NN_TEST_SEED=%llu)\n", index,
              test_isa_name(masks[m]), (int) xs, q8nn_status_string(qs), (unsigned long long) test_seed());
      failures++;
      if (qs == q8nn_status_success) q8nn_delete_operator(op);
      break;
    }
    if (qs != q8nn_status_success) {
      if (m == 0) declined_cases++;
      continue;
    }
    for (size_t pool = 0; pool < 3 && failures == 0; pool++) {
      memset(out_q, 0x5A, out_size);
      qs = c->depthwise ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, c->batch, c->in_h, c->in_w, input, channels_in,
                                                                     out_q, channels_out, &out_h, &out_w)
                        : q8nn_setup_convolution2d_nhwc_s8(op, c->batch, c->in_h, c->in_w, input, channels_in, out_q,
                                                           channels_out, &out_h, &out_w);
      if (qs == q8nn_status_success) qs = q8nn_run_operator(op, test_threadpool(pool));
      if (qs != q8nn_status_success) {
        fprintf(stderr, "case %zu: q8nn setup/run: %s\n", index, q8nn_status_string(qs));
        failures++;
        break;
      }
      const size_t bytes = c->batch * out_h * out_w * channels_out;
      const size_t i = test_first_mismatch(out_x, out_q, bytes + 16);
      if (i != SIZE_MAX) {
        fprintf(stderr,
                "MISMATCH case %zu [%s, %s, isa %s, threads %zu]: byte %zu (pixel %zu channel %zu): XNNPACK %d q8nn %d "
                "(Q8NN_TEST_SEED=%llu)\n",
                index, c->depthwise ? "depthwise" : "conv", q8nn_operator_kernel_name(op), test_isa_name(masks[m]),
                test_threadpool_threads(pool), i, i / channels_out, i % channels_out, out_x[i], out_q[i],
                (unsigned long long) test_seed());
        failures++;
      } else if (m == 0 && pool == 0) {
        compared_bytes += bytes;
        compared_cases++;
      }
    }
    q8nn_delete_operator(op);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  if (failures != 0) {
    fprintf(stderr,
            "  case %zu: %s batch %zu in %zux%zu groups %zu gic %zu goc %zu k %ux%u s %ux%u d %ux%u pad t%u l%u b%u r%u "
            "zp %d/%d clamp [%d,%d] regime %d per_tensor %d scales in %a out %a k0 %a\n",
            index, c->depthwise ? "depthwise" : "conv", c->batch, c->in_h, c->in_w, c->groups, c->gic, c->goc, c->kh,
            c->kw, c->sh, c->sw, c->dh, c->dw, c->pt, c->pl, c->pb, c->pr, c->in_zp, c->out_zp, c->out_min, c->out_max,
            c->regime, c->per_tensor, input_scale, output_scale, kernel_scale[0]);
  }
  if (xop != NULL) xnn_delete_operator(xop);
  free(out_q), free(out_x), free(kernel_scale), free(bias), free(kernel), free(input);
  return failures;
}

static int32_t random_zero_point(void) {
  static const int32_t fixed[3] = {-128, 0, 127};
  const uint32_t r = test_rand() % 4;
  return r < 3 ? fixed[r] : test_rand_range(-128, 127);
}

/* Clamp with min < max (XNNPACK declines min == max; q8nn's answer there is documented). */
static void random_clamp(int32_t zp, int8_t* lo, int8_t* hi) {
  switch (test_rand() % 4) {
    case 0: *lo = -128, *hi = 127; break;
    case 1: *lo = (int8_t) test_rand_range(-128, -1), *hi = (int8_t) test_rand_range(0, 127); break;
    case 2: *lo = (int8_t) zp, *hi = (int8_t) (zp + 60 > 127 ? 127 : zp + 60); break;
    default: *lo = (int8_t) test_rand_range(-128, 126), *hi = (int8_t) test_rand_range(*lo + 1, 127); break;
  }
  if (*lo >= *hi) *lo = -128, *hi = 127;
}

static void random_geometry(struct conv_case* c, int depthwise) {
  memset(c, 0, sizeof(*c));
  c->depthwise = depthwise;
  c->batch = (size_t) test_rand_range(1, 2);
  c->kh = (uint32_t) test_rand_range(1, 5);
  c->kw = test_rand() % 4 == 0 ? (uint32_t) test_rand_range(1, 5) : c->kh;
  c->sh = (uint32_t) test_rand_range(1, 2);
  c->sw = test_rand() % 4 == 0 ? (uint32_t) test_rand_range(1, 2) : c->sh;
  c->dh = test_rand() % 5 == 0 ? 2 : 1;
  c->dw = test_rand() % 5 == 0 ? 2 : 1;
  c->in_h = (size_t) test_rand_range((int32_t) ((c->kh - 1) * c->dh + 1), 12);
  c->in_w = (size_t) test_rand_range((int32_t) ((c->kw - 1) * c->dw + 1), 12);
  if (test_rand() & 1) {
    c->pt = c->pb = (c->kh - 1) * c->dh / 2;
    c->pl = c->pr = (c->kw - 1) * c->dw / 2;
    c->pb += (c->kh - 1) * c->dh % 2, c->pr += (c->kw - 1) * c->dw % 2;
  }
  if (depthwise) {
    c->groups = (size_t) test_rand_range(1, 40);
    c->gic = 1;
    c->goc = test_rand() % 4 == 0 ? (size_t) test_rand_range(2, 3) : 1;
  } else {
    c->groups = test_rand() % 4 == 0 ? (size_t) test_rand_range(2, 3) : 1;
    c->gic = (size_t) test_rand_range(1, 40);
    c->goc = (size_t) test_rand_range(1, 40);
    if (test_rand() % 3 == 0) c->kh = c->kw = 1, c->sh = c->sw = 1, c->pt = c->pl = c->pb = c->pr = 0; /* gemm path */
  }
  c->in_zp = random_zero_point();
  c->out_zp = random_zero_point();
  random_clamp(c->out_zp, &c->out_min, &c->out_max);
  c->per_tensor = test_rand() % 6 == 0;
}

static void run_conv_sweep(int depthwise, size_t count) {
  int failures = 0;
  compared_bytes = compared_cases = declined_cases = 0;
  for (size_t i = 0; i < count && failures < 5; i++) {
    struct conv_case c;
    random_geometry(&c, depthwise);
    c.regime = (int) (i % REGIME_COUNT);
    if (c.regime == REGIME_BIG_ACC && !depthwise) c.gic += 40; /* more terms: larger sums too */
    failures += run_conv_case(&c, i);
  }
  print_message("[ XNNPACK  ] %s: %zu cases identical (%zu bytes), %zu declined by both with the same status\n",
                depthwise ? "depthwise" : "conv", compared_cases, compared_bytes, declined_cases);
  assert_int_equal(failures, 0);
}

static void test_conv_vs_xnnpack(void** state) {
  (void) state;
  run_conv_sweep(0, 400);
}

static void test_depthwise_vs_xnnpack(void** state) {
  (void) state;
  run_conv_sweep(1, 400);
}

/* ---- add ------------------------------------------------------------------------------------ */

static size_t elements(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static int run_add_case(size_t index) {
  size_t out_rank = (size_t) test_rand_range(1, 4), out_shape[4];
  for (size_t d = 0; d < out_rank; d++) out_shape[d] = (size_t) test_rand_range(1, 5);
  if (test_rand() % 3 == 0) out_shape[out_rank - 1] = (size_t) test_rand_range(16, 200); /* vector bodies */
  size_t a_rank = out_rank, b_rank = out_rank, a_shape[4], b_shape[4];
  if (test_rand() % 3 == 0) a_rank = (size_t) test_rand_range(0, (int32_t) out_rank);
  else if (test_rand() % 3 == 0) b_rank = (size_t) test_rand_range(0, (int32_t) out_rank);
  for (size_t d = 0; d < a_rank; d++) a_shape[d] = test_rand() % 4 == 0 ? 1 : out_shape[out_rank - a_rank + d];
  for (size_t d = 0; d < b_rank; d++) b_shape[d] = test_rand() % 4 == 0 ? 1 : out_shape[out_rank - b_rank + d];
  const size_t na = elements(a_rank, a_shape), nb = elements(b_rank, b_shape), total = elements(out_rank, out_shape);
  int8_t* a = xmalloc(na + XNN_EXTRA_BYTES);
  int8_t* b = xmalloc(nb + XNN_EXTRA_BYTES);
  int8_t* out_x = xmalloc(total + 64);
  int8_t* out_q = xmalloc(total + 64);
  test_fill_s8(a, na + XNN_EXTRA_BYTES);
  test_fill_s8(b, nb + XNN_EXTRA_BYTES);
  const int32_t a_zp = random_zero_point(), b_zp = random_zero_point(), out_zp = random_zero_point();
  int8_t out_min, out_max;
  random_clamp(out_zp, &out_min, &out_max);
  float a_scale, b_scale, out_scale;
  switch (index % 4) {
    case 0: /* typical */
      out_scale = log_uniform(-8, 0);
      a_scale = out_scale * test_rand_float(0.25f, 2.0f);
      b_scale = out_scale * test_rand_float(0.25f, 2.0f);
      break;
    case 1: /* powers of two: every rounding a tie */
      out_scale = ldexpf(1.0f, test_rand_range(-8, 0));
      a_scale = ldexpf(out_scale, test_rand_range(-10, 7));
      b_scale = ldexpf(out_scale, test_rand_range(-10, 7));
      break;
    case 2: /* ratios over and past XNNPACK's [2^-10, 2^8) */
      out_scale = log_uniform(-8, 0);
      a_scale = out_scale * log_uniform(-12, 9);
      b_scale = out_scale * log_uniform(-12, 9);
      break;
    default: { /* at the bounds */
      static const float r[] = {0x1.0p-10f, 0x1.fffffep-11f, 0x1.fffffep+7f, 256.0f, 1.0f, 1.0f};
      out_scale = 1.0f;
      a_scale = r[test_rand() % 6];
      b_scale = r[test_rand() % 6];
      break;
    }
  }
  int failures = 0;
  xnn_operator_t xop = NULL;
  const enum xnn_status xs = xnn_create_add_nd_qs8((int8_t) a_zp, a_scale, (int8_t) b_zp, b_scale, (int8_t) out_zp,
                                                   out_scale, out_min, out_max, 0, &xop);
  if (xs == xnn_status_success) {
    memset(out_x, 0x5A, total + 64);
    if (xnn_setup_add_nd_qs8(xop, a_rank, a_shape, b_rank, b_shape, a, b, out_x, NULL) != xnn_status_success ||
        xnn_run_operator(xop, NULL) != xnn_status_success) {
      fprintf(stderr, "add case %zu: XNNPACK setup/run failed\n", index);
      failures++;
    }
  }
  const struct q8nn_add_quantization quant = {a_zp, a_scale, b_zp, b_scale, out_zp, out_scale, out_min, out_max, NULL};
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  for (size_t m = 0; m < num_masks && failures == 0; m++) {
    q8nn_set_isa_mask(masks[m]);
    q8nn_operator_t op = NULL;
    enum q8nn_status qs = q8nn_create_add_nd_s8(&quant, Q8NN_FLAG_XNNPACK_ADD, &op);
    if (qs != expected_status(xs)) {
      fprintf(stderr, "add case %zu [%s]: XNNPACK create status %d, q8nn %s (scales %a %a %a, Q8NN_TEST_SEED=%llu)\n",
              index, test_isa_name(masks[m]), (int) xs, q8nn_status_string(qs), a_scale, b_scale, out_scale,
              (unsigned long long) test_seed());
      failures++;
      if (qs == q8nn_status_success) q8nn_delete_operator(op);
      break;
    }
    if (qs != q8nn_status_success) {
      if (m == 0) declined_cases++;
      continue;
    }
    for (size_t pool = 0; pool < 3 && failures == 0; pool++) {
      memset(out_q, 0x5A, total + 64);
      qs = q8nn_setup_add_nd_s8(op, a_rank, a_shape, b_rank, b_shape, a, b, out_q);
      if (qs == q8nn_status_success) qs = q8nn_run_operator(op, test_threadpool(pool));
      if (qs != q8nn_status_success) {
        fprintf(stderr, "add case %zu: q8nn setup/run: %s\n", index, q8nn_status_string(qs));
        failures++;
        break;
      }
      const size_t i = test_first_mismatch(out_x, out_q, total + 16);
      if (i != SIZE_MAX) {
        fprintf(stderr,
                "MISMATCH add case %zu [isa %s, threads %zu]: byte %zu: XNNPACK %d q8nn %d (zp %d %d %d, scales %a %a "
                "%a, clamp [%d,%d], Q8NN_TEST_SEED=%llu)\n",
                index, test_isa_name(masks[m]), test_threadpool_threads(pool), i, out_x[i], out_q[i], a_zp, b_zp,
                out_zp, a_scale, b_scale, out_scale, out_min, out_max, (unsigned long long) test_seed());
        failures++;
      } else if (m == 0 && pool == 0) {
        compared_bytes += total;
        compared_cases++;
      }
    }
    q8nn_delete_operator(op);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  if (xop != NULL) xnn_delete_operator(xop);
  free(out_q), free(out_x), free(b), free(a);
  return failures;
}

static void test_add_vs_xnnpack(void** state) {
  (void) state;
  int failures = 0;
  compared_bytes = compared_cases = declined_cases = 0;
  for (size_t i = 0; i < 600 && failures < 5; i++) failures += run_add_case(i);
  print_message("[ XNNPACK  ] add: %zu cases identical (%zu bytes), %zu declined by both with the same status\n",
                compared_cases, compared_bytes, declined_cases);
  assert_int_equal(failures, 0);
}

/* q8nn's multiply with Q8NN_FLAG_XNNPACK_MULTIPLY against XNNPACK's qs8 multiply, broadcasting.
   Q8NN_FLAG_XNNPACK_MULTIPLY is XNNPACK's fp32 form, the one its x86 kernels run. On ARM XNNPACK
   selects its fixed-point ("rndnu") multiply kernels, which round some products a step the other
   way: there the bytes must be within 1, and the differing ones are counted. */
#if defined(__aarch64__) || defined(__arm__)
#define XNNPACK_MULTIPLY_SLACK 1
#else
#define XNNPACK_MULTIPLY_SLACK 0
#endif
static void test_multiply_vs_xnnpack(void** state) {
  (void) state;
  size_t compared = 0, declined = 0, off_by_one = 0;
  int failures = 0;
  for (int t = 0; t < 300 && failures == 0; t++) {
    const size_t a_shape[3] = {(size_t) test_rand_range(1, 4), (size_t) test_rand_range(1, 6), (size_t) test_rand_range(1, 80)};
    size_t b_shape[3] = {a_shape[0], a_shape[1], a_shape[2]};
    if (t % 3 == 1) b_shape[1] = 1, b_shape[0] = 1; /* per channel */
    if (t % 3 == 2) b_shape[2] = 1;                 /* per row */
    const size_t na = a_shape[0] * a_shape[1] * a_shape[2], nb = b_shape[0] * b_shape[1] * b_shape[2];
    int8_t* a = xmalloc(na + XNN_EXTRA_BYTES);
    int8_t* b = xmalloc(nb + XNN_EXTRA_BYTES);
    int8_t* out_x = xmalloc(na);
    int8_t* out_q = xmalloc(na);
    test_fill_s8(a, na + XNN_EXTRA_BYTES);
    test_fill_s8(b, nb + XNN_EXTRA_BYTES);
    const int32_t a_zp = random_zero_point(), b_zp = random_zero_point(), out_zp = random_zero_point();
    int8_t out_min, out_max;
    random_clamp(out_zp, &out_min, &out_max);
    const float a_scale = log_uniform(-8, 0), b_scale = log_uniform(-8, 0);
    const float out_scale = a_scale * b_scale * log_uniform(-9, 17);
    xnn_operator_t xop = NULL;
    const enum xnn_status xs = xnn_create_multiply_nd_qs8((int8_t) a_zp, a_scale, (int8_t) b_zp, b_scale,
                                                          (int8_t) out_zp, out_scale, out_min, out_max, 0, &xop);
    const struct q8nn_multiply_quantization q = {a_zp, a_scale, b_zp, b_scale, out_zp, out_scale, out_min, out_max};
    q8nn_operator_t op = NULL;
    const enum q8nn_status qs = q8nn_create_multiply_nd_s8(&q, Q8NN_FLAG_XNNPACK_MULTIPLY, &op);
    if (qs != expected_status(xs)) {
      fprintf(stderr, "multiply case %d: XNNPACK create status %d, q8nn %s (scales %a %a %a)\n", t, (int) xs,
              q8nn_status_string(qs), a_scale, b_scale, out_scale);
      failures++;
    } else if (qs != q8nn_status_success) {
      declined++;
    } else {
      assert_int_equal(xnn_setup_multiply_nd_qs8(xop, 3, a_shape, 3, b_shape, a, b, out_x, NULL), xnn_status_success);
      assert_int_equal(xnn_run_operator(xop, NULL), xnn_status_success);
      assert_int_equal(q8nn_setup_multiply_nd_s8(op, 3, a_shape, 3, b_shape, a, b, out_q), q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op, test_threadpool(t % 3)), q8nn_status_success);
      for (size_t i = 0; i < na; i++) {
        const int diff = abs((int) out_x[i] - (int) out_q[i]);
        off_by_one += diff == 1;
        if (diff > XNNPACK_MULTIPLY_SLACK) {
          fprintf(stderr, "MISMATCH multiply case %d byte %zu: XNNPACK %d q8nn %d (Q8NN_TEST_SEED=%llu)\n", t, i,
                  out_x[i], out_q[i], (unsigned long long) test_seed());
          failures++;
          break;
        }
      }
      compared++;
    }
    if (xop != NULL) xnn_delete_operator(xop);
    q8nn_delete_operator(op);
    free(a), free(b), free(out_x), free(out_q);
  }
  print_message("[ XNNPACK  ] multiply: %zu cases compared (%zu bytes 1 apart, allowed %d), %zu declined by both\n",
                compared, off_by_one, XNNPACK_MULTIPLY_SLACK, declined);
  assert_int_equal(failures, 0);
  assert_true(compared > 200);
}

static int group_setup(void** state) {
  if (xnn_initialize(NULL) != xnn_status_success) {
    print_message("[  SKIP    ] XNNPACK failed to initialize on this CPU\n");
    return -1;
  }
  return test_group_setup(state);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_vs_xnnpack),
      cmocka_unit_test(test_depthwise_vs_xnnpack),
      cmocka_unit_test(test_add_vs_xnnpack),
      cmocka_unit_test(test_multiply_vs_xnnpack),
  };
  return cmocka_run_group_tests(tests, group_setup, test_group_teardown);
}
