"""q8nn_torch against PyTorch's qnnpack engine: byte-identical layers and models.

Run from the repository root (after building the extension, see ../README.md):
    /usr/bin/python3 -m unittest discover -s integrations/pytorch/tests -v
"""
import io
import itertools
import os
import struct
import sys
import unittest
from typing import List

import numpy as np

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import q8nn_torch  # noqa: E402
import torch_models  # noqa: E402
from q8nn_torch import nnq, nniq  # noqa: E402

torch.backends.quantized.engine = "qnnpack"

SIZE = 64  # input height and width of the model tests (224 in the benchmark)
THREADS = (1, 2)


def setUpModule():
    q8nn_torch.load()


def quantized_model(name, dtype, per_channel=False, seed=0):
    """The model of torch_models.quantized_model at the tests' size, on the qnnpack engine."""
    return torch_models.quantized_model(name, dtype, SIZE, per_channel, seed)


class Recorder:
    """Outputs of the swapped layers by name: forward hooks, and wrapped add/add_relu/cat (a
    QFunctional's methods do not go through forward)."""

    def __init__(self, model, names):
        self.outputs = {}
        self.handles = []
        modules = dict(model.named_modules())
        for name in names:
            mod = modules[name]
            if isinstance(mod, nnq.QFunctional):
                for method in ("add", "add_relu", "cat"):
                    original = getattr(mod, method)

                    def wrapped(*args, original=original, name=name, **kwargs):
                        out = original(*args, **kwargs)
                        self.outputs[name] = out
                        return out
                    setattr(mod, method, wrapped)
                self.handles.append(mod)
            else:
                self.handles.append(mod.register_forward_hook(
                    lambda m, args, out, name=name: self.outputs.__setitem__(name, out)))

    def remove(self):
        for h in self.handles:
            if isinstance(h, torch.nn.Module):
                for method in ("add", "add_relu", "cat"):
                    h.__dict__.pop(method, None)
            else:
                h.remove()


# What convert() takes in each model (every kind's bytes are checked with the others' below); every
# model converts completely.
MODEL_KINDS = {
    "mobilenet_v2": {"conv", "depthwise", "linear", "add"},
    "resnet18": {"conv", "linear", "add", "maxpool", "avgpool"},
    "mobilenet_v3_large": {"conv", "depthwise", "linear", "add", "mul", "avgpool", "hardswish", "hardsigmoid"},
    "shufflenet_v2_x1_0": {"conv", "depthwise", "linear", "cat", "maxpool", "shuffle"},
}
MODEL_LEFT = {
    "mobilenet_v2": set(),
    "resnet18": set(),
    "mobilenet_v3_large": set(),
    "shufflenet_v2_x1_0": set(),
}


class ModelTest(unittest.TestCase):
    def check_model(self, name, dtype, per_channel=False):
        model = quantized_model(name, dtype, per_channel)
        report = []
        converted = q8nn_torch.convert(model, report=report)
        taken = [e.name for e in report if e.taken]
        left = [e for e in report if not e.taken]
        self.assertEqual({e.module for e in left}, MODEL_LEFT[name])
        self.assertGreater(len(taken), 10)
        self.assertEqual({e.kind for e in report if e.taken}, MODEL_KINDS[name])
        for swapped in taken:
            self.assertTrue(type(converted.get_submodule(swapped)).__module__.startswith("q8nn_torch"), swapped)
        # The original is untouched (convert copies).
        self.assertFalse(any(type(m).__module__.startswith("q8nn_torch") for m in model.modules()))

        x = torch.randn(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(123))
        old_threads = torch.get_num_threads()
        try:
            for threads in THREADS:
                torch.set_num_threads(threads)
                with self.subTest(threads=threads):
                    ref_rec, q_rec = Recorder(model, taken), Recorder(converted, taken)
                    try:
                        ref = model(x)
                        out = converted(x)
                    finally:
                        ref_rec.remove()
                        q_rec.remove()
                    self.assertTrue(torch.equal(ref, out), f"logits differ by up to {(ref - out).abs().max()}")
                    # A MobileNetV2 block without a residual never calls its skip_add.
                    self.assertEqual(set(q_rec.outputs), set(ref_rec.outputs))
                    self.assertGreater(len(q_rec.outputs), 10)
                    for layer in ref_rec.outputs:
                        r, q = ref_rec.outputs[layer], q_rec.outputs[layer]
                        self.assertEqual(q.dtype, dtype, layer)
                        self.assertEqual((q.q_scale(), q.q_zero_point()), (r.q_scale(), r.q_zero_point()), layer)
                        self.assertEqual(q.shape, r.shape, layer)
                        self.assertTrue(torch.equal(r.int_repr(), q.int_repr()), f"{layer} differs")
        finally:
            torch.set_num_threads(old_threads)
        return model, converted, x

    def test_mobilenet_v2_quint8(self):
        _, converted, x = self.check_model("mobilenet_v2", torch.quint8)
        # the same q8nn operators run by q8nn alone (bench_torch.py's comparison)
        self.assertGreater(q8nn_torch.replay_seconds(converted, x, iters=2), 0.0)
        torch.ops.q8nn.replay(1)  # again: nothing ran since the recording
        converted(x)
        with self.assertRaisesRegex(RuntimeError, "ran after the recording"):
            torch.ops.q8nn.replay(1)

    def test_mobilenet_v2_qint8(self):
        self.check_model("mobilenet_v2", torch.qint8)

    def test_resnet18_quint8(self):
        self.check_model("resnet18", torch.quint8)

    def test_resnet18_qint8(self):
        self.check_model("resnet18", torch.qint8)

    def test_mobilenet_v2_quint8_per_channel(self):
        self.check_model("mobilenet_v2", torch.quint8, per_channel=True)

    def test_resnet18_qint8_per_channel(self):
        self.check_model("resnet18", torch.qint8, per_channel=True)

    def test_mobilenet_v3_quint8(self):
        self.check_model("mobilenet_v3_large", torch.quint8)

    def test_mobilenet_v3_qint8(self):
        self.check_model("mobilenet_v3_large", torch.qint8)

    def test_mobilenet_v3_quint8_per_channel(self):
        self.check_model("mobilenet_v3_large", torch.quint8, per_channel=True)

    def test_shufflenet_v2_quint8(self):
        self.check_model("shufflenet_v2_x1_0", torch.quint8)

    def test_shufflenet_v2_qint8(self):
        self.check_model("shufflenet_v2_x1_0", torch.qint8)

    def test_new_ops_run_on_q8nn(self):
        # The models' hardswish, hardsigmoid, average pooling, mul, cat and shuffle layers ran q8nn
        # operators, not PyTorch's kernels (which the ops call only for quantizations PyTorch's
        # kernels disagree with themselves on, and pools pytorch_qnnpack does not run).
        for name, kinds in (("mobilenet_v3_large", ("hardswish", "hardsigmoid", "avgpool", "mul")),
                            ("shufflenet_v2_x1_0", ("cat", "shuffle"))):
            with self.subTest(model=name):
                model = quantized_model(name, torch.quint8)
                converted = q8nn_torch.convert(model, kinds=kinds)
                x = torch.randn(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(5))
                q8nn_torch.reset_stats()
                torch.ops.q8nn.record(True)
                try:
                    out = converted(x)
                finally:
                    ran = torch.ops.q8nn.record(False)
                stats = q8nn_torch.stats()
                self.assertTrue(torch.equal(out, model(x)))
                self.assertEqual(stats.pytorch_calls, 0)
                self.assertEqual(ran, stats.calls)
                self.assertGreater(ran, 10)

    def test_script_save_load(self):
        # ResNet-18 for its max pool (q8nn_torch.MaxPool2d), MobileNetV2 for depthwise layers,
        # MobileNetV3 for hardswish and hardsigmoid, ShuffleNetV2 for cat and its shuffle block.
        for name, dtype in (("resnet18", torch.quint8), ("mobilenet_v2", torch.qint8),
                            ("mobilenet_v3_large", torch.qint8), ("shufflenet_v2_x1_0", torch.quint8)):
            with self.subTest(model=name, dtype=dtype):
                model = quantized_model(name, dtype)
                converted = q8nn_torch.convert(model)
                x = torch.randn(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(7))
                ref = model(x)
                scripted, loaded = script_and_reload(converted)
                self.assertTrue(torch.equal(scripted(x), ref))
                self.assertTrue(torch.equal(loaded(x), ref))
                self.assertTrue(torch.equal(loaded(x), ref))  # second call: the kept operators

    def test_state_dict(self):
        # The converted model's state_dict has the quantized model's keys for convs (weight, bias,
        # scale, zero_point); loading the quantized model's state_dict restores every layer.
        model = quantized_model("resnet18", torch.quint8)
        converted = q8nn_torch.convert(model)
        state = converted.state_dict()
        self.assertTrue(torch.equal(state["conv1.weight"].int_repr(), model.conv1.weight().int_repr()))
        other = q8nn_torch.convert(quantized_model("resnet18", torch.quint8, seed=1))
        x = torch.randn(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(3))
        self.assertFalse(torch.equal(other(x), model(x)))
        other.load_state_dict(model.state_dict())
        self.assertTrue(torch.equal(other(x), model(x)))
        other.load_state_dict(state)
        self.assertTrue(torch.equal(other(x), model(x)))

    def test_kinds_and_inplace(self):
        model = quantized_model("resnet18", torch.qint8)
        report = []
        converted = q8nn_torch.convert(model, inplace=True, kinds=("linear",), report=report)
        self.assertIs(converted, model)
        self.assertIsInstance(model.fc, q8nn_torch.Linear)
        self.assertIsInstance(model.conv1, nniq.ConvReLU2d)
        self.assertEqual({e.kind for e in report if e.taken}, {"linear"})
        self.assertTrue(all(e.reason == "kind not selected" for e in report if not e.taken and e.kind != "other"))
        self.assertEqual(q8nn_torch.last_report(), report)
        self.assertIn("1 of 31 layers on q8nn", q8nn_torch.format_report(report))
        with self.assertRaises(ValueError):
            q8nn_torch.convert(model, kinds=("pooling",))
        # Converting again takes the rest and leaves the q8nn layers alone.
        report = []
        q8nn_torch.convert(model, inplace=True, report=report)
        self.assertEqual(len(report), 30)
        self.assertEqual([e.name for e in report if not e.taken], [])
        self.assertIsInstance(model.fc, q8nn_torch.Linear)


