"""torch.optim.AdamW's CPU step rate on a model's real parameter shapes: FSDP2 CPU offload's optimizer step.

FSDP2 with CPU offload steps torch's AdamW on the host over fp32 shards. Its rate per parameter depends on the
implementation — the per-tensor loop (fused=False, foreach=False: what torch picks for CPU tensors unless told
fused=True) or the fused kernel — and perhaps, for the loop, on the tensor sizes: it makes several passes over each
tensor (lerp, mul, addcmul, sqrt, div, addcdiv), so a tensor that stays in the last-level cache between passes could
be stepped faster than one that does not. The tuner's torchPlainAdamFactor was set from one 256M-element tensor; this
measures the shapes a model really has, next to that single tensor, on the same host. (On an H100 host, 2026-12-07,
the loop was not faster on Llama-3.2-3B's shapes: resources/samples/h100-torch-adam-probe.)

Run (prints ONE JSON line on stdout):
    python torch_adam_rate.py --preset llama-3.2-3b --threads 16 --impl plain,fused --steps 3
    python torch_adam_rate.py --single 268435456 --threads 16 --impl plain,fused
    python torch_adam_rate.py --config config.json ...      (a Hugging Face config.json)

Needs host memory for 4 fp32 copies of the model (parameter, gradient, Adam m and v): 16 B per parameter.
"""
import argparse
import json
import sys
import time

IMPLS = {"plain": {"foreach": False, "fused": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}


def shapes_of_config(raw):
    """The parameter shapes transformers builds for a config.json, on the meta device (nothing allocated). The
    config goes through the runner's own check (hf_model.check_config: no remote code, no MoE, fields that
    contradict named), so what is measured is what a run of that config would build."""
    import hf_model  # also keeps transformers off the Hub
    import torch
    from transformers import AutoModelForCausalLM

    try:
        config = hf_model.check_config(raw)
    except hf_model.ConfigRefused as exc:
        raise SystemExit(f"{exc.message} {exc.fix}") from exc
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return [tuple(p.shape) for p in model.parameters()]


def shapes_of_args(args):
    if args.single:
        return [(args.single,)], f"one tensor of {args.single} elements"
    if args.config:
        with open(args.config, encoding="utf-8") as fh:
            return shapes_of_config(json.load(fh)), f"config.json {args.config}"
    import hf_model

    entry = hf_model.preset_configs().get(args.preset)
    if not entry:
        raise SystemExit(f"unknown preset {args.preset!r}: one of {', '.join(sorted(hf_model.preset_configs()))}")
    return shapes_of_config(entry["config"]), f"preset {args.preset}'s config.json ({entry['source']})"


def step_rate(shapes, impl, threads, steps):
    """Parameters per second of AdamW.step over fp32 CPU tensors of these shapes (after one warm-up step that
    allocates the states), and the per-step seconds."""
    import torch

    torch.set_num_threads(threads)
    params = []
    for shape in shapes:
        p = torch.nn.Parameter(torch.full(shape, 0.01, dtype=torch.float32))
        p.grad = torch.full(shape, 1e-3, dtype=torch.float32)
        params.append(p)
    opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01, **IMPLS[impl])
    opt.step()  # allocates exp_avg / exp_avg_sq
    seconds = []
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.step()
        seconds.append(time.perf_counter() - t0)
    n = sum(p.numel() for p in params)
    del opt, params
    mean = sum(seconds) / len(seconds)
    return {"impl": impl, "threads": threads, "params": n, "stepSeconds": seconds, "paramsPerSecond": n / mean}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--preset", help="a preset id of preset-configs.json (e.g. llama-3.2-3b)")
    src.add_argument("--config", help="a Hugging Face config.json file")
    src.add_argument("--single", type=int, help="one tensor of this many elements instead of a model")
    ap.add_argument("--threads", default="16", help="comma-separated thread counts")
    ap.add_argument("--impl", default="plain,fused", help=f"comma-separated, of {', '.join(IMPLS)}")
    ap.add_argument("--steps", type=int, default=3, help="timed steps after the warm-up step")
    args = ap.parse_args(argv)
    impls = [i for i in args.impl.split(",") if i]
    bad = [i for i in impls if i not in IMPLS]
    if bad:
        raise SystemExit(f"--impl {','.join(bad)}: not one of {', '.join(IMPLS)}")
    if args.steps < 1:
        raise SystemExit("--steps must be at least 1")

    shapes, source = shapes_of_args(args)
    import torch

    results = [step_rate(shapes, impl, int(t), args.steps) for impl in impls for t in args.threads.split(",") if t]
    sizes = sorted(int(torch.Size(s).numel()) for s in shapes)
    print(json.dumps({
        "source": source,
        "tensors": len(shapes),
        "largestTensor": sizes[-1],
        "medianTensor": sizes[len(sizes) // 2],
        "torch": torch.__version__,
        "results": results,
    }))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
