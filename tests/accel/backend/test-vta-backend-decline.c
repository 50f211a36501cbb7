/* The VTA backend declines what its arithmetic cannot reproduce: q8nn_rounding_fp32 convolutions
   and depthwise convolutions (VTA's requantization derives from TFLite's fixed-point multipliers)
   and Q8NN_FLAG_XNNPACK_ADD adds. For every case of tests/golden/fp32-cases.h (XNNPACK's own
   outputs): q8nn_backend_supports is false, q8nn_operator_set_backend returns
   unsupported_parameter (the documented status) and leaves the operator on the CPU, and the
   operator then runs exactly: XNNPACK's bytes, without and with a threadpool, and the VTA model
   executes no instruction. */
#include "vta-backend-util.h"

#include "golden/fp32-cases.h"

#define DECLINE_NUM_CASES (sizeof(fp32_cases) / sizeof(fp32_cases[0]))
#define DECLINE_GUARD 64 /* bytes after the output that must keep TEST_GUARD_BYTE */

static q8nn_operator_t create(const struct fp32_case* c) {
  q8nn_operator_t op = NULL;
  enum q8nn_status st;
  if (c->op == FP32_CASE_ADD) {
    const struct q8nn_add_quantization q = {c->a_zp, c->a_scale, c->b_zp, c->b_scale, c->out_zp, c->output_scale,
                                           (int8_t) c->out_min, (int8_t) c->out_max, NULL};
    st = q8nn_create_add_nd_s8(&q, Q8NN_FLAG_XNNPACK_ADD, &op);
  } else {
    struct q8nn_conv_quantization q;
    memset(&q, 0, sizeof(q));
    q.input_zero_point = c->in_zp, q.input_scale = c->input_scale, q.kernel_scale = c->kernel_scale;
    q.output_zero_point = c->out_zp, q.output_scale = c->output_scale;
    q.output_min = (int8_t) c->out_min, q.output_max = (int8_t) c->out_max;
    q.rounding = q8nn_rounding_fp32;
    if (c->op == FP32_CASE_DEPTHWISE) {
      const struct q8nn_depthwise_convolution2d_desc d = {c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh,
                                                          c->sw, c->dh, c->dw, c->channels_in, c->dm};
      st = q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, c->kernel, c->bias, 0, &op);
    } else {
      const struct q8nn_convolution2d_desc d = {c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh, c->sw,
                                                c->dh, c->dw, 1, c->channels_in, c->channels_out};
      st = q8nn_create_convolution2d_nhwc_s8(&d, &q, c->kernel, c->bias, 0, &op);
    }
  }
  assert_int_equal(st, q8nn_status_success);
  return op;
}

static enum q8nn_status setup(q8nn_operator_t op, const struct fp32_case* c, int8_t* output) {
  size_t oh = 0, ow = 0;
  switch (c->op) {
    case FP32_CASE_ADD:
      return q8nn_setup_add_nd_s8(op, c->a_rank, c->a_shape, c->b_rank, c->b_shape, c->a, c->b, output);
    case FP32_CASE_DEPTHWISE:
      return q8nn_setup_depthwise_convolution2d_nhwc_s8(op, c->batch, c->in_h, c->in_w, c->input, c->channels_in,
                                                        output, c->channels_out, &oh, &ow);
    default:
      return q8nn_setup_convolution2d_nhwc_s8(op, c->batch, c->in_h, c->in_w, c->input, c->channels_in, output,
                                              c->channels_out, &oh, &ow);
  }
}

