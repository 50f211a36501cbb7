/*
 * Soak: random create / setup / run / delete cycles over every public operator kind until a time
 * budget is spent, every output byte checked against the independent reference (tests/reference),
 * and resident memory watched for growth.
 *
 * Each cycle draws: an operator kind (convolution with groups, dilation, padding and stride;
 * depthwise with a depth multiplier; transposed convolution; fully connected; add with numpy
 * broadcasting; max and average pooling; unary elementwise, every enum q8nn_unary_operation; lookup;
 * softmax; resize; concatenation along any axis; channel shuffle), its numerics (the three
 * q8nn_rounding values for the convolution family and unary; TFLite's, XNNPACK's and
 * pytorch_qnnpack's add; nearest and bilinear resize with each flag setting; copying or requantizing
 * concatenation), int8 or uint8 (the _u8 API, whose bytes are the int8 operator's on x - 128, plus
 * 128: it is checked against the int8 reference on the bytes ^ 0x80), an ISA tier, and for int8
 * convolution, depthwise and add the CPU or a VTA backend. It creates the operator, sets it up once
 * or twice (a new shape, or the same shape on new buffers), runs it one to three times on the
 * caller's thread or a 2-thread pthreadpool, alone or through q8nn_run_operators (the operator, or
 * the operator followed by a lookup that reads its output), compares every byte of the output
 * buffers (the bytes between pixels, before the start and after the end must keep their guard
 * value) and deletes everything. Inputs are allocated to their exact extent, so that a read past
 * them shows under AddressSanitizer. Not covered here: outputs aliasing inputs, host thread pools
 * (q8nn_run_operator_on), caller-given multipliers and refusals of malformed parameters; the
 * operator tests cover those.
 *
 * Resident memory (the second field of /proc/self/statm) is recorded after a warm-up (the first 10%
 * of the budget, at least 50 cycles) and must not exceed that figure by more than 1 MiB (allocator
 * slack) at the end; runs longer than a minute print it once a minute. Under AddressSanitizer and
 * under qemu-user (Q8NN_TEST_EMULATED=1) the figures are printed but not checked (ASan's quarantine
 * and the emulator's translation cache grow the resident set); LeakSanitizer checks for leaks at
 * exit in the ASan build.
 *
 * Environment:
 *   Q8NN_SOAK_SECONDS  time budget in seconds: default 40, or 5 when Q8NN_TEST_EMULATED=1 (as
 *                      under qemu-user); at least 100 cycles run whatever the budget.
 *   Q8NN_TEST_SEED     the seed (printed at the start). Cycle i draws from (seed, i) alone.
 *   Q8NN_SOAK_CYCLE    runs only that cycle of the seed's sequence, to reproduce a failure.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cmocka.h>

#include <q8nn.h>

#include "reference/reference-model.h"
#include "reference/reference-resize.h"
#include "reference/reference-unary.h"
#include "reference/reference.h"
#include "testers/test-util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_ASAN 1
#endif
#endif
#ifndef SOAK_ASAN
#define SOAK_ASAN 0
#endif

#define GUARD 16                  /* guard bytes before and after every output */
#define MAX_INPUTS 4              /* inputs of a concatenation */
#define RSS_SLACK (1024 * 1024)   /* growth allowed after the warm-up */

enum kind {
  CONVOLUTION, DEPTHWISE, DECONVOLUTION, FULLY_CONNECTED, ADD, MAX_POOLING, AVERAGE_POOLING, UNARY, LOOKUP,
  SOFTMAX, RESIZE, CONCATENATE, CHANNEL_SHUFFLE, NUM_KINDS
};

/* One cycle: what was drawn and the created operator's parameters, which the reference needs at
   every setup. Values are in the int8 domain; flip turns them into the operator's bytes. */
struct cycle {
  size_t index;
  enum kind kind;
  int u8;
  uint8_t flip; /* 0x80 for uint8, else 0 */
  size_t numerics;
  q8nn_backend_t backend; /* the VTA backend when drawn and accepted, else NULL */
  const char* placement;  /* "cpu", "vta", "vta declined: cpu", "vta, setup left it on the cpu" */
  uint32_t isa;
  char what[200];  /* the operator's parameters, for messages */
  char shape[200]; /* the current setup's shape, for messages */
  /* convolution family and fully connected (depthwise: gic = channels, goc = depth multiplier) */
  struct q8nn_convolution2d_desc desc;
  size_t groups, gic, goc, in_c, out_c;
  int8_t* kernel;
  int32_t *bias, *multiplier, *shift;
  float* scale;
  int32_t in_zp, out_zp, out_min, out_max;
  /* add */
  struct ref_add_params add;
  struct ref_xnn_add_params xadd;
  /* pooling, resize, channel shuffle */
  struct q8nn_pooling2d_desc pool;
  size_t channels, out_h, out_w;
  /* unary and lookup: output of each int8-domain input, indexed by its byte */
  int8_t table[256];
  /* softmax */
  float input_scale, beta;
  /* concatenation */
  size_t num_inputs;
  float in_scales[MAX_INPUTS], out_scale;
  int32_t in_zps[MAX_INPUTS];
};

/* An output buffer: rows of `channels` bytes `stride` apart at data, with GUARD guard bytes before
   and after; want holds what the whole buffer must hold after a run (the guard where nothing is
   written). */
struct output {
  uint8_t *base, *data, *want;
  size_t rows, channels, stride, bytes;
};

/* The buffers of one setup. */
struct io {
  uint8_t* in[MAX_INPUTS];     /* the operator's inputs: random bytes, gaps included, exact extent */
  int8_t* ref_in[MAX_INPUTS];  /* the same bytes in the int8 domain */
  int8_t* scratch[MAX_INPUTS]; /* dense or requantized copies the references read */
  int8_t* dense;               /* the reference's output, rows x channels, int8 domain */
  struct output out;           /* the operator's */
  struct output list;          /* that of the lookup following the operator in a list of 2: dense rows */
  int has_size;                /* setup reports an output size: want_h x want_w */
  size_t want_h, want_w, got_h, got_w;
};

struct kind_info {
  const char* name;
  size_t num_numerics;
  const char* numerics[6];
  int vta; /* the int8 operator may go on the VTA backend */
  enum q8nn_status (*create)(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected);
  enum q8nn_status (*setup)(struct cycle* c, q8nn_operator_t op, struct io* io);
};

/* ---- helpers ------------------------------------------------------------------------------- */

static size_t rnd(size_t n) { return (size_t) test_rand() % n; }
static uint64_t rnd64(void) { return ((uint64_t) test_rand() << 32) | test_rand(); }
static int32_t zero_point(void) { return test_rand_range(-128, 127); }
static size_t extent(size_t rows, size_t channels, size_t stride) { return (rows - 1) * stride + channels; }
/* A pixel or row stride: the channels, one time in four with a gap of 1 to 3 bytes. */
static size_t draw_stride(size_t channels) { return channels + (rnd(4) == 0 ? 1 + rnd(3) : 0); }

/* The full range, or one time in four a random sub-range (a fused activation). */
static void draw_clamp(int32_t* lo, int32_t* hi) {
  *lo = -128;
  *hi = 127;
  if (rnd(4) == 0) {
    *lo = test_rand_range(-128, 20);
    *hi = test_rand_range(*lo, 127);
  }
}

static void new_input(const struct cycle* c, struct io* io, size_t i, size_t bytes) {
  io->in[i] = malloc(bytes);
  io->ref_in[i] = malloc(bytes);
  assert_non_null(io->in[i]);
  assert_non_null(io->ref_in[i]);
  for (size_t j = 0; j < bytes; j++) {
    io->in[i][j] = (uint8_t) test_rand();
    io->ref_in[i][j] = (int8_t) (io->in[i][j] ^ c->flip);
  }
}

