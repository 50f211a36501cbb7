/* ISA-independent helpers of the x86 microkernels (no intrinsics). */
#ifndef Q8NN_ARCH_X86_COMMON_H
#define Q8NN_ARCH_X86_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ukernel.h"

#define Q8NN_X86_INLINE static inline __attribute__((always_inline))

/* An exported vadd/vaddc kernel of the affine form (struct q8nn_qs8_add_params): `affine` when the
   params have one, else `generic`, the list's generic kernel of the same arithmetic. */
#define Q8NN_X86_DEFINE_VADD_AFFINE(name, affine, generic, broadcast_b)                             \
  void name(size_t n, const int8_t* a, const int8_t* b, int8_t* y, const struct q8nn_qs8_add_params* p) { \
    if (p->affine_valid) {                                                                        \
      affine(n, a, b, y, p, broadcast_b);                                                         \
    } else {                                                                                      \
      generic(n, a, b, y, p);                                                                     \
    }                                                                                             \
  }

/* An exported TFLite vadd/vaddc kernel: `linear` (the xnn loop, GUARD 1) where the operator found a
   guarded linear form (linear_guard, ukernel.h), else `exact`, the three-rescale loop. */
#define Q8NN_X86_DEFINE_VADD_TFLITE(name, linear, exact, broadcast_b)                             \
  void name(size_t n, const int8_t* a, const int8_t* b, int8_t* y, const struct q8nn_qs8_add_params* p) { \
    if (p->linear_guard != 0) {                                                                   \
      if (p->input_flip != 0) {                                                                   \
        linear(n, a, b, y, p, broadcast_b, 1, 1);                                                 \
      } else {                                                                                    \
        linear(n, a, b, y, p, broadcast_b, 1, 0);                                                 \
      }                                                                                           \
    } else {                                                                                      \
      exact(n, a, b, y, p, broadcast_b);                                                          \
    }                                                                                             \
  }

/* Copies n < 64 bytes with fixed-size pieces: a variable-length memcpy is a library call, which
   costs more than the whole tile when a kernel copies 1..7 K-tail bytes per row (kc = 3). */
Q8NN_X86_INLINE void q8nn_x86_copy_small(void* dst, const void* src, size_t n) {
  uint8_t* d = (uint8_t*) dst;
  const uint8_t* s = (const uint8_t*) src;
  if (n & 32) { memcpy(d, s, 32); d += 32; s += 32; }
  if (n & 16) { memcpy(d, s, 16); d += 16; s += 16; }
  if (n & 8) { memcpy(d, s, 8); d += 8; s += 8; }
  if (n & 4) { memcpy(d, s, 4); d += 4; s += 4; }
  if (n & 2) { memcpy(d, s, 2); d += 2; s += 2; }
  if (n & 1) *d = *s;
}

/* The n <= 8 bytes at p zero-extended to 64 bits, assembled in a register: a tail copied to a stack
   buffer and reloaded wider would stall on store forwarding. */
Q8NN_X86_INLINE uint64_t q8nn_x86_load_small_u64(const int8_t* p, size_t n) {
  uint64_t v = 0;
  if (n >= 8) {
    memcpy(&v, p, 8);
    return v;
  }
  size_t off = 0;
  if (n & 4) {
    uint32_t t;
    memcpy(&t, p, 4);
    v = t;
    off = 4;
  }
  if (n & 2) {
    uint16_t t;
    memcpy(&t, p + off, 2);
    v |= (uint64_t) t << (8 * off);
    off += 2;
  }
  if (n & 1) v |= (uint64_t) (uint8_t) p[off] << (8 * off);
  return v;
}

/* The MR row pointers of tap t of a [ks][MR] indirection buffer: rows >= mr alias row mr - 1,
   pointers other than zero get a_offset. */
Q8NN_X86_INLINE void q8nn_x86_gemm_tap_rows(const size_t MR, const int8_t* const* a, size_t t, size_t mr,
                                            size_t a_offset, const int8_t* zero, const int8_t** p) {
#pragma GCC unroll 12
  for (size_t r = 0; r < MR; r++) {
    const int8_t* row = a[t * MR + (r < mr ? r : mr - 1)];
    p[r] = row == zero ? row : (const int8_t*) ((uintptr_t) row + a_offset);
  }
}

/* The MR row pointers of a gemm call's mr (1..MR) contiguous rows, a_stride bytes apart: rows >= mr
   alias row mr - 1 (the dense twin of q8nn_x86_gemm_tap_rows). */
