/* The operator object behind q8nn_operator_t. One struct for all operator types: create fills the
   constant part (packed weights, requantization), setup the shape part (sizes, pointers,
   indirection), run only reads it. */
#ifndef Q8NN_OPERATOR_H
#define Q8NN_OPERATOR_H

#include "common.h"
#include "dispatch.h"

enum q8nn_operator_type {
  q8nn_operator_type_convolution = 1,
  q8nn_operator_type_depthwise = 2,
  q8nn_operator_type_add = 3,
  q8nn_operator_type_unary = 4, /* unary elementwise and lookup: one 256-entry table */
  q8nn_operator_type_pooling = 5, /* max or average pooling 2D */
  q8nn_operator_type_resize = 6,  /* resize 2D (resize-nhwc.c) */
  q8nn_operator_type_concatenate = 7, /* concatenation along any axis (concatenate-nd.c) */
  q8nn_operator_type_channel_shuffle = 8,
  q8nn_operator_type_softmax = 9,
};

/* How a convolution runs on the CPU. */
enum q8nn_conv_path {
  q8nn_conv_path_gemm = 1,   /* 1x1, stride 1, no padding: GEMM over NHWC pixels */
  q8nn_conv_path_igemm = 2,  /* anything else: indirection buffer */
  q8nn_conv_path_dwconv = 3, /* one input and one output channel per group */
  q8nn_conv_path_im2col = 4, /* few input channels (see below): per tile of MR pixels, the taps'
                                channels gathered into rows of K = taps * channels, then gemm */
};

/* Geometry of a convolution or depthwise convolution (depthwise: groups = channels,
   group_input_channels = 1, group_output_channels = depth multiplier). */
struct q8nn_conv_geometry {
  uint32_t padding_top, padding_right, padding_bottom, padding_left;
  uint32_t kernel_height, kernel_width, stride_height, stride_width, dilation_height, dilation_width;
  size_t groups, group_input_channels, group_output_channels;
};

/* im2col path: one group, not the gemm path (a kernel larger than 1x1, a stride or padding),
   fewer than Q8NN_IM2COL_MAX_CHANNELS input channels (each tap would fill less than a kernel's K
   group: the first convolution of image models, 3 channels) and taps * channels <=
   Q8NN_IM2COL_MAX_K (the rows of a tile sit in a stack buffer of run). Weights are packed as a
   1x1 convolution with K = taps * channels; the dispatch's gemm kernel runs it. */
#define Q8NN_IM2COL_MAX_CHANNELS 8
#define Q8NN_IM2COL_MAX_K 256
/* Q8NN_IM2COL_MAX_MR and _ROW_KR: dispatch.h */
/* rows gathered per im2col task: the largest multiple of MR up to 48, or up to 96 for MR > 16 (the
   AMX line, whose call configures its tiles: three row blocks per call) */
#define Q8NN_IM2COL_TILE_ROWS 96

/*
 * One parallel loop of an operator's CPU run: the tiles of a pthreadpool_parallelize_* call, kept
 * as data so that the same tiles can run either through that call (q8nn_run_operator) or inside
 * one parallel region for several operators (q8nn_run_operators, run-sequence.c). Four dimensions,
 * the last two tiled (tile[0] = tile[1] = 1); tiles are numbered as pthreadpool numbers them,
 * dimension 3 fastest, so a static split of the numbers is pthreadpool's split.
 */
enum q8nn_work_kind {
  q8nn_work_1d,          /* fn(ctx, i3) */
  q8nn_work_2d_tile_1d,  /* fn(ctx, i2, i3, n3) */
  q8nn_work_3d_tile_1d,  /* fn(ctx, i1, i2, i3, n3) */
  q8nn_work_3d_tile_2d,  /* fn(ctx, i1, i2, i3, n2, n3) */
  q8nn_work_4d_tile_2d,  /* fn(ctx, i0, i1, i2, i3, n2, n3) */
};

struct q8nn_work {
  enum q8nn_work_kind kind;
  void (*fn)(void);      /* a pthreadpool task of the type of `kind` */
  void* context;
  size_t range[4];
  size_t tile[4];
  size_t tiles[4];       /* ceil(range / tile) per dimension */
  int caller_only;       /* run on the calling thread by q8nn_run_operator (a small add) */
};

