/*
 * Convolution 2D, NHWC, int8: create (validate, requantization, kernel choice, packing) and setup
 * (output size, indirection). The shared parts also serve the depthwise operator.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/backend.h"
#include "kernels/requantization.h"
#include "operator.h"

static int valid_zero_point(int32_t zp) { return zp >= -128 && zp <= 127; }
static int valid_scale(float s) { return isfinite(s) && s > 0.0f; }
static int valid_normal_scale(float s) { return isnormal(s) && s > 0.0f; }

/* XNNPACK's checks and per-channel scale (xnn_create_convolution2d_nhwc_qc8): every scale a normal
   float > 0, scale = input_scale * kernel_scale / output_scale in float, < 256. The scale's bits go
   into the multiplier slot, the shift slot is 0 (see ukernel.h). */
static enum q8nn_status compute_fp32_scales(
    const struct q8nn_conv_quantization* quant, size_t channels, uint32_t flags,
    int32_t* multiplier, int32_t* shift, const char* caller) {
  const int per_tensor = (flags & Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) != 0;
  if (quant->output_multiplier != NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                          "output_multiplier has no meaning with q8nn_rounding_fp32 (give float scales)");
  }
  if (quant->requantization_scale != NULL) {
    /* the caller's scales, bit for bit (a host's own formula) */
    for (size_t c = 0; c < channels; c++) {
      const float scale = quant->requantization_scale[per_tensor ? 0 : c];
      if (!isfinite(scale) || !(scale >= 0.0f)) {
        return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                              "requantization_scale[%zu] = %g must be finite and >= 0", c, (double) scale);
      }
      if (!(scale < 256.0f)) {
        return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                              "requantization_scale[%zu] = %g is >= 256 (XNNPACK's limit)", c, (double) scale);
      }
      memcpy(&multiplier[c], &scale, sizeof(scale));
      shift[c] = 0;
    }
    return q8nn_status_success;
  }
  if (!valid_normal_scale(quant->input_scale) || !valid_normal_scale(quant->output_scale)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                          "input/output scale %g/%g must be normal floats > 0 (fp32 requantization)",
                          (double) quant->input_scale, (double) quant->output_scale);
  }
  if (quant->kernel_scale == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel_scale is NULL");
  }
  for (size_t c = 0; c < channels; c++) {
    const float ks = quant->kernel_scale[per_tensor ? 0 : c];
    if (!valid_normal_scale(ks)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                            "kernel_scale[%zu] = %g must be a normal float > 0 (fp32 requantization)", c, (double) ks);
    }
  }
  for (size_t c = 0; c < channels; c++) {
    const float ks = quant->kernel_scale[per_tensor ? 0 : c];
    /* volatile: two float roundings, in XNNPACK's order, whatever the evaluation method */
    volatile float product = quant->input_scale * ks;
    const float scale = product / quant->output_scale;
    if (!(scale < 256.0f)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "fp32 requantization scale %g of channel %zu is >= 256 (XNNPACK's limit)", (double) scale, c);
    }
    memcpy(&multiplier[c], &scale, sizeof(scale));
    shift[c] = 0;
  }
  return q8nn_status_success;
}

/* Per-output-channel (multiplier, shift) in TFLite form, from float scales or as given; or the
   fp32 scales of q8nn_rounding_fp32. */
