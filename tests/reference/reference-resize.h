/*
 * Naive reference for the int8 resize operators (q8nn_create_resize2d_nhwc_s8), one element at a
 * time, written from TFLite's reference kernels' arithmetic, independently of src/ (nothing here
 * reads or includes src/):
 *  - nearest: tensorflow/lite/kernels/internal/reference/resize_nearest_neighbor.h,
 *    GetNearestNeighbor and ResizeNearestNeighbor (float scale, floor, or TfLiteRound = roundf with
 *    align_corners, clamped to the image).
 *  - bilinear: tensorflow/lite/kernels/internal/reference/resize_bilinear.h,
 *    ComputeInterpolationValuesInteger and ResizeBilinearInteger, which resize_bilinear.cc runs for
 *    int8 with kernel_type kReference: 10-bit fixed point positions, the sum of the four products
 *    in int64 rounded half away from zero at bit 20 (TFLite's default, TFLITE_SINGLE_ROUNDING
 *    unset).
 * Two departures, both where TFLite's own arithmetic is undefined: positions are computed in int64
 * (TFLite's int32 products overflow only for sizes beyond its int32 tensors), and the bilinear
 * lower index is clamped to the last row or column. TFLite leaves it unclamped: when its rounded
 * step times (out - 1) reaches 1024 * in (1 row resized to 65: step 16, position 1024), it reads
 * one row past the image. The clamped index gives the last row with TFLite's weights, whose two
 * products add to that row's value times 1024.
 */
#ifndef Q8NN_TESTS_REFERENCE_RESIZE_H
#define Q8NN_TESTS_REFERENCE_RESIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Resizes `batch` dense NHWC images of in_h x in_w pixels of `channels` int8 values to out_h x
 * out_w (dense). bilinear: 1 ResizeBilinearInteger, 0 ResizeNearestNeighbor. align_corners and
 * half_pixel_centers as TFLite's options (not both).
 */
void ref_resize_s8(int bilinear, int align_corners, int half_pixel_centers, size_t batch, size_t in_h, size_t in_w,
                   size_t channels, size_t out_h, size_t out_w, const int8_t* in, int8_t* out);

#ifdef __cplusplus
}
#endif

#endif /* Q8NN_TESTS_REFERENCE_RESIZE_H */
