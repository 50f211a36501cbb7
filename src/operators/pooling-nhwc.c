/*
 * Max and average pooling 2D, NHWC, int8 and uint8 (TFLite's MaxPool and AveragePool, and the
 * requantizing average pooling of pytorch_qnnpack): each output
 * pixel's window is clipped to the image and reduced by the pooling kernel over its channels
 * (kernels/pool-scalar.c, arch/x86/pool-avx2.c). Threads take rows of output pixels. uint8 bytes
 * are flipped (^ 0x80) where the kernels load and store them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel-decls.h"
#include "operator.h"

static const struct q8nn_operator_class q8nn_pooling_class;

/* requantized: the requantizing average pooling (pytorch_qnnpack's arithmetic) of quant; else
   TFLite's (quant unused) */
static enum q8nn_status create_pooling(const struct q8nn_pooling2d_desc* desc, int average, int requantized,
                                       const struct q8nn_pooling2d_quantization* quant, int32_t output_min,
                                       int32_t output_max, uint32_t flags, int u8, q8nn_operator_t* pooling_out,
                                       const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (desc == NULL || pooling_out == NULL || (requantized && quant == NULL)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "desc, quant and pooling_out must not be NULL");
  }
  if (flags != 0) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) flags);
  if (desc->pooling_height == 0 || desc->pooling_width == 0 || desc->stride_height == 0 || desc->stride_width == 0 ||
      desc->channels == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero window, stride or channels");
  }
  if (desc->padding_top >= desc->pooling_height || desc->padding_bottom >= desc->pooling_height ||
      desc->padding_left >= desc->pooling_width || desc->padding_right >= desc->pooling_width) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "padding not below the window size");
  }
  if (output_min > output_max) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output_min %d > output_max %d", (int) output_min,
                          (int) output_max);
  }
  struct q8nn_pool_params params = {.output_min = (int8_t) (output_min - (u8 ? 128 : 0)),
                                     .output_max = (int8_t) (output_max - (u8 ? 128 : 0)),
                                     .flip = (uint8_t) (u8 ? 0x80 : 0)};
  if (requantized) {
    const int32_t zp_lo = u8 ? 0 : -128, zp_hi = u8 ? 255 : 127;
    if (quant->input_zero_point < zp_lo || quant->input_zero_point > zp_hi || quant->output_zero_point < zp_lo ||
        quant->output_zero_point > zp_hi) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero points outside [%d, %d]", (int) zp_lo,
                            (int) zp_hi);
    }
    if (!(isnormal(quant->input_scale) && quant->input_scale > 0.0f) ||
        !(isnormal(quant->output_scale) && quant->output_scale > 0.0f)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "scales must be normal floats > 0");
    }
    /* pytorch_qnnp_create_average_pooling2d_nhwc_q8's range and scale, in its float arithmetic */
    volatile float ratio = quant->input_scale / quant->output_scale;
    if (!(ratio >= 0x1.0p-8f && ratio < 0x1.0p+8f)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "input/output scale ratio %g outside pytorch_qnnpack's [2^-8, 2^8)", (double) ratio);
    }
    const uint64_t cells = (uint64_t) desc->pooling_height * desc->pooling_width;
    if (cells >= ((uint64_t) 1 << 23)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "a window of %llu cells (2^23 or more)",
                            (unsigned long long) cells);
    }
    volatile float divisor = quant->output_scale * (float) cells;
    params.scale = quant->input_scale / divisor;
    params.requantize = 1;
    params.input_zero_point = quant->input_zero_point - (u8 ? 128 : 0);
    params.output_zero_point = quant->output_zero_point - (u8 ? 128 : 0);
  }
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_pooling);
  if (op != NULL) op->cls = &q8nn_pooling_class;
  if (op == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator allocation failed");
  struct q8nn_conv_geometry* g = &op->geometry;
  g->padding_top = desc->padding_top;
  g->padding_right = desc->padding_right;
  g->padding_bottom = desc->padding_bottom;
  g->padding_left = desc->padding_left;
  g->kernel_height = desc->pooling_height;
  g->kernel_width = desc->pooling_width;
  g->stride_height = desc->stride_height;
  g->stride_width = desc->stride_width;
  g->dilation_height = g->dilation_width = 1;
  g->groups = desc->channels;
  g->group_input_channels = g->group_output_channels = 1;
  op->pooling_channels = desc->channels;
  op->pooling_average = average;
  op->pool_params = params;
  op->u8 = u8;
  /* the kernel of the best active line (kernels/kernel-decls.h); the portable one otherwise */
  const uint32_t isa = q8nn_get_active_isa();
  const char* line = "scalar";
  op->pool_kernel = average ? q8nn_s8_avgpool_ukernel__scalar : q8nn_s8_maxpool_ukernel__scalar;
#if Q8NN_ARCH_X86
  if (isa & Q8NN_ISA_X86_AVX512VNNI) {
    op->pool_kernel = average ? q8nn_s8_avgpool_ukernel__avx512 : q8nn_s8_maxpool_ukernel__avx512;
    op->maxpool_row_kernel = average ? NULL : q8nn_s8_maxpool_row_ukernel__avx512;
    line = "avx512";
  } else if (isa & Q8NN_ISA_X86_AVX2) {
    op->pool_kernel = average ? q8nn_s8_avgpool_ukernel__avx2 : q8nn_s8_maxpool_ukernel__avx2;
    op->maxpool_row_kernel = average ? NULL : q8nn_s8_maxpool_row_ukernel__avx2;
    line = "avx2";
  }
#elif Q8NN_ARCH_NEON
  if (isa & Q8NN_ISA_ARM_NEON) {
    op->pool_kernel = average ? q8nn_s8_avgpool_ukernel__neon : q8nn_s8_maxpool_ukernel__neon;
    op->maxpool_row_kernel = average ? NULL : q8nn_s8_maxpool_row_ukernel__neon;
    line = "neon";
  }
#elif Q8NN_ARCH_RVV
  if (isa & Q8NN_ISA_RISCV_V) {
    op->pool_kernel = average ? q8nn_s8_avgpool_ukernel__rvv : q8nn_s8_maxpool_ukernel__rvv;
    op->maxpool_row_kernel = average ? NULL : q8nn_s8_maxpool_row_ukernel__rvv;
    line = "rvv";
  }
#endif
  (void) isa;
  snprintf(op->kernel_name, sizeof(op->kernel_name), "q8nn_s8_%spool_ukernel__%s%s", average ? "avg" : "max", line,
           requantized ? " (pytorch_qnnpack requantization)" : "");
  *pooling_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_max_pooling2d_nhwc_s8(const struct q8nn_pooling2d_desc* desc, int8_t output_min,
                                                   int8_t output_max, uint32_t flags, q8nn_operator_t* pooling_out) {
  return create_pooling(desc, 0, 0, NULL, output_min, output_max, flags, 0, pooling_out, __func__);
}

enum q8nn_status q8nn_create_average_pooling2d_nhwc_s8(const struct q8nn_pooling2d_desc* desc, int8_t output_min,
                                                       int8_t output_max, uint32_t flags,
                                                       q8nn_operator_t* pooling_out) {
  return create_pooling(desc, 1, 0, NULL, output_min, output_max, flags, 0, pooling_out, __func__);
}

enum q8nn_status q8nn_create_max_pooling2d_nhwc_u8(const struct q8nn_pooling2d_desc* desc, uint8_t output_min,
                                                   uint8_t output_max, uint32_t flags, q8nn_operator_t* pooling_out) {
  return create_pooling(desc, 0, 0, NULL, output_min, output_max, flags, 1, pooling_out, __func__);
}

enum q8nn_status q8nn_create_average_pooling2d_nhwc_u8(const struct q8nn_pooling2d_desc* desc, uint8_t output_min,
                                                       uint8_t output_max, uint32_t flags,
                                                       q8nn_operator_t* pooling_out) {
  return create_pooling(desc, 1, 0, NULL, output_min, output_max, flags, 1, pooling_out, __func__);
}

enum q8nn_status q8nn_create_average_pooling2d_requantized_nhwc_s8(const struct q8nn_pooling2d_desc* desc,
                                                                   const struct q8nn_pooling2d_quantization* quant,
                                                                   int8_t output_min, int8_t output_max,
                                                                   uint32_t flags, q8nn_operator_t* pooling_out) {
  return create_pooling(desc, 1, 1, quant, output_min, output_max, flags, 0, pooling_out, __func__);
}

enum q8nn_status q8nn_create_average_pooling2d_requantized_nhwc_u8(const struct q8nn_pooling2d_desc* desc,
                                                                   const struct q8nn_pooling2d_quantization* quant,
                                                                   uint8_t output_min, uint8_t output_max,
                                                                   uint32_t flags, q8nn_operator_t* pooling_out) {
  return create_pooling(desc, 1, 1, quant, output_min, output_max, flags, 1, pooling_out, __func__);
}

static enum q8nn_status setup_pooling(q8nn_operator_t op, int u8, size_t batch_size, size_t input_height,
                                      size_t input_width, const void* input, size_t input_pixel_stride, void* output,
                                      size_t output_pixel_stride, size_t* output_height_out, size_t* output_width_out,
                                      const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_pooling || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s pooling operator", u8 ? "uint8" : "int8");
  }
  op->is_setup = 0;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t channels = op->pooling_channels;
  if (input == NULL || output == NULL || batch_size == 0 || input_height == 0 || input_width == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "NULL buffer or zero size");
  }
  if (input_pixel_stride < channels || output_pixel_stride < channels) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "pixel strides below %zu channels", channels);
  }
  /* out = (in + padding - window) / stride + 1, in size_t without wrapping */
  const size_t padded_h = input_height + g->padding_top + g->padding_bottom;
  const size_t padded_w = input_width + g->padding_left + g->padding_right;
  if (input_height > SIZE_MAX / 2 || input_width > SIZE_MAX / 2 || padded_h < g->kernel_height ||
      padded_w < g->kernel_width) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "the window is larger than the padded input");
  }
  const size_t output_height = (padded_h - g->kernel_height) / g->stride_height + 1;
  const size_t output_width = (padded_w - g->kernel_width) / g->stride_width + 1;
  size_t in_pixels, out_pixels;
  if (!q8nn_mul_sz(batch_size, input_height, &in_pixels) || !q8nn_mul_sz(in_pixels, input_width, &in_pixels) ||
      !q8nn_mul_sz(batch_size, output_height, &out_pixels) || !q8nn_mul_sz(out_pixels, output_width, &out_pixels) ||
      !q8nn_extent_fits(input, in_pixels, channels, input_pixel_stride) ||
      !q8nn_extent_fits(output, out_pixels, channels, output_pixel_stride)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "the tensors' extent overflows the address space");
  }
  op->batch_size = batch_size;
  op->input_height = input_height;
  op->input_width = input_width;
  op->output_height = output_height;
  op->output_width = output_width;
  op->input_pixel_stride = input_pixel_stride;
  op->output_pixel_stride = output_pixel_stride;
  op->input = input;
  op->output = output;
  op->plan_threads = 0;
  op->setup_serial = q8nn_next_setup_serial();
  op->is_setup = 1;
  if (output_height_out != NULL) *output_height_out = output_height;
  if (output_width_out != NULL) *output_width_out = output_width;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_pooling2d_nhwc_s8(q8nn_operator_t pooling, size_t batch_size, size_t input_height,
                                              size_t input_width, const int8_t* input, size_t input_pixel_stride,
                                              int8_t* output, size_t output_pixel_stride, size_t* output_height_out,
                                              size_t* output_width_out) {
  return setup_pooling(pooling, 0, batch_size, input_height, input_width, input, input_pixel_stride, output,
                       output_pixel_stride, output_height_out, output_width_out, __func__);
}

