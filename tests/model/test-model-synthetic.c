/*
 * Small models written here (tests/testers/tflite-writer) for what the shared models do not have:
 * per-channel FULLY_CONNECTED over sweeps against tests/reference (TFLite Micro's
 * FullyConnectedPerChannel), per tensor too, on every ISA mask and 1/2 threads; the refusals of
 * filters that do not map; chains of MUL/SUB by constants fused into one lookup, against the
 * reference op by op, and not fused where an intermediate is read elsewhere; the placement the
 * model reports with a VTA backend is where each operator really runs (VTA cycles move exactly
 * for the operators placed there), also when VTA's setup fails and the operator falls back.
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

#include <q8nn-model.h>
#include <q8nn.h>

#include "reference/reference-model.h"
#include "reference/reference.h"
#include "reference/reference-resize.h"
#include "reference/reference-unary.h"
#include "testers/test-util.h"
#include "testers/tflite-writer.h"

enum { OP_CONV_2D = 3, OP_FULLY_CONNECTED = 9, OP_MUL = 18, OP_SUB = 41 };
enum { OPT_CONV_2D = 1, OPT_FULLY_CONNECTED = 8, OPT_MUL = 21, OPT_SUB = 28 };
enum {
  OP_LOGISTIC = 14, OP_RELU = 19, OP_RELU_N1_TO_1 = 20, OP_RELU6 = 21, OP_TANH = 28, OP_LEAKY_RELU = 98, OP_ELU = 111,
  OP_HARD_SWISH = 117,
};
enum { OPT_LEAKY_RELU = 75 };
enum { OP_AVERAGE_POOL_2D = 1, OP_MAX_POOL_2D = 17, OPT_POOL_2D = 5 };
enum { OP_CONCATENATION = 2, OPT_CONCATENATION = 10 };
enum { OP_TRANSPOSE_CONV = 67, OPT_TRANSPOSE_CONV = 49 };
enum { OP_RESIZE_BILINEAR = 23, OP_RESIZE_NEAREST_NEIGHBOR = 97, OPT_RESIZE_BILINEAR = 15,
       OPT_RESIZE_NEAREST_NEIGHBOR = 74 };

static struct tflw_tensor int8_tensor(size_t num_dims, const int32_t* dims, const float* scale, const int64_t* zp) {
  struct tflw_tensor t;
  memset(&t, 0, sizeof(t));
  t.type = TFLW_INT8;
  t.num_dims = num_dims;
  for (size_t i = 0; i < num_dims; i++) t.dims[i] = dims[i];
  t.num_scales = 1;
  t.scales = scale;
  t.zero_points = zp;
  return t;
}

/* Loads (expecting success), runs on input with every ISA mask and 1/2 threads; all runs must give
   the same bytes, returned in output. */
