/* Portable int8 operators of the model layer; see model-ops.h. Each follows TFLite's reference
   kernel step by step; int32 arithmetic that TFLite's compiled code would wrap is done in uint32. */
#include "model-ops.h"

#include <math.h>
#include <string.h>

/* ---- fixed point (gemmlowp) ---------------------------------------------------------------- */

static int32_t srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t) a * (int64_t) b;
  const int64_t nudge = ab >= 0 ? (INT64_C(1) << 30) : 1 - (INT64_C(1) << 30);
  return (int32_t) ((ab + nudge) / (INT64_C(1) << 31));
}

static int32_t rdbpot(int32_t x, int exponent) {
  const int32_t mask = (int32_t) ((UINT32_C(1) << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

static int32_t wrap_add(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a + (uint32_t) b); }
static int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a - (uint32_t) b); }

int32_t q8nn_model_mbqm(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return rdbpot(srdhm((int32_t) ((uint32_t) x << left), multiplier), right);
}

int q8nn_model_quantize_multiplier(double real, int32_t* multiplier, int* shift) {
  if (real == 0.0) {
    *multiplier = 0;
    *shift = 0;
    return 1;
  }
  int exponent;
  const double q = frexp(real, &exponent);
  int64_t q_fixed = (int64_t) round(q * (double) (INT64_C(1) << 31));
  if (q_fixed == (INT64_C(1) << 31)) {
    q_fixed /= 2;
    exponent++;
  }
  if (exponent < -31) {
    exponent = 0;
    q_fixed = 0;
  }
  *multiplier = (int32_t) q_fixed;
  *shift = exponent;
  return exponent <= 30;
}

/* ---- MUL / SUB ------------------------------------------------------------------------------- */

int q8nn_model_binary_broadcast(size_t a_rank, const size_t* a_shape, size_t b_rank, const size_t* b_shape,
                                size_t out_rank, const size_t* out_shape, struct q8nn_model_binary_params* p) {
  const size_t R = Q8NN_MODEL_OPS_MAX_DIMS;
  if (a_rank > R || b_rank > R || out_rank > R) return 0;
  size_t a[Q8NN_MODEL_OPS_MAX_DIMS], b[Q8NN_MODEL_OPS_MAX_DIMS];
  for (size_t i = 0; i < R; i++) {
    a[i] = i + a_rank >= R ? a_shape[i + a_rank - R] : 1;
    b[i] = i + b_rank >= R ? b_shape[i + b_rank - R] : 1;
    p->out_shape[i] = i + out_rank >= R ? out_shape[i + out_rank - R] : 1;
    const size_t expected = a[i] == 1 ? b[i] : a[i];
    if ((a[i] != 1 && b[i] != 1 && a[i] != b[i]) || expected != p->out_shape[i]) return 0;
  }
  size_t sa = 1, sb = 1;
  for (size_t i = R; i-- > 0;) {
    p->a_stride[i] = a[i] == 1 ? 0 : sa;
    p->b_stride[i] = b[i] == 1 ? 0 : sb;
    sa *= a[i];
    sb *= b[i];
  }
  return 1;
}

/* Visits every output element in row-major order with its a and b indices. */
#define FOR_EACH_BROADCAST(p, ...)                                                                       \
  do {                                                                                                   \
    size_t o_ = 0;                                                                                       \
    for (size_t i0 = 0; i0 < (p)->out_shape[0]; i0++)                                                    \
      for (size_t i1 = 0; i1 < (p)->out_shape[1]; i1++)                                                  \
        for (size_t i2 = 0; i2 < (p)->out_shape[2]; i2++)                                                \
          for (size_t i3 = 0; i3 < (p)->out_shape[3]; i3++)                                              \
            for (size_t i4 = 0; i4 < (p)->out_shape[4]; i4++)                                            \
              for (size_t i5 = 0; i5 < (p)->out_shape[5]; i5++, o_++) {                                  \
                const size_t ia_ = i0 * (p)->a_stride[0] + i1 * (p)->a_stride[1] + i2 * (p)->a_stride[2] + \
                                   i3 * (p)->a_stride[3] + i4 * (p)->a_stride[4] + i5 * (p)->a_stride[5]; \
                const size_t ib_ = i0 * (p)->b_stride[0] + i1 * (p)->b_stride[1] + i2 * (p)->b_stride[2] + \
                                   i3 * (p)->b_stride[3] + i4 * (p)->b_stride[4] + i5 * (p)->b_stride[5]; \
                __VA_ARGS__                                                                              \
              }                                                                                          \
  } while (0)

