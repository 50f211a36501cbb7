/*
 * Convolution through the public API, exact against the reference, on every ISA mask and
 * threadpool (see test_conv_run). Sweeps favour breadth over size: the suite also runs under qemu.
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

#include "conv-sweep.h"
#include "testers/test-util.h"

/* Every third case runs on all threadpools, the others on the caller thread and a 1-thread pool:
   a 3-thread pool costs milliseconds per run on a 2-core machine. */
static size_t pools_for(size_t i) { return i % 3 == 0 ? 0 : 2; }

static int run(struct sweep_conv* s, size_t i, const char* name) {
  if (s->num_threadpools == 0) {
    s->num_threadpools = pools_for(i);
  }
  return sweep_conv_run(s, name);
}

static void test_kernel_sizes(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  for (size_t kh = 1; kh <= 5; kh++) {
    for (size_t kw = 1; kw <= 5; kw++, i++) {
      struct sweep_conv s = {
          .in_h = 6, .in_w = 7, .in_c = 3, .out_c = 5, .k_h = kh, .k_w = kw,
          .pad_top = kh / 2, .pad_left = kw / 2, .pad_bottom = (kh - 1) / 2, .pad_right = (kw - 1) / 2,
          .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
      };
      failures += run(&s, i, "kernel_sizes");
    }
  }
  /* 1xN and Nx1 with wide N (conv_1_x_n style) */
  for (size_t n = 6; n <= 9; n++, i++) {
    struct sweep_conv s = {.in_h = 1, .in_w = 12, .in_c = 4, .out_c = 3, .k_h = 1, .k_w = n, .pad_left = 2,
                           .pad_right = 1, .in_zp = -3, .out_zp = 5, .rounding = (int) (n % 3)};
    failures += run(&s, i, "kernel_1xN");
    struct sweep_conv t = {.in_h = 11, .in_w = 2, .in_c = 2, .out_c = 4, .k_h = n, .k_w = 1, .pad_top = 1,
                           .pad_bottom = 3, .in_zp = 7, .out_zp = -9, .rounding = (int) (n % 3)};
    failures += run(&t, i, "kernel_Nx1");
  }
  assert_int_equal(failures, 0);
}

static void test_stride_dilation(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  for (size_t sh = 1; sh <= 3; sh++) {
    for (size_t sw = 1; sw <= 3; sw++) {
      for (size_t d = 1; d <= 3; d++, i++) {
        struct sweep_conv s = {
            .in_h = 9, .in_w = 8, .in_c = 2, .out_c = 3, .k_h = 3, .k_w = 2, .stride_h = sh, .stride_w = sw,
            .dil_h = d, .dil_w = 4 - d, .pad_top = d, .pad_left = 0, .pad_bottom = 1, .pad_right = 2,
            .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
        };
        failures += run(&s, i, "stride_dilation");
      }
    }
  }
  assert_int_equal(failures, 0);
}

static void test_padding(void** state) {
  (void) state;
  int failures = 0;
  for (size_t i = 0; i < 16; i++) {
    struct sweep_conv s = {
        .in_h = 4 + i % 3, .in_w = 3 + i % 4, .in_c = 1 + i % 4, .out_c = 1 + i % 5, .k_h = 1 + i % 4,
        .k_w = 1 + (i / 4) % 4, .stride_h = 1 + i % 2, .stride_w = 1 + (i / 2) % 2,
        .pad_top = (size_t) test_rand_range(0, 3), .pad_left = (size_t) test_rand_range(0, 3),
        .pad_bottom = (size_t) test_rand_range(0, 3), .pad_right = (size_t) test_rand_range(0, 3),
        .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
    };
    failures += run(&s, i, "padding");
  }
  /* Output made only of padded taps on one side: padding larger than the kernel. */
  struct sweep_conv big = {.in_h = 2, .in_w = 2, .in_c = 3, .out_c = 2, .k_h = 2, .k_w = 2, .pad_top = 4,
                           .pad_left = 3, .pad_bottom = 2, .pad_right = 5, .in_zp = 127, .out_zp = -128};
  failures += run(&big, 0, "padding_wider_than_kernel");
  /* One input channel, a kernel as wide as the image and padding on both sides (kws's first layer):
     kernel rows cut by the left edge, the right edge, or both */
  struct sweep_conv kws = {.in_h = 13, .in_w = 4, .in_c = 1, .out_c = 6, .k_h = 5, .k_w = 4, .stride_h = 2,
                           .stride_w = 2, .pad_top = 2, .pad_left = 1, .pad_bottom = 2, .pad_right = 2,
                           .in_zp = -7, .out_zp = 3, .rounding = 0};
  failures += run(&kws, 0, "one_channel_wide_kernel");
  /* One input channel, 1x1: the gemm path with K = 1 */
  struct sweep_conv pw = {.in_h = 5, .in_w = 7, .in_c = 1, .out_c = 19, .k_h = 1, .k_w = 1, .in_zp = 11,
                          .out_zp = -4, .rounding = 1};
  failures += run(&pw, 0, "one_channel_pointwise");
  assert_int_equal(failures, 0);
}

