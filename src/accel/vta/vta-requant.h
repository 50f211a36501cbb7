/* Requantization on VTA with 16-bit multipliers (DESIGN §1.7, VTA-SPEC §8.2 idea), and the host
   oracles the VTA programs must match bit for bit. docs/vta-backend.md has the derivations.

   Convolution, per output channel (ALU ops in this order, all int32, arithmetic shifts):
     t = acc + c_bias          acc = GEMM sum of w*x over the zero-point-padded image,
                               c_bias = bias - zx*sum(w) + r1
     t = min(max(t, lo), hi)   lo = r1 - L, hi = r1 + L (|acc + bias'| >= L saturates anyway;
                               L = min(B, ceil(512 / real))), then narrowed to the accumulators
                               whose output is out_min / out_max when that is exact
     v = t >> s1
     p = v * m                 m: 15-bit multiplier
     q = (p + r2) >> s2        r2 = (s2 ? 2^(s2-1) : 0) + zp * 2^s2, s2 <= 21
     out = min(max(q, out_min), out_max)   (a no-op on VTA, skipped, unless final_clamp)
   with r1 = s1 ? 2^(s1-1) : 0.
   No int32 overflow: |acc| <= 128*sum|w| < 2^31 in the GEMM, |acc + bias'| <= B = 128*sum|w| +
   |bias'| < 2^31 - 2^16 (checked) and r1 <= 2^15 bound the ADD; after the clamp (L <= B)
   L < 2^(15+s1) gives -2^15 <= v <= 2^15; m < 2^15 gives |p| < 2^30;
   |r2| <= 2^20 + 2^28 (s2 <= 21) gives |p + r2| < 2^31.

   Add (TFLite int8 ArithmeticParams in, VTA constants out), per element:
     A = (a*ma + ca) >> sa     ca = -za*ma + 2^(sa-1) (0 when sa = 0)
     B = (b*mb + cb) >> sb
     S = min(max(A + B, -32767), 32767)
     q = (S*mo + ro) >> so
     out = min(max(q + zo, out_min), out_max)
   |a*ma + ca| < 2^22 + 2^22 + 2^29 < 2^30, so |A + B| < 2^31; |S*mo| < 2^30, ro <= 2^29. */
#ifndef Q8NN_VTA_REQUANT_H
#define Q8NN_VTA_REQUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

/* One output channel's constants; the VTA program loads them as 7 constant ACC rows. */
struct q8nn_vta_conv_requant {
  int32_t c_bias, lo, hi, s1, m, r2, s2;
  int32_t out_min, out_max;
  int32_t final_clamp; /* 1: [lo, hi] could not absorb the output clamp exactly */
};
#define Q8NN_VTA_CONV_REQUANT_ROWS 7

/* From TFLite's (multiplier in [2^30, 2^31) or 0, shift in [-31, 30]), the bias with the
   zero-point term folded in (bias - zx*sum w) and sum|w| of the channel. false when the channel
   cannot be requantized without overflow (bound >= 2^31 - 2^16, or the scale is too large for a 15-bit
   multiplier); the operator then stays on the CPU. */
Q8NN_INTERNAL bool q8nn_vta_conv_requant_derive(int32_t multiplier, int32_t shift, int64_t bias_prime,
                                                int64_t sum_abs_w, int32_t zero_point, int32_t out_min,
                                                int32_t out_max, struct q8nn_vta_conv_requant* out);

/* The oracle: what the VTA program computes from the GEMM accumulator. */
Q8NN_INTERNAL int8_t q8nn_vta_conv_requant_apply(const struct q8nn_vta_conv_requant* r, int32_t acc);

struct q8nn_vta_add_requant {
  int32_t ma, ca, sa, mb, cb, sb, lim, mo, ro, so, zo, out_min, out_max;
};

/* From TFLite's int8 add parameters (zero points, multipliers, shifts <= 0, left_shift):
   real_x = multiplier_x * 2^(shift_x - 31). false when a shift leaves [0, 30] (stays on CPU). */
