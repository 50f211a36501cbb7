/*
 * q8nn: quantized int8 neural-network operators.
 *
 * The only public header. C99; usable from C++. Numerics are bit-exact with TFLite's reference
 * integer kernels (reference_integer_ops::ConvPerChannel, DepthwiseConvPerChannel and the int8
 * ADD) on every CPU ISA and thread count; on request (q8nn_rounding_fp32, Q8NN_FLAG_XNNPACK_ADD)
 * bit-exact with XNNPACK's qs8/qc8 convolutions and qs8 add instead.
 *
 * Life cycle of an operator: create (validate, pack weights and requantization parameters; the
 * caller's arrays may be freed afterwards) -> setup (bind shapes and pointers; may be repeated,
 * never repacks) -> run (any number of times; no allocation) -> delete.
 *
 * Memory ownership: q8nn never keeps a pointer to caller memory passed to create. Pointers passed
 * to setup (input, output) are kept until the next setup or delete and read/written by run.
 * Nothing is read past the end of a caller's buffer.
 */
#ifndef Q8NN_H
#define Q8NN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define Q8NN_API
#elif defined(__GNUC__)
#define Q8NN_API __attribute__((visibility("default")))
#else
#define Q8NN_API
#endif

#define Q8NN_VERSION_MAJOR 0
#define Q8NN_VERSION_MINOR 1
#define Q8NN_VERSION_PATCH 0

/** Status of every q8nn call. */
enum q8nn_status {
  q8nn_status_success = 0,
  q8nn_status_uninitialized = 1,         /**< q8nn_initialize() not called */
  q8nn_status_invalid_parameter = 2,     /**< malformed: NULL pointer, zero size, NaN scale ... */
  q8nn_status_unsupported_parameter = 3, /**< well-formed but not supported (e.g. scale out of range) */
  q8nn_status_unsupported_hardware = 4,
  q8nn_status_out_of_memory = 5,
  q8nn_status_invalid_state = 6,         /**< call out of order, e.g. run before setup */
  q8nn_status_backend_error = 7,         /**< a backend failed (e.g. VTA program fault) */
};

/**
 * Initializes the library: detects the CPU (cpuinfo) and fills the microkernel dispatch tables.
 * Idempotent and thread-safe. Reads the environment variables Q8NN_ISA_MASK (see
 * q8nn_set_isa_mask) and Q8NN_LOG (any non-empty value other than "0" turns error logging on).
 * @return success, or unsupported_hardware when the CPU cannot be identified.
 */
Q8NN_API enum q8nn_status q8nn_initialize(void);

/** Releases what q8nn_initialize acquired. Operators must be deleted first. */
Q8NN_API enum q8nn_status q8nn_deinitialize(void);

/** A static, never-NULL string naming the status ("success", "invalid_parameter", ...). */
Q8NN_API const char* q8nn_status_string(enum q8nn_status status);

/** "MAJOR.MINOR.PATCH" of the library linked in (may differ from the header's macros). */
Q8NN_API const char* q8nn_version_string(void);

/** An operator object: created by q8nn_create_*, set up, run, deleted. One thread at a time per
    object; distinct objects on distinct threads (see "Concurrency" below). */
typedef struct q8nn_operator* q8nn_operator_t;

/*
 * Concurrency. What may run at the same time on different threads:
 *  - q8nn_initialize (idempotent), q8nn_status_string, q8nn_version_string, q8nn_get_available_isa,
 *    q8nn_get_active_isa: any time.
 *  - q8nn_set_isa_mask, q8nn_set_log_level: any time, but an operator created while the mask
 *    changes may get either dispatch. q8nn_deinitialize: after every other call has returned.
 *  - Operators: one operator is used by one thread at a time. Create, setup, run (alone or in a
 *    list), q8nn_operator_set_backend and delete are all uses. Distinct operators may be created,
 *    set up, run and deleted on distinct threads at the same time, also when they read the same
 *    buffers; a buffer one of them writes must not be read or written by another meanwhile.
 *  - Threads: a pthreadpool_t may be passed by several threads at once (pthreadpool runs one
 *    call at a time, so the calls wait for each other); a struct q8nn_threadpool is called as
 *    the host's implementation allows.
 *  - Lists: q8nn_run_operators uses every operator of the list for the whole call. The plan it
 *    keeps lives in ops[0] and is owned by it: it is rebuilt, never reused wrongly, after any
 *    operator of the list is set up again or runs alone, ops[0] runs first in another list, or the
 *    thread count changes, whatever thread did it, as long as the rule above was kept; deleting
 *    ops[0] frees it. Deleting another operator of the list makes the list invalid (do not run it).
 *  - Backends: one VTA backend may be shared by operators (and models) that run on several
 *    threads. Everything that touches its simulated device (each operator's setup, program run
 *    and release) is serialised by a lock inside the backend: programs run one at a time, the
 *    bytes are those of a single-threaded run, q8nn_vta_get_stats adds up every run, and
 *    q8nn_vta_get_operator_stats gives one operator's own last run. Operators the backend left on
 *    the CPU run outside the lock. q8nn_delete_backend only after its operators are deleted or
 *    moved off it, and not while a thread uses the backend.
 *  - Models (q8nn-model.h): as operators. One model is used by one thread at a time; distinct
 *    models, also loaded from the same file or memory, run on distinct threads, on the CPU or
 *    sharing one VTA backend.
 * tests/model/test-concurrency.c runs each allowed case under ThreadSanitizer.
 */

/* ---------------------------------------------------------------------------------------------
 * Requantization of one operator's output
 * ------------------------------------------------------------------------------------------- */

enum q8nn_rounding {
  q8nn_rounding_double = 0, /**< TFLite default: SaturatingRoundingDoublingHighMul + RoundingDivideByPOT */
  q8nn_rounding_single = 1, /**< TFLite's TFLITE_SINGLE_ROUNDING variant */
  q8nn_rounding_fp32 = 2,   /**< XNNPACK's fp32 requantization (qs8/qc8 convolutions), see below */
};

/**
 * Quantization of a convolution (regular or depthwise).
 *
 * TFLite roundings (q8nn_rounding_double, q8nn_rounding_single): per output channel c the real
 * multiplier is computed in double exactly as TFLite does,
 * (double)input_scale * (double)kernel_scale[c] / (double)output_scale, and converted with
 * TFLite's QuantizeMultiplier. A multiplier whose shift falls outside [-31, 30] is
 * unsupported_parameter.
 *
 * q8nn_rounding_fp32: bit-exact with XNNPACK's qc8 (per-channel) and qs8 (per-tensor) convolutions
 * (xnn_create_convolution2d_nhwc_qc8 / _qs8, Debian's libxnnpack 0.0~git20220216; XNNPACK's scalar
 * fmagic/imagic/lrintf, SSE/AVX cvtps2dq and NEON epilogues all give these bytes):
 *  - scale[c] = input_scale * kernel_scale[c] / output_scale evaluated in float, left to right:
 *    the product is rounded to float, then the quotient is rounded to float.
 *  - The int32 accumulator is bias[c] + sum(kernel * (input - input_zero_point)) modulo 2^32, as
 *    XNNPACK folds -input_zero_point * sum(kernel) into the packed bias in int32 and wraps.
 *  - out = clamp(rne((float) acc * scale[c]), output_min - output_zero_point,
 *    output_max - output_zero_point) + output_zero_point, where (float) acc is the int32 -> float
 *    conversion rounded to nearest even (accumulators above 2^24 in magnitude lose their low bits
 *    exactly as XNNPACK's cvtdq2ps / scvtf do), the product is one float multiplication (never
 *    fused), and rne rounds to the nearest integer with ties to even (2.5 -> 2, -0.5 -> 0,
 *    3.5 -> 4). The clamp is done in float before the rounding; as the bounds are integers this
 *    equals clamping after it.
 *  - Scales: input_scale, output_scale and every kernel_scale must be normal floats > 0 (XNNPACK's
 *    isnormal check: 0, negative, subnormal, infinite or NaN is invalid_parameter, as in XNNPACK).
 *    A scale[c] >= 256 (XNNPACK's limit) is unsupported_parameter, as in XNNPACK. There is no lower
 *    limit: XNNPACK's qc8 operator accepts any smaller scale, including ones that underflow to
 *    subnormals or 0 (every output is then the clamped zero point), and so does q8nn. (Debian's
 *    XNNPACK per-tensor qs8 operator instead aborts on an assertion for scale < 2^-32; q8nn gives
 *    the qc8 result there.)
 *  - output_multiplier must be NULL (the fixed-point form has no meaning here): invalid_parameter.
 *  - XNNPACK rejects output_min == output_max; q8nn accepts it (every output is that value).
 */
