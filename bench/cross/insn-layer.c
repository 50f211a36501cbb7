/*
 * Drives one microkernel (or Debian's XNNPACK operator) over one fixed MobileNetV2 layer `reps`
 * times, for instruction counting under qemu-user with the "insn" TCG plugin (see
 * bench/README-cross.md and bench/cross/insn-count.sh). The counting script runs every case with
 * reps = R and reps = 0 and divides the difference by R x MACs, so data generation, packing,
 * operator creation and process start-up cancel out.
 *
 *   insn-layer list                         the kernels of this build the CPU can run, one per line
 *   insn-layer gemm|igemm|dwconv|vadd NAME REPS   run list entry NAME (ISA must be present)
 *   insn-layer xnnpack-conv1x1|xnnpack-dw3x3|xnnpack-add - REPS   (built with -DQ8NN_WITH_XNNPACK)
 *
 * Layers (MobileNetV2 1.0, 224x224 input, the second repeat of the "6 32 3 2" bottleneck row):
 *   conv1x1  expansion 28x28x32 -> 192, stride 1: M = 784, K = 32, N = 192 (4,816,896 MACs)
 *   dw3x3    depthwise 3x3, 28x28x192, stride 1, SAME padding (1,354,752 MACs, padding taps
 *            included, as the kernels compute them)
 *   add      residual add 28x28x32 (25,088 elements; reported per element)
 * Per-channel scales. A list line with TFLite roundings runs double rounding (TFLite default); an
 * fp32 line (name ..._fp32_...) runs XNNPACK's fp32 epilogue with float scales packed in the
 * multiplier slot, and an XNNPACK-arithmetic vadd line XNNPACK's add parameters for the same
 * scales, so its counts compare with XNNPACK's operators below on the same layers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "q8nn.h"
#include "ukernel.h"

#ifdef Q8NN_WITH_XNNPACK
#include <xnnpack.h>
#endif

#define H 28
#define W 28
#define CIN 32
#define COUT 192
#define M (H * W)

static uint32_t rng = 12345;
static int8_t rand8(void) {
  rng = rng * 1664525u + 1013904223u;
  return (int8_t) (rng >> 24);
}
static void fill(int8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = rand8();
}
static void* xalloc(size_t n) {
  void* p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (p == NULL) abort();
  memset(p, 0, n);
  return p;
}

/* fp32: the multiplier slot holds the float scale's bits (as the operator packs it), here
   input 0.02 x kernel (0.002 + 0.0001 (i % 7)) / output 0.05 as in run_xnnpack. */
static void requant_params(size_t n, int fp32, int32_t* bias, int32_t* mult, int32_t* shift) {
  for (size_t i = 0; i < n; i++) {
    bias[i] = (int32_t) (rand8() * 97);
    mult[i] = (int32_t) (0x40000000u + ((uint32_t) (uint8_t) rand8() << 20));
    shift[i] = -9 - (int32_t) (i % 3);
    if (fp32) {
      const float scale = 0.02f * (0.002f + 0.0001f * (float) (i % 7)) / 0.05f;
      memcpy(&mult[i], &scale, sizeof(scale));
      shift[i] = 0;
    }
  }
}

static const struct q8nn_qs8_conv_params conv_params = {-3, -128, 127};

static int run_gemm(const char* name, int indirect, long reps) {
  const uint32_t isa = q8nn_get_available_isa();
  const struct q8nn_gemm_entry* g = NULL;
  const struct q8nn_igemm_entry* ig = NULL;
  if (!indirect) {
    for (size_t i = 0; i < q8nn_gemm_list_size; i++)
      if (strcmp(q8nn_gemm_list[i].name, name) == 0) g = &q8nn_gemm_list[i];
  } else {
    for (size_t i = 0; i < q8nn_igemm_list_size; i++)
      if (strcmp(q8nn_igemm_list[i].name, name) == 0) ig = &q8nn_igemm_list[i];
  }
  if (g == NULL && ig == NULL) return fprintf(stderr, "no kernel %s\n", name), 2;
  const uint32_t need = g ? g->isa : ig->isa;
  if ((isa & need) != need) return fprintf(stderr, "ISA missing for %s\n", name), 3;
  const size_t mr = g ? g->mr : ig->mr, nr = g ? g->nr : ig->nr, kr = g ? g->kr : ig->kr;
  const int32_t ioff = g ? g->input_offset : ig->input_offset;
  q8nn_pack_gemm_fn pack = g ? g->pack : ig->pack;
  /* the entry's first requantization: TFLite double rounding, or fp32 for fp32-only entries */
  const int r = (g ? g->fn[0] != NULL : ig->fn[0] != NULL) ? 0 : 2;
  int8_t* a = xalloc(M * CIN);
  int8_t* kernel = xalloc(COUT * CIN);
  int8_t* c = xalloc(M * COUT);
  int32_t bias[COUT], mult[COUT], shift[COUT];
  fill(a, M * CIN);
  fill(kernel, COUT * CIN);
  requant_params(COUT, r == 2, bias, mult, shift);
  void* packed = xalloc(q8nn_packed_gemm_size(pack, 1, COUT, 1, CIN, nr, kr));
  pack(1, COUT, 1, CIN, nr, kr, kernel, bias, mult, shift, 5 + ioff, packed);
  const size_t tiles = (M + mr - 1) / mr;
  const int8_t** ind = xalloc(tiles * mr * sizeof(int8_t*));
  for (size_t t = 0; t < tiles; t++)
    for (size_t r = 0; r < mr; r++) ind[t * mr + r] = a + (t * mr + r < M ? t * mr + r : M - 1) * CIN;
  const int8_t* zero = xalloc(CIN);
  for (long rep = 0; rep < reps; rep++) {
    for (size_t m = 0; m < M; m += mr) {
      const size_t rows = M - m < mr ? M - m : mr;
      if (g) {
        g->fn[r](rows, COUT, CIN, a + m * CIN, CIN, packed, c + m * COUT, COUT, nr, &conv_params);
      } else {
        ig->fn[r](rows, COUT, CIN, 1, ind + (m / mr) * mr, packed, c + m * COUT, COUT, nr, 0, zero,
                  &conv_params);
      }
    }
  }
  printf("%s checksum %d\n", name, c[M * COUT / 2]);
  return 0;
}

