"""Trains many tiny specs in ONE process through the runner's own engine adapter (ds_engine.DeepSpeedRun:
hf_model.build, zero.Init for ZeRO-3, the MoE settings, deepspeed.initialize, its train_step), two
steps each, and prints one JSON line per spec. bench.py runs one spec per process; starting
torch + DeepSpeed ~20 times would cost CI minutes, so test_model_configs.py batches the corpus here
(one real bench.py run per MoE family covers the protocol path).

    python tiny_config_runs.py specs.json      (a list of {"name", "spec"})
"""
import json
import math
import os
import sys
import time
import traceback

ENGINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "engine")
sys.path.insert(0, ENGINE)


def main(path):
    import distenv

    distenv.ensure_single_process_env()
    import torch

    import hf_model
    from ds_engine import DeepSpeedRun
    from synthetic import synthetic_batches

    torch.manual_seed(0)
    for item in json.load(open(path, encoding="utf-8")):
        spec, out = item["spec"], {"name": item["name"]}
        started = time.perf_counter()
        try:
            run = DeepSpeedRun(spec, torch.device("cpu"), 1, lambda _msg: None)
            inner = run.model_for_count.model
            batches = synthetic_batches(spec["model"]["vocabSize"], spec["microBatch"], spec["seqLen"], 2, spec["seed"], "cpu")
            out["losses"] = [float(run.train_step([b])) for b in batches]
            out["params"] = hf_model.count_params(run.model_for_count)[0]
            out["modelClass"] = type(inner).__name__
            out["leafClasses"] = sorted({type(m).__name__ for m in inner.modules() if getattr(m, "_z3_leaf", False)})
            if hf_model.moe_experts(inner.config):
                # The router's auxiliary loss is part of what the model returned (output_router_logits).
                res = run.engine.module.model(input_ids=batches[0], labels=batches[0], use_cache=False)
                out["auxLoss"] = float(res.aux_loss) if getattr(res, "aux_loss", None) is not None else None
            out["ok"] = all(math.isfinite(x) for x in out["losses"])
            run.engine.destroy()
        except Exception as exc:  # noqa: BLE001 - the test names the spec and the error
            out.update(ok=False, error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-2000:])
        out["seconds"] = round(time.perf_counter() - started, 2)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
