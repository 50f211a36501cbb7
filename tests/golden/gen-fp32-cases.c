/*
 * Writes tests/golden/fp32-cases.h: a fixed-seed set of convolution, depthwise and add cases run
 * through the real XNNPACK (xnn_create_convolution2d_nhwc_qc8, XNN_FLAG_DEPTHWISE_CONVOLUTION,
 * xnn_create_add_nd_qs8), with XNNPACK's output bytes. test_golden_fp32 then runs them through
 * q8nn's XNNPACK numerics (q8nn_rounding_fp32, Q8NN_FLAG_XNNPACK_ADD) where XNNPACK is absent too.
 *
 *   gen_fp32_cases [output-file]     (stdout without an argument)
 *
 * Built only when XNNPACK is found; the ctest entry gen_fp32_cases_up_to_date regenerates the
 * header and requires it to equal the checked-in one. The generator has its own random generator
 * (xorshift32, seed GEN_SEED), so the cases do not depend on the test support library. Floats are
 * written as hexadecimal literals (exact). Weights are in [-127, 127] (see test-xnnpack-exact.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#ifndef GEN_XNNPACK_VERSION
#define GEN_XNNPACK_VERSION "unknown"
#endif
#define GEN_SEED 20261123u
#define GEN_CONV_CASES 12
#define GEN_DW_CASES 10
#define GEN_ADD_CASES 8

static uint32_t rng_state = GEN_SEED;
static uint32_t rnd(void) {
  uint32_t x = rng_state;
  x ^= x << 13, x ^= x >> 17, x ^= x << 5;
  return rng_state = x;
}
/* The span in uint32 arithmetic: hi - lo in int overflowed for [-2^30, 2^30] (UBSan); the values
   drawn are the same as before, so the checked-in header does not change. */
static int32_t range(int32_t lo, int32_t hi) {
  return lo + (int32_t) (rnd() % ((uint32_t) hi - (uint32_t) lo + 1u));
}
static float unit_float(void) { return 1.0f + (float) (rnd() >> 8) * 0x1.0p-24f; } /* [1, 2) */
/* Two draws in sequence (not as two arguments of one call, whose order C leaves unspecified: the
   aarch64 and x86 builds must generate the same cases). */
static float log_uniform(int lo, int hi) {
  const float m = unit_float();
  return ldexpf(m, range(lo, hi));
}
static int32_t zero_point(void) {
  static const int32_t fixed[3] = {-128, 0, 127};
  const uint32_t r = rnd() % 4;
  return r < 3 ? fixed[r] : range(-128, 127);
}
static void clamp_pair(int32_t zp, int8_t* lo, int8_t* hi) {
  switch (rnd() % 3) {
    case 0: *lo = -128, *hi = 127; break;
    case 1: *lo = (int8_t) zp, *hi = (int8_t) (zp + 60 > 127 ? 127 : zp + 60); break;
    default: *lo = (int8_t) range(-128, 0), *hi = (int8_t) range(1, 127); break;
  }
  if (*lo >= *hi) *lo = -128, *hi = 127;
}
static void* xcalloc(size_t n) {
  void* p = calloc(n ? n : 1, 1);
  if (p == NULL) abort();
  return p;
}

static FILE* out;
static void emit_s8(const char* name, const int8_t* v, size_t n) {
  fprintf(out, "static const int8_t %s[%zu] = {", name, n ? n : 1);
  for (size_t i = 0; i < n; i++) fprintf(out, "%s%d,", i % 24 == 0 ? "\n  " : " ", v[i]);
  if (n == 0) fprintf(out, "0");
  fprintf(out, "\n};\n");
}
static void emit_s32(const char* name, const int32_t* v, size_t n) {
  fprintf(out, "static const int32_t %s[%zu] = {", name, n);
  for (size_t i = 0; i < n; i++) fprintf(out, "%s%d,", i % 8 == 0 ? "\n  " : " ", (int) v[i]); /* |v| <= 2^30 */
  fprintf(out, "\n};\n");
}
static void emit_f32(const char* name, const float* v, size_t n) {
  fprintf(out, "static const float %s[%zu] = {", name, n);
  for (size_t i = 0; i < n; i++) fprintf(out, "%s%af,", i % 6 == 0 ? "\n  " : " ", (double) v[i]);
  fprintf(out, "\n};\n");
}

struct conv {
  int depthwise;
  size_t batch, in_h, in_w, channels_in, channels_out, dm;
  uint32_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int32_t in_zp, out_zp;
  int8_t out_min, out_max;
  float input_scale, output_scale;
  const char* regime;
};

