/*
 * q8nn_run_operators: a chain of operators of every CPU path (im2col stem, depthwise with a depth
 * multiplier: two loops, 1x1 gemm, igemm, adds of which one reads a tensor from three operators
 * back, one broadcast and one of a single element, one operator on the VTA backend) run as one
 * list must give the bytes that q8nn_run_operator gives operator by operator on the calling
 * thread, on every ISA mask and threadpool; bad lists are refused before anything is written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "q8nn.h"
#include "operator.h"
#include "testers/test-util.h"

enum { H = 17, W = 19, C0 = 3, C1 = 8, DM = 2, C2 = C1 * DM, C3 = 12, C4 = 12, CW = 256, MAX_OPS = 10 };

struct chain {
  q8nn_operator_t ops[MAX_OPS];
  size_t count;
  q8nn_backend_t vta;
  int8_t *x, *t1, *t2, *t3, *t4, *t5, *t6, *t7, *t8, *t9, *one_a, *one_b, *one_y;
  size_t oh, ow, bytes[MAX_OPS];
  int8_t* out[MAX_OPS];
};

static int8_t* buffer(size_t n) {
  int8_t* p = malloc(n);
  assert_non_null(p);
  memset(p, TEST_GUARD_BYTE, n);
  return p;
}

static struct q8nn_conv_quantization conv_quant(const float* kernel_scale, int32_t in_zp) {
  struct q8nn_conv_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = in_zp;
  q.input_scale = 0.05f;
  q.kernel_scale = kernel_scale;
  q.output_zero_point = -3;
  q.output_scale = 0.11f;
  q.output_min = -128;
  q.output_max = 127;
  q.rounding = q8nn_rounding_double;
  return q;
}

/* Random weights, bias and per-channel scales in [lo, hi) for `cout` channels. */
struct weights {
  int8_t* kernel;
  int32_t* bias;
  float* scales;
};

static struct weights random_weights(size_t kernel_bytes, size_t cout, int32_t bias_range, float lo, float hi) {
  struct weights w = {malloc(kernel_bytes), malloc(cout * sizeof(int32_t)), malloc(cout * sizeof(float))};
  assert_non_null(w.kernel);
  assert_non_null(w.bias);
  assert_non_null(w.scales);
  test_fill_s8(w.kernel, kernel_bytes);
  test_fill_s32_range(w.bias, cout, -bias_range, bias_range);
  for (size_t c = 0; c < cout; c++) w.scales[c] = test_rand_float(lo, hi);
  return w;
}

static void free_weights(struct weights* w) {
  free(w->kernel);
  free(w->bias);
  free(w->scales);
}

static q8nn_operator_t make_conv(uint32_t k, uint32_t stride, uint32_t pad, size_t cin, size_t cout) {
  struct q8nn_convolution2d_desc d;
  memset(&d, 0, sizeof(d));
  d.padding_top = d.padding_left = pad;
  d.padding_bottom = d.padding_right = pad;
  d.kernel_height = d.kernel_width = k;
  d.stride_height = d.stride_width = stride;
  d.dilation_height = d.dilation_width = 1;
  d.groups = 1;
  d.group_input_channels = cin;
  d.group_output_channels = cout;
  struct weights w = random_weights(cout * k * k * cin, cout, 5000, 0.004f, 0.03f);
  const struct q8nn_conv_quantization q = conv_quant(w.scales, (int32_t) test_rand_range(-20, 20));
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, w.kernel, w.bias, 0, &op), q8nn_status_success);
  free_weights(&w);
  return op;
}

/* A 1x1 convolution set up on oh x ow pixels of dense cin-channel input and cout-channel output. */
static q8nn_operator_t setup_1x1(size_t cin, size_t cout, size_t oh, size_t ow, const int8_t* in, int8_t* out) {
  q8nn_operator_t op = make_conv(1, 1, 0, cin, cout);
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, oh, ow, in, cin, out, cout, NULL, NULL),
                   q8nn_status_success);
  return op;
}

