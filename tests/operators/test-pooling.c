/*
 * Max and average pooling through the public API against the reference (TFLite's MaxPool and
 * AveragePool, tests/reference/reference-model.c) on sweeps of shapes, windows (global ones
 * included), strides, paddings and clamps, int8 and uint8, every ISA mask, every pool, pixel
 * strides with gaps that must stay untouched; and the documented refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include <q8nn.h>

#include "reference/reference-model.h"
#include "testers/test-util.h"

struct pool_case {
  int average, u8;
  size_t batch, height, width, channels, in_stride, out_stride;
  struct q8nn_pooling2d_desc desc;
  int8_t min, max;
  /* requantizing average pooling (pytorch_qnnpack's arithmetic); zero points in int8 terms */
  int requant;
  int32_t in_zp, out_zp;
  float in_scale, out_scale;
};

/* The requantizing average pooling of a case, int8 or uint8. */
static enum q8nn_status create_requantized(const struct pool_case* c, q8nn_operator_t* op) {
  const int32_t shift = c->u8 ? 128 : 0;
  const struct q8nn_pooling2d_quantization q = {c->in_zp + shift, c->in_scale, c->out_zp + shift, c->out_scale};
  return c->u8 ? q8nn_create_average_pooling2d_requantized_nhwc_u8(&c->desc, &q, (uint8_t) (c->min + 128),
                                                                   (uint8_t) (c->max + 128), 0, op)
               : q8nn_create_average_pooling2d_requantized_nhwc_s8(&c->desc, &q, c->min, c->max, 0, op);
}

/* A random scale pair: ratios from 2^-7 to 2^7, equal scales (PyTorch's adaptive pooling) a third
   of the time. */
static void random_quantization(struct pool_case* c) {
  c->in_zp = test_rand_range(-128, 127);
  c->out_zp = test_rand_range(-128, 127);
  c->in_scale = 0.001f + (float) (test_rand() % 1000) * 0.0002f;
  c->out_scale = test_rand() % 3 == 0 ? c->in_scale
                                      : c->in_scale * ldexpf(1.0f + (float) (test_rand() % 1000) / 1000.0f,
                                                             test_rand_range(-7, 6));
}

