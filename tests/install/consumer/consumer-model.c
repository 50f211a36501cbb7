/* Uses only the installed q8nn-model.h and libraries: a file that is not a model is refused with a
   status and a message, and the NULL-model queries answer 0. */
#include <stdio.h>
#include <string.h>

#include <q8nn-model.h>

int main(void) {
  if (q8nn_initialize() != q8nn_status_success) return 1;
  static const unsigned char not_a_model[64] = {16, 0, 0, 0, 'N', 'O', 'P', 'E'};
  q8nn_model_t model = NULL;
  char error[256] = "";
  const enum q8nn_status status =
      q8nn_model_load_memory(not_a_model, sizeof(not_a_model), NULL, &model, error, sizeof(error));
  if (status != q8nn_status_invalid_parameter || model != NULL || error[0] == '\0') return 2;
  if (q8nn_model_num_inputs(NULL) != 0 || q8nn_model_delete(NULL) != q8nn_status_success) return 3;
  printf("consumer-model ok: %s\n", error);
  return 0;
}
