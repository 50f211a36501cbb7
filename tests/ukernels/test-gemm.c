/* Every gemm and igemm kernel of the lists over sweeps around its tile: rows 1..MR (and several
   MR blocks in one call for gemm lines with mloop), channels
   around NR, K below / at / above the K block, taps, zero points, clamps, scale regimes, every
   requantization the entry implements, padded (zero) rows and offset pointers for igemm. */
#include <stdio.h>
#include <stdlib.h>

#include "ukernels/sweep.h"
#include "ukernels/ukernel-tester.h"

#include "ukernels/emulated-select.h"

static size_t n_values(size_t nr, size_t* out) {
  const size_t cand[] = {1, nr - 1, nr, nr + 1, 2 * nr + 3, 3 * nr};
  size_t count = 0;
  for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
    if (cand[i] == 0) continue;
    int dup = 0;
    for (size_t j = 0; j < count; j++) dup |= out[j] == cand[i];
    if (!dup) out[count++] = cand[i];
  }
  return count;
}

static size_t k_values(size_t kr, size_t* out) {
  /* 96, 144, 160: the AMX gemm's K steps of 48 and 40 bytes (q8nn_amx_kstep); 68: its 64-byte steps with
     a copied tail of 4 */
  const size_t cand[] = {1, 2, 3, kr - 1, kr, kr + 1, 2 * kr + 3, 4 * kr, 24, 37, 48, 68, 96, 144, 160};
  size_t count = 0;
  for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
    if (cand[i] == 0) continue;
    int dup = 0;
    for (size_t j = 0; j < count; j++) dup |= out[j] == cand[i];
    if (!dup) out[count++] = cand[i];
  }
  return count;
}

