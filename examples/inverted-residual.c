/*
 * A MobileNetV2 inverted-residual block through q8nn's public API:
 *   1x1 expand (24 -> 144) + ReLU6, 3x3 depthwise + ReLU6, 1x1 project (144 -> 24), residual add,
 * on a 56x56 input with seeded random int8 data and per-channel weights. Every operator's output
 * is checked byte for byte against the naive reference of tests/reference, and the time per
 * operator is printed. Then the same four operators run on the VTA accelerator model (default
 * configuration, 2 virtual threads), first in its default exact requantization (byte for byte
 * TFLite), then in the faster 16-bit one (within 1 LSB): the simulated cycles and counters of
 * each, the wall time of the simulation, and the distance of the VTA outputs from the CPU
 * (TFLite-exact) outputs; a last table sets the two modes side by side.
 *
 *   inverted-residual [--size H] [--threads N] [--runs R] [--seed S] [--no-vta]
 */
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <q8nn.h>

#include "reference/reference.h"

static uint64_t rng_state = 42;
static uint32_t rnd(void) {
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  return (uint32_t) ((rng_state * UINT64_C(2685821657736338717)) >> 32);
}
static float rnd_float(float lo, float hi) { return lo + (hi - lo) * (float) (rnd() >> 8) / (float) (1 << 24); }
static void fill_s8(int8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (int8_t) (rnd() >> 24);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

#define CHECK(call)                                                                 \
  do {                                                                              \
    const enum q8nn_status s_ = (call);                                             \
    if (s_ != q8nn_status_success) {                                                \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,          \
              q8nn_status_string(s_));                                              \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

/* One quantized layer's parameters, chosen so outputs use the int8 range. */
struct layer_quant {
  float in_scale, out_scale;
  int32_t in_zp, out_zp;
  float* kernel_scale;
  int32_t* multiplier;
  int32_t* shift;
  int8_t out_min, out_max;
};

static void make_quant(struct layer_quant* q, size_t channels, float in_scale, int32_t in_zp, size_t fan_in,
                       int relu6) {
  q->in_scale = in_scale;
  q->in_zp = in_zp;
  q->kernel_scale = malloc(channels * sizeof(float));
  q->multiplier = malloc(channels * sizeof(int32_t));
  q->shift = malloc(channels * sizeof(int32_t));
  for (size_t c = 0; c < channels; c++) q->kernel_scale[c] = rnd_float(0.002f, 0.02f);
  /* output scale so that a typical accumulator (~ sqrt(fan_in) * 64 * 74) spans ~64 LSBs */
  q->out_scale = in_scale * 0.01f * 74.0f * 64.0f * (float) sqrt((double) fan_in) / 64.0f / 8.0f;
  q->out_zp = relu6 ? -128 : (int32_t) (rnd() % 21) - 10;
  q->out_min = -128;
  q->out_max = 127;
  if (relu6) {
    const long six = q->out_zp + lroundf(6.0f / q->out_scale);
    q->out_min = (int8_t) q->out_zp;
    q->out_max = (int8_t) (six > 127 ? 127 : six);
  }
  for (size_t c = 0; c < channels; c++) {
    const double real = (double) q->in_scale * (double) q->kernel_scale[c] / (double) q->out_scale;
    if (!ref_quantize_multiplier(real, &q->multiplier[c], &q->shift[c])) {
      fprintf(stderr, "scale out of range\n");
      exit(1);
    }
  }
}

static struct q8nn_conv_quantization conv_quant(const struct layer_quant* q) {
  struct q8nn_conv_quantization cq;
  memset(&cq, 0, sizeof(cq));
  cq.input_zero_point = q->in_zp;
  cq.input_scale = q->in_scale;
  cq.kernel_scale = q->kernel_scale;
  cq.output_zero_point = q->out_zp;
  cq.output_scale = q->out_scale;
  cq.output_min = q->out_min;
  cq.output_max = q->out_max;
  cq.rounding = q8nn_rounding_double;
  return cq;
}

static struct ref_conv_params ref_params(const struct layer_quant* q, size_t h, size_t w, size_t in_c, size_t out_c,
                                         size_t k, size_t pad) {
  struct ref_conv_params p;
  memset(&p, 0, sizeof(p));
  p.batch = 1, p.in_h = h, p.in_w = w, p.in_c = in_c, p.groups = 1, p.out_c = out_c;
  p.k_h = p.k_w = k, p.stride_h = p.stride_w = 1, p.dil_h = p.dil_w = 1;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.in_pixel_stride = in_c, p.out_pixel_stride = out_c;
  p.in_zp = q->in_zp, p.out_zp = q->out_zp, p.out_min = q->out_min, p.out_max = q->out_max;
  p.multiplier = q->multiplier, p.shift = q->shift, p.rounding = 0;
  return p;
}

static int compare(const char* what, const int8_t* got, const int8_t* expected, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (got[i] != expected[i]) {
      printf("  %-22s MISMATCH at %zu: got %d, reference %d\n", what, i, got[i], expected[i]);
      return 1;
    }
  }
  return 0;
}

static double time_op(q8nn_operator_t op, pthreadpool_t pool, int runs) {
  CHECK(q8nn_run_operator(op, pool)); /* warm-up */
  const double start = now_seconds();
  for (int r = 0; r < runs; r++) CHECK(q8nn_run_operator(op, pool));
  return (now_seconds() - start) / runs;
}

/* One VTA run of the block: totals over the four operators. */
struct vta_summary {
  uint64_t cycles, alu, gemm;
  size_t differ, outputs;
  int max;
};

/* Distance of got from the CPU's outputs: max |diff| and the fraction of bytes that differ. */
static void distance(const char* what, const int8_t* got, const int8_t* cpu, size_t n, struct vta_summary* sum) {
  int max = 0;
  size_t differ = 0;
  for (size_t i = 0; i < n; i++) {
    const int d = abs(got[i] - cpu[i]);
    differ += d != 0;
    if (d > max) max = d;
  }
  printf("    %-24s max |vta - cpu| %d LSB, %.3f%% of %zu outputs differ\n", what, max, 100.0 * (double) differ / (double) n, n);
  if (max > sum->max) sum->max = max;
  sum->differ += differ;
  sum->outputs += n;
}

/* The block on the VTA model: each operator is created as usual and moved to the backend before
   setup; data stays int8 between the operators. Each VTA operator reads the CPU result of the
   previous layer, so the distance printed is the VTA arithmetic's own (not accumulated). */
static int run_on_vta(const struct q8nn_convolution2d_desc* d1, const struct layer_quant* q1, const int8_t* w1,
                      const int32_t* b1, const struct q8nn_depthwise_convolution2d_desc* d2,
                      const struct layer_quant* q2, const int8_t* w2, const int32_t* b2,
                      const struct q8nn_convolution2d_desc* d3, const struct layer_quant* q3, const int8_t* w3,
                      const int32_t* b3, const struct q8nn_add_quantization* aq, const int8_t* x, size_t h, size_t w,
                      size_t c, size_t e, const int8_t* t1, const int8_t* t2, const int8_t* t3, const int8_t* y,
                      uint32_t requantization, struct vta_summary* sum) {
  q8nn_backend_t vta = NULL;
  struct q8nn_vta_config config;
  memset(&config, 0, sizeof(config));
  config.virtual_threads = 2;
  config.requantization = requantization;
  const int exact = requantization == q8nn_vta_requant_exact;
  memset(sum, 0, sizeof(*sum));
  CHECK(q8nn_create_vta_backend(&config, &vta));
  int8_t* v1 = malloc(h * w * e);
  int8_t* v2 = malloc(h * w * e);
  int8_t* v3 = malloc(h * w * c);
  int8_t* vy = malloc(h * w * c);
  q8nn_operator_t ops[4] = {NULL, NULL, NULL, NULL};
  struct q8nn_conv_quantization cq = conv_quant(q1);
  CHECK(q8nn_create_convolution2d_nhwc_s8(d1, &cq, w1, b1, 0, &ops[0]));
  cq = conv_quant(q2);
  CHECK(q8nn_create_depthwise_convolution2d_nhwc_s8(d2, &cq, w2, b2, 0, &ops[1]));
  cq = conv_quant(q3);
  CHECK(q8nn_create_convolution2d_nhwc_s8(d3, &cq, w3, b3, 0, &ops[2]));
  CHECK(q8nn_create_add_nd_s8(aq, 0, &ops[3]));
  for (int i = 0; i < 4; i++) {
    if (!q8nn_backend_supports(vta, ops[i])) printf("  operator %d stays on the CPU\n", i);
    else CHECK(q8nn_operator_set_backend(ops[i], vta));
  }
  CHECK(q8nn_setup_convolution2d_nhwc_s8(ops[0], 1, h, w, x, c, v1, e, NULL, NULL));
  CHECK(q8nn_setup_depthwise_convolution2d_nhwc_s8(ops[1], 1, h, w, t1, e, v2, e, NULL, NULL));
  CHECK(q8nn_setup_convolution2d_nhwc_s8(ops[2], 1, h, w, t2, e, v3, c, NULL, NULL));
  const size_t shape[4] = {1, h, w, c};
  CHECK(q8nn_setup_add_nd_s8(ops[3], 4, shape, 4, shape, t3, x, vy));
  static const char* const names[4] = {"1x1 expand + ReLU6", "3x3 depthwise + ReLU6", "1x1 project", "residual add"};
  printf("VTA model (%s backend, default 1x16_i8w8a32 config, 2 virtual threads), %s:\n", q8nn_backend_name(vta),
         exact ? "exact requantization (the default)" : "16-bit requantization (q8nn_vta_requant_16bit)");
  printf("  %-24s %10s %10s %9s %10s %10s %10s %8s\n", "operator", "cycles", "GEMM uops", "ALU uops", "DRAM KiB",
         "insns", "sim (us)", "GEMM/cyc");
  struct q8nn_vta_stats total;
  memset(&total, 0, sizeof(total));
  double sim_total = 0;
  for (int i = 0; i < 4; i++) {
    CHECK(q8nn_vta_reset_stats(vta));
    const double start = now_seconds();
    CHECK(q8nn_run_operator(ops[i], NULL));
    const double sim = now_seconds() - start;
    struct q8nn_vta_stats s;
    CHECK(q8nn_vta_get_stats(vta, &s));
    const uint64_t dram = s.inp_load_nbytes + s.wgt_load_nbytes + s.acc_load_nbytes + s.uop_load_nbytes +
                          s.out_store_nbytes;
    printf("  %-24s %10llu %10llu %9llu %10.1f %10llu %10.1f %8.3f\n", names[i], (unsigned long long) s.cycles,
           (unsigned long long) s.gemm_counter, (unsigned long long) s.alu_counter, (double) dram / 1024.0,
           (unsigned long long) s.instructions, sim * 1e6, (double) s.gemm_counter / (double) (s.cycles ? s.cycles : 1));
    total.cycles += s.cycles, total.gemm_counter += s.gemm_counter, total.alu_counter += s.alu_counter;
    total.instructions += s.instructions;
    sim_total += sim;
  }
  printf("  %-24s %10llu %10llu %9llu %10s %10llu %10.1f   (at 100 MHz: %.2f ms)\n", "block total",
         (unsigned long long) total.cycles, (unsigned long long) total.gemm_counter,
         (unsigned long long) total.alu_counter, "", (unsigned long long) total.instructions, sim_total * 1e6,
         (double) total.cycles / 1e5);
  sum->cycles = total.cycles, sum->alu = total.alu_counter, sum->gemm = total.gemm_counter;
  distance(names[0], v1, t1, h * w * e, sum);
  distance(names[1], v2, t2, h * w * e, sum);
  distance(names[2], v3, t3, h * w * c, sum);
  distance(names[3], vy, y, h * w * c, sum);
  /* exact: every byte TFLite's; 16-bit: within 1 LSB */
  const int ok = exact ? sum->max == 0 : sum->max <= 1;
  printf("VTA check: %s (%s)\n", ok ? "passed" : "FAILED",
         exact ? "exact requantization: byte for byte TFLite" : "16-bit requantization: within 1 LSB of TFLite");
  for (int i = 0; i < 4; i++) q8nn_delete_operator(ops[i]);
  q8nn_delete_backend(vta);
  free(v1), free(v2), free(v3), free(vy);
  return !ok;
}

int main(int argc, char** argv) {
  size_t size = 56, threads = 1;
  int runs = 20, vta = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--no-vta") == 0) vta = 0;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--size") == 0) size = (size_t) atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--threads") == 0) threads = (size_t) atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--runs") == 0) runs = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--seed") == 0) rng_state = (uint64_t) strtoull(argv[i + 1], NULL, 0) | 1;
  }
  const size_t h = size, w = size, c = 24, e = 6 * 24;
  CHECK(q8nn_initialize());
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : NULL;

  int8_t* x = malloc(h * w * c);
  int8_t* w_expand = malloc(e * c);
  int8_t* w_dw = malloc(9 * e);
  int8_t* w_project = malloc(c * e);
  int32_t* b_expand = malloc(e * sizeof(int32_t));
  int32_t* b_dw = malloc(e * sizeof(int32_t));
  int32_t* b_project = malloc(c * sizeof(int32_t));
  fill_s8(x, h * w * c);
  fill_s8(w_expand, e * c);
  fill_s8(w_dw, 9 * e);
  fill_s8(w_project, c * e);
  for (size_t i = 0; i < e; i++) b_expand[i] = (int32_t) (rnd() % 20001) - 10000;
  for (size_t i = 0; i < e; i++) b_dw[i] = (int32_t) (rnd() % 20001) - 10000;
  for (size_t i = 0; i < c; i++) b_project[i] = (int32_t) (rnd() % 20001) - 10000;

  struct layer_quant q_expand, q_dw, q_project;
  const float x_scale = 0.05f;
  const int32_t x_zp = 3;
  make_quant(&q_expand, e, x_scale, x_zp, c, 1);
  make_quant(&q_dw, e, q_expand.out_scale, q_expand.out_zp, 9, 1);
  make_quant(&q_project, c, q_dw.out_scale, q_dw.out_zp, e, 0);

  int8_t* t1 = malloc(h * w * e);
  int8_t* t2 = malloc(h * w * e);
  int8_t* t3 = malloc(h * w * c);
  int8_t* y = malloc(h * w * c);

  /* ---- q8nn operators ---- */
  q8nn_operator_t expand = NULL, dw = NULL, project = NULL, add = NULL;
  struct q8nn_convolution2d_desc d1 = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, c, e};
  struct q8nn_conv_quantization cq = conv_quant(&q_expand);
  CHECK(q8nn_create_convolution2d_nhwc_s8(&d1, &cq, w_expand, b_expand, 0, &expand));
  struct q8nn_depthwise_convolution2d_desc d2 = {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, e, 1};
  cq = conv_quant(&q_dw);
  CHECK(q8nn_create_depthwise_convolution2d_nhwc_s8(&d2, &cq, w_dw, b_dw, 0, &dw));
  struct q8nn_convolution2d_desc d3 = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, e, c};
  cq = conv_quant(&q_project);
  CHECK(q8nn_create_convolution2d_nhwc_s8(&d3, &cq, w_project, b_project, 0, &project));
  struct q8nn_add_quantization aq = {q_project.out_zp, q_project.out_scale, x_zp, x_scale, 0, 0.0f, -128, 127, NULL};
  aq.output_scale = (q_project.out_scale > x_scale ? q_project.out_scale : x_scale) * 1.5f;
  CHECK(q8nn_create_add_nd_s8(&aq, 0, &add));

  CHECK(q8nn_setup_convolution2d_nhwc_s8(expand, 1, h, w, x, c, t1, e, NULL, NULL));
  CHECK(q8nn_setup_depthwise_convolution2d_nhwc_s8(dw, 1, h, w, t1, e, t2, e, NULL, NULL));
  CHECK(q8nn_setup_convolution2d_nhwc_s8(project, 1, h, w, t2, e, t3, c, NULL, NULL));
  const size_t shape[4] = {1, h, w, c};
  CHECK(q8nn_setup_add_nd_s8(add, 4, shape, 4, shape, t3, x, y));

  printf("q8nn %s: MobileNetV2 inverted-residual block %zux%zux%zu, expansion 6, %zu thread(s)\n",
         q8nn_version_string(), h, w, c, threads);
  const double t_expand = time_op(expand, pool, runs);
  const double t_dw = time_op(dw, pool, runs);
  const double t_project = time_op(project, pool, runs);
  const double t_add = time_op(add, pool, runs);

  /* ---- reference ---- */
  int8_t* r1 = malloc(h * w * e);
  int8_t* r2 = malloc(h * w * e);
  int8_t* r3 = malloc(h * w * c);
  int8_t* ry = malloc(h * w * c);
  struct ref_conv_params p = ref_params(&q_expand, h, w, c, e, 1, 0);
  ref_conv2d(&p, x, w_expand, b_expand, r1);
  p = ref_params(&q_dw, h, w, e, 1, 3, 1);
  p.out_pixel_stride = e;
  ref_depthwise(&p, r1, w_dw, b_dw, r2);
  p = ref_params(&q_project, h, w, e, c, 1, 0);
  ref_conv2d(&p, r2, w_project, b_project, r3);
  struct ref_add_params rp;
  if (!ref_add_params_from_scales(aq.a_scale, aq.a_zero_point, aq.b_scale, aq.b_zero_point, aq.output_scale,
                                  aq.output_zero_point, aq.output_min, aq.output_max, &rp)) {
    fprintf(stderr, "add scales out of range\n");
    return 1;
  }
  ref_add(&rp, 4, shape, r3, 4, shape, x, ry);

  const double macs_expand = (double) h * w * c * e, macs_dw = (double) h * w * e * 9, macs_project = macs_expand;
  int bad = 0;
  bad |= compare("expand", t1, r1, h * w * e);
  bad |= compare("depthwise", t2, r2, h * w * e);
  bad |= compare("project", t3, r3, h * w * c);
  bad |= compare("add", y, ry, h * w * c);
  printf("  %-26s %10s %10s  %s\n", "operator", "time (us)", "GMAC/s", "kernel");
  printf("  %-26s %10.1f %10.2f  %s\n", "1x1 expand + ReLU6", t_expand * 1e6, macs_expand / t_expand * 1e-9,
         q8nn_operator_kernel_name(expand));
  printf("  %-26s %10.1f %10.2f  %s\n", "3x3 depthwise + ReLU6", t_dw * 1e6, macs_dw / t_dw * 1e-9,
         q8nn_operator_kernel_name(dw));
  printf("  %-26s %10.1f %10.2f  %s\n", "1x1 project", t_project * 1e6, macs_project / t_project * 1e-9,
         q8nn_operator_kernel_name(project));
  printf("  %-26s %10.1f %10s  %s\n", "residual add", t_add * 1e6, "-", q8nn_operator_kernel_name(add));
  printf("  %-26s %10.1f\n", "block total", (t_expand + t_dw + t_project + t_add) * 1e6);
  size_t distinct = 0;
  int seen[256] = {0};
  for (size_t i = 0; i < h * w * c; i++) distinct += !seen[(uint8_t) y[i]]++;
  printf("reference check: %s (every output byte of each operator compared with tests/reference; "
         "%zu distinct values in the block output)\n", bad ? "FAILED" : "passed", distinct);

  if (vta) {
    struct vta_summary s[2];
    const uint32_t modes[2] = {q8nn_vta_requant_exact, q8nn_vta_requant_16bit};
    for (int m = 0; m < 2; m++) {
      bad |= run_on_vta(&d1, &q_expand, w_expand, b_expand, &d2, &q_dw, w_dw, b_dw, &d3, &q_project, w_project,
                        b_project, &aq, x, h, w, c, e, t1, t2, t3, y, modes[m], &s[m]);
    }
    printf("VTA requantization modes, whole block:\n");
    printf("  %-8s %10s %10s %10s %26s\n", "mode", "cycles", "ALU uops", "GEMM uops", "bytes differing from TFLite");
    for (int m = 0; m < 2; m++) {
      printf("  %-8s %10llu %10llu %10llu %12zu of %zu (max %d)\n", m == 0 ? "exact" : "16-bit",
             (unsigned long long) s[m].cycles, (unsigned long long) s[m].alu, (unsigned long long) s[m].gemm,
             s[m].differ, s[m].outputs, s[m].max);
    }
    printf("  exact costs %.2fx the cycles of 16-bit for 0 differing bytes\n",
           (double) s[0].cycles / (double) (s[1].cycles ? s[1].cycles : 1));
  }

  q8nn_delete_operator(expand);
  q8nn_delete_operator(dw);
  q8nn_delete_operator(project);
  q8nn_delete_operator(add);
  if (pool != NULL) pthreadpool_destroy(pool);
  free(x), free(w_expand), free(w_dw), free(w_project), free(b_expand), free(b_dw), free(b_project);
  free(t1), free(t2), free(t3), free(y), free(r1), free(r2), free(r3), free(ry);
  free(q_expand.kernel_scale), free(q_expand.multiplier), free(q_expand.shift);
  free(q_dw.kernel_scale), free(q_dw.multiplier), free(q_dw.shift);
  free(q_project.kernel_scale), free(q_project.multiplier), free(q_project.shift);
  return bad;
}
