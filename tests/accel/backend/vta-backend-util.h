/* Helpers of the VTA backend tests: run a conv / depthwise / add operator through the public API
   on a VTA backend and compare (a) bit for bit with the host oracle of the VTA arithmetic
   (src/accel/vta/vta-requant.h) and (b) within 1 LSB with the independent TFLite reference,
   counting the outputs that differ from TFLite. Guard bytes between output pixels must survive. */
#ifndef Q8NN_TEST_VTA_BACKEND_UTIL_H
#define Q8NN_TEST_VTA_BACKEND_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <q8nn.h>

#include "accel/vta/vta-backend.h"
#include "operator.h"
#include "reference/reference.h"
#include "testers/test-util.h"

/* Distance to TFLite over everything a test ran. */
struct vta_diff {
  size_t outputs, differing;
  int max_diff;
  size_t oracle_mismatches, runs;
};
static struct vta_diff vta_total;

static inline void vta_diff_print(const char* what) {
  printf("%s: %zu runs, %zu outputs, %zu differ from TFLite (%.4f%%), max |diff| %d LSB, %zu oracle mismatches\n",
         what, vta_total.runs, vta_total.outputs, vta_total.differing,
         vta_total.outputs ? 100.0 * (double) vta_total.differing / (double) vta_total.outputs : 0.0,
         vta_total.max_diff, vta_total.oracle_mismatches);
}

/* Requantization mode of the backends vta_backend() creates (q8nn_vta_requant_exact unless a test
   asks for the 16-bit one). */
static uint32_t vta_test_requant = q8nn_vta_requant_exact;

static inline q8nn_backend_t vta_backend(uint32_t log_batch, uint32_t vt, uint32_t inp, uint32_t wgt, uint32_t acc) {
  struct q8nn_vta_config c;
  memset(&c, 0, sizeof(c));
  c.requantization = vta_test_requant;
  c.log_batch = log_batch, c.virtual_threads = vt;
  c.log_inp_buff_size = inp, c.log_wgt_buff_size = wgt, c.log_acc_buff_size = acc;
  q8nn_backend_t b = NULL;
  assert_int_equal(q8nn_create_vta_backend(&c, &b), q8nn_status_success);
  return b;
}

struct vta_conv_spec {
  int depthwise;           /* 1: depthwise API, channels = gic_or_channels, dm = goc_or_dm */
  size_t batch, in_h, in_w, groups, gic, goc;
  uint32_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int32_t in_zp, out_zp;
  int8_t out_min, out_max;
  size_t in_extra, out_extra; /* pixel stride beyond the channels */
  int big_bias;               /* bias INT32_MAX: beyond the ACC bound, stays on the CPU */
  int rounding;
  /* Given data (golden vectors) instead of random: input (dense pixels), kernel, bias (may be NULL),
     per-channel TFLite multiplier/shift. */
  const int8_t* input;
  const int8_t* kernel;
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  const int8_t* published; /* optional: distance to the published output is tracked too */
};
static struct vta_diff vta_published;

