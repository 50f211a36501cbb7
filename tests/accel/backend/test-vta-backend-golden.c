/* VTA backend over the 90 golden vectors (tests/golden/golden-cases.h): each case's operator on
   the VTA model (default configuration, 2 virtual threads; and 1 thread) must equal the host
   oracle of the VTA arithmetic bit for bit. Convolutions run in both requantization modes: exact
   (the default) must equal TFLite (the independent reference) byte for byte, 16-bit must stay
   within 1 LSB; so do adds. The distance to the published outputs is reported per mode. */
#include "vta-backend-util.h"

#include "golden/golden-cases.h"

static q8nn_backend_t backends[4]; /* exact vt 2, exact vt 1, 16-bit vt 2, 16-bit vt 1 */
static struct vta_diff diff_mode[2], published_mode[2];
static int exact_on_cpu; /* golden conv cases exact mode keeps on the CPU */

static void test_golden_case(void** state) {
  const struct golden_case* c = *state;
  int failures = 0;
  for (int v = 0; v < 4; v++) {
    const int mode = v / 2;
    vta_total = diff_mode[mode];
    vta_published = published_mode[mode];
    if (c->op == GOLDEN_ADD) {
      struct vta_add_spec s;
      memset(&s, 0, sizeof(s));
      s.a_rank = c->a_shape.rank, s.b_rank = c->b_shape.rank;
      memcpy(s.a_shape, c->a_shape.dims, sizeof(s.a_shape));
      memcpy(s.b_shape, c->b_shape.dims, sizeof(s.b_shape));
      s.a_zp = c->add_zero_points[0], s.b_zp = c->add_zero_points[1], s.out_zp = c->output_zero_point;
      s.out_min = (int8_t) c->activation_min, s.out_max = (int8_t) c->activation_max;
      s.fixed = c->add_fixed;
      s.a = c->a, s.b = c->b;
      s.published = v % 2 == 0 ? c->expected : NULL;
      failures += vta_add_check(backends[v], &s);
    } else {
      const struct golden_geometry* g = &c->geometry;
      struct vta_conv_spec s;
      memset(&s, 0, sizeof(s));
      s.depthwise = c->op == GOLDEN_DEPTHWISE;
      s.batch = g->batch, s.in_h = g->in_h, s.in_w = g->in_w, s.groups = 1;
      s.gic = g->in_c, s.goc = s.depthwise ? g->depth_multiplier : g->out_c;
      s.kh = (uint32_t) g->k_h, s.kw = (uint32_t) g->k_w, s.sh = (uint32_t) g->stride_h, s.sw = (uint32_t) g->stride_w;
      s.dh = (uint32_t) g->dil_h, s.dw = (uint32_t) g->dil_w;
      s.pt = (uint32_t) g->pad_top, s.pl = (uint32_t) g->pad_left, s.pb = (uint32_t) g->pad_bottom;
      s.pr = (uint32_t) g->pad_right;
      s.in_zp = c->input_zero_point, s.out_zp = c->output_zero_point;
      s.out_min = (int8_t) c->activation_min, s.out_max = (int8_t) c->activation_max;
      s.input = c->input, s.kernel = c->filter, s.bias = c->bias;
      s.multiplier = c->multiplier, s.shift = c->shift;
      s.published = v % 2 == 0 ? c->expected : NULL;
      /* Every case runs on VTA in exact mode: the linear form centres each channel's
         accumulators, so CMSIS-NN's int4 cases (bias' ~ 2^30, shift -26), which the limb form's
         proof cannot take, run too. An operator left on the CPU would still have to give the
         reference's bytes (vta_conv_check), but it fails this test. */
      const size_t before = vta_left_on_cpu;
      failures += vta_conv_check(backends[v], &s, mode == 0 ? 2 : 1, NULL);
      if (v == 0) {
        exact_on_cpu += (int) (vta_left_on_cpu - before);
        if (vta_left_on_cpu != before) failures++;
      }
    }
    diff_mode[mode] = vta_total;
    published_mode[mode] = vta_published;
  }
  if (failures != 0) fail_msg("%s: %d failures (see stderr)", c->id, failures);
}

static int setup(void** state) {
  if (test_group_setup(state) != 0) return -1;
  for (int mode = 0; mode < 2; mode++) {
    vta_test_requant = mode == 0 ? q8nn_vta_requant_exact : q8nn_vta_requant_16bit;
    backends[2 * mode] = vta_backend(0, 2, 0, 0, 0);
    backends[2 * mode + 1] = vta_backend(0, 1, 0, 0, 0);
  }
  return 0;
}

static int teardown(void** state) {
  for (int mode = 0; mode < 2; mode++) {
    vta_total = diff_mode[mode];
    vta_published = published_mode[mode];
    vta_diff_print(mode == 0 ? "vta golden, exact mode (conv/depthwise/add) vs TFLite reference"
                             : "vta golden, 16-bit mode (conv/depthwise/add) vs TFLite reference");
    printf("  vs published outputs: %zu outputs, %zu differ (%.4f%%), max |diff| %d LSB\n",
           vta_published.outputs, vta_published.differing,
           vta_published.outputs ? 100.0 * (double) vta_published.differing / (double) vta_published.outputs : 0.0,
           vta_published.max_diff);
  }
  printf("exact mode: %d golden conv/depthwise cases stay on the CPU\n",
         exact_on_cpu);
  for (int v = 0; v < 4; v++) q8nn_delete_backend(backends[v]);
  return test_group_teardown(state);
}

int main(void) {
  struct CMUnitTest tests[GOLDEN_NUM_CASES];
  for (size_t i = 0; i < GOLDEN_NUM_CASES; i++) {
    const struct CMUnitTest t = {golden_cases[i].id, test_golden_case, NULL, NULL, (void*) &golden_cases[i]};
    tests[i] = t;
  }
  return _cmocka_run_group_tests("vta_backend_golden", tests, GOLDEN_NUM_CASES, setup, teardown);
}
