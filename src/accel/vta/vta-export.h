/* Export of a VTA program (configuration, instructions, DRAM image) to a binary file that can be
   replayed on the model (tools/q8nn-vta-run) or another VTA implementation. The format is in
   docs/vta-model.md: little-endian, "Q8NNVTA\0" magic, format version 1, ISA HW_VER 0.0.2. */
#ifndef Q8NN_VTA_EXPORT_H
#define Q8NN_VTA_EXPORT_H

#include <stdio.h>

#include "accel/vta/vta-runtime.h"

#define Q8NN_VTA_EXPORT_VERSION 1
#define Q8NN_VTA_HW_VER 0x000002u /* 0.0.2 as 0xMMmmpp */

/* Writes the device's configuration, every DRAM region (address, size, bytes; the program's
   micro-op region flagged) and the program's instructions. */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_export_program(FILE* file, struct q8nn_vta_device* device,
                                                       const struct q8nn_vta_program* program);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_export_program_path(const char* path, struct q8nn_vta_device* device,
                                                            const struct q8nn_vta_program* program);

/* Reads a file written by export: creates a device with its configuration, recreates every DRAM
   region at its address and returns the program (release with q8nn_vta_program_release, then
   delete the device). Malformed files: invalid_parameter / unsupported_parameter with a message
   in error (may be NULL). */
Q8NN_INTERNAL enum q8nn_status q8nn_vta_import_program(FILE* file, struct q8nn_vta_device** device_out,
                                                       struct q8nn_vta_program* program, char* error,
                                                       size_t error_size);
Q8NN_INTERNAL enum q8nn_status q8nn_vta_import_program_path(const char* path, struct q8nn_vta_device** device_out,
                                                            struct q8nn_vta_program* program, char* error,
                                                            size_t error_size);

#endif
