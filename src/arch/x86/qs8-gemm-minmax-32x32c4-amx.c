/*
 * AMX-INT8 gemm and igemm, tile 32x32c4, TFLite roundings and fp32: 32 rows x 32 output channels
 * per block, the products in AMX tiles (TDPBSSD, signed x signed bytes), the requantization on
 * AVX-512 as in the AVX-512 VNNI kernels (x86-avx512.h), so the bytes are the same.
 *
 * Tiles (palette 1): C[i][j] = tile 2i + j (16 rows x 16 int32 each: rows 16i.., channels 16j..),
 * A[i] = tile 4 + i (16 rows x 64 input bytes), B[j] = tile 6 + j (16 K groups of 4 bytes x 16
 * channels). One K step of 64 bytes is two A loads, two B loads and four TDPBSSD (16384 MACs).
 * Where K is one step (MobileNetV2's K <= 64 layers and the stem), B[j] hold the same weights for
 * every row block of an NR block: they are loaded for its first block (or after a configuration,
 * which zeroes every tile) and kept, two tile loads per block fewer (layer table, one thread, eight
 * alternating runs: b1.expand 0.203 -> 0.196 ms, b2/b3.expand and b0.project 1.04-1.06x).
 *
 * Packed weights (q8nn_pack_qs8_gemm_goki_w_amx, x86-pack.h): ukernel.h's header, then per tap K
 * padded with zeros to a multiple of 64 as 4-byte groups, w[ks][round_up(kc, 64) / 4][32][4]; B[j]
 * of a tap's K step s is the 16 rows at w + s * 2048 + 64 j, 128 bytes apart. input_offset 0: the packed bias is
 * bias - input_zero_point * sum(w), and TDPBSSD's wrapping int32 sums make each accumulator
 * TFLite's modulo 2^32, as ukernel.h says.
 *
 * A: full 64-byte K steps load straight from the rows (TILELOADD with the row stride). A K of at most
 * 64 that is a multiple of 4 (MobileNetV2's 16, 24, 32 and 64) is one step whose tiles are
 * configured kc bytes wide, read straight too, and so are the equal steps of 48 or 40 bytes that
 * q8nn_amx_kstep picks for MobileNetV2's 96, 144 and 160. Any other K tail (kc % 64 bytes) is
 * copied with masked loads into a zeroed 64-byte row per input row first. Nothing past kc bytes of
 * a row is read. GCC's _tile_loadd does not tell the compiler it reads memory: a compiler barrier
 * after the tail copy keeps its stores before the tile loads. Rows: blocks of 32; the last block of a
 * call configures its tiles with the rows it has (no row past mr is read or computed).
 *
 * Epilogue: the C tiles go to a 4 KB buffer on the stack (TILESTORED, L1) and each 16-lane row is
 * loaded, given its bias and requantized in zmm registers: no int32 tensor leaves the call.
 * Per NR block the requantization variant (left shift, sign correction, the int32 second rounding
 * where every lane has e >= 1) is chosen once for both vectors; a variant that a lane does not need
 * gives the same bytes (x86-avx512.h). The int32 one runs in its flipped form: the epilogue adds
 * bias ^ 2^31 in place of the bias (q8nn_x86_requantize_rdouble_flipped, 9 instructions per 16
 * outputs instead of 10).
 *
 * igemm: the rows of each tap and K step are gathered through the indirection pointers into a
 * 64-byte row each (zero-padded past kc) and loaded as A tiles from there; the packed weights hold
 * each tap's K padded to 64 (x86-pack.h).
 *
 * Each call loads its tile configuration and releases the tiles before it returns (the tile data is
 * the thread's state: a released tile set costs the OS nothing on a context switch).
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx512.h"

#define Q8NN_AMX_MR 32
#define Q8NN_AMX_NR 32

struct q8nn_amx_tilecfg {
  uint8_t palette;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

/* Rows of the two row tiles (rows1 = 0: only row tile 0 is used and configured) and the K bytes of
   one step (64, or a whole K of at most 64 that is a multiple of 4: then A is read straight from
   the rows with no tail copy and B has kbytes / 4 rows). */
