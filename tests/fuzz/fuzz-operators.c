/*
 * fuzz-operators: convolution, depthwise convolution, add, fully connected, transposed convolution,
 * the unary elementwise (table), pooling, softmax, resize, concatenation and channel shuffle, multiply
 * operators through the public API against the
 * independent reference (tests/reference). Every call either succeeds and writes exactly the
 * reference's bytes (the whole output buffer is compared, so bytes between pixels must keep their
 * canary), or fails with a documented status and leaves the output and the out-pointers
 * untouched. Byte layout: tests/fuzz/README.md.
 */
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>
#include <q8nn.h>

#include "fuzz-util.h"
#include "reference/reference.h"
#include "reference/reference-model.h"
#include "reference/reference-resize.h"
#include "reference/reference-unary.h"

/* Shape bounds: small enough that the naive reference takes well under a millisecond on average. */
#define MAX_EXTENT 12
#define MAX_OUTPUT_PIXELS 4096
#define MAX_KERNEL_BYTES 65536

#define INVALID FUZZ_S(q8nn_status_invalid_parameter)
#define UNSUPPORTED FUZZ_S(q8nn_status_unsupported_parameter)
#define SUCCESS FUZZ_S(q8nn_status_success)

static pthreadpool_t pool;
static uint32_t isa_masks[34];
static size_t num_isa_masks;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  if (q8nn_initialize() != q8nn_status_success) abort();
  /* Quiet unless Q8NN_FUZZ_LOG is set (to see why a call failed when reproducing a finding). */
  q8nn_set_log_level(getenv("Q8NN_FUZZ_LOG") != NULL ? 1 : 0);
  /* Created once: a pool per input would dominate the execution time. */
  pool = pthreadpool_create(2);
  isa_masks[num_isa_masks++] = Q8NN_ISA_ALL;
  isa_masks[num_isa_masks++] = 0; /* scalar kernels only */
  const uint32_t available = q8nn_get_available_isa();
  /* each tier as a CPU has it (test_isa_masks): lines that need two bits, AVX-VNNI with AVX2 or
     NEON dot product with NEON, are active only so */
  for (uint32_t bit = 1; bit != 0; bit <<= 1) {
    if (available & bit) isa_masks[num_isa_masks++] = available & (bit | (bit - 1));
  }
  return 0;
}

/* Reads a pixel-stride extra: mostly 0..5 beyond the channels, sometimes too small, or far
   beyond any buffer (near SIZE_MAX, SIZE_MAX / channels, PTRDIFF_MAX, 2^32 + 1), so that extents
   overflow size_t or wrap the address space. Returns the stride; channels >= 1. */
static size_t read_stride(struct fuzz_reader* r, size_t channels) {
  const uint8_t b = fuzz_u8(r);
  if (b < 0xF0) return channels + b % 6;
  switch (b & 7) {
    case 0:
      return channels - 1;
    case 1:
      return 0;
    case 2:
      return channels / 2;
    case 3:
      return channels + 1000;
    case 4:
      return SIZE_MAX;
    case 5:
      return SIZE_MAX / channels;
    case 6:
      return (size_t) PTRDIFF_MAX;
    default:
      return (size_t) UINT32_MAX + 2;
  }
}

/* Strides above this are never run: no buffer is that large. */
#define HUGE_STRIDE ((size_t) 1 << 20)

/* Whether the library's checks accept `pixels` pixels of `channels` bytes, `stride` apart, from
   base: pixels * stride fits in size_t and the last byte's address does not wrap. */
static int pixels_fit(const void* base, size_t pixels, size_t channels, size_t stride) {
  size_t product, last;
  if (pixels == 0) return 1;
  if (__builtin_mul_overflow(pixels, stride, &product)) return 0;
  if (__builtin_mul_overflow(pixels - 1, stride, &last) || last > SIZE_MAX - channels) return 0;
  return (uintptr_t) base <= UINTPTR_MAX - (last + channels - 1);
}

static void read_clamp(struct fuzz_reader* r, int8_t* out_min, int8_t* out_max) {
  const uint8_t b = fuzz_u8(r);
  *out_min = (int8_t)fuzz_u8(r);
  *out_max = (int8_t)fuzz_u8(r);
  if (b & 0x80) {
    *out_min = -128, *out_max = 127;
  } else if ((b & 0x40) && *out_min > *out_max) {
    /* Mostly a valid clamp; min > max stays reachable through the other bit patterns. */
    const int8_t t = *out_min;
    *out_min = *out_max, *out_max = t;
  }
}

static int32_t read_fixed_multiplier(struct fuzz_reader* r) {
  const uint8_t b = fuzz_u8(r);
  if (b < 0xE0) return (int32_t)((UINT32_C(1) << 30) | (fuzz_u32(r) & UINT32_C(0x3FFFFFFF)));
  static const int32_t edges[8] = {
      0, 1, -1, INT32_MIN, (INT32_C(1) << 30) - 1, INT32_MAX, INT32_C(1) << 30, 0};
  return b >= 0xF8 ? (int32_t)fuzz_u32(r) : edges[b & 7];
}

static int32_t read_fixed_shift(struct fuzz_reader* r) {
  const uint8_t b = fuzz_u8(r);
  if (b < 0xF0) return (int32_t)(b % 62) - 31;
  static const int32_t edges[8] = {-32, 31, INT32_MIN, INT32_MAX, 30, -31, 0, 100};
  return edges[b & 7];
}

static int8_t* xmalloc(size_t n) {
  /* malloc(0) may return NULL; the API must not see NULL only because a tensor is empty. */
  int8_t* p = malloc(n == 0 ? 1 : n);
  if (p == NULL) abort();
  return p;
}

/* ---- convolution and depthwise ------------------------------------------------------------- */

