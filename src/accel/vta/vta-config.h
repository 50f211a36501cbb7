/* VTA hardware configuration: the log2 parameters of vta_config.json, every size derived from
   them, the instruction / micro-op bit layouts (VTA-SPEC §1, §3.8) and the cycle-model knobs. */
#ifndef Q8NN_VTA_CONFIG_H
#define Q8NN_VTA_CONFIG_H

#include <stdint.h>

#include "common.h"

/* Memory ids of LOAD/STORE (spec §3.2). */
enum q8nn_vta_mem_id {
  q8nn_vta_mem_uop = 0,
  q8nn_vta_mem_wgt = 1,
  q8nn_vta_mem_inp = 2,
  q8nn_vta_mem_acc = 3,
  q8nn_vta_mem_out = 4,
  q8nn_vta_mem_acc_8bit = 5,
};

enum q8nn_vta_opcode {
  q8nn_vta_op_load = 0,
  q8nn_vta_op_store = 1,
  q8nn_vta_op_gemm = 2,
  q8nn_vta_op_finish = 3,
  q8nn_vta_op_alu = 4,
};

enum q8nn_vta_alu_opcode {
  q8nn_vta_alu_min = 0,
  q8nn_vta_alu_max = 1,
  q8nn_vta_alu_add = 2,
  q8nn_vta_alu_shr = 3,
  q8nn_vta_alu_mul = 4,
};

/* Field order of each instruction format; the layout tables below are indexed by these. */
enum q8nn_vta_mem_field {
  q8nn_vta_mf_opcode, q8nn_vta_mf_pop_prev, q8nn_vta_mf_pop_next, q8nn_vta_mf_push_prev,
  q8nn_vta_mf_push_next, q8nn_vta_mf_memory_type, q8nn_vta_mf_sram_base, q8nn_vta_mf_dram_base,
  q8nn_vta_mf_y_size, q8nn_vta_mf_x_size, q8nn_vta_mf_x_stride, q8nn_vta_mf_y_pad_0,
  q8nn_vta_mf_y_pad_1, q8nn_vta_mf_x_pad_0, q8nn_vta_mf_x_pad_1, q8nn_vta_mf_count
};

/* GEMM and ALU share the first 12 fields; GEMM then has the src and wgt factors, ALU the
   ACC-indexed src factors and the operation. */
enum q8nn_vta_compute_field {
  q8nn_vta_cf_opcode, q8nn_vta_cf_pop_prev, q8nn_vta_cf_pop_next, q8nn_vta_cf_push_prev,
  q8nn_vta_cf_push_next, q8nn_vta_cf_reset, q8nn_vta_cf_uop_bgn, q8nn_vta_cf_uop_end,
  q8nn_vta_cf_iter_out, q8nn_vta_cf_iter_in, q8nn_vta_cf_dst_factor_out, q8nn_vta_cf_dst_factor_in,
  q8nn_vta_cf_src_factor_out, q8nn_vta_cf_src_factor_in,
  q8nn_vta_cf_wgt_factor_out, q8nn_vta_cf_wgt_factor_in, /* GEMM only */
  q8nn_vta_cf_gemm_count,
  q8nn_vta_cf_alu_opcode = q8nn_vta_cf_wgt_factor_out, /* ALU only, same slots */
  q8nn_vta_cf_use_imm, q8nn_vta_cf_imm,
  q8nn_vta_cf_alu_count = q8nn_vta_cf_gemm_count + 1
};

enum q8nn_vta_uop_field { q8nn_vta_uf_dst, q8nn_vta_uf_src, q8nn_vta_uf_wgt, q8nn_vta_uf_count };

#define Q8NN_VTA_MAX_FIELDS 17

struct q8nn_vta_layout {
  uint32_t count;
  uint8_t pos[Q8NN_VTA_MAX_FIELDS];
  uint8_t width[Q8NN_VTA_MAX_FIELDS];
};

/* Fixed widths from hw_spec_const.h. */
#define Q8NN_VTA_LOOP_ITER_WIDTH 14
#define Q8NN_VTA_SRAM_ADDR_WIDTH 16
#define Q8NN_VTA_DRAM_ADDR_WIDTH 32
#define Q8NN_VTA_MEMOP_SIZE_WIDTH 16
#define Q8NN_VTA_MEMOP_PAD_WIDTH 4
#define Q8NN_VTA_ALU_IMM_WIDTH 16

struct q8nn_vta_hw_config {
  /* Primary parameters (log2), as in vta_config.json. */
  uint32_t log_inp_width, log_wgt_width, log_acc_width;
  uint32_t log_batch, log_block;
  uint32_t log_uop_buff_size, log_inp_buff_size, log_wgt_buff_size, log_acc_buff_size;
  /* Not a hardware parameter: how many interleaved tile streams lowerings use (1 or 2). */
  uint32_t virtual_threads;

  /* Cycle model (docs/vta-model.md). */
  uint32_t dram_bytes_per_cycle; /* DRAM port width per cycle, >= 1 */
  uint32_t dram_latency_cycles;  /* fixed cost of every LOAD/STORE that moves data */
  uint32_t insn_overhead_cycles; /* issue cost of every instruction, NOPs included */

  /* Derived by q8nn_vta_config_derive. */
  uint32_t batch, block_in, block_out;
  uint32_t log_uop_depth, log_inp_depth, log_wgt_depth, log_acc_depth;
  uint32_t uop_depth, inp_depth, wgt_depth, acc_depth;
  uint32_t inp_elem_bytes, wgt_elem_bytes, acc_elem_bytes, out_elem_bytes;
  uint32_t acc_lanes; /* batch * block_out */
  struct q8nn_vta_layout mem_layout, gemm_layout, alu_layout, uop_layout;
};

/* Default 1x16_i8w8a32_15_15_18_17 configuration plus default cycle parameters (derived too). */
Q8NN_INTERNAL void q8nn_vta_config_default(struct q8nn_vta_hw_config* config);

/* Default configuration overridden by the public struct (zero fields keep the default; log_batch
   0 is BATCH 1 either way), validated and derived. error (may be NULL) receives a message. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_config_from_public(struct q8nn_vta_hw_config* config,
                                                           const struct q8nn_vta_config* public_config,
                                                           char* error, size_t error_size);

/* Validates the primary parameters against the envelope of spec §1.3 and fills every derived
   field. unsupported_parameter with a message when a limit is exceeded. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_config_derive(struct q8nn_vta_hw_config* config, char* error,
                                                      size_t error_size);

/* "1x16_i8w8a32_15_15_18_17". */
Q8NN_INTERNAL void q8nn_vta_config_name(const struct q8nn_vta_hw_config* config, char* name, size_t size);

/* Bytes of one DRAM element for a memory id (ACC_8BIT: the int8 source element). 0 if invalid. */
Q8NN_INTERNAL uint32_t q8nn_vta_dram_elem_bytes(const struct q8nn_vta_hw_config* config, uint32_t mem_id);

/* Formats into error (when non-NULL), logs, returns status. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_format_error(enum q8nn_status status, char* error, size_t error_size,
                                                     const char* format, ...) Q8NN_PRINTF(4, 5);

#endif