static void run_sweep(const struct q8nn_gemm_entry* gemm, const struct q8nn_igemm_entry* igemm) {
  const char* name = gemm != NULL ? gemm->name : igemm->name;
  SWEEP_REQUIRE_ISA(SWEEP_ISA(gemm != NULL ? gemm->isa : igemm->isa), name);
  const size_t mr = gemm != NULL ? gemm->mr : igemm->mr;
  const size_t nr = gemm != NULL ? gemm->nr : igemm->nr;
  const size_t kr = gemm != NULL ? gemm->kr : igemm->kr;
  size_t ns[8], ks_[16];
  const size_t nn = n_values(nr, ns), nk = k_values(kr, ks_);
  const size_t taps[] = {1, 2, 9};
  const size_t ntaps = gemm != NULL ? 1 : 3;
  int failures = 0;
  size_t i = 0;
  for (int rounding = 0; rounding < Q8NN_REQUANT_KINDS; rounding++) {
    if (gemm != NULL ? gemm->fn[rounding] == NULL : igemm->fn[rounding] == NULL) continue;
    /* rows 1..MR; kernels that take any row count (mloop) also several MR blocks with and
       without a partial last block, and the im2col path's 48-row tile */
    const size_t more[] = {mr + 1, 2 * mr, 3 * mr + 2, 48};
    const size_t nm = mr + (gemm != NULL && gemm->mloop ? sizeof(more) / sizeof(more[0]) : 0);
    for (size_t mi = 0; mi < nm; mi++) {
      const size_t m = mi < mr ? mi + 1 : more[mi - mr];
      for (size_t a = 0; a < nn; a++) {
        for (size_t b = 0; b < nk; b++) {
          for (size_t tp = 0; tp < ntaps; tp++, i++) {
            struct gemm_tester t = {0};
            t.m = m, t.n = ns[a], t.k = ks_[b], t.ks = taps[tp];
            t.a_stride_extra = i % 3 == 0 ? 0 : i % 7;
            t.c_stride_extra = i % 2 == 0 ? 0 : 1 + i % 5;
            /* the regimes follow v, which also moves with each pass over the K values: with i alone
               a count of K values that is a multiple of 12 gave every K one clamp and one input
               zero point (K = 24 only ever met a one-value clamp, where no accumulator shows) */
            const size_t v = i + i / (nk * ntaps);
            t.input_zero_point = sweep_zero_point(v);
            t.output_zero_point = sweep_zero_point(v / 4 + 1);
            sweep_clamp(v / 3, t.output_zero_point, &t.output_min, &t.output_max);
            t.rounding = rounding;
            sweep_shift_range((int) (v / 5), (double) (t.k * t.ks), &t.shift_lo, &t.shift_hi);
            t.tflite_multipliers = v % 2 == 0;
            t.zero_rows = gemm == NULL && i % 2 == 0;
            t.a_offset = gemm == NULL && i % 3 == 1 ? 3 + i % 61 : 0;
            t.guard = (v / 2) % 2 == 0;
            failures += gemm_tester_run(&t, gemm, igemm);
            if (failures > 10) fail_msg("%s: too many mismatches, see above", name);
          }
        }
      }
    }
  }
  /* Left-shift regimes of a whole block, which the x86 epilogues treat apart: no lane shifts left
     (the shift is skipped), shift 0 everywhere, every lane shifts left, both in one block. */
  static const int shift_ranges[4][2] = {{-12, -1}, {0, 0}, {1, 3}, {-1, 1}};
  for (int rounding = 0; rounding < 2; rounding++) {
    if (gemm != NULL ? gemm->fn[rounding] == NULL : igemm->fn[rounding] == NULL) continue;
    for (size_t r = 0; r < 4; r++, i++) {
      struct gemm_tester t = {0};
      t.m = mr, t.n = 2 * nr + 3, t.k = 37, t.ks = gemm != NULL ? 1 : 2;
      t.input_zero_point = sweep_zero_point(i);
      t.output_zero_point = sweep_zero_point(i + 1);
      t.output_min = -128, t.output_max = 127;
      t.rounding = rounding;
      t.shift_lo = shift_ranges[r][0], t.shift_hi = shift_ranges[r][1];
      t.guard = 1; /* the ineligible channels (left shifts) through the exact fallback */
      failures += gemm_tester_run(&t, gemm, igemm);
    }
  }
  /* The guarded epilogue under attack (docs/guarded-epilogue.md): accumulators on and within three
     units of TFLite's rounding boundaries for many multipliers and shifts (tester_boundary_case),
     both roundings, clamps that keep results below the zero point (the sign-dependent constant) and
     ones that do not, row counts that alias rows, with the guard and (one case in four) without. */
  for (int rounding = 0; rounding < 2; rounding++) {
    if (gemm != NULL ? gemm->fn[rounding] == NULL : igemm->fn[rounding] == NULL) continue;
    for (size_t r = 0; r < 32; r++, i++) {
      struct gemm_tester t = {0};
      t.m = gemm != NULL && gemm->mloop && r % 4 == 0 ? 3 * mr + 1 : 1 + r % mr;
      t.n = (1 + r % 3) * nr + (r % 2 ? nr / 2 + 1 : 0);
      t.k = r % 3 == 0 ? 1 : 3 + r % 37;
      t.ks = gemm != NULL ? 1 : 1 + r % 3;
      t.input_zero_point = sweep_zero_point(i);
      t.output_zero_point = sweep_zero_point(i / 2 + 1);
      if (r % 3 == 0) {
        t.output_min = -128, t.output_max = 127;
      } else if (r % 3 == 1) {
        t.output_min = t.output_zero_point, t.output_max = 127; /* a ReLU: nothing below the zero point */
      } else {
        sweep_clamp(i, t.output_zero_point, &t.output_min, &t.output_max);
      }
      t.rounding = rounding;
      t.zero_rows = gemm == NULL && r % 2 == 0;
      t.guard = r % 4 != 3;
      t.boundary = 1;
      failures += gemm_tester_run(&t, gemm, igemm);
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", name, failures, (unsigned long long) test_seed());
}

static void test_gemm_entry(void** state) { run_sweep((const struct q8nn_gemm_entry*) *state, NULL); }
static void test_igemm_entry(void** state) { run_sweep(NULL, (const struct q8nn_igemm_entry*) *state); }

static int set_entry(void** state) { return sweep_setup(state); }

int main(void) {
  test_seed();
  const size_t count = q8nn_gemm_list_size + q8nn_igemm_list_size;
  struct CMUnitTest* tests = calloc(count, sizeof(struct CMUnitTest));
  size_t t = 0;
  for (size_t i = 0; i < q8nn_gemm_list_size; i++) {
    if (!selected(q8nn_gemm_list[i].isa, q8nn_gemm_list[i].name)) continue;
    tests[t].name = q8nn_gemm_list[i].name;
    tests[t].test_func = test_gemm_entry;
    tests[t++].initial_state = (void*) &q8nn_gemm_list[i];
  }
  for (size_t i = 0; i < q8nn_igemm_list_size; i++) {
    if (!selected(q8nn_igemm_list[i].isa, q8nn_igemm_list[i].name)) continue;
    tests[t].name = q8nn_igemm_list[i].name;
    tests[t].test_func = test_igemm_entry;
    tests[t++].initial_state = (void*) &q8nn_igemm_list[i];
  }
  const int result = _cmocka_run_group_tests("ukernel_gemm", tests, t, set_entry, NULL);
  free(tests);
  return result;
}
