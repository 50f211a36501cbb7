/*
 * Layer by layer: for every CONV_2D, DEPTHWISE_CONV_2D and ADD of the five shared models, the model
 * layer's output tensor (read through the q8nn_model_debug_* hook, on real inputs flowing through
 * the whole graph) equals tests/reference's naive TFLite-reference loop run on the same input
 * tensors. The operator parameters (padding, strides, dilation, activation, per-channel scales,
 * filters, biases) are read from the .tflite here with the flatbuffer reader and turned into
 * TFLite's multipliers by tests/reference, independently of the model loader (src/model/). Each CONV_2D,
 * DEPTHWISE_CONV_2D and ADD output also equals the standalone q8nn operator's, created from the
 * file's float scales and run on the same input tensors.
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

#include "flatbuffer.h"
#include "reference/reference-model.h"
#include "reference/reference.h"
#include "testers/test-util.h"

enum { OP_ADD = 0, OP_CONV_2D = 3, OP_DEPTHWISE_CONV_2D = 4, OP_FULLY_CONNECTED = 9, OP_MUL = 18, OP_SUB = 41 };

struct checker {
  struct fb_reader r;
  struct fb_vector tensors, operators, buffers;
  int32_t* builtin; /* per opcode index */
  size_t checked[42];
  size_t fused;       /* MUL/SUB checked through a fused chain */
  const char* name;
};

struct tensor_view {
  size_t num_dims, dims[6];
  struct fb_vector scales, zero_points;
  const uint8_t* data;
};

static struct tensor_view view(struct checker* c, int32_t index) {
  struct tensor_view v;
  memset(&v, 0, sizeof(v));
  const struct fb_table t = fb_vec_table(&c->r, &c->tensors, (size_t) index);
  const struct fb_vector shape = fb_vector_field(&c->r, &t, 0, 4);
  v.num_dims = shape.length;
  for (size_t i = 0; i < shape.length && i < 6; i++) v.dims[i] = (size_t) fb_vec_i32(&c->r, &shape, i);
  const struct fb_table q = fb_table_field(&c->r, &t, 4);
  v.scales = fb_vector_field(&c->r, &q, 2, 4);
  v.zero_points = fb_vector_field(&c->r, &q, 3, 8);
  const struct fb_table b = fb_vec_table(&c->r, &c->buffers, fb_u32(&c->r, &t, 2, 0));
  const struct fb_vector data = fb_vector_field(&c->r, &b, 0, 1);
  if (data.length != 0) v.data = fb_vec_bytes(&c->r, &data);
  assert_false(fb_failed(&c->r));
  return v;
}

/* The first input and the output of operator k, both present. */
static void io_tensors(q8nn_model_t m, size_t k, struct q8nn_model_tensor_info* in, const void** x,
                       struct q8nn_model_tensor_info* out, const void** y) {
  assert_int_equal(q8nn_model_debug_tensor(m, k, 0, in, x), q8nn_status_success);
  assert_int_equal(q8nn_model_debug_tensor(m, k, Q8NN_MODEL_DEBUG_OUTPUT, out, y), q8nn_status_success);
  assert_non_null(*x);
  assert_non_null(*y);
}

