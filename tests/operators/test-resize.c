/*
 * Resize 2D (nearest and bilinear) through the public API against the reference (TFLite's
 * ResizeNearestNeighbor and ResizeBilinearInteger, tests/reference/reference-resize.c): sweeps of
 * shapes (2x upsampling, downsampling, odd ratios, 1x1 inputs and outputs, the identity) and
 * channel counts, both modes, the three flag settings, int8 and uint8, every ISA mask, every pool,
 * pixel strides with gaps that must stay untouched; TFLite's own int8 test vectors; re-setups of
 * one operator and lists of operators; and the documented refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <q8nn.h>

#include "reference/reference-resize.h"
#include "testers/test-util.h"

struct resize_case {
  int bilinear, u8;
  uint32_t flags;
  size_t batch, in_h, in_w, channels, out_h, out_w, in_stride, out_stride;
};

static const uint32_t flag_settings[3] = {0, Q8NN_FLAG_ALIGN_CORNERS, Q8NN_FLAG_HALF_PIXEL_CENTERS};

static q8nn_operator_t create_case(const struct resize_case* c) {
  const enum q8nn_resize_mode mode = c->bilinear ? q8nn_resize_bilinear : q8nn_resize_nearest;
  q8nn_operator_t op = NULL;
  const enum q8nn_status status =
      c->u8 ? q8nn_create_resize2d_nhwc_u8(mode, c->channels, c->out_h, c->out_w, c->flags, &op)
            : q8nn_create_resize2d_nhwc_s8(mode, c->channels, c->out_h, c->out_w, c->flags, &op);
  assert_int_equal(status, q8nn_status_success);
  return op;
}

static enum q8nn_status setup_case(q8nn_operator_t op, const struct resize_case* c, const int8_t* input,
                                   int8_t* output) {
  return c->u8 ? q8nn_setup_resize2d_nhwc_u8(op, c->batch, c->in_h, c->in_w, (const uint8_t*) input, c->in_stride,
                                             (uint8_t*) output, c->out_stride)
               : q8nn_setup_resize2d_nhwc_s8(op, c->batch, c->in_h, c->in_w, input, c->in_stride, output,
                                             c->out_stride);
}

/* The input of a case: dense int8 values for the reference and the operator's strided bytes
   (uint8: flipped), gap bytes 0x11. */
static void make_input(const struct resize_case* c, int8_t* dense, int8_t* input) {
  const size_t pixels = c->batch * c->in_h * c->in_w;
  test_fill_s8(dense, pixels * c->channels);
  memset(input, 0x11, pixels * c->in_stride);
  for (size_t p = 0; p < pixels; p++) {
    for (size_t k = 0; k < c->channels; k++) {
      input[p * c->in_stride + k] = (int8_t) ((uint8_t) dense[p * c->channels + k] ^ (c->u8 ? 0x80 : 0));
    }
  }
}

/* Compares the operator's strided output with the dense reference: every channel byte equal
   (uint8: flipped), every gap byte and the byte after the last pixel the guard. */
static int check_output(const struct resize_case* c, const int8_t* expected, const int8_t* output, const char* what) {
  const size_t pixels = c->batch * c->out_h * c->out_w;
  for (size_t p = 0; p < pixels; p++) {
    for (size_t k = 0; k < c->out_stride; k++) {
      const int8_t got = output[p * c->out_stride + k];
      const int8_t want = k < c->channels ? (int8_t) ((uint8_t) expected[p * c->channels + k] ^ (c->u8 ? 0x80 : 0))
                                          : TEST_GUARD_BYTE;
      if (got != want) {
        fprintf(stderr,
                "FAIL %s %s flags 0x%x: %zu x %zux%zu -> %zux%zu, %zu channels, strides %zu/%zu (%s): pixel %zu "
                "byte %zu is %d, want %d\n",
                c->bilinear ? "bilinear" : "nearest", c->u8 ? "u8" : "s8", (unsigned) c->flags, c->batch,
                c->in_h, c->in_w, c->out_h, c->out_w, c->channels, c->in_stride, c->out_stride, what, p, k, got, want);
        return 1;
      }
    }
  }
  return output[pixels * c->out_stride] != TEST_GUARD_BYTE;
}