static void test_groups(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  for (size_t g = 1; g <= 4; g++) {
    for (size_t gic = 1; gic <= 3; gic++) {
      for (size_t goc = 1; goc <= 3; goc += 2, i++) {
        struct sweep_conv s = {
            .in_h = 5, .in_w = 4, .in_c = gic, .groups = g, .out_c = goc, .k_h = 1 + i % 3, .k_w = 1 + (i / 3) % 3,
            .pad_top = 1, .pad_right = 1, .in_extra = i % 3, .out_extra = i % 2,
            .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
        };
        failures += run(&s, i, "groups");
      }
    }
  }
  assert_int_equal(failures, 0);
}

/* groups == channels with one input channel per group: must give the same bytes and run on the
   depthwise kernels. */
static void test_grouped_as_depthwise(void** state) {
  (void) state;
  int failures = 0;
  for (size_t i = 0; i < 8; i++) {
    const size_t channels = 1 + 3 * i, dm = 1 + i % 3;
    struct sweep_conv s = {
        .in_h = 6, .in_w = 5, .in_c = 1, .groups = channels, .out_c = dm, .k_h = 3, .k_w = 3,
        .stride_h = 1 + i % 2, .stride_w = 1 + i % 2, .dil_h = 1 + i % 3, .dil_w = 1 + (i + 1) % 2,
        .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .in_extra = i % 2, .out_extra = i % 3,
        .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
    };
    failures += run(&s, i, "grouped_as_depthwise");

    /* Which kernel runs: q8nn_operator_kernel_name names a dwconv microkernel. */
    int8_t kernel[3 * 3 * 22 * 3];
    memset(kernel, 1, sizeof(kernel));
    const int32_t multiplier = INT32_C(1) << 30, shift = -8;
    const struct q8nn_convolution2d_desc desc = {
        .kernel_height = 3, .kernel_width = 3, .stride_height = 1, .stride_width = 1, .dilation_height = 1,
        .dilation_width = 1, .groups = (uint32_t) channels, .group_input_channels = 1, .group_output_channels = dm};
    const struct q8nn_conv_quantization quant = {
        .output_min = -128, .output_max = 127, .output_multiplier = &multiplier, .output_shift = &shift};
    q8nn_operator_t op = NULL;
    assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&desc, &quant, kernel, NULL,
                                                       Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                     q8nn_status_success);
    const char* kname = q8nn_operator_kernel_name(op);
    if (kname == NULL || strstr(kname, "dwconv") == NULL) {
      fprintf(stderr, "grouped_as_depthwise: channels %zu dm %zu runs on '%s', not a dwconv kernel\n", channels, dm,
              kname != NULL ? kname : "(null)");
      failures++;
    }
    q8nn_delete_operator(op);
  }
  assert_int_equal(failures, 0);
}