static q8nn_operator_t make_dw(size_t channels, size_t dm) {
  struct q8nn_depthwise_convolution2d_desc d;
  memset(&d, 0, sizeof(d));
  d.padding_top = d.padding_left = d.padding_bottom = d.padding_right = 1;
  d.kernel_height = d.kernel_width = 3;
  d.stride_height = d.stride_width = 1;
  d.dilation_height = d.dilation_width = 1;
  d.channels = channels;
  d.depth_multiplier = dm;
  const size_t cout = channels * dm;
  struct weights w = random_weights(9 * cout, cout, 3000, 0.01f, 0.08f);
  const struct q8nn_conv_quantization q = conv_quant(w.scales, -3);
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, w.kernel, w.bias, 0, &op),
                   q8nn_status_success);
  free_weights(&w);
  return op;
}

static q8nn_operator_t make_add(float sa, float sb) {
  struct q8nn_add_quantization q;
  memset(&q, 0, sizeof(q));
  q.a_zero_point = -3;
  q.a_scale = sa;
  q.b_zero_point = 5;
  q.b_scale = sb;
  q.output_zero_point = 2;
  q.output_scale = 0.17f;
  q.output_min = -128;
  q.output_max = 127;
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &op), q8nn_status_success);
  return op;
}

/* x -> stem (im2col) -> t1 -> dw dm 2 (expand + dw) -> t2 -> 1x1 (gemm) -> t3 -> add(t3, stem's
   t1 seen through a 1x1 of its own: t4) -> t5 [on VTA when `vta`] -> 3x3 igemm -> t6 -> add of t6
   and a broadcast row (b [C4]) -> t7; then an add of one element; then t7 -> 1x1 to CW channels (rows
   cut per thread) -> t8 -> 1x1 CW to CW (weights outweigh activations: channels cut per thread) -> t9. */
static void build(struct chain* ch, int vta) {
  memset(ch, 0, sizeof(*ch));
  size_t h = 0, w = 0;
  ch->x = buffer(H * W * C0);
  test_fill_s8(ch->x, H * W * C0);
  const size_t oh = (H + 2 - 3) / 2 + 1, ow = (W + 2 - 3) / 2 + 1, m = oh * ow;
  ch->oh = oh;
  ch->ow = ow;
  ch->t1 = buffer(m * C1);
  ch->t2 = buffer(m * C2);
  ch->t3 = buffer(m * C3);
  ch->t4 = buffer(m * C3);
  ch->t5 = buffer(m * C3);
  ch->t6 = buffer(m * C4);
  ch->t7 = buffer(m * C4);
  ch->t8 = buffer(m * CW);
  ch->t9 = buffer(m * CW);
  ch->one_a = buffer(1);
  ch->one_b = buffer(C4);
  ch->one_y = buffer(1);
  test_fill_s8(ch->one_b, C4);
  ch->one_a[0] = 77;

  q8nn_operator_t stem = make_conv(3, 2, 1, C0, C1);
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(stem, 1, H, W, ch->x, C0, ch->t1, C1, &h, &w), q8nn_status_success);
  assert_int_equal(h, oh);
  assert_int_equal(w, ow);
  q8nn_operator_t dw = make_dw(C1, DM);
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(dw, 1, oh, ow, ch->t1, C1, ch->t2, C2, NULL, NULL),
                   q8nn_status_success);
  q8nn_operator_t project = setup_1x1(C2, C3, oh, ow, ch->t2, ch->t3);
  q8nn_operator_t side = setup_1x1(C1, C3, oh, ow, ch->t1, ch->t4);
  q8nn_operator_t add = make_add(0.11f, 0.13f);
  if (vta) {
    assert_int_equal(q8nn_create_vta_backend(NULL, &ch->vta), q8nn_status_success);
    assert_int_equal(q8nn_operator_set_backend(add, ch->vta), q8nn_status_success);
  }
  const size_t shape[3] = {oh, ow, C3};
  assert_int_equal(q8nn_setup_add_nd_s8(add, 3, shape, 3, shape, ch->t3, ch->t4, ch->t5), q8nn_status_success);
  if (vta) assert_ptr_equal(q8nn_operator_get_backend(add), ch->vta);
  q8nn_operator_t conv = make_conv(3, 1, 1, C3, C4);
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(conv, 1, oh, ow, ch->t5, C3, ch->t6, C4, NULL, NULL),
                   q8nn_status_success);
  q8nn_operator_t bcast = make_add(0.17f, 0.05f);
  const size_t shape4[3] = {oh, ow, C4}, row[1] = {C4};
  assert_int_equal(q8nn_setup_add_nd_s8(bcast, 3, shape4, 1, row, ch->t6, ch->one_b, ch->t7), q8nn_status_success);
  q8nn_operator_t one = make_add(0.2f, 0.3f);
  assert_int_equal(q8nn_setup_add_nd_s8(one, 0, NULL, 1, (const size_t[]){1}, ch->one_a, ch->t7, ch->one_y),
                   q8nn_status_success);
  q8nn_operator_t widen = setup_1x1(C4, CW, oh, ow, ch->t7, ch->t8);
  q8nn_operator_t wide = setup_1x1(CW, CW, oh, ow, ch->t8, ch->t9);
  q8nn_operator_t list[] = {stem, dw, project, side, add, conv, bcast, one, widen, wide};
  int8_t* outs[] = {ch->t1, ch->t2, ch->t3, ch->t4, ch->t5, ch->t6, ch->t7, ch->one_y, ch->t8, ch->t9};
  const size_t sizes[] = {m * C1, m * C2, m * C3, m * C3, m * C3, m * C4, m * C4, 1, m * CW, m * CW};
  ch->count = sizeof(list) / sizeof(list[0]);
  for (size_t i = 0; i < ch->count; i++) {
    ch->ops[i] = list[i];
    ch->out[i] = outs[i];
    ch->bytes[i] = sizes[i];
  }
}