static void run_everywhere(const uint8_t* file, size_t size, const int8_t* input, size_t input_bytes, int8_t* output,
                           size_t output_bytes) {
  uint32_t masks[8];
  const size_t num_masks = test_isa_masks(masks, 8);
  int8_t* first = (int8_t*) malloc(output_bytes);
  for (size_t mi = 0; mi < num_masks; mi++) {
    assert_int_equal(q8nn_set_isa_mask(masks[mi]), q8nn_status_success);
    for (size_t p = 0; p < 3; p += 2) {
      q8nn_model_t m = NULL;
      char error[256];
      const enum q8nn_status s = q8nn_model_load_memory(file, size, NULL, &m, error, sizeof(error));
      if (s != q8nn_status_success) fail_msg("load: %s (%s)", error, q8nn_status_string(s));
      struct q8nn_model_tensor_info info;
      assert_int_equal(q8nn_model_input_info(m, 0, &info), q8nn_status_success);
      assert_int_equal(info.num_bytes, input_bytes);
      memcpy(q8nn_model_input_data(m, 0), input, input_bytes);
      assert_int_equal(q8nn_model_run(m, test_threadpool(p)), q8nn_status_success);
      assert_int_equal(q8nn_model_output_info(m, 0, &info), q8nn_status_success);
      assert_int_equal(info.num_bytes, output_bytes);
      if (mi == 0 && p == 0) memcpy(first, q8nn_model_output_data(m, 0), output_bytes);
      else if (memcmp(first, q8nn_model_output_data(m, 0), output_bytes) != 0) {
        fail_msg("%s, %zu threads differs from scalar, caller thread", test_isa_name(masks[mi]),
                 test_threadpool_threads(p));
      }
      q8nn_model_delete(m);
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  memcpy(output, first, output_bytes);
  free(first);
}

struct fc_case {
  int32_t rows, depth, units;
  size_t num_scales;
  float in_scale, out_scale, filter_scales[24];
  int64_t in_zp, out_zp, filter_zps[24];
  int32_t quantized_dimension;
  int activation, has_bias;
  int8_t filter[24 * 48];
  int32_t bias[24];
};

static uint8_t* fc_model(const struct fc_case* c, size_t* size) {
  const int32_t in_dims[2] = {c->rows, c->depth}, filter_dims[2] = {c->units, c->depth};
  const int32_t bias_dims[1] = {c->units}, out_dims[2] = {c->rows, c->units};
  struct tflw_tensor t[4];
  t[0] = int8_tensor(2, in_dims, &c->in_scale, &c->in_zp);
  t[1] = int8_tensor(2, filter_dims, c->filter_scales, c->filter_zps);
  t[1].num_scales = c->num_scales;
  t[1].quantized_dimension = c->quantized_dimension;
  t[1].data = c->filter;
  t[1].data_bytes = (size_t) (c->units * c->depth);
  memset(&t[2], 0, sizeof(t[2]));
  t[2].type = TFLW_INT32;
  t[2].num_dims = 1;
  t[2].dims[0] = bias_dims[0];
  t[2].data = c->bias;
  t[2].data_bytes = (size_t) c->units * sizeof(int32_t);
  t[3] = int8_tensor(2, out_dims, &c->out_scale, &c->out_zp);
  struct tflw_op op;
  memset(&op, 0, sizeof(op));
  op.builtin = OP_FULLY_CONNECTED;
  op.num_inputs = 3;
  op.inputs[0] = 0;
  op.inputs[1] = 1;
  op.inputs[2] = c->has_bias ? 2 : -1;
  op.output = 3;
  op.options_type = OPT_FULLY_CONNECTED;
  op.num_options = 1;
  op.options[0] = (struct tflw_field){0, 1, c->activation};
  const int32_t inputs[1] = {0}, outputs[1] = {3};
  uint8_t* file = tflw_write(t, 4, &op, 1, inputs, 1, outputs, 1, size);
  assert_non_null(file);
  return file;
}

static void random_fc_case(struct fc_case* c, int per_channel) {
  memset(c, 0, sizeof(*c));
  c->rows = 1 + (int32_t) (test_rand() % 4);
  c->depth = 1 + (int32_t) (test_rand() % 48);
  c->units = 1 + (int32_t) (test_rand() % 24);
  c->num_scales = per_channel ? (size_t) c->units : 1;
  c->in_scale = expf(test_rand_float(-6.0f, -2.0f));
  for (size_t i = 0; i < c->num_scales; i++) c->filter_scales[i] = expf(test_rand_float(-9.0f, -4.0f));
  c->out_scale = c->in_scale * c->filter_scales[0] * sqrtf((float) c->depth) * expf(test_rand_float(0.0f, 4.0f));
  c->in_zp = test_rand_range(-128, 127);
  c->out_zp = test_rand_range(-128, 127);
  c->activation = (int) (test_rand() % 4);
  c->has_bias = test_rand() % 4 != 0;
  test_fill_s8(c->filter, (size_t) (c->units * c->depth));
  test_fill_s32_range(c->bias, (size_t) c->units, -5000, 5000);
}

/* Per-channel (and per-tensor) FULLY_CONNECTED through the q8nn convolution equals TFLite Micro's
   reference on random shapes, scales, zero points, activations and biases. */
static void test_fully_connected_against_reference(void** state) {
  (void) state;
  size_t checked[2] = {0, 0};
  for (int t = 0; t < 160; t++) {
    const int per_channel = t % 4 != 0;
    struct fc_case c;
    random_fc_case(&c, per_channel);
    int8_t input[4 * 48], output[4 * 24], expected[4 * 24];
    test_fill_s8(input, (size_t) (c.rows * c.depth));
    int32_t lo, hi;
    ref_activation_range_s8(c.activation, c.out_scale, (int32_t) c.out_zp, &lo, &hi);
    if (lo > hi || !ref_fully_connected_s8((size_t) c.rows, (size_t) c.depth, (size_t) c.units, input, c.in_scale,
                                           (int32_t) c.in_zp, c.filter, c.num_scales, c.filter_scales,
                                           c.has_bias ? c.bias : NULL, c.out_scale, (int32_t) c.out_zp, lo, hi,
                                           expected)) {
      continue;
    }
    size_t size;
    uint8_t* file = fc_model(&c, &size);
    const size_t n = (size_t) (c.rows * c.units);
    run_everywhere(file, size, input, (size_t) (c.rows * c.depth), output, n);
    const size_t bad = test_first_mismatch(output, expected, n);
    if (bad != SIZE_MAX) {
      fail_msg("case %d (%s, %dx%d -> %d units, act %d): [%zu] %d, reference %d", t,
               per_channel ? "per channel" : "per tensor", c.rows, c.depth, c.units, c.activation, bad, output[bad],
               expected[bad]);
    }
    checked[per_channel]++;
    free(file);
  }
  print_message("FULLY_CONNECTED equal to the reference: %zu per-channel, %zu per-tensor cases\n", checked[1],
                checked[0]);
  assert_true(checked[1] > 60 && checked[0] > 20);
}

/* Filters that do not map onto the q8nn convolution are load errors naming the operator. */
static void test_fully_connected_refusals(void** state) {
  (void) state;
  struct fc_case c;
  random_fc_case(&c, 1);
  c.units = 6;
  c.depth = 5;
  c.num_scales = 3; /* neither one scale nor one per unit */
  for (int k = 0; k < 3; k++) {
    if (k == 1) {
      c.num_scales = 5; /* one per input value: quantized dimension 1 */
      c.quantized_dimension = 1;
    } else if (k == 2) {
      c.num_scales = 6; /* per channel with a zero point */
      c.quantized_dimension = 0;
      c.filter_zps[2] = 3;
    }
    for (size_t i = 0; i < c.num_scales; i++) c.filter_scales[i] = 0.01f;
    size_t size;
    uint8_t* file = fc_model(&c, &size);
    q8nn_model_t m = (q8nn_model_t) (uintptr_t) 0x5EED;
    char error[256] = "";
    assert_int_equal(q8nn_model_load_memory(file, size, NULL, &m, error, sizeof(error)),
                     q8nn_status_unsupported_parameter);
    assert_ptr_equal(m, (q8nn_model_t) (uintptr_t) 0x5EED);
    assert_non_null(strstr(error, "operator 0 (FULLY_CONNECTED)"));
    free(file);
  }
  /* A filter scale that is not positive (found by fuzz-model-loader: the refusal's message read the
     scale after freeing the table): unsupported_parameter, naming the scale. */
  random_fc_case(&c, 1);
  c.num_scales = (size_t) c.units;
  c.quantized_dimension = 0;
  for (size_t i = 0; i < c.num_scales; i++) c.filter_scales[i] = 0.01f, c.filter_zps[i] = 0;
  c.filter_scales[c.num_scales - 1] = -0.5f;
  size_t size;
  uint8_t* file = fc_model(&c, &size);
  q8nn_model_t m = (q8nn_model_t) (uintptr_t) 0x5EED;
  char error[256] = "";
  assert_int_equal(q8nn_model_load_memory(file, size, NULL, &m, error, sizeof(error)), q8nn_status_unsupported_parameter);
  assert_ptr_equal(m, (q8nn_model_t) (uintptr_t) 0x5EED);
  assert_non_null(strstr(error, "filter scale"));
  assert_non_null(strstr(error, "-0.5"));
  free(file);
}

/* MUL/SUB by constants in a chain: x * c1 - c2 - c3 (per channel, scalar, per channel) is one lookup
   (fused_into names the operator doing the work) with the reference's bytes; when an intermediate
   is also a graph output nothing is fused into what follows it. */
static void test_fused_lookup_chain(void** state) {
  (void) state;
  size_t checked = 0;
  for (int t = 0; t < 60; t++) {
    const int intermediate_is_output = t % 3 == 2;
    const int32_t dims[3] = {2, 5, 3}, per_channel[1] = {3}, scalar[1] = {1};
    float scale[7];
    int64_t zp[7];
    for (int i = 0; i < 7; i++) {
      scale[i] = expf(test_rand_float(-5.0f, -1.0f));
      zp[i] = test_rand_range(-128, 127);
    }
    int8_t c1[3], c2[1], c3[3];
    test_fill_s8(c1, 3);
    test_fill_s8(c2, 1);
    test_fill_s8(c3, 3);
    struct tflw_tensor ts[7];
    ts[0] = int8_tensor(3, dims, &scale[0], &zp[0]);         /* x */
    ts[1] = int8_tensor(1, per_channel, &scale[1], &zp[1]);  /* c1 */
    ts[2] = int8_tensor(3, dims, &scale[2], &zp[2]);         /* y1 = x * c1 */
    ts[3] = int8_tensor(1, scalar, &scale[3], &zp[3]);       /* c2 */
    ts[4] = int8_tensor(3, dims, &scale[4], &zp[4]);         /* y2 = y1 - c2 */
    ts[5] = int8_tensor(1, per_channel, &scale[5], &zp[5]);  /* c3 */
    ts[6] = int8_tensor(3, dims, &scale[6], &zp[6]);         /* y3 = y2 - c3 */
    ts[1].data = c1;
    ts[1].data_bytes = 3;
    ts[3].data = c2;
    ts[3].data_bytes = 1;
    ts[5].data = c3;
    ts[5].data_bytes = 3;
    struct tflw_op ops[3];
    memset(ops, 0, sizeof(ops));
    const int acts[3] = {(int) (test_rand() % 4), (int) (test_rand() % 4), (int) (test_rand() % 4)};
    for (int k = 0; k < 3; k++) {
      ops[k].builtin = k == 0 ? OP_MUL : OP_SUB;
      ops[k].num_inputs = 2;
      ops[k].inputs[0] = 2 * k;
      ops[k].inputs[1] = 2 * k + 1;
      ops[k].output = 2 * k + 2;
      ops[k].options_type = k == 0 ? OPT_MUL : OPT_SUB;
      ops[k].num_options = 1;
      ops[k].options[0] = (struct tflw_field){0, 1, acts[k]};
    }
    /* the reference, op by op */
    const size_t shape[3] = {2, 5, 3}, one[1] = {3}, single[1] = {1};
    int8_t x[30], y1[30], y2[30], y3[30];
    test_fill_s8(x, 30);
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) ref_activation_range_s8(acts[k], scale[2 * k + 2], (int32_t) zp[2 * k + 2], &lo[k], &hi[k]);
    if (lo[0] > hi[0] || lo[1] > hi[1] || lo[2] > hi[2] ||
        !ref_mul_sub_s8(1, 3, shape, x, scale[0], (int32_t) zp[0], 1, one, c1, scale[1], (int32_t) zp[1], scale[2],
                        (int32_t) zp[2], lo[0], hi[0], y1) ||
        !ref_mul_sub_s8(0, 3, shape, y1, scale[2], (int32_t) zp[2], 1, single, c2, scale[3], (int32_t) zp[3],
                        scale[4], (int32_t) zp[4], lo[1], hi[1], y2) ||
        !ref_mul_sub_s8(0, 3, shape, y2, scale[4], (int32_t) zp[4], 1, one, c3, scale[5], (int32_t) zp[5], scale[6],
                        (int32_t) zp[6], lo[2], hi[2], y3)) {
      continue;
    }
    const int32_t inputs[1] = {0}, outputs[2] = {6, 2};
    size_t size;
    uint8_t* file = tflw_write(ts, 7, ops, 3, inputs, 1, outputs, intermediate_is_output ? 2 : 1, &size);
    assert_non_null(file);
    int8_t out[30];
    run_everywhere(file, size, x, 30, out, 30);
    const size_t bad = test_first_mismatch(out, y3, 30);
    if (bad != SIZE_MAX) fail_msg("case %d: [%zu] %d, reference %d", t, bad, out[bad], y3[bad]);
    q8nn_model_t m = NULL;
    assert_int_equal(q8nn_model_load_memory(file, size, NULL, &m, NULL, 0), q8nn_status_success);
    struct q8nn_model_operator_info info[3];
    for (size_t k = 0; k < 3; k++) assert_int_equal(q8nn_model_get_operator_info(m, k, &info[k]), q8nn_status_success);
    assert_int_equal(info[0].fused_into, intermediate_is_output ? SIZE_MAX : 1);
    assert_int_equal(info[1].fused_into, 2);
    assert_int_equal(info[2].fused_into, SIZE_MAX);
    if (intermediate_is_output) {
      memcpy(q8nn_model_input_data(m, 0), x, 30);
      assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
      assert_memory_equal(q8nn_model_output_data(m, 1), y1, 30);
    }
    q8nn_model_delete(m);
    free(file);
    checked++;
  }
  print_message("%zu MUL/SUB chains equal to the reference\n", checked);
  assert_true(checked > 20);
}

/* MUL of two activations with broadcasting (squeeze-excitation's shape: an image times its own
   global average per channel, either operand order), which runs q8nn's multiply operator: equal to
   the reference on every ISA mask and thread count. */
static void test_activation_mul(void** state) {
  (void) state;
  size_t checked = 0;
  for (int t = 0; t < 24; t++) {
    const int32_t h = 1 + (int32_t) (test_rand() % 9), w = 1 + (int32_t) (test_rand() % 9);
    const int32_t c = 1 + (int32_t) (test_rand() % 70);
    const int activation = (int) (test_rand() % 2), swap = t % 2;
    float scale[2] = {expf(test_rand_float(-4.0f, -1.0f)), expf(test_rand_float(-6.0f, -2.0f))};
    int64_t zp[2] = {test_rand_range(-100, 100), test_rand_range(-100, 100)};
    const int32_t image[4] = {1, h, w, c}, pooled[4] = {1, 1, 1, c};
    struct tflw_tensor tensors[3];
    tensors[0] = int8_tensor(4, image, &scale[0], &zp[0]);  /* x */
    tensors[1] = int8_tensor(4, pooled, &scale[0], &zp[0]); /* mean of x per channel */
    tensors[2] = int8_tensor(4, image, &scale[1], &zp[1]);  /* x * mean (or mean * x) */
    struct tflw_op ops[2];
    memset(ops, 0, sizeof(ops));
    ops[0].builtin = OP_AVERAGE_POOL_2D;
    ops[0].num_inputs = 1;
    ops[0].inputs[0] = 0;
    ops[0].output = 1;
    ops[0].options_type = OPT_POOL_2D;
    ops[0].num_options = 6;
    ops[0].options[0] = (struct tflw_field){0, 1, 1};
    ops[0].options[1] = (struct tflw_field){1, 4, 1};
    ops[0].options[2] = (struct tflw_field){2, 4, 1};
    ops[0].options[3] = (struct tflw_field){3, 4, w};
    ops[0].options[4] = (struct tflw_field){4, 4, h};
    ops[0].options[5] = (struct tflw_field){5, 1, 0};
    ops[1].builtin = OP_MUL;
    ops[1].num_inputs = 2;
    ops[1].inputs[0] = swap ? 1 : 0;
    ops[1].inputs[1] = swap ? 0 : 1;
    ops[1].output = 2;
    ops[1].options_type = OPT_MUL;
    ops[1].num_options = 1;
    ops[1].options[0] = (struct tflw_field){0, 1, activation};
    const size_t n = (size_t) (h * w * c);
    int8_t* x = malloc(n);
    int8_t* mean = malloc((size_t) c);
    int8_t* ref = malloc(n);
    int8_t* out = malloc(n);
    test_fill_s8(x, n);
    ref_pool_s8(1, 1, (size_t) h, (size_t) w, (size_t) c, 1, 1, (size_t) h, (size_t) w, 1, 1, 0, 0, -128, 127, x, mean);
    const size_t image_shape[4] = {1, (size_t) h, (size_t) w, (size_t) c}, pooled_shape[4] = {1, 1, 1, (size_t) c};
    const int32_t lo = activation == 1 && zp[1] > -128 ? (int32_t) zp[1] : -128;
    const int ok = swap ? ref_mul_sub_s8(1, 4, pooled_shape, mean, scale[0], (int32_t) zp[0], 4, image_shape, x,
                                         scale[0], (int32_t) zp[0], scale[1], (int32_t) zp[1], lo, 127, ref)
                        : ref_mul_sub_s8(1, 4, image_shape, x, scale[0], (int32_t) zp[0], 4, pooled_shape, mean,
                                         scale[0], (int32_t) zp[0], scale[1], (int32_t) zp[1], lo, 127, ref);
    if (ok) {
      const int32_t inputs[1] = {0}, outputs[1] = {2};
      size_t size;
      uint8_t* file = tflw_write(tensors, 3, ops, 2, inputs, 1, outputs, 1, &size);
      assert_non_null(file);
      run_everywhere(file, size, x, n, out, n);
      const size_t bad = test_first_mismatch(out, ref, n);
      if (bad != SIZE_MAX) fail_msg("case %d: [%zu] %d, reference %d", t, bad, out[bad], ref[bad]);
      free(file);
      checked++;
    }
    free(x), free(mean), free(ref), free(out);
  }
  print_message("%zu activation MULs equal to the reference\n", checked);
  assert_true(checked > 16);
}

/* With a backend, after every operator: the VTA model's cycle count moved iff the operator's
   placement is "vta". */
struct placement_check {
  q8nn_backend_t vta;
  uint64_t cycles;
  size_t on_vta, on_cpu, q8nn_ops;
};

static void check_placement(void* context, q8nn_model_t m, size_t k) {
  struct placement_check* c = (struct placement_check*) context;
  struct q8nn_vta_stats stats;
  assert_int_equal(q8nn_vta_get_stats(c->vta, &stats), q8nn_status_success);
  struct q8nn_model_operator_info info;
  assert_int_equal(q8nn_model_get_operator_info(m, k, &info), q8nn_status_success);
  const int placed_on_vta = strcmp(info.placement, "vta") == 0;
  if (!placed_on_vta) assert_string_equal(info.placement, "cpu");
  if (placed_on_vta != (stats.cycles != c->cycles)) {
    fail_msg("operator %zu (%s): placement %s but the VTA model ran %llu cycles", k, info.type, info.placement,
             (unsigned long long) (stats.cycles - c->cycles));
  }
  c->cycles = stats.cycles;
  c->on_vta += placed_on_vta;
  const int q8nn_op = strcmp(info.type, "CONV_2D") == 0 || strcmp(info.type, "DEPTHWISE_CONV_2D") == 0 ||
                      strcmp(info.type, "ADD") == 0 || strcmp(info.type, "FULLY_CONNECTED") == 0;
  c->q8nn_ops += q8nn_op;
  c->on_cpu += q8nn_op && !placed_on_vta;
}

/* Loads file with a VTA backend and without; runs both on input and checks every placement
   against the cycles; the outputs must be equal (VTA's default requantization is exact). */
static void run_placement_check(const uint8_t* file, size_t size, const int8_t* input, size_t input_bytes,
                                struct placement_check* c) {
  assert_int_equal(q8nn_create_vta_backend(NULL, &c->vta), q8nn_status_success);
  const struct q8nn_model_options options = {.backend = c->vta};
  q8nn_model_t on_vta = NULL, on_cpu = NULL;
  char error[256];
  if (q8nn_model_load_memory(file, size, &options, &on_vta, error, sizeof(error)) != q8nn_status_success) {
    fail_msg("load with VTA: %s", error);
  }
  assert_int_equal(q8nn_model_load_memory(file, size, NULL, &on_cpu, NULL, 0), q8nn_status_success);
  memcpy(q8nn_model_input_data(on_vta, 0), input, input_bytes);
  memcpy(q8nn_model_input_data(on_cpu, 0), input, input_bytes);
  assert_int_equal(q8nn_model_set_debug_callback(on_vta, check_placement, c), q8nn_status_success);
  assert_int_equal(q8nn_model_run(on_vta, NULL), q8nn_status_success);
  assert_int_equal(q8nn_model_run(on_cpu, NULL), q8nn_status_success);
  struct q8nn_model_tensor_info out;
  assert_int_equal(q8nn_model_output_info(on_cpu, 0, &out), q8nn_status_success);
  assert_memory_equal(q8nn_model_output_data(on_vta, 0), q8nn_model_output_data(on_cpu, 0), out.num_bytes);
  q8nn_model_delete(on_vta);
  q8nn_model_delete(on_cpu);
  q8nn_delete_backend(c->vta);
}

static struct tflw_op conv_op(int32_t input, int32_t filter, int32_t bias, int32_t output, int padding, int32_t stride_w) {
  struct tflw_op op;
  memset(&op, 0, sizeof(op));
  op.builtin = OP_CONV_2D;
  op.num_inputs = 3;
  op.inputs[0] = input;
  op.inputs[1] = filter;
  op.inputs[2] = bias;
  op.output = output;
  op.options_type = OPT_CONV_2D;
  op.num_options = 3;
  op.options[0] = (struct tflw_field){0, 1, padding};
  op.options[1] = (struct tflw_field){1, 4, stride_w};
  op.options[2] = (struct tflw_field){2, 4, 1};
  return op;
}

/* A 1x70000 image: VTA supports the 1x1 convolution's parameters but its setup fails (the widths
   do not fit its instruction fields), so the model sets it up on the CPU and says "cpu"; the 3x3
   convolution on the 1x70 image after it runs on VTA and says "vta". Before, the load failed. */
static void test_backend_placement_is_where_it_runs(void** state) {
  (void) state;
  const int32_t wide[4] = {1, 1, 70000, 16}, narrow[4] = {1, 1, 70, 16}, f1[4] = {16, 1, 1, 16}, f3[4] = {16, 3, 3, 16};
  const int32_t bias_dims[1] = {16};
  float act_scale[4] = {0.05f, 0.08f, 0.1f, 0.2f}, filter_scales[16];
  int64_t act_zp[4] = {-3, 5, -7, 2}, filter_zps[16] = {0};
  for (int i = 0; i < 16; i++) filter_scales[i] = 0.004f + 0.0005f * (float) i;
  static int8_t filter1[16 * 16], filter3[16 * 9 * 16];
  int32_t bias[16];
  test_fill_s8(filter1, sizeof(filter1));
  test_fill_s8(filter3, sizeof(filter3));
  test_fill_s32_range(bias, 16, -300, 300);
  struct tflw_tensor t[9];
  t[0] = int8_tensor(4, wide, &act_scale[0], &act_zp[0]);   /* x */
  t[1] = int8_tensor(4, f1, filter_scales, filter_zps);      /* 1x1 filter */
  t[1].num_scales = 16;
  t[1].data = filter1;
  t[1].data_bytes = sizeof(filter1);
  memset(&t[2], 0, sizeof(t[2]));                            /* bias */
  t[2].type = TFLW_INT32;
  t[2].num_dims = 1;
  t[2].dims[0] = bias_dims[0];
  t[2].data = bias;
  t[2].data_bytes = sizeof(bias);
  t[3] = int8_tensor(4, wide, &act_scale[1], &act_zp[1]);   /* y1: 1x1 on the wide image */
  t[4] = int8_tensor(4, narrow, &act_scale[2], &act_zp[2]); /* y2: 1x1, stride 1000 */
  t[5] = t[1];                                               /* 3x3 filter */
  t[5].num_dims = 4;
  memcpy(t[5].dims, f3, sizeof(f3));
  t[5].data = filter3;
  t[5].data_bytes = sizeof(filter3);
  t[6] = int8_tensor(4, narrow, &act_scale[3], &act_zp[3]); /* y3: 3x3 SAME */
  const struct tflw_op ops[3] = {conv_op(0, 1, 2, 3, 1, 1), conv_op(3, 1, 2, 4, 1, 1000), conv_op(4, 5, 2, 6, 0, 1)};
  const int32_t inputs[1] = {0}, outputs[1] = {6};
  size_t size;
  uint8_t* file = tflw_write(t, 7, ops, 3, inputs, 1, outputs, 1, &size);
  assert_non_null(file);
  int8_t* x = malloc(70000 * 16);
  test_fill_s8(x, 70000 * 16);
  struct placement_check c;
  memset(&c, 0, sizeof(c));
  run_placement_check(file, size, x, 70000 * 16, &c);
  print_message("synthetic: %zu of %zu convolutions on VTA\n", c.on_vta, c.q8nn_ops);
  assert_true(c.on_vta >= 1 && c.on_cpu >= 1);
  free(x);
  free(file);
  /* person_detect: 28 of its 31 operators on VTA, each where its placement says */
  const char* dir = getenv("Q8NN_MODELS_DIR");
  if (dir == NULL || dir[0] == '\0') return;
  size_t input_size;
  uint8_t* model = (uint8_t*) test_read_file(dir, "tflm_person_detection/person_detect.tflite", &size);
  int8_t* input = (int8_t*) test_read_file(dir, "tflm_person_detection/person_input_int8.bin", &input_size);
  assert_non_null(model);
  assert_non_null(input);
  memset(&c, 0, sizeof(c));
  run_placement_check(model, size, input, input_size, &c);
  assert_int_equal(c.on_vta, 28);
  free(model);
  free(input);
}


/* TFLite's CalculateActivationRangeQuantized for RELU (lo only), RELU6 and RELU_N1_TO_1. */
static void relu_range(int32_t builtin, float scale, int32_t zp, int32_t* lo, int32_t* hi) {
  *lo = -128;
  *hi = 127;
  if (builtin == OP_RELU_N1_TO_1) {
    *lo = zp + (int32_t) roundf(-1.0f / scale);
    *hi = zp + (int32_t) roundf(1.0f / scale);
  } else {
    *lo = zp + (int32_t) roundf(0.0f / scale);
    if (builtin == OP_RELU6) *hi = zp + (int32_t) roundf(6.0f / scale);
  }
  *lo = *lo < -128 ? -128 : *lo;
  *hi = *hi > 127 ? 127 : *hi;
}

/* Each table-lookup builtin as a one-operator model over all 256 input bytes, then two of them
   chained (one q8nn_run_operators list with two threads): every byte as the reference computes
   TFLite's kernel. */
static void test_unary_builtins(void** state) {
  (void) state;
  static const int32_t builtins[] = {OP_RELU, OP_RELU6, OP_RELU_N1_TO_1, OP_LOGISTIC, OP_TANH,
                                     OP_HARD_SWISH, OP_LEAKY_RELU, OP_ELU};
  static const int ref_ops[] = {REF_UNARY_CLAMP, REF_UNARY_CLAMP, REF_UNARY_CLAMP, REF_UNARY_SIGMOID, REF_UNARY_TANH,
                                REF_UNARY_HARDSWISH, REF_UNARY_LEAKY_RELU, REF_UNARY_ELU};
  int8_t input[256], output[256];
  for (int i = 0; i < 256; i++) input[i] = (int8_t) (i - 128);
  for (size_t b = 0; b < sizeof(builtins) / sizeof(builtins[0]); b++) {
    for (int trial = 0; trial < 3; trial++) {
      const int32_t dims[4] = {1, 4, 4, 16};
      float in_scale = expf(test_rand_float(-5.0f, -1.0f)), out_scale = expf(test_rand_float(-5.0f, -1.0f));
      int64_t in_zp = test_rand_range(-128, 127), out_zp = test_rand_range(-128, 127);
      if (builtins[b] == OP_LOGISTIC) out_scale = 1.0f / 256.0f, out_zp = -128;
      if (builtins[b] == OP_TANH) out_scale = 1.0f / 128.0f, out_zp = 0;
      const float alpha = test_rand_float(0.05f, 0.5f);
      struct tflw_tensor t[3];
      t[0] = int8_tensor(4, dims, &in_scale, &in_zp);
      t[1] = int8_tensor(4, dims, &out_scale, &out_zp);
      struct tflw_op ops[2];
      memset(ops, 0, sizeof(ops));
      ops[0].builtin = builtins[b];
      ops[0].num_inputs = 1;
      ops[0].inputs[0] = 0;
      ops[0].output = 1;
      if (builtins[b] == OP_LEAKY_RELU) {
        int32_t bits;
        memcpy(&bits, &alpha, sizeof(bits));
        ops[0].options_type = OPT_LEAKY_RELU;
        ops[0].num_options = 1;
        ops[0].options[0] = (struct tflw_field){0, 4, bits};
      }
      /* the second trial chains a RELU6 of the same quantization after the op */
      const int chained = trial == 1;
      float out2_scale = out_scale;
      int64_t out2_zp = out_zp;
      t[2] = int8_tensor(4, dims, &out2_scale, &out2_zp);
      ops[1].builtin = OP_RELU6;
      ops[1].num_inputs = 1;
      ops[1].inputs[0] = 1;
      ops[1].output = 2;
      const int32_t inputs[1] = {0}, outputs[1] = {chained ? 2 : 1};
      size_t size;
      uint8_t* file = tflw_write(t, chained ? 3 : 2, ops, chained ? 2 : 1, inputs, 1, outputs, 1, &size);
      assert_non_null(file);
      run_everywhere(file, size, input, sizeof(input), output, sizeof(output));
      struct ref_unary_params p = {.op = ref_ops[b], .rounding = 0, .input_scale = in_scale,
                                   .input_zero_point = (int32_t) in_zp, .output_scale = out_scale,
                                   .output_zero_point = (int32_t) out_zp, .output_min = -128, .output_max = 127,
                                   .alpha = builtins[b] == OP_LEAKY_RELU ? alpha : 1.0f};
      if (ref_ops[b] == REF_UNARY_CLAMP) relu_range(builtins[b], out_scale, (int32_t) out_zp, &p.output_min, &p.output_max);
      struct ref_unary_params relu6 = {.op = REF_UNARY_CLAMP, .rounding = 0, .input_scale = out_scale,
                                       .input_zero_point = (int32_t) out_zp, .output_scale = out2_scale,
                                       .output_zero_point = (int32_t) out2_zp};
      relu_range(OP_RELU6, out2_scale, (int32_t) out2_zp, &relu6.output_min, &relu6.output_max);
      for (int i = 0; i < 256; i++) {
        int8_t want;
        assert_true(ref_unary_s8(&p, input[i], &want));
        if (chained) assert_true(ref_unary_s8(&relu6, want, &want));
        if (output[i] != want) {
          fail_msg("builtin %d trial %d: input %d gives %d, reference %d", (int) builtins[b], trial, input[i], output[i],
                   want);
        }
      }
      free(file);
    }
  }
}

/* AVERAGE_POOL_2D and MAX_POOL_2D with SAME and VALID padding, strides, filters and fused
   activations, loaded from a file: the loader's padding and q8nn's pooling operators against
   TFLite's reference pooling. */
static void test_pool_builtins(void** state) {
  (void) state;
  for (int t = 0; t < 40; t++) {
    const int avg = t % 2, same = (t / 2) % 2;
    const int32_t h = 1 + (int32_t) (test_rand() % 11), w = 1 + (int32_t) (test_rand() % 11);
    const int32_t c = 1 + (int32_t) (test_rand() % 40);
    const int32_t fh = 1 + (int32_t) (test_rand() % (uint32_t) h), fw = 1 + (int32_t) (test_rand() % (uint32_t) w);
    const int32_t sh = 1 + (int32_t) (test_rand() % 3), sw = 1 + (int32_t) (test_rand() % 3);
    const int activation = (int) (test_rand() % 4);
    int32_t oh, ow, pt = 0, pl = 0;
    if (same) {
      oh = (h + sh - 1) / sh;
      ow = (w + sw - 1) / sw;
      const int32_t th = (oh - 1) * sh + fh - h, tw = (ow - 1) * sw + fw - w;
      pt = th > 0 ? th / 2 : 0;
      pl = tw > 0 ? tw / 2 : 0;
    } else {
      oh = (h - fh) / sh + 1;
      ow = (w - fw) / sw + 1;
    }
    float scale = expf(test_rand_float(-4.0f, 0.0f));
    int64_t zp = test_rand_range(-100, 100);
    const int32_t in_dims[4] = {1, h, w, c}, out_dims[4] = {1, oh, ow, c};
    struct tflw_tensor tensors[2];
    tensors[0] = int8_tensor(4, in_dims, &scale, &zp);
    tensors[1] = int8_tensor(4, out_dims, &scale, &zp);
    struct tflw_op op;
    memset(&op, 0, sizeof(op));
    op.builtin = avg ? OP_AVERAGE_POOL_2D : OP_MAX_POOL_2D;
    op.num_inputs = 1;
    op.inputs[0] = 0;
    op.output = 1;
    op.options_type = OPT_POOL_2D;
    op.num_options = 6;
    op.options[0] = (struct tflw_field){0, 1, same ? 0 : 1};
    op.options[1] = (struct tflw_field){1, 4, sw};
    op.options[2] = (struct tflw_field){2, 4, sh};
    op.options[3] = (struct tflw_field){3, 4, fw};
    op.options[4] = (struct tflw_field){4, 4, fh};
    op.options[5] = (struct tflw_field){5, 1, activation};
    const int32_t inputs[1] = {0}, outputs[1] = {1};
    size_t size;
    uint8_t* file = tflw_write(tensors, 2, &op, 1, inputs, 1, outputs, 1, &size);
    assert_non_null(file);
    const size_t n_in = (size_t) (h * w * c), n_out = (size_t) (oh * ow * c);
    int8_t* input = malloc(n_in);
    int8_t* output = malloc(n_out);
    int8_t* ref = malloc(n_out);
    test_fill_s8(input, n_in);
    run_everywhere(file, size, input, n_in, output, n_out);
    /* CalculateActivationRangeQuantized */
    int32_t lo = -128, hi = 127;
    if (activation == 1 || activation == 3) lo = (int32_t) zp > lo ? (int32_t) zp : lo;
    if (activation == 3) {
      const int32_t q6 = (int32_t) zp + (int32_t) roundf(6.0f / scale);
      hi = q6 < hi ? q6 : hi;
    }
    if (activation == 2) {
      const int32_t qm = (int32_t) zp + (int32_t) roundf(-1.0f / scale), qp = (int32_t) zp + (int32_t) roundf(1.0f / scale);
      lo = qm > lo ? qm : lo;
      hi = qp < hi ? qp : hi;
    }
    ref_pool_s8(avg, 1, (size_t) h, (size_t) w, (size_t) c, (size_t) oh, (size_t) ow, (size_t) fh, (size_t) fw,
                (size_t) sh, (size_t) sw, (size_t) pt, (size_t) pl, lo, hi, input, ref);
    const size_t bad = test_first_mismatch(output, ref, n_out);
    if (bad != SIZE_MAX) {
      fail_msg("%s pool %dx%dx%d filter %dx%d stride %dx%d %s act %d: [%zu] %d, reference %d", avg ? "average" : "max",
               h, w, c, fh, fw, sh, sw, same ? "SAME" : "VALID", activation, bad, output[bad], ref[bad]);
    }
    free(input), free(output), free(ref), free(file);
  }
}

/* RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR (both options) followed by a CONCATENATION of the
   resized tensor with a second input along the channels, loaded from a file: TFLite's reference
   resize, then the bytes side by side. */
static void test_resize_concat_builtins(void** state) {
  (void) state;
  for (int t = 0; t < 24; t++) {
    const int bilinear = t % 2, align = (t / 2) % 3 == 1, half = (t / 2) % 3 == 2;
    const int32_t h = 1 + (int32_t) (test_rand() % 7), w = 1 + (int32_t) (test_rand() % 7);
    const int32_t c = 1 + (int32_t) (test_rand() % 20), c2 = 1 + (int32_t) (test_rand() % 9);
    const int32_t oh = 1 + (int32_t) (test_rand() % 12), ow = 1 + (int32_t) (test_rand() % 12);
    float scale = 0.05f;
    int64_t zp = 3;
    const int32_t in_dims[4] = {1, h, w, c}, out_dims[4] = {1, oh, ow, c}, in2_dims[4] = {1, oh, ow, c2};
    const int32_t cat_dims[4] = {1, oh, ow, c + c2}, size_dims[1] = {2};
    const int32_t size_data[2] = {oh, ow};
    struct tflw_tensor tensors[5];
    tensors[0] = int8_tensor(4, in_dims, &scale, &zp);
    memset(&tensors[1], 0, sizeof(tensors[1]));
    tensors[1].type = TFLW_INT32;
    tensors[1].num_dims = 1;
    tensors[1].dims[0] = size_dims[0];
    tensors[1].data = size_data;
    tensors[1].data_bytes = sizeof(size_data);
    tensors[2] = int8_tensor(4, out_dims, &scale, &zp);
    tensors[3] = int8_tensor(4, in2_dims, &scale, &zp);
    tensors[4] = int8_tensor(4, cat_dims, &scale, &zp);
    const size_t n_in2 = (size_t) (oh * ow * c2);
    int8_t* second = malloc(n_in2);
    test_fill_s8(second, n_in2);
    tensors[3].data = second; /* a constant second input */
    tensors[3].data_bytes = n_in2;
    struct tflw_op ops[2];
    memset(ops, 0, sizeof(ops));
    ops[0].builtin = bilinear ? OP_RESIZE_BILINEAR : OP_RESIZE_NEAREST_NEIGHBOR;
    ops[0].num_inputs = 2;
    ops[0].inputs[0] = 0;
    ops[0].inputs[1] = 1;
    ops[0].output = 2;
    ops[0].options_type = bilinear ? OPT_RESIZE_BILINEAR : OPT_RESIZE_NEAREST_NEIGHBOR;
    ops[0].num_options = 2;
    ops[0].options[0] = (struct tflw_field){bilinear ? 2u : 0u, 1, align};
    ops[0].options[1] = (struct tflw_field){bilinear ? 3u : 1u, 1, half};
    ops[1].builtin = OP_CONCATENATION;
    ops[1].num_inputs = 2;
    ops[1].inputs[0] = 2;
    ops[1].inputs[1] = 3;
    ops[1].output = 4;
    ops[1].options_type = OPT_CONCATENATION;
    ops[1].num_options = 1;
    ops[1].options[0] = (struct tflw_field){0, 4, 3};
    const int32_t inputs[1] = {0}, outputs[1] = {4};
    size_t size;
    uint8_t* file = tflw_write(tensors, 5, ops, 2, inputs, 1, outputs, 1, &size);
    assert_non_null(file);
    const size_t n_in = (size_t) (h * w * c), n_out = (size_t) (oh * ow * (c + c2));
    int8_t* input = malloc(n_in);
    int8_t* output = malloc(n_out);
    int8_t* resized = malloc((size_t) (oh * ow * c));
    test_fill_s8(input, n_in);
    run_everywhere(file, size, input, n_in, output, n_out);
    ref_resize_s8(bilinear, align, half, 1, (size_t) h, (size_t) w, (size_t) c, (size_t) oh, (size_t) ow, input, resized);
    for (int32_t p = 0; p < oh * ow; p++) {
      for (int32_t k = 0; k < c + c2; k++) {
        const int8_t want = k < c ? resized[p * c + k] : second[p * c2 + k - c];
        if (output[p * (c + c2) + k] != want) {
          fail_msg("%s %dx%dx%d -> %dx%d align %d half %d: pixel %d channel %d is %d, want %d",
                   bilinear ? "bilinear" : "nearest", h, w, c, oh, ow, align, half, p, k, output[p * (c + c2) + k],
                   want);
        }
      }
    }
    free(input), free(output), free(resized), free(second), free(file);
  }
}

/* TRANSPOSE_CONV with SAME and VALID padding, strides 1 to 3, per-channel scales, with and without
   bias, loaded from a file: against the reference's scatter form with TFLite's padding (the
   convolution from the output back to the input). */
static void test_transpose_conv_builtin(void** state) {
  (void) state;
  for (int t = 0; t < 30; t++) {
    const int same = t % 2, has_bias = (t / 2) % 2;
    const int32_t h = 1 + (int32_t) (test_rand() % 6), w = 1 + (int32_t) (test_rand() % 6);
    const int32_t c = 1 + (int32_t) (test_rand() % 12), oc = 1 + (int32_t) (test_rand() % 12);
    const int32_t kh = 1 + (int32_t) (test_rand() % 4), kw = 1 + (int32_t) (test_rand() % 4);
    const int32_t sh = 1 + (int32_t) (test_rand() % 3), sw = 1 + (int32_t) (test_rand() % 3);
    const int32_t oh = same ? h * sh : (h - 1) * sh + kh, ow = same ? w * sw : (w - 1) * sw + kw;
    /* TFLite's padding: a convolution of the oh x ow output with this kernel and stride */
    int32_t pt = 0, pl = 0;
    if (same) {
      const int32_t th = ((oh + sh - 1) / sh - 1) * sh + kh - oh, tw = ((ow + sw - 1) / sw - 1) * sw + kw - ow;
      pt = th > 0 ? th / 2 : 0;
      pl = tw > 0 ? tw / 2 : 0;
    }
    float in_scale = 0.05f, out_scale = 0.1f * sqrtf((float) (kh * kw * c)), filter_scales[12];
    int64_t in_zp = test_rand_range(-20, 20), out_zp = test_rand_range(-20, 20), filter_zps[12] = {0};
    for (int32_t i = 0; i < oc; i++) filter_scales[i] = test_rand_float(0.005f, 0.03f);
    const int32_t shape_dims[1] = {4}, shape_data[4] = {1, oh, ow, oc};
    const int32_t filter_dims[4] = {oc, kh, kw, c}, in_dims[4] = {1, h, w, c}, out_dims[4] = {1, oh, ow, oc};
    const int32_t bias_dims[1] = {oc};
    int8_t filter[12 * 4 * 4 * 12];
    int32_t bias[12];
    test_fill_s8(filter, (size_t) (oc * kh * kw * c));
    test_fill_s32_range(bias, (size_t) oc, -3000, 3000);
    struct tflw_tensor tensors[5];
    memset(tensors, 0, sizeof(tensors));
    tensors[0].type = TFLW_INT32;
    tensors[0].num_dims = 1;
    tensors[0].dims[0] = shape_dims[0];
    tensors[0].data = shape_data;
    tensors[0].data_bytes = sizeof(shape_data);
    tensors[1] = int8_tensor(4, filter_dims, filter_scales, filter_zps);
    tensors[1].num_scales = (size_t) oc;
    tensors[1].data = filter;
    tensors[1].data_bytes = (size_t) (oc * kh * kw * c);
    tensors[2] = int8_tensor(4, in_dims, &in_scale, &in_zp);
    tensors[3].type = TFLW_INT32;
    tensors[3].num_dims = 1;
    tensors[3].dims[0] = bias_dims[0];
    tensors[3].data = bias;
    tensors[3].data_bytes = (size_t) oc * sizeof(int32_t);
    tensors[4] = int8_tensor(4, out_dims, &out_scale, &out_zp);
    struct tflw_op op;
    memset(&op, 0, sizeof(op));
    op.builtin = OP_TRANSPOSE_CONV;
    op.num_inputs = has_bias ? 4 : 3;
    op.inputs[0] = 0;
    op.inputs[1] = 1;
    op.inputs[2] = 2;
    op.inputs[3] = 3;
    op.output = 4;
    op.options_type = OPT_TRANSPOSE_CONV;
    op.num_options = 3;
    op.options[0] = (struct tflw_field){0, 1, same ? 0 : 1};
    op.options[1] = (struct tflw_field){1, 4, sw};
    op.options[2] = (struct tflw_field){2, 4, sh};
    const int32_t inputs[1] = {2}, outputs[1] = {4};
    size_t size;
    uint8_t* file = tflw_write(tensors, 5, &op, 1, inputs, 1, outputs, 1, &size);
    assert_non_null(file);
    const size_t n_in = (size_t) (h * w * c), n_out = (size_t) (oh * ow * oc);
    int8_t* input = malloc(n_in);
    int8_t* output = malloc(n_out);
    int8_t* ref = malloc(n_out);
    test_fill_s8(input, n_in);
    run_everywhere(file, size, input, n_in, output, n_out);
    int32_t multiplier[12], shift[12];
    for (int32_t i = 0; i < oc; i++) {
      assert_true(ref_quantize_multiplier((double) in_scale * (double) filter_scales[i] / (double) out_scale,
                                          &multiplier[i], &shift[i]));
    }
    const struct ref_conv_params rp = {
        .batch = 1, .in_h = (size_t) h, .in_w = (size_t) w, .in_c = (size_t) c, .groups = 1, .out_c = (size_t) oc,
        .k_h = (size_t) kh, .k_w = (size_t) kw, .stride_h = (size_t) sh, .stride_w = (size_t) sw, .dil_h = 1,
        .dil_w = 1, .pad_top = (size_t) pt, .pad_left = (size_t) pl, .in_pixel_stride = (size_t) c,
        .out_pixel_stride = (size_t) oc, .in_zp = (int32_t) in_zp, .out_zp = (int32_t) out_zp, .out_min = -128,
        .out_max = 127, .multiplier = multiplier, .shift = shift, .rounding = 0};
    ref_transpose_conv2d(&rp, (size_t) oh, (size_t) ow, input, filter, has_bias ? bias : NULL, ref);
    const size_t bad = test_first_mismatch(output, ref, n_out);
    if (bad != SIZE_MAX) {
      fail_msg("%s %dx%dx%d -> %dx%dx%d k %dx%d s %dx%d: [%zu] %d, reference %d", same ? "SAME" : "VALID", h, w, c,
               oh, ow, oc, kh, kw, sh, sw, bad, output[bad], ref[bad]);
    }
    free(input), free(output), free(ref), free(file);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fully_connected_against_reference),
      cmocka_unit_test(test_fully_connected_refusals),
      cmocka_unit_test(test_fused_lookup_chain),
      cmocka_unit_test(test_unary_builtins),
      cmocka_unit_test(test_pool_builtins),
      cmocka_unit_test(test_activation_mul),
      cmocka_unit_test(test_resize_concat_builtins),
      cmocka_unit_test(test_transpose_conv_builtin),
      cmocka_unit_test(test_backend_placement_is_where_it_runs),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
