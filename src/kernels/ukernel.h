/*
 * Microkernel contracts shared by every ISA: signatures, params and packed layouts.
 *
 * A microkernel is a pure function of pointers, sizes and one params struct: it never allocates,
 * never reads past the buffers it is given, accumulates in int32 and requantizes in registers.
 *
 * Accumulator arithmetic. The packed bias of output channel n is
 *     bias[n] - (input_zero_point + input_offset) * sum_k w[n][k]
 * where input_offset is the kernel list entry's constant (0 for kernels that multiply signed
 * bytes; 128 for kernels that feed x ^ 0x80 as unsigned bytes to VPDPBUSD). The inner loop is a
 * pure int8 dot product. Modulo 2^32 this is exactly TFLite's
 *     bias[n] + sum_k w[n][k] * (x[k] - input_zero_point)
 * so results match TFLite bit for bit whenever TFLite's int32 accumulator does not overflow
 * (and wrap identically where it does).
 */
#ifndef Q8NN_KERNELS_UKERNEL_H
#define Q8NN_KERNELS_UKERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Requantization kinds, the index of a kernel list entry's fn[]: the enum q8nn_rounding values. */
#define Q8NN_REQUANT_KINDS 3

/* Output side of a convolution kernel; per-channel multiplier/shift (or fp32 scale) live in the
   packed weights. */
struct q8nn_qs8_conv_params {
  int32_t output_zero_point; /* [-128, 127] */
  int32_t output_min;        /* [-128, 127], <= output_max */
  int32_t output_max;
  /* uint8 activations (q8nn_create_*_u8): 0x80, else 0. A kernel whose list line has u8 set reads
     input byte x as the int8 x ^ input_flip and stores output y ^ output_flip, where the zero
     points and clamp above are the int8 ones (uint8 z is int8 z - 128 = z ^ 0x80). The zero row
     holds the input's own bytes. Other lines are not given a uint8 operator. */
  int32_t input_flip;
  int32_t output_flip;
  /* The guarded epilogue (docs/guarded-epilogue.md), TFLite roundings only: 0 off (the exact
     epilogue), 1 on, 2 on with the sign-dependent constant (double rounding where results below the
     zero point survive the clamp). A kernel without it ignores these fields: the bytes are TFLite's
     either way. q8nn_guard_params fills them. */
  int32_t guard;
  float guard_c0; /* 256.5 - (output_min - output_zero_point) + 2^-14 */
};

/*
 * Packed weights of gemm and igemm, per group, per block of NR output channels (the last block is
 * zero-padded to NR channels):
 *   int32 bias[NR]        zero-point terms folded in (see above)
 *   int32 multiplier[NR]  TFLite QuantizeMultiplier form, [2^30, 2^31) or 0
 *   int32 shift[NR]       TFLite convention: positive = left, [-31, 30]
 *   int8  w[ks][round_up(kc, KR) / KR][NR][KR]   (ks = kernel taps; 1 for gemm)
 * Block size in bytes: NR * (3 * 4 + ks * round_up(kc, KR)). A line's packer may put more after
 * shift[NR] (precomputed epilogue constants, x86-pack.h); q8nn_packed_gemm_size(pack, ...) gives
 * every line's size, and its kernels and only they read the extra bytes.
 *
 * fp32 requantization (XNNPACK's, q8nn_rounding_fp32) keeps the same layout so that packing,
 * block strides and tiles do not depend on the requantization: the multiplier slot holds the bits
 * of the float scale (input_scale * kernel_scale / output_scale, in float, finite, in [0, 256))
 * and the shift slot holds 0. An fp32 epilogue computes
 *     out = clamp(rne((float) acc * scale), output_min - zp, output_max - zp) + zp
 * with (float) acc rounded to nearest even, the product rounded to float (never fused), rne =
 * round to nearest, ties to even. Clamping in float before or after rounding gives the same bytes
 * (the bounds are integers and rounding is monotonic).
 */
