/*
 * K loop of the NEON i8mm gemm and igemm kernels, tile 4x16c8, for
 * qs8-gemm-minmax-4x16c8-neoni8mm.c and qs8-igemm-minmax-4x16c8-neoni8mm.c (built with +i8mm).
 *
 * SMMLA multiplies a 2x8 int8 block by an 8x2 one into a 2x2 int32 block: 32 MACs per
 * instruction, twice SDOT's. Weights: standard packing with KR = 8 (w[round_up(kc, 8) / 8][16][8]):
 * the 16 bytes of channels 2j, 2j+1 are exactly SMMLA's second operand. Activations: rows 2p and
 * 2p+1 are paired 8 bytes each (ZIP1/ZIP2 of 64-bit lanes of two 16-byte row loads). Signed x
 * signed (input_offset 0). K is blocked by 16 (4 row loads, 4 zips, 16 weight loads, 32 SMMLA per
 * 1024 MACs); the K tail (kc % 16) loads each row's remaining bytes into a zeroed vector with
 * fixed-size loads, so no byte past kc is read, and the packing zero-pads w (so the padding lanes
 * contribute 0, also when the input flip has turned them into 0x80). Input flip (uint8
 * activations): one EOR per 16-byte row load, before the zips. Accumulators are in
 * the MMLA layout of neon-gemm-4x16.h, which also holds the drivers and the epilogue.
 */
#ifndef Q8NN_ARCH_NEON_GEMM_4X16C8_I8MM_H
#define Q8NN_ARCH_NEON_GEMM_4X16C8_I8MM_H

#include <string.h>

#include "arch/neon/neon-gemm-4x16.h"

/* One 8-k block: va01 / va23 hold rows (0, 1) / (2, 3), 8 bytes each. */
#define Q8NN_NEONI8MM_4X16C8_STEP(va01, va23)                                                      \
  do {                                                                                             \
    for (int j = 0; j < 8; j++) {                                                                  \
      const int8x16_t vw = vld1q_s8(w + 16 * j);                                                   \
      acc->v[j / 4][j % 4] = vmmlaq_s32(acc->v[j / 4][j % 4], va01, vw);                           \
      acc->v[2 + j / 4][j % 4] = vmmlaq_s32(acc->v[2 + j / 4][j % 4], va23, vw);                   \
    }                                                                                              \
    w += 128;                                                                                      \
  } while (0)

Q8NN_NEON_INLINE const int8_t* q8nn_neoni8mm_4x16c8_k(struct q8nn_neon_acc4x16* acc,
                                                      const int8_t* a0, const int8_t* a1,
                                                      const int8_t* a2, const int8_t* a3, size_t kc,
                                                      const int8_t* w, int8x16_t vflip) {
  const int8_t* ap[4] = {a0, a1, a2, a3};
  size_t k = kc;
  int64x2_t va[4];
  for (; k >= 16; k -= 16) {
    for (int r = 0; r < 4; r++) {
      va[r] = vreinterpretq_s64_s8(veorq_s8(vld1q_s8(ap[r]), vflip));
      ap[r] += 16;
    }
    Q8NN_NEONI8MM_4X16C8_STEP(vreinterpretq_s8_s64(vzip1q_s64(va[0], va[1])),
                              vreinterpretq_s8_s64(vzip1q_s64(va[2], va[3])));
    Q8NN_NEONI8MM_4X16C8_STEP(vreinterpretq_s8_s64(vzip2q_s64(va[0], va[1])),
                              vreinterpretq_s8_s64(vzip2q_s64(va[2], va[3])));
  }
  if (k != 0) {
    for (int r = 0; r < 4; r++) {
      va[r] = vreinterpretq_s64_s8(veorq_s8(q8nn_neon_load_partial(ap[r], k), vflip));
    }
    Q8NN_NEONI8MM_4X16C8_STEP(vreinterpretq_s8_s64(vzip1q_s64(va[0], va[1])),
                              vreinterpretq_s8_s64(vzip1q_s64(va[2], va[3])));
    if (k > 8) {
      Q8NN_NEONI8MM_4X16C8_STEP(vreinterpretq_s8_s64(vzip2q_s64(va[0], va[1])),
                                vreinterpretq_s8_s64(vzip2q_s64(va[2], va[3])));
    }
  }
  return w;
}

#endif
