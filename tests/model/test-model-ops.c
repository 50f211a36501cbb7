/*
 * The model layer's portable operators (src/model/model-ops.c) against the independent references
 * in tests/reference/reference-model.c, exactly, on seeded random shapes, scales and data.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model-ops.h"
#include "reference/reference-model.h"
#include "testers/test-util.h"

static void test_softmax(void** state) {
  (void) state;
  int8_t in[3 * 300], out[3 * 300], ref[3 * 300];
  for (int t = 0; t < 3000; t++) {
    const size_t depth = 1 + test_rand() % (t < 2000 ? 40 : 300), outer = 1 + test_rand() % 3;
    const float scale = expf(test_rand_float(logf(1e-3f), logf(2.0f)));
    const float beta = (t % 3 == 0) ? 1.0f : test_rand_float(0.25f, 4.0f);
    if (t % 5 == 0) test_fill_s8_range(in, outer * depth, 100, 127); /* near-equal values */
    else test_fill_s8(in, outer * depth);
    struct q8nn_model_softmax_params p;
    const int ok = q8nn_model_softmax_prepare((double) beta, (double) scale, &p);
    const int ref_ok = ref_softmax_s8(beta, scale, outer, depth, in, ref);
    assert_int_equal(ok, ref_ok);
    if (!ok) continue;
    q8nn_model_softmax_s8(&p, outer, depth, in, out);
    const size_t bad = test_first_mismatch(out, ref, outer * depth);
    if (bad != SIZE_MAX) {
      fail_msg("softmax depth %zu outer %zu scale %g beta %g: [%zu] %d, reference %d", depth, outer, (double) scale,
               (double) beta, bad, out[bad], ref[bad]);
    }
  }
}

static void test_pools(void** state) {
  (void) state;
  for (int t = 0; t < 400; t++) {
    struct q8nn_model_pool_params p;
    p.batch = 1 + test_rand() % 2;
    p.input_height = 1 + test_rand() % 9;
    p.input_width = 1 + test_rand() % 9;
    p.channels = 1 + test_rand() % 7;
    p.filter_height = 1 + test_rand() % p.input_height;
    p.filter_width = 1 + test_rand() % p.input_width;
    p.stride_height = 1 + test_rand() % 3;
    p.stride_width = 1 + test_rand() % 3;
    const int same = t & 1;
    if (same) { /* TFLite SAME */
      p.output_height = (p.input_height + p.stride_height - 1) / p.stride_height;
      p.output_width = (p.input_width + p.stride_width - 1) / p.stride_width;
      const long th = (long) ((p.output_height - 1) * p.stride_height + p.filter_height) - (long) p.input_height;
      const long tw = (long) ((p.output_width - 1) * p.stride_width + p.filter_width) - (long) p.input_width;
      p.padding_top = th > 0 ? (size_t) th / 2 : 0;
      p.padding_left = tw > 0 ? (size_t) tw / 2 : 0;
    } else {
      p.output_height = (p.input_height - p.filter_height + p.stride_height) / p.stride_height;
      p.output_width = (p.input_width - p.filter_width + p.stride_width) / p.stride_width;
      p.padding_top = p.padding_left = 0;
    }
    p.output_min = test_rand_range(-128, 0);
    p.output_max = test_rand_range(p.output_min, 127);
    const size_t n_in = p.batch * p.input_height * p.input_width * p.channels;
    const size_t n_out = p.batch * p.output_height * p.output_width * p.channels;
    int8_t* in = malloc(n_in);
    int8_t* out = malloc(n_out);
    int8_t* ref = malloc(n_out);
    test_fill_s8(in, n_in);
    for (int avg = 0; avg < 2; avg++) {
      if (avg) q8nn_model_average_pool_s8(&p, in, out);
      else q8nn_model_max_pool_s8(&p, in, out);
      ref_pool_s8(avg, p.batch, p.input_height, p.input_width, p.channels, p.output_height, p.output_width,
                  p.filter_height, p.filter_width, p.stride_height, p.stride_width, p.padding_top, p.padding_left,
                  p.output_min, p.output_max, in, ref);
      const size_t bad = test_first_mismatch(out, ref, n_out);
      if (bad != SIZE_MAX) fail_msg("%s pool case %d: [%zu] %d, reference %d", avg ? "average" : "max", t, bad, out[bad], ref[bad]);
    }
    free(in);
    free(out);
    free(ref);
  }
}

