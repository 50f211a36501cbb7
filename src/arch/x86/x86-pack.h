/* Weight packing for x86 kernels whose packed layout differs from q8nn_pack_qs8_gemm_goki_w. */
#ifndef Q8NN_ARCH_X86_PACK_H
#define Q8NN_ARCH_X86_PACK_H

#include "ukernel.h"

/* The goki layout of ukernel.h with every weight byte stored as w ^ 0x80, i.e. as the unsigned
   byte w + 128. The AVX-VNNI gemm/igemm kernels (through q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
   feed it as VPDPBUSD's unsigned operand and the activations (signed, unchanged) as the signed
   one, then subtract 128 * sum(x) per output row (one sum per row, shared by every output
   channel). The bias fold is the usual -(input_zero_point + input_offset) * sum(w) with
   input_offset 0. Padding bytes hold 0x80 (w = 0). */
Q8NN_INTERNAL void q8nn_pack_qs8_gemm_goki_w_u8(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* The goki layout (signed weights, KR = 8) with the channels of every 8-channel group reordered
   for the AVX2 c8 kernels: their horizontal-add reduction, even/odd requantization and
   pack/unpack output stage permute lanes, and the packing undoes that so bytes come out in order
   with no shuffle. Bias, multiplier and shift are stored in accumulator lane order. Each block's
   header is longer than ukernel.h's: after shift[NR] come NR / 8 records of
   Q8NN_X86_AVX2_RQ_EXT_BYTES, the TFLite requantization constants of each 8-channel group for both
   roundings and the guarded epilogue's (enum q8nn_x86_rq8_ext_slot, x86-avx2.h), written whatever the operator's rounding (an
   fp32 operator's kernels do not read them). Block size: Q8NN_X86_AVX2_PACKED_HEADER_BYTES(NR) +
   ks * round_up(kc, KR) * NR; q8nn_packed_gemm_size knows this packer. Needs AVX2 (only AVX2 lines
   name it). */
#define Q8NN_X86_AVX2_RQ_EXT_BYTES 608
#define Q8NN_X86_AVX2_PACKED_HEADER_BYTES(nr) (Q8NN_PACKED_HEADER_BYTES(nr) + (nr) / 8 * Q8NN_X86_AVX2_RQ_EXT_BYTES)
Q8NN_INTERNAL void q8nn_pack_qs8_gemm_goki_w_avx2(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* Writes the requantization record (enum q8nn_x86_rq8_ext_slot) of 8 channels from their
   multipliers and shifts (accumulator lane order, unaligned) to ext (x86-pack-avx2.c, compiled for
   AVX2). */
Q8NN_INTERNAL void q8nn_x86_avx2_write_rq_ext(const void* multiplier, const void* shift, void* ext);

/* q8nn_pack_qs8_gemm_goki_w_u8 (KR = 4) with the same per-group reordering for the AVX-VNNI
   kernels (accumulator lane l = weight slot l), and the guard constants after the shifts as in
   q8nn_pack_qs8_gemm_goki_w_avx512 (block header Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR)). */
Q8NN_INTERNAL void q8nn_pack_qs8_gemm_goki_w_u8_avxvnni(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* ukernel.h's layout with a longer header for the AVX-512 gemm and igemm kernels (and the same
   longer header on the AVX-VNNI layout below): after shift[NR] come the guarded epilogue's
   per-channel constants (requantization.h), float scale[NR]
   (q8nn_guard_scale where q8nn_guard_eligible, else Q8NN_GUARD_NAN), float delta[NR] (double
   rounding's q8nn_guard_delta; single rounding reads none) and int32 window[NR]
   (Q8NN_GUARD_WINDOW where q8nn_guard_eligible, else 0; read by the AVX-VNNI kernels), so a call
   needs no per-block setup for them (computed from the multiplier and shift in the kernel they
   cost as much as the exact form's constants on the 8-row calls of the layers with more than NR
   channels). Written whatever the operator's rounding (an fp32 operator's kernels, which share the
   layout, do not read them). Block size: Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR) +
   ks * round_up(kc, KR) * NR. */
#define Q8NN_X86_GUARD_PACKED_HEADER_BYTES(nr) (Q8NN_PACKED_HEADER_BYTES(nr) + (nr) * 3 * sizeof(int32_t))
Q8NN_INTERNAL void q8nn_pack_qs8_gemm_goki_w_avx512(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* The layout of the AMX gemm kernels (qs8-gemm-minmax-32x32c4-amx.c): ukernel.h's header, then per
   tap the 4-byte K groups of the goki layout with K padded by zeros to a multiple of 64, i.e.
   w[ks][round_up(kc, 64) / 4][NR][4] (their list lines give KR = 64, so q8nn_packed_gemm_size and
   the operator's block strides hold as for any line). Header lanes past nc repeat the last
   channel's multiplier and shift (bias 0): their outputs are never stored, and the block's
   requantization keeps the variant of its real channels (every lane e >= 1, say). input_offset 0
   (TDPBSSD multiplies signed bytes). */
Q8NN_INTERNAL void q8nn_pack_qs8_gemm_goki_w_amx(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

#endif
