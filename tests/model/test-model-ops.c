/*
 * The model layer's portable operators (src/model/model-ops.c: SOFTMAX, pools, MUL, SUB, PAD, MEAN
 * on all three of TFLite's int8 paths, CONCATENATION, QUANTIZE incl. requantize, DEQUANTIZE) against the independent references
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

/* The constant-operand lookup of MUL/SUB (x * s - t preprocessing) gives the same bytes as the
   element loop, which test_mul_sub_broadcast checks against the reference. */
static void test_mul_sub_table(void** state) {
  (void) state;
  for (int t = 0; t < 300; t++) {
    const int mul = t & 1;
    const size_t C = t % 3 == 0 ? 1 : 1 + test_rand() % 8, rows = 1 + test_rand() % 100, n = rows * C;
    const size_t a_shape[2] = {rows, C}, b_shape[1] = {C};
    int8_t a[100 * 8], b[8], out[100 * 8], ref[100 * 8], table[8 * 256];
    test_fill_s8(a, n);
    test_fill_s8(b, C);
    struct q8nn_model_binary_params p;
    memset(&p, 0, sizeof(p));
    assert_true(q8nn_model_binary_broadcast(2, a_shape, 1, b_shape, 2, a_shape, &p));
    p.a_offset = -test_rand_range(-128, 127);
    p.b_offset = -test_rand_range(-128, 127);
    p.output_offset = test_rand_range(-128, 127);
    p.output_min = test_rand_range(-128, 0);
    p.output_max = test_rand_range(p.output_min, 127);
    int shift;
    if (mul) {
      q8nn_model_quantize_multiplier(expf(test_rand_float(-12.0f, -2.0f)), &p.output_multiplier, &shift);
      p.output_shift = shift;
      q8nn_model_mul_s8(&p, a, b, ref);
    } else {
      p.left_shift = 20;
      q8nn_model_quantize_multiplier(expf(test_rand_float(-3.0f, -0.7f)), &p.a_multiplier, &shift);
      p.a_shift = shift;
      q8nn_model_quantize_multiplier(expf(test_rand_float(-3.0f, -0.7f)), &p.b_multiplier, &shift);
      p.b_shift = shift;
      q8nn_model_quantize_multiplier(expf(test_rand_float(-20.0f, -14.0f)), &p.output_multiplier, &shift);
      p.output_shift = shift;
      q8nn_model_sub_s8(&p, a, b, ref);
    }
    q8nn_model_binary_table(&p, mul, b, C, table);
    for (int vbmi = 0; vbmi <= q8nn_model_has_vbmi(); vbmi++) {
      q8nn_model_table_s8_with(vbmi, n, C, table, a, out);
      const size_t bad = test_first_mismatch(out, ref, n);
      if (bad != SIZE_MAX) {
        fail_msg("%s table case %d (vbmi %d): [%zu] %d, loop %d", mul ? "mul" : "sub", t, vbmi, bad, out[bad], ref[bad]);
      }
    }
  }
}

/* The lookup itself on every length from 0 to 400 (whole vectors, tails, phases of nb = 3) for
   1 to 5 tables, each form against the definition; nothing written past n. */
static void test_table_lengths(void** state) {
  (void) state;
  int8_t table[5 * 256], a[400], out[400 + 64], ref[400];
  test_fill_s8(table, sizeof(table));
  test_fill_s8(a, sizeof(a));
  for (size_t nb = 1; nb <= 5; nb++) {
    for (size_t n = 0; n <= 400; n += nb) {
      for (size_t i = 0; i < n; i++) ref[i] = table[(i % nb) * 256 + (uint8_t) a[i]];
      for (int vbmi = 0; vbmi <= q8nn_model_has_vbmi(); vbmi++) {
        memset(out, 0x5A, sizeof(out));
        q8nn_model_table_s8_with(vbmi, n, nb, table, a, out);
        const size_t bad = test_first_mismatch(out, ref, n);
        if (bad != SIZE_MAX) fail_msg("nb %zu n %zu vbmi %d: [%zu] %d, want %d", nb, n, vbmi, bad, out[bad], ref[bad]);
        for (size_t i = n; i < sizeof(out); i++) {
          if (out[i] != 0x5A) fail_msg("nb %zu n %zu vbmi %d: byte %zu written", nb, n, vbmi, i);
        }
      }
    }
  }
}

static void random_shape(size_t rank, size_t* shape, size_t max_dim) {
  for (size_t i = 0; i < rank; i++) shape[i] = 1 + test_rand() % max_dim;
}