struct q8nn_conv_quantization {
  int32_t input_zero_point;       /**< [-128, 127] */
  float input_scale;              /**< > 0, finite */
  const float* kernel_scale;      /**< one per output channel (groups * group_output_channels), each > 0 and
                                       finite; one value when Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE is set. The
                                       weights are symmetric (zero point 0). */
  int32_t output_zero_point;      /**< [-128, 127] */
  float output_scale;             /**< > 0, finite */
  int8_t output_min, output_max;  /**< fused activation clamp, output_min <= output_max */
  enum q8nn_rounding rounding;   /**< q8nn_rounding_double, _single or _fp32 */
  /** Optional precomputed requantization (TFLite QuantizeMultiplier form: multiplier in
      [2^30, 2^31) or 0, shift in [-31, 30], positive = left). When output_multiplier is
      non-NULL, input_scale/kernel_scale/output_scale are ignored (and may be 0/NULL);
      output_shift must then be non-NULL too. One entry per output channel, or one entry with
      Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE. Must be NULL with q8nn_rounding_fp32. */
  const int32_t* output_multiplier;
  const int32_t* output_shift;
  /** Optional caller-computed fp32 requantization scales (q8nn_rounding_fp32 only; NULL with the
      TFLite roundings, else invalid_parameter). When non-NULL, scale[c] = requantization_scale[c]
      is used as given, bit for bit, and input_scale/kernel_scale/output_scale are ignored (and
      may be 0/NULL): a host reproduces its own scale formula by construction (pytorch_qnnpack:
      (kernel_scale * input_scale) * (1 / output_scale); XNNPACK: input_scale * kernel_scale /
      output_scale). One entry per output channel, or one with Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE.
      Each must be a finite float >= 0 (else invalid_parameter) and < 256 (else
      unsupported_parameter, XNNPACK's limit). Copied at create. */
  const float* requantization_scale;
};

/** Create flag: kernel_scale (or output_multiplier / output_shift) holds one value used for every
    output channel. */
#define Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE 0x00000001u

/* ---------------------------------------------------------------------------------------------
 * Convolution 2D, NHWC, int8
 * ------------------------------------------------------------------------------------------- */

struct q8nn_convolution2d_desc {
  uint32_t padding_top, padding_right, padding_bottom, padding_left; /**< padded taps act as the input zero point */
  uint32_t kernel_height, kernel_width;       /**< >= 1 */
  uint32_t stride_height, stride_width;       /**< >= 1 */
  uint32_t dilation_height, dilation_width;   /**< >= 1 */
  uint32_t groups;                            /**< >= 1 */
  size_t group_input_channels, group_output_channels; /**< >= 1 */
};

/**
 * Creates a 2D convolution. groups == channels with one input channel per group runs on the
 * depthwise kernels, except a single group of one input channel with several outputs (a
 * single-channel image's convolution), which runs as an ordinary one of K = taps.
 * @param desc     geometry, see struct q8nn_convolution2d_desc.
 * @param quant    quantization; see struct q8nn_conv_quantization.
 * @param kernel   [groups * group_output_channels][kernel_height][kernel_width][group_input_channels]
 *                 (TFLite's OHWI, groups stacked along O). Copied and packed: may be freed after create.
 * @param bias     [groups * group_output_channels] int32, or NULL for zero bias. Copied.
 * @param flags    0 or Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE.
 * @param convolution_out receives the operator; untouched unless success is returned.
 * @return uninitialized; invalid_parameter (NULL pointers, a zero size, stride, dilation or group
 *         count, zero points outside [-128, 127], output_min > output_max, non-finite or non-positive
 *         scales, a multiplier outside [2^30, 2^31) other than 0, unknown flags or rounding; with
 *         q8nn_rounding_fp32 also subnormal scales and a non-NULL output_multiplier);
 *         unsupported_parameter (a requantization scale whose shift would exceed 30, or a given shift
 *         outside [-31, 30]; with q8nn_rounding_fp32 a float scale >= 256); out_of_memory.
 *
 * Numerics: TFLite's ConvPerChannel. Where TFLite's own int32 arithmetic overflows (accumulators
 * beyond int32, or multipliers so large that the requantized value or the output zero-point add
 * leaves int32; TFLite only DCHECKs these), q8nn reproduces the two's-complement wrap-around of
 * TFLite's compiled reference kernels.
 */
Q8NN_API enum q8nn_status q8nn_create_convolution2d_nhwc_s8(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* convolution_out);

/**
 * Binds shapes and buffers of a convolution. Cheap to repeat with new pointers or sizes: the packed
 * weights are reused.
 * Output size per TFLite: out = (in + pad_before + pad_after - dilation*(kernel-1) - 1) / stride + 1;
 * a non-positive size is invalid_parameter.
 * @param input  [batch_size][input_height][input_width] pixels, input_pixel_stride elements apart,
 *               each holding groups*group_input_channels int8 values. Read by run.
 * @param input_pixel_stride  elements between pixels, >= groups*group_input_channels.
 * @param output [batch_size][output_height][output_width] pixels, output_pixel_stride elements apart.
 *               Only the groups*group_output_channels first elements of each pixel are written.
 * @param output_pixel_stride elements between pixels, >= groups*group_output_channels.
 * @param output_height_out, output_width_out  receive the output size; may be NULL.
 * @return invalid_parameter for NULL pointers, zero sizes, pixel strides below the channel counts,
 *         a non-positive output size, sizes whose products overflow size_t, or a tensor whose last
 *         byte would lie past the end of the address space (pointer plus extent); out_of_memory;
 *         a backend's status (see q8nn_operator_set_backend). On failure nothing is written through
 *         the out-pointers and the operator must be set up again before it runs.
 */
Q8NN_API enum q8nn_status q8nn_setup_convolution2d_nhwc_s8(
    q8nn_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride,
    int8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out);

/** TFLite SAME padding for one dimension: total = max((ceil(input/stride)-1)*stride +
    dilation*(kernel-1) + 1 - input, 0), pad_before = total/2, pad_after = total - pad_before.
    Zero stride or dilation, or a NULL out-pointer, leaves both outputs at 0 / untouched. */
Q8NN_API void q8nn_compute_same_padding(uint32_t input, uint32_t kernel, uint32_t stride,
                                        uint32_t dilation, uint32_t* pad_before, uint32_t* pad_after);

/* ---------------------------------------------------------------------------------------------
 * Depthwise convolution 2D, NHWC, int8
 * ------------------------------------------------------------------------------------------- */

struct q8nn_depthwise_convolution2d_desc {
  uint32_t padding_top, padding_right, padding_bottom, padding_left;
  uint32_t kernel_height, kernel_width;     /**< >= 1 */
  uint32_t stride_height, stride_width;     /**< >= 1 */
  uint32_t dilation_height, dilation_width; /**< >= 1 */
  size_t channels;           /**< input channels, >= 1 */
  size_t depth_multiplier;   /**< >= 1; output channels = channels * depth_multiplier; output channel c*dm+m
                                  reads input channel c */
};

/**
 * Creates a depthwise convolution.
 * @param kernel [kernel_height][kernel_width][channels * depth_multiplier] (TFLite's 1HWO). Copied.
 * @param bias   [channels * depth_multiplier] or NULL. Copied.
 * Other parameters as q8nn_create_convolution2d_nhwc_s8.
 */
Q8NN_API enum q8nn_status q8nn_create_depthwise_convolution2d_nhwc_s8(
    const struct q8nn_depthwise_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* depthwise_out);

/** As q8nn_setup_convolution2d_nhwc_s8; input pixels hold `channels` values (stride >= channels),
    output pixels channels*depth_multiplier values (stride >= that). */
Q8NN_API enum q8nn_status q8nn_setup_depthwise_convolution2d_nhwc_s8(
    q8nn_operator_t depthwise, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out);

/* ---------------------------------------------------------------------------------------------
 * Add, N-dimensional with broadcasting, int8
 * ------------------------------------------------------------------------------------------- */

