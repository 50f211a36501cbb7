/*
 * A bounds-checked FlatBuffers reader, just enough for TFLite models: tables through their
 * vtables, scalars with defaults, vectors of scalars, strings and vectors of tables.
 *
 * Every access is checked against the buffer (and a field against its table's size): a bad
 * offset marks the reader failed, records the first message and returns a default (0 / absent),
 * so callers can read a whole table and test fb_failed once. Nothing assumes alignment or host
 * byte order beyond little-endian reads done byte by byte.
 */
#ifndef Q8NN_MODEL_FLATBUFFER_H
#define Q8NN_MODEL_FLATBUFFER_H

#include <stddef.h>
#include <stdint.h>

struct fb_reader {
  const uint8_t* data;
  size_t size;
  int failed;
  char error[160];
};

/* A table: pos 0 = absent (no table can start at 0: the root offset occupies bytes 0..3). */
struct fb_table {
  size_t pos;
  size_t vtable;
  size_t vtable_size;
  size_t table_size;
};

/* A vector: pos = first element, length in elements; length 0 when absent. */
struct fb_vector {
  size_t pos;
  size_t length;
  size_t elem_size;
};

void fb_init(struct fb_reader* r, const void* data, size_t size);
int fb_failed(const struct fb_reader* r);

/* Root table; file_identifier (4 chars) is checked when non-NULL. */
struct fb_table fb_root(struct fb_reader* r, const char* file_identifier);

/* Scalar fields (id = field index in the schema); def when absent. */
uint8_t fb_u8(struct fb_reader* r, const struct fb_table* t, unsigned id, uint8_t def);
int8_t fb_i8(struct fb_reader* r, const struct fb_table* t, unsigned id, int8_t def);
int32_t fb_i32(struct fb_reader* r, const struct fb_table* t, unsigned id, int32_t def);
uint32_t fb_u32(struct fb_reader* r, const struct fb_table* t, unsigned id, uint32_t def);
uint64_t fb_u64(struct fb_reader* r, const struct fb_table* t, unsigned id, uint64_t def);
float fb_f32(struct fb_reader* r, const struct fb_table* t, unsigned id, float def);
/* 1 when the field is present in the table's vtable. */
int fb_has(struct fb_reader* r, const struct fb_table* t, unsigned id);

/* A sub-table field (also a union's value); pos 0 when absent. */
struct fb_table fb_table_field(struct fb_reader* r, const struct fb_table* t, unsigned id);
/* A vector field of elem_size-byte scalars or 4-byte offsets (tables, strings). */
struct fb_vector fb_vector_field(struct fb_reader* r, const struct fb_table* t, unsigned id, size_t elem_size);

/* Elements; index must be < length (checked: out of range fails the reader). */
uint8_t fb_vec_u8(struct fb_reader* r, const struct fb_vector* v, size_t i);
int32_t fb_vec_i32(struct fb_reader* r, const struct fb_vector* v, size_t i);
int64_t fb_vec_i64(struct fb_reader* r, const struct fb_vector* v, size_t i);
float fb_vec_f32(struct fb_reader* r, const struct fb_vector* v, size_t i);
struct fb_table fb_vec_table(struct fb_reader* r, const struct fb_vector* v, size_t i);

/* Pointer to a vector's bytes (length*elem_size, already bounds-checked), NULL when empty. */
const uint8_t* fb_vec_bytes(const struct fb_reader* r, const struct fb_vector* v);

#endif
