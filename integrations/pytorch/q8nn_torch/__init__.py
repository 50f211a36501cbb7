"""q8nn_torch: run an eager-mode quantized PyTorch model's conv, linear, add, mul, cat, max pooling,
adaptive average pooling, hardswish, hardsigmoid and channel shuffle layers on q8nn.

    import q8nn_torch
    model = q8nn_torch.convert(qmodel)          # qmodel: after torch.quantization.convert
    print(q8nn_torch.format_report(q8nn_torch.last_report()))

The swapped layers give the bytes PyTorch 1.13's qnnpack engine gives (pytorch_qnnpack for quint8
activations, XNNPACK for qint8): see README.md. Everything convert() does not take stays a PyTorch
module, and the report says why.
"""
import collections
import copy
import glob
import importlib.util
import logging
import os
from typing import List

import torch
import torch.nn.functional as F

try:  # PyTorch 1.13 keeps the quantized modules under torch.ao.nn; torch.nn.quantized re-exports them.
    import torch.ao.nn.quantized as nnq
    import torch.ao.nn.intrinsic.quantized as nniq
except ImportError:  # pragma: no cover
    import torch.nn.quantized as nnq
    import torch.nn.intrinsic.quantized as nniq

__all__ = [
    "KINDS", "AdaptiveAvgPool2d", "ChannelShuffle", "Conv2d", "Hardsigmoid", "Hardswish", "Linear", "MaxPool2d",
    "QFunctional",
    "ReportEntry", "ShuffleNetV2Block", "convert", "format_report", "last_report", "library_path", "load", "Stats",
    "stats", "reset_stats", "replay_seconds", "fast_path",
]

_log = logging.getLogger("q8nn_torch")

_LIBRARY_NAMES = ("libq8nn_torch_ops.so", "q8nn_torch_ops.so")
_loaded_path = None


