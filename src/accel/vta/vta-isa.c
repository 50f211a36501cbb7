#include <string.h>

#include "accel/vta/vta-isa.h"

static inline uint64_t field_mask(uint32_t width) {
  return width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
}

/* The layout guarantees no field straddles the two words, so each field lives in one word. */
static void pack(const struct q8nn_vta_layout* layout, const uint64_t* values, uint64_t words[2]) {
  words[0] = words[1] = 0;
  for (uint32_t i = 0; i < layout->count; i++) {
    const uint32_t pos = layout->pos[i];
    words[pos / 64] |= (values[i] & field_mask(layout->width[i])) << (pos % 64);
  }
}

static void unpack(const struct q8nn_vta_layout* layout, const uint64_t words[2], uint64_t* values) {
  for (uint32_t i = 0; i < layout->count; i++) {
    const uint32_t pos = layout->pos[i];
    values[i] = (words[pos / 64] >> (pos % 64)) & field_mask(layout->width[i]);
  }
}

static const char* const mem_field_names[q8nn_vta_mf_count] = {
    "opcode", "pop_prev", "pop_next", "push_prev", "push_next", "memory_type", "sram_base",
    "dram_base", "y_size", "x_size", "x_stride", "y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1"};
static const char* const compute_field_names[q8nn_vta_cf_alu_count] = {
    "opcode", "pop_prev", "pop_next", "push_prev", "push_next", "reset", "uop_bgn", "uop_end",
    "iter_out", "iter_in", "dst_factor_out", "dst_factor_in", "src_factor_out", "src_factor_in",
    "wgt_factor_out/alu_opcode", "wgt_factor_in/use_imm", "imm"};

static enum q8nn_status check_fit(const struct q8nn_vta_layout* layout, const uint64_t* values,
                                  const char* const* names, char* error, size_t error_size) {
  for (uint32_t i = 0; i < layout->count; i++) {
    if (values[i] > field_mask(layout->width[i])) {
      return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size,
          "encode: field %s = %llu does not fit in %u bits", names[i],
          (unsigned long long) values[i], layout->width[i]);
    }
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_encode_insn(const struct q8nn_vta_hw_config* config,
                                      const struct q8nn_vta_insn* in, uint64_t words[2], char* error,
                                      size_t error_size) {
  uint64_t v[Q8NN_VTA_MAX_FIELDS] = {0};
  v[0] = in->opcode;
  v[1] = in->pop_prev;
  v[2] = in->pop_next;
  v[3] = in->push_prev;
  v[4] = in->push_next;
  const struct q8nn_vta_layout* layout;
  const char* const* names = compute_field_names;
  switch (in->opcode) {
    case q8nn_vta_op_load:
    case q8nn_vta_op_store:
      layout = &config->mem_layout;
      names = mem_field_names;
      v[q8nn_vta_mf_memory_type] = in->memory_type;
      v[q8nn_vta_mf_sram_base] = in->sram_base;
      v[q8nn_vta_mf_dram_base] = in->dram_base;
      v[q8nn_vta_mf_y_size] = in->y_size;
      v[q8nn_vta_mf_x_size] = in->x_size;
      v[q8nn_vta_mf_x_stride] = in->x_stride;
      v[q8nn_vta_mf_y_pad_0] = in->y_pad_0;
      v[q8nn_vta_mf_y_pad_1] = in->y_pad_1;
      v[q8nn_vta_mf_x_pad_0] = in->x_pad_0;
      v[q8nn_vta_mf_x_pad_1] = in->x_pad_1;
      break;
    case q8nn_vta_op_finish:
      layout = &config->gemm_layout;
      break;
    case q8nn_vta_op_gemm:
    case q8nn_vta_op_alu:
      layout = in->opcode == q8nn_vta_op_gemm ? &config->gemm_layout : &config->alu_layout;
      v[q8nn_vta_cf_reset] = in->reset;
      v[q8nn_vta_cf_uop_bgn] = in->uop_bgn;
      v[q8nn_vta_cf_uop_end] = in->uop_end;
      v[q8nn_vta_cf_iter_out] = in->iter_out;
      v[q8nn_vta_cf_iter_in] = in->iter_in;
      v[q8nn_vta_cf_dst_factor_out] = in->dst_factor_out;
      v[q8nn_vta_cf_dst_factor_in] = in->dst_factor_in;
      v[q8nn_vta_cf_src_factor_out] = in->src_factor_out;
      v[q8nn_vta_cf_src_factor_in] = in->src_factor_in;
      if (in->opcode == q8nn_vta_op_gemm) {
        v[q8nn_vta_cf_wgt_factor_out] = in->wgt_factor_out;
        v[q8nn_vta_cf_wgt_factor_in] = in->wgt_factor_in;
      } else {
        if (in->imm < INT16_MIN || in->imm > INT16_MAX) {
          return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size,
                                       "encode: ALU immediate %d outside int16", in->imm);
        }
        v[q8nn_vta_cf_alu_opcode] = in->alu_opcode;
        v[q8nn_vta_cf_use_imm] = in->use_imm;
        v[q8nn_vta_cf_imm] = (uint16_t) (int16_t) in->imm;
      }
      break;
    default:
      return q8nn_vta_format_error(q8nn_status_invalid_parameter, error, error_size,
                                   "encode: opcode %u is not an instruction", in->opcode);
  }
  /* FINISH only has the header; the rest of the GEMM layout stays zero. */
  struct q8nn_vta_layout header = *layout;
  if (in->opcode == q8nn_vta_op_finish) header.count = 5;
  enum q8nn_status status = check_fit(&header, v, names, error, error_size);
  if (status != q8nn_status_success) return status;
  pack(&header, v, words);
  return q8nn_status_success;
}