/* Operators that only move bytes (lookups, channel shuffle, concatenation) run on the calling thread
   below this many bytes when they run alone (q8nn_run_operator): at 30-90 GB/s on one core, 256 KB
   takes 3-8 us, about what waking a second thread costs; inside PyTorch (OpenMP's fork and join),
   2 threads ran 188-200 KB lookups no faster than one and a 91 KB channel shuffle 3.8x slower
   (AMD Zen 4, bench_torch_ops.py). */
#define Q8NN_MOVE_MIN_PARALLEL_BYTES ((size_t) 1 << 18)

#define Q8NN_MAX_OPERATOR_WORKS 2

struct q8nn_backend;
struct q8nn_list_plan;
struct q8nn_operator;

/*
 * What the run machinery needs of an operator type that runs its own loops (every type but the
 * convolutions and the add, which predate it): its loops for a thread count (as
 * q8nn_operator_works), the bytes it reads (output 0, one span) and writes (output 1) for
 * q8nn_work_needs_barrier, and the release of what the type allocated beyond the struct. Adding
 * such an operator touches its own file and this struct's instance there.
 */
struct q8nn_operator_class {
  size_t (*works)(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works);
  void (*span)(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end);
  void (*release)(struct q8nn_operator* op); /* may be NULL */
};

struct q8nn_operator {
  enum q8nn_operator_type type;
  const struct q8nn_operator_class* cls; /* NULL: convolution, depthwise, add */
  char kernel_name[96];

  /* ---- convolution and depthwise (constant after create) ---- */
  struct q8nn_conv_geometry geometry;
  enum q8nn_conv_path path;
  enum q8nn_rounding rounding;
  int32_t input_zero_point;
  struct q8nn_qs8_conv_params conv_params;
  /* Unpacked copies for backends that re-lay weights out their own way: kernel OHWI (grouped),
     bias (zeros when NULL was given), per-output-channel multiplier and shift (with
     q8nn_rounding_fp32: the float scale's bits and 0, see kernels/ukernel.h). */
  int8_t* kernel;
  int32_t* bias;
  int32_t* multiplier;
  int32_t* shift;
  void* packed_weights;
  size_t packed_group_stride; /* bytes of packed weights per group (gemm/igemm) */
  uint32_t mr, nr;            /* tile of the gemm/igemm kernel */
  /* List line chosen at create (packing family); setup re-chooses MR inside it (tile-select.c). */
  const struct q8nn_gemm_entry* gemm_entry;
  const struct q8nn_igemm_entry* igemm_entry;
  size_t im2col_k;            /* im2col path: K = taps * channels rounded up to min(KR, Q8NN_IM2COL_ROW_KR) */
  q8nn_qs8_gemm_ukernel_fn gemm;
  uint32_t gemm_mloop;        /* the gemm line's mloop: one call may take more than MR rows */
  /* The loops of the last run (q8nn_operator_works) for plan_threads threads, in a region or not;
     plan_threads 0 (every setup) = none. They depend on the setup and the thread count only, and
     cost about 0.1 us an operator to derive: a network pass of 62 reused them instead of spending
     about 6 us on them each time. Row-parted tasks (gemm_part_task, add_part_task) cut one part
     per plan thread. One run at a time per operator (q8nn.h). */
  struct q8nn_work plan[Q8NN_MAX_OPERATOR_WORKS];
  size_t plan_count, plan_threads;
  int plan_in_region;
  q8nn_qs8_igemm_ukernel_fn igemm;
  q8nn_qs8_dwconv_ukernel_fn dwconv;
  size_t dwconv_channel_tile; /* CT of the dwconv line: packed blocks of CT channels */
  int8_t* zero_buffer; /* input zero point, `zero_size` bytes: the row padding taps point at */
  size_t zero_size;

  /* ---- convolution setup ---- */
  size_t batch_size, input_height, input_width, output_height, output_width;
  size_t input_pixel_stride, output_pixel_stride;
  const int8_t* input;
  int8_t* output;
  const int8_t** indirection;
  size_t indirection_capacity; /* pointers allocated */
  /* The indirection buffer holds pointers into indirection_base (the input, or expanded_input)
     for indirection_tile pixels a tile and the input size and pixel stride of the setup that
     built it (indirection_tile 0: none built). A later setup with that shape only sets
     input_delta = (new base) - indirection_base, which the tasks add to every kernel's offset
     (modulo 2^N, as integers): a re-setup with new pointers costs the same whatever the layer's
     size. */
  const int8_t* indirection_base;
  size_t indirection_tile;
  size_t indirection_input_height, indirection_input_width, indirection_pixel_stride;
  size_t input_delta;
  /* dwconv with depth multiplier dm > 1: input pixels with each channel repeated dm times,
     [batch][height][width][channels * dm], filled by run */
  int8_t* expanded_input;
  size_t expanded_capacity;

