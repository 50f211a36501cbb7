/*
 * Multiply through the public API, exact against the reference (TFLite's MUL, PyTorch's quantized
 * mul and XNNPACK's qs8 multiply, tests/reference/reference-model.c), int8 and uint8, with numpy broadcasting
 * (either operand broadcast, both dense, scalars, ranks up to 6), output aliasing a dense operand,
 * on every ISA mask (each line's table-lookup kernel) and thread pool; and the refusals.
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

#include <q8nn.h>

#include "reference/reference-model.h"
#include "reference/reference.h"
#include "testers/test-util.h"

struct mul_case {
  int arithmetic;   /* 0 TFLite, 1 PyTorch, 2 XNNPACK */
  int u8, in_place; /* in_place: the output aliases a (a has the output's shape) */
  size_t a_rank, b_rank;
  size_t a_shape[REF_MAX_DIMS], b_shape[REF_MAX_DIMS];
  int32_t a_zp, b_zp, out_zp, out_min, out_max; /* int8 terms */
  float a_scale, b_scale, out_scale;
};

static size_t elements(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static const uint32_t arithmetic_flags[3] = {0, Q8NN_FLAG_PYTORCH_REQUANTIZE, Q8NN_FLAG_XNNPACK_MULTIPLY};

/* Returns the failures (0 or 1); *declined when the arithmetic refuses the scales (the reference's
   TFLite refusals, XNNPACK's scale range), which create must then refuse too. */
static int run_case(const struct mul_case* c, size_t pool_index, const char* mask, int* declined) {
  size_t out_rank, out_shape[REF_MAX_DIMS];
  assert_true(ref_broadcast_shape(c->a_rank, c->a_shape, c->b_rank, c->b_shape, &out_rank, out_shape));
  const size_t na = elements(c->a_rank, c->a_shape), nb = elements(c->b_rank, c->b_shape);
  const size_t n = elements(out_rank, out_shape);
  int8_t* a = malloc(na + 1);
  int8_t* b = malloc(nb + 1);
  int8_t* expected = malloc(n);
  int8_t* out = malloc(n + 16);
  test_fill_s8(a, na);
  test_fill_s8(b, nb);
  *declined = !ref_mul_sub_s8(c->arithmetic + 1, c->a_rank, c->a_shape, a, c->a_scale, c->a_zp, c->b_rank,
                              c->b_shape, b, c->b_scale, c->b_zp, c->out_scale, c->out_zp, c->out_min, c->out_max,
                              expected);
  if (c->arithmetic == 2) {
    const volatile float product = c->a_scale * c->b_scale;
    const float m = product / c->out_scale;
    *declined |= !(m >= 0x1.0p-16f && m < 0x1.0p+8f);
  }
  const uint8_t flip = (uint8_t) (c->u8 ? 0x80 : 0);
  const int32_t shift = c->u8 ? 128 : 0;
  for (size_t i = 0; i < na; i++) a[i] = (int8_t) ((uint8_t) a[i] ^ flip);
  for (size_t i = 0; i < nb; i++) b[i] = (int8_t) ((uint8_t) b[i] ^ flip);
  const struct q8nn_multiply_quantization q = {
      c->a_zp + shift, c->a_scale, c->b_zp + shift, c->b_scale, c->out_zp + shift, c->out_scale,
      c->out_min + shift, c->out_max + shift};
  const uint32_t flags = arithmetic_flags[c->arithmetic];
  q8nn_operator_t op = NULL;
  const enum q8nn_status created =
      c->u8 ? q8nn_create_multiply_nd_u8(&q, flags, &op) : q8nn_create_multiply_nd_s8(&q, flags, &op);
  int failures = 0;
  if (*declined) {
    if (created != q8nn_status_unsupported_parameter) failures++;
  } else {
    assert_int_equal(created, q8nn_status_success);
    memset(out, TEST_GUARD_BYTE, n + 16);
    int8_t* y = c->in_place ? a : out;
    const enum q8nn_status set =
        c->u8 ? q8nn_setup_multiply_nd_u8(op, c->a_rank, c->a_shape, c->b_rank, c->b_shape, (const uint8_t*) a,
                                          (const uint8_t*) b, (uint8_t*) y)
              : q8nn_setup_multiply_nd_s8(op, c->a_rank, c->a_shape, c->b_rank, c->b_shape, a, b, y);
    assert_int_equal(set, q8nn_status_success);
    assert_int_equal(pool_index < TEST_NUM_THREADPOOLS
                         ? q8nn_run_operator(op, test_threadpool(pool_index))
                         : q8nn_run_operator_on(op, test_host_pool(pool_index - TEST_NUM_THREADPOOLS)),
                     q8nn_status_success);
    for (size_t i = 0; i < n; i++) {
      const int8_t got = (int8_t) ((uint8_t) y[i] ^ flip);
      if (got != expected[i]) {
        fprintf(stderr, "FAIL %s %s %s rank %zu/%zu, %zu elements: [%zu] %d, reference %d\n",
                q8nn_operator_kernel_name(op), c->u8 ? "u8" : "s8", mask, c->a_rank, c->b_rank, n, i, got,
                expected[i]);
        failures++;
        break;
      }
    }
    if (!c->in_place && out[n] != TEST_GUARD_BYTE) failures++;
  }
  q8nn_delete_operator(op);
  free(a), free(b), free(expected), free(out);
  return failures;
}

static void random_case(struct mul_case* c, size_t i) {
  memset(c, 0, sizeof(*c));
  c->arithmetic = (int) (i % 3);
  c->u8 = (int) ((i / 3) % 2);
  const size_t rank = 1 + test_rand() % 4;
  c->a_rank = c->b_rank = rank;
  for (size_t d = 0; d < rank; d++) c->a_shape[d] = c->b_shape[d] = 1 + test_rand() % 9;
  switch (i % 5) {
    case 0: break; /* both dense */
    case 1: /* b per channel (the last dimension), a squeeze-excitation scale */
    case 2:
      for (size_t d = 0; d + 1 < rank; d++) c->b_shape[d] = 1;
      if (i % 5 == 2 && rank > 1) c->b_shape[rank - 1] = 1, c->b_shape[rank - 2] = c->a_shape[rank - 2];
      break;
    case 3: /* a broadcast along the inner dimensions (an NCHW scale times an image) */
      c->b_shape[rank - 1] = 16 + test_rand() % 300; /* rows long enough for the vector lookups */
      c->a_shape[rank - 1] = 1;
      if (rank > 2) c->a_shape[rank - 2] = 1;
      break;
    default: c->b_rank = 0; break; /* a scalar */
  }
  c->in_place = i % 5 != 3 && i % 7 == 0;
  c->a_zp = test_rand_range(-128, 127);
  c->b_zp = test_rand_range(-128, 127);
  c->out_zp = test_rand_range(-128, 127);
  c->a_scale = test_rand_float(0.001f, 0.5f);
  c->b_scale = test_rand_float(0.001f, 0.5f);
  c->out_scale = test_rand_float(0.0001f, 0.2f);
  c->out_min = -128;
  c->out_max = 127;
  if (i % 6 == 5) c->out_min = c->out_zp; /* a fused ReLU */
}

static void test_multiply_sweep(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  size_t cases = 0, declined_cases = 0;
  for (size_t i = 0; i < 240 && failures == 0; i++) {
    struct mul_case c;
    random_case(&c, i);
    for (size_t m = 0; m < num_masks; m++) {
      q8nn_set_isa_mask(masks[m]);
      int declined = 0;
      failures += run_case(&c, (i + m) % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS), test_isa_name(masks[m]),
                           &declined);
      declined_cases += declined != 0 && m == 0;
    }
    cases++;
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  printf("multiply: %zu cases on every ISA mask, %zu declined as the reference declines them\n", cases,
         declined_cases);
  assert_int_equal(failures, 0);
  assert_true(declined_cases < cases / 3);
}

/* Ties of PyTorch's rounding (products whose scaled value is k + 1/2) and extreme scales: output
   scales that make the multiplier a power of two, on all 65536 pairs of one broadcast shape (the
   table's rows), and on 65536 random dense pairs on every ISA mask (the dense kernels). */
static void test_multiply_every_pair(void** state) {
  (void) state;
  static const float out_scales[] = {0.25f, 0.5f, 1.0f, 4.0f, 0.03125f, 0.0078125f};
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  for (size_t k = 0; k < 2 * 6 * 6 && failures == 0; k++) {
    const int dense = k >= 36;
    struct mul_case c;
    memset(&c, 0, sizeof(c));
    c.arithmetic = (int) (k % 3);
    c.u8 = (int) ((k / 3) % 2);
    c.a_rank = c.b_rank = 2;
    c.a_shape[0] = 256, c.a_shape[1] = 256; /* every a in each row */
    c.b_shape[0] = 256, c.b_shape[1] = dense ? 256 : 1; /* one b per row, or pairs at random */
    c.a_zp = test_rand_range(-128, 127);
    c.b_zp = test_rand_range(-128, 127);
    c.out_zp = test_rand_range(-128, 127);
    c.a_scale = 0.5f, c.b_scale = 0.25f, c.out_scale = out_scales[(k % 36) / 6];
    c.out_min = -128, c.out_max = 127;
    for (size_t m = 0; m < (dense ? num_masks : 1) && failures == 0; m++) {
      if (dense) q8nn_set_isa_mask(masks[m]);
      int declined = 0;
      /* run_case fills a and b at random: the dense 256x256 a covers the byte values many times */
      failures += run_case(&c, k % TEST_NUM_THREADPOOLS, dense ? test_isa_name(masks[m]) : "all", &declined);
      assert_false(declined);
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

/* TFLite's arithmetic through the guarded epilogue (the x86 dense kernels, docs/guarded-epilogue.md):
   65536 random dense pairs per case on every ISA mask, multipliers from 2^-14 to 1/2 (shifts -1 to
   -14, where the guard runs) and just outside (shifts 0 and -15, where it must not), clamps with
   and without the sign-dependent constant; about 2^-13 of the lanes fall in the flag window, so
   every case takes the exact fallback too. */
static void test_multiply_guarded(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  for (size_t k = 0; k < 30 && failures == 0; k++) {
    struct mul_case c;
    memset(&c, 0, sizeof(c));
    c.arithmetic = 0;
    c.u8 = (int) (k % 2);
    c.a_rank = c.b_rank = 2;
    c.a_shape[0] = c.b_shape[0] = 256, c.a_shape[1] = c.b_shape[1] = 256;
    c.a_zp = test_rand_range(-128, 127);
    c.b_zp = test_rand_range(-128, 127);
    c.out_zp = test_rand_range(-128, 127);
    c.a_scale = test_rand_float(0.01f, 0.5f);
    c.b_scale = test_rand_float(0.01f, 0.5f);
    /* real multiplier 2^e x [1, 2): e from -15 (shift -14) to -2, then -16 and 0 */
    const int e = k < 26 ? -15 + (int) (k % 14) : k % 2 ? -16 : 0;
    c.out_scale = c.a_scale * c.b_scale / ldexpf(test_rand_float(1.0f, 1.99f), e);
    c.out_min = k % 3 == 2 ? c.out_zp : -128;
    c.out_max = k % 5 == 4 ? (c.out_zp < 100 ? c.out_zp + 27 : 127) : 127;
    for (size_t m = 0; m < num_masks && failures == 0; m++) {
      q8nn_set_isa_mask(masks[m]);
      int declined = 0;
      failures += run_case(&c, (k + m) % TEST_NUM_THREADPOOLS, test_isa_name(masks[m]), &declined);
      assert_false(declined);
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

static void test_multiply_refusals(void** state) {
  (void) state;
  const struct q8nn_multiply_quantization good = {1, 0.5f, -3, 0.25f, 0, 0.1f, -128, 127};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  struct q8nn_multiply_quantization q = good;
  assert_int_equal(q8nn_create_multiply_nd_s8(NULL, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, 0, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, 0x1, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, Q8NN_FLAG_PYTORCH_REQUANTIZE | Q8NN_FLAG_XNNPACK_MULTIPLY, &op),
                   q8nn_status_invalid_parameter);
  q.output_scale = 1.0e4f; /* XNNPACK's ratio 0.125 / 1e4 below 2^-16; the others take it */
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, Q8NN_FLAG_XNNPACK_MULTIPLY, &op), q8nn_status_unsupported_parameter);
  q = good;
  q.a_zero_point = 128;
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.output_min = 5, q.output_max = 4;
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.output_max = 200; /* a uint8 clamp on the int8 operator */
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.b_scale = 0.0f;
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, Q8NN_FLAG_PYTORCH_REQUANTIZE, &op), q8nn_status_invalid_parameter);
  q = good;
  q.output_scale = 1e-12f; /* multiplier 1.25e11: TFLite's shift above 30, PyTorch's int32 range */
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, 0, &op), q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, Q8NN_FLAG_PYTORCH_REQUANTIZE, &op),
                   q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_create_multiply_nd_s8(&q, Q8NN_FLAG_XNNPACK_MULTIPLY, &op), q8nn_status_unsupported_parameter);
  q = good;
  q.a_zero_point = -1; /* below uint8's range */
  assert_int_equal(q8nn_create_multiply_nd_u8(&q, 0, &op), q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);

  /* setup: the add's checks, and the operator kinds kept apart */
  assert_int_equal(q8nn_create_multiply_nd_s8(&good, 0, &op), q8nn_status_success);
  int8_t a[64] = {0}, b[64] = {0}, y[64];
  const size_t s4[1] = {4}, s3[1] = {3}, s1[1] = {1};
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_multiply_nd_s8(op, 1, s4, 1, s3, a, b, y), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_multiply_nd_s8(op, 1, s4, 1, s1, a, NULL, y), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_multiply_nd_s8(op, 1, s4, 1, s1, a, b, b), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_multiply_nd_u8(op, 1, s4, 1, s1, (uint8_t*) a, (uint8_t*) b, (uint8_t*) y),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 1, s4, 1, s1, a, b, y), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_multiply_nd_s8(op, 1, s4, 1, s1, a, b, y), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  q8nn_delete_operator(op);
  const struct q8nn_add_quantization aq = {0, 0.5f, 0, 0.5f, 0, 1.0f, -128, 127, NULL};
  assert_int_equal(q8nn_create_add_nd_s8(&aq, 0, &op), q8nn_status_success);
  assert_int_equal(q8nn_setup_multiply_nd_s8(op, 1, s4, 1, s1, a, b, y), q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_multiply_sweep),
      cmocka_unit_test(test_multiply_every_pair),
      cmocka_unit_test(test_multiply_guarded),
      cmocka_unit_test(test_multiply_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