static int run_dwconv(const char* name, long reps) {
  const uint32_t isa = q8nn_get_available_isa();
  const struct q8nn_dwconv_entry* d = NULL;
  for (size_t i = 0; i < q8nn_dwconv_list_size; i++)
    if (strcmp(q8nn_dwconv_list[i].name, name) == 0) d = &q8nn_dwconv_list[i];
  if (d == NULL) return fprintf(stderr, "no kernel %s\n", name), 2;
  if ((isa & d->isa) != d->isa) return fprintf(stderr, "ISA missing for %s\n", name), 3;
  if (d->taps != 0 && d->taps != 9) return fprintf(stderr, "%s is not a 3x3 kernel\n", name), 4;
  const size_t C = COUT, ct = d->channel_tile;
  int8_t* in = xalloc(M * C);
  int8_t* kernel = xalloc(9 * C);
  int8_t* out = xalloc(M * C);
  int8_t* zero = xalloc(C);
  int32_t bias[COUT], mult[COUT], shift[COUT];
  fill(in, M * C);
  fill(kernel, 9 * C);
  memset(zero, 5, C);
  const int r = d->fn[0] != NULL ? 0 : 2;
  requant_params(C, r == 2, bias, mult, shift);
  void* packed = xalloc(q8nn_packed_dwconv_size(C, 9, ct));
  q8nn_pack_qs8_dwconv_w(C, 9, ct, kernel, bias, mult, shift, 5 + d->input_offset, packed);
  const int8_t** ind = xalloc(M * 9 * sizeof(int8_t*));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int t = 0; t < 9; t++) {
        const int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
        ind[(y * W + x) * 9 + t] = iy < 0 || iy >= H || ix < 0 || ix >= W ? zero : in + (iy * W + ix) * C;
      }
  for (long rep = 0; rep < reps; rep++) {
    for (int y = 0; y < H; y++) {
      d->fn[r](C, W, 9, ind + y * W * 9, 9, packed, out + y * W * C, 0, 0, zero, &conv_params);
    }
  }
  printf("%s checksum %d\n", name, out[M * C / 2]);
  return 0;
}

static int run_vadd(const char* name, long reps) {
  const uint32_t isa = q8nn_get_available_isa();
  const struct q8nn_vadd_entry* v = NULL;
  for (size_t i = 0; i < q8nn_vadd_list_size; i++)
    if (strcmp(q8nn_vadd_list[i].name, name) == 0) v = &q8nn_vadd_list[i];
  if (v == NULL) return fprintf(stderr, "no kernel %s\n", name), 2;
  if ((isa & v->isa) != v->isa) return fprintf(stderr, "ISA missing for %s\n", name), 3;
  const size_t n = M * CIN;
  int8_t* a = xalloc(n);
  int8_t* b = xalloc(n);
  int8_t* y = xalloc(n);
  fill(a, n);
  fill(b, n);
  /* TFLite add parameters for scales 0.05 / 0.07 -> 0.09 (left shift 20); XNNPACK's for the same
     scales (ratios 0.556 / 0.778: shift 21, multipliers lrintf(ratio x 2^21), bias 2^20 - sum
     multiplier x zero point). */
  struct q8nn_qs8_add_params p = {3, -7, 1533916891, -1, 1073741824, 0, 1193046471, -19, 20, -2, -128, 127, 0, 0, 0, 0};
  if (v->arithmetic == q8nn_add_arithmetic_xnnpack) {
    p.xnn_a_multiplier = (int32_t) lrintf(0.05f / 0.09f * 0x1.0p21f);
    p.xnn_b_multiplier = (int32_t) lrintf(0.07f / 0.09f * 0x1.0p21f);
    p.xnn_bias = (1 << 20) - p.xnn_a_multiplier * 3 - p.xnn_b_multiplier * -7;
    p.xnn_shift = 21;
  }
  for (long rep = 0; rep < reps; rep++) v->vadd(n, a, b, y, &p);
  printf("%s checksum %d\n", name, y[n / 2]);
  return 0;
}