static void q8nn_amx_configure(size_t rows0, size_t rows1, size_t kbytes) {
  struct q8nn_amx_tilecfg cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.palette = 1;
  for (int j = 0; j < 2; j++) {
    cfg.rows[j] = (uint8_t) rows0, cfg.colsb[j] = 64;                          /* C[0][j] */
    cfg.rows[6 + j] = (uint8_t) (kbytes / 4), cfg.colsb[6 + j] = 64;           /* B[j] */
    if (rows1 != 0) cfg.rows[2 + j] = (uint8_t) rows1, cfg.colsb[2 + j] = 64;  /* C[1][j] */
  }
  cfg.rows[4] = (uint8_t) rows0, cfg.colsb[4] = (uint16_t) kbytes;
  if (rows1 != 0) cfg.rows[5] = (uint8_t) rows1, cfg.colsb[5] = (uint16_t) kbytes;
  _tile_loadconfig(&cfg);
}

/* Requantization variants of a block (see the top of the file). */
enum { Q8NN_AMX_RSINGLE, Q8NN_AMX_RDOUBLE_LSHIFT, Q8NN_AMX_RDOUBLE_DNEG, Q8NN_AMX_RDOUBLE_PLAIN,
       Q8NN_AMX_RDOUBLE_M2, Q8NN_AMX_FP32 };

Q8NN_X86_INLINE __m512i q8nn_amx_requantize(const int variant, __m512i vacc, const struct q8nn_x86_rq16* rq,
                                            const struct q8nn_x86_flip16* flip, __m512 vscale,
                                            const struct q8nn_x86_out64* vout) {
  switch (variant) {
    case Q8NN_AMX_RSINGLE: return q8nn_x86_requantize_rsingle(vacc, rq);
    case Q8NN_AMX_RDOUBLE_LSHIFT: return q8nn_x86_requantize_rdouble_with(vacc, rq, 1, 1);
    case Q8NN_AMX_RDOUBLE_DNEG: return q8nn_x86_requantize_rdouble_with(vacc, rq, 0, 1);
    case Q8NN_AMX_RDOUBLE_PLAIN: return q8nn_x86_requantize_rdouble_with(vacc, rq, 0, 0);
    case Q8NN_AMX_RDOUBLE_M2: return q8nn_x86_requantize_rdouble_flipped(vacc, rq, flip); /* bias flipped */
    default: return q8nn_x86_requantize_fp32(vacc, vscale, vout->fhi);
  }
}

/* Requantizes and stores rows [0, mb) of one block from the stored tiles: acc[i][j] holds rows
   16i.. of channels 16j... nb: vectors of 16 channels the block writes (1 or 2), nbytes <= 16 nb. */
Q8NN_X86_INLINE void q8nn_amx_epilogue(const int variant, const int rounding, size_t nb, size_t mb, size_t nbytes,
                                       const int32_t (*acc)[2][16][16], const __m512i* vbias,
                                       const struct q8nn_x86_rq16* rq, const struct q8nn_x86_flip16* flip,
                                       const __m512* vscale,
                                       int8_t* c, size_t cm_stride, const struct q8nn_x86_out64* vout) {
  const __mmask64 mask = q8nn_x86_mask64(nbytes);
#define Q8NN_AMX_ACC(r, j)                                                                         \
  q8nn_amx_requantize(variant, _mm512_add_epi32(_mm512_load_si512(acc[(r) / 16][j][(r) % 16]), vbias[j]), \
                      &rq[j], &flip[j], vscale[j], vout)
  if (nb == 2) {
    for (size_t r = 0; r < mb; r += 2) {
      const size_t r1 = r + 1 < mb ? r + 1 : r;
      const __m512i v = q8nn_x86_pack64(Q8NN_AMX_ACC(r, 0), Q8NN_AMX_ACC(r, 1), Q8NN_AMX_ACC(r1, 0),
                                        Q8NN_AMX_ACC(r1, 1), vout, 1, rounding);
      _mm256_mask_storeu_epi8(c + r * cm_stride, (__mmask32) mask, _mm512_castsi512_si256(v));
      _mm256_mask_storeu_epi8(c + r1 * cm_stride, (__mmask32) mask, _mm512_extracti64x4_epi64(v, 1));
    }
  } else {
    for (size_t r = 0; r < mb; r += 4) {
      const size_t r1 = r + 1 < mb ? r + 1 : mb - 1;
      const size_t r2 = r + 2 < mb ? r + 2 : mb - 1;
      const size_t r3 = r + 3 < mb ? r + 3 : mb - 1;
      const __m512i v = q8nn_x86_pack64(Q8NN_AMX_ACC(r, 0), Q8NN_AMX_ACC(r1, 0), Q8NN_AMX_ACC(r2, 0),
                                        Q8NN_AMX_ACC(r3, 0), vout, 1, rounding);
      _mm_mask_storeu_epi8(c + r * cm_stride, (__mmask16) mask, _mm512_castsi512_si128(v));
      _mm_mask_storeu_epi8(c + r1 * cm_stride, (__mmask16) mask, _mm512_extracti32x4_epi32(v, 1));
      _mm_mask_storeu_epi8(c + r2 * cm_stride, (__mmask16) mask, _mm512_extracti32x4_epi32(v, 2));
      _mm_mask_storeu_epi8(c + r3 * cm_stride, (__mmask16) mask, _mm512_extracti32x4_epi32(v, 3));
    }
  }
#undef Q8NN_AMX_ACC
}

