"""Per-operator time of the layers q8nn_torch swaps beside convolution and add: linear, hardswish,
hardsigmoid, adaptive average pooling, the squeeze-excitation mul, max pooling, cat and channel
shuffle, on the shapes of torchvision's MobileNetV3-Large,
ResNet-18 and ShuffleNetV2 at 224x224, batch 1: PyTorch's qnnpack engine, PyTorch's onednn engine
and the q8nn_torch module made from the same PyTorch module.

    /usr/bin/python3 integrations/pytorch/bench_torch_ops.py            # 1 and 2 threads
    /usr/bin/python3 integrations/pytorch/bench_torch_ops.py --quick    # 3 short rounds

Every module is called from Python as a model calls it (eager mode, a new output tensor per call),
so the times include each library's per-call cost in PyTorch (the q8nn_torch modules call
through _q8nn_fast where it was built: q8nn_torch.fast_path()). The input layout is the one the
eager models run in: contiguous NCHW (`--channels-last` for NHWC). Each configuration runs once per
round in a rotating order, `--iters` calls per turn; the table shows the median over rounds of the
mean call time and q8nn's speedup over each engine (engine time / q8nn time), and says whether
q8nn's output equals each engine's. Activations are quint8 (the dtype of torchvision's quantized
models and of PyTorch's onednn engine).
"""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import q8nn_torch  # noqa: E402
import torch_models  # noqa: E402

try:  # PyTorch 1.13 keeps the quantized modules under torch.ao.nn
    import torch.ao.nn.quantized as nnq
except ImportError:  # pragma: no cover
    import torch.nn.quantized as nnq

ENGINES = ("qnnpack", "onednn")


def _q(shape, scale, zero_point, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g) * 3
    return torch.quantize_per_tensor(x, scale, zero_point, torch.quint8)


class _Binary(torch.nn.Module):
    """A QFunctional's cat of two tensors along the channels (the ShuffleNetV2 block's) or mul of
    two (the MobileNetV3 squeeze-excitation's skip_mul), as the model calls it; f is PyTorch's
    QFunctional or q8nn_torch's."""

    def __init__(self, method, scale=None, zero_point=None, f=None):
        super().__init__()
        if f is None:
            f = nnq.QFunctional()
            f.scale, f.zero_point = scale, zero_point
        self.f, self.method = f, method

    def forward(self, a, b):
        return self.f.cat([a, b], 1) if self.method == "cat" else self.f.mul(a, b)

    def to_q8nn(self):
        f = q8nn_torch.QFunctional.from_quantized(self.f, False, self.method == "cat", self.method == "mul")
        return _Binary(self.method, f=f)


def _linear(engine, k, n):
    torch.backends.quantized.engine = engine  # the weights are prepacked for the engine that makes them
    g = torch.Generator().manual_seed(k * 7 + n)
    mod = nnq.Linear(k, n)
    w = torch.quantize_per_channel(torch.randn(n, k, generator=g) * 0.05, torch.rand(n, generator=g) * 0.002 + 0.001,
                                   torch.zeros(n, dtype=torch.long), 0, torch.qint8)
    mod.set_weight_bias(w, torch.randn(n, generator=g))
    mod.scale, mod.zero_point = 0.2, 120
    return mod


