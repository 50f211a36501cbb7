#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "accel/vta/vta-config.h"

enum q8nn_status q8nn_vta_format_error(enum q8nn_status status, char* error, size_t error_size,
                                       const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  if (error != NULL && error_size != 0) {
    snprintf(error, error_size, "%s", message);
  }
  return q8nn_log_error(status, "vta", "%s", message);
}

void q8nn_vta_config_default(struct q8nn_vta_hw_config* config) {
  memset(config, 0, sizeof(*config));
  config->log_inp_width = 3;
  config->log_wgt_width = 3;
  config->log_acc_width = 5;
  config->log_batch = 0;
  config->log_block = 4;
  config->log_uop_buff_size = 15;
  config->log_inp_buff_size = 15;
  config->log_wgt_buff_size = 18;
  config->log_acc_buff_size = 17;
  config->virtual_threads = 2;
  /* A 64-bit AXI port (LOG_BUS_WIDTH 6 in the sim/pynq configs) moving one beat per cycle, and
     a DRAM round trip of a few tens of accelerator cycles at 100-333 MHz. */
  config->dram_bytes_per_cycle = 8;
  config->dram_latency_cycles = 32;
  config->insn_overhead_cycles = 1;
  q8nn_vta_config_derive(config, NULL, 0);
}

/* Spec §3.8: fields in order from bit 0; a field never straddles a unit boundary. Returns the end
   bit, or 0 when a field would need a unit past `total_bits`. */
static uint32_t place_fields(struct q8nn_vta_layout* layout, const uint8_t* widths, uint32_t count,
                             uint32_t unit_bits, uint32_t total_bits) {
  uint32_t offset = 0;
  layout->count = count;
  for (uint32_t i = 0; i < count; i++) {
    const uint32_t w = widths[i];
    if (w > unit_bits) return 0;
    if (offset % unit_bits + w > unit_bits) offset = (offset / unit_bits + 1) * unit_bits;
    if (offset + w > total_bits) return 0;
    layout->pos[i] = (uint8_t) offset;
    layout->width[i] = (uint8_t) w;
    offset += w;
  }
  return offset;
}