/** Exactly TFLite's ArithmeticParams for int8 add. */
struct q8nn_add_fixed {
  int32_t left_shift; /**< [0, 20]; TFLite uses 20 */
  int32_t a_multiplier, a_shift;           /**< multiplier in [0, 2^31), shift in [-31, 0] */
  int32_t b_multiplier, b_shift;           /**< as a_ */
  int32_t output_multiplier, output_shift; /**< multiplier in [0, 2^31), shift in [-31, 0] */
};

struct q8nn_add_quantization {
  int32_t a_zero_point; float a_scale;           /**< zero point [-128, 127], scale > 0 finite */
  int32_t b_zero_point; float b_scale;
  int32_t output_zero_point; float output_scale;
  int8_t output_min, output_max;                 /**< output_min <= output_max */
  /** Optional precomputed TFLite add parameters; when non-NULL the scales are ignored. Copied. */
  const struct q8nn_add_fixed* fixed;
};

/** Create flag of q8nn_create_add_nd_s8: XNNPACK's qs8 add arithmetic instead of TFLite's. */
#define Q8NN_FLAG_XNNPACK_ADD 0x00000002u
/** Create flag of q8nn_create_add_nd_s8 / _u8: pytorch_qnnpack's add arithmetic (see below). */
#define Q8NN_FLAG_QNNPACK_ADD 0x00000004u

/**
 * Creates an int8 add.
 *
 * Default (flags 0): TFLite arithmetic (left shift, per-input rescale to twice the larger input
 * scale, output rescale). Scale ratios whose multipliers do not fit are unsupported_parameter.
 *
 * Q8NN_FLAG_XNNPACK_ADD: bit-exact with XNNPACK's xnn_create_add_nd_qs8 (Debian's libxnnpack
 * 0.0~git20220216, xnn_init_qs8_add_minmax_*_params and its qs8 vadd/vaddc kernels), which is
 * integer arithmetic, not fp32:
 *  - ra = a_scale / output_scale and rb = b_scale / output_scale, each a float division; each must
 *    be in [2^-10, 2^8), else unsupported_parameter (as XNNPACK). Every scale must be a normal
 *    float > 0, else invalid_parameter (as XNNPACK).
 *  - e = binary exponent of max(ra, rb); shift = 20 - e (in [12, 30]); multiplier_a =
 *    lrintf(ra * 2^shift), multiplier_b likewise (round to nearest, ties to even; the larger one is
 *    in [2^20, 2^21]).
 *  - bias = 2^(shift-1) - multiplier_a * a_zero_point - multiplier_b * b_zero_point;
 *    acc = a * multiplier_a + b * multiplier_b + bias in int32 (|acc| < 2^31 always);
 *    out = clamp(acc >> shift (arithmetic: the rounding is half up, towards +infinity),
 *    output_min - output_zero_point, output_max - output_zero_point) + output_zero_point.
 *  - fixed must be NULL (invalid_parameter otherwise). XNNPACK rejects output_min == output_max;
 *    q8nn accepts it.
 * Q8NN_FLAG_QNNPACK_ADD: bit-exact with pytorch_qnnpack's add (PyTorch's quint8 add on its qnnpack
 * engine, pytorch_qnnpack_create_add_nc_q8; with q8nn_create_add_nd_u8 these are PyTorch's bytes):
 *  - ra = a_scale / output_scale and rb = b_scale / output_scale in float; every scale a normal
 *    float > 0 (else invalid_parameter); each ratio in [2^-14, 2^8) as pytorch_qnnpack requires,
 *    and the larger one >= 2^-9 (a shift above 30; pytorch_qnnpack's own assertion allows only 31
 *    there), else unsupported_parameter.
 *  - e = binary exponent of max(ra, rb); shift = 21 - e; multiplier_a = lrintf(ra * 2^shift),
 *    multiplier_b likewise.
 *  - acc = multiplier_a * (a - a_zero_point) + multiplier_b * (b - b_zero_point);
 *    out = clamp(RoundingDivideByPOT(acc, shift) (ties away from zero), output_min - output_zero_point,
 *    output_max - output_zero_point) + output_zero_point.
 *  - It runs XNNPACK's add kernels where their form gives these bytes on all 65536 input pairs
 *    (no exact tie of both signs, checked at create; the kernel name ends in "(QNNPACK as XNNPACK
 *    form)"), else a portable exact kernel. fixed must be NULL. pytorch_qnnpack rejects
 *    output_min == output_max; q8nn accepts it.
 * @param flags 0, Q8NN_FLAG_XNNPACK_ADD or Q8NN_FLAG_QNNPACK_ADD.
 */
Q8NN_API enum q8nn_status q8nn_create_add_nd_s8(
    const struct q8nn_add_quantization* quant, uint32_t flags, q8nn_operator_t* add_out);

/** Maximum rank of an add operand. */
#define Q8NN_MAX_DIMS 6

/**
 * Binds shapes and buffers of an add. numpy broadcasting: shapes are aligned at their trailing
 * dimension, a dimension of 1 broadcasts; rank 0 (num_dims 0, shape may be NULL) is a scalar.
 * @param a, b    dense row-major int8 tensors of their shapes.
 * @param output  dense row-major int8 tensor of the broadcast shape. May alias a or b exactly when
 *                that operand has the output's shape.
 * @return invalid_parameter for NULL pointers, a zero dimension, shapes that do not broadcast, an
 *         output aliasing a broadcast operand or an element count that overflows size_t;
 *         unsupported_parameter for a rank above Q8NN_MAX_DIMS. Nothing is kept on failure.
 */
Q8NN_API enum q8nn_status q8nn_setup_add_nd_s8(
    q8nn_operator_t add, size_t num_a_dims, const size_t* a_shape,
    size_t num_b_dims, const size_t* b_shape,
    const int8_t* a, const int8_t* b, int8_t* output);

/* ---------------------------------------------------------------------------------------------
 * Run and delete
 * ------------------------------------------------------------------------------------------- */

/** Runs a set-up operator. threadpool NULL = the calling thread. Every thread count gives the same
    bytes. No allocation. invalid_state before setup. */
Q8NN_API enum q8nn_status q8nn_run_operator(q8nn_operator_t op, pthreadpool_t threadpool);

/** Runs count set-up operators in order, as count calls of q8nn_run_operator would, with the same
    bytes, but in one parallel region: with two or more threads, one pthreadpool call for the whole
    list and a barrier between operators instead of one call per operator (a call costs about a
    microsecond and a half on a 2-core VM, a barrier a fifth of that). An operator may read any
    earlier operator's output, and buffers may be reused along the list: where an operator reads
    only the rows its own thread wrote in the one before and their buffers do not overlap, the
    barrier becomes a wait on that thread's share; overlapping buffers keep it. Operators on a
    backend run between regions, as q8nn_run_operator runs them. Checks every operator before
    running any: invalid_parameter for ops NULL (count > 0) or a NULL operator, invalid_state for
    one not set up; out_of_memory if the list's plan cannot be allocated. The plan (the loops, the
    threads' shares and counters, one allocation) is kept in ops[0] until ops[0] is deleted or runs
    first in another list, and is reused while the list has the same operators, none set up again
    or run alone since, and the same thread count: such calls allocate nothing. A list's operators are in use during the
    call (see q8nn_operator_t). A backend error stops the list after the operators before it have
    run. */
Q8NN_API enum q8nn_status q8nn_run_operators(size_t count, const q8nn_operator_t* ops, pthreadpool_t threadpool);

/** Deletes an operator and everything it owns. NULL is fine. */
Q8NN_API enum q8nn_status q8nn_delete_operator(q8nn_operator_t op);

/* ---------------------------------------------------------------------------------------------
 * Backends
 * ------------------------------------------------------------------------------------------- */

typedef struct q8nn_backend* q8nn_backend_t;

/** VTA hardware configuration: log2 values as in vta_config.json; zero-filled = default 1x16x16. */
struct q8nn_vta_config {
  uint32_t log_batch, log_block, log_uop_buff_size, log_inp_buff_size,
           log_wgt_buff_size, log_acc_buff_size;
  uint32_t virtual_threads; /**< 1 or 2 (latency hiding); 0 = default */
  /** How convolution, depthwise and add requantize on the accelerator (fields appended, never
      reordered): q8nn_vta_requant_exact (0, the default, also for a NULL config): byte for byte
      TFLite's double or single rounding (add: TFLite's AddElementwise), with multipliers built
      from limbs (more ALU work); q8nn_vta_requant_16bit (1): 15-bit multipliers, within 1 LSB of
      TFLite, fewer ALU steps; q8nn_vta_requant_exact_limbs (2): the same bytes as exact, with the
      limb form (the one exact falls back to) on every layer, for comparison. All use ALU MUL and
      shifts above 15 (functional-simulator semantics). Other values:
      q8nn_status_invalid_parameter. See docs/vta-backend.md. */
  uint32_t requantization;
};