#ifdef Q8NN_WITH_XNNPACK
static int run_xnnpack(const char* what, long reps) {
  if (xnn_initialize(NULL) != xnn_status_success) return fprintf(stderr, "xnn_initialize failed\n"), 5;
  xnn_operator_t op = NULL;
  if (strcmp(what, "xnnpack-add") == 0) {
    const size_t n = M * CIN;
    int8_t* a = xalloc(n);
    int8_t* b = xalloc(n);
    int8_t* y = xalloc(n);
    fill(a, n);
    fill(b, n);
    const size_t shape[1] = {n};
    if (xnn_create_add_nd_qs8(3, 0.05f, -7, 0.07f, -2, 0.09f, -128, 127, 0, &op) != xnn_status_success ||
        xnn_setup_add_nd_qs8(op, 1, shape, 1, shape, a, b, y, NULL) != xnn_status_success)
      return fprintf(stderr, "xnnpack add setup failed\n"), 5;
    for (long rep = 0; rep < reps; rep++) xnn_run_operator(op, NULL);
    printf("%s checksum %d\n", what, y[n / 2]);
    return 0;
  }
  const int dw = strcmp(what, "xnnpack-dw3x3") == 0;
  const size_t cin = dw ? COUT : CIN;
  int8_t* in = xalloc(M * cin);
  int8_t* kernel = xalloc(COUT * cin * 9);
  int8_t* out = xalloc(M * COUT);
  int32_t bias[COUT];
  float kscale[COUT];
  fill(in, M * cin);
  fill(kernel, COUT * cin * 9);
  for (int i = 0; i < COUT; i++) bias[i] = rand8() * 97, kscale[i] = 0.002f + 0.0001f * (i % 7);
  enum xnn_status s;
  if (dw) {
    s = xnn_create_convolution2d_nhwc_qc8(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, COUT, 1, 1, COUT, COUT, 5, 0.02f,
                                          kscale, kernel, bias, -3, 0.05f, -128, 127, 0, &op);
  } else {
    s = xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, CIN, COUT, CIN, COUT, 5, 0.02f,
                                          kscale, kernel, bias, -3, 0.05f, -128, 127, 0, &op);
  }
  if (s != xnn_status_success) return fprintf(stderr, "xnnpack create failed %d\n", s), 5;
  if (xnn_setup_convolution2d_nhwc_qc8(op, 1, H, W, in, out, NULL) != xnn_status_success)
    return fprintf(stderr, "xnnpack setup failed\n"), 5;
  for (long rep = 0; rep < reps; rep++) xnn_run_operator(op, NULL);
  printf("%s checksum %d\n", what, out[M * COUT / 2]);
  return 0;
}
#endif

int main(int argc, char** argv) {
  if (q8nn_initialize() != q8nn_status_success) return fprintf(stderr, "q8nn_initialize failed\n"), 1;
  if (argc == 2 && strcmp(argv[1], "list") == 0) {
    /* Only the kernels this CPU can run (the ISA bits dispatch sees). */
    const uint32_t isa = q8nn_get_available_isa();
#define Q8NN_HAS(bits) ((isa & (bits)) == (bits))
    for (size_t i = 0; i < q8nn_gemm_list_size; i++)
      if (Q8NN_HAS(q8nn_gemm_list[i].isa)) printf("gemm %s\n", q8nn_gemm_list[i].name);
    for (size_t i = 0; i < q8nn_igemm_list_size; i++)
      if (Q8NN_HAS(q8nn_igemm_list[i].isa)) printf("igemm %s\n", q8nn_igemm_list[i].name);
    for (size_t i = 0; i < q8nn_dwconv_list_size; i++)
      if (Q8NN_HAS(q8nn_dwconv_list[i].isa) && (q8nn_dwconv_list[i].taps == 0 || q8nn_dwconv_list[i].taps == 9))
        printf("dwconv %s\n", q8nn_dwconv_list[i].name);
    for (size_t i = 0; i < q8nn_vadd_list_size; i++)
      if (Q8NN_HAS(q8nn_vadd_list[i].isa)) printf("vadd %s\n", q8nn_vadd_list[i].name);
    return 0;
  }
  if (argc != 4) return fprintf(stderr, "usage: %s list | FAMILY NAME REPS\n", argv[0]), 2;
  const long reps = atol(argv[3]);
  if (strcmp(argv[1], "gemm") == 0) return run_gemm(argv[2], 0, reps);
  if (strcmp(argv[1], "igemm") == 0) return run_gemm(argv[2], 1, reps);
  if (strcmp(argv[1], "dwconv") == 0) return run_dwconv(argv[2], reps);
  if (strcmp(argv[1], "vadd") == 0) return run_vadd(argv[2], reps);
#ifdef Q8NN_WITH_XNNPACK
  if (strncmp(argv[1], "xnnpack-", 8) == 0) return run_xnnpack(argv[1], reps);
#endif
  return fprintf(stderr, "unknown family %s\n", argv[1]), 2;
}
