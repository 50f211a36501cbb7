/*
 * One row of TFLite's bilinear resize (ukernel.h, q8nn_ibilinear_row_fn), portable: for each
 * output pixel the top-left, top-right, bottom-left and bottom-right source pixels of its column,
 * the right weight fx and the bottom weight fy, bytes flipped by `flip` on load and store. top and
 * bottom are below 2^17 in magnitude and their blend below 2^27: int32 throughout. (top * (1024 -
 * fy) + bottom * fy is TFLite's sum of four products, regrouped.) The vector lines' kernels give
 * the same bytes (x8-ibilinear-*.c).
 */
#include "kernel-decls.h"

void q8nn_x8_ibilinear_row__portable(const uint8_t* top, const uint8_t* bottom,
                                     const struct q8nn_resize_column* columns, size_t output_width, int32_t fy,
                                     size_t channels, uint8_t flip, uint8_t* out, size_t out_stride) {
  const int32_t gy = 1024 - fy;
  for (size_t ox = 0; ox < output_width; ox++, out += out_stride) {
    const uint8_t* tl = top + columns[ox].left;
    const uint8_t* tr = top + columns[ox].right;
    const uint8_t* bl = bottom + columns[ox].left;
    const uint8_t* br = bottom + columns[ox].right;
    const int32_t fx = columns[ox].weight, gx = 1024 - fx;
    for (size_t c = 0; c < channels; c++) {
      const int32_t t = (int8_t) (tl[c] ^ flip) * gx + (int8_t) (tr[c] ^ flip) * fx;
      const int32_t b = (int8_t) (bl[c] ^ flip) * gx + (int8_t) (br[c] ^ flip) * fx;
      const int32_t sum = t * gy + b * fy;
      const int32_t magnitude = sum < 0 ? -sum : sum;
      const int32_t rounded = (magnitude + (1 << 19)) >> 20;
      out[c] = (uint8_t) ((sum < 0 ? -rounded : rounded) ^ flip);
    }
  }
}