/* One K step: row tile 0's A from a0, row tile 1's from a1 (two_rows), stride bytes between rows;
   B from the packed weights at wk unless load_b is 0 (B[j] already hold this step's weights). nb:
   column tiles (1 or 2). */
Q8NN_X86_INLINE void q8nn_amx_step(const void* a0, const void* a1, size_t stride, const uint8_t* wk, size_t nb,
                                   int two_rows, int load_b) {
  _tile_loadd(4, a0, stride);
  if (load_b) _tile_loadd(6, wk, 128);
  _tile_dpbssd(0, 4, 6);
  if (nb == 2) {
    if (load_b) _tile_loadd(7, wk + 64, 128);
    _tile_dpbssd(1, 4, 7);
  }
  if (two_rows) {
    _tile_loadd(5, a1, stride);
    _tile_dpbssd(2, 5, 6);
    if (nb == 2) _tile_dpbssd(3, 5, 7);
  }
}

/* Zeroes the C tiles in use (row tile 1's where two_rows). */
Q8NN_X86_INLINE void q8nn_amx_zero(int two_rows) {
  _tile_zero(0);
  _tile_zero(1);
  if (two_rows) {
    _tile_zero(2);
    _tile_zero(3);
  }
}

/*
 * K bytes per step of the gemm: 64, or a whole K of at most 64 that is a multiple of 4, or, for a
 * larger K that is a multiple of 4 but not of 64, the largest multiple of 4 below 64 that divides
 * it, if that costs at most one step more than 64-byte steps: every step then reads A straight from
 * the rows and no tail is copied (MobileNetV2's 96 = 2 x 48, 144 = 3 x 48, 160 = 4 x 40). The
 * packed weights hold K in 4-byte groups of 128 bytes each, so a step of kbytes starting at byte k
 * is the kbytes / 4 rows at k * 32, whatever the step.
 */
static size_t q8nn_amx_kstep(size_t kc) {
  if (kc % 4 != 0 || kc % 64 == 0) return 64;
  if (kc <= 64) return kc;
  for (size_t s = 60; s >= 4; s -= 4) {
    if (kc % s == 0) return kc / s <= kc / 64 + 2 ? s : 64;
  }
  return 64;
}

/* Products of rows [0, mb) of one block (mb <= 32) against one NR block, into C, in steps of
   kbytes (q8nn_amx_kstep; the configuration's K step, q8nn_amx_configure). */
static void q8nn_amx_products(size_t mb, size_t nb, size_t kc, size_t kbytes, const int8_t* a, size_t a_stride,
                              const uint8_t* wk, int8_t (*tail)[64], int load_b) {
  const int two_rows = mb > 16;
  q8nn_amx_zero(two_rows);
  size_t k = 0;
  for (; k + kbytes <= kc; k += kbytes) {
    q8nn_amx_step(a + k, a + 16 * a_stride + k, a_stride, wk + k * 32, nb, two_rows, load_b || kbytes < kc);
  }
  if (k < kc) {
    /* kbytes is 64 here */
    const __mmask64 m = q8nn_x86_mask64(kc - k);
    for (size_t r = 0; r < mb; r++) _mm512_store_si512(tail[r], _mm512_maskz_loadu_epi8(m, a + r * a_stride + k));
    __asm__ volatile("" : : : "memory");
    q8nn_amx_step(tail[0], tail[16], 64, wk + k * 32, nb, two_rows, 1);
  }
}