static void check_conv(struct checker* c, q8nn_model_t m, size_t k, const struct fb_table* op, int32_t builtin) {
  const int depthwise = builtin == OP_DEPTHWISE_CONV_2D;
  const struct fb_vector inputs = fb_vector_field(&c->r, op, 1, 4);
  const struct fb_table o = fb_table_field(&c->r, op, 4);
  const int padding = fb_u8(&c->r, &o, 0, 0);
  const int32_t stride_w = fb_i32(&c->r, &o, 1, 1), stride_h = fb_i32(&c->r, &o, 2, 1);
  const int act = fb_u8(&c->r, &o, depthwise ? 4 : 3, 0);
  const int32_t dil_w = fb_i32(&c->r, &o, depthwise ? 5 : 4, 1), dil_h = fb_i32(&c->r, &o, depthwise ? 6 : 5, 1);
  const struct tensor_view filter = view(c, fb_vec_i32(&c->r, &inputs, 1));
  const int32_t bias_index = inputs.length > 2 ? fb_vec_i32(&c->r, &inputs, 2) : -1;
  struct q8nn_model_tensor_info in, out;
  const void *x, *y;
  io_tensors(m, k, &in, &x, &out, &y);
  struct ref_conv_params p;
  memset(&p, 0, sizeof(p));
  p.batch = in.dims[0];
  p.in_h = in.dims[1];
  p.in_w = in.dims[2];
  p.k_h = filter.dims[1];
  p.k_w = filter.dims[2];
  const size_t C = in.dims[3], OC = out.dims[3];
  p.groups = depthwise ? 1 : C / filter.dims[3];
  p.in_c = depthwise ? C : filter.dims[3];
  p.out_c = depthwise ? OC / C : OC / p.groups;
  p.stride_h = (size_t) stride_h;
  p.stride_w = (size_t) stride_w;
  p.dil_h = (size_t) dil_h;
  p.dil_w = (size_t) dil_w;
  if (padding == 0) { /* SAME, TFLite ComputePaddingWithOffset */
    const size_t eh = (p.k_h - 1) * p.dil_h + 1, ew = (p.k_w - 1) * p.dil_w + 1;
    const long th = (long) ((out.dims[1] - 1) * p.stride_h + eh) - (long) p.in_h;
    const long tw = (long) ((out.dims[2] - 1) * p.stride_w + ew) - (long) p.in_w;
    p.pad_top = th > 0 ? (size_t) (th / 2) : 0;
    p.pad_bottom = th > 0 ? (size_t) (th - th / 2) : 0;
    p.pad_left = tw > 0 ? (size_t) (tw / 2) : 0;
    p.pad_right = tw > 0 ? (size_t) (tw - tw / 2) : 0;
  }
  p.in_pixel_stride = C;
  p.out_pixel_stride = OC;
  p.in_zp = in.zero_point;
  p.out_zp = out.zero_point;
  assert_true(act >= 0 && act <= 3);
  ref_activation_range_s8(act, out.scale, out.zero_point, &p.out_min, &p.out_max);
  int32_t* multiplier = malloc(OC * sizeof(int32_t));
  int32_t* shift = malloc(OC * sizeof(int32_t));
  for (size_t oc = 0; oc < OC; oc++) {
    const float fs = fb_vec_f32(&c->r, &filter.scales, filter.scales.length == 1 ? 0 : oc);
    /* TFLite PopulateConvolutionQuantizationParams: all in double */
    assert_true(ref_quantize_multiplier((double) in.scale * (double) fs / (double) out.scale, &multiplier[oc], &shift[oc]));
  }
  p.multiplier = multiplier;
  p.shift = shift;
  int32_t* bias = NULL;
  if (bias_index >= 0) {
    const struct tensor_view b = view(c, bias_index);
    bias = malloc(OC * sizeof(int32_t));
    memcpy(bias, b.data, OC * sizeof(int32_t));
  }
  int8_t* expected = malloc(out.num_bytes);
  if (depthwise) ref_depthwise(&p, (const int8_t*) x, (const int8_t*) filter.data, bias, expected);
  else ref_conv2d(&p, (const int8_t*) x, (const int8_t*) filter.data, bias, expected);
  const size_t bad = test_first_mismatch((const int8_t*) y, expected, out.num_bytes);
  if (bad != SIZE_MAX) {
    fail_msg("%s operator %zu (%s): [%zu] %d, reference %d", c->name, k, depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D",
             bad, ((const int8_t*) y)[bad], expected[bad]);
  }
  /* the standalone q8nn operator, created from the file's float scales as a user would create it */
  float* kernel_scale = malloc(filter.scales.length * sizeof(float));
  for (size_t i = 0; i < filter.scales.length; i++) kernel_scale[i] = fb_vec_f32(&c->r, &filter.scales, i);
  const struct q8nn_conv_quantization q = {
      .input_zero_point = in.zero_point, .input_scale = in.scale, .kernel_scale = kernel_scale,
      .output_zero_point = out.zero_point, .output_scale = out.scale, .output_min = (int8_t) p.out_min,
      .output_max = (int8_t) p.out_max, .rounding = q8nn_rounding_double};
  const uint32_t flags = filter.scales.length == 1 ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  q8nn_operator_t standalone = NULL;
  if (depthwise) {
    const struct q8nn_depthwise_convolution2d_desc d = {
        .padding_top = (uint32_t) p.pad_top, .padding_right = (uint32_t) p.pad_right,
        .padding_bottom = (uint32_t) p.pad_bottom, .padding_left = (uint32_t) p.pad_left,
        .kernel_height = (uint32_t) p.k_h, .kernel_width = (uint32_t) p.k_w, .stride_height = (uint32_t) p.stride_h,
        .stride_width = (uint32_t) p.stride_w, .dilation_height = (uint32_t) p.dil_h,
        .dilation_width = (uint32_t) p.dil_w, .channels = C, .depth_multiplier = p.out_c};
    assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, (const int8_t*) filter.data, bias, flags,
                                                                 &standalone), q8nn_status_success);
    assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(standalone, p.batch, p.in_h, p.in_w, x, C, expected,
                                                                OC, NULL, NULL), q8nn_status_success);
  } else {
    const struct q8nn_convolution2d_desc d = {
        .padding_top = (uint32_t) p.pad_top, .padding_right = (uint32_t) p.pad_right,
        .padding_bottom = (uint32_t) p.pad_bottom, .padding_left = (uint32_t) p.pad_left,
        .kernel_height = (uint32_t) p.k_h, .kernel_width = (uint32_t) p.k_w, .stride_height = (uint32_t) p.stride_h,
        .stride_width = (uint32_t) p.stride_w, .dilation_height = (uint32_t) p.dil_h,
        .dilation_width = (uint32_t) p.dil_w, .groups = (uint32_t) p.groups, .group_input_channels = p.in_c,
        .group_output_channels = p.out_c};
    assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, (const int8_t*) filter.data, bias, flags, &standalone),
                     q8nn_status_success);
    assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(standalone, p.batch, p.in_h, p.in_w, x, C, expected, OC, NULL,
                                                      NULL), q8nn_status_success);
  }
  memset(expected, 0x5A, out.num_bytes);
  assert_int_equal(q8nn_run_operator(standalone, NULL), q8nn_status_success);
  q8nn_delete_operator(standalone);
  free(kernel_scale);
  if (memcmp(y, expected, out.num_bytes) != 0) {
    fail_msg("%s operator %zu: the model's output differs from the standalone q8nn operator's", c->name, k);
  }
  free(expected);
  free(bias);
  free(multiplier);
  free(shift);
}