static void test_batch_and_pixel_strides(void** state) {
  (void) state;
  int failures = 0;
  for (size_t i = 0; i < 12; i++) {
    struct sweep_conv s = {
        .batch = 1 + i % 3, .in_h = 4, .in_w = 5, .in_c = 1 + i % 5, .out_c = 2 + i % 4, .k_h = 1 + i % 3,
        .k_w = 1 + (i + 1) % 3, .pad_top = i % 2, .pad_left = 1, .pad_bottom = 1, .pad_right = i % 2,
        .in_extra = (size_t) test_rand_range(0, 5), .out_extra = (size_t) test_rand_range(1, 7),
        .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
    };
    failures += run(&s, i, "batch_pixel_strides");
  }
  assert_int_equal(failures, 0);
}

static void test_zero_points_and_clamps(void** state) {
  (void) state;
  static const int32_t zps[3] = {-128, 0, 127};
  static const int32_t clamps[][2] = {{-128, 127}, {0, 127}, {-10, 10}, {5, 5}, {-128, -128}, {127, 127}, {-128, 0}};
  int failures = 0;
  size_t i = 0;
  for (size_t a = 0; a < 3; a++) {
    for (size_t b = 0; b < 3; b++, i++) {
      struct sweep_conv s = {.in_h = 5, .in_w = 5, .in_c = 3, .out_c = 4, .k_h = 3, .k_w = 3, .pad_top = 1,
                             .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .in_zp = zps[a], .out_zp = zps[b],
                             .rounding = (int) (i % 3)};
      failures += run(&s, i, "zero_points");
    }
  }
  for (size_t c = 0; c < sizeof(clamps) / sizeof(clamps[0]); c++, i++) {
    struct sweep_conv s = {.in_h = 4, .in_w = 6, .in_c = 5, .out_c = 3, .k_h = 2, .k_w = 3, .pad_right = 1,
                           .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                           .out_min = clamps[c][0], .out_max = clamps[c][1], .rounding = (int) (i % 3)};
    failures += run(&s, i, "clamps");
  }
  assert_int_equal(failures, 0);
}

static void test_quantization_modes(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  for (int quant = SWEEP_FIXED; quant <= SWEEP_TOO_LARGE; quant++) {
    for (int per_tensor = 0; per_tensor <= 1; per_tensor++) {
      for (int rounding = 0; rounding <= 2; rounding++, i++) {
        struct sweep_conv s = {
            .in_h = 5, .in_w = 4, .in_c = 6, .out_c = 7, .k_h = 2, .k_w = 2, .pad_bottom = 1, .pad_right = 1,
            .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = rounding,
            .per_tensor = per_tensor, .quant = (enum sweep_quant) quant, .no_bias = (int) (i % 4 == 3),
        };
        failures += run(&s, i, "quantization_modes");
      }
    }
  }
  assert_int_equal(failures, 0);
}

/* Channel counts around typical tile widths (4, 8, 16, 32) and K blocks, 1x1 (gemm) and 3x3 (igemm). */
static void test_channel_tails(void** state) {
  (void) state;
  static const size_t ics[] = {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64};
  static const size_t ocs[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33};
  int failures = 0;
  for (size_t i = 0; i < sizeof(ics) / sizeof(ics[0]); i++) {
    struct sweep_conv s = {.in_h = 3, .in_w = 5, .in_c = ics[i], .out_c = ocs[i], .k_h = 1, .k_w = 1,
                           .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                           .rounding = (int) (i % 3), .out_extra = i % 2};
    failures += run(&s, i, "channel_tails_1x1");
    struct sweep_conv t = {.in_h = 3, .in_w = 4, .in_c = ics[i], .out_c = ocs[(i + 5) % 12], .k_h = 3, .k_w = 3,
                           .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
                           .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                           .rounding = (int) (i % 3), .in_extra = i % 3};
    failures += run(&t, i + 1, "channel_tails_3x3");
  }
  assert_int_equal(failures, 0);
}

/* A list of 1x1 layers, each run in every rounding mode, on every thread count and ISA. */
struct gemm_case {
  size_t h, w, c, oc, batch, extra, groups;
};