static enum q8nn_status compute_requantization(
    const struct q8nn_conv_quantization* quant, size_t channels, uint32_t flags,
    int32_t* multiplier, int32_t* shift, const char* caller) {
  if (quant->rounding == q8nn_rounding_fp32) {
    return compute_fp32_scales(quant, channels, flags, multiplier, shift, caller);
  }
  if (quant->requantization_scale != NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                          "requantization_scale is for q8nn_rounding_fp32 only (TFLite roundings take scales or "
                          "output_multiplier / output_shift)");
  }
  const int per_tensor = (flags & Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) != 0;
  if (quant->output_multiplier != NULL) {
    if (quant->output_shift == NULL) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output_multiplier given without output_shift");
    }
    for (size_t c = 0; c < channels; c++) {
      const int32_t m = quant->output_multiplier[per_tensor ? 0 : c];
      const int32_t s = quant->output_shift[per_tensor ? 0 : c];
      if (m != 0 && m < (INT32_C(1) << 30)) {
        return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                              "output_multiplier[%zu] = %d is neither 0 nor in [2^30, 2^31)", c, (int) m);
      }
      if (s < -31 || s > 30) {
        return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                              "output_shift[%zu] = %d is outside [-31, 30]", c, (int) s);
      }
      multiplier[c] = m;
      shift[c] = s;
    }
    return q8nn_status_success;
  }
  if (!valid_scale(quant->input_scale) || !valid_scale(quant->output_scale)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input/output scale %g/%g must be finite and > 0",
                          (double) quant->input_scale, (double) quant->output_scale);
  }
  if (quant->kernel_scale == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel_scale is NULL");
  }
  for (size_t c = 0; c < channels; c++) {
    const float ks = quant->kernel_scale[per_tensor ? 0 : c];
    if (!valid_scale(ks)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel_scale[%zu] = %g must be finite and > 0",
                            c, (double) ks);
    }
    /* exactly TFLite's PopulateConvolutionQuantizationParams: double product, then division */
    const double real = (double) quant->input_scale * (double) ks / (double) quant->output_scale;
    if (!q8nn_quantize_multiplier(real, &multiplier[c], &shift[c])) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "requantization scale %g of channel %zu does not fit a shift <= 30", real, c);
    }
  }
  return q8nn_status_success;
}

static void set_kernel_name(struct q8nn_operator* op, const char* name) {
  snprintf(op->kernel_name, sizeof(op->kernel_name), "%s", name);
}