static void release(struct chain* ch) {
  for (size_t i = 0; i < ch->count; i++) q8nn_delete_operator(ch->ops[i]);
  q8nn_delete_backend(ch->vta);
  int8_t* bufs[] = {ch->x,  ch->t1, ch->t2, ch->t3,    ch->t4,    ch->t5,   ch->t6,
                    ch->t7, ch->t8, ch->t9, ch->one_a, ch->one_b, ch->one_y};
  for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) free(bufs[i]);
}

static void clear_outputs(struct chain* ch) {
  for (size_t i = 0; i < ch->count; i++) memset(ch->out[i], TEST_GUARD_BYTE, ch->bytes[i]);
}

/* The expected bytes: the chain operator by operator on the calling thread, copied (malloc). */
static void run_expected(struct chain* ch, int8_t* expected[MAX_OPS]) {
  for (size_t i = 0; i < ch->count; i++) {
    assert_int_equal(q8nn_run_operator(ch->ops[i], NULL), q8nn_status_success);
    expected[i] = malloc(ch->bytes[i]);
    assert_non_null(expected[i]);
    memcpy(expected[i], ch->out[i], ch->bytes[i]);
  }
}

static void run_chain_case(int vta) {
  uint32_t masks[8];
  const size_t nmasks = test_isa_masks(masks, 8);
  for (size_t mi = 0; mi < nmasks; mi++) {
    assert_int_equal(q8nn_set_isa_mask(masks[mi]), q8nn_status_success);
    struct chain ch;
    build(&ch, vta);
    int8_t* expected[MAX_OPS];
    run_expected(&ch, expected);
    for (size_t pi = 0; pi < TEST_NUM_THREADPOOLS; pi++) {
      for (int rep = 0; rep < 20; rep++) {
        clear_outputs(&ch);
        assert_int_equal(q8nn_run_operators(ch.count, ch.ops, test_threadpool(pi)), q8nn_status_success);
        for (size_t i = 0; i < ch.count; i++) {
          const size_t at = test_first_mismatch(expected[i], ch.out[i], ch.bytes[i]);
          if (at != SIZE_MAX) {
            fail_msg("%s, %zu threads, repetition %d: operator %zu differs at byte %zu (%d vs %d)",
                     test_isa_name(masks[mi]), test_threadpool_threads(pi), rep, i, at, expected[i][at],
                     ch.out[i][at]);
          }
        }
      }
    }
    for (size_t i = 0; i < ch.count; i++) free(expected[i]);
    release(&ch);
  }
  assert_int_equal(q8nn_set_isa_mask(UINT32_MAX), q8nn_status_success);
}

