/* The AVX2 gemm lines' precomputed requantization constants (x86-pack.h), computed by the very
   functions the kernels used to call per block (x86-avx2.h), so both derivations are one. */
#include "arch/x86/x86-avx2.h"
#include "arch/x86/x86-pack.h"

_Static_assert(32 * q8nn_x86_ext_slots == Q8NN_X86_AVX2_RQ_EXT_BYTES, "q8nn_x86_rq8_ext_slot record size");

static void put(void* ext, enum q8nn_x86_rq8_ext_slot slot, __m256i v) {
  _mm256_storeu_si256((__m256i*) ((int8_t*) ext + 32 * (size_t) slot), v);
}

void q8nn_x86_avx2_write_rq_ext(const void* multiplier, const void* shift, void* ext) {
  const __m256i vmult = _mm256_loadu_si256((const __m256i*) multiplier);
  /* an fp32 operator's shift slot holds 0 and its multiplier slot a float's bits: the record is
     well defined and unused */
  const __m256i vshift = _mm256_loadu_si256((const __m256i*) shift);
  const struct q8nn_x86_rq8 d = q8nn_x86_rq8_init_rdouble(vmult, vshift, 0);
  const struct q8nn_x86_rq8 s = q8nn_x86_rq8_init_rsingle(vmult, vshift, 0);
  put(ext, q8nn_x86_ext_lshift, d.lshift);
  put(ext, q8nn_x86_ext_m_odd, d.m_odd);
  put(ext, q8nn_x86_ext_np_even, d.np_even);
  put(ext, q8nn_x86_ext_np_odd, d.np_odd);
  put(ext, q8nn_x86_ext_nn_even, d.nn_even);
  put(ext, q8nn_x86_ext_nn_odd, d.nn_odd);
  put(ext, q8nn_x86_ext_s_even, d.s_even);
  put(ext, q8nn_x86_ext_s_odd, d.s_odd);
  put(ext, q8nn_x86_ext_zp, d.zp);
  put(ext, q8nn_x86_ext_single_np_even, s.np_even);
  put(ext, q8nn_x86_ext_single_np_odd, s.np_odd);
  put(ext, q8nn_x86_ext_single_s_even, s.s_even);
  put(ext, q8nn_x86_ext_single_s_odd, s.s_odd);
  put(ext, q8nn_x86_ext_single_zp, s.zp);
  put(ext, q8nn_x86_ext_e_minus1, d.e_minus1);
  /* the guarded epilogue's constants, guard_c0 = 0: cpos is delta */
  const struct q8nn_x86_guard8 g = q8nn_x86_guard8_init(0, vmult, vshift, _mm256_setzero_ps());
  put(ext, q8nn_x86_ext_guard_scale, _mm256_castps_si256(g.scale));
  put(ext, q8nn_x86_ext_guard_delta, _mm256_castps_si256(g.cpos));
  put(ext, q8nn_x86_ext_guard_window, g.window);
  put(ext, q8nn_x86_ext_flags, _mm256_setr_epi32(d.lshift_any, d.sign_any, d.doubled_all, 0, 0, 0, 0, 0));
}