Q8NN_INTERNAL bool q8nn_vta_add_requant_derive(int32_t a_zero_point, int32_t a_multiplier, int32_t a_shift,
                                               int32_t b_zero_point, int32_t b_multiplier, int32_t b_shift,
                                               int32_t output_multiplier, int32_t output_shift, int32_t left_shift,
                                               int32_t output_zero_point, int32_t output_min, int32_t output_max,
                                               struct q8nn_vta_add_requant* out);

Q8NN_INTERNAL int8_t q8nn_vta_add_requant_apply(const struct q8nn_vta_add_requant* r, int8_t a, int8_t b);

/* ---- Exact requantization, linear form (preferred) ------------------------------------------

   docs/vta-backend.md "Exact requantization, linear form" has the proof.

   TFLite's output is a monotone step function G of x = acc + bias' (its clamp aside). On the
   interval [lo, hi] of x that matters, each channel's G equals
     floor((t*M' + C + s(t)*dl*2^((n-1)w)) / 2^P'),  t = x - ctr,  s(t) = -[t < t0]
   for a multiplier M', a constant C and (double rounding, where Y changes sign inside [lo, hi])
   an integer dl: the derivation finds them from G's runs (each value's first and last x), which
   fix C to an interval for a given M'; any C in it is exact, by construction, on the whole of
   [lo, hi]. M' is evaluated in n limbs of w bits (signed low limbs m0..m(n-2), top limb
   m(n-1)) on the full t, |t| < 2^(31-w), so no limb product leaves 31 bits:
     X += c_bias; X = max(X, lo); X = min(X, hi)          X = t
     [D += X; D += neg_t0; D >>= 31; D *= dl]             D = -dl*[t < t0]      (sign)
     n = 1:  X *= m0; X += c0; [X += D]; X >>= q
     n >= 2: S0..S(n-2) += X; S0 *= m0; S0 += c0; S0 >>= w;
             Si *= mi; Si += S(i-1); Si >>= w  (0 < i < n-1);
             X *= m(n-1); X += S(n-2); [X += D]; X >>= q
     [X = max(X, out_min); X = min(X, out_max)]           (final_clamp)
   The nested floors telescope (floor((floor(z / 2^w) + k) / 2^q) = floor((z + k*2^w) / 2^(w+q)))
   into the form above with P' = (n-1)w + q and C = c0. Every intermediate before a shift is
   bounded below 2^31 at derivation; the top stage's MUL and ADDs wrap modulo 2^32 but its true
   value is in int32, so the wrapped value is the true one. n is the layer's: the smallest of
   1..4 for which every channel has an exact form. 10 ALU steps per pixel row for n = 2
   (14 for n = 3), + 5 with the sign step, + 2 with the final clamp. */
#define Q8NN_VTA_LINEAR_MAX_LIMBS 4
struct q8nn_vta_conv_linear {
  int32_t c_bias, lo, hi, neg_t0, dl, m0, c0, m1, m2, m3, q; /* the constant rows, in order */
  int32_t limbs, w;                                           /* the layer's program: n, w */
  int32_t sign, final_clamp, out_min, out_max;                /* the layer's optional steps */
};
#define Q8NN_VTA_LINEAR_ROWS 11

/* ---- Exact requantization, limb form (TFLite double or single rounding, byte for byte) -------

   docs/vta-backend.md "Exact requantization, limb form" has the derivation and the no-overflow proof. With
   t = clamp(acc + bias', lo, hi) * 2^ls, TFLite's result is floor((Y + h + s) / 2^rs) where
   Y = floor((t*M + c0) / 2^31) and, with signed 16-bit limbs t = th*2^16 + tl, M = Mh*2^16 + Ml,
     Y = 2*th*Mh + floor((th*Ml + tl*Mh + floor(tl*Ml / 2^16) + c0/2^16) / 2^15).
   ALU steps (X the accumulator, A..D scratch rows zeroed by the GEMM reset, all int32 wrapping):
     X += c_bias; X = max(X, lo); X = min(X, hi); X <<= ls
     A += X; A <<= 16; A >>= 16                      A = tl = sext16(t)
     X += 2^15; X >>= 16                             X = th = (t + 2^15) >> 16
     B += A; C += X
     B *= Ml; B >>= 16; A *= Mh; A += B; C *= Ml; A += C; A += cm; A >>= 15
     X *= 2*Mh; X += A                               X = Y
     [D += X; D >>= 31; D *= sg; X += D]             s = -[Y < 0] (double rounding, rs >= 1)
     X += hh; X >>= rs                               hh = h + zp * 2^rs
     [X = max(X, out_min); X = min(X, out_max)]      only when [lo, hi] cannot absorb the clamp */

