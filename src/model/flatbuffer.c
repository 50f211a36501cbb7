/* Bounds-checked FlatBuffers reader; see flatbuffer.h. Written from the FlatBuffers binary format:
   a table starts with an int32 soffset to its vtable (vtable = table - soffset); the vtable holds
   uint16 vtable size, uint16 table size, then one uint16 offset per field (0 = absent); offset
   fields (tables, vectors, strings) hold a uint32 relative to their own position; a vector is a
   uint32 length followed by the elements. */
#include "flatbuffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void fb_fail(struct fb_reader* r, const char* format, ...) {
  if (r->failed) return;
  r->failed = 1;
  va_list args;
  va_start(args, format);
  vsnprintf(r->error, sizeof(r->error), format, args);
  va_end(args);
}

/* 1 when [pos, pos + n) lies inside the buffer (overflow-safe). */
static int in_bounds(const struct fb_reader* r, size_t pos, size_t n) {
  return pos <= r->size && n <= r->size - pos;
}

static uint32_t load_u32(const uint8_t* p) {
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}
static uint16_t load_u16(const uint8_t* p) { return (uint16_t) (p[0] | p[1] << 8); }
static uint64_t load_u64(const uint8_t* p) { return (uint64_t) load_u32(p) | (uint64_t) load_u32(p + 4) << 32; }

void fb_init(struct fb_reader* r, const void* data, size_t size) {
  r->data = (const uint8_t*) data;
  r->size = data != NULL ? size : 0;
  r->failed = 0;
  r->error[0] = '\0';
}

int fb_failed(const struct fb_reader* r) { return r->failed; }

static struct fb_table table_at(struct fb_reader* r, size_t pos) {
  struct fb_table t = {0, 0, 0, 0};
  if (pos == 0 || !in_bounds(r, pos, 4)) {
    fb_fail(r, "table at offset %zu outside the %zu-byte file", pos, r->size);
    return t;
  }
  const int64_t vtable = (int64_t) pos - (int64_t) (int32_t) load_u32(r->data + pos);
  if (vtable < 0 || !in_bounds(r, (size_t) vtable, 4)) {
    fb_fail(r, "vtable of the table at offset %zu outside the file", pos);
    return t;
  }
  const size_t vt_size = load_u16(r->data + vtable), tbl_size = load_u16(r->data + vtable + 2);
  if (vt_size < 4 || (vt_size & 1) != 0 || !in_bounds(r, (size_t) vtable, vt_size) || tbl_size < 4 ||
      !in_bounds(r, pos, tbl_size)) {
    fb_fail(r, "malformed vtable (size %zu, table size %zu) at offset %zu", vt_size, tbl_size, (size_t) vtable);
    return t;
  }
  t.pos = pos;
  t.vtable = (size_t) vtable;
  t.vtable_size = vt_size;
  t.table_size = tbl_size;
  return t;
}

/* Follows the uint32 offset stored at pos. */
static size_t follow(struct fb_reader* r, size_t pos) {
  if (!in_bounds(r, pos, 4)) {
    fb_fail(r, "offset field at %zu outside the file", pos);
    return 0;
  }
  const uint64_t target = (uint64_t) pos + load_u32(r->data + pos);
  if (target >= r->size) {
    fb_fail(r, "offset at %zu points past the end of the file", pos);
    return 0;
  }
  return (size_t) target;
}

struct fb_table fb_root(struct fb_reader* r, const char* file_identifier) {
  struct fb_table none = {0, 0, 0, 0};
  if (r->data == NULL || r->size < 8) {
    fb_fail(r, "file too small (%zu bytes) for a flatbuffer", r->size);
    return none;
  }
  if (file_identifier != NULL && memcmp(r->data + 4, file_identifier, 4) != 0) {
    fb_fail(r, "file identifier is not \"%.4s\"", file_identifier);
    return none;
  }
  const size_t pos = follow(r, 0);
  return r->failed ? none : table_at(r, pos);
}

/* Position of field id holding `width` bytes, 0 when absent or on failure. */
static size_t field(struct fb_reader* r, const struct fb_table* t, unsigned id, size_t width) {
  if (r->failed || t->pos == 0) return 0;
  const size_t slot = 4 + 2 * (size_t) id;
  if (slot + 2 > t->vtable_size) return 0;
  const size_t offset = load_u16(r->data + t->vtable + slot);
  if (offset == 0) return 0;
  if (offset < 4 || width > t->table_size || offset > t->table_size - width) {
    fb_fail(r, "field %u of the table at %zu lies outside the table", id, t->pos);
    return 0;
  }
  return t->pos + offset; /* inside the file: table_at checked pos + table_size */
}

