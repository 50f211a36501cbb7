/* Add with broadcasting on VTA (vta-lower-add.c, docs/vta-backend.md "Add"). Same three entry
   points as the convolution lowering (vta-lower-conv.h). */
#ifndef Q8NN_VTA_LOWER_ADD_H
#define Q8NN_VTA_LOWER_ADD_H

#include "accel/vta/vta-lower.h"

Q8NN_INTERNAL bool q8nn_vta_add_supports(const struct q8nn_vta_target* vta, const struct q8nn_operator* op);
Q8NN_INTERNAL bool q8nn_vta_add_requant_of(const struct q8nn_operator* op, struct q8nn_vta_add_requant* r);
/* The exact mode's constants of an operator (supports and the tests' oracle): the short form
   unless limbs_only or none is exact; false when unsupported. */
Q8NN_INTERNAL bool q8nn_vta_add_exact_of(const struct q8nn_operator* op, bool limbs_only, struct q8nn_vta_add_exact* r);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_add_prepare(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                                    struct q8nn_vta_op_state* state);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_add_run(struct q8nn_vta_target* vta, struct q8nn_operator* op,
                                                struct q8nn_vta_op_state* state);

#endif