static void test_mul_sub_broadcast(void** state) {
  (void) state;
  for (int t = 0; t < 600; t++) {
    const int mul = t & 1;
    size_t rank = 1 + test_rand() % 4, out_shape[6], a_shape[6], b_shape[6];
    const size_t a_rank = rank, b_rank = 1 + test_rand() % rank;
    for (size_t i = 0; i < rank; i++) out_shape[i] = 1 + test_rand() % 4;
    size_t na = 1, nb = 1, n = 1;
    for (size_t i = 0; i < a_rank; i++) { a_shape[i] = test_rand() % 3 == 0 ? 1 : out_shape[i]; na *= a_shape[i]; }
    for (size_t i = 0; i < b_rank; i++) {
      b_shape[i] = test_rand() % 3 == 0 ? 1 : out_shape[rank - b_rank + i];
      nb *= b_shape[i];
    }
    size_t real_rank, real_shape[6];
    assert_true(ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &real_rank, real_shape));
    for (size_t i = 0; i < real_rank; i++) n *= real_shape[i];
    int8_t a[256], b[256], out[256], ref[256];
    test_fill_s8(a, na);
    test_fill_s8(b, nb);
    const float as = expf(test_rand_float(-6.0f, 0.0f)), bs = expf(test_rand_float(-6.0f, 0.0f));
    const float os = mul ? as * bs * expf(test_rand_float(-3.0f, 5.0f)) : expf(test_rand_float(-6.0f, 0.0f));
    const int32_t azp = test_rand_range(-128, 127), bzp = test_rand_range(-128, 127), ozp = test_rand_range(-128, 127);
    const int32_t lo = test_rand_range(-128, 0), hi = test_rand_range(lo, 127);
    if (!ref_mul_sub_s8(mul, a_rank, a_shape, a, as, azp, b_rank, b_shape, b, bs, bzp, os, ozp, lo, hi, ref)) continue;
    struct q8nn_model_binary_params p;
    memset(&p, 0, sizeof(p));
    assert_true(q8nn_model_binary_broadcast(a_rank, a_shape, b_rank, b_shape, real_rank, real_shape, &p));
    p.a_offset = -azp;
    p.b_offset = -bzp;
    p.output_offset = ozp;
    p.output_min = lo;
    p.output_max = hi;
    int shift;
    if (mul) {
      assert_true(q8nn_model_quantize_multiplier((double) (as * bs / os), &p.output_multiplier, &shift));
      p.output_shift = shift;
      q8nn_model_mul_s8(&p, a, b, out);
    } else {
      const double twice_max = 2.0 * (double) (as > bs ? as : bs);
      int sa, sb, so;
      p.left_shift = 20;
      q8nn_model_quantize_multiplier((double) as / twice_max, &p.a_multiplier, &sa);
      q8nn_model_quantize_multiplier((double) bs / twice_max, &p.b_multiplier, &sb);
      q8nn_model_quantize_multiplier(twice_max / ((double) (1 << 20) * (double) os), &p.output_multiplier, &so);
      p.a_shift = sa;
      p.b_shift = sb;
      p.output_shift = so;
      q8nn_model_sub_s8(&p, a, b, out);
    }
    const size_t bad = test_first_mismatch(out, ref, n);
    if (bad != SIZE_MAX) fail_msg("%s case %d: [%zu] %d, reference %d", mul ? "mul" : "sub", t, bad, out[bad], ref[bad]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_pools),
      cmocka_unit_test(test_mul_sub_broadcast),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