def library_path():
    """The extension library load() uses: $Q8NN_TORCH_LIBRARY, else the newest of the package
    directory, integrations/pytorch/build*/ and the repository's build*/ directories."""
    env = os.environ.get("Q8NN_TORCH_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    integration = os.path.dirname(here)
    root = os.path.dirname(os.path.dirname(integration))
    dirs = [here] + sorted(glob.glob(os.path.join(integration, "build*"))) + \
        sorted(glob.glob(os.path.join(root, "build*")))
    found = [os.path.join(d, n) for d in dirs for n in _LIBRARY_NAMES if os.path.isfile(os.path.join(d, n))]
    if not found:
        raise FileNotFoundError(
            "q8nn_torch: libq8nn_torch_ops.so not found next to the package nor in a build directory; "
            "build it (cmake -S integrations/pytorch -B build-pytorch && cmake --build build-pytorch -j2) "
            "or set Q8NN_TORCH_LIBRARY to its path")
    return max(found, key=os.path.getmtime)


def load(path=None):
    """Loads the extension (torch.ops.q8nn.*) once, and the _q8nn_fast module beside it where it was
    built; returns the path loaded. Call it before torch.jit.load of a model saved with q8nn layers."""
    global _loaded_path, _fast
    if _loaded_path is None:
        path = path or library_path()
        torch.ops.load_library(path)
        _loaded_path = path
        _fast = _load_fast(os.path.dirname(os.path.abspath(path)))
    return _loaded_path


_fast = None  # _q8nn_fast (q8nn_torch_fast.cpp) once load() found it; None: every call via torch.ops


def _load_fast(directory):
    """_q8nn_fast from the library's directory, or None (then the modules call torch.ops.q8nn)."""
    if os.environ.get("Q8NN_TORCH_FAST", "1") == "0":
        return None
    found = sorted(glob.glob(os.path.join(directory, "_q8nn_fast*.so")))
    if not found:
        _log.debug("q8nn_torch: no _q8nn_fast module in %s: the ops run through torch.ops", directory)
        return None
    try:
        spec = importlib.util.spec_from_file_location("_q8nn_fast", found[0])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    except ImportError as e:
        _log.warning("q8nn_torch: %s did not load (%s): the ops run through torch.ops", found[0], e)
        return None


class _EagerOps:
    """The torch.ops.q8nn operators as the modules call them outside TorchScript: through
    _q8nn_fast.call (the operator looked up once, its arguments converted by the schema's types;
    about 7 us less per call than torch.ops' Python dispatch) where _q8nn_fast loaded, else
    torch.ops.q8nn itself. Same operator, kernel, checks and bytes either way."""

    def __getattr__(self, name):
        load()
        if _fast is None:
            op = getattr(torch.ops.q8nn, name)
        else:
            handle, call = _fast.op("q8nn::" + name), _fast.call

            def op(*args):
                return call(handle, *args)
        setattr(self, name, op)  # cached: __getattr__ runs once per operator
        return op


_eager = _EagerOps()


def fast_path():
    """Whether the modules call the operators through _q8nn_fast (else through torch.ops)."""
    load()
    return _fast is not None


Stats = collections.namedtuple("Stats", "calls op_seconds run_seconds max_threads pytorch_calls")
Stats.__doc__ = """Since reset_stats(): calls of the q8nn ops, seconds in them (the whole op: checks,
output allocation, setup, run), seconds in q8nn_run_operator_on alone, the most PyTorch threads
that ran pieces of one parallel-for, and the calls the ops handed to PyTorch's own kernel (cat,
hardswish and hardsigmoid where PyTorch's kernels disagree with themselves, see README.md). A
dilated max_pool2d (computed in the extension) counts in calls and op_seconds only."""


def stats():
    """A Stats of the q8nn ops since reset_stats()."""
    load()
    calls, op_ns, run_ns, max_threads, pytorch_calls = torch.ops.q8nn.stats()
    return Stats(calls, op_ns * 1e-9, run_ns * 1e-9, max_threads, pytorch_calls)


def reset_stats():
    load()
    torch.ops.q8nn.reset_stats()


def replay_seconds(model, *inputs, iters=20):
    """The q8nn operators of one forward of `model`, run by q8nn alone: the forward is recorded, then
    its q8nn operators (with that forward's setups and tensors) run as one q8nn_run_operators list on
    a pthreadpool of torch.get_num_threads() threads, `iters` times. Returns the median seconds per
    list: the same layers as stats().run_seconds measures inside PyTorch, without PyTorch."""
    load()
    torch.ops.q8nn.record(True)
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        torch.ops.q8nn.record(False)
    return torch.ops.q8nn.replay(iters)


# ---- modules ------------------------------------------------------------------------------------

class _Packed(torch.nn.Module):
    """A layer whose weights live in a q8nn ScriptObject (self._packed, made by _prepack(weight,
    bias)): its state_dict holds weight, bias, scale and zero_point, as torch.nn.quantized.Conv2d's,
    and loading one prepacks again."""

    def _prepack(self, weight, bias):
        raise NotImplementedError

    def weight(self):
        return self._packed.unpack()[0]

    def bias(self):
        return self._packed.unpack()[1]

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        weight, bias = self._packed.unpack()
        destination[prefix + "weight"] = weight
        destination[prefix + "bias"] = bias
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # torch.nn.quantized.Linear keeps (weight, bias) under _packed_params: take that form too, so
        # the quantized model's own state_dict loads into the converted one.
        packed = prefix + "_packed_params._packed_params"
        if packed in state_dict:
            state_dict[prefix + "weight"], state_dict[prefix + "bias"] = state_dict.pop(packed)
            state_dict.pop(prefix + "_packed_params.dtype", None)
        keys = [prefix + k for k in ("weight", "bias", "scale", "zero_point")]
        present = [k in state_dict for k in keys]
        if all(present):
            weight, bias, scale, zero_point = (state_dict.pop(k) for k in keys)
            self._prepack(weight, bias)
            self.scale = float(scale)
            self.zero_point = int(zero_point)
        elif strict:
            missing_keys.extend(k for k, p in zip(keys, present) if not p)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class Conv2d(_Packed):
    """Quantized 2D convolution (optionally with a fused ReLU) on q8nn; depthwise when every group
    has one input channel. Input: quint8 or qint8, per-tensor quantized, (N, C, H, W) in any memory
    format; output: channels-last, of the input's dtype, with this module's scale and zero point."""

    def __init__(self, weight, bias, stride, padding, dilation, groups, scale, zero_point, relu=False):
        super().__init__()
        load()
        self.in_channels = int(weight.size(1) * groups)
        self.out_channels = int(weight.size(0))
        self.kernel_size = (int(weight.size(2)), int(weight.size(3)))
        self.stride = tuple(int(s) for s in stride)
        self.padding = tuple(int(p) for p in padding)
        self.dilation = tuple(int(d) for d in dilation)
        self.groups = int(groups)
        self.relu = bool(relu)
        self.scale = float(scale)
        self.zero_point = int(zero_point)
        self._prepack(weight, bias)

    def _prepack(self, weight, bias):
        self._packed = torch.ops.q8nn.conv2d_prepack(
            weight, bias, list(self.stride), list(self.padding), list(self.dilation), self.groups)

    @classmethod
    def from_quantized(cls, mod):
        """From a torch.nn.quantized.Conv2d or torch.nn.intrinsic.quantized.ConvReLU2d."""
        return cls(mod.weight(), mod.bias(), mod.stride, mod.padding, mod.dilation, mod.groups,
                   mod.scale, mod.zero_point, relu=isinstance(mod, nniq.ConvReLU2d))

    def forward(self, x):
        if torch.jit.is_scripting():
            if self.relu:
                return torch.ops.q8nn.conv2d_relu(x, self._packed, self.scale, self.zero_point)
            return torch.ops.q8nn.conv2d(x, self._packed, self.scale, self.zero_point)
        if self.relu:
            return _eager.conv2d_relu(x, self._packed, self.scale, self.zero_point)
        return _eager.conv2d(x, self._packed, self.scale, self.zero_point)

    def _get_name(self):
        return "Q8nnConv2d"

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, groups={self.groups}, relu={self.relu}, "
                f"scale={self.scale}, zero_point={self.zero_point}")


