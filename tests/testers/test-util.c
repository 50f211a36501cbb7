#include "testers/test-util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <q8nn.h>

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);
static int seed_ready;
static uint64_t seed_value;

void test_reseed(uint64_t seed) {
  /* xorshift must not start at 0; mix the seed so small seeds give unrelated streams. */
  uint64_t z = seed + UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  z ^= z >> 31;
  rng_state = z != 0 ? z : UINT64_C(1);
}

uint64_t test_seed(void) {
  if (!seed_ready) {
    const char* env = getenv("Q8NN_TEST_SEED");
    if (env != NULL && env[0] != '\0') {
      seed_value = (uint64_t) strtoull(env, NULL, 0);
    } else {
      seed_value = (uint64_t) time(NULL);
    }
    seed_ready = 1;
    test_reseed(seed_value);
    fprintf(stderr, "q8nn test seed: Q8NN_TEST_SEED=%" PRIu64 "\n", seed_value);
  }
  return seed_value;
}

uint32_t test_rand(void) {
  if (!seed_ready) {
    (void) test_seed();
  }
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return (uint32_t) ((x * UINT64_C(0x2545F4914F6CDD1D)) >> 32);
}

int8_t test_rand_s8(void) { return (int8_t) (uint8_t) test_rand(); }

int32_t test_rand_range(int32_t lo, int32_t hi) {
  const uint64_t span = (uint64_t) ((int64_t) hi - (int64_t) lo) + 1;
  return (int32_t) ((int64_t) lo + (int64_t) (test_rand() % span));
}

float test_rand_float(float lo, float hi) {
  return lo + (hi - lo) * (float) ((double) test_rand() / 4294967296.0);
}

void test_fill_s8(int8_t* data, size_t n) {
  for (size_t i = 0; i < n; i++) {
    data[i] = test_rand_s8();
  }
}

void test_fill_s8_range(int8_t* data, size_t n, int8_t lo, int8_t hi) {
  for (size_t i = 0; i < n; i++) {
    data[i] = (int8_t) test_rand_range(lo, hi);
  }
}

void test_fill_s32_range(int32_t* data, size_t n, int32_t lo, int32_t hi) {
  for (size_t i = 0; i < n; i++) {
    data[i] = test_rand_range(lo, hi);
  }
}

int test_isa_available(uint32_t isa_bits) {
  return (q8nn_get_available_isa() & isa_bits) == isa_bits;
}

size_t test_isa_masks(uint32_t* masks, size_t max) {
  size_t n = 0;
  if (n < max) {
    masks[n++] = 0;
  }
  /* Each tier as a CPU has it: the available bit with every available bit below it (the bits are
     ordered by tier within an architecture). List lines that need two bits (AVX-VNNI with AVX2,
     NEON dot product or i8mm with NEON) are active only so; with single-bit masks they never ran
     here. */
  const uint32_t available = q8nn_get_available_isa();
  for (uint32_t bit = 1; bit != 0 && n < max; bit <<= 1) {
    if (available & bit) {
      masks[n++] = available & (bit | (bit - 1));
    }
  }
  return n;
}

const char* test_isa_name(uint32_t mask) {
  /* a tier mask is named by its highest bit */
  if (mask != 0) {
    uint32_t top = UINT32_C(1) << 31;
    while ((mask & top) == 0) top >>= 1;
    mask = top;
  }
  switch (mask) {
    case 0: return "scalar";
    case Q8NN_ISA_X86_AVX2: return "avx2";
    case Q8NN_ISA_X86_AVXVNNI: return "avxvnni";
    case Q8NN_ISA_X86_AVX512VNNI: return "avx512vnni";
    case Q8NN_ISA_X86_AMX: return "amx";
    case Q8NN_ISA_X86_AVX512VBMI: return "avx512vbmi";
    case Q8NN_ISA_ARM_NEON: return "neon";
    case Q8NN_ISA_ARM_NEON_DOT: return "neondot";
    case Q8NN_ISA_ARM_NEON_I8MM: return "i8mm";
    case Q8NN_ISA_RISCV_V: return "rvv";
    default: return "mask";
  }
}