  /* ---- add ---- */
  struct q8nn_qs8_add_params add_params;
  struct q8nn_qs8_add_params add_params_swapped; /* a and b exchanged, for a broadcast `a` */
  enum q8nn_add_arithmetic add_arithmetic;
  q8nn_qs8_vadd_ukernel_fn vadd, vaddc;
  size_t add_a_shape[Q8NN_MAX_DIMS], add_b_shape[Q8NN_MAX_DIMS]; /* as given, right-aligned */
  size_t add_out_shape[Q8NN_MAX_DIMS];
  size_t add_rank;
  /* run plan: outer loop over add_outer_shape (5 dims), inner run of add_inner elements */
  size_t add_outer_shape[Q8NN_MAX_DIMS - 1];
  size_t add_a_stride[Q8NN_MAX_DIMS - 1], add_b_stride[Q8NN_MAX_DIMS - 1], add_y_stride[Q8NN_MAX_DIMS - 1];
  size_t add_outer_count, add_inner;
  int add_inner_mode; /* 0: a and b both dense, 1: b broadcast, 2: a broadcast */
  /* multiply-nd.c: an add-shaped operator whose vadd / vaddc look the products up (add_params'
     mul_ fields); mul_tables is their one allocation */
  int add_multiply;
  uint8_t* mul_tables;
  const int8_t* add_a;
  const int8_t* add_b;
  int8_t* add_y;

  /* ---- unary elementwise / lookup (unary-elementwise-nc.c) ---- */
  uint8_t* lut_packed;    /* the lut line's form of the table, Q8NN_LUT_PACKED_BYTES, 64-byte aligned */
  uint8_t lut_table[256]; /* out byte = lut_table[in byte] (uint8 operators: their own bytes) */
  q8nn_x8_lut_ukernel_fn lut;
  size_t rows, row_elements, input_row_stride, output_row_stride; /* setup: rows of row_elements bytes */
  const uint8_t* unary_x;
  uint8_t* unary_y;

  /* ---- pooling (pooling-nhwc.c); geometry holds the window, stride and padding ---- */
  int pooling_average;
  q8nn_pool_ukernel_fn pool_kernel; /* the active ISA's max or average kernel, chosen at create */
  q8nn_maxpool_row_ukernel_fn maxpool_row_kernel; /* max pooling's interior windows, a row at a time; or NULL */
  struct q8nn_pool_params pool_params; /* int8 clamp (uint8 operators: minus 128), flip, requantization */
  size_t pooling_channels;

  /* ---- resize (resize-nhwc.c): its own state, allocated at create, freed by its class ---- */
  void* resize_state;
  /* ---- concatenation, channel shuffle: their own state, freed by their class ---- */
  void* class_state;

  /* transposed convolution (deconvolution-nhwc.c): the igemm path with an indirection that
     gathers, for output pixel (oy, ox) and tap (ky, kx), input pixel ((oy + pad_top - ky * dil_h) /
     stride_h, ...) where that division is exact and inside the image, else the zero buffer; the
     output grows by the adjustment (PyTorch's output_padding) below and right */
  int transposed;
  uint32_t adjustment_height, adjustment_width;
  int fully_connected; /* a convolution created by q8nn_create_fully_connected_nc_* (1x1, rows as pixels) */

  int is_setup;
  int u8; /* uint8 activations (q8nn_create_*_u8): conv_params' flips, or the add's chunked flips */
  /* A number no other setup of any operator had (q8nn_next_setup_serial), taken by every setup, and
     the q8nn_run_operators plan of the last list this operator came first in (run-sequence.c; owned
     here, freed with the operator): the plan is kept while every operator of its list keeps its
     serial. */
  uint64_t setup_serial;
  struct q8nn_list_plan* list_plan;

  /* ---- backend ---- */
  struct q8nn_backend* backend; /* NULL = CPU */
  void* backend_state;
};

Q8NN_INTERNAL struct q8nn_operator* q8nn_allocate_operator(enum q8nn_operator_type type);
Q8NN_INTERNAL uint64_t q8nn_next_setup_serial(void);
Q8NN_INTERNAL void q8nn_free_list_plan(struct q8nn_list_plan* plan);

