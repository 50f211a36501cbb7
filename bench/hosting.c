/*
 * bench_hosting: what a host runtime pays, on MobileNetV2 1.0 at 224x224 (its 52 conv and depthwise
 * layers and 10 adds, seeded random weights, TFLite double rounding):
 *   1. the whole network with uint8 activations against int8, 1 and 2 threads (alternating
 *      passes, medians), on the ISA mask Q8NN_ISA_MASK gives;
 *   2. the same per layer kind, each layer run alone on one thread;
 *   3. setup cost per layer: a re-setup with new pointers (the kept indirection) against a setup
 *      that rebuilds it (a new shape in between), the largest layer of each kind.
 * Usage: bench_hosting [passes]   (default 41; alternating int8 and uint8 passes)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthreadpool.h>
#include <q8nn.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e6 + (double) t.tv_nsec * 1e-3;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*) a, y = *(const double*) b;
  return x < y ? -1 : x > y;
}

static double median(double* v, size_t n) {
  qsort(v, n, sizeof(double), cmp_double);
  return v[n / 2];
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static int8_t rand_s8(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (int8_t) (rng >> 24);
}

#define MAX_OPS 64
struct layer {
  int kind; /* 0 conv 1x1, 1 conv 3x3 (stem), 2 depthwise 3x3, 3 add */
  size_t h, w, cin, cout, stride;
  int in, out, other; /* buffer indices */
};

struct net {
  struct layer layers[MAX_OPS];
  size_t count;
  size_t buffer_bytes;
};

static void build_net(struct net* n) {
  static const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  size_t h = 224, c = 3, k = 0;
  /* buffers: 0..3 rotate; the block input stays in its buffer for the residual */
  n->layers[k++] = (struct layer){1, h, h, 3, 32, 2, 0, 1, -1};
  h = 112, c = 32;
  int cur = 1;
  for (int b = 0; b < 7; b++) {
    for (int r = 0; r < cfg[b][2]; r++) {
      const size_t stride = r == 0 ? (size_t) cfg[b][3] : 1, hidden = c * (size_t) cfg[b][0];
      const size_t co = (size_t) cfg[b][1];
      const int t1 = (cur + 1) % 4, t2 = (cur + 2) % 4, t3 = (cur + 3) % 4;
      int x = cur;
      if (cfg[b][0] != 1) n->layers[k++] = (struct layer){0, h, h, c, hidden, 1, x, t1, -1}, x = t1;
      n->layers[k++] = (struct layer){2, h, h, hidden, hidden, stride, x, t2, -1};
      const size_t ho = (h + 2 - 3) / stride + 1;
      n->layers[k++] = (struct layer){0, ho, ho, hidden, co, 1, t2, t3, -1};
      if (stride == 1 && c == co) {
        n->layers[k++] = (struct layer){3, ho, ho, co, co, 1, t3, t1, cur};
        cur = t1;
      } else {
        cur = t3;
      }
      h = ho, c = co;
    }
  }
  n->layers[k++] = (struct layer){0, h, h, c, 1280, 1, cur, (cur + 1) % 4, -1};
  n->count = k;
  n->buffer_bytes = 112 * 112 * 96 + 64;
}