static void alloc_output(struct output* o, size_t rows, size_t channels, size_t stride) {
  o->rows = rows, o->channels = channels, o->stride = stride;
  o->bytes = GUARD + extent(rows, channels, stride) + GUARD;
  o->base = malloc(o->bytes);
  o->want = malloc(o->bytes);
  assert_non_null(o->base);
  assert_non_null(o->want);
  o->data = o->base + GUARD;
  memset(o->want, TEST_GUARD_BYTE, o->bytes);
}

static void new_output(struct io* io, size_t rows, size_t channels, size_t stride) {
  alloc_output(&io->out, rows, channels, stride);
  io->dense = malloc(rows * channels);
  assert_non_null(io->dense);
}

/* A dense int8-domain copy of `rows` rows of input i (the layout the references read). */
static int8_t* gather(struct io* io, size_t i, size_t rows, size_t channels, size_t stride) {
  io->scratch[i] = malloc(rows * channels);
  assert_non_null(io->scratch[i]);
  for (size_t r = 0; r < rows; r++) memcpy(io->scratch[i] + r * channels, io->ref_in[i] + r * stride, channels);
  return io->scratch[i];
}

static void free_io(struct io* io) {
  for (size_t i = 0; i < MAX_INPUTS; i++) free(io->in[i]), free(io->ref_in[i]), free(io->scratch[i]);
  free(io->dense), free(io->out.base), free(io->out.want), free(io->list.base), free(io->list.want);
}

/* ---- convolution, depthwise, transposed convolution, fully connected ------------------------ */

static enum q8nn_status create_conv(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  const int dw = c->kind == DEPTHWISE, deconv = c->kind == DECONVOLUTION, fc = c->kind == FULLY_CONNECTED;
  struct q8nn_convolution2d_desc* d = &c->desc;
  memset(d, 0, sizeof(*d));
  d->kernel_height = d->kernel_width = d->stride_height = d->stride_width = d->dilation_height = d->dilation_width = 1;
  if (!fc) {
    d->kernel_height = 1 + (uint32_t) rnd(rnd(4) == 0 ? 5 : 3);
    d->kernel_width = 1 + (uint32_t) rnd(rnd(4) == 0 ? 5 : 3);
    d->stride_height = 1 + (uint32_t) rnd(deconv ? 3 : 2);
    d->stride_width = 1 + (uint32_t) rnd(deconv ? 3 : 2);
    d->dilation_height = 1 + (uint32_t) (rnd(4) == 0);
    d->dilation_width = 1 + (uint32_t) (rnd(4) == 0);
    /* a transposed convolution's padding crops its output: below the kernel, as in its own test */
    d->padding_top = (uint32_t) rnd(deconv ? d->kernel_height : 3);
    d->padding_bottom = (uint32_t) rnd(deconv ? d->kernel_height : 3);
    d->padding_left = (uint32_t) rnd(deconv ? d->kernel_width : 3);
    d->padding_right = (uint32_t) rnd(deconv ? d->kernel_width : 3);
  }
  if (dw) {
    c->groups = 1, c->gic = 1 + rnd(24), c->goc = rnd(3) == 0 ? 2 + rnd(3) : 1;
  } else if (fc) {
    c->groups = 1, c->gic = 1 + rnd(64), c->goc = 1 + rnd(40);
  } else if (rnd(6) == 0) {
    c->groups = 2 + rnd(7), c->gic = 1, c->goc = 1 + rnd(3); /* one input channel per group */
  } else {
    c->groups = rnd(4) == 0 ? 2 + rnd(3) : 1, c->gic = 1 + rnd(8), c->goc = 1 + rnd(8);
  }
  d->groups = (uint32_t) c->groups, d->group_input_channels = c->gic, d->group_output_channels = c->goc;
  c->in_c = dw ? c->gic : c->groups * c->gic;
  c->out_c = dw ? c->gic * c->goc : c->groups * c->goc;
  const size_t taps = (size_t) d->kernel_height * d->kernel_width, fan_in = taps * (dw ? 1 : c->gic);
  const size_t kernel_size = taps * c->out_c * (dw ? 1 : c->gic);
  c->kernel = malloc(kernel_size);
  c->multiplier = malloc(c->out_c * sizeof(int32_t));
  c->shift = malloc(c->out_c * sizeof(int32_t));
  c->scale = malloc(c->out_c * sizeof(float));
  float* kernel_scale = malloc(c->out_c * sizeof(float));
  assert_true(c->kernel != NULL && c->multiplier != NULL && c->shift != NULL && c->scale != NULL);
  assert_non_null(kernel_scale);
  test_fill_s8(c->kernel, kernel_size);
  if (rnd(8) != 0) {
    c->bias = malloc(c->out_c * sizeof(int32_t));
    assert_non_null(c->bias);
    const int32_t range = (int32_t) (74.0 * 74.0 * 2.0 * sqrt((double) fan_in));
    test_fill_s32_range(c->bias, c->out_c, -range, range);
  }
  /* Scales that put a typical accumulator (std ~ 74 * 74 * sqrt(fan_in) for uniform bytes) a few
     dozen steps from the zero point, as conv-sweep.c's typical_exponent; per output channel
     TFLite's multiplier from the double product (test_conv_run's formula) and XNNPACK's float
     scale (ref_fp32_scale). */
  const int per_tensor = rnd(3) == 0;
  const float input_scale = test_rand_float(0.01f, 0.1f);
  const float output_scale = input_scale * 1.28f * sqrtf((float) fan_in) * test_rand_float(0.5f, 2.0f);
  for (size_t i = 0; i < (per_tensor ? 1 : c->out_c); i++) kernel_scale[i] = test_rand_float(0.002f, 0.02f);
  int representable = 1;
  for (size_t oc = 0; oc < c->out_c; oc++) {
    const float ks = kernel_scale[per_tensor ? 0 : oc];
    const int fits = ref_quantize_multiplier((double) input_scale * (double) ks / (double) output_scale,
                                             &c->multiplier[oc], &c->shift[oc]);
    c->scale[oc] = ref_fp32_scale(input_scale, ks, output_scale);
    representable &= c->numerics == 2 ? c->scale[oc] < 256.0f : fits;
  }
  *expected = representable ? q8nn_status_success : q8nn_status_unsupported_parameter;
  c->in_zp = zero_point(), c->out_zp = zero_point();
  draw_clamp(&c->out_min, &c->out_max);
  const struct q8nn_conv_quantization q = {
      c->in_zp, input_scale, kernel_scale, c->out_zp, output_scale, (int8_t) c->out_min, (int8_t) c->out_max,
      (enum q8nn_rounding) c->numerics, NULL, NULL, NULL};
  const struct q8nn_conv_quantization_u8 q8 = {
      c->in_zp + 128, input_scale, kernel_scale, c->out_zp + 128, output_scale, (uint8_t) (c->out_min + 128),
      (uint8_t) (c->out_max + 128), (enum q8nn_rounding) c->numerics, NULL, NULL, NULL};
  const uint32_t flags = per_tensor ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  snprintf(c->what, sizeof(c->what),
           "groups %zu x %zu -> %zu, kernel %ux%u stride %ux%u dilation %ux%u padding t%u r%u b%u l%u, zero points "
           "%d/%d, clamp [%d, %d], %s scales, %s",
           c->groups, c->gic, c->goc, d->kernel_height, d->kernel_width, d->stride_height, d->stride_width,
           d->dilation_height, d->dilation_width, d->padding_top, d->padding_right, d->padding_bottom,
           d->padding_left, c->in_zp, c->out_zp, c->out_min, c->out_max, per_tensor ? "per-tensor" : "per-channel",
           c->bias != NULL ? "bias" : "no bias");
  enum q8nn_status status;
  if (dw) {
    const struct q8nn_depthwise_convolution2d_desc w = {
        d->padding_top, d->padding_right, d->padding_bottom, d->padding_left, d->kernel_height, d->kernel_width,
        d->stride_height, d->stride_width, d->dilation_height, d->dilation_width, c->gic, c->goc};
    status = c->u8 ? q8nn_create_depthwise_convolution2d_nhwc_u8(&w, &q8, c->kernel, c->bias, flags, op)
                   : q8nn_create_depthwise_convolution2d_nhwc_s8(&w, &q, c->kernel, c->bias, flags, op);
  } else if (deconv) {
    status = c->u8 ? q8nn_create_deconvolution2d_nhwc_u8(d, &q8, c->kernel, c->bias, flags, op)
                   : q8nn_create_deconvolution2d_nhwc_s8(d, &q, c->kernel, c->bias, flags, op);
  } else if (fc) {
    status = c->u8 ? q8nn_create_fully_connected_nc_u8(c->gic, c->goc, &q8, c->kernel, c->bias, flags, op)
                   : q8nn_create_fully_connected_nc_s8(c->gic, c->goc, &q, c->kernel, c->bias, flags, op);
  } else {
    status = c->u8 ? q8nn_create_convolution2d_nhwc_u8(d, &q8, c->kernel, c->bias, flags, op)
                   : q8nn_create_convolution2d_nhwc_s8(d, &q, c->kernel, c->bias, flags, op);
  }
  free(kernel_scale); /* create copies what it needs */
  return status;
}