class Linear(_Packed):
    """Quantized linear layer (optionally with a fused ReLU) on q8nn: x [..., in] -> [..., out]."""

    def __init__(self, weight, bias, scale, zero_point, relu=False):
        super().__init__()
        load()
        self.in_features = int(weight.size(1))
        self.out_features = int(weight.size(0))
        self.relu = bool(relu)
        self.scale = float(scale)
        self.zero_point = int(zero_point)
        self._prepack(weight, bias)

    def _prepack(self, weight, bias):
        self._packed = torch.ops.q8nn.linear_prepack(weight, bias)

    @classmethod
    def from_quantized(cls, mod):
        """From a torch.nn.quantized.Linear or torch.nn.intrinsic.quantized.LinearReLU."""
        return cls(mod.weight(), mod.bias(), mod.scale, mod.zero_point, relu=isinstance(mod, nniq.LinearReLU))

    def forward(self, x):
        if torch.jit.is_scripting():
            if self.relu:
                return torch.ops.q8nn.linear_relu(x, self._packed, self.scale, self.zero_point)
            return torch.ops.q8nn.linear(x, self._packed, self.scale, self.zero_point)
        if self.relu:
            return _eager.linear_relu(x, self._packed, self.scale, self.zero_point)
        return _eager.linear(x, self._packed, self.scale, self.zero_point)

    def _get_name(self):
        return "Q8nnLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, relu={self.relu}, "
                f"scale={self.scale}, zero_point={self.zero_point}")


