/*
 * The API a host runtime needs (q8nn.h, "Hosting in another runtime"):
 *  - uint8 activations: every uint8 operator gives the int8 operator's bytes on x ^ 0x80 (uint8 z
 *    is int8 z - 128), for conv (gemm, igemm, im2col), depthwise (depth multiplier 1 and 2) and add
 *    (dense and broadcast), in every numerics, on every ISA mask and thread count. The int8 path
 *    itself is checked against the reference by the other operator tests.
 *  - re-setup with new pointers (below and above the first input, so the kept indirection's offset
 *    wraps both ways) equals a fresh operator's setup on those pointers;
 *  - caller-computed fp32 scales equal the scales q8nn computes from the same formula, and bad
 *    ones get their status;
 *  - q8nn_run_operator_on / q8nn_run_operators_on on a host parallel-for (one that runs its pieces
 *    on a pthreadpool's threads, and one that runs them one after another, last first, while
 *    claiming three threads) give the bytes of the calling thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <q8nn.h>

#include "testers/test-util.h"

#define MAX_BYTES (2 * 17 * 19 * 40)

/* ---- host pools ------------------------------------------------------------------------------ */

/* ---- operators ------------------------------------------------------------------------------- */

struct conv_case {
  const char* name;
  int depthwise;
  uint32_t kh, kw, stride, pad, groups;
  size_t in_c, out_c, dm, h, w;
};

static const struct conv_case conv_cases[] = {
    {"1x1 (gemm)", 0, 1, 1, 1, 0, 1, 40, 24, 1, 9, 11},
    {"1x1 K 13 (gemm, K tails)", 0, 1, 1, 1, 0, 1, 13, 19, 1, 9, 11},
    {"3x3 K 5 (igemm, K tails)", 0, 3, 3, 1, 1, 1, 5, 33, 1, 9, 7},
    {"3x3 s2 (igemm)", 0, 3, 3, 2, 1, 1, 16, 20, 1, 17, 19},
    {"3x3 stem (im2col)", 0, 3, 3, 2, 1, 1, 3, 16, 1, 17, 19},
    {"3x3 grouped", 0, 3, 3, 1, 1, 2, 8, 6, 1, 9, 7},
    {"depthwise 3x3", 1, 3, 3, 1, 1, 0, 40, 40, 1, 17, 19},
    {"depthwise 5x5 s2", 1, 5, 5, 2, 2, 0, 24, 24, 1, 11, 13},
    {"depthwise 3x3 dm2", 1, 3, 3, 1, 1, 0, 8, 16, 2, 9, 7},
};

struct conv_data {
  int8_t kernel[40 * 40 * 25];
  int32_t bias[40];
  float kscale[40];
  int32_t in_zp, out_zp, out_min, out_max;
  float in_scale, out_scale;
};

static void make_conv_data(const struct conv_case* c, struct conv_data* d) {
  test_fill_s8(d->kernel, sizeof(d->kernel));
  test_fill_s32_range(d->bias, 40, -5000, 5000);
  for (size_t i = 0; i < 40; i++) d->kscale[i] = test_rand_float(0.002f, 0.02f);
  d->in_zp = test_rand_range(-128, 127);
  d->out_zp = test_rand_range(-128, 127);
  d->out_min = test_rand_range(-128, -60);
  d->out_max = test_rand_range(60, 127);
  d->in_scale = test_rand_float(0.01f, 0.1f);
  d->out_scale = test_rand_float(0.05f, 0.5f);
  (void) c;
}