static enum q8nn_status setup_conv(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const struct q8nn_convolution2d_desc* d = &c->desc;
  const int dw = c->kind == DEPTHWISE, deconv = c->kind == DECONVOLUTION, fc = c->kind == FULLY_CONNECTED;
  const size_t eff_h = (size_t) d->dilation_height * (d->kernel_height - 1) + 1;
  const size_t eff_w = (size_t) d->dilation_width * (d->kernel_width - 1) + 1;
  const size_t pads_h = (size_t) d->padding_top + d->padding_bottom;
  const size_t pads_w = (size_t) d->padding_left + d->padding_right;
  const size_t batch = fc ? 1 : 1 + rnd(2);
  /* one setup in eight a larger image, which the 2-thread pool splits into several tiles */
  const size_t more = rnd(8) == 0 ? 6 + rnd(10) : 0;
  size_t in_h, in_w, out_h, out_w;
  uint32_t adj_h = 0, adj_w = 0;
  if (fc) { /* the rows of a fully connected operator are the pixels of a 1 x rows 1x1 convolution */
    in_h = out_h = 1;
    in_w = out_w = 1 + rnd(6) + more;
  } else if (deconv) {
    adj_h = (uint32_t) rnd(d->stride_height), adj_w = (uint32_t) rnd(d->stride_width);
    in_h = 1 + rnd(5) + more / 2, in_w = 1 + rnd(5) + more / 2;
    while ((in_h - 1) * d->stride_height + eff_h + adj_h <= pads_h) in_h++;
    while ((in_w - 1) * d->stride_width + eff_w + adj_w <= pads_w) in_w++;
    out_h = (in_h - 1) * d->stride_height + eff_h + adj_h - pads_h;
    out_w = (in_w - 1) * d->stride_width + eff_w + adj_w - pads_w;
  } else {
    in_h = (eff_h > pads_h ? eff_h - pads_h : 1) + rnd(5) + more;
    in_w = (eff_w > pads_w ? eff_w - pads_w : 1) + rnd(5) + more;
    out_h = (in_h + pads_h - eff_h) / d->stride_height + 1;
    out_w = (in_w + pads_w - eff_w) / d->stride_width + 1;
  }
  const size_t in_stride = draw_stride(c->in_c), out_stride = draw_stride(c->out_c);
  const size_t in_pixels = batch * in_h * in_w, out_pixels = batch * out_h * out_w;
  new_input(c, io, 0, extent(in_pixels, c->in_c, in_stride));
  new_output(io, out_pixels, c->out_c, out_stride);
  const struct ref_conv_params p = {
      .batch = batch, .in_h = in_h, .in_w = in_w, .in_c = c->gic, .groups = c->groups, .out_c = c->goc,
      .k_h = d->kernel_height, .k_w = d->kernel_width, .stride_h = d->stride_height, .stride_w = d->stride_width,
      .dil_h = d->dilation_height, .dil_w = d->dilation_width, .pad_top = d->padding_top,
      .pad_left = d->padding_left, .pad_bottom = d->padding_bottom, .pad_right = d->padding_right,
      .in_pixel_stride = in_stride, .out_pixel_stride = c->out_c, .in_zp = c->in_zp, .out_zp = c->out_zp,
      .out_min = c->out_min, .out_max = c->out_max, .multiplier = c->multiplier, .shift = c->shift,
      .rounding = (int) c->numerics, .scale = c->scale};
  if (deconv) {
    ref_transpose_conv2d(&p, out_h, out_w, io->ref_in[0], c->kernel, c->bias, io->dense);
  } else if (dw) {
    ref_depthwise(&p, io->ref_in[0], c->kernel, c->bias, io->dense);
  } else {
    ref_conv2d(&p, io->ref_in[0], c->kernel, c->bias, io->dense);
  }
  io->has_size = !fc, io->want_h = out_h, io->want_w = out_w;
  snprintf(c->shape, sizeof(c->shape), "batch %zu, %zux%zu -> %zux%zu (adjustment %u,%u), pixel strides %zu / %zu",
           batch, in_h, in_w, out_h, out_w, adj_h, adj_w, in_stride, out_stride);
  const uint8_t* x = io->in[0];
  uint8_t* y = io->out.data;
  const int8_t* xs = (const int8_t*) x;
  int8_t* ys = (int8_t*) y;
  if (fc) {
    return c->u8 ? q8nn_setup_fully_connected_nc_u8(op, in_w, x, in_stride, y, out_stride)
                 : q8nn_setup_fully_connected_nc_s8(op, in_w, xs, in_stride, ys, out_stride);
  }
  size_t* gh = &io->got_h;
  size_t* gw = &io->got_w;
  if (deconv) {
    return c->u8 ? q8nn_setup_deconvolution2d_nhwc_u8(op, batch, in_h, in_w, adj_h, adj_w, x, in_stride, y, out_stride,
                                                      gh, gw)
                 : q8nn_setup_deconvolution2d_nhwc_s8(op, batch, in_h, in_w, adj_h, adj_w, xs, in_stride, ys,
                                                      out_stride, gh, gw);
  }
  if (dw) {
    return c->u8 ? q8nn_setup_depthwise_convolution2d_nhwc_u8(op, batch, in_h, in_w, x, in_stride, y, out_stride, gh,
                                                              gw)
                 : q8nn_setup_depthwise_convolution2d_nhwc_s8(op, batch, in_h, in_w, xs, in_stride, ys, out_stride, gh,
                                                              gw);
  }
  return c->u8 ? q8nn_setup_convolution2d_nhwc_u8(op, batch, in_h, in_w, x, in_stride, y, out_stride, gh, gw)
               : q8nn_setup_convolution2d_nhwc_s8(op, batch, in_h, in_w, xs, in_stride, ys, out_stride, gh, gw);
}

/* ---- add ----------------------------------------------------------------------------------- */

