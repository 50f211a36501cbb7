/* Uses only the installed header and library: a 1x1 convolution and an add. */
#include <stdio.h>
#include <string.h>

#include <q8nn.h>

int main(void) {
  if (q8nn_initialize() != q8nn_status_success) return 1;
  const int8_t kernel[2 * 3] = {1, 2, 3, -1, -2, -3};
  const float kernel_scale[2] = {0.5f, 0.25f};
  struct q8nn_convolution2d_desc desc;
  memset(&desc, 0, sizeof(desc));
  desc.kernel_height = desc.kernel_width = 1;
  desc.stride_height = desc.stride_width = desc.dilation_height = desc.dilation_width = 1;
  desc.groups = 1;
  desc.group_input_channels = 3;
  desc.group_output_channels = 2;
  struct q8nn_conv_quantization quant;
  memset(&quant, 0, sizeof(quant));
  quant.input_scale = 1.0f;
  quant.kernel_scale = kernel_scale;
  quant.output_scale = 1.0f;
  quant.output_min = -128;
  quant.output_max = 127;
  q8nn_operator_t conv = NULL;
  if (q8nn_create_convolution2d_nhwc_s8(&desc, &quant, kernel, NULL, 0, &conv) != q8nn_status_success) return 2;
  const int8_t input[3] = {10, 20, 30};
  int8_t output[2] = {0, 0};
  if (q8nn_setup_convolution2d_nhwc_s8(conv, 1, 1, 1, input, 3, output, 2, NULL, NULL) != q8nn_status_success) return 3;
  if (q8nn_run_operator(conv, NULL) != q8nn_status_success) return 4;
  q8nn_delete_operator(conv);
  /* 1*10+2*20+3*30 = 140 * 0.5 = 70; -140 * 0.25 = -35 */
  printf("consumer: %d %d (%s)\n", output[0], output[1], q8nn_version_string());
  return output[0] == 70 && output[1] == -35 ? 0 : 5;
}
