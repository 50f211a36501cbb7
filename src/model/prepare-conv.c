/*
 * Preparation of the convolutions: CONV_2D and DEPTHWISE_CONV_2D, TRANSPOSE_CONV and
 * FULLY_CONNECTED, each a q8nn operator created, packed and set up on the arena.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

static enum q8nn_status read_scales(struct loader* l, const struct op* op, const struct tensor* filter,
                                    size_t channels, int quantized_dimension, float** scales_out, uint32_t* flags) {
  const size_t n = filter->scales.length;
  if (n != 1 && !(n == channels && filter->quantized_dimension == quantized_dimension)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "filter has %zu scales for %zu channels", n, channels);
  }
  float* scales = (float*) malloc(n * sizeof(float));
  if (scales == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  for (size_t i = 0; i < n; i++) scales[i] = fb_vec_f32(&l->r, &filter->scales, i);
  for (size_t i = 0; i < filter->zero_points.length; i++) {
    if (fb_vec_i64(&l->r, &filter->zero_points, i) != 0) {
      free(scales);
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "filter zero point is not 0");
    }
  }
  *flags = n == 1 ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  *scales_out = scales;
  return q8nn_status_success;
}

static enum q8nn_status read_bias(struct loader* l, const struct op* op, const struct tensor* bias, size_t channels,
                                  int32_t** bias_out) {
  *bias_out = NULL;
  if (bias == NULL) return q8nn_status_success;
  if (bias->type != q8nn_model_type_int32 || bias->constant == NULL || bias->elements != channels) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "bias must be a constant int32 tensor of %zu values",
                   channels);
  }
  int32_t* b = (int32_t*) malloc(channels * sizeof(int32_t));
  if (b == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  memcpy(b, bias->constant, channels * sizeof(int32_t)); /* little-endian host */
  *bias_out = b;
  return q8nn_status_success;
}

/* The filter's scales, the bias and the q8nn quantization of a convolution from in to out. On
   success the caller frees quant->kernel_scale and *bias_out after the create. */
static enum q8nn_status read_conv_quantization(struct loader* l, const struct op* op, const struct tensor* in,
                                               const struct tensor* filter, const struct tensor* bias,
                                               const struct tensor* out, size_t channels, int quantized_dimension,
                                               int32_t out_min, int32_t out_max, struct q8nn_conv_quantization* quant,
                                               int32_t** bias_out, uint32_t* flags) {
  float* scales = NULL;
  enum q8nn_status status = read_scales(l, op, filter, channels, quantized_dimension, &scales, flags);
  if (status != q8nn_status_success) return status;
  status = read_bias(l, op, bias, channels, bias_out);
  if (status != q8nn_status_success) {
    free(scales);
    return status;
  }
  const struct q8nn_conv_quantization q = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .kernel_scale = scales,
      .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
      .output_max = (int8_t) out_max,
      .rounding = l->m->numerics == q8nn_model_numerics_xnnpack_fp32 ? q8nn_rounding_fp32 : q8nn_rounding_double};
  *quant = q;
  return q8nn_status_success;
}

