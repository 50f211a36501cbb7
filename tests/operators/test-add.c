/*
 * Add through the public API, exact against the reference (TFLite int8 add, or XNNPACK's qs8 add
 * with Q8NN_FLAG_XNNPACK_ADD, with numpy broadcasting), on every ISA mask and threadpool (see
 * test_add_run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <q8nn.h>

#include "reference/reference.h"
#include "testers/test-util.h"

struct add_sweep {
  size_t a_rank, b_rank;
  size_t a_shape[REF_MAX_DIMS], b_shape[REF_MAX_DIMS];
  int in_place;     /* 1: output aliases a, 2: aliases b */
  int fixed;        /* 1: q8nn_add_fixed derived from the scales by the reference */
  int8_t out_min, out_max;
};

static size_t elements(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static int run_add(const struct add_sweep* s, size_t i, const char* name) {
  const size_t na = elements(s->a_rank, s->a_shape), nb = elements(s->b_rank, s->b_shape);
  int8_t* a = malloc(na + 1);
  int8_t* b = malloc(nb + 1);
  test_fill_s8(a, na);
  test_fill_s8(b, nb);
  struct test_add_case c = {
      .a_rank = s->a_rank, .b_rank = s->b_rank,
      .a_shape = s->a_rank != 0 ? s->a_shape : NULL, .b_shape = s->b_rank != 0 ? s->b_shape : NULL,
      .a = a, .b = b,
      .a_zp = test_rand_range(-128, 127), .b_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
      .a_scale = test_rand_float(0.001f, 1.0f), .b_scale = test_rand_float(0.001f, 1.0f),
      .out_scale = test_rand_float(0.002f, 2.0f),
      .out_min = s->out_min, .out_max = s->out_max,
      .in_place = s->in_place, .name = name,
      .num_threadpools = i % 3 == 0 ? 0 : 2,
  };
  if (c.out_min == 0 && c.out_max == 0) {
    c.out_min = -128;
    c.out_max = 127;
  }
  /* every third case with XNNPACK's arithmetic: its ratio range [2^-10, 2^8) is narrower than the
     drawn scales', so some of them must be declined */
  c.xnnpack = !s->fixed && i % 3 == 2;
  int32_t fixed[7];
  struct ref_add_params p;
  if (s->fixed && ref_add_params_from_scales(c.a_scale, c.a_zp, c.b_scale, c.b_zp, c.out_scale, c.out_zp,
                                             c.out_min, c.out_max, &p)) {
    fixed[0] = p.left_shift;
    fixed[1] = p.a_mult;
    fixed[2] = p.a_shift;
    fixed[3] = p.b_mult;
    fixed[4] = p.b_shift;
    fixed[5] = p.out_mult;
    fixed[6] = p.out_shift;
    /* Exercise other left shifts than TFLite's 20 through the fixed path. */
    if (i % 4 == 1) {
      fixed[0] = test_rand_range(0, 20);
    }
    c.fixed = fixed;
  }
  const int failures = test_add_run(&c);
  if (failures != 0) {
    fprintf(stderr, "  case %s: a rank %zu [%zu %zu %zu %zu %zu %zu] b rank %zu [%zu %zu %zu %zu %zu %zu] in_place %d "
            "fixed %d xnnpack %d\n", name, s->a_rank, s->a_shape[0], s->a_shape[1], s->a_shape[2], s->a_shape[3],
            s->a_shape[4], s->a_shape[5], s->b_rank, s->b_shape[0], s->b_shape[1], s->b_shape[2], s->b_shape[3],
            s->b_shape[4], s->b_shape[5], s->in_place, s->fixed, c.xnnpack);
  }
  free(a);
  free(b);
  return failures;
}

/* Random compatible shapes: output dims 1..4, each operand dim either the output's or 1; ranks
   differ at random (missing leading dims broadcast). */
static void random_shapes(struct add_sweep* s, size_t rank) {
  size_t out[REF_MAX_DIMS];
  for (size_t d = 0; d < rank; d++) out[d] = (size_t) test_rand_range(1, 4);
  s->a_rank = rank - (size_t) test_rand_range(0, (int32_t) rank) * (test_rand() % 3 == 0);
  s->b_rank = rank - (size_t) test_rand_range(0, (int32_t) rank) * (test_rand() % 3 == 0);
  if (s->a_rank != rank && s->b_rank != rank) s->a_rank = rank;
  for (size_t d = 0; d < s->a_rank; d++) {
    s->a_shape[d] = test_rand() % 3 == 0 ? 1 : out[rank - s->a_rank + d];
  }
  for (size_t d = 0; d < s->b_rank; d++) {
    s->b_shape[d] = test_rand() % 3 == 0 ? 1 : out[rank - s->b_rank + d];
  }
}

static void test_broadcast_random(void** state) {
  (void) state;
  int failures = 0;
  for (size_t i = 0; i < 36; i++) {
    struct add_sweep s = {.fixed = (int) (i & 1)};
    random_shapes(&s, 1 + i % REF_MAX_DIMS);
    failures += run_add(&s, i, "broadcast_random");
  }
  assert_int_equal(failures, 0);
}

static void test_fixed_shapes(void** state) {
  (void) state;
  static const struct add_sweep cases[] = {
      {1, 1, {1}, {1}, 0, 0, 0, 0},
      {1, 1, {17}, {17}, 0, 1, 0, 0},
      {1, 1, {300}, {300}, 0, 0, 0, 0},  /* beyond vector widths */
      {2, 2, {7, 33}, {7, 33}, 0, 1, 0, 0},
      {2, 1, {5, 9}, {9}, 0, 0, 0, 0},   /* rank mismatch */
      {1, 2, {9}, {5, 9}, 0, 1, 0, 0},
      {2, 2, {5, 1}, {1, 9}, 0, 0, 0, 0}, /* outer product */
      {4, 4, {2, 3, 1, 2}, {1, 1, 3, 2}, 0, 1, 0, 0},
      {6, 6, {2, 1, 3, 1, 2, 3}, {1, 2, 1, 3, 2, 1}, 0, 0, 0, 0},
      {6, 1, {2, 2, 2, 2, 2, 5}, {5}, 0, 1, 0, 0},
      {3, 6, {1, 4, 1}, {2, 1, 2, 1, 4, 3}, 0, 0, 0, 0},
      {6, 6, {1, 1, 1, 1, 1, 1}, {2, 3, 2, 1, 2, 2}, 0, 1, 0, 0},
      {3, 3, {4, 1, 6}, {4, 5, 6}, 0, 0, -20, 20},
      {2, 2, {3, 8}, {3, 8}, 0, 1, 0, 127},
      {2, 2, {3, 8}, {3, 8}, 0, 0, 7, 7},
      /* at least Q8NN_ADD_MIN_PARALLEL_BYTES (128 KiB) of output: the only sizes that threads split,
         into 64-byte multiples with a tail */
      {1, 1, {150001}, {150001}, 0, 1, 0, 0},
      {2, 2, {3, 50001}, {3, 50001}, 0, 0, 0, 0},
      {2, 1, {3, 45007}, {45007}, 0, 1, 0, 0},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    failures += run_add(&cases[i], i, "fixed_shapes");
  }
  assert_int_equal(failures, 0);
}

static void test_scalars(void** state) {
  (void) state;
  static const struct add_sweep cases[] = {
      {0, 0, {0}, {0}, 0, 0, 0, 0},           /* scalar + scalar */
      {0, 1, {0}, {13}, 0, 1, 0, 0},          /* scalar on the left */
      {2, 0, {3, 5}, {0}, 0, 0, 0, 0},        /* scalar on the right */
      {6, 0, {1, 2, 1, 3, 1, 2}, {0}, 0, 1, 0, 0},
      {1, 1, {1}, {40}, 0, 0, 0, 0},          /* size-1 tensor, not a scalar */
      {3, 3, {1, 1, 1}, {2, 3, 4}, 0, 1, 0, 0},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    failures += run_add(&cases[i], i, "scalars");
  }
  assert_int_equal(failures, 0);
}

static void test_in_place(void** state) {
  (void) state;
  static const struct add_sweep cases[] = {
      {2, 2, {4, 9}, {4, 9}, 1, 0, 0, 0},
      {2, 2, {4, 9}, {4, 9}, 2, 1, 0, 0},
      {2, 1, {4, 9}, {9}, 1, 0, 0, 0},       /* a has the output shape, b broadcasts */
      {1, 3, {1}, {2, 3, 70}, 2, 1, 0, 0},   /* b has the output shape */
      {0, 2, {0}, {5, 5}, 2, 0, 0, 0},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    failures += run_add(&cases[i], i, "in_place");
  }
  assert_int_equal(failures, 0);
}

/* Scale ratios: equal scales, one input much smaller (tiny multiplier flushes), output scale so
   small the output multiplier needs a left shift (unsupported_parameter). */
static void test_scale_ratios(void** state) {
  (void) state;
  static const float ratios[][3] = {
      {1.0f, 1.0f, 1.0f}, {0.5f, 0.25f, 0.1f}, {1.0f, 1e-3f, 2.0f}, {1e-4f, 1.0f, 0.5f},
      {1.0f, 1e-12f, 1.0f}, {0.02f, 0.03f, 1e-6f}, {1.0f, 1.0f, 1e-7f}, {3.0f, 2.0f, 4e-6f},
      /* XNNPACK's bounds: ratios exactly 2^-10 and just below 2^8 (accepted), 2^8 (declined);
         powers of two make every rounding a tie */
      {0x1.0p-10f, 1.0f, 1.0f}, {255.9f, 0.5f, 1.0f}, {256.0f, 1.0f, 1.0f}, {0.5f, 0.25f, 1.0f},
      {1e-39f, 1.0f, 1.0f},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
    int8_t a[24], b[24];
    const size_t shape[2] = {4, 6};
    test_fill_s8(a, 24);
    test_fill_s8(b, 24);
    struct test_add_case c = {
        .a_rank = 2, .b_rank = 2, .a_shape = shape, .b_shape = shape, .a = a, .b = b,
        .a_zp = test_rand_range(-128, 127), .b_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
        .a_scale = ratios[i][0], .b_scale = ratios[i][1], .out_scale = ratios[i][2],
        .out_min = -128, .out_max = 127, .name = "scale_ratios", .num_threadpools = 2,
    };
    int f = test_add_run(&c);
    c.xnnpack = 1;
    c.name = "scale_ratios_xnnpack";
    f += test_add_run(&c);
    if (f != 0) {
      fprintf(stderr, "  case scale_ratios %zu: scales %g %g -> %g\n", i, ratios[i][0], ratios[i][1], ratios[i][2]);
    }
    failures += f;
  }
  assert_int_equal(failures, 0);
}

/* Scales whose add has the affine form (equal scales, power-of-two ratios, see ukernel.h) with each
   operand broadcast along the inner run (vaddc, and vaddc with the swapped parameters) and dense,
   runs long enough for the kernels' main loops, both arithmetics. */
static void test_affine_broadcast(void** state) {
  (void) state;
  static const float scales[][3] = {{1.0f, 1.0f, 1.0f}, {2.0f, 1.0f, 1.0f}, {1.0f, 4.0f, 2.0f}, {0.25f, 1.0f, 0.5f}};
  static const size_t full[3] = {2, 3, 200}, inner_one[3] = {2, 3, 1}, outer_one[3] = {1, 1, 200};
  const size_t* const shapes[][2] = {{full, full}, {full, inner_one}, {inner_one, full}, {outer_one, full}};
  int failures = 0;
  for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
    for (size_t j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++) {
      int8_t a[1200], b[1200];
      test_fill_s8(a, 1200);
      test_fill_s8(b, 1200);
      struct test_add_case c = {
          .a_rank = 3, .b_rank = 3, .a_shape = shapes[j][0], .b_shape = shapes[j][1], .a = a, .b = b,
          .a_zp = test_rand_range(-128, 127), .b_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127),
          .a_scale = scales[i][0], .b_scale = scales[i][1], .out_scale = scales[i][2],
          .out_min = -128, .out_max = 127, .name = "affine_broadcast", .num_threadpools = 2,
      };
      int f = test_add_run(&c);
      c.xnnpack = 1;
      c.name = "affine_broadcast_xnnpack";
      f += test_add_run(&c);
      if (f != 0) fprintf(stderr, "  case affine_broadcast %zu/%zu\n", i, j);
      failures += f;
    }
  }
  assert_int_equal(failures, 0);
}