void q8nn_vta_decode_insn(const struct q8nn_vta_hw_config* config, const uint64_t words[2],
                          struct q8nn_vta_insn* out) {
  uint64_t v[Q8NN_VTA_MAX_FIELDS];
  memset(out, 0, sizeof(*out));
  out->opcode = (uint32_t) (words[0] & 7);
  switch (out->opcode) {
    case q8nn_vta_op_load:
    case q8nn_vta_op_store:
      unpack(&config->mem_layout, words, v);
      out->memory_type = (uint32_t) v[q8nn_vta_mf_memory_type];
      out->sram_base = (uint32_t) v[q8nn_vta_mf_sram_base];
      out->dram_base = (uint32_t) v[q8nn_vta_mf_dram_base];
      out->y_size = (uint32_t) v[q8nn_vta_mf_y_size];
      out->x_size = (uint32_t) v[q8nn_vta_mf_x_size];
      out->x_stride = (uint32_t) v[q8nn_vta_mf_x_stride];
      out->y_pad_0 = (uint32_t) v[q8nn_vta_mf_y_pad_0];
      out->y_pad_1 = (uint32_t) v[q8nn_vta_mf_y_pad_1];
      out->x_pad_0 = (uint32_t) v[q8nn_vta_mf_x_pad_0];
      out->x_pad_1 = (uint32_t) v[q8nn_vta_mf_x_pad_1];
      break;
    case q8nn_vta_op_gemm:
    case q8nn_vta_op_alu:
      unpack(out->opcode == q8nn_vta_op_gemm ? &config->gemm_layout : &config->alu_layout, words, v);
      out->reset = (uint32_t) v[q8nn_vta_cf_reset];
      out->uop_bgn = (uint32_t) v[q8nn_vta_cf_uop_bgn];
      out->uop_end = (uint32_t) v[q8nn_vta_cf_uop_end];
      out->iter_out = (uint32_t) v[q8nn_vta_cf_iter_out];
      out->iter_in = (uint32_t) v[q8nn_vta_cf_iter_in];
      out->dst_factor_out = (uint32_t) v[q8nn_vta_cf_dst_factor_out];
      out->dst_factor_in = (uint32_t) v[q8nn_vta_cf_dst_factor_in];
      out->src_factor_out = (uint32_t) v[q8nn_vta_cf_src_factor_out];
      out->src_factor_in = (uint32_t) v[q8nn_vta_cf_src_factor_in];
      if (out->opcode == q8nn_vta_op_gemm) {
        out->wgt_factor_out = (uint32_t) v[q8nn_vta_cf_wgt_factor_out];
        out->wgt_factor_in = (uint32_t) v[q8nn_vta_cf_wgt_factor_in];
      } else {
        out->alu_opcode = (uint32_t) v[q8nn_vta_cf_alu_opcode];
        out->use_imm = (uint32_t) v[q8nn_vta_cf_use_imm];
        out->imm = (int16_t) (uint16_t) v[q8nn_vta_cf_imm];
      }
      break;
    default: /* FINISH and invalid opcodes: header only */
      unpack(&config->gemm_layout, words, v);
      break;
  }
  out->pop_prev = (uint32_t) v[1];
  out->pop_next = (uint32_t) v[2];
  out->push_prev = (uint32_t) v[3];
  out->push_next = (uint32_t) v[4];
}