enum q8nn_status model_prepare_conv(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  const int depthwise = op->builtin == OP_DEPTHWISE_CONV_2D;
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* filter = model_in_tensor(l, op, 1);
  struct tensor* bias = model_in_tensor(l, op, 2);
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, depthwise ? OPT_DEPTHWISE_CONV_2D : OPT_CONV_2D)) return model_options_fail(l, op);
  const int padding = fb_u8(r, &op->options, 0, 0);
  const int32_t stride_w = fb_i32(r, &op->options, 1, 0), stride_h = fb_i32(r, &op->options, 2, 0);
  const int activation = fb_u8(r, &op->options, depthwise ? 4 : 3, 0);
  const int32_t dil_w = fb_i32(r, &op->options, depthwise ? 5 : 4, 1);
  const int32_t dil_h = fb_i32(r, &op->options, depthwise ? 6 : 5, 1);
  if (fb_failed(r)) return model_reader_fail(l);
  if (in == NULL || filter == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) || in->num_dims != 4 ||
      out->num_dims != 4 || filter->num_dims != 4 || filter->type != q8nn_model_type_int8 || filter->constant == NULL) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter,
                   "needs int8 4D input/output with one scale and a constant int8 4D filter");
  }
  if ((padding != PAD_SAME && padding != PAD_VALID) || stride_w <= 0 || stride_h <= 0 || dil_w <= 0 || dil_h <= 0 ||
      stride_w > 65536 || stride_h > 65536 || dil_w > 65536 || dil_h > 65536) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "padding %d, stride %dx%d, dilation %dx%d", padding,
                   (int) stride_h, (int) stride_w, (int) dil_h, (int) dil_w);
  }
  int32_t out_min, out_max;
  if (!model_activation_range(activation, out, &out_min, &out_max)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  const size_t N = in->dims[0], H = in->dims[1], W = in->dims[2], C = in->dims[3];
  const size_t KH = filter->dims[1], KW = filter->dims[2];
  size_t OC, groups = 1, group_in = C, dm = 1;
  if (depthwise) {
    OC = filter->dims[3];
    if (filter->dims[0] != 1 || OC % C != 0) {
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "filter shape does not match %zu input channels", C);
    }
    dm = OC / C;
  } else {
    OC = filter->dims[0];
    group_in = filter->dims[3];
    if (C % group_in != 0 || OC % (C / group_in) != 0) {
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "filter input depth %zu does not divide %zu channels",
                     group_in, C);
    }
    groups = C / group_in;
  }
  size_t OH, OW;
  uint32_t pt, pb, pl, pr;
  if (!model_conv_dim(padding, H, KH, (size_t) stride_h, (size_t) dil_h, &OH, &pt, &pb) ||
      !model_conv_dim(padding, W, KW, (size_t) stride_w, (size_t) dil_w, &OW, &pl, &pr)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "kernel larger than the input");
  }
  const size_t expected[4] = {N, OH, OW, OC};
  if (!model_shape_is(out, 4, expected)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "output shape is not [%zu, %zu, %zu, %zu]", N, OH, OW, OC);
  }
  struct q8nn_conv_quantization quant;
  int32_t* b = NULL;
  uint32_t flags = 0;
  enum q8nn_status status = read_conv_quantization(l, op, in, filter, bias, out, OC, depthwise ? 3 : 0, out_min, out_max, &quant,
                                                   &b, &flags);
  if (status != q8nn_status_success) return status;
  if (depthwise) {
    const struct q8nn_depthwise_convolution2d_desc desc = {
        .padding_top = pt, .padding_right = pr, .padding_bottom = pb, .padding_left = pl,
        .kernel_height = (uint32_t) KH, .kernel_width = (uint32_t) KW, .stride_height = (uint32_t) stride_h,
        .stride_width = (uint32_t) stride_w, .dilation_height = (uint32_t) dil_h, .dilation_width = (uint32_t) dil_w,
        .channels = C, .depth_multiplier = dm};
    status = q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &quant, (const int8_t*) filter->constant, b, flags, &op->qop);
  } else {
    const struct q8nn_convolution2d_desc desc = {
        .padding_top = pt, .padding_right = pr, .padding_bottom = pb, .padding_left = pl,
        .kernel_height = (uint32_t) KH, .kernel_width = (uint32_t) KW, .stride_height = (uint32_t) stride_h,
        .stride_width = (uint32_t) stride_w, .dilation_height = (uint32_t) dil_h, .dilation_width = (uint32_t) dil_w,
        .groups = (uint32_t) groups, .group_input_channels = group_in, .group_output_channels = OC / groups};
    status = q8nn_create_convolution2d_nhwc_s8(&desc, &quant, (const int8_t*) filter->constant, b, flags, &op->qop);
  }
  free((float*) quant.kernel_scale);
  free(b);
  if (status != q8nn_status_success) {
    return model_q8nn_fail(l, op, "create", status);
  }
  int on_backend = model_try_backend(l->m, op);
  size_t oh = 0, ow = 0;
  do {
    status = depthwise
        ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op->qop, N, H, W, (const int8_t*) in->data, C,
                                                     (int8_t*) out->data, OC, &oh, &ow)
        : q8nn_setup_convolution2d_nhwc_s8(op->qop, N, H, W, (const int8_t*) in->data, C, (int8_t*) out->data, OC,
                                           &oh, &ow);
  } while (model_retry_on_cpu(op, status, &on_backend));
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success || oh != OH || ow != OW) {
    return model_op_fail(l, op, status != q8nn_status_success ? status : q8nn_status_invalid_parameter,
                   "q8nn setup failed (%s)", q8nn_status_string(status));
  }
  op->macs = (uint64_t) N * OH * OW * OC * KH * KW * (depthwise ? 1 : group_in);
  return q8nn_status_success;
}

