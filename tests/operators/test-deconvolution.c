/*
 * Transposed convolution through the public API against the reference's scatter form (TFLite's
 * TransposeConv, tests/reference): kernels 1 to 5, strides 1 to 3, dilations 1 and 2, paddings that
 * crop, adjustments below the stride, groups, per-tensor and per-channel scales, the three
 * requantizations, int8 and uint8, pixel strides with gaps, every ISA mask, every pool, re-setup
 * with a new adjustment; and the refusals.
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

#include <q8nn.h>

#include "reference/reference.h"
#include "testers/test-util.h"

struct deconv_case {
  size_t batch, h, w, groups, gic, goc, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, ah, aw, in_stride, out_stride;
  int rounding, per_tensor, u8;
};

static int run_case(const struct deconv_case* c, size_t pool, const char* mask) {
  const size_t oh = (c->h - 1) * c->sh + c->dh * (c->kh - 1) + 1 + c->ah - c->pt - c->pb;
  const size_t ow = (c->w - 1) * c->sw + c->dw * (c->kw - 1) + 1 + c->aw - c->pl - c->pr;
  const size_t in_c = c->groups * c->gic, out_c = c->groups * c->goc, taps = c->kh * c->kw;
  const size_t in_pixels = c->batch * c->h * c->w, out_pixels = c->batch * oh * ow;
  int8_t* kernel = malloc(out_c * taps * c->gic);
  int32_t* bias = malloc(out_c * sizeof(int32_t));
  float* kernel_scale = malloc(out_c * sizeof(float));
  int32_t* multiplier = malloc(out_c * sizeof(int32_t));
  int32_t* shift = malloc(out_c * sizeof(int32_t));
  float* scale = malloc(out_c * sizeof(float));
  int8_t* input = malloc(in_pixels * c->in_stride);
  int8_t* dense_out = malloc(out_pixels * out_c);
  int8_t* output = malloc(out_pixels * c->out_stride + 16);
  test_fill_s8(kernel, out_c * taps * c->gic);
  test_fill_s32_range(bias, out_c, -5000, 5000);
  test_fill_s8(input, in_pixels * c->in_stride);
  const int32_t in_zp = test_rand_range(-128, 127), out_zp = test_rand_range(-128, 127);
  const float input_scale = 0.03f, output_scale = 0.02f * sqrtf((float) (taps * c->gic));
  for (size_t i = 0; i < (c->per_tensor ? 1 : out_c); i++) kernel_scale[i] = test_rand_float(0.002f, 0.02f);
  for (size_t i = 0; i < out_c; i++) {
    const float ks = kernel_scale[c->per_tensor ? 0 : i];
    assert_true(ref_quantize_multiplier((double) input_scale * (double) ks / (double) output_scale, &multiplier[i],
                                        &shift[i]));
    scale[i] = ref_fp32_scale(input_scale, ks, output_scale);
  }
  /* the reference in the int8 domain: the uint8 bytes are flipped around it */
  const uint8_t flip = c->u8 ? 0x80 : 0;
  int8_t* dense_in = malloc(in_pixels * in_c);
  for (size_t p = 0; p < in_pixels; p++) {
    for (size_t k = 0; k < in_c; k++) dense_in[p * in_c + k] = (int8_t) ((uint8_t) input[p * c->in_stride + k] ^ flip);
  }
  const struct ref_conv_params rp = {
      .batch = c->batch, .in_h = c->h, .in_w = c->w, .in_c = c->gic, .groups = c->groups, .out_c = c->goc,
      .k_h = c->kh, .k_w = c->kw, .stride_h = c->sh, .stride_w = c->sw, .dil_h = c->dh, .dil_w = c->dw,
      .pad_top = c->pt, .pad_left = c->pl, .in_pixel_stride = in_c, .out_pixel_stride = out_c,
      .in_zp = in_zp, .out_zp = out_zp, .out_min = -128, .out_max = 127, .multiplier = multiplier, .shift = shift,
      .rounding = c->rounding, .scale = scale};
  ref_transpose_conv2d(&rp, oh, ow, dense_in, kernel, bias, dense_out);
  memset(output, TEST_GUARD_BYTE, out_pixels * c->out_stride + 16);
  const struct q8nn_convolution2d_desc d = {
      (uint32_t) c->pt, (uint32_t) c->pr, (uint32_t) c->pb, (uint32_t) c->pl, (uint32_t) c->kh, (uint32_t) c->kw,
      (uint32_t) c->sh, (uint32_t) c->sw, (uint32_t) c->dh, (uint32_t) c->dw, (uint32_t) c->groups, c->gic, c->goc};
  const uint32_t flags = c->per_tensor ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  q8nn_operator_t op = NULL;
  enum q8nn_status status;
  if (c->u8) {
    const struct q8nn_conv_quantization_u8 q = {in_zp + 128, input_scale, kernel_scale, out_zp + 128, output_scale,
                                                0, 255, (enum q8nn_rounding) c->rounding, NULL, NULL, NULL};
    status = q8nn_create_deconvolution2d_nhwc_u8(&d, &q, kernel, bias, flags, &op);
  } else {
    const struct q8nn_conv_quantization q = {in_zp, input_scale, kernel_scale, out_zp, output_scale, -128, 127,
                                             (enum q8nn_rounding) c->rounding, NULL, NULL, NULL};
    status = q8nn_create_deconvolution2d_nhwc_s8(&d, &q, kernel, bias, flags, &op);
  }
  assert_int_equal(status, q8nn_status_success);
  size_t got_h = 0, got_w = 0;
  /* a first setup with no adjustment, then the real one (the indirection is rebuilt) */
  if (c->ah != 0 || c->aw != 0) {
    status = c->u8 ? q8nn_setup_deconvolution2d_nhwc_u8(op, c->batch, c->h, c->w, 0, 0, (const uint8_t*) input,
                                                        c->in_stride, (uint8_t*) output, c->out_stride, NULL, NULL)
                   : q8nn_setup_deconvolution2d_nhwc_s8(op, c->batch, c->h, c->w, 0, 0, input, c->in_stride, output,
                                                        c->out_stride, NULL, NULL);
    assert_true(status == q8nn_status_success || status == q8nn_status_invalid_parameter);
  }
  status = c->u8 ? q8nn_setup_deconvolution2d_nhwc_u8(op, c->batch, c->h, c->w, (uint32_t) c->ah, (uint32_t) c->aw,
                                                      (const uint8_t*) input, c->in_stride, (uint8_t*) output,
                                                      c->out_stride, &got_h, &got_w)
                 : q8nn_setup_deconvolution2d_nhwc_s8(op, c->batch, c->h, c->w, (uint32_t) c->ah, (uint32_t) c->aw,
                                                      input, c->in_stride, output, c->out_stride, &got_h, &got_w);
  assert_int_equal(status, q8nn_status_success);
  assert_int_equal(got_h, oh);
  assert_int_equal(got_w, ow);
  status = pool < TEST_NUM_THREADPOOLS ? q8nn_run_operator(op, test_threadpool(pool))
                                       : q8nn_run_operator_on(op, test_host_pool(pool - TEST_NUM_THREADPOOLS));
  assert_int_equal(status, q8nn_status_success);
  int failures = 0;
  for (size_t p = 0; p < out_pixels && failures == 0; p++) {
    for (size_t k = 0; k < c->out_stride; k++) {
      const int8_t got = output[p * c->out_stride + k];
      const int8_t want = k < out_c ? (int8_t) ((uint8_t) dense_out[p * out_c + k] ^ flip) : TEST_GUARD_BYTE;
      if (got != want && (k < out_c || p + 1 < out_pixels)) {
        fprintf(stderr,
                "FAIL %s %s: %zux%zux%zu groups %zu k %zux%zu s %zux%zu d %zux%zu pad %zu,%zu,%zu,%zu adj %zu,%zu "
                "rounding %d %s pool %zu: pixel %zu channel %zu is %d, want %d\n",
                q8nn_operator_kernel_name(op), mask, c->h, c->w, in_c, c->groups, c->kh, c->kw, c->sh, c->sw, c->dh,
                c->dw, c->pt, c->pr, c->pb, c->pl, c->ah, c->aw, c->rounding, c->u8 ? "u8" : "s8", pool, p, k, got,
                want);
        failures++;
        break;
      }
    }
  }
  if (output[out_pixels * c->out_stride] != TEST_GUARD_BYTE) failures++;
  q8nn_delete_operator(op);
  free(kernel), free(bias), free(kernel_scale), free(multiplier), free(shift), free(scale);
  free(input), free(dense_in), free(dense_out), free(output);
  return failures;
}

