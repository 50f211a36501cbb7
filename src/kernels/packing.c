/* Weight packing: OHWI (or 1HWO for depthwise) into the blocked layouts of ukernel.h. Runs once per
   operator at create time; the layouts put bias, multiplier and shift next to the weights so a
   kernel's epilogue streams them with its tile. */
#include <string.h>

#include "ukernel.h"

void q8nn_pack_qs8_gemm_goki_w(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  const size_t kc_padded = q8nn_round_up(kc, kr);
  int8_t* out = (int8_t*) packed;
  for (size_t g = 0; g < groups; g++) {
    for (size_t n0 = 0; n0 < nc; n0 += nr) {
      int32_t* packed_bias = (int32_t*) out;
      int8_t* packed_w = out + Q8NN_PACKED_HEADER_BYTES(nr);
      for (size_t n = 0; n < nr; n++) {
        const size_t oc = g * nc + n0 + n;
        int32_t b = 0, m = 0, s = 0;
        if (n0 + n < nc) {
          /* sum of weights over all taps and channels; |sum| < 2^7 * ks * kc fits easily */
          int64_t wsum = 0;
          const int8_t* k = kernel + oc * ks * kc;
          for (size_t i = 0; i < ks * kc; i++) wsum += k[i];
          const uint32_t folded = (uint32_t) (bias != NULL ? bias[oc] : 0) -
                                  (uint32_t) input_fold * (uint32_t) (int32_t) wsum;
          b = (int32_t) folded;
          m = multiplier[oc];
          s = shift[oc];
        }
        /* memcpy: the packed buffer is only byte-aligned in general */
        memcpy(packed_bias + n, &b, sizeof(b));
        memcpy(packed_bias + nr + n, &m, sizeof(m));
        memcpy(packed_bias + 2 * nr + n, &s, sizeof(s));
      }
      for (size_t t = 0; t < ks; t++) {
        for (size_t k0 = 0; k0 < kc_padded; k0 += kr) {
          for (size_t n = 0; n < nr; n++) {
            for (size_t k = k0; k < k0 + kr; k++) {
              int8_t v = 0;
              if (n0 + n < nc && k < kc) v = kernel[((g * nc + n0 + n) * ks + t) * kc + k];
              *packed_w++ = v;
            }
          }
        }
      }
      out = packed_w;
    }
  }
}

size_t q8nn_packed_dwconv_size(size_t channels, size_t taps, size_t ct) {
  return q8nn_divide_round_up(channels, ct) * (Q8NN_PACKED_HEADER_BYTES(ct) + taps * ct);
}

void q8nn_pack_qs8_dwconv_w(
    size_t channels, size_t taps, size_t ct,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  int8_t* out = (int8_t*) packed;
  for (size_t c0 = 0; c0 < channels; c0 += ct) {
    int32_t* header = (int32_t*) out;
    int8_t* w = out + Q8NN_PACKED_HEADER_BYTES(ct);
    for (size_t j = 0; j < ct; j++) {
      const size_t c = c0 + j;
      /* Lanes past the last channel: bias 0, zero weights, and the last channel's multiplier and
         shift. Their outputs are never stored; repeating a real channel's requantization keeps the
         block's flags those of its real channels (a padded shift of 0 would make every block with
         a tail take the slower general epilogue, see q8nn_x86_requantize_rdouble_with). */
      const size_t cq = c < channels ? c : channels - 1;
      int32_t b = 0;
      const int32_t m = multiplier[cq], s = shift[cq];
      if (c < channels) {
        int32_t wsum = 0;
        for (size_t t = 0; t < taps; t++) wsum += kernel[t * channels + c];
        b = (int32_t) ((uint32_t) (bias != NULL ? bias[c] : 0) - (uint32_t) input_fold * (uint32_t) wsum);
      }
      memcpy(header + j, &b, sizeof(b));
      memcpy(header + ct + j, &m, sizeof(m));
      memcpy(header + 2 * ct + j, &s, sizeof(s));
    }
    for (size_t t = 0; t < taps; t++) {
      for (size_t j = 0; j < ct; j++) {
        *w++ = c0 + j < channels ? kernel[t * channels + c0 + j] : 0;
      }
    }
    out = w;
  }
}
