/*
 * fuzz-vta-backend: a fuzzed VTA configuration (valid and invalid) and a small fuzzed conv,
 * depthwise or add run through the VTA backend and the public API. As tests/accel/backend
 * checks (docs/vta-backend.md): an operator lowered to VTA equals the host oracle of the VTA
 * arithmetic (src/accel/vta/vta-requant.h) bit for bit and the independent TFLite reference
 * within 1 LSB; one the backend does not support (or whose shape falls back at setup) runs on
 * the CPU and equals the reference exactly. Bytes between output pixels keep their canary, and
 * every buffer is allocated to its exact size. A configuration the backend rejects must fail with
 * invalid_parameter / unsupported_parameter. Byte layout: tests/fuzz/README.md.
 */
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>
#include <q8nn.h>

#include "accel/vta/vta-backend.h"
#include "fuzz-util.h"
#include "operator.h"
#include "reference/reference.h"

static pthreadpool_t pool;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  if (q8nn_initialize() != q8nn_status_success) abort();
  q8nn_set_log_level(0);
  pool = pthreadpool_create(2);
  return 0;
}

static int8_t* xmalloc(size_t n) {
  int8_t* p = malloc(n == 0 ? 1 : n);
  if (p == NULL) abort();
  return p;
}

static int absdiff(int a, int b) { return a > b ? a - b : b - a; }

/* A log2 buffer size: 0 (default), mostly 8..19 (at most 512 KiB per scratchpad), sometimes
   beyond what the configuration envelope accepts. */
static uint32_t read_log_buff(struct fuzz_reader* r) {
  const uint8_t b = fuzz_u8(r);
  if (b < 0x20) return 0;
  if (b < 0xF0) return 8 + b % 12;
  static const uint32_t edges[8] = {
      1, 5, 20, 25, 32, UINT32_C(0x80000000), UINT32_C(0x80000002), UINT32_MAX};
  return edges[b & 7];
}

/* The requantization of the backend read last: q8nn_vta_requant_exact, _16bit or _exact_limbs. */
static uint32_t backend_requant;
static bool exact_mode(void) {
  return backend_requant == q8nn_vta_requant_exact || backend_requant == q8nn_vta_requant_exact_limbs;
}

static q8nn_backend_t read_backend(struct fuzz_reader* r) {
  struct q8nn_vta_config c;
  memset(&c, 0, sizeof(c));
  const uint8_t lb = fuzz_u8(r);
  static const uint32_t batch_edges[4] = {2, 4, 5, UINT32_MAX};
  c.log_batch = lb < 0xF0 ? lb % 2 : batch_edges[lb & 3];
  /* exact (default) or 16-bit requantization; 0xE0..0xEF: the exact limb form (2) or a value that
     is none of them */
  c.requantization = lb < 0xE0 ? (lb >> 1) & 1 : lb < 0xF0 ? (lb & 2 ? 2 : UINT32_MAX) : 0;
  backend_requant = c.requantization;
  const uint8_t lk = fuzz_u8(r);
  static const uint32_t block_edges[8] = {0, 1, 5, 6, 7, 31, 32, UINT32_MAX};
  c.log_block = lk < 0xF0 ? 2 + lk % 3 : block_edges[lk & 7];
  c.log_uop_buff_size = read_log_buff(r);
  c.log_inp_buff_size = read_log_buff(r);
  c.log_wgt_buff_size = read_log_buff(r);
  c.log_acc_buff_size = read_log_buff(r);
  const uint8_t vt = fuzz_u8(r);
  c.virtual_threads = vt < 0xF0 ? vt % 3 : (vt & 1 ? 3 : UINT32_MAX);
  q8nn_backend_t backend = (q8nn_backend_t)(uintptr_t)0xDEADBEEF;
  const enum q8nn_status status = q8nn_create_vta_backend(&c, &backend);
  if (c.virtual_threads > 2) {
    FUZZ_CHECK(status == q8nn_status_invalid_parameter, "virtual_threads %u: %s", c.virtual_threads,
               q8nn_status_string(status));
  }
  if (c.requantization > q8nn_vta_requant_exact_limbs) {
    /* invalid_parameter, unless another field's defect is reported first */
    FUZZ_CHECK(status != q8nn_status_success, "requantization %u accepted", c.requantization);
  }
  if (c.log_batch > 4 || c.log_block > 6) {
    FUZZ_CHECK(status != q8nn_status_success, "LOG_BATCH %u LOG_BLOCK %u accepted", c.log_batch,
               c.log_block);
  }
  if (status != q8nn_status_success) {
    FUZZ_CHECK(
        status == q8nn_status_invalid_parameter || status == q8nn_status_unsupported_parameter,
        "create_vta_backend returned %s", q8nn_status_string(status));
    FUZZ_CHECK(backend == (q8nn_backend_t)(uintptr_t)0xDEADBEEF,
               "backend out-pointer written on failure");
    return NULL;
  }
  return backend;
}