static int run_case(const struct resize_case* c, size_t pool_index, const char* mask) {
  const size_t in_pixels = c->batch * c->in_h * c->in_w, out_pixels = c->batch * c->out_h * c->out_w;
  int8_t* dense = malloc(in_pixels * c->channels);
  int8_t* input = malloc(in_pixels * c->in_stride);
  int8_t* expected = malloc(out_pixels * c->channels);
  int8_t* output = malloc(out_pixels * c->out_stride + 16);
  make_input(c, dense, input);
  ref_resize_s8(c->bilinear, (c->flags & Q8NN_FLAG_ALIGN_CORNERS) != 0, (c->flags & Q8NN_FLAG_HALF_PIXEL_CENTERS) != 0,
                c->batch, c->in_h, c->in_w, c->channels, c->out_h, c->out_w, dense, expected);
  memset(output, TEST_GUARD_BYTE, out_pixels * c->out_stride + 16);
  q8nn_operator_t op = create_case(c);
  assert_int_equal(setup_case(op, c, input, output), q8nn_status_success);
  const enum q8nn_status status = pool_index < TEST_NUM_THREADPOOLS
                                      ? q8nn_run_operator(op, test_threadpool(pool_index))
                                      : q8nn_run_operator_on(op, test_host_pool(pool_index - TEST_NUM_THREADPOOLS));
  assert_int_equal(status, q8nn_status_success);
  char what[64];
  snprintf(what, sizeof(what), "%s, pool %zu", mask, pool_index);
  const int failures = check_output(c, expected, output, what);
  q8nn_delete_operator(op);
  free(dense), free(input), free(expected), free(output);
  return failures;
}

/* Fixed shapes {in_h, in_w, out_h, out_w}, each with every channel count, mode, flag setting and
   type: 2x up and down, odd ratios both ways, 1x1 in and out, the identity, TFLite's 2x2 -> 4x6, a
   single row or pixel stretched to 65 and 70 rows (where TFLite's bilinear lower index passes the
   image, see reference-resize.h), and outputs large enough to run on several threads. */
static void test_resize_shapes(void** state) {
  (void) state;
  static const size_t shapes[][4] = {
      {4, 4, 8, 8},   {3, 5, 6, 10}, {8, 8, 4, 4},  {9, 7, 4, 3},    {5, 7, 3, 11},   {1, 1, 1, 1},   {1, 1, 5, 4},
      {6, 5, 1, 1},   {3, 3, 7, 5},  {2, 2, 4, 6},  {7, 13, 7, 13},  {12, 10, 5, 17}, {1, 2, 65, 3},  {1, 1, 70, 2},
      {2, 1, 70, 65}, {5, 3, 2, 9},  {16, 1, 3, 1}, {32, 24, 64, 48}, {40, 40, 27, 31},
  };
  static const size_t channel_counts[] = {1, 3, 16, 45, 64};
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  size_t cases = 0, runs = 0;
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]) && failures == 0; s++) {
    for (size_t k = 0; k < 5; k++) {
      for (int variant = 0; variant < 12; variant++) {
        struct resize_case c;
        c.bilinear = variant % 2;
        c.u8 = (variant / 2) % 2;
        c.flags = flag_settings[variant / 4];
        c.batch = 1 + (s + k + (size_t) variant) % 3;
        c.in_h = shapes[s][0], c.in_w = shapes[s][1], c.out_h = shapes[s][2], c.out_w = shapes[s][3];
        c.channels = channel_counts[k];
        c.in_stride = c.channels + (variant % 3 == 0 ? 1 + test_rand() % 5 : 0);
        c.out_stride = c.channels + (variant % 5 == 1 ? 1 + test_rand() % 5 : 0);
        cases++;
        for (size_t m = 0; m < num_masks; m++) {
          q8nn_set_isa_mask(masks[m]);
          failures += run_case(&c, (s + k + (size_t) variant + m) % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS),
                               test_isa_name(masks[m]));
          runs++;
        }
      }
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  printf("resize: %zu shape cases, %zu runs\n", cases, runs);
  assert_int_equal(failures, 0);
}

