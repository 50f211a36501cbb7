/*
 * The 90 golden vectors of ../shared/golden/vectors (CMSIS-NN, TFLM, TFLite, CFU-Playground;
 * converted into golden-cases.h by convert.py, attribution kept per case) through the public API.
 *
 * Per case, under every available ISA mask (scalar-only plus each ISA bit alone) and threadpools
 * NULL/1/2/3: the library output must equal the independent reference exactly, and the reference
 * must match the published output within the case's tolerance (0 for 87 cases; 1 for the cases
 * whose published values are float goldens rounded). Create uses the case's integer multipliers
 * and shifts (q8nn_add_fixed for add); where the case also states float scales a second run goes
 * through the float-scale path, and a third run uses single rounding against the reference only
 * (those two on the caller thread only, to keep the run short).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <q8nn.h>

#include "golden/golden-cases.h"
#include "reference/reference.h"
#include "testers/test-util.h"

static void print_attribution(const struct golden_case* c) {
  fprintf(stderr, "  case %s (%s): %s@%.12s %s, test %s, line %d\n", c->id, c->provenance, c->repo,
          c->commit, c->paths, c->test, c->line);
}

static int run_conv(const struct golden_case* c, int use_scales, int rounding, int check_published,
                    size_t num_threadpools) {
  const struct golden_geometry* g = &c->geometry;
  const int depthwise = c->op == GOLDEN_DEPTHWISE;
  struct test_conv_case t = {
      .depthwise = depthwise,
      .p = {
          .batch = g->batch, .in_h = g->in_h, .in_w = g->in_w,
          .in_c = g->in_c, .groups = 1, .out_c = depthwise ? g->depth_multiplier : g->out_c,
          .k_h = g->k_h, .k_w = g->k_w, .stride_h = g->stride_h, .stride_w = g->stride_w,
          .dil_h = g->dil_h, .dil_w = g->dil_w, .pad_top = g->pad_top, .pad_left = g->pad_left,
          .pad_bottom = g->pad_bottom, .pad_right = g->pad_right,
          .in_pixel_stride = g->in_c, .out_pixel_stride = g->out_c,
          .in_zp = c->input_zero_point, .out_zp = c->output_zero_point,
          .out_min = c->activation_min, .out_max = c->activation_max, .rounding = rounding,
      },
      .input = c->input, .kernel = c->filter, .bias = c->bias,
      .multiplier = use_scales ? NULL : c->multiplier,
      .shift = use_scales ? NULL : c->shift,
      .input_scale = c->input_scale, .output_scale = c->output_scale, .kernel_scale = c->filter_scales,
      .expected = check_published ? c->expected : NULL,
      .tolerance = c->tolerance,
      .name = c->id,
      .num_threadpools = num_threadpools,
  };
  return test_conv_run(&t);
}

static int run_add(const struct golden_case* c, int use_scales, size_t num_threadpools) {
  const struct test_add_case t = {
      .a_rank = c->a_shape.rank, .b_rank = c->b_shape.rank,
      .a_shape = c->a_shape.rank != 0 ? c->a_shape.dims : NULL,
      .b_shape = c->b_shape.rank != 0 ? c->b_shape.dims : NULL,
      .a = c->a, .b = c->b,
      .a_zp = c->add_zero_points[0], .b_zp = c->add_zero_points[1], .out_zp = c->output_zero_point,
      .a_scale = c->add_scales[0], .b_scale = c->add_scales[1], .out_scale = c->output_scale,
      .out_min = (int8_t) c->activation_min, .out_max = (int8_t) c->activation_max,
      .fixed = use_scales ? NULL : c->add_fixed,
      .expected = c->expected, .tolerance = c->tolerance, .name = c->id,
      .num_threadpools = num_threadpools,
  };
  return test_add_run(&t);
}

static void test_golden_case(void** state) {
  const struct golden_case* c = *state;
  int failures = 0;
  if (c->op == GOLDEN_ADD) {
    failures += run_add(c, 0, TEST_NUM_THREADPOOLS);
    if (c->has_scales) {
      failures += run_add(c, 1, 1);
    }
  } else {
    /* Every threadpool for the published parameters; the variants use the caller thread only
       (a 3-thread pool on a busy 2-core machine costs milliseconds per run in spin-waits). */
    failures += run_conv(c, 0, 0, 1, TEST_NUM_THREADPOOLS);
    if (c->has_scales) {
      failures += run_conv(c, 1, 0, 1, 1);
    }
    /* The published outputs are double rounding; single rounding is checked against the reference. */
    failures += run_conv(c, 0, 1, 0, 1);
  }
  if (failures != 0) {
    print_attribution(c);
    fail_msg("%s: %d failed runs (see stderr)", c->id, failures);
  }
}

int main(void) {
  struct CMUnitTest tests[GOLDEN_NUM_CASES];
  for (size_t i = 0; i < GOLDEN_NUM_CASES; i++) {
    const struct CMUnitTest t = {
        .name = golden_cases[i].id,
        .test_func = test_golden_case,
        .initial_state = (void*) &golden_cases[i],
    };
    tests[i] = t;
  }
  return _cmocka_run_group_tests("golden", tests, GOLDEN_NUM_CASES, test_group_setup, test_group_teardown);
}