static size_t product(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static void test_pad(void** state) {
  (void) state;
  for (int t = 0; t < 800; t++) {
    const size_t rank = test_rand() % 7; /* 0..6 */
    size_t in_shape[6], before[6], after[6], out_shape[6];
    random_shape(rank, in_shape, 5);
    for (size_t i = 0; i < rank; i++) {
      before[i] = test_rand() % 3;
      after[i] = test_rand() % 3;
      out_shape[i] = before[i] + in_shape[i] + after[i];
    }
    const size_t n_in = product(rank, in_shape), n_out = product(rank, out_shape);
    int8_t* in = malloc(n_in);
    int8_t* out = malloc(n_out + 16);
    int8_t* ref = malloc(n_out);
    test_fill_s8(in, n_in);
    memset(out + n_out, 0x3C, 16);
    const int8_t value = (int8_t) test_rand_range(-128, 127);
    q8nn_model_pad_s8(rank, in_shape, before, out_shape, value, in, out);
    ref_pad_s8(rank, in_shape, before, after, value, in, ref);
    const size_t bad = test_first_mismatch(out, ref, n_out);
    if (bad != SIZE_MAX) fail_msg("pad case %d rank %zu: [%zu] %d, reference %d", t, rank, bad, out[bad], ref[bad]);
    for (size_t i = 0; i < 16; i++) assert_int_equal(out[n_out + i], 0x3C);
    free(in);
    free(out);
    free(ref);
  }
}

static void test_mean(void** state) {
  (void) state;
  int paths[3] = {0, 0, 0};
  for (int t = 0; t < 3000; t++) {
    /* every 4th case is 4D, so that the integer HW path gets its share under any seed */
    const size_t rank = t % 4 == 0 ? 4 : 1 + test_rand() % 6;
    size_t shape[6];
    random_shape(rank, shape, rank > 4 ? 3 : 6);
    if (t % 7 == 0 && rank >= 2) shape[1] = 20 + test_rand() % 30; /* many elements per output */
    const int keep_dims = t % 5 != 0;
    int32_t axes[4];
    size_t num_axes = test_rand() % 5;
    if (t % 4 == 0 && rank == 4) { /* the integer HW path, and its negative spelling */
      num_axes = 2;
      axes[0] = t % 8 == 0 ? 1 : 2;
      axes[1] = t % 8 == 0 ? 2 : 1;
      if (t % 3 == 0) { axes[0] -= 4; axes[1] -= 4; }
    } else {
      for (size_t k = 0; k < num_axes; k++) axes[k] = test_rand_range(-(int32_t) rank, (int32_t) rank - 1);
    }
    const float in_scale = expf(test_rand_float(-6.0f, 1.0f));
    const int same = t % 3 == 0;
    const float out_scale = same ? in_scale : in_scale * expf(test_rand_float(-2.0f, 2.0f));
    const int32_t in_zp = test_rand_range(-128, 127), out_zp = same ? in_zp : test_rand_range(-128, 127);
    const size_t n = product(rank, shape);
    int8_t* in = malloc(n);
    if (t % 6 == 1) test_fill_s8_range(in, n, 120, 127);
    else test_fill_s8(in, n);
    size_t out_shape[6];
    const size_t out_rank = q8nn_model_mean_output_shape(rank, shape, axes, num_axes, keep_dims, out_shape);
    assert_true(out_rank != SIZE_MAX);
    const size_t n_out = product(out_rank, out_shape);
    int8_t* out = malloc(n_out + 16);
    int8_t* ref = malloc(n_out);
    memset(out + n_out, 0x3C, 16);
    struct q8nn_model_mean_params p;
    const int ok = q8nn_model_mean_prepare(rank, shape, axes, num_axes, keep_dims, in_scale, in_zp, out_scale, out_zp, &p);
    const int ref_ok = ref_mean_s8(rank, shape, axes, num_axes, keep_dims, in, in_scale, in_zp, out_scale, out_zp, ref);
    assert_int_equal(ok, ref_ok);
    if (ok) {
      paths[p.path]++;
      q8nn_model_mean_s8(&p, in, out);
      const size_t bad = test_first_mismatch(out, ref, n_out);
      if (bad != SIZE_MAX) {
        fail_msg("mean case %d (path %d) rank %zu, %zu axes, keep %d: [%zu] %d, reference %d", t, (int) p.path, rank,
                 num_axes, keep_dims, bad, out[bad], ref[bad]);
      }
      for (size_t i = 0; i < 16; i++) assert_int_equal(out[n_out + i], 0x3C);
    }
    free(in);
    free(out);
    free(ref);
  }
  printf("[ MEAN     ] paths: integer HW %d, same quantization %d, float %d\n", paths[Q8NN_MODEL_MEAN_HW],
         paths[Q8NN_MODEL_MEAN_SAME], paths[Q8NN_MODEL_MEAN_FLOAT]);
  /* every path was exercised */
  assert_true(paths[Q8NN_MODEL_MEAN_HW] > 50 && paths[Q8NN_MODEL_MEAN_SAME] > 50 && paths[Q8NN_MODEL_MEAN_FLOAT] > 50);
  /* refused: axis out of range, more than 4 axis values */
  struct q8nn_model_mean_params p;
  const size_t shape[4] = {1, 2, 2, 3};
  const int32_t bad_axis[5] = {4, 0, 0, 0, 0};
  assert_false(q8nn_model_mean_prepare(4, shape, bad_axis, 1, 1, 1.0f, 0, 1.0f, 0, &p));
  assert_false(q8nn_model_mean_prepare(4, shape, bad_axis + 1, 5, 1, 1.0f, 0, 1.0f, 0, &p));
}

static void test_quantize_dequantize(void** state) {
  (void) state;
  enum { N = 512 };
  float f[N], fo[N], fr[N];
  int8_t q[N], qr[N];
  uint8_t a[N], b[N], br[N];
  for (int t = 0; t < 400; t++) {
    const float scale = expf(test_rand_float(-8.0f, 2.0f));
    const int32_t zp = test_rand_range(-128, 127);
    /* float -> int8: values around and far outside the range, exact halves, infinities */
    for (size_t i = 0; i < N; i++) {
      const float k = (float) test_rand_range(-400, 400);
      f[i] = i % 4 == 0 ? (k + 0.5f) * scale : i % 4 == 1 ? test_rand_float(-300.0f, 300.0f) * scale : k * scale;
    }
    f[0] = INFINITY;
    f[1] = -INFINITY;
    f[2] = 3.0e38f;
    q8nn_model_quantize_f32_s8(N, scale, zp, f, q);
    ref_quantize_s8(N, scale, zp, f, qr);
    size_t bad = test_first_mismatch(q, qr, N);
    if (bad != SIZE_MAX) fail_msg("quantize case %d: [%zu] %g -> %d, reference %d", t, bad, (double) f[bad], q[bad], qr[bad]);
    /* 8-bit -> 8-bit requantize, every signedness pair */
    const int in_u = t & 1, out_u = (t >> 1) & 1;
    const float in_scale = expf(test_rand_float(-6.0f, 1.0f));
    const float out_scale = t % 5 == 0 ? in_scale : in_scale * expf(test_rand_float(-4.0f, 4.0f));
    const int32_t in_zp = in_u ? test_rand_range(0, 255) : test_rand_range(-128, 127);
    const int32_t out_zp = out_u ? test_rand_range(0, 255) : test_rand_range(-128, 127);
    for (size_t i = 0; i < N; i++) a[i] = (uint8_t) test_rand();
    int32_t multiplier, shift32;
    int shift;
    const int ok = q8nn_model_quantize_multiplier((double) in_scale / (double) out_scale, &multiplier, &shift);
    shift32 = shift;
    (void) shift32;
    assert_int_equal(ok, ref_requantize_8(N, in_u, in_scale, in_zp, out_u, out_scale, out_zp, a, br));
    if (ok) {
      q8nn_model_requantize_8(N, in_u, in_zp, out_u, out_zp, multiplier, shift, a, b);
      bad = test_first_mismatch((const int8_t*) b, (const int8_t*) br, N);
      if (bad != SIZE_MAX) fail_msg("requantize case %d (%d -> %d): [%zu] %d, reference %d", t, in_u, out_u, bad, b[bad], br[bad]);
    }
    /* dequantize: compared as bit patterns */
    q8nn_model_dequantize_8_f32(N, in_u, in_scale, in_zp, a, fo);
    ref_dequantize_8(N, in_u, in_scale, in_zp, a, fr);
    if (memcmp(fo, fr, sizeof(fo)) != 0) fail_msg("dequantize case %d differs", t);
  }
  /* NaN: undefined in TFLite; q8nn-model gives the zero point */
  const float nan_in = NAN;
  int8_t nan_out;
  q8nn_model_quantize_f32_s8(1, 0.5f, -7, &nan_in, &nan_out);
  assert_int_equal(nan_out, -7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mul_sub_broadcast),
      cmocka_unit_test(test_mul_sub_table),
      cmocka_unit_test(test_table_lengths),
      cmocka_unit_test(test_pad),
      cmocka_unit_test(test_mean),
      cmocka_unit_test(test_quantize_dequantize),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