struct q8nn_vta_conv_exact {
  int32_t c_bias, lo, hi, neg_ls, half, mh, ml, mh2, cm, sg, hh, rs; /* the constant rows, in order */
  int32_t out_min, out_max;
  int32_t final_clamp; /* 1: the output clamp runs as ALU MAX/MIN */
  int32_t sign;        /* 1: the sign correction of double rounding is needed (sg = 1) */
  int32_t t_max;       /* bound on |t| after the left shift (the proof needs < 2^30 - 2^16) */
  int32_t limb_ok;     /* 1: the limb form above was derived (else only the linear form can run) */
  int32_t no_low;      /* 1: the tl*Ml term is left out (the add's output stage, where that was
                          checked exact on all 65536 input pairs; never for convolutions) */
  int32_t linear;      /* 1: the channel runs the linear form lin (its layer's program) */
  struct q8nn_vta_conv_linear lin;
};
#define Q8NN_VTA_CONV_EXACT_ROWS 12

/* A channel's requantization parameters, as q8nn_vta_conv_exact_derive takes them. */
struct q8nn_vta_exact_channel {
  int32_t multiplier, shift, rounding, zero_point, out_min, out_max;
  int64_t bias_prime, sum_abs_w; /* bias - zx*sum(w); acc + bias' in bias' +- 128*sum|w| */
};

/* The linear form for a layer's channels (all of them run one program). false when some channel
   has none with at most Q8NN_VTA_LINEAR_MAX_LIMBS limbs (or TFLite's own arithmetic may wrap on
   the reachable range); out is then unspecified. */
Q8NN_INTERNAL bool q8nn_vta_conv_linear_derive(const struct q8nn_vta_exact_channel* channels, size_t count,
                                               struct q8nn_vta_conv_linear* out);

/* The oracle of the linear steps, int32 with wrap-around, from the GEMM accumulator. */
Q8NN_INTERNAL int8_t q8nn_vta_conv_linear_apply(const struct q8nn_vta_conv_linear* r, int32_t acc);

/* rounding: 0 double (TFLite default), 1 single. false when the channel cannot be requantized
   exactly within int32 (the operator then stays on the CPU). */
Q8NN_INTERNAL bool q8nn_vta_conv_exact_derive(int32_t multiplier, int32_t shift, int rounding, int64_t bias_prime,
                                              int64_t sum_abs_w, int32_t zero_point, int32_t out_min,
                                              int32_t out_max, struct q8nn_vta_conv_exact* out);

/* The oracle: the ALU steps above, in int32 with wrap-around, from the GEMM accumulator. */
Q8NN_INTERNAL int8_t q8nn_vta_conv_exact_apply(const struct q8nn_vta_conv_exact* r, int32_t acc);

/* ---- Exact add (TFLite's int8 AddElementwise, byte for byte) ---------------------------------

   docs/vta-backend.md "Exact add" has the derivation and the no-overflow proof. Per operand
   (x = v - z in [-255, 255], TFLite: Z = RDBPOT(SRDHM(x * 2^L, M), e), e = -shift >= 0), with
   k = 31 - L, M = Mh*2^k + Ml (0 <= Ml < 2^k):
     SRDHM(x*2^L, M) = floor((x*M + 2^(k-1)) / 2^k) = x*Mh + floor((x*Ml + 2^(k-1)) / 2^k) = Y,
     Z = floor((Y + h - [x < 0]) / 2^e)   (h = 2^(e-1); [Y < 0] = [x < 0] since M > 2^(k-1);
                                           for e = 0, Z = Y).
   The operand is loaded three times (P, U, W; LOAD ACC_8BIT sign-extends v), then
     U *= Ml; U += c1; U >>= k          c1 = 2^(k-1) - z*Ml
     W += 256 - z; W >>= 8              W = [x >= 0]             (e >= 1 only)
     P *= Mh; P += U; [P += W]; P += c; P >>= e      c = h - z*Mh - [e >= 1]
   Then S = Za + Zb, and the output stage is the exact convolution requantization of t = S
   (q8nn_vta_conv_exact with bias' = 0 and the bound max|Za| + max|Zb|; when its hh = h + zp*2^rs
   would leave int32, with zero point 0 and the clamp less zp, then X += zp). The derivation checks
   every step on all 256 values of each operand (int64, against TFLite's own formula). */