static enum q8nn_status create_add(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  const int32_t za = zero_point(), zb = zero_point(), zo = zero_point();
  int32_t lo, hi;
  draw_clamp(&lo, &hi);
  /* scale ratios every arithmetic takes, and one time in eight wider ones that some decline */
  const int wide = rnd(8) == 0;
  const float sa = wide ? test_rand_float(0.001f, 1.0f) : test_rand_float(0.01f, 0.1f);
  const float sb = wide ? test_rand_float(0.001f, 1.0f) : test_rand_float(0.01f, 0.1f);
  const float so = wide ? test_rand_float(0.002f, 2.0f) : test_rand_float(0.01f, 0.2f);
  int declined;
  if (c->numerics == 0) {
    declined = ref_add_params_from_scales(sa, za, sb, zb, so, zo, lo, hi, &c->add) ? 0 : 2;
  } else if (c->numerics == 1) {
    declined = ref_xnn_add_params_from_scales(sa, za, sb, zb, so, zo, lo, hi, &c->xadd);
  } else {
    declined = ref_qnnpack_add_params_from_scales(sa, za, sb, zb, so, zo, lo, hi, &c->xadd);
  }
  *expected = declined == 0   ? q8nn_status_success
              : declined == 1 ? q8nn_status_invalid_parameter
                              : q8nn_status_unsupported_parameter;
  snprintf(c->what, sizeof(c->what), "scales %g %g -> %g, zero points %d %d -> %d, clamp [%d, %d]", (double) sa,
           (double) sb, (double) so, za, zb, zo, lo, hi);
  static const uint32_t flags[3] = {0, Q8NN_FLAG_XNNPACK_ADD, Q8NN_FLAG_QNNPACK_ADD};
  if (c->u8) {
    const struct q8nn_add_quantization_u8 q = {za + 128, sa, zb + 128, sb, zo + 128, so, (uint8_t) (lo + 128),
                                               (uint8_t) (hi + 128), NULL};
    return q8nn_create_add_nd_u8(&q, flags[c->numerics], op);
  }
  const struct q8nn_add_quantization q = {za, sa, zb, sb, zo, so, (int8_t) lo, (int8_t) hi, NULL};
  return q8nn_create_add_nd_s8(&q, flags[c->numerics], op);
}

static int format_shape(char* text, size_t size, size_t rank, const size_t* shape) {
  int n = snprintf(text, size, "[");
  for (size_t d = 0; d < rank && n > 0 && (size_t) n < size; d++) {
    n += snprintf(text + n, size - (size_t) n, d == 0 ? "%zu" : " %zu", shape[d]);
  }
  if (n > 0 && (size_t) n < size) n += snprintf(text + n, size - (size_t) n, "]");
  return n;
}

static enum q8nn_status setup_add(struct cycle* c, q8nn_operator_t op, struct io* io) {
  /* test-add.c's random shapes: output dims 1..4 (the last one time in four up to 100, for the
     kernels' vector loops), each operand dim the output's or 1, ranks that differ at random (missing
     leading dims broadcast), rank 0 a scalar */
  const size_t rank = rnd(5);
  size_t out[REF_MAX_DIMS], a_shape[REF_MAX_DIMS], b_shape[REF_MAX_DIMS], out_rank, out_shape[REF_MAX_DIMS];
  for (size_t d = 0; d < rank; d++) out[d] = 1 + rnd(d + 1 == rank && rnd(4) == 0 ? 100 : 4);
  size_t a_rank = rank - (rnd(3) == 0 ? rnd(rank + 1) : 0), b_rank = rank - (rnd(3) == 0 ? rnd(rank + 1) : 0);
  if (a_rank != rank && b_rank != rank) a_rank = rank;
  size_t na = 1, nb = 1, total = 1;
  for (size_t d = 0; d < a_rank; d++) na *= a_shape[d] = rnd(3) == 0 ? 1 : out[rank - a_rank + d];
  for (size_t d = 0; d < b_rank; d++) nb *= b_shape[d] = rnd(3) == 0 ? 1 : out[rank - b_rank + d];
  assert_true(ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &out_rank, out_shape));
  for (size_t d = 0; d < out_rank; d++) total *= out_shape[d];
  new_input(c, io, 0, na);
  new_input(c, io, 1, nb);
  new_output(io, 1, total, total);
  if (c->numerics == 0) {
    ref_add(&c->add, a_rank, a_shape, io->ref_in[0], b_rank, b_shape, io->ref_in[1], io->dense);
  } else {
    ref_xnn_add(&c->xadd, a_rank, a_shape, io->ref_in[0], b_rank, b_shape, io->ref_in[1], io->dense);
  }
  int n = format_shape(c->shape, sizeof(c->shape), a_rank, a_shape);
  n += snprintf(c->shape + n, sizeof(c->shape) - (size_t) n, " + ");
  format_shape(c->shape + n, sizeof(c->shape) - (size_t) n, b_rank, b_shape);
  return c->u8 ? q8nn_setup_add_nd_u8(op, a_rank, a_shape, b_rank, b_shape, io->in[0], io->in[1], io->out.data)
               : q8nn_setup_add_nd_s8(op, a_rank, a_shape, b_rank, b_shape, (const int8_t*) io->in[0],
                                      (const int8_t*) io->in[1], (int8_t*) io->out.data);
}

/* ---- pooling ------------------------------------------------------------------------------- */

static enum q8nn_status create_pool(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  struct q8nn_pooling2d_desc* d = &c->pool;
  memset(d, 0, sizeof(*d));
  d->pooling_height = 1 + (uint32_t) rnd(4), d->pooling_width = 1 + (uint32_t) rnd(4);
  d->stride_height = 1 + (uint32_t) rnd(3), d->stride_width = 1 + (uint32_t) rnd(3);
  d->padding_top = (uint32_t) rnd(d->pooling_height), d->padding_bottom = (uint32_t) rnd(d->pooling_height);
  d->padding_left = (uint32_t) rnd(d->pooling_width), d->padding_right = (uint32_t) rnd(d->pooling_width);
  d->channels = c->channels = 1 + rnd(40);
  draw_clamp(&c->out_min, &c->out_max);
  *expected = q8nn_status_success;
  snprintf(c->what, sizeof(c->what), "window %ux%u stride %ux%u padding t%u r%u b%u l%u, %zu channels, clamp [%d, %d]",
           d->pooling_height, d->pooling_width, d->stride_height, d->stride_width, d->padding_top, d->padding_right,
           d->padding_bottom, d->padding_left, d->channels, c->out_min, c->out_max);
  const uint8_t lo = (uint8_t) (c->out_min + 128), hi = (uint8_t) (c->out_max + 128);
  if (c->kind == AVERAGE_POOLING) {
    return c->u8 ? q8nn_create_average_pooling2d_nhwc_u8(d, lo, hi, 0, op)
                 : q8nn_create_average_pooling2d_nhwc_s8(d, (int8_t) c->out_min, (int8_t) c->out_max, 0, op);
  }
  return c->u8 ? q8nn_create_max_pooling2d_nhwc_u8(d, lo, hi, 0, op)
               : q8nn_create_max_pooling2d_nhwc_s8(d, (int8_t) c->out_min, (int8_t) c->out_max, 0, op);
}

static enum q8nn_status setup_pool(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const struct q8nn_pooling2d_desc* d = &c->pool;
  const size_t pads_h = (size_t) d->padding_top + d->padding_bottom;
  const size_t pads_w = (size_t) d->padding_left + d->padding_right;
  const size_t batch = 1 + rnd(2);
  const size_t in_h = (d->pooling_height > pads_h ? d->pooling_height - pads_h : 1) + rnd(6);
  const size_t in_w = (d->pooling_width > pads_w ? d->pooling_width - pads_w : 1) + rnd(6);
  const size_t out_h = (in_h + pads_h - d->pooling_height) / d->stride_height + 1;
  const size_t out_w = (in_w + pads_w - d->pooling_width) / d->stride_width + 1;
  const size_t in_stride = draw_stride(c->channels), out_stride = draw_stride(c->channels);
  new_input(c, io, 0, extent(batch * in_h * in_w, c->channels, in_stride));
  new_output(io, batch * out_h * out_w, c->channels, out_stride);
  ref_pool_s8(c->kind == AVERAGE_POOLING, batch, in_h, in_w, c->channels, out_h, out_w, d->pooling_height,
              d->pooling_width, d->stride_height, d->stride_width, d->padding_top, d->padding_left, c->out_min,
              c->out_max, gather(io, 0, batch * in_h * in_w, c->channels, in_stride), io->dense);
  io->has_size = 1, io->want_h = out_h, io->want_w = out_w;
  snprintf(c->shape, sizeof(c->shape), "batch %zu, %zux%zu -> %zux%zu, pixel strides %zu / %zu", batch, in_h, in_w,
           out_h, out_w, in_stride, out_stride);
  return c->u8 ? q8nn_setup_pooling2d_nhwc_u8(op, batch, in_h, in_w, io->in[0], in_stride, io->out.data, out_stride,
                                              &io->got_h, &io->got_w)
               : q8nn_setup_pooling2d_nhwc_s8(op, batch, in_h, in_w, (const int8_t*) io->in[0], in_stride,
                                              (int8_t*) io->out.data, out_stride, &io->got_h, &io->got_w);
}