/** Values of q8nn_vta_config.requantization. */
enum q8nn_vta_requantization {
  q8nn_vta_requant_exact = 0,
  q8nn_vta_requant_16bit = 1,
  q8nn_vta_requant_exact_limbs = 2,
};

/** The functional simulator's counters plus the cycle estimate. */
struct q8nn_vta_stats {
  uint64_t inp_load_nbytes, wgt_load_nbytes, acc_load_nbytes, uop_load_nbytes, out_store_nbytes;
  uint64_t gemm_counter, alu_counter;
  uint64_t instructions, cycles;
};

/** Creates a VTA model backend. config NULL = default. */
Q8NN_API enum q8nn_status q8nn_create_vta_backend(const struct q8nn_vta_config* config,
                                                  q8nn_backend_t* backend_out);
/** Deletes a backend. Operators using it must be deleted or moved back to the CPU first. NULL is fine. */
Q8NN_API enum q8nn_status q8nn_delete_backend(q8nn_backend_t backend);
/** Static name of the backend ("cpu", "vta"); "cpu" for NULL. */
Q8NN_API const char* q8nn_backend_name(q8nn_backend_t backend);
/** false: the operator stays on the CPU. */
Q8NN_API bool q8nn_backend_supports(q8nn_backend_t backend, q8nn_operator_t op);
/**
 * Before setup. NULL backend = CPU. If the backend cannot run op: unsupported_parameter, op unchanged.
 * The VTA backend decides what it supports from the operator's parameters (quantization whose
 * exact or 16-bit requantization fits the 32-bit accumulator, see docs/vta-backend.md); a later setup whose
 * shapes exceed the model's instruction fields or simulated DRAM runs that operator on the CPU
 * (with the threadpool given to run), exactly, instead of failing.
 * @return invalid_state after setup (set the backend first, then set up again).
 */
Q8NN_API enum q8nn_status q8nn_operator_set_backend(q8nn_operator_t op, q8nn_backend_t backend);
/**
 * The backend that runs op as it is set up: NULL (the CPU) for a NULL op, before a successful
 * setup, without a backend, and when the backend's setup left op on the CPU (VTA: shapes beyond
 * its instruction fields or simulated DRAM). Where an operator really runs, unlike
 * q8nn_backend_supports, which only looks at its parameters.
 */
Q8NN_API q8nn_backend_t q8nn_operator_get_backend(q8nn_operator_t op);
/** The counters of every program the backend ran since it was created or reset, whichever
    operators and threads ran them. invalid_parameter for NULL or a backend that is not VTA. */
Q8NN_API enum q8nn_status q8nn_vta_get_stats(q8nn_backend_t vta, struct q8nn_vta_stats* stats);
Q8NN_API enum q8nn_status q8nn_vta_reset_stats(q8nn_backend_t vta);
/** The counters of op's most recent program run on its VTA backend: right while other threads run
    other operators on the same backend. Zeros before op's first run and when setup left op on the
    CPU. invalid_parameter for NULL pointers or an operator whose backend is not VTA. */
Q8NN_API enum q8nn_status q8nn_vta_get_operator_stats(q8nn_operator_t op, struct q8nn_vta_stats* stats);

/* ---------------------------------------------------------------------------------------------
 * Hosting in another runtime: uint8 activations, the host's threads, re-setup
 *
 * Re-setup: setting up an operator again with the shapes and strides of its last successful setup
 * and only new input/output pointers rebuilds nothing (the indirection buffer is kept and read
 * relative to the new input, see ukernel.h) and allocates nothing: its cost does not grow with the
 * layer, on the CPU and on the VTA backend. It is valid between any two runs.
 * ------------------------------------------------------------------------------------------- */

/**
 * Quantization of a convolution or depthwise convolution with uint8 activations (PyTorch's quint8,
 * ONNX Runtime's and oneDNN's u8). Weights stay int8 symmetric. Every field means what it means in
 * struct q8nn_conv_quantization, but zero points are in [0, 255] and the clamp is uint8. The bytes
 * are those of the int8 operator on x - 128 with zero points z - 128 and clamp [min - 128,
 * max - 128], plus 128: uint8 x with zero point z is the same real number as int8 x - 128 with zero
 * point z - 128, so every numerics, reference and golden vector of the int8 family carries over.
 * The kernels read and write the uint8 bytes directly (no conversion pass): on the AVX-512 VNNI
 * line the uint8 byte is VPDPBUSD's unsigned operand as it is; the AVX-VNNI, AVX2, NEON, RVV and
 * portable lines flip it (^ 0x80) where they load it; every line flips its output where it packs
 * it. The AMX line has none: uint8 convolutions run the AVX-512 VNNI line where AMX is active. The
 * VTA backend declines uint8 operators (q8nn_backend_supports is false; they stay on the CPU).
 */
struct q8nn_conv_quantization_u8 {
  int32_t input_zero_point;       /**< [0, 255] */
  float input_scale;
  const float* kernel_scale;
  int32_t output_zero_point;      /**< [0, 255] */
  float output_scale;
  uint8_t output_min, output_max; /**< fused activation clamp, output_min <= output_max */
  enum q8nn_rounding rounding;
  const int32_t* output_multiplier;
  const int32_t* output_shift;
  const float* requantization_scale;
};

/** As q8nn_create_convolution2d_nhwc_s8, with uint8 activations. */
Q8NN_API enum q8nn_status q8nn_create_convolution2d_nhwc_u8(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization_u8* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* convolution_out);
/** As q8nn_setup_convolution2d_nhwc_s8 for an operator created by
    q8nn_create_convolution2d_nhwc_u8 (invalid_parameter for an int8 operator, and the _s8 setup
    refuses a uint8 one). */
Q8NN_API enum q8nn_status q8nn_setup_convolution2d_nhwc_u8(
    q8nn_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out);
/** As q8nn_create_depthwise_convolution2d_nhwc_s8, with uint8 activations. */
Q8NN_API enum q8nn_status q8nn_create_depthwise_convolution2d_nhwc_u8(
    const struct q8nn_depthwise_convolution2d_desc* desc, const struct q8nn_conv_quantization_u8* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* depthwise_out);
Q8NN_API enum q8nn_status q8nn_setup_depthwise_convolution2d_nhwc_u8(
    q8nn_operator_t depthwise, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out);

/** Quantization of an add with uint8 operands and output: as struct q8nn_add_quantization with
    zero points in [0, 255] and a uint8 clamp; the bytes are the int8 add's on the operands - 128,
    plus 128, in every arithmetic (TFLite's, the caller's fixed parameters, Q8NN_FLAG_XNNPACK_ADD).
    The add kernels of every line read and write the uint8 bytes themselves. */
struct q8nn_add_quantization_u8 {
  int32_t a_zero_point; float a_scale;
  int32_t b_zero_point; float b_scale;
  int32_t output_zero_point; float output_scale;
  uint8_t output_min, output_max;
  const struct q8nn_add_fixed* fixed;
};

Q8NN_API enum q8nn_status q8nn_create_add_nd_u8(
    const struct q8nn_add_quantization_u8* quant, uint32_t flags, q8nn_operator_t* add_out);
Q8NN_API enum q8nn_status q8nn_setup_add_nd_u8(
    q8nn_operator_t add, size_t num_a_dims, const size_t* a_shape,
    size_t num_b_dims, const size_t* b_shape,
    const uint8_t* a, const uint8_t* b, uint8_t* output);

/* ---------------------------------------------------------------------------------------------
 * Multiply, N-dimensional with broadcasting, int8 and uint8 (TFLite MUL, PyTorch's quantized mul)
 * ------------------------------------------------------------------------------------------- */

/** Quantization of a multiply: zero points and the clamp in the activations' range ([-128, 127]
    for the int8 operator, [0, 255] for the uint8 one). */
struct q8nn_multiply_quantization {
  int32_t a_zero_point; float a_scale;
  int32_t b_zero_point; float b_scale;
  int32_t output_zero_point; float output_scale;
  int32_t output_min, output_max;
};