def script_and_reload(module):
    """The TorchScript of a module, and that script saved and loaded back."""
    scripted = torch.jit.script(module)
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    buffer.seek(0)
    return scripted, torch.jit.load(buffer)


def random_qweight(out_channels, in_per_group, kh, kw, per_channel, seed):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(out_channels, in_per_group, kh, kw, generator=g)
    if per_channel:
        scales = torch.rand(out_channels, generator=g, dtype=torch.double) * 0.02 + 0.005
        return torch.quantize_per_channel(w, scales, torch.zeros(out_channels, dtype=torch.long), 0, torch.qint8)
    return torch.quantize_per_tensor(w, 0.013, 0, torch.qint8)


def random_input(shape, dtype, seed, scale=0.07, zero_point=None):
    g = torch.Generator().manual_seed(seed)
    if zero_point is None:
        zero_point = 37 if dtype == torch.quint8 else -11
    return torch.quantize_per_tensor(torch.randn(*shape, generator=g) * 3, scale, zero_point, dtype)


class LayerTest(unittest.TestCase):
    """Single layers of many shapes against PyTorch's own quantized modules."""

    CONVS = [
        # in, out, kernel, stride, padding, dilation, groups
        (3, 16, 3, 2, 1, 1, 1),
        (16, 24, 1, 1, 0, 1, 1),
        (24, 24, 3, 1, 1, 1, 24),      # depthwise 3x3
        (24, 24, 5, 2, 2, 1, 24),      # depthwise 5x5 stride 2
        (8, 16, 3, 1, 2, 2, 8),        # depthwise, depth multiplier 2, dilation 2
        (16, 32, 3, 1, 1, 1, 4),       # grouped
        (5, 7, (3, 1), (1, 2), (1, 0), 1, 1),
        (1, 4, 3, 1, 1, 1, 1),         # single input channel
    ]

    def test_conv(self):
        seed = 0
        for dtype in (torch.quint8, torch.qint8):
            for per_channel in (False, True):
                for relu in (False, True):
                    for cin, cout, k, s, p, d, g in self.CONVS:
                        seed += 1
                        cls = nniq.ConvReLU2d if relu else nnq.Conv2d
                        ref = cls(cin, cout, k, stride=s, padding=p, dilation=d, groups=g)
                        kh, kw = ref.kernel_size
                        bias = torch.randn(cout, generator=torch.Generator().manual_seed(seed))
                        ref.set_weight_bias(random_qweight(cout, cin // g, kh, kw, per_channel, seed), bias)
                        ref.scale, ref.zero_point = 0.11, (20 if dtype == torch.quint8 else -5)
                        mod = q8nn_torch.Conv2d.from_quantized(ref)
                        x = random_input((2, cin, 9, 11), dtype, seed)
                        with self.subTest(dtype=dtype, per_channel=per_channel, relu=relu, conv=(cin, cout, k, s, p, d, g)):
                            r, q = ref(x), mod(x)
                            self.assertEqual((q.dtype, q.q_scale(), q.q_zero_point()), (r.dtype, r.q_scale(), r.q_zero_point()))
                            self.assertTrue(torch.equal(r.int_repr(), q.int_repr()))
                            self.assertTrue(q.is_contiguous(memory_format=torch.channels_last))
                            # A new input quantization recreates the operator.
                            x2 = random_input((1, cin, 7, 6), dtype, seed + 1000, scale=0.03, zero_point=0)
                            self.assertTrue(torch.equal(ref(x2).int_repr(), mod(x2).int_repr()))

    def test_conv_input_layouts(self):
        ref = nnq.Conv2d(8, 8, 3, padding=1)
        ref.set_weight_bias(random_qweight(8, 8, 3, 3, False, 1), torch.randn(8))
        ref.scale, ref.zero_point = 0.2, 3
        mod = q8nn_torch.Conv2d.from_quantized(ref)
        x = random_input((2, 8, 10, 12), torch.quint8, 5)
        for name, t in (("nchw", x), ("channels_last", x.contiguous(memory_format=torch.channels_last)),
                        ("strided", x[:, :, ::2, 1:]), ("transposed", x.transpose(2, 3))):
            with self.subTest(layout=name):
                self.assertTrue(torch.equal(ref(t).int_repr(), mod(t).int_repr()))

    def test_linear(self):
        seed = 100
        for dtype in (torch.quint8, torch.qint8):
            for per_channel in ((False, True) if dtype == torch.quint8 else (False,)):
                for relu in (False, True):
                    for shape, out_features in (((1, 40), 10), ((5, 33), 17), ((2, 3, 16), 8)):
                        seed += 1
                        in_features = shape[-1]
                        ref = (nniq.LinearReLU if relu else nnq.Linear)(in_features, out_features)
                        w = random_qweight(out_features, in_features, 1, 1, per_channel, seed).reshape(
                            out_features, in_features)
                        ref.set_weight_bias(w, torch.randn(out_features, generator=torch.Generator().manual_seed(seed)))
                        ref.scale, ref.zero_point = 0.09, (100 if dtype == torch.quint8 else 12)
                        mod = q8nn_torch.Linear.from_quantized(ref)
                        x = random_input(shape, dtype, seed)
                        with self.subTest(dtype=dtype, per_channel=per_channel, relu=relu, shape=shape):
                            r, q = ref(x), mod(x)
                            self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()),
                                             (r.shape, r.dtype, r.q_scale(), r.q_zero_point()))
                            self.assertTrue(torch.equal(r.int_repr(), q.int_repr()))

    def test_add(self):
        seed = 200
        for dtype, (a_zp, b_zp, zp) in ((torch.qint8, (-3, 9, -7)), (torch.quint8, (125, 140, 120))):
          for relu in (False, True):
            for a_shape, b_shape in (((1, 16, 5, 7), (1, 16, 5, 7)), ((2, 3, 4), (2, 3, 4)), ((2, 8, 3, 3), (1, 8, 1, 1))):
                for layout in ("contiguous", "channels_last", "mixed"):
                    seed += 1
                    a = random_input(a_shape, dtype, seed, scale=0.05, zero_point=a_zp)
                    b = random_input(b_shape, dtype, seed + 1, scale=0.08, zero_point=b_zp)
                    if layout != "contiguous" and len(a_shape) == 4:
                        a = a.contiguous(memory_format=torch.channels_last)
                        if layout == "channels_last":
                            b = b.contiguous(memory_format=torch.channels_last)
                    ref = nnq.QFunctional()
                    ref.scale, ref.zero_point = 0.1, zp
                    mod = q8nn_torch.QFunctional.from_quantized(ref)
                    with self.subTest(dtype=dtype, relu=relu, shapes=(a_shape, b_shape), layout=layout):
                        if dtype == torch.qint8 and layout != "contiguous" and a_shape != b_shape:
                            # PyTorch passes XNNPACK each operand's shape in the order of its own
                            # suggested memory format: NHWC [2, 3, 3, 8] against NCHW [1, 8, 1, 1],
                            # which do not broadcast. Both refuse it.
                            self.assertRaises(RuntimeError, ref.add, a, b)
                            self.assertRaises(RuntimeError, mod.add, a, b)
                            continue
                        r = ref.add_relu(a, b) if relu else ref.add(a, b)
                        q = mod.add_relu(a, b) if relu else mod.add(a, b)
                        self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()),
                                         (r.shape, r.dtype, r.q_scale(), r.q_zero_point()))
                        self.assertEqual(q.stride(), r.stride())
                        self.assertTrue(torch.equal(r.int_repr(), q.int_repr()))

    def test_quint8_add_scales(self):
        # pytorch_qnnpack's add over random scales and zero points (Q8NN_FLAG_QNNPACK_ADD), against
        # PyTorch and against the reference below.
        rng = np.random.default_rng(1)
        mod = q8nn_torch.QFunctional()
        trials = 0
        while trials < 60:
            a_scale, b_scale, scale = (float(10 ** rng.uniform(-3, 0)) for _ in range(3))
            # q8nn's limit: ratios in [2^-14, 2^8), the larger one >= 2^-9.
            ratios = (a_scale / scale, b_scale / scale)
            if not (all(2 ** -14 <= r < 2 ** 8 for r in ratios) and max(ratios) >= 2 ** -9):
                continue
            a_zp, b_zp, zp = (int(v) for v in rng.integers(0, 255, 3))
            relu = bool(rng.integers(0, 2))
            a = torch.quantize_per_tensor(torch.randn(1, 8, 9, 7) * 3, a_scale, a_zp, torch.quint8)
            b = torch.quantize_per_tensor(torch.randn(1, 8, 9, 7) * 3, b_scale, b_zp, torch.quint8)
            op = "add_relu" if relu else "add"
            ref = getattr(torch.ops.quantized, op)(a, b, scale, zp)
            out = getattr(torch.ops.q8nn, op)(a, b, mod._packed, scale, zp)
            self.assertTrue(torch.equal(ref.int_repr(), out.int_repr()), (a_scale, b_scale, scale, a_zp, b_zp, zp))
            trials += 1
        # Other sizes: PyTorch's generic kernel, which QFunctional leaves to PyTorch.
        a = random_input((2, 4, 3, 3), torch.quint8, 1)
        b = random_input((1, 4, 1, 1), torch.quint8, 2)
        ref = nnq.QFunctional()
        ref.scale, ref.zero_point = 0.1, 128
        mod = q8nn_torch.QFunctional.from_quantized(ref)
        self.assertTrue(torch.equal(ref.add(a, b).int_repr(), mod.add(a, b).int_repr()))

    def test_threads_count(self):
        ref = nnq.Conv2d(32, 64, 3, padding=1)
        ref.set_weight_bias(random_qweight(64, 32, 3, 3, False, 3), torch.randn(64))
        ref.scale, ref.zero_point = 0.3, 0
        mod = q8nn_torch.Conv2d.from_quantized(ref)
        x = random_input((1, 32, 40, 40), torch.qint8, 9)
        old = torch.get_num_threads()
        try:
            outs = []
            for threads in (1, 2, 3):
                torch.set_num_threads(threads)
                q8nn_torch.reset_stats()
                outs.append(mod(x).int_repr())
                stats = q8nn_torch.stats()
                self.assertEqual(stats.calls, 1)
                # PyTorch's intra-op threads run the pieces: torch.set_num_threads applies.
                self.assertEqual(stats.max_threads, threads)
            self.assertTrue(all(torch.equal(outs[0], o) for o in outs))
            self.assertTrue(torch.equal(outs[0], ref(x).int_repr()))
        finally:
            torch.set_num_threads(old)


