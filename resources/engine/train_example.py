"""A minimal training script that takes a ds_config the way HF Trainer does (`--deepspeed FILE`).

The app's exports (launch lines, reproduction bundle) start it to show the exported config runs
as it will in your own training: `torchrun --nproc_per_node N train_example.py --deepspeed
ds_config.json --spec spec.json` builds the spec's model (random weights, synthetic tokens) and
trains it for --steps optimizer steps. Replace it with your own script; the config stays.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deepspeed", required=True, help="ds_config.json")
    parser.add_argument("--spec", required=True, help="the run spec whose model and sequence length to train")
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args(argv)

    import distenv

    distenv.ensure_single_process_env()  # torchrun / deepspeed set these; plain python gets one process
    import opbuild_env

    opbuild_env.default_extensions_dir()  # the ops setup-engine-venv.sh pre-built, not a JIT build per process
    import deepspeed
    import torch

    import hf_model

    with open(args.deepspeed) as f:
        ds_config = json.load(f)
    with open(args.spec) as f:
        spec = json.load(f)
    deepspeed.init_distributed()
    zero = ds_config.get("zero_optimization") or {}
    # The spec's model as the runner builds it: transformers' class of its config.json (ZeRO-3:
    # partitioned as it is constructed).
    ac = spec.get("activationCheckpointing", True)
    if int(zero.get("stage", 0)) == 3:
        model = hf_model.build(spec["model"], ac, ds_config=ds_config, zero3=True)
    else:
        model = hf_model.build(spec["model"], ac)
    if "optimizer" not in ds_config:
        ds_config["optimizer"] = {"type": "AdamW", "params": {"lr": 1e-5}}  # as HF Trainer supplies one
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=[p for p in model.parameters() if p.requires_grad], config=ds_config)
    micro = engine.train_micro_batch_size_per_gpu()
    vocab = spec["model"]["vocabSize"]
    for step in range(args.steps):
        for _ in range(engine.gradient_accumulation_steps()):
            ids = torch.randint(0, vocab, (micro, spec["seqLen"]), device=engine.device)
            loss = engine(ids)
            engine.backward(loss)
            engine.step()
        print(json.dumps({"step": step + 1, "loss": float(loss.detach().float())}), flush=True)
    print(json.dumps({"done": True, "trainBatchSize": engine.train_batch_size(), "zeroStage": engine.zero_optimization_stage()}), flush=True)


if __name__ == "__main__":
    main()