static void fuzz_conv(struct fuzz_reader* r, int depthwise, pthreadpool_t threadpool,
                      uint8_t options) {
  /* geometry */
  const uint32_t kh = fuzz_dim(r, 1, 5), kw = fuzz_dim(r, 1, 5);
  const uint32_t sh = fuzz_dim(r, 1, 4), sw = fuzz_dim(r, 1, 4);
  const uint32_t dh = fuzz_dim(r, 1, 3), dw = fuzz_dim(r, 1, 3);
  const uint32_t pt = fuzz_dim(r, 0, 4), pr = fuzz_dim(r, 0, 4), pb = fuzz_dim(r, 0, 4),
                 pl = fuzz_dim(r, 0, 4);
  size_t groups, gic, goc; /* depthwise: groups = channels, gic = 1, goc = multiplier */
  const uint8_t size_mode = fuzz_u8(r);
  if (depthwise) {
    groups = size_mode % 40 + 1;
    gic = 1;
    goc = fuzz_u8(r) % 4 + 1;
  } else {
    groups = size_mode % 4 + 1;
    gic = fuzz_u8(r) % 10 + 1;
    goc = fuzz_u8(r) % 10 + 1;
  }
  bool size_overflow = false;
  if (size_mode >= 0xFC) {
    /* Channel counts whose product overflows size_t (one of the factors is 2): create must
       reject them before it reads the kernel. */
    size_overflow = true;
    if (depthwise)
      groups = SIZE_MAX / 2 + 1, goc = 2;
    else
      groups = 2, goc = SIZE_MAX / 2 + 1;
  } else if (size_mode >= 0xF8) {
    /* A zero channel count. */
    if (depthwise)
      groups = (size_mode & 1) ? 0 : groups, goc = (size_mode & 1) ? goc : 0;
    else if (size_mode & 1)
      gic = 0;
    else
      goc = 0;
  }
  const size_t channels_in = groups * gic, channels_out = groups * goc;
  const uint64_t taps = (uint64_t)kh * kw;
  /* Kernel bytes the API reads; 0 when a zero size makes the case invalid anyway. Kernel extents
     of up to 2^32-1 each can make taps x channels overflow 64 bits: create must reject that
     (invalid_parameter) before it reads the kernel, exactly as for channel counts that overflow. */
  uint64_t kernel_bytes = 0;
  if (!size_overflow && __builtin_mul_overflow(taps, depthwise ? channels_out : channels_out * gic,
                                               &kernel_bytes)) {
    size_overflow = true;
  }
  if (size_overflow) kernel_bytes = 16;
  if (!size_overflow &&
      (kernel_bytes > MAX_KERNEL_BYTES || channels_out > 64 || channels_in > 64)) {
    return; /* too big to describe with real buffers */
  }

  /* quantization */
  struct q8nn_conv_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = fuzz_zero_point(r);
  q.output_zero_point = fuzz_zero_point(r);
  read_clamp(r, &q.output_min, &q.output_max);
  const uint8_t rb = fuzz_u8(r);
  /* 0 double, 1 single, 2 fp32 (XNNPACK); 0xF0.. an out-of-range value */
  q.rounding = rb < 0xF0 ? (enum q8nn_rounding)(rb % 3) : (enum q8nn_rounding)(rb == 0xF0 ? 3 : -1);
  const bool fp32 = (int)q.rounding == 2;
  const uint8_t fb = fuzz_u8(r);
  const uint32_t flags = fb < 0xF0 ? (fb & 1 ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0) : fuzz_u32(r);
  const int per_tensor = (flags & Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) != 0;
  const size_t nq = size_overflow ? 1 : (per_tensor ? 1 : channels_out); /* entries the API reads */
  const uint8_t qmode = fuzz_u8(r);
  const bool fixed = (qmode & 3) == 0;
  int32_t* mult = malloc((nq == 0 ? 1 : nq) * sizeof(int32_t));
  int32_t* shift = malloc((nq == 0 ? 1 : nq) * sizeof(int32_t));
  float* kscale = malloc((nq == 0 ? 1 : nq) * sizeof(float));
  if (fixed) {
    for (size_t i = 0; i < nq; i++) {
      mult[i] = read_fixed_multiplier(r);
      shift[i] = read_fixed_shift(r);
    }
    q.output_multiplier = mult;
    q.output_shift = qmode == 0xFC ? NULL : shift;
    /* The scales are ignored then; garbage proves it. */
    q.input_scale = (qmode & 4) ? NAN : 0.0f;
  } else {
    q.input_scale = fuzz_scale(r);
    q.output_scale = fuzz_scale(r);
    const float ks0 = fuzz_scale(r);
    for (size_t i = 0; i < nq; i++) kscale[i] = (qmode & 4) ? fuzz_scale(r) : ks0;
    q.kernel_scale = qmode == 0xFD ? NULL : kscale;
  }

  /* weights */
  int8_t* kernel = xmalloc((size_t)kernel_bytes);
  fuzz_fill(r, kernel, (size_t)kernel_bytes);
  const uint8_t bias_mode = fuzz_u8(r);
  int32_t* bias = NULL;
  if (!(bias_mode & 0x80) && !size_overflow) {
    bias = malloc((channels_out == 0 ? 1 : channels_out) * sizeof(int32_t));
    fuzz_fill_s32(r, bias, channels_out);
  }

  /* Expected create status: the union of what each present defect may return (the API does
     not rank them); no defect means success. */
  uint32_t create_expect = 0;
  bool zero_size = kh == 0 || kw == 0 || sh == 0 || sw == 0 || dh == 0 || dw == 0 || groups == 0 ||
                   gic == 0 || goc == 0;
  if (zero_size || size_overflow) create_expect |= INVALID;
  if (!fuzz_valid_zero_point(q.input_zero_point) || !fuzz_valid_zero_point(q.output_zero_point)) {
    create_expect |= INVALID;
  }
  if (q.output_min > q.output_max) create_expect |= INVALID;
  if ((int)q.rounding < 0 || (int)q.rounding > 2) create_expect |= INVALID;
  if ((flags & ~Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) != 0) create_expect |= INVALID;
  int32_t* ref_mult =
      malloc((channels_out == 0 || size_overflow ? 1 : channels_out) * sizeof(int32_t));
  int32_t* ref_shift =
      malloc((channels_out == 0 || size_overflow ? 1 : channels_out) * sizeof(int32_t));
  float* ref_scale = malloc((channels_out == 0 || size_overflow ? 1 : channels_out) * sizeof(float));
  bool tiny = false; /* a multiplier below 2^-31: TFLite flushes it to 0, q8nn may refuse it */
  if (fixed && fp32) {
    create_expect |= INVALID; /* the fixed-point form has no meaning in XNNPACK's numerics */
  } else if (fixed) {
    if (q.output_shift == NULL) create_expect |= INVALID;
    for (size_t i = 0; i < nq; i++) {
      if (mult[i] != 0 && mult[i] < (INT32_C(1) << 30)) create_expect |= INVALID;
      if (shift[i] < -31 || shift[i] > 30) create_expect |= UNSUPPORTED;
    }
  } else if (fp32) {
    /* XNNPACK's checks: every scale a normal float > 0 */
    if (!fuzz_normal_scale(q.input_scale) || !fuzz_normal_scale(q.output_scale) ||
        q.kernel_scale == NULL) {
      create_expect |= INVALID;
    }
    for (size_t i = 0; i < nq; i++) {
      if (!fuzz_normal_scale(kscale[i])) create_expect |= INVALID;
    }
  } else {
    if (!fuzz_valid_scale(q.input_scale) || !fuzz_valid_scale(q.output_scale) ||
        q.kernel_scale == NULL) {
      create_expect |= INVALID;
    }
    for (size_t i = 0; i < nq; i++) {
      if (!fuzz_valid_scale(kscale[i])) create_expect |= INVALID;
    }
  }
  if (!zero_size && !size_overflow) {
    for (size_t oc = 0; oc < channels_out; oc++) {
      const size_t src = per_tensor ? 0 : oc;
      if (fixed) {
        ref_mult[oc] = mult[src];
        ref_shift[oc] = shift[src];
      } else if (fp32) {
        if (fuzz_normal_scale(q.input_scale) && fuzz_normal_scale(q.output_scale) &&
            fuzz_normal_scale(kscale[src])) {
          ref_scale[oc] = ref_fp32_scale(q.input_scale, kscale[src], q.output_scale);
          if (!(ref_scale[oc] < 256.0f)) create_expect |= UNSUPPORTED; /* XNNPACK's limit */
        }
      } else if (fuzz_valid_scale(q.input_scale) && fuzz_valid_scale(q.output_scale) &&
                 fuzz_valid_scale(kscale[src])) {
        const double real = (double)q.input_scale * (double)kscale[src] / (double)q.output_scale;
        if (!ref_quantize_multiplier(real, &ref_mult[oc], &ref_shift[oc]))
          create_expect |= UNSUPPORTED;
        if (ref_mult[oc] == 0) tiny = true;
      }
    }
  }
  const uint32_t create_allowed =
      create_expect != 0 ? create_expect : (tiny ? SUCCESS | UNSUPPORTED : SUCCESS);

  q8nn_operator_t op = (q8nn_operator_t)(uintptr_t)0xDEADBEEF;
  enum q8nn_status status;
  if (depthwise) {
    const struct q8nn_depthwise_convolution2d_desc desc = {pt, pr, pb, pl, kh,     kw,
                                                           sh, sw, dh, dw, groups, goc};
    status = q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &q, kernel, bias, flags, &op);
  } else {
    const struct q8nn_convolution2d_desc desc = {
        pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, (uint32_t)groups, gic, goc};
    if (groups > UINT32_MAX) {
      status =
          q8nn_status_invalid_parameter; /* not expressible in the desc; keep the expectation */
      op = (q8nn_operator_t)(uintptr_t)0xDEADBEEF;
      create_expect = INVALID;
    } else {
      status = q8nn_create_convolution2d_nhwc_s8(&desc, &q, kernel, bias, flags, &op);
    }
  }
  FUZZ_CHECK(fuzz_status_in(status, create_expect != 0 ? create_expect : create_allowed),
             "create %s returned %s (expected set 0x%x)", depthwise ? "depthwise" : "conv",
             q8nn_status_string(status), create_expect != 0 ? create_expect : create_allowed);
  /* options & 16: the same operator with uint8 activations (zero points and clamp + 128), whose
     bytes must be the int8 one's + 128 on the same input ^ 0x80 */
  q8nn_operator_t op_u8 = NULL;
  if (status == q8nn_status_success && (options & 16)) {
    const struct q8nn_conv_quantization_u8 qu = {
        q.input_zero_point + 128, q.input_scale, q.kernel_scale, q.output_zero_point + 128, q.output_scale,
        (uint8_t) (q.output_min + 128), (uint8_t) (q.output_max + 128), q.rounding, q.output_multiplier,
        q.output_shift, q.requantization_scale};
    enum q8nn_status status_u8;
    if (depthwise) {
      const struct q8nn_depthwise_convolution2d_desc desc = {pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups, goc};
      status_u8 = q8nn_create_depthwise_convolution2d_nhwc_u8(&desc, &qu, kernel, bias, flags, &op_u8);
    } else {
      const struct q8nn_convolution2d_desc desc = {pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, (uint32_t)groups, gic, goc};
      status_u8 = q8nn_create_convolution2d_nhwc_u8(&desc, &qu, kernel, bias, flags, &op_u8);
    }
    FUZZ_CHECK(status_u8 == q8nn_status_success, "create of the uint8 twin returned %s",
               q8nn_status_string(status_u8));
  }
  /* The caller's arrays may be freed right after create; ASan catches a kept pointer. */
  free(kscale);
  free(mult);
  free(shift);
  if (status != q8nn_status_success) {
    FUZZ_CHECK(op == (q8nn_operator_t)(uintptr_t)0xDEADBEEF,
               "create wrote the out-pointer on failure");
    free(kernel);
    free(bias);
    free(ref_mult);
    free(ref_shift);
    free(ref_scale);
    return;
  }

  /* setup */
  const uint8_t bb = fuzz_u8(r);
  const size_t batch = bb < 0xF8 ? bb % 4 : 0;
  const size_t in_h = fuzz_u8(r) % (MAX_EXTENT + 1), in_w = fuzz_u8(r) % (MAX_EXTENT + 1);
  const size_t in_stride = read_stride(r, channels_in), out_stride = read_stride(r, channels_out);
  struct ref_conv_params p;
  memset(&p, 0, sizeof(p));
  p.batch = batch, p.in_h = in_h, p.in_w = in_w, p.in_c = depthwise ? groups : gic;
  p.groups = depthwise ? 1 : groups, p.out_c = goc;
  p.k_h = kh, p.k_w = kw, p.stride_h = sh, p.stride_w = sw, p.dil_h = dh, p.dil_w = dw;
  p.pad_top = pt, p.pad_left = pl, p.pad_bottom = pb, p.pad_right = pr;
  p.in_pixel_stride = in_stride, p.out_pixel_stride = out_stride;
  p.in_zp = q.input_zero_point, p.out_zp = q.output_zero_point;
  p.out_min = q.output_min, p.out_max = q.output_max;
  p.multiplier = ref_mult, p.shift = ref_shift, p.rounding = (int)q.rounding;
  p.scale = ref_scale;
  size_t oh, ow;
  ref_output_size(&p, &oh, &ow);
  const bool too_big =
      oh > MAX_OUTPUT_PIXELS || ow > MAX_OUTPUT_PIXELS || batch * oh * ow > MAX_OUTPUT_PIXELS;
  if (too_big) {
    q8nn_delete_operator(op);
    q8nn_delete_operator(op_u8);
    free(kernel), free(bias), free(ref_mult), free(ref_shift), free(ref_scale);
    return;
  }
  const size_t in_pixels = batch * in_h * in_w, out_pixels = batch * oh * ow;
  if (in_stride > HUGE_STRIDE || out_stride > HUGE_STRIDE) {
    /* Strides far beyond any buffer: the setup refuses every extent that overflows size_t or wraps
       the address space and may accept the others, which are never run. */
    int8_t one_in[1], one_out[1];
    const bool sizes_ok = batch != 0 && in_h != 0 && in_w != 0 && oh != 0 && ow != 0 && in_stride >= channels_in &&
                          out_stride >= channels_out;
    const bool fits = sizes_ok && pixels_fit(one_in, in_pixels, channels_in, in_stride) &&
                      pixels_fit(one_out, out_pixels, channels_out, out_stride);
    status = depthwise ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, batch, in_h, in_w, one_in, in_stride, one_out,
                                                                    out_stride, NULL, NULL)
                       : q8nn_setup_convolution2d_nhwc_s8(op, batch, in_h, in_w, one_in, in_stride, one_out,
                                                          out_stride, NULL, NULL);
    FUZZ_CHECK(status == (fits ? q8nn_status_success : q8nn_status_invalid_parameter),
               "setup with strides %zu/%zu (%zu/%zu pixels) returned %s, expected %s", in_stride, out_stride, in_pixels,
               out_pixels, q8nn_status_string(status), fits ? "success" : "invalid_parameter");
    if (!fits) {
      FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "run after a refused setup");
    }
    q8nn_delete_operator(op);
    q8nn_delete_operator(op_u8);
    free(kernel), free(bias), free(ref_mult), free(ref_shift), free(ref_scale);
    return;
  }
  const size_t in_bytes =
      in_stride >= channels_in ? fuzz_pixels_bytes(in_pixels, in_stride, channels_in) : 1;
  const size_t out_bytes =
      out_stride >= channels_out ? fuzz_pixels_bytes(out_pixels, out_stride, channels_out) : 1;
  int8_t* input = xmalloc(in_bytes);
  int8_t* output = xmalloc(out_bytes);
  fuzz_fill(r, input, in_bytes);
  fuzz_fill_canary(output, out_bytes);
  size_t got_h = 777, got_w = 777;
#define SETUP(b, h, w, in, is, out, os)                                                           \
  (depthwise                                                                                      \
       ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, b, h, w, in, is, out, os, &got_h, &got_w) \
       : q8nn_setup_convolution2d_nhwc_s8(op, b, h, w, in, is, out, os, &got_h, &got_w))

  if (options & 4) {
    /* A bad setup on a freshly created operator: invalid_parameter, nothing written, and run
       stays out of order. */
    const uint8_t v = fuzz_u8(r) % 6;
    status = SETUP(v == 2 ? 0 : 1, v == 5 ? 0 : 1, 1, v == 0 ? NULL : input,
                   v == 3 ? channels_in - 1 : channels_in, v == 1 ? NULL : output,
                   v == 4 ? channels_out - 1 : channels_out);
    FUZZ_CHECK(status == q8nn_status_invalid_parameter, "bad setup %u returned %s", v,
               q8nn_status_string(status));
    FUZZ_CHECK(got_h == 777 && got_w == 777, "bad setup wrote the output size");
    status = q8nn_run_operator(op, threadpool);
    FUZZ_CHECK(status == q8nn_status_invalid_state, "run after a failed setup returned %s",
               q8nn_status_string(status));
    FUZZ_CHECK(fuzz_first_non_canary(output, out_bytes) == SIZE_MAX,
               "bad setup / run wrote the output");
  }

  const bool setup_valid = batch != 0 && in_h != 0 && in_w != 0 && in_stride >= channels_in &&
                           out_stride >= channels_out && oh != 0 && ow != 0;
  status = SETUP(batch, in_h, in_w, input, in_stride, output, out_stride);