/* Stores the C tiles of a block of mb rows and nb column tiles to out[row tile][column tile]. */
Q8NN_X86_INLINE void q8nn_amx_store(int32_t (*out)[2][16][16], size_t nb, size_t mb) {
  _tile_stored(0, out[0][0], 64);
  if (nb == 2) _tile_stored(1, out[0][1], 64);
  if (mb > 16) {
    _tile_stored(2, out[1][0], 64);
    if (nb == 2) _tile_stored(3, out[1][1], 64);
  }
}

/* igemm products of rows [0, mb) (mb <= 32) against one NR block, into C: per tap and K step the
   rows' bytes are gathered through the indirection pointers into buf (zero-padded past kc) and
   loaded as A tiles from there; kbytes is the configuration's K step (q8nn_amx_configure). */
static void q8nn_amx_products_indirect(size_t mb, size_t nb, size_t kc, size_t kbytes, size_t ks,
                                       const int8_t** a, size_t a_offset, const int8_t* zero, const uint8_t* wk,
                                       int8_t (*buf)[64]) {
  const int two_rows = mb > 16;
  q8nn_amx_zero(two_rows);
  const size_t tap_bytes = q8nn_round_up(kc, 64) * Q8NN_AMX_NR;
  for (size_t t = 0; t < ks; t++, wk += tap_bytes) {
    const int8_t* p[Q8NN_AMX_MR];
    for (size_t r = 0; r < mb; r++) {
      const int8_t* row = a[t * Q8NN_AMX_MR + r];
      p[r] = row == zero ? zero : (const int8_t*) ((uintptr_t) row + a_offset);
    }
    const uint8_t* ws = wk;
    for (size_t k = 0; k < kc; k += kbytes, ws += 2048) {
      const __mmask64 m = q8nn_x86_mask64(kc - k);
      for (size_t r = 0; r < mb; r++) _mm512_store_si512(buf[r], _mm512_maskz_loadu_epi8(m, p[r] + k));
      /* _tile_loadd does not tell GCC that it reads buf: keep the stores before it and the next
         step's stores after it */
      __asm__ volatile("" : : : "memory");
      q8nn_amx_step(buf[0], buf[16], 64, ws, nb, two_rows, 1);
      __asm__ volatile("" : : : "memory");
    }
  }
}

/* What the epilogue of one NR block's row blocks needs. */
struct q8nn_amx_nr_state {
  __m512i vbias[2];
  __m512 vscale[2];
  struct q8nn_x86_rq16 rq[2];
  struct q8nn_x86_flip16 flip[2]; /* Q8NN_AMX_RDOUBLE_M2 only */
  int variant;
  size_t nb, nbytes; /* vectors of 16 channels and bytes per row this NR block writes */
};

Q8NN_X86_INLINE void q8nn_amx_nr_state_init(const int rounding, const uint8_t* wb, size_t nc,
                                            struct q8nn_amx_nr_state* s) {
  const size_t NR = Q8NN_AMX_NR;
  s->nb = nc > 16 ? 2 : 1;
  s->nbytes = nc < NR ? nc : NR;
  for (size_t j = 0; j < 2; j++) {
    s->vbias[j] = _mm512_loadu_si512(wb + 64 * j);
    s->vscale[j] = _mm512_castsi512_ps(_mm512_loadu_si512(wb + 4 * NR + 64 * j));
    s->flip[j] = q8nn_x86_flip16_init(_mm512_loadu_si512(wb + 4 * NR + 64 * j)); /* read by RDOUBLE_M2 only */
    if (rounding != 2) s->rq[j] = q8nn_x86_rq16_init(rounding, _mm512_loadu_si512(wb + 4 * NR + 64 * j),
                                                     _mm512_loadu_si512(wb + 8 * NR + 64 * j));
  }
  s->variant = Q8NN_AMX_FP32;
  if (rounding == 1) {
    s->variant = Q8NN_AMX_RSINGLE;
  } else if (rounding == 0) {
    const struct q8nn_x86_rq16* r0 = &s->rq[0];
    const struct q8nn_x86_rq16* r1 = &s->rq[s->nb - 1];
    s->variant = (r0->lshift_any | r1->lshift_any) ? Q8NN_AMX_RDOUBLE_LSHIFT
                 : (r0->m2_all & r1->m2_all)       ? Q8NN_AMX_RDOUBLE_M2
                 : (r0->d_any | r1->d_any)         ? Q8NN_AMX_RDOUBLE_DNEG
                                                   : Q8NN_AMX_RDOUBLE_PLAIN;
    if (s->variant == Q8NN_AMX_RDOUBLE_M2) {
      /* the flipped form (x86-avx512.h): the stored products plus bias ^ 2^31 */
      for (size_t j = 0; j < 2; j++) s->vbias[j] = q8nn_x86_flip_sign(s->vbias[j]);
    }
  }
}