static enum q8nn_status create_conv(const struct conv_case* c, const struct conv_data* d, enum q8nn_rounding r,
                                    int u8, const float* requantization_scale, q8nn_operator_t* op) {
  const struct q8nn_conv_quantization q = {
      .input_zero_point = d->in_zp, .input_scale = d->in_scale, .kernel_scale = d->kscale,
      .output_zero_point = d->out_zp, .output_scale = d->out_scale, .output_min = (int8_t) d->out_min,
      .output_max = (int8_t) d->out_max, .rounding = r, .requantization_scale = requantization_scale};
  const struct q8nn_conv_quantization_u8 qu = {
      .input_zero_point = d->in_zp + 128, .input_scale = d->in_scale, .kernel_scale = d->kscale,
      .output_zero_point = d->out_zp + 128, .output_scale = d->out_scale, .output_min = (uint8_t) (d->out_min + 128),
      .output_max = (uint8_t) (d->out_max + 128), .rounding = r, .requantization_scale = requantization_scale};
  if (c->depthwise) {
    const struct q8nn_depthwise_convolution2d_desc desc = {
        .padding_top = c->pad, .padding_right = c->pad, .padding_bottom = c->pad, .padding_left = c->pad,
        .kernel_height = c->kh, .kernel_width = c->kw, .stride_height = c->stride, .stride_width = c->stride,
        .dilation_height = 1, .dilation_width = 1, .channels = c->in_c, .depth_multiplier = c->dm};
    return u8 ? q8nn_create_depthwise_convolution2d_nhwc_u8(&desc, &qu, d->kernel, d->bias, 0, op)
              : q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &q, d->kernel, d->bias, 0, op);
  }
  const struct q8nn_convolution2d_desc desc = {
      .padding_top = c->pad, .padding_right = c->pad, .padding_bottom = c->pad, .padding_left = c->pad,
      .kernel_height = c->kh, .kernel_width = c->kw, .stride_height = c->stride, .stride_width = c->stride,
      .dilation_height = 1, .dilation_width = 1, .groups = c->groups,
      .group_input_channels = c->in_c / c->groups, .group_output_channels = c->out_c / c->groups};
  return u8 ? q8nn_create_convolution2d_nhwc_u8(&desc, &qu, d->kernel, d->bias, 0, op)
            : q8nn_create_convolution2d_nhwc_s8(&desc, &q, d->kernel, d->bias, 0, op);
}

static enum q8nn_status setup_conv(const struct conv_case* c, q8nn_operator_t op, int u8, size_t batch,
                                   const int8_t* in, int8_t* out) {
  if (c->depthwise) {
    return u8 ? q8nn_setup_depthwise_convolution2d_nhwc_u8(op, batch, c->h, c->w, (const uint8_t*) in, c->in_c,
                                                           (uint8_t*) out, c->out_c, NULL, NULL)
              : q8nn_setup_depthwise_convolution2d_nhwc_s8(op, batch, c->h, c->w, in, c->in_c, out, c->out_c,
                                                           NULL, NULL);
  }
  return u8 ? q8nn_setup_convolution2d_nhwc_u8(op, batch, c->h, c->w, (const uint8_t*) in, c->in_c,
                                               (uint8_t*) out, c->out_c, NULL, NULL)
            : q8nn_setup_convolution2d_nhwc_s8(op, batch, c->h, c->w, in, c->in_c, out, c->out_c, NULL, NULL);
}

static size_t out_bytes(const struct conv_case* c, size_t batch) {
  const size_t oh = (c->h + 2 * c->pad - c->kh) / c->stride + 1, ow = (c->w + 2 * c->pad - c->kw) / c->stride + 1;
  return batch * oh * ow * c->out_c;
}

/* ---- uint8 against int8 ---------------------------------------------------------------------- */