#undef SETUP
  FUZZ_CHECK(status == (setup_valid ? q8nn_status_success : q8nn_status_invalid_parameter),
             "setup returned %s, expected %s (batch %zu in %zux%zu strides %zu/%zu out %zux%zu)",
             q8nn_status_string(status), setup_valid ? "success" : "invalid_parameter", batch, in_h,
             in_w, in_stride, out_stride, oh, ow);
  if (status != q8nn_status_success) {
    FUZZ_CHECK(got_h == 777 && got_w == 777, "failed setup wrote the output size");
    if (!(options & 8)) {
      status = q8nn_run_operator(op, threadpool);
      FUZZ_CHECK(status == q8nn_status_invalid_state, "run after a failed setup returned %s",
                 q8nn_status_string(status));
      status = q8nn_run_operators(1, &op, pool);
      FUZZ_CHECK(status == q8nn_status_invalid_state, "a list run after a failed setup returned %s",
                 q8nn_status_string(status));
    }
    FUZZ_CHECK(fuzz_first_non_canary(output, out_bytes) == SIZE_MAX,
               "failed setup / run wrote the output");
  } else {
    FUZZ_CHECK(got_h == oh && got_w == ow, "output size %zux%zu, reference %zux%zu", got_h, got_w,
               oh, ow);
    int8_t* expected = xmalloc(out_bytes);
    fuzz_fill_canary(expected, out_bytes);
    if (depthwise)
      ref_depthwise(&p, input, kernel, bias, expected);
    else
      ref_conv2d(&p, input, kernel, bias, expected);
    /* The caller's weights are copied at create: scribbling over them must not matter. */
    memset(kernel, 0x11, (size_t)kernel_bytes);
    /* run 2: the operator as a one-element q8nn_run_operators list on the 2-thread pool */
    const int runs = (options & 2) ? 3 : 1;
    for (int run = 0; run < runs; run++) {
      status = run == 2 ? q8nn_run_operators(1, &op, pool)
                        : q8nn_run_operator(op, run == 0 ? threadpool : (threadpool == NULL ? pool : NULL));
      FUZZ_CHECK(status == q8nn_status_success, "run returned %s", q8nn_status_string(status));
      for (size_t i = 0; i < out_bytes; i++) {
        FUZZ_CHECK(output[i] == expected[i],
                   "%s byte %zu (pixel %zu channel %zu): got %d, reference %d (run %d, kernel %s)",
                   depthwise ? "depthwise" : "conv", i, i / out_stride, i % out_stride, output[i],
                   expected[i], run, q8nn_operator_kernel_name(op));
      }
    }
    if (op_u8 != NULL) {
      /* the uint8 twin on the flipped input, on the 2-thread pool: written bytes are the reference's
         ^ 0x80, the others keep the canary */
      int8_t* input_u8 = xmalloc(in_bytes);
      int8_t* output_u8 = xmalloc(out_bytes);
      for (size_t i = 0; i < in_bytes; i++) input_u8[i] = (int8_t) (input[i] ^ 0x80);
      fuzz_fill_canary(output_u8, out_bytes);
      status = depthwise ? q8nn_setup_depthwise_convolution2d_nhwc_u8(op_u8, batch, in_h, in_w, (const uint8_t*) input_u8,
                                                                       in_stride, (uint8_t*) output_u8, out_stride, NULL, NULL)
                         : q8nn_setup_convolution2d_nhwc_u8(op_u8, batch, in_h, in_w, (const uint8_t*) input_u8,
                                                            in_stride, (uint8_t*) output_u8, out_stride, NULL, NULL);
      FUZZ_CHECK(status == q8nn_status_success, "setup of the uint8 twin returned %s", q8nn_status_string(status));
      status = q8nn_run_operator(op_u8, pool);
      FUZZ_CHECK(status == q8nn_status_success, "run of the uint8 twin returned %s", q8nn_status_string(status));
      for (size_t i = 0; i < out_bytes; i++) {
        const int written = i / out_stride < out_pixels && i % out_stride < channels_out;
        const int8_t want = written ? (int8_t) (expected[i] ^ 0x80) : expected[i];
        FUZZ_CHECK(output_u8[i] == want, "uint8 %s byte %zu: got %d, want %d (kernel %s)",
                   depthwise ? "depthwise" : "conv", i, output_u8[i], want, q8nn_operator_kernel_name(op_u8));
      }
      free(input_u8), free(output_u8);
    }
    free(expected);
  }
  FUZZ_CHECK(q8nn_delete_operator(op_u8) == q8nn_status_success, "delete failed");
  FUZZ_CHECK(q8nn_delete_operator(op) == q8nn_status_success, "delete failed");
  free(input), free(output), free(kernel), free(bias), free(ref_mult), free(ref_shift), free(ref_scale);
}

/* ---- add ----------------------------------------------------------------------------------- */