/* ---- unary elementwise and lookup ---------------------------------------------------------- */

static const char* const unary_names[7] = {"?", "clamp", "hardswish", "sigmoid", "tanh", "leaky_relu", "elu"};

static enum q8nn_status create_unary(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  /* test-unary.c's draw: scales 2^-9..2 in, 2^-8..2 out; sigmoid and tanh mostly with TFLite's
     fixed output quantization (else refused); ELU with alpha 1 where TFLite has no alpha */
  const enum q8nn_unary_operation operation = (enum q8nn_unary_operation) (1 + rnd(6));
  const enum q8nn_rounding rounding = (enum q8nn_rounding) c->numerics;
  struct ref_unary_params p = {
      .op = (int) operation, .rounding = (int) c->numerics,
      .input_scale = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-9, 0)), .input_zero_point = zero_point(),
      .output_scale = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-8, 0)), .output_zero_point = zero_point(),
      .alpha = test_rand_float(0.01f, 0.5f)};
  draw_clamp(&p.output_min, &p.output_max);
  if (operation == q8nn_unary_elu && (rounding != q8nn_rounding_fp32 || rnd(2) == 0)) p.alpha = 1.0f;
  if ((operation == q8nn_unary_sigmoid || operation == q8nn_unary_tanh) && rnd(5) != 0) {
    p.output_scale = operation == q8nn_unary_sigmoid ? 1.0f / 256.0f : 1.0f / 128.0f;
    p.output_zero_point = operation == q8nn_unary_sigmoid ? -128 : 0;
  }
  int accepted = 1;
  for (int x = -128; x <= 127 && accepted; x++) accepted = ref_unary_s8(&p, (int8_t) x, &c->table[(uint8_t) x]);
  *expected = accepted ? q8nn_status_success : q8nn_status_unsupported_parameter;
  snprintf(c->what, sizeof(c->what), "%s, input %g %d, output %g %d, clamp [%d, %d], alpha %g", unary_names[operation],
           (double) p.input_scale, p.input_zero_point, (double) p.output_scale, p.output_zero_point, p.output_min,
           p.output_max, (double) p.alpha);
  if (c->u8) {
    const struct q8nn_unary_quantization_u8 q = {
        p.input_zero_point + 128, p.input_scale, p.output_zero_point + 128, p.output_scale,
        (uint8_t) (p.output_min + 128), (uint8_t) (p.output_max + 128), p.alpha, rounding};
    return q8nn_create_unary_elementwise_nc_u8(operation, &q, 0, op);
  }
  const struct q8nn_unary_quantization q = {p.input_zero_point, p.input_scale, p.output_zero_point, p.output_scale,
                                            (int8_t) p.output_min, (int8_t) p.output_max, p.alpha, rounding};
  return q8nn_create_unary_elementwise_nc_s8(operation, &q, 0, op);
}

static enum q8nn_status create_lookup(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  /* the caller's table maps bytes to bytes; its int8-domain form, for the shared setup below */
  uint8_t bytes[256];
  for (size_t i = 0; i < 256; i++) bytes[i] = (uint8_t) test_rand();
  for (size_t v = 0; v < 256; v++) c->table[v] = (int8_t) (bytes[v ^ c->flip] ^ c->flip);
  *expected = q8nn_status_success;
  snprintf(c->what, sizeof(c->what), "random table");
  return c->u8 ? q8nn_create_lookup_nc_u8(bytes, 0, op) : q8nn_create_lookup_nc_s8((const int8_t*) bytes, 0, op);
}

static enum q8nn_status setup_unary(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const size_t rows = 1 + rnd(4), channels = 1 + rnd(rnd(8) == 0 ? 600 : 100);
  const size_t in_stride = draw_stride(channels), out_stride = draw_stride(channels);
  new_input(c, io, 0, extent(rows, channels, in_stride));
  new_output(io, rows, channels, out_stride);
  for (size_t r = 0; r < rows; r++) {
    for (size_t k = 0; k < channels; k++) {
      io->dense[r * channels + k] = c->table[(uint8_t) io->ref_in[0][r * in_stride + k]];
    }
  }
  snprintf(c->shape, sizeof(c->shape), "%zu rows of %zu, strides %zu / %zu", rows, channels, in_stride, out_stride);
  return c->u8 ? q8nn_setup_unary_elementwise_nc_u8(op, rows, channels, io->in[0], in_stride, io->out.data, out_stride)
               : q8nn_setup_unary_elementwise_nc_s8(op, rows, channels, (const int8_t*) io->in[0], in_stride,
                                                    (int8_t*) io->out.data, out_stride);
}

/* ---- softmax ------------------------------------------------------------------------------- */

static enum q8nn_status create_softmax(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  c->input_scale = expf(test_rand_float(logf(1e-3f), logf(2.0f)));
  c->beta = rnd(3) == 0 ? 1.0f : test_rand_float(0.25f, 4.0f);
  int8_t x = 0, y;
  *expected = ref_softmax_s8(c->beta, c->input_scale, 1, 1, &x, &y) ? q8nn_status_success
                                                                     : q8nn_status_unsupported_parameter;
  snprintf(c->what, sizeof(c->what), "input scale %g, beta %g", (double) c->input_scale, (double) c->beta);
  return c->u8 ? q8nn_create_softmax_nc_u8(c->input_scale, c->beta, 0, op)
               : q8nn_create_softmax_nc_s8(c->input_scale, c->beta, 0, op);
}

static enum q8nn_status setup_softmax(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const size_t rows = 1 + rnd(4), channels = 1 + rnd(rnd(8) == 0 ? 300 : 40);
  const size_t in_stride = draw_stride(channels), out_stride = draw_stride(channels);
  new_input(c, io, 0, extent(rows, channels, in_stride));
  new_output(io, rows, channels, out_stride);
  assert_true(ref_softmax_s8(c->beta, c->input_scale, rows, channels, gather(io, 0, rows, channels, in_stride),
                             io->dense));
  snprintf(c->shape, sizeof(c->shape), "%zu rows of %zu, strides %zu / %zu", rows, channels, in_stride, out_stride);
  return c->u8 ? q8nn_setup_softmax_nc_u8(op, rows, channels, io->in[0], in_stride, io->out.data, out_stride)
               : q8nn_setup_softmax_nc_s8(op, rows, channels, (const int8_t*) io->in[0], in_stride,
                                          (int8_t*) io->out.data, out_stride);
}

/* ---- resize -------------------------------------------------------------------------------- */

/* numerics: nearest (0-2) or bilinear (3-5), with no flag, align corners or half pixel centres */
static const uint32_t resize_flags[3] = {0, Q8NN_FLAG_ALIGN_CORNERS, Q8NN_FLAG_HALF_PIXEL_CENTERS};

static enum q8nn_status create_resize(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  const enum q8nn_resize_mode mode = c->numerics >= 3 ? q8nn_resize_bilinear : q8nn_resize_nearest;
  c->channels = 1 + rnd(20), c->out_h = 1 + rnd(12), c->out_w = 1 + rnd(12);
  *expected = q8nn_status_success;
  snprintf(c->what, sizeof(c->what), "%zu channels to %zux%zu", c->channels, c->out_h, c->out_w);
  const uint32_t flags = resize_flags[c->numerics % 3];
  return c->u8 ? q8nn_create_resize2d_nhwc_u8(mode, c->channels, c->out_h, c->out_w, flags, op)
               : q8nn_create_resize2d_nhwc_s8(mode, c->channels, c->out_h, c->out_w, flags, op);
}