enum q8nn_status q8nn_create_conv_common(
    struct q8nn_operator* op, const struct q8nn_conv_geometry* g,
    const struct q8nn_conv_quantization* quant, const int8_t* kernel_ohwi, const int32_t* bias,
    uint32_t flags, const char* caller) {
  if (!valid_zero_point(quant->input_zero_point) || !valid_zero_point(quant->output_zero_point)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero points %d/%d outside [-128, 127]",
                          (int) quant->input_zero_point, (int) quant->output_zero_point);
  }
  if (quant->output_min > quant->output_max) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output_min %d > output_max %d",
                          (int) quant->output_min, (int) quant->output_max);
  }
  if (quant->rounding != q8nn_rounding_double && quant->rounding != q8nn_rounding_single &&
      quant->rounding != q8nn_rounding_fp32) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown rounding %d", (int) quant->rounding);
  }
  if ((flags & ~Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) != 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) flags);
  }
  const size_t ks = (size_t) g->kernel_height * g->kernel_width;
  size_t channels_out, kernel_size;
  if (!q8nn_mul_sz(g->groups, g->group_output_channels, &channels_out) ||
      !q8nn_mul_sz(channels_out, ks, &kernel_size) || !q8nn_mul_sz(kernel_size, g->group_input_channels, &kernel_size) ||
      channels_out > SIZE_MAX / (4 * sizeof(int32_t))) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "weight size overflows size_t");
  }

  op->geometry = *g;
  op->rounding = quant->rounding;
  op->input_zero_point = quant->input_zero_point;
  op->conv_params.output_zero_point = quant->output_zero_point;
  op->conv_params.output_min = quant->output_min;
  op->conv_params.output_max = quant->output_max;
  op->conv_params.input_flip = op->u8 ? 0x80 : 0;
  op->conv_params.output_flip = op->u8 ? 0x80 : 0;

  op->multiplier = malloc(channels_out * sizeof(int32_t));
  op->shift = malloc(channels_out * sizeof(int32_t));
  op->bias = calloc(channels_out, sizeof(int32_t));
  op->kernel = malloc(kernel_size);
  if (op->multiplier == NULL || op->shift == NULL || op->bias == NULL || op->kernel == NULL) {
    return q8nn_log_error(q8nn_status_out_of_memory, caller, "%zu bytes of weights", kernel_size);
  }
  enum q8nn_status status = compute_requantization(quant, channels_out, flags, op->multiplier, op->shift, caller);
  if (status != q8nn_status_success) return status;
  memcpy(op->kernel, kernel_ohwi, kernel_size);
  if (bias != NULL) memcpy(op->bias, bias, channels_out * sizeof(int32_t));

  const struct q8nn_dispatch d = q8nn_get_dispatch(op->u8);
  if (d.guard) q8nn_guard_params(&op->conv_params, op->rounding, channels_out, op->multiplier, op->shift);
  const size_t gic = g->group_input_channels, goc = g->group_output_channels;
  /* a transposed convolution always takes the igemm path (its indirection does the gathering) */
  const int is_gemm = !op->transposed && g->kernel_height == 1 && g->kernel_width == 1 && g->stride_height == 1 &&
                      g->stride_width == 1 && g->padding_top == 0 && g->padding_bottom == 0 &&
                      g->padding_left == 0 && g->padding_right == 0;
  const struct q8nn_gemm_entry* ge = d.gemm[op->rounding];
  const struct q8nn_gemm_entry* ie = d.im2col_gemm[op->rounding];
  const int is_im2col = !is_gemm && !op->transposed && g->groups == 1 && gic < Q8NN_IM2COL_MAX_CHANNELS && ie != NULL &&
                        q8nn_round_up(ks * gic, q8nn_min_sz(ie->kr, Q8NN_IM2COL_ROW_KR)) <= Q8NN_IM2COL_MAX_K;
  size_t zero_size = gic;
  /* One input channel and one group with several outputs (a single-channel image's first
     convolution, or a depthwise one of one channel with a depth multiplier: person_detect's 96x96x1
     and kws's 49x10x1) is an ordinary convolution of K = taps: as gemm or im2col it reads the image
     once, where the depthwise path copies it dm times and runs a depthwise kernel per copy. */
  if (!op->transposed && gic == 1 && !(g->groups == 1 && goc > 1 && (is_gemm || is_im2col))) {
    /* One input channel per group: depthwise, channels innermost. With a depth multiplier
       (goc > 1) run reads each input channel dm times into op->expanded_input first, so output
       channel c*dm+m finds its input at the same index and the dwconv kernels apply unchanged. */
    const int r = op->rounding;
    const struct q8nn_dwconv_entry* e = ks == 9 && d.dwconv_9[r] != NULL    ? d.dwconv_9[r]
                                        : ks == 25 && d.dwconv_25[r] != NULL ? d.dwconv_25[r]
                                                                             : d.dwconv_any[r];
    const size_t channels = channels_out;
    op->path = q8nn_conv_path_dwconv;
    op->dwconv = e->fn[r];
    op->dwconv_channel_tile = e->channel_tile;
    set_kernel_name(op, e->names[r]);
    /* OHWI with I = 1 is [C*dm][taps]; the dwconv packing wants [taps][C*dm]. */
    int8_t* taps_major = malloc(kernel_size);
    op->packed_weights = malloc(q8nn_packed_dwconv_size(channels, ks, e->channel_tile));
    if (taps_major == NULL || op->packed_weights == NULL) {
      free(taps_major);
      return q8nn_log_error(q8nn_status_out_of_memory, caller, "packed depthwise weights");
    }
    for (size_t c = 0; c < channels; c++) {
      for (size_t t = 0; t < ks; t++) taps_major[t * channels + c] = kernel_ohwi[c * ks + t];
    }
    q8nn_pack_qs8_dwconv_w(channels, ks, e->channel_tile, taps_major, bias, op->multiplier, op->shift,
                           quant->input_zero_point + e->input_offset, op->packed_weights);
    free(taps_major);
    zero_size = channels;
  } else {
    uint32_t nr, kr;
    int32_t input_offset;
    q8nn_pack_gemm_fn pack;
    const int r = op->rounding;
    if (is_gemm || is_im2col) {
      /* im2col keeps the first line within its row buffer's MR bound (dispatch.h, im2col_gemm) */
      const struct q8nn_gemm_entry* e = is_gemm ? q8nn_choose_gemm_tile(ge, r, 0, 0, goc, gic) : ie;
      op->gemm_entry = e;
      op->path = is_gemm ? q8nn_conv_path_gemm : q8nn_conv_path_im2col;
      op->gemm = e->fn[r];
      op->gemm_mloop = e->mloop;
      op->mr = e->mr, nr = e->nr, kr = e->kr;
      input_offset = e->input_offset, pack = e->pack;
      set_kernel_name(op, e->names[r]);
    } else {
      const struct q8nn_igemm_entry* e = q8nn_choose_igemm_tile(d.igemm[r], r, 0, 0, goc, gic, ks);
      op->igemm_entry = e;
      op->path = q8nn_conv_path_igemm;
      op->igemm = e->fn[r];
      op->mr = e->mr, nr = e->nr, kr = e->kr;
      input_offset = e->input_offset, pack = e->pack;
      set_kernel_name(op, e->names[r]);
    }
    op->nr = nr;
    /* im2col: OHWI is [O][taps * I], a 1x1 kernel of K = taps * I */
    const size_t pack_ks = is_im2col ? 1 : ks, pack_kc = is_im2col ? ks * gic : gic;
    /* run pads the rows to whole K groups of min(KR, Q8NN_IM2COL_ROW_KR) bytes (the packed weights
       are zero there): no K tail */
    op->im2col_k = is_im2col ? q8nn_round_up(pack_kc, q8nn_min_sz(kr, Q8NN_IM2COL_ROW_KR)) : 0;
    op->packed_group_stride = q8nn_packed_gemm_size(pack, 1, goc, pack_ks, pack_kc, nr, kr); /* gemm: ks = 1 */
    op->packed_weights = malloc(op->packed_group_stride * g->groups);
    if (op->packed_weights == NULL) {
      return q8nn_log_error(q8nn_status_out_of_memory, caller, "packed weights");
    }
    pack(g->groups, goc, pack_ks, pack_kc, nr, kr, kernel_ohwi, bias, op->multiplier, op->shift,
         quant->input_zero_point + input_offset, op->packed_weights);
  }
  op->zero_size = zero_size;
  op->zero_buffer = malloc(zero_size);
  if (op->zero_buffer == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "zero row");
  /* the input's own bytes (uint8: the int8 zero point ^ 0x80) */
  memset(op->zero_buffer, (int) (int8_t) (quant->input_zero_point ^ op->conv_params.input_flip), zero_size);
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_convolution_object(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, int u8, int transposed,
    q8nn_operator_t* convolution_out, const char* caller) {
  if (kernel == NULL || convolution_out == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel and the out-pointer must not be NULL");
  }
  if (desc->kernel_height == 0 || desc->kernel_width == 0 || desc->stride_height == 0 || desc->stride_width == 0 ||
      desc->dilation_height == 0 || desc->dilation_width == 0 || desc->groups == 0 ||
      desc->group_input_channels == 0 || desc->group_output_channels == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                          "kernel size, stride, dilation, groups and channels must be >= 1");
  }
  /* a transposed convolution's output extent is (in - 1) * stride + dilation * (kernel - 1) + 1 in size_t */
  const uint32_t limit = 65536;
  if (transposed && (desc->kernel_height > limit || desc->kernel_width > limit || desc->stride_height > limit ||
                     desc->stride_width > limit || desc->dilation_height > limit || desc->dilation_width > limit)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel, stride or dilation above 65536");
  }
  const struct q8nn_conv_geometry g = {
      desc->padding_top, desc->padding_right, desc->padding_bottom, desc->padding_left,
      desc->kernel_height, desc->kernel_width, desc->stride_height, desc->stride_width,
      desc->dilation_height, desc->dilation_width,
      desc->groups, desc->group_input_channels, desc->group_output_channels};
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_convolution);
  if (op == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator");
  op->u8 = u8;
  op->transposed = transposed;
  const enum q8nn_status status = q8nn_create_conv_common(op, &g, quant, kernel, bias, flags, caller);
  if (status != q8nn_status_success) {
    q8nn_delete_operator(op);
    return status;
  }
  *convolution_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_convolution2d_nhwc_s8(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* convolution_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (desc == NULL || quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "desc and quant must not be NULL");
  return q8nn_create_convolution_object(desc, quant, kernel, bias, flags, 0, 0, convolution_out, __func__);
}

enum q8nn_status q8nn_conv_quantization_from_u8(const struct q8nn_conv_quantization_u8* quant,
                                                struct q8nn_conv_quantization* s8, const char* caller) {
  if (quant->input_zero_point < 0 || quant->input_zero_point > 255 || quant->output_zero_point < 0 ||
      quant->output_zero_point > 255) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero points %d/%d outside [0, 255]",
                          (int) quant->input_zero_point, (int) quant->output_zero_point);
  }
  if (quant->output_min > quant->output_max) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output_min %d > output_max %d",
                          (int) quant->output_min, (int) quant->output_max);
  }
  const struct q8nn_conv_quantization q = {
      .input_zero_point = quant->input_zero_point - 128,
      .input_scale = quant->input_scale,
      .kernel_scale = quant->kernel_scale,
      .output_zero_point = quant->output_zero_point - 128,
      .output_scale = quant->output_scale,
      .output_min = (int8_t) (quant->output_min - 128),
      .output_max = (int8_t) (quant->output_max - 128),
      .rounding = quant->rounding,
      .output_multiplier = quant->output_multiplier,
      .output_shift = quant->output_shift,
      .requantization_scale = quant->requantization_scale};
  *s8 = q;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_convolution2d_nhwc_u8(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization_u8* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* convolution_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (desc == NULL || quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "desc and quant must not be NULL");
  struct q8nn_conv_quantization s8;
  const enum q8nn_status status = q8nn_conv_quantization_from_u8(quant, &s8, __func__);
  if (status != q8nn_status_success) return status;
  return q8nn_create_convolution_object(desc, &s8, kernel, bias, flags, 1, 0, convolution_out, __func__);
}