#define Q8NN_PACKED_HEADER_BYTES(nr) ((nr) * 3 * sizeof(int32_t))

/*
 * gemm: C[mr][nc] = requant(A[mr][kc] * W[kc][nc]) for a 1x1 stride-1 convolution over NHWC
 * pixels (or a fully connected layer).
 *   mr        rows of this call: 1..MR, or any mr >= 1 for a kernel whose list line has mloop 1
 *             (it walks the rows in blocks of MR, each as a call of those rows would)
 *   nc        output channels, any >= 1: the kernel walks ceil(nc / NR) packed blocks of w
 *   kc        input channels (K), >= 1; the kernel reads exactly kc bytes per row of A
 *   a         first row; a_stride bytes between rows
 *   w         packed blocks as above, the first one for output channel 0 of this call
 *   c         first output row; cm_stride bytes between rows; cn_stride bytes between NR-channel
 *             blocks of one row (= NR); only nc bytes per row are written
 */
typedef void (*q8nn_qs8_gemm_ukernel_fn)(
    size_t mr, size_t nc, size_t kc,
    const int8_t* a, size_t a_stride,
    const void* w,
    int8_t* c, size_t cm_stride, size_t cn_stride,
    const struct q8nn_qs8_conv_params* params);

/*
 * igemm: convolution through an indirection buffer.
 *   ks        kernel taps (kernel_height * kernel_width), >= 1
 *   a         [ks][MR] row pointers (always MR per tap; rows >= mr are ignored). A pointer equal
 *             to `zero` is used as is; any other gets a_offset bytes added. Each points at kc bytes.
 *   zero      a row of at least kc bytes holding the input zero point (padding taps)
 * Other parameters as gemm.
 */
typedef void (*q8nn_qs8_igemm_ukernel_fn)(
    size_t mr, size_t nc, size_t kc, size_t ks,
    const int8_t** a, const void* w,
    int8_t* c, size_t cm_stride, size_t cn_stride,
    size_t a_offset, const int8_t* zero,
    const struct q8nn_qs8_conv_params* params);

/*
 * Packed weights of dwconv, per block of CT channels (the last one zero-padded):
 *   int32 bias[CT], int32 multiplier[CT], int32 shift[CT], int8 w[taps][CT]
 * Tap order is the kernel's row-major order (ky * kernel_width + kx).
 *
 * dwconv: one row of output pixels of a depthwise convolution with depth multiplier 1.
 *   channels        >= 1, any; the kernel walks ceil(channels / CT) blocks, tails are masked
 *   output_width    output pixels of this call, >= 1
 *   taps            kernel taps; fixed-tap kernels are only called with their own count
 *   input           for pixel x, taps pointers at input[x * input_stride .. + taps); a pointer
 *                   equal to zero is used as is, others get input_offset bytes added. Each points
 *                   at `channels` bytes.
 *   output          first pixel; after each pixel the kernel advances channels + output_increment bytes
 *   zero            at least `channels` bytes of the input zero point
 */
typedef void (*q8nn_qs8_dwconv_ukernel_fn)(
    size_t channels, size_t output_width, size_t taps,
    const int8_t** input, size_t input_stride,
    const void* weights, int8_t* output, size_t output_increment,
    size_t input_offset, const int8_t* zero,
    const struct q8nn_qs8_conv_params* params);

/*
 * Definers of exported kernels: each writes the signature above once and forwards to
 * impl(<leading compile-time arguments>, <the kernel's arguments in signature order>), so an ISA
 * instantiates a tile or rounding in one line without restating the contract.
 */
#define Q8NN_DEFINE_GEMM_UKERNEL(name, impl, ...)                                                 \
  void name(size_t mr, size_t nc, size_t kc, const int8_t* a, size_t a_stride, const void* w,    \
            int8_t* c, size_t cm_stride, size_t cn_stride, const struct q8nn_qs8_conv_params* p) { \
    impl(__VA_ARGS__, mr, nc, kc, a, a_stride, w, c, cm_stride, cn_stride, p);                   \
  }