static inline void vta_random_conv(struct vta_conv_spec* s, int depthwise) {
  memset(s, 0, sizeof(*s));
  s->depthwise = depthwise;
  s->batch = (size_t) test_rand_range(1, 3);
  s->in_h = (size_t) test_rand_range(1, 11);
  s->in_w = (size_t) test_rand_range(1, 11);
  s->kh = (uint32_t) test_rand_range(1, 5), s->kw = (uint32_t) test_rand_range(1, 5);
  s->sh = (uint32_t) test_rand_range(1, 3), s->sw = (uint32_t) test_rand_range(1, 3);
  s->dh = (uint32_t) test_rand_range(1, 2), s->dw = (uint32_t) test_rand_range(1, 2);
  s->pt = (uint32_t) test_rand_range(0, 2), s->pb = (uint32_t) test_rand_range(0, 2);
  s->pl = (uint32_t) test_rand_range(0, 2), s->pr = (uint32_t) test_rand_range(0, 2);
  /* keep the output non-empty */
  while (s->in_h + s->pt + s->pb < s->dh * (s->kh - 1) + 1) s->pb++;
  while (s->in_w + s->pl + s->pr < s->dw * (s->kw - 1) + 1) s->pr++;
  if (depthwise) {
    s->groups = 1;
    s->gic = (size_t) test_rand_range(1, 40);
    s->goc = test_rand_range(0, 3) == 0 ? (size_t) test_rand_range(2, 3) : 1;
  } else {
    const int kind = test_rand_range(0, 3);
    s->groups = kind == 0 ? (size_t) test_rand_range(2, 4) : 1;
    s->gic = (size_t) test_rand_range(1, s->groups > 1 ? 12 : 40);
    s->goc = (size_t) test_rand_range(1, s->groups > 1 ? 12 : 40);
  }
  s->in_zp = test_rand_range(-128, 127);
  s->out_zp = test_rand_range(-128, 127);
  s->out_min = (int8_t) test_rand_range(-128, 0);
  s->out_max = (int8_t) test_rand_range(0, 127);
  if (test_rand_range(0, 2) == 0) s->out_min = -128, s->out_max = 127;
  s->in_extra = (size_t) test_rand_range(0, 3);
  s->out_extra = (size_t) test_rand_range(0, 3);
  s->rounding = test_rand_range(0, 1);
}

static inline int vta_abs(int x) { return x < 0 ? -x : x; }

static size_t vta_left_on_cpu; /* expect_vta 2 cases the backend refused */

/* Creates, places on `vta` (expect_vta 1: set_backend must succeed; 0: it must refuse and the op
   runs on the CPU, exactly; 2: whichever the backend decides, checked accordingly), runs twice, checks. Returns the number of failures (messages on stderr). */
