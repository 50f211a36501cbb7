/*
 * MobileNetV2 (bench/models/mobilenet_v2.txt: 52 convolutions + 10 residual adds) on the VTA
 * model through q8nn's VTA backend in both requantization modes: exact (the default; one and two
 * virtual threads) and 16-bit (two virtual threads). Per layer: simulated cycles, ALU micro-ops,
 * GEMM utilization (GEMM micro-ops per cycle), DRAM bytes moved (INP + WGT + ACC + UOP loads +
 * OUT stores) and instructions of the exact program, the wall time of one run (host re-layout +
 * simulation), and the distance of each mode's outputs from the CPU's (TFLite-exact) outputs.
 * Exits non-zero if an exact-mode output differs at all or a 16-bit one by more than 1.
 *
 *   bench_vta_mobilenet [--model path] [--markdown]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <q8nn.h>

#include "accel/vta/vta-backend.h"

#ifndef Q8NN_SOURCE_DIR
#define Q8NN_SOURCE_DIR "."
#endif

enum layer_kind { layer_conv, layer_dw, layer_add };
struct layer {
  enum layer_kind kind;
  uint32_t h, w, cin, cout, k, stride;
  int relu6;
};

#define MAX_LAYERS 128
static struct layer layers[MAX_LAYERS];
static size_t layer_count;

static void push(enum layer_kind kind, uint32_t h, uint32_t w, uint32_t cin, uint32_t cout, uint32_t k,
                 uint32_t stride, int relu6) {
  if (layer_count < MAX_LAYERS) layers[layer_count++] = (struct layer){kind, h, w, cin, cout, k, stride, relu6};
}

/* The table format of bench/models: input H W C; conv C K S; bottleneck t c n s. SAME padding. */
static int load_model(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  char line[256];
  uint32_t h = 0, w = 0, c = 0;
  while (fgets(line, sizeof(line), f) != NULL) {
    unsigned a, b, d, e;
    if (sscanf(line, "input %u %u %u", &a, &b, &d) == 3) {
      h = a, w = b, c = d;
    } else if (sscanf(line, "conv %u %u %u", &a, &b, &d) == 3) {
      push(layer_conv, h, w, c, a, b, d, 1);
      h = (h + d - 1) / d, w = (w + d - 1) / d, c = a;
    } else if (sscanf(line, "bottleneck %u %u %u %u", &a, &b, &d, &e) == 4) {
      for (unsigned i = 0; i < d; i++) {
        const uint32_t stride = i == 0 ? e : 1, in_c = c, hidden = c * a;
        if (a > 1) push(layer_conv, h, w, in_c, hidden, 1, 1, 1);
        push(layer_dw, h, w, hidden, hidden, 3, stride, 1);
        h = (h + stride - 1) / stride, w = (w + stride - 1) / stride;
        push(layer_conv, h, w, hidden, b, 1, 1, 0);
        if (stride == 1 && in_c == b) push(layer_add, h, w, b, b, 0, 1, 0);
        c = b;
      }
    }
  }
  fclose(f);
  return layer_count != 0;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t rnd(void) {
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return (uint32_t) ((rng * UINT64_C(2685821657736338717)) >> 32);
}
static float rnd_float(float lo, float hi) { return lo + (hi - lo) * (float) (rnd() >> 8) / (float) (1 << 24); }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

struct result {
  struct q8nn_vta_stats s;
  struct q8nn_vta_run_info info; /* busy cycles per module */
  double wall;
  int on_vta;
  size_t outputs, differ; /* VTA outputs, and how many differ from the CPU's (TFLite-exact) */
  int max_diff;
  double stock_steps[4]; /* exact conv: ALU steps per pixel row with MUL, estimated without; digits of Mh', Ml' */
  char form[24];          /* exact mode: the requantization form the layer runs (docs/vta-backend.md) */
};

static int popcount64(uint64_t x) {
  int n = 0;
  for (; x != 0; x &= x - 1) n++;
  return n;
}

/* Stock HLS ALU (MIN, MAX, ADD, SHR with |shift| <= 15; no MUL) estimate for the exact conv stage
   (docs/vta-backend.md "Stock hardware"): each of its 4 MULs by a per-channel constant becomes a
   shift-and-add over the constant's binary digits, with M split into nonnegative 15-bit limbs
   (Mh' = M >> 15, Ml' = M mod 2^15; no negation exists on the ALU, so no negative digits): one copy,
   then per digit a per-lane SHR by the gap to the next digit (a constant row) and an ADD, so
   2 * D + 1 steps with D the largest digit count over the layer's channels (lanes with fewer
   digits split one: 2^k = 2^(k-1) + 2^(k-1)). When every channel's |t| < 2^15, th is in
   {-1, 0, 1} and th * K is SHR, MAX, MIN: 3 steps. The 5 shifts by 16 or 31 and an rs > 15 are
   split in two. The linear form (docs/vta-backend.md "Exact requantization, linear form") the
   same way: each limb multiplier m_i of M' (nonnegative w-bit limbs for the estimate) and the
   sign step's dl become 2 * D + 1 steps; shifts by w or q above 15 and the sign step's shift by
   31 split in two. */
static void stock_estimate_linear(const struct q8nn_vta_op_state* vs, uint32_t cout, double out[4]) {
  const struct q8nn_vta_conv_plan* p = &vs->plan;
  const double s = q8nn_vta_linear_alu_steps(p->limbs, p->sign_needed, p->final_clamp);
  int digits[Q8NN_VTA_LINEAR_MAX_LIMBS] = {0, 0, 0, 0}, d_dl = 0, q_max = 0;
  const int w = p->limbs > 1 ? p->exact_w : 31;
  for (uint32_t oc = 0; oc < cout; oc++) {
    const struct q8nn_vta_conv_linear* l = &vs->exact[oc].lin;
    const int32_t m[Q8NN_VTA_LINEAR_MAX_LIMBS] = {l->m0, l->m1, l->m2, l->m3};
    int64_t mp = 0; /* M' from its limbs */
    for (int i = (int) p->limbs - 1; i >= 0; i--) mp = mp * (INT64_C(1) << w) + m[i];
    for (uint32_t i = 0; i < p->limbs; i++) {
      const uint64_t limb = i + 1 < p->limbs ? ((uint64_t) mp >> (i * w)) & ((UINT64_C(1) << w) - 1) : (uint64_t) mp >> (i * w);
      if (popcount64(limb) > digits[i]) digits[i] = popcount64(limb);
    }
    if (popcount64((uint64_t) (l->dl < 0 ? -(int64_t) l->dl : l->dl)) > d_dl) d_dl = popcount64((uint64_t) (l->dl < 0 ? -(int64_t) l->dl : l->dl));
    if (l->q > q_max) q_max = l->q;
  }
  double stock = s + (w > 15 && p->limbs > 1 ? p->limbs - 1 : 0) + (q_max > 15) + (p->sign_needed ? 2 * d_dl + 1 : 0);
  for (uint32_t i = 0; i < p->limbs; i++) stock += 2 * digits[i];
  out[0] = s, out[1] = stock, out[2] = digits[p->limbs - 1], out[3] = digits[0];
}

static void stock_estimate(const struct q8nn_vta_op_state* vs, uint32_t cout, double out[4]) {
  const struct q8nn_vta_conv_plan* p = &vs->plan;
  if (p->linear) {
    stock_estimate_linear(vs, cout, out);
    return;
  }
  const double s = 19 + (p->clamp_needed ? 2 : 0) + p->ls_needed + (p->sign_needed ? 3 + p->sign_mixed : 0) +
                   (p->final_clamp ? 2 : 0);
  int dh = 0, dl = 0, rs = 0;
  int64_t tmax = 0;
  for (uint32_t oc = 0; oc < cout; oc++) {
    const struct q8nn_vta_conv_exact* r = &vs->exact[oc];
    const int64_t m = (int64_t) r->mh * 65536 + r->ml;
    if (m <= 0) continue;
    if (popcount64((uint64_t) m >> 15) > dh) dh = popcount64((uint64_t) m >> 15);
    if (popcount64((uint64_t) m & 0x7FFF) > dl) dl = popcount64((uint64_t) m & 0x7FFF);
    if (r->t_max > tmax) tmax = r->t_max;
    if (r->rs > rs) rs = r->rs;
  }
  const bool small = tmax < (INT64_C(1) << 15);
  const double stock = s - 4 + (2 * dh + 1) + (2 * dl + 1) + (small ? 3 : 2 * dl + 1) + (small ? 3 : 2 * dh + 1) + 5 +
                       (rs > 15) + (p->sign_mixed ? 1 : 0);
  out[0] = s, out[1] = stock, out[2] = dh, out[3] = dl;
}

/* One layer's operator from its parameters; backend NULL = CPU. */
static enum q8nn_status make_op(const struct layer* l, q8nn_backend_t backend, const struct q8nn_conv_quantization* q,
                                const int8_t* kernel, const int32_t* bias, const int8_t* x, const int8_t* x2,
                                int8_t* y, q8nn_operator_t* op_out) {
  const uint32_t pad = l->k / 2;
  q8nn_operator_t op = NULL;
  enum q8nn_status st;
  if (l->kind == layer_add) {
    const struct q8nn_add_quantization aq = {3, 0.05f, -2, 0.04f, 1, 0.07f, -128, 127, NULL};
    st = q8nn_create_add_nd_s8(&aq, 0, &op);
  } else if (l->kind == layer_dw) {
    const struct q8nn_depthwise_convolution2d_desc d = {pad, pad, pad, pad, l->k, l->k, l->stride, l->stride,
                                                        1, 1, l->cin, 1};
    st = q8nn_create_depthwise_convolution2d_nhwc_s8(&d, q, kernel, bias, 0, &op);
  } else {
    /* TFLite SAME padding */
    uint32_t pb, pa;
    q8nn_compute_same_padding(l->h, l->k, l->stride, 1, &pb, &pa);
    const struct q8nn_convolution2d_desc d = {pb, pa, pa, pb, l->k, l->k, l->stride, l->stride, 1, 1, 1,
                                              l->cin, l->cout};
    st = q8nn_create_convolution2d_nhwc_s8(&d, q, kernel, bias, 0, &op);
  }
  if (st == q8nn_status_success && backend != NULL) {
    st = q8nn_operator_set_backend(op, backend);
    /* refused: the operator runs on the CPU, reported as (cpu) */
    if (st == q8nn_status_unsupported_parameter) st = q8nn_status_success;
  }
  if (st == q8nn_status_success) {
    if (l->kind == layer_add) {
      const size_t shape[4] = {1, l->h, l->w, l->cin};
      st = q8nn_setup_add_nd_s8(op, 4, shape, 4, shape, x, x2, y);
    } else if (l->kind == layer_dw) {
      st = q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, l->h, l->w, x, l->cin, y, l->cout, NULL, NULL);
    } else {
      st = q8nn_setup_convolution2d_nhwc_s8(op, 1, l->h, l->w, x, l->cin, y, l->cout, NULL, NULL);
    }
  }
  if (st != q8nn_status_success) {
    q8nn_delete_operator(op);
    return st;
  }
  *op_out = op;
  return st;
}

