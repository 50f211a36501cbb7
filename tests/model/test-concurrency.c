/*
 * The concurrency contract of q8nn.h ("Concurrency"), each allowed case on THREADS threads of RUNS
 * runs, every output compared byte for byte with a single-threaded run of the same objects:
 *  - distinct operators (convolution 3x3 and 1x1, depthwise, add, fully connected, max pooling,
 *    sigmoid, softmax) created, set up, run and deleted on distinct threads, reading one shared
 *    input; alone, as a list with its kept plan (on a pthreadpool, on a host pool, on the caller),
 *    and set up again every SETUP_EVERY runs so that the plans are rebuilt;
 *  - the same with the convolutions and the add on one shared VTA backend: per-operator counters
 *    equal the single-threaded run's, and the backend's counters add up every run;
 *  - distinct models loaded from one file, on the CPU and sharing one VTA backend.
 * scripts/test.sh --sanitize runs it under ThreadSanitizer too. Failures inside a thread are
 * recorded and asserted after the join (cmocka's assertions belong to the main thread).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "q8nn-model.h"
#include "q8nn.h"
#include "testers/test-util.h"
#include "testers/tflite-writer.h"

enum { THREADS = 4, SETUP_EVERY = 100, MAX_OPS = 8 };
enum { MAX_SIDE = 8, C = 16, CO = 16, FC_K = 64, FC_N = 32 };
enum { IMAGE = MAX_SIDE * MAX_SIDE * C };

/* The images' height and width: 8 on the CPU, 4 where VTA runs (its simulator under
   ThreadSanitizer costs about 40x a Release build, and runs one program at a time). */
static size_t side = MAX_SIDE;
#define H side
#define W side
#define PIXELS (side * side)
#define FC_ROWS (PIXELS * C / FC_K)

