/* VTA backend: add with numpy broadcasting (up to 6 dims, scalars), fused clamp, in place, ACC
   chunking, 1 and 2 virtual threads, BATCH = 2, in both requantization modes; bit-exact with the
   host oracle, equal to TFLite (exact mode) or within 1 LSB (16-bit mode); no byte past the
   output written. Exact mode: the VTA program over all 256x256 int8 pairs (a [256,1] + b [256])
   for sampled scales, and the oracle against TFLite over all pairs for sampled and edge
   parameters. Also the oracles' own distance to TFLite over every
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

static const uint32_t modes[3] = {q8nn_vta_requant_exact, q8nn_vta_requant_16bit, q8nn_vta_requant_exact_limbs};

static void test_broadcast_sweep(void** state) {
  (void) state;
  for (int m = 0; m < 3; m++) {
    vta_test_requant = modes[m];
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
}

/* Longer than several ACC chunks (1022 rows per chunk with 2 threads in 16-bit mode, 101 in exact
   mode), odd tail, in place. */
static void test_chunks_and_in_place(void** state) {
  (void) state;
  const size_t sizes[4] = {16383, 40000, 1, 17};
  for (int m = 0; m < 3; m++) {
    vta_test_requant = modes[m];
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
}

/* Exact mode: the VTA program itself over all 256 x 256 int8 pairs (a [256,1] + b [256] broadcast
   to 256x256), for sampled scales and zero points, 1 and 2 virtual threads: equal to TFLite and
   to the oracle byte for byte (vta_add_check). */
static void test_exact_program_all_pairs(void** state) {
  (void) state;
  int8_t values[256];
  for (int i = 0; i < 256; i++) values[i] = (int8_t) (i - 128);
  for (uint32_t v = 0; v < 4; v++) {
    const uint32_t vt = 1 + v % 2;
    vta_test_requant = v < 2 ? q8nn_vta_requant_exact : q8nn_vta_requant_exact_limbs;
    q8nn_backend_t vta = vta_backend(0, vt, 0, 0, 0);
    for (int t = 0; t < 12; t++) {
      struct vta_add_spec s;
      memset(&s, 0, sizeof(s));
      random_quant(&s);
      /* an output scale >= 32x the inputs' makes zp * 2^rs leave int32: the late zero point */
      if (t % 3 == 0) s.out_scale = (s.a_scale > s.b_scale ? s.a_scale : s.b_scale) * test_rand_float(40.0f, 100.0f);
      s.a_rank = 2, s.a_shape[0] = 256, s.a_shape[1] = 1;
      s.b_rank = 1, s.b_shape[0] = 256;
      s.a = values, s.b = values;
      assert_int_equal(vta_add_check(vta, &s), 0);
    }
    q8nn_delete_backend(vta);
  }
  vta_test_requant = q8nn_vta_requant_exact;
}

static uint64_t exact_pairs, exact_refused, exact_short;

/* The exact oracle against TFLite's AddElementwise over all 65536 pairs; 0 differences. Both
   forms: the short one where the derivation finds one, and the limb form. */
static void check_exact_oracle_form(const struct ref_add_params* rp, bool limbs_only) {
  struct q8nn_vta_add_exact r;
  if (!q8nn_vta_add_exact_derive(rp->a_zp, rp->a_mult, rp->a_shift, rp->b_zp, rp->b_mult, rp->b_shift, rp->out_mult,
                                 rp->out_shift, rp->left_shift, rp->out_zp, rp->out_min, rp->out_max, limbs_only,
                                 &r)) {
    exact_refused++;
    if (getenv("VTA_TEST_VERBOSE") != NULL) {
      fprintf(stderr, "exact add refused: mult %d/%d/%d shift %d/%d/%d zp %d/%d/%d\n", rp->a_mult, rp->b_mult,
              rp->out_mult, rp->a_shift, rp->b_shift, rp->out_shift, rp->a_zp, rp->b_zp, rp->out_zp);
    }
    return;
  }
  if (limbs_only) assert_false(r.is_short);
  exact_short += r.is_short != 0;
  int bad = 0;
  for (int a = -128; a < 128; a++) {
    for (int b = -128; b < 128; b++) {
      const int8_t o = q8nn_vta_add_exact_apply(&r, (int8_t) a, (int8_t) b);
      const int8_t e = ref_add_element(rp, (int8_t) a, (int8_t) b);
      exact_pairs++;
      if (o != e && bad++ < 5) {
        fprintf(stderr, "exact add oracle: a %d b %d oracle %d tflite %d (mult %d/%d/%d shift %d/%d/%d zp %d/%d/%d)\n",
                a, b, o, e, rp->a_mult, rp->b_mult, rp->out_mult, rp->a_shift, rp->b_shift, rp->out_shift, rp->a_zp,
                rp->b_zp, rp->out_zp);
      }
    }
  }
  assert_int_equal(bad, 0);
}

static void check_exact_oracle(const struct ref_add_params* rp) {
  check_exact_oracle_form(rp, false);
  check_exact_oracle_form(rp, true);
}

static void test_exact_oracle_all_pairs(void** state) {
  (void) state;
  exact_pairs = exact_refused = exact_short = 0;
  /* TFLite's parameters from sampled scales (incl. very unequal ones and clamps) */
  for (int t = 0; t < 300; t++) {
    struct vta_add_spec s;
    random_quant(&s);
    if (t % 3 == 0) s.b_scale = s.a_scale * test_rand_float(1e-4f, 1e4f);
    if (t % 5 == 0) s.out_scale = (s.a_scale > s.b_scale ? s.a_scale : s.b_scale) * test_rand_float(0.01f, 100.0f);
    struct ref_add_params rp;
    if (!ref_add_params_from_scales(s.a_scale, s.a_zp, s.b_scale, s.b_zp, s.out_scale, s.out_zp, s.out_min, s.out_max,
                                    &rp)) {
      continue;
    }
    check_exact_oracle(&rp);
  }
  /* edge parameters: multipliers 2^30, 2^31 - 1 and 0, shifts 0, -1, -31, extreme zero points */
  const int32_t mults[4] = {1 << 30, INT32_MAX, (1 << 30) + 0x7FF, 0};
  const int32_t shifts[4] = {0, -1, -13, -31};
  const int32_t zps[3] = {-128, 0, 127};
  for (int i = 0; i < 4 * 4 * 3 * 4; i++) {
    const struct ref_add_params rp = {zps[i % 3], zps[(i / 3) % 3], zps[(i / 9) % 3], 20,
                                      mults[i % 4], shifts[(i / 4) % 4], mults[(i / 16) % 4], shifts[(i / 2) % 4],
                                      mults[(i / 3) % 4] == 0 ? 1 << 30 : mults[(i / 3) % 4], -shifts[i % 4] / 2 - 18,
                                      -128, 127};
    check_exact_oracle(&rp);
  }
  printf("exact add oracle vs TFLite: %llu pairs, 0 differ; %llu short forms found; %llu parameter sets refused "
         "(stay on the CPU)\n",
         (unsigned long long) exact_pairs, (unsigned long long) exact_short, (unsigned long long) exact_refused);
  assert_true(exact_pairs > 300 * 65536 / 2);
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

/* Exact mode (the default) lowers the add too. */
static void test_exact_mode_runs_add_on_vta(void** state) {
  (void) state;
  q8nn_backend_t vta = NULL;
  assert_int_equal(q8nn_create_vta_backend(NULL, &vta), q8nn_status_success);
  q8nn_operator_t op = NULL;
  const struct q8nn_add_quantization q = {3, 0.05f, -7, 0.02f, 1, 0.07f, -128, 127, NULL};
  assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &op), q8nn_status_success);
  assert_true(q8nn_backend_supports(vta, op));
  assert_int_equal(q8nn_operator_set_backend(op, vta), q8nn_status_success);
  q8nn_delete_operator(op);
  q8nn_delete_backend(vta);
}

int main(void) {
  vta_test_requant = q8nn_vta_requant_16bit;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_mode_runs_add_on_vta),
      cmocka_unit_test(test_exact_oracle_all_pairs),
      cmocka_unit_test(test_exact_program_all_pairs),
      cmocka_unit_test(test_broadcast_sweep),
      cmocka_unit_test(test_chunks_and_in_place),
      cmocka_unit_test(test_add_oracle_exhaustive),
      cmocka_unit_test(test_conv_oracle_sweep),
  };
  return cmocka_run_group_tests_name("vta_backend_add", tests, test_group_setup, teardown);
}
