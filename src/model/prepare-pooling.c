/*
 * Preparation of the operators with windows over the spatial dimensions: AVERAGE_POOL_2D and
 * MAX_POOL_2D (q8nn's pooling), RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (q8nn's resize), MEAN
 * (portable).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

enum q8nn_status model_prepare_pool(struct loader* l, struct op* op) {
  struct fb_reader* r = &l->r;
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, OPT_POOL_2D)) return model_options_fail(l, op);
  const int padding = fb_u8(r, &op->options, 0, 0);
  const int32_t sw = fb_i32(r, &op->options, 1, 0), sh = fb_i32(r, &op->options, 2, 0);
  const int32_t fw = fb_i32(r, &op->options, 3, 0), fh = fb_i32(r, &op->options, 4, 0);
  const int activation = fb_u8(r, &op->options, 5, 0);
  if (fb_failed(r)) return model_reader_fail(l);
  if (in == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) || in->num_dims != 4 || out->num_dims != 4) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 4D input and output");
  }
  if ((padding != PAD_SAME && padding != PAD_VALID) || sw <= 0 || sh <= 0 || fw <= 0 || fh <= 0 || sw > 65536 ||
      sh > 65536 || fw > 65536 || fh > 65536) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "padding %d, stride %dx%d, filter %dx%d", padding,
                   (int) sh, (int) sw, (int) fh, (int) fw);
  }
  struct q8nn_model_pool_params* p = &op->pool;
  p->batch = in->dims[0];
  p->input_height = in->dims[1];
  p->input_width = in->dims[2];
  p->channels = in->dims[3];
  p->filter_height = (size_t) fh;
  p->filter_width = (size_t) fw;
  p->stride_height = (size_t) sh;
  p->stride_width = (size_t) sw;
  uint32_t pt, pb, pl, pr;
  if (!model_conv_dim(padding, p->input_height, p->filter_height, p->stride_height, 1, &p->output_height, &pt, &pb) ||
      !model_conv_dim(padding, p->input_width, p->filter_width, p->stride_width, 1, &p->output_width, &pl, &pr)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "filter larger than the input");
  }
  p->padding_top = pt;
  p->padding_left = pl;
  const size_t expected[4] = {p->batch, p->output_height, p->output_width, p->channels};
  if (!model_shape_is(out, 4, expected)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "output shape is not [%zu, %zu, %zu, %zu]", expected[0],
                   expected[1], expected[2], expected[3]);
  }
  if (!model_activation_range(activation, out, &p->output_min, &p->output_max)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "fused activation %d not supported", activation);
  }
  /* q8nn's pooling operator (TFLite's MaxPool / AveragePool, threads over output rows). Every
     window overlaps the image: TFLite's padding is below the filter size and the last window
     starts inside the input. */
  const struct q8nn_pooling2d_desc desc = {pt, pr, pb, pl, (uint32_t) fh, (uint32_t) fw, (uint32_t) sh, (uint32_t) sw,
                                           p->channels};
  enum q8nn_status status =
      op->kind == K_AVERAGE_POOL
          ? q8nn_create_average_pooling2d_nhwc_s8(&desc, (int8_t) p->output_min, (int8_t) p->output_max, 0, &op->qop)
          : q8nn_create_max_pooling2d_nhwc_s8(&desc, (int8_t) p->output_min, (int8_t) p->output_max, 0, &op->qop);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "create", status);
  size_t oh = 0, ow = 0;
  status = q8nn_setup_pooling2d_nhwc_s8(op->qop, p->batch, p->input_height, p->input_width, (const int8_t*) in->data,
                                        p->channels, (int8_t*) out->data, p->channels, &oh, &ow);
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "setup", status);
  if (oh != p->output_height || ow != p->output_width) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "pooling output %zux%zu, TFLite's %zux%zu", oh, ow,
                   p->output_height, p->output_width);
  }
  return q8nn_status_success;
}