static void test_chain_cpu(void** state) {
  (void) state;
  run_chain_case(0);
}

static void test_chain_with_vta(void** state) {
  (void) state;
  run_chain_case(1);
}

/*
 * Inverted residual blocks (1x1 expand, 3x3 depthwise, 1x1 project, add of the block's input), as
 * MobileNetV2 chains them, in two buffer plans: every tensor its own buffer, and four buffers used
 * in turn as an arena would (a tensor's buffer taken again once no later operator reads it). Inside
 * q8nn_run_operators the barrier before a row-parted 1x1 or add that reads the rows its own thread
 * wrote is dropped (q8nn_work_needs_barrier); where a layer writes a buffer the one before it reads
 * or writes, or reads rows another thread wrote, it stays. The bytes must be those of the operators
 * run one by one, and the plan must be what those rules give.
 */
enum { RH = 12, RW = 10, RC = 16, RE = 64, RES_OPS = 9 }; /* batch 1 and 2 */

struct residual {
  q8nn_operator_t ops[RES_OPS];
  int8_t* bufs[RES_OPS + 1];
  int8_t* out[RES_OPS];
  size_t bytes[RES_OPS];
  size_t nbufs, px;
};

static q8nn_operator_t setup_dw_rows(size_t batch, int8_t* in, int8_t* out) {
  q8nn_operator_t op = make_dw(RE, 1);
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(op, batch, RH, RW, in, RE, out, RE, NULL, NULL),
                   q8nn_status_success);
  return op;
}

static q8nn_operator_t setup_residual_add(size_t batch, const int8_t* a, const int8_t* b, int8_t* y) {
  q8nn_operator_t op = make_add(0.11f, 0.13f);
  const size_t shape[4] = {batch, RH, RW, RC};
  assert_int_equal(q8nn_setup_add_nd_s8(op, 4, shape, 4, shape, a, b, y), q8nn_status_success);
  return op;
}

/* arena 0: x e1 d1 p1 a1 e2 d2 p2 a2 (own buffers) then a 1x1 of a2 into p2, which the add before
   it reads; arena 1: the same layers in four buffers A B C D:
     expand A->B, dw B->C, project C->D, add(D, A)->B, expand B->C, dw C->A, project A->D,
     add(D, B)->C, 1x1 C->D (writes what the add before it reads). */
static void build_residual(struct residual* r, int arena, size_t batch) {
  memset(r, 0, sizeof(*r));
  const size_t px = batch * RH * RW, big = px * RE;
  r->px = px;
  r->nbufs = arena ? 4 : RES_OPS + 1;
  for (size_t i = 0; i < r->nbufs; i++) r->bufs[i] = buffer(big);
  int8_t** b = r->bufs;
  test_fill_s8(b[0], px * RC);
  /* tensor k's buffer: own plan k, arena plan as in the comment */
  static const size_t arena_buf[RES_OPS + 1] = {0, 1, 2, 3, 1, 2, 0, 3, 2, 3};
  int8_t* t[RES_OPS + 1];
  for (size_t k = 0; k <= RES_OPS; k++) t[k] = b[arena ? arena_buf[k] : k];
  /* the 1x1 layers see the batch as batch x RH rows of one image: the same pixels and rows */
  const size_t rows = batch * RH;
  r->ops[0] = setup_1x1(RC, RE, rows, RW, t[0], t[1]);
  r->ops[1] = setup_dw_rows(batch, t[1], t[2]);
  r->ops[2] = setup_1x1(RE, RC, rows, RW, t[2], t[3]);
  r->ops[3] = setup_residual_add(batch, t[3], t[0], t[4]);
  r->ops[4] = setup_1x1(RC, RE, rows, RW, t[4], t[5]);
  r->ops[5] = setup_dw_rows(batch, t[5], t[6]);
  r->ops[6] = setup_1x1(RE, RC, rows, RW, t[6], t[7]);
  r->ops[7] = setup_residual_add(batch, t[7], t[4], t[8]);
  /* own plan: into p2's buffer, arena plan: into D; both are the add's first operand */
  r->ops[8] = setup_1x1(RC, RC, rows, RW, t[8], arena ? t[9] : t[7]);
  static const size_t channels[RES_OPS] = {RE, RE, RC, RC, RE, RE, RC, RC, RC};
  for (size_t i = 0; i < RES_OPS; i++) {
    r->out[i] = i == RES_OPS - 1 ? (arena ? t[9] : t[7]) : t[i + 1];
    r->bytes[i] = px * channels[i];
  }
}