/* Output extent per TFLite; 0 when it is not positive. */
static size_t output_extent(size_t input, uint32_t pad_before, uint32_t pad_after, uint32_t kernel,
                            uint32_t stride, uint32_t dilation) {
  const size_t padded = input + (size_t) pad_before + (size_t) pad_after;
  const size_t effective = (size_t) dilation * (kernel - 1) + 1;
  if (padded < effective) return 0;
  return (padded - effective) / stride + 1;
}

/* Output extent of a transposed convolution: (input - 1) * stride + dilation * (kernel - 1) + 1
   - padding + adjustment; 0 when that is not positive. */
static size_t transposed_extent(size_t input, uint32_t pad_before, uint32_t pad_after, uint32_t kernel,
                                uint32_t stride, uint32_t dilation, uint32_t adjustment) {
  const size_t full = (input - 1) * stride + (size_t) dilation * (kernel - 1) + 1 + adjustment;
  const size_t padding = (size_t) pad_before + pad_after;
  return full > padding ? full - padding : 0;
}

/* Input coordinate of output coordinate o and tap k of a transposed convolution, or -1 where no
   input pixel lands there (the division is not exact, or it falls outside the image). */
static int64_t transposed_source(size_t o, size_t k, uint32_t pad_before, uint32_t stride, uint32_t dilation,
                                 size_t input) {
  const int64_t n = (int64_t) o + pad_before - (int64_t) (k * dilation);
  if (n < 0 || n % stride != 0 || n / stride >= (int64_t) input) return -1;
  return n / stride;
}