static enum q8nn_status setup_resize(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const size_t batch = 1 + rnd(2), in_h = 1 + rnd(10), in_w = 1 + rnd(10);
  const size_t in_stride = draw_stride(c->channels), out_stride = draw_stride(c->channels);
  new_input(c, io, 0, extent(batch * in_h * in_w, c->channels, in_stride));
  new_output(io, batch * c->out_h * c->out_w, c->channels, out_stride);
  ref_resize_s8(c->numerics >= 3, c->numerics % 3 == 1, c->numerics % 3 == 2, batch, in_h, in_w, c->channels, c->out_h,
                c->out_w, gather(io, 0, batch * in_h * in_w, c->channels, in_stride), io->dense);
  snprintf(c->shape, sizeof(c->shape), "batch %zu, %zux%zu, pixel strides %zu / %zu", batch, in_h, in_w, in_stride,
           out_stride);
  return c->u8 ? q8nn_setup_resize2d_nhwc_u8(op, batch, in_h, in_w, io->in[0], in_stride, io->out.data, out_stride)
               : q8nn_setup_resize2d_nhwc_s8(op, batch, in_h, in_w, (const int8_t*) io->in[0], in_stride,
                                             (int8_t*) io->out.data, out_stride);
}

/* ---- concatenation ------------------------------------------------------------------------- */

/* numerics 0: no quantization given (copies); 1: every input with the output's quantization
   (copies); 2: Q8NN_FLAG_PYTORCH_REQUANTIZE with every other input in its own quantization. */
static enum q8nn_status create_concatenate(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  c->num_inputs = 1 + rnd(MAX_INPUTS);
  c->out_scale = test_rand_float(0.01f, 0.1f), c->out_zp = zero_point();
  int32_t zps[MAX_INPUTS];
  for (size_t i = 0; i < c->num_inputs; i++) {
    const int same = c->numerics != 2 || i % 2 == 0;
    c->in_scales[i] = same ? c->out_scale : test_rand_float(0.005f, 0.2f);
    c->in_zps[i] = same ? c->out_zp : zero_point();
    zps[i] = c->in_zps[i] + (c->u8 ? 128 : 0);
  }
  *expected = q8nn_status_success;
  snprintf(c->what, sizeof(c->what), "%zu inputs, output %g %d", c->num_inputs, (double) c->out_scale, c->out_zp);
  const struct q8nn_concatenate_quantization q = {c->in_scales, zps, c->out_scale, c->out_zp + (c->u8 ? 128 : 0)};
  const struct q8nn_concatenate_quantization* qp = c->numerics == 0 ? NULL : &q;
  const uint32_t flags = c->numerics == 2 ? Q8NN_FLAG_PYTORCH_REQUANTIZE : 0;
  return c->u8 ? q8nn_create_concatenate_nd_u8(c->num_inputs, qp, flags, op)
               : q8nn_create_concatenate_nd_s8(c->num_inputs, qp, flags, op);
}

static enum q8nn_status setup_concatenate(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const size_t rank = 1 + rnd(4), axis = rnd(rank);
  size_t shape[REF_MAX_DIMS], sizes[MAX_INPUTS], shapes[MAX_INPUTS][6], total = 0;
  for (size_t d = 0; d < rank; d++) shape[d] = 1 + rnd(rank > 2 ? 4 : 8);
  const int8_t* ref_inputs[MAX_INPUTS];
  for (size_t i = 0; i < c->num_inputs; i++) {
    sizes[i] = 1 + rnd(5);
    size_t n = 1;
    for (size_t d = 0; d < rank; d++) n *= shapes[i][d] = d == axis ? sizes[i] : shape[d];
    total += n;
    new_input(c, io, i, n);
    ref_inputs[i] = io->ref_in[i];
    if (c->in_scales[i] != c->out_scale || c->in_zps[i] != c->out_zp) {
      /* tests/reference has no requantizing concatenation: PyTorch's formula as q8nn.h states it
         (and test-concatenate.c checks it), clamp(nearbyint((float) ((x - zi) * si) * (1 / so)) + zo), in
         the int8 domain (the uint8 one is the same shifted by 128) */
      io->scratch[i] = malloc(n);
      assert_non_null(io->scratch[i]);
      for (size_t j = 0; j < n; j++) {
        const float v = ((float) io->ref_in[i][j] - (float) c->in_zps[i]) * c->in_scales[i];
        const int32_t q = c->out_zp + (int32_t) nearbyintf(v * (1.0f / c->out_scale));
        io->scratch[i][j] = (int8_t) (q < -128 ? -128 : q > 127 ? 127 : q);
      }
      ref_inputs[i] = io->scratch[i];
    }
  }
  new_output(io, 1, total, total);
  ref_concat_s8(rank, axis, c->num_inputs, (const size_t(*)[6]) shapes, ref_inputs, io->dense);
  int n = format_shape(c->shape, sizeof(c->shape), rank, shape);
  n += snprintf(c->shape + n, sizeof(c->shape) - (size_t) n, " axis %zu sizes", axis);
  for (size_t i = 0; i < c->num_inputs && n > 0 && (size_t) n < sizeof(c->shape); i++) {
    n += snprintf(c->shape + n, sizeof(c->shape) - (size_t) n, " %zu", sizes[i]);
  }
  shape[axis] = 0; /* ignored by setup */
  const uint8_t* const* x = (const uint8_t* const*) io->in;
  return c->u8 ? q8nn_setup_concatenate_nd_u8(op, rank, shape, axis, sizes, x, io->out.data)
               : q8nn_setup_concatenate_nd_s8(op, rank, shape, axis, sizes, (const int8_t* const*) x,
                                              (int8_t*) io->out.data);
}

/* ---- channel shuffle ----------------------------------------------------------------------- */

static enum q8nn_status create_shuffle(struct cycle* c, q8nn_operator_t* op, enum q8nn_status* expected) {
  c->groups = 2 + rnd(5), c->gic = 1 + rnd(8), c->channels = c->groups * c->gic;
  *expected = q8nn_status_success;
  snprintf(c->what, sizeof(c->what), "%zu groups of %zu", c->groups, c->gic);
  return q8nn_create_channel_shuffle_nc_x8(c->groups, c->gic, 0, op); /* bytes of any type */
}

static enum q8nn_status setup_shuffle(struct cycle* c, q8nn_operator_t op, struct io* io) {
  const size_t rows = 1 + rnd(8), in_stride = draw_stride(c->channels), out_stride = draw_stride(c->channels);
  new_input(c, io, 0, extent(rows, c->channels, in_stride));
  new_output(io, rows, c->channels, out_stride);
  /* no function in tests/reference: q8nn.h's definition, output channel k * groups + g is input
     channel g * group_channels + k */
  for (size_t r = 0; r < rows; r++) {
    for (size_t g = 0; g < c->groups; g++) {
      for (size_t k = 0; k < c->gic; k++) {
        io->dense[r * c->channels + k * c->groups + g] = io->ref_in[0][r * in_stride + g * c->gic + k];
      }
    }
  }
  snprintf(c->shape, sizeof(c->shape), "%zu rows, strides %zu / %zu", rows, in_stride, out_stride);
  return q8nn_setup_channel_shuffle_nc_x8(op, rows, io->in[0], in_stride, io->out.data, out_stride);
}

/* ---- the table of kinds -------------------------------------------------------------------- */

#define ROUNDINGS 3, {"double", "single", "fp32"}

