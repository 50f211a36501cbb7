/*
 * Resize 2D, NHWC, int8 and uint8: TFLite's RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR as its
 * kReference kernels compute them for int8 (tensorflow/lite/kernels/internal/reference/
 * resize_nearest_neighbor.h ResizeNearestNeighbor, resize_bilinear.h ResizeBilinearInteger).
 *
 * Nearest: the source index of output index o is min(floor((o + offset) * scale), in - 1) (with
 * align corners: round half away from zero instead of floor), offset 0.5 with half pixel centers,
 * else 0, scale = in / out or, aligning corners with out > 1, (in - 1) / (out - 1), all in float.
 *
 * Bilinear: 10-bit fixed point. The source step is scale = (1024 * in + out / 2) / out (aligning
 * corners with out > 1: (1024 * (in - 1) + (out - 1) / 2) / (out - 1)), the source position of
 * output index o is o * scale (half pixel centers: o * scale + scale / 2 - 512), its source pixels
 * position / 1024 and the next one (clamped to the image), the next one's weight the position's
 * low 10 bits. The four products sum to a value with 20 fraction bits, rounded half away from
 * zero: TFLite's default build (TFLITE_SINGLE_ROUNDING unset; that option rounds halves up).
 *
 * Where the two source indices coincide, TFLite's weight may lie outside [0, 1023] (half pixel
 * centers give a negative position at the top left), but the two products then add to pixel * 1024
 * in integers whatever the weight, so the weight is kept at 0 here: the same bytes. TFLite does not
 * clamp the lower index: when the rounded step times out - 1 reaches 1024 * in (a 1-row input
 * resized to 65 rows: step 16, last position 1024) it reads the row after the image, from the next
 * image or past the tensor. Here the lower index is clamped to the last row, which gives that row.
 *
 * uint8 operators compute the int8 operator on x - 128 and add 128: nearest copies bytes, so the
 * two are one; bilinear flips (^ 0x80) where it loads and stores, because the rounding of halves
 * away from zero is not translation invariant (int8 {-1, 0} at their middle give -1, uint8 {127,
 * 128} would give 128 with the same rule, not 127).
 *
 * Setup computes each output column's source pixels (byte offsets in a row) and weight; each task
 * computes its rows' source rows. Threads take rows of output pixels. A bilinear row is the active
 * line's kernel (ukernel.h, q8nn_x8_ibilinear_row__*: AVX-512, AVX2, NEON, RVV, portable), chosen at
 * create as the pooling kernels are.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel-decls.h"
#include "operator.h"

static const struct q8nn_operator_class q8nn_resize_class;

/* One output column: its source pixels' byte offsets in an input row and the right one's weight
   (10-bit fraction, 0 where the two are one pixel). Nearest uses `left` only. */
struct resize_state {
  enum q8nn_resize_mode mode;
  int align_corners, half_pixel_centers;
  size_t channels, output_height, output_width;
  /* setup: the vertical step (bilinear, 10-bit fixed point; nearest, float) and the columns,
     output_width entries allocated at the first setup */
  int64_t height_step;
  float height_scale;
  struct q8nn_resize_column* columns;
  q8nn_ibilinear_row_fn bilinear_row; /* the active line's, chosen at create */
};

/* Heights and widths up to 2^52 keep the 10-bit fixed point positions within int64 (a step is at
   most 1024 * in + out / 2 and a position below 1024 * in + out); setup refuses larger ones, 4 PiB
   a row or column of one byte, as extents no address space holds. */
#define Q8NN_RESIZE_MAX_SIZE ((uint64_t) 1 << 52)

