/* The VTA runtime layer: records a command buffer the way TVM's runtime does (VTA-SPEC §7),
   with micro-op kernels cached by key, and turns it into a program for the device model.

   Typical use (the lowerings):
     q8nn_vta_config_from_public(&cfg, public_config, ...);  q8nn_vta_device_create(&cfg, &dev);
     q8nn_vta_dram_alloc(dev, bytes, &addr);  q8nn_vta_dram_write(dev, addr, data, bytes);
     q8nn_vta_cmd_create(dev, &cmd);
     q8nn_vta_dep_push / dep_pop, q8nn_vta_load_buffer_2d, q8nn_vta_push_gemm_op / push_alu_op,
     q8nn_vta_store_buffer_2d ...
     q8nn_vta_synchronize(cmd, &info);   (or q8nn_vta_cmd_finalize + q8nn_vta_program_run)
     q8nn_vta_dram_read(dev, out_addr, out, bytes);
   Every failure returns a status (backend_error for a bad program, out_of_memory) and leaves a
   message in q8nn_vta_device_last_error(dev). Errors are sticky per command buffer: the next
   finalize / synchronize reports the first one, so recording code may check only at the end. */
#ifndef Q8NN_VTA_RUNTIME_H
#define Q8NN_VTA_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "accel/vta/vta-sim.h"

/* Queue ids of VTADepPush / VTADepPop. Legal (from, to) pairs: (1,2), (2,1), (2,3), (3,2). */
enum q8nn_vta_stage {
  q8nn_vta_stage_load = 1,
  q8nn_vta_stage_compute = 2,
  q8nn_vta_stage_store = 3,
};

struct q8nn_vta_cmd;

/* A finalized program: encoded instructions plus the DRAM region holding its micro-ops. */
struct q8nn_vta_program {
  uint64_t* insns;   /* 2 words per instruction */
  size_t count;
  uint32_t uop_addr; /* 0 when the program loads no micro-ops */
  uint32_t uop_bytes;
};

Q8NN_INTERNAL enum q8nn_status q8nn_vta_cmd_create(struct q8nn_vta_device* device, struct q8nn_vta_cmd** cmd_out);
Q8NN_INTERNAL void q8nn_vta_cmd_delete(struct q8nn_vta_cmd* cmd);
/* Instructions recorded since the last finalize. */
Q8NN_INTERNAL size_t q8nn_vta_cmd_insn_count(const struct q8nn_vta_cmd* cmd);
/* Decoded view of recorded instruction i (LOAD UOP dram_base still relative to the uop staging). */
Q8NN_INTERNAL const struct q8nn_vta_insn* q8nn_vta_cmd_insn(const struct q8nn_vta_cmd* cmd, size_t i);

/* VTALoadBuffer2D: one LOAD of dst_memory_type (INP, WGT, ACC, UOP, ACC_8BIT) from DRAM at
   src_addr (physical, aligned to the element size) + src_elem_offset elements. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_load_buffer_2d(
    struct q8nn_vta_cmd* cmd, uint32_t src_addr, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size,
    uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after,
    uint32_t y_pad_after, uint32_t dst_sram_index, uint32_t dst_memory_type);

/* VTAStoreBuffer2D: one STORE of OUT rows to DRAM (pads 0). */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_store_buffer_2d(
    struct q8nn_vta_cmd* cmd, uint32_t src_sram_index, uint32_t src_memory_type, uint32_t dst_addr,
    uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride);

/* VTADepPush / VTADepPop with the pending-pop and NOP rules of spec §7.4. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dep_push(struct q8nn_vta_cmd* cmd, uint32_t from, uint32_t to);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_dep_pop(struct q8nn_vta_cmd* cmd, uint32_t from, uint32_t to);

/* Records the micro-ops of one kernel by calling q8nn_vta_uop_loop_begin / _push / _loop_end. */
typedef enum q8nn_status (*q8nn_vta_kernel_fn)(struct q8nn_vta_cmd* cmd, void* context);

/* VTAPushGEMMOp / VTAPushALUOp: the kernel cached under `key` (recorded by calling record(cmd,
   context) on first use) is loaded into the micro-op SRAM if not resident there, then one GEMM /
   ALU instruction runs it. Keys are the caller's: equal keys must mean equal kernels. The cache
   lives as long as the command buffer; residency is forgotten at every finalize. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_push_gemm_op(struct q8nn_vta_cmd* cmd, uint64_t key,
                                                     q8nn_vta_kernel_fn record, void* context);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_push_alu_op(struct q8nn_vta_cmd* cmd, uint64_t key,
                                                    q8nn_vta_kernel_fn record, void* context);

/* Recording calls, valid only inside a kernel_fn. Loops (at most 2) come before the first
   micro-op. mode 0 = GEMM, 1 = ALU; mode, reset and (ALU) opcode / use_imm / imm must be the same
   for every micro-op of a kernel; a dst_index equal to one of the two previous micro-ops' is
   rejected (the hardware pipeline ignores that hazard). */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_uop_loop_begin(struct q8nn_vta_cmd* cmd, uint32_t extent,
                                                       uint32_t dst_factor, uint32_t src_factor,
                                                       uint32_t wgt_factor);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_uop_loop_end(struct q8nn_vta_cmd* cmd);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_uop_push(struct q8nn_vta_cmd* cmd, uint32_t mode, uint32_t reset,
                                                 uint32_t dst_index, uint32_t src_index, uint32_t wgt_index,
                                                 uint32_t alu_opcode, uint32_t use_imm, int32_t imm);

/* The VTASynchronize epilogue (DepPush 3->2, 1->2, DepPop 3->2, 1->2, compute NOP, FINISH), then
   the micro-ops are written to a new DRAM region and the instructions encoded into *program.
   The command buffer is emptied (also on error); cached kernels stay recorded but not resident. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_cmd_finalize(struct q8nn_vta_cmd* cmd, struct q8nn_vta_program* program);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_program_run(struct q8nn_vta_device* device,
                                                    const struct q8nn_vta_program* program,
                                                    struct q8nn_vta_run_info* info);
/* Frees the instructions and the micro-op region. */
Q8NN_INTERNAL void q8nn_vta_program_release(struct q8nn_vta_device* device, struct q8nn_vta_program* program);
/* finalize + run + release. info may be NULL. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_synchronize(struct q8nn_vta_cmd* cmd, struct q8nn_vta_run_info* info);

#endif
