/* The 256-entry table of a unary elementwise operator: TFLite's or XNNPACK's arithmetic on every int8 input. */
#ifndef Q8NN_OPERATORS_UNARY_TABLE_H
#define Q8NN_OPERATORS_UNARY_TABLE_H

#include <stdint.h>

#include "common.h"

/*
 * Fills table[(uint8_t) x] with the operator's int8 output for the int8 input x, for all 256 x, from
 * the operation and its quantization (struct q8nn_unary_quantization in q8nn.h is the contract).
 * Returns success, invalid_parameter for a malformed quantization (NULL pointers, unknown operation
 * or rounding, zero points outside [-128, 127], scales that are not normal floats > 0,
 * output_min > output_max, a non-finite alpha for leaky_relu or elu) or unsupported_parameter where
 * the reference implementation refuses the quantization. On failure the status is logged with
 * `caller` as the function name and table is left untouched.
 */
Q8NN_INTERNAL enum q8nn_status q8nn_unary_table_s8(enum q8nn_unary_operation operation,
                                                   const struct q8nn_unary_quantization* quant, int8_t table[256],
                                                   const char* caller);

#endif