static int8_t clamp_s8(int32_t v, int32_t lo, int32_t hi) { return (int8_t) (v < lo ? lo : v > hi ? hi : v); }

static int8_t mul_element(const struct q8nn_model_binary_params* p, int8_t a, int8_t b) {
  const int32_t va = p->a_offset + a, vb = p->b_offset + b;
  const int32_t r = wrap_add(p->output_offset, q8nn_model_mbqm(va * vb, p->output_multiplier, p->output_shift));
  return clamp_s8(r, p->output_min, p->output_max);
}

static int8_t sub_element(const struct q8nn_model_binary_params* p, int8_t a, int8_t b) {
  const int32_t va = (p->a_offset + a) * (1 << p->left_shift);
  const int32_t vb = (p->b_offset + b) * (1 << p->left_shift);
  const int32_t sa = q8nn_model_mbqm(va, p->a_multiplier, p->a_shift);
  const int32_t sb = q8nn_model_mbqm(vb, p->b_multiplier, p->b_shift);
  const int32_t r = wrap_add(q8nn_model_mbqm(wrap_sub(sa, sb), p->output_multiplier, p->output_shift), p->output_offset);
  return clamp_s8(r, p->output_min, p->output_max);
}

void q8nn_model_mul_s8(const struct q8nn_model_binary_params* p, const int8_t* a, const int8_t* b, int8_t* out) {
  FOR_EACH_BROADCAST(p, { out[o_] = mul_element(p, a[ia_], b[ib_]); });
}

void q8nn_model_sub_s8(const struct q8nn_model_binary_params* p, const int8_t* a, const int8_t* b, int8_t* out) {
  FOR_EACH_BROADCAST(p, { out[o_] = sub_element(p, a[ia_], b[ib_]); });
}

void q8nn_model_binary_table(const struct q8nn_model_binary_params* p, int mul, const int8_t* b, size_t nb,
                             int8_t* table) {
  for (size_t j = 0; j < nb; j++) {
    for (int v = -128; v <= 127; v++) {
      table[j * 256 + (uint8_t) v] = mul ? mul_element(p, (int8_t) v, b[j]) : sub_element(p, (int8_t) v, b[j]);
    }
  }
}

/* nb a compile-time constant (1 to 4: a scalar, or per channel of images of up to 4 channels): in
   unrolled blocks of 16 nb elements each element's table is a constant offset, where the general
   loop spent a loop test and an index computation per element (the 160x160x3 preprocessing SUB of
   cfu_mnv2 ran at about one element per cycle). */
static inline __attribute__((always_inline)) void table_fixed(size_t n, const size_t nb, const int8_t* table,
                                                              const int8_t* a, int8_t* out) {
  size_t i = 0;
  for (; i + 16 * nb <= n; i += 16 * nb) {
#pragma GCC unroll 64
    for (size_t k = 0; k < 16 * nb; k++) out[i + k] = table[(k % nb) * 256 + (uint8_t) a[i + k]];
  }
  for (size_t k = 0; i + k < n; k++) out[i + k] = table[(k % nb) * 256 + (uint8_t) a[i + k]];
}