static const struct kind_info kinds[NUM_KINDS] = {
    [CONVOLUTION] = {"convolution", ROUNDINGS, 1, create_conv, setup_conv},
    [DEPTHWISE] = {"depthwise", ROUNDINGS, 1, create_conv, setup_conv},
    [DECONVOLUTION] = {"deconvolution", ROUNDINGS, 0, create_conv, setup_conv},
    [FULLY_CONNECTED] = {"fully_connected", ROUNDINGS, 0, create_conv, setup_conv},
    [ADD] = {"add", 3, {"tflite", "xnnpack", "qnnpack"}, 1, create_add, setup_add},
    [MAX_POOLING] = {"max_pooling", 1, {"tflite"}, 0, create_pool, setup_pool},
    [AVERAGE_POOLING] = {"average_pooling", 1, {"tflite"}, 0, create_pool, setup_pool},
    [UNARY] = {"unary", ROUNDINGS, 0, create_unary, setup_unary},
    [LOOKUP] = {"lookup", 1, {"table"}, 0, create_lookup, setup_unary},
    [SOFTMAX] = {"softmax", 1, {"tflite"}, 0, create_softmax, setup_softmax},
    [RESIZE] = {"resize", 6,
                {"nearest", "nearest+align_corners", "nearest+half_pixel", "bilinear", "bilinear+align_corners",
                 "bilinear+half_pixel"}, 0, create_resize, setup_resize},
    [CONCATENATE] = {"concatenate", 3, {"copy", "copy+quantization", "pytorch_requantize"}, 0, create_concatenate,
                     setup_concatenate},
    [CHANNEL_SHUFFLE] = {"channel_shuffle", 1, {"index"}, 0, create_shuffle, setup_shuffle},
};

/* ---- the driver ---------------------------------------------------------------------------- */

struct kind_stats {
  size_t cycles, u8, declined, vta, lists, resetups, runs, numerics[6];
  double seconds;
};

struct soak {
  uint64_t seed;
  q8nn_backend_t vta;
  pthreadpool_t pool; /* two threads */
  uint32_t masks[32];
  size_t num_masks;
  struct kind_stats stats[NUM_KINDS];
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Resident bytes: the second field of /proc/self/statm, in pages; 0 where it cannot be read. */
static size_t resident_bytes(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == NULL) return 0;
  unsigned long size = 0, resident = 0;
  const int fields = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  return fields == 2 && page > 0 ? (size_t) resident * (size_t) page : 0;
}

static int report(const struct soak* s, const struct cycle* c, const char* format, ...) {
  fprintf(stderr, "FAIL soak cycle %zu: %s (%s) %s, backend %s, isa %s\n  operator: %s\n  setup: %s\n  ", c->index,
          kinds[c->kind].name, kinds[c->kind].numerics[c->numerics], c->u8 ? "u8" : "s8", c->placement,
          test_isa_name(c->isa), c->what, c->shape);
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\n  reproduce: Q8NN_TEST_SEED=%" PRIu64 " Q8NN_SOAK_CYCLE=%zu\n", s->seed, c->index);
  return 1;
}

/* Compares a whole output buffer, guards included. */
static int check(const struct soak* s, const struct cycle* c, const char* which, const struct output* o,
                 const char* how) {
  const size_t i = test_first_mismatch((const int8_t*) o->base, (const int8_t*) o->want, o->bytes);
  if (i == SIZE_MAX) return 0;
  const size_t end = extent(o->rows, o->channels, o->stride), j = i - GUARD;
  char where[128];
  if (i < GUARD) {
    snprintf(where, sizeof(where), "guard byte %zu before the start", GUARD - i);
  } else if (j >= end) {
    snprintf(where, sizeof(where), "guard byte %zu after the end", j - end);
  } else if (j % o->stride >= o->channels) {
    snprintf(where, sizeof(where), "gap byte %zu after row %zu", j % o->stride - o->channels, j / o->stride);
  } else {
    snprintf(where, sizeof(where), "byte %zu: row %zu, element %zu", j, j / o->stride, j % o->stride);
  }
  return report(s, c, "%s, %s: %s is %u, want %u", which, how, where, o->base[i], o->want[i]);
}

static int run_cycle(struct soak* s, size_t index, enum kind* kind_out) {
  struct cycle c;
  memset(&c, 0, sizeof(c));
  test_reseed(s->seed + UINT64_C(0x9E3779B97F4A7C15) * (index + 1));
  c.index = index;
  c.kind = *kind_out = (enum kind) rnd(NUM_KINDS);
  const struct kind_info* info = &kinds[c.kind];
  struct kind_stats* st = &s->stats[c.kind];
  c.u8 = (int) rnd(2);
  c.flip = c.u8 ? 0x80 : 0;
  c.numerics = rnd(info->num_numerics);
  c.isa = s->masks[rnd(s->num_masks)];
  const int want_vta = info->vta && !c.u8 && s->vta != NULL && rnd(2) == 0;
  c.placement = want_vta ? "vta" : "cpu";
  /* everything after the create is drawn now: each setup reseeds the stream with its own seed,
     the second setup with the first's when it keeps the shape (new buffers, same shape and data) */
  const size_t setups = rnd(5) < 2 ? 2 : 1;
  const size_t list = rnd(3) == 0 ? 1 + rnd(2) : 0; /* operators in a q8nn_run_operators list; 0: run alone */
  size_t runs[2];
  int threads[2][3];
  uint64_t setup_seed[2];
  uint8_t list_table[256];
  for (size_t u = 0; u < 2; u++) {
    runs[u] = 1 + rnd(3);
    for (size_t r = 0; r < 3; r++) threads[u][r] = rnd(2) == 0 ? 2 : 1;
  }
  setup_seed[0] = rnd64();
  setup_seed[1] = rnd(2) == 0 ? setup_seed[0] : rnd64();
  for (size_t i = 0; i < 256; i++) list_table[i] = (uint8_t) test_rand();

  q8nn_set_isa_mask(c.isa);
  q8nn_operator_t ops[2] = {NULL, NULL};
  struct io io[2]; /* both setups' buffers live to the end: the second setup's pointers differ from the first's */
  memset(io, 0, sizeof(io));
  enum q8nn_status expected = q8nn_status_success;
  enum q8nn_status status = info->create(&c, &ops[0], &expected);
  int failures = 0;
  st->cycles++, st->u8 += (size_t) c.u8, st->numerics[c.numerics]++;
  if (status != expected) {
    failures += report(s, &c, "create gives %s, the reference expects %s", q8nn_status_string(status),
                       q8nn_status_string(expected));
  }
  if (status != q8nn_status_success) {
    st->declined += status == expected;
    goto done;
  }
  if (want_vta) {
    status = q8nn_operator_set_backend(ops[0], s->vta);
    if (status == q8nn_status_success) {
      c.backend = s->vta;
    } else if (status == q8nn_status_unsupported_parameter) {
      c.placement = "vta declined: cpu";
    } else {
      failures += report(s, &c, "q8nn_operator_set_backend gives %s", q8nn_status_string(status));
      goto done;
    }
  }
  if (list == 2) {
    status = c.u8 ? q8nn_create_lookup_nc_u8(list_table, 0, &ops[1])
                  : q8nn_create_lookup_nc_s8((const int8_t*) list_table, 0, &ops[1]);
    if (status != q8nn_status_success) {
      failures += report(s, &c, "the list's lookup: create gives %s", q8nn_status_string(status));
      goto done;
    }
  }
  st->lists += list != 0, st->resetups += setups == 2;
  for (size_t u = 0; u < setups && failures == 0; u++) {
    test_reseed(setup_seed[u]);
    status = info->setup(&c, ops[0], &io[u]);
    if (status != q8nn_status_success) {
      failures += report(s, &c, "setup %zu gives %s", u + 1, q8nn_status_string(status));
      break;
    }
    if (io[u].has_size && (io[u].got_h != io[u].want_h || io[u].got_w != io[u].want_w)) {
      failures += report(s, &c, "setup %zu gives an output of %zux%zu, the reference %zux%zu", u + 1, io[u].got_h,
                         io[u].got_w, io[u].want_h, io[u].want_w);
      break;
    }
    struct output* out = &io[u].out;
    for (size_t r = 0; r < out->rows; r++) {
      for (size_t k = 0; k < out->channels; k++) {
        out->want[GUARD + r * out->stride + k] = (uint8_t) io[u].dense[r * out->channels + k] ^ c.flip;
      }
    }
    if (c.backend != NULL) {
      c.placement = q8nn_operator_get_backend(ops[0]) == c.backend ? "vta" : "vta, setup left it on the cpu";
      st->vta += u == 0 && q8nn_operator_get_backend(ops[0]) == c.backend;
    }
    struct output* next = &io[u].list;
    if (list == 2) { /* the lookup reads the operator's output rows and writes dense rows */
      alloc_output(next, out->rows, out->channels, out->channels);
      for (size_t r = 0; r < out->rows; r++) {
        for (size_t k = 0; k < out->channels; k++) {
          next->want[GUARD + r * out->channels + k] = list_table[out->want[GUARD + r * out->stride + k]];
        }
      }
      status = c.u8 ? q8nn_setup_unary_elementwise_nc_u8(ops[1], out->rows, out->channels, out->data, out->stride,
                                                         next->data, out->channels)
                    : q8nn_setup_unary_elementwise_nc_s8(ops[1], out->rows, out->channels, (const int8_t*) out->data,
                                                         out->stride, (int8_t*) next->data, out->channels);
      if (status != q8nn_status_success) {
        failures += report(s, &c, "the list's lookup: setup %zu gives %s", u + 1, q8nn_status_string(status));
        break;
      }
    }
    for (size_t r = 0; r < runs[u] && failures == 0; r++) {
      pthreadpool_t pool = threads[u][r] == 2 ? s->pool : NULL;
      char how[96];
      snprintf(how, sizeof(how), "setup %zu of %zu, run %zu of %zu on %s, %s", u + 1, setups, r + 1, runs[u],
               pool != NULL ? "the 2-thread pool" : "the caller's thread",
               list == 0 ? "alone" : list == 1 ? "in a list of 1" : "in a list of 2");
      memset(out->base, TEST_GUARD_BYTE, out->bytes);
      if (list == 2) memset(next->base, TEST_GUARD_BYTE, next->bytes);
      status = list != 0 ? q8nn_run_operators(list, ops, pool) : q8nn_run_operator(ops[0], pool);
      st->runs++;
      if (status != q8nn_status_success) {
        failures += report(s, &c, "%s: run gives %s", how, q8nn_status_string(status));
        break;
      }
      failures += check(s, &c, "output", out, how);
      if (list == 2 && failures == 0) failures += check(s, &c, "the list's lookup output", next, how);
    }
  }
done:
  free_io(&io[0]);
  free_io(&io[1]);
  q8nn_delete_operator(ops[1]);
  q8nn_delete_operator(ops[0]);
  free(c.kernel), free(c.bias), free(c.multiplier), free(c.shift), free(c.scale);
  return failures;
}

