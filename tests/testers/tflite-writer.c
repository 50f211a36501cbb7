/* A back-to-front FlatBuffer writer for small .tflite test models; see tflite-writer.h.
   Objects are prepended to the end of a buffer and named by their distance from that end (a
   "ref"); the final size is a multiple of 8, so a ref's alignment is its address's. An offset
   field at ref f pointing to an object at ref t holds f - t (the target lies at a higher address). */
#include "testers/tflite-writer.h"

#include <stdlib.h>
#include <string.h>

struct fbb {
  uint8_t* buf;
  size_t cap, used;
  int failed;
};

static void pad_for(struct fbb* b, size_t n, size_t align) {
  while ((b->used + n) % align != 0) {
    if (b->used < b->cap) b->buf[b->cap - ++b->used] = 0;
    else b->failed = 1, b->used++;
  }
}

/* Prepends n bytes aligned to align; returns the ref of their first byte. */
static uint32_t prepend(struct fbb* b, const void* data, size_t n, size_t align) {
  pad_for(b, n, align);
  if (b->failed || n > b->cap - b->used) {
    b->failed = 1;
    return 0;
  }
  b->used += n;
  if (n != 0) memcpy(b->buf + b->cap - b->used, data, n);
  return (uint32_t) b->used;
}

static void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t) (v >> (8 * i));
}

static uint32_t vector(struct fbb* b, const void* elems, size_t count, size_t elem_size) {
  prepend(b, elems, count * elem_size, elem_size < 4 ? 4 : elem_size);
  uint8_t length[4];
  put32(length, (uint32_t) count);
  return prepend(b, length, 4, 4);
}

static uint32_t string(struct fbb* b, const char* s) {
  const size_t n = strlen(s);
  prepend(b, s, n + 1, 4); /* with its NUL */
  uint8_t length[4];
  put32(length, (uint32_t) n);
  return prepend(b, length, 4, 4);
}

/* A vector of offsets to the objects at refs[0..count). */
static uint32_t offset_vector(struct fbb* b, const uint32_t* refs, size_t count) {
  pad_for(b, 4 * count, 4);
  const uint32_t start = (uint32_t) (b->used + 4 * count);
  uint8_t* elems = (uint8_t*) malloc(4 * count + 1);
  if (elems == NULL) {
    b->failed = 1;
    return 0;
  }
  for (size_t i = 0; i < count; i++) put32(elems + 4 * i, (uint32_t) (start - 4 * i - refs[i]));
  prepend(b, elems, 4 * count, 4);
  free(elems);
  uint8_t length[4];
  put32(length, (uint32_t) count);
  return prepend(b, length, 4, 4);
}

/* One table field: a scalar of size bytes, or (size 0) an offset to the object at ref. */
struct field {
  unsigned id, size;
  int32_t value;
  uint32_t ref;
};

#define MAX_FIELDS 8

static uint32_t table(struct fbb* b, const struct field* fields, size_t n) {
  /* body: soffset, then the offsets and 4-byte scalars, then the 1-byte ones */
  uint16_t at[MAX_FIELDS];
  size_t size = 4;
  unsigned max_id = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      if ((fields[i].size == 1) != (pass == 1)) continue;
      at[i] = (uint16_t) size;
      size += fields[i].size == 0 ? 4 : fields[i].size;
      if (fields[i].id > max_id) max_id = fields[i].id;
    }
  }
  size = (size + 3) & ~(size_t) 3;
  pad_for(b, size, 4);
  const uint32_t body = (uint32_t) (b->used + size);
  const size_t vt_size = 4 + 2 * (size_t) (n != 0 ? max_id + 1 : 0);
  uint8_t bytes[4 + 4 * MAX_FIELDS + 4];
  memset(bytes, 0, sizeof(bytes));
  put32(bytes, (uint32_t) vt_size); /* soffset: the vtable sits right below the table */
  for (size_t i = 0; i < n; i++) {
    if (fields[i].size == 0) put32(bytes + at[i], body - at[i] - fields[i].ref);
    else if (fields[i].size == 4) put32(bytes + at[i], (uint32_t) fields[i].value);
    else bytes[at[i]] = (uint8_t) fields[i].value;
  }
  prepend(b, bytes, size, 4);
  uint8_t vt[4 + 2 * 64];
  memset(vt, 0, sizeof(vt));
  vt[0] = (uint8_t) vt_size;
  vt[2] = (uint8_t) size;
  for (size_t i = 0; i < n; i++) vt[4 + 2 * fields[i].id] = (uint8_t) at[i];
  prepend(b, vt, vt_size, 2);
  return body;
}

static void add(struct field* f, size_t* n, unsigned id, unsigned size, int32_t value, uint32_t ref) {
  f[*n].id = id;
  f[*n].size = size;
  f[*n].value = value;
  f[*n].ref = ref;
  (*n)++;
}