/* FULLY_CONNECTED (per tensor or per channel) against TFLite Micro's reference loop. */
static void check_fully_connected(struct checker* c, q8nn_model_t m, size_t k, const struct fb_table* op) {
  const struct fb_vector inputs = fb_vector_field(&c->r, op, 1, 4);
  const struct fb_table o = fb_table_field(&c->r, op, 4);
  const int act = fb_u8(&c->r, &o, 0, 0);
  const struct tensor_view filter = view(c, fb_vec_i32(&c->r, &inputs, 1));
  const int32_t bias_index = inputs.length > 2 ? fb_vec_i32(&c->r, &inputs, 2) : -1;
  struct q8nn_model_tensor_info in, out;
  const void *x, *y;
  io_tensors(m, k, &in, &x, &out, &y);
  const size_t units = filter.dims[0], depth = filter.dims[1];
  float* scales = malloc(filter.scales.length * sizeof(float));
  for (size_t i = 0; i < filter.scales.length; i++) scales[i] = fb_vec_f32(&c->r, &filter.scales, i);
  int32_t* bias = NULL;
  if (bias_index >= 0) {
    bias = malloc(units * sizeof(int32_t));
    memcpy(bias, view(c, bias_index).data, units * sizeof(int32_t));
  }
  int32_t lo, hi;
  assert_true(act >= 0 && act <= 3);
  ref_activation_range_s8(act, out.scale, out.zero_point, &lo, &hi);
  int8_t* expected = malloc(out.num_bytes);
  assert_true(ref_fully_connected_s8(in.num_bytes / depth, depth, units, (const int8_t*) x, in.scale, in.zero_point,
                                     (const int8_t*) filter.data, filter.scales.length, scales, bias, out.scale,
                                     out.zero_point, lo, hi, expected));
  const size_t bad = test_first_mismatch((const int8_t*) y, expected, out.num_bytes);
  if (bad != SIZE_MAX) {
    fail_msg("%s operator %zu (FULLY_CONNECTED): [%zu] %d, reference %d", c->name, k, bad, ((const int8_t*) y)[bad],
             expected[bad]);
  }
  free(expected);
  free(bias);
  free(scales);
}