def valid_taps_max_pool(x, kernel, stride, padding, dilation, ceil_mode):
    """Max pooling over the taps inside the input (PyTorch's generic quantized kernel), on the
    integers of x: a float max pool of int_repr, whose padding is -inf (windows must have a tap)."""
    return torch.nn.functional.max_pool2d(x.int_repr().float(), kernel, stride, padding, dilation,
                                          ceil_mode=ceil_mode).to(x.int_repr().dtype)


class MaxPoolTest(unittest.TestCase):
    def check(self, x, q, r):
        self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()), (r.shape, x.dtype, x.q_scale(),
                                                                             x.q_zero_point()))
        self.assertTrue(q.is_contiguous(memory_format=torch.channels_last))
        self.assertTrue(torch.equal(q.int_repr(), r.int_repr() if r.is_quantized else r))

    def test_bytes(self):
        # PyTorch 1.13, qnnpack engine: quint8 without ceil_mode on pytorch_qnnpack (taps clamped
        # to the input, which differs from the valid taps' max when a dilated window reaches into
        # the padding), the rest on its generic kernel (a window without valid taps: the lowest
        # value; 1xW inputs have such windows). Not 1x1 inputs: there PyTorch's generic kernel
        # writes NHWC results into an NCHW output.
        seed = 300
        shapes = (((2, 5, 9, 7), "nchw"), ((2, 5, 9, 7), "channels_last"), ((2, 19, 6, 11), "channels_last"),
                  ((2, 3, 1, 2), "nchw"))
        for dtype in (torch.quint8, torch.qint8):
            for k, s, p, d, ceil_mode in itertools.product((1, 2, 3), (1, 2, 3), (0, 1), (1, 2), (False, True)):
                if p > k // 2:
                    continue
                for shape, layout in shapes:
                    seed += 1
                    x = random_input(shape, dtype, seed)
                    if layout == "channels_last":
                        x = x.contiguous(memory_format=torch.channels_last)
                    args = ([k, k], [s, s], [p, p], [d, d], ceil_mode)
                    with self.subTest(dtype=dtype, pool=args, shape=shape, layout=layout):
                        if dtype == torch.quint8 and k == 1 and not ceil_mode:
                            # pytorch_qnnpack refuses 1x1 pooling; 1x1 windows have no padding.
                            self.check(x, torch.ops.q8nn.max_pool2d(x, *args), valid_taps_max_pool(x, *args))
                            continue
                        try:
                            r = torch.nn.functional.max_pool2d(x, *args[:4], ceil_mode=ceil_mode)
                        except RuntimeError:  # an empty output: both refuse it
                            self.assertRaises(RuntimeError, torch.ops.q8nn.max_pool2d, x, *args)
                            continue
                        self.check(x, torch.ops.q8nn.max_pool2d(x, *args), r)

    def test_q8nn_operator(self):
        # Windows without dilation run q8nn's max pooling operator (ceil_mode as extra padding),
        # dilated ones the extension's own loop.
        x = random_input((1, 16, 9, 10), torch.quint8, 6)
        for args, operators in ((([3, 3], [2, 2], [1, 1], [1, 1], False), 1), (([3, 2], [2, 3], [1, 0], [1, 1], True), 1),
                                (([3, 3], [2, 2], [1, 1], [2, 1], False), 0)):
            with self.subTest(args=args):
                torch.ops.q8nn.record(True)
                try:
                    out = torch.ops.q8nn.max_pool2d(x, *args)
                finally:
                    ran = torch.ops.q8nn.record(False)
                self.assertEqual(ran, operators)
                self.check(x, out, torch.nn.functional.max_pool2d(x, *args[:4], ceil_mode=args[4]))

    def test_engines(self):
        # Dilated windows over the padding: the clamped and the valid taps' maxima differ; q8nn
        # follows the engine PyTorch is set to, as PyTorch does.
        x = random_input((1, 16, 7, 8), torch.quint8, 5)
        args = ([2, 3], [1, 2], [1, 1], [2, 2], False)
        self.assertFalse(torch.equal(torch.nn.functional.max_pool2d(x, *args[:4]).int_repr(),
                                     valid_taps_max_pool(x, *args)))
        try:
            for engine in torch.backends.quantized.supported_engines:
                if engine == "none":
                    continue
                torch.backends.quantized.engine = engine
                with self.subTest(engine=engine):
                    self.check(x, torch.ops.q8nn.max_pool2d(x, *args), torch.nn.functional.max_pool2d(x, *args[:4]))
        finally:
            torch.backends.quantized.engine = "qnnpack"

    def test_module(self):
        pools = torch.nn.Sequential(torch.nn.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d((2, 3), ceil_mode=True),
                                    torch.nn.MaxPool2d(2, return_indices=True))
        report = []
        converted = q8nn_torch.convert(pools, report=report)
        self.assertEqual([(e.kind, e.taken) for e in report], [("maxpool", True), ("maxpool", True),
                                                                ("maxpool", False)])
        self.assertIn("return_indices", report[2].reason)
        self.assertIsInstance(converted[0], q8nn_torch.MaxPool2d)
        self.assertEqual((converted[1].kernel_size, converted[1].stride), ([2, 3], [2, 3]))
        self.assertEqual(q8nn_torch.convert(pools, kinds=("conv",), report=[])[0].__class__, torch.nn.MaxPool2d)
        model, converted = pools[:2], converted[:2]
        scripted, loaded = script_and_reload(converted)
        q8nn_torch.reset_stats()
        for x in (random_input((2, 8, 17, 19), torch.quint8, 1), random_input((1, 8, 17, 19), torch.qint8, 2),
                  random_input((8, 17, 19), torch.qint8, 3),  # 3-d: PyTorch's
                  torch.randn(1, 8, 17, 19)):  # float: PyTorch's
            ref = model(x)
            for m in (converted, scripted, loaded):
                out = m(x)
                if x.is_quantized:
                    out, ref_bytes = out.int_repr(), ref.int_repr()
                else:
                    ref_bytes = ref
                self.assertTrue(torch.equal(out, ref_bytes))
        self.assertEqual(q8nn_torch.stats().calls, 2 * 2 * 3)

    def test_bad_inputs(self):
        x = random_input((1, 3, 5, 5), torch.quint8, 1)
        pool = torch.ops.q8nn.max_pool2d
        cases = [
            (lambda: pool(x.dequantize(), [2], [2], [0], [1], False), "must be a quantized tensor"),
            (lambda: pool(x[0], [2], [2], [0], [1], False), "must be 4-d"),
            (lambda: pool(x.reshape(1, 1, 3, 5, 5), [2], [2], [0], [1], False), "must be 4-d"),
            (lambda: pool(torch.quantize_per_channel(torch.randn(1, 3, 5, 5), torch.ones(3, dtype=torch.double),
                                                     torch.zeros(3, dtype=torch.long), 1, torch.quint8),
                          [2], [2], [0], [1], False), "quantized per tensor"),
            (lambda: pool(x, [3], [1], [2], [1], False), "at most half of kernel_size"),
            (lambda: pool(x, [0], [1], [0], [1], False), "kernel_size must be"),
            (lambda: pool(x, [2], [0], [0], [1], False), "stride must be"),
            (lambda: pool(x, [2], [1], [0], [0], False), "dilation must be"),
            (lambda: pool(x, [2], [1], [-1], [1], False), "padding must be >= 0"),
            (lambda: pool(x, [2, 2, 2], [1], [0], [1], False), "1 or 2 values"),
            (lambda: pool(x, [6], [1], [0], [1], False), "output would be empty"),
            (lambda: pool(x, [2 ** 40], [1], [0], [1], False), "kernel_size must be"),
        ]
        for fn, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(RuntimeError) as ctx:
                    fn()
                self.assertIn(text, str(ctx.exception))
        # No stride: the kernel size, as PyTorch's.
        self.assertEqual(pool(x, [2], [], [0], [1], False).shape, (1, 3, 2, 2))