static inline int vta_conv_check(q8nn_backend_t vta, const struct vta_conv_spec* s, int expect_vta,
                                 q8nn_operator_t* keep_op) {
  const size_t channels_in = s->depthwise ? s->gic : s->groups * s->gic;
  const size_t channels_out = s->depthwise ? s->gic * s->goc : s->groups * s->goc;
  const size_t taps = (size_t) s->kh * s->kw;
  const size_t in_stride = channels_in + s->in_extra, out_stride = channels_out + s->out_extra;
  const size_t kernel_size = s->depthwise ? taps * channels_out : channels_out * taps * s->gic;
  int8_t* input = malloc(s->batch * s->in_h * s->in_w * in_stride);
  int8_t* kernel = malloc(kernel_size);
  int32_t* bias = malloc(channels_out * sizeof(int32_t));
  float* kscale = malloc(channels_out * sizeof(float));
  test_fill_s8(input, s->batch * s->in_h * s->in_w * in_stride);
  test_fill_s8(kernel, kernel_size);
  if (s->input != NULL) {
    for (size_t i = 0; i < s->batch * s->in_h * s->in_w; i++) memcpy(input + i * in_stride, s->input + i * channels_in, channels_in);
    memcpy(kernel, s->kernel, kernel_size);
  }
  const int32_t bias_range = 20000;
  for (size_t c = 0; c < channels_out; c++) {
    bias[c] = test_rand_range(-bias_range, bias_range);
    if (s->big_bias) bias[c] = INT32_MAX; /* |acc + bias'| may leave int32: stays on the CPU */
    kscale[c] = test_rand_float(0.001f, 0.02f);
    if (s->input != NULL) bias[c] = s->bias != NULL ? s->bias[c] : 0;
  }
  const size_t fan_in = taps * (s->depthwise ? 1 : s->gic);
  struct q8nn_conv_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = s->in_zp;
  q.input_scale = 0.05f;
  q.kernel_scale = kscale;
  q.output_zero_point = s->out_zp;
  q.output_scale = 0.05f * 0.01f * 64.0f * (float) fan_in / (float) (1 + test_rand_range(2, 60));
  q.output_min = s->out_min;
  q.output_max = s->out_max;
  q.rounding = (enum q8nn_rounding) s->rounding;
  q.output_multiplier = s->multiplier;
  q.output_shift = s->shift;
  q8nn_operator_t op = NULL;
  enum q8nn_status st;
  if (s->depthwise) {
    const struct q8nn_depthwise_convolution2d_desc d = {s->pt, s->pr, s->pb, s->pl, s->kh, s->kw, s->sh, s->sw,
                                                        s->dh, s->dw, s->gic, s->goc};
    st = q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, kernel, bias, 0, &op);
  } else {
    const struct q8nn_convolution2d_desc d = {s->pt, s->pr, s->pb, s->pl, s->kh, s->kw, s->sh, s->sw,
                                              s->dh, s->dw, (uint32_t) s->groups, s->gic, s->goc};
    st = q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, bias, 0, &op);
  }
  int failures = 0;
  if (st != q8nn_status_success) {
    fprintf(stderr, "create failed: %s\n", q8nn_status_string(st));
    free(input), free(kernel), free(bias), free(kscale);
    return 1;
  }
  const bool supported = q8nn_backend_supports(vta, op);
  if (expect_vta == 2) {
    expect_vta = supported;
    vta_left_on_cpu += !supported;
  }
  st = q8nn_operator_set_backend(op, vta);
  if (expect_vta && (st != q8nn_status_success || !supported)) {
    fprintf(stderr, "set_backend refused: %s\n", q8nn_status_string(st));
    failures++;
  }
  if (!expect_vta && (st != q8nn_status_unsupported_parameter || supported)) {
    fprintf(stderr, "set_backend accepted an unsupported operator\n");
    failures++;
  }
  const size_t oh_exp = (s->in_h + s->pt + s->pb - s->dh * (s->kh - 1) - 1) / s->sh + 1;
  const size_t ow_exp = (s->in_w + s->pl + s->pr - s->dw * (s->kw - 1) - 1) / s->sw + 1;
  const size_t out_size = s->batch * oh_exp * ow_exp * out_stride;
  int8_t* output = malloc(out_size);
  int8_t* expected = malloc(out_size);
  int8_t* oracle = malloc(out_size);
  memset(output, TEST_GUARD_BYTE, out_size);
  size_t oh = 0, ow = 0;
  st = s->depthwise ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, s->batch, s->in_h, s->in_w, input, in_stride,
                                                                 output, out_stride, &oh, &ow)
                    : q8nn_setup_convolution2d_nhwc_s8(op, s->batch, s->in_h, s->in_w, input, in_stride, output,
                                                       out_stride, &oh, &ow);
  if (st != q8nn_status_success) {
    fprintf(stderr, "setup failed: %s\n", q8nn_status_string(st));
    failures++;
  }
  if (expect_vta && st == q8nn_status_success) {
    const struct q8nn_vta_op_state* vs = q8nn_vta_op_state_of(op);
    if (vs == NULL || vs->on_cpu || !vs->has_program) {
      fprintf(stderr, "operator is not lowered to VTA\n");
      failures++;
    } else if (getenv("VTA_TEST_VERBOSE") != NULL) {
      const struct q8nn_vta_conv_plan* pl = &vs->plan;
      fprintf(stderr, "plan: dw %d ib %u ob %u nb %u tile obg %u ibc %u rows %u cols %u (of %ux%u) resident %d "
              "clamp %d s1 %d insns %zu\n", pl->depthwise, pl->ib, pl->ob, pl->nb, pl->obg, pl->ibc, pl->rows,
              pl->cols, pl->oh, pl->ow, pl->weights_resident, pl->clamp_needed, pl->s1_needed, vs->program.count);
    }
  }
  for (int r = 0; r < 2 && st == q8nn_status_success; r++) {
    st = q8nn_run_operator(op, NULL);
    if (st != q8nn_status_success) {
      fprintf(stderr, "run failed: %s\n", q8nn_status_string(st));
      failures++;
    }
  }
  /* reference (TFLite) */
  struct ref_conv_params p;
  memset(&p, 0, sizeof(p));
  p.batch = s->batch, p.in_h = s->in_h, p.in_w = s->in_w, p.in_c = s->gic, p.groups = s->groups, p.out_c = s->goc;
  p.k_h = s->kh, p.k_w = s->kw, p.stride_h = s->sh, p.stride_w = s->sw, p.dil_h = s->dh, p.dil_w = s->dw;
  p.pad_top = s->pt, p.pad_left = s->pl, p.pad_bottom = s->pb, p.pad_right = s->pr;
  p.in_pixel_stride = in_stride, p.out_pixel_stride = out_stride;
  p.in_zp = s->in_zp, p.out_zp = s->out_zp, p.out_min = s->out_min, p.out_max = s->out_max;
  p.multiplier = op->multiplier, p.shift = op->shift, p.rounding = s->rounding;
  memset(expected, TEST_GUARD_BYTE, out_size);
  if (s->depthwise) ref_depthwise(&p, input, kernel, bias, expected);
  else ref_conv2d(&p, input, kernel, bias, expected);
  /* oracle of the VTA arithmetic: GEMM sum over the zero-point-padded image, then requant */
  const bool on_vta = expect_vta && failures == 0;
  const bool exact = q8nn_vta_backend_of(vta)->target.exact;
  struct q8nn_vta_conv_requant* rq = NULL;
  struct q8nn_vta_conv_exact* rx = NULL;
  if (on_vta) {
    const size_t padded = (channels_out + 63) / 64 * 64;
    if (exact) {
      rx = malloc(padded * sizeof(*rx));
      if (!q8nn_vta_conv_exact_table(op, padded, !q8nn_vta_backend_of(vta)->target.limb_form, rx)) failures++;
    } else {
      rq = malloc(padded * sizeof(*rq));
      if (!q8nn_vta_conv_requant_table(op, padded, rq)) failures++;
    }
  }
  memset(oracle, TEST_GUARD_BYTE, out_size);
  for (size_t n = 0; n < s->batch && on_vta && failures == 0; n++) {
    for (size_t y = 0; y < oh; y++) {
      for (size_t x = 0; x < ow; x++) {
        for (size_t oc = 0; oc < channels_out; oc++) {
          const size_t group = s->depthwise ? oc / s->goc : oc / s->goc;
          const size_t gic = s->depthwise ? 1 : s->gic;
          int32_t acc = 0;
          for (size_t ky = 0; ky < s->kh; ky++) {
            for (size_t kx = 0; kx < s->kw; kx++) {
              const long iy = (long) (y * s->sh + ky * s->dh) - (long) s->pt;
              const long ix = (long) (x * s->sw + kx * s->dw) - (long) s->pl;
              for (size_t i = 0; i < gic; i++) {
                const size_t ic = group * gic + i;
                int32_t xv = s->in_zp;
                if (iy >= 0 && ix >= 0 && iy < (long) s->in_h && ix < (long) s->in_w) {
                  xv = input[((n * s->in_h + (size_t) iy) * s->in_w + (size_t) ix) * in_stride + ic];
                }
                const int8_t w = s->depthwise ? kernel[(ky * s->kw + kx) * channels_out + oc]
                                              : kernel[((oc * s->kh + ky) * s->kw + kx) * s->gic + i];
                acc += xv * w;
              }
            }
          }
          oracle[((n * oh + y) * ow + x) * out_stride + oc] =
              exact ? q8nn_vta_conv_exact_apply(&rx[oc], acc) : q8nn_vta_conv_requant_apply(&rq[oc], acc);
        }
      }
    }
  }
  if (st == q8nn_status_success) {
    vta_total.runs++;
    for (size_t i = 0; i < out_size; i++) {
      const size_t c = i % out_stride;
      if (c >= channels_out) {
        if (output[i] != TEST_GUARD_BYTE) {
          fprintf(stderr, "guard byte %zu overwritten\n", i);
          failures++;
          break;
        }
        continue;
      }
      const int d = vta_abs(output[i] - expected[i]);
      vta_total.outputs++;
      if (!on_vta) {
        if (d != 0) {
          fprintf(stderr, "CPU fallback differs from the reference at %zu\n", i);
          failures++;
          break;
        }
        continue;
      }
      if (d != 0) vta_total.differing++;
      if (s->published != NULL) {
        const size_t pixel = i / out_stride;
        const int dp = vta_abs(output[i] - s->published[pixel * channels_out + c]);
        vta_published.outputs++;
        if (dp != 0) vta_published.differing++;
        if (dp > vta_published.max_diff) vta_published.max_diff = dp;
      }
      if (d > vta_total.max_diff) vta_total.max_diff = d;
      if (output[i] != oracle[i]) {
        vta_total.oracle_mismatches++;
        if (failures++ < 5) {
          fprintf(stderr, "output %zu (channel %zu): vta %d, oracle %d, tflite %d\n", i, c, output[i], oracle[i],
                  expected[i]);
        }
      } else if (d > (exact ? 0 : 1)) {
        /* exact mode: byte for byte TFLite; 16-bit mode: within 1 LSB */
        if (failures++ < 5) {
          fprintf(stderr, "output %zu: vta %d, tflite %d (> %d LSB)\n", i, output[i], expected[i], exact ? 0 : 1);
        }
      }
    }
  }
  if (failures != 0) {
    fprintf(stderr, "  case: dw %d batch %zu in %zux%zu groups %zu gic %zu goc %zu k %ux%u s %ux%u d %ux%u "
            "pad %u,%u,%u,%u zp %d/%d clamp [%d,%d] strides +%zu/+%zu\n", s->depthwise, s->batch, s->in_h, s->in_w,
            s->groups, s->gic, s->goc, s->kh, s->kw, s->sh, s->sw, s->dh, s->dw, s->pt, s->pl, s->pb, s->pr,
            s->in_zp, s->out_zp, s->out_min, s->out_max, s->in_extra, s->out_extra);
  }
  if (keep_op != NULL) *keep_op = op;
  else q8nn_delete_operator(op);
  free(rq);
  free(rx);
  free(input), free(kernel), free(bias), free(kscale), free(output), free(expected), free(oracle);
  return failures;
}

