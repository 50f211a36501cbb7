/* VTA backend: add with numpy broadcasting (up to 6 dims, scalars), fused clamp, in place, ACC
   chunking, 1 and 2 virtual threads, BATCH = 2; bit-exact with the host oracle, within 1 LSB of
   TFLite; no byte past the output written. Also the oracles' own distance to TFLite over every
   int8 pair (add) and over accumulator sweeps (conv requantization). */
#include "vta-backend-util.h"

static void random_shapes(struct vta_add_spec* s) {
  const size_t rank = (size_t) test_rand_range(0, 6);
  size_t full[6];
  size_t total = 1;
  for (size_t i = 0; i < rank; i++) {
    full[i] = (size_t) test_rand_range(1, total > 500 ? 2 : 7);
    total *= full[i];
  }
  s->a_rank = rank - (size_t) test_rand_range(0, (int32_t) rank);
  s->b_rank = rank - (size_t) test_rand_range(0, (int32_t) rank);
  if (test_rand_range(0, 1)) s->a_rank = rank; else s->b_rank = rank;
  for (size_t i = 0; i < s->a_rank; i++) {
    s->a_shape[i] = full[rank - s->a_rank + i];
    if (test_rand_range(0, 3) == 0) s->a_shape[i] = 1;
  }
  for (size_t i = 0; i < s->b_rank; i++) {
    s->b_shape[i] = full[rank - s->b_rank + i];
    if (test_rand_range(0, 3) == 0) s->b_shape[i] = 1;
  }
}

static void random_quant(struct vta_add_spec* s) {
  s->a_zp = test_rand_range(-128, 127);
  s->b_zp = test_rand_range(-128, 127);
  s->out_zp = test_rand_range(-128, 127);
  s->a_scale = test_rand_float(0.001f, 0.5f);
  s->b_scale = s->a_scale * test_rand_float(0.05f, 20.0f);
  s->out_scale = (s->a_scale > s->b_scale ? s->a_scale : s->b_scale) * test_rand_float(0.1f, 4.0f);
  s->out_min = -128, s->out_max = 127;
  if (test_rand_range(0, 1)) {
    s->out_min = (int8_t) test_rand_range(-128, 0);
    s->out_max = (int8_t) test_rand_range(0, 127);
  }
}

static void test_broadcast_sweep(void** state) {
  (void) state;
  for (uint32_t vt = 1; vt <= 2; vt++) {
    q8nn_backend_t vta = vta_backend(0, vt, 0, 0, 0);
    int failures = 0;
    for (int i = 0; i < 150; i++) {
      struct vta_add_spec s;
      memset(&s, 0, sizeof(s));
      random_shapes(&s);
      random_quant(&s);
      failures += vta_add_check(vta, &s) != 0;
    }
    assert_int_equal(failures, 0);
    q8nn_delete_backend(vta);
  }
}

/* Longer than several ACC chunks (1022 rows per chunk with 2 threads), odd tail, in place. */
static void test_chunks_and_in_place(void** state) {
  (void) state;
  const size_t sizes[4] = {16383, 40000, 1, 17};
  for (uint32_t vt = 1; vt <= 2; vt++) {
    q8nn_backend_t vta = vta_backend(0, vt, 0, 0, 0);
    for (int i = 0; i < 4; i++) {
      struct vta_add_spec s;
      memset(&s, 0, sizeof(s));
      s.a_rank = s.b_rank = 1;
      s.a_shape[0] = s.b_shape[0] = sizes[i];
      random_quant(&s);
      s.in_place = i % 2;
      assert_int_equal(vta_add_check(vta, &s), 0);
    }
    q8nn_delete_backend(vta);
  }
  q8nn_backend_t vta = vta_backend(1, 2, 0, 0, 0); /* BATCH 2: 32-lane rows */
  struct vta_add_spec s;
  memset(&s, 0, sizeof(s));
  s.a_rank = 4, s.b_rank = 1;
  s.a_shape[0] = 2, s.a_shape[1] = 7, s.a_shape[2] = 9, s.a_shape[3] = 13, s.b_shape[0] = 13;
  random_quant(&s);
  assert_int_equal(vta_add_check(vta, &s), 0);
  q8nn_delete_backend(vta);
}

