"""Whole-model forward time of torchvision's quantizable MobileNetV2 and ResNet-18: PyTorch's
qnnpack engine (quint8 and qint8 models), PyTorch's onednn engine (quint8 model with onednn's
qconfig) and the same models converted with q8nn_torch. Batch 1, random weights with randomized
BatchNorm statistics, calibrated on random inputs.

    /usr/bin/python3 integrations/pytorch/bench_torch.py            # 224x224, 1 and 2 threads
    /usr/bin/python3 integrations/pytorch/bench_torch.py --quick    # 3 rounds of 2 forwards

Every configuration runs once per round, in a rotating order, `--iters` forwards per turn; the
table shows the median over rounds of the mean forward time, and for the q8nn models the part
spent inside the q8nn ops (q8nn_torch.stats(): the whole op, and q8nn_run_operator_on alone), and
the same q8nn operators run by q8nn alone (q8nn_torch.replay_seconds: one q8nn_run_operators list on
a pthreadpool, no PyTorch).
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds of 2 forwards")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--iters", type=int, default=5, help="forwards per configuration and round")
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--models", nargs="+", default=["mobilenet_v2", "resnet18"])
    parser.add_argument("--script", action="store_true", help="also every model through torch.jit.script")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.iters = 3, 2
    q8nn_torch.load()
    x = torch.randn(1, 3, args.size, args.size, generator=torch.Generator().manual_seed(1))

    rows = []
    # PyTorch 1.13's onednn engine fails ("could not create a primitive descriptor for a reorder
    # primitive") when a model prepacked at one thread count runs at another: every thread count
    # builds its models after torch.set_num_threads.
    for threads in args.threads:
        torch.set_num_threads(threads)
        for name in args.models:
            u8 = torch_models.quantized_model(name, torch.quint8, args.size)
            s8 = torch_models.quantized_model(name, torch.qint8, args.size)
            dnnl = torch_models.quantized_model(name, torch.quint8, args.size, engine="onednn")
            configs = [
                ("PyTorch qnnpack, quint8", u8, "qnnpack", False),
                ("PyTorch qnnpack, qint8", s8, "qnnpack", False),
                ("PyTorch onednn, quint8", dnnl, "onednn", False),
            ]
            for label, model in (("quint8", u8), ("qint8", s8)):
                report = []
                converted = q8nn_torch.convert(model, report=report)
                taken = sum(e.taken for e in report)
                configs.append((f"q8nn, {label} ({taken}/{len(report)} layers)", converted, "qnnpack", True))
                torch.backends.quantized.engine = "qnnpack"
                with torch.no_grad():
                    same = torch.equal(model(x), converted(x))
                print(f"{name} {label}, {threads} threads: q8nn logits "
                      f"{'identical to' if same else 'DIFFER from'} PyTorch qnnpack's", file=sys.stderr)
            if args.script:
                # TorchScript: the same models without Python's per-module cost
                for label, model, engine, is_q8nn in list(configs):
                    torch.backends.quantized.engine = engine
                    configs.append((label + ", TorchScript", torch.jit.script(model), engine, is_q8nn))

            times = {c[0]: [] for c in configs}
            in_ops = {c[0]: [] for c in configs}
            in_run = {c[0]: [] for c in configs}
            with torch.no_grad():
                for c in configs:  # warm up: operators created, caches filled
                    torch.backends.quantized.engine = c[2]
                    c[1](x)
                    c[1](x)
                for r in range(args.rounds):
                    for i in range(len(configs)):
                        label, model, engine, is_q8nn = configs[(i + r) % len(configs)]
                        torch.backends.quantized.engine = engine
                        if is_q8nn:
                            q8nn_torch.reset_stats()
                        # the previous configuration's pool (OpenMP's, or pytorch_qnnpack's and
                        # XNNPACK's pthreadpool) stops spinning before this one is timed: on 2
                        # cores a spinning pool takes a core from the next one
                        time.sleep(0.05)
                        start = time.perf_counter()
                        for _ in range(args.iters):
                            model(x)
                        times[label].append((time.perf_counter() - start) / args.iters)
                        if is_q8nn:
                            s = q8nn_torch.stats()
                            in_ops[label].append(s.op_seconds / args.iters)
                            in_run[label].append(s.run_seconds / args.iters)
            for label, model, engine, is_q8nn in configs:
                ms = statistics.median(times[label]) * 1e3
                ops = f"{statistics.median(in_ops[label]) * 1e3:.2f}" if is_q8nn else ""
                run = f"{statistics.median(in_run[label]) * 1e3:.2f}" if is_q8nn else ""
                alone = ""
                if is_q8nn:
                    torch.backends.quantized.engine = engine
                    time.sleep(0.05)
                    alone = f"{q8nn_torch.replay_seconds(model, x, iters=args.rounds * args.iters) * 1e3:.2f}"
                rows.append((name, threads, label, f"{ms:.2f}", ops, run, alone))

    print(f"\n{args.size}x{args.size}, batch 1, median of {args.rounds} rounds x {args.iters} forwards "
          f"(torch {torch.__version__})\n")
    torch_models.print_table(("model", "threads~", "configuration", "forward ms~", "in q8nn ops ms~",
                              "in q8nn run ms~", "same ops, q8nn alone ms~"), rows)


if __name__ == "__main__":
    main()