static size_t count_of(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static void fuzz_add(struct fuzz_reader* r, pthreadpool_t threadpool, uint8_t options) {
  struct q8nn_add_quantization q;
  memset(&q, 0, sizeof(q));
  q.a_zero_point = fuzz_zero_point(r);
  q.b_zero_point = fuzz_zero_point(r);
  q.output_zero_point = fuzz_zero_point(r);
  read_clamp(r, &q.output_min, &q.output_max);
  const uint8_t fb = fuzz_u8(r);
  static const uint32_t arithmetic_flags[3] = {0, Q8NN_FLAG_XNNPACK_ADD, Q8NN_FLAG_QNNPACK_ADD};
  const uint32_t flags = fb < 0xF0 ? arithmetic_flags[fb % 3] : fuzz_u32(r);
  const bool xnn = flags == Q8NN_FLAG_XNNPACK_ADD, qnn = flags == Q8NN_FLAG_QNNPACK_ADD;
  const uint8_t qmode = fuzz_u8(r);
  struct q8nn_add_fixed fixed;
  if ((qmode & 3) == 0) {
    const uint8_t ls = fuzz_u8(r);
    static const int32_t ls_edges[4] = {-1, 21, 31, INT32_MIN};
    fixed.left_shift = ls < 0xF0 ? ls % 21 : ls_edges[ls & 3];
    int32_t* fields[6] = {&fixed.a_multiplier, &fixed.a_shift,           &fixed.b_multiplier,
                          &fixed.b_shift,      &fixed.output_multiplier, &fixed.output_shift};
    for (int i = 0; i < 6; i += 2) {
      const uint8_t mb = fuzz_u8(r);
      static const int32_t m_edges[8] = {0,         -1, INT32_MIN, INT32_C(1) << 30,
                                         INT32_MAX, 1,  2,         INT32_C(1) << 29};
      *fields[i] = mb < 0xE0 ? (int32_t)(fuzz_u32(r) & UINT32_C(0x7FFFFFFF)) : m_edges[mb & 7];
      const uint8_t sb = fuzz_u8(r);
      static const int32_t s_edges[4] = {1, -32, 30, INT32_MIN};
      *fields[i + 1] = sb < 0xF0 ? -(int32_t)(sb % 32) : s_edges[sb & 3];
    }
    q.fixed = &fixed;
    q.a_scale = (qmode & 4) ? NAN : 0.0f; /* ignored with fixed parameters */
  } else {
    q.a_scale = fuzz_scale(r);
    q.b_scale = fuzz_scale(r);
    q.output_scale = fuzz_scale(r);
  }

  /* expected create status */
  uint32_t create_expect = 0;
  if (flags != 0 && !xnn && !qnn) create_expect |= INVALID; /* unknown bits, or both arithmetics */
  if (!fuzz_valid_zero_point(q.a_zero_point) || !fuzz_valid_zero_point(q.b_zero_point) ||
      !fuzz_valid_zero_point(q.output_zero_point) || q.output_min > q.output_max) {
    create_expect |= INVALID;
  }
  struct ref_add_params rp;
  memset(&rp, 0, sizeof(rp));
  struct ref_xnn_add_params xp;
  memset(&xp, 0, sizeof(xp));
  if (xnn || qnn) {
    if (q.fixed != NULL) {
      create_expect |= INVALID; /* XNNPACK's and pytorch_qnnpack's adds are defined from the scales only */
    } else if (create_expect == 0) { /* the reference takes zero points in range only */
      const int r_status = (qnn ? ref_qnnpack_add_params_from_scales : ref_xnn_add_params_from_scales)(
          q.a_scale, q.a_zero_point, q.b_scale, q.b_zero_point, q.output_scale,
          q.output_zero_point, q.output_min, q.output_max, &xp);
      if (r_status == 1) create_expect |= INVALID;
      if (r_status == 2) create_expect |= UNSUPPORTED;
    }
  } else if (q.fixed != NULL) {
    const struct q8nn_add_fixed* f = q.fixed;
    if (f->left_shift < 0 || f->left_shift > 20 || f->a_multiplier < 0 || f->b_multiplier < 0 ||
        f->output_multiplier < 0 || f->a_shift > 0 || f->b_shift > 0 || f->output_shift > 0 ||
        f->a_shift < -31 || f->b_shift < -31 || f->output_shift < -31) {
      create_expect |= INVALID;
    }
    rp = (struct ref_add_params){q.a_zero_point,  q.b_zero_point,  q.output_zero_point,
                                 f->left_shift,   f->a_multiplier, f->a_shift,
                                 f->b_multiplier, f->b_shift,      f->output_multiplier,
                                 f->output_shift, q.output_min,    q.output_max};
  } else if (!fuzz_valid_scale(q.a_scale) || !fuzz_valid_scale(q.b_scale) ||
             !fuzz_valid_scale(q.output_scale)) {
    create_expect |= INVALID;
  } else if (!ref_add_params_from_scales(q.a_scale, q.a_zero_point, q.b_scale, q.b_zero_point,
                                         q.output_scale, q.output_zero_point, q.output_min,
                                         q.output_max, &rp)) {
    create_expect |= UNSUPPORTED;
  }
  q8nn_operator_t op = (q8nn_operator_t)(uintptr_t)0xDEADBEEF;
  enum q8nn_status status = q8nn_create_add_nd_s8(&q, flags, &op);
  FUZZ_CHECK(fuzz_status_in(status, create_expect != 0 ? create_expect : SUCCESS),
             "create add returned %s (expected set 0x%x)", q8nn_status_string(status),
             create_expect);
  if (status != q8nn_status_success) {
    FUZZ_CHECK(op == (q8nn_operator_t)(uintptr_t)0xDEADBEEF,
               "create add wrote the out-pointer on failure");
    return;
  }
  memset(&fixed, 0x77, sizeof(fixed)); /* copied at create */

  /* shapes: a common full shape, each operand takes a dimension, 1 (broadcast) or a mismatch */
  const uint8_t ranks = fuzz_u8(r);
  size_t a_rank = ranks % 7, b_rank = (ranks >> 3) % 7;
  if (ranks >= 0xFC) {
    if (ranks & 1)
      a_rank = Q8NN_MAX_DIMS + 1;
    else
      b_rank = Q8NN_MAX_DIMS + 1;
  }
  const size_t rank = a_rank > b_rank ? a_rank : b_rank;
  size_t full[Q8NN_MAX_DIMS + 1], a_shape[Q8NN_MAX_DIMS + 1], b_shape[Q8NN_MAX_DIMS + 1];
  static const size_t huge_dims[4] = {SIZE_MAX / 2 + 1, (size_t) PTRDIFF_MAX, (size_t) UINT32_MAX + 2, SIZE_MAX / 3};
  int huge = 0;
  for (size_t i = 0; i < rank; i++) {
    const uint8_t d = fuzz_u8(r);
    full[i] = d < 0xF8 ? 1 + d % 5 : d < 0xFC ? 0 : huge_dims[d & 3];
    huge |= d >= 0xFC;
  }
  for (size_t i = 0; i < rank; i++) {
    const uint8_t m = fuzz_u8(r);
    size_t* targets[2] = {i >= rank - a_rank ? &a_shape[i - (rank - a_rank)] : NULL,
                          i >= rank - b_rank ? &b_shape[i - (rank - b_rank)] : NULL};
    for (int k = 0; k < 2; k++) {
      if (targets[k] == NULL) continue;
      const uint8_t mode = (m >> (4 * k)) & 15;
      *targets[k] = mode < 10 ? full[i] : mode < 15 ? 1 : full[i] + 1;
    }
  }
  if (huge && a_rank <= Q8NN_MAX_DIMS && b_rank <= Q8NN_MAX_DIMS) {
    /* Shapes far beyond any buffer: refused when the broadcast output's element count overflows
       size_t or an operand's extent wraps the address space; otherwise accepted and never run. */
    int8_t one[3];
    size_t out_rank = 0, out_shape[REF_MAX_DIMS], totals[3] = {1, 1, 1};
    int ok = ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &out_rank, out_shape);
    for (size_t i = 0; i < a_rank; i++) ok &= a_shape[i] != 0;
    for (size_t i = 0; i < b_rank; i++) ok &= b_shape[i] != 0;
    for (size_t i = 0; ok && i < out_rank; i++) ok &= !__builtin_mul_overflow(totals[2], out_shape[i], &totals[2]);
    if (ok) {
      totals[0] = count_of(a_rank, a_shape), totals[1] = count_of(b_rank, b_shape); /* <= totals[2] */
      for (int k = 0; k < 3; k++) ok &= pixels_fit(&one[k], totals[k], 1, 1);
    }
    status = q8nn_setup_add_nd_s8(op, a_rank, a_shape, b_rank, b_shape, &one[0], &one[1], &one[2]);
    FUZZ_CHECK(status == (ok ? q8nn_status_success : q8nn_status_invalid_parameter),
               "add setup of huge shapes returned %s, expected %s", q8nn_status_string(status),
               ok ? "success" : "invalid_parameter");
    if (!ok) FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "add ran after a refused setup");
    q8nn_delete_operator(op);
    return;
  }
  if (huge) {
    q8nn_delete_operator(op);
    return;
  }
  const uint8_t ptr_mode = fuzz_u8(r);
  const uint8_t alias = (ptr_mode >> 4) % 5; /* 0 none, 1 out=a, 2 out=b, 3 b=a, 4 out=a=b */
  const size_t* a_shape_arg = (ptr_mode & 15) == 1 ? NULL : a_shape;
  const size_t* b_shape_arg = (ptr_mode & 15) == 2 ? NULL : b_shape;

  /* expected setup status, and the broadcast shape when there is one */
  uint32_t setup_expect = 0;
  if ((ptr_mode & 15) >= 3 && (ptr_mode & 15) <= 5)
    setup_expect |= INVALID; /* a NULL tensor below */
  if (a_rank > Q8NN_MAX_DIMS || b_rank > Q8NN_MAX_DIMS) setup_expect |= INVALID | UNSUPPORTED;
  if ((a_shape_arg == NULL && a_rank != 0) || (b_shape_arg == NULL && b_rank != 0))
    setup_expect |= INVALID;
  size_t out_rank = 0, out_shape[REF_MAX_DIMS + 1];
  const size_t a_total = count_of(a_rank, a_shape), b_total = count_of(b_rank, b_shape);
  size_t out_total = 1;
  if (a_rank <= Q8NN_MAX_DIMS && b_rank <= Q8NN_MAX_DIMS) {
    for (size_t i = 0; i < a_rank; i++) setup_expect |= a_shape[i] == 0 ? INVALID : 0;
    for (size_t i = 0; i < b_rank; i++) setup_expect |= b_shape[i] == 0 ? INVALID : 0;
    if (!ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &out_rank, out_shape))
      setup_expect |= INVALID;
    else
      out_total = count_of(out_rank, out_shape);
  }
  if (setup_expect & INVALID) {
    /* The canary buffer still needs a size when the shapes do not broadcast. */
    out_total = 1;
    for (size_t i = 0; i < rank && rank <= Q8NN_MAX_DIMS + 1; i++) {
      const size_t ad = i >= rank - a_rank ? a_shape[i - (rank - a_rank)] : 1;
      const size_t bd = i >= rank - b_rank ? b_shape[i - (rank - b_rank)] : 1;
      out_total *= ad > bd ? ad : bd;
    }
  }
  /* b may read a's buffer only when it is no larger; out = a = b needs a and b the same size. */
  const bool same_ab = a_total == b_total;
  if ((alias == 1 || (alias == 4 && same_ab)) && a_total != out_total) setup_expect |= INVALID;
  if ((alias == 2 || (alias == 4 && !same_ab)) && b_total != out_total) setup_expect |= INVALID;

  int8_t* a = xmalloc(a_total);
  int8_t* b = xmalloc(b_total);
  int8_t* y = xmalloc(out_total);
  fuzz_fill(r, a, a_total);
  fuzz_fill(r, b, b_total);
  int8_t* a_copy = xmalloc(a_total);
  int8_t* b_copy = xmalloc(b_total);
  memcpy(a_copy, a, a_total);
  memcpy(b_copy, b, b_total);
  fuzz_fill_canary(y, out_total);
  const int8_t* a_arg = a;
  const int8_t* b_arg = b;
  int8_t* out_arg = y;
  switch (alias) {
    case 1:
      out_arg = a;
      break;
    case 2:
      out_arg = b;
      break;
    case 3:
      b_arg = same_ab ? a : b;
      break;
    case 4:
      if (same_ab)
        out_arg = a, b_arg = a;
      else
        out_arg = b; /* degrades to out = b */
      break;
  }
  const int8_t* b_data = b_arg == a ? a_copy : b_copy; /* what b holds before the run */
  if ((ptr_mode & 15) == 3) a_arg = NULL;
  if ((ptr_mode & 15) == 4) b_arg = NULL;
  if ((ptr_mode & 15) == 5) out_arg = NULL;

  if (options & 4) {
    /* bad setup first: a NULL input */
    status = q8nn_setup_add_nd_s8(op, a_rank, a_shape, b_rank, b_shape, NULL, b, y);
    FUZZ_CHECK(
        status == q8nn_status_invalid_parameter || status == q8nn_status_unsupported_parameter,
        "bad add setup returned %s", q8nn_status_string(status));
    status = q8nn_run_operator(op, threadpool);
    FUZZ_CHECK(status == q8nn_status_invalid_state, "run after a failed add setup returned %s",
               q8nn_status_string(status));
  }
  status =
      q8nn_setup_add_nd_s8(op, a_rank, a_shape_arg, b_rank, b_shape_arg, a_arg, b_arg, out_arg);
  FUZZ_CHECK(fuzz_status_in(status, setup_expect != 0 ? setup_expect : SUCCESS),
             "setup add returned %s (expected set 0x%x, ranks %zu/%zu alias %u)",
             q8nn_status_string(status), setup_expect, a_rank, b_rank, alias);
  if (status != q8nn_status_success) {
    status = q8nn_run_operator(op, threadpool);
    FUZZ_CHECK(status == q8nn_status_invalid_state, "run after a failed add setup returned %s",
               q8nn_status_string(status));
    status = q8nn_run_operators(1, &op, pool);
    FUZZ_CHECK(status == q8nn_status_invalid_state, "a list run after a failed add setup returned %s",
               q8nn_status_string(status));
    FUZZ_CHECK(fuzz_first_non_canary(y, out_total) == SIZE_MAX,
               "failed add setup / run wrote the output");
    FUZZ_CHECK(memcmp(a, a_copy, a_total) == 0 && memcmp(b, b_copy, b_total) == 0,
               "failed add setup / run wrote an operand");
  } else {
    int8_t* expected = xmalloc(out_total);
    if (xnn || qnn)
      ref_xnn_add(&xp, a_rank, a_shape, a_copy, b_rank, b_shape, b_data, expected);
    else
      ref_add(&rp, a_rank, a_shape, a_copy, b_rank, b_shape, b_data, expected);
    /* In place, a second run reads its own output: only one run then. */
    /* run 2: the operator as a one-element q8nn_run_operators list on the 2-thread pool */
    const int runs = (options & 2) && out_arg == y ? 3 : 1;
    for (int run = 0; run < runs; run++) {
      status = run == 2 ? q8nn_run_operators(1, &op, pool)
                        : q8nn_run_operator(op, run == 0 ? threadpool : (threadpool == NULL ? pool : NULL));
      FUZZ_CHECK(status == q8nn_status_success, "run add returned %s", q8nn_status_string(status));
      for (size_t i = 0; i < out_total; i++) {
        FUZZ_CHECK(out_arg[i] == expected[i],
                   "add byte %zu: got %d, reference %d (ranks %zu/%zu alias %u, %s)", i, out_arg[i],
                   expected[i], a_rank, b_rank, alias, q8nn_operator_kernel_name(op));
      }
    }
    if (out_arg != y)
      FUZZ_CHECK(fuzz_first_non_canary(y, out_total) == SIZE_MAX, "in-place add wrote y");
    free(expected);
  }
  FUZZ_CHECK(q8nn_delete_operator(op) == q8nn_status_success, "delete add failed");
  free(a), free(b), free(y), free(a_copy), free(b_copy);
}


/* Reads a row stride for the unary operators: mostly a few bytes beyond the channels, sometimes
   too small or so large that the rows' extent wraps the address space. */
static size_t read_row_stride(struct fuzz_reader* r, size_t channels) {
  const uint8_t b = fuzz_u8(r);
  if (b < 0xF8) return channels + b % 6;
  static const size_t edges[8] = {0, 1, SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 3, (size_t) PTRDIFF_MAX, 0, 0};
  if ((b & 7) == 6) return channels - 1;
  if ((b & 7) == 7) return (size_t) UINT32_MAX + 2;
  return edges[b & 7];
}

/* Unary elementwise operators (one table) and caller lookups, int8 and uint8: every byte against
   reference-unary.c, strided rows with canaries between them, in place, bad parameters. */