static void release_residual(struct residual* r) {
  for (size_t i = 0; i < RES_OPS; i++) q8nn_delete_operator(r->ops[i]);
  for (size_t i = 0; i < r->nbufs; i++) free(r->bufs[i]);
}

/* The barriers a region keeps between consecutive loops (one loop per operator here). */
static void check_plan(struct residual* r, int arena, size_t threads, size_t* dw_relaxed) {
  struct q8nn_work works[RES_OPS][Q8NN_MAX_OPERATOR_WORKS];
  for (size_t i = 0; i < RES_OPS; i++) {
    assert_int_equal(q8nn_operator_works(r->ops[i], threads, 1, works[i]), 1);
  }
  for (size_t i = 1; i < RES_OPS; i++) {
    const int needs = q8nn_work_needs_barrier(&works[i - 1][0], &works[i][0], threads);
    /* before each depthwise layer: rows of both threads (its window crosses the part's edge) */
    if (i == 1 || i == 5) assert_true(needs);
    /* the adds and the expansion between them: the same rows as the layer before, buffers apart */
    if (i == 3 || i == 4 || i == 7) {
      if (needs) fail_msg("%zu threads, arena %d: barrier before operator %zu", threads, arena, i);
    }
    /* the last 1x1 writes the add's operand */
    if (i == 8) assert_true(needs);
    /* the projections read the depthwise output by rows: relaxed where its shares end at the
       parts (counted: the depthwise shares' rows must be relaxed somewhere) */
    if ((i == 2 || i == 6) && !needs) (*dw_relaxed)++;
  }
  assert_true(q8nn_work_needs_barrier(&works[0][0], &works[0][0], threads)); /* one layer after itself */
}