enum q8nn_status q8nn_vta_config_derive(struct q8nn_vta_hw_config* c, char* error, size_t error_size) {
  /* The model's lanes are int8 inputs/weights/outputs and int32 accumulators (spec §1.3 item 5:
     ACC_8BIT needs exactly these widths, and they are the only ones any target ships). */
  if (c->log_inp_width != 3 || c->log_wgt_width != 3 || c->log_acc_width != 5) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: element widths i%u w%u a%u not supported (only i8 w8 a32)",
        1u << (c->log_inp_width & 31), 1u << (c->log_wgt_width & 31), 1u << (c->log_acc_width & 31));
  }
  if (c->log_batch > 4 || c->log_block < 1 || c->log_block > 6) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: LOG_BATCH %u / LOG_BLOCK %u outside [0,4] / [1,6]", c->log_batch, c->log_block);
  }
  if (c->virtual_threads == 0) c->virtual_threads = 2;
  if (c->virtual_threads > 2) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: virtual_threads %u (1 or 2)", c->virtual_threads);
  }
  if (c->dram_bytes_per_cycle == 0) {
    return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size,
        "config: dram_bytes_per_cycle must be >= 1");
  }
  /* The buffer sizes come from files and the public struct as any uint32: 2^31 and up would
     overflow the signed depth arithmetic below, and nothing beyond 2^32 bytes can be valid. */
  if (c->log_uop_buff_size > 32 || c->log_inp_buff_size > 32 || c->log_wgt_buff_size > 32 ||
      c->log_acc_buff_size > 32) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: log2 buffer sizes %u uop, %u inp, %u wgt, %u acc beyond 32", c->log_uop_buff_size,
        c->log_inp_buff_size, c->log_wgt_buff_size, c->log_acc_buff_size);
  }
  c->batch = 1u << c->log_batch;
  c->block_in = c->block_out = 1u << c->log_block;
  /* Element sizes in bits as log2; a buffer must hold at least one element. */
  const int32_t log_inp_elem_bits = (int32_t) (c->log_batch + c->log_block + c->log_inp_width);
  const int32_t log_wgt_elem_bits = (int32_t) (2 * c->log_block + c->log_wgt_width);
  const int32_t log_acc_elem_bits = (int32_t) (c->log_batch + c->log_block + c->log_acc_width);
  const int32_t log_uop = (int32_t) c->log_uop_buff_size - 5 + 3;
  const int32_t log_inp = (int32_t) c->log_inp_buff_size - log_inp_elem_bits + 3;
  const int32_t log_wgt = (int32_t) c->log_wgt_buff_size - log_wgt_elem_bits + 3;
  const int32_t log_acc = (int32_t) c->log_acc_buff_size - log_acc_elem_bits + 3;
  /* Spec §1.3 item 4: SRAM indices travel in 16-bit fields. */
  if (log_uop < 0 || log_inp < 0 || log_wgt < 0 || log_acc < 0 || log_uop > 16 || log_inp > 16 ||
      log_wgt > 16 || log_acc > 16) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: buffer depths 2^%d uop, 2^%d inp, 2^%d wgt, 2^%d acc must lie in [1, 65536]",
        log_uop, log_inp, log_wgt, log_acc);
  }
  /* Spec §1.3 item 3: the HLS decoder reads the weight index right after an INP-depth-wide
     source field, the C layout after a max(ACC, INP)-wide one; they agree only if INP >= ACC. */
  if (log_inp < log_acc) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: LOG_INP_BUFF_DEPTH %d < LOG_ACC_BUFF_DEPTH %d (micro-op decode would differ on HLS)",
        log_inp, log_acc);
  }
  c->log_uop_depth = (uint32_t) log_uop;
  c->log_inp_depth = (uint32_t) log_inp;
  c->log_wgt_depth = (uint32_t) log_wgt;
  c->log_acc_depth = (uint32_t) log_acc;
  c->uop_depth = 1u << log_uop;
  c->inp_depth = 1u << log_inp;
  c->wgt_depth = 1u << log_wgt;
  c->acc_depth = 1u << log_acc;
  c->inp_elem_bytes = (1u << log_inp_elem_bits) / 8;
  c->wgt_elem_bytes = (1u << log_wgt_elem_bits) / 8;
  c->acc_elem_bytes = (1u << log_acc_elem_bits) / 8;
  c->out_elem_bytes = c->batch * c->block_out * (1u << c->log_inp_width) / 8;
  c->acc_lanes = c->batch * c->block_out;

  const uint8_t mem_widths[q8nn_vta_mf_count] = {
      3, 1, 1, 1, 1, 3, Q8NN_VTA_SRAM_ADDR_WIDTH, Q8NN_VTA_DRAM_ADDR_WIDTH, Q8NN_VTA_MEMOP_SIZE_WIDTH,
      Q8NN_VTA_MEMOP_SIZE_WIDTH, Q8NN_VTA_MEMOP_SIZE_WIDTH, Q8NN_VTA_MEMOP_PAD_WIDTH,
      Q8NN_VTA_MEMOP_PAD_WIDTH, Q8NN_VTA_MEMOP_PAD_WIDTH, Q8NN_VTA_MEMOP_PAD_WIDTH};
  const uint8_t lu = (uint8_t) log_uop, la = (uint8_t) log_acc, li = (uint8_t) log_inp,
                lw = (uint8_t) log_wgt;
  const uint8_t gemm_widths[q8nn_vta_cf_gemm_count] = {
      3, 1, 1, 1, 1, 1, lu, (uint8_t) (lu + 1), Q8NN_VTA_LOOP_ITER_WIDTH, Q8NN_VTA_LOOP_ITER_WIDTH,
      la, la, li, li, lw, lw};
  const uint8_t alu_widths[q8nn_vta_cf_alu_count] = {
      3, 1, 1, 1, 1, 1, lu, (uint8_t) (lu + 1), Q8NN_VTA_LOOP_ITER_WIDTH, Q8NN_VTA_LOOP_ITER_WIDTH,
      la, la, la, la, 3, 1, Q8NN_VTA_ALU_IMM_WIDTH};
  const uint8_t uop_widths[q8nn_vta_uf_count] = {la, (uint8_t) (la > li ? la : li), lw};
  if (place_fields(&c->mem_layout, mem_widths, q8nn_vta_mf_count, 64, 128) == 0 ||
      place_fields(&c->gemm_layout, gemm_widths, q8nn_vta_cf_gemm_count, 64, 128) == 0 ||
      place_fields(&c->alu_layout, alu_widths, q8nn_vta_cf_alu_count, 64, 128) == 0) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: GEMM/ALU instruction fields (uop depth 2^%d, acc 2^%d, inp 2^%d, wgt 2^%d) do not fit "
        "in 128 bits", log_uop, log_acc, log_inp, log_wgt);
  }
  if (place_fields(&c->uop_layout, uop_widths, q8nn_vta_uf_count, 32, 32) == 0) {
    return q8nn_vta_format_error(q8nn_status_unsupported_parameter, error, error_size,
        "config: micro-op fields (acc 2^%d, inp 2^%d, wgt 2^%d) do not fit in 32 bits", log_acc,
        log_inp, log_wgt);
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_config_from_public(struct q8nn_vta_hw_config* config,
                                             const struct q8nn_vta_config* p, char* error,
                                             size_t error_size) {
  q8nn_vta_config_default(config);
  if (p != NULL) {
    config->log_batch = p->log_batch;
    if (p->log_block != 0) config->log_block = p->log_block;
    if (p->log_uop_buff_size != 0) config->log_uop_buff_size = p->log_uop_buff_size;
    if (p->log_inp_buff_size != 0) config->log_inp_buff_size = p->log_inp_buff_size;
    if (p->log_wgt_buff_size != 0) config->log_wgt_buff_size = p->log_wgt_buff_size;
    if (p->log_acc_buff_size != 0) config->log_acc_buff_size = p->log_acc_buff_size;
    config->virtual_threads = p->virtual_threads;
  }
  return q8nn_vta_config_derive(config, error, error_size);
}

void q8nn_vta_config_name(const struct q8nn_vta_hw_config* c, char* name, size_t size) {
  snprintf(name, size, "%ux%u_i%uw%ua%u_%u_%u_%u_%u", c->batch, c->block_out, 1u << c->log_inp_width,
           1u << c->log_wgt_width, 1u << c->log_acc_width, c->log_uop_buff_size, c->log_inp_buff_size,
           c->log_wgt_buff_size, c->log_acc_buff_size);
}

uint32_t q8nn_vta_dram_elem_bytes(const struct q8nn_vta_hw_config* c, uint32_t mem_id) {
  switch (mem_id) {
    case q8nn_vta_mem_uop: return 4;
    case q8nn_vta_mem_wgt: return c->wgt_elem_bytes;
    case q8nn_vta_mem_inp: return c->inp_elem_bytes;
    case q8nn_vta_mem_acc: return c->acc_elem_bytes;
    case q8nn_vta_mem_out: return c->out_elem_bytes;
    case q8nn_vta_mem_acc_8bit: return c->batch * c->block_out;
  }
  return 0;
}
