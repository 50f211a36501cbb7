/* What the VTA lowerings share (docs/vta-backend.md "Layering"): the target they record for
   (configuration, simulated device, requantization mode, counters), the per-operator state the
   backend owns, the micro-op kernel table, the one-instruction ALU helper, and running a recorded
   program. Above the runtime (vta-runtime.h), below the lowerings (vta-lower-conv.h,
   vta-lower-add.h) and the backend object (vta-backend.h), which call down only. */
#ifndef Q8NN_VTA_LOWER_H
#define Q8NN_VTA_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/vta/vta-config.h"
#include "accel/vta/vta-requant.h"
#include "accel/vta/vta-runtime.h"
#include "operator.h"

/* What a lowering records for: the backend object embeds one. */
struct q8nn_vta_target {
  struct q8nn_vta_hw_config config;
  struct q8nn_vta_device* device;
  struct q8nn_vta_run_info last_run;  /* counters of the most recent program run, any operator */
  bool exact;                         /* requantize exactly (q8nn_vta_requant_exact) */
  bool limb_form;                     /* exact with the limb form only (q8nn_vta_requant_exact_limbs) */
};

/* Micro-op kernels are keyed by their descriptor: equal descriptors are equal kernels. */
#define Q8NN_VTA_KDESC_WORDS 24
struct q8nn_vta_kdesc {
  uint32_t kind;
  uint32_t v[Q8NN_VTA_KDESC_WORDS];
};
struct q8nn_vta_ktable {
  struct q8nn_vta_kdesc* items;
  size_t count, capacity;
};
/* Index of desc in the table (added when new); UINT64_MAX when out of memory. */
Q8NN_INTERNAL uint64_t q8nn_vta_ktable_key(struct q8nn_vta_ktable* table, const struct q8nn_vta_kdesc* desc);
Q8NN_INTERNAL void q8nn_vta_ktable_free(struct q8nn_vta_ktable* table);

/* One ALU instruction of a single micro-op (dst, src) with two loops: outer (extent, dst factor,
   src factor) and inner (extent, dst factor 1, src factor src_inner). use_imm: src is ignored. */
#define Q8NN_VTA_KIND_ALU 3u
struct q8nn_vta_alu_op {
  uint32_t opcode;
  bool use_imm;
  int32_t imm;
  uint32_t dst, src;
  uint32_t outer, dst_outer, src_outer;
  uint32_t inner, src_inner;
};
Q8NN_INTERNAL enum q8nn_status q8nn_vta_push_alu(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                                 const struct q8nn_vta_alu_op* alu);

/* A GEMM reset of rows consecutive ACC rows from dst (1 cycle per row; rows < 2^14). */
#define Q8NN_VTA_KIND_RESET 4u
Q8NN_INTERNAL enum q8nn_status q8nn_vta_push_reset(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                                   uint32_t dst, uint32_t rows);

/* The exact requantization's ALU steps (vta-requant.h, q8nn_vta_conv_exact) on regions X (the
   values) and A, B, C, D (consecutive from scratch) of blocks x rows ACC rows each, A..D zeroed
   beforehand. The constants of
   block j are rows k + const_stride*j (k in the order of struct q8nn_vta_conv_exact). Optional
   steps run when some block needs them. */
struct q8nn_vta_exact_steps {
  bool bias, clamp, ls, sign, sign_mixed, final_clamp;
  int32_t out_min, out_max;
  uint32_t const_stride;
  bool no_low; /* leave out the tl*Ml term (q8nn_vta_conv_exact.no_low) */
};
Q8NN_INTERNAL enum q8nn_status q8nn_vta_push_exact_requant(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                                           const struct q8nn_vta_exact_steps* steps, uint32_t x,
                                                           uint32_t scratch, uint32_t blocks, uint32_t rows);

/* The linear form's ALU steps (vta-requant.h, q8nn_vta_conv_linear) on X and the regions from
   scratch (S0..S(n-2), then D when sign), each blocks x rows ACC rows, zeroed by the GEMM reset.
   Constant rows as for q8nn_vta_push_exact_requant, in the order of struct q8nn_vta_conv_linear. */
