/* Every vadd kernel of the list (and its vaddc): lengths around the element tile, broadcast and
   in-place forms, zero points, clamps, left shifts up to 20 and input/output shifts over their
   whole legal range (TFLite arithmetic); scale ratios over XNNPACK's whole range (XNNPACK's). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/requantization.h"
#include "reference/reference.h"

#include "ukernels/sweep.h"
#include "ukernels/ukernel-tester.h"
#include "ukernels/emulated-select.h"

static void test_vadd_entry(void** state) {
  const struct q8nn_vadd_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  const size_t tile = e->element_tile;
  const size_t lengths[] = {1, 2, tile - 1, tile, tile + 1, 2 * tile + 7, 8 * tile - 1, 1000};
  int failures = 0;
  size_t i = 0;
  for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
    if (lengths[l] == 0) continue;
    for (int variant = 0; variant < 12; variant++, i++) {
      struct vadd_tester t = {0};
      t.n = lengths[l];
      t.broadcast_b = variant % 3 == 1;
      t.in_place = variant % 3 == 2;
      t.a_zero_point = sweep_zero_point(i);
      t.b_zero_point = sweep_zero_point(i + 1);
      t.output_zero_point = sweep_zero_point(i + 2);
      sweep_clamp(i / 3, t.output_zero_point, &t.output_min, &t.output_max);
      t.left_shift = variant < 8 ? 20 : test_rand_range(0, 20);
      /* input shifts: TFLite's are <= -1 (ratios <= 1/2); sweep the whole legal [-31, 0] too */
      t.shift_lo = variant % 4 == 3 ? -31 : -8;
      t.shift_hi = variant % 4 == 3 ? 0 : -1;
      /* XNNPACK entries: ratios over the whole accepted [2^-10, 2^8), equal ones, powers of two (ties) */
      switch (variant % 4) {
        case 0: t.a_ratio = test_rand_float(0.25f, 2.0f), t.b_ratio = test_rand_float(0.25f, 2.0f); break;
        case 1: t.a_ratio = t.b_ratio = ldexpf(1.0f, test_rand_range(-10, 7)); break;
        case 2: t.a_ratio = ldexpf(1.0f, test_rand_range(-10, 7)), t.b_ratio = 0x1.fffffep+7f; break;
        default:
          t.a_ratio = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-10, 7));
          t.b_ratio = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-10, 7));
          break;
      }
      if (!(t.a_ratio < 0x1.0p+8f)) t.a_ratio = 0x1.fffffep+7f;
      if (!(t.b_ratio < 0x1.0p+8f)) t.b_ratio = 0x1.fffffep+7f;
      failures += vadd_tester_run(&t, e);
      if (failures > 10) fail_msg("%s: too many mismatches", e->name);
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

/* Scales (a, b, output) of the exhaustive test: equal ones (MobileNetV2's adds), power-of-two ratios
   (the affine form exists), and ratios where it does not (the kernels' generic path). */
static const float exhaustive_scales[][3] = {
    {0.05f, 0.05f, 0.05f}, {1.0f, 1.0f, 2.0f},  {2.0f, 1.0f, 1.0f},   {1.0f, 4.0f, 2.0f},
    {0.25f, 1.0f, 1.0f},   {1.0f, 1.0f, 0.5f},  {0.7f, 1.3f, 0.9f},   {0.02f, 0.02f, 0.03f},
    {1.0f, 1.0f, 64.0f},   {1.0f, 0.125f, 0.0625f},
};
#define EXHAUSTIVE_SETS (sizeof(exhaustive_scales) / sizeof(exhaustive_scales[0]))

/* Params of set i for entry e (reference-derived), the affine form of `forms` included (see
   q8nn_add_affine_params_forms); 0 if out of range. */