size_t test_first_mismatch(const int8_t* a, const int8_t* b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (a[i] != b[i]) {
      return i;
    }
  }
  return SIZE_MAX;
}

/* Pools are kept for the whole run: creating and destroying a pool costs about as much as a
   dozen small runs. */
static pthreadpool_t threadpools[TEST_NUM_THREADPOOLS];

pthreadpool_t test_threadpool(size_t index) {
  if (index == 0 || index >= TEST_NUM_THREADPOOLS) {
    return NULL;
  }
  if (threadpools[index] == NULL) {
    threadpools[index] = pthreadpool_create(index);
  }
  return threadpools[index];
}

size_t test_threadpool_threads(size_t index) { return index < TEST_NUM_THREADPOOLS ? index : 0; }

void test_destroy_threadpools(void) {
  for (size_t i = 0; i < TEST_NUM_THREADPOOLS; i++) {
    if (threadpools[i] != NULL) {
      pthreadpool_destroy(threadpools[i]);
      threadpools[i] = NULL;
    }
  }
}

struct pool_piece {
  q8nn_task_1d_tile_1d_t task;
  void* task_context;
  size_t range, tile;
};

/* This host pool is built on pthreadpool, which is not built with ThreadSanitizer: in the TSan
   build it tells TSan what its call orders, as an instrumented host pool's own synchronisation
   would (q8nn does the same for the pieces it hands over, src/common.h). */
#if TEST_TSAN
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
#define POOL_RELEASE(p) __tsan_release(p)
#define POOL_ACQUIRE(p) __tsan_acquire(p)
#else
#define POOL_RELEASE(p) ((void) (p))
#define POOL_ACQUIRE(p) ((void) (p))
#endif

static void pool_piece_run(void* context, size_t start, size_t count) {
  struct pool_piece* p = context;
  POOL_ACQUIRE(p);
  p->task(p->task_context, start, count);
  POOL_RELEASE(p);
}

/* test_host_pool(1): on test_threadpool(2)'s two threads. */
static size_t pthreads_count(void* context) { return pthreadpool_get_threads_count((pthreadpool_t) context); }
static void pthreads_parallelize(void* context, q8nn_task_1d_tile_1d_t task, void* task_context, size_t range,
                                 size_t tile) {
  struct pool_piece p = {task, task_context, range, tile};
  POOL_RELEASE(&p);
  pthreadpool_parallelize_1d_tile_1d((pthreadpool_t) context, pool_piece_run, &p, range, tile, 0);
  POOL_ACQUIRE(&p);
}

/* test_host_pool(0): claims three threads, runs every piece on the caller, the last one first. */
static size_t serial_count(void* context) { return 3; }
static void serial_parallelize(void* context, q8nn_task_1d_tile_1d_t task, void* task_context, size_t range,
                               size_t tile) {
  const size_t pieces = (range + tile - 1) / tile;
  for (size_t i = pieces; i-- > 0;) task(task_context, i * tile, range - i * tile < tile ? range - i * tile : tile);
}

const struct q8nn_threadpool* test_host_pool(size_t index) {
  static struct q8nn_threadpool pools[TEST_NUM_HOST_POOLS];
  pools[0] = (struct q8nn_threadpool){NULL, serial_count, serial_parallelize};
  pools[1] = (struct q8nn_threadpool){test_threadpool(2), pthreads_count, pthreads_parallelize};
  return index < TEST_NUM_HOST_POOLS ? &pools[index] : NULL;
}


int test_group_setup(void** state) {
  (void) state;
  (void) test_seed();
  return q8nn_initialize() == q8nn_status_success ? 0 : -1;
}

int test_group_teardown(void** state) {
  (void) state;
  test_destroy_threadpools();
  return 0;
}