Q8NN_X86_INLINE void q8nn_x86_gemm_dense_rows(const size_t MR, const int8_t* a, size_t a_stride, size_t mr,
                                              const int8_t** rows) {
#pragma GCC unroll 12
  for (size_t r = 0; r < MR; r++) rows[r] = a + (r < mr ? r : mr - 1) * a_stride;
}

/* gemm and igemm kernels of one tile from a rows function with the signature of
   q8nn_x86_avx2_gemm_rows (MR, NB, rounding, nc, kc, ks, a, a_offset, zero, w, c, mr, cm_stride,
   cn_stride, params); rounding: 0 TFLite double, 1 TFLite single, 2 XNNPACK's fp32. */
#define Q8NN_X86_GEMM_IMPLS(rows_fn, impl, MR_, NB_)                                                \
  static inline __attribute__((always_inline)) void impl##_gemm(                                    \
      int rounding, size_t mr, size_t nc, size_t kc, const int8_t* a, size_t a_stride,              \
      const void* w, int8_t* c, size_t cm_stride, size_t cn_stride,                                 \
      const struct q8nn_qs8_conv_params* params) {                                                  \
    if (mr == 0) __builtin_unreachable();                                                           \
    for (;;) { /* any mr (mloop 1): blocks of MR rows */                                            \
      const size_t mb = mr < (MR_) ? mr : (MR_);                                                    \
      const int8_t* rows[MR_];                                                                      \
      q8nn_x86_gemm_dense_rows(MR_, a, a_stride, mb, rows);                                         \
      rows_fn(MR_, NB_, rounding, nc, kc, 1, rows, 0, NULL, w, c, mb, cm_stride, cn_stride, params); \
      if (mr <= (MR_)) break;                                                                       \
      mr -= (MR_), a += (MR_) * a_stride, c += (MR_) * cm_stride;                                   \
    }                                                                                               \
  }                                                                                                 \
  Q8NN_X86_IGEMM_IMPL(rows_fn, impl, MR_, NB_)

/* The igemm half of Q8NN_X86_GEMM_IMPLS alone (the AVX-512 tiles define their gemm otherwise). */
#define Q8NN_X86_IGEMM_IMPL(rows_fn, impl, MR_, NB_)                                                \
  static inline __attribute__((always_inline)) void impl##_igemm(                                   \
      int rounding, size_t mr, size_t nc, size_t kc, size_t ks, const int8_t** a, const void* w,    \
      int8_t* c, size_t cm_stride, size_t cn_stride, size_t a_offset, const int8_t* zero,           \
      const struct q8nn_qs8_conv_params* params) {                                                  \
    rows_fn(MR_, NB_, rounding, nc, kc, ks, a, a_offset, zero, w, c, mr, cm_stride, cn_stride, params); \
  }