static int exhaustive_params(const struct q8nn_vadd_entry* e, size_t i, int forms, struct ref_add_params* rp,
                             struct ref_xnn_add_params* xp, struct q8nn_qs8_add_params* p) {
  const float* s = exhaustive_scales[i];
  const int32_t za = i == 0 ? 3 : sweep_zero_point(i), zb = i == 0 ? 3 : sweep_zero_point(i + 1);
  const int32_t zo = i == 0 ? 3 : sweep_zero_point(i + 2);
  int32_t lo, hi;
  sweep_clamp(i, zo, &lo, &hi);
  memset(p, 0, sizeof(*p));
  p->a_zero_point = za, p->b_zero_point = zb, p->output_zero_point = zo;
  p->output_min = lo, p->output_max = hi;
  const int xnn = e->arithmetic == q8nn_add_arithmetic_xnnpack;
  if (xnn) {
    if (ref_xnn_add_params_from_scales(s[0], za, s[1], zb, s[2], zo, lo, hi, xp) != 0) return 0;
    p->xnn_a_multiplier = xp->a_multiplier, p->xnn_b_multiplier = xp->b_multiplier;
    p->xnn_bias = xp->bias, p->xnn_shift = xp->shift;
  } else {
    if (!ref_add_params_from_scales(s[0], za, s[1], zb, s[2], zo, lo, hi, rp)) return 0;
    p->left_shift = rp->left_shift;
    p->a_multiplier = rp->a_mult, p->a_shift = rp->a_shift;
    p->b_multiplier = rp->b_mult, p->b_shift = rp->b_shift;
    p->output_multiplier = rp->out_mult, p->output_shift = rp->out_shift;
  }
  q8nn_add_affine_params_forms(p, xnn, forms);
  return 1;
}

/* Every line, all 256 x 256 input pairs (vadd on one 65536-element run, vaddc once per b) for each
   parameter set, against the reference. */
static void test_vadd_exhaustive(void** state) {
  const struct q8nn_vadd_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  const int xnn = e->arithmetic == q8nn_add_arithmetic_xnnpack;
  /* a, b and y at their own offsets from a 64-byte boundary, different for every run (kernels that
     align their stores peel a head chunk) */
  int8_t* a_buf = malloc(65536 + 128);
  int8_t* b_buf = malloc(65536 + 128);
  int8_t* y_buf = malloc(65536 + 128);
  assert_non_null(a_buf);
  assert_non_null(b_buf);
  assert_non_null(y_buf);
  int8_t all_values[256];
  for (size_t i = 0; i < 256; i++) all_values[i] = (int8_t) ((int) i - 128);
  int failures = 0, affine[2] = {0, 0};
  /* each set twice: with the +128 form only, then with the signed-data form only */
  for (size_t run = 0; run < 2 * EXHAUSTIVE_SETS; run++) {
    const size_t set = run % EXHAUSTIVE_SETS;
    const int form = run < EXHAUSTIVE_SETS ? Q8NN_ADD_AFFINE_UNSIGNED : Q8NN_ADD_AFFINE_SIGNED;
    struct ref_add_params rp;
    struct ref_xnn_add_params xp;
    struct q8nn_qs8_add_params p;
    if (!exhaustive_params(e, set, form, &rp, &xp, &p)) continue;
    int8_t* a = a_buf + (64 - (uintptr_t) a_buf % 64) + run * 5 % 64;
    int8_t* b = b_buf + (64 - (uintptr_t) b_buf % 64) + (run % 3 == 0 ? run * 5 % 64 : run * 11 % 64);
    int8_t* y = y_buf + (64 - (uintptr_t) y_buf % 64) + (run % 2 == 0 ? run * 5 % 64 : run * 13 % 64);
    for (size_t i = 0; i < 65536; i++) a[i] = (int8_t) (i >> 8), b[i] = (int8_t) i;
    affine[form == Q8NN_ADD_AFFINE_SIGNED] += p.affine_valid;
    e->vadd(65536, a, b, y, &p);
    for (size_t i = 0; i < 65536; i++) {
      const int8_t expected = xnn ? ref_xnn_add_element(&xp, a[i], b[i]) : ref_add_element(&rp, a[i], b[i]);
      if (y[i] != expected && failures++ < 5) {
        print_error("%s: set %zu (affine %d, signed %d): add(%d, %d) = %d, expected %d\n", e->name, set,
                    (int) p.affine_valid, (int) p.affine_signed, a[i], b[i], y[i], expected);
      }
    }
    for (int bv = -128; bv <= 127; bv++) {
      const int8_t vb = (int8_t) bv;
      e->vaddc(256, all_values, &vb, y, &p);
      for (size_t i = 0; i < 256; i++) {
        const int8_t av = (int8_t) ((int) i - 128);
        const int8_t expected = xnn ? ref_xnn_add_element(&xp, av, vb) : ref_add_element(&rp, av, vb);
        if (y[i] != expected && failures++ < 5) {
          print_error("%s: set %zu (affine %d, signed %d): addc(%d, %d) = %d, expected %d\n", e->name, set,
                      (int) p.affine_valid, (int) p.affine_signed, av, vb, y[i], expected);
        }
      }
    }
  }
  free(a_buf), free(b_buf), free(y_buf);
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
  /* both affine paths must be exercised: equal scales and power-of-two ratios have the forms */
  if (affine[0] < 3 || affine[1] < 3) {
    fail_msg("%s: only %d / %d parameter sets with the +128 / signed affine form", e->name, affine[0], affine[1]);
  }
}

