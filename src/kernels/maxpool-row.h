/*
 * The loop of the max pooling row kernels (ukernel.h, q8nn_maxpool_row_ukernel_fn) over one block
 * of channels, written once for every vector line. The including file defines first:
 *   q8nn_pool_vec                              its vector type;
 *   struct q8nn_pool_block                     what a block needs beside its pointers (active lanes,
 *                                              the clamp, whether bytes are uint8);
 *   q8nn_pool_column(p, rows, row_stride, b)   the maximum of one input column's `rows` pixels;
 *   q8nn_pool_max(x, y, b)                     the lane maximum;
 *   q8nn_pool_store(o, m, b)                   the clamped store of one output pixel;
 * and compiles the loop with them, all inlined. 3x3 stride 2 shares the last column of a window
 * with the next window (6 loads an output instead of 9), 3x3 stride 1 loads one new column an
 * output; other windows load each of their columns.
 */
#ifndef Q8NN_KERNELS_MAXPOOL_ROW_H
#define Q8NN_KERNELS_MAXPOOL_ROW_H

#include <stddef.h>
#include <stdint.h>

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

#endif