int fb_has(struct fb_reader* r, const struct fb_table* t, unsigned id) { return field(r, t, id, 1) != 0; }

uint8_t fb_u8(struct fb_reader* r, const struct fb_table* t, unsigned id, uint8_t def) {
  const size_t p = field(r, t, id, 1);
  return p != 0 ? r->data[p] : def;
}
int8_t fb_i8(struct fb_reader* r, const struct fb_table* t, unsigned id, int8_t def) {
  const size_t p = field(r, t, id, 1);
  return p != 0 ? (int8_t) r->data[p] : def;
}
uint32_t fb_u32(struct fb_reader* r, const struct fb_table* t, unsigned id, uint32_t def) {
  const size_t p = field(r, t, id, 4);
  return p != 0 ? load_u32(r->data + p) : def;
}
int32_t fb_i32(struct fb_reader* r, const struct fb_table* t, unsigned id, int32_t def) {
  return (int32_t) fb_u32(r, t, id, (uint32_t) def);
}
uint64_t fb_u64(struct fb_reader* r, const struct fb_table* t, unsigned id, uint64_t def) {
  const size_t p = field(r, t, id, 8);
  return p != 0 ? load_u64(r->data + p) : def;
}
float fb_f32(struct fb_reader* r, const struct fb_table* t, unsigned id, float def) {
  const size_t p = field(r, t, id, 4);
  if (p == 0) return def;
  const uint32_t bits = load_u32(r->data + p);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

struct fb_table fb_table_field(struct fb_reader* r, const struct fb_table* t, unsigned id) {
  struct fb_table none = {0, 0, 0, 0};
  const size_t p = field(r, t, id, 4);
  if (p == 0) return none;
  const size_t target = follow(r, p);
  return r->failed ? none : table_at(r, target);
}

struct fb_vector fb_vector_field(struct fb_reader* r, const struct fb_table* t, unsigned id, size_t elem_size) {
  struct fb_vector v = {0, 0, elem_size};
  const size_t p = field(r, t, id, 4);
  if (p == 0) return v;
  const size_t target = follow(r, p);
  if (r->failed) return v;
  if (!in_bounds(r, target, 4)) {
    fb_fail(r, "vector length at %zu outside the file", target);
    return v;
  }
  const uint64_t length = load_u32(r->data + target);
  if (length > (r->size - target - 4) / elem_size) {
    fb_fail(r, "vector of %llu elements at %zu runs past the end of the file", (unsigned long long) length, target);
    return v;
  }
  v.pos = target + 4;
  v.length = (size_t) length;
  return v;
}

static const uint8_t* element(struct fb_reader* r, const struct fb_vector* v, size_t i) {
  if (r->failed) return NULL;
  if (i >= v->length) {
    fb_fail(r, "vector index %zu out of range (%zu elements)", i, v->length);
    return NULL;
  }
  return r->data + v->pos + i * v->elem_size;
}

uint8_t fb_vec_u8(struct fb_reader* r, const struct fb_vector* v, size_t i) {
  const uint8_t* p = element(r, v, i);
  return p != NULL ? p[0] : 0;
}
int32_t fb_vec_i32(struct fb_reader* r, const struct fb_vector* v, size_t i) {
  const uint8_t* p = element(r, v, i);
  return p != NULL ? (int32_t) load_u32(p) : 0;
}
int64_t fb_vec_i64(struct fb_reader* r, const struct fb_vector* v, size_t i) {
  const uint8_t* p = element(r, v, i);
  return p != NULL ? (int64_t) load_u64(p) : 0;
}
float fb_vec_f32(struct fb_reader* r, const struct fb_vector* v, size_t i) {
  const uint8_t* p = element(r, v, i);
  if (p == NULL) return 0.0f;
  const uint32_t bits = load_u32(p);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}
struct fb_table fb_vec_table(struct fb_reader* r, const struct fb_vector* v, size_t i) {
  struct fb_table none = {0, 0, 0, 0};
  const uint8_t* p = element(r, v, i);
  if (p == NULL) return none;
  const size_t target = follow(r, (size_t) (p - r->data));
  return r->failed ? none : table_at(r, target);
}

const uint8_t* fb_vec_bytes(const struct fb_reader* r, const struct fb_vector* v) {
  return v->length != 0 ? r->data + v->pos : NULL;
}