static int run_layer(q8nn_backend_t vta, const struct layer* l, struct result* r) {
  const size_t in_size = (size_t) l->h * l->w * l->cin;
  const uint32_t oh = (l->h + l->stride - 1) / l->stride, ow = (l->w + l->stride - 1) / l->stride;
  const size_t out_size = (size_t) oh * ow * l->cout;
  int8_t* x = malloc(in_size);
  int8_t* x2 = malloc(in_size);
  int8_t* y = malloc(out_size);
  int8_t* y_cpu = malloc(out_size);
  for (size_t i = 0; i < in_size; i++) x[i] = (int8_t) (rnd() >> 24), x2[i] = (int8_t) (rnd() >> 24);
  int8_t* kernel = NULL;
  int32_t* bias = NULL;
  float* ks = NULL;
  struct q8nn_conv_quantization q;
  memset(&q, 0, sizeof(q));
  if (l->kind != layer_add) {
    const size_t per = l->kind == layer_dw ? 1 : l->cin;
    const size_t ksize = (size_t) l->cout * l->k * l->k * per;
    kernel = malloc(ksize);
    bias = malloc(l->cout * sizeof(int32_t));
    ks = malloc(l->cout * sizeof(float));
    for (size_t i = 0; i < ksize; i++) kernel[i] = (int8_t) (rnd() >> 24);
    for (size_t i = 0; i < l->cout; i++) bias[i] = (int32_t) (rnd() % 20001) - 10000, ks[i] = rnd_float(0.002f, 0.02f);
    q.input_zero_point = -128 + (int32_t) (rnd() % 8);
    q.input_scale = 0.05f;
    q.kernel_scale = ks;
    q.output_scale = 0.05f * 0.01f * 74.0f * (float) sqrt((double) (per * l->k * l->k)) / 8.0f;
    q.output_zero_point = l->relu6 ? -128 : 0;
    q.output_min = -128;
    q.output_max = 127;
  }
  q8nn_operator_t op = NULL, cpu = NULL;
  enum q8nn_status st = make_op(l, vta, &q, kernel, bias, x, x2, y, &op);
  if (st == q8nn_status_success) st = make_op(l, NULL, &q, kernel, bias, x, x2, y_cpu, &cpu);
  if (st == q8nn_status_success) {
    const struct q8nn_vta_op_state* vs = q8nn_vta_op_state_of(op);
    r->on_vta = vs != NULL && !vs->on_cpu;
    memset(r->stock_steps, 0, sizeof(r->stock_steps));
    if (r->on_vta && l->kind != layer_add && vs->plan.exact && vs->exact != NULL) stock_estimate(vs, l->cout, r->stock_steps);
    snprintf(r->form, sizeof(r->form), "-");
    if (r->on_vta && l->kind == layer_add && vs->add_exact.is_short) snprintf(r->form, sizeof(r->form), "short");
    else if (r->on_vta && l->kind == layer_add) snprintf(r->form, sizeof(r->form), "limbs");
    else if (r->on_vta && vs->plan.exact && vs->plan.linear) {
      snprintf(r->form, sizeof(r->form), "linear %u%s", vs->plan.limbs, vs->plan.sign_needed ? " +sign" : "");
    } else if (r->on_vta && vs->plan.exact) {
      snprintf(r->form, sizeof(r->form), "limbs");
    }
    q8nn_vta_reset_stats(vta);
    const double t0 = now();
    st = q8nn_run_operator(op, NULL);
    r->wall = now() - t0;
    q8nn_vta_get_stats(vta, &r->s);
    const struct q8nn_vta_run_info* info = q8nn_vta_last_run(vta);
    if (info != NULL) r->info = *info;
  }
  if (st == q8nn_status_success) st = q8nn_run_operator(cpu, NULL);
  if (st == q8nn_status_success) {
    r->outputs = out_size, r->differ = 0, r->max_diff = 0;
    for (size_t i = 0; i < out_size; i++) {
      const int d = abs((int) y[i] - (int) y_cpu[i]);
      r->differ += d != 0;
      if (d > r->max_diff) r->max_diff = d;
    }
  }
  if (st != q8nn_status_success) fprintf(stderr, "layer failed: %s\n", q8nn_status_string(st));
  q8nn_delete_operator(op);
  q8nn_delete_operator(cpu);
  free(x), free(x2), free(y), free(y_cpu), free(kernel), free(bias), free(ks);
  return st == q8nn_status_success;
}

