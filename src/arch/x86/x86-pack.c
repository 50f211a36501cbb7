/* Packing for the x86 kernels; see x86-pack.h. */
#include <string.h>

#include "arch/x86/x86-pack.h"
#include "requantization.h"

void q8nn_pack_qs8_gemm_goki_w_u8(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  q8nn_pack_qs8_gemm_goki_w(groups, nc, ks, kc, nr, kr, kernel, bias, multiplier, shift, input_fold, packed);
  const size_t header = Q8NN_PACKED_HEADER_BYTES(nr);
  const size_t weights = ks * q8nn_round_up(kc, kr) * nr;
  uint8_t* block = (uint8_t*) packed;
  const size_t blocks = groups * q8nn_divide_round_up(nc, nr);
  for (size_t b = 0; b < blocks; b++) {
    uint8_t* w = block + header;
    for (size_t i = 0; i < weights; i++) w[i] ^= 0x80;
    block += header + weights;
  }
}

/* Reorders every 8-channel group of every block: header lane l <- channel hdr[l], weight slot s <-
   channel slot[s] (nr is a multiple of 8). */
static void q8nn_x86_permute8(size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
                              const uint8_t* hdr, const uint8_t* slot, void* packed) {
  const size_t header = Q8NN_PACKED_HEADER_BYTES(nr);
  const size_t kblocks = ks * q8nn_round_up(kc, kr) / kr;
  uint8_t* block = (uint8_t*) packed;
  const size_t blocks = groups * q8nn_divide_round_up(nc, nr);
  uint8_t tmp[8 * 16];
  for (size_t b = 0; b < blocks; b++) {
    for (size_t arr = 0; arr < 3; arr++) {
      uint8_t* h = block + arr * nr * sizeof(int32_t);
      for (size_t g = 0; g < nr; g += 8) {
        memcpy(tmp, h + 4 * g, 32);
        for (size_t l = 0; l < 8; l++) memcpy(h + 4 * (g + l), tmp + 4 * hdr[l], 4);
      }
    }
    uint8_t* w = block + header;
    for (size_t k = 0; k < kblocks; k++, w += nr * kr) {
      for (size_t g = 0; g < nr; g += 8) {
        memcpy(tmp, w + g * kr, 8 * kr);
        for (size_t s = 0; s < 8; s++) memcpy(w + (g + s) * kr, tmp + slot[s] * kr, kr);
      }
    }
    block += header + kblocks * nr * kr;
  }
}

/* Header order of the AVX2/AVX-VNNI epilogue (x86-avx2.h): lane l of a requantized vector lands
   in output byte q8nn_x86_hdr8[l] of its 8-channel group. */