/* The rdouble and rsingle gemm and igemm kernels of one tile. */
#define Q8NN_X86_GEMM_KERNELS(rows_fn, gemm_rd, gemm_rs, igemm_rd, igemm_rs, MR_, NB_) \
  Q8NN_X86_GEMM_IMPLS(rows_fn, gemm_rd, MR_, NB_)                                      \
  Q8NN_DEFINE_GEMM_UKERNEL(gemm_rd, gemm_rd##_gemm, 0)                                 \
  Q8NN_DEFINE_GEMM_UKERNEL(gemm_rs, gemm_rd##_gemm, 1)                                 \
  Q8NN_DEFINE_IGEMM_UKERNEL(igemm_rd, gemm_rd##_igemm, 0)                              \
  Q8NN_DEFINE_IGEMM_UKERNEL(igemm_rs, gemm_rd##_igemm, 1)

/* The fp32 (XNNPACK requantization) gemm and igemm kernels of one tile: same loops, fp32 epilogue. */
#define Q8NN_X86_GEMM_FP32_KERNELS(rows_fn, gemm_f, igemm_f, MR_, NB_) \
  Q8NN_X86_GEMM_IMPLS(rows_fn, gemm_f, MR_, NB_)                       \
  Q8NN_DEFINE_GEMM_UKERNEL(gemm_f, gemm_f##_gemm, 2)                   \
  Q8NN_DEFINE_IGEMM_UKERNEL(igemm_f, gemm_f##_igemm, 2)

/* Input row of tap t of a dwconv pixel, at channel c0: the zero row as is, others + input_offset. */
Q8NN_X86_INLINE const int8_t* q8nn_x86_dw_row(const int8_t* const* in, size_t t, const int8_t* zero,
                                              size_t input_offset, size_t c0) {
  const int8_t* p = in[t];
  return (p == zero ? p : (const int8_t*) ((uintptr_t) p + input_offset)) + c0;
}

/* The depthwise kernels' window tests (9 taps t = 3 row + column, as the operator's indirection
   gives them), on the pointers, so the result is the same bytes either way:
   - slides: the window moved by one column from the last pixel's (a stride-1 row, padding included),
     in[0] == last[1], in[1] == last[2], in[3] == last[4], in[4] == last[5], in[6] == last[7] and
     in[7] == last[8]: its columns 0 and 1 are the last window's 1 and 2;
   - slides2: moved by two columns (a stride-2 row), in[0] == last[2], in[3] == last[5] and
     in[6] == last[8]: its column 0 is the last window's column 2.
   Vector forms: q8nn_x86_dw9_slides_y / _slides2_y (x86-avx2.h; AVX-VNNI and AVX2 kernels) and
   q8nn_x86_dw9_slides_z / _slides2_z (the AVX-512 kernel). */

/* The affine add's coefficient word (struct q8nn_qs8_add_params): affine_a in the low byte and
   affine_b in the high one, VPMADDUBSW's signed operand against the interleaved (a ^ 0x80, b ^ 0x80). */
Q8NN_X86_INLINE int16_t q8nn_x86_affine_coef(const struct q8nn_qs8_add_params* p) {
  return (int16_t) (uint16_t) (((uint32_t) p->affine_b << 8) | ((uint32_t) p->affine_a & 0xFF));
}

/* Defines a dwconv kernel `name` calling impl(TAPS, rounding, <the dwconv arguments>); rounding 0
   TFLite double, 1 TFLite single, 2 XNNPACK's fp32. */
#define Q8NN_X86_DWCONV_KERNEL(impl, name, TAPS, rounding) Q8NN_DEFINE_DWCONV_UKERNEL(name, impl, TAPS, rounding)

/* The guarded depthwise kernels (docs/guarded-epilogue.md, all three x86 lines): a pixel whose
   guarded epilogue flagged a lane is stored with the guarded bytes and listed here, then redone with
   the exact epilogue after the channel tile's pixel loop (q8nn_x86_dw_redo), so that the loop holds
   no exact code. Past Q8NN_X86_DW_MAX_REDO pixels the whole row of the tile is redone. */
#define Q8NN_X86_DW_MAX_REDO 16
struct q8nn_x86_dw_fix {
  size_t count;
  const int8_t** in[Q8NN_X86_DW_MAX_REDO];
  int8_t* out[Q8NN_X86_DW_MAX_REDO];
};

/* Lists `pixels` consecutive pixels from (in, out). */
Q8NN_X86_INLINE void q8nn_x86_dw_note(struct q8nn_x86_dw_fix* f, const int8_t** in, int8_t* out, size_t pixels,
                                      size_t input_stride, size_t pixel_step) {
  for (size_t k = 0; k < pixels; k++) {
    if (f->count < Q8NN_X86_DW_MAX_REDO) {
      f->in[f->count] = in + k * input_stride;
      f->out[f->count] = out + k * pixel_step;
    }
    f->count++;
  }
}

/* Redoes the pixels of one tile (tile_channels from c0, packed block wb) that fix lists, through
   the kernel itself (self) with the exact epilogue. The tile's block is a whole packed block of its
   own: c0 moves to the row offset (the zero row is the zero point everywhere). */
static __attribute__((noinline, cold, unused)) void q8nn_x86_dw_redo(
    q8nn_qs8_dwconv_ukernel_fn self, const struct q8nn_x86_dw_fix* fix, size_t tile_channels, size_t output_width,
    size_t taps, const int8_t** input, size_t input_stride, const void* wb, int8_t* out, size_t pixel_step,
    size_t input_offset, size_t c0, const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  struct q8nn_qs8_conv_params exact = *params;
  exact.guard = 0;
  if (fix->count > Q8NN_X86_DW_MAX_REDO) {
    self(tile_channels, output_width, taps, input, input_stride, wb, out, pixel_step - tile_channels,
         input_offset + c0, zero, &exact);
    return;
  }
  for (size_t i = 0; i < fix->count; i++) {
    self(tile_channels, 1, taps, fix->in[i], input_stride, wb, fix->out[i], 0, input_offset + c0, zero, &exact);
  }
}

/* A guarded dwconv kernel `name` calling impl(TAPS, rounding, name, <the dwconv arguments>): it
   passes itself for the redone pixels (q8nn_x86_dw_redo). */
#define Q8NN_X86_DWCONV_SELF_KERNEL(impl, name, TAPS, rounding) \
  Q8NN_DEFINE_DWCONV_UKERNEL(name, impl, TAPS, rounding, name)

#endif