/* Random shapes from 1 to 16 pixels a side, random channel counts, strides and batches. */
static void test_resize_random(void** state) {
  (void) state;
  static const size_t channel_counts[] = {1, 2, 3, 5, 8, 16, 17, 32, 45, 64, 100};
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  for (size_t i = 0; i < 300 && failures == 0; i++) {
    struct resize_case c;
    c.bilinear = (int) (i % 2);
    c.u8 = (int) ((i / 2) % 2);
    c.flags = flag_settings[(i / 4) % 3];
    c.batch = 1 + test_rand() % 3;
    c.in_h = 1 + test_rand() % 16;
    c.in_w = 1 + test_rand() % 16;
    c.out_h = 1 + test_rand() % 16;
    c.out_w = 1 + test_rand() % 16;
    c.channels = channel_counts[test_rand() % (sizeof(channel_counts) / sizeof(channel_counts[0]))];
    c.in_stride = c.channels + (i % 3 == 0 ? test_rand() % 7 : 0);
    c.out_stride = c.channels + (i % 4 == 0 ? test_rand() % 7 : 0);
    const size_t m = i % num_masks;
    q8nn_set_isa_mask(masks[m]);
    failures += run_case(&c, i % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS), test_isa_name(masks[m]));
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

/* One int8 resize of a dense input, checked against expected bytes, through the reference and the
   operator. */
static void expect_s8(int bilinear, uint32_t flags, size_t batch, size_t in_h, size_t in_w, size_t channels,
                      size_t out_h, size_t out_w, const int8_t* in, const int8_t* want) {
  const size_t n = batch * out_h * out_w * channels;
  int8_t ref[512], out[512];
  assert_true(n <= sizeof(out));
  ref_resize_s8(bilinear, (flags & Q8NN_FLAG_ALIGN_CORNERS) != 0, (flags & Q8NN_FLAG_HALF_PIXEL_CENTERS) != 0, batch,
                in_h, in_w, channels, out_h, out_w, in, ref);
  assert_memory_equal(ref, want, n);
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(bilinear ? q8nn_resize_bilinear : q8nn_resize_nearest, channels, out_h,
                                                out_w, flags, &op),
                   q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, batch, in_h, in_w, in, channels, out, channels),
                   q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  assert_memory_equal(out, want, n);
  q8nn_delete_operator(op);
}

/* TFLite's own expectations. */
static void test_resize_tflite_vectors(void** state) {
  (void) state;
  /* tensorflow/lite/kernels/internal/resize_bilinear_test.cc, TestResizeBilinearHalfPixelCenters_
     2x2to4x6_Int8: reference_ops::ResizeBilinearInteger on {127, -128, 64, 0}, exact. */
  static const int8_t bilinear_in[4] = {127, -128, 64, 0};
  static const int8_t bilinear_default[24] = {127, 42, -43, -128, -128, -128, 96, 42, -11, -64, -64, -64,
                                              64,  43, 21,  0,    0,    0,    64, 43, 21,  0,   0,   0};
  static const int8_t bilinear_half_pixel[24] = {127, 127, 42, -43, -128, -128, 111, 111, 42, -27, -96, -96,
                                                 80,  80,  43, 5,   -32,  -32,  64,  64,  43, 21,  0,   0};
  expect_s8(1, 0, 1, 2, 2, 1, 4, 6, bilinear_in, bilinear_default);
  expect_s8(1, Q8NN_FLAG_HALF_PIXEL_CENTERS, 1, 2, 2, 1, 4, 6, bilinear_in, bilinear_half_pixel);

  /* tensorflow/lite/kernels/resize_nearest_neighbor_test.cc, TwoDimensionalResizeWithTwoBatchesInt8
     and ThreeDimensionalResizeInt8 (int8), and TwoDimensionalResizeWithTwoBatches_AlignCorners and
     _HalfPixelCenters (float inputs that are small integers: nearest copies values, whatever their
     type, through one index computation). */
  static const int8_t two_batches_in[8] = {3, 6, 9, -12, -4, 10, 12, 16};
  static const int8_t two_batches_out[18] = {3, 3, 6, 3, 3, 6, 9, 9, -12, -4, -4, 10, -4, -4, 10, 12, 12, 16};
  expect_s8(0, 0, 2, 2, 2, 1, 3, 3, two_batches_in, two_batches_out);
  static const int8_t three_d_in[8] = {3, 4, -6, 10, 10, 12, -14, 16};
  static const int8_t three_d_out[18] = {3, 4, 3, 4, -6, 10, 3, 4, 3, 4, -6, 10, 10, 12, 10, 12, -14, 16};
  expect_s8(0, 0, 1, 2, 2, 2, 3, 3, three_d_in, three_d_out);
  static const int8_t corners_in[8] = {3, 6, 9, 12, 4, 10, 10, 16};
  static const int8_t corners_out[18] = {3, 6, 6, 9, 12, 12, 9, 12, 12, 4, 10, 10, 10, 16, 16, 10, 16, 16};
  expect_s8(0, Q8NN_FLAG_ALIGN_CORNERS, 2, 2, 2, 1, 3, 3, corners_in, corners_out);
  expect_s8(0, Q8NN_FLAG_HALF_PIXEL_CENTERS, 2, 2, 2, 1, 3, 3, corners_in, corners_out);

  /* By hand: one row of two images (10 and -20) stretched to 65 rows. The step is (1024 + 32) / 65
     = 16, the last row's position 64 * 16 = 1024: TFLite's lower index would be row 1, the next
     image's row; clamped, every output row is its own image's row. */
  static const int8_t stretch_in[2] = {10, -20};
  int8_t stretch_out[130];
  memset(stretch_out, 10, 65);
  memset(stretch_out + 65, -20, 65);
  expect_s8(1, 0, 2, 1, 1, 1, 65, 1, stretch_in, stretch_out);
}

