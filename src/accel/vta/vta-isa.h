/* VTA instruction (128-bit) and micro-op (32-bit) encodings, HW_VER 0.0.2 (VTA-SPEC §3). Bit
   positions come from the configuration's layouts, so non-default depths move fields exactly as
   the C bitfields of hw_spec.h would. */
#ifndef Q8NN_VTA_ISA_H
#define Q8NN_VTA_ISA_H

#include <stdbool.h>
#include <stdint.h>

#include "accel/vta/vta-config.h"

/* One decoded instruction. Only the fields of its format are meaningful; encode ignores the rest.
   FINISH uses the GEMM format (header only). */
struct q8nn_vta_insn {
  uint32_t opcode;
  uint32_t pop_prev, pop_next, push_prev, push_next; /* 0 or 1 */
  /* LOAD / STORE */
  uint32_t memory_type, sram_base, dram_base;
  uint32_t y_size, x_size, x_stride;
  uint32_t y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  /* GEMM / ALU */
  uint32_t reset;
  uint32_t uop_bgn, uop_end, iter_out, iter_in;
  uint32_t dst_factor_out, dst_factor_in, src_factor_out, src_factor_in;
  uint32_t wgt_factor_out, wgt_factor_in; /* GEMM */
  uint32_t alu_opcode, use_imm;           /* ALU */
  int32_t imm;                            /* ALU, [-32768, 32767] */
};

struct q8nn_vta_uop {
  uint32_t dst, src, wgt;
};

/* Packs insn into words[0] (bits 0..63) and words[1]. invalid_parameter (message in error, may
   be NULL) when the opcode is not 0..4 or a field does not fit its width. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_encode_insn(const struct q8nn_vta_hw_config* config,
                                                    const struct q8nn_vta_insn* insn, uint64_t words[2],
                                                    char* error, size_t error_size);

/* Unpacks any 128-bit pattern; opcodes 5..7 decode their header only (the caller rejects them). */
Q8NN_INTERNAL void q8nn_vta_decode_insn(const struct q8nn_vta_hw_config* config, const uint64_t words[2],
                                        struct q8nn_vta_insn* insn);

Q8NN_INTERNAL enum q8nn_status q8nn_vta_encode_uop(const struct q8nn_vta_hw_config* config,
                                                   const struct q8nn_vta_uop* uop, uint32_t* word);
Q8NN_INTERNAL void q8nn_vta_decode_uop(const struct q8nn_vta_hw_config* config, uint32_t word,
                                       struct q8nn_vta_uop* uop);

/* "LOAD INP", "GEMM", "ALU MAX imm", "NOP(store)" ... for messages. */
Q8NN_INTERNAL const char* q8nn_vta_insn_name(const struct q8nn_vta_insn* insn);

#endif