class QFunctional(nnq.QFunctional):
    """torch.nn.quantized.QFunctional whose add, add_relu, mul and cat run on q8nn. add: qint8 inputs
    with XNNPACK's qs8 add, quint8 inputs of equal sizes with pytorch_qnnpack's add, as PyTorch's
    qnnpack engine; quint8 inputs of different sizes go to PyTorch's quantized::add (its generic
    kernel). mul: PyTorch's quantized mul with broadcasting (q8nn::mul, its float arithmetic).
    cat: PyTorch's quantized cat along any dimension (q8nn::cat). Every other method (add_scalar,
    mul_scalar, matmul) is PyTorch's. with_add / with_mul / with_cat False leave that method to
    PyTorch (convert's kinds)."""

    def __init__(self, scale=1.0, zero_point=0, with_add=True, with_cat=True, with_mul=True):
        super().__init__()
        load()
        self.scale = float(scale)
        self.zero_point = int(zero_point)
        self.with_add = bool(with_add)
        self.with_cat = bool(with_cat)
        self.with_mul = bool(with_mul)
        self._packed = torch.ops.q8nn.add_prepack()
        self._cat_packed = torch.ops.q8nn.cat_prepack()
        self._mul_packed = torch.ops.q8nn.mul_prepack()

    @classmethod
    def from_quantized(cls, mod, with_add=True, with_cat=True, with_mul=True):
        return cls(mod.scale, mod.zero_point, with_add, with_cat, with_mul)

    def mul(self, x, y):
        if self.with_mul:
            if torch.jit.is_scripting():
                r = torch.ops.q8nn.mul(x, y, self._mul_packed, self.scale, self.zero_point)
            else:
                r = _eager.mul(x, y, self._mul_packed, self.scale, self.zero_point)
        else:
            r = torch.ops.quantized.mul(x, y, scale=self.scale, zero_point=self.zero_point)
        return self.activation_post_process(r)

    def add(self, x, y):
        if self.with_add and (x.dtype == torch.qint8 or x.size() == y.size()):
            if torch.jit.is_scripting():
                r = torch.ops.q8nn.add(x, y, self._packed, self.scale, self.zero_point)
            else:
                r = _eager.add(x, y, self._packed, self.scale, self.zero_point)
        else:
            r = torch.ops.quantized.add(x, y, scale=self.scale, zero_point=self.zero_point)
        return self.activation_post_process(r)

    def add_relu(self, x, y):
        if self.with_add and (x.dtype == torch.qint8 or x.size() == y.size()):
            if torch.jit.is_scripting():
                r = torch.ops.q8nn.add_relu(x, y, self._packed, self.scale, self.zero_point)
            else:
                r = _eager.add_relu(x, y, self._packed, self.scale, self.zero_point)
        else:
            r = torch.ops.quantized.add_relu(x, y, scale=self.scale, zero_point=self.zero_point)
        return self.activation_post_process(r)

    def cat(self, x: List[torch.Tensor], dim: int = 0) -> torch.Tensor:
        if self.with_cat:
            if torch.jit.is_scripting():
                r = torch.ops.q8nn.cat(x, dim, self._cat_packed, self.scale, self.zero_point)
            else:
                r = _eager.cat(x, dim, self._cat_packed, self.scale, self.zero_point)
        else:
            r = torch.ops.quantized.cat(x, scale=self.scale, zero_point=self.zero_point, dim=dim)
        return self.activation_post_process(r)

    def extra_repr(self):
        return (f"scale={self.scale}, zero_point={self.zero_point}, with_add={self.with_add}, "
                f"with_cat={self.with_cat}, with_mul={self.with_mul}")

    def _get_name(self):
        return "Q8nnQFunctional"


def _pair(v, name):
    v = [int(i) for i in v] if isinstance(v, (tuple, list)) else [int(v)]
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise ValueError(f"q8nn_torch: {name} must have 1 or 2 values, got {len(v)}")
    return v


