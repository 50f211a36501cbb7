/* Convolution and depthwise convolution on VTA (vta-lower-conv.c, docs/vta-backend.md). */
#ifndef Q8NN_VTA_LOWER_CONV_H
#define Q8NN_VTA_LOWER_CONV_H

#include "accel/vta/vta-lower.h"

/* supports: a pure check on the created operator.
   prepare: fills state (DRAM images, program). run: relayout in, run, relayout out. */
Q8NN_INTERNAL bool q8nn_vta_conv_supports(const struct q8nn_vta_target* vta, const struct q8nn_operator* op);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_conv_prepare(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                                     struct q8nn_vta_op_state* state);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_conv_run(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                                 struct q8nn_vta_op_state* state);
/* The per-channel constants of an operator (supports and the tests' oracle). requant holds
   round_up(channels, block_out) entries. false when unsupported. The exact table is in the
   linear form when linear_allowed and every channel has one (the layer then runs its program),
   else in the limb form. */
Q8NN_INTERNAL bool q8nn_vta_conv_requant_table(const struct q8nn_operator* op, size_t padded_channels,
                                               struct q8nn_vta_conv_requant* requant);
Q8NN_INTERNAL bool q8nn_vta_conv_exact_table(const struct q8nn_operator* op, size_t padded_channels,
                                             bool linear_allowed, struct q8nn_vta_conv_exact* exact);

#endif