def cases():
    """(name, PyTorch module factory for an engine, q8nn module factory from it, inputs)."""
    out = []
    for k, n in ((960, 1280), (1280, 1000), (1024, 1024)):
        out.append((f"linear 1x{k}->{n}", lambda e, k=k, n=n: _linear(e, k, n), q8nn_torch.Linear.from_quantized,
                    (_q((1, k), 0.05, 128, k),)))
    for shape in ((1, 16, 112, 112), (1, 240, 28, 28), (1, 960, 7, 7)):
        c, h = shape[1], shape[2]
        out.append((f"hardswish {h}x{h}x{c}", lambda e: nnq.Hardswish(0.04, 110), q8nn_torch.Hardswish.from_quantized,
                    (_q(shape, 0.05, 128, c),)))
    for shape in ((1, 72, 28, 28), (1, 960, 7, 7)):
        c, h = shape[1], shape[2]
        out.append((f"hardsigmoid {h}x{h}x{c}", lambda e: torch.nn.Hardsigmoid(), q8nn_torch.Hardsigmoid.from_float,
                    (_q(shape, 0.05, 128, c + 1),)))
    for c, h in ((120, 28), (672, 14), (960, 7)):
        out.append((f"adaptive_avg_pool2d 1 {h}x{h}x{c}", lambda e: torch.nn.AdaptiveAvgPool2d(1),
                    q8nn_torch.AdaptiveAvgPool2d.from_float, (_q((1, c, h, h), 0.05, 128, c + 5),)))
    for c, h in ((120, 28), (672, 14), (960, 7)):
        out.append((f"mul 1x1x{c} * {h}x{h}x{c}", lambda e: _Binary("mul", 0.04, 115), _Binary.to_q8nn,
                    (_q((1, c, 1, 1), 0.004, 0, c + 6), _q((1, c, h, h), 0.05, 128, c + 7))))
    for shape in ((1, 64, 112, 112), (1, 24, 112, 112)):
        c, h = shape[1], shape[2]
        out.append((f"max_pool2d 3x3/2 {h}x{h}x{c}", lambda e: torch.nn.MaxPool2d(3, 2, 1),
                    q8nn_torch.MaxPool2d.from_float, (_q(shape, 0.05, 128, c + 2),)))
    for c, h in ((58, 28), (116, 14), (232, 7)):
        out.append((f"cat 2x{h}x{h}x{c}", lambda e: _Binary("cat", 0.06, 125), _Binary.to_q8nn,
                    (_q((1, c, h, h), 0.05, 128, c), _q((1, c, h, h), 0.07, 120, c + 3))))
    for c, h in ((116, 28), (232, 14)):
        out.append((f"channel_shuffle 2 {h}x{h}x{c}", lambda e: torch.nn.ChannelShuffle(2),
                    q8nn_torch.ChannelShuffle.from_float, (_q((1, c, h, h), 0.05, 128, c + 4),)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds of 20 calls")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--iters", type=int, default=200, help="calls per configuration and round")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--channels-last", action="store_true", help="NHWC inputs (4-d ones)")
    parser.add_argument("--layers", nargs="+", help="only layers whose name contains one of these")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.iters = 3, 20
    q8nn_torch.load()

    rows = []
    for threads in args.threads:
        torch.set_num_threads(threads)
        for name, make, to_q8nn, inputs in cases():
            if args.layers and not any(s in name for s in args.layers):
                continue
            if args.channels_last:
                inputs = tuple(x.contiguous(memory_format=torch.channels_last) if x.dim() == 4 else x for x in inputs)
            configs = []
            for engine in ENGINES:
                configs.append((engine, make(engine), engine))
            q = to_q8nn(make("qnnpack"))
            configs.append(("q8nn", q, "qnnpack"))
            outs = {}
            with torch.no_grad():
                for label, mod, engine in configs:  # warm up: operators created, caches filled
                    torch.backends.quantized.engine = engine
                    mod(*inputs)
                    outs[label] = mod(*inputs).int_repr()
                times = {c[0]: [] for c in configs}
                for r in range(args.rounds):
                    for i in range(len(configs)):
                        label, mod, engine = configs[(i + r) % len(configs)]
                        torch.backends.quantized.engine = engine
                        time.sleep(0.02)  # the previous library's pool stops spinning first
                        start = time.perf_counter()
                        for _ in range(args.iters):
                            mod(*inputs)
                        times[label].append((time.perf_counter() - start) / args.iters)
            us = {label: statistics.median(t) * 1e6 for label, t in times.items()}
            same = "/".join("=" if torch.equal(outs["q8nn"], outs[e]) else "differs" for e in ENGINES)
            rows.append((name, threads, f"{us['qnnpack']:.1f}", f"{us['onednn']:.1f}", f"{us['q8nn']:.1f}",
                         f"{us['qnnpack'] / us['q8nn']:.2f}", f"{us['onednn'] / us['q8nn']:.2f}", same))

    layout = "channels-last" if args.channels_last else "contiguous (NCHW)"
    path = "_q8nn_fast" if q8nn_torch.fast_path() else "torch.ops"
    print(f"\nbatch 1, quint8, {layout} inputs, median of {args.rounds} rounds x {args.iters} calls "
          f"(torch {torch.__version__}; q8nn modules call through {path})\n")
    torch_models.print_table(("layer", "threads~", "qnnpack us~", "onednn us~", "q8nn us~", "qnnpack / q8nn~",
                              "onednn / q8nn~", "q8nn bytes vs qnnpack/onednn"), rows)


if __name__ == "__main__":
    main()
