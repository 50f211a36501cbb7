/*
 * q8nn-model: whole int8 TFLite models on top of q8nn.
 *
 * A separate library (q8nn_model) above the public q8nn API: it reads a .tflite flatbuffer with its
 * own bounds-checked reader, creates q8nn operators once at load time (convolutions, depthwise,
 * transposed convolution, fully connected, add, pooling, the elementwise tables, softmax, resize,
 * concatenation), runs the other supported operators (mean, mul, sub, pad, ...) as portable C,
 * and plans every activation tensor into one arena (tensors with disjoint lifetimes share memory,
 * greedy by size as TFLite Micro's planner). Results are bit-exact with TFLite's reference integer
 * kernels (double rounding).
 *
 * Life cycle: q8nn_model_load_* (parse, validate, plan, create and set up every operator) ->
 * bind buffers (optional) -> q8nn_model_run (any number of times; allocates nothing) ->
 * q8nn_model_delete. q8nn_initialize() must have been called before loading.
 *
 * Memory: the file is read during load only (q8nn packs the weights; constants read at run time
 * are copied): the caller's bytes may be freed once load returns.
 * Bound input/output buffers belong to the caller and must stay valid until rebound or delete.
 *
 * Threads: a model is used by one thread at a time (load, bind, run, debug calls, delete); distinct
 * models, also loaded from the same file or memory, may run on distinct threads at once, on the CPU
 * or sharing one VTA backend (q8nn.h, "Concurrency").
 */
#ifndef Q8NN_MODEL_H
#define Q8NN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <q8nn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct q8nn_model* q8nn_model_t;

/** Maximum rank of a model tensor. */
#define Q8NN_MODEL_MAX_DIMS 6

/** Element types a model tensor can have (TFLite TensorType numbers). */
enum q8nn_model_type {
  q8nn_model_type_float32 = 0,
  q8nn_model_type_int32 = 2,
  q8nn_model_type_uint8 = 3,
  q8nn_model_type_int64 = 4,
  q8nn_model_type_int8 = 9,
};

/** Arithmetic of the operators q8nn runs (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD). */
enum q8nn_model_numerics {
  /** TFLite's reference integer kernels (double rounding): bit-exact with TFLite. The default. */
  q8nn_model_numerics_tflite = 0,
  /** XNNPACK numerics, not TFLite-exact: convolutions, depthwise and fully connected with
      q8nn_rounding_fp32, adds with Q8NN_FLAG_XNNPACK_ADD (see q8nn.h). Some output bytes then
      differ by 1 from TFLite; the portable operators (SOFTMAX, pools, ...) are unchanged. Models
      whose scales XNNPACK would refuse (subnormal, or a requantization scale >= 256) fail to load. */
  q8nn_model_numerics_xnnpack_fp32 = 1,
};

/** Load options. Zero-filled (or NULL) = every operator on the CPU, TFLite numerics. */
struct q8nn_model_options {
  /** Optional backend: every operator it supports() is set up there, the rest on the CPU; an
      operator whose setup fails on the backend (or that the backend's setup leaves on the CPU)
      runs on the CPU (q8nn_model_operator_info.placement says which). Not owned; must outlive
      the model. NULL = CPU. */
  q8nn_backend_t backend;
  /** Record the time of every operator during run (see q8nn_model_get_operator_info). */
  bool profile;
  /** q8nn_model_numerics_tflite (0) or q8nn_model_numerics_xnnpack_fp32. */
  enum q8nn_model_numerics numerics;
};

/** One model input or output tensor. */
struct q8nn_model_tensor_info {
  const char* name;                  /**< owned by the model; "" when the file has none */
  enum q8nn_model_type type;
  size_t num_dims;                   /**< [0, Q8NN_MODEL_MAX_DIMS] */
  size_t dims[Q8NN_MODEL_MAX_DIMS];
  size_t num_bytes;                  /**< product of dims * element size */
  float scale;                       /**< 0 when the tensor is not quantized */
  int32_t zero_point;
};

/** One operator of the loaded graph, in execution order. */
struct q8nn_model_operator_info {
  const char* type;                  /**< TFLite builtin name ("CONV_2D", ...); static */
  const char* placement;             /**< where it runs: the backend's name, or "cpu" (the backend
                                          declined it, its setup failed or left it on the CPU); static */
  size_t num_output_dims;
  size_t output_dims[Q8NN_MODEL_MAX_DIMS];
  uint64_t macs;                     /**< multiply-accumulates per run (0 for data movement) */
  uint64_t last_run_ns;              /**< time of the operator in the last profiled run, else 0 */
  /** SIZE_MAX, or the index of the later operator that does this one's work: operators fused at
      load (a MUL or SUB by a constant whose output only feeds another one, as in an input
      preprocessing x * s - t, become one lookup). A fused operator does nothing at run time
      (last_run_ns 0, its time is in the other's) and its output tensor never exists
      (q8nn_model_debug_tensor gives NULL data for it). */
  size_t fused_into;
  /** The VTA backend's counters of the operator's last run (q8nn_vta_get_operator_stats); all 0
      when it runs on the CPU. */
  struct q8nn_vta_stats backend_stats;
};

/**
 * Loads a TFLite flatbuffer from memory. Every offset, length and index is checked against the
 * buffer: a truncated or corrupted file is an error, never an out-of-bounds read.
 * @param data, size   the .tflite bytes; read during the call only.
 * @param options      NULL or load options.
 * @param model_out    receives the model; untouched unless success.
 * @param error        NULL or a buffer that receives a one-line message on failure (always
 *                     NUL-terminated when error_size > 0); operator errors name the operator
 *                     and its index.
 * @return uninitialized; invalid_parameter (NULL pointers, a malformed file);
 *         unsupported_parameter (an operator, type or option q8nn-model does not support);
 *         out_of_memory; or a q8nn create/setup status.
 */