static char entries[16384];
static void add_entry(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const size_t used = strlen(entries);
  vsnprintf(entries + used, sizeof(entries) - used, fmt, ap);
  va_end(ap);
}

static void conv_case(size_t index, int depthwise) {
  struct conv c;
  memset(&c, 0, sizeof(c));
  c.depthwise = depthwise;
  c.batch = (size_t) range(1, 2);
  c.kh = c.kw = (uint32_t) (rnd() % 3 == 0 ? 1 : rnd() % 4 == 0 ? 5 : 3);
  if (!depthwise && c.kh == 1) {
    c.sh = c.sw = 1;
  } else {
    c.sh = c.sw = (uint32_t) range(1, 2);
    c.dh = c.dw = rnd() % 5 == 0 ? 2 : 1;
  }
  if (c.dh == 0) c.dh = c.dw = 1;
  c.in_h = (size_t) range((int32_t) ((c.kh - 1) * c.dh + 1), 9);
  c.in_w = (size_t) range((int32_t) ((c.kw - 1) * c.dw + 1), 9);
  if (rnd() & 1) {
    c.pt = c.pl = (c.kh - 1) * c.dh / 2;
    c.pb = c.pr = (c.kh - 1) * c.dh - c.pt;
  }
  if (depthwise) {
    c.channels_in = (size_t) range(1, 72);
    c.dm = rnd() % 4 == 0 ? 2 : 1;
    c.channels_out = c.channels_in * c.dm;
  } else {
    c.channels_in = (size_t) range(1, 48);
    c.channels_out = (size_t) range(1, 72);
  }
  c.in_zp = zero_point();
  c.out_zp = zero_point();
  clamp_pair(c.out_zp, &c.out_min, &c.out_max);
  const int regime = (int) (index % 3); /* typical, ties, big accumulators */
  c.regime = regime == 0 ? "typical scales" : regime == 1 ? "power-of-two scales, small sums (ties)"
                                                          : "accumulators up to 2^30 (int32 -> float rounds)";
  const size_t taps = (size_t) c.kh * c.kw, gic = depthwise ? 1 : c.channels_in;
  const size_t kernel_size = c.channels_out * taps * gic;
  const size_t in_size = c.batch * c.in_h * c.in_w * c.channels_in;
  int8_t* input = xcalloc(in_size + XNN_EXTRA_BYTES);
  int8_t* kernel = xcalloc(kernel_size);
  int32_t* bias = xcalloc(c.channels_out * sizeof(int32_t));
  float* kernel_scale = xcalloc(c.channels_out * sizeof(float));
  for (size_t i = 0; i < in_size; i++) {
    const int32_t v = regime == 1 ? c.in_zp + range(-3, 3) : range(-128, 127); /* ties: small sums */
    input[i] = (int8_t) (v < -128 ? -128 : v > 127 ? 127 : v);
  }
  for (size_t i = 0; i < kernel_size; i++) kernel[i] = (int8_t) (regime == 1 ? range(-3, 3) : range(-127, 127));
  const int32_t bias_range = regime == 2 ? (INT32_C(1) << 30) : 20000;
  for (size_t i = 0; i < c.channels_out; i++) bias[i] = range(-bias_range, bias_range);
  c.input_scale = regime == 1 ? ldexpf(1.0f, range(-6, 0)) : log_uniform(-8, 0);
  c.output_scale = regime == 1 ? ldexpf(1.0f, range(-6, 0)) : log_uniform(-8, 0);
  const int typical = -7 - (int) lround(0.5 * log2((double) (taps * gic)));
  for (size_t oc = 0; oc < c.channels_out; oc++) {
    const float scale = regime == 1 ? ldexpf(1.0f, range(-4, 0)) : regime == 2 ? log_uniform(-26, -22)
                                                                              : log_uniform(typical - 1, typical + 1);
    kernel_scale[oc] = scale * c.output_scale / c.input_scale;
  }

  const size_t groups = depthwise ? c.channels_in : 1, goc = depthwise ? c.dm : c.channels_out;
  xnn_operator_t op = NULL;
  if (xnn_create_convolution2d_nhwc_qc8(c.pt, c.pr, c.pb, c.pl, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, (uint32_t) groups,
                                        gic, goc, c.channels_in, c.channels_out, (int8_t) c.in_zp, c.input_scale,
                                        kernel_scale, kernel, bias, (int8_t) c.out_zp, c.output_scale, c.out_min,
                                        c.out_max, depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0,
                                        &op) != xnn_status_success) {
    fprintf(stderr, "gen_fp32_cases: XNNPACK declined conv case %zu\n", index);
    exit(1);
  }
  const size_t eh = (c.kh - 1) * c.dh + 1, ew = (c.kw - 1) * c.dw + 1;
  const size_t out_h = (c.in_h + c.pt + c.pb - eh) / c.sh + 1, out_w = (c.in_w + c.pl + c.pr - ew) / c.sw + 1;
  const size_t out_size = c.batch * out_h * out_w * c.channels_out;
  int8_t* output = xcalloc(out_size);
  if (xnn_setup_convolution2d_nhwc_qc8(op, c.batch, c.in_h, c.in_w, input, output, NULL) != xnn_status_success ||
      xnn_run_operator(op, NULL) != xnn_status_success) {
    fprintf(stderr, "gen_fp32_cases: XNNPACK failed on conv case %zu\n", index);
    exit(1);
  }
  xnn_delete_operator(op);

  char name[64];
  const char* kind = depthwise ? "dw" : "conv";
  fprintf(out, "\n/* %s%02zu: %s */\n", kind, index, c.regime);
  snprintf(name, sizeof(name), "%s%02zu_input", kind, index), emit_s8(name, input, in_size);
  snprintf(name, sizeof(name), "%s%02zu_kernel", kind, index), emit_s8(name, kernel, kernel_size);
  snprintf(name, sizeof(name), "%s%02zu_bias", kind, index), emit_s32(name, bias, c.channels_out);
  snprintf(name, sizeof(name), "%s%02zu_kernel_scale", kind, index), emit_f32(name, kernel_scale, c.channels_out);
  snprintf(name, sizeof(name), "%s%02zu_expected", kind, index), emit_s8(name, output, out_size);
  add_entry("  {\"%s%02zu\", %s, %zu, %zu, %zu, %zu, %zu, %zu, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u,\n"
            "   %d, %d, %d, %d, %af, %af, %s%02zu_kernel_scale, %s%02zu_input, %s%02zu_kernel, %s%02zu_bias,\n"
            "   %s%02zu_expected, %zu, %zu, %zu,\n"
            "   0, {0}, 0, {0}, NULL, NULL, 0, 0, 0.0f, 0.0f},\n",
            kind, index, depthwise ? "FP32_CASE_DEPTHWISE" : "FP32_CASE_CONV", c.batch, c.in_h, c.in_w,
            c.channels_in, c.channels_out, depthwise ? c.dm : 0, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.pt, c.pl,
            c.pb, c.pr, c.in_zp, c.out_zp, c.out_min, c.out_max, (double) c.input_scale, (double) c.output_scale,
            kind, index, kind, index, kind, index, kind, index, kind, index, out_h, out_w, out_size);
  free(input), free(kernel), free(bias), free(kernel_scale), free(output);
}