static void test_deconvolution_sweep(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  size_t cases = 0;
  for (size_t i = 0; i < 300 && failures == 0; i++) {
    struct deconv_case c;
    memset(&c, 0, sizeof(c));
    c.batch = 1 + test_rand() % 2;
    c.h = 1 + test_rand() % 7;
    c.w = 1 + test_rand() % 7;
    c.groups = i % 5 == 4 ? 2 : 1;
    c.gic = 1 + test_rand() % 20;
    c.goc = 1 + test_rand() % 20;
    c.kh = 1 + test_rand() % 5;
    c.kw = 1 + test_rand() % 5;
    c.sh = 1 + test_rand() % 3;
    c.sw = 1 + test_rand() % 3;
    c.dh = i % 7 == 6 ? 2 : 1;
    c.dw = i % 7 == 6 ? 2 : 1;
    const size_t full_h = (c.h - 1) * c.sh + c.dh * (c.kh - 1) + 1, full_w = (c.w - 1) * c.sw + c.dw * (c.kw - 1) + 1;
    c.pt = test_rand() % c.kh;
    c.pb = test_rand() % c.kh;
    c.pl = test_rand() % c.kw;
    c.pr = test_rand() % c.kw;
    c.ah = test_rand() % c.sh;
    c.aw = test_rand() % c.sw;
    if (c.pt + c.pb >= full_h + c.ah || c.pl + c.pr >= full_w + c.aw) continue;
    c.in_stride = c.groups * c.gic + (i % 3 == 0 ? test_rand() % 3 : 0);
    c.out_stride = c.groups * c.goc + (i % 4 == 0 ? test_rand() % 3 : 0);
    c.rounding = (int) (i % 3);
    c.per_tensor = (int) ((i / 3) % 2);
    c.u8 = (int) ((i / 2) % 2);
    cases++;
    for (size_t m = 0; m < num_masks; m++) {
      if (m + 1 != num_masks && i % 3 != 0) continue; /* every case on the widest mask, a third on the others */
      q8nn_set_isa_mask(masks[m]);
      failures += run_case(&c, (i + m) % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS), test_isa_name(masks[m]));
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  printf("transposed convolution: %zu cases\n", cases);
  assert_int_equal(failures, 0);
  assert_true(cases > 200);
}

static void test_deconvolution_refusals(void** state) {
  (void) state;
  int8_t kernel[4 * 9 * 4] = {0}, buffer[1024];
  const float kernel_scale = 0.01f;
  const struct q8nn_conv_quantization q = {0, 0.02f, &kernel_scale, 0, 0.5f, -128, 127, q8nn_rounding_double,
                                           NULL, NULL, NULL};
  struct q8nn_convolution2d_desc d = {1, 1, 1, 1, 3, 3, 2, 2, 1, 1, 1, 4, 4};
  const uint32_t pt = Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE;
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  assert_int_equal(q8nn_create_deconvolution2d_nhwc_s8(NULL, &q, kernel, NULL, pt, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_deconvolution2d_nhwc_s8(&d, &q, NULL, NULL, pt, &op), q8nn_status_invalid_parameter);
  d.stride_height = 0;
  assert_int_equal(q8nn_create_deconvolution2d_nhwc_s8(&d, &q, kernel, NULL, pt, &op), q8nn_status_invalid_parameter);
  d.stride_height = 70000;
  assert_int_equal(q8nn_create_deconvolution2d_nhwc_s8(&d, &q, kernel, NULL, pt, &op), q8nn_status_invalid_parameter);
  d.stride_height = 2;
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);
  assert_int_equal(q8nn_create_deconvolution2d_nhwc_s8(&d, &q, kernel, NULL, pt, &op), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  size_t oh = 0, ow = 0;
  /* adjustment not below the stride */
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_s8(op, 1, 4, 4, 2, 0, buffer, 4, buffer + 512, 4, &oh, &ow),
                   q8nn_status_invalid_parameter);
  assert_int_equal(oh, 0);
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_s8(op, 1, 4, 4, 0, 0, buffer, 3, buffer + 512, 4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_s8(op, 1, 4, 4, 0, 0, NULL, 4, buffer + 512, 4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_s8(op, 1, 4, 4, 0, 0, buffer, SIZE_MAX / 4, buffer + 512, 4, NULL,
                                                      NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_s8(op, 1, 4, 4, 0, 0, buffer, 4, buffer + 512, SIZE_MAX / 8, NULL,
                                                      NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  /* 4x4 -> (4 - 1) * 2 + 3 - 2 = 7 */
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_s8(op, 1, 4, 4, 1, 1, buffer, 4, buffer + 512, 4, &oh, &ow),
                   q8nn_status_success);
  assert_int_equal(oh, 8);
  assert_int_equal(ow, 8);
  /* the convolution setups refuse it */
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 4, 4, buffer, 4, buffer + 512, 4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_deconvolution2d_nhwc_u8(op, 1, 4, 4, 0, 0, (uint8_t*) buffer, 4, (uint8_t*) buffer + 512,
                                                      4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deconvolution_sweep),
      cmocka_unit_test(test_deconvolution_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
