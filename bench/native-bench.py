#!/usr/bin/env python3
"""PyTorch's CPU AdamW step rate by thread count: the figure the native CPU Adam is compared with.

Uses torch.optim.AdamW(fused=True) on a CPU fp32 parameter (fused CPU kernels exist since
torch 2.4); falls back to foreach=True where fused is refused, and says which in "impl".
Prints one JSON object on stdout.

  python3 bench/native-bench.py --params 67108864 --threads 1,2,4 --seconds-per-count 4
"""
import argparse
import json
import statistics
import time

import torch


def make_optimizer(param):
    try:
        return torch.optim.AdamW([param], lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, fused=True), "fused"
    except (RuntimeError, ValueError, TypeError):
        return torch.optim.AdamW([param], lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, foreach=True), "foreach"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=int, default=64 << 20)
    ap.add_argument("--threads", default="1")
    ap.add_argument("--seconds-per-count", type=float, default=4.0)
    ap.add_argument("--min-steps", type=int, default=3)
    ap.add_argument("--max-steps", type=int, default=30)
    args = ap.parse_args()

    param = torch.nn.Parameter(torch.rand(args.params, dtype=torch.float32) * 0.2 - 0.1)
    param.grad = torch.rand(args.params, dtype=torch.float32) * 0.02 - 0.01
    opt, impl = make_optimizer(param)
    try:
        opt.step()  # first step allocates exp_avg / exp_avg_sq (and proves fused runs on CPU)
    except RuntimeError:
        opt, impl = torch.optim.AdamW([param], lr=1e-3, weight_decay=0.01, foreach=True), "foreach"
        opt.step()

    points = []
    for t in [int(x) for x in args.threads.split(",") if x]:
        torch.set_num_threads(t)
        opt.step()  # warm-up at this thread count, not counted
        times = []
        end = time.perf_counter() + args.seconds_per_count
        while len(times) < args.max_steps and (len(times) < args.min_steps or time.perf_counter() < end):
            s = time.perf_counter()
            opt.step()
            times.append(time.perf_counter() - s)
        med = statistics.median(times)
        points.append({"threads": t, "paramsPerSecond": args.params / med, "steps": len(times),
                       "medianSeconds": med, "minSeconds": min(times), "maxSeconds": max(times)})
    print(json.dumps({"torch": torch.__version__, "impl": impl, "params": args.params, "points": points}))


if __name__ == "__main__":
    main()