/* TRANSPOSE_CONV (inputs: output shape, filter [OC][KH][KW][IC], input, optional bias): q8nn's
   transposed convolution. TFLite pads as a convolution from the output back to the input would
   (ComputePaddingHeightWidth on the output size) and uses the top / left padding only; the output
   size is the shape tensor's. Here the bottom / right crop and the adjustment follow from that
   size: full = (in - 1) * stride + kernel, crop = full - pad_top - out, an adjustment where it is
   negative. */
enum q8nn_status model_prepare_transpose_conv(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* shape = model_in_tensor(l, op, 0);
  struct tensor* filter = model_in_tensor(l, op, 1);
  struct tensor* in = model_in_tensor(l, op, 2);
  struct tensor* bias = op->num_inputs > 3 ? model_in_tensor(l, op, 3) : NULL;
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, OPT_TRANSPOSE_CONV)) return model_options_fail(l, op);
  const int padding = fb_u8(r, &op->options, 0, 0);
  const int32_t stride_w = fb_i32(r, &op->options, 1, 0), stride_h = fb_i32(r, &op->options, 2, 0);
  const int activation = fb_u8(r, &op->options, 3, 0);
  if (fb_failed(r)) return model_reader_fail(l);
  if (in == NULL || filter == NULL || shape == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) ||
      in->num_dims != 4 || out->num_dims != 4 || filter->num_dims != 4 || filter->type != q8nn_model_type_int8 ||
      filter->constant == NULL || shape->constant == NULL) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter,
                   "needs int8 4D input/output, a constant int8 4D filter and a constant output shape");
  }
  if ((padding != PAD_SAME && padding != PAD_VALID) || stride_w <= 0 || stride_h <= 0 || stride_w > 65536 ||
      stride_h > 65536) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "padding %d, stride %dx%d", padding, (int) stride_h,
                   (int) stride_w);
  }
  int32_t out_min, out_max;
  if (!model_activation_range(activation, out, &out_min, &out_max)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  const size_t N = in->dims[0], H = in->dims[1], W = in->dims[2], C = in->dims[3];
  const size_t OC = filter->dims[0], KH = filter->dims[1], KW = filter->dims[2];
  if (filter->dims[3] != C || out->dims[0] != N || out->dims[3] != OC || KH > 65536 || KW > 65536) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "filter or output shape does not match the input");
  }
  const size_t OH = out->dims[1], OW = out->dims[2];
  /* ComputePaddingHeightWidth with the output as the convolution's input */
  size_t unused;
  uint32_t pt, pb_unused, pl, pr_unused;
  if (!model_conv_dim(padding, OH, KH, (size_t) stride_h, 1, &unused, &pt, &pb_unused) ||
      !model_conv_dim(padding, OW, KW, (size_t) stride_w, 1, &unused, &pl, &pr_unused)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "kernel larger than the output");
  }
  const int64_t crop_h = (int64_t) ((H - 1) * (size_t) stride_h + KH) - (int64_t) pt - (int64_t) OH;
  const int64_t crop_w = (int64_t) ((W - 1) * (size_t) stride_w + KW) - (int64_t) pl - (int64_t) OW;
  const uint32_t pb = crop_h > 0 ? (uint32_t) crop_h : 0, pr = crop_w > 0 ? (uint32_t) crop_w : 0;
  const int64_t adj_h = crop_h < 0 ? -crop_h : 0, adj_w = crop_w < 0 ? -crop_w : 0;
  if (adj_h >= stride_h || adj_w >= stride_w) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "output %zux%zu beyond what the input reaches", OH, OW);
  }
  struct q8nn_conv_quantization quant;
  int32_t* b = NULL;
  uint32_t flags = 0;
  enum q8nn_status status = read_conv_quantization(l, op, in, filter, bias, out, OC, 0, out_min, out_max, &quant,
                                                   &b, &flags);
  if (status != q8nn_status_success) return status;
  const struct q8nn_convolution2d_desc desc = {
      .padding_top = pt, .padding_right = pr, .padding_bottom = pb, .padding_left = pl,
      .kernel_height = (uint32_t) KH, .kernel_width = (uint32_t) KW, .stride_height = (uint32_t) stride_h,
      .stride_width = (uint32_t) stride_w, .dilation_height = 1, .dilation_width = 1, .groups = 1,
      .group_input_channels = C, .group_output_channels = OC};
  status = q8nn_create_deconvolution2d_nhwc_s8(&desc, &quant, (const int8_t*) filter->constant, b, flags, &op->qop);
  free((float*) quant.kernel_scale);
  free(b);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "create", status);
  size_t oh = 0, ow = 0;
  status = q8nn_setup_deconvolution2d_nhwc_s8(op->qop, N, H, W, (uint32_t) adj_h, (uint32_t) adj_w,
                                              (const int8_t*) in->data, C, (int8_t*) out->data, OC, &oh, &ow);
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success || oh != OH || ow != OW) {
    return model_op_fail(l, op, status != q8nn_status_success ? status : q8nn_status_invalid_parameter,
                   "q8nn setup failed (%s)", q8nn_status_string(status));
  }
  op->macs = (uint64_t) N * H * W * OC * KH * KW * C;
  return q8nn_status_success;
}