static void build_indirection(struct q8nn_operator* op, size_t tile, size_t tiles, const int8_t* base,
                              size_t pixel_stride) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t kh = g->kernel_height, kw = g->kernel_width, ks = kh * kw;
  const size_t m_total = op->output_height * op->output_width;
  for (size_t mt = 0; mt < tiles; mt++) {
    for (size_t t = 0; t < ks; t++) {
      const size_t ky = t / kw, kx = t % kw;
      for (size_t i = 0; i < tile; i++) {
        size_t m = mt * tile + i;
        if (m >= m_total) m = m_total - 1; /* partial tile: repeat the last pixel */
        const size_t oy = m / op->output_width, ox = m % op->output_width;
        /* iy = oy*stride + ky*dilation - pad, in signed arithmetic wide enough for any input;
           transposed: the iy whose output oy = iy*stride + ky*dilation - pad */
        const int64_t iy =
            op->transposed ? transposed_source(oy, ky, g->padding_top, g->stride_height, g->dilation_height,
                                               op->input_height)
                           : (int64_t) (oy * g->stride_height + ky * g->dilation_height) - g->padding_top;
        const int64_t ix =
            op->transposed ? transposed_source(ox, kx, g->padding_left, g->stride_width, g->dilation_width,
                                               op->input_width)
                           : (int64_t) (ox * g->stride_width + kx * g->dilation_width) - g->padding_left;
        const int8_t* p = op->zero_buffer;
        if (iy >= 0 && iy < (int64_t) op->input_height && ix >= 0 && ix < (int64_t) op->input_width) {
          p = base + ((size_t) iy * op->input_width + (size_t) ix) * pixel_stride;
        }
        op->indirection[(mt * ks + t) * tile + i] = p;
      }
    }
  }
}