static size_t elements(size_t rank, const size_t* shape) {
  size_t n = 1;
  for (size_t i = 0; i < rank; i++) n *= shape[i];
  return n;
}

static void add_case(size_t index) {
  size_t out_rank = (size_t) range(1, 4), out_shape[4];
  for (size_t d = 0; d < out_rank; d++) out_shape[d] = (size_t) range(1, 4);
  if (index % 2 == 0) out_shape[out_rank - 1] = (size_t) range(16, 150); /* vector bodies and tails */
  size_t a_rank = out_rank, b_rank = out_rank, a_shape[4] = {0}, b_shape[4] = {0};
  if (index % 4 == 1) a_rank = (size_t) range(0, (int32_t) out_rank);
  if (index % 4 == 3) b_rank = (size_t) range(0, (int32_t) out_rank);
  for (size_t d = 0; d < a_rank; d++) a_shape[d] = rnd() % 4 == 0 ? 1 : out_shape[out_rank - a_rank + d];
  for (size_t d = 0; d < b_rank; d++) b_shape[d] = rnd() % 4 == 0 ? 1 : out_shape[out_rank - b_rank + d];
  /* the output shape is the broadcast of a and b */
  const size_t rank = a_rank > b_rank ? a_rank : b_rank;
  size_t shape[4];
  for (size_t d = 0; d < rank; d++) {
    const size_t da = d + a_rank >= rank ? a_shape[d + a_rank - rank] : 1;
    const size_t db = d + b_rank >= rank ? b_shape[d + b_rank - rank] : 1;
    shape[d] = da > db ? da : db;
  }
  const size_t na = elements(a_rank, a_shape), nb = elements(b_rank, b_shape), total = elements(rank, shape);
  int8_t* a = xcalloc(na + XNN_EXTRA_BYTES);
  int8_t* b = xcalloc(nb + XNN_EXTRA_BYTES);
  int8_t* output = xcalloc(total);
  for (size_t i = 0; i < na; i++) a[i] = (int8_t) range(-128, 127);
  for (size_t i = 0; i < nb; i++) b[i] = (int8_t) range(-128, 127);
  const int32_t a_zp = zero_point(), b_zp = zero_point(), out_zp = zero_point();
  int8_t out_min, out_max;
  clamp_pair(out_zp, &out_min, &out_max);
  float a_scale, b_scale, out_scale;
  if (index % 2 == 0) { /* typical */
    out_scale = log_uniform(-8, 0);
    a_scale = out_scale * (0.25f + 1.75f * (unit_float() - 1.0f));
    b_scale = out_scale * (0.25f + 1.75f * (unit_float() - 1.0f));
  } else { /* powers of two: every rounding a tie */
    out_scale = ldexpf(1.0f, range(-8, 0));
    a_scale = ldexpf(out_scale, range(-10, 7));
    b_scale = ldexpf(out_scale, range(-10, 7));
  }
  xnn_operator_t op = NULL;
  if (xnn_create_add_nd_qs8((int8_t) a_zp, a_scale, (int8_t) b_zp, b_scale, (int8_t) out_zp, out_scale, out_min,
                            out_max, 0, &op) != xnn_status_success ||
      xnn_setup_add_nd_qs8(op, a_rank, a_shape, b_rank, b_shape, a, b, output, NULL) != xnn_status_success ||
      xnn_run_operator(op, NULL) != xnn_status_success) {
    fprintf(stderr, "gen_fp32_cases: XNNPACK failed on add case %zu\n", index);
    exit(1);
  }
  xnn_delete_operator(op);
  char name[64];
  fprintf(out, "\n/* add%02zu: %s */\n", index, index % 2 == 0 ? "typical scales" : "power-of-two scales (ties)");
  snprintf(name, sizeof(name), "add%02zu_a", index), emit_s8(name, a, na);
  snprintf(name, sizeof(name), "add%02zu_b", index), emit_s8(name, b, nb);
  snprintf(name, sizeof(name), "add%02zu_expected", index), emit_s8(name, output, total);
  add_entry("  {\"add%02zu\", FP32_CASE_ADD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,\n"
            "   0, %d, %d, %d, 0.0f, %af, NULL, NULL, NULL, NULL, add%02zu_expected, 0, 0, %zu,\n"
            "   %zu, {%zu, %zu, %zu, %zu}, %zu, {%zu, %zu, %zu, %zu}, add%02zu_a, add%02zu_b, %d, %d, %af, %af},\n",
            index, out_zp, out_min, out_max, (double) out_scale, index, total, a_rank, a_shape[0], a_shape[1],
            a_shape[2], a_shape[3], b_rank, b_shape[0], b_shape[1], b_shape[2], b_shape[3], index, index, a_zp, b_zp,
            (double) a_scale, (double) b_scale);
  free(a), free(b), free(output);
}