uint8_t* tflw_write(const struct tflw_tensor* tensors, size_t num_tensors, const struct tflw_op* ops, size_t num_ops,
                    const int32_t* inputs, size_t num_inputs, const int32_t* outputs, size_t num_outputs,
                    size_t* size_out) {
  struct fbb b = {NULL, 65536, 0, 0};
  for (size_t i = 0; i < num_tensors; i++) b.cap += tensors[i].data_bytes + 64 + 12 * tensors[i].num_scales;
  b.cap += 256 * (num_ops + num_tensors);
  b.buf = (uint8_t*) malloc(b.cap);
  uint32_t* refs = (uint32_t*) malloc((num_tensors + num_ops + 2) * sizeof(uint32_t));
  int32_t codes[64];
  size_t num_codes = 0;
  if (b.buf == NULL || refs == NULL) goto fail;
  /* buffers: 0 empty, then one per constant tensor */
  size_t num_buffers = 1;
  uint32_t* buffer_of = refs; /* reused below: buffers first */
  buffer_of[0] = table(&b, NULL, 0);
  uint32_t tensor_buffer[256];
  for (size_t i = 0; i < num_tensors && i < 256; i++) {
    tensor_buffer[i] = 0;
    if (tensors[i].data == NULL) continue;
    struct field f[1];
    size_t n = 0;
    add(f, &n, 0, 0, 0, vector(&b, tensors[i].data, tensors[i].data_bytes, 1));
    tensor_buffer[i] = (uint32_t) num_buffers;
    buffer_of[num_buffers++] = table(&b, f, n);
  }
  if (num_tensors > 256 || num_buffers > num_tensors + 1) goto fail;
  const uint32_t buffers = offset_vector(&b, buffer_of, num_buffers);
  /* tensors */
  for (size_t i = 0; i < num_tensors; i++) {
    const struct tflw_tensor* t = &tensors[i];
    struct field f[MAX_FIELDS];
    size_t n = 0;
    if (t->num_scales != 0) {
      struct field q[3];
      size_t nq = 0;
      add(q, &nq, 2, 0, 0, vector(&b, t->scales, t->num_scales, 4));
      add(q, &nq, 3, 0, 0, vector(&b, t->zero_points, t->num_scales, 8));
      add(q, &nq, 6, 4, t->quantized_dimension, 0);
      add(f, &n, 4, 0, 0, table(&b, q, nq));
    }
    add(f, &n, 0, 0, 0, vector(&b, t->dims, t->num_dims, 4));
    add(f, &n, 1, 1, t->type, 0);
    add(f, &n, 2, 4, (int32_t) tensor_buffer[i], 0);
    add(f, &n, 3, 0, 0, string(&b, "t"));
    refs[i] = table(&b, f, n);
  }
  const uint32_t tensor_vector = offset_vector(&b, refs, num_tensors);
  /* operators */
  for (size_t k = 0; k < num_ops; k++) {
    const struct tflw_op* op = &ops[k];
    size_t code = 0;
    while (code < num_codes && codes[code] != op->builtin) code++;
    if (code == num_codes) {
      if (num_codes == 64) goto fail;
      codes[num_codes++] = op->builtin;
    }
    struct field f[MAX_FIELDS];
    size_t n = 0;
    add(f, &n, 0, 4, (int32_t) code, 0);
    add(f, &n, 1, 0, 0, vector(&b, op->inputs, op->num_inputs, 4));
    add(f, &n, 2, 0, 0, vector(&b, &op->output, 1, 4));
    if (op->options_type != 0) {
      struct field o[TFLW_MAX_OPTIONS];
      size_t no = 0;
      for (size_t i = 0; i < op->num_options; i++) add(o, &no, op->options[i].id, op->options[i].size, op->options[i].value, 0);
      add(f, &n, 3, 1, op->options_type, 0);
      add(f, &n, 4, 0, 0, table(&b, o, no));
    }
    refs[k] = table(&b, f, n);
  }
  const uint32_t operators = offset_vector(&b, refs, num_ops);
  struct field sg[4];
  size_t nsg = 0;
  add(sg, &nsg, 0, 0, 0, tensor_vector);
  add(sg, &nsg, 1, 0, 0, vector(&b, inputs, num_inputs, 4));
  add(sg, &nsg, 2, 0, 0, vector(&b, outputs, num_outputs, 4));
  add(sg, &nsg, 3, 0, 0, operators);
  const uint32_t subgraph = table(&b, sg, nsg);
  const uint32_t subgraphs = offset_vector(&b, &subgraph, 1);
  for (size_t c = 0; c < num_codes; c++) {
    struct field f[2];
    size_t n = 0;
    add(f, &n, 0, 1, codes[c] < 127 ? codes[c] : 127, 0); /* deprecated_builtin_code */
    add(f, &n, 3, 4, codes[c], 0);                          /* builtin_code */
    refs[c] = table(&b, f, n);
  }
  const uint32_t code_vector = offset_vector(&b, refs, num_codes);
  struct field model[4];
  size_t nm = 0;
  add(model, &nm, 0, 4, 3, 0); /* schema version */
  add(model, &nm, 1, 0, 0, code_vector);
  add(model, &nm, 2, 0, 0, subgraphs);
  add(model, &nm, 4, 0, 0, buffers);
  const uint32_t root = table(&b, model, nm);
  pad_for(&b, 8, 8);
  uint8_t header[8];
  put32(header, (uint32_t) (b.used + 8 - root));
  memcpy(header + 4, "TFL3", 4);
  prepend(&b, header, 8, 8);
  if (b.failed) goto fail;
  uint8_t* out = (uint8_t*) malloc(b.used);
  if (out == NULL) goto fail;
  memcpy(out, b.buf + b.cap - b.used, b.used);
  *size_out = b.used;
  free(b.buf);
  free(refs);
  return out;
fail:
  free(b.buf);
  free(refs);
  return NULL;
}
