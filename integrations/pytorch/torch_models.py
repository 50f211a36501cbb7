"""torchvision's quantizable models as the tests and the benchmark build them: random weights,
BatchNorm statistics randomised (so the folded biases are not trivial), fused, calibrated on seeded
random inputs and converted with PyTorch's eager-mode quantization."""
import torch
import torchvision
from torch.ao.quantization import HistogramObserver, MinMaxObserver, PerChannelMinMaxObserver, QConfig


def qconfig(dtype, per_channel=False, engine="qnnpack"):
    """quint8: PyTorch's default qconfig of the engine (per-tensor weights), or per-channel symmetric
    weights; qint8: symmetric weights and qint8 activations over [-128, 127]."""
    weight = (PerChannelMinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_channel_symmetric)
              if per_channel else MinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric))
    if dtype == torch.quint8 and not per_channel:
        return torch.quantization.get_default_qconfig(engine)
    if dtype == torch.quint8:
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False), weight=weight)
    return QConfig(activation=HistogramObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_affine,
                                                          quant_min=-128, quant_max=127), weight=weight)


def quantized_model(name, dtype, size, per_channel=False, seed=0, engine="qnnpack"):
    """torchvision.models.quantization.<name>, quantized for `engine` (the engine is left set)."""
    torch.backends.quantized.engine = engine
    torch.manual_seed(seed)
    model = getattr(torchvision.models.quantization, name)(weights=None, quantize=False)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    model.eval()
    model.fuse_model()
    model.qconfig = qconfig(dtype, per_channel, engine)
    if dtype == torch.qint8 and per_channel:
        # PyTorch's qint8 linear (XNNPACK fully connected) has no per-channel weights.
        for m in model.modules():
            if isinstance(m, torch.nn.Linear):
                m.qconfig = qconfig(dtype, per_channel=False, engine=engine)
    torch.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(1, 3, size, size))
    torch.quantization.convert(model, inplace=True)
    return model


def print_table(header, rows):
    """A Markdown table of the benchmarks: header cells (a trailing "~" right-aligns a column,
    without the "~"), then one row per tuple."""
    print("| " + " | ".join(h.rstrip("~") for h in header) + " |")
    print("|" + "|".join("---:" if h.endswith("~") else "---" for h in header) + "|")
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