static q8nn_operator_t create(const struct layer* l, int u8, const int8_t* weights, const int32_t* bias,
                              const float* scales) {
  q8nn_operator_t op = NULL;
  enum q8nn_status s;
  if (l->kind == 3) {
    const struct q8nn_add_quantization q = {-3, 0.05f, 2, 0.06f, 1, 0.08f, -128, 127, NULL};
    const struct q8nn_add_quantization_u8 qu = {125, 0.05f, 130, 0.06f, 129, 0.08f, 0, 255, NULL};
    s = u8 ? q8nn_create_add_nd_u8(&qu, 0, &op) : q8nn_create_add_nd_s8(&q, 0, &op);
  } else if (l->kind == 2) {
    const struct q8nn_depthwise_convolution2d_desc d = {1, 1, 1, 1, 3, 3, (uint32_t) l->stride, (uint32_t) l->stride,
                                                        1, 1, l->cin, 1};
    const struct q8nn_conv_quantization q = {.input_zero_point = -5, .input_scale = 0.05f, .kernel_scale = scales,
                                             .output_zero_point = -128, .output_scale = 0.04f,
                                             .output_min = -128, .output_max = 22};
    const struct q8nn_conv_quantization_u8 qu = {.input_zero_point = 123, .input_scale = 0.05f,
                                                 .kernel_scale = scales, .output_zero_point = 0,
                                                 .output_scale = 0.04f, .output_min = 0, .output_max = 150};
    s = u8 ? q8nn_create_depthwise_convolution2d_nhwc_u8(&d, &qu, weights, bias, 0, &op)
           : q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, weights, bias, 0, &op);
  } else {
    const uint32_t k = l->kind == 1 ? 3 : 1, p = l->kind == 1 ? 1 : 0;
    const struct q8nn_convolution2d_desc d = {p, p, p, p, k, k, (uint32_t) l->stride, (uint32_t) l->stride, 1, 1, 1,
                                              l->cin, l->cout};
    const struct q8nn_conv_quantization q = {.input_zero_point = -5, .input_scale = 0.05f, .kernel_scale = scales,
                                             .output_zero_point = -7, .output_scale = 0.2f,
                                             .output_min = -128, .output_max = 127};
    const struct q8nn_conv_quantization_u8 qu = {.input_zero_point = 123, .input_scale = 0.05f,
                                                 .kernel_scale = scales, .output_zero_point = 121,
                                                 .output_scale = 0.2f, .output_min = 0, .output_max = 255};
    s = u8 ? q8nn_create_convolution2d_nhwc_u8(&d, &qu, weights, bias, 0, &op)
           : q8nn_create_convolution2d_nhwc_s8(&d, &q, weights, bias, 0, &op);
  }
  if (s != q8nn_status_success) {
    fprintf(stderr, "bench_hosting: create failed: %s\n", q8nn_status_string(s));
    exit(1);
  }
  return op;
}

static enum q8nn_status setup(q8nn_operator_t op, const struct layer* l, int u8, size_t h, int8_t* in,
                              int8_t* other, int8_t* out) {
  const size_t w = h;
  if (l->kind == 3) {
    const size_t shape[4] = {1, h, w, l->cin};
    return u8 ? q8nn_setup_add_nd_u8(op, 4, shape, 4, shape, (uint8_t*) in, (uint8_t*) other, (uint8_t*) out)
              : q8nn_setup_add_nd_s8(op, 4, shape, 4, shape, in, other, out);
  }
  if (l->kind == 2) {
    return u8 ? q8nn_setup_depthwise_convolution2d_nhwc_u8(op, 1, h, w, (uint8_t*) in, l->cin, (uint8_t*) out,
                                                           l->cout, NULL, NULL)
              : q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, h, w, in, l->cin, out, l->cout, NULL, NULL);
  }
  return u8 ? q8nn_setup_convolution2d_nhwc_u8(op, 1, h, w, (uint8_t*) in, l->cin, (uint8_t*) out, l->cout, NULL, NULL)
            : q8nn_setup_convolution2d_nhwc_s8(op, 1, h, w, in, l->cin, out, l->cout, NULL, NULL);
}