# ---- hardswish, hardsigmoid, cat, channel shuffle ------------------------------------------------

# Scales that put many requantized values on or next to a rounding tie (where PyTorch's float
# expressions differ from one another), and ordinary ones; all float32 values, as a model's are.
NICE_SCALES = [2.0 ** -k for k in range(2, 9)] + [0.1, 0.05, 0.02, 0.01, 3 / 256, 1 / 48, 0.06, 0.015]


def random_scale(rng):
    if rng.random() < 0.6:
        return float(np.float32(rng.choice(NICE_SCALES) * rng.choice([1, 3, 5, 0.75])))
    return float(np.float32(10 ** rng.uniform(-3, -0.5)))


def all_bytes_input(shape, dtype, scale, zero_point, rng):
    """A quantized tensor of `shape` holding every byte value (shuffled), for shapes of >= 256 elements."""
    lo = 0 if dtype == torch.quint8 else -128
    n = int(np.prod(shape))
    values = np.resize(np.arange(lo, lo + 256), n)[rng.permutation(n)].reshape(shape)
    raw = torch.from_numpy(values.astype(np.int16)).to(torch.uint8 if dtype == torch.quint8 else torch.int8)
    return torch._make_per_tensor_quantized_tensor(raw, scale, zero_point)


def unary_references(name, dtype, scale, zero_point, out_scale, out_zero_point):
    """The three float forms of PyTorch 1.13's quantized hardswish / hardsigmoid on all 256 bytes
    (README.md, "Numerics"): pytorch_qnnpack's table, the generic kernel's vectorized body and its
    scalar remainder, as int arrays indexed by value - lowest."""
    f32 = np.float32
    lo, hi = (0, 255) if dtype == torch.quint8 else (-128, 127)
    q = np.arange(lo, hi + 1).astype(f32)
    s, os_ = f32(scale), f32(out_scale)

    def f(x):
        r6 = np.minimum(np.maximum(x + f32(3), f32(0)), f32(6))
        return x * r6 / f32(6) if name == "hardswish" else r6 / f32(6)
    inverse = f32(1) / os_
    qnnpack = np.clip(np.rint(f(s * (q - f32(zero_point))) * inverse + f32(out_zero_point)), lo, hi)
    # fmaf(s, q, s * -zp): the product and the sum exact in double, one rounding to float (the
    # product of a float and a byte is exact in double and the sum needs at most 54 bits here).
    body_x = (q.astype(np.float64) * np.float64(s) + np.float64(s * -f32(zero_point))).astype(f32)
    body = np.clip(np.rint(f(body_x) * inverse) + out_zero_point, lo, hi)
    rest = np.clip(out_zero_point + np.rint(f((q - f32(zero_point)) * s) * inverse), lo, hi)
    return qnnpack.astype(np.int64), body.astype(np.int64), rest.astype(np.int64)


class AdaptiveAvgPoolTest(unittest.TestCase):
    def check(self, x, q, r):
        self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()),
                         (r.shape, r.dtype, r.q_scale(), r.q_zero_point()))
        self.assertEqual(q.stride(), r.stride())
        self.assertTrue(torch.equal(q.int_repr(), r.int_repr()))

    def test_bytes(self):
        # Both engines, both dtypes, both layouts, output sizes that divide the input (pytorch_qnnpack
        # for quint8 on the qnnpack engine: ties of the float average round to even there), that do
        # not (PyTorch's generic kernel) and that equal it.
        seed = 700
        shapes = ((2, 5, 8, 12), (1, 40, 28, 28), (1, 19, 7, 7), (3, 70, 16, 4), (1, 3, 1, 1))
        sizes = ([1, 1], [2, 2], [4, 3], [3, 5], [7, 7], [8, 12], [1, 4])
        try:
            for engine in ("qnnpack", "onednn"):
                if engine not in torch.backends.quantized.supported_engines:
                    continue
                torch.backends.quantized.engine = engine
                for dtype, shape, size, layout in itertools.product((torch.quint8, torch.qint8), shapes, sizes,
                                                                    ("nchw", "channels_last")):
                    seed += 1
                    # scale 1/16 and a uniform input: many window sums on a tie of the average
                    x = random_input(shape, dtype, seed, scale=0.0625 if seed % 2 else 0.07)
                    if layout == "channels_last":
                        x = x.contiguous(memory_format=torch.channels_last)
                    with self.subTest(engine=engine, dtype=dtype, shape=shape, size=size, layout=layout):
                        self.check(x, torch.ops.q8nn.adaptive_avg_pool2d(x, size),
                                   torch.nn.functional.adaptive_avg_pool2d(x, size))
        finally:
            torch.backends.quantized.engine = "qnnpack"

    def test_q8nn_operator(self):
        # Where pytorch_qnnpack runs, the q8nn operator runs; elsewhere PyTorch's kernel.
        for dtype, shape, size, operators in ((torch.quint8, (1, 16, 14, 14), [1, 1], 1),
                                              (torch.quint8, (1, 16, 14, 14), [7, 2], 1),
                                              (torch.quint8, (1, 16, 14, 14), [3, 3], 0),
                                              (torch.quint8, (1, 16, 14, 14), [14, 14], 0),
                                              (torch.qint8, (1, 16, 14, 14), [1, 1], 0)):
            x = random_input(shape, dtype, 9)
            with self.subTest(dtype=dtype, size=size):
                q8nn_torch.reset_stats()
                torch.ops.q8nn.record(True)
                try:
                    out = torch.ops.q8nn.adaptive_avg_pool2d(x, size)
                finally:
                    ran = torch.ops.q8nn.record(False)
                self.assertEqual(ran, operators)
                self.assertEqual(q8nn_torch.stats().pytorch_calls, 1 - operators)
                self.check(x, out, torch.nn.functional.adaptive_avg_pool2d(x, size))

    def test_module(self):
        pools = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d((4, 2)), torch.nn.AdaptiveAvgPool2d(1),
                                    torch.nn.AdaptiveAvgPool2d((None, 1)))
        report = []
        converted = q8nn_torch.convert(pools, report=report)
        self.assertEqual([(e.kind, e.taken) for e in report], [("avgpool", True), ("avgpool", True),
                                                                ("avgpool", False)])
        self.assertIn("None", report[2].reason)
        self.assertIsInstance(converted[1], q8nn_torch.AdaptiveAvgPool2d)
        self.assertEqual(converted[1].output_size, [1, 1])
        self.assertIs(type(q8nn_torch.convert(pools, kinds=("conv",), report=[])[0]), torch.nn.AdaptiveAvgPool2d)
        model, converted = pools[:2], converted[:2]
        scripted, loaded = script_and_reload(converted)
        for x in (random_input((2, 8, 16, 12), torch.quint8, 1), random_input((1, 8, 16, 12), torch.qint8, 2),
                  random_input((8, 16, 12), torch.qint8, 3),  # 3-d: PyTorch's (its qnnpack path refuses quint8)
                  torch.randn(1, 8, 16, 12)):  # float: PyTorch's
            ref = model(x)
            for m in (converted, scripted, loaded):
                out = m(x)
                if x.is_quantized:
                    self.check(x, out, ref)
                else:
                    self.assertTrue(torch.equal(out, ref))

    def test_bad_inputs(self):
        x = random_input((1, 3, 6, 6), torch.quint8, 1)
        pool = torch.ops.q8nn.adaptive_avg_pool2d
        cases = [
            (lambda: pool(x.dequantize(), [1, 1]), "must be a quantized tensor"),
            (lambda: pool(x, [1]), "output_size must have 2 values"),
            (lambda: pool(x, [0, 1]), "must be positive"),
            (lambda: pool(torch.quantize_per_channel(torch.randn(1, 3, 6, 6), torch.ones(3) * 0.1,
                                                     torch.zeros(3, dtype=torch.long), 1, torch.quint8), [1, 1]),
             "per tensor"),
        ]
        for call, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(RuntimeError, message):
                    call()