int main(int argc, char** argv) {
  out = argc > 1 ? fopen(argv[1], "w") : stdout;
  if (out == NULL || xnn_initialize(NULL) != xnn_status_success) {
    fprintf(stderr, "gen_fp32_cases: cannot open the output or initialize XNNPACK\n");
    return 1;
  }
  fprintf(out,
          "/* Generated by tests/golden/gen-fp32-cases.c: do not edit, rerun it (see its header).\n"
          "   Provenance: outputs computed by XNNPACK %s (Debian libxnnpack), xnn_create_convolution2d_nhwc_qc8\n"
          "   (depthwise: XNN_FLAG_DEPTHWISE_CONVOLUTION) and xnn_create_add_nd_qs8; generator seed %u;\n"
          "   %d convolutions, %d depthwise, %d adds. */\n"
          "#include \"golden/fp32-case.h\"\n",
          GEN_XNNPACK_VERSION, GEN_SEED, GEN_CONV_CASES, GEN_DW_CASES, GEN_ADD_CASES);
  for (size_t i = 0; i < GEN_CONV_CASES; i++) conv_case(i, 0);
  for (size_t i = 0; i < GEN_DW_CASES; i++) conv_case(i, 1);
  for (size_t i = 0; i < GEN_ADD_CASES; i++) add_case(i);
  fprintf(out, "\nstatic const char fp32_cases_xnnpack_version[] = \"%s\";\nstatic const unsigned fp32_cases_seed = %uu;\n",
          GEN_XNNPACK_VERSION, GEN_SEED);
  fprintf(out, "\nstatic const struct fp32_case fp32_cases[] = {\n%s};\n", entries);
  if (out != stdout) fclose(out);
  return 0;
}
