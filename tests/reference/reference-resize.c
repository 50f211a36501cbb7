/*
 * Reference int8 resize, written from tensorflow/lite/kernels/internal/reference/
 * resize_nearest_neighbor.h (GetNearestNeighbor, ResizeNearestNeighbor) and resize_bilinear.h
 * (ComputeInterpolationValuesInteger, ResizeBilinearInteger); not from q8nn's src/. See
 * reference-resize.h.
 */
#include "reference/reference-resize.h"

#include <math.h>
#include <stdint.h>

/* GetNearestNeighbor: the source index of output index o along an axis. */
static int64_t nearest_index(int64_t o, int64_t in, int64_t out, int align_corners, int half_pixel_centers) {
  const float scale = (align_corners && out > 1) ? (float) (in - 1) / (float) (out - 1) : (float) in / (float) out;
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float position = ((float) o + offset) * scale;
  int64_t value = align_corners ? (int64_t) roundf(position) : (int64_t) floorf(position);
  if (value > in - 1) value = in - 1;
  if (half_pixel_centers && value < 0) value = 0;
  return value;
}

/* ResizeBilinearInteger's 10-bit scale of an axis. */
static int64_t bilinear_scale(int64_t in, int64_t out, int align_corners) {
  int64_t scale = ((1 << 10) * in + out / 2) / out;
  if (align_corners && out > 1) scale = ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
  return scale;
}

/* ComputeInterpolationValuesInteger, with the lower bound also clamped to in - 1 (see the header).
   C's division truncates toward zero, as C++'s does. */
static void bilinear_values(int64_t o, int64_t scale, int half_pixel_centers, int64_t in, int64_t* scaled,
                            int64_t* lower, int64_t* upper) {
  *scaled = half_pixel_centers ? o * scale + scale / 2 - (1 << 9) : o * scale;
  int64_t lo = *scaled / (1 << 10);
  if (lo < 0) lo = 0;
  if (lo > in - 1) lo = in - 1;
  int64_t hi = (*scaled + (1 << 10) - 1) / (1 << 10);
  if (hi > in - 1) hi = in - 1;
  *lower = lo;
  *upper = hi;
}

void ref_resize_s8(int bilinear, int align_corners, int half_pixel_centers, size_t batch, size_t in_h, size_t in_w,
                   size_t channels, size_t out_h, size_t out_w, const int8_t* in, int8_t* out) {
  const int64_t ih = (int64_t) in_h, iw = (int64_t) in_w, oh = (int64_t) out_h, ow = (int64_t) out_w;
  const int64_t depth = (int64_t) channels;
  const int64_t height_scale = bilinear_scale(ih, oh, align_corners);
  const int64_t width_scale = bilinear_scale(iw, ow, align_corners);
  for (int64_t b = 0; b < (int64_t) batch; b++) {
    for (int64_t y = 0; y < oh; y++) {
      for (int64_t x = 0; x < ow; x++) {
        int8_t* o = out + ((b * oh + y) * ow + x) * depth;
        if (!bilinear) {
          const int64_t sy = nearest_index(y, ih, oh, align_corners, half_pixel_centers);
          const int64_t sx = nearest_index(x, iw, ow, align_corners, half_pixel_centers);
          for (int64_t c = 0; c < depth; c++) o[c] = in[((b * ih + sy) * iw + sx) * depth + c];
          continue;
        }
        int64_t input_y, y0, y1, input_x, x0, x1;
        bilinear_values(y, height_scale, half_pixel_centers, ih, &input_y, &y0, &y1);
        bilinear_values(x, width_scale, half_pixel_centers, iw, &input_x, &x0, &x1);
        const int64_t dy = input_y - (1 << 10) * y0, dx = input_x - (1 << 10) * x0;
        for (int64_t c = 0; c < depth; c++) {
          const int64_t ll = (int64_t) in[((b * ih + y0) * iw + x0) * depth + c] * ((1 << 10) - dy) * ((1 << 10) - dx);
          const int64_t lu = (int64_t) in[((b * ih + y1) * iw + x0) * depth + c] * dy * ((1 << 10) - dx);
          const int64_t rl = (int64_t) in[((b * ih + y0) * iw + x1) * depth + c] * ((1 << 10) - dy) * dx;
          const int64_t ru = (int64_t) in[((b * ih + y1) * iw + x1) * depth + c] * dy * dx;
          const int64_t sum = ll + lu + rl + ru;
          const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
          o[c] = (int8_t) ((sum + round) / (1 << 20));
        }
      }
    }
  }
}