static int run_case(const struct pool_case* c, size_t pool_index, const char* mask) {
  const struct q8nn_pooling2d_desc* d = &c->desc;
  const size_t out_h = (c->height + d->padding_top + d->padding_bottom - d->pooling_height) / d->stride_height + 1;
  const size_t out_w = (c->width + d->padding_left + d->padding_right - d->pooling_width) / d->stride_width + 1;
  const size_t in_pixels = c->batch * c->height * c->width, out_pixels = c->batch * out_h * out_w;
  int8_t* dense = malloc(in_pixels * c->channels);
  int8_t* input = malloc(in_pixels * c->in_stride);
  int8_t* expected = malloc(out_pixels * c->channels);
  int8_t* output = malloc(out_pixels * c->out_stride + 16);
  test_fill_s8(dense, in_pixels * c->channels);
  memset(input, 0x11, in_pixels * c->in_stride);
  for (size_t p = 0; p < in_pixels; p++) {
    for (size_t k = 0; k < c->channels; k++) {
      input[p * c->in_stride + k] = (int8_t) ((uint8_t) dense[p * c->channels + k] ^ (c->u8 ? 0x80 : 0));
    }
  }
  if (c->requant) {
    ref_avgpool_qnnpack_s8(c->batch, c->height, c->width, c->channels, out_h, out_w, d->pooling_height,
                           d->pooling_width, d->stride_height, d->stride_width, d->padding_top, d->padding_left,
                           c->in_zp, c->in_scale, c->out_zp, c->out_scale, c->min, c->max, dense, expected);
  } else {
    ref_pool_s8(c->average, c->batch, c->height, c->width, c->channels, out_h, out_w, d->pooling_height,
                d->pooling_width, d->stride_height, d->stride_width, d->padding_top, d->padding_left, c->min, c->max,
                dense, expected);
  }
  memset(output, TEST_GUARD_BYTE, out_pixels * c->out_stride + 16);
  q8nn_operator_t op = NULL;
  enum q8nn_status status;
  if (c->requant) {
    status = create_requantized(c, &op);
  } else if (c->u8) {
    const uint8_t lo = (uint8_t) (c->min + 128), hi = (uint8_t) (c->max + 128);
    status = c->average ? q8nn_create_average_pooling2d_nhwc_u8(d, lo, hi, 0, &op)
                        : q8nn_create_max_pooling2d_nhwc_u8(d, lo, hi, 0, &op);
  } else {
    status = c->average ? q8nn_create_average_pooling2d_nhwc_s8(d, c->min, c->max, 0, &op)
                        : q8nn_create_max_pooling2d_nhwc_s8(d, c->min, c->max, 0, &op);
  }
  assert_int_equal(status, q8nn_status_success);
  size_t oh = 0, ow = 0;
  status = c->u8 ? q8nn_setup_pooling2d_nhwc_u8(op, c->batch, c->height, c->width, (const uint8_t*) input, c->in_stride,
                                                (uint8_t*) output, c->out_stride, &oh, &ow)
                 : q8nn_setup_pooling2d_nhwc_s8(op, c->batch, c->height, c->width, input, c->in_stride, output,
                                                c->out_stride, &oh, &ow);
  assert_int_equal(status, q8nn_status_success);
  assert_int_equal(oh, out_h);
  assert_int_equal(ow, out_w);
  status = pool_index < TEST_NUM_THREADPOOLS
               ? q8nn_run_operator(op, test_threadpool(pool_index))
               : q8nn_run_operator_on(op, test_host_pool(pool_index - TEST_NUM_THREADPOOLS));
  assert_int_equal(status, q8nn_status_success);
  int failures = 0;
  for (size_t p = 0; p < out_pixels && failures == 0; p++) {
    for (size_t k = 0; k < c->out_stride; k++) {
      const int8_t got = output[p * c->out_stride + k];
      const int8_t want = k < c->channels ? (int8_t) ((uint8_t) expected[p * c->channels + k] ^ (c->u8 ? 0x80 : 0))
                                          : TEST_GUARD_BYTE;
      if (got != want && (k < c->channels || p + 1 < out_pixels)) {
        fprintf(stderr,
                "FAIL %s%s %s %s: %zux%zux%zux%zu window %ux%u stride %ux%u pad %u,%u,%u,%u clamp [%d,%d] pool %zu: "
                "pixel %zu byte %zu is %d, want %d\n",
                c->average ? "average" : "max", c->requant ? " requantized" : "", c->u8 ? "u8" : "s8", mask, c->batch, c->height, c->width, c->channels,
                d->pooling_height, d->pooling_width, d->stride_height, d->stride_width, d->padding_top,
                d->padding_right, d->padding_bottom, d->padding_left, c->min, c->max, pool_index, p, k, got, want);
        failures++;
        break;
      }
    }
  }
  if (output[out_pixels * c->out_stride] != TEST_GUARD_BYTE) failures++;
  q8nn_delete_operator(op);
  free(dense), free(input), free(expected), free(output);
  return failures;
}

static void test_pooling_sweep(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  static const size_t channel_counts[] = {1, 5, 16, 32, 45, 64, 70, 100};
  int failures = 0;
  size_t cases = 0;
  for (size_t i = 0; i < 400 && failures == 0; i++) {
    struct pool_case c;
    memset(&c, 0, sizeof(c));
    c.average = (int) (i % 2);
    c.u8 = (int) ((i / 2) % 2);
    c.batch = 1 + test_rand() % 2;
    c.height = 1 + test_rand() % 12;
    c.width = 1 + test_rand() % 12;
    c.channels = channel_counts[test_rand() % 8];
    c.in_stride = c.channels + (i % 3 == 0 ? test_rand() % 5 : 0);
    c.out_stride = c.channels + (i % 5 == 0 ? test_rand() % 5 : 0);
    if (i % 7 == 0) {
      /* global pooling: the window is the image */
      c.desc.pooling_height = (uint32_t) c.height;
      c.desc.pooling_width = (uint32_t) c.width;
    } else {
      c.desc.pooling_height = 1 + test_rand() % 4;
      c.desc.pooling_width = 1 + test_rand() % 4;
      c.desc.padding_top = test_rand() % c.desc.pooling_height;
      c.desc.padding_bottom = test_rand() % c.desc.pooling_height;
      c.desc.padding_left = test_rand() % c.desc.pooling_width;
      c.desc.padding_right = test_rand() % c.desc.pooling_width;
    }
    c.desc.stride_height = 1 + test_rand() % 3;
    c.desc.stride_width = 1 + test_rand() % 3;
    c.desc.channels = c.channels;
    c.requant = c.average && (i / 4) % 2 == 1;
    if (c.requant) random_quantization(&c);
    if (c.height + c.desc.padding_top + c.desc.padding_bottom < c.desc.pooling_height ||
        c.width + c.desc.padding_left + c.desc.padding_right < c.desc.pooling_width) {
      continue;
    }
    c.min = -128;
    c.max = 127;
    if (i % 4 == 3) {
      c.min = (int8_t) test_rand_range(-100, 0);
      c.max = (int8_t) test_rand_range(0, 100);
    }
    cases++;
    for (size_t m = 0; m < num_masks; m++) {
      q8nn_set_isa_mask(masks[m]);
      failures += run_case(&c, (i + m) % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS), test_isa_name(masks[m]));
    }
  }
  /* a large global average pooling (more than 256 cells: the wide-window path) and a large max */
  struct pool_case big = {.average = 1, .batch = 1, .height = 20, .width = 20, .channels = 70, .in_stride = 70,
                          .out_stride = 70, .min = -128, .max = 127};
  big.desc = (struct q8nn_pooling2d_desc){0, 0, 0, 0, 20, 20, 1, 1, 70};
  for (size_t m = 0; m < num_masks; m++) {
    q8nn_set_isa_mask(masks[m]);
    failures += run_case(&big, 2, test_isa_name(masks[m]));
    big.average = 0;
    failures += run_case(&big, 2, test_isa_name(masks[m]));
    big.average = 1;
    big.requant = 1;
    random_quantization(&big);
    failures += run_case(&big, 1, test_isa_name(masks[m]));
    big.requant = 0;
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  printf("pooling: %zu cases on every ISA mask\n", cases);
  assert_int_equal(failures, 0);
  assert_true(cases > 300);
}