static void fuzz_unary(struct fuzz_reader* r, pthreadpool_t threadpool) {
  const uint8_t kind = fuzz_u8(r);
  const int u8 = (kind & 0x80) != 0, lookup = (kind & 0x40) != 0;
  const int operation = (kind & 0x3F) < 0x38 ? 1 + (kind & 0x3F) % 6 : (kind & 0x3F) - 0x38; /* 0, 7: bad */
  struct q8nn_unary_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = fuzz_zero_point(r);
  q.input_scale = fuzz_scale(r);
  q.output_zero_point = fuzz_zero_point(r);
  q.output_scale = fuzz_scale(r);
  read_clamp(r, &q.output_min, &q.output_max);
  const uint8_t alpha_kind = fuzz_u8(r);
  q.alpha = alpha_kind < 0xC0 ? (float) (alpha_kind % 64) / 64.0f : alpha_kind < 0xF0 ? fuzz_scale(r) : -fuzz_scale(r);
  q.rounding = (enum q8nn_rounding) (fuzz_u8(r) % 4);
  const int sigmoid_spec = fuzz_u8(r);
  if ((operation == 3 || operation == 4) && (sigmoid_spec & 1)) {
    q.output_scale = operation == 3 ? 1.0f / 256.0f : 1.0f / 128.0f;
    q.output_zero_point = operation == 3 ? -128 : 0;
  }
  if (operation == 6 && (sigmoid_spec & 2)) q.alpha = 1.0f;
  int8_t table[256];
  int accepted = 1;
  if (lookup) {
    fuzz_fill(r, table, 256);
  } else {
    const struct ref_unary_params p = {operation, q.rounding == q8nn_rounding_double ? 0 : q.rounding == q8nn_rounding_single ? 1 : 2,
                                       q.input_scale, q.input_zero_point, q.output_scale, q.output_zero_point,
                                       q.output_min, q.output_max, q.alpha};
    accepted = q.rounding <= q8nn_rounding_fp32;
    for (int x = -128; x <= 127 && accepted; x++) accepted = ref_unary_s8(&p, (int8_t) x, &table[(uint8_t) x]);
  }
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  enum q8nn_status status;
  if (lookup) {
    status = u8 ? q8nn_create_lookup_nc_u8((const uint8_t*) table, 0, &op) : q8nn_create_lookup_nc_s8(table, 0, &op);
  } else if (u8) {
    /* the uint8 zero points: +128, wrapping (an out-of-range int8 one stays out of [0, 255]) */
    const struct q8nn_unary_quantization_u8 q8 = {
        (int32_t) ((uint32_t) q.input_zero_point + 128u), q.input_scale,
        (int32_t) ((uint32_t) q.output_zero_point + 128u), q.output_scale,
        (uint8_t) (q.output_min + 128), (uint8_t) (q.output_max + 128), q.alpha, q.rounding};
    status = q8nn_create_unary_elementwise_nc_u8((enum q8nn_unary_operation) operation, &q8, 0, &op);
  } else {
    status = q8nn_create_unary_elementwise_nc_s8((enum q8nn_unary_operation) operation, &q, 0, &op);
  }
  if (!accepted) {
    FUZZ_CHECK(fuzz_status_in(status, INVALID | UNSUPPORTED), "unary create accepted what the reference refuses (%s)",
               q8nn_status_string(status));
    FUZZ_CHECK(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF, "unary create wrote its out-pointer on failure");
    return;
  }
  FUZZ_CHECK(status == q8nn_status_success, "unary create refused what the reference accepts (%s)",
             q8nn_status_string(status));
  if (u8) {
    /* the uint8 operator's table, in its own bytes */
    int8_t t8[256];
    for (size_t i = 0; i < 256; i++) t8[i] = lookup ? table[i] : (int8_t) ((uint8_t) table[i ^ 0x80] ^ 0x80);
    memcpy(table, t8, 256);
  }
  const size_t rows = fuzz_dim(r, 0, 6), channels = fuzz_dim(r, 0, 300);
  size_t in_stride = read_row_stride(r, channels), out_stride = read_row_stride(r, channels);
  const int in_place = fuzz_bool(r);
  if (in_place) out_stride = in_stride;
  const int sizes_ok = rows != 0 && channels != 0 && in_stride >= channels && out_stride >= channels;
  const int small = rows <= 64 && channels <= 4096 && in_stride <= 4096 && out_stride <= 4096;
  const size_t in_bytes = sizes_ok && small ? (rows - 1) * in_stride + channels : 1;
  const size_t out_bytes = sizes_ok && small ? (rows - 1) * out_stride + channels : 1;
  int8_t* x = xmalloc(in_bytes);
  int8_t* y = xmalloc(out_bytes);
  fuzz_fill(r, x, in_bytes);
  fuzz_fill_canary(y, out_bytes);
  int8_t* x_copy = xmalloc(in_bytes);
  memcpy(x_copy, x, in_bytes);
  int8_t* target = in_place ? x : y;
  status = u8 ? q8nn_setup_unary_elementwise_nc_u8(op, rows, channels, (const uint8_t*) x, in_stride, (uint8_t*) target,
                                                   out_stride)
              : q8nn_setup_unary_elementwise_nc_s8(op, rows, channels, x, in_stride, target, out_stride);
  if (!sizes_ok || !small) {
    /* zero sizes and strides below the channels are refused; so are rows whose last byte's
       address wraps. Larger shapes than the buffers are never run. */
    size_t last_in = 0, last_out = 0;
    const int wraps = sizes_ok && (__builtin_mul_overflow(rows - 1, in_stride, &last_in) ||
                                   __builtin_add_overflow(last_in, channels, &last_in) ||
                                   (uintptr_t) x > UINTPTR_MAX - last_in ||
                                   __builtin_mul_overflow(rows - 1, out_stride, &last_out) ||
                                   __builtin_add_overflow(last_out, channels, &last_out) ||
                                   (uintptr_t) target > UINTPTR_MAX - last_out);
    if (!sizes_ok || wraps) {
      FUZZ_CHECK(status == q8nn_status_invalid_parameter, "unary setup: %s for rows %zu channels %zu strides %zu %zu",
                 q8nn_status_string(status), rows, channels, in_stride, out_stride);
      FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "unary ran after a failed setup");
    }
  } else {
    FUZZ_CHECK(status == q8nn_status_success, "unary setup failed: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "unary run failed");
    for (size_t i = 0; i < out_bytes; i++) {
      const size_t row = i / out_stride, c = i % out_stride;
      const int8_t want = c < channels ? table[(uint8_t) x_copy[row * in_stride + c]]
                          : in_place ? x_copy[i] : FUZZ_CANARY;
      FUZZ_CHECK(target[i] == want, "unary byte %zu: got %d, want %d (%s)", i, target[i], want,
                 q8nn_operator_kernel_name(op));
    }
  }
  FUZZ_CHECK(q8nn_delete_operator(op) == q8nn_status_success, "delete unary failed");
  free(x), free(y), free(x_copy);
}

/* Max and average pooling, int8 and uint8: against reference-model.c's TFLite pooling (and
   pytorch_qnnpack's requantizing average pooling), pixel strides with canaries between pixels;
   windows, paddings, strides, quantizations and extents that must be refused. */
static void fuzz_pooling(struct fuzz_reader* r, pthreadpool_t threadpool) {
  const uint8_t kind = fuzz_u8(r);
  const int average = kind & 1, u8 = (kind >> 1) & 1, requantized = average && (kind & 4);
  struct q8nn_pooling2d_desc d;
  d.pooling_height = fuzz_dim(r, 0, 5);
  d.pooling_width = fuzz_dim(r, 0, 5);
  d.stride_height = fuzz_dim(r, 0, 3);
  d.stride_width = fuzz_dim(r, 0, 3);
  d.padding_top = fuzz_range(r, 0, 5);
  d.padding_bottom = fuzz_range(r, 0, 5);
  d.padding_left = fuzz_range(r, 0, 5);
  d.padding_right = fuzz_range(r, 0, 5);
  d.channels = fuzz_dim(r, 0, 70);
  int8_t lo, hi;
  read_clamp(r, &lo, &hi);
  /* the requantizing pooling's quantization, int8 terms (uint8: plus 128) */
  struct q8nn_pooling2d_quantization q = {(int8_t) fuzz_u8(r), 0.0f, (int8_t) fuzz_u8(r), 0.0f};
  if (requantized) q.input_scale = fuzz_scale(r), q.output_scale = fuzz_scale(r);
  const struct q8nn_pooling2d_quantization q_api = {q.input_zero_point + (u8 ? 128 : 0), q.input_scale,
                                                    q.output_zero_point + (u8 ? 128 : 0), q.output_scale};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  enum q8nn_status status;
  if (requantized) {
    status = u8 ? q8nn_create_average_pooling2d_requantized_nhwc_u8(&d, &q_api, (uint8_t) (lo + 128),
                                                                    (uint8_t) (hi + 128), 0, &op)
                : q8nn_create_average_pooling2d_requantized_nhwc_s8(&d, &q_api, lo, hi, 0, &op);
  } else {
    status =
        u8 ? (average ? q8nn_create_average_pooling2d_nhwc_u8(&d, (uint8_t) (lo + 128), (uint8_t) (hi + 128), 0, &op)
                      : q8nn_create_max_pooling2d_nhwc_u8(&d, (uint8_t) (lo + 128), (uint8_t) (hi + 128), 0, &op))
           : (average ? q8nn_create_average_pooling2d_nhwc_s8(&d, lo, hi, 0, &op)
                      : q8nn_create_max_pooling2d_nhwc_s8(&d, lo, hi, 0, &op));
  }
  const int create_ok = d.pooling_height != 0 && d.pooling_width != 0 && d.stride_height != 0 &&
                        d.stride_width != 0 && d.channels != 0 && d.padding_top < d.pooling_height &&
                        d.padding_bottom < d.pooling_height && d.padding_left < d.pooling_width &&
                        d.padding_right < d.pooling_width && lo <= hi &&
                        (!requantized || (isnormal(q.input_scale) && q.input_scale > 0.0f &&
                                          isnormal(q.output_scale) && q.output_scale > 0.0f));
  /* pytorch_qnnpack's scale ratio range, and windows below 2^23 cells */
  const float ratio = requantized && create_ok ? q.input_scale / q.output_scale : 1.0f;
  const uint64_t cells = (uint64_t) d.pooling_height * d.pooling_width;
  if (create_ok && requantized && (!(ratio >= 0x1.0p-8f && ratio < 0x1.0p+8f) || cells >= (UINT64_C(1) << 23))) {
    FUZZ_CHECK(status == q8nn_status_unsupported_parameter, "pooling create (ratio %g, %llu cells): %s",
               (double) ratio, (unsigned long long) cells, q8nn_status_string(status));
    FUZZ_CHECK(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF, "pooling create wrote its out-pointer on failure");
    return;
  }
  if (!create_ok) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter, "pooling create: %s", q8nn_status_string(status));
    FUZZ_CHECK(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF, "pooling create wrote its out-pointer on failure");
    return;
  }
  FUZZ_CHECK(status == q8nn_status_success, "pooling create refused a valid case: %s", q8nn_status_string(status));
  const size_t batch = fuzz_dim(r, 0, 2), h = fuzz_dim(r, 0, 12), w = fuzz_dim(r, 0, 12);
  const size_t c = d.channels;
  size_t in_stride = read_stride(r, c), out_stride = read_stride(r, c);
  const int small = batch <= 4 && h <= 64 && w <= 64 && c <= 4096 && in_stride <= 8192 && out_stride <= 8192;
  const int valid = batch != 0 && h != 0 && w != 0 && in_stride >= c && out_stride >= c &&
                    h + d.padding_top + d.padding_bottom >= d.pooling_height &&
                    w + d.padding_left + d.padding_right >= d.pooling_width;
  if (!small || !valid) {
    int8_t buffer[64];
    status = u8 ? q8nn_setup_pooling2d_nhwc_u8(op, batch, h, w, (const uint8_t*) buffer, in_stride,
                                               (uint8_t*) buffer, out_stride, NULL, NULL)
                : q8nn_setup_pooling2d_nhwc_s8(op, batch, h, w, buffer, in_stride, buffer, out_stride, NULL, NULL);
    /* invalid shapes are refused; shapes too large for any buffer may be accepted but never run */
    if (!valid) {
      FUZZ_CHECK(status == q8nn_status_invalid_parameter, "pooling setup: %s", q8nn_status_string(status));
      FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "pooling ran after a failed setup");
    }
    q8nn_delete_operator(op);
    return;
  }
  const size_t oh = (h + d.padding_top + d.padding_bottom - d.pooling_height) / d.stride_height + 1;
  const size_t ow = (w + d.padding_left + d.padding_right - d.pooling_width) / d.stride_width + 1;
  const size_t in_pixels = batch * h * w, out_pixels = batch * oh * ow;
  int8_t* x = xmalloc(in_pixels * in_stride);
  int8_t* dense = xmalloc(in_pixels * c);
  int8_t* expected = xmalloc(out_pixels * c);
  int8_t* y = xmalloc(out_pixels * out_stride);
  fuzz_fill(r, x, in_pixels * in_stride);
  for (size_t p = 0; p < in_pixels; p++) {
    for (size_t k = 0; k < c; k++) dense[p * c + k] = (int8_t) ((uint8_t) x[p * in_stride + k] ^ (u8 ? 0x80 : 0));
  }
  if (requantized) {
    ref_avgpool_qnnpack_s8(batch, h, w, c, oh, ow, d.pooling_height, d.pooling_width, d.stride_height,
                           d.stride_width, d.padding_top, d.padding_left, q.input_zero_point, q.input_scale,
                           q.output_zero_point, q.output_scale, lo, hi, dense, expected);
  } else {
    ref_pool_s8(average, batch, h, w, c, oh, ow, d.pooling_height, d.pooling_width, d.stride_height,
                d.stride_width, d.padding_top, d.padding_left, lo, hi, dense, expected);
  }
  fuzz_fill_canary(y, out_pixels * out_stride);
  size_t got_h = 0, got_w = 0;
  status = u8 ? q8nn_setup_pooling2d_nhwc_u8(op, batch, h, w, (const uint8_t*) x, in_stride, (uint8_t*) y, out_stride,
                                             &got_h, &got_w)
              : q8nn_setup_pooling2d_nhwc_s8(op, batch, h, w, x, in_stride, y, out_stride, &got_h, &got_w);
  FUZZ_CHECK(status == q8nn_status_success && got_h == oh && got_w == ow, "pooling setup: %s",
             q8nn_status_string(status));
  FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "pooling run failed");
  for (size_t i = 0; i < out_pixels * out_stride; i++) {
    const size_t p = i / out_stride, k = i % out_stride;
    const int8_t want = k < c ? (int8_t) ((uint8_t) expected[p * c + k] ^ (u8 ? 0x80 : 0)) : FUZZ_CANARY;
    FUZZ_CHECK(y[i] == want, "pooling byte %zu: got %d, want %d (%s)", i, y[i], want, q8nn_operator_kernel_name(op));
  }
  q8nn_delete_operator(op);
  free(x), free(dense), free(expected), free(y);
}