enum q8nn_status model_prepare_fully_connected(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* filter = model_in_tensor(l, op, 1);
  struct tensor* bias = model_in_tensor(l, op, 2);
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, OPT_FULLY_CONNECTED)) return model_options_fail(l, op);
  const int activation = fb_u8(r, &op->options, 0, 0);
  const int weights_format = fb_u8(r, &op->options, 1, 0);
  if (fb_failed(r)) return model_reader_fail(l);
  if (in == NULL || filter == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) || filter->num_dims != 2 ||
      filter->type != q8nn_model_type_int8 || filter->constant == NULL || weights_format != 0) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter,
                   "needs int8 input/output with one scale and a constant int8 [units, depth] filter");
  }
  const size_t units = filter->dims[0], depth = filter->dims[1];
  if (in->elements % depth != 0 || out->elements != in->elements / depth * units || out->num_dims == 0 ||
      out->dims[out->num_dims - 1] != units) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "input/output shapes do not match the [%zu, %zu] filter",
                   units, depth);
  }
  const size_t rows = in->elements / depth;
  int32_t out_min, out_max;
  if (!model_activation_range(activation, out, &out_min, &out_max)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  /* Per-tensor or per-channel (one scale per unit, quantized dimension 0) symmetric filter, as
     TFLite Micro's CalculateOpDataFullyConnected takes them. */
  float* scales = NULL;
  uint32_t flags = 0;
  enum q8nn_status status = read_scales(l, op, filter, units, 0, &scales, &flags);
  if (status != q8nn_status_success) return status;
  for (size_t i = 0; i < filter->scales.length; i++) {
    if (!isfinite(scales[i]) || scales[i] <= 0.0f) {
      const double bad = (double) scales[i]; /* read before the free: the message names it */
      free(scales);
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "filter scale %zu is %g", i, bad);
    }
  }
  /* Per tensor: TFLite GetQuantizedConvolutionMultipler (the scale product is a float, then
     double), given to q8nn as the multiplier. Per channel: PopulateConvolutionQuantizationParams'
     double product per unit, which is how q8nn derives it from the float scales (as for CONV_2D);
     reference_integer_ops::FullyConnectedPerChannel is then a 1x1 convolution. */
  int32_t multiplier = 0, shift32 = 0;
  struct q8nn_conv_quantization quant = {
      .input_zero_point = in->zero_point, .input_scale = in->scale, .kernel_scale = scales,
      .output_zero_point = out->zero_point, .output_scale = out->scale, .output_min = (int8_t) out_min,
      .output_max = (int8_t) out_max, .rounding = q8nn_rounding_double};
  if (l->m->numerics == q8nn_model_numerics_xnnpack_fp32) {
    quant.rounding = q8nn_rounding_fp32; /* XNNPACK: the fp32 scale from the float scales */
  } else if (flags & Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) {
    const double real = (double) (in->scale * scales[0]) / (double) out->scale;
    int shift;
    if (!q8nn_model_quantize_multiplier(real, &multiplier, &shift)) {
      free(scales);
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "output multiplier %g out of range", real);
    }
    shift32 = shift;
    quant.kernel_scale = NULL;
    quant.output_multiplier = &multiplier;
    quant.output_shift = &shift32;
  }
  int32_t* b = NULL;
  status = read_bias(l, op, bias, units, &b);
  if (status != q8nn_status_success) {
    free(scales);
    return status;
  }
  status = q8nn_create_fully_connected_nc_s8(depth, units, &quant, (const int8_t*) filter->constant, b, flags,
                                             &op->qop);
  free(scales);
  free(b);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "create", status);
  int on_backend = model_try_backend(l->m, op);
  do {
    status = q8nn_setup_fully_connected_nc_s8(op->qop, rows, (const int8_t*) in->data, depth, (int8_t*) out->data,
                                              units);
  } while (model_retry_on_cpu(op, status, &on_backend));
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "setup", status);
  op->macs = (uint64_t) rows * units * depth;
  return q8nn_status_success;
}