static const uint8_t q8nn_x86_hdr8[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/* Moves every block of a buffer in ukernel.h's layout up to make ext more header bytes after its
   shift[nr], the last block first (block b's new place starts at or above its old one and ends
   below nothing not yet moved), and has fill write them (block: the moved block's start). */
static void q8nn_x86_extend_headers(size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr, size_t ext,
                                    void* packed, void (*fill)(uint8_t* block, size_t nr)) {
  const size_t header = Q8NN_PACKED_HEADER_BYTES(nr);
  const size_t weights = ks * q8nn_round_up(kc, kr) * nr;
  const size_t blocks = groups * q8nn_divide_round_up(nc, nr);
  uint8_t* base = (uint8_t*) packed;
  for (size_t b = blocks; b-- > 0;) {
    const uint8_t* src = base + b * (header + weights);
    uint8_t* dst = base + b * (header + ext + weights);
    memmove(dst + header + ext, src + header, weights);
    memmove(dst, src, header);
    fill(dst, nr);
  }
}

/* The AVX2 records of a block's 8-channel groups. */
static void q8nn_x86_fill_avx2(uint8_t* block, size_t nr) {
  for (size_t g = 0; g < nr; g += 8) {
    q8nn_x86_avx2_write_rq_ext(block + (nr + g) * sizeof(int32_t), block + (2 * nr + g) * sizeof(int32_t),
                               block + Q8NN_PACKED_HEADER_BYTES(nr) + g / 8 * Q8NN_X86_AVX2_RQ_EXT_BYTES);
  }
}

/* The guard constants of a block's channels, in its header's lane order (x86-pack.h). */
static void q8nn_x86_fill_guard(uint8_t* block, size_t nr) {
  for (size_t i = 0; i < nr; i++) {
    int32_t m, s;
    memcpy(&m, block + (nr + i) * sizeof(int32_t), sizeof(m));
    memcpy(&s, block + (2 * nr + i) * sizeof(int32_t), sizeof(s));
    const int eligible = q8nn_guard_eligible(m, s);
    const int32_t nan = Q8NN_GUARD_NAN;
    float scale;
    memcpy(&scale, &nan, sizeof(scale));
    if (eligible) scale = q8nn_guard_scale(m, s);
    const float delta = eligible ? q8nn_guard_delta(q8nn_rounding_double, s) : 0.0f;
    const int32_t window = eligible ? Q8NN_GUARD_WINDOW : 0;
    memcpy(block + (3 * nr + i) * sizeof(int32_t), &scale, sizeof(scale));
    memcpy(block + (4 * nr + i) * sizeof(int32_t), &delta, sizeof(delta));
    memcpy(block + (5 * nr + i) * sizeof(int32_t), &window, sizeof(window));
  }
}

void q8nn_pack_qs8_gemm_goki_w_avx2(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  /* c8: after the horizontal adds accumulator lane l holds slot {0,2,4,6,1,3,5,7}[l]. */
  static const uint8_t slot[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  /* the ukernel.h layout first, at the start of the (larger) buffer */
  q8nn_pack_qs8_gemm_goki_w(groups, nc, ks, kc, nr, kr, kernel, bias, multiplier, shift, input_fold, packed);
  q8nn_x86_permute8(groups, nc, ks, kc, nr, kr, q8nn_x86_hdr8, slot, packed);
  q8nn_x86_extend_headers(groups, nc, ks, kc, nr, kr, Q8NN_X86_AVX2_PACKED_HEADER_BYTES(nr) - Q8NN_PACKED_HEADER_BYTES(nr),
                          packed, q8nn_x86_fill_avx2);
}

void q8nn_pack_qs8_gemm_goki_w_u8_avxvnni(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  /* c4: accumulator lane l holds slot l. */
  q8nn_pack_qs8_gemm_goki_w_u8(groups, nc, ks, kc, nr, kr, kernel, bias, multiplier, shift, input_fold, packed);
  q8nn_x86_permute8(groups, nc, ks, kc, nr, kr, q8nn_x86_hdr8, q8nn_x86_hdr8, packed);
  q8nn_x86_extend_headers(groups, nc, ks, kc, nr, kr,
                          Q8NN_X86_GUARD_PACKED_HEADER_BYTES(nr) - Q8NN_PACKED_HEADER_BYTES(nr), packed,
                          q8nn_x86_fill_guard);
}

void q8nn_pack_qs8_gemm_goki_w_amx(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  /* the goki layout with 4-byte groups first, at the start of the (larger) buffer */
  q8nn_pack_qs8_gemm_goki_w(groups, nc, ks, kc, nr, 4, kernel, bias, multiplier, shift, input_fold, packed);
  const size_t header = Q8NN_PACKED_HEADER_BYTES(nr);
  const size_t tap_src = q8nn_round_up(kc, 4) * nr, tap_dst = q8nn_round_up(kc, kr) * nr;
  const size_t blocks_per_group = q8nn_divide_round_up(nc, nr);
  uint8_t* base = (uint8_t*) packed;
  /* every block, and every tap of it, moves up to its place, the last first: each new place starts
     at or above its old one and ends below nothing not yet moved */
  for (size_t b = groups * blocks_per_group; b-- > 0;) {
    const uint8_t* src = base + b * (header + ks * tap_src);
    uint8_t* dst = base + b * (header + ks * tap_dst);
    for (size_t t = ks; t-- > 0;) {
      memmove(dst + header + t * tap_dst, src + header + t * tap_src, tap_src);
      memset(dst + header + t * tap_dst + tap_src, 0, tap_dst - tap_src);
    }
    memmove(dst, src, header);
    /* lanes past nc: the last channel's multiplier and shift */
    const size_t n0 = (b % blocks_per_group) * nr;
    for (size_t n = nc - n0; n < nr; n++) {
      memcpy(dst + (nr + n) * sizeof(int32_t), dst + (nr + nc - n0 - 1) * sizeof(int32_t), sizeof(int32_t));
      memcpy(dst + (2 * nr + n) * sizeof(int32_t), dst + (2 * nr + nc - n0 - 1) * sizeof(int32_t), sizeof(int32_t));
    }
  }
}

void q8nn_pack_qs8_gemm_goki_w_avx512(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  /* the ukernel.h layout first, at the start of the (larger) buffer */
  q8nn_pack_qs8_gemm_goki_w(groups, nc, ks, kc, nr, kr, kernel, bias, multiplier, shift, input_fold, packed);
  q8nn_x86_extend_headers(groups, nc, ks, kc, nr, kr,
                          Q8NN_X86_GUARD_PACKED_HEADER_BYTES(nr) - Q8NN_PACKED_HEADER_BYTES(nr), packed,
                          q8nn_x86_fill_guard);
}