/* Concatenation (copies and PyTorch's requantization) and channel shuffle: every byte against index
   arithmetic; sizes, axes and overlaps that must be refused. */
static void fuzz_data_movement(struct fuzz_reader* r, pthreadpool_t threadpool) {
  const uint8_t kind = fuzz_u8(r);
  if (kind & 1) {
    const size_t groups = fuzz_dim(r, 0, 5), m = fuzz_dim(r, 0, 40), batch = fuzz_dim(r, 0, 20);
    q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
    const enum q8nn_status status = q8nn_create_channel_shuffle_nc_x8(groups, m, 0, &op);
    if (groups < 2 || m == 0) {
      FUZZ_CHECK(status == q8nn_status_invalid_parameter && op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF,
                 "channel shuffle create: %s", q8nn_status_string(status));
      return;
    }
    if (status != q8nn_status_success) {
      FUZZ_CHECK(status == q8nn_status_invalid_parameter, "channel shuffle create: %s", q8nn_status_string(status));
      return;
    }
    const size_t c = groups * m;
    const size_t in_stride = read_stride(r, c), out_stride = read_stride(r, c);
    const int valid = batch != 0 && in_stride >= c && out_stride >= c;
    if (!valid || batch > 64 || c > 4096 || in_stride > 8192 || out_stride > 8192) {
      int8_t buffer[16];
      const enum q8nn_status s = q8nn_setup_channel_shuffle_nc_x8(op, batch, buffer, in_stride, buffer + 8, out_stride);
      if (!valid) FUZZ_CHECK(s == q8nn_status_invalid_parameter, "channel shuffle setup: %s", q8nn_status_string(s));
      q8nn_delete_operator(op);
      return;
    }
    int8_t* x = xmalloc(batch * in_stride);
    int8_t* y = xmalloc(batch * out_stride);
    fuzz_fill(r, x, batch * in_stride);
    fuzz_fill_canary(y, batch * out_stride);
    FUZZ_CHECK(q8nn_setup_channel_shuffle_nc_x8(op, batch, x, in_stride, y, out_stride) == q8nn_status_success,
               "channel shuffle setup failed");
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "channel shuffle run failed");
    for (size_t i = 0; i < batch * out_stride; i++) {
      const size_t p = i / out_stride, k = i % out_stride;
      const int8_t want = k < c ? x[p * in_stride + (k % groups) * m + k / groups] : FUZZ_CANARY;
      FUZZ_CHECK(y[i] == want, "channel shuffle byte %zu", i);
    }
    q8nn_delete_operator(op);
    free(x), free(y);
    return;
  }
  const int u8 = (kind >> 1) & 1, requantize = (kind >> 2) & 1;
  const size_t n = fuzz_range(r, 1, 4), rank = fuzz_range(r, 1, 4), axis = fuzz_range(r, 0, 4);
  size_t shape[4], sizes[4];
  for (size_t i = 0; i < 4; i++) shape[i] = fuzz_dim(r, 0, 6);
  for (size_t i = 0; i < n; i++) sizes[i] = fuzz_dim(r, 0, 6);
  float scales[4];
  int32_t zps[4];
  const float out_scale = fuzz_scale(r);
  const int32_t out_zp = (int32_t) fuzz_range(r, 0, 255) - (u8 ? 0 : 128);
  for (size_t i = 0; i < n; i++) {
    scales[i] = requantize && (i & 1) ? fuzz_scale(r) : out_scale;
    zps[i] = requantize && (i & 1) ? (int32_t) fuzz_range(r, 0, 255) - (u8 ? 0 : 128) : out_zp;
  }
  const struct q8nn_concatenate_quantization q = {scales, zps, out_scale, out_zp};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  const uint32_t flags = requantize ? Q8NN_FLAG_PYTORCH_REQUANTIZE : 0;
  enum q8nn_status status = u8 ? q8nn_create_concatenate_nd_u8(n, &q, flags, &op)
                               : q8nn_create_concatenate_nd_s8(n, &q, flags, &op);
  int scales_ok = fuzz_normal_scale(out_scale);
  for (size_t i = 0; i < n; i++) scales_ok = scales_ok && fuzz_normal_scale(scales[i]);
  if (!scales_ok) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter && op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF,
               "concatenate create with a bad scale: %s", q8nn_status_string(status));
    return;
  }
  FUZZ_CHECK(status == q8nn_status_success, "concatenate create: %s", q8nn_status_string(status));
  size_t outer = 1, inner = 1, total_axis = 0;
  int valid = axis < rank;
  for (size_t dd = 0; dd < rank; dd++) {
    if (dd == axis) continue;
    valid = valid && shape[dd] != 0 && shape[dd] <= 64;
    if (dd < axis) outer *= shape[dd] <= 64 ? shape[dd] : 1;
    else inner *= shape[dd] <= 64 ? shape[dd] : 1;
  }
  for (size_t i = 0; i < n; i++) {
    valid = valid && sizes[i] != 0 && sizes[i] <= 64;
    total_axis += sizes[i] <= 64 ? sizes[i] : 0;
  }
  int8_t* in[4] = {NULL, NULL, NULL, NULL};
  for (size_t i = 0; i < n; i++) {
    in[i] = xmalloc(valid ? outer * sizes[i] * inner : 1);
    fuzz_fill(r, in[i], valid ? outer * sizes[i] * inner : 1);
  }
  const size_t total = valid ? outer * total_axis * inner : 1;
  int8_t* y = xmalloc(total);
  fuzz_fill_canary(y, total);
  status = u8 ? q8nn_setup_concatenate_nd_u8(op, rank, shape, axis, sizes, (const uint8_t* const*) in, (uint8_t*) y)
              : q8nn_setup_concatenate_nd_s8(op, rank, shape, axis, sizes, (const int8_t* const*) in, y);
  if (!valid) {
    int large = 0;
    for (size_t dd = 0; dd < rank; dd++) large |= dd != axis && shape[dd] > 64;
    for (size_t i = 0; i < n; i++) large |= sizes[i] > 64;
    if (!large || axis >= rank) {
      FUZZ_CHECK(status == q8nn_status_invalid_parameter, "concatenate setup: %s", q8nn_status_string(status));
    }
    FUZZ_CHECK(fuzz_first_non_canary(y, total) == SIZE_MAX, "concatenate wrote at setup");
  } else {
    FUZZ_CHECK(status == q8nn_status_success, "concatenate setup: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "concatenate run failed");
    size_t at = 0;
    for (size_t o = 0; o < outer; o++) {
      for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sizes[i] * inner; j++, at++) {
          int32_t x = in[i][o * sizes[i] * inner + j];
          if (u8) x = (uint8_t) x;
          if (scales[i] != out_scale || zps[i] != out_zp) {
            const float v = ((float) x - (float) zps[i]) * scales[i];
            const float qf = nearbyintf(v * (1.0f / out_scale)) + (float) out_zp;
            const float lo = u8 ? 0.0f : -128.0f, hi = u8 ? 255.0f : 127.0f;
            x = (int32_t) (qf < lo ? lo : qf > hi ? hi : qf);
          }
          FUZZ_CHECK(y[at] == (int8_t) x, "concatenate byte %zu: got %d, want %d", at, y[at], (int8_t) x);
        }
      }
    }
  }
  q8nn_delete_operator(op);
  for (size_t i = 0; i < n; i++) free(in[i]);
  free(y);
}

/* Fully connected (kind bit0 clear) and transposed convolution (set), int8 and uint8, TFLite
   double rounding or fp32: against ref_conv2d (1x1 over the rows) and ref_transpose_conv2d, canaries
   between rows / pixels; sizes, adjustments and strides that must be refused. */