/* The epilogue of one stored block: one instance per variant, the variant a constant in each. */
Q8NN_X86_INLINE void q8nn_amx_finish(const int rounding, const struct q8nn_amx_nr_state* s, size_t mb,
                                     const int32_t (*acc)[2][16][16], int8_t* c, size_t cm_stride,
                                     const struct q8nn_x86_out64* vout) {
#define Q8NN_AMX_EPILOGUE_CASE(v, r)                                                                        \
  case v:                                                                                                  \
    q8nn_amx_epilogue(v, r, s->nb, mb, s->nbytes, acc, s->vbias, s->rq, s->flip, s->vscale, c, cm_stride, vout); \
    break;
  if (rounding == 2) {
    q8nn_amx_epilogue(Q8NN_AMX_FP32, 2, s->nb, mb, s->nbytes, acc, s->vbias, s->rq, s->flip, s->vscale, c, cm_stride,
                      vout);
    return;
  }
  switch (s->variant) {
    Q8NN_AMX_EPILOGUE_CASE(Q8NN_AMX_RSINGLE, 1)
    Q8NN_AMX_EPILOGUE_CASE(Q8NN_AMX_RDOUBLE_LSHIFT, 0)
    Q8NN_AMX_EPILOGUE_CASE(Q8NN_AMX_RDOUBLE_DNEG, 0)
    Q8NN_AMX_EPILOGUE_CASE(Q8NN_AMX_RDOUBLE_PLAIN, 0)
    default:
      q8nn_amx_epilogue(Q8NN_AMX_RDOUBLE_M2, q8nn_x86_pack_rounding(0, 2), s->nb, mb, s->nbytes, acc, s->vbias,
                        s->rq, s->flip, s->vscale, c, cm_stride, vout);
  }
#undef Q8NN_AMX_EPILOGUE_CASE
}

/*
 * The row blocks of one NR block are software-pipelined: the products of block b + 1 are issued
 * before the epilogue of block b, whose tiles were stored to the other half of the buffer, and
 * block b + 1's tiles are stored after it, so the AMX unit computes while the epilogue's vector
 * instructions run (in program order the epilogue's 1000 or so instructions fill the reorder
 * window before the next block's tile instructions are reached). b0.project (12544 rows, N = 16)
 * 1.13x, the 112x112 and 56x56 expansions 1.04-1.05x (two alternating runs of the layer table).
 * Carried across NR blocks too, the
 * pipeline made the 14x14 and 7x7 layers (one row block per NR block) 3-10% slower, so each NR
 * block ends with its last epilogue.
 */