/* TFLite adds without an exact linear form (ukernel.h, linear_guard): MLCommons' CIFAR-10 ResNet's
   first add and a 10/9 ratio, all 65536 input pairs dense, with a broadcast along the inner run (b,
   then a: the swapped parameters), in place, and with a ReLU-like clamp. */
static void test_guarded_linear(void** state) {
  (void) state;
  static const struct {
    float sa, sb, so;
    int32_t za, zb, zo;
  } sets[] = {{0.0393935516f, 0.104194961f, 0.0509456731f, -128, 4, -128}, {0.1f, 0.013f, 0.09f, 0, 0, 0}};
  static const size_t full[2] = {256, 256}, column[2] = {256, 1}, row[2] = {1, 256};
  int8_t* a = malloc(65536);
  int8_t* b = malloc(65536);
  int8_t* ac = malloc(256);
  int8_t* br = malloc(256);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(ac);
  assert_non_null(br);
  for (size_t i = 0; i < 65536; i++) a[i] = (int8_t) (i >> 8), b[i] = (int8_t) i;
  for (size_t i = 0; i < 256; i++) ac[i] = (int8_t) i, br[i] = (int8_t) i;
  int failures = 0;
  for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
    for (int variant = 0; variant < 5; variant++) {
      struct test_add_case c = {
          .a_rank = 2, .b_rank = 2, .a_shape = full, .b_shape = full, .a = a, .b = b,
          .a_zp = sets[i].za, .b_zp = sets[i].zb, .out_zp = sets[i].zo,
          .a_scale = sets[i].sa, .b_scale = sets[i].sb, .out_scale = sets[i].so,
          .out_min = -128, .out_max = 127, .name = "guarded_linear", .num_threadpools = 2,
      };
      if (variant == 1) c.a_shape = column, c.a = ac, c.b_shape = row, c.b = br; /* a broadcast */
      if (variant == 2) c.b_shape = row, c.b = br, c.a = a;                       /* b broadcast */
      if (variant == 3) c.in_place = 1;
      if (variant == 4) c.out_min = (int8_t) sets[i].zo;
      const int f = test_add_run(&c);
      if (f != 0) fprintf(stderr, "  case guarded_linear %zu, variant %d\n", i, variant);
      failures += f;
    }
  }
  free(a), free(b), free(ac), free(br);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_affine_broadcast),
      cmocka_unit_test(test_fixed_shapes),
      cmocka_unit_test(test_broadcast_random),
      cmocka_unit_test(test_scalars),
      cmocka_unit_test(test_in_place),
      cmocka_unit_test(test_scale_ratios),
      cmocka_unit_test(test_guarded_linear),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