static void test_residual_chain(void** state) {
  (void) state;
  uint32_t masks[8];
  const size_t nmasks = test_isa_masks(masks, 8);
  size_t dw_relaxed = 0;
  for (size_t mi = 0; mi < nmasks; mi++) {
    assert_int_equal(q8nn_set_isa_mask(masks[mi]), q8nn_status_success);
    for (int plan = 0; plan < 4; plan++) {
      const int arena = plan & 1;
      const size_t batch = 1 + (size_t) (plan >> 1);
      struct residual r;
      build_residual(&r, arena, batch);
      for (size_t threads = 2; threads <= 4; threads++) check_plan(&r, arena, threads, &dw_relaxed);
      /* expected: operator by operator on the calling thread; checked where no later operator
         writes the same buffer */
      int8_t* input = malloc(r.px * RC);
      assert_non_null(input);
      memcpy(input, r.bufs[0], r.px * RC);
      int8_t* expected[RES_OPS];
      int final[RES_OPS];
      for (size_t i = 0; i < RES_OPS; i++) {
        assert_int_equal(q8nn_run_operator(r.ops[i], NULL), q8nn_status_success);
        expected[i] = malloc(r.bytes[i]);
        assert_non_null(expected[i]);
        memcpy(expected[i], r.out[i], r.bytes[i]);
        final[i] = 1;
        for (size_t j = i + 1; j < RES_OPS; j++) final[i] &= r.out[j] != r.out[i];
      }
      for (size_t pi = 0; pi < TEST_NUM_THREADPOOLS; pi++) {
        for (int rep = 0; rep < 40; rep++) {
          for (size_t i = 1; i < r.nbufs; i++) memset(r.bufs[i], TEST_GUARD_BYTE, r.px * RE);
          memcpy(r.bufs[0], input, r.px * RC); /* the arena overwrites its first buffer */
          assert_int_equal(q8nn_run_operators(RES_OPS, r.ops, test_threadpool(pi)), q8nn_status_success);
          for (size_t i = 0; i < RES_OPS; i++) {
            if (!final[i]) continue;
            const size_t at = test_first_mismatch(expected[i], r.out[i], r.bytes[i]);
            if (at != SIZE_MAX) {
              fail_msg("%s, %zu threads, arena %d, batch %zu, repetition %d: operator %zu differs at byte %zu (%d vs %d)",
                       test_isa_name(masks[mi]), test_threadpool_threads(pi), arena, batch, rep, i, at, expected[i][at],
                       r.out[i][at]);
            }
          }
        }
      }
      free(input);
      for (size_t i = 0; i < RES_OPS; i++) free(expected[i]);
      release_residual(&r);
    }
  }
  assert_true(dw_relaxed > 0);
  assert_int_equal(q8nn_set_isa_mask(UINT32_MAX), q8nn_status_success);
}

/* An operator keeps the loops of its last run until the next setup: set up again on another
   shape (and a list around it), it must run the new shape's loops. Outputs have guard bytes after
   them; a stale plan of the larger shape writes past the smaller one. */

static void test_setup_again(void** state) {
  (void) state;
  const size_t big = 14 * 11, small = 5 * 3, guard = 64;
  int8_t* x = buffer(big * RC);
  int8_t* y = buffer(big * RE + guard);
  int8_t* z = buffer(big * RC + guard);
  int8_t* expected_y = buffer(small * RE);
  int8_t* expected_z = buffer(small * RC);
  int8_t* w = buffer(big * RC + guard);
  int8_t* expected_w = buffer(small * RC);
  test_fill_s8(x, big * RC);
  q8nn_operator_t up = make_conv(1, 1, 0, RC, RE), down = make_conv(1, 1, 0, RE, RC), add = make_add(0.11f, 0.13f);
  q8nn_operator_t list[3] = {up, down, add};
  const size_t big_shape[3] = {14, 11, RC}, small_shape[3] = {5, 3, RC};
  for (size_t pi = 0; pi < TEST_NUM_THREADPOOLS; pi++) {
    pthreadpool_t pool = test_threadpool(pi);
    assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(up, 1, 14, 11, x, RC, y, RE, NULL, NULL), q8nn_status_success);
    assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(down, 1, 14, 11, y, RE, z, RC, NULL, NULL), q8nn_status_success);
    assert_int_equal(q8nn_setup_add_nd_s8(add, 3, big_shape, 3, big_shape, z, x, w), q8nn_status_success);
    assert_int_equal(q8nn_run_operators(3, list, pool), q8nn_status_success);
    assert_int_equal(q8nn_run_operator(up, pool), q8nn_status_success);
    assert_int_equal(q8nn_run_operator(add, pool), q8nn_status_success);
    /* the small shape: expected on the calling thread, then the list and each operator on the pool */
    assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(up, 1, 5, 3, x, RC, y, RE, NULL, NULL), q8nn_status_success);
    assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(down, 1, 5, 3, y, RE, z, RC, NULL, NULL), q8nn_status_success);
    assert_int_equal(q8nn_setup_add_nd_s8(add, 3, small_shape, 3, small_shape, z, x, w), q8nn_status_success);
    assert_int_equal(q8nn_run_operators(3, list, NULL), q8nn_status_success);
    memcpy(expected_y, y, small * RE);
    memcpy(expected_z, z, small * RC);
    memcpy(expected_w, w, small * RC);
    for (int how = 0; how < 2; how++) {
      memset(y, TEST_GUARD_BYTE, big * RE + guard);
      memset(z, TEST_GUARD_BYTE, big * RC + guard);
      memset(w, TEST_GUARD_BYTE, big * RC + guard);
      if (how == 0) {
        assert_int_equal(q8nn_run_operators(3, list, pool), q8nn_status_success);
      } else {
        for (size_t i = 0; i < 3; i++) {
          assert_int_equal(q8nn_run_operator(list[i], pool), q8nn_status_success);
        }
      }
      assert_int_equal(test_first_mismatch(expected_w, w, small * RC), SIZE_MAX);
      for (size_t i = small * RC; i < big * RC + guard; i++) assert_int_equal(w[i], TEST_GUARD_BYTE);
      assert_int_equal(test_first_mismatch(expected_y, y, small * RE), SIZE_MAX);
      assert_int_equal(test_first_mismatch(expected_z, z, small * RC), SIZE_MAX);
      for (size_t i = small * RE; i < big * RE + guard; i++) assert_int_equal(y[i], TEST_GUARD_BYTE);
      for (size_t i = small * RC; i < big * RC + guard; i++) assert_int_equal(z[i], TEST_GUARD_BYTE);
    }
  }
  q8nn_delete_operator(up);
  q8nn_delete_operator(down);
  q8nn_delete_operator(add);
  free(x), free(y), free(z), free(w), free(expected_y), free(expected_z), free(expected_w);
}