/* ---- add --------------------------------------------------------------------------------- */

struct vta_add_spec {
  size_t a_rank, b_rank;
  size_t a_shape[6], b_shape[6];
  int32_t a_zp, b_zp, out_zp;
  float a_scale, b_scale, out_scale;
  int8_t out_min, out_max;
  const int32_t* fixed;    /* left_shift, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift, or NULL */
  const int8_t* a;         /* given data or NULL (random) */
  const int8_t* b;
  const int8_t* published; /* optional */
  int in_place;            /* 1: output aliases a (a must have the output shape) */
};

static inline size_t vta_count(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static inline int vta_add_check(q8nn_backend_t vta, const struct vta_add_spec* s) {
  const size_t na = vta_count(s->a_rank, s->a_shape), nb = vta_count(s->b_rank, s->b_shape);
  size_t out_rank, out_shape[REF_MAX_DIMS];
  assert_true(ref_broadcast_shape(s->a_rank, s->a_shape, s->b_rank, s->b_shape, &out_rank, out_shape));
  const size_t n = vta_count(out_rank, out_shape);
  int8_t* a = malloc(na + 1);
  int8_t* b = malloc(nb + 1);
  int8_t* y = malloc(n + 32);
  int8_t* expected = malloc(n);
  int8_t* oracle = malloc(n);
  if (s->a != NULL) memcpy(a, s->a, na); else test_fill_s8(a, na);
  if (s->b != NULL) memcpy(b, s->b, nb); else test_fill_s8(b, nb);
  memset(y, TEST_GUARD_BYTE, n + 32);
  struct q8nn_add_fixed fixed;
  struct q8nn_add_quantization q = {s->a_zp, s->a_scale, s->b_zp, s->b_scale, s->out_zp, s->out_scale,
                                    s->out_min, s->out_max, NULL};
  struct ref_add_params rp;
  if (s->fixed != NULL) {
    fixed = (struct q8nn_add_fixed){s->fixed[0], s->fixed[1], s->fixed[2], s->fixed[3], s->fixed[4], s->fixed[5],
                                    s->fixed[6]};
    q.fixed = &fixed;
    rp = (struct ref_add_params){s->a_zp, s->b_zp, s->out_zp, s->fixed[0], s->fixed[1], s->fixed[2], s->fixed[3],
                                 s->fixed[4], s->fixed[5], s->fixed[6], s->out_min, s->out_max};
  } else {
    assert_true(ref_add_params_from_scales(s->a_scale, s->a_zp, s->b_scale, s->b_zp, s->out_scale, s->out_zp,
                                           s->out_min, s->out_max, &rp));
  }
  ref_add(&rp, s->a_rank, s->a_shape, a, s->b_rank, s->b_shape, b, expected);
  q8nn_operator_t op = NULL;
  int failures = 0;
  assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &op), q8nn_status_success);
  assert_true(q8nn_backend_supports(vta, op));
  assert_int_equal(q8nn_operator_set_backend(op, vta), q8nn_status_success);
  int8_t* out = s->in_place ? a : y;
  int8_t* a_copy = malloc(na + 1);
  memcpy(a_copy, a, na);
  assert_int_equal(q8nn_setup_add_nd_s8(op, s->a_rank, s->a_shape, s->b_rank, s->b_shape, a, b, out),
                   q8nn_status_success);
  const struct q8nn_vta_op_state* vs = q8nn_vta_op_state_of(op);
  assert_true(vs != NULL && !vs->on_cpu && vs->has_program);
  const bool exact = q8nn_vta_backend_of(vta)->target.exact;
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  if (!s->in_place) assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  /* oracle on the broadcast operands (ref_add with an add that returns the oracle is overkill:
     broadcast by index here) */
  {
    size_t sa[6], sb[6], so[6];
    for (size_t i = 0; i < 6; i++) sa[i] = sb[i] = so[i] = 1;
    for (size_t i = 0; i < s->a_rank; i++) sa[6 - s->a_rank + i] = s->a_shape[i];
    for (size_t i = 0; i < s->b_rank; i++) sb[6 - s->b_rank + i] = s->b_shape[i];
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
      oracle[i] = exact ? q8nn_vta_add_exact_apply(&vs->add_exact, a_copy[ia], b[ib])
                        : q8nn_vta_add_requant_apply(&vs->add, a_copy[ia], b[ib]);
    }
  }
  vta_total.runs++;
  for (size_t i = 0; i < n; i++) {
    const int d = vta_abs(out[i] - expected[i]);
    vta_total.outputs++;
    if (d != 0) vta_total.differing++;
    if (d > vta_total.max_diff) vta_total.max_diff = d;
    if (s->published != NULL) {
      const int dp = vta_abs(out[i] - s->published[i]);
      vta_published.outputs++;
      if (dp != 0) vta_published.differing++;
      if (dp > vta_published.max_diff) vta_published.max_diff = dp;
    }
    if (out[i] != oracle[i]) {
      vta_total.oracle_mismatches++;
      if (failures++ < 5) fprintf(stderr, "add output %zu: vta %d oracle %d tflite %d\n", i, out[i], oracle[i], expected[i]);
    } else if (d > (exact ? 0 : 1) && failures++ < 5) {
      fprintf(stderr, "add output %zu: vta %d tflite %d (> %d LSB)\n", i, out[i], expected[i], exact ? 0 : 1);
    }
  }
  for (size_t i = n; i < n + 32 && !s->in_place; i++) {
    if (y[i] != TEST_GUARD_BYTE) {
      fprintf(stderr, "add wrote past the output (byte %zu)\n", i);
      failures++;
      break;
    }
  }
  if (failures != 0) {
    fprintf(stderr, "  add case (%s): ranks %zu/%zu n %zu zp %d/%d/%d clamp [%d,%d] fixed %d\n",
            exact ? "exact" : "16-bit", s->a_rank, s->b_rank, n, s->a_zp, s->b_zp, s->out_zp, s->out_min, s->out_max,
            s->fixed != NULL);
  }
  q8nn_delete_operator(op);
  free(a), free(b), free(y), free(expected), free(oracle), free(a_copy);
  return failures;
}

#endif
