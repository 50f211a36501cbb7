/*
 * Depthwise convolution through the public API, exact against the reference, on every ISA mask and
 * threadpool (see test_conv_run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <q8nn.h>

#include "conv-sweep.h"
#include "testers/test-util.h"

static int run(struct sweep_conv* s, size_t i, const char* name) {
  s->depthwise = 1;
  /* Every third case on all threadpools (a 3-thread pool is slow on 2-core machines). */
  s->num_threadpools = i % 3 == 0 ? 0 : 2;
  return sweep_conv_run(s, name);
}

static void test_kernel_sizes(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  for (size_t k = 1; k <= 7; k++) {
    for (size_t c = 1; c <= 17; c += 8, i++) {
      struct sweep_conv s = {.in_h = k + 2, .in_w = k + 1, .in_c = c, .out_c = 1, .k_h = k, .k_w = k,
                             .pad_top = k / 2, .pad_left = k / 2, .pad_bottom = (k - 1) / 2, .pad_right = (k - 1) / 2,
                             .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                             .rounding = (int) (i % 3)};
      failures += run(&s, i, "kernel_square");
    }
  }
  static const size_t rect[][2] = {{1, 3}, {3, 1}, {1, 7}, {7, 1}, {2, 5}, {5, 2}, {4, 3}, {3, 4}, {2, 2}, {6, 1}};
  for (size_t r = 0; r < sizeof(rect) / sizeof(rect[0]); r++, i++) {
    struct sweep_conv s = {.in_h = 8, .in_w = 7, .in_c = 3 + r, .out_c = 1 + r % 3, .k_h = rect[r][0],
                           .k_w = rect[r][1], .pad_top = r % 2, .pad_left = 1, .pad_right = r % 3,
                           .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                           .rounding = (int) (i % 3)};
    failures += run(&s, i, "kernel_rect");
  }
  assert_int_equal(failures, 0);
}

static void test_depth_multiplier(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  /* 8 and 16: the expansion's 8-byte copies (one input channel as in person_detect's first layer,
     and several) */
  const size_t dms[] = {1, 2, 3, 8, 16};
  for (size_t d = 0; d < sizeof(dms) / sizeof(dms[0]); d++) {
    const size_t dm = dms[d];
    for (size_t c = 1; c <= 20; c += 6, i++) {
      struct sweep_conv s = {.in_h = 5, .in_w = 6, .in_c = c, .out_c = dm, .k_h = 3, .k_w = 3, .pad_top = 1,
                             .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .in_extra = i % 3, .out_extra = i % 2,
                             .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                             .rounding = (int) (i % 3), .per_tensor = (int) (i % 4 == 1)};
      failures += run(&s, i, "depth_multiplier");
    }
  }
  assert_int_equal(failures, 0);
}

static void test_stride_dilation_padding(void** state) {
  (void) state;
  int failures = 0;
  size_t i = 0;
  for (size_t st = 1; st <= 3; st++) {
    for (size_t d = 1; d <= 3; d++, i++) {
      struct sweep_conv s = {.in_h = 9, .in_w = 8, .in_c = 5, .out_c = 1 + i % 2, .k_h = 3, .k_w = 3,
                             .stride_h = st, .stride_w = 4 - st, .dil_h = d, .dil_w = 1 + (d % 3),
                             .pad_top = (size_t) test_rand_range(0, 3), .pad_left = (size_t) test_rand_range(0, 3),
                             .pad_bottom = (size_t) test_rand_range(0, 3), .pad_right = (size_t) test_rand_range(0, 3),
                             .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                             .rounding = (int) (i % 3)};
      failures += run(&s, i, "stride_dilation_padding");
    }
  }
  assert_int_equal(failures, 0);
}

static void test_batch_strides_clamps(void** state) {
  (void) state;
  static const int32_t clamps[][2] = {{-128, 127}, {0, 127}, {-6, 6}, {3, 3}, {-128, -128}, {127, 127}};
  static const int32_t zps[3] = {-128, 0, 127};
  int failures = 0;
  for (size_t i = 0; i < 12; i++) {
    struct sweep_conv s = {.batch = 1 + i % 3, .in_h = 4, .in_w = 5, .in_c = 1 + 5 * (i % 4), .out_c = 1 + i % 2,
                           .k_h = 3, .k_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                           .in_extra = (size_t) test_rand_range(0, 4), .out_extra = (size_t) test_rand_range(1, 6),
                           .in_zp = zps[i % 3], .out_zp = zps[(i / 3) % 3], .out_min = clamps[i % 6][0],
                           .out_max = clamps[i % 6][1], .rounding = (int) (i % 3)};
    failures += run(&s, i, "batch_strides_clamps");
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
        struct sweep_conv s = {.in_h = 5, .in_w = 5, .in_c = 9, .out_c = 1 + i % 3, .k_h = 3, .k_w = 3,
                               .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1,
                               .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                               .rounding = rounding, .per_tensor = per_tensor, .quant = (enum sweep_quant) quant,
                               .no_bias = (int) (i % 4 == 2)};
        failures += run(&s, i, "quantization_modes");
      }
    }
  }
  assert_int_equal(failures, 0);
}

/* Channel counts around vector widths (4..64 lanes). */
static void test_channel_tails(void** state) {
  (void) state;
  static const size_t cs[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65};
  int failures = 0;
  for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
    struct sweep_conv s = {.in_h = 4, .in_w = 3, .in_c = cs[i], .out_c = 1 + i % 2, .k_h = 3, .k_w = 3,
                           .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .out_extra = i % 3,
                           .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
                           .rounding = (int) (i % 3)};
    failures += run(&s, i, "channel_tails");
  }
  assert_int_equal(failures, 0);
}

/* Few output rows and many channels, where run cuts the channels into one strip per thread
   (whole blocks of the line's CT, 4 to 64 lanes): every threadpool, depth multipliers 1 and 2,
   batches, pixel strides and channel counts that leave partial blocks at a strip's end. */
static void test_thread_strips(void** state) {
  (void) state;
  static const size_t cs[] = {8, 33, 47, 64, 96, 129, 130, 200, 257};
  int failures = 0;
  for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
    struct sweep_conv s = {.batch = 1 + i % 2, .in_h = 1 + i % 3, .in_w = 2 + i % 4, .in_c = cs[i],
                           .out_c = 1 + (i % 3 == 2), .k_h = 3, .k_w = 3, .stride_h = 1 + i % 2, .stride_w = 1,
                           .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .in_extra = i % 3,
                           .out_extra = (i + 1) % 3, .in_zp = test_rand_range(-128, 127),
                           .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3), .depthwise = 1};
    failures += sweep_conv_run(&s, "thread_strips");
  }
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernel_sizes),
      cmocka_unit_test(test_depth_multiplier),
      cmocka_unit_test(test_stride_dilation_padding),
      cmocka_unit_test(test_batch_strides_clamps),
      cmocka_unit_test(test_quantization_modes),
      cmocka_unit_test(test_channel_tails),
      cmocka_unit_test(test_thread_strips),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