/* Average pooling's rounded division on single large windows: counts from 1 to 64 x 64, sums at
   both extremes (all -128, all 127, some channels one step inside so quotients land next to .5)
   and random, on every ISA mask (the vector kernels' float quotient, int16 sums added into int32
   every 256 cells, the single-channel path); and the requantizing pooling on the same windows. */
static void test_average_pool_large_windows(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  for (int t = 0; t < 240 && failures == 0; t++) {
    const size_t h = 1 + test_rand() % 64, w = 1 + test_rand() % 64;
    /* a fifth with one channel: the vector kernels' single-channel path (window rows summed whole) */
    const size_t channels = t % 10 == 0 ? 257 + test_rand() % 44 : t % 5 == 1 ? 1 : 1 + test_rand() % 70;
    const size_t n = h * w * channels;
    int8_t* in = malloc(n);
    int8_t ref[301], ref_rq[301], out[301];
    if (t % 3 == 0) test_fill_s8(in, n);
    else memset(in, t % 3 == 1 ? -128 : 127, n);
    for (size_t c = 0; c < channels; c += 3) in[c] = (int8_t) (in[c] > 0 ? in[c] - 1 : in[c] + 1);
    ref_pool_s8(1, 1, h, w, channels, 1, 1, h, w, 1, 1, 0, 0, -128, 127, in, ref);
    const struct q8nn_pooling2d_desc d = {0, 0, 0, 0, (uint32_t) h, (uint32_t) w, 1, 1, channels};
    for (size_t m = 0; m < num_masks; m++) {
      q8nn_set_isa_mask(masks[m]);
      q8nn_operator_t op = NULL;
      assert_int_equal(q8nn_create_average_pooling2d_nhwc_s8(&d, -128, 127, 0, &op), q8nn_status_success);
      assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, h, w, in, channels, out, channels, NULL, NULL),
                       q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
      const size_t bad = test_first_mismatch(out, ref, channels);
      if (bad != SIZE_MAX) {
        fprintf(stderr, "FAIL %s: %zux%zu window, %zu channels: [%zu] %d, reference %d\n",
                q8nn_operator_kernel_name(op), h, w, channels, bad, out[bad], ref[bad]);
        failures++;
      }
      q8nn_delete_operator(op);

      /* the requantizing pooling on the same window: int32 sums beyond 256 cells */
      struct pool_case rq = {.average = 1, .requant = 1, .u8 = t % 2, .min = -128, .max = 127, .desc = d};
      random_quantization(&rq);
      if (t % 4 == 0) rq.out_scale = rq.in_scale, rq.out_zp = rq.in_zp;
      int8_t* in_flipped = malloc(n);
      for (size_t k = 0; k < n; k++) in_flipped[k] = (int8_t) ((uint8_t) in[k] ^ (rq.u8 ? 0x80 : 0));
      ref_avgpool_qnnpack_s8(1, h, w, channels, 1, 1, h, w, 1, 1, 0, 0, rq.in_zp, rq.in_scale, rq.out_zp,
                             rq.out_scale, -128, 127, in, ref_rq);
      assert_int_equal(create_requantized(&rq, &op), q8nn_status_success);
      assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, h, w, in_flipped, channels, out, channels, NULL, NULL),
                       rq.u8 ? q8nn_status_invalid_parameter : q8nn_status_success);
      if (rq.u8) {
        assert_int_equal(q8nn_setup_pooling2d_nhwc_u8(op, 1, h, w, (const uint8_t*) in_flipped, channels,
                                                      (uint8_t*) out, channels, NULL, NULL),
                         q8nn_status_success);
      }
      assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
      for (size_t k = 0; k < channels; k++) out[k] = (int8_t) ((uint8_t) out[k] ^ (rq.u8 ? 0x80 : 0));
      const size_t bad_rq = test_first_mismatch(out, ref_rq, channels);
      if (bad_rq != SIZE_MAX) {
        fprintf(stderr, "FAIL %s (%s): %zux%zu window, %zu channels: [%zu] %d, reference %d\n",
                q8nn_operator_kernel_name(op), rq.u8 ? "u8" : "s8", h, w, channels, bad_rq, out[bad_rq], ref_rq[bad_rq]);
        failures++;
      }
      q8nn_delete_operator(op);
      free(in_flipped);
    }
    free(in);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