/* The add oracle over all 65536 pairs for random scales, against TFLite. */
static void test_add_oracle_exhaustive(void** state) {
  (void) state;
  int max_diff = 0;
  size_t differ = 0, total = 0;
  for (int t = 0; t < 40; t++) {
    struct vta_add_spec s;
    random_quant(&s);
    struct ref_add_params rp;
    assert_true(ref_add_params_from_scales(s.a_scale, s.a_zp, s.b_scale, s.b_zp, s.out_scale, s.out_zp, s.out_min,
                                           s.out_max, &rp));
    struct q8nn_vta_add_requant r;
    assert_true(q8nn_vta_add_requant_derive(rp.a_zp, rp.a_mult, rp.a_shift, rp.b_zp, rp.b_mult, rp.b_shift, rp.out_mult,
                                            rp.out_shift, rp.left_shift, rp.out_zp, rp.out_min, rp.out_max, &r));
    for (int a = -128; a < 128; a++) {
      for (int b = -128; b < 128; b++) {
        const int d = vta_abs(q8nn_vta_add_requant_apply(&r, (int8_t) a, (int8_t) b) -
                              ref_add_element(&rp, (int8_t) a, (int8_t) b));
        differ += d != 0;
        total++;
        if (d > max_diff) max_diff = d;
      }
    }
  }
  printf("add oracle vs TFLite over all int8 pairs: %zu of %zu differ (%.4f%%), max %d LSB\n", differ, total,
         100.0 * (double) differ / (double) total, max_diff);
  assert_true(max_diff <= 1);
}

/* The conv requantization oracle against TFLite's MultiplyByQuantizedMultiplier. */
static void test_conv_oracle_sweep(void** state) {
  (void) state;
  int max_diff = 0;
  size_t differ = 0, total = 0;
  for (int t = 0; t < 2000; t++) {
    const double real = (double) test_rand_float(1e-6f, 0.9f) * (test_rand_range(0, 3) == 0 ? 1.0 : 1e-2);
    int32_t mult, shift;
    if (!ref_quantize_multiplier(real, &mult, &shift)) continue;
    const int64_t sum_abs = test_rand_range(1, 300000);
    const int64_t bias = test_rand_range(-1000000, 1000000);
    struct q8nn_vta_conv_requant r;
    const int32_t zp = test_rand_range(-128, 127);
    if (!q8nn_vta_conv_requant_derive(mult, shift, bias, sum_abs, zp, -128, 127, &r)) continue;
    for (int k = 0; k < 200; k++) {
      const int32_t x = (int32_t) (((int64_t) test_rand() % (2 * 128 * sum_abs + 1)) - 128 * sum_abs);
      /* scale x down sometimes so that unsaturated outputs are frequent */
      int32_t acc = test_rand_range(0, 1) ? x : (int32_t) ((double) x * 256.0 * test_rand_float(0, 1) /
                                                           (128.0 * (double) sum_abs * real + 1.0));
      /* a GEMM sum of int8 products cannot leave +-128*sum|w| */
      if (acc > 128 * sum_abs) acc = (int32_t) (128 * sum_abs);
      if (acc < -128 * sum_abs) acc = (int32_t) (-128 * sum_abs);
      const int32_t tfl = ref_multiply_by_quantized_multiplier((int32_t) (acc + bias), mult, shift, 0) + zp;
      const int32_t expected = tfl < -128 ? -128 : tfl > 127 ? 127 : tfl;
      const int d = vta_abs(q8nn_vta_conv_requant_apply(&r, acc) - expected);
      differ += d != 0;
      total++;
      if (d > max_diff) max_diff = d;
    }
  }
  printf("conv requant oracle vs TFLite: %zu of %zu differ (%.4f%%), max %d LSB\n", differ, total,
         100.0 * (double) differ / (double) total, max_diff);
  assert_true(max_diff <= 1);
}

static int teardown(void** state) {
  vta_diff_print("vta add vs TFLite");
  return test_group_teardown(state);
}

/* Exact mode (the default) has no exact add yet: the add stays on the CPU, byte for byte TFLite. */
static void test_exact_mode_keeps_add_on_cpu(void** state) {
  (void) state;
  q8nn_backend_t vta = NULL;
  assert_int_equal(q8nn_create_vta_backend(NULL, &vta), q8nn_status_success);
  q8nn_operator_t op = NULL;
  const struct q8nn_add_quantization q = {3, 0.05f, -7, 0.02f, 1, 0.07f, -128, 127, NULL};
  assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &op), q8nn_status_success);
  assert_false(q8nn_backend_supports(vta, op));
  assert_int_equal(q8nn_operator_set_backend(op, vta), q8nn_status_unsupported_parameter);
  q8nn_delete_operator(op);
  q8nn_delete_backend(vta);
}

int main(void) {
  vta_test_requant = q8nn_vta_requant_16bit;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_mode_keeps_add_on_cpu),
      cmocka_unit_test(test_broadcast_sweep),
      cmocka_unit_test(test_chunks_and_in_place),
      cmocka_unit_test(test_add_oracle_exhaustive),
      cmocka_unit_test(test_conv_oracle_sweep),
  };
  return cmocka_run_group_tests_name("vta_backend_add", tests, test_group_setup, teardown);
}