Q8NN_X86_INLINE void q8nn_amx_gemm(const int rounding, size_t mr, size_t nc, size_t kc, const int8_t* a,
                                   size_t a_stride, const void* w, int8_t* c, size_t cm_stride, size_t cn_stride,
                                   const struct q8nn_qs8_conv_params* params) {
  _Alignas(64) int32_t acc[2][2][2][16][16]; /* [buffer][row tile][column tile] */
  _Alignas(64) int8_t tail[Q8NN_AMX_MR][64];
  struct q8nn_amx_nr_state state;
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  const size_t NR = Q8NN_AMX_NR;
  const size_t block_bytes = Q8NN_PACKED_HEADER_BYTES(NR) + q8nn_round_up(kc, 64) * NR;
  /* the configuration of whole blocks, or of the call's only (partial) block */
  const size_t first_rows = mr < Q8NN_AMX_MR ? mr : Q8NN_AMX_MR;
  const size_t kbytes = q8nn_amx_kstep(kc);
  q8nn_amx_configure(first_rows < 16 ? first_rows : 16, first_rows > 16 ? first_rows - 16 : 0, kbytes);
  size_t configured = first_rows;
  size_t buffer = 0;
  const uint8_t* wb = (const uint8_t*) w;
  for (;;) {
    q8nn_amx_nr_state_init(rounding, wb, nc, &state);
    const size_t nb = state.nb;
    /* the row block whose tiles are stored and whose epilogue is pending */
    int pending = 0;
    size_t pending_rows = 0;
    int8_t* pending_c = NULL;
    for (size_t m0 = 0; m0 < mr; m0 += Q8NN_AMX_MR) {
      const size_t mb = mr - m0 < Q8NN_AMX_MR ? mr - m0 : Q8NN_AMX_MR;
      int load_b = m0 == 0;
      if (mb != configured) {
        /* zeroes every tile: the pending block's are stored already */
        q8nn_amx_configure(mb < 16 ? mb : 16, mb > 16 ? mb - 16 : 0, kbytes);
        configured = mb;
        load_b = 1;
      }
      q8nn_amx_products(mb, nb, kc, kbytes, a + m0 * a_stride, a_stride, wb + Q8NN_PACKED_HEADER_BYTES(NR), tail,
                        load_b);
      if (pending) q8nn_amx_finish(rounding, &state, pending_rows, acc[buffer ^ 1], pending_c, cm_stride, &vout);
      q8nn_amx_store(acc[buffer], nb, mb);
      pending = 1, pending_rows = mb, pending_c = c + m0 * cm_stride;
      buffer ^= 1;
    }
    q8nn_amx_finish(rounding, &state, pending_rows, acc[buffer ^ 1], pending_c, cm_stride, &vout);
    if (nc <= NR) break;
    wb += block_bytes;
    nc -= NR;
    c += cn_stride;
  }
  _tile_release();
}

/* igemm: one block of mr <= 32 rows per call, every NR block (the list line has no mloop). */
Q8NN_X86_INLINE void q8nn_amx_igemm(const int rounding, size_t mr, size_t nc, size_t kc, size_t ks, const int8_t** a,
                                    const void* w, int8_t* c, size_t cm_stride, size_t cn_stride, size_t a_offset,
                                    const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  _Alignas(64) int32_t acc[2][2][16][16];
  _Alignas(64) int8_t buf[Q8NN_AMX_MR][64];
  struct q8nn_amx_nr_state state;
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  const size_t NR = Q8NN_AMX_NR;
  const size_t block_bytes = Q8NN_PACKED_HEADER_BYTES(NR) + ks * q8nn_round_up(kc, 64) * NR;
  const size_t kbytes = kc <= 64 && kc % 4 == 0 ? kc : 64;
  q8nn_amx_configure(mr < 16 ? mr : 16, mr > 16 ? mr - 16 : 0, kbytes);
  const uint8_t* wb = (const uint8_t*) w;
  for (;;) {
    q8nn_amx_nr_state_init(rounding, wb, nc, &state);
    q8nn_amx_products_indirect(mr, state.nb, kc, kbytes, ks, a, a_offset, zero, wb + Q8NN_PACKED_HEADER_BYTES(NR),
                               buf);
    q8nn_amx_store(acc, state.nb, mr);
    q8nn_amx_finish(rounding, &state, mr, acc, c, cm_stride, &vout);
    if (nc <= NR) break;
    wb += block_bytes;
    nc -= NR;
    c += cn_stride;
  }
  _tile_release();
}

Q8NN_DEFINE_IGEMM_UKERNEL(q8nn_qs8_igemm_minmax_rdouble_ukernel_32x32c4__amx, q8nn_amx_igemm, 0)
Q8NN_DEFINE_IGEMM_UKERNEL(q8nn_qs8_igemm_minmax_rsingle_ukernel_32x32c4__amx, q8nn_amx_igemm, 1)
Q8NN_DEFINE_IGEMM_UKERNEL(q8nn_qs8_igemm_minmax_fp32_ukernel_32x32c4__amx, q8nn_amx_igemm, 2)
Q8NN_DEFINE_GEMM_UKERNEL(q8nn_qs8_gemm_minmax_rdouble_ukernel_32x32c4__amx, q8nn_amx_gemm, 0)
Q8NN_DEFINE_GEMM_UKERNEL(q8nn_qs8_gemm_minmax_rsingle_ukernel_32x32c4__amx, q8nn_amx_gemm, 1)
Q8NN_DEFINE_GEMM_UKERNEL(q8nn_qs8_gemm_minmax_fp32_ukernel_32x32c4__amx, q8nn_amx_gemm, 2)