static void test_soak(void** state) {
  (void) state;
  struct soak* s = calloc(1, sizeof(struct soak));
  assert_non_null(s);
  s->seed = test_seed();
  const char* emulated_env = getenv("Q8NN_TEST_EMULATED");
  const int emulated = emulated_env != NULL && strcmp(emulated_env, "1") == 0;
  const char* seconds_env = getenv("Q8NN_SOAK_SECONDS");
  const char* cycle_env = getenv("Q8NN_SOAK_CYCLE");
  const double budget = seconds_env != NULL && seconds_env[0] != '\0' ? strtod(seconds_env, NULL)
                        : emulated                                     ? 5.0
                                                                       : 40.0;
  /* Under AddressSanitizer its quarantine grows the resident set; under qemu-user so does the
     emulator's translation cache, with every code path translated for the first time. */
  const char* unchecked = SOAK_ASAN ? " (not checked under AddressSanitizer: its quarantine grows the resident set)"
                          : emulated ? " (not checked under qemu-user: its translation cache grows the resident set)"
                                     : "";
  const int single = cycle_env != NULL && cycle_env[0] != '\0';
#if defined(__GLIBC__) && !SOAK_ASAN
  /* glibc raises its mmap and trim thresholds when a large mmapped block is freed (up to 32 and
     64 MiB), after which that much free memory may stay resident at the top of the heap: the
     resident set would follow the largest block freed so far, not what is still allocated. Setting
     both (to their defaults, 128 KiB) turns that adjustment off. */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
  s->num_masks = test_isa_masks(s->masks, 32);
  s->pool = test_threadpool(2);
  assert_non_null(s->pool);
  assert_int_equal(q8nn_create_vta_backend(NULL, &s->vta), q8nn_status_success);

  const double start = now();
  size_t cycles = 0, warm_cycles = 0, rss_warm = 0, rss_peak = 0;
  double warm_seconds = 0.0, next_progress = 60.0;
  int failures = 0;
  for (size_t index = single ? (size_t) strtoull(cycle_env, NULL, 0) : 0; failures == 0; index++) {
    const double t0 = now();
    enum kind kind;
    failures += run_cycle(s, index, &kind);
    const double t1 = now();
    s->stats[kind].seconds += t1 - t0;
    cycles++;
    if (single) break;
    const double elapsed = t1 - start;
    if (warm_cycles == 0 && cycles >= 50 && elapsed >= 0.1 * budget) {
      warm_cycles = cycles, warm_seconds = elapsed, rss_warm = resident_bytes();
      rss_peak = rss_warm;
    }
    if (warm_cycles != 0 && cycles % 16 == 0) {
      const size_t rss = resident_bytes();
      if (rss > rss_peak) rss_peak = rss;
      if (elapsed >= next_progress) { /* a trend line per minute for the long runs by hand */
        printf("soak: %.0f s, %zu cycles, resident %.2f MiB\n", elapsed, cycles, (double) rss / (1024.0 * 1024.0));
        fflush(stdout);
        next_progress += 60.0;
      }
    }
    if (cycles >= 100 && elapsed >= budget) break;
  }
  const double total_seconds = now() - start;
  const size_t rss_end = resident_bytes(); /* with the VTA backend and the pool still alive, as at the warm-up */
  if (rss_end > rss_peak) rss_peak = rss_end;
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(q8nn_delete_backend(s->vta), q8nn_status_success);

  printf("soak: %zu cycles in %.1f s (budget %.1f s, %.0f us per cycle), %d failure%s, seed %" PRIu64 "\n", cycles,
         total_seconds, budget, 1e6 * total_seconds / (double) cycles, failures, failures == 1 ? "" : "s", s->seed);
  for (size_t k = 0; k < NUM_KINDS; k++) {
    const struct kind_stats* st = &s->stats[k];
    printf("  %-16s %6zu cycles (u8 %zu, vta %zu, declined %zu, lists %zu, two setups %zu, %zu runs, %.0f us/cycle):",
           kinds[k].name, st->cycles, st->u8, st->vta, st->declined, st->lists, st->resetups, st->runs,
           st->cycles != 0 ? 1e6 * st->seconds / (double) st->cycles : 0.0);
    for (size_t n = 0; n < kinds[k].num_numerics; n++) printf(" %s %zu", kinds[k].numerics[n], st->numerics[n]);
    printf("\n");
  }
  if (single || warm_cycles == 0) {
    printf("soak: resident memory not checked (%s)\n", single ? "one cycle" : "no warm-up");
  } else if (rss_warm == 0 || rss_end == 0) {
    printf("soak: resident memory not checked: /proc/self/statm cannot be read here\n");
  } else {
    const double mib = 1024.0 * 1024.0;
    printf("soak: resident memory after the warm-up (%zu cycles, %.1f s) %.2f MiB, at the end %.2f MiB (%+.3f MiB), "
           "peak %.2f MiB; allowed growth %.2f MiB%s\n",
           warm_cycles, warm_seconds, (double) rss_warm / mib, (double) rss_end / mib,
           ((double) rss_end - (double) rss_warm) / mib, (double) rss_peak / mib, RSS_SLACK / mib,
           unchecked);
    if (unchecked[0] == '\0' && failures == 0 && rss_end > rss_warm + RSS_SLACK) {
      fprintf(stderr, "FAIL soak: resident memory grew from %zu bytes after the warm-up to %zu bytes at the end "
              "(Q8NN_TEST_SEED=%" PRIu64 ")\n", rss_warm, rss_end, s->seed);
      failures++;
    }
  }
  free(s);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_soak),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