/* uint8 is the int8 operator on x - 128, plus 128, and not TFLite's rounding applied to the uint8
   values: halves round away from zero, which depends on the sign. 1x2 -> 1x4 without flags puts
   output 1 at the middle of the two inputs (step 512): int8 {-1, 0} give -1 (-0.5 away from zero),
   so uint8 {127, 128} give 127, where rounding 127.5 would give 128. */
static void test_resize_u8_rounding(void** state) {
  (void) state;
  const uint8_t in[2] = {127, 128};
  uint8_t out[5];
  memset(out, TEST_GUARD_BYTE, sizeof(out));
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_resize2d_nhwc_u8(q8nn_resize_bilinear, 1, 1, 4, 0, &op), q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_u8(op, 1, 1, 2, in, 1, out, 1), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  static const uint8_t want[5] = {127, 127, 128, 128, (uint8_t) TEST_GUARD_BYTE};
  assert_memory_equal(out, want, sizeof(want));
  q8nn_delete_operator(op);
  const int8_t s8_in[2] = {-1, 0};
  static const int8_t s8_want[4] = {-1, -1, 0, 0};
  expect_s8(1, 0, 1, 1, 2, 1, 1, 4, s8_in, s8_want);
}

/* One operator set up again and again with other input sizes, strides and buffers (its column
   table is rebuilt for each), and run on every pool; then two resizes in one list, the second
   reading the first's output. */
static void test_resize_resetup_and_lists(void** state) {
  (void) state;
  int failures = 0;
  for (int bilinear = 0; bilinear < 2; bilinear++) {
    for (size_t f = 0; f < 3; f++) {
      struct resize_case c = {bilinear, (int) f % 2, flag_settings[f], 1, 0, 0, 24, 9, 14, 0, 0};
      q8nn_operator_t op = create_case(&c);
      for (size_t i = 0; i < 12 && failures == 0; i++) {
        c.batch = 1 + i % 3;
        c.in_h = 1 + test_rand() % 20;
        c.in_w = 1 + test_rand() % 20;
        c.in_stride = c.channels + test_rand() % 4;
        c.out_stride = c.channels + test_rand() % 4;
        const size_t in_pixels = c.batch * c.in_h * c.in_w, out_pixels = c.batch * c.out_h * c.out_w;
        int8_t* dense = malloc(in_pixels * c.channels);
        int8_t* input = malloc(in_pixels * c.in_stride);
        int8_t* expected = malloc(out_pixels * c.channels);
        int8_t* output = malloc(out_pixels * c.out_stride + 16);
        make_input(&c, dense, input);
        ref_resize_s8(bilinear, f == 1, f == 2, c.batch, c.in_h, c.in_w, c.channels, c.out_h, c.out_w, dense,
                      expected);
        memset(output, TEST_GUARD_BYTE, out_pixels * c.out_stride + 16);
        assert_int_equal(setup_case(op, &c, input, output), q8nn_status_success);
        const size_t pool = i % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS);
        const enum q8nn_status status = pool < TEST_NUM_THREADPOOLS
                                            ? q8nn_run_operator(op, test_threadpool(pool))
                                            : q8nn_run_operator_on(op, test_host_pool(pool - TEST_NUM_THREADPOOLS));
        assert_int_equal(status, q8nn_status_success);
        failures += check_output(&c, expected, output, "re-setup");
        free(dense), free(input), free(expected), free(output);
      }
      q8nn_delete_operator(op);
    }
  }
  assert_int_equal(failures, 0);

  /* a list: 20x16 -> 40x32 (bilinear, half pixel centers) -> 13x11 (nearest), 32 channels */
  const size_t channels = 32;
  int8_t* input = malloc(20 * 16 * channels);
  int8_t* middle = malloc(40 * 32 * channels);
  int8_t* output = malloc(13 * 11 * channels);
  int8_t* want_middle = malloc(40 * 32 * channels);
  int8_t* want = malloc(13 * 11 * channels);
  test_fill_s8(input, 20 * 16 * channels);
  ref_resize_s8(1, 0, 1, 1, 20, 16, channels, 40, 32, input, want_middle);
  ref_resize_s8(0, 0, 0, 1, 40, 32, channels, 13, 11, want_middle, want);
  q8nn_operator_t ops[2] = {NULL, NULL};
  assert_int_equal(
      q8nn_create_resize2d_nhwc_s8(q8nn_resize_bilinear, channels, 40, 32, Q8NN_FLAG_HALF_PIXEL_CENTERS, &ops[0]),
      q8nn_status_success);
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_nearest, channels, 13, 11, 0, &ops[1]),
                   q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(ops[0], 1, 20, 16, input, channels, middle, channels),
                   q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(ops[1], 1, 40, 32, middle, channels, output, channels),
                   q8nn_status_success);
  for (size_t pool = 0; pool < TEST_NUM_THREADPOOLS; pool++) {
    memset(middle, 0, 40 * 32 * channels);
    memset(output, 0, 13 * 11 * channels);
    assert_int_equal(q8nn_run_operators(2, ops, test_threadpool(pool)), q8nn_status_success);
    assert_memory_equal(middle, want_middle, 40 * 32 * channels);
    assert_memory_equal(output, want, 13 * 11 * channels);
  }
  q8nn_delete_operator(ops[0]);
  q8nn_delete_operator(ops[1]);
  free(input), free(middle), free(output), free(want_middle), free(want);
}

