/*
 * The loop of the max pooling row kernels (ukernel.h, q8nn_maxpool_row_ukernel_fn) over one block
 * of channels, written once for every vector line. The including file defines first:
 *   q8nn_pool_vec                              its vector type;
 *   struct q8nn_pool_block                     what a block needs beside its pointers (active lanes,
 *                                              the clamp, whether bytes are uint8);
 *   q8nn_pool_column(p, rows, row_stride, b)   the maximum of one input column's `rows` pixels;
 *   q8nn_pool_max(x, y, b)                     the lane maximum;
 *   q8nn_pool_store(o, m, b)                   the clamped store of one output pixel;
 *   q8nn_pool_block_init(b, params, u8)        the block's clamp (and uint8 flag) for the call;
 *   q8nn_pool_block_lanes(b, remaining)        sets up the next block of at most `remaining`
 *                                              channels and returns its width, or 0 where the
 *                                              remaining channels are for the portable kernel;
 * then defines the line's kernel with Q8NN_DEFINE_MAXPOOL_ROW_UKERNEL(name). All is inlined. 3x3 stride 2 shares the last column of a window
 * with the next window (6 loads an output instead of 9), 3x3 stride 1 loads one new column an
 * output; other windows load each of their columns.
 */
#ifndef Q8NN_KERNELS_MAXPOOL_ROW_H
#define Q8NN_KERNELS_MAXPOOL_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "kernel-decls.h"

static inline __attribute__((always_inline)) void q8nn_maxpool_row_block(
    const int8_t* p, int8_t* o, size_t rows, size_t kernel_width, size_t stride_width, size_t outputs,
    size_t row_stride, size_t pixel_stride, size_t output_pixel_stride, const struct q8nn_pool_block* b) {
  const size_t step = stride_width * pixel_stride;
  if (kernel_width == 3 && stride_width == 2) {
    q8nn_pool_vec shared = q8nn_pool_column(p, rows, row_stride, b);
    for (size_t i = 0; i < outputs; i++, p += step, o += output_pixel_stride) {
      const q8nn_pool_vec middle = q8nn_pool_column(p + pixel_stride, rows, row_stride, b);
      const q8nn_pool_vec last = q8nn_pool_column(p + 2 * pixel_stride, rows, row_stride, b);
      q8nn_pool_store(o, q8nn_pool_max(shared, q8nn_pool_max(middle, last, b), b), b);
      shared = last;
    }
  } else if (kernel_width == 3 && stride_width == 1) {
    q8nn_pool_vec first_column = q8nn_pool_column(p, rows, row_stride, b);
    q8nn_pool_vec second_column = q8nn_pool_column(p + pixel_stride, rows, row_stride, b);
    for (size_t i = 0; i < outputs; i++, p += step, o += output_pixel_stride) {
      const q8nn_pool_vec third_column = q8nn_pool_column(p + 2 * pixel_stride, rows, row_stride, b);
      q8nn_pool_store(o, q8nn_pool_max(first_column, q8nn_pool_max(second_column, third_column, b), b), b);
      first_column = second_column;
      second_column = third_column;
    }
  } else {
    for (size_t i = 0; i < outputs; i++, p += step, o += output_pixel_stride) {
      q8nn_pool_vec m = q8nn_pool_column(p, rows, row_stride, b);
      for (size_t x = 1; x < kernel_width; x++) {
        m = q8nn_pool_max(m, q8nn_pool_column(p + x * pixel_stride, rows, row_stride, b), b);
      }
      q8nn_pool_store(o, m, b);
    }
  }
}

/* The channels a line has no block for (fewer than its vector), pixel by pixel: kept out of line. */
static __attribute__((noinline, unused)) void q8nn_maxpool_row_rest(const int8_t* first, size_t rows,
                                                                    size_t kernel_width, size_t step, size_t outputs,
                                                                    size_t row_stride, size_t pixel_stride,
                                                                    size_t channels, int8_t* out,
                                                                    size_t output_pixel_stride,
                                                                    const struct q8nn_pool_params* params) {
  for (size_t i = 0; i < outputs; i++) {
    q8nn_s8_maxpool_ukernel__scalar(first + i * step, rows, kernel_width, row_stride, pixel_stride, channels,
                                    out + i * output_pixel_stride, params);
  }
}

/* The row over every channel: blocks as wide as the line takes them, the rest (channels the line
   has no block for) by the portable pixel kernel. u8 is a constant at each call. */
static inline __attribute__((always_inline)) void q8nn_maxpool_row_channels(
    const int8_t* first, size_t rows, size_t kernel_width, size_t stride_width, size_t outputs, size_t row_stride,
    size_t pixel_stride, size_t channels, int8_t* out, size_t output_pixel_stride,
    const struct q8nn_pool_params* params, const int u8) {
  struct q8nn_pool_block b;
  q8nn_pool_block_init(&b, params, u8);
  size_t c = 0;
  while (c < channels) {
    const size_t lanes = q8nn_pool_block_lanes(&b, channels - c);
    if (lanes == 0) break;
    q8nn_maxpool_row_block(first + c, out + c, rows, kernel_width, stride_width, outputs, row_stride, pixel_stride,
                           output_pixel_stride, &b);
    c += lanes;
  }
  if (c != channels) {
    q8nn_maxpool_row_rest(first + c, rows, kernel_width, stride_width * pixel_stride, outputs, row_stride,
                          pixel_stride, channels - c, out + c, output_pixel_stride, params);
  }
}

/* The line's row kernel (q8nn_maxpool_row_ukernel_fn): the loop compiled once for int8 and once for
   uint8 bytes. */
#define Q8NN_DEFINE_MAXPOOL_ROW_UKERNEL(name)                                                                  \
  void name(const int8_t* first, size_t rows, size_t kernel_width, size_t stride_width, size_t outputs,         \
            size_t row_stride, size_t pixel_stride, size_t channels, int8_t* out, size_t output_pixel_stride,   \
            const struct q8nn_pool_params* params) {                                                            \
    if (params->flip) {                                                                                         \
      q8nn_maxpool_row_channels(first, rows, kernel_width, stride_width, outputs, row_stride, pixel_stride,      \
                                channels, out, output_pixel_stride, params, 1);                                  \
    } else {                                                                                                    \
      q8nn_maxpool_row_channels(first, rows, kernel_width, stride_width, outputs, row_stride, pixel_stride,      \
                                channels, out, output_pixel_stride, params, 0);                                  \
    }                                                                                                           \
  }

#endif