static int run_gemm_cases(const struct gemm_case* cases, size_t count, const char* name) {
  int failures = 0;
  for (size_t i = 0; i < count; i++) {
    for (int rounding = 0; rounding <= 2; rounding++) {
      struct sweep_conv s = {
          .batch = cases[i].batch, .in_h = cases[i].h, .in_w = cases[i].w, .in_c = cases[i].c,
          .out_c = cases[i].oc, .groups = cases[i].groups, .k_h = 1, .k_w = 1, .out_extra = cases[i].extra,
          .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = rounding,
          .quant = i % 2 ? SWEEP_SCALES : SWEEP_FIXED, .num_threadpools = TEST_NUM_THREADPOOLS,
      };
      failures += run(&s, i * 3 + (size_t) rounding, name);
    }
  }
  return failures;
}

/* 1x1 layers with many rows and few output channels: the gemm path hands kernels with mloop tasks
   of several MR-row blocks (operator-run.c, choose_gemm_m_tile), the partial last task and block
   included, and per group; 33 channels (more than one NR block) keeps MR-row tasks. */
static void test_gemm_row_tiles(void** state) {
  (void) state;
  static const struct gemm_case cases[] = {
      {48, 40, 24, 16, 1, 0, 1}, {40, 41, 32, 32, 1, 3, 1}, {20, 10, 16, 24, 2, 0, 1}, {25, 8, 8, 7, 1, 1, 1},
      {7, 7, 96, 32, 1, 0, 1},   {45, 47, 24, 33, 1, 2, 1}, {30, 33, 12, 16, 1, 1, 3},
  };
  assert_int_equal(run_gemm_cases(cases, sizeof(cases) / sizeof(cases[0]), "gemm_row_tiles"), 0);
}

/* 1x1 layers whose weights outweigh their activations (K x N > M x (K + N)): with several threads
   the gemm path splits them by output channels only, every task taking all rows (operator-run.c,
   gemm_split_channels). Channel counts that leave a partial NR block or fewer blocks than some
   thread counts, batches, groups and pixel strides. */
static void test_gemm_channel_split(void** state) {
  (void) state;
  static const struct gemm_case cases[] = {
      {7, 7, 160, 960, 1, 0, 1}, {7, 7, 576, 160, 1, 2, 1}, {3, 5, 64, 200, 1, 0, 1}, {2, 3, 300, 70, 2, 1, 1},
      {4, 4, 128, 256, 2, 0, 1}, {3, 3, 96, 130, 1, 3, 2},  {1, 1, 40, 33, 1, 0, 1},
  };
  assert_int_equal(run_gemm_cases(cases, sizeof(cases) / sizeof(cases[0]), "gemm_channel_split"), 0);
}

/* Many taps with extreme zero points and extreme multipliers (saturation, wrapping left shifts,
   outputs collapsing to the zero point). */
static void test_extreme_values(void** state) {
  (void) state;
  int failures = 0;
  for (size_t i = 0; i < 4; i++) {
    struct sweep_conv s = {.in_h = 3, .in_w = 3, .in_c = 64, .out_c = 4, .k_h = 3, .k_w = 3, .pad_top = 1,
                           .pad_left = 1, .in_zp = i & 1 ? 127 : -128, .out_zp = i & 2 ? 127 : -128,
                           .rounding = (int) (i % 3), .quant = i < 2 ? SWEEP_LARGE : SWEEP_TINY};
    failures += run(&s, i, "extreme_values");
  }
  assert_int_equal(failures, 0);
}

/* Stems: few input channels, the im2col path (taps x channels folded into K, gemm kernels): the
   MobileNetV2 first layer's geometry (3x3 stride 2, TF SAME padding on even and odd inputs), odd
   sizes, batches, pixel strides, 5x5 and 7x7 kernels up to K = 256 and just past it (igemm). */