static void test_resize_refusals(void** state) {
  (void) state;
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_nearest, 8, 4, 4, 0, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_s8((enum q8nn_resize_mode) 0, 8, 4, 4, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_u8((enum q8nn_resize_mode) 3, 8, 4, 4, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_bilinear, 0, 4, 4, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_bilinear, 8, 0, 4, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_u8(q8nn_resize_bilinear, 8, 4, 0, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_bilinear, 8, 4, 4,
                                                Q8NN_FLAG_ALIGN_CORNERS | Q8NN_FLAG_HALF_PIXEL_CENTERS, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_nearest, 8, 4, 4, 0x1, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_resize2d_nhwc_u8(q8nn_resize_nearest, 8, 4, 4, Q8NN_FLAG_ALIGN_CORNERS | 0x20, &op),
                   q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);

  assert_int_equal(q8nn_create_resize2d_nhwc_s8(q8nn_resize_bilinear, 8, 4, 4, 0, &op), q8nn_status_success);
  int8_t input[256], output[256];
  memset(input, 1, sizeof(input));
  memset(output, TEST_GUARD_BYTE, sizeof(output));
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, NULL, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 8, NULL, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 0, 2, 2, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 0, 2, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 0, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 7, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 8, output, 7), q8nn_status_invalid_parameter);
  /* extents that wrap the address space (16 pixels SIZE_MAX / 8 apart) */
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 4, 4, input, SIZE_MAX / 8, output, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 8, output, SIZE_MAX / 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, SIZE_MAX / 2, 2, 2, input, 8, output, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, SIZE_MAX, 2, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, SIZE_MAX, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  /* the uint8 setup on an int8 operator, and the other types' setups on a resize */
  assert_int_equal(q8nn_setup_resize2d_nhwc_u8(op, 1, 2, 2, (const uint8_t*) input, 8, (uint8_t*) output, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_pooling2d_nhwc_s8(op, 1, 2, 2, input, 8, output, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  /* a good setup, then a failed one: the operator is not set up any more */
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 8, output, 8), q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 4, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_run_operators(1, &op, NULL), q8nn_status_invalid_state);
  for (size_t i = 0; i < sizeof(output); i++) assert_int_equal(output[i], TEST_GUARD_BYTE);
  q8nn_delete_operator(op);

  /* a resize setup on a pooling operator, and an int8 setup on a uint8 resize */
  const struct q8nn_pooling2d_desc desc = {0, 0, 0, 0, 2, 2, 2, 2, 8};
  assert_int_equal(q8nn_create_max_pooling2d_nhwc_s8(&desc, -128, 127, 0, &op), q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 8, output, 8), q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
  assert_int_equal(q8nn_create_resize2d_nhwc_u8(q8nn_resize_nearest, 8, 4, 4, 0, &op), q8nn_status_success);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(op, 1, 2, 2, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_resize2d_nhwc_s8(NULL, 1, 2, 2, input, 8, output, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  for (size_t i = 0; i < sizeof(output); i++) assert_int_equal(output[i], TEST_GUARD_BYTE);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resize_tflite_vectors),
      cmocka_unit_test(test_resize_u8_rounding),
      cmocka_unit_test(test_resize_shapes),
      cmocka_unit_test(test_resize_random),
      cmocka_unit_test(test_resize_resetup_and_lists),
      cmocka_unit_test(test_resize_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