/* Shared by convolution and depthwise: validates quantization, computes per-channel multipliers,
   selects and packs the kernel. `kernel_ohwi` is grouped OHWI, bias may be NULL. On failure
   nothing is left allocated in op beyond what q8nn_delete_operator frees. */
Q8NN_INTERNAL enum q8nn_status q8nn_create_conv_common(
    struct q8nn_operator* op, const struct q8nn_conv_geometry* geometry,
    const struct q8nn_conv_quantization* quant, const int8_t* kernel_ohwi, const int32_t* bias,
    uint32_t flags, const char* caller);

/* A convolution object from the public descriptor (validated), transposed or not: the convolution's
   and the transposed convolution's create. */
Q8NN_INTERNAL enum q8nn_status q8nn_create_convolution_object(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, int u8, int transposed,
    q8nn_operator_t* convolution_out, const char* caller);

/* The int8 form of a uint8 quantization (zero points and clamp - 128); invalid_parameter for zero
   points outside [0, 255] or output_min > output_max. */
Q8NN_INTERNAL enum q8nn_status q8nn_conv_quantization_from_u8(const struct q8nn_conv_quantization_u8* quant,
                                                              struct q8nn_conv_quantization* s8, const char* caller);

/* Shared setup of convolution and depthwise. */
Q8NN_INTERNAL enum q8nn_status q8nn_setup_conv_common(
    struct q8nn_operator* op, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out, const char* caller);

/* Whether `count` rows (pixels) of `bytes` used bytes each, `stride` apart, from base end inside the
   address space: the products fit in size_t and base plus the last byte's offset does not wrap
   (every setup checks its buffers so; count and bytes >= 1). */
static inline int q8nn_extent_fits(const void* base, size_t count, size_t bytes, size_t stride) {
  size_t last;
  if (!q8nn_mul_sz(count - 1, stride, &last) || last > SIZE_MAX - bytes) return 0;
  return (uintptr_t) base <= UINTPTR_MAX - (last + bytes - 1);
}

/* The checks of an elementwise operator's rows (unary, softmax): batch_size rows of `channels`
   bytes, input and output strides apart. invalid_parameter (logged for `caller`) for NULL buffers,
   zero sizes, strides below the channels, extents past the address space, or an output that
   overlaps the input other than exactly (same pointer and stride: rows that overlap otherwise
   would be read after an earlier row's output overwrote them). */
static inline enum q8nn_status q8nn_check_rows(size_t batch_size, size_t channels, const void* input,
                                               size_t input_stride, const void* output, size_t output_stride,
                                               const char* caller) {
  if (input == NULL || output == NULL || batch_size == 0 || channels == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "NULL buffer or zero size");
  }
  if (input_stride < channels || output_stride < channels) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "strides %zu, %zu below %zu channels", input_stride,
                          output_stride, channels);
  }
  if (!q8nn_extent_fits(input, batch_size, channels, input_stride) ||
      !q8nn_extent_fits(output, batch_size, channels, output_stride)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "the rows' extent overflows the address space");
  }
  const uintptr_t ib = (uintptr_t) input, ob = (uintptr_t) output;
  const size_t in_bytes = (batch_size - 1) * input_stride + channels;
  const size_t out_bytes = (batch_size - 1) * output_stride + channels;
  if (ib < ob + out_bytes && ob < ib + in_bytes && (input != output || input_stride != output_stride)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                          "the output overlaps the input other than exactly (same pointer and stride)");
  }
  return q8nn_status_success;
}

/* Where a run's parallel loops go: the caller's pthreadpool, the host's parallel-for (struct
   q8nn_threadpool), or, both NULL, the calling thread. */
struct q8nn_exec {
  pthreadpool_t pool;
  const struct q8nn_threadpool* host;
};

static inline struct q8nn_exec q8nn_exec_pool(pthreadpool_t pool) {
  const struct q8nn_exec e = {pool, NULL};
  return e;
}

/* Threads a loop may use (>= 1). */
Q8NN_INTERNAL size_t q8nn_exec_threads(const struct q8nn_exec* exec);
/* fn(context, i) for i in [0, range), spread over the exec's threads; returns when all are done. */
Q8NN_INTERNAL void q8nn_exec_parallelize_1d(const struct q8nn_exec* exec, void (*fn)(void*, size_t), void* context,
                                            size_t range);
/* A work (q8nn_operator_works) through the pthreadpool call it describes, or as the host
   parallel-for's pieces of its tile numbers; on the calling thread when w->caller_only. */
Q8NN_INTERNAL void q8nn_exec_work(const struct q8nn_work* w, const struct q8nn_exec* exec);