static void fuzz_fc_deconv(struct fuzz_reader* r, pthreadpool_t threadpool) {
  const uint8_t kind = fuzz_u8(r);
  const int deconv = kind & 1, u8 = (kind >> 1) & 1, fp32 = (kind >> 2) & 1;
  const size_t gic = fuzz_dim(r, 0, 40), goc = fuzz_dim(r, 0, 40);
  const size_t kh = deconv ? fuzz_dim(r, 0, 4) : 1, kw = deconv ? fuzz_dim(r, 0, 4) : 1;
  const size_t sh = deconv ? fuzz_dim(r, 0, 3) : 1, sw = deconv ? fuzz_dim(r, 0, 3) : 1;
  const size_t pt = deconv ? fuzz_range(r, 0, 3) : 0, pb = deconv ? fuzz_range(r, 0, 3) : 0;
  const size_t pl = deconv ? fuzz_range(r, 0, 3) : 0, pr = deconv ? fuzz_range(r, 0, 3) : 0;
  const size_t ah = deconv ? fuzz_range(r, 0, 3) : 0, aw = deconv ? fuzz_range(r, 0, 3) : 0;
  const int32_t in_zp = (int32_t) fuzz_range(r, 0, 255) - 128, out_zp = (int32_t) fuzz_range(r, 0, 255) - 128;
  if (gic == 0 || goc == 0 || kh == 0 || kw == 0 || sh == 0 || sw == 0 || gic > 64 || goc > 64 || kh > 8 || kw > 8 ||
      sh > 8 || sw > 8) {
    q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
    const float ks = 0.01f;
    const struct q8nn_conv_quantization q = {in_zp, 0.05f, &ks, out_zp, 0.5f, -128, 127, q8nn_rounding_double,
                                             NULL, NULL, NULL};
    static const int8_t zeros[8 * 8 * 64 * 64];
    const struct q8nn_convolution2d_desc d = {(uint32_t) pt, (uint32_t) pr, (uint32_t) pb, (uint32_t) pl,
                                              (uint32_t) kh, (uint32_t) kw, (uint32_t) sh, (uint32_t) sw, 1, 1, 1,
                                              gic, goc};
    const int big = gic > 64 || goc > 64 || kh > 8 || kw > 8 || sh > 8 || sw > 8;
    if (!big) {
      const enum q8nn_status s =
          deconv ? q8nn_create_deconvolution2d_nhwc_s8(&d, &q, zeros, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op)
                 : q8nn_create_fully_connected_nc_s8(gic, goc, &q, zeros, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op);
      FUZZ_CHECK(s == q8nn_status_invalid_parameter && op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF,
                 "fc/deconv create with a zero size: %s", q8nn_status_string(s));
    }
    return;
  }
  const size_t taps = kh * kw;
  int8_t* kernel = xmalloc(goc * taps * gic);
  int32_t bias[64];
  float scales[64];
  int32_t multiplier[64], shift[64];
  float fscale[64];
  fuzz_fill(r, kernel, goc * taps * gic);
  fuzz_fill_s32(r, bias, goc);
  for (size_t i = 0; i < goc; i++) bias[i] %= 100000;
  const float in_scale = 0.05f, out_scale = 0.03f * (float) (1 + fuzz_range(r, 0, 30));
  for (size_t i = 0; i < goc; i++) {
    scales[i] = 0.001f * (float) (1 + fuzz_range(r, 0, 40));
    ref_quantize_multiplier((double) in_scale * (double) scales[i] / (double) out_scale, &multiplier[i], &shift[i]);
    fscale[i] = ref_fp32_scale(in_scale, scales[i], out_scale);
  }
  q8nn_operator_t op = NULL;
  const enum q8nn_rounding rounding = fp32 ? q8nn_rounding_fp32 : q8nn_rounding_double;
  const struct q8nn_convolution2d_desc d = {(uint32_t) pt, (uint32_t) pr, (uint32_t) pb, (uint32_t) pl, (uint32_t) kh,
                                            (uint32_t) kw, (uint32_t) sh, (uint32_t) sw, 1, 1, 1, gic, goc};
  enum q8nn_status status;
  if (u8) {
    const struct q8nn_conv_quantization_u8 q = {in_zp + 128, in_scale, scales, out_zp + 128, out_scale, 0, 255,
                                                rounding, NULL, NULL, NULL};
    status = deconv ? q8nn_create_deconvolution2d_nhwc_u8(&d, &q, kernel, bias, 0, &op)
                    : q8nn_create_fully_connected_nc_u8(gic, goc, &q, kernel, bias, 0, &op);
  } else {
    const struct q8nn_conv_quantization q = {in_zp, in_scale, scales, out_zp, out_scale, -128, 127, rounding, NULL,
                                             NULL, NULL};
    status = deconv ? q8nn_create_deconvolution2d_nhwc_s8(&d, &q, kernel, bias, 0, &op)
                    : q8nn_create_fully_connected_nc_s8(gic, goc, &q, kernel, bias, 0, &op);
  }
  FUZZ_CHECK(status == q8nn_status_success, "fc/deconv create: %s", q8nn_status_string(status));
  const size_t batch = fuzz_dim(r, 0, 3), h = deconv ? fuzz_dim(r, 0, 6) : 1, w = fuzz_dim(r, 0, deconv ? 6 : 8);
  const size_t in_stride = read_stride(r, gic), out_stride = read_stride(r, goc);
  const size_t full_h = (h - 1) * sh + kh + ah, full_w = (w - 1) * sw + kw + aw;
  const int sizes_ok = batch != 0 && h != 0 && w != 0 && in_stride >= gic && out_stride >= goc;
  const int valid = sizes_ok && ah < sh && aw < sw && full_h > pt + pb && full_w > pl + pr && batch <= 3 && h <= 64 &&
                    w <= 64 && in_stride <= 4096 && out_stride <= 4096;
  const size_t oh = valid ? full_h - pt - pb : 0, ow = valid ? full_w - pl - pr : 0;
  const size_t rows = deconv ? batch : 1;                  /* images */
  const size_t in_pixels = deconv ? batch * h * w : batch * w; /* fc: batch x w rows */
  const size_t out_pixels = deconv ? batch * oh * ow : batch * w;
  /* a refused shape is set up to check the status; a shape too large for the buffers is not set up
     at all (its indirection would be allocated: out_of_memory, or an allocation ASan refuses) */
  const int refused = !sizes_ok || ah >= sh || aw >= sw || (deconv && (full_h <= pt + pb || full_w <= pl + pr));
  if (!valid && !refused) {
    q8nn_delete_operator(op);
    free(kernel);
    return;
  }
  int8_t* x = xmalloc(valid ? in_pixels * in_stride : 1);
  int8_t* y = xmalloc(valid ? out_pixels * out_stride : 1);
  fuzz_fill(r, x, valid ? in_pixels * in_stride : 1);
  fuzz_fill_canary(y, valid ? out_pixels * out_stride : 1);
  if (deconv) {
    status = u8 ? q8nn_setup_deconvolution2d_nhwc_u8(op, batch, h, w, (uint32_t) ah, (uint32_t) aw, (const uint8_t*) x,
                                                     in_stride, (uint8_t*) y, out_stride, NULL, NULL)
                : q8nn_setup_deconvolution2d_nhwc_s8(op, batch, h, w, (uint32_t) ah, (uint32_t) aw, x, in_stride, y,
                                                     out_stride, NULL, NULL);
  } else {
    status = u8 ? q8nn_setup_fully_connected_nc_u8(op, batch * w, (const uint8_t*) x, in_stride, (uint8_t*) y,
                                                   out_stride)
                : q8nn_setup_fully_connected_nc_s8(op, batch * w, x, in_stride, y, out_stride);
  }
  if (!valid) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter, "fc/deconv setup: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "fc/deconv ran after a failed setup");
  } else {
    FUZZ_CHECK(status == q8nn_status_success, "fc/deconv setup: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "fc/deconv run failed");
    const uint8_t flip = u8 ? 0x80 : 0;
    int8_t* dense = xmalloc(in_pixels * gic);
    int8_t* expected = xmalloc(out_pixels * goc);
    for (size_t p = 0; p < in_pixels; p++) {
      for (size_t k = 0; k < gic; k++) dense[p * gic + k] = (int8_t) ((uint8_t) x[p * in_stride + k] ^ flip);
    }
    const struct ref_conv_params rp = {
        .batch = rows, .in_h = h, .in_w = deconv ? w : batch * w, .in_c = gic, .groups = 1, .out_c = goc, .k_h = kh,
        .k_w = kw, .stride_h = sh, .stride_w = sw, .dil_h = 1, .dil_w = 1, .pad_top = pt, .pad_left = pl,
        .in_pixel_stride = gic, .out_pixel_stride = goc, .in_zp = in_zp, .out_zp = out_zp, .out_min = -128,
        .out_max = 127, .multiplier = multiplier, .shift = shift, .rounding = fp32 ? 2 : 0, .scale = fscale};
    if (deconv) {
      ref_transpose_conv2d(&rp, oh, ow, dense, kernel, bias, expected);
    } else {
      ref_conv2d(&rp, dense, kernel, bias, expected);
    }
    for (size_t i = 0; i < out_pixels * out_stride; i++) {
      const size_t p = i / out_stride, k = i % out_stride;
      const int8_t want = k < goc ? (int8_t) ((uint8_t) expected[p * goc + k] ^ flip) : FUZZ_CANARY;
      FUZZ_CHECK(y[i] == want, "%s byte %zu: got %d, want %d (%s)", deconv ? "deconv" : "fc", i, y[i], want,
                 q8nn_operator_kernel_name(op));
    }
    free(dense), free(expected);
  }
  q8nn_delete_operator(op);
  free(kernel), free(x), free(y);
}