/* Places op on vta; supports() and set_backend must agree. Returns whether it went to VTA. */
static bool place(q8nn_backend_t vta, q8nn_operator_t op) {
  const bool supported = q8nn_backend_supports(vta, op);
  const enum q8nn_status status = q8nn_operator_set_backend(op, vta);
  FUZZ_CHECK(status == (supported ? q8nn_status_success : q8nn_status_unsupported_parameter),
             "supports %d but set_backend returned %s", supported, q8nn_status_string(status));
  return supported;
}

/* ---- conv / depthwise ---------------------------------------------------------------------- */

static void fuzz_conv(struct fuzz_reader* r, q8nn_backend_t vta, int depthwise,
                      pthreadpool_t threadpool, uint8_t options) {
  size_t groups = 1, gic, goc;
  if (depthwise) {
    gic = fuzz_u8(r) % 40 + 1;
    goc = fuzz_u8(r) % 4 == 0 ? 2 + fuzz_u8(r) % 2 : 1;
  } else {
    const uint8_t g = fuzz_u8(r);
    groups = g % 4 == 0 ? 2 + g / 4 % 3 : 1;
    gic = fuzz_u8(r) % (groups > 1 ? 12 : 40) + 1;
    goc = fuzz_u8(r) % (groups > 1 ? 12 : 40) + 1;
  }
  const size_t batch = fuzz_range(r, 1, 3), in_h = fuzz_range(r, 1, 11),
               in_w = fuzz_range(r, 1, 11);
  const uint32_t kh = fuzz_range(r, 1, 5), kw = fuzz_range(r, 1, 5), sh = fuzz_range(r, 1, 3),
                 sw = fuzz_range(r, 1, 3), dh = fuzz_range(r, 1, 2), dw = fuzz_range(r, 1, 2);
  uint32_t pt = fuzz_range(r, 0, 2), pb = fuzz_range(r, 0, 2), pl = fuzz_range(r, 0, 2),
           pr = fuzz_range(r, 0, 2);
  /* keep the output non-empty: invalid setups are fuzz-operators' business */
  while (in_h + pt + pb < dh * (kh - 1) + 1) pb++;
  while (in_w + pl + pr < dw * (kw - 1) + 1) pr++;
  const size_t cin = depthwise ? gic : groups * gic, cout = depthwise ? gic * goc : groups * goc;
  const size_t taps = (size_t)kh * kw, fan_in = taps * (depthwise ? 1 : gic);
  const size_t kernel_bytes = depthwise ? taps * cout : cout * taps * gic;

  struct q8nn_conv_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = (int8_t)fuzz_u8(r);
  q.output_zero_point = (int8_t)fuzz_u8(r);
  q.output_min = (int8_t)fuzz_u8(r);
  q.output_max = (int8_t)fuzz_u8(r);
  if (q.output_min > q.output_max || (fuzz_u8(r) & 1)) q.output_min = -128, q.output_max = 127;
  q.rounding = (enum q8nn_rounding)(fuzz_u8(r) & 1);
  const uint8_t qmode = fuzz_u8(r);
  float* kscale = malloc(cout * sizeof(float));
  int32_t* mult = malloc(cout * sizeof(int32_t));
  int32_t* shift = malloc(cout * sizeof(int32_t));
  if ((qmode & 3) == 0) {
    /* Given TFLite multipliers: some shifts make the 15-bit VTA multiplier impossible (CPU). */
    for (size_t c = 0; c < cout; c++) {
      mult[c] = (int32_t)((UINT32_C(1) << 30) | (fuzz_u32(r) & UINT32_C(0x3FFFFFFF)));
      shift[c] = (int32_t)(fuzz_u8(r) % 26) - 20;
    }
    q.output_multiplier = mult;
    q.output_shift = shift;
  } else {
    q.input_scale = 0.05f;
    for (size_t c = 0; c < cout; c++) kscale[c] = 0.001f + 0.019f * (float)fuzz_u8(r) / 255.0f;
    q.kernel_scale = kscale;
    q.output_scale = 0.05f * 0.01f * 64.0f * (float)fan_in / (float)(1 + fuzz_range(r, 2, 60));
    for (size_t c = 0; c < cout; c++) {
      const double real = (double)q.input_scale * (double)kscale[c] / (double)q.output_scale;
      ref_quantize_multiplier(real, &mult[c], &shift[c]);
    }
  }
  int8_t* kernel = xmalloc(kernel_bytes);
  fuzz_fill(r, kernel, kernel_bytes);
  int32_t* bias = malloc(cout * sizeof(int32_t));
  const uint8_t bias_mode = fuzz_u8(r);
  fuzz_fill_s32(r, bias, cout);
  for (size_t c = 0; c < cout && (bias_mode & 3) != 1; c++)
    bias[c] %= 20001; /* mostly within the ACC bound */
  const int32_t* bias_arg = (bias_mode & 0x80) ? NULL : bias;

  q8nn_operator_t op = NULL;
  enum q8nn_status status;
  if (depthwise) {
    const struct q8nn_depthwise_convolution2d_desc d = {pt, pr, pb, pl, kh,  kw,
                                                        sh, sw, dh, dw, gic, goc};
    status = q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, kernel, bias_arg, 0, &op);
  } else {
    const struct q8nn_convolution2d_desc d = {
        pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, (uint32_t)groups, gic, goc};
    status = q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, bias_arg, 0, &op);
  }
  /* Scales in range always give a representable multiplier; given ones are within [-31, 30]. */
  FUZZ_CHECK(status == q8nn_status_success, "create returned %s", q8nn_status_string(status));
  const bool supported = place(vta, op);

  const size_t in_stride = cin + fuzz_u8(r) % 4, out_stride = cout + fuzz_u8(r) % 4;
  const size_t oh = (in_h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
  const size_t ow = (in_w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
  const size_t in_bytes = fuzz_pixels_bytes(batch * in_h * in_w, in_stride, cin);
  const size_t out_bytes = fuzz_pixels_bytes(batch * oh * ow, out_stride, cout);
  int8_t* input = xmalloc(in_bytes);
  int8_t* output = xmalloc(out_bytes);
  fuzz_fill(r, input, in_bytes);
  fuzz_fill_canary(output, out_bytes);
  size_t got_h = 0, got_w = 0;
  status = depthwise
               ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, batch, in_h, in_w, input, in_stride,
                                                            output, out_stride, &got_h, &got_w)
               : q8nn_setup_convolution2d_nhwc_s8(op, batch, in_h, in_w, input, in_stride, output,
                                                  out_stride, &got_h, &got_w);
  FUZZ_CHECK(status == q8nn_status_success, "setup on %s returned %s", supported ? "vta" : "cpu",
             q8nn_status_string(status));
  FUZZ_CHECK(got_h == oh && got_w == ow, "output size");
  const struct q8nn_vta_op_state* state = q8nn_vta_op_state_of(op);
  FUZZ_CHECK(supported == (state != NULL), "VTA state present %d, supported %d", state != NULL,
             supported);
  const bool on_vta = state != NULL && !state->on_cpu;
  if (on_vta) FUZZ_CHECK(state->has_program, "lowered without a program");
  if (options & 8) {
    status = q8nn_operator_set_backend(op, NULL);
    FUZZ_CHECK(status == q8nn_status_invalid_state, "set_backend after setup returned %s",
               q8nn_status_string(status));
  }

  /* reference (TFLite) and oracle (VTA arithmetic) */
  struct ref_conv_params p;
  memset(&p, 0, sizeof(p));
  p.batch = batch, p.in_h = in_h, p.in_w = in_w, p.in_c = gic, p.groups = groups, p.out_c = goc;
  p.k_h = kh, p.k_w = kw, p.stride_h = sh, p.stride_w = sw, p.dil_h = dh, p.dil_w = dw;
  p.pad_top = pt, p.pad_left = pl, p.pad_bottom = pb, p.pad_right = pr;
  p.in_pixel_stride = in_stride, p.out_pixel_stride = out_stride;
  p.in_zp = q.input_zero_point, p.out_zp = q.output_zero_point, p.out_min = q.output_min,
  p.out_max = q.output_max;
  p.multiplier = mult, p.shift = shift, p.rounding = (int)q.rounding;
  int8_t* expected = xmalloc(out_bytes);
  fuzz_fill_canary(expected, out_bytes);
  if (depthwise)
    ref_depthwise(&p, input, kernel, bias_arg, expected);
  else
    ref_conv2d(&p, input, kernel, bias_arg, expected);
  int8_t* oracle = NULL;
  /* Exact mode: the VTA output is TFLite's byte for byte, checked against the reference alone.
     16-bit mode: the host oracle of that arithmetic bit for bit, and within 1 LSB of TFLite. */
  const bool exact = exact_mode();
  if (on_vta && !exact) {
    const size_t padded = (cout + 63) / 64 * 64;
    struct q8nn_vta_conv_requant* rq = malloc(padded * sizeof(*rq));
    FUZZ_CHECK(q8nn_vta_conv_requant_table(op, padded, rq),
               "requant table of a supported operator");
    oracle = xmalloc(out_bytes);
    fuzz_fill_canary(oracle, out_bytes);
    const size_t g_ic = depthwise ? 1 : gic;
    for (size_t n = 0; n < batch; n++) {
      for (size_t y = 0; y < oh; y++) {
        for (size_t x = 0; x < ow; x++) {
          for (size_t oc = 0; oc < cout; oc++) {
            const size_t group = oc / goc;
            uint32_t acc = 0; /* the GEMM sum over the zero-point-padded image, wrapping as VTA's */
            for (size_t ky = 0; ky < kh; ky++) {
              for (size_t kx = 0; kx < kw; kx++) {
                const long iy = (long)(y * sh + ky * dh) - (long)pt;
                const long ix = (long)(x * sw + kx * dw) - (long)pl;
                for (size_t i = 0; i < g_ic; i++) {
                  int32_t xv = q.input_zero_point;
                  if (iy >= 0 && ix >= 0 && iy < (long)in_h && ix < (long)in_w) {
                    xv = input[((n * in_h + (size_t)iy) * in_w + (size_t)ix) * in_stride +
                               group * g_ic + i];
                  }
                  const int8_t w = depthwise ? kernel[(ky * kw + kx) * cout + oc]
                                             : kernel[((oc * kh + ky) * kw + kx) * gic + i];
                  acc += (uint32_t)(xv * w);
                }
              }
            }
            oracle[((n * oh + y) * ow + x) * out_stride + oc] =
                q8nn_vta_conv_requant_apply(&rq[oc], (int32_t)acc);
          }
        }
      }
    }
    free(rq);
  }
  memset(kernel, 0x33, kernel_bytes); /* copied at create */

  const int runs = (options & 2) ? 2 : 1;
  for (int run = 0; run < runs; run++) {
    status = q8nn_run_operator(op, run == 0 ? threadpool : (threadpool == NULL ? pool : NULL));
    FUZZ_CHECK(status == q8nn_status_success, "run on %s returned %s", on_vta ? "vta" : "cpu",
               q8nn_status_string(status));
    for (size_t i = 0; i < out_bytes; i++) {
      if (!on_vta || exact || i % out_stride >= cout) {
        FUZZ_CHECK(output[i] == expected[i], "%s byte %zu: got %d, reference %d",
                   on_vta ? (exact ? "vta exact" : "vta") : "cpu fallback", i, output[i],
                   expected[i]);
      } else {
        FUZZ_CHECK(output[i] == oracle[i], "vta byte %zu: got %d, oracle %d, reference %d", i,
                   output[i], oracle[i], expected[i]);
        FUZZ_CHECK(absdiff(output[i], expected[i]) <= 1,
                   "vta byte %zu: got %d, reference %d (> 1 LSB)", i, output[i], expected[i]);
      }
    }
  }
  FUZZ_CHECK(q8nn_delete_operator(op) == q8nn_status_success, "delete");
  free(kscale), free(mult), free(shift), free(kernel), free(bias), free(input), free(output),
      free(expected), free(oracle);
}