/* The two inputs and the output of a binary operator; the second input is always there (an
   activation or a constant the model kept). */
static void binary_tensors(q8nn_model_t m, size_t k, struct q8nn_model_tensor_info* a, const void** xa,
                           struct q8nn_model_tensor_info* b, const void** xb, struct q8nn_model_tensor_info* out,
                           const void** y) {
  assert_int_equal(q8nn_model_debug_tensor(m, k, 0, a, xa), q8nn_status_success);
  assert_int_equal(q8nn_model_debug_tensor(m, k, 1, b, xb), q8nn_status_success);
  assert_int_equal(q8nn_model_debug_tensor(m, k, Q8NN_MODEL_DEBUG_OUTPUT, out, y), q8nn_status_success);
  assert_non_null(*xb);
}

static void check_add(struct checker* c, q8nn_model_t m, size_t k, const struct fb_table* op) {
  const struct fb_table o = fb_table_field(&c->r, op, 4);
  const int act = fb_u8(&c->r, &o, 0, 0);
  struct q8nn_model_tensor_info a, b, out;
  const void *xa, *xb, *y;
  binary_tensors(m, k, &a, &xa, &b, &xb, &out, &y);
  assert_non_null(xa);
  int32_t lo, hi;
  assert_true(act >= 0 && act <= 3);
  ref_activation_range_s8(act, out.scale, out.zero_point, &lo, &hi);
  struct ref_add_params p;
  assert_true(ref_add_params_from_scales(a.scale, a.zero_point, b.scale, b.zero_point, out.scale, out.zero_point, lo,
                                         hi, &p));
  int8_t* expected = malloc(out.num_bytes);
  ref_add(&p, a.num_dims, a.dims, (const int8_t*) xa, b.num_dims, b.dims, (const int8_t*) xb, expected);
  const size_t bad = test_first_mismatch((const int8_t*) y, expected, out.num_bytes);
  if (bad != SIZE_MAX) {
    fail_msg("%s operator %zu (ADD): [%zu] %d, reference %d", c->name, k, bad, ((const int8_t*) y)[bad], expected[bad]);
  }
  /* the standalone q8nn operator on the same inputs */
  const struct q8nn_add_quantization q = {
      .a_zero_point = a.zero_point, .a_scale = a.scale, .b_zero_point = b.zero_point, .b_scale = b.scale,
      .output_zero_point = out.zero_point, .output_scale = out.scale, .output_min = (int8_t) lo,
      .output_max = (int8_t) hi};
  q8nn_operator_t standalone = NULL;
  assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &standalone), q8nn_status_success);
  memset(expected, 0x5A, out.num_bytes);
  assert_int_equal(q8nn_setup_add_nd_s8(standalone, a.num_dims, a.dims, b.num_dims, b.dims, (const int8_t*) xa,
                                        (const int8_t*) xb, expected), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(standalone, NULL), q8nn_status_success);
  q8nn_delete_operator(standalone);
  if (memcmp(y, expected, out.num_bytes) != 0) {
    fail_msg("%s operator %zu: the model's output differs from the standalone q8nn operator's", c->name, k);
  }
  free(expected);
}

/* MUL or SUB (int8, broadcasting) against tests/reference. An operator fused into a later one
   (q8nn_model_operator_info.fused_into) has no output tensor: it is checked at the later operator,
   whose reference input is then the fused one's reference output (the whole chain against
   TFLite's arithmetic, op by op). */