/*
 * AVX-512 VBMI: a 256-entry byte table is four zmm, T0..T3; VPERMI2B looks up bits 0-6 of each byte
 * in (T0 | T1) and in (T2 | T3), and the byte's top bit picks one of the two (a mask blend): 4
 * instructions per 64 bytes where the scalar loop does about one byte a cycle. With nb tables
 * (per-channel constants, channels innermost), lane k of the vector at byte i uses table
 * (i + k) mod nb: each table is looked up and the results merged under that lane pattern, which
 * repeats every nb vectors (64 mod nb is the phase step). 76800 bytes (cfu_mnv2's 160x160x3
 * preprocessing SUB, three tables) 14.1 -> 8.5 us, with one table 13.5 -> 3.4 us (a
 * scratch timing loop; VPERMI2B takes two cycles here).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "q8nn.h"

#define Q8NN_MODEL_TABLE_VBMI_MAX 4

int q8nn_model_has_vbmi(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi");
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void table_vbmi(size_t n, size_t nb,
                                                                             const int8_t* table,
                                                                             const int8_t* a, int8_t* out) {
  __m512i t[Q8NN_MODEL_TABLE_VBMI_MAX][4];
  for (size_t j = 0; j < nb; j++) {
    for (size_t q = 0; q < 4; q++) t[j][q] = _mm512_loadu_si512(table + j * 256 + q * 64);
  }
  /* lanes[p][j]: the lanes of table j in a vector that starts at phase p (its first byte's table) */
  __mmask64 lanes[Q8NN_MODEL_TABLE_VBMI_MAX][Q8NN_MODEL_TABLE_VBMI_MAX];
  for (size_t p = 0; p < nb; p++) {
    for (size_t j = 0; j < nb; j++) {
      uint64_t m = 0;
      for (size_t k = 0; k < 64; k++) m |= (uint64_t) ((p + k) % nb == j) << k;
      lanes[p][j] = (__mmask64) m;
    }
  }
  const size_t step = 64 % nb;
  size_t phase = 0;
  for (size_t i = 0; i < n; i += 64) {
    const __mmask64 valid = n - i >= 64 ? ~(__mmask64) 0 : (((__mmask64) 1 << (n - i)) - 1);
    const __m512i v = _mm512_maskz_loadu_epi8(valid, a + i);
    const __mmask64 high = _mm512_movepi8_mask(v);
    __m512i r = _mm512_setzero_si512();
    for (size_t j = 0; j < nb; j++) {
      const __m512i lo = _mm512_permutex2var_epi8(t[j][0], v, t[j][1]);
      const __m512i hi = _mm512_permutex2var_epi8(t[j][2], v, t[j][3]);
      r = _mm512_mask_mov_epi8(r, lanes[phase][j], _mm512_mask_blend_epi8(high, lo, hi));
    }
    _mm512_mask_storeu_epi8(out + i, valid, r);
    phase += step; /* (phase + 64) mod nb without a division on the loop's path */
    if (phase >= nb) phase -= nb;
  }
}
#else
int q8nn_model_has_vbmi(void) { return 0; }
#endif

void q8nn_model_table_s8_with(int vbmi, size_t n, size_t nb, const int8_t* table, const int8_t* a, int8_t* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (vbmi && nb <= Q8NN_MODEL_TABLE_VBMI_MAX) {
    table_vbmi(n, nb, table, a, out);
    return;
  }
#else
  (void) vbmi;
#endif
  switch (nb) {
    case 1: table_fixed(n, 1, table, a, out); return;
    case 2: table_fixed(n, 2, table, a, out); return;
    case 3: table_fixed(n, 3, table, a, out); return;
    case 4: table_fixed(n, 4, table, a, out); return;
    default: break;
  }
  for (size_t i = 0; i < n; i += nb) {
    for (size_t j = 0; j < nb; j++) out[i + j] = table[j * 256 + (uint8_t) a[i + j]];
  }
}

void q8nn_model_table_s8(size_t n, size_t nb, const int8_t* table, const int8_t* a, int8_t* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  const int vbmi = (q8nn_get_active_isa() & Q8NN_ISA_X86_AVX512VNNI) != 0 && q8nn_model_has_vbmi();
  q8nn_model_table_s8_with(vbmi, n, nb, table, a, out);
#else
  q8nn_model_table_s8_with(0, n, nb, table, a, out);
#endif
}

/* ---- PAD ------------------------------------------------------------------------------------- */

