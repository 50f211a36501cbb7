/*
 * Shape-aware tile choice (src/tile-select.c): for every ISA mask and requantization the choice is
 * a line of the dispatch tier's ISA that implements the requantization, setup only moves inside
 * the packing family chosen at create, the same shape always gets the same line, and convolutions
 * on shapes where the choice can differ from the first line are exact against the reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <q8nn.h>

#include "conv-sweep.h"
#include "dispatch.h"
#include "testers/test-util.h"

static const size_t ms[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 25, 49, 196, 784, 3136, 12544};
static const size_t ns[] = {1, 3, 8, 16, 17, 24, 32, 40, 64, 96, 144, 320, 1280};
static const size_t ks[] = {1, 3, 4, 16, 24, 64, 144, 960};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Same packed weights: gemm and igemm entries have the same fields. */
#define assert_same_family(a, b)                   \
  do {                                             \
    assert_int_equal((a)->isa, (b)->isa);          \
    assert_int_equal((a)->nr, (b)->nr);            \
    assert_int_equal((a)->kr, (b)->kr);            \
    assert_int_equal((a)->input_offset, (b)->input_offset); \
    assert_ptr_equal((a)->pack, (b)->pack);        \
  } while (0)

static void test_choice_is_valid_and_deterministic(void** state) {
  (void) state;
  uint32_t masks[8];
  const size_t nmasks = test_isa_masks(masks, 8);
  for (size_t mi = 0; mi < nmasks; mi++) {
    assert_int_equal(q8nn_set_isa_mask(masks[mi]), q8nn_status_success);
    const struct q8nn_dispatch d = q8nn_get_dispatch(0);
    for (int r = 0; r < 3; r++) {
      for (size_t ni = 0; ni < COUNT(ns); ni++) {
        for (size_t ki = 0; ki < COUNT(ks); ki++) {
          const size_t n = ns[ni], k = ks[ki];
          const struct q8nn_gemm_entry* g = q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, n, k);
          assert_non_null(g->fn[r]);
          assert_int_equal(g->isa, d.gemm[r]->isa);
          assert_ptr_equal(g, q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, n, k));
          const struct q8nn_igemm_entry* ig = q8nn_choose_igemm_tile(d.igemm[r], r, 0, 0, n, k, 9);
          assert_non_null(ig->fn[r]);
          assert_int_equal(ig->isa, d.igemm[r]->isa);
          assert_ptr_equal(ig, q8nn_choose_igemm_tile(d.igemm[r], r, 0, 0, n, k, 9));
          for (size_t i = 0; i < COUNT(ms); i++) {
            const struct q8nn_gemm_entry* gm = q8nn_choose_gemm_tile(g, r, 1, ms[i], n, k);
            assert_non_null(gm->fn[r]);
            assert_same_family(gm, g);
            assert_ptr_equal(gm, q8nn_choose_gemm_tile(g, r, 1, ms[i], n, k));
            const struct q8nn_igemm_entry* igm = q8nn_choose_igemm_tile(ig, r, 1, ms[i], n, k, 9);
            assert_non_null(igm->fn[r]);
            assert_same_family(igm, ig);
            assert_ptr_equal(igm, q8nn_choose_igemm_tile(ig, r, 1, ms[i], n, k, 9));
          }
        }
      }
    }
  }
  assert_int_equal(q8nn_set_isa_mask(Q8NN_ISA_ALL), q8nn_status_success);
}

/* A tier without a measured rate keeps the list order: the portable tier always runs its first line. */
static void test_unrated_tier_keeps_first_line(void** state) {
  (void) state;
  assert_int_equal(q8nn_set_isa_mask(0), q8nn_status_success);
  const struct q8nn_dispatch d = q8nn_get_dispatch(0);
  for (int r = 0; r < 3; r++) {
    for (size_t i = 0; i < COUNT(ms); i++) {
      assert_ptr_equal(q8nn_choose_gemm_tile(d.gemm[r], r, 1, ms[i], 24, 16), d.gemm[r]);
      assert_ptr_equal(q8nn_choose_igemm_tile(d.igemm[r], r, 1, ms[i], 24, 16, 9), d.igemm[r]);
    }
  }
  assert_int_equal(q8nn_set_isa_mask(Q8NN_ISA_ALL), q8nn_status_success);
}