Q8NN_API enum q8nn_status q8nn_model_load_memory(const void* data, size_t size,
                                                 const struct q8nn_model_options* options,
                                                 q8nn_model_t* model_out, char* error, size_t error_size);

/** As q8nn_model_load_memory, reading the file at path (invalid_parameter if it cannot be read). */
Q8NN_API enum q8nn_status q8nn_model_load_file(const char* path, const struct q8nn_model_options* options,
                                               q8nn_model_t* model_out, char* error, size_t error_size);

/** Number of graph inputs / outputs (0 for NULL). */
Q8NN_API size_t q8nn_model_num_inputs(q8nn_model_t model);
Q8NN_API size_t q8nn_model_num_outputs(q8nn_model_t model);

/** Describes input/output `index`. @return invalid_parameter for NULL or an index out of range. */
Q8NN_API enum q8nn_status q8nn_model_input_info(q8nn_model_t model, size_t index,
                                                struct q8nn_model_tensor_info* info);
Q8NN_API enum q8nn_status q8nn_model_output_info(q8nn_model_t model, size_t index,
                                                 struct q8nn_model_tensor_info* info);

/**
 * Binds a caller buffer of info.num_bytes bytes to input `index`: run copies it into the arena
 * first. NULL unbinds (the caller then writes q8nn_model_input_data directly).
 */
Q8NN_API enum q8nn_status q8nn_model_bind_input(q8nn_model_t model, size_t index, const void* data);
/** Binds a caller buffer of info.num_bytes bytes to output `index`: run copies the result there. */
Q8NN_API enum q8nn_status q8nn_model_bind_output(q8nn_model_t model, size_t index, void* data);

/** The arena memory of input/output `index` (valid until delete), or NULL for a bad index. An input
    keeps its bytes across runs (no operator reuses its memory); an output holds the last run's
    result until the next run. */
Q8NN_API void* q8nn_model_input_data(q8nn_model_t model, size_t index);
Q8NN_API const void* q8nn_model_output_data(q8nn_model_t model, size_t index);

/** Runs the graph. threadpool: the caller's pthreadpool, NULL = the calling thread. No allocation.
    @return invalid_parameter for NULL; a q8nn run status (e.g. backend_error). */
Q8NN_API enum q8nn_status q8nn_model_run(q8nn_model_t model, pthreadpool_t threadpool);

/** q8nn_model_run on the host's threads (struct q8nn_threadpool, q8nn.h): the same bytes. pool
    NULL = the calling thread. @return invalid_parameter for a NULL model or a pool with a NULL
    function; as q8nn_model_run otherwise. */
Q8NN_API enum q8nn_status q8nn_model_run_on(q8nn_model_t model, const struct q8nn_threadpool* pool);

/** Bytes of the activation arena planned at load time. */
Q8NN_API size_t q8nn_model_arena_size(q8nn_model_t model);

/** Number of operators, and their description (see struct q8nn_model_operator_info). */
Q8NN_API size_t q8nn_model_num_operators(q8nn_model_t model);
Q8NN_API enum q8nn_status q8nn_model_get_operator_info(q8nn_model_t model, size_t index,
                                                       struct q8nn_model_operator_info* info);

/* ---- Debugging aids (not for production use; they exist to compare the model layer with other
   implementations operator by operator, as tests/model/test-model-layers.c does) ---- */

/** Called by q8nn_model_run after operator `operator_index` has run (in execution order), on the
    thread that called run. While it runs, q8nn_model_debug_tensor reads that operator's tensors. */
typedef void (*q8nn_model_debug_callback)(void* context, q8nn_model_t model, size_t operator_index);

/** Debugging aid: installs (or, with NULL, removes) the per-operator callback. context is passed
    through. Without a callback run costs one NULL test per operator.
    @return invalid_parameter for a NULL model. */
Q8NN_API enum q8nn_status q8nn_model_set_debug_callback(q8nn_model_t model, q8nn_model_debug_callback callback,
                                                        void* context);

/** Slot value of q8nn_model_debug_tensor that names the operator's output. */
#define Q8NN_MODEL_DEBUG_OUTPUT ((size_t) -1)

/**
 * Debugging aid: describes tensor `slot` of operator `operator_index` (slot 0.. = its inputs in the
 * file's order, Q8NN_MODEL_DEBUG_OUTPUT = its output) and gives its current bytes.
 * @param info   receives the description (scale/zero point: the first ones of the tensor).
 * @param data   receives the tensor's memory, or NULL for a constant the model did not keep
 *               (filters and biases, which q8nn packed at load), for an absent optional input and
 *               for the output of a fused operator (see q8nn_model_operator_info.fused_into).
 *               Arena tensors share memory with others: their bytes are meaningful only from the
 *               end of the operator that writes them to the end of the last one that reads them,
 *               i.e. inside the debug callback of operator_index for its inputs and output.
 * @return invalid_parameter for NULL pointers or an index/slot out of range.
 */
Q8NN_API enum q8nn_status q8nn_model_debug_tensor(q8nn_model_t model, size_t operator_index, size_t slot,
                                                  struct q8nn_model_tensor_info* info, const void** data);

/** Deletes the model and everything it owns (not the backend). NULL is fine. */
Q8NN_API enum q8nn_status q8nn_model_delete(q8nn_model_t model);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* Q8NN_MODEL_H */