struct q8nn_vta_linear_steps {
  uint32_t limbs;
  int32_t w;
  bool sign, final_clamp;
  int32_t out_min, out_max;
  uint32_t const_stride;
};
Q8NN_INTERNAL enum q8nn_status q8nn_vta_push_linear_requant(struct q8nn_vta_cmd* cmd, struct q8nn_vta_ktable* table,
                                                            const struct q8nn_vta_linear_steps* steps, uint32_t x,
                                                            uint32_t scratch, uint32_t blocks, uint32_t rows);
/* ACC regions (X included) and ALU steps per pixel row of the linear form. */
static inline uint32_t q8nn_vta_linear_regions(uint32_t limbs, bool sign) { return limbs + (sign ? 1 : 0); }
static inline uint32_t q8nn_vta_linear_alu_steps(uint32_t limbs, bool sign, bool final_clamp) {
  return 3 + (limbs == 1 ? 3 : (limbs - 1) + 3 * limbs) + (sign ? 5 : 0) + (final_clamp ? 2 : 0);
}

/* Conv / depthwise tiling (chosen at prepare, docs/vta-backend.md "Tiling"). */
struct q8nn_vta_conv_plan {
  bool depthwise;                   /* banded mapping: output block k reads input block k / dm */
  uint32_t dm;                      /* depth multiplier of that mapping (1: block-diagonal) */
  uint32_t wib, gob;                /* input blocks an output block reads (IB, or per group) and
                                       output blocks per group (OB when dense) */
  bool packed;                      /* taps packed into the input blocks: a 1x1 GEMM on an im2col image */
  uint32_t vt;                      /* virtual threads */
  uint32_t ib, ob, nb;              /* input / output / batch blocks */
  uint32_t hp, wp;                  /* padded input image */
  uint32_t oh, ow;
  uint32_t obg, ibc, rows, cols;    /* tile: output blocks, input blocks, output rows, output cols */
  bool weights_resident;            /* all weights loaded once */
  bool clamp_needed, s1_needed;     /* some channel needs the pre-clamp / pre-shift */
  bool final_clamp;                 /* some channel needs the output clamp as separate ALU steps */
  bool exact;                       /* exact requantization (vta-requant.h), else 16-bit */
  bool ls_needed, sign_needed, sign_mixed; /* exact: some channel shifts left / needs the sign step / not all do */
  bool linear;                      /* exact: the linear form (limbs of M' on the full t) */
  uint32_t limbs;                   /* its n */
  int32_t exact_w;                  /* its limb width w */
  uint32_t const_rows;              /* constant ACC rows per output block (7 or 12) */
  uint32_t regions;                 /* ACC rows per output pixel-block: 1 (16-bit), 4 or 5 (exact,
                                       limb form), limbs + sign (linear form) */
  uint64_t est_cycles;              /* the planner's estimate */
};

struct q8nn_vta_op_state {
  struct q8nn_vta_program program;
  bool has_program;
  bool on_cpu; /* prepare found the shape beyond the lowering's limits: the CPU plan runs */
  /* DRAM images (physical addresses, 0 = none) */
  uint32_t in_addr, wgt_addr, const_addr, out_addr, b_addr;
  size_t in_bytes, out_bytes, b_bytes;
  /* conv */
  struct q8nn_vta_conv_plan plan;
  struct q8nn_vta_conv_requant* requant; /* per output channel (padded to whole blocks), 16-bit mode */
  struct q8nn_vta_conv_exact* exact;     /* per output channel (padded to whole blocks), exact mode */
  /* add */
  struct q8nn_vta_add_requant add;     /* 16-bit mode */
  struct q8nn_vta_add_exact add_exact; /* exact mode */
  size_t add_rows;       /* ACC rows per operand image */
  size_t add_elements;   /* output elements */
  /* The shapes the program was lowered for (vta_prepare): a setup with the same ones and new
     pointers keeps the program, as run reads the pointers and pixel strides from the operator. */
  size_t shape_key[3 * Q8NN_MAX_DIMS];
  /* Counters of this operator's most recent program run (q8nn_vta_get_operator_stats): right
     whichever other operators share the device, as runs are serialised by the backend's lock. */
  struct q8nn_vta_run_info last_run;
};

/* Runs state->program and accumulates the counters; backend_error on a program fault. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_run_program(struct q8nn_vta_target* vta, struct q8nn_vta_op_state* state);

#endif