void q8nn_model_pad_s8(size_t rank, const size_t* in_shape, const size_t* before, const size_t* out_shape,
                       int8_t value, const int8_t* input, int8_t* output) {
  size_t out_count = 1;
  for (size_t i = 0; i < rank; i++) out_count *= out_shape[i];
  memset(output, value, out_count);
  if (rank == 0) {
    output[0] = input[0];
    return;
  }
  /* copy the input's innermost rows into place */
  size_t in_rows = 1;
  for (size_t i = 0; i + 1 < rank; i++) in_rows *= in_shape[i];
  const size_t row = in_shape[rank - 1];
  for (size_t r = 0; r < in_rows; r++) {
    size_t rem = r, out_index = 0, mul = out_shape[rank - 1];
    size_t off = before[rank - 1];
    for (size_t i = rank - 1; i-- > 0;) {
      const size_t coord = rem % in_shape[i] + before[i];
      rem /= in_shape[i];
      off += coord * mul;
      mul *= out_shape[i];
    }
    out_index = off;
    memcpy(output + out_index, input + r * row, row);
  }
}

/* ---- MEAN ------------------------------------------------------------------------------------ */

/* Resolves the raw axis values as TFLite's ResolveAxis does (negative + rank, duplicates once). */
static int mean_reduced_mask(size_t rank, const int32_t* axes, size_t num_axes, int* reduced) {
  for (size_t i = 0; i < rank; i++) reduced[i] = 0;
  if (num_axes > 4) return 0;
  for (size_t k = 0; k < num_axes; k++) {
    const int64_t a = axes[k] < 0 ? (int64_t) axes[k] + (int64_t) rank : (int64_t) axes[k];
    if (a < 0 || a >= (int64_t) rank) return 0;
    reduced[a] = 1;
  }
  return 1;
}

size_t q8nn_model_mean_output_shape(size_t rank, const size_t* shape, const int32_t* axes, size_t num_axes,
                                    int keep_dims, size_t* out_shape) {
  int reduced[Q8NN_MODEL_OPS_MAX_DIMS];
  if (rank > Q8NN_MODEL_OPS_MAX_DIMS || !mean_reduced_mask(rank, axes, num_axes, reduced)) return SIZE_MAX;
  size_t n = 0;
  for (size_t i = 0; i < rank; i++) {
    if (!reduced[i]) out_shape[n++] = shape[i];
    else if (keep_dims) out_shape[n++] = 1;
  }
  return n;
}