enum q8nn_status q8nn_setup_pooling2d_nhwc_u8(q8nn_operator_t pooling, size_t batch_size, size_t input_height,
                                              size_t input_width, const uint8_t* input, size_t input_pixel_stride,
                                              uint8_t* output, size_t output_pixel_stride, size_t* output_height_out,
                                              size_t* output_width_out) {
  return setup_pooling(pooling, 1, batch_size, input_height, input_width, input, input_pixel_stride, output,
                       output_pixel_stride, output_height_out, output_width_out, __func__);
}

/* Output rows [row0, row0 + count) (rows numbered over batch x output height); one 2D tile. */
static void pooling_task(void* context, size_t unused, size_t row0, size_t count) {
  (void) unused;
  const struct q8nn_operator* op = context;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const struct q8nn_pool_params params = op->pool_params;
  const q8nn_pool_ukernel_fn kernel = op->pool_kernel;
  const size_t row_stride = op->input_width * op->input_pixel_stride;
  /* the output columns whose windows lie inside the image's width, [inside_begin, inside_end): the
     row kernel's (empty without one) */
  size_t inside_begin = 0, inside_end = 0;
  if (op->maxpool_row_kernel != NULL && op->input_width + g->padding_left >= g->kernel_width) {
    inside_begin = (g->padding_left + g->stride_width - 1) / g->stride_width;
    const size_t last_inside = (op->input_width + g->padding_left - g->kernel_width) / g->stride_width;
    inside_end = q8nn_min_sz(op->output_width, last_inside + 1);
  }
  for (size_t row = row0; row < row0 + count; row++) {
    const size_t n = row / op->output_height, oy = row % op->output_height;
    /* the window clipped to the image: padding is below the window, so it is never empty */
    const size_t iy = oy * g->stride_height;
    const size_t y0 = iy > g->padding_top ? iy - g->padding_top : 0;
    const size_t y1 = q8nn_min_sz(iy + g->kernel_height - g->padding_top, op->input_height);
    const int8_t* image = op->input + n * op->input_height * row_stride;
    int8_t* out = op->output + row * op->output_width * op->output_pixel_stride;
    for (size_t ox = 0; ox < op->output_width; ox++) {
      if (ox == inside_begin && inside_end > inside_begin) {
        const size_t ix = ox * g->stride_width - g->padding_left;
        op->maxpool_row_kernel(image + y0 * row_stride + ix * op->input_pixel_stride, y1 - y0, g->kernel_width,
                               g->stride_width, inside_end - inside_begin, row_stride, op->input_pixel_stride,
                               op->pooling_channels, out + ox * op->output_pixel_stride, op->output_pixel_stride,
                               &params);
        ox = inside_end - 1;
        continue;
      }
      const size_t ix = ox * g->stride_width;
      const size_t x0 = ix > g->padding_left ? ix - g->padding_left : 0;
      const size_t x1 = q8nn_min_sz(ix + g->kernel_width - g->padding_left, op->input_width);
      kernel(image + y0 * row_stride + x0 * op->input_pixel_stride, y1 - y0, x1 - x0, row_stride,
             op->input_pixel_stride, op->pooling_channels, out + ox * op->output_pixel_stride, &params);
    }
  }
}

/* Poolings reading fewer bytes run on the calling thread. */
#define Q8NN_POOLING_MIN_PARALLEL_BYTES ((size_t) 1 << 16)

static size_t pooling_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const size_t rows = op->batch_size * op->output_height;
  const size_t bytes = rows * op->output_width * op->geometry.kernel_height * op->geometry.kernel_width *
                       op->pooling_channels;
  const int caller_only = !in_region && bytes < Q8NN_POOLING_MIN_PARALLEL_BYTES;
  if (caller_only) threads = 1;
  const size_t tile = q8nn_max_sz(1, rows / (threads * 4));
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) pooling_task, op, 1, 1, 1, rows, 1, tile);
  works[0].caller_only = caller_only;
  return 1;
}

static void pooling_span(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end) {
  const size_t pixels = op->batch_size * (output ? op->output_height * op->output_width
                                                 : op->input_height * op->input_width);
  const size_t stride = output ? op->output_pixel_stride : op->input_pixel_stride;
  *begin = output ? (uintptr_t) op->output : (uintptr_t) op->input;
  *end = *begin + (pixels - 1) * stride + op->pooling_channels;
}

static const struct q8nn_operator_class q8nn_pooling_class = {pooling_works, pooling_span, NULL};