/**
 * Creates an elementwise multiply y = a * b.
 * Default (flags 0): TFLite's MUL (reference_integer_ops::MulElementwise): real = a_scale * b_scale
 * / output_scale in float (as TFLite's Prepare), QuantizeMultiplier; out = clamp(output_zero_point
 * + MultiplyByQuantizedMultiplier((a - a_zero_point) * (b - b_zero_point)), output_min,
 * output_max). A multiplier with a shift above 30 is unsupported_parameter.
 * Q8NN_FLAG_PYTORCH_REQUANTIZE: PyTorch's quantized mul (quantized::mul / mul_relu for quint8 and
 * qint8, its qmul kernel): m = (a_scale * b_scale) * (1 / output_scale), all in float; out =
 * clamp(output_zero_point + rne((float) ((a - a_zero_point) * (b - b_zero_point)) * m)), rne the
 * round to nearest, ties to even (fused ReLU: output_min = output_zero_point). m * 65536 must be
 * below 2^31 (beyond it PyTorch's vector and scalar paths disagree): unsupported_parameter.
 * Q8NN_FLAG_XNNPACK_MULTIPLY: XNNPACK's qs8 multiply (xnn_create_multiply_nd_qs8, which PyTorch 1.13
 * runs for qint8 quantized::mul with an output zero point below 127): the same form with
 * m = (a_scale * b_scale) / output_scale in float; m outside [2^-16, 2^8) is unsupported_parameter
 * (as XNNPACK). XNNPACK refuses output_min == output_max; q8nn accepts it.
 * The function of the two input bytes is tabulated at create (65536 entries; 128 KiB, 192 with
 * AVX2's packed rows): a broadcast operand selects one 256-entry row, run by the table-lookup
 * kernels of the best line; dense operands look each pair up. Shapes, broadcasting, aliasing, threads and statuses are the add's.
 * @param flags 0, Q8NN_FLAG_PYTORCH_REQUANTIZE or Q8NN_FLAG_XNNPACK_MULTIPLY.
 * @return invalid_parameter for NULL pointers, unknown flags (or both), zero points or a clamp out
 *         of range, output_min > output_max, scales that are not normal floats > 0;
 *         unsupported_parameter as above; out_of_memory.
 */
Q8NN_API enum q8nn_status q8nn_create_multiply_nd_s8(const struct q8nn_multiply_quantization* quant, uint32_t flags,
                                                     q8nn_operator_t* multiply_out);
/** Create flag of q8nn_create_multiply_nd_*: XNNPACK's qs8 multiply arithmetic (see above). */
#define Q8NN_FLAG_XNNPACK_MULTIPLY 0x00000040u
/** Binds shapes and buffers of a multiply: as q8nn_setup_add_nd_s8. */
Q8NN_API enum q8nn_status q8nn_setup_multiply_nd_s8(q8nn_operator_t multiply, size_t num_a_dims,
                                                    const size_t* a_shape, size_t num_b_dims, const size_t* b_shape,
                                                    const int8_t* a, const int8_t* b, int8_t* output);
/** uint8: the int8 operator's bytes on x - 128, plus 128 (zero points and clamp in [0, 255]). */
Q8NN_API enum q8nn_status q8nn_create_multiply_nd_u8(const struct q8nn_multiply_quantization* quant, uint32_t flags,
                                                     q8nn_operator_t* multiply_out);
Q8NN_API enum q8nn_status q8nn_setup_multiply_nd_u8(q8nn_operator_t multiply, size_t num_a_dims,
                                                    const size_t* a_shape, size_t num_b_dims, const size_t* b_shape,
                                                    const uint8_t* a, const uint8_t* b, uint8_t* output);

/** A task of a host parallel-for: tiles [start, start + count) of a call's range. */
typedef void (*q8nn_task_1d_tile_1d_t)(void* task_context, size_t start, size_t count);

/**
 * The host runtime's threads (PyTorch's at::parallel_for, an OpenMP team, a TFLite delegate's pool),
 * used instead of a pthreadpool_t. q8nn creates no threads of its own.
 *  - threads_count(context): how many threads a call may use (>= 1; 0 is read as 1).
 *  - parallelize_1d_tile_1d(context, task, task_context, range, tile): calls task on disjoint
 *    pieces covering [0, range) (pthreadpool_parallelize_1d_tile_1d's shape: start a multiple of
 *    tile, count <= tile except that the host may merge consecutive tiles into one call) and
 *    returns when every piece is done. Pieces may run concurrently on any threads or one after
 *    another on the caller's: q8nn never waits inside a task for a piece that has not started.
 * The struct is read during the run call only.
 */
struct q8nn_threadpool {
  void* context;
  size_t (*threads_count)(void* context);
  void (*parallelize_1d_tile_1d)(void* context, q8nn_task_1d_tile_1d_t task, void* task_context,
                                 size_t range, size_t tile);
};

/** q8nn_run_operator on the host's threads: the same bytes. pool NULL = the calling thread.
    invalid_parameter for a pool with a NULL function. */
Q8NN_API enum q8nn_status q8nn_run_operator_on(q8nn_operator_t op, const struct q8nn_threadpool* pool);
/** q8nn_run_operators on the host's threads: the same bytes and the same kept plan; the list's
    region is one parallelize_1d_tile_1d call of threads_count pieces. */
Q8NN_API enum q8nn_status q8nn_run_operators_on(size_t count, const q8nn_operator_t* ops,
                                                const struct q8nn_threadpool* pool);

/* ---------------------------------------------------------------------------------------------
 * Transposed convolution (deconvolution) 2D, NHWC, int8 and uint8
 * ------------------------------------------------------------------------------------------- */

/**
 * Creates a transposed convolution: each input pixel (iy, ix) adds kernel[o][ky][kx][i] x (in - input
 * zero point) to output pixel (iy * stride + ky * dilation - padding_top, ix * stride + kx *
 * dilation - padding_left), cropped to the output; then bias and requantization per output channel
 * as struct q8nn_conv_quantization says (TFLite's TransposeConv for int8, reference_integer_ops, with
 * per-channel or per-tensor weights; XNNPACK's deconvolution with q8nn_rounding_fp32).
 * desc: the convolution's fields with their transposed meaning (padding crops the output; groups
 * as PyTorch's ConvTranspose2d). Kernel layout [groups * group_output_channels][kernel_height]
 * [kernel_width][group_input_channels] (TFLite's TRANSPOSE_CONV filter; PyTorch's [in][out/groups]
 * [kh][kw] weight must be permuted). kernel, stride and dilation up to 65536.
 * It runs on the igemm microkernels: the indirection gathers, for each output pixel and tap, the
 * input pixel that lands there or the zero point where none does. The VTA backend declines it.
 */
Q8NN_API enum q8nn_status q8nn_create_deconvolution2d_nhwc_s8(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* deconvolution_out);
/**
 * Binds a transposed convolution. Output size: (input - 1) * stride + dilation * (kernel - 1) + 1 -
 * padding_before - padding_after + adjustment (PyTorch's output_padding; TFLite's output shape
 * when it exceeds the cropped size), each adjustment below its stride; a non-positive size or an
 * adjustment not below the stride is invalid_parameter. Otherwise as the convolution's setup.
 */
Q8NN_API enum q8nn_status q8nn_setup_deconvolution2d_nhwc_s8(
    q8nn_operator_t deconvolution, size_t batch_size, size_t input_height, size_t input_width,
    uint32_t adjustment_height, uint32_t adjustment_width, const int8_t* input, size_t input_pixel_stride,
    int8_t* output, size_t output_pixel_stride, size_t* output_height_out, size_t* output_width_out);
Q8NN_API enum q8nn_status q8nn_create_deconvolution2d_nhwc_u8(
    const struct q8nn_convolution2d_desc* desc, const struct q8nn_conv_quantization_u8* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* deconvolution_out);
Q8NN_API enum q8nn_status q8nn_setup_deconvolution2d_nhwc_u8(
    q8nn_operator_t deconvolution, size_t batch_size, size_t input_height, size_t input_width,
    uint32_t adjustment_height, uint32_t adjustment_width, const uint8_t* input, size_t input_pixel_stride,
    uint8_t* output, size_t output_pixel_stride, size_t* output_height_out, size_t* output_width_out);

/* ---------------------------------------------------------------------------------------------
 * Fully connected, int8 and uint8
 * ------------------------------------------------------------------------------------------- */