#define Q8NN_DEFINE_IGEMM_UKERNEL(name, impl, ...)                                                \
  void name(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t** a, const void* w,         \
            int8_t* c, size_t cm_stride, size_t cn_stride, size_t a_offset, const int8_t* zero,   \
            const struct q8nn_qs8_conv_params* p) {                                               \
    impl(__VA_ARGS__, mr, nc, kc, ks, a, w, c, cm_stride, cn_stride, a_offset, zero, p);         \
  }
#define Q8NN_DEFINE_DWCONV_UKERNEL(name, impl, ...)                                               \
  void name(size_t channels, size_t output_width, size_t taps, const int8_t** input,             \
            size_t input_stride, const void* weights, int8_t* output, size_t output_increment,   \
            size_t input_offset, const int8_t* zero, const struct q8nn_qs8_conv_params* p) {     \
    impl(__VA_ARGS__, channels, output_width, taps, input, input_stride, weights, output,         \
         output_increment, input_offset, zero, p);                                                \
  }

/* int8 add. TFLite arithmetic (the TFLite vadd kernels): shifts in TFLite convention (<= 0 = right
   shift). XNNPACK's qs8 arithmetic (the xnn vadd kernels) reads only the xnn_ fields and the
   output zero point / clamp:
     out = clamp((a * xnn_a_multiplier + b * xnn_b_multiplier + xnn_bias) >> xnn_shift,
                 output_min - zp, output_max - zp) + zp
   with an arithmetic shift; xnn_bias = 2^(xnn_shift-1) - a_zp * xnn_a_multiplier -
   b_zp * xnn_b_multiplier, multipliers in [0, 2^21], xnn_shift in [12, 30], so |sum| < 2^31.
   Optional affine form (the _affine kernels; any kernel may ignore it), set by
   q8nn_add_affine_params only when it reproduces the arithmetic on all 65536 input pairs:
     out = clamp(sat8(sat16(sat16(affine_a * (a + 128) + affine_b * (b + 128)) + affine_bias)
                      >> affine_shift), output_min, output_max)
   i.e. VPMADDUBSW (a ^ 0x80, b ^ 0x80 interleaved, against the int8 pair affine_a, affine_b),
   VPADDSW, VPSRAW, VPACKSSWB and the byte clamp. affine_valid 0 = no such form (the _affine
   kernels then run their generic kernel). affine_signed 1: the signed-data form instead,
     out = clamp(sat8(sat16(sat16(affine_a * a + affine_b * b) + affine_bias) >> affine_shift),
                 output_min, output_max)
   i.e. VPMADDUBSW with the coefficients as its unsigned operand (affine_a, affine_b in [0, 127])
   and the raw bytes as its signed one: no XOR (1.19x on 75264 elements, AVX-512). Preferred where
   both forms reproduce the arithmetic.
   linear_valid 1 (TFLite arithmetic without an affine form; set by q8nn_add_linear_params): the
   xnn_ fields hold coefficients for which XNNPACK's arithmetic above equals TFLite's on all 65536
   input pairs (multipliers up to 2^22, |sum| < 2^31 and |sum >> xnn_shift| < 2^19 checked), so the
   operator runs the xnn kernels; the TFLite fields stay for the backends and the reference.
   linear_guard != 0 (linear_valid 0; set by q8nn_add_linear_params where no exact linear form
   exists, as where TFLite rounds ties away from zero): the xnn_ fields hold a form that gives
   TFLite's output for every pair whose sum acc has (acc & linear_guard) != 0. linear_guard is
   2^xnn_shift - 2^g with g <= xnn_shift - 10: acc within 2^(g-1) of a rounding boundary of the form
   (xnn_bias includes that 2^(g-1)) is guarded, about one pair in 2^(xnn_shift - g), and such an
   element is computed with TFLite's arithmetic. TFLite kernels may run it (the AVX-512 one does, a
   64-element chunk with any guarded lane going through the exact path) or ignore it. */