/* Kernel params of TFLite's arithmetic from the reference's (no affine or linear form yet). */
static void tflite_params(const struct ref_add_params* rp, int32_t za, int32_t zb, int32_t zo, int32_t lo, int32_t hi,
                          struct q8nn_qs8_add_params* p) {
  memset(p, 0, sizeof(*p));
  p->a_zero_point = za, p->b_zero_point = zb, p->output_zero_point = zo, p->output_min = lo, p->output_max = hi;
  p->left_shift = rp->left_shift;
  p->a_multiplier = rp->a_mult, p->a_shift = rp->a_shift;
  p->b_multiplier = rp->b_mult, p->b_shift = rp->b_shift;
  p->output_multiplier = rp->out_mult, p->output_shift = rp->out_shift;
}

/* vaddc of every a value with each b value into y (256 bytes), against TFLite's reference; returns
   the mismatches (the first few printed). */
static int vaddc_all_pairs(const struct q8nn_vadd_entry* e, size_t set, const struct ref_add_params* rp,
                           const struct q8nn_qs8_add_params* p, int8_t* y) {
  int8_t all_values[256];
  for (size_t i = 0; i < 256; i++) all_values[i] = (int8_t) ((int) i - 128);
  int failures = 0;
  for (int bv = -128; bv <= 127; bv++) {
    const int8_t vb = (int8_t) bv;
    e->vaddc(256, all_values, &vb, y, p);
    for (size_t i = 0; i < 256; i++) {
      const int8_t expected = ref_add_element(rp, all_values[i], vb);
      if (y[i] != expected && failures++ < 5) {
        print_error("%s: set %zu: addc(%d, %d) = %d, expected %d\n", e->name, set, all_values[i], vb, y[i], expected);
      }
    }
  }
  return failures;
}

/* TFLite adds without an affine form run XNNPACK's kernels with coefficients that reproduce TFLite's
   arithmetic (q8nn_add_linear_params): every xnn line, on scale sets with unequal ratios and clamps
   (ReLU6-like and single-value ones included), all 256 x 256 pairs (vadd and vaddc) against the
   TFLite reference. The search must find a form for at least 11 of the 12 sets. Set 3 has none:
   its a/output ratio is 10/9, so some sums fall exactly halfway between two outputs on both sides
   of 0, where TFLite rounds away from zero, which no single floor((A a + B b + C) / 2^k) does. */