static enum q8nn_status create_resize(enum q8nn_resize_mode mode, size_t channels, size_t output_height,
                                      size_t output_width, uint32_t flags, int u8, q8nn_operator_t* resize_out,
                                      const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (resize_out == NULL) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "resize_out must not be NULL");
  if (mode != q8nn_resize_nearest && mode != q8nn_resize_bilinear) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown resize mode %d", (int) mode);
  }
  if (channels == 0 || output_height == 0 || output_width == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero channels or output size");
  }
  const uint32_t known = Q8NN_FLAG_ALIGN_CORNERS | Q8NN_FLAG_HALF_PIXEL_CENTERS;
  if ((flags & ~known) != 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) (flags & ~known));
  }
  if (flags == known) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "align corners and half pixel centers together");
  }
  struct resize_state* state = calloc(1, sizeof(struct resize_state));
  struct q8nn_operator* op = state != NULL ? q8nn_allocate_operator(q8nn_operator_type_resize) : NULL;
  if (op == NULL) {
    free(state);
    return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator allocation failed");
  }
  op->cls = &q8nn_resize_class;
  state->mode = mode;
  state->align_corners = (flags & Q8NN_FLAG_ALIGN_CORNERS) != 0;
  state->half_pixel_centers = (flags & Q8NN_FLAG_HALF_PIXEL_CENTERS) != 0;
  state->channels = channels;
  state->output_height = output_height;
  state->output_width = output_width;
  op->resize_state = state;
  op->u8 = u8;
  const char* line = "scalar";
  state->bilinear_row = q8nn_x8_ibilinear_row__portable;
#if Q8NN_ARCH_X86
  const uint32_t isa = q8nn_get_active_isa();
  if (mode == q8nn_resize_bilinear && (isa & Q8NN_ISA_X86_AVX512VNNI) != 0) {
    state->bilinear_row = q8nn_x8_ibilinear_row__avx512vnni;
    line = "avx512";
  } else if (mode == q8nn_resize_bilinear && (isa & Q8NN_ISA_X86_AVX2) != 0) {
    state->bilinear_row = q8nn_x8_ibilinear_row__avx2;
    line = "avx2";
  }
#elif Q8NN_ARCH_NEON
  if (mode == q8nn_resize_bilinear && (q8nn_get_active_isa() & Q8NN_ISA_ARM_NEON) != 0) {
    state->bilinear_row = q8nn_x8_ibilinear_row__neon;
    line = "neon";
  }
#elif Q8NN_ARCH_RVV
  if (mode == q8nn_resize_bilinear && (q8nn_get_active_isa() & Q8NN_ISA_RISCV_V) != 0) {
    state->bilinear_row = q8nn_x8_ibilinear_row__rvv;
    line = "rvv";
  }
#endif
  snprintf(op->kernel_name, sizeof(op->kernel_name), "q8nn_s8_resize_%s__%s",
           mode == q8nn_resize_bilinear ? "bilinear" : "nearest", line);
  *resize_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_resize2d_nhwc_s8(enum q8nn_resize_mode mode, size_t channels, size_t output_height,
                                              size_t output_width, uint32_t flags, q8nn_operator_t* resize_out) {
  return create_resize(mode, channels, output_height, output_width, flags, 0, resize_out, __func__);
}

enum q8nn_status q8nn_create_resize2d_nhwc_u8(enum q8nn_resize_mode mode, size_t channels, size_t output_height,
                                              size_t output_width, uint32_t flags, q8nn_operator_t* resize_out) {
  return create_resize(mode, channels, output_height, output_width, flags, 1, resize_out, __func__);
}

/* Bilinear: the source step of an axis in 10-bit fixed point. */
static int64_t bilinear_step(size_t in, size_t out, int align_corners) {
  if (align_corners && out > 1) return ((int64_t) (in - 1) * 1024 + (int64_t) (out - 1) / 2) / (int64_t) (out - 1);
  return ((int64_t) in * 1024 + (int64_t) out / 2) / (int64_t) out;
}

/* Bilinear: the two source indices of output index o and the second one's weight. */
static void bilinear_source(size_t o, int64_t step, int half_pixel_centers, size_t in, size_t* i0, size_t* i1,
                            int32_t* weight) {
  int64_t position = (int64_t) o * step;
  if (half_pixel_centers) position += step / 2 - 512;
  if (position <= 0) {
    /* from -512 up to 0: both indices 0 (TFLite divides truncating toward zero) */
    *i0 = *i1 = 0;
    *weight = 0;
    return;
  }
  const size_t lower = (size_t) (position >> 10);
  const int32_t fraction = (int32_t) (position & 1023);
  if (lower >= in - 1) {
    *i0 = *i1 = in - 1;
    *weight = 0;
    return;
  }
  *i0 = lower;
  *i1 = fraction != 0 ? lower + 1 : lower;
  *weight = fraction;
}