/* Per layer, the cycle bound of its program: max(GEMM micro-ops, ALU cycles = 2 per ALU micro-op,
   DRAM bytes / 8 B per cycle), and the compute-module floor GEMM + ALU
   cycles (both run on the compute module, one after the other, spec §4.1). The gap between the
   simulated cycles and the floor splits into: compute busy with other work (ACC / UOP loads, the
   cycle of overhead per instruction) and compute idle (waiting for a dependency token: a LOAD of
   INP/WGT or a STORE that has not finished). */
static void print_bounds(const struct result* exact, const struct result* bit16) {
  printf("\n## Cycle bound per layer (2 virtual threads)\n\n");
  printf("| # | layer | mode | cycles | GEMM uops | ALU cycles | DRAM cycles | bound | cycles/bound | GEMM+ALU | "
         "cycles/(GEMM+ALU) | compute other | compute idle | insns | UOP KiB | ACC KiB |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  double tot[2][5];
  memset(tot, 0, sizeof(tot));
  double worst[2][2] = {{0, 0}, {0, 0}};
  for (size_t i = 0; i < layer_count; i++) {
    const struct layer* l = &layers[i];
    for (int m = 0; m < 2; m++) {
      const struct result* r = m == 0 ? &exact[i] : &bit16[i];
      const double gemm = (double) r->s.gemm_counter, alu = 2.0 * (double) r->s.alu_counter;
      const double bytes = (double) (r->s.inp_load_nbytes + r->s.wgt_load_nbytes + r->s.acc_load_nbytes +
                                     r->s.uop_load_nbytes + r->s.out_store_nbytes);
      const double dram = bytes / 8.0;
      double bound = gemm > alu ? gemm : alu;
      if (dram > bound) bound = dram;
      const double floor = gemm + alu > dram ? gemm + alu : dram;
      const double cycles = (double) r->s.cycles, busy = (double) r->info.busy_cycles[1];
      char name[32];
      snprintf(name, sizeof(name), "%s %ux%u/%u", l->kind == layer_add ? "add" : l->kind == layer_dw ? "dw" : "conv",
               l->k, l->k, l->stride);
      if (l->kind == layer_add) snprintf(name, sizeof(name), "add");
      printf("| %zu | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.0f | %.2f | %.0f | %.0f | %llu | %.1f | %.1f |\n",
             i, name, m == 0 ? "exact" : "16-bit", cycles, gemm, alu, dram, bound, cycles / bound, gemm + alu,
             cycles / floor, busy - gemm - alu, cycles - busy, (unsigned long long) r->s.instructions,
             (double) r->s.uop_load_nbytes / 1024.0, (double) r->s.acc_load_nbytes / 1024.0);
      tot[m][0] += cycles, tot[m][1] += bound, tot[m][2] += floor, tot[m][3] += busy - gemm - alu;
      tot[m][4] += cycles - busy;
      if (cycles / bound > worst[m][0]) worst[m][0] = cycles / bound;
      if (cycles / floor > worst[m][1]) worst[m][1] = cycles / floor;
    }
  }
  for (int m = 0; m < 2; m++) {
    printf("\n%s: cycles %.0f, sum of bounds %.0f (%.2fx; worst layer %.2fx), sum of GEMM+ALU floors %.0f (%.2fx; worst "
           "layer %.2fx); compute busy with other work %.0f, compute idle %.0f\n",
           m == 0 ? "exact" : "16-bit", tot[m][0], tot[m][1], tot[m][0] / tot[m][1], worst[m][0], tot[m][2],
           tot[m][0] / tot[m][2], worst[m][1], tot[m][3], tot[m][4]);
  }
}

int main(int argc, char** argv) {
  const char* model = Q8NN_SOURCE_DIR "/bench/models/mobilenet_v2.txt";
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--model") == 0) model = argv[i + 1];
  }
  if (!load_model(model)) {
    fprintf(stderr, "cannot read the layer table %s\n", model);
    return 1;
  }
  if (q8nn_initialize() != q8nn_status_success) return 1;
  /* runs: exact 1 vt, exact 2 vt, 16-bit 2 vt */
  /* exact 1 vt, exact 2 vt, 16-bit 2 vt, exact with the limb form only 2 vt */
  static struct result res[4][MAX_LAYERS];
  for (int v = 0; v < 4; v++) {
    struct q8nn_vta_config c;
    memset(&c, 0, sizeof(c));
    c.virtual_threads = v == 0 ? 1 : 2;
    c.requantization = v == 2 ? q8nn_vta_requant_16bit : v == 3 ? q8nn_vta_requant_exact_limbs : q8nn_vta_requant_exact;
    q8nn_backend_t vta = NULL;
    if (q8nn_create_vta_backend(&c, &vta) != q8nn_status_success) return 1;
    rng = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < layer_count; i++) {
      if (!run_layer(vta, &layers[i], &res[v][i])) return 1;
    }
    q8nn_delete_backend(vta);
  }
  printf("VTA model, default config 1x16_i8w8a32_15_15_18_17 (8 B/cycle DRAM, 32-cycle latency), MobileNetV2 %zu layers\n\n",
         layer_count);
  size_t on_vta[3] = {0, 0, 0};
  for (int v = 0; v < 3; v++) {
    for (size_t i = 0; i < layer_count; i++) on_vta[v] += res[v][i].on_vta != 0;
  }
  printf("Exact = q8nn_vta_requant_exact (default, byte for byte TFLite); 16-bit = q8nn_vta_requant_16bit. "
         "Layers on VTA: exact %zu (1 vt) / %zu (2 vt), 16-bit %zu of %zu; (cpu) marks one left on the CPU.\n\n",
         on_vta[0], on_vta[1], on_vta[2], layer_count);
  printf("| # | layer | in HxWxC | out C | MMAC | exact cycles 1 vt | exact cycles 2 vt | 16-bit cycles 2 vt | exact/16-bit | "
         "ALU uops exact | ALU uops 16-bit | GEMM util exact 2 vt | MACs issued/useful | DRAM KiB | insns | sim ms | "
         "differ exact | differ 16-bit | max 16-bit | exact form |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  double tot[3] = {0, 0, 0}, alu[2] = {0, 0}, gemm = 0, bytes = 0, wall = 0, macs = 0, outputs = 0;
  double differ[2] = {0, 0};
  int max_diff[2] = {0, 0};
  for (size_t i = 0; i < layer_count; i++) {
    const struct layer* l = &layers[i];
    const struct result* a = &res[0][i];
    const struct result* b = &res[1][i];
    const struct result* h = &res[2][i];
    const uint32_t oh = (l->h + l->stride - 1) / l->stride, ow = (l->w + l->stride - 1) / l->stride;
    const double mac = l->kind == layer_add ? 0.0
                       : (double) oh * ow * l->cout * l->k * l->k * (l->kind == layer_dw ? 1 : l->cin);
    const double dram = (double) (b->s.inp_load_nbytes + b->s.wgt_load_nbytes + b->s.acc_load_nbytes +
                                  b->s.uop_load_nbytes + b->s.out_store_nbytes);
    char name[32];
    snprintf(name, sizeof(name), "%s %ux%u/%u", l->kind == layer_add ? "add" : l->kind == layer_dw ? "dw" : "conv",
             l->k, l->k, l->stride);
    if (l->kind == layer_add) snprintf(name, sizeof(name), "add");
    /* a GEMM micro-op is BATCH x BLOCK_IN x BLOCK_OUT = 256 MACs on the default configuration */
    char waste[16] = "-";
    if (mac > 0) snprintf(waste, sizeof(waste), "%.2f", (double) b->s.gemm_counter * 256.0 / mac);
    printf("| %zu | %s%s | %ux%ux%u | %u | %.2f | %llu | %llu | %llu | %.2fx | %llu | %llu | %.3f | %s | %.1f | %llu | "
           "%.2f | %zu | %.2f%% | %d | %s |\n", i, name, b->on_vta ? "" : " (cpu)", l->h, l->w, l->cin, l->cout, mac * 1e-6,
           (unsigned long long) a->s.cycles, (unsigned long long) b->s.cycles, (unsigned long long) h->s.cycles,
           (double) b->s.cycles / (double) (h->s.cycles ? h->s.cycles : 1), (unsigned long long) b->s.alu_counter,
           (unsigned long long) h->s.alu_counter, (double) b->s.gemm_counter / (double) (b->s.cycles ? b->s.cycles : 1),
           waste, dram / 1024.0, (unsigned long long) b->s.instructions, b->wall * 1e3, b->differ,
           100.0 * (double) h->differ / (double) h->outputs, h->max_diff, b->form);
    tot[0] += (double) a->s.cycles, tot[1] += (double) b->s.cycles, tot[2] += (double) h->s.cycles;
    alu[0] += (double) b->s.alu_counter, alu[1] += (double) h->s.alu_counter;
    gemm += (double) b->s.gemm_counter, bytes += dram, wall += b->wall, macs += mac;
    outputs += (double) b->outputs, differ[0] += (double) b->differ, differ[1] += (double) h->differ;
    for (int m = 0; m < 2; m++) {
      const int d = m == 0 ? b->max_diff : h->max_diff;
      if (d > max_diff[m]) max_diff[m] = d;
    }
  }
  printf("| | **total** | | | %.1f | %.0f | %.0f | %.0f | %.2fx | %.0f | %.0f | %.3f | %.2f | %.0f | | %.1f | %.0f | %.2f%% | "
         "%d | |\n", macs * 1e-6, tot[0], tot[1], tot[2], tot[1] / tot[2], alu[0], alu[1], gemm / tot[1],
         gemm * 256.0 / macs, bytes / 1024.0,
         wall * 1e3, differ[0], 100.0 * differ[1] / outputs, max_diff[1]);
  printf("\nGEMM micro-ops (exact) %.0f (256 MACs each; %.0f MMAC issued incl. channel padding), %.2f GMAC of the model\n",
         gemm, gemm * 256e-6, macs * 1e-9);
  printf("exact mode vs CPU (TFLite-exact): %.0f of %.0f outputs differ, max difference %d LSB\n", differ[0], outputs,
         max_diff[0]);
  printf("16-bit mode vs CPU (TFLite-exact): %.0f of %.0f outputs differ (%.3f%%), max difference %d LSB\n", differ[1],
         outputs, 100.0 * differ[1] / outputs, max_diff[1]);
  {
    double cycles = 0, alu_uops = 0, wrong = 0;
    for (size_t i = 0; i < layer_count; i++) {
      cycles += (double) res[3][i].s.cycles, alu_uops += (double) res[3][i].s.alu_counter;
      wrong += (double) res[3][i].differ;
    }
    printf("exact, limb form only (q8nn_vta_requant_exact_limbs), 2 vt: cycles %.0f (%.2fx the 16-bit mode's), ALU "
           "micro-ops %.0f, %.0f outputs differ from the CPU\n", cycles, cycles / tot[2], alu_uops, wrong);
  }
  print_bounds(res[1], res[2]);
  /* stock HLS ALU estimate over the convolutions (exact, 2 virtual threads): the extra ALU steps
     cost 2 cycles per pixel row each on the ALU-bound compute module */
  double conv_cycles = 0, stock_cycles = 0, alu_mul = 0, alu_stock = 0, lo = 1e9, hi = 0, dmin = 99, dmax = 0;
  for (size_t i = 0; i < layer_count; i++) {
    const struct result* r = &res[1][i];
    if (r->stock_steps[0] <= 0) continue;
    const double rows = (double) r->s.alu_counter / r->stock_steps[0];
    const double extra = 2.0 * rows * (r->stock_steps[1] - r->stock_steps[0]);
    const double ratio = ((double) r->s.cycles + extra) / (double) r->s.cycles;
    conv_cycles += (double) r->s.cycles, stock_cycles += (double) r->s.cycles + extra;
    alu_mul += (double) r->s.alu_counter, alu_stock += rows * r->stock_steps[1];
    for (int k = 2; k < 4; k++) {
      if (r->stock_steps[k] < dmin) dmin = r->stock_steps[k];
      if (r->stock_steps[k] > dmax) dmax = r->stock_steps[k];
    }
    if (ratio < lo) lo = ratio;
    if (ratio > hi) hi = ratio;
  }
  printf("\nStock HLS ALU estimate (no MUL, shifts <= 15), exact convolutions, 2 vt: ALU micro-ops %.0f -> %.0f "
         "(%.2fx), cycles %.0f -> %.0f (%.2fx; per layer %.2f-%.2fx); digits per multiplier limb (layer max) %.0f-%.0f\n",
         alu_mul, alu_stock, alu_stock / alu_mul, conv_cycles, stock_cycles, stock_cycles / conv_cycles, lo, hi, dmin,
         dmax);
  return max_diff[0] == 0 && max_diff[1] <= 1 ? 0 : 1;
}