/* AVX-512 tier (where the host has it): the cost model's use of M. At 7x7 (M = 49) 8x32c4 would
   compute 56 rows and the 7-row tile of its family wins; at M = 196 their modelled costs are equal
   (200/196 rows at rate 1000 against 196/196 at 980) and the tie keeps the list's first line; at
   M = 12544 (no padding for either) the faster 8x32c4. */
static void test_avx512_rows_choice(void** state) {
  (void) state;
  if ((q8nn_get_active_isa() & Q8NN_ISA_X86_AVX512VNNI) == 0) skip();
  /* the AMX lines (first where the host has them) are one tile */
  assert_int_equal(q8nn_set_isa_mask(Q8NN_ISA_ALL & ~Q8NN_ISA_X86_AMX), q8nn_status_success);
  const struct q8nn_dispatch d = q8nn_get_dispatch(0);
  for (int r = 0; r < 3; r++) {
    const struct q8nn_gemm_entry* g = q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, 320, 960);
    if (g->nr != 32) continue; /* another family chosen at create: nothing to compare here */
    assert_int_equal(q8nn_choose_gemm_tile(g, r, 1, 49, 320, 960)->mr, 7);
    assert_int_equal(q8nn_choose_gemm_tile(g, r, 1, 196, 384, 64)->mr, 8); /* equal up to rounding */
    assert_int_equal(q8nn_choose_gemm_tile(g, r, 1, 12544, 320, 960)->mr, 8);
  }
  assert_int_equal(q8nn_set_isa_mask(Q8NN_ISA_ALL), q8nn_status_success);
}

/* AVX-VNNI tier (where the host has it): 6x16c4 where N fills its 16-channel blocks; 8x8c4 where
   they would pad N = 24 to 32 (24 / 855 < 32 / 1000) and where N = 8 (8 / 855 < 16 / 1000). */
static void test_avxvnni_choice(void** state) {
  (void) state;
  if ((q8nn_get_active_isa() & Q8NN_ISA_X86_AVXVNNI) == 0) skip();
  assert_int_equal(q8nn_set_isa_mask(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2), q8nn_status_success);
  const struct q8nn_dispatch d = q8nn_get_dispatch(0);
  for (int r = 0; r < 3; r++) {
    assert_int_equal(q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, 144, 24)->nr, 16);
    assert_int_equal(q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, 320, 960)->mr, 6);
    assert_int_equal(q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, 24, 144)->nr, 8);
    assert_int_equal(q8nn_choose_gemm_tile(d.gemm[r], r, 0, 0, 8, 64)->nr, 8);
    assert_int_equal(q8nn_choose_igemm_tile(d.igemm[r], r, 0, 0, 32, 27, 1)->mr, 6);
  }
  assert_int_equal(q8nn_set_isa_mask(Q8NN_ISA_ALL), q8nn_status_success);
}

/* Few pixels and odd channel counts, where a tile other than the first line can win; every mask and
   rounding, exact against the reference (test_conv_run), 1x1 (gemm) and 3x3 (igemm). */
static void test_small_shapes_exact(void** state) {
  (void) state;
  int failures = 0;
  static const size_t hw[][2] = {{1, 1}, {1, 3}, {1, 5}, {2, 3}, {3, 3}, {7, 7}, {1, 13}};
  for (size_t i = 0; i < COUNT(hw); i++) {
    for (size_t kk = 1; kk <= 3; kk += 2) {
      struct sweep_conv s = {
          .in_h = hw[i][0], .in_w = hw[i][1], .in_c = 20 + i, .out_c = 8 + 9 * i, .k_h = kk, .k_w = kk,
          .pad_top = kk / 2, .pad_left = kk / 2, .pad_bottom = kk / 2, .pad_right = kk / 2,
          .in_zp = test_rand_range(-128, 127), .out_zp = test_rand_range(-128, 127), .rounding = (int) (i % 3),
          .num_threadpools = 2,
      };
      failures += sweep_conv_run(&s, "tile_select_small");
    }
  }
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_choice_is_valid_and_deterministic),
      cmocka_unit_test(test_unrated_tier_keeps_first_line),
      cmocka_unit_test(test_avx512_rows_choice),
      cmocka_unit_test(test_avxvnni_choice),
      cmocka_unit_test(test_small_shapes_exact),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
