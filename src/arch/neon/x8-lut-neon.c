/*
 * x8 table lookup, NEON (AArch64): TBL over the first 64 table bytes, then TBX over each further 64
 * with the index lowered by 64 (TBL gives 0 and TBX keeps the lane where the index is >= 64, so
 * exactly one of the four steps writes each lane).
 */
#include <arm_neon.h>
#include <string.h>

#include "kernel-decls.h"

static inline uint8x16_t lookup(uint8x16_t vx, const uint8x16x4_t t[4]) {
  const uint8x16_t sixty_four = vdupq_n_u8(64);
  uint8x16_t vy = vqtbl4q_u8(t[0], vx);
  vx = vsubq_u8(vx, sixty_four);
  vy = vqtbx4q_u8(vy, t[1], vx);
  vx = vsubq_u8(vx, sixty_four);
  vy = vqtbx4q_u8(vy, t[2], vx);
  vx = vsubq_u8(vx, sixty_four);
  return vqtbx4q_u8(vy, t[3], vx);
}

void q8nn_x8_lut_ukernel__neon_u32(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* table) {
  uint8x16x4_t t[4];
  for (int k = 0; k < 4; k++) t[k] = vld1q_u8_x4(table + 64 * k);
  for (; n >= 32; n -= 32) {
    const uint8x16_t vx0 = vld1q_u8(x);
    const uint8x16_t vx1 = vld1q_u8(x + 16);
    x += 32;
    vst1q_u8(y, lookup(vx0, t));
    vst1q_u8(y + 16, lookup(vx1, t));
    y += 32;
  }
  for (; n >= 16; n -= 16) {
    vst1q_u8(y, lookup(vld1q_u8(x), t));
    x += 16;
    y += 16;
  }
  if (n != 0) {
    uint8_t buffer[16];
    memcpy(buffer, x, n);
    vst1q_u8(buffer, lookup(vld1q_u8(buffer), t));
    memcpy(y, buffer, n);
  }
}