/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: q8nn's resize (TFLite's int8 kernels); the size
   input must be constant (the output tensor's shape says the same). */
enum q8nn_status model_prepare_resize(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* size = model_in_tensor(l, op, 1);
  struct tensor* out = &l->m->tensors[op->output];
  const int bilinear = op->builtin == OP_RESIZE_BILINEAR;
  if (op->options.pos != 0 && !model_expect_options(op, bilinear ? OPT_RESIZE_BILINEAR : OPT_RESIZE_NEAREST_NEIGHBOR)) {
    return model_options_fail(l, op);
  }
  /* ResizeBilinearOptions: align_corners 2, half_pixel_centers 3; ResizeNearestNeighborOptions: 0, 1 */
  const int align_corners = fb_u8(&l->r, &op->options, bilinear ? 2 : 0, 0);
  const int half_pixel_centers = fb_u8(&l->r, &op->options, bilinear ? 3 : 1, 0);
  if (fb_failed(&l->r)) return model_reader_fail(l);
  if (in == NULL || size == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out) || in->num_dims != 4 ||
      out->num_dims != 4 || in->scale != out->scale || in->zero_point != out->zero_point) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs 4D int8 input and output of one quantization");
  }
  if (size->type != q8nn_model_type_int32 || size->elements != 2 || size->constant == NULL) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs a constant int32 [2] size");
  }
  int32_t hw[2];
  memcpy(hw, size->constant, sizeof(hw));
  if (hw[0] <= 0 || hw[1] <= 0 || out->dims[0] != in->dims[0] || out->dims[1] != (size_t) hw[0] ||
      out->dims[2] != (size_t) hw[1] || out->dims[3] != in->dims[3]) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "output shape does not match the size [%d, %d]",
                   (int) hw[0], (int) hw[1]);
  }
  const uint32_t flags = (align_corners ? Q8NN_FLAG_ALIGN_CORNERS : 0) | (half_pixel_centers ? Q8NN_FLAG_HALF_PIXEL_CENTERS : 0);
  enum q8nn_status status = q8nn_create_resize2d_nhwc_s8(bilinear ? q8nn_resize_bilinear : q8nn_resize_nearest,
                                                         in->dims[3], (size_t) hw[0], (size_t) hw[1], flags, &op->qop);
  if (status == q8nn_status_success) {
    status = q8nn_setup_resize2d_nhwc_s8(op->qop, in->dims[0], in->dims[1], in->dims[2], (const int8_t*) in->data,
                                         in->dims[3], (int8_t*) out->data, out->dims[3]);
  }
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success) return model_q8nn_fail(l, op, "resize", status);
  return q8nn_status_success;
}

/* TFLite reduce.cc EvalMeanReferenceOps for int8: the three paths of q8nn_model_mean_prepare.
   Not supported (refused here): a non-constant axis tensor, more than 4 axis values, and more than
   Q8NN_MODEL_MEAN_MAX_ELEMENTS elements per output (TFLite's int32 sums could overflow). */
enum q8nn_status model_prepare_mean(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* axis = model_in_tensor(l, op, 1);
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, OPT_REDUCER)) return model_options_fail(l, op);
  const int keep_dims = fb_u8(&l->r, &op->options, 0, 0);
  if (fb_failed(&l->r)) return model_reader_fail(l);
  if (in == NULL || axis == NULL || !model_is_int8_activation(in) || !model_is_int8_activation(out)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 input and output with one scale each");
  }
  if (axis->constant == NULL || axis->type != q8nn_model_type_int32 || axis->num_dims > 1 || axis->elements > 4) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "the axis must be a constant int32 tensor of at most 4 values");
  }
  int32_t axes[4];
  memcpy(axes, axis->constant, axis->elements * sizeof(int32_t));
  size_t shape[Q8NN_MODEL_MAX_DIMS];
  const size_t rank = q8nn_model_mean_output_shape(in->num_dims, in->dims, axes, axis->elements, keep_dims, shape);
  if (rank == SIZE_MAX) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "axis out of range for rank %zu", in->num_dims);
  }
  if (!model_shape_is(out, rank, shape)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "output shape mismatch");
  }
  if (!q8nn_model_mean_prepare(in->num_dims, in->dims, axes, axis->elements, keep_dims, in->scale, in->zero_point,
                               out->scale, out->zero_point, &op->mean)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter,
                   "more than %zu elements per output, or input/output scales out of range",
                   (size_t) Q8NN_MODEL_MEAN_MAX_ELEMENTS);
  }
  return q8nn_status_success;
}
