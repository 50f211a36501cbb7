/*
 * K loop of the NEON dot-product gemm and igemm kernels, tile 4x16c4, shared by
 * qs8-gemm-minmax-4x16c4-neondot.c and qs8-igemm-minmax-4x16c4-neondot.c (built with +dotprod).
 *
 * Tile: 4 rows x 16 output channels in 16 int32x4 accumulators. Weights: standard packing with
 * KR = 4 (w[round_up(kc, 4) / 4][16][4]): one 16-byte load holds 4 channels x 4 k, exactly the
 * SDOT-by-element operand. Signed x signed (input_offset 0). K is blocked by 16: each row loads 16
 * activations and each 4-k step issues 16 SDOT (by element) for 256 MACs. The K tail (kc % 16)
 * loads the remaining activations of each row with fixed-size loads into a zeroed vector
 * (never reading past kc); the packing zero-pads w beyond kc, so the padding lanes contribute 0
 * (also when the input flip has turned them into 0x80). Input flip (uint8 activations): one EOR
 * per 16-byte activation load (neon-gemm-4x16.h).
 * Products are summed in int32 and wrap like the scalar kernels. Drivers and epilogue:
 * neon-gemm-4x16.h.
 */
#ifndef Q8NN_ARCH_NEON_GEMM_4X16C4_DOT_H
#define Q8NN_ARCH_NEON_GEMM_4X16C4_DOT_H

#include <string.h>

#include "arch/neon/neon-gemm-4x16.h"

#define Q8NN_NEONDOT_4X16C4_STEP(lane)                                                             \
  do {                                                                                             \
    const int8x16_t vw0 = vld1q_s8(w);                                                             \
    const int8x16_t vw1 = vld1q_s8(w + 16);                                                        \
    const int8x16_t vw2 = vld1q_s8(w + 32);                                                        \
    const int8x16_t vw3 = vld1q_s8(w + 48);                                                        \
    w += 64;                                                                                       \
    for (int r = 0; r < 4; r++) {                                                                  \
      acc->v[r][0] = vdotq_laneq_s32(acc->v[r][0], vw0, va[r], lane);                              \
      acc->v[r][1] = vdotq_laneq_s32(acc->v[r][1], vw1, va[r], lane);                              \
      acc->v[r][2] = vdotq_laneq_s32(acc->v[r][2], vw2, va[r], lane);                              \
      acc->v[r][3] = vdotq_laneq_s32(acc->v[r][3], vw3, va[r], lane);                              \
    }                                                                                              \
  } while (0)

Q8NN_NEON_INLINE const int8_t* q8nn_neondot_4x16c4_k(struct q8nn_neon_acc4x16* acc,
                                                     const int8_t* a0, const int8_t* a1,
                                                     const int8_t* a2, const int8_t* a3, size_t kc,
                                                     const int8_t* w, int8x16_t vflip) {
  const int8_t* ap[4] = {a0, a1, a2, a3};
  size_t k = kc;
  for (; k >= 16; k -= 16) {
    int8x16_t va[4];
    for (int r = 0; r < 4; r++) {
      va[r] = veorq_s8(vld1q_s8(ap[r]), vflip);
      ap[r] += 16;
    }
    Q8NN_NEONDOT_4X16C4_STEP(0);
    Q8NN_NEONDOT_4X16C4_STEP(1);
    Q8NN_NEONDOT_4X16C4_STEP(2);
    Q8NN_NEONDOT_4X16C4_STEP(3);
  }
  if (k != 0) {
    int8x16_t va[4];
    for (int r = 0; r < 4; r++) va[r] = veorq_s8(q8nn_neon_load_partial(ap[r], k), vflip);
    Q8NN_NEONDOT_4X16C4_STEP(0);
    if (k > 4) Q8NN_NEONDOT_4X16C4_STEP(1);
    if (k > 8) Q8NN_NEONDOT_4X16C4_STEP(2);
    if (k > 12) Q8NN_NEONDOT_4X16C4_STEP(3);
  }
  return w;
}

#endif