struct q8nn_qs8_add_params {
  int32_t a_zero_point, b_zero_point;
  int32_t a_multiplier, a_shift;
  int32_t b_multiplier, b_shift;
  int32_t output_multiplier, output_shift;
  int32_t left_shift;
  int32_t output_zero_point, output_min, output_max;
  int32_t xnn_a_multiplier, xnn_b_multiplier, xnn_bias;
  uint32_t xnn_shift;
  int32_t affine_valid;
  int32_t affine_a, affine_b;   /* [-128, 127] */
  int32_t affine_bias;          /* [-32768, 32767] */
  int32_t affine_shift;         /* [0, 7] */
  int32_t affine_signed;        /* 1: the signed-data form (affine_a, affine_b in [0, 127]) */
  int32_t linear_valid;         /* 1: the xnn_ fields reproduce TFLite's arithmetic (see above) */
  uint32_t linear_guard;        /* != 0: the guarded linear form in the xnn_ fields (see above) */
  /* uint8 operands and output (q8nn_create_add_nd_u8): 0x80, else 0. Every vadd kernel reads each
     operand byte x as the int8 x ^ input_flip and stores y ^ output_flip; the zero points and
     clamp above are the int8 ones. */
  int32_t input_flip, output_flip;
  /* Multiply (multiply-nd.c; the vmul table kernels read only these): output byte of operand bytes
     (a, b) = mul_table[b << 8 | a]; mul_rows + (b << 8) is row b of the same function in
     mul_lut's packed form (64-byte aligned), for a broadcast b. */
  const uint8_t* mul_table;
  const uint8_t* mul_rows;
  void (*mul_lut)(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* packed);
  /* The same function as arithmetic, for the kernels that compute it (q8nn_x8_vmul_ukernel__*):
     mul_float 1: PyTorch's or XNNPACK's out = zp + rne((float) ((a - za) (b - zb)) * mul_scale);
     0: TFLite's MultiplyByQuantizedMultiplier of the product by output_multiplier and
     output_shift; then the clamp, with input_flip and output_flip as for the add. */
  int32_t mul_float;
  float mul_scale;
  /* TFLite's form through the guarded epilogue (docs/guarded-epilogue.md; the product is the
     accumulator): 2 with the sign-dependent constant, 1 without (the clamp removes every result
     below the zero point), 0 the exact form only (the multiplier outside q8nn_guard_eligible, or
     the guard turned off). mul_guard_c0: q8nn_guard_c0 of the output clamp. */
  int32_t mul_guard;
  float mul_guard_c0;
};

/* RUN(mode) with a dense multiply kernel's form as a constant: 1 the float forms (mul_float); 3 and
   2 TFLite's through the guarded epilogue, with and without the sign-dependent constant (mul_guard 2
   and 1); 0 TFLite's exact form. */
#define Q8NN_VMUL_BY_MODE(RUN, p) \
  if ((p)->mul_float) {           \
    RUN(1);                       \
  } else if ((p)->mul_guard == 2) { \
    RUN(3);                       \
  } else if ((p)->mul_guard == 1) { \
    RUN(2);                       \
  } else {                        \
    RUN(0);                       \
  }

/* Arithmetic of a vadd list entry. */
enum q8nn_add_arithmetic {
  q8nn_add_arithmetic_tflite = 0,
  q8nn_add_arithmetic_xnnpack = 1,
};
#define Q8NN_ADD_ARITHMETICS 2

/* vadd: y[i] = add(a[i], b[i]) for i < n; vaddc: y[i] = add(a[i], b[0]). Exactly n bytes read from
   each operand (1 from b for vaddc) and written to y. y may alias a or b exactly. */
typedef void (*q8nn_qs8_vadd_ukernel_fn)(
    size_t n, const int8_t* a, const int8_t* b, int8_t* y, const struct q8nn_qs8_add_params* params);