/* Checks operator k of the chain against `expected` and that nothing follows its output. */
static void check_output(const struct chain* ch, size_t k, const int8_t* expected, size_t bytes, size_t capacity,
                         const char* what) {
  const size_t at = test_first_mismatch(expected, ch->out[k], bytes);
  if (at != SIZE_MAX) fail_msg("%s: operator %zu differs at byte %zu", what, k, at);
  for (size_t i = bytes; i < capacity; i++) assert_int_equal(ch->out[k][i], TEST_GUARD_BYTE);
}

/* q8nn_run_operators keeps a list's plan in the list's first operator. The chain again after each
   of its operators ran alone on another pool (which re-derives their loops for that thread count),
   lists that share the first operator run in turn (two of the same length), and the whole chain
   again after its last operator was deleted and replaced by one of another width (possibly at the
   same address): every run gives the bytes of the operators run one by one. */
static void test_kept_plans(void** state) {
  (void) state;
  struct chain ch;
  build(&ch, 0);
  int8_t* expected[MAX_OPS];
  run_expected(&ch, expected);
  const size_t m = ch.oh * ch.ow, last = ch.count - 1;
  /* stem then side (reads the stem's output); stem then dw; stem, dw, project */
  q8nn_operator_t side[2] = {ch.ops[0], ch.ops[3]}, dw[2] = {ch.ops[0], ch.ops[1]};
  q8nn_operator_t prefix[3] = {ch.ops[0], ch.ops[1], ch.ops[2]};
  for (size_t pi = 0; pi < TEST_NUM_THREADPOOLS; pi++) {
    pthreadpool_t pool = test_threadpool(pi);
    for (int rep = 0; rep < 4; rep++) {
      clear_outputs(&ch);
      assert_int_equal(q8nn_run_operators(ch.count, ch.ops, pool), q8nn_status_success);
      for (size_t i = 0; i < ch.count; i++) check_output(&ch, i, expected[i], ch.bytes[i], ch.bytes[i], "chain");
      /* each operator alone on another pool (its own loops for that thread count), then the
         chain's kept plan again */
      for (size_t i = 0; i < ch.count; i++) {
        assert_int_equal(q8nn_run_operator(ch.ops[i], test_threadpool((pi + 1) % TEST_NUM_THREADPOOLS)),
                         q8nn_status_success);
      }
      clear_outputs(&ch);
      assert_int_equal(q8nn_run_operators(ch.count, ch.ops, pool), q8nn_status_success);
      for (size_t i = 0; i < ch.count; i++) check_output(&ch, i, expected[i], ch.bytes[i], ch.bytes[i], "after singles");
      clear_outputs(&ch);
      assert_int_equal(q8nn_run_operators(2, side, pool), q8nn_status_success);
      check_output(&ch, 0, expected[0], ch.bytes[0], ch.bytes[0], "stem, side");
      check_output(&ch, 3, expected[3], ch.bytes[3], ch.bytes[3], "stem, side");
      check_output(&ch, 1, expected[1], 0, ch.bytes[1], "stem, side: dw untouched");
      clear_outputs(&ch);
      assert_int_equal(q8nn_run_operators(2, dw, pool), q8nn_status_success);
      check_output(&ch, 1, expected[1], ch.bytes[1], ch.bytes[1], "stem, dw");
      check_output(&ch, 3, expected[3], 0, ch.bytes[3], "stem, dw: side untouched");
      clear_outputs(&ch);
      assert_int_equal(q8nn_run_operators(3, prefix, pool), q8nn_status_success);
      for (size_t i = 0; i < 3; i++) check_output(&ch, i, expected[i], ch.bytes[i], ch.bytes[i], "prefix");
    }
  }
  /* the last 1x1 replaced by one of half the channels, into the same buffer */
  q8nn_delete_operator(ch.ops[last]);
  ch.ops[last] = setup_1x1(CW, CW / 2, ch.oh, ch.ow, ch.t8, ch.t9);
  const size_t half = m * (CW / 2);
  memcpy(ch.t8, expected[last - 1], ch.bytes[last - 1]); /* its input, as the chain writes it */
  memset(ch.t9, TEST_GUARD_BYTE, ch.bytes[last]);
  assert_int_equal(q8nn_run_operator(ch.ops[last], NULL), q8nn_status_success);
  memcpy(expected[last], ch.t9, half);
  for (size_t pi = 0; pi < TEST_NUM_THREADPOOLS; pi++) {
    clear_outputs(&ch);
    assert_int_equal(q8nn_run_operators(ch.count, ch.ops, test_threadpool(pi)), q8nn_status_success);
    for (size_t i = 0; i < last; i++) check_output(&ch, i, expected[i], ch.bytes[i], ch.bytes[i], "replaced");
    check_output(&ch, last, expected[last], half, ch.bytes[last], "replaced");
  }
  for (size_t i = 0; i < ch.count; i++) free(expected[i]);
  release(&ch);
}

