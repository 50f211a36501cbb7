/* AMX-INT8 bound loops (see bound.h). The tiles' state is the library's to grant (q8nn_initialize,
   Q8NN_ISA_X86_AMX); the caller checks it. Compiled with the AMX and AVX-512 VNNI flags.

   TDPBSSD on four independent accumulator tiles, the 32x32c4 kernel's tile shapes (16 rows x 64
   bytes of A, 16 K groups x 16 channels of B): the rate of the products.

   The AVX-512 epilogue loop (bound-epilogue-avx512.h) with, after every 16 vectors (one 16x16
   output tile's outputs), what the AMX gemm does once per output tile: one TDPBSSD into an
   accumulator tile and its TILESTORED (the kernels store each C tile to an L1 buffer and load it
   back as zmm rows). On the Intel development VM the TDPBSSD hides behind the vector work but the
   TILESTORED does not: in a scratch loop, per 16x16 tile, the epilogue alone took 34 ns, with a
   TDPBSSD 33, with a TILESTORED 40, with both 44.6, and the two alone 8.4. Here:
   1.57 ns per 16 outputs without them (bound/epilogue/avx512vnni/rdouble), 1.90 with them
   (bound/epilogue/amx/rdouble), about 5 ns per tile. The AMX layers' bound takes this loop's time
   per 16 outputs as their epilogue (docs/performance.md, "The exact path's bound"). */
#include <immintrin.h>
#include <string.h>

#include "bound/bound-epilogue-avx512.h"

struct bound_tilecfg {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

/* Configures the eight tiles (16 rows x 64 bytes) and loads A (tiles 4, 5) and B (6, 7). */
static void bound_tiles_setup(void) {
  _Alignas(64) static int8_t src[2][16][64];
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
}

uint64_t q8nn_bound_dot_amx(uint64_t iters) {
  if (iters == 0) return 0;
  _Alignas(64) int32_t out[16][16];
  bound_tiles_setup();
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

/* The stored tiles, as the kernels' L1 buffer (one per accumulator tile). */
static _Alignas(64) int32_t bound_tile_out[4][16][16];

/* One output tile's products and store, on accumulator tile `tile` mod 4 (each tile's products
   depend on its last ones, four tiles and 64 vectors of epilogue apart). */
static inline __attribute__((always_inline)) void bound_tile(uint64_t tile) {
  switch (tile & 3) {
    case 0:
      _tile_dpbssd(0, 4, 6);
      _tile_stored(0, bound_tile_out[0], 64);
      break;
    case 1:
      _tile_dpbssd(1, 4, 7);
      _tile_stored(1, bound_tile_out[1], 64);
      break;
    case 2:
      _tile_dpbssd(2, 5, 6);
      _tile_stored(2, bound_tile_out[2], 64);
      break;
    default:
      _tile_dpbssd(3, 5, 7);
      _tile_stored(3, bound_tile_out[3], 64);
  }
}

uint64_t q8nn_bound_epilogue_amx(int rounding, uint64_t iters) {
  if (iters == 0) return 0;
  bound_tiles_setup();
  const uint64_t outputs = rounding == 0   ? q8nn_bound_epilogue_loop(0, iters, bound_tile)
                           : rounding == 1 ? q8nn_bound_epilogue_loop(1, iters, bound_tile)
                                           : q8nn_bound_epilogue_loop(2, iters, bound_tile);
  _tile_release();
  q8nn_bound_sink = bound_tile_out[iters & 3][0][0];
  return outputs;
}