static void test_declined_and_exact_on_cpu(void** state) {
  (void) state;
  q8nn_backend_t vta = vta_backend(0, 2, 0, 0, 0);
  int failures = 0;
  for (size_t i = 0; i < DECLINE_NUM_CASES; i++) {
    const struct fp32_case* c = &fp32_cases[i];
    q8nn_operator_t op = create(c);
    if (q8nn_backend_supports(vta, op)) {
      fprintf(stderr, "%s: q8nn_backend_supports(vta) is true\n", c->id);
      failures++;
    }
    const enum q8nn_status st = q8nn_operator_set_backend(op, vta);
    if (st != q8nn_status_unsupported_parameter) {
      fprintf(stderr, "%s: set_backend returned %s, want unsupported_parameter\n", c->id, q8nn_status_string(st));
      failures++;
    }
    assert_int_equal(q8nn_vta_reset_stats(vta), q8nn_status_success);
    int8_t* output = malloc(c->out_size + DECLINE_GUARD);
    for (size_t pool = 0; pool < 3; pool++) { /* NULL, 1 and 2 threads */
      memset(output, TEST_GUARD_BYTE, c->out_size + DECLINE_GUARD);
      assert_int_equal(setup(op, c, output), q8nn_status_success);
      assert_null(q8nn_operator_get_backend(op)); /* placed on the CPU */
      assert_int_equal(q8nn_run_operator(op, test_threadpool(pool)), q8nn_status_success);
      if (memcmp(output, c->expected, c->out_size) != 0) {
        fprintf(stderr, "%s: output differs from XNNPACK's after the declined set_backend (threads %zu)\n", c->id,
                test_threadpool_threads(pool));
        failures++;
      }
      for (size_t g = 0; g < DECLINE_GUARD; g++) {
        if (output[c->out_size + g] != TEST_GUARD_BYTE) {
          fprintf(stderr, "%s: wrote past the output\n", c->id);
          failures++;
          break;
        }
      }
    }
    struct q8nn_vta_stats stats;
    assert_int_equal(q8nn_vta_get_stats(vta, &stats), q8nn_status_success);
    if (stats.instructions != 0 || stats.gemm_counter != 0 || stats.alu_counter != 0) {
      fprintf(stderr, "%s: the VTA model ran %llu instructions\n", c->id, (unsigned long long) stats.instructions);
      failures++;
    }
    free(output);
    q8nn_delete_operator(op);
  }
  q8nn_delete_backend(vta);
  assert_int_equal(failures, 0);
}

/* q8nn_operator_get_backend says where an operator really runs: NULL (the CPU) without a backend,
   before setup, and when the backend's setup failed (a 1x70000 image: the widths do not fit VTA's
   instruction fields, backend_error) until the operator is moved back and set up on the CPU;
   the backend once its setup succeeded. */
static void test_get_backend_is_where_it_runs(void** state) {
  (void) state;
  q8nn_backend_t vta = vta_backend(0, 2, 0, 0, 0);
  int8_t kernel[16 * 16];
  int32_t bias[16] = {0};
  test_fill_s8(kernel, sizeof(kernel));
  const float kernel_scale = 0.01f;
  const struct q8nn_conv_quantization q = {.input_scale = 0.05f, .kernel_scale = &kernel_scale, .output_scale = 0.1f,
                                           .output_min = -128, .output_max = 127};
  const struct q8nn_convolution2d_desc d = {.kernel_height = 1, .kernel_width = 1, .stride_height = 1,
                                            .stride_width = 1, .dilation_height = 1, .dilation_width = 1,
                                            .groups = 1, .group_input_channels = 16, .group_output_channels = 16};
  const size_t widths[2] = {8, 70000};
  int8_t* input = calloc(widths[1] * 16, 1);
  int8_t* output = calloc(widths[1] * 16, 1);
  assert_null(q8nn_operator_get_backend(NULL));
  for (int k = 0; k < 2; k++) {
    q8nn_operator_t op = NULL;
    assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, bias, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                     q8nn_status_success);
    assert_null(q8nn_operator_get_backend(op));
    assert_int_equal(q8nn_operator_set_backend(op, vta), q8nn_status_success);
    assert_null(q8nn_operator_get_backend(op)); /* not set up yet */
    const enum q8nn_status st = q8nn_setup_convolution2d_nhwc_s8(op, 1, 1, widths[k], input, 16, output, 16, NULL, NULL);
    if (k == 0) {
      assert_int_equal(st, q8nn_status_success);
      assert_ptr_equal(q8nn_operator_get_backend(op), vta);
    } else {
      assert_int_not_equal(st, q8nn_status_success);
      assert_null(q8nn_operator_get_backend(op));
      assert_int_equal(q8nn_operator_set_backend(op, NULL), q8nn_status_success);
      assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 1, widths[k], input, 16, output, 16, NULL, NULL),
                       q8nn_status_success);
      assert_null(q8nn_operator_get_backend(op));
    }
    assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
    q8nn_delete_operator(op);
  }
  free(input);
  free(output);
  q8nn_delete_backend(vta);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_declined_and_exact_on_cpu),
      cmocka_unit_test(test_get_backend_is_where_it_runs),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