static void test_stem_shapes(void** state) {
  (void) state;
  static const struct {
    size_t h, w, c, oc, k, stride, pad_before, pad_after, batch, extra;
  } cases[] = {
      {32, 32, 3, 32, 3, 2, 0, 1, 1, 0},  {33, 31, 3, 32, 3, 2, 1, 1, 1, 0}, {17, 13, 3, 19, 3, 2, 0, 1, 2, 2},
      {9, 11, 1, 8, 3, 1, 1, 1, 1, 0},    {12, 10, 2, 24, 3, 2, 1, 0, 1, 3}, {15, 15, 4, 16, 3, 1, 1, 1, 1, 0},
      {13, 14, 7, 33, 5, 2, 2, 2, 1, 1},  {16, 12, 5, 8, 7, 2, 3, 3, 2, 0},  {14, 9, 6, 9, 7, 2, 3, 2, 1, 0},
      {6, 7, 3, 5, 3, 3, 0, 0, 1, 0},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    for (int rounding = 0; rounding <= 2; rounding++) {
      struct sweep_conv s = {
          .batch = cases[i].batch, .in_h = cases[i].h, .in_w = cases[i].w, .in_c = cases[i].c,
          .out_c = cases[i].oc, .k_h = cases[i].k, .k_w = cases[i].k, .stride_h = cases[i].stride,
          .stride_w = cases[i].stride, .pad_top = cases[i].pad_before, .pad_left = cases[i].pad_before,
          .pad_bottom = cases[i].pad_after, .pad_right = cases[i].pad_after, .in_extra = cases[i].extra,
          .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = rounding,
          .quant = i % 2 ? SWEEP_SCALES : SWEEP_FIXED,
      };
      failures += run(&s, i * 3 + (size_t) rounding, "stem");
    }
  }
  assert_int_equal(failures, 0);
}

/* The selection condition of the im2col path, seen through the kernel name: one group, not a plain
   1x1 stride-1 unpadded convolution (that is the gemm path), < 8 input channels and
   taps * channels <= 256 run a gemm kernel. */
static void test_stem_selection(void** state) {
  (void) state;
  static const struct {
    uint32_t k, groups;
    size_t gic;
    int im2col;
  } cases[] = {{3, 1, 3, 1}, {7, 1, 5, 1}, {7, 1, 6, 0}, {3, 1, 8, 0}, {3, 2, 3, 0}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const struct q8nn_convolution2d_desc d = {.kernel_height = cases[i].k, .kernel_width = cases[i].k,
                                              .stride_height = 1, .stride_width = 1, .dilation_height = 1,
                                              .dilation_width = 1, .groups = cases[i].groups,
                                              .group_input_channels = cases[i].gic, .group_output_channels = 4};
    const size_t weights = (size_t) cases[i].groups * 4 * cases[i].k * cases[i].k * cases[i].gic;
    int8_t* kernel = calloc(weights, 1);
    const float kscale = 0.5f;
    const struct q8nn_conv_quantization q = {.input_scale = 0.5f, .kernel_scale = &kscale, .output_scale = 1.0f,
                                             .output_min = -128, .output_max = 127};
    q8nn_operator_t op = NULL;
    assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                     q8nn_status_success);
    const char* name = q8nn_operator_kernel_name(op);
    const int gemm = strncmp(name, "q8nn_qs8_gemm", 13) == 0;
    if (gemm != cases[i].im2col) fail_msg("case %zu: kernel %s", i, name);
    q8nn_delete_operator(op);
    free(kernel);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stem_shapes),
      cmocka_unit_test(test_stem_selection),
      cmocka_unit_test(test_kernel_sizes),
      cmocka_unit_test(test_stride_dilation),
      cmocka_unit_test(test_padding),
      cmocka_unit_test(test_groups),
      cmocka_unit_test(test_grouped_as_depthwise),
      cmocka_unit_test(test_batch_and_pixel_strides),
      cmocka_unit_test(test_zero_points_and_clamps),
      cmocka_unit_test(test_quantization_modes),
      cmocka_unit_test(test_channel_tails),
      cmocka_unit_test(test_gemm_row_tiles),
      cmocka_unit_test(test_gemm_channel_split),
      cmocka_unit_test(test_extreme_values),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
