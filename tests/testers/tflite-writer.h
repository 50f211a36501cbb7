/*
 * A small .tflite writer for the model tests: one subgraph of the tensors and operators given,
 * serialized as a FlatBuffer from the published TFLite schema's field ids (the same ones
 * src/model/parse.c reads), written back to front as FlatBuffers builders do. Enough to make
 * synthetic models of the operators and options real files do not have (per-channel
 * FULLY_CONNECTED, shapes a backend declines, fused lookup chains); not a general builder.
 */
#ifndef Q8NN_TESTS_TFLITE_WRITER_H
#define Q8NN_TESTS_TFLITE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFLW_MAX_DIMS 6
#define TFLW_MAX_INPUTS 8
#define TFLW_MAX_OPTIONS 8

/** TFLite TensorType values. */
enum { TFLW_FLOAT32 = 0, TFLW_INT32 = 2, TFLW_INT8 = 9 };

struct tflw_tensor {
  int type;                          /**< TFLW_INT8, TFLW_INT32, ... */
  size_t num_dims;
  int32_t dims[TFLW_MAX_DIMS];
  const void* data;                  /**< constant bytes (a buffer of their own), or NULL */
  size_t data_bytes;
  size_t num_scales;                 /**< 0: no quantization table */
  const float* scales;
  const int64_t* zero_points;        /**< num_scales values */
  int32_t quantized_dimension;
};

/** A scalar field of an options table: TFLite schema field id, byte size (1, 4) and value. */
struct tflw_field {
  unsigned id;
  unsigned size;
  int32_t value;
};

struct tflw_op {
  int32_t builtin;                   /**< BuiltinOperator */
  size_t num_inputs;
  int32_t inputs[TFLW_MAX_INPUTS];   /**< tensor indices, -1 = absent optional */
  int32_t output;
  uint8_t options_type;              /**< BuiltinOptions union type, 0 = none */
  size_t num_options;
  struct tflw_field options[TFLW_MAX_OPTIONS];
};

/**
 * Serializes the model; returns a malloc'ed buffer (free it) and its size in *size, or NULL when
 * out of memory. Operator codes are one per distinct builtin, buffer 0 is the empty one.
 */
uint8_t* tflw_write(const struct tflw_tensor* tensors, size_t num_tensors, const struct tflw_op* ops, size_t num_ops,
                    const int32_t* inputs, size_t num_inputs, const int32_t* outputs, size_t num_outputs,
                    size_t* size);

#ifdef __cplusplus
}
#endif

#endif