class ElementwiseTest(unittest.TestCase):
    SHAPES = ((256,), (1000,), (3, 77, 2), (2, 5, 7, 9), (2, 5, 7, 9, "channels_last"))

    def run_sweep(self, name, trials):
        rng = np.random.default_rng(11 if name == "hardswish" else 12)
        packed = (torch.ops.q8nn.hardswish_prepack() if name == "hardswish" else torch.ops.q8nn.hardsigmoid_prepack())
        try:
            for engine in ("qnnpack", "onednn"):
                torch.backends.quantized.engine = engine
                for dtype in (torch.quint8, torch.qint8):
                    lo = 0 if dtype == torch.quint8 else -128
                    q8nn_torch.reset_stats()
                    for t in range(trials):
                        scale, out_scale = random_scale(rng), random_scale(rng)
                        zp, out_zp = (int(v) for v in rng.integers(lo, lo + 256, 2))
                        shape = self.SHAPES[t % len(self.SHAPES)]
                        x = all_bytes_input([d for d in shape if d != "channels_last"], dtype, scale, zp, rng)
                        if "channels_last" in shape:
                            x = x.contiguous(memory_format=torch.channels_last)
                        if name == "hardswish":
                            r = torch.ops.quantized.hardswish(x, out_scale, out_zp)
                            q = torch.ops.q8nn.hardswish(x, packed, out_scale, out_zp)
                        else:
                            r = torch.nn.functional.hardsigmoid(x)
                            q = torch.ops.q8nn.hardsigmoid(x, packed)
                        with self.subTest(engine=engine, dtype=dtype, quantization=(scale, zp, out_scale, out_zp)):
                            self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point(), q.stride()),
                                             (r.shape, r.dtype, r.q_scale(), r.q_zero_point(), r.stride()))
                            self.assertTrue(torch.equal(q.int_repr(), r.int_repr()))
                    stats = q8nn_torch.stats()
                    self.assertEqual(stats.calls, trials)
                    if engine == "qnnpack" and dtype == torch.quint8:
                        self.assertEqual(stats.pytorch_calls, 0)  # one table: always q8nn
                    else:
                        # PyTorch's generic kernel: the quantizations where its vectorized body and
                        # its scalar remainder disagree on some byte run PyTorch's op.
                        self.assertLess(stats.pytorch_calls, trials // 5)
        finally:
            torch.backends.quantized.engine = "qnnpack"

    def test_hardswish(self):
        self.run_sweep("hardswish", 150)

    def test_hardsigmoid(self):
        self.run_sweep("hardsigmoid", 100)

    def test_references_match_pytorch(self):
        # The arithmetic README.md states, on all 256 bytes: pytorch_qnnpack's table adds the output
        # zero point in float before rounding, which q8nn_unary_hardswish's fp32 form (lrintf(f(x) /
        # output_scale) + zero point) does not; the generic kernel's body and remainder differ in
        # their dequantization (fused multiply-add or not).
        rng = np.random.default_rng(13)
        differ = {"qnnpack/q8nn_unary": 0, "body/rest": 0}
        try:
            for engine, dtype in (("qnnpack", torch.quint8), ("qnnpack", torch.qint8), ("onednn", torch.quint8)):
                torch.backends.quantized.engine = engine
                lo = 0 if dtype == torch.quint8 else -128
                for t in range(120):
                    scale, out_scale = random_scale(rng), random_scale(rng)
                    zp, out_zp = (int(v) for v in rng.integers(lo, lo + 256, 2))
                    x = all_bytes_input((256,), dtype, scale, zp, rng)
                    order = x.int_repr().numpy().astype(np.int64) - lo
                    r = torch.ops.quantized.hardswish(x, out_scale, out_zp).int_repr().numpy()
                    qnnpack, body, rest = unary_references("hardswish", dtype, scale, zp, out_scale, out_zp)
                    if engine == "qnnpack" and dtype == torch.quint8:
                        self.assertTrue(np.array_equal(r, qnnpack[order]))
                        f32 = np.float32
                        v = f32(scale) * (np.arange(256).astype(f32) - f32(zp))
                        fp32 = np.clip(np.rint(v * np.minimum(np.maximum(v + f32(3), f32(0)), f32(6)) / f32(6)
                                               / f32(out_scale)) + out_zp, 0, 255)
                        differ["qnnpack/q8nn_unary"] += not np.array_equal(fp32, qnnpack)
                    else:
                        # 256 elements: all in the vectorized body
                        self.assertTrue(np.array_equal(r, body[order]))
                        one = [torch.ops.quantized.hardswish(x[i:i + 1], out_scale, out_zp).int_repr().item()
                               for i in range(0, 256, 17)]
                        self.assertEqual(one, rest[order[0:256:17]].tolist())
                        differ["body/rest"] += not np.array_equal(body, rest)
        finally:
            torch.backends.quantized.engine = "qnnpack"
        self.assertGreater(differ["qnnpack/q8nn_unary"], 0)
        self.assertGreater(differ["body/rest"], 0)

    def test_modules(self):
        seq = torch.nn.Sequential(nnq.Hardswish(0.05, 10), torch.nn.Hardsigmoid(), torch.nn.Hardsigmoid(inplace=True))
        report = []
        converted = q8nn_torch.convert(seq, report=report)
        self.assertEqual([(e.kind, e.taken) for e in report],
                         [("hardswish", True), ("hardsigmoid", True), ("hardsigmoid", False)])
        self.assertIn("inplace", report[2].reason)
        self.assertIsInstance(converted[0], q8nn_torch.Hardswish)
        self.assertIsInstance(converted[1], q8nn_torch.Hardsigmoid)
        model, converted = seq[:2], converted[:2]
        scripted, loaded = script_and_reload(converted)
        for dtype in (torch.quint8, torch.qint8):
            x = random_input((2, 8, 5, 6), dtype, 4, scale=0.03)
            ref = model(x)
            for m in (converted, scripted, loaded):
                out = m(x)
                self.assertEqual((out.q_scale(), out.q_zero_point()), (ref.q_scale(), ref.q_zero_point()))
                self.assertTrue(torch.equal(out.int_repr(), ref.int_repr()))
        x = torch.randn(3, 4)
        self.assertTrue(torch.equal(converted[1](x), torch.nn.functional.hardsigmoid(x)))  # float: PyTorch's

    def test_bad_inputs(self):
        hs, hsig = torch.ops.q8nn.hardswish_prepack(), torch.ops.q8nn.hardsigmoid_prepack()
        x = random_input((2, 3), torch.quint8, 1)
        cases = [
            (lambda: torch.ops.q8nn.hardswish(x.dequantize(), hs, 0.1, 0), "must be a quantized tensor"),
            (lambda: torch.ops.q8nn.hardswish(x, hs, 0.1, 300), "output_zero_point 300"),
            (lambda: torch.ops.q8nn.hardswish(x, hs, -1.0, 0), "output_scale"),
            (lambda: torch.ops.q8nn.hardswish(x, hsig, 0.1, 0), "not a hardswish"),
            (lambda: torch.ops.q8nn.hardsigmoid(x, hs), "not a hardsigmoid"),
            (lambda: torch.ops.q8nn.hardsigmoid(torch.quantize_per_tensor(torch.randn(3), 0.1, 0, torch.qint32), hsig),
             "must be torch.quint8 or torch.qint8"),
        ]
        for fn, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(RuntimeError) as ctx:
                    fn()
                self.assertIn(text, str(ctx.exception))


def make_cat_inputs(rng, dtype, rank, dim, count, layout):
    lo = 0 if dtype == torch.quint8 else -128
    shape = [int(v) for v in rng.integers(1, 5, rank)]
    xs = []
    for i in range(count):
        sizes = list(shape)
        # 1 to 40 along the axis (channels: the vectorized and the scalar channels of PyTorch's NHWC
        # cat); a later input may be empty along it.
        sizes[dim] = int(rng.integers(0 if i else 1, 41))
        if rng.random() < 0.3:
            scale, zp = None, None  # the output's quantization: copied
        else:
            scale, zp = random_scale(rng), int(rng.integers(lo, lo + 256))
        xs.append((sizes, scale, zp))
    out_scale, out_zp = random_scale(rng), int(rng.integers(lo, lo + 256))
    tensors = []
    for i, (sizes, scale, zp) in enumerate(xs):
        raw = torch.from_numpy(rng.integers(lo, lo + 256, sizes).astype(np.int16))
        x = torch._make_per_tensor_quantized_tensor(raw.to(torch.uint8 if dtype == torch.quint8 else torch.int8),
                                                    out_scale if scale is None else scale,
                                                    out_zp if zp is None else zp)
        if rank == 4 and (layout == "channels_last" or (layout == "mixed" and i % 2 == 0)):
            x = x.contiguous(memory_format=torch.channels_last)
        if layout == "strided":
            x = torch.cat([x, x], rank - 1)[..., ::2]
        tensors.append(x)
    return tensors, out_scale, out_zp


class MulNet(torch.nn.Module):
    """A QFunctional's mul as a forward."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x, y):
        return self.f.mul(x, y)


class MulTest(unittest.TestCase):
    def check(self, a, b, scale, zero_point, relu, packed):
        q8nn_mul = torch.ops.q8nn.mul_relu if relu else torch.ops.q8nn.mul
        try:
            r = (torch.ops.quantized.mul_relu if relu else torch.ops.quantized.mul)(a, b, scale, zero_point)
        except RuntimeError:  # PyTorch's XNNPACK path refuses some qint8 broadcasts: so does q8nn::mul
            self.assertRaises(RuntimeError, q8nn_mul, a, b, packed, scale, zero_point)
            return False
        q = q8nn_mul(a, b, packed, scale, zero_point)
        self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()),
                         (r.shape, r.dtype, r.q_scale(), r.q_zero_point()))
        self.assertEqual(q.stride(), r.stride())
        self.assertTrue(torch.equal(q.int_repr(), r.int_repr()))
        return True

    def test_bytes(self):
        # Squeeze-excitation shapes (a scale per channel times an image, either order), dense,
        # channels-last, per-row and scalar-like broadcasts, both engines, both dtypes (qint8:
        # XNNPACK's arithmetic, as PyTorch), with and without the fused ReLU; quint8 operands of
        # different ranks go to PyTorch's kernel.
        rng = np.random.default_rng(31)
        packed = torch.ops.q8nn.mul_prepack()
        pairs = (((2, 16, 7, 7), (2, 16, 1, 1)), ((1, 40, 28, 28), (1, 40, 1, 1)), ((1, 8, 5, 6), (1, 8, 5, 6)),
                 ((3, 1, 1, 1), (3, 4, 9, 2)), ((2, 5, 6), (1, 5, 1)), ((7, 300), (7, 1)), ((1, 1, 1, 1), (2, 3, 4, 5)),
                 ((2, 3, 4, 5), (4, 5)))
        try:
            for engine in ("qnnpack", "onednn"):
                if engine not in torch.backends.quantized.supported_engines:
                    continue
                torch.backends.quantized.engine = engine
                for dtype in (torch.quint8, torch.qint8):
                    lo = 0 if dtype == torch.quint8 else -128
                    q8nn_torch.reset_stats()
                    to_pytorch = 0
                    for i, (sa, sb) in enumerate(pairs):
                        for layout in ("nchw", "channels_last"):
                            if layout == "channels_last" and len(sa) != 4:
                                continue
                            a = all_bytes_input(sa, dtype, random_scale(rng), int(rng.integers(lo, lo + 256)), rng)
                            b = all_bytes_input(sb, dtype, random_scale(rng), int(rng.integers(lo, lo + 256)), rng)
                            if layout == "channels_last":
                                a = a.contiguous(memory_format=torch.channels_last)
                                b = b.contiguous(memory_format=torch.channels_last) if len(sb) == 4 else b
                            relu = bool(rng.integers(0, 2))
                            scale, zp = random_scale(rng) * 0.1, int(rng.integers(lo, lo + 256))
                            with self.subTest(engine=engine, dtype=dtype, shapes=(sa, sb), layout=layout, relu=relu):
                                for x, y in ((a, b), (b, a)):
                                    ran = self.check(x, y, scale, zp, relu, packed)
                                    to_pytorch += ran and len(sa) != len(sb) and dtype == torch.quint8
                    # only quint8 operands of different ranks take PyTorch's kernel
                    self.assertEqual(q8nn_torch.stats().pytorch_calls, to_pytorch)
        finally:
            torch.backends.quantized.engine = "qnnpack"

    def test_arithmetics(self):
        # Scales where PyTorch's two float multipliers, (a * b) * (1 / out) (its qmul kernel: quint8,
        # and qint8 with output zero point 127) and (a * b) / out (XNNPACK: other qint8), give
        # different bytes on the 65536 input pairs: q8nn gives each case PyTorch's bytes.
        rng = np.random.default_rng(41)
        packed = torch.ops.q8nn.mul_prepack()
        f32 = np.float32
        for dtype, zo in ((torch.quint8, 100), (torch.qint8, -3), (torch.qint8, 127)):
            lo = 0 if dtype == torch.quint8 else -128
            za, zb = lo + 40, lo + 200
            codes = torch.arange(256) + lo
            storage = torch.uint8 if lo == 0 else torch.int8
            a_codes, b_codes = codes.repeat(256, 1), codes.reshape(256, 1).repeat(1, 256)
            product = ((a_codes - za) * (b_codes - zb)).numpy().astype(np.float32)
            found = 0
            while found < 4:
                sa, sb = f32(rng.uniform(0.001, 0.3)), f32(rng.uniform(0.001, 0.3))
                so = f32(sa * sb / f32(rng.uniform(0.003, 0.01)))
                generic = np.clip(np.rint(product * (f32(sa * sb) * (f32(1) / so))) + zo, lo, lo + 255)
                xnnpack = np.clip(np.rint(product * (f32(sa * sb) / so)) + zo, lo, lo + 255)
                if (generic == xnnpack).all():
                    continue
                found += 1
                a = torch._make_per_tensor_quantized_tensor(a_codes.to(storage), float(sa), za)
                b = torch._make_per_tensor_quantized_tensor(b_codes.to(storage), float(sb), zb)
                with self.subTest(dtype=dtype, zero_point=zo, scales=(sa, sb, so)):
                    self.check(a, b, float(so), zo, False, packed)

    def test_module(self):
        ref = nnq.QFunctional()
        ref.scale, ref.zero_point = 0.02, 7
        mod = q8nn_torch.QFunctional.from_quantized(ref)
        a = random_input((2, 16, 7, 7), torch.quint8, 1, scale=0.05, zero_point=90)
        s = random_input((2, 16, 1, 1), torch.quint8, 2, scale=0.004, zero_point=0)
        _, loaded = script_and_reload(MulNet(mod))
        q8nn_torch.reset_stats()
        for m in (MulNet(mod), loaded):
            self.assertTrue(torch.equal(m(s, a).int_repr(), ref.mul(s, a).int_repr()))
        self.assertEqual((q8nn_torch.stats().calls, q8nn_torch.stats().pytorch_calls), (2, 0))
        without = q8nn_torch.QFunctional.from_quantized(ref, with_mul=False)
        self.assertTrue(torch.equal(without.mul(s, a).int_repr(), ref.mul(s, a).int_repr()))
        self.assertEqual(q8nn_torch.stats().calls, 2)
        seq = torch.nn.Sequential(nnq.QFunctional())
        report = []
        converted = q8nn_torch.convert(seq, kinds=("mul",), report=report)
        self.assertEqual([(e.kind, e.taken) for e in report], [("mul", True)])
        self.assertEqual((converted[0].with_add, converted[0].with_cat, converted[0].with_mul), (False, False, True))

    def test_bad_inputs(self):
        packed = torch.ops.q8nn.mul_prepack()
        a = random_input((1, 3, 4, 4), torch.quint8, 1)
        cases = [
            (lambda: torch.ops.q8nn.mul(a, a.dequantize(), packed, 0.1, 0), "must be a quantized tensor"),
            (lambda: torch.ops.q8nn.mul(a, random_input((1, 3, 4, 4), torch.qint8, 2), packed, 0.1, 0),
             "same dtype"),
            (lambda: torch.ops.q8nn.mul(a, a, packed, -1.0, 0), "output_scale"),
            (lambda: torch.ops.q8nn.mul(a, random_input((1, 3, 4, 5), torch.quint8, 2), packed, 0.1, 0), "size"),
        ]
        for call, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(RuntimeError, message):
                    call()


class CatNet(torch.nn.Module):
    """A QFunctional's cat as a forward (TorchScript compiles what forward calls)."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, xs: List[torch.Tensor], dim: int):
        return self.f.cat(xs, dim=dim)


class CatTest(unittest.TestCase):
    def check(self, xs, dim, scale, zero_point, packed):
        r = torch.ops.quantized.cat(xs, dim=dim, scale=scale, zero_point=zero_point)
        q = torch.ops.q8nn.cat(xs, dim, packed, scale, zero_point)
        self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()), (r.shape, r.dtype, r.q_scale(),
                                                                             r.q_zero_point()))
        self.assertTrue(torch.equal(q.int_repr(), r.int_repr()))
        # The memory format: channels-last when every input is, contiguous when every input is.
        cl = [x.dim() == 4 and x.is_contiguous(memory_format=torch.channels_last) for x in xs]
        nchw = [x.is_contiguous() for x in xs]
        if all(c and not n for c, n in zip(cl, nchw)):
            self.assertTrue(q.is_contiguous(memory_format=torch.channels_last))
        elif all(n and not c for c, n in zip(cl, nchw)):
            self.assertTrue(q.is_contiguous())

    def test_bytes(self):
        rng = np.random.default_rng(21)
        packed = torch.ops.q8nn.cat_prepack()
        for dtype in (torch.quint8, torch.qint8):
            q8nn_torch.reset_stats()
            trials = 0
            for rank in (1, 2, 3, 4):
                for dim in range(-rank, rank):
                    layouts = ("contiguous", "channels_last", "mixed", "strided") if rank == 4 else ("contiguous", "strided")
                    for layout in layouts:
                        for count in (1, 2, 3):
                            xs, scale, zp = make_cat_inputs(rng, dtype, rank, dim, count, layout)
                            with self.subTest(dtype=dtype, dim=dim, layout=layout, shapes=[tuple(x.shape) for x in xs]):
                                self.check(xs, dim, scale, zp, packed)
                            trials += 1
            stats = q8nn_torch.stats()
            self.assertEqual(stats.calls, trials)
            self.assertLess(stats.pytorch_calls, trials // 10)

    def test_nhwc_fast_path(self):
        # PyTorch's NHWC cat (dim 1, channels-last inputs) dequantizes its vectorized channels with a
        # fused multiply-add and 1.0 / scale in double: where that disagrees with its scalar channels
        # (q8nn's arithmetic) on some byte, the op hands the cat to PyTorch; the bytes are equal
        # either way, and most quantizations run on q8nn.
        rng = np.random.default_rng(22)
        packed = torch.ops.q8nn.cat_prepack()
        for dtype in (torch.quint8, torch.qint8):
            lo = 0 if dtype == torch.quint8 else -128
            q8nn_torch.reset_stats()
            trials = 150
            for t in range(trials):
                xs = []
                for i in range(2):
                    channels = int(rng.choice([3, 8, 16, 40, 64]))
                    x = all_bytes_input((2, channels, 16, 1), dtype, random_scale(rng), int(rng.integers(lo, lo + 256)), rng)
                    xs.append(x.contiguous(memory_format=torch.channels_last))
                scale, zp = random_scale(rng), int(rng.integers(lo, lo + 256))
                with self.subTest(dtype=dtype, trial=t):
                    self.check(xs, 1, scale, zp, packed)
            stats = q8nn_torch.stats()
            self.assertGreater(stats.pytorch_calls, 0)
            self.assertLess(stats.pytorch_calls, trials // 4)

    def test_module(self):
        ref = nnq.QFunctional()
        ref.scale, ref.zero_point = 0.04, 100
        mod = q8nn_torch.QFunctional.from_quantized(ref)
        pytorch_cat = q8nn_torch.QFunctional.from_quantized(ref, with_cat=False)
        a = random_input((2, 3, 4, 5), torch.quint8, 1, scale=0.05, zero_point=90)
        b = random_input((2, 6, 4, 5), torch.quint8, 2, scale=0.03, zero_point=130)
        scripted = torch.jit.script(CatNet(mod))
        q8nn_torch.reset_stats()
        for m in (CatNet(mod), scripted):
            for dim, xs in ((1, [a, b]), (0, [a, a]), (-1, [a, a])):
                self.assertTrue(torch.equal(m(xs, dim).int_repr(), ref.cat(xs, dim=dim).int_repr()))
        self.assertEqual(q8nn_torch.stats().calls, 6)
        self.assertTrue(torch.equal(pytorch_cat.cat([a, b], dim=1).int_repr(), ref.cat([a, b], dim=1).int_repr()))
        self.assertEqual(q8nn_torch.stats().calls, 6)
        # kinds: "cat" alone swaps a QFunctional for its cat (reported as "cat"), "add" alone leaves cat to PyTorch
        seq = torch.nn.Sequential(nnq.QFunctional())
        report = []
        converted = q8nn_torch.convert(seq, kinds=("cat",), report=report)
        self.assertEqual([(e.kind, e.taken) for e in report], [("cat", True)])
        self.assertEqual((converted[0].with_add, converted[0].with_cat), (False, True))
        self.assertEqual(q8nn_torch.convert(seq, kinds=("add",))[0].with_cat, False)
        self.assertEqual(q8nn_torch.convert(seq, kinds=("conv",))[0].__class__, nnq.QFunctional)

    def test_bad_inputs(self):
        packed = torch.ops.q8nn.cat_prepack()
        a = random_input((1, 2, 3, 3), torch.quint8, 1)
        cases = [
            (lambda: torch.ops.q8nn.cat([], 1, packed, 0.1, 0), "non-empty list"),
            (lambda: torch.ops.q8nn.cat([a, a.dequantize()], 1, packed, 0.1, 0), "must be a quantized tensor"),
            (lambda: torch.ops.q8nn.cat([a, random_input((1, 2, 3, 3), torch.qint8, 1)], 1, packed, 0.1, 0),
             "same dtype"),
            (lambda: torch.ops.q8nn.cat([a, a[:, :, :2]], 1, packed, 0.1, 0), "must match except in dimension 1"),
            (lambda: torch.ops.q8nn.cat([a, a[0]], 1, packed, 0.1, 0), "has 3 dimensions"),
            (lambda: torch.ops.q8nn.cat([a, a], 4, packed, 0.1, 0), "Dimension out of range"),
            (lambda: torch.ops.q8nn.cat([a, a], 1, packed, 0.1, 256), "output_zero_point 256"),
        ]
        for fn, text in cases:
            with self.subTest(text=text):
                with self.assertRaises((RuntimeError, IndexError)) as ctx:
                    fn()
                self.assertIn(text, str(ctx.exception))


class ChannelShuffleTest(unittest.TestCase):
    def test_bytes(self):
        import torchvision.models.shufflenetv2 as shufflenetv2
        seed = 400
        for groups in (1, 2, 3, 4, 8):
            packed = torch.ops.q8nn.channel_shuffle_prepack(groups)
            for group_channels in (1, 2, 5, 24):
                for shape in ((1, 3, 5), (2, 1, 1), (3, 4, 4)):
                    for dtype in (torch.quint8, torch.qint8):
                        seed += 1
                        x = random_input((shape[0], groups * group_channels) + shape[1:], dtype, seed)
                        for layout, t in (("nchw", x), ("channels_last", x.contiguous(memory_format=torch.channels_last)),
                                          ("strided", torch.cat([x, x], 3)[..., ::2])):
                            with self.subTest(groups=groups, shape=tuple(t.shape), dtype=dtype, layout=layout):
                                q = torch.ops.q8nn.channel_shuffle(t, packed)
                                # PyTorch's channel_shuffle takes quint8 only (pytorch_qnnpack);
                                # torchvision's (view, transpose, contiguous) any dtype.
                                r = (torch.channel_shuffle(t, groups) if dtype == torch.quint8
                                     else shufflenetv2.channel_shuffle(t, groups))
                                self.assertEqual((q.shape, q.dtype, q.q_scale(), q.q_zero_point()),
                                                 (r.shape, r.dtype, r.q_scale(), r.q_zero_point()))
                                # a contiguous NCHW input keeps its layout (whole planes moved), others
                                # come out channels-last (q8nn's channel shuffle on pixels)
                                self.assertTrue(q.is_contiguous() if layout == "nchw"
                                                else q.is_contiguous(memory_format=torch.channels_last))
                                self.assertTrue(torch.equal(q.int_repr(), r.int_repr()))

    def test_module(self):
        seq = torch.nn.Sequential(torch.nn.ChannelShuffle(4))
        report = []
        converted = q8nn_torch.convert(seq, report=report)
        self.assertEqual([(e.kind, e.taken) for e in report], [("shuffle", True)])
        self.assertIsInstance(converted[0], q8nn_torch.ChannelShuffle)
        scripted = torch.jit.script(converted)
        for x in (random_input((2, 12, 3, 3), torch.quint8, 1), torch.randn(2, 12, 3, 3)):
            ref = seq(x)
            for m in (converted, scripted):
                out = m(x)
                self.assertTrue(torch.equal(out.int_repr(), ref.int_repr()) if x.is_quantized else torch.equal(out, ref))

    def test_bad_inputs(self):
        packed = torch.ops.q8nn.channel_shuffle_prepack(3)
        cases = [
            (lambda: torch.ops.q8nn.channel_shuffle(random_input((1, 4, 2, 2), torch.quint8, 1), packed),
             "4 channels do not split into 3 groups"),
            (lambda: torch.ops.q8nn.channel_shuffle(random_input((6, 2, 2), torch.quint8, 1), packed), "must be 4-d"),
            (lambda: torch.ops.q8nn.channel_shuffle(torch.randn(1, 6, 2, 2), packed), "must be a quantized tensor"),
            (lambda: torch.ops.q8nn.channel_shuffle_prepack(0), "groups must be >= 1"),
        ]
        for fn, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(RuntimeError) as ctx:
                    fn()
                self.assertIn(text, str(ctx.exception))


def pytorch_qnnpack_add(a, b, a_scale, a_zero_point, b_scale, b_zero_point, scale, zero_point, relu):
    """PyTorch 1.13's quint8 add on the qnnpack engine (pytorch_qnnp_create_add_nc_q8,
    pytorch_qnnp_compute_add_quantization_params, q8vadd) on uint8 arrays, the definition
    Q8NN_FLAG_QNNPACK_ADD follows."""
    f32 = np.float32
    ra, rb = f32(f32(a_scale) / f32(scale)), f32(f32(b_scale) / f32(scale))  # each in [2^-14, 2^8)
    exponent = ((struct.unpack("<I", struct.pack("<f", max(ra, rb)))[0] >> 23) & 0xFF) - 127
    # In [14, 31] when the larger ratio is >= 2^-10; PyTorch also accepts [2^-14, 2^-10), where its C
    # shifts by 32..35 (undefined; not reproduced here). The larger multiplier is in [2^21, 2^22].
    shift = 21 - exponent
    a_multiplier = int(np.rint(f32(ra * f32(2.0 ** shift))))  # lrintf: ties to even
    b_multiplier = int(np.rint(f32(rb * f32(2.0 ** shift))))
    acc = (a.astype(np.int64) * a_multiplier + b.astype(np.int64) * b_multiplier
           - (a_multiplier * a_zero_point + b_multiplier * b_zero_point))  # fits int32
    mask = (1 << shift) - 1
    remainder = (acc & mask) - (acc < 0)
    out = (acc >> shift) + (remainder > (mask >> 1))  # to nearest, ties away from zero
    return np.clip(out + zero_point, zero_point if relu else 0, 255)


class Quint8AddArithmeticTest(unittest.TestCase):
    def test_reference_matches_pytorch(self):
        rng = np.random.default_rng(0)
        trials = 0
        while trials < 100:
            a_scale, b_scale, scale = (float(10 ** rng.uniform(-3, 0)) for _ in range(3))
            ratios = (a_scale / scale, b_scale / scale)
            if not (all(2 ** -14 <= r < 2 ** 8 for r in ratios) and max(ratios) >= 2 ** -10):
                continue
            # pytorch_qnnpack refuses output_min == output_max (add_relu with zero point 255).
            a_zp, b_zp, zp = (int(v) for v in rng.integers(0, 255, 3))
            relu = bool(rng.integers(0, 2))
            a = torch.quantize_per_tensor(torch.randn(1, 8, 9, 7) * 3, a_scale, a_zp, torch.quint8)
            b = torch.quantize_per_tensor(torch.randn(1, 8, 9, 7) * 3, b_scale, b_zp, torch.quint8)
            ref = (torch.ops.quantized.add_relu if relu else torch.ops.quantized.add)(a, b, scale, zp)
            out = pytorch_qnnpack_add(a.int_repr().numpy(), b.int_repr().numpy(), a_scale, a_zp, b_scale, b_zp,
                                      scale, zp, relu)
            self.assertTrue(np.array_equal(ref.int_repr().numpy(), out), (a_scale, b_scale, scale, a_zp, b_zp, zp))
            trials += 1


class FastPathTest(unittest.TestCase):
    """The modules' eager path (_q8nn_fast.call) against torch.ops.q8nn: same operator, same bytes and
    quantization, same errors."""

    def test_loaded_where_built(self):
        directory = os.path.dirname(os.path.abspath(q8nn_torch.load()))
        built = any(n.startswith("_q8nn_fast") and n.endswith(".so") for n in os.listdir(directory))
        self.assertEqual(q8nn_torch.fast_path(), built and os.environ.get("Q8NN_TORCH_FAST", "1") != "0")

    def assertSameTensor(self, a, b):
        self.assertEqual((a.shape, a.dtype, a.q_scale(), a.q_zero_point()), (b.shape, b.dtype, b.q_scale(), b.q_zero_point()))
        self.assertEqual(a.stride(), b.stride())
        self.assertTrue(torch.equal(a.int_repr(), b.int_repr()))

    def test_every_op_as_torch_ops(self):
        conv = q8nn_torch.Conv2d.from_quantized(_conv_reference())
        lin = nnq.Linear(6, 3)
        lin.set_weight_bias(random_qweight(3, 6, 1, 1, True, 3).reshape(3, 6), torch.randn(3))
        linear = q8nn_torch.Linear.from_quantized(lin)
        add = q8nn_torch.QFunctional(0.1, 3)
        hs, hsig, shuffle = q8nn_torch.Hardswish(0.05, 7), q8nn_torch.Hardsigmoid(), q8nn_torch.ChannelShuffle(2)
        mul_packed = torch.ops.q8nn.mul_prepack()
        for dtype in (torch.quint8, torch.qint8):
            x = random_input((2, 4, 7, 6), dtype, 11)
            y = random_input((2, 4, 7, 6), dtype, 12, scale=0.05)
            v = random_input((5, 6), dtype, 13)
            calls = [
                ("conv2d", (x, conv._packed, 0.2, 1)), ("conv2d_relu", (x, conv._packed, 0.2, 1)),
                ("linear", (v, linear._packed, 0.3, 2)), ("linear_relu", (v, linear._packed, 0.3, 2)),
                ("add", (x, y, add._packed, 0.1, 3)), ("add_relu", (x, y, add._packed, 0.1, 3)),
                ("cat", ([x, y], 1, add._cat_packed, 0.1, 3)),
                ("max_pool2d", (x, [3, 3], [2, 2], [1, 1], [1, 1], False)),
                ("adaptive_avg_pool2d", (x, [1, 1])), ("adaptive_avg_pool2d", (x, [7, 3])),
                ("mul", (x, y, mul_packed, 0.01, 3)), ("mul_relu", (x, y[:, :, :1, :1], mul_packed, 0.01, 3)),
                ("hardswish", (x, hs._packed, 0.05, 7)), ("hardsigmoid", (x, hsig._packed)),
                ("channel_shuffle", (x, shuffle._packed)),
            ]
            for name, args in calls:
                with self.subTest(op=name, dtype=dtype):
                    self.assertSameTensor(getattr(q8nn_torch._eager, name)(*args), getattr(torch.ops.q8nn, name)(*args))

    def test_errors_as_torch_ops(self):
        conv = q8nn_torch.Conv2d.from_quantized(_conv_reference())
        for args, text in (((torch.randn(1, 4, 5, 5), conv._packed, 0.1, 0), "must be a quantized tensor"),
                           ((random_input((1, 4, 5, 5), torch.qint8, 1), conv._packed, 0.1, 200), "output_zero_point 200")):
            for fn in (q8nn_torch._eager.conv2d, torch.ops.q8nn.conv2d):
                with self.assertRaises(RuntimeError) as ctx:
                    fn(*args)
                self.assertIn(text, str(ctx.exception))
        if q8nn_torch.fast_path():
            with self.assertRaises(RuntimeError) as ctx:
                q8nn_torch._eager.conv2d(random_input((1, 4, 5, 5), torch.qint8, 1), conv._packed)
            self.assertIn("expected 4 arguments, got 2", str(ctx.exception))
            with self.assertRaises(RuntimeError):
                q8nn_torch._eager.conv2d(random_input((1, 4, 5, 5), torch.qint8, 1), "not a packed object", 0.1, 0)


def _conv_reference():
    ref = nnq.Conv2d(4, 8, 3, padding=1)
    ref.set_weight_bias(random_qweight(8, 4, 3, 3, True, 5), torch.randn(8))
    ref.scale, ref.zero_point = 0.2, 1
    return ref


class ErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ref = nnq.Conv2d(4, 8, 3)
        ref.set_weight_bias(random_qweight(8, 4, 3, 3, False, 2), torch.randn(8))
        cls.conv = q8nn_torch.Conv2d.from_quantized(ref)
        lin = nnq.Linear(6, 3)
        lin.set_weight_bias(random_qweight(3, 6, 1, 1, False, 2).reshape(3, 6), None)
        cls.linear = q8nn_torch.Linear.from_quantized(lin)
        cls.add = q8nn_torch.QFunctional(0.1, 0)

    def assertMessage(self, fn, text):
        with self.assertRaises(RuntimeError) as ctx:
            fn()
        self.assertIn(text, str(ctx.exception))

    def test_conv_bad_inputs(self):
        self.assertMessage(lambda: self.conv(torch.randn(1, 4, 5, 5)), "must be a quantized tensor")
        self.assertMessage(lambda: self.conv(random_input((4, 5, 5), torch.quint8, 1)), "must be 4-d")
        self.assertMessage(lambda: self.conv(random_input((1, 3, 5, 5), torch.quint8, 1)), "has 3 channels")
        self.assertMessage(lambda: self.conv(torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.1, 0, torch.qint32)),
                           "must be torch.quint8 or torch.qint8")
        per_channel = torch.quantize_per_channel(torch.randn(1, 4, 5, 5), torch.ones(4, dtype=torch.double),
                                                 torch.zeros(4, dtype=torch.long), 1, torch.quint8)
        self.assertMessage(lambda: self.conv(per_channel), "quantized per tensor")
        self.assertMessage(lambda: self.conv(random_input((1, 4, 2, 2), torch.quint8, 1)), "output would be empty")
        self.assertMessage(lambda: torch.ops.q8nn.conv2d(random_input((1, 4, 5, 5), torch.qint8, 1),
                                                         self.conv._packed, 0.1, 200), "output_zero_point 200")
        self.assertMessage(lambda: torch.ops.q8nn.conv2d(random_input((1, 4, 5, 5), torch.qint8, 1),
                                                         self.conv._packed, -1.0, 0), "output_scale")

    def test_q8nn_status_is_an_error(self):
        # A requantization scale >= 256 is unsupported_parameter in q8nn (XNNPACK's limit).
        x = random_input((1, 4, 5, 5), torch.qint8, 1, scale=100.0)
        self.assertMessage(lambda: torch.ops.q8nn.conv2d(x, self.conv._packed, 1e-4, 0), "unsupported_parameter")

    def test_linear_and_add_bad_inputs(self):
        self.assertMessage(lambda: self.linear(torch.randn(2, 6)), "must be a quantized tensor")
        self.assertMessage(lambda: self.linear(random_input((6,), torch.qint8, 1)), "2 or more dimensions")
        self.assertMessage(lambda: self.linear(random_input((2, 5), torch.qint8, 1)), "has 5 features")
        a = random_input((1, 2, 3, 3), torch.qint8, 1)
        self.assertMessage(lambda: self.add.add(a, a.dequantize()), "must be a quantized tensor")
        self.assertMessage(lambda: torch.ops.q8nn.add(a, random_input((1, 2, 3, 3), torch.quint8, 1),
                                                      self.add._packed, 0.1, 0), "same dtype")
        u = random_input((1, 2, 3, 3), torch.quint8, 1)
        self.assertMessage(lambda: torch.ops.q8nn.add(u, u[:, :, :1], self.add._packed, 0.1, 0), "same sizes")
        self.assertMessage(lambda: self.add.add(a, random_input((1, 3, 3, 3), torch.qint8, 1)), "")

    def test_bad_weights(self):
        w = torch.quantize_per_tensor(torch.randn(4, 2, 3, 3), 0.1, 3, torch.qint8)
        self.assertMessage(lambda: torch.ops.q8nn.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1),
                           "zero point must be 0")
        w = torch.quantize_per_tensor(torch.randn(4, 2, 3, 3), 0.1, 0, torch.quint8)
        self.assertMessage(lambda: torch.ops.q8nn.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1), "qint8")
        self.assertMessage(lambda: torch.ops.q8nn.conv2d_prepack(torch.randn(4, 2, 3, 3), None, [1, 1], [0, 0],
                                                                 [1, 1], 1), "qint8")

    def test_unsupported_layers_are_reported(self):
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.asym = nnq.Conv2d(4, 4, 1)
                self.asym.set_weight_bias(torch.quantize_per_tensor(torch.randn(4, 4, 1, 1), 0.1, 2, torch.qint8), None)
                self.reflect = nnq.Conv2d(4, 4, 3, padding=1, padding_mode="reflect")
                self.deconv = nnq.ConvTranspose2d(4, 4, 3)
                self.ok = nnq.Conv2d(4, 4, 1)
                self.dynamic = torch.ao.nn.quantized.dynamic.Linear(4, 4)

            def forward(self, x):
                return self.ok(self.deconv(self.reflect(self.asym(x))))

        net = Net()
        report = []
        converted = q8nn_torch.convert(net, report=report)
        by_name = {e.name: e for e in report}
        self.assertFalse(by_name["asym"].taken)
        self.assertIn("zero point 2", by_name["asym"].reason)
        self.assertFalse(by_name["reflect"].taken)
        self.assertIn("padding_mode", by_name["reflect"].reason)
        self.assertFalse(by_name["deconv"].taken)
        self.assertFalse(by_name["dynamic"].taken)
        self.assertTrue(by_name["ok"].taken)
        self.assertIsInstance(converted.asym, nnq.Conv2d)
        self.assertIsInstance(converted.ok, q8nn_torch.Conv2d)
        x = random_input((1, 4, 8, 8), torch.quint8, 3)
        self.assertTrue(torch.equal(net(x).int_repr(), converted(x).int_repr()))


if __name__ == "__main__":
    unittest.main()