class MaxPool2d(torch.nn.Module):
    """torch.nn.MaxPool2d (without return_indices) whose quantized 4-d inputs (quint8 or qint8, per
    tensor) are pooled by q8nn::max_pool2d on PyTorch's intra-op threads, with PyTorch's bytes;
    output channels-last with the input's scale and zero point. Other inputs (float, 3-d) go to
    torch.nn.functional.max_pool2d.

    Why: PyTorch 1.13's qnnpack engine pools quint8 tensors on pytorch_qnnpack, on its own thread
    pool, whose workers keep spinning a few ms after it and share the cores with the next q8nn
    layer's intra-op threads."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        super().__init__()
        load()
        self.kernel_size = _pair(kernel_size, "kernel_size")
        empty = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        self.stride = list(self.kernel_size) if empty else _pair(stride, "stride")  # PyTorch's default
        self.padding = _pair(padding, "padding")
        self.dilation = _pair(dilation, "dilation")
        self.ceil_mode = bool(ceil_mode)

    @classmethod
    def from_float(cls, mod):
        """From a torch.nn.MaxPool2d with return_indices=False."""
        if mod.return_indices:
            raise ValueError("q8nn_torch.MaxPool2d: return_indices=True is not supported")
        return cls(mod.kernel_size, mod.stride, mod.padding, mod.dilation, mod.ceil_mode)

    def forward(self, x):
        if x.is_quantized and x.dim() == 4:
            if torch.jit.is_scripting():
                return torch.ops.q8nn.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                                 self.ceil_mode)
            return _eager.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=False)

    def _get_name(self):
        return "Q8nnMaxPool2d"

    def extra_repr(self):
        return (f"kernel_size={tuple(self.kernel_size)}, stride={tuple(self.stride)}, "
                f"padding={tuple(self.padding)}, dilation={tuple(self.dilation)}, ceil_mode={self.ceil_mode}")


class Hardswish(torch.nn.Module):
    """torch.nn.quantized.Hardswish on q8nn: a 256-entry lookup (q8nn::hardswish) of the table PyTorch
    computes for the input's and this module's quantization (pytorch_qnnpack's for quint8 on the
    qnnpack engine, its generic kernel's otherwise); output in the input's memory format."""

    def __init__(self, scale, zero_point):
        super().__init__()
        load()
        self.scale = float(scale)
        self.zero_point = int(zero_point)
        self._packed = torch.ops.q8nn.hardswish_prepack()

    @classmethod
    def from_quantized(cls, mod):
        """From a torch.nn.quantized.Hardswish."""
        return cls(mod.scale, mod.zero_point)

    def forward(self, x):
        if torch.jit.is_scripting():
            return torch.ops.q8nn.hardswish(x, self._packed, self.scale, self.zero_point)
        return _eager.hardswish(x, self._packed, self.scale, self.zero_point)

    def _get_name(self):
        return "Q8nnHardswish"

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}"


class AdaptiveAvgPool2d(torch.nn.Module):
    """torch.nn.AdaptiveAvgPool2d whose quantized 4-d inputs are pooled by q8nn::adaptive_avg_pool2d
    with PyTorch's bytes: q8nn's requantizing average pooling (pytorch_qnnpack's arithmetic) where
    PyTorch's qnnpack engine runs pytorch_qnnpack (quint8, input sizes multiples of the output's),
    PyTorch's own kernel otherwise; output with the input's scale and zero point, in PyTorch's
    layout. Float and 3-d inputs go to torch.nn.functional.adaptive_avg_pool2d."""

    def __init__(self, output_size):
        super().__init__()
        load()
        self.output_size = _pair(output_size, "output_size")

    @classmethod
    def from_float(cls, mod):
        """From a torch.nn.AdaptiveAvgPool2d whose output_size has no None."""
        return cls(mod.output_size)

    def forward(self, x):
        if x.is_quantized and x.dim() == 4:
            if torch.jit.is_scripting():
                return torch.ops.q8nn.adaptive_avg_pool2d(x, self.output_size)
            return _eager.adaptive_avg_pool2d(x, self.output_size)
        return F.adaptive_avg_pool2d(x, self.output_size)

    def _get_name(self):
        return "Q8nnAdaptiveAvgPool2d"

    def extra_repr(self):
        return f"output_size={tuple(self.output_size)}"


class Hardsigmoid(torch.nn.Module):
    """torch.nn.Hardsigmoid (inplace=False) whose quantized inputs go through a q8nn lookup
    (q8nn::hardsigmoid): PyTorch's quantized hardsigmoid bytes, output scale 1/256 and zero point 0
    (quint8) or -128 (qint8). Float inputs go to torch.nn.functional.hardsigmoid."""

    def __init__(self):
        super().__init__()
        load()
        self._packed = torch.ops.q8nn.hardsigmoid_prepack()

    @classmethod
    def from_float(cls, mod):
        """From a torch.nn.Hardsigmoid with inplace=False."""
        if mod.inplace:
            raise ValueError("q8nn_torch.Hardsigmoid: inplace=True is not supported")
        return cls()

    def forward(self, x):
        if x.is_quantized:
            if torch.jit.is_scripting():
                return torch.ops.q8nn.hardsigmoid(x, self._packed)
            return _eager.hardsigmoid(x, self._packed)
        return F.hardsigmoid(x)

    def _get_name(self):
        return "Q8nnHardsigmoid"


class ChannelShuffle(torch.nn.Module):
    """torch.nn.ChannelShuffle whose quantized 4-d inputs (quint8 or qint8, per tensor) are shuffled by
    q8nn::channel_shuffle: output channel k * groups + g is input channel g * (C / groups) + k, with
    the input's quantization; a contiguous NCHW input gives a contiguous output (whole planes
    copied), others a channels-last one (q8nn's channel shuffle). Other inputs go to
    torch.channel_shuffle."""

    def __init__(self, groups):
        super().__init__()
        load()
        self.groups = int(groups)
        self._packed = torch.ops.q8nn.channel_shuffle_prepack(self.groups)

    @classmethod
    def from_float(cls, mod):
        """From a torch.nn.ChannelShuffle."""
        return cls(mod.groups)

    def forward(self, x):
        if x.is_quantized and x.dim() == 4:
            if torch.jit.is_scripting():
                return torch.ops.q8nn.channel_shuffle(x, self._packed)
            return _eager.channel_shuffle(x, self._packed)
        return torch.channel_shuffle(x, self.groups)

    def _get_name(self):
        return "Q8nnChannelShuffle"

    def extra_repr(self):
        return f"groups={self.groups}"


class ShuffleNetV2Block(torch.nn.Module):
    """torchvision's quantizable ShuffleNetV2 block (QuantizableInvertedResidual) with the same forward,
    its channel_shuffle(out, 2) (view, transpose, contiguous, view: a PyTorch copy) replaced by a
    ChannelShuffle(2). Its branches and its cat QFunctional are converted like any other layer."""

    def __init__(self, mod):
        super().__init__()
        self.stride = int(mod.stride)
        self.branch1 = mod.branch1
        self.branch2 = mod.branch2
        self.cat = mod.cat
        self.shuffle = ChannelShuffle(2)

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = self.cat.cat([x1, self.branch2(x2)], dim=1)
        else:
            out = self.cat.cat([self.branch1(x), self.branch2(x)], dim=1)
        return self.shuffle(out)

    def _get_name(self):
        return "Q8nnShuffleNetV2Block"


def _is_shufflenet_block(mod):
    """Exactly torchvision's QuantizableInvertedResidual of ShuffleNetV2 (a subclass may have another
    forward), quantized (its cat a QFunctional)."""
    t = type(mod)
    return (t.__name__ == "QuantizableInvertedResidual" and
            t.__module__ == "torchvision.models.quantization.shufflenetv2" and
            isinstance(getattr(mod, "cat", None), nnq.QFunctional))


# ---- convert ------------------------------------------------------------------------------------

KINDS = ("conv", "depthwise", "linear", "add", "mul", "cat", "maxpool", "avgpool", "hardswish", "hardsigmoid",
         "shuffle")

ReportEntry = collections.namedtuple("ReportEntry", "name kind module taken reason")
ReportEntry.__doc__ = """One layer convert() looked at: its qualified name, kind (one of KINDS or
"other"), the PyTorch module type's name, whether it now runs on q8nn, and why not (or a note)."""