/**
 * Creates a fully connected operator: out[b][n] = requantize(bias[n] + sum_k kernel[n][k] *
 * (in[b][k] - input_zero_point)), for batch_size rows of input_channels values. Numerics, scales,
 * flags (Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE) and statuses are those of the convolution (struct
 * q8nn_conv_quantization): TFLite's FullyConnected (per tensor) and FullyConnectedPerChannel with
 * the TFLite roundings, XNNPACK's fully connected with q8nn_rounding_fp32. It runs on the gemm
 * microkernels; setup chooses the tile for the batch size (one or two rows: the one-row tiles,
 * which load each weight vector once per row instead of computing aliased rows beside it).
 * @param kernel  [output_channels][input_channels] int8, copied and packed.
 * @param bias    [output_channels] int32, or NULL for zeros.
 */
Q8NN_API enum q8nn_status q8nn_create_fully_connected_nc_s8(size_t input_channels, size_t output_channels,
                                                            const struct q8nn_conv_quantization* quant,
                                                            const int8_t* kernel, const int32_t* bias,
                                                            uint32_t flags, q8nn_operator_t* fully_connected_out);
/**
 * Binds the rows of a fully connected operator: batch_size rows, input rows input_stride elements
 * apart (>= input_channels), output rows output_stride apart (>= output_channels; the gap is not
 * written). invalid_parameter for NULL pointers, a zero batch, strides below the channels or
 * extents that overflow the address space.
 */
Q8NN_API enum q8nn_status q8nn_setup_fully_connected_nc_s8(q8nn_operator_t fully_connected, size_t batch_size,
                                                           const int8_t* input, size_t input_stride, int8_t* output,
                                                           size_t output_stride);
/** uint8 activations (struct q8nn_conv_quantization_u8): the bytes of the int8 operator plus 128. */
Q8NN_API enum q8nn_status q8nn_create_fully_connected_nc_u8(size_t input_channels, size_t output_channels,
                                                            const struct q8nn_conv_quantization_u8* quant,
                                                            const int8_t* kernel, const int32_t* bias,
                                                            uint32_t flags, q8nn_operator_t* fully_connected_out);
Q8NN_API enum q8nn_status q8nn_setup_fully_connected_nc_u8(q8nn_operator_t fully_connected, size_t batch_size,
                                                           const uint8_t* input, size_t input_stride, uint8_t* output,
                                                           size_t output_stride);

/* ---------------------------------------------------------------------------------------------
 * Elementwise non-linearities, int8 and uint8: one 256-entry table built at create
 * ------------------------------------------------------------------------------------------- */

/** The function of a unary elementwise operator. */
enum q8nn_unary_operation {
  q8nn_unary_clamp = 1,      /**< requantize, then clamp to [output_min, output_max]: TFLite RELU,
                                  RELU6, RELU_N1_TO_1 (the caller gives the activation's range) */
  q8nn_unary_hardswish = 2,  /**< x * relu6(x + 3) / 6: TFLite HARD_SWISH */
  q8nn_unary_sigmoid = 3,    /**< 1 / (1 + exp(-x)): TFLite LOGISTIC */
  q8nn_unary_tanh = 4,       /**< TFLite TANH */
  q8nn_unary_leaky_relu = 5, /**< x >= 0 ? x : alpha * x: TFLite LEAKY_RELU */
  q8nn_unary_elu = 6,        /**< x >= 0 ? x : exp(x) - 1: TFLite ELU */
};

/**
 * Quantization of a unary elementwise operator.
 *
 * rounding q8nn_rounding_double (default) or q8nn_rounding_single: TFLite's int8 kernels as its
 * builtin resolver runs them (activations.cc, their Prepare's parameters from the scales), each table
 * entry equal to TFLite's output for that input byte:
 *  - clamp, leaky_relu, hardswish: the integer arithmetic of TFLite's RELU / LEAKY_RELU /
 *    HARD_SWISH kernels (ReluX, QuantizeLeakyRelu, HardSwish with gemmlowp's int16 helpers), with
 *    the MultiplyByQuantizedMultiplier of the rounding;
 *  - sigmoid, tanh, elu: TFLite's float table (LUTPopulate: round(f(input_scale * (x - zp)) /
 *    output_scale) half away from zero, f with the C library's expf / tanhf / expm1f); TFLite's
 *    gemmlowp Logistic / Tanh kernels serve int16 only. Sigmoid needs output_scale 1/256 and
 *    output_zero_point -128, tanh 1/128 and 0 (TFLite's int8 specification), elu alpha 1:
 *    unsupported_parameter otherwise.
 * rounding q8nn_rounding_fp32: XNNPACK's tables, equal to Debian's libxnnpack's
 * xnn_create_sigmoid_nc_qs8, _tanh_ and _elu_ on every entry: lrintf(f((x - zp) * input_scale) *
 * (1 / output_scale)) + output_zero_point, clamped. clamp, leaky_relu and hardswish (no qs8 table
 * operator there) are lrintf(f(v) / output_scale) + output_zero_point with f in float (hardswish:
 * v * min(max(v + 3, 0), 6) / 6).
 * The output clamp [output_min, output_max] applies after the function in both.
 */
struct q8nn_unary_quantization {
  int32_t input_zero_point;  /**< [-128, 127] */
  float input_scale;         /**< normal float > 0 */
  int32_t output_zero_point; /**< [-128, 127] */
  float output_scale;        /**< normal float > 0 */
  int8_t output_min, output_max;
  /** leaky_relu: the negative slope (finite); elu: alpha (TFLite's ELU is alpha 1; other values
      need q8nn_rounding_fp32). Ignored by the other operations. */
  float alpha;
  enum q8nn_rounding rounding;
};

/**
 * Creates a unary elementwise operator: out[i] = table[in[i]], the table computed here once from
 * the operation and quantization (see struct q8nn_unary_quantization). The kernel is a vector
 * table lookup (VPERMI2B on AVX-512 VBMI, VPSHUFB rounds on AVX2, TBL on NEON, vrgather on RVV).
 * @return invalid_parameter for a NULL pointer, an unknown operation, zero points out of range,
 *         scales that are not normal floats > 0, output_min > output_max or a non-finite alpha;
 *         unsupported_parameter where TFLite's kernel refuses the quantization (see above).
 */
Q8NN_API enum q8nn_status q8nn_create_unary_elementwise_nc_s8(
    enum q8nn_unary_operation operation, const struct q8nn_unary_quantization* quant, uint32_t flags,
    q8nn_operator_t* unary_out);
/** A caller's table: out[i] = table[(uint8_t) in[i]] (256 entries, copied). */
Q8NN_API enum q8nn_status q8nn_create_lookup_nc_s8(const int8_t* table, uint32_t flags, q8nn_operator_t* lookup_out);
/**
 * Binds rows of a unary elementwise or lookup operator: batch_size rows of `channels` values,
 * input rows input_stride elements apart, output rows output_stride apart (each >= channels).
 * The output may alias the input exactly (same pointer and stride). invalid_parameter for NULL
 * pointers, zero sizes, strides below channels, any other overlap of output and input, or extents
 * that overflow.
 */
Q8NN_API enum q8nn_status q8nn_setup_unary_elementwise_nc_s8(
    q8nn_operator_t unary, size_t batch_size, size_t channels, const int8_t* input, size_t input_stride,
    int8_t* output, size_t output_stride);

/** Quantization of a uint8 unary operator: zero points in [0, 255], uint8 clamp; the bytes are the
    int8 operator's on x - 128 (zero points - 128, clamp - 128), plus 128. */
struct q8nn_unary_quantization_u8 {
  int32_t input_zero_point;
  float input_scale;
  int32_t output_zero_point;
  float output_scale;
  uint8_t output_min, output_max;
  float alpha;
  enum q8nn_rounding rounding;
};
Q8NN_API enum q8nn_status q8nn_create_unary_elementwise_nc_u8(
    enum q8nn_unary_operation operation, const struct q8nn_unary_quantization_u8* quant, uint32_t flags,
    q8nn_operator_t* unary_out);
Q8NN_API enum q8nn_status q8nn_create_lookup_nc_u8(const uint8_t* table, uint32_t flags, q8nn_operator_t* lookup_out);
Q8NN_API enum q8nn_status q8nn_setup_unary_elementwise_nc_u8(
    q8nn_operator_t unary, size_t batch_size, size_t channels, const uint8_t* input, size_t input_stride,
    uint8_t* output, size_t output_stride);