static void reference_mul_sub(struct checker* c, q8nn_model_t m, size_t k, int8_t* expected,
                              struct q8nn_model_tensor_info* out_info) {
  const struct fb_table op = fb_vec_table(&c->r, &c->operators, k);
  const int32_t builtin = c->builtin[fb_u32(&c->r, &op, 0, 0)];
  assert_true(builtin == OP_MUL || builtin == OP_SUB);
  const struct fb_table o = fb_table_field(&c->r, &op, 4);
  const int act = fb_u8(&c->r, &o, 0, 0);
  struct q8nn_model_tensor_info a, b, out;
  const void *xa, *xb, *y;
  binary_tensors(m, k, &a, &xa, &b, &xb, &out, &y);
  int8_t* a_ref = NULL;
  if (xa == NULL) { /* the output of an operator fused into this one */
    size_t j = k;
    struct q8nn_model_operator_info producer;
    do {
      assert_true(j > 0);
      assert_int_equal(q8nn_model_get_operator_info(m, --j, &producer), q8nn_status_success);
    } while (producer.fused_into != k);
    a_ref = malloc(a.num_bytes);
    struct q8nn_model_tensor_info produced;
    reference_mul_sub(c, m, j, a_ref, &produced);
    assert_int_equal(produced.num_bytes, a.num_bytes);
    xa = a_ref;
    c->fused++;
  }
  int32_t lo, hi;
  assert_true(act >= 0 && act <= 3);
  ref_activation_range_s8(act, out.scale, out.zero_point, &lo, &hi);
  assert_true(ref_mul_sub_s8(builtin == OP_MUL, a.num_dims, a.dims, (const int8_t*) xa, a.scale, a.zero_point,
                             b.num_dims, b.dims, (const int8_t*) xb, b.scale, b.zero_point, out.scale,
                             out.zero_point, lo, hi, expected));
  free(a_ref);
  *out_info = out;
}

static void check_mul_sub(struct checker* c, q8nn_model_t m, size_t k) {
  struct q8nn_model_tensor_info out;
  const void* y;
  assert_int_equal(q8nn_model_debug_tensor(m, k, Q8NN_MODEL_DEBUG_OUTPUT, &out, &y), q8nn_status_success);
  assert_non_null(y);
  int8_t* expected = malloc(out.num_bytes);
  reference_mul_sub(c, m, k, expected, &out);
  const size_t bad = test_first_mismatch((const int8_t*) y, expected, out.num_bytes);
  if (bad != SIZE_MAX) {
    fail_msg("%s operator %zu (MUL/SUB): [%zu] %d, reference %d", c->name, k, bad, ((const int8_t*) y)[bad],
             expected[bad]);
  }
  free(expected);
}

static void after_operator(void* context, q8nn_model_t m, size_t k) {
  struct checker* c = (struct checker*) context;
  const struct fb_table op = fb_vec_table(&c->r, &c->operators, k);
  const int32_t builtin = c->builtin[fb_u32(&c->r, &op, 0, 0)];
  struct q8nn_model_operator_info info;
  assert_int_equal(q8nn_model_get_operator_info(m, k, &info), q8nn_status_success);
  if (builtin == OP_CONV_2D || builtin == OP_DEPTHWISE_CONV_2D) {
    assert_string_equal(info.type, builtin == OP_CONV_2D ? "CONV_2D" : "DEPTHWISE_CONV_2D");
    check_conv(c, m, k, &op, builtin);
    c->checked[builtin]++;
  } else if (builtin == OP_ADD) {
    check_add(c, m, k, &op);
    c->checked[OP_ADD]++;
  } else if (builtin == OP_FULLY_CONNECTED) {
    check_fully_connected(c, m, k, &op);
    c->checked[builtin]++;
  } else if (builtin == OP_MUL || builtin == OP_SUB) {
    if (info.fused_into == SIZE_MAX) check_mul_sub(c, m, k); /* else checked with the operator it is fused into */
    c->checked[builtin]++;
  }
}