_last_report = []

# Quantized compute layers convert() does not take at all, reported so nothing is left silently.
_OTHER_QUANTIZED = tuple(c for c in (
    getattr(nnq, "Conv1d", None), getattr(nnq, "Conv3d", None), getattr(nnq, "ConvTranspose1d", None),
    getattr(nnq, "ConvTranspose2d", None), getattr(nnq, "ConvTranspose3d", None),
    getattr(nniq, "ConvReLU1d", None), getattr(nniq, "ConvReLU3d", None),
    getattr(nniq, "ConvAdd2d", None), getattr(nniq, "ConvAddReLU2d", None),
    getattr(nniq, "LinearLeakyReLU", None), getattr(nniq, "LinearTanh", None),
) if c is not None)


def last_report():
    """The report of the last convert() call: a list of ReportEntry."""
    return list(_last_report)


def format_report(report):
    """The report as text, one line per layer, those left to PyTorch first."""
    lines = []
    for e in sorted(report, key=lambda e: e.taken):
        where = "q8nn   " if e.taken else "PyTorch"
        lines.append(f"{where} {e.kind:9s} {e.name or '<root>'} ({e.module})" + (f": {e.reason}" if e.reason else ""))
    taken = sum(e.taken for e in report)
    lines.append(f"{taken} of {len(report)} layers on q8nn")
    return "\n".join(lines)


def _weight_problem(weight):
    """Why q8nn cannot take this quantized weight, or None."""
    if weight.dtype != torch.qint8:
        return f"weight dtype {weight.dtype} (q8nn takes qint8)"
    if weight.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        if weight.q_zero_point() != 0:
            return f"weight zero point {weight.q_zero_point()} (q8nn takes symmetric weights, zero point 0)"
    elif weight.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric):
        if weight.q_per_channel_axis() != 0:
            return f"per-channel weight along axis {weight.q_per_channel_axis()} (q8nn takes axis 0)"
        if bool((weight.q_per_channel_zero_points() != 0).any()):
            return "nonzero per-channel weight zero points (q8nn takes symmetric weights, zero point 0)"
    else:
        return f"weight quantization scheme {weight.qscheme()}"
    return None