/* ---------------------------------------------------------------------------------------------
 * Pooling 2D, NHWC, int8 and uint8
 * ------------------------------------------------------------------------------------------- */

struct q8nn_pooling2d_desc {
  uint32_t padding_top, padding_right, padding_bottom, padding_left; /**< each below the window size */
  uint32_t pooling_height, pooling_width;                            /**< >= 1 */
  uint32_t stride_height, stride_width;                              /**< >= 1 */
  size_t channels;                                                   /**< >= 1 */
};

/**
 * Max pooling: TFLite's MaxPool (reference_integer_ops::MaxPool; XNNPACK's and PyTorch's give the
 * same bytes): the largest input of each window clipped to the image (padding cells are not
 * inputs), then clamped to [output_min, output_max]. Input and output share one quantization.
 * Output size: (in + pad_before + pad_after - window) / stride + 1; a non-positive size is
 * invalid_parameter at setup.
 * @return invalid_parameter for NULL pointers, zero sizes, a padding not below the window, or
 *         output_min > output_max.
 */
Q8NN_API enum q8nn_status q8nn_create_max_pooling2d_nhwc_s8(const struct q8nn_pooling2d_desc* desc, int8_t output_min,
                                                            int8_t output_max, uint32_t flags,
                                                            q8nn_operator_t* pooling_out);
/**
 * Average pooling: TFLite's AveragePool for int8 (reference_integer_ops::AveragePool): the int32 sum
 * of the window clipped to the image, divided by the number of its cells with rounding half away
 * from zero ((sum +- count / 2) / count, truncated), then clamped. Input and output share one
 * quantization (TFLite's requirement). A global average pooling is the window of the whole image.
 */
Q8NN_API enum q8nn_status q8nn_create_average_pooling2d_nhwc_s8(const struct q8nn_pooling2d_desc* desc,
                                                                int8_t output_min, int8_t output_max, uint32_t flags,
                                                                q8nn_operator_t* pooling_out);
/** Setup of a max or average pooling: pixels of `channels` values, pixel strides >= channels (as
    for the convolutions; the gap between pixels is not written). */
Q8NN_API enum q8nn_status q8nn_setup_pooling2d_nhwc_s8(q8nn_operator_t pooling, size_t batch_size, size_t input_height,
                                                       size_t input_width, const int8_t* input,
                                                       size_t input_pixel_stride, int8_t* output,
                                                       size_t output_pixel_stride, size_t* output_height_out,
                                                       size_t* output_width_out);
/** uint8 forms: the bytes of the int8 operator on x - 128, plus 128 (clamp in uint8). */
Q8NN_API enum q8nn_status q8nn_create_max_pooling2d_nhwc_u8(const struct q8nn_pooling2d_desc* desc, uint8_t output_min,
                                                            uint8_t output_max, uint32_t flags,
                                                            q8nn_operator_t* pooling_out);
Q8NN_API enum q8nn_status q8nn_create_average_pooling2d_nhwc_u8(const struct q8nn_pooling2d_desc* desc,
                                                                uint8_t output_min, uint8_t output_max, uint32_t flags,
                                                                q8nn_operator_t* pooling_out);
Q8NN_API enum q8nn_status q8nn_setup_pooling2d_nhwc_u8(q8nn_operator_t pooling, size_t batch_size, size_t input_height,
                                                       size_t input_width, const uint8_t* input,
                                                       size_t input_pixel_stride, uint8_t* output,
                                                       size_t output_pixel_stride, size_t* output_height_out,
                                                       size_t* output_width_out);

/** Input and output quantization of a requantizing average pooling. */
struct q8nn_pooling2d_quantization {
  int32_t input_zero_point;  /**< in the activations' range ([-128, 127] or [0, 255]) */
  float input_scale;         /**< normal float > 0 */
  int32_t output_zero_point; /**< in the activations' range */
  float output_scale;        /**< normal float > 0; input_scale / output_scale in [2^-8, 2^8) */
};

/**
 * Average pooling with its own output quantization: pytorch_qnnpack's average pooling arithmetic
 * in PyTorch 1.13 (PyTorch's quint8 adaptive_avg_pool2d on its qnnpack engine gives these bytes;
 * Debian's XNNPACK 2022 qu8 average pooling rounds differently on some windows):
 *  - scale = input_scale / (output_scale * (float) (pooling_height * pooling_width)), in float;
 *  - acc = the int32 sum of (x - input_zero_point) over the window clipped to the image: padding
 *    cells count as the input zero point (they add 0, and the divisor is the whole window);
 *  - out = clamp(rne((float) acc * scale) + output_zero_point, output_min, output_max), rne the
 *    round to nearest, ties to even, of the float product.
 * The setup and the output size are those of q8nn_setup_pooling2d_nhwc_* (the same operator type).
 * @param flags 0.
 * @return invalid_parameter as q8nn_create_average_pooling2d_nhwc_*, and for quant NULL, zero
 *         points out of range or scales that are not normal floats > 0; unsupported_parameter for
 *         an input/output scale ratio outside [2^-8, 2^8) (as pytorch_qnnpack) or a window of
 *         2^23 cells or more.
 */
Q8NN_API enum q8nn_status q8nn_create_average_pooling2d_requantized_nhwc_s8(
    const struct q8nn_pooling2d_desc* desc, const struct q8nn_pooling2d_quantization* quant, int8_t output_min,
    int8_t output_max, uint32_t flags, q8nn_operator_t* pooling_out);
/** uint8: zero points in [0, 255]; the bytes are the int8 operator's on x - 128, plus 128. */
Q8NN_API enum q8nn_status q8nn_create_average_pooling2d_requantized_nhwc_u8(
    const struct q8nn_pooling2d_desc* desc, const struct q8nn_pooling2d_quantization* quant, uint8_t output_min,
    uint8_t output_max, uint32_t flags, q8nn_operator_t* pooling_out);

/* ---------------------------------------------------------------------------------------------
 * Resize 2D, NHWC, int8 and uint8 (TFLite RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR)
 * ------------------------------------------------------------------------------------------- */

enum q8nn_resize_mode {
  q8nn_resize_nearest = 1,  /**< TFLite ResizeNearestNeighbor */
  q8nn_resize_bilinear = 2, /**< TFLite ResizeBilinear for int8 (its integer interpolation) */
};
/** Create flags of q8nn_create_resize2d_nhwc_*: TFLite's two options (both 0: its default scale
    in / out). They may not both be set. */
#define Q8NN_FLAG_ALIGN_CORNERS 0x00000008u
#define Q8NN_FLAG_HALF_PIXEL_CENTERS 0x00000010u

/**
 * Creates a resize to output_height x output_width of pixels of `channels` values, bit-exact with
 * TFLite's reference kernels for int8 (input and output share one quantization, as TFLite requires).
 * @return invalid_parameter for NULL, zero sizes, unknown flags or both flags.
 */
Q8NN_API enum q8nn_status q8nn_create_resize2d_nhwc_s8(enum q8nn_resize_mode mode, size_t channels,
                                                       size_t output_height, size_t output_width, uint32_t flags,
                                                       q8nn_operator_t* resize_out);
/** Binds batch_size images of input_height x input_width pixels (pixel strides >= channels; the
    output's gap between pixels is not written). invalid_parameter for NULL pointers, zero sizes,
    strides below the channels or extents that overflow the address space. */
Q8NN_API enum q8nn_status q8nn_setup_resize2d_nhwc_s8(q8nn_operator_t resize, size_t batch_size, size_t input_height,
                                                      size_t input_width, const int8_t* input,
                                                      size_t input_pixel_stride, int8_t* output,
                                                      size_t output_pixel_stride);
/** uint8: the int8 operator's bytes on x - 128, plus 128. */
Q8NN_API enum q8nn_status q8nn_create_resize2d_nhwc_u8(enum q8nn_resize_mode mode, size_t channels,
                                                       size_t output_height, size_t output_width, uint32_t flags,
                                                       q8nn_operator_t* resize_out);
Q8NN_API enum q8nn_status q8nn_setup_resize2d_nhwc_u8(q8nn_operator_t resize, size_t batch_size, size_t input_height,
                                                      size_t input_width, const uint8_t* input,
                                                      size_t input_pixel_stride, uint8_t* output,
                                                      size_t output_pixel_stride);

