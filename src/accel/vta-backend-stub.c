/* Public VTA backend entry points. The VTA model lives in src/accel/vta; until the operator
   lowerings exist the backend cannot be created. */
#include "common.h"

enum q8nn_status q8nn_create_vta_backend(const struct q8nn_vta_config* config, q8nn_backend_t* backend_out) {
  (void) config;
  if (backend_out == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "backend_out is NULL");
  return Q8NN_ERROR(q8nn_status_unsupported_hardware, "the VTA backend's operator lowerings are not built yet");
}

enum q8nn_status q8nn_vta_get_stats(q8nn_backend_t vta, struct q8nn_vta_stats* stats) {
  (void) stats;
  if (vta == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "backend is NULL");
  return Q8NN_ERROR(q8nn_status_unsupported_hardware, "not a VTA backend");
}

enum q8nn_status q8nn_vta_reset_stats(q8nn_backend_t vta) {
  if (vta == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "backend is NULL");
  return Q8NN_ERROR(q8nn_status_unsupported_hardware, "not a VTA backend");
}