/* Nearest: the scale of an axis, as TFLite's float. */
static float nearest_scale(size_t in, size_t out, int align_corners) {
  if (align_corners && out > 1) return (float) (in - 1) / (float) (out - 1);
  return (float) in / (float) out;
}

/* Nearest: the source index of output index o. */
static size_t nearest_source(size_t o, float scale, int align_corners, int half_pixel_centers, size_t in) {
  const float position = ((float) o + (half_pixel_centers ? 0.5f : 0.0f)) * scale;
  const float index = align_corners ? roundf(position) : floorf(position);
  /* position >= 0; below 2^53 for sizes up to Q8NN_RESIZE_MAX_SIZE */
  const uint64_t i = (uint64_t) index;
  return i < (uint64_t) (in - 1) ? (size_t) i : in - 1;
}

static enum q8nn_status setup_resize(q8nn_operator_t op, int u8, size_t batch_size, size_t input_height,
                                     size_t input_width, const void* input, size_t input_pixel_stride, void* output,
                                     size_t output_pixel_stride, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_resize || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s resize operator", u8 ? "uint8" : "int8");
  }
  op->is_setup = 0;
  struct resize_state* s = op->resize_state;
  const size_t channels = s->channels, output_height = s->output_height, output_width = s->output_width;
  if (input == NULL || output == NULL || batch_size == 0 || input_height == 0 || input_width == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "NULL buffer or zero size");
  }
  if (input_pixel_stride < channels || output_pixel_stride < channels) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "pixel strides below %zu channels", channels);
  }
  if ((uint64_t) input_height > Q8NN_RESIZE_MAX_SIZE || (uint64_t) input_width > Q8NN_RESIZE_MAX_SIZE ||
      (uint64_t) output_height > Q8NN_RESIZE_MAX_SIZE || (uint64_t) output_width > Q8NN_RESIZE_MAX_SIZE) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "a height or width above 2^52");
  }
  size_t in_pixels, out_pixels;
  if (!q8nn_mul_sz(batch_size, input_height, &in_pixels) || !q8nn_mul_sz(in_pixels, input_width, &in_pixels) ||
      !q8nn_mul_sz(batch_size, output_height, &out_pixels) || !q8nn_mul_sz(out_pixels, output_width, &out_pixels) ||
      !q8nn_extent_fits(input, in_pixels, channels, input_pixel_stride) ||
      !q8nn_extent_fits(output, out_pixels, channels, output_pixel_stride)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "the tensors' extent overflows the address space");
  }
  if (s->columns == NULL) {
    /* the output size is fixed at create: one table serves every setup */
    size_t bytes;
    if (q8nn_mul_sz(output_width, sizeof(struct q8nn_resize_column), &bytes)) s->columns = malloc(bytes);
    if (s->columns == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "column table allocation failed");
  }
  if (s->mode == q8nn_resize_bilinear) {
    s->height_step = bilinear_step(input_height, output_height, s->align_corners);
    const int64_t width_step = bilinear_step(input_width, output_width, s->align_corners);
    for (size_t ox = 0; ox < output_width; ox++) {
      size_t x0, x1;
      int32_t weight;
      bilinear_source(ox, width_step, s->half_pixel_centers, input_width, &x0, &x1, &weight);
      s->columns[ox].left = x0 * input_pixel_stride;
      s->columns[ox].right = x1 * input_pixel_stride;
      s->columns[ox].weight = weight;
    }
  } else {
    s->height_scale = nearest_scale(input_height, output_height, s->align_corners);
    const float width_scale = nearest_scale(input_width, output_width, s->align_corners);
    for (size_t ox = 0; ox < output_width; ox++) {
      const size_t x = nearest_source(ox, width_scale, s->align_corners, s->half_pixel_centers, input_width);
      s->columns[ox].left = s->columns[ox].right = x * input_pixel_stride;
      s->columns[ox].weight = 0;
    }
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
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_resize2d_nhwc_s8(q8nn_operator_t resize, size_t batch_size, size_t input_height,
                                             size_t input_width, const int8_t* input, size_t input_pixel_stride,
                                             int8_t* output, size_t output_pixel_stride) {
  return setup_resize(resize, 0, batch_size, input_height, input_width, input, input_pixel_stride, output,
                      output_pixel_stride, __func__);
}

enum q8nn_status q8nn_setup_resize2d_nhwc_u8(q8nn_operator_t resize, size_t batch_size, size_t input_height,
                                             size_t input_width, const uint8_t* input, size_t input_pixel_stride,
                                             uint8_t* output, size_t output_pixel_stride) {
  return setup_resize(resize, 1, batch_size, input_height, input_width, input, input_pixel_stride, output,
                      output_pixel_stride, __func__);
}

/* Output rows [row0, row0 + count) (rows numbered over batch x output height); one 2D tile. */
static void resize_task(void* context, size_t unused, size_t row0, size_t count) {
  (void) unused;
  const struct q8nn_operator* op = context;
  const struct resize_state* s = op->resize_state;
  const struct q8nn_resize_column* columns = s->columns;
  const size_t channels = s->channels, output_width = op->output_width;
  const size_t row_stride = op->input_width * op->input_pixel_stride, out_stride = op->output_pixel_stride;
  const uint8_t flip = op->u8 ? 0x80 : 0;
  const q8nn_ibilinear_row_fn bilinear_row = s->bilinear_row;
  for (size_t row = row0; row < row0 + count; row++) {
    const size_t n = row / op->output_height, oy = row % op->output_height;
    const uint8_t* image = (const uint8_t*) op->input + n * op->input_height * row_stride;
    uint8_t* out = (uint8_t*) op->output + row * output_width * out_stride;
    if (s->mode == q8nn_resize_nearest) {
      const uint8_t* source =
          image + nearest_source(oy, s->height_scale, s->align_corners, s->half_pixel_centers, op->input_height) *
                      row_stride;
      for (size_t ox = 0; ox < output_width; ox++) memcpy(out + ox * out_stride, source + columns[ox].left, channels);
    } else {
      size_t y0, y1;
      int32_t fy;
      bilinear_source(oy, s->height_step, s->half_pixel_centers, op->input_height, &y0, &y1, &fy);
      bilinear_row(image + y0 * row_stride, image + y1 * row_stride, columns, output_width, fy, channels, flip, out,
                   out_stride);
    }
  }
}

/* Resizes writing fewer bytes run on the calling thread. */
#define Q8NN_RESIZE_MIN_PARALLEL_BYTES ((size_t) 1 << 16)

static size_t resize_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const struct resize_state* s = op->resize_state;
  const size_t rows = op->batch_size * op->output_height;
  const size_t bytes = rows * op->output_width * s->channels;
  const int caller_only = !in_region && bytes < Q8NN_RESIZE_MIN_PARALLEL_BYTES;
  if (caller_only) threads = 1;
  const size_t tile = q8nn_max_sz(1, rows / (threads * 4));
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) resize_task, op, 1, 1, 1, rows, 1, tile);
  works[0].caller_only = caller_only;
  return 1;
}

static void resize_span(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end) {
  const struct resize_state* s = op->resize_state;
  const size_t pixels = op->batch_size * (output ? op->output_height * op->output_width
                                                 : op->input_height * op->input_width);
  const size_t stride = output ? op->output_pixel_stride : op->input_pixel_stride;
  *begin = output ? (uintptr_t) op->output : (uintptr_t) op->input;
  *end = *begin + (pixels - 1) * stride + s->channels;
}

static void resize_release(struct q8nn_operator* op) {
  struct resize_state* s = op->resize_state;
  if (s != NULL) free(s->columns);
  free(s);
  op->resize_state = NULL;
}

static const struct q8nn_operator_class q8nn_resize_class = {resize_works, resize_span, resize_release};