# QFunctionals whose only use is known from their parent's forward: (parent module, parent class,
# attribute) -> the one method the parent calls.
_QFUNCTIONAL_USE = {
    ("torchvision.models.quantization.shufflenetv2", "QuantizableInvertedResidual", "cat"): "cat",
    (__name__, "ShuffleNetV2Block", "cat"): "cat",
    ("torchvision.models.quantization.mobilenetv3", "QuantizableSqueezeExcitation", "skip_mul"): "mul",
}

def _plan(mod, kinds, use=None):
    """(kind, factory or None, reason) for one module; kind None for modules convert() ignores
    (q8nn_torch's own among them: converting twice changes nothing). use: the one QFunctional
    method its parent calls, where known."""
    t = type(mod)
    if isinstance(mod, (Conv2d, Linear, QFunctional, MaxPool2d, AdaptiveAvgPool2d, Hardswish, Hardsigmoid,
                        ChannelShuffle)):
        return None, None, None
    if t in (nnq.Conv2d, nniq.ConvReLU2d):
        weight = mod.weight()
        depthwise = mod.groups > 1 and weight.size(1) == 1 and mod.groups == mod.in_channels
        kind = "depthwise" if depthwise else "conv"
        if kind not in kinds:
            return kind, None, "kind not selected"
        if getattr(mod, "padding_mode", "zeros") != "zeros":
            return kind, None, f"padding_mode {mod.padding_mode!r} (q8nn pads with the input zero point only)"
        if isinstance(mod.padding, str):
            return kind, None, f"padding {mod.padding!r}"
        problem = _weight_problem(weight)
        if problem:
            return kind, None, problem
        return kind, lambda: Conv2d.from_quantized(mod), None
    if t in (nnq.Linear, nniq.LinearReLU):
        if "linear" not in kinds:
            return "linear", None, "kind not selected"
        packed_dtype = getattr(getattr(mod, "_packed_params", None), "dtype", torch.qint8)
        if packed_dtype != torch.qint8:
            return "linear", None, f"packed dtype {packed_dtype}"
        problem = _weight_problem(mod.weight())
        if problem:
            return "linear", None, problem
        return "linear", lambda: Linear.from_quantized(mod), None
    if t is nnq.QFunctional:
        # One module for add, add_relu, mul and cat: kind "cat" or "mul" where the parent only calls
        # that, else "add" unless only "cat" or "mul" is selected.
        if use in ("cat", "mul"):
            kind = use
        else:
            kind = next((k for k in ("add", "cat", "mul") if k in kinds), "add")
        if kind not in kinds:
            return kind, None, "kind not selected"
        return kind, lambda: QFunctional.from_quantized(mod, "add" in kinds, "cat" in kinds, "mul" in kinds), None
    if t is torch.nn.AdaptiveAvgPool2d:
        if "avgpool" not in kinds:
            return "avgpool", None, "kind not selected"
        sizes = mod.output_size if isinstance(mod.output_size, (tuple, list)) else (mod.output_size,)
        if any(v is None for v in sizes):
            return "avgpool", None, "output_size with None (the input's size)"
        return "avgpool", lambda: AdaptiveAvgPool2d.from_float(mod), None
    if t is torch.nn.MaxPool2d:
        if "maxpool" not in kinds:
            return "maxpool", None, "kind not selected"
        if mod.return_indices:
            return "maxpool", None, "return_indices=True (q8nn returns no indices)"
        return "maxpool", lambda: MaxPool2d.from_float(mod), None
    if t is nnq.Hardswish:
        if "hardswish" not in kinds:
            return "hardswish", None, "kind not selected"
        return "hardswish", lambda: Hardswish.from_quantized(mod), None
    if t is torch.nn.Hardsigmoid:
        if "hardsigmoid" not in kinds:
            return "hardsigmoid", None, "kind not selected"
        if mod.inplace:
            return "hardsigmoid", None, "inplace=True (q8nn writes a new tensor)"
        return "hardsigmoid", lambda: Hardsigmoid.from_float(mod), None
    if t is torch.nn.ChannelShuffle:
        if "shuffle" not in kinds:
            return "shuffle", None, "kind not selected"
        return "shuffle", lambda: ChannelShuffle.from_float(mod), None
    if _is_shufflenet_block(mod):
        if "shuffle" not in kinds:
            return "shuffle", None, "kind not selected"
        return "shuffle", lambda: ShuffleNetV2Block(mod), None
    if isinstance(mod, _OTHER_QUANTIZED) or t.__module__.startswith(("torch.ao.nn.quantized.dynamic",
                                                                       "torch.nn.quantized.dynamic")):
        return "other", None, "no q8nn counterpart"
    if isinstance(mod, (nnq.Conv2d, nnq.Linear, nnq.QFunctional, torch.nn.MaxPool2d, torch.nn.AdaptiveAvgPool2d,
                        nnq.Hardswish, torch.nn.Hardsigmoid, torch.nn.ChannelShuffle)):
        return "other", None, f"subclass {t.__name__} of a supported layer: not taken"
    return None, None, None