enum q8nn_status q8nn_setup_conv_common(
    struct q8nn_operator* op, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out, const char* caller) {
  const struct q8nn_conv_geometry* g = &op->geometry;
  if (input == NULL || output == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input and output must not be NULL");
  }
  if (batch_size == 0 || input_height == 0 || input_width == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "batch %zu, input %zux%zu must be >= 1",
                          batch_size, input_height, input_width);
  }
  const size_t in_channels = g->groups * g->group_input_channels;
  const size_t out_channels = g->groups * g->group_output_channels;
  if (input_pixel_stride < in_channels || output_pixel_stride < out_channels) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                          "pixel strides %zu/%zu below channel counts %zu/%zu", input_pixel_stride,
                          output_pixel_stride, in_channels, out_channels);
  }
  if (input_height > UINT32_MAX || input_width > UINT32_MAX) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input size beyond 2^32");
  }
  const size_t oh = op->transposed ? transposed_extent(input_height, g->padding_top, g->padding_bottom,
                                                       g->kernel_height, g->stride_height, g->dilation_height,
                                                       op->adjustment_height)
                                    : output_extent(input_height, g->padding_top, g->padding_bottom, g->kernel_height,
                                                    g->stride_height, g->dilation_height);
  const size_t ow = op->transposed ? transposed_extent(input_width, g->padding_left, g->padding_right,
                                                       g->kernel_width, g->stride_width, g->dilation_width,
                                                       op->adjustment_width)
                                    : output_extent(input_width, g->padding_left, g->padding_right, g->kernel_width,
                                                    g->stride_width, g->dilation_width);
  if (oh == 0 || ow == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output size %zux%zu is not positive", oh, ow);
  }
  size_t n, in_pixels, out_pixels;
  if (!q8nn_mul_sz(batch_size, input_height, &in_pixels) || !q8nn_mul_sz(in_pixels, input_width, &in_pixels) ||
      !q8nn_mul_sz(in_pixels, input_pixel_stride, &n) || !q8nn_mul_sz(batch_size, oh, &out_pixels) ||
      !q8nn_mul_sz(out_pixels, ow, &out_pixels) || !q8nn_mul_sz(out_pixels, output_pixel_stride, &n)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "tensor size overflows size_t");
  }
  /* the last byte of the input and of the output is addressable: pointer + extent does not wrap
     (the products above fit, but an input near the top of the address space plus its extent may
     still wrap, and the kernels would form pointers past it) */
  if (!q8nn_extent_fits(input, in_pixels, in_channels, input_pixel_stride) ||
      !q8nn_extent_fits(output, out_pixels, out_channels, output_pixel_stride)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "a tensor's extent overflows the address space");
  }

  /* Tile rows for this M, among the lines that share the packed weights (tile-select.c); stored
     with the other shape fields once nothing can fail. */
  const size_t ks = (size_t) g->kernel_height * g->kernel_width;
  const size_t gic = g->group_input_channels, goc = g->group_output_channels;
  const struct q8nn_gemm_entry* gemm_e = NULL;
  const struct q8nn_igemm_entry* igemm_e = NULL;
  size_t mr = 1;
  if (op->path == q8nn_conv_path_gemm) {
    gemm_e = q8nn_choose_gemm_tile(op->gemm_entry, op->rounding, 1, batch_size * oh * ow, goc, gic);
    mr = gemm_e->mr;
  } else if (op->path == q8nn_conv_path_igemm) {
    igemm_e = q8nn_choose_igemm_tile(op->igemm_entry, op->rounding, 1, oh * ow, goc, gic, ks);
    mr = igemm_e->mr;
  }
  /* Indirection: igemm tiles of MR pixels, or one list of taps per output pixel (dwconv). */
  size_t tile = 0, tiles = 0, pointers = 0;
  int reuse_indirection = 0;
  if (op->path == q8nn_conv_path_igemm || op->path == q8nn_conv_path_dwconv) {
    tile = mr;
    tiles = q8nn_divide_round_up(oh * ow, tile);
    if (!q8nn_mul_sz(tiles, ks * tile, &pointers) || pointers > SIZE_MAX / sizeof(void*)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "indirection size overflows size_t");
    }
    /* Same tile and input shape as the buffer's: only the input pointer may have moved (an
       expanded input stays where it is unless it grows, which needs a larger shape). */
    const size_t base_stride = g->group_output_channels > 1 && op->path == q8nn_conv_path_dwconv
                                   ? out_channels : input_pixel_stride;
    reuse_indirection = op->indirection_tile == tile && op->indirection_input_height == input_height &&
                        op->indirection_input_width == input_width &&
                        op->indirection_pixel_stride == base_stride &&
                        (!op->transposed || (op->output_height == oh && op->output_width == ow));
    if (pointers > op->indirection_capacity) {
      const int8_t** grown = realloc(op->indirection, pointers * sizeof(void*));
      if (grown == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "indirection buffer");
      op->indirection = grown;
      op->indirection_capacity = pointers;
    }
  }
  /* Depth multiplier on the dwconv path: run expands the input into a buffer owned here. */
  const int expand = op->path == q8nn_conv_path_dwconv && g->group_output_channels > 1;
  if (expand) {
    size_t bytes;
    if (!q8nn_mul_sz(batch_size * input_height * input_width, out_channels, &bytes)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "expanded input size overflows size_t");
    }
    if (bytes > op->expanded_capacity) {
      int8_t* grown = realloc(op->expanded_input, bytes);
      if (grown == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "expanded input");
      op->expanded_input = grown;
      op->expanded_capacity = bytes;
    }
  }
  if (gemm_e != NULL) {
    op->gemm = gemm_e->fn[op->rounding];
    op->gemm_mloop = gemm_e->mloop;
    op->mr = gemm_e->mr;
    set_kernel_name(op, gemm_e->names[op->rounding]);
  } else if (igemm_e != NULL) {
    op->igemm = igemm_e->fn[op->rounding];
    op->mr = igemm_e->mr;
    set_kernel_name(op, igemm_e->names[op->rounding]);
  }
  op->batch_size = batch_size;
  op->input_height = input_height;
  op->input_width = input_width;
  op->output_height = oh;
  op->output_width = ow;
  op->input = input;
  op->output = output;
  op->input_pixel_stride = input_pixel_stride;
  op->output_pixel_stride = output_pixel_stride;
  if (pointers != 0) {
    size_t pixel_stride;
    const int8_t* base = q8nn_indirection_input(op, &pixel_stride);
    if (!reuse_indirection) {
      build_indirection(op, tile, tiles, base, pixel_stride);
      op->indirection_base = base;
      op->indirection_tile = tile;
      op->indirection_input_height = input_height;
      op->indirection_input_width = input_width;
      op->indirection_pixel_stride = pixel_stride;
    }
    /* modulo 2^N: the kernels add it to the kept pointers as integers (ukernel.h) */
    op->input_delta = (size_t) ((uintptr_t) base - (uintptr_t) op->indirection_base);
  }
  op->plan_threads = 0; /* the loops are derived again at the next run */
  op->setup_serial = q8nn_next_setup_serial(); /* and any q8nn_run_operators plan with it */
  op->is_setup = 1;
  const enum q8nn_status status = q8nn_backend_prepare(op);
  if (status != q8nn_status_success) {
    op->is_setup = 0;
    return status;
  }
  if (output_height_out != NULL) *output_height_out = oh;
  if (output_width_out != NULL) *output_width_out = ow;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_convolution2d_nhwc_s8(
    q8nn_operator_t op, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_convolution || op->u8 || op->fully_connected || op->transposed) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "not an int8 convolution operator");
  }
  return q8nn_setup_conv_common(op, batch_size, input_height, input_width, input, input_pixel_stride,
                                output, output_pixel_stride, output_height_out, output_width_out, __func__);
}

enum q8nn_status q8nn_setup_convolution2d_nhwc_u8(
    q8nn_operator_t op, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_convolution || !op->u8 || op->fully_connected ||
      op->transposed) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "not a uint8 convolution operator");
  }
  return q8nn_setup_conv_common(op, batch_size, input_height, input_width, (const int8_t*) input,
                                input_pixel_stride, (int8_t*) output, output_pixel_stride, output_height_out,
                                output_width_out, __func__);
}

void q8nn_compute_same_padding(uint32_t input, uint32_t kernel, uint32_t stride, uint32_t dilation,
                               uint32_t* pad_before, uint32_t* pad_after) {
  if (pad_before == NULL || pad_after == NULL) return;
  *pad_before = 0;
  *pad_after = 0;
  if (stride == 0 || dilation == 0 || kernel == 0) return;
  const uint64_t out = ((uint64_t) input + stride - 1) / stride;
  const uint64_t effective = (uint64_t) dilation * (kernel - 1) + 1;
  const int64_t total = out == 0 ? 0 : (int64_t) ((out - 1) * stride + effective) - (int64_t) input;
  if (total > 0) {
    *pad_before = (uint32_t) (total / 2);
    *pad_after = (uint32_t) (total - total / 2);
  }
}