/* ---- add ----------------------------------------------------------------------------------- */

static size_t count_of(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static void fuzz_add(struct fuzz_reader* r, q8nn_backend_t vta, pthreadpool_t threadpool,
                     uint8_t options) {
  const size_t rank = fuzz_u8(r) % 7;
  size_t full[6], total = 1;
  for (size_t i = 0; i < rank; i++) {
    full[i] = total > 500 ? 1 + fuzz_u8(r) % 2 : 1 + fuzz_u8(r) % 7;
    total *= full[i];
  }
  const uint8_t rk = fuzz_u8(r);
  const bool in_place = (options & 16) != 0;
  size_t a_rank = rank - (rk & 7) % (rank + 1), b_rank = rank - (rk >> 3 & 7) % (rank + 1);
  if (in_place || (rk & 0x40))
    a_rank = rank;
  else
    b_rank = rank;
  size_t a_shape[6], b_shape[6];
  const uint8_t bmask = fuzz_u8(r), amask = in_place ? 0 : fuzz_u8(r);
  for (size_t i = 0; i < a_rank; i++) a_shape[i] = (amask >> i & 1) ? 1 : full[rank - a_rank + i];
  for (size_t i = 0; i < b_rank; i++) b_shape[i] = (bmask >> i & 1) ? 1 : full[rank - b_rank + i];
  size_t out_rank, out_shape[REF_MAX_DIMS];
  FUZZ_CHECK(ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &out_rank, out_shape), "shapes");
  const size_t na = count_of(a_rank, a_shape), nb = count_of(b_rank, b_shape),
               n = count_of(out_rank, out_shape);
  FUZZ_CHECK(!in_place || na == n, "in-place operand shape");

  struct q8nn_add_quantization q;
  memset(&q, 0, sizeof(q));
  q.a_zero_point = (int8_t)fuzz_u8(r);
  q.b_zero_point = (int8_t)fuzz_u8(r);
  q.output_zero_point = (int8_t)fuzz_u8(r);
  q.output_min = -128, q.output_max = 127;
  if (fuzz_u8(r) & 1)
    q.output_min = (int8_t)-(fuzz_u8(r) % 129), q.output_max = (int8_t)(fuzz_u8(r) % 128);
  struct q8nn_add_fixed fixed;
  struct ref_add_params rp;
  const uint8_t qmode = fuzz_u8(r);
  if ((qmode & 3) == 0) {
    fixed.left_shift = fuzz_u8(r) % 21;
    fixed.a_multiplier = (int32_t)(fuzz_u32(r) & UINT32_C(0x7FFFFFFF));
    fixed.a_shift = -(int32_t)(fuzz_u8(r) % 32);
    fixed.b_multiplier = (int32_t)(fuzz_u32(r) & UINT32_C(0x7FFFFFFF));
    fixed.b_shift = -(int32_t)(fuzz_u8(r) % 32);
    fixed.output_multiplier = (int32_t)(fuzz_u32(r) & UINT32_C(0x7FFFFFFF));
    fixed.output_shift = -(int32_t)(fuzz_u8(r) % 32);
    q.fixed = &fixed;
    rp = (struct ref_add_params){q.a_zero_point,     q.b_zero_point,     q.output_zero_point,
                                 fixed.left_shift,   fixed.a_multiplier, fixed.a_shift,
                                 fixed.b_multiplier, fixed.b_shift,      fixed.output_multiplier,
                                 fixed.output_shift, q.output_min,       q.output_max};
  } else {
    q.a_scale = 0.001f + 0.499f * (float)fuzz_u8(r) / 255.0f;
    q.b_scale = q.a_scale * (0.05f + 19.95f * (float)fuzz_u8(r) / 255.0f);
    q.output_scale = (q.a_scale > q.b_scale ? q.a_scale : q.b_scale) *
                     (0.1f + 3.9f * (float)fuzz_u8(r) / 255.0f);
    FUZZ_CHECK(ref_add_params_from_scales(q.a_scale, q.a_zero_point, q.b_scale, q.b_zero_point,
                                          q.output_scale, q.output_zero_point, q.output_min,
                                          q.output_max, &rp),
               "reference add parameters");
  }
  q8nn_operator_t op = NULL;
  enum q8nn_status status = q8nn_create_add_nd_s8(&q, 0, &op);
  FUZZ_CHECK(status == q8nn_status_success, "create add returned %s", q8nn_status_string(status));
  const bool supported = place(vta, op);

  int8_t* a = xmalloc(na);
  int8_t* b = xmalloc(nb);
  int8_t* y = xmalloc(n);
  fuzz_fill(r, a, na);
  fuzz_fill(r, b, nb);
  fuzz_fill_canary(y, n);
  int8_t* a_copy = xmalloc(na);
  memcpy(a_copy, a, na);
  int8_t* out = in_place ? a : y;
  status = q8nn_setup_add_nd_s8(op, a_rank, a_shape, b_rank, b_shape, a, b, out);
  FUZZ_CHECK(status == q8nn_status_success, "setup add on %s returned %s",
             supported ? "vta" : "cpu", q8nn_status_string(status));
  const struct q8nn_vta_op_state* state = q8nn_vta_op_state_of(op);
  FUZZ_CHECK(supported == (state != NULL), "VTA state present %d, supported %d", state != NULL,
             supported);
  const bool on_vta = state != NULL && !state->on_cpu;
  if (on_vta) FUZZ_CHECK(state->has_program, "lowered without a program");

  int8_t* expected = xmalloc(n);
  int8_t* oracle = xmalloc(n);
  ref_add(&rp, a_rank, a_shape, a_copy, b_rank, b_shape, b, expected);
  if (on_vta) {
    size_t sa[6], sb[6], so[6];
    for (size_t i = 0; i < 6; i++) sa[i] = sb[i] = so[i] = 1;
    for (size_t i = 0; i < a_rank; i++) sa[6 - a_rank + i] = a_shape[i];
    for (size_t i = 0; i < b_rank; i++) sb[6 - b_rank + i] = b_shape[i];
    for (size_t i = 0; i < out_rank; i++) so[6 - out_rank + i] = out_shape[i];
    for (size_t i = 0; i < n; i++) {
      size_t rem = i, ia = 0, ib = 0, stride_a = 1, stride_b = 1;
      for (size_t d = 6; d-- > 0;) {
        const size_t k = rem % so[d];
        rem /= so[d];
        ia += (sa[d] == 1 ? 0 : k) * stride_a;
        ib += (sb[d] == 1 ? 0 : k) * stride_b;
        stride_a *= sa[d];
        stride_b *= sb[d];
      }
      oracle[i] = exact_mode()
                      ? q8nn_vta_add_exact_apply(&state->add_exact, a_copy[ia], b[ib])
                      : q8nn_vta_add_requant_apply(&state->add, a_copy[ia], b[ib]);
    }
  }
  /* In place, a second run would read its own output. */
  const int runs = (options & 2) && !in_place ? 2 : 1;
  for (int run = 0; run < runs; run++) {
    status = q8nn_run_operator(op, run == 0 ? threadpool : (threadpool == NULL ? pool : NULL));
    FUZZ_CHECK(status == q8nn_status_success, "run add on %s returned %s", on_vta ? "vta" : "cpu",
               q8nn_status_string(status));
    for (size_t i = 0; i < n; i++) {
      if (!on_vta || exact_mode()) {
        /* the CPU, or VTA in exact mode: TFLite's bytes (and the exact oracle's) */
        FUZZ_CHECK(out[i] == expected[i], "%s add byte %zu: got %d, reference %d",
                   on_vta ? "vta exact" : "cpu", i, out[i], expected[i]);
        if (on_vta) FUZZ_CHECK(out[i] == oracle[i], "vta exact add byte %zu: got %d, oracle %d", i, out[i], oracle[i]);
      } else {
        FUZZ_CHECK(out[i] == oracle[i], "vta add byte %zu: got %d, oracle %d, reference %d", i,
                   out[i], oracle[i], expected[i]);
        FUZZ_CHECK(absdiff(out[i], expected[i]) <= 1,
                   "vta add byte %zu: got %d, reference %d (> 1 LSB)", i, out[i], expected[i]);
      }
    }
  }
  if (in_place) FUZZ_CHECK(fuzz_first_non_canary(y, n) == SIZE_MAX, "in-place add wrote y");
  FUZZ_CHECK(q8nn_delete_operator(op) == q8nn_status_success, "delete add");
  free(a), free(b), free(y), free(a_copy), free(expected), free(oracle);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  struct fuzz_reader r = {data, size, 0};
  const uint8_t which = fuzz_u8(&r) % 3;
  const uint8_t options = fuzz_u8(&r);
  q8nn_backend_t vta = read_backend(&r);
  if (vta == NULL) return 0;
  const pthreadpool_t threadpool = (options & 1) ? pool : NULL;
  if (which == 2)
    fuzz_add(&r, vta, threadpool, options);
  else
    fuzz_conv(&r, vta, which == 1, threadpool, options);
  FUZZ_CHECK(q8nn_delete_backend(vta) == q8nn_status_success, "delete backend");
  return 0;
}