/* Runs per thread: Q8NN_CONCURRENCY_RUNS, else 1000 (100 under qemu-user). */
static size_t runs_per_thread(void) {
  const char* env = getenv("Q8NN_CONCURRENCY_RUNS");
  if (env != NULL && env[0] != '\0') return (size_t) strtoul(env, NULL, 10);
  const char* emulated = getenv("Q8NN_TEST_EMULATED");
  return emulated != NULL && emulated[0] == '1' ? 100 : 1000;
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* What every thread shares, read only: weights, the two inputs the runs alternate, the add's
   second operand. */
static struct {
  int8_t k3[CO * 9 * C], k1[CO * C], kdw[9 * C], kfc[FC_N * FC_K];
  int32_t b3[CO], b1[CO], bdw[C], bfc[FC_N];
  float s3[CO], s1[CO], sdw[C], sfc[FC_N];
  int8_t x[2][IMAGE], addend[IMAGE];
} shared;

static void fill_shared(void) {
  test_fill_s8(shared.k3, sizeof(shared.k3));
  test_fill_s8(shared.k1, sizeof(shared.k1));
  test_fill_s8(shared.kdw, sizeof(shared.kdw));
  test_fill_s8(shared.kfc, sizeof(shared.kfc));
  test_fill_s32_range(shared.b3, CO, -4000, 4000);
  test_fill_s32_range(shared.b1, CO, -4000, 4000);
  test_fill_s32_range(shared.bdw, C, -2000, 2000);
  test_fill_s32_range(shared.bfc, FC_N, -4000, 4000);
  for (int i = 0; i < CO; i++) shared.s3[i] = test_rand_float(0.002f, 0.02f);
  for (int i = 0; i < CO; i++) shared.s1[i] = test_rand_float(0.004f, 0.04f);
  for (int i = 0; i < C; i++) shared.sdw[i] = test_rand_float(0.01f, 0.08f);
  for (int i = 0; i < FC_N; i++) shared.sfc[i] = test_rand_float(0.002f, 0.02f);
  test_fill_s8(shared.x[0], IMAGE);
  test_fill_s8(shared.x[1], IMAGE);
  test_fill_s8(shared.addend, IMAGE);
}

/* A failure seen on a thread: the first one, as text. */
struct failure {
  int failed;
  char what[256];
};

static void fail_on(struct failure* f, const char* format, ...) {
  if (f->failed) return;
  f->failed = 1;
  va_list args;
  va_start(args, format);
  vsnprintf(f->what, sizeof(f->what), format, args);
  va_end(args);
}

#define CHECK(f, cond, ...) ((cond) ? 1 : (fail_on((f), __VA_ARGS__), 0))

static struct q8nn_conv_quantization conv_quant(const float* scales) {
  struct q8nn_conv_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = -5;
  q.input_scale = 0.05f;
  q.kernel_scale = scales;
  q.output_zero_point = 3;
  q.output_scale = 0.09f;
  q.output_min = -128;
  q.output_max = 127;
  q.rounding = q8nn_rounding_double;
  return q;
}

/* One thread's operators, its own input buffer (bound at setup; each run copies an input into it)
   and outputs. */
struct opset {
  q8nn_operator_t ops[MAX_OPS];
  const char* names[MAX_OPS];
  int8_t* out[MAX_OPS];
  size_t bytes[MAX_OPS];
  size_t count;
  int8_t in[IMAGE];
};

/* Keeps *op (just created with `status`) in the set. */
static enum q8nn_status add_op(struct opset* s, const char* name, enum q8nn_status status, q8nn_operator_t* op,
                               size_t bytes) {
  if (status != q8nn_status_success) return status;
  s->ops[s->count] = *op;
  s->names[s->count] = name;
  s->bytes[s->count] = bytes;
  s->out[s->count] = malloc(bytes);
  if (s->out[s->count] == NULL) return q8nn_status_out_of_memory;
  memset(s->out[s->count], 0x5A, bytes);
  s->count++;
  return q8nn_status_success;
}

/* Creates the operators; those the backend takes (convolutions, depthwise, add) go on it. */
static enum q8nn_status create_opset(struct opset* s, q8nn_backend_t backend) {
  memset(s, 0, sizeof(*s));
  enum q8nn_status st;
  q8nn_operator_t op = NULL;
  struct q8nn_convolution2d_desc cd;
  memset(&cd, 0, sizeof(cd));
  cd.padding_top = cd.padding_left = cd.padding_bottom = cd.padding_right = 1;
  cd.kernel_height = cd.kernel_width = 3;
  cd.stride_height = cd.stride_width = cd.dilation_height = cd.dilation_width = 1;
  cd.groups = 1;
  cd.group_input_channels = C;
  cd.group_output_channels = CO;
  struct q8nn_conv_quantization q = conv_quant(shared.s3);
  st = add_op(s, "conv3x3", q8nn_create_convolution2d_nhwc_s8(&cd, &q, shared.k3, shared.b3, 0, &op), &op,
              H * W * CO);
  if (st != q8nn_status_success) return st;
  cd.padding_top = cd.padding_left = cd.padding_bottom = cd.padding_right = 0;
  cd.kernel_height = cd.kernel_width = 1;
  q = conv_quant(shared.s1);
  st = add_op(s, "conv1x1", q8nn_create_convolution2d_nhwc_s8(&cd, &q, shared.k1, shared.b1, 0, &op), &op,
              H * W * CO);
  if (st != q8nn_status_success) return st;
  struct q8nn_depthwise_convolution2d_desc dd;
  memset(&dd, 0, sizeof(dd));
  dd.padding_top = dd.padding_left = dd.padding_bottom = dd.padding_right = 1;
  dd.kernel_height = dd.kernel_width = 3;
  dd.stride_height = dd.stride_width = dd.dilation_height = dd.dilation_width = 1;
  dd.channels = C;
  dd.depth_multiplier = 1;
  q = conv_quant(shared.sdw);
  st = add_op(s, "depthwise", q8nn_create_depthwise_convolution2d_nhwc_s8(&dd, &q, shared.kdw, shared.bdw, 0, &op),
              &op, PIXELS * C);
  if (st != q8nn_status_success) return st;
  struct q8nn_add_quantization aq;
  memset(&aq, 0, sizeof(aq));
  aq.a_zero_point = -5, aq.a_scale = 0.05f, aq.b_zero_point = 7, aq.b_scale = 0.03f;
  aq.output_zero_point = -2, aq.output_scale = 0.08f, aq.output_min = -128, aq.output_max = 127;
  st = add_op(s, "add", q8nn_create_add_nd_s8(&aq, 0, &op), &op, PIXELS * C);
  if (st != q8nn_status_success) return st;
  if (backend != NULL) {
    for (size_t i = 0; i < s->count; i++) {
      st = q8nn_operator_set_backend(s->ops[i], backend);
      if (st != q8nn_status_success) return st;
    }
  }
  q = conv_quant(shared.sfc);
  st = add_op(s, "fully connected",
              q8nn_create_fully_connected_nc_s8(FC_K, FC_N, &q, shared.kfc, shared.bfc, 0, &op), &op,
              FC_ROWS * FC_N);
  if (st != q8nn_status_success) return st;
  struct q8nn_pooling2d_desc pd;
  memset(&pd, 0, sizeof(pd));
  pd.pooling_height = pd.pooling_width = 2;
  pd.stride_height = pd.stride_width = 2;
  pd.channels = C;
  st = add_op(s, "max pooling", q8nn_create_max_pooling2d_nhwc_s8(&pd, -128, 127, 0, &op), &op, PIXELS * C / 4);
  if (st != q8nn_status_success) return st;
  struct q8nn_unary_quantization uq;
  memset(&uq, 0, sizeof(uq));
  uq.input_zero_point = -5, uq.input_scale = 0.05f, uq.output_zero_point = -128, uq.output_scale = 1.0f / 256;
  uq.output_min = -128, uq.output_max = 127, uq.rounding = q8nn_rounding_double;
  st = add_op(s, "sigmoid", q8nn_create_unary_elementwise_nc_s8(q8nn_unary_sigmoid, &uq, 0, &op), &op, PIXELS * C);
  if (st != q8nn_status_success) return st;
  return add_op(s, "softmax", q8nn_create_softmax_nc_s8(0.05f, 1.0f, 0, &op), &op, PIXELS * C);
}

static enum q8nn_status setup_opset(struct opset* s) {
  const size_t shape[4] = {1, H, W, C};
  enum q8nn_status st[MAX_OPS];
  st[0] = q8nn_setup_convolution2d_nhwc_s8(s->ops[0], 1, H, W, s->in, C, s->out[0], CO, NULL, NULL);
  st[1] = q8nn_setup_convolution2d_nhwc_s8(s->ops[1], 1, H, W, s->in, C, s->out[1], CO, NULL, NULL);
  st[2] = q8nn_setup_depthwise_convolution2d_nhwc_s8(s->ops[2], 1, H, W, s->in, C, s->out[2], C, NULL, NULL);
  st[3] = q8nn_setup_add_nd_s8(s->ops[3], 4, shape, 4, shape, s->in, shared.addend, s->out[3]);
  st[4] = q8nn_setup_fully_connected_nc_s8(s->ops[4], FC_ROWS, s->in, FC_K, s->out[4], FC_N);
  st[5] = q8nn_setup_pooling2d_nhwc_s8(s->ops[5], 1, H, W, s->in, C, s->out[5], C, NULL, NULL);
  st[6] = q8nn_setup_unary_elementwise_nc_s8(s->ops[6], H * W, C, s->in, C, s->out[6], C);
  st[7] = q8nn_setup_softmax_nc_s8(s->ops[7], H * W, C, s->in, C, s->out[7], C);
  for (size_t i = 0; i < s->count; i++) {
    if (st[i] != q8nn_status_success) return st[i];
  }
  return q8nn_status_success;
}

static void delete_opset(struct opset* s) {
  for (size_t i = 0; i < s->count; i++) {
    q8nn_delete_operator(s->ops[i]);
    free(s->out[i]);
  }
  s->count = 0;
}

/* A host pool that claims two threads and runs every piece on the caller (stateless: any thread
   may use it at once). */
static size_t serial_count(void* context) {
  (void) context;
  return 2;
}
static void serial_parallelize(void* context, q8nn_task_1d_tile_1d_t task, void* task_context, size_t range,
                               size_t tile) {
  (void) context;
  for (size_t start = 0; start < range; start += tile) task(task_context, start, range - start < tile ? range - start : tile);
}
static const struct q8nn_threadpool serial_pool = {NULL, serial_count, serial_parallelize};

/* The single-threaded bytes of every operator for both inputs, and (on a backend) each
   operator's counters of one run. */
struct expected {
  int8_t* out[2][MAX_OPS];
  struct q8nn_vta_stats stats[MAX_OPS];
  size_t count;
  size_t bytes[MAX_OPS];
};

static void compute_expected(struct expected* e, q8nn_backend_t backend) {
  struct opset* s = malloc(sizeof(*s));
  assert_non_null(s);
  assert_int_equal(create_opset(s, backend), q8nn_status_success);
  assert_int_equal(setup_opset(s), q8nn_status_success);
  e->count = s->count;
  for (int v = 0; v < 2; v++) {
    memcpy(s->in, shared.x[v], PIXELS * C);
    for (size_t i = 0; i < s->count; i++) {
      assert_int_equal(q8nn_run_operator(s->ops[i], NULL), q8nn_status_success);
      e->bytes[i] = s->bytes[i];
      e->out[v][i] = malloc(s->bytes[i]);
      assert_non_null(e->out[v][i]);
      memcpy(e->out[v][i], s->out[i], s->bytes[i]);
      memset(&e->stats[i], 0, sizeof(e->stats[i]));
      if (backend != NULL && q8nn_operator_get_backend(s->ops[i]) != NULL) {
        assert_int_equal(q8nn_vta_get_operator_stats(s->ops[i], &e->stats[i]), q8nn_status_success);
        assert_true(e->stats[i].instructions > 0);
      }
    }
  }
  delete_opset(s);
  free(s);
}

static void free_expected(struct expected* e) {
  for (int v = 0; v < 2; v++) {
    for (size_t i = 0; i < e->count; i++) free(e->out[v][i]);
  }
}

struct op_thread {
  pthread_t thread;
  size_t index, runs;
  pthreadpool_t pool; /* thread 0's own two-thread pool; NULL for the others */
  q8nn_backend_t backend;
  const struct expected* expected;
  uint64_t vta_instructions; /* what this thread's runs added to the backend's counter */
  struct failure failure;
};

static int check_outputs(struct op_thread* t, const struct opset* s, size_t run, int v, const char* how) {
  for (size_t i = 0; i < s->count; i++) {
    if (memcmp(s->out[i], t->expected->out[v][i], s->bytes[i]) != 0) {
      fail_on(&t->failure, "thread %zu run %zu (%s): %s differs from the single-threaded run", t->index, run, how,
              s->names[i]);
      return 0;
    }
  }
  return 1;
}

static void* operators_thread(void* arg) {
  struct op_thread* t = arg;
  struct opset* s = malloc(sizeof(*s));
  if (!CHECK(&t->failure, s != NULL, "thread %zu: no memory", t->index)) return NULL;
  enum q8nn_status st = create_opset(s, t->backend);
  if (st == q8nn_status_success) st = setup_opset(s);
  if (!CHECK(&t->failure, st == q8nn_status_success, "thread %zu: create/setup: %s", t->index, q8nn_status_string(st))) {
    delete_opset(s);
    free(s);
    return NULL;
  }
  for (size_t run = 0; run < t->runs && !t->failure.failed; run++) {
    if (run != 0 && run % SETUP_EVERY == 0) {
      st = setup_opset(s); /* same pointers: the kept plan and VTA programs are checked again */
      if (!CHECK(&t->failure, st == q8nn_status_success, "thread %zu run %zu: setup again: %s", t->index, run,
                 q8nn_status_string(st))) break;
    }
    const int v = (int) (run % 2);
    memcpy(s->in, shared.x[v], PIXELS * C);
    static const char* const hows[3] = {"list", "one by one", "list on a host pool"};
    const char* how = hows[run % 3];
    if (run % 3 == 0) {
      st = q8nn_run_operators(s->count, s->ops, t->pool);
    } else if (run % 3 == 1) {
      st = q8nn_status_success;
      for (size_t i = 0; i < s->count && st == q8nn_status_success; i++) st = q8nn_run_operator(s->ops[i], t->pool);
    } else {
      st = q8nn_run_operators_on(s->count, s->ops, &serial_pool);
    }
    if (!CHECK(&t->failure, st == q8nn_status_success, "thread %zu run %zu (%s): %s", t->index, run, how,
               q8nn_status_string(st))) break;
    if (!check_outputs(t, s, run, v, how)) break;
    for (size_t i = 0; i < s->count; i++) {
      if (t->backend == NULL || q8nn_operator_get_backend(s->ops[i]) == NULL) continue;
      struct q8nn_vta_stats got;
      st = q8nn_vta_get_operator_stats(s->ops[i], &got);
      const struct q8nn_vta_stats* want = &t->expected->stats[i];
      if (!CHECK(&t->failure, st == q8nn_status_success && got.instructions == want->instructions &&
                                  got.cycles == want->cycles && got.gemm_counter == want->gemm_counter &&
                                  got.alu_counter == want->alu_counter,
                 "thread %zu run %zu: %s's VTA counters (%llu instructions, %llu cycles) are not its own run's "
                 "(%llu, %llu)", t->index, run, s->names[i], (unsigned long long) got.instructions,
                 (unsigned long long) got.cycles, (unsigned long long) want->instructions,
                 (unsigned long long) want->cycles)) break;
      t->vta_instructions += got.instructions;
    }
  }
  delete_opset(s);
  free(s);
  return NULL;
}

/* THREADS threads, each with its own operators (on `backend` where it takes them). */
static void run_operator_threads(q8nn_backend_t backend) {
  const size_t runs = runs_per_thread();
  struct expected e;
  memset(&e, 0, sizeof(e));
  compute_expected(&e, backend);
  if (backend != NULL) assert_int_equal(q8nn_vta_reset_stats(backend), q8nn_status_success);
  pthreadpool_t pool = pthreadpool_create(2);
  assert_non_null(pool);
  struct op_thread t[THREADS];
  memset(t, 0, sizeof(t));
  const double start = seconds();
  for (size_t i = 0; i < THREADS; i++) {
    t[i].index = i;
    t[i].runs = runs;
    t[i].pool = i == 0 ? pool : NULL;
    t[i].backend = backend;
    t[i].expected = &e;
    assert_int_equal(pthread_create(&t[i].thread, NULL, operators_thread, &t[i]), 0);
  }
  uint64_t instructions = 0;
  for (size_t i = 0; i < THREADS; i++) {
    assert_int_equal(pthread_join(t[i].thread, NULL), 0);
    instructions += t[i].vta_instructions;
  }
  pthreadpool_destroy(pool);
  for (size_t i = 0; i < THREADS; i++) {
    if (t[i].failure.failed) fail_msg("%s", t[i].failure.what);
  }
  if (backend != NULL) {
    /* every program ran exactly once per run and thread: the backend's counter is their sum */
    uint64_t per_run = 0;
    for (size_t i = 0; i < e.count; i++) per_run += e.stats[i].instructions;
    assert_true(per_run > 0);
    struct q8nn_vta_stats total;
    assert_int_equal(q8nn_vta_get_stats(backend, &total), q8nn_status_success);
    assert_int_equal(total.instructions, instructions);
    assert_int_equal(total.instructions, per_run * runs * THREADS);
  }
  print_message("%d threads x %zu runs of %zu operators%s: the single-threaded bytes (%.1f s)\n", THREADS, runs,
                e.count, backend != NULL ? " (4 on one VTA backend)" : "", seconds() - start);
  free_expected(&e);
}

static void test_operators_on_threads(void** state) {
  (void) state;
  run_operator_threads(NULL);
}

static void test_operators_sharing_vta(void** state) {
  (void) state;
  q8nn_backend_t vta = NULL;
  assert_int_equal(q8nn_create_vta_backend(NULL, &vta), q8nn_status_success);
  side = 4;
  run_operator_threads(vta);
  side = MAX_SIDE;
  assert_int_equal(q8nn_delete_backend(vta), q8nn_status_success);
}

/* ---- models ---- */

enum { OP_CONV_2D = 3, OPT_CONV_2D = 1, OP_ADD = 0, OPT_ADD = 11 };

static struct tflw_tensor int8_tensor(const int32_t dims[4], const float* scale, const int64_t* zp) {
  struct tflw_tensor t;
  memset(&t, 0, sizeof(t));
  t.type = TFLW_INT8;
  t.num_dims = 4;
  memcpy(t.dims, dims, 4 * sizeof(int32_t));
  t.num_scales = 1;
  t.scales = scale;
  t.zero_points = zp;
  return t;
}

static struct tflw_op conv_op(int32_t input, int32_t filter, int32_t bias, int32_t output) {
  struct tflw_op op;
  memset(&op, 0, sizeof(op));
  op.builtin = OP_CONV_2D;
  op.num_inputs = 3;
  op.inputs[0] = input, op.inputs[1] = filter, op.inputs[2] = bias;
  op.output = output;
  op.options_type = OPT_CONV_2D;
  op.num_options = 3;
  op.options[0] = (struct tflw_field){0, 1, 0}; /* padding SAME */
  op.options[1] = (struct tflw_field){1, 4, 1}; /* stride_w */
  op.options[2] = (struct tflw_field){2, 4, 1}; /* stride_h */
  return op;
}

/* x -> 3x3 conv -> y1 -> 1x1 conv -> y2; y2 + y1 -> out, written to a temporary file. */
static void write_model(char* path, size_t path_size) {
  const int32_t image[4] = {1, (int32_t) side, (int32_t) side, C}, f3[4] = {CO, 3, 3, C}, f1[4] = {CO, 1, 1, CO};
  static float act_scale[4] = {0.05f, 0.09f, 0.07f, 0.12f};
  static int64_t act_zp[4] = {-5, 3, -1, 2}, filter_zp[CO];
  struct tflw_tensor t[8];
  t[0] = int8_tensor(image, &act_scale[0], &act_zp[0]);
  t[1] = int8_tensor(f3, shared.s3, filter_zp);
  t[1].num_scales = CO;
  t[1].data = shared.k3;
  t[1].data_bytes = sizeof(shared.k3);
  memset(&t[2], 0, sizeof(t[2]));
  t[2].type = TFLW_INT32;
  t[2].num_dims = 1;
  t[2].dims[0] = CO;
  t[2].data = shared.b3;
  t[2].data_bytes = sizeof(shared.b3);
  t[3] = int8_tensor(image, &act_scale[1], &act_zp[1]);
  t[4] = int8_tensor(f1, shared.s1, filter_zp);
  t[4].num_scales = CO;
  t[4].data = shared.k1;
  t[4].data_bytes = sizeof(shared.k1);
  t[5] = t[2];
  t[5].data = shared.b1;
  t[6] = int8_tensor(image, &act_scale[2], &act_zp[2]);
  t[7] = int8_tensor(image, &act_scale[3], &act_zp[3]);
  struct tflw_op ops[3] = {conv_op(0, 1, 2, 3), conv_op(3, 4, 5, 6)};
  memset(&ops[2], 0, sizeof(ops[2]));
  ops[2].builtin = OP_ADD;
  ops[2].num_inputs = 2;
  ops[2].inputs[0] = 6, ops[2].inputs[1] = 3;
  ops[2].output = 7;
  const int32_t inputs[1] = {0}, outputs[1] = {7};
  size_t size = 0;
  uint8_t* file = tflw_write(t, 8, ops, 3, inputs, 1, outputs, 1, &size);
  assert_non_null(file);
  const char* dir = getenv("TMPDIR");
  snprintf(path, path_size, "%s/q8nn-concurrency-XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp");
  const int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, file, size), (ssize_t) size);
  close(fd);
  free(file);
}