struct q8nn_vta_add_exact_input {
  int32_t ml, c1, mh, c;       /* the constant rows, in order */
  int32_t k, e, sign_imm;      /* SHR amounts; 256 - z */
  int32_t sign;                /* 1: the W steps run (e >= 1) */
  int32_t low;                 /* 1: the U steps run (Ml != 0; with Ml = 0, U = floor(c1 / 2^k) = 0,
                                  as for the input of the larger scale, whose M is 2^30) */
  int32_t z_max;               /* max |Z| over the 256 inputs */
};
/* The short exact add: the 16-bit mode's program shape with multipliers of up to 22 bits and
   offsets in constant rows,
     A = (a*ma + ca) >> sa;  B = (b*mb + cb) >> sb;  S = min(max(A + B, -lim), lim)
     q = (S*mo + ro) >> so;  out = min(max(q + zo, out_min), out_max)
   whose parameters are searched for and accepted only when the program equals TFLite's
   AddElementwise on all 65536 input pairs, every intermediate checked within int32. */
struct q8nn_vta_add_short {
  int32_t ma, ca, mb, cb, neg_lim, lim, mo, ro, zo; /* the constant rows, in order */
  int32_t sa, sb, so, out_min, out_max;
};
#define Q8NN_VTA_ADD_SHORT_ROWS 9
Q8NN_INTERNAL int8_t q8nn_vta_add_short_apply(const struct q8nn_vta_add_short* r, int8_t a, int8_t b);

struct q8nn_vta_add_exact {
  struct q8nn_vta_add_exact_input in[2]; /* a, b */
  struct q8nn_vta_conv_exact out;        /* t = Za + Zb */
  int32_t late_zp;   /* 1: zp*2^rs would leave int32 (large rs): out derived with zero point 0 and */
  int32_t zp;        /* the clamp less zp, then X += zp as one more ALU step */
  int32_t is_short;  /* 1: the short form below runs (it was found and verified), not the limbs */
  struct q8nn_vta_add_short short_form;
};
/* ACC rows: the 12 of q8nn_vta_conv_exact, then ml c1 mh c of a, then of b. */
#define Q8NN_VTA_ADD_EXACT_ROWS 20

/* From TFLite's int8 add parameters (double rounding, the only one of TFLite's add): the short
   form when one is found (unless limbs_only), else the limb form. false when neither exists:
   for the limb form, left_shift outside [9, 23], a shift positive or below -31, a multiplier
   negative or an output stage that cannot be derived (the add then stays on the CPU). */
Q8NN_INTERNAL bool q8nn_vta_add_exact_derive(int32_t a_zero_point, int32_t a_multiplier, int32_t a_shift,
                                             int32_t b_zero_point, int32_t b_multiplier, int32_t b_shift,
                                             int32_t output_multiplier, int32_t output_shift, int32_t left_shift,
                                             int32_t output_zero_point, int32_t output_min, int32_t output_max,
                                             bool limbs_only, struct q8nn_vta_add_exact* out);

/* The oracle: the ALU steps above, in int32 with wrap-around. */
Q8NN_INTERNAL int32_t q8nn_vta_add_exact_input_apply(const struct q8nn_vta_add_exact_input* r, int8_t v);
Q8NN_INTERNAL int8_t q8nn_vta_add_exact_apply(const struct q8nn_vta_add_exact* r, int8_t a, int8_t b);

#endif