int main(int argc, char** argv) {
  const int passes = argc > 1 ? atoi(argv[1]) : 41;
  if (q8nn_initialize() != q8nn_status_success) return 1;
  static struct net net;
  build_net(&net);
  int8_t* buffers[2][4];
  for (int f = 0; f < 2; f++) {
    for (int b = 0; b < 4; b++) {
      buffers[f][b] = malloc(net.buffer_bytes);
      for (size_t i = 0; i < net.buffer_bytes; i++) buffers[f][b][i] = rand_s8();
    }
  }
  int8_t* weights = malloc(1280 * 320);
  int32_t* bias = malloc(1280 * sizeof(int32_t));
  float* scales = malloc(1280 * sizeof(float));
  for (size_t i = 0; i < 1280 * 320; i++) weights[i] = rand_s8();
  for (size_t i = 0; i < 1280; i++) bias[i] = rand_s8() * 40, scales[i] = 0.004f + 0.0001f * (float) (i % 13);
  q8nn_operator_t ops[2][MAX_OPS];
  for (int f = 0; f < 2; f++) {
    for (size_t i = 0; i < net.count; i++) {
      const struct layer* l = &net.layers[i];
      ops[f][i] = create(l, f, weights, bias, scales);
      if (setup(ops[f][i], l, f, l->h, buffers[f][l->in], l->other >= 0 ? buffers[f][l->other] : NULL,
                buffers[f][l->out]) != q8nn_status_success) {
        fprintf(stderr, "bench_hosting: setup of layer %zu failed\n", i);
        return 1;
      }
    }
  }
  printf("MobileNetV2 1.0 224x224: %zu operators; ISA %s (active mask 0x%x)\n", net.count,
         q8nn_operator_kernel_name(ops[0][1]), q8nn_get_active_isa());
  printf("\n| threads | int8 pass (us) | uint8 pass (us) | uint8 / int8 time |\n|---:|---:|---:|---:|\n");
  for (size_t threads = 1; threads <= 2; threads++) {
    pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : NULL;
    double* t[2] = {malloc(passes * sizeof(double)), malloc(passes * sizeof(double))};
    for (int p = -3; p < passes; p++) {
      for (int f = 0; f < 2; f++) {
        const double t0 = now_us();
        if (q8nn_run_operators(net.count, ops[f], pool) != q8nn_status_success) return 1;
        if (p >= 0) t[f][p] = now_us() - t0;
      }
    }
    const double s8 = median(t[0], passes), u8 = median(t[1], passes);
    printf("| %zu | %.0f | %.0f | %.3f |\n", threads, s8, u8, u8 / s8);
    free(t[0]), free(t[1]);
    if (pool != NULL) pthreadpool_destroy(pool);
  }

  /* per layer kind, one thread: each layer run alone, int8 and uint8 alternating, medians summed */
  {
    static const char* kinds[4] = {"1x1 conv", "3x3 conv (stem, im2col)", "3x3 depthwise", "add"};
    double sum[2][4] = {{0}};
    const int reps = passes < 5 ? 5 : passes;
    double* t[2] = {malloc(reps * sizeof(double)), malloc(reps * sizeof(double))};
    for (size_t i = 0; i < net.count; i++) {
      for (int r = -2; r < reps; r++) {
        for (int f = 0; f < 2; f++) {
          const double t0 = now_us();
          q8nn_run_operator(ops[f][i], NULL);
          if (r >= 0) t[f][r] = now_us() - t0;
        }
      }
      for (int f = 0; f < 2; f++) sum[f][net.layers[i].kind] += median(t[f], reps);
    }
    printf("\n| layer kind, 1 thread | int8 (us) | uint8 (us) | uint8 / int8 time |\n|---|---:|---:|---:|\n");
    for (int k = 0; k < 4; k++) printf("| %s | %.0f | %.0f | %.3f |\n", kinds[k], sum[0][k], sum[1][k], sum[1][k] / sum[0][k]);
    free(t[0]), free(t[1]);
  }

  /* setup cost: the same shape with the other set of buffers (kept indirection) against a setup
     after one on a different height (rebuilt) */
  printf("\n| layer kind | largest layer | re-setup, new pointers (us) | setup that rebuilds (us) |\n"
         "|---|---|---:|---:|\n");
  static const char* kinds[4] = {"1x1 conv", "3x3 conv (stem, im2col)", "3x3 depthwise", "add"};
  for (int kind = 0; kind < 4; kind++) {
    double worst_keep = 0, worst_rebuild = 0;
    size_t worst_layer = 0;
    for (size_t i = 0; i < net.count; i++) {
      const struct layer* l = &net.layers[i];
      if (l->kind != kind) continue;
      const int reps = 200;
      double keep[200], rebuild[200];
      for (int r = 0; r < reps; r++) {
        const int f = r & 1;
        double t0 = now_us();
        setup(ops[0][i], l, 0, l->h, buffers[f][l->in], l->other >= 0 ? buffers[f][l->other] : NULL,
              buffers[f][l->out]);
        keep[r] = now_us() - t0;
        setup(ops[0][i], l, 0, l->h - 1, buffers[f][l->in], l->other >= 0 ? buffers[f][l->other] : NULL,
              buffers[f][l->out]);
        t0 = now_us();
        setup(ops[0][i], l, 0, l->h, buffers[f][l->in], l->other >= 0 ? buffers[f][l->other] : NULL,
              buffers[f][l->out]);
        rebuild[r] = now_us() - t0;
      }
      const double k = median(keep, reps), rb = median(rebuild, reps);
      if (k > worst_keep) worst_keep = k, worst_layer = i;
      if (rb > worst_rebuild) worst_rebuild = rb;
    }
    const struct layer* l = &net.layers[worst_layer];
    printf("| %s | %zux%zux%zu | %.2f | %.2f |\n", kinds[kind], l->h, l->w, l->cin, worst_keep, worst_rebuild);
  }
  for (int f = 0; f < 2; f++) {
    for (size_t i = 0; i < net.count; i++) q8nn_delete_operator(ops[f][i]);
  }
  q8nn_deinitialize();
  return 0;
}