struct model_thread {
  pthread_t thread;
  size_t index, runs;
  const char* path;
  q8nn_backend_t backend;
  const int8_t* expected[2];
  size_t output_bytes;
  size_t on_backend; /* operators the model placed on the backend */
  struct failure failure;
};

static void* model_thread(void* arg) {
  struct model_thread* t = arg;
  struct q8nn_model_options options;
  memset(&options, 0, sizeof(options));
  options.backend = t->backend;
  q8nn_model_t m = NULL;
  char error[256] = "";
  const enum q8nn_status ls = q8nn_model_load_file(t->path, &options, &m, error, sizeof(error));
  if (!CHECK(&t->failure, ls == q8nn_status_success, "thread %zu: load: %s", t->index, error)) return NULL;
  for (size_t k = 0; k < q8nn_model_num_operators(m); k++) {
    struct q8nn_model_operator_info info;
    if (q8nn_model_get_operator_info(m, k, &info) == q8nn_status_success && strcmp(info.placement, "vta") == 0) {
      t->on_backend++;
    }
  }
  for (size_t run = 0; run < t->runs; run++) {
    const int v = (int) (run % 2);
    memcpy(q8nn_model_input_data(m, 0), shared.x[v], PIXELS * C);
    const enum q8nn_status st = q8nn_model_run(m, NULL);
    if (!CHECK(&t->failure, st == q8nn_status_success, "thread %zu run %zu: %s", t->index, run,
               q8nn_status_string(st))) break;
    if (!CHECK(&t->failure, memcmp(q8nn_model_output_data(m, 0), t->expected[v], t->output_bytes) == 0,
               "thread %zu run %zu: the output differs from the single-threaded run", t->index, run)) break;
  }
  q8nn_model_delete(m);
  return NULL;
}