/* ---- operator runners ---------------------------------------------------------------------- */

#define TEST_TAIL_GUARD 16

static int report_mismatch(const char* what, const char* name, uint32_t mask, size_t pool,
                           const int8_t* expected, const int8_t* got, size_t size, size_t pixel_stride) {
  const size_t i = test_first_mismatch(expected, got, size);
  if (i == SIZE_MAX) {
    return 0;
  }
  fprintf(stderr,
          "MISMATCH %s [%s] isa=%s threads=%zu: byte %zu (pixel %zu, element %zu): expected %d got %d "
          "(Q8NN_TEST_SEED=%" PRIu64 ")\n",
          what, name != NULL ? name : "?", test_isa_name(mask), test_threadpool_threads(pool), i,
          pixel_stride != 0 ? i / pixel_stride : 0, pixel_stride != 0 ? i % pixel_stride : i,
          expected[i], got[i], test_seed());
  return 1;
}

static int report_status(const char* what, const char* name, uint32_t mask, enum q8nn_status expected,
                         enum q8nn_status got) {
  if (expected == got) {
    return 0;
  }
  fprintf(stderr, "STATUS %s [%s] isa=%s: expected %s got %s (Q8NN_TEST_SEED=%" PRIu64 ")\n", what,
          name != NULL ? name : "?", test_isa_name(mask), q8nn_status_string(expected),
          q8nn_status_string(got), test_seed());
  return 1;
}

/* Published expectations (golden vectors) are dense; compare them with the reference's output
   pixels. A miss here is a reference or data problem, not the library's. */
static int check_published(const char* name, const int8_t* expected, int tolerance, const int8_t* ref,
                           size_t pixels, size_t channels, size_t pixel_stride) {
  int failures = 0;
  for (size_t px = 0; px < pixels; px++) {
    for (size_t ch = 0; ch < channels; ch++) {
      const int d = (int) ref[px * pixel_stride + ch] - (int) expected[px * channels + ch];
      if (d > tolerance || d < -tolerance) {
        if (failures++ == 0) {
          fprintf(stderr, "PUBLISHED [%s] element %zu: published %d reference %d (tolerance %d)\n",
                  name != NULL ? name : "?", px * channels + ch, expected[px * channels + ch],
                  ref[px * pixel_stride + ch], tolerance);
        }
      }
    }
  }
  return failures != 0;
}

static enum q8nn_status create_conv(const struct test_conv_case* c, q8nn_operator_t* op) {
  const struct ref_conv_params* p = &c->p;
  const struct q8nn_conv_quantization quant = {
      .input_zero_point = p->in_zp,
      .input_scale = c->multiplier != NULL ? 0.0f : c->input_scale,
      .kernel_scale = c->multiplier != NULL ? NULL : c->kernel_scale,
      .output_zero_point = p->out_zp,
      .output_scale = c->multiplier != NULL ? 0.0f : c->output_scale,
      .output_min = (int8_t) p->out_min,
      .output_max = (int8_t) p->out_max,
      .rounding = p->rounding == 2 ? q8nn_rounding_fp32 : p->rounding ? q8nn_rounding_single : q8nn_rounding_double,
      .output_multiplier = c->multiplier,
      .output_shift = c->shift,
  };
  const uint32_t flags = c->per_tensor ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  if (c->depthwise) {
    const struct q8nn_depthwise_convolution2d_desc desc = {
        .padding_top = (uint32_t) p->pad_top, .padding_right = (uint32_t) p->pad_right,
        .padding_bottom = (uint32_t) p->pad_bottom, .padding_left = (uint32_t) p->pad_left,
        .kernel_height = (uint32_t) p->k_h, .kernel_width = (uint32_t) p->k_w,
        .stride_height = (uint32_t) p->stride_h, .stride_width = (uint32_t) p->stride_w,
        .dilation_height = (uint32_t) p->dil_h, .dilation_width = (uint32_t) p->dil_w,
        .channels = p->in_c, .depth_multiplier = p->out_c,
    };
    return q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &quant, c->kernel, c->bias, flags, op);
  }
  const struct q8nn_convolution2d_desc desc = {
      .padding_top = (uint32_t) p->pad_top, .padding_right = (uint32_t) p->pad_right,
      .padding_bottom = (uint32_t) p->pad_bottom, .padding_left = (uint32_t) p->pad_left,
      .kernel_height = (uint32_t) p->k_h, .kernel_width = (uint32_t) p->k_w,
      .stride_height = (uint32_t) p->stride_h, .stride_width = (uint32_t) p->stride_w,
      .dilation_height = (uint32_t) p->dil_h, .dilation_width = (uint32_t) p->dil_w,
      .groups = (uint32_t) p->groups, .group_input_channels = p->in_c, .group_output_channels = p->out_c,
  };
  return q8nn_create_convolution2d_nhwc_s8(&desc, &quant, c->kernel, c->bias, flags, op);
}

