/* Portable depthwise kernels, 4 channels per tile: 9 taps (3x3), 25 taps (5x5) and any number of
   taps ("x"); both TFLite roundings and XNNPACK's fp32 requantization. Channels innermost; the
   accumulators of a channel tile stay in registers across all taps, so no int32 buffer exists for
   any kernel size. */
#include "kernel-decls.h"
#include "scalar-conv.h"

Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p4c__scalar, 4, 9, 0)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p4c__scalar, 4, 9, 1)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p4c__scalar, 4, 25, 0)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p4c__scalar, 4, 25, 1)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp4c__scalar, 4, 0, 0)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp4c__scalar, 4, 0, 1)
/* XNNPACK's fp32 requantization (q8nn_rounding_fp32) */
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_9p4c__scalar, 4, 9, 2)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_25p4c__scalar, 4, 25, 2)
Q8NN_SCALAR_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_xp4c__scalar, 4, 0, 2)