static void run_model_threads(q8nn_backend_t backend) {
  char path[512];
  write_model(path, sizeof(path));
  /* single-threaded bytes of a model loaded from the same file */
  struct q8nn_model_options options;
  memset(&options, 0, sizeof(options));
  options.backend = backend;
  q8nn_model_t m = NULL;
  char error[256] = "";
  if (q8nn_model_load_file(path, &options, &m, error, sizeof(error)) != q8nn_status_success) fail_msg("load: %s", error);
  struct q8nn_model_tensor_info info;
  assert_int_equal(q8nn_model_output_info(m, 0, &info), q8nn_status_success);
  const size_t bytes = info.num_bytes;
  int8_t* expected[2];
  for (int v = 0; v < 2; v++) {
    expected[v] = malloc(bytes);
    assert_non_null(expected[v]);
    memcpy(q8nn_model_input_data(m, 0), shared.x[v], PIXELS * C);
    assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
    memcpy(expected[v], q8nn_model_output_data(m, 0), bytes);
  }
  q8nn_model_delete(m);
  const size_t runs = runs_per_thread();
  struct model_thread t[THREADS];
  memset(t, 0, sizeof(t));
  const double start = seconds();
  for (size_t i = 0; i < THREADS; i++) {
    t[i].index = i;
    t[i].runs = runs;
    t[i].path = path;
    t[i].backend = backend;
    t[i].expected[0] = expected[0];
    t[i].expected[1] = expected[1];
    t[i].output_bytes = bytes;
    assert_int_equal(pthread_create(&t[i].thread, NULL, model_thread, &t[i]), 0);
  }
  for (size_t i = 0; i < THREADS; i++) assert_int_equal(pthread_join(t[i].thread, NULL), 0);
  unlink(path);
  free(expected[0]);
  free(expected[1]);
  for (size_t i = 0; i < THREADS; i++) {
    if (t[i].failure.failed) fail_msg("%s", t[i].failure.what);
    if (backend != NULL) assert_true(t[i].on_backend >= 2); /* both convolutions (and the add) on VTA */
  }
  print_message("%d models from one file x %zu runs%s: the single-threaded bytes (%.1f s)\n", THREADS, runs,
                backend != NULL ? " (sharing one VTA backend)" : "", seconds() - start);
}

static void test_models_on_threads(void** state) {
  (void) state;
  run_model_threads(NULL);
}

static void test_models_sharing_vta(void** state) {
  (void) state;
  q8nn_backend_t vta = NULL;
  assert_int_equal(q8nn_create_vta_backend(NULL, &vta), q8nn_status_success);
  side = 4;
  run_model_threads(vta);
  side = MAX_SIDE;
  assert_int_equal(q8nn_delete_backend(vta), q8nn_status_success);
}

static int group_setup(void** state) {
  const int status = test_group_setup(state);
  fill_shared();
  return status;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_operators_on_threads),
      cmocka_unit_test(test_operators_sharing_vta),
      cmocka_unit_test(test_models_on_threads),
      cmocka_unit_test(test_models_sharing_vta),
  };
  return cmocka_run_group_tests(tests, group_setup, test_group_teardown);
}
