/* Max and average pooling of one output pixel, portable (see ukernel.h). */
#include "kernel-decls.h"
#include "requantization.h"

void q8nn_s8_maxpool_ukernel__scalar(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                     size_t pixel_stride, size_t channels, int8_t* out,
                                     const struct q8nn_pool_params* params) {
  const uint8_t flip = params->flip;
  for (size_t c = 0; c < channels; c++) {
    int32_t m = INT8_MIN;
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const int32_t v = (int8_t) ((uint8_t) row[x * pixel_stride] ^ flip);
        m = v > m ? v : m;
      }
    }
    m = m < params->output_min ? params->output_min : m > params->output_max ? params->output_max : m;
    out[c] = (int8_t) ((uint8_t) m ^ flip);
  }
}

void q8nn_s8_avgpool_ukernel__scalar(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                     size_t pixel_stride, size_t channels, int8_t* out,
                                     const struct q8nn_pool_params* params) {
  const uint8_t flip = params->flip;
  const int32_t count = (int32_t) (rows * cols);
  for (size_t c0 = 0; c0 < channels; c0 += 64) {
    const size_t cn = channels - c0 < 64 ? channels - c0 : 64;
    int32_t sums[64] = {0};
    /* the window's pixels in order, 64 channels at a time */
    for (size_t y = 0; y < rows; y++) {
      for (size_t x = 0; x < cols; x++) {
        const int8_t* pixel = first + y * row_stride + x * pixel_stride + c0;
        for (size_t c = 0; c < cn; c++) sums[c] += (int8_t) ((uint8_t) pixel[c] ^ flip);
      }
    }
    for (size_t c = 0; c < cn; c++) out[c0 + c] = q8nn_pool_average_byte(sums[c], count, params);
  }
}