/* Softmax (kind bit0 clear) and resize (set): against ref_softmax_s8 and ref_resize_s8. */
static void fuzz_softmax_resize(struct fuzz_reader* r, pthreadpool_t threadpool) {
  const uint8_t kind = fuzz_u8(r);
  const int u8 = (kind >> 1) & 1;
  const uint8_t flip = u8 ? 0x80 : 0;
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  if ((kind & 1) == 0) {
    const float scale = fuzz_scale(r), beta = (float) (1 + fuzz_range(r, 0, 7)) / 2.0f;
    const size_t rows = fuzz_dim(r, 0, 4), channels = fuzz_dim(r, 0, 300);
    enum q8nn_status status = u8 ? q8nn_create_softmax_nc_u8(scale, beta, 0, &op)
                                 : q8nn_create_softmax_nc_s8(scale, beta, 0, &op);
    if (!fuzz_valid_scale(scale)) {
      FUZZ_CHECK(status == q8nn_status_invalid_parameter && op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF,
                 "softmax create with a bad scale: %s", q8nn_status_string(status));
      return;
    }
    if (status != q8nn_status_success) {
      FUZZ_CHECK(status == q8nn_status_unsupported_parameter, "softmax create: %s", q8nn_status_string(status));
      return;
    }
    const int valid = rows != 0 && channels != 0 && rows <= 16 && channels <= 1024;
    int8_t* x = xmalloc(valid ? rows * channels : 1);
    int8_t* y = xmalloc(valid ? rows * channels : 1);
    fuzz_fill(r, x, valid ? rows * channels : 1);
    status = u8 ? q8nn_setup_softmax_nc_u8(op, rows, channels, (const uint8_t*) x, channels, (uint8_t*) y, channels)
                : q8nn_setup_softmax_nc_s8(op, rows, channels, x, channels, y, channels);
    if (!valid) {
      if (rows == 0 || channels == 0) FUZZ_CHECK(status == q8nn_status_invalid_parameter, "softmax setup");
    } else {
      FUZZ_CHECK(status == q8nn_status_success, "softmax setup: %s", q8nn_status_string(status));
      FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "softmax run failed");
      int8_t* dense = xmalloc(rows * channels);
      int8_t* expected = xmalloc(rows * channels);
      for (size_t i = 0; i < rows * channels; i++) dense[i] = (int8_t) ((uint8_t) x[i] ^ flip);
      FUZZ_CHECK(ref_softmax_s8(beta, scale, rows, channels, dense, expected), "softmax reference refused");
      for (size_t i = 0; i < rows * channels; i++) {
        FUZZ_CHECK(y[i] == (int8_t) ((uint8_t) expected[i] ^ flip), "softmax byte %zu: got %d", i, y[i]);
      }
      free(dense), free(expected);
    }
    q8nn_delete_operator(op);
    free(x), free(y);
    return;
  }
  const int bilinear = (kind >> 2) & 1, flag_kind = (kind >> 3) % 4;
  const uint32_t flags = flag_kind == 1 ? Q8NN_FLAG_ALIGN_CORNERS : flag_kind == 2 ? Q8NN_FLAG_HALF_PIXEL_CENTERS
                         : flag_kind == 3 ? (Q8NN_FLAG_ALIGN_CORNERS | Q8NN_FLAG_HALF_PIXEL_CENTERS) : 0;
  const size_t c = fuzz_dim(r, 0, 40), oh = fuzz_dim(r, 0, 16), ow = fuzz_dim(r, 0, 16);
  /* the operator keeps per-column tables of the output width: huge sizes are not created (an
     allocation ASan refuses; out_of_memory otherwise) */
  if (c > 4096 || oh > 4096 || ow > 4096) return;
  enum q8nn_status status =
      u8 ? q8nn_create_resize2d_nhwc_u8(bilinear ? q8nn_resize_bilinear : q8nn_resize_nearest, c, oh, ow, flags, &op)
         : q8nn_create_resize2d_nhwc_s8(bilinear ? q8nn_resize_bilinear : q8nn_resize_nearest, c, oh, ow, flags, &op);
  if (c == 0 || oh == 0 || ow == 0 || flag_kind == 3) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter && op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF,
               "resize create: %s", q8nn_status_string(status));
    return;
  }
  if (status != q8nn_status_success) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter || status == q8nn_status_out_of_memory, "resize create: %s",
               q8nn_status_string(status));
    return;
  }
  const size_t batch = fuzz_dim(r, 0, 2), h = fuzz_dim(r, 0, 16), w = fuzz_dim(r, 0, 16);
  const size_t in_stride = read_stride(r, c), out_stride = read_stride(r, c);
  const int sizes_ok = batch != 0 && h != 0 && w != 0 && in_stride >= c && out_stride >= c;
  const int small = batch <= 2 && h <= 64 && w <= 64 && oh <= 64 && ow <= 64 && c <= 64 && in_stride <= 4096 &&
                    out_stride <= 4096;
  const size_t in_pixels = batch * h * w, out_pixels = batch * oh * ow;
  int8_t* x = xmalloc(sizes_ok && small ? in_pixels * in_stride : 1);
  int8_t* y = xmalloc(sizes_ok && small ? out_pixels * out_stride : 1);
  fuzz_fill(r, x, sizes_ok && small ? in_pixels * in_stride : 1);
  fuzz_fill_canary(y, sizes_ok && small ? out_pixels * out_stride : 1);
  status = u8 ? q8nn_setup_resize2d_nhwc_u8(op, batch, h, w, (const uint8_t*) x, in_stride, (uint8_t*) y, out_stride)
              : q8nn_setup_resize2d_nhwc_s8(op, batch, h, w, x, in_stride, y, out_stride);
  if (!sizes_ok) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter, "resize setup: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "resize ran after a failed setup");
  } else if (small) {
    FUZZ_CHECK(status == q8nn_status_success, "resize setup: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "resize run failed");
    int8_t* dense = xmalloc(in_pixels * c);
    int8_t* expected = xmalloc(out_pixels * c);
    for (size_t p = 0; p < in_pixels; p++) {
      for (size_t k = 0; k < c; k++) dense[p * c + k] = (int8_t) ((uint8_t) x[p * in_stride + k] ^ flip);
    }
    ref_resize_s8(bilinear, (flags & Q8NN_FLAG_ALIGN_CORNERS) != 0, (flags & Q8NN_FLAG_HALF_PIXEL_CENTERS) != 0, batch,
                  h, w, c, oh, ow, dense, expected);
    for (size_t i = 0; i < out_pixels * out_stride; i++) {
      const size_t p = i / out_stride, k = i % out_stride;
      const int8_t want = k < c ? (int8_t) ((uint8_t) expected[p * c + k] ^ flip) : FUZZ_CANARY;
      FUZZ_CHECK(y[i] == want, "resize byte %zu: got %d, want %d", i, y[i], want);
    }
    free(dense), free(expected);
  }
  q8nn_delete_operator(op);
  free(x), free(y);
}

/* Multiply, TFLite's, PyTorch's or XNNPACK's arithmetic, int8 and uint8: quantizations that must be refused,
   small broadcast shapes (zero dimensions and non-broadcasting pairs refused), the output aliasing
   a, and every byte against reference-model.c's ref_mul_sub_s8; a failed setup writes nothing. */
static void fuzz_multiply(struct fuzz_reader* r, pthreadpool_t threadpool) {
  const uint8_t kind = fuzz_u8(r);
  const int u8 = kind & 1, alias = (kind >> 3) & 1;
  static const uint32_t arithmetic_flags[4] = {0, Q8NN_FLAG_PYTORCH_REQUANTIZE, Q8NN_FLAG_XNNPACK_MULTIPLY, 0};
  const uint32_t flags = (kind & 0xF0) == 0xF0 ? fuzz_u32(r) : arithmetic_flags[(kind >> 1) & 3];
  int8_t lo, hi;
  read_clamp(r, &lo, &hi);
  const int32_t shift = u8 ? 128 : 0;
  /* zero points in int8 terms; an edge byte puts one out of range */
  int32_t zp[3];
  for (int i = 0; i < 3; i++) zp[i] = (int8_t) fuzz_u8(r);
  const uint8_t zp_edge = fuzz_u8(r);
  const struct q8nn_multiply_quantization q = {
      zp[0] + shift + (zp_edge == 0xFF ? 300 : 0), fuzz_scale(r), zp[1] + shift, fuzz_scale(r), zp[2] + shift,
      fuzz_scale(r), lo + shift, hi + shift};
  const int arithmetic = flags == Q8NN_FLAG_PYTORCH_REQUANTIZE ? 1 : flags == Q8NN_FLAG_XNNPACK_MULTIPLY ? 2 : 0;
  uint32_t create_expect = 0;
  if (flags != 0 && arithmetic == 0) create_expect |= INVALID;
  if (zp_edge == 0xFF || lo > hi) create_expect |= INVALID;
  const float scales[3] = {q.a_scale, q.b_scale, q.output_scale};
  for (int i = 0; i < 3; i++) create_expect |= isnormal(scales[i]) && scales[i] > 0.0f ? 0 : INVALID;
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  enum q8nn_status status = u8 ? q8nn_create_multiply_nd_u8(&q, flags, &op) : q8nn_create_multiply_nd_s8(&q, flags, &op);
  if (create_expect == 0) create_expect = SUCCESS | UNSUPPORTED; /* the multiplier's range: decided below */
  FUZZ_CHECK(fuzz_status_in(status, create_expect), "create multiply returned %s (expected set 0x%x)",
             q8nn_status_string(status), create_expect);
  if (status != q8nn_status_success) {
    FUZZ_CHECK(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF, "create multiply wrote the out-pointer on failure");
    return;
  }
  size_t a_rank = fuzz_range(r, 0, 4), b_rank = fuzz_range(r, 0, 4);
  size_t a_shape[4], b_shape[4];
  for (size_t i = 0; i < 4; i++) a_shape[i] = fuzz_range(r, 0, 5), b_shape[i] = fuzz_range(r, 0, 5);
  size_t out_rank = 0, out_shape[REF_MAX_DIMS];
  int valid = ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &out_rank, out_shape);
  for (size_t i = 0; i < a_rank; i++) valid &= a_shape[i] != 0;
  for (size_t i = 0; i < b_rank; i++) valid &= b_shape[i] != 0;
  const size_t a_total = count_of(a_rank, a_shape), b_total = count_of(b_rank, b_shape);
  const size_t out_total = valid ? count_of(out_rank, out_shape) : 1;
  if (alias && a_total != out_total) valid = 0;
  int8_t* a = xmalloc(a_total + 1);
  int8_t* b = xmalloc(b_total + 1);
  int8_t* y = xmalloc(out_total);
  int8_t* a_copy = xmalloc(a_total + 1);
  fuzz_fill(r, a, a_total);
  fuzz_fill(r, b, b_total);
  memcpy(a_copy, a, a_total);
  fuzz_fill_canary(y, out_total);
  int8_t* out = alias ? a : y;
  status = u8 ? q8nn_setup_multiply_nd_u8(op, a_rank, a_shape, b_rank, b_shape, (const uint8_t*) a,
                                          (const uint8_t*) b, (uint8_t*) out)
              : q8nn_setup_multiply_nd_s8(op, a_rank, a_shape, b_rank, b_shape, a, b, out);
  if (!valid) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter, "multiply setup: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_invalid_state, "multiply ran after a failed setup");
    FUZZ_CHECK(fuzz_first_non_canary(y, out_total) == SIZE_MAX && memcmp(a, a_copy, a_total) == 0,
               "failed multiply setup wrote a buffer");
  } else {
    FUZZ_CHECK(status == q8nn_status_success, "multiply setup refused a valid case: %s", q8nn_status_string(status));
    FUZZ_CHECK(q8nn_run_operator(op, threadpool) == q8nn_status_success, "multiply run failed");
    int8_t* dense_a = xmalloc(a_total + 1);
    int8_t* dense_b = xmalloc(b_total + 1);
    int8_t* expected = xmalloc(out_total);
    for (size_t i = 0; i < a_total; i++) dense_a[i] = (int8_t) ((uint8_t) a_copy[i] ^ (u8 ? 0x80 : 0));
    for (size_t i = 0; i < b_total; i++) dense_b[i] = (int8_t) ((uint8_t) b[i] ^ (u8 ? 0x80 : 0));
    /* the reference refuses TFLite multipliers whose shift exceeds 30, as create does */
    FUZZ_CHECK(ref_mul_sub_s8(arithmetic + 1, a_rank, a_shape, dense_a, q.a_scale, zp[0], b_rank, b_shape,
                              dense_b, q.b_scale, zp[1], q.output_scale, zp[2], lo, hi, expected),
               "multiply created where the reference refuses the scales");
    for (size_t i = 0; i < out_total; i++) {
      const int8_t want = (int8_t) ((uint8_t) expected[i] ^ (u8 ? 0x80 : 0));
      FUZZ_CHECK(out[i] == want, "multiply byte %zu: got %d, want %d (%s)", i, out[i], want,
                 q8nn_operator_kernel_name(op));
    }
    free(dense_a), free(dense_b), free(expected);
  }
  FUZZ_CHECK(q8nn_delete_operator(op) == q8nn_status_success, "delete multiply failed");
  free(a), free(b), free(y), free(a_copy);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  struct fuzz_reader r = {data, size, 0};
  const uint8_t first = fuzz_u8(&r);
  /* 0xE4..0xE7: multiply, 0xE8..0xEB: fully connected / transposed convolution, 0xEC..0xEF
     softmax / resize, 0xF0..0xF7 the unary operators, 0xF8..0xFB pooling, 0xFC..0xFF concatenation
     and shuffle */
  const uint8_t which = first >= 0xFC   ? 5
                        : first >= 0xF8 ? 4
                        : first >= 0xF0 ? 3
                        : first >= 0xEC ? 7
                        : first >= 0xE8 ? 6
                        : first >= 0xE4 ? 8
                                        : first % 3;
  const uint8_t isa = fuzz_u8(&r);
  const uint8_t options = fuzz_u8(&r);
  /* Operators keep the kernels of the mask they were created under. */
  q8nn_set_isa_mask(isa_masks[isa % num_isa_masks]);
  const pthreadpool_t threadpool = (options & 1) ? pool : NULL;
  if (which == 8)
    fuzz_multiply(&r, threadpool);
  else if (which == 7)
    fuzz_softmax_resize(&r, threadpool);
  else if (which == 6)
    fuzz_fc_deconv(&r, threadpool);
  else if (which == 5)
    fuzz_data_movement(&r, threadpool);
  else if (which == 4)
    fuzz_pooling(&r, threadpool);
  else if (which == 3)
    fuzz_unary(&r, threadpool);
  else if (which == 2)
    fuzz_add(&r, threadpool, options);
  else
    fuzz_conv(&r, which == 1, threadpool, options);
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  return 0;
}