enum q8nn_status q8nn_vta_encode_uop(const struct q8nn_vta_hw_config* config, const struct q8nn_vta_uop* uop,
                                     uint32_t* word) {
  const struct q8nn_vta_layout* layout = &config->uop_layout;
  const uint32_t values[3] = {uop->dst, uop->src, uop->wgt};
  uint32_t w = 0;
  for (uint32_t i = 0; i < 3; i++) {
    if ((uint64_t) values[i] > field_mask(layout->width[i])) {
      return q8nn_log_error(q8nn_status_invalid_parameter, "vta",
                            "encode: micro-op field %u = %u does not fit in %u bits", i, values[i],
                            layout->width[i]);
    }
    w |= values[i] << layout->pos[i];
  }
  *word = w;
  return q8nn_status_success;
}

void q8nn_vta_decode_uop(const struct q8nn_vta_hw_config* config, uint32_t word, struct q8nn_vta_uop* uop) {
  const struct q8nn_vta_layout* layout = &config->uop_layout;
  uop->dst = (uint32_t) ((word >> layout->pos[0]) & field_mask(layout->width[0]));
  uop->src = (uint32_t) ((word >> layout->pos[1]) & field_mask(layout->width[1]));
  uop->wgt = (uint32_t) ((word >> layout->pos[2]) & field_mask(layout->width[2]));
}

const char* q8nn_vta_insn_name(const struct q8nn_vta_insn* insn) {
  static const char* const load_names[8] = {"LOAD UOP", "LOAD WGT", "LOAD INP", "LOAD ACC",
                                            "LOAD OUT", "LOAD ACC_8BIT", "LOAD mem6", "LOAD mem7"};
  static const char* const alu_names[8] = {"ALU MIN", "ALU MAX", "ALU ADD", "ALU SHR",
                                           "ALU MUL", "ALU op5", "ALU op6", "ALU op7"};
  switch (insn->opcode) {
    case q8nn_vta_op_load:
      if (insn->x_size == 0) {
        return insn->memory_type == q8nn_vta_mem_inp || insn->memory_type == q8nn_vta_mem_wgt
                   ? "NOP(load)" : "NOP(compute)";
      }
      return load_names[insn->memory_type & 7];
    case q8nn_vta_op_store: return insn->x_size == 0 ? "NOP(store)" : "STORE";
    case q8nn_vta_op_gemm: return insn->reset ? "GEMM reset" : "GEMM";
    case q8nn_vta_op_finish: return "FINISH";
    case q8nn_vta_op_alu: return alu_names[insn->alu_opcode & 7];
  }
  return "invalid opcode";
}
