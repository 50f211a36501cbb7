/* Every dwconv kernel of the list: channels around the channel tile, 1..3 output pixels, its tap
   count (or several for any-taps kernels), pointer strides beyond taps, output gaps, zero rows,
   offsets, zero points, clamps, scale regimes and every requantization the entry implements. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ukernels/sweep.h"
#include "ukernels/ukernel-tester.h"
#include "ukernels/emulated-select.h"

static void test_dwconv_entry(void** state) {
  const struct q8nn_dwconv_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  const size_t ct = e->channel_tile;
  const size_t channels[] = {1, ct - 1, ct, ct + 1, 2 * ct + 3, 5 * ct - 1, 67};
  const size_t any_taps[] = {1, 2, 4, 9, 10, 25, 49};
  const size_t ntaps = e->taps != 0 ? 1 : sizeof(any_taps) / sizeof(any_taps[0]);
  int failures = 0;
  size_t i = 0;
  for (int rounding = 0; rounding < Q8NN_REQUANT_KINDS; rounding++) {
    if (e->fn[rounding] == NULL) continue; /* the other requantization's entries */
    for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); c++) {
      if (channels[c] == 0) continue;
      for (size_t width = 1; width <= 3; width++) {
        for (size_t tp = 0; tp < ntaps; tp++, i++) {
          struct dwconv_tester t = {0};
          t.channels = channels[c];
          t.width = width;
          t.taps = e->taps != 0 ? e->taps : any_taps[tp];
          t.input_stride_extra = i % 3 == 2 ? 2 : 0;
          t.output_increment = i % 2 ? 5 : 0;
          t.input_zero_point = sweep_zero_point(i);
          t.output_zero_point = sweep_zero_point(i / 4 + 2);
          sweep_clamp(i / 2, t.output_zero_point, &t.output_min, &t.output_max);
          t.rounding = rounding;
          sweep_shift_range((int) (i / 3), (double) t.taps, &t.shift_lo, &t.shift_hi);
          t.input_offset = i % 4 == 3 ? 17 : 0;
          t.tflite_multipliers = i % 2 == 0;
          t.bias_range = i % 5 == 4 ? INT32_MAX : i % 5 == 2 ? (INT32_C(1) << 30) + (INT32_C(1) << 29) : 0;
          t.guard = (i / 2) % 2 == 0;
          failures += dwconv_tester_run(&t, e);
          if (failures > 10) fail_msg("%s: too many mismatches", e->name);
        }
      }
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

/* 9-tap kernels (and any-taps ones at 9 taps) on sliding 3x3 windows, as a stride-1 or stride-2
   depthwise operator feeds them: rows of 1..12 pixels, so kernels that reuse a window's columns for the next
   pixel are checked on reused, partly reused (padding columns) and unshared windows. */
static void test_dwconv_sliding(void** state) {
  const struct q8nn_dwconv_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  if (e->taps != 0 && e->taps != 9) skip();
  const size_t ct = e->channel_tile;
  const size_t channels[] = {1, 3, 5, 8, 16, 24, 32, ct - 1, ct + 1, 2 * ct + 3, 144};
  int failures = 0;
  size_t i = 0;
  for (int rounding = 0; rounding < Q8NN_REQUANT_KINDS; rounding++) {
    if (e->fn[rounding] == NULL) continue;
    for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); c++) {
      for (size_t width = 1; width <= 12; width++, i++) {
        struct dwconv_tester t = {0};
        t.channels = channels[c];
        t.width = width;
        t.taps = 9;
        t.sliding = 1 + (int) (i % 2);
        t.edge_padding_only = i % 3 == 0;
        /* rows long enough for whole runs of interior windows between the two padding columns */
        if (t.edge_padding_only) t.width = 2 * width + 8;
        t.input_stride_extra = i % 5 == 4 ? 3 : 0;
        t.output_increment = i % 2 ? 7 : 0;
        t.input_zero_point = sweep_zero_point(i);
        t.output_zero_point = sweep_zero_point(i / 4 + 2);
        sweep_clamp(i / 2, t.output_zero_point, &t.output_min, &t.output_max);
        t.rounding = rounding;
        sweep_shift_range((int) (i / 3), 9.0, &t.shift_lo, &t.shift_hi);
        t.input_offset = i % 4 == 3 ? 17 : 0;
        t.tflite_multipliers = i % 2 == 0;
        t.guard = i % 2 == 0;
        failures += dwconv_tester_run(&t, e);
        if (failures > 10) fail_msg("%s: too many mismatches", e->name);
      }
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

/* The guarded epilogue under attack (as test-gemm.c's): accumulators on and within three units of
   TFLite's rounding boundaries (tester_boundary_case), both roundings, clamps with and without
   results below the zero point, every path of the kernel (channel tails, sliding windows, pairs
   and octets of pixels), with the guard and (one case in four) without. */
static void test_dwconv_boundaries(void** state) {
  const struct q8nn_dwconv_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  const size_t ct = e->channel_tile;
  const size_t channels[] = {1, 5, 8, 16, 24, 32, ct + 1, 2 * ct + 3, 96};
  int failures = 0;
  size_t i = 0;
  for (int rounding = 0; rounding < 2; rounding++) {
    if (e->fn[rounding] == NULL) continue;
    for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); c++) {
      for (size_t r = 0; r < 8; r++, i++) {
        struct dwconv_tester t = {0};
        t.channels = channels[c];
        t.width = 1 + (r * 5 + c) % 20;
        t.taps = e->taps != 0 ? e->taps : (r % 2 ? 9 : 4);
        t.sliding = t.taps == 9 && r % 3 != 2 ? 1 + (int) (r % 2) : 0;
        t.edge_padding_only = r % 4 == 1;
        t.output_increment = r % 2 ? 3 : 0;
        t.input_zero_point = sweep_zero_point(i);
        t.output_zero_point = sweep_zero_point(i / 2 + 1);
        if (r % 3 == 0) {
          t.output_min = -128, t.output_max = 127;
        } else if (r % 3 == 1) {
          t.output_min = t.output_zero_point, t.output_max = 127;
        } else {
          sweep_clamp(i, t.output_zero_point, &t.output_min, &t.output_max);
        }
        t.rounding = rounding;
        t.input_offset = r % 4 == 3 ? 17 : 0;
        t.guard = r % 4 != 3;
        t.boundary = 1;
        failures += dwconv_tester_run(&t, e);
        if (failures > 10) fail_msg("%s: too many mismatches", e->name);
      }
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

/* Many outputs in the realistic scale regime (every channel shifts right: e = 7..11, TFLite's
   multipliers), as the MobileNetV2 layers have them: a requantization step that is wrong only for a small fraction of
   the values near a rounding boundary (a nudge off by 2^30 changes about one negative output in
   2^(e+1)) needs tens of thousands of outputs to show. Rows of 64 pixels, stride-1 windows where
   the kernel has 9 taps (8 channels also at stride 2, and with padding only at the row's ends: the
   AVX-512 kernels' octets), channel counts of the 14x14 and 56x56 layers. */
static void test_dwconv_many_outputs(void** state) {
  const struct q8nn_dwconv_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  const size_t channels[] = {8, 8, 96, 144, 576}; /* the second 8: stride 2 */
  int failures = 0;
  size_t i = 0;
  for (int rounding = 0; rounding < Q8NN_REQUANT_KINDS; rounding++) {
    if (e->fn[rounding] == NULL) continue;
    for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); c++, i++) {
      struct dwconv_tester t = {0};
      t.channels = channels[c];
      t.width = 64;
      t.taps = e->taps != 0 ? e->taps : 9;
      t.sliding = t.taps == 9 ? (c == 1 ? 2 : 1) : 0;
      t.edge_padding_only = c <= 1 || i % 2 == 1;
      t.input_zero_point = sweep_zero_point(i);
      t.output_zero_point = sweep_zero_point(i + 2);
      t.output_min = -128, t.output_max = 127;
      t.rounding = rounding;
      t.tflite_multipliers = 1; /* as MobileNetV2's: the int32 form (m2_all) */
      t.guard = i % 2 == 0;
      sweep_shift_range(0, (double) t.taps, &t.shift_lo, &t.shift_hi);
      failures += dwconv_tester_run(&t, e);
      if (failures > 10) fail_msg("%s: too many mismatches", e->name);
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

int main(void) {
  test_seed();
  struct CMUnitTest* tests = calloc(4 * q8nn_dwconv_list_size, sizeof(struct CMUnitTest));
  char(*names)[160] = calloc(q8nn_dwconv_list_size, sizeof(*names));
  char(*wide_names)[160] = calloc(q8nn_dwconv_list_size, sizeof(*wide_names));
  char(*edge_names)[160] = calloc(q8nn_dwconv_list_size, sizeof(*edge_names));
  size_t t = 0;
  for (size_t i = 0; i < q8nn_dwconv_list_size; i++) {
    if (!selected(q8nn_dwconv_list[i].isa, q8nn_dwconv_list[i].name)) continue;
    tests[t].name = q8nn_dwconv_list[i].name;
    tests[t].test_func = test_dwconv_entry;
    tests[t++].initial_state = (void*) &q8nn_dwconv_list[i];
    if (q8nn_dwconv_list[i].taps == 0 || q8nn_dwconv_list[i].taps == 9) {
      snprintf(names[i], sizeof(names[i]), "%s/sliding", q8nn_dwconv_list[i].name);
      tests[t].name = names[i];
      tests[t].test_func = test_dwconv_sliding;
      tests[t++].initial_state = (void*) &q8nn_dwconv_list[i];
    }
    snprintf(wide_names[i], sizeof(wide_names[i]), "%s/many_outputs", q8nn_dwconv_list[i].name);
    tests[t].name = wide_names[i];
    tests[t].test_func = test_dwconv_many_outputs;
    tests[t++].initial_state = (void*) &q8nn_dwconv_list[i];
    snprintf(edge_names[i], sizeof(edge_names[i]), "%s/boundaries", q8nn_dwconv_list[i].name);
    tests[t].name = edge_names[i];
    tests[t].test_func = test_dwconv_boundaries;
    tests[t++].initial_state = (void*) &q8nn_dwconv_list[i];
  }
  const int result = _cmocka_run_group_tests("ukernel_dwconv", tests, t, sweep_setup, NULL);
  free(tests);
  free(names);
  free(wide_names);
  free(edge_names);
  return result;
}