int test_conv_run(const struct test_conv_case* c) {
  struct ref_conv_params p = c->p;
  const size_t out_channels = c->depthwise ? p.in_c * p.out_c : p.groups * p.out_c;
  int32_t* multiplier = malloc(out_channels * sizeof(int32_t));
  int32_t* shift = malloc(out_channels * sizeof(int32_t));
  float* scale = malloc(out_channels * sizeof(float));
  int representable = 1;
  for (size_t oc = 0; oc < out_channels; oc++) {
    const size_t src = c->per_tensor ? 0 : oc;
    multiplier[oc] = shift[oc] = 0;
    if (p.rounding == 2) {
      /* XNNPACK's float scale; >= 256 is what it (and q8nn) declines */
      scale[oc] = ref_fp32_scale(c->input_scale, c->kernel_scale[src], c->output_scale);
      representable &= scale[oc] < 256.0f;
    } else if (c->multiplier != NULL) {
      multiplier[oc] = c->multiplier[src];
      shift[oc] = c->shift[src];
    } else {
      const double real = (double) c->input_scale * (double) c->kernel_scale[src] / (double) c->output_scale;
      representable &= ref_quantize_multiplier(real, &multiplier[oc], &shift[oc]);
    }
  }
  p.multiplier = multiplier;
  p.shift = shift;
  p.scale = scale;

  size_t out_h, out_w;
  ref_output_size(&p, &out_h, &out_w);
  const size_t pixels = p.batch * out_h * out_w;
  const size_t out_size = pixels * p.out_pixel_stride + TEST_TAIL_GUARD;
  int8_t* ref = malloc(out_size);
  int8_t* out = malloc(out_size);
  memset(ref, TEST_GUARD_BYTE, out_size);
  int failures = 0;
  if (representable) {
    if (c->depthwise) {
      ref_depthwise(&p, c->input, c->kernel, c->bias, ref);
    } else {
      ref_conv2d(&p, c->input, c->kernel, c->bias, ref);
    }
    if (c->expected != NULL) {
      failures += check_published(c->name, c->expected, c->tolerance, ref, pixels, out_channels, p.out_pixel_stride);
    }
  }

  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  for (size_t m = 0; m < num_masks; m++) {
    q8nn_set_isa_mask(masks[m]);
    q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
    const enum q8nn_status status = create_conv(c, &op);
    if (!representable) {
      failures += report_status("create (unrepresentable multiplier)", c->name, masks[m],
                                q8nn_status_unsupported_parameter, status);
      if (status == q8nn_status_success) {
        q8nn_delete_operator(op);
      } else if (op != (q8nn_operator_t) (uintptr_t) 0xDEADBEEF) {
        fprintf(stderr, "OUT-POINTER written on failure [%s]\n", c->name);
        failures++;
      }
      continue;
    }
    if (report_status("create", c->name, masks[m], q8nn_status_success, status)) {
      failures++;
      continue;
    }
    const size_t num_pools = c->num_threadpools != 0 ? c->num_threadpools : TEST_NUM_THREADPOOLS;
    for (size_t pool = 0; pool < num_pools; pool++) {
      memset(out, TEST_GUARD_BYTE, out_size);
      size_t got_h = 0, got_w = 0;
      enum q8nn_status s = c->depthwise
          ? q8nn_setup_depthwise_convolution2d_nhwc_s8(op, p.batch, p.in_h, p.in_w, c->input, p.in_pixel_stride,
                                                       out, p.out_pixel_stride, &got_h, &got_w)
          : q8nn_setup_convolution2d_nhwc_s8(op, p.batch, p.in_h, p.in_w, c->input, p.in_pixel_stride, out,
                                             p.out_pixel_stride, &got_h, &got_w);
      if (out_h == 0 || out_w == 0) {
        /* The kernel does not fit the padded input: API.md's non-positive output size. */
        failures += report_status("setup (non-positive output size)", c->name, masks[m],
                                  q8nn_status_invalid_parameter, s);
        if (got_h != 0 || got_w != 0) {
          fprintf(stderr, "OUT-POINTER written on failure [%s]\n", c->name);
          failures++;
        }
        break;
      }
      if (report_status("setup", c->name, masks[m], q8nn_status_success, s)) {
        failures++;
        break;
      }
      if (got_h != out_h || got_w != out_w) {
        fprintf(stderr, "SIZE [%s]: expected %zux%zu got %zux%zu\n", c->name, out_h, out_w, got_h, got_w);
        failures++;
      }
      s = q8nn_run_operator(op, test_threadpool(pool));
      if (report_status("run", c->name, masks[m], q8nn_status_success, s)) {
        failures++;
        continue;
      }
      failures += report_mismatch("conv", c->name, masks[m], pool, ref, out, out_size, p.out_pixel_stride);
    }
    q8nn_delete_operator(op);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  free(out);
  free(ref);
  free(scale);
  free(shift);
  free(multiplier);
  return failures;
}

int test_add_run(const struct test_add_case* c) {
  size_t out_rank, out_shape[REF_MAX_DIMS];
  if (!ref_broadcast_shape(c->a_rank, c->a_shape, c->b_rank, c->b_shape, &out_rank, out_shape)) {
    fprintf(stderr, "test_add_run [%s]: incompatible shapes\n", c->name);
    return 1;
  }
  size_t total = 1, a_total = 1, b_total = 1;
  for (size_t i = 0; i < out_rank; i++) total *= out_shape[i];
  for (size_t i = 0; i < c->a_rank; i++) a_total *= c->a_shape[i];
  for (size_t i = 0; i < c->b_rank; i++) b_total *= c->b_shape[i];

  struct ref_add_params p;
  struct ref_xnn_add_params xp;
  int representable = 1;
  enum q8nn_status declined = q8nn_status_unsupported_parameter;
  if (c->xnnpack) {
    const int r = ref_xnn_add_params_from_scales(c->a_scale, c->a_zp, c->b_scale, c->b_zp, c->out_scale, c->out_zp,
                                                 c->out_min, c->out_max, &xp);
    representable = r == 0;
    declined = r == 1 ? q8nn_status_invalid_parameter : q8nn_status_unsupported_parameter;
  } else if (c->fixed != NULL) {
    const struct ref_add_params fp = {c->a_zp, c->b_zp, c->out_zp, c->fixed[0], c->fixed[1], c->fixed[2],
                                      c->fixed[3], c->fixed[4], c->fixed[5], c->fixed[6], c->out_min, c->out_max};
    p = fp;
  } else {
    representable = ref_add_params_from_scales(c->a_scale, c->a_zp, c->b_scale, c->b_zp, c->out_scale,
                                               c->out_zp, c->out_min, c->out_max, &p);
  }
  const size_t out_size = total + TEST_TAIL_GUARD;
  int8_t* ref = malloc(out_size);
  int8_t* out = malloc(out_size);
  memset(ref, TEST_GUARD_BYTE, out_size);
  int failures = 0;
  if (representable) {
    if (c->xnnpack) {
      ref_xnn_add(&xp, c->a_rank, c->a_shape, c->a, c->b_rank, c->b_shape, c->b, ref);
    } else {
      ref_add(&p, c->a_rank, c->a_shape, c->a, c->b_rank, c->b_shape, c->b, ref);
    }
    /* published outputs are checked in both arithmetics (XNNPACK's own bytes for fp32-cases.h) */
    if (c->expected != NULL) {
      failures += check_published(c->name, c->expected, c->tolerance, ref, total, 1, 1);
    }
  }
  struct q8nn_add_fixed fixed;
  if (c->fixed != NULL) {
    fixed.left_shift = c->fixed[0];
    fixed.a_multiplier = c->fixed[1];
    fixed.a_shift = c->fixed[2];
    fixed.b_multiplier = c->fixed[3];
    fixed.b_shift = c->fixed[4];
    fixed.output_multiplier = c->fixed[5];
    fixed.output_shift = c->fixed[6];
  }
  const struct q8nn_add_quantization quant = {
      .a_zero_point = c->a_zp, .a_scale = c->fixed != NULL ? 0.0f : c->a_scale,
      .b_zero_point = c->b_zp, .b_scale = c->fixed != NULL ? 0.0f : c->b_scale,
      .output_zero_point = c->out_zp, .output_scale = c->fixed != NULL ? 0.0f : c->out_scale,
      .output_min = c->out_min, .output_max = c->out_max,
      .fixed = c->fixed != NULL ? &fixed : NULL,
  };

  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  for (size_t m = 0; m < num_masks; m++) {
    q8nn_set_isa_mask(masks[m]);
    q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
    const enum q8nn_status status = q8nn_create_add_nd_s8(&quant, c->xnnpack ? Q8NN_FLAG_XNNPACK_ADD : 0, &op);
    if (!representable) {
      failures += report_status("create add (unrepresentable)", c->name, masks[m], declined, status);
      if (status == q8nn_status_success) {
        q8nn_delete_operator(op);
      }
      continue;
    }
    if (report_status("create add", c->name, masks[m], q8nn_status_success, status)) {
      failures++;
      continue;
    }
    const int8_t* a = c->in_place == 1 ? out : c->a;
    const int8_t* b = c->in_place == 2 ? out : c->b;
    enum q8nn_status s = q8nn_setup_add_nd_s8(op, c->a_rank, c->a_shape, c->b_rank, c->b_shape, a, b, out);
    if (report_status("setup add", c->name, masks[m], q8nn_status_success, s)) {
      failures++;
      q8nn_delete_operator(op);
      continue;
    }
    const size_t num_pools = c->num_threadpools != 0 ? c->num_threadpools : TEST_NUM_THREADPOOLS;
    for (size_t pool = 0; pool < num_pools; pool++) {
      memset(out, TEST_GUARD_BYTE, out_size);
      if (c->in_place == 1) {
        memcpy(out, c->a, a_total);
      } else if (c->in_place == 2) {
        memcpy(out, c->b, b_total);
      }
      s = q8nn_run_operator(op, test_threadpool(pool));
      if (report_status("run add", c->name, masks[m], q8nn_status_success, s)) {
        failures++;
        continue;
      }
      failures += report_mismatch("add", c->name, masks[m], pool, ref, out, out_size, 0);
    }
    q8nn_delete_operator(op);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  free(out);
  free(ref);
  return failures;
}

void* test_read_file(const char* dir, const char* name, size_t* size) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = malloc((size_t) n + 1);
  if (data != NULL && fread(data, 1, (size_t) n, f) != (size_t) n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t) n;
  return data;
}
