/*
 * Microkernel testers: one struct of parameters + a run function per family, XNNPACK-style. Each
 * run builds exactly-sized inputs (so ASan catches any over-read), packs weights with the list
 * entry's own pack function, calls the kernel and compares every output byte EXACTLY with a naive
 * int64 loop using the independent reference's requantization; guard bytes around and between
 * output rows must survive. Failures print the kernel, the parameters and the run's seed.
 */
#ifndef Q8NN_TESTS_UKERNEL_TESTER_H
#define Q8NN_TESTS_UKERNEL_TESTER_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/ukernel.h"

struct gemm_tester {
  size_t m, n, k;        /* rows (<= MR), output channels, input channels */
  size_t ks;             /* taps: 1 for gemm, >= 1 for igemm */
  size_t a_stride_extra; /* bytes between rows beyond k */
  size_t c_stride_extra; /* bytes between output rows beyond n */
  int32_t input_zero_point, output_zero_point;
  int32_t output_min, output_max;
  int rounding;           /* enum q8nn_rounding; 2 = fp32: float scales in [2^(lo-1), 2^hi), < 256 */
  int shift_lo, shift_hi; /* per-channel shifts drawn in [shift_lo, shift_hi] */
  int zero_rows;          /* igemm: some taps point at the zero row */
  size_t a_offset;        /* igemm: offset added to non-zero row pointers */
  /* TFLite rounding: every multiplier in [2^30, 2^31), none 0 (tester_random_requant draws 0 one
     time in 16), as TFLite's converter gives them: blocks that also shift right everywhere then take
     the x86 kernels' int32 form (m2_all, x86-avx512.h), which one zero multiplier turns off */
  int tflite_multipliers;
  /* TFLite roundings: the params of the guarded epilogue (q8nn_guard_params), which a line that has
     it runs, each flagged row through the exact one */
  int guard;
  /* accumulators on and within a few units of TFLite's rounding boundaries (tester_boundary_case:
     its multipliers and shifts, one-hot weights, inputs near the zero point); wider shifts than
     shift_lo / shift_hi, some channels outside the guarded epilogue's rule */
  int boundary;
};

/* Returns 0 when every byte matches. is_igemm selects the entry type. */
int gemm_tester_run(const struct gemm_tester* t, const struct q8nn_gemm_entry* gemm,
                    const struct q8nn_igemm_entry* igemm);

struct dwconv_tester {
  size_t channels, width, taps;
  size_t input_stride_extra; /* pointers between pixels beyond taps */
  size_t output_increment;   /* bytes skipped after each pixel */
  int32_t input_zero_point, output_zero_point, output_min, output_max;
  int rounding; /* as gemm_tester */
  int shift_lo, shift_hi;
  size_t input_offset;
  /* 3x3 windows sliding by one column per pixel (stride 1; needs taps == 9): pixel x tap 3r + c
     reads column x + c of kernel row r, so a pixel's columns 1, 2 are the next pixel's 0, 1, as a
     depthwise operator's indirection has them; a column is a zero row (padding) for every pixel
     that reads it, and some pixels get one unshared tap, which breaks the pattern there.
     2: the same with windows moving by two columns (stride 2). */
  int sliding;
  /* sliding: only the first and last columns are zero rows (SAME padding of one row of pixels),
     instead of a random sixth of them; long runs of windows that are one window moved (the
     AVX-512 kernels' 8-channel octets read such runs as whole rows) */
  int edge_padding_only;
  int tflite_multipliers; /* as gemm_tester's */
  /* biases drawn from [-bias_range, bias_range]; 0: 50000. INT32_MAX reaches the accumulators'
     int32 wrap-around (TFLite's, which the reference reproduces) and accumulators near it. */
  int32_t bias_range;
  int guard, boundary; /* as gemm_tester's */
};
int dwconv_tester_run(const struct dwconv_tester* t, const struct q8nn_dwconv_entry* e);

struct vadd_tester {
  size_t n;
  int broadcast_b; /* vaddc */
  int in_place;    /* y aliases a */
  int32_t a_zero_point, b_zero_point, output_zero_point, output_min, output_max;
  int32_t left_shift;
  int shift_lo, shift_hi; /* for the input shifts; the output shift is drawn separately */
  /* XNNPACK arithmetic entries: input/output scale ratios, each in [2^-10, 2^8) */
  float a_ratio, b_ratio;
};
int vadd_tester_run(const struct vadd_tester* t, const struct q8nn_vadd_entry* e);

/* Channels under attack (gemm_tester / dwconv_tester's boundary): for each channel a multiplier
   (the extremes 2^30 and 2^31 - 1, or random in between; now and then 0), a shift (mostly in the
   guarded epilogue's [-14, 0], sometimes down to -31 or up to +3) and a bias that puts the
   accumulator `bias + d` for d in [-3, 3] on TFLite's rounding boundary to an output near the clamp
   range (the smallest accumulator that reaches it, found by bisection: the result is monotonic in
   the accumulator without a left shift), or now and then a bias of about +-2^30 (clamped results,
   accumulators far beyond 2^24) or within 100 of +-2^31 with multiplier 2^31 - 1 and shift 0
   (results where TFLite's zero-point addition wraps in int32). */
void tester_boundary_case(size_t n, int rounding, int32_t output_zero_point, int32_t output_min, int32_t output_max,
                          int32_t* multiplier, int32_t* shift, int32_t* bias);

/* Random per-channel requantization: multiplier in [2^30, 2^31) (sometimes the extremes or 0),
   shift in [lo, hi]. */
void tester_random_requant(size_t n, int shift_lo, int shift_hi, int32_t* multiplier, int32_t* shift);

/* Random fp32 scales 2^e * [1, 2) with e in [exp_lo, min(exp_hi, 7)], sometimes exact powers of two
   or quarter steps (ties) and the largest scale XNNPACK accepts; their bits go to multiplier, shift
   gets 0 (the packed fp32 layout of ukernel.h). */
void tester_random_fp32_scales(size_t n, int exp_lo, int exp_hi, int32_t* multiplier, int32_t* shift);

#endif