/* Refused lists write nothing: every operator is checked before the first runs. */
static void test_bad_lists(void** state) {
  (void) state;
  struct chain ch;
  build(&ch, 0);
  for (size_t pi = 0; pi < TEST_NUM_THREADPOOLS; pi++) {
    pthreadpool_t pool = test_threadpool(pi);
    assert_int_equal(q8nn_run_operators(0, NULL, pool), q8nn_status_success);
    assert_int_equal(q8nn_run_operators(1, NULL, pool), q8nn_status_invalid_parameter);
    clear_outputs(&ch);
    q8nn_operator_t with_null[3] = {ch.ops[0], ch.ops[1], NULL};
    assert_int_equal(q8nn_run_operators(3, with_null, pool), q8nn_status_invalid_parameter);
    q8nn_operator_t not_setup = make_add(0.1f, 0.1f);
    q8nn_operator_t with_unset[3] = {ch.ops[0], ch.ops[1], not_setup};
    assert_int_equal(q8nn_run_operators(3, with_unset, pool), q8nn_status_invalid_state);
    q8nn_delete_operator(not_setup);
    for (size_t i = 0; i < ch.count; i++) {
      for (size_t j = 0; j < ch.bytes[i]; j++) assert_int_equal(ch.out[i][j], TEST_GUARD_BYTE);
    }
  }
  release(&ch);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_cpu),
      cmocka_unit_test(test_chain_with_vta),
      cmocka_unit_test(test_residual_chain),
      cmocka_unit_test(test_setup_again),
      cmocka_unit_test(test_kept_plans),
      cmocka_unit_test(test_bad_lists),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