static void test_vadd_tflite_linear(void** state) {
  const struct q8nn_vadd_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  static const float scales[][3] = {
      {0.7f, 1.3f, 0.9f},         {0.0237f, 0.0411f, 0.0519f}, {0.05f, 0.031f, 0.047f},  {0.1f, 0.013f, 0.09f},
      {0.0125f, 0.0321f, 0.0333f}, {0.31f, 0.29f, 0.6f},        {0.04f, 0.07f, 0.025f},  {0.0161f, 0.0077f, 0.0189f},
      {0.083f, 0.051f, 0.121f},   {0.002f, 0.0031f, 0.0039f},  {0.9f, 0.33f, 0.71f},    {0.0205f, 0.0205f, 0.0329f},
  };
  int8_t* a = malloc(65536);
  int8_t* b = malloc(65536);
  int8_t* y = malloc(65536);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(y);
  for (size_t i = 0; i < 65536; i++) a[i] = (int8_t) (i >> 8), b[i] = (int8_t) i;
  int failures = 0, found = 0;
  const size_t sets = sizeof(scales) / sizeof(scales[0]);
  for (size_t set = 0; set < sets; set++) {
    const float* s = scales[set];
    const int32_t za = sweep_zero_point(set + 3), zb = sweep_zero_point(set + 5), zo = sweep_zero_point(set + 7);
    int32_t lo = -128, hi = 127;
    if (set % 3 == 1) sweep_clamp(set, zo, &lo, &hi);
    if (set % 3 == 2) lo = zo, hi = zo + (int32_t) (6.0f / s[2]) > 127 ? 127 : zo + (int32_t) (6.0f / s[2]);
    struct ref_add_params rp;
    if (!ref_add_params_from_scales(s[0], za, s[1], zb, s[2], zo, lo, hi, &rp)) continue;
    struct q8nn_qs8_add_params p;
    tflite_params(&rp, za, zb, zo, lo, hi, &p);
    if (!q8nn_add_linear_params(&p)) continue;
    found++;
    e->vadd(65536, a, b, y, &p);
    for (size_t i = 0; i < 65536; i++) {
      const int8_t expected = ref_add_element(&rp, a[i], b[i]);
      if (y[i] != expected && failures++ < 5) {
        print_error("%s: set %zu: add(%d, %d) = %d, expected %d (A %d B %d bias %d shift %u)\n", e->name, set, a[i],
                    b[i], y[i], expected, (int) p.xnn_a_multiplier, (int) p.xnn_b_multiplier, (int) p.xnn_bias,
                    (unsigned) p.xnn_shift);
      }
    }
    failures += vaddc_all_pairs(e, set, &rp, &p, y);
  }
  free(a), free(b), free(y);
  if (failures != 0) fail_msg("%s: %d mismatches", e->name, failures);
  if (found < 11) fail_msg("%s: a linear form for only %d of %zu scale sets", e->name, found, sets);
}

/* TFLite adds with no exact linear form run the guarded one where a kernel has it (ukernel.h,
   linear_guard): every TFLite line (those without it ignore the guard), on scale sets without an
   exact linear form (MLCommons' CIFAR-10 ResNet's first add, random sets the search missed, set 3
   of test_vadd_tflite_linear), each also with a ReLU-like clamp: all 256 x 256 pairs as one run
   (unaligned, then in place on a) and vaddc for every b, against the TFLite reference. The pairs
   the form gets wrong must all be guarded, and some must exist, so that the exact path of the
   guarded chunks is what the bytes depend on. */
