/* One golden case as tests/golden/convert.py writes it (see golden-cases.h). */
#ifndef Q8NN_TESTS_GOLDEN_CASE_H
#define Q8NN_TESTS_GOLDEN_CASE_H

#include <stddef.h>
#include <stdint.h>

enum golden_op { GOLDEN_CONV2D = 0, GOLDEN_DEPTHWISE = 1, GOLDEN_ADD = 2 };

struct golden_geometry {
  size_t batch, in_h, in_w, in_c, out_c, depth_multiplier, k_h, k_w, out_h, out_w;
  size_t stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, pad_bottom, pad_right;
};

struct golden_shape {
  size_t rank;
  size_t dims[6];
};

struct golden_case {
  /* attribution */
  const char* id;
  enum golden_op op;
  const char* repo;
  const char* commit;
  const char* paths;             /* "; "-separated files the numbers come from */
  const char* test;              /* test name, or "file: functions; ..." */
  int line;                      /* 0 when the source gives none */
  const char* generator_comment; /* CMSIS-NN generator header, or NULL */
  const char* source_note;
  const char* provenance;        /* "verbatim" or "derived_from_float" */
  const char* derivation;
  const char* notes;
  int tolerance;                 /* max |got - expected| in LSBs */

  const int8_t* expected;
  size_t expected_size;
  int32_t output_zero_point, activation_min, activation_max;
  int has_scales;                /* float scales present (besides the integer parameters) */
  float output_scale;

  /* conv2d / depthwise */
  struct golden_geometry geometry; /* in_c = input channels, out_c = all output channels */
  int32_t input_zero_point;
  const int8_t* input;
  const int8_t* filter;
  const int32_t* bias;           /* NULL = no bias */
  const int32_t* multiplier;
  const int32_t* shift;
  float input_scale;
  const float* filter_scales;

  /* add */
  const int8_t* a;
  const int8_t* b;
  struct golden_shape a_shape, b_shape, out_shape;
  int32_t add_zero_points[2];
  int32_t add_fixed[7];          /* left_shift, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift */
  float add_scales[2];
};

#endif /* Q8NN_TESTS_GOLDEN_CASE_H */
