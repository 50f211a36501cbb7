/*
 * x8 table lookup, RVV 1.0: vrgather over the table held in LMUL=4 register groups. A group holds
 * C = VLMAX(e8, m4) >= 64 bytes (VLEN >= 128); the table is ceil(256 / C) <= 4 chunks. vrgather
 * gives 0 for an index >= C, so chunk j looked up at x - j*C (wrapping) contributes exactly where
 * x is in [j*C, (j+1)*C) (for C <= 128, x - j*C + 256 >= C below the chunk), and the chunks are
 * ORed. Strip-mined by vl: no byte outside [x, x + n) or [y, y + n) is touched.
 */
#include <riscv_vector.h>

#include "kernel-decls.h"

void q8nn_x8_lut_ukernel__rvv_u4v(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* table) {
  const size_t c = __riscv_vsetvlmax_e8m4();
  const size_t chunks = c >= 256 ? 1 : 256 / c;
  const size_t c0 = c >= 256 ? 256 : c;
  vuint8m4_t t0 = __riscv_vle8_v_u8m4(table, c0);
  vuint8m4_t t1 = __riscv_vmv_v_x_u8m4(0, c), t2 = t1, t3 = t1;
  if (chunks > 1) t1 = __riscv_vle8_v_u8m4(table + c, c);
  if (chunks > 2) t2 = __riscv_vle8_v_u8m4(table + 2 * c, c);
  if (chunks > 3) t3 = __riscv_vle8_v_u8m4(table + 3 * c, c);
  const uint8_t step = (uint8_t) (c & 0xFF);
  while (n != 0) {
    const size_t vl = __riscv_vsetvl_e8m4(n);
    vuint8m4_t vx = __riscv_vle8_v_u8m4(x, vl);
    vuint8m4_t vy = __riscv_vrgather_vv_u8m4(t0, vx, vl);
    if (chunks > 1) {
      vx = __riscv_vsub_vx_u8m4(vx, step, vl);
      vy = __riscv_vor_vv_u8m4(vy, __riscv_vrgather_vv_u8m4(t1, vx, vl), vl);
      if (chunks > 2) {
        vx = __riscv_vsub_vx_u8m4(vx, step, vl);
        vy = __riscv_vor_vv_u8m4(vy, __riscv_vrgather_vv_u8m4(t2, vx, vl), vl);
        vx = __riscv_vsub_vx_u8m4(vx, step, vl);
        vy = __riscv_vor_vv_u8m4(vy, __riscv_vrgather_vv_u8m4(t3, vx, vl), vl);
      }
    }
    __riscv_vse8_v_u8m4(y, vy, vl);
    x += vl;
    y += vl;
    n -= vl;
  }
}