/* ---------------------------------------------------------------------------------------------
 * Softmax over the last dimension, int8 and uint8
 * ------------------------------------------------------------------------------------------- */

/**
 * Creates a softmax of rows of `channels` values: TFLite's int8 Softmax (reference_ops::Softmax:
 * PreprocessSoftmaxScaling(beta, input_scale, 5), gemmlowp's exp and reciprocal); output scale
 * 1/256 and zero point -128 (uint8: 0), as TFLite requires. The input zero point does not matter
 * (only differences from the row's maximum do).
 * @return invalid_parameter for a NULL out-pointer, unknown flags, or input_scale / beta not finite
 *         and > 0; unsupported_parameter where beta x input_scale is too small for TFLite's scaling
 *         (its QuantizeMultiplierGreaterThanOne would fail).
 */
Q8NN_API enum q8nn_status q8nn_create_softmax_nc_s8(float input_scale, float beta, uint32_t flags,
                                                    q8nn_operator_t* softmax_out);
/** batch_size rows, strides >= channels; the output may alias the input exactly (same pointer and
    stride). invalid_parameter for NULL pointers, zero sizes, strides below channels, any other
    overlap of output and input, or extents that overflow the address space. */
Q8NN_API enum q8nn_status q8nn_setup_softmax_nc_s8(q8nn_operator_t softmax, size_t batch_size, size_t channels,
                                                   const int8_t* input, size_t input_stride, int8_t* output,
                                                   size_t output_stride);
Q8NN_API enum q8nn_status q8nn_create_softmax_nc_u8(float input_scale, float beta, uint32_t flags,
                                                    q8nn_operator_t* softmax_out);
Q8NN_API enum q8nn_status q8nn_setup_softmax_nc_u8(q8nn_operator_t softmax, size_t batch_size, size_t channels,
                                                   const uint8_t* input, size_t input_stride, uint8_t* output,
                                                   size_t output_stride);

/* ---------------------------------------------------------------------------------------------
 * Concatenation and channel shuffle: data movement, int8 and uint8
 * ------------------------------------------------------------------------------------------- */

/** Quantization of a concatenation's inputs and output. */
struct q8nn_concatenate_quantization {
  const float* input_scales;        /**< num_inputs normal floats > 0 */
  const int32_t* input_zero_points; /**< num_inputs, in the activations' range */
  float output_scale;
  int32_t output_zero_point;
};
/** Create flag of q8nn_create_concatenate_nd_*: inputs whose quantization differs from the
    output's are requantized as PyTorch's quantized cat does: q = clamp(nearbyint((float) ((x -
    input_zero_point) * input_scale) * (1 / output_scale)) + output_zero_point), the float
    arithmetic of dequantize then quantize_per_tensor (ties to even). */
#define Q8NN_FLAG_PYTORCH_REQUANTIZE 0x00000020u

/**
 * Creates a concatenation of num_inputs tensors along one axis (chosen at setup).
 * quant NULL: every input has the output's quantization and the bytes are copied (TFLite's
 * CONCATENATION for int8, which requires that; XNNPACK's concatenate). With quant, an input whose
 * scale and zero point equal the output's is copied; any other needs Q8NN_FLAG_PYTORCH_REQUANTIZE
 * (unsupported_parameter otherwise, as TFLite refuses it) and runs a 256-entry table of that
 * arithmetic through the table-lookup kernels.
 * @return invalid_parameter for num_inputs 0, NULL out-pointer, unknown flags, scales that are not
 *         normal floats > 0 or zero points out of range.
 */
Q8NN_API enum q8nn_status q8nn_create_concatenate_nd_s8(size_t num_inputs,
                                                        const struct q8nn_concatenate_quantization* quant,
                                                        uint32_t flags, q8nn_operator_t* concatenate_out);
/**
 * Binds the inputs: every input has `shape` except along `axis`, where input i has axis_sizes[i]
 * (shape[axis] is ignored); the output is dense with shape[axis] = the sum. Inputs and output are
 * dense row-major; no input may overlap the output.
 * @return invalid_parameter for NULL pointers, a zero dimension or axis size, axis >= num_dims,
 *         an overlap, or sizes that overflow; unsupported_parameter for num_dims > Q8NN_MAX_DIMS.
 */
Q8NN_API enum q8nn_status q8nn_setup_concatenate_nd_s8(q8nn_operator_t concatenate, size_t num_dims,
                                                       const size_t* shape, size_t axis, const size_t* axis_sizes,
                                                       const int8_t* const* inputs, int8_t* output);
/** uint8: zero points in [0, 255]; the bytes are the int8 operator's plus 128. */
Q8NN_API enum q8nn_status q8nn_create_concatenate_nd_u8(size_t num_inputs,
                                                        const struct q8nn_concatenate_quantization* quant,
                                                        uint32_t flags, q8nn_operator_t* concatenate_out);
Q8NN_API enum q8nn_status q8nn_setup_concatenate_nd_u8(q8nn_operator_t concatenate, size_t num_dims,
                                                       const size_t* shape, size_t axis, const size_t* axis_sizes,
                                                       const uint8_t* const* inputs, uint8_t* output);

/**
 * Creates a channel shuffle of pixels of groups x group_channels bytes (ShuffleNet's, XNNPACK's
 * xnn_create_channel_shuffle_nc_x8, PyTorch's channel_shuffle): output channel k * groups + g is
 * input channel g * group_channels + k. Bytes of any type.
 * @return invalid_parameter for groups < 2, group_channels 0 or a product that overflows.
 */
Q8NN_API enum q8nn_status q8nn_create_channel_shuffle_nc_x8(size_t groups, size_t group_channels, uint32_t flags,
                                                           q8nn_operator_t* channel_shuffle_out);
/** batch_size pixels, strides >= groups x group_channels (the output's gap is not written); the
    output may not overlap the input. */
Q8NN_API enum q8nn_status q8nn_setup_channel_shuffle_nc_x8(q8nn_operator_t channel_shuffle, size_t batch_size,
                                                           const void* input, size_t input_stride, void* output,
                                                           size_t output_stride);

/* ---------------------------------------------------------------------------------------------
 * Additions beyond API.md: ISA control and logging
 * ------------------------------------------------------------------------------------------- */

/** ISA bits. Scalar kernels are always available and cannot be masked. */
#define Q8NN_ISA_X86_AVX2        0x00000001u
#define Q8NN_ISA_X86_AVXVNNI     0x00000002u
#define Q8NN_ISA_X86_AVX512VNNI  0x00000004u
/** AMX-INT8 tiles (with AVX-512 VNNI, which the AMX kernels' epilogues use), granted by the OS. */
#define Q8NN_ISA_X86_AMX         0x00000008u
/** AVX-512 VBMI (VPERMI2B: the table lookups), detected with the AVX-512 VNNI tier only. */
#define Q8NN_ISA_X86_AVX512VBMI  0x00000010u
#define Q8NN_ISA_ARM_NEON        0x00000100u
#define Q8NN_ISA_ARM_NEON_DOT    0x00000200u
#define Q8NN_ISA_ARM_NEON_I8MM   0x00000400u
#define Q8NN_ISA_RISCV_V         0x00010000u
#define Q8NN_ISA_ALL             0xFFFFFFFFu

/**
 * Restricts dispatch to the ISAs in mask (intersected with what the CPU has). Operators created
 * afterwards use the new tables; existing operators keep their kernels. The environment variable
 * Q8NN_ISA_MASK sets the initial mask: a number (0x.. accepted) or a comma-separated list of names
 * ("scalar", "avx2", "avxvnni", "avx512vnni", "amx", "avx512vbmi", "neon", "neondot", "i8mm", "rvv").
 * @return uninitialized before q8nn_initialize.
 */
Q8NN_API enum q8nn_status q8nn_set_isa_mask(uint32_t mask);
/** ISAs the CPU has (all bits, before masking); 0 before q8nn_initialize. */
Q8NN_API uint32_t q8nn_get_available_isa(void);
/** ISAs dispatch currently uses (available & mask). */
Q8NN_API uint32_t q8nn_get_active_isa(void);

/** 0 = silent (default unless Q8NN_LOG is set), 1 = errors to stderr, once per failing call. */
Q8NN_API void q8nn_set_log_level(int level);

/** Name of the microkernel an operator runs (for tests and benchmarks); "" before create. */
Q8NN_API const char* q8nn_operator_kernel_name(q8nn_operator_t op);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* Q8NN_H */