/* Weight packing for gemm/igemm: kernel is OHWI with ks = H*W taps of kc channels for each of
   groups*nc output channels; mult/shift per output channel (already expanded). input_fold is
   input_zero_point + the kernel's input_offset. Writes groups * ceil(nc/nr) blocks. */
typedef void (*q8nn_pack_gemm_fn)(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* Bytes of one packed block's header as pack writes it: Q8NN_PACKED_HEADER_BYTES(nr), or longer for a
   packer that stores more before the weights (q8nn_pack_qs8_gemm_goki_w_avx2, x86-pack.h). */
size_t q8nn_packed_gemm_header_bytes(q8nn_pack_gemm_fn pack, size_t nr);
/* Bytes pack writes for groups * ceil(nc / nr) blocks. */
size_t q8nn_packed_gemm_size(q8nn_pack_gemm_fn pack, size_t groups, size_t nc, size_t ks, size_t kc, size_t nr,
                             size_t kr);
void q8nn_pack_qs8_gemm_goki_w(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* dwconv packing: kernel [taps][channels] (1HWO with dm 1). */
size_t q8nn_packed_dwconv_size(size_t channels, size_t taps, size_t ct);
void q8nn_pack_qs8_dwconv_w(
    size_t channels, size_t taps, size_t ct,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed);

/* Kernel list entries (see *-list.h). fn[] is indexed by enum q8nn_rounding; an entry implements
   either the two TFLite roundings (fn[2] NULL) or XNNPACK's fp32 requantization (fn[0], fn[1]
   NULL). names[] follows fn[] (NULL where fn is NULL); name is the first non-NULL one. Dispatch,
   tests and benchmarks never call a NULL fn. */
struct q8nn_gemm_entry {
  const char* name;
  uint32_t isa;                    /* Q8NN_ISA_* bits required; 0 = portable */
  q8nn_qs8_gemm_ukernel_fn fn[Q8NN_REQUANT_KINDS];
  const char* names[Q8NN_REQUANT_KINDS];
  uint32_t mr, nr, kr;
  int32_t input_offset;            /* see the top of this file */
  q8nn_pack_gemm_fn pack;
  uint32_t mloop;                  /* 1: any mr >= 1 per call (the kernel walks MR-row blocks); 0: mr <= MR;
                                      2: as 1, and calls of many rows pay off with any number of NR
                                      blocks (a per-call cost such as AMX's tile configuration) */
};
struct q8nn_igemm_entry {
  const char* name;
  uint32_t isa;
  q8nn_qs8_igemm_ukernel_fn fn[Q8NN_REQUANT_KINDS];
  const char* names[Q8NN_REQUANT_KINDS];
  uint32_t mr, nr, kr;
  int32_t input_offset;
  q8nn_pack_gemm_fn pack;
};
struct q8nn_dwconv_entry {
  const char* name;
  uint32_t isa;
  q8nn_qs8_dwconv_ukernel_fn fn[Q8NN_REQUANT_KINDS];
  const char* names[Q8NN_REQUANT_KINDS];
  uint32_t channel_tile;
  uint32_t taps;                   /* 0 = any number of taps */
  int32_t input_offset;
};
struct q8nn_vadd_entry {
  const char* name;
  uint32_t isa;
  q8nn_qs8_vadd_ukernel_fn vadd, vaddc;
  uint32_t element_tile;
  enum q8nn_add_arithmetic arithmetic;
};

/*
 * x8 table lookup: y[i] = table[x[i]] for n >= 1 bytes (x and y may be the same pointer; otherwise
 * they do not overlap). `packed` is the line's form of the 256-entry table, made once by the
 * line's pack function (NULL: the table itself); 64-byte aligned, Q8NN_LUT_PACKED_BYTES long.
 */
#define Q8NN_LUT_PACKED_BYTES 256
typedef void (*q8nn_x8_lut_ukernel_fn)(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* packed);
typedef void (*q8nn_x8_lut_pack_fn)(const uint8_t* table, uint8_t* packed);

struct q8nn_lut_entry {
  const char* name;
  uint32_t isa;
  q8nn_x8_lut_ukernel_fn fn;
  q8nn_x8_lut_pack_fn pack;
  uint32_t element_tile;
};

/*
 * Pooling over one output pixel: the window's `rows` x `cols` input pixels from `first` (rows
 * row_stride bytes apart, pixels pixel_stride apart), `channels` bytes each, into out. Bytes are
 * XORed with `flip` where loaded and stored (0x80: uint8 activations). Average: TFLite's
 * (sum +- count / 2) / count truncated, count = rows x cols; or, with params->requantize,
 * pytorch_qnnpack's float requantization of the window's sum. Any window size (count < 2^23).
 */
struct q8nn_pool_params {
  int8_t output_min, output_max;
  uint8_t flip;
  /* Average pooling with pytorch_qnnpack's requantization instead of TFLite's quotient:
     acc = sum - input_zero_point * count, out = rne((float) acc * scale) + output_zero_point,
     then the clamp (|rne| < 2^16: scale < 2^8 / window, |acc| <= 255 x window). */
  uint8_t requantize;
  int32_t input_zero_point, output_zero_point;
  float scale;
};
typedef void (*q8nn_pool_ukernel_fn)(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                     size_t pixel_stride, size_t channels, int8_t* out,
                                     const struct q8nn_pool_params* params);

/*
 * Max pooling of `outputs` consecutive output pixels of one output row whose windows lie inside the
 * image's width: output o's window is the `rows` x kernel_width pixels from
 * first + o * stride_width * pixel_stride; its bytes go to out + o * output_pixel_stride. A row
 * kernel loads each input column's vertical maximum once and shares it between the windows that
 * overlap it (3x3 stride 2: 6 loads an output instead of 9), with no call per pixel.
 */
typedef void (*q8nn_maxpool_row_ukernel_fn)(const int8_t* first, size_t rows, size_t kernel_width,
                                            size_t stride_width, size_t outputs, size_t row_stride,
                                            size_t pixel_stride, size_t channels, int8_t* out,
                                            size_t output_pixel_stride, const struct q8nn_pool_params* params);

/*
 * Bilinear resize of one output row (resize-nhwc.c): each output pixel ox blends the pixels at
 * byte offsets columns[ox].left and .right of the top and bottom source rows with the right weight
 * columns[ox].weight (fx, 10-bit) and the bottom weight fy: TFLite's
 * (tl (1024 - fx) (1024 - fy) + tr fx (1024 - fy) + bl (1024 - fx) fy + br fx fy) / 2^20 rounded
 * half away from zero, on `channels` bytes a pixel, flipped by `flip` where loaded and stored
 * (uint8); output pixels out_stride bytes apart.
 */
struct q8nn_resize_column {
  size_t left, right; /* byte offsets of the two source pixels in a row */
  int32_t weight;     /* the right pixel's weight, in [0, 1024] */
};
typedef void (*q8nn_ibilinear_row_fn)(const uint8_t* top, const uint8_t* bottom,
                                      const struct q8nn_resize_column* columns, size_t output_width, int32_t fy,
                                      size_t channels, uint8_t flip, uint8_t* out, size_t out_stride);

/* The lists, in preference order (best first); generated from the X-macro files. */
extern const struct q8nn_gemm_entry q8nn_gemm_list[];
extern const size_t q8nn_gemm_list_size;
extern const struct q8nn_igemm_entry q8nn_igemm_list[];
extern const size_t q8nn_igemm_list_size;
extern const struct q8nn_dwconv_entry q8nn_dwconv_list[];
extern const size_t q8nn_dwconv_list_size;
extern const struct q8nn_vadd_entry q8nn_vadd_list[];
extern const size_t q8nn_vadd_list_size;
extern const struct q8nn_lut_entry q8nn_lut_list[];
extern const size_t q8nn_lut_list_size;

#ifdef __cplusplus
}
#endif

#endif