static void test_u8_conv_equals_s8(void** state) {
  (void) state;
  uint32_t masks[16];
  const size_t nmasks = test_isa_masks(masks, 16);
  static int8_t in[MAX_BYTES], in_u8[MAX_BYTES], out_s8[MAX_BYTES], out_u8[MAX_BYTES];
  static struct conv_data d;
  for (size_t m = 0; m < nmasks; m++) {
    assert_int_equal(q8nn_set_isa_mask(masks[m]), q8nn_status_success);
    for (size_t ci = 0; ci < sizeof(conv_cases) / sizeof(conv_cases[0]); ci++) {
      const struct conv_case* c = &conv_cases[ci];
      for (int r = 0; r <= 2; r++) {
        make_conv_data(c, &d);
        const size_t batch = 2, in_bytes = batch * c->h * c->w * c->in_c, ob = out_bytes(c, batch);
        test_fill_s8(in, in_bytes);
        for (size_t i = 0; i < in_bytes; i++) in_u8[i] = (int8_t) (in[i] ^ 0x80);
        q8nn_operator_t s8 = NULL, u8 = NULL;
        assert_int_equal(create_conv(c, &d, (enum q8nn_rounding) r, 0, NULL, &s8), q8nn_status_success);
        assert_int_equal(create_conv(c, &d, (enum q8nn_rounding) r, 1, NULL, &u8), q8nn_status_success);
        assert_int_equal(setup_conv(c, s8, 0, batch, in, out_s8), q8nn_status_success);
        assert_int_equal(setup_conv(c, u8, 1, batch, in_u8, out_u8), q8nn_status_success);
        /* the other family's setup refuses each */
        assert_int_equal(setup_conv(c, s8, 1, batch, in, out_s8), q8nn_status_invalid_parameter);
        assert_int_equal(setup_conv(c, u8, 0, batch, in, out_s8), q8nn_status_invalid_parameter);
        assert_int_equal(setup_conv(c, u8, 1, batch, in_u8, out_u8), q8nn_status_success);
        for (size_t t = 0; t < 3; t++) {
          memset(out_s8, 0x55, ob);
          memset(out_u8, 0x55, ob);
          assert_int_equal(q8nn_run_operator(s8, test_threadpool(t)), q8nn_status_success);
          assert_int_equal(q8nn_run_operator(u8, test_threadpool(t)), q8nn_status_success);
          for (size_t i = 0; i < ob; i++) {
            if ((int8_t) (out_u8[i] ^ 0x80) != out_s8[i]) {
              fail_msg("%s, %s, rounding %d, %zu threads, u8 kernel %s: byte %zu is %d, int8 gives %d + 128",
                       c->name, test_isa_name(masks[m]), r, test_threadpool_threads(t), q8nn_operator_kernel_name(u8),
                       i, (uint8_t) out_u8[i], out_s8[i]);
            }
          }
        }
        q8nn_delete_operator(s8);
        q8nn_delete_operator(u8);
      }
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  /* statuses of the uint8 family: zero points outside [0, 255], an inverted clamp, NULL */
  const struct conv_case* c = &conv_cases[0];
  make_conv_data(c, &d);
  const float one = 1.0f;
  const struct q8nn_convolution2d_desc desc = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, c->in_c, c->out_c};
  const struct q8nn_depthwise_convolution2d_desc ddesc = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, c->in_c, 1};
  struct q8nn_conv_quantization_u8 bad[4] = {
      {.input_zero_point = 256, .input_scale = 1.0f, .kernel_scale = &one, .output_scale = 1.0f, .output_max = 255},
      {.input_zero_point = 0, .input_scale = 1.0f, .kernel_scale = &one, .output_zero_point = -1, .output_scale = 1.0f,
       .output_max = 255},
      {.input_scale = 1.0f, .kernel_scale = &one, .output_scale = 1.0f, .output_min = 200, .output_max = 100},
      {.input_scale = 1.0f, .kernel_scale = &one, .output_scale = 1.0f, .output_max = 255,
       .rounding = q8nn_rounding_double, .requantization_scale = &one},
  };
  for (size_t i = 0; i < 4; i++) {
    q8nn_operator_t op = NULL;
    assert_int_equal(q8nn_create_convolution2d_nhwc_u8(&desc, &bad[i], d.kernel, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                     q8nn_status_invalid_parameter);
    assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_u8(&ddesc, &bad[i], d.kernel, NULL,
                                                                 Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                     q8nn_status_invalid_parameter);
    assert_null(op);
  }
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_convolution2d_nhwc_u8(&desc, NULL, d.kernel, NULL, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_convolution2d_nhwc_u8(NULL, &bad[0], d.kernel, NULL, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_null(op);
}

static void test_u8_add_equals_s8(void** state) {
  (void) state;
  uint32_t masks[16];
  const size_t nmasks = test_isa_masks(masks, 16);
  static int8_t a[MAX_BYTES], b[MAX_BYTES], au[MAX_BYTES], bu[MAX_BYTES], ys[65536], yu[65536];
  const size_t out_shape[4] = {2, 13, 11, 37}, row_shape[1] = {37}, one[1] = {1};
  const size_t total = 2 * 13 * 11 * 37;
  for (size_t m = 0; m < nmasks; m++) {
    assert_int_equal(q8nn_set_isa_mask(masks[m]), q8nn_status_success);
    for (int xnn = 0; xnn <= 1; xnn++) {
      for (int bshape = 0; bshape < 3; bshape++) {
        const int32_t za = test_rand_range(-128, 127), zb = test_rand_range(-128, 127), zo = test_rand_range(-128, 127);
        /* random scales (TFLite: its linear, guarded or exact form), and scale sets with an affine
           form (equal scales; power-of-two ratios) */
        const int form = (int) (test_rand() % 3);
        float sa = test_rand_float(0.01f, 0.1f), sb = test_rand_float(0.01f, 0.1f);
        float so = test_rand_float(0.02f, 0.2f);
        if (form == 1) sb = sa, so = sa;
        if (form == 2) sb = sa * 0.5f, so = sa * 2.0f;
        const int32_t lo = test_rand_range(-128, -40), hi = test_rand_range(40, 127);
        const struct q8nn_add_quantization q = {za, sa, zb, sb, zo, so, (int8_t) lo, (int8_t) hi, NULL};
        const struct q8nn_add_quantization_u8 qu = {za + 128, sa, zb + 128, sb, zo + 128, so,
                                                    (uint8_t) (lo + 128), (uint8_t) (hi + 128), NULL};
        const uint32_t flags = xnn ? Q8NN_FLAG_XNNPACK_ADD : 0;
        q8nn_operator_t s8 = NULL, u8 = NULL;
        assert_int_equal(q8nn_create_add_nd_s8(&q, flags, &s8), q8nn_status_success);
        assert_int_equal(q8nn_create_add_nd_u8(&qu, flags, &u8), q8nn_status_success);
        const size_t* bs = bshape == 0 ? out_shape : bshape == 1 ? row_shape : one;
        const size_t bdims = bshape == 0 ? 4 : 1;
        const size_t bcount = bshape == 0 ? total : bshape == 1 ? 37 : 1;
        test_fill_s8(a, total);
        test_fill_s8(b, bcount);
        for (size_t i = 0; i < total; i++) au[i] = (int8_t) (a[i] ^ 0x80);
        for (size_t i = 0; i < bcount; i++) bu[i] = (int8_t) (b[i] ^ 0x80);
        /* b as the first operand too: the swapped broadcast */
        const int swap = bshape != 0 && (m & 1);
        assert_int_equal(swap ? q8nn_setup_add_nd_s8(s8, bdims, bs, 4, out_shape, b, a, ys)
                              : q8nn_setup_add_nd_s8(s8, 4, out_shape, bdims, bs, a, b, ys),
                         q8nn_status_success);
        assert_int_equal(swap ? q8nn_setup_add_nd_u8(u8, bdims, bs, 4, out_shape, (const uint8_t*) bu,
                                                     (const uint8_t*) au, (uint8_t*) yu)
                              : q8nn_setup_add_nd_u8(u8, 4, out_shape, bdims, bs, (const uint8_t*) au,
                                                     (const uint8_t*) bu, (uint8_t*) yu),
                         q8nn_status_success);
        assert_int_equal(q8nn_setup_add_nd_s8(u8, 4, out_shape, 4, out_shape, a, a, ys), q8nn_status_invalid_parameter);
        assert_int_equal(q8nn_setup_add_nd_u8(s8, 4, out_shape, 4, out_shape, (const uint8_t*) a, (const uint8_t*) a,
                                              (uint8_t*) ys),
                         q8nn_status_invalid_parameter);
        for (size_t t = 0; t < 3; t++) {
          memset(ys, 0x55, total);
          memset(yu, 0x55, total);
          assert_int_equal(q8nn_run_operator(s8, test_threadpool(t)), q8nn_status_success);
          assert_int_equal(q8nn_run_operator(u8, test_threadpool(t)), q8nn_status_success);
          for (size_t i = 0; i < total; i++) {
            if ((int8_t) (yu[i] ^ 0x80) != ys[i]) {
              fail_msg("add %s, b shape %d, %s: byte %zu is %d, int8 gives %d + 128", xnn ? "xnnpack" : "tflite",
                       bshape, test_isa_name(masks[m]), i, (uint8_t) yu[i], ys[i]);
            }
          }
        }
        if (getenv("Q8NN_TEST_VERBOSE") != NULL) fprintf(stderr, "%s\n", q8nn_operator_kernel_name(u8));
        q8nn_delete_operator(s8);
        q8nn_delete_operator(u8);
      }
    }
  }
  /* a TFLite add with no exact linear form (MLCommons' CIFAR-10 ResNet's first add): the guarded
     form on x86, whose flagged chunks run the exact kernel; every pair, uint8 against int8 */
  static int8_t pa[65536], pb[65536], pau[65536], pbu[65536];
  for (size_t i = 0; i < 65536; i++) {
    pa[i] = (int8_t) (i >> 8), pb[i] = (int8_t) i;
    pau[i] = (int8_t) (pa[i] ^ 0x80), pbu[i] = (int8_t) (pb[i] ^ 0x80);
  }
  const size_t pairs[1] = {65536};
  for (size_t m = 0; m < nmasks; m++) {
    assert_int_equal(q8nn_set_isa_mask(masks[m]), q8nn_status_success);
    const struct q8nn_add_quantization gq = {-128, 0.0393935516f, 4, 0.104194961f, -128, 0.0509456731f, -128, 127, NULL};
    const struct q8nn_add_quantization_u8 gqu = {0, 0.0393935516f, 132, 0.104194961f, 0, 0.0509456731f, 0, 255, NULL};
    q8nn_operator_t s8 = NULL, u8 = NULL;
    assert_int_equal(q8nn_create_add_nd_s8(&gq, 0, &s8), q8nn_status_success);
    assert_int_equal(q8nn_create_add_nd_u8(&gqu, 0, &u8), q8nn_status_success);
    assert_int_equal(q8nn_setup_add_nd_s8(s8, 1, pairs, 1, pairs, pa, pb, ys), q8nn_status_success);
    assert_int_equal(q8nn_setup_add_nd_u8(u8, 1, pairs, 1, pairs, (const uint8_t*) pau, (const uint8_t*) pbu,
                                          (uint8_t*) yu),
                     q8nn_status_success);
    assert_int_equal(q8nn_run_operator(s8, NULL), q8nn_status_success);
    assert_int_equal(q8nn_run_operator(u8, NULL), q8nn_status_success);
    if (getenv("Q8NN_TEST_VERBOSE") != NULL) fprintf(stderr, "%s\n", q8nn_operator_kernel_name(u8));
    for (size_t i = 0; i < 65536; i++) {
      if ((int8_t) (yu[i] ^ 0x80) != ys[i]) {
        fail_msg("guarded add, %s (%s): pair %zu is %d, int8 gives %d + 128", test_isa_name(masks[m]),
                 q8nn_operator_kernel_name(u8), i, (uint8_t) yu[i], ys[i]);
      }
    }
    q8nn_delete_operator(s8);
    q8nn_delete_operator(u8);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  /* statuses of the uint8 family */
  const struct q8nn_add_quantization_u8 bad = {256, 1.0f, 0, 1.0f, 0, 1.0f, 0, 255, NULL};
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_add_nd_u8(&bad, 0, &op), q8nn_status_invalid_parameter);
  const struct q8nn_add_quantization_u8 inverted = {0, 1.0f, 0, 1.0f, 0, 1.0f, 200, 100, NULL};
  assert_int_equal(q8nn_create_add_nd_u8(&inverted, 0, &op), q8nn_status_invalid_parameter);
  assert_null(op);
}

/* ---- pytorch_qnnpack's add (Q8NN_FLAG_QNNPACK_ADD) --------------------------------------------- */

static void test_qnnpack_add(void** state) {
  (void) state;
  uint32_t masks[16];
  const size_t nmasks = test_isa_masks(masks, 16);
  /* every (a, b) pair once: a = i / 256, b = i % 256 */
  static uint8_t a[65536], b[65536], y[65536], ys[65536];
  for (size_t i = 0; i < 65536; i++) a[i] = (uint8_t) (i >> 8), b[i] = (uint8_t) i;
  const size_t shape[1] = {65536};
  int portable = 0, xnn_form = 0;
  for (int t = 0; t < 24; t++) {
    /* the first case has exact ties of both signs (ratios 3/2 and 1/2, zero points 128:
       acc = 2^20 (3 (a - 128) + (b - 128)), halfway wherever that sum is odd) */
    const float sa = t == 0 ? 0.15f : test_rand_float(0.005f, 0.2f), sb = t == 0 ? 0.05f : test_rand_float(0.005f, 0.2f);
    const float so = t == 0 ? 0.1f : test_rand_float(0.01f, 0.3f);
    const int32_t za = t == 0 ? 128 : test_rand_range(0, 255), zb = t == 0 ? 128 : test_rand_range(0, 255);
    const int32_t zo = test_rand_range(0, 255);
    const int32_t lo = t % 3 == 1 ? (zo < 199 ? zo : 199) : test_rand_range(0, 40), hi = test_rand_range(200, 255);
    /* the reference in the int8 domain: uint8 z is int8 z - 128 */
    struct ref_xnn_add_params rp;
    assert_int_equal(ref_qnnpack_add_params_from_scales(sa, za - 128, sb, zb - 128, so, zo - 128, lo - 128, hi - 128,
                                                        &rp),
                     0);
    const struct q8nn_add_quantization_u8 q = {za, sa, zb, sb, zo, so, (uint8_t) lo, (uint8_t) hi, NULL};
    const struct q8nn_add_quantization qs = {za - 128, sa, zb - 128, sb, zo - 128, so, (int8_t) (lo - 128),
                                             (int8_t) (hi - 128), NULL};
    for (size_t m = 0; m < nmasks; m++) {
      assert_int_equal(q8nn_set_isa_mask(masks[m]), q8nn_status_success);
      q8nn_operator_t op = NULL, op_s8 = NULL;
      assert_int_equal(q8nn_create_add_nd_u8(&q, Q8NN_FLAG_QNNPACK_ADD, &op), q8nn_status_success);
      assert_int_equal(q8nn_create_add_nd_s8(&qs, Q8NN_FLAG_QNNPACK_ADD, &op_s8), q8nn_status_success);
      if (strstr(q8nn_operator_kernel_name(op), "qnn_ukernel__scalar") != NULL) portable++;
      else xnn_form++;
      assert_int_equal(q8nn_setup_add_nd_u8(op, 1, shape, 1, shape, a, b, y), q8nn_status_success);
      int8_t* as = (int8_t*) malloc(65536 * 2);
      for (size_t i = 0; i < 65536; i++) as[i] = (int8_t) (a[i] ^ 0x80), as[65536 + i] = (int8_t) (b[i] ^ 0x80);
      assert_int_equal(q8nn_setup_add_nd_s8(op_s8, 1, shape, 1, shape, as, as + 65536, (int8_t*) ys),
                       q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op, test_threadpool(m % 3)), q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op_s8, test_threadpool(m % 3)), q8nn_status_success);
      for (size_t i = 0; i < 65536; i++) {
        const uint8_t want = (uint8_t) (ref_xnn_add_element(&rp, (int8_t) (a[i] ^ 0x80), (int8_t) (b[i] ^ 0x80)) ^ 0x80);
        if (y[i] != want || (uint8_t) (ys[i] ^ 0x80) != want) {
          fail_msg("case %d (%s, %s): a %d b %d gives %d (int8 operator %d), pytorch_qnnpack %d", t,
                   test_isa_name(masks[m]), q8nn_operator_kernel_name(op), a[i], b[i], y[i],
                   (uint8_t) (ys[i] ^ 0x80), want);
        }
      }
      free(as);
      q8nn_delete_operator(op);
      q8nn_delete_operator(op_s8);
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  /* both paths ran: the first case on the portable kernel, most others on XNNPACK's form */
  assert_true(portable > 0);
  assert_true(xnn_form > 0);
  /* statuses */
  q8nn_operator_t op = NULL;
  const struct q8nn_add_quantization_u8 tiny = {0, 1e-6f, 0, 1e-6f, 0, 1.0f, 0, 255, NULL};
  assert_int_equal(q8nn_create_add_nd_u8(&tiny, Q8NN_FLAG_QNNPACK_ADD, &op), q8nn_status_unsupported_parameter);
  const struct q8nn_add_quantization_u8 ok = {0, 1.0f, 0, 1.0f, 0, 1.0f, 0, 255, NULL};
  assert_int_equal(q8nn_create_add_nd_u8(&ok, Q8NN_FLAG_QNNPACK_ADD | Q8NN_FLAG_XNNPACK_ADD, &op),
                   q8nn_status_invalid_parameter);
  assert_null(op);
}

/* ---- re-setup with new pointers -------------------------------------------------------------- */

static void test_resetup_new_pointers(void** state) {
  (void) state;
  /* one block with room for three inputs: the middle first, then the lower and the upper one */
  static int8_t block[4 * MAX_BYTES], out_a[MAX_BYTES], out_b[MAX_BYTES];
  static struct conv_data d;
  for (size_t ci = 0; ci < sizeof(conv_cases) / sizeof(conv_cases[0]); ci++) {
    const struct conv_case* c = &conv_cases[ci];
    for (int u8 = 0; u8 <= 1; u8++) {
      make_conv_data(c, &d);
      const size_t batch = 2, in_bytes = batch * c->h * c->w * c->in_c, ob = out_bytes(c, batch);
      test_fill_s8(block, sizeof(block));
      q8nn_operator_t kept = NULL;
      assert_int_equal(create_conv(c, &d, q8nn_rounding_double, u8, NULL, &kept), q8nn_status_success);
      assert_int_equal(setup_conv(c, kept, u8, batch, block + MAX_BYTES, out_a), q8nn_status_success);
      assert_int_equal(q8nn_run_operator(kept, NULL), q8nn_status_success);
      const size_t where[3] = {0, 2 * MAX_BYTES + 7, MAX_BYTES};
      for (size_t k = 0; k < 3; k++) {
        const int8_t* input = block + where[k];
        assert_true(where[k] + in_bytes <= sizeof(block));
        q8nn_operator_t fresh = NULL;
        assert_int_equal(create_conv(c, &d, q8nn_rounding_double, u8, NULL, &fresh), q8nn_status_success);
        assert_int_equal(setup_conv(c, kept, u8, batch, input, out_a), q8nn_status_success);
        assert_int_equal(setup_conv(c, fresh, u8, batch, input, out_b), q8nn_status_success);
        for (size_t t = 0; t < 3; t++) {
          memset(out_a, 0x11, ob);
          memset(out_b, 0x22, ob);
          assert_int_equal(q8nn_run_operator(kept, test_threadpool(t)), q8nn_status_success);
          assert_int_equal(q8nn_run_operator(fresh, test_threadpool(t)), q8nn_status_success);
          if (memcmp(out_a, out_b, ob) != 0) {
            fail_msg("%s (%s): re-setup on input %zu differs from a fresh setup", c->name, u8 ? "u8" : "s8", k);
          }
        }
        q8nn_delete_operator(fresh);
      }
      /* a smaller batch, then the first shape again */
      assert_int_equal(setup_conv(c, kept, u8, 1, block, out_a), q8nn_status_success);
      assert_int_equal(q8nn_run_operator(kept, NULL), q8nn_status_success);
      q8nn_delete_operator(kept);
    }
  }
}

/* ---- caller-computed fp32 scales ------------------------------------------------------------- */

static void test_requantization_scale(void** state) {
  (void) state;
  static int8_t in[MAX_BYTES], out_a[MAX_BYTES], out_b[MAX_BYTES];
  static struct conv_data d;
  const struct conv_case* c = &conv_cases[1];
  make_conv_data(c, &d);
  float scales[40];
  for (size_t i = 0; i < c->out_c; i++) {
    volatile float product = d.in_scale * d.kscale[i];
    scales[i] = product / d.out_scale;
  }
  const size_t batch = 2, ob = out_bytes(c, batch);
  test_fill_s8(in, batch * c->h * c->w * c->in_c);
  q8nn_operator_t given = NULL, computed = NULL;
  assert_int_equal(create_conv(c, &d, q8nn_rounding_fp32, 0, scales, &given), q8nn_status_success);
  assert_int_equal(create_conv(c, &d, q8nn_rounding_fp32, 0, NULL, &computed), q8nn_status_success);
  assert_int_equal(setup_conv(c, given, 0, batch, in, out_a), q8nn_status_success);
  assert_int_equal(setup_conv(c, computed, 0, batch, in, out_b), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(given, NULL), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(computed, NULL), q8nn_status_success);
  assert_memory_equal(out_a, out_b, ob);
  /* a different formula (pytorch_qnnpack's) changes the scales it is given, and only those */
  for (size_t i = 0; i < c->out_c; i++) {
    volatile float product = d.kscale[i] * d.in_scale;
    volatile float inverse = 1.0f / d.out_scale;
    scales[i] = product * inverse;
  }
  q8nn_operator_t other = NULL;
  assert_int_equal(create_conv(c, &d, q8nn_rounding_fp32, 0, scales, &other), q8nn_status_success);
  q8nn_delete_operator(other);
  q8nn_delete_operator(given);
  q8nn_delete_operator(computed);
  /* statuses: TFLite roundings take no float scales; NaN, negative: invalid; >= 256: unsupported */
  q8nn_operator_t op = NULL;
  assert_int_equal(create_conv(c, &d, q8nn_rounding_double, 0, scales, &op), q8nn_status_invalid_parameter);
  scales[3] = -1.0f;
  assert_int_equal(create_conv(c, &d, q8nn_rounding_fp32, 0, scales, &op), q8nn_status_invalid_parameter);
  scales[3] = 0.0f / 0.0f;
  assert_int_equal(create_conv(c, &d, q8nn_rounding_fp32, 0, scales, &op), q8nn_status_invalid_parameter);
  scales[3] = 256.0f;
  assert_int_equal(create_conv(c, &d, q8nn_rounding_fp32, 0, scales, &op), q8nn_status_unsupported_parameter);
  assert_null(op);
}

/* ---- the host's threads ---------------------------------------------------------------------- */

static void test_host_threads(void** state) {
  (void) state;
  static int8_t in[MAX_BYTES], mid[MAX_BYTES], dw[MAX_BYTES], out_ref[MAX_BYTES], out[MAX_BYTES];
  static struct conv_data d1, d2, d3;
  /* expand 1x1, depthwise 3x3, project 1x1 + residual add: a list whose region has share waits */
  const struct conv_case expand = {"expand", 0, 1, 1, 1, 0, 1, 8, 40, 1, 17, 19};
  const struct conv_case depth = {"dw", 1, 3, 3, 1, 1, 0, 40, 40, 1, 17, 19};
  const struct conv_case project = {"project", 0, 1, 1, 1, 0, 1, 40, 8, 1, 17, 19};
  make_conv_data(&expand, &d1);
  make_conv_data(&depth, &d2);
  make_conv_data(&project, &d3);
  const size_t batch = 2, pixels = batch * 17 * 19;
  test_fill_s8(in, pixels * 8);
  q8nn_operator_t ops[4];
  assert_int_equal(create_conv(&expand, &d1, q8nn_rounding_double, 0, NULL, &ops[0]), q8nn_status_success);
  assert_int_equal(create_conv(&depth, &d2, q8nn_rounding_double, 0, NULL, &ops[1]), q8nn_status_success);
  assert_int_equal(create_conv(&project, &d3, q8nn_rounding_double, 0, NULL, &ops[2]), q8nn_status_success);
  const struct q8nn_add_quantization aq = {0, 0.05f, 3, 0.07f, -2, 0.09f, -128, 127, NULL};
  assert_int_equal(q8nn_create_add_nd_s8(&aq, 0, &ops[3]), q8nn_status_success);
  assert_int_equal(setup_conv(&expand, ops[0], 0, batch, in, mid), q8nn_status_success);
  assert_int_equal(setup_conv(&depth, ops[1], 0, batch, mid, dw), q8nn_status_success);
  assert_int_equal(setup_conv(&project, ops[2], 0, batch, dw, out), q8nn_status_success);
  const size_t shape[4] = {batch, 17, 19, 8};
  assert_int_equal(q8nn_setup_add_nd_s8(ops[3], 4, shape, 4, shape, out, in, out), q8nn_status_success);
  assert_int_equal(q8nn_run_operators(4, ops, NULL), q8nn_status_success);
  memcpy(out_ref, out, pixels * 8);

  for (size_t p = 0; p < TEST_NUM_HOST_POOLS; p++) {
    for (int round = 0; round < 3; round++) {
      memset(out, 0x33, pixels * 8);
      memset(mid, 0x33, pixels * 40);
      assert_int_equal(q8nn_run_operators_on(4, ops, test_host_pool(p)), q8nn_status_success);
      if (memcmp(out, out_ref, pixels * 8) != 0) fail_msg("run_operators_on pool %zu, call %d differs", p, round);
      memset(out, 0x44, pixels * 8);
      for (size_t i = 0; i < 4; i++) assert_int_equal(q8nn_run_operator_on(ops[i], test_host_pool(p)), q8nn_status_success);
      if (memcmp(out, out_ref, pixels * 8) != 0) fail_msg("run_operator_on pool %zu, call %d differs", p, round);
    }
  }
  assert_int_equal(q8nn_run_operators_on(4, ops, NULL), q8nn_status_success);
  assert_memory_equal(out, out_ref, pixels * 8);
  const struct q8nn_threadpool broken = {NULL, test_host_pool(0)->threads_count, NULL};
  assert_int_equal(q8nn_run_operator_on(ops[0], &broken), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operators_on(4, ops, &broken), q8nn_status_invalid_parameter);
  for (size_t i = 0; i < 4; i++) q8nn_delete_operator(ops[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_u8_conv_equals_s8),
      cmocka_unit_test(test_u8_add_equals_s8),
      cmocka_unit_test(test_qnnpack_add),
      cmocka_unit_test(test_resetup_new_pointers),
      cmocka_unit_test(test_requantization_scale),
      cmocka_unit_test(test_host_threads),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
