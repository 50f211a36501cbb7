/* AMX-INT8 bound loop (see bound.h): TDPBSSD on four independent accumulator tiles, the 32x32c4
   kernel's tile shapes (16 rows x 64 bytes of A, 16 K groups x 16 channels of B). The tiles'
   state is the library's to grant (q8nn_initialize, Q8NN_ISA_X86_AMX); the caller checks it. */
#include <immintrin.h>
#include <string.h>

#include "bound/bound-x86.h"

struct bound_tilecfg {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

uint64_t q8nn_bound_dot_amx(uint64_t iters) {
  if (iters == 0) return 0;
  _Alignas(64) static int8_t src[2][16][64];
  _Alignas(64) int32_t out[16][16];
  memset(src, 1, sizeof(src));
  struct bound_tilecfg cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.palette = 1;
  for (int t = 0; t < 8; t++) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, src[0], 64);
  _tile_loadd(5, src[1], 64);
  _tile_loadd(6, src[0], 64);
  _tile_loadd(7, src[1], 64);
  for (uint64_t i = 0; i < iters; i++) {
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    _tile_dpbssd(2, 5, 6);
    _tile_dpbssd(3, 5, 7);
  }
  _tile_stored(0, out, 64);
  _tile_release();
  q8nn_bound_sink = out[0][0];
  return iters * 4 * 16 * 16 * 64;
}