def convert(model, inplace=False, kinds=KINDS, report=None):
    """Swaps the quantized layers of an eager-mode quantized model (after
    torch.quantization.convert) for q8nn ones and returns the model (a copy unless inplace).

    Taken: torch.nn.quantized.Conv2d and torch.nn.intrinsic.quantized.ConvReLU2d (kinds "conv",
    and "depthwise" for one input channel per group), torch.nn.quantized.Linear and
    torch.nn.intrinsic.quantized.LinearReLU ("linear"), torch.nn.quantized.QFunctional: its add and
    add_relu ("add"; quint8 adds of different sizes still run on PyTorch, as PyTorch runs them with
    its generic kernel), its mul ("mul") and its cat ("cat"; one report entry, of kind "add" unless
    only "cat" or "mul" is selected or its parent only calls that), torch.nn.MaxPool2d ("maxpool";
    quantized 4-d inputs on q8nn, others on PyTorch), torch.nn.AdaptiveAvgPool2d ("avgpool"; quint8
    4-d inputs on the qnnpack engine whose sizes are multiples of the output's on q8nn, others on
    PyTorch's kernel), torch.nn.quantized.Hardswish ("hardswish"), torch.nn.Hardsigmoid
    ("hardsigmoid"; quantized
    inputs on q8nn), torch.nn.ChannelShuffle and torchvision's quantizable ShuffleNetV2 block,
    whose channel_shuffle function becomes a ChannelShuffle module ("shuffle"). Left to PyTorch,
    with the reason in the report: layers of kinds not in `kinds`, weights with a nonzero zero
    point, padding modes other than zeros, layers whose q8nn prepack fails, max pools with
    return_indices=True, adaptive average pools with None in output_size, hardsigmoids with
    inplace=True, other quantized compute layers.

    report: optional list to which the ReportEntry items are appended (last_report() has them too).
    """
    global _last_report
    load()
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"q8nn_torch.convert: unknown kinds {sorted(unknown)}; choose from {KINDS}")
    kinds = set(kinds)
    if not inplace:
        model = copy.deepcopy(model)
    entries = []

    def visit_children(name, mod):
        parent = (type(mod).__module__, type(mod).__name__)
        for child_name, child in list(mod.named_children()):
            new = visit(f"{name}.{child_name}" if name else child_name, child,
                        _QFUNCTIONAL_USE.get(parent + (child_name,)))
            if new is not None:
                setattr(mod, child_name, new)

    def visit(name, mod, use=None):
        kind, factory, reason = _plan(mod, kinds, use)
        if kind is None:
            visit_children(name, mod)
            return None
        new = None
        if factory is not None:
            try:
                new = factory()
            except (RuntimeError, ValueError) as e:
                reason = f"q8nn refused it: {str(e).splitlines()[0]}"
        entries.append(ReportEntry(name, kind, type(mod).__name__, new is not None, reason))
        if new is None:
            _log.info("q8nn_torch: %s (%s) left to PyTorch: %s", name or "<root>", type(mod).__name__, reason)
        if isinstance(new, torch.nn.Module):
            new.train(mod.training)
        if isinstance(new, ShuffleNetV2Block):
            visit_children(name, new)  # its branches and cat
        elif new is None and _is_shufflenet_block(mod):
            visit_children(name, mod)
        return new

    new_root = visit("", model)
    _last_report = entries
    if report is not None:
        report.extend(entries)
    return new_root if new_root is not None else model