static void test_every_layer(void** state) {
  (void) state;
  const char* dir = getenv("Q8NN_MODELS_DIR");
  if (dir == NULL || dir[0] == '\0') skip();
  static const struct { const char* model; const char* input; int uint8_input; } models[] = {
      {"tflm_person_detection/person_detect.tflite", "tflm_person_detection/person_input_int8.bin", 0},
      {"cfu_mnv2/model_mobilenetv2_160_035.tflite", "cfu_mnv2/input_00001_18027.dat", 1},
      {"cfu_mlcommons_vww/vww_96_int8.tflite", "cfu_mlcommons_vww/quant_test_yes_0.dat", 0},
      {"cfu_mlcommons_imgc/pretrainedResnet_quant.tflite", "cfu_mlcommons_imgc/quant_cat.dat", 0},
      {"cfu_mlcommons_kws/kws_ref_model.tflite", "cfu_mlcommons_kws/yes_9.dat", 0},
  };
  size_t total_checked = 0;
  for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
    size_t size, input_size;
    void* file = test_read_file(dir, models[i].model, &size);
    uint8_t* input = (uint8_t*) test_read_file(dir, models[i].input, &input_size);
    if (file == NULL || input == NULL) skip();
    struct checker c;
    memset(&c, 0, sizeof(c));
    c.name = models[i].model;
    fb_init(&c.r, file, size);
    const struct fb_table root = fb_root(&c.r, "TFL3");
    const struct fb_vector codes = fb_vector_field(&c.r, &root, 1, 4);
    const struct fb_vector subgraphs = fb_vector_field(&c.r, &root, 2, 4);
    c.buffers = fb_vector_field(&c.r, &root, 4, 4);
    const struct fb_table subgraph = fb_vec_table(&c.r, &subgraphs, 0);
    c.tensors = fb_vector_field(&c.r, &subgraph, 0, 4);
    c.operators = fb_vector_field(&c.r, &subgraph, 3, 4);
    c.builtin = calloc(codes.length + 1, sizeof(int32_t));
    for (size_t j = 0; j < codes.length; j++) {
      const struct fb_table code = fb_vec_table(&c.r, &codes, j);
      const int32_t deprecated = fb_i8(&c.r, &code, 0, 0), current = fb_i32(&c.r, &code, 3, 0);
      c.builtin[j] = current > deprecated ? current : deprecated;
    }
    assert_false(fb_failed(&c.r));

    q8nn_model_t m = NULL;
    char error[256];
    if (q8nn_model_load_memory(file, size, NULL, &m, error, sizeof(error)) != q8nn_status_success) fail_msg("%s", error);
    assert_int_equal(q8nn_model_num_operators(m), c.operators.length);
    struct q8nn_model_tensor_info in;
    assert_int_equal(q8nn_model_input_info(m, 0, &in), q8nn_status_success);
    assert_int_equal(in.num_bytes, input_size);
    int8_t* x = (int8_t*) q8nn_model_input_data(m, 0);
    for (size_t j = 0; j < input_size; j++) x[j] = (int8_t) (models[i].uint8_input ? (int) input[j] - 128 : (int) (int8_t) input[j]);
    assert_int_equal(q8nn_model_set_debug_callback(m, after_operator, &c), q8nn_status_success);
    assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
    /* the hook's contract: bad slots and indices are refused, NULL removes the callback */
    struct q8nn_model_tensor_info info;
    const void* data;
    assert_int_equal(q8nn_model_debug_tensor(m, c.operators.length, 0, &info, &data), q8nn_status_invalid_parameter);
    assert_int_equal(q8nn_model_debug_tensor(m, 0, 99, &info, &data), q8nn_status_invalid_parameter);
    assert_int_equal(q8nn_model_set_debug_callback(m, NULL, NULL), q8nn_status_success);
    assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
    print_message("%s: %zu CONV_2D, %zu DEPTHWISE_CONV_2D, %zu ADD, %zu FULLY_CONNECTED, %zu MUL, %zu SUB (%zu through a "
                  "fused lookup) equal to the reference\n", c.name, c.checked[OP_CONV_2D],
                  c.checked[OP_DEPTHWISE_CONV_2D], c.checked[OP_ADD], c.checked[OP_FULLY_CONNECTED],
                  c.checked[OP_MUL], c.checked[OP_SUB], c.fused);
    if (i == 1) assert_int_equal(c.fused, 1); /* MobileNetV2's MUL + SUB preprocessing: one lookup */
    assert_true(c.checked[OP_CONV_2D] > 0);
    total_checked += c.checked[OP_CONV_2D] + c.checked[OP_DEPTHWISE_CONV_2D] + c.checked[OP_ADD];
    q8nn_model_delete(m);
    free(c.builtin);
    free(file);
    free(input);
  }
  assert_true(total_checked > 50);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_layer),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