int q8nn_model_mean_prepare(size_t rank, const size_t* shape, const int32_t* axes, size_t num_axes, int keep_dims,
                            float input_scale, int32_t input_zero_point, float output_scale,
                            int32_t output_zero_point, struct q8nn_model_mean_params* p) {
  int reduced[Q8NN_MODEL_OPS_MAX_DIMS];
  memset(p, 0, sizeof(*p));
  if (rank > Q8NN_MODEL_OPS_MAX_DIMS || !mean_reduced_mask(rank, axes, num_axes, reduced)) return 0;
  size_t stride = 1, strides[Q8NN_MODEL_OPS_MAX_DIMS];
  for (size_t i = rank; i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  p->num_elements = 1;
  for (size_t i = 0; i < rank; i++) {
    if (reduced[i]) {
      p->reduced_size[p->num_reduced] = shape[i];
      p->reduced_stride[p->num_reduced++] = strides[i];
      if (shape[i] > Q8NN_MODEL_MEAN_MAX_ELEMENTS / p->num_elements) return 0;
      p->num_elements *= shape[i];
    } else {
      p->kept_size[p->num_kept] = shape[i];
      p->kept_stride[p->num_kept++] = strides[i];
    }
  }
  p->input_zero_point = input_zero_point;
  p->output_zero_point = output_zero_point;
  /* TFLite compares the raw axis values, so {-3, -2} takes a general path even on 4D */
  const int hw = keep_dims && rank == 4 && num_axes == 2 &&
                 ((axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1));
  if (hw) {
    p->path = Q8NN_MODEL_MEAN_HW;
    return q8nn_model_quantize_multiplier((double) input_scale / (double) output_scale, &p->multiplier, &p->shift);
  }
  if (input_scale == output_scale && input_zero_point == output_zero_point) {
    p->path = Q8NN_MODEL_MEAN_SAME;
  } else {
    p->path = Q8NN_MODEL_MEAN_FLOAT;
    p->scale = input_scale / output_scale;
  }
  return 1;
}

/* Visits a row-major index space of up to 6 dimensions, with the input offset of each point. */
static size_t odometer_next(size_t n, const size_t* size, const size_t* stride, size_t* index, size_t offset,
                            int* done) {
  for (size_t d = n; d-- > 0;) {
    if (++index[d] < size[d]) return offset + stride[d];
    offset -= (size[d] - 1) * stride[d];
    index[d] = 0;
  }
  *done = 1;
  return offset;
}

void q8nn_model_mean_s8(const struct q8nn_model_mean_params* p, const int8_t* input, int8_t* output) {
  size_t kept[Q8NN_MODEL_OPS_MAX_DIMS] = {0}, o = 0, base = 0;
  const int32_t n = (int32_t) p->num_elements;
  for (int kept_done = 0; !kept_done; o++) {
    size_t red[Q8NN_MODEL_OPS_MAX_DIMS] = {0}, off = base;
    int32_t sum = 0; /* |sum| <= 255 * 2^23 < 2^31 (Q8NN_MODEL_MEAN_MAX_ELEMENTS) */
    const int32_t zp = p->path == Q8NN_MODEL_MEAN_HW ? p->input_zero_point : 0;
    for (int done = 0; !done;) {
      sum += input[off] - zp;
      off = odometer_next(p->num_reduced, p->reduced_size, p->reduced_stride, red, off, &done);
    }
    int32_t v;
    if (p->path == Q8NN_MODEL_MEAN_HW) {
      v = q8nn_model_mbqm(sum, p->multiplier, p->shift);
      v = v > 0 ? (v + n / 2) / n : (v - n / 2) / n;
      v = wrap_add(v, p->output_zero_point);
      v = v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v;
    } else if (p->path == Q8NN_MODEL_MEAN_SAME) {
      v = sum / n; /* the mean of int8 values, truncated: always in range */
    } else {
      /* float, operation by operation as TFLite writes it (built with -ffp-contract=off) */
      const float bias = (float) -p->input_zero_point * p->scale + 0.5f;
      const float mean = (float) sum / (float) n;
      float r = roundf(mean * p->scale + bias) + (float) p->output_zero_point;
      r = r < 127.0f ? r : 127.0f;
      r = r > -128.0f ? r : -128.0f;
      v = (int32_t) r;
    }
    output[o] = (int8_t) v;
    base = odometer_next(p->num_kept, p->kept_size, p->kept_stride, kept, base, &kept_done);
  }
}

/* ---- QUANTIZE / DEQUANTIZE ------------------------------------------------------------------- */

void q8nn_model_quantize_f32_s8(size_t n, float scale, int32_t zero_point, const float* input, int8_t* output) {
  for (size_t i = 0; i < n; i++) {
    const float q = roundf(input[i] / scale);
    double v = (double) q + (double) zero_point;
    v = v < -128.0 ? -128.0 : v > 127.0 ? 127.0 : v;
    if (isnan(v)) v = zero_point < -128 ? -128.0 : zero_point > 127 ? 127.0 : (double) zero_point;
    output[i] = (int8_t) v;
  }
}

void q8nn_model_requantize_8(size_t n, int input_unsigned, int32_t input_zero_point, int output_unsigned,
                             int32_t output_zero_point, int32_t multiplier, int shift, const void* input,
                             void* output) {
  const int32_t lo = output_unsigned ? 0 : INT8_MIN, hi = output_unsigned ? UINT8_MAX : INT8_MAX;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = input_unsigned ? (int32_t) ((const uint8_t*) input)[i] : (int32_t) ((const int8_t*) input)[i];
    int32_t v = wrap_add(q8nn_model_mbqm(x - input_zero_point, multiplier, shift), output_zero_point);
    v = v < lo ? lo : v > hi ? hi : v;
    if (output_unsigned) ((uint8_t*) output)[i] = (uint8_t) v;
    else ((int8_t*) output)[i] = (int8_t) v;
  }
}

void q8nn_model_dequantize_8_f32(size_t n, int input_unsigned, float scale, int32_t zero_point, const void* input,
                                 float* output) {
  for (size_t i = 0; i < n; i++) {
    const int32_t x = input_unsigned ? (int32_t) ((const uint8_t*) input)[i] : (int32_t) ((const int8_t*) input)[i];
    output[i] = (float) ((double) scale * (double) (x - zero_point));
  }
}