static void test_vadd_tflite_guarded(void** state) {
  const struct q8nn_vadd_entry* e = *state;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(e->isa), e->name);
  static const struct {
    float sa, sb, so;
    int32_t za, zb, zo;
  } sets[] = {
      {0.0393935516f, 0.104194961f, 0.0509456731f, -128, 4, -128},
      {0.159527555f, 0.378389359f, 0.334759593f, -14, 108, 115},
      {0.148416445f, 0.0372632742f, 0.1327672f, 79, -34, -56},
      {0.199641198f, 0.336447686f, 0.271212906f, 117, -96, -29},
      {0.1f, 0.013f, 0.09f, 0, 0, 0},
  };
  const size_t nsets = sizeof(sets) / sizeof(sets[0]);
  int8_t* a_buf = malloc(65536 + 64);
  int8_t* b_buf = malloc(65536 + 64);
  int8_t* y_buf = malloc(65536 + 64);
  assert_non_null(a_buf);
  assert_non_null(b_buf);
  assert_non_null(y_buf);
  int8_t* a = a_buf + 7;
  int8_t* b = b_buf + 13;
  int8_t* y = y_buf + 33;
  int failures = 0, guarded_forms = 0, wrong_guarded = 0;
  for (size_t run = 0; run < 2 * nsets; run++) {
    const size_t set = run % nsets;
    const int32_t zo = sets[set].zo;
    const int32_t lo = run < nsets ? -128 : zo, hi = 127;
    struct ref_add_params rp;
    if (!ref_add_params_from_scales(sets[set].sa, sets[set].za, sets[set].sb, sets[set].zb, sets[set].so, zo, lo, hi,
                                    &rp)) {
      fail_msg("set %zu: no TFLite parameters", set);
    }
    struct q8nn_qs8_add_params p;
    tflite_params(&rp, sets[set].za, sets[set].zb, zo, lo, hi, &p);
    if (q8nn_add_linear_params(&p)) continue; /* a clamp can remove the ties */
    if (p.linear_guard == 0) fail_msg("set %zu, run %zu: neither a linear form nor a guarded one", set, run);
    guarded_forms++;
    for (int av = -128; av <= 127; av++) {
      for (int bv = -128; bv <= 127; bv++) {
        const uint32_t acc = (uint32_t) (av * p.xnn_a_multiplier + bv * p.xnn_b_multiplier + p.xnn_bias);
        if (q8nn_add_xnn_scalar((int8_t) av, (int8_t) bv, &p) != ref_add_element(&rp, (int8_t) av, (int8_t) bv)) {
          if ((acc & p.linear_guard) != 0) fail_msg("set %zu: add(%d, %d) wrong and not guarded", set, av, bv);
          wrong_guarded++;
        }
      }
    }
    for (int pass = 0; pass < 2; pass++) {
      for (size_t i = 0; i < 65536; i++) a[i] = (int8_t) (i >> 8), b[i] = (int8_t) i;
      int8_t* out = pass == 0 ? y : a; /* pass 1: in place on a */
      e->vadd(65536, a, b, out, &p);
      for (size_t i = 0; i < 65536; i++) {
        const int8_t expected = ref_add_element(&rp, (int8_t) (i >> 8), (int8_t) i);
        if (out[i] != expected && failures++ < 5) {
          print_error("%s: set %zu%s: add(%d, %d) = %d, expected %d\n", e->name, set, pass ? " in place" : "",
                      (int) (int8_t) (i >> 8), (int) (int8_t) i, out[i], expected);
        }
      }
    }
    failures += vaddc_all_pairs(e, set, &rp, &p, y);
  }
  free(a_buf), free(b_buf), free(y_buf);
  if (failures != 0) fail_msg("%s: %d mismatches", e->name, failures);
  if (guarded_forms < 5) fail_msg("%s: a guarded linear form for only %d of %zu sets", e->name, guarded_forms, 2 * nsets);
  if (wrong_guarded == 0) fail_msg("%s: no pair needs the guard: the exact path is not tested", e->name);
}

int main(void) {
  test_seed();
  const size_t count = 3 * q8nn_vadd_list_size;
  struct CMUnitTest* tests = calloc(count, sizeof(struct CMUnitTest));
  char (*names)[160] = calloc(q8nn_vadd_list_size, sizeof(*names));
  char (*linear_names)[160] = calloc(q8nn_vadd_list_size, sizeof(*linear_names));
  size_t t = 0;
  for (size_t i = 0; i < q8nn_vadd_list_size; i++) {
    if (!selected(q8nn_vadd_list[i].isa, q8nn_vadd_list[i].name)) continue;
    tests[t].name = q8nn_vadd_list[i].name;
    tests[t].test_func = test_vadd_entry;
    tests[t++].initial_state = (void*) &q8nn_vadd_list[i];
    snprintf(names[i], sizeof(names[i]), "%s/exhaustive", q8nn_vadd_list[i].name);
    tests[t].name = names[i];
    tests[t].test_func = test_vadd_exhaustive;
    tests[t++].initial_state = (void*) &q8nn_vadd_list[i];
    if (q8nn_vadd_list[i].arithmetic == q8nn_add_arithmetic_xnnpack) {
      snprintf(linear_names[i], sizeof(linear_names[i]), "%s/tflite_linear", q8nn_vadd_list[i].name);
      tests[t].name = linear_names[i];
      tests[t].test_func = test_vadd_tflite_linear;
      tests[t++].initial_state = (void*) &q8nn_vadd_list[i];
    } else {
      snprintf(linear_names[i], sizeof(linear_names[i]), "%s/tflite_guarded", q8nn_vadd_list[i].name);
      tests[t].name = linear_names[i];
      tests[t].test_func = test_vadd_tflite_guarded;
      tests[t++].initial_state = (void*) &q8nn_vadd_list[i];
    }
  }
  const int result = _cmocka_run_group_tests("ukernel_vadd", tests, t, sweep_setup, NULL);
  free(names);
  free(linear_names);
  free(tests);
  return result;
}