Q8NN_INTERNAL enum q8nn_status q8nn_run_conv_cpu(struct q8nn_operator* op, const struct q8nn_exec* exec);
/* Any CPU operator (the type's run). */
Q8NN_INTERNAL enum q8nn_status q8nn_run_cpu(struct q8nn_operator* op, const struct q8nn_exec* exec);
Q8NN_INTERNAL enum q8nn_status q8nn_run_add_cpu(struct q8nn_operator* op, const struct q8nn_exec* exec);
/* The broadcast setup of an add (multiply 0) or a multiply (1), int8 or uint8 (u8): the operator's
   kind checked, then shapes, loops, pointers (add-nd.c). */
Q8NN_INTERNAL enum q8nn_status q8nn_setup_binary_nd(q8nn_operator_t op, int multiply, int u8, size_t num_a_dims,
                                                    const size_t* a_shape, size_t num_b_dims, const size_t* b_shape,
                                                    const int8_t* a, const int8_t* b, int8_t* output,
                                                    const char* caller);

/* The input an operator's indirection points into and its pixel stride: a depthwise operator with
   a depth multiplier reads its expanded copy (every channel repeated dm times, channels * dm bytes a
   pixel), every other the caller's input. Setup, the depthwise task and its input sweep agree
   through this. */
static inline const int8_t* q8nn_indirection_input(const struct q8nn_operator* op, size_t* pixel_stride) {
  const int expand = op->path == q8nn_conv_path_dwconv && op->geometry.group_output_channels > 1;
  *pixel_stride = expand ? op->geometry.groups * op->geometry.group_output_channels : op->input_pixel_stride;
  return expand ? op->expanded_input : op->input;
}

/* Bytes the kernels add to the indirection's non-zero pointers for the current input (the input,
   or the expanded copy, which moves when it grows). */
static inline size_t q8nn_indirection_delta(const struct q8nn_operator* op) { return op->input_delta; }

/* The parallel loops of a set-up CPU operator, in order (a depthwise layer with a depth multiplier
   has two: the input expansion, then the convolution), tiled for `threads` threads. in_region: for
   q8nn_run_operators, where no loop is kept on the calling thread. Returns their number. */
Q8NN_INTERNAL size_t q8nn_operator_works(struct q8nn_operator* op, size_t threads, int in_region,
                                         struct q8nn_work works[Q8NN_MAX_OPERATOR_WORKS]);
static inline struct q8nn_work q8nn_make_work(enum q8nn_work_kind kind, void (*fn)(void), void* context, size_t r0,
                                              size_t r1, size_t r2, size_t r3, size_t t2, size_t t3) {
  const struct q8nn_work w = {kind,
                              fn,
                              context,
                              {r0, r1, r2, r3},
                              {1, 1, t2, t3},
                              {r0, r1, q8nn_divide_round_up(r2, t2), q8nn_divide_round_up(r3, t3)},
                              0};
  return w;
}

/* Number of tiles of a work, and tile `index` of it run on the calling thread. */
Q8NN_INTERNAL size_t q8nn_work_tiles(const struct q8nn_work* w);
Q8NN_INTERNAL void q8nn_work_run_tile(const struct q8nn_work* w, size_t index);

/* Share p of a work's tiles among `threads` threads: tiles [*start, *start + *length), pthreadpool's
   static split (the first tiles % threads shares one tile longer). */
static inline void q8nn_work_share(size_t tiles, size_t threads, size_t p, size_t* start, size_t* length) {
  const size_t quotient = tiles / threads, remainder = tiles % threads;
  *start = p * quotient + (p < remainder ? p : remainder);
  *length = quotient + (p < remainder ? 1 : 0);
}

/*
 * Whether q8nn_run_operators needs a barrier between two consecutive loops of a region, `before`
 * and `after`, split among `threads` threads (run-sequence.c). Without one, thread p starts its
 * share of `after` once share p of `before` is finished (and a thread that takes a tile of share j
 * waits for share j of `before`), while the other threads may still run `before`. That is safe
 * where `after` writes nothing `before` reads or writes, and every share of `after` reads
 * `before`'s output only inside the bytes the same share of `before` writes: a 1x1 layer or an add
 * after a layer cut into the same row parts. Everything older than `before` is finished either way.
 */
Q8NN_INTERNAL int q8nn_work_needs_barrier(const struct q8nn_work* before, const struct q8nn_work* after,
                                          size_t threads);

#endif