static void test_pooling_refusals(void** state) {
  (void) state;
  const struct q8nn_pooling2d_desc good = {0, 0, 0, 0, 2, 2, 2, 2, 8};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  struct q8nn_pooling2d_desc d = good;
  assert_int_equal(q8nn_create_max_pooling2d_nhwc_s8(NULL, -128, 127, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_max_pooling2d_nhwc_s8(&d, -128, 127, 0, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_max_pooling2d_nhwc_s8(&d, 5, 4, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_max_pooling2d_nhwc_s8(&d, -128, 127, 8, &op), q8nn_status_invalid_parameter);
  d.pooling_height = 0;
  assert_int_equal(q8nn_create_average_pooling2d_nhwc_s8(&d, -128, 127, 0, &op), q8nn_status_invalid_parameter);
  d = good;
  d.padding_left = 2;
  assert_int_equal(q8nn_create_average_pooling2d_nhwc_s8(&d, -128, 127, 0, &op), q8nn_status_invalid_parameter);
  d = good;
  d.channels = 0;
  assert_int_equal(q8nn_create_max_pooling2d_nhwc_u8(&d, 0, 255, 0, &op), q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);

  assert_int_equal(q8nn_create_average_pooling2d_nhwc_s8(&good, -128, 127, 0, &op), q8nn_status_success);
  int8_t buffer[256];
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, 1, 1, buffer, 8, buffer + 64, 8, NULL, NULL),
                   q8nn_status_invalid_parameter); /* the 2x2 window does not fit a 1x1 image */
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, 4, 4, buffer, 7, buffer + 128, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 0, 4, 4, buffer, 8, buffer + 128, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, 4, 4, NULL, 8, buffer + 128, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  /* extents that wrap the address space */
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, 4, 4, buffer, SIZE_MAX / 8, buffer + 128, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, SIZE_MAX / 2, 4, 4, buffer, 8, buffer + 128, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, SIZE_MAX, 4, buffer, 8, buffer + 128, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_u8(op, 1, 4, 4, (uint8_t*) buffer, 8, (uint8_t*) buffer + 128, 8, NULL,
                                                NULL),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);

  /* the requantizing average pooling's own refusals, op untouched */
  op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  struct q8nn_pooling2d_quantization q = {0, 0.5f, 3, 0.25f};
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, NULL, -128, 127, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, -128, 127, 0x20, &op),
                   q8nn_status_invalid_parameter);
  q.input_zero_point = 128;
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, -128, 127, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_u8(&good, &q, 0, 255, 0, &op),
                   q8nn_status_success);
  q8nn_delete_operator(op);
  op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  q.input_zero_point = -1;
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_u8(&good, &q, 0, 255, 0, &op),
                   q8nn_status_invalid_parameter);
  q.input_zero_point = 0;
  q.output_scale = 0.0f;
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, -128, 127, 0, &op),
                   q8nn_status_invalid_parameter);
  q.output_scale = 1e-40f; /* subnormal */
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, -128, 127, 0, &op),
                   q8nn_status_invalid_parameter);
  q.output_scale = 0.5f / 256.0f; /* ratio 2^8 */
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, -128, 127, 0, &op),
                   q8nn_status_unsupported_parameter);
  q.output_scale = 0.5f * 512.0f; /* ratio 2^-9 */
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, -128, 127, 0, &op),
                   q8nn_status_unsupported_parameter);
  q.output_scale = 0.25f;
  struct q8nn_pooling2d_desc huge = good;
  huge.pooling_height = huge.pooling_width = 4096; /* 2^24 cells */
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&huge, &q, -128, 127, 0, &op),
                   q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_create_average_pooling2d_requantized_nhwc_s8(&good, &q, 5, 4, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pooling_sweep),
      cmocka_unit_test(test_average_pool_large_windows),
      cmocka_unit_test(test_pooling_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
